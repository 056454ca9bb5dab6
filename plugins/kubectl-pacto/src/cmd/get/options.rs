//! The checked flags of one `get` (kubectl's `GetOptions`: Complete, then Validate).

use crate::io::select;
use anyhow::{anyhow, bail, Result};
use kubectl_pacto::cli::GetArgs;
use kubectl_pacto::options::{ClusterOptions, Global};
use kubectl_pacto::printer::PrintOptions;
use kubectl_pacto::resource::{get_resource, ResourceType};
use pacto_gates::k8s::selector::Selector;

/// The checked flags of one `get`.
pub(super) struct Options<'a> {
    pub args: &'a GetArgs,
    pub global: &'a Global,
    /// The kind listed.
    pub listed: ResourceType,
    /// The one object asked for by name.
    pub name: Option<String>,
    /// The label selector matched here: for objects of files, and for Stages (picked from the
    /// list of every Stage); a cluster's Pactos and Operations are picked by the API server
    /// (then this matches everything).
    pub selector: Selector,
    pub print: PrintOptions,
    pub cluster: ClusterOptions,
}

impl<'a> Options<'a> {
    /// Reads the flags into checked values, in kubectl's order: the resource and name, then
    /// what does not go together ([`validate`]), the selector, the printing flags, the
    /// cluster flags.
    pub(super) fn complete(args: &'a GetArgs, global: &'a Global) -> Result<Options<'a>> {
        let (listed, name) = get_resource(&args.resource, args.name.as_deref())?;
        validate(args, name.is_some())?;
        // With -f the selector is matched here, as the API server matches it (kubectl filters
        // file objects by -l too).
        let file_selector = match (&args.selector, args.files.is_empty()) {
            (Some(s), false) => Some(Selector::parse(s).map_err(|e| anyhow!("-l/--selector {e}"))?),
            _ => None,
        };
        let mut print = PrintOptions::new(
            args.output.as_deref(),
            args.no_headers,
            args.show_labels,
            args.sort_by.as_deref(),
            args.show_managed_fields,
        )?;
        print.terminal = global.terminal;
        let mut cluster = ClusterOptions::new(&args.cluster)?;
        kubectl_pacto::options::argocd_namespace(&args.gates.argocd_namespace)?;
        cluster.connect.deadline =
            kubectl_pacto::options::deadline(&args.timeout, "30s or 5m (0: none)")?;
        let selector = match (file_selector, listed) {
            (Some(s), _) => s,
            (None, ResourceType::Pactos) => Selector::default(),
            (None, _) => select::selector(args.selector.as_deref())?,
        };
        Ok(Options {
            args,
            global,
            listed,
            name,
            selector,
            print,
            cluster,
        })
    }
}

/// The flags that do not go together: a name with `-l` or `-A` (kubectl's words), `-w` with
/// `-f`.
fn validate(args: &GetArgs, named: bool) -> Result<()> {
    if named {
        if args.selector.is_some() {
            bail!("name cannot be provided when a selector is specified");
        }
        if args.all_namespaces {
            bail!("a resource cannot be retrieved by name across all namespaces");
        }
    }
    if !args.files.is_empty() && args.watch {
        bail!("-w/--watch follows the cluster: it cannot be used with -f");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::validate;
    use clap::Parser;
    use kubectl_pacto::cli::{Cli, Command, GetArgs};

    fn args(words: &[&str]) -> GetArgs {
        let cli = Cli::try_parse_from([&["kubectl-pacto", "get"], words].concat()).unwrap();
        let Command::Get(a) = cli.command else {
            unreachable!("parsed as get")
        };
        a
    }

    /// kubectl get's refusals (`name cannot be provided when a selector is specified`, `a
    /// resource cannot be retrieved by name across all namespaces`), and `-w` follows only a
    /// cluster.
    #[test]
    fn flags_that_do_not_go_together() {
        assert!(validate(&args(&["pactos", "orders"]), true).is_ok());
        assert_eq!(
            validate(&args(&["pactos", "orders", "-l", "a=b"]), true)
                .unwrap_err()
                .to_string(),
            "name cannot be provided when a selector is specified"
        );
        assert_eq!(
            validate(&args(&["pactos", "orders", "-A"]), true)
                .unwrap_err()
                .to_string(),
            "a resource cannot be retrieved by name across all namespaces"
        );
        assert!(validate(&args(&["-A", "-l", "a=b"]), false).is_ok());
        assert!(validate(&args(&["-w", "-f", "x.yaml"]), false)
            .unwrap_err()
            .to_string()
            .contains("cannot be used with -f"));
    }
}
