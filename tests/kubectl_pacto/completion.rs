//! `kubectl-pacto completion bash|zsh|fish`: shell completion scripts.

use crate::common::*;

fn script(shell: &str) -> String {
    let r = run(&mut pacto(&["completion", shell]));
    r.assert_code(0).assert_no_panic();
    assert_eq!(r.stderr, "");
    r.stdout
}

#[test]
fn bash_script() {
    let s = script("bash");
    assert!(s.len() > 200, "{s}");
    assert!(s.contains("kubectl-pacto"), "{s}");
    assert!(s.contains("complete -F"), "{s}");
}

#[test]
fn zsh_script() {
    let s = script("zsh");
    assert!(s.starts_with("#compdef kubectl-pacto"), "{s}");
}

#[test]
fn fish_script() {
    let s = script("fish");
    assert!(s.contains("complete -c kubectl-pacto"), "{s}");
}

#[test]
fn unknown_shell_is_a_usage_error() {
    let r = run(&mut pacto(&["completion", "tcsh"]));
    r.assert_no_panic();
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.starts_with("error: "), "{}", r.stderr);
    assert_eq!(r.stdout, "");
}

/// What the bash script offers for the words typed so far (the last one being completed).
fn bash_candidates(words: &[&str]) -> Vec<String> {
    let bash = ["/bin/bash", "/usr/bin/bash"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .expect("bash is not installed: the bash completion tests need it");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kubectl-pacto.bash");
    std::fs::write(&file, script("bash")).unwrap();
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let prev = if cword == 0 { "" } else { words[cword - 1] };
    let program = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={cword}\n_kubectl__pacto kubectl-pacto '{}' '{prev}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        file.display(),
        quoted.join(" "),
        words[cword],
    );
    let r = run(std::process::Command::new(bash).args(["--norc", "-c", &program]));
    r.assert_code(0);
    r.stdout.lines().map(str::to_string).collect()
}

#[test]
fn bash_completes_the_subcommands() {
    let c = bash_candidates(&["kubectl-pacto", ""]);
    assert!(c.contains(&"health".to_string()), "{c:?}");
    assert!(c.contains(&"completion".to_string()), "{c:?}");
    assert!(c.contains(&"wait".to_string()), "{c:?}");
    // The internal commands (kubectl's completion protocol, the man page writer) are not
    // offered.
    assert!(!c.iter().any(|w| w.starts_with("__")), "{c:?}");
    let c = bash_candidates(&["kubectl-pacto", "help", ""]);
    assert!(c.contains(&"doctor".to_string()), "{c:?}");
    assert!(!c.iter().any(|w| w.starts_with("__")), "{c:?}");
}

#[test]
fn no_script_names_the_internal_commands() {
    for shell in ["bash", "zsh", "fish"] {
        let s = script(shell);
        assert!(!s.contains("__complete") && !s.contains("__man"), "{shell}");
    }
}

#[test]

fn bash_completes_below_health() {
    let c = bash_candidates(&["kubectl-pacto", "health", ""]);
    assert!(c.contains(&"test".to_string()), "{c:?}");
    assert!(c.contains(&"--filename".to_string()), "{c:?}");
}

/// Runs the binary with its stdout closed before it writes (`... | head -0`).
fn with_closed_stdout(program: &str, args: &[&str]) -> String {
    let mut child = std::process::Command::new(program)
        .args(args)
        .current_dir(repo())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]

fn completion_script_into_a_closed_pipe_does_not_panic() {
    let stderr = with_closed_stdout(PACTO, &["completion", "bash"]);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]

fn completion_shim_into_a_closed_pipe_does_not_panic() {
    let stderr = with_closed_stdout(COMPLETE_SHIM, &[""]);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
