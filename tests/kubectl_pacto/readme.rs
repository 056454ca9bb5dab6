//! The README shows real output: every ```console block's `$ kubectl pacto ...` command is run
//! from the repository root and must print exactly what the block shows; the cluster examples
//! (```text blocks) are run against the end-to-end tests' fake clusters and must print exactly
//! what they show too.

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

/// The cluster examples (```text blocks) are what the commands print against the fake clusters
/// of the end-to-end tests, run here, not copied from a golden file.
#[test]
fn cluster_examples_show_what_the_commands_print() {
    let text = readme();
    let shown = blocks(&text, "text");
    for (command, delivery) in [
        ("kubectl pacto get -A", false),
        ("kubectl pacto explain pacto/gift-cards -n shop", false),
        ("kubectl pacto get stages -A", true),
        ("kubectl pacto explain stage/orders -n test", true),
    ] {
        let (_, output) = shown
            .iter()
            .find(|(c, _)| c == command)
            .unwrap_or_else(|| panic!("README has no `{command}` block"));
        let args: Vec<&str> = command["kubectl pacto ".len()..].split(' ').collect();
        let printed = if delivery {
            crate::delivery::readme_example(&args)
        } else {
            crate::live::readme_example(&args)
        };
        assert_eq!(output, &printed, "README block `{command}`");
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
