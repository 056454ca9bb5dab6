//! Output: kubectl-style human tables (no borders, three spaces between columns, long text last),
//! the `HealthReport` document for `-o json|yaml`, and colour for status words (the word is always
//! printed; colour only when the caller says the stream is a terminal and NO_COLOR is unset).

use crate::argo::health::ArgoVerdict;
use crate::object::K8sObject;
use comfy_table::{presets, CellAlignment, ContentArrangement, Table};
use owo_colors::OwoColorize;
use serde_json::{json, Value};

/// Whether to colour output written to a stream: only on a terminal, never with a non-empty
/// `NO_COLOR`, never with `TERM=dumb` (the NO_COLOR convention and kubectl plugin practice).
pub fn colour_wanted(is_terminal: bool, no_color: Option<&str>, term: Option<&str>) -> bool {
    is_terminal && no_color.map(str::is_empty).unwrap_or(true) && term != Some("dumb")
}

/// A status word, coloured by how healthy it is when `colour` is set: Argo codes (Healthy green,
/// Progressing/Suspended yellow, Degraded/Missing red, Unknown magenta) and kstatus statuses
/// (Current green, InProgress yellow, Failed red, Terminating/Unknown magenta).
pub fn status_word(word: &str, colour: bool) -> String {
    if !colour {
        return word.to_string();
    }
    match word {
        "Healthy" | "Current" => word.green().to_string(),
        "Progressing" | "Suspended" | "InProgress" => word.yellow().to_string(),
        "Degraded" | "Missing" | "Failed" => word.red().to_string(),
        "Unknown" | "Terminating" => word.magenta().to_string(),
        _ => word.to_string(),
    }
}

/// A kubectl-style table: upper-case headers, left-aligned, three spaces between columns, no
/// wrapping; cells may hold ANSI colour (widths ignore it).
pub fn table(headers: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut t = Table::new();
    t.load_style(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(headers.iter().map(|h| h.to_string()));
    for r in rows {
        t.add_row(r);
    }
    let last = headers.len().saturating_sub(1);
    for (i, c) in t.column_iter_mut().enumerate() {
        c.set_padding((0, if i == last { 0 } else { 3 }));
        c.set_cell_alignment(CellAlignment::Left);
    }
    t.lines()
        .map(|l| l.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// One row of a health report.
pub struct HealthItem<'a> {
    pub object: &'a K8sObject,
    pub argo: Option<&'a ArgoVerdict>,
}

/// The `HealthReport` document of shared/DESIGN.md: `{"kind":"HealthReport","items":[{"ref":
/// {apiVersion,kind,namespace,name},"argo":{status,message,source,error},"flux":null}]}`, one
/// item per object in input order. An object Argo has no health check for has `status: null`
/// and `source: "none"`.
pub fn health_report(items: &[HealthItem]) -> Value {
    let items: Vec<Value> = items
        .iter()
        .map(|it| {
            let o = &it.object.value;
            let argo = it.argo.map(|v| {
                json!({
                    "status": v.health.as_ref().map(|h| h.status.clone()),
                    "message": v.health.as_ref().map(|h| h.message.clone()),
                    "source": v.decider.name(),
                    "error": v.error,
                })
            });
            json!({
                "ref": {
                    "apiVersion": o.get("apiVersion").cloned().unwrap_or(Value::Null),
                    "kind": it.object.kind(),
                    "namespace": it.object.namespace(),
                    "name": it.object.name(),
                },
                "argo": argo,
                "flux": Value::Null,
            })
        })
        .collect();
    json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "HealthReport", "items": items})
}

/// The human table of a health report: NAMESPACE, KIND, NAME, ARGO, SOURCE, MESSAGE.
/// `builtin_scripts` says whether Argo CD's built-in Lua scripts were loaded: without them an
/// object with no check may still have one in a real Argo CD.
pub fn health_table(items: &[HealthItem], colour: bool, builtin_scripts: bool) -> String {
    let no_check = if builtin_scripts {
        "no health check: Argo CD ignores this resource in the application's health"
    } else {
        "no custom script and no built-in Go check (Argo CD's built-in Lua scripts were not given: --customizations-dir)"
    };
    let rows = items
        .iter()
        .map(|it| {
            let (status, message, source) = match it.argo {
                None => ("-".to_string(), String::new(), String::new()),
                Some(v) => match &v.health {
                    None => (
                        "<none>".to_string(),
                        no_check.to_string(),
                        v.decider.name().to_string(),
                    ),
                    Some(h) => (
                        if h.status.is_empty() {
                            "<empty>".to_string()
                        } else {
                            status_word(&h.status, colour)
                        },
                        one_line(&h.message),
                        v.decider.name().to_string(),
                    ),
                },
            };
            vec![
                it.object.namespace().to_string(),
                it.object.kind().to_string(),
                it.object.name().to_string(),
                status,
                source,
                message,
            ]
        })
        .collect();
    table(
        &["NAMESPACE", "KIND", "NAME", "ARGO", "SOURCE", "MESSAGE"],
        rows,
    )
}

/// Newlines and tabs in a message shown as `\n` / `\t`, so that one object stays one row.
pub fn one_line(s: &str) -> String {
    s.replace('\n', "\\n").replace('\t', "\\t")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_rules() {
        assert!(colour_wanted(true, None, Some("xterm")));
        assert!(!colour_wanted(false, None, None));
        assert!(!colour_wanted(true, Some("1"), None));
        assert!(colour_wanted(true, Some(""), None));
        assert!(!colour_wanted(true, None, Some("dumb")));
        assert_eq!(status_word("Healthy", false), "Healthy");
        assert_eq!(
            status_word("Degraded", true),
            "\u{1b}[31mDegraded\u{1b}[39m"
        );
    }

    #[test]
    fn table_is_kubectl_shaped() {
        let t = table(
            &["NAME", "STATUS", "MESSAGE"],
            vec![
                vec!["a".into(), "Healthy".into(), "ok".into()],
                vec![
                    "long-name".into(),
                    "Degraded".into(),
                    "contract violated".into(),
                ],
            ],
        );
        assert_eq!(
            t,
            "NAME        STATUS     MESSAGE\na           Healthy    ok\nlong-name   Degraded   contract violated\n"
        );
    }
}
