//! The `doctor` report: a table grouped by object (ID, SEVERITY, OBJECT, FINDING, FIX), and the
//! same findings as data for `-o json|yaml`.

use super::pacto::clip;
use super::{one_line, table};
use crate::doctor::{Report, Severity};
use owo_colors::OwoColorize;
use serde_json::{json, Value};

fn severity_word(s: Severity, colour: bool) -> String {
    let w = s.as_str();
    if !colour {
        return w.to_string();
    }
    match s {
        Severity::Error => w.red().to_string(),
        Severity::Warning => w.yellow().to_string(),
        Severity::Info => w.to_string(),
    }
}

/// The table, findings grouped by object (the report's order), the object named on every row so
/// that a row stands alone (`| grep`). `wide` adds the EVIDENCE column; `contexts` (several
/// clusters checked at once: the context of each finding, in order) a CONTEXT column first.
/// Empty when there is no finding.
pub fn doctor_table(
    report: &Report,
    colour: bool,
    wide: bool,
    width: Option<usize>,
    contexts: Option<&[String]>,
) -> String {
    if report.findings.is_empty() {
        return String::new();
    }
    let rows = report
        .findings
        .iter()
        .enumerate()
        .map(|(i, f)| {
            // Cells are cut (the whole text is in -o json): a table's layout grows with the
            // square of its widest cell.
            let mut row: Vec<String> = contexts
                .map(|c| clip(&one_line(c.get(i).map(String::as_str).unwrap_or(""))))
                .into_iter()
                .collect();
            row.extend([
                f.id.to_string(),
                severity_word(f.severity, colour),
                clip(&one_line(&f.object)),
                clip(&one_line(&f.finding)),
                clip(&one_line(&f.fix)),
            ]);
            if wide {
                row.push(clip(&one_line(&f.evidence)));
            }
            row
        })
        .collect();
    let mut headers = Vec::new();
    if contexts.is_some() {
        headers.push("CONTEXT");
    }
    headers.extend(["ID", "SEVERITY", "OBJECT", "FINDING", "FIX"]);
    if wide {
        headers.push("EVIDENCE");
    }
    // On a terminal (`width`), the finding and the fix are wrapped to fit it; `-o wide` keeps
    // each on one line.
    let shift = usize::from(contexts.is_some());
    let rows = match width {
        Some(w) if !wide => super::fit::fit(&headers, rows, w, &[3 + shift, 4 + shift]),
        _ => rows,
    };
    table(&headers, rows)
}

/// The closing line: `N errors, N warnings, N info` (what decides the exit code).
pub fn doctor_summary(report: &Report) -> String {
    let count = |s: Severity| report.findings.iter().filter(|f| f.severity == s).count();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {}, {} info\n",
        plural(count(Severity::Error), "error"),
        plural(count(Severity::Warning), "warning"),
        count(Severity::Info)
    )
}

/// `-o json|yaml`: `{"kind": "DoctorReport", "findings": [{id, severity, object, evidence,
/// finding, fix}], "notes": [...]}`.
pub fn doctor_json(report: &Report) -> Value {
    json!({
        "apiVersion": "pacto.trianalab.io/v1alpha1",
        "kind": "DoctorReport",
        "findings": report.findings,
        "notes": report.notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::Finding;

    #[test]
    fn every_row_names_its_object() {
        let f = |id: &'static str, object: &str| Finding {
            id,
            severity: Severity::Error,
            object: object.into(),
            evidence: "e".into(),
            finding: "f".into(),
            fix: "x".into(),
        };
        let report = Report {
            findings: vec![
                f("A01", "ConfigMap argocd/argocd-cm"),
                f("A03", "ConfigMap argocd/argocd-cm"),
                f("O01", "Pacto shop/orders"),
            ],
            ..Report::default()
        };
        assert_eq!(
            doctor_table(&report, false, false, None, None),
            "ID    SEVERITY   OBJECT                       FINDING   FIX\n\
             A01   error      ConfigMap argocd/argocd-cm   f         x\n\
             A03   error      ConfigMap argocd/argocd-cm   f         x\n\
             O01   error      Pacto shop/orders            f         x\n"
        );
        assert_eq!(doctor_summary(&report), "3 errors, 0 warnings, 0 info\n");
    }
}
