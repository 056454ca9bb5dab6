//! `get -w` and `wait` against the real server, as kubectl and client-go's reflector
//! (`tools/cache/reflector.go`) follow a list: the watch starts from the list's own
//! `metadata.resourceVersion` (not an item's) and asks for bookmarks; one object is listed and
//! watched with `fieldSelector=metadata.name=NAME` (kubectl `wait`); across an API server
//! restart (its watch ends, its port refuses connections, and once back it answers a watch from
//! the old resourceVersion with `410 Gone`) `kubectl wait` still succeeds, and so must ours,
//! while `get -w` prints what changed meanwhile. Request lines are read from the server's audit
//! log and compared with kubectl's own for the same flags.

use super::*;
use std::io::Read;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The user agent of this tool's requests (`cluster::USER_AGENT`).
const OURS: &str = "kubectl-pacto/";
/// kubectl's (`kubectl/v1.32.4 (linux/amd64) kubernetes/...`).
const KUBECTL: &str = "kubectl/";

/// The audit events of requests for Pactos in `ns` by the client whose user agent starts with
/// `agent`, with `verb` at `stage`, in the order logged.
fn audited(
    kube: &kube_harness::Kube,
    ns: &str,
    agent: &str,
    verb: &str,
    stage: &str,
) -> Vec<Value> {
    let text = std::fs::read_to_string(kube.audit_log()).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| {
            e["verb"] == verb
                && e["stage"] == stage
                && e["objectRef"]["resource"] == "pactos"
                && e["objectRef"]["namespace"] == ns
                && e["userAgent"]
                    .as_str()
                    .is_some_and(|a| a.starts_with(agent))
        })
        .collect()
}

/// [`audited`], waiting up to 60 s until there are at least `n` (an event is logged after its
/// response is sent; a hang guard, not a measure).
fn audited_at_least(
    kube: &kube_harness::Kube,
    ns: &str,
    agent: &str,
    verb: &str,
    stage: &str,
    n: usize,
) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let found = audited(kube, ns, agent, verb, stage);
        if found.len() >= n || start.elapsed() > Duration::from_secs(60) {
            return found;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn uri(e: &Value) -> &str {
    e["requestURI"].as_str().unwrap_or_default()
}

/// The value of `key` in the query of a request URI, as sent (not decoded).
fn param<'a>(uri: &'a str, key: &str) -> Option<&'a str> {
    let (_, query) = uri.split_once('?')?;
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}

/// The keys of the query of a request URI, in the order sent.
fn keys(uri: &str) -> Vec<&str> {
    uri.split_once('?')
        .map(|(_, q)| {
            q.split('&')
                .map(|kv| kv.split('=').next().unwrap())
                .collect()
        })
        .unwrap_or_default()
}

/// `kubectl-pacto ARGS --kubeconfig ADMIN` started with both streams piped.
fn spawn_pacto(kube: &kube_harness::Kube, home: &Path, args: &[&str]) -> Child {
    let mut all = args.to_vec();
    all.extend(["--kubeconfig", s(kube.kubeconfig())]);
    let mut c: Command = pacto(&all);
    c.env("HOME", home)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c.spawn().unwrap()
}

/// A child whose stdout is collected as it runs (a `get -w` that never ends by itself).
struct Streaming {
    child: Child,
    out: Arc<Mutex<String>>,
}

impl Streaming {
    fn new(mut child: Child) -> Streaming {
        let out = Arc::new(Mutex::new(String::new()));
        let mut stdout = child.stdout.take().unwrap();
        let sink = Arc::clone(&out);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Streaming { child, out }
    }

    fn text(&self) -> String {
        self.out.lock().unwrap().clone()
    }

    /// Waits until `done(stdout)` holds (up to `guard`), then stops the child (by its pid) and
    /// returns its stdout and stderr.
    fn until(mut self, guard: Duration, done: impl Fn(&str) -> bool) -> (String, String) {
        let start = Instant::now();
        while !done(&self.text()) && start.elapsed() < guard {
            if self.child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        std::thread::sleep(Duration::from_millis(100));
        (self.text(), err)
    }
}

/// The data rows of a table, each as its cells.
fn cells_of(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// `get -w` starts its watch from the list's resourceVersion (not the newest object's: here a
/// ConfigMap written after the Pactos makes the list's newer than any Pacto's), asks for
/// bookmarks, and both request lines read as client-go writes them: kubectl's list of the same
/// flags is byte for byte the same request URI.
#[test]
fn get_watch_starts_from_the_lists_resource_version_with_kubectls_query() {
    let kube = kube_harness::shared();
    let ns = kube.namespace("watch-from");
    let stored = kube.apply(&ns, &[example_pacto("orders"), example_pacto("payments")]);
    kube.kubectl_ok(&["create", "configmap", "later", "-n", &ns], None);
    let home = tempfile::tempdir().unwrap();
    let selector = "!never,tier notin (a,b)";
    let r = pacto_on(
        kube,
        home.path(),
        &[
            "get",
            "pactos",
            "-n",
            &ns,
            "-l",
            selector,
            "-w",
            "--request-timeout",
            "4s",
        ],
    );
    r.assert_code(0).assert_no_panic();
    assert_eq!(
        column(&r.stdout, "NAME"),
        ["orders", "payments"],
        "{}",
        r.stdout
    );

    let lists = audited_at_least(kube, &ns, OURS, "list", "ResponseComplete", 1);
    assert_eq!(lists.len(), 1, "{lists:?}");
    let path = format!("/apis/pacto.trianalab.io/v1alpha1/namespaces/{ns}/pactos");
    let list_uri = format!("{path}?labelSelector=%21never%2Ctier+notin+%28a%2Cb%29&limit=500");
    assert_eq!(uri(&lists[0]), list_uri);
    let listed_at = lists[0]["responseObject"]["metadata"]["resourceVersion"]
        .as_str()
        .expect("the list's resourceVersion")
        .to_string();
    let newest_item = stored
        .iter()
        .filter_map(|o| {
            o["metadata"]["resourceVersion"]
                .as_str()?
                .parse::<u64>()
                .ok()
        })
        .max()
        .unwrap();
    assert!(
        listed_at.parse::<u64>().unwrap() > newest_item,
        "{listed_at} {newest_item}"
    );

    let watches = audited_at_least(kube, &ns, OURS, "watch", "ResponseStarted", 1);
    assert!(!watches.is_empty(), "no watch of ours in the audit log");
    let first = uri(&watches[0]);
    assert_eq!(
        param(first, "resourceVersion"),
        Some(listed_at.as_str()),
        "{first}"
    );
    assert_eq!(param(first, "allowWatchBookmarks"), Some("true"), "{first}");
    assert_eq!(
        keys(first),
        [
            "allowWatchBookmarks",
            "labelSelector",
            "resourceVersion",
            "timeoutSeconds",
            "watch"
        ],
        "{first}"
    );
    assert!(first.starts_with(&format!("{path}?allowWatchBookmarks=true&labelSelector=%21never%2Ctier+notin+%28a%2Cb%29&resourceVersion={listed_at}&timeoutSeconds=")), "{first}");
    assert!(first.ends_with("&watch=true"), "{first}");

    // kubectl's list with the same flags: the same request URI.
    let k = kube.kubectl_output(
        &["get", "pactos", "-n", &ns, "-l", selector, "-o", "name"],
        None,
    );
    assert_eq!(k.code, Some(0), "{}", k.stderr);
    let theirs = audited_at_least(kube, &ns, KUBECTL, "list", "ResponseComplete", 1);
    assert_eq!(theirs.len(), 1, "{theirs:?}");
    assert_eq!(uri(&theirs[0]), list_uri);
}

/// `wait KIND/NAME` lists and watches that one object by `fieldSelector=metadata.name=NAME`,
/// as `kubectl wait` does on the same server (its requests read from the audit log), and
/// watches from its list's resourceVersion with bookmarks.
#[test]
fn wait_by_name_lists_and_watches_that_one_object_as_kubectl_wait() {
    let kube = kube_harness::shared();
    let ns = kube.namespace("wait-name");
    kube.apply(&ns, &[example_pacto("orders"), example_pacto("payments")]);
    let k = kube.kubectl_output(
        &[
            "wait",
            "pactos.pacto.trianalab.io/orders",
            "-n",
            &ns,
            "--for=jsonpath={.metadata.labels.never}=x",
            "--timeout=3s",
        ],
        None,
    );
    assert_eq!(
        k.code,
        Some(1),
        "kubectl wait timed out: {}{}",
        k.stdout,
        k.stderr
    );
    let their_list = audited_at_least(kube, &ns, KUBECTL, "list", "ResponseComplete", 1);
    let their_watch = audited_at_least(kube, &ns, KUBECTL, "watch", "ResponseStarted", 1);
    assert!(!their_list.is_empty() && !their_watch.is_empty());
    let by_name = Some("metadata.name%3Dorders");
    assert_eq!(param(uri(&their_list[0]), "fieldSelector"), by_name);
    assert_eq!(param(uri(&their_watch[0]), "fieldSelector"), by_name);

    let home = tempfile::tempdir().unwrap();
    let r = pacto_on(
        kube,
        home.path(),
        &[
            "wait",
            "pacto/orders",
            "-n",
            &ns,
            "--for",
            "delete",
            "--timeout",
            "3s",
        ],
    );
    r.assert_code(1).assert_no_panic();
    assert!(
        r.stderr.starts_with(
            "error: timed out after 3s waiting for delete on pacto.pacto.trianalab.io/orders"
        ),
        "{}",
        r.stderr
    );
    let lists = audited_at_least(kube, &ns, OURS, "list", "ResponseComplete", 1);
    assert_eq!(lists.len(), 1, "{lists:?}");
    assert_eq!(
        uri(&lists[0]),
        format!("/apis/pacto.trianalab.io/v1alpha1/namespaces/{ns}/pactos?fieldSelector=metadata.name%3Dorders&limit=500")
    );
    // The list holds orders only.
    let items = lists[0]["responseObject"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    let listed_at = lists[0]["responseObject"]["metadata"]["resourceVersion"]
        .as_str()
        .unwrap();
    let watches = audited_at_least(kube, &ns, OURS, "watch", "ResponseStarted", 1);
    assert!(!watches.is_empty());
    let w = uri(&watches[0]);
    assert_eq!(param(w, "fieldSelector"), by_name, "{w}");
    assert_eq!(param(w, "resourceVersion"), Some(listed_at), "{w}");
    assert_eq!(param(w, "allowWatchBookmarks"), Some("true"), "{w}");
    // Nothing read by name: the audit log has no get of ours.
    assert!(audited(kube, &ns, OURS, "get", "ResponseComplete").is_empty());
}

/// With `KUBECONFIG` naming only files that do not exist, `--server`, `--token` and
/// `--certificate-authority` alone reach the server, as kubectl v1.32 does with the same
/// environment.
#[test]
fn server_and_token_work_when_kubeconfig_names_only_missing_files() {
    let kube = kube_harness::shared();
    let ns = kube.namespace("flags-only");
    kube.apply(&ns, &[example_pacto("orders")]);
    let home = tempfile::tempdir().unwrap();
    let flags = [
        "-n",
        &ns,
        "-o",
        "name",
        "-s",
        kube.server(),
        "--token",
        kube.token(),
        "--certificate-authority",
        s(kube.ca_file()),
    ];
    let k = crate::kubectl_plugin::kubectl();
    let mut args = vec!["get", "pactos.pacto.trianalab.io"];
    args.extend(flags);
    let mut kc = crate::kubectl_plugin::kubectl_cmd(
        &k,
        home.path(),
        &[Path::new("/usr/bin"), Path::new("/bin")],
        &args,
    );
    kc.env("KUBECONFIG", "/nonexistent/a:/nonexistent/b");
    let kubectl = run_with(&mut kc, None, Duration::from_secs(60));
    assert_eq!(kubectl.code, Some(0), "{}", kubectl.stderr);
    assert_eq!(kubectl.stdout, "pacto.pacto.trianalab.io/orders\n");
    let mut ours = vec!["get"];
    ours.extend(flags);
    let mut c: Command = pacto(&ours);
    c.env("HOME", home.path())
        .env("KUBECONFIG", "/nonexistent/a:/nonexistent/b")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT");
    let r = run_with(&mut c, None, Duration::from_secs(60));
    r.assert_code(0).assert_no_panic();
    assert_eq!(r.stdout, kubectl.stdout);
}

/// Bookmarks as the real server sends them and as the fake API server sends them for the same
/// requests. From an older resourceVersion, once the server's watch cache has moved past it (a
/// consistent list makes it catch up with etcd), one bookmark comes 2 s before the deadline: an
/// object of the watched kind carrying only `metadata.resourceVersion`, newer than the watch's.
/// From `0` (served as a watch list since Kubernetes 1.34), the objects come as ADDED, then a
/// bookmark annotated `k8s.io/initial-events-end`.
#[test]
fn the_fake_sends_bookmarks_as_the_real_server_does() {
    let kube = kube_harness::shared();
    let ns = kube.namespace("bookmarks");
    let stored = kube.apply(&ns, &[example_pacto("orders")]);
    let from = stored[0]["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    kube.kubectl_ok(&["create", "configmap", "later", "-n", &ns], None);
    let collection = format!("/apis/pacto.trianalab.io/v1alpha1/namespaces/{ns}/pactos");
    kube.kubectl_ok(&["get", "--raw", &collection], None);
    let events = |text: &str| -> Vec<Value> {
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    };
    let query = |rv: &str| {
        format!(
            "{collection}?watch=1&allowWatchBookmarks=true&resourceVersion={rv}&timeoutSeconds=4"
        )
    };
    // The real server sends the bookmark due before the watch's deadline from a timer: on a
    // loaded machine it can miss a 4 s watch. Ask again (three times at most) until a watch
    // carries its timed bookmark.
    let bookmarks = |v: &[Value]| v.iter().filter(|e| e["type"] == "BOOKMARK").count();
    let until_bookmarks = |want: usize, fetch: &dyn Fn() -> String| {
        let mut got = Vec::new();
        for _ in 0..3 {
            got = events(&fetch());
            if bookmarks(&got) >= want {
                break;
            }
        }
        got
    };
    let watched = |rv: &str, want: usize| {
        until_bookmarks(want, &|| {
            kube.kubectl_ok(&["get", "--raw", &query(rv)], None)
        })
    };
    let real = watched(&from, 1);
    // From 0: the initial-events-end bookmark, then (when the cluster wrote meanwhile) the
    // timed one.
    let real_from_zero = watched("0", 2);

    let fake = fake_apiserver::FakeApiServer::start();
    fake.register(fake_apiserver::Resource::pacto());
    let mut o = example_pacto("orders");
    o["metadata"]["namespace"] = Value::from(ns.as_str());
    fake.insert(o);
    let fake_from = fake.resource_version();
    fake.insert(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "later", "namespace": ns}}));
    // The fake's timed bookmark can miss a 4 s watch on a loaded machine too: asked as often.
    let faked_watch =
        |rv: &str, want: usize| until_bookmarks(want, &|| raw_get(fake.addr(), &query(rv)));
    let faked = faked_watch(&fake_from.to_string(), 1);
    let faked_from_zero = faked_watch("0", 1);

    // Each bookmark newer than where its watch started; then compared with the numbers left
    // out, and a repeated one once (the real server's one-second bookmark buckets may send the
    // bookmark due 2 s before the deadline twice).
    for (bookmarks, start) in [(&real, from.parse::<u64>().unwrap()), (&faked, fake_from)] {
        assert!(!bookmarks.is_empty(), "no bookmark");
        for b in bookmarks {
            assert_eq!(b["type"], "BOOKMARK", "{bookmarks:?}");
            let rv: u64 = b["object"]["metadata"]["resourceVersion"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!(rv > start, "{bookmarks:?}");
        }
    }
    let normalized = |e: &Value| {
        let mut e = e.clone();
        if e["type"] == "BOOKMARK" {
            e["object"]["metadata"]["resourceVersion"] = Value::from("RV");
        } else {
            e["object"] = e["object"]["metadata"]["name"].clone();
        }
        e
    };
    let shape = |v: &[Value]| {
        let mut out = v.iter().map(normalized).collect::<Vec<_>>();
        out.dedup();
        out
    };
    assert_eq!(shape(&faked), shape(&real));
    // From 0 the events up to the initial-events-end bookmark are the same on both. A timed
    // bookmark after it goes out only when the resourceVersion moved on during the watch (the
    // cache watcher's `process`): the real server's moves with the cluster's own writes
    // (leases) and etcd's progress notifications, the fake's only with the test's writes. So
    // what follows is compared as "only plain bookmarks", not counted.
    let initial = |v: &[Value]| {
        let v = shape(v);
        let end = v
            .iter()
            .position(|e| {
                e["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"] == "true"
            })
            .unwrap_or_else(|| panic!("no initial-events-end bookmark: {v:?}"));
        let (head, tail) = v.split_at(end + 1);
        for e in tail {
            assert_eq!(e["type"], "BOOKMARK", "{v:?}");
            assert!(
                e["object"]["metadata"].get("annotations").is_none(),
                "{v:?}"
            );
        }
        head.to_vec()
    };
    assert_eq!(initial(&faked_from_zero), initial(&real_from_zero));
    assert_eq!(initial(&real_from_zero).len(), 2, "{real_from_zero:?}");
}

/// A GET over plain HTTP/1.1, its body read until the server closes (a watch).
fn raw_get(addr: std::net::SocketAddr, path: &str) -> String {
    use std::io::Write;
    let mut conn = std::net::TcpStream::connect(addr).unwrap();
    write!(
        conn,
        "GET {path} HTTP/1.1\r\nHost: fake\r\nAccept: application/json\r\n\r\n"
    )
    .unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut raw = String::new();
    conn.read_to_string(&mut raw).unwrap();
    raw.split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default()
}

/// Across a restart of the API server (the watch ends, the port refuses connections, and once
/// back the server answers a watch from the old resourceVersion with `410 Gone`, as
/// `real::smoke` shows): `kubectl wait --for=delete` and ours both end with `condition met`
/// when the object is deleted after the restart; `get -w` prints one row per change made after
/// the restart (the changed and the new object as they are now, the deleted one as last
/// seen) and nothing for the unchanged one. The fake API server answers the old
/// resourceVersion after its own restart with the same ERROR event.
#[test]
fn wait_and_get_watch_carry_on_across_an_api_server_restart() {
    let mut kube = kube_harness::Kube::start();
    let ns = kube.namespace("restart");
    let stored = kube.apply(
        &ns,
        &[
            example_pacto("orders"),
            example_pacto("payments"),
            example_pacto("search"),
            example_pacto("billing"),
        ],
    );
    let home = tempfile::tempdir().unwrap();
    let before = pacto_on(&kube, home.path(), &["get", "pactos", "-n", &ns]);
    before.assert_code(0);

    let theirs = kube
        .kubectl(&[
            "wait",
            "pactos.pacto.trianalab.io/billing",
            "-n",
            &ns,
            "--for=delete",
            "--timeout=280s",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let ours = spawn_pacto(
        &kube,
        home.path(),
        &[
            "wait",
            "pacto/billing",
            "-n",
            &ns,
            "--for",
            "delete",
            "--timeout",
            "280s",
        ],
    );
    let watching = Streaming::new(spawn_pacto(
        &kube,
        home.path(),
        &["get", "pactos", "-n", &ns, "-w"],
    ));
    // Both of ours watch (our wait and our get -w), and kubectl's wait does.
    assert!(audited_at_least(&kube, &ns, OURS, "watch", "ResponseStarted", 2).len() >= 2);
    assert!(!audited_at_least(&kube, &ns, KUBECTL, "watch", "ResponseStarted", 1).is_empty());
    // Something else is written: the restarted server's watch cache starts past every
    // resourceVersion the watches hold.
    kube.kubectl_ok(&["create", "configmap", "later", "-n", &ns], None);
    let old_rv = stored[0]["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();

    kube.restart_apiserver();
    kube.kubectl_ok(
        &[
            "patch",
            "pacto",
            "orders",
            "-n",
            &ns,
            "--type=merge",
            "-p",
            r#"{"spec":{"target":{"serviceName":"orders-v2"}}}"#,
        ],
        None,
    );
    let mut copy = example_pacto("search");
    copy["metadata"]["name"] = Value::from("search-copy");
    kube.apply(&ns, &[copy]);
    // In name order, the order in which a relist reports deletions: the rows come out the
    // same whether the follow listed again before these changes or after them.
    kube.kubectl_ok(&["delete", "pacto", "billing", "-n", &ns], None);
    kube.kubectl_ok(&["delete", "pacto", "payments", "-n", &ns], None);

    let kubectl = finish(theirs, Duration::from_secs(290), "kubectl wait");
    assert_eq!(kubectl.code, Some(0), "kubectl wait: {}", kubectl.stderr);
    let r = finish(ours, Duration::from_secs(290), "kubectl pacto wait");
    r.assert_code(0).assert_no_panic();
    assert_eq!(r.stdout, kubectl.stdout);
    assert_eq!(r.stdout, "pacto.pacto.trianalab.io/billing condition met\n");

    let after = pacto_on(&kube, home.path(), &["get", "pactos", "-n", &ns]);
    after.assert_code(0);
    let row = |table: &str, name: &str| -> Vec<String> {
        cells_of(table)
            .into_iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("no row {name}: {table}"))
    };
    let want = vec![
        row(&after.stdout, "orders"),
        row(&after.stdout, "search-copy"),
        row(&before.stdout, "billing"),
        row(&before.stdout, "payments"),
    ];
    // The listing as `get` printed it (its AGE column aside), then one row per change.
    let listed = before.stdout.lines().count();
    let (printed, err) = watching.until(Duration::from_secs(280), |out| {
        out.lines().count() >= listed + want.len()
    });
    // AGE is the time since creation when the row is printed: left out of the comparison.
    let age = column_index(&before.stdout, "AGE");
    let without_age = |rows: &[Vec<String>]| -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| {
                let mut r = r.clone();
                if r.len() > age {
                    r.remove(age);
                }
                r
            })
            .collect()
    };
    let all: Vec<Vec<String>> = printed
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    assert!(all.len() >= listed, "{printed}\n{err}");
    let (listing, rows) = all.split_at(listed);
    let before_rows: Vec<Vec<String>> = before
        .stdout
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    assert_eq!(
        without_age(listing),
        without_age(&before_rows),
        "{printed}\n{err}"
    );
    assert_eq!(without_age(rows), without_age(&want), "{printed}\n{err}");
    // The new object's age is a real one (not in the future of a clock read at the start).
    assert!(!rows[1][age].contains("invalid"), "{printed}");
    // Both follows listed again after the restart (410 for their old resourceVersion): the
    // listings before and after, the two first lists, and the two relists.
    let lists = audited(&kube, &ns, OURS, "list", "ResponseComplete");
    assert!(lists.len() >= 6, "{}", lists.len());
    assert_eq!(
        row(&after.stdout, "orders")[column_index(&after.stdout, "SERVICE")],
        "orders-v2"
    );

    // The restarted server answers a watch from the old resourceVersion with one 410 ERROR
    // event; so does the fake after its restart.
    let path = format!(
        "/apis/pacto.trianalab.io/v1alpha1/namespaces/{ns}/pactos?watch=1&resourceVersion={old_rv}&timeoutSeconds=5"
    );
    let real = kube.kubectl_ok(&["get", "--raw", &path], None);
    let fake = fake_apiserver::FakeApiServer::start();
    fake.register(fake_apiserver::Resource::pacto());
    let mut o = example_pacto("orders");
    o["metadata"]["namespace"] = Value::from(ns.as_str());
    fake.insert(o);
    let fake_old = fake.resource_version();
    fake.insert(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "later", "namespace": ns}}));
    fake.restart();
    let fake_answer = raw_get(fake.addr(), &path.replace(&old_rv, &fake_old.to_string()));
    let shape = |text: &str| -> Vec<Value> {
        text.lines()
            .map(|l| {
                let mut e: Value = serde_json::from_str(l).unwrap();
                let m = e["object"]["message"].as_str().unwrap_or_default();
                let cut = m.find(':').map_or(m.len(), |i| i + 1);
                e["object"]["message"] = Value::from(&m[..cut]);
                e
            })
            .collect()
    };
    assert_eq!(
        shape(&fake_answer),
        shape(&real),
        "fake: {fake_answer}\nreal: {real}"
    );
}

/// The position of `header` among the columns of a kubectl-style table.
fn column_index(table: &str, header: &str) -> usize {
    table
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .position(|h| h == header)
        .unwrap_or_else(|| panic!("no column {header}: {table}"))
}
