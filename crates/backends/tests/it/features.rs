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

/// A box's count in one go: the features it holds wholly are counted, those on its edge come
/// back in insertion order (at most `first` of them), and retired features, other collections
/// and other accounts are in neither.
#[tokio::test]
async fn a_count_by_box_counts_the_inside_and_reads_the_edge() -> TestResult {
    use meridian_store::features::FeatureQuery;
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "a@example.com").await?;
    let b = create_account(&store, "b@example.com").await?;
    let fs = &store.features;
    let square = |account: &AccountId, coll: &str, n: u32, x: f64, y: f64| {
        let mut f = point(account, coll, n, x, y, 1_000);
        f.geometry = Some(
            json!({"type": "Polygon", "coordinates": [[[x, y], [x + 1.0, y], [x + 1.0, y + 1.0], [x, y + 1.0], [x, y]]]}),
        );
        f.bbox = Some([x, y, x + 1.0, y + 1.0]);
        f
    };
    // The box is [0, 0, 10, 10]: squares at 2 and 5 are inside, those at -0.5 and 9.5 cross
    // its edge, the one at 20 lies outside.
    let features = [
        square(&a, "plots", 1, 2.0, 2.0),
        square(&a, "plots", 2, -0.5, 4.0),
        square(&a, "plots", 3, 5.0, 5.0),
        square(&a, "plots", 4, 9.5, 9.5),
        square(&a, "plots", 5, 20.0, 20.0),
        square(&a, "plots", 6, 4.0, -0.5),
        square(&a, "plots", 7, 6.0, 6.0),
    ];
    fs.create_collection(&collection(&a, "plots"), &features).await?;
    fs.create_collection(&collection(&a, "other"), &[square(&a, "other", 8, 3.0, 3.0)]).await?;
    fs.create_collection(&collection(&b, "plots"), &[square(&b, "plots", 9, 3.0, -0.5)]).await?;
    fs.retire_feature(&a, "plots", &format!("f7-{}", a.as_str()), None, None).await?;

    let q = FeatureQuery { collection: "plots".into(), bbox: Some([0.0, 0.0, 10.0, 10.0]), ..Default::default() };
    let ids = |v: &[meridian_store::features::ScannedFeature]| -> Vec<String> {
        v.iter().map(|s| s.feature.id.trim_end_matches(&format!("-{}", a.as_str())).to_owned()).collect()
    };
    let (inside, edge) = fs.count_inside_scan_edge(&a, &q, 100).await?;
    assert_eq!(inside, 2, "squares 1 and 3 (7 is retired)");
    assert_eq!(ids(&edge), ["f2", "f4", "f6"], "the edge in insertion order");
    assert!(edge.windows(2).all(|w| w[0].seq < w[1].seq));
    assert_eq!(edge[0].feature.bbox, Some([-0.5, 4.0, 0.5, 5.0]));

    let (inside, edge) = fs.count_inside_scan_edge(&a, &q, 2).await?;
    assert_eq!((inside, ids(&edge)), (2, vec!["f2".to_owned(), "f4".to_owned()]), "no more than `first`");

    // A box with nothing on its edge still gives its count; one with nothing at all gives 0.
    let all = FeatureQuery { bbox: Some([-10.0, -10.0, 30.0, 30.0]), ..q.clone() };
    let (inside, edge) = fs.count_inside_scan_edge(&a, &all, 100).await?;
    assert_eq!((inside, edge.len()), (6, 0));
    let empty = FeatureQuery { bbox: Some([100.0, 100.0, 110.0, 110.0]), ..q.clone() };
    assert_eq!(fs.count_inside_scan_edge(&a, &empty, 100).await?.0, 0);
    assert!(fs.count_inside_scan_edge(&a, &empty, 100).await?.1.is_empty());
    Ok(())
}
