//! Duties that one node at a time does for every node sharing the store: the retention sweeps,
//! the DEM tile cache's eviction. A node that wants to do one asks to lead it; while it holds
//! the [`Lead`], no other node gets it; dropping the lead (or the node dying) frees it for the next.
//!
//! On the embedded default one process holds the store, and a lead is held in memory. On
//! PostgreSQL it is a session advisory lock on a connection of its own, which the server frees
//! when that connection ends, so a node killed mid-duty leaves nothing held.

use async_trait::async_trait;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// How a backend hands out leads.
#[async_trait]
pub trait Duties: Send + Sync {
    /// The lead of `duty`, unless another holder has it.
    async fn try_lead(&self, duty: &str) -> crate::Result<Option<Lead>>;
}

/// A duty led by this holder until it is dropped.
pub struct Lead(#[allow(dead_code)] Box<dyn Send + Sync>);

impl Lead {
    /// A lead that lets go by dropping `held`.
    pub fn new(held: impl Send + Sync + 'static) -> Self {
        Self(Box::new(held))
    }
}

impl std::fmt::Debug for Lead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lead")
    }
}

/// Leads of one process.
#[derive(Debug, Default)]
pub struct InProcess(Arc<Mutex<HashSet<String>>>);

struct Held(Arc<Mutex<HashSet<String>>>, String);

impl Drop for Held {
    fn drop(&mut self) {
        if let Ok(mut held) = self.0.lock() {
            held.remove(&self.1);
        }
    }
}

#[async_trait]
impl Duties for InProcess {
    async fn try_lead(&self, duty: &str) -> crate::Result<Option<Lead>> {
        let Ok(mut held) = self.0.lock() else { return Ok(None) };
        if !held.insert(duty.to_owned()) {
            return Ok(None);
        }
        Ok(Some(Lead::new(Held(self.0.clone(), duty.to_owned()))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_holder_at_a_time_and_dropping_frees() -> crate::Result<()> {
        let duties = InProcess::default();
        let first = duties.try_lead("retention").await?;
        assert!(first.is_some());
        assert!(duties.try_lead("retention").await?.is_none());
        assert!(duties.try_lead("tiles").await?.is_some(), "another duty is its own");
        drop(first);
        assert!(duties.try_lead("retention").await?.is_some());
        Ok(())
    }
}
