//! `kubectl pacto get stages|operations`: the requests a listing costs, the columns (READY and
//! MEDIATED as computed, REASON, the pointer cut to 12 hex digits, WRITTEN in wide), an upstream
//! Stage in another namespace, names, selectors, machine output and empty listings. Tables follow
//! `kubectl get`'s conventions (kubectl `pkg/cmd/get/get.go`).

use super::*;

#[test]
fn get_stages_across_namespaces_reads_each_kind_once() {
    let c = Cluster::new(EVERYTHING);
    let r = c.run(&["get", "stages", "-A"]);
    r.assert_code(0);
    // The discovery requests are made at once: their order is the server's.
    let (mut got, mut want) = (c.requests(), STAGE_READS.map(String::from).to_vec());
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(r.stderr, "");
    golden("get/all-namespaces.txt", &r.stdout);
    // The columns hold what the fixtures were written to show.
    assert_eq!(cell(&r.stdout, 2, "NAME"), "payments");
    assert_eq!(cell(&r.stdout, 2, "READY"), "True");
    assert_eq!(cell(&r.stdout, 2, "MEDIATED"), "True");
    assert_eq!(cell(&r.stdout, 2, "REASON"), "<none>");
    assert_eq!(cell(&r.stdout, 2, "POINTER"), "sha256:3f2a9c4e5b6d");
    assert_eq!(cell(&r.stdout, 1, "NAME"), "orders");
    assert_eq!(cell(&r.stdout, 1, "READY"), "False");
    assert_eq!(cell(&r.stdout, 1, "MEDIATED"), "False");
    // Ready's reason comes first.
    assert_eq!(cell(&r.stdout, 1, "REASON"), "CandidateUnverified");

    let wide = c.run(&["get", "stages", "-A", "-o", "wide"]);
    wide.assert_code(0);
    golden("get/all-namespaces-wide.txt", &wide.stdout);
    assert_eq!(
        cell(&wide.stdout, 2, "POINTER"),
        "sha256:3f2a9c4e5b6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b"
    );
    // orders is written True/True but computed False/False.
    assert_eq!(cell(&wide.stdout, 1, "WRITTEN"), "differs");
    assert_eq!(cell(&wide.stdout, 2, "WRITTEN"), "same");
    assert_eq!(cell(&wide.stdout, 2, "APPLY"), "payments");
}

/// prod/payments takes its candidates from test/payments: listing only prod reads that upstream
/// Stage on its own (one GET), and the candidate OCIRepository where the upstream names it
/// (test); the rest in prod, and Argo CD's Applications.
#[test]
fn a_stage_whose_upstream_is_in_another_namespace_is_ready() {
    let c = Cluster::new(EVERYTHING);
    let r = c.run(&["get", "stages", "-n", "prod"]);
    r.assert_code(0);
    assert_eq!(
        r.stdout,
        kubectl_table(&[
            vec!["NAME", "READY", "MEDIATED", "REASON", "POINTER", "LEVEL", "AGE"],
            vec!["payments", "True", "True", "<none>", "<none>", "manual", "8d"],
        ])
    );
    let mut want: Vec<String> = [
        "GET /apis/delivery.pacto.trianalab.io/v1alpha1",
        "GET /apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/prod/stages",
        "GET /apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/stages/payments",
    ]
    .map(String::from)
    .to_vec();
    want.extend(APPLIER_DISCOVERY.map(String::from));
    want.extend(
        [
            "GET /apis/source.toolkit.fluxcd.io/v1/namespaces/prod/ocirepositories",
            "GET /apis/source.toolkit.fluxcd.io/v1/namespaces/test/ocirepositories",
            "GET /apis/kustomize.toolkit.fluxcd.io/v1/namespaces/prod/kustomizations",
            "GET /apis/argoproj.io/v1alpha1/namespaces/argocd/applications",
            "GET /apis/argoproj.io/v1alpha1/namespaces/prod/applications",
        ]
        .map(String::from),
    );
    // The discovery requests are made at once: their order is the server's.
    let mut got = c.requests();
    got.sort();
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn one_stage_by_name_either_spelling_and_by_selector() {
    let c = Cluster::new(EVERYTHING);
    let a = c.run(&["get", "stages", "orders"]);
    let b = c.run(&["get", "stage.delivery.pacto.trianalab.io/orders"]);
    a.assert_code(0);
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.stdout.lines().count(), 2, "{}", a.stdout);
    assert_eq!(cell(&a.stdout, 0, "NAME"), "orders");
    let l = c.run(&["get", "stages", "-A", "-l", "team=payments", "-o", "name"]);
    l.assert_code(0);
    assert_eq!(
        l.stdout,
        "stage.delivery.pacto.trianalab.io/payments\nstage.delivery.pacto.trianalab.io/payments\n"
    );
    let l = c.run(&["get", "stages", "-l", "team notin (payments)", "-o", "name"]);
    assert_eq!(l.stdout, "stage.delivery.pacto.trianalab.io/orders\n");
    let missing = c.run(&["get", "stages", "nope"]);
    missing.assert_code(1);
    assert_eq!(
        missing.stderr,
        "error: stages.delivery.pacto.trianalab.io \"nope\" not found in namespace \"test\"\n"
    );
    let bad = c.run(&["get", "stages", "-l", "team in web"]);
    bad.assert_code(1);
    assert_eq!(
        bad.stderr,
        "error: -l/--selector \"team in web\": expected ( after team in\n"
    );
}

/// Machine output needs no appliers: one discovery and one list, of the namespace.
#[test]
fn machine_output_lists_the_objects_as_read() {
    let c = Cluster::new(EVERYTHING);
    let r = c.run(&["get", "stages", "-o", "json"]);
    r.assert_code(0);
    let list: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(list["kind"], "List");
    let names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["orders", "payments"]);
    assert_eq!(list["items"][1]["status"]["level"], "advise");
    assert_eq!(
        c.requests(),
        [
            "GET /apis/delivery.pacto.trianalab.io/v1alpha1",
            "GET /apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/stages",
        ]
    );
    // kubectl's List (`get.go` `printGeneric`) as sigs.k8s.io/yaml writes it: keys sorted.
    let y = c.run(&["get", "operations", "-o", "yaml"]);
    y.assert_code(0);
    assert!(
        y.stdout.starts_with(
            "apiVersion: v1\nitems:\n- apiVersion: delivery.pacto.trianalab.io/v1alpha1\n"
        ),
        "{}",
        y.stdout
    );
    assert!(
        y.stdout
            .ends_with("\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"),
        "{}",
        y.stdout
    );
}

#[test]
fn get_operations_shows_what_a_held_one_waits_on() {
    let c = Cluster::new(EVERYTHING);
    let r = c.run(&["get", "operations"]);
    r.assert_code(0);
    assert_eq!(
        r.stdout,
        kubectl_table(&[
            vec!["NAME", "TYPE", "STAGE", "PHASE", "WAITING-ON", "AGE"],
            vec![
                "payments-1-3-2",
                "promote",
                "payments",
                "Succeeded",
                "-",
                "3d3h"
            ],
            vec![
                "payments-1-4-0",
                "promote",
                "payments",
                "Held",
                "the promoter",
                "60m"
            ],
        ])
    );
    // One discovery, one list in the context's namespace; an operation is Held, so the
    // Approvals of the namespace are listed too: `payments-1-4-0-by-ana` approves it and
    // accepts its one Unknown gate, so it counts and the promoter takes it (the seeds' state
    // machine: Held, an Approval, then the promoter locks the Stage and runs it).
    let requests = c.requests();
    assert_eq!(
        requests[..2],
        [
            "GET /apis/delivery.pacto.trianalab.io/v1alpha1",
            "GET /apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/operations",
        ]
    );
    assert_eq!(
        requests.last().map(String::as_str),
        Some("GET /apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/approvals")
    );
    // Without the Approval (the Operations of the files alone), the Held one waits on a person
    // deciding on its Unknown gate.
    let only_ops = tempfile::tempdir().unwrap();
    let ops: Vec<Value> = cluster_objects()
        .into_iter()
        .filter(|o| o["kind"] == "Operation")
        .collect();
    let file = only_ops.path().join("ops.yaml");
    let docs: Vec<String> = ops
        .iter()
        .map(|o| serde_json::to_string(o).unwrap())
        .collect();
    std::fs::write(&file, docs.join("\n---\n")).unwrap();
    let f = offline(&["get", "operations", "-A", "-f", s(&file)]);
    f.assert_code(0).assert_no_panic();
    assert_eq!(cell(&f.stdout, 0, "NAME"), "payments-1-4-0");
    assert_eq!(cell(&f.stdout, 0, "WAITING-ON"), "pacto.suites");
    // With the fixture's files, Approval included: the promoter, as from the cluster.
    let f = offline(&["get", "operations", "-A", "-f", &arg("cluster")]);
    f.assert_code(0).assert_no_panic();
    assert_eq!(cell(&f.stdout, 0, "NAME"), "payments-1-4-0");
    assert_eq!(cell(&f.stdout, 0, "WAITING-ON"), "the promoter");
    let wide = c.run(&["get", "operation/payments-1-4-0", "-o", "wide"]);
    wide.assert_code(0);
    golden("get/operation-wide.txt", &wide.stdout);
    assert_eq!(cell(&wide.stdout, 0, "ACTOR"), "ci-bot");
    assert_eq!(cell(&wide.stdout, 0, "VERSION"), "1.4.0");
    let name = c.run(&["get", "operations", "-A", "-o", "name"]);
    assert_eq!(
        name.stdout,
        "operation.delivery.pacto.trianalab.io/payments-1-3-2\noperation.delivery.pacto.trianalab.io/payments-1-4-0\n"
    );
}

#[test]
fn empty_listings_and_files() {
    let c = Cluster::new(EVERYTHING);
    let r = c.run(&["get", "stages", "-n", "staging"]);
    r.assert_code(0);
    assert_eq!(r.stdout, "");
    assert_eq!(r.stderr, "No resources found in staging namespace.\n");
    let r = c.run(&["get", "operations", "-n", "prod"]);
    assert_eq!(r.stderr, "No resources found in prod namespace.\n");

    // From files: the same table as from the cluster, the dependencies taken from the files.
    let f = offline(&["get", "stages", "-A", "-f", &arg("cluster")]);
    f.assert_code(0).assert_no_panic();
    assert_eq!(f.stderr, "");
    golden("get/all-namespaces.txt", &f.stdout);
    // The files mix namespaces: the NAMESPACE column appears without -A.
    let f = offline(&["get", "stages", "-f", &arg("cluster")]);
    assert!(f.stdout.starts_with("NAMESPACE "), "{}", f.stdout);
    let f = offline(&["get", "operations", "-f", &arg("cluster"), "nope"]);
    f.assert_code(1);
    assert_eq!(
        f.stderr,
        "error: operation \"nope\" not found in the files given\n"
    );
    // With -f the selector is matched on the files (prod-payments.yaml and test-payments.yaml
    // label their Stage team=payments, test-orders.yaml team=orders).
    let f = offline(&[
        "get",
        "stages",
        "-A",
        "-f",
        &arg("cluster"),
        "-l",
        "team=payments",
        "-o",
        "name",
    ]);
    f.assert_code(0);
    assert_eq!(
        f.stdout,
        "stage.delivery.pacto.trianalab.io/payments\nstage.delivery.pacto.trianalab.io/payments\n"
    );
    let f = offline(&["get", "stages", "-f", &arg("cluster"), "-l", "team=x"]);
    f.assert_code(0);
    assert_eq!(f.stderr, "No resources found\n");
}

/// Completion offers the three resource types of `get` and the delivery kinds of `explain`.
#[test]
fn completion_offers_stages_and_operations() {
    let r = run(&mut pacto(&["__complete", "get", ""]));
    r.assert_code(0).assert_no_panic();
    let values: Vec<&str> = r
        .stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(
        &values[..3],
        ["pactos", "stages", "operations"],
        "{}",
        r.stdout
    );
    let r = run(&mut pacto(&["__complete", "explain", "st"]));
    // `stage/` waits for its name: NoSpace | NoFileComp.
    assert_eq!(r.stdout, "stage/\tstage/NAME\n:6\n");
    let r = run(&mut pacto(&["__complete", "explain", "op"]));
    assert_eq!(r.stdout, "operation/\toperation/NAME\n:6\n");
}

/// `--max-upstream-depth` bounds how far a chain of upstream Stages is followed: the example
/// Stage and two more after it (payments-2 from payments, payments-3 from payments-2) are
/// followed whole by default; through one reference, payments-3 is UpstreamUntrusted, named
/// where the chain passes the bound.
#[test]
fn max_upstream_depth_bounds_the_chain_followed() {
    let dir = tempfile::tempdir().unwrap();
    let example =
        std::fs::read_to_string(repo().join("examples/delivery/flux-payments.yaml")).unwrap();
    let mut text = example.clone();
    for (name, up) in [("payments-2", "payments"), ("payments-3", "payments-2")] {
        text.push_str(&format!(
            "---\napiVersion: delivery.pacto.trianalab.io/v1alpha1\nkind: Stage\nmetadata: {{name: {name}, namespace: payments-test}}\nspec:\n  service: {{name: payments}}\n  environment: test\n  applyRef: {{name: payments}}\n  candidates: {{upstreamStage: {{name: {up}}}}}\n"
        ));
    }
    let file = dir.path().join("chain.yaml");
    std::fs::write(&file, text).unwrap();
    let reason = |extra: &[&str]| {
        let mut args = vec!["get", "stages", "-A", "-f", s(&file)];
        args.extend_from_slice(extra);
        let r = run(&mut pacto(&args));
        r.assert_code(0).assert_no_panic();
        let row = r
            .stdout
            .lines()
            .skip(1)
            .position(|l| l.contains(" payments-3 "))
            .unwrap_or_else(|| panic!("{}", r.stdout));
        cell(&r.stdout, row, "REASON")
    };
    assert_ne!(reason(&[]), "UpstreamUntrusted");
    assert_eq!(reason(&["--max-upstream-depth", "1"]), "UpstreamUntrusted");
    let r = run(&mut pacto(&[
        "explain",
        "-f",
        s(&file),
        "stage/payments-3",
        "-n",
        "payments-test",
        "--max-upstream-depth",
        "1",
    ]));
    assert!(
        r.stdout
            .contains("the upstream chain from Stage payments-test/payments-3 is longer than 1 Stage: not followed further"),
        "{}",
        r.stdout
    );
    let r = run(&mut pacto(&[
        "get",
        "stages",
        "-f",
        s(&file),
        "--max-upstream-depth",
        "0",
    ]));
    r.assert_code(1);
    assert!(r.stderr.contains("--max-upstream-depth"), "{}", r.stderr);
}
