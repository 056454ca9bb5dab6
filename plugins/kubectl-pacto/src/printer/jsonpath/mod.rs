//! kubectl's JSONPath templates (`-o jsonpath=…`, `custom-columns`, `--sort-by`), as client-go
//! `util/jsonpath` (`parser.go`, `jsonpath.go`) reads and runs them with missing keys allowed
//! (kubectl's `--allow-missing-template-keys=true` default).
//!
//! A template is text with actions in braces: `{.items[*].metadata.name}`, `{range
//! .items[*]}{.metadata.name}{"\n"}{end}`. Inside an action: `$` or `@` (the current object,
//! optional), `.field` or `['field']`, `..field` (recursive descent), `*` and `[*]`, `[n]` and
//! `[start:end:step]` (negative indices count from the end; out of range is an error),
//! `[a,b]` (union), `[?(@.x == "y")]` filters (`==`, `!=`, `<`, `>`, `<=`, `>=`, `=~`, or a bare
//! path: it exists), quoted text (`"\n"`), and `range` … `end`.
//!
//! Printing (client-go `PrintResults`): the results of one action are joined by a space; strings
//! print as they are, numbers and booleans as Go prints them, maps and lists as compact JSON
//! (Go's `json.Marshal`).
//!
//! As client-go keeps them apart: [`parser`] reads a template into nodes (`parser.go`,
//! `node.go`), [`evaluator`] runs the nodes on an object and prints the results
//! (`jsonpath.go`).

mod evaluator;
mod parser;

use parser::Node;
use serde_json::Value;

pub use evaluator::{MAX_OUTPUT_BYTES, MAX_STEPS};

/// A parsed template. Errors of [`Template::parse`] and [`Template::execute`] are client-go's
/// texts where it has one (`unclosed action`, `not in range, nothing to end`, `array index out
/// of bounds: index 5, length 2`, ...).
#[derive(Debug, Clone)]
pub struct Template {
    nodes: Vec<Node>,
}

/// The longest template (its work is bounded by [`MAX_STEPS`] and [`MAX_OUTPUT_BYTES`]).
const MAX_TEMPLATE_LEN: usize = 64 * 1024;

impl Template {
    /// Parses a template. Errors: an action without its `}`, an `end` outside a range, an
    /// unknown identifier, a malformed bracket or filter, a template over 64 KiB.
    pub fn parse(text: &str) -> Result<Template, String> {
        if text.len() > MAX_TEMPLATE_LEN {
            return Err(format!(
                "the template is {} bytes, over the bound of {MAX_TEMPLATE_LEN}",
                text.len()
            ));
        }
        Ok(Template {
            nodes: parser::parse(text)?,
        })
    }

    /// Runs the template on `data` and returns the text it prints. Errors: a step's (see
    /// above), output past [`MAX_OUTPUT_BYTES`], or more than [`MAX_STEPS`] values visited.
    pub fn execute(&self, data: &Value) -> Result<String, String> {
        evaluator::execute(&self.nodes, data)
    }

    /// The values of a template that is one path (`custom-columns`, `--sort-by`): every result
    /// of its actions, in order. Text nodes are ignored.
    pub fn values<'v>(&self, data: &'v Value) -> Result<Vec<&'v Value>, String> {
        let mut out = Vec::new();
        for node in &self.nodes {
            match node {
                Node::Path(steps) => out.extend(evaluator::eval(steps, vec![data])?),
                Node::Range(steps, _) => out.extend(evaluator::eval(steps, vec![data])?),
                Node::Text(_) => {}
            }
        }
        Ok(out)
    }
}

/// kubectl's relaxed path (`RelaxedJSONPathExpression`): `.a.b`, `a.b`, `$.a.b` and `{.a.b}`
/// all mean `{.a.b}`. Errors: a template with more than one action or with text around it.
pub fn relaxed(expr: &str) -> Result<Template, String> {
    let e = expr.trim();
    let inner = match e.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        Some(inner) => inner.trim(),
        None => e,
    };
    if inner.is_empty() {
        return Err(format!("{expr:?}: an empty path"));
    }
    let inner = inner.strip_prefix('$').unwrap_or(inner);
    let body = if inner.starts_with('.') || inner.starts_with('[') {
        inner.to_string()
    } else {
        format!(".{inner}")
    };
    Template::parse(&format!("{{{body}}}")).map_err(|e| format!("{expr:?}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The example object of kubectl's JSONPath reference page (kubernetes.io
    /// docs/reference/kubectl/jsonpath), and the results that page gives for each function.
    fn doc() -> Value {
        json!({
            "kind": "List",
            "items": [
                {"kind": "None", "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
                 "status": {"capacity": {"cpu": "4"}, "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
                {"kind": "None", "metadata": {"name": "127.0.0.2"},
                 "status": {"capacity": {"cpu": "8"}, "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.2"}, {"type": "another", "address": "127.0.0.3"}]}}
            ],
            "users": [
                {"name": "myself", "user": {}},
                {"name": "e2e", "user": {"username": "admin", "password": "secret"}}
            ]
        })
    }

    fn run(t: &str) -> String {
        Template::parse(t).unwrap().execute(&doc()).unwrap()
    }

    #[test]
    fn the_functions_of_kubectls_reference_page() {
        assert_eq!(run("kind is {.kind}"), "kind is List");
        assert_eq!(run("{.kind}"), "List");
        assert_eq!(run("{['kind']}"), "List");
        assert_eq!(run("{..name}"), "127.0.0.1 127.0.0.2 myself e2e");
        assert_eq!(run("{.items[*].metadata.name}"), "127.0.0.1 127.0.0.2");
        assert_eq!(run("{.users[0].name}"), "myself");
        assert_eq!(run("{.users[?(@.name==\"e2e\")].user.password}"), "secret");
        assert_eq!(
            run("{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}"),
            "[127.0.0.1, {\"cpu\":\"4\"}] [127.0.0.2, {\"cpu\":\"8\"}] "
        );
        assert_eq!(
            run("{range .items[*]}{.metadata.name}{\"\\t\"}{end}"),
            "127.0.0.1\t127.0.0.2\t"
        );
        assert_eq!(run("{.items[-1:].metadata.name}"), "127.0.0.2");
        // The page shows Go's map[cpu:4]; client-go's PrintResults marshals maps as JSON.
        assert_eq!(
            run("{.items[*]['metadata.name', 'status.capacity']}"),
            "127.0.0.1 127.0.0.2 {\"cpu\":\"4\"} {\"cpu\":\"8\"}"
        );
        assert_eq!(
            run("{.items[*].metadata.labels['kubernetes\\.io/hostname']}"),
            "127.0.0.1"
        );
    }

    #[test]
    fn missing_keys_print_nothing_and_errors_are_client_gos() {
        assert_eq!(run("{.status.nothing}"), "");
        assert_eq!(run("a{.nothing}b"), "ab");
        let e = Template::parse("{.items[5]}")
            .unwrap()
            .execute(&doc())
            .unwrap_err();
        assert_eq!(e, "array index out of bounds: index 5, length 2");
        assert_eq!(Template::parse("{.kind").unwrap_err(), "unclosed action");
        assert_eq!(
            Template::parse("{end}").unwrap_err(),
            "not in range, nothing to end"
        );
        let e = Template::parse("{.kind[0]}")
            .unwrap()
            .execute(&doc())
            .unwrap_err();
        assert_eq!(e, "string is not array or slice");
    }

    #[test]
    fn relaxed_paths_as_custom_columns_read_them() {
        for p in [
            ".metadata.name",
            "metadata.name",
            "{.metadata.name}",
            "$.metadata.name",
        ] {
            let t = relaxed(p).unwrap();
            let v = json!({"metadata": {"name": "a"}});
            assert_eq!(t.values(&v).unwrap(), vec![&json!("a")], "{p}");
        }
        assert!(relaxed("").is_err());
    }

    /// Nested ranges multiply: the work and the output are bounded, whatever the template.
    #[test]
    fn nested_ranges_end_at_a_bound() {
        let v = json!({"a": 1});
        let tenfold = "{range [@,@,@,@,@,@,@,@,@,@]}";
        let t = tenfold.repeat(12) + "x" + &"{end}".repeat(12);
        let e = Template::parse(&t).unwrap().execute(&v).unwrap_err();
        assert!(
            e.starts_with("the output passed") || e.starts_with("the template ran more than"),
            "{e}"
        );
        let quiet = tenfold.repeat(12) + &"{end}".repeat(12);
        let e = Template::parse(&quiet).unwrap().execute(&v).unwrap_err();
        assert!(e.starts_with("the template ran more than"), "{e}");
    }

    #[test]
    fn filters_compare_like_go_templates() {
        let v = json!({"c": [{"t": "Ready", "n": 2}, {"t": "Synced", "n": 5}]});
        let t = |s: &str| Template::parse(s).unwrap().execute(&v);
        assert_eq!(t("{.c[?(@.n > 3)].t}").unwrap(), "Synced");
        assert_eq!(t("{.c[?(@.n <= 2)].t}").unwrap(), "Ready");
        assert_eq!(t("{.c[?(@.t != 'Ready')].n}").unwrap(), "5");
        assert_eq!(t("{.c[?(@.t =~ '^Syn')].n}").unwrap(), "5");
        assert_eq!(t("{.c[?(@.t)].n}").unwrap(), "2 5");
        assert_eq!(
            t("{.c[?(@.n == 'x')].t}").unwrap_err(),
            "incompatible types for comparison"
        );
    }
}
