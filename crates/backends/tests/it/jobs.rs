use crate::common::{conflict_code, create_account, event, eventually, is_not_found, new_job, open, page, TestResult};
use meridian_core::id::JobId;
use meridian_core::Timestamp;
use meridian_store::model::{Heartbeat, JobStatus};
use serde_json::json;
use std::time::Duration;

const LONG: Duration = Duration::from_secs(60);
const SHORT: Duration = Duration::from_millis(50);

fn kinds(kinds: &[&str]) -> Vec<String> {
    kinds.iter().map(|k| (*k).to_owned()).collect()
}

#[tokio::test]
async fn jobs_are_submitted_and_read_per_account() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = create_account(&store, "ann@example.com").await?;
    let bob = create_account(&store, "bob@example.com").await?;

    let job = store.jobs.submit(new_job(&ann, "dem.process")).await?;
    assert_eq!(job.status, JobStatus::Queued);
    assert_eq!((job.attempts, job.max_attempts, job.progress), (0, 3, 0));
    assert_eq!(job.params, json!({"input": "dem.process"}));
    assert_eq!((job.lease_owner.as_deref(), job.output.as_ref(), job.error.as_ref()), (None, None, None));

    assert_eq!(store.jobs.get_job(&ann, &job.id).await?, Some(job.clone()));
    assert_eq!(store.jobs.get_job(&bob, &job.id).await?, None);
    assert_eq!(store.jobs.get_job(&ann, &JobId::generate()).await?, None);

    let (listed, total) = store.jobs.list_jobs(&ann, None, page(10, 0)).await?;
    assert_eq!((listed, total), (vec![job.clone()], 1));
    assert_eq!(store.jobs.list_jobs(&ann, Some("other.kind"), page(10, 0)).await?.1, 0);
    assert_eq!(store.jobs.list_jobs(&bob, None, page(10, 0)).await?.1, 0);

    // Bob can neither cancel it nor tell that it exists.
    let err = store.jobs.cancel(&bob, &job.id).await.err().ok_or("bob cancelled ann's job")?;
    assert!(is_not_found(&err), "{err:?}");
    assert_eq!(store.jobs.get_job(&ann, &job.id).await?.map(|j| j.status), Some(JobStatus::Queued));
    Ok(())
}

#[tokio::test]
async fn claim_takes_only_listed_kinds_and_due_jobs() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = create_account(&store, "ann@example.com").await?;
    let dem = store.jobs.submit(new_job(&ann, "dem.process")).await?;
    let eo = store.jobs.submit(new_job(&ann, "eo.ingest")).await?;

    assert_eq!(store.jobs.claim(&[], "w1", LONG).await?, None);
    assert_eq!(store.jobs.claim(&kinds(&["pointcloud.process"]), "w1", LONG).await?, None);

    let claimed = store.jobs.claim(&kinds(&["eo.ingest", "twin.build"]), "w1", LONG).await?.ok_or("nothing claimed")?;
    assert_eq!(claimed.id, eo.id);
    assert_eq!(claimed.status, JobStatus::Running);
    assert_eq!(claimed.attempts, 1);
    assert_eq!(claimed.lease_owner.as_deref(), Some("w1"));
    assert!(claimed.lease_expires_at.is_some_and(|t| t > Timestamp::now()));
    assert!(claimed.started_at.is_some());
    // A running job with a live lease is not claimed again.
    assert_eq!(store.jobs.claim(&kinds(&["eo.ingest"]), "w2", LONG).await?, None);

    // A job queued for a retry in an hour is not due.
    let claimed = store.jobs.claim(&kinds(&["dem.process"]), "w1", LONG).await?.ok_or("nothing claimed")?;
    assert_eq!(claimed.id, dem.id);
    let later = Timestamp::now().plus(Duration::from_secs(3600));
    assert!(store.jobs.fail(&dem.id, "w1", json!({"code": "busy"}), Some(later), None).await?);
    let queued = store.jobs.get_job(&ann, &dem.id).await?.ok_or("job vanished")?;
    assert_eq!(queued.status, JobStatus::Queued);
    assert_eq!(queued.run_at, later);
    assert_eq!(queued.error, Some(json!({"code": "busy"})));
    assert_eq!(queued.lease_owner, None);
    assert_eq!(store.jobs.claim(&kinds(&["dem.process", "eo.ingest"]), "w2", LONG).await?, None);
    // Retries commit no event.
    assert!(store.outbox.pending(10).await?.is_empty());
    Ok(())
}

#[tokio::test]
async fn claim_retakes_a_running_job_whose_lease_ran_out() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = create_account(&store, "ann@example.com").await?;
    let job = store.jobs.submit(new_job(&ann, "dem.process")).await?;
    let first = store.jobs.claim(&kinds(&["dem.process"]), "dead", SHORT).await?.ok_or("nothing claimed")?;
    assert_eq!(first.attempts, 1);

    let taken = eventually("the expired lease to be claimed", || {
        let store = store.clone();
        async move { Ok(store.jobs.claim(&kinds(&["dem.process"]), "w2", LONG).await?) }
    })
    .await?;
    assert_eq!(taken.id, job.id);
    assert_eq!(taken.status, JobStatus::Running);
    assert_eq!(taken.attempts, 2);
    assert_eq!(taken.lease_owner.as_deref(), Some("w2"));
    assert_eq!(taken.started_at, first.started_at);

    assert_eq!(store.jobs.heartbeat(&job.id, "dead", LONG, None).await?, Heartbeat::Lost);
    assert_eq!(store.jobs.heartbeat(&job.id, "w2", LONG, None).await?, Heartbeat::Renewed);
    Ok(())
}

#[tokio::test]
async fn heartbeat_renews_records_progress_and_reports_cancellation() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = create_account(&store, "ann@example.com").await?;
    let job = store.jobs.submit(new_job(&ann, "dem.process")).await?;
    assert_eq!(store.jobs.heartbeat(&job.id, "w1", LONG, None).await?, Heartbeat::Lost, "not claimed yet");
    store.jobs.claim(&kinds(&["dem.process"]), "w1", LONG).await?.ok_or("nothing claimed")?;

    assert_eq!(store.jobs.heartbeat(&job.id, "w2", LONG, Some(10)).await?, Heartbeat::Lost);
    assert_eq!(store.jobs.heartbeat(&job.id, "w1", LONG, Some(40)).await?, Heartbeat::Renewed);
    assert_eq!(store.jobs.get_job(&ann, &job.id).await?.map(|j| j.progress), Some(40));
    assert_eq!(store.jobs.heartbeat(&job.id, "w1", LONG, Some(250)).await?, Heartbeat::Renewed);
    assert_eq!(store.jobs.get_job(&ann, &job.id).await?.map(|j| j.progress), Some(100));
    assert_eq!(store.jobs.heartbeat(&job.id, "w1", LONG, None).await?, Heartbeat::Renewed);
    assert_eq!(store.jobs.get_job(&ann, &job.id).await?.map(|j| j.progress), Some(100));

    let cancelling = store.jobs.cancel(&ann, &job.id).await?;
    assert_eq!(cancelling.status, JobStatus::Running, "a running job stops at its next heartbeat");
    assert!(cancelling.cancel_requested);
    assert_eq!(store.jobs.heartbeat(&job.id, "w1", LONG, None).await?, Heartbeat::CancelRequested);
    assert_eq!(store.jobs.heartbeat(&job.id, "w2", LONG, None).await?, Heartbeat::Lost);

    assert!(!store.jobs.mark_cancelled(&job.id, "w2").await?);
    assert!(store.jobs.mark_cancelled(&job.id, "w1").await?);
    let cancelled = store.jobs.get_job(&ann, &job.id).await?.ok_or("job vanished")?;
    assert_eq!(cancelled.status, JobStatus::Cancelled);
    assert!(cancelled.finished_at.is_some());
    assert_eq!(cancelled.lease_owner, None);
    assert_eq!(store.jobs.heartbeat(&job.id, "w1", LONG, None).await?, Heartbeat::Lost);
    Ok(())
}

#[tokio::test]
async fn cancel_ends_a_queued_job_and_refuses_a_finished_one() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = create_account(&store, "ann@example.com").await?;
    let queued = store.jobs.submit(new_job(&ann, "dem.process")).await?;

    let cancelled = store.jobs.cancel(&ann, &queued.id).await?;
    assert_eq!(cancelled.status, JobStatus::Cancelled);
    assert!(cancelled.cancel_requested);
    assert!(cancelled.finished_at.is_some());
    assert_eq!(store.jobs.get_job(&ann, &queued.id).await?, Some(cancelled));
    assert_eq!(store.jobs.claim(&kinds(&["dem.process"]), "w1", LONG).await?, None, "cancelled jobs never run");
    let err = store.jobs.cancel(&ann, &queued.id).await.err().ok_or("cancelled twice")?;
    assert_eq!(conflict_code(&err), Some("job_finished"), "{err:?}");

    let done = store.jobs.submit(new_job(&ann, "dem.process")).await?;
    store.jobs.claim(&kinds(&["dem.process"]), "w1", LONG).await?.ok_or("nothing claimed")?;
    assert!(store.jobs.succeed(&done.id, "w1", json!({}), None).await?);
    let err = store.jobs.cancel(&ann, &done.id).await.err().ok_or("cancelled a finished job")?;
    assert_eq!(conflict_code(&err), Some("job_finished"), "{err:?}");
    assert_eq!(store.jobs.get_job(&ann, &done.id).await?.map(|j| j.status), Some(JobStatus::Succeeded));

    let failed = store.jobs.submit(new_job(&ann, "dem.process")).await?;
    store.jobs.claim(&kinds(&["dem.process"]), "w1", LONG).await?.ok_or("nothing claimed")?;
    assert!(store.jobs.fail(&failed.id, "w1", json!({"code": "bad"}), None, None).await?);
    let err = store.jobs.cancel(&ann, &failed.id).await.err().ok_or("cancelled a failed job")?;
    assert_eq!(conflict_code(&err), Some("job_finished"), "{err:?}");

    let err = store.jobs.cancel(&ann, &JobId::generate()).await.err().ok_or("cancelled a missing job")?;
    assert!(is_not_found(&err), "{err:?}");
    Ok(())
}

#[tokio::test]
async fn succeed_commits_its_event_with_the_job() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = create_account(&store, "ann@example.com").await?;
    let job = store.jobs.submit(new_job(&ann, "dem.process")).await?;
    store.jobs.claim(&kinds(&["dem.process"]), "w1", LONG).await?.ok_or("nothing claimed")?;

    assert!(!store.jobs.succeed(&job.id, "w2", json!({"by": "w2"}), Some(event(&ann, "dem.job.succeeded", 2))).await?);
    assert!(store.outbox.pending(10).await?.is_empty());

    let announced = event(&ann, "dem.job.succeeded", 1);
    assert!(store.jobs.succeed(&job.id, "w1", json!({"tiles": 4}), Some(announced.clone())).await?);
    let done = store.jobs.get_job(&ann, &job.id).await?.ok_or("job vanished")?;
    assert_eq!(done.status, JobStatus::Succeeded);
    assert_eq!(done.output, Some(json!({"tiles": 4})));
    assert_eq!(done.progress, 100);
    assert_eq!((done.lease_owner, done.error), (None, None));
    assert!(done.finished_at.is_some());

    let pending = store.outbox.pending(10).await?;
    assert_eq!(pending.iter().map(|e| e.id.clone()).collect::<Vec<_>>(), vec![announced.id.clone()]);
    assert_eq!(pending[0].payload, announced.payload);

    // Succeeding again (a duplicate report) changes nothing and commits nothing.
    assert!(!store.jobs.succeed(&job.id, "w1", json!({}), Some(event(&ann, "dem.job.succeeded", 3))).await?);
    assert_eq!(store.outbox.pending(10).await?.len(), 1);
    Ok(())
}

#[tokio::test]
async fn a_late_succeed_after_a_takeover_is_refused_and_commits_no_event() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = create_account(&store, "ann@example.com").await?;
    let job = store.jobs.submit(new_job(&ann, "dem.process")).await?;
    store.jobs.claim(&kinds(&["dem.process"]), "slow", SHORT).await?.ok_or("nothing claimed")?;
    eventually("the expired lease to be claimed", || {
        let store = store.clone();
        async move { Ok(store.jobs.claim(&kinds(&["dem.process"]), "fast", LONG).await?) }
    })
    .await?;

    let late = event(&ann, "dem.job.succeeded", 1);
    assert!(!store.jobs.succeed(&job.id, "slow", json!({"by": "slow"}), Some(late)).await?);
    assert!(!store.jobs.fail(&job.id, "slow", json!({}), None, Some(event(&ann, "dem.job.failed", 1))).await?);
    assert!(!store.jobs.mark_cancelled(&job.id, "slow").await?);
    assert!(store.outbox.pending(10).await?.is_empty());
    let running = store.jobs.get_job(&ann, &job.id).await?.ok_or("job vanished")?;
    assert_eq!(running.status, JobStatus::Running);
    assert_eq!(running.lease_owner.as_deref(), Some("fast"));

    let announced = event(&ann, "dem.job.succeeded", 2);
    assert!(store.jobs.succeed(&job.id, "fast", json!({"by": "fast"}), Some(announced.clone())).await?);
    let done = store.jobs.get_job(&ann, &job.id).await?.ok_or("job vanished")?;
    assert_eq!((done.status, done.output), (JobStatus::Succeeded, Some(json!({"by": "fast"}))));
    let pending = store.outbox.pending(10).await?;
    assert_eq!(pending.iter().map(|e| e.id.clone()).collect::<Vec<_>>(), vec![announced.id]);
    Ok(())
}

#[tokio::test]
async fn a_final_failure_commits_its_event_with_the_job() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = create_account(&store, "ann@example.com").await?;
    let job = store.jobs.submit(new_job(&ann, "dem.process")).await?;
    store.jobs.claim(&kinds(&["dem.process"]), "w1", LONG).await?.ok_or("nothing claimed")?;
    let announced = event(&ann, "dem.job.failed", 1);
    let problem = json!({"code": "job_input_invalid", "status": 422});
    assert!(store.jobs.fail(&job.id, "w1", problem.clone(), None, Some(announced.clone())).await?);

    let failed = store.jobs.get_job(&ann, &job.id).await?.ok_or("job vanished")?;
    assert_eq!(failed.status, JobStatus::Failed);
    assert_eq!(failed.error, Some(problem));
    assert!(failed.finished_at.is_some());
    let pending = store.outbox.pending(10).await?;
    assert_eq!(pending.iter().map(|e| e.id.clone()).collect::<Vec<_>>(), vec![announced.id]);
    Ok(())
}

#[tokio::test]
async fn jobs_are_listed_newest_first_in_pages_with_a_total() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let ann = create_account(&store, "ann@example.com").await?;
    let bob = create_account(&store, "bob@example.com").await?;
    let mut dem = Vec::new();
    for n in 0..12 {
        let kind = if n % 3 == 0 { "eo.ingest" } else { "dem.process" };
        let job = store.jobs.submit(new_job(&ann, kind)).await?;
        if kind == "dem.process" {
            dem.push(job.id);
        }
    }
    store.jobs.submit(new_job(&bob, "dem.process")).await?;

    let mut listed = Vec::new();
    for offset in [0, 3, 6] {
        let (jobs, total) = store.jobs.list_jobs(&ann, Some("dem.process"), page(3, offset)).await?;
        assert_eq!(total, 8);
        assert!(jobs.iter().all(|j| j.account_id == ann && j.kind == "dem.process"));
        listed.extend(jobs.into_iter().map(|j| j.id));
    }
    dem.reverse();
    assert_eq!(listed, dem);
    assert_eq!(store.jobs.list_jobs(&ann, None, page(100, 0)).await?.1, 12);
    Ok(())
}
