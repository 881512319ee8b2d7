//! Signals a store fires after a commit, so that the loops that consume what was committed wake
//! at once instead of at their next poll.
//!
//! Whatever writes events (a service, the DNS server's dynamic updates, the WFS transaction, a
//! job finishing) or queues a job goes through a repository, and the repository's backend fires
//! the matching signal once the transaction has committed: [`crate::Store::events`] wakes the
//! outbox dispatcher, [`crate::Store::jobs_queued`] the job workers. No caller has to remember to
//! wake anything. A signal that finds no waiter is kept for the next one; a missed signal costs
//! one poll interval, never an event or a job.

use std::sync::Arc;
use tokio::sync::Notify;

/// Fired after a commit; see the module.
#[derive(Clone, Debug, Default)]
pub struct Signal(Arc<Notify>);

impl Signal {
    /// A new signal.
    pub fn new() -> Self {
        Self::default()
    }

    /// Something committed: wakes one waiter, or the next one to wait.
    pub fn fire(&self) {
        self.0.notify_one();
    }

    /// Waits until the signal fires (at once if it fired since the last wait returned).
    pub async fn fired(&self) {
        self.0.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_signal_fired_before_the_wait_is_kept_once() {
        let signal = Signal::new();
        signal.fire();
        let first = tokio::time::timeout(Duration::from_secs(1), signal.fired()).await;
        assert!(first.is_ok(), "a fire with no waiter is kept");
        let second = tokio::time::timeout(Duration::from_millis(50), signal.fired()).await;
        assert!(second.is_err(), "one fire wakes one wait");
    }
}
