//! What delivery reads: the Stages, Operations and Approvals a command works on and the kinds a
//! Stage depends on, from files (every kind counts as read) or from a cluster, and the reports
//! the library builds from them. From a cluster, with `-A` each kind is one list of every
//! namespace (`Cluster::delivery_objects`); else the Stages of the namespace (or the one Stage
//! named), then only what they are judged on (`delivery::snapshot::reads`): the upstream Stages
//! their chains name, one GET each, and each kind in the namespaces the Stages and their
//! references name, one list each, so that a user allowed those namespaces reads what kubectl
//! would let them read. A kind the cluster does not serve reads as none; one that cannot be read
//! (in a namespace) is a note naming the request refused, and the rules that look there are
//! undecided.

use super::connect::{block_on_within, connect, namespace};
use super::select::{name_of, not_found, shown};
use anyhow::Result;
use kubectl_pacto::options::ClusterOptions;
use kubectl_pacto::resource::ResourceType;
use pacto_gates::cluster::{self, Cluster, ClusterError, DeliveryQuery, Scope, ServedKind};
use pacto_gates::delivery::explain;
use pacto_gates::delivery::snapshot::{self, Partial};
use pacto_gates::delivery::view::{ApprovalView, OperationView, Snapshot, StageView};
use pacto_gates::delivery::World;
use pacto_gates::k8s::selector::Selector;
use pacto_gates::kinds::{self, ApiKind};
use pacto_gates::pacto::explain::Report;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// How many upstream references a chain is followed through (`--max-upstream-depth`, a global
/// flag): set once by the command line, read by every world this process builds.
static MAX_UPSTREAM_DEPTH: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(pacto_gates::delivery::ready::DEFAULT_MAX_UPSTREAM_DEPTH);

/// Sets `--max-upstream-depth` for the worlds built after (at least 1).
pub(crate) fn set_max_upstream_depth(depth: usize) {
    MAX_UPSTREAM_DEPTH.store(depth.max(1), std::sync::atomic::Ordering::Relaxed);
}

/// `--max-upstream-depth`.
pub(crate) fn max_upstream_depth() -> usize {
    MAX_UPSTREAM_DEPTH.load(std::sync::atomic::Ordering::Relaxed)
}

/// Which Stages a command reads from a cluster.
#[derive(Debug, Clone, Copy)]
pub(crate) enum StageScope<'a> {
    /// Every namespace (`-A`): one list.
    All,
    /// The Stages of one namespace: one list.
    Namespace(&'a str),
    /// One Stage, `(namespace, name)`: one GET.
    Named(&'a str, &'a str),
}

/// The delivery objects a command works on, each kind as read.
#[derive(Debug, Default)]
pub(crate) struct Objects {
    pub approvals: Vec<Value>,
    /// The kinds a Stage's conditions read, for [`World`], with every Stage read in
    /// `snapshot.stages` (the upstream chain may lead to any of them).
    pub snapshot: Snapshot,
    /// Where the kinds were read, when not in every namespace.
    partial: Option<Partial>,
    /// Why Stages or Approvals that an Operation report reads are not known.
    pub notes: Vec<String>,
    /// The Stage kind as the cluster serves it, and the namespaces whose Stages were all listed
    /// (None: every namespace).
    stage_kind: Option<ServedKind>,
    listed: Option<BTreeSet<String>>,
}

impl Objects {
    /// The objects of files ([`Snapshot::from_values`]: a kind absent from them counts as
    /// read and empty), kept without a copy.
    pub(crate) fn from_files(all: Vec<Value>) -> Objects {
        let (approvals, rest): (Vec<Value>, Vec<Value>) =
            all.into_iter().partition(|o| kinds::APPROVAL.is(o));
        Objects {
            approvals,
            snapshot: Snapshot::from_values(rest),
            ..Default::default()
        }
    }

    /// Every Stage read.
    pub(crate) fn stages(&self) -> &[Value] {
        &self.snapshot.stages
    }

    /// The Stages of a cluster as read, the kinds they depend on not yet read
    /// ([`Objects::read_for`]).
    fn of_stages(
        stages: Vec<Value>,
        kind: ServedKind,
        listed: Option<BTreeSet<String>>,
    ) -> Objects {
        Objects {
            snapshot: Snapshot {
                stages,
                ..Default::default()
            },
            stage_kind: Some(kind),
            listed,
            ..Default::default()
        }
    }

    /// The views every Stage is judged against, borrowing from the objects: built once per
    /// command, by the caller.
    pub(crate) fn world(&self) -> World<'_> {
        match &self.partial {
            None => World::new(&self.snapshot),
            Some(p) => World::read_in(&self.snapshot, p),
        }
        .with_max_upstream_depth(max_upstream_depth())
    }

    /// Reads from the cluster what the Stages `shown` are judged on, into the snapshot: with
    /// every Stage listed, the kinds they depend on in every namespace; else the upstream
    /// Stages their chains name (one GET each, one step further each round) and each kind in
    /// the namespaces they need. What cannot be read is kept, to be named.
    pub(crate) async fn read_for(&mut self, c: &Cluster, shown: &[Value], argocd_namespace: &str) {
        let (Some(listed), Some(kind)) = (self.listed.clone(), self.stage_kind.clone()) else {
            read_appliers(c, &mut self.snapshot).await;
            return;
        };
        let shown: Vec<StageView> = shown.iter().map(StageView::new).collect();
        let mut tried: BTreeSet<(String, String)> = BTreeSet::new();
        let mut partial = Partial::default();
        loop {
            // The views of the Stages read so far, again each round (they borrow from them).
            let missing: Vec<(String, String)> = {
                let known: Vec<StageView> =
                    self.snapshot.stages.iter().map(StageView::new).collect();
                snapshot::missing_upstreams(&shown, &known, &listed, &tried, max_upstream_depth())
                    .into_iter()
                    .map(|up| (up.namespace.to_string(), up.name.to_string()))
                    .collect()
            };
            if missing.is_empty() {
                break;
            }
            for (namespace, name) in missing {
                tried.insert((namespace.clone(), name.clone()));
                match c.get(&kind, &namespace, &name).await {
                    Ok(o) => self.snapshot.stages.push(o),
                    Err(ClusterError::NotFound { .. }) => {}
                    Err(e) => partial.stages.push((namespace, name, e.to_string())),
                }
            }
        }
        let known: Vec<StageView> = self.snapshot.stages.iter().map(StageView::new).collect();
        let reads = snapshot::reads(&shown, &known, argocd_namespace, max_upstream_depth());
        let wanted: Vec<(ApiKind, Vec<String>)> = vec![
            (
                kinds::OCI_REPOSITORY,
                reads.oci_repositories.into_iter().collect(),
            ),
            (
                kinds::KUSTOMIZATION,
                reads.kustomizations.into_iter().collect(),
            ),
            (kinds::APPLICATION, reads.applications.into_iter().collect()),
        ];
        let read = c
            .delivery_objects(&DeliveryQuery {
                in_namespaces: &wanted,
                ..Default::default()
            })
            .await;
        for (kind, namespaces) in &wanted {
            let slot = match *kind {
                kinds::OCI_REPOSITORY => &mut partial.oci_repositories,
                kinds::KUSTOMIZATION => &mut partial.kustomizations,
                _ => &mut partial.applications,
            };
            let mut by_ns: BTreeMap<String, Option<String>> =
                namespaces.iter().map(|ns| (ns.clone(), None)).collect();
            for (k, ns, e) in &read.unreadable {
                if k == kind {
                    by_ns.insert(ns.clone(), Some(e.to_string()));
                }
            }
            *slot = by_ns;
        }
        self.snapshot.oci_repositories = listed_kind(read.oci_repositories);
        self.snapshot.kustomizations = listed_kind(read.kustomizations);
        self.snapshot.applications = listed_kind(read.applications);
        self.partial = Some(partial);
    }

    /// The report of one Stage ([`explain::stage_report`]).
    pub(crate) fn stage_report(&self, stage: &Value) -> Report {
        explain::stage_report(&StageView::new(stage), &self.world())
    }

    /// The report of one Operation ([`explain::operation_report`]).
    pub(crate) fn operation_report(&self, op: &Value) -> Report {
        let stages: Vec<StageView> = self.snapshot.stages.iter().map(StageView::new).collect();
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
fn listed_kind(read: cluster::ListRead) -> pacto_gates::delivery::view::ListedObjects {
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

/// The kinds a Stage depends on, read from a cluster into `snapshot` (every namespace: the
/// reconcile's read, and a listing of every namespace's).
pub(crate) async fn read_appliers(c: &Cluster, snapshot: &mut Snapshot) {
    let read = c
        .delivery_objects(&DeliveryQuery {
            appliers: true,
            ..Default::default()
        })
        .await;
    snapshot.oci_repositories = listed_kind(read.oci_repositories);
    snapshot.kustomizations = listed_kind(read.kustomizations);
    snapshot.applications = listed_kind(read.applications);
}

/// The Stages `scope` names: every Stage (one list), those of a namespace (one list), or one
/// Stage (one GET). Errors: the Stages cannot be read (not installed, forbidden), or the one
/// named does not exist (the API server's NotFound).
pub(crate) async fn read_stages(c: &Cluster, scope: StageScope<'_>) -> Result<Objects> {
    let (group, version, kind) = kinds::STAGE.gvk();
    let kind = c.discover(group, version, kind).await?;
    Ok(match scope {
        StageScope::All => {
            Objects::of_stages(c.list(&kind, Scope::All, None).await?.items, kind, None)
        }
        StageScope::Namespace(ns) => {
            let stages = c.list(&kind, Scope::Namespace(ns), None).await?.items;
            Objects::of_stages(stages, kind, Some(BTreeSet::from([ns.to_string()])))
        }
        StageScope::Named(ns, name) => {
            let stage = c.get(&kind, ns, name).await?;
            Objects::of_stages(vec![stage], kind, Some(BTreeSet::new()))
        }
    })
}

/// `explain stage/NAME` (and `wait`'s report) from the cluster: the Stage (one GET), then what
/// it is judged on ([`Objects::read_for`]). Errors: no such Stage in the namespace, or it cannot
/// be read.
pub(crate) fn stage_report(
    c: &ClusterOptions,
    name: &str,
    argocd_namespace: &str,
) -> Result<Report> {
    block_on_within(c.connect.deadline, async {
        let cluster = connect(c).await?;
        let ns = namespace(c, &cluster);
        let mut objects = read_stages(&cluster, StageScope::Named(&ns, name)).await?;
        let Some(stage) = shown(
            objects.stages(),
            Some(&ns),
            Some(name),
            &Selector::default(),
        )
        .pop() else {
            return Err(not_found(ResourceType::Stages, name, Some(&ns)));
        };
        objects
            .read_for(&cluster, std::slice::from_ref(&stage), argocd_namespace)
            .await;
        Ok(objects.stage_report(&stage))
    })
}

/// `explain operation/NAME` from the cluster: the Operations, Stages and Approvals of its
/// namespace, one list each. Errors: no such Operation, or the Operations cannot be listed.
pub(crate) fn operation_report(c: &ClusterOptions, name: &str) -> Result<Report> {
    block_on_within(c.connect.deadline, async {
        let cluster = connect(c).await?;
        let ns = namespace(c, &cluster);
        let here = Some(Scope::Namespace(&ns));
        let read = cluster
            .delivery_objects(&DeliveryQuery {
                stages: here,
                operations: here,
                approvals: here,
                ..Default::default()
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
            snapshot: Snapshot {
                stages,
                ..Default::default()
            },
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
        assert!(matches!(listed_kind(one()), Some(Ok(v)) if v.len() == 1));
        assert!(listed_kind(Some(Err(not_installed()))).is_none());
        assert!(matches!(listed_kind(Some(Err(forbidden()))), Some(Err(_))));
        assert!(matches!(listed_kind(None), Some(Ok(v)) if v.is_empty()));
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
        let o = Objects::from_files(all.to_vec());
        assert_eq!((o.stages().len(), o.approvals.len()), (1, 1));
        assert!(matches!(&o.snapshot.applications, Some(Ok(v)) if v.is_empty()));
        assert_eq!(o.world().stages.len(), 1);
    }
}
