//! Zone transfers, TSIG, dynamic updates and NOTIFY.

use crate::common::{query, tcp_raw, types, udp, udp_raw, Harness};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hickory_proto::op::{Message, MessageType, OpCode, Query, ResponseCode};
use hickory_proto::rr::rdata::TXT;
use hickory_proto::rr::{DNSClass, Name, RData, Record, RecordType};
use meridian_core::config::{DnsConfig, Secret, TsigKeyConfig};
use meridian_core::page::Page;
use meridian_dns::tsig::{self, Signer, TsigKey};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const SECRET: &[u8] = b"a shared secret of thirty-two by";

fn key_config(name: &str, update: &[&str], transfer: bool) -> TsigKeyConfig {
    TsigKeyConfig {
        name: name.into(),
        algorithm: "hmac-sha256".into(),
        secret: Secret(STANDARD.encode(SECRET)),
        transfer,
        update: update.iter().map(|s| (*s).to_owned()).collect(),
    }
}

fn key(name: &str) -> TsigKey {
    TsigKey::new(name, &STANDARD.encode(SECRET)).unwrap()
}

fn is_soa(bytes: &[u8], last: bool) -> bool {
    let m = Message::from_vec(bytes).unwrap();
    let r = if last { m.answers.last() } else { m.answers.first() };
    r.is_some_and(|r| r.record_type() == RecordType::SOA)
}

/// Reads transfer messages until the closing SOA (or an error answer).
async fn axfr(h: &Harness, request: &[u8]) -> Vec<Vec<u8>> {
    tcp_raw(h.addr, request, |replies| {
        replies.last().is_some_and(|r| {
            let m = Message::from_vec(r).unwrap();
            m.metadata.response_code != ResponseCode::NoError
                || (replies.len() + m.answers.len() > 2 && is_soa(r, true))
        })
    })
    .await
}

async fn filled(config: DnsConfig) -> Harness {
    let h = Harness::new(config).await;
    let zone = h.zone("example.com").await;
    let creates = (0..1000)
        .map(|i| meridian_dns::record::RecordInput {
            rtype: Some("A".into()),
            name: Some(format!("host{i}")),
            content: Some(format!("192.0.2.{}", i % 250)),
            ..Default::default()
        })
        .collect();
    let batch = meridian_dns::service::Batch { creates, ..Default::default() };
    h.service.batch(&h.account, zone.id.as_str(), &batch).await.unwrap();
    h.add(&zone, "TXT", "note", "hello").await;
    h.refresh().await;
    h
}

#[tokio::test]
async fn axfr_is_refused_unless_allowed_and_over_tcp_only() {
    let h = filled(DnsConfig::default()).await;
    let request = query("example.com.", RecordType::AXFR, None).to_vec().unwrap();
    let replies = axfr(&h, &request).await;
    let m = Message::from_vec(&replies[0]).unwrap();
    assert_eq!(m.metadata.response_code, ResponseCode::Refused);
    let m = Message::from_vec(&udp_raw(h.addr, &request).await).unwrap();
    assert_eq!(m.metadata.response_code, ResponseCode::FormErr);
}

#[tokio::test]
async fn axfr_from_an_allowed_address_sends_the_whole_zone_between_two_soas() {
    let config = DnsConfig { allow_transfer: vec!["127.0.0.0/8".into()], ..Default::default() };
    let h = filled(config).await;
    let request = query("example.com.", RecordType::AXFR, None).to_vec().unwrap();
    let replies = axfr(&h, &request).await;
    assert!(replies.len() > 1, "split into several messages");
    let records: Vec<Record> = replies.iter().flat_map(|r| Message::from_vec(r).unwrap().answers.clone()).collect();
    assert_eq!(records.first().unwrap().record_type(), RecordType::SOA);
    assert_eq!(records.last().unwrap().record_type(), RecordType::SOA);
    assert_eq!(records.len(), 2 + 2 + 1001, "SOA, NS x2, records, SOA");
}

#[tokio::test]
async fn axfr_with_a_tsig_key_is_signed_message_by_message() {
    let config = DnsConfig { tsig_keys: vec![key_config("xfr", &[], true)], ..Default::default() };
    let h = filled(config).await;
    let mut client = Signer::request(key("xfr"));
    let request = client.sign(query("example.com.", RecordType::AXFR, None).to_vec().unwrap(), tsig::now());
    let request_mac = client.last_mac().unwrap().to_vec();
    let replies = axfr(&h, &request).await;
    assert!(replies.len() > 1);
    let mut prior = request_mac;
    for (i, reply) in replies.iter().enumerate() {
        prior =
            tsig::verify_response(&key("xfr"), reply, &prior, i == 0).unwrap_or_else(|| panic!("message {i} verifies"));
    }
    // The wrong secret is answered NOTAUTH with a BADSIG TSIG error.
    let wrong = TsigKey::new("xfr", &STANDARD.encode(b"not the secret")).unwrap();
    let request =
        Signer::request(wrong).sign(query("example.com.", RecordType::AXFR, None).to_vec().unwrap(), tsig::now());
    let replies = axfr(&h, &request).await;
    let m = Message::from_vec(&replies[0]).unwrap();
    assert_eq!(m.metadata.response_code, ResponseCode::NotAuth);
    let error = m.signature().map(|s| s.data.error).or_else(|| {
        m.additionals.iter().find_map(|r| match &r.data {
            RData::TSIG(t) => Some(t.error),
            _ => None,
        })
    });
    assert_eq!(error.flatten().map(u16::from), Some(tsig::error::BADSIG));
}

fn update(zone: &str, adds: Vec<Record>, deletes: Vec<Record>, prereqs: Vec<Record>) -> Vec<u8> {
    let mut m = Message::new(rand::random(), MessageType::Query, OpCode::Update);
    m.add_query(Query::query(Name::from_ascii(zone).unwrap(), RecordType::SOA));
    for r in prereqs {
        m.add_answer(r);
    }
    for r in deletes.into_iter().chain(adds) {
        m.add_authority(r);
    }
    m.to_vec().unwrap()
}

fn txt(name: &str, ttl: u32, text: &str) -> Record {
    Record::from_rdata(Name::from_ascii(name).unwrap(), ttl, RData::TXT(TXT::new(vec![text.to_owned()])))
}

#[tokio::test]
async fn dynamic_updates_with_tsig_go_through_the_same_rules_and_events() {
    let config = DnsConfig {
        tsig_keys: vec![key_config("acme", &["example.com"], false), key_config("elsewhere", &["example.org"], false)],
        ..Default::default()
    };
    let h = Harness::new(config).await;
    let zone = h.zone("example.com").await;
    h.refresh().await;
    let challenge = "_acme-challenge.example.com.";
    let add = update("example.com.", vec![txt(challenge, 10, "token-1")], vec![], vec![]);
    let unsigned = Message::from_vec(&udp_raw(h.addr, &add).await).unwrap();
    assert_eq!(unsigned.metadata.response_code, ResponseCode::Refused);
    let other_key = Signer::request(key("elsewhere")).sign(add.clone(), tsig::now());
    let m = Message::from_vec(&udp_raw(h.addr, &other_key).await).unwrap();
    assert_eq!(m.metadata.response_code, ResponseCode::Refused);
    let mut signer = Signer::request(key("acme"));
    let signed = signer.sign(add, tsig::now());
    let reply = udp_raw(h.addr, &signed).await;
    let m = Message::from_vec(&reply).unwrap();
    assert_eq!(m.metadata.response_code, ResponseCode::NoError);
    assert!(tsig::verify_response(&key("acme"), &reply, signer.last_mac().unwrap(), true).is_some(), "signed reply");
    h.refresh().await;
    let r = udp(h.addr, &query(challenge, RecordType::TXT, None)).await;
    assert_eq!(r.answers.len(), 1);
    assert_eq!(r.answers[0].ttl, 60, "TTLs below the minimum are raised to it");
    let z = h.service.zone(&h.account, zone.id.as_str()).await.unwrap();
    assert_eq!((z.records, z.soa_serial), (1, zone.soa_serial + 1));
    // A prerequisite that fails changes nothing.
    let mut absent = Record::update0(Name::from_ascii(challenge).unwrap(), 0, RecordType::TXT);
    absent.dns_class = DNSClass::NONE;
    let guarded = update("example.com.", vec![txt(challenge, 60, "token-2")], vec![], vec![absent]);
    let m =
        Message::from_vec(&udp_raw(h.addr, &Signer::request(key("acme")).sign(guarded, tsig::now())).await).unwrap();
    assert_eq!(m.metadata.response_code, ResponseCode::YXRRSet);
    // Delete the one record (class NONE), as certbot's cleanup does.
    let mut gone = txt(challenge, 0, "token-1");
    gone.dns_class = DNSClass::NONE;
    let delete = update("example.com.", vec![], vec![gone], vec![]);
    let m = Message::from_vec(&udp_raw(h.addr, &Signer::request(key("acme")).sign(delete, tsig::now())).await).unwrap();
    assert_eq!(m.metadata.response_code, ResponseCode::NoError);
    let z = h.service.zone(&h.account, zone.id.as_str()).await.unwrap();
    assert_eq!((z.records, z.soa_serial), (0, zone.soa_serial + 2));
    let (events, _) = h.store.outbox.list_events(&h.account, &Default::default(), Page::at(10, 0)).await.unwrap();
    assert_eq!(events[0].event_type, "dns.record.deleted");
    assert_eq!(events[1].event_type, "dns.record.created");
    assert_eq!(events[1].payload["record"]["name"], "_acme-challenge.example.com");
    // A zone we do not host is NOTAUTH.
    let stray = update("example.net.", vec![txt("x.example.net.", 60, "t")], vec![], vec![]);
    let m = Message::from_vec(&udp_raw(h.addr, &Signer::request(key("acme")).sign(stray, tsig::now())).await).unwrap();
    assert_eq!(m.metadata.response_code, ResponseCode::NotAuth);
    assert_eq!(types(&m.answers), vec![]);
}

#[tokio::test]
async fn changes_are_announced_to_secondaries_with_notify() {
    let secondary = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let config = DnsConfig {
        notify: vec![secondary.local_addr().unwrap()],
        poll_interval: Duration::from_millis(50),
        ..Default::default()
    };
    let h = Harness::new(config.clone()).await;
    let zone = h.zone("example.com").await;
    h.refresh().await;
    let stop = CancellationToken::new();
    tokio::spawn(meridian_dns::server::keep_current(
        h.served_zones.clone(),
        h.store.clone(),
        Arc::new(config),
        stop.clone(),
    ));
    h.add(&zone, "A", "www", "192.0.2.1").await;
    let mut buf = vec![0u8; 4096];
    let (n, from) =
        tokio::time::timeout(Duration::from_secs(10), secondary.recv_from(&mut buf)).await.unwrap().unwrap();
    let notify = Message::from_vec(&buf[..n]).unwrap();
    assert_eq!(notify.metadata.op_code, OpCode::Notify);
    assert!(notify.metadata.authoritative);
    assert_eq!(notify.queries[0].name().to_ascii(), "example.com.");
    assert_eq!(notify.queries[0].query_type(), RecordType::SOA);
    let mut ack = Message::response(notify.metadata.id, OpCode::Notify);
    ack.add_queries(notify.queries.clone());
    secondary.send_to(&ack.to_vec().unwrap(), from).await.unwrap();
    stop.cancel();
}
