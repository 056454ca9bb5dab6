//! `get --context a,b` and `--all-contexts`: two clusters (two fake API servers) and a context
//! whose server is gone, read in one run into one table with a CONTEXT column; each cluster's
//! Pactos judged by that cluster's own argocd-cm; one exit code for the run.

use super::*;

/// The Pactos of `examples/objects/gates.yaml` named `names`.
fn example_pactos(names: &[&str]) -> Vec<Value> {
    let text = std::fs::read_to_string(repo().join("examples/objects/gates.yaml")).unwrap();
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .into_iter()
        .filter(|v| v["kind"] == "Pacto" && names.iter().any(|n| v["metadata"]["name"] == *n))
        .collect()
}

/// A kubeconfig of three contexts: `prod` and `staging` on the two servers (namespace shop),
/// `gone` on a port nothing listens on.
fn kubeconfig(dir: &Path, prod: &str, staging: &str) -> PathBuf {
    let gone_url = crate::common::closed_url();
    let mut text = String::from("apiVersion: v1\nkind: Config\nclusters:\n");
    for (name, url) in [("prod", prod), ("staging", staging), ("gone", &gone_url)] {
        text += &format!("- name: {name}\n  cluster: {{server: {url:?}}}\n");
    }
    text += "users:\n- name: u\n  user: {token: fake-token}\ncontexts:\n";
    for name in ["staging", "prod", "gone"] {
        text +=
            &format!("- name: {name}\n  context: {{cluster: {name}, user: u, namespace: shop}}\n");
    }
    text += "current-context: prod\n";
    let path = dir.join("kubeconfig");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn several_contexts_are_one_table_with_a_context_column() {
    let prod = Cluster::new("shop");
    for p in example_pactos(&["orders", "payments"]) {
        prod.server.insert(p);
    }
    let staging = Cluster::new("shop");
    for p in example_pactos(&["catalog", "billing"]) {
        staging.server.insert(p);
    }
    // staging's own Argo CD gate: every Pacto Degraded (a Lua health script in its argocd-cm).
    staging
        .server
        .register(Resource::new("v1", "ConfigMap", "configmaps", true, false));
    staging
        .server
        .insert(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "argocd-cm", "namespace": "argocd"},
        "data": {"resource.customizations.health.pacto.trianalab.io_Pacto":
            "return {status = \"Degraded\", message = \"held in staging\"}"}}));
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &prod.server.url(), &staging.server.url());

    let r = run(&mut cmd(
        dir.path(),
        &[
            "get",
            "pactos",
            "--context",
            "prod,staging",
            "--kubeconfig",
            s(&kc),
        ],
    ));
    r.assert_no_panic().assert_code(0);
    let t = &r.stdout;
    let col =
        |h: &str| -> Vec<String> { (0..t.lines().count() - 1).map(|i| cell(t, i, h)).collect() };
    assert!(t.starts_with("CONTEXT "), "{t}");
    assert_eq!(
        col("CONTEXT"),
        ["prod", "prod", "staging", "staging"],
        "{t}"
    );
    // Each server lists in name order.
    assert_eq!(
        col("NAME"),
        ["orders", "payments", "billing", "catalog"],
        "{t}"
    );
    assert_eq!(
        col("STATUS"),
        ["Compliant", "NonCompliant", "Unknown", "Warning"],
        "{t}"
    );
    // Each context's rows are what `get pactos --context NAME` prints for it alone.
    let mut alone: Vec<String> = Vec::new();
    for ctx in ["prod", "staging"] {
        let one = run(&mut cmd(
            dir.path(),
            &["get", "pactos", "--context", ctx, "--kubeconfig", s(&kc)],
        ));
        one.assert_code(0);
        alone.extend((0..one.stdout.lines().count() - 1).map(|i| cell(&one.stdout, i, "GATE")));
    }
    assert_eq!(col("GATE"), alone, "{t}");
    // staging's own script says Degraded: Argo CD's side fails for both of its Pactos, as it
    // does not for prod's Compliant orders.
    let gates = col("GATE");
    assert!(
        gates[2].starts_with("argo:fail") && gates[3].starts_with("argo:fail"),
        "{t}"
    );
    assert!(gates[0].starts_with("argo:pass"), "{t}");

    // --all-contexts: every context in byte order; gone cannot be read: the others are
    // printed, its error follows, and the run exits 1.
    let r = run(&mut cmd(
        dir.path(),
        &[
            "get",
            "pactos",
            "--all-contexts",
            "--kubeconfig",
            s(&kc),
            "--timeout",
            "20s",
        ],
    ));
    r.assert_no_panic().assert_code(1);
    let t = &r.stdout;
    let contexts: Vec<String> = (0..t.lines().count() - 1)
        .map(|i| cell(t, i, "CONTEXT"))
        .collect();
    assert_eq!(contexts, ["prod", "prod", "staging", "staging"], "{t}");
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{}", r.stderr);
    assert!(
        errors[0].starts_with("error: context \"gone\": "),
        "{}",
        r.stderr
    );

    // What does not go together is refused before any request.
    for (args, want) in [
        (
            vec!["get", "pactos", "--context", "prod,staging", "-o", "json"],
            "error: several contexts are printed as one table (or -o wide); for other formats, read one context at a time (--context NAME)\n",
        ),
        (
            vec!["get", "stages", "--context", "prod,staging"],
            "error: several contexts are read for pactos only: get stages reads one context (--context NAME)\n",
        ),
        (
            vec!["get", "pactos", "--context", "prod,,staging"],
            "error: --context \"prod,,staging\": an empty context name in the list\n",
        ),
    ] {
        let mut all = args.clone();
        all.extend(["--kubeconfig", s(&kc)]);
        let r = run(&mut cmd(dir.path(), &all));
        r.assert_no_panic().assert_code(1);
        assert_eq!(r.stderr, want, "{args:?}");
    }
    // explain: a report per context, headed by it; the context without the object is an error
    // line after the others' reports, and the run exits 1.
    let r = run(&mut cmd(
        dir.path(),
        &[
            "explain",
            "pacto/billing",
            "--context",
            "staging,prod",
            "--kubeconfig",
            s(&kc),
        ],
    ));
    r.assert_no_panic().assert_code(1);
    assert!(r.stdout.starts_with("Context:"), "{}", r.stdout);
    assert_eq!(
        r.stdout.lines().next().unwrap().split_whitespace().nth(1),
        Some("staging")
    );
    assert!(
        r.stdout.contains("Pacto:         shop/billing"),
        "{}",
        r.stdout
    );
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{}", r.stderr);
    assert!(
        errors[0].starts_with("error: context \"prod\": "),
        "{}",
        r.stderr
    );
    assert!(errors[0].contains("\"billing\" not found"), "{}", r.stderr);
    let j = run(&mut cmd(
        dir.path(),
        &[
            "explain",
            "pacto/billing",
            "--context",
            "staging,staging",
            "--kubeconfig",
            s(&kc),
            "-o",
            "json",
        ],
    ));
    j.assert_code(0);
    let v: Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(
        v["context"], "staging",
        "a list of one context after its repeat is dropped"
    );

    let r = run(&mut cmd(
        dir.path(),
        &[
            "get",
            "pactos",
            "--all-contexts",
            "--context",
            "prod",
            "--kubeconfig",
            s(&kc),
        ],
    ));
    r.assert_code(1);
    assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
    assert!(prod
        .server
        .requests()
        .iter()
        .any(|q| q.path.contains("/pactos")));
}

/// A kubeconfig of 200 contexts, every one on a port nothing listens on: they are read eight at a
/// time (not by 200 threads), each ends with its error, and the run exits 1 once.
#[test]
fn many_contexts_are_read_a_few_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let url = crate::common::closed_url();
    let mut text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: gone\n  cluster: {{server: {url:?}}}\nusers:\n- name: u\n  user: {{token: t}}\ncontexts:\n"
    );
    for i in 0..200 {
        text +=
            &format!("- name: c{i:03}\n  context: {{cluster: gone, user: u, namespace: shop}}\n");
    }
    let kc = dir.path().join("kubeconfig");
    std::fs::write(&kc, text).unwrap();
    let r = run(&mut cmd(
        dir.path(),
        &[
            "get",
            "pactos",
            "--all-contexts",
            "--kubeconfig",
            s(&kc),
            "--timeout",
            "30s",
        ],
    ));
    r.assert_no_panic().assert_code(1);
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("error: context \"c"))
        .collect();
    assert_eq!(errors.len(), 200, "{}", r.stderr);
    assert!(
        errors[0].starts_with("error: context \"c000\": "),
        "{}",
        errors[0]
    );
    assert!(
        errors[199].starts_with("error: context \"c199\": "),
        "{}",
        errors[199]
    );
    assert_eq!(r.stdout, "");
}

/// One run reads at most 256 contexts: a longer list, or --all-contexts on a kubeconfig of more,
/// is refused before any connection, naming the bound.
#[test]
fn more_contexts_than_the_bound_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"http://127.0.0.1:9\"}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n");
    for i in 0..300 {
        text += &format!("- name: c{i}\n  context: {{cluster: c, user: u}}\n");
    }
    let kc = dir.path().join("kubeconfig");
    std::fs::write(&kc, text).unwrap();
    let r = run(&mut cmd(
        dir.path(),
        &["get", "pactos", "--all-contexts", "--kubeconfig", s(&kc)],
    ));
    r.assert_no_panic().assert_code(1);
    assert_eq!(
        r.stderr,
        "error: --all-contexts: the kubeconfig has 300 contexts, more than the 256 one run reads (a fixed bound): name them with --context a,b,...\n"
    );
    let list: Vec<String> = (0..300).map(|i| format!("c{i}")).collect();
    let r = run(&mut cmd(
        dir.path(),
        &[
            "get",
            "pactos",
            "--context",
            &list.join(","),
            "--kubeconfig",
            s(&kc),
        ],
    ));
    r.assert_code(1);
    assert_eq!(
        r.stderr,
        "error: --context: more than the 256 contexts one run reads (a fixed bound)\n"
    );
}
