//! Helpers shared by the jobs tests.

use meridian_backends::StoreOptions;
use meridian_core::config::{EventsConfig, JobsConfig};
use meridian_core::id::{AccountId, ApiKeyId, JobId};
use meridian_core::Timestamp;
use meridian_jobs::{Dispatcher, JobHandler, WorkerPool};
use meridian_store::model::{Account, ApiKey, Job};
use meridian_store::Store;
use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub(crate) type TestResult<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

pub(crate) fn options(dir: &Path) -> StoreOptions {
    StoreOptions {
        database_url: format!("sqlite://{}/m.db", dir.display()),
        blob_url: format!("file://{}/blobs", dir.display()),
        readers: 2,
        busy_timeout: Duration::from_secs(5),
        postgres: Default::default(),
    }
}

pub(crate) async fn open(dir: &Path) -> TestResult<Store> {
    Ok(meridian_backends::open(&options(dir)).await?)
}

pub(crate) fn jobs_config() -> JobsConfig {
    JobsConfig {
        workers: 2,
        lease: Duration::from_millis(300),
        heartbeat: Duration::from_millis(50),
        poll_interval: Duration::from_millis(20),
        max_attempts: 3,
        retry_backoff: Duration::from_millis(10),
        ..JobsConfig::default()
    }
}

pub(crate) fn events_config(batch_size: u32) -> EventsConfig {
    EventsConfig { poll_interval: Duration::from_millis(20), batch_size, ..EventsConfig::default() }
}

/// Creates an account (jobs belong to one) and returns its id.
pub(crate) async fn create_account(store: &Store, email: &str) -> TestResult<AccountId> {
    let account = AccountId::generate();
    let key_id = ApiKeyId::generate();
    store
        .accounts
        .create_account(
            &Account { id: account.clone(), name: "Test".into(), email: email.into(), created_at: Timestamp::now() },
            &ApiKey {
                hash: format!("hash-of-{key_id}"),
                prefix: "key_".into(),
                id: key_id,
                account_id: account.clone(),
                name: "first".into(),
                scopes: Vec::new(),
                created_at: Timestamp::now(),
                expires_at: None,
                revoked_at: None,
            },
        )
        .await?;
    Ok(account)
}

/// A running background loop, stopped by [`Running::stop`].
pub(crate) struct Running {
    shutdown: CancellationToken,
    task: JoinHandle<()>,
}

impl Running {
    /// Asks the loop to stop and waits for it.
    pub(crate) async fn stop(self) -> TestResult {
        self.shutdown.cancel();
        tokio::time::timeout(Duration::from_secs(10), self.task).await.map_err(|_| "the loop did not stop")??;
        Ok(())
    }
}

/// Starts a worker pool with `handlers` in a task.
pub(crate) fn start_pool(store: &Store, handlers: Vec<Arc<dyn JobHandler>>) -> Running {
    start_pool_with(store, handlers, jobs_config())
}

/// Starts a worker pool with `handlers` and `config` in a task.
pub(crate) fn start_pool_with(store: &Store, handlers: Vec<Arc<dyn JobHandler>>, config: JobsConfig) -> Running {
    let mut pool = WorkerPool::new(store.clone(), config);
    for handler in handlers {
        pool.register(handler);
    }
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(pool.run(shutdown.clone()));
    Running { shutdown, task }
}

/// Starts a dispatcher in a task.
pub(crate) fn start_dispatcher(dispatcher: Dispatcher) -> Running {
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(dispatcher.run(shutdown.clone()));
    Running { shutdown, task }
}

/// Polls `check` every 20 ms until it yields a value; fails after 10 s.
pub(crate) async fn eventually<T, F, Fut>(what: &str, mut check: F) -> TestResult<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = TestResult<Option<T>>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(value) = check().await? {
            return Ok(value);
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(format!("timed out waiting for {what}").into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until the job satisfies `done` and returns it.
pub(crate) async fn wait_for_job(
    store: &Store,
    account: &AccountId,
    id: &JobId,
    what: &str,
    done: impl Fn(&Job) -> bool,
) -> TestResult<Job> {
    eventually(what, || {
        let (store, account, id) = (store.clone(), account.clone(), id.clone());
        let done = &done;
        async move {
            let job = store.jobs.get_job(&account, &id).await?.ok_or("the job vanished")?;
            Ok(done(&job).then_some(job))
        }
    })
    .await
}

/// Waits until the job has ended and returns it.
pub(crate) async fn wait_until_ended(store: &Store, account: &AccountId, id: &JobId) -> TestResult<Job> {
    wait_for_job(store, account, id, "the job to end", |job| job.status.is_terminal()).await
}
