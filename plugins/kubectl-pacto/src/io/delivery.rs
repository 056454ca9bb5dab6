//! What delivery reads: the Stages, Operations and Approvals a command works on and the kinds a
//! Stage depends on, from files (every kind counts as read) or from a cluster (one list per
//! kind, `Cluster::delivery_objects`), and the reports the library builds from them. A kind the
//! cluster does not serve reads as none; one that cannot be read is a note.

use super::connect::{block_on, connect, namespace};
use super::select::{name_of, not_found, shown};
use anyhow::Result;
use kubectl_pacto::options::ClusterOptions;
use kubectl_pacto::resource::ResourceType;
use pacto_gates::cluster::{self, Cluster, ClusterError, DeliveryQuery, Scope};
use pacto_gates::delivery::explain;
use pacto_gates::delivery::view::{ApprovalView, OperationView, Snapshot, StageView};
use pacto_gates::delivery::World;
use pacto_gates::k8s::selector::Selector;
use pacto_gates::kinds;
use pacto_gates::pacto::explain::Report;
use serde_json::Value;

/// The delivery objects a command works on, each kind as read.
#[derive(Debug, Default)]
pub(crate) struct Objects {
    /// Every Stage read (the upstream chain may lead to any of them).
    pub stages: Vec<Value>,
    pub approvals: Vec<Value>,
    /// The kinds a Stage's conditions read, for [`World`].
    pub snapshot: Snapshot,
    /// Why Stages or Approvals that an Operation report reads are not known.
    pub notes: Vec<String>,
    /// The views of the snapshot, built once for every report.
    world: std::cell::OnceCell<World>,
}

impl Objects {
    /// The objects of files ([`Snapshot::from_objects`]: a kind absent from them counts as
    /// read and empty).
    pub(crate) fn from_files(all: &[Value]) -> Objects {
        let snapshot = Snapshot::from_objects(all);
        Objects {
            stages: snapshot.stages.clone(),
            approvals: kinds::APPROVAL.select(all),
            snapshot,
            ..Default::default()
        }
    }

    /// Every Stage of a cluster, the kinds it depends on not yet read
    /// ([`Objects::read_appliers`]).
    fn of_stages(stages: Vec<Value>) -> Objects {
        Objects {
            snapshot: Snapshot {
                stages: stages.clone(),
                ..Default::default()
            },
            stages,
            ..Default::default()
        }
    }

    /// The views every Stage is judged against, built once.
    pub(crate) fn world(&self) -> &World {
        self.world.get_or_init(|| World::new(&self.snapshot))
    }

    /// Reads the kinds a Stage depends on from the cluster, into the snapshot.
    pub(crate) async fn read_appliers(&mut self, c: &Cluster) {
        read_appliers(c, &mut self.snapshot).await;
    }

    /// The report of one Stage ([`explain::stage_report`]).
    pub(crate) fn stage_report(&self, stage: &Value) -> Report {
        explain::stage_report(&StageView::new(stage), self.world())
    }

    /// The report of one Operation ([`explain::operation_report`]).
    pub(crate) fn operation_report(&self, op: &Value) -> Report {
        let stages: Vec<StageView> = self.stages.iter().map(StageView::new).collect();
        let approvals: Vec<ApprovalView> = self.approvals.iter().map(ApprovalView::new).collect();
        explain::operation_report(&OperationView::new(op), &stages, &approvals, &self.notes)
    }
}

/// A kind the command lists or explains: it must be read (a kind not installed is the error
/// that says so).
fn primary(read: cluster::ListRead) -> Result<Vec<Value>> {
    Ok(read.transpose()?.unwrap_or_default())
}

/// A kind a Stage depends on, as [`Snapshot`] takes it: None when not installed.
fn listed(read: cluster::ListRead) -> pacto_gates::delivery::view::ListedObjects {
    match read {
        None => Some(Ok(Vec::new())),
        Some(Ok(items)) => Some(Ok(items)),
        Some(Err(ClusterError::NotInstalled { .. })) => None,
        Some(Err(e)) => Some(Err(e.to_string())),
    }
}

/// A kind an Operation report reads: the objects, or none and a note saying why.
fn or_note(read: cluster::ListRead, what: &str, notes: &mut Vec<String>) -> Vec<Value> {
    match read {
        None => Vec::new(),
        Some(Ok(items)) => items,
        Some(Err(ClusterError::NotInstalled { .. })) => {
            notes.push(format!(
                "{what} are not installed in this cluster: none apply"
            ));
            Vec::new()
        }
        Some(Err(e)) => {
            notes.push(format!("{what} could not be read: {e}"));
            Vec::new()
        }
    }
}

/// The kinds a Stage depends on, read from a cluster into `snapshot` (every namespace).
pub(crate) async fn read_appliers(c: &Cluster, snapshot: &mut Snapshot) {
    let read = c
        .delivery_objects(&DeliveryQuery {
            appliers: true,
            ..Default::default()
        })
        .await;
    snapshot.oci_repositories = listed(read.oci_repositories);
    snapshot.kustomizations = listed(read.kustomizations);
    snapshot.applications = listed(read.applications);
}

/// Every Stage of a cluster, one list across all namespaces (an upstream chain may lead to
/// any namespace). Errors: the Stages cannot be listed (not installed, forbidden).
pub(crate) async fn read_stages(c: &Cluster) -> Result<Objects> {
    let read = c
        .delivery_objects(&DeliveryQuery {
            stages: Some(Scope::All),
            ..Default::default()
        })
        .await;
    Ok(Objects::of_stages(primary(read.stages)?))
}

/// `explain stage/NAME` from the cluster: every Stage (for the upstream chain), then the kinds
/// it depends on. Errors: no such Stage in the namespace, or the Stages cannot be listed.
pub(crate) fn stage_report(c: &ClusterOptions, name: &str) -> Result<Report> {
    block_on(async {
        let cluster = connect(c).await?;
        let ns = namespace(c, &cluster);
        let mut objects = read_stages(&cluster).await?;
        let Some(stage) = shown(&objects.stages, Some(&ns), Some(name), &Selector::default()).pop()
        else {
            return Err(not_found(ResourceType::Stages, name, Some(&ns)));
        };
        objects.read_appliers(&cluster).await;
        Ok(objects.stage_report(&stage))
    })
}

/// `explain operation/NAME` from the cluster: the Operations, Stages and Approvals of its
/// namespace, one list each. Errors: no such Operation, or the Operations cannot be listed.
pub(crate) fn operation_report(c: &ClusterOptions, name: &str) -> Result<Report> {
    block_on(async {
        let cluster = connect(c).await?;
        let ns = namespace(c, &cluster);
        let here = Some(Scope::Namespace(&ns));
        let read = cluster
            .delivery_objects(&DeliveryQuery {
                stages: here,
                operations: here,
                approvals: here,
                appliers: false,
            })
            .await;
        let ops = primary(read.operations)?;
        let Some(op) = ops.into_iter().find(|o| name_of(o) == Some(name)) else {
            return Err(not_found(ResourceType::Operations, name, Some(&ns)));
        };
        let mut notes = Vec::new();
        let stages = or_note(
            read.stages,
            "Stages (delivery.pacto.trianalab.io)",
            &mut notes,
        );
        let approvals = or_note(
            read.approvals,
            "Approvals (delivery.pacto.trianalab.io)",
            &mut notes,
        );
        let objects = Objects {
            stages,
            approvals,
            notes,
            ..Default::default()
        };
        Ok(objects.operation_report(&op))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn not_installed() -> ClusterError {
        ClusterError::NotInstalled {
            kind: "Application".into(),
            group_version: "argoproj.io/v1alpha1".into(),
        }
    }

    fn forbidden() -> ClusterError {
        ClusterError::Forbidden {
            verb: "list".into(),
            resource: "approvals.delivery.pacto.trianalab.io".into(),
            scope: " in namespace \"shop\"".into(),
            message: "no".into(),
        }
    }

    /// A kind the cluster does not serve holds nothing (None for the snapshot, a note for a
    /// report); one that cannot be read is said so; a kind the command lists must be read.
    #[test]
    fn each_kind_as_read() {
        let one = || Some(Ok(vec![json!({"metadata": {"name": "a"}})]));
        assert!(matches!(listed(one()), Some(Ok(v)) if v.len() == 1));
        assert!(listed(Some(Err(not_installed()))).is_none());
        assert!(matches!(listed(Some(Err(forbidden()))), Some(Err(_))));
        assert!(matches!(listed(None), Some(Ok(v)) if v.is_empty()));
        let mut notes = Vec::new();
        assert!(or_note(Some(Err(not_installed())), "Applications", &mut notes).is_empty());
        assert!(or_note(Some(Err(forbidden())), "Approvals", &mut notes).is_empty());
        assert_eq!(or_note(one(), "Stages", &mut notes).len(), 1);
        assert_eq!(notes.len(), 2);
        assert_eq!(
            notes[0],
            "Applications are not installed in this cluster: none apply"
        );
        assert!(
            notes[1].starts_with("Approvals could not be read: "),
            "{}",
            notes[1]
        );
        assert!(primary(Some(Err(not_installed()))).is_err());
        assert!(primary(None).unwrap().is_empty());
    }

    /// Objects of files: every kind counts as read; the Approvals are kept for the Operation
    /// reports.
    #[test]
    fn objects_of_files() {
        let all = [
            json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Stage",
                "metadata": {"name": "payments", "namespace": "test"}}),
            json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Approval",
                "metadata": {"name": "ok", "namespace": "test"}}),
        ];
        let o = Objects::from_files(&all);
        assert_eq!((o.stages.len(), o.approvals.len()), (1, 1));
        assert!(matches!(&o.snapshot.applications, Some(Ok(v)) if v.is_empty()));
        assert_eq!(o.world().stages.len(), 1);
    }
}
