//! The values completion offers for each argument and flag: the resource types of `get`, the
//! formats of `-o`, the kinds of `explain` and `wait` with the Pactos of the context's
//! namespace, the kubeconfig's contexts and the cluster's namespaces. Names from a cluster are
//! read within a short bound and nothing is said on a failure: a shell waits for the answer.

use clap_complete::engine::CompletionCandidate;

/// What `get` lists (completion candidates).
pub fn resources() -> Vec<CompletionCandidate> {
    vec![
        CompletionCandidate::new("pactos")
            .help(Some("Pacto contracts (pacto.trianalab.io)".into())),
        CompletionCandidate::new("stages")
            .help(Some("delivery Stages (delivery.pacto.trianalab.io)".into())),
        CompletionCandidate::new("operations").help(Some(
            "delivery Operations (delivery.pacto.trianalab.io)".into(),
        )),
    ]
}

/// The formats `get -o` takes (completion candidates).
pub fn output_formats() -> Vec<CompletionCandidate> {
    // kubectl's own candidates for these formats (the template follows an `=`).
    [
        "wide",
        "name",
        "json",
        "yaml",
        "jsonpath",
        "jsonpath-as-json",
        "custom-columns",
    ]
    .into_iter()
    .map(CompletionCandidate::new)
    .collect()
}

/// The kinds `explain` takes from a cluster (completion candidates; the name follows the slash).
pub fn explain_kinds() -> Vec<CompletionCandidate> {
    vec![
        CompletionCandidate::new("pacto/").help(Some("pacto/NAME".into())),
        CompletionCandidate::new("codertemplatetest/").help(Some("codertemplatetest/NAME".into())),
        CompletionCandidate::new("stage/").help(Some("stage/NAME".into())),
        CompletionCandidate::new("operation/").help(Some("operation/NAME".into())),
    ]
}

/// How long completion may wait for the API server: a shell waits for the answer.
const CLUSTER_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// How completion connects: the kubeconfig of `KUBECONFIG` (merged, as kubectl), else
/// `~/.kube/config` (the candidate functions cannot see a `--kubeconfig` typed on the same
/// line), within [`CLUSTER_WAIT`].
fn options() -> pacto_gates::cluster::ConnectOptions {
    pacto_gates::cluster::ConnectOptions {
        request_timeout: Some(CLUSTER_WAIT),
        discovery_timeout: Some(CLUSTER_WAIT),
        ..Default::default()
    }
}

/// The contexts of the kubeconfig (`--context`), with their cluster as help.
pub fn contexts() -> Vec<clap_complete::engine::CompletionCandidate> {
    pacto_gates::cluster::kubeconfig_contexts()
        .into_iter()
        .map(|(name, cluster)| {
            clap_complete::engine::CompletionCandidate::new(name)
                .help(Some(format!("cluster {cluster}").into()))
        })
        .collect()
}

/// Runs one read against the cluster of the kubeconfig within [`CLUSTER_WAIT`]; nothing on any
/// failure (completion never prints errors).
fn from_cluster<F, Fut>(read: F) -> Vec<String>
where
    F: FnOnce(pacto_gates::cluster::Cluster) -> Fut,
    Fut: std::future::Future<Output = Vec<String>>,
{
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return Vec::new();
    };
    let names = rt.block_on(async {
        let work = async {
            match pacto_gates::cluster::Cluster::connect(&options()).await {
                Ok(c) => read(c).await,
                Err(_) => Vec::new(),
            }
        };
        tokio::time::timeout(CLUSTER_WAIT * 2, work)
            .await
            .unwrap_or_default()
    });
    rt.shutdown_background();
    names
}

fn names_of(objects: &[serde_json::Value]) -> Vec<String> {
    objects
        .iter()
        .filter_map(|o| o.pointer("/metadata/name").and_then(|n| n.as_str()))
        .map(str::to_string)
        .collect()
}

/// The namespaces of the cluster (`-n`).
pub fn namespaces() -> Vec<clap_complete::engine::CompletionCandidate> {
    from_cluster(|c| async move {
        c.list(
            &pacto_gates::cluster::ServedKind::namespace(),
            pacto_gates::cluster::Scope::All,
            None,
        )
        .await
        .map(|l| names_of(&l.items))
        .unwrap_or_default()
    })
    .into_iter()
    .map(clap_complete::engine::CompletionCandidate::new)
    .collect()
}

/// The gates one level up that `explain` and `tree` take (completion candidates; the name
/// follows the slash).
pub fn gate_kinds() -> Vec<CompletionCandidate> {
    vec![
        CompletionCandidate::new("application/").help(Some("application/NAME".into())),
        CompletionCandidate::new("kustomization/").help(Some("kustomization/NAME".into())),
        CompletionCandidate::new("helmrelease/").help(Some("helmrelease/NAME".into())),
    ]
}

/// `explain`'s targets: the kinds, the gates one level up, then `pacto/NAME` for the Pactos of
/// the context's namespace.
pub fn explain_targets() -> Vec<CompletionCandidate> {
    let mut out = targets();
    let at = explain_kinds().len();
    out.splice(at..at, gate_kinds());
    out
}

/// `pacto/NAME` for the Pactos of the context's namespace, after the kinds (`wait`).
pub fn targets() -> Vec<clap_complete::engine::CompletionCandidate> {
    let mut out = explain_kinds();
    let pactos = from_cluster(|c| async move {
        let Ok(kind) = c
            .discover(
                pacto_gates::pacto::GROUP,
                pacto_gates::pacto::VERSION,
                pacto_gates::pacto::KIND,
            )
            .await
        else {
            return Vec::new();
        };
        let ns = c.default_namespace.clone();
        c.list(&kind, pacto_gates::cluster::Scope::Namespace(&ns), None)
            .await
            .map(|l| names_of(&l.items))
            .unwrap_or_default()
    });
    out.extend(
        pactos
            .into_iter()
            .map(|n| clap_complete::engine::CompletionCandidate::new(format!("pacto/{n}"))),
    );
    out
}
