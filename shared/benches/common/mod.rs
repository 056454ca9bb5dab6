//! The objects both benchmarks evaluate: Pacto objects spread over every contractStatus, one in
//! seven with a stale generation, each with findings and conditions as the operator writes them.

use serde_json::{json, Value};

pub const OBJECTS: usize = 10_000;

pub fn pactos() -> Vec<Value> {
    let verdicts = [
        "Compliant",
        "Warning",
        "NonCompliant",
        "Invalid",
        "Unknown",
        "Reference",
    ];
    (0..OBJECTS)
        .map(|i| {
            let verdict = verdicts[i % verdicts.len()];
            json!({
                "apiVersion": "pacto.trianalab.io/v1alpha1",
                "kind": "Pacto",
                "metadata": {"name": format!("svc-{i}"), "namespace": "shop", "generation": 2},
                "spec": {"contractRef": {"oci": "ghcr.io/acme/c:1.0.0"}, "target": {"serviceName": format!("svc-{i}")}},
                "status": {
                    "contractStatus": verdict,
                    "observedGeneration": if i % 7 == 0 { 1 } else { 2 },
                    "summary": {"errorCount": 1, "warningCount": 1, "infoCount": 0, "unknownCount": 0},
                    "findings": [
                        {"code": "TAG_NOT_DIGEST", "severity": "warning", "category": "reference", "message": "pinned by tag"},
                        {"code": "INTERFACE_ABSENT", "severity": "error", "category": "interface", "subject": format!("service/svc-{i}"), "message": "interface http-api is not served"}
                    ],
                    "conditions": [
                        {"type": "ContractValid", "status": "True", "reason": "Valid", "message": "ok", "lastTransitionTime": "2026-11-29T10:00:00Z"},
                        {"type": "RuntimeObserved", "status": "True", "reason": "Found", "message": "ok", "lastTransitionTime": "2026-11-29T10:00:00Z"}
                    ]
                }
            })
        })
        .collect()
}
