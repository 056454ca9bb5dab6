//! Lists: label and field selectors, paging, scopes, watch.

mod common;

use common::{get, server_with_widgets, Conn, WIDGETS};
use fake_apiserver::FakeApiServer;
use serde_json::{json, Value};

fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| {
            let ns = item["metadata"]["namespace"].as_str().unwrap_or("");
            format!("{ns}/{}", item["metadata"]["name"].as_str().unwrap())
        })
        .collect()
}

fn widget(ns: &str, name: &str, labels: Value) -> Value {
    json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": name, "namespace": ns, "labels": labels},
        "spec": {"size": 1},
    })
}

fn seeded() -> FakeApiServer {
    let server = server_with_widgets();
    server.insert(widget(
        "default",
        "b",
        json!({"app": "web", "tier": "front"}),
    ));
    server.insert(widget("default", "a", json!({"app": "db", "tier": "back"})));
    server.insert(widget("default", "c", json!({"app": "cache"})));
    server.insert(widget("other", "a", json!({"app": "web", "env": "prod"})));
    server
}

fn select(server: &FakeApiServer, base: &str, selector: &str) -> Vec<String> {
    let encoded = selector
        .replace('%', "%25")
        .replace(' ', "%20")
        .replace('!', "%21")
        .replace('=', "%3D")
        .replace(',', "%2C")
        .replace('(', "%28")
        .replace(')', "%29");
    let response = get(server, &format!("{base}?labelSelector={encoded}"));
    assert_eq!(response.status, 200, "{selector}: {}", response.body);
    names(&response.json())
}

#[test]
fn list_shape_and_order() {
    let server = seeded();
    let list = get(&server, WIDGETS).json();
    assert_eq!(list["apiVersion"], "example.com/v1");
    assert_eq!(list["kind"], "WidgetList");
    assert_eq!(
        list["metadata"],
        json!({"resourceVersion": server.resource_version().to_string()})
    );
    assert_eq!(names(&list), ["default/a", "default/b", "default/c"]);
    assert_eq!(list["items"][0]["apiVersion"], "example.com/v1");
    assert_eq!(list["items"][0]["kind"], "Widget");
    let all = get(&server, "/apis/example.com/v1/widgets").json();
    assert_eq!(
        names(&all),
        ["default/a", "default/b", "default/c", "other/a"]
    );
    let empty = get(
        &server,
        "/apis/example.com/v1/namespaces/nothing-here/widgets",
    );
    assert_eq!(empty.status, 200);
    assert_eq!(empty.json()["items"], json!([]));
}

#[test]
fn label_selector_forms() {
    let server = seeded();
    let all = "/apis/example.com/v1/widgets";
    let cases: &[(&str, &[&str])] = &[
        ("app=web", &["default/b", "other/a"]),
        ("app==web", &["default/b", "other/a"]),
        ("app!=web", &["default/a", "default/c"]),
        ("app in (web,db)", &["default/a", "default/b", "other/a"]),
        ("app notin (web)", &["default/a", "default/c"]),
        ("tier", &["default/a", "default/b"]),
        ("!tier", &["default/c", "other/a"]),
        ("app=web, env", &["other/a"]),
        ("app in (web), tier notin (back), !env", &["default/b"]),
        ("tier notin (front,back)", &["default/c", "other/a"]),
        ("", &["default/a", "default/b", "default/c", "other/a"]),
    ];
    for (selector, expected) in cases {
        assert_eq!(
            select(&server, all, selector),
            *expected,
            "selector {selector:?}"
        );
    }
    // `+` for spaces, as form-encoding clients send it.
    let response = get(&server, &format!("{all}?labelSelector=app+in+%28cache%29"));
    assert_eq!(names(&response.json()), ["default/c"]);
}

#[test]
fn malformed_label_selector_is_400() {
    let server = seeded();
    for selector in [
        "app%3D%3D%3Dweb",
        "app%20in%20%28web",
        "app%3Dweb%2C",
        "%28app%29",
        "app%20web",
    ] {
        let response = get(&server, &format!("{WIDGETS}?labelSelector={selector}"));
        assert_eq!(response.status, 400, "{selector}");
        let body = response.json();
        assert_eq!(body["kind"], "Status");
        assert_eq!(body["reason"], "BadRequest");
        assert_eq!(body["code"], 400);
        assert!(!body["message"].as_str().unwrap().is_empty());
    }
}

#[test]
fn field_selectors() {
    let server = seeded();
    let all = "/apis/example.com/v1/widgets";
    let list = get(&server, &format!("{all}?fieldSelector=metadata.name%3Da")).json();
    assert_eq!(names(&list), ["default/a", "other/a"]);
    let list = get(
        &server,
        &format!("{all}?fieldSelector=metadata.name%3D%3Da,metadata.namespace%21%3Ddefault"),
    )
    .json();
    assert_eq!(names(&list), ["other/a"]);
    let list = get(
        &server,
        &format!("{all}?fieldSelector=metadata.namespace%3Dother"),
    )
    .json();
    assert_eq!(names(&list), ["other/a"]);
    let response = get(&server, &format!("{all}?fieldSelector=spec.size%3D1"));
    assert_eq!(response.status, 400);
    assert_eq!(response.json()["reason"], "BadRequest");
}

#[test]
fn paging_with_limit_and_continue() {
    let server = seeded();
    let all = "/apis/example.com/v1/widgets";
    let first = get(&server, &format!("{all}?limit=3")).json();
    assert_eq!(names(&first), ["default/a", "default/b", "default/c"]);
    let token = first["metadata"]["continue"]
        .as_str()
        .expect("continue")
        .to_string();
    assert_eq!(first["metadata"]["remainingItemCount"], 1);
    let second = get(&server, &format!("{all}?limit=3&continue={token}")).json();
    assert_eq!(names(&second), ["other/a"]);
    assert!(second["metadata"].get("continue").is_none());
    // Selectors apply within pages.
    let page = get(&server, &format!("{all}?limit=1&labelSelector=app%3Dweb")).json();
    assert_eq!(names(&page), ["default/b"]);
    let token = page["metadata"]["continue"].as_str().unwrap().to_string();
    let page = get(
        &server,
        &format!("{all}?limit=1&labelSelector=app%3Dweb&continue={token}"),
    )
    .json();
    assert_eq!(names(&page), ["other/a"]);
    assert!(page["metadata"].get("continue").is_none());
    let exact = get(&server, &format!("{WIDGETS}?limit=3")).json();
    assert!(exact["metadata"].get("continue").is_none());
    assert_eq!(get(&server, &format!("{all}?continue=zz")).status, 400);
}

#[test]
fn unknown_plural_is_404() {
    let server = seeded();
    let response = get(&server, "/apis/example.com/v1/namespaces/default/gizmos");
    assert_eq!(response.status, 404);
    assert_eq!(
        response.json(),
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "the server could not find the requested resource",
            "reason": "NotFound", "details": {}, "code": 404,
        })
    );
}

/// The events of a watch request, read until the server ends the stream (its timeout), and the
/// response head.
fn watch_events(
    server: &FakeApiServer,
    query: &str,
    during: impl FnOnce(),
) -> (String, Vec<Value>) {
    let mut conn = Conn::open(server);
    conn.send_raw(
        format!("GET {WIDGETS}?{query} HTTP/1.1\r\nHost: fake\r\nAccept: application/json\r\n\r\n")
            .as_bytes(),
    );
    during();
    let raw = String::from_utf8(conn.read_to_end().unwrap()).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let events = body
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    (head.to_string(), events)
}

#[test]
fn watch_streams_added_events_then_changes_until_its_timeout() {
    let server = seeded();
    let (head, events) = watch_events(
        &server,
        "watch=true&labelSelector=tier&timeoutSeconds=1",
        || {},
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("Connection: close"), "{head}");
    assert!(
        !head.to_ascii_lowercase().contains("content-length"),
        "{head}"
    );
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["type"], "ADDED");
    assert_eq!(events[0]["object"]["metadata"]["name"], "a");
    assert_eq!(events[1]["object"]["metadata"]["name"], "b");
    // From a resourceVersion: only what changes after it, as it happens.
    let rv = server.resource_version();
    let (_, events) = watch_events(
        &server,
        &format!("watch=true&resourceVersion={rv}&timeoutSeconds=2"),
        || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            let mut w = server
                .get("example.com/v1", "Widget", Some("default"), "a")
                .unwrap();
            w["spec"] = json!({"size": 9});
            server.insert(w);
        },
    );
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["type"], "MODIFIED");
    assert_eq!(events[0]["object"]["spec"]["size"], 9);
}

/// With `allowWatchBookmarks=true`, kube-apiserver's watch cache sends a `BOOKMARK` 2 s before
/// the watch's deadline (apiserver `pkg/storage/cacher/cache_watcher.go` `nextBookmarkTime`)
/// when the resourceVersion it has reached is newer than the watch's (`process`): an object of
/// the watched kind that carries only that resourceVersion, changes to other kinds included.
/// Without it, no bookmark. The real server's answers are compared in
/// `tests/kubectl_pacto/real/watch.rs`.
#[test]
fn a_watch_asking_for_bookmarks_gets_one_before_its_deadline() {
    let server = seeded();
    let rv = server.resource_version();
    let (_, events) = watch_events(
        &server,
        &format!("watch=true&allowWatchBookmarks=true&resourceVersion={rv}&timeoutSeconds=3"),
        || {
            server.insert(json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "elsewhere", "namespace": "default"}}));
        },
    );
    let now = server.resource_version();
    assert!(now > rv);
    assert_eq!(
        events,
        [
            json!({"type": "BOOKMARK", "object": {"kind": "Widget", "apiVersion": "example.com/v1",
            "metadata": {"resourceVersion": now.to_string()}}})
        ]
    );
    let (_, events) = watch_events(
        &server,
        &format!("watch=true&resourceVersion={now}&timeoutSeconds=3"),
        || {},
    );
    assert!(events.is_empty(), "{events:?}");
    // A quiet watch from the current resourceVersion: no bookmark (it would not move on).
    let (_, events) = watch_events(
        &server,
        &format!("watch=true&allowWatchBookmarks=true&resourceVersion={now}&timeoutSeconds=3"),
        || {},
    );
    assert!(events.is_empty(), "{events:?}");
    // From 0: the objects as ADDED, then the bookmark that ends the initial events.
    let (_, events) = watch_events(
        &server,
        "watch=true&allowWatchBookmarks=true&labelSelector=tier%3Dback&timeoutSeconds=1",
        || {},
    );
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["type"], "ADDED");
    assert_eq!(
        events[1],
        json!({"type": "BOOKMARK", "object": {"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"annotations": {"k8s.io/initial-events-end": "true"},
                "resourceVersion": now.to_string()}}})
    );
    // A watch shorter than 2 s ends before a bookmark is due.
    let (_, events) = watch_events(
        &server,
        &format!("watch=true&allowWatchBookmarks=1&resourceVersion={now}&timeoutSeconds=1"),
        || {},
    );
    assert!(events.is_empty(), "{events:?}");
}

/// Once the history is compacted past a resourceVersion, a watch from it is answered 200 with
/// one ERROR event, a 410 `Expired` Status `too old resource version: RV (OLDEST)`, and the
/// stream ends (apiserver `pkg/storage/cacher/watch_cache.go`; the real server's answer is
/// checked in `tests/kubectl_pacto/real/`). From the compacted resourceVersion itself the
/// watch works.
#[test]
fn a_watch_from_before_a_compaction_is_410_gone() {
    let server = seeded();
    let old = server.resource_version();
    let mut w = server
        .get("example.com/v1", "Widget", Some("default"), "a")
        .unwrap();
    w["spec"] = json!({"size": 5});
    server.insert(w);
    let compacted = server.compact();
    assert_eq!(compacted, old + 1);
    let (head, events) = watch_events(
        &server,
        &format!("watch=true&resourceVersion={old}&timeoutSeconds=30"),
        || {},
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(
        events,
        [
            json!({"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1",
            "metadata": {}, "status": "Failure",
            "message": format!("too old resource version: {old} ({compacted})"),
            "reason": "Expired", "code": 410}})
        ]
    );
    let (_, events) = watch_events(
        &server,
        &format!("watch=true&resourceVersion={compacted}&timeoutSeconds=1"),
        || {},
    );
    assert!(events.is_empty(), "{events:?}");
}

/// A restart ends every open watch at once and starts the history anew: a watch from a
/// resourceVersion before it is then 410 Gone, the objects are all still there.
#[test]
fn a_restart_ends_open_watches_and_expires_older_resource_versions() {
    let server = seeded();
    let before = server.resource_version();
    server.insert(widget("default", "d", json!({})));
    let rv = server.resource_version();
    let started = std::time::Instant::now();
    let (_, events) = watch_events(
        &server,
        &format!("watch=true&resourceVersion={rv}&timeoutSeconds=60"),
        || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            server.restart();
        },
    );
    assert!(events.is_empty(), "{events:?}");
    // Ended by the restart, not by its 60 s timeout (a hang guard, not a measure).
    assert!(started.elapsed() < std::time::Duration::from_secs(50));
    let (_, events) = watch_events(
        &server,
        &format!("watch=true&resourceVersion={before}&timeoutSeconds=30"),
        || {},
    );
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["object"]["code"], 410);
    assert_eq!(
        events[0]["object"]["message"],
        format!("too old resource version: {before} ({rv})")
    );
    assert_eq!(server.list("example.com/v1", "Widget").len(), 5);
}
