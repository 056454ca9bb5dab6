//! The manifest's agreement with this package: the version, the name krew links, the released
//! targets and their archives, the bins, the fields krew would silently ignore, the sha256
//! placeholders of the release step and the caveats. Every failure names the file the rule comes
//! from.

use super::{
    binary_name, Manifest, Report, HOMEPAGE, INSTALL_GO, KREW_131, KREW_812, MANIFEST_DOC,
    NAMING_GUIDE, PACKAGE, PLACEHOLDER_COMMENT, PLACEHOLDER_SHA256, RELEASES, RELEASE_STEP,
    TARGETS, TYPES_GO,
};
use serde_json::Value;

// ----- this package ------------------------------------------------------------------------------

/// Whether `bin`, joined to the install directory, names something strictly inside it (`.` is
/// skipped, `..` climbs), as pathutil.IsSubPath decides after filepath.Join.
fn inside_install_dir(bin: &str) -> bool {
    let mut depth = 0usize;
    for part in bin.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ => depth += 1,
        }
    }
    depth > 0
}

pub(super) fn package_rules(m: &Manifest, version: &str) -> Report {
    let mut r = Report::default();
    let binary = binary_name();
    let spec = m.spec();
    let name = r.string(
        m.doc.get("metadata").unwrap_or(&Value::Null),
        "name",
        "metadata.",
    );
    let spec_version = r.string(spec, "version", "spec.");
    r.check(
        spec_version == format!("v{version}"),
        PACKAGE,
        format!("spec.version is {spec_version:?}, but the package (and so the release tag) is v{version}"),
    );
    let homepage = r.string(spec, "homepage", "spec.");
    r.check(
        homepage == HOMEPAGE,
        PACKAGE,
        format!("spec.homepage is {homepage:?}, not {HOMEPAGE:?}"),
    );
    r.check(
        homepage.ends_with(&format!("/kubectl-{name}")),
        NAMING_GUIDE,
        format!("the repository {homepage:?} should be named kubectl-{name}"),
    );
    // pluginNameToBin: krew links the bin as kubectl-<name, - as _>; it should be the file cargo
    // builds, so that the name in help, man pages and completion is the one on PATH.
    let link = format!("kubectl-{}", name.replace('-', "_"));
    r.check(
        link == binary,
        INSTALL_GO,
        format!("krew links the plugin as {link:?}, but the package builds {binary:?}"),
    );

    // Unknown fields are ignored (indexscanner reads non-strictly), so a misspelt key is lost.
    let known = |v: &Value, keys: &[&str], at: &str, r: &mut Report| {
        for k in v
            .as_object()
            .map(|o| o.keys().collect::<Vec<_>>())
            .unwrap_or_default()
        {
            r.check(
                keys.contains(&k.as_str()),
                TYPES_GO,
                format!("{at}{k} is not a krew manifest field (krew would silently ignore it)"),
            );
        }
    };
    known(
        &m.doc,
        &["apiVersion", "kind", "metadata", "spec"],
        "",
        &mut r,
    );
    known(
        spec,
        &[
            "version",
            "shortDescription",
            "description",
            "caveats",
            "homepage",
            "platforms",
        ],
        "spec.",
        &mut r,
    );

    let mut pairs = Vec::new();
    for (i, p) in m.platforms().iter().enumerate() {
        let at = format!("spec.platforms[{i}].");
        known(
            p,
            &["uri", "sha256", "selector", "files", "license", "bin"],
            &at,
            &mut r,
        );
        let sel = p.get("selector").unwrap_or(&Value::Null);
        known(
            sel,
            &["matchLabels", "matchExpressions"],
            &format!("{at}selector."),
            &mut r,
        );
        let labels = sel.get("matchLabels").and_then(Value::as_object);
        let os = labels
            .and_then(|l| l.get("os"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let arch = labels
            .and_then(|l| l.get("arch"))
            .and_then(Value::as_str)
            .unwrap_or("");
        r.check(
            !os.is_empty() && !arch.is_empty(),
            PACKAGE,
            format!("{at}selector must name one os and one arch with matchLabels"),
        );
        pairs.push((os.to_string(), arch.to_string()));

        let uri = r.string(p, "uri", &at);
        r.check(
            uri.starts_with("https://") && (uri.ends_with(".tar.gz") || uri.ends_with(".zip")),
            MANIFEST_DOC,
            format!("{at}uri {uri:?} must be an https URL of a .tar.gz or .zip archive"),
        );
        match TARGETS.iter().find(|(o, a, _)| *o == os && *a == arch) {
            Some((_, _, target)) => {
                let want =
                    format!("{RELEASES}/v{version}/kubectl-pacto-v{version}-{target}.tar.gz");
                r.check(
                    uri == want,
                    PACKAGE,
                    format!("{at}uri for {os}/{arch} is {uri:?}, want the {target} release archive {want:?}"),
                );
            }
            None => r.check(
                false,
                PACKAGE,
                format!("{at}selector selects {os}/{arch}, which is not released (targets: {TARGETS:?})"),
            ),
        }

        let bin = r.string(p, "bin", &at);
        r.check(
            bin.is_empty() || inside_install_dir(bin),
            INSTALL_GO,
            format!("{at}bin {bin:?} is not a file inside the install directory (IsSubPath)"),
        );
        r.check(
            !bin.starts_with('/') && !bin.contains(':'),
            TYPES_GO,
            format!("{at}bin {bin:?} must be relative to the root of the installation folder"),
        );
        r.check(
            (os == "windows") == bin.ends_with(".exe"),
            KREW_131,
            format!("{at}bin {bin:?} for os {os:?}: .exe on Windows and only there"),
        );
        r.check(
            bin.trim_start_matches("./").trim_end_matches(".exe") == binary,
            PACKAGE,
            format!("{at}bin is {bin:?}, but the package builds {binary:?}"),
        );
        r.check(
            p.get("files").is_none(),
            MANIFEST_DOC,
            format!("{at}files is given; omit it so that krew extracts the whole archive (completion shim, man pages, LICENSE)"),
        );
    }
    let mut want: Vec<(String, String)> = TARGETS
        .iter()
        .map(|(o, a, _)| (o.to_string(), a.to_string()))
        .collect();
    want.sort();
    pairs.sort();
    r.check(
        pairs == want,
        PACKAGE,
        format!("the platforms are {pairs:?}, but the release builds {want:?}"),
    );

    // Placeholders and their comment go together, and only the release step removes both.
    let shas: Vec<&str> = m
        .platforms()
        .iter()
        .map(|p| p.get("sha256").and_then(Value::as_str).unwrap_or(""))
        .collect();
    let placeholders = shas.iter().filter(|s| **s == PLACEHOLDER_SHA256).count();
    let flagged = m.text.lines().any(|l| l.starts_with(PLACEHOLDER_COMMENT));
    r.check(
        placeholders == 0 || placeholders == shas.len(),
        RELEASE_STEP,
        format!(
            "{placeholders} of {} sha256 values are placeholders: all or none",
            shas.len()
        ),
    );
    r.check(
        (placeholders > 0) == flagged,
        RELEASE_STEP,
        if flagged {
            "the '# PLACEHOLDER:' comment remains, but no sha256 is a placeholder".to_string()
        } else {
            "sha256 placeholders without the '# PLACEHOLDER:' comment that says so".to_string()
        },
    );

    let caveats = r.string(spec, "caveats", "spec.");
    for needle in ["kubectl_complete-pacto", "__complete", "man"] {
        r.check(
            caveats.contains(needle),
            KREW_812,
            format!(
                "spec.caveats must explain the completion shim and the man pages (no {needle:?})"
            ),
        );
    }
    r
}
