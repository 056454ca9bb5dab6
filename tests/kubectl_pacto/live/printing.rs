//! kubectl's printing flags on `get`: `-o jsonpath=`, `-o custom-columns=`, `--sort-by`,
//! `--no-headers`, `--show-labels`, `-o json|yaml` of a list and of one object, with and without
//! `--show-managed-fields`. The expected output is kubectl's own: kubectl v1.32 runs the same
//! flags against the same fake API server, and the two outputs must be equal byte for byte.

use super::*;

/// `kubectl ARGS` against the cluster.
fn kubectl_on(c: &Cluster, args: &[&str], input: Option<&str>) -> Run {
    let k = crate::kubectl_plugin::kubectl();
    let mut all = args.to_vec();
    all.extend(["--kubeconfig", s(&c.kubeconfig)]);
    let mut cmd = crate::kubectl_plugin::kubectl_cmd(
        &k,
        c.dir.path(),
        &[Path::new("/usr/bin"), Path::new("/bin")],
        &all,
    );
    run_with(&mut cmd, input, Duration::from_secs(60))
}

/// `kubectl get pactos.pacto.trianalab.io ARGS` against the cluster.
fn kubectl_get(c: &Cluster, args: &[&str]) -> Run {
    let mut all = vec!["get", "pactos.pacto.trianalab.io"];
    all.extend(args);
    kubectl_on(c, &all, None)
}

/// The Pacto fixtures of `shop` as `kubectl apply` leaves them, with their status written by a
/// server-side apply of the status subresource: each object then carries the managedFields the
/// API server records (kubectl-client-side-apply's, with the last-applied annotation, and
/// kubectl's status apply).
fn applied_shop() -> Cluster {
    let c = Cluster::new("shop");
    for name in [
        "03-compliant.yaml",
        "09-noncompliant-warning-before-error.yaml",
        "13-invalid-schema-violation.yaml",
        "14-unknown-registry-unreachable.yaml",
        "21-compliant-readiness-below-min-score.yaml",
    ] {
        let file = pacto_dir().join(name);
        kubectl_on(&c, &["apply", "-f", s(&file)], None).assert_code(0);
        let status = read_yaml(&file);
        kubectl_on(
            &c,
            &["apply", "--server-side", "--subresource=status", "-f", "-"],
            Some(&status.to_string()),
        )
        .assert_code(0);
    }
    c
}

/// Objects that carry managedFields, as kubectl apply leaves them: `-o json` and `-o yaml` of
/// the List and of one object, with and without `--show-managed-fields`, and a jsonpath that
/// reads them, print kubectl's bytes.
#[test]
fn json_and_yaml_of_applied_objects_print_what_kubectl_prints() {
    let c = applied_shop();
    let listed = kubectl_get(&c, &["orders", "-o", "json", "--show-managed-fields"]);
    listed.assert_code(0);
    let orders: Value = serde_json::from_str(&listed.stdout).unwrap();
    let managers: Vec<&str> = orders["metadata"]["managedFields"]
        .as_array()
        .map(|a| a.iter().filter_map(|e| e["manager"].as_str()).collect())
        .unwrap_or_default();
    // kube-apiserver keeps Apply entries before Update ones (`sortEncodedManagedFields`; the
    // conformance test pins the fake to it).
    assert_eq!(
        managers,
        ["kubectl", "kubectl-client-side-apply"],
        "{}",
        listed.stdout
    );
    let cases: &[&[&str]] = &[
        &["-o", "yaml"],
        &["-o", "yaml", "--show-managed-fields"],
        &["-o", "json"],
        &["-o", "json", "--show-managed-fields"],
        &["orders", "-o", "yaml"],
        &["orders", "-o", "yaml", "--show-managed-fields"],
        &["orders", "-o", "json"],
        &["orders", "-o", "json", "--show-managed-fields"],
        &[
            "-o",
            "jsonpath={.items[*].metadata.managedFields[*].manager}",
        ],
        &[
            "-o",
            "custom-columns=NAME:.metadata.name,MANAGER:.metadata.managedFields[0].manager",
        ],
    ];
    for args in cases {
        let want = kubectl_get(&c, args);
        want.assert_code(0);
        let mut ours = args.to_vec();
        ours.splice(0..0, ["get", "pactos"]);
        let got = c.run(&ours);
        got.assert_code(0);
        assert_eq!(got.stdout, want.stdout, "{args:?}");
    }
}

/// A Pacto of the `print` namespace, with the fields the printing table reads.
fn pacto(name: &str, labels: Value, spec: Value, status: Option<Value>) -> Value {
    let mut o = serde_json::json!({
        "apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
        "metadata": {"name": name, "namespace": "print", "labels": labels},
        "spec": spec,
    });
    if let Some(st) = status {
        o["status"] = st;
    }
    o
}

/// Five Pactos whose fields cover what the printers print: null, floats, booleans, an escape
/// sequence, lists, quantities, missing fields. The `--sort-by` keys have no ties (kubectl's
/// order among equal keys is that of Go's unstable sort).
fn printing_cluster() -> Cluster {
    use serde_json::json;
    let c = Cluster::new("print");
    c.server.insert(pacto(
        "alpha",
        json!({"app": "web", "tier": "1"}),
        json!({"weight": "500m", "rank": 3, "ratio": 1.5, "big": 1e21, "nothing": null,
               "flag": true, "esc": "a\u{1b}[1mb", "tags": ["x", "y"], "html": "<a&b>"}),
        Some(
            json!({"contractStatus": "Compliant", "summary": {"errorCount": 0},
                    "conditions": [{"type": "Ready", "status": "True"},
                                   {"type": "Synced", "status": "False"}]}),
        ),
    ));
    c.server.insert(pacto(
        "beta",
        json!({"app": "api"}),
        json!({"weight": "2", "rank": 1, "ratio": 0.25, "tags": []}),
        Some(
            json!({"contractStatus": "NonCompliant", "summary": {"errorCount": 2},
                    "conditions": [{"type": "Ready", "status": "False"}]}),
        ),
    ));
    c.server.insert(pacto(
        "gamma",
        json!({}),
        json!({"weight": "10", "rank": 2}),
        Some(json!({"contractStatus": "Unknown", "summary": {"errorCount": 1}})),
    ));
    c.server.insert(pacto(
        "delta",
        json!({"app": "db"}),
        json!({"weight": "1Ki", "rank": 10}),
        None,
    ));
    c.server.insert(pacto(
        "epsilon10",
        json!({"app": "web"}),
        json!({"weight": "9", "rank": 4, "flag": false}),
        Some(json!({"contractStatus": "Compliant", "summary": {"errorCount": 3}})),
    ));
    c
}

/// What a row of the table expects of both programs.
enum Want {
    /// Both exit 0 and print the same bytes.
    Same,
    /// Both fail (exit 1) and both say this on stderr (kubectl's words).
    Refused(&'static str),
}

/// The printing table: each row is run by kubectl v1.32 and by us against the same fake API
/// server and compared. kubectl runs each row twice, so a row whose output depends on Go's
/// random map order is reported as unfit for the table rather than compared.
#[test]
fn printing_flags_print_what_kubectl_prints() {
    use Want::*;
    let c = printing_cluster();
    let rows: &[(&[&str], Want)] = &[
        // jsonpath: what kubectl's reference page shows, and the corners of client-go.
        (&["-o", "jsonpath={.items[*].metadata.name}"], Same),
        (&["-o", "jsonpath={range .items[*]}{.metadata.name}{\"\\t\"}{.status.contractStatus}{\"\\n\"}{end}"], Same),
        (&["-o", "jsonpath={.items[?(@.status.contractStatus==\"Compliant\")].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[?(@.status.contractStatus!='Compliant')].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[?(@.status.summary.errorCount > 1)].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[?(@.spec.rank <= 2)].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[?(@.spec.flag)].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[?(@.spec.flag==false)].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[?()].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[?(@.spec.tags[0])].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[?(@.metadata.name[0])].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[0].status.conditions[*].type}"], Same),
        (&["-o", "jsonpath={.items[-1:].metadata.labels}"], Same),
        (&["-o", "jsonpath={.items[-2].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[1:3].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[::2].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[0:0].metadata.name}"], Same),
        (&["-o", "jsonpath={.items[0]['metadata.name', 'kind']}"], Same),
        (&["-o", "jsonpath={.items[*].metadata['name']}"], Same),
        (&["-o", "jsonpath={.items[0].spec.nothing}"], Same),
        (&["-o", "jsonpath={.items[0].spec.ratio} {.items[0].spec.big} {.items[0].spec.flag} {.items[0].spec.rank}"], Same),
        (&["-o", "jsonpath={.items[0].spec.tags} {.items[1].spec.tags} {.items[0].spec.html}"], Same),
        (&["-o", "jsonpath={.items[0].spec.esc}"], Same),
        (&["-o", "jsonpath={true} {false} {5} {-2} {1.5} {'single'} {\"\\u00e9\\x41\"}"], Same),
        (&["-o", "jsonpath=kind is {.kind}, {.items[0].metadata.name}}"], Same),
        (&["-o", "jsonpath={range .items[*]}{.metadata.name}-"], Same),
        (&["-o", "jsonpath={range .items[*]}{range .status.conditions[*]}{.type}={.status},{end};{end}"], Same),
        (&["-o", "jsonpath={range .items[*]}{end}"], Same),
        (&["-o", "jsonpath={range .nothing[*]}{.x}{end}after"], Same),
        (&["-o", "jsonpath={..contractStatus}"], Same),
        (&["-o", "jsonpath={.items[*].spec.weight.*}"], Same),
        (&["-o", "jsonpath={$.items[0].metadata.name} {@.kind}"], Same),
        (&["alpha", "-o", "jsonpath={}"], Same),
        (&["alpha", "-o", "jsonpath={.}"], Same),
        (&["alpha", "-o", "jsonpath={.metadata.name}"], Same),
        (&["alpha", "-o", "jsonpath={.metadata.labels.app}{\"\\n\"}"], Same),
        // jsonpath-as-json: each action's results as a JSON list, in a range once per item.
        (&["-o", "jsonpath-as-json={.items[*].metadata.name}"], Same),
        (&["-o", "jsonpath-as-json={range .items[*]}{.metadata.name}{end}"], Same),
        (&["-o", "jsonpath-as-json={.items[0].spec}"], Same),
        (&["-o", "jsonpath-as-json={.nothing}"], Same),
        (&["-o", "jsonpath-as-json={.items[0].spec.nothing}{\"x\"}"], Same),
        // Malformed templates: refused before the request, with client-go's words.
        (&["-o", "jsonpath={.items[0]"], Refused("unclosed action")),
        (&["-o", "jsonpath={.items[}"], Refused("unterminated array")),
        (&["-o", "jsonpath={.items[?(@.a)}"], Refused("unclosed array expect ]")),
        (&["-o", "jsonpath={.items[?(@.a==\"1)]}"], Refused("unterminated filter")),
        (&["-o", "jsonpath={.items[?(@.kind=~\"P\")]}"], Refused("unrecognized character in action: U+007E '~'")),
        (&["-o", "jsonpath={.items[0][\"kind\"]}"], Refused("invalid array index \"kind\"")),
        (&["-o", "jsonpath={....kind}"], Refused("invalid multiple recursive descent")),
        (&["-o", "jsonpath={.items[1:2:3:4]}"], Refused("invalid array index 1:2:3:4")),
        (&["-o", "jsonpath={.items[a]}"], Refused("invalid array index a")),
        (&["-o", "jsonpath={\"\\q\"}"], Refused("unquote string \"\\q\" error invalid syntax")),
        (&["-o", "jsonpath={\"open}"], Refused("unterminated quoted string")),
        (&["-o", "jsonpath={-}"], Refused("cannot parse number -")),
        (&["-o", "jsonpath={#}"], Refused("unrecognized character in action: U+0023 '#'")),
        (&["-o", "jsonpath="], Refused("template format specified but no template given")),
        // Templates that fail when they run: kubectl's first line.
        (&["-o", "jsonpath={.items[99]}"], Refused("Error executing template: array index out of bounds: index 99, length 5. Printing more information for debugging the template:")),
        (&["-o", "jsonpath={.items[0].metadata[0]}"], Refused("Error executing template: map[string]interface {} is not array or slice.")),
        (&["-o", "jsonpath={.items[1:0]}"], Refused("Error executing template: starting index 1 is greater than ending index 0.")),
        (&["-o", "jsonpath={.items[::0]}"], Refused("Error executing template: step must be > 0.")),
        (&["-o", "jsonpath={.items[0].kind}{end}"], Refused("Error executing template: not in range, nothing to end.")),
        (&["-o", "jsonpath={range .items[*]}{end}{end}"], Refused("Error executing template: not in range, nothing to end.")),
        (&["-o", "jsonpath={items}"], Refused("Error executing template: unrecognized identifier items.")),
        (&["-o", "jsonpath={.items[?(@.kind<>\"x\")]}"], Refused("Error executing template: unrecognized filter operator <>.")),
        (&["-o", "jsonpath={.items[?(@.spec.rank > 1.5)]}"], Refused("Error executing template: incompatible types for comparison.")),
        (&["-o", "jsonpath={.items[?(@.spec.flag > true)]}"], Refused("Error executing template: invalid type for comparison.")),
        (&["-o", "jsonpath={.items[1].spec[?(@.x)]}"], Refused("is not array or slice and cannot be filtered.")),
        // custom-columns: relaxed paths, Go's %v, <none>, kubectl's escape.
        (&["-o", "custom-columns=NAME:.metadata.name,VERDICT:.status.contractStatus,ERRORS:.status.summary.errorCount"], Same),
        (&["-o", "custom-columns=NAME:metadata.name,TYPES:{.status.conditions[*].type},S:{status.contractStatus}", "--no-headers"], Same),
        (&["-o", "custom-columns=NAME:.metadata.name,NIL:.spec.nothing,RATIO:.spec.ratio,BIG:.spec.big,FLAG:.spec.flag"], Same),
        (&["-o", "custom-columns=NAME:.metadata.name,LABELS:.metadata.labels,TAGS:.spec.tags,ESC:.spec.esc"], Same),
        (&["-o", "custom-columns=NAME:$.metadata.name,EMPTY:,DOT:.status.summary."], Same),
        (&["-o", "custom-columns=NAME"], Refused("unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>")),
        (&["-o", "custom-columns=NAME:.x}"], Refused("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'")),
        (&["-o", "custom-columns="], Refused("custom-columns format specified but no custom columns given")),
        // --sort-by: numbers by value, strings by bytes or as quantities.
        (&["-o", "name", "--sort-by", ".metadata.name"], Same),
        (&["-o", "name", "--sort-by", "{.spec.rank}"], Same),
        (&["-o", "name", "--sort-by", "spec.weight"], Same),
        (&["-o", "jsonpath={.items[*].metadata.name}", "--sort-by", "{.status.summary.errorCount}"], Same),
        (&["-o", "custom-columns=NAME:.metadata.name,RV:.metadata.resourceVersion", "--sort-by", "{.metadata.resourceVersion}"], Same),
        (&["-o", "name", "--sort-by", ".nothing"], Refused("couldn't find any field with path \"{.nothing}\" in the list of objects")),
        (&["-o", "name", "--sort-by", ".metadata.labels"], Refused("unsortable type: map[string]interface {}")),
        (&["-o", "name", "--sort-by", ".x}"], Refused("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'")),
        // --show-labels is for the table only.
        (&["-o", "name", "--show-labels"], Refused("--show-labels option cannot be used with name printer")),
        (&["-o", "json", "--show-labels"], Refused("--show-labels option cannot be used with json printer")),
        (&["-o", "jsonpath={.kind}", "--show-labels"], Refused("--show-labels option cannot be used with jsonpath={.kind} printer")),
        // -o name, json, yaml of a listing and of one object.
        (&["-o", "name"], Same),
        (&["alpha", "-o", "name"], Same),
        (&["-o", "json"], Same),
        (&["-o", "yaml"], Same),
        (&["alpha", "-o", "json"], Same),
        (&["alpha", "-o", "yaml"], Same),
        (&["-l", "app=web", "-o", "name"], Same),
        (&["-o", "tabel"], Refused("unable to match a printer suitable for the output format \"tabel\", allowed formats are: ")),
    ];
    assert!(rows.len() >= 60, "{} rows", rows.len());
    let mut failures = Vec::new();
    for (args, want) in rows {
        let k = kubectl_get(&c, args);
        let again = kubectl_get(&c, args);
        if (&k.code, &k.stdout) != (&again.code, &again.stdout) {
            failures.push(format!("{args:?}: kubectl prints differently at each run (Go's map order): unfit for the table"));
            continue;
        }
        let mut ours = args.to_vec();
        ours.splice(0..0, ["get", "pactos"]);
        let got = c.run(&ours);
        got.assert_no_panic();
        match want {
            Same => {
                if k.code != Some(0) {
                    failures.push(format!(
                        "{args:?}: kubectl exits {:?}: {}",
                        k.code, k.stderr
                    ));
                } else if got.code != Some(0) || got.stdout != k.stdout {
                    failures.push(format!(
                        "{args:?}:\n  kubectl: {:?}\n  ours (exit {:?}): {:?} {}",
                        k.stdout, got.code, got.stdout, got.stderr
                    ));
                }
            }
            Refused(words) => {
                if k.code == Some(0) || !k.stderr.contains(words) {
                    failures.push(format!(
                        "{args:?}: kubectl does not refuse with {words:?}: exit {:?}, {}",
                        k.code, k.stderr
                    ));
                }
                if got.code != Some(1) || !got.stderr.contains(words) || !got.stdout.is_empty() {
                    failures.push(format!(
                        "{args:?}: ours does not refuse with {words:?}: exit {:?}, {:?}, stderr {}",
                        got.code, got.stdout, got.stderr
                    ));
                }
                // kubectl's first line of a template that fails as it runs, exactly.
                if k.stderr.contains("Error executing template") {
                    let first = |t: &str| t.lines().next().unwrap_or_default().to_string();
                    if first(&k.stderr) != first(&got.stderr) {
                        failures.push(format!(
                            "{args:?}: first lines differ:\n  kubectl: {}\n  ours:    {}",
                            first(&k.stderr),
                            first(&got.stderr)
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn table_flags_no_headers_and_show_labels() {
    let c = shop();
    let full = c.run(&["get"]);
    full.assert_code(0);
    let bare = c.run(&["get", "--no-headers"]);
    bare.assert_code(0);
    assert!(!bare.stdout.contains("NAME"), "{}", bare.stdout);
    assert_eq!(bare.stdout.lines().count(), full.stdout.lines().count() - 1);
    let labelled = c.run(&["get", "--show-labels"]);
    labelled.assert_code(0);
    let header = labelled.stdout.lines().next().unwrap();
    assert!(header.ends_with("   LABELS"), "{header}");
    // kubectl's LABELS cells: key=value joined by commas, keys sorted, <none> when empty.
    let k = kubectl_get(&c, &["--show-labels", "-o", "wide"]);
    k.assert_code(0);
    for line in k.stdout.lines().skip(1) {
        let name = line.split_whitespace().next().unwrap();
        let want = line.split_whitespace().last().unwrap();
        let ours = labelled
            .stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap();
        assert_eq!(ours.split_whitespace().last().unwrap(), want, "{name}");
    }
}

#[test]
fn bad_printing_flags_are_refused_before_anything_is_read() {
    let c = shop();
    let r = c.run(&["get", "-o", "tabel"]);
    r.assert_code(1);
    assert!(
        r.stderr.starts_with(
            "error: unable to match a printer suitable for the output format \"tabel\""
        ),
        "{}",
        r.stderr
    );
    let r = c.run(&["get", "-o", "jsonpath={.items[0]"]);
    r.assert_code(1);
    assert!(r.stderr.contains("unclosed action"), "{}", r.stderr);
    let r = c.run(&["get", "-o", "custom-columns=NAME"]);
    r.assert_code(1);
    assert!(
        r.stderr.contains("expected <header>:<json-path-expr>"),
        "{}",
        r.stderr
    );
    assert!(c.server.requests().is_empty());
}

/// `-o jsonpath` prints object text as it is on a pipe (kubectl's bytes), escaped on a terminal.
#[cfg(unix)]
#[test]
fn jsonpath_output_is_escaped_on_a_terminal_only() {
    let c = Cluster::new("shop");
    c.server.insert(serde_json::json!({
        "apiVersion": "pacto.trianalab.io/v1alpha1", "kind": "Pacto",
        "metadata": {"name": "esc", "namespace": "shop"},
        "spec": {"x": "a\u{1b}]0;PWNED\u{7}b"}
    }));
    let piped = c.run(&["get", "pactos", "esc", "-o", "jsonpath={.spec.x}"]);
    piped.assert_code(0);
    assert_eq!(piped.stdout, "a\u{1b}]0;PWNED\u{7}b");
    let shown = super::get::on_a_terminal(&c, "get pactos esc -o jsonpath={.spec.x}", true);
    assert!(!shown.contains('\u{1b}'), "{shown:?}");
    assert!(shown.contains("a\\x1b]0;PWNED\\x07b"), "{shown:?}");
}
