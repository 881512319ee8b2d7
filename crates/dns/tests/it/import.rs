//! Large and hostile master files, and TXT character-strings through import, export and the wire.

use crate::common::{query, udp, Harness};
use hickory_proto::rr::{RData, RecordType};
use meridian_core::config::DnsConfig;
use meridian_core::DomainError;
use meridian_store::StoreError;
use std::fmt::Write;

/// A 50,000-record import still finds every duplicate and every CNAME clash, inside the file
/// and against the zone, and adds the rest in one transaction.
#[tokio::test]
async fn a_50000_record_import_still_finds_duplicates_and_cname_clashes() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    h.add(&zone, "A", "h17", "192.0.2.17").await;
    h.add(&zone, "CNAME", "alias", "www.example.net").await;
    let mut file = String::from("$ORIGIN example.com.\n$TTL 300\n");
    for i in 0..49_000u32 {
        let _ = writeln!(file, "h{i} A 10.{}.{}.{}", i >> 16, (i >> 8) & 255, i & 255);
    }
    // Lines 49,003 onwards: 500 repeats of earlier lines, 499 CNAMEs over names with addresses,
    // and a few against the zone's own records.
    for i in 0..500u32 {
        let _ = writeln!(file, "h{i} A 10.{}.{}.{}", i >> 16, (i >> 8) & 255, i & 255);
    }
    for i in 500..999u32 {
        let _ = writeln!(file, "h{i} CNAME elsewhere.example.net.");
    }
    file.push_str("h17 A 192.0.2.17\nalias A 192.0.2.1\nfresh CNAME a.example.net.\nfresh TXT \"x\"\n");
    let lines = file.lines().count();
    let out = h.service.import(&h.account, zone.id.as_str(), file).await.unwrap();
    let reason = |why: &str| out.skipped.iter().filter(|s| s.reason.contains(why)).count();
    assert_eq!(reason("already has this record"), 501, "500 repeats and one record the zone had");
    assert_eq!(reason("CNAME may not share"), 499 + 2, "CNAMEs over addresses, an address under a CNAME");
    assert_eq!(out.skipped.len(), 1002, "nothing else is skipped");
    assert!(out.skipped.windows(2).all(|w| w[0].line <= w[1].line));
    assert_eq!(out.skipped.last().map(|s| s.line), Some(lines));
    assert_eq!(out.added.len(), 49_000 + 1, "every new address, and the CNAME at a new name");
    assert_eq!(out.zone.records, 2 + 49_001);
    assert_eq!(out.zone.soa_serial, zone.soa_serial + 3, "two records added one by one, then one import");
}

#[tokio::test]
async fn master_file_limits_are_enforced() {
    let config = DnsConfig { import_max_records: 100, import_max_line_bytes: 200, ..DnsConfig::default() };
    let h = Harness::new(config).await;
    let zone = h.zone("example.com").await;
    let id = zone.id.as_str();
    let too_many: String = (0..101).map(|i| format!("h{i} A 192.0.2.1\n")).collect();
    let e = h.service.import(&h.account, id, too_many).await.unwrap_err();
    assert!(matches!(e, StoreError::Domain(DomainError::TooLarge(_))), "{e:?}");
    let hostile =
        format!("$INCLUDE /etc/passwd\nlong TXT \"{}\"\nnest A ( ( 192.0.2.1 ) )\nok A 192.0.2.2\n", "x".repeat(300));
    let out = h.service.import(&h.account, id, hostile).await.unwrap();
    let reasons: Vec<(usize, &str)> = out.skipped.iter().map(|s| (s.line, s.reason.as_str())).collect();
    assert!(reasons.iter().any(|(l, r)| *l == 1 && r.contains("$INCLUDE is refused")), "{reasons:?}");
    assert!(reasons.iter().any(|(l, r)| *l == 2 && r.contains("longer than 200 bytes")), "{reasons:?}");
    assert!(reasons.iter().any(|(l, r)| *l == 3 && r.contains("do not nest")), "{reasons:?}");
    let names: Vec<&str> = out.added.iter().map(|r| r.name.as_str()).collect();
    assert!(names.contains(&"ok.example.com"), "{names:?}");
}

#[tokio::test]
async fn txt_character_strings_survive_import_api_export_and_the_wire() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    let id = zone.id.as_str();
    let file = "$ORIGIN example.com.\nt IN TXT ( \"hello\" \"world\" )\nq TXT \"a \\\"b\\\"\" plain \"\\200\"\n";
    let out = h.service.import(&h.account, id, file.to_owned()).await.unwrap();
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    let t = out.added.iter().find(|r| r.name == "t.example.com").unwrap();
    assert_eq!(t.content, "\"hello\" \"world\"", "the API shows the strings in quoted form");
    // The API takes the same form back, and plain text stays one string.
    let created = h.add(&zone, "TXT", "api", "\"v=spf1\" \"-all\"").await;
    assert_eq!(created.content, "\"v=spf1\" \"-all\"");
    let plain = h.add(&zone, "TXT", "plain", "hello world").await;
    assert_eq!(plain.content, "hello world");
    h.refresh().await;
    let strings = |name: &'static str| {
        let addr = h.addr;
        async move {
            let r = udp(addr, &query(name, RecordType::TXT, None)).await;
            match &r.answers[0].data {
                RData::TXT(t) => t.txt_data.iter().map(|s| s.to_vec()).collect::<Vec<_>>(),
                other => panic!("{other:?}"),
            }
        }
    };
    assert_eq!(strings("t.example.com.").await, vec![b"hello".to_vec(), b"world".to_vec()]);
    assert_eq!(strings("q.example.com.").await, vec![b"a \"b\"".to_vec(), b"plain".to_vec(), vec![200]]);
    assert_eq!(strings("api.example.com.").await, vec![b"v=spf1".to_vec(), b"-all".to_vec()]);
    assert_eq!(strings("plain.example.com.").await, vec![b"hello world".to_vec()]);
    let (_, text) = h.service.export(&h.account, id).await.unwrap();
    assert!(text.contains("t\t3600\tIN\tTXT\t\"hello\" \"world\""), "{text}");
    assert!(text.contains("q\t3600\tIN\tTXT\t\"a \\\"b\\\"\" \"plain\" \"\\200\""), "{text}");
}
