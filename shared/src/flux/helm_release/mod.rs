//! A Flux HelmRelease's wait (`explain helmrelease/NAME`, a HelmRelease node of `tree`): the
//! objects of its latest Helm release, judged by the readers helm-controller waits with, and
//! what the wait comes to. Sources, at the commits docs/upstream.md names:
//! - which release: `status.history` (helm-controller `api/v2/snapshot_types.go`
//!   `Snapshots.Latest`: the highest `version`), stored in `status.storageNamespace` as
//!   the Secret `sh.helm.release.v1.NAME.vVERSION` ([`storage`]);
//! - the wait: helm-controller `internal/action/wait.go` (`getWaitStrategy`: the action's
//!   `disableWait` waits for nothing, the `poller` strategy, the default, waits with kstatus;
//!   `wait`: paused Deployments of the release are left out; fail-fast on), with the status
//!   readers of `internal/controller/helmrelease_controller.go` (`spec.healthCheckExprs`
//!   first, then Flux's Job reader unless the action's `disableWaitForJobs`: `WaitWithJobs`);
//! - the timeout: the action's own (`spec.install.timeout`, `spec.upgrade.timeout`,
//!   `spec.rollback.timeout`), else `spec.timeout`, else 5m (`api/v2/helmrelease_types.go`
//!   `GetTimeout`), with no floor;
//! - the text: fluxcd/pkg `ssa/manager_wait.go`'s own error, which helm-controller puts into
//!   its failed action's message (`Helm upgrade failed for release NS/NAME with chart ...: `).
//!
//! The `legacy` strategy (Helm's own wait, also helm-controller's default under its
//! `UseHelm3Defaults` feature gate) is not emulated: it is refused. Pure: values in, the
//! explanation out.

pub mod storage;

use super::kustomization::parse;
use super::wait_set::{judge, Covered, WaitExplanation, Wanted, Words};
use crate::k8s::duration::parse_go_duration;
use crate::k8s::gvk::{gvk_of, str_at};
use serde::Serialize;
use serde_json::Value;
use std::time::Duration;

/// The latest Helm release a HelmRelease records (`status.history[]`, highest version).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Release {
    pub name: String,
    /// The namespace the release installs into.
    pub namespace: String,
    pub version: u64,
    /// `install`, `upgrade`, `rollback`, ... (empty when not recorded).
    pub action: String,
    /// Helm's status of the release: `deployed`, `failed`, `pending-upgrade`, ...
    pub status: String,
    pub chart_name: String,
    pub chart_version: String,
}

/// The HelmRelease's latest release and its storage namespace; None when it records none (no
/// history, or no `status.storageNamespace`: then, as for `flux tree`, there is nothing to
/// read). Errors: `status.history` or one of its fields of the wrong type, named by path.
pub fn latest(hr: &Value) -> Result<Option<(Release, String)>, String> {
    let history = match hr.pointer("/status/history") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(a)) => a,
        Some(other) => {
            return Err(format!(
                "status.history: expected a list, found {}",
                crate::object::json_type(other)
            ))
        }
    };
    let mut best: Option<Release> = None;
    for (i, s) in history.iter().enumerate() {
        let text = |f: &str| -> Result<String, String> {
            match s.get(f) {
                None | Some(Value::Null) => Ok(String::new()),
                Some(Value::String(t)) => Ok(t.clone()),
                Some(other) => Err(format!(
                    "status.history[{i}].{f}: expected a string, found {}",
                    crate::object::json_type(other)
                )),
            }
        };
        if !s.is_object() {
            return Err(format!(
                "status.history[{i}]: expected a mapping, found {}",
                crate::object::json_type(s)
            ));
        }
        let version = match s.get("version") {
            Some(Value::Number(n)) if n.as_u64().is_some_and(|v| v > 0) => {
                n.as_u64().unwrap_or_default()
            }
            other => {
                return Err(format!(
                    "status.history[{i}].version: expected a positive integer, found {}",
                    other.map(crate::object::json_type).unwrap_or("nothing")
                ))
            }
        };
        let r = Release {
            name: text("name")?,
            namespace: text("namespace")?,
            version,
            action: text("action")?,
            status: text("status")?,
            chart_name: text("chartName")?,
            chart_version: text("chartVersion")?,
        };
        if best.as_ref().is_none_or(|b| r.version > b.version) {
            best = Some(r);
        }
    }
    let storage = match hr.pointer("/status/storageNamespace") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(t)) => t.clone(),
        Some(other) => {
            return Err(format!(
                "status.storageNamespace: expected a string, found {}",
                crate::object::json_type(other)
            ))
        }
    };
    Ok(best.filter(|_| !storage.is_empty()).map(|r| (r, storage)))
}

/// The spec of the action that made `release` (`spec.install`, `spec.upgrade`,
/// `spec.rollback`; `spec.install` when no action is recorded).
fn action_spec<'v>(hr: &'v Value, release: &Release) -> Option<&'v Value> {
    let key = match release.action.as_str() {
        "upgrade" => "upgrade",
        "rollback" => "rollback",
        _ => "install",
    };
    hr.pointer(&format!("/spec/{key}"))
}

/// Explains the wait of the HelmRelease `hr` for its latest release `release`, whose objects
/// are `objects` (from [`storage::objects`]), over the live objects `live`, with kstatus's now
/// at `now_unix`. Errors: not a HelmRelease, a field of the wrong type (named), the `legacy`
/// wait strategy.
pub fn explain_release(
    hr: &Value,
    release: &Release,
    objects: &[Value],
    live: &[Value],
    now_unix: i64,
) -> Result<WaitExplanation, String> {
    explain_release_in(
        hr,
        release,
        objects,
        &crate::k8s::gvk::index_by_identity(live),
        now_unix,
    )
}

/// [`explain_release`] over live objects already indexed (`index_by_identity`): for a caller
/// that explains many HelmReleases among the same objects (a tree).
pub fn explain_release_in(
    hr: &Value,
    release: &Release,
    objects: &[Value],
    index: &crate::k8s::gvk::Index<'_>,
    now_unix: i64,
) -> Result<WaitExplanation, String> {
    let mut kz = parse(hr)?;
    if kz.kind != "HelmRelease" {
        return Err(format!("expected a HelmRelease, found {}", kz.kind));
    }
    let mapping = |v: Option<&Value>, path: &str| -> Result<(), String> {
        match v {
            None | Some(Value::Null) | Some(Value::Object(_)) => Ok(()),
            Some(other) => Err(format!(
                "{path}: expected a mapping, found {}",
                crate::object::json_type(other)
            )),
        }
    };
    mapping(hr.pointer("/spec/waitStrategy"), "spec.waitStrategy")?;
    for a in ["install", "upgrade", "rollback"] {
        mapping(hr.pointer(&format!("/spec/{a}")), &format!("spec.{a}"))?;
    }
    match hr.pointer("/spec/waitStrategy/name") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s == "poller" => {}
        Some(Value::String(s)) if s == "legacy" => {
            return Err("spec.waitStrategy.name: legacy (Helm's own wait) is not emulated; the poller strategy (helm-controller's default) is".into())
        }
        Some(other) => {
            return Err(format!(
                "spec.waitStrategy.name: expected poller or legacy, found {other}"
            ))
        }
    }
    let action = action_spec(hr, release);
    let flag = |f: &str| -> Result<bool, String> {
        match action.and_then(|a| a.get(f)) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(format!(
                "spec.{}.{f}: expected a boolean, found {}",
                if release.action.is_empty() {
                    "install"
                } else {
                    &release.action
                },
                crate::object::json_type(other)
            )),
        }
    };
    kz.wait = !flag("disableWait")?;
    kz.waits_for_jobs = !flag("disableWaitForJobs")?;
    let action_name = if release.action.is_empty() {
        "install"
    } else {
        release.action.as_str()
    };
    let timeout = match duration_at(
        action.and_then(|a| a.get("timeout")),
        &format!("spec.{action_name}.timeout"),
    )? {
        Some(t) => t,
        None => duration_at(hr.pointer("/spec/timeout"), "spec.timeout")?
            .unwrap_or(Duration::from_secs(300)),
    };
    let covered = if kz.wait {
        Covered::Release
    } else {
        Covered::Nothing
    };
    let wanted = || -> Result<Vec<Wanted>, String> {
        Ok(objects
            .iter()
            .filter(|o| !paused_deployment(o))
            .map(|o| {
                (
                    gvk_of(o).group.to_string(),
                    str_at(o, "/kind").to_string(),
                    str_at(o, "/metadata/namespace").to_string(),
                    str_at(o, "/metadata/name").to_string(),
                )
            })
            .collect())
    };
    judge(&kz, covered, timeout, wanted, index, now_unix, Words::Ssa)
}

/// A `metav1.Duration` field of a HelmRelease: absent is None; a value that is not a string
/// matching the CRD's pattern `^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$` is an error (the API server
/// refuses it).
fn duration_at(v: Option<&Value>, path: &str) -> Result<Option<Duration>, String> {
    let text = match v {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(t)) => t,
        Some(other) => {
            return Err(format!(
                "{path}: expected a duration such as 5m or 1h30m, found {}",
                crate::object::json_type(other)
            ))
        }
    };
    let bad = || {
        format!("{path}: {text:?} is not a duration of ms, s, m and h (the API server refuses it)")
    };
    let b = text.as_bytes();
    let mut i = 0;
    if b.is_empty() {
        return Err(bad());
    }
    while i < b.len() {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return Err(bad());
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let frac = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == frac {
                return Err(bad());
            }
        }
        if b[i..].starts_with(b"ms") {
            i += 2;
        } else if i < b.len() && matches!(b[i], b's' | b'm' | b'h') {
            i += 1;
        } else {
            return Err(bad());
        }
    }
    parse_go_duration(text).map(Some).ok_or_else(bad)
}

/// An `apps/v1` Deployment whose `spec.paused` is true in the release: helm-controller's wait
/// skips it.
fn paused_deployment(o: &Value) -> bool {
    str_at(o, "/apiVersion") == "apps/v1"
        && str_at(o, "/kind") == "Deployment"
        && o.pointer("/spec/paused").and_then(Value::as_bool) == Some(true)
}

#[cfg(test)]
mod tests;
