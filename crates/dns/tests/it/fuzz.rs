//! Fuzz targets on the stable runner (`meridian_testing`): the master-file parser, checked
//! against hickory-proto's where both accept, and the server's handling of raw packets.

use crate::common::Harness;
use hickory_proto::rr::{RData as WireData, RecordType};
use hickory_proto::serialize::txt::Parser as HickoryParser;
use meridian_core::config::DnsConfig;
use meridian_dns::record::validate;
use meridian_dns::server::{AnswerCache, DnsServer, UdpReply};
use meridian_dns::zonefile::{self, Apex, Limits};
use meridian_testing::Target;
use std::collections::BTreeSet;
use std::sync::Arc;

/// A and TXT records as (owner, data) pairs, from an owner made of letters, digits and hyphens.
type Seen = BTreeSet<(String, String)>;

fn plain(owner: &str) -> bool {
    owner.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
}

fn ours(entries: &[zonefile::Entry]) -> Option<Seen> {
    let mut seen = Seen::new();
    for e in entries {
        let owner = e.owner.trim_end_matches('.').to_ascii_lowercase();
        if !plain(&owner) {
            return None;
        }
        let texts: Vec<String> = e.rdata.iter().map(|t| format!("{:?}", t.text)).collect();
        match e.rtype.as_str() {
            "A" => seen.insert((owner, e.rdata.first().map(|t| String::from_utf8_lossy(&t.text).into_owned())?)),
            "TXT" => seen.insert((owner, texts.join("|"))),
            _ => true,
        };
    }
    Some(seen)
}

fn hickory(text: &str) -> Option<Seen> {
    let origin = hickory_proto::rr::Name::from_ascii("example.com.").ok()?;
    let (_, sets) = HickoryParser::new(text, None, Some(origin)).parse().ok()?;
    let mut seen = Seen::new();
    for set in sets.values() {
        for r in set.records_without_rrsigs() {
            let owner = r.name.to_ascii().trim_end_matches('.').to_ascii_lowercase();
            if !plain(&owner) {
                return None;
            }
            match (&r.data, r.record_type()) {
                (WireData::A(a), RecordType::A) => seen.insert((owner, a.0.to_string())),
                (WireData::TXT(t), RecordType::TXT) => {
                    let texts: Vec<String> = t.txt_data.iter().map(|s| format!("{:?}", s.to_vec())).collect();
                    seen.insert((owner, texts.join("|")))
                }
                _ => true,
            };
        }
    }
    Some(seen)
}

#[test]
fn fuzz_zonefile() {
    let config = DnsConfig::default();
    Target::new("zonefile")
        .dictionary([
            "$ORIGIN ",
            "$TTL ",
            "$INCLUDE ",
            "$GENERATE ",
            "@",
            " IN ",
            " CH ",
            " A ",
            " AAAA ",
            " TXT ",
            " MX ",
            " CNAME ",
            " SRV ",
            " CAA ",
            " NS ",
            " SOA ",
            "(",
            ")",
            "\"",
            "\\",
            "\\255",
            ";",
            "\n",
            "\t",
            "1h30m",
            "example.com.",
            "*.",
        ])
        .run(|data| {
            let Ok(text) = std::str::from_utf8(data) else { return };
            let limits = Limits { max_records: 10_000, max_line_bytes: 4096 };
            let (entries, issues) = zonefile::parse_limited(text, "example.com", &limits);
            let mut records = Vec::new();
            for e in &entries {
                if let Ok(input) = zonefile::to_input(e, "example.com") {
                    if let Ok(v) = validate(&input, "example.com", "") {
                        records.push(v);
                    }
                }
            }
            // What we accept prints to a file that reads back to the same records.
            let printed = zonefile::print(&Apex { zone: "example.com", serial: 1, config: &config }, &records);
            let (again, again_issues) = zonefile::parse(&printed, "example.com");
            assert!(again_issues.is_empty(), "{again_issues:?}\n{printed}");
            let key = |r: &meridian_dns::record::ValidRecord| (r.name.clone(), r.ttl, r.data.presentation());
            let back: BTreeSet<_> = again
                .iter()
                .filter_map(|e| zonefile::to_input(e, "example.com").ok())
                .filter_map(|i| validate(&i, "example.com", "").ok())
                .map(|r| key(&r))
                .collect();
            let unique: BTreeSet<_> = records.iter().map(key).collect();
            assert_eq!(back, unique, "{printed}");
            // Where both parsers read the whole file, they agree on addresses and TXT strings.
            if issues.is_empty() && !text.to_ascii_uppercase().contains("$INCLUDE") {
                if let (Some(mine), Some(theirs)) = (ours(&entries), hickory(text)) {
                    assert_eq!(mine, theirs, "{text:?}");
                }
            }
        });
}

#[test]
fn fuzz_dns_packet() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let config = DnsConfig {
        tsig_keys: vec![meridian_core::config::TsigKeyConfig {
            name: "fuzz-key".into(),
            algorithm: "hmac-sha256".into(),
            secret: meridian_core::config::Secret("bWVyaWRpYW4tdGVzdC1rZXktMDEyMzQ1Njc4OWFiY2RlZg==".into()),
            transfer: true,
            update: vec!["*".into()],
        }],
        allow_transfer: vec!["127.0.0.1".into()],
        ..DnsConfig::default()
    };
    let (h, server) = rt.block_on(async {
        let h = Harness::new(config.clone()).await;
        let zone = h.zone("example.com").await;
        h.add(&zone, "A", "www", "192.0.2.1").await;
        h.add(&zone, "TXT", "t", "\"a\" \"b\"").await;
        h.add(&zone, "MX", "@", "mail.example.com").await;
        h.add(&zone, "NS", "sub", "ns.sub.example.com").await;
        h.add(&zone, "A", "*.w", "192.0.2.9").await;
        let signed = h.zone("signed.example").await;
        h.add(&signed, "A", "www", "192.0.2.2").await;
        h.service.enable_dnssec(&h.account, signed.id.as_str()).await.unwrap();
        h.refresh().await;
        let server = DnsServer::new(h.served_zones.clone(), h.service.clone(), Arc::new(config)).unwrap();
        (h, server)
    });
    let src = "127.0.0.1:5300".parse().unwrap();
    Target::new("dns_packet").iterations(1500).max_len(4096).run(|data| {
        for tcp in [false, true] {
            for reply in rt.block_on(server.handle(data, src, tcp)) {
                assert!(tcp || reply.len() <= 65_535);
                assert!(reply.len() >= 12, "a reply has at least a header");
            }
        }
        // A UDP worker's answer, asked twice: the second may come from its rendered replies,
        // and must then be exactly what the full path answers.
        let mut cache = AnswerCache::new(1 << 20);
        cache.sync(h.served_zones.generation());
        let mut out = Vec::new();
        for _ in 0..2 {
            match server.handle_udp(&mut cache, data, src, &mut out) {
                UdpReply::Rendered(_) => {
                    let full = server.handle_now(data, src, false).unwrap();
                    assert_eq!(full, [out.clone()], "a rendered reply differs from the full path's");
                }
                UdpReply::Full(replies) => assert_eq!(Some(replies), server.handle_now(data, src, false)),
                UdpReply::Later => assert!(server.handle_now(data, src, false).is_none()),
            }
        }
    });
    // Plain queries, signed and not, are rendered on their second asking, byte for byte the same.
    let mut cache = AnswerCache::new(1 << 20);
    cache.sync(h.served_zones.generation());
    for (name, qtype, edns) in [
        ("www.example.com.", RecordType::A, None),
        ("WWW.Example.com.", RecordType::A, Some((1232, false))),
        ("nothing.example.com.", RecordType::A, None),
        ("x.w.example.com.", RecordType::A, None),
        ("a.sub.example.com.", RecordType::A, None),
        ("example.com.", RecordType::MX, Some((4096, false))),
        ("www.signed.example.", RecordType::A, Some((1232, true))),
        ("nothing.signed.example.", RecordType::AAAA, Some((1232, true))),
        ("elsewhere.org.", RecordType::A, None),
    ] {
        let bytes = crate::common::query(name, qtype, edns).to_vec().unwrap();
        let mut out = Vec::new();
        assert!(matches!(server.handle_udp(&mut cache, &bytes, src, &mut out), UdpReply::Full(_)), "{name}");
        assert!(matches!(server.handle_udp(&mut cache, &bytes, src, &mut out), UdpReply::Rendered(_)), "{name}");
        assert_eq!(server.handle_now(&bytes, src, false), Some(vec![out]), "{name}");
    }
    drop(h);
}
