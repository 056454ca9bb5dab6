//! The README shows real output: every ```console block's `$ kubectl pacto ...` command is run
//! from the repository root and must print exactly what the block shows; the cluster examples
//! (```text blocks) must be the golden outputs of the end-to-end tests that produce them.

use crate::common::*;

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
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

#[test]
fn console_blocks_show_what_the_commands_print() {
    let text = readme();
    let shown = blocks(&text, "console");
    assert!(
        shown
            .iter()
            .any(|(c, _)| c.starts_with("kubectl pacto get")),
        "no get example"
    );
    for (command, output) in shown {
        let args: Vec<&str> = command
            .strip_prefix("kubectl pacto ")
            .unwrap_or_else(|| panic!("{command}"))
            .split_whitespace()
            .collect();
        let r = run(&mut pacto(&args));
        r.assert_code(0);
        assert_eq!(r.stdout, output, "README block `{command}`");
    }
}

#[test]
fn cluster_examples_are_the_golden_outputs_of_the_tests() {
    let text = readme();
    let shown = blocks(&text, "text");
    for (command, golden) in [
        (
            "kubectl pacto get -A",
            "pacto/golden/get/all-namespaces.txt",
        ),
        (
            "kubectl pacto explain pacto/gift-cards -n shop",
            "pacto/golden/explain-live/gift-cards.txt",
        ),
        (
            "kubectl pacto get stages -A",
            "delivery/golden/get/all-namespaces.txt",
        ),
        (
            "kubectl pacto explain stage/orders -n test",
            "delivery/golden/explain/test-orders.txt",
        ),
    ] {
        let want = std::fs::read_to_string(fixture(golden)).unwrap();
        let (_, output) = shown
            .iter()
            .find(|(c, _)| c == command)
            .unwrap_or_else(|| panic!("README has no `{command}` block"));
        assert_eq!(output, &want, "README block `{command}` vs {golden}");
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
