use super::{ts, SqliteDb};
use crate::error::db;
use async_trait::async_trait;
use meridian_core::event::Event;
use meridian_core::id::{AccountId, DeliveryId, EventId, SubscriptionId};
use meridian_core::page::Page;
use meridian_core::{DomainError, Timestamp};
use meridian_store::repo::{
    Attempt, AttemptOutcome, AttemptRecord, ClaimedDelivery, Delivery, DeliveryFilter, DeliveryStatus,
    DeliveryTransition, NewDelivery, Subscription, SubscriptionChange, SubscriptionStatus, WebhookRepo,
};
use meridian_store::{Result, StoreError};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};
use std::collections::HashMap;
use std::time::Duration;

const SUB_COLUMNS: &str = "id, account_id, url, events, description, status, paused_reason, failing_since, secret,
    previous_secret, previous_secret_expires_at, version, created_at, updated_at";

const DLV_COLUMNS: &str = "d.id, d.account_id, d.subscription_id, d.event_id, d.event_type, d.status, d.attempt_count,
    d.next_attempt_at, d.created_at, d.updated_at, d.completed_at, o.payload";

/// Every pattern of the subscription is within `dns.` (what `/v1/dns/webhooks` shows).
const DNS_ONLY: &str =
    "NOT EXISTS (SELECT 1 FROM json_each(webhook_subscriptions.events) WHERE value NOT LIKE 'dns.%')";

fn sub_from_row(row: &SqliteRow) -> Result<Subscription> {
    let status: String = row.try_get("status").map_err(db)?;
    Ok(Subscription {
        id: SubscriptionId(row.try_get("id").map_err(db)?),
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        url: row.try_get("url").map_err(db)?,
        events: serde_json::from_str(&row.try_get::<String, _>("events").map_err(db)?)?,
        description: row.try_get("description").map_err(db)?,
        status: SubscriptionStatus::parse(&status)
            .ok_or_else(|| StoreError::Corrupt(format!("subscription status {status}")))?,
        paused_reason: row.try_get("paused_reason").map_err(db)?,
        failing_since: ts(row.try_get("failing_since").map_err(db)?),
        secret: row.try_get("secret").map_err(db)?,
        previous_secret: row.try_get("previous_secret").map_err(db)?,
        previous_secret_expires_at: ts(row.try_get("previous_secret_expires_at").map_err(db)?),
        version: row.try_get("version").map_err(db)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
    })
}

fn delivery_from_row(row: &SqliteRow) -> Result<Delivery> {
    let status: String = row.try_get("status").map_err(db)?;
    Ok(Delivery {
        id: DeliveryId(row.try_get("id").map_err(db)?),
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        subscription_id: SubscriptionId(row.try_get("subscription_id").map_err(db)?),
        event_id: EventId(row.try_get("event_id").map_err(db)?),
        event_type: row.try_get("event_type").map_err(db)?,
        payload: serde_json::from_str(&row.try_get::<String, _>("payload").map_err(db)?)?,
        status: DeliveryStatus::parse(&status)
            .ok_or_else(|| StoreError::Corrupt(format!("delivery status {status}")))?,
        attempt_count: row.try_get::<i64, _>("attempt_count").map_err(db)? as u32,
        next_attempt_at: ts(row.try_get("next_attempt_at").map_err(db)?),
        attempts: Vec::new(),
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
        completed_at: ts(row.try_get("completed_at").map_err(db)?),
    })
}

fn attempt_from_row(row: &SqliteRow) -> Result<(String, Attempt)> {
    Ok((
        row.try_get("delivery_id").map_err(db)?,
        Attempt {
            attempted_at: Timestamp::from_millis(row.try_get("attempted_at").map_err(db)?),
            status_code: row.try_get::<Option<i64>, _>("status_code").map_err(db)?.map(|c| c as u16),
            error: row.try_get("error").map_err(db)?,
            latency_ms: row.try_get::<i64, _>("latency_ms").map_err(db)?.max(0) as u64,
            response_body: row.try_get("response_body").map_err(db)?,
        },
    ))
}

/// Fills in the attempts of `deliveries`, oldest first.
async fn with_attempts(db: &SqliteDb, mut deliveries: Vec<Delivery>) -> Result<Vec<Delivery>> {
    if deliveries.is_empty() {
        return Ok(deliveries);
    }
    let ids: Vec<&str> = deliveries.iter().map(|d| d.id.as_str()).collect();
    let rows = sqlx::query(
        "SELECT delivery_id, attempted_at, status_code, error, latency_ms, response_body FROM webhook_attempts
         WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY id",
    )
    .bind(serde_json::to_string(&ids)?)
    .fetch_all(db.read())
    .await
    .map_err(crate::error::db)?;
    let mut by_delivery: HashMap<String, Vec<Attempt>> = HashMap::new();
    for row in &rows {
        let (id, attempt) = attempt_from_row(row)?;
        by_delivery.entry(id).or_default().push(attempt);
    }
    for d in &mut deliveries {
        d.attempts = by_delivery.remove(d.id.as_str()).unwrap_or_default();
    }
    Ok(deliveries)
}

async fn fetch_subscription(
    conn: &mut SqliteConnection,
    account: &AccountId,
    id: &SubscriptionId,
) -> Result<Subscription> {
    let row = sqlx::query(&format!("SELECT {SUB_COLUMNS} FROM webhook_subscriptions WHERE account_id = ? AND id = ?"))
        .bind(account.as_str())
        .bind(id.as_str())
        .fetch_optional(&mut *conn)
        .await
        .map_err(db)?;
    row.as_ref()
        .map(sub_from_row)
        .transpose()?
        .ok_or_else(|| DomainError::not_found("subscription", id.as_str()).into())
}

fn check_version(sub: &Subscription, if_version: Option<i64>) -> Result<()> {
    match if_version {
        Some(v) if v != sub.version => Err(DomainError::PreconditionFailed(format!(
            "subscription {} has changed since that ETag (it is now at version {})",
            sub.id, sub.version
        ))
        .into()),
        _ => Ok(()),
    }
}

#[async_trait]
impl WebhookRepo for SqliteDb {
    async fn purge_completed(&self, before: Timestamp, limit: u32) -> Result<u64> {
        let mut tx = self.write().await?;
        // Attempts first (the foreign key cascades too, but only with foreign keys on).
        let ids = "SELECT id FROM webhook_deliveries
                   WHERE status IN ('succeeded', 'exhausted') AND completed_at < ?1 ORDER BY id LIMIT ?2";
        sqlx::query(&format!("DELETE FROM webhook_attempts WHERE delivery_id IN ({ids})"))
            .bind(before.millis())
            .bind(i64::from(limit))
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        let n = sqlx::query(&format!("DELETE FROM webhook_deliveries WHERE id IN ({ids})"))
            .bind(before.millis())
            .bind(i64::from(limit))
            .execute(&mut *tx)
            .await
            .map_err(db)?
            .rows_affected();
        tx.commit().await.map_err(db)?;
        Ok(n)
    }

    async fn create_subscription(&self, sub: &Subscription) -> Result<()> {
        let mut tx = self.write().await?;
        sqlx::query(&format!(
            "INSERT INTO webhook_subscriptions ({SUB_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ))
        .bind(sub.id.as_str())
        .bind(sub.account_id.as_str())
        .bind(&sub.url)
        .bind(serde_json::to_string(&sub.events)?)
        .bind(&sub.description)
        .bind(sub.status.as_str())
        .bind(&sub.paused_reason)
        .bind(sub.failing_since.map(|t| t.millis()))
        .bind(&sub.secret)
        .bind(&sub.previous_secret)
        .bind(sub.previous_secret_expires_at.map(|t| t.millis()))
        .bind(sub.version)
        .bind(sub.created_at.millis())
        .bind(sub.updated_at.millis())
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn get_subscription(&self, account: &AccountId, id: &SubscriptionId) -> Result<Option<Subscription>> {
        let row =
            sqlx::query(&format!("SELECT {SUB_COLUMNS} FROM webhook_subscriptions WHERE account_id = ? AND id = ?"))
                .bind(account.as_str())
                .bind(id.as_str())
                .fetch_optional(self.read())
                .await
                .map_err(db)?;
        row.as_ref().map(sub_from_row).transpose()
    }

    async fn list_subscriptions(
        &self,
        account: &AccountId,
        dns_only: bool,
        page: Page,
    ) -> Result<(Vec<Subscription>, u64)> {
        let filter = if dns_only { DNS_ONLY } else { "1" };
        let anchor: Option<(i64,)> = self
            .anchor("SELECT rowid FROM webhook_subscriptions WHERE account_id = ? AND id = ?", account.as_str(), &page)
            .await?;
        let rows = sqlx::query(&format!(
            "SELECT {SUB_COLUMNS} FROM webhook_subscriptions WHERE account_id = ?1 AND {filter}
             AND (?4 IS NULL OR rowid < ?4) ORDER BY rowid DESC LIMIT ?2 OFFSET ?3"
        ))
        .bind(account.as_str())
        .bind(i64::from(page.limit))
        .bind(page.skip(anchor.is_some()))
        .bind(anchor.map(|a| a.0))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        let total: i64 = sqlx::query_scalar(&format!(
            "SELECT count(*) FROM webhook_subscriptions WHERE account_id = ? AND {filter}"
        ))
        .bind(account.as_str())
        .fetch_one(self.read())
        .await
        .map_err(db)?;
        Ok((rows.iter().map(sub_from_row).collect::<Result<_>>()?, total as u64))
    }

    async fn update_subscription(
        &self,
        account: &AccountId,
        id: &SubscriptionId,
        change: &SubscriptionChange,
        if_version: Option<i64>,
    ) -> Result<Subscription> {
        let mut tx = self.write().await?;
        let mut sub = fetch_subscription(&mut tx, account, id).await?;
        check_version(&sub, if_version)?;
        if let Some(url) = &change.url {
            sub.url = url.clone();
        }
        if let Some(events) = &change.events {
            sub.events = events.clone();
        }
        if let Some(description) = &change.description {
            sub.description = description.clone();
        }
        match change.status {
            Some(SubscriptionStatus::Active) if sub.status != SubscriptionStatus::Active => {
                sub.status = SubscriptionStatus::Active;
                sub.paused_reason = None;
                sub.failing_since = None;
            }
            Some(SubscriptionStatus::Paused) if sub.status != SubscriptionStatus::Paused => {
                sub.status = SubscriptionStatus::Paused;
                sub.paused_reason = Some("user".to_owned());
            }
            _ => {}
        }
        sub.version += 1;
        sub.updated_at = Timestamp::now();
        sqlx::query(
            "UPDATE webhook_subscriptions SET url = ?, events = ?, description = ?, status = ?, paused_reason = ?,
                 failing_since = ?, version = ?, updated_at = ?
             WHERE id = ?",
        )
        .bind(&sub.url)
        .bind(serde_json::to_string(&sub.events)?)
        .bind(&sub.description)
        .bind(sub.status.as_str())
        .bind(&sub.paused_reason)
        .bind(sub.failing_since.map(|t| t.millis()))
        .bind(sub.version)
        .bind(sub.updated_at.millis())
        .bind(sub.id.as_str())
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(sub)
    }

    async fn delete_subscription(
        &self,
        account: &AccountId,
        id: &SubscriptionId,
        if_version: Option<i64>,
        dns_only: bool,
    ) -> Result<()> {
        let mut tx = self.write().await?;
        let sub = fetch_subscription(&mut tx, account, id).await?;
        if dns_only && !sub.events.iter().all(|e| e.starts_with("dns.")) {
            return Err(DomainError::not_found("DNS webhook", id.as_str()).into());
        }
        check_version(&sub, if_version)?;
        sqlx::query("DELETE FROM webhook_subscriptions WHERE id = ?")
            .bind(id.as_str())
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn rotate_secret(
        &self,
        account: &AccountId,
        id: &SubscriptionId,
        secret: &str,
        previous_expires_at: Timestamp,
    ) -> Result<Subscription> {
        let mut tx = self.write().await?;
        let sub = fetch_subscription(&mut tx, account, id).await?;
        let now = Timestamp::now();
        let row = sqlx::query(&format!(
            "UPDATE webhook_subscriptions SET previous_secret = secret, previous_secret_expires_at = ?, secret = ?,
                 version = version + 1, updated_at = ?
             WHERE id = ? RETURNING {SUB_COLUMNS}"
        ))
        .bind(previous_expires_at.millis())
        .bind(secret)
        .bind(now.millis())
        .bind(sub.id.as_str())
        .fetch_one(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        sub_from_row(&row)
    }

    async fn active_subscriptions(&self, accounts: &[AccountId]) -> Result<Vec<Subscription>> {
        let ids: Vec<&str> = accounts.iter().map(AccountId::as_str).collect();
        let rows = sqlx::query(&format!(
            "SELECT {SUB_COLUMNS} FROM webhook_subscriptions
             WHERE status = 'active' AND account_id IN (SELECT value FROM json_each(?))"
        ))
        .bind(serde_json::to_string(&ids)?)
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter().map(sub_from_row).collect()
    }

    async fn insert_deliveries_leased(
        &self,
        deliveries: &[NewDelivery],
        lease: Option<(&str, Timestamp)>,
    ) -> Result<Vec<(usize, DeliveryId)>> {
        if deliveries.is_empty() {
            return Ok(Vec::new());
        }
        let now = Timestamp::now().millis();
        let ids: Vec<DeliveryId> = deliveries.iter().map(|_| DeliveryId::generate()).collect();
        let rows: Vec<serde_json::Value> = deliveries
            .iter()
            .zip(&ids)
            .map(|(d, id)| {
                serde_json::json!([
                    id.as_str(),
                    d.account_id.as_str(),
                    d.subscription_id.as_str(),
                    d.event_id.as_str(),
                    d.event_type
                ])
            })
            .collect();
        let mut conn = self.writer().await?;
        // One statement for the whole batch; OR IGNORE keeps one delivery per (event, subscription).
        let query = sqlx::query(
            "BEGIN IMMEDIATE;
             INSERT OR IGNORE INTO webhook_deliveries
                 (id, account_id, subscription_id, event_id, event_type, status, next_attempt_at, created_at, updated_at,
                  lease_owner, lease_expires_at)
             SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, ?3, ?2, ?2, ?2, ?4, ?5
             FROM json_each(?1) j
             WHERE EXISTS (SELECT 1 FROM webhook_subscriptions s
                           WHERE s.id = j.value ->> 2 AND s.account_id = j.value ->> 1)
             ORDER BY j.key
             RETURNING id;
             COMMIT",
        )
        .bind(serde_json::to_string(&rows)?)
        .bind(now)
        .bind(DeliveryStatus::START.as_str())
        .bind(lease.map(|(worker, _)| worker))
        .bind(lease.map(|(_, until)| until.millis()));
        let added: Vec<String> = conn
            .script(query, true)
            .await?
            .iter()
            .map(|r| r.try_get("id"))
            .collect::<std::result::Result<_, _>>()
            .map_err(db)?;
        let index: HashMap<&str, usize> = ids.iter().enumerate().map(|(i, id)| (id.as_str(), i)).collect();
        let mut added: Vec<(usize, DeliveryId)> =
            added.into_iter().filter_map(|id| index.get(id.as_str()).map(|&i| (i, DeliveryId(id)))).collect();
        added.sort_by_key(|(i, _)| *i);
        Ok(added)
    }

    async fn events_between(
        &self,
        account: &AccountId,
        since: Timestamp,
        until: Option<Timestamp>,
        limit: u32,
    ) -> Result<Vec<Event>> {
        let rows = sqlx::query(
            "SELECT seq, id, account_id, event_type, payload, created_at FROM outbox
             WHERE account_id = ?1 AND created_at >= ?2 AND (?3 IS NULL OR created_at < ?3)
             ORDER BY created_at, seq LIMIT ?4",
        )
        .bind(account.as_str())
        .bind(since.millis())
        .bind(until.map(|t| t.millis()))
        .bind(i64::from(limit))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter()
            .map(|row| {
                Ok(Event {
                    seq: row.try_get("seq").map_err(db)?,
                    id: EventId(row.try_get("id").map_err(db)?),
                    account_id: AccountId(row.try_get("account_id").map_err(db)?),
                    event_type: row.try_get("event_type").map_err(db)?,
                    timestamp: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
                    payload: serde_json::from_str(&row.try_get::<String, _>("payload").map_err(db)?)?,
                })
            })
            .collect()
    }

    async fn replay(&self, account: &AccountId, deliveries: &[NewDelivery], only_failed: bool) -> Result<u64> {
        let now = Timestamp::now().millis();
        let from = DeliveryStatus::sql_list(&DeliveryStatus::from_which(DeliveryTransition::Replay { only_failed }));
        let start = DeliveryStatus::START.as_str();
        let mut sent = 0;
        let mut tx = self.write().await?;
        for d in deliveries {
            if d.account_id != *account {
                continue;
            }
            let reset = sqlx::query(&format!(
                "UPDATE webhook_deliveries SET status = '{start}', round_attempts = 0, next_attempt_at = ?1,
                     completed_at = NULL, updated_at = ?1
                 WHERE event_id = ?2 AND subscription_id = ?3 AND account_id = ?4 AND status IN {from}
                   AND (lease_expires_at IS NULL OR lease_expires_at < ?1)"
            ))
            .bind(now)
            .bind(d.event_id.as_str())
            .bind(d.subscription_id.as_str())
            .bind(account.as_str())
            .execute(&mut *tx)
            .await
            .map_err(db)?
            .rows_affected();
            let added = if only_failed {
                0
            } else {
                sqlx::query(
                    "INSERT OR IGNORE INTO webhook_deliveries
                         (id, account_id, subscription_id, event_id, event_type, status, next_attempt_at, created_at,
                          updated_at)
                     SELECT ?1, ?2, ?3, ?4, ?5, ?7, ?6, ?6, ?6
                     WHERE EXISTS (SELECT 1 FROM webhook_subscriptions WHERE id = ?3 AND account_id = ?2)",
                )
                .bind(DeliveryId::generate().as_str())
                .bind(account.as_str())
                .bind(d.subscription_id.as_str())
                .bind(d.event_id.as_str())
                .bind(&d.event_type)
                .bind(now)
                .bind(start)
                .execute(&mut *tx)
                .await
                .map_err(db)?
                .rows_affected()
            };
            sent += reset + added;
        }
        tx.commit().await.map_err(db)?;
        Ok(sent)
    }

    async fn redeliver(&self, account: &AccountId, id: &DeliveryId) -> Result<Delivery> {
        let now = Timestamp::now().millis();
        let mut tx = self.write().await?;
        let row: Option<(String, Option<i64>)> =
            sqlx::query_as("SELECT status, lease_expires_at FROM webhook_deliveries WHERE id = ? AND account_id = ?")
                .bind(id.as_str())
                .bind(account.as_str())
                .fetch_optional(&mut *tx)
                .await
                .map_err(db)?;
        let (status, lease) = row.ok_or_else(|| DomainError::not_found("delivery", id.as_str()))?;
        let allowed = DeliveryStatus::parse(&status).and_then(|s| s.after(DeliveryTransition::Redeliver)).is_some();
        if !allowed || lease.is_some_and(|l| l >= now) {
            return Err(DomainError::conflict(
                "delivery_in_flight",
                format!("delivery {id} is about to be attempted; redeliver it once the attempt ended"),
            )
            .into());
        }
        sqlx::query(
            "UPDATE webhook_deliveries SET status = ?3, round_attempts = 0, next_attempt_at = ?1,
                 completed_at = NULL, updated_at = ?1
             WHERE id = ?2",
        )
        .bind(now)
        .bind(id.as_str())
        .bind(DeliveryStatus::START.as_str())
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        self.get_delivery(account, id).await?.ok_or_else(|| DomainError::not_found("delivery", id.as_str()).into())
    }

    async fn get_delivery(&self, account: &AccountId, id: &DeliveryId) -> Result<Option<Delivery>> {
        let row = sqlx::query(&format!(
            "SELECT {DLV_COLUMNS} FROM webhook_deliveries d JOIN outbox o ON o.id = d.event_id
             WHERE d.id = ? AND d.account_id = ?"
        ))
        .bind(id.as_str())
        .bind(account.as_str())
        .fetch_optional(self.read())
        .await
        .map_err(db)?;
        let Some(delivery) = row.as_ref().map(delivery_from_row).transpose()? else {
            return Ok(None);
        };
        Ok(with_attempts(self, vec![delivery]).await?.pop())
    }

    async fn list_deliveries(
        &self,
        account: &AccountId,
        subscription: &SubscriptionId,
        filter: &DeliveryFilter,
        page: Page,
    ) -> Result<(Vec<Delivery>, u64)> {
        let condition = "d.account_id = ?1 AND d.subscription_id = ?2 AND (?3 IS NULL OR d.status = ?3)
             AND (?4 IS NULL OR d.event_id = ?4)";
        let anchor: Option<(i64,)> = self
            .anchor(
                "SELECT rowid FROM webhook_deliveries WHERE subscription_id = ? AND id = ?",
                subscription.as_str(),
                &page,
            )
            .await?;
        let rows = sqlx::query(&format!(
            "SELECT {DLV_COLUMNS} FROM webhook_deliveries d JOIN outbox o ON o.id = d.event_id
             WHERE {condition} AND (?7 IS NULL OR d.rowid < ?7) ORDER BY d.rowid DESC LIMIT ?5 OFFSET ?6"
        ))
        .bind(account.as_str())
        .bind(subscription.as_str())
        .bind(filter.status.map(|s| s.as_str()))
        .bind(filter.event_id.as_ref().map(EventId::as_str))
        .bind(i64::from(page.limit))
        .bind(page.skip(anchor.is_some()))
        .bind(anchor.map(|a| a.0))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        let total: i64 = sqlx::query_scalar(&format!("SELECT count(*) FROM webhook_deliveries d WHERE {condition}"))
            .bind(account.as_str())
            .bind(subscription.as_str())
            .bind(filter.status.map(|s| s.as_str()))
            .bind(filter.event_id.as_ref().map(EventId::as_str))
            .fetch_one(self.read())
            .await
            .map_err(db)?;
        let deliveries = rows.iter().map(delivery_from_row).collect::<Result<Vec<_>>>()?;
        Ok((with_attempts(self, deliveries).await?, total as u64))
    }

    async fn claim_deliveries(
        &self,
        worker: &str,
        limit: u32,
        per_subscription: u32,
        lease: Duration,
    ) -> Result<Vec<ClaimedDelivery>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let now = Timestamp::now();
        let mut tx = self.write().await?;
        // Rank each subscription's due deliveries and take only as many as its free slots, so that
        // one slow endpoint cannot fill every worker.
        let due = DeliveryStatus::sql_list(&DeliveryStatus::DUE);
        let rows = sqlx::query(&format!(
            "WITH inflight AS (
                 SELECT subscription_id, count(*) AS n FROM webhook_deliveries
                 WHERE status IN {due} AND lease_expires_at >= ?1
                 GROUP BY subscription_id),
             due AS (
                 SELECT d.id, d.subscription_id, d.next_attempt_at,
                        row_number() OVER (PARTITION BY d.subscription_id ORDER BY d.next_attempt_at, d.id) AS rank
                 FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
                 WHERE d.status IN {due} AND d.next_attempt_at <= ?1
                   AND (d.lease_expires_at IS NULL OR d.lease_expires_at < ?1) AND s.status = 'active')
             UPDATE webhook_deliveries SET lease_owner = ?2, lease_expires_at = ?3
             WHERE id IN (
                 SELECT due.id FROM due LEFT JOIN inflight ON inflight.subscription_id = due.subscription_id
                 WHERE due.rank + coalesce(inflight.n, 0) <= ?4
                 ORDER BY due.next_attempt_at LIMIT ?5)
             RETURNING id"
        ))
        .bind(now.millis())
        .bind(worker)
        .bind(now.plus(lease).millis())
        .bind(i64::from(per_subscription))
        .bind(i64::from(limit))
        .fetch_all(&mut *tx)
        .await
        .map_err(db)?;
        let ids: Vec<String> =
            rows.iter().map(|r| r.try_get("id")).collect::<std::result::Result<_, _>>().map_err(db)?;
        if ids.is_empty() {
            tx.commit().await.map_err(db)?;
            return Ok(Vec::new());
        }
        let rows = sqlx::query(
            "SELECT d.id, d.account_id, d.subscription_id, d.event_id, d.event_type, d.round_attempts, o.payload,
                    s.url, s.secret, s.previous_secret, s.previous_secret_expires_at
             FROM webhook_deliveries d
             JOIN webhook_subscriptions s ON s.id = d.subscription_id
             JOIN outbox o ON o.id = d.event_id
             WHERE d.id IN (SELECT value FROM json_each(?))",
        )
        .bind(serde_json::to_string(&ids)?)
        .fetch_all(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        rows.iter()
            .map(|row| {
                let mut secrets = vec![row.try_get::<String, _>("secret").map_err(db)?];
                let previous: Option<String> = row.try_get("previous_secret").map_err(db)?;
                let until: Option<i64> = row.try_get("previous_secret_expires_at").map_err(db)?;
                if let (Some(previous), Some(until)) = (previous, until) {
                    if until > now.millis() {
                        secrets.push(previous);
                    }
                }
                Ok(ClaimedDelivery {
                    id: DeliveryId(row.try_get("id").map_err(db)?),
                    account_id: AccountId(row.try_get("account_id").map_err(db)?),
                    subscription_id: SubscriptionId(row.try_get("subscription_id").map_err(db)?),
                    event_id: EventId(row.try_get("event_id").map_err(db)?),
                    event_type: row.try_get("event_type").map_err(db)?,
                    body: row.try_get("payload").map_err(db)?,
                    url: row.try_get("url").map_err(db)?,
                    secrets,
                    round_attempts: row.try_get::<i64, _>("round_attempts").map_err(db)? as u32,
                })
            })
            .collect()
    }

    async fn record_attempts(
        &self,
        worker: &str,
        records: &[AttemptRecord],
        disable_after: Duration,
    ) -> Result<Vec<bool>> {
        let mut recorded = vec![false; records.len()];
        if records.is_empty() {
            return Ok(recorded);
        }
        let now = Timestamp::now().millis();
        let mut attempts = Vec::with_capacity(records.len());
        let mut outcomes = Vec::with_capacity(records.len());
        let mut seen = std::collections::HashSet::new();
        for r in records {
            // Every due state goes to the same next state for an outcome; the update only touches a
            // delivery in a due state (a claimed one is).
            let status = DeliveryStatus::Pending
                .after(DeliveryTransition::Attempted(r.outcome))
                .ok_or_else(|| StoreError::Corrupt("an attempt outcome without a next state".into()))?;
            let next = match r.outcome {
                AttemptOutcome::RetryAt(at) => Some(at.millis()),
                _ => None,
            };
            let completed = status.is_ended().then_some(now);
            let a = &r.attempt;
            attempts.push(serde_json::json!([
                r.id.as_str(),
                a.attempted_at.millis(),
                a.status_code,
                a.error,
                a.latency_ms.min(i64::MAX as u64),
                a.response_body
            ]));
            // A delivery is leased to one attempt at a time; a second record of the same one in a
            // batch would be a lease lost and found again, and is not an outcome of this lease.
            if seen.insert(r.id.as_str()) {
                outcomes.push(serde_json::json!([r.id.as_str(), status.as_str(), next, completed]));
            }
        }
        let due = DeliveryStatus::sql_list(&DeliveryStatus::DUE);
        // Two round trips to the writer: the attempts and outcomes, then what they do to their
        // subscriptions and the commit.
        let mut conn = self.writer().await?;
        let sql = format!(
            "BEGIN IMMEDIATE;
             INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, error, latency_ms, response_body)
             SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 5
             FROM json_each(?1) j
             WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = j.value ->> 0)
             ORDER BY j.key;
             UPDATE webhook_deliveries SET status = j.value ->> 1, next_attempt_at = j.value ->> 2,
                 completed_at = j.value ->> 3, updated_at = ?3,
                 attempt_count = attempt_count + 1, round_attempts = round_attempts + 1,
                 lease_owner = NULL, lease_expires_at = NULL
             FROM json_each(?2) j
             WHERE webhook_deliveries.id = j.value ->> 0 AND webhook_deliveries.lease_owner = ?4
               AND webhook_deliveries.status IN {due}
             RETURNING webhook_deliveries.id, webhook_deliveries.subscription_id"
        );
        let query = sqlx::query(&sql)
            .bind(serde_json::to_string(&attempts)?)
            .bind(serde_json::to_string(&outcomes)?)
            .bind(now)
            .bind(worker);
        let updated = conn.script(query, false).await?;
        let mut subscription_of: HashMap<String, String> = HashMap::with_capacity(updated.len());
        for row in &updated {
            subscription_of.insert(row.try_get("id").map_err(db)?, row.try_get("subscription_id").map_err(db)?);
        }
        // Per subscription, in attempt order: the run of failures starts at the first failed
        // attempt after a success; once it has lasted `disable_after`, the endpoint is taken to be
        // gone and the subscription paused.
        let mut runs: Vec<(String, FailureRun)> = Vec::new();
        let mut counted = std::collections::HashSet::new();
        for (i, r) in records.iter().enumerate() {
            let Some(sub) = subscription_of.get(r.id.as_str()) else { continue };
            if !counted.insert(r.id.as_str()) {
                continue;
            }
            recorded[i] = true;
            let at = r.attempt.attempted_at.millis();
            let position = match runs.iter().position(|(s, _)| s == sub) {
                Some(p) => p,
                None => {
                    runs.push((sub.clone(), FailureRun::Unchanged));
                    runs.len() - 1
                }
            };
            let run = &mut runs[position].1;
            *run = match (r.outcome, *run) {
                (AttemptOutcome::Succeeded, _) => FailureRun::Cleared,
                (_, FailureRun::Unchanged) => FailureRun::Continued(at),
                (_, FailureRun::Cleared) => FailureRun::StartedAt(at),
                (_, kept) => kept,
            };
        }
        let cutoff = now.saturating_sub(disable_after.as_millis().min(i64::MAX as u128) as i64);
        // ?1 is now, ?2 the cut-off; each subscription adds its id and, for a run, its start.
        let mut sql = String::new();
        let mut binds: Vec<(String, Option<i64>)> = Vec::new();
        // The next free parameter number.
        let mut k = 3;
        for (sub, run) in runs {
            let (set, at) = match run {
                FailureRun::Unchanged => continue,
                FailureRun::Cleared => {
                    sql.push_str(&format!(
                        "UPDATE webhook_subscriptions SET failing_since = NULL WHERE id = ?{k} AND failing_since IS NOT NULL;\n"
                    ));
                    binds.push((sub, None));
                    k += 1;
                    continue;
                }
                FailureRun::Continued(at) => (format!("coalesce(failing_since, ?{})", k + 1), at),
                FailureRun::StartedAt(at) => (format!("?{}", k + 1), at),
            };
            sql.push_str(&format!(
                "UPDATE webhook_subscriptions SET failing_since = {set} WHERE id = ?{k};
                 UPDATE webhook_subscriptions SET status = 'paused', paused_reason = 'failing', version = version + 1,
                     updated_at = ?1
                 WHERE id = ?{k} AND status = 'active' AND failing_since <= ?2;\n"
            ));
            binds.push((sub, Some(at)));
            k += 2;
        }
        sql.push_str("COMMIT");
        let mut query = sqlx::query(&sql).bind(now).bind(cutoff);
        for (sub, at) in binds {
            query = query.bind(sub);
            if let Some(at) = at {
                query = query.bind(at);
            }
        }
        conn.script(query, true).await?;
        Ok(recorded)
    }

    async fn next_due(&self) -> Result<Option<Timestamp>> {
        let due = DeliveryStatus::sql_list(&DeliveryStatus::DUE);
        let next: Option<i64> = sqlx::query_scalar(&format!(
            "SELECT min(max(d.next_attempt_at, coalesce(d.lease_expires_at, 0))) FROM webhook_deliveries d
             JOIN webhook_subscriptions s ON s.id = d.subscription_id
             WHERE d.status IN {due} AND s.status = 'active'"
        ))
        .fetch_one(self.read())
        .await
        .map_err(db)?;
        Ok(ts(next))
    }
}

/// What a batch of attempts does to a subscription's run of failures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FailureRun {
    /// No recorded attempt of this subscription.
    Unchanged,
    /// The last attempt succeeded: no run.
    Cleared,
    /// Only failures, the first at this instant: the run goes on (or starts there).
    Continued(i64),
    /// A success, then failures from this instant: a new run.
    StartedAt(i64),
}
