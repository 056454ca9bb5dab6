//! The fast evaluator (`fast.rs`) against the cel-rust path, and against cel-go's semantics.
//!
//! The differential table runs every expression of examples/, the expressions of Flux's
//! documentation and of its tests (fluxcd/pkg `runtime/cel/status_evaluator_test.go`, the
//! fluxcd/website CEL health check cheatsheet), and edge cases of the subset (error absorption by
//! `&&`/`||`, `has()`, int/double/string equality, maps and lists), over objects with and without
//! the fields they read: wherever the fast evaluator answers, its answer must be the cel-rust
//! path's.

use super::*;
use serde_json::json;

const EXPRESSIONS: &[&str] = &[
    // examples/flux/kustomization-gated.yaml
    "status.contractStatus == 'NonCompliant' || status.contractStatus == 'Invalid'",
    "status.contractStatus == 'Compliant' || status.contractStatus == 'Reference' || status.contractStatus == 'Warning'",
    "!has(status.observedGeneration) || status.observedGeneration != metadata.generation || !has(status.phase) || status.phase == 'Pending' || status.phase == 'Running'",
    "status.phase == 'Failed'",
    "status.phase == 'Succeeded' && status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
    // Flux's CEL health check cheatsheet and fluxcd/pkg runtime/cel's own tests
    "status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'True')",
    "status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'False')",
    "status.conditions.filter(e, e.type=='Ready').all(e, e.status=='False')",
    "has(data.foo.bar)",
    "has(status.conditions) && status.conditions.exists(c, c.type == 'Ready')",
    "status.observedGeneration == '2'",
    "true",
    "status.readyReplicas == status.replicas",
    "status.conditions.exists(e, e.type == 'Stalled' && e.status == 'True')",
    "status.conditions.exists_one(c, c.type == 'Ready')",
    "status.conditions.map(c, c.type).exists(t, t == 'Ready')",
    "status.conditions.map(c, c.status == 'True', c.type) == ['Ready']",
    "size(status.conditions) > 0 && status.conditions[0].status == 'True'",
    "status.conditions.size() == 2",
    "'Ready' in status.conditions.map(c, c.type)",
    "'app' in metadata.labels",
    "metadata.labels['app'] == 'web'",
    "metadata.labels.all(k, k.startsWith('a'))",
    "metadata.name.startsWith('web') && metadata.name.endsWith('1') && metadata.name.contains('b-')",
    "status.phase in ['Running', 'Succeeded']",
    // error absorption
    "false && status.missing.x",
    "status.missing.x && false",
    "true || status.missing.x",
    "status.missing.x || true",
    "status.missing.x || false",
    "has(status.phase) ? status.phase == 'Running' : false",
    "!has(status.phase)",
    "has(status.conditions.x)",
    "has(metadata.name.x)",
    "has(status.replicas.x)",
    "status.conditions.all(c, c.x == 1)",
    "status.conditions.exists(c, c.x == 1)",
    "status.conditions.exists(c, c.type == 'Ready' || c.x == 1)",
    // numbers and heterogeneous equality
    "status.replicas == 3",
    "status.replicas == 3.0",
    "status.ratio == 2",
    "status.ratio > 1",
    "status.replicas < 3.5",
    "status.replicas == 'a'",
    "status.phase == 1",
    "status.phase == null",
    "status.none == null",
    "metadata.labels == {'app': 'web'}",
    "status.conditions == []",
    "[1, 2.0, 'a'] == [1.0, 2, 'a']",
    "1 in [1.0, 'a']",
    "status.phase < 'S'",
    "true > false",
    "size('a©c') == 3",
    "status.replicas + 1 == 4",
    "status.phase.lowerAscii() == 'running'",
    "type(status.replicas) == int",
    "status.big == 9007199254740993",
    "status.replicas == 3u",
];

fn objects() -> Vec<Json> {
    let conditions = json!([
        {"type": "Ready", "status": "True"},
        {"type": "Stalled", "status": "False"}
    ]);
    vec![
        json!({}),
        json!({"metadata": {"name": "web-1", "generation": 2}}),
        json!({"metadata": {"name": "web-1", "generation": 2, "labels": {"app": "web"}},
               "status": {"observedGeneration": 2, "phase": "Running", "replicas": 3,
                          "readyReplicas": 3, "ratio": 2.0, "none": null,
                          "conditions": conditions, "contractStatus": "Compliant",
                          "big": 9007199254740992i64}}),
        json!({"metadata": {"name": "a", "generation": 1, "labels": {"apple": "x", "avocado": "y"}},
               "status": {"phase": "Succeeded", "conditions": [{"type": "Ready", "status": "True"}],
                          "contractStatus": "Invalid", "replicas": 2, "readyReplicas": 1}}),
        json!({"status": {"phase": "Failed", "conditions": [{"type": "Ready", "status": "False"}],
                          "contractStatus": "NonCompliant", "observedGeneration": "2"}}),
        json!({"status": {"conditions": [], "phase": 7, "replicas": 3.5}}),
        json!({"status": {"conditions": "none", "phase": null}}),
        json!({"status": "text", "metadata": []}),
        json!({"status": {"conditions": [{"type": "Ready"}, {"x": 1}]}}),
    ]
}

#[test]
fn the_fast_path_agrees_with_the_cel_rust_path() {
    let mut answered = 0;
    let mut problems = Vec::new();
    for src in EXPRESSIONS {
        let e = Expression::parse(src).unwrap_or_else(|err| panic!("{src}: {err}"));
        for obj in objects() {
            let slow = e.eval_bool_slow(&obj, None);
            let Some(program) = &e.fast else { continue };
            if let Some(b) = program.eval_bool(&obj, &e.limits, None) {
                answered += 1;
                if slow != Ok(b) {
                    problems.push(format!("{src} on {obj}: fast {b}, cel-rust {slow:?}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // the fast path answers most of the table (the rest is errors and unsupported functions)
    assert!(answered > 200, "the fast path answered {answered} times");
}

fn fast(src: &str, obj: Json) -> Option<bool> {
    let e = Expression::parse(src).unwrap();
    e.fast
        .as_ref()
        .and_then(|p| p.eval_bool(&obj, &e.limits, None))
}

#[test]
fn the_fast_path_follows_cel_go() {
    // cel-go `interpreter/interpretable.go` evalAnd/evalOr: false (true) absorbs errors
    assert_eq!(fast("false && x.y", json!({})), Some(false));
    assert_eq!(fast("x.y && false", json!({})), Some(false));
    assert_eq!(fast("x.y || true", json!({})), Some(true));
    // ... and an error otherwise: the fast path does not answer
    assert_eq!(fast("x.y || false", json!({})), None);
    // cel-go 0.26 heterogeneous equality (common/types/int.go, double.go, string.go)
    assert_eq!(fast("1 == 1.0", json!({})), Some(true));
    assert_eq!(fast("1 == 'a'", json!({})), Some(false));
    assert_eq!(fast("null == 0", json!({})), Some(false));
    assert_eq!(fast("[1, 'a'] == [1.0, 'a']", json!({})), Some(true));
    // Kubernetes number typing: a whole JSON number is an int, 2.0 a double equal to 2
    assert_eq!(fast("s.n == 2", json!({"s": {"n": 2.0}})), Some(true));
    assert_eq!(fast("s.n < 2.5", json!({"s": {"n": 2}})), Some(true));
    // has(): a map tells, a scalar is false (no errorOnBadPresenceTest), a list errors
    assert_eq!(fast("has(s.n)", json!({"s": {"n": 1}})), Some(true));
    assert_eq!(fast("has(s.m)", json!({"s": {"n": 1}})), Some(false));
    assert_eq!(fast("has(s.n.m)", json!({"s": {"n": 1}})), Some(false));
    assert_eq!(fast("has(s.l.m)", json!({"s": {"l": []}})), None);
    // a missing variable is an error (`no such attribute(s)`), so no answer
    assert_eq!(fast("has(status.x)", json!({})), None);
    // size in code points; string functions
    assert_eq!(fast("size('a©c') == 3", json!({})), Some(true));
    assert_eq!(
        fast(
            "'abc'.startsWith('ab') && 'abc'.endsWith('bc') && 'abc'.contains('b')",
            json!({})
        ),
        Some(true)
    );
    // the macros: all() false absorbs an element's error, exists() true does (cel-go
    // parser/macro.go); with a comprehension the fast path leaves anything uncertain to the
    // cel-rust path (the budget's charges could differ), which gives the same value
    let conds = json!({"s": {"c": [{"t": "A"}, {"u": 1}]}});
    let both = |src: &str| {
        let e = Expression::parse(src).unwrap();
        (fast(src, conds.clone()), e.eval_bool(&conds))
    };
    assert_eq!(both("s.c.all(c, c.t == 'B')"), (None, Ok(false)));
    assert_eq!(both("s.c.exists(c, c.t == 'A')"), (None, Ok(true)));
    assert!(both("s.c.exists_one(c, c.t == 'A')").1.is_err());
    assert_eq!(fast("s.c.all(c, has(c.t))", conds.clone()), Some(false));
    assert_eq!(fast("s.c.exists(c, has(c.u))", conds.clone()), Some(true));
    assert_eq!(
        fast("s.c.filter(c, has(c.t)).size() == 1", conds),
        Some(true)
    );
    assert_eq!(fast("{'a': 1}.all(k, k == 'a')", json!({})), None);
    assert_eq!(
        fast("m.all(k, k == 'a')", json!({"m": {"a": 1}})),
        Some(true)
    );
}

#[test]
fn the_fast_path_keeps_the_budget() {
    let ten = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]";
    let src = format!("{ten}.all(a, {ten}.all(b, {ten}.all(c, true)))");
    let e = Expression::parse(&src).unwrap().with_limits(Limits {
        max_iterations: 100,
        deadline: None,
        ..Limits::default()
    });
    // 10 + 100 + 1000 iterations: over budget, so the cel-rust path answers with its error
    assert_eq!(
        e.fast
            .as_ref()
            .unwrap()
            .eval_bool(&json!({}), &e.limits, None),
        None
    );
    assert!(e
        .eval_bool(&json!({}))
        .unwrap_err()
        .contains("comprehension iterations (100, Limits::max_iterations)"));
}

/// A small deterministic generator of expressions of the subset (and a little beyond it), so the
/// differential check covers combinations no table lists.
struct Gen(u64);

impl Gen {
    fn next(&mut self, n: usize) -> usize {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.next(items.len())]
    }

    fn value(&mut self, depth: usize) -> String {
        const FIELDS: &[&str] = &[
            "status.phase",
            "status.replicas",
            "status.readyReplicas",
            "status.ratio",
            "status.none",
            "status.conditions",
            "status.observedGeneration",
            "metadata.generation",
            "metadata.name",
            "metadata.labels",
            "status.missing",
            "status",
            "spec",
        ];
        const LITERALS: &[&str] = &[
            "1",
            "2",
            "3",
            "3.0",
            "2.5",
            "-1",
            "'Running'",
            "'Ready'",
            "'True'",
            "'web-1'",
            "null",
            "true",
            "false",
            "[]",
            "['Running', 'Succeeded']",
            "[1, 2.0, 'a']",
            "{'app': 'web'}",
            "1u",
        ];
        match self.next(if depth > 2 { 2 } else { 6 }) {
            0 => self.pick(FIELDS).to_string(),
            1 => self.pick(LITERALS).to_string(),
            2 => format!("size({})", self.value(depth + 1)),
            3 => format!(
                "status.conditions.{}(c, {})",
                self.pick(&["map", "filter"]),
                self.cond(depth + 1, true)
            ),
            4 => format!(
                "{}[{}]",
                self.value(depth + 1),
                self.pick(&["0", "1", "'app'", "'type'"])
            ),
            _ => format!(
                "{}.{}",
                self.value(depth + 1),
                self.pick(&["type", "status", "app", "x"])
            ),
        }
    }

    fn cond(&mut self, depth: usize, local: bool) -> String {
        let leaf = depth > 3;
        match self.next(if leaf { 4 } else { 10 }) {
            0 => {
                let op = self.pick(&["==", "!=", "<", "<=", ">", ">="]);
                format!("{} {op} {}", self.value(depth), self.value(depth))
            }
            1 if local => format!(
                "c.{} == {}",
                self.pick(&["type", "status", "x"]),
                self.pick(&["'Ready'", "'True'", "1"])
            ),
            1 | 2 => format!(
                "has({}.{})",
                self.pick(&[
                    "status",
                    "metadata",
                    "metadata.labels",
                    "status.conditions",
                    "status.phase"
                ]),
                self.pick(&["phase", "app", "conditions", "x"])
            ),
            3 => format!("{} in {}", self.value(depth), self.value(depth)),
            4 => format!(
                "{} && {}",
                self.cond(depth + 1, local),
                self.cond(depth + 1, local)
            ),
            5 => format!(
                "{} || {}",
                self.cond(depth + 1, local),
                self.cond(depth + 1, local)
            ),
            6 => format!("!({})", self.cond(depth + 1, local)),
            7 => format!(
                "({}) ? ({}) : ({})",
                self.cond(depth + 1, local),
                self.cond(depth + 1, local),
                self.cond(depth + 1, local)
            ),
            8 => format!(
                "{}.{}(c, {})",
                self.pick(&[
                    "status.conditions",
                    "metadata.labels",
                    "[1, 2]",
                    "status.phase"
                ]),
                self.pick(&["all", "exists", "exists_one"]),
                self.cond(depth + 1, true)
            ),
            _ => format!(
                "{}.{}({})",
                self.pick(&["metadata.name", "status.phase", "'abc'"]),
                self.pick(&["startsWith", "endsWith", "contains"]),
                self.pick(&["'web'", "'1'", "''", "1"])
            ),
        }
    }
}

#[test]
fn generated_expressions_agree_on_both_paths() {
    let mut gen = Gen(0x5eed_cafe_f00d_1234);
    let objects = objects();
    let mut answered = 0;
    let mut problems = Vec::new();
    for _ in 0..4000 {
        let src = gen.cond(0, false);
        let Ok(e) = Expression::parse(&src) else {
            continue;
        };
        let Some(program) = &e.fast else { continue };
        for obj in &objects {
            if let Some(b) = program.eval_bool(obj, &e.limits, None) {
                answered += 1;
                let slow = e.eval_bool_slow(obj, None);
                if slow != Ok(b) {
                    problems.push(format!("{src} on {obj}: fast {b}, cel-rust {slow:?}"));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{}",
        problems[..problems.len().min(20)].join("\n")
    );
    assert!(answered > 5000, "the fast path answered {answered} times");
}
