//! What reaches stdout and stderr: output written whole (a reader that went away is no error),
//! notes on stderr (each once, escaped), and an error as `error: ...` with its exit code.

use anyhow::{Context, Result};
use std::io::Write;
use std::process::ExitCode;

/// Writes to stdout; a reader that went away (`| head`) is not an error.
pub(crate) fn write_stdout(s: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("writing to standard output"),
    }
}

/// The result of output streamed to stdout: a reader that went away is not an error.
pub(crate) fn streamed(written: std::io::Result<()>) -> Result<ExitCode> {
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("writing to standard output")
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Prints one note as `note: ...` on stderr, escaped.
pub(crate) fn note(n: &str) {
    eprintln!("note: {}", pacto_gates::render::one_line(n));
}

/// Prints each note once, in order, as `note: ...` on stderr (escaped: server and file texts
/// end up there).
pub(crate) fn print_notes<S: AsRef<str>>(notes: &[S]) {
    let mut seen: Vec<&str> = Vec::new();
    for n in notes {
        let n = n.as_ref();
        if !seen.contains(&n) {
            note(n);
            seen.push(n);
        }
    }
}

/// The exit code of a command's result: an error is printed as `error: ...` on stderr (server
/// and file texts end up there: no terminal control sequence reaches it) and exits `code`
/// (kubectl's 1; 2 for the checks and the reconcile, whose 1 means findings or work left).
pub(crate) fn exit_on_error(result: Result<ExitCode>, code: u8) -> ExitCode {
    match result {
        Ok(c) => c,
        Err(e) => {
            let text = format!("{e:#}");
            let lines: Vec<String> = text.lines().map(pacto_gates::render::one_line).collect();
            eprintln!("error: {}", lines.join("\n"));
            ExitCode::from(code)
        }
    }
}
