//! A minimal HTTP/1.1 client over plain TCP for etcd's JSON gateway on loopback (`/health`,
//! `/v3/kv/range`, `/v3/kv/compaction`): one request per connection (`Connection: close`),
//! bodies read to the end, chunked transfer coding decoded. Not for the API server, which speaks
//! TLS; kubectl reaches that one.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// Largest response read (etcd's answers here are a few hundred bytes).
const MAX_RESPONSE: u64 = 1 << 20;

/// Sends `method path` with an optional JSON body to `addr` and returns the status code and the
/// body. Errors: connecting, writing or reading fails or takes over `timeout`, or the answer is
/// not HTTP/1.x.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    timeout: Duration,
) -> Result<(u16, String), String> {
    let mut s = TcpStream::connect_timeout(&addr, timeout).map_err(|e| format!("{addr}: {e}"))?;
    s.set_read_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    s.set_write_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    let body = body.unwrap_or("");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes())
        .and_then(|()| s.write_all(body.as_bytes()))
        .map_err(|e| format!("{method} http://{addr}{path}: {e}"))?;
    let mut raw = Vec::new();
    s.take(MAX_RESPONSE)
        .read_to_end(&mut raw)
        .map_err(|e| format!("{method} http://{addr}{path}: {e}"))?;
    parse(&raw).ok_or_else(|| {
        format!(
            "{method} http://{addr}{path}: not an HTTP answer: {:?}",
            String::from_utf8_lossy(&raw[..raw.len().min(200)])
        )
    })
}

/// Status code and body of a whole HTTP/1.x response.
fn parse(raw: &[u8]) -> Option<(u16, String)> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..split]).ok()?;
    let body = &raw[split + 4..];
    let mut lines = head.split("\r\n");
    let status_line = lines.next()?;
    if !status_line.starts_with("HTTP/1.") {
        return None;
    }
    let code: u16 = status_line.split(' ').nth(1)?.parse().ok()?;
    let chunked = lines.any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    let body = if chunked {
        dechunk(body)?
    } else {
        body.to_vec()
    };
    Some((code, String::from_utf8_lossy(&body).into_owned()))
}

/// The payload of a chunked body (RFC 9112 §7.1; extensions and trailers ignored).
fn dechunk(mut b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&b[..eol]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        b = &b[eol + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(b.get(..size)?);
        b = b.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_length_and_chunked_bodies() {
        assert_eq!(
            parse(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"),
            Some((200, "{}".to_string()))
        );
        assert_eq!(
            parse(b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n"),
            Some((404, "abcde".to_string()))
        );
        assert_eq!(parse(b"SSH-2.0-OpenSSH\r\n\r\n"), None);
        assert_eq!(
            parse(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"),
            None
        );
    }
}
