//! The objects a Stage's conditions depend on, read into views once: every Stage, the Flux
//! OCIRepositories and Kustomizations, the Argo CD Applications. A kind that is not installed
//! reads as empty (a note says so); a kind that could not be read makes the rules that need it
//! undecided. Read in some namespaces only ([`World::read_in`]), a kind is known where it was
//! read, and a namespace whose list failed makes undecided only the rules that look there; an
//! upstream Stage that could not be read likewise.

use super::oidc::Identities;
use super::snapshot::Partial;
use super::view::{
    ApplicationView, KustomizationView, ListedObjects, OciRepositoryView, Snapshot, StageView,
};
use std::collections::BTreeMap;

/// Views of one kind: the objects, or why they could not be read.
#[derive(Debug, Clone)]
pub enum Views<T> {
    /// Read (empty when the kind is not installed).
    Read(Vec<T>),
    /// Read in these namespaces only: the objects, each namespace with why it could not be read
    /// (None: read), and what the kind is called in messages.
    Partly(Vec<T>, BTreeMap<String, Option<String>>, &'static str),
    /// Could not be read: why, naming the kind.
    Unreadable(String),
}

impl<T> Views<T> {
    /// Every object read, or the reason they are not all known (the kind, or one of the
    /// namespaces it was read in, could not be read).
    pub fn get(&self) -> Result<&[T], &str> {
        match self {
            Views::Read(v) => Ok(v),
            Views::Partly(v, namespaces, _) => match namespaces.values().flatten().next() {
                Some(why) => Err(why),
                None => Ok(v),
            },
            Views::Unreadable(why) => Err(why),
        }
    }

    /// The objects read, with the reason those of `namespace` are not known, if they are not
    /// (a namespace never read counts as unknown).
    fn in_namespace(&self, namespace: &str) -> Result<&[T], String> {
        match self {
            Views::Read(v) => Ok(v),
            Views::Partly(v, namespaces, what) => match namespaces.get(namespace) {
                Some(None) => Ok(v),
                Some(Some(why)) => Err(why.clone()),
                None => Err(format!("{what} in namespace {namespace:?} were not read")),
            },
            Views::Unreadable(why) => Err(why.clone()),
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
    /// Stages an upstream reference names that could not be read: `(namespace, name, why)`.
    pub unreadable_stages: Vec<(String, String, String)>,
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

/// A kind read in the namespaces of `partial`: each namespace whose list failed is named with
/// the kind and why.
fn read_partly<T>(
    listed: &ListedObjects,
    partial: &BTreeMap<String, Option<String>>,
    what: &'static str,
    view: fn(&serde_json::Value) -> T,
    notes: &mut Vec<String>,
) -> Views<T> {
    match read(listed, what, view, notes) {
        Views::Read(items) => {
            let namespaces = partial
                .iter()
                .map(|(ns, why)| {
                    let why = why
                        .as_ref()
                        .map(|w| format!("{what} in namespace {ns:?} could not be read: {w}"));
                    (ns.clone(), why)
                })
                .collect();
            Views::Partly(items, namespaces, what)
        }
        other => other,
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

/// What each kind a Stage depends on is called in messages.
const REPOSITORIES: &str = "OCIRepositories (source.toolkit.fluxcd.io)";
const KUSTOMIZATIONS: &str = "Kustomizations (kustomize.toolkit.fluxcd.io)";
const APPLICATIONS: &str = "Applications (argoproj.io)";

impl World {
    /// Reads a snapshot whose kinds were read in every namespace.
    pub fn new(s: &Snapshot) -> World {
        let mut notes = Vec::new();
        let stages = last_wins(&s.stages, "Stage", &mut notes);
        World {
            stages: stages.iter().map(StageView::new).collect(),
            repositories: read(
                &s.oci_repositories,
                REPOSITORIES,
                OciRepositoryView::new,
                &mut notes,
            ),
            kustomizations: read(
                &s.kustomizations,
                KUSTOMIZATIONS,
                KustomizationView::new,
                &mut notes,
            ),
            applications: read(
                &s.applications,
                APPLICATIONS,
                ApplicationView::new,
                &mut notes,
            ),
            notes,
            unreadable_stages: Vec::new(),
            identities: Identities::default(),
        }
    }

    /// Reads a snapshot whose kinds were read only in the namespaces `partial` names
    /// ([`super::snapshot::reads`]), and whose upstream Stages `partial` may say could not be
    /// read.
    pub fn read_in(s: &Snapshot, partial: &Partial) -> World {
        let mut notes = Vec::new();
        let stages = last_wins(&s.stages, "Stage", &mut notes);
        World {
            stages: stages.iter().map(StageView::new).collect(),
            repositories: read_partly(
                &s.oci_repositories,
                &partial.oci_repositories,
                REPOSITORIES,
                OciRepositoryView::new,
                &mut notes,
            ),
            kustomizations: read_partly(
                &s.kustomizations,
                &partial.kustomizations,
                KUSTOMIZATIONS,
                KustomizationView::new,
                &mut notes,
            ),
            applications: read_partly(
                &s.applications,
                &partial.applications,
                APPLICATIONS,
                ApplicationView::new,
                &mut notes,
            ),
            notes,
            unreadable_stages: partial.stages.clone(),
            identities: Identities::default(),
        }
    }

    /// Why the Stage `namespace/name` could not be read, if it could not.
    pub fn unreadable_stage(&self, namespace: &str, name: &str) -> Option<&str> {
        self.unreadable_stages
            .iter()
            .find(|(ns, n, _)| ns == namespace && n == name)
            .map(|(_, _, why)| why.as_str())
    }

    /// The Stage `namespace/name`, if listed.
    pub fn stage(&self, namespace: &str, name: &str) -> Option<&StageView> {
        self.stages
            .iter()
            .find(|s| s.this.namespace == namespace && s.this.name == name)
    }

    /// The OCIRepository `namespace/name`: Ok(None) when it does not exist, Err when
    /// the OCIRepositories of its namespace could not be read.
    pub fn repository(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<Option<&OciRepositoryView>, String> {
        Ok(self
            .repositories
            .in_namespace(namespace)?
            .iter()
            .find(|r| r.this.namespace == namespace && r.this.name == name))
    }
}
