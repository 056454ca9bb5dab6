//! The report of `kubectl pacto health test`: an `ERROR` line per suite that could not run, a
//! `FAIL` block per failing case (expected, then got), and the closing `N passed, M failed`.
//! Paths, statuses and messages come from files and scripts: they are escaped ([`one_line`]).

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
}
