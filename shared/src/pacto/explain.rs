//! The `explain` report: a key/value block, like `kubectl describe`, saying what an object's
//! verdict is, what it means, what Argo CD and Flux decide about it and why, and when it will
//! change. Pure: the object, the gates' decision and the clock come in, rows go out; rendering
//! (alignment, colour) is [`crate::render::explain_text`].

use super::gate::{Decision, FluxDecision, Outcome, Source};
use super::verdict::{self, Freshness};
use super::view::{PactoView, Schema};
use crate::render::one_line;
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
/// the previous value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// 0 for a section, 1 for a detail line.
    pub indent: usize,
    /// The label before the colon; empty continues the previous value.
    pub key: String,
    /// The text (escaped for the terminal when rendered).
    pub value: String,
    /// How the leading word is coloured on a terminal.
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

struct Rows(Vec<Row>);

impl Rows {
    fn add(&mut self, indent: usize, key: &str, value: impl Into<String>, tone: Tone) {
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

fn outcome_tone(o: Outcome) -> Tone {
    match o {
        Outcome::Pass => Tone::Good,
        Outcome::Hold => Tone::Pending,
        Outcome::Fail => Tone::Bad,
        Outcome::None => Tone::Warn,
    }
}

/// A time and how far it is from now: `2026-11-29T12:01:00Z (in 1m)` / `(3m ago)`.
fn when(t: Timestamp, now: Timestamp) -> String {
    let d = t.duration_since(now);
    if d.is_negative() {
        format!("{t} ({} ago)", verdict::human_duration(-d))
    } else {
        format!("{t} (in {})", verdict::human_duration(d))
    }
}

fn seconds(s: i64) -> String {
    verdict::human_duration(SignedDuration::from_secs(s))
}

/// The report for any object: a Pacto gets the full contract explanation; other kinds (for
/// example CoderTemplateTest) their phase, conditions, generation and the gates.
pub fn explain(obj: &Value, decision: &Decision, now: Timestamp, opts: Options) -> Vec<Row> {
    let gvk = crate::argo::health::gvk_of(obj);
    if gvk.group == super::GROUP && gvk.kind == super::KIND {
        explain_pacto(obj, decision, now, opts)
    } else {
        explain_other(obj, decision)
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
    findings(&mut r, &p);
    conditions(&mut r, &p);
    freshness(&mut r, &p, now);
    gates(&mut r, decision, obj);
    divergence(&mut r, &p, decision);
    timing(&mut r, &p, decision, now, opts);
    no_gate_warning(&mut r, decision);
    r.0
}

fn findings(r: &mut Rows, p: &PactoView) {
    match p.schema {
        Schema::Legacy => {
            let s = &p.summary;
            let counts = match (s.total, s.passed, s.failed) {
                (Some(t), _, Some(f)) => format!("{f} of {t} checks failed"),
                _ => "no summary".to_string(),
            };
            r.add(0, "Checks", counts, Tone::Plain);
            return;
        }
        Schema::None => return,
        _ => {}
    }
    let s = &p.summary;
    let count = |n: Option<i64>, what: &str| n.map(|n| format!("{n} {what}"));
    let counts: Vec<String> = [
        count(s.errors, "error"),
        count(s.warnings, "warning"),
        count(s.infos, "info"),
        count(s.unknowns, "unknown"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let head = if p.findings.is_empty() {
        if counts.is_empty() {
            "none".to_string()
        } else {
            format!("none listed (summary: {})", counts.join(", "))
        }
    } else {
        format!(
            "{} (summary: {})",
            p.findings.len(),
            if counts.is_empty() {
                "absent".to_string()
            } else {
                counts.join(", ")
            }
        )
    };
    r.add(0, "Findings", head, Tone::Plain);
    // By severity: error, unknown, warning, info, then anything else; list order within each.
    let rank = |sev: &str| match sev {
        "error" => 0,
        "unknown" => 1,
        "warning" => 2,
        "info" => 3,
        _ => 4,
    };
    let mut sorted: Vec<_> = p.findings.iter().enumerate().collect();
    sorted.sort_by_key(|(i, f)| (rank(&f.severity), *i));
    let first_error = p.findings.iter().position(|f| f.severity == "error");
    for (i, f) in sorted {
        let tone = match f.severity.as_str() {
            "error" => Tone::Bad,
            "warning" => Tone::Warn,
            "unknown" => Tone::Pending,
            _ => Tone::Plain,
        };
        let subject = if f.subject.is_empty() {
            String::new()
        } else {
            format!(" {}", f.subject)
        };
        let message = f
            .message
            .as_deref()
            .map(one_line)
            .unwrap_or_else(|| "(no message)".to_string());
        let headline =
            if Some(i) == first_error && p.contract_status.as_deref() == Some("NonCompliant") {
                " [headline: the first error finding]"
            } else {
                ""
            };
        r.add(
            1,
            if f.severity.is_empty() {
                "(no severity)"
            } else {
                &f.severity
            },
            format!(
                "{}{subject}: {message}{headline}",
                if f.code.is_empty() {
                    "(no code)"
                } else {
                    &f.code
                }
            ),
            tone,
        );
    }
    for e in &p.validation_errors {
        r.add(
            1,
            "invalid",
            format!("{} {}: {}", e.code, e.path, one_line(&e.message)),
            Tone::Bad,
        );
    }
}

fn conditions(r: &mut Rows, p: &PactoView) {
    if p.conditions.is_empty() {
        if p.has_status {
            r.add(0, "Conditions", "none", Tone::Plain);
        }
        return;
    }
    r.add(0, "Conditions", p.conditions.len().to_string(), Tone::Plain);
    for c in &p.conditions {
        let stale = if verdict::condition_is_stale(c, p.generation) {
            format!(
                " [stale: observed generation {} < {}]",
                c.observed_generation.unwrap_or_default(),
                p.generation.unwrap_or_default()
            )
        } else {
            String::new()
        };
        let tone = match c.status.as_str() {
            "True" => Tone::Plain,
            "False" => Tone::Bad,
            _ => Tone::Pending,
        };
        let message = if c.message.is_empty() {
            String::new()
        } else {
            format!(": {}", one_line(&c.message))
        };
        r.add(
            1,
            if c.type_.is_empty() {
                "<none>"
            } else {
                &c.type_
            },
            format!("{} {}{message}{stale}", c.status, c.reason),
            if stale.is_empty() { tone } else { Tone::Warn },
        );
    }
}

fn freshness(r: &mut Rows, p: &PactoView, now: Timestamp) {
    let g = |v: Option<i64>| {
        v.map(|v| v.to_string())
            .unwrap_or_else(|| "<none>".to_string())
    };
    match verdict::freshness(p, now) {
        Freshness::NeverEvaluated => r.add(
            0,
            "Generation",
            format!("{}; never evaluated (no status)", g(p.generation)),
            Tone::Pending,
        ),
        Freshness::GenerationNotObserved {
            observed,
            generation,
        } => r.add(
            0,
            "Generation",
            match (observed, &p.contract_status) {
                (Some(_), _) => format!(
                    "{}, observed {}: the verdict is for an older spec",
                    g(generation),
                    g(observed)
                ),
                (None, Some(_)) => format!(
                    "{}, observed <none>: the status does not say which spec its verdict is for",
                    g(generation)
                ),
                (None, None) => format!("{}, observed <none>: no verdict yet", g(generation)),
            },
            Tone::Pending,
        ),
        Freshness::Late { .. } | Freshness::Fresh { .. } => r.add(
            0,
            "Generation",
            format!(
                "{}, observed {}: the verdict is for the current spec",
                g(p.generation),
                g(p.observed_generation)
            ),
            Tone::Good,
        ),
    }
    let every = format!(
        "every {} (checkIntervalSeconds {}{})",
        seconds(p.check_interval_seconds),
        p.check_interval_seconds,
        if p.check_interval_explicit {
            ""
        } else {
            ", the default"
        }
    );
    match (p.last_reconciled_at, verdict::freshness(p, now)) {
        (_, Freshness::Late { age, interval_seconds }) => r.add(
            0,
            "Reconciled",
            format!(
                "{} ago, {every}: more than {} intervals ({}) without a reconcile (this tool's rule of thumb): is the operator running?",
                verdict::human_duration(age),
                verdict::LATE_AFTER_INTERVALS,
                seconds(verdict::LATE_AFTER_INTERVALS.saturating_mul(interval_seconds))
            ),
            Tone::Warn,
        ),
        (Some(t), _) => r.add(
            0,
            "Reconciled",
            format!("{} ago, {every}", verdict::human_duration(now.duration_since(t))),
            Tone::Plain,
        ),
        (None, _) => r.add(0, "Reconciled", format!("never recorded, {every}"), Tone::Plain),
    }
    if let Some(d) = &p.deletion_timestamp {
        let held = if p.finalizers.is_empty() {
            String::new()
        } else {
            format!(", held by finalizers {}", p.finalizers.join(", "))
        };
        r.add(0, "Deleting", format!("since {d}{held}"), Tone::Pending);
    }
    if let Some(rd) = &p.readiness {
        let score = |v: Option<f64>| v.map(|v| format!("{v}")).unwrap_or_else(|| "?".into());
        r.add(
            0,
            "Readiness",
            format!(
                "score {} of {} ({}); readiness never changes the verdict or the gates",
                score(rd.score),
                score(rd.min_score),
                match rd.passing {
                    Some(true) => "passing",
                    Some(false) => "not passing",
                    None => "passing unknown",
                }
            ),
            Tone::Plain,
        );
    }
}

fn argo_meaning(o: Outcome, status: &str) -> String {
    // gitops-engine pkg/sync/sync_context.go: a synced resource is waited on only when later
    // sync waves (or hooks) follow; in the last wave the sync ends whatever its health.
    match o {
        Outcome::Pass => "a later sync wave goes on".to_string(),
        Outcome::Hold => format!(
            "a later sync wave waits for it; in the last wave the sync ends and the application shows {status}"
        ),
        Outcome::Fail => {
            "a sync with later waves fails here; in the last wave the application shows Degraded".to_string()
        }
        Outcome::None => {
            "Argo CD assesses no health: sync waves do not wait for it whatever the verdict".to_string()
        }
    }
}

fn gates(r: &mut Rows, d: &Decision, obj: &Value) {
    let gvk = crate::argo::health::gvk_of(obj);
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
                        format!(": {}", one_line(&h.message))
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
            let rule = match v.decider.name() {
                "deletion" => "metadata.deletionTimestamp is set: Argo CD answers Progressing before any health script runs".to_string(),
                "none" => format!("no resource.customizations.health key matches in {from}"),
                "custom" | "custom-wildcard" => format!("health script for {gk} from {from}"),
                other => format!("Argo CD's {other} check"),
            };
            r.add(1, "Rule", rule, Tone::Plain);
            if let Some(e) = &v.error {
                r.add(1, "Error", one_line(e), Tone::Bad);
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
        Some(e) => format!("{status}: {}", one_line(e)),
        None if !v.message.is_empty() => format!("{status}: {}", one_line(&v.message)),
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
        Outcome::Pass => format!("{who} counts it ready"),
        Outcome::Fail => format!("{who} fails its health check early, without waiting for the timeout"),
        Outcome::Hold => format!("{who} waits, then fails with a timeout after {timeout}"),
        Outcome::None if f.waits => format!(
            "{who} waits for it, but never reads its verdict: kstatus reads a Pacto as Current whatever its contractStatus"
        ),
        Outcome::None => format!(
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

fn divergence(r: &mut Rows, p: &PactoView, d: &Decision) {
    let (a, f) = (d.argo_outcome(), d.flux_outcome());
    let unusable = d.argo_load_error.is_some() || d.flux.iter().any(|f| f.verdict.is_none());
    if a == f || a == Outcome::None || f == Outcome::None || unusable {
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

fn timing(r: &mut Rows, p: &PactoView, d: &Decision, now: Timestamp, opts: Options) {
    let every = seconds(p.check_interval_seconds);
    let mut lines: Vec<(String, Tone)> = Vec::new();
    let unavailable = p
        .condition("ContractValid")
        .filter(|c| c.status == "Unknown" && c.reason == "Unavailable");
    match verdict::freshness(p, now) {
        Freshness::NeverEvaluated => lines.push((
            format!("the first verdict comes with the operator's first reconcile (then every {every})"),
            Tone::Plain,
        )),
        Freshness::GenerationNotObserved { observed: Some(_), .. } => lines.push((
            format!("the operator evaluates the current spec on its next reconcile (a spec change queues one at once; otherwise within {every})"),
            Tone::Plain,
        )),
        Freshness::GenerationNotObserved { observed: None, .. } if p.contract_status.is_some() => {
            lines.push((
                "the status does not record observedGeneration: the Argo CD script holds until the operator writes it (current operators write it on every reconcile)".to_string(),
                Tone::Plain,
            ))
        }
        _ => {}
    }
    let mut escalates = false;
    match p.contract_status.as_deref() {
        Some("Unknown") | None if unavailable.is_some() => lines.push((
            format!(
                "the contract could not be obtained (ContractValid Unknown/Unavailable): no verdict until it can be; the operator tries again every {every}"
            ),
            Tone::Warn,
        )),
        Some("Unknown")
            if p.schema == super::view::Schema::Current
                && matches!(&p.workload_ref, Some((_, None)))
                && p.observation_windows.is_empty() =>
        {
            lines.push((
                "spec.target.workloadRef has no kind: the operator cannot confirm the workload, so the verdict stays Unknown until spec.target.workloadRef.kind is set".to_string(),
                Tone::Warn,
            ))
        }
        Some("Unknown") => {
            let esc = verdict::escalations(p, opts.stabilization_window_seconds);
            if esc.is_empty() {
                lines.push((format!("no observation window is open: it stays Unknown until the missing evidence appears (re-checked every {every})"), Tone::Plain));
            }
            let (window, hint) = if opts.stabilization_window_seconds
                == verdict::DEFAULT_STABILIZATION_WINDOW_SECONDS
            {
                (
                    format!(
                        "the operator's default {} stabilization window",
                        seconds(opts.stabilization_window_seconds)
                    ),
                    " (give --stabilization-window if the operator runs with another)",
                )
            } else {
                (
                    format!(
                        "a {} stabilization window",
                        seconds(opts.stabilization_window_seconds)
                    ),
                    "",
                )
            };
            for e in esc {
                let becomes = e
                    .code
                    .map(|c| format!("NonCompliant ({c})"))
                    .unwrap_or_else(|| "NonCompliant".to_string());
                let line = if e.latest < now {
                    format!(
                        "{} {}: {window} and one check interval were over by {}, yet the verdict is still Unknown: the last reconcile did not confirm the absence (it may have recovered){hint}",
                        e.kind, e.subject, when(e.latest, now)
                    )
                } else if e.window_ends <= now {
                    escalates = true;
                    format!(
                        "{} {}: {window} ended at {}; if still absent it turns {becomes} at the next reconcile, by {}{hint}",
                        e.kind, e.subject, when(e.window_ends, now), when(e.latest, now)
                    )
                } else {
                    escalates = true;
                    format!(
                        "{} {}: if still absent, it turns {becomes} between {} and {}: after {window}, then at most one check interval of {every}{hint}",
                        e.kind, e.subject, when(e.window_ends, now), when(e.latest, now)
                    )
                };
                lines.push((line, Tone::Warn));
            }
        }
        Some("NonCompliant") | Some("Invalid") | Some("Warning")
            if !matches!(
                verdict::freshness(p, now),
                Freshness::GenerationNotObserved { .. }
            ) =>
        {
            lines.push((
                format!("changes when the contract or the workload changes; re-checked every {every}"),
                Tone::Plain,
            ))
        }
        _ => {}
    }
    let holding = d
        .flux
        .iter()
        .find(|f| f.outcome() == Outcome::Hold && f.verdict.is_some());
    if let (Some(f), Some(v)) = (holding, holding.and_then(|f| f.verdict.as_ref())) {
        let entry = |status| {
            crate::flux::wait::Checked {
                kind: super::KIND.to_string(),
                namespace: p.namespace.clone(),
                name: p.name.clone(),
                status,
                error: v.error.clone().filter(|_| status == v.status),
            }
            .entry()
        };
        if escalates {
            lines.push((
                format!(
                    "if it turns NonCompliant first, Flux fails early: `{}`",
                    crate::flux::wait::fails_early_message(&[entry(crate::flux::KStatus::Failed)])
                ),
                Tone::Plain,
            ));
        }
        let timeout = crate::flux::wait::parse_go_duration(&f.timeout).unwrap_or_default();
        lines.push((
            format!(
                "if it stays {} until the timeout ({}), Flux reports a message like `{}`",
                v.status.as_str(),
                f.timeout,
                crate::flux::wait::timeout_message(timeout, &[entry(v.status)])
            ),
            Tone::Plain,
        ));
    }
    for (i, (line, tone)) in lines.into_iter().enumerate() {
        r.add(0, if i == 0 { "Timing" } else { "" }, line, tone);
    }
}

fn no_gate_warning(r: &mut Rows, d: &Decision) {
    let configured_argo = matches!(d.argo_source, Source::Configured(_));
    // A Flux side read from the cluster: its Kustomizations, or none of them applying it.
    let configured_flux = d
        .flux
        .iter()
        .all(|f| f.unapplied || matches!(f.source, Source::Configured(_)));
    let argo_none = d.argo_outcome() == Outcome::None;
    let flux_none = d.flux.iter().all(|f| f.outcome() == Outcome::None);
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

fn explain_other(obj: &Value, d: &Decision) -> Vec<Row> {
    let mut r = Rows(Vec::new());
    let gvk = crate::argo::health::gvk_of(obj);
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
            .map(|m| format!(": {}", one_line(m)))
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
                format!(": {}", one_line(g("message")))
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

#[cfg(test)]
mod tests {
    use super::super::gate::{decide, ArgoGate, FluxGate};
    use super::*;
    use serde_json::json;

    fn rows_of(obj: Value) -> Vec<Row> {
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

    fn value<'a>(rows: &'a [Row], key: &str) -> &'a str {
        &rows
            .iter()
            .find(|r| r.key == key)
            .unwrap_or_else(|| panic!("no {key} in {rows:#?}"))
            .value
    }

    #[test]
    fn an_open_window_predicts_when_unknown_turns_noncompliant() {
        let rows = rows_of(
            json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "orders", "namespace": "shop", "generation": 2},
            "spec": {"target": {"serviceName": "orders"}, "checkIntervalSeconds": 30},
            "status": {"contractStatus": "Unknown", "observedGeneration": 2,
                "observationWindows": [{"kind": "interface", "subject": "http-api",
                    "firstObservedNegativeAt": "2026-11-29T11:59:00Z"}]}}),
        );
        assert_eq!(
            value(&rows, "Argo CD"),
            "Progressing: contract verdict pending: Unknown"
        );
        let timing = value(&rows, "Timing");
        assert!(timing.contains("NonCompliant (INTERFACE_ABSENT) between 2026-11-29T12:01:00Z (in 60s) and 2026-11-29T12:01:30Z (in 90s)"), "{timing}");
    }

    #[test]
    fn the_first_error_finding_is_the_headline() {
        let rows = rows_of(
            json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "orders", "namespace": "shop", "generation": 1},
            "spec": {"target": {"serviceName": "orders"}},
            "status": {"contractStatus": "NonCompliant", "observedGeneration": 1,
                "findings": [
                    {"code": "CONFIGURATION_ABSENT", "severity": "warning", "message": "w"},
                    {"code": "WORKLOAD_MISMATCH", "severity": "error", "subject": "workload/orders", "message": "declared job, observed Deployment"}]}}),
        );
        assert_eq!(value(&rows, "error"), "WORKLOAD_MISMATCH workload/orders: declared job, observed Deployment [headline: the first error finding]");
        assert_eq!(
            value(&rows, "Argo CD"),
            "Degraded: contract violated: WORKLOAD_MISMATCH: declared job, observed Deployment"
        );
        assert_eq!(value(&rows, "Flux"), "Failed");
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
