//! The account-facing job service: an account sees, cancels and waits for its own jobs only, and
//! an area's job path sees its own kind only.

use crate::common::{create_account, open, TestResult};
use meridian_core::page::Page;
use meridian_core::DomainError;
use meridian_jobs::JobService;
use meridian_store::model::{JobStatus, NewJob};
use meridian_store::StoreError;
use std::time::Duration;

fn not_found(r: Result<impl std::fmt::Debug, StoreError>) -> bool {
    matches!(r, Err(StoreError::Domain(DomainError::NotFound { resource: "job", .. })))
}

#[tokio::test]
async fn accounts_see_cancel_and_wait_for_their_own_jobs() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let (a, b) = (create_account(&store, "a@example.com").await?, create_account(&store, "b@example.com").await?);
    let jobs = JobService::new(store.clone());
    let job = store
        .jobs
        .submit(NewJob {
            account_id: a.clone(),
            kind: "dem.process".into(),
            params: serde_json::json!({}),
            max_attempts: 1,
        })
        .await?;
    let id = job.id.as_str();

    assert_eq!(jobs.get(&a, id).await?.id, job.id);
    assert_eq!(jobs.get_of(&a, id, Some("dem.process")).await?.id, job.id);
    assert!(not_found(jobs.get_of(&a, id, Some("eo.compute")).await), "another area's path");
    assert!(not_found(jobs.get(&b, id).await), "another account");
    assert!(not_found(jobs.cancel(&b, id).await), "another account may not cancel it");
    assert!(not_found(jobs.cancel_of(&a, id, Some("eo.compute")).await), "nor another area's path");
    let (listed, total) = jobs.list(&a, None, Page::at(10, 0)).await?;
    assert_eq!((listed.len(), total), (1, 1));
    assert_eq!(jobs.list(&b, None, Page::at(10, 0)).await?.1, 0);
    assert_eq!(jobs.list(&a, Some("eo.compute"), Page::at(10, 0)).await?.1, 0);

    // A queued job that is not done by the deadline is answered as it is.
    let waited = jobs.wait(&a, id, Duration::from_millis(60), Duration::from_millis(20)).await?;
    assert_eq!(waited.status, JobStatus::Queued);
    // Cancelled while queued: it has ended, and waiting for it returns at once.
    assert_eq!(jobs.cancel(&a, id).await?.status, JobStatus::Cancelled);
    let started = tokio::time::Instant::now();
    let ended = jobs.wait(&a, id, Duration::from_secs(30), Duration::from_millis(20)).await?;
    assert_eq!(ended.status, JobStatus::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(5));
    Ok(())
}
