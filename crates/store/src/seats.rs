//! Seats: things an account holds open (its WebSockets), counted across every node sharing the
//! store, so that a cap per account holds for the whole cluster, not per node.
//!
//! Each node counts its own seats in memory ([`Held`]); a backend shares those counts. On the
//! embedded default one process holds the store and its own count is the whole count. On
//! PostgreSQL each node keeps a row per account with its count, written under a lock on the
//! account's seats whenever the count changes and refreshed on a heartbeat; a node that stops
//! refreshing (killed, or cut off from the database) stops counting after a while.

use async_trait::async_trait;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

/// How a backend shares seat counts between nodes.
#[async_trait]
pub trait Seats: Send + Sync {
    /// A seat of `kind` for `account` if fewer than `cap` are held across every node; none when
    /// the cap is reached.
    async fn take(&self, kind: &str, account: &str, cap: usize) -> crate::Result<Option<Seat>>;
}

/// The seats this node holds, by kind and account.
#[derive(Debug, Default)]
pub struct Held(Mutex<HashMap<(String, String), usize>>);

impl Held {
    /// How many seats of `kind` this node holds for `account`.
    pub fn count(&self, kind: &str, account: &str) -> usize {
        self.lock().get(&(kind.to_owned(), account.to_owned())).copied().unwrap_or(0)
    }

    /// Every non-zero count.
    pub fn all(&self) -> Vec<(String, String, usize)> {
        self.lock().iter().map(|((k, a), n)| (k.clone(), a.clone(), *n)).collect()
    }

    /// One more seat; the count after.
    pub fn add(&self, kind: &str, account: &str) -> usize {
        let mut held = self.lock();
        let n = held.entry((kind.to_owned(), account.to_owned())).or_insert(0);
        *n += 1;
        *n
    }

    /// One seat fewer; the count after.
    pub fn remove(&self, kind: &str, account: &str) -> usize {
        let mut held = self.lock();
        let key = (kind.to_owned(), account.to_owned());
        let n = held.get(&key).copied().unwrap_or(0).saturating_sub(1);
        if n == 0 {
            held.remove(&key);
        } else {
            held.insert(key, n);
        }
        n
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), usize>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A seat held until dropped.
pub struct Seat {
    held: Weak<Held>,
    kind: String,
    account: String,
    /// Told the count after this seat is given back (the backend's share of it).
    on_release: Option<Box<dyn FnOnce(String, String) + Send + Sync>>,
}

impl Seat {
    /// A seat counted in `held` (already added there); `on_release` runs once it is given back.
    pub fn new(
        held: &Arc<Held>,
        kind: &str,
        account: &str,
        on_release: Option<Box<dyn FnOnce(String, String) + Send + Sync>>,
    ) -> Self {
        Self { held: Arc::downgrade(held), kind: kind.to_owned(), account: account.to_owned(), on_release }
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        if let Some(held) = self.held.upgrade() {
            held.remove(&self.kind, &self.account);
        }
        if let Some(f) = self.on_release.take() {
            f(std::mem::take(&mut self.kind), std::mem::take(&mut self.account));
        }
    }
}

impl std::fmt::Debug for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seat").field("kind", &self.kind).field("account", &self.account).finish()
    }
}

/// Seats of one process.
#[derive(Debug, Default)]
pub struct InProcess(Arc<Held>);

#[async_trait]
impl Seats for InProcess {
    async fn take(&self, kind: &str, account: &str, cap: usize) -> crate::Result<Option<Seat>> {
        let mut held = self.0.lock();
        let n = held.entry((kind.to_owned(), account.to_owned())).or_insert(0);
        if *n >= cap {
            return Ok(None);
        }
        *n += 1;
        drop(held);
        Ok(Some(Seat::new(&self.0, kind, account, None)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_cap_counts_held_seats_and_a_dropped_seat_frees_one() -> crate::Result<()> {
        let seats = InProcess::default();
        let a = seats.take("ws", "acct_1", 2).await?;
        let b = seats.take("ws", "acct_1", 2).await?;
        assert!(a.is_some() && b.is_some());
        assert!(seats.take("ws", "acct_1", 2).await?.is_none(), "the cap is reached");
        assert!(seats.take("ws", "acct_2", 2).await?.is_some(), "another account has its own");
        drop(a);
        assert!(seats.take("ws", "acct_1", 2).await?.is_some());
        assert_eq!(seats.0.count("ws", "acct_1"), 1, "the seat taken above was dropped at once");
        Ok(())
    }
}
