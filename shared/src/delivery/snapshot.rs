//! What a Stage's conditions are computed from: every Stage, and each kind a Stage depends on
//! ([`crate::kinds::STAGE_DEPENDENCIES`]) as read, once. From a cluster each kind is one list
//! (a kind the cluster does not serve is `None`: nothing of it exists); from files
//! ([`Snapshot::from_objects`]) every kind counts as read, holding the files' objects of it.
//!
//! A command that shows the Stages of one namespace reads only what they are judged on
//! ([`reads`], [`missing_upstreams`]): the Stages their upstream references name, and each kind
//! in the namespaces the Stages and their references name; what it could not read there is a
//! [`Partial`].

use super::view::{NamespacedName, StageView};
use crate::kinds::{APPLICATION, KUSTOMIZATION, OCI_REPOSITORY, STAGE};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// A list of objects of one kind as read: `None` when the kind is not installed in the cluster
/// (no such API: nothing of it exists), `Some(Err(why))` when it could not be read (forbidden,
/// failed), else the objects.
pub type ListedObjects = Option<Result<Vec<Value>, String>>;

/// Everything a Stage's conditions depend on, each kind read once.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// Every Stage (for upstream Stages).
    pub stages: Vec<Value>,
    /// Flux OCIRepositories (apply and candidate repositories).
    pub oci_repositories: ListedObjects,
    /// Flux Kustomizations.
    pub kustomizations: ListedObjects,
    /// Argo CD Applications.
    pub applications: ListedObjects,
}

impl Snapshot {
    /// The snapshot of objects read from files: the Stages among them, and for each kind a
    /// Stage depends on, the objects of that kind (a kind the files lack counts as read and
    /// empty: nothing of it was given). Objects of other kinds are left out.
    pub fn from_objects(all: &[Value]) -> Snapshot {
        Snapshot {
            stages: STAGE.select(all),
            oci_repositories: Some(Ok(OCI_REPOSITORY.select(all))),
            kustomizations: Some(Ok(KUSTOMIZATION.select(all))),
            applications: Some(Ok(APPLICATION.select(all))),
        }
    }

    /// [`Snapshot::from_objects`] of objects it takes over: each object is moved into its
    /// kind's list, none is copied.
    pub fn from_values(all: Vec<Value>) -> Snapshot {
        let (mut stages, mut repositories, mut kustomizations, mut applications) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for o in all {
            if STAGE.is(&o) {
                stages.push(o);
            } else if OCI_REPOSITORY.is(&o) {
                repositories.push(o);
            } else if KUSTOMIZATION.is(&o) {
                kustomizations.push(o);
            } else if APPLICATION.is(&o) {
                applications.push(o);
            }
        }
        Snapshot {
            stages,
            oci_repositories: Some(Ok(repositories)),
            kustomizations: Some(Ok(kustomizations)),
            applications: Some(Ok(applications)),
        }
    }
}

/// The namespaces each kind a Stage depends on is read in, when only the Stages of some
/// namespaces are judged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reads {
    /// The Stages' namespaces (their apply OCIRepositories) and the namespaces their
    /// `spec.candidates.ociRepositoryRef`, and those of every Stage up their upstream chains,
    /// name.
    pub oci_repositories: BTreeSet<String>,
    /// The Stages' namespaces: the Kustomizations there that apply the apply OCIRepository.
    pub kustomizations: BTreeSet<String>,
    /// The Stages' namespaces and Argo CD's (where Argo CD keeps its Applications; in others
    /// when it watches Applications in any namespace).
    pub applications: BTreeSet<String>,
}

/// `known` by namespace and name (the last of a name wins, as [`super::World`] reads them).
fn by_name<'k, 'a>(known: &'k [StageView<'a>]) -> HashMap<(&'a str, &'a str), &'k StageView<'a>> {
    known
        .iter()
        .map(|k| ((k.this.namespace, k.this.name), k))
        .collect()
}

/// What the rules of `shown` read ([`Reads`]): their upstream chains are followed through
/// `known` (the Stages read so far), as [`super::ready`] follows them (through `max_depth`
/// references), as far as they are known.
pub fn reads(
    shown: &[StageView],
    known: &[StageView],
    argocd_namespace: &str,
    max_depth: usize,
) -> Reads {
    let mut r = Reads::default();
    let known = by_name(known);
    for s in shown {
        let ns = s.this.namespace;
        r.oci_repositories.insert(ns.to_string());
        r.kustomizations.insert(ns.to_string());
        r.applications.insert(ns.to_string());
        // A Stage with an upstream takes its candidates from there; the first of the chain
        // from its candidate OCIRepository.
        for up in chain(s, &known, max_depth) {
            if let (None, Some(repo)) = (&up.upstream_stage, &up.candidate_repository) {
                r.oci_repositories.insert(repo.namespace.to_string());
            }
        }
    }
    r.applications.insert(argocd_namespace.to_string());
    r
}

/// `stage` and the Stages up its upstream chain that `known` holds, as far as the chain is
/// known, without a loop and no longer than the rules follow it.
fn chain<'k, 'a>(
    stage: &'k StageView<'a>,
    known: &HashMap<(&'a str, &'a str), &'k StageView<'a>>,
    max_depth: usize,
) -> Vec<&'k StageView<'a>> {
    let mut out = vec![stage];
    let mut seen = HashSet::from([(stage.this.namespace, stage.this.name)]);
    let mut cur = stage;
    while out.len() <= max_depth {
        let Some(up) = &cur.upstream_stage else { break };
        if !seen.insert((up.namespace, up.name)) {
            break;
        }
        let Some(&next) = known.get(&(up.namespace, up.name)) else {
            break;
        };
        out.push(next);
        cur = next;
    }
    out
}

/// The upstream Stages the rules of `shown` need that are not read yet: named by a Stage of a
/// chain (followed through `max_depth` references), not in `known`, not in a namespace whose Stages were all `listed`, and not `tried`
/// already. Each is read on its own (one GET); the next call goes one Stage further.
pub fn missing_upstreams<'a>(
    shown: &[StageView<'a>],
    known: &[StageView<'a>],
    listed: &BTreeSet<String>,
    tried: &BTreeSet<(String, String)>,
    max_depth: usize,
) -> Vec<NamespacedName<'a>> {
    let mut out: Vec<NamespacedName<'a>> = Vec::new();
    let mut wanted: HashSet<NamespacedName<'a>> = HashSet::new();
    let known = by_name(known);
    for s in shown {
        let last = *chain(s, &known, max_depth).last().unwrap_or(&s);
        let Some(up) = last.upstream_stage else {
            continue;
        };
        let key = (up.namespace.to_string(), up.name.to_string());
        if known.contains_key(&(up.namespace, up.name))
            || up.name.is_empty()
            || listed.contains(up.namespace)
            || tried.contains(&key)
            || !wanted.insert(up)
        {
            continue;
        }
        out.push(up);
    }
    out
}

/// What a read of only some namespaces left unknown, for [`super::World::read_in`]: for each
/// kind a Stage depends on, the namespaces read, each with why it could not be (None: read);
/// and the Stages an upstream reference names that could not be read, with why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Partial {
    pub oci_repositories: BTreeMap<String, Option<String>>,
    pub kustomizations: BTreeMap<String, Option<String>>,
    pub applications: BTreeMap<String, Option<String>>,
    /// `(namespace, name, why)`.
    pub stages: Vec<(String, String, String)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    const DEPTH: usize = crate::delivery::ready::DEFAULT_MAX_UPSTREAM_DEPTH;
    use crate::delivery::{compute, StageView, World};
    use crate::testutil::docs;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn stage<'a>(all: &'a [Value], namespace: &str, name: &str) -> &'a Value {
        all.iter()
            .find(|o| {
                o["kind"] == json!("Stage")
                    && o["metadata"]["namespace"] == json!(namespace)
                    && o["metadata"]["name"] == json!(name)
            })
            .expect("the base holds the Stage")
    }

    /// The two setups of "Delivery reference: setup and gates" ("Set up a Stage", "What the
    /// pointer guarantees") given as files, with objects of other kinds and of look-alike
    /// kinds mixed in: both Stages are Ready (Promotable) and Mediated (PointerDecides), as the
    /// reason table (`testdata/cases.yaml`) has them; and without the appliers' files the Flux
    /// Stage has no applier (Mediated False, NoApplier).
    #[test]
    fn a_snapshot_from_files_reads_what_a_stage_depends_on() {
        let mut all = docs(include_str!("testdata/base-flux.yaml"));
        all.extend(docs(include_str!("testdata/base-argo.yaml")));
        all.push(
            json!({"apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
            "metadata": {"name": "payments", "namespace": "test"}}),
        );
        // kustomize's own Kustomization (kustomization.yaml) is no Flux applier.
        all.push(
            json!({"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
            "metadata": {"name": "payments", "namespace": "test",
                "labels": {"delivery.pacto.trianalab.io/apply-ref": "payments"}}}),
        );
        let snapshot = Snapshot::from_objects(&all);
        assert_eq!(snapshot.stages.len(), 2);
        fn count(l: &ListedObjects) -> Option<Result<usize, &String>> {
            l.as_ref().map(|r| r.as_ref().map(Vec::len))
        }
        assert_eq!(
            count(&snapshot.oci_repositories),
            Some(Ok(all.iter().filter(|o| OCI_REPOSITORY.is(o)).count()))
        );
        assert_eq!(count(&snapshot.kustomizations), Some(Ok(1)));
        assert_eq!(count(&snapshot.applications), Some(Ok(1)));
        let world = World::new(&snapshot);
        for (namespace, name) in [("test", "payments"), ("shop", "orders")] {
            let c = compute(&StageView::new(stage(&all, namespace, name)), &world);
            assert_eq!(
                (c.ready.status, c.ready.reason.as_str()),
                ("True", "Promotable"),
                "{namespace}/{name}"
            );
            assert_eq!(
                (c.mediated.status, c.mediated.reason.as_str()),
                ("True", "PointerDecides"),
                "{namespace}/{name}"
            );
        }
        // Files without the Flux appliers: read, and empty.
        let flux_only: Vec<Value> = docs(include_str!("testdata/base-flux.yaml"))
            .into_iter()
            .filter(|o| !KUSTOMIZATION.is(o))
            .collect();
        let snapshot = Snapshot::from_objects(&flux_only);
        assert_eq!(count(&snapshot.kustomizations), Some(Ok(0)));
        let world = World::new(&snapshot);
        let c = compute(
            &StageView::new(stage(&flux_only, "test", "payments")),
            &world,
        );
        assert_eq!(
            (c.mediated.status, c.mediated.reason.as_str()),
            ("False", "NoApplier")
        );
    }

    /// A Stage of `prod` that takes its candidates from `test` (base-flux's Stage), which takes
    /// them from its candidate OCIRepository in `vendor`.
    fn chain_of_two() -> (Vec<Value>, StageView<'static>, StageView<'static>) {
        let mut all = docs(include_str!("testdata/base-flux.yaml"));
        all[0]["spec"]["candidates"] =
            json!({"ociRepositoryRef": {"name": "payments-candidates", "namespace": "vendor"}});
        let first = StageView::new(crate::testutil::kept(all[0].clone()));
        let next = json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Stage",
            "metadata": {"name": "payments", "namespace": "prod"},
            "spec": {"service": {"name": "payments"}, "applyRef": {"name": "payments"},
                "candidates": {"upstreamStage": {"name": "payments", "namespace": "test"}}}});
        let second = StageView::new(crate::testutil::kept(next));
        (all, first, second)
    }

    /// The rules of a Stage read its namespace's apply OCIRepository and appliers, Argo CD's
    /// Applications, and the candidate OCIRepository where the first Stage of its chain names
    /// it; the upstream Stages not read yet are asked for one step at a time.
    #[test]
    fn a_stage_reads_its_namespace_and_what_its_references_name() {
        let (_, first, second) = chain_of_two();
        let shown = std::slice::from_ref(&second);
        let prod = BTreeSet::from(["prod".to_string()]);
        let none = BTreeSet::new();
        let wanted = missing_upstreams(shown, shown, &prod, &none, DEPTH);
        assert_eq!(
            wanted,
            [NamespacedName {
                name: "payments",
                namespace: "test"
            }]
        );
        // Until it is read, the chain stops at the shown Stage.
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        let r = reads(shown, shown, "argocd", DEPTH);
        assert_eq!(r.oci_repositories, set(&["prod"]));
        assert_eq!(r.kustomizations, set(&["prod"]));
        assert_eq!(r.applications, set(&["argocd", "prod"]));
        let known = [second.clone(), first.clone()];
        assert!(missing_upstreams(shown, &known, &prod, &none, DEPTH).is_empty());
        let r = reads(shown, &known, "argocd", DEPTH);
        assert_eq!(r.oci_repositories, set(&["prod", "vendor"]));
        assert_eq!(r.kustomizations, set(&["prod"]));
        // An upstream in a namespace listed whole is known not to exist; one tried is not
        // asked for again.
        assert!(missing_upstreams(shown, shown, &set(&["prod", "test"]), &none, DEPTH).is_empty());
        let tried = BTreeSet::from([("test".to_string(), "payments".to_string())]);
        assert!(missing_upstreams(shown, shown, &prod, &tried, DEPTH).is_empty());
    }

    /// Read in some namespaces: a namespace whose list failed makes undecided the rules that
    /// look there, naming the kind, the namespace and why; an upstream Stage that could not be
    /// read likewise; the rest is decided.
    #[test]
    fn what_a_partial_read_could_not_know_is_undecided_there_only() {
        let (all, _, second) = chain_of_two();
        let mut snapshot = Snapshot::from_objects(&all);
        snapshot
            .stages
            .push(json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1",
            "kind": "Stage", "metadata": {"name": "payments", "namespace": "prod"},
            "spec": {"service": {"name": "payments"}, "applyRef": {"name": "payments"},
                "candidates": {"upstreamStage": {"name": "payments", "namespace": "test"}}}}));
        let read = |ns: &[&str]| -> BTreeMap<String, Option<String>> {
            ns.iter().map(|n| (n.to_string(), None)).collect()
        };
        let mut partial = Partial {
            oci_repositories: read(&["test"]),
            kustomizations: read(&["test"]),
            applications: read(&["argocd", "test"]),
            stages: Vec::new(),
        };
        partial
            .oci_repositories
            .insert("vendor".into(), Some("forbidden: you may not list".into()));
        let world = World::read_in(&snapshot, &partial);
        let first = world.stage("test", "payments").unwrap().clone();
        let c = compute(&first, &world);
        assert_eq!(
            (c.ready.status, c.ready.reason.as_str()),
            ("Unknown", "Unreadable")
        );
        assert_eq!(
            c.unreadable,
            ["OCIRepositories (source.toolkit.fluxcd.io) in namespace \"vendor\" could not be read: forbidden: you may not list"]
        );
        assert_eq!(
            (c.mediated.status, c.mediated.reason.as_str()),
            ("True", "PointerDecides")
        );
        // The next Stage's upstream could not be read: its Ready is undecided, saying so.
        for kind in [
            &mut partial.oci_repositories,
            &mut partial.kustomizations,
            &mut partial.applications,
        ] {
            kind.insert("prod".into(), None);
        }
        partial
            .stages
            .push(("test".into(), "payments".into(), "forbidden: no".into()));
        let world = World::read_in(&snapshot, &partial);
        let c = compute(&second, &world);
        assert_eq!(
            c.unreadable,
            ["the upstream Stage test/payments could not be read: forbidden: no"]
        );
        // Not read is not missing: the candidate rule is undecided (prod's own apply OCIRepository
        // and its applier are missing: those fail apart).
        let reasons: Vec<&str> = c.failures.iter().map(|f| f.reason).collect();
        assert_eq!(
            reasons,
            ["ApplierUnlabelled", "ApplyRefUnguarded", "NoApplier"],
            "{c:?}"
        );
        assert_eq!(c.rules[0].verdict, "unknown", "{:?}", c.rules[0]);
    }
}
