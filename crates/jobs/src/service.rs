//! What an account does with its jobs: list them, read one, cancel one, wait for one to end. The
//! HTTP routes (`/api/v1/jobs` and the areas' own job paths) go through this service; the workers
//! use the job repository directly, under their leases.

use meridian_core::id::{AccountId, JobId};
use meridian_core::page::Page;
use meridian_core::DomainError;
use meridian_store::model::Job;
use meridian_store::{Result, Store};
use std::time::Duration;

/// The account-facing job operations.
#[derive(Clone)]
pub struct JobService {
    store: Store,
}

impl JobService {
    /// A service over `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The account's jobs, newest first, of one `kind` when given, with the total.
    pub async fn list(&self, account: &AccountId, kind: Option<&str>, page: Page) -> Result<(Vec<Job>, u64)> {
        self.store.jobs.list_jobs(account, kind, page).await
    }

    /// One of the account's jobs; another account's job, or one that never was, is not found.
    pub async fn get(&self, account: &AccountId, id: &str) -> Result<Job> {
        self.get_of(account, id, None).await
    }

    /// One of the account's jobs of `kind` (an area's own job path): a job of another kind is not
    /// found there.
    pub async fn get_of(&self, account: &AccountId, id: &str, kind: Option<&str>) -> Result<Job> {
        Ok(self.find_of(account, id, kind).await?.ok_or_else(|| DomainError::not_found("job", id))?)
    }

    /// One job of the account, if there is one of `kind` (any kind when `None`) with this id.
    pub async fn find_of(&self, account: &AccountId, id: &str, kind: Option<&str>) -> Result<Option<Job>> {
        let job = self.store.jobs.get_job(account, &JobId(id.to_owned())).await?;
        Ok(job.filter(|j| kind.is_none_or(|k| j.kind == k)))
    }

    /// Cancels a job: a queued job ends at once, a running one is asked to stop (its worker sees
    /// the request at its next heartbeat); a job that already ended is a conflict.
    pub async fn cancel(&self, account: &AccountId, id: &str) -> Result<Job> {
        self.cancel_of(account, id, None).await
    }

    /// [`JobService::cancel`] on an area's own job path: a job of another kind is not found.
    pub async fn cancel_of(&self, account: &AccountId, id: &str, kind: Option<&str>) -> Result<Job> {
        if kind.is_some() {
            self.get_of(account, id, kind).await?;
        }
        self.store.jobs.cancel(account, &JobId(id.to_owned())).await
    }

    /// The job once it has ended, or as it is after `within` (whichever comes first), read again
    /// every `every`.
    pub async fn wait(&self, account: &AccountId, id: &str, within: Duration, every: Duration) -> Result<Job> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let job = self.get(account, id).await?;
            if job.status.is_terminal() || tokio::time::Instant::now() >= deadline {
                return Ok(job);
            }
            tokio::time::sleep(every.min(deadline.saturating_duration_since(tokio::time::Instant::now()))).await;
        }
    }
}
