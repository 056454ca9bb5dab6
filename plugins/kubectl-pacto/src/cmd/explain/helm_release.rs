//! `explain helmrelease/NAME`: the wait of a Flux HelmRelease's latest Helm release. From files,
//! they hold the HelmRelease, its Helm storage Secret (`sh.helm.release.v1.NAME.vN` in
//! `status.storageNamespace`) and the live objects; from the cluster, the HelmRelease is read,
//! then its storage Secret, then each object of the release's manifest (one GET each). The
//! library reads the release (`flux::helm_release::storage`), computes the wait
//! (`flux::helm_release::explain_release`) and the report (`pacto::explain::kustomization`).

use super::one_level_up::the_one;
use crate::io::connect::{block_on_within, connect, namespace};
use crate::io::live::{read_referenced, Reference};
use anyhow::{anyhow, Result};
use kubectl_pacto::options::ClusterOptions;
use kubectl_pacto::resource::Target;
use pacto_gates::cluster::ServedKind;
use pacto_gates::flux::helm_release::storage::{self, CLUSTER_SCOPED};
use pacto_gates::flux::helm_release::{explain_release, latest, Release};
use pacto_gates::k8s::gvk::{gvk_of, str_at};
use pacto_gates::k8s::read::max_input_bytes;
use pacto_gates::kinds;
use pacto_gates::pacto::explain::kustomization::helm_release_report;
use pacto_gates::pacto::explain::Report;
use serde_json::Value;

/// The latest release of `hr`, and its storage namespace. Errors: none recorded.
fn release_of(hr: &Value, what: &str) -> Result<(Release, String)> {
    latest(hr)
        .map_err(|e| anyhow!("{what}: {e}"))?
        .ok_or_else(|| {
            anyhow!("{what}: records no Helm release (status.history and status.storageNamespace): there is nothing to wait for yet")
        })
}

/// The report of the HelmRelease `t` names among the objects `all` of the files.
pub(super) fn report(
    all: &[Value],
    t: &Target,
    namespace: Option<&str>,
    now: jiff::Timestamp,
) -> Result<Report> {
    let what = format!("helmrelease/{}", t.name);
    let hr = the_one(all, t, namespace)?;
    let (release, storage_ns) = release_of(hr, &what)?;
    let secret_name = storage::secret_name(&release.name, release.version);
    let secret = all
        .iter()
        .find(|o| {
            str_at(o, "/kind") == "Secret"
                && str_at(o, "/metadata/name") == secret_name
                && str_at(o, "/metadata/namespace") == storage_ns
        })
        .ok_or_else(|| {
            anyhow!("{what}: its Helm storage Secret {storage_ns}/{secret_name} is not in the files given")
        })?;
    let manifest = storage::manifest(secret, max_input_bytes())
        .map_err(|e| anyhow!("{what}: Secret {storage_ns}/{secret_name}: {e}"))?;
    // A kind is cluster-scoped when Kubernetes makes it so, or when a live object of it given
    // has no namespace.
    let cluster_scoped = |g: &str, k: &str| {
        CLUSTER_SCOPED.contains(&(g, k))
            || all.iter().any(|o| {
                gvk_of(o).group == g
                    && str_at(o, "/kind") == k
                    && str_at(o, "/metadata/namespace").is_empty()
                    && !str_at(o, "/metadata/name").is_empty()
            })
    };
    let objects = storage::objects(&manifest, &release.namespace, |g, k| !cluster_scoped(g, k))
        .map_err(|e| anyhow!("{what}: Secret {storage_ns}/{secret_name}: {e}"))?;
    // The HelmRelease stays among the live objects: helm-controller's wait does not leave it
    // out when its own release holds it (kustomize-controller's drops its Kustomization).
    let w = explain_release(hr, &release, &objects, all, now.as_second())
        .map_err(|e| anyhow!("{what}: {e}"))?;
    Ok(helm_release_report(hr, &release, &w))
}

/// The (group, version, kind, namespace, name) of a release object.
pub(super) fn reference(o: &Value) -> Reference {
    let api = str_at(o, "/apiVersion");
    let version = api.rsplit_once('/').map_or(api, |(_, v)| v);
    (
        gvk_of(o).group.to_string(),
        version.to_string(),
        str_at(o, "/kind").to_string(),
        str_at(o, "/metadata/namespace").to_string(),
        str_at(o, "/metadata/name").to_string(),
    )
}

/// The report of the HelmRelease `t` names, read from the cluster with its storage Secret and
/// the objects of its latest release. Errors: the reads' (a Secret the user may not read is
/// named as the API server refuses it), a release that cannot be read.
pub(super) fn from_cluster(c: &ClusterOptions, t: &Target, now: jiff::Timestamp) -> Result<Report> {
    let api = kinds::HELM_RELEASE;
    block_on_within(c.connect.deadline, async {
        let cluster = connect(c).await?;
        let kind = cluster.discover(api.group, api.version, api.kind).await?;
        let ns = namespace(c, &cluster);
        let hr = cluster.get(&kind, &ns, &t.name).await?;
        let what = format!("helmrelease/{}", t.name);
        let (release, storage_ns) = release_of(&hr, &what)?;
        let secret_name = storage::secret_name(&release.name, release.version);
        let secret = cluster
            .get(&ServedKind::secret(), &storage_ns, &secret_name)
            .await?;
        let manifest = storage::manifest(&secret, max_input_bytes())
            .map_err(|e| anyhow!("{what}: Secret {storage_ns}/{secret_name}: {e}"))?;
        // Which kinds are namespaced, as the cluster serves them (a kind it does not serve is
        // taken as namespaced: its objects are not there either way).
        let raw = storage::objects(&manifest, &release.namespace, |_, _| false)
            .map_err(|e| anyhow!("{what}: Secret {storage_ns}/{secret_name}: {e}"))?;
        let mut kinds_asked: Vec<(String, String, String)> = Vec::new();
        for o in &raw {
            let (g, v, k, _, _) = reference(o);
            if !kinds_asked.contains(&(g.clone(), v.clone(), k.clone())) {
                kinds_asked.push((g, v, k));
            }
        }
        let asked: Vec<(&str, &str, &str)> = kinds_asked
            .iter()
            .map(|(g, v, k)| (g.as_str(), v.as_str(), k.as_str()))
            .collect();
        let served = cluster.discover_each(&asked).await;
        let namespaced = |g: &str, k: &str| {
            asked
                .iter()
                .zip(&served)
                .find(|((ag, _, ak), _)| *ag == g && *ak == k)
                .is_none_or(|(_, s)| s.as_ref().map_or(true, |s| s.namespaced))
        };
        // The manifest is parsed once: the release namespace is set on the namespaced objects
        // that name none, as `storage::objects` sets it.
        let mut objects = raw;
        for o in objects.iter_mut() {
            let (g, k) = (gvk_of(o).group, str_at(o, "/kind").to_string());
            if str_at(o, "/metadata/namespace").is_empty() && namespaced(&g, &k) {
                o["metadata"]["namespace"] = Value::from(release.namespace.as_str());
            }
        }
        // Each object once, however often the manifest lists it.
        let mut once = std::collections::HashSet::new();
        let refs: Vec<Reference> = objects
            .iter()
            .map(reference)
            .filter(|r| once.insert(r.clone()))
            .collect();
        let live = read_referenced(&cluster, &refs).await?;
        let w = explain_release(&hr, &release, &objects, &live, now.as_second())
            .map_err(|e| anyhow!("{what}: {e}"))?;
        Ok(helm_release_report(&hr, &release, &w))
    })
}
