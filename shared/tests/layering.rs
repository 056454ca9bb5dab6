//! The library's modules import one way (shared/DESIGN.md, "Imports run one way"):
//! k8s → object → {argo, flux} → pacto → delivery → {doctor, snippets, reconcile} → render, with
//! `cluster` beside `object`, knowing only how to talk to an API server. (Doctor and reconcile
//! read Stages through `delivery`, so it sits a tier below them.) This test reads every
//! source file's code (comments stripped) and fails on any `crate::X` path that points to a
//! module of the same tier (other than itself) or a higher one.

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

/// The top-level module a file belongs to (`src/argo/lua.rs` → `argo`, `src/object.rs` →
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
