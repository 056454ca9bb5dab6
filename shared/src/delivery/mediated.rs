//! `Mediated`: does the Stage's pointer alone decide what runs? ("Delivery reference: setup and
//! gates", section "What the pointer guarantees"). True when exactly one applier applies the apply
//! OCIRepository, both carry the `delivery.pacto.trianalab.io/apply-ref` label naming the Stage,
//! the OCIRepository sets no `spec.ignore`, and the applier cannot change what the version holds: a
//! Flux Kustomization sets a `serviceAccountName` and none of images, patches, components,
//! postBuild, namePrefix, nameSuffix, kubeConfig, suspend or decryption; an Argo CD Application has
//! one source and sets no Kustomize images, patches or components, Helm parameters, values or value
//! files, or plugin. Appliers (docs/design.md, "Pacto delivery: the settled names"): the
//! Kustomizations whose `spec.sourceRef` is the apply OCIRepository, and the Applications labelled
//! for the Stage whose destination namespace is the Stage's.

use super::condition::{Failure, Rule};
use super::view::{ApplicationView, KustomizationView, StageView};
use super::world::{Indexed, World};
use super::APPLY_REF_LABEL;

/// The reasons of `Mediated=False`, in the order "Delivery reference: setup and gates" lists them;
/// the first failing one is the condition's reason.
pub const ORDER: [&str; 7] = [
    "ApplyRefUnguarded",
    "NoApplier",
    "SeveralAppliers",
    "ApplierUnguarded",
    "ApplierUnscoped",
    "ApplierOverrides",
    "SeveralSources",
];

/// How many appliers a `SeveralAppliers` message names; past it, a count of the others.
pub const NAMED_APPLIERS: usize = 3;

/// How many of a Stage's appliers have their own rules checked when several apply its pointer
/// (`SeveralAppliers` already fails, and comes first): the first so many, in the order read, so
/// that N Stages sharing one apply OCIRepository with N appliers cost N, not N², failures.
pub const EXAMINED_APPLIERS: usize = 10;

/// `a, b, c and 7 more`: the first `cap` of `names`, and a count of the rest (`total` in all).
pub fn named_capped<I: IntoIterator<Item = String>>(names: I, total: usize, cap: usize) -> String {
    let shown: Vec<String> = names.into_iter().take(cap).collect();
    let more = total.saturating_sub(shown.len());
    if more == 0 {
        shown.join(", ")
    } else {
        format!("{} and {more} more", shown.join(", "))
    }
}

/// The label field, as a path.
pub fn label_field() -> String {
    format!("metadata.labels[\"{APPLY_REF_LABEL}\"]")
}

/// One applier of a Stage.
#[derive(Debug, Clone, Copy)]
pub enum Applier<'w, 'a> {
    Flux(&'w KustomizationView<'a>),
    Argo(&'w ApplicationView<'a>),
}

impl Applier<'_, '_> {
    /// `Kustomization ns/name` or `Application ns/name`.
    pub fn describe(&self) -> String {
        match self {
            Applier::Flux(k) => k.this.describe(),
            Applier::Argo(a) => a.this.describe(),
        }
    }
}

/// The appliers of one Stage, borrowed from the world's index (nothing is collected: many
/// Stages may share one apply OCIRepository): the Kustomizations whose `spec.sourceRef` is the
/// apply OCIRepository, then the Applications labelled for the Stage that deploy to its
/// namespace, in the order read; and apart, the Kustomizations that name the repository without
/// a `sourceRef.kind` (Flux requires the kind: not appliers, named by the explanation).
#[derive(Debug, Clone, Copy)]
pub struct Appliers<'w, 'a> {
    flux: Indexed<'w, KustomizationView<'a>>,
    argo: Indexed<'w, ApplicationView<'a>>,
    kindless: Indexed<'w, KustomizationView<'a>>,
}

impl<'w, 'a> Appliers<'w, 'a> {
    /// How many.
    pub fn len(&self) -> usize {
        self.flux.len() + self.argo.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each, in order.
    pub fn iter(&self) -> impl Iterator<Item = Applier<'w, 'a>> + use<'w, 'a> {
        self.flux
            .iter()
            .map(Applier::Flux)
            .chain(self.argo.iter().map(Applier::Argo))
    }

    /// The Kustomizations that name the apply OCIRepository without a kind.
    pub fn kindless(&self) -> impl Iterator<Item = &'w KustomizationView<'a>> + use<'w, 'a> {
        self.kindless.iter()
    }
}

/// The appliers of `stage` ([`Appliers`]), or why they cannot be known, looked up in the
/// world's index (the Kustomizations by the OCIRepository their `spec.sourceRef` names, the
/// Applications by destination namespace and label).
pub fn appliers<'w, 'a>(
    stage: &StageView,
    world: &'w World<'a>,
) -> Result<Appliers<'w, 'a>, String> {
    let ns = stage.this.namespace;
    let (flux, kindless) = world
        .kustomizations_of(ns, stage.apply_ref)
        .map_err(str::to_string)?;
    let argo = world
        .applications_of(ns, stage.this.name)
        .map_err(str::to_string)?;
    Ok(Appliers {
        flux,
        argo,
        kindless,
    })
}

/// The failures, the rules with their verdicts, and what could not be decided.
pub fn check(stage: &StageView, world: &World) -> (Vec<Failure>, Vec<Rule>, Vec<String>) {
    let mut failures = Vec::new();
    let mut undecided = Vec::new();
    let name = &stage.this.name;
    let ns = &stage.this.namespace;
    let label = label_field();
    let stage_ref = stage.this.describe();
    let mut verdicts: Vec<(&'static str, String, &'static str)> = Vec::new();

    // The apply OCIRepository and its label.
    let repo_rule = format!(
        "the apply OCIRepository (spec.applyRef.name) carries {APPLY_REF_LABEL}={name} and sets no spec.ignore"
    );
    if !stage.has_spec || stage.apply_ref.is_empty() {
        let field = if stage.has_spec {
            "spec.applyRef.name"
        } else {
            "spec"
        };
        failures.push(Failure::new("Mediated", 
            "ApplyRefUnguarded",
            stage_ref.clone(),
            field,
            format!("the Stage names no apply OCIRepository ({field} is empty): there is no pointer"),
            "set spec.applyRef.name to the OCIRepository, in the Stage's namespace, that Flux applies the environment from".to_string(),
        ));
        verdicts.push(("ApplyRefUnguarded", repo_rule, "fail"));
    } else {
        match world.repository(ns, stage.apply_ref) {
            Err(why) => {
                undecided.push(why.to_string());
                verdicts.push(("ApplyRefUnguarded", repo_rule, "unknown"));
            }
            Ok(None) => {
                failures.push(Failure::new("Mediated", 
                    "ApplyRefUnguarded",
                    format!("OCIRepository {ns}/{}", stage.apply_ref),
                    "spec.applyRef.name",
                    format!("the apply OCIRepository {ns}/{} does not exist", stage.apply_ref),
                    format!("create OCIRepository {ns}/{} with the label {APPLY_REF_LABEL}={name} (creating a labelled object is for break-glass or the GitOps users)", stage.apply_ref),
                ));
                verdicts.push(("ApplyRefUnguarded", repo_rule, "fail"));
            }
            Ok(Some(repo)) => {
                let mut ok = true;
                match repo.apply_ref_label {
                    Some(v) if v == *name => {}
                    other => {
                        ok = false;
                        let what = match other {
                            None => "does not carry the label".to_string(),
                            Some(v) => format!("names another Stage ({v:?})"),
                        };
                        failures.push(Failure::new("Mediated", 
                            "ApplyRefUnguarded",
                            repo.this.describe(),
                            &label,
                            format!("the apply {} {what}: admission does not keep others off its digest", repo.this.describe()),
                            format!("kubectl label ocirepository -n {ns} {} {APPLY_REF_LABEL}={name} --overwrite (only break-glass may change a labelled object)", repo.this.name),
                        ));
                    }
                }
                if repo.ignores {
                    ok = false;
                    failures.push(Failure::new("Mediated", 
                        "ApplierOverrides",
                        repo.this.describe(),
                        "spec.ignore",
                        format!("the apply {} sets spec.ignore: what applies is not the whole version the pointer names", repo.this.describe()),
                        "remove spec.ignore from the apply OCIRepository (only break-glass may change a labelled object)".to_string(),
                    ));
                }
                verdicts.push((
                    "ApplyRefUnguarded",
                    repo_rule,
                    if ok { "pass" } else { "fail" },
                ));
            }
        }
    }

    // The appliers.
    let count_rule =
        "exactly one Flux Kustomization or Argo CD Application applies the apply OCIRepository"
            .to_string();
    match appliers(stage, world) {
        // Without an apply OCIRepository there is nothing to apply: ApplyRefUnguarded says so.
        _ if stage.apply_ref.is_empty() => {
            verdicts.push(("NoApplier", count_rule, "unknown"));
        }
        Err(why) => {
            undecided.push(why);
            verdicts.push(("NoApplier", count_rule, "unknown"));
        }
        Ok(found) => {
            match found.len() {
                0 => {
                    failures.push(Failure::new("Mediated", 
                        "NoApplier",
                        stage_ref.clone(),
                        "spec.applyRef.name",
                        format!("no Kustomization has spec.sourceRef OCIRepository {ns}/{} and no Application labelled {APPLY_REF_LABEL}={name} deploys to namespace {ns}: nothing applies the pointer", stage.apply_ref),
                        format!("point one Flux Kustomization's spec.sourceRef at OCIRepository {ns}/{} (or label one Argo CD Application {APPLY_REF_LABEL}={name})", stage.apply_ref),
                    ));
                    verdicts.push(("NoApplier", count_rule, "fail"));
                }
                1 => verdicts.push(("NoApplier", count_rule, "pass")),
                _ => {
                    let names = named_capped(
                        found.iter().map(|a| a.describe()),
                        found.len(),
                        NAMED_APPLIERS,
                    );
                    let examined = if found.len() > EXAMINED_APPLIERS {
                        format!(" (the rules of the first {EXAMINED_APPLIERS} are checked below)")
                    } else {
                        String::new()
                    };
                    failures.push(Failure::new("Mediated", 
                        "SeveralAppliers",
                        stage_ref.clone(),
                        "spec.applyRef.name",
                        format!("{} appliers apply the pointer ({names}): each can apply it differently{examined}", found.len()),
                        "keep one applier; remove the apply-ref label from the others or point them elsewhere".to_string(),
                    ));
                    verdicts.push(("SeveralAppliers", count_rule, "fail"));
                }
            }
            let before = failures.len();
            for a in found.iter().take(EXAMINED_APPLIERS) {
                applier_rules(&a, stage, &mut failures);
            }
            let ok = failures.len() == before;
            let unexamined = found.len() > EXAMINED_APPLIERS;
            verdicts.push((
                "ApplierUnguarded",
                format!("every applier carries {APPLY_REF_LABEL}={name}, is scoped to a service account, overrides nothing and has one source"),
                if found.is_empty() || (ok && unexamined) {
                    "unknown"
                } else if ok {
                    "pass"
                } else {
                    "fail"
                },
            ));
        }
    }

    let rules = verdicts
        .into_iter()
        .map(|(reason, asks, verdict)| Rule {
            condition: "Mediated",
            reason,
            asks,
            verdict,
        })
        .collect();
    (failures, rules, undecided)
}

fn applier_rules(a: &Applier, stage: &StageView, failures: &mut Vec<Failure>) {
    let name = &stage.this.name;
    let label = label_field();
    match a {
        Applier::Flux(k) => {
            if k.apply_ref_label != Some(*name) {
                failures.push(Failure::new("Mediated", 
                    "ApplierUnguarded",
                    k.this.describe(),
                    &label,
                    format!("{} does not carry {APPLY_REF_LABEL}={name}: admission does not keep its sourceRef, path and overrides fixed", k.this.describe()),
                    format!("kubectl label kustomization -n {} {} {APPLY_REF_LABEL}={name} --overwrite (only break-glass may change a labelled object)", k.this.namespace, k.this.name),
                ));
            }
            if k.service_account.is_empty() {
                failures.push(Failure::new("Mediated", 
                    "ApplierUnscoped",
                    k.this.describe(),
                    "spec.serviceAccountName",
                    format!("{} sets no serviceAccountName: Flux applies each version as kustomize-controller (cluster-admin in a default install), so a version whose contract did not change could ship a ClusterRoleBinding", k.this.describe()),
                    "set spec.serviceAccountName to a namespaced deployer account (pacto init --delivery writes one per environment)".to_string(),
                ));
            }
            for f in &k.overrides {
                failures.push(Failure::new("Mediated", 
                    "ApplierOverrides",
                    k.this.describe(),
                    &format!("spec.{f}"),
                    format!("{} sets spec.{f}: it changes what runs beside the pointer", k.this.describe()),
                    format!("remove spec.{f} from the Kustomization (only break-glass may change a labelled object); put the change in the version instead"),
                ));
            }
        }
        Applier::Argo(app) => {
            if app.sources > 1 {
                failures.push(Failure::new(
                    "Mediated",
                    "SeveralSources",
                    app.this.describe(),
                    "spec.sources",
                    format!(
                        "{} has {} sources: the others decide what runs beside the pointer",
                        app.this.describe(),
                        app.sources
                    ),
                    "give the Application the one source the pointer names (spec.source)"
                        .to_string(),
                ));
            }
            for f in &app.overrides {
                failures.push(Failure::new("Mediated", 
                    "ApplierOverrides",
                    app.this.describe(),
                    f,
                    format!("{} sets {f}: it changes what runs beside the pointer", app.this.describe()),
                    format!("remove {f} from the Application (only break-glass may change a labelled object); put the change in the version instead"),
                ));
            }
        }
    }
}
