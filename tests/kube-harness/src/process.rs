//! The long-running children (etcd, kube-apiserver): started in their own process group with
//! their output in a log file and their PID in `pids/`, stopped by PID, and a watchdog that stops
//! them and removes the cluster's directory once the test process is gone, however it ended
//! (a panic, a signal, `exit`): the harness of a whole test binary lives in a static, which is
//! never dropped, and `PR_SET_PDEATHSIG` would fire when the spawning *thread* ends.

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How many bytes of a log an error quotes.
const LOG_TAIL: usize = 4000;

/// A started server process.
pub struct Server {
    pub child: Child,
    pub log: PathBuf,
    pid_file: PathBuf,
}

/// Starts `exe args` as `name`, its stdout and stderr appended to `dir/name.log`, its PID
/// written to `dir/pids/name.pid`. Errors: the log cannot be opened, the spawn fails.
pub fn spawn(
    dir: &Path,
    name: &'static str,
    exe: &Path,
    args: &[String],
) -> Result<Server, String> {
    let log = dir.join(format!("{name}.log"));
    let out = File::options()
        .create(true)
        .append(true)
        .open(&log)
        .map_err(|e| format!("{}: {e}", log.display()))?;
    let err = out
        .try_clone()
        .map_err(|e| format!("{}: {e}", log.display()))?;
    let child = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        // Not in the test's process group: a Ctrl-C there reaches the test process, and the
        // watchdog stops these in order.
        .process_group(0)
        .spawn()
        .map_err(|e| format!("starting {}: {e}", exe.display()))?;
    let pids = dir.join("pids");
    std::fs::create_dir_all(&pids).map_err(|e| format!("{}: {e}", pids.display()))?;
    let pid_file = pids.join(format!("{name}.pid"));
    std::fs::write(&pid_file, child.id().to_string())
        .map_err(|e| format!("{}: {e}", pid_file.display()))?;
    Ok(Server {
        child,
        log,
        pid_file,
    })
}

impl Server {
    /// Whether it has exited, with its status.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// The last part of its log, for an error message.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read(&self.log).unwrap_or_default();
        let from = text.len().saturating_sub(LOG_TAIL);
        String::from_utf8_lossy(&text[from..]).into_owned()
    }

    /// Stops it: SIGTERM, then SIGKILL if it is still running after `grace`; waits for it and
    /// removes its PID file.
    pub fn stop(&mut self, grace: Duration) {
        if self.exited().is_none() {
            let _ = Command::new("kill")
                .args(["-TERM", &self.child.id().to_string()])
                .stderr(Stdio::null())
                .status();
            let start = Instant::now();
            while self.exited().is_none() && start.elapsed() < grace {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.pid_file);
    }
}

/// The watchdog: a shell that polls the test process every half second and, once it is gone,
/// kills every PID in `dir/pids/` and removes `dir`.
pub fn watchdog(dir: &Path) -> Result<Child, String> {
    const SCRIPT: &str = r#"
while kill -0 "$0" 2>/dev/null; do sleep 0.5; done
for f in "$1"/pids/*.pid; do
  [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
done
rm -rf "$1"
"#;
    Command::new("sh")
        .args(["-c", SCRIPT])
        .arg(std::process::id().to_string())
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("starting the watchdog shell (sh): {e}"))
}
