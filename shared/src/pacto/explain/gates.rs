//! What the gates decide in the `explain` report: the Argo CD rows (health, gate, rule, error),
//! the Flux rows of every Kustomization (verdict, gate, why, rule), a divergence between the two,
//! and the warning when no gate reads the verdict. The meanings follow gitops-engine
//! `pkg/sync/sync_context.go` (sync waves wait on a resource's health) and kustomize-controller's
//! wait (fluxcd/pkg `ssa/manager_wait.go`, kstatus when no `healthCheckExprs` entry matches).

use super::{Rows, Tone};
use crate::pacto::gate::{Decision, FluxDecision, GateWord, Source};
use crate::pacto::view::PactoView;
use serde_json::Value;

fn outcome_tone(o: GateWord) -> Tone {
    match o {
        GateWord::Pass => Tone::Good,
        GateWord::Hold => Tone::Pending,
        GateWord::Fail => Tone::Bad,
        GateWord::None => Tone::Warn,
    }
}

fn argo_meaning(o: GateWord, status: &str) -> String {
    // gitops-engine pkg/sync/sync_context.go: a synced resource is waited on only when later
    // sync waves (or hooks) follow; in the last wave the sync ends whatever its health.
    match o {
        GateWord::Pass => "a later sync wave goes on".to_string(),
        GateWord::Hold => format!(
            "a later sync wave waits for it; in the last wave the sync ends and the application shows {status}"
        ),
        GateWord::Fail => {
            "a sync with later waves fails here; in the last wave the application shows Degraded".to_string()
        }
        GateWord::None => {
            "Argo CD assesses no health: sync waves do not wait for it whatever the verdict".to_string()
        }
    }
}

pub(super) fn gates(r: &mut Rows, d: &Decision, obj: &Value) {
    let gvk = crate::k8s::gvk_of(obj);
    let gk = if gvk.group.is_empty() {
        gvk.kind.clone()
    } else {
        format!("{}/{}", gvk.group, gvk.kind)
    };
    match (&d.argo, &d.argo_load_error) {
        (_, Some(e)) => {
            r.add(
                0,
                "Argo CD",
                format!("the configuration cannot be loaded: {e}"),
                Tone::Bad,
            );
            r.add(
                1,
                "Gate",
                "fail (every sync operation errors: \"Failed to load resource overrides\")",
                Tone::Bad,
            );
        }
        (Some(v), None) => {
            let o = d.argo_outcome();
            match &v.health {
                None => r.add(
                    0,
                    "Argo CD",
                    format!("no health check for {gk}"),
                    Tone::Warn,
                ),
                Some(h) => {
                    let msg = if h.message.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", h.message)
                    };
                    if h.status.is_empty() {
                        r.add(
                            0,
                            "Argo CD",
                            format!("<empty>: the health script returned no status{msg}"),
                            outcome_tone(o),
                        );
                    } else {
                        r.add(0, "Argo CD", format!("{}{msg}", h.status), outcome_tone(o));
                    }
                }
            }
            r.add(
                1,
                "Gate",
                format!(
                    "{} ({})",
                    o.as_str(),
                    argo_meaning(
                        o,
                        v.health
                            .as_ref()
                            .map(|h| if h.status.is_empty() {
                                "<empty>"
                            } else {
                                h.status.as_str()
                            })
                            .unwrap_or("<none>")
                    )
                ),
                outcome_tone(o),
            );
            let from = d.argo_source.describe();
            let note = crate::argo::health::shadow_note(&v.shadows, v.random_pick);
            let rule = match v.decider.name() {
                "deletion" => format!("metadata.deletionTimestamp is set: Argo CD answers Progressing before any health script runs{note}"),
                "none" => format!("no resource.customizations.health key matches in {from}"),
                "custom" => format!("health script for {gk} from {from}{note}"),
                "custom-wildcard" => format!("health script for {gk} from {from} (glob {}){note}", v.decider.source()),
                "builtin-lua" => format!("Argo CD's built-in script {}{note}", v.decider.source()),
                other => format!("Argo CD's {other} check"),
            };
            r.add(1, "Rule", rule, Tone::Plain);
            if let Some(e) = &v.error {
                r.add(1, "Error", e.clone(), Tone::Bad);
            }
        }
        (None, None) => r.add(0, "Argo CD", "not evaluated", Tone::Plain),
    }
    for f in &d.flux {
        flux_rows(r, f, obj, &gk);
    }
}

fn flux_rows(r: &mut Rows, f: &FluxDecision, obj: &Value, gk: &str) {
    let o = f.outcome();
    let who = if f.kustomization == "recommended" {
        "the Kustomization".to_string()
    } else {
        format!("Kustomization {}", f.kustomization)
    };
    let Some(v) = &f.verdict else {
        r.add(
            0,
            "Flux",
            format!(
                "{who} cannot evaluate: {}",
                f.error.clone().unwrap_or_default()
            ),
            Tone::Bad,
        );
        r.add(
            1,
            "Gate",
            "hold (the Kustomization stalls: InvalidCELExpression, whatever spec.wait says)",
            Tone::Bad,
        );
        return;
    };
    let status = v.status.as_str();
    let head = match &v.error {
        Some(e) => format!("{status}: {e}"),
        None if !v.message.is_empty() => format!("{status}: {}", v.message),
        None => status.to_string(),
    };
    if f.unapplied {
        r.add(
            0,
            "Flux",
            "no Kustomization of the cluster applies it",
            Tone::Warn,
        );
        r.add(
            1,
            "Gate",
            format!("none (Flux gates nothing here; the recommended gate would read it {head})"),
            Tone::Warn,
        );
        return;
    }
    r.add(0, "Flux", head, outcome_tone(o));
    let timeout = &f.timeout;
    let meaning = match o {
        GateWord::Pass => format!("{who} counts it ready"),
        GateWord::Fail => format!("{who} fails its health check early, without waiting for the timeout"),
        GateWord::Hold => format!("{who} waits, then fails with a timeout after {timeout}"),
        GateWord::None if f.waits => format!(
            "{who} waits for it, but never reads its verdict: kstatus reads a Pacto as Current whatever its contractStatus"
        ),
        GateWord::None => format!(
            "{who} does not wait for it (spec.wait is false and spec.healthChecks does not list it)"
        ),
    };
    r.add(
        1,
        "Gate",
        format!("{} ({meaning})", o.as_str()),
        outcome_tone(o),
    );
    let og = obj
        .pointer("/status/observedGeneration")
        .and_then(Value::as_i64);
    let g = obj.pointer("/metadata/generation").and_then(Value::as_i64);
    let deleting = obj
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|v| !v.is_null());
    let why = if !f.has_expression && f.verdict_blind {
        format!(
            "no healthCheckExprs entry for {gk}: kstatus decides from the generation and any Ready/Reconciling/Stalled conditions{}, never from contractStatus; with neither it reads the object as Current",
            if deleting { " (and reads an object being deleted as Terminating)" } else { "" }
        )
    } else if !f.has_expression {
        format!("no healthCheckExprs entry for {gk}: kstatus's own rules for it decide")
    } else if v.error.is_some() && obj.get("status").is_none_or(Value::is_null) {
        "the expressions cannot be evaluated before the object has a status: Flux counts it not ready and keeps polling until its timeout".to_string()
    } else if v.error.is_some() {
        "an expression failed to evaluate: Flux counts the object not ready and keeps polling until its timeout".to_string()
    } else if matches!((og, g), (Some(a), Some(b)) if a != b) {
        format!(
            "status.observedGeneration {} differs from metadata.generation {}: Flux's own check, before any expression",
            og.unwrap_or_default(),
            g.unwrap_or_default()
        )
    } else {
        match v.status {
            crate::flux::KStatus::Current => "the `current` expression is true".to_string(),
            crate::flux::KStatus::Failed => "the `failed` expression is true".to_string(),
            _ => "no expression decides (or `inProgress` is true): Flux keeps waiting".to_string(),
        }
    };
    r.add(1, "Why", why, Tone::Plain);
    let rule = match &f.source {
        Source::Configured(s) => format!("healthCheckExprs of {s}"),
        Source::Recommended(_) => "healthCheckExprs".to_string(),
    };
    let from = match &f.source {
        Source::Configured(_) => String::new(),
        s => format!(" from {}", s.describe()),
    };
    r.add(1, "Rule", format!("{rule}{from}"), Tone::Plain);
}

pub(super) fn divergence(r: &mut Rows, p: &PactoView, d: &Decision) {
    let (a, f) = (d.argo_outcome(), d.flux_outcome());
    let unusable = d.argo_load_error.is_some() || d.flux.iter().any(|f| f.verdict.is_none());
    if a == f || a == GateWord::None || f == GateWord::None || unusable {
        return;
    }
    let why = if p.deletion_timestamp.is_some() {
        "the object is being deleted: Argo CD reports Progressing before any script runs; Flux has no deletion rule and evaluates it as usual"
    } else if p.has_status
        && p.observed_generation.is_none()
        && !p.observed_generation_malformed
        && p.contract_status.is_some()
    {
        "status.observedGeneration is absent: the Argo CD script compares it with metadata.generation and holds, while Flux skips its generation check and lets the expressions decide"
    } else {
        if d.flux.iter().any(|f| !f.has_expression) {
            "Argo CD's health script and kstatus (Flux has no healthCheckExprs entry for it) read this object differently"
        } else {
            "the Argo CD script and the Flux expressions map this verdict differently"
        }
    };
    r.add(
        0,
        "Divergence",
        format!("Argo CD {}, Flux {}: {why}", a.as_str(), f.as_str()),
        Tone::Warn,
    );
}

pub(super) fn no_gate_warning(r: &mut Rows, d: &Decision) {
    let configured_argo = matches!(d.argo_source, Source::Configured(_));
    // A Flux side read from the cluster: its Kustomizations, or none of them applying it.
    let configured_flux = d
        .flux
        .iter()
        .all(|f| f.unapplied || matches!(f.source, Source::Configured(_)));
    let argo_none = d.argo_outcome() == GateWord::None;
    let flux_none = d.flux.iter().all(|f| f.outcome() == GateWord::None);
    if configured_argo && configured_flux && argo_none && flux_none {
        r.add(
            0,
            "Warning",
            "no gate is configured for this object: Argo CD has no health check for it and Flux does not evaluate its verdict; the gate gates nothing",
            Tone::Bad,
        );
    } else if configured_argo && argo_none && d.argo_load_error.is_none() {
        r.add(
            0,
            "Warning",
            "Argo CD has no health check for this kind: its syncs do not wait for the verdict",
            Tone::Warn,
        );
    } else if configured_flux && flux_none && !d.flux.is_empty() {
        r.add(0, "Warning", "Flux does not evaluate this verdict (no Kustomization applies it, or no healthCheckExprs entry, or no wait): it passes whatever the verdict", Tone::Warn);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{rows_of, value};
    use super::super::{explain, Options};
    use crate::pacto::gate::{decide, ArgoGate, FluxGate, FluxKustomization};
    use serde_json::{json, Value};

    /// The Flux section's headline and Gate row for `pacto` under one Kustomization `k`.
    fn flux_rows(k: Value, pacto: Value) -> (String, String) {
        let argo = ArgoGate::from_configmap(
            &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "argocd-cm"}, "data": {}}),
            "argocd-cm argocd/argocd-cm",
            0,
        );
        let flux = FluxGate {
            kustomizations: FluxKustomization::new(&k, true, 0).into_iter().collect(),
            complete: true,
            ..FluxGate::recommended("test", false, 0)
        };
        let d = decide(&argo, &flux, &pacto);
        let rows = explain(
            &pacto,
            &d,
            "2026-11-29T12:00:00Z".parse().unwrap(),
            Options::default(),
        );
        let at = rows
            .iter()
            .position(|r| r.key == "Flux")
            .expect("a Flux section");
        let gate = rows[at + 1..]
            .iter()
            .find(|r| r.key == "Gate")
            .expect("a Flux Gate row");
        (rows[at].value.clone(), gate.value.clone())
    }

    /// What kustomize-controller does with the Pacto, row by row: a Failed verdict fails the
    /// health check at once (fluxcd/pkg `ssa/manager_wait.go` stops on a Failed status); an
    /// InProgress one is waited for until `spec.timeout`; without an entry kstatus reads it
    /// Current whatever its verdict; with `wait: false` and no `healthChecks` nothing waits;
    /// expressions that do not compile stall the Kustomization (InvalidCELExpression); an
    /// object no inventory lists is applied by none.
    #[test]
    fn the_flux_rows_say_what_kustomize_controller_does() {
        let pacto = |status: &str| {
            json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "orders", "namespace": "shop", "generation": 1},
            "spec": {"target": {"serviceName": "orders"}},
            "status": {"contractStatus": status, "observedGeneration": 1}})
        };
        let k = |edit: &dyn Fn(&mut Value)| {
            let mut k = crate::pacto::recommended::kustomization_object(false);
            k["metadata"] = json!({"name": "apps", "namespace": "flux-system"});
            k["spec"]["wait"] = json!(true);
            k["spec"]["timeout"] = json!("7m");
            k["status"] = json!({"inventory": {"entries": [
                {"id": "shop_orders_pacto.trianalab.io_Pacto", "v": "v1alpha1"}]}});
            edit(&mut k);
            k
        };
        let same = |_: &mut Value| {};
        let no_entry = |k: &mut Value| {
            k["spec"]
                .as_object_mut()
                .unwrap()
                .remove("healthCheckExprs");
        };
        let no_wait = |k: &mut Value| {
            no_entry(k);
            k["spec"]["wait"] = json!(false);
        };
        let broken = |k: &mut Value| {
            k["spec"]["healthCheckExprs"][0]["current"] = json!("status.contractStatus ==");
        };
        let elsewhere = |k: &mut Value| {
            k["status"]["inventory"]["entries"][0]["id"] =
                json!("shop_billing_pacto.trianalab.io_Pacto");
        };
        // (contractStatus, edit of the Kustomization, Flux headline, Gate word, what it does)
        type Case<'a> = (&'a str, &'a dyn Fn(&mut Value), &'a str, &'a str, &'a str);
        let cases: [Case; 7] = [
            (
                "NonCompliant",
                &same,
                "Failed",
                "fail (",
                "early, without waiting for the timeout",
            ),
            ("Compliant", &same, "Current", "pass (", "counts it ready"),
            (
                "Unknown",
                &same,
                "InProgress",
                "hold (",
                "fails with a timeout after 7m0s",
            ),
            (
                "NonCompliant",
                &no_entry,
                "Current",
                "none (",
                "never reads its verdict",
            ),
            (
                "NonCompliant",
                &no_wait,
                "Current",
                "none (",
                "does not wait for it",
            ),
            (
                "Compliant",
                &broken,
                "Kustomization flux-system/apps cannot evaluate",
                "hold (",
                "InvalidCELExpression",
            ),
            (
                "NonCompliant",
                &elsewhere,
                "no Kustomization of the cluster applies it",
                "none (",
                "Flux gates nothing here",
            ),
        ];
        for (status, edit, head, word, meaning) in cases {
            let (got_head, gate) = flux_rows(k(edit), pacto(status));
            assert!(got_head.starts_with(head), "{status}: {got_head}");
            assert!(
                gate.starts_with(word) && gate.contains(meaning),
                "{status}: {gate}"
            );
        }
    }

    #[test]
    fn absent_observed_generation_explains_the_divergence() {
        let rows = rows_of(
            json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "orders", "namespace": "shop", "generation": 1},
            "spec": {"target": {"serviceName": "orders"}},
            "status": {"contractStatus": "Compliant"}}),
        );
        assert!(value(&rows, "Divergence")
            .starts_with("Argo CD hold, Flux pass: status.observedGeneration is absent"));
    }
}
