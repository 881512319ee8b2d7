//! The repository traits. Everything above the store codes against these; each backend
//! (`sqlite/`, later `postgres/`) implements all of them.

use crate::model::{Account, ApiKey, Heartbeat, Job, NewJob};
use crate::{BlobStore, Result};
use async_trait::async_trait;
use meridian_core::event::{Event, NewEvent};
use meridian_core::id::{AccountId, ApiKeyId, JobId};
use meridian_core::page::Page;
use meridian_core::Timestamp;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// Accounts and their API keys.
#[async_trait]
pub trait AccountRepo: Send + Sync {
    /// Creates an account and its first key in one transaction. A taken email is a conflict.
    async fn create_account(&self, account: &Account, first_key: &ApiKey) -> Result<()>;
    /// One account.
    async fn get_account(&self, id: &AccountId) -> Result<Option<Account>>;
    /// Adds a key to an existing account.
    async fn create_api_key(&self, key: &ApiKey) -> Result<()>;
    /// The account's keys, newest first, and how many there are.
    async fn list_api_keys(&self, account: &AccountId, page: Page) -> Result<(Vec<ApiKey>, u64)>;
    /// One key of the account.
    async fn get_api_key(&self, account: &AccountId, id: &ApiKeyId) -> Result<Option<ApiKey>>;
    /// The key with this hash, whoever owns it (authentication).
    async fn find_api_key_by_hash(&self, hash: &str) -> Result<Option<ApiKey>>;
    /// Revokes a key of the account (idempotent); not-found for another account's key.
    async fn revoke_api_key(&self, account: &AccountId, id: &ApiKeyId, at: Timestamp) -> Result<ApiKey>;
}

/// Server-wide settings shared by every node (e.g. the token-signing key).
#[async_trait]
pub trait SettingsRepo: Send + Sync {
    /// The value of `key`, storing `init` first if there is none; every node gets the same answer.
    async fn get_or_init(&self, key: &str, init: &str) -> Result<String>;
}

/// The durable job queue.
#[async_trait]
pub trait JobRepo: Send + Sync {
    /// Queues a job.
    async fn submit(&self, job: NewJob) -> Result<Job>;
    /// One job of the account.
    async fn get_job(&self, account: &AccountId, id: &JobId) -> Result<Option<Job>>;
    /// The account's jobs, newest first, optionally of one kind, and how many there are.
    async fn list_jobs(&self, account: &AccountId, kind: Option<&str>, page: Page) -> Result<(Vec<Job>, u64)>;
    /// Claims the next runnable job of one of `kinds`: queued and due, or running with a lease
    /// that ran out (its worker died). The claim holds for `lease`.
    async fn claim(&self, kinds: &[String], worker: &str, lease: Duration) -> Result<Option<Job>>;
    /// Renews the lease and records progress.
    async fn heartbeat(&self, id: &JobId, worker: &str, lease: Duration, progress: Option<u8>) -> Result<Heartbeat>;
    /// Marks the job succeeded, committing `event` with it. False when the lease was lost.
    async fn succeed(&self, id: &JobId, worker: &str, output: Value, event: Option<NewEvent>) -> Result<bool>;
    /// Records a failure: queued again at `retry_at`, or failed for good (with `event`) when `None`.
    async fn fail(
        &self,
        id: &JobId,
        worker: &str,
        error: Value,
        retry_at: Option<Timestamp>,
        event: Option<NewEvent>,
    ) -> Result<bool>;
    /// Marks a running job cancelled after its handler stopped.
    async fn mark_cancelled(&self, id: &JobId, worker: &str) -> Result<bool>;
    /// Asks for cancellation: a queued job is cancelled at once, a running one at its next
    /// heartbeat. A job that already ended is a conflict.
    async fn cancel(&self, account: &AccountId, id: &JobId) -> Result<Job>;
}

/// The transactional outbox. Area repositories insert events in the same transaction as their
/// change; this trait is for the dispatcher and for events with no other change to ride on.
#[async_trait]
pub trait OutboxRepo: Send + Sync {
    /// Appends events on their own.
    async fn append(&self, events: &[NewEvent]) -> Result<()>;
    /// Events not yet handed on, oldest first.
    async fn pending(&self, limit: u32) -> Result<Vec<Event>>;
    /// Marks events handed on.
    async fn mark_dispatched(&self, seqs: &[i64], at: Timestamp) -> Result<()>;
    /// The account's events, newest first, and how many there are.
    async fn list_events(&self, account: &AccountId, page: Page) -> Result<(Vec<Event>, u64)>;
}

/// Liveness of the backing store.
#[async_trait]
pub trait Health: Send + Sync {
    /// Succeeds when the store answers a trivial query.
    async fn ping(&self) -> Result<()>;
}

/// Every repository of one backend, and the blob store.
#[derive(Clone)]
pub struct Store {
    pub accounts: Arc<dyn AccountRepo>,
    pub settings: Arc<dyn SettingsRepo>,
    pub jobs: Arc<dyn JobRepo>,
    pub outbox: Arc<dyn OutboxRepo>,
    pub health: Arc<dyn Health>,
    pub blobs: BlobStore,
}

/// How to open a store.
#[derive(Clone, Debug)]
pub struct StoreOptions {
    /// `sqlite://PATH` (PostgreSQL URLs are refused until that backend lands).
    pub database_url: String,
    /// `file://DIR`.
    pub blob_url: String,
    /// SQLite read connections.
    pub readers: u32,
    /// SQLite lock wait.
    pub busy_timeout: Duration,
}

impl Store {
    /// Opens the configured backend and applies pending migrations.
    pub async fn open(options: &StoreOptions) -> Result<Self> {
        let blobs = BlobStore::open(&options.blob_url)?;
        if let Some(path) = options.database_url.strip_prefix("sqlite://") {
            let db = crate::sqlite::SqliteDb::open(path, options.readers, options.busy_timeout).await?;
            db.migrate().await?;
            return Ok(db.into_store(blobs));
        }
        Err(crate::StoreError::Unsupported(format!(
            "storage.database_url: this build opens sqlite:// databases only (got {})",
            options.database_url.split(':').next().unwrap_or("")
        )))
    }
}
