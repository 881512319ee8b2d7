use crate::error::db;
use crate::error::taken;
use crate::PgDb;
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::id::AccountId;
use meridian_core::page::Page;
use meridian_core::{DomainError, Timestamp};
use meridian_store::pointcloud::PointCloudRow;
use meridian_store::repo::PointCloudRepo;
use meridian_store::Result;
use sqlx::postgres::PgRow;
use sqlx::Row;

const COLUMNS: &str = "account_id, id, status, body, version, created_at, updated_at";

fn row_of(row: &PgRow) -> Result<PointCloudRow> {
    let body: String = row.try_get("body").map_err(db)?;
    Ok(PointCloudRow {
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        id: row.try_get("id").map_err(db)?,
        status: row.try_get("status").map_err(db)?,
        body: serde_json::from_str(&body)?,
        version: row.try_get("version").map_err(db)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
    })
}

#[async_trait]
impl PointCloudRepo for PgDb {
    async fn insert_point_cloud(&self, r: &PointCloudRow, events: &[NewEvent]) -> Result<()> {
        let mut tx = self.write().await?;
        sqlx::query(&format!("INSERT INTO pc_datasets ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)"))
            .bind(r.account_id.as_str())
            .bind(&r.id)
            .bind(&r.status)
            .bind(r.body.to_string())
            .bind(r.version)
            .bind(r.created_at.millis())
            .bind(r.updated_at.millis())
            .execute(&mut *tx)
            .await
            .map_err(|e| taken(e, "point cloud", &r.id))?;
        self.commit_with_events(tx, events).await?;
        Ok(())
    }

    async fn get_point_cloud(&self, account: &AccountId, id: &str) -> Result<Option<PointCloudRow>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM pc_datasets WHERE account_id = $1 AND id = $2"))
            .bind(account.as_str())
            .bind(id)
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(row_of).transpose()
    }

    async fn list_point_clouds(&self, account: &AccountId, page: Page) -> Result<(Vec<PointCloudRow>, u64)> {
        let anchor: Option<(i64, String)> = self
            .anchor("SELECT created_at, id FROM pc_datasets WHERE account_id = $1 AND id = $2", account.as_str(), &page)
            .await?;
        let (a_time, a_id) = anchor.clone().map_or((None, None), |(t, i)| (Some(t), Some(i)));
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM pc_datasets WHERE account_id = $1
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
        let total: i64 = sqlx::query_scalar("SELECT count(*) FROM pc_datasets WHERE account_id = $1")
            .bind(account.as_str())
            .fetch_one(self.read())
            .await
            .map_err(db)?;
        let found = rows.iter().map(row_of).collect::<Result<Vec<_>>>()?;
        Ok((found, u64::try_from(total).unwrap_or(0)))
    }

    async fn update_point_cloud(
        &self,
        account: &AccountId,
        id: &str,
        status: &str,
        body: &serde_json::Value,
        expected: Option<i64>,
        events: &[NewEvent],
    ) -> Result<PointCloudRow> {
        let mut tx = self.write().await?;
        let version: Option<i64> =
            sqlx::query_scalar("SELECT version FROM pc_datasets WHERE account_id = $1 AND id = $2 FOR UPDATE")
                .bind(account.as_str())
                .bind(id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db)?;
        let Some(version) = version else { return Err(DomainError::not_found("point cloud", id).into()) };
        if expected.is_some_and(|e| e != version) {
            return Err(DomainError::PreconditionFailed(format!("point cloud {id} is at version {version}")).into());
        }
        let row = sqlx::query(&format!(
            "UPDATE pc_datasets SET status = $1, body = $2, version = version + 1, updated_at = $3
             WHERE account_id = $4 AND id = $5 RETURNING {COLUMNS}"
        ))
        .bind(status)
        .bind(body.to_string())
        .bind(Timestamp::now().millis())
        .bind(account.as_str())
        .bind(id)
        .fetch_one(&mut *tx)
        .await
        .map_err(db)?;
        let updated = row_of(&row)?;
        self.commit_with_events(tx, events).await?;
        Ok(updated)
    }

    async fn delete_point_cloud(&self, account: &AccountId, id: &str, expected: Option<i64>) -> Result<bool> {
        let mut tx = self.write().await?;
        let version: Option<i64> =
            sqlx::query_scalar("SELECT version FROM pc_datasets WHERE account_id = $1 AND id = $2 FOR UPDATE")
                .bind(account.as_str())
                .bind(id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db)?;
        let Some(version) = version else { return Ok(false) };
        if expected.is_some_and(|e| e != version) {
            return Err(DomainError::PreconditionFailed(format!("point cloud {id} is at version {version}")).into());
        }
        sqlx::query("DELETE FROM pc_datasets WHERE account_id = $1 AND id = $2")
            .bind(account.as_str())
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(true)
    }
}
