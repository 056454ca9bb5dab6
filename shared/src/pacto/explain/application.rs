//! The report of an Argo CD Application's health (`explain application/NAME`): the health the
//! controller computes and the causes it names (`crate::argo::app_health`), then the resources
//! that are not Healthy, worst first, each with its health, message and the rule that judged
//! it; the Healthy, hook and health-less ones only counted. Pure: rows and data out.

use super::{Report, Rows, Tone};
use crate::argo::app_health::{AppHealth, Counted, Judged};
use serde_json::{json, Value};

/// The tone of an Argo CD health code: Healthy good, Degraded and Unknown bad, the rest pending.
pub fn health_tone(code: &str) -> Tone {
    match code {
        "Healthy" => Tone::Good,
        "Degraded" | "Unknown" => Tone::Bad,
        _ => Tone::Pending,
    }
}

/// `group/Kind:namespace/name` as the controller names a cause (`Kind` without a group, `name`
/// without a namespace).
fn id(j: &Judged) -> String {
    let gk = if j.group.is_empty() {
        j.kind.clone()
    } else {
        format!("{}/{}", j.group, j.kind)
    };
    if j.namespace.is_empty() {
        format!("{gk}:{}", j.name)
    } else {
        format!("{gk}:{}/{}", j.namespace, j.name)
    }
}

/// Whether the text lists the resource: it counts and is not Healthy (or is a cause, or its
/// check failed).
fn listed(j: &Judged) -> bool {
    let unhealthy = j
        .health
        .as_ref()
        .is_some_and(|h| h.status != "Healthy" && !h.status.is_empty());
    j.cause || j.error.is_some() || (j.counted == Counted::Counted && unhealthy)
}

/// The report: `app` is the Application object, `health` its health from
/// [`crate::argo::app_health::app_health`], `judged_by` where the health configuration came
/// from (an argocd-cm file, the recommended gate). Data: `{"apiVersion":
/// "pacto.trianalab.io/v1alpha1", "kind": "ApplicationExplanation", "object": {namespace, name},
/// "judgedBy", "health": {status, message, error, resources: [every resource, worst first]}}`.
pub fn application_report(app: &Value, health: &AppHealth, judged_by: &str) -> Report {
    let s = |p: &str| app.pointer(p).and_then(Value::as_str).unwrap_or("");
    let (ns, name) = (s("/metadata/namespace"), s("/metadata/name"));
    let mut r = Rows(Vec::new());
    let full = if ns.is_empty() {
        name.to_string()
    } else {
        format!("{ns}/{name}")
    };
    r.add(0, "Application", full, Tone::Plain);
    r.add(
        0,
        "Health",
        health.status.clone(),
        health_tone(&health.status),
    );
    if !health.message.is_empty() {
        r.add(1, "Message", health.message.clone(), Tone::Plain);
    }
    let recorded = s("/status/health/status");
    if !recorded.is_empty() && recorded != health.status {
        r.add(
            1,
            "Recorded",
            format!("{recorded} (status.health of the object given)"),
            Tone::Warn,
        );
    }
    if let Some(e) = &health.error {
        r.add(1, "Error", e.clone(), Tone::Bad);
    }
    r.add(1, "Judged by", judged_by, Tone::Plain);
    let n = |c: Counted| health.resources.iter().filter(|j| j.counted == c).count();
    let counted = n(Counted::Counted);
    let mut out_of = vec![format!(
        "{counted} of {} resources count",
        health.resources.len()
    )];
    for (c, one, many) in [
        (Counted::NoHealth, "without health", "without health"),
        (Counted::Hook, "hook", "hooks"),
        (Counted::MissingNotLive, "not live", "not live"),
        (
            Counted::IgnoreHealthcheck,
            "ignore-healthcheck",
            "ignore-healthcheck",
        ),
        (
            Counted::ChildApplication,
            "child Application Missing or Unknown",
            "child Applications Missing or Unknown",
        ),
        (
            Counted::SelfReference,
            "the Application itself",
            "the Application itself",
        ),
    ] {
        match n(c) {
            0 => {}
            1 => out_of.push(format!("1 {one}")),
            k => out_of.push(format!("{k} {many}")),
        }
    }
    r.add(1, "Resources", out_of.join(", "), Tone::Plain);
    let shown: Vec<&Judged> = health.resources.iter().filter(|j| listed(j)).collect();
    if shown.is_empty() {
        r.add(0, "Not healthy", "none", Tone::Good);
    } else {
        r.add(0, "Not healthy", "", Tone::Plain);
        for j in &shown {
            let h = j.health.as_ref();
            let code = h.map(|h| h.status.as_str()).unwrap_or("<none>");
            let mut value = code.to_string();
            if let Some(m) = h.map(|h| h.message.as_str()).filter(|m| !m.is_empty()) {
                value = format!("{value}: {m}");
            }
            r.add(1, &id(j), value, health_tone(code));
            let mut rule = format!("rule: {}", j.rule.describe());
            if j.cause {
                rule.push_str("; decides the Application's health");
            } else if j.counted != Counted::Counted {
                rule.push_str(&format!("; not counted: {}", j.counted.reason()));
            }
            r.add(1, "", rule, Tone::Plain);
        }
    }
    let healthy = health
        .resources
        .iter()
        .filter(|j| j.counted == Counted::Counted && !listed(j))
        .count();
    if healthy > 0 {
        r.add(
            1,
            "",
            format!("{healthy} more Healthy (-o yaml lists every resource)"),
            Tone::Good,
        );
    }
    let data = json!({
        "apiVersion": "pacto.trianalab.io/v1alpha1",
        "kind": "ApplicationExplanation",
        "object": {"namespace": ns, "name": name},
        "judgedBy": judged_by,
        "health": health,
    });
    Report {
        rows: r.0,
        data,
        notes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::argo::app_health::{app_health, resources};
    use crate::argo::health::ArgoHealth;
    use crate::argo::settings::parse_configmap;

    /// The Degraded resource comes first with its rule and message; the Healthy ones are counted.
    #[test]
    fn the_degraded_resource_first_with_its_key() {
        let cm = json!({"kind": "ConfigMap", "data": {
            "resource.customizations.health.example.io_Widget":
                "if obj.status.ok then return {status='Healthy'} end return {status='Degraded', message='broken: ' .. obj.metadata.name}"}});
        let engine = ArgoHealth::new(parse_configmap(&cm).unwrap(), None, 0);
        let mut entries = Vec::new();
        let mut live = Vec::new();
        for i in 0..5 {
            entries.push(json!({"group": "example.io", "version": "v1", "kind": "Widget", "namespace": "shop", "name": format!("w{i}")}));
            live.push(json!({"apiVersion": "example.io/v1", "kind": "Widget", "metadata": {"name": format!("w{i}"), "namespace": "shop"}, "status": {"ok": i != 3}}));
        }
        let app = json!({"kind": "Application", "metadata": {"name": "shop", "namespace": "argocd"}, "status": {"resources": entries}});
        let h = app_health(&app, &resources(&app, &live).unwrap(), &engine);
        let r = application_report(&app, &h, "argocd-cm test");
        let text = super::super::testing::triples(&r.rows);
        assert_eq!(
            text,
            vec![
                (0, "Application", "argocd/shop"),
                (0, "Health", "Degraded"),
                (1, "Message", "Caused by example.io/Widget:shop/w3"),
                (1, "Judged by", "argocd-cm test"),
                (1, "Resources", "5 of 5 resources count"),
                (0, "Not healthy", ""),
                (1, "example.io/Widget:shop/w3", "Degraded: broken: w3"),
                (1, "", "rule: argocd-cm resource.customizations.health.example.io_Widget (override example.io/Widget); decides the Application's health"),
                (1, "", "4 more Healthy (-o yaml lists every resource)"),
            ]
        );
        assert_eq!(r.data["health"]["status"], json!("Degraded"));
        assert_eq!(r.data["health"]["resources"][0]["name"], json!("w3"));
    }
}
