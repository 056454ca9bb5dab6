//! Configuration checks: is a gate configured, or does it only look configured? Each check has a
//! stable ID (the checklist of `shared/reference/pacto-domain.md` §2.5: F.. Flux, A.. Argo CD,
//! O.. operator and object, C.. CoderTemplateTest), a severity, the object it is about, the
//! evidence that decided it and the fix. Pure: objects and parsed configuration in, findings out.

pub mod argocd;

use serde::Serialize;

/// How much a finding matters: an error means the gate does not do what it looks like it does;
/// a warning that it may not; info is worth knowing and never changes an exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    /// `error`, `warning`, `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One finding of one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The check's stable ID, e.g. `A01`.
    pub id: &'static str,
    pub severity: Severity,
    /// The object the finding is about, e.g. `ConfigMap argocd/argocd-cm`, or `argocd-cm` for a
    /// file's configuration.
    pub object: String,
    /// What was read that decided it: the key, the expression, the field and its value.
    pub evidence: String,
    /// The finding in one sentence (raw text; renderers escape it).
    pub finding: String,
    /// The change that fixes it (a key, a line, a command); empty when there is nothing to do.
    pub fix: String,
}
