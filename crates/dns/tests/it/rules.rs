//! The service's rules, serials, counts and events, through the store.

use crate::common::{account, Harness};
use meridian_core::config::DnsConfig;
use meridian_core::page::Page;
use meridian_core::DomainError;
use meridian_dns::record::RecordInput;
use meridian_dns::service::{Batch, BatchUpdate};
use meridian_store::StoreError;

fn conflict(e: &StoreError) -> Option<&'static str> {
    match e {
        StoreError::Domain(DomainError::Conflict { code, .. }) => Some(code),
        _ => None,
    }
}

fn invalid_pointers(e: &StoreError) -> Vec<String> {
    match e {
        StoreError::Domain(DomainError::Invalid(errors)) => errors.iter().map(|e| e.pointer.clone()).collect(),
        _ => Vec::new(),
    }
}

fn rec(t: &str, name: &str, content: &str) -> RecordInput {
    RecordInput { rtype: Some(t.into()), name: Some(name.into()), content: Some(content.into()), ..Default::default() }
}

#[tokio::test]
async fn every_change_bumps_the_serial_and_keeps_the_count() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    let id = zone.id.as_str();
    let a = h.add(&zone, "A", "www", "192.0.2.1").await;
    h.add(&zone, "A", "www", "192.0.2.2").await;
    let z = h.service.zone(&h.account, id).await.unwrap();
    assert_eq!((z.soa_serial, z.records), (zone.soa_serial + 2, 2));
    let patch = RecordInput { content: Some("192.0.2.9".into()), ttl: Some(300), ..Default::default() };
    let updated = h.service.update_record(&h.account, id, a.id.as_str(), &patch, None).await.unwrap();
    assert_eq!((updated.content.as_str(), updated.ttl, updated.name.as_str()), ("192.0.2.9", 300, "www.example.com"));
    assert_eq!(updated.created_at, a.created_at);
    h.service.delete_record(&h.account, id, a.id.as_str(), None).await.unwrap();
    let z = h.service.zone(&h.account, id).await.unwrap();
    assert_eq!((z.soa_serial, z.records), (zone.soa_serial + 4, 1));
}

#[tokio::test]
async fn duplicates_and_cname_clashes_are_conflicts() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    let id = zone.id.as_str();
    h.add(&zone, "A", "www", "192.0.2.1").await;
    let e = h.service.create_record(&h.account, id, &rec("A", "WWW", "192.0.2.1")).await.unwrap_err();
    assert_eq!(conflict(&e), Some("duplicate_record"));
    let e = h.service.create_record(&h.account, id, &rec("CNAME", "www", "other.example.net")).await.unwrap_err();
    assert_eq!(conflict(&e), Some("cname_conflict"));
    h.add(&zone, "CNAME", "alias", "www.example.com").await;
    let e = h.service.create_record(&h.account, id, &rec("TXT", "alias", "x")).await.unwrap_err();
    assert_eq!(conflict(&e), Some("cname_conflict"));
    let e = h.service.create_record(&h.account, id, &rec("CNAME", "@", "www.example.com")).await.unwrap_err();
    assert_eq!(conflict(&e), Some("cname_conflict"));
    let e = h.service.create_record(&h.account, id, &rec("NS", "@", "ns.example.net")).await.unwrap_err();
    assert_eq!(invalid_pointers(&e), vec!["/name"]);
    let z = h.service.zone(&h.account, id).await.unwrap();
    assert_eq!(z.records, 2, "refused changes leave nothing behind");
}

#[tokio::test]
async fn zone_names_belong_to_one_account_and_other_tenants_see_nothing() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    let other = account(&h.store, "other@example.org").await;
    for name in ["example.com", "EXAMPLE.com.", "sub.example.com", "com.example.com"] {
        let e = h.service.create_zone(&other, Some(name)).await.unwrap_err();
        assert_eq!(conflict(&e), Some("zone_exists"), "{name}");
    }
    let e = h.service.create_zone(&h.account, Some("example.com")).await.unwrap_err();
    assert_eq!(conflict(&e), Some("zone_exists"));
    let e = h.service.zone(&other, zone.id.as_str()).await.unwrap_err();
    assert!(matches!(e, StoreError::Domain(DomainError::NotFound { .. })));
    let e = h.service.create_record(&other, zone.id.as_str(), &rec("A", "x", "192.0.2.1")).await.unwrap_err();
    assert!(matches!(e, StoreError::Domain(DomainError::NotFound { .. })));
    let (zones, total) = h.service.list_zones(&other, None, Page::at(10, 0)).await.unwrap();
    assert_eq!((zones.len(), total), (0, 0));
    let e = h.service.create_zone(&h.account, Some("-bad-.com")).await.unwrap_err();
    assert_eq!(invalid_pointers(&e), vec!["/name"]);
    let idn = h.service.create_zone(&other, Some("Bücher.de")).await.unwrap();
    assert_eq!(idn.name, "xn--bcher-kva.de");
}

#[tokio::test]
async fn batches_are_all_or_nothing_with_one_serial_step_and_one_event_per_record() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    let id = zone.id.as_str();
    let keep = h.add(&zone, "A", "keep", "192.0.2.1").await;
    let gone = h.add(&zone, "A", "gone", "192.0.2.2").await;
    let before = h.service.zone(&h.account, id).await.unwrap();
    let bad = Batch {
        creates: vec![rec("A", "new", "192.0.2.3"), RecordInput { ttl: Some(5), ..rec("A", "x", "192.0.2.4") }],
        deletes: vec![gone.id.0.clone()],
        ..Default::default()
    };
    let e = h.service.batch(&h.account, id, &bad).await.unwrap_err();
    assert_eq!(invalid_pointers(&e), vec!["/creates/1/ttl"]);
    let clash = Batch {
        creates: vec![rec("A", "new", "192.0.2.3"), rec("CNAME", "new", "keep.example.com")],
        ..Default::default()
    };
    assert_eq!(conflict(&h.service.batch(&h.account, id, &clash).await.unwrap_err()), Some("cname_conflict"));
    let same = h.service.zone(&h.account, id).await.unwrap();
    assert_eq!((same.soa_serial, same.records), (before.soa_serial, 2), "nothing was applied");
    let good = Batch {
        creates: vec![rec("A", "new", "192.0.2.3"), rec("TXT", "new", "hello")],
        updates: vec![BatchUpdate {
            id: keep.id.0.clone(),
            fields: RecordInput { ttl: Some(120), ..Default::default() },
        }],
        deletes: vec![gone.id.0.clone()],
    };
    let out = h.service.batch(&h.account, id, &good).await.unwrap();
    assert_eq!((out.created.len(), out.updated.len(), out.deleted.len()), (2, 1, 1));
    assert_eq!((out.zone.soa_serial, out.zone.records), (before.soa_serial + 1, 3));
    let (events, _) = h.store.outbox.list_events(&h.account, &Default::default(), Page::at(100, 0)).await.unwrap();
    let kinds: Vec<&str> = events.iter().take(4).map(|e| e.event_type.as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "dns.record.created").count(), 2);
    assert!(kinds.contains(&"dns.record.updated") && kinds.contains(&"dns.record.deleted"));
    let created = events.iter().find(|e| e.event_type == "dns.record.created").unwrap();
    let p = &created.payload;
    assert_eq!(p["event"], "dns.record.created");
    assert_eq!(p["zone"], "example.com");
    assert_eq!(p["id"], created.id.as_str());
    assert!(p["timestamp"].as_str().unwrap().ends_with('Z'));
    for field in ["id", "type", "name", "content"] {
        assert!(p["record"][field].is_string(), "record.{field} in {p}");
    }
    assert!(events.iter().any(|e| e.event_type == "dns.zone.created" && e.payload["zone"] == "example.com"));
}

#[tokio::test]
async fn import_adds_what_it_can_and_says_why_not_and_export_reads_back() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.com").await;
    let id = zone.id.as_str();
    h.add(&zone, "A", "www", "192.0.2.1").await;
    let file = "$ORIGIN example.com.\n$TTL 600\n@ IN SOA a. b. 1 2 3 4 5\n@ NS ns.other.\nwww A 192.0.2.1\nmail A 192.0.2.25\n@ MX 10 mail\nweird HINFO a b\ncn CNAME www\ncn A 192.0.2.9\nshort 30 A 192.0.2.10\n";
    let out = h.service.import(&h.account, id, file.to_owned()).await.unwrap();
    let added: Vec<(String, String)> = out.added.iter().map(|r| (r.name.clone(), r.rtype.clone())).collect();
    assert_eq!(
        added,
        vec![
            ("mail.example.com".to_owned(), "A".to_owned()),
            ("example.com".to_owned(), "MX".to_owned()),
            ("cn.example.com".to_owned(), "CNAME".to_owned())
        ]
    );
    let reasons: Vec<(usize, &str)> = out.skipped.iter().map(|s| (s.line, s.reason.as_str())).collect();
    assert_eq!(reasons.len(), 6, "{reasons:?}");
    assert!(reasons[0].1.contains("SOA") && reasons[1].1.contains("apex NS"));
    assert!(reasons[2].1.contains("already"), "{reasons:?}");
    assert!(reasons[3].1.contains("HINFO"));
    assert!(reasons[4].1.contains("CNAME"));
    assert!(reasons[5].1.contains("ttl"));
    assert_eq!(out.zone.records, 4);
    let (_, text) = h.service.export(&h.account, id).await.unwrap();
    assert!(text.contains("$ORIGIN example.com."));
    assert!(text.contains("mail\t600\tIN\tA\t192.0.2.25"), "{text}");
    assert!(text.contains(&format!("SOA\tns1.meridian.invalid. hostmaster.meridian.invalid. {} ", out.zone.soa_serial)));
    // The export imports into another zone unchanged, apart from what the server manages.
    let copy = h.zone("example.org").await;
    let again =
        h.service.import(&h.account, copy.id.as_str(), text.replace("example.com", "example.org")).await.unwrap();
    assert_eq!(again.added.len(), 4);
    assert_eq!(again.skipped.len(), 3, "SOA and two apex NS");
}
