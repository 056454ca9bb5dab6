//! Names and namespaces as Kubernetes validates them, checked before a name goes into a
//! request path, with apimachinery's words:
//!
//! - a path segment (apimachinery `pkg/api/validation/path/name.go` `IsValidPathSegmentName`):
//!   not `.` or `..`, no `/` and no `%`. client-go's request builder (`rest/request.go`
//!   `Namespace`, `Name`, `Resource`) refuses anything else before sending, as `invalid
//!   namespace "a/b": [may not contain '/']`, and so does kubectl;
//! - a namespace is a DNS-1123 label (apimachinery `pkg/api/validation` `ValidateNamespaceName`,
//!   `pkg/util/validation` `IsDNS1123Label`): at most 63 characters of `a-z`, `0-9` and `-`,
//!   starting and ending with a letter or digit;
//! - an object name of the kinds this tool reads (custom resources: apiextensions-apiserver
//!   `pkg/registry/customresource/validator.go` validates them with `NameIsDNSSubdomain`;
//!   ConfigMaps alike) is a DNS-1123 subdomain: at most 253 characters, labels joined by `.`;
//! - a resource (a plural discovery gives) must be a path segment too.
//!
//! Pure. A name that fails is refused with every reason, in apimachinery's order.

/// apimachinery `IsValidPathSegmentName`: the reasons `name` cannot be one segment of a path
/// (none: it can).
pub fn path_segment_errors(name: &str) -> Vec<String> {
    for illegal in [".", ".."] {
        if name == illegal {
            return vec![format!("may not be '{illegal}'")];
        }
    }
    ["/", "%"]
        .iter()
        .filter(|c| name.contains(**c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}

const LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const SUBDOMAIN_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

/// One DNS-1123 label without its length bound: `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
fn is_label(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) => {
            alnum(first) && alnum(last) && b.iter().all(|c| alnum(c) || *c == b'-')
        }
        _ => false,
    }
}

/// apimachinery `MaxLenError`.
fn max_len(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// apimachinery `RegexError` with its examples (its double space before `or` included).
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let shown: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{msg} (e.g. {}regex used for validation is '{fmt}')",
        shown.join(" or ")
    )
}

/// apimachinery `IsDNS1123Label`: the reasons `value` is not a DNS-1123 label.
pub fn dns1123_label_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len(63));
    }
    if !is_label(value) {
        errs.push(regex_error(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
            LABEL_FMT,
            &["my-name", "123-abc"],
        ));
    }
    errs
}

/// apimachinery `IsDNS1123Subdomain`: the reasons `value` is not a DNS-1123 subdomain.
pub fn dns1123_subdomain_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(max_len(253));
    }
    if !value.split('.').all(is_label) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// Why `ns` cannot be a namespace (none: it can): client-go's path-segment reasons first (what
/// kubectl refuses), else the DNS-1123 label's.
pub fn namespace_errors(ns: &str) -> Vec<String> {
    let segment = path_segment_errors(ns);
    if !segment.is_empty() {
        return segment;
    }
    dns1123_label_errors(ns)
}

/// Why `name` cannot be the name of an object of the kinds this tool reads (none: it can):
/// the path-segment reasons first, else the DNS-1123 subdomain's.
pub fn object_name_errors(name: &str) -> Vec<String> {
    if name.is_empty() {
        // client-go `rest/request.go` `Name`: "resource name may not be empty".
        return vec!["may not be empty".to_string()];
    }
    let segment = path_segment_errors(name);
    if !segment.is_empty() {
        return segment;
    }
    dns1123_subdomain_errors(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// apimachinery `IsValidPathSegmentName`: `.` and `..` are refused alone, `/` and `%`
    /// anywhere, each reason once; anything else is a segment.
    #[test]
    fn path_segments_as_apimachinery_checks_them() {
        assert_eq!(path_segment_errors(".."), ["may not be '..'"]);
        assert_eq!(path_segment_errors("."), ["may not be '.'"]);
        assert_eq!(path_segment_errors("a/b"), ["may not contain '/'"]);
        assert_eq!(
            path_segment_errors("../%2e"),
            ["may not contain '/'", "may not contain '%'"]
        );
        assert!(path_segment_errors("a?watch=true").is_empty());
        assert!(path_segment_errors("UPPER").is_empty());
    }

    /// apimachinery `IsDNS1123Label` and `IsDNS1123Subdomain`, with their messages.
    #[test]
    fn labels_and_subdomains_with_apimachinery_s_words() {
        for ok in ["a", "shop", "a-1", "0", &"a".repeat(63)] {
            assert!(dns1123_label_errors(ok).is_empty(), "{ok}");
        }
        assert_eq!(
            dns1123_label_errors("a?watch=true"),
            ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]
        );
        assert_eq!(
            dns1123_label_errors(&"a".repeat(64)),
            ["must be no more than 63 characters"]
        );
        for bad in ["", "-a", "a-", "A", "a.b", "a_b"] {
            assert_eq!(dns1123_label_errors(bad).len(), 1, "{bad}");
        }
        for ok in ["a.b", "orders.v2", "x", &format!("{}.b", "a".repeat(63))] {
            assert!(dns1123_subdomain_errors(ok).is_empty(), "{ok}");
        }
        assert_eq!(
            dns1123_subdomain_errors("a..b"),
            ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]
        );
        assert_eq!(dns1123_subdomain_errors(&"a".repeat(254)).len(), 1);
    }

    /// A namespace or a name is refused with kubectl's words where kubectl refuses it (a path
    /// segment), else with apimachinery's.
    #[test]
    fn namespaces_and_names() {
        assert_eq!(namespace_errors("a/b"), ["may not contain '/'"]);
        assert_eq!(namespace_errors("UPPER").len(), 1);
        assert!(namespace_errors("shop").is_empty());
        assert_eq!(object_name_errors("../x"), ["may not contain '/'"]);
        assert_eq!(object_name_errors("a?watch=true").len(), 1);
        assert_eq!(object_name_errors(""), ["may not be empty"]);
        assert!(object_name_errors("payments.v2").is_empty());
    }
}
