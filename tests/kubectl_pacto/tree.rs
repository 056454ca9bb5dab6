//! `kubectl pacto tree` and `explain --tree`: a Kustomization or an Application with the objects
//! below it, from files and from the cluster. Expected values: kustomize-controller
//! `checkHealth` and fluxcd/pkg `ssa/manager_wait.go` (`health check failed after <d>: timeout
//! waiting for: [Kind/ns/name status: 'InProgress']`), fluxcd/cli-utils kstatus (`Ready=False`
//! reads InProgress with the condition's reason and message; an object without conditions is
//! Current), the `healthCheckExprs` contract (`failed` true reads Failed), argo-cd
//! `controller/health.go` `setApplicationHealth` (the worst resource health, `Caused by
//! group/Kind:namespace/name`) and `pkg/health` (a child Application's health is its own
//! `status.health.status`), at the commits docs/upstream.md names.

use crate::common::{cell, pacto, run, s};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A Kustomization of `flux-system` with `spec` and `status` (flow YAML mappings) and its
/// inventory of `ids` (`<namespace>_<name>_<group>_<kind>`, with their versions).
fn kustomization(name: &str, spec: &str, status: &str, ids: &[(String, &str)]) -> String {
    let mut entries = String::new();
    for (id, v) in ids {
        writeln!(entries, "      - {{id: {id}, v: {v}}}").unwrap();
    }
    format!(
        "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n\
         metadata: {{name: {name}, namespace: flux-system, generation: 2}}\nspec: {spec}\n\
         status:\n  {status}\n  inventory:\n    entries:\n{entries}"
    )
}

/// The acceptance case: `apps` holds 24 ConfigMaps and the Kustomization `infra`, which holds 23
/// ConfigMaps and the Pacto `billing` (NonCompliant): 50 objects in all, two Kustomizations
/// nested. `infra` is not Ready (its health check failed), so `apps`'s wait reads it
/// InProgress and would time out on it; below `infra`, its own wait fails early on `billing`.
fn nested_files(dir: &Path) -> PathBuf {
    let mut text = String::new();
    let mut apps: Vec<(String, &str)> = (0..24)
        .map(|i| (format!("shop_cm{i:02}__ConfigMap"), "v1"))
        .collect();
    apps.push((
        "flux-system_infra_kustomize.toolkit.fluxcd.io_Kustomization".into(),
        "v1",
    ));
    text += &kustomization(
        "apps",
        "{interval: 10m, timeout: 5m, wait: true}",
        "observedGeneration: 2",
        &apps,
    );
    let mut infra: Vec<(String, &str)> = (0..23)
        .map(|i| (format!("infra_cm{i:02}__ConfigMap"), "v1"))
        .collect();
    infra.push(("shop_billing_pacto.trianalab.io_Pacto".into(), "v1alpha1"));
    text += &kustomization(
        "infra",
        "{interval: 10m, timeout: 2m, wait: true, healthCheckExprs: [{apiVersion: pacto.trianalab.io/v1alpha1, kind: Pacto, \
         current: \"status.contractStatus == 'Compliant'\", failed: \"status.contractStatus == 'NonCompliant'\"}]}",
        "observedGeneration: 2\n  conditions: [{type: Ready, status: \"False\", reason: HealthCheckFailed, message: billing is NonCompliant}]",
        &infra,
    );
    for i in 0..24 {
        write!(
            text,
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm{i:02}, namespace: shop}}\n"
        )
        .unwrap();
    }
    for i in 0..23 {
        write!(
            text,
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm{i:02}, namespace: infra}}\n"
        )
        .unwrap();
    }
    text += "---\napiVersion: pacto.trianalab.io/v1alpha1\nkind: Pacto\nmetadata: {name: billing, namespace: shop}\n\
             status: {contractStatus: NonCompliant}\n";
    let path = dir.join("all.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The data row (0: the first after the header) of a tree table whose NAME cell (the tree drawn in front) is `name`.
fn row_of(table: &str, name: &str) -> usize {
    (0..table.lines().count() - 1)
        .find(|&r| cell(table, r, "NAME") == name)
        .unwrap_or_else(|| panic!("no row {name}:\n{table}"))
}

/// The NAME cell of data row `row` with the spaces the tree is drawn with (`cell` trims them).
fn drawn(table: &str, row: usize) -> String {
    let head = table.lines().next().unwrap();
    let (from, to) = (head.find("NAME ").unwrap(), head.find("HEALTH").unwrap());
    let line: Vec<char> = table.lines().nth(row + 1).unwrap().chars().collect();
    line[from..to]
        .iter()
        .collect::<String>()
        .trim_end()
        .to_string()
}

#[test]
fn two_nested_kustomizations_of_50_objects_are_one_tree() {
    let dir = tempfile::tempdir().unwrap();
    let f = nested_files(dir.path());
    let out = run(&mut pacto(&["tree", "kustomization/apps", "-f", s(&f)]));
    out.assert_no_panic().assert_code(0);
    let t = &out.stdout;
    assert_eq!(t.lines().count(), 51, "a header and 50 objects:\n{t}");
    assert_eq!(cell(t, 0, "NAME"), "Kustomization/apps");
    assert_eq!(cell(t, 0, "NAMESPACE"), "flux-system");
    assert_eq!(cell(t, 0, "HEALTH"), "WouldTimeOut");
    assert_eq!(
        cell(t, 0, "MESSAGE"),
        "health check failed after 5m0s: timeout waiting for: [Kustomization/flux-system/infra status: 'InProgress']"
    );
    assert_eq!(cell(t, 1, "NAME"), "├─ConfigMap/cm00");
    assert_eq!(cell(t, 1, "HEALTH"), "Current");
    assert_eq!(cell(t, 1, "RULE"), "kstatus");
    let infra = row_of(t, "└─Kustomization/infra");
    assert_eq!(infra, 25);
    assert_eq!(cell(t, infra, "HEALTH"), "InProgress");
    assert_eq!(cell(t, infra, "RULE"), "kstatus");
    assert_eq!(cell(t, infra, "MESSAGE"), "billing is NonCompliant");
    assert_eq!(drawn(t, infra + 1), "  ├─ConfigMap/cm00");
    assert_eq!(cell(t, infra + 1, "NAMESPACE"), "infra");
    let billing = row_of(t, "└─Pacto/billing");
    assert_eq!(drawn(t, billing), "  └─Pacto/billing");
    assert_eq!(billing, 49);
    assert_eq!(cell(t, billing, "HEALTH"), "Failed");
    assert_eq!(cell(t, billing, "RULE"), "healthCheckExprs[0]");

    // The same tree as data, and through explain --tree.
    let json = run(&mut pacto(&["tree", "ks/apps", "-f", s(&f), "-o", "json"]));
    json.assert_code(0);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["health"], "WouldTimeOut");
    let kids = v["children"].as_array().unwrap();
    assert_eq!(kids.len(), 25);
    assert_eq!(kids[24]["name"], "infra");
    assert_eq!(kids[24]["deciding"], true);
    assert_eq!(kids[0]["deciding"], false);
    let below = kids[24]["children"].as_array().unwrap();
    assert_eq!(below.len(), 24);
    assert_eq!(below[23]["group"], "pacto.trianalab.io");
    assert_eq!(below[23]["health"], "Failed");
    assert_eq!(below[23]["deciding"], true);
    let via = run(&mut pacto(&[
        "explain",
        "kustomization/apps",
        "-f",
        s(&f),
        "--tree",
    ]));
    via.assert_code(0);
    assert_eq!(via.stdout, out.stdout);

    // One level: infra is a leaf that says why.
    let one = run(&mut pacto(&[
        "tree",
        "kustomization/apps",
        "-f",
        s(&f),
        "--depth",
        "1",
    ]));
    one.assert_code(0);
    assert_eq!(one.stdout.lines().count(), 27, "{}", one.stdout);
    assert_eq!(
        cell(&one.stdout, 25, "MESSAGE"),
        "billing is NonCompliant [not expanded: depth]"
    );
}

/// An app of apps: each resource with the health `setApplicationHealth` gave it, and each child
/// Application expanded with its own resources. Argo CD has no health check for
/// `argoproj.io/Application` (gitops-engine `pkg/health/health.go` knows only Workflow in that
/// group; argo-cd `resource_customizations/argoproj.io/Application` holds actions only), so the
/// child Applications do not count and the root is Healthy even though a Deployment two levels
/// down is Degraded: the tree shows where.
#[test]
fn an_app_of_apps_nests_each_child_application() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("apps.yaml");
    std::fs::write(
        &f,
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: root, namespace: argocd}\n\
         status:\n  resources:\n\
         \x20 - {group: argoproj.io, version: v1alpha1, kind: Application, namespace: argocd, name: shop}\n\
         \x20 - {group: argoproj.io, version: v1alpha1, kind: Application, namespace: argocd, name: web}\n\
         ---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop, namespace: argocd}\n\
         status:\n  health: {status: Degraded}\n  resources:\n\
         \x20 - {group: apps, version: v1, kind: Deployment, namespace: shop, name: api}\n\
         ---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: web, namespace: argocd}\n\
         status:\n  health: {status: Healthy}\n  resources:\n\
         \x20 - {version: v1, kind: ConfigMap, namespace: web, name: site}\n\
         ---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: shop, generation: 1}\n\
         spec: {replicas: 1}\n\
         status: {observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 0,\n\
         \x20 conditions: [{type: Progressing, status: \"False\", reason: ProgressDeadlineExceeded, message: too slow}]}\n\
         ---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: site, namespace: web}\n",
    )
    .unwrap();
    let out = run(&mut pacto(&["tree", "app/root", "-f", s(&f)]));
    out.assert_no_panic().assert_code(0);
    let t = &out.stdout;
    assert_eq!(t.lines().count(), 6, "{t}");
    assert_eq!(cell(t, 0, "HEALTH"), "Healthy");
    assert_eq!(cell(t, 0, "RULE"), "setApplicationHealth");
    assert_eq!(cell(t, 0, "MESSAGE"), "");
    assert_eq!(cell(t, 1, "NAME"), "├─Application/shop");
    assert_eq!(cell(t, 1, "HEALTH"), "-");
    assert_eq!(cell(t, 1, "RULE"), "no health check");
    assert_eq!(cell(t, 2, "NAME"), "│ └─Deployment/api");
    assert_eq!(cell(t, 2, "HEALTH"), "Degraded");
    assert_eq!(
        cell(t, 2, "MESSAGE"),
        "Deployment \"api\" exceeded its progress deadline"
    );
    assert_eq!(cell(t, 3, "NAME"), "└─Application/web");
    assert_eq!(cell(t, 3, "HEALTH"), "-");
    assert_eq!(drawn(t, 4), "  └─ConfigMap/site");
    // A ConfigMap has no health in Argo CD: no rule judges it.
    assert_eq!(cell(t, 4, "HEALTH"), "-");
}

/// Bad input: a cycle of Kustomizations ends at the second sighting; a child with a malformed
/// inventory is a leaf whose note is the error; a malformed root, a kind that has no tree, a
/// depth of 0 and a target not in the files are refused with exit 1 and an `error:` line.
#[test]
fn cycles_bad_children_and_bad_targets() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("cycle.yaml");
    let ka = "flux-system_a_kustomize.toolkit.fluxcd.io_Kustomization".to_string();
    let kb = "flux-system_b_kustomize.toolkit.fluxcd.io_Kustomization".to_string();
    let kc = "flux-system_c_kustomize.toolkit.fluxcd.io_Kustomization".to_string();
    let ready = "conditions: [{type: Ready, status: \"True\", reason: ReconciliationSucceeded}]\n  observedGeneration: 2";
    let mut text = kustomization("a", "{wait: true}", ready, &[(kb, "v1"), (kc, "v1")]);
    text += &kustomization("b", "{wait: true}", ready, &[(ka, "v1")]);
    text += "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n\
             metadata: {name: c, namespace: flux-system, generation: 2}\nspec: {wait: true}\n\
             status: {observedGeneration: 2, inventory: {entries: [{id: nope, v: v1}]}}\n";
    std::fs::write(&f, text).unwrap();
    let out = run(&mut pacto(&["tree", "kustomization/a", "-f", s(&f)]));
    out.assert_no_panic().assert_code(0);
    let t = &out.stdout;
    assert_eq!(t.lines().count(), 5, "{t}");
    assert_eq!(cell(t, 2, "NAME"), "│ └─Kustomization/a");
    assert!(cell(t, 2, "MESSAGE").ends_with("[shown above]"), "{t}");
    assert_eq!(cell(t, 3, "NAME"), "└─Kustomization/c");
    // kstatus on c (no conditions: Current), then the error that stopped its expansion.
    assert_eq!(
        cell(t, 3, "MESSAGE"),
        "Resource is current [status.inventory.entries[0].id: \"nope\" is not <namespace>_<name>_<group>_<kind>]"
    );
    assert_eq!(cell(t, 0, "HEALTH"), "Ready");

    for (args, code, want) in [
        (
            vec!["tree", "kustomization/c", "-f", s(&f)],
            1,
            "error: kustomization/c: status.inventory.entries[0].id: \"nope\" is not <namespace>_<name>_<group>_<kind>\n",
        ),
        (
            vec!["tree", "pacto/x", "-f", s(&f)],
            1,
            "error: pacto/x: a tree is drawn for application/NAME, kustomization/NAME or helmrelease/NAME\n",
        ),
        (
            vec!["tree", "kustomization/zz", "-f", s(&f)],
            1,
            "error: kustomization/zz is not in the files given\n",
        ),
    ] {
        let r = run(&mut pacto(&args));
        r.assert_no_panic().assert_code(code);
        assert_eq!(r.stderr, want, "{args:?}");
    }
    let r = run(&mut pacto(&[
        "tree",
        "kustomization/a",
        "-f",
        s(&f),
        "--depth",
        "0",
    ]));
    r.assert_code(1);
    assert!(r.stderr.starts_with("error: "), "{}", r.stderr);
    assert!(r.stderr.contains("--depth"), "{}", r.stderr);
    let r = run(&mut pacto(&["explain", "pacto/x", "--depth", "2"]));
    r.assert_code(1);
    assert!(r.stderr.contains("--tree"), "{}", r.stderr);
}

/// From the cluster the tree is read level by level (the root, what its inventory names, then
/// what each child Kustomization's names), one GET per object, and comes out as from the same
/// objects in files; `--max-list-items` bounds how many objects it reads.
#[test]
fn from_the_cluster_the_tree_is_read_level_by_level() {
    use fake_apiserver::{FakeApiServer, Resource};
    let dir = tempfile::tempdir().unwrap();
    let f = nested_files(dir.path());
    let server = FakeApiServer::start();
    server.register(Resource::new(
        "kustomize.toolkit.fluxcd.io/v1",
        "Kustomization",
        "kustomizations",
        true,
        true,
    ));
    server.register(Resource::new("v1", "ConfigMap", "configmaps", true, false));
    server.register(Resource::pacto());
    let text = std::fs::read_to_string(&f).unwrap();
    for doc in text.split("---\n").filter(|d| !d.trim().is_empty()) {
        server.insert(serde_saphyr::from_str::<Value>(doc).unwrap());
    }
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("flux-system"));
    let now = "2026-11-29T12:00:00Z";
    let live = run(&mut crate::common::isolated(
        dir.path(),
        now,
        &["tree", "kustomization/apps", "--kubeconfig", s(&kubeconfig)],
    ));
    live.assert_no_panic().assert_code(0);
    let files = run(&mut crate::common::isolated(
        dir.path(),
        now,
        &["tree", "kustomization/apps", "-f", s(&f)],
    ));
    files.assert_code(0);
    assert_eq!(live.stdout, files.stdout);
    assert_eq!(live.stdout.lines().count(), 51);
    let gets = server
        .requests()
        .iter()
        .filter(|r| r.method == "GET" && r.path.contains("/namespaces/"))
        .count();
    assert_eq!(gets, 50, "the root and the 49 objects below it, each once");

    let bounded = run(&mut crate::common::isolated(
        dir.path(),
        now,
        &[
            "tree",
            "kustomization/apps",
            "--kubeconfig",
            s(&kubeconfig),
            "--max-list-items",
            "30",
        ],
    ));
    bounded.assert_no_panic().assert_code(1);
    assert_eq!(
        bounded.stderr,
        "error: kustomization/apps: the tree names more than 30 objects (--max-list-items)\n"
    );
}

/// From the cluster, an entry no object can match (a name that is not a valid object name, an
/// empty version in `status.resources`) is read as not found, as from files: the tree is drawn
/// with a NotFound leaf instead of the whole command failing.
#[test]
fn from_the_cluster_an_impossible_entry_is_not_found() {
    use fake_apiserver::{FakeApiServer, Resource};
    let dir = tempfile::tempdir().unwrap();
    let server = FakeApiServer::start();
    server.register(Resource::new(
        "kustomize.toolkit.fluxcd.io/v1",
        "Kustomization",
        "kustomizations",
        true,
        true,
    ));
    server.register(Resource::new("v1", "ConfigMap", "configmaps", true, false));
    let ready = "conditions: [{type: Ready, status: \"True\", reason: ReconciliationSucceeded}]\n  observedGeneration: 2";
    let text = kustomization(
        "root",
        "{wait: true, timeout: 1m}",
        ready,
        &[(
            "flux-system_child_kustomize.toolkit.fluxcd.io_Kustomization".into(),
            "v1",
        )],
    ) + &kustomization(
        "child",
        "{wait: true, timeout: 1m}",
        ready,
        &[("shop_bad name!__ConfigMap".into(), "v1")],
    );
    for doc in text.split("---\n").filter(|d| !d.trim().is_empty()) {
        server.insert(serde_saphyr::from_str::<Value>(doc).unwrap());
    }
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("flux-system"));
    let r = run(&mut crate::common::isolated(
        dir.path(),
        "2026-11-29T12:00:00Z",
        &["tree", "kustomization/root", "--kubeconfig", s(&kubeconfig)],
    ));
    r.assert_no_panic().assert_code(0);
    let t = &r.stdout;
    assert_eq!(drawn(t, 2), "  └─ConfigMap/bad name!", "{t}");
    assert_eq!(cell(t, 2, "HEALTH"), "NotFound", "{t}");
}

/// A file given twice gives each object twice: the same object, read once; two different
/// objects of one name and namespace are refused, naming them.
#[test]
fn an_object_given_twice_is_the_same_object() {
    let f = crate::common::fixture("gate/platform.yaml");
    let once = run(&mut pacto(&["tree", "kustomization/platform", "-f", s(&f)]));
    let twice = run(&mut pacto(&[
        "tree",
        "kustomization/platform",
        "-f",
        s(&f),
        "-f",
        s(&f),
    ]));
    twice.assert_no_panic().assert_code(0);
    assert_eq!(twice.stdout, once.stdout);
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.yaml");
    std::fs::write(
        &other,
        std::fs::read_to_string(&f)
            .unwrap()
            .replace("timeout: 10m", "timeout: 11m"),
    )
    .unwrap();
    let r = run(&mut pacto(&[
        "tree",
        "kustomization/platform",
        "-f",
        s(&f),
        "-f",
        s(&other),
    ]));
    r.assert_code(1);
    assert_eq!(
        r.stderr,
        "error: 2 different Kustomizations flux-system/platform in the files given: give each object once\n"
    );
}
