//! Webhook subscriptions, deliveries and attempts on PostgreSQL.
//!
//! Deliveries move along the `DeliveryStatus` state machine only: claims and in-flight counts use
//! its due set, an attempt's outcome is the state `after` gives from the delivery's current state,
//! and redelivery and replay reset only the states `after` allows, to `START`.
//!
//! Every check-then-act holds with concurrent writers on several nodes:
//! - a read before a decision locks the row it read (`FOR UPDATE` before a delete, otherwise
//!   `FOR NO KEY UPDATE`: what an update of non-key columns takes, so that fan-out inserts, whose
//!   foreign key check takes `FOR KEY SHARE` on the subscription, are not held up), or the act is
//!   a conditional update checked by the rows it touched (an outcome is recorded only while the
//!   worker still holds the lease; a rotation, a reset by replay);
//! - a claim first locks the subscriptions it will count (`FOR NO KEY UPDATE SKIP LOCKED`), then
//!   counts their live leases in a new statement, whose snapshot sees every claim committed
//!   before the locks were granted: two claimers never count the same subscription at once, so
//!   they cannot both take its last free slot;
//! - writers that touch both lock the subscription before its deliveries (a share lock where
//!   they only need it to stay, which makes its delete wait), and several rows of a table in id
//!   order, so that they wait for each other without deadlocks; claims and purges skip locked
//!   rows and never wait.

use crate::error::{db, taken};
use crate::{refuse, ts, PgDb};
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
use sqlx::postgres::{PgPool, PgRow};
use sqlx::{PgConnection, Row};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

const SUB_COLUMNS: &str = "id, account_id, url, events, description, status, paused_reason, failing_since, secret,
    previous_secret, previous_secret_expires_at, version, created_at, updated_at";

const DLV_COLUMNS: &str = "d.id, d.account_id, d.subscription_id, d.event_id, d.event_type, d.status, d.attempt_count,
    d.next_attempt_at, d.created_at, d.updated_at, d.completed_at, o.payload";

/// Every pattern of the subscription is within `dns.` (what `/v1/dns/webhooks` shows).
const DNS_ONLY: &str =
    "NOT EXISTS (SELECT 1 FROM json_array_elements_text(webhook_subscriptions.events::json) AS e(value)
     WHERE NOT starts_with(e.value, 'dns.'))";

/// The reason recorded when a subscription is paused for failing too long.
const PAUSED_FAILING: &str = "failing";

fn sub_from_row(row: &PgRow) -> Result<Subscription> {
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

fn delivery_from_row(row: &PgRow) -> Result<Delivery> {
    let status: String = row.try_get("status").map_err(db)?;
    Ok(Delivery {
        id: DeliveryId(row.try_get("id").map_err(db)?),
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        subscription_id: SubscriptionId(row.try_get("subscription_id").map_err(db)?),
        event_id: EventId(row.try_get("event_id").map_err(db)?),
        event_type: row.try_get("event_type").map_err(db)?,
        payload: serde_json::from_str(&row.try_get::<String, _>("payload").map_err(db)?)?,
        status: parse_status(&status)?,
        attempt_count: u32::try_from(row.try_get::<i64, _>("attempt_count").map_err(db)?).unwrap_or(u32::MAX),
        next_attempt_at: ts(row.try_get("next_attempt_at").map_err(db)?),
        attempts: Vec::new(),
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
        completed_at: ts(row.try_get("completed_at").map_err(db)?),
    })
}

fn parse_status(status: &str) -> Result<DeliveryStatus> {
    DeliveryStatus::parse(status).ok_or_else(|| StoreError::Corrupt(format!("delivery status {status}")))
}

fn attempt_from_row(row: &PgRow) -> Result<(String, Attempt)> {
    Ok((
        row.try_get("delivery_id").map_err(db)?,
        Attempt {
            attempted_at: Timestamp::from_millis(row.try_get("attempted_at").map_err(db)?),
            status_code: row
                .try_get::<Option<i64>, _>("status_code")
                .map_err(db)?
                .map(|c| u16::try_from(c).unwrap_or(u16::MAX)),
            error: row.try_get("error").map_err(db)?,
            latency_ms: u64::try_from(row.try_get::<i64, _>("latency_ms").map_err(db)?).unwrap_or(0),
            response_body: row.try_get("response_body").map_err(db)?,
        },
    ))
}

fn event_from_row(row: &PgRow) -> Result<Event> {
    Ok(Event {
        seq: row.try_get("seq").map_err(db)?,
        id: EventId(row.try_get("id").map_err(db)?),
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        event_type: row.try_get("event_type").map_err(db)?,
        timestamp: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        payload: serde_json::from_str(&row.try_get::<String, _>("payload").map_err(db)?)?,
    })
}

/// The states a round has ended in (what a purge may remove).
fn ended_states() -> Vec<DeliveryStatus> {
    DeliveryStatus::ALL.into_iter().filter(|s| s.is_ended()).collect()
}

/// The SQL `CASE` that moves a delivery's `status` along `t`: the state `after` gives from each
/// state that allows `t` (NULL from the others, which the caller's `IN` list leaves out).
fn after_sql(t: DeliveryTransition) -> String {
    let arms: String = DeliveryStatus::ALL
        .into_iter()
        .filter_map(|from| from.after(t).map(|to| format!(" WHEN '{}' THEN '{}'", from.as_str(), to.as_str())))
        .collect();
    format!("CASE status{arms} END")
}

/// Milliseconds of a duration as a BIGINT.
fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// Fills in the attempts of `deliveries`, oldest first.
async fn with_attempts(pool: &PgPool, mut deliveries: Vec<Delivery>) -> Result<Vec<Delivery>> {
    if deliveries.is_empty() {
        return Ok(deliveries);
    }
    let ids: Vec<&str> = deliveries.iter().map(|d| d.id.as_str()).collect();
    let rows = sqlx::query(
        "SELECT delivery_id, attempted_at, status_code, error, latency_ms, response_body FROM webhook_attempts
         WHERE delivery_id = ANY($1) ORDER BY id",
    )
    .bind(&ids)
    .fetch_all(pool)
    .await
    .map_err(db)?;
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

/// The account's subscription, locked until the transaction ends with `lock` (a row-lock clause).
async fn locked_subscription(
    conn: &mut PgConnection,
    account: &AccountId,
    id: &SubscriptionId,
    lock: &str,
) -> Result<Subscription> {
    let row = sqlx::query(&format!(
        "SELECT {SUB_COLUMNS} FROM webhook_subscriptions WHERE account_id = $1 AND id = $2 {lock}"
    ))
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
impl WebhookRepo for PgDb {
    async fn purge_completed(&self, before: Timestamp, limit: u32) -> Result<u64> {
        // Attempts go with their deliveries (ON DELETE CASCADE). A delivery locked by a writer
        // (being redelivered, say) is skipped: the next purge takes it if it is still ended.
        let ended = DeliveryStatus::sql_list(&ended_states());
        let n = sqlx::query(&format!(
            "DELETE FROM webhook_deliveries WHERE id IN (
                 SELECT id FROM webhook_deliveries WHERE status IN {ended} AND completed_at < $1
                 ORDER BY completed_at LIMIT $2 FOR UPDATE SKIP LOCKED)"
        ))
        .bind(before.millis())
        .bind(i64::from(limit))
        .execute(self.read())
        .await
        .map_err(db)?
        .rows_affected();
        Ok(n)
    }

    async fn create_subscription(&self, sub: &Subscription) -> Result<()> {
        sqlx::query(&format!(
            "INSERT INTO webhook_subscriptions ({SUB_COLUMNS})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
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
        .execute(self.read())
        .await
        .map_err(|e| taken(e, "subscription", sub.id.as_str()))?;
        Ok(())
    }

    async fn get_subscription(&self, account: &AccountId, id: &SubscriptionId) -> Result<Option<Subscription>> {
        let row =
            sqlx::query(&format!("SELECT {SUB_COLUMNS} FROM webhook_subscriptions WHERE account_id = $1 AND id = $2"))
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
        let filter = if dns_only { DNS_ONLY } else { "TRUE" };
        let anchor: Option<(i64,)> = self
            .anchor("SELECT seq FROM webhook_subscriptions WHERE account_id = $1 AND id = $2", account.as_str(), &page)
            .await?;
        let rows = sqlx::query(&format!(
            "SELECT {SUB_COLUMNS} FROM webhook_subscriptions WHERE account_id = $1 AND {filter}
             AND ($4::bigint IS NULL OR seq < $4) ORDER BY seq DESC LIMIT $2 OFFSET $3"
        ))
        .bind(account.as_str())
        .bind(i64::from(page.limit))
        .bind(page.skip(anchor.is_some()))
        .bind(anchor.map(|a| a.0))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        let total: i64 = sqlx::query_scalar(&format!(
            "SELECT count(*) FROM webhook_subscriptions WHERE account_id = $1 AND {filter}"
        ))
        .bind(account.as_str())
        .fetch_one(self.read())
        .await
        .map_err(db)?;
        Ok((rows.iter().map(sub_from_row).collect::<Result<_>>()?, u64::try_from(total).unwrap_or(0)))
    }

    async fn update_subscription(
        &self,
        account: &AccountId,
        id: &SubscriptionId,
        change: &SubscriptionChange,
        if_version: Option<i64>,
    ) -> Result<Subscription> {
        let mut tx = self.write().await?;
        // Locked from the version check to the commit: a concurrent change waits, then sees ours.
        let mut sub = locked_subscription(&mut tx, account, id, "FOR NO KEY UPDATE").await?;
        if let Err(e) = check_version(&sub, if_version) {
            return refuse(tx, e).await;
        }
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
            "UPDATE webhook_subscriptions SET url = $1, events = $2, description = $3, status = $4, paused_reason = $5,
                 failing_since = $6, version = $7, updated_at = $8
             WHERE id = $9",
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
        // FOR UPDATE, the lock a delete takes: held from the checks to the delete, and it makes
        // fan-out inserts for this subscription wait, then skip it.
        let sub = locked_subscription(&mut tx, account, id, "FOR UPDATE").await?;
        if dns_only && !sub.events.iter().all(|e| e.starts_with("dns.")) {
            return refuse(tx, DomainError::not_found("DNS webhook", id.as_str())).await;
        }
        if let Err(e) = check_version(&sub, if_version) {
            return refuse(tx, e).await;
        }
        // Its deliveries and their attempts go with it (ON DELETE CASCADE).
        sqlx::query("DELETE FROM webhook_subscriptions WHERE id = $1")
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
        // One conditional update: the secret it keeps as the previous one is the row's current
        // one at the time of the update, a concurrent rotation's included.
        let row = sqlx::query(&format!(
            "UPDATE webhook_subscriptions SET previous_secret = secret, previous_secret_expires_at = $1, secret = $2,
                 version = version + 1, updated_at = $3
             WHERE account_id = $4 AND id = $5 RETURNING {SUB_COLUMNS}"
        ))
        .bind(previous_expires_at.millis())
        .bind(secret)
        .bind(Timestamp::now().millis())
        .bind(account.as_str())
        .bind(id.as_str())
        .fetch_optional(self.read())
        .await
        .map_err(db)?;
        row.as_ref()
            .map(sub_from_row)
            .transpose()?
            .ok_or_else(|| DomainError::not_found("subscription", id.as_str()).into())
    }

    async fn active_subscriptions(&self, accounts: &[AccountId]) -> Result<Vec<Subscription>> {
        if accounts.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<&str> = accounts.iter().map(AccountId::as_str).collect();
        // In creation order, so that every node fans an event out in the same order.
        let rows = sqlx::query(&format!(
            "SELECT {SUB_COLUMNS} FROM webhook_subscriptions WHERE status = $1 AND account_id = ANY($2) ORDER BY seq"
        ))
        .bind(SubscriptionStatus::Active.as_str())
        .bind(&ids)
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
        let id_texts: Vec<&str> = ids.iter().map(DeliveryId::as_str).collect();
        let accounts: Vec<&str> = deliveries.iter().map(|d| d.account_id.as_str()).collect();
        let subs: Vec<&str> = deliveries.iter().map(|d| d.subscription_id.as_str()).collect();
        let events: Vec<&str> = deliveries.iter().map(|d| d.event_id.as_str()).collect();
        let types: Vec<&str> = deliveries.iter().map(|d| d.event_type.as_str()).collect();
        // One statement for the whole batch. The subscriptions are share-locked first (in id
        // order), so that one deleted meanwhile is skipped rather than failing the foreign key,
        // and one being deleted is waited for, then skipped. The unique pair keeps one delivery
        // per (event, subscription), a duplicate within the batch included (the first one wins).
        let added: Vec<String> = sqlx::query_scalar(
            "WITH live AS (
                 SELECT id, account_id FROM webhook_subscriptions WHERE id = ANY($3) ORDER BY id FOR KEY SHARE)
             INSERT INTO webhook_deliveries
                 (id, account_id, subscription_id, event_id, event_type, status, next_attempt_at, created_at, updated_at,
                  lease_owner, lease_expires_at)
             SELECT n.id, n.account_id, n.subscription_id, n.event_id, n.event_type, $6, $7, $7, $7, $8, $9
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY
                 AS n(id, account_id, subscription_id, event_id, event_type, k)
             JOIN live ON live.id = n.subscription_id AND live.account_id = n.account_id
             ORDER BY n.k
             ON CONFLICT ON CONSTRAINT webhook_deliveries_pair DO NOTHING
             RETURNING id",
        )
        .bind(&id_texts)
        .bind(&accounts)
        .bind(&subs)
        .bind(&events)
        .bind(&types)
        .bind(DeliveryStatus::START.as_str())
        .bind(now)
        .bind(lease.map(|(worker, _)| worker))
        .bind(lease.map(|(_, until)| until.millis()))
        .fetch_all(self.read())
        .await
        .map_err(|e| taken(e, "delivery", "with this id"))?;
        let index: HashMap<&str, usize> = id_texts.iter().enumerate().map(|(i, id)| (*id, i)).collect();
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
             WHERE account_id = $1 AND created_at >= $2 AND ($3::bigint IS NULL OR created_at < $3)
             ORDER BY created_at, seq LIMIT $4",
        )
        .bind(account.as_str())
        .bind(since.millis())
        .bind(until.map(|t| t.millis()))
        .bind(i64::from(limit))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn replay(&self, account: &AccountId, deliveries: &[NewDelivery], only_failed: bool) -> Result<u64> {
        let mine: Vec<&NewDelivery> = deliveries.iter().filter(|d| d.account_id == *account).collect();
        if mine.is_empty() {
            return Ok(0);
        }
        let now = Timestamp::now().millis();
        let replay = DeliveryTransition::Replay { only_failed };
        let from = DeliveryStatus::sql_list(&DeliveryStatus::from_which(replay));
        let to = after_sql(replay);
        let subs: Vec<&str> = mine.iter().map(|d| d.subscription_id.as_str()).collect();
        let events: Vec<&str> = mine.iter().map(|d| d.event_id.as_str()).collect();
        let mut tx = self.write().await?;
        // The account's subscriptions first, share-locked in id order (one being deleted is
        // waited for and then left out), then their deliveries.
        let live: Vec<String> = sqlx::query_scalar(
            "SELECT id FROM webhook_subscriptions WHERE id = ANY($1) AND account_id = $2 ORDER BY id FOR KEY SHARE",
        )
        .bind(&subs)
        .bind(account.as_str())
        .fetch_all(&mut *tx)
        .await
        .map_err(db)?;
        if live.is_empty() {
            return Ok(0);
        }
        // Ended ones start a new round, unless being attempted (a live lease). The rows are locked
        // in id order, and a row changed meanwhile is checked again as it is now.
        let reset = sqlx::query(&format!(
            "UPDATE webhook_deliveries SET status = {to}, round_attempts = 0, next_attempt_at = $1,
                 completed_at = NULL, updated_at = $1
             WHERE id IN (
                 SELECT d.id FROM webhook_deliveries d
                 JOIN unnest($2::text[], $3::text[]) AS p(event_id, subscription_id)
                     ON d.event_id = p.event_id AND d.subscription_id = p.subscription_id
                 WHERE d.account_id = $4 AND d.subscription_id = ANY($5) AND d.status IN {from}
                   AND (d.lease_expires_at IS NULL OR d.lease_expires_at < $1)
                 ORDER BY d.id FOR NO KEY UPDATE OF d)"
        ))
        .bind(now)
        .bind(&events)
        .bind(&subs)
        .bind(account.as_str())
        .bind(&live)
        .execute(&mut *tx)
        .await
        .map_err(db)?
        .rows_affected();
        let added = if only_failed {
            0
        } else {
            let ids: Vec<DeliveryId> = mine.iter().map(|_| DeliveryId::generate()).collect();
            let id_texts: Vec<&str> = ids.iter().map(DeliveryId::as_str).collect();
            let types: Vec<&str> = mine.iter().map(|d| d.event_type.as_str()).collect();
            sqlx::query(
                "INSERT INTO webhook_deliveries
                     (id, account_id, subscription_id, event_id, event_type, status, next_attempt_at, created_at,
                      updated_at)
                 SELECT n.id, $5, n.subscription_id, n.event_id, n.event_type, $6, $7, $7, $7
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY
                     AS n(id, subscription_id, event_id, event_type, k)
                 WHERE n.subscription_id = ANY($8)
                 ORDER BY n.k
                 ON CONFLICT ON CONSTRAINT webhook_deliveries_pair DO NOTHING",
            )
            .bind(&id_texts)
            .bind(&subs)
            .bind(&events)
            .bind(&types)
            .bind(account.as_str())
            .bind(DeliveryStatus::START.as_str())
            .bind(now)
            .bind(&live)
            .execute(&mut *tx)
            .await
            .map_err(|e| taken(e, "delivery", "with this id"))?
            .rows_affected()
        };
        tx.commit().await.map_err(db)?;
        Ok(reset + added)
    }

    async fn redeliver(&self, account: &AccountId, id: &DeliveryId) -> Result<Delivery> {
        let now = Timestamp::now().millis();
        let mut tx = self.write().await?;
        // Locked from the check to the commit: a claim skips it meanwhile, an attempt's outcome
        // waits for it (and then finds the lease gone).
        let row: Option<(String, Option<i64>)> = sqlx::query_as(
            "SELECT status, lease_expires_at FROM webhook_deliveries WHERE id = $1 AND account_id = $2
             FOR NO KEY UPDATE",
        )
        .bind(id.as_str())
        .bind(account.as_str())
        .fetch_optional(&mut *tx)
        .await
        .map_err(db)?;
        let Some((status, lease)) = row else {
            return refuse(tx, DomainError::not_found("delivery", id.as_str())).await;
        };
        let next = parse_status(&status)?.after(DeliveryTransition::Redeliver);
        let next = match next {
            Some(next) if lease.is_none_or(|l| l < now) => next,
            _ => {
                return refuse(
                    tx,
                    DomainError::conflict(
                        "delivery_in_flight",
                        format!("delivery {id} is about to be attempted; redeliver it once the attempt ended"),
                    ),
                )
                .await;
            }
        };
        sqlx::query(
            "UPDATE webhook_deliveries SET status = $3, round_attempts = 0, next_attempt_at = $1,
                 completed_at = NULL, updated_at = $1
             WHERE id = $2",
        )
        .bind(now)
        .bind(id.as_str())
        .bind(next.as_str())
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        self.get_delivery(account, id).await?.ok_or_else(|| DomainError::not_found("delivery", id.as_str()).into())
    }

    async fn get_delivery(&self, account: &AccountId, id: &DeliveryId) -> Result<Option<Delivery>> {
        let row = sqlx::query(&format!(
            "SELECT {DLV_COLUMNS} FROM webhook_deliveries d JOIN outbox o ON o.id = d.event_id
             WHERE d.id = $1 AND d.account_id = $2"
        ))
        .bind(id.as_str())
        .bind(account.as_str())
        .fetch_optional(self.read())
        .await
        .map_err(db)?;
        let Some(delivery) = row.as_ref().map(delivery_from_row).transpose()? else {
            return Ok(None);
        };
        Ok(with_attempts(self.read(), vec![delivery]).await?.pop())
    }

    async fn list_deliveries(
        &self,
        account: &AccountId,
        subscription: &SubscriptionId,
        filter: &DeliveryFilter,
        page: Page,
    ) -> Result<(Vec<Delivery>, u64)> {
        let condition = "d.account_id = $1 AND d.subscription_id = $2 AND ($3::text IS NULL OR d.status = $3)
             AND ($4::text IS NULL OR d.event_id = $4)";
        let anchor: Option<(i64,)> = self
            .anchor(
                "SELECT seq FROM webhook_deliveries WHERE subscription_id = $1 AND id = $2",
                subscription.as_str(),
                &page,
            )
            .await?;
        let rows = sqlx::query(&format!(
            "SELECT {DLV_COLUMNS} FROM webhook_deliveries d JOIN outbox o ON o.id = d.event_id
             WHERE {condition} AND ($7::bigint IS NULL OR d.seq < $7) ORDER BY d.seq DESC LIMIT $5 OFFSET $6"
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
        Ok((with_attempts(self.read(), deliveries).await?, u64::try_from(total).unwrap_or(0)))
    }

    async fn claim_deliveries(
        &self,
        worker: &str,
        limit: u32,
        per_subscription: u32,
        lease: Duration,
    ) -> Result<Vec<ClaimedDelivery>> {
        if limit == 0 || per_subscription == 0 {
            return Ok(Vec::new());
        }
        let now = Timestamp::now();
        let due = DeliveryStatus::sql_list(&DeliveryStatus::DUE);
        // Claimable: due, its time come, and not leased (or its lease ran out: its worker died).
        let claimable = format!(
            "d.status IN {due} AND d.next_attempt_at <= $1 AND (d.lease_expires_at IS NULL OR d.lease_expires_at < $1)"
        );
        // In flight: due and leased; the lease of another worker counts.
        let in_flight = |alias: &str| {
            format!(
                "(SELECT count(*) FROM webhook_deliveries l
                  WHERE l.subscription_id = {alias}.id AND l.status IN {due} AND l.lease_expires_at >= $1)"
            )
        };
        let mut tx = self.write().await?;
        // 1. Lock the active subscriptions with claimable deliveries, those due longest first, at
        // most one per delivery wanted. One locked by another claimer (or being changed) is
        // skipped, not waited for. Those full already are left out here by a count that may be
        // stale; the count that decides is the one below, made under the locks.
        let subs: Vec<String> = sqlx::query_scalar(&format!(
            "SELECT s.id FROM webhook_subscriptions s
             JOIN (SELECT d.subscription_id, min(d.next_attempt_at) AS first FROM webhook_deliveries d
                   WHERE {claimable} GROUP BY d.subscription_id) c ON c.subscription_id = s.id
             WHERE s.status = $2 AND {} < $3
             ORDER BY c.first, s.id LIMIT $4
             FOR NO KEY UPDATE OF s SKIP LOCKED",
            in_flight("s")
        ))
        .bind(now.millis())
        .bind(SubscriptionStatus::Active.as_str())
        .bind(i64::from(per_subscription))
        .bind(i64::from(limit))
        .fetch_all(&mut *tx)
        .await
        .map_err(db)?;
        if subs.is_empty() {
            tx.commit().await.map_err(db)?;
            return Ok(Vec::new());
        }
        // 2. A new statement, so a new snapshot: it sees every lease committed by the claimers
        // that held these subscriptions before us. Each subscription gets as many of its oldest
        // claimable deliveries as it has free slots, then the oldest of those overall are leased.
        let rows = sqlx::query(&format!(
            "WITH room AS (
                 SELECT u.id, $4 - {} AS free FROM unnest($2::text[]) AS u(id)),
             pick AS (
                 SELECT c.id, c.next_attempt_at FROM room CROSS JOIN LATERAL (
                     SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
                     WHERE d.subscription_id = room.id AND {claimable}
                     ORDER BY d.next_attempt_at, d.id LIMIT greatest(room.free, 0)
                     FOR UPDATE SKIP LOCKED) c
                 ORDER BY c.next_attempt_at, c.id LIMIT $5),
             claimed AS (
                 UPDATE webhook_deliveries d SET lease_owner = $3, lease_expires_at = $6
                 FROM pick WHERE d.id = pick.id
                 RETURNING d.id, d.account_id, d.subscription_id, d.event_id, d.event_type, d.round_attempts,
                     d.next_attempt_at)
             SELECT c.id, c.account_id, c.subscription_id, c.event_id, c.event_type, c.round_attempts, o.payload,
                    s.url, s.secret, s.previous_secret, s.previous_secret_expires_at
             FROM claimed c
             JOIN webhook_subscriptions s ON s.id = c.subscription_id
             JOIN outbox o ON o.id = c.event_id
             ORDER BY c.next_attempt_at, c.id",
            in_flight("u")
        ))
        .bind(now.millis())
        .bind(&subs)
        .bind(worker)
        .bind(i64::from(per_subscription))
        .bind(i64::from(limit))
        .bind(now.plus(lease).millis())
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
                    round_attempts: u32::try_from(row.try_get::<i64, _>("round_attempts").map_err(db)?)
                        .unwrap_or(u32::MAX),
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
        // The attempts, in the order given.
        let mut attempt_ids = Vec::with_capacity(records.len());
        let mut attempted_at = Vec::with_capacity(records.len());
        let mut status_codes = Vec::with_capacity(records.len());
        let mut errors = Vec::with_capacity(records.len());
        let mut latencies = Vec::with_capacity(records.len());
        let mut bodies = Vec::with_capacity(records.len());
        // The outcomes: for each delivery, one row per state the attempt may find it in, with the
        // state the state machine moves it to from there.
        let mut outcome_ids = Vec::new();
        let mut outcome_from = Vec::new();
        let mut outcome_to = Vec::new();
        let mut outcome_next = Vec::new();
        let mut outcome_completed = Vec::new();
        let mut seen = HashSet::new();
        for r in records {
            let a = &r.attempt;
            attempt_ids.push(r.id.as_str());
            attempted_at.push(a.attempted_at.millis());
            status_codes.push(a.status_code.map(i64::from));
            errors.push(a.error.as_deref());
            latencies.push(i64::try_from(a.latency_ms).unwrap_or(i64::MAX));
            bodies.push(a.response_body.as_deref());
            // A delivery is leased to one attempt at a time; a second record of the same one in a
            // batch would be a lease lost and found again, and is not an outcome of this lease.
            if !seen.insert(r.id.as_str()) {
                continue;
            }
            let next = match r.outcome {
                AttemptOutcome::RetryAt(at) => Some(at.millis()),
                _ => None,
            };
            for from in DeliveryStatus::ALL {
                if let Some(to) = from.after(DeliveryTransition::Attempted(r.outcome)) {
                    outcome_ids.push(r.id.as_str());
                    outcome_from.push(from.as_str());
                    outcome_to.push(to.as_str());
                    outcome_next.push(next);
                    outcome_completed.push(to.is_ended().then_some(now));
                }
            }
        }
        let mut ids: Vec<&str> = seen.into_iter().collect();
        ids.sort_unstable();
        let mut tx = self.write().await?;
        // 1. The deliveries' subscriptions, share-locked in id order: a subscription being deleted
        // is waited for here, before any of its deliveries is locked (its delete waits for those).
        let subs: Vec<(String, Option<i64>)> = sqlx::query_as(
            "SELECT id, failing_since FROM webhook_subscriptions
             WHERE id IN (SELECT subscription_id FROM webhook_deliveries WHERE id = ANY($1))
             ORDER BY id FOR KEY SHARE OF webhook_subscriptions",
        )
        .bind(&ids)
        .fetch_all(&mut *tx)
        .await
        .map_err(db)?;
        // 2. The deliveries, locked in id order; those deleted meanwhile are left out.
        let present: Vec<String> =
            sqlx::query_scalar("SELECT id FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE")
                .bind(&ids)
                .fetch_all(&mut *tx)
                .await
                .map_err(db)?;
        // 3. Every attempt is logged; an outcome is recorded only where the worker still holds the
        // lease and the state machine allows it from the delivery's state (an ended one is left).
        let updated = sqlx::query(
            "WITH logged AS (
                 INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, error, latency_ms, response_body)
                 SELECT a.delivery_id, a.attempted_at, a.status_code, a.error, a.latency_ms, a.response_body
                 FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::bigint[], $6::text[])
                     WITH ORDINALITY AS a(delivery_id, attempted_at, status_code, error, latency_ms, response_body, k)
                 WHERE a.delivery_id = ANY($7)
                 ORDER BY a.k)
             UPDATE webhook_deliveries d SET status = o.to_status, next_attempt_at = o.next_attempt_at,
                 completed_at = o.completed_at, updated_at = $13,
                 attempt_count = d.attempt_count + 1, round_attempts = d.round_attempts + 1,
                 lease_owner = NULL, lease_expires_at = NULL
             FROM unnest($8::text[], $9::text[], $10::text[], $11::bigint[], $12::bigint[])
                 AS o(id, from_status, to_status, next_attempt_at, completed_at)
             WHERE d.id = o.id AND d.status = o.from_status AND d.lease_owner = $14
             RETURNING d.id, d.subscription_id",
        )
        .bind(&attempt_ids)
        .bind(&attempted_at)
        .bind(&status_codes)
        .bind(&errors)
        .bind(&latencies)
        .bind(&bodies)
        .bind(&present)
        .bind(&outcome_ids)
        .bind(&outcome_from)
        .bind(&outcome_to)
        .bind(&outcome_next)
        .bind(&outcome_completed)
        .bind(now)
        .bind(worker)
        .fetch_all(&mut *tx)
        .await
        .map_err(db)?;
        let mut subscription_of: HashMap<String, String> = HashMap::with_capacity(updated.len());
        for row in &updated {
            subscription_of.insert(row.try_get("id").map_err(db)?, row.try_get("subscription_id").map_err(db)?);
        }
        // Per subscription, in attempt order: the run of failures starts at the first failed
        // attempt after a success; once it has lasted `disable_after`, the endpoint is taken to be
        // gone and the subscription paused.
        let mut runs: Vec<(String, FailureRun)> = Vec::new();
        let mut counted = HashSet::new();
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
        // A success on a subscription with no run of failures changes nothing: no lock, no write.
        let failing: HashMap<&str, Option<i64>> = subs.iter().map(|(id, since)| (id.as_str(), *since)).collect();
        runs.retain(|(sub, run)| match run {
            FailureRun::Unchanged => false,
            FailureRun::Cleared => failing.get(sub.as_str()).is_some_and(Option::is_some),
            _ => true,
        });
        if !runs.is_empty() {
            runs.sort_by(|a, b| a.0.cmp(&b.0));
            update_failure_runs(&mut tx, &runs, now, disable_after).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(recorded)
    }

    async fn next_due(&self) -> Result<Option<Timestamp>> {
        let due = DeliveryStatus::sql_list(&DeliveryStatus::DUE);
        let next: Option<i64> = sqlx::query_scalar(&format!(
            "SELECT min(greatest(d.next_attempt_at, coalesce(d.lease_expires_at, 0))) FROM webhook_deliveries d
             JOIN webhook_subscriptions s ON s.id = d.subscription_id
             WHERE d.status IN {due} AND s.status = $1"
        ))
        .bind(SubscriptionStatus::Active.as_str())
        .fetch_one(self.read())
        .await
        .map_err(db)?;
        Ok(ts(next))
    }
}

/// Applies the runs of failures (sorted by subscription) to their subscriptions: each is locked
/// in id order first, then updated from its current row, pausing it once its run has lasted
/// `disable_after`.
async fn update_failure_runs(
    conn: &mut PgConnection,
    runs: &[(String, FailureRun)],
    now: i64,
    disable_after: Duration,
) -> Result<()> {
    let ids: Vec<&str> = runs.iter().map(|(s, _)| s.as_str()).collect();
    // The run's instant (NULL when cleared), and whether it goes on from the stored start.
    let at: Vec<Option<i64>> = runs
        .iter()
        .map(|(_, run)| match *run {
            FailureRun::Continued(at) | FailureRun::StartedAt(at) => Some(at),
            FailureRun::Cleared | FailureRun::Unchanged => None,
        })
        .collect();
    let keep: Vec<bool> = runs.iter().map(|(_, run)| matches!(run, FailureRun::Continued(_))).collect();
    sqlx::query("SELECT id FROM webhook_subscriptions WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE")
        .bind(&ids)
        .fetch_all(&mut *conn)
        .await
        .map_err(db)?;
    let since = "CASE WHEN r.keep THEN coalesce(s.failing_since, r.at) ELSE r.at END";
    let pause = format!("(r.at IS NOT NULL AND s.status = $4 AND {since} <= $3)");
    sqlx::query(&format!(
        "UPDATE webhook_subscriptions s SET failing_since = {since},
             status = CASE WHEN {pause} THEN $5 ELSE s.status END,
             paused_reason = CASE WHEN {pause} THEN $6 ELSE s.paused_reason END,
             version = s.version + CASE WHEN {pause} THEN 1 ELSE 0 END,
             updated_at = CASE WHEN {pause} THEN $7 ELSE s.updated_at END
         FROM unnest($1::text[], $2::bigint[], $8::boolean[]) AS r(id, at, keep)
         WHERE s.id = r.id AND (s.failing_since IS DISTINCT FROM {since} OR {pause})"
    ))
    .bind(&ids)
    .bind(&at)
    .bind(now.saturating_sub(millis(disable_after)))
    .bind(SubscriptionStatus::Active.as_str())
    .bind(SubscriptionStatus::Paused.as_str())
    .bind(PAUSED_FAILING)
    .bind(now)
    .bind(&keep)
    .execute(&mut *conn)
    .await
    .map_err(db)?;
    Ok(())
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

/// Claims, attempts and the other writers at once, on several connection pools (as several nodes
/// would), against the PostgreSQL server `MERIDIAN_TEST_POSTGRES` names; skipped without one.
#[cfg(test)]
mod concurrency {
    use super::*;
    use crate::{create_database, PgOptions};
    use meridian_store::repo::WebhookRepo;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    type TestResult<T = ()> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

    const LONG: Duration = Duration::from_secs(600);

    /// `nodes` pools on a new database with one account, or `None` without a server.
    async fn nodes(name: &str, nodes: usize) -> TestResult<Option<(Vec<PgDb>, AccountId)>> {
        let Ok(server) = std::env::var("MERIDIAN_TEST_POSTGRES") else { return Ok(None) };
        let unique = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_nanos();
        let url = create_database(&server, &format!("meridian_test_wh_{name}_{unique}")).await?;
        let mut dbs = Vec::new();
        for _ in 0..nodes {
            let options = PgOptions {
                url: url.clone(),
                max_connections: 6,
                acquire_timeout: Duration::from_secs(30),
                statement_timeout: Duration::from_secs(30),
                application_name: "meridian-webhooks-test".into(),
            };
            dbs.push(PgDb::open(&options).await?);
        }
        dbs[0].migrate().await?;
        let account = AccountId::generate();
        sqlx::query("INSERT INTO accounts (id, name, email, created_at) VALUES ($1, 'A', $2, 0)")
            .bind(account.as_str())
            .bind(format!("{}@example.com", account.as_str()))
            .execute(dbs[0].read())
            .await?;
        Ok(Some((dbs, account)))
    }

    /// Active subscriptions, each with `n` deliveries due now (and their events).
    async fn subscriptions(db: &PgDb, account: &AccountId, subs: usize, n: usize) -> TestResult<Vec<Subscription>> {
        let mut made = Vec::new();
        for i in 0..subs {
            let sub = Subscription {
                id: SubscriptionId::generate(),
                account_id: account.clone(),
                url: format!("https://hooks.example.com/{i}"),
                events: vec!["*".into()],
                description: None,
                status: SubscriptionStatus::Active,
                paused_reason: None,
                failing_since: None,
                secret: "whsec_x".into(),
                previous_secret: None,
                previous_secret_expires_at: None,
                version: 1,
                created_at: Timestamp::now(),
                updated_at: Timestamp::now(),
            };
            db.create_subscription(&sub).await?;
            made.push(sub);
        }
        let mut deliveries = Vec::new();
        for _ in 0..n {
            let event = EventId::generate();
            sqlx::query(
                "INSERT INTO outbox (id, account_id, event_type, payload, created_at) VALUES ($1, $2, 't', '{}', 0)",
            )
            .bind(event.as_str())
            .bind(account.as_str())
            .execute(db.read())
            .await?;
            for sub in &made {
                deliveries.push(NewDelivery {
                    account_id: account.clone(),
                    subscription_id: sub.id.clone(),
                    event_id: event.clone(),
                    event_type: "t".into(),
                });
            }
        }
        db.insert_deliveries(&deliveries).await?;
        Ok(made)
    }

    /// Live leases per subscription, as committed now.
    async fn in_flight(db: &PgDb) -> TestResult<Vec<i64>> {
        let due = DeliveryStatus::sql_list(&DeliveryStatus::DUE);
        Ok(sqlx::query_scalar(&format!(
            "SELECT count(*) FROM webhook_deliveries WHERE status IN {due} AND lease_expires_at >= $1
             GROUP BY subscription_id"
        ))
        .bind(Timestamp::now().millis())
        .fetch_all(db.read())
        .await?)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn claimers_on_several_nodes_never_pass_the_per_subscription_limit() -> TestResult {
        let Some((dbs, account)) = nodes("claims", 4).await? else { return Ok(()) };
        let subs = subscriptions(&dbs[0], &account, 3, 40).await?;
        let mut tasks = Vec::new();
        for w in 0..16 {
            let db = dbs[w % dbs.len()].clone();
            tasks.push(tokio::spawn(async move {
                let mut mine = Vec::new();
                for _ in 0..40 {
                    mine.extend(db.claim_deliveries(&format!("w{w}"), 2, 3, LONG).await?);
                }
                TestResult::Ok(mine)
            }));
        }
        let mut claimed = Vec::new();
        for t in tasks {
            claimed.extend(t.await??);
        }
        let ids: HashSet<&str> = claimed.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), claimed.len(), "no delivery is claimed twice");
        for sub in &subs {
            assert_eq!(claimed.iter().filter(|c| c.subscription_id == sub.id).count(), 3, "3 in flight, no more");
        }
        assert_eq!(in_flight(&dbs[0]).await?, vec![3, 3, 3]);
        Ok(())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn slots_freed_by_outcomes_are_refilled_up_to_the_limit_only() -> TestResult {
        let Some((dbs, account)) = nodes("refill", 3).await? else { return Ok(()) };
        let subs = subscriptions(&dbs[0], &account, 2, 60).await?;
        let total = subs.len() * 60;
        let done = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for w in 0..9 {
            let (db, done) = (dbs[w % dbs.len()].clone(), done.clone());
            tasks.push(tokio::spawn(async move {
                let worker = format!("w{w}");
                while done.load(Ordering::SeqCst) < total {
                    let batch = db.claim_deliveries(&worker, 3, 2, LONG).await?;
                    if batch.is_empty() {
                        tokio::time::sleep(Duration::from_millis(2)).await;
                        continue;
                    }
                    let records: Vec<AttemptRecord> = batch
                        .iter()
                        .enumerate()
                        .map(|(i, c)| AttemptRecord {
                            id: c.id.clone(),
                            attempt: Attempt {
                                attempted_at: Timestamp::now(),
                                status_code: Some(200),
                                error: None,
                                latency_ms: 1,
                                response_body: None,
                            },
                            // Some fail first and are retried at once.
                            outcome: if i % 2 == 1 && c.round_attempts == 0 {
                                AttemptOutcome::RetryAt(Timestamp::now())
                            } else {
                                AttemptOutcome::Succeeded
                            },
                        })
                        .collect();
                    let recorded = db.record_attempts(&worker, &records, LONG).await?;
                    assert!(recorded.iter().all(|r| *r), "the lease holder records every outcome");
                    let succeeded = records.iter().filter(|r| r.outcome == AttemptOutcome::Succeeded).count();
                    done.fetch_add(succeeded, Ordering::SeqCst);
                }
                TestResult::Ok(())
            }));
        }
        let watcher = {
            let (db, done) = (dbs[0].clone(), done.clone());
            tokio::spawn(async move {
                let mut most = 0;
                while done.load(Ordering::SeqCst) < total {
                    most = in_flight(&db).await?.into_iter().fold(most, i64::max);
                }
                TestResult::Ok(most)
            })
        };
        for t in tasks {
            t.await??;
        }
        assert!(watcher.await?? <= 2, "never more than 2 in flight per subscription");
        let counts: Vec<(String, i64, i64)> =
            sqlx::query_as("SELECT status, attempt_count, (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id) FROM webhook_deliveries d")
                .fetch_all(dbs[0].read())
                .await?;
        assert_eq!(counts.len(), total);
        for (status, attempts, logged) in counts {
            assert_eq!(status, DeliveryStatus::Succeeded.as_str());
            assert!(attempts == logged && (1..=2).contains(&attempts), "each attempt made once: {attempts} {logged}");
        }
        Ok(())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn every_writer_at_once_ends_without_a_deadlock() -> TestResult {
        let Some((dbs, account)) = nodes("mixed", 3).await? else { return Ok(()) };
        let subs = subscriptions(&dbs[0], &account, 6, 30).await?;
        let stop = Timestamp::now().plus(Duration::from_secs(4));
        let mut tasks = Vec::new();
        for w in 0..12 {
            let (db, account, subs) = (dbs[w % dbs.len()].clone(), account.clone(), subs.clone());
            tasks.push(tokio::spawn(async move {
                let worker = format!("w{w}");
                let mut round = 0usize;
                while Timestamp::now() < stop {
                    round += 1;
                    let sub = &subs[(w + round) % subs.len()];
                    let outcome: Result<()> = match (w + round) % 6 {
                        // Claim and record in a group, failing some for good.
                        0..=2 => {
                            async {
                                let batch = db.claim_deliveries(&worker, 6, 4, Duration::from_millis(200)).await?;
                                let records: Vec<AttemptRecord> = batch
                                    .iter()
                                    .rev()
                                    .enumerate()
                                    .map(|(i, c)| AttemptRecord {
                                        id: c.id.clone(),
                                        attempt: Attempt {
                                            attempted_at: Timestamp::now(),
                                            status_code: None,
                                            error: Some("refused".into()),
                                            latency_ms: 1,
                                            response_body: None,
                                        },
                                        outcome: match i % 3 {
                                            0 => AttemptOutcome::Succeeded,
                                            1 => AttemptOutcome::Exhausted,
                                            _ => AttemptOutcome::RetryAt(Timestamp::now()),
                                        },
                                    })
                                    .collect();
                                db.record_attempts(&worker, &records, Duration::from_millis(5)).await?;
                                Ok(())
                            }
                            .await
                        }
                        3 => {
                            async {
                                let (list, _) = db
                                    .list_deliveries(&account, &sub.id, &DeliveryFilter::default(), Page::at(20, 0))
                                    .await?;
                                let again: Vec<NewDelivery> = list
                                    .iter()
                                    .map(|d| NewDelivery {
                                        account_id: account.clone(),
                                        subscription_id: sub.id.clone(),
                                        event_id: d.event_id.clone(),
                                        event_type: d.event_type.clone(),
                                    })
                                    .collect();
                                db.replay(&account, &again, round.is_multiple_of(2)).await?;
                                for d in list.iter().take(3) {
                                    let _ = db.redeliver(&account, &d.id).await;
                                }
                                Ok(())
                            }
                            .await
                        }
                        4 => {
                            async {
                                let resume = SubscriptionChange {
                                    status: Some(SubscriptionStatus::Active),
                                    ..Default::default()
                                };
                                db.update_subscription(&account, &sub.id, &resume, None).await?;
                                db.purge_completed(Timestamp::now(), 10).await?;
                                Ok(())
                            }
                            .await
                        }
                        // Late in the run, delete a subscription while its deliveries are busy.
                        _ if round > 150 && w < 2 => {
                            db.delete_subscription(&account, &subs[(round / 6) % 3].id, None, false).await
                        }
                        _ => db.next_due().await.map(|_| ()),
                    };
                    match outcome {
                        Ok(()) | Err(StoreError::Domain(_)) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
                TestResult::Ok(round)
            }));
        }
        for t in tasks {
            t.await??;
        }
        Ok(())
    }
}
