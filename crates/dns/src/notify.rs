//! NOTIFY (RFC 1996): tells secondaries that a zone changed, so that they transfer it at once
//! instead of waiting for the SOA refresh timer.

use hickory_proto::op::{Message, MessageType, OpCode, Query};
use hickory_proto::rr::{Name, Record, RecordType};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::UdpSocket;

/// Attempts per secondary.
const ATTEMPTS: u32 = 5;

/// Sends NOTIFY for `zone` (with its SOA) to every target, each in its own task, retrying until
/// the secondary answers.
pub fn notify_all(zone: &str, soa: Record, targets: &[SocketAddr]) {
    let Ok(zone_name) = Name::from_ascii(format!("{zone}.")) else { return };
    for &target in targets {
        let (zone_name, soa) = (zone_name.clone(), soa.clone());
        tokio::spawn(async move {
            match notify_one(zone_name.clone(), soa, target).await {
                Ok(()) => tracing::debug!(zone = %zone_name, %target, "secondary acknowledged NOTIFY"),
                Err(e) => tracing::warn!(zone = %zone_name, %target, error = %e, "NOTIFY was not acknowledged"),
            }
        });
    }
}

/// Sends one NOTIFY and waits for its acknowledgement.
pub async fn notify_one(zone: Name, soa: Record, target: SocketAddr) -> Result<(), String> {
    let local: SocketAddr = if target.is_ipv4() { ([0, 0, 0, 0], 0).into() } else { ([0u16; 8], 0).into() };
    let socket = UdpSocket::bind(local).await.map_err(|e| e.to_string())?;
    let id: u16 = rand::random();
    let mut msg = Message::new(id, MessageType::Query, OpCode::Notify);
    msg.metadata.authoritative = true;
    msg.add_query(Query::query(zone, RecordType::SOA));
    msg.add_answer(soa);
    let bytes = msg.to_vec().map_err(|e| e.to_string())?;
    let mut buf = vec![0u8; 4096];
    for attempt in 0..ATTEMPTS {
        socket.send_to(&bytes, target).await.map_err(|e| e.to_string())?;
        let wait = Duration::from_millis(500 * 2u64.pow(attempt));
        let deadline = tokio::time::Instant::now() + wait;
        while let Ok(Ok((n, from))) = tokio::time::timeout_at(deadline, socket.recv_from(&mut buf)).await {
            if from.ip() != target.ip() {
                continue;
            }
            if let Ok(reply) = Message::from_vec(&buf[..n]) {
                if reply.metadata.id == id && reply.metadata.message_type == MessageType::Response {
                    return Ok(());
                }
            }
        }
    }
    Err(format!("no answer after {ATTEMPTS} attempts"))
}
