//! The objects a gate is tried on when a check evaluates it: a Pacto in every state the table of
//! "GitOps promotion gates" names (no status, no verdict yet, a stale generation, every
//! contractStatus, a value added later) and a CoderTemplateTest in every phase of the table of
//! "Gate template promotion with GitOps", each with the outcome a gate must give (pass, hold or
//! fail the next rollout step).

use serde_json::{json, Value};

/// What a gate must do with the next rollout step for a probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Must {
    Pass,
    Hold,
    Fail,
    /// Either pass or fail: the Warning knob decides ("GitOps promotion gates", "Flux": Warning's
    /// place is the whole knob).
    Knob,
}

/// One probe object.
#[derive(Debug, Clone)]
pub struct Probe {
    /// What it is, for evidence: `a Pacto with contractStatus Unknown`.
    pub name: &'static str,
    pub object: Value,
    pub must: Must,
    /// A fresh object (no status yet): a gate that errors on it in Argo CD shows the app Unknown.
    pub fresh: bool,
}

fn pacto(status: Option<Value>) -> Value {
    let mut o = json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
        "metadata": {"name": "probe", "namespace": "doctor", "generation": 2},
        "spec": {"target": {"serviceName": "probe"}}});
    if let Some(s) = status {
        o["status"] = s;
    }
    o
}

fn verdict(v: &str) -> Value {
    json!({"contractStatus": v, "observedGeneration": 2,
           "findings": [{"code": "WORKLOAD_MISMATCH", "severity": "error", "message": "probe"}]})
}

/// Pacto probes (the verdicts of "GitOps promotion gates", and a value added later).
pub fn pactos() -> Vec<Probe> {
    vec![
        Probe {
            name: "a Pacto with no status yet",
            object: pacto(None),
            must: Must::Hold,
            fresh: true,
        },
        Probe {
            name: "a Pacto whose status has no contractStatus",
            object: pacto(Some(json!({"observedGeneration": 2, "conditions": []}))),
            must: Must::Hold,
            fresh: true,
        },
        Probe {
            name: "a Compliant Pacto evaluated at an older generation",
            object: pacto(Some(
                json!({"contractStatus": "Compliant", "observedGeneration": 1}),
            )),
            must: Must::Hold,
            fresh: false,
        },
        Probe {
            name: "a Compliant Pacto",
            object: pacto(Some(verdict("Compliant"))),
            must: Must::Pass,
            fresh: false,
        },
        Probe {
            name: "a Reference Pacto",
            object: pacto(Some(verdict("Reference"))),
            must: Must::Pass,
            fresh: false,
        },
        Probe {
            name: "a Warning Pacto",
            object: pacto(Some(verdict("Warning"))),
            must: Must::Knob,
            fresh: false,
        },
        Probe {
            name: "a NonCompliant Pacto",
            object: pacto(Some(verdict("NonCompliant"))),
            must: Must::Fail,
            fresh: false,
        },
        Probe {
            name: "an Invalid Pacto",
            object: pacto(Some(verdict("Invalid"))),
            must: Must::Fail,
            fresh: false,
        },
        Probe {
            name: "a Pacto with contractStatus Unknown",
            object: pacto(Some(verdict("Unknown"))),
            must: Must::Hold,
            fresh: false,
        },
        Probe {
            name: "a Pacto with contractStatus NotEvaluated",
            object: pacto(Some(verdict("NotEvaluated"))),
            must: Must::Hold,
            fresh: false,
        },
        Probe {
            name: "a Pacto with a contractStatus added later (Provisional)",
            object: pacto(Some(verdict("Provisional"))),
            must: Must::Hold,
            fresh: false,
        },
    ]
}

fn ctt(status: Option<Value>) -> Value {
    let mut o = json!({"apiVersion": "coder.com/v1alpha1", "kind": "CoderTemplateTest",
        "metadata": {"name": "probe", "namespace": "doctor", "generation": 2}});
    if let Some(s) = status {
        o["status"] = s;
    }
    o
}

/// CoderTemplateTest probes (the phase table of "Gate template promotion with GitOps").
pub fn coder_template_tests() -> Vec<Probe> {
    let ready = json!([{"type": "Ready", "status": "True", "reason": "Succeeded"}]);
    vec![
        Probe {
            name: "a CoderTemplateTest with no status yet",
            object: ctt(None),
            must: Must::Hold,
            fresh: true,
        },
        Probe {
            name: "a Succeeded CoderTemplateTest at an older generation",
            object: ctt(Some(
                json!({"observedGeneration": 1, "phase": "Succeeded", "conditions": ready}),
            )),
            must: Must::Hold,
            fresh: false,
        },
        Probe {
            name: "a Pending CoderTemplateTest",
            object: ctt(Some(
                json!({"observedGeneration": 2, "phase": "Pending", "reason": "Initializing", "message": "probe"}),
            )),
            must: Must::Hold,
            fresh: false,
        },
        Probe {
            name: "a Running CoderTemplateTest",
            object: ctt(Some(
                json!({"observedGeneration": 2, "phase": "Running", "reason": "WaitingForBuild", "message": "probe"}),
            )),
            must: Must::Hold,
            fresh: false,
        },
        Probe {
            name: "a Succeeded CoderTemplateTest with Ready=True",
            object: ctt(Some(
                json!({"observedGeneration": 2, "phase": "Succeeded", "reason": "Succeeded", "message": "probe", "conditions": ready}),
            )),
            must: Must::Pass,
            fresh: false,
        },
        Probe {
            name: "a Failed CoderTemplateTest",
            object: ctt(Some(
                json!({"observedGeneration": 2, "phase": "Failed", "reason": "BuildFailed", "message": "probe"}),
            )),
            must: Must::Fail,
            fresh: false,
        },
    ]
}
