//! Keyset pages: every list read through the cursor of a `next` link gives the items, in the
//! order, that reading it by offset gives; a cursor whose item is gone falls back to its offset.

use crate::common::{after, create_account, new_job, new_key, open, page, TestResult};
use crate::dem::dataset;
use crate::dns::{record, zone};
use meridian_core::Timestamp;
use meridian_store::dns::{ChangeSet, RecordFilter};
use std::future::Future;

/// Reads a whole list twice, by offset and by cursor (`limit` a page), and checks both give the
/// same ids; returns them.
async fn both_ways<F, Fut>(limit: u32, mut list: F) -> TestResult<Vec<String>>
where
    F: FnMut(meridian_core::page::Page) -> Fut,
    Fut: Future<Output = TestResult<(Vec<String>, u64)>>,
{
    let (mut by_offset, mut offset) = (Vec::new(), 0u64);
    loop {
        let (ids, total) = list(page(limit, offset)).await?;
        let done = ids.is_empty();
        by_offset.extend(ids);
        offset += u64::from(limit);
        if done || offset >= total {
            break;
        }
    }
    let (mut by_cursor, mut next) = (Vec::new(), page(limit, 0));
    loop {
        let (ids, total) = list(next).await?;
        let Some(last) = ids.last().cloned() else { break };
        by_cursor.extend(ids);
        let offset = next.offset + u64::from(limit);
        if offset >= total {
            break;
        }
        next = after(limit, offset, &last);
    }
    assert_eq!(by_cursor, by_offset);
    Ok(by_offset)
}

#[tokio::test]
async fn every_list_reads_the_same_by_cursor_as_by_offset() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = create_account(&store, "keyset-ann@example.com").await?;
    let bob = create_account(&store, "keyset-bob@example.com").await?;

    // API keys, newest first (the account's first key included).
    for n in 0..6 {
        store.accounts.create_api_key(&new_key(&ann, &format!("k{n}"))).await?;
        store.accounts.create_api_key(&new_key(&bob, &format!("k{n}"))).await?;
    }
    let keys = both_ways(2, |p| {
        let (store, ann) = (&store, &ann);
        async move {
            let (k, t) = store.accounts.list_api_keys(ann, p).await?;
            Ok((k.into_iter().map(|k| k.id.0).collect(), t))
        }
    })
    .await?;
    assert_eq!(keys.len(), 7);

    // Jobs of one kind, newest first.
    let mut submitted = Vec::new();
    for n in 0..7 {
        let kind = if n % 2 == 0 { "dem.process" } else { "eo.ingest" };
        let job = store.jobs.submit(new_job(&ann, kind)).await?;
        if n % 2 == 0 {
            submitted.push(job.id.0);
        }
    }
    let jobs = both_ways(3, |p| {
        let (store, ann) = (&store, &ann);
        async move {
            let (j, t) = store.jobs.list_jobs(ann, Some("dem.process"), p).await?;
            Ok((j.into_iter().map(|j| j.id.0).collect(), t))
        }
    })
    .await?;
    submitted.reverse();
    assert_eq!(jobs, submitted);

    // Zones by name, records by name, type and data.
    for name in ["c.example", "a.example", "b.example", "e.example", "d.example"] {
        store.dns.create_zone(&zone(&ann, name, 1), &[]).await?;
    }
    let zones = both_ways(2, |p| {
        let (store, ann) = (&store, &ann);
        async move {
            let (z, t) = store.dns.list_zones(ann, None, p).await?;
            Ok((z.into_iter().map(|z| z.name).collect(), t))
        }
    })
    .await?;
    assert_eq!(zones, ["a.example", "b.example", "c.example", "d.example", "e.example"]);
    let z = zone(&ann, "records.example", 1);
    store.dns.create_zone(&z, &[]).await?;
    let mut creates = Vec::new();
    for n in 0..9 {
        creates.push(record(&z.id, &format!("h{}.records.example", n % 4), "A", &format!("192.0.2.{n}")));
    }
    let changes = ChangeSet { creates, ..Default::default() };
    store.dns.apply_changes(&ann, &z.id, &changes, &[], Timestamp::now()).await?;
    let records = both_ways(4, |p| {
        let (store, z) = (&store, &z);
        async move {
            let (r, t) = store.dns.list_records(&z.id, &RecordFilter::default(), p).await?;
            Ok((r.into_iter().map(|r| r.id.0).collect(), t))
        }
    })
    .await?;
    assert_eq!(records.len(), 9);

    // DEM datasets, newest first, two of them created in the same millisecond.
    for (id, at) in [("dem_a", 5), ("dem_b", 7), ("dem_c", 7), ("dem_d", 9), ("dem_e", 1)] {
        store.dem.insert_dataset(&dataset(&ann, id, at)).await?;
    }
    let datasets = both_ways(2, |p| {
        let (store, ann) = (&store, &ann);
        async move {
            let (d, t) = store.dem.list_datasets(ann, p).await?;
            Ok((d.into_iter().map(|d| d.id).collect(), t))
        }
    })
    .await?;
    assert_eq!(datasets, ["dem_d", "dem_c", "dem_b", "dem_a", "dem_e"]);

    // A cursor whose item was deleted falls back to its offset; another account's item is no
    // anchor (it is not found in this account, so the offset is used as well).
    assert!(store.dem.delete_dataset(&ann, "dem_c").await?);
    let (rest, _) = store.dem.list_datasets(&ann, after(2, 2, "dem_c")).await?;
    assert_eq!(rest.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), ["dem_a", "dem_e"]);
    store.dem.insert_dataset(&dataset(&bob, "dem_x", 6)).await?;
    let (rest, _) = store.dem.list_datasets(&ann, after(2, 1, "dem_x")).await?;
    assert_eq!(rest.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), ["dem_b", "dem_a"]);
    Ok(())
}
