//! The digital-twin repository: twins with their versions and events, sensors, readings (client
//! instants replace, stamped ones never do), downsampling, builds and the cascade of a deletion.

use crate::common::{create_account, event, open, page, TestResult};
use meridian_core::event::NewEvent;
use meridian_core::id::{AccountId, TwinId};
use meridian_core::{DomainError, Timestamp};
use meridian_store::twin::{BuildRow, Downsample, NewReading, ReadingRow, SensorRow, TwinRow};
use meridian_store::{Store, StoreError};
use serde_json::json;
use std::time::Duration;

/// A twin as the service stores it, made at `created_at` (ms).
fn twin(account: &AccountId, name: &str, created_at: i64) -> TwinRow {
    let at = Timestamp::from_millis(created_at);
    TwinRow {
        account_id: account.clone(),
        id: TwinId::generate().0,
        status: "building".into(),
        body: json!({
            "name": name,
            "bbox": [4.88, 52.36, 4.90, 52.38],
            "collection": "parcels",
            "default_height": 10.0,
            "build_job": "job_01j0000000000000000000000",
        }),
        clock: json!({"live": true, "anchor": 0, "set_at": 0, "rate": 1.0, "playing": true}),
        version: 1,
        created_at: at,
        updated_at: at,
    }
}

fn sensor(t: &TwinRow, id: &str, feature: Option<&str>) -> SensorRow {
    SensorRow {
        twin_id: t.id.clone(),
        id: id.into(),
        account_id: t.account_id.clone(),
        feature_id: feature.map(str::to_owned),
        body: json!({"name": format!("Sensor {id}"), "unit": "°C", "type": "number"}),
        created_at: Timestamp::now(),
    }
}

fn row(sensor: &str, ts: i64, value: &str) -> ReadingRow {
    ReadingRow { sensor_id: sensor.into(), ts, value: value.into() }
}

/// A reading at an instant the client chose.
fn at(sensor: &str, ts: i64, value: &str) -> NewReading {
    NewReading { row: row(sensor, ts, value), stamped: false }
}

/// A reading the server stamps, no earlier than `ts`.
fn stamped(sensor: &str, ts: i64, value: &str) -> NewReading {
    NewReading { row: row(sensor, ts, value), stamped: true }
}

fn build(t: &TwinRow, stamp: i64) -> BuildRow {
    BuildRow {
        twin_id: t.id.clone(),
        stamp,
        summary: json!({"stamp": stamp, "tiles": 3, "features": 12, "triangles": 480, "skipped": []}),
        created_at: Timestamp::now(),
    }
}

fn is_precondition_failed(e: &StoreError) -> bool {
    matches!(e, StoreError::Domain(DomainError::PreconditionFailed(_)))
}

/// Whether an event with this id waits in the outbox.
async fn in_outbox(store: &Store, e: &NewEvent) -> TestResult<bool> {
    Ok(store.outbox.pending(1000).await?.iter().any(|p| p.id == e.id))
}

#[tokio::test]
async fn twins_are_listed_newest_first_and_kept_to_their_account() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "twin-a@example.com").await?;
    let b = create_account(&store, "twin-b@example.com").await?;
    let (t1, t2, t3) = (twin(&a, "one", 1_000), twin(&a, "two", 2_000), twin(&a, "three", 3_000));
    // Inserted out of order: the list orders by creation, not by insertion.
    for t in [&t2, &t3, &t1] {
        store.twin.insert_twin(t, &[]).await?;
    }
    let other = twin(&b, "theirs", 4_000);
    store.twin.insert_twin(&other, &[]).await?;

    assert_eq!(store.twin.get_twin(&a, &t1.id).await?, Some(t1.clone()), "stored as given");
    let (first, total) = store.twin.list_twins(&a, page(2, 0)).await?;
    assert_eq!(total, 3);
    assert_eq!(first.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), [t3.id.as_str(), t2.id.as_str()]);
    let (rest, total) = store.twin.list_twins(&a, page(2, 2)).await?;
    assert_eq!((rest, total), (vec![t1.clone()], 3));

    // Another account sees none of them, and lists only its own.
    assert_eq!(store.twin.get_twin(&b, &t1.id).await?, None);
    let (theirs, total) = store.twin.list_twins(&b, page(10, 0)).await?;
    assert_eq!((theirs, total), (vec![other.clone()], 1));
    // Ingest finds a twin by id alone.
    assert_eq!(store.twin.find_twin(&t2.id).await?, Some(t2.clone()));
    assert_eq!(store.twin.find_twin("twin_nonexistent").await?, None);
    let mut ids = store.twin.twin_ids().await?;
    ids.sort();
    let mut expected = vec![t1.id, t2.id, t3.id, other.id];
    expected.sort();
    assert_eq!(ids, expected);
    Ok(())
}

#[tokio::test]
async fn a_stale_version_is_refused_a_change_bumps_it_and_the_clock_does_not() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "twin-v@example.com").await?;
    let b = create_account(&store, "twin-v2@example.com").await?;
    let t = twin(&a, "harbour", 1_000);
    let created = event(&a, "twin.created", 1);
    store.twin.insert_twin(&t, std::slice::from_ref(&created)).await?;
    assert!(in_outbox(&store, &created).await?, "the event commits with the twin");

    let mut ready = t.body.clone();
    ready["tileset"] = json!({"stamp": 4, "tiles": 3});
    let refused = event(&a, "twin.built", 2);
    let e =
        store.twin.update_twin(&a, &t.id, "ready", &ready, Some(2), std::slice::from_ref(&refused)).await.unwrap_err();
    assert!(is_precondition_failed(&e), "{e:?}");
    assert_eq!(store.twin.get_twin(&a, &t.id).await?, Some(t.clone()), "a refused change leaves the twin");
    assert!(!in_outbox(&store, &refused).await?, "nor does its event commit");

    let built = event(&a, "twin.built", 3);
    let updated = store.twin.update_twin(&a, &t.id, "ready", &ready, Some(1), std::slice::from_ref(&built)).await?;
    assert_eq!((updated.version, updated.status.as_str(), &updated.body), (2, "ready", &ready));
    assert_eq!((&updated.created_at, &updated.clock), (&t.created_at, &t.clock));
    assert!(in_outbox(&store, &built).await?);
    assert_eq!(store.twin.get_twin(&a, &t.id).await?, Some(updated.clone()));
    // Without a precondition the change applies to whatever version is there.
    let failed = store.twin.update_twin(&a, &t.id, "failed", &t.body, None, &[]).await?;
    assert_eq!(failed.version, 3);

    // The clock changes without bumping the version.
    let clock = json!({"live": false, "anchor": 1_700_000_000_000_i64, "set_at": 5, "rate": 60.0, "playing": false});
    let clocked = store.twin.set_twin_clock(&a, &t.id, &clock).await?;
    assert_eq!((clocked.version, &clocked.clock, &clocked.body), (3, &clock, &t.body));
    assert_eq!(store.twin.get_twin(&a, &t.id).await?.unwrap().clock, clock);

    // Another account's twin is not found, whatever the change.
    let e = store.twin.update_twin(&b, &t.id, "ready", &ready, None, &[]).await.unwrap_err();
    assert!(crate::common::is_not_found(&e), "{e:?}");
    let e = store.twin.set_twin_clock(&b, &t.id, &clock).await.unwrap_err();
    assert!(crate::common::is_not_found(&e), "{e:?}");
    assert!(!store.twin.delete_twin(&b, &t.id, None, &[]).await?);
    let e = store.twin.delete_twin(&a, &t.id, Some(2), &[]).await.unwrap_err();
    assert!(is_precondition_failed(&e), "{e:?}");
    assert_eq!(store.twin.get_twin(&a, &t.id).await?.map(|t| t.version), Some(3));
    Ok(())
}

#[tokio::test]
async fn sensors_are_capped_unique_listed_in_id_order_and_deleted_with_their_readings() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "twin-s@example.com").await?;
    let t = twin(&a, "plant", 1_000);
    let u = twin(&a, "other plant", 2_000);
    store.twin.insert_twin(&t, &[]).await?;
    store.twin.insert_twin(&u, &[]).await?;
    for (id, feature) in [("temp-c", Some("bldg-1")), ("temp-a", Some("bldg-1")), ("door", Some("bldg-2"))] {
        store.twin.insert_sensor(&sensor(&t, id, feature), 3).await?;
    }
    let e = store.twin.insert_sensor(&sensor(&t, "temp-d", None), 3).await.unwrap_err();
    assert!(matches!(e, StoreError::Domain(DomainError::TooLarge(_))), "a fourth of at most three: {e:?}");
    let e = store.twin.insert_sensor(&sensor(&t, "temp-a", None), 10).await.unwrap_err();
    assert_eq!(crate::common::conflict_code(&e), Some("sensor_exists"));
    // The cap is per twin, and so are the ids.
    store.twin.insert_sensor(&sensor(&u, "temp-a", None), 1).await?;

    let ids = |rows: Vec<SensorRow>| rows.into_iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(ids(store.twin.list_sensors(&t.id).await?), ["door", "temp-a", "temp-c"]);
    assert_eq!(ids(store.twin.feature_sensors(&t.id, "bldg-1").await?), ["temp-a", "temp-c"]);
    assert!(store.twin.feature_sensors(&t.id, "bldg-9").await?.is_empty());
    let s = sensor(&t, "temp-c", Some("bldg-1"));
    let got = store.twin.get_sensor(&t.id, "temp-c").await?.unwrap();
    assert_eq!((&got.twin_id, &got.account_id, &got.feature_id, &got.body), (&s.twin_id, &a, &s.feature_id, &s.body));
    assert_eq!(store.twin.get_sensor(&t.id, "temp-d").await?, None);

    store.twin.insert_readings(&t.id, vec![at("temp-a", 10, "20.5"), at("temp-c", 10, "21")]).await?;
    store.twin.insert_readings(&u.id, vec![at("temp-a", 10, "5")]).await?;
    assert!(store.twin.delete_sensor(&t.id, "temp-a").await?);
    assert!(!store.twin.delete_sensor(&t.id, "temp-a").await?, "deleting twice");
    assert_eq!(store.twin.get_sensor(&t.id, "temp-a").await?, None);
    assert_eq!(store.twin.readings_between(&t.id, 0, 100, 10, false).await?, vec![row("temp-c", 10, "21")]);
    // The other twin's sensor of the same id keeps its readings.
    assert_eq!(store.twin.readings(&u.id, "temp-a", 0, 100, 10).await?, vec![row("temp-a", 10, "5")]);
    // There is room again.
    store.twin.insert_sensor(&sensor(&t, "temp-d", None), 3).await?;
    assert_eq!(ids(store.twin.list_sensors(&t.id).await?), ["door", "temp-c", "temp-d"]);
    Ok(())
}

#[tokio::test]
async fn readings_at_client_instants_replace_on_retry_and_read_back_in_time_order() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "twin-r@example.com").await?;
    let t = twin(&a, "depot", 1_000);
    store.twin.insert_twin(&t, &[]).await?;
    for id in ["door", "temp"] {
        store.twin.insert_sensor(&sensor(&t, id, None), 10).await?;
    }
    let batch =
        vec![at("temp", 1_000, "20"), at("temp", 2_000, "21"), at("door", 1_500, "true"), at("temp", 3_000, "22")];
    let stored = store.twin.insert_readings(&t.id, batch.clone()).await?;
    assert_eq!(stored.replaced, 0);
    assert_eq!(stored.rows, batch.iter().map(|r| r.row.clone()).collect::<Vec<_>>(), "in the order given");

    // A retry of the batch, one value corrected: every reading replaces its twin, none is added.
    let mut retry = batch.clone();
    retry[1] = at("temp", 2_000, "21.5");
    let stored = store.twin.insert_readings(&t.id, retry).await?;
    assert_eq!(stored.replaced, 4);
    let all = store.twin.readings_between(&t.id, i64::MIN, i64::MAX, 100, false).await?;
    assert_eq!(all.len(), 4, "nothing stored twice: {all:?}");
    assert_eq!(
        store.twin.readings(&t.id, "temp", 0, 10_000, 10).await?,
        vec![row("temp", 1_000, "20"), row("temp", 2_000, "21.5"), row("temp", 3_000, "22")],
        "oldest first, the retry's value kept"
    );
    // Both ends are inclusive, and the limit keeps the oldest.
    assert_eq!(store.twin.readings(&t.id, "temp", 1_000, 2_000, 10).await?.len(), 2);
    assert_eq!(store.twin.readings(&t.id, "temp", 0, 10_000, 1).await?, vec![row("temp", 1_000, "20")]);

    // Across sensors: after < ts <= to, in time then sensor order, or the reverse.
    store.twin.insert_readings(&t.id, vec![at("door", 3_000, "false")]).await?;
    let asc = store.twin.readings_between(&t.id, 1_000, 3_000, 10, false).await?;
    assert_eq!(
        asc,
        vec![
            row("door", 1_500, "true"),
            row("temp", 2_000, "21.5"),
            row("door", 3_000, "false"),
            row("temp", 3_000, "22")
        ]
    );
    let mut desc = store.twin.readings_between(&t.id, 1_000, 3_000, 10, true).await?;
    desc.reverse();
    assert_eq!(desc, asc, "descending is the same readings newest first");
    let newest = store.twin.readings_between(&t.id, 1_000, 3_000, 2, true).await?;
    assert_eq!(newest, vec![row("temp", 3_000, "22"), row("door", 3_000, "false")], "the limit keeps the newest");
    assert_eq!(store.twin.readings_between(&t.id, 0, 1_499, 10, false).await?, vec![row("temp", 1_000, "20")]);
    Ok(())
}

#[tokio::test]
async fn stamped_readings_take_the_next_free_instant_and_never_replace() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "twin-st@example.com").await?;
    let t = twin(&a, "yard", 1_000);
    store.twin.insert_twin(&t, &[]).await?;
    store.twin.insert_sensor(&sensor(&t, "temp", None), 10).await?;
    store.twin.insert_readings(&t.id, vec![at("temp", 5_000, "1"), at("temp", 5_001, "2")]).await?;

    // Two stamped in the same millisecond as the client's readings: both stay, after them.
    let stored = store
        .twin
        .insert_readings(
            &t.id,
            vec![stamped("temp", 5_000, "3"), stamped("temp", 5_000, "4"), stamped("temp", 9_000, "5")],
        )
        .await?;
    assert_eq!(stored.replaced, 0);
    assert_eq!(stored.rows, vec![row("temp", 5_002, "3"), row("temp", 5_003, "4"), row("temp", 9_000, "5")]);
    let values: Vec<String> =
        store.twin.readings(&t.id, "temp", 0, 10_000, 10).await?.into_iter().map(|r| r.value).collect();
    assert_eq!(values, ["1", "2", "3", "4", "5"]);
    Ok(())
}

#[tokio::test]
async fn latest_readings_downsampling_and_purging_follow_the_instants() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "twin-d@example.com").await?;
    let t = twin(&a, "mill", 1_000);
    store.twin.insert_twin(&t, &[]).await?;
    for id in ["door", "idle", "temp"] {
        store.twin.insert_sensor(&sensor(&t, id, None), 10).await?;
    }
    let readings = vec![
        at("temp", 1_000, "1"),
        at("temp", 1_500, "3"),
        at("temp", 2_500, "10"),
        at("temp", 4_200, "-2.5"),
        at("door", 1_100, "\"open\""),
        at("door", 1_900, "\"closed\""),
        at("door", 3_000, "\"open\""),
    ];
    store.twin.insert_readings(&t.id, readings).await?;

    // Each sensor's latest at or before the instant; a sensor with none yet is left out.
    assert_eq!(
        store.twin.latest_readings(&t.id, 2_000).await?,
        vec![row("door", 1_900, "\"closed\""), row("temp", 1_500, "3")]
    );
    assert_eq!(store.twin.latest_readings(&t.id, 1_000).await?, vec![row("temp", 1_000, "1")]);
    assert!(store.twin.latest_readings(&t.id, 999).await?.is_empty());

    let q = Downsample { from: 0, to: 10_000, interval: 1_000, numeric: true, limit: 10 };
    let buckets = store.twin.downsample(&t.id, "temp", &q).await?;
    let got: Vec<_> = buckets.iter().map(|b| (b.ts, b.count, b.min, b.max, b.mean)).collect();
    assert_eq!(
        got,
        vec![
            (1_000, 2, Some(1.0), Some(3.0), Some(2.0)),
            (2_000, 1, Some(10.0), Some(10.0), Some(10.0)),
            (4_000, 1, Some(-2.5), Some(-2.5), Some(-2.5)),
        ],
        "empty buckets are left out"
    );
    let first = store.twin.downsample(&t.id, "temp", &Downsample { limit: 1, ..q }).await?;
    assert_eq!(first.iter().map(|b| b.ts).collect::<Vec<_>>(), [1_000], "at most `limit`, oldest first");
    // The bounds are inclusive and cut inside buckets.
    let cut = store.twin.downsample(&t.id, "temp", &Downsample { from: 1_500, to: 2_500, ..q }).await?;
    assert_eq!(cut.iter().map(|b| (b.ts, b.count)).collect::<Vec<_>>(), [(1_000, 1), (2_000, 1)]);
    // Other values: the count and the bucket's last value.
    let doors = store.twin.downsample(&t.id, "door", &Downsample { numeric: false, ..q }).await?;
    let got: Vec<_> = doors.iter().map(|b| (b.ts, b.count, b.last.as_deref())).collect();
    assert_eq!(got, vec![(1_000, 2, Some("\"closed\"")), (3_000, 1, Some("\"open\""))]);
    // Buckets are aligned on the epoch before 1970 too.
    store
        .twin
        .insert_readings(&t.id, vec![at("idle", -1, "1"), at("idle", -1_000, "2"), at("idle", -1_001, "4")])
        .await?;
    let old = store.twin.downsample(&t.id, "idle", &Downsample { from: -10_000, to: 0, ..q }).await?;
    let got: Vec<_> = old.iter().map(|b| (b.ts, b.count, b.mean)).collect();
    assert_eq!(got, vec![(-2_000, 1, Some(4.0)), (-1_000, 2, Some(1.5))]);

    assert_eq!(
        store.twin.purge_readings(&t.id, 2_500).await?,
        7,
        "ts < 2500: doors 1100, 1900, temps 1000, 1500 and the three idle ones"
    );
    assert_eq!(store.twin.readings_between(&t.id, i64::MIN, i64::MAX, 100, false).await?.len(), 3);
    assert_eq!(store.twin.purge_readings(&t.id, 2_500).await?, 0);
    Ok(())
}

#[tokio::test]
async fn builds_are_found_by_stamp_and_pruned_to_the_most_recently_used() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "twin-b@example.com").await?;
    let t = twin(&a, "campus", 1_000);
    let u = twin(&a, "annex", 2_000);
    store.twin.insert_twin(&t, &[]).await?;
    store.twin.insert_twin(&u, &[]).await?;
    // Builds made in turn (a few ms apart so that their use times differ).
    for stamp in [10, 20, 30] {
        store.twin.put_build(&build(&t, stamp)).await?;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    store.twin.put_build(&build(&u, 10)).await?;
    tokio::time::sleep(Duration::from_millis(5)).await;
    // Reading a build marks it used, as putting it again does: 30 is now the one used longest ago.
    let found = store.twin.get_build(&t.id, 20).await?.unwrap();
    assert_eq!((found.stamp, &found.summary), (20, &build(&t, 20).summary));
    assert_eq!(store.twin.get_build(&t.id, 40).await?, None);
    tokio::time::sleep(Duration::from_millis(5)).await;
    store.twin.put_build(&build(&t, 10)).await?;
    assert_eq!(store.twin.prune_builds(&t.id, 2).await?, vec![30]);
    assert_eq!(store.twin.get_build(&t.id, 30).await?, None);
    assert!(store.twin.get_build(&t.id, 10).await?.is_some());
    assert!(store.twin.get_build(&t.id, 20).await?.is_some());
    assert!(store.twin.prune_builds(&t.id, 2).await?.is_empty(), "nothing more to forget");
    // Another twin's build of the same stamp is its own.
    assert!(store.twin.get_build(&u.id, 10).await?.is_some());
    let mut gone = store.twin.prune_builds(&t.id, 0).await?;
    gone.sort();
    assert_eq!(gone, vec![10, 20]);
    assert!(store.twin.get_build(&u.id, 10).await?.is_some());
    Ok(())
}

#[tokio::test]
async fn deleting_a_twin_takes_its_sensors_readings_and_builds_with_its_events() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "twin-x@example.com").await?;
    let (t, u) = (twin(&a, "gone", 1_000), twin(&a, "kept", 2_000));
    for x in [&t, &u] {
        store.twin.insert_twin(x, &[]).await?;
        store.twin.insert_sensor(&sensor(x, "temp", Some("bldg-1")), 10).await?;
        store.twin.insert_readings(&x.id, vec![at("temp", 1_000, "20"), at("temp", 2_000, "21")]).await?;
        store.twin.put_build(&build(x, 7)).await?;
    }

    let deleted = event(&a, "twin.deleted", 1);
    let e = store.twin.delete_twin(&a, &t.id, Some(5), std::slice::from_ref(&deleted)).await.unwrap_err();
    assert!(is_precondition_failed(&e), "{e:?}");
    assert!(!in_outbox(&store, &deleted).await?, "a refused deletion commits no event");
    assert!(store.twin.delete_twin(&a, &t.id, Some(1), std::slice::from_ref(&deleted)).await?);
    assert!(in_outbox(&store, &deleted).await?);

    assert_eq!(store.twin.get_twin(&a, &t.id).await?, None);
    assert_eq!(store.twin.find_twin(&t.id).await?, None);
    assert!(store.twin.list_sensors(&t.id).await?.is_empty());
    assert!(store.twin.feature_sensors(&t.id, "bldg-1").await?.is_empty());
    assert!(store.twin.readings_between(&t.id, i64::MIN, i64::MAX, 10, false).await?.is_empty());
    assert!(store.twin.readings(&t.id, "temp", i64::MIN, i64::MAX, 10).await?.is_empty());
    assert_eq!(store.twin.get_build(&t.id, 7).await?, None);
    assert_eq!(store.twin.list_twins(&a, page(10, 0)).await?.1, 1);

    // The other twin keeps all of its own.
    assert_eq!(store.twin.list_sensors(&u.id).await?.len(), 1);
    assert_eq!(store.twin.readings(&u.id, "temp", i64::MIN, i64::MAX, 10).await?.len(), 2);
    assert!(store.twin.get_build(&u.id, 7).await?.is_some());

    assert!(!store.twin.delete_twin(&a, &t.id, None, &[]).await?, "deleting twice");
    // Its id is free again.
    let mut reborn = twin(&a, "reborn", 3_000);
    reborn.id = t.id.clone();
    store.twin.insert_twin(&reborn, &[]).await?;
    assert!(store.twin.list_sensors(&t.id).await?.is_empty(), "a new twin of that id starts bare");
    Ok(())
}
