//! Authoritative answers over UDP and TCP.

use crate::common::{query, tcp, types, udp, Harness};
use hickory_proto::op::ResponseCode;
use hickory_proto::rr::{RData, RecordType};
use meridian_core::config::DnsConfig;

#[tokio::test]
async fn changes_are_answered_authoritatively_and_names_are_case_insensitive() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    h.refresh().await;
    let r = udp(h.addr, &query("www.example.com.", RecordType::A, None)).await;
    assert_eq!(r.metadata.response_code, ResponseCode::NXDomain);
    h.add(&zone, "A", "www", "192.0.2.1").await;
    h.refresh().await;
    let r = udp(h.addr, &query("WwW.ExAmPlE.CoM.", RecordType::A, None)).await;
    assert_eq!(r.metadata.response_code, ResponseCode::NoError);
    assert!(r.metadata.authoritative);
    assert_eq!(r.queries[0].name().to_ascii(), "WwW.ExAmPlE.CoM.", "the question is echoed as asked");
    match &r.answers[0].data {
        RData::A(a) => assert_eq!(a.0.to_string(), "192.0.2.1"),
        other => panic!("{other:?}"),
    }
    assert_eq!(r.answers[0].ttl, 3600);
    let r = udp(h.addr, &query("example.com.", RecordType::SOA, None)).await;
    match &r.answers[0].data {
        RData::SOA(soa) => assert_eq!(soa.serial, zone.soa_serial + 1, "one change, one serial step"),
        other => panic!("{other:?}"),
    }
    let r = udp(h.addr, &query("example.com.", RecordType::NS, None)).await;
    assert_eq!(r.answers.len(), 2);
}

/// A query asked again is answered from the worker's rendered replies: the asker's ID, flags and
/// letter case come back, and a change to the zone is seen at once after the refresh.
#[tokio::test]
async fn repeated_queries_are_answered_from_rendered_replies_that_follow_changes() {
    // One worker, so that every query meets the same cache.
    let h = Harness::new(DnsConfig { udp_workers: 1, ..DnsConfig::default() }).await;
    let zone = h.zone("example.net").await;
    let www = h.add(&zone, "A", "www", "192.0.2.1").await;
    h.refresh().await;
    let a =
        |r: &hickory_proto::op::Message| -> Vec<String> { r.answers.iter().map(|rr| rr.data.to_string()).collect() };
    for (i, (name, rd, edns)) in [
        ("www.example.net.", true, None),
        ("WWW.example.NET.", false, None),
        ("www.example.net.", true, Some((1232, false))),
        ("wWw.ExAmPlE.nEt.", true, Some((4096, false))),
        ("missing.example.net.", true, None),
        ("MISSING.example.net.", false, None),
    ]
    .into_iter()
    .enumerate()
    {
        let mut q = query(name, RecordType::A, edns);
        q.metadata.recursion_desired = rd;
        q.metadata.checking_disabled = i % 2 == 1;
        let r = udp(h.addr, &q).await;
        assert_eq!(r.metadata.id, q.metadata.id, "{name}");
        assert_eq!(r.metadata.recursion_desired, rd, "{name}");
        assert_eq!(r.metadata.checking_disabled, i % 2 == 1, "{name}");
        assert!(r.metadata.authoritative, "{name}");
        assert_eq!(r.queries[0].name().to_ascii(), name, "the question is echoed as asked");
        assert_eq!(r.edns.is_some(), edns.is_some(), "{name}");
        if name.to_ascii_lowercase().starts_with("www") {
            assert_eq!(a(&r), ["192.0.2.1"], "{name}");
        } else {
            assert_eq!(r.metadata.response_code, ResponseCode::NXDomain, "{name}");
            assert_eq!(types(&r.authorities), [RecordType::SOA], "{name}");
        }
    }
    // A change, then the same questions: the new answers, not the rendered ones.
    h.service.delete_record(&h.account, zone.id.as_str(), www.id.as_str(), None).await.unwrap();
    h.add(&zone, "A", "www", "192.0.2.9").await;
    h.add(&zone, "A", "missing", "192.0.2.10").await;
    h.refresh().await;
    let r = udp(h.addr, &query("www.example.net.", RecordType::A, None)).await;
    assert_eq!(a(&r), ["192.0.2.9"]);
    let r = udp(h.addr, &query("Missing.example.net.", RecordType::A, None)).await;
    assert_eq!(r.metadata.response_code, ResponseCode::NoError);
    assert_eq!(a(&r), ["192.0.2.10"]);
}

#[tokio::test]
async fn negative_answers_carry_the_soa_with_the_negative_ttl() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    h.add(&zone, "A", "www", "192.0.2.1").await;
    h.add(&zone, "TXT", "a.deep", "x").await;
    h.refresh().await;
    let nx = udp(h.addr, &query("missing.example.com.", RecordType::A, None)).await;
    assert_eq!(nx.metadata.response_code, ResponseCode::NXDomain);
    assert!(nx.metadata.authoritative);
    assert!(nx.answers.is_empty());
    assert_eq!(types(&nx.authorities), vec![RecordType::SOA]);
    assert_eq!(nx.authorities[0].ttl, 300);
    let nodata = udp(h.addr, &query("www.example.com.", RecordType::MX, None)).await;
    assert_eq!(nodata.metadata.response_code, ResponseCode::NoError);
    assert!(nodata.answers.is_empty());
    assert_eq!(types(&nodata.authorities), vec![RecordType::SOA]);
    // An empty non-terminal exists: NODATA.
    let ent = udp(h.addr, &query("deep.example.com.", RecordType::A, None)).await;
    assert_eq!(ent.metadata.response_code, ResponseCode::NoError);
}

#[tokio::test]
async fn wildcards_cname_chains_and_referrals() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    h.add(&zone, "A", "*.apps", "192.0.2.80").await;
    h.add(&zone, "A", "fixed.apps", "192.0.2.81").await;
    h.add(&zone, "CNAME", "www", "web.example.com").await;
    h.add(&zone, "CNAME", "web", "fixed.apps.example.com").await;
    h.add(&zone, "NS", "delegated", "ns1.delegated.example.com").await;
    h.add(&zone, "A", "ns1.delegated", "192.0.2.53").await;
    h.refresh().await;
    let r = udp(h.addr, &query("anything.apps.example.com.", RecordType::A, None)).await;
    assert_eq!(r.answers.len(), 1);
    assert_eq!(r.answers[0].name.to_ascii(), "anything.apps.example.com.");
    let r = udp(h.addr, &query("fixed.apps.example.com.", RecordType::A, None)).await;
    match &r.answers[0].data {
        RData::A(a) => assert_eq!(a.0.to_string(), "192.0.2.81", "an existing name beats the wildcard"),
        other => panic!("{other:?}"),
    }
    let r = udp(h.addr, &query("www.example.com.", RecordType::A, None)).await;
    assert_eq!(types(&r.answers), vec![RecordType::CNAME, RecordType::CNAME, RecordType::A]);
    let r = udp(h.addr, &query("host.delegated.example.com.", RecordType::A, None)).await;
    assert!(!r.metadata.authoritative, "a referral is not authoritative");
    assert_eq!(r.metadata.response_code, ResponseCode::NoError);
    assert_eq!(types(&r.authorities), vec![RecordType::NS]);
    assert_eq!(types(&r.additionals), vec![RecordType::A], "glue");
}

#[tokio::test]
async fn large_answers_truncate_over_udp_and_come_whole_over_tcp() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    for i in 0..30 {
        h.add(&zone, "TXT", "big", &format!("{i:02}-{}", "x".repeat(180))).await;
    }
    h.refresh().await;
    let r = udp(h.addr, &query("big.example.com.", RecordType::TXT, None)).await;
    assert!(r.metadata.truncation, "TC over plain UDP (512 octets)");
    assert!(r.answers.is_empty());
    let r = udp(h.addr, &query("big.example.com.", RecordType::TXT, Some((4096, false)))).await;
    assert!(r.metadata.truncation, "larger than the server's 1232-octet EDNS limit");
    assert_eq!(r.edns.as_ref().map(|e| e.max_payload()), Some(1232));
    let r = tcp(h.addr, &query("big.example.com.", RecordType::TXT, None)).await;
    assert!(!r.metadata.truncation);
    assert_eq!(r.answers.len(), 30);
    // A small answer with EDNS is not truncated and echoes EDNS.
    let r = udp(h.addr, &query("example.com.", RecordType::SOA, Some((1232, false)))).await;
    assert!(!r.metadata.truncation);
    assert!(r.edns.is_some());
}

#[tokio::test]
async fn other_zones_are_refused_and_any_is_minimal() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    h.add(&zone, "A", "multi", "192.0.2.1").await;
    h.add(&zone, "AAAA", "multi", "2001:db8::1").await;
    h.add(&zone, "TXT", "multi", "hello").await;
    h.refresh().await;
    let r = udp(h.addr, &query("www.example.net.", RecordType::A, None)).await;
    assert_eq!(r.metadata.response_code, ResponseCode::Refused);
    assert!(!r.metadata.authoritative);
    let r = udp(h.addr, &query("multi.example.com.", RecordType::ANY, None)).await;
    assert_eq!(r.metadata.response_code, ResponseCode::NoError);
    assert_eq!(types(&r.answers), vec![RecordType::A], "RFC 8482: one RRset");
}

#[tokio::test]
async fn signed_zones_answer_with_signatures_and_denial_proofs() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    h.add(&zone, "A", "www", "192.0.2.1").await;
    let (state, created) = h.service.enable_dnssec(&h.account, zone.id.as_str()).await.unwrap();
    assert!(created);
    h.refresh().await;
    let r = udp(h.addr, &query("www.example.com.", RecordType::A, Some((1232, true)))).await;
    assert_eq!(types(&r.answers), vec![RecordType::A, RecordType::RRSIG]);
    let r = udp(h.addr, &query("www.example.com.", RecordType::A, Some((1232, false)))).await;
    assert_eq!(types(&r.answers), vec![RecordType::A], "no DO bit, no signatures");
    let r = udp(h.addr, &query("example.com.", RecordType::DNSKEY, Some((1232, true)))).await;
    assert_eq!(types(&r.answers), vec![RecordType::DNSKEY, RecordType::RRSIG]);
    match &r.answers[0].data {
        RData::Unknown { rdata, .. } => {
            assert_eq!(rdata.anything.as_slice(), state.keys[0].0.dnskey_rdata().as_slice())
        }
        other => panic!("{other:?}"),
    }
    let r = udp(h.addr, &query("nope.example.com.", RecordType::A, Some((1232, true)))).await;
    assert_eq!(r.metadata.response_code, ResponseCode::NXDomain);
    assert!(types(&r.authorities).contains(&RecordType::NSEC));
    // Disabling removes the keys and the signatures.
    h.service.disable_dnssec(&h.account, zone.id.as_str()).await.unwrap();
    h.refresh().await;
    let r = udp(h.addr, &query("www.example.com.", RecordType::A, Some((1232, true)))).await;
    assert_eq!(types(&r.answers), vec![RecordType::A]);
}

#[tokio::test]
async fn edns_versions_above_zero_get_badvers() {
    let h = Harness::new(DnsConfig::default()).await;
    h.zone("example.com").await;
    h.refresh().await;
    let mut q = query("example.com.", RecordType::SOA, Some((1232, false)));
    if let Some(e) = q.edns.as_mut() {
        e.set_version(1);
    }
    let r = udp(h.addr, &q).await;
    assert_eq!(u16::from(r.metadata.response_code), 16, "BADVERS (RFC 6891 section 6.1.3)");
    assert!(r.answers.is_empty());
    assert_eq!(r.edns.as_ref().map(|e| e.version()), Some(0), "the answer names the version we speak");
    let r = udp(h.addr, &query("example.com.", RecordType::SOA, Some((1232, false)))).await;
    assert_eq!(r.metadata.response_code, ResponseCode::NoError);
}

#[tokio::test]
async fn udp_answers_come_from_the_address_the_query_went_to() {
    let h = Harness::bound_to(DnsConfig::default(), "0.0.0.0:0".parse().unwrap()).await;
    h.zone("example.com").await;
    h.refresh().await;
    for to in [[127, 0, 0, 1], [127, 0, 0, 2], [127, 0, 0, 3]] {
        let server = std::net::SocketAddr::from((to, h.addr.port()));
        let socket = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let q = query("example.com.", RecordType::SOA, None);
        socket.send_to(&q.to_vec().unwrap(), server).await.unwrap();
        let mut buf = vec![0u8; 4096];
        let (n, from) =
            tokio::time::timeout(std::time::Duration::from_secs(5), socket.recv_from(&mut buf)).await.unwrap().unwrap();
        assert_eq!(from, server, "the answer comes from the address asked");
        let r = hickory_proto::op::Message::from_vec(&buf[..n]).unwrap();
        assert_eq!(r.metadata.id, q.metadata.id);
        assert_eq!(r.metadata.response_code, ResponseCode::NoError);
    }
}
