//! Argo CD resource health: argocd-cm parsing, the Lua sandbox, the built-in Go checks and the
//! lookup order, following argo-cd `util/lua/lua.go`, `util/settings/settings.go` and
//! gitops-engine `pkg/health`.

pub mod app_health;
pub mod builtin;
pub mod gopher;
pub mod health;
pub mod lua;
pub mod osdate;
pub mod settings;
pub mod suite;

use serde::Serialize;

/// Argo CD's health status codes (gitops-engine `pkg/health/health.go` `HealthStatusCode`),
/// ordered from most to least healthy as `healthOrder` ranks them.
pub const HEALTH_CODES: [&str; 6] = [
    "Healthy",
    "Suspended",
    "Progressing",
    "Missing",
    "Degraded",
    "Unknown",
];

/// A health verdict as Argo CD stores it: `status` is one of [`HEALTH_CODES`] (or the empty string
/// that a Lua script returning `nil`/`{}` yields), `message` free text (possibly empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HealthStatus {
    pub status: String,
    pub message: String,
}

impl HealthStatus {
    /// Builds a status from a code and a message.
    pub fn new(status: impl Into<String>, message: impl Into<String>) -> Self {
        HealthStatus {
            status: status.into(),
            message: message.into(),
        }
    }
}
