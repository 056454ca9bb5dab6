//! Object-name validation as kube-apiserver does it on create (apimachinery
//! `api/validation.ValidateObjectMeta` with the kind's name rule, the messages of
//! `util/validation.IsDNS1123Subdomain` and `IsDNS1123Label`), and the 422 `Invalid` Status
//! that carries the field errors (`api/errors.NewInvalid`).

use serde_json::{json, Value};

use crate::http::Response;
use crate::status;

/// The longest DNS-1123 subdomain (`DNS1123SubdomainMaxLength`).
const SUBDOMAIN_MAX: usize = 253;
/// The longest DNS-1123 label (`DNS1123LabelMaxLength`).
const LABEL_MAX: usize = 63;

const SUBDOMAIN_RULE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_RULE: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/// One field error: its `reason` (`FieldValueInvalid`, `FieldValueRequired`), the field's
/// path and the error's text without the path (`Invalid value: "x": ...`).
pub(crate) struct FieldError {
    pub reason: &'static str,
    pub field: String,
    pub body: String,
}

/// Whether `s` is one label: `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
fn is_label(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !b.is_empty()
        && alnum(&b[0])
        && alnum(&b[b.len() - 1])
        && b.iter().all(|c| alnum(c) || *c == b'-')
}

/// The errors of `metadata.name` for a kind whose names are DNS-1123 subdomains (every
/// custom resource, ConfigMaps, Secrets) or, with `label`, DNS-1123 labels (Namespaces): one
/// per broken rule, the length first, as `IsDNS1123Subdomain`/`IsDNS1123Label` list them.
pub(crate) fn name_errors(name: &str, label: bool) -> Vec<FieldError> {
    let invalid = |msg: String| FieldError {
        reason: "FieldValueInvalid",
        field: "metadata.name".into(),
        body: format!("Invalid value: {}: {msg}", go_quote(name)),
    };
    let (max, ok, rule) = if label {
        (LABEL_MAX, is_label(name), LABEL_RULE)
    } else {
        (SUBDOMAIN_MAX, name.split('.').all(is_label), SUBDOMAIN_RULE)
    };
    let mut out = Vec::new();
    if name.len() > max {
        out.push(invalid(format!("must be no more than {max} characters")));
    }
    if !ok {
        out.push(invalid(rule.to_string()));
    }
    out
}

/// A Go `%q` of a name: quotes and backslashes escaped, other bytes as they are (enough for
/// names, which this module checks before anything else reads them).
fn go_quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// 422 Invalid for `errors` of the object `kind.group "name"`, worded as `NewInvalid`: the
/// message `Kind.group "name" is invalid: E` (one error) or `[E1, E2]`; `details` with the
/// name (when there is one), group, kind and one cause per error.
pub(crate) fn invalid(kind: &str, group: &str, name: &str, errors: &[FieldError]) -> Response {
    let texts: Vec<String> = errors
        .iter()
        .map(|e| format!("{}: {}", e.field, e.body))
        .collect();
    let joined = match texts.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    };
    let qualified = if group.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}.{group}")
    };
    let mut details = json!({"kind": kind, "causes": errors
        .iter()
        .map(|e| json!({"reason": e.reason, "message": e.body, "field": e.field}))
        .collect::<Vec<Value>>()});
    // `StatusDetails` omits empty fields.
    if !name.is_empty() {
        details["name"] = json!(name);
    }
    if !group.is_empty() {
        details["group"] = json!(group);
    }
    status::reply(
        422,
        "Invalid",
        &format!("{qualified} {} is invalid: {joined}", go_quote(name)),
        Some(details),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages of apimachinery's `IsDNS1123Subdomain` / `IsDNS1123Label`, as
    /// kube-apiserver v1.36 returns them in `details.causes` (the conformance test compares the
    /// whole answer with the real server's).
    #[test]
    fn names_are_checked_as_kubernetes_checks_them() {
        let count = |n: &str, label: bool| name_errors(n, label).len();
        for ok in ["orders", "a", "0", "a-b.c-d", "example.com"] {
            assert_eq!(count(ok, false), 0, "{ok}");
        }
        for bad in ["Orders", "a_b", "a.", ".a", "-a", "a-", "a..b", ""] {
            assert_eq!(count(bad, false), 1, "{bad}");
        }
        assert_eq!(count(&"a".repeat(253), false), 0);
        let long = name_errors(&"a".repeat(254), false);
        assert_eq!(long.len(), 1);
        assert!(long[0]
            .body
            .ends_with(": must be no more than 253 characters"));
        assert_eq!(count(&format!("{}_", "a".repeat(253)), false), 2);
        assert_eq!(count("a.b", true), 1);
        assert_eq!(count(&"a".repeat(64), true), 1);
        assert_eq!(
            name_errors("A", true)[0].body,
            format!("Invalid value: \"A\": {LABEL_RULE}")
        );
    }
}
