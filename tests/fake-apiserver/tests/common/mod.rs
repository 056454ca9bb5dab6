//! A minimal raw HTTP/1.1 client for exercising the fake API server.

#![allow(dead_code)]

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use fake_apiserver::{FakeApiServer, Resource};
use serde_json::Value;

/// A response as read off the wire.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// The body parsed as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", self.body))
    }

    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One client connection.
pub struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    pub fn open(server: &FakeApiServer) -> Conn {
        let stream = TcpStream::connect(server.addr()).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        Conn {
            writer: stream.try_clone().unwrap(),
            reader: BufReader::new(stream),
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }

    /// Sends a request with a Content-Length body and reads the response.
    pub fn request(
        &mut self,
        method: &str,
        target: &str,
        content_type: Option<&str>,
        body: &str,
        close: bool,
    ) -> Response {
        let mut head =
            format!("{method} {target} HTTP/1.1\r\nHost: fake\r\nAccept: application/json\r\n");
        if let Some(ct) = content_type {
            head.push_str(&format!("Content-Type: {ct}\r\n"));
        }
        if !body.is_empty() || matches!(method, "POST" | "PUT" | "PATCH") {
            head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        if close {
            head.push_str("Connection: close\r\n");
        }
        head.push_str("\r\n");
        head.push_str(body);
        self.send_raw(head.as_bytes());
        self.read_response().expect("read response")
    }

    /// Reads one response framed by Content-Length.
    pub fn read_response(&mut self) -> io::Result<Response> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line {line:?}"));
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line)?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (k, v) = line.split_once(':').expect("header line");
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
        let len: usize = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .map(|(_, v)| v.parse().unwrap())
            .expect("every response has a Content-Length");
        let mut body = vec![0; len];
        self.reader.read_exact(&mut body)?;
        Ok(Response {
            status,
            headers,
            body: String::from_utf8(body).unwrap(),
        })
    }

    /// Reads exactly `buf.len()` bytes.
    pub fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.reader.read_exact(buf)
    }

    /// Reads until the server closes; returns what arrived.
    pub fn read_to_end(&mut self) -> io::Result<Vec<u8>> {
        let mut rest = Vec::new();
        self.reader.read_to_end(&mut rest)?;
        Ok(rest)
    }
}

/// One request on a fresh connection.
pub fn call(
    server: &FakeApiServer,
    method: &str,
    target: &str,
    content_type: Option<&str>,
    body: &str,
) -> Response {
    Conn::open(server).request(method, target, content_type, body, true)
}

pub fn get(server: &FakeApiServer, target: &str) -> Response {
    call(server, "GET", target, None, "")
}

pub fn post(server: &FakeApiServer, target: &str, body: &Value) -> Response {
    call(
        server,
        "POST",
        target,
        Some("application/json"),
        &body.to_string(),
    )
}

pub fn put(server: &FakeApiServer, target: &str, body: &Value) -> Response {
    call(
        server,
        "PUT",
        target,
        Some("application/json"),
        &body.to_string(),
    )
}

pub fn delete(server: &FakeApiServer, target: &str) -> Response {
    call(server, "DELETE", target, None, "")
}

pub fn merge_patch(server: &FakeApiServer, target: &str, body: &Value) -> Response {
    call(
        server,
        "PATCH",
        target,
        Some("application/merge-patch+json"),
        &body.to_string(),
    )
}

pub fn apply(server: &FakeApiServer, target: &str, body: &Value) -> Response {
    call(
        server,
        "PATCH",
        target,
        Some("application/apply-patch+yaml"),
        &body.to_string(),
    )
}

/// The namespaced `Widget` kind (`example.com/v1`, plural `widgets`) with a
/// status subresource.
pub fn widgets() -> Resource {
    Resource::new("example.com/v1", "Widget", "widgets", true, true)
}

/// A server with `widgets` registered.
pub fn server_with_widgets() -> FakeApiServer {
    let server = FakeApiServer::start();
    server.register(widgets());
    server
}

/// `metadata.resourceVersion` of an object.
pub fn rv(obj: &Value) -> String {
    obj["metadata"]["resourceVersion"]
        .as_str()
        .expect("resourceVersion")
        .to_string()
}

pub const WIDGETS: &str = "/apis/example.com/v1/namespaces/default/widgets";
