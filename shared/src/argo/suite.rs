//! Health test suites in Argo CD's layout: a `health.lua` with a `health_test.yaml` beside it,
//! `tests: [{healthStatus: {status, message}, inputPath}]`, run as argo-cd
//! `util/lua/health_test.go` `TestLuaHealthScript` runs them: the script is looked up by the
//! input object's own GVK among the built-in scripts of the tree (so wildcard directories resolve
//! as they do in Argo; a suite given on its own is found through its directory's own
//! `<group>/<Kind>` path, and one whose directory names another kind finds no script and fails),
//! run with open libraries through `ExecuteHealthLua` (no deletion
//! short-circuit), and status and message compared exactly (a missing message is "").

use super::health::{ArgoHealth, BuiltinScripts};
use super::settings::Overrides;
use super::HealthStatus;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One test case and its outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseResult {
    /// The input file, as given in the suite joined to the script's directory.
    pub input: PathBuf,
    pub expected: HealthStatus,
    /// What the script returned, or the error text of a failed run.
    pub got: Result<HealthStatus, String>,
}

impl CaseResult {
    /// Whether the case passed: no error, status and message equal.
    pub fn passed(&self) -> bool {
        matches!(&self.got, Ok(h) if *h == self.expected)
    }
}

/// A suite that could not be read: the file and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteError {
    pub file: PathBuf,
    pub message: String,
}

/// Everything one run found.
#[derive(Debug, Default)]
pub struct SuiteRun {
    pub cases: Vec<CaseResult>,
    pub errors: Vec<SuiteError>,
    /// Number of `health.lua` files that had a `health_test.yaml`.
    pub suites: usize,
}

impl SuiteRun {
    /// Cases that passed.
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.passed()).count()
    }
    /// Cases that failed plus suites that could not be read.
    pub fn failed(&self) -> usize {
        self.cases.len() - self.passed() + self.errors.len()
    }
}

/// Finds every directory below `root` (or `root` itself) holding both `health.lua` and
/// `health_test.yaml`, byte-sorted. Either may be something other than a regular file (a FIFO, a
/// device): [`run_tree`] then reports the suite as an error rather than skip it.
pub fn find_suites(root: &Path) -> Vec<PathBuf> {
    let present = |p: PathBuf| std::fs::metadata(p).is_ok_and(|m| !m.is_dir());
    crate::k8s::walk::walk(root)
        .dirs
        .into_iter()
        .filter(|d| present(d.join("health.lua")) && present(d.join("health_test.yaml")))
        .collect()
}

/// The first of a suite's files that is not a regular file, with the error to report.
fn not_regular(dir: &Path) -> Option<(PathBuf, String)> {
    ["health.lua", "health_test.yaml"]
        .into_iter()
        .find_map(|f| {
            let p = dir.join(f);
            (!p.is_file()).then(|| {
                let message = format!(
                    "{}: not a regular file (a FIFO, socket or device is not read)",
                    p.display()
                );
                (p, message)
            })
        })
}

/// Runs every suite below `root`. `now_unix` is what `os.time()` returns.
pub fn run_tree(root: &Path, now_unix: i64) -> SuiteRun {
    let builtins = BuiltinScripts::load(root).unwrap_or_default();
    let engine = ArgoHealth::new(Overrides::default(), Some(builtins), now_unix);
    let mut run = SuiteRun::default();
    for dir in find_suites(root) {
        run.suites += 1;
        if let Some((file, message)) = not_regular(&dir) {
            run.errors.push(SuiteError { file, message });
            continue;
        }
        match read_suite(&dir) {
            Err(message) => run.errors.push(SuiteError {
                file: dir.join("health_test.yaml"),
                message,
            }),
            Ok(cases) => {
                let own = own_script(&dir);
                for (input, expected) in cases {
                    let got = run_case(&engine, &input, &own);
                    run.cases.push(CaseResult {
                        input,
                        expected,
                        got,
                    });
                }
            }
        }
    }
    run
}

/// The suite's own script as a one-entry tree keyed by its directory's path
/// (`<group>/<Kind>`, `_` a wildcard): it judges an object the tree has no script for only if
/// the object's group and kind would find it there, so a suite run on its own directory works and
/// a suite in a directory named for another kind fails, as Argo CD's test would find no script.
fn own_script(dir: &Path) -> BuiltinScripts {
    let mut own = BuiltinScripts::default();
    let name = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
    };
    let (Some(kind), Some(group)) = (name(Some(dir)), name(dir.parent())) else {
        return own;
    };
    let script = dir.join("health.lua");
    let Ok(text) = crate::k8s::read::read_text(&script) else {
        return own;
    };
    let rel = format!("{group}/{kind}");
    if rel.contains('_') {
        own.wildcards.push((rel, script, text));
    } else {
        own.exact.insert(rel, (script, text));
    }
    own
}

fn run_case(
    engine: &ArgoHealth,
    input: &Path,
    own: &BuiltinScripts,
) -> Result<HealthStatus, String> {
    crate::k8s::read::only_regular(input)?;
    // sigs.k8s.io/yaml reads the first document of a file.
    let obj = crate::object::read_documents(input)
        .map_err(|e| e.to_string())?
        .into_iter()
        .flatten()
        .next()
        .ok_or_else(|| format!("{}: no object", input.display()))?;
    let gvk = crate::k8s::gvk_of(&obj);
    let key = gvk.group_kind();
    let script = match engine.health_script(&gvk) {
        Some((s, _, _)) => s,
        None => own
            .find(&format!("{}/{}", gvk.group, gvk.kind)).map(|(_, text)| text).ok_or_else(|| {
            format!(
                "no health script for {key}: Argo CD looks it up by the object's own group and kind ({key}/health.lua), and the suite's directory is for another"
            )
        })?,
    };
    engine.run_script(script, &obj, true).0
}

/// Reads a `health_test.yaml`: (input path joined to the suite directory, expected status).
/// Field names are matched case-insensitively, as Go's JSON decoding does (two corpus files
/// spell `inputpath`).
fn read_suite(dir: &Path) -> Result<Vec<(PathBuf, HealthStatus)>, String> {
    let file = dir.join("health_test.yaml");
    let doc = crate::object::read_documents(&file)
        .map_err(|e| e.to_string())?
        .into_iter()
        .flatten()
        .next()
        .unwrap_or(Value::Null);
    let tests = field(&doc, "tests")
        .and_then(Value::as_array)
        .ok_or("field tests: expected a list of cases")?;
    let mut out = Vec::new();
    for (i, t) in tests.iter().enumerate() {
        let input = field(t, "inputPath")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("tests[{i}].inputPath: missing or not a string"))?;
        let hs =
            field(t, "healthStatus").ok_or_else(|| format!("tests[{i}].healthStatus: missing"))?;
        let text_of = |name: &str| -> Result<String, String> {
            match field(hs, name) {
                None | Some(Value::Null) => Ok(String::new()),
                Some(Value::String(s)) => Ok(s.clone()),
                Some(other) => Err(format!(
                    "tests[{i}].healthStatus.{name}: expected a string, found {}",
                    crate::object::json_type(other)
                )),
            }
        };
        out.push((
            dir.join(input),
            HealthStatus::new(text_of("status")?, text_of("message")?),
        ));
    }
    Ok(out)
}

fn field<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    let m = v.as_object()?;
    m.get(name).or_else(|| {
        m.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    })
}
