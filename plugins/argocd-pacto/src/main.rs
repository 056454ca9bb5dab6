//! `argocd-pacto`: an Argo CD CLI plugin (`argocd pacto ...` runs the `argocd-pacto` executable
//! found on PATH). `argocd pacto settings resource-overrides health RESOURCE_YAML_PATH
//! --argocd-cm-path FILE` prints what `argocd admin settings resource-overrides health` prints
//! (argo-cd `cmd/argocd/commands/admin/settings.go` `NewResourceHealthCommand`), with the same
//! exit codes: 0 when it ran (also for "not configured"), 20 for any error, logged as logrus
//! logs a fatal error (`util/errors` `CheckError`); 1 for missing arguments.

use clap::{Parser, Subcommand, ValueEnum};
use pacto_gates::argo::health::{ArgoHealth, BuiltinScripts};
use pacto_gates::argo::settings::{self, Overrides};
use pacto_gates::object;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit code of every error, argo-cd `util/errors` `ErrorGeneric`.
const ERROR_GENERIC: u8 = 20;

#[derive(Debug, Parser)]
#[command(name = "argocd-pacto", bin_name = "argocd pacto", version)]
struct Cli {
    /// Log format of errors: json (Argo CD's default) or text.
    #[arg(long, global = true, value_enum, default_value = "json")]
    logformat: LogFormat,
    /// The most bytes read from one input file (e.g. 1Gi, 512Mi, 1000000); a larger one is
    /// refused with an error.
    #[arg(long, global = true, value_name = "SIZE", default_value = "1Gi")]
    max_input_bytes: String,
    #[command(subcommand)]
    command: Top,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LogFormat {
    Json,
    Text,
}

#[derive(Debug, Subcommand)]
enum Top {
    /// Settings commands, as under `argocd admin settings`.
    Settings {
        /// Path to local argocd-cm.yaml file
        #[arg(long, global = true, value_name = "FILE")]
        argocd_cm_path: Option<PathBuf>,
        /// A directory laid out like argo-cd's resource_customizations/, standing in for the
        /// built-in scripts compiled into Argo CD.
        #[arg(long, global = true, value_name = "DIR")]
        customizations_dir: Option<PathBuf>,
        #[command(subcommand)]
        command: Settings,
    },
}

#[derive(Debug, Subcommand)]
enum Settings {
    /// Troubleshoot resource overrides
    #[command(name = "resource-overrides")]
    ResourceOverrides {
        #[command(subcommand)]
        command: Overridden,
    },
}

#[derive(Debug, Subcommand)]
enum Overridden {
    /// Assess resource health
    Health {
        #[arg(value_name = "RESOURCE_YAML_PATH")]
        resource: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    // Usage errors exit 1, as cobra's do in the argocd CLI; help and version exit 0.
    let cli = match <Cli as Parser>::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_exit(&e),
    };
    match pacto_gates::k8s::read::parse_size(&cli.max_input_bytes) {
        Ok(n) => pacto_gates::k8s::read::set_max_input_bytes(n),
        Err(e) => {
            eprintln!("Error: --max-input-bytes {e}");
            return ExitCode::from(1);
        }
    }
    let Top::Settings {
        argocd_cm_path,
        customizations_dir,
        command:
            Settings::ResourceOverrides {
                command: Overridden::Health { resource },
            },
    } = cli.command;
    let Some(resource) = resource else {
        use clap::CommandFactory;
        let mut cmd = Cli::command();
        // Builds the subcommands' bin names, so the usage line reads as cobra's does:
        // `argocd pacto settings resource-overrides health`.
        cmd.build();
        let sub = cmd
            .find_subcommand_mut("settings")
            .and_then(|c| c.find_subcommand_mut("resource-overrides"))
            .and_then(|c| c.find_subcommand_mut("health"));
        if let Some(h) = sub {
            let _ = h.print_help();
        }
        return ExitCode::from(1);
    };
    let mut printed = String::new();
    let outcome = health(
        &resource,
        argocd_cm_path.as_deref(),
        customizations_dir.as_deref(),
        &mut printed,
    );
    {
        use std::io::Write;
        // gopher-lua's print (baselib.go basePrint) writes to the process's stdout with
        // fmt.Print as the script runs, so it comes before STATUS, and also when the script
        // then fails. A reader that went away (`| head`) is not an error, as for Go's fmt.Printf.
        let printed = if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            terminal_safe(&printed)
        } else {
            printed
        };
        if let Err(e) = written(std::io::stdout().write_all(printed.as_bytes())) {
            eprintln!("{}", fatal_line(cli.logformat, &e));
            return ExitCode::from(ERROR_GENERIC);
        }
    }
    match outcome {
        Ok(out) => {
            use std::io::{IsTerminal, Write};
            // Argo's bytes exactly when read by a program (compared with Argo's CLI); on a
            // terminal, text from the object and the script escaped so it cannot drive it.
            let out = if std::io::stdout().is_terminal() {
                terminal_safe(&out)
            } else {
                out
            };
            // A reader that went away (`| head`) is not an error, as for Go's fmt.Printf; output
            // that could not be written (a full disk) is.
            let mut stdout = std::io::stdout();
            match written(
                stdout
                    .write_all(out.as_bytes())
                    .and_then(|_| stdout.flush()),
            ) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("{}", fatal_line(cli.logformat, &e));
                    ExitCode::from(ERROR_GENERIC)
                }
            }
        }
        Err(msg) => {
            eprintln!("{}", fatal_line(cli.logformat, &msg));
            ExitCode::from(ERROR_GENERIC)
        }
    }
}

/// A write to stdout: a reader that went away is no error; any other failure is, as a message.
fn written(r: std::io::Result<()>) -> Result<(), String> {
    match r {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("writing to standard output: {e}"))
        }
        _ => Ok(()),
    }
}

/// A command line clap refused or answered: a usage error on stderr, exit 1, with every line
/// shown escaped (it quotes the arguments given, which may hold escape sequences); help and
/// version on stdout, exit 0, or 1 when they cannot be written.
fn usage_exit(e: &clap::Error) -> ExitCode {
    use std::io::{IsTerminal, Write};
    if e.use_stderr() {
        eprint!(
            "{}",
            pacto_gates::render::safe_lines(&e.render().to_string())
        );
        return ExitCode::from(1);
    }
    let mut stdout = std::io::stdout();
    let text = match stdout.is_terminal() {
        true => e.render().ansi().to_string(),
        false => e.render().to_string(),
    };
    match written(
        stdout
            .write_all(text.as_bytes())
            .and_then(|_| stdout.flush()),
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(1)
        }
    }
}

/// What the command prints on success, or the error message of the fatal log line; what the
/// health script printed (one line per `print` call) goes to `printed`.
fn health(
    resource: &std::path::Path,
    cm_path: Option<&std::path::Path>,
    customizations: Option<&std::path::Path>,
    printed: &mut String,
) -> Result<String, String> {
    let text =
        pacto_gates::k8s::read::read_text(resource).map_err(|e| go_open_error(resource, &e))?;
    // sigs.k8s.io/yaml reads the first document only.
    let obj = object::parse_documents(&text, &resource.display().to_string())
        .map_err(|e| e.to_string())?
        .into_iter()
        .next()
        .flatten()
        .unwrap_or(serde_json::Value::Null);
    if obj
        .get("kind")
        .and_then(|k| k.as_str())
        .unwrap_or("")
        .is_empty()
    {
        return Err(format!("Object 'Kind' is missing in '{obj}'"));
    }
    let Some(cm_path) = cm_path else {
        return Err(
            "either --argocd-cm-path must be provided or --load-cluster-settings must be set to true"
                .into(),
        );
    };
    let cm_text =
        pacto_gates::k8s::read::read_text(cm_path).map_err(|e| go_open_error(cm_path, &e))?;
    let cm = object::parse_documents(&cm_text, &cm_path.display().to_string())
        .map_err(|e| e.to_string())?
        .into_iter()
        .next()
        .flatten()
        .unwrap_or(serde_json::Value::Null);
    // Argo reads the file into a ConfigMap without looking at its kind (sigs.k8s.io/yaml into
    // corev1.ConfigMap), so only `data` matters here; anything but a mapping fails to decode.
    if !cm.is_object() && !cm.is_null() {
        let word = match &cm {
            serde_json::Value::Array(_) => "array",
            serde_json::Value::String(_) => "string",
            serde_json::Value::Number(_) => "number",
            _ => "bool",
        };
        return Err(format!(
            "error unmarshaling JSON: json: cannot unmarshal {word} into Go value of type v1.ConfigMap"
        ));
    }
    let overrides: Overrides = settings::parse_data_of(&cm).map_err(|e| e.message)?;
    let builtins = customizations.map(BuiltinScripts::load).transpose()?;
    let engine = ArgoHealth::new(overrides, builtins, now_unix());
    let verdict = engine.evaluate(&obj);
    for line in &verdict.printed {
        printed.push_str(line);
        printed.push('\n');
    }
    let gvk = pacto_gates::k8s::gvk_of(&obj);
    if let Some(e) = verdict.error {
        let meta = obj.get("metadata");
        let field = |k: &str| {
            meta.and_then(|m| m.get(k))
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string()
        };
        return Err(format!(
            "failed to get resource health for {}/{}: {e}",
            field("namespace"),
            field("name")
        ));
    }
    Ok(match verdict.health {
        None => format!(
            "Health script is not configured for '{}/{}'\n",
            gvk.group, gvk.kind
        ),
        Some(h) => format!("STATUS: {}\nMESSAGE: {}\n", h.status, h.message),
    })
}

/// Each line of the output with its control characters escaped
/// ([`pacto_gates::render::one_line`]), the line breaks kept.
fn terminal_safe(out: &str) -> String {
    out.lines()
        .map(|l| pacto_gates::render::one_line(l) + "\n")
        .collect()
}

/// Go's `os.ReadFile` error text: `open <path>: no such file or directory` (the errno text in
/// lower case, as Go's syscall package spells it). Our own bounds (size, text) read
/// `read <path>: larger than 1 GiB (--max-input-bytes; ...)`.
fn go_open_error(path: &std::path::Path, e: &std::io::Error) -> String {
    if matches!(
        e.kind(),
        std::io::ErrorKind::FileTooLarge | std::io::ErrorKind::InvalidData
    ) {
        return format!("read {}: {e}", path.display());
    }
    let text = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "is a directory".to_string(),
        _ => {
            let t = e.to_string();
            t.split(" (os error").next().unwrap_or(&t).to_lowercase()
        }
    };
    format!("open {}: {text}", path.display())
}

fn now_unix() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// A logrus fatal line: JSON `{"level":"fatal","msg":...,"time":...}` (keys sorted, as logrus's
/// JSONFormatter marshals a map) or text `time="..." level=fatal msg="..."`.
fn fatal_line(format: LogFormat, msg: &str) -> String {
    let time = pacto_gates::k8s::time::format_rfc3339_utc(now_unix());
    // logrus's bytes; on a terminal the characters that could drive it as JSON escapes (the
    // JSON reads the same).
    let line = match format {
        LogFormat::Json => {
            serde_json::json!({"level": "fatal", "msg": msg, "time": time}).to_string()
        }
        LogFormat::Text => format!(
            "time={:?} level=fatal msg={}",
            time,
            serde_json::Value::String(msg.to_string())
        ),
    };
    match std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        true => pacto_gates::render::json_for_terminal(&line),
        false => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a terminal, a message's control characters are shown escaped, the lines kept.
    #[test]
    fn terminal_output_is_escaped() {
        assert_eq!(
            terminal_safe("STATUS: Degraded\nMESSAGE: a\u{1b}]0;owned\u{7}b\u{1b}[2J\n"),
            "STATUS: Degraded\nMESSAGE: a\\x1b]0;owned\\x07b\\x1b[2J\n"
        );
    }

    /// Our own bounds read as errors of reading the file, naming the flag.
    #[test]
    fn bounds_are_named_in_errors() {
        let e = pacto_gates::k8s::read::too_large(1 << 20);
        assert_eq!(
            go_open_error(std::path::Path::new("big.yaml"), &e),
            "read big.yaml: larger than 1 MiB (--max-input-bytes; give a larger bound to read it)"
        );
    }
}
