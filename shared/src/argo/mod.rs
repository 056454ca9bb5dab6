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

/// The Argo CD source the engines follow, as `kubectl pacto version` prints it: argo-cd master at
/// commit `37ee0097` (2026-08-22; its `VERSION` file says 3.6.0, not yet released; the newest
/// release then was v3.5.1), and the gopher-lua release that commit's `go.mod` pins. Its
/// `resource_customizations/` is the corpus the Lua engine is measured on.
pub const FOLLOWS: &str =
    "argo-cd 37ee0097 (3.6.0 before its release; newest release v3.5.1), gopher-lua v1.1.2";

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
