//! `Cluster::delivery_objects` against the fake API server of `tests/fake-apiserver`: one
//! discovery per group version and one list per kind, a kind that is not installed reported as
//! such, and a forbidden kind reported with the verb and resource, while the others are read; a
//! kind read in some namespaces, one list each, a refused namespace named apart.

use fake_apiserver::{FakeApiServer, Fault, FaultAction, Resource};
use pacto_gates::cluster::{Cluster, ClusterError, ConnectOptions, DeliveryQuery, Scope};
use serde_json::json;

fn server(with_argo: bool) -> (FakeApiServer, tempfile::TempDir, std::path::PathBuf) {
    let server = FakeApiServer::start();
    for (api_version, kind, plural) in [
        ("delivery.pacto.trianalab.io/v1alpha1", "Stage", "stages"),
        (
            "delivery.pacto.trianalab.io/v1alpha1",
            "Operation",
            "operations",
        ),
        (
            "delivery.pacto.trianalab.io/v1alpha1",
            "Approval",
            "approvals",
        ),
        (
            "source.toolkit.fluxcd.io/v1",
            "OCIRepository",
            "ocirepositories",
        ),
        (
            "kustomize.toolkit.fluxcd.io/v1",
            "Kustomization",
            "kustomizations",
        ),
    ] {
        server.register(Resource::new(api_version, kind, plural, true, true));
    }
    if with_argo {
        server.register(Resource::new(
            "argoproj.io/v1alpha1",
            "Application",
            "applications",
            true,
            true,
        ));
    }
    server.insert(
        json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Stage",
        "metadata": {"name": "payments", "namespace": "test"}, "spec": {}}),
    );
    server.insert(
        json!({"apiVersion": "delivery.pacto.trianalab.io/v1alpha1", "kind": "Stage",
        "metadata": {"name": "payments", "namespace": "prod"}, "spec": {}}),
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let kubeconfig = server.write_kubeconfig(dir.path(), Some("test"));
    (server, dir, kubeconfig)
}

fn read(
    kubeconfig: std::path::PathBuf,
    query: DeliveryQuery<'_>,
) -> pacto_gates::cluster::DeliveryObjects {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let c = Cluster::connect(&ConnectOptions {
            kubeconfig: Some(kubeconfig),
            ..Default::default()
        })
        .await
        .expect("connect");
        c.delivery_objects(&query).await
    })
}

fn paths(server: &FakeApiServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}

#[test]
fn each_group_version_is_discovered_once_and_each_kind_listed_once() {
    let (server, _dir, kubeconfig) = server(true);
    let got = read(
        kubeconfig,
        DeliveryQuery {
            stages: Some(Scope::All),
            approvals: Some(Scope::Namespace("test")),
            appliers: true,
            ..Default::default()
        },
    );
    let mut paths = paths(&server);
    // The discoveries first, one per group version, asked at once (their order is the
    // server's) ...
    paths[..4].sort();
    assert_eq!(
        paths,
        [
            "GET /apis/argoproj.io/v1alpha1",
            "GET /apis/delivery.pacto.trianalab.io/v1alpha1",
            "GET /apis/kustomize.toolkit.fluxcd.io/v1",
            "GET /apis/source.toolkit.fluxcd.io/v1",
            // ... then one list per kind.
            "GET /apis/delivery.pacto.trianalab.io/v1alpha1/stages",
            "GET /apis/delivery.pacto.trianalab.io/v1alpha1/namespaces/test/approvals",
            "GET /apis/source.toolkit.fluxcd.io/v1/ocirepositories",
            "GET /apis/kustomize.toolkit.fluxcd.io/v1/kustomizations",
            "GET /apis/argoproj.io/v1alpha1/applications",
        ]
    );
    assert_eq!(got.stages.unwrap().unwrap().len(), 2);
    assert!(got.operations.is_none());
    assert_eq!(got.approvals.unwrap().unwrap().len(), 0);
    assert_eq!(got.applications.unwrap().unwrap().len(), 0);
}

#[test]
fn a_kind_not_installed_and_a_forbidden_kind_stand_alone() {
    let (server, _dir, kubeconfig) = server(false);
    server.fault(Fault::always("/kustomizations", FaultAction::Status(403)));
    let got = read(
        kubeconfig,
        DeliveryQuery {
            stages: Some(Scope::Namespace("prod")),
            appliers: true,
            ..Default::default()
        },
    );
    let stages = got.stages.unwrap().unwrap();
    assert_eq!(stages.len(), 1);
    assert_eq!(stages[0]["metadata"]["namespace"], "prod");
    assert_eq!(got.oci_repositories.unwrap().unwrap().len(), 0);
    assert_eq!(
        got.applications.unwrap().unwrap_err(),
        ClusterError::NotInstalled {
            kind: "Application".into(),
            group_version: "argoproj.io/v1alpha1".into()
        }
    );
    let forbidden = got.kustomizations.unwrap().unwrap_err().to_string();
    assert!(
        forbidden.starts_with(
            "forbidden: you may not list kustomizations.kustomize.toolkit.fluxcd.io in all namespaces: "
        ),
        "{forbidden}"
    );
    // No list of a kind that discovery does not serve.
    assert!(!paths(&server).iter().any(|p| p.ends_with("/applications")));
}

/// Kinds read in some namespaces only: one list per kind and namespace, after one discovery
/// each; a namespace refused (403) is named with its error and the others are read.
#[test]
fn kinds_read_in_some_namespaces_leave_a_refused_one_apart() {
    let (server, _dir, kubeconfig) = server(true);
    server.insert(
        json!({"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "OCIRepository",
        "metadata": {"name": "apply", "namespace": "test"}}),
    );
    server.insert(
        json!({"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "OCIRepository",
        "metadata": {"name": "elsewhere", "namespace": "other"}}),
    );
    server.fault(Fault::always(
        "/namespaces/vendor/ocirepositories",
        FaultAction::Status(403),
    ));
    let wanted = [
        (
            pacto_gates::kinds::OCI_REPOSITORY,
            vec!["test".to_string(), "vendor".to_string()],
        ),
        (pacto_gates::kinds::APPLICATION, vec!["argocd".to_string()]),
    ];
    let got = read(
        kubeconfig,
        DeliveryQuery {
            in_namespaces: &wanted,
            ..Default::default()
        },
    );
    let mut paths = paths(&server);
    // The two discoveries are asked at once.
    paths[..2].sort();
    assert_eq!(
        paths,
        [
            "GET /apis/argoproj.io/v1alpha1",
            "GET /apis/source.toolkit.fluxcd.io/v1",
            "GET /apis/source.toolkit.fluxcd.io/v1/namespaces/test/ocirepositories",
            "GET /apis/source.toolkit.fluxcd.io/v1/namespaces/vendor/ocirepositories",
            "GET /apis/argoproj.io/v1alpha1/namespaces/argocd/applications",
        ]
    );
    let repos = got.oci_repositories.unwrap().unwrap();
    let names: Vec<&str> = repos
        .iter()
        .map(|r| r["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["apply"]);
    assert_eq!(got.applications.unwrap().unwrap().len(), 0);
    assert!(got.kustomizations.is_none());
    assert_eq!(got.unreadable.len(), 1, "{:?}", got.unreadable);
    let (kind, ns, e) = &got.unreadable[0];
    assert_eq!(
        (*kind, ns.as_str()),
        (pacto_gates::kinds::OCI_REPOSITORY, "vendor")
    );
    assert!(
        e.to_string().starts_with(
            "forbidden: you may not list ocirepositories.source.toolkit.fluxcd.io in namespace \"vendor\": "
        ),
        "{e}"
    );
}
