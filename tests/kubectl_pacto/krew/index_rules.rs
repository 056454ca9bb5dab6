//! What krew-index enforces on a plugin manifest: krew's cmd/validate-krew-manifest/main.go, which
//! krew-index CI runs, and the rules of the krew-index review (the naming guide and the review
//! bot). Every failure names the file the rule comes from.

use super::{
    Manifest, Report, LABELS_GO, MANIFEST_DOC, NAMING_GUIDE, REVIEW, SEARCH_GO, SYSLIST_GO,
    VALIDATE_MANIFEST_GO,
};
use serde_json::Value;

/// validate-krew-manifest's allPlatforms(): every platform must select one of these, and none of
/// these may be selected by two platforms.
const SUPPORTED: [(&str, &str); 11] = [
    ("windows", "386"),
    ("windows", "amd64"),
    ("windows", "arm64"),
    ("linux", "386"),
    ("linux", "amd64"),
    ("linux", "arm"),
    ("linux", "arm64"),
    ("linux", "ppc64le"),
    ("darwin", "386"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
];

/// go/build/syslist.go knownOS and knownArch.
const GOOS: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "js",
    "linux",
    "nacl",
    "netbsd",
    "openbsd",
    "plan9",
    "solaris",
    "wasip1",
    "windows",
    "zos",
];
const GOARCH: &[&str] = &[
    "386",
    "amd64",
    "amd64p32",
    "arm",
    "armbe",
    "arm64",
    "arm64be",
    "loong64",
    "mips",
    "mipsle",
    "mips64",
    "mips64le",
    "mips64p32",
    "mips64p32le",
    "ppc",
    "ppc64",
    "ppc64le",
    "riscv",
    "riscv64",
    "s390",
    "s390x",
    "sparc",
    "sparc64",
    "wasm",
];

/// kubectl's short names for built-in resources, which the naming guide forbids in plugin names.
const RESOURCE_ABBREVIATIONS: &[&str] = &[
    "cm", "crd", "crds", "cs", "csr", "cj", "deploy", "ds", "ep", "ev", "hpa", "ing", "limits",
    "netpol", "no", "ns", "pc", "pdb", "po", "psp", "pv", "pvc", "quota", "rc", "rs", "sa", "sc",
    "sts", "svc",
];

// ----- krew's cmd/validate-krew-manifest/main.go (krew-index CI) -------------------------------

/// Whether a platform selector selects `os`/`arch`, as LabelSelectorAsSelector + Matches do on
/// the label set {os, arch}. An invalid selector (Err) matches nothing in krew.
fn selector_matches(sel: &Value, os: &str, arch: &str) -> Result<bool, String> {
    let label = |k: &str| match k {
        "os" => Some(os),
        "arch" => Some(arch),
        _ => None,
    };
    let mut matched = true;
    if let Some(labels) = sel.get("matchLabels").filter(|v| !v.is_null()) {
        let labels = labels.as_object().ok_or("matchLabels is not a map")?;
        for (k, v) in labels {
            let v = v
                .as_str()
                .ok_or_else(|| format!("matchLabels.{k} is not a string"))?;
            matched &= label(k) == Some(v);
        }
    }
    if let Some(exprs) = sel.get("matchExpressions").filter(|v| !v.is_null()) {
        let exprs = exprs.as_array().ok_or("matchExpressions is not a list")?;
        for e in exprs {
            let key = e
                .get("key")
                .and_then(Value::as_str)
                .ok_or("an expression has no key")?;
            let op = e.get("operator").and_then(Value::as_str).unwrap_or("");
            let values: Vec<&str> = match e.get("values") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(vs)) => vs
                    .iter()
                    .map(|v| v.as_str().ok_or("a value is not a string"))
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(format!("{key}: values is not a list")),
            };
            let l = label(key);
            matched &= match op {
                "In" | "NotIn" if values.is_empty() => {
                    return Err(format!(
                        "{key}: for 'in', 'notin' operators, values set can't be empty"
                    ))
                }
                "Exists" | "DoesNotExist" if !values.is_empty() => {
                    return Err(format!(
                        "{key}: values set must be empty for exists and does not exist"
                    ))
                }
                "In" => l.is_some_and(|l| values.contains(&l)),
                "NotIn" => l.is_none_or(|l| !values.contains(&l)),
                "Exists" => l.is_some(),
                "DoesNotExist" => l.is_none(),
                other => {
                    return Err(format!(
                        "{key}: {other:?} is not a valid label selector operator"
                    ))
                }
            };
        }
    }
    Ok(matched)
}

/// validateLineLength: lines longer than max fail unless they are a single word. Go's len
/// counts bytes.
fn long_lines(s: &str, max: usize) -> Vec<&str> {
    s.split('\n')
        .filter(|l| l.len() > max && l.trim().contains(' '))
        .collect()
}

pub(super) fn validate_manifest_rules(m: &Manifest) -> Report {
    let mut r = Report::default();
    r.check(
        m.file_name.ends_with(".yaml"),
        VALIDATE_MANIFEST_GO,
        format!(
            "the file {:?} must have the extension constants.ManifestExtension \".yaml\"",
            m.file_name
        ),
    );
    let spec = m.spec();
    for (field, max) in [
        ("description", 80),
        ("shortDescription", 70),
        ("caveats", 80),
    ] {
        let text = r.string(spec, field, "spec.");
        let long = long_lines(text, max);
        r.check(
            long.is_empty(),
            VALIDATE_MANIFEST_GO,
            format!("spec.{field} has lines over {max} characters: {long:?}"),
        );
    }

    let mut selected: Vec<Vec<usize>> = vec![Vec::new(); SUPPORTED.len()];
    for (i, p) in m.platforms().iter().enumerate() {
        let sel = p.get("selector").unwrap_or(&Value::Null);
        let mut any = false;
        for (k, (os, arch)) in SUPPORTED.iter().enumerate() {
            match selector_matches(sel, os, arch) {
                Ok(true) => {
                    any = true;
                    selected[k].push(i);
                }
                Ok(false) => {}
                Err(e) => {
                    r.check(
                        false,
                        LABELS_GO,
                        format!("spec.platforms[{i}].selector is invalid: {e}"),
                    );
                    break;
                }
            }
        }
        r.check(
            any,
            VALIDATE_MANIFEST_GO,
            format!("spec.platforms[{i}]'s selector {sel} doesn't match any supported platform {SUPPORTED:?}"),
        );

        // The values krew compares with are GOOS/GOARCH values.
        let mut values: Vec<(String, String)> = Vec::new();
        if let Some(labels) = sel.get("matchLabels").and_then(Value::as_object) {
            for (k, v) in labels {
                values.push((k.clone(), v.as_str().unwrap_or("").to_string()));
            }
        }
        if let Some(exprs) = sel.get("matchExpressions").and_then(Value::as_array) {
            for e in exprs {
                let k = e.get("key").and_then(Value::as_str).unwrap_or("");
                for v in e
                    .get("values")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    values.push((k.to_string(), v.as_str().unwrap_or("").to_string()));
                }
            }
        }
        for (k, v) in values {
            let known = match k.as_str() {
                "os" => GOOS.contains(&v.as_str()),
                "arch" => GOARCH.contains(&v.as_str()),
                _ => true, // reported by the key rule
            };
            r.check(
                known,
                SYSLIST_GO,
                format!(
                    "spec.platforms[{i}].selector: {k}={v:?} is not a Go {} value",
                    if k == "os" { "GOOS" } else { "GOARCH" }
                ),
            );
        }
    }
    for (k, (os, arch)) in SUPPORTED.iter().enumerate() {
        r.check(
            selected[k].len() <= 1,
            VALIDATE_MANIFEST_GO,
            format!(
                "multiple spec.platforms (at indexes {:?}) have overlapping selectors that select os={os}/arch={arch}",
                selected[k]
            ),
        );
    }
    r
}

// ----- krew-index review: naming guide and the review bot ---------------------------------------

/// Why a description line reads as a usage example (reviewers: "no usage examples, please";
/// plugin-manifest.md: high-level only, no flag lists), if it does.
fn usage_example(line: &str) -> Option<&'static str> {
    let t = line.trim();
    if line.starts_with([' ', '\t']) && !t.is_empty() {
        return Some("an indented (code) line");
    }
    if t.starts_with(['$', '>', '#']) {
        return Some("a shell prompt");
    }
    if t.contains('`') {
        return Some("inline code");
    }
    if t.contains("kubectl ") || t.contains("kubectl-") {
        return Some("a command line");
    }
    let flag = |w: &str| {
        let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-');
        w.len() > 1
            && w.starts_with('-')
            && w.trim_start_matches('-')
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
    };
    if t.split_whitespace().any(flag) {
        return Some("a flag");
    }
    None
}

pub(super) fn review_rules(m: &Manifest) -> Report {
    let mut r = Report::default();
    let name = r.string(
        m.doc.get("metadata").unwrap_or(&Value::Null),
        "name",
        "metadata.",
    );
    r.check(
        !name.is_empty()
            && name.split('-').all(|seg| {
                !seg.is_empty()
                    && seg
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            }),
        NAMING_GUIDE,
        format!("the plugin name {name:?} must be lowercase kebab-case"),
    );
    r.check(
        !name.starts_with("kube-") && !name.starts_with("kubernetes-"),
        NAMING_GUIDE,
        format!("the plugin name {name:?} must not start with kube- or kubernetes-"),
    );
    for seg in name.split('-') {
        r.check(
            !RESOURCE_ABBREVIATIONS.contains(&seg),
            NAMING_GUIDE,
            format!("the plugin name {name:?} abbreviates a resource ({seg:?})"),
        );
    }

    let spec = m.spec();
    let short = r.string(spec, "shortDescription", "spec.");
    r.check(
        short.len() <= 50,
        &format!("{REVIEW}; {SEARCH_GO}"),
        format!(
            "spec.shortDescription is {} characters, at most 50: {short:?}",
            short.len()
        ),
    );
    let description = r.string(spec, "description", "spec.");
    r.check(
        !description.trim().is_empty(),
        MANIFEST_DOC,
        "spec.description is missing or empty",
    );
    for (n, line) in description.lines().enumerate() {
        r.check(
            line.chars().count() <= 80,
            REVIEW,
            format!(
                "spec.description line {} is {} columns, wrap at 80: {line:?}",
                n + 1,
                line.chars().count()
            ),
        );
        if let Some(why) = usage_example(line) {
            r.check(
                false,
                &format!("{REVIEW}; {MANIFEST_DOC}"),
                format!(
                    "spec.description line {} is a usage example ({why}): {line:?}",
                    n + 1
                ),
            );
        }
    }
    r
}
