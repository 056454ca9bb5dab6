//! The README's cluster walkthrough: the CRDs of `examples/cluster/` loaded into the fake API
//! server, the examples applied, and the commands the walkthrough shows. Keeps the shipped CRDs
//! valid for the tool (each serves its kind, keeps the fields the tool reads).

use crate::common::*;
use fake_apiserver::{FakeApiServer, Resource};
use serde_json::Value;
use std::time::Duration;

fn yaml_documents(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(repo().join(path)).unwrap();
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .into_iter()
        .filter(|v| v.is_object())
        .collect()
}

#[test]
fn the_walkthrough_runs_on_the_shipped_crds() {
    let server = FakeApiServer::start();
    let mut crds = 0;
    for entry in std::fs::read_dir(repo().join("examples/cluster")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let resource = Resource::from_crd_yaml(&text, "v1alpha1");
        // Each kind's controller writes its status through /status.
        assert!(resource.status_subresource, "{}", path.display());
        server.register(resource);
        crds += 1;
    }
    assert_eq!(
        crds, 5,
        "pactos, codertemplatetests, stages, operations, approvals"
    );
    let mut applied = Vec::new();
    for file in [
        "examples/objects/gates.yaml",
        "examples/delivery/argo-orders.yaml",
        "examples/delivery/flux-payments.yaml",
        "examples/delivery/operation-held.yaml",
    ] {
        for o in yaml_documents(file) {
            let group = o["apiVersion"].as_str().unwrap_or("");
            if group.starts_with("pacto.trianalab.io/")
                || group.starts_with("delivery.pacto.trianalab.io/")
                || group.starts_with("coder.com/")
            {
                // What the walkthrough's two steps leave: `kubectl apply` creates (the API
                // server gives a new object generation 1, whatever the file says, and drops
                // the status: each of these CRDs has a status subresource), then the status
                // write through /status sets the file's status without bumping the generation.
                let mut o = o;
                o["metadata"]["generation"] = serde_json::json!(1);
                applied.push(o.clone());
                server.insert(o);
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("shop"));
    let pacto = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--kubeconfig", s(&kubeconfig)]);
        run_with(
            &mut isolated(dir.path(), "2026-11-29T12:00:00Z", &all),
            None,
            Duration::from_secs(60),
        )
    };
    // Every object keeps what the tool reads: -o json gives them back as applied.
    let listed = pacto(&["get", "-A", "-o", "json"]);
    listed.assert_code(0);
    let list: Value = serde_json::from_str(&listed.stdout).unwrap();
    let pactos: Vec<&Value> = applied.iter().filter(|o| o["kind"] == "Pacto").collect();
    assert_eq!(list["items"].as_array().unwrap().len(), pactos.len());
    for p in &pactos {
        let name = p["metadata"]["name"].as_str().unwrap();
        let got = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["metadata"]["name"] == name)
            .unwrap();
        assert_eq!(got["status"], p["status"], "{name}");
        assert_eq!(got["spec"], p["spec"], "{name}");
    }
    // The walkthrough's `get -n shop`: the gates decide as on the files (recommended gates:
    // Compliant passes, NonCompliant fails).
    let shop = pacto(&["get", "-n", "shop"]);
    shop.assert_code(0);
    let gate = |name: &str| {
        let row = shop
            .stdout
            .lines()
            .skip(1)
            .position(|l| l.split_whitespace().next() == Some(name))
            .unwrap();
        cell(&shop.stdout, row, "GATE")
    };
    assert_eq!(gate("orders"), "pass");
    assert_eq!(gate("payments"), "fail");
    pacto(&["get", "-A"]).assert_code(0);
    pacto(&["explain", "pacto/orders"]).assert_code(0);
    pacto(&["wait", "pacto/orders", "--for", "verdict=Compliant"]).assert_code(0);
    let stages = pacto(&["get", "stages", "-A"]);
    stages.assert_code(0);
    assert!(stages.stdout.lines().count() >= 3, "{}", stages.stdout);
    pacto(&["get", "operations", "-A"]).assert_code(0);
}
