//! Checks of Flux gates: a Kustomization's (or HelmRelease's) `healthCheckExprs`, `wait` and
//! `timeout`, read as kustomize-controller reads them and evaluated with the engine of
//! [`crate::flux`] (fluxcd/pkg `runtime/cel`); IDs as docs/doctor.md lists them (F01–F13, C01–C02).

use super::near::near_miss;
use super::probes::{self, Must};
use super::{Finding, Merged, Severity};
use crate::flux::health::FluxHealth;
use crate::flux::kustomization::Kustomization;
use crate::flux::KStatus;
use crate::k8s::duration::go_duration;
use std::time::Duration;

/// What the checks need to know about the objects around a Kustomization.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The Kustomization's inventory holds a Pacto (`status.inventory`), or None when it has no
    /// inventory to tell.
    pub applies_pactos: Option<bool>,
    /// Likewise for CoderTemplateTests.
    pub applies_ctts: Option<bool>,
    /// Pactos are among the objects read (for a Kustomization without inventory: it may apply
    /// them).
    pub pactos_read: bool,
    /// The longest `spec.checkIntervalSeconds` of the Pactos read (300 when none).
    pub max_check_interval: i64,
    /// The operator's stabilization window, seconds (120 by default).
    pub stabilization_window: i64,
    /// The longest `spec.timeoutSeconds` of the CoderTemplateTests read (900 when none).
    pub max_test_timeout: i64,
}

const PACTO_GROUP: &str = crate::kinds::PACTO.group;
const CTT_GROUP: &str = crate::kinds::CODER_TEMPLATE_TEST.group;

/// Every check of one Kustomization or HelmRelease. `now_unix` is the clock of kstatus.
pub fn checks(k: &Kustomization, ctx: &Context, now_unix: i64) -> Vec<Finding> {
    let o = format!("{} {}/{}", k.kind, k.namespace, k.name);
    let mut out = Vec::new();
    let entry = |group: &str, kind: &str| {
        k.exprs
            .iter()
            .find(|e| e.group() == group && (e.kind == kind || e.kind.is_empty()))
    };
    let pacto_entry = entry(PACTO_GROUP, "Pacto");
    let ctt_entry = entry(CTT_GROUP, "CoderTemplateTest");

    // F04: near misses of the group or kind (by case, or by spelling: within two edits of
    // Pacto, three of CoderTemplateTest).
    for e in &k.exprs {
        for (group, kind, edits) in [
            (PACTO_GROUP, "Pacto", 2),
            (CTT_GROUP, "CoderTemplateTest", 3),
        ] {
            let group_miss = near_miss(e.group(), group, 3);
            let kind_miss = e.group() == group
                && !e.kind.is_empty()
                && e.kind != kind
                && near_miss(&e.kind, kind, edits);
            if group_miss || kind_miss {
                out.push(Finding::new("F04", Severity::Error, &o,
                    format!("spec.healthCheckExprs[{}]: apiVersion {:?}, kind {:?}", e.index, e.api_version, e.kind),
                    format!("healthCheckExprs[{}] looks meant for {group}/{kind} but names {:?}/{:?}: Flux matches group and kind exactly, so it applies to nothing and the object falls back to kstatus", e.index, e.group(), e.kind),
                    format!("set apiVersion: {group}/v1alpha1 and kind: {kind}")));
            }
        }
    }

    // The expressions must compile (F05 names a missing current).
    let engine = match FluxHealth::new(&k.exprs, k.job_order(), now_unix) {
        Ok(e) => Some(e),
        Err(e) => {
            out.push(Finding::new("F05", Severity::Error, &o, e.clone(),
                format!("the healthCheckExprs do not compile ({e}): the {} stalls with InvalidCELExpression and applies nothing", k.kind),
                "fix the expression; every entry needs a current expression".to_string()));
            None
        }
    };

    let gates_pactos = pacto_entry.is_some() || ctx.applies_pactos == Some(true);
    // F01: applies Pactos with no entry for them.
    if pacto_entry.is_none() && ctx.applies_pactos == Some(true) {
        out.push(Finding::new("F01", Severity::Error, &o, "status.inventory lists a Pacto; spec.healthCheckExprs has no pacto.trianalab.io/Pacto entry".to_string(),
            format!("the {} applies Pactos but has no healthCheckExprs entry for them: kstatus reads every Pacto Current, so a NonCompliant Pacto reports healthy", k.kind),
            "kubectl pacto snippet flux --for pacto (add the entry to spec.healthCheckExprs)".to_string()));
    }
    if pacto_entry.is_none() && ctx.applies_pactos.is_none() && ctx.pactos_read {
        out.push(Finding::new("F01", Severity::Info, &o, "no status.inventory; spec.healthCheckExprs has no pacto.trianalab.io/Pacto entry".to_string(),
            format!("the {} has no healthCheckExprs entry for Pacto and no inventory to tell what it applies: if it applies Pactos, kstatus reads every one Current and the gate gates nothing (`doctor --cluster` reads the inventory)", k.kind),
            "kubectl pacto snippet flux --for pacto (add the entry to spec.healthCheckExprs) if it applies Pactos".to_string()));
    }
    let ctt_applied = ctt_entry.is_some() || ctx.applies_ctts == Some(true);
    if ctt_entry.is_none() && ctx.applies_ctts == Some(true) {
        out.push(Finding::new("C01", Severity::Error, &o, "status.inventory lists a CoderTemplateTest; spec.healthCheckExprs has no coder.com/CoderTemplateTest entry".to_string(),
            "CoderTemplateTests are applied without a healthCheckExprs entry: kstatus reads a test without status as Current, so Flux treats a new test as passed until its controller writes one".to_string(),
            "kubectl pacto snippet flux --for codertemplatetest (add the entry to spec.healthCheckExprs)".to_string()));
    }

    // F02: the expressions are never evaluated.
    if (gates_pactos || ctt_applied) && !k.wait && k.health_checks.is_empty() {
        out.push(Finding::new("F02", Severity::Error, &o, "spec.wait: false, spec.healthChecks empty".to_string(),
            format!("the {} waits for nothing: its healthCheckExprs are never evaluated and the next step never waits for the verdict", k.kind),
            "set spec.wait: true".to_string()));
    }

    // Evaluate the entries on the probes (F06, F07, F08; C01 for tests).
    if let Some(engine) = &engine {
        let sets = [
            (
                pacto_entry.is_some(),
                probes::pactos(),
                "pacto.trianalab.io/Pacto",
                true,
            ),
            (
                ctt_entry.is_some(),
                probes::coder_template_tests(),
                "coder.com/CoderTemplateTest",
                false,
            ),
        ];
        for (present, probe_set, what, pacto) in sets {
            if !present {
                continue;
            }
            let mut merged = Merged::default();
            for p in &probe_set {
                let v = engine.evaluate(&p.object);
                let got = match v.status {
                    KStatus::Current => Must::Pass,
                    KStatus::Failed => Must::Fail,
                    _ => Must::Hold,
                };
                let evidence = format!(
                    "on {}: {}{}",
                    p.name,
                    v.status.as_str(),
                    v.error
                        .as_ref()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default()
                );
                let id_of = |pacto_id: &'static str| if pacto { pacto_id } else { "C01" };
                let mut add =
                    |id: &'static str, severity: Severity, template: String, fix: String| {
                        merged.add(
                            Finding::new(id, severity, &o, String::new(), String::new(), fix),
                            &template,
                            p.name,
                            evidence.clone(),
                        );
                    };
                match (p.must, got) {
                    (Must::Hold | Must::Fail, Must::Pass) => add(id_of("F06"), Severity::Error,
                        format!("the {what} entry fails open: it reads {{}} as Current"),
                        "list only passing verdicts in current (Compliant, Reference, Warning) and add no inProgress that a passing verdict can reach".to_string()),
                    (Must::Fail, Must::Hold) => add(id_of("F07"), Severity::Error,
                        format!("the {what} entry does not fail {{}}: a real violation only surfaces as a timeout"),
                        if pacto { "failed: status.contractStatus in ['NonCompliant', 'Invalid']".to_string() } else { "failed: status.phase == 'Failed'".to_string() }),
                    (Must::Pass, Must::Hold | Must::Fail) => add(id_of("F06"), Severity::Error,
                        format!("the {what} entry never passes {{}}: every rollout would wait for the timeout"),
                        "make current true for a passing verdict".to_string()),
                    (Must::Knob, got) => add("F08", Severity::Info,
                        format!("the Warning knob: {{}} {} (Warning sits in {})", if got == Must::Pass { "passes" } else { "blocks" }, if got == Must::Pass { "current" } else { "failed" }),
                        if got == Must::Pass { "to make warnings block: kubectl pacto snippet flux --warning-blocks".to_string() } else { "to let warnings pass: kubectl pacto snippet flux".to_string() }),
                    _ => {}
                }
            }
            out.extend(merged.finish());
        }
    }

    // F09 and F13: what the Pacto expressions read.
    if let Some(e) = pacto_entry {
        let all = format!("{} {} {}", e.current, e.failed, e.in_progress);
        if all.contains("observedGeneration") {
            out.push(Finding::new("F09", Severity::Warning, &o, format!("spec.healthCheckExprs[{}] reads observedGeneration", e.index),
                "a hand-written generation guard: Flux compares observedGeneration with generation before any expression, and the hand-written one errors on a Pacto without status".to_string(),
                "drop the observedGeneration comparison from the expressions".to_string()));
        }
        if all.contains("status.conditions") {
            out.push(Finding::new("F13", Severity::Info, &o, format!("spec.healthCheckExprs[{}] reads status.conditions", e.index),
                "the Pacto expressions read status.conditions: the verdict is status.contractStatus".to_string(),
                "decide on status.contractStatus".to_string()));
        }
    }

    // F10 / C02: the timeout against what the verdicts take. A duration Flux cannot read is
    // said as such (the API server refuses it; this tool would otherwise compute from a default).
    for (field, value) in [("spec.timeout", &k.timeout), ("spec.interval", &k.interval)] {
        if let Some(v) = value {
            if crate::k8s::duration::parse_go_duration(v).is_none() {
                out.push(Finding::new("F10", Severity::Warning, &o, format!("{field}: {v:?}"),
                    format!("{field} {v:?} is not a duration Flux reads (a Go duration such as 5m or 1h30m, at most 2562047h): the API server refuses the Kustomization"),
                    format!("set {field} to a duration such as 20m")));
                return out;
            }
        }
    }
    let timeout = crate::flux::wait::timeout(k);
    if gates_pactos && (k.wait || !k.health_checks.is_empty()) {
        let floor =
            Duration::from_secs((ctx.stabilization_window + ctx.max_check_interval).max(0) as u64);
        if timeout <= floor {
            out.push(Finding::new("F10", Severity::Warning, &o,
                format!("timeout {} (spec.timeout {:?}, interval {:?}); stabilization window {}s + check interval {}s = {}", go_duration(timeout), k.timeout.as_deref().unwrap_or(""), k.interval.as_deref().unwrap_or(""), ctx.stabilization_window, ctx.max_check_interval, go_duration(floor)),
                "the timeout does not exceed the operator's stabilization window plus one requeue: an absence confirmed late arrives as an ambiguous timeout instead of a clean failure".to_string(),
                format!("set spec.timeout above {} (plus the time the apply takes)", go_duration(floor))));
        }
    }
    if ctt_applied && (k.wait || !k.health_checks.is_empty()) {
        let floor = Duration::from_secs(ctx.max_test_timeout.max(0) as u64 + 60);
        if timeout <= floor {
            out.push(Finding::new("C02", Severity::Warning, &o,
                format!("timeout {}; the tests' timeoutSeconds {}s", go_duration(timeout), ctx.max_test_timeout),
                "the timeout does not exceed the tests' timeoutSeconds plus the time their controller needs to start: Flux stops waiting before the test ends".to_string(),
                format!("set spec.timeout well above {}", go_duration(floor))));
        }
    }
    out
}
