//! `kubectl pacto get` against the fake API server: listing one namespace or all of them, one Pacto
//! by name, machine output, label selectors, the requests a listing costs, the notes on the
//! recommended gate, and colour only on a terminal. Tables follow `kubectl get`'s conventions
//! (kubectl `pkg/cmd/get/get.go`); golden outputs live in `tests/fixtures/pacto/golden/get/`.

use super::*;

#[test]
fn get_lists_every_pacto_fixture_from_a_live_cluster() {
    let c = Cluster::new("shop");
    let files: Vec<PathBuf> = fixture_files(&pacto_dir())
        .into_iter()
        .filter(|f| is_pacto(&read_yaml(f)))
        .collect();
    c.insert_files(&files);
    // The Kustomization holds every Pacto but `orders` (situation 3), which the recommended
    // gate judges.
    let held: Vec<(String, String)> = files
        .iter()
        .map(|f| read_yaml(f))
        .map(|v| {
            (
                v["metadata"]["namespace"].as_str().unwrap().to_string(),
                v["metadata"]["name"].as_str().unwrap().to_string(),
            )
        })
        .filter(|(_, n)| n != "orders")
        .collect();
    let held_refs: Vec<(&str, &str)> = held.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    c.with_gates(&held_refs);
    let r = c.run(&["get"]);
    r.assert_code(0).assert_no_panic();
    assert_eq!(r.stdout.lines().count(), files.len() + 1, "{}", r.stdout);
    golden("get/shop.txt", &r.stdout);
    let wide = c.run(&["get", "pactos", "-o", "wide"]);
    wide.assert_code(0);
    golden("get/shop-wide.txt", &wide.stdout);
}

#[test]
fn get_all_namespaces_lists_three_namespaces_with_a_namespace_column() {
    let c = three_namespaces();
    let r = c.run(&["get", "-A"]);
    r.assert_code(0).assert_no_panic();
    let namespaces: std::collections::BTreeSet<&str> = r
        .stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        namespaces.into_iter().collect::<Vec<_>>(),
        ["payments", "search", "shop"]
    );
    assert!(r.stdout.starts_with("NAMESPACE "), "{}", r.stdout);
    golden("get/all-namespaces.txt", &r.stdout);
    // The context namespace (default) holds none.
    let empty = c.run(&["get"]);
    empty.assert_code(0);
    assert_eq!(empty.stdout, "");
    assert_eq!(empty.stderr, "No resources found in default namespace.\n");
}

#[test]
fn get_one_pacto_by_name_either_spelling() {
    let c = shop();
    let a = c.run(&["get", "pactos", "orders"]);
    let b = c.run(&["get", "pacto/orders"]);
    a.assert_code(0);
    assert_eq!(a.stdout, b.stdout);
    let rows: Vec<&str> = a.stdout.lines().collect();
    assert_eq!(rows.len(), 2, "{}", a.stdout);
    assert_eq!(
        crate::common::cell(&a.stdout, 0, "NAME"),
        "orders",
        "{}",
        a.stdout
    );
    assert_eq!(
        crate::common::cell(&a.stdout, 0, "STATUS"),
        "Compliant",
        "{}",
        a.stdout
    );
    // One GET of the object, no list.
    assert_eq!(c.count("GET", "/namespaces/shop/pactos/orders"), 2);
    assert_eq!(c.count("GET", "/namespaces/shop/pactos"), 0);
}

#[test]
fn a_missing_pacto_is_an_error_naming_it() {
    let c = shop();
    let r = c.run(&["get", "pactos", "nope"]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: pactos.pacto.trianalab.io \"nope\" not found in namespace \"shop\"\n"
    );
    let r = c.run(&["explain", "pacto/nope", "-n", "payments"]);
    r.assert_code(1);
    assert_eq!(
        r.stderr,
        "error: pactos.pacto.trianalab.io \"nope\" not found in namespace \"payments\"\n"
    );
}

#[test]
fn a_cluster_without_the_crd_says_so() {
    let c = Cluster::without_pacto_crd();
    for args in [&["get"][..], &["explain", "pacto/orders"][..]] {
        let r = c.run(args);
        r.assert_code(1).assert_no_panic();
        assert_eq!(
            r.stderr,
            "error: the Pacto CRD is not installed in this cluster (the API server serves no Pacto in pacto.trianalab.io/v1alpha1)\n"
        );
    }
}

#[test]
fn machine_output_is_a_kubectl_list_of_the_objects_as_stored() {
    let c = shop();
    let r = c.run(&["get", "-o", "json"]);
    r.assert_code(0);
    assert!(!r.stdout.contains('\u{1b}'));
    let list: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(list["apiVersion"], "v1");
    assert_eq!(list["kind"], "List");
    let items = list["items"].as_array().unwrap();
    let stored = c.server.list("pacto.trianalab.io/v1alpha1", "Pacto");
    assert_eq!(items.len(), stored.len());
    for item in items {
        let name = item["metadata"]["name"].as_str().unwrap();
        let want = c
            .server
            .get("pacto.trianalab.io/v1alpha1", "Pacto", Some("shop"), name)
            .unwrap();
        assert_eq!(item, &want, "{name}");
    }
    let y = c.run(&["get", "-o", "yaml"]);
    y.assert_code(0);
    let from_yaml: Value = serde_saphyr::from_str(&y.stdout).unwrap();
    assert_eq!(from_yaml, list);
    let n = c.run(&["get", "-o", "name"]);
    n.assert_code(0);
    assert_eq!(n.stdout.lines().count(), stored.len());
    assert!(
        n.stdout
            .lines()
            .all(|l| l.starts_with("pacto.pacto.trianalab.io/")),
        "{}",
        n.stdout
    );
    assert!(n.stdout.contains("pacto.pacto.trianalab.io/orders\n"));
    // Machine output needs no gates: one discovery, one list.
    assert_eq!(c.count("GET", "/configmaps/argocd-cm"), 0);
}

#[test]
fn the_label_selector_is_sent_to_the_server() {
    let c = Cluster::new("shop");
    for (name, team) in [("a", "blue"), ("b", "red"), ("c", "blue")] {
        c.server.insert(serde_json::json!({
            "apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": name, "namespace": "shop", "labels": {"team": team}},
            "spec": {"target": {"serviceName": name}},
            "status": {"contractStatus": "Compliant", "observedGeneration": 1}
        }));
    }
    let r = c.run(&["get", "-l", "team=blue", "-o", "name"]);
    r.assert_code(0);
    assert_eq!(
        r.stdout,
        "pacto.pacto.trianalab.io/a\npacto.pacto.trianalab.io/c\n"
    );
    let list = c
        .server
        .requests()
        .into_iter()
        .find(|q| q.path.ends_with("/pactos"))
        .unwrap();
    assert_eq!(
        list.query_param("labelSelector").as_deref(),
        Some("team=blue")
    );
    let bad = c.run(&["get", "-l", "team in (blue"]);
    bad.assert_code(1).assert_no_panic();
    assert!(bad.stderr.starts_with("error: the API server answered 400 BadRequest to list pactos.pacto.trianalab.io in namespace \"shop\": "), "{}", bad.stderr);
}

#[test]
fn get_on_1000_pactos_reads_each_kind_in_pages_of_500() {
    let c = Cluster::new("default");
    let verdicts = ["Compliant", "NonCompliant", "Unknown", "Warning"];
    for i in 0..1000 {
        c.server.insert(serde_json::json!({
            "apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": format!("svc-{i:04}"), "namespace": format!("team-{}", i % 10), "generation": 1},
            "spec": {"target": {"serviceName": format!("svc-{i:04}")}},
            "status": {"contractStatus": verdicts[i % 4], "observedGeneration": 1,
                "findings": [{"code": "WORKLOAD_MISMATCH", "severity": "error", "message": "declared job, observed Deployment"}]}
        }));
    }
    c.with_gates(&[("team-1", "svc-0001")]);
    c.server.clear_requests();
    let r = c.run(&["get", "-A"]);
    r.assert_code(0);
    assert_eq!(r.stdout.lines().count(), 1001);
    let reqs: Vec<String> = c
        .server
        .requests()
        .iter()
        .map(|q| format!("{} {}", q.method, q.path))
        .collect();
    // kubectl's --chunk-size default: two pages of 500 Pactos, the second with the first's
    // continue token.
    let pages: Vec<String> = c
        .server
        .requests()
        .iter()
        .filter(|q| q.path.ends_with("/pactos"))
        .map(|q| {
            q.query
                .split('&')
                .filter(|p| p.starts_with("limit="))
                .collect()
        })
        .collect();
    assert_eq!(pages, ["limit=500", "limit=500"]);
    assert!(c
        .server
        .requests()
        .iter()
        .filter(|q| q.path.ends_with("/pactos"))
        .nth(1)
        .unwrap()
        .query
        .contains("continue="));
    assert_eq!(
        reqs,
        [
            "GET /apis/pacto.trianalab.io/v1alpha1",
            "GET /apis/pacto.trianalab.io/v1alpha1/pactos",
            "GET /apis/pacto.trianalab.io/v1alpha1/pactos",
            "GET /api/v1/namespaces/argocd/configmaps/argocd-cm",
            "GET /apis/kustomize.toolkit.fluxcd.io/v1",
            "GET /apis/kustomize.toolkit.fluxcd.io/v1/kustomizations",
        ]
    );
    // --chunk-size 0 reads the list in one request.
    c.server.clear_requests();
    c.run(&["get", "-A", "--chunk-size", "0"]).assert_code(0);
    assert_eq!(c.count("GET", "/pactos"), 1);
}

#[test]
fn get_says_on_stderr_when_the_recommended_gate_decides() {
    let home = tempfile::tempdir().unwrap();
    let r = run(&mut cmd(home.path(), &["get", "-f", "examples/objects"]));
    r.assert_code(0);
    assert_eq!(
        r.stderr,
        "note: GATE is the recommended gate on both sides (Argo CD: no --argocd-cm given; Flux: no --kustomization given)\n"
    );
    // From a cluster with no Argo CD and no Flux: the reasons name what was missing.
    let c = Cluster::new("shop");
    c.insert_files(&[pacto_dir().join("03-compliant.yaml")]);
    let r = c.run(&["get"]);
    r.assert_code(0);
    assert_eq!(
        r.stderr,
        "note: the Argo CD side of GATE is the recommended gate: argocd-cm not readable: configmaps \"argocd-cm\" not found in namespace \"argocd\"\n\
         note: 1 of 1 Pactos are in no Kustomization's inventory: Flux gates nothing for them\n"
    );
    // Flux not installed at all.
    let bare = Cluster::without_pacto_crd();
    bare.server.register(Resource::pacto());
    bare.insert_files(&[pacto_dir().join("03-compliant.yaml")]);
    let r = bare.run(&["get"]);
    r.assert_code(0);
    assert!(
        r.stderr.ends_with("; Flux: Kustomizations not readable: the Kustomization CRD is not installed in this cluster (the API server serves no Kustomization in kustomize.toolkit.fluxcd.io/v1))\n"),
        "{}",
        r.stderr
    );
    // With the cluster's own gates for every Pacto there is nothing to say.
    let c2 = Cluster::new("shop");
    c2.insert_files(&[pacto_dir().join("03-compliant.yaml")]);
    c2.with_gates(&[("shop", "orders")]);
    let r = c2.run(&["get"]);
    assert_eq!(r.stderr, "");
}

/// Runs under a pseudo-terminal (util-linux `script`), so stdout is a terminal.
#[cfg(unix)]
pub(super) fn on_a_terminal(c: &Cluster, args: &str, no_color: bool) -> String {
    assert!(
        Path::new("/usr/bin/script").exists(),
        "util-linux script is not installed: the terminal colour test needs it"
    );
    let line = format!("{PACTO} {args} --kubeconfig {}", s(&c.kubeconfig));
    let mut k = Command::new("/usr/bin/script");
    k.args(["-qec", &line, "/dev/null"])
        .env("KUBECTL_PACTO_NOW", NOW)
        .env("TERM", "xterm")
        .env_remove("NO_COLOR");
    if no_color {
        k.env("NO_COLOR", "1");
    }
    let r = run(&mut k);
    r.assert_code(0);
    r.stdout
}

#[cfg(unix)]
#[test]
fn colour_only_on_a_terminal_and_never_with_no_color_or_machine_output() {
    let c = shop();
    let tty = on_a_terminal(&c, "get", false);
    assert!(tty.contains("\u{1b}["), "{tty}");
    // The words stay when coloured.
    assert!(tty.contains("NonCompliant") && tty.contains("Compliant"));
    assert!(!on_a_terminal(&c, "get", true).contains('\u{1b}'));
    assert!(!on_a_terminal(&c, "get -o json", false).contains('\u{1b}'));
    assert!(!c.run(&["get"]).stdout.contains('\u{1b}'));
}
