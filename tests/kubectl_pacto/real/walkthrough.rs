//! The README's cluster walkthrough on the real server: its `kubectl` commands run as written
//! (CRDs of `examples/cluster/`, the namespaces, the examples applied, their status written
//! through the status subresource, after waiting for the CRDs to be established), then
//! `kubectl pacto get -n shop` and the block's `explain` and `wait`. A Pacto is fresh when
//! `status.observedGeneration` equals `metadata.generation` (the operator's freshness rule); the
//! expected FRESH column comes from the example file's own generation and status, which the
//! server keeps only when the CRD declares the status subresource (otherwise the status write
//! bumps the generation and every Pacto reads stale).

use super::*;

/// The `kubectl` commands of the README's walkthrough block (the one starting `kind create
/// cluster`), each line split at `&&`, without `kind` and without `kubectl pacto`.
fn walkthrough_commands() -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let block = readme
        .split("```sh\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .find(|b| b.starts_with("kind create cluster\n"))
        .expect("the README has a walkthrough block starting `kind create cluster`");
    let mut kubectl = Vec::new();
    let mut pacto = Vec::new();
    for line in block.lines().skip(1) {
        for command in line.split("&&") {
            let words: Vec<String> = command.split_whitespace().map(String::from).collect();
            match words.first().map(String::as_str) {
                Some("kubectl") if words.get(1).map(String::as_str) == Some("pacto") => {
                    pacto.push(words[2..].to_vec())
                }
                Some("kubectl") => kubectl.push(words[1..].to_vec()),
                other => panic!("unexpected walkthrough command {other:?}: {line}"),
            }
        }
    }
    (kubectl, pacto)
}

#[test]
fn the_readme_walkthrough_shows_fresh_pactos_on_a_real_server() {
    // The walkthrough's namespaces are fixed (shop, coder): a cluster of this test's own.
    let kube = kube_harness::Kube::start();
    let (kubectl, pacto) = walkthrough_commands();
    assert!(
        kubectl
            .iter()
            .any(|c| c.iter().any(|w| w == "--subresource=status")),
        "the walkthrough writes status through the status subresource: {kubectl:?}"
    );
    for args in &kubectl {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut c = kube.kubectl(&args);
        c.current_dir(repo());
        run_with(&mut c, None, Duration::from_secs(120)).assert_code(0);
    }
    assert_eq!(
        pacto.first().map(|a| a.join(" ")).as_deref(),
        Some("get -n shop"),
        "{pacto:?}"
    );

    let home = tempfile::tempdir().unwrap();
    let r = pacto_on(&kube, home.path(), &["get", "-n", "shop"]);
    r.assert_code(0).assert_no_panic();
    let names = column(&r.stdout, "NAME");
    let fresh = column(&r.stdout, "FRESH");
    let got: Vec<(String, String)> = names.into_iter().zip(fresh).collect();
    let mut want: Vec<(String, String)> = yaml_documents("examples/objects/gates.yaml")
        .into_iter()
        .filter(|o| o["kind"] == "Pacto" && o["metadata"]["namespace"] == "shop")
        .map(|o| {
            // `-`: never evaluated (no status); `yes`: the verdict is for this generation.
            let fresh = if o["status"].is_null() {
                "-"
            } else if o["status"]["observedGeneration"].is_u64()
                && o["status"]["observedGeneration"] == o["metadata"]["generation"]
            {
                "yes"
            } else {
                "no"
            };
            (
                o["metadata"]["name"].as_str().unwrap().to_string(),
                fresh.to_string(),
            )
        })
        .collect();
    want.sort();
    assert!(
        want.iter().filter(|(_, f)| f == "yes").count() >= 4,
        "the examples' fresh Pactos: {want:?}"
    );
    assert_eq!(got, want, "{}", r.stdout);

    // The walkthrough's other `kubectl pacto` commands, as written: `explain` reports the
    // example's own verdict, `wait --for verdict=` returns at once on the Pacto that has it.
    let examples = yaml_documents("examples/objects/gates.yaml");
    let verdict_of = |name: &str| {
        examples
            .iter()
            .find(|o| o["kind"] == "Pacto" && o["metadata"]["name"] == name)
            .and_then(|o| o["status"]["contractStatus"].as_str())
            .unwrap_or_else(|| {
                panic!("examples/objects/gates.yaml has no Pacto {name} with a verdict")
            })
            .to_string()
    };
    assert!(pacto.len() >= 3, "{pacto:?}");
    for args in &pacto[1..] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = pacto_on(&kube, home.path(), &args);
        r.assert_code(0).assert_no_panic();
        let name = args[1].split_once('/').map(|(_, n)| n).unwrap_or_default();
        match args[0] {
            "explain" => {
                let line = format!("Verdict:       {}\n", verdict_of(name));
                assert!(r.stdout.contains(&line), "{args:?}: {}", r.stdout);
            }
            "wait" => {
                let wanted = args
                    .iter()
                    .find_map(|a| a.strip_prefix("verdict="))
                    .expect("the walkthrough waits for a verdict");
                assert_eq!(verdict_of(name), wanted, "{args:?}");
            }
            other => panic!("unexpected walkthrough command {other}: {args:?}"),
        }
    }
}
