//! The report of a Flux Kustomization's wait (`explain kustomization/NAME`), or a HelmRelease's
//! (`explain helmrelease/NAME`): what the wait comes to (`crate::flux::wait_set`,
//! `crate::flux::helm_release`), what it covers, the timeout and the text Flux would print, then
//! the objects not Current, worst first, each with its status, reader and message; the Current
//! ones only counted. Pure: rows and data out.

use super::{Report, Rows, Tone};
use crate::flux::wait_set::{Covered, Overall, WaitExplanation, Waited};
use crate::flux::KStatus;
use crate::k8s::duration::go_duration;
use serde_json::{json, Value};
use std::time::Duration;

fn status_tone(s: KStatus) -> Tone {
    match s {
        KStatus::Current => Tone::Good,
        KStatus::Failed | KStatus::Unknown => Tone::Bad,
        _ => Tone::Pending,
    }
}

/// `Kind/namespace/name` as ssa names it (`Kind/name` without a namespace).
fn id(w: &Waited) -> String {
    if w.namespace.is_empty() {
        format!("{}/{}", w.kind, w.name)
    } else {
        format!("{}/{}/{}", w.kind, w.namespace, w.name)
    }
}

/// The report: `k` is the Kustomization (or HelmRelease) object, `wait` its wait from
/// [`crate::flux::wait_set::explain_wait`] (or [`crate::flux::helm_release::explain_release`]).
/// Data: `{"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "KustomizationExplanation"
/// (or "HelmReleaseExplanation"), "object": {namespace, name}, "wait": {overall, covered,
/// timeout_seconds, message, objects: [every object, worst first]}}`.
pub fn kustomization_report(k: &Value, wait: &WaitExplanation) -> Report {
    let s = |p: &str| k.pointer(p).and_then(Value::as_str).unwrap_or("");
    let (ns, name) = (s("/metadata/namespace"), s("/metadata/name"));
    let helm = s("/kind") == "HelmRelease";
    let mut r = Rows(Vec::new());
    let full = if ns.is_empty() {
        name.to_string()
    } else {
        format!("{ns}/{name}")
    };
    r.add(
        0,
        if helm { "HelmRelease" } else { "Kustomization" },
        full,
        Tone::Plain,
    );
    let timeout = go_duration(Duration::from_secs(wait.timeout_seconds));
    let (word, tone) = match wait.overall {
        Overall::NotChecked if helm => (
            "not checked: the release's action does not wait (disableWait), or it applied nothing"
                .to_string(),
            Tone::Plain,
        ),
        Overall::NotChecked => (
            "not checked: neither spec.wait nor spec.healthChecks".to_string(),
            Tone::Plain,
        ),
        Overall::Ready => (
            "Ready: every object it waits for is Current".to_string(),
            Tone::Good,
        ),
        Overall::WouldFail => (
            "would fail: a Failed object ends the wait at the first poll".to_string(),
            Tone::Bad,
        ),
        Overall::WouldTimeOut => (
            format!("would time out after {timeout}: not every object is Current and none Failed"),
            Tone::Pending,
        ),
        Overall::Stalled => (
            "Stalled: its healthCheckExprs do not compile".to_string(),
            Tone::Bad,
        ),
    };
    r.add(0, "Wait", word, tone);
    let covers = match wait.covered {
        Covered::Inventory => "every object of status.inventory (spec.wait)",
        Covered::ObjectsGiven => {
            "every object given (spec.wait; no status.inventory, so the files stand for what it applies)"
        }
        Covered::HealthChecks => "spec.healthChecks only (no spec.wait)",
        Covered::Nothing => "nothing",
        Covered::Release => "every object of the latest Helm release (paused Deployments left out)",
    };
    r.add(
        1,
        "Waits for",
        format!("{covers}: {} objects", wait.objects.len()),
        Tone::Plain,
    );
    r.add(1, "Timeout", timeout.clone(), Tone::Plain);
    if !wait.message.is_empty() {
        // helm-controller puts the wait's error into its failed action's message.
        let label = if helm {
            "The wait fails"
        } else {
            "Flux prints"
        };
        r.add(1, label, wait.message.clone(), tone);
    }
    let shown: Vec<&Waited> = wait
        .objects
        .iter()
        .filter(|w| w.status != KStatus::Current)
        .collect();
    if !wait.objects.is_empty() {
        if shown.is_empty() {
            r.add(0, "Not Current", "none", Tone::Good);
        } else {
            r.add(0, "Not Current", "", Tone::Plain);
        }
    }
    for w in &shown {
        let mut value = w.status.as_str().to_string();
        let detail = w.error.as_deref().unwrap_or(&w.message);
        if !detail.is_empty() {
            value = format!("{value}: {detail}");
        }
        r.add(1, &id(w), value, status_tone(w.status));
        let mut line = format!("reader: {}", w.reader);
        if w.deciding {
            line.push_str("; named in what Flux prints");
        }
        r.add(1, "", line, Tone::Plain);
    }
    let current = wait.objects.len() - shown.len();
    if current > 0 && !shown.is_empty() {
        r.add(
            1,
            "",
            format!("{current} more Current (-o yaml lists every object)"),
            Tone::Good,
        );
    }
    let data = json!({
        "apiVersion": "pacto.trianalab.io/v1alpha1",
        "kind": if helm { "HelmReleaseExplanation" } else { "KustomizationExplanation" },
        "object": {"namespace": ns, "name": name},
        "wait": wait,
    });
    Report {
        rows: r.0,
        data,
        notes: Vec::new(),
    }
}

/// The report of a HelmRelease's wait: [`kustomization_report`] with the release it is for
/// (`Release: NAMESPACE/NAME vVERSION (ACTION, Helm status STATUS, chart CHART@VERSION)`) after
/// the first row, and `release` (name, namespace, version, action, status, chart_name,
/// chart_version) in the data.
pub fn helm_release_report(
    hr: &Value,
    release: &crate::flux::helm_release::Release,
    wait: &WaitExplanation,
) -> Report {
    let mut report = kustomization_report(hr, wait);
    let mut what = format!(
        "{}/{} v{}",
        release.namespace, release.name, release.version
    );
    let mut about: Vec<String> = Vec::new();
    if !release.action.is_empty() {
        about.push(release.action.clone());
    }
    if !release.status.is_empty() {
        about.push(format!("Helm status {}", release.status));
    }
    if !release.chart_name.is_empty() {
        about.push(format!(
            "chart {}@{}",
            release.chart_name, release.chart_version
        ));
    }
    if !about.is_empty() {
        what = format!("{what} ({})", about.join(", "));
    }
    report.rows.insert(
        1,
        super::Row {
            indent: 1,
            key: "Release".into(),
            value: what,
            tone: Tone::Plain,
        },
    );
    report.data["release"] = json!(release);
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flux::wait_set::explain_wait;

    /// A wait that would time out on one Pacto names it, its reader and what Flux prints.
    #[test]
    fn a_timeout_names_the_object_and_the_text() {
        let k = json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": "apps", "namespace": "flux-system"},
            "spec": {"wait": true, "timeout": "2m", "healthCheckExprs": [{
                "apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
                "current": "status.contractStatus == 'Compliant'"}]},
            "status": {"inventory": {"entries": [
                {"id": "shop_orders_pacto.trianalab.io_Pacto", "v": "v1alpha1"},
                {"id": "shop_billing_pacto.trianalab.io_Pacto", "v": "v1alpha1"}]}}});
        let pacto = |name: &str, status: &str| {
            json!({"apiVersion": "pacto.trianalab.io/v1alpha1",
            "kind": "Pacto", "metadata": {"name": name, "namespace": "shop"},
            "status": {"contractStatus": status}})
        };
        let live = vec![pacto("orders", "Compliant"), pacto("billing", "Pending")];
        let w = explain_wait(&k, &live, 0).unwrap();
        let r = kustomization_report(&k, &w);
        let rows = super::super::testing::triples(&r.rows);
        assert_eq!(
            rows,
            vec![
                (0, "Kustomization", "flux-system/apps"),
                (0, "Wait", "would time out after 2m0s: not every object is Current and none Failed"),
                (1, "Waits for", "every object of status.inventory (spec.wait): 2 objects"),
                (1, "Timeout", "2m0s"),
                (1, "Flux prints", "health check failed after 2m0s: timeout waiting for: [Pacto/shop/billing status: 'InProgress']"),
                (0, "Not Current", ""),
                (1, "Pacto/shop/billing", "InProgress"),
                (1, "", "reader: healthCheckExprs[0]; named in what Flux prints"),
                (1, "", "1 more Current (-o yaml lists every object)"),
            ]
        );
        assert_eq!(r.data["wait"]["overall"], json!("WouldTimeOut"));
    }
}
