//! Which gates judge an object, each side on its own: a file given wins (`--argocd-cm` for the
//! Argo CD side, `--kustomization` for the Flux side); else the cluster's own configuration
//! (its argocd-cm and its Kustomizations, as [`from_cluster`] makes them into gates) when a
//! cluster was read; else the recommended gate, saying why it stands in. Pure: the objects
//! come in read, the gates go out.

use super::{from_cluster, ArgoGate, FluxGate, FluxKustomization};
use serde_json::Value;

/// The gate files given, each as read and with the path it was read from (for messages).
#[derive(Debug, Clone, Copy, Default)]
pub struct Files<'a> {
    /// `--argocd-cm FILE`: the argocd-cm ConfigMap.
    pub argocd_cm: Option<(&'a Value, &'a str)>,
    /// `--kustomization FILE`: a Flux Kustomization taken to apply every object judged.
    pub kustomization: Option<(&'a Value, &'a str)>,
}

impl Files<'_> {
    /// Whether the cluster's gates are needed: a side without a file is the cluster's.
    pub fn need_cluster(&self) -> bool {
        self.argocd_cm.is_none() || self.kustomization.is_none()
    }
}

/// The gate objects a cluster answered with: its argocd-cm of `argocd_namespace` and every
/// Kustomization, or why each could not be read.
#[derive(Debug, Clone)]
pub struct ClusterGates<'a> {
    pub argocd_cm: Result<Value, String>,
    pub argocd_namespace: &'a str,
    pub kustomizations: Result<Vec<Value>, String>,
}

/// `--warning-blocks` changes only the recommended gate: with both files given (`argocd_cm`,
/// `kustomization`: whether each flag was given) it changes nothing, and the note says so.
pub fn warning_blocks_note(
    argocd_cm: bool,
    kustomization: bool,
    warning_blocks: bool,
) -> Option<&'static str> {
    (warning_blocks && argocd_cm && kustomization).then_some(
        "--warning-blocks changes only the recommended gate; --argocd-cm and --kustomization decide here",
    )
}

/// The gates, side by side: the file given, else the cluster's, else the recommended gate
/// (`warning_blocks`: Warning blocks there). Errors: a `--kustomization` file that is not a
/// Kustomization Flux could read (`PATH: why`). An argocd-cm file Argo CD would refuse is no
/// error: the Argo CD side then judges every object Unknown, as Argo CD does.
pub fn choose(
    files: &Files<'_>,
    cluster: Option<ClusterGates<'_>>,
    warning_blocks: bool,
    now_unix: i64,
) -> Result<(ArgoGate, FluxGate), String> {
    let (cluster_argo, cluster_flux) = match cluster.filter(|_| files.need_cluster()) {
        Some(c) => {
            let (a, f) = from_cluster(
                c.argocd_cm,
                c.argocd_namespace,
                c.kustomizations,
                warning_blocks,
                now_unix,
            );
            (Some(a), Some(f))
        }
        None => (None, None),
    };
    let argo = match files.argocd_cm {
        Some((cm, path)) => {
            ArgoGate::from_configmap(cm, format!("argocd-cm file {path}"), now_unix)
        }
        None => cluster_argo.unwrap_or_else(|| {
            ArgoGate::recommended("no --argocd-cm given", warning_blocks, now_unix)
        }),
    };
    let flux = match files.kustomization {
        Some((k, path)) => {
            let fk =
                FluxKustomization::new(k, false, now_unix).map_err(|e| format!("{path}: {e}"))?;
            FluxGate {
                kustomizations: vec![fk],
                ..FluxGate::recommended("unused", warning_blocks, now_unix)
            }
        }
        None => cluster_flux.unwrap_or_else(|| {
            FluxGate::recommended("no --kustomization given", warning_blocks, now_unix)
        }),
    };
    Ok((argo, flux))
}

#[cfg(test)]
mod tests {
    use super::super::Source;
    use super::*;
    use serde_json::json;

    fn argocd_cm() -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "argocd-cm", "namespace": "argocd"}, "data": {}})
    }

    fn kustomization() -> Value {
        json!({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": "apps", "namespace": "flux-system"}, "spec": {"wait": true}})
    }

    fn cluster(readable: bool) -> ClusterGates<'static> {
        ClusterGates {
            argocd_cm: if readable {
                Ok(argocd_cm())
            } else {
                Err("forbidden".into())
            },
            argocd_namespace: "argocd",
            kustomizations: if readable {
                Ok(vec![kustomization()])
            } else {
                Err("forbidden".into())
            },
        }
    }

    /// Where each side's rules come from, as `kubectl pacto get --help` states the rule ("the
    /// gates are the cluster's own when readable, else the recommended gate"; `--argocd-cm` and
    /// `--kustomization` judge "instead of the cluster's"): a file beats the cluster, the cluster
    /// beats the recommended gate, and the recommended gate says why it stands in.
    #[test]
    fn files_then_the_cluster_then_the_recommended_gate() {
        let (cm, k) = (argocd_cm(), kustomization());
        let cm_file = Some((&cm, "cm.yaml"));
        let k_file = Some((&k, "k.yaml"));
        // (files, cluster readable) → (Argo CD source, Flux: Kustomizations, complete, why the
        // recommended gate would stand in)
        type Case<'a> = (Files<'a>, Option<bool>, &'a str, usize, bool, &'a str);
        let table: [Case; 6] = [
            (
                Files::default(),
                None,
                "recommended gate (no --argocd-cm given)",
                0,
                false,
                "no --kustomization given",
            ),
            (
                Files::default(),
                Some(true),
                "argocd-cm argocd/argocd-cm",
                1,
                true,
                "no Kustomization's inventory holds it",
            ),
            (
                Files::default(),
                Some(false),
                "recommended gate (argocd-cm not readable: forbidden)",
                0,
                false,
                "Kustomizations not readable: forbidden",
            ),
            (
                Files {
                    argocd_cm: cm_file,
                    kustomization: None,
                },
                Some(true),
                "argocd-cm file cm.yaml",
                1,
                true,
                "no Kustomization's inventory holds it",
            ),
            (
                Files {
                    argocd_cm: None,
                    kustomization: k_file,
                },
                None,
                "recommended gate (no --argocd-cm given)",
                1,
                false,
                "unused",
            ),
            (
                Files {
                    argocd_cm: cm_file,
                    kustomization: k_file,
                },
                Some(false),
                "argocd-cm file cm.yaml",
                1,
                false,
                "unused",
            ),
        ];
        for (i, (files, readable, argo, kustomizations, complete, why)) in
            table.into_iter().enumerate()
        {
            let (a, f) = choose(&files, readable.map(cluster), false, 0).unwrap();
            assert_eq!(a.source.describe(), argo, "case {i}");
            assert_eq!(f.kustomizations.len(), kustomizations, "case {i}");
            assert_eq!(f.complete, complete, "case {i}");
            assert_eq!(f.recommended.1, why, "case {i}");
        }
        // A file taken to apply everything: no inventory limits it.
        let (_, f) = choose(
            &Files {
                argocd_cm: None,
                kustomization: k_file,
            },
            None,
            false,
            0,
        )
        .unwrap();
        assert!(f.kustomizations[0].inventory.is_none());
    }

    #[test]
    fn a_kustomization_file_flux_could_not_read_is_an_error_and_warning_blocks_is_noted() {
        let not_one = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
        let files = Files {
            argocd_cm: None,
            kustomization: Some((&not_one, "k.yaml")),
        };
        let e = choose(&files, None, false, 0).err().unwrap();
        assert!(e.starts_with("k.yaml: "), "{e}");
        let (cm, k) = (argocd_cm(), kustomization());
        let both = Files {
            argocd_cm: Some((&cm, "cm.yaml")),
            kustomization: Some((&k, "k.yaml")),
        };
        assert!(!both.need_cluster());
        assert!(warning_blocks_note(true, true, true).is_some());
        assert!(warning_blocks_note(true, true, false).is_none());
        assert!(warning_blocks_note(true, false, true).is_none());
        // The knob reaches the recommended gate only.
        let (a, _) = choose(&Files::default(), None, true, 0).unwrap();
        assert_eq!(a.source, Source::Recommended("no --argocd-cm given".into()));
    }
}
