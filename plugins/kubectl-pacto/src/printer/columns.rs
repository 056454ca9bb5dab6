//! `-o custom-columns=HEADER:PATH,...` as kubectl reads and prints it
//! (`kubectl/pkg/cmd/get/customcolumn.go`): each PATH a relaxed JSONPath, the values of one cell
//! joined by commas, each printed with Go's `%v` (null is `<nil>`) and escaped as kubectl's
//! `printers.EscapeTerminal` escapes it (ESC as `^[`, CR as `\r`), `<none>` when the path finds
//! nothing. Other control characters are shown escaped too (`\n`), so one object stays one row.

use super::jsonpath::{self, Template};
use pacto_gates::k8s::gofmt;
use serde_json::Value;

/// One column: its header as given and its path.
#[derive(Debug, Clone)]
pub struct Column {
    pub header: String,
    pub path: Template,
}

/// Parses the column spec. Errors: kubectl's `unexpected custom-columns spec: X, expected
/// <header>:<json-path-expr>`, or the path's own error.
pub fn parse(spec: &str) -> anyhow::Result<Vec<Column>> {
    if spec.is_empty() {
        anyhow::bail!("custom-columns format specified but no custom columns given");
    }
    spec.split(',')
        .map(|part| {
            let Some((header, path)) = part.split_once(':') else {
                anyhow::bail!(
                    "unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>"
                );
            };
            let (path, _) = jsonpath::relaxed(path).map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok(Column {
                header: header.to_string(),
                path,
            })
        })
        .collect()
}

/// The table: one row per object, headers unless `headers` is false. Cell text is escaped
/// for the terminal. Errors: a path that fails on an object (an index out of range, ...).
pub fn render(columns: &[Column], objects: &[Value], headers: bool) -> Result<String, String> {
    let mut rows = Vec::with_capacity(objects.len());
    for o in objects {
        let mut row = Vec::with_capacity(columns.len());
        for c in columns {
            let results = c.path.results(o)?;
            let mut cells = Vec::new();
            if results.first().is_none_or(Vec::is_empty) {
                cells.push("<none>".to_string());
            }
            for v in results.iter().flatten() {
                cells.push(escape_terminal(&gofmt::sprint(v)));
            }
            row.push(pacto_gates::render::one_line(&cells.join(",")));
        }
        rows.push(row);
    }
    let names: Vec<&str> = columns.iter().map(|c| c.header.as_str()).collect();
    Ok(pacto_gates::render::layout(
        headers.then_some(&names[..]),
        rows,
    ))
}

/// cli-runtime `printers.EscapeTerminal`: ESC as `^[`, CR as `\r`.
fn escape_terminal(s: &str) -> String {
    s.replace('\u{1b}', "^[").replace('\r', "\\r")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// kubectl's custom-columns: `<none>` for nothing, commas between values, Go's `%v`.
    #[test]
    fn cells_as_kubectl_prints_them() {
        let cols =
            parse("NAME:.metadata.name,PORTS:.spec.ports[*].port,LABELS:metadata.labels,X:.nope")
                .unwrap();
        let objs = vec![json!({
            "metadata": {"name": "web", "labels": {"b": "2", "a": "1"}, "x": null},
            "spec": {"ports": [{"port": 80}, {"port": 443}]}
        })];
        assert_eq!(
            render(&cols, &objs, true).unwrap(),
            "NAME   PORTS    LABELS         X\nweb    80,443   map[a:1 b:2]   <none>\n"
        );
        assert_eq!(
            render(&cols, &objs, false).unwrap(),
            "web   80,443   map[a:1 b:2]   <none>\n"
        );
        let nil = parse("X:.metadata.x,E:.metadata.name").unwrap();
        let esc = vec![json!({"metadata": {"name": "a\u{1b}[1m\r", "x": null}})];
        assert_eq!(render(&nil, &esc, false).unwrap(), "<nil>   a^[[1m\\r\n");
        assert_eq!(
            parse("NAME").unwrap_err().to_string(),
            "unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"
        );
    }
}
