//! kubectl's conventions for reaching a cluster: kubeconfig files merged from `KUBECONFIG`
//! (client-go's `tools/clientcmd/loader.go`) with the context's namespace as default, kubeconfig
//! edge cases, a stuck exec credential plugin, proxies from the environment never used for a
//! loopback server (Go's `ProxyFromEnvironment`), and `kubectl pacto` run through kubectl's
//! plugin discovery.

use super::*;

#[test]
fn kubeconfig_files_merge_and_the_context_namespace_is_the_default() {
    let c = shop();
    let dir = c.dir.path();
    // Cluster and user in one file; two contexts in another.
    std::fs::write(
        dir.join("a.yaml"),
        format!("apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster: {{server: \"{}\"}}\nusers:\n- name: fake\n  user: {{token: t}}\n", c.server.url()),
    )
    .unwrap();
    std::fs::write(
        dir.join("b.yaml"),
        "apiVersion: v1\nkind: Config\ncurrent-context: shop\ncontexts:\n- name: shop\n  context: {cluster: fake, user: fake, namespace: shop}\n- name: payments\n  context: {cluster: fake, user: fake, namespace: payments}\n",
    )
    .unwrap();
    let merged = format!("{}:{}", s(&dir.join("a.yaml")), s(&dir.join("b.yaml")));
    let env_run = |args: &[&str]| {
        let mut k = cmd(dir, args);
        k.env("KUBECONFIG", &merged);
        run(&mut k)
    };
    let r = env_run(&["get", "-o", "name"]);
    r.assert_code(0);
    assert!(r.stdout.contains("pacto.pacto.trianalab.io/orders\n"));
    let r = env_run(&["get", "--context", "payments"]);
    r.assert_code(0);
    assert_eq!(r.stderr, "No resources found in payments namespace.\n");
    assert!(c
        .server
        .requests()
        .iter()
        .any(|q| q.path == "/apis/pacto.trianalab.io/v1alpha1/namespaces/payments/pactos"));
    let r = env_run(&["get", "--context", "nope"]);
    r.assert_code(1);
    assert_eq!(
        r.stderr,
        format!("error: KUBECONFIG={merged}: context \"nope\" not found in the kubeconfig\n")
    );
    // No configuration at all, outside a cluster.
    let r = run(&mut cmd(dir, &["get"]));
    r.assert_code(1);
    assert!(r.stderr.starts_with("error: no kubeconfig (KUBECONFIG is unset and ~/.kube/config does not exist) and not running in a cluster: "), "{}", r.stderr);
    let r = run(&mut cmd(
        dir,
        &["get", "--kubeconfig", "/nonexistent/kubeconfig"],
    ));
    r.assert_code(1);
    assert!(
        r.stderr.starts_with("error: /nonexistent/kubeconfig: "),
        "{}",
        r.stderr
    );
}

#[test]
fn kubeconfig_edge_cases_behave_like_kubectl() {
    let c = shop();
    let dir = c.dir.path();
    // A missing file in KUBECONFIG is skipped.
    let list = format!("/nonexistent/kubeconfig:{}", s(&c.kubeconfig));
    let mut k = cmd(dir, &["get", "-o", "name"]);
    k.env("KUBECONFIG", &list);
    let r = run(&mut k);
    r.assert_code(0);
    assert!(r.stdout.contains("pacto.pacto.trianalab.io/orders\n"));
    // None of them exists.
    let mut k = cmd(dir, &["get"]);
    k.env("KUBECONFIG", "/nonexistent/a:/nonexistent/b");
    let r = run(&mut k);
    r.assert_code(1);
    assert_eq!(r.stderr, "error: KUBECONFIG=/nonexistent/a:/nonexistent/b: none of these files exists: give --kubeconfig or --server, or fix KUBECONFIG (get, explain and doctor also read files with -f)\n");
    // A context whose user is not defined: refused, not sent without credentials.
    std::fs::write(
        dir.join("nouser.yaml"),
        format!("apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: fake\n  cluster: {{server: \"{}\"}}\ncontexts:\n- name: x\n  context: {{cluster: fake, user: missing}}\n", c.server.url()),
    )
    .unwrap();
    c.server.clear_requests();
    let r = run(&mut cmd(
        dir,
        &["get", "--kubeconfig", s(&dir.join("nouser.yaml"))],
    ));
    r.assert_code(1);
    assert_eq!(
        r.stderr,
        format!(
            "error: {}: user \"missing\" was not found for context \"x\"\n",
            s(&dir.join("nouser.yaml"))
        )
    );
    assert!(c.server.requests().is_empty());
}

#[cfg(unix)]
#[test]
fn a_stuck_exec_credential_plugin_is_cut_off_by_request_timeout() {
    let c = shop();
    let dir = c.dir.path();
    // An https server: credentials (and so exec plugins) are only used over TLS, as in
    // client-go. The plugin runs before any connection, so nothing needs to listen there.
    let server = "https://127.0.0.1:1";
    std::fs::write(
        dir.join("exec.yaml"),
        format!("apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: fake\n  cluster: {{server: \"{server}\"}}\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: sleep\n      args: [\"600\"]\n      interactiveMode: Never\ncontexts:\n- name: x\n  context: {{cluster: fake, user: u}}\n"),
    )
    .unwrap();
    let r = run_with(
        &mut cmd(
            dir,
            &[
                "get",
                "--kubeconfig",
                s(&dir.join("exec.yaml")),
                "--request-timeout",
                "1s",
            ],
        ),
        None,
        DEADLINE,
    );
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        format!("error: {}: the kubeconfig's exec plugin \"sleep\" gave no credentials within 1s (--request-timeout; 60s without it): it was stopped\n", s(&dir.join("exec.yaml")))
    );
}

#[test]
fn a_proxy_in_the_environment_is_not_used_for_a_loopback_api_server() {
    // Go's ProxyFromEnvironment never proxies localhost or loopback addresses; the proxy here
    // would refuse every connection.
    let c = shop();
    for (var, value) in [
        ("HTTP_PROXY", "http://127.0.0.2:1"),
        ("HTTPS_PROXY", "http://127.0.0.2:1"),
    ] {
        let mut k = cmd(
            c.dir.path(),
            &["get", "-o", "name", "--kubeconfig", s(&c.kubeconfig)],
        );
        k.env(var, value).env("NO_PROXY", "");
        let r = run(&mut k);
        r.assert_code(0);
        assert!(
            r.stdout.contains("pacto.pacto.trianalab.io/orders\n"),
            "{var}: {}",
            r.stderr
        );
    }
}

#[cfg(unix)]
#[test]
fn kubectl_runs_get_through_plugin_discovery() {
    let k = crate::kubectl_plugin::kubectl();
    let c = shop();
    let bin = Path::new(PACTO).parent().unwrap().to_path_buf();
    let mut kc = crate::kubectl_plugin::kubectl_cmd(
        &k,
        c.dir.path(),
        &[&bin, Path::new("/usr/bin"), Path::new("/bin")],
        &["pacto", "get", "--kubeconfig", s(&c.kubeconfig)],
    );
    kc.env("KUBECTL_PACTO_NOW", NOW);
    let through_kubectl = run(&mut kc);
    through_kubectl.assert_code(0).assert_no_panic();
    let direct = c.run(&["get"]);
    assert_eq!(through_kubectl.stdout, direct.stdout);
    assert_eq!(
        through_kubectl.stdout.lines().count(),
        27,
        "{}",
        through_kubectl.stdout
    );
    // Errors come through with kubectl's exit code convention.
    let mut kc = crate::kubectl_plugin::kubectl_cmd(
        &k,
        c.dir.path(),
        &[&bin, Path::new("/usr/bin")],
        &[
            "pacto",
            "get",
            "pactos",
            "nope",
            "--kubeconfig",
            s(&c.kubeconfig),
        ],
    );
    let r = run(&mut kc);
    r.assert_code(1);
    assert_eq!(
        r.stderr,
        "error: pactos.pacto.trianalab.io \"nope\" not found in namespace \"shop\"\n"
    );
}

/// A bearer token no HTTP header can carry (a control character, from the kubeconfig or
/// --token) is an error naming it, never a panic of the HTTP stack.
#[test]
fn a_token_with_a_control_character_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("kc.yaml");
    std::fs::write(
        &kc,
        "apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\"}\nusers:\n- name: u\n  user: {token: \"a\\u001bb\"}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n",
    )
    .unwrap();
    let r = run(&mut cmd(dir.path(), &["get", "--kubeconfig", s(&kc)]));
    r.assert_code(1).assert_no_panic();
    assert_eq!(
        r.stderr,
        "error: the bearer token (from --token, the kubeconfig or its exec plugin) holds a control character (\\x1b at byte 1): it cannot be sent in an HTTP header\n"
    );
    let r = run(&mut cmd(
        dir.path(),
        &["get", "--kubeconfig", s(&kc), "--token", "x\ny"],
    ));
    r.assert_code(1).assert_no_panic();
    assert!(
        r.stderr
            .starts_with("error: --token holds a control character (\\x0a at byte 1)"),
        "{}",
        r.stderr
    );
}

/// A kubeconfig whose only cluster is `cluster` (YAML flow fields) and whose only user is
/// `user`, in `dir`.
fn tls_kubeconfig(dir: &Path, name: &str, cluster: &str, user: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!("apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: c\n  cluster: {{server: 'https://127.0.0.1:1', {cluster}}}\nusers:\n- name: u\n  user: {{{user}}}\ncontexts:\n- name: x\n  context: {{cluster: c, user: u, namespace: shop}}\n"),
    )
    .unwrap();
    path
}

/// What kubectl v1.32 refuses before it connects, refused here in its words (each case was run
/// with kubectl: `specifying a root certificates file with the insecure flag is not allowed`,
/// `unable to load root certificates: unable to parse bytes as PEM block`); files the kubeconfig
/// names are read with a bound (a device, a FIFO: refused at once, not read for ever); a
/// password in a proxy or server URL never reaches a message.
#[test]
fn bad_tls_settings_unbounded_files_and_secrets_in_urls() {
    let c = shop();
    let dir = c.dir.path();
    let garbage = "Z2FyYmFnZQo="; // base64 of "garbage\n"
    let fifo = dir.join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // (kubeconfig, the error after `error: KUBECONFIG: `, or after `error: ` when it is the
    // proxy's, in kubectl's words: the proxy is chosen after the kubeconfig is read).
    let cases: Vec<(PathBuf, String)> = vec![
        (
            tls_kubeconfig(dir, "insecure.yaml", &format!("insecure-skip-tls-verify: true, certificate-authority-data: {garbage}"), "token: t"),
            "specifying a root certificates file with the insecure flag is not allowed".into(),
        ),
        (
            tls_kubeconfig(dir, "garbage.yaml", &format!("certificate-authority-data: {garbage}"), "token: t"),
            "unable to load root certificates: unable to parse bytes as PEM block".into(),
        ),
        (
            tls_kubeconfig(dir, "zero.yaml", "insecure-skip-tls-verify: true", "tokenFile: /dev/zero"),
            "tokenFile /dev/zero: not a regular file (a FIFO or a device would block or never end)".into(),
        ),
        (
            tls_kubeconfig(dir, "fifo.yaml", &format!("certificate-authority: {}", fifo.display()), "token: t"),
            format!("certificate-authority {}: not a regular file (a FIFO or a device would block or never end)", fifo.display()),
        ),
        (
            tls_kubeconfig(dir, "proxy.yaml", "insecure-skip-tls-verify: true, proxy-url: 'user:SECRET@proxy:1080'", "token: t"),
            "invalid 'proxy-url' \"user:xxxxx@proxy:1080\" for cluster \"c\": unsupported scheme \"\", must be http, https, or socks5".into(),
        ),
    ];
    for (kubeconfig, want) in cases {
        let r = run_with(
            &mut cmd(dir, &["get", "pactos", "--kubeconfig", s(&kubeconfig)]),
            None,
            DEADLINE,
        );
        r.assert_code(1).assert_no_panic();
        let shown = if want.starts_with("invalid 'proxy-url'") {
            format!("error: {want}\n")
        } else {
            format!("error: {}: {want}\n", kubeconfig.display())
        };
        assert_eq!(r.stderr, shown, "{}", kubeconfig.display());
    }
    let r = run_with(
        &mut cmd(
            dir,
            &[
                "get",
                "pactos",
                "-s",
                "https://user:SECRET@%zz:6443",
                "--token",
                "t",
            ],
        ),
        None,
        DEADLINE,
    );
    r.assert_code(1).assert_no_panic();
    assert!(!r.stderr.contains("SECRET"), "{}", r.stderr);
    assert!(r.stderr.contains("user:xxxxx@%zz:6443"), "{}", r.stderr);
}

/// A kubeconfig of 50,000 clusters (some 350,000 YAML nodes, past the 250,000 of kube-rs's own
/// reader) is read: its bounds are those of every YAML input, grown with the file's size, which
/// --max-input-bytes bounds.
#[test]
fn a_kubeconfig_of_many_clusters_is_read() {
    let c = shop();
    let mut text = std::fs::read_to_string(&c.kubeconfig).unwrap();
    text.push_str("\n---\nclusters:\n");
    for i in 0..50_000 {
        text.push_str(&format!(
            "- name: other-{i}\n  cluster: {{server: \"https://127.0.0.1:1\"}}\n"
        ));
    }
    let big = c.dir.path().join("big-kubeconfig");
    std::fs::write(&big, &text).unwrap();
    let r = run(&mut cmd(
        c.dir.path(),
        &["get", "-o", "name", "--kubeconfig", s(&big)],
    ));
    r.assert_code(0);
    assert!(
        r.stdout.contains("pacto.pacto.trianalab.io/orders\n"),
        "{}",
        r.stderr
    );
    // The file itself is bounded by --max-input-bytes, which says so.
    let r = run(&mut cmd(
        c.dir.path(),
        &["get", "--kubeconfig", s(&big), "--max-input-bytes", "1Mi"],
    ));
    r.assert_code(1);
    assert!(r.stderr.contains("--max-input-bytes"), "{}", r.stderr);
}
