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
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

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
    /// Every object read, known or not everywhere (none when the kind could not be read).
    fn all(&self) -> &[T] {
        match self {
            Views::Read(v) | Views::Partly(v, _, _) => v,
            Views::Unreadable(_) => &[],
        }
    }

    /// The objects an index lists under `key`, in the order read, borrowed (nothing is
    /// collected: many Stages may share one key), or why they are not all known
    /// ([`Views::get`]).
    fn indexed<'v>(
        &'v self,
        index: &'v ByPair<'_>,
        first: &str,
        second: &str,
    ) -> Result<Indexed<'v, T>, &'v str> {
        let all = self.get()?;
        Ok(Indexed {
            all,
            at: index
                .get(first)
                .and_then(|m| m.get(second))
                .map_or(&[], Vec::as_slice),
        })
    }

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

/// Everything a Stage's rules read, borrowed from the snapshot it was read from, with each
/// kind indexed once by what the rules look up: Stages and OCIRepositories by namespace and
/// name, Kustomizations by the OCIRepository their `spec.sourceRef` names, Applications by
/// destination namespace and apply-ref label. Each Stage's upstream verdict ([`Trust`]) is
/// computed once, the first time a Stage downstream of it asks, and kept for the run.
#[derive(Debug)]
pub struct World<'a> {
    pub stages: Vec<StageView<'a>>,
    pub repositories: Views<OciRepositoryView<'a>>,
    pub kustomizations: Views<KustomizationView<'a>>,
    pub applications: Views<ApplicationView<'a>>,
    /// What the reader should know: kinds not installed.
    pub notes: Vec<String>,
    /// Stages an upstream reference names that could not be read: `(namespace, name, why)`.
    pub unreadable_stages: Vec<(String, String, String)>,
    /// The verdicts of the identity patterns read so far, so each distinct pattern is compiled
    /// once per run however many Stages read it.
    pub identities: Identities,
    index: Index<'a>,
    /// The upstream verdict of each Stage of `stages`, by position, once computed.
    /// How many upstream references a chain is followed through
    /// ([`super::ready::DEFAULT_MAX_UPSTREAM_DEPTH`] unless [`World::with_max_upstream_depth`]
    /// sets another).
    pub max_upstream_depth: usize,
    trust: Mutex<Vec<Option<Trust>>>,
}

/// `(namespace, name)`.
type Key<'a> = (&'a str, &'a str);

/// The lookups of [`World`], built once when it is read.
#[derive(Debug, Default)]
struct Index<'a> {
    stages: HashMap<Key<'a>, usize>,
    repositories: HashMap<Key<'a>, usize>,
    /// By `spec.sourceRef` (namespace defaulted, name), in the order read: those whose
    /// `sourceRef.kind` is OCIRepository (appliers), and those with no kind.
    kustomizations: ByPair<'a>,
    kindless: ByPair<'a>,
    /// By `(spec.destination.namespace, apply-ref label)`, in the order read.
    applications: ByPair<'a>,
    unreadable_stages: HashMap<(String, String), usize>,
}

impl<'a> Index<'a> {
    fn new(
        stages: &[StageView<'a>],
        repositories: &Views<OciRepositoryView<'a>>,
        kustomizations: &Views<KustomizationView<'a>>,
        applications: &Views<ApplicationView<'a>>,
        unreadable_stages: &[(String, String, String)],
    ) -> Index<'a> {
        let mut index = Index::default();
        for (i, s) in stages.iter().enumerate() {
            index.stages.insert((s.this.namespace, s.this.name), i);
        }
        for (i, r) in repositories.all().iter().enumerate() {
            index
                .repositories
                .insert((r.this.namespace, r.this.name), i);
        }
        for (i, k) in kustomizations.all().iter().enumerate() {
            let by_kind = match k.source_kind {
                "OCIRepository" => &mut index.kustomizations,
                "" => &mut index.kindless,
                _ => continue,
            };
            by_kind
                .entry(k.source_namespace)
                .or_default()
                .entry(k.source_name)
                .or_default()
                .push(i);
        }
        for (i, a) in applications.all().iter().enumerate() {
            if let Some(label) = a.apply_ref_label {
                index
                    .applications
                    .entry(a.destination_namespace)
                    .or_default()
                    .entry(label)
                    .or_default()
                    .push(i);
            }
        }
        for (i, (ns, name, _)) in unreadable_stages.iter().enumerate() {
            index
                .unreadable_stages
                .entry((ns.clone(), name.clone()))
                .or_insert(i);
        }
        index
    }
}

/// An index by two names (a namespace and a name), looked up with names of any lifetime.
type ByPair<'a> = HashMap<&'a str, HashMap<&'a str, Vec<usize>>>;

/// The objects an index lists under one key, in the order read: borrowed from the world.
#[derive(Debug)]
pub struct Indexed<'v, T> {
    all: &'v [T],
    at: &'v [usize],
}

impl<T> Clone for Indexed<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Indexed<'_, T> {}

impl<'v, T> Indexed<'v, T> {
    /// None listed.
    pub fn empty() -> Indexed<'v, T> {
        Indexed { all: &[], at: &[] }
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Each, in the order read.
    pub fn iter(&self) -> impl Iterator<Item = &'v T> + use<'v, T> {
        let all = self.all;
        self.at.iter().map(move |&i| &all[i])
    }
}

/// What a Stage's candidates come to for the Stages downstream of it (the document's rule that
/// "a downstream Stage takes only what its upstream lists in status.offered: versions that passed
/// the published gate and were verified there"): the verdict of its candidate rules, the reason
/// of the first that failed, what could not be decided, how many upstream references its chain
/// follows before it ends, and whether it is on a loop of upstream references.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trust {
    /// `pass`, `fail` or `unknown`.
    pub verdict: &'static str,
    /// The reason of the first failing candidate rule (in [`super::ready::ORDER`]), when `fail`.
    pub reason: &'static str,
    /// Why it is `unknown`.
    pub undecided: Vec<String>,
    /// The upstream references followed from this Stage to the end of its chain (0: it names
    /// no upstream Stage; a reference to a Stage not read counts).
    pub depth: usize,
    /// Whether its chain leads back to it.
    pub on_cycle: bool,
}

fn read<'a, T>(
    listed: &'a ListedObjects,
    what: &str,
    view: fn(&'a serde_json::Value) -> T,
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
        Some(Ok(items)) => Views::Read(
            last_wins(items, what, notes)
                .into_iter()
                .map(view)
                .collect(),
        ),
    }
}

/// A kind read in the namespaces of `partial`: each namespace whose list failed is named with
/// the kind and why.
fn read_partly<'a, T>(
    listed: &'a ListedObjects,
    partial: &BTreeMap<String, Option<String>>,
    what: &'static str,
    view: fn(&'a serde_json::Value) -> T,
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
/// them: the last one wins, in the place of the first; a note names the duplicate.
fn last_wins<'a>(
    objects: &'a [serde_json::Value],
    what: &str,
    notes: &mut Vec<String>,
) -> Vec<&'a serde_json::Value> {
    let key = |o: &'a serde_json::Value| {
        (
            o.pointer("/metadata/namespace")
                .and_then(serde_json::Value::as_str)
                .unwrap_or(""),
            o.pointer("/metadata/name")
                .and_then(serde_json::Value::as_str)
                .unwrap_or(""),
        )
    };
    let mut out: Vec<&serde_json::Value> = Vec::with_capacity(objects.len());
    let mut index: HashMap<Key<'a>, usize> = HashMap::with_capacity(objects.len());
    for o in objects {
        let k = key(o);
        match index.get(&k) {
            Some(&at) => {
                notes.push(format!(
                    "{what} {}/{} is given twice: the last one is read",
                    k.0, k.1
                ));
                out[at] = o;
            }
            None => {
                index.insert(k, out.len());
                out.push(o);
            }
        }
    }
    out
}

/// What each kind a Stage depends on is called in messages.
const REPOSITORIES: &str = "OCIRepositories (source.toolkit.fluxcd.io)";
const KUSTOMIZATIONS: &str = "Kustomizations (kustomize.toolkit.fluxcd.io)";
const APPLICATIONS: &str = "Applications (argoproj.io)";

impl<'a> World<'a> {
    /// Reads a snapshot whose kinds were read in every namespace.
    pub fn new(s: &'a Snapshot) -> World<'a> {
        let mut notes = Vec::new();
        let stages = last_wins(&s.stages, "Stage", &mut notes);
        let repositories = read(
            &s.oci_repositories,
            REPOSITORIES,
            OciRepositoryView::new,
            &mut notes,
        );
        let kustomizations = read(
            &s.kustomizations,
            KUSTOMIZATIONS,
            KustomizationView::new,
            &mut notes,
        );
        let applications = read(
            &s.applications,
            APPLICATIONS,
            ApplicationView::new,
            &mut notes,
        );
        World::of(
            stages.into_iter().map(StageView::new).collect(),
            repositories,
            kustomizations,
            applications,
            notes,
            Vec::new(),
        )
    }

    /// Reads a snapshot whose kinds were read only in the namespaces `partial` names
    /// ([`super::snapshot::reads`]), and whose upstream Stages `partial` may say could not be
    /// read.
    pub fn read_in(s: &'a Snapshot, partial: &Partial) -> World<'a> {
        let mut notes = Vec::new();
        let stages = last_wins(&s.stages, "Stage", &mut notes);
        let repositories = read_partly(
            &s.oci_repositories,
            &partial.oci_repositories,
            REPOSITORIES,
            OciRepositoryView::new,
            &mut notes,
        );
        let kustomizations = read_partly(
            &s.kustomizations,
            &partial.kustomizations,
            KUSTOMIZATIONS,
            KustomizationView::new,
            &mut notes,
        );
        let applications = read_partly(
            &s.applications,
            &partial.applications,
            APPLICATIONS,
            ApplicationView::new,
            &mut notes,
        );
        World::of(
            stages.into_iter().map(StageView::new).collect(),
            repositories,
            kustomizations,
            applications,
            notes,
            partial.stages.clone(),
        )
    }

    fn of(
        stages: Vec<StageView<'a>>,
        repositories: Views<OciRepositoryView<'a>>,
        kustomizations: Views<KustomizationView<'a>>,
        applications: Views<ApplicationView<'a>>,
        notes: Vec<String>,
        unreadable_stages: Vec<(String, String, String)>,
    ) -> World<'a> {
        let index = Index::new(
            &stages,
            &repositories,
            &kustomizations,
            &applications,
            &unreadable_stages,
        );
        let trust = Mutex::new(vec![None; stages.len()]);
        World {
            stages,
            repositories,
            kustomizations,
            applications,
            notes,
            unreadable_stages,
            identities: Identities::default(),
            index,
            trust,
            max_upstream_depth: super::ready::DEFAULT_MAX_UPSTREAM_DEPTH,
        }
    }

    /// The same world, following upstream chains through `depth` references (at least 1;
    /// `--max-upstream-depth`). Before any Stage is judged.
    pub fn with_max_upstream_depth(mut self, depth: usize) -> World<'a> {
        self.max_upstream_depth = depth.max(1);
        self
    }

    /// Why the Stage `namespace/name` could not be read, if it could not.
    pub fn unreadable_stage(&self, namespace: &str, name: &str) -> Option<&str> {
        let at = *self
            .index
            .unreadable_stages
            .get(&(namespace.to_string(), name.to_string()))?;
        Some(self.unreadable_stages[at].2.as_str())
    }

    /// The position of the Stage `namespace/name` in [`World::stages`], if listed.
    pub fn stage_at(&self, namespace: &str, name: &str) -> Option<usize> {
        self.index.stages.get(&(namespace, name)).copied()
    }

    /// The Stage `namespace/name`, if listed.
    pub fn stage(&self, namespace: &str, name: &str) -> Option<&StageView<'a>> {
        self.stage_at(namespace, name).map(|i| &self.stages[i])
    }

    /// The OCIRepository `namespace/name`: Ok(None) when it does not exist, Err when
    /// the OCIRepositories of its namespace could not be read.
    pub fn repository(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<Option<&OciRepositoryView<'a>>, String> {
        let all = self.repositories.in_namespace(namespace)?;
        Ok(self
            .index
            .repositories
            .get(&(namespace, name))
            .map(|&i| &all[i]))
    }

    /// The Kustomizations whose `spec.sourceRef` names the OCIRepository `namespace/name`, and
    /// those that name it without a `sourceRef.kind` (Flux requires one: not appliers), in the
    /// order read, or why the Kustomizations are not all known.
    #[allow(clippy::type_complexity)]
    pub fn kustomizations_of(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<
        (
            Indexed<'_, KustomizationView<'a>>,
            Indexed<'_, KustomizationView<'a>>,
        ),
        &str,
    > {
        Ok((
            self.kustomizations
                .indexed(&self.index.kustomizations, namespace, name)?,
            self.kustomizations
                .indexed(&self.index.kindless, namespace, name)?,
        ))
    }

    /// The Applications labelled `delivery.pacto.trianalab.io/apply-ref=<stage>` whose
    /// destination namespace is `namespace`, in the order read, or why the Applications are not
    /// all known.
    pub fn applications_of(
        &self,
        namespace: &str,
        stage: &str,
    ) -> Result<Indexed<'_, ApplicationView<'a>>, &str> {
        self.applications
            .indexed(&self.index.applications, namespace, stage)
    }

    /// The [`Trust`] of the Stage at `at` in [`World::stages`], computed once per run: its
    /// chain is walked up (no recursion) to the first Stage whose verdict is known, the end of
    /// the chain, or a Stage already on the walk (a loop: every Stage on it is untrusted, and
    /// the loop is not followed again); then each Stage of the walk is judged from the one
    /// above it, top down.
    pub fn trust(&self, at: usize) -> Trust {
        let mut memo = self.trust.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = &memo[at] {
            return t.clone();
        }
        let mut walk: Vec<usize> = Vec::new();
        let mut on_walk: HashMap<usize, usize> = HashMap::new();
        let mut cur = at;
        let looped = loop {
            if memo[cur].is_some() {
                break None;
            }
            if let Some(&from) = on_walk.get(&cur) {
                break Some(from);
            }
            on_walk.insert(cur, walk.len());
            walk.push(cur);
            match self.stages[cur]
                .upstream_stage
                .filter(|u| !u.name.is_empty())
                .and_then(|u| self.stage_at(u.namespace, u.name))
            {
                Some(next) => cur = next,
                None => break None,
            }
        };
        let mut judged = walk.len();
        if let Some(from) = looped {
            for &i in &walk[from..] {
                memo[i] = Some(super::ready::trust_of(
                    &self.stages[i],
                    self,
                    super::ready::Upstream::OnLoop,
                ));
            }
            judged = from;
        }
        for &i in walk[..judged].iter().rev() {
            let up = self.stages[i]
                .upstream_stage
                .filter(|u| !u.name.is_empty())
                .and_then(|u| self.stage_at(u.namespace, u.name))
                .and_then(|j| memo[j].clone());
            let upstream = match &up {
                Some(t) => super::ready::Upstream::Judged(t),
                None => super::ready::Upstream::NotListed,
            };
            memo[i] = Some(super::ready::trust_of(&self.stages[i], self, upstream));
        }
        // `at` began the walk, so it was judged above.
        memo[at].clone().unwrap_or_default()
    }
}
