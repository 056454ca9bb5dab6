//! The `explain` report for kinds other than Pacto (for example Coder's `CoderTemplateTest`,
//! `coder.com`): phase, reason, conditions and generation read straight from the object, then
//! the same gate rows as a Pacto (`gates.rs`).

use super::gates::{gates, no_gate_warning};
use super::{Row, Rows, Tone};
use crate::pacto::gate::Decision;
use serde_json::Value;

pub(super) fn explain_other(obj: &Value, d: &Decision) -> Vec<Row> {
    let mut r = Rows(Vec::new());
    let gvk = crate::k8s::gvk_of(obj);
    let s = |p: &str| obj.pointer(p).and_then(Value::as_str);
    let i = |p: &str| obj.pointer(p).and_then(Value::as_i64);
    r.add(
        0,
        &gvk.kind,
        format!(
            "{}/{}",
            s("/metadata/namespace").unwrap_or(""),
            s("/metadata/name").unwrap_or("")
        ),
        Tone::Plain,
    );
    let status = obj.get("status").filter(|v| !v.is_null());
    let is_test = gvk.group == "coder.com" && gvk.kind == "CoderTemplateTest";
    match s("/status/phase") {
        Some(phase) => r.add(
            0,
            "Phase",
            phase,
            match phase {
                "Succeeded" => Tone::Good,
                "Failed" => Tone::Bad,
                _ => Tone::Pending,
            },
        ),
        None if is_test || status.is_some() => r.add(
            0,
            "Phase",
            if status.is_some() {
                "<none>"
            } else {
                "<none> (no status yet)"
            },
            Tone::Pending,
        ),
        None => {}
    }
    if let Some(reason) = s("/status/reason") {
        let msg = s("/status/message")
            .map(|m| format!(": {m}"))
            .unwrap_or_default();
        r.add(1, "Reason", format!("{reason}{msg}"), Tone::Plain);
    }
    let conds = obj.pointer("/status/conditions").and_then(Value::as_array);
    if let Some(cs) = conds {
        r.add(0, "Conditions", cs.len().to_string(), Tone::Plain);
        for c in cs {
            let g = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
            let msg = if g("message").is_empty() {
                String::new()
            } else {
                format!(": {}", g("message"))
            };
            r.add(
                1,
                g("type"),
                format!("{} {}{msg}", g("status"), g("reason")),
                Tone::Plain,
            );
        }
    }
    let (og, gen) = (i("/status/observedGeneration"), i("/metadata/generation"));
    let show = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_else(|| "<none>".into());
    let fresh = og.is_some() && og == gen;
    if gen.is_some() && (is_test || status.is_some()) {
        r.add(
            0,
            "Generation",
            format!(
                "{}, observed {}: {}",
                show(gen),
                show(og),
                if fresh {
                    "the status is for the current spec"
                } else {
                    "the status is not for the current spec"
                }
            ),
            if fresh { Tone::Good } else { Tone::Pending },
        );
    }
    if let Some(t) = s("/metadata/deletionTimestamp") {
        r.add(0, "Deleting", format!("since {t}"), Tone::Pending);
    }
    gates(&mut r, d, obj);
    no_gate_warning(&mut r, d);
    r.0
}
