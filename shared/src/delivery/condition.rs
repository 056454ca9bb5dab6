//! The conditions a Stage's reconcile computes (`Ready`, `Mediated`), shaped as
//! `status.conditions[]` entries (metav1.Condition), with every failing rule behind them.

use serde::Serialize;

/// What a failing rule found: the reason (the condition's reason word from the Pacto document
/// "Delivery reference: setup and gates"), the object and field that decided it, what is wrong, and
/// the change that fixes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// `Ready` or `Mediated`.
    pub condition: &'static str,
    /// `ApplyRefUnguarded`, `CandidateUnverified`, ...
    pub reason: &'static str,
    /// The object at fault, `Kind namespace/name`.
    pub object: String,
    /// The field at fault, as a path (`metadata.labels["delivery.pacto.trianalab.io/apply-ref"]`).
    pub field: String,
    /// What is wrong, one sentence.
    pub message: String,
    /// The change that fixes it.
    pub fix: String,
}

impl Failure {
    /// A failure of `condition` (`Ready` or `Mediated`) for `reason`.
    pub fn new(
        condition: &'static str,
        reason: &'static str,
        object: String,
        field: &str,
        message: String,
        fix: String,
    ) -> Failure {
        Failure {
            condition,
            reason,
            object,
            field: field.to_string(),
            message,
            fix,
        }
    }
}

/// A computed condition as a reconcile writes it: `type`, `status` (True, False, Unknown),
/// `reason`, `message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: &'static str,
    pub status: &'static str,
    pub reason: String,
    pub message: String,
}

/// One rule of a condition and its verdict, for explanations: every rule is listed, passing or
/// not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// `Ready` or `Mediated`.
    pub condition: &'static str,
    /// The reason this rule gives when it fails.
    pub reason: &'static str,
    /// What the rule asks, one sentence.
    pub asks: String,
    /// `pass`, `fail`, or `unknown` (an object it needs could not be read).
    pub verdict: &'static str,
}

/// How many failures a condition's message gives after its reason's (`; also ...`); past it,
/// a count: the message is written to the Stage's status and shown in tables, so it stays short
/// whatever the failures number (the explanation lists them all).
pub const MESSAGE_FAILURES: usize = 5;

/// A condition from its rules: True with `true_reason` when no rule failed; else False with the
/// reason of the first failure in `order` (the document's order) and a message naming that
/// failure and up to [`MESSAGE_FAILURES`] others, then how many more; Unknown when a rule could
/// not be decided and none failed.
pub fn from_failures(
    type_: &'static str,
    true_reason: &str,
    true_message: &str,
    order: &[&str],
    failures: &[Failure],
    undecided: &[String],
) -> Condition {
    let mine: Vec<&Failure> = failures.iter().filter(|f| f.condition == type_).collect();
    if mine.is_empty() {
        if let Some(why) = undecided.first() {
            return Condition {
                type_,
                status: "Unknown",
                reason: "Unreadable".to_string(),
                message: why.clone(),
            };
        }
        return Condition {
            type_,
            status: "True",
            reason: true_reason.to_string(),
            message: true_message.to_string(),
        };
    }
    let first = order
        .iter()
        .find_map(|r| mine.iter().find(|f| f.reason == *r))
        .unwrap_or(&mine[0]);
    let mut message = first.message.clone();
    let others: Vec<String> = mine
        .iter()
        .filter(|f| !std::ptr::eq(**f, *first))
        .take(MESSAGE_FAILURES)
        .map(|f| format!("{}: {}", f.reason, f.message))
        .collect();
    if !others.is_empty() {
        message.push_str(&format!("; also {}", others.join("; ")));
    }
    let more = mine.len() - 1 - others.len();
    if more > 0 {
        message.push_str(&format!(
            "; and {more} more failure{} (explain lists them)",
            if more == 1 { "" } else { "s" }
        ));
    }
    Condition {
        type_,
        status: "False",
        reason: first.reason.to_string(),
        message,
    }
}

/// What a Stage's reconcile computes: both conditions, every failure (in the reason order of
/// "Delivery reference: setup and gates"), and every rule with its verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Computed {
    pub ready: Condition,
    pub mediated: Condition,
    pub failures: Vec<Failure>,
    pub rules: Vec<Rule>,
    /// Kinds that could not be read, and why (the conditions that need them are Unknown).
    pub unreadable: Vec<String>,
}

impl Computed {
    /// The conditions as `status.conditions[]` would hold them: Ready, then Mediated.
    pub fn conditions(&self) -> [&Condition; 2] {
        [&self.ready, &self.mediated]
    }
}
