//! What reaches stdout and stderr: output written whole (a reader that went away is no error),
//! notes on stderr (each once, escaped), and an error as `error: ...` with its exit code.

use anyhow::{Context, Result};
use std::io::Write;
use std::process::ExitCode;

/// Writes to stdout; a reader that went away (`| head`) is not an error, a full disk is.
pub(crate) fn write_stdout(s: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("writing to standard output"),
    }
}

/// One message (an error, a note) as it reaches stderr: cut past
/// `render::MAX_MESSAGE_BYTES` with a note of how much was cut (a server's `Status.message` can
/// be megabytes), each line escaped (server and file texts end up there).
fn message(text: &str) -> String {
    let text = pacto_gates::render::cut(text, pacto_gates::render::MAX_MESSAGE_BYTES);
    let lines: Vec<String> = text.lines().map(pacto_gates::render::one_line).collect();
    lines.join("\n")
}

/// JSON for stdout: as it is on a pipe; on a terminal with the characters that could drive it
/// written as `\uXXXX` escapes (still JSON, the same value; `render::json_for_terminal`).
pub(crate) fn json_for(text: String, terminal: bool) -> String {
    match terminal {
        true => pacto_gates::render::json_for_terminal(&text),
        false => text,
    }
}

/// Other machine text (YAML, XML) for stdout: as it is on a pipe; on a terminal each line with
/// the characters that could drive it shown escaped (`render::safe_lines`).
pub(crate) fn text_for(text: String, terminal: bool) -> String {
    match terminal {
        true => pacto_gates::render::safe_lines(&text),
        false => text,
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
    let n = pacto_gates::render::cut(n, pacto_gates::render::MAX_MESSAGE_BYTES);
    eprintln!("note: {}", pacto_gates::render::one_line(&n));
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

/// Prints `error: TEXT` on stderr, escaped and cut as [`exit_on_error`] prints an error: for a
/// run that goes on after one part of it failed (a context of `get --context a,b`).
pub(crate) fn error_line(text: &str) {
    eprintln!("error: {}", message(text));
}

/// The exit code of a command's result: an error is printed as `error: ...` on stderr (server
/// and file texts end up there: no terminal control sequence reaches it) and exits `code`
/// (kubectl's 1; 2 for the checks and the reconcile, whose 1 means findings or work left).
pub(crate) fn exit_on_error(result: Result<ExitCode>, code: u8) -> ExitCode {
    match result {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {}", message(&format!("{e:#}")));
            ExitCode::from(code)
        }
    }
}

/// How many columns the terminal stdout writes to has: `COLUMNS` when it holds a number (as a
/// shell exports it), else the terminal's own size (`TIOCGWINSZ`); None when stdout is not a
/// terminal (`terminal` false), so that piped output keeps whole lines.
pub(crate) fn terminal_width(terminal: bool) -> Option<usize> {
    if !terminal {
        return None;
    }
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
    {
        return Some(n);
    }
    #[cfg(unix)]
    {
        // SAFETY: TIOCGWINSZ writes a winsize into the struct given; stdout is a descriptor.
        let mut size: libc::winsize = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
        if ok && size.ws_col > 0 {
            return Some(usize::from(size.ws_col));
        }
    }
    None
}
