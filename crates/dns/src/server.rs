//! The authoritative DNS server over UDP and TCP: queries answered from the [`ServedZones`], zone
//! transfers (AXFR, and IXFR answered with the whole zone), TSIG, and RFC 2136 dynamic updates
//! applied through the same [`DnsService`] as the HTTP API.

pub use crate::answer_cache::AnswerCache;
use crate::answer_cache::Cacheable;
use crate::name;
use crate::notify;
use crate::record::{validate, RecordInput, RecordType as OurType, ValidRecord, MIN_TTL};
use crate::served::ServedZones;
use crate::service::DnsService;
use crate::tsig::{self, KeyRing, Signer, Verified};
use hickory_proto::op::{Edns, Message, MessageType, OpCode, ResponseCode};
use hickory_proto::rr::{DNSClass, RData as WireData, Record, RecordType};
use hickory_proto::serialize::binary::BinEncodable;
use ipnet::IpNet;
use meridian_core::config::DnsConfig;
use meridian_core::DomainError;
use meridian_store::dns::{Record as StoredRecord, Zone};
use meridian_store::notices::Subscription;
use meridian_store::{Notice, Store, StoreError};
use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

/// Answers larger than this are split into several messages in a zone transfer.
const TRANSFER_CHUNK: usize = 16_000;

/// The TCP connections being served, in all and per client address.
#[derive(Default)]
struct TcpTable {
    total: usize,
    per_client: HashMap<IpAddr, usize>,
}

/// A place in the [`TcpTable`], given back when the connection ends.
struct TcpSlot {
    table: Arc<Mutex<TcpTable>>,
    ip: IpAddr,
}

impl TcpSlot {
    /// Takes a place for a connection from `ip`, unless the table or the client's share is full.
    fn take(table: &Arc<Mutex<TcpTable>>, ip: IpAddr, total: usize, per_client: usize) -> Option<Self> {
        let mut t = table.lock().unwrap_or_else(|p| p.into_inner());
        let mine = t.per_client.get(&ip).copied().unwrap_or(0);
        if t.total >= total || mine >= per_client {
            return None;
        }
        t.total += 1;
        t.per_client.insert(ip, mine + 1);
        Some(Self { table: table.clone(), ip })
    }

    /// Connections served now.
    fn in_use(&self) -> usize {
        self.table.lock().unwrap_or_else(|p| p.into_inner()).total
    }
}

impl Drop for TcpSlot {
    fn drop(&mut self) {
        let mut t = self.table.lock().unwrap_or_else(|p| p.into_inner());
        t.total = t.total.saturating_sub(1);
        if let Some(n) = t.per_client.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                t.per_client.remove(&self.ip);
            }
        }
    }
}

/// The sockets of a bound server.
pub struct Bound {
    /// UDP sockets sharing the port, one per worker.
    pub udp: Vec<std::net::UdpSocket>,
    pub tcp: TcpListener,
    /// The address both are bound to.
    pub addr: SocketAddr,
}

/// Binds TCP, then `udp_workers` UDP sockets on the same port (0: one per core). TCP comes first
/// because its port is exclusive: with port 0 the port TCP got is tried for UDP, again with a
/// new port when another program holds it, and a second server on a port in use fails.
pub async fn bind(addr: SocketAddr, udp_workers: usize) -> std::io::Result<Bound> {
    let workers = match udp_workers {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let mut last_error = None;
    for _ in 0..50 {
        let tcp = TcpListener::bind(addr).await?;
        let local = tcp.local_addr()?;
        match crate::udp::bind_group(local, workers) {
            Ok(udp) => return Ok(Bound { udp, tcp, addr: local }),
            Err(e) if addr.port() == 0 => last_error = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last_error.unwrap_or_else(|| std::io::Error::other("no port was free for both UDP and TCP")))
}

/// What [`DnsServer::handle_udp`] did with a datagram.
#[derive(Debug, PartialEq, Eq)]
pub enum UdpReply {
    /// Answered from the cache into `out`, with this RCODE.
    Rendered(u8),
    /// Answered by the full path (no reply at all for a response or an unreadable header).
    Full(Vec<Vec<u8>>),
    /// A dynamic update, which waits on the store: [`DnsServer::handle`].
    Later,
}

/// What the server answers with.
pub struct DnsServer {
    served_zones: Arc<ServedZones>,
    service: Arc<DnsService>,
    keys: KeyRing,
    transfer_from: Vec<IpNet>,
    config: Arc<DnsConfig>,
    /// Dynamic updates over UDP being handled at once; past it new ones are dropped (counted), as
    /// an overloaded server does, and the client's retry comes later.
    updates: Arc<tokio::sync::Semaphore>,
}

/// Most UDP dynamic updates handled at once.
const MAX_UDP_UPDATES: usize = 64;

fn rcode_name(rcode: ResponseCode) -> &'static str {
    match rcode {
        ResponseCode::NoError => "NOERROR",
        ResponseCode::NXDomain => "NXDOMAIN",
        ResponseCode::Refused => "REFUSED",
        ResponseCode::FormErr => "FORMERR",
        ResponseCode::NotAuth => "NOTAUTH",
        ResponseCode::NotImp => "NOTIMP",
        ResponseCode::ServFail => "SERVFAIL",
        _ => "OTHER",
    }
}

/// Parses `allow_transfer` entries: addresses or networks.
pub fn parse_networks(entries: &[String]) -> Result<Vec<IpNet>, String> {
    entries
        .iter()
        .map(|e| {
            e.parse::<IpNet>()
                .or_else(|_| e.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| format!("dns.allow_transfer: `{e}` is not an address or network"))
        })
        .collect()
}

fn lower(name: &hickory_proto::rr::Name) -> String {
    name.to_ascii().trim_end_matches('.').to_ascii_lowercase()
}

impl DnsServer {
    /// A server over the served_zones; refuses configuration it cannot use.
    pub fn new(
        served_zones: Arc<ServedZones>,
        service: Arc<DnsService>,
        config: Arc<DnsConfig>,
    ) -> Result<Self, String> {
        let keys = KeyRing::from_config(&config.tsig_keys)?;
        let transfer_from = parse_networks(&config.allow_transfer)?;
        let updates = Arc::new(tokio::sync::Semaphore::new(MAX_UDP_UPDATES));
        Ok(Self { served_zones, service, keys, transfer_from, config, updates })
    }

    /// Serves until `shutdown`: a thread per UDP socket and a TCP acceptor.
    pub async fn run(self: Arc<Self>, bound: Bound, shutdown: CancellationToken) {
        let runtime = tokio::runtime::Handle::current();
        // Each worker holds a sender; the channel closes when the last one has stopped.
        let (alive, mut stopped) = tokio::sync::mpsc::channel::<()>(1);
        for (i, socket) in bound.udp.into_iter().enumerate() {
            let (server, stop, runtime, alive) = (self.clone(), shutdown.clone(), runtime.clone(), alive.clone());
            let spawned = std::thread::Builder::new().name(format!("dns-udp-{i}")).spawn(move || {
                server.serve_udp(socket, &stop, &runtime);
                drop(alive);
            });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "cannot start a DNS UDP worker");
            }
        }
        drop(alive);
        let tcp = tokio::spawn(self.clone().serve_tcp(bound.tcp, shutdown.clone()));
        let _ = stopped.recv().await;
        let _ = tcp.await;
    }

    /// One UDP worker: batches of datagrams from its socket, plain queries answered from its
    /// cache of rendered replies ([`crate::fast`]), the rest by [`Self::handle_now`], and
    /// dynamic updates (which wait on the store) handed to the runtime.
    fn serve_udp(self: Arc<Self>, socket: std::net::UdpSocket, shutdown: &CancellationToken, runtime: &Handle) {
        // The socket is polled for the shutdown this often.
        if let Err(e) = socket.set_read_timeout(Some(Duration::from_millis(200))) {
            tracing::error!(error = %e, "cannot set the DNS UDP socket's read timeout");
            return;
        }
        let pktinfo = crate::udp::enable(&socket);
        let socket = Arc::new(socket);
        let mut receiver = crate::udp::Receiver::new(pktinfo);
        let mut sender = crate::udp::Sender::new(pktinfo);
        let mut cache = AnswerCache::new(self.config.answer_cache_bytes);
        let mut received = Vec::with_capacity(crate::udp::BATCH);
        let mut served = [0u64; 16];
        while !shutdown.is_cancelled() {
            if let Err(e) = receiver.recv(&socket, &mut received) {
                if !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) {
                    tracing::debug!(error = %e, "udp receive failed");
                }
                continue;
            }
            cache.sync(self.served_zones.generation());
            for (i, r) in received.iter().enumerate() {
                let msg = receiver.datagram(i, r);
                let out = sender.next(r.from, r.dest);
                match self.handle_udp(&mut cache, msg, r.from, out) {
                    UdpReply::Rendered(rcode) => served[usize::from(rcode)] += 1,
                    UdpReply::Full(replies) => {
                        sender.cancel();
                        for reply in replies {
                            sender.next(r.from, r.dest).extend_from_slice(&reply);
                        }
                    }
                    UdpReply::Later => {
                        sender.cancel();
                        // A dynamic update: answered in its own task, so that queries keep flowing,
                        // and only so many at once.
                        let Ok(permit) = self.updates.clone().try_acquire_owned() else {
                            metrics::counter!("meridian_dns_updates_dropped_total").increment(1);
                            continue;
                        };
                        let (server, socket, msg) = (self.clone(), socket.clone(), msg.to_vec());
                        let (from, dest) = (r.from, r.dest);
                        runtime.spawn(async move {
                            let _permit = permit;
                            for reply in server.handle(&msg, from, false).await {
                                if let Err(e) = crate::udp::send_one(&socket, &reply, from, dest) {
                                    tracing::debug!(error = %e, %from, "udp send failed");
                                }
                            }
                        });
                    }
                }
            }
            sender.flush(&socket);
            for (rcode, n) in served.iter_mut().enumerate().filter(|(_, n)| **n > 0) {
                let code = ResponseCode::from_low(rcode as u8);
                metrics::counter!("meridian_dns_queries_total", "rcode" => rcode_name(code)).increment(*n);
                *n = 0;
            }
        }
    }

    async fn serve_tcp(self: Arc<Self>, listener: TcpListener, shutdown: CancellationToken) {
        let table = Arc::new(Mutex::new(TcpTable::default()));
        let (total, per_client) = (self.config.tcp_connections, self.config.tcp_connections_per_client);
        loop {
            let accepted = tokio::select! {
                _ = shutdown.cancelled() => return,
                a = listener.accept() => a,
            };
            match accepted {
                Ok((stream, src)) => {
                    // Past a limit a new connection is closed at once rather than queued: one
                    // client cannot take every place, and idle connections leave sooner when the
                    // table fills (see `idle_limit`).
                    let Some(slot) = TcpSlot::take(&table, src.ip(), total, per_client) else {
                        metrics::counter!("meridian_dns_tcp_refused_total").increment(1);
                        tracing::debug!(%src, "too many DNS TCP connections; closing a new one");
                        continue;
                    };
                    let (server, stop) = (self.clone(), shutdown.clone());
                    tokio::spawn(async move { server.serve_connection(stream, src, slot, stop).await });
                }
                Err(e) => tracing::debug!(error = %e, "tcp accept failed"),
            }
        }
    }

    /// How long a connection may stay silent now: shorter while the table is more than half full.
    fn idle_limit(&self, slot: &TcpSlot) -> Duration {
        if slot.in_use() * 2 > self.config.tcp_connections {
            self.config.tcp_busy_idle_timeout.min(self.config.tcp_idle_timeout)
        } else {
            self.config.tcp_idle_timeout
        }
    }

    /// Waits for `read` while the connection is not idle for longer than [`Self::idle_limit`],
    /// which is looked at again as the table fills or empties. `None` when it gave up.
    async fn within_idle<T>(
        &self,
        slot: &TcpSlot,
        read: impl Future<Output = std::io::Result<T>>,
        shutdown: &CancellationToken,
    ) -> Option<T> {
        let since = Instant::now();
        tokio::pin!(read);
        loop {
            let left = self.idle_limit(slot).saturating_sub(since.elapsed());
            if left.is_zero() {
                return None;
            }
            let step = left.min(self.config.tcp_busy_idle_timeout.max(Duration::from_millis(10)));
            tokio::select! {
                _ = shutdown.cancelled() => return None,
                r = &mut read => return r.ok(),
                _ = tokio::time::sleep(step) => {}
            }
        }
    }

    async fn serve_connection(
        self: Arc<Self>,
        mut stream: TcpStream,
        src: SocketAddr,
        slot: TcpSlot,
        shutdown: CancellationToken,
    ) {
        loop {
            let mut len = [0u8; 2];
            if self.within_idle(&slot, stream.read_exact(&mut len), &shutdown).await.is_none() {
                return;
            }
            let mut msg = vec![0u8; u16::from_be_bytes(len) as usize];
            if self.within_idle(&slot, stream.read_exact(&mut msg), &shutdown).await.is_none() {
                return;
            }
            for reply in self.handle(&msg, src, true).await {
                let mut framed = Vec::with_capacity(reply.len() + 2);
                framed.extend((reply.len() as u16).to_be_bytes());
                framed.extend(reply);
                if stream.write_all(&framed).await.is_err() {
                    return;
                }
            }
        }
    }

    /// Answers one UDP datagram as a worker does: from `cache` when it holds the reply (written
    /// into `out`), else by the full path, keeping its reply when the query may be cached.
    /// The caller calls [`AnswerCache::sync`] with [`ServedZones::generation`] before a batch.
    pub fn handle_udp(&self, cache: &mut AnswerCache, msg: &[u8], src: SocketAddr, out: &mut Vec<u8>) -> UdpReply {
        let cacheable = Cacheable::parse(msg, self.config.max_udp_payload);
        if let Some(q) = &cacheable {
            if let Some(rcode) = cache.answer(q, msg, out) {
                return UdpReply::Rendered(rcode);
            }
        }
        let Some(replies) = self.handle_now(msg, src, false) else { return UdpReply::Later };
        if let (Some(q), [reply]) = (&cacheable, replies.as_slice()) {
            cache.insert(q, msg, reply);
        }
        UdpReply::Full(replies)
    }

    /// Answers one message; zone transfers answer with several.
    pub async fn handle(&self, bytes: &[u8], src: SocketAddr, tcp: bool) -> Vec<Vec<u8>> {
        if let Some(replies) = self.handle_now(bytes, src, tcp) {
            return replies;
        }
        match self.accept(bytes) {
            Err(replies) => replies,
            Ok((request, verified)) => {
                let replies = vec![self.update(&request, &verified).await];
                self.finish(replies, &request, tcp, verified)
            }
        }
    }

    /// Answers a message without waiting: everything but a dynamic update, which is `None`
    /// (it waits on the store: [`Self::handle`]).
    pub fn handle_now(&self, bytes: &[u8], src: SocketAddr, tcp: bool) -> Option<Vec<Vec<u8>>> {
        if bytes.len() > 2 && (bytes[2] >> 3) & 0x0f == u8::from(OpCode::Update) {
            return None;
        }
        Some(match self.accept(bytes) {
            Err(replies) => replies,
            Ok((request, verified)) => {
                let replies = match request.metadata.op_code {
                    OpCode::Query => self.query(&request, src, tcp, &verified),
                    _ => vec![self.error(&request, ResponseCode::NotImp)],
                };
                self.finish(replies, &request, tcp, verified)
            }
        })
    }

    /// Parses a message and checks its EDNS version and TSIG; `Err` holds the replies of a
    /// message answered at once (FORMERR, BADVERS, NOTAUTH, or none to a response).
    fn accept(&self, bytes: &[u8]) -> Result<(Message, Verified), Vec<Vec<u8>>> {
        let request = match Message::from_vec(bytes) {
            Ok(m) => m,
            Err(_) => {
                if bytes.len() < 12 || bytes[2] & 0x80 != 0 {
                    return Err(Vec::new());
                }
                // Answer FORMERR with the header we could read.
                let mut reply = bytes[..12].to_vec();
                reply[2] = (reply[2] | 0x80) & !0x06;
                reply[3] = ResponseCode::FormErr.low();
                reply[4..12].fill(0);
                return Err(vec![reply]);
            }
        };
        if request.metadata.message_type != MessageType::Query {
            return Err(Vec::new());
        }
        // RFC 6891 section 6.1.3: only EDNS version 0 is implemented.
        if request.edns.as_ref().is_some_and(|e| e.version() > 0) {
            let mut reply = self.reply_to(&request);
            reply.metadata.response_code = ResponseCode::BADVERS;
            metrics::counter!("meridian_dns_queries_total", "rcode" => "BADVERS").increment(1);
            return Err(reply.to_vec().into_iter().collect());
        }
        let verified = tsig::verify_request(&self.keys, bytes, tsig::now());
        if let Verified::Failed { key_name, error } = &verified {
            let mut reply = Message::response(request.metadata.id, request.metadata.op_code);
            reply.metadata.response_code = ResponseCode::NotAuth;
            reply.add_queries(request.queries.iter().cloned());
            let mut bytes = reply.to_vec().unwrap_or_default();
            tsig::append_error(&mut bytes, key_name, *error, tsig::now());
            return Err(vec![bytes]);
        }
        Ok((request, verified))
    }

    /// Signs the replies when the request was signed, else encodes them for the transport.
    fn finish(&self, replies: Vec<Message>, request: &Message, tcp: bool, verified: Verified) -> Vec<Vec<u8>> {
        match verified {
            Verified::Valid { key, mac } => {
                let mut signer = Signer::response(key, mac);
                replies.into_iter().map(|m| signer.sign(m.to_vec().unwrap_or_default(), tsig::now())).collect()
            }
            _ => replies.into_iter().filter_map(|m| self.encode(m, request, tcp)).collect(),
        }
    }

    /// Encodes a reply, truncating it (TC) when it is larger than the client can take over UDP.
    fn encode(&self, reply: Message, request: &Message, tcp: bool) -> Option<Vec<u8>> {
        let bytes = reply.to_vec().ok()?;
        if tcp {
            // A TCP message carries a 16-bit length.
            return if bytes.len() <= usize::from(u16::MAX) { Some(bytes) } else { reply.truncate().to_vec().ok() };
        }
        let limit = match &request.edns {
            Some(e) => usize::from(e.max_payload().clamp(512, self.config.max_udp_payload.max(512))),
            None => 512,
        };
        if bytes.len() <= limit {
            return Some(bytes);
        }
        metrics::counter!("meridian_dns_truncated_total").increment(1);
        reply.truncate().to_vec().ok()
    }

    fn reply_to(&self, request: &Message) -> Message {
        let mut reply = Message::response(request.metadata.id, request.metadata.op_code);
        reply.metadata.recursion_desired = request.metadata.recursion_desired;
        reply.metadata.checking_disabled = request.metadata.checking_disabled;
        reply.add_queries(request.queries.iter().cloned());
        if let Some(edns) = &request.edns {
            let mut ours = Edns::new();
            ours.set_max_payload(self.config.max_udp_payload.max(512));
            ours.set_dnssec_ok(edns.flags().dnssec_ok);
            reply.set_edns(ours);
        }
        reply
    }

    fn error(&self, request: &Message, rcode: ResponseCode) -> Message {
        let mut reply = self.reply_to(request);
        reply.metadata.response_code = rcode;
        metrics::counter!("meridian_dns_queries_total", "rcode" => rcode_name(rcode)).increment(1);
        reply
    }

    fn query(&self, request: &Message, src: SocketAddr, tcp: bool, verified: &Verified) -> Vec<Message> {
        let [q] = request.queries.as_slice() else { return vec![self.error(request, ResponseCode::FormErr)] };
        if q.query_class() != DNSClass::IN {
            return vec![self.error(request, ResponseCode::Refused)];
        }
        let qname = lower(q.name());
        match q.query_type() {
            RecordType::AXFR => return self.transfer(request, &qname, src, tcp, verified),
            RecordType::IXFR if tcp => return self.transfer(request, &qname, src, tcp, verified),
            _ => {}
        }
        let Some(zone) = self.served_zones.find(&qname) else {
            return vec![self.error(request, ResponseCode::Refused)];
        };
        let qtype = if q.query_type() == RecordType::IXFR { RecordType::SOA } else { q.query_type() };
        let dnssec_ok = request.edns.as_ref().is_some_and(|e| e.flags().dnssec_ok);
        let answer = zone.answer(&qname, qtype, dnssec_ok);
        let mut reply = self.reply_to(request);
        reply.metadata.authoritative = answer.authoritative;
        reply.metadata.response_code = answer.rcode;
        reply.insert_answers(answer.answers);
        reply.insert_authorities(answer.authorities);
        reply.insert_additionals(answer.additionals);
        metrics::counter!("meridian_dns_queries_total", "rcode" => rcode_name(answer.rcode)).increment(1);
        vec![reply]
    }

    fn may_transfer(&self, src: SocketAddr, verified: &Verified) -> bool {
        match verified {
            Verified::Valid { key, .. } => key.transfer,
            _ => self.transfer_from.iter().any(|net| net.contains(&src.ip())),
        }
    }

    /// AXFR (RFC 5936) over TCP, in messages of about 16 kB, each signed when the request was.
    fn transfer(
        &self,
        request: &Message,
        qname: &str,
        src: SocketAddr,
        tcp: bool,
        verified: &Verified,
    ) -> Vec<Message> {
        if !tcp {
            return vec![self.error(request, ResponseCode::FormErr)];
        }
        let Some(zone) = self.served_zones.get(qname) else { return vec![self.error(request, ResponseCode::NotAuth)] };
        if !self.may_transfer(src, verified) {
            tracing::info!(zone = qname, %src, "zone transfer refused");
            return vec![self.error(request, ResponseCode::Refused)];
        }
        let mut records = zone.transfer_records();
        records.push(zone.soa());
        let mut messages = Vec::new();
        let mut current = self.reply_to(request);
        current.metadata.authoritative = true;
        current.edns = None;
        let mut size = 0;
        for r in records {
            let len = r.to_bytes().map(|b| b.len()).unwrap_or(0);
            if size + len > TRANSFER_CHUNK && !current.answers.is_empty() {
                let mut next = Message::response(request.metadata.id, request.metadata.op_code);
                next.metadata.authoritative = true;
                messages.push(std::mem::replace(&mut current, next));
                size = 0;
            }
            size += len;
            current.add_answer(r);
        }
        messages.push(current);
        tracing::info!(zone = qname, %src, messages = messages.len(), "zone transferred");
        metrics::counter!("meridian_dns_transfers_total").increment(1);
        messages
    }

    /// RFC 2136: prerequisites, then the changes, through the service (validation, events).
    async fn update(&self, request: &Message, verified: &Verified) -> Message {
        let code = match self.apply_update(request, verified).await {
            Ok(()) => ResponseCode::NoError,
            Err(code) => code,
        };
        let mut reply = Message::response(request.metadata.id, OpCode::Update);
        reply.add_queries(request.queries.iter().cloned());
        reply.metadata.response_code = code;
        reply
    }

    /// Prerequisites and changes are computed from one reading of the zone and committed only if
    /// the zone did not change since (RFC 2136 section 3.7); a concurrent change makes it read again.
    async fn apply_update(&self, request: &Message, verified: &Verified) -> Result<(), ResponseCode> {
        for _ in 0..5 {
            match self.try_update(request, verified).await {
                Err(None) => continue,
                Err(Some(code)) => return Err(code),
                Ok(()) => return Ok(()),
            }
        }
        Err(ResponseCode::ServFail)
    }

    /// One attempt, in the phases of RFC 2136 section 3: the zone and the key's right to it,
    /// the records the update touches, the prerequisites, the updates, the commit. `Err(None)`
    /// when the zone changed under it.
    async fn try_update(&self, request: &Message, verified: &Verified) -> Result<(), Option<ResponseCode>> {
        let zone = self.update_zone(request, verified).await?;
        // Only the records at the names the update names (prerequisites and changes): an update
        // reads what it touches, not the whole zone.
        let mut names: Vec<String> =
            request.answers.iter().chain(&request.authorities).map(|rr| lower(&rr.name)).collect();
        names.push(zone.name.clone());
        names.sort_unstable();
        names.dedup();
        let existing = self.service.records_named(&zone, &names).await.map_err(|e| {
            tracing::error!(zone = %zone.name, error = %e, "dynamic update: reading the records failed");
            Some(ResponseCode::ServFail)
        })?;
        check_prerequisites(&request.answers, &zone, &existing)?;
        let (adds, deletes) = plan_updates(&request.authorities, &zone, &existing)?;
        match self.service.apply_update(&zone, &adds, &deletes).await {
            Ok(_) => {
                tracing::info!(zone = %zone.name, added = adds.len(), deleted = deletes.len(), "dynamic update applied");
                Ok(())
            }
            Err(StoreError::Domain(DomainError::PreconditionFailed(_))) => Err(None),
            Err(StoreError::Domain(e)) => {
                tracing::info!(zone = %zone.name, error = %e, "dynamic update refused");
                Err(Some(ResponseCode::Refused))
            }
            Err(e) => {
                tracing::error!(zone = %zone.name, error = %e, "dynamic update failed");
                Err(Some(ResponseCode::ServFail))
            }
        }
    }

    /// The zone section (one SOA question), the zone it names, and the TSIG key's right to
    /// update it (section 3.1, and 3.3 with keys for permissions).
    async fn update_zone(&self, request: &Message, verified: &Verified) -> Result<Zone, Option<ResponseCode>> {
        let [zq] = request.queries.as_slice() else { return Err(Some(ResponseCode::FormErr)) };
        if zq.query_type() != RecordType::SOA {
            return Err(Some(ResponseCode::FormErr));
        }
        let zone = match self.service.zone_named(&lower(zq.name())).await {
            Ok(Some(z)) => z,
            Ok(None) => return Err(Some(ResponseCode::NotAuth)),
            Err(e) => {
                tracing::error!(error = %e, "dynamic update: reading the zone failed");
                return Err(Some(ResponseCode::ServFail));
            }
        };
        match verified {
            Verified::Valid { key, .. } if key.may_update(&zone.name) => Ok(zone),
            Verified::Valid { key, .. } => {
                tracing::info!(zone = %zone.name, key = %key.name, "dynamic update refused: the key may not update this zone");
                Err(Some(ResponseCode::Refused))
            }
            _ => {
                tracing::info!(zone = %zone.name, "dynamic update refused: it was not signed with a TSIG key");
                Err(Some(ResponseCode::Refused))
            }
        }
    }
}

/// The prerequisite section against the records at its names (RFC 2136 section 3.2).
fn check_prerequisites(
    prerequisites: &[Record],
    zone: &Zone,
    existing: &[StoredRecord],
) -> Result<(), Option<ResponseCode>> {
    // Looked up by name, so that an update costs time linear in what it touches.
    let mut by_name: HashMap<&str, Vec<&str>> = HashMap::new();
    for r in existing {
        by_name.entry(r.name.as_str()).or_default().push(r.rtype.as_str());
    }
    let in_use = |n: &str| n == zone.name || by_name.contains_key(n);
    let types_at = |n: &str| -> Vec<String> {
        let mut t: Vec<String> = by_name.get(n).into_iter().flatten().map(|t| (*t).to_owned()).collect();
        if n == zone.name {
            t.extend(["SOA".to_owned(), "NS".to_owned()]);
        }
        t
    };
    let mut value_sets: std::collections::BTreeMap<(String, String), Vec<String>> = Default::default();
    for rr in prerequisites {
        let owner = lower(&rr.name);
        if !name::in_zone(&owner, &zone.name) {
            return Err(Some(ResponseCode::NotZone));
        }
        let rtype = rr.record_type();
        match rr.dns_class {
            DNSClass::ANY if rtype == RecordType::ANY => {
                if !in_use(&owner) {
                    return Err(Some(ResponseCode::NXDomain));
                }
            }
            DNSClass::ANY => {
                if !types_at(&owner).iter().any(|t| *t == rtype.to_string()) {
                    return Err(Some(ResponseCode::NXRRSet));
                }
            }
            DNSClass::NONE if rtype == RecordType::ANY => {
                if in_use(&owner) {
                    return Err(Some(ResponseCode::YXDomain));
                }
            }
            DNSClass::NONE => {
                if types_at(&owner).iter().any(|t| *t == rtype.to_string()) {
                    return Err(Some(ResponseCode::YXRRSet));
                }
            }
            DNSClass::IN => {
                let v = wire_to_valid(rr, &zone.name).map_err(|_| Some(ResponseCode::FormErr))?;
                value_sets.entry((v.name.clone(), rtype.to_string())).or_default().push(v.data.presentation());
            }
            _ => return Err(Some(ResponseCode::FormErr)),
        }
    }
    let mut sets: HashMap<(&str, &str), Vec<String>> = HashMap::new();
    for r in existing {
        sets.entry((r.name.as_str(), r.rtype.as_str())).or_default().push(r.rdata.clone());
    }
    for ((owner, rtype), mut wanted) in value_sets {
        let mut have: Vec<String> = sets.get(&(owner.as_str(), rtype.as_str())).cloned().unwrap_or_default();
        wanted.sort();
        wanted.dedup();
        have.sort();
        if wanted != have {
            return Err(Some(ResponseCode::NXRRSet));
        }
    }
    Ok(())
}

/// The update section (RFC 2136 section 3.4), checked first, then applied to a working copy of
/// the records it touches: the records to add and the stored records to delete.
fn plan_updates(
    updates: &[Record],
    zone: &Zone,
    existing: &[StoredRecord],
) -> Result<(Vec<ValidRecord>, Vec<StoredRecord>), Option<ResponseCode>> {
    let mut live: Vec<StoredRecord> = existing.to_vec();
    let mut adds: Vec<ValidRecord> = Vec::new();
    for rr in updates {
        let owner = lower(&rr.name);
        if !name::in_zone(&owner, &zone.name) {
            return Err(Some(ResponseCode::NotZone));
        }
        let rtype = rr.record_type();
        let apex_managed = owner == zone.name && matches!(rtype, RecordType::SOA | RecordType::NS);
        match rr.dns_class {
            DNSClass::IN => {
                if apex_managed {
                    continue;
                }
                let v = wire_to_valid(rr, &zone.name).map_err(|reason| {
                    tracing::info!(zone = %zone.name, %reason, "dynamic update refused");
                    Some(ResponseCode::Refused)
                })?;
                let rt = v.data.rtype().as_str();
                let at_name: Vec<String> = live
                    .iter()
                    .filter(|r| r.name == v.name)
                    .map(|r| r.rtype.clone())
                    .chain(adds.iter().filter(|a| a.name == v.name).map(|a| a.data.rtype().as_str().to_owned()))
                    .collect();
                let duplicate =
                    live.iter().any(|r| r.name == v.name && r.rtype == rt && r.rdata == v.data.presentation())
                        || adds.iter().any(|a| a.name == v.name && a.data == v.data);
                // RFC 2136 section 3.4.2.2: additions that clash with a CNAME are ignored.
                let clash = if rt == "CNAME" {
                    at_name.iter().any(|t| t != "CNAME") || v.name == zone.name
                } else {
                    at_name.iter().any(|t| t == "CNAME")
                };
                if !duplicate && !clash {
                    adds.push(v);
                }
            }
            DNSClass::ANY => {
                let all = rtype == RecordType::ANY;
                let t = rtype.to_string();
                live.retain(|r| !(r.name == owner && (all || r.rtype == t)));
                adds.retain(|a| !(a.name == owner && (all || a.data.rtype().as_str() == t)));
            }
            DNSClass::NONE => {
                if apex_managed {
                    continue;
                }
                let Ok(v) = wire_to_valid(rr, &zone.name) else { continue };
                let (rt, rd) = (v.data.rtype().as_str(), v.data.presentation());
                live.retain(|r| !(r.name == v.name && r.rtype == rt && r.rdata == rd));
                adds.retain(|a| !(a.name == v.name && a.data == v.data));
            }
            _ => return Err(Some(ResponseCode::FormErr)),
        }
    }
    let kept: std::collections::HashSet<&str> = live.iter().map(|l| l.id.as_str()).collect();
    let deletes = existing.iter().filter(|r| !kept.contains(r.id.as_str())).cloned().collect();
    Ok((adds, deletes))
}

/// A record from an update message, checked like an API request (TTLs under the minimum are
/// raised to it, since ACME clients ask for very short ones).
fn wire_to_valid(rr: &Record, zone: &str) -> Result<ValidRecord, String> {
    let rtype = OurType::from_code(u16::from(rr.record_type()))
        .ok_or_else(|| format!("type {} is not supported", rr.record_type()))?;
    let mut input = RecordInput {
        rtype: Some(rtype.as_str().to_owned()),
        name: Some(rr.name.to_ascii()),
        ttl: Some(i64::from(rr.ttl.max(MIN_TTL))),
        ..Default::default()
    };
    match &rr.data {
        WireData::A(a) => input.content = Some(a.0.to_string()),
        WireData::AAAA(a) => input.content = Some(a.0.to_string()),
        WireData::CNAME(n) => input.content = Some(n.0.to_ascii()),
        WireData::NS(n) => input.content = Some(n.0.to_ascii()),
        WireData::PTR(n) => input.content = Some(n.0.to_ascii()),
        WireData::MX(mx) => {
            input.priority = Some(i64::from(mx.preference));
            input.content = Some(mx.exchange.to_ascii());
        }
        WireData::SRV(srv) => {
            input.priority = Some(i64::from(srv.priority));
            input.weight = Some(i64::from(srv.weight));
            input.port = Some(i64::from(srv.port));
            input.content = Some(srv.target.to_ascii());
        }
        WireData::TXT(txt) => {
            let strings: Vec<Vec<u8>> = txt.txt_data.iter().map(|s| s.to_vec()).collect();
            input.content = Some(crate::record::quote_all(&strings));
        }
        _ => return Err(format!("{} records cannot be changed by dynamic update", rtype.as_str())),
    }
    if rr.dns_class == DNSClass::NONE {
        input.ttl = None;
    }
    validate(&input, zone, "").map_err(|errors| errors.iter().map(|e| e.detail.clone()).collect::<Vec<_>>().join("; "))
}

/// Keeps the served_zones current: a refresh now, then whenever a commit on any node wrote a
/// `dns.*` event (the store's notices; a lost notice says `Resync`), and every poll interval
/// besides. Changed zones are announced to the configured secondaries with NOTIFY.
pub async fn keep_current(
    served_zones: Arc<ServedZones>,
    store: Store,
    config: Arc<DnsConfig>,
    shutdown: CancellationToken,
) {
    let mut feed = store.notices.subscribe();
    let mut last = tokio::time::Instant::now();
    let mut spacing = REFRESH_SPACING;
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(config.poll_interval) => {}
            _ = next_dns_event(&mut feed) => {
                // A refresh reads each changed zone whole: under a stream of writes, at most one
                // per `spacing`, taking every event that came meanwhile.
                let due = last + spacing;
                if tokio::time::Instant::now() < due {
                    tokio::select! {
                        _ = shutdown.cancelled() => return,
                        _ = tokio::time::sleep_until(due) => {}
                    }
                    drain(&mut feed);
                }
            }
        }
        last = tokio::time::Instant::now();
        let refreshed = served_zones.refresh(&store).await;
        // Refreshes take at most a fifth of the time under a stream of writes: a zone that
        // takes longer to rebuild is rebuilt less often, up to MAX_REFRESH_SPACING.
        spacing = (last.elapsed() * 4).clamp(REFRESH_SPACING, MAX_REFRESH_SPACING);
        match refreshed {
            Ok(changed) => {
                for c in changed {
                    if let Some(zone) = served_zones.get(&c.zone) {
                        tracing::debug!(zone = %c.zone, serial = c.serial, "zone changed");
                        notify::notify_all(&c.zone, zone.soa(), &config.notify);
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "refreshing the DNS zones failed"),
        }
    }
}

/// Least time between two refreshes started by events.
const REFRESH_SPACING: std::time::Duration = std::time::Duration::from_millis(50);

/// Most time between two refreshes started by events, however long a refresh takes.
const MAX_REFRESH_SPACING: std::time::Duration = std::time::Duration::from_millis(500);

/// Takes every notice already queued.
fn drain(feed: &mut Subscription) {
    while feed.try_next().is_some() {}
}

/// Waits for a DNS event, then takes every other event already queued: one refresh covers a
/// burst of writes (a refresh reads each changed zone whole, so one per write made a stream of
/// single-record writes cost a zone rebuild each).
async fn next_dns_event(feed: &mut Subscription) {
    loop {
        match feed.next().await {
            Some(Notice::Events(types)) if types.iter().any(|t| t.starts_with("dns.")) => break,
            Some(Notice::Resync) => break,
            Some(_) => continue,
            None => return std::future::pending().await,
        }
    }
    drain(feed);
}

/// The record types the API manages, for callers that list them.
pub fn managed_types() -> Vec<&'static str> {
    OurType::ALL.iter().map(|t| t.as_str()).collect()
}
