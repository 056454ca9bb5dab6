//! `kubectl pacto completion SHELL`: a static completion script (clap_complete) for the public
//! command line; and `__complete`, kubectl's plugin completion protocol, whose candidates
//! [`kubectl_pacto::complete`] computes.

use crate::io::output::write_stdout;
use anyhow::Result;
use kubectl_pacto::{cli, complete};
use std::process::ExitCode;

/// `completion SHELL`.
pub(crate) fn script(shell: cli::Shell) -> Result<ExitCode> {
    let mut cmd = cli::public_command();
    let mut buf = Vec::new();
    clap_complete::aot::generate(clap_shell(shell), &mut cmd, "kubectl-pacto", &mut buf);
    let mut script = String::from_utf8_lossy(&buf).into_owned();
    if shell == cli::Shell::Bash {
        // clap_complete 4.6 names the bash case arms of a hyphenated binary's
        // subcommands `kubectl__subcmd__pacto__...` but sets `cmd` to `kubectl__pacto__...`,
        // so nothing below the top level would complete.
        script = script.replace("kubectl__subcmd__pacto", "kubectl__pacto");
    }
    write_stdout(&script)?;
    Ok(ExitCode::SUCCESS)
}

/// `__complete WORDS...`: the candidates for the last word, then cobra's directive.
pub(crate) fn candidates(words: &[String]) -> Result<ExitCode> {
    write_stdout(&complete::candidates(words))?;
    Ok(ExitCode::SUCCESS)
}

fn clap_shell(shell: cli::Shell) -> clap_complete::Shell {
    match shell {
        cli::Shell::Bash => clap_complete::Shell::Bash,
        cli::Shell::Zsh => clap_complete::Shell::Zsh,
        cli::Shell::Fish => clap_complete::Shell::Fish,
    }
}
