//! kubectl's plugin completion protocol: the candidates clap_complete's engine computes from
//! the same command definition as the parser (the values each flag offers are
//! [`crate::candidates`]'), one per line, then cobra's directive.

use clap::CommandFactory;
use std::ffi::OsString;

/// The candidates for `words` (the last is the word being completed, "" for a new one), one per
/// line as `value<TAB>help`, then `:4` (ShellCompDirectiveNoFileComp) — or `:0` when the word is a
/// value that names a file, so the shell completes file names, or `:6` (also NoSpace) after a
/// `kind/` waiting for its name.
pub fn candidates(words: &[String]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let mut cmd = crate::cli::Cli::command();
    let mut args: Vec<OsString> = vec!["kubectl-pacto".into()];
    args.extend(words.iter().map(OsString::from));
    if words.is_empty() {
        args.push("".into());
    }
    let index = args.len() - 1;
    let cwd = std::env::current_dir().ok();
    let candidates =
        clap_complete::engine::complete(&mut cmd, args, index, cwd.as_deref()).unwrap_or_default();
    let mut file_values = false;
    let mut no_space = false;
    for c in &candidates {
        let value = c.get_value().to_string_lossy();
        // Names from a cluster or a kubeconfig reach the shell: a control character (a newline
        // would forge a candidate or a directive line) drops the candidate.
        let help = c.get_help().map(|h| h.to_string()).unwrap_or_default();
        if value.chars().chain(help.chars()).any(char::is_control) {
            continue;
        }
        let exists = std::path::Path::new(value.as_ref()).exists();
        // `pacto/` is a kind waiting for its name: no space after it, and not a file.
        let path_like = value.starts_with(['.', '/', '~']);
        if value.ends_with('/') && !exists && !path_like {
            no_space = true;
        } else if exists || path_like {
            // `pacto/orders` names an object, not a file.
            file_values = true;
        }
        match c.get_help() {
            Some(h) if !c.is_hide_set() => {
                let _ = writeln!(out, "{value}\t{h}");
            }
            _ if c.is_hide_set() => {}
            _ => {
                let _ = writeln!(out, "{value}");
            }
        }
    }
    // cobra's directives: 0 default (files), 2 NoSpace, 4 NoFileComp.
    let directive = match (file_values, no_space) {
        (true, _) => 0,
        (false, true) => 2 | 4,
        (false, false) => 4,
    };
    let _ = writeln!(out, ":{directive}");
    out
}
