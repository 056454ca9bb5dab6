//! Pacto delivery (`delivery.pacto.trianalab.io/v1alpha1`, the Pacto document "Delivery reference:
//! setup and gates"): typed views of Stages, Operations and Approvals and of the objects a Stage
//! depends on ([`view`]); whether its pointer alone decides what runs ([`mediated`], the `Mediated`
//! condition) and whether it can promote ([`ready`], the `Ready` condition, with the keyless
//! identity rule of [`oidc`]); the conditions as a reconcile would write them ([`condition`]); and
//! what an Operation's phase and verdicts mean ([`operation`]). Pure: the objects come in,
//! conditions and explanations go out; no I/O, no clock.
//!
//! Names the document leaves open are settled in docs/design.md ("Pacto delivery: the settled
//! names") and listed in docs/delivery.md.

pub mod condition;
pub mod explain;
pub mod mediated;
pub mod oidc;
pub mod operation;
pub mod ready;
pub mod snapshot;
pub mod stage;
pub mod view;
pub mod world;

#[cfg(test)]
mod tests;

/// The delivery API group.
pub const GROUP: &str = crate::kinds::DELIVERY_GROUP;
/// The delivery API version (alpha).
pub const VERSION: &str = crate::kinds::DELIVERY_VERSION;
/// The label that ties an apply OCIRepository and its applier to the one Stage that applies
/// through them: `delivery.pacto.trianalab.io/apply-ref=<stage name>` ("Delivery reference: setup
/// and gates", "Set up a Stage").
pub const APPLY_REF_LABEL: &str = "delivery.pacto.trianalab.io/apply-ref";

pub use condition::{Computed, Condition, Failure};
pub use snapshot::Snapshot;
pub use stage::compute;
pub use view::StageView;
pub use world::World;
