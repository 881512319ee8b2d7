//! The feature service without HTTP: write rules, identity, and the query engine's paging,
//! counts and index pushdown checked against plain in-memory evaluation.

use meridian_backends::StoreOptions;
use meridian_collections::{FeaturePage, FeatureService, ListQuery, Start, PARCELS};
use meridian_core::crs::Crs;
use meridian_core::id::{AccountId, ApiKeyId};
use meridian_core::{DomainError, Timestamp};
use meridian_features::cql2;
use meridian_features::geometry::Bbox;
use meridian_store::features::FeatureCollection;
use meridian_store::model::{Account, ApiKey};
use serde_json::{json, Value};
use std::time::Duration;

type TestResult<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

async fn setup(dir: &std::path::Path) -> TestResult<(FeatureService, AccountId)> {
    let store = meridian_backends::open(&StoreOptions {
        database_url: format!("sqlite://{}/m.db", dir.display()),
        blob_url: format!("file://{}/blobs", dir.display()),
        readers: 2,
        busy_timeout: Duration::from_secs(5),
        postgres: Default::default(),
    })
    .await?;
    let account = Account {
        id: AccountId::generate(),
        name: "Surveyor".into(),
        email: "s@example.com".into(),
        created_at: Timestamp::now(),
    };
    let id = ApiKeyId::generate();
    let key = ApiKey {
        hash: format!("hash-{}", id.as_str()),
        prefix: id.as_str()[..8].to_owned(),
        id,
        account_id: account.id.clone(),
        name: "first".into(),
        scopes: vec!["cadastre:write".parse()?],
        created_at: Timestamp::now(),
        expires_at: None,
        revoked_at: None,
    };
    store.accounts.create_account(&account, &key).await?;
    Ok((FeatureService::new(store), account.id))
}

fn square(x: f64, y: f64, size: f64, props: Value) -> Value {
    json!({"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[
        [x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]
    ]]}, "properties": props})
}

async fn make_collection(svc: &FeatureService, account: &AccountId, id: &str, bodies: Vec<Value>) -> TestResult {
    let now = Timestamp::now();
    let c = FeatureCollection {
        account_id: account.clone(),
        id: id.into(),
        title: id.into(),
        description: String::new(),
        created_at: now,
        updated_at: now,
    };
    svc.store().features.create_collection(&c, &[]).await?;
    let drafts = svc.drafts(bodies, Crs::Crs84, id).await?;
    svc.create_many(account, id, drafts).await?;
    Ok(())
}

/// Every page of a query, following cursors.
async fn all_pages(
    svc: &FeatureService,
    account: &AccountId,
    mut q: ListQuery,
) -> TestResult<(Vec<String>, Vec<FeaturePage>)> {
    let mut ids = Vec::new();
    let mut pages = Vec::new();
    loop {
        let page = svc.list(account, &q).await?;
        ids.extend(page.features.iter().map(|f| f.id.clone()));
        let next = page.next;
        pages.push(page);
        match next {
            Some(c) => q.start = Start::Cursor(c),
            None => return Ok((ids, pages)),
        }
        assert!(pages.len() < 10_000, "paging does not end");
    }
}

#[tokio::test]
async fn lot_and_plan_identity_holds_for_parcels_only() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (svc, account) = setup(dir.path()).await?;
    // A survey with several marks per lot: an ordinary collection may repeat (lot, plan).
    let marks = (0..3).map(|i| square(f64::from(i) * 0.01, 0.0, 0.001, json!({"lot": "7", "plan": "DP1"}))).collect();
    make_collection(&svc, &account, "marks", marks).await?;
    let q = ListQuery { collection: "marks".into(), limit: 10, ..ListQuery::default() };
    assert_eq!(svc.list(&account, &q).await?.features.len(), 3);

    let parcel = square(0.0, 0.0, 0.001, json!({"lot": "7", "plan": "DP1"}));
    let d = svc.draft(parcel.clone(), Crs::Crs84, PARCELS).await?;
    svc.create(&account, PARCELS, d).await?;
    let d = svc.draft(parcel, Crs::Crs84, PARCELS).await?;
    match svc.create(&account, PARCELS, d).await {
        Err(meridian_collections::Error::Store(meridian_store::StoreError::Domain(DomainError::Conflict {
            code,
            ..
        }))) => assert_eq!(code, "parcel_exists"),
        other => panic!("a second parcel 7/DP1 must conflict, got {other:?}"),
    }
    Ok(())
}

#[tokio::test]
async fn cursor_pages_cover_every_feature_once_with_exact_counts() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (svc, account) = setup(dir.path()).await?;
    // A 40 x 30 grid of small squares, 0.01 degrees apart.
    let bodies: Vec<Value> = (0..1200)
        .map(|i| {
            let (col, row) = (f64::from(i % 40), f64::from(i / 40));
            square(col * 0.01, row * 0.01, 0.004, json!({"n": i, "kind": if i % 3 == 0 { "a" } else { "b" }}))
        })
        .collect();
    make_collection(&svc, &account, "grid", bodies).await?;

    let q = ListQuery { collection: "grid".into(), limit: 100, ..ListQuery::default() };
    let (ids, pages) = all_pages(&svc, &account, q).await?;
    assert_eq!(ids.len(), 1200);
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 1200, "no feature twice");
    assert!(pages.iter().all(|p| p.number_matched == Some(1200)));
    assert_eq!(pages[3].offset, 300);
    // A list that starts at an offset continues by keyset, not by ever deeper offsets.
    let from_offset = svc
        .list(
            &account,
            &ListQuery { collection: "grid".into(), limit: 100, start: Start::Offset(500), ..ListQuery::default() },
        )
        .await?;
    let next = from_offset.next.ok_or("a next page")?;
    assert!(next.token().starts_with('a'), "{}", next.token());
    assert_eq!(next.offset, 600);
    // An offset past the end finds nothing and still counts right.
    let past = svc
        .list(
            &account,
            &ListQuery { collection: "grid".into(), limit: 10, start: Start::Offset(5000), ..ListQuery::default() },
        )
        .await?;
    assert_eq!((past.features.len(), past.number_matched, past.next), (0, Some(1200), None));

    // A box over columns 10..19 and rows 5..14 (edges cut through squares): an exact count
    // although the first page does not reach the end.
    let bbox = Bbox { min_x: 0.102, min_y: 0.052, max_x: 0.192, max_y: 0.142 };
    let q = ListQuery { collection: "grid".into(), bbox: Some(bbox), limit: 7, ..ListQuery::default() };
    let first = svc.list(&account, &q).await?;
    assert!(first.next.is_some());
    let (ids, _) = all_pages(&svc, &account, q.clone()).await?;
    // Squares span [c*0.01, c*0.01+0.004]: columns 10..=18 touch x in [0.102, 0.192] (column 19
    // starts at 0.19 and reaches 0.194: it touches too), rows likewise.
    let expected = (0..1200)
        .filter(|i| {
            let (c, r) = (f64::from(i % 40) * 0.01, f64::from(i / 40) * 0.01);
            c <= 0.192 && c + 0.004 >= 0.102 && r <= 0.142 && r + 0.004 >= 0.052
        })
        .count();
    assert_eq!(ids.len(), expected);
    assert_eq!(first.number_matched, Some(expected as u64));

    // An offset start skips matches, not candidates.
    let q2 = ListQuery { start: Start::Offset(5), ..q.clone() };
    let page = svc.list(&account, &q2).await?;
    assert_eq!(page.features[0].id, ids[5]);
    Ok(())
}

/// A box with more features on its edge than the count reads with its first trip: the count
/// reads on from where that trip stopped and still counts each feature once.
#[tokio::test]
async fn counts_with_a_long_edge_read_on_and_count_each_feature_once() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (svc, account) = setup(dir.path()).await?;
    // 1,500 squares on a row that the box's south edge cuts, 1,000 wholly inside it, and 300
    // outside it whose boxes are near the edge but do not touch it.
    let mut bodies: Vec<Value> =
        (0..1500).map(|i| square(f64::from(i) * 0.001, 0.0, 0.0005, json!({"n": i}))).collect();
    bodies.extend((0..1000).map(|i| square(f64::from(i) * 0.001, 0.01, 0.0005, json!({"n": i}))));
    bodies.extend((0..300).map(|i| square(f64::from(i) * 0.001, -0.01, 0.0005, json!({"n": i}))));
    make_collection(&svc, &account, "strips", bodies).await?;
    let bbox = Bbox { min_x: -1.0, min_y: 0.00025, max_x: 10.0, max_y: 1.0 };
    let q = ListQuery { collection: "strips".into(), bbox: Some(bbox), limit: 10, ..ListQuery::default() };
    let page = svc.list(&account, &q).await?;
    assert!(page.next.is_some());
    assert_eq!(page.number_matched, Some(2500));
    Ok(())
}

#[tokio::test]
async fn pushed_down_filters_match_plain_evaluation() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (svc, account) = setup(dir.path()).await?;
    // Values of mixed types under one key: strings, numbers, booleans, missing.
    let values = [json!("5"), json!(5), json!(5.5), json!(true), json!(false), json!("abc"), json!(1), Value::Null];
    let bodies: Vec<Value> = (0..240)
        .map(|i| {
            let v = values[i % values.len()].clone();
            let mut props = json!({"i": i, "tag": format!("t{}", i % 7)});
            if !v.is_null() {
                props["v"] = v;
            }
            square((i % 20) as f64 * 0.01, (i / 20) as f64 * 0.01, 0.005, props)
        })
        .collect();
    make_collection(&svc, &account, "mixed", bodies).await?;
    let everything =
        all_pages(&svc, &account, ListQuery { collection: "mixed".into(), limit: 1000, ..ListQuery::default() })
            .await?
            .0;
    assert_eq!(everything.len(), 240);

    for text in [
        "v = '5'",
        "v = 5",
        "v > 4",
        "v <= 5 AND tag = 't3'",
        "v <> 'abc'",
        "tag IN ('t1', 't2') AND i >= 100",
        "v = 5 OR tag = 't0'",
        "i < 50 AND v IS NULL",
        "tag LIKE 't%' AND i > 200",
    ] {
        let filter = cql2::parse_text(text).map_err(|e| e.0)?;
        let q =
            ListQuery { collection: "mixed".into(), filter: Some(filter.clone()), limit: 9, ..ListQuery::default() };
        let (ids, pages) = all_pages(&svc, &account, q).await?;
        // The same filter evaluated on every feature, one by one.
        let mut expected = Vec::new();
        for id in &everything {
            let f = svc.feature(&account, "mixed", id).await?;
            let mut props = f.properties.clone();
            props.insert("updated_at".into(), Value::String(f.updated_at.to_rfc3339()));
            let s = cql2::Subject { id: &f.id, properties: &props, geometry: None, geometry_name: "geometry" };
            if cql2::matches(&filter, &s) {
                expected.push(id.clone());
            }
        }
        assert_eq!(ids, expected, "filter {text}");
        assert_eq!(pages[0].number_matched, Some(expected.len() as u64), "count of {text}");
    }

    // Equality parameters (`?v=5`) take strings, numbers and booleans as text.
    for (value, want) in [("5", 60), ("true", 30), ("abc", 30)] {
        let q = ListQuery {
            collection: "mixed".into(),
            equals: vec![("v".into(), value.into())],
            limit: 7,
            ..ListQuery::default()
        };
        let (ids, _) = all_pages(&svc, &account, q).await?;
        assert_eq!(ids.len(), want, "v={value}");
    }
    Ok(())
}

#[tokio::test]
async fn sorted_pages_follow_the_sort_and_put_missing_values_last() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (svc, account) = setup(dir.path()).await?;
    let bodies: Vec<Value> = (0..150)
        .map(|i| {
            let props = if i % 10 == 0 { json!({"i": i}) } else { json!({"i": i, "rank": (i * 37) % 101}) };
            square(f64::from(i) * 0.001, 0.0, 0.0005, props)
        })
        .collect();
    make_collection(&svc, &account, "ranked", bodies).await?;
    let q = ListQuery {
        collection: "ranked".into(),
        sortby: vec![("rank".into(), false), ("i".into(), true)],
        limit: 11,
        ..ListQuery::default()
    };
    let (ids, pages) = all_pages(&svc, &account, q).await?;
    assert_eq!(ids.len(), 150);
    assert!(pages.iter().all(|p| p.number_matched == Some(150)));
    let mut ranks = Vec::new();
    for id in &ids {
        let f = svc.feature(&account, "ranked", id).await?;
        ranks.push((f.properties.get("rank").and_then(Value::as_i64), f.properties["i"].as_i64().unwrap_or(-1)));
    }
    let mut sorted = ranks.clone();
    sorted.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => x.cmp(&y).then(b.1.cmp(&a.1)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => b.1.cmp(&a.1),
    });
    assert_eq!(ranks, sorted);
    Ok(())
}

#[tokio::test]
async fn retired_features_leave_counts_and_indexes() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (svc, account) = setup(dir.path()).await?;
    let bodies = (0..10).map(|i| square(f64::from(i) * 0.01, 0.0, 0.005, json!({"k": "x"}))).collect();
    make_collection(&svc, &account, "c", bodies).await?;
    let q = ListQuery { collection: "c".into(), limit: 100, ..ListQuery::default() };
    let features = svc.list(&account, &q).await?.take_features()?;
    svc.retire(&features[0], None).await?;
    let patched = svc.patch(&features[1], &json!({"properties": {"k": "y"}}), Crs::Crs84, None).await?;
    assert_eq!(patched.version, 2);
    assert_eq!(svc.list(&account, &ListQuery { limit: 3, ..q.clone() }).await?.number_matched, Some(9));
    let kx = ListQuery { filter: Some(cql2::parse_text("k = 'x'").map_err(|e| e.0)?), ..q.clone() };
    assert_eq!(svc.list(&account, &kx).await?.features.len(), 8);
    Ok(())
}

#[tokio::test]
async fn uploaded_collections_can_be_deleted_and_parcels_cannot() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (svc, account) = setup(dir.path()).await?;
    let bodies = (0..5).map(|i| square(f64::from(i) * 0.01, 0.0, 0.005, json!({"k": "x"}))).collect();
    make_collection(&svc, &account, "gone", bodies).await?;
    let c = svc.collection(&account, "gone").await?;
    let stale = c.updated_at.millis() - 1;
    assert!(matches!(
        svc.delete_collection(&account, "gone", Some(stale)).await,
        Err(meridian_collections::Error::Store(meridian_store::StoreError::Domain(DomainError::PreconditionFailed(_))))
    ));
    svc.delete_collection(&account, "gone", Some(c.updated_at.millis())).await?;
    assert!(svc.collection(&account, "gone").await.is_err());
    // The id is free again, with nothing left of the old features.
    make_collection(&svc, &account, "gone", vec![square(0.0, 0.0, 0.005, json!({"k": "y"}))]).await?;
    let q = ListQuery { collection: "gone".into(), limit: 100, ..ListQuery::default() };
    let page = svc.list(&account, &q).await?;
    assert_eq!((page.features.len(), page.number_matched), (1, Some(1)));
    let kx = ListQuery { filter: Some(cql2::parse_text("k = 'x'").map_err(|e| e.0)?), ..q };
    assert_eq!(svc.list(&account, &kx).await?.number_matched, Some(0));
    match svc.delete_collection(&account, PARCELS, None).await {
        Err(meridian_collections::Error::Domain(DomainError::Conflict { code, .. })) => {
            assert_eq!(code, "collection_protected")
        }
        other => panic!("the parcels collection must be protected: {other:?}"),
    }
    Ok(())
}
