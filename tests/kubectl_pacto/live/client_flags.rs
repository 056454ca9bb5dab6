//! kubectl's client flags: `--server`, `--token`, `--as`, `--as-group`,
//! `--certificate-authority`, `--insecure-skip-tls-verify`. The headers expected on the wire are
//! those kubectl v1.32 sends for the same flags to the same fake API server.

use super::*;

/// The credentials and impersonation headers of the requests that listed Pactos.
fn auth_headers(c: &Cluster) -> Vec<(String, Vec<String>)> {
    let reqs = c.server.requests();
    let list = reqs
        .iter()
        .rfind(|r| r.method == "GET" && r.path.ends_with("/pactos"))
        .expect("a list of Pactos");
    ["authorization", "impersonate-user", "impersonate-group"]
        .iter()
        .map(|h| {
            (
                h.to_string(),
                list.header_values(h)
                    .iter()
                    .map(|v| v.to_string())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn token_and_impersonation_are_sent_only_as_kubectl_sends_them() {
    let c = shop();
    let flags = [
        "--token",
        "t0ken",
        "--as",
        "jane",
        "--as-group",
        "ops",
        "--as-group",
        "dev",
    ];
    let k = crate::kubectl_plugin::kubectl();
    let mut args = vec![
        "get",
        "pactos.pacto.trianalab.io",
        "--kubeconfig",
        s(&c.kubeconfig),
    ];
    args.extend(flags);
    let mut kc = crate::kubectl_plugin::kubectl_cmd(
        &k,
        c.dir.path(),
        &[Path::new("/usr/bin"), Path::new("/bin")],
        &args,
    );
    run_with(&mut kc, None, Duration::from_secs(60)).assert_code(0);
    let want = auth_headers(&c);
    // The fake server speaks plain HTTP: client-go attaches the user's credentials only when
    // the transport is TLS (clientcmd `ClientConfig`), so kubectl sends no token; it does send
    // the impersonation headers.
    assert!(want[0].1.is_empty(), "{want:?}");
    assert_eq!(want[1].1, vec!["jane".to_string()]);
    assert_eq!(want[2].1, vec!["ops".to_string(), "dev".to_string()]);
    c.server.clear_requests();
    let mut ours = vec!["get", "-o", "name"];
    ours.extend(flags);
    c.run(&ours).assert_code(0);
    assert_eq!(auth_headers(&c), want);
}

#[test]
fn server_works_without_a_kubeconfig() {
    let c = shop();
    let home = tempfile::tempdir().unwrap();
    let url = c.server.url();
    let r = run(&mut cmd(
        home.path(),
        &["get", "-n", "shop", "-o", "name", "--server", &url],
    ));
    r.assert_code(0);
    assert!(
        r.stdout.contains("pacto.pacto.trianalab.io/orders\n"),
        "{}",
        r.stdout
    );
    // --server overrides the kubeconfig's server: a dead one in the file is never dialled.
    let dead = c.dir.path().join("dead-kubeconfig");
    let text = std::fs::read_to_string(&c.kubeconfig)
        .unwrap()
        .replace(&url, "http://127.0.0.1:9");
    std::fs::write(&dead, text).unwrap();
    let r = run(&mut cmd(
        home.path(),
        &[
            "get",
            "-o",
            "name",
            "--kubeconfig",
            s(&dead),
            "--server",
            &url,
        ],
    ));
    r.assert_code(0);
    assert!(r.stdout.contains("/orders\n"), "{}", r.stdout);
}

#[test]
fn override_flags_that_do_not_go_together_are_refused_before_any_request() {
    let c = shop();
    for (args, want) in [
        (vec!["--as-group", "ops"], "error: --as-group needs --as"),
        (
            vec!["--certificate-authority", "/nonexistent/ca.pem"],
            "error: --certificate-authority /nonexistent/ca.pem: No such file or directory",
        ),
        (
            vec![
                "--certificate-authority",
                "ca.pem",
                "--insecure-skip-tls-verify",
            ],
            "error: specifying a root certificates file with the insecure flag is not allowed",
        ),
        (
            vec!["--server", "http://"],
            "error: --server \"http://\": not a URL",
        ),
    ] {
        c.server.clear_requests();
        let mut all = vec!["get"];
        all.extend(args.iter());
        let r = c.run(&all);
        r.assert_code(1);
        assert!(r.stderr.starts_with(want), "{args:?}: {}", r.stderr);
        assert!(
            c.server
                .requests()
                .iter()
                .all(|r| !r.path.ends_with("/pactos")),
            "{args:?}"
        );
    }
}

/// With `KUBECONFIG` naming only files that do not exist, `--server` and `--token` alone reach
/// the server, as kubectl v1.32 does with the same environment (client-go
/// `tools/clientcmd/merged_client_builder.go`: the empty configuration, completed by the
/// flags); without `--server` the tool still says that none of the files exists.
#[test]
fn server_and_token_work_when_kubeconfig_names_only_missing_files() {
    let c = shop();
    let url = c.server.url();
    let missing = "/nonexistent/a:/nonexistent/b";
    let k = crate::kubectl_plugin::kubectl();
    let mut kc = crate::kubectl_plugin::kubectl_cmd(
        &k,
        c.dir.path(),
        &[Path::new("/usr/bin"), Path::new("/bin")],
        &[
            "get",
            "pactos.pacto.trianalab.io",
            "-n",
            "shop",
            "-o",
            "name",
            "-s",
            &url,
            "--token",
            "t0ken",
        ],
    );
    kc.env("KUBECONFIG", missing);
    let kubectl = run_with(&mut kc, None, Duration::from_secs(60));
    assert_eq!(kubectl.code, Some(0), "{}", kubectl.stderr);
    assert!(kubectl.stdout.contains("pacto.pacto.trianalab.io/orders\n"));
    let mut ours = cmd(
        c.dir.path(),
        &[
            "get", "-n", "shop", "-o", "name", "-s", &url, "--token", "t0ken",
        ],
    );
    ours.env("KUBECONFIG", missing);
    let r = run(&mut ours);
    r.assert_code(0);
    assert_eq!(r.stdout, kubectl.stdout);
    let mut alone = cmd(c.dir.path(), &["get", "-n", "shop"]);
    alone.env("KUBECONFIG", missing);
    let r = run(&mut alone);
    r.assert_code(1);
    assert!(
        r.stderr.contains("none of these files exists"),
        "{}",
        r.stderr
    );
}

/// The query of each request reads as kubectl v1.32 writes it for the same flags, byte for
/// byte (client-go `rest/request.go` `URL`: Go's `url.Values.Encode`, keys sorted, one `?`):
/// the list of a label selector in pages, every page.
#[test]
fn list_queries_read_as_kubectls() {
    let c = shop();
    let queries = |c: &Cluster| -> Vec<String> {
        c.server
            .requests()
            .into_iter()
            .filter(|r| r.method == "GET" && r.path.ends_with("/namespaces/shop/pactos"))
            .map(|r| r.query)
            .collect()
    };
    // Matches every Pacto of the fixtures (none has these labels), so that there are pages.
    let flags = [
        "-n",
        "shop",
        "-l",
        "!app.kubernetes.io/part-of,tier notin (a,b)",
        "--chunk-size",
        "2",
    ];
    let k = crate::kubectl_plugin::kubectl();
    let mut args = vec![
        "get",
        "pactos.pacto.trianalab.io",
        "-o",
        "name",
        "--kubeconfig",
        s(&c.kubeconfig),
    ];
    args.extend(flags);
    let mut kc = crate::kubectl_plugin::kubectl_cmd(
        &k,
        c.dir.path(),
        &[Path::new("/usr/bin"), Path::new("/bin")],
        &args,
    );
    run_with(&mut kc, None, Duration::from_secs(60)).assert_code(0);
    let want = queries(&c);
    assert!(want.len() >= 2, "kubectl read one page: {want:?}");
    assert!(
        want[0] == "labelSelector=%21app.kubernetes.io%2Fpart-of%2Ctier+notin+%28a%2Cb%29&limit=2",
        "{want:?}"
    );
    c.server.clear_requests();
    let mut ours = vec!["get", "-o", "name"];
    ours.extend(flags);
    c.run(&ours).assert_code(0);
    assert_eq!(queries(&c), want);
}
