//! The `get` tables of delivery Stages and Operations. What the columns hold is decided in
//! [`crate::delivery`] (the computed conditions, an Operation's gates waiting on a person); this
//! file lays them out as kubectl does, escapes them for the terminal and colours status words.

use super::one_line;
use super::pacto::{clip, paint, TableOptions, NONE};
use crate::delivery::explain::same;
use crate::delivery::operation::{waiting, Waiting};
use crate::delivery::view::{OperationView, StageView};
use crate::delivery::{Computed, Condition};
use crate::pacto::explain::Tone;
use crate::pacto::verdict::human_duration;
use jiff::Timestamp;

/// One Stage of a `get stages` listing with its computed conditions.
pub struct StageRow<'a> {
    pub view: &'a StageView<'a>,
    pub computed: &'a Computed,
}

/// A digest as the plain table shows it: the algorithm and the first 12 hex digits
/// (`sha256:0123456789ab`), like the short image IDs of container tools. Text without an
/// algorithm is kept whole.
pub fn short_digest(digest: &str) -> String {
    match digest.split_once(':') {
        Some((algorithm, hex)) => {
            format!("{algorithm}:{}", hex.chars().take(12).collect::<String>())
        }
        None => digest.to_string(),
    }
}

fn or_none(s: &str) -> String {
    if s.is_empty() {
        NONE.to_string()
    } else {
        clip(&one_line(s))
    }
}

fn status_tone(status: &str) -> Tone {
    match status {
        "True" => Tone::Good,
        "False" => Tone::Bad,
        _ => Tone::Pending,
    }
}

/// AGE: since `metadata.creationTimestamp`, `<unknown>` without one (or with one that is not a
/// time).
fn age(creation: &str, now: Timestamp) -> String {
    creation
        .parse::<Timestamp>()
        .map(|t| human_duration(now.duration_since(t)))
        .unwrap_or_else(|_| "<unknown>".to_string())
}

/// The reason of the first computed condition that is not True (Ready first), `<none>` when both
/// are.
fn reason(c: &Computed) -> String {
    c.conditions()
        .into_iter()
        .find(|c| c.status != "True")
        .map(|c: &Condition| c.reason.clone())
        .unwrap_or_else(|| NONE.to_string())
}

/// `same` when the conditions written on the Stage say what is computed (status and reason of
/// both), else `differs`.
fn written(view: &StageView, c: &Computed) -> &'static str {
    let agrees = c
        .conditions()
        .into_iter()
        .all(|c| same(view.condition(c.type_), c.status, &c.reason));
    if agrees {
        "same"
    } else {
        "differs"
    }
}

/// The `kubectl pacto get stages` table: [NAMESPACE] NAME READY MEDIATED REASON POINTER LEVEL
/// AGE, then with `-o wide` SERVICE ENVIRONMENT APPLY WRITTEN. READY and MEDIATED are the
/// computed condition statuses; POINTER is `status.pointer`, shortened unless wide.
pub fn stage_table(rows: &[StageRow], o: TableOptions<'_>) -> String {
    let mut headers: Vec<&str> = Vec::new();
    if o.all_namespaces {
        headers.push("NAMESPACE");
    }
    headers.extend([
        "NAME", "READY", "MEDIATED", "REASON", "POINTER", "LEVEL", "AGE",
    ]);
    if o.wide {
        headers.extend(["SERVICE", "ENVIRONMENT", "APPLY", "WRITTEN"]);
    }
    let body = rows
        .iter()
        .map(|r| {
            let (v, c) = (r.view, r.computed);
            let mut cells = Vec::new();
            if o.all_namespaces {
                cells.push(or_none(v.this.namespace));
            }
            cells.push(or_none(v.this.name));
            for cond in c.conditions() {
                cells.push(paint(cond.status, status_tone(cond.status), o.colour));
            }
            cells.push(reason(c));
            cells.push(if o.wide {
                or_none(v.pointer)
            } else {
                or_none(&short_digest(v.pointer))
            });
            cells.push(or_none(v.level));
            cells.push(age(v.creation_timestamp, o.now));
            if o.wide {
                cells.push(or_none(v.service));
                cells.push(or_none(v.environment));
                cells.push(or_none(v.apply_ref));
                cells.push(written(v, c).to_string());
            }
            cells
        })
        .collect();
    super::get_table(headers, body, &o)
}

/// WAITING-ON ([`waiting`]): `the promoter` for a Held operation an Approval counts for, else
/// the gates a person decides on, joined by commas (`a person` when none is named); `-` in
/// every other phase.
fn waiting_cell(op: &OperationView, approved: bool) -> String {
    match waiting(op, approved) {
        Waiting::Nothing => "-".to_string(),
        Waiting::Promoter => "the promoter".to_string(),
        Waiting::Person => "a person".to_string(),
        Waiting::Gates(gates) => clip(&one_line(&gates.join(","))),
    }
}

fn phase_tone(phase: &str) -> Tone {
    match phase {
        "Succeeded" => Tone::Good,
        "Failed" => Tone::Bad,
        "Held" => Tone::Warn,
        _ => Tone::Pending,
    }
}

/// The `kubectl pacto get operations` table: [NAMESPACE] NAME TYPE STAGE PHASE WAITING-ON AGE,
/// then with `-o wide` VERSION DIGEST ACTOR. `approved[i]` says an Approval counts for `ops[i]`
/// (missing: none does).
pub fn operation_table(ops: &[OperationView], approved: &[bool], o: TableOptions<'_>) -> String {
    let mut headers: Vec<&str> = Vec::new();
    if o.all_namespaces {
        headers.push("NAMESPACE");
    }
    headers.extend(["NAME", "TYPE", "STAGE", "PHASE", "WAITING-ON", "AGE"]);
    if o.wide {
        headers.extend(["VERSION", "DIGEST", "ACTOR"]);
    }
    let body = ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let mut cells = Vec::new();
            if o.all_namespaces {
                cells.push(or_none(op.this.namespace));
            }
            cells.push(or_none(op.this.name));
            cells.push(or_none(op.type_));
            cells.push(or_none(op.stage));
            cells.push(paint(&or_none(op.phase), phase_tone(op.phase), o.colour));
            cells.push(waiting_cell(op, approved.get(i).copied().unwrap_or(false)));
            cells.push(age(op.creation_timestamp, o.now));
            if o.wide {
                cells.push(or_none(op.version));
                cells.push(or_none(op.digest));
                cells.push(or_none(op.actor));
            }
            cells
        })
        .collect();
    super::get_table(headers, body, &o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn digests_are_cut_to_twelve_hex_digits() {
        assert_eq!(
            short_digest("sha256:0123456789abcdef0123456789abcdef"),
            "sha256:0123456789ab"
        );
        assert_eq!(short_digest("sha256:01ab"), "sha256:01ab");
        assert_eq!(short_digest("latest"), "latest");
        assert_eq!(short_digest(""), "");
    }

    #[test]
    fn waiting_on_is_for_held_operations_only() {
        let op = |phase: &str, verdicts: serde_json::Value| {
            OperationView::new(crate::testutil::kept(json!({
                "metadata": {"name": "o", "namespace": "n"},
                "spec": {"type": "promote"},
                "status": {"phase": phase, "verdicts": verdicts}
            })))
        };
        let unknown = json!([{"gate": "pacto.suites", "phase": "before", "result": "Unknown"},
                             {"gate": "pacto.impact", "phase": "before", "result": "Fail"}]);
        assert_eq!(
            waiting_cell(&op("Held", unknown.clone()), false),
            "pacto.suites,pacto.impact"
        );
        assert_eq!(
            waiting_cell(&op("Held", unknown.clone()), true),
            "the promoter"
        );
        assert_eq!(waiting_cell(&op("Held", json!([])), false), "a person");
        assert_eq!(waiting_cell(&op("Pending", unknown), true), "-");
    }
}
