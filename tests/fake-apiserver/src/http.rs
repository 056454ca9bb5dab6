//! The HTTP/1.1 wire format: reading requests (Content-Length or chunked
//! bodies, `Expect: 100-continue`) and writing responses (always with
//! Content-Length and `Content-Type: application/json`).

use std::io::{self, BufRead, Read, Write};

/// Longest request line or header line accepted.
const MAX_LINE: usize = 64 * 1024;
/// Most header lines accepted in one request.
const MAX_HEADERS: usize = 256;
/// Largest request body accepted.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// One request as read off the wire.
#[derive(Debug, Clone)]
pub(crate) struct RawRequest {
    /// Request method, e.g. `GET`.
    pub method: String,
    /// Path part of the request target, without the query.
    pub path: String,
    /// Raw query string, without the `?`.
    pub query: String,
    /// Protocol version, e.g. `HTTP/1.1`.
    pub version: String,
    /// Header lines in arrival order, names as sent.
    pub headers: Vec<(String, String)>,
    /// Decoded body (chunked framing removed).
    pub body: Vec<u8>,
}

impl RawRequest {
    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the connection must be closed after answering this request.
    pub fn wants_close(&self) -> bool {
        let tokens: Vec<String> = self
            .header("connection")
            .map(|v| {
                v.split(',')
                    .map(|t| t.trim().to_ascii_lowercase())
                    .collect()
            })
            .unwrap_or_default();
        if tokens.iter().any(|t| t == "close") {
            return true;
        }
        self.version == "HTTP/1.0" && !tokens.iter().any(|t| t == "keep-alive")
    }
}

/// A response to be written with [`write_response`].
#[derive(Debug, Clone)]
pub(crate) struct Response {
    /// HTTP status code.
    pub status: u16,
    /// Extra header lines (Content-Type and Content-Length are always added).
    pub headers: Vec<(String, String)>,
    /// Body bytes (JSON).
    pub body: Vec<u8>,
    /// Close the connection after writing this response.
    pub close: bool,
    /// A watch: after `body` (the initial events), the connection streams changes.
    pub watch: Option<Box<Watch>>,
}

/// What a watch stream sends after its initial events.
#[derive(Debug, Clone)]
pub(crate) struct Watch {
    /// The resource watched.
    pub resource: crate::Resource,
    /// Which objects.
    pub filter: crate::resource::Filter,
    /// The position in the store's change log to start from.
    pub from: usize,
    /// When the server ends the stream (`timeoutSeconds`).
    pub until: std::time::Instant,
    /// Whether the client asked for bookmarks (`allowWatchBookmarks=true`).
    pub bookmarks: bool,
    /// The resourceVersion the watch started from (the store's for a watch from `0`).
    pub since: u64,
}

impl Response {
    /// A JSON response.
    pub fn json(status: u16, body: &serde_json::Value) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: serde_json::to_vec(body).unwrap_or_default(),
            close: false,
            watch: None,
        }
    }

    /// The same response with one more header line.
    pub fn with_header(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
}

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_string())
}

/// Reads one CRLF- (or LF-) terminated line; `None` at a clean end of stream.
fn read_line(reader: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut buf = Vec::new();
    let n = reader
        .by_ref()
        .take(MAX_LINE as u64 + 2)
        .read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() != Some(&b'\n') {
        return Err(invalid("header line too long or truncated"));
    }
    buf.pop();
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| invalid("header line is not UTF-8"))
}

fn require_line(reader: &mut impl BufRead) -> io::Result<String> {
    read_line(reader)?.ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))
}

/// Reads the next request from a keep-alive connection. Returns `Ok(None)`
/// when the peer closed the connection between requests. `interim` receives
/// the `100 Continue` answer when the client asks for it.
pub(crate) fn read_request(
    reader: &mut impl BufRead,
    interim: &mut impl Write,
) -> io::Result<Option<RawRequest>> {
    let request_line = loop {
        match read_line(reader)? {
            None => return Ok(None),
            Some(line) if line.is_empty() => continue,
            Some(line) => break line,
        }
    };
    let parts: Vec<&str> = request_line.split_whitespace().collect();
    let [method, target, version] = parts.as_slice() else {
        return Err(invalid("malformed request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(invalid("unsupported HTTP version"));
    }
    let mut headers = Vec::new();
    loop {
        let line = require_line(reader)?;
        if line.is_empty() {
            break;
        }
        if headers.len() >= MAX_HEADERS {
            return Err(invalid("too many header lines"));
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| invalid("malformed header line"))?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    // Absolute-form targets (`http://host/path`) are reduced to the path.
    let target = match target.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
        None => target,
    };
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut request = RawRequest {
        method: method.to_ascii_uppercase(),
        path: path.to_string(),
        query: query.to_string(),
        version: version.to_string(),
        headers,
        body: Vec::new(),
    };
    if request
        .header("expect")
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        interim.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        interim.flush()?;
    }
    let chunked = request.header("transfer-encoding").is_some_and(|v| {
        v.split(',')
            .any(|t| t.trim().eq_ignore_ascii_case("chunked"))
    });
    if chunked {
        request.body = read_chunked(reader)?;
    } else if let Some(len) = request.header("content-length") {
        let len: usize = len
            .trim()
            .parse()
            .map_err(|_| invalid("bad Content-Length"))?;
        if len > MAX_BODY {
            return Err(invalid("request body too large"));
        }
        let mut body = vec![0; len];
        reader.read_exact(&mut body)?;
        request.body = body;
    }
    Ok(Some(request))
}

/// Reads a `Transfer-Encoding: chunked` body, discarding chunk extensions
/// and trailers.
fn read_chunked(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line = require_line(reader)?;
        let size = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16).map_err(|_| invalid("bad chunk size"))?;
        if size == 0 {
            while !require_line(reader)?.is_empty() {}
            return Ok(body);
        }
        if body.len() + size > MAX_BODY {
            return Err(invalid("request body too large"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        if !require_line(reader)?.is_empty() {
            return Err(invalid("chunk not followed by CRLF"));
        }
    }
}

/// The reason phrase for a status line.
fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        409 => "Conflict",
        410 => "Gone",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

/// Writes `response` in one piece. `close` adds `Connection: close`;
/// `head_only` (a HEAD request) leaves the body out but keeps its length.
pub(crate) fn write_response(
    writer: &mut impl Write,
    response: &Response,
    close: bool,
    head_only: bool,
) -> io::Result<()> {
    // A watch stream has no length: it ends when the connection closes.
    let length = match response.watch {
        Some(_) => String::new(),
        None => format!("Content-Length: {}\r\n", response.body.len()),
    };
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\n{length}",
        response.status,
        reason_phrase(response.status),
    );
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    if !head_only {
        out.extend_from_slice(&response.body);
    }
    writer.write_all(&out)?;
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn parse(raw: &str) -> io::Result<Option<RawRequest>> {
        let mut sink = Vec::new();
        read_request(&mut Cursor::new(raw.as_bytes().to_vec()), &mut sink)
    }

    #[test]
    fn reads_content_length_body_and_query() {
        let req = parse("POST /api/v1/x?a=b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc")
            .unwrap()
            .unwrap();
        assert_eq!(req.method, "POST");
        assert_eq!(req.path, "/api/v1/x");
        assert_eq!(req.query, "a=b");
        assert_eq!(req.body, b"abc");
        assert!(!req.wants_close());
    }

    #[test]
    fn reads_chunked_body_with_extensions_and_trailers() {
        let raw = "PUT / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\nTrailer: t\r\n\r\n";
        let req = parse(raw).unwrap().unwrap();
        assert_eq!(req.body, b"abc0123456789");
    }

    #[test]
    fn clean_eof_is_none_and_garbage_is_an_error() {
        assert!(parse("").unwrap().is_none());
        assert!(parse("NONSENSE\r\n\r\n").is_err());
        assert!(parse("GET / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc").is_err());
    }

    #[test]
    fn http10_closes_unless_keep_alive() {
        let req = parse("GET / HTTP/1.0\r\n\r\n").unwrap().unwrap();
        assert!(req.wants_close());
        let req = parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            .unwrap()
            .unwrap();
        assert!(!req.wants_close());
        let req = parse("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n")
            .unwrap()
            .unwrap();
        assert!(req.wants_close());
    }

    #[test]
    fn writes_length_and_content_type() {
        let mut out = Vec::new();
        let resp =
            Response::json(429, &serde_json::json!({"a": 1})).with_header("Retry-After", "1");
        write_response(&mut out, &resp, true, false).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: 7\r\nRetry-After: 1\r\nConnection: close\r\n\r\n{\"a\":1}"
        );
    }
}
