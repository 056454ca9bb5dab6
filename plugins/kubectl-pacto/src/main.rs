//! `kubectl-pacto`: the kubectl plugin. Argument parsing and I/O only; the evaluation, the
//! explanations and the rendering live in the pacto-gates library.

mod delivery;
mod doctor;
mod explain;
mod live;
mod reconcile;
mod waiting;
mod watching;

use anyhow::{anyhow, bail, Context, Result};
use clap::CommandFactory;
use kubectl_pacto::cli::{self, Cli, Command, HealthArgs, HealthSub, Output};
use kubectl_pacto::complete;
use kubectl_pacto::options::Global;
use pacto_gates::argo::health::{ArgoHealth, ArgoVerdict, BuiltinScripts};
use pacto_gates::argo::settings::{self, Overrides};
use pacto_gates::argo::suite;
use pacto_gates::flux::health::{FluxHealth, FluxVerdict};
use pacto_gates::flux::kustomization::{self, Kustomization};
use pacto_gates::flux::wait;
use pacto_gates::object;
use pacto_gates::render::{self, HealthItem};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    // kubectl's convention: usage errors exit 1 like every other error; help and version exit 0.
    // `kubectl pacto` alone: the help, as `kubectl` alone prints its own (exit 0).
    if std::env::args_os().len() == 1 {
        let mut cmd = Cli::command().bin_name("kubectl pacto");
        let _ = write_stdout(&format!("{}", cmd.render_long_help()));
        return ExitCode::SUCCESS;
    }
    let cli = match Cli::parse_as_plugin() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            if e.kind() == clap::error::ErrorKind::InvalidSubcommand {
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
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    // Deeply nested objects are read and converted recursively: give the work a large stack
    // (reserved address space, not memory).
    let worker = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || run(cli));
    let result = match worker {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|_| Err(anyhow!("internal error: the evaluation thread panicked"))),
        Err(e) => Err(anyhow!("cannot start the evaluation thread: {e}")),
    };
    exit_on_error(result, 1)
}

/// The exit code of a command's result: an error is printed as `error: ...` on stderr (server
/// and file texts end up there: no terminal control sequence reaches it) and exits `code`
/// (kubectl's 1; 2 for the checks and the reconcile, whose 1 means findings or work left).
pub(crate) fn exit_on_error(result: Result<ExitCode>, code: u8) -> ExitCode {
    match result {
        Ok(c) => c,
        Err(e) => {
            let text = format!("{e:#}");
            let lines: Vec<String> = text.lines().map(pacto_gates::render::one_line).collect();
            eprintln!("error: {}", lines.join("\n"));
            ExitCode::from(code)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    pacto_gates::k8s::read::set_max_input_bytes(kubectl_pacto::options::size_flag(
        "--max-input-bytes",
        &cli.max_input_bytes,
    )?);
    let global = || Global::new(|k| std::env::var(k).ok(), std::io::stdout().is_terminal());
    match cli.command {
        Command::Health(args) => match args.sub {
            Some(HealthSub::Test { ref dirs, output }) => health_test(dirs, output, &global()?),
            None => health(&args, &global()?),
        },
        Command::Get(args) => live::get(&args, &global()?),
        Command::Explain(args) => explain::explain(&args, &global()?),
        Command::Doctor(args) => Ok(doctor::doctor(&args, &global()?)),
        Command::Snippet(args) => doctor::snippet(&args),
        Command::Wait(args) => waiting::wait(&args, &global()?),
        Command::Reconcile(args) => Ok(reconcile::reconcile(&args, &global()?)),
        Command::Version { output, .. } => {
            let version = env!("CARGO_PKG_VERSION");
            let data = serde_json::json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Version",
                "version": version, "userAgent": pacto_gates::cluster::USER_AGENT});
            let out = match output {
                Some(Output::Json) => serde_json::to_string_pretty(&data)? + "\n",
                Some(Output::Yaml) => serde_saphyr::to_string(&data).context("rendering YAML")?,
                None => format!("kubectl-pacto {version}\n"),
            };
            write_stdout(&out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Completion { shell } => {
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

/// `--eval-timeout` and `--eval-memory`: the bounds of one script or expression on one object.
fn eval_bounds(args: &HealthArgs) -> Result<(std::time::Duration, u64)> {
    let timeout =
        kubectl_pacto::options::duration_flag("--eval-timeout", &args.eval_timeout, "1s or 500ms")?;
    if timeout.is_zero() {
        bail!("--eval-timeout 0: give a positive duration (1s is Argo CD's)");
    }
    let memory = kubectl_pacto::options::size_flag("--eval-memory", &args.eval_memory)?;
    Ok((timeout, memory))
}

/// Loads the Argo CD side of a configuration from the flags.
fn argo_engine(args: &HealthArgs, now_unix: i64) -> Result<ArgoHealth> {
    let overrides = match &args.argocd_cm {
        None => Overrides::default(),
        Some(path) => {
            let cm = read_one(path, "argocd-cm ConfigMap")?;
            settings::parse_configmap(&cm.value)
                .map_err(|e| anyhow!(e.at(&cm.origin.to_string())))?
        }
    };
    let builtins = match &args.customizations_dir {
        None => None,
        Some(dir) => {
            Some(BuiltinScripts::load(dir).map_err(|e| anyhow!("--customizations-dir: {e}"))?)
        }
    };
    let mut engine = ArgoHealth::new(overrides, builtins, now_unix);
    let (timeout, memory) = eval_bounds(args)?;
    engine.limits.timeout = timeout;
    engine.limits.memory_bytes = usize::try_from(memory).unwrap_or(usize::MAX);
    Ok(engine)
}

/// Reads the one object a file must hold (an argocd-cm, a Kustomization or HelmRelease).
/// Errors: the file's own, or another count of objects (`expected one <what>, found N objects`).
pub(crate) fn read_one(path: &std::path::Path, what: &str) -> Result<object::K8sObject> {
    if path.is_dir() {
        bail!(
            "{}: a directory; give the file that holds the {what}",
            path.display()
        );
    }
    let objs = object::read_paths(std::slice::from_ref(&path.to_path_buf()))?;
    match <[object::K8sObject; 1]>::try_from(objs) {
        Ok([o]) => Ok(o),
        Err(objs) => bail!(
            "{}: expected one {what}, found {} objects",
            path.display(),
            objs.len()
        ),
    }
}

/// The Flux side, when a Kustomization or HelmRelease was given.
fn flux_engine(args: &HealthArgs, now_unix: i64) -> Result<Option<(Kustomization, FluxHealth)>> {
    let Some(path) = args.kustomization.as_ref().or(args.helmrelease.as_ref()) else {
        return Ok(None);
    };
    let (flag, want) = match &args.kustomization {
        Some(_) => ("--kustomization", "Kustomization"),
        None => ("--helmrelease", "HelmRelease"),
    };
    let o = read_one(path, want)?;
    if o.kind() != want {
        bail!(
            "{}: {flag} takes a {want}, this is a {} (give it with {})",
            o.origin,
            render::one_line(o.kind()),
            if want == "Kustomization" {
                "--helmrelease"
            } else {
                "--kustomization"
            }
        );
    }
    let k = kustomization::parse(&o.value).map_err(|e| anyhow!("{}: {e}", o.origin))?;
    let (timeout, memory) = eval_bounds(args)?;
    let limits = pacto_gates::flux::cel::Limits {
        deadline: Some(timeout),
        max_alloc_bytes: memory,
        ..Default::default()
    };
    let engine = FluxHealth::new_with_limits(&k.exprs, k.job_order(), now_unix, limits)
        .map_err(|e| anyhow!("{}: {}", o.origin, k.invalid_cel_expression(&e)))?;
    Ok(Some((k, engine)))
}

fn health(args: &HealthArgs, global: &Global) -> Result<ExitCode> {
    let flux = flux_engine(args, global.now_unix())?;
    let argo_wanted =
        flux.is_none() || args.argocd_cm.is_some() || args.customizations_dir.is_some();
    let engine = argo_engine(args, global.now_unix())?;
    // Each object is evaluated as it is read; only what names it is kept for the report.
    let mut objects = Vec::new();
    let mut verdicts = Vec::new();
    let mut flux_verdicts: Vec<FluxVerdict> = Vec::new();
    object::visit_paths(&args.files, &mut |o| {
        if argo_wanted {
            let mut v = engine.evaluate(&o.value);
            for line in std::mem::take(&mut v.printed) {
                eprintln!(
                    "{}",
                    render::one_line(&format!(
                        "{} {}/{}: print: {line}",
                        o.origin,
                        o.kind(),
                        o.name()
                    ))
                );
            }
            verdicts.push(v);
        }
        if let Some((_, f)) = &flux {
            flux_verdicts.push(f.evaluate(&o.value));
        }
        objects.push(o.identity());
        Ok(())
    })?;
    if argo_wanted {
        warn_unused_overrides(&engine, &objects);
        let unjudged = verdicts.iter().any(|v: &ArgoVerdict| v.health.is_none());
        if unjudged && args.argocd_cm.is_none() && args.customizations_dir.is_none() {
            eprintln!("note: no --argocd-cm given: objects without a built-in Go check are judged by nothing (give the argocd-cm whose resource.customizations apply; kubectl pacto snippet argocd prints the recommended one)");
        }
    }
    let wait = flux.as_ref().map(|(k, _)| {
        (
            k,
            wait::verdict(k, &wait::checked(k, &objects, &flux_verdicts)),
        )
    });
    let items: Vec<HealthItem> = objects
        .iter()
        .enumerate()
        .map(|(i, object)| HealthItem {
            object,
            argo: verdicts.get(i),
            flux: flux_verdicts.get(i),
        })
        .collect();
    let summary = wait
        .as_ref()
        .map(|(k, v)| serde_json::json!({"flux": render::wait_json(k, v)}));
    let out = match args.output {
        Some(Output::Json) => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            return match render::write_health_json(&items, summary.as_ref(), &mut out)
                .and_then(|_| out.flush())
            {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(e).context("writing to standard output")
                }
                _ => Ok(ExitCode::SUCCESS),
            };
        }
        Some(Output::Yaml) => {
            let mut report = render::health_report(&items);
            if let Some(s) = summary {
                report["summary"] = s;
            }
            serde_saphyr::to_string(&report).context("rendering YAML")?
        }
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let written = render::write_health_table(
                &items,
                global.colour,
                engine.builtins.is_some(),
                &mut out,
            )
            .and_then(|_| match &wait {
                Some((k, v)) => write!(out, "\n{}\n", render::wait_summary(k, v)),
                None => Ok(()),
            })
            .and_then(|_| out.flush());
            return match written {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(e).context("writing to standard output")
                }
                _ => Ok(ExitCode::SUCCESS),
            };
        }
    };
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Warns about custom health keys that none of the objects uses and that are a near miss of
/// an object's group/Kind (doctor check A01, narrowed to likely typos).
fn warn_unused_overrides(engine: &ArgoHealth, objects: &[object::K8sObject]) {
    let keys: Vec<String> = objects.iter().map(|o| o.gvk().group_kind()).collect();
    for f in pacto_gates::doctor::argocd::mistyped_health_keys(&engine.overrides, &keys) {
        eprintln!(
            "warning: {}: {}",
            render::one_line(&f.finding),
            render::one_line(&f.fix)
        );
    }
}

fn health_test(
    dirs: &[std::path::PathBuf],
    output: Option<cli::TestOutput>,
    global: &Global,
) -> Result<ExitCode> {
    let mut argo_runs = Vec::new();
    let mut flux_runs = Vec::new();
    for dir in dirs {
        if !dir.exists() {
            bail!("{}: no such file or directory", dir.display());
        }
        if !dir.is_dir() {
            bail!(
                "{}: not a directory (health test takes directories of suites)",
                dir.display()
            );
        }
        let run = suite::run_tree(dir, global.now_unix());
        let flux_suites = pacto_gates::flux::suite::find_suites(dir);
        if run.suites == 0 && flux_suites.is_empty() {
            bail!(
                "{}: no health.lua with a health_test.yaml beside it, and no {}",
                dir.display(),
                pacto_gates::flux::suite::SUITE_FILE
            );
        }
        argo_runs.push(run);
        for file in flux_suites {
            let cases = pacto_gates::flux::suite::run_suite(&file, global.now_unix());
            flux_runs.push((file, cases));
        }
    }
    let mut out = String::new();
    let (mut passed, mut failed) = (0usize, 0usize);
    for run in &argo_runs {
        out.push_str(&render::suite::argo_failures(run));
        passed += run.passed();
        failed += run.failed();
    }
    for (file, cases) in &flux_runs {
        match cases {
            Err(e) => {
                out.push_str(&render::suite::flux_suite_error(file, e));
                failed += 1;
            }
            Ok(cases) => {
                for c in cases {
                    if c.passed() {
                        passed += 1;
                        continue;
                    }
                    failed += 1;
                    out.push_str(&render::suite::flux_failure(c));
                }
            }
        }
    }
    out.push_str(&render::suite::summary(passed, failed));
    let run = render::suite::TestRun {
        argo: &argo_runs,
        flux: &flux_runs,
    };
    let out = match output {
        None => out,
        Some(cli::TestOutput::Junit) => render::suite::junit(&run),
        Some(cli::TestOutput::Json) => {
            serde_json::to_string_pretty(&render::suite::report_json(&run))? + "\n"
        }
    };
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
