//! Completion candidates for kubectl's plugin protocol, computed by clap_complete's engine from
//! the same command definition as the parser.

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
        let exists = std::path::Path::new(value.as_ref()).exists();
        // `pacto/` is a kind waiting for its name: no space after it, and not a file.
        if value.ends_with('/') && !exists && !value.starts_with(['.', '/', '~']) {
            no_space = true;
        } else if value.contains('/') || exists {
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
