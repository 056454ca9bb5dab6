//! Request paths, built from segments that are each checked first (`k8s::names`): a group, a
//! version, a resource (the plural discovery gave), a namespace, a name and a subresource, as
//! client-go's request builder joins them (`rest/request.go` `URL`: `/apis/{group}/{version}`
//! or `/api/v1`, then `namespaces/{namespace}`, the resource, the name, the subresource).
//! A segment that could be read as something else (`..`, `a/b`, `a?watch=true`) never reaches
//! the server: it is refused with client-go's words, [`ClusterError::InvalidName`] (boxed, as
//! the module's other pure functions box their errors).

use super::{ClusterError, ServedKind};
use crate::k8s::names;

/// One checked segment: `errors` says why `value` cannot be it.
fn segment<'a>(
    what: &str,
    value: &'a str,
    errors: fn(&str) -> Vec<String>,
) -> Result<&'a str, Box<ClusterError>> {
    let reasons = errors(value);
    if reasons.is_empty() {
        Ok(value)
    } else {
        Err(Box::new(ClusterError::InvalidName {
            what: what.to_string(),
            value: value.to_string(),
            reasons,
        }))
    }
}

/// A group, version or resource: a path segment, not empty.
fn plain(value: &str) -> Vec<String> {
    if value.is_empty() {
        return vec!["may not be empty".to_string()];
    }
    names::path_segment_errors(value)
}

/// `/` and the segments joined by `/`.
fn join(segments: &[&str]) -> String {
    let mut out = String::new();
    for s in segments {
        out.push('/');
        out.push_str(s);
    }
    out
}

/// The root of a group version: `["api", "v1"]` for the core group, else
/// `["apis", group, version]`. Errors: a segment that cannot be one.
pub(super) fn group_version<'a>(
    group: &'a str,
    version: &'a str,
) -> Result<Vec<&'a str>, Box<ClusterError>> {
    let version = segment("version", version, plain)?;
    Ok(if group.is_empty() {
        vec!["api", version]
    } else {
        vec!["apis", segment("group", group, plain)?, version]
    })
}

/// The discovery document of a group version: `/api/v1` or `/apis/{group}/{version}`.
pub(super) fn discovery(group: &str, version: &str) -> Result<String, Box<ClusterError>> {
    Ok(join(&group_version(group, version)?))
}

/// The OpenAPI v3 document of a group version: `/openapi/v3/apis/{group}/{version}`.
pub(super) fn openapi_v3(group: &str, version: &str) -> Result<String, Box<ClusterError>> {
    let mut all = vec!["openapi", "v3"];
    all.extend(group_version(group, version)?);
    Ok(join(&all))
}

/// The collection of `kind` (in `namespace`, for a namespaced kind).
pub(super) fn collection(
    kind: &ServedKind,
    namespace: Option<&str>,
) -> Result<String, Box<ClusterError>> {
    let mut all = group_version(&kind.group, &kind.version)?;
    if let (true, Some(ns)) = (kind.namespaced, namespace) {
        all.push("namespaces");
        all.push(segment("namespace", ns, names::namespace_errors)?);
    }
    all.push(segment("resource", &kind.plural, plain)?);
    Ok(join(&all))
}

/// One object of `kind` (and its `subresource`, e.g. `status`).
pub(super) fn object(
    kind: &ServedKind,
    namespace: Option<&str>,
    name: &str,
    subresource: Option<&str>,
) -> Result<String, Box<ClusterError>> {
    let mut path = collection(kind, namespace)?;
    path.push('/');
    path.push_str(segment("resource name", name, names::object_name_errors)?);
    if let Some(sub) = subresource {
        path.push('/');
        path.push_str(segment("subresource", sub, plain)?);
    }
    Ok(path)
}

/// Checks a namespace (a kubeconfig context's, `-n`, `--argocd-namespace`) before any request.
pub fn check_namespace(ns: &str) -> Result<(), Box<ClusterError>> {
    segment("namespace", ns, names::namespace_errors).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stages() -> ServedKind {
        ServedKind {
            group: "delivery.pacto.trianalab.io".into(),
            version: "v1alpha1".into(),
            kind: "Stage".into(),
            plural: "stages".into(),
            namespaced: true,
        }
    }

    /// Paths as client-go builds them; a bad segment is refused in client-go's words.
    #[test]
    fn paths_from_checked_segments() {
        let k = stages();
        assert_eq!(
            object(&k, Some("test"), "payments", Some("status")).unwrap(),
            "/apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/stages/payments/status"
        );
        assert_eq!(
            collection(&ServedKind::configmap(), None).unwrap(),
            "/api/v1/configmaps"
        );
        assert_eq!(
            collection(&ServedKind::namespace(), Some("ignored")).unwrap(),
            "/api/v1/namespaces"
        );
        assert_eq!(discovery("", "v1").unwrap(), "/api/v1");
        assert_eq!(
            openapi_v3("delivery.pacto.trianalab.io", "v1alpha1").unwrap(),
            "/openapi/v3/apis/delivery.pacto.trianalab.io/v1alpha1"
        );
        assert_eq!(
            object(&k, Some("test"), "../x", None)
                .unwrap_err()
                .to_string(),
            "invalid resource name \"../x\": [may not contain '/']"
        );
        assert_eq!(
            object(&k, Some("a/b"), "x", None).unwrap_err().to_string(),
            "invalid namespace \"a/b\": [may not contain '/']"
        );
        assert!(object(&k, Some("test"), "a?watch=true", None)
            .unwrap_err()
            .to_string()
            .starts_with(
                "invalid resource name \"a?watch=true\": [a lowercase RFC 1123 subdomain"
            ));
        let mut hostile = stages();
        hostile.plural = "..".into();
        assert_eq!(
            collection(&hostile, Some("test")).unwrap_err().to_string(),
            "invalid resource \"..\": [may not be '..']"
        );
    }
}
