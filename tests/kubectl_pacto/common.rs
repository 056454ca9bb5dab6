//! Helpers shared by the end-to-end tests: running the built binaries with a deadline, paths,
//! and a kubectl-style table formatter used to spell out expected output.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The built plugin binary.
pub const PACTO: &str = env!("CARGO_BIN_EXE_kubectl-pacto");
/// The completion shim kubectl runs for `kubectl pacto <TAB>`.
pub const COMPLETE_SHIM: &str = env!("CARGO_BIN_EXE_kubectl_complete-pacto");

/// How long any single run of the binaries may take before the test calls it hung and fails: a
/// guard against a run that never ends, not a speed claim. Every run takes well under a second
/// of CPU; the margin is for a machine whose cores are busy with other builds. Where ending is
/// the point (a hostile input, a timeout flag), the test asserts the tool's own error, which
/// names the bound by work done or the tool's own timeout, and this guard only stops a hang.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// The repository root (`plugins/kubectl-pacto/../..`).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file of `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    repo().join("tests/fixtures").join(rel)
}

/// What one run produced.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Run {
    /// Asserts the exit code, showing both streams on failure.
    pub fn assert_code(&self, want: i32) -> &Self {
        assert_eq!(
            self.code,
            Some(want),
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    /// No Rust panic message on stderr and a normal exit (101 is Rust's panic exit code).
    pub fn assert_no_panic(&self) -> &Self {
        assert!(
            !self.stderr.contains("panicked"),
            "the binary panicked:\n{}",
            self.stderr
        );
        assert_ne!(self.code, Some(101), "exit 101 (panic):\n{}", self.stderr);
        self
    }
}

/// `kubectl-pacto ARGS` run from the repository root, with the colour variables removed so that
/// the caller's terminal settings do not leak in.
pub fn pacto(args: &[&str]) -> Command {
    let mut c = Command::new(PACTO);
    c.args(args)
        .current_dir(repo())
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR");
    c
}

/// Runs a command to completion (stdin from `input`, or empty), failing the test if it takes
/// longer than `deadline`.
pub fn run_with(cmd: &mut Command, input: Option<&str>, deadline: Duration) -> Run {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawning {cmd:?}: {e}"));
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.unwrap_or("").to_string();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let r = finish(child, deadline, &format!("{cmd:?}"));
    let _ = feeder.join();
    r
}

/// Waits for a spawned child (its stdout and stderr piped) to end, reading both streams as it
/// runs; kills it and fails the test, naming it `what`, if it has not ended within `deadline` (a
/// hang guard).
pub fn finish(mut child: Child, deadline: Duration, what: &str) -> Run {
    let start = Instant::now();
    let mut out = child.stdout.take().expect("stdout piped");
    let mut err = child.stderr.take().expect("stderr piped");
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting for the child") {
            break s;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    Run {
        code: status.code(),
        stdout: String::from_utf8_lossy(&out_reader.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
        elapsed,
    }
}

/// Runs a command with the default deadline and no input.
pub fn run(cmd: &mut Command) -> Run {
    run_with(cmd, None, DEADLINE)
}

/// A kubectl human table (kubectl's printers use a tabwriter with 3 spaces of padding, left
/// aligned, upper-case headers; the last column is not padded, so lines carry no trailing
/// spaces).
pub fn kubectl_table(rows: &[Vec<&str>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            if c + 1 == r.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}   ", w = widths[c]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Writes an argocd-cm ConfigMap with the given data into `argocd-cm.yaml` in `dir`. Values are
/// written as JSON strings (valid YAML double-quoted scalars), so every value is a string.
pub fn write_argocd_cm(dir: &Path, data: &[(&str, &str)]) -> PathBuf {
    let mut text = String::from(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: argocd}\ndata:\n",
    );
    for (k, v) in data {
        text.push_str(&format!("  {k}: {}\n", serde_json::Value::from(*v)));
    }
    let path = dir.join("argocd-cm.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The path as a `&str` (the test paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// The cell under `header` in data row `row` (0: the first row after the header) of a
/// kubectl-style table: columns start where their header starts; the last one takes the rest of
/// the line. Panics when the header is not in the table.
pub fn cell(table: &str, row: usize, header: &str) -> String {
    let mut lines = table.lines();
    let head = lines.next().expect("a header line");
    let starts: Vec<(usize, &str)> = head
        .match_indices(|c: char| !c.is_whitespace())
        .filter(|(i, _)| *i == 0 || head[..*i].ends_with(' '))
        .map(|(i, _)| (i, head[i..].split(' ').next().unwrap()))
        .collect();
    let at = starts
        .iter()
        .position(|(_, h)| *h == header)
        .unwrap_or_else(|| panic!("no column {header} in {head:?}"));
    let line: Vec<char> = lines
        .nth(row)
        .unwrap_or_else(|| panic!("no row {row}"))
        .chars()
        .collect();
    // Header offsets are byte offsets of ASCII headers: character offsets too.
    let from = starts[at].0.min(line.len());
    let to = starts
        .get(at + 1)
        .map(|(i, _)| *i)
        .unwrap_or(line.len())
        .min(line.len());
    line[from..to].iter().collect::<String>().trim().to_string()
}

/// Compares `actual` with the golden file `path`. Under UPDATE_GOLDEN=1 a golden that differs
/// (or is missing) is written with `actual` and the test still fails, naming the file: a
/// rewrite never turns a failing test green, and the next run (without it) compares the new
/// file after a look at its diff.
pub fn golden_file(path: &Path, actual: &str) {
    let want = std::fs::read_to_string(path);
    if want.as_deref().ok() == Some(actual) {
        return;
    }
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, actual).unwrap();
        panic!(
            "{} differed and is rewritten (UPDATE_GOLDEN): check its diff, then run again without UPDATE_GOLDEN",
            path.display()
        );
    }
    let want = want.unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
            path.display()
        )
    });
    panic!(
        "{} differs (UPDATE_GOLDEN=1 rewrites it)\n--- want\n{want}\n--- got\n{actual}",
        path.display()
    );
}

/// `kubectl-pacto ARGS` with a fixed clock (`now`, RFC 3339), `home` as HOME and no kubeconfig or
/// in-cluster configuration of the caller's.
pub fn isolated(home: &Path, now: &str, args: &[&str]) -> Command {
    let mut c = pacto(args);
    c.env("KUBECTL_PACTO_NOW", now)
        .env("HOME", home)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT");
    c
}

/// Runs `program ARGS` on a pseudo-terminal (util-linux `script`): its stdout and stderr are
/// the terminal. The program and its arguments reach it through the environment, so any byte
/// (an escape sequence, a bidirectional control) arrives as given, unquoted by a shell. The
/// `Run`'s stdout is what the terminal showed, both streams in order, with the terminal's
/// `\r\n` back to `\n`; its code is the program's. A missing `script` fails the test.
pub fn on_a_pty(program: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("util-linux `script` is not installed: the terminal tests need it");
    let mut line = String::from("exec \"$PTY_PROGRAM\"");
    let mut c = Command::new(script);
    for (i, a) in args.iter().enumerate() {
        line.push_str(&format!(" \"$PTY_ARG{i}\""));
        c.env(format!("PTY_ARG{i}"), a);
    }
    c.args(["-qec", &line, "/dev/null"])
        .current_dir(repo())
        .env("PTY_PROGRAM", program)
        .env("SHELL", "/bin/sh")
        .env("TERM", "xterm")
        .env("NO_COLOR", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    let mut r = run(&mut c);
    r.stdout = r.stdout.replace("\r\n", "\n");
    r
}

/// The URL of a loopback port nothing listens on (bound, then let go): a server that is gone.
pub fn closed_url() -> String {
    let gone = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", gone.local_addr().unwrap())
}
