//! Flux health: the CEL environment and status evaluator of `healthCheckExprs` (fluxcd/pkg
//! `runtime/cel`), kstatus `Compute` (fluxcd/cli-utils `pkg/kstatus/status`) and Flux's Job reader,
//! the selection of an expression for an object, and the wait verdict of a Kustomization
//! (fluxcd/pkg `ssa/manager_wait.go`, kustomize-controller).

pub mod health;
pub mod helm_release;
pub mod kstatus;
pub mod kustomization;
pub mod release;
pub mod suite;
pub mod wait;
pub mod wait_set;

pub mod cel;

use serde::Serialize;

/// The Flux release the engines follow, as `kubectl pacto version` prints it: flux2 v2.9.4
/// (2026-08-07), whose kustomize-controller v1.9.4 builds with fluxcd/pkg `runtime` v0.110.1 and
/// `ssa` v0.76.1 (their `runtime/cel` and `ssa` are the same in fluxcd/pkg `e2cfd1a2`, the commit
/// the engines were written against), fluxcd/cli-utils v1.2.2 (kstatus) and cel-go v0.26.1.
pub const FOLLOWS: &str = "flux2 v2.9.4 (kustomize-controller v1.9.4, helm-controller v1.6.3), \
                           kstatus of fluxcd/cli-utils v1.2.2, cel-go v0.26.1";

/// kstatus statuses (fluxcd/cli-utils `pkg/kstatus/status/status.go` `Status`), spelled as
/// kstatus spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum KStatus {
    InProgress,
    Failed,
    Current,
    Terminating,
    NotFound,
    Unknown,
}

impl KStatus {
    /// The status word: `InProgress`, `Failed`, `Current`, `Terminating`, `NotFound`, `Unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            KStatus::InProgress => "InProgress",
            KStatus::Failed => "Failed",
            KStatus::Current => "Current",
            KStatus::Terminating => "Terminating",
            KStatus::NotFound => "NotFound",
            KStatus::Unknown => "Unknown",
        }
    }
}

/// A condition kstatus adds to its result (`Reconciling` or `Stalled`), as in kstatus `Result`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KCondition {
    /// `Reconciling` or `Stalled`.
    pub kind: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    pub reason: String,
    pub message: String,
}

/// What kstatus (or a CEL status evaluator) concluded about one object: kstatus `Result`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KResult {
    pub status: KStatus,
    pub message: String,
    pub conditions: Vec<KCondition>,
}
