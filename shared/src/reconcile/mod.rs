//! The one-shot reconcile of delivery Stages (`kubectl pacto reconcile --once`), for clusters
//! where no long-running controller may run: a pure plan ([`plan`]: every Stage and its appliers
//! in, one status change per Stage with its reasons out, the time passed in) and how the cluster's
//! schema says to write it ([`schema`]). The plan owns the `Ready` and `Mediated` conditions and
//! `status.observedGeneration` of each Stage, and nothing else.

pub mod plan;
pub mod report;
pub mod reread;
pub mod schema;

/// The field manager of every write, so that managedFields and audit logs say who wrote.
pub const FIELD_MANAGER: &str = "kubectl-pacto";

pub use plan::{plan, plan_stage, Change, Write};
pub use schema::{conditions_list_type, ListType};
