//! A failing or odd API server: every fault the fake API server injects gives one clear line and
//! exit code 1, throttling is retried, `--request-timeout` cuts a slow server off, and a scripted
//! server gives the answers the fake cannot (plain-text 429 with Retry-After, Go's null list,
//! deep nesting, redirects, a proxy's HTML page), as client-go's `rest/request.go` meets them.

use super::*;
use fake_apiserver::{Fault, FaultAction};

#[test]
fn every_injected_fault_gives_a_clear_message_and_exit_1() {
    let port_free = |c: &Cluster| c.server.url();
    let cases: Vec<(FaultAction, &str, String)> = vec![
        (
            FaultAction::Status(403),
            "/pactos",
            "error: forbidden: you may not list pactos.pacto.trianalab.io in namespace \"shop\": pactos.pacto.trianalab.io is forbidden: User \"system:serviceaccount:default:pacto\" cannot list resource \"pactos\" in API group \"pacto.trianalab.io\" in the namespace \"shop\"\n".into(),
        ),
        (
            FaultAction::Status(403),
            "/apis/pacto.trianalab.io/v1alpha1",
            "error: forbidden: you may not discover the API group pacto.trianalab.io/v1alpha1: ".into(),
        ),
        (
            FaultAction::Status(404),
            "/pactos",
            "error: the API server answered 404 NotFound to list pactos.pacto.trianalab.io in namespace \"shop\": the server does not serve pactos.pacto.trianalab.io (was the CRD removed?)\n".into(),
        ),
        (
            FaultAction::Status(409),
            "/pactos",
            "error: the API server answered 409 Conflict to list pactos.pacto.trianalab.io in namespace \"shop\": ".into(),
        ),
        (
            FaultAction::Status(429),
            "/pactos",
            "error: the API server kept refusing to list pactos.pacto.trianalab.io in namespace \"shop\" with 429 Too Many Requests (4 attempts): the server has received too many requests and has asked us to try again later; try again later\n".into(),
        ),
        (
            FaultAction::Status(500),
            "/pactos",
            "error: the API server answered 500 InternalError to list pactos.pacto.trianalab.io in namespace \"shop\": Internal error occurred: injected fault\n".into(),
        ),
        (FaultAction::Drop, "/pactos", String::new()),
    ];
    for (action, path, want) in cases {
        let c = shop();
        c.server.fault(Fault::always(path, action.clone()));
        let r = c.run(&["get"]);
        r.assert_code(1).assert_no_panic();
        assert_eq!(r.stdout, "", "{action:?}");
        if want.is_empty() {
            // A dropped connection: the message names the server and the request.
            let head = format!(
                "error: cannot list pactos.pacto.trianalab.io in namespace \"shop\": the connection to the API server at {} failed: ",
                port_free(&c)
            );
            assert!(r.stderr.starts_with(&head), "{action:?}: {}", r.stderr);
        } else {
            assert!(
                r.stderr.starts_with(&want),
                "{action:?}:\n want {want}\n got  {}",
                r.stderr
            );
        }
        assert_eq!(r.stderr.lines().count(), 1, "{action:?}: {}", r.stderr);
    }
}

#[test]
fn one_429_is_retried_and_the_listing_succeeds() {
    let c = shop();
    c.server
        .fault(Fault::once("/pactos", FaultAction::Status(429)));
    let r = c.run(&["get", "-o", "name"]);
    r.assert_code(0);
    assert!(r.stdout.contains("pacto.pacto.trianalab.io/orders\n"));
    assert_eq!(c.count("GET", "/namespaces/shop/pactos"), 2);
}

#[test]
fn a_slow_api_server_is_cut_off_by_request_timeout() {
    let c = shop();
    // Without the timeout this answer would come, correct, after 60 s. The timeout also bounds
    // building the client (a few hundredths of a second of CPU), so it is not made so short
    // that a busy machine could spend it before the request is sent.
    c.server.fault(Fault::always(
        "/pactos",
        FaultAction::Delay(Duration::from_secs(60)),
    ));
    for t in ["5s", "5"] {
        let r = c.run(&["get", "-o", "name", "--request-timeout", t]);
        r.assert_code(1).assert_no_panic();
        assert_eq!(
            r.stderr,
            format!(
                "error: no answer from the API server at {} within 5s (--request-timeout) to list pactos.pacto.trianalab.io in namespace \"shop\"\n",
                c.server.url()
            )
        );
    }
    let bad = c.run(&["get", "--request-timeout", "soon"]);
    bad.assert_code(1);
    assert!(
        bad.stderr
            .starts_with("error: --request-timeout \"soon\": expected a duration"),
        "{}",
        bad.stderr
    );
}

/// A minimal HTTP server with scripted answers, for what the fake API server cannot say: a
/// discovery document for Pacto, then `list` answers taken in order (status, extra headers,
/// body); every answer closes its connection.
pub(super) struct Scripted {
    url: String,
    lists: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

pub(super) fn scripted(lists: Vec<(u16, &'static str, String)>) -> Scripted {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut first = String::new();
            if reader.read_line(&mut first).is_err() {
                continue;
            }
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).is_err() || h == "\r\n" || h.is_empty() {
                    break;
                }
            }
            let path = first.split_whitespace().nth(1).unwrap_or("").to_string();
            let (code, headers, body) = if path == "/apis/pacto.trianalab.io/v1alpha1" {
                (200, "", r#"{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"pacto.trianalab.io/v1alpha1","resources":[{"name":"pactos","singularName":"pacto","namespaced":true,"kind":"Pacto","verbs":["get","list"]}]}"#.to_string())
            } else if path.contains("/pactos") {
                let i = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                lists
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| lists.last().cloned().unwrap())
            } else {
                (404, "", r#"{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"not here"}"#.to_string())
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{headers}\r\n{body}",
                body.len()
            );
        }
    });
    Scripted { url, lists: count }
}

impl Scripted {
    pub(super) fn run(&self, args: &[&str]) -> Run {
        let dir = tempfile::tempdir().unwrap();
        let kc = dir.path().join("kubeconfig");
        std::fs::write(
            &kc,
            format!("apiVersion: v1\nkind: Config\ncurrent-context: s\nclusters:\n- name: s\n  cluster: {{server: \"{}\"}}\nusers:\n- name: u\n  user: {{token: t}}\ncontexts:\n- name: s\n  context: {{cluster: s, user: u, namespace: shop}}\n", self.url),
        )
        .unwrap();
        let mut all = args.to_vec();
        all.extend(["--kubeconfig", s(&kc)]);
        run_with(&mut cmd(dir.path(), &all), None, Duration::from_secs(60))
    }
}

fn pacto_json(name: &str) -> String {
    format!(
        r#"{{"apiVersion":"pacto.trianalab.io/v1alpha1","kind":"Pacto","metadata":{{"name":"{name}","namespace":"shop","generation":1}},"status":{{"contractStatus":"Compliant","observedGeneration":1}}}}"#
    )
}

#[test]
fn odd_but_legal_answers_of_an_api_server() {
    // A throttling proxy's plain-text 429 with Retry-After, then the list.
    let ok = format!(
        r#"{{"kind":"PactoList","apiVersion":"pacto.trianalab.io/v1alpha1","metadata":{{}},"items":[{}]}}"#,
        pacto_json("orders")
    );
    let srv = scripted(vec![
        (
            429,
            "Retry-After: 1\r\n",
            "Too many requests, please slow down".into(),
        ),
        (200, "", ok.clone()),
    ]);
    let r = srv.run(&["get", "-o", "name"]);
    r.assert_code(0);
    assert_eq!(r.stdout, "pacto.pacto.trianalab.io/orders\n");
    assert_eq!(srv.lists.load(std::sync::atomic::Ordering::SeqCst), 2);
    // Go's encoding of an empty list.
    let srv = scripted(vec![(200, "", r#"{"kind":"PactoList","apiVersion":"pacto.trianalab.io/v1alpha1","metadata":{},"items":null}"#.into())]);
    let r = srv.run(&["get"]);
    r.assert_code(0);
    assert_eq!(r.stderr, "No resources found in shop namespace.\n");
    // A deeply nested object (the API server accepts it; a JSON parser's default depth would not).
    let mut deep = String::from("0");
    for _ in 0..300 {
        deep = format!("{{\"a\":{deep}}}");
    }
    let obj = format!(
        r#"{{"apiVersion":"pacto.trianalab.io/v1alpha1","kind":"Pacto","metadata":{{"name":"deep","namespace":"shop","generation":1}},"spec":{{"x":{deep}}},"status":{{"contractStatus":"Compliant","observedGeneration":1}}}}"#
    );
    let list = format!(
        r#"{{"kind":"PactoList","apiVersion":"pacto.trianalab.io/v1alpha1","metadata":{{}},"items":[{obj},{{"apiVersion":"v1","kind":"Secret","metadata":{{"name":"token","namespace":"shop"}}}},7]}}"#
    );
    let srv = scripted(vec![(200, "", list)]);
    let r = srv.run(&["get", "-o", "name"]);
    r.assert_code(0).assert_no_panic();
    // Only the Pacto: the Secret and the number in the list are not shown.
    assert_eq!(r.stdout, "pacto.pacto.trianalab.io/deep\n", "{}", r.stderr);
    // A redirect names where it points.
    let srv = scripted(vec![(
        302,
        "Location: https://elsewhere.example/\r\n",
        String::new(),
    )]);
    let r = srv.run(&["get"]);
    r.assert_code(1);
    assert_eq!(
        r.stderr,
        "error: the API server answered 302 Found to list pactos.pacto.trianalab.io in namespace \"shop\": redirected to https://elsewhere.example/: API servers do not redirect; is the server URL of the kubeconfig right?\n"
    );
    // An HTML error page from a proxy.
    let srv = scripted(vec![(
        502,
        "",
        "<html><body>Bad gateway</body></html>".into(),
    )]);
    let r = srv.run(&["get"]);
    r.assert_code(1);
    assert_eq!(
        r.stderr,
        "error: the API server answered 502 Bad Gateway to list pactos.pacto.trianalab.io in namespace \"shop\": <html><body>Bad gateway</body></html>\n"
    );
}
