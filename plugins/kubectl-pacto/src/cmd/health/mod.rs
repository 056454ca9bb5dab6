//! `kubectl pacto health`: evaluate Argo CD and Flux health on objects in files, with no
//! cluster, exactly as the controllers do (the library's engines), and report each object's
//! verdicts; `health test` runs health test suites ([`test`]).

pub(crate) mod test;

use crate::io::files::read_one;
use crate::io::output::{json_for, streamed, text_for, write_stdout};
use anyhow::{anyhow, bail, Context, Result};
use kubectl_pacto::cli::{HealthArgs, TableOutput};
use kubectl_pacto::options::{duration_flag, size_flag, Global};
use pacto_gates::argo::health::{ArgoHealth, ArgoVerdict, BuiltinScripts};
use pacto_gates::argo::settings::{self, Overrides};
use pacto_gates::flux::health::{FluxHealth, FluxVerdict};
use pacto_gates::flux::kustomization::{self, Kustomization};
use pacto_gates::flux::wait;
use pacto_gates::object;
use pacto_gates::render::{self, HealthItem};
use std::io::Write;
use std::process::ExitCode;

/// `--eval-timeout` and `--eval-memory`: the bounds of one script or expression on one object.
fn eval_bounds(args: &HealthArgs) -> Result<(std::time::Duration, u64)> {
    let timeout = duration_flag("--eval-timeout", &args.eval_timeout, "1s or 500ms")?;
    if timeout.is_zero() {
        bail!("--eval-timeout 0: give a positive duration (1s is Argo CD's)");
    }
    let memory = size_flag("--eval-memory", &args.eval_memory)?;
    Ok((timeout, memory))
}

/// The checked flags of one `health` run (kubectl's Options: Complete, then Run): the
/// evaluation bounds, the Argo CD engine (always built: its configuration errors are reported
/// even when only Flux is wanted), the Flux side when a Kustomization or HelmRelease was given.
struct Options<'a> {
    args: &'a HealthArgs,
    global: &'a Global,
    argo: ArgoHealth,
    /// Whether Argo CD's verdicts are shown: with no Flux side, or when an Argo CD
    /// configuration was given alongside it.
    argo_wanted: bool,
    flux: Option<(Kustomization, FluxHealth)>,
}

impl<'a> Options<'a> {
    /// Reads and checks the flags and the configuration files they name. Errors: a bad
    /// `--eval-timeout`/`--eval-memory`, an unreadable or invalid argocd-cm,
    /// customizations directory, Kustomization or HelmRelease (naming the file and field).
    fn complete(args: &'a HealthArgs, global: &'a Global) -> Result<Options<'a>> {
        let bounds = eval_bounds(args)?;
        let flux = flux_engine(args, global.now_unix(), bounds)?;
        let argo_wanted =
            flux.is_none() || args.argocd_cm.is_some() || args.customizations_dir.is_some();
        let argo = argo_engine(args, global.now_unix(), bounds)?;
        Ok(Options {
            args,
            global,
            argo,
            argo_wanted,
            flux,
        })
    }
}

/// Loads the Argo CD side of a configuration from the flags.
fn argo_engine(
    args: &HealthArgs,
    now_unix: i64,
    (timeout, memory): (std::time::Duration, u64),
) -> Result<ArgoHealth> {
    let overrides = match &args.argocd_cm {
        None => Overrides::default(),
        Some(path) => {
            let cm = read_one(path, "argocd-cm ConfigMap")?;
            let overrides = settings::parse_configmap(&cm.value)
                .map_err(|e| anyhow!(e.at(&cm.origin.to_string())))?;
            refuse_oversized_overrides(&cm.origin.to_string(), &overrides)?;
            overrides
        }
    };
    let builtins = match &args.customizations_dir {
        None => None,
        Some(dir) => {
            Some(BuiltinScripts::load(dir).map_err(|e| anyhow!("--customizations-dir: {e}"))?)
        }
    };
    if let Some(b) = &builtins {
        refuse_oversized_builtins(b)?;
    }
    let mut engine = ArgoHealth::new(overrides, builtins, now_unix);
    engine.limits.timeout = timeout;
    engine.limits.memory_bytes = usize::try_from(memory).unwrap_or(usize::MAX);
    Ok(engine)
}

/// A health script over `--max-script-bytes` is an error naming where it is (the argocd-cm file,
/// document and data key, or the script's path), before anything is evaluated: otherwise each
/// object would pay for loading it and be Unknown for a reason Argo CD never gives.
fn refuse_oversized_overrides(origin: &str, overrides: &Overrides) -> Result<()> {
    for o in overrides.by_key.values() {
        if let Some(why) = pacto_gates::argo::lua::oversized(&o.health_lua) {
            bail!(
                "{origin}: data key {}: {why}",
                render::one_line(&o.keys.join(", "))
            );
        }
    }
    Ok(())
}

/// [`refuse_oversized_overrides`] for the scripts of a customizations directory.
fn refuse_oversized_builtins(builtins: &BuiltinScripts) -> Result<()> {
    let exact = builtins.exact.values().map(|(p, s)| (p, s));
    let wildcards = builtins.wildcards.iter().map(|(_, p, s)| (p, s));
    for (path, script) in exact.chain(wildcards) {
        if let Some(why) = pacto_gates::argo::lua::oversized(script) {
            bail!("{}: {why}", path.display());
        }
    }
    Ok(())
}

/// The Flux side, when a Kustomization or HelmRelease was given.
fn flux_engine(
    args: &HealthArgs,
    now_unix: i64,
    (timeout, memory): (std::time::Duration, u64),
) -> Result<Option<(Kustomization, FluxHealth)>> {
    let Some(path) = args.kustomization.as_ref().or(args.helmrelease.as_ref()) else {
        return Ok(None);
    };
    let (flag, want) = match &args.kustomization {
        Some(_) => ("--kustomization", "Kustomization"),
        None => ("--helmrelease", "HelmRelease"),
    };
    let o = read_one(path, want)?;
    if o.kind() != want {
        // The flag that takes it, when there is one.
        let hint = match o.kind() {
            "HelmRelease" => " (give it with --helmrelease)",
            "Kustomization" => " (give it with --kustomization)",
            "ConfigMap" => " (an argocd-cm is given with --argocd-cm)",
            _ => "",
        };
        bail!(
            "{}: {flag} takes a {want}, this is a {}{hint}",
            o.origin,
            render::one_line(o.kind()),
        );
    }
    let k = kustomization::parse(&o.value).map_err(|e| anyhow!("{}: {e}", o.origin))?;
    let limits = pacto_gates::flux::cel::Limits {
        deadline: Some(timeout),
        max_alloc_bytes: memory,
        ..Default::default()
    };
    let engine = FluxHealth::new_with_limits(&k.exprs, k.job_order(), now_unix, limits)
        .map_err(|e| anyhow!("{}: {}", o.origin, k.invalid_cel_expression(&e)))?;
    Ok(Some((k, engine)))
}

/// `kubectl pacto health -f FILE...`.
pub(crate) fn run(args: &HealthArgs, global: &Global) -> Result<ExitCode> {
    let Options {
        args,
        global,
        argo: engine,
        argo_wanted,
        flux,
    } = Options::complete(args, global)?;
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
        Some(TableOutput::Json) if global.terminal => {
            let mut buf = Vec::new();
            render::write_health_json(&items, summary.as_ref(), &mut buf)?;
            json_for(String::from_utf8_lossy(&buf).into_owned(), true)
        }
        Some(TableOutput::Json) => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            return streamed(
                render::write_health_json(&items, summary.as_ref(), &mut out)
                    .and_then(|_| out.flush()),
            );
        }
        Some(TableOutput::Yaml) => {
            let mut report = render::health_report(&items);
            if let Some(s) = summary {
                report["summary"] = s;
            }
            text_for(
                serde_saphyr::to_string(&report).context("rendering YAML")?,
                global.terminal,
            )
        }
        None | Some(TableOutput::Wide) => {
            let wide = args.output == Some(TableOutput::Wide);
            let width = crate::io::output::terminal_width(global.terminal);
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let written = render::write_health_table(
                &items,
                global.colour,
                engine.builtins.is_some(),
                (wide, width),
                &mut out,
            )
            .and_then(|_| match &wait {
                Some((k, v)) => write!(out, "\n{}\n", render::wait_summary(k, v)),
                None => Ok(()),
            })
            .and_then(|_| out.flush());
            return streamed(written);
        }
    };
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Warns about custom health keys that none of the objects uses and that are a near miss of
/// an object's group/Kind ([`crate::io::gates::warn_mistyped_keys`]).
fn warn_unused_overrides(engine: &ArgoHealth, objects: &[object::K8sObject]) {
    let keys: Vec<String> = objects.iter().map(|o| o.gvk().group_kind()).collect();
    crate::io::gates::warn_mistyped_keys(engine, &keys);
}
