//! kubectl's JSONPath templates (`-o jsonpath=…`, `jsonpath-as-json=…`, `custom-columns`,
//! `--sort-by`, `wait --for jsonpath=`), as client-go `util/jsonpath` (`parser.go`,
//! `jsonpath.go`) reads and runs them with missing keys allowed (kubectl's
//! `--allow-missing-template-keys=true` default).
//!
//! A template is text with actions in braces: `{.items[*].metadata.name}`, `{range
//! .items[*]}{.metadata.name}{"\n"}{end}`. Inside an action: `$` or `@` (the current object,
//! optional), `.field` or `['field']`, `..field` (recursive descent), `*` and `[*]`, `[n]` and
//! `[start:end:step]` (negative indices count from the end; out of range is an error),
//! `[a,b]` (union), `[?(@.x == "y")]` filters (`==`, `!=`, `<`, `>`, `<=`, `>=`, or a bare
//! path: it exists), quoted text (`"\n"`), numbers, `true`/`false`, and `range` … `end`.
//! `{}` is the object itself; `{.}` is nothing (the field with the empty name).
//!
//! Printing (client-go `PrintResults`): the results of one action are joined by a space; strings
//! print as they are, numbers and booleans as Go prints them, null as `null`, maps and lists as
//! compact JSON (Go's `json.Marshal`). As JSON, each action's results are one indented JSON
//! array.
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
/// texts (`unclosed action`, `unterminated array`, `invalid array index "x"`, `unrecognized
/// character in action: U+007E '~'`, `not in range, nothing to end`, `array index out of
/// bounds: index 5, length 2`, ...).
#[derive(Debug, Clone)]
pub struct Template {
    nodes: Vec<Node>,
}

/// The longest template (its work is bounded by [`MAX_STEPS`] and [`MAX_OUTPUT_BYTES`]).
const MAX_TEMPLATE_LEN: usize = 64 * 1024;

impl Template {
    /// Parses a template. Errors: client-go's parse errors (an action without its `}`, a
    /// malformed bracket, filter, quote or number, an unexpected character), a template over
    /// 64 KiB. Unknown identifiers and `end` outside a range are errors when the template runs,
    /// as in client-go.
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

    /// Runs the template on `data` and returns the text it prints (`as_json`: each list of
    /// results as an indented JSON array, kubectl's `jsonpath-as-json`). Errors: a step's (see
    /// above), output past [`MAX_OUTPUT_BYTES`], or more than [`MAX_STEPS`] nodes run.
    pub fn execute(&self, data: &Value, as_json: bool) -> Result<String, String> {
        evaluator::execute(&self.nodes, data, as_json)
    }

    /// client-go `FindResults`: the lists of results, one per node that prints (what
    /// `custom-columns`, `--sort-by` and `wait` read). Errors: as [`Template::execute`].
    pub fn results(&self, data: &Value) -> Result<Vec<Vec<Value>>, String> {
        Ok(evaluator::find_results(&self.nodes, data)?
            .into_iter()
            .map(|list| list.iter().map(evaluator::Res::to_value).collect())
            .collect())
    }
}

/// kubectl's `RelaxedJSONPathExpression` (`kubectl/pkg/cmd/get/customcolumn.go`): `.a.b`,
/// `a.b`, `{a.b}` and `{.a.b}` all become `{.a.b}` (the text between the optional dot and the
/// end, braces excluded); the empty path stays empty. Returns the template and its text.
/// Errors: kubectl's for a path with braces elsewhere (`unexpected path string, expected a
/// 'name1.name2' or ...`), or the template's own parse error.
pub fn relaxed(expr: &str) -> Result<(Template, String), String> {
    let text = relaxed_text(expr)?;
    Ok((Template::parse(&text)?, text))
}

/// The text of [`relaxed`], unparsed.
pub fn relaxed_text(expr: &str) -> Result<String, String> {
    if expr.is_empty() {
        return Ok(String::new());
    }
    // `^\{\.?([^{}]+)\}$|^\.?([^{}]+)$`: the optional dot is taken only when something follows.
    let field = |s: &str| -> Option<String> {
        let s = match s.strip_prefix('.') {
            Some(rest) if !rest.is_empty() => rest,
            _ => s,
        };
        (!s.is_empty() && !s.contains(['{', '}'])).then(|| s.to_string())
    };
    let inner = expr
        .strip_prefix('{')
        .and_then(|r| r.strip_suffix('}'))
        .and_then(field);
    match inner.or_else(|| field(expr)) {
        Some(f) => Ok(format!("{{.{f}}}")),
        None => Err(
            "unexpected path string, expected a 'name1.name2' or '.name1.name2' or \
             '{name1.name2}' or '{.name1.name2}'"
                .into(),
        ),
    }
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
        Template::parse(t).unwrap().execute(&doc(), false).unwrap()
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
        assert_eq!(
            run("{.users[0].user.nothing}{.users[1].user}"),
            "{\"password\":\"secret\",\"username\":\"admin\"}"
        );
        let e = Template::parse("{.items[5]}")
            .unwrap()
            .execute(&doc(), false)
            .unwrap_err();
        assert_eq!(e, "array index out of bounds: index 5, length 2");
        assert_eq!(Template::parse("{.kind").unwrap_err(), "unclosed action");
        let e = Template::parse("{end}").unwrap().execute(&doc(), false);
        assert_eq!(e.unwrap_err(), "not in range, nothing to end");
        let e = Template::parse("{.kind[0]}")
            .unwrap()
            .execute(&doc(), false)
            .unwrap_err();
        assert_eq!(e, "string is not array or slice");
    }

    /// kubectl's RelaxedJSONPathExpression: the dot and the braces are optional; `$` is not
    /// the root there (`{.$.metadata.name}` reads the field with the empty name).
    #[test]
    fn relaxed_paths_as_kubectl_reads_them() {
        let v = json!({"metadata": {"name": "a"}});
        for p in [
            ".metadata.name",
            "metadata.name",
            "{.metadata.name}",
            "{metadata.name}",
        ] {
            let (t, text) = relaxed(p).unwrap();
            assert_eq!(text, "{.metadata.name}");
            assert_eq!(t.results(&v).unwrap(), vec![vec![json!("a")]], "{p}");
        }
        assert_eq!(
            relaxed_text("$.metadata.name").unwrap(),
            "{.$.metadata.name}"
        );
        assert_eq!(relaxed_text(".").unwrap(), "{..}");
        assert_eq!(relaxed_text("").unwrap(), "");
        assert!(relaxed_text(".x}")
            .unwrap_err()
            .starts_with("unexpected path string"));
        assert!(relaxed_text("{.a}{.b}").is_err());
    }

    /// Nested ranges multiply: the work and the output are bounded, whatever the template.
    #[test]
    fn nested_ranges_end_at_a_bound() {
        let v = json!({"a": 1});
        // A string's bytes: ten values whatever the object.
        let tenfold = "{range \"0123456789\".*}";
        let t = tenfold.repeat(12) + "x" + &"{end}".repeat(12);
        let e = Template::parse(&t).unwrap().execute(&v, false).unwrap_err();
        assert!(
            e.starts_with("the output passed") || e.starts_with("the template ran more than"),
            "{e}"
        );
        let quiet = tenfold.repeat(12) + &"{end}".repeat(12);
        let e = Template::parse(&quiet)
            .unwrap()
            .execute(&v, false)
            .unwrap_err();
        assert!(e.starts_with("the template ran more than"), "{e}");
    }

    /// `{}` is the object, `{.}` nothing; null prints `null`; `jsonpath-as-json` prints each
    /// action's results as a JSON array, in a range once per item.
    #[test]
    fn empty_actions_null_and_json_output_as_client_go() {
        let v = json!({"a": null, "l": [{"n": "x"}, {"n": "y"}]});
        let t = |s: &str, j: bool| Template::parse(s).unwrap().execute(&v, j).unwrap();
        assert_eq!(
            t("{}", false),
            "{\"a\":null,\"l\":[{\"n\":\"x\"},{\"n\":\"y\"}]}"
        );
        assert_eq!(t("{.}", false), "");
        assert_eq!(t("{.a}", false), "null");
        assert_eq!(
            t("{range .l[*]}{.n}{end}", true),
            "[\n    \"x\"\n]\n[\n    \"y\"\n]\n"
        );
        assert_eq!(t("{.l[*].n}", true), "[\n    \"x\",\n    \"y\"\n]\n");
        assert_eq!(t("{.nothing}", true), "[]\n");
        // A range without end runs to the end of the template, then the rest runs again.
        assert_eq!(t("{range .l[*]}{.n}-", false), "x-y--");
        assert_eq!(t("{.l[].n}", false), "x");
        assert_eq!(
            Template::parse("{[]}")
                .unwrap()
                .execute(&v, false)
                .unwrap_err(),
            "map[string]interface {} is not array or slice"
        );
    }

    #[test]
    fn malformed_templates_are_refused_as_client_go_refuses_them() {
        for (t, e) in [
            ("{.a[}", "unterminated array"),
            ("{.a", "unclosed action"),
            ("{.a[\"x\"]}", "invalid array index \"x\""),
            ("{.a[?(@.x)}", "unclosed array expect ]"),
            ("{.a[?(@.x=\"1)]}", "unterminated filter"),
            ("{....a}", "invalid multiple recursive descent"),
            ("{.a[1:2:3:4]}", "invalid array index 1:2:3:4"),
            ("{\"\\q\"}", "unquote string \"\\q\" error invalid syntax"),
            ("{-}", "cannot parse number -"),
            ("{*}", "unrecognized character in action: U+002A '*'"),
            (
                "{.a[?(@.x==)]}",
                "unrecognized character in action: U+003D '='",
            ),
        ] {
            assert_eq!(Template::parse(t).unwrap_err(), e, "{t}");
        }
    }

    #[test]
    fn filters_compare_like_go_templates() {
        let v = json!({"c": [{"t": "Ready", "n": 2}, {"t": "Synced", "n": 5}]});
        let t = |s: &str| Template::parse(s).unwrap().execute(&v, false);
        assert_eq!(t("{.c[?(@.n > 3)].t}").unwrap(), "Synced");
        assert_eq!(t("{.c[?(@.n <= 2)].t}").unwrap(), "Ready");
        assert_eq!(t("{.c[?(@.t != 'Ready')].n}").unwrap(), "5");
        assert_eq!(
            Template::parse("{.c[?(@.t =~ '^Syn')].n}").unwrap_err(),
            "unrecognized character in action: U+007E '~'"
        );
        assert_eq!(t("{.c[?(@.t)].n}").unwrap(), "2 5");
        // client-go keeps an item whose exists-path fails, looking at what the failing step
        // returned: `[0]` of a string returns the string.
        assert_eq!(t("{.c[?(@.t[0])].n}").unwrap(), "2 5");
        assert_eq!(t("{.c[?(@.x[0])].n}").unwrap(), "");
        assert_eq!(
            t("{.c[?(@.n == 'x')].t}").unwrap_err(),
            "incompatible types for comparison"
        );
    }
}
