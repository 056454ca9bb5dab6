//! Where the gates come from: the files `--argocd-cm` and `--kustomization` name, else the
//! cluster's own (its argocd-cm and Kustomizations), else the recommended gate (the library's
//! rule, `pacto::gate::sources`), with `--customizations-dir`'s scripts on the Argo CD side.

use super::files::read_one;
use anyhow::{anyhow, Result};
use jiff::Timestamp;
use kubectl_pacto::cli::GateArgs;
use pacto_gates::cluster::Cluster;
use pacto_gates::pacto::gate::{sources, ArgoGate, FluxGate};

/// The gates ([`sources::choose`]: files given win; else the cluster's, when one is given;
/// else the recommended gate, with the reason), with `--customizations-dir`'s scripts on the
/// Argo CD side. The cluster is read only for a side without a file.
pub(crate) async fn load_gates(
    g: &GateArgs,
    cluster: Option<&Cluster>,
    now: Timestamp,
) -> Result<(ArgoGate, FluxGate)> {
    let now_unix = now.as_second();
    let note = sources::warning_blocks_note(
        g.argocd_cm.is_some(),
        g.kustomization.is_some(),
        g.warning_blocks,
    );
    if let Some(note) = note {
        eprintln!("note: {note}");
    }
    let argocd_cm = match &g.argocd_cm {
        Some(path) => Some((
            read_one(path, "argocd-cm ConfigMap")?.value,
            path.display().to_string(),
        )),
        None => None,
    };
    let kustomization = match &g.kustomization {
        Some(path) => Some((
            read_one(path, "Kustomization")?.value,
            path.display().to_string(),
        )),
        None => None,
    };
    let files = sources::Files {
        argocd_cm: argocd_cm.as_ref().map(|(v, p)| (v, p.as_str())),
        kustomization: kustomization.as_ref().map(|(v, p)| (v, p.as_str())),
    };
    let read = match cluster {
        Some(c) if files.need_cluster() => Some(c.gate_objects(&g.argocd_namespace).await),
        _ => None,
    };
    let cluster_gates = read.map(|r| sources::ClusterGates {
        argocd_cm: r.argocd_cm.map_err(|e| e.to_string()),
        argocd_namespace: &g.argocd_namespace,
        kustomizations: r.kustomizations.map_err(|e| e.to_string()),
    });
    let (mut argo, flux) = sources::choose(&files, cluster_gates, g.warning_blocks, now_unix)
        .map_err(|e| anyhow!(e))?;
    if let Some(dir) = &g.customizations_dir {
        let scripts = pacto_gates::argo::health::BuiltinScripts::load(dir)
            .map_err(|e| anyhow!("--customizations-dir: {e}"))?;
        if let Some(engine) = argo.engine.as_mut() {
            engine.builtins = Some(scripts);
        }
    }
    Ok((argo, flux))
}

/// Warns about custom health keys that none of `group_kinds` uses and that are a near miss of
/// one of them (doctor check A01, narrowed to likely typos: a key Argo CD would ignore without a
/// word).
pub(crate) fn warn_mistyped_keys(
    engine: &pacto_gates::argo::health::ArgoHealth,
    group_kinds: &[String],
) {
    for f in pacto_gates::doctor::argocd::mistyped_health_keys(&engine.overrides, group_kinds) {
        eprintln!(
            "warning: {}: {}",
            pacto_gates::render::one_line(&f.finding),
            pacto_gates::render::one_line(&f.fix)
        );
    }
}
