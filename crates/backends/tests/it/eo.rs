//! The earth-observation repository: STAC collections and items with their versions, batches
//! that insert all or nothing, and searches and counts by collection, id, box and time.

use crate::common::{conflict_code, create_account, event, is_not_found, open, TestResult};
use meridian_core::event::NewEvent;
use meridian_core::id::AccountId;
use meridian_core::{DomainError, Timestamp};
use meridian_store::eo::{default_sort, sort_values, EoCollection, EoItem, ItemQuery, ItemSort, NewItem, SortField};
use meridian_store::{Store, StoreError};
use serde_json::{json, Value};

/// 2024-01-01T00:00:00Z in milliseconds.
const JAN_1: i64 = 1_704_067_200_000;
const DAY: i64 = 86_400_000;

fn collection(account: &AccountId, id: &str) -> EoCollection {
    let now = Timestamp::now();
    EoCollection {
        account_id: account.clone(),
        id: id.into(),
        body: json!({
            "type": "Collection",
            "stac_version": "1.0.0",
            "id": id,
            "description": format!("Scenes of {id}"),
            "license": "proprietary",
            "extent": {
                "spatial": {"bbox": [[-180.0, -90.0, 180.0, 90.0]]},
                "temporal": {"interval": [[null, null]]}
            }
        }),
        version: 1,
        created_at: now,
        updated_at: now,
    }
}

/// A scene of `collection` covering `bbox` over `[start, end]` (ms); `datetime` when they are equal.
fn scene(collection: &str, id: &str, bbox: [f64; 4], start: i64, end: i64) -> NewItem {
    let [w, s, e, n] = bbox;
    let rfc = |ms: i64| Timestamp::from_millis(ms).to_rfc3339();
    let mut properties = json!({"eo:cloud_cover": (bbox[0].abs() as i64) % 100, "platform": "sentinel-2a"});
    if start == end {
        properties["datetime"] = json!(rfc(start));
    } else {
        properties["datetime"] = Value::Null;
        properties["start_datetime"] = json!(rfc(start));
        properties["end_datetime"] = json!(rfc(end));
    }
    NewItem {
        id: id.into(),
        start_at: start,
        end_at: end,
        bbox,
        body: json!({
            "type": "Feature",
            "stac_version": "1.0.0",
            "id": id,
            "collection": collection,
            "geometry": {"type": "Polygon", "coordinates": [[[w, s], [e, s], [e, n], [w, n], [w, s]]]},
            "bbox": bbox,
            "properties": properties,
            "assets": {"visual": {"href": format!("s3://scenes/{id}/TCI.tif"), "type": "image/tiff"}}
        }),
    }
}

fn published(account: &AccountId, n: u64) -> NewEvent {
    event(account, "eo.scene.published", n)
}

fn is_precondition_failed(e: &StoreError) -> bool {
    matches!(e, StoreError::Domain(DomainError::PreconditionFailed(_)))
}

async fn in_outbox(store: &Store, e: &NewEvent) -> TestResult<bool> {
    Ok(store.outbox.pending(1000).await?.iter().any(|p| p.id == e.id))
}

fn ids(items: &[EoItem]) -> Vec<String> {
    items.iter().map(|i| format!("{}/{}", i.collection, i.id)).collect()
}

fn query() -> ItemQuery {
    ItemQuery { sort: default_sort(), limit: 100, ..ItemQuery::default() }
}

#[tokio::test]
async fn collections_are_versioned_kept_to_their_account_and_a_taken_id_conflicts() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "eo-a@example.com").await?;
    let b = create_account(&store, "eo-b@example.com").await?;
    let s2 = collection(&a, "sentinel-2");
    store.eo.create_collection(&s2).await?;
    store.eo.create_collection(&collection(&a, "landsat")).await?;
    let e = store.eo.create_collection(&collection(&a, "sentinel-2")).await.unwrap_err();
    assert_eq!(conflict_code(&e), Some("collection_exists"), "a taken id: {e:?}");
    // Ids are the account's own: another account may use the same one.
    store.eo.create_collection(&collection(&b, "sentinel-2")).await?;

    assert_eq!(store.eo.get_collection(&a, "sentinel-2").await?, Some(s2.clone()));
    let listed: Vec<String> = store.eo.list_collections(&a).await?.into_iter().map(|c| c.id).collect();
    assert_eq!(listed, ["landsat", "sentinel-2"], "by id");
    assert_eq!(store.eo.list_collections(&b).await?.len(), 1);
    assert_eq!(store.eo.get_collection(&b, "landsat").await?, None);

    let mut body = s2.body.clone();
    body["description"] = json!("Level-2A scenes");
    let e = store.eo.replace_collection(&a, "sentinel-2", &body, Some(2)).await.unwrap_err();
    assert!(is_precondition_failed(&e), "{e:?}");
    assert_eq!(store.eo.get_collection(&a, "sentinel-2").await?.unwrap().version, 1);
    let replaced = store.eo.replace_collection(&a, "sentinel-2", &body, Some(1)).await?;
    assert_eq!((replaced.version, &replaced.body, &replaced.created_at), (2, &body, &s2.created_at));
    assert_eq!(store.eo.get_collection(&a, "sentinel-2").await?, Some(replaced));
    assert_eq!(store.eo.replace_collection(&a, "sentinel-2", &s2.body, None).await?.version, 3);
    let e = store.eo.replace_collection(&b, "landsat", &body, None).await.unwrap_err();
    assert!(is_not_found(&e), "another account's collection: {e:?}");
    // b's collection of the same id was left alone.
    assert_eq!(store.eo.get_collection(&b, "sentinel-2").await?.unwrap().version, 1);

    // Deleting takes the items with it.
    store
        .eo
        .insert_items(&a, "sentinel-2", &[scene("sentinel-2", "S2A_1", [0.0, 0.0, 1.0, 1.0], JAN_1, JAN_1)], &[])
        .await?;
    let e = store.eo.delete_collection(&a, "sentinel-2", Some(1)).await.unwrap_err();
    assert!(is_precondition_failed(&e), "{e:?}");
    assert!(!store.eo.delete_collection(&b, "landsat", None).await?, "another account's");
    assert!(store.eo.delete_collection(&a, "sentinel-2", Some(3)).await?);
    assert!(!store.eo.delete_collection(&a, "sentinel-2", None).await?, "deleting twice");
    assert_eq!(store.eo.get_collection(&a, "sentinel-2").await?, None);
    assert!(store.eo.get_collection(&b, "sentinel-2").await?.is_some());
    store.eo.create_collection(&collection(&a, "sentinel-2")).await?;
    assert_eq!(store.eo.get_item(&a, "sentinel-2", "S2A_1").await?, None, "no item outlives its collection");
    assert_eq!(store.eo.count_items(&a, &query()).await?, 0);
    Ok(())
}

#[tokio::test]
async fn a_batch_with_a_taken_id_inserts_nothing_and_the_conflict_names_it() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "eo-i@example.com").await?;
    let b = create_account(&store, "eo-i2@example.com").await?;
    for c in ["s2", "l8"] {
        store.eo.create_collection(&collection(&a, c)).await?;
    }
    store.eo.create_collection(&collection(&b, "s2")).await?;
    let first = [
        scene("s2", "one", [0.0, 0.0, 1.0, 1.0], JAN_1, JAN_1),
        scene("s2", "two", [2.0, 2.0, 3.0, 3.0], JAN_1 + DAY, JAN_1 + DAY),
    ];
    let events = [published(&a, 1), published(&a, 2)];
    let stored = store.eo.insert_items(&a, "s2", &first, &events).await?;
    assert_eq!(stored.len(), 2);
    assert!(stored[0].seq < stored[1].seq, "insertion order");
    for (item, new) in stored.iter().zip(&first) {
        assert_eq!(
            (&item.id, item.start_at, item.end_at, item.bbox, &item.body),
            (&new.id, new.start_at, new.end_at, new.bbox, &new.body)
        );
        assert_eq!((item.version, item.collection.as_str(), &item.account_id), (1, "s2", &a));
    }
    assert_eq!(store.eo.get_item(&a, "s2", "two").await?, Some(stored[1].clone()));
    for e in &events {
        assert!(in_outbox(&store, e).await?, "the events commit with the items");
    }

    let batch = [
        scene("s2", "three", [4.0, 4.0, 5.0, 5.0], JAN_1, JAN_1),
        scene("s2", "two", [4.0, 4.0, 5.0, 5.0], JAN_1, JAN_1),
        scene("s2", "four", [4.0, 4.0, 5.0, 5.0], JAN_1, JAN_1),
    ];
    let refused = published(&a, 3);
    let e = store.eo.insert_items(&a, "s2", &batch, std::slice::from_ref(&refused)).await.unwrap_err();
    assert_eq!(conflict_code(&e), Some("item_exists"));
    match &e {
        StoreError::Domain(DomainError::Conflict { detail, .. }) => assert!(detail.contains("two"), "{detail}"),
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(store.eo.get_item(&a, "s2", "three").await?, None, "none of the batch");
    assert_eq!(store.eo.get_item(&a, "s2", "four").await?, None);
    assert_eq!(store.eo.get_item(&a, "s2", "two").await?, Some(stored[1].clone()), "the taken one is unchanged");
    assert_eq!(store.eo.count_items(&a, &query()).await?, 2);
    assert!(!in_outbox(&store, &refused).await?);

    // A missing collection, or another account's, takes nothing.
    let e = store.eo.insert_items(&a, "modis", &batch[..1], &[]).await.unwrap_err();
    assert!(is_not_found(&e), "{e:?}");
    store.eo.insert_items(&b, "s2", &first[..1], &[]).await?;
    let e = store.eo.insert_items(&b, "l8", &batch[..1], &[]).await.unwrap_err();
    assert!(is_not_found(&e), "{e:?}");

    // The same id in another collection is another item; find_items looks in all of them.
    store.eo.insert_items(&a, "l8", &[scene("l8", "one", [9.0, 9.0, 9.5, 9.5], JAN_1, JAN_1)], &[]).await?;
    let mut found = ids(&store.eo.find_items(&a, "one", 10).await?);
    found.sort();
    assert_eq!(found, ["l8/one", "s2/one"]);
    assert_eq!(store.eo.find_items(&a, "one", 1).await?.len(), 1);
    assert_eq!(ids(&store.eo.find_items(&b, "one", 10).await?), ["s2/one"]);
    assert!(store.eo.find_items(&a, "three", 10).await?.is_empty());
    Ok(())
}

#[tokio::test]
async fn items_are_replaced_and_deleted_against_their_versions() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "eo-r@example.com").await?;
    let b = create_account(&store, "eo-r2@example.com").await?;
    store.eo.create_collection(&collection(&a, "s2")).await?;
    store.eo.create_collection(&collection(&b, "s2")).await?;
    let old = scene("s2", "tile", [0.0, 0.0, 1.0, 1.0], JAN_1, JAN_1);
    let stored = store.eo.insert_items(&a, "s2", std::slice::from_ref(&old), &[]).await?.remove(0);

    // Moved in space and time.
    let new = scene("s2", "tile", [20.0, 20.0, 21.0, 21.0], JAN_1 + 10 * DAY, JAN_1 + 12 * DAY);
    let e = store.eo.replace_item(&a, "s2", &new, Some(2), &[]).await.unwrap_err();
    assert!(is_precondition_failed(&e), "{e:?}");
    let replaced_event = published(&a, 1);
    let replaced = store.eo.replace_item(&a, "s2", &new, Some(1), std::slice::from_ref(&replaced_event)).await?;
    assert_eq!((replaced.version, replaced.seq, &replaced.created_at), (2, stored.seq, &stored.created_at));
    assert_eq!(
        (replaced.start_at, replaced.end_at, replaced.bbox, &replaced.body),
        (new.start_at, new.end_at, new.bbox, &new.body)
    );
    assert_eq!(store.eo.get_item(&a, "s2", "tile").await?, Some(replaced.clone()));
    assert!(in_outbox(&store, &replaced_event).await?);
    // Searches see where it is now, not where it was.
    let at_old = ItemQuery { boxes: vec![[0.0, 0.0, 1.0, 1.0]], ..query() };
    let at_new = ItemQuery { boxes: vec![[20.5, 20.5, 30.0, 30.0]], ..query() };
    assert!(store.eo.search_items(&a, &at_old).await?.is_empty());
    assert_eq!(store.eo.count_items(&a, &at_old).await?, 0);
    assert_eq!(ids(&store.eo.search_items(&a, &at_new).await?), ["s2/tile"]);
    let then = ItemQuery { time: Some((JAN_1, JAN_1)), ..query() };
    assert_eq!(store.eo.count_items(&a, &then).await?, 0);

    let e = store
        .eo
        .replace_item(&a, "s2", &scene("s2", "nothing", [0.0, 0.0, 1.0, 1.0], JAN_1, JAN_1), None, &[])
        .await
        .unwrap_err();
    assert!(is_not_found(&e), "{e:?}");
    let e = store.eo.replace_item(&b, "s2", &new, None, &[]).await.unwrap_err();
    assert!(is_not_found(&e), "another account's item: {e:?}");
    assert_eq!(store.eo.replace_item(&a, "s2", &old, None, &[]).await?.version, 3);

    let e = store.eo.delete_item(&a, "s2", "tile", Some(2)).await.unwrap_err();
    assert!(is_precondition_failed(&e), "{e:?}");
    assert!(!store.eo.delete_item(&b, "s2", "tile", None).await?, "another account's");
    assert!(store.eo.delete_item(&a, "s2", "tile", Some(3)).await?);
    assert!(!store.eo.delete_item(&a, "s2", "tile", None).await?, "deleting twice");
    assert_eq!(store.eo.get_item(&a, "s2", "tile").await?, None);
    assert!(store.eo.search_items(&a, &query()).await?.is_empty());
    // The id is free again, at version 1.
    assert_eq!(store.eo.insert_items(&a, "s2", &[new], &[]).await?[0].version, 1);
    Ok(())
}

#[tokio::test]
async fn searches_and_counts_filter_by_collection_id_box_and_time() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "eo-s@example.com").await?;
    let b = create_account(&store, "eo-s2@example.com").await?;
    for c in ["s2", "l8"] {
        store.eo.create_collection(&collection(&a, c)).await?;
    }
    store.eo.create_collection(&collection(&b, "s2")).await?;
    let s2 = [
        scene("s2", "a", [0.0, 0.0, 1.0, 1.0], JAN_1, JAN_1),
        scene("s2", "b", [10.0, 10.0, 11.0, 11.0], JAN_1 + 31 * DAY, JAN_1 + 31 * DAY),
        // An interval: 1 to 10 March.
        scene("s2", "c", [0.5, 0.5, 2.0, 2.0], JAN_1 + 60 * DAY, JAN_1 + 69 * DAY),
        // Just east of the antimeridian.
        scene("s2", "e", [-179.5, -1.0, -179.0, 1.0], JAN_1 + 2 * DAY, JAN_1 + 2 * DAY),
    ];
    store.eo.insert_items(&a, "s2", &s2, &[]).await?;
    store
        .eo
        .insert_items(&a, "l8", &[scene("l8", "d", [0.0, 0.0, 1.0, 1.0], JAN_1 + 14 * DAY, JAN_1 + 14 * DAY)], &[])
        .await?;
    // Another account's scene matches every filter below, and must never be found.
    store.eo.insert_items(&b, "s2", &[scene("s2", "a", [0.0, 0.0, 1.0, 1.0], JAN_1, JAN_1)], &[]).await?;

    let check = |q: ItemQuery, expected: &'static [&'static str]| {
        let store = store.clone();
        let a = a.clone();
        async move {
            let found = store.eo.search_items(&a, &q).await?;
            assert_eq!(ids(&found), expected, "{q:?}");
            assert!(found.iter().all(|i| i.account_id == a));
            assert_eq!(store.eo.count_items(&a, &q).await?, expected.len() as u64, "count of {q:?}");
            TestResult::Ok(())
        }
    };
    // Newest first by default.
    check(query(), &["s2/c", "s2/b", "l8/d", "s2/e", "s2/a"]).await?;
    check(ItemQuery { collections: vec!["s2".into()], ..query() }, &["s2/c", "s2/b", "s2/e", "s2/a"]).await?;
    check(ItemQuery { collections: vec!["l8".into(), "modis".into()], ..query() }, &["l8/d"]).await?;
    check(ItemQuery { ids: vec!["a".into(), "d".into()], ..query() }, &["l8/d", "s2/a"]).await?;
    check(ItemQuery { ids: vec!["a".into()], collections: vec!["l8".into()], ..query() }, &[]).await?;
    // Boxes that touch an edge meet it.
    check(ItemQuery { boxes: vec![[1.0, 1.0, 5.0, 5.0]], ..query() }, &["s2/c", "l8/d", "s2/a"]).await?;
    check(ItemQuery { boxes: vec![[1.5, 1.5, 5.0, 5.0]], ..query() }, &["s2/c"]).await?;
    check(ItemQuery { boxes: vec![[50.0, 50.0, 60.0, 60.0]], ..query() }, &[]).await?;
    // A box across the antimeridian, as two.
    let across = vec![[170.0, -5.0, 180.0, 5.0], [-180.0, -5.0, -170.0, 5.0]];
    check(ItemQuery { boxes: across, ..query() }, &["s2/e"]).await?;
    // Time: items whose interval meets the range, both ends inclusive.
    check(ItemQuery { time: Some((JAN_1 + 62 * DAY, JAN_1 + 63 * DAY)), ..query() }, &["s2/c"]).await?;
    check(ItemQuery { time: Some((JAN_1 + 69 * DAY, JAN_1 + 90 * DAY)), ..query() }, &["s2/c"]).await?;
    check(ItemQuery { time: Some((JAN_1 + 69 * DAY + 1, JAN_1 + 90 * DAY)), ..query() }, &[]).await?;
    check(ItemQuery { time: Some((JAN_1, JAN_1 + 14 * DAY)), ..query() }, &["l8/d", "s2/e", "s2/a"]).await?;
    // Every filter at once.
    let all = ItemQuery {
        collections: vec!["s2".into()],
        boxes: vec![[0.0, 0.0, 3.0, 3.0]],
        time: Some((JAN_1, JAN_1 + 14 * DAY)),
        ..query()
    };
    check(all, &["s2/a"]).await?;

    // Other orders; seq breaks ties.
    let by_id = vec![ItemSort { field: SortField::Id, descending: false }];
    check(ItemQuery { sort: by_id.clone(), ..query() }, &["s2/a", "s2/b", "s2/c", "l8/d", "s2/e"]).await?;
    let by_collection = vec![
        ItemSort { field: SortField::Collection, descending: true },
        ItemSort { field: SortField::Datetime, descending: false },
    ];
    check(ItemQuery { sort: by_collection, ..query() }, &["s2/a", "s2/e", "s2/b", "s2/c", "l8/d"]).await?;
    let by_cloud = vec![
        ItemSort { field: SortField::Property("eo:cloud_cover".into()), descending: true },
        ItemSort { field: SortField::Id, descending: false },
    ];
    // Cloud cover: a 0, b 10, c 0, d 0, e 79.
    check(ItemQuery { sort: by_cloud, ..query() }, &["s2/e", "s2/b", "s2/a", "s2/c", "l8/d"]).await?;

    // The limit cuts the page but not the count; the keyset continues where the page ended.
    let q = ItemQuery { limit: 2, ..query() };
    let page1 = store.eo.search_items(&a, &q).await?;
    assert_eq!(ids(&page1), ["s2/c", "s2/b"]);
    assert_eq!(store.eo.count_items(&a, &q).await?, 5);
    let last = page1.last().unwrap();
    let q = ItemQuery { after: Some((sort_values(last, &q.sort), last.seq)), ..q };
    let page2 = store.eo.search_items(&a, &q).await?;
    assert_eq!(ids(&page2), ["l8/d", "s2/e"]);
    let last = page2.last().unwrap();
    let q = ItemQuery { after: Some((sort_values(last, &q.sort), last.seq)), ..q };
    assert_eq!(ids(&store.eo.search_items(&a, &q).await?), ["s2/a"]);
    let q = ItemQuery { sort: by_id.clone(), limit: 3, ..query() };
    let page1 = store.eo.search_items(&a, &q).await?;
    let last = page1.last().unwrap();
    let q = ItemQuery { after: Some((sort_values(last, &by_id), last.seq)), ..q };
    assert_eq!(ids(&store.eo.search_items(&a, &q).await?), ["l8/d", "s2/e"]);
    // Pages of a box search continue the same way.
    let q = ItemQuery { boxes: vec![[0.0, 0.0, 5.0, 5.0]], limit: 2, ..query() };
    let page1 = store.eo.search_items(&a, &q).await?;
    assert_eq!(ids(&page1), ["s2/c", "l8/d"]);
    let last = page1.last().unwrap();
    let q = ItemQuery { after: Some((sort_values(last, &q.sort), last.seq)), ..q };
    assert_eq!(ids(&store.eo.search_items(&a, &q).await?), ["s2/a"]);
    Ok(())
}

#[tokio::test]
async fn a_collection_summary_counts_its_items_extent_and_time_span() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "eo-c@example.com").await?;
    let b = create_account(&store, "eo-c2@example.com").await?;
    store.eo.create_collection(&collection(&a, "s2")).await?;
    store.eo.create_collection(&collection(&b, "s2")).await?;
    let empty = store.eo.collection_summary(&a, "s2").await?;
    assert_eq!((empty.items, empty.bbox, empty.start_at, empty.end_at), (0, None, None, None));

    let items = [
        scene("s2", "x", [-10.0, 40.0, -9.0, 41.0], JAN_1 + DAY, JAN_1 + DAY),
        scene("s2", "y", [5.0, 35.0, 6.5, 36.0], JAN_1 + 3 * DAY, JAN_1 + 5 * DAY),
        scene("s2", "z", [0.0, 50.0, 1.0, 52.0], JAN_1 + 2 * DAY, JAN_1 + 2 * DAY),
    ];
    store.eo.insert_items(&a, "s2", &items, &[]).await?;
    store.eo.insert_items(&b, "s2", &[scene("s2", "far", [100.0, -60.0, 120.0, -50.0], 0, 0)], &[]).await?;
    let s = store.eo.collection_summary(&a, "s2").await?;
    assert_eq!(s.items, 3);
    assert_eq!(s.bbox, Some([-10.0, 35.0, 6.5, 52.0]));
    assert_eq!((s.start_at, s.end_at), (Some(JAN_1 + DAY), Some(JAN_1 + 5 * DAY)));

    store.eo.delete_item(&a, "s2", "y", None).await?;
    let s = store.eo.collection_summary(&a, "s2").await?;
    assert_eq!((s.items, s.bbox, s.end_at), (2, Some([-10.0, 40.0, 1.0, 52.0]), Some(JAN_1 + 2 * DAY)));
    assert_eq!(store.eo.collection_summary(&b, "s2").await?.items, 1);
    Ok(())
}
