//! Pacto contracts: typed views over both status shapes ([`view`]), what a verdict means and
//! when it changes ([`verdict`]), which gates judge it and what they decide ([`gate`]), and the
//! `explain` report ([`explain`]). Pure: objects and the clock come in, values go out.

pub mod explain;
pub mod gate;
pub mod recommended;
pub mod verdict;
pub mod view;

/// The Pacto API group.
pub const GROUP: &str = crate::kinds::PACTO.group;
/// The Pacto API version served by both operator lines.
pub const VERSION: &str = "v1alpha1";
/// The Pacto kind.
pub const KIND: &str = crate::kinds::PACTO.kind;
