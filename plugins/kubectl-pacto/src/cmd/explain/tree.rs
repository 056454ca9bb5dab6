//! `kubectl pacto tree application/NAME|kustomization/NAME|helmrelease/NAME` (and `explain ...
//! --tree`): the
//! gate's object and the objects below it, read from files or from the cluster, laid out by
//! the library (`pacto::explain::tree`, `render::tree`). From the cluster, the objects are read
//! level by level: the Application's `status.resources` (or the Kustomization's inventory),
//! then those of each child Application (or Kustomization) found, down to `--depth`; every
//! object read counts against `--max-list-items`.

use super::one_level_up::{argo_gate_of_files, engine_of, the_one};
use crate::io::connect::{block_on_within, connect, namespace};
use crate::io::gates::load_gates;
use crate::io::live::{read_referenced, Reference};
use crate::io::output::{json_for, terminal_width, text_for, write_stdout};
use anyhow::{anyhow, bail, Context, Result};
use kubectl_pacto::cli::{ClusterArgs, ExplainArgs, GateArgs, Output, TreeArgs};
use kubectl_pacto::options::{ClusterOptions, Global};
use kubectl_pacto::resource::{explain_target, Explained, Target};
use pacto_gates::argo::app_health::resources;
use pacto_gates::flux::wait_set::inventory;
use pacto_gates::kinds;
use pacto_gates::object;
use pacto_gates::pacto::explain::tree::{
    application_tree, helm_release_tree, kustomization_tree, TreeNode,
};
use pacto_gates::render;
use serde_json::Value;
use std::process::ExitCode;

/// How many levels a tree shows without `--depth`: deeper chains are cut there with a note (a
/// tree's text grows with the square of its depth: the drawing in front of each name).
const DEFAULT_DEPTH: usize = 1000;

/// One tree to print, from `tree` or `explain --tree`.
struct Request<'a> {
    target: Target,
    files: &'a [std::path::PathBuf],
    depth: Option<usize>,
    output: Option<Output>,
    timeout: &'a str,
    cluster: &'a ClusterArgs,
    gates: &'a GateArgs,
}

/// `kubectl pacto tree`.
pub(crate) fn run(args: &TreeArgs, global: &Global) -> Result<ExitCode> {
    print(
        Request {
            target: explain_target(&args.target)?,
            files: &args.files,
            depth: Some(args.depth.map_or(DEFAULT_DEPTH, |d| d as usize)),
            output: args.output,
            timeout: &args.timeout,
            cluster: &args.cluster,
            gates: &args.gates,
        },
        global,
    )
}

/// `kubectl pacto explain KIND/NAME --tree`.
pub(super) fn from_explain(args: &ExplainArgs, global: &Global) -> Result<ExitCode> {
    let Some(target) = args.target.as_deref() else {
        bail!("--tree needs application/NAME, kustomization/NAME or helmrelease/NAME");
    };
    print(
        Request {
            target: explain_target(target)?,
            files: &args.files,
            depth: Some(args.depth.map_or(DEFAULT_DEPTH, |d| d as usize)),
            output: args.output,
            timeout: &args.timeout,
            cluster: &args.cluster,
            gates: &args.gates,
        },
        global,
    )
}

fn print(r: Request<'_>, global: &Global) -> Result<ExitCode> {
    if !matches!(
        r.target.kind,
        Explained::Application | Explained::Kustomization | Explained::HelmRelease
    ) {
        bail!(
            "{}/{}: a tree is drawn for application/NAME, kustomization/NAME or helmrelease/NAME",
            r.target.group_kind().1.to_ascii_lowercase(),
            r.target.name
        );
    }
    let mut cluster = ClusterOptions::new(r.cluster)?;
    kubectl_pacto::options::argocd_namespace(&r.gates.argocd_namespace)?;
    cluster.connect.deadline = kubectl_pacto::options::deadline(r.timeout, "30s or 5m (0: none)")?;
    let tree = if r.files.is_empty() {
        from_cluster(&r, &cluster, global)?
    } else {
        from_files(&r, cluster.namespace.as_deref(), global)?
    };
    let out = match r.output {
        None => render::tree::tree_table(&tree, global.colour, terminal_width(global.terminal)),
        Some(Output::Json) => {
            json_for(serde_json::to_string_pretty(&tree)? + "\n", global.terminal)
        }
        Some(Output::Yaml) => text_for(
            serde_saphyr::to_string(&tree).context("rendering YAML")?,
            global.terminal,
        ),
    };
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

fn from_files(r: &Request<'_>, namespace: Option<&str>, global: &Global) -> Result<TreeNode> {
    let all: Vec<Value> = object::read_values(r.files)?;
    let obj = the_one(&all, &r.target, namespace)?;
    let what = format!(
        "{}/{}",
        r.target.group_kind().1.to_ascii_lowercase(),
        r.target.name
    );
    match r.target.kind {
        Explained::Application => {
            let argo = argo_gate_of_files(&all, r.gates, global.now)?;
            application_tree(obj, &all, engine_of(&argo)?, r.depth)
        }
        Explained::HelmRelease => helm_release_tree(obj, &all, global.now.as_second(), r.depth),
        _ => kustomization_tree(obj, &all, global.now.as_second(), r.depth),
    }
    .map_err(|e| anyhow!("{what}: {e}"))
}

/// The objects a node names: an Application's `status.resources`, a Kustomization's inventory
/// (nothing for other kinds, or when malformed: the tree then says so on its node).
fn named_by(o: &Value) -> Vec<Reference> {
    if kinds::APPLICATION.is(o) {
        resources(o, &[])
            .map(|rs| {
                rs.into_iter()
                    .map(|r| (r.group, r.version, r.kind, r.namespace, r.name))
                    .collect()
            })
            .unwrap_or_default()
    } else if kinds::KUSTOMIZATION.is(o) {
        inventory(o)
            .ok()
            .flatten()
            .unwrap_or_default()
            .into_iter()
            .map(|e| (e.group, e.version, e.kind, e.namespace, e.name))
            .collect()
    } else {
        Vec::new()
    }
}

fn from_cluster(r: &Request<'_>, c: &ClusterOptions, global: &Global) -> Result<TreeNode> {
    let api = match r.target.kind {
        Explained::Application => kinds::APPLICATION,
        Explained::HelmRelease => kinds::HELM_RELEASE,
        _ => kinds::KUSTOMIZATION,
    };
    // The kinds expanded below the root: Applications in an app of apps; Kustomizations and
    // HelmReleases in Flux's tree.
    let expanded = |o: &Value| match r.target.kind {
        Explained::Application => kinds::APPLICATION.is(o),
        _ => kinds::KUSTOMIZATION.is(o) || kinds::HELM_RELEASE.is(o),
    };
    let bound = r.cluster.max_list_items;
    block_on_within(c.connect.deadline, async {
        let cluster = connect(c).await?;
        let kind = cluster.discover(api.group, api.version, api.kind).await?;
        let ns = namespace(c, &cluster);
        let root = cluster.get(&kind, &ns, &r.target.name).await?;
        let what = format!("{}/{}", api.kind.to_ascii_lowercase(), r.target.name);
        // Level by level: what the root names, then what the children of its kind name.
        let mut all: Vec<Value> = vec![root.clone()];
        let mut asked: std::collections::HashSet<Reference> = Default::default();
        let mut level: Vec<Value> = vec![root.clone()];
        let mut depth = 0usize;
        while !level.is_empty() && r.depth.is_none_or(|d| depth < d) {
            let mut named: Vec<Reference> = level.iter().flat_map(named_by).collect();
            for hr in level.iter().filter(|o| kinds::HELM_RELEASE.is(o)) {
                // A HelmRelease names the objects of its latest release, read from its storage
                // Secret (kept among the live objects, where the tree finds it again).
                if let Some((secret, objects)) = release_of(&cluster, hr).await? {
                    all.push(secret);
                    named.extend(objects);
                }
            }
            let refs: Vec<Reference> = named
                .into_iter()
                .filter(|x| asked.insert(x.clone()))
                .collect();
            if asked.len() as u64 > bound {
                bail!("{what}: the tree names more than {bound} objects (--max-list-items)");
            }
            let read = read_referenced(&cluster, &refs).await?;
            level = read.iter().filter(|o| expanded(o)).cloned().collect();
            all.extend(read);
            depth += 1;
        }
        match r.target.kind {
            Explained::Application => {
                let (argo, _) = load_gates(r.gates, Some(&cluster), global.now).await?;
                application_tree(&root, &all, engine_of(&argo)?, r.depth)
            }
            Explained::HelmRelease => {
                helm_release_tree(&root, &all, global.now.as_second(), r.depth)
            }
            _ => kustomization_tree(&root, &all, global.now.as_second(), r.depth),
        }
        .map_err(|e| anyhow!("{what}: {e}"))
    })
}

/// The storage Secret of the HelmRelease `hr`'s latest release and the objects the release
/// holds (their namespaces as Kubernetes scopes its built-in kinds; a custom kind is taken as
/// namespaced); None when it records no release or its Secret is not there (the tree then
/// says so on its node). Errors: a read refused (a Secret the user may not read), a release
/// that cannot be read.
async fn release_of(
    cluster: &pacto_gates::cluster::Cluster,
    hr: &Value,
) -> Result<Option<(Value, Vec<Reference>)>> {
    use pacto_gates::flux::helm_release::{latest, storage};
    let Ok(Some((release, storage_ns))) = latest(hr) else {
        return Ok(None);
    };
    let name = storage::secret_name(&release.name, release.version);
    let secret = match cluster
        .get(
            &pacto_gates::cluster::ServedKind::secret(),
            &storage_ns,
            &name,
        )
        .await
    {
        Ok(s) => s,
        Err(pacto_gates::cluster::ClusterError::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let Ok(manifest) = storage::manifest(&secret, pacto_gates::k8s::read::max_input_bytes()) else {
        return Ok(Some((secret, Vec::new())));
    };
    let objects = storage::objects(&manifest, &release.namespace, |g, k| {
        !storage::CLUSTER_SCOPED.contains(&(g, k))
    })
    .unwrap_or_default();
    let refs = objects.iter().map(super::helm_release::reference).collect();
    Ok(Some((secret, refs)))
}
