use super::SqliteDb;
use crate::repo::OutboxRepo;
use crate::Result;
use async_trait::async_trait;
use meridian_core::event::{Event, NewEvent};
use meridian_core::id::{AccountId, EventId};
use meridian_core::page::Page;
use meridian_core::Timestamp;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

/// Inserts events inside the caller's transaction, so that they commit (or not) with the change.
pub(crate) async fn insert_events(conn: &mut SqliteConnection, events: &[NewEvent]) -> Result<()> {
    for e in events {
        sqlx::query("INSERT INTO outbox (id, account_id, event_type, payload, created_at) VALUES (?, ?, ?, ?, ?)")
            .bind(e.id.as_str())
            .bind(e.account_id.as_str())
            .bind(&e.event_type)
            .bind(serde_json::to_string(&e.payload)?)
            .bind(e.timestamp.millis())
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

fn event_from_row(row: &SqliteRow) -> Result<Event> {
    Ok(Event {
        seq: row.try_get("seq")?,
        id: EventId(row.try_get("id")?),
        account_id: AccountId(row.try_get("account_id")?),
        event_type: row.try_get("event_type")?,
        timestamp: Timestamp::from_millis(row.try_get("created_at")?),
        payload: serde_json::from_str(&row.try_get::<String, _>("payload")?)?,
    })
}

#[async_trait]
impl OutboxRepo for SqliteDb {
    async fn append(&self, events: &[NewEvent]) -> Result<()> {
        let mut tx = self.write().await?;
        insert_events(&mut tx, events).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn pending(&self, limit: u32) -> Result<Vec<Event>> {
        let rows = sqlx::query(
            "SELECT seq, id, account_id, event_type, payload, created_at FROM outbox
             WHERE dispatched_at IS NULL ORDER BY seq LIMIT ?",
        )
        .bind(i64::from(limit))
        .fetch_all(self.read())
        .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn mark_dispatched(&self, seqs: &[i64], at: Timestamp) -> Result<()> {
        let mut tx = self.write().await?;
        for seq in seqs {
            sqlx::query("UPDATE outbox SET dispatched_at = ? WHERE seq = ?")
                .bind(at.millis())
                .bind(seq)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn list_events(&self, account: &AccountId, page: Page) -> Result<(Vec<Event>, u64)> {
        let rows = sqlx::query(
            "SELECT seq, id, account_id, event_type, payload, created_at FROM outbox
             WHERE account_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?",
        )
        .bind(account.as_str())
        .bind(i64::from(page.limit))
        .bind(page.offset as i64)
        .fetch_all(self.read())
        .await?;
        let total: i64 = sqlx::query_scalar("SELECT count(*) FROM outbox WHERE account_id = ?")
            .bind(account.as_str())
            .fetch_one(self.read())
            .await?;
        Ok((rows.iter().map(event_from_row).collect::<Result<_>>()?, total as u64))
    }
}
