//! `kubectl pacto health test DIR...`: run the health test suites of directories (every
//! `health.lua` with a `health_test.yaml` beside it, argo-cd's `resource_customizations/`
//! layout, and every Flux suite file), then report the failures and a summary, as text, JUnit
//! XML or JSON. Exit 1 on any failure.

use crate::io::output::write_stdout;
use anyhow::{bail, Result};
use kubectl_pacto::cli;
use kubectl_pacto::options::Global;
use pacto_gates::argo::suite;
use pacto_gates::render;
use std::process::ExitCode;

/// `kubectl pacto health test`.
pub(crate) fn run(
    dirs: &[std::path::PathBuf],
    output: Option<cli::TestOutput>,
    global: &Global,
) -> Result<ExitCode> {
    let mut argo_runs = Vec::new();
    let mut flux_runs = Vec::new();
    for dir in dirs {
        if !dir.exists() {
            bail!("{}: no such file or directory", dir.display());
        }
        if !dir.is_dir() {
            bail!(
                "{}: not a directory (health test takes directories of suites)",
                dir.display()
            );
        }
        let run = suite::run_tree(dir, global.now_unix());
        let flux_suites = pacto_gates::flux::suite::find_suites(dir);
        if run.suites == 0 && flux_suites.is_empty() {
            bail!(
                "{}: no health.lua with a health_test.yaml beside it, and no {}",
                dir.display(),
                pacto_gates::flux::suite::SUITE_FILE
            );
        }
        argo_runs.push(run);
        for file in flux_suites {
            let cases = pacto_gates::flux::suite::run_suite(&file, global.now_unix());
            flux_runs.push((file, cases));
        }
    }
    let mut out = String::new();
    let (mut passed, mut failed) = (0usize, 0usize);
    for run in &argo_runs {
        out.push_str(&render::suite::argo_failures(run));
        passed += run.passed();
        failed += run.failed();
    }
    for (file, cases) in &flux_runs {
        match cases {
            Err(e) => {
                out.push_str(&render::suite::flux_suite_error(file, e));
                failed += 1;
            }
            Ok(cases) => {
                for c in cases {
                    if c.passed() {
                        passed += 1;
                        continue;
                    }
                    failed += 1;
                    out.push_str(&render::suite::flux_failure(c));
                }
            }
        }
    }
    out.push_str(&render::suite::summary(passed, failed));
    let run = render::suite::TestRun {
        argo: &argo_runs,
        flux: &flux_runs,
    };
    let out = match output {
        None => out,
        Some(cli::TestOutput::Junit) => render::suite::junit(&run),
        Some(cli::TestOutput::Json) => {
            serde_json::to_string_pretty(&render::suite::report_json(&run))? + "\n"
        }
    };
    write_stdout(&out)?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
