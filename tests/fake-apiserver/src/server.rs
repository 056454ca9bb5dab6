//! Connections: the accept loop, one thread per connection serving
//! keep-alive requests, fault injection and dispatch.

use std::io::{BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread;

use crate::fault::{self, Fault, FaultAction};
use crate::http::{self, RawRequest, Response};
use crate::route::{self, Query, Route};
use crate::store::Store;
use crate::{discovery, resource, status, Request};

/// State shared by the server handle and all connection threads.
pub(crate) struct Shared {
    /// Resources and objects.
    pub store: Mutex<Store>,
    /// Every request received, in arrival order.
    pub requests: Mutex<Vec<Request>>,
    /// Fault rules, in insertion order.
    pub faults: Mutex<Vec<Fault>>,
    /// The listening address.
    pub addr: SocketAddr,
    /// How many times the server was "restarted" ([`crate::FakeApiServer::restart`]): a watch
    /// opened before the count changed ends.
    pub restarts: std::sync::atomic::AtomicU64,
}

/// Locks a mutex, recovering the data if a handler panicked while holding it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Accepts connections until `stop` is set (and one more connection wakes
/// the loop), serving each on its own thread.
pub(crate) fn accept_loop(listener: TcpListener, shared: Arc<Shared>, stop: Arc<AtomicBool>) {
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = conn else { continue };
        let shared = Arc::clone(&shared);
        let _ = thread::Builder::new()
            .name("fake-apiserver-conn".into())
            .spawn(move || serve(&shared, stream));
    }
}

/// Serves requests on one connection until the peer closes it, a request
/// asks for `Connection: close`, or a fault drops it.
fn serve(shared: &Shared, stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        let req = match http::read_request(&mut reader, &mut writer) {
            Ok(Some(req)) => req,
            Ok(None) => return,
            Err(_) => {
                let reply = status::bad_request("malformed HTTP request");
                let _ = http::write_response(&mut writer, &reply, true, false);
                let _ = writer.shutdown(Shutdown::Both);
                return;
            }
        };
        lock(&shared.requests).push(Request {
            method: req.method.clone(),
            path: req.path.clone(),
            query: req.query.clone(),
            content_type: req.header("content-type").map(str::to_string),
            user_agent: req.header("user-agent").map(str::to_string),
            body: String::from_utf8_lossy(&req.body).into_owned(),
            headers: req.headers.clone(),
        });
        let action = fault::take(&mut lock(&shared.faults), &req.method, &req.path);
        let response = match action {
            Some(FaultAction::Drop) => {
                let _ = writer.shutdown(Shutdown::Both);
                return;
            }
            Some(FaultAction::EndlessBody) => {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"items\": [";
                if writer.write_all(head.as_bytes()).is_ok() {
                    let chunk = vec![b' '; 1 << 16];
                    while writer.write_all(&chunk).is_ok() {}
                }
                let _ = writer.shutdown(Shutdown::Both);
                return;
            }
            Some(FaultAction::Silence) => {
                // Hold the connection, answering nothing, until the client closes it.
                let mut sink = [0u8; 4096];
                while matches!(std::io::Read::read(&mut reader, &mut sink), Ok(n) if n > 0) {}
                return;
            }
            Some(FaultAction::Stall) => {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";
                if writer.write_all(head.as_bytes()).is_ok() {
                    let mut sink = [0u8; 4096];
                    while matches!(std::io::Read::read(&mut reader, &mut sink), Ok(n) if n > 0) {}
                }
                return;
            }
            Some(FaultAction::FloodWatch(line)) => {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";
                if writer.write_all(head.as_bytes()).is_ok() {
                    let line = if line.is_empty() {
                        b"\n".to_vec()
                    } else {
                        line
                    };
                    let chunk = line.repeat(1 + (1 << 16) / line.len());
                    while writer.write_all(&chunk).is_ok() {}
                }
                let _ = writer.shutdown(Shutdown::Both);
                return;
            }
            Some(FaultAction::Trickle(every)) => {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"type\": \"ADDED\", \"object\": ";
                if writer.write_all(head.as_bytes()).is_ok() {
                    while writer.write_all(b" ").and_then(|_| writer.flush()).is_ok() {
                        thread::sleep(every);
                    }
                }
                let _ = writer.shutdown(Shutdown::Both);
                return;
            }
            Some(FaultAction::FloodNewObjects(item)) => {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";
                if writer.write_all(head.as_bytes()).is_ok() {
                    let mut i = 0u64;
                    loop {
                        let mut chunk = Vec::with_capacity(1 << 16);
                        while chunk.len() < 1 << 16 {
                            i += 1;
                            chunk.extend(fault::new_object_event(&item, i));
                        }
                        if writer.write_all(&chunk).is_err() {
                            break;
                        }
                    }
                }
                let _ = writer.shutdown(Shutdown::Both);
                return;
            }
            Some(FaultAction::EndlessPages { item, per_page }) => {
                let page = Query::parse(&req.query)
                    .get("continue")
                    .and_then(|t| t.strip_prefix("page-").and_then(|n| n.parse().ok()))
                    .unwrap_or(0u64);
                Response::json(200, &fault::endless_page(&item, per_page, page))
            }
            Some(FaultAction::Status(code)) => fault::status_response(code, &req),
            Some(FaultAction::Body(body)) => http::Response {
                body,
                ..http::Response::json(200, &serde_json::Value::Null)
            },
            Some(FaultAction::Reply(code, body)) => Response::json(code, &body),
            Some(FaultAction::Delay(delay)) => {
                thread::sleep(delay);
                dispatch(shared, &req)
            }
            None => dispatch(shared, &req),
        };
        let close = req.wants_close() || response.close;
        let written = http::write_response(&mut writer, &response, close, req.method == "HEAD");
        if let (Ok(()), Some(watch)) = (&written, &response.watch) {
            stream_watch(shared, &mut writer, watch);
        }
        if written.is_err() || close {
            let _ = writer.shutdown(Shutdown::Write);
            return;
        }
    }
}

/// Sends each change to the watched objects as it happens, until the watch's deadline, the
/// client goes away or the server restarts. With bookmarks asked for, a `BOOKMARK` carrying the
/// store's resourceVersion is due 2 s before the deadline and every minute, as kube-apiserver's
/// watch cache schedules them (apiserver `pkg/storage/cacher/cache_watcher.go`
/// `nextBookmarkTime`: none when the deadline is less than 2 s away), and goes out only when
/// that resourceVersion is newer than the one the watch started from (the same file's
/// `process`): a quiet watch gets none. (The real server's one-second buckets may send the
/// pre-deadline bookmark twice; the fake sends it once.) The real server's watch cache learns of writes
/// to other kinds only from etcd's progress notifications (or a consistent read), the fake at
/// once.
fn stream_watch(shared: &Shared, writer: &mut TcpStream, watch: &http::Watch) {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let restarts = shared.restarts.load(Ordering::SeqCst);
    let next_bookmark = |now: Instant| {
        let heartbeat = now + Duration::from_secs(60);
        let pre_timeout = watch.until.checked_sub(Duration::from_secs(2))?;
        Some(heartbeat.min(pre_timeout)).filter(|t| *t > now)
    };
    let mut bookmark_at = next_bookmark(Instant::now()).filter(|_| watch.bookmarks);
    let mut from = watch.from;
    loop {
        if shared.restarts.load(Ordering::SeqCst) != restarts {
            return;
        }
        let (changes, next) = lock(&shared.store).changes_from(&watch.resource, from);
        from = next;
        for c in changes {
            if !watch.filter.accepts(&c.key, &c.object) {
                continue;
            }
            let line = resource::event_line(c.kind, &c.object);
            if writer
                .write_all(&line)
                .and_then(|_| writer.flush())
                .is_err()
            {
                return;
            }
        }
        let now = Instant::now();
        if bookmark_at.is_some_and(|t| now >= t) {
            let version = lock(&shared.store).resource_version();
            if version > watch.since {
                let object = serde_json::json!({
                    "kind": watch.resource.kind,
                    "apiVersion": watch.resource.api_version(),
                    "metadata": {"resourceVersion": version.to_string()},
                });
                let line = resource::event_line("BOOKMARK", &object);
                if writer
                    .write_all(&line)
                    .and_then(|_| writer.flush())
                    .is_err()
                {
                    return;
                }
            }
            bookmark_at = next_bookmark(now);
        }
        if now >= watch.until {
            return;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Normal handling; a panic becomes a 500 instead of a dead connection.
fn dispatch(shared: &Shared, req: &RawRequest) -> Response {
    panic::catch_unwind(AssertUnwindSafe(|| route_request(shared, req)))
        .unwrap_or_else(|_| status::internal_error("the fake API server panicked"))
}

fn route_request(shared: &Shared, req: &RawRequest) -> Response {
    let query = Query::parse(&req.query);
    let route = route::parse(&req.path);
    let mut store = lock(&shared.store);
    match route {
        Route::Resource(path) => resource::handle(&mut store, req, &path, &query),
        Route::Unknown => status::not_found_generic(),
        other if matches!(req.method.as_str(), "GET" | "HEAD") => {
            discovery::handle(store.resources(), &other, shared.addr)
        }
        _ => status::method_not_allowed(),
    }
}
