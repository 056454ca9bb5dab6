//! What a Pacto's verdict means, whether it is fresh, and when it will change. Pure: the clock is
//! an argument.
//!
//! Sources (docs/upstream.md, "Pacto, its delivery and CoderTemplateTest"):
//! * contractStatus values and precedence: TrianaLab/pacto
//!   `integrations/kubernetes/api/v1alpha1/conditions.go`, and what an observation's outcome
//!   makes of it: TrianaLab/pacto `integrations/kubernetes/docs/generated/runtime-observations.md`;
//! * observedGeneration is the Pacto's generation: TrianaLab/pacto
//!   `integrations/kubernetes/docs/gitops.md`;
//! * the stabilization window, default 2m0s: TrianaLab/pacto
//!   `integrations/kubernetes/docs/generated/operator-configuration.md`;
//! * an absence becomes a violation after the stabilization window plus one requeue interval:
//!   the Pacto document "GitOps promotion gates", "Timing".

use super::view::PactoView;
use jiff::{SignedDuration, Timestamp};

/// The operator's `--stabilization-window` default: an absence reads Unknown
/// (EVIDENCE_INSUFFICIENT) until its negative streak spans this long.
pub const DEFAULT_STABILIZATION_WINDOW_SECONDS: i64 = 120;

/// How many check intervals may pass without a reconcile before the operator counts as not
/// reconciling (a Pacto requeues every `checkIntervalSeconds`). A heuristic of this tool (Flux and
/// Argo CD have no clock to gate on it), not a rule of the operator.
pub const LATE_AFTER_INTERVALS: i64 = 2;

/// The contractStatus values the current CRD allows, in the operator's words.
pub const KNOWN_VERDICTS: [&str; 7] = [
    "Compliant",
    "Warning",
    "NonCompliant",
    "Reference",
    "Unknown",
    "Invalid",
    "NotEvaluated",
];

/// What a contractStatus value means, one sentence. `None` is a status never written.
pub fn meaning(contract_status: Option<&str>) -> String {
    let Some(s) = contract_status else {
        return "no verdict yet: the operator has not finished evaluating this Pacto".to_string();
    };
    match s {
        "Compliant" => "the contract holds: no error, unknown or warning findings".to_string(),
        "Warning" => "the contract holds, with warning findings only (for example TAG_NOT_DIGEST)".to_string(),
        "NonCompliant" => "a confirmed violation: at least one error finding".to_string(),
        "Reference" => "a reference-only contract (no spec.target): validated, never observed at runtime".to_string(),
        "Unknown" => "not decided: a required assertion could not be evaluated, or the contract could not be obtained".to_string(),
        "Invalid" => "the contract could not be validated or loaded (validation errors, an override naming a missing configuration, or a malformed artifact): not evaluated".to_string(),
        "NotEvaluated" => "reserved value the operator does not write: no verdict".to_string(),
        other => match KNOWN_VERDICTS.iter().find(|k| k.eq_ignore_ascii_case(other)) {
            Some(k) => format!(
                "not a contractStatus value (values are case-sensitive; {k} was probably meant): treated as pending"
            ),
            None => "a value this plugin does not know (written by a newer operator?): treated as pending".to_string(),
        },
    }
}

/// [`meaning`] for this Pacto: the legacy operator's Warning and NonCompliant come from its
/// per-check conditions, not from findings (TrianaLab/pacto-operator
/// `computeFinalContractStatus`: a non-True ServiceExists or WorkloadExists, or an invalid
/// contract, is NonCompliant; any other non-True check is Warning).
pub fn meaning_of(p: &PactoView) -> String {
    let status = p.contract_status.as_deref();
    match (p.schema, status) {
        (super::view::Schema::Legacy, Some("Warning")) => {
            "legacy operator: a check other than ServiceExists and WorkloadExists failed (see Checks)".to_string()
        }
        (super::view::Schema::Legacy, Some("NonCompliant")) => {
            "legacy operator: the contract is invalid, or the Service or workload it names is missing".to_string()
        }
        (super::view::Schema::Current, Some("NonCompliant")) if p.first_error().is_none() => {
            format!("{} (the status lists no error finding)", meaning(status))
        }
        _ => meaning(status),
    }
}

/// Whether the verdict describes the current spec, and whether the operator keeps reconciling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// No status: never reconciled.
    NeverEvaluated,
    /// `status.observedGeneration` absent or different from `metadata.generation`: the verdict
    /// (if any) is for an older spec.
    GenerationNotObserved {
        observed: Option<i64>,
        generation: Option<i64>,
    },
    /// The generation is observed but the last reconcile is older than
    /// [`LATE_AFTER_INTERVALS`] × checkIntervalSeconds: the operator looks stopped.
    Late {
        age: SignedDuration,
        interval_seconds: i64,
    },
    /// Observed at this generation and reconciled recently (`age` None: no lastReconciledAt).
    Fresh { age: Option<SignedDuration> },
}

impl Freshness {
    /// The FRESH column: `-`, `no`, `late`, `yes`.
    pub fn word(self) -> &'static str {
        match self {
            Freshness::NeverEvaluated => "-",
            Freshness::GenerationNotObserved { .. } => "no",
            Freshness::Late { .. } => "late",
            Freshness::Fresh { .. } => "yes",
        }
    }
}

/// Computes [`Freshness`] at `now`.
pub fn freshness(p: &PactoView, now: Timestamp) -> Freshness {
    if !p.has_status {
        return Freshness::NeverEvaluated;
    }
    if p.observed_generation.is_none() || p.observed_generation != p.generation {
        return Freshness::GenerationNotObserved {
            observed: p.observed_generation,
            generation: p.generation,
        };
    }
    let age = p.last_reconciled_at.map(|t| now.duration_since(t));
    match age {
        Some(a) if a.as_secs() > LATE_AFTER_INTERVALS.saturating_mul(p.check_interval_seconds) => {
            Freshness::Late {
                age: a,
                interval_seconds: p.check_interval_seconds,
            }
        }
        _ => Freshness::Fresh { age },
    }
}

/// A condition whose `observedGeneration` is below `metadata.generation` describes an older spec.
pub fn condition_is_stale(c: &super::view::Condition, generation: Option<i64>) -> bool {
    matches!((c.observed_generation, generation), (Some(o), Some(g)) if o < g)
}

/// The finding code an absence turns into once its window is over (the timing table of "GitOps
/// promotion gates", TrianaLab/pacto `pkg/finding/codes.go` RuntimeDrift family).
fn absence_code(window_kind: &str) -> Option<&'static str> {
    match window_kind {
        "interface" => Some("INTERFACE_ABSENT"),
        "dependency" => Some("DEPENDENCY_UNREACHABLE"),
        "configuration" => Some("CONFIGURATION_ABSENT"),
        "capability" => Some("CAPABILITY_ABSENT"),
        _ => None,
    }
}

/// When a negative streak turns into a confirmed violation if nothing changes: the window ends at
/// `firstObservedNegativeAt + stabilization window`, and the confirming reconcile comes at most one
/// `checkIntervalSeconds` later ("GitOps promotion gates", "Timing": window + one requeue).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escalation {
    /// The window's kind: interface, dependency, configuration or capability.
    pub kind: String,
    /// The assertion's subject, e.g. `http-api`.
    pub subject: String,
    /// The finding code it becomes (None for a window kind this plugin does not know).
    pub code: Option<&'static str>,
    /// firstObservedNegativeAt + the stabilization window.
    pub window_ends: Timestamp,
    /// window_ends + one checkIntervalSeconds: the confirming reconcile comes by then.
    pub latest: Timestamp,
}

/// The escalations of every observation window with a start time, in status order.
pub fn escalations(p: &PactoView, window_seconds: i64) -> Vec<Escalation> {
    p.observation_windows
        .iter()
        .filter_map(|w| {
            let start = w.first_observed_negative_at?;
            // Past the end of time only with absurd inputs: saturate rather than drop the window.
            let window_ends = start
                .checked_add(SignedDuration::from_secs(window_seconds))
                .unwrap_or(Timestamp::MAX);
            let latest = window_ends
                .checked_add(SignedDuration::from_secs(p.check_interval_seconds))
                .unwrap_or(Timestamp::MAX);
            Some(Escalation {
                kind: w.kind.clone(),
                subject: w.subject.clone(),
                code: absence_code(&w.kind),
                window_ends,
                latest,
            })
        })
        .collect()
}

/// kubectl's `duration.HumanDuration` (k8s.io/apimachinery `pkg/util/duration/duration.go`), the
/// AGE column: `45s`, `3m20s`, `17m`, `5h10m`, `30h`, `3d4h`, `40d`, `2y30d`, `9y`;
/// `<invalid>` more than a second in the future, `0s` just under.
pub fn human_duration(d: SignedDuration) -> String {
    let seconds = d.as_secs();
    if seconds < -1 {
        return "<invalid>".to_string();
    }
    if seconds < 0 {
        return "0s".to_string();
    }
    if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{dy}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    /// The current operator line's CRD enum for `status.contractStatus` (TrianaLab/pacto
    /// `integrations/kubernetes` `api/v1alpha1`: Compliant, Warning, NonCompliant, Reference,
    /// Unknown, and the current line's Invalid and NotEvaluated): every value is known and has
    /// its own meaning; values are case-sensitive, and a near miss says which was meant.
    #[test]
    fn the_known_verdicts_are_the_crds_enum() {
        let crd_enum = [
            "Compliant",
            "Warning",
            "NonCompliant",
            "Reference",
            "Unknown",
            "Invalid",
            "NotEvaluated",
        ];
        let mut known = KNOWN_VERDICTS.to_vec();
        let mut want = crd_enum.to_vec();
        known.sort_unstable();
        want.sort_unstable();
        assert_eq!(known, want);
        for v in crd_enum {
            let m = meaning(Some(v));
            assert!(
                !m.contains("not a contractStatus value") && !m.contains("does not know"),
                "{v}: {m}"
            );
        }
        assert!(meaning(Some("noncompliant")).contains("NonCompliant was probably meant"));
        assert!(meaning(Some("Provisional")).contains("does not know"));
    }

    #[test]
    fn human_duration_follows_apimachinery_thresholds() {
        // Expected strings from k8s.io/apimachinery pkg/util/duration/duration_test.go
        // (TestHumanDuration), in milliseconds.
        const S: i64 = 1000;
        const M: i64 = 60 * S;
        const H: i64 = 60 * M;
        const D: i64 = 24 * H;
        const Y: i64 = 365 * D;
        let cases = [
            (-2 * S, "<invalid>"),
            (-2 * S + 1, "0s"),
            (0, "0s"),
            (S - 1, "0s"),
            (2 * M - 1, "119s"),
            (2 * M, "2m"),
            (2 * M + S, "2m1s"),
            (10 * M - 1, "9m59s"),
            (10 * M, "10m"),
            (10 * M + S, "10m"),
            (3 * H - 1, "179m"),
            (3 * H, "3h"),
            (3 * H + M, "3h1m"),
            (8 * H - 1, "7h59m"),
            (8 * H, "8h"),
            (8 * H + 59 * M, "8h"),
            (2 * D - 1, "47h"),
            (2 * D, "2d"),
            (2 * D + H, "2d1h"),
            (8 * D - 1, "7d23h"),
            (8 * D, "8d"),
            (8 * D + 23 * H, "8d"),
            (2 * Y - 1, "729d"),
            (2 * Y, "2y"),
            (2 * Y + 23 * H + 59 * M, "2y"),
            (2 * Y + D - 1, "2y"),
            (2 * Y + D, "2y1d"),
            (3 * Y, "3y"),
            (7 * Y, "7y"),
            (8 * Y - 1, "7y364d"),
            (8 * Y, "8y"),
            (8 * Y + 364 * D, "8y"),
            (9 * Y, "9y"),
        ];
        for (ms, want) in cases {
            assert_eq!(
                human_duration(SignedDuration::from_millis(ms)),
                want,
                "{ms}ms"
            );
        }
    }

    #[test]
    fn freshness_distinguishes_stale_generation_late_and_fresh() {
        let now = at("2026-11-29T12:00:00Z");
        let p = |og: Option<i64>, last: &str| {
            let mut st = json!({"contractStatus": "Compliant", "lastReconciledAt": last});
            if let Some(og) = og {
                st["observedGeneration"] = json!(og);
            }
            PactoView::new(
                &json!({"metadata": {"generation": 3}, "spec": {"target": {}}, "status": st}),
            )
        };
        assert_eq!(
            freshness(&p(Some(2), "2026-11-29T11:59:00Z"), now),
            Freshness::GenerationNotObserved {
                observed: Some(2),
                generation: Some(3)
            }
        );
        assert_eq!(
            freshness(&p(None, "2026-11-29T11:59:00Z"), now).word(),
            "no"
        );
        assert_eq!(
            freshness(&p(Some(3), "2026-11-29T11:59:00Z"), now).word(),
            "yes"
        );
        // Default interval 300 s: late after 600 s.
        assert_eq!(
            freshness(&p(Some(3), "2026-11-29T11:50:00Z"), now).word(),
            "yes"
        );
        assert_eq!(
            freshness(&p(Some(3), "2026-11-29T11:49:59Z"), now).word(),
            "late"
        );
        assert_eq!(
            freshness(&PactoView::new(&json!({})), now),
            Freshness::NeverEvaluated
        );
    }

    #[test]
    fn escalation_is_window_plus_one_interval() {
        let p = PactoView::new(&json!({
            "spec": {"checkIntervalSeconds": 30},
            "status": {"observationWindows": [
                {"kind": "interface", "subject": "http-api", "firstObservedNegativeAt": "2026-11-29T11:59:00Z"},
                {"kind": "telepathy", "subject": "x", "firstObservedNegativeAt": "2026-11-29T11:59:00Z"},
                {"kind": "dependency", "subject": "no-start"}
            ]}
        }));
        let e = escalations(&p, DEFAULT_STABILIZATION_WINDOW_SECONDS);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].code, Some("INTERFACE_ABSENT"));
        assert_eq!(e[0].window_ends, at("2026-11-29T12:01:00Z"));
        assert_eq!(e[0].latest, at("2026-11-29T12:01:30Z"));
        assert_eq!(e[1].code, None);
    }

    #[test]
    fn meanings_keep_unknown_values_and_flag_wrong_case() {
        assert!(meaning(Some("compliant")).contains("Compliant was probably meant"));
        assert!(meaning(Some("Provisional")).contains("does not know"));
        assert!(meaning(None).starts_with("no verdict yet"));
    }

    fn yaml(text: &str) -> Value {
        serde_saphyr::from_str(text).expect("valid YAML")
    }

    /// testdata/freshness.yaml: the FRESH word for each row.
    #[test]
    fn freshness_table() {
        let now = at("2026-11-29T12:00:00Z");
        let t = yaml(include_str!("testdata/freshness.yaml"));
        for row in t["rows"].as_array().unwrap() {
            let name = row["name"].as_str().unwrap();
            let mut obj = json!({"metadata": {}, "spec": {"target": {}}});
            if let Some(g) = row.get("generation") {
                obj["metadata"]["generation"] = g.clone();
            }
            if let Some(i) = row.get("interval") {
                obj["spec"]["checkIntervalSeconds"] = i.clone();
            }
            if row.get("status") != Some(&json!(false)) {
                let mut st = json!({"contractStatus": "Compliant"});
                if let Some(o) = row.get("observed") {
                    st["observedGeneration"] = o.clone();
                }
                if let Some(age) = row.get("age").and_then(Value::as_i64) {
                    let t = now.checked_sub(SignedDuration::from_secs(age)).unwrap();
                    st["lastReconciledAt"] = json!(t.to_string());
                }
                obj["status"] = st;
            }
            let word = freshness(&PactoView::new(&obj), now).word();
            assert_eq!(word, row["word"].as_str().unwrap(), "{name}");
        }
    }

    /// testdata/timing.yaml: when each absence is confirmed.
    #[test]
    fn timing_table() {
        let t = yaml(include_str!("testdata/timing.yaml"));
        for row in t["rows"].as_array().unwrap() {
            let kind = row["kind"].as_str().unwrap();
            let p = PactoView::new(&json!({
                "spec": {"checkIntervalSeconds": row["interval"]},
                "status": {"observationWindows": [
                    {"kind": kind, "subject": "s", "firstObservedNegativeAt": row["start"]}]}
            }));
            let e = escalations(&p, row["window"].as_i64().unwrap());
            assert_eq!(e.len(), 1, "{kind}");
            assert_eq!(e[0].code, row["code"].as_str(), "{kind}");
            assert_eq!(
                e[0].window_ends,
                at(row["ends"].as_str().unwrap()),
                "{kind}"
            );
            assert_eq!(e[0].latest, at(row["latest"].as_str().unwrap()), "{kind}");
        }
    }
}
