//! The reconcile run's output: the report of what became of each Stage (a table, or the
//! `ReconcileReport` document for `-o json|yaml`), the planned patches of `--dry-run`, and the
//! lines on stderr that sum the run up. The words are `crate::reconcile::report`'s.

use super::{one_line, table as layout};
use crate::reconcile::report::{how, unwritten, StageResult};
use crate::reconcile::Change;
use serde_json::{json, Value};

/// The report as data: `{"apiVersion": "pacto.trianalab.io/v1alpha1", "kind":
/// "ReconcileReport", "stages": [{namespace, name, result, detail}]}`.
pub fn report_json(results: &[StageResult]) -> Value {
    let stages: Vec<Value> = results
        .iter()
        .map(|r| {
            json!({"namespace": r.namespace, "name": r.name, "result": r.written.as_str(),
                "detail": r.detail})
        })
        .collect();
    json!({
        "apiVersion": "pacto.trianalab.io/v1alpha1",
        "kind": "ReconcileReport",
        "stages": stages,
    })
}

/// The report as a table (NAMESPACE, NAME, RESULT, DETAIL), text escaped for the terminal;
/// empty without Stages (the caller says "No resources found").
pub fn report_table(results: &[StageResult]) -> String {
    if results.is_empty() {
        return String::new();
    }
    layout(
        &["NAMESPACE", "NAME", "RESULT", "DETAIL"],
        results
            .iter()
            .map(|r| {
                vec![
                    one_line(&r.namespace),
                    one_line(&r.name),
                    r.written.as_str().to_string(),
                    one_line(&r.detail),
                ]
            })
            .collect(),
    )
}

/// `--dry-run`: each planned write as a YAML document headed by comments naming the Stage, how
/// it would be written and why. Errors: the body cannot be written as YAML.
pub fn dry_run(changes: &[Change]) -> Result<String, String> {
    let mut out = String::new();
    for c in changes {
        if let Some(why) = &c.refused {
            out.push_str(&format!(
                "---\n# Stage {}/{}: would not be written: {}\n",
                one_line(&c.namespace),
                one_line(&c.name),
                one_line(why)
            ));
            continue;
        }
        let Some(w) = &c.write else { continue };
        out.push_str(&format!(
            "---\n# Stage {}/{}: {}\n# why: {}\n",
            one_line(&c.namespace),
            one_line(&c.name),
            how(w),
            one_line(&c.why.join("; "))
        ));
        out.push_str(
            &serde_saphyr::to_string(w.body()).map_err(|e| format!("rendering YAML: {e}"))?,
        );
    }
    Ok(out)
}

/// The note of a dry run: how many Stages would be written, how many are unchanged, and how
/// many could not be written.
pub fn dry_run_note(changes: &[Change]) -> String {
    let refused = changes.iter().filter(|c| c.refused.is_some()).count();
    let written = changes.iter().filter(|c| c.write.is_some()).count();
    let unchanged = changes.len() - written - refused;
    let refused = if refused > 0 {
        format!(", {refused} could not be")
    } else {
        String::new()
    };
    format!(
        "dry run: {written} of {} Stages would be written, {unchanged} unchanged{refused}; nothing was written",
        changes.len()
    )
}

/// The error line of a run that left Stages unwritten (None when none was), escaped.
pub fn unwritten_error(results: &[StageResult]) -> Option<String> {
    let failed = unwritten(results);
    (!failed.is_empty()).then(|| {
        format!(
            "{} Stage(s) left unwritten: {}",
            failed.len(),
            one_line(&failed.join(", "))
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::condition::Condition;
    use crate::reconcile::report::{Failure, Written};
    use crate::reconcile::Write;

    fn change(name: &str, write: Option<Write>) -> Change {
        let c = |t: &'static str| Condition {
            type_: t,
            status: "True",
            reason: "R".into(),
            message: String::new(),
        };
        Change {
            namespace: "test".into(),
            name: name.into(),
            uid: None,
            conditions: [c("Ready"), c("Mediated")],
            write,
            why: vec!["Ready differs".into()],
            refused: None,
        }
    }

    /// kubectl's table layout (three spaces between columns, as `render::table`), text from
    /// the cluster escaped for the terminal, the same results as data, and the run summed up.
    #[test]
    fn the_report_as_a_table_as_data_and_summed_up() {
        let results = [
            StageResult::done(&change("payments", None)),
            StageResult::failed(
                &change("bill\u{1b}[2Jing", None),
                Failure::Other("timeout\nafter 1s"),
            ),
        ];
        assert_eq!(
            report_table(&results),
            "NAMESPACE   NAME             RESULT      DETAIL\n\
             test        payments         unchanged\n\
             test        bill\\x1b[2Jing   failed      timeout\\nafter 1s\n"
        );
        assert_eq!(report_table(&[]), "");
        let data = report_json(&results);
        assert_eq!(data["kind"], json!("ReconcileReport"));
        assert_eq!(
            data["stages"][1],
            json!({"namespace": "test", "name": "bill\u{1b}[2Jing", "result": "failed",
                "detail": "timeout\nafter 1s"})
        );
        assert_eq!(
            unwritten_error(&results).as_deref(),
            Some("1 Stage(s) left unwritten: test/bill\\x1b[2Jing")
        );
        assert_eq!(unwritten_error(&results[..1]), None);
        assert_eq!(results[0].written, Written::Unchanged);
    }

    #[test]
    fn a_dry_run_prints_each_planned_patch_with_its_reasons() {
        let changes = [
            change(
                "payments",
                Some(Write::Apply(json!({"status": {"observedGeneration": 2}}))),
            ),
            change("orders", None),
        ];
        assert_eq!(
            dry_run(&changes).unwrap(),
            "---\n# Stage test/payments: server-side apply of stages/status, field manager kubectl-pacto\n# why: Ready differs\nstatus:\n  observedGeneration: 2\n"
        );
        assert_eq!(
            dry_run_note(&changes),
            "dry run: 1 of 2 Stages would be written, 1 unchanged; nothing was written"
        );
        let refused = [Change {
            refused: Some("no resourceVersion".into()),
            ..change("ledger", None)
        }];
        assert_eq!(
            dry_run(&refused).unwrap(),
            "---\n# Stage test/ledger: would not be written: no resourceVersion\n"
        );
        assert_eq!(
            dry_run_note(&[changes[0].clone(), refused[0].clone()]),
            "dry run: 1 of 2 Stages would be written, 0 unchanged, 1 could not be; nothing was written"
        );
    }
}
