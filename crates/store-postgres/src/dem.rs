use crate::error::db;
use crate::PgDb;
use async_trait::async_trait;
use meridian_core::id::AccountId;
use meridian_core::page::Page;
use meridian_core::Timestamp;
use meridian_store::dem::DemDataset;
use meridian_store::repo::DemRepo;
use meridian_store::{Result, StoreError};
use sqlx::postgres::PgRow;
use sqlx::Row;

const COLUMNS: &str = "id, account_id, filename, size, info, created_at";

fn dataset(row: &PgRow) -> Result<DemDataset> {
    let info: String = row.try_get("info").map_err(db)?;
    Ok(DemDataset {
        id: row.try_get("id").map_err(db)?,
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        filename: row.try_get("filename").map_err(db)?,
        size: u64::try_from(row.try_get::<i64, _>("size").map_err(db)?)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
        info: serde_json::from_str(&info)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
    })
}

#[async_trait]
impl DemRepo for PgDb {
    async fn insert_dataset(&self, d: &DemDataset) -> Result<()> {
        let mut tx = self.write().await?;
        sqlx::query(
            "INSERT INTO dem_datasets (id, account_id, filename, size, info, created_at) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (account_id, id) DO NOTHING",
        )
        .bind(&d.id)
        .bind(d.account_id.as_str())
        .bind(&d.filename)
        .bind(i64::try_from(d.size).unwrap_or(i64::MAX))
        .bind(d.info.to_string())
        .bind(d.created_at.millis())
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn get_dataset(&self, account: &AccountId, id: &str) -> Result<Option<DemDataset>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM dem_datasets WHERE account_id = $1 AND id = $2"))
            .bind(account.as_str())
            .bind(id)
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(dataset).transpose()
    }

    async fn list_datasets(&self, account: &AccountId, page: Page) -> Result<(Vec<DemDataset>, u64)> {
        let anchor: Option<(i64, String)> = self
            .anchor(
                "SELECT created_at, id FROM dem_datasets WHERE account_id = $1 AND id = $2",
                account.as_str(),
                &page,
            )
            .await?;
        let (a_time, a_id) = anchor.clone().map_or((None, None), |(t, i)| (Some(t), Some(i)));
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM dem_datasets WHERE account_id = $1
             AND ($4::bigint IS NULL OR (created_at, id) < ($4, $5::text))
             ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
        ))
        .bind(account.as_str())
        .bind(i64::from(page.limit))
        .bind(page.skip(anchor.is_some()))
        .bind(a_time)
        .bind(a_id)
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        let total: i64 = sqlx::query_scalar("SELECT count(*) FROM dem_datasets WHERE account_id = $1")
            .bind(account.as_str())
            .fetch_one(self.read())
            .await
            .map_err(db)?;
        let found = rows.iter().map(dataset).collect::<Result<Vec<_>>>()?;
        Ok((found, u64::try_from(total).unwrap_or(0)))
    }

    async fn delete_dataset(&self, account: &AccountId, id: &str) -> Result<bool> {
        let mut tx = self.write().await?;
        let gone = sqlx::query("DELETE FROM dem_datasets WHERE account_id = $1 AND id = $2")
            .bind(account.as_str())
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?
            .rows_affected();
        tx.commit().await.map_err(db)?;
        Ok(gone > 0)
    }
}
