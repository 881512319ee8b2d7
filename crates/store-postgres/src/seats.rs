//! Seats counted across nodes: a row per node, kind and account with that node's count
//! (`node_seats`, an unlogged table: nothing in it outlives the nodes that wrote it).
//!
//! A node takes a seat under a transaction lock on the account's seats of that kind: it sums the
//! other nodes' fresh rows, adds its own count, and writes its new count before the lock is
//! freed, so two nodes never both take the last seat. Giving a seat back writes the lower count
//! the same way (a count of none removes the row). Every [`HEARTBEAT`] a node rewrites all its
//! counts; a row not refreshed for [`STALE`] (its node was killed or cut off) no longer counts,
//! and an hour later it is removed.

use crate::{db, lock};
use meridian_store::seats::{Held, Seat, Seats};
use meridian_store::Result;
use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;

/// How often a node rewrites its counts.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(10);
/// How long a row counts without being refreshed.
const STALE: &str = "30 seconds";

pub(crate) struct PgSeats {
    pool: PgPool,
    node: Arc<str>,
    held: Arc<Held>,
}

impl PgSeats {
    /// The seats of node `node`, with its heartbeat running until the seats are dropped.
    pub(crate) fn new(pool: PgPool, node: &str) -> Arc<Self> {
        let seats = Arc::new(Self { pool, node: Arc::from(node), held: Arc::default() });
        let weak = Arc::downgrade(&seats);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return seats };
        runtime.spawn(async move {
            let mut tick = tokio::time::interval(HEARTBEAT);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(seats) = weak.upgrade() else { return };
                if let Err(e) = seats.heartbeat().await {
                    tracing::warn!(error = %e, "refreshing this node's seat counts failed");
                }
            }
        });
        seats
    }

    /// Rewrites every count of this node (each under its account's lock, as a take does, so
    /// that a count taken meanwhile is never overwritten), and forgets rows long stale.
    async fn heartbeat(&self) -> Result<()> {
        for (kind, account, _) in self.held.all() {
            self.write(&kind, &account, |_| true).await?;
        }
        sqlx::query("DELETE FROM node_seats WHERE seen_at < now() - interval '1 hour'")
            .execute(&self.pool)
            .await
            .map_err(db)?;
        Ok(())
    }

    /// Writes this node's count of `kind` for `account`, under the account's lock, deciding
    /// with `decide` (given the other nodes' count) whether to change it first.
    async fn write<F: FnOnce(usize) -> bool>(&self, kind: &str, account: &str, decide: F) -> Result<bool> {
        let mut tx = self.pool.begin().await.map_err(db)?;
        lock(&mut tx, &format!("seats {kind} {account}")).await?;
        let others: i64 = sqlx::query_scalar(&format!(
            "SELECT coalesce(sum(held), 0)::bigint FROM node_seats \
             WHERE kind = $1 AND account = $2 AND node <> $3 AND seen_at > now() - interval '{STALE}'"
        ))
        .bind(kind)
        .bind(account)
        .bind(&*self.node)
        .fetch_one(&mut *tx)
        .await
        .map_err(db)?;
        if !decide(others.max(0) as usize) {
            return Ok(false);
        }
        let mine = self.held.count(kind, account) as i64;
        let statement = if mine == 0 {
            "DELETE FROM node_seats WHERE node = $1 AND kind = $2 AND account = $3 AND $4 = 0"
        } else {
            "INSERT INTO node_seats (node, kind, account, held, seen_at) VALUES ($1, $2, $3, $4, now()) \
             ON CONFLICT (node, kind, account) DO UPDATE SET held = excluded.held, seen_at = excluded.seen_at"
        };
        sqlx::query(statement)
            .bind(&*self.node)
            .bind(kind)
            .bind(account)
            .bind(mine)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(true)
    }
}

#[async_trait::async_trait]
impl Seats for PgSeats {
    async fn take(&self, kind: &str, account: &str, cap: usize) -> Result<Option<Seat>> {
        let held = &self.held;
        let mut added = false;
        let taken = self
            .write(kind, account, |others| {
                if others + held.count(kind, account) >= cap {
                    return false;
                }
                held.add(kind, account);
                added = true;
                true
            })
            .await;
        match taken {
            Ok(true) => {}
            Ok(false) => return Ok(None),
            Err(e) => {
                if added {
                    held.remove(kind, account);
                }
                return Err(e);
            }
        }
        let (pool, node, held) = (self.pool.clone(), self.node.clone(), self.held.clone());
        let release: Box<dyn FnOnce(String, String) + Send + Sync> = Box::new(move |kind, account| {
            let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
            runtime.spawn(async move {
                // The count is already lower in memory; write it (the heartbeat does, otherwise).
                let seats = PgSeats { pool, node, held };
                if let Err(e) = seats.write(&kind, &account, |_| true).await {
                    tracing::debug!(error = %e, "writing a seat given back failed; the heartbeat will");
                }
            });
        });
        Ok(Some(Seat::new(&self.held, kind, account, Some(release))))
    }
}
