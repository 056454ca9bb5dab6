//! What users and servers hand to `get` and `explain`: files read without a cluster (-f), bad
//! arguments and files refused with a clear error, names and namespaces checked before they reach
//! a URL (kubectl's validation messages), control characters escaped, out-of-range numbers and
//! durations refused or saturated.

use super::*;
use fake_apiserver::{Fault, FaultAction};

#[test]
fn get_reads_files_without_a_cluster() {
    let home = tempfile::tempdir().unwrap();
    let r = run(&mut cmd(
        home.path(),
        &["get", "-f", "tests/fixtures/pacto"],
    ));
    r.assert_code(0).assert_no_panic();
    // Only the Pactos of the directory (not the CoderTemplateTests), namespaces/ included.
    assert_eq!(r.stdout.lines().count(), 1 + 26 + 6, "{}", r.stdout);
    golden("get/files.txt", &r.stdout);
    let one = run(&mut cmd(
        home.path(),
        &[
            "get",
            "pacto/orders",
            "-f",
            "tests/fixtures/pacto",
            "-o",
            "name",
        ],
    ));
    one.assert_code(0);
    assert_eq!(one.stdout, "pacto.pacto.trianalab.io/orders\n");
}

#[test]
fn files_honour_the_namespace_and_a_named_object() {
    let home = tempfile::tempdir().unwrap();
    let dir = "tests/fixtures/pacto/namespaces";
    let r = run(&mut cmd(
        home.path(),
        &["get", "-f", dir, "-n", "payments", "-o", "name"],
    ));
    r.assert_code(0);
    assert_eq!(
        r.stdout,
        "pacto.pacto.trianalab.io/ledger\npacto.pacto.trianalab.io/payments-api\n"
    );
    // With -f the selector is matched on the files (no fixture there has the label team).
    let r = run(&mut cmd(home.path(), &["get", "-f", dir, "-l", "team=x"]));
    r.assert_code(0);
    assert_eq!(r.stdout, "");
    let r = run(&mut cmd(
        home.path(),
        &[
            "get", "-f", dir, "-l", "team!=x", "-o", "name", "-n", "payments",
        ],
    ));
    r.assert_code(0);
    assert_eq!(
        r.stdout,
        "pacto.pacto.trianalab.io/ledger\npacto.pacto.trianalab.io/payments-api\n"
    );
    let r = run(&mut cmd(
        home.path(),
        &["explain", "pacto/indexer", "-f", dir],
    ));
    r.assert_code(0);
    assert_eq!(field(&r.stdout, "Pacto"), Some("search/indexer"));
    assert_eq!(r.stdout.matches("Pacto:").count(), 1);
    let r = run(&mut cmd(home.path(), &["explain", "pacto/nope", "-f", dir]));
    r.assert_code(1);
    assert_eq!(r.stderr, "error: pacto/nope is not in the files given\n");
}

#[test]
fn bad_input_to_get_and_explain_is_a_clear_error() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path();
    std::fs::write(dir.join("broken.yaml"), "apiVersion: v1\nkind: [unclosed\n").unwrap();
    std::fs::write(dir.join("cm-list.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n").unwrap();
    std::fs::write(
        dir.join("bad-openlibs.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: argocd}\ndata:\n  resource.customizations.useOpenLibs.pacto.trianalab.io_Pacto: \"yes please\"\n",
    )
    .unwrap();
    let broken = s(&dir.join("broken.yaml")).to_string();
    let cm_list = s(&dir.join("cm-list.yaml")).to_string();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec!["explain", "-f", &broken], format!("error: {broken}")),
        (vec!["get", "-f", &broken], format!("error: {broken}")),
        (vec!["explain", "orders"], "error: orders: expected KIND/NAME, for example pacto/orders\n".into()),
        (vec!["explain", "pacto/"], "error: pacto/: a name is needed after the slash\n".into()),
        (vec!["explain", "deployment/web"], "error: deployment/web: kubectl pacto explain knows pacto/NAME, codertemplatetest/NAME, stage/NAME, operation/NAME, application/NAME, kustomization/NAME and helmrelease/NAME\n".into()),
        (vec!["get", "deployments"], "error: \"deployments\" is not a resource type kubectl pacto get knows: it lists pactos, stages and operations (for one Pacto: kubectl pacto get pactos deployments)\n".into()),
        (vec!["get", "pacto/orders", "orders"], "error: give the name once: pacto/ORDERS or pactos NAME\n".replace("ORDERS", "NAME")),
        (
            vec!["explain", "-f", "tests/fixtures/pacto/03-compliant.yaml", "--stabilization-window", "soon"],
            "error: --stabilization-window \"soon\": expected a duration such as 2m or 90 (seconds)\n".into(),
        ),
        (
            vec!["explain", "-f", "tests/fixtures/pacto/03-compliant.yaml", "--argocd-cm", &cm_list],
            format!("error: {cm_list}: expected one argocd-cm ConfigMap, found 2 objects\n"),
        ),
        (
            vec!["explain", "-f", "tests/fixtures/pacto/03-compliant.yaml", "--kustomization", "tests/fixtures/pacto/03-compliant.yaml"],
            "error: tests/fixtures/pacto/03-compliant.yaml: expected a Flux Kustomization (kustomize.toolkit.fluxcd.io) or HelmRelease (helm.toolkit.fluxcd.io), found pacto.trianalab.io/v1alpha1 Pacto\n".into(),
        ),
    ];
    for (args, want) in cases {
        let r = run(&mut cmd(dir, &args));
        r.assert_code(1).assert_no_panic();
        assert!(
            r.stderr.starts_with(&want),
            "{args:?}:\n want {want}\n got  {}",
            r.stderr
        );
        assert_eq!(r.stdout, "", "{args:?}");
    }
    // A bad clock override is refused rather than silently replaced.
    let mut c = cmd(
        dir,
        &["explain", "-f", "tests/fixtures/pacto/03-compliant.yaml"],
    );
    c.env("KUBECTL_PACTO_NOW", "yesterday");
    let r = run(&mut c);
    r.assert_code(1);
    assert!(
        r.stderr
            .starts_with("error: KUBECTL_PACTO_NOW=\"yesterday\": not an RFC 3339 time"),
        "{}",
        r.stderr
    );
    // An argocd-cm Argo CD refuses: the report says every application's health is Unknown.
    let r = run(&mut cmd(
        dir,
        &[
            "explain",
            "-f",
            "tests/fixtures/pacto/03-compliant.yaml",
            "--argocd-cm",
            s(&dir.join("bad-openlibs.yaml")),
        ],
    ));
    r.assert_code(0);
    let argo = field(&r.stdout, "Argo CD").unwrap();
    assert!(
        argo.starts_with("the configuration cannot be loaded: "),
        "{argo}"
    );
    assert!(argo.contains("yes please"), "{argo}");
}

#[test]
fn names_and_namespaces_never_reach_the_url_unchecked() {
    let c = shop();
    c.server.clear_requests();
    for (args, want) in [
        (vec!["get", "pacto/orders/status"], "error: \"orders/status\" is not a valid Pacto name (lowercase letters, digits, '-' and '.', at most 253 characters)\n"),
        (vec!["get", "pacto/orders?x=1"], "error: \"orders?x=1\" is not a valid Pacto name (lowercase letters, digits, '-' and '.', at most 253 characters)\n"),
        // apimachinery's IsDNS1123Label words; kubectl's own (client-go's path-segment check) where
        // kubectl refuses it too.
        (vec!["get", "-n", "shop?x=1"], "error: invalid namespace \"shop?x=1\": [a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]\n"),
        (vec!["get", "-n", "../../api"], "error: invalid namespace \"../../api\": [may not contain '/']\n"),
        (vec!["get", "-n", ".."], "error: invalid namespace \"..\": [may not be '..']\n"),
        (vec!["get", "--argocd-namespace", "argocd/x"], "error: --argocd-namespace: invalid namespace \"argocd/x\": [may not contain '/']\n"),
        (vec!["doctor", "--cluster", "--argocd-namespace", "a?b"], "error: --argocd-namespace: invalid namespace \"a?b\": [a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]\n"),
        (vec!["explain", "pacto/.."], "error: \"..\" is not a valid name (lowercase letters, digits, '-' and '.', at most 253 characters)\n"),
        (vec!["get", "pactos", "orders", "-A"], "error: a resource cannot be retrieved by name across all namespaces\n"),
        (vec!["get", "pactos", "orders", "-l", "a=b"], "error: name cannot be provided when a selector is specified\n"),
    ] {
        let r = c.run(&args);
        r.assert_code(if args[0] == "doctor" { 2 } else { 1 }).assert_no_panic();
        assert_eq!(r.stderr, want, "{args:?}");
    }
    assert!(c.server.requests().is_empty(), "{:?}", c.server.requests());
    // A kubeconfig whose context namespace cannot be a path segment is refused as kubectl
    // refuses it, before any request; -n replaces it.
    let kdir = tempfile::tempdir().unwrap();
    let kc = c.server.write_kubeconfig(kdir.path(), Some("a/b"));
    let bad = |extra: &[&str]| {
        let mut args = vec!["get", "-o", "name", "--kubeconfig", s(&kc)];
        args.extend_from_slice(extra);
        run_with(&mut cmd(c.dir.path(), &args), None, DEADLINE)
    };
    let r = bad(&[]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: invalid namespace \"a/b\": [may not contain '/']\n"
    );
    assert!(
        c.server.requests().iter().all(|q| !q.path.contains("a/b")),
        "{:?}",
        c.server.requests()
    );
    bad(&["-n", "shop"]).assert_code(0);
    // An empty -n is the context's namespace, as in kubectl.
    let r = c.run(&["get", "-n", "", "-o", "name"]);
    r.assert_code(0);
    assert!(r.stdout.contains("pacto.pacto.trianalab.io/orders\n"));
}

#[test]
fn control_characters_in_objects_are_escaped_not_sent_to_the_terminal() {
    let c = Cluster::new("shop");
    c.server.insert(
        serde_json::json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
        "metadata": {"name": "orders", "namespace": "shop", "generation": 1},
        "spec": {"target": {"serviceName": "svc\u{1b}]0;pwned\u{7}\r\u{202e}x"}},
        "status": {"contractStatus": "Compliant\u{1b}[31m", "observedGeneration": 1,
            "findings": [{"code": "X\u{1b}[2J", "severity": "error", "message": "line\nbreak"}]}}),
    );
    for args in [
        &["get"][..],
        &["get", "-o", "wide"][..],
        &["explain", "pacto/orders"][..],
    ] {
        let r = c.run(args);
        r.assert_code(0);
        assert!(
            !r.stdout.contains('\u{1b}')
                && !r.stdout.contains('\r')
                && !r.stdout.contains('\u{202e}'),
            "{args:?}: {:?}",
            r.stdout
        );
        assert!(
            r.stdout.contains("svc\\x1b]0;pwned\\x07\\r\\u{202e}x"),
            "{args:?}: {}",
            r.stdout
        );
    }
    // The server's own error text is escaped too.
    c.server
        .fault(Fault::always("/pactos", FaultAction::Status(500)));
    let r = c.run(&["get"]);
    assert!(!r.stderr.contains('\u{1b}'));
}

#[test]
fn out_of_range_numbers_and_durations_are_refused_or_saturated() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path();
    std::fs::write(
        dir.join("huge.yaml"),
        "apiVersion: pacto.trianalab.io/v1alpha1\nkind: Pacto\nmetadata: {name: a, namespace: shop, generation: 1}\nspec: {checkIntervalSeconds: 9223372036854775807}\nstatus: {contractStatus: Compliant, observedGeneration: 1, lastReconciledAt: \"2026-11-29T11:00:00Z\"}\n",
    )
    .unwrap();
    let f = s(&dir.join("huge.yaml")).to_string();
    for args in [vec!["get", "-f", &f], vec!["explain", "-f", &f]] {
        let r = run(&mut cmd(dir, &args));
        r.assert_code(0).assert_no_panic();
    }
    for (args, want) in [
        (vec!["get", "--request-timeout", "9223372036854775807"], "error: --request-timeout \"9223372036854775807\": longer than the longest duration (2562047h)\n"),
        (vec!["get", "--request-timeout", "18446744073709551616s"], "error: --request-timeout \"18446744073709551616s\": expected a duration such as 1s, 2m or 3h (0: no timeout)\n"),
        (vec!["explain", "-f", &f, "--stabilization-window", "99999999999999999h"], "error: --stabilization-window \"99999999999999999h\": expected a duration such as 2m or 90 (seconds)\n"),
    ] {
        let r = run(&mut cmd(dir, &args));
        r.assert_code(1).assert_no_panic();
        assert_eq!(r.stderr, want, "{args:?}");
    }
}
