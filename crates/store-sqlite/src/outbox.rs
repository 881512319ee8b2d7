use super::SqliteDb;
use crate::error::db;
use async_trait::async_trait;
use meridian_core::event::{Event, NewEvent};
use meridian_core::id::{AccountId, EventId};
use meridian_core::page::Page;
use meridian_core::Timestamp;
use meridian_store::repo::{EventFilter, OutboxRepo};
use meridian_store::{Result, StoreError};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::oneshot;

/// Inserts events inside the caller's transaction, so that they commit (or not) with the change.
/// One statement for any number of events, in the order given.
pub(crate) async fn insert_events(conn: &mut SqliteConnection, events: &[NewEvent]) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    sqlx::query(INSERT_EVENTS).bind(event_rows(events.iter())?).execute(&mut *conn).await.map_err(db)?;
    Ok(())
}

/// Inserts the events given as a JSON array of rows (see [`event_rows`]), in order.
pub(crate) const INSERT_EVENTS: &str = "INSERT INTO outbox (id, account_id, event_type, payload, created_at)
     SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4
     FROM json_each(?1) j ORDER BY j.key";

/// Events as one JSON array of rows, for one statement however many there are.
pub(crate) fn event_rows<'a>(events: impl Iterator<Item = &'a NewEvent>) -> Result<String> {
    let rows = events
        .map(|e| {
            Ok(serde_json::json!([
                e.id.as_str(),
                e.account_id.as_str(),
                e.event_type,
                serde_json::to_string(&e.payload)?,
                e.timestamp.millis()
            ]))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(serde_json::to_string(&rows)?)
}

fn event_from_row(row: &SqliteRow) -> Result<Event> {
    Ok(Event {
        seq: row.try_get("seq").map_err(db)?,
        id: EventId(row.try_get("id").map_err(db)?),
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        event_type: row.try_get("event_type").map_err(db)?,
        timestamp: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        payload: serde_json::from_str(&row.try_get::<String, _>("payload").map_err(db)?)?,
    })
}

/// A caller's events waiting for the next group commit, and where its answer goes.
type Waiting = (Vec<NewEvent>, oneshot::Sender<Result<()>>);

/// Appends of events with no other change, committed together (group commit): callers queue
/// their events, and the first of them to take the lead writes every queued append in one
/// transaction while the next ones queue up behind it.
#[derive(Default)]
pub(crate) struct AppendQueue {
    waiting: Mutex<Vec<Waiting>>,
    leader: Arc<tokio::sync::Mutex<()>>,
}

impl std::fmt::Debug for AppendQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppendQueue").finish_non_exhaustive()
    }
}

impl AppendQueue {
    fn waiting(&self) -> std::sync::MutexGuard<'_, Vec<Waiting>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn abandoned() -> StoreError {
    StoreError::Unsupported("the commit of these events was abandoned (the process is stopping)".into())
}

impl SqliteDb {
    /// Commits the queued appends: all in one transaction, or, when that fails, each in its own
    /// so that one bad append fails alone.
    async fn commit_appends(&self, batch: Vec<Waiting>) {
        let together = self.append_now(batch.iter().flat_map(|(events, _)| events.iter())).await;
        match together {
            Ok(()) => {
                for (_, done) in batch {
                    let _ = done.send(Ok(()));
                }
            }
            Err(e) if batch.len() == 1 => {
                if let Some((_, done)) = batch.into_iter().next() {
                    let _ = done.send(Err(e));
                }
            }
            Err(_) => {
                for (events, done) in batch {
                    let _ = done.send(self.append_now(events.iter()).await);
                }
            }
        }
    }

    /// One transaction that inserts `events`, sent to the writer as one script (begin, insert,
    /// commit) so that it costs one round trip to the writer's thread instead of three; a failed
    /// script is rolled back before the connection goes back to the pool.
    async fn append_now<'a>(&self, events: impl Iterator<Item = &'a NewEvent>) -> Result<()> {
        let events: Vec<&NewEvent> = events.collect();
        let rows = event_rows(events.iter().copied())?;
        let mut conn = self.writer().await?;
        let sql = format!("BEGIN IMMEDIATE; {INSERT_EVENTS}; COMMIT");
        conn.script(sqlx::query(&sql).bind(rows), true).await?;
        // `append` never queues an empty list: something was written.
        self.events_committed(events.into_iter());
        Ok(())
    }
}

#[async_trait]
impl OutboxRepo for SqliteDb {
    async fn purge_dispatched(&self, before: Timestamp, limit: u32) -> Result<u64> {
        let mut tx = self.write().await?;
        let n = sqlx::query(
            "DELETE FROM outbox WHERE seq IN (
                 SELECT seq FROM outbox WHERE dispatched_at IS NOT NULL AND created_at < ?1 ORDER BY seq LIMIT ?2)",
        )
        .bind(before.millis())
        .bind(i64::from(limit))
        .execute(&mut *tx)
        .await
        .map_err(db)?
        .rows_affected();
        tx.commit().await.map_err(db)?;
        Ok(n)
    }

    async fn append(&self, events: &[NewEvent]) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        let (done, mut answer) = oneshot::channel();
        self.appends.waiting().push((events.to_vec(), done));
        let leader = tokio::select! {
            biased;
            answer = &mut answer => return answer.unwrap_or_else(|_| Err(abandoned())),
            leader = self.appends.leader.clone().lock_owned() => leader,
        };
        // The previous leader answers before it lets go, so an empty queue means ours is answered.
        let batch = std::mem::take(&mut *self.appends.waiting());
        if !batch.is_empty() {
            let db = self.clone();
            // A task of its own: a caller that goes away mid-commit does not abandon the others.
            tokio::spawn(async move {
                db.commit_appends(batch).await;
                drop(leader);
            });
        }
        answer.await.unwrap_or_else(|_| Err(abandoned()))
    }

    async fn pending(&self, limit: u32) -> Result<Vec<Event>> {
        let rows = sqlx::query(
            "SELECT seq, id, account_id, event_type, payload, created_at FROM outbox
             WHERE dispatched_at IS NULL ORDER BY seq LIMIT ?",
        )
        .bind(i64::from(limit))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn pending_after(&self, after: i64, limit: u32) -> Result<Vec<Event>> {
        let rows = sqlx::query(
            "SELECT seq, id, account_id, event_type, payload, created_at FROM outbox
             WHERE dispatched_at IS NULL AND seq > ? ORDER BY seq LIMIT ?",
        )
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
        let mut conn = self.writer().await?;
        let sql = "BEGIN IMMEDIATE;
             UPDATE outbox SET dispatched_at = ?1 WHERE seq IN (SELECT value FROM json_each(?2));
             COMMIT";
        conn.script(sqlx::query(sql).bind(at.millis()).bind(serde_json::to_string(seqs)?), true).await?;
        Ok(())
    }

    async fn list_events(&self, account: &AccountId, filter: &EventFilter, page: Page) -> Result<(Vec<Event>, u64)> {
        if filter.field.is_some() && filter.field_name().is_none() {
            return Ok((Vec::new(), 0));
        }
        let anchor: Option<(i64,)> =
            self.anchor("SELECT seq FROM outbox WHERE account_id = ? AND id = ?", account.as_str(), &page).await?;
        let path = filter.field_name().map(|n| format!("$.{n}"));
        let value = filter.field.as_ref().map(|(_, v)| v.as_str());
        const WHERE: &str = "account_id = ?1 AND (?2 IS NULL OR substr(event_type, 1, length(?2)) = ?2)
             AND (?3 IS NULL OR json_extract(payload, ?3) = ?4)";
        let rows = sqlx::query(&format!(
            "SELECT seq, id, account_id, event_type, payload, created_at FROM outbox
             WHERE {WHERE} AND (?7 IS NULL OR seq < ?7) ORDER BY seq DESC LIMIT ?5 OFFSET ?6"
        ))
        .bind(account.as_str())
        .bind(filter.type_prefix.as_deref())
        .bind(path.as_deref())
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
            .bind(path.as_deref())
            .bind(value)
            .fetch_one(self.read())
            .await
            .map_err(db)?;
        Ok((rows.iter().map(event_from_row).collect::<Result<_>>()?, total as u64))
    }
}
