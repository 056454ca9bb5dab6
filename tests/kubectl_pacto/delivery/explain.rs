//! `kubectl pacto explain stage/NAME|operation/NAME`, from the cluster and from files: the
//! requests a report costs, the layout of two Stage reports and an Operation report (goldens),
//! and `-o json|yaml` (the Stage's conditions shaped as `status.conditions`; Pactos as an
//! `Explanation`; several objects as a kubectl List).

use super::*;

/// `explain stage/NAME` reads the Stage (one GET) and each kind it depends on once, in the
/// namespaces it and its references name.
#[test]
fn explain_stage_reads_each_kind_once_and_matches_its_golden() {
    let c = Cluster::new(EVERYTHING);
    let r = c.run(&["explain", "stage/payments"]);
    r.assert_code(0);
    let mut want = vec![
        "GET /apis/delivery.pacto.trianalab.io/v1alpha1".to_string(),
        "GET /apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/stages/payments"
            .to_string(),
    ];
    want.extend(applier_lists("test"));
    // The discovery requests of the kinds are made at once: their order is the server's.
    let mut got = c.requests();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(r.stderr, "");
    golden("explain/test-payments.txt", &r.stdout);
    assert_eq!(field(&r.stdout, "Appliers"), Some("1"), "{}", r.stdout);

    let r = c.run(&["explain", "stage/orders", "-n", "test"]);
    r.assert_code(0);
    golden("explain/test-orders.txt", &r.stdout);
    let q = c.run(&["explain", "stages.delivery.pacto.trianalab.io/orders"]);
    assert_eq!(q.stdout, r.stdout);
    assert_eq!(field(&r.stdout, "Stage"), Some("test/orders"));
    assert_eq!(
        values(&r.stdout, "Field"),
        ["spec.verify", "spec.serviceAccountName", "spec.postBuild"]
    );
    // The same report from the files.
    let f = offline(&[
        "explain",
        "stage/orders",
        "-n",
        "test",
        "-f",
        &arg("cluster"),
    ]);
    f.assert_code(0).assert_no_panic();
    assert_eq!(f.stdout, r.stdout);

    let missing = c.run(&["explain", "stage/payments", "-n", "staging"]);
    missing.assert_code(1);
    assert_eq!(
        missing.stderr,
        "error: stages.delivery.pacto.trianalab.io \"payments\" not found in namespace \"staging\"\n"
    );
}

#[test]
fn explain_operation_reads_its_namespace_and_matches_its_golden() {
    let c = Cluster::new(EVERYTHING);
    let r = c.run(&["explain", "operation/payments-1-4-0"]);
    r.assert_code(0);
    assert_eq!(
        c.requests(),
        [
            "GET /apis/delivery.pacto.trianalab.io/v1alpha1",
            "GET /apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/stages",
            "GET /apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/operations",
            "GET /apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/approvals",
        ]
    );
    golden("explain/test-payments-1-4-0.txt", &r.stdout);
    assert_eq!(field(&r.stdout, "Stage"), Some("test/payments"));
    // The Approval of the fixture counts: nobody else has to act.
    assert_eq!(field(&r.stdout, "Who may act"), Some("nobody"));
    assert_eq!(
        field(&r.stdout, "payments-1-4-0-by-ana"),
        Some("approve, accepts unknown pacto.suites: counts")
    );
    let f = offline(&[
        "explain",
        "operations/payments-1-4-0",
        "-f",
        &arg("cluster"),
    ]);
    assert_eq!(f.stdout, r.stdout);
}

/// The data of a Stage report: `conditions` is exactly Ready then Mediated, each with type,
/// status, reason and message, as a reconcile would write them.
#[test]
fn explain_stage_as_json_has_status_shaped_conditions() {
    let c = Cluster::new(EVERYTHING);
    let r = c.run(&["explain", "stage/orders", "-o", "json"]);
    r.assert_code(0);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["kind"], "StageExplanation");
    let conditions = doc["conditions"].as_array().unwrap();
    let types: Vec<&str> = conditions
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["Ready", "Mediated"]);
    for c in conditions {
        let mut keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, ["message", "reason", "status", "type"]);
        assert_eq!(c["status"], "False");
    }
    assert_eq!(conditions[0]["reason"], "CandidateUnverified");
    assert_eq!(conditions[1]["reason"], "ApplierUnscoped");
    let y = c.run(&["explain", "operation/payments-1-4-0", "-o", "yaml"]);
    y.assert_code(0);
    let doc: Value = serde_saphyr::from_str(&y.stdout).unwrap();
    assert_eq!(doc["kind"], "OperationExplanation");
    assert_eq!(doc["place"]["waitingOn"][0], "pacto.suites");
    assert_eq!(doc["notes"], serde_json::json!([]));
}

/// Every kind explains as data: a Pacto as an `Explanation` of its rows; several objects as a
/// kubectl List, in file order.
#[test]
fn explain_as_data_for_every_kind() {
    let pacto = s(&fixture("pacto/03-compliant.yaml")).to_string();
    let r = offline(&["explain", "-f", &pacto, "-o", "json"]);
    r.assert_code(0).assert_no_panic();
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["kind"], "Explanation");
    assert_eq!(doc["object"]["kind"], "Pacto");
    assert_eq!(doc["rows"][0]["indent"], 0);
    assert_eq!(doc["rows"][0]["key"], "Pacto");
    // The rows are the text report's.
    let text = offline(&["explain", "-f", &pacto]);
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), text.stdout.lines().count());

    let r = offline(&["explain", "-f", &arg("cluster"), "-f", &pacto, "-o", "yaml"]);
    r.assert_code(0).assert_no_panic();
    let list: Value = serde_saphyr::from_str(&r.stdout).unwrap();
    assert_eq!(list["kind"], "List");
    let kinds: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    // The Stages and Operations of the files in file order (prod-payments, test-operations,
    // test-orders, test-payments), then the Pacto; the objects they depend on
    // (OCIRepositories, Kustomizations, the Approval) are not explained on their own.
    assert_eq!(
        kinds,
        [
            "StageExplanation",
            "OperationExplanation",
            "OperationExplanation",
            "StageExplanation",
            "StageExplanation",
            "Explanation",
        ]
    );
    // As text, one block each.
    let t = offline(&["explain", "-f", &arg("cluster")]);
    assert_eq!(values(&t.stdout, "Stage").len(), 3 + 2, "{}", t.stdout);
    assert_eq!(values(&t.stdout, "Operation").len(), 2, "{}", t.stdout);
}

/// `wait` on delivery kinds: kubectl's condition and jsonpath forms; on a timeout the report
/// is the explain report of the object.
#[test]
fn wait_on_stages_and_operations() {
    let c = Cluster::new(EVERYTHING);
    let explained = c.run(&["explain", "stage/orders"]);
    explained.assert_code(0);
    // The conditions as written on the Stage count (kubectl's rule): orders says Ready=True
    // there, whatever is computed from its appliers now (the report shows both).
    let r = c.run(&["wait", "stage/orders", "--for", "condition=Ready"]);
    r.assert_code(0);
    assert_eq!(
        r.stdout,
        "stage.delivery.pacto.trianalab.io/orders condition met\n"
    );
    let r = c.run(&[
        "wait",
        "stage/orders",
        "--for",
        "condition=Ready=False",
        "--timeout",
        "1s",
    ]);
    r.assert_code(1);
    assert_eq!(
        r.stderr,
        "error: timed out after 1s waiting for condition=Ready=False on stage.delivery.pacto.trianalab.io/orders\n"
    );
    assert_eq!(r.stdout, explained.stdout);
    let phase = c
        .server
        .get(
            "delivery.pacto.trianalab.io/v1alpha1",
            "Operation",
            Some("test"),
            "payments-1-4-0",
        )
        .unwrap()["status"]["phase"]
        .as_str()
        .unwrap()
        .to_string();
    let r = c.run(&[
        "wait",
        "operation/payments-1-4-0",
        "--for",
        &format!("jsonpath={{.status.phase}}={phase}"),
    ]);
    r.assert_code(0);
    assert_eq!(
        r.stdout,
        "operation.delivery.pacto.trianalab.io/payments-1-4-0 condition met\n"
    );
}

/// `get operations -w`: the listing, then the changed Operation as a row.
#[test]
fn get_operations_watch_prints_a_row_per_change() {
    let c = Cluster::new(EVERYTHING);
    let before = c.run(&["get", "operations"]);
    before.assert_code(0);
    let mut all = vec!["get", "operations", "-w", "--request-timeout", "4s"];
    all.extend(["--kubeconfig", s(&c.kubeconfig)]);
    let child = cmd(c.dir.path(), &all)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !c
        .server
        .requests()
        .iter()
        .any(|r| r.query_param("watch").is_some())
    {
        assert!(started.elapsed() < DEADLINE, "no watch request");
        std::thread::sleep(Duration::from_millis(20));
    }
    let api = "delivery.pacto.trianalab.io/v1alpha1";
    let mut op = c
        .server
        .get(api, "Operation", Some("test"), "payments-1-4-0")
        .unwrap();
    op["status"]["phase"] = serde_json::json!("Failed");
    c.server.insert(op);
    let out = finish(child, DEADLINE, "kubectl pacto get operations -w");
    out.assert_code(0);
    let stdout = out.stdout;
    assert!(stdout.starts_with(&before.stdout), "{stdout}");
    let rows: Vec<&str> = stdout[before.stdout.len()..].lines().collect();
    assert_eq!(rows.len(), 1, "{stdout}");
    let cells: Vec<&str> = rows[0].split_whitespace().collect();
    assert_eq!(cells[0], "payments-1-4-0");
    assert!(cells.contains(&"Failed"), "{}", rows[0]);
}

/// After a timeout, the report reads the Stage again: a server that no longer answers ends that
/// read at the report's own bound (10 s, or --request-timeout), the report is named as unread,
/// and the wait ends as timed out (it used to wait on the silent read for ever).
#[test]
fn a_wait_report_that_cannot_be_read_ends_at_its_bound() {
    use fake_apiserver::{Fault, FaultAction};
    let c = Cluster::new(EVERYTHING);
    c.server.fault(
        Fault::always("/namespaces/test/stages/orders", FaultAction::Silence).on_method("GET"),
    );
    let r = c.run(&[
        "wait",
        "stage/orders",
        "--for",
        "condition=Ready=False",
        "--timeout",
        "1s",
        "--request-timeout",
        "2s",
    ]);
    r.assert_code(1).assert_no_panic();
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr.starts_with("note: why stage.delivery.pacto.trianalab.io/orders is not there could not be read: no answer from the API server at "),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.ends_with(" within 2s (the bound of the report after --timeout: 10s, or --request-timeout) to get stages.delivery.pacto.trianalab.io in namespace \"test\"\nerror: timed out after 1s waiting for condition=Ready=False on stage.delivery.pacto.trianalab.io/orders\n"),
        "{}",
        r.stderr
    );
}
