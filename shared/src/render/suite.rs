//! The report of `kubectl pacto health test`: an `ERROR` line per suite that could not run, a
//! `FAIL` block per failing case (expected, then got), and the closing `N passed, M failed`;
//! for CI the same run as JUnit XML ([`junit`]) or data ([`report_json`]). In the report, paths,
//! statuses and messages come from files and scripts: they are escaped ([`one_line`]); the XML
//! escapes them its own way.

use super::one_line;
use crate::argo::suite::SuiteRun;
use crate::flux::suite::FluxCase;
use std::path::Path;

/// The errors and failing cases of a run of Argo CD suites (`health_test.yaml`).
pub fn argo_failures(run: &SuiteRun) -> String {
    let mut out = String::new();
    for e in &run.errors {
        out.push_str(&format!(
            "ERROR {}: {}\n",
            one_line(&e.file.display().to_string()),
            one_line(&e.message)
        ));
    }
    for c in run.cases.iter().filter(|c| !c.passed()) {
        let got = match &c.got {
            Ok(h) => format!("{} {:?}", one_line(&h.status), h.message),
            Err(e) => format!("error {e:?}"),
        };
        out.push_str(&format!(
            "FAIL {}\n  expected: {} {:?}\n  got:      {got}\n",
            one_line(&c.input.display().to_string()),
            one_line(&c.expected.status),
            c.expected.message
        ));
    }
    out
}

/// A Flux suite file that could not run.
pub fn flux_suite_error(file: &Path, error: &str) -> String {
    format!(
        "ERROR {}: {}\n",
        one_line(&file.display().to_string()),
        one_line(error)
    )
}

/// A failing Flux case (`flux_health_test.yaml`).
pub fn flux_failure(c: &FluxCase) -> String {
    let got = match &c.got {
        Ok((status, None)) => status.clone(),
        Ok((status, Some(e))) => format!("{status} (error {e:?})"),
        Err(e) => format!("could not run: {e}"),
    };
    let want = match &c.expected_error {
        None => c.expected_status.clone(),
        Some(e) => format!("{} (error {e:?})", c.expected_status),
    };
    format!(
        "FAIL {} (flux)\n  expected: {}\n  got:      {}\n",
        one_line(&c.input.display().to_string()),
        one_line(&want),
        one_line(&got)
    )
}

/// The closing line, which CI runners read: `N passed, M failed`.
pub fn summary(passed: usize, failed: usize) -> String {
    format!("{passed} passed, {failed} failed\n")
}

/// The results of one `health test` run, as [`junit`] and [`report_json`] take them.
pub struct TestRun<'a> {
    /// Argo CD suites (`health_test.yaml`), one run per directory given.
    pub argo: &'a [SuiteRun],
    /// Flux suites (`flux_health_test.yaml`): the file and its cases, or why it could not run.
    pub flux: &'a [(std::path::PathBuf, Result<Vec<FluxCase>, String>)],
}

fn argo_got(c: &crate::argo::suite::CaseResult) -> String {
    match &c.got {
        Ok(h) => format!("{} {:?}", h.status, h.message),
        Err(e) => format!("error {e:?}"),
    }
}

fn flux_got(c: &FluxCase) -> String {
    match &c.got {
        Ok((status, None)) => status.clone(),
        Ok((status, Some(e))) => format!("{status} (error {e:?})"),
        Err(e) => format!("could not run: {e}"),
    }
}

fn flux_want(c: &FluxCase) -> String {
    match &c.expected_error {
        None => c.expected_status.clone(),
        Some(e) => format!("{} (error {e:?})", c.expected_status),
    }
}

/// Text for an XML attribute or element: the five predefined entities, and the characters XML
/// 1.0 cannot hold (controls other than tab and newline) written as `\xNN`.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// The run as JUnit XML (the schema CI systems read: `testsuites` > `testsuite` > `testcase`
/// with `failure` or `error`): one `testsuite` for the Argo CD cases and one for the Flux
/// cases; a case's `classname` is its input's directory (`..` resolved, as `filepath.Clean`),
/// its `name` the input file; a suite file that could not run is a case with an `error`.
pub fn junit(run: &TestRun) -> String {
    let mut argo_cases = String::new();
    let (mut argo_tests, mut argo_failures, mut argo_errors) = (0, 0, 0);
    for r in run.argo {
        for e in &r.errors {
            argo_tests += 1;
            argo_errors += 1;
            argo_cases.push_str(&format!(
                "    <testcase classname=\"argo\" name=\"{}\">\n      <error message=\"{}\"/>\n    </testcase>\n",
                xml(&e.file.display().to_string()),
                xml(&e.message)
            ));
        }
        for c in &r.cases {
            argo_tests += 1;
            let (class, name) = split_path(&c.input);
            argo_cases.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml(&class),
                xml(&name)
            ));
            if c.passed() {
                argo_cases.push_str("/>\n");
                continue;
            }
            argo_failures += 1;
            let want = format!("{} {:?}", c.expected.status, c.expected.message);
            argo_cases.push_str(&format!(
                ">\n      <failure message=\"expected {}, got {}\">expected: {}\ngot:      {}</failure>\n    </testcase>\n",
                xml(&want),
                xml(&argo_got(c)),
                xml(&want),
                xml(&argo_got(c))
            ));
        }
    }
    let mut flux_cases = String::new();
    let (mut flux_tests, mut flux_failures, mut flux_errors) = (0, 0, 0);
    for (file, cases) in run.flux {
        match cases {
            Err(e) => {
                flux_tests += 1;
                flux_errors += 1;
                flux_cases.push_str(&format!(
                    "    <testcase classname=\"flux\" name=\"{}\">\n      <error message=\"{}\"/>\n    </testcase>\n",
                    xml(&file.display().to_string()),
                    xml(e)
                ));
            }
            Ok(cases) => {
                for c in cases {
                    flux_tests += 1;
                    let (class, name) = split_path(&c.input);
                    flux_cases.push_str(&format!(
                        "    <testcase classname=\"{}\" name=\"{}\"",
                        xml(&class),
                        xml(&name)
                    ));
                    if c.passed() {
                        flux_cases.push_str("/>\n");
                        continue;
                    }
                    flux_failures += 1;
                    flux_cases.push_str(&format!(
                        ">\n      <failure message=\"expected {}, got {}\">expected: {}\ngot:      {}</failure>\n    </testcase>\n",
                        xml(&flux_want(c)),
                        xml(&flux_got(c)),
                        xml(&flux_want(c)),
                        xml(&flux_got(c))
                    ));
                }
            }
        }
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kubectl pacto health test\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n  <testsuite name=\"argo\" tests=\"{argo_tests}\" failures=\"{argo_failures}\" errors=\"{argo_errors}\">\n{argo_cases}  </testsuite>\n  <testsuite name=\"flux\" tests=\"{flux_tests}\" failures=\"{flux_failures}\" errors=\"{flux_errors}\">\n{flux_cases}  </testsuite>\n</testsuites>\n",
        argo_tests + flux_tests,
        argo_failures + flux_failures,
        argo_errors + flux_errors,
    )
}

/// `p` with `.` and `dir/..` removed, as Go's `filepath.Clean` writes a path (no file system
/// access): a/b/../../c/x.yaml is c/x.yaml.
fn clean(p: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir) => {}
                _ => out.push(c),
            },
            c => out.push(c),
        }
    }
    out.iter().collect()
}

fn split_path(p: &Path) -> (String, String) {
    let p = clean(p);
    let class = p
        .parent()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    (class, name)
}

/// The run as data: `{"kind":"HealthTestReport","passed":N,"failed":M,"cases":[{"engine":
/// "argo"|"flux","input":...,"passed":bool,"expected":...,"got":...}],"errors":[{"engine",
/// "file","message"}]}`; `expected` and `got` are `{status, message}` (Argo CD) or `{status,
/// error}` (Flux), `got` is `{"error": ...}` when the case could not run.
pub fn report_json(run: &TestRun) -> serde_json::Value {
    use serde_json::json;
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for r in run.argo {
        for e in &r.errors {
            errors.push(json!({"engine": "argo", "file": e.file.display().to_string(), "message": e.message}));
        }
        for c in &r.cases {
            let got = match &c.got {
                Ok(h) => json!({"status": h.status, "message": h.message}),
                Err(e) => json!({"error": e}),
            };
            cases.push(json!({
                "engine": "argo",
                "input": c.input.display().to_string(),
                "passed": c.passed(),
                "expected": {"status": c.expected.status, "message": c.expected.message},
                "got": got,
            }));
        }
    }
    for (file, result) in run.flux {
        match result {
            Err(e) => errors
                .push(json!({"engine": "flux", "file": file.display().to_string(), "message": e})),
            Ok(list) => {
                for c in list {
                    let got = match &c.got {
                        Ok((status, error)) => json!({"status": status, "error": error}),
                        Err(e) => json!({"error": e}),
                    };
                    cases.push(json!({
                        "engine": "flux",
                        "input": c.input.display().to_string(),
                        "passed": c.passed(),
                        "expected": {"status": c.expected_status, "error": c.expected_error},
                        "got": got,
                    }));
                }
            }
        }
    }
    let passed = cases.iter().filter(|c| c["passed"] == true).count();
    let failed = cases.len() - passed + errors.len();
    json!({
        "apiVersion": "pacto.trianalab.io/v1alpha1",
        "kind": "HealthTestReport",
        "passed": passed,
        "failed": failed,
        "cases": cases,
        "errors": errors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::argo::suite::SuiteError;

    /// Text from suite files reaches the report escaped.
    #[test]
    fn suite_reports_are_escaped() {
        let run = SuiteRun {
            errors: vec![SuiteError {
                file: "a\u{1b}]0;x\u{7}/health_test.yaml".into(),
                message: "bad\u{1b}[2J".into(),
            }],
            ..Default::default()
        };
        assert_eq!(
            argo_failures(&run),
            "ERROR a\\x1b]0;x\\x07/health_test.yaml: bad\\x1b[2J\n"
        );
        assert_eq!(
            flux_suite_error(Path::new("f\u{1b}.yaml"), "e\r"),
            "ERROR f\\x1b.yaml: e\\r\n"
        );
    }

    /// JUnit class names are clean paths: a suite's `inputPath` may climb out of its directory.
    #[test]
    fn junit_class_names_are_clean_paths() {
        assert_eq!(
            clean(Path::new(
                "examples/flux/ungated/../../gates/x/./testdata/a.yaml"
            )),
            Path::new("examples/gates/x/testdata/a.yaml")
        );
        assert_eq!(clean(Path::new("../a/../b")), Path::new("../b"));
        assert_eq!(clean(Path::new("/../a")), Path::new("/a"));
    }
}
