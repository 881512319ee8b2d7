use crate::error::db;
use crate::{notify, PgDb, EVENTS_CHANNEL, OUTBOX_LOCK};
use async_trait::async_trait;
use meridian_core::event::{Event, NewEvent};
use meridian_core::id::{AccountId, EventId};
use meridian_core::page::Page;
use meridian_core::Timestamp;
use meridian_store::repo::{EventFilter, OutboxRepo};
use meridian_store::Notice;
use meridian_store::Result;
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};

/// Inserts events inside the caller's transaction, so that they commit (or not) with the change,
/// in the order given, and tells every node when it commits. The outbox lock, held to the end of
/// the transaction, gives the events their positions in commit order.
pub(crate) async fn insert_events(conn: &mut PgConnection, events: &[NewEvent]) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    sqlx::query("SELECT pg_advisory_xact_lock($1)").bind(OUTBOX_LOCK).execute(&mut *conn).await.map_err(db)?;
    let mut ids = Vec::with_capacity(events.len());
    let mut accounts = Vec::with_capacity(events.len());
    let mut types = Vec::with_capacity(events.len());
    let mut payloads = Vec::with_capacity(events.len());
    let mut times = Vec::with_capacity(events.len());
    for e in events {
        ids.push(e.id.as_str().to_owned());
        accounts.push(e.account_id.as_str().to_owned());
        types.push(e.event_type.to_string());
        payloads.push(serde_json::to_string(&e.payload)?);
        times.push(e.timestamp.millis());
    }
    sqlx::query(
        "INSERT INTO outbox (id, account_id, event_type, payload, created_at)
         SELECT e.id, e.account_id, e.event_type, e.payload, e.created_at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) WITH ORDINALITY
             AS e(id, account_id, event_type, payload, created_at, n)
         ORDER BY n",
    )
    .bind(&ids)
    .bind(&accounts)
    .bind(&types)
    .bind(&payloads)
    .bind(&times)
    .execute(&mut *conn)
    .await
    .map_err(db)?;
    let notice = Notice::of_events(types.iter().map(String::as_str));
    notify(conn, EVENTS_CHANNEL, &notice.encode()).await
}

const EVENT_COLUMNS: &str = "seq, id, account_id, event_type, payload, created_at";

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

#[async_trait]
impl OutboxRepo for PgDb {
    async fn append(&self, events: &[NewEvent]) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        let tx = self.write().await?;
        self.commit_with_events(tx, events).await
    }

    async fn pending(&self, limit: u32) -> Result<Vec<Event>> {
        let rows = sqlx::query(&format!(
            "SELECT {EVENT_COLUMNS} FROM outbox WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1"
        ))
        .bind(i64::from(limit))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn pending_after(&self, after: i64, limit: u32) -> Result<Vec<Event>> {
        let rows = sqlx::query(&format!(
            "SELECT {EVENT_COLUMNS} FROM outbox WHERE dispatched_at IS NULL AND seq > $1 ORDER BY seq LIMIT $2"
        ))
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn mark_dispatched(&self, seqs: &[i64], at: Timestamp) -> Result<()> {
        if seqs.is_empty() {
            return Ok(());
        }
        sqlx::query("UPDATE outbox SET dispatched_at = $1 WHERE seq = ANY($2)")
            .bind(at.millis())
            .bind(seqs)
            .execute(self.read())
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn purge_dispatched(&self, before: Timestamp, limit: u32) -> Result<u64> {
        let n = sqlx::query(
            "DELETE FROM outbox WHERE seq IN (
                 SELECT seq FROM outbox WHERE dispatched_at IS NOT NULL AND created_at < $1 ORDER BY seq LIMIT $2)",
        )
        .bind(before.millis())
        .bind(i64::from(limit))
        .execute(self.read())
        .await
        .map_err(db)?
        .rows_affected();
        Ok(n)
    }

    async fn list_events(&self, account: &AccountId, filter: &EventFilter, page: Page) -> Result<(Vec<Event>, u64)> {
        if filter.field.is_some() && filter.field_name().is_none() {
            return Ok((Vec::new(), 0));
        }
        let anchor: Option<(i64,)> =
            self.anchor("SELECT seq FROM outbox WHERE account_id = $1 AND id = $2", account.as_str(), &page).await?;
        let name = filter.field_name();
        let value = filter.field.as_ref().map(|(_, v)| v.as_str());
        const WHERE: &str = "account_id = $1 AND ($2::text IS NULL OR starts_with(event_type, $2))
             AND ($3::text IS NULL OR (payload::jsonb ->> $3) = $4)";
        let rows = sqlx::query(&format!(
            "SELECT {EVENT_COLUMNS} FROM outbox WHERE {WHERE} AND ($7::bigint IS NULL OR seq < $7)
             ORDER BY seq DESC LIMIT $5 OFFSET $6"
        ))
        .bind(account.as_str())
        .bind(filter.type_prefix.as_deref())
        .bind(name)
        .bind(value)
        .bind(i64::from(page.limit))
        .bind(page.skip(anchor.is_some()))
        .bind(anchor.map(|a| a.0))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        let total: i64 = sqlx::query_scalar(&format!("SELECT count(*) FROM outbox WHERE {WHERE}"))
            .bind(account.as_str())
            .bind(filter.type_prefix.as_deref())
            .bind(name)
            .bind(value)
            .fetch_one(self.read())
            .await
            .map_err(db)?;
        let found = rows.iter().map(event_from_row).collect::<Result<Vec<_>>>()?;
        Ok((found, u64::try_from(total).unwrap_or(0)))
    }
}
