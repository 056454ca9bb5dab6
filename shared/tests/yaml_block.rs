//! The block YAML reader (`k8s::yaml::block`) against the YAML parser it stands in for: for
//! every document it accepts it must give exactly the parser's value (compared as JSON text, so
//! that key order and the sign of a zero count), and it must never be a way around the parser's
//! bounds. Expected values come from the parser (`parse_chunk_by_parser`) and, for the typing
//! table, from go-yaml v2's resolution (`gopkg.in/yaml.v2` `resolve.go`) and YAML 1.2 §5.7.

use pacto_gates::k8s::yaml::{block, parse_chunk, parse_chunk_by_parser, Chunk, Splitter};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn chunk(text: &str) -> Chunk {
    Chunk {
        offset: 0,
        text: text.to_string(),
        content: true,
    }
}

/// The parser's value of a document (None: empty; Err: its error).
fn by_parser(text: &str) -> Result<Option<Value>, String> {
    parse_chunk_by_parser(&chunk(text))
}

/// Reads `text` both ways; panics when the block reader accepts it with another value than the
/// parser's. Returns the block reader's value.
fn agree(text: &str) -> Option<Value> {
    let fast = block::parse(text)?;
    let slow = by_parser(text);
    let same = matches!(&slow, Ok(Some(v)) if json_text(v) == json_text(&fast));
    assert!(
        same,
        "block reader and parser differ on {text:?}:\n block: {fast}\nparser: {slow:?}"
    );
    Some(fast)
}

/// A value as JSON text: key order and the sign of a zero included.
fn json_text(v: &Value) -> String {
    serde_json::to_string(v).expect("a Value prints")
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            if !matches!(
                name.as_str(),
                "target" | ".git" | "artifacts" | "node_modules"
            ) {
                yaml_files(&p, out);
            }
        } else if name.ends_with(".yaml") || name.ends_with(".yml") {
            // libFuzzer's own corpus files are not the repository's: only its committed seed-*
            // inputs are.
            let in_corpus = p.components().any(|c| c.as_os_str() == "corpus");
            if !in_corpus || name.starts_with("seed-") {
                out.push(p);
            }
        }
    }
}

/// Every document of every YAML file of the repository (and of the directories named in
/// `PACTO_YAML_CORPUS`, `:`-separated, when set) read both ways.
#[test]
fn repository_documents_read_as_the_parser_reads_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    yaml_files(&root, &mut files);
    let repo_files = files.len();
    if let Ok(extra) = std::env::var("PACTO_YAML_CORPUS") {
        for dir in extra.split(':').filter(|d| !d.is_empty()) {
            yaml_files(Path::new(dir), &mut files);
        }
    }
    let (mut documents, mut accepted) = (0, 0);
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let mut split = Splitter::new(text.as_bytes(), u64::MAX);
        while let Ok(Some(c)) = split.next_chunk() {
            if !c.content {
                continue;
            }
            documents += 1;
            // The whole of parse_chunk (the JSON reader included) reads as the parser does.
            let show = |r: Result<Option<Value>, String>| r.map(|v| v.map(|v| json_text(&v)));
            assert_eq!(
                show(parse_chunk(&c)),
                show(parse_chunk_by_parser(&c)),
                "{}: line {}",
                file.display(),
                c.offset + 1
            );
            if agree(&c.text).is_some() {
                accepted += 1;
            } else if std::env::var("DBG").is_ok() {
                eprintln!("DECLINED {}:{}", file.display(), c.offset);
            }
        }
    }
    println!(
        "{} files ({repo_files} in the repository), {documents} documents, {accepted} read by the block reader",
        files.len()
    );
    assert!(repo_files > 100, "found {repo_files} YAML files");
    // Most documents of the repository are plain Kubernetes block YAML.
    assert!(
        accepted * 10 >= documents * 7,
        "{accepted} of {documents} accepted"
    );
}

/// Scalars and what go-yaml v2 reads them as (`resolve.go`; `decode.go` keeps timestamps as
/// text in `interface{}`); `declined` marks those the block reader leaves to the parser.
#[test]
fn scalar_typing_table() {
    let accepted: &[(&str, Value)] = &[
        ("plain words", json!("plain words")),
        ("yes", json!(true)),
        ("Yes", json!(true)),
        ("YES", json!(true)),
        ("y", json!(true)),
        ("Y", json!(true)),
        ("No", json!(false)),
        ("n", json!(false)),
        ("on", json!(true)),
        ("OFF", json!(false)),
        ("true", json!(true)),
        ("True", json!(true)),
        ("FALSE", json!(false)),
        ("~", Value::Null),
        ("null", Value::Null),
        ("Null", Value::Null),
        ("NULL", Value::Null),
        ("0", json!(0)),
        ("-0", json!(0)),
        ("+1", json!(1)),
        ("42", json!(42)),
        ("-17", json!(-17)),
        ("9223372036854775807", json!(i64::MAX)),
        ("-9223372036854775807", json!(-i64::MAX)),
        ("0644", json!(420)),
        ("00", json!(0)),
        ("1e3", json!(1000.0)),
        ("1.5", json!(1.5)),
        ("-2.5e-3", json!(-0.0025)),
        ("+1.5", json!(1.5)),
        ("0.5", json!(0.5)),
        ("2026-11-29T10:00:00Z", json!("2026-11-29T10:00:00Z")),
        ("2026-11-29", json!("2026-11-29")),
        ("1.0.0", json!("1.0.0")),
        ("10.0.0.1", json!("10.0.0.1")),
        ("128Mi", json!("128Mi")),
        ("100m", json!("100m")),
        ("ghcr.io/acme/c:1.0.0", json!("ghcr.io/acme/c:1.0.0")),
        ("http://x.example/a#b", json!("http://x.example/a#b")),
        ("--verbose", json!("--verbose")),
        ("-foo", json!("-foo")),
        ("12ab", json!("12ab")),
        ("0.0.0.0", json!("0.0.0.0")),
        ("0a1b-2c", json!("0a1b-2c")),
        ("007x", json!("007x")),
        ("005e82a17", json!("005e82a17")),
        ("0b12", json!("0b12")),
        ("0xZ", json!("0xZ")),
        ("6c767bd46c", json!("6c767bd46c")),
        ("5e1a", json!("5e1a")),
        ("6e5", json!(600000.0)),
        ("1e-2", json!(0.01)),
        ("v1", json!("v1")),
        ("nan", json!("nan")),
        ("inf", json!("inf")),
        ("'a: b'", json!("a: b")),
        ("\"True\"", json!("True")),
        ("\"0644\"", json!("0644")),
        ("\"\"", json!("")),
        ("''", json!("")),
        ("'it''s'", json!("it's")),
        ("'a # b'", json!("a # b")),
        ("\"\\u00e9\\n\"", json!("é\n")),
        ("\"\\x41\\t\\\\\\\"\\/\"", json!("A\t\\\"/")),
        (
            "\"\\0\\a\\b\\v\\f\\r\\e\\ \"",
            json!("\0\x07\x08\x0b\x0c\r\x1b "),
        ),
        ("\"\\N\\_\\L\\P\"", json!("\u{85}\u{a0}\u{2028}\u{2029}")),
        ("\"\\U0001F600\"", json!("😀")),
        ("é", json!("é")),
        (".", json!(".")),
        ("./test", json!("./test")),
        ("..", json!("..")),
        ("{}", json!({})),
        ("[]", json!([])),
        ("{ }", json!({})),
        (
            "{a: 1, b: [x, 'y', \"z\"], c: {}}",
            json!({"a": 1, "b": ["x", "y", "z"], "c": {}}),
        ),
        (
            "[yes, 0644, 1.5, ~, --x, http://a/b]",
            json!([true, 420, 1.5, null, "--x", "http://a/b"]),
        ),
        (
            "{oci: ghcr.io/acme/c:1.0.0} # c",
            json!({"oci": "ghcr.io/acme/c:1.0.0"}),
        ),
        ("value # comment", json!("value")),
        ("'quoted' # comment", json!("quoted")),
    ];
    for (scalar, expected) in accepted {
        for doc in [format!("k: {scalar}\n"), format!("- {scalar}\n")] {
            let got = agree(&doc).unwrap_or_else(|| panic!("declined {doc:?}"));
            let got = got
                .as_object()
                .map_or_else(|| got[0].clone(), |m| m["k"].clone());
            assert_eq!(&got, expected, "{doc:?}");
        }
    }
    // Left to the parser: spellings whose reading differs between go-yaml v2 and the parser
    // (`yEs`, `nULL`), or that this reader does not model. Whatever the parser gives, the block
    // reader gives nothing.
    let declined = [
        "yEs",
        "nULL",
        "tRUE",
        "0x1F",
        "0X1F",
        "0o17",
        "0b101",
        "1_000",
        ".5",
        "-.5",
        ".inf",
        "-.Inf",
        ".nan",
        "1.",
        "1e999",
        "-0644",
        "+0644",
        "08",
        "9223372036854775808",
        "-9223372036854775808",
        "18446744073709551616",
        "0_7",
        "0x1_F",
        "0b1_0",
        "0o1_7",
        "+",
        "&a x",
        "*a",
        "!!str 1",
        "!x y",
        "{a: 1",
        "[1,]",
        "[a, , b]",
        "{a}",
        "{a: }",
        "{a: 1, a: 2}",
        "[a: b]",
        "{\"a\":1}",
        "[-]",
        "{a: -}",
        ".1e3",
        ".Inf",
        ".NaN",
        ".info",
        "{? a: 1}",
        "[&x 1]",
        "[a # c]",
        "{a: b: c}",
        "[- a]",
        "'open",
        "\"open",
        "\"\\q\"",
        "\"\\ud800\"",
        "@x",
        "`x",
        "%x",
        "?x",
        ":x",
        ",x",
        "|2",
        "a: b: c",
    ];
    for scalar in declined {
        for doc in [format!("k: {scalar}\n"), format!("- {scalar}\n")] {
            assert_eq!(block::parse(&doc), None, "accepted {doc:?}");
        }
    }
    // In value position, a sequence entry or a key is no scalar.
    for doc in ["k: - x\n", "k: x:\n"] {
        assert_eq!(block::parse(doc), None, "accepted {doc:?}");
    }
    // Compared only: whichever way the block reader goes, it agrees with the parser.
    for scalar in [
        "[a:1]",
        "{a: b:c}",
        "{url: http://x:80/y}",
        "a\u{a0}",
        "\u{a0}a",
        "a\u{a0}b",
        "\u{3000}",
        "[a#b]",
        "{a#b: c}",
        "-,",
        "-[",
        "~x",
        "x~",
        "<<",
        "=",
        "{a: 1}x",
        "'a'x",
        "\"\\x85\"",
        "\"\\u0000\"",
        "0e5",
        "-0.0",
        "1E5",
        "1e+5",
        "+0",
        "-00",
    ] {
        for doc in [
            format!("k: {scalar}\n"),
            format!("- {scalar}\n"),
            format!("{scalar}: v\n"),
        ] {
            agree(&doc);
        }
    }
    // Divergences of the parser from go-yaml v2 that the block reader must not copy.
    assert_eq!(by_parser("k: yEs\n"), Ok(Some(json!({"k": true}))));
    // Keys: quoted keys are text; plain keys only when no reader may type them.
    for (doc, expected) in [
        ("\"yes\": 1\n", json!({"yes": 1})),
        ("'1': a\n", json!({"1": "a"})),
        (".dockerconfigjson: x\n", json!({".dockerconfigjson": "x"})),
        (
            "app.kubernetes.io/name: x\n",
            json!({"app.kubernetes.io/name": "x"}),
        ),
        ("a b: c\n", json!({"a b": "c"})),
        ("\"\": c\n", json!({"": "c"})),
        (
            "6f699622-20ba-4be2: minikube\n",
            json!({"6f699622-20ba-4be2": "minikube"}),
        ),
        (".: {}\n", json!({".": {}})),
        (
            "f:metadata:\n  f:name: {}\n",
            json!({"f:metadata": {"f:name": {}}}),
        ),
        ("-x: 1\n", json!({"-x": 1})),
    ] {
        assert_eq!(agree(doc), Some(expected), "{doc:?}");
    }
    for doc in [
        "yes: 1\n",
        "~: 1\n",
        "null: 1\n",
        "1: a\n",
        "0x1: a\n",
        "1.5: a\n",
        "a:: b\n",
        "<<: {}\n",
        ".inf: 1\n",
        "a[0]: 1\n",
        "a : 1\n",
        "? a\n: 1\n",
        "a: 1\na: 2\n",
    ] {
        assert_eq!(block::parse(doc), None, "accepted {doc:?}");
    }
}

/// Layouts of block collections and block scalars, each read both ways; the listed ones must
/// be accepted.
#[test]
fn block_layouts() {
    let accepted = [
        "---\na: 1\n",
        "--- # c\na: 1\n",
        "# lead\n\na:\n  b: 1\n  c:\n  - x\n  - y\n  d: 2\n",
        "a:\n- x\n-\n  k: v\n- - 1\n  - 2\n- k: v\n  l:\n  - z\n  m: n\n",
        "-   a: 1\n    b: 2\n- c\n",
        "- \n- ''\n-\n- # c\n",
        "a:\n  # c\n  b: 1 # d\n# e\nc: 2\n",
        "  a: 1\n  b: 2\n",
        "a: |\n  x\n   y\n\n  z\nb: 1\n",
        "a: |-\n  x\n\n\nb: 1\n",
        "a: |+\n  x\n\n\nb: 1\n",
        "a: |+\n  x\n",
        "a: >\n  x\n  y\n\n  z\nb: >-\n  w\n",
        "a: >+\n  x\n  y\n\n",
        "a: |\n\n  x\n",
        "a: | # c\n    # not a comment\n    x\nb: 1\n",
        "- |\n  x\n- >\n  y\n  z\n",
        "- a: |\n    x\n  b: 1\n",
        "a: |\n  x\n# trailing comment\nb: 1\n",
        "a: |\n  x\n \nb: 1\n",
        "a: >\n  x \n  y\n",
        "a: {b: 1}\nl:\n- {c: [d, {e: f}]}\n",
    ];
    for doc in accepted {
        agree(doc).unwrap_or_else(|| panic!("declined {doc:?}"));
    }
    let declined = [
        "",
        "# only\n",
        "plain\n",
        "%YAML 1.1\n---\na: 1\n",
        "a: 1\n---\nb: 2\n",
        "a:\n\tb: 1\n",
        "a: 1\r\n",
        "\u{feff}a: 1\n",
        "a: b\n  c\n",
        "a:\n  b\n",
        "a: 1\n b: 2\n",
        "a:\n  b: 1\n c: 2\n",
        "- a\n  - b\n",
        "- a: 1\n   b: 2\n",
        "a: &x 1\nb: *x\n",
        "a: !t\n  b: 1\n",
        "a: |2\n   x\n",
        "a: |\nb: 1\n",
        "a: |\n  x",
        "a: |\n    \n  x\n",
        "a: |\n  x\n    \n",
        "a: >\n  x\n    y\n",
        "a: 'x\n  y'\n",
        "a: \"x\n  y\"\n",
        "a: 1\n- b\n",
        "a: 1\n...\n",
        // Found by the yaml_block fuzz target: a document end marker on the first line.
        "... -2:\n",
        "...\na: 1\n",
    ];
    for doc in declined {
        assert_eq!(block::parse(doc), None, "accepted {doc:?}");
    }
}

/// Found by the yaml_block fuzz target: the parser fails on a long run of comments ("too many
/// buffered comments while looking ahead", its bound of 32); the block reader leaves such runs
/// to it and reads shorter ones.
#[test]
fn long_comment_runs_are_the_parsers() {
    let doc = |n: usize| format!("O:\n{}", "#\n".repeat(n));
    // The parser holds up to MAX_BUFFERED_COMMENTS comment lines while it looks ahead (its own
    // default of 32 refused a commented-out block, which go-yaml reads); past that it refuses
    // with the bound named.
    assert_eq!(by_parser(&doc(33)), Ok(Some(json!({"O": null}))));
    let many = pacto_gates::k8s::yaml::MAX_BUFFERED_COMMENTS + 1;
    let err = by_parser(&format!("O:\n{}  k: v\n", "  #\n".repeat(many))).unwrap_err();
    assert!(
        err.ends_with(
            "more than 100000 comment lines in a row inside a mapping or list (a fixed bound)"
        ),
        "{err}"
    );
    assert_eq!(block::parse(&doc(33)), None);
    assert_eq!(block::parse(&doc(16)), None);
    assert_eq!(agree(&doc(15)), Some(json!({"O": null})));
    let spaced = format!("a: 1 # c\n{}b: 2\n", "# c\n\n".repeat(15));
    assert_eq!(agree(&spaced), Some(json!({"a": 1, "b": 2})));
}

/// The parser refuses a document whose comments exceed 64 MiB (serde-saphyr's
/// `max_total_comment_bytes`); the block reader leaves documents with more than half of that to
/// it, so that the user sees the parser's refusal, not a value. Found with a 70 MB trailing
/// comment, which the block reader read.
#[test]
fn comments_beyond_the_parsers_bound_are_the_parsers() {
    let with_comment = |bytes: usize| {
        format!(
            "a: 1 # {}
b: 2
",
            "x".repeat(bytes)
        )
    };
    let huge = with_comment(65 << 20);
    assert_eq!(block::parse(&huge), None);
    let err = parse_chunk(&chunk(&huge)).unwrap_err();
    assert_eq!(err, "refused: its comments exceed 64 MiB (a fixed bound)");
    // Comment text is counted wherever it is: own lines, after values, in block scalars.
    assert_eq!(block::parse(&with_comment(32 << 20)), None);
    let lines = format!(
        "a: 1\n{}",
        format!("# {}\nk: v # c\n", "x".repeat(1 << 20)).repeat(33)
    );
    assert_eq!(block::parse(&lines), None);
    assert_eq!(agree(&with_comment(1 << 20)), Some(json!({"a": 1, "b": 2})));
}

/// Blank lines cost the block reader nothing per line (it once listed every line, 24 bytes
/// for each blank line of one byte); their reading is the parser's.
#[test]
fn blank_lines_read_as_the_parser_reads_them() {
    let blank = "\n".repeat(100_000);
    let doc = format!("a: 1\n{blank}b: |+\n  x\n{blank}  y\n{blank}c:\n{blank}- z\n");
    let want = format!("x\n{blank}y\n{blank}");
    assert_eq!(agree(&doc), Some(json!({"a": 1, "b": want, "c": ["z"]})));
}

/// Characters YAML does not count as white space (no-break, ideographic and zero-width spaces,
/// private-use and unassigned code points, the last plane's) at the edges of keys, plain and
/// block scalars and flow entries: whichever way the block reader goes, it agrees with the
/// parser, and these are content to both.
#[test]
fn unicode_spaces_read_as_the_parser_reads_them() {
    let chars = [
        '\u{a0}',
        '\u{1680}',
        '\u{2003}',
        '\u{202f}',
        '\u{3000}',
        '\u{180e}',
        '\u{200b}',
        '\u{2060}',
        '\u{ad}',
        '\u{e000}',
        '\u{fffd}',
        '\u{378}',
        '\u{10ffff}',
    ];
    let mut accepted = 0;
    for c in chars {
        let docs = [
            format!("k: x{c}\n"),
            format!("k: {c}x\n"),
            format!("{c}k: v\n"),
            format!("k{c}: v\n"),
            format!("- {c}\n"),
            format!("k: x{c}# c\n"),
            format!("k: |\n  x{c}\n"),
            format!("k: |\n  {c}\n  x\n"),
            format!("k: >\n  x\n  {c}y\n"),
            format!("k: [x{c}, {c}y]\n"),
            format!("k: {{x{c}: y}}\n"),
            format!("k: yes{c}\n"),
            format!("k: 1{c}\n"),
        ];
        for doc in docs {
            accepted += usize::from(agree(&doc).is_some());
        }
    }
    assert!(accepted >= 13 * 12, "{accepted} accepted");
    // A plain scalar keeps them, where the parser trims only spaces and tabs.
    assert_eq!(agree("k: x\u{3000}\n"), Some(json!({"k": "x\u{3000}"})));
    assert_eq!(agree("k: 1\u{a0}\n"), Some(json!({"k": "1\u{a0}"})));
}

/// A small deterministic generator (xorshift) of nested mappings, sequences and scalars written
/// in block style; every document is read both ways and nearly all are accepted.
#[test]
fn generated_documents_read_as_the_parser_reads_them() {
    let mut g = Gen(0x9E37_79B9_7F4A_7C15);
    let (mut accepted, total) = (0, 3000);
    for _ in 0..total {
        let mut text = String::new();
        if g.below(4) == 0 {
            text.push_str("---\n");
        }
        g.mapping(&mut text, 0, 0);
        if agree(&text).is_some() {
            accepted += 1;
        } else if std::env::var("DBG").is_ok() {
            eprintln!("DECLINED<<{text}>>");
        }
    }
    assert!(accepted * 10 >= total * 9, "{accepted} of {total} accepted");
}

struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }

    fn key(&mut self) -> String {
        let k = self.pick(&[
            "name",
            "kind",
            "apiVersion",
            "status",
            "spec",
            "a",
            "b_c",
            "app.kubernetes.io/name",
            "\"quoted key",
            "'single",
            "x-y",
            "é",
            ".hidden",
        ]);
        let n = self.below(1000);
        match k.as_bytes()[0] {
            q @ (b'"' | b'\'') => format!("{k}{n}{}", q as char),
            _ => format!("{k}{n}"),
        }
    }

    fn scalar(&mut self) -> String {
        // One scalar in a hundred is one the block reader declines.
        if self.below(100) == 0 {
            let odd = self.pick(&["yEs", "0x1F", ".5", "&a 1", "!!str x", "'multi\n line'"]);
            return odd.to_string();
        }
        let s = self.pick(&[
            "word",
            "two words",
            "yes",
            "No",
            "on",
            "true",
            "False",
            "~",
            "null",
            "0",
            "-0",
            "42",
            "-7",
            "+3",
            "0644",
            "1.5",
            "-2e3",
            "1e3",
            "2026-11-29T10:00:00Z",
            "1.0.0",
            "128Mi",
            "100m",
            "\"True\"",
            "'it''s'",
            "\"\\u00e9\\n\"",
            "\"a: b\"",
            "{}",
            "[]",
            "http://a/b",
            "x#y",
            "v # comment",
            "ünïcode",
            "a,b",
            "x[y]",
            "2026-11-29",
            "{a: 1, b: [x, {c: d}]}",
            "[1, 'two', \"3\"]",
        ]);
        s.to_string()
    }

    fn block_scalar(&mut self, out: &mut String, indent: usize) {
        let header = self.pick(&["|", "|-", "|+", ">", ">-", ">+", "| # c"]);
        let folded = header.starts_with('>');
        out.push_str(header);
        out.push('\n');
        let pad = " ".repeat(indent + 1 + self.below(3) as usize);
        out.push_str(&format!("{pad}first line\n"));
        for _ in 0..self.below(4) {
            match self.below(6) {
                0 => out.push('\n'),
                1 => out.push_str(&format!("{pad}# text\n")),
                // A folded scalar's more indented lines are left to the parser.
                2 if !folded => out.push_str(&format!("{pad}  more indented\n")),
                _ => out.push_str(&format!("{pad}line {}\n", self.below(9))),
            }
        }
        if self.below(3) == 0 {
            out.push('\n');
        }
    }

    fn value(&mut self, out: &mut String, indent: usize, depth: usize, in_map: bool) {
        let choice = if depth > 4 { 0 } else { self.below(10) };
        match choice {
            0..=4 => {
                out.push(' ');
                out.push_str(&self.scalar());
                out.push('\n');
            }
            5 => {
                out.push(' ');
                self.block_scalar(out, indent);
            }
            6 | 7 => {
                out.push('\n');
                self.mapping(out, indent + 2, depth + 1);
            }
            _ => {
                out.push('\n');
                // A sequence under a key: at the key's own indentation, or further in.
                let at = if in_map && self.below(2) == 0 {
                    indent
                } else {
                    indent + 2
                };
                self.sequence(out, at, depth + 1);
            }
        }
    }

    fn mapping(&mut self, out: &mut String, indent: usize, depth: usize) {
        for _ in 0..1 + self.below(4) {
            if self.below(8) == 0 {
                out.push_str(&format!("{}# note\n", " ".repeat(indent)));
            }
            if self.below(10) == 0 {
                out.push('\n');
            }
            out.push_str(&" ".repeat(indent));
            out.push_str(&self.key());
            out.push(':');
            self.value(out, indent, depth, true);
        }
    }

    fn sequence(&mut self, out: &mut String, indent: usize, depth: usize) {
        for _ in 0..1 + self.below(4) {
            out.push_str(&" ".repeat(indent));
            out.push('-');
            match if depth > 4 { 0 } else { self.below(5) } {
                0 | 1 => {
                    out.push(' ');
                    out.push_str(&self.scalar());
                    out.push('\n');
                }
                2 => {
                    // A compact mapping: its first key on the entry's line.
                    out.push(' ');
                    let mut inner = String::new();
                    self.mapping(&mut inner, indent + 2, depth + 1);
                    out.push_str(inner.trim_start_matches(' '));
                }
                3 => {
                    out.push(' ');
                    let mut inner = String::new();
                    self.sequence(&mut inner, indent + 2, depth + 1);
                    out.push_str(inner.trim_start_matches(' '));
                }
                _ => self.value(out, indent, depth, false),
            }
        }
    }
}

/// The block reader is no way around the parser's bounds: a document nested deeper than the
/// parser's depth bound is declined and gets the parser's depth error; one within the block
/// reader's own bound is read.
#[test]
fn deep_documents_reach_the_parsers_depth_bound() {
    with_stack(deep_documents)
}

fn deep_documents() {
    let nested = |levels: usize| {
        let mut text = String::new();
        for i in 0..levels {
            text.push_str(&" ".repeat(i));
            text.push_str("a:\n");
        }
        text.push_str(&" ".repeat(levels));
        text.push_str("b: 1\n");
        text
    };
    let deep = nested(pacto_gates::object::MAX_DEPTH + 10);
    assert_eq!(block::parse(&deep), None);
    let err = parse_chunk(&chunk(&deep)).unwrap_err();
    assert!(err.contains("nests deeper than 512 levels"), "{err}");
    let shallow = nested(block::MAX_NESTING - 1);
    assert!(agree(&shallow).is_some());
    assert_eq!(block::parse(&nested(block::MAX_NESTING)), None);
    // A sequence nests as deep.
    let mut seq = String::new();
    for i in 0..pacto_gates::object::MAX_DEPTH + 10 {
        seq.push_str(&" ".repeat(2 * i));
        seq.push_str("-\n");
    }
    assert_eq!(block::parse(&seq), None);
    let err = parse_chunk(&chunk(&seq)).unwrap_err();
    assert!(err.contains("nests deeper than 512 levels"), "{err}");
}

/// Runs `f` on a thread with a 64 MiB stack: the parser recurses once per level of a
/// document, and an unoptimised test build needs more than a test thread's 2 MiB for a
/// hundred levels.
fn with_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no panic")
}
