//! The harness: a server on port 0 over a fresh store.

use hickory_proto::op::{Edns, Message, MessageType, OpCode, Query};
use hickory_proto::rr::{Name, RecordType};
use meridian_backends::StoreOptions;
use meridian_core::config::DnsConfig;
use meridian_core::id::{AccountId, ApiKeyId};
use meridian_core::Timestamp;
use meridian_dns::record::RecordInput;
use meridian_dns::served::ServedZones;
use meridian_dns::server::{bind, DnsServer};
use meridian_dns::service::DnsService;
use meridian_store::dns::{Record, Zone};
use meridian_store::model::{Account, ApiKey};
use meridian_store::Store;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};
use tokio_util::sync::CancellationToken;

pub(crate) struct Harness {
    pub(crate) store: Store,
    pub(crate) service: Arc<DnsService>,
    pub(crate) served_zones: Arc<ServedZones>,
    pub(crate) addr: SocketAddr,
    pub(crate) account: AccountId,
    shutdown: CancellationToken,
    _dir: tempfile::TempDir,
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

pub(crate) async fn account(store: &Store, email: &str) -> AccountId {
    let account =
        Account { id: AccountId::generate(), name: "T".into(), email: email.into(), created_at: Timestamp::now() };
    let key = ApiKey {
        id: ApiKeyId::generate(),
        account_id: account.id.clone(),
        name: "k".into(),
        prefix: "mrd_x".into(),
        hash: format!("hash-{}", account.id),
        scopes: vec![],
        created_at: Timestamp::now(),
        expires_at: None,
        revoked_at: None,
    };
    store.accounts.create_account(&account, &key).await.unwrap();
    account.id
}

impl Harness {
    pub(crate) async fn new(config: DnsConfig) -> Self {
        Self::bound_to(config, "127.0.0.1:0".parse().unwrap()).await
    }

    /// A server listening on `listen` (a wildcard address to test which address answers).
    pub(crate) async fn bound_to(config: DnsConfig, listen: SocketAddr) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = meridian_backends::open(&StoreOptions {
            database_url: format!("sqlite://{}/m.db", dir.path().display()),
            blob_url: format!("file://{}/blobs", dir.path().display()),
            readers: 2,
            busy_timeout: Duration::from_secs(5),
            postgres: Default::default(),
        })
        .await
        .unwrap();
        let config = Arc::new(config);
        let account = account(&store, "dns@example.org").await;
        let service = Arc::new(DnsService::new(store.clone(), config.clone()));
        // The served zones follow this service's commits name by name, as in `meridian serve`.
        let served_zones = Arc::new(ServedZones::new(config.clone()).with_change_log(service.change_log()));
        let server = Arc::new(DnsServer::new(served_zones.clone(), service.clone(), config.clone()).unwrap());
        let bound = bind(listen, config.udp_workers).await.unwrap();
        let addr = bound.addr;
        let shutdown = CancellationToken::new();
        tokio::spawn(server.run(bound, shutdown.clone()));
        Self { store, service, served_zones, addr, account, shutdown, _dir: dir }
    }

    pub(crate) async fn refresh(&self) {
        self.served_zones.refresh(&self.store).await.unwrap();
    }

    pub(crate) async fn zone(&self, name: &str) -> Zone {
        self.service.create_zone(&self.account, Some(name)).await.unwrap()
    }

    pub(crate) async fn add(&self, zone: &Zone, rtype: &str, name: &str, content: &str) -> Record {
        let mut input = RecordInput {
            rtype: Some(rtype.into()),
            name: Some(name.into()),
            content: Some(content.into()),
            ..Default::default()
        };
        if rtype == "MX" || rtype == "SRV" {
            input.priority = Some(10);
        }
        if rtype == "SRV" {
            input.weight = Some(1);
            input.port = Some(443);
        }
        self.service.create_record(&self.account, zone.id.as_str(), &input).await.unwrap()
    }
}

pub(crate) fn query(name: &str, qtype: RecordType, edns: Option<(u16, bool)>) -> Message {
    let mut m = Message::new(rand::random(), MessageType::Query, OpCode::Query);
    m.add_query(Query::query(Name::from_ascii(name).unwrap(), qtype));
    if let Some((size, dnssec)) = edns {
        let mut e = Edns::new();
        e.set_max_payload(size);
        e.set_dnssec_ok(dnssec);
        m.set_edns(e);
    }
    m
}

pub(crate) async fn udp_raw(addr: SocketAddr, bytes: &[u8]) -> Vec<u8> {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    socket.send_to(bytes, addr).await.unwrap();
    let mut buf = vec![0u8; 65_535];
    let (n, _) = tokio::time::timeout(Duration::from_secs(5), socket.recv_from(&mut buf)).await.unwrap().unwrap();
    buf.truncate(n);
    buf
}

pub(crate) async fn udp(addr: SocketAddr, m: &Message) -> Message {
    Message::from_vec(&udp_raw(addr, &m.to_vec().unwrap()).await).unwrap()
}

/// Sends one message over TCP and reads replies until `done` says the exchange is complete.
pub(crate) async fn tcp_raw(addr: SocketAddr, bytes: &[u8], done: impl Fn(&[Vec<u8>]) -> bool) -> Vec<Vec<u8>> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut framed = (bytes.len() as u16).to_be_bytes().to_vec();
    framed.extend(bytes);
    stream.write_all(&framed).await.unwrap();
    let mut replies = Vec::new();
    while !done(&replies) {
        let mut len = [0u8; 2];
        tokio::time::timeout(Duration::from_secs(5), stream.read_exact(&mut len)).await.unwrap().unwrap();
        let mut msg = vec![0u8; u16::from_be_bytes(len) as usize];
        stream.read_exact(&mut msg).await.unwrap();
        replies.push(msg);
    }
    replies
}

pub(crate) async fn tcp(addr: SocketAddr, m: &Message) -> Message {
    let replies = tcp_raw(addr, &m.to_vec().unwrap(), |r| !r.is_empty()).await;
    Message::from_vec(&replies[0]).unwrap()
}

pub(crate) fn types(records: &[hickory_proto::rr::Record]) -> Vec<RecordType> {
    records.iter().map(|r| r.record_type()).collect()
}
