//! The recommended gate configurations as text to paste or apply (`kubectl pacto snippet`): the
//! argocd-cm merge patch and the Flux `healthCheckExprs` entries, with the comments that explain
//! their knobs, generated from the one definition of [`crate::pacto::recommended`]; and the
//! files under `examples/` that are copies of them (a test fails when they differ).

use crate::pacto::recommended::{self, Target};
use serde_json::Value;

/// Indents every non-empty line of `text` by `n` spaces.
fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// A YAML double-quoted scalar (JSON string syntax is YAML).
fn quoted(v: &Value) -> String {
    serde_json::to_string(v.as_str().unwrap_or("")).expect("a string serializes")
}

/// The argocd-cm merge patch for `targets`: a ConfigMap `argocd/argocd-cm` whose `data` holds
/// each health customization, with a header saying how to apply it (as a merge patch, then a
/// restart of the application controller) and where the Warning knob is.
pub fn argocd(targets: &[Target], warning_blocks: bool) -> String {
    let mut out = String::new();
    out.push_str("# argocd-cm merge patch: Argo CD health checks for ");
    out.push_str(
        &targets
            .iter()
            .map(|t| t.kind())
            .collect::<Vec<_>>()
            .join(" and "),
    );
    out.push_str(".\n");
    out.push_str(
        "# Apply it as a merge patch (a plain apply would drop Argo CD's own keys), then restart\n\
         # the application controller, which reads health customizations at start-up:\n\
         #   kubectl -n argocd patch configmap argocd-cm --type merge --patch-file argocd-cm.yaml\n\
         #   kubectl -n argocd rollout restart statefulset/argocd-application-controller\n\
         # The keys must be typed exactly: Argo CD ignores a key it does not know, which looks\n\
         # exactly like no configuration (`kubectl pacto doctor` checks them).\n",
    );
    if targets.contains(&Target::Pacto) {
        out.push_str(&format!(
            "# The Pacto script's one knob, onWarning: \"{}\" {} (kubectl pacto snippet argocd{}).\n",
            if warning_blocks { "Degraded" } else { "Healthy" },
            if warning_blocks {
                "makes contract warnings block a promotion"
            } else {
                "lets contract warnings pass"
            },
            if warning_blocks { "" } else { " --warning-blocks flips it" }
        ));
    }
    out.push_str("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\ndata:\n");
    for t in targets {
        out.push_str(&format!("  {}: |\n", t.argo_key()));
        out.push_str(&indent(&recommended::argo_script(*t, warning_blocks), 4));
    }
    out
}

fn entry(t: Target, warning_blocks: bool, pad: usize) -> String {
    let e = recommended::flux_entry(t, warning_blocks);
    let p = " ".repeat(pad);
    let mut out = format!(
        "{p}- apiVersion: {}\n{p}  kind: {}\n",
        t.api_version(),
        t.kind()
    );
    match t {
        Target::Pacto => out.push_str(&format!(
            "{p}  # No inProgress: a verdict matching neither list keeps Flux waiting (fails closed).\n\
             {p}  # The one knob: Warning sits in {} ({}).\n",
            if warning_blocks { "failed: contract warnings block" } else { "current: contract warnings pass" },
            if warning_blocks { "move it back to current to let them pass" } else { "move it to failed to block them: --warning-blocks" }
        )),
        Target::CoderTemplateTest => out.push_str(&format!(
            "{p}  # A test without status, at an older generation, Pending or Running keeps Flux waiting.\n"
        )),
    }
    for field in ["inProgress", "failed", "current"] {
        if let Some(v) = e.get(field).filter(|v| v.is_string()) {
            out.push_str(&format!("{p}  {field}: {}\n", quoted(v)));
        }
    }
    out
}

/// The Flux `healthCheckExprs` entries for `targets`, to add under `spec.healthCheckExprs` of the
/// Kustomization that applies the objects, with a header on what else the gate needs.
pub fn flux(targets: &[Target], warning_blocks: bool) -> String {
    let mut out = String::from(
        "# Flux healthCheckExprs entries (kustomize-controller v1.5.0+, flux2 v2.5.0+): add them to\n\
         # spec.healthCheckExprs of the Kustomization that applies these objects. They are read only\n\
         # with spec.wait: true, and spec.timeout must outlast the verdict: above the Pacto\n",
    );
    out.push_str(&format!(
        "# operator's stabilization window plus one requeue, and above a test's timeoutSeconds\n\
         # (recommended: timeout: {}).\n",
        recommended::flux_setting("timeout").as_str().unwrap_or("")
    ));
    for t in targets {
        out.push_str(&entry(*t, warning_blocks, 0));
    }
    out
}

/// What a whole Kustomization of [`flux_kustomization`] is made of, beside the gate: its name
/// and namespace, its `sourceRef` and its `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KustomizationParts {
    pub name: String,
    pub namespace: String,
    /// `sourceRef.kind` and `sourceRef.name` (`GitRepository`, `OCIRepository`, `Bucket`).
    pub source_kind: String,
    pub source_name: String,
    pub path: String,
}

impl KustomizationParts {
    /// Checks the parts: names as Kubernetes spells object names (lower-case DNS subdomains of
    /// at most 253 characters), the source kind one of Flux's, the path a line without
    /// control characters. Errors name the part.
    pub fn new(
        name: &str,
        namespace: &str,
        source: &str,
        path: &str,
    ) -> Result<KustomizationParts, String> {
        let dns = |what: &str, v: &str| -> Result<String, String> {
            let ok = !v.is_empty()
                && v.len() <= 253
                && v.bytes().all(|b| {
                    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.'
                })
                && v.starts_with(|c: char| c.is_ascii_alphanumeric())
                && v.ends_with(|c: char| c.is_ascii_alphanumeric());
            match ok {
                true => Ok(v.to_string()),
                false => Err(format!(
                    "{what} {v:?}: a Kubernetes name is lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
                )),
            }
        };
        let Some((kind, source_name)) = source.split_once('/') else {
            return Err(format!(
                "--source {source:?}: expected KIND/NAME (GitRepository/flux-system)"
            ));
        };
        if !matches!(kind, "GitRepository" | "OCIRepository" | "Bucket") {
            return Err(format!(
                "--source {source:?}: the kind is GitRepository, OCIRepository or Bucket"
            ));
        }
        if path.is_empty() || path.chars().any(char::is_control) {
            return Err(format!("--path {path:?}: expected a path in the source"));
        }
        Ok(KustomizationParts {
            name: dns("--kustomization", name)?,
            namespace: dns("--namespace", namespace)?,
            source_kind: kind.to_string(),
            source_name: dns("--source", source_name)?,
            path: path.to_string(),
        })
    }

    /// The command line that prints this Kustomization (defaults left out).
    fn command(&self, targets: &[Target], warning_blocks: bool) -> String {
        let mut c = format!("kubectl pacto snippet flux --kustomization {}", self.name);
        if self.namespace != "flux-system" {
            c.push_str(&format!(" --namespace {}", self.namespace));
        }
        if (self.source_kind.as_str(), self.source_name.as_str())
            != ("GitRepository", "flux-system")
        {
            c.push_str(&format!(
                " --source {}/{}",
                self.source_kind, self.source_name
            ));
        }
        if self.path != "./" {
            c.push_str(&format!(" --path {}", self.path));
        }
        if let [one] = targets {
            c.push_str(match one {
                Target::Pacto => " --for pacto",
                Target::CoderTemplateTest => " --for codertemplatetest",
            });
        }
        if warning_blocks {
            c.push_str(" --warning-blocks");
        }
        c
    }
}

/// A whole Flux Kustomization that gates on `targets`: `parts` (name, namespace, source, path)
/// with the recommended `interval`, `timeout`, `prune`, `wait` and the `healthCheckExprs`
/// entries of [`flux`], and a header naming the command that prints it. What `doctor -f` and
/// `health --kustomization` read, unlike the bare entries.
pub fn flux_kustomization(
    parts: &KustomizationParts,
    targets: &[Target],
    warning_blocks: bool,
) -> String {
    let what = match targets {
        [Target::Pacto] => "the Pacto verdict",
        [Target::CoderTemplateTest] => "CoderTemplateTest results",
        _ => "the Pacto verdict and on CoderTemplateTest results",
    };
    let mut out = format!(
        "# A Flux Kustomization that gates on {what}\n\
         # through spec.healthCheckExprs (kustomize-controller v1.5.0+). Generated by\n\
         # `{}`.\n",
        parts.command(targets, warning_blocks)
    );
    out.push_str(&format!(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {}\n  namespace: {}\nspec:\n",
        parts.name, parts.namespace
    ));
    let path = match parts
        .path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "./_-".contains(c))
    {
        true => parts.path.clone(),
        false => quoted(&Value::String(parts.path.clone())),
    };
    out.push_str(&format!(
        "  interval: {}\n\
         \x20 # Above the Pacto operator's stabilization window plus one requeue (2m + 5m at the\n\
         \x20 # defaults), and above a CoderTemplateTest's timeoutSeconds (default 900 s) plus the time\n\
         \x20 # its controller needs to start: Flux stops waiting at the timeout.\n\
         \x20 timeout: {}\n  prune: true\n  wait: true\n  sourceRef:\n    kind: {}\n    name: {}\n  path: {path}\n  healthCheckExprs:\n",
        recommended::flux_setting("interval").as_str().unwrap_or(""),
        recommended::flux_setting("timeout").as_str().unwrap_or(""),
        parts.source_kind,
        parts.source_name,
    ));
    for t in targets {
        out.push_str(&entry(*t, warning_blocks, 4));
    }
    out
}

/// `examples/flux/kustomization-gated.yaml`: a Kustomization that gates on both kinds.
fn example_kustomization() -> String {
    let parts = KustomizationParts::new(
        "shop-staging",
        "flux-system",
        "OCIRepository/shop",
        "./staging",
    )
    .expect("the example's parts are valid");
    let text = flux_kustomization(&parts, &Target::ALL, false);
    // The header says the file is kept equal.
    text.replacen("`.\n", "`; a test keeps it equal.\n", 1)
}

/// The generated files under `examples/`, as (path from the repository root, contents).
pub fn example_files() -> Vec<(&'static str, String)> {
    vec![
        ("examples/argocd-cm.yaml", argocd(&Target::ALL, false)),
        (
            "examples/flux/kustomization-gated.yaml",
            example_kustomization(),
        ),
        (
            "examples/gates/pacto.trianalab.io/Pacto/health.lua",
            recommended::argo_script(Target::Pacto, false),
        ),
        (
            "examples/gates/coder.com/CoderTemplateTest/health.lua",
            recommended::argo_script(Target::CoderTemplateTest, false),
        ),
    ]
}

#[cfg(test)]
mod tests;
