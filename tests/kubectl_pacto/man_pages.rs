//! Man pages: `kubectl-pacto __man DIR` writes them; the checked-in `man/*.1` must be exactly
//! what the current command line generates (UPDATE_MAN=1 rewrites them).

use crate::common::*;
use std::collections::BTreeMap;
use std::path::Path;

const REGENERATE: &str = "cargo run -p kubectl-pacto --bin kubectl-pacto -- __man man";

fn pages(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) == Some("1") {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            out.insert(name, std::fs::read(&p).unwrap());
        }
    }
    out
}

fn generate(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let r = run(&mut pacto(&["__man", s(dir)]));
    r.assert_code(0).assert_no_panic();
    pages(dir)
}

#[test]
fn man_writes_a_page_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let got = generate(dir.path());
    for name in [
        "kubectl-pacto.1",
        "kubectl-pacto-health.1",
        "kubectl-pacto-health-test.1",
        "kubectl-pacto-completion.1",
    ] {
        let page = got
            .get(name)
            .unwrap_or_else(|| panic!("no {name}: {:?}", got.keys()));
        let text = String::from_utf8_lossy(page);
        assert!(text.contains(".TH "), "{name} is not a man page");
    }
    assert!(
        !got.keys().any(|k| k.contains("__")),
        "hidden commands got pages: {:?}",
        got.keys()
    );
}

#[test]
fn man_is_deterministic() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    assert_eq!(generate(a.path()), generate(b.path()));
}

#[test]
fn checked_in_man_pages_match_the_cli() {
    let checked_in_dir = repo().join("man");
    let tmp = tempfile::tempdir().unwrap();
    let fresh = generate(tmp.path());
    if std::env::var_os("UPDATE_MAN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(&checked_in_dir).unwrap();
        for name in pages(&checked_in_dir)
            .keys()
            .filter(|k| !fresh.contains_key(*k))
        {
            std::fs::remove_file(checked_in_dir.join(name)).unwrap();
        }
        for (name, bytes) in &fresh {
            std::fs::write(checked_in_dir.join(name), bytes).unwrap();
        }
        return;
    }
    let checked_in = if checked_in_dir.is_dir() {
        pages(&checked_in_dir)
    } else {
        BTreeMap::new()
    };
    let mut problems = Vec::new();
    for (name, bytes) in &fresh {
        match checked_in.get(name) {
            None => problems.push(format!("man/{name} is missing")),
            Some(old) if old != bytes => problems.push(format!("man/{name} is out of date")),
            Some(_) => {}
        }
    }
    for name in checked_in.keys().filter(|k| !fresh.contains_key(*k)) {
        problems.push(format!("man/{name} belongs to no command any more"));
    }
    assert!(
        problems.is_empty(),
        "the man pages drifted from the command line:\n  {}\nrun `{REGENERATE}` (or UPDATE_MAN=1 cargo test -p kubectl-pacto --test kubectl_pacto) and commit man/",
        problems.join("\n  ")
    );
}
