//! `kubectl pacto health -f ...`: verdicts, output formats, input forms and colour.
//!
//! Expected verdicts come from the Pacto GitOps gate mapping (the Pacto document "GitOps promotion
//! gates": Compliant/Reference → Healthy "contract satisfied", Warning → Healthy "contract
//! satisfied with warnings", NonCompliant → Degraded "contract violated: <code>: <message>" of the
//! first finding with severity error, Invalid → Degraded, anything else → Progressing "contract
//! verdict pending: <s>", no status → "waiting for the first contract evaluation", stale generation
//! → "contract not yet evaluated at this generation"), the CoderTemplateTest mapping ("Gate
//! template promotion with GitOps": Failed → Degraded, Succeeded+Ready → Healthy, message
//! "<reason>: <message>"), and Argo CD's built-in checks (gitops-engine `pkg/health/health_*.go` at
//! argo-cd 37ee0097).

use crate::common::*;
use serde_json::{json, Value};

const CM: &str = "examples/argocd-cm.yaml";

/// The ARGO verdicts of `examples/objects`, in input order: (namespace, kind, name, status, source,
/// message). The ConfigMap has no health check at all (gitops-engine `pkg/health/health.go`
/// `GetHealthCheckFunc` has none for it: the resource shows no health).
fn example_rows() -> Vec<[&'static str; 6]> {
    vec![
        ["shop", "Pacto", "orders", "Healthy", "custom", "contract satisfied"],
        [
            "shop",
            "Pacto",
            "payments",
            "Degraded",
            "custom",
            // The first finding is a warning; the headline is the first *error* finding.
            "contract violated: INTERFACE_ABSENT: interface http-api is not served on any port of service payments",
        ],
        ["shop", "Pacto", "catalog", "Healthy", "custom", "contract satisfied with warnings"],
        [
            "shop",
            "Pacto",
            "search",
            "Progressing",
            "custom",
            "contract not yet evaluated at this generation",
        ],
        ["shop", "Pacto", "billing", "Progressing", "custom", "contract verdict pending: Unknown"],
        [
            "shop",
            "Pacto",
            "ledger",
            "Progressing",
            "custom",
            "waiting for the first contract evaluation",
        ],
        [
            "coder",
            "CoderTemplateTest",
            "docker-v2",
            "Degraded",
            "custom",
            "DeadlineExceeded: workspace did not start within 900s",
        ],
        [
            "coder",
            "CoderTemplateTest",
            "docker-v3",
            "Healthy",
            "custom",
            "Succeeded: workspace built and stopped",
        ],
        [
            "shop",
            "Deployment",
            "orders",
            "Progressing",
            "builtin-go",
            "Waiting for rollout to finish: 2 out of 3 new replicas have been updated...",
        ],
    ]
}

const HEADER: [&str; 6] = ["NAMESPACE", "KIND", "NAME", "ARGO", "SOURCE", "MESSAGE"];

fn json_report(args: &[&str]) -> Value {
    let r = run(&mut pacto(args));
    r.assert_code(0).assert_no_panic();
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", r.stdout))
}

#[test]
fn examples_table_has_the_gate_verdicts() {
    let r = run(&mut pacto(&[
        "health",
        "-f",
        "examples/objects",
        "--argocd-cm",
        CM,
    ]));
    r.assert_code(0).assert_no_panic();
    // The no-health row's SOURCE cell is the tool's own word; read it from the report so the
    // column widths can be computed.
    let report = json_report(&[
        "health",
        "-f",
        "examples/objects",
        "--argocd-cm",
        CM,
        "-o",
        "json",
    ]);
    let none_source = report["items"][9]["argo"]["source"]
        .as_str()
        .unwrap_or("")
        .to_string();

    let mut rows: Vec<Vec<&str>> = vec![HEADER.to_vec()];
    rows.extend(example_rows().iter().map(|r| r.to_vec()));
    // kubectl prints <none> for a value that is absent.
    rows.push(vec![
        "shop",
        "ConfigMap",
        "orders-config",
        "<none>",
        &none_source,
        "",
    ]);
    let want = kubectl_table(&rows);
    let want: Vec<&str> = want.lines().collect();
    let got: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(got.len(), want.len(), "rows:\n{}", r.stdout);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if i == want.len() - 1 {
            // The ConfigMap row: everything up to its (free) explanation is fixed.
            assert!(g.starts_with(w), "row {i}:\n got: {g}\nwant: {w}...");
        } else {
            assert_eq!(g, w, "row {i}");
        }
    }
    assert!(r.stdout.ends_with('\n'));
    assert_eq!(r.stderr, "");
}

#[test]
fn json_report_has_the_design_shape_in_input_order() {
    let v = json_report(&[
        "health",
        "-f",
        "examples/objects",
        "--argocd-cm",
        CM,
        "-o",
        "json",
    ]);
    assert_eq!(v["kind"], "HealthReport");
    let items = v["items"].as_array().expect("items is a list");
    assert_eq!(items.len(), 10);
    let api = |kind: &str| match kind {
        "Pacto" => "pacto.trianalab.io/v1alpha1",
        "CoderTemplateTest" => "coder.com/v1alpha1",
        "Deployment" => "apps/v1",
        _ => "v1",
    };
    for (item, [ns, kind, name, status, source, message]) in items.iter().zip(example_rows()) {
        assert_eq!(
            item["ref"],
            json!({"apiVersion": api(kind), "kind": kind, "namespace": ns, "name": name})
        );
        assert_eq!(item["argo"]["status"], status, "{item}");
        assert_eq!(item["argo"]["message"], message, "{item}");
        assert_eq!(item["argo"]["source"], source, "{item}");
        assert_eq!(item["flux"], Value::Null, "flux was not asked for: {item}");
    }
    let cm = &items[9];
    assert_eq!(
        cm["ref"],
        json!({"apiVersion": "v1", "kind": "ConfigMap", "namespace": "shop", "name": "orders-config"})
    );
    assert_eq!(
        cm["argo"]["status"],
        Value::Null,
        "a ConfigMap has no health: {cm}"
    );
    assert_eq!(cm["flux"], Value::Null);
}

#[test]
fn yaml_report_parses_back_to_the_json_report() {
    let args = ["health", "-f", "examples/objects", "--argocd-cm", CM];
    let json = json_report(&[&args[..], &["-o", "json"]].concat());
    let r = run(&mut pacto(&[&args[..], &["-o", "yaml"]].concat()));
    r.assert_code(0).assert_no_panic();
    let yaml: Value = serde_saphyr::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("not YAML ({e}):\n{}", r.stdout));
    assert_eq!(yaml, json);
}

#[test]
fn reads_objects_from_stdin() {
    let text = std::fs::read_to_string(fixture("objects/pacto-compliant.yaml")).unwrap();
    let r = run_with(
        &mut pacto(&["health", "-f", "-", "--argocd-cm", CM]),
        Some(&text),
        DEADLINE,
    );
    r.assert_code(0).assert_no_panic();
    assert_eq!(
        r.stdout,
        kubectl_table(&[
            HEADER.to_vec(),
            vec![
                "stock",
                "Pacto",
                "inventory",
                "Healthy",
                "custom",
                "contract satisfied"
            ],
        ])
    );
}

#[test]
fn malformed_stdin_is_an_error_naming_stdin() {
    let r = run_with(
        &mut pacto(&["health", "-f", "-"]),
        Some("kind: ConfigMap\nmetadata: {name: [\n"),
        DEADLINE,
    );
    r.assert_code(1).assert_no_panic();
    assert!(r.stderr.starts_with("error: "), "{}", r.stderr);
    assert!(r.stderr.to_lowercase().contains("stdin"), "{}", r.stderr);
    assert_eq!(r.stdout, "");
}

#[test]
fn walks_a_directory_recursively_in_path_order() {
    // Like kubectl -R: every *.yaml, *.yml and *.json below the directory, in lexical path
    // order; other files are skipped.
    let dir = fixture("objects/tree");
    let r = run(&mut pacto(&["health", "-f", s(&dir), "--argocd-cm", CM]));
    r.assert_code(0).assert_no_panic();
    assert_eq!(
        r.stdout,
        kubectl_table(&[
            HEADER.to_vec(),
            vec![
                "tree",
                "Pacto",
                "alpha",
                "Healthy",
                "custom",
                "contract satisfied"
            ],
            vec![
                "tree",
                "Pacto",
                "bravo",
                "Degraded",
                "custom",
                "contract violated"
            ],
            vec![
                "tree",
                "Pacto",
                "charlie",
                "Healthy",
                "custom",
                "contract satisfied"
            ],
            vec![
                "tree",
                "Pacto",
                "delta",
                "Degraded",
                "custom",
                "contract is invalid and could not be evaluated"
            ],
        ])
    );
}

#[test]
fn expands_a_list_and_keeps_the_order_of_the_files_given() {
    let list = fixture("objects/list.yaml");
    let single = fixture("objects/pacto-compliant.yaml");
    let r = run(&mut pacto(&[
        "health",
        "-f",
        s(&list),
        "-f",
        s(&single),
        "--argocd-cm",
        CM,
        "-o",
        "json",
    ]));
    r.assert_code(0).assert_no_panic();
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let got: Vec<(String, String, String)> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["ref"]["name"].as_str().unwrap_or("?").to_string(),
                i["argo"]["status"].as_str().unwrap_or("?").to_string(),
                i["argo"]["message"].as_str().unwrap_or("?").to_string(),
            )
        })
        .collect();
    let want = [
        (
            "queue",
            "Progressing",
            "contract verdict pending: NotEvaluated",
        ),
        // gitops-engine PVC check: Bound → Healthy, Pending → Progressing, no message.
        ("data", "Healthy", ""),
        ("scratch", "Progressing", ""),
        ("inventory", "Healthy", "contract satisfied"),
    ];
    let want: Vec<(String, String, String)> = want
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn deletion_short_circuits_before_the_script() {
    // gitops-engine GetResourceHealth: deletionTimestamp (without Argo's hook finalizer) →
    // Progressing / "Pending deletion"; Lua does not run (`pkg/health/health.go`).
    let v = json_report(&[
        "health",
        "-f",
        s(&fixture("objects/pacto-deleting.yaml")),
        "--argocd-cm",
        CM,
        "-o",
        "json",
    ]);
    assert_eq!(v["items"][0]["argo"]["status"], "Progressing");
    assert_eq!(v["items"][0]["argo"]["message"], "Pending deletion");
}

#[test]
fn builtin_deployment_check_without_any_argocd_cm() {
    let v = json_report(&[
        "health",
        "-f",
        s(&fixture("objects/deployment-rolling.yaml")),
        "-o",
        "json",
    ]);
    assert_eq!(v["items"][0]["argo"]["status"], "Progressing");
    assert_eq!(
        v["items"][0]["argo"]["message"],
        "Waiting for rollout to finish: 1 out of 4 new replicas have been updated..."
    );
    assert_eq!(v["items"][0]["argo"]["source"], "builtin-go");
}

#[test]
fn a_pacto_without_a_customization_has_no_health() {
    // Argo has no built-in check for Pacto: without the argocd-cm key it is invisible ("GitOps
    // promotion gates", "Argo CD": "not unhealthy to Argo but invisible").
    let v = json_report(&[
        "health",
        "-f",
        s(&fixture("objects/pacto-compliant.yaml")),
        "-o",
        "json",
    ]);
    assert_eq!(v["items"][0]["argo"]["status"], Value::Null, "{v}");
}

// ---- colour -------------------------------------------------------------------------------

const ESC: char = '\u{1b}';

#[test]
fn no_colour_when_stdout_is_not_a_terminal() {
    // FORCE_COLOR and friends are removed by `pacto()`; stdout is a pipe here.
    let r = run(
        pacto(&["health", "-f", "examples/objects", "--argocd-cm", CM])
            .env("TERM", "xterm-256color"),
    );
    r.assert_code(0);
    assert!(
        !r.stdout.contains(ESC),
        "escape codes on a pipe:\n{:?}",
        r.stdout
    );
    assert!(!r.stderr.contains(ESC));
}

#[test]
fn no_colour_with_no_color_even_when_not_a_terminal() {
    let r =
        run(pacto(&["health", "-f", "examples/objects", "--argocd-cm", CM]).env("NO_COLOR", "1"));
    r.assert_code(0);
    assert!(!r.stdout.contains(ESC));
}

/// Runs `kubectl-pacto ARGS` on a pseudo-terminal with util-linux `script`, returning what the
/// terminal showed. A missing `script` fails the test.
fn on_a_terminal(args: &str, env: &[(&str, &str)]) -> String {
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let script =
        script.expect("util-linux `script` is not installed: the terminal colour tests need it");
    let mut c = std::process::Command::new(script);
    c.args(["-qec", &format!("'{PACTO}' {args}"), "/dev/null"])
        .current_dir(repo())
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env("TERM", "xterm-256color");
    for (k, v) in env {
        c.env(k, v);
    }
    let r = run(&mut c);
    r.assert_code(0);
    r.stdout
}

#[test]
fn colour_on_a_terminal_but_not_with_no_color_or_dumb_terminal_or_json() {
    let args = format!("health -f examples/objects --argocd-cm {CM}");
    let tty = on_a_terminal(&args, &[]);
    assert!(tty.contains(ESC), "no colour on a terminal:\n{tty}");
    assert!(tty.contains("Healthy") && tty.contains("Degraded"));

    let no_color = on_a_terminal(&args, &[("NO_COLOR", "1")]);
    assert!(!no_color.contains(ESC), "NO_COLOR ignored:\n{no_color:?}");
    assert!(no_color.contains("Healthy"));

    let dumb = on_a_terminal(&args, &[("TERM", "dumb")]);
    assert!(!dumb.contains(ESC), "TERM=dumb ignored:\n{dumb:?}");

    let json = on_a_terminal(&format!("{args} -o json"), &[]);
    assert!(!json.contains(ESC), "-o json coloured:\n{json:?}");
    let yaml = on_a_terminal(&format!("{args} -o yaml"), &[]);
    assert!(!yaml.contains(ESC), "-o yaml coloured:\n{yaml:?}");
}

#[test]
fn closed_stdout_is_not_a_panic() {
    // `kubectl pacto health ... | head -1`: the reader goes away early.
    let mut child = pacto(&["health", "-f", "examples/objects", "--argocd-cm", CM])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A key for a kind the input does not hold is not worth a warning on every run; a key one
/// letter or case away from an object's group/Kind is (argo-cd #14043), naming the key to use.
#[test]
fn only_a_mistyped_health_key_is_warned_about() {
    let pacto = fixture("pacto/03-compliant.yaml");
    // `command -f the-pacto --argocd-cm cm`, which must exit 0.
    let judged = |command: &str, cm: &str| {
        let r = run(&mut crate::common::pacto(&[
            command,
            "-f",
            s(&pacto),
            "--argocd-cm",
            cm,
        ]));
        r.assert_code(0);
        r
    };
    let warnings = |stderr: &str| -> Vec<String> {
        stderr
            .lines()
            .filter(|l| l.starts_with("warning: "))
            .map(str::to_string)
            .collect()
    };
    let r = judged("health", "examples/argocd-cm.yaml");
    assert_eq!(r.stderr, "");
    let dir = tempfile::tempdir().unwrap();
    let cm = std::fs::read_to_string(repo().join("examples/argocd-cm.yaml"))
        .unwrap()
        .replace("pacto.trianalab.io_Pacto", "pacto.trianalab.io_pacto");
    let typo = dir.path().join("cm.yaml");
    std::fs::write(&typo, cm).unwrap();
    let r = judged("health", s(&typo));
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("warning: the health customization for \"pacto.trianalab.io/pacto\""),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("key it resource.customizations.health.pacto.trianalab.io_Pacto"),
        "{}",
        r.stderr
    );
    // `get -f` judges the Pactos with the same argocd-cm: the same warning, once.
    let r = judged("get", s(&typo));
    assert_eq!(
        warnings(&r.stderr),
        warnings(&judged("health", s(&typo)).stderr)
    );
    assert!(warnings(&judged("get", "examples/argocd-cm.yaml").stderr).is_empty());
}

/// `--eval-timeout` and `--eval-memory` bound each script and expression; past them the object
/// is Unknown with a message naming the bound (Argo CD's `context deadline exceeded` for Lua).
#[test]
fn eval_bounds_are_flags() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("w.yaml");
    std::fs::write(
        &obj,
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\nstatus: {phase: Ready}\n",
    )
    .unwrap();
    let cm = crate::common::write_argocd_cm(
        dir.path(),
        &[(
            "resource.customizations.health.example.com_Widget",
            "while true do end",
        )],
    );
    let r = run(&mut crate::common::pacto(&[
        "health",
        "-f",
        s(&obj),
        "--argocd-cm",
        s(&cm),
        "--eval-timeout",
        "200ms",
        "-o",
        "json",
    ]));
    r.assert_code(0);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let argo = &doc["items"][0]["argo"];
    assert_eq!(argo["status"], "Unknown");
    assert!(
        argo["message"]
            .as_str()
            .unwrap()
            .ends_with("context deadline exceeded"),
        "{argo}"
    );
    let k = dir.path().join("k.yaml");
    std::fs::write(
        &k,
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: k, namespace: flux-system}\n\
         spec:\n  wait: true\n  healthCheckExprs:\n  - apiVersion: example.com/v1\n    kind: Widget\n    \
         current: \"status.phase.replace('R', 'RRRRRRRRRR').replace('R', 'RRRRRRRRRR').replace('R', 'RRRRRRRRRR') != ''\"\n",
    )
    .unwrap();
    let flux = |memory: &str| {
        let r = run(&mut crate::common::pacto(&[
            "health",
            "-f",
            s(&obj),
            "--kustomization",
            s(&k),
            "--eval-memory",
            memory,
            "-o",
            "json",
        ]));
        r.assert_code(0);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        doc["items"][0]["flux"].clone()
    };
    // 1,000 bytes at the last replace: within 1Mi, past 500 bytes.
    assert_eq!(flux("1Mi")["status"], "Current");
    let small = flux("500");
    assert_eq!(small["status"], "Unknown");
    assert!(
        small["error"]
            .as_str()
            .unwrap()
            .contains("kubectl-pacto's bound"),
        "{small}"
    );
}
