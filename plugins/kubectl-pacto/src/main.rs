//! `kubectl-pacto`: the kubectl plugin. Argument parsing and I/O only; the evaluation, the
//! explanations and the rendering live in the pacto-gates library.

mod cli;
mod complete;

use anyhow::{anyhow, bail, Context, Result};
use clap::CommandFactory;
use cli::{Cli, Command, HealthArgs, HealthSub, Output};
use pacto_gates::argo::health::{ArgoHealth, BuiltinScripts};
use pacto_gates::argo::settings::{self, Overrides};
use pacto_gates::argo::suite;
use pacto_gates::object;
use pacto_gates::render::{self, HealthItem};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    // kubectl's convention: usage errors exit 1 like every other error; help and version exit 0.
    let cli = match Cli::parse_as_plugin() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            if e.kind() == clap::error::ErrorKind::InvalidSubcommand
                || e.kind() == clap::error::ErrorKind::ArgumentConflict
            {
                eprintln!("hint: objects are given with -f FILE (kubectl pacto health -f FILE ...)");
            }
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Health(args) => match args.sub {
            Some(HealthSub::Test { ref dirs }) => health_test(dirs),
            None => health(&args),
        },
        Command::Completion { shell } => {
            let mut cmd = Cli::command().bin_name("kubectl-pacto");
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
        Command::Complete { words } => {
            write_stdout(&complete::candidates(&words))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Man { dir } => {
            write_man_pages(&dir)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn now_unix() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Loads the Argo CD side of a configuration from the flags.
fn argo_engine(args: &HealthArgs) -> Result<ArgoHealth> {
    let overrides = match &args.argocd_cm {
        None => Overrides::default(),
        Some(path) => {
            let objs = object::read_paths(std::slice::from_ref(path))?;
            let [cm] = objs.as_slice() else {
                bail!(
                    "{}: expected one argocd-cm ConfigMap, found {} objects",
                    path.display(),
                    objs.len()
                );
            };
            settings::parse_configmap(&cm.value).map_err(|e| match e {
                settings::ConfigMapError::NotAConfigMap(_)
                | settings::ConfigMapError::InvalidData(_) => anyhow!("{}: {e}", cm.origin),
                settings::ConfigMapError::Load(e) => {
                    let key = if e.key.is_empty() {
                        String::new()
                    } else {
                        format!(" data key {:?}:", e.key)
                    };
                    anyhow!(
                        "{}:{key} {} (Argo CD refuses the whole configuration: every application's health becomes Unknown)",
                        cm.origin,
                        e.message
                    )
                }
            })?
        }
    };
    let builtins = match &args.customizations_dir {
        None => None,
        Some(dir) => {
            Some(BuiltinScripts::load(dir).map_err(|e| anyhow!("--customizations-dir: {e}"))?)
        }
    };
    Ok(ArgoHealth::new(overrides, builtins, now_unix()))
}

fn health(args: &HealthArgs) -> Result<ExitCode> {
    let engine = argo_engine(args)?;
    let objects = object::read_paths(&args.files)?;
    let verdicts: Vec<_> = objects.iter().map(|o| engine.evaluate(&o.value)).collect();
    warn_unused_overrides(&engine, &objects);
    for (o, v) in objects.iter().zip(&verdicts) {
        for line in &v.printed {
            eprintln!("{} {}/{}: print: {line}", o.origin, o.kind(), o.name());
        }
    }
    let items: Vec<HealthItem> = objects
        .iter()
        .zip(&verdicts)
        .map(|(object, v)| HealthItem {
            object,
            argo: Some(v),
        })
        .collect();
    let out = match args.output {
        Some(Output::Json) => serde_json::to_string_pretty(&render::health_report(&items))? + "\n",
        Some(Output::Yaml) => {
            serde_saphyr::to_string(&render::health_report(&items)).context("rendering YAML")?
        }
        None => {
            let colour = render::colour_wanted(
                std::io::stdout().is_terminal(),
                std::env::var("NO_COLOR").ok().as_deref(),
                std::env::var("TERM").ok().as_deref(),
            );
            render::health_table(&items, colour, engine.builtins.is_some())
        }
    };
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// A custom health key that no given object uses is most often a typo of the group or kind
/// (argo-cd #14043: `app_Deployment` for `apps_Deployment`), which Argo ignores silently.
fn warn_unused_overrides(engine: &ArgoHealth, objects: &[object::K8sObject]) {
    let keys: Vec<String> = objects.iter().map(|o| o.gvk().group_kind()).collect();
    for (key, o) in &engine.overrides.by_key {
        if o.health_lua.is_empty() || key.contains(['*', '?', '[', '{']) {
            continue;
        }
        if !keys.iter().any(|k| k == key) {
            eprintln!(
                "warning: the health customization for {key:?} ({}) matched none of the objects given",
                o.keys.join(", ")
            );
        }
    }
}

fn health_test(dirs: &[std::path::PathBuf]) -> Result<ExitCode> {
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut out = String::new();
    for dir in dirs {
        if !dir.exists() {
            bail!("{}: no such file or directory", dir.display());
        }
        if !dir.is_dir() {
            bail!("{}: not a directory (health test takes directories of suites)", dir.display());
        }
        let run = suite::run_tree(dir, now_unix());
        if run.suites == 0 {
            bail!(
                "{}: no health.lua with a health_test.yaml beside it",
                dir.display()
            );
        }
        for e in &run.errors {
            out.push_str(&format!("ERROR {}: {}\n", e.file.display(), e.message));
        }
        for c in run.cases.iter().filter(|c| !c.passed()) {
            let got = match &c.got {
                Ok(h) => format!("{} {:?}", h.status, h.message),
                Err(e) => format!("error {e:?}"),
            };
            out.push_str(&format!(
                "FAIL {}\n  expected: {} {:?}\n  got:      {got}\n",
                c.input.display(),
                c.expected.status,
                c.expected.message
            ));
        }
        passed += run.passed();
        failed += run.failed();
    }
    out.push_str(&format!("{passed} passed, {failed} failed\n"));
    write_stdout(&out)?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Writes to stdout; a reader that went away (`| head`) is not an error.
pub(crate) fn write_stdout(s: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("writing to standard output"),
    }
}

/// The man pages: kubectl-pacto.1 and one page per visible subcommand, with a fixed date so that
/// the checked-in pages only change with the command line.
fn write_man_pages(dir: &std::path::Path) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let cmd = Cli::command()
        .name("kubectl-pacto")
        .bin_name("kubectl-pacto");
    let mut pages = vec![(String::from("kubectl-pacto"), cmd.clone())];
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("kubectl-pacto-{}", sub.get_name());
        pages.push((name.clone(), sub.clone().name(name)));
        for subsub in sub.get_subcommands().filter(|s| !s.is_hide_set()) {
            let name = format!("kubectl-pacto-{}-{}", sub.get_name(), subsub.get_name());
            pages.push((name.clone(), subsub.clone().name(name)));
        }
    }
    for (name, cmd) in pages {
        let mut buf = Vec::new();
        clap_mangen::Man::new(cmd)
            .date("2026-11")
            .source(format!("kubectl-pacto {}", env!("CARGO_PKG_VERSION")))
            .manual("kubectl plugins")
            .render(&mut buf)?;
        std::fs::write(dir.join(format!("{name}.1")), buf)?;
    }
    Ok(())
}

fn clap_shell(shell: cli::Shell) -> clap_complete::Shell {
    match shell {
        cli::Shell::Bash => clap_complete::Shell::Bash,
        cli::Shell::Zsh => clap_complete::Shell::Zsh,
        cli::Shell::Fish => clap_complete::Shell::Fish,
    }
}
