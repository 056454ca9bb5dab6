//! Finding the `kube-apiserver` and `etcd` executables: a directory named by
//! `KUBECTL_PACTO_KUBE_BIN`, or the one `tests/kube/build.sh` prints after building them from Go
//! modules (or finding them in its cache).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The environment variable naming a directory that already holds `kube-apiserver` and `etcd`
/// (the build script is then not run).
pub const BIN_ENV: &str = "KUBECTL_PACTO_KUBE_BIN";

/// How many lines of the build script's stderr an error quotes.
const TAIL_LINES: usize = 40;

/// The directory holding both executables.
///
/// Errors (as text for the test's panic): the directory of [`BIN_ENV`] lacks one of them; bash
/// cannot run; the build script fails (Go missing, module proxy unreachable, compile error),
/// quoting the last lines it printed; its output names no directory holding both.
pub fn find_or_build(repo: &Path) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(BIN_ENV) {
        let dir = PathBuf::from(dir);
        return check(&dir)
            .map(|()| dir)
            .map_err(|e| format!("{BIN_ENV}: {e}"));
    }
    let script = repo.join("tests/kube/build.sh");
    let mut child = Command::new("bash")
        .arg(&script)
        .current_dir(repo)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run bash {}: {e}", script.display()))?;
    let err = child.stderr.take().expect("piped stderr");
    // The build can take minutes: its progress goes straight to the test's stderr (not captured
    // by the test runner), and the last lines are kept for the error.
    let forward = std::thread::spawn(move || {
        let mut tail: Vec<String> = Vec::new();
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = writeln!(std::io::stderr().lock(), "{line}");
            tail.push(line);
            if tail.len() > TAIL_LINES {
                tail.remove(0);
            }
        }
        tail
    });
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_string(&mut out)
        .map_err(|e| format!("reading the output of {}: {e}", script.display()))?;
    let status = child
        .wait()
        .map_err(|e| format!("waiting for {}: {e}", script.display()))?;
    let tail = forward.join().unwrap_or_default().join("\n");
    if !status.success() {
        return Err(format!(
            "tests/kube/build.sh failed ({status}); it builds kube-apiserver and etcd with Go from the Go module proxy (or set {BIN_ENV} to a directory holding both). Its last lines:\n{tail}"
        ));
    }
    let dir = out
        .lines()
        .last()
        .map(PathBuf::from)
        .ok_or_else(|| format!("{} printed no directory", script.display()))?;
    check(&dir)
        .map(|()| dir)
        .map_err(|e| format!("{}: {e}", script.display()))
}

fn check(dir: &Path) -> Result<(), String> {
    for exe in ["kube-apiserver", "etcd"] {
        if !dir.join(exe).is_file() {
            return Err(format!("{} has no {exe}", dir.display()));
        }
    }
    Ok(())
}
