//! Kubernetes objects read from YAML or JSON: files, directories, standard input; multi-document
//! streams; `kind: List` expanded; Kubernetes number typing; positions for error messages.
//!
//! Number typing follows apimachinery's JSON decoding (`k8s.io/apimachinery/pkg/util/json`
//! `ConvertMapNumbers`): a whole number that fits int64 stays an integer, every other number is a
//! float64. YAML is read with YAML 1.1 booleans (`yes`/`no`/`on`/`off`), as `sigs.k8s.io/yaml`
//! (go-yaml v2) reads it, and a repeated mapping key keeps its last value, as go-yaml v2 does when
//! decoding into a map.

use serde_json::{Map, Value};
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Where an object came from: a file (or `<stdin>`), the 1-based document index in that stream,
/// and for objects expanded from a `kind: List`, the 0-based item index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub file: String,
    pub document: usize,
    pub item: Option<usize>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: document {}", self.file, self.document)?;
        if let Some(i) = self.item {
            write!(f, ": items[{i}]")?;
        }
        Ok(())
    }
}

pub use crate::k8s::Gvk;

/// One Kubernetes object and where it came from.
#[derive(Debug, Clone)]
pub struct K8sObject {
    pub value: Value,
    pub origin: Origin,
}

impl K8sObject {
    /// The object's GVK. `kind` is guaranteed non-empty by the readers of this module.
    pub fn gvk(&self) -> Gvk {
        Gvk::from_api_version(
            self.value
                .get("apiVersion")
                .and_then(Value::as_str)
                .unwrap_or(""),
            self.kind(),
        )
    }

    /// `kind`, or "" when absent.
    pub fn kind(&self) -> &str {
        self.value.get("kind").and_then(Value::as_str).unwrap_or("")
    }

    /// `metadata.name`, or "".
    pub fn name(&self) -> &str {
        meta_str(&self.value, "name")
    }

    /// `metadata.namespace`, or "".
    pub fn namespace(&self) -> &str {
        meta_str(&self.value, "namespace")
    }
}

fn meta_str<'a>(v: &'a Value, field: &str) -> &'a str {
    v.get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// A failure to read objects; the text names the file, the document and the field.
#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    #[error("{file}: {error}")]
    Io { file: String, error: std::io::Error },
    #[error("{file}: document {document}: {message}")]
    Parse {
        file: String,
        document: usize,
        message: String,
    },
    #[error("{origin}: {message}")]
    Invalid { origin: Origin, message: String },
    #[error("{file}: no Kubernetes objects found")]
    Empty { file: String },
}

/// Reads every object from each path: `-` is standard input, a directory is walked recursively
/// for `*.yaml`, `*.yml` and `*.json` files (in byte order of their paths), anything else is read
/// as one file whatever its name.
///
/// Errors: an unreadable path, malformed YAML/JSON, a document that is not a mapping, an object
/// without `kind` or with a non-string `apiVersion`/`kind`. A path that holds no object at all is
/// an error too, so that a mistyped directory does not pass silently.
pub fn read_paths(paths: &[PathBuf]) -> Result<Vec<K8sObject>, ObjectError> {
    if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(ObjectError::Io {
            file: "<stdin>".into(),
            error: std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "standard input (-) can be read only once",
            ),
        });
    }
    let mut out = Vec::new();
    for p in paths {
        let before = out.len();
        if p.as_os_str() == "-" {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| ObjectError::Io {
                    file: "<stdin>".into(),
                    error: e,
                })?;
            out.extend(parse_objects(&text, "<stdin>")?);
        } else if p.is_dir() {
            for f in walk(p)? {
                out.extend(read_file(&f)?);
            }
        } else {
            out.extend(read_file(p)?);
        }
        if out.len() == before {
            return Err(ObjectError::Empty {
                file: p.display().to_string(),
            });
        }
    }
    Ok(out)
}

/// [`read_paths`], the objects' values only (where the positions are not needed).
pub fn read_values(paths: &[PathBuf]) -> Result<Vec<Value>, ObjectError> {
    Ok(read_paths(paths)?.into_iter().map(|o| o.value).collect())
}

/// Reads one file of objects (see [`parse_objects`]).
pub fn read_file(path: &Path) -> Result<Vec<K8sObject>, ObjectError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ObjectError::Io {
        file: name.clone(),
        error: e,
    })?;
    parse_objects(&text, &name)
}

/// The files a directory holds beside objects that are not Kubernetes objects: health test
/// suites (`health_test.yaml`, `flux_health_test.yaml`), which `health test` reads.
pub const SUITE_FILES: [&str; 2] = ["health_test.yaml", "flux_health_test.yaml"];

/// Files under `dir` ending in `.yaml`, `.yml` or `.json`, recursively, sorted by path, less the
/// test suites of [`SUITE_FILES`] ([`crate::k8s::walk`]). Errors: the first directory or entry
/// that cannot be read.
pub fn walk(dir: &Path) -> Result<Vec<PathBuf>, ObjectError> {
    let w = crate::k8s::walk::walk(dir);
    if let Some((d, error)) = w.errors.into_iter().next() {
        return Err(ObjectError::Io {
            file: d.display().to_string(),
            error,
        });
    }
    Ok(w.files
        .into_iter()
        .filter(|p| {
            matches!(
                p.extension().and_then(|x| x.to_str()),
                Some("yaml" | "yml" | "json")
            ) && !p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| SUITE_FILES.contains(&n))
        })
        .collect())
}

/// Parses a YAML (or JSON, which is YAML) stream of documents into objects. Empty documents are
/// skipped; a `kind: List` (or any kind ending in `List` with an `items` array, as kubectl
/// treats them) is replaced by its items. `file` is the name used in errors.
pub fn parse_objects(text: &str, file: &str) -> Result<Vec<K8sObject>, ObjectError> {
    let mut out = Vec::new();
    for (index, doc) in parse_documents(text, file)?.into_iter().enumerate() {
        let document = index + 1;
        let Some(value) = doc else { continue };
        let origin = Origin {
            file: file.to_string(),
            document,
            item: None,
        };
        if is_list(&value) {
            let items = value.get("items").and_then(Value::as_array).cloned();
            for (i, item) in items.unwrap_or_default().into_iter().enumerate() {
                let origin = Origin {
                    item: Some(i),
                    ..origin.clone()
                };
                out.push(check_object(item, origin)?);
            }
        } else {
            out.push(check_object(value, origin)?);
        }
    }
    Ok(out)
}

/// Parses a YAML stream into one value per document (`None` for an empty document), with
/// Kubernetes number typing applied. The 1-based index of a document is its position + 1.
pub fn parse_documents(text: &str, file: &str) -> Result<Vec<Option<Value>>, ObjectError> {
    let mut docs = Vec::new();
    for (i, (offset, chunk)) in split_documents(text).into_iter().enumerate() {
        if chunk
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        {
            docs.push(None);
            continue;
        }
        // Budgets sized for real cluster dumps (a `kubectl get -o json` List of thousands of
        // objects, CRDs with deep schemas) while still stopping alias bombs; YAML 1.1 octal as
        // go-yaml v2 reads it (`0644` is 420).
        let options = serde_saphyr::options! {
            duplicate_keys: serde_saphyr::DuplicateKeyPolicy::LastWins,
            legacy_octal_numbers: true,
            budget: serde_saphyr::budget! {
                // A 20 MB `kubectl get -o json` of 3,000 objects is a few million events.
                max_events: 100_000_000,
                max_nodes: 20_000_000,
                max_depth: 512,
                max_total_scalar_bytes: 1 << 30,
            },
        };
        let value: Value = serde_saphyr::from_str_with_options(&chunk, options).map_err(|e| {
            ObjectError::Parse {
                file: file.to_string(),
                document: i + 1,
                message: readable(&shift_line(&first_line(&e.to_string()), offset)),
            }
        })?;
        docs.push(if value.is_null() {
            None
        } else {
            Some(kube_numbers(value))
        });
    }
    Ok(docs)
}

/// A parser message in a user's words where the parser speaks Rust: its budget breaches and
/// serde's type errors.
fn readable(message: &str) -> String {
    if let Some(rest) = message.split("budget breached:").nth(1) {
        let what = rest.trim();
        let bound = what.split(['{', ' ']).next().unwrap_or(what);
        return format!(
            "the document is larger or deeper than this tool reads ({bound} bound: {what}); split it into smaller files"
        );
    }
    if message.contains("cannot deserialize null into string") {
        return message.replace(
            "cannot deserialize null into string; use Option<String>",
            "a value is missing (null) where text is expected",
        );
    }
    message.to_string()
}

/// The first line of a parser message, without the parser's own `error:` prefix.
fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("").trim();
    line.strip_prefix("error:")
        .unwrap_or(line)
        .trim()
        .to_string()
}

/// Splits a YAML stream at document markers (`---` and `...` at the start of a line, which YAML
/// forbids inside content). Each document comes with the number of lines before it, so that
/// parse errors can name lines of the whole file.
fn split_documents(text: &str) -> Vec<(usize, String)> {
    let mut docs: Vec<(usize, String)> = Vec::new();
    let mut cur = String::new();
    let mut cur_start = 0usize;
    let mut started = false;
    for (line_no, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        let marker = |m: &str| {
            bare == m || (bare.starts_with(m) && bare[m.len()..].starts_with([' ', '\t']))
        };
        if marker("---") {
            if started || !cur.trim().is_empty() {
                docs.push((cur_start, std::mem::take(&mut cur)));
            }
            started = true;
            cur_start = line_no;
            cur.push_str(&bare[3..]);
            cur.push('\n');
        } else if marker("...") {
            docs.push((cur_start, std::mem::take(&mut cur)));
            started = false;
            cur_start = line_no + 1;
        } else {
            if cur.is_empty() {
                cur_start = line_no;
            }
            cur.push_str(line);
        }
    }
    if started || !cur.trim().is_empty() {
        docs.push((cur_start, cur));
    }
    docs
}

/// Adds `offset` to the first `line N` of a parser message.
fn shift_line(message: &str, offset: usize) -> String {
    let Some(at) = message.find("line ") else {
        return message.to_string();
    };
    let digits: String = message[at + 5..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    match digits.parse::<usize>() {
        Ok(n) => format!(
            "{}line {}{}",
            &message[..at],
            n + offset,
            &message[at + 5 + digits.len()..]
        ),
        Err(_) => message.to_string(),
    }
}

fn is_list(v: &Value) -> bool {
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    kind.ends_with("List") && v.get("items").map(Value::is_array).unwrap_or(false)
}

fn check_object(value: Value, origin: Origin) -> Result<K8sObject, ObjectError> {
    let invalid = |message: &str| ObjectError::Invalid {
        origin: origin.clone(),
        message: message.to_string(),
    };
    let Some(map) = value.as_object() else {
        return Err(invalid(&format!(
            "expected a Kubernetes object (a mapping), found {}",
            json_type(&value)
        )));
    };
    match map.get("kind") {
        None => return Err(invalid("field kind: missing: not a Kubernetes object")),
        Some(Value::String(k)) if !k.is_empty() => {}
        Some(Value::String(_)) => return Err(invalid("field kind: empty")),
        Some(other) => {
            return Err(invalid(&format!(
                "field kind: expected a string, found {}",
                json_type(other)
            )))
        }
    }
    match map.get("apiVersion") {
        None | Some(Value::String(_)) => {}
        Some(other) => {
            return Err(invalid(&format!(
                "field apiVersion: expected a string, found {}",
                json_type(other)
            )))
        }
    }
    if let Some(m) = map.get("metadata") {
        if !m.is_object() && !m.is_null() {
            return Err(invalid(&format!(
                "field metadata: expected a mapping, found {}",
                json_type(m)
            )));
        }
    }
    Ok(K8sObject { value, origin })
}

/// The JSON type name of a value, for messages: `null`, `boolean`, `number`, `string`, `array`,
/// `object`.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Applies Kubernetes number typing: integers outside int64 (serde's u64) become float64.
pub fn kube_numbers(v: Value) -> Value {
    match v {
        Value::Number(n) if n.as_i64().is_none() && n.as_u64().is_some() => {
            serde_json::Number::from_f64(n.as_f64().unwrap_or(f64::MAX))
                .map(Value::Number)
                .unwrap_or(Value::Null)
        }
        Value::Array(a) => Value::Array(a.into_iter().map(kube_numbers).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| (k, kube_numbers(v)))
                .collect::<Map<_, _>>(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn multi_document_stream_with_list_and_empty_documents() {
        let text = "---\n# only a comment\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: b, namespace: x}\n---\n{\"apiVersion\": \"pacto.trianalab.io/v1alpha1\", \"kind\": \"Pacto\", \"metadata\": {\"name\": \"c\"}}\n";
        let objs = parse_objects(text, "f.yaml").unwrap();
        assert_eq!(objs.len(), 3);
        assert_eq!(objs[0].name(), "a");
        assert_eq!(objs[0].origin.to_string(), "f.yaml: document 2: items[0]");
        assert_eq!(objs[1].gvk().group_kind(), "apps/Deployment");
        assert_eq!(objs[1].namespace(), "x");
        assert_eq!(objs[2].gvk().group, "pacto.trianalab.io");
        assert_eq!(objs[2].gvk().version, "v1alpha1");
        assert_eq!(objs[2].origin.document, 3);
    }

    #[test]
    fn kubernetes_number_typing() {
        let objs = parse_objects(
            "kind: X\nspec: {a: 3, b: 3.5, c: 1.0, d: 18446744073709551615, e: -4}\n",
            "n.yaml",
        )
        .unwrap();
        let spec = &objs[0].value["spec"];
        assert!(spec["a"].is_i64());
        assert!(spec["b"].is_f64());
        assert!(spec["c"].is_f64());
        assert!(spec["d"].is_f64());
        assert_eq!(spec["e"], json!(-4));
    }

    #[test]
    fn yaml_1_1_booleans_as_go_yaml_v2_reads_them() {
        let objs = parse_objects("kind: X\nspec: {a: yes, b: off, c: 'yes'}\n", "b.yaml").unwrap();
        assert_eq!(
            objs[0].value["spec"],
            json!({"a": true, "b": false, "c": "yes"})
        );
    }

    #[test]
    fn malformed_yaml_names_file_and_document() {
        let err = parse_objects("kind: A\n---\nkind: [unclosed\n", "bad.yaml").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("bad.yaml: document 2: "), "{text}");
    }

    /// go-yaml v2 keeps the last of two equal keys (argo-cd's corpus relies on it:
    /// rabbitmq.com/User/testdata/unknown.yaml ends with a second `status: {}`).
    #[test]
    fn duplicate_keys_keep_the_last_value() {
        let objs = parse_objects("kind: X\nstatus: {a: 1}\nstatus: {}\n", "d.yaml").unwrap();
        assert_eq!(objs[0].value["status"], json!({}));
    }

    #[test]
    fn object_without_kind_is_rejected() {
        let err = parse_objects("apiVersion: v1\nmetadata: {name: a}\n", "k.yaml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "k.yaml: document 1: field kind: missing: not a Kubernetes object"
        );
        let err = parse_objects("- 1\n- 2\n", "s.yaml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "s.yaml: document 1: expected a Kubernetes object (a mapping), found array"
        );
        let err = parse_objects("kind: 5\n", "n.yaml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "n.yaml: document 1: field kind: expected a string, found number"
        );
    }

    #[test]
    fn parse_errors_name_lines_of_the_whole_file() {
        let err = parse_objects("kind: A\n---\nkind: B\nspec: [unclosed\n", "l.yaml").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("l.yaml: document 2: line "), "{text}");
        let line: usize = text["l.yaml: document 2: line ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(line >= 4, "{text}");
    }

    /// go-yaml v2 (YAML 1.1) reads a leading-zero integer as octal.
    #[test]
    fn yaml_1_1_octal() {
        let objs = parse_objects("kind: X\nspec: {mode: 0644, plain: 644}\n", "o.yaml").unwrap();
        assert_eq!(objs[0].value["spec"], json!({"mode": 420, "plain": 644}));
    }

    #[test]
    fn block_scalar_with_dashes_inside_is_not_split() {
        let objs = parse_objects(
            "kind: ConfigMap\ndata:\n  a: |\n    x\n    ---\n    y\n",
            "c.yaml",
        )
        .unwrap();
        assert_eq!(objs.len(), 1);
        assert_eq!(objs[0].value["data"]["a"], json!("x\n---\ny\n"));
    }

    /// A `kubectl get -o json` dump of many objects is more than a million parser events: it is
    /// read, not refused.
    #[test]
    fn a_cluster_dump_of_over_a_million_events_is_read() {
        let item =
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n","namespace":"ns"}}"#;
        let text = format!(
            r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
            vec![item; 120_000].join(",")
        );
        let objs = parse_objects(&text, "dump.json").unwrap();
        assert_eq!(objs.len(), 120_000);
    }

    #[test]
    fn parser_messages_speak_to_users() {
        assert_eq!(
            readable("budget breached: Events { events: 1000001 }"),
            "the document is larger or deeper than this tool reads (Events bound: Events { events: 1000001 }); split it into smaller files"
        );
        assert!(
            !readable("cannot deserialize null into string; use Option<String>").contains("Option")
        );
    }
}
