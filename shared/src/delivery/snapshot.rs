//! What a Stage's conditions are computed from: every Stage, and each kind a Stage depends on
//! ([`crate::kinds::STAGE_DEPENDENCIES`]) as read, once. From a cluster each kind is one list
//! (a kind the cluster does not serve is `None`: nothing of it exists); from files
//! ([`Snapshot::from_objects`]) every kind counts as read, holding the files' objects of it.

use crate::kinds::{APPLICATION, KUSTOMIZATION, OCI_REPOSITORY, STAGE};
use serde_json::Value;

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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::{compute, StageView, World};
    use crate::testutil::docs;
    use serde_json::json;

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
}
