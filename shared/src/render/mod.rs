//! Output: kubectl-style human tables (no borders, three spaces between columns, long text last),
//! the `HealthReport` document for `-o json|yaml`, and colour for status words (the word is always
//! printed; colour only when the caller says the stream is a terminal and NO_COLOR is unset).

use crate::argo::health::ArgoVerdict;
use crate::flux::health::FluxVerdict;
use crate::flux::kustomization::Kustomization;
use crate::flux::wait::WaitVerdict;
use crate::k8s::duration::go_duration;
use crate::object::K8sObject;
use crate::pacto::gate::{argo_gate, flux_gate};
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
/// wrapping, no trailing spaces; cells may hold ANSI colour (widths ignore it). Widths are
/// display widths (`unicode-width`, East Asian wide characters count two).
pub fn table(headers: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut out = Vec::new();
    // Writing to memory cannot fail.
    let _ = write_rows(headers, || rows.iter(), &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// The column widths (display width of the widest cell, header included) of a table this module
/// printed: where each header starts in its first line. For rows printed later under it (`get
/// -w`), so that they line up with the listing, as kubectl's tab writer remembers its widths.
pub fn column_widths(table: &str) -> Vec<usize> {
    let Some(head) = table.lines().next() else {
        return Vec::new();
    };
    let starts: Vec<usize> = head
        .char_indices()
        .filter(|(i, c)| !c.is_whitespace() && (*i == 0 || head[..*i].ends_with("   ")))
        .map(|(i, _)| head[..i].chars().count())
        .collect();
    starts.windows(2).map(|w| w[1] - w[0] - 3).collect()
}

/// The table of [`table`], with or without its header line; without one, the widths come from
/// the rows alone (as kubectl's tab writer sees them under `--no-headers`), and no rows print
/// nothing.
pub fn layout(headers: Option<&[&str]>, rows: Vec<Vec<String>>) -> String {
    layout_at_least(headers, rows, &[])
}

/// [`layout`], each column at least as wide as `min_widths` says (see [`column_widths`]).
pub fn layout_at_least(
    headers: Option<&[&str]>,
    rows: Vec<Vec<String>>,
    min_widths: &[usize],
) -> String {
    let mut out = Vec::new();
    // Writing to memory cannot fail.
    let _ = write_table(headers, || rows.iter(), min_widths, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// [`table`], written line by line to `out` from rows that `rows` makes afresh on each call: it
/// is called twice (the column widths, then the lines), so that no row is held. Errors: the
/// writer's.
pub fn write_rows<I, R>(
    headers: &[&str],
    rows: impl Fn() -> I,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()>
where
    I: Iterator<Item = R>,
    R: AsRef<[String]>,
{
    write_table(Some(headers), rows, &[], out)
}

/// [`write_rows`], the header line optional.
fn write_table<I, R>(
    headers: Option<&[&str]>,
    rows: impl Fn() -> I,
    min_widths: &[usize],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()>
where
    I: Iterator<Item = R>,
    R: AsRef<[String]>,
{
    let mut widths: Vec<usize> = headers
        .unwrap_or_default()
        .iter()
        .map(|h| shown_width(h))
        .collect();
    for (i, m) in min_widths.iter().enumerate() {
        match widths.get_mut(i) {
            Some(have) => *have = (*have).max(*m),
            None => widths.push(*m),
        }
    }
    for r in rows() {
        for (i, c) in r.as_ref().iter().enumerate() {
            let w = shown_width(c);
            match widths.get_mut(i) {
                Some(have) => *have = (*have).max(w),
                None => widths.push(w),
            }
        }
    }
    let last = widths.len().saturating_sub(1);
    let mut line = String::new();
    let mut write_line = |cells: &mut dyn Iterator<Item = &str>| -> std::io::Result<()> {
        line.clear();
        for (i, w) in widths.iter().enumerate() {
            let c = cells.next().unwrap_or("");
            line.push_str(c);
            if i < last {
                let pad = w.saturating_sub(shown_width(c)) + 3;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.write_all(line.trim_end().as_bytes())?;
        out.write_all(b"\n")
    };
    if let Some(headers) = headers {
        write_line(&mut headers.iter().copied())?;
    }
    for r in rows() {
        write_line(&mut r.as_ref().iter().map(String::as_str))?;
    }
    Ok(())
}

/// The width a cell takes on a terminal: its display width without ANSI escape sequences (the
/// colours of [`status_word`]; text from objects has none left, [`one_line`] escapes them).
fn shown_width(s: &str) -> usize {
    use unicode_width::UnicodeWidthStr;
    if !s.contains('\u{1b}') {
        return s.width();
    }
    let mut plain = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            plain.push(c);
            continue;
        }
        // CSI: ESC [ parameters final-byte (0x40..=0x7e); any other escape: ESC and one char.
        if chars.next() == Some('[') {
            for f in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&f) {
                    break;
                }
            }
        }
    }
    plain.width()
}

/// A `get` table laid out as [`table`] does, with kubectl's `--no-headers` and `--show-labels`
/// (LABELS last, after every column of the kind) applied from `o`, and CONTEXT first when the
/// rows come from several contexts.
pub(crate) fn get_table(
    mut headers: Vec<&str>,
    mut rows: Vec<Vec<String>>,
    o: &TableOptions,
) -> String {
    if let Some(labels) = o.labels {
        headers.push("LABELS");
        for (row, cell) in rows.iter_mut().zip(labels) {
            row.push(one_line(cell));
        }
    }
    if let Some(contexts) = o.contexts {
        headers.insert(0, "CONTEXT");
        for (row, cell) in rows.iter_mut().zip(contexts) {
            row.insert(0, pacto::clip(&one_line(cell)));
        }
    }
    layout_at_least(
        o.headers.then_some(&headers[..]),
        rows,
        o.min_widths.unwrap_or_default(),
    )
}

/// The LABELS cell of kubectl's `--show-labels`: `metadata.labels` as `key=value` joined by
/// commas, keys in byte order (kubectl prints `labels.FormatLabels`, which sorts the keys), or
/// `<none>`. A label value that is not a string is shown as JSON.
pub fn labels_cell(obj: &Value) -> String {
    let Some(labels) = obj.pointer("/metadata/labels").and_then(Value::as_object) else {
        return "<none>".to_string();
    };
    if labels.is_empty() {
        return "<none>".to_string();
    }
    let mut pairs: Vec<(&String, &Value)> = labels.iter().collect();
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    pairs
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// One row of a health report.
pub struct HealthItem<'a> {
    pub object: &'a K8sObject,
    /// None when the Argo CD side was not asked for.
    pub argo: Option<&'a ArgoVerdict>,
    /// None when the Flux side was not asked for.
    pub flux: Option<&'a FluxVerdict>,
}

/// The `HealthReport` document (docs/design.md, "The command line"): `{"kind":"HealthReport",
/// "items":[{"ref":{apiVersion,kind,namespace,name},"argo":{status,message,source,rule,
/// shadows,randomPick,error},"flux":null}]}`, one item per object in input order. An object
/// Argo has no health check for has `status: null` and `source: "none"`; `rule` is the override
/// key or glob or the built-in script's path that decided, `shadows` the other rules that
/// match ([`ArgoVerdict::shadows`]).
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
                    "rule": v.decider.source(),
                    "shadows": v.shadows,
                    "randomPick": v.random_pick,
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
                "flux": it.flux.map(|f| json!({
                    "status": f.status.as_str(),
                    "message": f.message,
                    "source": f.source.name(),
                    "error": f.error,
                })),
            })
        })
        .collect();
    json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "HealthReport", "items": items})
}

/// [`health_report`] with an optional `summary` member, written as `serde_json::to_string_pretty`
/// writes it (then a newline), one item at a time: the report is never whole in memory.
/// Errors: the writer's.
pub fn write_health_json(
    items: &[HealthItem],
    summary: Option<&Value>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let head = json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "HealthReport"});
    let head = serde_json::to_string_pretty(&head)?;
    // `{` and the members, without the closing `}`.
    out.write_all(&head.as_bytes()[..head.len() - 2])?;
    out.write_all(b",\n  \"items\": [")?;
    for (i, it) in items.iter().enumerate() {
        let item = health_report(std::slice::from_ref(it))["items"][0].take();
        out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        // JSON strings hold no raw line break: each line of the item is one line of output.
        let text = serde_json::to_string_pretty(&item)?;
        for (n, line) in text.lines().enumerate() {
            if n > 0 {
                out.write_all(b"\n")?;
            }
            out.write_all(b"    ")?;
            out.write_all(line.as_bytes())?;
        }
    }
    out.write_all(if items.is_empty() { b"]" } else { b"\n  ]" })?;
    if let Some(s) = summary {
        let text = serde_json::to_string_pretty(s)?;
        out.write_all(b",\n  \"summary\": ")?;
        for (n, line) in text.lines().enumerate() {
            if n > 0 {
                out.write_all(b"\n  ")?;
            }
            out.write_all(line.as_bytes())?;
        }
    }
    out.write_all(b"\n}\n")
}

/// The human table of a health report: NAMESPACE, KIND, NAME, then ARGO and/or FLUX (with `≠`
/// in a DIFF column where the two gates decide differently), SOURCE and MESSAGE (long text last).
/// `builtin_scripts` says whether Argo CD's built-in Lua scripts were loaded: without them an
/// object with no check may still have one in a real Argo CD.
/// `wide` (`-o wide`) adds RULE (the override key or glob, or the built-in script, that decided)
/// and SHADOWS (the other rules that match, and Argo CD's random pick among wildcard keys) and
/// keeps every message whole; otherwise, given the terminal's `width`, MESSAGE is wrapped so
/// that each line fits it ([`fit`]). Written line by line to `out`. Errors: the writer's.
pub fn write_health_table(
    items: &[HealthItem],
    colour: bool,
    builtin_scripts: bool,
    (wide, width): (bool, Option<usize>),
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let no_check = if builtin_scripts {
        "no health check: Argo CD ignores this resource in the application's health"
    } else {
        "no custom script and no built-in Go check (Argo CD's built-in Lua scripts were not given: --customizations-dir)"
    };
    let with_argo = items.iter().any(|i| i.argo.is_some());
    let with_flux = items.iter().any(|i| i.flux.is_some());
    let row_of = |it: &HealthItem| {
        let mut row = vec![
            one_line(it.object.namespace()),
            one_line(it.object.kind()),
            one_line(it.object.name()),
        ];
        let mut sources = Vec::new();
        let mut messages = Vec::new();
        if with_argo {
            let (status, message) = match it.argo {
                None => ("-".to_string(), String::new()),
                Some(v) => {
                    sources.push(v.decider.name().to_string());
                    match &v.health {
                        None => ("<none>".to_string(), no_check.to_string()),
                        Some(h) if h.status.is_empty() => {
                            ("<empty>".to_string(), one_line(&h.message))
                        }
                        Some(h) => (
                            status_word(&one_line(&h.status), colour),
                            one_line(&h.message),
                        ),
                    }
                }
            };
            row.push(status);
            if !message.is_empty() {
                messages.push(if with_flux {
                    format!("argo: {message}")
                } else {
                    message
                });
            }
        }
        if with_flux {
            let status = match it.flux {
                None => "-".to_string(),
                Some(f) => {
                    sources.push(f.source.name().to_string());
                    let text = match (&f.error, f.decided) {
                        (Some(e), _) => e.clone(),
                        (None, Some(d)) if f.message.is_empty() => d.describe(),
                        (None, _) => f.message.clone(),
                    };
                    if !text.is_empty() {
                        messages.push(if with_argo {
                            format!("flux: {}", one_line(&text))
                        } else {
                            one_line(&text)
                        });
                    }
                    status_word(f.status.as_str(), colour)
                }
            };
            row.push(status);
        }
        if with_argo && with_flux {
            let differ = match (it.argo, it.flux) {
                (Some(a), Some(f)) => argo_gate(a) != flux_gate(f),
                _ => false,
            };
            row.push(if differ {
                "≠".to_string()
            } else {
                String::new()
            });
        }
        row.push(sources.join("/"));
        if wide && with_argo {
            // The phrase explain gives, without its leading "; ".
            let (rule, shadows) = match it.argo {
                Some(v) => (
                    v.decider.source(),
                    crate::argo::health::shadow_note(&v.shadows, v.random_pick)
                        .trim_start_matches("; ")
                        .to_string(),
                ),
                None => (String::new(), String::new()),
            };
            row.push(one_line(if rule.is_empty() { "-" } else { &rule }));
            row.push(one_line(if shadows.is_empty() { "-" } else { &shadows }));
        }
        row.push(messages.join("; "));
        row
    };
    let mut headers = vec!["NAMESPACE", "KIND", "NAME"];
    if with_argo {
        headers.push("ARGO");
    }
    if with_flux {
        headers.push("FLUX");
    }
    if with_argo && with_flux {
        headers.push("DIFF");
    }
    headers.push("SOURCE");
    if wide && with_argo {
        headers.extend(["RULE", "SHADOWS"]);
    }
    headers.push("MESSAGE");
    // The rows are made twice (widths, then lines) rather than held: a table of a million
    // objects costs no memory beyond the verdicts; fitted to a terminal, three times.
    let prose = [headers.len() - 1];
    let limit = match width {
        Some(w) if !wide => fit::limits(
            &fit::column_widths(&headers, items.iter().map(row_of)),
            w,
            &prose,
        ),
        _ => None,
    };
    match limit {
        None => write_rows(&headers, || items.iter().map(row_of), out),
        Some(limit) => write_rows(
            &headers,
            || {
                items
                    .iter()
                    .flat_map(|it| fit::wrap_row(&row_of(it), &limit, &prose))
            },
            out,
        ),
    }
}

/// One line saying what the Kustomization (or HelmRelease) as a whole would do; names,
/// namespaces, expressions and messages escaped ([`one_line`]).
pub fn wait_summary(k: &Kustomization, v: &WaitVerdict) -> String {
    one_line(&wait_summary_raw(k, v))
}

fn wait_summary_raw(k: &Kustomization, v: &WaitVerdict) -> String {
    let who = if k.namespace.is_empty() {
        format!("{} {}", k.kind, k.name)
    } else {
        format!("{} {}/{}", k.kind, k.namespace, k.name)
    };
    match v {
        WaitVerdict::NotChecked => format!(
            "{who}: checks nothing (spec.wait is false and spec.healthChecks is empty): Flux does not hold the next step on these objects"
        ),
        WaitVerdict::Passes => format!("{who}: the health check passes: every checked object is Current"),
        WaitVerdict::FailsEarly { message } => {
            format!("{who}: fails at the first poll{}: {message}", reason(k))
        }
        WaitVerdict::TimesOut { timeout, message } => format!(
            "{who}: waits the whole timeout ({}), then fails{}: {message}",
            go_duration(*timeout),
            reason(k)
        ),
    }
}

/// The condition kustomize-controller sets on a failed health check; helm-controller reports the
/// failed wait under its install/upgrade failure reasons instead.
fn reason(k: &Kustomization) -> &'static str {
    if k.kind == "Kustomization" {
        " (Ready=False, HealthCheckFailed)"
    } else {
        " (the Helm action fails)"
    }
}

/// The wait verdict as a JSON value for `-o json|yaml`.
pub fn wait_json(k: &Kustomization, v: &WaitVerdict) -> Value {
    let (verdict, message, timeout) = match v {
        WaitVerdict::NotChecked => ("NotChecked", String::new(), None),
        WaitVerdict::Passes => ("Passes", String::new(), None),
        WaitVerdict::FailsEarly { message } => ("FailsEarly", message.clone(), None),
        WaitVerdict::TimesOut { timeout, message } => {
            ("TimesOut", message.clone(), Some(go_duration(*timeout)))
        }
    };
    json!({
        "kind": k.kind, "namespace": k.namespace, "name": k.name,
        "verdict": verdict, "message": message, "timeout": timeout,
    })
}

/// `-o name`: one `resource/name` line per object, as kubectl prints them
/// (`pacto.pacto.trianalab.io/orders`).
pub fn names(resource: &str, names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("{resource}/{}\n", one_line(n)))
        .collect()
}

/// kubectl's empty listing, for stderr (kubectl `pkg/cmd/get/get.go`): `No resources found in
/// NS namespace.` for one namespace, `No resources found` (no period) across all of them.
pub fn no_resources(namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("No resources found in {} namespace.\n", one_line(ns)),
        None => "No resources found\n".to_string(),
    }
}

/// Whether a character must not reach a terminal raw: a control character (C0, DEL, C1: an
/// ESC or a C1 CSI, U+009B, starts a sequence the terminal runs), a bidirectional control (U+202E
/// reorders what the terminal shows), a line or paragraph separator, a zero-width or tag
/// character (two names that look alike). Tab and line feed are controls too: callers that keep
/// lines keep them.
pub fn terminal_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200b}'..='\u{200f}'
                | '\u{061c}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{e0000}'..='\u{e007f}'
        )
}

/// Control characters shown escaped (`\n`, `\t`, `\x1b`, ...), so that one object stays one row
/// and nothing in a message or a name can drive the terminal ([`terminal_unsafe`]: the other
/// characters as `\u{202e}`).
pub fn one_line(s: &str) -> String {
    if !s.chars().any(terminal_unsafe) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if terminal_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Text of several lines for a terminal: each line as [`one_line`] shows it, the line feeds
/// kept.
pub fn safe_lines(s: &str) -> String {
    let mut safe = String::with_capacity(s.len());
    for line in s.split_inclusive('\n') {
        let (text, newline) = match line.strip_suffix('\n') {
            Some(t) => (t, "\n"),
            None => (line, ""),
        };
        safe.push_str(&one_line(text));
        safe.push_str(newline);
    }
    safe
}

/// JSON text for a terminal: every [`terminal_unsafe`] character but the line feeds of the
/// layout written as a `\uXXXX` escape (two, a surrogate pair, beyond U+FFFF). Such characters
/// can only stand inside strings, so the text stays JSON with the same value.
pub fn json_for_terminal(text: &str) -> String {
    if !text.chars().any(|c| c != '\n' && terminal_unsafe(c)) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if c == '\n' || !terminal_unsafe(c) {
            out.push(c);
            continue;
        }
        let mut units = [0u16; 2];
        for u in c.encode_utf16(&mut units) {
            out.push_str(&format!("\\u{:04x}", u));
        }
    }
    out
}

/// The most bytes of one message (an error, a note) printed on stderr: a server's
/// `Status.message` or a file's text can be megabytes long.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024;

/// `text` cut to its first `max` bytes (at a character boundary) with a note of how much was
/// cut: `… (10485760 more bytes not shown)`.
pub fn cut(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!(
        "{}… ({} more bytes not shown)",
        &text[..end],
        text.len() - end
    ))
}

#[cfg(test)]
mod tests {

    /// Rows laid out under a listing take its column widths.
    #[test]
    fn rows_line_up_under_a_listing() {
        let listing = table(
            &["NAME", "STATUS"],
            vec![vec!["a-long-name".into(), "Ready".into()]],
        );
        let widths = column_widths(&listing);
        assert_eq!(widths, vec![11]);
        let row = layout_at_least(None, vec![vec!["b".into(), "Failed".into()]], &widths);
        assert_eq!(row, "b             Failed\n");
    }

    use super::*;

    /// C1 controls and bidirectional overrides never reach a terminal raw; JSON keeps its value.
    #[test]
    fn terminal_text_is_escaped_and_json_stays_json() {
        let s = "a\u{9b}31m\u{202e}b\u{e0041}";
        assert_eq!(one_line(s), "a\\x9b31m\\u{202e}b\\u{e0041}");
        assert_eq!(safe_lines("x\u{1b}\ny\n"), "x\\x1b\ny\n");
        let json = serde_json::to_string_pretty(&json!({"k": s})).unwrap();
        let safe = json_for_terminal(&json);
        assert!(
            !safe.chars().any(|c| c != '\n' && terminal_unsafe(c)),
            "{safe}"
        );
        assert_eq!(safe, "{\n  \"k\": \"a\\u009b31m\\u202eb\\udb40\\udc41\"\n}");
        assert_eq!(serde_json::from_str::<Value>(&safe).unwrap()["k"], s);
    }

    #[test]
    fn long_messages_are_cut_with_a_note() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("ééé", 3), "é… (4 more bytes not shown)");
        let long = "x".repeat(MAX_MESSAGE_BYTES + 5);
        assert!(cut(&long, MAX_MESSAGE_BYTES).ends_with("… (5 more bytes not shown)"));
    }

    /// A name with a terminal title sequence reaches the summary line escaped.
    #[test]
    fn the_wait_summary_is_escaped() {
        let k = crate::flux::kustomization::parse(&json!({
            "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
            "kind": "Kustomization",
            "metadata": {"name": "a\u{1b}]0;owned\u{7}", "namespace": "ns\n2"},
            "spec": {"wait": true},
        }))
        .unwrap();
        let line = wait_summary(
            &k,
            &WaitVerdict::FailsEarly {
                message: "x\u{1b}[31m".into(),
            },
        );
        assert!(!line.chars().any(|c| c.is_control()), "{line}");
        assert!(line.contains("a\\x1b]0;owned\\x07"), "{line}");
        assert!(line.contains("ns\\n2"), "{line}");
    }

    /// The streamed JSON report is byte for byte what `to_string_pretty` writes of the whole.
    #[test]
    fn streamed_json_is_the_pretty_report() {
        let objs = crate::object::parse_objects(
            "kind: A\nmetadata: {name: a}\n---\nkind: B\nmetadata: {name: b, namespace: ns}\n",
            "f.yaml",
        )
        .unwrap();
        for n in 0..=2 {
            let items: Vec<HealthItem> = objs[..n]
                .iter()
                .map(|o| HealthItem {
                    object: o,
                    argo: None,
                    flux: None,
                })
                .collect();
            for summary in [None, Some(json!({"flux": {"a": [1, 2], "b": "c"}}))] {
                let mut want = health_report(&items);
                if let Some(s) = &summary {
                    want["summary"] = s.clone();
                }
                let want = serde_json::to_string_pretty(&want).unwrap() + "\n";
                let mut got = Vec::new();
                write_health_json(&items, summary.as_ref(), &mut got).unwrap();
                assert_eq!(String::from_utf8(got).unwrap(), want);
            }
        }
    }

    /// kubectl's tabwriter layout: three spaces after each column but the last, display widths
    /// (a CJK character is two columns, colour codes none), no trailing spaces.
    #[test]
    fn table_widths_are_display_widths() {
        let green = status_word("Healthy", true);
        let t = table(
            &["A", "B", "C"],
            vec![
                vec!["日本".into(), "x".into(), String::new()],
                vec![green.clone(), String::new(), "last".into()],
            ],
        );
        assert_eq!(
            t,
            format!("A         B   C\n日本      x\n{green}       last\n")
        );
    }

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

    /// kubectl pkg/cmd/get/get.go: the namespaced message ends with a period, the other not.
    #[test]
    fn empty_listings_word_as_kubectl() {
        assert_eq!(
            no_resources(Some("shop")),
            "No resources found in shop namespace.\n"
        );
        assert_eq!(no_resources(None), "No resources found\n");
        assert_eq!(
            names(
                "pacto.pacto.trianalab.io",
                &["orders".into(), "a\u{1b}b".into()]
            ),
            "pacto.pacto.trianalab.io/orders\npacto.pacto.trianalab.io/a\\x1bb\n"
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

mod delivery;
pub mod doctor;
pub mod fit;
mod pacto;
pub mod reconcile;
pub mod suite;
pub mod tree;
pub use delivery::{operation_table, short_digest, stage_table, StageRow};
pub use pacto::{explain_text, explanation, kube_list, pacto_table, PactoRow, TableOptions};
