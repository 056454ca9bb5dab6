//! Which objects a Kustomization's health check waits for, each judged by Flux's readers, and
//! what the wait makes of them: kustomize-controller `internal/controller/kustomization_controller.go`
//! (`checkHealth`: `spec.wait` waits for every applied object but the Kustomization itself, else
//! `spec.healthChecks` only; `GetTimeout`) and fluxcd/pkg `ssa/manager_wait.go`
//! (`WaitForSetWithContext`: a Failed object ends the wait, every object Current or Failed ends
//! it, else the timeout; the text it prints), at the commits docs/upstream.md names.
//!
//! Pure logic: the applied objects stand for `status.inventory.entries` (the objects of the last
//! apply), looked up among the live objects given.

use super::health::{FluxHealth, FluxSource};
use super::kustomization::{parse, Kustomization};
use super::wait::{self, Checked, WaitVerdict};
use super::KStatus;
use crate::k8s::gvk::{index_by_identity, str_at, Index};
use serde::Serialize;
use serde_json::Value;

/// One `status.inventory.entries[]` entry: `id` is `<namespace>_<name>_<group>_<kind>` (fluxcd/pkg
/// `ssa/utils` / cli-utils `ObjMetadata.String`), `v` the version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InventoryEntry {
    pub namespace: String,
    pub name: String,
    pub group: String,
    pub kind: String,
    pub version: String,
}

/// Reads `status.inventory.entries`: None when the Kustomization has no inventory. Each `id` is
/// parsed as fluxcd/cli-utils `pkg/object/objmetadata.go` `ParseObjMetadata` parses it (which
/// kustomize-controller's inventory reads with): the namespace up to the first `_`, the kind
/// after the last, the group before that, the name between them with `__` read back as `:`
/// (`system__controller` is `system:controller`). Errors: `status.inventory` not a mapping,
/// `entries` not a list, an entry without a string `id`, an `id` with fewer than three `_`, a
/// `v` that is not a string (named by index).
pub fn inventory(k: &Value) -> Result<Option<Vec<InventoryEntry>>, String> {
    match k.pointer("/status/inventory") {
        None | Some(Value::Null) | Some(Value::Object(_)) => {}
        Some(other) => {
            return Err(format!(
                "status.inventory: expected a mapping, found {}",
                crate::object::json_type(other)
            ))
        }
    }
    let entries = match k.pointer("/status/inventory/entries") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(a)) => a,
        Some(_) => return Err("status.inventory.entries: not a list".into()),
    };
    let mut out = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let id = e
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("status.inventory.entries[{i}].id: expected a string"))?;
        let bad = || {
            format!(
                "status.inventory.entries[{i}].id: {id:?} is not <namespace>_<name>_<group>_<kind>"
            )
        };
        let (namespace, rest) = id.split_once('_').ok_or_else(bad)?;
        let (rest, kind) = rest.rsplit_once('_').ok_or_else(bad)?;
        let (name, group) = rest.rsplit_once('_').ok_or_else(bad)?;
        let version = match e.get("v") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(v)) => v.clone(),
            Some(other) => {
                return Err(format!(
                    "status.inventory.entries[{i}].v: expected a string, found {}",
                    crate::object::json_type(other)
                ))
            }
        };
        out.push(InventoryEntry {
            namespace: namespace.to_string(),
            name: name.replace("__", ":"),
            group: group.to_string(),
            kind: kind.to_string(),
            version,
        });
    }
    Ok(Some(out))
}

/// The objects whose live state [`explain_wait`] needs: the inventory's with `spec.wait`, else
/// those `spec.healthChecks` names (group and version from their `apiVersion`). Errors: as
/// [`parse`] and [`inventory`].
pub fn references(k: &Value) -> Result<Vec<InventoryEntry>, String> {
    let kz = parse(k)?;
    if kz.wait {
        return Ok(inventory(k)?.unwrap_or_default());
    }
    Ok(kz
        .health_checks
        .iter()
        .map(|r| {
            let (group, version) = r
                .api_version
                .split_once('/')
                .unwrap_or(("", r.api_version.as_str()));
            InventoryEntry {
                namespace: r.namespace.clone(),
                name: r.name.clone(),
                group: group.to_string(),
                kind: r.kind.clone(),
                version: version.to_string(),
            }
        })
        .collect())
}

/// Which objects the wait covers, as this module found them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Covered {
    /// `spec.wait`: every object of `status.inventory`.
    Inventory,
    /// `spec.wait` without a `status.inventory` (never applied): the objects given stand for
    /// what it applies.
    ObjectsGiven,
    /// `spec.healthChecks` only.
    HealthChecks,
    /// Neither: nothing is checked.
    Nothing,
    /// A HelmRelease: the objects of its latest Helm release (helm-controller waits for what
    /// the release applied, paused Deployments left out).
    Release,
}

/// One object the wait covers, judged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Waited {
    pub group: String,
    pub kind: String,
    /// Empty for cluster-scoped objects.
    pub namespace: String,
    pub name: String,
    pub status: KStatus,
    /// Which reader judged it: `healthCheckExprs[i]`, `job-reader`, `kstatus`; `none` when the
    /// object was not found.
    pub reader: String,
    /// kstatus's message (empty on the CEL path).
    pub message: String,
    /// The reader's error (the status is then Unknown).
    pub error: Option<String>,
    /// Whether it is named in the text Flux prints.
    pub deciding: bool,
}

/// What the wait comes to if the objects stay as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Overall {
    /// Nothing is waited for: the Healthy condition is deleted.
    NotChecked,
    /// Every object Current: `Healthy=True`.
    Ready,
    /// A Failed object ends the wait at the first poll.
    WouldFail,
    /// Not every object Current, none Failed: the wait runs out its timeout.
    WouldTimeOut,
    /// `healthCheckExprs` do not compile: Stalled with `InvalidCELExpression`, nothing applied.
    Stalled,
}

impl Overall {
    /// `NotChecked`, `Ready`, `WouldFail`, `WouldTimeOut`, `Stalled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Overall::NotChecked => "NotChecked",
            Overall::Ready => "Ready",
            Overall::WouldFail => "WouldFail",
            Overall::WouldTimeOut => "WouldTimeOut",
            Overall::Stalled => "Stalled",
        }
    }
}

/// The wait explained.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WaitExplanation {
    pub overall: Overall,
    pub covered: Covered,
    /// kustomize-controller `GetTimeout`, in seconds.
    pub timeout_seconds: u64,
    /// The Ready message Flux would write (`health check failed after <d>: ...`), or the
    /// terminal configuration error; empty when it passes or checks nothing.
    pub message: String,
    /// The objects covered, worst first (Failed, Unknown, then the other statuses not Current,
    /// then Current); ties keep the inventory's (or `spec.healthChecks`') order.
    pub objects: Vec<Waited>,
}

/// How bad a status is for the wait: Failed ends it, Unknown (a reader error) and the rest hold
/// it, Current passes.
fn badness(s: KStatus) -> u8 {
    match s {
        KStatus::Failed => 0,
        KStatus::Unknown => 1,
        KStatus::InProgress | KStatus::Terminating | KStatus::NotFound => 2,
        KStatus::Current => 3,
    }
}

/// (group, kind, namespace, name) of an object a wait covers.
pub(crate) type Wanted = (String, String, String, String);

/// How the wait's outcome is worded: as kustomize-controller's Ready message (`health check
/// failed after <d>: ...`), or as fluxcd/pkg ssa's own error (`timeout waiting for: [...]`,
/// `failed early due to stalled resources: [...]`), which helm-controller's failed action
/// carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Words {
    Kustomization,
    Ssa,
}

/// Explains the wait of the Kustomization `k` over the live objects `live` (the Kustomization
/// itself may be among them), with kstatus's now at `now_unix`. Errors: `k` is not a Flux
/// Kustomization or HelmRelease, a field of the wrong type, a malformed inventory.
pub fn explain_wait(k: &Value, live: &[Value], now_unix: i64) -> Result<WaitExplanation, String> {
    explain_wait_in(k, live, &index_by_identity(live), now_unix)
}

/// [`explain_wait`] over live objects already indexed (`index` is `index_by_identity(live)`):
/// for a caller that explains many Kustomizations among the same objects (a tree).
pub fn explain_wait_in(
    k: &Value,
    live: &[Value],
    index: &Index<'_>,
    now_unix: i64,
) -> Result<WaitExplanation, String> {
    let kz: Kustomization = parse(k)?;
    let timeout = wait::timeout(&kz);
    let covered = covered(&kz, k);
    let wanted = || -> Result<Vec<Wanted>, String> {
        Ok(match covered {
            Covered::Nothing | Covered::Release => Vec::new(),
            Covered::Inventory => inventory(k)?
                .unwrap_or_default()
                .into_iter()
                .map(|e| (e.group, e.kind, e.namespace, e.name))
                .collect(),
            Covered::ObjectsGiven => live
                .iter()
                .map(|o| {
                    (
                        crate::k8s::gvk_of(o).group.to_string(),
                        str_at(o, "/kind").to_string(),
                        str_at(o, "/metadata/namespace").to_string(),
                        str_at(o, "/metadata/name").to_string(),
                    )
                })
                .collect(),
            Covered::HealthChecks => kz
                .health_checks
                .iter()
                .map(|r| {
                    let g = r.api_version.split_once('/').map(|(g, _)| g).unwrap_or("");
                    (
                        g.to_string(),
                        r.kind.clone(),
                        r.namespace.clone(),
                        r.name.clone(),
                    )
                })
                .collect(),
        })
    };
    judge(
        &kz,
        covered,
        timeout,
        wanted,
        index,
        now_unix,
        Words::Kustomization,
    )
}

/// The wait of `kz` over the objects `wanted` gives (asked for only when the expressions
/// compile), looked up in `index` (the live objects) and judged by `kz`'s readers; `timeout` is
/// the wait's.
pub(crate) fn judge(
    kz: &Kustomization,
    covered: Covered,
    timeout: std::time::Duration,
    wanted: impl FnOnce() -> Result<Vec<Wanted>, String>,
    by_id: &Index<'_>,
    now_unix: i64,
    words: Words,
) -> Result<WaitExplanation, String> {
    let timeout_seconds = timeout.as_secs();
    let engine = match FluxHealth::new(&kz.exprs, kz.job_order(), now_unix) {
        Ok(e) => e,
        Err(e) => {
            return Ok(WaitExplanation {
                overall: Overall::Stalled,
                covered,
                timeout_seconds,
                message: kz.invalid_cel_expression(&e),
                objects: Vec::new(),
            })
        }
    };
    let wanted = wanted()?;
    let mut objects: Vec<Waited> = Vec::with_capacity(wanted.len());
    for (group, kind, namespace, name) in wanted {
        // checkHealth drops the Kustomization itself (by kind, name and namespace).
        if kz.kind == "Kustomization"
            && kind == "Kustomization"
            && name == kz.name
            && namespace == kz.namespace
        {
            continue;
        }
        let found = by_id
            .get(&(
                group.clone(),
                kind.as_str(),
                namespace.as_str(),
                name.as_str(),
            ))
            .copied();
        let w = match found {
            None => Waited {
                group,
                kind,
                namespace,
                name,
                status: KStatus::NotFound,
                reader: "none".into(),
                message: "not among the live objects given".into(),
                error: None,
                deciding: false,
            },
            Some(o) => {
                let v = engine.evaluate(o);
                let reader = match v.source {
                    FluxSource::HealthCheckExprs { index } => format!("healthCheckExprs[{index}]"),
                    other => other.name().to_string(),
                };
                Waited {
                    group,
                    kind,
                    namespace,
                    name,
                    status: v.status,
                    reader,
                    message: v.message,
                    error: v.error,
                    deciding: false,
                }
            }
        };
        objects.push(w);
    }
    let checked: Vec<Checked> = objects
        .iter()
        .map(|w| Checked {
            kind: w.kind.clone(),
            namespace: w.namespace.clone(),
            name: w.name.clone(),
            status: w.status,
            error: w.error.clone(),
        })
        .collect();
    let (overall, message) = if covered == Covered::Nothing || checked.is_empty() {
        // checkHealth deletes the Healthy condition when there is nothing to check.
        (Overall::NotChecked, String::new())
    } else if words == Words::Ssa {
        match wait::ssa_verdict(&checked, timeout) {
            WaitVerdict::NotChecked => (Overall::NotChecked, String::new()),
            WaitVerdict::Passes => (Overall::Ready, String::new()),
            WaitVerdict::FailsEarly { message } => (Overall::WouldFail, message),
            WaitVerdict::TimesOut { message, .. } => (Overall::WouldTimeOut, message),
        }
    } else {
        match wait::verdict(kz, &checked) {
            WaitVerdict::NotChecked => (Overall::NotChecked, String::new()),
            WaitVerdict::Passes => (Overall::Ready, String::new()),
            WaitVerdict::FailsEarly { message } => (Overall::WouldFail, message),
            WaitVerdict::TimesOut { message, .. } => (Overall::WouldTimeOut, message),
        }
    };
    for w in objects.iter_mut() {
        w.deciding = match overall {
            Overall::WouldFail => w.status == KStatus::Failed,
            Overall::WouldTimeOut => w.status != KStatus::Current,
            _ => false,
        };
    }
    objects.sort_by_key(|w| badness(w.status));
    Ok(WaitExplanation {
        overall,
        covered,
        timeout_seconds,
        message,
        objects,
    })
}

fn covered(kz: &Kustomization, k: &Value) -> Covered {
    if kz.wait {
        match k.pointer("/status/inventory") {
            Some(v) if !v.is_null() => Covered::Inventory,
            _ => Covered::ObjectsGiven,
        }
    } else if !kz.health_checks.is_empty() {
        Covered::HealthChecks
    } else {
        Covered::Nothing
    }
}

#[cfg(test)]
mod tests;
