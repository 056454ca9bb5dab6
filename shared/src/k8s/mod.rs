//! Facts about Kubernetes objects that every other module shares, each in one copy: how an
//! `apiVersion` splits into group and version (apimachinery), Go durations and RFC 3339 times as
//! Go and apimachinery read and write them, label selectors, the directory walk of `-f DIR`, the
//! bounded reading of every input, YAML streams read one document at a time (and YAML written as
//! kubectl writes it), Go's regular expressions (`regexp`, as Flux matches identities with
//! them), and how server-side apply merges a list its schema declares (`listtype`).
//! No product rule lives here, and this module imports no other module of the crate.

pub mod duration;
pub mod gofmt;
pub mod goregexp;
pub mod gvk;
pub mod listtype;
pub mod names;
pub mod read;
pub mod selector;
pub mod time;
pub mod walk;
pub mod yaml;

pub use gvk::{gvk_of, Gvk};
