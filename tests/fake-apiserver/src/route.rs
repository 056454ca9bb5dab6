//! Request addressing: routing URL paths the way kube-apiserver does, and
//! decoding query strings.

/// What a request path addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    /// `/version`
    Version,
    /// `/api`
    Api,
    /// `/apis`
    Apis,
    /// `/apis/{group}`
    Group(String),
    /// `/api/{version}` (group `""`) or `/apis/{group}/{version}`
    GroupVersion { group: String, version: String },
    /// `/openapi/v3`
    OpenApiIndex,
    /// `/openapi/v3/api/{version}` or `/openapi/v3/apis/{group}/{version}`
    OpenApiGroupVersion { group: String, version: String },
    /// A collection, object or subresource path.
    Resource(ResourcePath),
    /// Anything else.
    Unknown,
}

/// The parts of a resource path
/// `/api[s/{group}]/{version}/[namespaces/{ns}/]{plural}[/{name}[/{subresource}]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourcePath {
    /// API group, `""` for core.
    pub group: String,
    /// API version.
    pub version: String,
    /// Namespace segment, when the path has one.
    pub namespace: Option<String>,
    /// Resource plural name.
    pub plural: String,
    /// Object name, for object and subresource paths.
    pub name: Option<String>,
    /// Subresource, e.g. `status`.
    pub subresource: Option<String>,
}

impl ResourcePath {
    /// The namespace an authorizer sees: the namespace segment, or the
    /// object's own name for a core Namespace.
    pub(crate) fn rbac_namespace(&self) -> Option<&str> {
        if self.namespace.is_none() && self.group.is_empty() && self.plural == "namespaces" {
            return self.name.as_deref();
        }
        self.namespace.as_deref()
    }

    /// The resource as RBAC names it: `plural` or `plural/subresource`.
    pub(crate) fn rbac_resource(&self) -> String {
        match &self.subresource {
            Some(sub) => format!("{}/{sub}", self.plural),
            None => self.plural.clone(),
        }
    }
}

/// Routes a URL path (without query).
pub(crate) fn parse(path: &str) -> Route {
    let owned: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(percent_decode)
        .collect();
    let segs: Vec<&str> = owned.iter().map(String::as_str).collect();
    match segs.as_slice() {
        ["version"] => Route::Version,
        ["api"] => Route::Api,
        ["api", version, rest @ ..] => group_version_route("", version, rest),
        ["apis"] => Route::Apis,
        ["apis", group] => Route::Group(group.to_string()),
        ["apis", group, version, rest @ ..] => group_version_route(group, version, rest),
        ["openapi", "v3"] => Route::OpenApiIndex,
        ["openapi", "v3", "api", version] => Route::OpenApiGroupVersion {
            group: String::new(),
            version: version.to_string(),
        },
        ["openapi", "v3", "apis", group, version] => Route::OpenApiGroupVersion {
            group: group.to_string(),
            version: version.to_string(),
        },
        _ => Route::Unknown,
    }
}

fn group_version_route(group: &str, version: &str, rest: &[&str]) -> Route {
    if rest.is_empty() {
        return Route::GroupVersion {
            group: group.to_string(),
            version: version.to_string(),
        };
    }
    // `namespaces/{ns}/...` scopes the rest to a namespace, except the
    // Namespace object's own subresources (`namespaces/{name}/status`).
    let namespace_subresource = rest.len() == 3 && matches!(rest[2], "status" | "finalize");
    let (namespace, parts) = if rest[0] == "namespaces" && rest.len() > 2 && !namespace_subresource
    {
        (Some(rest[1].to_string()), &rest[2..])
    } else {
        (None, rest)
    };
    let (plural, name, subresource) = match parts {
        [plural] => (plural, None, None),
        [plural, name] => (plural, Some(name.to_string()), None),
        [plural, name, sub] => (plural, Some(name.to_string()), Some(sub.to_string())),
        _ => return Route::Unknown,
    };
    Route::Resource(ResourcePath {
        group: group.to_string(),
        version: version.to_string(),
        namespace,
        plural: plural.to_string(),
        name,
        subresource,
    })
}

/// Decodes `%XX` escapes; invalid escapes are kept as they are.
pub(crate) fn percent_decode(input: &str) -> String {
    let bytes = input.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Splits a raw query string into decoded `(key, value)` pairs
/// (`+` is a space, `%XX` escapes are decoded).
pub(crate) fn query_pairs(raw: &str) -> Vec<(String, String)> {
    let decode = |s: &str| percent_decode(&s.replace('+', " "));
    raw.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// A decoded query string.
#[derive(Debug, Clone, Default)]
pub(crate) struct Query(Vec<(String, String)>);

impl Query {
    /// Decodes a raw query string.
    pub(crate) fn parse(raw: &str) -> Query {
        Query(query_pairs(raw))
    }

    /// The first value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether `key` is `true` or `1`.
    pub(crate) fn flag(&self, key: &str) -> bool {
        matches!(self.get(key), Some("true" | "1"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(path: &str) -> ResourcePath {
        match parse(path) {
            Route::Resource(p) => p,
            other => panic!("{path} routed to {other:?}"),
        }
    }

    #[test]
    fn routes_discovery_paths() {
        assert_eq!(parse("/version"), Route::Version);
        assert_eq!(parse("/api"), Route::Api);
        assert_eq!(parse("/apis/"), Route::Apis);
        assert_eq!(parse("/apis/pacto.dev"), Route::Group("pacto.dev".into()));
        assert_eq!(
            parse("/api/v1"),
            Route::GroupVersion {
                group: String::new(),
                version: "v1".into()
            }
        );
        assert_eq!(parse("/healthz/x"), Route::Unknown);
    }

    #[test]
    fn routes_namespaced_and_cluster_paths() {
        let p = resource("/apis/g.io/v1/namespaces/ns1/things/a/status");
        assert_eq!(
            (p.group.as_str(), p.namespace.as_deref(), p.plural.as_str()),
            ("g.io", Some("ns1"), "things")
        );
        assert_eq!(
            (p.name.as_deref(), p.subresource.as_deref()),
            (Some("a"), Some("status"))
        );
        let p = resource("/api/v1/namespaces/ns1/configmaps");
        assert_eq!((p.namespace.as_deref(), p.name), (Some("ns1"), None));
        let p = resource("/api/v1/namespaces/ns1");
        assert_eq!(
            (p.plural.as_str(), p.name.as_deref()),
            ("namespaces", Some("ns1"))
        );
        assert_eq!(p.rbac_namespace(), Some("ns1"));
        let p = resource("/api/v1/namespaces/ns1/status");
        assert_eq!(
            (p.namespace, p.name.as_deref(), p.subresource.as_deref()),
            (None, Some("ns1"), Some("status"))
        );
        assert_eq!(parse("/api/v1/a/b/c/d"), Route::Unknown);
    }

    #[test]
    fn decodes_queries() {
        let q = Query::parse("labelSelector=app+in+(a%2Cb)&watch=1&x");
        assert_eq!(q.get("labelSelector"), Some("app in (a,b)"));
        assert!(q.flag("watch"));
        assert_eq!(q.get("x"), Some(""));
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("%41%zz"), "A%zz");
    }
}
