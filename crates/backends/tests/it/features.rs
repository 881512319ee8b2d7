use crate::common::{create_account, open, TestResult};
use meridian_core::id::AccountId;
use meridian_core::Timestamp;
use meridian_store::features::{Extent, Feature, FeatureCollection};
use serde_json::{json, Map};

fn collection(account: &AccountId, id: &str) -> FeatureCollection {
    let now = Timestamp::now();
    FeatureCollection {
        account_id: account.clone(),
        id: id.to_owned(),
        title: id.to_owned(),
        description: String::new(),
        created_at: now,
        updated_at: now,
    }
}

fn point(account: &AccountId, collection: &str, n: u32, x: f64, y: f64, at: i64) -> Feature {
    Feature {
        id: format!("f{n}-{}", account.as_str()),
        account_id: account.clone(),
        collection: collection.to_owned(),
        geometry: Some(json!({"type": "Point", "coordinates": [x, y]})),
        properties: Map::new(),
        bbox: Some([x, y, x, y]),
        version: 1,
        created_at: Timestamp::from_millis(at),
        updated_at: Timestamp::from_millis(at),
        retired_at: None,
    }
}

#[tokio::test]
async fn extents_follow_inserts_updates_and_retirements() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "a@example.com").await?;
    let b = create_account(&store, "b@example.com").await?;
    let fs = &store.features;

    fs.create_collection(&collection(&a, "sites"), &[point(&a, "sites", 1, 1.0, 2.0, 1_000)]).await?;
    fs.create_collection(&collection(&b, "sites"), &[point(&b, "sites", 1, -50.0, -50.0, 5)]).await?;
    let e = fs.collection_extent(&a, "sites").await?;
    assert_eq!(e, Extent { bbox: Some([1.0, 2.0, 1.0, 2.0]), updated: Some((1_000, 1_000)) });
    // Kept: the same answer again.
    assert_eq!(fs.collection_extent(&a, "sites").await?, e);

    fs.insert_features(&[point(&a, "sites", 2, 10.0, -3.0, 2_000)], &[]).await?;
    let e = fs.collection_extent(&a, "sites").await?;
    assert_eq!(e, Extent { bbox: Some([1.0, -3.0, 10.0, 2.0]), updated: Some((1_000, 2_000)) });

    // Retiring the feature that made the east and south edges shrinks the extent again.
    let f2 = format!("f2-{}", a.as_str());
    fs.retire_feature(&a, "sites", &f2, None, None).await?;
    let e = fs.collection_extent(&a, "sites").await?;
    assert_eq!(e.bbox, Some([1.0, 2.0, 1.0, 2.0]));
    assert_eq!(e.updated, Some((1_000, 1_000)));

    // Moving the last feature moves the extent.
    let f1 = format!("f1-{}", a.as_str());
    let mut moved = point(&a, "sites", 1, 4.0, 5.0, 3_000);
    moved.version = 2;
    fs.update_feature(&moved, 1, None, None).await?;
    let e = fs.collection_extent(&a, "sites").await?;
    assert_eq!(e, Extent { bbox: Some([4.0, 5.0, 4.0, 5.0]), updated: Some((3_000, 3_000)) });

    // The other account's collection of the same name is its own.
    assert_eq!(fs.collection_extent(&b, "sites").await?.bbox, Some([-50.0, -50.0, -50.0, -50.0]));

    // Empty, and unknown collections, have no extent.
    fs.retire_feature(&a, "sites", &f1, None, None).await?;
    assert_eq!(fs.collection_extent(&a, "sites").await?, Extent { bbox: None, updated: None });
    assert_eq!(fs.collection_extent(&a, "nothing").await?, Extent { bbox: None, updated: None });

    // Inserts into a collection that was empty, with no read in between, grow the extent kept
    // from nothing (a bulk load in batches): it is the union of the batches.
    fs.ensure_collection(&collection(&a, "loaded")).await?;
    fs.insert_features(&[point(&a, "loaded", 3, 7.0, 7.0, 4_000), point(&a, "loaded", 4, 8.0, 6.0, 4_000)], &[])
        .await?;
    fs.insert_features(&[point(&a, "loaded", 5, -2.0, 9.0, 5_000)], &[]).await?;
    let e = fs.collection_extent(&a, "loaded").await?;
    assert_eq!(e, Extent { bbox: Some([-2.0, 6.0, 8.0, 9.0]), updated: Some((4_000, 5_000)) });
    Ok(())
}

/// An import in batches is invisible until it is finished, and a batch that fails takes the
/// whole import with it (no half collection); an import left by a dead process is replaced by
/// the next one, while a finished collection of that id is a conflict.
#[tokio::test]
async fn imports_in_batches_are_all_or_nothing_and_hidden_until_finished() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "imports@example.com").await?;
    let fs = &store.features;
    let batch = |from: u32| (from..from + 10).map(|n| point(&a, "trees", n, 1.0, 2.0, 1_000)).collect::<Vec<_>>();

    fs.begin_import(&collection(&a, "trees")).await?;
    fs.import_features(&a, "trees", &batch(0)).await?;
    assert!(fs.get_collection(&a, "trees").await?.is_none(), "hidden while importing");
    assert!(fs.list_collections(&a).await?.is_empty());
    // A later batch fails (a feature id already taken): the import is removed whole.
    assert!(fs.import_features(&a, "trees", &batch(5)).await.is_err());
    fs.abort_import(&a, "trees").await?;
    assert!(fs.get_collection(&a, "trees").await?.is_none());
    assert!(fs.get_feature(&a, "trees", &format!("f0-{}", a.as_str())).await?.is_none(), "no feature left behind");

    // A dead process's import is replaced; the finished one is visible with every feature.
    fs.begin_import(&collection(&a, "trees")).await?;
    fs.import_features(&a, "trees", &batch(0)).await?;
    fs.begin_import(&collection(&a, "trees")).await?;
    for from in [0, 10, 20] {
        fs.import_features(&a, "trees", &batch(from)).await?;
    }
    fs.finish_import(&a, "trees").await?;
    assert!(fs.get_collection(&a, "trees").await?.is_some());
    assert_eq!(fs.list_collections(&a).await?.len(), 1);
    let e = fs.collection_extent(&a, "trees").await?;
    assert_eq!(e.bbox, Some([1.0, 2.0, 1.0, 2.0]));
    let err = fs.begin_import(&collection(&a, "trees")).await.err().ok_or("a finished collection was replaced")?;
    assert!(err.to_string().contains("already exists"), "{err}");
    Ok(())
}
