//! `kubectl pacto health test DIR`: health_test.yaml suites in argo-cd's resource_customizations
//! layout (argo-cd `util/lua/health_test.go` `TestLuaHealthScript`), ending with "N passed, M
//! failed"; exit 1 on any failure.

use crate::common::*;
use std::path::Path;

#[test]
fn example_suites_all_pass() {
    let r = run(&mut pacto(&["health", "test", "examples/gates"]));
    r.assert_code(0).assert_no_panic();
    assert_eq!(
        r.stdout.lines().last(),
        Some("30 passed, 0 failed"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("FAIL"), "{}", r.stdout);
}

/// A suite of three cases for a made-up kind; the second case expects the wrong status.
fn write_suite(root: &Path) -> std::path::PathBuf {
    let dir = root.join("example.com/Widget");
    std::fs::create_dir_all(dir.join("testdata")).unwrap();
    std::fs::write(
        dir.join("health.lua"),
        "local hs = {status = \"Progressing\", message = \"waiting\"}\n\
         if obj.status ~= nil and obj.status.ready == true then\n\
           hs.status = \"Healthy\"\n\
           hs.message = \"ready\"\n\
         end\n\
         return hs\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("testdata/ready.yaml"),
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nstatus: {ready: true}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("testdata/not-ready.yaml"),
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nstatus: {ready: false}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("health_test.yaml"),
        "tests:\n\
         - healthStatus: {status: Healthy, message: ready}\n\
         \x20 inputPath: testdata/ready.yaml\n\
         - healthStatus: {status: Degraded, message: broken}\n\
         \x20 inputPath: testdata/not-ready.yaml\n\
         - healthStatus: {status: Progressing, message: waiting}\n\
         \x20 inputPath: testdata/not-ready.yaml\n",
    )
    .unwrap();
    dir
}

#[test]
fn a_wrong_expectation_fails_with_expected_and_got() {
    let root = tempfile::tempdir().unwrap();
    write_suite(root.path());
    let r = run(&mut pacto(&["health", "test", s(root.path())]));
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stdout.lines().last(),
        Some("2 passed, 1 failed"),
        "{}",
        r.stdout
    );
    let fail = r
        .stdout
        .lines()
        .position(|l| l.starts_with("FAIL"))
        .unwrap_or_else(|| panic!("no FAIL line:\n{}", r.stdout));
    let block: Vec<&str> = r.stdout.lines().skip(fail).take(3).collect();
    assert!(block[0].contains("not-ready.yaml"), "{block:?}");
    assert!(
        block[1].contains("expected") && block[1].contains("Degraded"),
        "{block:?}"
    );
    assert!(block[1].contains("broken"), "{block:?}");
    assert!(
        block[2].contains("got") && block[2].contains("Progressing"),
        "{block:?}"
    );
    assert!(block[2].contains("waiting"), "{block:?}");
    assert_eq!(r.stdout.matches("FAIL").count(), 1, "{}", r.stdout);
}

/// `-o junit` and `-o json` carry the same verdicts as the report, and the same exit code.
/// The XML is checked well-formed by Python's own parser (the machine's python3).
#[test]
fn ci_formats_junit_and_json() {
    let root = tempfile::tempdir().unwrap();
    write_suite(root.path());
    std::fs::write(
        root.path().join("example.com/Widget/testdata/ready.yaml"),
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: \"w<1>&\"}\nstatus: {ready: true}\n",
    )
    .unwrap();
    let j = run(&mut pacto(&[
        "health",
        "test",
        s(root.path()),
        "-o",
        "json",
    ]));
    j.assert_code(1).assert_no_panic();
    let doc: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(doc["kind"], "HealthTestReport");
    assert_eq!(
        (doc["passed"].as_u64(), doc["failed"].as_u64()),
        (Some(2), Some(1))
    );
    let failed: Vec<&serde_json::Value> = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] == false)
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["expected"]["status"], "Degraded");
    assert_eq!(failed[0]["got"]["status"], "Progressing");
    assert_eq!(failed[0]["got"]["message"], "waiting");

    // The counts of the text report of the same run.
    let text = run(&mut pacto(&[
        "health",
        "test",
        s(root.path()),
        "examples/flux",
    ]));
    let last = text.stdout.lines().last().unwrap().to_string();
    let (p, f) = last.split_once(" passed, ").unwrap();
    let total: usize =
        p.parse::<usize>().unwrap() + f.trim_end_matches(" failed").parse::<usize>().unwrap();
    let x = run(&mut pacto(&[
        "health",
        "test",
        s(root.path()),
        "examples/flux",
        "-o",
        "junit",
    ]));
    x.assert_code(1).assert_no_panic();
    assert!(x.stdout.starts_with(&format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kubectl pacto health test\" tests=\"{total}\" failures=\"1\" errors=\"0\">")), "{}", x.stdout);
    assert!(
        x.stdout
            .contains("<testsuite name=\"argo\" tests=\"3\" failures=\"1\" errors=\"0\">"),
        "{}",
        x.stdout
    );
    assert!(
        x.stdout.contains(&format!(
            "<testsuite name=\"flux\" tests=\"{}\" failures=\"0\" errors=\"0\">",
            total - 3
        )),
        "{}",
        x.stdout
    );
    assert!(x.stdout.contains("<failure message=\"expected Degraded &quot;broken&quot;, got Progressing &quot;waiting&quot;\">"), "{}", x.stdout);
    let py = std::process::Command::new("python3")
        .args(["-c", "import sys, xml.dom.minidom as m; d = m.parseString(sys.stdin.buffer.read()); print(len(d.getElementsByTagName('testcase')))"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 checks the XML");
    use std::io::Write;
    py.stdin
        .as_ref()
        .unwrap()
        .write_all(x.stdout.as_bytes())
        .unwrap();
    let out = py.wait_with_output().unwrap();
    assert!(out.status.success(), "not well-formed XML:\n{}", x.stdout);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        total.to_string()
    );
}

#[test]
fn the_suite_directory_itself_can_be_given() {
    let root = tempfile::tempdir().unwrap();
    let dir = write_suite(root.path());
    let r = run(&mut pacto(&["health", "test", s(&dir)]));
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stdout.lines().last(),
        Some("2 passed, 1 failed"),
        "{}",
        r.stdout
    );
}

/// argo-cd `util/lua/health_test.go` `TestLuaHealthScript` finds the script with
/// `vm.GetHealthScript(obj)`, by the input object's own group and kind: a suite in a directory
/// named for another kind finds no script there and fails, whichever root is given.
#[test]
fn a_suite_in_a_directory_for_another_kind_fails() {
    let root = tempfile::tempdir().unwrap();
    let dir = write_suite(root.path());
    let wrong = root.path().join("example.org/Widget");
    std::fs::create_dir_all(wrong.parent().unwrap()).unwrap();
    std::fs::rename(&dir, &wrong).unwrap();
    for given in [root.path().to_path_buf(), wrong.clone()] {
        let r = run(&mut pacto(&["health", "test", s(&given)]));
        r.assert_code(1).assert_no_panic();
        assert_eq!(
            r.stdout.lines().last(),
            Some("0 passed, 3 failed"),
            "{}",
            r.stdout
        );
        assert!(
            r.stdout.contains("no health script for example.com/Widget"),
            "{}",
            r.stdout
        );
    }
}

#[test]
fn a_directory_without_suites_is_an_error() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("health.lua"), "return {}").unwrap();
    let r = run(&mut pacto(&["health", "test", s(root.path())]));
    r.assert_code(1).assert_no_panic();
    assert!(r.stderr.starts_with("error: "), "{}", r.stderr);
    assert!(r.stderr.contains(s(root.path())), "{}", r.stderr);
}

#[test]
fn a_missing_directory_is_an_error() {
    let root = tempfile::tempdir().unwrap();
    let missing = root.path().join("nope");
    let r = run(&mut pacto(&["health", "test", s(&missing)]));
    r.assert_code(1).assert_no_panic();
    assert!(r.stderr.starts_with("error: "), "{}", r.stderr);
    assert!(r.stderr.contains(s(&missing)), "{}", r.stderr);
}

/// examples/argocd-cm.yaml carries copies of the example gates' health.lua files; they must stay
/// byte-equal, so that the suites test what the ConfigMap installs.
#[test]
fn the_argocd_cm_example_holds_the_tested_scripts() {
    let root = crate::common::repo().join("examples");
    let cm_text = std::fs::read_to_string(root.join("argocd-cm.yaml")).unwrap();
    let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(&cm_text).unwrap();
    let data = &docs[0]["data"];
    for (key, file) in [
        (
            "resource.customizations.health.pacto.trianalab.io_Pacto",
            "gates/pacto.trianalab.io/Pacto/health.lua",
        ),
        (
            "resource.customizations.health.coder.com_CoderTemplateTest",
            "gates/coder.com/CoderTemplateTest/health.lua",
        ),
    ] {
        let script = std::fs::read_to_string(root.join(file)).unwrap();
        assert_eq!(
            data[key].as_str(),
            Some(script.as_str()),
            "{key} differs from {file}"
        );
    }
}

/// Argo CD's own health corpus (argo-cd `resource_customizations/`: every `health.lua` with its
/// `health_test.yaml`), the conformance bar of the Lua engine: every case passes. Opt-in, as the
/// corpus is not part of this repository: run with
/// `ARGO_CD_RESOURCE_CUSTOMIZATIONS=<argo-cd>/resource_customizations cargo test -p
/// kubectl-pacto --test kubectl_pacto -- --ignored argo_cd_corpus`.
#[test]
#[ignore = "needs an argo-cd checkout: set ARGO_CD_RESOURCE_CUSTOMIZATIONS and pass --ignored"]
fn argo_cd_corpus_passes_whole() {
    let root = std::env::var("ARGO_CD_RESOURCE_CUSTOMIZATIONS").expect(
        "ARGO_CD_RESOURCE_CUSTOMIZATIONS must name argo-cd's resource_customizations directory",
    );
    let r = run(&mut pacto(&["health", "test", &root]));
    r.assert_no_panic();
    let last = r.stdout.lines().last().unwrap_or_default().to_string();
    let (passed, failed) = last
        .split_once(" passed, ")
        .and_then(|(p, f)| {
            Some((
                p.parse::<u32>().ok()?,
                f.strip_suffix(" failed")?.to_string(),
            ))
        })
        .unwrap_or_else(|| panic!("no summary line: {last:?}"));
    assert_eq!(failed, "0", "{}", r.stdout);
    // argo-cd had 1,123 cases when this was written; the corpus only grows.
    assert!(passed >= 1123, "only {passed} cases: {}", r.stdout);
    r.assert_code(0);
}
