//! The HTTP listener: accepts connections within the configured caps (in all and per client
//! address), serves each with hyper's HTTP/1 with a header read timeout and an idle timeout,
//! backs off when `accept` fails (out of file descriptors), and drains on shutdown.

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use meridian_core::config::ServerConfig;
use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How the listener treats connections; from `server.*`.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    pub(crate) header_read_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) max_connections_per_ip: usize,
}

impl Limits {
    pub(crate) fn from_config(server: &ServerConfig) -> Self {
        Self {
            header_read_timeout: server.header_read_timeout,
            idle_timeout: server.idle_timeout,
            max_connections: server.max_connections,
            max_connections_per_ip: server.max_connections_per_ip,
        }
    }
}

/// The first back-off after a failed `accept`, doubled on each further failure up to the last.
const BACKOFF_FIRST: Duration = Duration::from_millis(10);
const BACKOFF_MAX: Duration = Duration::from_secs(1);

/// Serves `app` on `listener` until `shutdown`, then lets open connections finish their current
/// request (each connection ends as soon as it is idle) and returns when all are closed.
pub(crate) async fn serve(listener: TcpListener, app: Router, limits: Limits, shutdown: CancellationToken) {
    let limits = Arc::new(limits);
    let global = Arc::new(Semaphore::new(limits.max_connections));
    let per_ip = PerIp::default();
    let mut connections = JoinSet::new();
    let mut backoff = BACKOFF_FIRST;
    let mut failures = 0u64;
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, remote) = match accepted {
            Ok(pair) => {
                if failures > 0 {
                    tracing::info!(failures, "accepting connections again");
                }
                failures = 0;
                backoff = BACKOFF_FIRST;
                pair
            }
            // The peer gave up before we took the connection: nothing to do with us.
            Err(e) if is_peer_error(&e) => continue,
            Err(e) => {
                // Typically EMFILE/ENFILE: retrying at once would spin and flood the log. Wait
                // (closing connections frees descriptors) and log once per streak of failures.
                if failures == 0 {
                    tracing::warn!(error = %e, "accept failed; backing off until it succeeds again");
                }
                failures += 1;
                tokio::select! {
                    _ = shutdown.cancelled() => break,
                    _ = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(BACKOFF_MAX);
                continue;
            }
        };
        let Ok(global_permit) = global.clone().try_acquire_owned() else {
            metrics::counter!("meridian_http_connections_refused_total", "reason" => "max_connections").increment(1);
            refuse(stream, "the server holds as many connections as it allows (server.max_connections)");
            continue;
        };
        let Some(ip_permit) = per_ip.acquire(remote.ip(), limits.max_connections_per_ip) else {
            metrics::counter!("meridian_http_connections_refused_total", "reason" => "max_connections_per_ip")
                .increment(1);
            refuse(
                stream,
                "this client address holds as many connections as the server allows (server.max_connections_per_ip)",
            );
            continue;
        };
        // Forget connections that ended, so the set follows the open ones.
        while connections.try_join_next().is_some() {}
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let limits = limits.clone();
        let shutdown = shutdown.clone();
        // Held by the connection and by whatever takes its socket over (a WebSocket), so that
        // the caps count an upgraded socket until it closes.
        let hold = meridian_api::extract::ConnectionHold(Arc::new((global_permit, ip_permit)));
        connections.spawn(async move {
            serve_connection(stream, remote, app, &limits, shutdown, hold).await;
        });
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
}

/// Errors of one incoming connection rather than of the listener.
fn is_peer_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionRefused
    )
}

/// Answers a connection over the caps with a 503 problem, without waiting for its request, and
/// closes it. Best effort: a full socket buffer just means a plain close.
fn refuse(stream: TcpStream, detail: &str) {
    let body = serde_json::json!({
        "type": meridian_core::problem::type_uri("server_busy"),
        "title": "Server busy",
        "status": 503,
        "detail": detail,
        "code": "server_busy",
        "errors": [],
    })
    .to_string();
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: {}\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        meridian_core::problem::MEDIA_TYPE,
        body.len()
    );
    // Read what already arrived, so that closing sends FIN rather than a reset that could
    // discard the answer before the client reads it.
    let mut sink = [0u8; 8192];
    for _ in 0..8 {
        match stream.try_read(&mut sink) {
            Ok(n) if n > 0 => continue,
            _ => break,
        }
    }
    let _ = stream.try_write(response.as_bytes());
}

/// Serves one connection until the client closes it, it errs, it idles too long, or shutdown.
async fn serve_connection(
    stream: TcpStream,
    remote: SocketAddr,
    app: Router,
    limits: &Limits,
    shutdown: CancellationToken,
    hold: meridian_api::extract::ConnectionHold,
) {
    let activity = Activity::new();
    let io = TokioIo::new(Tracked { inner: stream, activity: activity.clone(), rewritten: None });
    let service = {
        let activity = activity.clone();
        hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo(remote));
            req.extensions_mut().insert(hold.clone());
            let busy = activity.begin_request();
            let call = tower::ServiceExt::oneshot(app.clone(), req);
            async move {
                let response = call.await;
                drop(busy);
                response
            }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout);
    // Upgrades (the twin WebSocket) leave this loop: the socket then belongs to its session.
    let conn = builder.serve_connection(io, service).with_upgrades();
    tokio::pin!(conn);
    let mut draining = false;
    loop {
        // While a request runs the connection is not idle however quiet it is: look again later.
        let idle_at = activity.idle_deadline(limits.idle_timeout).max(Instant::now() + Duration::from_millis(250));
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, %remote, "http connection ended with an error");
                }
                return;
            }
            _ = shutdown.cancelled(), if !draining => {
                draining = true;
                conn.as_mut().graceful_shutdown();
            }
            _ = tokio::time::sleep_until(idle_at) => {
                if activity.is_idle(limits.idle_timeout) {
                    tracing::debug!(%remote, "closing an idle http connection");
                    return;
                }
            }
        }
    }
}

/// When a connection last moved a byte, and how many of its requests are being handled.
#[derive(Clone)]
struct Activity(Arc<ActivityInner>);

struct ActivityInner {
    start: Instant,
    /// Milliseconds since `start` of the last read or write.
    last_ms: AtomicU64,
    in_flight: AtomicUsize,
}

impl Activity {
    fn new() -> Self {
        Self(Arc::new(ActivityInner {
            start: Instant::now(),
            last_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
        }))
    }

    fn touch(&self) {
        let ms = self.0.start.elapsed().as_millis() as u64;
        self.0.last_ms.fetch_max(ms, Ordering::Relaxed);
    }

    fn begin_request(&self) -> RequestGuard {
        self.0.in_flight.fetch_add(1, Ordering::Relaxed);
        RequestGuard(self.clone())
    }

    fn idle_deadline(&self, idle: Duration) -> Instant {
        self.0.start + Duration::from_millis(self.0.last_ms.load(Ordering::Relaxed)) + idle
    }

    /// No request being handled and no byte moved for `idle`.
    fn is_idle(&self, idle: Duration) -> bool {
        self.0.in_flight.load(Ordering::Relaxed) == 0 && Instant::now() >= self.idle_deadline(idle)
    }
}

/// Marks a request as being handled until dropped (also when the client goes away).
struct RequestGuard(Activity);

impl Drop for RequestGuard {
    fn drop(&mut self) {
        self.0 .0.in_flight.fetch_sub(1, Ordering::Relaxed);
        self.0.touch();
    }
}

/// A stream that records when it last moved a byte.
struct Tracked {
    inner: TcpStream,
    activity: Activity,
    /// An answer hyper writes itself (a request head it cannot parse: 414, 431, 400) rewritten
    /// with a problem document, and how many of hyper's bytes it stands for.
    rewritten: Option<(Vec<u8>, usize, usize)>,
}

/// The answer for a status hyper sends with an empty body when it cannot parse a request head,
/// as a problem document; `None` for anything else.
fn problem_for_bare_status(head: &[u8]) -> Option<Vec<u8>> {
    let (status, code, title, detail) = if head.starts_with(b"HTTP/1.1 414 ") {
        (
            414,
            meridian_core::problem::code::URI_TOO_LONG,
            "URI too long",
            "the request's URI is longer than 65,534 bytes; send long parameters in a POST body",
        )
    } else if head.starts_with(b"HTTP/1.1 431 ") {
        (
            431,
            meridian_core::problem::code::HEADERS_TOO_LARGE,
            "Request headers too large",
            "the request's headers are larger than the server reads",
        )
    } else if head.starts_with(b"HTTP/1.1 400 ") && {
        let empty = b"content-length: 0\r\n";
        head.windows(empty.len()).any(|w| w.eq_ignore_ascii_case(empty))
    } {
        (
            400,
            meridian_core::problem::code::MALFORMED_REQUEST,
            "Malformed request",
            "the request head is not valid HTTP/1.1",
        )
    } else {
        return None;
    };
    let reason = std::str::from_utf8(&head[13..]).ok()?.split("\r\n").next()?.to_owned();
    let body = serde_json::json!({
        "type": meridian_core::problem::type_uri(code),
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
        "errors": [],
    })
    .to_string();
    Some(
        format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: {}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            meridian_core::problem::MEDIA_TYPE,
            body.len()
        )
        .into_bytes(),
    )
}

impl Tracked {
    /// Writes what is left of a rewritten answer; ready with hyper's byte count once all of it
    /// is out.
    fn poll_rewritten(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        while let Some((bytes, sent, stands_for)) = self.rewritten.as_mut() {
            if *sent == bytes.len() {
                let n = *stands_for;
                self.rewritten = None;
                return Poll::Ready(Ok(n));
            }
            match Pin::new(&mut self.inner).poll_write(cx, &bytes[*sent..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => *sent += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(0))
    }
}

impl AsyncRead for Tracked {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.rewritten.is_none() {
            if let Some(answer) = problem_for_bare_status(buf) {
                self.rewritten = Some((answer, 0, buf.len()));
            }
        }
        if self.rewritten.is_some() {
            return self.poll_rewritten(cx);
        }
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.rewritten.is_none() {
            if let Some(answer) = bufs.first().and_then(|b| problem_for_bare_status(b)) {
                let total = bufs.iter().map(|b| b.len()).sum();
                self.rewritten = Some((answer, 0, total));
            }
        }
        if self.rewritten.is_some() {
            return self.poll_rewritten(cx);
        }
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Open connections per client address.
#[derive(Clone, Default)]
struct PerIp(Arc<Mutex<HashMap<IpAddr, usize>>>);

/// One connection's place in its address's count, given back on drop.
struct IpPermit {
    map: PerIp,
    ip: IpAddr,
}

impl PerIp {
    fn acquire(&self, ip: IpAddr, max: usize) -> Option<IpPermit> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let count = map.entry(ip).or_insert(0);
        if *count >= max {
            return None;
        }
        *count += 1;
        Some(IpPermit { map: self.clone(), ip })
    }
}

impl Drop for IpPermit {
    fn drop(&mut self) {
        let mut map = self.map.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = map.get_mut(&self.ip) {
            *count -= 1;
            if *count == 0 {
                map.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use axum::routing::get;
    use std::io::{Read, Write};
    use std::sync::atomic::AtomicBool;

    fn limits() -> Limits {
        Limits {
            header_read_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(5),
            max_connections: 100,
            max_connections_per_ip: 100,
        }
    }

    /// Sets its flag when dropped.
    struct OnDrop(Arc<AtomicBool>);

    impl Drop for OnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    fn wait_for(flag: &AtomicBool, within: Duration) -> bool {
        let deadline = std::time::Instant::now() + within;
        while std::time::Instant::now() < deadline {
            if flag.load(Ordering::SeqCst) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    #[test]
    fn a_request_whose_client_disconnects_is_dropped() {
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        let (entered, dropped) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
        let (e, d) = (entered.clone(), dropped.clone());
        let app = Router::new().route(
            "/slow",
            get(move || {
                let (e, d) = (e.clone(), d.clone());
                async move {
                    let _guard = OnDrop(d);
                    e.store(true, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    "late"
                }
            }),
        );
        let stop = CancellationToken::new();
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        runtime.spawn(serve(listener, app, limits(), stop.clone()));
        let mut client = std::net::TcpStream::connect(addr).unwrap();
        client.write_all(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert!(wait_for(&entered, Duration::from_secs(10)));
        drop(client);
        assert!(wait_for(&dropped, Duration::from_secs(10)), "the handler outlived its client");
        stop.cancel();
    }

    #[test]
    fn blocking_work_does_not_hold_the_process_past_the_grace() {
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        let entered = Arc::new(AtomicBool::new(false));
        let e = entered.clone();
        // Blocking work that never looks at its cancellation token.
        let app = Router::new().route(
            "/stuck",
            get(move || {
                let e = e.clone();
                async move {
                    let _ = tokio::task::spawn_blocking(move || {
                        e.store(true, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_secs(60));
                    })
                    .await;
                    "late"
                }
            }),
        );
        let stop = CancellationToken::new();
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        let server = runtime.spawn(serve(listener, app, limits(), stop.clone()));
        let mut client = std::net::TcpStream::connect(addr).unwrap();
        client.write_all(b"GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert!(wait_for(&entered, Duration::from_secs(10)));
        let started = std::time::Instant::now();
        stop.cancel();
        let grace = Duration::from_millis(300);
        let drained = runtime.block_on(async { tokio::time::timeout(grace, server).await });
        assert!(drained.is_err(), "the server waited for its in-flight request, as it should within the grace");
        crate::serve::leave(runtime);
        assert!(started.elapsed() < Duration::from_secs(20), "leaving the runtime waited for blocking work");
        let mut rest = Vec::new();
        let _ = client.read_to_end(&mut rest);
    }

    #[test]
    fn quiet_connections_are_closed_after_the_idle_timeout() {
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        let app = Router::new().route("/", get(|| async { "hello" }));
        let stop = CancellationToken::new();
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        let limits = Limits {
            header_read_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_millis(300),
            ..limits()
        };
        runtime.spawn(serve(listener, app, limits, stop.clone()));
        // One request answered, then the kept-alive connection stays quiet.
        let mut client = std::net::TcpStream::connect(addr).unwrap();
        client.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        client.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut all = Vec::new();
        let started = std::time::Instant::now();
        let closed = client.read_to_end(&mut all).is_ok();
        assert!(closed, "the idle connection was not closed");
        assert!(String::from_utf8_lossy(&all).ends_with("hello"));
        assert!(started.elapsed() < Duration::from_secs(20));
        stop.cancel();
    }

    #[test]
    fn per_ip_counts_are_given_back() {
        let per_ip = PerIp::default();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let a = per_ip.acquire(ip, 2).unwrap();
        let _b = per_ip.acquire(ip, 2).unwrap();
        assert!(per_ip.acquire(ip, 2).is_none());
        assert!(per_ip.acquire("192.0.2.2".parse().unwrap(), 2).is_some());
        drop(a);
        assert!(per_ip.acquire(ip, 2).is_some());
    }
}
