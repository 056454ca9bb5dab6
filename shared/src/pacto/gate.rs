//! The gates a Pacto (or any object) is judged by, and what they decide about it.
//!
//! Argo CD: the `resource.customizations` of the cluster's argocd-cm (or a file), evaluated by the
//! engine of [`crate::argo`]. Flux: the `healthCheckExprs` of every Kustomization whose inventory
//! holds the object (kustomize-controller `status.inventory.entries[].id`,
//! `<namespace>_<name>_<group>_<kind>`, fluxcd/cli-utils `object.ObjMetadata.String`), evaluated by
//! [`crate::flux`]. When neither can be read, the recommended gate of [`super::recommended`] (the
//! gates of "GitOps promotion gates" and "Gate template promotion with GitOps"), compiled into the
//! binary.

use crate::argo::health::{ArgoHealth, ArgoVerdict};
use crate::argo::settings;
use crate::flux::health::{FluxHealth, FluxVerdict, JobOrder};
use crate::flux::kustomization::{self, Kustomization};
use crate::flux::KStatus;
use serde_json::Value;
use std::collections::HashSet;

pub use super::recommended::PACTO_ARGO_KEY;

pub mod sources;

/// The recommended Kustomization as read by [`kustomization::parse`]. With `warning_blocks`,
/// Warning moves from the Pacto entry's `current` to its `failed` expression.
pub fn recommended_kustomization(warning_blocks: bool) -> Kustomization {
    kustomization::parse(&super::recommended::kustomization_object(warning_blocks))
        .expect("the recommended Kustomization is a Kustomization (a test reads it)")
}

/// Where a gate's rules came from, for the reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Read from the cluster or a file: what to call it (`argocd-cm argocd/argocd-cm`).
    Configured(String),
    /// The recommended gate, and why the configured one was not used.
    Recommended(String),
}

impl Source {
    /// `argocd-cm argocd/argocd-cm` or `recommended gate (argocd-cm not readable: ...)`.
    pub fn describe(&self) -> String {
        match self {
            Source::Configured(s) => s.clone(),
            Source::Recommended(why) => format!("recommended gate ({why})"),
        }
    }
}

/// The Argo CD side.
pub struct ArgoGate {
    /// None when the configuration cannot be loaded (`load_error`).
    pub engine: Option<ArgoHealth>,
    /// Where the configuration came from.
    pub source: Source,
    /// Argo CD refuses the whole configuration: every application's health is Unknown.
    pub load_error: Option<String>,
}

impl ArgoGate {
    /// The recommended gate.
    pub fn recommended(why: impl Into<String>, warning_blocks: bool, now_unix: i64) -> ArgoGate {
        let overrides = settings::parse_data(&super::recommended::argocd_data(warning_blocks))
            .expect("the recommended argocd-cm data loads (a test checks it)");
        ArgoGate {
            engine: Some(ArgoHealth::new(overrides, None, now_unix)),
            source: Source::Recommended(why.into()),
            load_error: None,
        }
    }

    /// From an argocd-cm object; `name` says where it was read.
    pub fn from_configmap(cm: &Value, name: impl Into<String>, now_unix: i64) -> ArgoGate {
        let source = Source::Configured(name.into());
        match settings::parse_configmap(cm) {
            Ok(overrides) => ArgoGate {
                engine: Some(ArgoHealth::new(overrides, None, now_unix)),
                source,
                load_error: None,
            },
            Err(e) => ArgoGate {
                engine: None,
                source,
                load_error: Some(e.to_string()),
            },
        }
    }
}

/// One Kustomization of the Flux side.
pub struct FluxKustomization {
    /// The Kustomization (or HelmRelease) as read.
    pub kustomization: Kustomization,
    /// None when its expressions do not compile (`error`).
    pub engine: Option<FluxHealth>,
    /// Why its expressions do not compile (InvalidCELExpression), if they do not.
    pub error: Option<String>,
    /// Which `healthCheckExprs` entry covers which GroupKind (empty when they do not compile).
    pub selector: kustomization::Selector,
    /// `status.inventory.entries[].id`; None: treat as holding every object (a file given with
    /// `--kustomization`, or the recommended gate).
    pub inventory: Option<HashSet<String>>,
}

impl FluxKustomization {
    /// Reads a Kustomization object; `inventory` decides whether its status inventory limits
    /// which objects it holds. Errors: not a Kustomization/HelmRelease, a field of the wrong type.
    pub fn new(
        obj: &Value,
        use_inventory: bool,
        now_unix: i64,
    ) -> Result<FluxKustomization, String> {
        let k = kustomization::parse(obj)?;
        let (engine, error) = match FluxHealth::new(&k.exprs, k.job_order(), now_unix) {
            Ok(e) => (Some(e), None),
            Err(e) => (None, Some(e)),
        };
        let inventory = use_inventory.then(|| {
            obj.pointer("/status/inventory/entries")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|e| e.get("id").and_then(Value::as_str))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        });
        let k_exprs = k.exprs.clone();
        Ok(FluxKustomization {
            kustomization: k,
            engine,
            error,
            selector: kustomization::Selector::new(&k_exprs).unwrap_or_default(),
            inventory,
        })
    }

    /// Whether this Kustomization applies the object.
    pub fn holds(&self, namespace: &str, name: &str, group: &str, kind: &str) -> bool {
        match &self.inventory {
            None => true,
            Some(ids) => ids.contains(&inventory_id(namespace, name, group, kind)),
        }
    }

    /// Whether its health check waits for the object: `spec.wait`, or the object is listed in
    /// `spec.healthChecks`.
    pub fn waits_for(&self, namespace: &str, name: &str, group: &str, kind: &str) -> bool {
        crate::flux::wait::waits_for(&self.kustomization, namespace, name, group, kind)
    }
}

/// A Flux inventory id (`<namespace>_<name>_<group>_<kind>`).
fn inventory_id(namespace: &str, name: &str, group: &str, kind: &str) -> String {
    format!("{namespace}_{name}_{group}_{kind}")
}

/// The Flux side: the Kustomizations read, and the recommended gate for objects none holds.
pub struct FluxGate {
    /// The Kustomizations read (from the cluster or a file).
    pub kustomizations: Vec<FluxKustomization>,
    /// The Kustomizations are the cluster's whole set: an object none holds is applied by no
    /// Kustomization, and Flux gates nothing for it.
    pub complete: bool,
    /// Used for an object no Kustomization holds; the string says why.
    pub recommended: (FluxKustomization, String),
}

impl FluxGate {
    /// Only the recommended gate.
    pub fn recommended(why: impl Into<String>, warning_blocks: bool, now_unix: i64) -> FluxGate {
        FluxGate {
            kustomizations: Vec::new(),
            complete: false,
            recommended: (recommended_flux(warning_blocks, now_unix), why.into()),
        }
    }
}

fn recommended_flux(warning_blocks: bool, now_unix: i64) -> FluxKustomization {
    let kustomization = recommended_kustomization(warning_blocks);
    let engine = FluxHealth::new(&kustomization.exprs, JobOrder::JobReaderFirst, now_unix)
        .expect("the recommended expressions compile (a test checks it)");
    FluxKustomization {
        selector: kustomization::Selector::new(&kustomization.exprs).unwrap_or_default(),
        kustomization,
        engine: Some(engine),
        error: None,
        inventory: None,
    }
}

/// What a verdict does to the next rollout step: lets it go, holds it, or fails it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    Pass,
    Hold,
    Fail,
}

/// Argo CD, as gitops-engine `pkg/sync/sync_context.go` treats a synced resource when later sync
/// waves exist: Healthy (or no health, which the roll-up ignores) lets the next wave go on;
/// Degraded fails the sync; Progressing, Suspended, Missing, Unknown and the empty status keep it
/// waiting. (In the last wave the sync ends either way; the health then shows on the application.)
pub fn argo_gate(v: &ArgoVerdict) -> Gate {
    match v.health.as_ref().map(|h| h.status.as_str()) {
        None | Some("Healthy") => Gate::Pass,
        Some("Degraded") => Gate::Fail,
        _ => Gate::Hold,
    }
}

/// Flux: Current passes; Failed fails the wait early; anything else holds it until the timeout.
pub fn flux_gate(v: &FluxVerdict) -> Gate {
    match v.status {
        KStatus::Current => Gate::Pass,
        KStatus::Failed => Gate::Fail,
        _ => Gate::Hold,
    }
}

/// The gates as a cluster configures them, from what was read: `argocd_cm` the argocd-cm
/// ConfigMap of `argocd_namespace` (or why it could not be read), `kustomizations` every Flux
/// Kustomization of the cluster (or why they could not be listed). A side that could not be read
/// is the recommended gate, with the reason; a Kustomization that is not one Flux could read is
/// skipped (Flux could not apply it either). With the Kustomizations read, an object none of
/// their inventories holds is applied by none, and Flux gates nothing for it.
pub fn from_cluster(
    argocd_cm: Result<Value, String>,
    argocd_namespace: &str,
    kustomizations: Result<Vec<Value>, String>,
    warning_blocks: bool,
    now_unix: i64,
) -> (ArgoGate, FluxGate) {
    let argo = match argocd_cm {
        Ok(cm) => ArgoGate::from_configmap(
            &cm,
            format!("argocd-cm {argocd_namespace}/argocd-cm"),
            now_unix,
        ),
        Err(e) => ArgoGate::recommended(
            format!("argocd-cm not readable: {e}"),
            warning_blocks,
            now_unix,
        ),
    };
    let flux = match kustomizations {
        Ok(items) => FluxGate {
            kustomizations: items
                .iter()
                .filter_map(|k| FluxKustomization::new(k, true, now_unix).ok())
                .collect(),
            complete: true,
            ..FluxGate::recommended(
                "no Kustomization's inventory holds it",
                warning_blocks,
                now_unix,
            )
        },
        Err(e) => FluxGate::recommended(
            format!("Kustomizations not readable: {e}"),
            warning_blocks,
            now_unix,
        ),
    };
    (argo, flux)
}

/// What one Kustomization decides about one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FluxDecision {
    /// `namespace/name` of the Kustomization, or `recommended`.
    pub kustomization: String,
    /// Where its rules came from.
    pub source: Source,
    /// None when the Kustomization's expressions do not compile (see `error`).
    pub verdict: Option<FluxVerdict>,
    /// Whether its health check waits for the object at all.
    pub waits: bool,
    /// Has a `healthCheckExprs` entry for the object's kind.
    pub has_expression: bool,
    /// Flux never reads the object's verdict: a Pacto without a `healthCheckExprs` entry is judged
    /// by kstatus, which ignores contractStatus (it only waits for an unobserved generation) and
    /// otherwise reads it Current ("GitOps promotion gates", "Flux"). Such a Current counts as no
    /// gate.
    pub verdict_blind: bool,
    /// kustomize-controller's effective timeout (`GetTimeout`), as Go prints a duration.
    pub timeout: String,
    pub error: Option<String>,
    /// No Kustomization of the cluster applies the object: the verdict shown is what the
    /// recommended gate would decide, and Flux gates nothing.
    pub unapplied: bool,
}

impl FluxDecision {
    /// What this Kustomization does with the next step: none when it does not wait for the
    /// object or never reads its verdict (a kstatus Current), hold when its expressions do not
    /// compile (the Kustomization stalls), else pass / hold / fail from the status.
    pub fn outcome(&self) -> GateWord {
        match (&self.verdict, self.waits) {
            // kustomize-controller builds the status reader on every reconcile, wait or not:
            // an expression that does not compile stalls the Kustomization (InvalidCELExpression).
            (None, _) if !self.unapplied => GateWord::Hold,
            (_, false) => GateWord::None,
            (Some(v), true) if self.verdict_blind && v.status == KStatus::Current => GateWord::None,
            (None, true) => GateWord::Hold,
            (Some(v), true) => outcome(flux_gate(v)),
        }
    }
}

/// What the gates decide about one object.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// None when Argo CD cannot load its configuration.
    pub argo: Option<ArgoVerdict>,
    /// Where Argo CD's configuration came from.
    pub argo_source: Source,
    /// Why Argo CD refuses its configuration, if it does.
    pub argo_load_error: Option<String>,
    /// One decision per Kustomization holding the object, or the recommended one.
    pub flux: Vec<FluxDecision>,
}

/// What a gate does with the next rollout step, including "there is no gate".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum GateWord {
    /// No check applies: nothing waits for this object.
    None,
    Pass,
    Hold,
    Fail,
}

impl GateWord {
    /// Every outcome, in the order messages list their words (`pass, hold, fail, none`).
    pub const ALL: [GateWord; 4] = [
        GateWord::Pass,
        GateWord::Hold,
        GateWord::Fail,
        GateWord::None,
    ];

    /// `none`, `pass`, `hold`, `fail`.
    pub fn as_str(self) -> &'static str {
        match self {
            GateWord::None => "none",
            GateWord::Pass => "pass",
            GateWord::Hold => "hold",
            GateWord::Fail => "fail",
        }
    }
}

fn outcome(g: Gate) -> GateWord {
    match g {
        Gate::Pass => GateWord::Pass,
        Gate::Hold => GateWord::Hold,
        Gate::Fail => GateWord::Fail,
    }
}

impl Decision {
    /// Argo CD: no health (no check) is [`GateWord::None`]; a configuration Argo refuses fails
    /// (argo-cd `controller/sync.go`: the sync operation errors with "Failed to load resource
    /// overrides").
    pub fn argo_outcome(&self) -> GateWord {
        match &self.argo {
            // argo-cd controller/sync.go: "Failed to load resource overrides": every sync errors.
            None => GateWord::Fail,
            Some(v) if v.health.is_none() => GateWord::None,
            Some(v) => outcome(argo_gate(v)),
        }
    }

    /// Flux: the strictest of the Kustomizations that wait for the object; an unusable
    /// configuration holds (the Kustomization stalls).
    pub fn flux_outcome(&self) -> GateWord {
        self.flux
            .iter()
            .map(FluxDecision::outcome)
            .max()
            .unwrap_or(GateWord::None)
    }

    /// What the two gates together do with the next rollout step: the stricter side decides
    /// (fail over hold over pass), and a side that gates nothing does not count (`none` only
    /// when neither side gates). What `wait --for gate=` compares.
    pub fn overall(&self) -> GateWord {
        self.argo_outcome().max(self.flux_outcome())
    }

    /// The GATE column: one word when both agree (`pass`, `hold`, `fail`, `none`), else
    /// `argo:<word> flux:<word>`.
    pub fn gate_word(&self) -> String {
        let (a, f) = (self.argo_outcome(), self.flux_outcome());
        if a == f {
            a.as_str().to_string()
        } else {
            format!("argo:{} flux:{}", a.as_str(), f.as_str())
        }
    }
}

/// Where the GATE column of a listing did not come from the configured gates: one note per
/// side (the recommended gate stood in, and why; Pactos no Kustomization applies). Raw text.
pub fn notes(decisions: &[Decision]) -> Vec<String> {
    let mut notes = Vec::new();
    let argo = match decisions.first().map(|d| &d.argo_source) {
        Some(Source::Recommended(why)) => Some(why),
        _ => None,
    };
    let unapplied = decisions
        .iter()
        .filter(|d| d.flux.first().is_some_and(|f| f.unapplied))
        .count();
    if unapplied > 0 {
        notes.push(format!(
            "{unapplied} of {} Pactos are in no Kustomization's inventory: Flux gates nothing for them",
            decisions.len()
        ));
    }
    // The recommended Flux gate stands in for every Pacto or for none (the Kustomizations were
    // not read at all, or came from a file).
    let flux = decisions.iter().find_map(|d| match d.flux.first() {
        Some(f) if f.unapplied => None,
        Some(FluxDecision {
            source: Source::Recommended(why),
            ..
        }) => Some(why),
        _ => None,
    });
    // One line when both sides stand in: the note is read on every run.
    match (argo, flux) {
        (Some(a), Some(f)) => notes.insert(
            0,
            format!("GATE is the recommended gate on both sides (Argo CD: {a}; Flux: {f})"),
        ),
        (Some(a), None) => notes.insert(
            0,
            format!("the Argo CD side of GATE is the recommended gate: {a}"),
        ),
        (None, Some(f)) => notes.push(format!(
            "the Flux side of GATE is the recommended gate: {f}"
        )),
        (None, None) => {}
    }
    notes
}

/// Evaluates both sides on one object.
pub fn decide(argo: &ArgoGate, flux: &FluxGate, obj: &Value) -> Decision {
    let gvk = crate::k8s::gvk_of(obj);
    let meta = |k: &str| {
        obj.pointer(&format!("/metadata/{k}"))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let (ns, name) = (meta("namespace"), meta("name"));
    let judge = |fk: &FluxKustomization, label: String, source: Source| {
        let k = &fk.kustomization;
        let has_expression = fk.selector.select(&gvk.group, &gvk.kind).is_some();
        FluxDecision {
            kustomization: label,
            source,
            verdict: fk.engine.as_ref().map(|e| e.evaluate(obj)),
            waits: fk.waits_for(ns, name, &gvk.group, &gvk.kind),
            has_expression,
            verdict_blind: !has_expression && gvk.group == super::GROUP && gvk.kind == super::KIND,
            timeout: crate::k8s::duration::go_duration(crate::flux::wait::timeout(k)),
            unapplied: false,
            error: fk.error.clone(),
        }
    };
    let mut decisions: Vec<FluxDecision> = flux
        .kustomizations
        .iter()
        .filter(|fk| fk.holds(ns, name, &gvk.group, &gvk.kind))
        .map(|fk| {
            let k = &fk.kustomization;
            let label = format!("{}/{}", k.namespace, k.name);
            let source = Source::Configured(format!("{} {label}", k.kind));
            judge(fk, label, source)
        })
        .collect();
    if decisions.is_empty() {
        let (fk, why) = &flux.recommended;
        let mut d = judge(
            fk,
            "recommended".to_string(),
            Source::Recommended(why.clone()),
        );
        if flux.complete {
            d.waits = false;
            d.unapplied = true;
        }
        decisions.push(d);
    }
    Decision {
        argo: argo.engine.as_ref().map(|e| e.evaluate(obj)),
        argo_source: argo.source.clone(),
        argo_load_error: argo.load_error.clone(),
        flux: decisions,
    }
}

#[cfg(test)]
mod decisions;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pacto(status: &str) -> Value {
        json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
               "metadata": {"name": "orders", "namespace": "shop", "generation": 1},
               "status": {"contractStatus": status, "observedGeneration": 1}})
    }

    /// `overall`: the stricter side decides; a side that gates nothing does not count. With the
    /// recommended Argo CD gate and no Flux gate (an empty FluxGate), the Argo side alone decides:
    /// Compliant passes, NonCompliant fails, no status holds (the script of "GitOps promotion
    /// gates").
    #[test]
    fn overall_is_the_stricter_side_and_none_does_not_count() {
        let argo = ArgoGate::recommended("test", false, 0);
        let no_flux = FluxGate {
            kustomizations: Vec::new(),
            ..FluxGate::recommended("test", false, 0)
        };
        for (status, argo_word, overall) in [
            ("Compliant", "pass", GateWord::Pass),
            ("NonCompliant", "fail", GateWord::Fail),
        ] {
            let d = decide(&argo, &no_flux, &pacto(status));
            assert_eq!(d.argo_outcome().as_str(), argo_word, "{status}");
            assert_eq!(d.overall(), overall, "{status}");
        }
        let flux = FluxGate::recommended("test", false, 0);
        let d = decide(&argo, &flux, &pacto("NonCompliant"));
        assert_eq!(d.overall(), GateWord::Fail);
        let both_pass = decide(&argo, &flux, &pacto("Compliant"));
        assert_eq!(both_pass.overall(), GateWord::Pass);
    }

    #[test]
    fn the_recommended_gate_loads_and_the_warning_knob_flips_both_sides() {
        let (a, f) = (
            ArgoGate::recommended("test", false, 0),
            FluxGate::recommended("test", false, 0),
        );
        let d = decide(&a, &f, &pacto("Warning"));
        assert_eq!(
            d.argo.as_ref().unwrap().health.as_ref().unwrap().status,
            "Healthy"
        );
        assert_eq!(d.gate_word(), "pass");
        let (a, f) = (
            ArgoGate::recommended("test", true, 0),
            FluxGate::recommended("test", true, 0),
        );
        let d = decide(&a, &f, &pacto("Warning"));
        assert_eq!(
            d.argo.as_ref().unwrap().health.as_ref().unwrap().status,
            "Degraded"
        );
        assert_eq!(
            d.flux[0].verdict.as_ref().unwrap().status.as_str(),
            "Failed"
        );
        assert_eq!(d.gate_word(), "fail");
    }

    /// A Kustomization `ns/name` holding `shop/orders`, with the recommended expressions
    /// (`exprs`) or none, waiting or not.
    fn holding(name: &str, exprs: bool, wait: bool, warning_blocks: bool) -> FluxKustomization {
        let mut k = crate::pacto::recommended::kustomization_object(warning_blocks);
        k["metadata"] = json!({"name": name, "namespace": "flux-system"});
        k["spec"]["wait"] = json!(wait);
        if !exprs {
            k["spec"]
                .as_object_mut()
                .unwrap()
                .remove("healthCheckExprs");
        }
        k["status"] = json!({"inventory": {"entries": [
            {"id": "shop_orders_pacto.trianalab.io_Pacto", "v": "v1alpha1"}]}});
        FluxKustomization::new(&k, true, 0).unwrap()
    }

    /// How the sides combine. Each Kustomization that waits for the object gates it on its own,
    /// so the Flux side is the strictest of them; the overall word is the stricter side, and a
    /// side that gates nothing (`none`) does not count. The per-side words follow the mapping
    /// tables of "GitOps promotion gates": Compliant is Healthy / Current (pass), NonCompliant
    /// Degraded / Failed (fail), Warning passes unless warnings block, an unobserved
    /// generation is Progressing / InProgress (hold); a Kustomization without an expression
    /// judges by kstatus, which reads the Pacto Current whatever its verdict (no gate), and one
    /// with `wait: false` waits for nothing.
    #[test]
    fn the_flux_side_is_its_strictest_kustomization_and_overall_the_stricter_side() {
        let empty_cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "argocd-cm"}, "data": {}});
        // (contractStatus, observed behind, Argo side, Kustomizations (exprs, wait), warnings
        // block on Flux) => (argo, flux, overall)
        type Row = (
            &'static str,
            bool,
            Option<bool>,
            &'static [(bool, bool)],
            bool,
        );
        let rows: &[(Row, [GateWord; 3])] = &[
            // The gated Kustomization fails it; the blind one and the one not waiting gate
            // nothing: the strictest Flux word is fail, whatever the order.
            (
                (
                    "NonCompliant",
                    false,
                    None,
                    &[(false, true), (true, true)],
                    false,
                ),
                [GateWord::None, GateWord::Fail, GateWord::Fail],
            ),
            (
                (
                    "NonCompliant",
                    false,
                    None,
                    &[(true, true), (true, false)],
                    false,
                ),
                [GateWord::None, GateWord::Fail, GateWord::Fail],
            ),
            (
                (
                    "Compliant",
                    false,
                    Some(false),
                    &[(true, true), (false, true)],
                    false,
                ),
                [GateWord::Pass, GateWord::Pass, GateWord::Pass],
            ),
            // Argo fails it and Flux waits for nothing: fail.
            (
                ("NonCompliant", false, Some(false), &[(false, false)], false),
                [GateWord::Fail, GateWord::None, GateWord::Fail],
            ),
            // Warning: Argo passes it, Flux with warnings blocking fails it: fail.
            (
                ("Warning", false, Some(false), &[(true, true)], true),
                [GateWord::Pass, GateWord::Fail, GateWord::Fail],
            ),
            // Warning: Argo blocks it (fail), Flux passes it: fail.
            (
                ("Warning", false, Some(true), &[(true, true)], false),
                [GateWord::Fail, GateWord::Pass, GateWord::Fail],
            ),
            // An unobserved generation holds on both sides; against a pass on the other side, and
            // with Argo gating nothing, the hold wins.
            (
                (
                    "Compliant",
                    true,
                    None,
                    &[(true, true), (false, true)],
                    false,
                ),
                [GateWord::None, GateWord::Hold, GateWord::Hold],
            ),
            (
                ("Compliant", true, Some(false), &[(false, false)], false),
                [GateWord::Hold, GateWord::None, GateWord::Hold],
            ),
            // Nothing gates: none.
            (
                (
                    "NonCompliant",
                    false,
                    None,
                    &[(false, false), (false, true)],
                    false,
                ),
                [GateWord::None, GateWord::None, GateWord::None],
            ),
        ];
        for ((status, behind, argo_side, ks, flux_warning_blocks), want) in rows {
            let argo = match argo_side {
                None => ArgoGate::from_configmap(&empty_cm, "argocd-cm argocd/argocd-cm", 0),
                Some(warning_blocks) => ArgoGate::recommended("test", *warning_blocks, 0),
            };
            let flux = FluxGate {
                kustomizations: ks
                    .iter()
                    .enumerate()
                    .map(|(i, (exprs, wait))| {
                        holding(&format!("k{i}"), *exprs, *wait, *flux_warning_blocks)
                    })
                    .collect(),
                complete: true,
                ..FluxGate::recommended("test", false, 0)
            };
            let mut obj = pacto(status);
            if *behind {
                obj["metadata"]["generation"] = json!(2);
            }
            let d = decide(&argo, &flux, &obj);
            let got = [d.argo_outcome(), d.flux_outcome(), d.overall()];
            assert_eq!(
                &got, want,
                "{status} behind={behind} argo={argo_side:?} {ks:?}"
            );
            // The GATE column: one word when the sides agree, else both.
            let column = if want[0] == want[1] {
                want[0].as_str().to_string()
            } else {
                format!("argo:{} flux:{}", want[0].as_str(), want[1].as_str())
            };
            assert_eq!(d.gate_word(), column, "{status} {ks:?}");
        }
    }

    /// `overall()` over each of the twelve ordered pairs of sides that disagree: the stricter
    /// word (fail over hold over pass) decides and `none` never does. The sides' words come from
    /// the mapping tables of "GitOps promotion gates" (an absent observedGeneration: Argo CD
    /// Progressing, Flux skips its generation guard; an unobserved generation holds both) and
    /// from kustomize-controller (expressions that do not compile stall the Kustomization: a
    /// hold).
    #[test]
    fn overall_over_every_pair_of_disagreeing_sides() {
        use GateWord::{Fail, Hold, None as No, Pass};
        let empty_cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "argocd-cm"}, "data": {}});
        let kustomization = |what: &str| {
            let k = match what {
                "gated" => holding("k", true, true, false),
                "gated, warnings block" => holding("k", true, true, true),
                "blind" => holding("k", false, true, false),
                "idle" => holding("k", false, false, false),
                "broken" => {
                    let mut k = crate::pacto::recommended::kustomization_object(false);
                    k["metadata"] = json!({"name": "k", "namespace": "flux-system"});
                    k["spec"]["healthCheckExprs"][0]["current"] = json!("status.contractStatus ==");
                    k["status"] = json!({"inventory": {"entries": [
                        {"id": "shop_orders_pacto.trianalab.io_Pacto", "v": "v1alpha1"}]}});
                    FluxKustomization::new(&k, true, 0).unwrap()
                }
                other => panic!("{other}"),
            };
            FluxGate {
                kustomizations: vec![k],
                complete: true,
                ..FluxGate::recommended("test", false, 0)
            }
        };
        // (contractStatus, observedGeneration: current | behind | absent, Argo CD: none |
        // recommended | warnings block, the Kustomization) => [argo, flux, overall]
        let rows = [
            (
                ("Compliant", "current", "recommended", "blind"),
                [Pass, No, Pass],
            ),
            (("Compliant", "current", "none", "gated"), [No, Pass, Pass]),
            (
                ("Compliant", "current", "recommended", "broken"),
                [Pass, Hold, Hold],
            ),
            (
                ("Compliant", "absent", "recommended", "gated"),
                [Hold, Pass, Hold],
            ),
            (
                ("Warning", "current", "recommended", "gated, warnings block"),
                [Pass, Fail, Fail],
            ),
            (
                ("Warning", "current", "warnings block", "gated"),
                [Fail, Pass, Fail],
            ),
            (
                ("Compliant", "behind", "recommended", "idle"),
                [Hold, No, Hold],
            ),
            (("Compliant", "behind", "none", "gated"), [No, Hold, Hold]),
            (
                ("NonCompliant", "absent", "recommended", "gated"),
                [Hold, Fail, Fail],
            ),
            (
                ("NonCompliant", "current", "recommended", "broken"),
                [Fail, Hold, Fail],
            ),
            (
                ("NonCompliant", "current", "recommended", "idle"),
                [Fail, No, Fail],
            ),
            (
                ("NonCompliant", "current", "none", "gated"),
                [No, Fail, Fail],
            ),
        ];
        let mut pairs = std::collections::BTreeSet::new();
        for ((status, observed, argo_side, k), want) in rows {
            let argo = match argo_side {
                "none" => ArgoGate::from_configmap(&empty_cm, "argocd-cm argocd/argocd-cm", 0),
                "recommended" => ArgoGate::recommended("test", false, 0),
                _ => ArgoGate::recommended("test", true, 0),
            };
            let mut obj = pacto(status);
            match observed {
                "behind" => obj["metadata"]["generation"] = json!(2),
                "absent" => {
                    obj["status"]
                        .as_object_mut()
                        .unwrap()
                        .remove("observedGeneration");
                }
                _ => {}
            }
            let d = decide(&argo, &kustomization(k), &obj);
            let got = [d.argo_outcome(), d.flux_outcome(), d.overall()];
            assert_eq!(got, want, "{status} {observed} argo={argo_side} flux={k}");
            pairs.insert((want[0], want[1]));
        }
        // Every ordered pair of two different words.
        assert_eq!(pairs.len(), 12);
        assert!(pairs.iter().all(|(a, f)| a != f));
    }

    #[test]
    fn a_kustomization_holds_only_what_its_inventory_lists() {
        let k = json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": "apps", "namespace": "flux-system"},
            "spec": {"wait": true},
            "status": {"inventory": {"entries": [
                {"id": "shop_orders_pacto.trianalab.io_Pacto", "v": "v1alpha1"}]}}});
        let fk = FluxKustomization::new(&k, true, 0).unwrap();
        assert!(fk.holds("shop", "orders", "pacto.trianalab.io", "Pacto"));
        assert!(!fk.holds("shop", "billing", "pacto.trianalab.io", "Pacto"));
        let flux = FluxGate {
            kustomizations: vec![fk],
            ..FluxGate::recommended("none", false, 0)
        };
        let argo = ArgoGate::from_configmap(
            &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "argocd-cm"}, "data": {}}),
            "argocd-cm argocd/argocd-cm",
            0,
        );
        // Held by a Kustomization without an expression: kstatus reads it Current; Argo has no
        // check: the gate gates nothing even though the verdict is NonCompliant.
        let d = decide(&argo, &flux, &pacto("NonCompliant"));
        assert_eq!(d.flux[0].kustomization, "flux-system/apps");
        assert!(!d.flux[0].has_expression);
        assert_eq!(
            d.flux[0].verdict.as_ref().unwrap().status.as_str(),
            "Current"
        );
        assert_eq!(d.argo_outcome(), GateWord::None);
        assert!(d.flux[0].verdict_blind);
        assert_eq!(d.gate_word(), "none");
        // Not in the inventory: the recommended gate answers.
        let mut other = pacto("NonCompliant");
        other["metadata"]["name"] = json!("billing");
        let d = decide(&argo, &flux, &other);
        assert_eq!(d.flux[0].kustomization, "recommended");
        assert_eq!(d.flux_outcome(), GateWord::Fail);
    }
}
