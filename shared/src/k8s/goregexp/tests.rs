//! Go's answers against ours. `testdata/go.json` is what Go 1.26's `regexp` answered for the
//! patterns of `testdata/cases.txt` and of Go's RE2 search table (written by
//! `testdata/oracle`, a Go program): accepted or refused with which text, the parse tree, and
//! `MatchString` on subjects. The tables below are transcribed from Go's own tests
//! (`regexp/all_test.go`, `regexp/find_test.go`, `regexp/syntax/parse_test.go`).

use serde_json::Value;

use super::parse::parse;
use super::tree::{Flags, Op, Tree, DOT_NL, FOLD_CASE, NON_GREEDY, PERL, PERL_X, WAS_DOLLAR};
use super::tree::{CLASS_NL, UNICODE_GROUPS};
use super::{compile, unicode, Error, ErrorCode};

fn fixture() -> Value {
    serde_json::from_str(include_str!("testdata/go.json")).expect("go.json is JSON")
}

/// The tree in the oracle's notation (testdata/oracle/main.go `dump`).
fn dump(tree: &Tree) -> String {
    fn walk(tree: &Tree, id: usize, out: &mut String) {
        let n = &tree.nodes[id];
        let name = match n.op {
            Op::NoMatch => "no",
            Op::EmptyMatch => "emp",
            Op::Literal => "lit",
            Op::CharClass => "cc",
            Op::AnyCharNotNl => "dnl",
            Op::AnyChar => "dot",
            Op::BeginLine => "bol",
            Op::EndLine => "eol",
            Op::BeginText => "bot",
            Op::EndText => "eot",
            Op::WordBoundary => "wb",
            Op::NoWordBoundary => "nwb",
            Op::Capture => "cap",
            Op::Star => "star",
            Op::Plus => "plus",
            Op::Quest => "que",
            Op::Repeat => "rep",
            Op::Concat => "cat",
            Op::Alternate => "alt",
            Op::LeftParen | Op::VerticalBar => "pseudo",
        };
        if matches!(n.op, Op::Star | Op::Plus | Op::Quest | Op::Repeat) && n.flags & NON_GREEDY != 0
        {
            out.push('n');
        }
        out.push_str(name);
        if n.op == Op::Literal && n.flags & FOLD_CASE != 0 {
            out.push_str("fold");
        }
        out.push('{');
        match n.op {
            Op::EndText if n.flags & WAS_DOLLAR != 0 => out.push('$'),
            Op::Literal => {
                let runes: Vec<String> = n.runes.iter().map(|r| format!("{r:x}")).collect();
                out.push_str(&runes.join(" "));
            }
            Op::CharClass => {
                let pairs: Vec<String> = n
                    .runes
                    .chunks_exact(2)
                    .map(|p| format!("{:x}-{:x}", p[0], p[1]))
                    .collect();
                out.push_str(&pairs.join(" "));
            }
            Op::Repeat => out.push_str(&format!("{},{} ", n.min, n.max)),
            Op::Capture => out.push_str(&format!("{}:{} ", n.cap, n.name)),
            _ => {}
        }
        for &s in &n.sub {
            walk(tree, s, out);
        }
        out.push('}');
    }
    let mut out = String::new();
    walk(tree, tree.root, &mut out);
    out
}

/// 64-bit FNV-1a in hex, as the oracle hashes long dumps.
fn fnv(s: &str) -> String {
    let mut h: u64 = 14695981039346656037;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(1099511628211);
    }
    format!("{h:016x}")
}

fn probes(fixture: &Value) -> Vec<String> {
    fixture["probe_subjects"]
        .as_array()
        .expect("probe_subjects")
        .iter()
        .map(|s| s.as_str().expect("a probe is a string").to_string())
        .collect()
}

fn bits(re: &super::Regexp, probes: &[String]) -> String {
    probes
        .iter()
        .map(|s| if re.is_match(s) { '1' } else { '0' })
        .collect()
}

/// Every pattern of the fixture: refused with Go's text, or accepted with Go's parse tree and
/// Go's answer on every subject.
#[test]
fn agrees_with_go_on_every_pattern() {
    let fx = fixture();
    assert_eq!(
        fx["go"].as_str().map(|v| v.starts_with("go1.26")),
        Some(true)
    );
    let probes = probes(&fx);
    let cases = fx["cases"].as_array().expect("cases");
    assert!(
        cases.len() > 1000,
        "the fixture holds {} cases",
        cases.len()
    );
    let (mut refused, mut matched) = (0, 0);
    let mut wrong = Vec::new();
    for case in cases {
        let pattern = case["pattern"].as_str().expect("pattern");
        let got = compile(pattern);
        match (case["error"].as_str(), got) {
            (Some(want), Err(e)) => {
                refused += 1;
                if e.to_string() != want {
                    wrong.push(format!("{pattern:?}: error {e} want {want}"));
                }
            }
            (Some(want), Ok(_)) => wrong.push(format!("{pattern:?}: accepted, Go: {want}")),
            (None, Err(e)) => wrong.push(format!("{pattern:?}: refused ({e}), Go accepts it")),
            (None, Ok(re)) => {
                let d = dump(&parse(pattern, PERL).expect("compiled, so it parses"));
                if let Some(want) = case["dump"].as_str() {
                    if d != want {
                        wrong.push(format!("{pattern:?}: tree {d} want {want}"));
                    }
                } else if let Some(want) = case["dump_fnv"].as_str() {
                    if fnv(&d) != want {
                        wrong.push(format!(
                            "{pattern:?}: tree hash {} want {want} ({d:.200})",
                            fnv(&d)
                        ));
                    }
                }
                for m in case["matches"].as_array().into_iter().flatten() {
                    let (subject, want) = (m[0].as_str().unwrap(), m[1].as_bool().unwrap());
                    matched += 1;
                    if re.is_match(subject) != want {
                        wrong.push(format!("{pattern:?} on {subject:?}: {} want {want}", !want));
                    }
                }
                let want = case["probes"].as_str().unwrap_or("");
                if bits(&re, &probes) != want {
                    wrong.push(format!(
                        "{pattern:?}: probes {} want {want}",
                        bits(&re, &probes)
                    ));
                }
            }
        }
    }
    assert!(
        refused > 100 && matched > 1000,
        "{refused} refused, {matched} subjects"
    );
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

/// The hostile patterns end, refused with Go's code where Go refuses them; where Go accepts
/// them, they are either evaluated with Go's answers or refused as too large for this tool.
#[test]
fn hostile_patterns_end_as_go_says() {
    let fx = fixture();
    let probes = probes(&fx);
    let mut wrong = Vec::new();
    let hostile = fx["hostile"].as_array().expect("hostile");
    assert!(hostile.len() >= 20);
    for h in hostile {
        let name = h["name"].as_str().unwrap();
        let pattern: String = h["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                p[0].as_str()
                    .unwrap()
                    .repeat(p[1].as_u64().unwrap() as usize)
            })
            .collect();
        match (h["code"].as_str(), compile(&pattern)) {
            (Some(code), Err(Error::Syntax { code: got, expr })) => {
                if got.as_str() != code || expr.len() as u64 != h["expr_len"].as_u64().unwrap() {
                    wrong.push(format!("{name}: {got} ({} bytes) want {code}", expr.len()));
                }
                if let Some(want) = h["expr"].as_str() {
                    if expr != want {
                        wrong.push(format!("{name}: names {expr:?} want {want:?}"));
                    }
                }
            }
            (Some(code), other) => wrong.push(format!("{name}: {other:?} want {code}")),
            (None, Ok(re)) => {
                let want = h["probes"].as_str().unwrap();
                if bits(&re, &probes) != want {
                    wrong.push(format!("{name}: probes {} want {want}", bits(&re, &probes)));
                }
            }
            (None, Err(Error::TooLarge(_))) => {}
            (None, Err(e)) => wrong.push(format!("{name}: {e}, Go accepts it")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Some hostile patterns Go accepts are refused here, with a reason naming the bound.
#[test]
fn too_large_names_the_bound() {
    let literal = "a".repeat(1 << 20);
    let e = compile(&literal).unwrap_err();
    assert!(matches!(e, Error::TooLarge(_)), "{e}");
    assert!(e.to_string().contains("at most 262144"), "{e}");
    let repeats = "a{1000}".repeat(3000);
    let e = compile(&repeats).unwrap_err();
    assert!(e.to_string().contains("automaton is larger"), "{e}");
    // Go folds every code point of a range; so many large ranges are refused before they are
    // all folded.
    let ranges: String = (0x42..0x42 + 200)
        .map(|lo| format!("\\x{{{lo:x}}}-\\x{{1e943}}"))
        .collect();
    let folded = format!("(?i)[{ranges}]");
    let e = compile(&folded).unwrap_err();
    assert!(e.to_string().contains("case-folds more than"), "{e}");
}

/// regexp/all_test.go badRe: each refused with Go's text (Go's test checks the text is
/// contained in the error).
#[test]
fn bad_re_from_go() {
    let bad = [
        ("*", "missing argument to repetition operator: `*`"),
        ("+", "missing argument to repetition operator: `+`"),
        ("?", "missing argument to repetition operator: `?`"),
        ("(abc", "missing closing ): `(abc`"),
        ("abc)", "unexpected ): `abc)`"),
        ("x[a-z", "missing closing ]: `[a-z`"),
        ("[z-a]", "invalid character class range: `z-a`"),
        ("abc\\", "trailing backslash at end of expression"),
        ("a**", "invalid nested repetition operator: `**`"),
        ("a*+", "invalid nested repetition operator: `*+`"),
        ("\\x", "invalid escape sequence: `\\x`"),
    ];
    for (re, want) in bad {
        let e = compile(re).expect_err(re).to_string();
        assert!(e.starts_with("error parsing regexp: "), "{e}");
        assert!(e.contains(want), "{re}: {e}");
    }
    let e = compile(&"\\pL".repeat(27000)).unwrap_err();
    assert!(e.to_string().contains("expression too large"));
    assert!(matches!(
        e,
        Error::Syntax {
            code: ErrorCode::Large,
            ..
        }
    ));
}

/// Go's test notation (regexp/syntax/parse_test.go `dump`), for transcribing its tables.
fn go_test_dump(tree: &Tree) -> String {
    fn walk(tree: &Tree, id: usize, out: &mut String) {
        let n = &tree.nodes[id];
        let name = match n.op {
            Op::Literal if n.runes.len() > 1 => "str",
            Op::Literal => "lit",
            Op::EmptyMatch => "emp",
            Op::NoMatch => "no",
            Op::CharClass => "cc",
            Op::AnyCharNotNl => "dnl",
            Op::AnyChar => "dot",
            Op::BeginLine => "bol",
            Op::EndLine => "eol",
            Op::BeginText => "bot",
            Op::EndText => "eot",
            Op::WordBoundary => "wb",
            Op::NoWordBoundary => "nwb",
            Op::Capture => "cap",
            Op::Star => "star",
            Op::Plus => "plus",
            Op::Quest => "que",
            Op::Repeat => "rep",
            Op::Concat => "cat",
            Op::Alternate => "alt",
            Op::LeftParen | Op::VerticalBar => "pseudo",
        };
        if matches!(n.op, Op::Star | Op::Plus | Op::Quest | Op::Repeat) && n.flags & NON_GREEDY != 0
        {
            out.push('n');
        }
        out.push_str(name);
        if n.op == Op::Literal
            && n.flags & FOLD_CASE != 0
            && n.runes.iter().any(|&r| unicode::orbit(r).len() > 1)
        {
            out.push_str("fold");
        }
        out.push('{');
        match n.op {
            Op::EndText if n.flags & WAS_DOLLAR == 0 => out.push_str("\\z"),
            Op::Literal => out.extend(n.runes.iter().filter_map(|&r| char::from_u32(r as u32))),
            Op::CharClass => {
                let pairs: Vec<String> = n
                    .runes
                    .chunks_exact(2)
                    .map(|p| {
                        if p[0] == p[1] {
                            format!("{:#x}", p[0])
                        } else {
                            format!("{:#x}-{:#x}", p[0], p[1])
                        }
                    })
                    .collect();
                out.push_str(&pairs.join(" "));
            }
            Op::Repeat => out.push_str(&format!("{},{} ", n.min, n.max)),
            Op::Capture if !n.name.is_empty() => out.push_str(&format!("{}:", n.name)),
            _ => {}
        }
        for &s in &n.sub {
            walk(tree, s, out);
        }
        out.push('}');
    }
    let mut out = String::new();
    walk(tree, tree.root, &mut out);
    out
}

/// regexp/syntax/parse_test.go parseTests (flags `MatchNL | PerlX | UnicodeGroups`) and
/// foldcaseTests (`FoldCase`), transcribed.
#[test]
fn parse_tests_from_go() {
    const TEST_FLAGS: Flags = CLASS_NL | DOT_NL | PERL_X | UNICODE_GROUPS;
    let table: &[(&str, &str)] = &[
        ("a", "lit{a}"),
        ("a.", "cat{lit{a}dot{}}"),
        ("a.b", "cat{lit{a}dot{}lit{b}}"),
        ("ab", "str{ab}"),
        ("a|^", "alt{lit{a}bol{}}"),
        ("a|b", "cc{0x61-0x62}"),
        ("(a)|b", "alt{cap{lit{a}}lit{b}}"),
        ("a{2,}?", "nrep{2,-1 lit{a}}"),
        ("x{1001", "str{x{1001}"),
        ("x{9876543210,", "str{x{9876543210,}"),
        ("", "emp{}"),
        ("|", "emp{}"),
        ("|x|", "alt{emp{}lit{x}emp{}}"),
        ("$", "eol{}"),
        ("[ace]", "cc{0x61 0x63 0x65}"),
        ("[a]", "lit{a}"),
        ("[^[:lower:]]", "cc{0x0-0x60 0x7b-0x10ffff}"),
        ("(?i)[[:lower:]]", "cc{0x41-0x5a 0x61-0x7a 0x17f 0x212a}"),
        (
            "(?i)[^[:lower:]]",
            "cc{0x0-0x40 0x5b-0x60 0x7b-0x17e 0x180-0x2129 0x212b-0x10ffff}",
        ),
        ("\\s", "cc{0x9-0xa 0xc-0xd 0x20}"),
        ("\\S", "cc{0x0-0x8 0xb 0xe-0x1f 0x21-0x10ffff}"),
        ("\\w", "cc{0x30-0x39 0x41-0x5a 0x5f 0x61-0x7a}"),
        ("\\W", "cc{0x0-0x2f 0x3a-0x40 0x5b-0x5e 0x60 0x7b-0x10ffff}"),
        (
            "(?i)\\w",
            "cc{0x30-0x39 0x41-0x5a 0x5f 0x61-0x7a 0x17f 0x212a}",
        ),
        (
            "(?i)\\W",
            "cc{0x0-0x2f 0x3a-0x40 0x5b-0x5e 0x60 0x7b-0x17e 0x180-0x2129 0x212b-0x10ffff}",
        ),
        ("\\p{Braille}", "cc{0x2800-0x28ff}"),
        ("\\P{^Braille}", "cc{0x2800-0x28ff}"),
        ("[\\P{Braille}]", "cc{0x0-0x27ff 0x2900-0x10ffff}"),
        (
            "\\pZ",
            "cc{0x20 0xa0 0x1680 0x2000-0x200a 0x2028-0x2029 0x202f 0x205f 0x3000}",
        ),
        ("\\p{Any}", "dot{}"),
        ("\\p{^Any}", "cc{}"),
        ("(?i)\\p{ascii}", "cc{0x0-0x7f 0x17f 0x212a}"),
        ("[\\012-\\234]\\141", "cat{cc{0xa-0x9c}lit{a}}"),
        ("[\\x{41}-\\x7a]\\x61", "cat{cc{0x41-0x7a}lit{a}}"),
        ("a{,2}", "str{a{,2}}"),
        ("[α-ε☺]", "cc{0x3b1-0x3b5 0x263a}"),
        (
            "(?:a+|b+)|(?:c+|d+)",
            "alt{plus{lit{a}}plus{lit{b}}plus{lit{c}}plus{lit{d}}}",
        ),
        ("(?:a|b)|(?:c|d)", "cc{0x61-0x64}"),
        ("a|.", "dot{}"),
        (
            "(?:[abc]|A|Z|hello|world)",
            "alt{cc{0x41 0x5a 0x61-0x63}str{hello}str{world}}",
        ),
        ("\\Q+|*?{[\\E", "str{+|*?{[}"),
        ("\\Qab\\E+", "cat{lit{a}plus{lit{b}}}"),
        ("\\Q\\\\\\E", "str{\\\\}"),
        ("(?-m)$", "eot{}"),
        ("(?m)\\z", "eot{\\z}"),
        ("(?P<name>a)", "cap{name:lit{a}}"),
        ("(?<name>a)", "cap{name:lit{a}}"),
        ("[Aa]", "litfold{A}"),
        ("[\\x{100}\\x{101}]", "litfold{Ā}"),
        ("[Δδ]", "litfold{Δ}"),
        ("[Aa][Bb]cd", "cat{strfold{AB}str{cd}}"),
        (
            "abc|abd|aef|bcx|bcy",
            "alt{cat{lit{a}alt{cat{lit{b}cc{0x63-0x64}}str{ef}}}cat{str{bc}cc{0x78-0x79}}}",
        ),
        (
            "ax+y|ax+z|ay+w",
            "cat{lit{a}alt{cat{plus{lit{x}}lit{y}}cat{plus{lit{x}}lit{z}}cat{plus{lit{y}}lit{w}}}}",
        ),
        ("(?:x|(?:xa))", "cat{lit{x}alt{emp{}lit{a}}}"),
        ("(?:A(?:A|a))", "cat{lit{A}litfold{A}}"),
        ("A|(?:A|a)", "litfold{A}"),
        ("(?-s).", "dnl{}"),
        ("[\\s\\S]a", "cat{cc{0x0-0x10ffff}lit{a}}"),
        ("(?i)abc|ABD", "cat{strfold{AB}cc{0x43-0x44 0x63-0x64}}"),
        ("[ab]c|[ab]d", "cat{cc{0x61-0x62}cc{0x63-0x64}}"),
        (
            "x{2}|x{2}[0-9]",
            "cat{rep{2,2 lit{x}}alt{emp{}cc{0x30-0x39}}}",
        ),
        (
            "x{2}y|x{2}[0-9]y",
            "cat{rep{2,2 lit{x}}alt{lit{y}cat{cc{0x30-0x39}lit{y}}}}",
        ),
        (
            "a.*?c|a.*?b",
            "cat{lit{a}alt{cat{nstar{dot{}}lit{c}}cat{nstar{dot{}}lit{b}}}}",
        ),
    ];
    for (pattern, want) in table {
        let tree = parse(pattern, TEST_FLAGS).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        assert_eq!(go_test_dump(&tree), *want, "{pattern}");
    }
    // Valid repetitions and nesting (parseTests with an empty dump: they parse).
    let nest999 = "(".repeat(999) + &")".repeat(999);
    let star999 = "(?:".repeat(999) + &")*".repeat(999);
    let bars = "(".to_string() + &"|".repeat(12345) + ")";
    for p in [
        "((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}))",
        "((((((((((x{1}){2}){2}){2}){2}){2}){2}){2}){2}){2})",
        nest999.as_str(),
        star999.as_str(),
        bars.as_str(),
    ] {
        parse(p, TEST_FLAGS).unwrap_or_else(|e| panic!("{p:.40}: {e}"));
    }
    let fold: &[(&str, &str)] = &[
        ("AbCdE", "strfold{ABCDE}"),
        ("[Aa]", "litfold{A}"),
        ("a", "litfold{A}"),
        ("A[F-g]", "cat{litfold{A}cc{0x41-0x7a 0x17f 0x212a}}"),
        ("[[:upper:]]", "cc{0x41-0x5a 0x61-0x7a 0x17f 0x212a}"),
        ("[[:lower:]]", "cc{0x41-0x5a 0x61-0x7a 0x17f 0x212a}"),
    ];
    for (pattern, want) in fold {
        let tree = parse(pattern, FOLD_CASE).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        assert_eq!(go_test_dump(&tree), *want, "{pattern}");
    }
    // parseTests' nomatchnlTests (flags 0): without ClassNL a negated class leaves out \n.
    let tree = parse("[^a]", 0).unwrap();
    assert_eq!(go_test_dump(&tree), "cc{0x0-0x9 0xb-0x60 0x62-0x10ffff}");
}

/// regexp/syntax/parse_test.go invalidRegexps and onlyPOSIX, refused under Perl flags (the
/// valid UTF-8 ones; a Rust string cannot hold the others); onlyPerl accepted.
#[test]
fn invalid_regexps_from_go() {
    let mut invalid: Vec<String> = [
        "(",
        ")",
        "(a",
        "a)",
        "(a))",
        "(a|b|",
        "a|b|)",
        "(a|b|))",
        "(a|b",
        "a|b)",
        "(a|b))",
        "[a-z",
        "([a-z)",
        "[a-z)",
        "([a-z]))",
        "x{1001}",
        "x{9876543210}",
        "x{2,1}",
        "x{1,9876543210}",
        "(?P<name>a",
        "(?P<name>",
        "(?P<name",
        "(?P<x y>a)",
        "(?P<>a)",
        "(?<name>a",
        "(?<name>",
        "(?<name",
        "(?<x y>a)",
        "(?<>a)",
        "[a-Z]",
        "(?i)[a-Z]",
        "\\Q\\E*",
        "a{100000}",
        "a{100000,}",
        "((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}){2})",
        // onlyPOSIX
        "a++",
        "a**",
        "a?*",
        "a+*",
        "a{1}*",
        ".{1}{2}.{3}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    invalid.push("(".repeat(1000) + &")".repeat(1000));
    invalid.push("(?:".repeat(1000) + &")*".repeat(1000));
    invalid.push("(".to_string() + &"(xx?)".repeat(1000) + "){1000}");
    invalid.push("(xx?){1000}".repeat(1000));
    invalid.push("\\pL".repeat(27000));
    for p in &invalid {
        assert!(parse(p, PERL).is_err(), "{p:.60} parsed");
    }
    for p in [
        "[a-b-c]",
        "\\Qabc\\E",
        "\\Q*+?{[\\E",
        "\\Q\\\\E",
        "\\Q\\\\\\E",
        "\\Q\\\\\\\\E",
        "\\Q\\\\\\\\\\E",
        "(?:a)",
        "(?P<name>a)",
    ] {
        parse(p, PERL).unwrap_or_else(|e| panic!("{p}: {e}"));
    }
}

/// regexp/find_test.go findTests: whether each matches (Go's TestMatch asks MatchString).
#[test]
fn find_tests_from_go() {
    let table: &[(&str, &str, bool)] = &[
        ("", "", true),
        ("^abcdefg", "abcdefg", true),
        ("a+", "baaab", true),
        ("x", "y", false),
        ("$", "abcde", true),
        ("^bcd'", "abcdef", false),
        ("^abcd$", "abcde", false),
        ("[^a-z]+", "ab1234cd", true),
        ("[日本語]+", "日本語日本語", true),
        ("\\a\\f\\n\\r\\t\\v", "\x07\x0c\n\r\t\x0b", true),
        ("/$", "/abc", false),
        ("axxb$", "axxcb", false),
        ("(?:.|(?:.a))", "", false),
        ("(?-s)(?:(?:^).)", "\n", false),
        ("(?s)(?:(?:^).)", "\n", true),
        ("\\b", "x", true),
        ("\\B", "x", false),
        ("\\B", "xx", true),
        ("\\B", "x y", false),
        ("[^\\S\\s]", "abcd", false),
        ("[^\\D[:digit:]]", "abcd", false),
        ("(?i)\\W", "x", false),
        ("(?i)\\W", "k", false),
        ("(?i)\\W", "s", false),
        ("\\x{fffd}", "\u{fffd}", true),
    ];
    for (pattern, text, want) in table {
        let re = compile(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        assert_eq!(re.is_match(text), *want, "{pattern} on {text:?}");
    }
}

/// The ASCII classes: Go's `\w`, `\d`, `\s`, `\b` know no letter, digit or space outside
/// ASCII (regexp/syntax/perl_groups.go), while `\pL` is Unicode.
#[test]
fn perl_classes_are_ascii() {
    let cases: &[(&str, &str, bool)] = &[
        ("^\\w$", "é", false),
        ("^\\w$", "_", true),
        ("^\\d$", "٣", false),
        ("^\\s$", "\u{a0}", false),
        ("^\\s$", "\u{b}", false),
        ("^[[:space:]]$", "\u{b}", true),
        ("^\\S$", "\u{a0}", true),
        ("\\bé", "é", false),
        ("a\\b", "aé", true),
        ("^\\pL$", "é", true),
        ("^[[:alpha:]]$", "é", false),
        ("(?i)k", "\u{212a}", true),
        ("(?i)\\w", "\u{17f}", true),
        ("^.$", "\n", false),
        ("(?s)^.$", "\n", true),
        ("a$", "a\n", false),
        ("(?m)a$", "a\n", true),
    ];
    for (pattern, text, want) in cases {
        let re = compile(pattern).unwrap();
        assert_eq!(re.is_match(text), *want, "{pattern} on {text:?}");
    }
    // Cheap with ASCII classes, as in Go.
    let re = compile("^\\w{1,30}\\w{1,30}x$").unwrap();
    assert!(re.is_match(&("a".repeat(59) + "x")));
    assert!(!re.is_match(&("a".repeat(61) + "x")));
}

/// The names Go 1.26's package unicode has, as the oracle printed them.
#[test]
fn unicode_names_are_go_1_26s() {
    let fx = fixture();
    let strings = |k: &str| -> Vec<String> {
        let mut v: Vec<String> = fx[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        v.sort();
        v
    };
    let sorted = |xs: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = xs.iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(fx["unicode"], "15.0.0");
    assert_eq!(strings("categories"), sorted(&unicode::CATEGORIES));
    assert_eq!(strings("scripts"), sorted(&unicode::SCRIPTS));
    assert_eq!(
        strings("fold_categories"),
        sorted(&unicode::FOLD_CATEGORIES)
    );
    assert_eq!(strings("fold_scripts"), sorted(&unicode::FOLD_SCRIPTS));
    let aliases = fx["category_aliases"].as_object().unwrap();
    assert_eq!(aliases.len(), unicode::CATEGORY_ALIASES.len());
    for (alias, category) in unicode::CATEGORY_ALIASES {
        assert_eq!(aliases[alias], category, "{alias}");
    }
    // Every table a name can reach has code points in the regex crate's tables.
    for name in unicode::CATEGORIES.iter().chain(&unicode::SCRIPTS) {
        if let Some(found) = unicode::lookup(name) {
            assert!(!unicode::ranges(found.table, false).is_empty(), "{name}");
        }
    }
    assert_eq!(unicode::lookup("Old_Italic"), None);
    assert_eq!(
        unicode::canonical_name("__upper case-let ter"),
        "Uppercaseletter"
    );
}
/// Every category and script Go 1.26 has, and every rune's `unicode.SimpleFold`, as the
/// oracle printed them (testdata/go.json `tables`, `simple_fold`).
#[test]
fn unicode_tables_are_go_1_26s() {
    let fx = fixture();
    let hex = |s: &str| i32::from_str_radix(s, 16).expect("hex");
    let tables = fx["tables"].as_object().expect("tables");
    assert_eq!(
        tables.len(),
        unicode::CATEGORIES.len() + unicode::SCRIPTS.len()
    );
    for (name, want) in tables {
        let want: Vec<i32> = want
            .as_str()
            .unwrap()
            .split(' ')
            .filter(|r| !r.is_empty())
            .flat_map(|r| r.split('-').map(hex).collect::<Vec<_>>())
            .collect();
        let table = match name.split_once('=') {
            Some(("gc", key)) => unicode::Table::Category(
                unicode::CATEGORIES
                    .iter()
                    .find(|k| **k == key)
                    .expect("a category"),
            ),
            Some(("sc", key)) => unicode::Table::Script(
                unicode::SCRIPTS
                    .iter()
                    .find(|k| **k == key)
                    .expect("a script"),
            ),
            _ => panic!("table {name}"),
        };
        assert_eq!(unicode::ranges(table, false), want, "{name}");
    }
    let folds = fx["simple_fold"].as_str().expect("simple_fold");
    let want: std::collections::HashMap<i32, i32> = folds
        .split(' ')
        .map(|p| {
            let (r, f) = p.split_once(':').expect("r:f");
            (hex(r), hex(f))
        })
        .collect();
    assert!(want.len() > 2800, "{} folds", want.len());
    // Go's minFold and maxFold bound every rune that folds.
    assert!(want
        .keys()
        .all(|r| (unicode::MIN_FOLD..=unicode::MAX_FOLD).contains(r)));
    let mut p = super::tree::Parser::new("", PERL);
    let wrong: Vec<String> = (unicode::MIN_FOLD..=unicode::MAX_FOLD)
        .filter_map(|r| {
            let (got, want) = (p.simple_fold(r), *want.get(&r).unwrap_or(&r));
            (got != want).then(|| format!("{r:x}: {got:x} want {want:x}"))
        })
        .collect();
    assert!(wrong.is_empty(), "SimpleFold differs: {wrong:?}");
}
