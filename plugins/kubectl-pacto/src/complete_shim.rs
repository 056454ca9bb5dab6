//! `kubectl_complete-pacto`: kubectl (1.26+) runs this with the words after `kubectl pacto`
//! (the last one being completed) and reads candidates from stdout, one per line, then a
//! `:<directive>` line (Cobra's protocol, kubectl `pkg/cmd/plugin/plugin_completion.go`).
//!
//! It hands the words to `kubectl-pacto __complete`, the plugin beside it (else the one on
//! `PATH`), so that the shim carries none of the plugin's code: it builds in a second, where a
//! copy of the whole plugin took minutes to link.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let beside: Option<PathBuf> = std::env::current_exe()
        .ok()
        .map(|exe| exe.with_file_name("kubectl-pacto"))
        .filter(|p| p.is_file());
    let program = beside.unwrap_or_else(|| PathBuf::from("kubectl-pacto"));
    let err = Command::new(&program)
        .args(["__complete", "--"])
        .args(std::env::args_os().skip(1))
        .exec();
    // exec returns only when it failed: no candidates, and the shell completes nothing.
    eprintln!(
        "kubectl_complete-pacto: cannot run {}: {err}",
        program.display()
    );
    println!(":4");
    ExitCode::from(1)
}
