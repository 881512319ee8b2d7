//! The point-cloud repository: rows with versions, their events committed with them, per account.

use crate::common::{conflict_code, create_account, event, is_not_found, open, page, TestResult};
use meridian_core::id::AccountId;
use meridian_core::{DomainError, Timestamp};
use meridian_store::pointcloud::PointCloudRow;
use meridian_store::StoreError;
use serde_json::json;

fn row(account: &AccountId, id: &str, at: i64) -> PointCloudRow {
    PointCloudRow {
        account_id: account.clone(),
        id: id.to_owned(),
        status: "indexing".into(),
        body: json!({"name": id, "file": {"points": 10}}),
        version: 1,
        created_at: Timestamp::from_millis(at),
        updated_at: Timestamp::from_millis(at),
    }
}

fn precondition_failed(e: &StoreError) -> bool {
    matches!(e, StoreError::Domain(DomainError::PreconditionFailed(_)))
}

#[tokio::test]
async fn point_clouds_keep_versions_events_and_tenants_apart() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "pc-a@example.com").await?;
    let b = create_account(&store, "pc-b@example.com").await?;
    store.pointcloud.insert_point_cloud(&row(&a, "pc_1", 1_000), &[event(&a, "pointcloud.uploaded", 1)]).await?;
    store.pointcloud.insert_point_cloud(&row(&a, "pc_2", 2_000), &[]).await?;
    // A taken id is a conflict, and its event is not committed.
    let taken =
        store.pointcloud.insert_point_cloud(&row(&a, "pc_1", 3_000), &[event(&a, "pointcloud.uploaded", 2)]).await;
    assert!(taken.as_ref().err().and_then(conflict_code).is_some(), "{taken:?}");
    let pending = store.outbox.pending(100).await?;
    assert_eq!(pending.iter().filter(|e| e.event_type == "pointcloud.uploaded").count(), 1);

    assert_eq!(store.pointcloud.get_point_cloud(&a, "pc_1").await?, Some(row(&a, "pc_1", 1_000)));
    let (listed, total) = store.pointcloud.list_point_clouds(&a, page(1, 0)).await?;
    assert_eq!((listed[0].id.as_str(), total), ("pc_2", 2));

    // Updates bump the version, under the version the caller saw when it names one.
    let ready = json!({"name": "pc_1", "file": {"points": 10}, "summary": {"bounds": [0, 0, 1, 1]}});
    let updated = store
        .pointcloud
        .update_point_cloud(&a, "pc_1", "ready", &ready, Some(1), &[event(&a, "pointcloud.indexed", 3)])
        .await?;
    assert_eq!((updated.status.as_str(), updated.version, &updated.body), ("ready", 2, &ready));
    let stale = store.pointcloud.update_point_cloud(&a, "pc_1", "failed", &json!({}), Some(1), &[]).await;
    assert!(stale.as_ref().is_err_and(precondition_failed), "{stale:?}");
    let anyway = store.pointcloud.update_point_cloud(&a, "pc_1", "classifying", &ready, None, &[]).await?;
    assert_eq!(anyway.version, 3);
    assert!(store.outbox.pending(100).await?.iter().any(|e| e.event_type == "pointcloud.indexed"));

    // Another account sees nothing and changes nothing.
    assert_eq!(store.pointcloud.get_point_cloud(&b, "pc_1").await?, None);
    assert_eq!(store.pointcloud.list_point_clouds(&b, page(10, 0)).await?.1, 0);
    let theirs = store.pointcloud.update_point_cloud(&b, "pc_1", "ready", &ready, None, &[]).await;
    assert!(theirs.as_ref().is_err_and(is_not_found), "{theirs:?}");
    assert!(!store.pointcloud.delete_point_cloud(&b, "pc_1", None).await?);

    // Deleting under a stale version is refused; under the current one it goes.
    let stale = store.pointcloud.delete_point_cloud(&a, "pc_1", Some(2)).await;
    assert!(stale.as_ref().is_err_and(precondition_failed), "{stale:?}");
    assert!(store.pointcloud.delete_point_cloud(&a, "pc_1", Some(3)).await?);
    assert!(!store.pointcloud.delete_point_cloud(&a, "pc_1", None).await?);
    assert_eq!(store.pointcloud.list_point_clouds(&a, page(10, 0)).await?.1, 1);
    Ok(())
}
