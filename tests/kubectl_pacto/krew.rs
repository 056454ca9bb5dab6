//! The krew plugin manifest, krew/pacto.yaml, and its release step krew/update-sha256.sh.
//!
//! No krew validator exists as a schema or a package (shared/reference/kubectl-ecosystem.md
//! §1.6), so the rules are reimplemented here over the parsed YAML: the manifest format (§1.1),
//! what krew's code enforces (§1.2) and what krew-index reviewers enforce (§1.3), plus the
//! manifest's agreement with this package. Every failure names the file the rule comes from.
//! What a manifest alone cannot show (krew installing each platform, a LICENSE inside each
//! archive) is checked on the release archives by krew/update-sha256.sh, tested below.

use crate::common::*;
use serde_json::Value;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::process::Command;

// Where each rule comes from.
const VALIDATE_GO: &str = "krew internal/index/validation/validate.go";
const SEMVER_GO: &str =
    "krew internal/installation/semver/version.go (k8s.io/apimachinery version.ParseSemantic)";
const VALIDATE_MANIFEST_GO: &str = "krew cmd/validate-krew-manifest/main.go";
const INSTALL_GO: &str = "krew internal/installation/install.go";
const TYPES_GO: &str = "krew pkg/index/types.go";
const LABELS_GO: &str = "k8s.io/apimachinery meta/v1 LabelSelectorAsSelector";
const SYSLIST_GO: &str = "Go go/build/syslist.go (krew matches selectors against GOOS/GOARCH)";
const MANIFEST_DOC: &str = "krew site/content/docs/developer-guide/plugin-manifest.md";
const NAMING_GUIDE: &str = "krew site/content/docs/developer-guide/develop/naming-guide.md";
const REVIEW: &str = "krew-index review bot (kubernetes-sigs/krew-index#4118, #3673, #2899)";
const SEARCH_GO: &str = "krew cmd/krew/cmd/search.go (limitString 50)";
const KREW_131: &str = "kubernetes-sigs/krew#131 (Windows bins end in .exe)";
const KREW_812: &str =
    "kubernetes-sigs/krew#812 (krew links one bin; kubectl-ecosystem.md §0, §2.2)";
const PACKAGE: &str = "plugins/kubectl-pacto/Cargo.toml (what this package builds and releases)";
const YAML: &str = "YAML 1.2 (serde-saphyr, strict: duplicate keys are an error)";
const RELEASE_STEP: &str = "krew/update-sha256.sh (placeholders stay flagged until it runs)";

const API_VERSION: &str = "krew.googlecontainertools.github.com/v1alpha2";
const HOMEPAGE: &str = "https://github.com/trianalab/kubectl-pacto";
const RELEASES: &str = "https://github.com/trianalab/kubectl-pacto/releases/download";
/// The sha256 written before a release exists (valid lowercase hex, the hash of nothing).
const PLACEHOLDER_SHA256: &str = "0000000000000000000000000000000000000000000000000000000000000000";
/// The comment lines that say the sha256 values are placeholders; the release step drops them.
const PLACEHOLDER_COMMENT: &str = "# PLACEHOLDER:";

/// The released platforms and the Rust target each archive is built for: the musl and darwin
/// targets of the reference's Rust anchor manifest (krew-index plugins/view-allocations.yaml).
const TARGETS: [(&str, &str, &str); 4] = [
    ("linux", "amd64", "x86_64-unknown-linux-musl"),
    ("linux", "arm64", "aarch64-unknown-linux-musl"),
    ("darwin", "amd64", "x86_64-apple-darwin"),
    ("darwin", "arm64", "aarch64-apple-darwin"),
];

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

fn manifest_path() -> PathBuf {
    repo().join("krew/pacto.yaml")
}

fn update_script() -> PathBuf {
    repo().join("krew/update-sha256.sh")
}

/// The name of the executable this package builds, which krew must link.
fn binary_name() -> String {
    Path::new(PACTO)
        .file_stem()
        .expect("binary file name")
        .to_string_lossy()
        .into_owned()
}

/// A manifest file: its name (krew takes the plugin name from it), text and parsed YAML.
struct Manifest {
    file_name: String,
    text: String,
    doc: Value,
}

impl Manifest {
    fn parse(file_name: &str, text: &str) -> Result<Manifest, String> {
        let doc: Value = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
        Ok(Manifest {
            file_name: file_name.to_string(),
            text: text.to_string(),
            doc,
        })
    }

    fn load(path: &Path) -> Manifest {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let file_name = path.file_name().unwrap().to_string_lossy().into_owned();
        Manifest::parse(&file_name, &text)
            .unwrap_or_else(|e| panic!("{}: not YAML krew can read: {e}", path.display()))
    }

    fn spec(&self) -> &Value {
        self.doc.get("spec").unwrap_or(&Value::Null)
    }

    fn platforms(&self) -> &[Value] {
        self.spec()
            .get("platforms")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
}

/// Rule violations, each ending with the rule's source.
#[derive(Default)]
struct Report(Vec<String>);

impl Report {
    fn check(&mut self, ok: bool, source: &str, what: impl Display) {
        if !ok {
            self.0.push(format!("{what}  [rule: {source}]"));
        }
    }

    /// A string field as krew's Go structs read it: missing or null is "".
    fn string<'a>(&mut self, v: &'a Value, key: &str, at: &str) -> &'a str {
        match v.get(key) {
            None | Some(Value::Null) => "",
            Some(Value::String(s)) => s,
            Some(other) => {
                self.0.push(format!(
                    "{at}{key} is {other}, not a string  [rule: {TYPES_GO}]"
                ));
                ""
            }
        }
    }

    fn assert_clean(&self, file: &str, rules: &str) {
        assert!(
            self.0.is_empty(),
            "{file} breaks {} rule(s) of {rules}:\n  {}",
            self.0.len(),
            self.0.join("\n  ")
        );
    }
}

// ----- krew's code: internal/index/validation/validate.go (ValidatePlugin) ----------------------

/// IsSafePluginName: `^[\w-]+$` (Go's ASCII \w) and not a Windows reserved file name.
fn is_safe_plugin_name(name: &str) -> bool {
    let reserved = ["CON", "PRN", "AUX", "NUL"]
        .iter()
        .map(|s| s.to_string())
        .chain((1..=9).flat_map(|i| [format!("COM{i}"), format!("LPT{i}")]));
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !reserved.into_iter().any(|r| r.eq_ignore_ascii_case(name))
}

/// krew's semver.Parse: a leading `v`, then k8s.io/apimachinery's ParseSemantic (exactly three
/// numeric components without leading zeros, then an optional -pre-release and +build).
fn parse_krew_version(s: &str) -> Result<(u64, u64, u64), String> {
    let rest = s
        .strip_prefix('v')
        .ok_or_else(|| format!("version string {s:?} not starting with 'v'"))?;
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (numbers, extra) = rest.split_at(end);
    let parts: Vec<&str> = numbers.split('.').collect();
    if parts.len() != 3 || parts.iter().any(|p| p.is_empty()) {
        return Err(format!("{s:?} is not MAJOR.MINOR.PATCH"));
    }
    let mut n = [0u64; 3];
    for (i, p) in parts.iter().enumerate() {
        if p.len() > 1 && p.starts_with('0') {
            return Err(format!(
                "illegal zero-prefixed version component {p:?} in {s:?}"
            ));
        }
        n[i] = p.parse().map_err(|e| format!("{s:?}: {e}"))?;
    }
    let identifiers_ok = |ids: &str| {
        ids.split('.')
            .all(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
    };
    let (pre, build) = match extra.split_once('+') {
        Some((pre, build)) => (pre, Some(build)),
        None => (extra, None),
    };
    let pre_ok = pre.is_empty() || pre.strip_prefix('-').is_some_and(identifiers_ok);
    if !pre_ok || !build.is_none_or(identifiers_ok) {
        return Err(format!("illegal version string {s:?}"));
    }
    Ok((n[0], n[1], n[2]))
}

fn code_rules(m: &Manifest) -> Report {
    let mut r = Report::default();
    let d = &m.doc;
    let api = r.string(d, "apiVersion", "");
    r.check(
        api == API_VERSION,
        VALIDATE_GO,
        format!(
            "apiVersion is {api:?}; krew reads only constants.CurrentAPIVersion {API_VERSION:?}"
        ),
    );
    let kind = r.string(d, "kind", "");
    r.check(
        kind == "Plugin",
        VALIDATE_GO,
        format!("kind is {kind:?}, not constants.PluginKind \"Plugin\""),
    );
    let stem = m.file_name.strip_suffix(".yaml").unwrap_or(&m.file_name);
    r.check(
        is_safe_plugin_name(stem),
        VALIDATE_GO,
        format!("the plugin name {stem:?} (the file name) must match ^[\\w-]+$ and not be a Windows reserved name"),
    );
    let name = r.string(
        d.get("metadata").unwrap_or(&Value::Null),
        "name",
        "metadata.",
    );
    r.check(
        name == stem,
        VALIDATE_GO,
        format!(
            "metadata.name is {name:?} but the file is {:?}: krew wants <metadata.name>.yaml",
            m.file_name
        ),
    );

    let spec = m.spec();
    let short = r.string(spec, "shortDescription", "spec.");
    r.check(
        !short.is_empty(),
        VALIDATE_GO,
        "spec.shortDescription is missing or empty",
    );
    r.check(
        !short.contains(['\r', '\n']),
        VALIDATE_GO,
        format!("spec.shortDescription {short:?} has a line break"),
    );
    r.check(
        !m.platforms().is_empty(),
        VALIDATE_GO,
        "spec.platforms is missing or empty: at least one platform is required",
    );
    let version = r.string(spec, "version", "spec.");
    r.check(
        !version.is_empty(),
        VALIDATE_GO,
        "spec.version is missing or empty",
    );
    if !version.is_empty() {
        if let Err(e) = parse_krew_version(version) {
            r.check(false, SEMVER_GO, format!("spec.version: {e}"));
        }
    }

    for (i, p) in m.platforms().iter().enumerate() {
        let at = format!("spec.platforms[{i}].");
        let uri = r.string(p, "uri", &at);
        r.check(
            !uri.is_empty(),
            VALIDATE_GO,
            format!("{at}uri has to be set"),
        );
        let sha = r.string(p, "sha256", &at);
        r.check(
            !sha.is_empty(),
            VALIDATE_GO,
            format!("{at}sha256 has to be set"),
        );
        r.check(
            sha.is_empty()
                || (sha.len() == 64 && sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))),
            VALIDATE_GO,
            format!("{at}sha256 {sha:?} must match ^[a-f0-9]{{64}}$ (lowercase only)"),
        );
        let bin = r.string(p, "bin", &at);
        r.check(
            !bin.is_empty(),
            VALIDATE_GO,
            format!("{at}bin has to be set"),
        );

        // validateFiles: nil is fine, an empty list is not, every from/to is set.
        match p.get("files") {
            None | Some(Value::Null) => {}
            Some(Value::Array(ops)) => {
                r.check(
                    !ops.is_empty(),
                    VALIDATE_GO,
                    format!("{at}files has to be unspecified or non-empty"),
                );
                for (j, op) in ops.iter().enumerate() {
                    let op_at = format!("{at}files[{j}].");
                    let from = r.string(op, "from", &op_at);
                    let to = r.string(op, "to", &op_at);
                    r.check(
                        !from.is_empty(),
                        VALIDATE_GO,
                        format!("{op_at}from has to be set"),
                    );
                    r.check(
                        !to.is_empty(),
                        VALIDATE_GO,
                        format!("{op_at}to has to be set"),
                    );
                }
            }
            Some(other) => r.check(false, TYPES_GO, format!("{at}files is {other}, not a list")),
        }

        // validateSelector.
        let sel_at = format!("{at}selector");
        match p.get("selector") {
            None | Some(Value::Null) => r.check(
                false,
                VALIDATE_GO,
                format!("{sel_at}: nil selector is not supported"),
            ),
            Some(sel) => {
                let labels = sel.get("matchLabels").filter(|v| !v.is_null());
                let exprs = sel.get("matchExpressions").filter(|v| !v.is_null());
                let exprs_list = exprs
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice);
                r.check(
                    labels.is_some() || !exprs_list.is_empty(),
                    VALIDATE_GO,
                    format!("{sel_at}: empty selector is not supported"),
                );
                let mut keys: Vec<String> = labels
                    .and_then(Value::as_object)
                    .map(|o| o.keys().cloned().collect())
                    .unwrap_or_default();
                keys.extend(exprs_list.iter().map(|e| {
                    e.get("key")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                }));
                for key in keys {
                    r.check(
                        key == "os" || key == "arch",
                        VALIDATE_GO,
                        format!("{sel_at}: key {key:?} not supported (only os and arch)"),
                    );
                }
                r.check(
                    labels.is_none_or(|l| l.as_object().is_some_and(|o| !o.is_empty())),
                    VALIDATE_GO,
                    format!("{sel_at}.matchLabels specified but empty"),
                );
                r.check(
                    exprs.is_none() || !exprs_list.is_empty(),
                    VALIDATE_GO,
                    format!("{sel_at}.matchExpressions specified but empty"),
                );
            }
        }
    }
    r
}

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

fn validate_manifest_rules(m: &Manifest) -> Report {
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

fn review_rules(m: &Manifest) -> Report {
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

fn package_rules(m: &Manifest, version: &str) -> Report {
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

/// Every rule above, for a manifest of the given package version.
fn violations(file_name: &str, text: &str, version: &str) -> Vec<String> {
    let m = match Manifest::parse(file_name, text) {
        Ok(m) => m,
        Err(e) => return vec![format!("not YAML krew can read: {e}  [rule: {YAML}]")],
    };
    [
        code_rules(&m),
        validate_manifest_rules(&m),
        review_rules(&m),
        package_rules(&m, version),
    ]
    .into_iter()
    .flat_map(|r| r.0)
    .collect()
}

// ----- tests -------------------------------------------------------------------------------------

#[test]
fn manifest_passes_krew_validation_code() {
    code_rules(&Manifest::load(&manifest_path())).assert_clean("krew/pacto.yaml", VALIDATE_GO);
}

#[test]
fn manifest_passes_validate_krew_manifest() {
    validate_manifest_rules(&Manifest::load(&manifest_path()))
        .assert_clean("krew/pacto.yaml", VALIDATE_MANIFEST_GO);
}

#[test]
fn manifest_passes_krew_index_review() {
    review_rules(&Manifest::load(&manifest_path()))
        .assert_clean("krew/pacto.yaml", "the naming guide and the review bot");
}

#[test]
fn manifest_matches_this_package() {
    package_rules(&Manifest::load(&manifest_path()), env!("CARGO_PKG_VERSION"))
        .assert_clean("krew/pacto.yaml", "this package's release");
}

/// Each rule must actually fire: a broken copy of the manifest is reported, under that rule's
/// source and with that rule's message.
#[test]
fn checks_catch_broken_manifests() {
    let base = std::fs::read_to_string(manifest_path()).unwrap();
    let v = env!("CARGO_PKG_VERSION");
    let once = |from: &str, to: &str| -> String {
        assert!(base.contains(from), "the manifest no longer has {from:?}");
        base.replacen(from, to, 1)
    };
    let sel = "    - selector:\n        matchLabels:\n          os: linux\n          arch: amd64\n";
    let bin = "      bin: kubectl-pacto\n";
    let short = "  shortDescription: Evaluate Argo CD and Flux health gates offline\n";
    let ci = "can be tested in CI.\n";
    let name = "  name: pacto\n";
    let version = format!("version: v{v}\n");
    let windows = format!(
        "{base}    - selector:\n        matchLabels:\n          os: windows\n          arch: amd64\n      \
         uri: {RELEASES}/v{v}/kubectl-pacto-v{v}-x86_64-pc-windows-msvc.zip\n      \
         sha256: \"{PLACEHOLDER_SHA256}\"\n      bin: kubectl-pacto\n"
    );
    let unflagged: String = base
        .lines()
        .filter(|l| !l.starts_with(PLACEHOLDER_COMMENT))
        .map(|l| format!("{l}\n"))
        .collect();
    let no_platforms = format!(
        "{}  platforms: []\n",
        base.split("  platforms:\n").next().unwrap()
    );

    let mut missed = Vec::new();
    let mut expect = |what: &str, file: &str, text: String, source: &str, message: &str| {
        let found = violations(file, &text, v);
        if !found
            .iter()
            .any(|f| f.contains(message) && f.rsplit("[rule: ").next().unwrap().contains(source))
        {
            missed.push(format!(
                "{what}: want {message:?} [rule: {source}], got {found:#?}"
            ));
        }
    };
    let (yaml, exprs) = ("pacto.yaml", "    - selector:\n        matchExpressions:\n");

    expect(
        "old apiVersion",
        yaml,
        once(API_VERSION, "krew.googlecontainertools.github.com/v1alpha1"),
        VALIDATE_GO,
        "apiVersion is",
    );
    expect(
        "wrong kind",
        yaml,
        once("kind: Plugin", "kind: Plugins"),
        VALIDATE_GO,
        "not constants.PluginKind",
    );
    expect(
        "name is not the file name",
        yaml,
        once(name, "  name: pacto-x\n"),
        VALIDATE_GO,
        "metadata.name is \"pacto-x\"",
    );
    expect(
        "Windows reserved name",
        "con.yaml",
        once(name, "  name: con\n"),
        VALIDATE_GO,
        "Windows reserved",
    );
    expect(
        "name outside [\\w-]",
        "pac.to.yaml",
        once(name, "  name: pac.to\n"),
        VALIDATE_GO,
        "must match ^[\\w-]+$",
    );
    expect(
        ".yml extension",
        "pacto.yml",
        base.clone(),
        VALIDATE_MANIFEST_GO,
        "ManifestExtension",
    );
    expect(
        "version without v",
        yaml,
        once(&version, "version: 0.1.0\n"),
        SEMVER_GO,
        "not starting with 'v'",
    );
    expect(
        "two-part version",
        yaml,
        once(&version, "version: v0.1\n"),
        SEMVER_GO,
        "MAJOR.MINOR.PATCH",
    );
    expect(
        "zero-prefixed version",
        yaml,
        once(&version, "version: v01.1.0\n"),
        SEMVER_GO,
        "zero-prefixed",
    );
    expect(
        "bad pre-release",
        yaml,
        once(&version, "version: v0.1.0-rc..1\n"),
        SEMVER_GO,
        "illegal version",
    );
    expect(
        "version not the crate's",
        yaml,
        once(&version, "version: v99.0.0\n"),
        PACKAGE,
        "but the package",
    );
    expect(
        "uppercase sha256",
        yaml,
        once("\"0000", "\"A000"),
        VALIDATE_GO,
        "must match ^[a-f0-9]{64}$",
    );
    expect(
        "short sha256",
        yaml,
        once("\"0000000000", "\"000000000"),
        VALIDATE_GO,
        "must match ^[a-f0-9]{64}$",
    );
    expect(
        "no sha256",
        yaml,
        once("      sha256:", "      sha256: \"\"\n      x:"),
        VALIDATE_GO,
        "sha256 has to be set",
    );
    expect(
        "no uri",
        yaml,
        once("      uri:", "      uri: \"\"\n      x:"),
        VALIDATE_GO,
        "uri has to be set",
    );
    expect(
        "files: []",
        yaml,
        once(bin, &format!("{bin}      files: []\n")),
        VALIDATE_GO,
        "unspecified or non-empty",
    );
    expect(
        "files without from",
        yaml,
        once(bin, &format!("{bin}      files:\n        - {{to: .}}\n")),
        VALIDATE_GO,
        "from has to be set",
    );
    expect(
        "files without to",
        yaml,
        once(bin, &format!("{bin}      files:\n        - {{from: x}}\n")),
        VALIDATE_GO,
        "to has to be set",
    );
    expect(
        "files given",
        yaml,
        once(
            bin,
            &format!("{bin}      files:\n        - {{from: \"*\", to: .}}\n"),
        ),
        MANIFEST_DOC,
        "omit it",
    );
    expect(
        "no bin",
        yaml,
        once(bin, ""),
        VALIDATE_GO,
        "bin has to be set",
    );
    expect(
        "bin climbs out",
        yaml,
        once(bin, "      bin: ../kubectl-pacto\n"),
        INSTALL_GO,
        "IsSubPath",
    );
    expect(
        "absolute bin",
        yaml,
        once(bin, "      bin: /usr/local/bin/kubectl-pacto\n"),
        TYPES_GO,
        "must be relative",
    );
    expect(
        "bin not the built binary",
        yaml,
        once(bin, "      bin: kubectl-pacto-bin\n"),
        PACKAGE,
        "but the package builds",
    );
    expect(
        "selector key libc",
        yaml,
        once("arch: amd64\n", "arch: amd64\n          libc: musl\n"),
        VALIDATE_GO,
        "key \"libc\" not supported",
    );
    expect(
        "matchLabels: {}",
        yaml,
        once(sel, "    - selector:\n        matchLabels: {}\n"),
        VALIDATE_GO,
        "matchLabels specified but empty",
    );
    expect(
        "matchExpressions: []",
        yaml,
        once(sel, &format!("{sel}        matchExpressions: []\n")),
        VALIDATE_GO,
        "matchExpressions specified but empty",
    );
    expect(
        "selector: {}",
        yaml,
        once(sel, "    - selector: {}\n"),
        VALIDATE_GO,
        "empty selector",
    );
    expect(
        "no selector",
        yaml,
        once(sel, "    - selector: null\n"),
        VALIDATE_GO,
        "nil selector",
    );
    expect(
        "overlapping matchLabels",
        yaml,
        once(
            "os: linux\n          arch: arm64\n",
            "os: linux\n          arch: amd64\n",
        ),
        VALIDATE_MANIFEST_GO,
        "select os=linux/arch=amd64",
    );
    let not_windows_amd64 = format!(
        "{exprs}          - {{key: os, operator: NotIn, values: [windows]}}\n          \
         - {{key: arch, operator: In, values: [amd64]}}\n"
    );
    expect(
        "overlapping matchExpressions",
        yaml,
        once(sel, &not_windows_amd64),
        VALIDATE_MANIFEST_GO,
        "select os=darwin/arch=amd64",
    );
    expect(
        "invalid operator",
        yaml,
        once(
            sel,
            &format!("{exprs}          - {{key: os, operator: Equals, values: [linux]}}\n"),
        ),
        LABELS_GO,
        "not a valid label selector operator",
    );
    expect(
        "In without values",
        yaml,
        once(
            sel,
            &format!("{exprs}          - {{key: os, operator: In}}\n"),
        ),
        LABELS_GO,
        "can't be empty",
    );
    expect(
        "unsupported pair",
        yaml,
        once("arch: amd64\n", "arch: riscv64\n"),
        VALIDATE_MANIFEST_GO,
        "doesn't match any supported platform",
    );
    expect(
        "not a GOOS",
        yaml,
        once("os: linux\n", "os: Linux\n"),
        SYSLIST_GO,
        "os=\"Linux\" is not a Go GOOS",
    );
    let x64 = format!(
        "{exprs}          - {{key: os, operator: In, values: [linux]}}\n          \
         - {{key: arch, operator: In, values: [amd64, x64]}}\n"
    );
    expect(
        "not a GOARCH",
        yaml,
        once(sel, &x64),
        SYSLIST_GO,
        "arch=\"x64\" is not a Go GOARCH",
    );
    expect(
        "Windows bin without .exe",
        yaml,
        windows,
        KREW_131,
        ".exe on Windows",
    );
    expect(
        "shortDescription over 50",
        yaml,
        once(
            short,
            "  shortDescription: Evaluate Argo CD and Flux health gates offline, fast\n",
        ),
        REVIEW,
        "at most 50",
    );
    expect(
        "shortDescription line break",
        yaml,
        once(
            short,
            "  shortDescription: \"Evaluate Argo CD\\nhealth gates\"\n",
        ),
        VALIDATE_GO,
        "has a line break",
    );
    expect(
        "no shortDescription",
        yaml,
        once(short, ""),
        VALIDATE_GO,
        "shortDescription is missing",
    );
    let wide = "This line is much longer than eighty columns, a width krew-index reviewers reject.";
    expect(
        "description over 80",
        yaml,
        once(ci, &format!("{ci}    {wide}\n")),
        REVIEW,
        "wrap at 80",
    );
    expect(
        "command line",
        yaml,
        once(
            ci,
            &format!("{ci}    Try: kubectl pacto health -f app.yaml\n"),
        ),
        REVIEW,
        "usage example (a command line)",
    );
    expect(
        "flag list",
        yaml,
        once(ci, &format!("{ci}    Use --argocd-cm for settings.\n")),
        MANIFEST_DOC,
        "usage example (a flag)",
    );
    expect(
        "inline code",
        yaml,
        once(ci, &format!("{ci}    See `health test`.\n")),
        REVIEW,
        "usage example (inline code)",
    );
    expect(
        "code block",
        yaml,
        once(ci, &format!("{ci}      health test DIR\n")),
        REVIEW,
        "usage example (an indented (code) line)",
    );
    expect(
        "no description",
        yaml,
        once("  description: |\n", "  description: \"\"\n  notes: |\n"),
        MANIFEST_DOC,
        "description is missing",
    );
    expect(
        "misspelt key",
        yaml,
        once("      sha256:", "      sha265:"),
        TYPES_GO,
        "sha265 is not a krew manifest field",
    );
    expect(
        "not a string",
        yaml,
        once(short, "  shortDescription: [a, b]\n"),
        TYPES_GO,
        "not a string",
    );
    expect(
        "uri .tgz",
        yaml,
        once(".tar.gz\n", ".tgz\n"),
        MANIFEST_DOC,
        ".tar.gz or .zip",
    );
    expect(
        "uri of another target",
        yaml,
        once("x86_64-apple-darwin", "aarch64-apple-darwin"),
        PACKAGE,
        "want the x86_64-apple-darwin release archive",
    );
    expect(
        "platform not released",
        yaml,
        once("arch: arm64\n", "arch: arm\n"),
        PACKAGE,
        "which is not released",
    );
    expect(
        "no platforms",
        yaml,
        no_platforms,
        VALIDATE_GO,
        "at least one platform",
    );
    expect(
        "caveats long line",
        yaml,
        once(
            "onto your PATH.\n",
            "onto your PATH, and nothing else, which is a limit of krew itself.\n",
        ),
        VALIDATE_MANIFEST_GO,
        "spec.caveats has lines over 80",
    );
    expect(
        "caveats without the shim",
        yaml,
        base.replace("kubectl_complete-pacto", "the shim"),
        KREW_812,
        "completion shim",
    );
    expect(
        "placeholders unflagged",
        yaml,
        unflagged,
        RELEASE_STEP,
        "without the '# PLACEHOLDER:' comment",
    );
    expect(
        "some placeholders",
        yaml,
        once("\"0000", "\"a000"),
        RELEASE_STEP,
        "all or none",
    );
    expect(
        "uppercase name",
        "Pacto.yaml",
        once(name, "  name: Pacto\n"),
        NAMING_GUIDE,
        "lowercase kebab-case",
    );
    expect(
        "kube- prefix",
        "kube-pacto.yaml",
        once(name, "  name: kube-pacto\n"),
        NAMING_GUIDE,
        "must not start with kube-",
    );
    expect(
        "resource abbreviation",
        "svc-pacto.yaml",
        once(name, "  name: svc-pacto\n"),
        NAMING_GUIDE,
        "abbreviates a resource",
    );
    expect(
        "link is not the binary",
        "pacto-x.yaml",
        once(name, "  name: pacto-x\n"),
        INSTALL_GO,
        "krew links the plugin as \"kubectl-pacto_x\"",
    );
    expect(
        "repository name",
        yaml,
        once(
            "homepage: https://github.com/trianalab/kubectl-pacto",
            "homepage: https://github.com/trianalab/pacto",
        ),
        NAMING_GUIDE,
        "should be named kubectl-pacto",
    );
    expect(
        "duplicate key",
        yaml,
        once("kind: Plugin\n", "kind: Plugin\nkind: Plugin\n"),
        YAML,
        "not YAML krew can read",
    );

    assert!(
        missed.is_empty(),
        "{} broken manifest(s) passed:\n{}",
        missed.len(),
        missed.join("\n")
    );
}

// ----- the release step: krew/update-sha256.sh ------------------------------------------------

/// SHA-256 (FIPS 180-4), so that the expected hashes do not come from the tool the script uses.
fn sha256_hex(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_be_bytes());
    for chunk in msg.chunks(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes(chunk[4 * i..4 * i + 4].try_into().unwrap());
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

/// Whether `bash` (and the `tar` the script lists archives with) can run here; prints why not.
fn have_bash_and_tar() -> bool {
    match Command::new("bash").args(["-c", "command -v tar"]).output() {
        Err(e) => {
            eprintln!("note: skipping the krew/update-sha256.sh test: bash is not available ({e})");
            false
        }
        Ok(o) if !o.status.success() => {
            eprintln!("note: skipping the krew/update-sha256.sh test: tar is not available");
            false
        }
        Ok(_) => true,
    }
}

/// A fake release: one archive per released target in `dir`, named as the manifest's uris name
/// them for `version`, holding the bin, the completion shim and a LICENSE (unless `license` is
/// false). Returns archive file name → sha256.
fn fake_release(
    root: &Path,
    dir: &Path,
    version: &str,
    license: bool,
) -> std::collections::BTreeMap<String, String> {
    std::fs::create_dir_all(dir).unwrap();
    let mut out = std::collections::BTreeMap::new();
    for (n, (_, _, target)) in TARGETS.iter().enumerate() {
        let stage = root.join(format!("stage-{target}"));
        let _ = std::fs::remove_dir_all(&stage);
        std::fs::create_dir_all(&stage).unwrap();
        std::fs::write(
            stage.join("kubectl-pacto"),
            format!("fake kubectl-pacto for {target}\n"),
        )
        .unwrap();
        std::fs::write(
            stage.join("kubectl_complete-pacto"),
            format!("fake shim for {target}\n"),
        )
        .unwrap();
        if license {
            std::fs::write(stage.join("LICENSE"), "Apache License 2.0\n").unwrap();
        }
        let name = format!("kubectl-pacto-v{version}-{target}.tar.gz");
        let archive = dir.join(&name);
        let mut tar = Command::new("tar");
        tar.arg("-C").arg(&stage).arg("-czf").arg(&archive);
        // Both layouts krew accepts: ./kubectl-pacto and kubectl-pacto.
        if n % 2 == 0 {
            tar.arg(".");
        } else {
            tar.args(
                std::fs::read_dir(&stage)
                    .unwrap()
                    .map(|e| e.unwrap().file_name()),
            );
        }
        let st = tar.status().expect("tar");
        assert!(st.success(), "tar failed for {name}");
        out.insert(name, sha256_hex(&std::fs::read(&archive).unwrap()));
    }
    out
}

fn run_update(version: &str, dir: &Path, manifest: &Path) -> Run {
    let mut cmd = Command::new("bash");
    cmd.arg(update_script()).arg(version).arg(dir).arg(manifest);
    run(&mut cmd)
}

#[test]
fn update_script_writes_the_archive_hashes() {
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        sha256_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    assert_eq!(
        sha256_hex(&[b'a'; 1_000_000]),
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    );
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    if !have_bash_and_tar() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(manifest_path()).unwrap();
    let manifest = tmp.path().join("pacto.yaml");
    std::fs::write(&manifest, &original).unwrap();
    let old = env!("CARGO_PKG_VERSION");
    let new = "9.8.7-rc.1";
    let dir = tmp.path().join("dist");
    let hashes = fake_release(tmp.path(), &dir, new, true);

    let r = run_update(&format!("v{new}"), &dir, &manifest);
    r.assert_code(0);
    let updated = std::fs::read_to_string(&manifest).unwrap();

    // Each platform now carries the hash of its own archive.
    let m = Manifest::parse("pacto.yaml", &updated).unwrap();
    assert_eq!(m.platforms().len(), TARGETS.len());
    for p in m.platforms() {
        let uri = p["uri"].as_str().unwrap();
        let file = uri.rsplit('/').next().unwrap();
        assert_eq!(
            p["sha256"].as_str(),
            hashes.get(file).map(String::as_str),
            "sha256 of {file} in\n{updated}"
        );
    }
    // And nothing else changed: the version, the uris' version and the placeholder comment.
    let mut shas = m
        .platforms()
        .iter()
        .map(|p| p["sha256"].as_str().unwrap().to_string());
    let expected: String = original
        .lines()
        .filter(|l| !l.starts_with(PLACEHOLDER_COMMENT))
        .map(|l| {
            let t = l.trim_start();
            let line = if l.starts_with("  version:") {
                format!("  version: v{new}")
            } else if t.starts_with("uri:") {
                l.replace(&format!("v{old}"), &format!("v{new}"))
            } else if t.starts_with("sha256:") {
                format!(
                    "{}sha256: \"{}\"",
                    &l[..l.len() - t.len()],
                    shas.next().unwrap()
                )
            } else {
                l.to_string()
            };
            line + "\n"
        })
        .collect();
    assert_eq!(updated, expected);
    // The result still passes every rule, for the new version.
    let found = violations("pacto.yaml", &updated, new);
    assert!(
        found.is_empty(),
        "after update-sha256.sh:\n{}",
        found.join("\n")
    );

    // Running it again changes nothing.
    run_update(new, &dir, &manifest).assert_code(0);
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), updated);
}

#[test]
fn update_script_refuses_incomplete_releases() {
    if !have_bash_and_tar() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(manifest_path()).unwrap();
    let manifest = tmp.path().join("pacto.yaml");
    std::fs::write(&manifest, &original).unwrap();
    let v = env!("CARGO_PKG_VERSION");

    // No LICENSE in the archives: validate-krew-manifest would reject the install.
    let no_license = tmp.path().join("no-license");
    fake_release(tmp.path(), &no_license, v, false);
    let r = run_update(v, &no_license, &manifest);
    assert_ne!(r.code, Some(0), "{r:?}");
    assert!(r.stderr.contains("no LICENSE"), "{}", r.stderr);

    // One archive missing.
    let partial = tmp.path().join("partial");
    let hashes = fake_release(tmp.path(), &partial, v, true);
    std::fs::remove_file(partial.join(hashes.keys().last().unwrap())).unwrap();
    let r = run_update(v, &partial, &manifest);
    assert_ne!(r.code, Some(0), "{r:?}");
    assert!(r.stderr.contains("missing archive"), "{}", r.stderr);

    // Not a semantic version.
    let r = run_update("1.2", &partial, &manifest);
    assert_ne!(r.code, Some(0), "{r:?}");
    assert!(r.stderr.contains("not a semantic version"), "{}", r.stderr);

    // Nothing was written by any failed run.
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), original);
}

// ----- the caveats ------------------------------------------------------------------------------

/// The commands the caveats tell users to run (the indented blocks), run in a fake krew home:
/// they must install a completion shim that answers like the shipped kubectl_complete-pacto, and
/// man pages. `kubectl pacto` is run as `kubectl-pacto`, which is what kubectl executes.
#[cfg(unix)]
#[test]
fn caveats_commands_work() {
    let m = Manifest::load(&manifest_path());
    let caveats = m.spec()["caveats"].as_str().expect("spec.caveats");
    let mut blocks: Vec<String> = Vec::new();
    let mut in_block = false;
    for line in caveats.lines() {
        if line.starts_with("  ") {
            if !in_block {
                blocks.push(String::new());
            }
            in_block = true;
            let cmd = line
                .trim_start()
                .replace("kubectl pacto ", "kubectl-pacto ");
            blocks.last_mut().unwrap().push_str(&(cmd + "\n"));
        } else {
            in_block = false;
        }
    }
    assert_eq!(
        blocks.len(),
        2,
        "want a completion block and a man block: {blocks:?}"
    );

    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let krew_bin = tmp.path().join("krew/bin");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&krew_bin).unwrap();
    // What krew does for the one bin it links.
    std::os::unix::fs::symlink(PACTO, krew_bin.join("kubectl-pacto")).unwrap();
    let path = format!("{}:/usr/bin:/bin", krew_bin.display());
    for block in &blocks {
        let r = run(Command::new("sh")
            .args(["-c", block])
            .env_clear()
            .env("HOME", &home)
            .env("KREW_ROOT", tmp.path().join("krew"))
            .env("PATH", &path));
        assert_eq!(r.code, Some(0), "caveats command failed:\n{block}\n{r:?}");
    }

    let shim = krew_bin.join("kubectl_complete-pacto");
    assert!(
        shim.is_file(),
        "the caveats did not create {}",
        shim.display()
    );
    for words in [
        vec![""],
        vec!["he"],
        vec!["health", "-"],
        vec!["health", "-f", ""],
        vec!["--help"],
        vec!["health", "test", ""],
    ] {
        let got = run(Command::new(&shim).args(&words).env("PATH", &path));
        let want = run(Command::new(COMPLETE_SHIM).args(&words));
        assert_eq!(
            (got.code, &got.stdout),
            (want.code, &want.stdout),
            "the caveats' shim and kubectl_complete-pacto answer {words:?} differently"
        );
    }
    let page = home.join(".local/share/man/man1/kubectl-pacto.1");
    let text = std::fs::read_to_string(&page)
        .unwrap_or_else(|e| panic!("the caveats did not write {}: {e}", page.display()));
    assert!(text.contains(".TH kubectl-pacto 1"), "{text}");
}
