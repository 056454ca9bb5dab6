//! The README and the docs show real output: every ```console block's `$ kubectl pacto ...`
//! command (README.md and docs/*.md) is run from the repository root and must print exactly what
//! the block shows; the cluster examples (```text blocks) are run against the end-to-end tests'
//! fake clusters and must print exactly what they show too. No block shows a command that no test
//! runs.

use crate::common::*;

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
}

/// The documents whose examples are run: README.md, then every `docs/*.md`, by name.
fn documents() -> Vec<(String, String)> {
    let mut docs: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    docs.insert(0, "README.md".to_string());
    docs.into_iter()
        .map(|d| {
            let text = std::fs::read_to_string(repo().join(&d)).unwrap();
            (d, text)
        })
        .collect()
}

/// (command, shown output) of every fenced block of this language that starts with `$ `.
fn blocks(text: &str, lang: &str) -> Vec<(String, String)> {
    let fence = format!("```{lang}\n");
    text.split(&fence)
        .skip(1)
        .filter_map(|b| {
            let body = b.split("```").next()?;
            let (first, rest) = body.split_once('\n')?;
            Some((first.strip_prefix("$ ")?.to_string(), rest.to_string()))
        })
        .collect()
}

/// (language, first line) of every fenced block, whatever its language.
fn fences(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(lang) = line.strip_prefix("```") {
            let first = lines.next().unwrap_or_default().to_string();
            if first.starts_with("```") {
                continue;
            }
            out.push((lang.to_string(), first));
            for l in lines.by_ref() {
                if l.starts_with("```") {
                    break;
                }
            }
        }
    }
    out
}

/// The console examples that show a failing run, with their exit code; every other one exits 0.
const FAILING_EXAMPLES: &[(&str, i32)] = &[(
    "kubectl pacto health -f examples/objects --argocd-cm tests/fixtures/mistakes/typo-cm.yaml",
    1,
)];

/// A ```console block shows what a terminal shows: what the command writes to stderr (its notes
/// and warnings come before its output), then its stdout. A block whose last line is `...`
/// (indented or not) shows the beginning of the output, up to that line.
#[test]
fn console_blocks_show_what_the_commands_print() {
    let mut ran = Vec::new();
    for (doc, text) in documents() {
        for (command, output) in blocks(&text, "console") {
            if command.starts_with("argocd pacto ") {
                // Run by the argocd_pacto tests, which have that binary.
                continue;
            }
            let Some(args) = command.strip_prefix("kubectl pacto ") else {
                // docs/engines.md shows how its figures were measured (release builds, a
                // served fleet): recipes, not examples. The README shows only examples.
                assert_ne!(
                    doc, "README.md",
                    "README block `{command}` is not kubectl pacto"
                );
                continue;
            };
            let args: Vec<&str> = args.split_whitespace().collect();
            let r = run(&mut pacto(&args));
            let code = FAILING_EXAMPLES
                .iter()
                .find(|(c, _)| *c == command)
                .map_or(0, |(_, code)| *code);
            r.assert_code(code);
            let printed = format!("{}{}", r.stderr, r.stdout);
            let shown_start = output.strip_suffix('\n').and_then(|o| {
                let (head, last) = o.rsplit_once('\n')?;
                (last.trim() == "...").then(|| format!("{head}\n"))
            });
            match shown_start {
                Some(start) => assert!(
                    printed.starts_with(start.as_str()),
                    "{doc} block `{command}` shows\n{start}\nbut it prints\n{printed}"
                ),
                None => assert_eq!(printed, output, "{doc} block `{command}`"),
            }
            ran.push(command);
        }
    }
    assert!(
        ran.iter().any(|c| c.starts_with("kubectl pacto get")),
        "no get example"
    );
    for (command, _) in FAILING_EXAMPLES {
        assert!(ran.iter().any(|c| c == command), "no `{command}` block");
    }
}

/// The cluster examples: shown as ```text blocks, run here against the end-to-end tests' fake
/// clusters (`delivery` says which).
const CLUSTER_EXAMPLES: &[(&str, bool)] = &[
    ("kubectl pacto get -A", false),
    ("kubectl pacto explain pacto/gift-cards -n shop", false),
    ("kubectl pacto get stages -A", true),
    ("kubectl pacto explain stage/orders -n test", true),
];

/// The cluster examples (```text blocks) are what the commands print against the fake clusters
/// of the end-to-end tests, run here, not copied from a golden file.
#[test]
fn cluster_examples_show_what_the_commands_print() {
    let shown: Vec<(String, String, String)> = documents()
        .into_iter()
        .flat_map(|(doc, text)| {
            blocks(&text, "text")
                .into_iter()
                .map(move |(c, o)| (doc.clone(), c, o))
        })
        .collect();
    for (command, delivery) in CLUSTER_EXAMPLES {
        let (doc, _, output) = shown
            .iter()
            .find(|(_, c, _)| c == command)
            .unwrap_or_else(|| panic!("neither the README nor docs/ has a `{command}` block"));
        let args: Vec<&str> = command["kubectl pacto ".len()..].split(' ').collect();
        let printed = if *delivery {
            crate::delivery::readme_example(&args)
        } else {
            crate::live::readme_example(&args)
        };
        assert_eq!(output, &printed, "{doc} block `{command}`");
    }
}

/// Every `$ kubectl pacto` block of the README and the docs is run by a test: a ```console block
/// by `console_blocks_show_what_the_commands_print`, a ```text block by
/// `cluster_examples_show_what_the_commands_print` or, for the broken gates' report (exit 1),
/// `doctor::the_docs_show_the_broken_report`. The one block left untagged shows Argo CD's own
/// corpus, which needs an argo-cd checkout: the ignored `argo_cd` tests run it when given one.
#[test]
fn every_command_shown_is_run_by_a_test() {
    const BROKEN: &str = "kubectl pacto doctor -f tests/fixtures/broken";
    const CORPUS: &str = "kubectl pacto health test ~/src/argo-cd/resource_customizations";
    for (doc, text) in documents() {
        for (lang, first) in fences(&text) {
            let Some(command) = first.strip_prefix("$ ") else {
                continue;
            };
            if !command.starts_with("kubectl pacto ") {
                continue;
            }
            let run = match lang.as_str() {
                "console" => true,
                "text" => command == BROKEN || CLUSTER_EXAMPLES.iter().any(|(c, _)| *c == command),
                "" => command == CORPUS,
                _ => false,
            };
            assert!(
                run,
                "{doc}: the ```{lang} block `{command}` is run by no test"
            );
        }
    }
}

/// The Layout section of docs/layout.md names every top-level module of the library, and names
/// none that is gone.
#[test]
fn layout_names_every_library_module() {
    let text = std::fs::read_to_string(repo().join("docs/layout.md")).unwrap();
    let layout = text
        .split("## Layout")
        .nth(1)
        .expect("a Layout section")
        .split("\n## ")
        .next()
        .unwrap();
    let src = repo().join("shared/src");
    let mut modules: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                format!("shared/src/{name}/")
            } else {
                format!("shared/src/{name}")
            }
        })
        .filter(|m| m != "shared/src/lib.rs")
        .collect();
    modules.sort();
    for m in &modules {
        assert!(layout.contains(m.as_str()), "docs/layout.md lacks {m}");
    }
    for named in layout
        .split_whitespace()
        .filter(|w| w.starts_with("shared/src/"))
    {
        assert!(
            modules.iter().any(|m| m == named),
            "docs/layout.md names {named}, which does not exist"
        );
    }
}

/// CI runs the README's test command, and that command runs every test target even when one
/// fails (`--no-fail-fast`), so one failure never hides the rest.
#[test]
fn ci_runs_the_readme_test_command() {
    let text = readme();
    let (_, after) = text
        .split_once("Run the tests (the same command CI runs")
        .expect("README says how to run the tests");
    let command = after
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a sh block after it")
        .trim()
        .to_string();
    assert_eq!(command, "cargo test --workspace --no-fail-fast");
    let ci = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    let last = ci
        .lines()
        .rfind(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .unwrap_or_default();
    assert_eq!(last, command, ".ci/run's command");
}
