//! Query strings as client-go writes them (`rest/request.go` `Request.URL`: the parameters as
//! Go's `net/url` `Values.Encode` encodes them, keys sorted, each key and value escaped as
//! `url.QueryEscape` escapes it), so that a request line of this tool reads as kubectl's for the
//! same parameters: `?fieldSelector=metadata.name%3Dorders&limit=500`, never `?&limit=500`.

/// The parameters of one request, in any order; [`Query::url`] writes them sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Query(Vec<(&'static str, String)>);

impl Query {
    /// No parameters.
    pub(super) fn new() -> Query {
        Query(Vec::new())
    }

    /// One more parameter (a key given twice is sent twice, as Go's `Values.Add`).
    pub(super) fn add(mut self, key: &'static str, value: impl Into<String>) -> Query {
        self.0.push((key, value.into()));
        self
    }

    /// A parameter when there is a value (an empty one is left out, as client-go leaves out
    /// an empty selector).
    pub(super) fn add_some(self, key: &'static str, value: Option<&str>) -> Query {
        match value.filter(|v| !v.is_empty()) {
            Some(v) => self.add(key, v),
            None => self,
        }
    }

    /// `path?k=v&...` with the keys sorted (Go's sort is stable: values of one key keep their
    /// order); `path` alone without parameters.
    pub(super) fn url(&self, path: &str) -> String {
        let mut pairs: Vec<&(&'static str, String)> = self.0.iter().collect();
        pairs.sort_by_key(|(k, _)| *k);
        let query: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("{}={}", escape(k), escape(v)))
            .collect();
        if query.is_empty() {
            path.to_string()
        } else {
            format!("{path}?{}", query.join("&"))
        }
    }
}

/// Go's `url.QueryEscape`: ASCII letters, digits and `-_.~` kept, a space as `+`, every other
/// byte as `%XX` (upper-case hex).
pub(super) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's `url.QueryEscape` (net/url `shouldEscape` in `encodeQueryComponent` mode): the
    /// unreserved characters stay, a space becomes `+`, `=`, `,`, `!`, `/`, `+` and non-ASCII
    /// bytes are escaped.
    #[test]
    fn values_are_escaped_as_go_escapes_a_query_component() {
        assert_eq!(escape("kubectl-pacto"), "kubectl-pacto");
        assert_eq!(escape("metadata.name=orders"), "metadata.name%3Dorders");
        assert_eq!(escape("app in (a,b),!x"), "app+in+%28a%2Cb%29%2C%21x");
        assert_eq!(escape("a/b+c~d_e"), "a%2Fb%2Bc~d_e");
        assert_eq!(escape("é"), "%C3%A9");
    }

    /// `Values.Encode`: keys sorted, `?` only before a first parameter.
    #[test]
    fn parameters_are_written_sorted_after_one_question_mark() {
        let q = Query::new()
            .add("watch", "true")
            .add("timeoutSeconds", "290")
            .add_some("labelSelector", Some("app=x"))
            .add_some("fieldSelector", None)
            .add("allowWatchBookmarks", "true")
            .add("resourceVersion", "17");
        assert_eq!(
            q.url("/api/v1/namespaces/shop/configmaps"),
            "/api/v1/namespaces/shop/configmaps?allowWatchBookmarks=true&labelSelector=app%3Dx&resourceVersion=17&timeoutSeconds=290&watch=true"
        );
        assert_eq!(Query::new().url("/api/v1/pods"), "/api/v1/pods");
        assert_eq!(
            Query::new().add_some("labelSelector", Some("")).url("/x"),
            "/x"
        );
    }
}
