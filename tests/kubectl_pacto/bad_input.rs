//! Bad input: each case exits 1 with `error: ...` on stderr naming the file, the document and
//! the field where one applies (kubectl's convention: pkg/cmd/util/helpers.go, exit 1), prints
//! nothing on stdout, does not panic and ends (a run that outlasts the hang guard
//! `common::DEADLINE` fails).

use crate::common::*;

/// Runs `kubectl-pacto health ARGS` and checks the common shape of an input error; returns
/// stderr.
fn input_error(args: &[&str]) -> String {
    let mut full = vec!["health"];
    full.extend_from_slice(args);
    let r = run(&mut pacto(&full));
    r.assert_code(1).assert_no_panic();
    assert!(r.stderr.starts_with("error: "), "stderr: {}", r.stderr);
    assert_eq!(r.stdout, "", "nothing on stdout for an input error");
    r.stderr
}

fn widget() -> String {
    s(&fixture("objects/widget.yaml")).to_string()
}

#[test]
fn malformed_yaml_names_file_and_document() {
    let err = input_error(&["-f", s(&fixture("bad/malformed.yaml"))]);
    assert!(err.contains("malformed.yaml"), "{err}");
    assert!(err.contains("document 2"), "{err}");
}

#[test]
fn document_without_kind_names_file_document_and_field() {
    let err = input_error(&["-f", s(&fixture("bad/no-kind.yaml"))]);
    assert!(err.contains("no-kind.yaml"), "{err}");
    assert!(err.contains("document 2"), "{err}");
    assert!(err.contains("kind"), "{err}");
}

#[test]
fn list_item_without_kind_names_the_item() {
    let err = input_error(&["-f", s(&fixture("bad/list-item-without-kind.yaml"))]);
    assert!(err.contains("list-item-without-kind.yaml"), "{err}");
    assert!(err.contains("document 1"), "{err}");
    assert!(err.contains("items[1]"), "{err}");
    assert!(err.contains("kind"), "{err}");
}

#[test]
fn argocd_cm_that_is_a_secret() {
    let err = input_error(&[
        "-f",
        &widget(),
        "--argocd-cm",
        s(&fixture("argocd-cm/secret.yaml")),
    ]);
    assert!(err.contains("secret.yaml"), "{err}");
    assert!(err.contains("document 1"), "{err}");
    assert!(err.contains("Secret") && err.contains("ConfigMap"), "{err}");
}

#[test]
fn argocd_cm_that_is_a_deployment() {
    let err = input_error(&[
        "-f",
        &widget(),
        "--argocd-cm",
        s(&fixture("argocd-cm/deployment.yaml")),
    ]);
    assert!(err.contains("deployment.yaml"), "{err}");
    assert!(
        err.contains("Deployment") && err.contains("ConfigMap"),
        "{err}"
    );
}

#[test]
fn argocd_cm_with_a_misspelled_customization_type() {
    // settings.go appendResourceOverridesFromSplitKeys: an unknown type fails the whole overrides
    // load; the controller then shows every application Unknown (argo-cd `controller/state.go`).
    let err = input_error(&[
        "-f",
        &widget(),
        "--argocd-cm",
        s(&fixture("argocd-cm/typo-key.yaml")),
    ]);
    assert!(err.contains("typo-key.yaml"), "{err}");
    assert!(
        err.contains("resource.customizations.heath.example.com_Widget"),
        "{err}"
    );
    assert!(
        err.contains("whole configuration"),
        "must say Argo refuses it all: {err}"
    );
}

#[test]
fn argocd_cm_with_use_open_libs_yes() {
    // strconv.ParseBool accepts 1,t,T,TRUE,true,True,0,f,F,FALSE,false,False only.
    let err = input_error(&[
        "-f",
        &widget(),
        "--argocd-cm",
        s(&fixture("argocd-cm/open-libs-yes.yaml")),
    ]);
    assert!(err.contains("open-libs-yes.yaml"), "{err}");
    assert!(
        err.contains("resource.customizations.useOpenLibs.example.com_Widget"),
        "{err}"
    );
    assert!(err.contains("\"yes\""), "{err}");
    assert!(err.contains("whole configuration"), "{err}");
}

#[test]
fn non_existent_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.yaml");
    let err = input_error(&["-f", s(&missing)]);
    assert!(err.contains(s(&missing)), "{err}");
}

#[test]
fn non_existent_argocd_cm() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("argocd-cm.yaml");
    let err = input_error(&["-f", &widget(), "--argocd-cm", s(&missing)]);
    assert!(err.contains(s(&missing)), "{err}");
}

#[test]
fn empty_directory() {
    let dir = tempfile::tempdir().unwrap();
    let err = input_error(&["-f", s(dir.path())]);
    assert!(err.contains(s(dir.path())), "{err}");
}

#[test]
fn missing_filename_flag_is_a_usage_error() {
    let r = run(&mut pacto(&["health"]));
    r.assert_no_panic();
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("--filename"), "{}", r.stderr);
}

/// Standard input can be read once: `-f - -f -` is refused instead of silently losing the first
/// read's objects.
#[test]
fn stdin_given_twice_is_refused() {
    let r = crate::common::run_with(
        &mut crate::common::pacto(&["health", "-f", "-", "-f", "-"]),
        Some("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"),
        crate::common::DEADLINE,
    );
    r.assert_code(1).assert_no_panic();
    assert!(
        r.stderr
            .contains("standard input (-) can be read only once"),
        "{}",
        r.stderr
    );
}

/// A command line that does not parse exits as its command exits when it could not run: 2
/// for `doctor` and `reconcile` (whose 1 means findings, or Stages not ready), 1 for the
/// others; a global flag's value before the command is not taken for it.
#[test]
fn a_bad_flag_exits_as_its_command_could_not_run() {
    let cases: &[(&[&str], i32)] = &[
        (&["doctor", "--no-such-flag"], 2),
        (&["--max-input-bytes", "1Gi", "doctor", "--no-such-flag"], 2),
        (&["reconcile", "--once", "--no-such-flag"], 2),
        (&["get", "--no-such-flag"], 1),
        (&["health", "--no-such-flag"], 1),
        (&["no-such-command"], 1),
    ];
    for (args, code) in cases {
        let r = run(&mut pacto(args));
        r.assert_code(*code).assert_no_panic();
        assert!(r.stderr.starts_with("error: "), "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{args:?}");
    }
}

/// A file or directory given without `-f` is named in a hint that says to give it with `-f`;
/// a word that names no path gets no such hint.
#[test]
fn a_path_given_without_f_is_hinted_at() {
    for (args, code) in [
        (&["health", "examples/objects"][..], 1),
        (&["doctor", "examples"][..], 2),
    ] {
        let r = run(&mut pacto(args));
        r.assert_code(code).assert_no_panic();
        let path = args[1];
        assert_eq!(
            r.stderr.lines().last(),
            Some(
                format!("hint: {path:?} is a file or directory: give files with -f (-f {path})")
                    .as_str()
            ),
            "{}",
            r.stderr
        );
    }
    let r = run(&mut pacto(&["doctor", "no-such-path"]));
    r.assert_code(2);
    assert!(!r.stderr.contains("hint: \"no-such-path\""), "{}", r.stderr);
}

/// `-f` given to a command that reads only the cluster says so, instead of clap's tip to pass
/// `-f` as a value; other commands' refusals get no such hint.
#[test]
fn files_given_to_a_cluster_only_command_are_hinted_at() {
    for (args, code, command) in [
        (
            &[
                "wait",
                "pacto/x",
                "--for",
                "gate=pass",
                "-f",
                "examples/objects",
            ][..],
            1,
            "wait",
        ),
        (&["reconcile", "--once", "-f", "x"][..], 2, "reconcile"),
    ] {
        let r = run(&mut pacto(args));
        r.assert_code(code).assert_no_panic();
        assert_eq!(
            r.stderr.lines().last(),
            Some(format!("hint: {command} reads the cluster, not files; -f is for get, explain, health and doctor").as_str()),
            "{}",
            r.stderr
        );
    }
    let r = run(&mut pacto(&["snippet", "argocd", "-f", "x"]));
    r.assert_code(1);
    assert!(!r.stderr.contains("reads the cluster"), "{}", r.stderr);
}

/// A health script longer than a ConfigMap can hold (1 MiB, Kubernetes `ValidateConfigMap`) is
/// refused before it is compiled, naming the file, document, data key and the flag; the flag
/// raises the bound. Loading the compiled form of a huge table constructor takes seconds per
/// object that no deadline interrupts, so the bound is on the source.
#[test]
fn a_health_script_over_the_script_bound_is_refused_before_it_is_compiled() {
    let dir = tempfile::tempdir().unwrap();
    let mut keys: String = (0..120_000).map(|i| format!("k{i}={i},")).collect();
    keys.truncate(keys.rfind(',').unwrap());
    let script = format!(
        "local t = {{{keys}}}\nhs = {{}}\nhs.status = 'Healthy'\nhs.message = 'big'\nreturn hs\n"
    );
    assert!(
        script.len() > 1 << 20 && script.len() < 2 << 20,
        "{}",
        script.len()
    );
    let key = "resource.customizations.health.example.com_Widget";
    let cm = write_argocd_cm(dir.path(), &[(key, &script)]);
    let err = input_error(&["-f", &widget(), "--argocd-cm", s(&cm)]);
    assert!(err.contains("argocd-cm.yaml: document 1"), "{err}");
    assert!(err.contains(&format!("data key {key}")), "{err}");
    assert!(
        err.contains(&format!(
            "is {} bytes, over the bound of 1048576 (--max-script-bytes",
            script.len()
        )),
        "{err}"
    );
    // Raised, the script runs and decides.
    let r = run(&mut pacto(&[
        "health",
        "-f",
        &widget(),
        "--argocd-cm",
        s(&cm),
        "--max-script-bytes",
        "2Mi",
        "-o",
        "json",
    ]));
    r.assert_code(0);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        report["items"][0]["argo"]["status"], "Healthy",
        "{}",
        r.stdout
    );
    assert_eq!(report["items"][0]["argo"]["message"], "big");
}

/// A document nested deeper than the parser's fixed bound of 512 levels is refused with the
/// bound named, for flow (JSON) and block nesting alike; 300 levels (beyond the parser's own
/// default of 255 for flow collections) are read.
#[test]
fn nesting_beyond_the_bound_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let nested = |levels: usize| {
        format!(
            "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"a\"}}, \"data\": {{\"a\": {}0{}}}}}",
            "[".repeat(levels),
            "]".repeat(levels)
        )
    };
    let ok = dir.path().join("ok.json");
    std::fs::write(&ok, nested(300)).unwrap();
    crate::common::run(&mut crate::common::pacto(&[
        "health",
        "-f",
        crate::common::s(&ok),
    ]))
    .assert_no_panic()
    .assert_code(0);
    let deep = dir.path().join("deep.json");
    std::fs::write(&deep, nested(600)).unwrap();
    let r = crate::common::run(&mut crate::common::pacto(&[
        "health",
        "-f",
        crate::common::s(&deep),
    ]));
    r.assert_no_panic().assert_code(1);
    assert!(
        r.stderr.starts_with(&format!(
            "error: {}: document 1: line 1 column ",
            deep.display()
        )),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .ends_with(": it nests deeper than 512 levels (a fixed bound)\n"),
        "{}",
        r.stderr
    );
    let block = dir.path().join("block.yaml");
    let mut text = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n");
    for i in 0..600 {
        text += &format!("{}k:\n", " ".repeat(i + 1));
    }
    text += &format!("{}x\n", " ".repeat(602));
    std::fs::write(&block, text).unwrap();
    let r = crate::common::run(&mut crate::common::pacto(&[
        "health",
        "-f",
        crate::common::s(&block),
    ]));
    r.assert_no_panic().assert_code(1);
    assert!(
        r.stderr
            .contains("it nests deeper than 512 levels (a fixed bound)"),
        "{}",
        r.stderr
    );
}
