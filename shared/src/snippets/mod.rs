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

/// `examples/flux/kustomization-gated.yaml`: a Kustomization that gates on both kinds.
fn example_kustomization() -> String {
    let mut out = String::from(
        "# A Flux Kustomization that gates on the Pacto verdict and on CoderTemplateTest results\n\
         # through spec.healthCheckExprs (kustomize-controller v1.5.0+). Generated by\n\
         # `kubectl pacto snippet flux`; a test keeps it equal.\n\
         apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: shop-staging\n  namespace: flux-system\nspec:\n",
    );
    out.push_str(&format!(
        "  interval: {}\n\
         \x20 # Above the Pacto operator's stabilization window plus one requeue (2m + 5m at the\n\
         \x20 # defaults), and above a CoderTemplateTest's timeoutSeconds (default 900 s) plus the time\n\
         \x20 # its controller needs to start: Flux stops waiting at the timeout.\n\
         \x20 timeout: {}\n  prune: true\n  wait: true\n  sourceRef:\n    kind: OCIRepository\n    name: shop\n  path: ./staging\n  healthCheckExprs:\n",
        recommended::flux_setting("interval").as_str().unwrap_or(""),
        recommended::flux_setting("timeout").as_str().unwrap_or(""),
    ));
    for t in Target::ALL {
        out.push_str(&entry(t, false, 4));
    }
    out
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
