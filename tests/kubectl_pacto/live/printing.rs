//! kubectl's printing flags on `get`: `-o jsonpath=`, `-o custom-columns=`, `--sort-by`,
//! `--no-headers`, `--show-labels`, `-o json|yaml` of a list and of one object, with and without
//! `--show-managed-fields`. The expected output is kubectl's own: kubectl v1.32 runs the same
//! flags against the same fake API server, and the two outputs must be equal byte for byte.

use super::*;

/// `kubectl ARGS` against the cluster.
fn kubectl_on(c: &Cluster, args: &[&str], input: Option<&str>) -> Run {
    let k = crate::kubectl_plugin::kubectl();
    let mut all = args.to_vec();
    all.extend(["--kubeconfig", s(&c.kubeconfig)]);
    let mut cmd = crate::kubectl_plugin::kubectl_cmd(
        &k,
        c.dir.path(),
        &[Path::new("/usr/bin"), Path::new("/bin")],
        &all,
    );
    run_with(&mut cmd, input, Duration::from_secs(60))
}

/// `kubectl get pactos.pacto.trianalab.io ARGS` against the cluster.
fn kubectl_get(c: &Cluster, args: &[&str]) -> Run {
    let mut all = vec!["get", "pactos.pacto.trianalab.io"];
    all.extend(args);
    kubectl_on(c, &all, None)
}

/// The Pacto fixtures of `shop` as `kubectl apply` leaves them, with their status written by a
/// server-side apply of the status subresource: each object then carries the managedFields the
/// API server records (kubectl-client-side-apply's, with the last-applied annotation, and
/// kubectl's status apply).
fn applied_shop() -> Cluster {
    let c = Cluster::new("shop");
    for name in [
        "03-compliant.yaml",
        "09-noncompliant-warning-before-error.yaml",
        "13-invalid-schema-violation.yaml",
        "14-unknown-registry-unreachable.yaml",
        "21-compliant-readiness-below-min-score.yaml",
    ] {
        let file = pacto_dir().join(name);
        kubectl_on(&c, &["apply", "-f", s(&file)], None).assert_code(0);
        let status = read_yaml(&file);
        kubectl_on(
            &c,
            &["apply", "--server-side", "--subresource=status", "-f", "-"],
            Some(&status.to_string()),
        )
        .assert_code(0);
    }
    c
}

/// Objects that carry managedFields, as kubectl apply leaves them: `-o json` and `-o yaml` of
/// the List and of one object, with and without `--show-managed-fields`, and a jsonpath that
/// reads them, print kubectl's bytes.
#[test]
fn json_and_yaml_of_applied_objects_print_what_kubectl_prints() {
    let c = applied_shop();
    let listed = kubectl_get(&c, &["orders", "-o", "json", "--show-managed-fields"]);
    listed.assert_code(0);
    let orders: Value = serde_json::from_str(&listed.stdout).unwrap();
    let managers: Vec<&str> = orders["metadata"]["managedFields"]
        .as_array()
        .map(|a| a.iter().filter_map(|e| e["manager"].as_str()).collect())
        .unwrap_or_default();
    // kube-apiserver keeps Apply entries before Update ones (`sortEncodedManagedFields`; the
    // conformance test pins the fake to it).
    assert_eq!(
        managers,
        ["kubectl", "kubectl-client-side-apply"],
        "{}",
        listed.stdout
    );
    let cases: &[&[&str]] = &[
        &["-o", "yaml"],
        &["-o", "yaml", "--show-managed-fields"],
        &["-o", "json"],
        &["-o", "json", "--show-managed-fields"],
        &["orders", "-o", "yaml"],
        &["orders", "-o", "yaml", "--show-managed-fields"],
        &["orders", "-o", "json"],
        &["orders", "-o", "json", "--show-managed-fields"],
        &[
            "-o",
            "jsonpath={.items[*].metadata.managedFields[*].manager}",
        ],
        &[
            "-o",
            "custom-columns=NAME:.metadata.name,MANAGER:.metadata.managedFields[0].manager",
        ],
    ];
    for args in cases {
        let want = kubectl_get(&c, args);
        want.assert_code(0);
        let mut ours = args.to_vec();
        ours.splice(0..0, ["get", "pactos"]);
        let got = c.run(&ours);
        got.assert_code(0);
        assert_eq!(got.stdout, want.stdout, "{args:?}");
    }
}

#[test]
fn printing_flags_print_what_kubectl_prints() {
    let c = shop();
    let cases: &[&[&str]] = &[
        &["-o", "jsonpath={.items[*].metadata.name}"],
        &[
            "-o",
            "jsonpath={range .items[*]}{.metadata.name}{\"\\t\"}{.status.contractStatus}{\"\\n\"}{end}",
        ],
        &["-o", "jsonpath={.items[?(@.status.contractStatus==\"NonCompliant\")].metadata.name}"],
        &["-o", "jsonpath={.items[0].status.conditions[*].type}"],
        &["-o", "jsonpath={.items[-1:].metadata.labels}"],
        &["-o", "custom-columns=NAME:.metadata.name,VERDICT:.status.contractStatus,ERRORS:.status.summary.errorCount"],
        &["-o", "custom-columns=NAME:.metadata.name,TYPES:.status.conditions[*].type", "--no-headers"],
        &["-o", "name", "--sort-by", ".metadata.name"],
        // Keys without ties: among equal keys kubectl's order is that of Go's unstable sort,
        // ours keeps the listing order.
        &["-o", "custom-columns=NAME:.metadata.name,RV:.metadata.resourceVersion", "--sort-by", "{.metadata.resourceVersion}"],
        &["-o", "custom-columns=NAME:.metadata.name", "--sort-by", "metadata.creationTimestamp"],
        &["-o", "json"],
        &["-o", "yaml"],
        &["orders", "-o", "json"],
        &["orders", "-o", "yaml"],
        &["orders", "-o", "jsonpath={.metadata.name}"],
    ];
    for args in cases {
        let want = kubectl_get(&c, args);
        want.assert_code(0);
        let mut ours = args.to_vec();
        ours.splice(0..0, ["get", "pactos"]);
        let got = c.run(&ours);
        got.assert_code(0);
        assert_eq!(got.stdout, want.stdout, "{args:?}");
    }
}

#[test]
fn table_flags_no_headers_and_show_labels() {
    let c = shop();
    let full = c.run(&["get"]);
    full.assert_code(0);
    let bare = c.run(&["get", "--no-headers"]);
    bare.assert_code(0);
    assert!(!bare.stdout.contains("NAME"), "{}", bare.stdout);
    assert_eq!(bare.stdout.lines().count(), full.stdout.lines().count() - 1);
    let labelled = c.run(&["get", "--show-labels"]);
    labelled.assert_code(0);
    let header = labelled.stdout.lines().next().unwrap();
    assert!(header.ends_with("   LABELS"), "{header}");
    // kubectl's LABELS cells: key=value joined by commas, keys sorted, <none> when empty.
    let k = kubectl_get(&c, &["--show-labels", "-o", "wide"]);
    k.assert_code(0);
    for line in k.stdout.lines().skip(1) {
        let name = line.split_whitespace().next().unwrap();
        let want = line.split_whitespace().last().unwrap();
        let ours = labelled
            .stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap();
        assert_eq!(ours.split_whitespace().last().unwrap(), want, "{name}");
    }
}

#[test]
fn bad_printing_flags_are_refused_before_anything_is_read() {
    let c = shop();
    let r = c.run(&["get", "-o", "tabel"]);
    r.assert_code(1);
    assert!(
        r.stderr.starts_with(
            "error: unable to match a printer suitable for the output format \"tabel\""
        ),
        "{}",
        r.stderr
    );
    let r = c.run(&["get", "-o", "jsonpath={.items[0]"]);
    r.assert_code(1);
    assert!(r.stderr.contains("unclosed action"), "{}", r.stderr);
    let r = c.run(&["get", "-o", "custom-columns=NAME"]);
    r.assert_code(1);
    assert!(
        r.stderr.contains("expected <header>:<json-path-expr>"),
        "{}",
        r.stderr
    );
    assert!(c.server.requests().is_empty());
}

/// `-o jsonpath` prints object text as it is on a pipe (kubectl's bytes), escaped on a terminal.
#[cfg(unix)]
#[test]
fn jsonpath_output_is_escaped_on_a_terminal_only() {
    let c = Cluster::new("shop");
    c.server.insert(serde_json::json!({
        "apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
        "metadata": {"name": "esc", "namespace": "shop"},
        "spec": {"x": "a\u{1b}]0;PWNED\u{7}b"}
    }));
    let piped = c.run(&["get", "pactos", "esc", "-o", "jsonpath={.spec.x}"]);
    piped.assert_code(0);
    assert_eq!(piped.stdout, "a\u{1b}]0;PWNED\u{7}b");
    let shown = super::get::on_a_terminal(&c, "get pactos esc -o jsonpath={.spec.x}", true);
    assert!(!shown.contains('\u{1b}'), "{shown:?}");
    assert!(shown.contains("a\\x1b]0;PWNED\\x07b"), "{shown:?}");
}
