//! `kubectl-pacto`: the kubectl plugin. Parses the command line and dispatches to the command
//! (`cmd/`); the commands do their I/O through one layer (`io/`), and the evaluation, the
//! explanations and the rendering live in the pacto-gates library.

mod cmd;
mod io;

use anyhow::{anyhow, Result};
use clap::CommandFactory;
use kubectl_pacto::cli::{Cli, Command, HealthSub};
use kubectl_pacto::options::{size_flag, Global};
use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    // kubectl's convention: usage errors exit 1 like every other error; help and version exit 0.
    // `kubectl pacto` alone: the help, as `kubectl` alone prints its own (exit 0).
    if std::env::args_os().len() == 1 {
        let mut cmd = Cli::command().bin_name("kubectl pacto");
        let written = io::output::write_stdout(&format!("{}", cmd.render_long_help()));
        return io::output::exit_on_error(written.map(|_| ExitCode::SUCCESS), 1);
    }
    let cli = match Cli::parse_as_plugin() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // Help and version: exit 0, or 1 when they cannot be written.
            let text = match std::io::stdout().is_terminal() {
                true => e.render().ansi().to_string(),
                false => e.render().to_string(),
            };
            let written = io::output::write_stdout(&text);
            return io::output::exit_on_error(written.map(|_| ExitCode::SUCCESS), 1);
        }
        Err(e) => {
            // The arguments given are quoted: every line shown escaped.
            eprint!(
                "{}",
                pacto_gates::render::safe_lines(&e.render().to_string())
            );
            let command = kubectl_pacto::cli::refused_command(std::env::args_os());
            let forgot_f =
                kubectl_pacto::cli::forgot_f_hint(&e, |p| std::path::Path::new(p).exists());
            let not_read = kubectl_pacto::cli::files_not_read_hint(&e, command.as_deref());
            if let Some(hint) = forgot_f.as_ref().or(not_read.as_ref()) {
                eprintln!("{}", pacto_gates::render::one_line(hint));
            } else if e.kind() == clap::error::ErrorKind::InvalidSubcommand {
                let names: Vec<String> = Cli::command()
                    .get_subcommands()
                    .filter(|c| !c.is_hide_set())
                    .map(|c| c.get_name().to_string())
                    .collect();
                eprintln!(
                    "hint: the commands are {} (kubectl pacto help COMMAND)",
                    names.join(", ")
                );
            }
            return ExitCode::from(kubectl_pacto::cli::usage_error_code(command.as_deref()));
        }
    };
    // Deeply nested objects are read and converted recursively: give the work a large stack
    // (reserved address space, not memory). 256 MiB holds an answer at Go's nesting limit of
    // 10,000 levels through every command (parsed, judged, printed as JSON, YAML or JSONPath);
    // 1 GiB took a quarter of a 4 GiB address-space limit.
    // A global flag refused before the command runs exits as the command's own usage errors do
    // (2 for doctor and reconcile, whose 1 means findings or work left).
    let code = kubectl_pacto::cli::usage_error_code(match &cli.command {
        Command::Doctor(_) => Some("doctor"),
        Command::Reconcile(_) => Some("reconcile"),
        _ => None,
    });
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || run(cli));
    let result = match worker {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|_| Err(anyhow!("internal error: the evaluation thread panicked"))),
        Err(e) => Err(anyhow!("cannot start the evaluation thread: {e}")),
    };
    io::output::exit_on_error(result, code)
}

/// Dispatches to the command.
fn run(cli: Cli) -> Result<ExitCode> {
    pacto_gates::k8s::read::set_max_input_bytes(size_flag(
        "--max-input-bytes",
        &cli.max_input_bytes,
    )?);
    io::delivery::set_max_upstream_depth(cli.max_upstream_depth as usize);
    pacto_gates::flux::release::set_emulated(
        pacto_gates::flux::release::FluxRelease::parse(&cli.flux_version).map_err(|e| {
            // A value from the environment is named by its variable.
            match std::env::var("KUBECTL_PACTO_FLUX_VERSION") {
                Ok(v) if v == cli.flux_version => {
                    anyhow!(
                        "{}",
                        e.replacen("--flux-version", "KUBECTL_PACTO_FLUX_VERSION", 1)
                    )
                }
                _ => anyhow!("{e}"),
            }
        })?,
    );
    pacto_gates::argo::lua::set_max_script_bytes(
        usize::try_from(size_flag("--max-script-bytes", &cli.max_script_bytes)?)
            .unwrap_or(usize::MAX),
    );
    let global = || Global::new(|k| std::env::var(k).ok(), std::io::stdout().is_terminal());
    match cli.command {
        Command::Health(args) => match args.sub {
            Some(HealthSub::Test { ref dirs, output }) => {
                cmd::health::test::run(dirs, output, &global()?)
            }
            None => cmd::health::run(&args, &global()?),
        },
        Command::Get(args) => cmd::get::run(&args, &global()?),
        Command::Explain(args) => cmd::explain::run(&args, &global()?),
        Command::Tree(args) => cmd::explain::tree::run(&args, &global()?),
        Command::Doctor(args) => Ok(cmd::doctor::run(&args, &global()?)),
        Command::Snippet(args) => cmd::snippet::run(&args),
        Command::Wait(args) => cmd::wait::run(&args, &global()?),
        Command::Reconcile(args) => Ok(cmd::reconcile::run(&args, &global()?)),
        Command::Version { output, .. } => cmd::version::run(output),
        Command::Completion { shell } => cmd::completion::script(shell),
        Command::Complete { words } => cmd::completion::candidates(&words),
        Command::Man { dir } => cmd::man::run(&dir),
    }
}
