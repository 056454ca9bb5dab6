//! The verdict's evidence in the `explain` report: the findings (by severity, the headline
//! marked), the validation errors and the conditions, as the operator wrote them in the status
//! (TrianaLab/pacto `integrations/kubernetes/api/v1alpha1/pacto_types.go`, read through
//! [`PactoView`]; legacy TrianaLab/pacto-operator statuses give check counts instead).

use super::{Rows, Tone};
use crate::pacto::verdict;
use crate::pacto::view::{PactoView, Schema};

pub(super) fn findings(r: &mut Rows, p: &PactoView) {
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
            .clone()
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
            format!("{} {}: {}", e.code, e.path, e.message),
            Tone::Bad,
        );
    }
}

pub(super) fn conditions(r: &mut Rows, p: &PactoView) {
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
            format!(": {}", c.message)
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

#[cfg(test)]
mod tests {
    use super::super::testing::{rows_of, value};
    use serde_json::json;

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
    fn messages_stay_raw_in_the_rows() {
        let rows = rows_of(
            json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "orders", "namespace": "shop", "generation": 1},
            "spec": {"target": {"serviceName": "orders"}},
            "status": {"contractStatus": "NonCompliant", "observedGeneration": 1,
                "findings": [{"code": "X", "severity": "error", "message": "line\nbreak\u{1b}[2J"}]}}),
        );
        assert_eq!(
            value(&rows, "error"),
            "X: line\nbreak\u{1b}[2J [headline: the first error finding]"
        );
    }
}
