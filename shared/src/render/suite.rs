//! The report of `kubectl pacto health test`: an `ERROR` line per suite that could not run, a
//! `FAIL` block per failing case (expected, then got), and the closing `N passed, M failed`.

use crate::argo::suite::SuiteRun;
use crate::flux::suite::FluxCase;
use std::path::Path;

/// The errors and failing cases of a run of Argo CD suites (`health_test.yaml`).
pub fn argo_failures(run: &SuiteRun) -> String {
    let mut out = String::new();
    for e in &run.errors {
        out.push_str(&format!("ERROR {}: {}\n", e.file.display(), e.message));
    }
    for c in run.cases.iter().filter(|c| !c.passed()) {
        let got = match &c.got {
            Ok(h) => format!("{} {:?}", h.status, h.message),
            Err(e) => format!("error {e:?}"),
        };
        out.push_str(&format!(
            "FAIL {}\n  expected: {} {:?}\n  got:      {got}\n",
            c.input.display(),
            c.expected.status,
            c.expected.message
        ));
    }
    out
}

/// A Flux suite file that could not run.
pub fn flux_suite_error(file: &Path, error: &str) -> String {
    format!("ERROR {}: {error}\n", file.display())
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
        "FAIL {} (flux)\n  expected: {want}\n  got:      {got}\n",
        c.input.display()
    )
}

/// The closing line, which CI runners read: `N passed, M failed`.
pub fn summary(passed: usize, failed: usize) -> String {
    format!("{passed} passed, {failed} failed\n")
}
