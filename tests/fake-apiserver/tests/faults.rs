//! Fault injection.

mod common;

use std::time::{Duration, Instant};

use common::{call, get, merge_patch, server_with_widgets, Conn, WIDGETS};
use fake_apiserver::{FakeApiServer, Fault, FaultAction};
use serde_json::json;

#[test]
fn forbidden_names_verb_and_resource() {
    let server = server_with_widgets();
    server.fault(Fault::always("/widgets", FaultAction::Status(403)));
    let user = "User \"system:serviceaccount:default:pacto\"";
    let list = get(&server, WIDGETS);
    assert_eq!(list.status, 403);
    assert_eq!(
        list.json(),
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": format!("widgets.example.com is forbidden: {user} cannot list resource \"widgets\" in API group \"example.com\" in the namespace \"default\""),
            "reason": "Forbidden",
            "details": {"group": "example.com", "kind": "widgets"},
            "code": 403,
        })
    );
    let cases = [
        (
            "GET",
            format!("{WIDGETS}?watch=true"),
            "cannot watch resource \"widgets\"",
        ),
        (
            "GET",
            format!("{WIDGETS}/w"),
            "cannot get resource \"widgets\"",
        ),
        (
            "POST",
            WIDGETS.to_string(),
            "cannot create resource \"widgets\"",
        ),
        (
            "PUT",
            format!("{WIDGETS}/w"),
            "cannot update resource \"widgets\"",
        ),
        (
            "PATCH",
            format!("{WIDGETS}/w/status"),
            "cannot patch resource \"widgets/status\"",
        ),
        (
            "DELETE",
            format!("{WIDGETS}/w"),
            "cannot delete resource \"widgets\"",
        ),
        (
            "GET",
            "/apis/example.com/v1/widgets".to_string(),
            "at the cluster scope",
        ),
    ];
    for (method, path, needle) in cases {
        let response = call(
            &server,
            method,
            &path,
            Some("application/merge-patch+json"),
            "{}",
        );
        assert_eq!(response.status, 403, "{method} {path}");
        let body = response.json();
        let message = body["message"].as_str().unwrap();
        assert!(message.contains(needle), "{method} {path}: {message}");
        assert!(message.contains(user), "{message}");
    }
    let named = get(&server, &format!("{WIDGETS}/w")).json();
    assert_eq!(
        named["details"],
        json!({"group": "example.com", "kind": "widgets", "name": "w"})
    );
    server.clear_faults();
    server.fault(Fault::always("/api", FaultAction::Status(403)));
    let core = get(&server, "/api/v1/namespaces/default/configmaps").json();
    assert_eq!(
        core["message"],
        format!("configmaps is forbidden: {user} cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\"")
    );
    let discovery = get(&server, "/apis").json();
    assert_eq!(discovery["reason"], "Forbidden");
    assert_eq!(
        discovery["message"],
        format!("forbidden: {user} cannot get path \"/apis\"")
    );
}

#[test]
fn status_codes_from_the_standard_table() {
    let server = server_with_widgets();
    let path = format!("{WIDGETS}/w");
    let cases = [
        (404, "NotFound", "widgets.example.com \"w\" not found".to_string()),
        (
            409,
            "Conflict",
            "Operation cannot be fulfilled on widgets.example.com \"w\": the object has been modified; please apply your changes to the latest version and try again".to_string(),
        ),
        (500, "InternalError", "Internal error occurred: injected fault".to_string()),
        (503, "ServiceUnavailable", "the server is currently unable to handle the request".to_string()),
        (400, "BadRequest", "the server rejected our request for an unknown reason".to_string()),
        (401, "Unauthorized", "Unauthorized".to_string()),
        (504, "Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request".to_string()),
    ];
    for (code, reason, message) in cases {
        server.clear_faults();
        server.fault(Fault::once("/widgets/w", FaultAction::Status(code)));
        let response = get(&server, &path);
        assert_eq!(response.status, code);
        let body = response.json();
        assert_eq!(body["kind"], "Status");
        assert_eq!(body["code"], code);
        assert_eq!(body["reason"], reason, "{code}");
        assert_eq!(body["message"], message.as_str(), "{code}");
    }
}

#[test]
fn too_many_requests_carries_retry_after() {
    let server = server_with_widgets();
    server.fault(Fault::once("/widgets", FaultAction::Status(429)));
    let response = get(&server, WIDGETS);
    assert_eq!(response.status, 429);
    assert_eq!(response.header("retry-after"), Some("1"));
    let body = response.json();
    assert_eq!(body["reason"], "TooManyRequests");
    assert_eq!(
        body["message"],
        "the server has received too many requests and has asked us to try again later"
    );
    assert_eq!(body["details"]["retryAfterSeconds"], 1);
    assert_eq!(get(&server, WIDGETS).status, 200, "once means once");
}

#[test]
fn drop_closes_without_a_byte() {
    let server = server_with_widgets();
    server.fault(Fault::once("/widgets", FaultAction::Drop).on_method("PATCH"));
    assert_eq!(get(&server, WIDGETS).status, 200, "method filter");
    let mut conn = Conn::open(&server);
    conn.send_raw(
        format!("PATCH {WIDGETS}/w HTTP/1.1\r\nHost: x\r\nContent-Type: application/merge-patch+json\r\nContent-Length: 2\r\n\r\n{{}}")
            .as_bytes(),
    );
    let rest = conn.read_to_end().unwrap_or_default();
    assert!(rest.is_empty(), "got {:?}", String::from_utf8_lossy(&rest));
    let recorded = server.requests();
    let last = recorded.last().unwrap();
    assert_eq!(last.method, "PATCH");
    assert_eq!(last.body, "{}");
    assert_eq!(
        merge_patch(&server, &format!("{WIDGETS}/w"), &json!({})).status,
        404
    );
}

#[test]
fn delay_then_normal_handling() {
    // The delay is long against a loopback request (about a millisecond), so that a busy
    // machine cannot make the second, undelayed request look delayed.
    let delay = Duration::from_secs(2);
    let server = server_with_widgets();
    server.fault(Fault::once("/version", FaultAction::Delay(delay)));
    let start = Instant::now();
    let response = get(&server, "/version");
    assert!(start.elapsed() >= delay);
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["gitVersion"], "v1.32.0");
    let start = Instant::now();
    get(&server, "/version");
    assert!(start.elapsed() < delay, "the delay fired once only");
}

#[test]
fn times_exhaust_and_order_decides() {
    let server = server_with_widgets();
    server.fault(Fault::limited("/widgets", FaultAction::Status(500), 2));
    server.fault(Fault::always("/widgets", FaultAction::Status(503)));
    let codes: Vec<u16> = (0..4).map(|_| get(&server, WIDGETS).status).collect();
    assert_eq!(codes, [500, 500, 503, 503]);
    server.clear_faults();
    assert_eq!(get(&server, WIDGETS).status, 200);
    assert_eq!(
        server.requests().len(),
        5,
        "faulted requests are recorded too"
    );
    server.clear_requests();
    assert!(server.requests().is_empty());
    let custom = Fault {
        method: Some("get".into()),
        path_contains: "/api/v1".into(),
        action: FaultAction::Status(418),
        times: Some(0),
    };
    server.fault(custom);
    assert_eq!(get(&server, "/api/v1").status, 200, "times 0 never fires");
}

/// A canned answer is sent as given, in place of the stored object, and stores nothing.
#[test]
fn reply_answers_as_given() {
    let server = server_with_widgets();
    server.insert(json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"}}));
    let other = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "other", "namespace": "elsewhere", "uid": "u-other"}});
    server
        .fault(Fault::once("/widgets/w", FaultAction::Reply(200, other.clone())).on_method("GET"));
    let response = get(&server, &format!("{WIDGETS}/w"));
    assert_eq!(response.status, 200);
    assert_eq!(response.json(), other);
    // Once: the next read is the stored object, and nothing was stored in the meantime.
    let stored = get(&server, &format!("{WIDGETS}/w")).json();
    assert_eq!(stored["metadata"]["name"], "w");
    assert!(server
        .get("example.com/v1", "Widget", Some("elsewhere"), "other")
        .is_none());
    server.fault(Fault::once(
        WIDGETS,
        FaultAction::Reply(418, json!({"items": null})),
    ));
    let teapot = get(&server, WIDGETS);
    assert_eq!(
        (teapot.status, teapot.json()),
        (418, json!({"items": null}))
    );
}

/// Silence: the request is read (and recorded), and no byte ever comes back while the
/// connection stays open.
#[test]
fn silence_answers_nothing_and_keeps_the_connection() {
    let server = server_with_widgets();
    server.fault(Fault::always("", FaultAction::Silence));
    let stream = std::net::TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut conn = stream.try_clone().unwrap();
    std::io::Write::write_all(&mut conn, b"GET /api HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut buf = [0u8; 16];
    let err = std::io::Read::read(&mut conn, &mut buf).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
        "{err}"
    );
    let recorded = server.requests();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].path, "/api");
}

/// Endless pages: every page holds the items asked for and a continue token no page had
/// before, whatever token was sent.
#[test]
fn endless_pages_never_end() {
    let server = server_with_widgets();
    let item = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"}});
    server.fault(Fault::always(
        "/widgets",
        FaultAction::EndlessPages { item, per_page: 3 },
    ));
    let mut token = String::new();
    let mut seen = std::collections::BTreeSet::new();
    for page in 0..5 {
        let target = if token.is_empty() {
            format!("{WIDGETS}?limit=3")
        } else {
            format!("{WIDGETS}?limit=3&continue={token}")
        };
        let body = get(&server, &target).json();
        let items = body["items"].as_array().unwrap();
        assert_eq!(items.len(), 3);
        assert_eq!(items[0]["metadata"]["name"], format!("w-{page}-0"));
        token = body["metadata"]["continue"].as_str().unwrap().to_string();
        assert!(seen.insert(token.clone()), "token {token} came twice");
    }
}

/// The whole lines of the first MiB a watch of the widgets answers (its headers cut off, the
/// last, partial line left out); more than a thousand of them.
fn first_watch_lines(server: &FakeApiServer) -> Vec<String> {
    let mut conn = Conn::open(server);
    conn.send_raw(format!("GET {WIDGETS}?watch=true HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes());
    let mut got = vec![0u8; 1 << 20];
    conn.read_exact(&mut got).unwrap();
    let text = String::from_utf8_lossy(&got);
    let body = &text[text.find("\r\n\r\n").unwrap() + 4..];
    let mut lines: Vec<String> = body.split_inclusive('\n').map(str::to_string).collect();
    lines.pop();
    assert!(lines.len() > 1000, "{} lines", lines.len());
    lines
}

/// A flooding watch: the line comes again and again, as fast as it is read.
#[test]
fn a_flooding_watch_is_always_readable() {
    let server = server_with_widgets();
    let line = b"{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"7\"}}}\n";
    server.fault(Fault::always(
        "/widgets",
        FaultAction::FloodWatch(line.to_vec()),
    ));
    let lines = first_watch_lines(&server);
    for l in &lines {
        assert_eq!(l.as_bytes(), line);
    }
}

/// A watch of ever-new objects: each event ADDED, each object named anew, resourceVersions 1, 2, ...
#[test]
fn a_watch_of_new_objects_never_repeats_a_name() {
    let server = server_with_widgets();
    let item = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "shop"}});
    server.fault(Fault::always(
        "/widgets",
        FaultAction::FloodNewObjects(item),
    ));
    let lines = first_watch_lines(&server);
    for (i, l) in lines.iter().enumerate() {
        let e: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(e["type"], "ADDED");
        assert_eq!(e["object"]["metadata"]["name"], format!("w-{}", i + 1));
        assert_eq!(
            e["object"]["metadata"]["resourceVersion"],
            (i + 1).to_string()
        );
        assert_eq!(e["object"]["kind"], "Widget");
    }
}

/// Stall: the headers of a 200 come, then no byte of the body while the connection stays open.
#[test]
fn stall_sends_the_headers_and_nothing_more() {
    let server = server_with_widgets();
    server.fault(Fault::always("/widgets", FaultAction::Stall));
    let stream = std::net::TcpStream::connect(server.addr()).unwrap();
    let mut conn = stream.try_clone().unwrap();
    std::io::Write::write_all(
        &mut conn,
        format!("GET {WIDGETS}?watch=true HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes(),
    )
    .unwrap();
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";
    let mut got = vec![0u8; head.len()];
    std::io::Read::read_exact(&mut conn, &mut got).unwrap();
    assert_eq!(got, head);
    stream
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut more = [0u8; 1];
    let err = std::io::Read::read(&mut conn, &mut more).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
        "{err}"
    );
}
