//! The library's modules import one way (docs/design.md, "Principles"; docs/layout.md): k8s →
//! object → {argo, flux} → pacto → delivery → {doctor, snippets, reconcile} → render, with
//! `cluster` beside `object`, knowing only how to talk to an API server. (Doctor and reconcile read
//! Stages through `delivery`, so it sits a tier below them.) This test reads every source file's
//! code (comments stripped) and fails on any `crate::X` path that points to a module of the same
//! tier (other than itself) or a higher one.

use std::path::{Path, PathBuf};

/// The tier of each top-level module; a module may use only modules of lower tiers.
const TIERS: &[(&str, u32)] = &[
    ("k8s", 0),
    ("object", 1),
    ("kinds", 1),
    ("cluster", 2),
    ("argo", 2),
    ("flux", 2),
    ("pacto", 3),
    ("delivery", 4),
    ("doctor", 5),
    ("snippets", 5),
    ("reconcile", 5),
    ("render", 6),
    // Test helpers (compiled only for tests): usable from every module, and free to use any.
    ("testutil", 0),
];

fn tier(module: &str) -> Option<u32> {
    TIERS.iter().find(|(m, _)| *m == module).map(|(_, t)| *t)
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file belongs to (`src/argo/lua/mod.rs` → `argo`, `src/object.rs` →
/// `object`), None for `lib.rs`.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib").then_some(name)
}

/// `crate::X` references in code, with line numbers (line comments and doc comments dropped).
fn crate_refs(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            if let Some(group) = after.strip_prefix('{') {
                // `crate::{argo, flux::wait}`: each first segment inside the braces.
                let inner = group.split('}').next().unwrap_or("");
                for part in inner.split(',') {
                    let name = first_segment(part.trim());
                    if !name.is_empty() {
                        out.push((i + 1, name));
                    }
                }
            } else {
                let name = first_segment(after);
                if !name.is_empty() {
                    out.push((i + 1, name));
                }
            }
            rest = after;
        }
    }
    out
}

fn first_segment(path: &str) -> String {
    path.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// Which imports break the rule, as `file:line: from → to`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for f in &files {
        let Some(from) = module_of(src, f) else {
            continue;
        };
        if from == "testutil" {
            continue;
        }
        let from_tier =
            tier(&from).unwrap_or_else(|| panic!("module {from} has no tier in this test"));
        for (line, to) in crate_refs(&std::fs::read_to_string(f).unwrap()) {
            if to == from {
                continue;
            }
            let Some(to_tier) = tier(&to) else {
                bad.push(format!(
                    "{}:{line}: {from} → unknown module {to}",
                    f.display()
                ));
                continue;
            };
            if to_tier >= from_tier {
                bad.push(format!("{}:{line}: {from} → {to}", f.display()));
            }
        }
    }
    bad
}

#[test]
fn imports_run_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let bad = violations(&src);
    assert!(
        bad.is_empty(),
        "imports against the layering:\n{}",
        bad.join("\n")
    );
}

/// The checker itself catches the breaks the layering forbids.
#[test]
fn the_checker_sees_a_forbidden_import() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path();
    std::fs::create_dir_all(src.join("flux")).unwrap();
    std::fs::create_dir_all(src.join("cluster")).unwrap();
    std::fs::write(
        src.join("flux/wait.rs"),
        "use crate::argo::osdate;\n// crate::render in a comment\n",
    )
    .unwrap();
    std::fs::write(
        src.join("cluster/mod.rs"),
        "fn f() { crate::render::one_line(\"\"); }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("object.rs"),
        "use crate::k8s::Gvk;\nuse crate::{k8s, render::x};\n",
    )
    .unwrap();
    std::fs::write(src.join("pacto.rs"), "use crate::render::table;\n").unwrap();
    let bad = violations(src);
    let ends: Vec<&str> = bad.iter().map(|b| b.rsplit(": ").next().unwrap()).collect();
    assert_eq!(
        ends,
        [
            "cluster → render",
            "flux → argo",
            "object → render",
            "pacto → render"
        ]
    );
}

// The kubectl plugin (`plugins/kubectl-pacto/src`): its files import one another without a
// circle, a command (`cmd/<command>/`) never imports another command, the I/O layer (`io/`)
// never imports a command, and no file is over 800 lines. The graph is read from the code
// (comments and the test modules after `#[cfg(test)]` left out, as a test module's `super` is
// its own file): every path of a `use` declaration and every path in code that starts with
// `crate::`, `super::`, `self::`, `kubectl_pacto::` (the plugin's library, from its binary)
// or the name of a module the file declares (`mod x;` then `x::`) is resolved to the file of
// the longest module it names.

/// The most lines a plugin file may have.
const MAX_PLUGIN_LINES: usize = 800;

/// The module path of a plugin file (`cmd/get/stages.rs` → `[cmd, get, stages]`,
/// `cmd/get/mod.rs` → `[cmd, get]`, `main.rs` and `lib.rs` → `[]`).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.strip_suffix(".rs").unwrap_or(&last).to_string();
    let root = parts.is_empty() && matches!(stem.as_str(), "main" | "lib");
    if stem != "mod" && !root {
        parts.push(stem);
    }
    parts
}

/// The code of a file that the graph reads: comments dropped, test modules cut off.
fn graph_code(text: &str) -> String {
    let mut code = String::new();
    for line in text.lines() {
        if line.trim() == "#[cfg(test)]" {
            break;
        }
        let line = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        code.push_str(line);
        code.push('\n');
    }
    code
}

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths of a `use` tree (`a::{b, c::{d as e, self}}` → `a::b`, `a::c::d`, `a::c`).
fn use_paths(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let mut base = prefix.to_vec();
        base.extend(segments(&tree[..open]));
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_paths(&inner[start..i], &base, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        use_paths(&inner[start..], &base, out);
        return;
    }
    let path = tree.split(" as ").next().unwrap_or("").trim();
    let mut full = prefix.to_vec();
    full.extend(
        segments(path)
            .into_iter()
            .filter(|s| s != "self" || prefix.is_empty()),
    );
    if !full.is_empty() && path != "*" {
        out.push(full);
    }
}

fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "*")
        .map(str::to_string)
        .collect()
}

/// Every path a file's code names: those of its `use` declarations, and those in code that
/// start with one of `starts` (`crate`, `super`, ..., and the modules the file declares).
fn code_paths(code: &str, starts: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let text = code;
    // `use` declarations, up to their `;`.
    let mut rest = text;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        let after = &rest[at + 4..];
        if before.is_none_or(|c| !ident_char(c)) {
            if let Some(end) = after.find(';') {
                use_paths(&after[..end], &[], &mut out);
                rest = &after[end..];
                continue;
            }
        }
        rest = after;
    }
    // Paths in code.
    for start in starts {
        let needle = format!("{start}::");
        let mut from = 0;
        while let Some(at) = text[from..].find(&needle) {
            let at = from + at;
            from = at + needle.len();
            if text[..at]
                .chars()
                .last()
                .is_some_and(|c| ident_char(c) || c == ':')
            {
                continue;
            }
            let path: String = text[at..]
                .chars()
                .take_while(|c| ident_char(*c) || *c == ':')
                .collect();
            // `kubectl_pacto::{...}` is a `use` tree, read above.
            let path = segments(&path);
            if path.len() > 1 {
                out.push(path);
            }
        }
    }
    out
}

/// The modules a file declares (`mod x;`, `pub(crate) mod x;`).
fn declared_modules(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let l = line.trim();
        let Some(at) = l.find("mod ") else { continue };
        let head = &l[..at];
        if !(head.is_empty() || head.starts_with("pub")) || !l.ends_with(';') {
            continue;
        }
        let name: String = l[at + 4..].chars().take_while(|c| ident_char(*c)).collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

/// One file of the plugin: where it is, its module path, its length, and the paths it names.
struct PluginFile {
    path: PathBuf,
    module: Vec<String>,
    lines: usize,
    names: Vec<Vec<String>>,
}

/// The plugin's files, and the import graph as file → files (indices), self-edges left out.
fn plugin_graph(src: &Path) -> (Vec<PluginFile>, Vec<Vec<usize>>) {
    let mut paths = Vec::new();
    sources(src, &mut paths);
    paths.sort();
    let files: Vec<PluginFile> = paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let code = graph_code(&text);
            let mut starts: Vec<String> = ["crate", "super", "self", "kubectl_pacto"]
                .map(String::from)
                .to_vec();
            starts.extend(declared_modules(&code));
            PluginFile {
                module: module_path(src, &path),
                lines: text.lines().count(),
                names: code_paths(&code, &starts),
                path,
            }
        })
        .collect();
    // The binary's top-level modules are those main.rs declares; every other module is the
    // library's (lib.rs).
    let root_of = |files: &[PluginFile], name: &str| {
        files
            .iter()
            .position(|f| f.path.file_name().is_some_and(|n| n == name) && f.module.is_empty())
    };
    let (main, lib) = (root_of(&files, "main.rs"), root_of(&files, "lib.rs"));
    let bin_modules: Vec<String> = main
        .map(|m| {
            declared_modules(&graph_code(
                &std::fs::read_to_string(&files[m].path).unwrap(),
            ))
        })
        .unwrap_or_default();
    let in_bin = |module: &[String], is_main: bool| {
        is_main || module.first().is_some_and(|m| bin_modules.contains(m))
    };
    let mut edges = vec![Vec::new(); files.len()];
    for (i, f) in files.iter().enumerate() {
        let here_bin = in_bin(&f.module, Some(i) == main);
        let declared = declared_modules(&graph_code(&std::fs::read_to_string(&f.path).unwrap()));
        for name in &f.names {
            let Some(first) = name.first() else { continue };
            let (mut target, root): (Vec<String>, Option<usize>) = match first.as_str() {
                "crate" => (name[1..].to_vec(), if here_bin { main } else { lib }),
                "kubectl_pacto" => (name[1..].to_vec(), lib),
                "self" => {
                    let mut t = f.module.clone();
                    t.extend(name[1..].iter().cloned());
                    (t, None)
                }
                "super" => {
                    let ups = name.iter().take_while(|s| *s == "super").count();
                    let keep = f.module.len().saturating_sub(ups);
                    let mut t = f.module[..keep].to_vec();
                    t.extend(name[ups..].iter().cloned());
                    (t, if here_bin { main } else { lib })
                }
                m if declared.iter().any(|d| d == m) => {
                    let mut t = f.module.clone();
                    t.extend(name.iter().cloned());
                    (t, None)
                }
                _ => continue,
            };
            // The file of the longest module the path names, in the crate the path is of.
            let want_bin = here_bin && first != "kubectl_pacto";
            let found = loop {
                if target.is_empty() {
                    break root;
                }
                if let Some(j) = files
                    .iter()
                    .position(|g| g.module == target && in_bin(&g.module, false) == want_bin)
                {
                    break Some(j);
                }
                target.pop();
            };
            if let Some(j) = found.filter(|j| *j != i) {
                if !edges[i].contains(&j) {
                    edges[i].push(j);
                }
            }
        }
    }
    (files, edges)
}

/// An import circle, as the files along it (`a → b → a`), if there is one.
fn circle(edges: &[Vec<usize>]) -> Option<Vec<usize>> {
    // 0 unvisited, 1 on the current path, 2 done.
    fn visit(
        n: usize,
        edges: &[Vec<usize>],
        state: &mut [u8],
        path: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        state[n] = 1;
        path.push(n);
        for &m in &edges[n] {
            if state[m] == 1 {
                let at = path.iter().position(|p| *p == m).unwrap();
                let mut c = path[at..].to_vec();
                c.push(m);
                return Some(c);
            }
            if state[m] == 0 {
                if let Some(c) = visit(m, edges, state, path) {
                    return Some(c);
                }
            }
        }
        path.pop();
        state[n] = 2;
        None
    }
    let mut state = vec![0u8; edges.len()];
    for n in 0..edges.len() {
        if state[n] == 0 {
            if let Some(c) = visit(n, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

/// What breaks the plugin's rules, one line each.
fn plugin_violations(src: &Path) -> Vec<String> {
    let (files, edges) = plugin_graph(src);
    let name = |i: usize| {
        files[i]
            .path
            .strip_prefix(src)
            .unwrap()
            .display()
            .to_string()
    };
    let command = |i: usize| match files[i].module.as_slice() {
        [c, name, ..] if c == "cmd" => Some(name.clone()),
        _ => None,
    };
    let mut bad = Vec::new();
    if let Some(c) = circle(&edges) {
        let names: Vec<String> = c.into_iter().map(name).collect();
        bad.push(format!("import circle: {}", names.join(" → ")));
    }
    for (i, out) in edges.iter().enumerate() {
        for &j in out {
            match (command(i), command(j)) {
                (Some(a), Some(b)) if a != b => bad.push(format!(
                    "{}: command {a} imports command {b} ({})",
                    name(i),
                    name(j)
                )),
                _ => {}
            }
            if files[i].module.first().is_some_and(|m| m == "io")
                && files[j].module.first().is_some_and(|m| m == "cmd")
            {
                bad.push(format!(
                    "{}: the I/O layer imports a command ({})",
                    name(i),
                    name(j)
                ));
            }
        }
    }
    for f in &files {
        if f.lines > MAX_PLUGIN_LINES {
            bad.push(format!(
                "{}: {} lines, over {MAX_PLUGIN_LINES}",
                f.path.strip_prefix(src).unwrap().display(),
                f.lines
            ));
        }
    }
    bad
}

#[test]
fn the_plugin_imports_without_a_circle_and_commands_stand_alone() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins/kubectl-pacto/src");
    let (files, edges) = plugin_graph(&src);
    // The graph is read at all: main.rs reaches the commands, a command reaches the layer.
    let at = |p: &str| files.iter().position(|f| f.path.ends_with(p)).unwrap();
    assert!(edges[at("main.rs")].contains(&at("cmd/get/mod.rs")));
    assert!(edges[at("cmd/wait/mod.rs")].contains(&at("io/connect.rs")));
    assert!(edges[at("cmd/wait/mod.rs")].contains(&at("wait.rs")));
    let bad = plugin_violations(&src);
    assert!(bad.is_empty(), "the plugin's layering:\n{}", bad.join("\n"));
}

/// The checker sees a circle, a command importing another, the layer importing a command and
/// a long file, in a small plugin written for it.
#[test]
fn the_plugin_checker_sees_what_it_forbids() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path();
    let write = |p: &str, text: &str| {
        let path = src.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "main.rs",
        "mod cmd;\nmod io;\nfn main() { cmd::get::run(); }\n",
    );
    write("lib.rs", "pub mod printer;\n");
    write("printer/mod.rs", "pub mod sort;\nuse sort::order;\n");
    // A child naming its parent, which names it: a circle.
    write(
        "printer/sort.rs",
        "use super::Format;\n// use crate::nothing;\n",
    );
    write("cmd/mod.rs", "pub mod get;\npub mod wait;\n");
    write(
        "cmd/get/mod.rs",
        "use crate::io::{output::{self, write}};\nuse kubectl_pacto::printer;\npub fn run() {}\n",
    );
    write(
        "cmd/wait/mod.rs",
        "pub fn run() { crate::cmd::get::run(); }\n#[cfg(test)]\nmod tests { use super::*; }\n",
    );
    write("io/mod.rs", "pub mod watch;\npub mod output;\n");
    write(
        "io/watch.rs",
        "use super::output::write;\nuse crate::cmd::wait;\n",
    );
    write("io/output.rs", &"// a line\n".repeat(801));
    let bad = plugin_violations(src);
    assert_eq!(
        bad,
        [
            "import circle: printer/mod.rs → printer/sort.rs → printer/mod.rs",
            "cmd/wait/mod.rs: command wait imports command get (cmd/get/mod.rs)",
            "io/watch.rs: the I/O layer imports a command (cmd/wait/mod.rs)",
            "io/output.rs: 801 lines, over 800",
        ]
    );
}
