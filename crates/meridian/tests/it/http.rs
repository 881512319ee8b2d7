//! The HTTP listener under hostile clients, shutdown with requests in flight, and log output.

use crate::Server;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn addr(s: &Server) -> SocketAddr {
    s.base.trim_start_matches("http://").parse().unwrap()
}

/// A connection from `source` that sends half a request head and then nothing.
async fn slow_client(source: &str, to: SocketAddr) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
    let mut stream = socket.connect(to).await.unwrap();
    // Refused connections may already be closed: the write is best effort.
    let _ = stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: meridian\r\nX-Slow: ").await;
    stream
}

/// Reads what the server sends until it closes the connection (or `within` passes).
async fn read_until_closed(stream: &mut tokio::net::TcpStream, within: Duration) -> Option<String> {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(String::from_utf8_lossy(&got).into_owned()),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

#[tokio::test]
async fn slow_connections_are_capped_and_timed_out_and_others_are_still_served() {
    let s = Server::start_with(&[
        ("MERIDIAN_SERVER__MAX_CONNECTIONS", "60"),
        ("MERIDIAN_SERVER__MAX_CONNECTIONS_PER_IP", "40"),
        ("MERIDIAN_SERVER__HEADER_READ_TIMEOUT", "3s"),
    ]);
    let to = addr(&s);
    // 200 half-sent requests from one address: only 40 are kept, the rest are told 503.
    let mut from_one = Vec::new();
    for _ in 0..200 {
        from_one.push(slow_client("127.0.0.2", to).await);
    }
    let r = s.client.get(s.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), 200, "a client at another address is served");
    let refused = read_until_closed(from_one.last_mut().unwrap(), Duration::from_secs(5)).await;
    let refused = refused.expect("a connection over the per-address cap is closed at once");
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(refused.contains("\"code\":\"server_busy\""), "{refused}");

    // Two more addresses fill the global cap (60) whatever is left of the first: the next
    // connection, from anywhere, is refused.
    let mut others = Vec::new();
    for source in ["127.0.0.3", "127.0.0.5"] {
        for _ in 0..40 {
            others.push(slow_client(source, to).await);
        }
    }
    let mut over = slow_client("127.0.0.4", to).await;
    let answer = read_until_closed(&mut over, Duration::from_secs(5)).await.unwrap_or_default();
    assert!(answer.contains("server_busy"), "{answer}");

    // The header read timeout (3 s) closes the slow connections, which frees their places.
    let kept = read_until_closed(&mut from_one[0], Duration::from_secs(15)).await;
    assert!(kept.is_some(), "a half-sent request head was kept open past the header read timeout");
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        match s.client.get(s.url("/healthz")).send().await {
            Ok(r) if r.status() == 200 => break,
            _ => assert!(Instant::now() < deadline, "the server did not recover after the slow clients timed out"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed() {
    let s = Server::start_with(&[("MERIDIAN_SERVER__HEADER_READ_TIMEOUT", "1s")]);
    let mut silent = tokio::net::TcpStream::connect(addr(&s)).await.unwrap();
    assert!(read_until_closed(&mut silent, Duration::from_secs(15)).await.is_some());
}

#[tokio::test]
async fn sigterm_ends_the_process_within_the_grace_whatever_is_in_flight() {
    let mut s = Server::start_with(&[("MERIDIAN_SERVER__SHUTDOWN_GRACE", "1s")]);
    let (_, key) = s.signup("grace@example.com").await;
    // An upload that announces 10 MB and sends a few bytes: its request stays in flight.
    let mut stuck = TcpStream::connect(addr(&s)).unwrap();
    let head = format!(
        "POST /api/v1/ogc/v1/features/collections HTTP/1.1\r\nHost: meridian\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/geo+json\r\nContent-Length: 10000000\r\n\r\n{{\"type\":"
    );
    stuck.write_all(head.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let status = s.terminate();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(10), "exit took {took:?} with a 1 s grace");
    assert!(status.success(), "{status:?}");
    let mut rest = Vec::new();
    let _ = stuck.read_to_end(&mut rest);
}

#[test]
fn logs_to_a_pipe_carry_no_colour_codes() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_meridian"))
        .arg("--data-dir")
        .arg(dir.path())
        .args(["serve", "--http", "127.0.0.1:0", "--dns", "127.0.0.1:0"])
        .env("MERIDIAN_LOG__LEVEL", "debug")
        .env("MERIDIAN_LOG__FORMAT", "pretty")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    // Read until the start-up line, stop the server, then read the rest until the pipe closes.
    let mut logged = Vec::new();
    loop {
        let before = logged.len();
        let n = std::io::BufRead::read_until(&mut stderr, b'\n', &mut logged).unwrap();
        assert!(n > 0, "meridian exited before starting: {}", String::from_utf8_lossy(&logged));
        if String::from_utf8_lossy(&logged[before..]).contains("meridian started") {
            break;
        }
    }
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    stderr.read_to_end(&mut logged).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "meridian did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
    let text = String::from_utf8_lossy(&logged);
    assert!(text.contains("meridian started"), "{text}");
    assert!(!logged.contains(&0x1b), "ESC in logs written to a pipe: {text}");
}

/// A request whose URI or head hyper refuses before any handler sees it (a URI over 64 KiB, a
/// head that is not HTTP) still gets a problem document, not an empty body.
#[test]
fn requests_refused_while_parsing_get_problem_documents() {
    let s = Server::start();
    let exchange = |request: &[u8]| {
        let mut c = TcpStream::connect(addr(&s)).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        // The server may answer and close before it has read all of a request it refuses.
        let _ = c.write_all(request);
        let mut answer = Vec::new();
        let _ = c.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).into_owned()
    };
    let long = format!("GET /api/v1/eo/collections?x={} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(70_000));
    let answer = exchange(long.as_bytes());
    assert!(answer.starts_with("HTTP/1.1 414 "), "{answer}");
    assert!(answer.contains("content-type: application/problem+json"), "{answer}");
    assert!(answer.contains("\"code\":\"uri_too_long\""), "{answer}");
    // Headers well past what hyper reads (about 400 KiB, give or take one read): 431.
    let big = format!("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "b".repeat(4 << 20));
    let answer = exchange(big.as_bytes());
    assert!(answer.starts_with("HTTP/1.1 431 "), "{}", &answer[..answer.len().min(200)]);
    assert!(answer.contains("\"code\":\"headers_too_large\""), "{answer}");
    let garbage = exchange(b"NOT HTTP AT ALL\r\n\r\n");
    assert!(garbage.starts_with("HTTP/1.1 400 "), "{garbage}");
    assert!(garbage.contains("\"code\":\"malformed_request\""), "{garbage}");
}
