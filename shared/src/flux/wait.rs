//! What a Kustomization's wait makes of its objects' statuses: fluxcd/pkg `ssa/manager_wait.go`
//! (`WaitForSetWithContext`: aggregation, fail-fast, the error text) and kustomize-controller
//! (`checkHealth`, `GetTimeout`, the `health check failed after <d>: ...` message).

use super::health::FluxVerdict;
use super::kustomization::{Kustomization, ObjectRef};
use super::KStatus;
use crate::object::K8sObject;
use std::time::Duration;

use crate::k8s::duration::{go_duration, parse_go_duration};

/// One checked object and what its reader concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub kind: String,
    /// Empty for cluster-scoped objects.
    pub namespace: String,
    pub name: String,
    pub status: KStatus,
    /// The reader's error (a CEL evaluation error makes the status `Unknown`).
    pub error: Option<String>,
}

impl Checked {
    /// ssa `FmtObjMetadata`: `Kind/namespace/name`, or `Kind/name` without a namespace.
    pub fn id(&self) -> String {
        if self.namespace.is_empty() {
            format!("{}/{}", self.kind, self.name)
        } else {
            format!("{}/{}/{}", self.kind, self.namespace, self.name)
        }
    }

    /// One entry of the ssa error list: `<id> status: '<Status>'` plus `: <error>`.
    pub fn entry(&self) -> String {
        let mut s = format!("{} status: '{}'", self.id(), self.status.as_str());
        if let Some(e) = &self.error {
            s.push_str(": ");
            s.push_str(e);
        }
        s
    }
}

/// What the Kustomization does with these statuses if they stay as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitVerdict {
    /// Neither `spec.wait` nor `spec.healthChecks`: nothing is checked, nothing is held.
    NotChecked,
    /// Every object is Current: `Healthy=True`, the rollout goes on.
    Passes,
    /// A Failed object with fail-fast: `Ready=False` / `HealthCheckFailed` at the first poll.
    FailsEarly { message: String },
    /// Not every object Current and none Failed: the wait runs for the whole timeout, then
    /// `Ready=False` / `HealthCheckFailed` with this message.
    TimesOut { timeout: Duration, message: String },
}

/// The objects a Kustomization's health check covers, with their readers' verdicts
/// (kustomize-controller `checkHealth`): with `spec.wait` every object it applies but itself;
/// otherwise those named in `spec.healthChecks`, a missing one counting as NotFound.
/// `objects` stand for what it applies; `verdicts[i]` is the reader's verdict on `objects[i]`.
pub fn checked(k: &Kustomization, objects: &[K8sObject], verdicts: &[FluxVerdict]) -> Vec<Checked> {
    let entry = |o: &K8sObject, v: &FluxVerdict| Checked {
        kind: o.kind().to_string(),
        namespace: o.namespace().to_string(),
        name: o.name().to_string(),
        status: v.status,
        error: v.error.clone(),
    };
    let is_self =
        |o: &K8sObject| o.kind() == k.kind && o.name() == k.name && o.namespace() == k.namespace;
    if k.wait {
        return objects
            .iter()
            .zip(verdicts)
            .filter(|(o, _)| !is_self(o))
            .map(|(o, v)| entry(o, v))
            .collect();
    }
    k.health_checks
        .iter()
        .map(|r| {
            let found = objects.iter().zip(verdicts).find(|(o, _)| {
                let gvk = o.gvk();
                listed(r, o.namespace(), o.name(), &gvk.group, &gvk.kind)
            });
            match found {
                Some((o, v)) => entry(o, v),
                None => Checked {
                    kind: r.kind.clone(),
                    namespace: r.namespace.clone(),
                    name: r.name.clone(),
                    status: KStatus::NotFound,
                    error: None,
                },
            }
        })
        .collect()
}

/// Whether a Kustomization's health check waits for the object: `spec.wait`, or the object is
/// listed in `spec.healthChecks` (kustomize-controller `checkHealth`).
pub fn waits_for(k: &Kustomization, namespace: &str, name: &str, group: &str, kind: &str) -> bool {
    k.wait
        || k.health_checks
            .iter()
            .any(|r| listed(r, namespace, name, group, kind))
}

/// Whether a `spec.healthChecks` reference names the object (its group taken from
/// `apiVersion`, the version ignored, as `schema.FromAPIVersionAndKind` keeps only the group).
fn listed(r: &ObjectRef, namespace: &str, name: &str, group: &str, kind: &str) -> bool {
    let g = r.api_version.split_once('/').map(|(g, _)| g).unwrap_or("");
    g == group && r.kind == kind && r.name == name && r.namespace == namespace
}

/// ssa aggregation: any Failed → Failed; else any Unknown → Unknown; else all Current → Current;
/// else InProgress. An empty set is Current.
pub fn aggregate(objects: &[Checked]) -> KStatus {
    if objects.iter().any(|o| o.status == KStatus::Failed) {
        KStatus::Failed
    } else if objects.iter().any(|o| o.status == KStatus::Unknown) {
        KStatus::Unknown
    } else if objects.iter().all(|o| o.status == KStatus::Current) {
        KStatus::Current
    } else {
        KStatus::InProgress
    }
}

/// The wait verdict for a Kustomization over the statuses of its checked objects, assuming they
/// do not change (fail-fast on, as by default). Objects are listed in the order given; Flux lists
/// them in Go map order, which varies.
pub fn verdict(k: &Kustomization, objects: &[Checked]) -> WaitVerdict {
    if !k.wait && k.health_checks.is_empty() {
        return WaitVerdict::NotChecked;
    }
    // kustomize-controller wraps ssa's error as `health check failed after <d>: <error>`.
    match ssa_verdict(objects, timeout(k)) {
        WaitVerdict::FailsEarly { message } => WaitVerdict::FailsEarly {
            message: early_failure_message(&message),
        },
        WaitVerdict::TimesOut { timeout, message } => WaitVerdict::TimesOut {
            timeout,
            message: format!(
                "health check failed after {}: {message}",
                go_duration(timeout)
            ),
        },
        other => other,
    }
}

/// The verdict of fluxcd/pkg ssa `WaitForSetWithContext` itself (fail-fast on) over the
/// statuses of the objects, assuming they do not change, in ssa's own words: any Failed ends it
/// (`failed early due to stalled resources: [...]`), all Current passes, else it runs out the
/// `timeout` (`timeout waiting for: [...]`). helm-controller's waits (`internal/action/wait.go`,
/// `Wait` and `WaitWithJobs`, fail-fast) return this error to the Helm action.
pub fn ssa_verdict(objects: &[Checked], timeout: Duration) -> WaitVerdict {
    let failed: Vec<String> = objects
        .iter()
        .filter(|o| o.status == KStatus::Failed)
        .map(Checked::entry)
        .collect();
    if !failed.is_empty() {
        return WaitVerdict::FailsEarly {
            message: fails_early_message(&failed),
        };
    }
    if aggregate(objects) == KStatus::Current {
        return WaitVerdict::Passes;
    }
    let waiting: Vec<String> = objects
        .iter()
        .filter(|o| o.status != KStatus::Current)
        .map(Checked::entry)
        .collect();
    WaitVerdict::TimesOut {
        timeout,
        message: format!("timeout waiting for: [{}]", waiting.join(", ")),
    }
}

/// ssa's fail-fast text: `failed early due to stalled resources: [<entries>]`.
pub fn fails_early_message(entries: &[String]) -> String {
    format!(
        "failed early due to stalled resources: [{}]",
        entries.join(", ")
    )
}

/// kustomize-controller's Ready message for a wait that failed early: ssa's fail-fast `error` under
/// the same `health check failed after <d>: ` prefix as the timeout's, since `checkHealth` wraps
/// every error of `WaitForSetWithContext` that way and `reconcile` puts the wrapped error on the
/// Ready condition (kustomize-controller `internal/controller/kustomization_controller.go`; only
/// the Healthy condition carries the bare text). `<d>` is the time Flux measured to the poll that
/// saw the Failed object; the first poll runs at once, so it is printed as `0s` (Flux shows a few
/// milliseconds).
fn early_failure_message(error: &str) -> String {
    format!(
        "health check failed after {}: {error}",
        go_duration(Duration::ZERO)
    )
}

/// kustomize-controller's health check failure after the timeout: `health check failed after
/// <d>: timeout waiting for: [<entries>]` (Flux prints the measured elapsed time, which is the
/// timeout plus a little).
pub fn timeout_message(timeout: Duration, entries: &[String]) -> String {
    format!(
        "health check failed after {}: timeout waiting for: [{}]",
        go_duration(timeout),
        entries.join(", ")
    )
}

/// kustomize-controller `GetTimeout`: `spec.timeout`, else `spec.interval` − 30 s, never below
/// 30 s. An unparsable duration counts as absent (the API server would have rejected it).
pub fn timeout(k: &Kustomization) -> Duration {
    let floor = Duration::from_secs(30);
    let d = match k.timeout.as_deref().and_then(parse_go_duration) {
        Some(t) => t,
        None => k
            .interval
            .as_deref()
            .and_then(parse_go_duration)
            .unwrap_or_default()
            .saturating_sub(floor),
    };
    d.max(floor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flux::kustomization::Kustomization;

    fn k(wait: bool, timeout: Option<&str>, interval: Option<&str>) -> Kustomization {
        Kustomization {
            kind: "Kustomization".into(),
            impersonates: false,
            name: "orders".into(),
            namespace: "flux-system".into(),
            wait,
            timeout: timeout.map(Into::into),
            interval: interval.map(Into::into),
            health_checks: Vec::new(),
            exprs: Vec::new(),
            waits_for_jobs: true,
        }
    }

    fn obj(kind: &str, ns: &str, name: &str, status: KStatus, error: Option<&str>) -> Checked {
        Checked {
            kind: kind.into(),
            namespace: ns.into(),
            name: name.into(),
            status,
            error: error.map(Into::into),
        }
    }

    /// kustomization_types.go GetTimeout: timeout, else interval - 30s, floor 30s.
    #[test]
    fn timeouts() {
        assert_eq!(
            timeout(&k(true, Some("5m"), Some("1m"))),
            Duration::from_secs(300)
        );
        assert_eq!(
            timeout(&k(true, None, Some("10m"))),
            Duration::from_secs(570)
        );
        assert_eq!(timeout(&k(true, None, Some("1m"))), Duration::from_secs(30));
        assert_eq!(
            timeout(&k(true, Some("10s"), None)),
            Duration::from_secs(30)
        );
    }

    /// manager_wait.go: fail-fast list, timeout list with errors, aggregation order.
    #[test]
    fn verdicts_and_messages() {
        let kz = k(true, Some("5m"), None);
        let objs = vec![
            obj("Pacto", "shop", "orders", KStatus::Current, None),
            obj("Pacto", "shop", "payments", KStatus::Failed, None),
            obj("Namespace", "", "shop", KStatus::Current, None),
        ];
        assert_eq!(
            verdict(&kz, &objs),
            WaitVerdict::FailsEarly {
                // kustomize-controller `checkHealth`: `fmt.Errorf("health check failed after
                // %s: %w", time.Since(checkStart).String(), err)` for the early failure too
                message: "health check failed after 0s: failed early due to stalled resources: \
                          [Pacto/shop/payments status: 'Failed']"
                    .into()
            }
        );
        let objs = vec![
            obj("Pacto", "shop", "orders", KStatus::Current, None),
            obj("ConfigMap", "shop", "cm", KStatus::Unknown, Some("failed to evaluate the CEL expression 'has(data.foo.bar)': no such attribute(s): data.foo.bar")),
            obj("Pacto", "shop", "billing", KStatus::InProgress, None),
        ];
        assert_eq!(aggregate(&objs), KStatus::Unknown);
        assert_eq!(
            verdict(&kz, &objs),
            WaitVerdict::TimesOut {
                timeout: Duration::from_secs(300),
                message: "health check failed after 5m0s: timeout waiting for: [ConfigMap/shop/cm status: 'Unknown': failed to evaluate the CEL expression 'has(data.foo.bar)': no such attribute(s): data.foo.bar, Pacto/shop/billing status: 'InProgress']".into()
            }
        );
        assert_eq!(verdict(&kz, &objs[..1]), WaitVerdict::Passes);
        assert_eq!(
            verdict(&k(false, None, None), &objs),
            WaitVerdict::NotChecked
        );
    }
}
