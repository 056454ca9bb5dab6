//! The gate as a tree (`kubectl pacto tree`, `explain --tree`): an Argo CD Application with the
//! resources of its `status.resources`, a Flux Kustomization with the objects of its
//! `status.inventory`, or a Flux HelmRelease with the objects of its latest Helm release, each
//! with its health through the gate that judges it; a child Application (app of apps), a child
//! Kustomization or a HelmRelease found among the live objects is expanded the same way, below
//! it.
//!
//! What each node's health is, by the source that decides it:
//! - the root Application: argo-cd `setApplicationHealth` over its resources
//!   ([`crate::argo::app_health::app_health`]); each resource: the health that function gave it,
//!   with the rule that judged it (a resource left out of the aggregation keeps its health and
//!   says why it does not count);
//! - the root Kustomization: what its wait comes to ([`crate::flux::wait_set::explain_wait`]:
//!   kustomize-controller `checkHealth`, fluxcd/pkg `ssa` `WaitForSetWithContext`); each
//!   inventory object: the status the wait's reader gives it (`healthCheckExprs[i]`, Flux's Job
//!   reader, kstatus), or `-` when the wait does not cover it (`spec.wait: false`, not in
//!   `spec.healthChecks`).
//!
//! A child's own children come from the child's own gate, so a nested Kustomization shows what
//! its parent's wait reads on it (kstatus on its Ready condition), then its own inventory.
//! Bounds: `depth` levels below the root (None: all); each Application or Kustomization is
//! expanded once, a second sighting (a cycle, or one listed twice) is a leaf that says so.
//! Pure: objects in, nodes out.

use super::Tone;
use crate::argo::app_health::{app_health, resources_in, AppHealth, Counted};
use crate::argo::health::ArgoHealth;
use crate::flux::wait_set::{
    explain_wait_in, inventory, Covered, Overall, WaitExplanation, Waited,
};
use crate::flux::KStatus;
use crate::k8s::gvk::{gvk_of, index_by_identity, str_at, Identity, Index};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashSet;

/// One node of the tree: an object, its health through the gate above it, the rule that
/// decided and its message, then the objects below it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeNode {
    /// The API group (empty for the core group).
    pub group: String,
    pub kind: String,
    /// Empty for cluster-scoped objects.
    pub namespace: String,
    pub name: String,
    /// An Argo CD health code (Applications and their resources), a kstatus status (a
    /// Kustomization's objects), what a root Kustomization's wait comes to (`Ready`,
    /// `WouldFail`, `WouldTimeOut`, `NotChecked`, `Stalled`), or `-` when no gate judges it.
    pub health: String,
    /// The rule that gave the health: an argocd-cm key or glob, a built-in script, a built-in Go
    /// check, `healthCheckExprs[i]`, `kstatus`, `job-reader`, `wait`, `not waited`.
    pub rule: String,
    /// The rule's message (Argo CD's health message, kstatus's, the text Flux would print).
    pub message: String,
    /// Whether the node decides its parent's verdict (an Argo CD health cause; an object Flux
    /// names in its wait's message).
    pub deciding: bool,
    /// Why the node is shown without its children: `not expanded: depth`, `shown above`, `not
    /// among the live objects`, or the child's own error; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub children: Vec<TreeNode>,
    /// How the health reads, for colour on a terminal.
    #[serde(skip)]
    pub tone: Tone,
}

const ARGO: &str = "argoproj.io";
const FLUX: &str = "kustomize.toolkit.fluxcd.io";
const HELM: &str = "helm.toolkit.fluxcd.io";

/// The identity an object is expanded under: (group, kind, namespace, name).
type Seen = HashSet<(String, String, String, String)>;

fn identity(o: &Value) -> (String, String, String, String) {
    (
        gvk_of(o).group.to_string(),
        str_at(o, "/kind").to_string(),
        str_at(o, "/metadata/namespace").to_string(),
        str_at(o, "/metadata/name").to_string(),
    )
}

/// `live` with `root` added when it is not among them, so that a child that lists the root
/// sees it live; None when it is there already.
fn with(live: &[Value], root: &Value) -> Option<Vec<Value>> {
    let id = identity(root);
    if live.iter().any(|o| identity(o) == id) {
        return None;
    }
    let mut all = live.to_vec();
    all.push(root.clone());
    Some(all)
}

fn argo_tone(code: &str) -> Tone {
    match code {
        "Healthy" => Tone::Good,
        "Degraded" | "Missing" => Tone::Bad,
        "Unknown" => Tone::Warn,
        "" | "-" => Tone::Plain,
        _ => Tone::Pending,
    }
}

fn kstatus_tone(s: KStatus) -> Tone {
    match s {
        KStatus::Current => Tone::Good,
        KStatus::Failed | KStatus::NotFound => Tone::Bad,
        KStatus::Unknown => Tone::Warn,
        KStatus::InProgress | KStatus::Terminating => Tone::Pending,
    }
}

fn overall_tone(o: Overall) -> Tone {
    match o {
        Overall::Ready => Tone::Good,
        Overall::WouldFail | Overall::Stalled => Tone::Bad,
        Overall::WouldTimeOut => Tone::Pending,
        Overall::NotChecked => Tone::Plain,
    }
}

/// What every level of one tree reads: the live objects, indexed once (a tree of N objects
/// costs about N lookups, however many Kustomizations or Applications it nests).
struct Ctx<'a> {
    live: &'a [Value],
    index: Index<'a>,
    /// The first position of each identity among `live` (the order the objects were given).
    position: std::collections::HashMap<Identity<'a>, usize>,
    /// (group, kind) of the live objects without a namespace: kinds that are cluster-scoped.
    cluster_scoped: HashSet<(String, &'a str)>,
    now_unix: i64,
    depth: Option<usize>,
}

impl<'a> Ctx<'a> {
    fn new(live: &'a [Value], now_unix: i64, depth: Option<usize>) -> Ctx<'a> {
        let mut position = std::collections::HashMap::with_capacity(live.len());
        let mut cluster_scoped = HashSet::new();
        for (i, o) in live.iter().enumerate() {
            let (ns, kind) = (str_at(o, "/metadata/namespace"), str_at(o, "/kind"));
            position
                .entry((gvk_of(o).group, kind, ns, str_at(o, "/metadata/name")))
                .or_insert(i);
            if ns.is_empty() && !str_at(o, "/metadata/name").is_empty() {
                cluster_scoped.insert((gvk_of(o).group, kind));
            }
        }
        Ctx {
            live,
            index: index_by_identity(live),
            position,
            cluster_scoped,
            now_unix,
            depth,
        }
    }

    fn get(&self, group: &str, kind: &str, namespace: &str, name: &str) -> Option<&'a Value> {
        self.index
            .get(&(group.to_string(), kind, namespace, name))
            .copied()
    }
}

/// The tree of the Application `app` over the live objects `live`, its resources judged with
/// `engine` (the cluster's argocd-cm), `depth` levels deep (None: all). Errors: the root's
/// `status.resources` is malformed (a child's is a note on its node).
pub fn application_tree(
    app: &Value,
    live: &[Value],
    engine: &ArgoHealth,
    depth: Option<usize>,
) -> Result<TreeNode, String> {
    let with_root = with(live, app);
    let live = with_root.as_deref().unwrap_or(live);
    let ctx = Ctx::new(live, 0, depth);
    let mut seen = Seen::new();
    seen.insert(identity(app));
    let (h, children) = application_children(app, &ctx, engine, 0, &mut seen)?;
    let (g, k, ns, n) = identity(app);
    Ok(TreeNode {
        group: g,
        kind: k,
        namespace: ns,
        name: n,
        tone: argo_tone(&h.status),
        health: h.status,
        rule: "setApplicationHealth".into(),
        message: h.message,
        deciding: false,
        note: None,
        children,
    })
}

/// The Application's health over its resources, and their nodes in `status.resources` order.
fn application_children(
    app: &Value,
    ctx: &Ctx<'_>,
    engine: &ArgoHealth,
    level: usize,
    seen: &mut Seen,
) -> Result<(AppHealth, Vec<TreeNode>), String> {
    let rs = resources_in(app, &ctx.index)?;
    let mut h = app_health(app, &rs, engine);
    let mut judged = std::mem::take(&mut h.resources);
    // The tree keeps status.resources' order; explain sorts worst first.
    judged.sort_by_key(|j| j.index);
    let mut out = Vec::with_capacity(judged.len());
    for j in judged {
        let health = j.health.as_ref().map(|s| s.status.clone());
        let mut message = j
            .health
            .as_ref()
            .map(|s| s.message.clone())
            .unwrap_or_default();
        if let Some(e) = &j.error {
            message = e.clone();
        }
        let reason = j.counted.reason();
        if j.counted != Counted::Counted && !reason.is_empty() {
            message = if message.is_empty() {
                format!("({reason})")
            } else {
                format!("{message} ({reason})")
            };
        }
        let mut node = TreeNode {
            group: j.group.clone(),
            kind: j.kind.clone(),
            namespace: j.namespace.clone(),
            name: j.name.clone(),
            tone: argo_tone(health.as_deref().unwrap_or("")),
            health: health.unwrap_or_else(|| "-".into()),
            rule: j.rule.describe(),
            message,
            deciding: j.cause,
            note: None,
            children: Vec::new(),
        };
        if j.group == ARGO && j.kind == "Application" {
            let child = rs.get(j.index).and_then(|r| r.live);
            expand(&mut node, child, ctx.depth, level, seen, |c, seen| {
                Ok(application_children(c, ctx, engine, level + 1, seen)?.1)
            });
        }
        out.push(node);
    }
    Ok((h, out))
}

/// Expands `node` with the children `below` gives for its live object `child`, unless the depth
/// is reached, the object is not live or it was expanded already; a child's error is its note.
fn expand(
    node: &mut TreeNode,
    child: Option<&Value>,
    depth: Option<usize>,
    level: usize,
    seen: &mut Seen,
    below: impl FnOnce(&Value, &mut Seen) -> Result<Vec<TreeNode>, String>,
) {
    let Some(child) = child else {
        node.note = Some("not among the live objects".into());
        return;
    };
    if depth.is_some_and(|d| level + 1 >= d) {
        node.note = Some("not expanded: depth".into());
        return;
    }
    if !seen.insert(identity(child)) {
        node.note = Some("shown above".into());
        return;
    }
    match below(child, seen) {
        Ok(children) => node.children = children,
        Err(e) => node.note = Some(e),
    }
}

/// The tree of the Kustomization `k` over the live objects `live`, with kstatus's now at
/// `now_unix`, `depth` levels deep (None: all). Errors: as
/// [`crate::flux::wait_set::explain_wait`] on the root (a child's are a note on its node).
pub fn kustomization_tree(
    k: &Value,
    live: &[Value],
    now_unix: i64,
    depth: Option<usize>,
) -> Result<TreeNode, String> {
    let with_root = with(live, k);
    let live = with_root.as_deref().unwrap_or(live);
    let ctx = Ctx::new(live, now_unix, depth);
    let mut seen = Seen::new();
    seen.insert(identity(k));
    let w = explain_wait_in(k, live, &ctx.index, now_unix)?;
    let children = kustomization_children(k, &w, &ctx, 0, &mut seen)?;
    let rule = match w.covered {
        Covered::Inventory => "wait (spec.wait: the inventory)",
        Covered::ObjectsGiven => "wait (spec.wait; no inventory: the objects given)",
        Covered::HealthChecks => "wait (spec.healthChecks)",
        Covered::Nothing => "no wait (spec.wait: false, no spec.healthChecks)",
        Covered::Release => "wait (the latest Helm release)",
    };
    Ok(flux_root(k, w, rule, children))
}

/// The root node of a Flux tree: the object, what its wait `w` comes to under `rule`, and its
/// children.
fn flux_root(obj: &Value, w: WaitExplanation, rule: &str, children: Vec<TreeNode>) -> TreeNode {
    let (group, kind, namespace, name) = identity(obj);
    TreeNode {
        group,
        kind,
        namespace,
        name,
        tone: overall_tone(w.overall),
        health: w.overall.as_str().into(),
        rule: rule.into(),
        message: w.message,
        deciding: false,
        note: None,
        children,
    }
}

/// The waited objects of `w` by identity.
fn waited_by_id(
    w: &WaitExplanation,
) -> std::collections::HashMap<(&str, &str, &str, &str), &Waited> {
    w.objects
        .iter()
        .map(|o| {
            (
                (
                    o.group.as_str(),
                    o.kind.as_str(),
                    o.namespace.as_str(),
                    o.name.as_str(),
                ),
                o,
            )
        })
        .collect()
}

/// The node of one object of a Flux wait: its status and reader when the wait covers it, else
/// `-` with `not_waited` as its rule.
fn flux_node(
    (group, kind, namespace, name): (String, String, String, String),
    waited: Option<&Waited>,
    not_waited: &str,
) -> TreeNode {
    match waited {
        Some(o) => TreeNode {
            group,
            kind,
            namespace,
            name,
            health: o.status.as_str().into(),
            tone: kstatus_tone(o.status),
            rule: o.reader.clone(),
            message: o.error.clone().unwrap_or_else(|| o.message.clone()),
            deciding: o.deciding,
            note: None,
            children: Vec::new(),
        },
        None => TreeNode {
            group,
            kind,
            namespace,
            name,
            health: "-".into(),
            tone: Tone::Plain,
            rule: not_waited.into(),
            message: String::new(),
            deciding: false,
            note: None,
            children: Vec::new(),
        },
    }
}

/// The nodes of the Kustomization `k`'s inventory (without one, of what its wait `w` covers,
/// in the order the objects were given).
fn kustomization_children(
    k: &Value,
    w: &WaitExplanation,
    ctx: &Ctx<'_>,
    level: usize,
    seen: &mut Seen,
) -> Result<Vec<TreeNode>, String> {
    let waited = waited_by_id(w);
    // The inventory is what the Kustomization applied; without one, what the wait covers.
    let entries: Vec<(String, String, String, String)> = match inventory(k)? {
        Some(inv) => inv
            .into_iter()
            .map(|e| (e.group, e.kind, e.namespace, e.name))
            .collect(),
        None => {
            // The wait lists its objects worst first; the tree keeps the order they were given.
            let mut given: Vec<(usize, &Waited)> = w
                .objects
                .iter()
                .map(|o| {
                    let at = ctx
                        .position
                        .get(&(
                            o.group.clone(),
                            o.kind.as_str(),
                            o.namespace.as_str(),
                            o.name.as_str(),
                        ))
                        .copied()
                        .unwrap_or(usize::MAX);
                    (at, o)
                })
                .collect();
            given.sort_by_key(|(i, _)| *i);
            given
                .into_iter()
                .map(|(_, o)| {
                    (
                        o.group.clone(),
                        o.kind.clone(),
                        o.namespace.clone(),
                        o.name.clone(),
                    )
                })
                .collect()
        }
    };
    let (own_name, own_ns) = (
        str_at(k, "/metadata/name"),
        str_at(k, "/metadata/namespace"),
    );
    let mut out = Vec::with_capacity(entries.len());
    for id in entries {
        let own = id.3 == own_name && id.2 == own_ns && id.1 == "Kustomization";
        let found = waited
            .get(&(id.0.as_str(), id.1.as_str(), id.2.as_str(), id.3.as_str()))
            .copied();
        let mut node = flux_node(
            id,
            found,
            if own {
                "not waited (the Kustomization itself)"
            } else {
                "not waited"
            },
        );
        expand_flux(&mut node, ctx, level, seen, own);
        out.push(node);
    }
    Ok(out)
}

/// The tree of the HelmRelease `hr` over the live objects `live` (which hold its Helm storage
/// Secret), `depth` levels deep. The root's health is what the wait of its latest release comes
/// to ([`crate::flux::helm_release::explain_release`]). Errors: as that function's, no release
/// recorded, the storage Secret not among `live`, a release that cannot be read.
pub fn helm_release_tree(
    hr: &Value,
    live: &[Value],
    now_unix: i64,
    depth: Option<usize>,
) -> Result<TreeNode, String> {
    let with_root = with(live, hr);
    let live = with_root.as_deref().unwrap_or(live);
    let ctx = Ctx::new(live, now_unix, depth);
    let mut seen = Seen::new();
    seen.insert(identity(hr));
    let (w, children) = helm_release_children(hr, &ctx, 0, &mut seen)?;
    let rule = match w.covered {
        Covered::Nothing => "no wait (the action's disableWait)",
        _ => "wait (the latest Helm release)",
    };
    Ok(flux_root(hr, w, rule, children))
}

/// Expands a child Kustomization (its own wait and inventory) or a child HelmRelease (the wait
/// and objects of its latest Helm release) below `node`; other kinds stay leaves.
fn expand_flux(node: &mut TreeNode, ctx: &Ctx<'_>, level: usize, seen: &mut Seen, own: bool) {
    let kustomization = node.group == FLUX && node.kind == "Kustomization" && !own;
    let helm = node.group == HELM && node.kind == "HelmRelease";
    if !kustomization && !helm {
        return;
    }
    let child = ctx.get(&node.group, &node.kind, &node.namespace, &node.name);
    expand(node, child, ctx.depth, level, seen, |c, seen| {
        if helm {
            Ok(helm_release_children(c, ctx, level + 1, seen)?.1)
        } else {
            let w = explain_wait_in(c, ctx.live, &ctx.index, ctx.now_unix)?;
            kustomization_children(c, &w, ctx, level + 1, seen)
        }
    });
}

/// The wait of the HelmRelease `hr`'s latest release, and the nodes of its objects, in the
/// release manifest's order, each with the status helm-controller's wait gives it (`-` for what
/// it does not wait for: a paused Deployment, or everything when the action does not wait). The
/// release is read from its Helm storage Secret among the live objects
/// ([`crate::flux::helm_release::storage`]). Errors: no release recorded, its Secret not among
/// the live objects, a release that cannot be read.
fn helm_release_children(
    hr: &Value,
    ctx: &Ctx<'_>,
    level: usize,
    seen: &mut Seen,
) -> Result<(WaitExplanation, Vec<TreeNode>), String> {
    use crate::flux::helm_release::{explain_release_in, latest, storage};
    let Some((release, storage_ns)) = latest(hr)? else {
        return Err("records no Helm release (status.history, status.storageNamespace)".into());
    };
    let secret_name = storage::secret_name(&release.name, release.version);
    let secret = ctx
        .get("", "Secret", &storage_ns, &secret_name)
        .ok_or_else(|| {
            format!(
                "its Helm storage Secret {storage_ns}/{secret_name} is not among the live objects"
            )
        })?;
    let manifest = storage::manifest(secret, crate::k8s::read::max_input_bytes())
        .map_err(|e| format!("Secret {storage_ns}/{secret_name}: {e}"))?;
    let objects = storage::objects(&manifest, &release.namespace, |g, k| {
        !storage::CLUSTER_SCOPED.contains(&(g, k))
            && !ctx.cluster_scoped.contains(&(g.to_string(), k))
    })
    .map_err(|e| format!("Secret {storage_ns}/{secret_name}: {e}"))?;
    let w = explain_release_in(hr, &release, &objects, &ctx.index, ctx.now_unix)?;
    let waited = waited_by_id(&w);
    let mut out = Vec::with_capacity(objects.len());
    for o in &objects {
        let id = identity(o);
        let found = waited
            .get(&(id.0.as_str(), id.1.as_str(), id.2.as_str(), id.3.as_str()))
            .copied();
        let mut node = flux_node(id, found, "not waited");
        expand_flux(&mut node, ctx, level, seen, false);
        out.push(node);
    }
    Ok((w, out))
}

/// The number of nodes of `t`, itself included.
pub fn count(t: &TreeNode) -> usize {
    1 + t.children.iter().map(count).sum::<usize>()
}

#[cfg(test)]
mod tests;
