//! The objects a Stage's conditions depend on, read into views once: every Stage, the Flux
//! OCIRepositories and Kustomizations, the Argo CD Applications. A kind that is not installed
//! reads as empty (a note says so); a kind that could not be read makes the rules that need it
//! undecided.

use super::oidc::Identities;
use super::view::{
    ApplicationView, KustomizationView, ListedObjects, OciRepositoryView, Snapshot, StageView,
};

/// Views of one kind: the objects, or why they could not be read.
#[derive(Debug, Clone)]
pub enum Views<T> {
    /// Read (empty when the kind is not installed).
    Read(Vec<T>),
    /// Could not be read: why, naming the kind.
    Unreadable(String),
}

impl<T> Views<T> {
    /// The objects, or the reason they are not known.
    pub fn get(&self) -> Result<&[T], &str> {
        match self {
            Views::Read(v) => Ok(v),
            Views::Unreadable(why) => Err(why),
        }
    }
}

/// Everything a Stage's rules read.
#[derive(Debug, Clone)]
pub struct World {
    pub stages: Vec<StageView>,
    pub repositories: Views<OciRepositoryView>,
    pub kustomizations: Views<KustomizationView>,
    pub applications: Views<ApplicationView>,
    /// What the reader should know: kinds not installed.
    pub notes: Vec<String>,
    /// The verdicts of the identity patterns read so far, so each distinct pattern is compiled
    /// once per run however many Stages read it.
    pub identities: Identities,
}

fn read<T>(
    listed: &ListedObjects,
    what: &str,
    view: fn(&serde_json::Value) -> T,
    notes: &mut Vec<String>,
) -> Views<T> {
    match listed {
        None => {
            notes.push(format!(
                "{what} are not installed in this cluster: none apply"
            ));
            Views::Read(Vec::new())
        }
        Some(Err(why)) => Views::Unreadable(format!("{what} could not be read: {why}")),
        Some(Ok(items)) => Views::Read(last_wins(items, what, notes).iter().map(view).collect()),
    }
}

/// Objects named twice (same kind, namespace and name) are read as `kubectl apply` would leave
/// them: the last one wins; a note names the duplicate.
fn last_wins(
    objects: &[serde_json::Value],
    what: &str,
    notes: &mut Vec<String>,
) -> Vec<serde_json::Value> {
    let key = |o: &serde_json::Value| {
        (
            o.pointer("/metadata/namespace")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("")
                .to_string(),
            o.pointer("/metadata/name")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("")
                .to_string(),
        )
    };
    let mut out: Vec<serde_json::Value> = Vec::with_capacity(objects.len());
    let mut index: std::collections::HashMap<(String, String), usize> =
        std::collections::HashMap::new();
    for o in objects {
        let k = key(o);
        match index.get(&k) {
            Some(&at) => {
                notes.push(format!(
                    "{what} {}/{} is given twice: the last one is read",
                    k.0, k.1
                ));
                out[at] = o.clone();
            }
            None => {
                index.insert(k, out.len());
                out.push(o.clone());
            }
        }
    }
    out
}

impl World {
    /// Reads a snapshot.
    pub fn new(s: &Snapshot) -> World {
        let mut notes = Vec::new();
        let stages = last_wins(&s.stages, "Stage", &mut notes);
        World {
            stages: stages.iter().map(StageView::new).collect(),
            repositories: read(
                &s.oci_repositories,
                "OCIRepositories (source.toolkit.fluxcd.io)",
                OciRepositoryView::new,
                &mut notes,
            ),
            kustomizations: read(
                &s.kustomizations,
                "Kustomizations (kustomize.toolkit.fluxcd.io)",
                KustomizationView::new,
                &mut notes,
            ),
            applications: read(
                &s.applications,
                "Applications (argoproj.io)",
                ApplicationView::new,
                &mut notes,
            ),
            notes,
            identities: Identities::default(),
        }
    }

    /// The Stage `namespace/name`, if listed.
    pub fn stage(&self, namespace: &str, name: &str) -> Option<&StageView> {
        self.stages
            .iter()
            .find(|s| s.this.namespace == namespace && s.this.name == name)
    }

    /// The OCIRepository `namespace/name`: Ok(None) when it does not exist, Err when
    /// OCIRepositories could not be read.
    pub fn repository(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<Option<&OciRepositoryView>, &str> {
        Ok(self
            .repositories
            .get()?
            .iter()
            .find(|r| r.this.namespace == namespace && r.this.name == name))
    }
}
