//! Durable background work: the job queue's worker pool (leases, heartbeats, progress,
//! cancellation, retries with back-off) and the outbox dispatcher that hands committed events on
//! to their consumers (the webhook deliverer, in-process listeners), and the account-facing job
//! service (list, read, cancel, wait).

pub mod dispatch;
pub mod service;
pub mod worker;

pub use dispatch::{Dispatcher, EventSink};
pub use service::JobService;
pub use worker::{JobContext, JobError, JobHandler, JobOutcome, WorkerPool};

use std::sync::Arc;
use tokio::sync::Notify;

/// Wakes a sleeping loop (workers after a submit, the dispatcher after a commit) so that it does
/// not wait for its next poll.
#[derive(Clone, Debug, Default)]
pub struct Waker(Arc<Notify>);

impl Waker {
    /// A new waker.
    pub fn new() -> Self {
        Self::default()
    }

    /// Wakes one waiter, or the next one to wait.
    pub fn wake(&self) {
        self.0.notify_one();
    }

    /// Waits until woken.
    pub async fn woken(&self) {
        self.0.notified().await;
    }
}
