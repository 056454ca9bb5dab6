//! `Ready`: can the Stage promote? ("Delivery reference: setup and gates", sections "Set up a
//! Stage" and "What only break-glass may change"). It cannot when its candidates are unverified
//! (`CandidateUnverified`: the candidate OCIRepository has no `spec.verify`, or neither a
//! `secretRef` nor a `matchOIDCIdentity`, or an identity that names no one), cannot be found
//! (`CandidateNotFound`), are not configured (`NoCandidateSource`), or come from an upstream Stage
//! whose offers cannot be trusted (`UpstreamUntrusted`); or when the apply OCIRepository lacks the
//! label naming this Stage, so the promoter may not write its digest (`ApplierUnlabelled`).
//!
//! `UpstreamUntrusted` is decided by the document's rule that "a downstream Stage takes only what
//! its upstream lists in status.offered: versions that passed the published gate and were verified
//! there": an upstream that serves another service, that is this Stage itself or leads back to it,
//! or that cannot verify its own candidates offers nothing this Stage can trust.

use super::condition::{Failure, Rule};
use super::mediated::label_field;
use super::view::{NamespacedName, StageView};
use super::world::{Trust, World};
use super::APPLY_REF_LABEL;

/// The reasons of `Ready=False`, in the order "Delivery reference: setup and gates" gives them
/// ("Ready False with the reason CandidateUnverified, CandidateNotFound, NoCandidateSource or
/// UpstreamUntrusted", then ApplierUnlabelled); the first failing one is the condition's reason.
pub const ORDER: [&str; 5] = [
    "CandidateUnverified",
    "CandidateNotFound",
    "NoCandidateSource",
    "UpstreamUntrusted",
    "ApplierUnlabelled",
];

/// How many upstream references a chain is followed through by default (`--max-upstream-depth`):
/// the Stages further down are `UpstreamUntrusted`, the one where the chain passes the bound
/// says so.
pub const DEFAULT_MAX_UPSTREAM_DEPTH: usize = 256;

/// What the candidate rules of a Stage know of its upstream Stage.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Upstream<'t> {
    /// It names none, or one that is not listed (missing, unreadable, or no name).
    NotListed,
    /// Its chain of upstream references leads back to it.
    OnLoop,
    /// The upstream Stage listed, judged ([`World::trust`]).
    Judged(&'t Trust),
}

/// The failures, the rules with their verdicts, and what could not be decided.
pub fn check(stage: &StageView, world: &World) -> (Vec<Failure>, Vec<Rule>, Vec<String>) {
    let mut failures = Vec::new();
    let mut undecided = Vec::new();
    let mut rules = Vec::new();
    let held: Trust;
    let listed = stage
        .upstream_stage
        .filter(|u| !u.name.is_empty())
        .and_then(|u| world.stage_at(u.namespace, u.name));
    let upstream = match listed {
        None => Upstream::NotListed,
        Some(up) => {
            // The Stage as the world holds it, if it is that Stage: on a loop when its chain
            // leads back to it.
            let me = world
                .stage_at(stage.this.namespace, stage.this.name)
                .filter(|&i| world.stages[i].upstream_stage == stage.upstream_stage);
            if me.is_some_and(|i| world.trust(i).on_cycle) {
                Upstream::OnLoop
            } else {
                held = world.trust(up);
                Upstream::Judged(&held)
            }
        }
    };
    let candidates = candidate_rules(stage, world, upstream, &mut failures, &mut undecided);
    rules.push(Rule {
        condition: "Ready",
        reason: "CandidateUnverified",
        asks: "the Stage takes candidates from one source it can trust: a candidate OCIRepository whose spec.verify names the publisher, or an upstream Stage's status.offered".to_string(),
        verdict: candidates,
    });
    let labelled = apply_label_rule(stage, world, &mut failures, &mut undecided);
    rules.push(Rule {
        condition: "Ready",
        reason: "ApplierUnlabelled",
        asks: format!(
            "the apply OCIRepository carries {APPLY_REF_LABEL}={}, so the promoter may write its digest",
            stage.this.name
        ),
        verdict: labelled,
    });
    (failures, rules, undecided)
}

/// The [`Trust`] of `stage` for the Stages downstream of it, from what its upstream comes to.
pub(crate) fn trust_of(stage: &StageView, world: &World, upstream: Upstream) -> Trust {
    let mut failures = Vec::new();
    let mut undecided = Vec::new();
    let verdict = candidate_rules(stage, world, upstream, &mut failures, &mut undecided);
    let reason = ORDER
        .iter()
        .find(|r| failures.iter().any(|f| f.reason == **r))
        .copied()
        .unwrap_or("");
    let depth = match upstream {
        Upstream::Judged(t) => t.depth.saturating_add(1),
        Upstream::OnLoop => 0,
        Upstream::NotListed => usize::from(stage.upstream_stage.is_some()),
    };
    Trust {
        verdict,
        reason,
        undecided,
        depth,
        on_cycle: matches!(upstream, Upstream::OnLoop),
    }
}

/// The candidate rules of `stage`, its upstream Stage as `upstream` says.
fn candidate_rules(
    stage: &StageView,
    world: &World,
    upstream: Upstream,
    failures: &mut Vec<Failure>,
    undecided: &mut Vec<String>,
) -> &'static str {
    let me = stage.this.describe();
    if let Some(up) = &stage.upstream_stage {
        return upstream_rules(stage, up, world, upstream, failures, undecided);
    }
    let Some(repo_ref) = &stage.candidate_repository else {
        let field = if stage.has_spec {
            "spec.candidates"
        } else {
            "spec"
        };
        failures.push(Failure::new("Ready", 
            "NoCandidateSource",
            me,
            field,
            format!("the Stage names no candidate source ({field} has neither upstreamStage nor ociRepositoryRef): it has nothing to promote"),
            "set spec.candidates.ociRepositoryRef to the candidate OCIRepository (a first Stage) or spec.candidates.upstreamStage to the Stage before it".to_string(),
        ));
        return "fail";
    };
    if repo_ref.name.is_empty() {
        failures.push(Failure::new(
            "Ready",
            "NoCandidateSource",
            me,
            "spec.candidates.ociRepositoryRef.name",
            "spec.candidates.ociRepositoryRef names no OCIRepository".to_string(),
            "set spec.candidates.ociRepositoryRef.name".to_string(),
        ));
        return "fail";
    }
    let repo = match world.repository(repo_ref.namespace, repo_ref.name) {
        Err(why) => {
            undecided.push(why.to_string());
            return "unknown";
        }
        Ok(None) => {
            failures.push(Failure::new("Ready", 
                "CandidateNotFound",
                me,
                "spec.candidates.ociRepositoryRef",
                format!("the candidate OCIRepository {}/{} does not exist", repo_ref.namespace, repo_ref.name),
                format!("create OCIRepository {}/{} following the deploy artifact's repository, with spec.verify naming the publisher, or fix the reference", repo_ref.namespace, repo_ref.name),
            ));
            return "fail";
        }
        Ok(Some(r)) => r,
    };
    let object = repo.this.describe();
    if !repo.has_verify {
        failures.push(Failure::new("Ready", 
            "CandidateUnverified",
            object.clone(),
            "spec.verify",
            format!("the candidate {object} has no spec.verify: Flux checks no signature, so nothing it lists is published"),
            "set spec.verify: {provider: cosign, secretRef: {name: <a Secret holding the publisher's public key>}} (or matchOIDCIdentity with the issuer and subject of publish.sign)".to_string(),
        ));
        return "fail";
    }
    if repo.verify_secret.is_empty() && repo.oidc_identities.is_empty() {
        failures.push(Failure::new("Ready", 
            "CandidateUnverified",
            object.clone(),
            "spec.verify",
            format!("the candidate {object} verifies with neither a secretRef nor a matchOIDCIdentity: Flux accepts a keyless signature from anyone, so the Stage promotes nothing"),
            "add spec.verify.secretRef (the publisher's public key) or spec.verify.matchOIDCIdentity with the anchored issuer and subject of publish.sign".to_string(),
        ));
        return "fail";
    }
    let mut verdict = "pass";
    for (i, (issuer, subject)) in repo.oidc_identities.iter().enumerate() {
        for (what, pattern) in [("issuer", issuer), ("subject", subject)] {
            if let Some(why) = world.identities.open_pattern(pattern) {
                verdict = "fail";
                failures.push(Failure::new("Ready", 
                    "CandidateUnverified",
                    object.clone(),
                    &format!("spec.verify.matchOIDCIdentity[{i}].{what}"),
                    format!("the candidate {object}'s matchOIDCIdentity[{i}].{what} {why}: Flux reads it as a regular expression, so it counts as no identity at all"),
                    format!("anchor the {what} as ^…$ and close it: name the exact {} of publish.sign", if what == "issuer" { "issuer URL" } else { "workflow and ref" }),
                ));
            }
        }
    }
    verdict
}

/// The candidate rules of a Stage that names an upstream Stage: the name is set, the chain is
/// no loop and not too long, the upstream is read, exists, serves the same service, and can
/// verify its own candidates. A message names the upstream and its reason, never the upstream's
/// own explanation (`explain` of the upstream gives that).
fn upstream_rules(
    stage: &StageView,
    up: &NamespacedName,
    world: &World,
    upstream: Upstream,
    failures: &mut Vec<Failure>,
    undecided: &mut Vec<String>,
) -> &'static str {
    let me = stage.this.describe();
    if up.name.is_empty() {
        failures.push(Failure::new(
            "Ready",
            "NoCandidateSource",
            me,
            "spec.candidates.upstreamStage.name",
            "spec.candidates.upstreamStage names no Stage".to_string(),
            "set spec.candidates.upstreamStage.name to the Stage before this one".to_string(),
        ));
        return "fail";
    }
    if let Upstream::OnLoop = upstream {
        failures.push(Failure::new("Ready",
            "UpstreamUntrusted",
            me.clone(),
            "spec.candidates.upstreamStage",
            format!("the upstream chain from {me} leads back to {me}: no version ever enters it"),
            "make the first Stage of the chain take its candidates from a candidate OCIRepository (spec.candidates.ociRepositoryRef)".to_string(),
        ));
        return "fail";
    }
    if let Upstream::Judged(t) = upstream {
        let max = world.max_upstream_depth;
        if t.depth == max {
            failures.push(Failure::new(
                "Ready",
                "UpstreamUntrusted",
                me.clone(),
                "spec.candidates.upstreamStage",
                format!("the upstream chain from {me} is longer than {max} Stage{}: not followed further", if max == 1 { "" } else { "s" }),
                "shorten the chain of upstream Stages (or give a larger --max-upstream-depth)".to_string(),
            ));
            return "fail";
        }
    }
    if let Some(why) = world.unreadable_stage(up.namespace, up.name) {
        undecided.push(format!(
            "the upstream Stage {}/{} could not be read: {why}",
            up.namespace, up.name
        ));
        return "unknown";
    }
    let (Some(upstream_stage), Upstream::Judged(trust)) =
        (world.stage(up.namespace, up.name), upstream)
    else {
        failures.push(Failure::new(
            "Ready",
            "CandidateNotFound",
            me,
            "spec.candidates.upstreamStage",
            format!(
                "the upstream Stage {}/{} does not exist",
                up.namespace, up.name
            ),
            format!(
                "create Stage {}/{} or fix spec.candidates.upstreamStage",
                up.namespace, up.name
            ),
        ));
        return "fail";
    };
    let them = upstream_stage.this.describe();
    if !upstream_stage.service.is_empty()
        && !stage.service.is_empty()
        && upstream_stage.service != stage.service
    {
        failures.push(Failure::new("Ready",
            "UpstreamUntrusted",
            me,
            "spec.candidates.upstreamStage",
            format!("the upstream {them} serves {:?}, this Stage {:?}: it offers another service's versions", upstream_stage.service, stage.service),
            "point spec.candidates.upstreamStage at the previous Stage of the same service".to_string(),
        ));
        return "fail";
    }
    // What the upstream offers was verified there only if its own candidates are trusted.
    match trust.verdict {
        "fail" => {
            let (ns, name) = (upstream_stage.this.namespace, upstream_stage.this.name);
            failures.push(Failure::new(
                "Ready",
                "UpstreamUntrusted",
                me,
                "spec.candidates.upstreamStage",
                format!(
                    "the upstream {them} cannot verify its own candidates: its Ready reason is {}",
                    trust.reason
                ),
                format!("fix the upstream {them} first (kubectl pacto explain stage/{name} -n {ns} says why)"),
            ));
            "fail"
        }
        "unknown" => {
            undecided.extend(trust.undecided.iter().cloned());
            "unknown"
        }
        v => v,
    }
}

fn apply_label_rule(
    stage: &StageView,
    world: &World,
    failures: &mut Vec<Failure>,
    undecided: &mut Vec<String>,
) -> &'static str {
    let (ns, name) = (&stage.this.namespace, &stage.this.name);
    if stage.apply_ref.is_empty() {
        failures.push(Failure::new(
            "Ready",
            "ApplierUnlabelled",
            stage.this.describe(),
            if stage.has_spec {
                "spec.applyRef.name"
            } else {
                "spec"
            },
            "the Stage names no apply OCIRepository: the promoter has no digest to write"
                .to_string(),
            "set spec.applyRef.name".to_string(),
        ));
        return "fail";
    }
    match world.repository(ns, stage.apply_ref) {
        Err(why) => {
            undecided.push(why.to_string());
            "unknown"
        }
        Ok(None) => {
            failures.push(Failure::new("Ready", 
                "ApplierUnlabelled",
                format!("OCIRepository {ns}/{}", stage.apply_ref),
                "spec.applyRef.name",
                format!("the apply OCIRepository {ns}/{} does not exist: the promoter has no digest to write", stage.apply_ref),
                format!("create OCIRepository {ns}/{} with the label {APPLY_REF_LABEL}={name}", stage.apply_ref),
            ));
            "fail"
        }
        Ok(Some(repo)) => match repo.apply_ref_label {
            Some(v) if v == *name => "pass",
            other => {
                let what = match other {
                    None => "does not carry the label".to_string(),
                    Some(v) => format!("names another Stage ({v:?})"),
                };
                failures.push(Failure::new("Ready", 
                    "ApplierUnlabelled",
                    repo.this.describe(),
                    &label_field(),
                    format!("the apply {} {what}: the promoter may not write its digest", repo.this.describe()),
                    format!("kubectl label ocirepository -n {ns} {} {APPLY_REF_LABEL}={name} --overwrite (only break-glass may change a labelled object)", repo.this.name),
                ));
                "fail"
            }
        },
    }
}
