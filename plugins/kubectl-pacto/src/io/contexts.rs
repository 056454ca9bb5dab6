//! Several clusters in one run (`--context a,b`, `--all-contexts`): which contexts a command
//! reads, and the reads, eight at a time, each context on its own connection and I/O runtime
//! within the command's one deadline.

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
        if names.len() > MAX_CONTEXTS {
            bail!(
                "--all-contexts: the kubeconfig has {} contexts, more than the {MAX_CONTEXTS} one run reads (a fixed bound): name them with --context a,b,...",
                names.len()
            );
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
        if list.len() > MAX_CONTEXTS {
            bail!("--context: more than the {MAX_CONTEXTS} contexts one run reads (a fixed bound)");
        }
    }
    Ok(Some(list))
}

/// How many contexts one run reads: each connects on its own (the kubeconfig is read for each),
/// so thousands would take minutes whatever `--timeout` says.
pub(crate) const MAX_CONTEXTS: usize = 256;

/// How many contexts are read at once: a kubeconfig of thousands of contexts is read by this
/// many threads in turn, not by a thread each.
pub(crate) const AT_ONCE: usize = 8;

/// Runs `read` once per context of `contexts`, [`AT_ONCE`] at a time, each on a thread with
/// `base`'s options pointed at that context, and returns what each came to, in the order of
/// `contexts`. A read that panics is an error of its context.
pub(crate) fn each<T: Send>(
    contexts: &[String],
    base: &ClusterOptions,
    read: impl Fn(&ClusterOptions) -> Result<T> + Sync,
) -> Vec<(String, Result<T>)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: std::sync::Mutex<Vec<Option<Result<T>>>> =
        std::sync::Mutex::new(contexts.iter().map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..AT_ONCE.min(contexts.len()) {
            // The stack of the command's own thread (main.rs): deeply nested answers are read
            // recursively.
            let worker = std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(ctx) = contexts.get(i) else { break };
                    let mut c = base.clone();
                    c.connect.context = Some(ctx.clone());
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(&c)))
                        .unwrap_or_else(|_| {
                            Err(anyhow::anyhow!("the read of this context failed"))
                        });
                    if let Ok(mut d) = done.lock() {
                        d[i] = Some(r);
                    }
                });
            // A thread that cannot start leaves its contexts to the others.
            drop(worker);
        }
    });
    let done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    contexts
        .iter()
        .cloned()
        .zip(done)
        .map(|(ctx, r)| {
            let r = r.unwrap_or_else(|| Err(anyhow::anyhow!("the read of this context failed")));
            (ctx, r)
        })
        .collect()
}
