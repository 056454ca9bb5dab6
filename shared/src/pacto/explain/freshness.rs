//! Whether the verdict is current in the `explain` report: generation against observed
//! generation, the last reconcile against the check interval, deletion and readiness. The rules
//! are [`verdict::freshness`] (TrianaLab/pacto `docs/gitops.md`: observedGeneration is the
//! Pacto's generation; the Pacto requeues every `checkIntervalSeconds`).

use super::{seconds, Rows, Tone};
use crate::pacto::verdict::{self, Freshness};
use crate::pacto::view::PactoView;
use jiff::Timestamp;

pub(super) fn freshness(r: &mut Rows, p: &PactoView, now: Timestamp) {
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
                (Some(o), _) if generation.is_some_and(|g| o > g) => format!(
                    "{}, observed {}: the status names a generation the object never had (written by hand, or copied with the object); the gates wait for the operator to write it again",
                    g(generation),
                    g(observed)
                ),
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
