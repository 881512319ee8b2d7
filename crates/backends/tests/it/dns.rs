//! The DNS repository: serial arithmetic, counts, cascades and conflicts at the store's edge.

use crate::common::{conflict_code, create_account, is_not_found, open, page, TestResult};
use meridian_core::id::{RecordId, ZoneId};
use meridian_core::Timestamp;
use meridian_store::dns::{ChangeSet, Record, RecordFilter, Zone};

pub(crate) fn zone(account: &meridian_core::id::AccountId, name: &str, serial: u32) -> Zone {
    let now = Timestamp::now();
    Zone {
        id: ZoneId::generate(),
        account_id: account.clone(),
        name: name.into(),
        status: "active".into(),
        soa_serial: serial,
        records: 0,
        dnssec: false,
        created_at: now,
        updated_at: now,
    }
}

pub(crate) fn record(zone: &ZoneId, name: &str, rtype: &str, content: &str) -> Record {
    let now = Timestamp::now();
    Record {
        id: RecordId::generate(),
        zone_id: zone.clone(),
        name: name.into(),
        rtype: rtype.into(),
        content: content.into(),
        rdata: content.into(),
        ttl: 300,
        priority: None,
        weight: None,
        port: None,
        flags: None,
        tag: None,
        created_at: now,
        updated_at: now,
    }
}

#[tokio::test]
async fn the_serial_wraps_modulo_2_32_and_the_count_stays_exact() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "dns-store@example.com").await?;
    let z = zone(&account, "example.com", u32::MAX);
    store.dns.create_zone(&z, &[]).await?;
    let a = record(&z.id, "www.example.com", "A", "192.0.2.1");
    let changes = ChangeSet {
        creates: vec![a.clone(), record(&z.id, "www.example.com", "A", "192.0.2.2")],
        ..Default::default()
    };
    let after = store.dns.apply_changes(&account, &z.id, &changes, &[], Timestamp::now()).await?;
    assert_eq!((after.soa_serial, after.records), (0, 2), "RFC 1982: 2^32 - 1 + 1 is 0, which is newer");
    let changes = ChangeSet { deletes: vec![a.id.clone()], ..Default::default() };
    let after = store.dns.apply_changes(&account, &z.id, &changes, &[], Timestamp::now()).await?;
    assert_eq!((after.soa_serial, after.records), (1, 1));
    let e = store.dns.apply_changes(&account, &z.id, &changes, &[], Timestamp::now()).await.unwrap_err();
    assert!(is_not_found(&e), "deleting twice");
    let stale = ChangeSet {
        creates: vec![record(&z.id, "late.example.com", "A", "192.0.2.3")],
        expect_serial: Some(0),
        ..Default::default()
    };
    let e = store.dns.apply_changes(&account, &z.id, &stale, &[], Timestamp::now()).await.unwrap_err();
    assert!(matches!(e, meridian_store::StoreError::Domain(meridian_core::DomainError::PreconditionFailed(_))));
    let (found, total) = store
        .dns
        .list_records(&z.id, &RecordFilter { rtype: Some("A".into()), ..Default::default() }, page(10, 0))
        .await?;
    assert_eq!((found.len(), total), (1, 1));
    Ok(())
}

#[tokio::test]
async fn duplicates_cname_sharing_and_taken_names_are_conflicts_and_leave_nothing() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "dns-store2@example.com").await?;
    let other = create_account(&store, "dns-store3@example.com").await?;
    let z = zone(&account, "example.com", 1);
    store.dns.create_zone(&z, &[]).await?;
    let a = record(&z.id, "www.example.com", "A", "192.0.2.1");
    store
        .dns
        .apply_changes(
            &account,
            &z.id,
            &ChangeSet { creates: vec![a.clone()], ..Default::default() },
            &[],
            Timestamp::now(),
        )
        .await?;
    let dup = ChangeSet {
        creates: vec![record(&z.id, "new.example.com", "A", "x"), record(&z.id, "www.example.com", "A", "192.0.2.1")],
        ..Default::default()
    };
    let e = store.dns.apply_changes(&account, &z.id, &dup, &[], Timestamp::now()).await.unwrap_err();
    assert_eq!(conflict_code(&e), Some("duplicate_record"));
    let cname = ChangeSet {
        creates: vec![record(&z.id, "www.example.com", "CNAME", "other.example.net")],
        ..Default::default()
    };
    let e = store.dns.apply_changes(&account, &z.id, &cname, &[], Timestamp::now()).await.unwrap_err();
    assert_eq!(conflict_code(&e), Some("cname_conflict"));
    let now = store.dns.get_zone(&account, &z.id).await?.unwrap();
    assert_eq!((now.soa_serial, now.records), (2, 1), "failed changes left nothing");
    for name in ["example.com", "a.example.com", "com"] {
        let e = store.dns.create_zone(&zone(&other, name, 1), &[]).await.unwrap_err();
        assert_eq!(conflict_code(&e), Some("zone_exists"), "{name}");
    }
    store.dns.create_zone(&zone(&account, "sub.example.com", 1), &[]).await?;
    store.dns.create_zone(&zone(&other, "example.org", 1), &[]).await?;
    let e = store
        .dns
        .apply_changes(
            &other,
            &z.id,
            &ChangeSet { creates: vec![record(&z.id, "x.example.com", "A", "y")], ..Default::default() },
            &[],
            Timestamp::now(),
        )
        .await
        .unwrap_err();
    assert!(is_not_found(&e), "another account's zone");
    store.dns.delete_zone(&account, &z.id, &[]).await?;
    assert!(store.dns.zone_records(&z.id).await?.is_empty(), "records go with their zone");
    assert_eq!(store.dns.zone_versions().await?.len(), 2);
    Ok(())
}
