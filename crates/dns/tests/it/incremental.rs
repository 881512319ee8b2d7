//! The served copy of a zone brought up to date from the names a change touched holds exactly
//! what the zone read whole from the store holds.

use crate::common::{query, udp, Harness};
use hickory_proto::op::ResponseCode;
use hickory_proto::rr::RecordType;
use meridian_core::config::DnsConfig;
use meridian_core::Timestamp;
use meridian_dns::record::RecordInput;
use meridian_dns::served::{ServedZones, ZoneReads};
use meridian_store::dns::{ChangeSet, Record};
use std::sync::Arc;

/// Every record the zone serves (as a transfer gives them), sorted.
fn served(zones: &ServedZones, name: &str) -> Vec<String> {
    let mut records: Vec<String> =
        zones.get(name).unwrap().transfer_records().iter().map(ToString::to_string).collect();
    records.sort();
    records
}

/// Refreshes the harness's zones and compares them with a copy read whole from the store.
async fn check(h: &Harness, expected: ZoneReads) {
    h.refresh().await;
    let whole = ServedZones::new(Arc::new(DnsConfig::default()));
    whole.refresh(&h.store).await.unwrap();
    assert_eq!(served(&h.served_zones, "example.org"), served(&whole, "example.org"));
    assert_eq!(h.served_zones.reads(), expected);
}

fn input(name: &str) -> RecordInput {
    RecordInput { name: Some(name.into()), ..Default::default() }
}

#[tokio::test]
async fn a_zone_followed_name_by_name_matches_the_zone_read_whole() {
    let h = Harness::new(DnsConfig::default()).await;
    let zone = h.zone("example.org").await;
    let (account, id) = (h.account.clone(), zone.id.as_str().to_owned());
    check(&h, ZoneReads { whole: 1, by_name: 0 }).await;

    let www = h.add(&zone, "A", "www", "192.0.2.1").await;
    check(&h, ZoneReads { whole: 1, by_name: 1 }).await;
    // Several commits between two refreshes; two records at one name.
    h.add(&zone, "A", "www", "192.0.2.2").await;
    h.add(&zone, "MX", "mail", "www.example.org").await;
    let alias = h.add(&zone, "CNAME", "alias", "www.example.org").await;
    h.add(&zone, "TXT", "*.wild", "any").await;
    check(&h, ZoneReads { whole: 1, by_name: 2 }).await;

    // A rename leaves nothing at the old name.
    h.service.update_record(&account, &id, www.id.as_str(), &input("web"), None).await.unwrap();
    check(&h, ZoneReads { whole: 1, by_name: 3 }).await;
    let r = udp(h.addr, &query("web.example.org.", RecordType::A, None)).await;
    assert_eq!(r.answers.len(), 1);
    let r = udp(h.addr, &query("www.example.org.", RecordType::A, None)).await;
    assert_eq!(r.answers.len(), 1, "the other record stays at www");

    h.service.delete_record(&account, &id, alias.id.as_str(), None).await.unwrap();
    check(&h, ZoneReads { whole: 1, by_name: 4 }).await;
    let r = udp(h.addr, &query("alias.example.org.", RecordType::A, None)).await;
    assert_eq!(r.metadata.response_code, ResponseCode::NXDomain);

    // A delegation changes what is authoritative below it: the zone is read whole. Glue added
    // under it afterwards is a change by name, and stays glue.
    h.add(&zone, "NS", "sub", "ns.sub.example.org").await;
    check(&h, ZoneReads { whole: 2, by_name: 4 }).await;
    h.add(&zone, "A", "ns.sub", "192.0.2.53").await;
    check(&h, ZoneReads { whole: 2, by_name: 5 }).await;
    let r = udp(h.addr, &query("ns.sub.example.org.", RecordType::A, None)).await;
    assert!(!r.metadata.authoritative, "below a delegation the answer is a referral");
    assert!(r.answers.is_empty());

    // A commit this process's service did not make (another node's) is not in the log: the zone
    // is read whole.
    let other = Record { name: "other.example.org".into(), ..h.add(&zone, "A", "tmp", "192.0.2.9").await };
    let other = Record { id: meridian_core::id::RecordId::generate(), ..other };
    check(&h, ZoneReads { whole: 2, by_name: 6 }).await;
    h.store
        .dns
        .apply_changes(
            &account,
            &zone.id,
            &ChangeSet { creates: vec![other], ..Default::default() },
            &[],
            Timestamp::now(),
        )
        .await
        .unwrap();
    check(&h, ZoneReads { whole: 3, by_name: 6 }).await;
    let r = udp(h.addr, &query("other.example.org.", RecordType::A, None)).await;
    assert_eq!(r.answers.len(), 1);

    // Changes at the apex are read whole too.
    h.add(&zone, "MX", "@", "mail.example.org").await;
    check(&h, ZoneReads { whole: 4, by_name: 6 }).await;
}
