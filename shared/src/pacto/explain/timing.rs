//! When the verdict will change in the `explain` report: the first or next evaluation, the
//! observation windows that turn Unknown into NonCompliant (stabilization window plus one check
//! interval, [`verdict::escalations`]; TrianaLab/pacto
//! `integrations/kubernetes/docs/generated/operator-configuration.md` and "GitOps promotion gates",
//! "Timing"), and the message a holding Flux wait ends with (kustomize-controller's timeout and
//! fail-fast texts, [`crate::flux::wait`]).

use super::{seconds, Options, Rows, Tone};
use crate::pacto::gate::{Decision, GateWord};
use crate::pacto::verdict::{self, Freshness};
use crate::pacto::view::{PactoView, Schema};
use jiff::Timestamp;

/// A time and how far it is from now: `2026-11-29T12:01:00Z (in 1m)` / `(3m ago)`.
fn when(t: Timestamp, now: Timestamp) -> String {
    let d = t.duration_since(now);
    if d.is_negative() {
        format!("{t} ({} ago)", verdict::human_duration(-d))
    } else {
        format!("{t} (in {})", verdict::human_duration(d))
    }
}

pub(super) fn timing(r: &mut Rows, p: &PactoView, d: &Decision, now: Timestamp, opts: Options) {
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
            if p.schema == Schema::Current
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
        .find(|f| f.outcome() == GateWord::Hold && f.verdict.is_some());
    if let (Some(f), Some(v)) = (holding, holding.and_then(|f| f.verdict.as_ref())) {
        let entry = |status| {
            crate::flux::wait::Checked {
                kind: crate::pacto::KIND.to_string(),
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
                    "if it turns NonCompliant first, Flux fails early, with a message like `health check failed after <elapsed>: {}`",
                    crate::flux::wait::fails_early_message(&[entry(crate::flux::KStatus::Failed)])
                ),
                Tone::Plain,
            ));
        }
        let timeout = crate::k8s::duration::parse_go_duration(&f.timeout).unwrap_or_default();
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

#[cfg(test)]
mod tests {
    use super::super::testing::{rows_of, value};
    use serde_json::json;

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
}
