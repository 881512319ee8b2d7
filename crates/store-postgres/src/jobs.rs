use crate::error::db;
use crate::{refuse, ts, PgDb};
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::id::{AccountId, JobId};
use meridian_core::page::Page;
use meridian_core::{DomainError, Timestamp};
use meridian_store::model::{Heartbeat, Job, JobStatus, NewJob};
use meridian_store::repo::JobRepo;
use meridian_store::{Result, StoreError};
use serde_json::Value;
use sqlx::postgres::PgRow;
use sqlx::Row;
use std::time::Duration;

const COLUMNS: &str = "id, account_id, kind, status, params, progress, attempts, max_attempts, run_at, lease_owner,
    lease_expires_at, cancel_requested, output, error, created_at, started_at, finished_at, updated_at";

fn json(text: Option<String>) -> Result<Option<Value>> {
    text.map(|t| serde_json::from_str(&t)).transpose().map_err(Into::into)
}

fn job_from_row(row: &PgRow) -> Result<Job> {
    let status: String = row.try_get("status").map_err(db)?;
    Ok(Job {
        id: JobId(row.try_get("id").map_err(db)?),
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        kind: row.try_get("kind").map_err(db)?,
        status: JobStatus::parse(&status).ok_or_else(|| StoreError::Corrupt(format!("job status {status}")))?,
        params: serde_json::from_str(&row.try_get::<String, _>("params").map_err(db)?)?,
        progress: row.try_get::<i64, _>("progress").map_err(db)?.clamp(0, 100) as u8,
        attempts: row.try_get::<i64, _>("attempts").map_err(db)? as u32,
        max_attempts: row.try_get::<i64, _>("max_attempts").map_err(db)? as u32,
        run_at: Timestamp::from_millis(row.try_get("run_at").map_err(db)?),
        lease_owner: row.try_get("lease_owner").map_err(db)?,
        lease_expires_at: ts(row.try_get("lease_expires_at").map_err(db)?),
        cancel_requested: row.try_get::<i64, _>("cancel_requested").map_err(db)? != 0,
        output: json(row.try_get("output").map_err(db)?)?,
        error: json(row.try_get("error").map_err(db)?)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        started_at: ts(row.try_get("started_at").map_err(db)?),
        finished_at: ts(row.try_get("finished_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
    })
}

#[async_trait]
impl JobRepo for PgDb {
    async fn submit(&self, job: NewJob) -> Result<Job> {
        let id = JobId::generate();
        let now = Timestamp::now().millis();
        let mut tx = self.write().await?;
        let row = sqlx::query(&format!(
            "INSERT INTO jobs (id, account_id, kind, status, params, max_attempts, run_at, created_at, updated_at)
             VALUES ($1, $2, $3, 'queued', $4, $5, $6, $7, $8) RETURNING {COLUMNS}"
        ))
        .bind(id.as_str())
        .bind(job.account_id.as_str())
        .bind(&job.kind)
        .bind(serde_json::to_string(&job.params)?)
        .bind(i64::from(job.max_attempts.max(1)))
        .bind(now)
        .bind(now)
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .map_err(db)?;
        self.commit_with_jobs(tx).await?;
        job_from_row(&row)
    }

    async fn purge_finished(&self, before: Timestamp, limit: u32) -> Result<Vec<Job>> {
        let mut tx = self.write().await?;
        let rows = sqlx::query(&format!(
            "DELETE FROM jobs WHERE id IN (
                 SELECT id FROM jobs WHERE status IN ('succeeded', 'failed', 'cancelled') AND finished_at < $1 LIMIT $2)
             RETURNING {COLUMNS}"
        ))
        .bind(before.millis())
        .bind(i64::from(limit))
        .fetch_all(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        rows.iter().map(job_from_row).collect()
    }

    async fn get_job(&self, account: &AccountId, id: &JobId) -> Result<Option<Job>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM jobs WHERE account_id = $1 AND id = $2"))
            .bind(account.as_str())
            .bind(id.as_str())
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(job_from_row).transpose()
    }

    async fn list_jobs(&self, account: &AccountId, kind: Option<&str>, page: Page) -> Result<(Vec<Job>, u64)> {
        // Newest first by insertion order (`seq`): ids sort by time only to the millisecond.
        let anchor: Option<(i64,)> =
            self.anchor("SELECT seq FROM jobs WHERE account_id = $1 AND id = $2", account.as_str(), &page).await?;
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM jobs WHERE account_id = $1 AND ($2 IS NULL OR kind = $2)
             AND ($5::bigint IS NULL OR seq < $5) ORDER BY seq DESC LIMIT $3 OFFSET $4"
        ))
        .bind(account.as_str())
        .bind(kind)
        .bind(i64::from(page.limit))
        .bind(page.skip(anchor.is_some()))
        .bind(anchor.map(|a| a.0))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        let total: i64 =
            sqlx::query_scalar("SELECT count(*) FROM jobs WHERE account_id = $1 AND ($2 IS NULL OR kind = $2)")
                .bind(account.as_str())
                .bind(kind)
                .fetch_one(self.read())
                .await
                .map_err(db)?;
        Ok((rows.iter().map(job_from_row).collect::<Result<_>>()?, total as u64))
    }

    async fn claim(&self, kinds: &[String], worker: &str, lease: Duration) -> Result<Option<Job>> {
        if kinds.is_empty() {
            return Ok(None);
        }
        let now = Timestamp::now();
        let mut tx = self.write().await?;
        let row = sqlx::query(&format!(
            "UPDATE jobs SET status = 'running', lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1,
                 started_at = coalesce(started_at, $3), updated_at = $3
             WHERE id = (
                 SELECT id FROM jobs
                 WHERE kind = ANY($4)
                   AND ((status = 'queued' AND run_at <= $3) OR (status = 'running' AND lease_expires_at < $3))
                 ORDER BY run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
             RETURNING {COLUMNS}"
        ))
        .bind(worker)
        .bind(now.plus(lease).millis())
        .bind(now.millis())
        .bind(kinds)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        row.as_ref().map(job_from_row).transpose()
    }

    async fn heartbeat(&self, id: &JobId, worker: &str, lease: Duration, progress: Option<u8>) -> Result<Heartbeat> {
        let now = Timestamp::now();
        let mut tx = self.write().await?;
        let row: Option<(i64,)> = sqlx::query_as(
            "UPDATE jobs SET lease_expires_at = $1, progress = coalesce($2, progress), updated_at = $3
             WHERE id = $4 AND status = 'running' AND lease_owner = $5
             RETURNING cancel_requested",
        )
        .bind(now.plus(lease).millis())
        .bind(progress.map(|p| i64::from(p.min(100))))
        .bind(now.millis())
        .bind(id.as_str())
        .bind(worker)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(match row {
            None => Heartbeat::Lost,
            Some((0,)) => Heartbeat::Renewed,
            Some(_) => Heartbeat::CancelRequested,
        })
    }

    async fn succeed(&self, id: &JobId, worker: &str, output: Value, event: Option<NewEvent>) -> Result<bool> {
        let now = Timestamp::now().millis();
        let mut tx = self.write().await?;
        let done = sqlx::query(
            "UPDATE jobs SET status = 'succeeded', progress = 100, output = $1, error = NULL, finished_at = $2,
                 updated_at = $2, lease_owner = NULL, lease_expires_at = NULL
             WHERE id = $3 AND status = 'running' AND lease_owner = $4",
        )
        .bind(serde_json::to_string(&output)?)
        .bind(now)
        .bind(id.as_str())
        .bind(worker)
        .execute(&mut *tx)
        .await
        .map_err(db)?
        .rows_affected()
            == 1;
        let events = if done { event.as_slice() } else { &[] };
        self.commit_with_events(tx, events).await?;
        Ok(done)
    }

    async fn fail(
        &self,
        id: &JobId,
        worker: &str,
        error: Value,
        retry_at: Option<Timestamp>,
        event: Option<NewEvent>,
    ) -> Result<bool> {
        let now = Timestamp::now().millis();
        let mut tx = self.write().await?;
        let query = match retry_at {
            Some(_) => {
                "UPDATE jobs SET status = CASE WHEN cancel_requested <> 0 THEN 'cancelled' ELSE 'queued' END,
                     finished_at = CASE WHEN cancel_requested <> 0 THEN $3 ELSE NULL END,
                     error = $1, run_at = $2, updated_at = $3, lease_owner = NULL, lease_expires_at = NULL
                 WHERE id = $4 AND status = 'running' AND lease_owner = $5"
            }
            None => {
                "UPDATE jobs SET status = 'failed', error = $1, finished_at = $3, updated_at = $3,
                     lease_owner = NULL, lease_expires_at = NULL
                 WHERE id = $4 AND status = 'running' AND lease_owner = $5 AND $2::bigint IS NULL"
            }
        };
        let done = sqlx::query(query)
            .bind(serde_json::to_string(&error)?)
            .bind(retry_at.map(|t| t.millis()))
            .bind(now)
            .bind(id.as_str())
            .bind(worker)
            .execute(&mut *tx)
            .await
            .map_err(db)?
            .rows_affected()
            == 1;
        let events = if done && retry_at.is_none() { event.as_slice() } else { &[] };
        self.commit_with_events(tx, events).await?;
        Ok(done)
    }

    async fn mark_cancelled(&self, id: &JobId, worker: &str) -> Result<bool> {
        let now = Timestamp::now().millis();
        let mut tx = self.write().await?;
        let done = sqlx::query(
            "UPDATE jobs SET status = 'cancelled', finished_at = $1, updated_at = $1, lease_owner = NULL,
                 lease_expires_at = NULL
             WHERE id = $2 AND status = 'running' AND lease_owner = $3",
        )
        .bind(now)
        .bind(id.as_str())
        .bind(worker)
        .execute(&mut *tx)
        .await
        .map_err(db)?
        .rows_affected()
            == 1;
        tx.commit().await.map_err(db)?;
        Ok(done)
    }

    async fn cancel(&self, account: &AccountId, id: &JobId) -> Result<Job> {
        let now = Timestamp::now().millis();
        let mut tx = self.write().await?;
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM jobs WHERE account_id = $1 AND id = $2 FOR UPDATE"))
            .bind(account.as_str())
            .bind(id.as_str())
            .fetch_optional(&mut *tx)
            .await
            .map_err(db)?;
        let Some(job) = row.as_ref().map(job_from_row).transpose()? else {
            return refuse(tx, DomainError::not_found("job", id.as_str())).await;
        };
        let update = match job.status {
            JobStatus::Queued => {
                "UPDATE jobs SET status = 'cancelled', cancel_requested = 1, finished_at = $1, updated_at = $1 WHERE id = $2"
            }
            JobStatus::Running => "UPDATE jobs SET cancel_requested = 1, updated_at = $1 WHERE id = $2",
            ended => {
                return refuse(
                    tx,
                    DomainError::conflict("job_finished", format!("job {} already ended ({})", id, ended.as_str())),
                )
                .await
            }
        };
        let row = sqlx::query(&format!("{update} RETURNING {COLUMNS}"))
            .bind(now)
            .bind(id.as_str())
            .fetch_one(&mut *tx)
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
        job_from_row(&row)
    }
}
