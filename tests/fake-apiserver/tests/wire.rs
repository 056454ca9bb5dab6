//! HTTP/1.1 behaviour: keep-alive, chunked bodies, request recording.

mod common;

use common::{server_with_widgets, Conn, WIDGETS};
use serde_json::json;

#[test]
fn keep_alive_serves_several_requests_on_one_connection() {
    let server = server_with_widgets();
    let mut conn = Conn::open(&server);
    let first = conn.request("GET", "/version", None, "", false);
    assert_eq!(first.status, 200);
    assert!(first.header("connection").is_none());
    let body = json!({"metadata": {"name": "w"}, "spec": {"size": 1}}).to_string();
    let second = conn.request("POST", WIDGETS, Some("application/json"), &body, false);
    assert_eq!(second.status, 201, "{}", second.body);
    let third = conn.request("GET", &format!("{WIDGETS}/w"), None, "", true);
    assert_eq!(third.status, 200);
    assert_eq!(third.header("connection"), Some("close"));
    assert!(
        conn.read_to_end().unwrap().is_empty(),
        "closed after Connection: close"
    );
}

#[test]
fn chunked_request_body() {
    let server = server_with_widgets();
    let mut conn = Conn::open(&server);
    let body = json!({"metadata": {"name": "chunky"}, "spec": {"size": 3}}).to_string();
    let (a, b) = body.split_at(10);
    let raw = format!(
        "POST {WIDGETS}?fieldManager=chunker HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
        a.len(),
        b.len()
    );
    conn.send_raw(raw.as_bytes());
    let response = conn.read_response().unwrap();
    assert_eq!(response.status, 201, "{}", response.body);
    assert_eq!(response.json()["spec"]["size"], 3);
    // The connection stays usable after a chunked request.
    let again = conn.request("GET", &format!("{WIDGETS}/chunky"), None, "", true);
    assert_eq!(
        again.json()["metadata"]["managedFields"][0]["manager"],
        "chunker"
    );
    let recorded = server.requests();
    assert_eq!(recorded[0].body, body);
    assert_eq!(
        recorded[0].content_type.as_deref(),
        Some("application/json")
    );
    assert_eq!(
        recorded[0].query_param("fieldManager").as_deref(),
        Some("chunker")
    );
}

#[test]
fn requests_are_recorded_raw_with_decoded_params() {
    let server = server_with_widgets();
    let mut conn = Conn::open(&server);
    conn.request(
        "GET",
        &format!("{WIDGETS}?labelSelector=app%20in%20%28a%2Cb%29&limit=5"),
        None,
        "",
        true,
    );
    let recorded = server.requests();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].method, "GET");
    assert_eq!(recorded[0].path, WIDGETS);
    assert_eq!(
        recorded[0].query,
        "labelSelector=app%20in%20%28a%2Cb%29&limit=5"
    );
    assert_eq!(
        recorded[0].query_param("labelSelector").as_deref(),
        Some("app in (a,b)")
    );
    assert_eq!(recorded[0].query_param("limit").as_deref(), Some("5"));
    assert_eq!(recorded[0].query_param("missing"), None);
    assert_eq!(recorded[0].content_type, None);
    assert_eq!(recorded[0].user_agent, None);
    assert!(!recorded[0].is_write());
}

#[test]
fn user_agent_is_recorded() {
    let server = server_with_widgets();
    let mut conn = Conn::open(&server);
    let body = r#"{"metadata":{"name":"w"}}"#;
    conn.send_raw(
        format!(
            "POST {WIDGETS} HTTP/1.1\r\nHost: x\r\nUser-Agent: kubectl-pacto/0.1.0 (linux/amd64)\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
    assert_eq!(conn.read_response().unwrap().status, 201);
    let recorded = server.requests();
    assert_eq!(
        recorded[0].user_agent.as_deref(),
        Some("kubectl-pacto/0.1.0 (linux/amd64)")
    );
    assert!(recorded[0].is_write());
}

#[test]
fn malformed_request_gets_400_and_close() {
    let server = server_with_widgets();
    let mut conn = Conn::open(&server);
    conn.send_raw(b"THIS IS NOT HTTP\r\n\r\n");
    let response = conn.read_response().unwrap();
    assert_eq!(response.status, 400);
    assert_eq!(response.header("connection"), Some("close"));
}

#[test]
fn dropping_the_server_stops_accepting() {
    let server = server_with_widgets();
    let addr = server.addr();
    drop(server);
    assert!(std::net::TcpStream::connect(addr).is_err());
}
