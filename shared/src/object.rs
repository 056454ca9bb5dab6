//! Kubernetes objects read from YAML or JSON: files, directories, standard input; multi-document
//! streams; `kind: List` expanded; Kubernetes number typing; positions for error messages.
//!
//! Number typing follows apimachinery's JSON decoding (`k8s.io/apimachinery/pkg/util/json`
//! `ConvertMapNumbers`): a whole number that fits int64 stays an integer, every other number is a
//! float64. YAML is read with YAML 1.1 booleans (`yes`/`no`/`on`/`off`), as `sigs.k8s.io/yaml`
//! (go-yaml v2) reads it, and a repeated mapping key keeps its last value, as go-yaml v2 does when
//! decoding into a map.
//!
//! Streams are read one document at a time ([`crate::k8s::yaml`]): each object is checked and
//! handed on ([`visit_paths`]) before the next document is read, within
//! [`crate::k8s::read::max_input_bytes`] (`--max-input-bytes`) per file or stream.

use crate::k8s::read::max_input_bytes;
use crate::k8s::yaml::{parse_chunk, Chunk, Splitter};
use serde_json::{Map, Value};
use std::fmt;
use std::io::BufRead;
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

    /// The object reduced to what names it (`apiVersion`, `kind`, `metadata.name`,
    /// `metadata.namespace`) and its origin: what a report keeps of an object once it has been
    /// evaluated, a few hundred bytes whatever the object's size.
    pub fn identity(&self) -> K8sObject {
        let mut meta = Map::new();
        for field in ["name", "namespace"] {
            if let Some(v) = self.value.get("metadata").and_then(|m| m.get(field)) {
                meta.insert(field.to_string(), v.clone());
            }
        }
        let mut top = Map::new();
        for field in ["apiVersion", "kind"] {
            if let Some(v) = self.value.get(field) {
                top.insert(field.to_string(), v.clone());
            }
        }
        top.insert("metadata".to_string(), Value::Object(meta));
        K8sObject {
            value: Value::Object(top),
            origin: self.origin.clone(),
        }
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

pub use crate::k8s::yaml::MAX_DEPTH;

/// Reads every object from each path: `-` is standard input, a directory is walked recursively
/// for `*.yaml`, `*.yml` and `*.json` files (in byte order of their paths), anything else is read
/// as one file whatever its name.
///
/// Errors: an unreadable path, a stream longer than [`crate::k8s::read::max_input_bytes`]
/// (`--max-input-bytes`), malformed YAML/JSON, a document that is not a map, an object
/// without `kind` or with a mistyped field (see [`visit_paths`]). A path that holds no object at
/// all is an error too, so that a mistyped directory does not pass silently.
pub fn read_paths(paths: &[PathBuf]) -> Result<Vec<K8sObject>, ObjectError> {
    let mut out = Vec::new();
    visit_paths(paths, &mut |o| {
        out.push(o);
        Ok(())
    })?;
    Ok(out)
}

/// [`read_paths`], handing each object to `each` as soon as it is read, so that memory holds one
/// document at a time whatever the number of objects. `each` may stop the reading with an
/// error. Errors: as [`read_paths`]; `-` given twice.
pub fn visit_paths(
    paths: &[PathBuf],
    each: &mut dyn FnMut(K8sObject) -> Result<(), ObjectError>,
) -> Result<(), ObjectError> {
    if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(ObjectError::Io {
            file: "<stdin>".into(),
            error: std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "standard input (-) can be read only once",
            ),
        });
    }
    for p in paths {
        let count = if p.is_dir() {
            let mut n = 0;
            for f in walk(p)? {
                n += visit_file(&f, each)?;
            }
            n
        } else {
            visit_file(p, each)?
        };
        if count == 0 {
            return Err(ObjectError::Empty {
                file: p.display().to_string(),
            });
        }
    }
    Ok(())
}

/// The objects of one file (`-`: standard input), handed on one by one; returns their count.
fn visit_file(
    path: &Path,
    each: &mut dyn FnMut(K8sObject) -> Result<(), ObjectError>,
) -> Result<usize, ObjectError> {
    let name = if path.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    };
    let r = open(path).map_err(|error| ObjectError::Io {
        file: name.clone(),
        error,
    })?;
    visit_stream(r, &name, max_input_bytes(), each)
}

/// [`read_paths`], the objects' values only (where the positions are not needed).
pub fn read_values(paths: &[PathBuf]) -> Result<Vec<Value>, ObjectError> {
    Ok(read_paths(paths)?.into_iter().map(|o| o.value).collect())
}

/// Reads one file of YAML documents (None for an empty one), at most
/// [`crate::k8s::read::max_input_bytes`]. Errors: as [`parse_documents`], and the file's own
/// (unreadable, too large, not UTF-8).
pub fn read_documents(path: &Path) -> Result<Vec<Option<Value>>, ObjectError> {
    let file = path.display().to_string();
    let text = crate::k8s::read::read_text(path).map_err(|error| ObjectError::Io {
        file: file.clone(),
        error,
    })?;
    parse_documents(&text, &file)
}

/// The files a directory holds beside objects that are not Kubernetes objects: health test
/// suites (`health_test.yaml`, `flux_health_test.yaml`), which `health test` reads.
pub const SUITE_FILES: [&str; 2] = ["health_test.yaml", "flux_health_test.yaml"];

/// Files under `dir` ending in `.yaml`, `.yml` or `.json`, recursively, sorted by path, less the
/// test suites of [`SUITE_FILES`] and their inputs: the `testdata` directory beside a suite
/// (argo-cd `resource_customizations/<group>/<Kind>/testdata`, which the suite's `inputPath`
/// entries name) holds test objects, not the configuration ([`crate::k8s::walk`]). Errors: the
/// first directory or entry that cannot be read.
pub fn walk(dir: &Path) -> Result<Vec<PathBuf>, ObjectError> {
    let w = crate::k8s::walk::walk(dir);
    if let Some((d, error)) = w.errors.into_iter().next() {
        return Err(ObjectError::Io {
            file: d.display().to_string(),
            error,
        });
    }
    let is_suite = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| SUITE_FILES.contains(&n))
    };
    let inputs: Vec<PathBuf> = w
        .files
        .iter()
        .filter(|p| is_suite(p))
        .filter_map(|p| p.parent().map(|d| d.join("testdata")))
        .collect();
    Ok(w.files
        .into_iter()
        .filter(|p| {
            matches!(
                p.extension().and_then(|x| x.to_str()),
                Some("yaml" | "yml" | "json")
            ) && !is_suite(p)
                && !inputs.iter().any(|d| p.starts_with(d))
        })
        .collect())
}

/// Parses a YAML (or JSON, which is YAML) stream of documents into objects. Empty documents are
/// skipped; a `kind: List` (or any kind ending in `List` with an `items` array, as kubectl
/// treats them) is replaced by its items. `file` is the name used in errors.
pub fn parse_objects(text: &str, file: &str) -> Result<Vec<K8sObject>, ObjectError> {
    let mut out = Vec::new();
    visit_stream(text.as_bytes(), file, u64::MAX, &mut |o| {
        out.push(o);
        Ok(())
    })?;
    Ok(out)
}

/// Reads every object of a stream as `-f` reads a file or standard input: document by document,
/// at most `limit` bytes in all (`--max-input-bytes`), `file` naming the stream in errors.
/// Errors: as [`read_paths`], the bound's included (`ErrorKind::FileTooLarge`); a stream without
/// objects is not an error here (the caller decides, as [`visit_paths`] does).
pub fn read_stream(r: impl BufRead, file: &str, limit: u64) -> Result<Vec<K8sObject>, ObjectError> {
    let mut out = Vec::new();
    visit_stream(r, file, limit, &mut |o| {
        out.push(o);
        Ok(())
    })?;
    Ok(out)
}

/// Parses a YAML stream into one value per document (`None` for an empty document), with
/// Kubernetes number typing applied. The 1-based index of a document is its position + 1.
/// Directives (`%YAML 1.1`) are accepted. Errors name the file, the document and the line.
pub fn parse_documents(text: &str, file: &str) -> Result<Vec<Option<Value>>, ObjectError> {
    documents(text, file)
}

/// One document parsed, numbers typed as Kubernetes types them; errors name the file and the
/// document.
fn parse(chunk: &Chunk, file: &str, document: usize) -> Result<Option<Value>, ObjectError> {
    match parse_chunk(chunk) {
        Ok(v) => Ok(v.map(kube_numbers)),
        Err(message) => Err(ObjectError::Parse {
            file: file.to_string(),
            document,
            message,
        }),
    }
}

/// Reads every object of a stream, in order, handing each to `each` as soon as its document is
/// parsed: a `kind: List` (any kind ending in `List` with `items`) gives its items. Returns how
/// many objects were handed on. `limit` bounds the stream's bytes.
fn visit_stream<R: BufRead>(
    r: R,
    file: &str,
    limit: u64,
    each: &mut dyn FnMut(K8sObject) -> Result<(), ObjectError>,
) -> Result<usize, ObjectError> {
    let mut split = Splitter::new(r, limit);
    let mut count = 0;
    let mut document = 0;
    loop {
        let chunk = split.next_chunk().map_err(|error| ObjectError::Io {
            file: file.to_string(),
            error: with_document(error, document + 1),
        })?;
        let Some(chunk) = chunk else { break };
        document += 1;
        let Some(value) = parse(&chunk, file, document)? else {
            continue;
        };
        let origin = Origin {
            file: file.to_string(),
            document,
            item: None,
        };
        if is_list(&value).map_err(|message| ObjectError::Invalid {
            origin: origin.clone(),
            message,
        })? {
            let Value::Object(mut map) = value else {
                continue;
            };
            let items = match map.remove("items") {
                Some(Value::Array(a)) => a,
                _ => Vec::new(),
            };
            for (i, item) in items.into_iter().enumerate() {
                let origin = Origin {
                    item: Some(i),
                    ..origin.clone()
                };
                each(check_object(item, origin)?)?;
                count += 1;
            }
        } else {
            each(check_object(value, origin)?)?;
            count += 1;
        }
    }
    Ok(count)
}

/// A stream error with the document it stopped in, when it is a size bound or a bad byte.
fn with_document(e: std::io::Error, document: usize) -> std::io::Error {
    match e.kind() {
        // The bound is the stream's, not the document's: say where it was reached.
        std::io::ErrorKind::FileTooLarge => {
            std::io::Error::new(e.kind(), format!("{e}, reached in document {document}"))
        }
        std::io::ErrorKind::InvalidData => {
            std::io::Error::new(e.kind(), format!("document {document}: {e}"))
        }
        _ => e,
    }
}

/// Every document of an in-memory text (None for an empty one), unbounded: the text is already
/// read.
fn documents(text: &str, file: &str) -> Result<Vec<Option<Value>>, ObjectError> {
    let mut split = Splitter::new(text.as_bytes(), u64::MAX);
    let mut docs = Vec::new();
    while let Some(chunk) = split.next_chunk().map_err(|error| ObjectError::Io {
        file: file.to_string(),
        error,
    })? {
        docs.push(parse(&chunk, file, docs.len() + 1)?);
    }
    Ok(docs)
}

/// Opens a path for [`visit_stream`]: standard input for `-`. Errors: the open error, a
/// directory.
fn open(path: &std::path::Path) -> std::io::Result<Box<dyn BufRead>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    if path.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a directory, not a file",
        ));
    }
    Ok(Box::new(std::io::BufReader::with_capacity(
        1 << 16,
        std::fs::File::open(path)?,
    )))
}

/// Whether a document is a list to expand (a kind ending in `List` with `items`, as kubectl
/// reads them; `items: null` is Go's empty list). Errors: `items` that is not a list.
fn is_list(v: &Value) -> Result<bool, String> {
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    match v.get("items") {
        Some(Value::Array(_)) | Some(Value::Null) if kind.ends_with("List") => Ok(true),
        Some(other) if kind.ends_with("List") => Err(format!(
            "field items: expected a list of objects, found {} (kind {kind})",
            json_type(other)
        )),
        _ => Ok(false),
    }
}

fn check_object(value: Value, origin: Origin) -> Result<K8sObject, ObjectError> {
    let invalid = |message: &str| ObjectError::Invalid {
        origin: origin.clone(),
        message: message.to_string(),
    };
    let Some(map) = value.as_object() else {
        return Err(invalid(&format!(
            "expected a Kubernetes object (a map), found {}",
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
                "field metadata: expected a map, found {}",
                json_type(m)
            )));
        }
        // Fields every command reads: a mistyped one would read as absent (a blank name, an
        // object never deleted) where apimachinery's typed decoding refuses the object.
        for field in [
            "name",
            "namespace",
            "generateName",
            "deletionTimestamp",
            "uid",
        ] {
            match m.get(field) {
                None | Some(Value::Null) | Some(Value::String(_)) => {}
                Some(other) => {
                    return Err(invalid(&format!(
                        "field metadata.{field}: expected a string, found {}",
                        json_type(other)
                    )))
                }
            }
        }
        for field in ["labels", "annotations"] {
            match m.get(field) {
                None | Some(Value::Null) | Some(Value::Object(_)) => {}
                Some(other) => {
                    return Err(invalid(&format!(
                        "field metadata.{field}: expected a map of strings, found {}",
                        json_type(other)
                    )))
                }
            }
        }
    }
    Ok(K8sObject { value, origin })
}

/// The words every message of the project uses for a value's type, as in "expected a map, found
/// a list": `null`, `a boolean`, `a number`, `a string`, `a list`, `a map`. The wanted type of a
/// message is spelt with the same words ("expected a list", "expected a map of strings"), so a
/// reader sees one vocabulary whichever file or field is wrong.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// Applies Kubernetes number typing: integers outside int64 (serde's u64) become float64.
/// The value is changed in place: no map or list is rebuilt.
pub fn kube_numbers(mut v: Value) -> Value {
    retype_numbers(&mut v);
    v
}

fn retype_numbers(v: &mut Value) {
    match v {
        Value::Number(n) if n.as_i64().is_none() && n.as_u64().is_some() => {
            *v = serde_json::Number::from_f64(n.as_f64().unwrap_or(f64::MAX))
                .map(Value::Number)
                .unwrap_or(Value::Null);
        }
        Value::Array(a) => a.iter_mut().for_each(retype_numbers),
        Value::Object(m) => m.values_mut().for_each(retype_numbers),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A directory's objects leave out the test suites and the `testdata` beside each (the
    /// suite's inputs); a `testdata` directory with no suite beside it is objects.
    #[test]
    fn a_walk_leaves_out_suites_and_their_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            "argocd-cm.yaml",
            "gates/pacto.trianalab.io/Pacto/health_test.yaml",
            "gates/pacto.trianalab.io/Pacto/health.lua",
            "gates/pacto.trianalab.io/Pacto/testdata/compliant.yaml",
            "flux/flux_health_test.yaml",
            "flux/testdata/deep/ready.yaml",
            "flux/kustomization.yaml",
            "other/testdata/object.yaml",
        ];
        for f in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "{}").unwrap();
        }
        let found: Vec<String> = walk(dir.path())
            .unwrap()
            .iter()
            .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(
            found,
            [
                "argocd-cm.yaml",
                "flux/kustomization.yaml",
                "other/testdata/object.yaml"
            ]
        );
    }

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

    /// A stream read as `-f` reads one: objects in order up to the bound, then the bound's error
    /// (the stream's size, not the document's) naming the document it was reached in (the first
    /// document and its `---` are 32 bytes).
    #[test]
    fn a_stream_is_read_up_to_its_bound() {
        let text = "kind: A\nmetadata: {name: a}\n---\nkind: B\nmetadata: {name: b}\n";
        let objs = read_stream(text.as_bytes(), "s.yaml", 1 << 10).unwrap();
        assert_eq!(
            objs.iter().map(|o| o.kind()).collect::<Vec<_>>(),
            ["A", "B"]
        );
        let err = read_stream(text.as_bytes(), "s.yaml", 35).unwrap_err();
        assert_eq!(
            err.to_string(),
            "s.yaml: larger than 35 bytes (--max-input-bytes; give a larger bound to read it), reached in document 2"
        );
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
            "s.yaml: document 1: expected a Kubernetes object (a map), found a list"
        );
        let err = parse_objects("kind: 5\n", "n.yaml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "n.yaml: document 1: field kind: expected a string, found a number"
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
        let bounds = crate::k8s::yaml::Bounds {
            nodes: 1_000_000,
            scalar_bytes: 1 << 24,
            alias_values: 1 << 14,
        };
        assert_eq!(
            crate::k8s::yaml::readable("budget breached: Events { events: 1000001 }", &bounds),
            "refused: YAML aliases expand the document beyond 1000000 values (the bound is the document's size in bytes, at least 1048576)"
        );
        assert!(!crate::k8s::yaml::readable(
            "cannot deserialize null into string; use Option<String>",
            &bounds
        )
        .contains("Option"));
    }

    /// A YAML "billion laughs": a few kilobytes that aliases would expand to gigabytes stop at
    /// the parser's bounds, with an error naming them.
    #[test]
    fn an_alias_bomb_is_refused() {
        let mut text = String::from("kind: X\na0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for i in 1..10 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"
            ));
        }
        let err = parse_objects(&text, "bomb.yaml").unwrap_err().to_string();
        assert!(err.starts_with("bomb.yaml: document 1: "), "{err}");
        assert!(err.contains("refused: "), "{err}");
        assert!(err.contains("alias"), "{err}");
    }

    /// A valid directive is read; the document it precedes keeps its number.
    #[test]
    fn yaml_directives_are_accepted() {
        let objs = parse_objects("%YAML 1.1\n---\nkind: A\n---\nkind: B\n", "d.yaml").unwrap();
        assert_eq!(objs.len(), 2);
        assert_eq!(objs[0].kind(), "A");
        assert_eq!(objs[0].origin.document, 1);
        assert_eq!(objs[1].origin.document, 2);
    }

    /// Fields read as absent when mistyped are refused, naming the field.
    #[test]
    fn mistyped_fields_are_errors_not_blanks() {
        let err = |t: &str| parse_objects(t, "m.yaml").unwrap_err().to_string();
        assert_eq!(
            err("kind: Pacto\nmetadata: {name: [1, 2]}\n"),
            "m.yaml: document 1: field metadata.name: expected a string, found a list"
        );
        assert_eq!(
            err("kind: Pacto\nmetadata: {name: a, deletionTimestamp: 12}\n"),
            "m.yaml: document 1: field metadata.deletionTimestamp: expected a string, found a number"
        );
        assert_eq!(
            err("apiVersion: v1\nkind: List\nitems: 5\n"),
            "m.yaml: document 1: field items: expected a list of objects, found a number (kind List)"
        );
        assert!(parse_objects("kind: List\nitems: null\n", "m.yaml")
            .unwrap()
            .is_empty());
    }

    /// `.inf` has no JSON form: the error says so in a user's words.
    #[test]
    fn infinite_numbers_are_refused_in_words() {
        let err = parse_objects("kind: X\nspec: {a: .inf}\n", "f.yaml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("infinite or not a number"), "{err}");
        assert!(!err.contains("configured policy"), "{err}");
    }

    /// Streams are read line by line within the bound: a file of NUL bytes ends at the first.
    #[test]
    fn streams_are_bounded() {
        let mut n = 0;
        let err = visit_stream(&b"kind: A\n---\nkind: B\n"[..], "s", 12, &mut |_| {
            n += 1;
            Ok(())
        })
        .unwrap_err()
        .to_string();
        assert_eq!(n, 1);
        assert_eq!(
            err,
            "s: larger than 12 bytes (--max-input-bytes; give a larger bound to read it), reached in document 2"
        );
        let zeros = std::io::BufReader::new(std::io::repeat(0));
        let err = visit_stream(zeros, "<stdin>", u64::MAX, &mut |_| Ok(()))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "<stdin>: document 1: a NUL byte at offset 0: not YAML or JSON text"
        );
    }
}
