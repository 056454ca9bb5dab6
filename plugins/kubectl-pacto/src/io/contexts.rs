//! Several clusters in one run (`--context a,b`, `--all-contexts`): which contexts a command
//! reads, and each read at once on a thread of its own (its own connection and I/O runtime,
//! within the command's one deadline).

use anyhow::{bail, Result};
use kubectl_pacto::cli::ClusterArgs;
use kubectl_pacto::options::ClusterOptions;

/// The contexts a command reads when it reads several: every context of the kubeconfig
/// (`all`: in byte order, as `kubectl config get-contexts` lists them), or a `--context` list
/// `a,b` (a context whose own name holds the comma is that one context). None: one context,
/// the usual path. Errors: a kubeconfig that cannot be read (for `all`, or to tell a list from
/// a name); a list with an empty name; a kubeconfig without contexts.
pub(crate) fn named(c: &ClusterArgs, all: bool) -> Result<Option<Vec<String>>> {
    let kubeconfig = c.kubeconfig.as_deref();
    if all {
        let names = pacto_gates::cluster::context_names(kubeconfig)?;
        if names.is_empty() {
            bail!("--all-contexts: the kubeconfig has no contexts");
        }
        return Ok(Some(names));
    }
    let Some(given) = c.context.as_deref().filter(|c| c.contains(',')) else {
        return Ok(None);
    };
    if pacto_gates::cluster::context_names(kubeconfig)
        .is_ok_and(|names| names.iter().any(|n| n == given))
    {
        return Ok(None);
    }
    let mut list: Vec<String> = Vec::new();
    for c in given.split(',') {
        if c.is_empty() {
            bail!("--context {given:?}: an empty context name in the list");
        }
        if !list.iter().any(|x| x == c) {
            list.push(c.to_string());
        }
    }
    Ok(Some(list))
}

/// Runs `read` once per context of `contexts`, each on a thread of its own with `base`'s
/// options pointed at that context, and returns what each came to, in the order of
/// `contexts`. A read that panics is an error of its context.
pub(crate) fn each<T: Send>(
    contexts: &[String],
    base: &ClusterOptions,
    read: impl Fn(&ClusterOptions) -> Result<T> + Sync,
) -> Vec<(String, Result<T>)> {
    std::thread::scope(|s| {
        let read = &read;
        let running: Vec<_> = contexts
            .iter()
            .map(|ctx| {
                let mut c = base.clone();
                c.connect.context = Some(ctx.clone());
                (ctx, s.spawn(move || read(&c)))
            })
            .collect();
        running
            .into_iter()
            .map(|(ctx, h)| {
                let r = h
                    .join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("the read of this context failed")));
                (ctx.clone(), r)
            })
            .collect()
    })
}
