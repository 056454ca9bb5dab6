//! Completion candidates for kubectl's plugin protocol, computed by clap_complete's engine from
//! the same command definition as the parser.

use clap::CommandFactory;
use std::ffi::OsString;

/// The candidates for `words` (the last is the word being completed, "" for a new one), one per
/// line as `value<TAB>help`, then `:4` (ShellCompDirectiveNoFileComp) — or `:0` when the word is a
/// value that names a file, so the shell completes file names, or `:6` (also NoSpace) after a
/// `kind/` waiting for its name.
pub fn candidates(words: &[String]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let mut cmd = crate::cli::Cli::command();
    let mut args: Vec<OsString> = vec!["kubectl-pacto".into()];
    args.extend(words.iter().map(OsString::from));
    if words.is_empty() {
        args.push("".into());
    }
    let index = args.len() - 1;
    let cwd = std::env::current_dir().ok();
    let candidates =
        clap_complete::engine::complete(&mut cmd, args, index, cwd.as_deref()).unwrap_or_default();
    let mut file_values = false;
    let mut no_space = false;
    for c in &candidates {
        let value = c.get_value().to_string_lossy();
        // Names from a cluster or a kubeconfig reach the shell: a control character (a newline
        // would forge a candidate or a directive line) drops the candidate.
        let help = c.get_help().map(|h| h.to_string()).unwrap_or_default();
        if value.chars().chain(help.chars()).any(char::is_control) {
            continue;
        }
        let exists = std::path::Path::new(value.as_ref()).exists();
        // `pacto/` is a kind waiting for its name: no space after it, and not a file.
        let path_like = value.starts_with(['.', '/', '~']);
        if value.ends_with('/') && !exists && !path_like {
            no_space = true;
        } else if exists || path_like {
            // `pacto/orders` names an object, not a file.
            file_values = true;
        }
        match c.get_help() {
            Some(h) if !c.is_hide_set() => {
                let _ = writeln!(out, "{value}\t{h}");
            }
            _ if c.is_hide_set() => {}
            _ => {
                let _ = writeln!(out, "{value}");
            }
        }
    }
    // cobra's directives: 0 default (files), 2 NoSpace, 4 NoFileComp.
    let directive = match (file_values, no_space) {
        (true, _) => 0,
        (false, true) => 2 | 4,
        (false, false) => 4,
    };
    let _ = writeln!(out, ":{directive}");
    out
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
            &pacto_gates::cluster::Kind::namespace(),
            pacto_gates::cluster::Scope::All,
            None,
        )
        .await
        .map(|l| names_of(&l))
        .unwrap_or_default()
    })
    .into_iter()
    .map(clap_complete::engine::CompletionCandidate::new)
    .collect()
}

/// `pacto/NAME` for the Pactos of the context's namespace, after the kinds (`explain`, `wait`).
pub fn targets() -> Vec<clap_complete::engine::CompletionCandidate> {
    let mut out = crate::cli::explain_kinds();
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
            .map(|l| names_of(&l))
            .unwrap_or_default()
    });
    out.extend(
        pactos
            .into_iter()
            .map(|n| clap_complete::engine::CompletionCandidate::new(format!("pacto/{n}"))),
    );
    out
}
