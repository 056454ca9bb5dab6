//! Every repository path a comment or a document names exists. The repository's own files
//! (`git ls-files`, else a walk of the checkout) of the kinds that carry prose (`*.rs`, `*.md`,
//! `*.yaml`, `*.yml`, `*.lua`, `*.toml`, `*.sh`) are read: all of a Markdown file, the comments
//! of the others. A word names a repository path when it
//!
//! * starts with one of the repository's top-level directories (`shared/src/cluster/mod.rs`,
//!   `tests/fixtures/`): it must exist from the repository root, or from the root of the crate
//!   the file belongs to (`tests/fixtures/...` written in `shared/src`); or
//! * is written in backticks (or starts with `./` or `../`), holds a slash and ends in an
//!   extension this repository's files have (`testdata/cases.yaml`): it must exist from the
//!   file's directory or one of its parents.
//!
//! Paths of other repositories are not this one's: a word is skipped when an upstream
//! repository or tool names it (argo-cd `util/lua/lua.go`, TrianaLab/pacto `docs/gitops.md`,
//! fluxcd/pkg `runtime/cel/status_reader.go` on the line before), and a backticked path whose
//! extension no file here has (`.go`) is not read as one of ours. A failure names file:line and
//! the path.

use regex::Regex;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Words that name another repository or tool, compared lower-case after dropping a trailing
/// `'s` and punctuation; `org/` prefixes match any repository of that organisation.
const UPSTREAM: &[&str] = &[
    "argo-cd",
    "argocd",
    "gitops-engine",
    "gopher-lua",
    "gopher-json",
    "gopher",
    "go",
    "flux2",
    "kustomize-controller",
    "helm-controller",
    "cli-utils",
    "kstatus",
    "cel-go",
    "cel-spec",
    "cel-rust",
    "client-go",
    "kubectl",
    "cli-runtime",
    "apimachinery",
    "kube-rs",
    "kube-client",
    "krew",
    "krew-index",
    "pacto-operator",
    "coder-k8s",
    "go-yaml",
    "kubernetes.io",
    "luajit",
    "libfuzzer",
];
const UPSTREAM_ORGS: &[&str] = &[
    "argoproj/",
    "fluxcd/",
    "google/",
    "yuin/",
    "layeh.com/",
    "kubernetes/",
    "kubernetes-sigs/",
    "k8s.io/",
    "sigs.k8s.io/",
    "gopkg.in/",
    "trianalab/",
    "coder/",
    "kube-rs/",
    "bufbuild/",
];

fn is_upstream_word(word: &str) -> bool {
    let w = word
        .trim_matches(|c: char| !(c.is_alphanumeric() || c == '/' || c == '.' || c == '-'))
        .to_lowercase();
    let w = w.strip_suffix("'s").unwrap_or(&w);
    let w = w.trim_end_matches(['.', '/']);
    UPSTREAM.contains(&w) || UPSTREAM_ORGS.iter().any(|o| w.starts_with(o))
}

/// The words of `text`, split at whitespace and at punctuation that never joins a name.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || "`()[]{}|,;\"".contains(c))
        .filter(|w| !w.is_empty())
}

/// The prose of one line: all of it in Markdown, the comment elsewhere (None: no comment).
fn prose<'a>(ext: &str, line: &'a str) -> Option<&'a str> {
    let marker = match ext {
        "md" => return Some(line),
        "rs" => "//",
        "lua" => "--",
        _ => "#",
    };
    // `///` and `//!` doc comments, `##` headings: the marker's characters and `!` all go.
    let strip = |rest: &'a str| rest.trim_start_matches(|c: char| marker.contains(c) || c == '!');
    let trimmed = line.trim_start();
    if let Some(rest) = trimmed.strip_prefix(marker) {
        return Some(strip(rest));
    }
    // A comment after code: only after a space, so that URLs and `#` inside words are not read.
    line.find(&format!(" {marker} "))
        .map(|at| strip(&line[at + marker.len() + 1..]))
}

/// What the scan knows about the repository.
struct Repo {
    root: PathBuf,
    /// The top-level directories (`shared`, `tests`, ...).
    top: BTreeSet<String>,
    /// The extensions its files have (`rs`, `yaml`, ...).
    extensions: BTreeSet<String>,
}

impl Repo {
    fn new(root: &Path, files: &[String]) -> Repo {
        let top = files
            .iter()
            .filter_map(|f| f.split_once('/').map(|(d, _)| d.to_string()))
            .collect();
        let extensions = files
            .iter()
            .filter_map(|f| Path::new(f).extension())
            .map(|e| e.to_string_lossy().into_owned())
            .collect();
        Repo {
            root: root.to_path_buf(),
            top,
            extensions,
        }
    }

    /// The root of the crate `file` belongs to, when it is not the repository's.
    fn crate_root(&self, file: &Path) -> Option<PathBuf> {
        let mut dir = self.root.join(file);
        while dir.pop() && dir != self.root && dir.starts_with(&self.root) {
            if dir.join("Cargo.toml").is_file() {
                return Some(dir);
            }
        }
        None
    }

    /// The paths of `text` (the contents of `file`, relative to the root) that do not exist, as
    /// (line, path).
    fn missing(&self, file: &str, text: &str) -> Vec<(usize, String)> {
        let token =
            Regex::new(r"(?:\.\.?/)*[A-Za-z0-9_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.-]+)+/?").unwrap();
        let ext = Path::new(file)
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default();
        let file_dir = self.root.join(file).parent().unwrap().to_path_buf();
        let crate_root = self.crate_root(Path::new(file));
        let mut out = Vec::new();
        let mut previous = "";
        for (i, line) in text.lines().enumerate() {
            let Some(prose) = prose(&ext, line) else {
                previous = "";
                continue;
            };
            for m in token.find_iter(prose) {
                // A token starts a word: not inside a URL, a longer name or a path.
                let before_char = prose[..m.start()].chars().next_back();
                if before_char.is_some_and(|c| c.is_alphanumeric() || "_./-:@~$".contains(c)) {
                    continue;
                }
                let path = m.as_str().trim_end_matches(['.', ',', ':']);
                let backticked = before_char == Some('`') && prose[m.end()..].starts_with('`');
                let relative = path.starts_with("./") || path.starts_with("../");
                let first = path.split('/').next().unwrap_or("");
                let extension = Path::new(path)
                    .extension()
                    .map(|e| e.to_string_lossy().into_owned());
                let ours = !relative && self.top.contains(first);
                // An extension starts with a letter (`HTTP/1.1` is no file).
                let relative_file = (backticked || relative)
                    && extension.as_ref().is_some_and(|e| {
                        e.starts_with(|c: char| c.is_ascii_alphabetic())
                            && self.extensions.contains(e)
                    });
                if !ours && !relative_file {
                    continue;
                }
                // A backticked path whose first directory this repository has nowhere along the
                // file's directories is another repository's (`util/lua/lua.go` beside an
                // upstream table column).
                if !ours
                    && !relative
                    && !file_dir
                        .ancestors()
                        .take_while(|d| d.starts_with(&self.root))
                        .any(|d| d.join(first).is_dir())
                {
                    continue;
                }
                let before = &prose[..m.start()];
                // The text the path follows: this line's, or the line before when the path
                // opens the line.
                let opens_line = words(before).next().is_none();
                let context = if opens_line { previous } else { before };
                let named_upstream = if ours {
                    // Only the word just before, joined by spaces, backticks, a colon or a
                    // parenthesis: `argo-cd docs/...` is Argo CD's, while `see argo-cd;
                    // docs/design.md` is ours.
                    context
                        .trim_end_matches(|c: char| c.is_whitespace() || "`:(\"'|".contains(c))
                        .rsplit(char::is_whitespace)
                        .next()
                        .is_some_and(|w| !w.ends_with([';', ',', '.']) && is_upstream_word(w))
                } else {
                    // Any upstream name earlier on the line or on the line before (`kube-rs's
                    // Kubeconfig::read_from` / `does (kube-client/src/...)`).
                    words(before).chain(words(previous)).any(is_upstream_word)
                };
                if named_upstream {
                    continue;
                }
                let found = if ours {
                    self.root.join(path).exists()
                        || crate_root.as_ref().is_some_and(|c| c.join(path).exists())
                } else {
                    file_dir
                        .ancestors()
                        .take_while(|d| d.starts_with(&self.root))
                        .any(|d| d.join(path).exists())
                };
                if !found {
                    out.push((i + 1, path.to_string()));
                }
            }
            previous = prose;
        }
        out
    }
}

/// The repository's files, relative to `root`: what git tracks, else every file of the
/// checkout outside `target/` and hidden directories.
fn files(root: &Path) -> Vec<String> {
    let git = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z"])
        .output();
    if let Ok(out) = git {
        if out.status.success() && !out.stdout.is_empty() {
            return String::from_utf8_lossy(&out.stdout)
                .split('\0')
                .filter(|f| !f.is_empty())
                .map(str::to_string)
                .collect();
        }
    }
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                if name != "target" && !name.starts_with('.') || name == ".ci" {
                    stack.push(p);
                }
            } else {
                found.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    found
}

const PROSE: &[&str] = &["rs", "md", "yaml", "yml", "lua", "toml", "sh"];

#[test]
fn every_repository_path_named_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let all = files(root);
    let repo = Repo::new(root, &all);
    assert!(
        repo.top.contains("shared") && repo.top.contains("tests"),
        "the repository's files were not found under {}",
        root.display()
    );
    let mut bad = Vec::new();
    let mut read = 0;
    for f in &all {
        let ext = Path::new(f)
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default();
        // This file's samples name missing paths on purpose.
        if !PROSE.contains(&ext.as_str()) || f == "shared/tests/repo_paths.rs" {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root.join(f)) else {
            continue;
        };
        read += 1;
        for (line, path) in repo.missing(f, &text) {
            bad.push(format!("{f}:{line}: {path}"));
        }
    }
    assert!(read > 100, "only {read} files read");
    assert!(
        bad.is_empty(),
        "{} repository paths named that do not exist:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The scan flags what is missing, and only that, on a repository made for the test.
#[test]
fn the_scan_names_each_missing_path() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for f in [
        "Cargo.toml",
        "docs/design.md",
        "shared/Cargo.toml",
        "shared/src/lib.rs",
        "shared/src/delivery/testdata/cases.yaml",
        "shared/tests/fixtures/table.txt",
        "tests/fixtures/objects.yaml",
    ] {
        std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
        std::fs::write(root.join(f), "").unwrap();
    }
    let files: Vec<String> = [
        "docs/design.md",
        "shared/src/lib.rs",
        "shared/src/delivery/testdata/cases.yaml",
        "shared/tests/fixtures/table.txt",
        "tests/fixtures/objects.yaml",
        "examples/gates.yaml",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let repo = Repo::new(root, &files);
    let rust = "\
//! Architecture: docs/design.md; the layers in docs/layering.md.
//! The table of `testdata/cases.yaml` and of `testdata/gone.yaml`, and tests/fixtures/table.txt
//! (crate-relative) and tests/fixtures/objects.yaml (from the root).
/// argo-cd `util/lua/lua.go` and `util/lua/oslib_safe.yaml`, TrianaLab/pacto `docs/gitops.md`.
/// fluxcd/pkg
/// `runtime/cel/status_reader.yaml`, and Go's `fmt/print.go`.
/// https://example.com/docs/missing.md, `HTTP/1.1` and a word/with/slashes.yaml unquoted.
let s = \"docs/not-a-comment.md\"; // but this one is: shared/src/gone.rs
/// The plugin kubectl-pacto `testdata/nope.yaml`.
/// A path an unrelated word precedes is still ours: see argo-cd; docs/absent.md.
";
    let got = repo.missing("shared/src/delivery/mod.rs", rust);
    assert_eq!(
        got,
        [
            (1, "docs/layering.md".to_string()),
            (2, "testdata/gone.yaml".to_string()),
            (8, "shared/src/gone.rs".to_string()),
            (9, "testdata/nope.yaml".to_string()),
            (10, "docs/absent.md".to_string()),
        ]
    );
    // Markdown is read whole, code blocks included; a YAML file only in its comments.
    let md = "Run `kubectl pacto health -f tests/fixtures/objects.yaml`.\n\n    cat examples/none.yaml\n";
    assert_eq!(
        repo.missing("docs/design.md", md),
        [(3, "examples/none.yaml".to_string())]
    );
    let yaml = "# kept in docs/design.md and docs/gone.md\npath: docs/value-not-prose.md\n";
    assert_eq!(
        repo.missing("tests/fixtures/objects.yaml", yaml),
        [(1, "docs/gone.md".to_string())]
    );
}
