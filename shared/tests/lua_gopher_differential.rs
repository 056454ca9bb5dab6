//! The Lua engine against gopher-lua v1.1.2 as Argo CD runs it: every case of
//! `tests/fixtures/lua_gopher_differential.txt` (its header says how gopher's results were
//! recorded) runs through `Script::compile` + `execute_health` and must give gopher's result,
//! except the cases listed in [`KNOWN`], each with the reason it differs. A listed case that
//! starts agreeing fails the test too, so that the list stays honest.
//!
//! Each case is wrapped as the recording wrapped it: a chunk body (a case starting with `!`) or
//! an expression (`return` prepended) runs as
//! `local __r = (function() BODY end)() return {status = "Healthy", message = tostring(__r)}`,
//! on the object `{"metadata": {"name": "a"}}`, restricted (argo-cd's default for a custom
//! script) or with open libraries (`useOpenLibs`). The result compared is the health message, or
//! `ERR: ` and the error text Argo CD shows; `print` output is compared too. Addresses
//! (`table: 0x...`) are compared as `0xADDR`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pacto_gates::argo::lua::{execute_health, Limits, Script};
use serde_json::json;

/// Cases whose result differs from gopher-lua's on purpose or by a limitation of the engine:
/// (mode, case, reason). docs/engines.md ("Known differences") describes each class.
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "restricted",
        "!error(setmetatable({}, {__tostring = function() return 'custom err' end})) return 1",
        TOSTRING_ERROR,
    ),
    (
        "open",
        "!error(setmetatable({}, {__tostring = function() return 'custom err' end})) return 1",
        TOSTRING_ERROR,
    ),
    ("restricted", "!local function f() return f() end¶return f()", TAIL_CALL),
    ("open", "!local function f() return f() end¶return f()", TAIL_CALL),
    ("restricted", "!goto nowhere return 1", GOTO_ERROR),
    ("open", "!goto nowhere return 1", GOTO_ERROR),
    ("restricted", "!::a:: ::a:: return 1", GOTO_ERROR),
    ("open", "!::a:: ::a:: return 1", GOTO_ERROR),
    ("restricted", "!do goto l end local x = 1 ::l:: return 'x'", GOTO_ERROR),
    ("open", "!do goto l end local x = 1 ::l:: return 'x'", GOTO_ERROR),
    ("restricted", "!local t = {[1] = 'a', [2] = 'b', 'c'} return t[1]", CONSTRUCTOR),
    ("open", "!local t = {[1] = 'a', [2] = 'b', 'c'} return t[1]", CONSTRUCTOR),
    ("restricted", "!local t = {'c', [1] = 'a'} return t[1]", CONSTRUCTOR),
    ("open", "!local t = {'c', [1] = 'a'} return t[1]", CONSTRUCTOR),
    (
        "open",
        "!setmetatable(1, {__index = function() return 'idx' end}) return (5).x",
        TYPE_METATABLE,
    ),
    (
        "restricted",
        "!setmetatable(1, {__index = function() return 'idx' end}) return tostring(getmetatable(2) ~= nil)",
        TYPE_METATABLE,
    ),
    (
        "open",
        "!setmetatable(1, {__index = function() return 'idx' end}) return tostring(getmetatable(2) ~= nil)",
        TYPE_METATABLE,
    ),
    ("open", "math.tan(1)", GO_MATH),
    ("open", "math.acos(0.5)", GO_MATH),
    (
        "restricted",
        "!local t = {a = nil, b = 1, a = 2} local r = '' for k in pairs(t) do r = r .. k end return r",
        NIL_FIELD_ORDER,
    ),
    (
        "open",
        "!local t = {a = nil, b = 1, a = 2} local r = '' for k in pairs(t) do r = r .. k end return r",
        NIL_FIELD_ORDER,
    ),
];

const TOSTRING_ERROR: &str = "an error value that is a table is shown through its __tostring \
    (gopher shows the table's address)";
const TAIL_CALL: &str = "a returned call keeps its caller's frame (for gopher's line numbers in \
    errors), so endless tail recursion overflows the stack instead of running into the deadline";
const GOTO_ERROR: &str = "goto and label errors, which gopher finds in its compiler, are \
    LuaJIT's texts";
const CONSTRUCTOR: &str = "a constructor giving a positional field and an explicit key for the \
    same index keeps the explicit one (gopher: the positional one)";
const TYPE_METATABLE: &str = "setmetatable on a value that is not a table is accepted and \
    returns it, but does not change the metatable of its type";
const GO_MATH: &str = "math functions are the C library's, correctly rounded; Go's math \
    package may differ in the last digit";
const NIL_FIELD_ORDER: &str = "a constructor key given nil and given a value later in the same \
    constructor is ordered by its first mention in pairs (gopher: by the later one)";

/// `os.time()` of the evaluations; no case reads the current time.
const NOW: i64 = 1_709_208_000;

struct Case {
    line: usize,
    mode: String,
    case: String,
    result: String,
    printed: String,
}

/// Undoes the fixture's escapes: `\\`, `\n`, `\t`, `\r` and `\xNN` (a byte).
fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'\\' => out.push(b'\\'),
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'r' => out.push(b'\r'),
                b'x' if i + 4 <= b.len() => {
                    let hex = std::str::from_utf8(&b[i + 2..i + 4]).expect("ascii escape");
                    out.push(u8::from_str_radix(hex, 16).expect("hex escape"));
                    i += 4;
                    continue;
                }
                other => panic!("bad escape \\{} in {s:?}", other as char),
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn cases() -> Vec<Case> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/lua_gopher_differential.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 4, "line {}: {line:?}", i + 1);
        assert!(
            fields[0] == "open" || fields[0] == "restricted",
            "line {}: mode {:?}",
            i + 1,
            fields[0]
        );
        out.push(Case {
            line: i + 1,
            mode: fields[0].to_string(),
            case: fields[1].to_string(),
            result: String::from_utf8_lossy(&unescape(fields[2])).into_owned(),
            printed: String::from_utf8_lossy(&unescape(fields[3])).into_owned(),
        });
    }
    out
}

/// `s` with every address (`table: 0x7f3a...`, `function: 0x...`) written `0xADDR`: where a value
/// lives in memory is no part of the behaviour compared.
fn without_addresses(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(": 0x") {
        out.push_str(&rest[..at + 4]);
        rest = &rest[at + 4..];
        let hex = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
        if hex > 0 {
            out.push_str("ADDR");
        }
        rest = &rest[hex..];
    }
    out.push_str(rest);
    out
}

/// Our result and print output for one case, in the fixture's terms.
fn run(mode: &str, case: &str) -> (String, String) {
    let body = case.replace('¶', "\n");
    let body = match body.strip_prefix('!') {
        Some(chunk) => chunk.to_string(),
        None => format!("return {body}"),
    };
    let src = format!(
        "local __r = (function() {body} end)() return {{status = \"Healthy\", message = tostring(__r)}}"
    );
    let obj = json!({"metadata": {"name": "a"}});
    let eval = match Script::compile(&src) {
        Ok(script) => execute_health(&script, &obj, mode == "open", NOW, &Limits::default()),
        Err(e) => return (format!("ERR: {e}"), String::new()),
    };
    let result = match eval.result {
        Ok(h) => h.message,
        Err(e) => format!("ERR: {e}"),
    };
    let printed: String = eval.printed.iter().map(|l| format!("{l}\n")).collect();
    (result, printed)
}

#[test]
fn agrees_with_gopher_lua() {
    let cases = cases();
    assert!(cases.len() >= 300, "{} cases", cases.len());
    let mut known: BTreeMap<(&str, &str), &str> = BTreeMap::new();
    for (mode, case, reason) in KNOWN {
        assert!(
            known.insert((mode, case), reason).is_none(),
            "listed twice: {mode} {case}"
        );
    }
    let mut failures = Vec::new();
    let mut agreed = 0;
    let mut known_seen = 0;
    for c in &cases {
        let (result, printed) = run(&c.mode, &c.case);
        let same = without_addresses(&result) == without_addresses(&c.result)
            && without_addresses(&printed) == without_addresses(&c.printed);
        match (same, known.remove(&(c.mode.as_str(), c.case.as_str()))) {
            (true, None) => agreed += 1,
            (false, Some(reason)) => {
                known_seen += 1;
                println!(
                    "known difference, line {} [{}] {}: {reason}\n  gopher: {:?}\n  ours:   {:?}",
                    c.line, c.mode, c.case, c.result, result
                );
            }
            (true, Some(_)) => failures.push(format!(
                "line {} [{}] {}: listed as a known difference but agrees now; remove it from KNOWN",
                c.line, c.mode, c.case
            )),
            (false, None) => failures.push(format!(
                "line {} [{}] {}\n  gopher: {:?} printed {:?}\n  ours:   {:?} printed {:?}",
                c.line, c.mode, c.case, c.result, c.printed, result, printed
            )),
        }
    }
    for ((mode, case), _) in known {
        failures.push(format!(
            "[{mode}] {case}: listed in KNOWN but not in the fixture"
        ));
    }
    println!(
        "{} cases: {agreed} agree, {known_seen} known differences, {} failures",
        cases.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
