//! What krew's own code enforces on a plugin manifest: `ValidatePlugin` of krew
//! internal/index/validation/validate.go, with the version parsing of internal/installation/semver.
//! Every failure names the file the rule comes from.

use super::{Manifest, Report, API_VERSION, SEMVER_GO, TYPES_GO, VALIDATE_GO};
use serde_json::Value;

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

pub(super) fn code_rules(m: &Manifest) -> Report {
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
