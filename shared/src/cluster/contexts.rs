//! The contexts of the kubeconfig kubectl would read (`KUBECONFIG`, several files merged in
//! order, the first to name a context wins; else `~/.kube/config`), for completion.

use kube::config::Kubeconfig;
use std::path::PathBuf;

/// (context, cluster) pairs in file order; unreadable files are skipped (completion never fails).
pub fn kubeconfig_contexts() -> Vec<(String, String)> {
    let files: Vec<PathBuf> = match std::env::var_os("KUBECONFIG") {
        Some(v) => std::env::split_paths(&v)
            .filter(|p| !p.as_os_str().is_empty())
            .collect(),
        None => std::env::var_os("HOME")
            .map(|h| vec![PathBuf::from(h).join(".kube/config")])
            .unwrap_or_default(),
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for f in files {
        let Ok(kc) = Kubeconfig::read_from(&f) else {
            continue;
        };
        for c in kc.contexts {
            if out.iter().any(|(n, _)| *n == c.name) {
                continue;
            }
            let cluster = c.context.map(|x| x.cluster).unwrap_or_default();
            out.push((c.name, cluster));
        }
    }
    out
}
