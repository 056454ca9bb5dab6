//! pacto-gates: evaluate Argo CD and Flux health gates on Kubernetes objects, offline, the way the
//! controllers do. See docs/design.md of the repository for the architecture, and docs/upstream.md
//! for the upstream file that decides each behaviour.

pub mod argo;
pub mod cluster;
pub mod delivery;
pub mod doctor;
pub mod flux;
pub mod k8s;
pub mod kinds;
pub mod object;
pub mod pacto;
pub mod reconcile;
pub mod render;
pub mod snippets;

#[cfg(test)]
mod testutil;
