//! The DEM repository: datasets recorded once, read, paged and forgotten per account.

use crate::common::{create_account, open, page, TestResult};
use meridian_core::id::AccountId;
use meridian_core::Timestamp;
use meridian_store::dem::DemDataset;
use serde_json::json;

pub(crate) fn dataset(account: &AccountId, id: &str, at: i64) -> DemDataset {
    DemDataset {
        id: id.to_owned(),
        account_id: account.clone(),
        filename: Some(format!("{id}.tif")),
        size: 1234,
        info: json!({"width": 10, "height": 20, "crs": "EPSG:2154"}),
        created_at: Timestamp::from_millis(at),
    }
}

#[tokio::test]
async fn datasets_are_recorded_once_paged_newest_first_and_kept_per_account() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "dem-a@example.com").await?;
    let b = create_account(&store, "dem-b@example.com").await?;
    for (k, id) in ["dem_1", "dem_2", "dem_3"].iter().enumerate() {
        store.dem.insert_dataset(&dataset(&a, id, 1_000 + k as i64)).await?;
    }
    // Recording an id again leaves the first record as it was.
    let mut again = dataset(&a, "dem_1", 9_999);
    again.size = 1;
    store.dem.insert_dataset(&again).await?;
    assert_eq!(store.dem.get_dataset(&a, "dem_1").await?, Some(dataset(&a, "dem_1", 1_000)));

    let (first, total) = store.dem.list_datasets(&a, page(2, 0)).await?;
    assert_eq!(total, 3);
    assert_eq!(first.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), ["dem_3", "dem_2"]);
    let (rest, _) = store.dem.list_datasets(&a, page(2, 2)).await?;
    assert_eq!(rest.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), ["dem_1"]);

    // Another account sees none of them, and cannot forget them.
    assert_eq!(store.dem.get_dataset(&b, "dem_1").await?, None);
    assert_eq!(store.dem.list_datasets(&b, page(10, 0)).await?.1, 0);
    assert!(!store.dem.delete_dataset(&b, "dem_1").await?);
    // The same id in another account is another dataset.
    store.dem.insert_dataset(&dataset(&b, "dem_1", 5)).await?;
    assert_eq!(store.dem.get_dataset(&b, "dem_1").await?.map(|d| d.account_id), Some(b.clone()));

    assert!(store.dem.delete_dataset(&a, "dem_1").await?);
    assert!(!store.dem.delete_dataset(&a, "dem_1").await?);
    assert_eq!(store.dem.get_dataset(&a, "dem_1").await?, None);
    assert_eq!(store.dem.list_datasets(&a, page(10, 0)).await?.1, 2);
    assert!(store.dem.get_dataset(&b, "dem_1").await?.is_some());
    Ok(())
}
