//! The `explain` report: a key/value block, like `kubectl describe`, saying what an object's
//! verdict is, what it means, what Argo CD and Flux decide about it and why, and when it will
//! change. Pure: the object, the gates' decision and the clock come in, rows go out; rendering
//! (alignment, colour, escaping) is `render::explain_text` (a module above this one). Keys and
//! values stay raw, as the object has them: nothing here escapes text for a terminal.
//!
//! This file owns the rows ([`Row`], [`Tone`]), the [`Options`], the [`explain`] entry point and
//! the Pacto's header (target, status shape, verdict); each later section has its own file:
//! `findings.rs` (findings, validation errors, conditions), `freshness.rs`, `gates.rs` (Argo CD,
//! Flux, divergence, the no-gate warning), `timing.rs`, and `other.rs` for kinds other than Pacto. One level up, `application.rs` and
//! `kustomization.rs` report an Argo CD Application's health and a Flux Kustomization's wait,
//! and `tree.rs` lays either out as a tree of the objects below it.

pub mod application;
mod findings;
mod freshness;
mod gates;
pub mod kustomization;
mod other;
pub mod report;
mod timing;
pub mod tree;

pub use report::{explanation, Report};

use super::gate::Decision;
use super::verdict;
use super::view::{PactoView, Schema};
use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

/// How a row's value reads: decides its colour on a terminal (the words are always there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Good,
    Pending,
    Bad,
    Warn,
}

/// One line of the report: `indent` 0 for a section, 1 for its details; an empty key continues
/// the previous value. Serialized (for `-o json|yaml`) as `{indent, key, value}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Row {
    /// 0 for a section, 1 for a detail line.
    pub indent: usize,
    /// The label before the colon; empty continues the previous value.
    pub key: String,
    /// The text, raw (escaped for the terminal when rendered).
    pub value: String,
    /// How the leading word is coloured on a terminal.
    #[serde(skip)]
    pub tone: Tone,
}

/// Options that change the report: the operator's stabilization window (seconds).
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The operator's `--stabilization-window`, seconds (default 120).
    pub stabilization_window_seconds: i64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            stabilization_window_seconds: verdict::DEFAULT_STABILIZATION_WINDOW_SECONDS,
        }
    }
}

/// Rows being built (shared by the Pacto and delivery reports).
pub(crate) struct Rows(pub(crate) Vec<Row>);

impl Rows {
    /// Appends a row.
    pub(crate) fn add(&mut self, indent: usize, key: &str, value: impl Into<String>, tone: Tone) {
        self.0.push(Row {
            indent,
            key: key.to_string(),
            value: value.into(),
            tone,
        });
    }
}

/// The tone of a contractStatus word: Compliant/Reference good, Warning a warning,
/// NonCompliant/Invalid bad, anything else pending.
pub(crate) fn verdict_tone(status: Option<&str>) -> Tone {
    match status {
        Some("Compliant") | Some("Reference") => Tone::Good,
        Some("Warning") => Tone::Warn,
        Some("NonCompliant") | Some("Invalid") => Tone::Bad,
        _ => Tone::Pending,
    }
}

fn seconds(s: i64) -> String {
    verdict::human_duration(SignedDuration::from_secs(s))
}

/// The report for any object: a Pacto gets the full contract explanation; other kinds (for
/// example CoderTemplateTest) their phase, conditions, generation and the gates.
pub fn explain(obj: &Value, decision: &Decision, now: Timestamp, opts: Options) -> Vec<Row> {
    let gvk = crate::k8s::gvk_of(obj);
    if gvk.group == super::GROUP && gvk.kind == super::KIND {
        explain_pacto(obj, decision, now, opts)
    } else {
        other::explain_other(obj, decision)
    }
}

fn explain_pacto(obj: &Value, decision: &Decision, now: Timestamp, opts: Options) -> Vec<Row> {
    let p = PactoView::new(obj);
    let mut r = Rows(Vec::new());
    r.add(
        0,
        "Pacto",
        format!("{}/{}", p.namespace, p.name),
        Tone::Plain,
    );
    if let Some(c) = &p.contract_ref {
        r.add(0, "Contract", c.clone(), Tone::Plain);
    }
    let target = if p.reference_only {
        "none (reference-only contract)".to_string()
    } else {
        let mut parts = Vec::new();
        if let Some(s) = &p.service_name {
            parts.push(format!("service {s}"));
        }
        if let Some((name, kind)) = &p.workload_ref {
            parts.push(match kind {
                Some(k) => format!("workload {k}/{name}"),
                None if p.schema == Schema::Legacy => {
                    format!("workload Deployment/{name} (no kind: the legacy operator assumes Deployment)")
                }
                None => {
                    format!("workload {name} (no kind: the operator cannot confirm a mismatch)")
                }
            });
        }
        if parts.is_empty() {
            "spec.target without serviceName or workloadRef".to_string()
        } else {
            parts.join(", ")
        }
    };
    r.add(0, "Target", target, Tone::Plain);
    r.add(
        0,
        "Status shape",
        match p.schema {
            Schema::Current => "current (findings, summary.errorCount)".to_string(),
            Schema::Legacy => "legacy (one condition per check, summary.total)".to_string(),
            Schema::None => "none: no status yet".to_string(),
            Schema::Undetermined => "undetermined (neither findings nor summary)".to_string(),
        },
        Tone::Plain,
    );
    let status = p.contract_status.as_deref();
    r.add(
        0,
        "Verdict",
        status.unwrap_or("<none>"),
        verdict_tone(status),
    );
    r.add(1, "Meaning", verdict::meaning_of(&p), Tone::Plain);
    if let Some(v) = &p.version {
        r.add(1, "Version", v.clone(), Tone::Plain);
    }
    for a in &p.anomalies {
        r.add(1, "Malformed", a.clone(), Tone::Warn);
    }
    findings::findings(&mut r, &p);
    findings::conditions(&mut r, &p);
    freshness::freshness(&mut r, &p, now);
    gates::gates(&mut r, decision, obj);
    gates::divergence(&mut r, &p, decision);
    timing::timing(&mut r, &p, decision, now, opts);
    gates::no_gate_warning(&mut r, decision);
    r.0
}

/// What the section tests share: the report of an object under the recommended gates at a fixed
/// clock, and the value of a row by key.
#[cfg(test)]
mod testing {
    use super::super::gate::{decide, ArgoGate, FluxGate};
    use super::{explain, Options, Row};
    use serde_json::Value;

    pub(super) fn rows_of(obj: Value) -> Vec<Row> {
        let (a, f) = (
            ArgoGate::recommended("test", false, 0),
            FluxGate::recommended("test", false, 0),
        );
        let d = decide(&a, &f, &obj);
        explain(
            &obj,
            &d,
            "2026-11-29T12:00:00Z".parse().unwrap(),
            Options::default(),
        )
    }

    /// Each row as (indent, key, value), for comparing a report's layout.
    pub(super) fn triples(rows: &[Row]) -> Vec<(usize, &str, &str)> {
        rows.iter()
            .map(|x| (x.indent, x.key.as_str(), x.value.as_str()))
            .collect()
    }

    pub(super) fn value<'a>(rows: &'a [Row], key: &str) -> &'a str {
        &rows
            .iter()
            .find(|r| r.key == key)
            .unwrap_or_else(|| panic!("no {key} in {rows:#?}"))
            .value
    }
}
