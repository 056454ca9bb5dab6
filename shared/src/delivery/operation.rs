//! What an Operation's phase and verdicts mean ("Delivery reference: setup and gates", section "How
//! a change moves"): its place on the promoter's state machine, each gate's verdict in the
//! document's words, and who may act next.
//!
//! ```text
//! Pending -(gates pass)-> lock -> Running -(Flux applied it)-> Verifying -(Pass)-> Succeeded
//! Pending -(a person must decide)-> Held -(approved)-> lock      Verifying -(Fail)-> Failed
//!                                                                Succeeded -(re-check fails)-> Failed
//! ```

use super::view::{ApprovalView, OperationView};
use serde::Serialize;

/// The six built-in operation types ("Delivery reference: setup and gates", "How a change moves").
pub const TYPES: [&str; 6] = [
    "promote", "rollback", "override", "freeze", "unfreeze", "autonomy",
];

/// The phases of the state machine, in order.
pub const PHASES: [&str; 6] = [
    "Pending",
    "Held",
    "Running",
    "Verifying",
    "Succeeded",
    "Failed",
];

/// Who may act next on an Operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Actor {
    /// A person in `delivery.identities.humanGroups` (an Approval).
    Person,
    /// A person or an agent may propose a new Operation (agents propose, never approve).
    Anyone,
    /// Nobody: the promoter (or Flux) moves it on.
    Nobody,
}

impl Actor {
    /// `a person`, `anyone`, `nobody`.
    pub fn as_str(self) -> &'static str {
        match self {
            Actor::Person => "a person",
            Actor::Anyone => "anyone",
            Actor::Nobody => "nobody",
        }
    }
}

/// Where an Operation stands, what happens next and who may act.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Place {
    /// Whether `spec.type` is one of [`TYPES`].
    pub known_type: bool,
    /// Whether `status.phase` is one of [`PHASES`] (or empty: not picked up yet).
    pub known_phase: bool,
    /// What the phase means, one sentence.
    pub meaning: String,
    /// What moves it on.
    pub next: String,
    pub actor: Actor,
    /// The gates whose verdict is Unknown or Fail before the lock (what a person decides on).
    pub waiting_on: Vec<String>,
}

/// The gates of a Held operation that a person must decide on: the before-verdicts that are not
/// Pass.
pub fn waiting_on(op: &OperationView) -> Vec<String> {
    op.verdicts
        .iter()
        .filter(|v| v.phase != "after" && v.result != "Pass")
        .map(|v| v.gate.to_string())
        .collect()
}

/// Whether an Approval of `all` counts for `op` (see [`approvals`]).
pub fn approved(op: &OperationView, all: &[ApprovalView<'_>]) -> bool {
    approvals(op, all).iter().any(|(_, counts)| *counts)
}

/// What an operation waits on, as the `get operations` WAITING-ON column says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Waiting {
    /// Not Held: nobody is asked.
    Nothing,
    /// Held, and an Approval counts: the promoter takes it at its next reconcile.
    Promoter,
    /// Held, no Approval counts and no gate named: a person decides (the Stage's
    /// `spec.approval.always`, say).
    Person,
    /// Held, no Approval counts: a person decides on these gates (the before-verdicts that are
    /// not Pass, [`waiting_on`]).
    Gates(Vec<String>),
}

/// What `op` waits on ([`Waiting`]), as [`place`] tells it: `approved` says an Approval that
/// counts exists.
pub fn waiting(op: &OperationView, approved: bool) -> Waiting {
    if op.phase != "Held" {
        return Waiting::Nothing;
    }
    if approved {
        return Waiting::Promoter;
    }
    let gates = waiting_on(op);
    if gates.is_empty() {
        Waiting::Person
    } else {
        Waiting::Gates(gates)
    }
}

/// The place of `op` on the state machine. `approval_always` is the Stage's
/// `spec.approval.always` (None when the Stage is not known); `approved` says an Approval that
/// counts exists (a Held operation then waits for the promoter, not for a person).
pub fn place(op: &OperationView, approval_always: Option<bool>, approved: bool) -> Place {
    let known_type = TYPES.contains(&op.type_);
    let waiting = waiting_on(op);
    let (meaning, next, actor) = match op.phase {
        "" => (
            "not picked up yet: the promoter has written no status".to_string(),
            "the promoter evaluates the before-gates".to_string(),
            Actor::Nobody,
        ),
        "Pending" => (
            "the before-gates are being evaluated".to_string(),
            "if every gate passes, the promoter locks the Stage and runs it; if a person must decide, it is Held".to_string(),
            Actor::Nobody,
        ),
        "Held" if approved => (
            "held for a person, who approved it: an Approval counts".to_string(),
            "the promoter takes the approval at its next reconcile, locks the Stage and runs it".to_string(),
            Actor::Nobody,
        ),
        "Held" => {
            let why = if waiting.is_empty() {
                match approval_always {
                    Some(true) => "the Stage's spec.approval.always asks a person for every operation".to_string(),
                    _ => "a person must decide".to_string(),
                }
            } else {
                format!("a person must decide on {}", waiting.join(", "))
            };
            (
                format!("waiting on a person: {why}"),
                "an Approval (decision approve, acceptUnknown naming each Unknown gate a person accepts) from a member of delivery.identities.humanGroups; agents may propose but never approve".to_string(),
                Actor::Person,
            )
        }
        "Running" => (
            "the Stage is locked and the pointer moved: Flux is applying the version".to_string(),
            "once Flux applied it, the after-gates verify it for spec.gates.verify.window".to_string(),
            Actor::Nobody,
        ),
        "Verifying" => (
            "Flux applied it; the after-gates are verifying it".to_string(),
            "Pass: Succeeded; Fail: Failed and rolled back".to_string(),
            Actor::Nobody,
        ),
        "Succeeded" => (
            "verified and running".to_string(),
            "nothing, unless a re-check fails (then Failed)".to_string(),
            Actor::Nobody,
        ),
        "Failed" => (
            "failed (a failed verification is rolled back; the version joins the failed versions never tried again)".to_string(),
            "a new Operation: a person or an agent may propose one; a person approves it".to_string(),
            Actor::Anyone,
        ),
        other => (
            format!("{other:?} is not a phase of the promoter's state machine (Pending, Held, Running, Verifying, Succeeded, Failed)"),
            "nothing this tool can predict".to_string(),
            Actor::Nobody,
        ),
    };
    let known_phase = op.phase.is_empty() || PHASES.contains(&op.phase);
    let (meaning, next, actor) = if known_type {
        (meaning, next, actor)
    } else {
        (
            format!("spec.type {:?} is not one of the six operation types ({}): the promoter admits no such operation", op.type_, TYPES.join(", ")),
            "nothing: create an Operation of a known type".to_string(),
            Actor::Anyone,
        )
    };
    Place {
        known_type,
        known_phase,
        meaning,
        next,
        actor,
        waiting_on: waiting,
    }
}

/// What a gate's verdict means, in the words of "Delivery reference: setup and gates". Gates this
/// tool does not know are named as such.
pub fn gate_meaning(gate: &str, result: &str) -> String {
    let rule = match gate {
        "pacto.published" => "checks that the version was published (its digest among the Stage's status.published, a signature Flux verified); anything else is refused as NotPublished",
        "pacto.diff" => "compares the candidate's contract with the running version's",
        "pacto.impact" => "checks every consumer in the environment that declares a range on the service",
        "pacto.suites" => "checks that the version ships every suite the Stage's checks name and changes none it ships; a version that does not is held for a person to accept the unknown, on every level",
        "pacto.environment" => "checks that a contract declaring environments names one like the Stage's spec.environment and that its values there pass their schemas; a contract with no environments passes",
        "pacto.contract" => "the after-check: counts only when the Pacto's status.evaluatedRevision names this version's contract digest and the current workload generation; Compliant and Warning pass, NonCompliant and Invalid fail, anything else is Unknown",
        _ => "a gate this tool does not know (a health check may join the after-gates)",
    };
    let verdict = match result {
        "Pass" => "passed",
        "Fail" => "failed",
        "Unknown" => "unknown: something it needed was unseen (an unreadable Pacto, a registry silent for 10 seconds); a person may accept it",
        "" => "no verdict yet",
        other => return format!("{rule}; {other:?} is not a verdict (Pass, Fail, Unknown)"),
    };
    format!("{verdict} — {rule}")
}

/// The Approvals of `op`, and whether one counts: decision approve and every Unknown gate of the
/// operation accepted.
pub fn approvals<'w, 'a>(
    op: &OperationView,
    all: &'w [ApprovalView<'a>],
) -> Vec<(&'w ApprovalView<'a>, bool)> {
    let unknown: Vec<&str> = op
        .verdicts
        .iter()
        .filter(|v| v.phase != "after" && v.result == "Unknown")
        .map(|v| v.gate)
        .collect();
    all.iter()
        .filter(|a| a.this.namespace == op.this.namespace && a.operation == op.this.name)
        .map(|a| {
            let covers = unknown
                .iter()
                .all(|g| a.accept_unknown.iter().any(|x| x == g));
            (a, a.decision == "approve" && covers)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A Held operation waits on the promoter once an Approval counts (the state machine:
    /// Held, then an approval, then the promoter locks and runs it), else on a person and the
    /// gates not passed; any other phase waits on nobody.
    #[test]
    fn what_an_operation_waits_on() {
        let verdicts = json!([{"gate": "pacto.suites", "phase": "before", "result": "Unknown"},
                              {"gate": "pacto.impact", "phase": "before", "result": "Fail"},
                              {"gate": "pacto.verify", "phase": "after", "result": "Fail"}]);
        let held = op("promote", "Held", verdicts.clone());
        assert_eq!(
            waiting(&held, false),
            Waiting::Gates(vec!["pacto.suites".into(), "pacto.impact".into()])
        );
        assert_eq!(waiting(&held, true), Waiting::Promoter);
        assert_eq!(
            waiting(&op("promote", "Held", json!([])), false),
            Waiting::Person
        );
        assert_eq!(
            waiting(&op("promote", "Pending", verdicts), true),
            Waiting::Nothing
        );
        let approval = |decision: &str, accept: serde_json::Value| {
            crate::testutil::kept(json!({
                "apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Approval",
                "metadata": {"name": "a", "namespace": "prod"},
                "spec": {"operationRef": {"name": "payments-1-4-0"}, "decision": decision, "acceptUnknown": accept}
            }))
        };
        let yes = [ApprovalView::new(approval(
            "approve",
            json!(["pacto.suites"]),
        ))];
        let no = [ApprovalView::new(approval("approve", json!([])))];
        assert!(approved(&held, &yes));
        assert!(!approved(&held, &no));
        assert!(!approved(&held, &[]));
    }

    fn op(type_: &str, phase: &str, verdicts: serde_json::Value) -> OperationView<'static> {
        OperationView::new(crate::testutil::kept(json!({
            "metadata": {"name": "payments-1-4-0", "namespace": "prod"},
            "spec": {"type": type_, "stageRef": {"name": "payments"}, "version": "1.4.0"},
            "status": {"phase": phase, "verdicts": verdicts}
        })))
    }

    /// The state machine of "Delivery reference: setup and gates": who moves each phase on.
    #[test]
    fn who_may_act_in_each_phase() {
        let cases = [
            ("", Actor::Nobody),
            ("Pending", Actor::Nobody),
            ("Held", Actor::Person),
            ("Running", Actor::Nobody),
            ("Verifying", Actor::Nobody),
            ("Succeeded", Actor::Nobody),
            ("Failed", Actor::Anyone),
        ];
        for (phase, actor) in cases {
            let p = place(&op("promote", phase, json!([])), None, false);
            assert_eq!(p.actor, actor, "{phase}");
            assert!(p.known_phase && p.known_type);
        }
        let p = place(&op("promote", "Paused", json!([])), None, false);
        assert!(!p.known_phase);
        assert!(p.meaning.contains("not a phase"));
    }

    #[test]
    fn a_held_operation_waits_on_its_unknown_gates() {
        let o = op(
            "promote",
            "Held",
            json!([{"gate": "pacto.published", "phase": "before", "result": "Pass"},
                   {"gate": "pacto.suites", "phase": "before", "result": "Unknown", "message": "no suite smoke"}]),
        );
        let p = place(&o, Some(false), false);
        assert_eq!(p.waiting_on, vec!["pacto.suites".to_string()]);
        assert!(p.meaning.contains("pacto.suites"), "{}", p.meaning);
        let approvals_all = [
            ApprovalView::new(crate::testutil::kept(
                json!({"metadata": {"name": "a1", "namespace": "prod"},
                "spec": {"operationRef": {"name": "payments-1-4-0"}, "decision": "approve"}}),
            )),
            ApprovalView::new(crate::testutil::kept(
                json!({"metadata": {"name": "a2", "namespace": "prod"},
                "spec": {"operationRef": {"name": "payments-1-4-0"}, "decision": "approve", "acceptUnknown": ["pacto.suites"]}}),
            )),
        ];
        let a = approvals(&o, &approvals_all);
        assert_eq!(
            a.iter().map(|(_, counts)| *counts).collect::<Vec<_>>(),
            [false, true]
        );
    }

    /// A Held operation with an Approval that counts waits for the promoter, not a person ("How a
    /// change moves": Held -(approved)-> lock); what a person decides on are the before-gates
    /// that did not pass, never the after-gates (they run once the Stage is locked).
    #[test]
    fn an_approved_hold_waits_for_the_promoter_and_after_gates_are_not_a_persons() {
        let o = op(
            "promote",
            "Held",
            json!([{"gate": "pacto.impact", "phase": "before", "result": "Fail"},
                   {"gate": "pacto.suites", "phase": "before", "result": "Unknown"},
                   {"gate": "pacto.contract", "phase": "after", "result": "Unknown"},
                   {"gate": "pacto.health", "phase": "after", "result": "Fail"}]),
        );
        let waiting = place(&o, Some(false), false);
        assert_eq!(waiting.actor, Actor::Person);
        assert_eq!(waiting.waiting_on, ["pacto.impact", "pacto.suites"]);
        let approved = place(&o, Some(false), true);
        assert_eq!(approved.actor, Actor::Nobody);
        assert!(
            approved.meaning.contains("approved"),
            "{}",
            approved.meaning
        );
    }

    /// An Approval counts when its decision is approve (spec.decision: approve | reject) and it
    /// accepts every before-gate that is Unknown; a reject never counts, whatever it accepts;
    /// an after-gate's Unknown needs no acceptance.
    #[test]
    fn only_an_approve_that_accepts_every_unknown_counts() {
        let o = op(
            "promote",
            "Held",
            json!([{"gate": "pacto.suites", "phase": "before", "result": "Unknown"},
                   {"gate": "pacto.contract", "phase": "after", "result": "Unknown"}]),
        );
        let approval = |name: &str, decision: &str, accept: serde_json::Value| {
            ApprovalView::new(crate::testutil::kept(
                json!({"metadata": {"name": name, "namespace": "prod"},
                "spec": {"operationRef": {"name": "payments-1-4-0"}, "decision": decision,
                         "acceptUnknown": accept}}),
            ))
        };
        let all = [
            approval("approve-all", "approve", json!(["pacto.suites"])),
            approval("reject-all", "reject", json!(["pacto.suites"])),
            approval("approve-none", "approve", json!([])),
            approval("approve-other", "approve", json!(["pacto.impact"])),
        ];
        let got: Vec<(&str, bool)> = approvals(&o, &all)
            .iter()
            .map(|(a, counts)| (a.this.name, *counts))
            .collect();
        assert_eq!(
            got,
            [
                ("approve-all", true),
                ("reject-all", false),
                ("approve-none", false),
                ("approve-other", false)
            ]
        );
    }

    #[test]
    fn an_unknown_type_is_named() {
        let p = place(&op("deploy", "Pending", json!([])), None, false);
        assert!(!p.known_type);
        assert!(p
            .meaning
            .contains("spec.type \"deploy\" is not one of the six operation types"));
    }
}
