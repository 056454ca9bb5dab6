//! Flux health test suites: a `flux_health_test.yaml` names a Kustomization (or HelmRelease) file
//! beside it and lists input objects with the status Flux must conclude, in the spirit of
//! Argo CD's `health_test.yaml`:
//!
//! ```yaml
//! kustomization: kustomization.yaml   # optional; without it kstatus alone judges
//! tests:
//! - inputPath: testdata/noncompliant.yaml
//!   status: Failed                    # Current, InProgress, Failed, Terminating, Unknown
//!   error: "failed to evaluate ..."   # optional: the exact reader error (status Unknown)
//! ```
//!
//! Paths are relative to the suite file.

use super::health::{FluxHealth, JobOrder};
use super::kustomization;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The suite file name looked for.
pub const SUITE_FILE: &str = "flux_health_test.yaml";

/// One case and its outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FluxCase {
    pub input: PathBuf,
    pub expected_status: String,
    /// None: the error is not checked.
    pub expected_error: Option<String>,
    /// (status, error) Flux concluded, or why the case could not run.
    pub got: Result<(String, Option<String>), String>,
}

impl FluxCase {
    /// Status equal, and error equal when the case states one.
    pub fn passed(&self) -> bool {
        match &self.got {
            Ok((status, error)) => {
                *status == self.expected_status
                    && self
                        .expected_error
                        .as_ref()
                        .is_none_or(|want| error.as_deref() == Some(want.as_str()))
            }
            Err(_) => false,
        }
    }
}

/// Finds every `flux_health_test.yaml` below `root`, sorted.
pub fn find_suites(root: &Path) -> Vec<PathBuf> {
    crate::k8s::walk::walk(root)
        .files
        .into_iter()
        .filter(|p| p.file_name().and_then(|n| n.to_str()) == Some(SUITE_FILE))
        .collect()
}

/// Runs one suite file. Errors: the suite or its Kustomization cannot be read or is invalid.
pub fn run_suite(file: &Path, now_unix: i64) -> Result<Vec<FluxCase>, String> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let doc = read_first(file)?;
    let engine = match doc.get("kustomization") {
        None | Some(Value::Null) => FluxHealth::new(&[], JobOrder::JobReaderFirst, now_unix)?,
        Some(Value::String(rel)) => {
            let k = kustomization::parse(&read_first(&dir.join(rel))?)
                .map_err(|e| format!("{rel}: {e}"))?;
            FluxHealth::new(&k.exprs, k.job_order(), now_unix).map_err(|e| format!("{rel}: {e}"))?
        }
        Some(_) => return Err("field kustomization: expected a path".into()),
    };
    let tests = doc
        .get("tests")
        .and_then(Value::as_array)
        .ok_or("field tests: expected a list of cases")?;
    let mut cases = Vec::new();
    for (i, t) in tests.iter().enumerate() {
        let input = t
            .get("inputPath")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("tests[{i}].inputPath: missing or not a string"))?;
        let status = t
            .get("status")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("tests[{i}].status: missing or not a string"))?;
        let error = match t.get("error") {
            None | Some(Value::Null) => None,
            Some(Value::String(e)) => Some(e.clone()),
            Some(_) => return Err(format!("tests[{i}].error: expected a string")),
        };
        let path = dir.join(input);
        let got = read_first(&path).map(|obj| {
            let v = engine.evaluate(&obj);
            (v.status.as_str().to_string(), v.error)
        });
        cases.push(FluxCase {
            input: path,
            expected_status: status.to_string(),
            expected_error: error,
            got,
        });
    }
    Ok(cases)
}

fn read_first(path: &Path) -> Result<Value, String> {
    crate::k8s::read::only_regular(path)?;
    crate::object::read_documents(path)
        .map_err(|e| e.to_string())?
        .into_iter()
        .flatten()
        .next()
        .ok_or_else(|| format!("{}: no document", path.display()))
}
