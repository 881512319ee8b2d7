//! TCP connection limits: one client cannot take every place, and idle connections make room.

use crate::common::{query, Harness};
use hickory_proto::op::{Message, ResponseCode};
use hickory_proto::rr::RecordType;
use meridian_core::config::DnsConfig;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// A TCP connection to `server` from the local address `from`.
async fn connect_from(from: [u8; 4], server: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((from, 0)))?;
    socket.connect(server).await
}

async fn send(stream: &mut TcpStream, m: &Message) -> std::io::Result<()> {
    let bytes = m.to_vec().map_err(std::io::Error::other)?;
    let mut framed = (bytes.len() as u16).to_be_bytes().to_vec();
    framed.extend(bytes);
    stream.write_all(&framed).await
}

/// The next answer on the connection; `None` when the server closed it (or within 5 s said nothing).
async fn answer(stream: &mut TcpStream) -> Option<Message> {
    let mut len = [0u8; 2];
    tokio::time::timeout(Duration::from_secs(5), stream.read_exact(&mut len)).await.ok()?.ok()?;
    let mut msg = vec![0u8; u16::from_be_bytes(len) as usize];
    stream.read_exact(&mut msg).await.ok()?;
    Message::from_vec(&msg).ok()
}

/// One query over a new connection from `from`; `None` when the server would not serve it.
async fn ask_from(from: [u8; 4], server: SocketAddr) -> Option<Message> {
    let mut stream = connect_from(from, server).await.ok()?;
    send(&mut stream, &query("example.com.", RecordType::SOA, None)).await.ok()?;
    answer(&mut stream).await
}

#[tokio::test]
async fn one_client_holding_many_connections_does_not_starve_others() {
    let h = Harness::new(DnsConfig::default()).await;
    h.zone("example.com").await;
    h.refresh().await;
    // More connections than the whole table holds, each kept busy with a query.
    let mut held = Vec::new();
    for _ in 0..1100 {
        let mut s = connect_from([127, 0, 0, 1], h.addr).await.unwrap();
        if send(&mut s, &query("example.com.", RecordType::SOA, None)).await.is_ok() {
            held.push(s);
        }
    }
    let mut served = 0;
    for s in &mut held {
        if answer(s).await.is_some() {
            served += 1;
        }
    }
    let per_client = DnsConfig::default().tcp_connections_per_client;
    assert_eq!(served, per_client, "one address gets tcp_connections_per_client connections");
    // Another client is still answered while the first keeps its connections open.
    let r = ask_from([127, 0, 0, 2], h.addr).await.expect("a second client is answered over TCP");
    assert_eq!(r.metadata.response_code, ResponseCode::NoError);
    for s in &mut held {
        let _ = send(s, &query("example.com.", RecordType::SOA, None)).await;
    }
    assert!(ask_from([127, 0, 0, 3], h.addr).await.is_some());
    drop(held);
}

#[tokio::test]
async fn idle_connections_are_closed_sooner_when_the_table_fills() {
    let config = DnsConfig {
        tcp_connections: 8,
        tcp_connections_per_client: 8,
        tcp_idle_timeout: Duration::from_secs(60),
        tcp_busy_idle_timeout: Duration::from_millis(200),
        ..DnsConfig::default()
    };
    let h = Harness::new(config).await;
    h.zone("example.com").await;
    h.refresh().await;
    // Three idle connections, under half the table: they stay open past the busy timeout.
    let mut few = Vec::new();
    for _ in 0..3 {
        let mut s = connect_from([127, 0, 0, 1], h.addr).await.unwrap();
        send(&mut s, &query("example.com.", RecordType::SOA, None)).await.unwrap();
        assert!(answer(&mut s).await.is_some());
        few.push(s);
    }
    tokio::time::sleep(Duration::from_millis(600)).await;
    for s in &mut few {
        send(s, &query("example.com.", RecordType::SOA, None)).await.unwrap();
        assert!(answer(s).await.is_some(), "an idle connection in a quiet table is kept");
    }
    // Fill the table with idle connections: they are closed after the busy timeout, and a new
    // client gets a place.
    let mut idle = Vec::new();
    for _ in 0..5 {
        idle.push(connect_from([127, 0, 0, 1], h.addr).await.unwrap());
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(r) = ask_from([127, 0, 0, 2], h.addr).await {
            assert_eq!(r.metadata.response_code, ResponseCode::NoError);
            break;
        }
        assert!(Instant::now() < deadline, "the new client never got a place");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Idle connections are closed until at most half the table is in use; then the usual
    // timeout applies again.
    let mut closed = 0;
    for s in few.iter_mut().chain(idle.iter_mut()) {
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(Duration::from_secs(2), s.read(&mut byte)).await;
        if matches!(read, Ok(Ok(0)) | Ok(Err(_))) {
            closed += 1;
        }
    }
    assert!((4..8).contains(&closed), "{closed} of 8 idle connections were closed");
}
