//! The `get` table of Pactos, the `explain` block, and the kubectl `List` of `-o json|yaml`.

use super::{one_line, status_word};
use crate::pacto::explain::{verdict_tone, Row, Tone};
use crate::pacto::gate::{Decision, GateWord};
use crate::pacto::verdict::{self, human_duration};
use crate::pacto::view::{PactoView, Schema};
use jiff::{SignedDuration, Timestamp};
use owo_colors::OwoColorize;
use serde_json::{json, Value};

/// One Pacto of a `get` listing with what its gates decide.
pub struct PactoRow<'a> {
    pub view: &'a PactoView,
    pub decision: &'a Decision,
}

/// How to lay out a `get` table (Pactos, Stages or Operations).
#[derive(Debug, Clone, Copy)]
pub struct TableOptions<'a> {
    /// Several contexts (`get --context a,b`, `--all-contexts`): a CONTEXT column first, one
    /// cell per row in row order (the context each row was read from).
    pub contexts: Option<&'a [String]>,
    /// `-A`: a NAMESPACE column first (after CONTEXT).
    pub all_namespaces: bool,
    /// `-o wide`: the wide columns of the kind too.
    pub wide: bool,
    /// The header line (kubectl's `--no-headers` clears it).
    pub headers: bool,
    /// kubectl's `--show-labels`: a last LABELS column, one cell per row in row order
    /// (`key=value,...`, see [`super::labels_cell`]).
    pub labels: Option<&'a [String]>,
    /// Columns at least this wide ([`super::column_widths`] of the listing): rows printed
    /// under a listing (`get -w`) line up with it.
    pub min_widths: Option<&'a [usize]>,
    pub colour: bool,
    pub now: Timestamp,
}

pub(super) const NONE: &str = "<none>";

fn or_none(v: Option<impl ToString>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| NONE.to_string())
}

pub(super) fn paint(word: &str, tone: Tone, colour: bool) -> String {
    if !colour {
        return word.to_string();
    }
    match tone {
        Tone::Good => word.green().to_string(),
        Tone::Pending => word.yellow().to_string(),
        Tone::Bad => word.red().to_string(),
        Tone::Warn => word.magenta().to_string(),
        Tone::Plain => word.to_string(),
    }
}

fn gate_tone(d: &Decision) -> Tone {
    let (a, f) = (d.argo_outcome(), d.flux_outcome());
    match a.max(f) {
        GateWord::Fail => Tone::Bad,
        GateWord::Hold => Tone::Pending,
        GateWord::Pass if a == f => Tone::Good,
        GateWord::Pass => Tone::Warn,
        GateWord::None => Tone::Warn,
    }
}

/// The widest table cell, in characters (the whole text is in `explain` and `-o json`): the
/// table's layout cost grows with the square of a cell's length.
const MAX_CELL: usize = 400;

pub(super) fn clip(s: &str) -> String {
    if s.chars().count() <= MAX_CELL {
        return s.to_string();
    }
    let mut out: String = s.chars().take(MAX_CELL - 1).collect();
    out.push('…');
    out
}

/// The `kubectl pacto get` table: [NAMESPACE] NAME STATUS SERVICE VERSION ERRORS WARNINGS GATE
/// [ARGO FLUX] FRESH [RECONCILED INTERVAL SCHEMA] AGE FINDING. Missing values read `<none>` as in
/// kubectl; status words are coloured only when `colour` is set.
pub fn pacto_table(rows: &[PactoRow], o: TableOptions<'_>) -> String {
    let mut headers: Vec<&str> = Vec::new();
    if o.all_namespaces {
        headers.push("NAMESPACE");
    }
    headers.extend([
        "NAME", "STATUS", "SERVICE", "VERSION", "ERRORS", "WARNINGS", "GATE",
    ]);
    if o.wide {
        headers.extend(["ARGO", "FLUX"]);
    }
    headers.push("FRESH");
    if o.wide {
        headers.extend(["RECONCILED", "INTERVAL", "SCHEMA"]);
    }
    headers.extend(["AGE", "FINDING"]);
    let body = rows
        .iter()
        .map(|r| {
            let v = r.view;
            let d = r.decision;
            let mut cells = Vec::new();
            if o.all_namespaces {
                cells.push(clip(&one_line(&v.namespace)));
            }
            cells.push(clip(&one_line(&v.name)));
            let status = v.contract_status.as_deref();
            cells.push(paint(
                &clip(&one_line(status.unwrap_or(NONE))),
                verdict_tone(status),
                o.colour,
            ));
            cells.push(clip(&one_line(&or_none(v.service_name.as_ref()))));
            cells.push(clip(&one_line(&or_none(v.version.as_ref()))));
            let (errors, warnings) = if v.schema == Schema::Legacy {
                let (e, w) = v.legacy_counts();
                (e.to_string(), w.to_string())
            } else {
                (or_none(v.summary.errors), or_none(v.summary.warnings))
            };
            cells.push(errors);
            cells.push(warnings);
            cells.push(paint(&d.gate_word(), gate_tone(d), o.colour));
            if o.wide {
                let argo = match (&d.argo, &d.argo_load_error) {
                    (_, Some(_)) => "Unknown".to_string(),
                    (Some(a), None) => match a.health.as_ref().map(|h| h.status.as_str()) {
                        None => NONE.into(),
                        Some("") => "<empty>".into(),
                        Some(st) => st.to_string(),
                    },
                    (None, None) => NONE.into(),
                };
                cells.push(status_word(&argo, o.colour));
                let flux: Vec<String> = d
                    .flux
                    .iter()
                    .map(|f| match (&f.verdict, f.waits) {
                        (Some(v), true) => v.status.as_str().to_string(),
                        (Some(_), false) => "not-waited".to_string(),
                        (None, _) => "invalid".to_string(),
                    })
                    .collect();
                cells.push(status_word(&flux.join(","), o.colour));
            }
            cells.push(verdict::freshness(v, o.now).word().to_string());
            if o.wide {
                cells.push(
                    v.last_reconciled_at
                        .map(|t| human_duration(o.now.duration_since(t)))
                        .unwrap_or_else(|| NONE.into()),
                );
                cells.push(human_duration(SignedDuration::from_secs(
                    v.check_interval_seconds,
                )));
                cells.push(v.schema.as_str().to_string());
            }
            cells.push(
                v.creation_timestamp
                    .map(|t| human_duration(o.now.duration_since(t)))
                    .unwrap_or_else(|| "<unknown>".into()),
            );
            cells.push(clip(&one_line(&v.headline())));
            cells
        })
        .collect();
    super::get_table(headers, body, &o)
}

/// The `explain` block: `Key:` then the value at one column, details indented by two spaces;
/// the first word of a value is coloured by its tone when `colour` is set.
pub fn explain_text(rows: &[Row], colour: bool) -> String {
    let width = |indent: usize| {
        rows.iter()
            .filter(|r| r.indent == indent && !r.key.is_empty())
            .map(|r| r.key.chars().count() + 1)
            .max()
            .unwrap_or(0)
    };
    let (w0, w1) = (width(0), width(1));
    let column = w0.max(w1 + 2) + 2;
    let mut out = String::new();
    for r in rows {
        let label = if r.key.is_empty() {
            String::new()
        } else {
            format!("{}:", one_line(&r.key))
        };
        let escaped = one_line(&r.value);
        let lead = format!("{}{label}", "  ".repeat(r.indent));
        let pad = column.saturating_sub(lead.chars().count());
        // Colour the leading word only, not the punctuation after it.
        let word_end = escaped
            .find(|c: char| !(c.is_alphanumeric() || c == '<' || c == '>' || c == '-'))
            .unwrap_or(escaped.len());
        let (word, rest) = escaped.split_at(word_end);
        if escaped.is_empty() {
            // A heading with its details below: no padding after the colon.
            out.push_str(&format!("{lead}\n"));
            continue;
        }
        let value = format!("{}{rest}", paint(word, r.tone, colour));
        out.push_str(&format!("{lead}{}{value}\n", " ".repeat(pad.max(1))));
    }
    out
}

/// `explain -o json|yaml` of a gated kind: the library's data form of the report.
pub use crate::pacto::explain::explanation;

/// A kubectl `List` of objects (`-o json|yaml` of `get`): `{"apiVersion":"v1","kind":"List",
/// "metadata":{"resourceVersion":""},"items":[...]}`, items exactly as read.
pub fn kube_list(items: Vec<Value>) -> Value {
    json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows carry raw text; the block escapes every key and value for the terminal.
    #[test]
    fn explain_text_escapes_keys_and_values() {
        let rows = vec![Row {
            indent: 0,
            key: "error".into(),
            value: "X: line\nbreak\u{1b}[2J".into(),
            tone: Tone::Bad,
        }];
        let text = explain_text(&rows, false);
        assert_eq!(text, "error:  X: line\\nbreak\\x1b[2J\n");
    }
}
