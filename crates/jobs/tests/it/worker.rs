use crate::common::{
    create_account, jobs_config, open, start_pool, start_pool_with, wait_for_job, wait_until_ended, TestResult,
};
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::id::AccountId;
use meridian_core::page::Page;
use meridian_core::problem::Problem;
use meridian_jobs::{JobContext, JobError, JobHandler, JobOutcome};
use meridian_store::model::{Job, JobStatus, NewJob};
use meridian_store::Store;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What the test handler does on each attempt.
#[derive(Clone, Copy, Debug)]
enum Plan {
    /// Succeed at once.
    Succeed,
    /// Fail with a retryable error on attempts before `n`, then succeed.
    RetryUntil(u32),
    /// Always fail with a retryable error.
    AlwaysRetry,
    /// Fail with a permanent error.
    Permanent,
    /// Run until cancelled.
    UntilCancelled,
}

/// A handler for `test.job` that follows a plan and counts its runs.
struct TestHandler {
    plan: Plan,
    runs: AtomicU32,
}

impl TestHandler {
    fn new(plan: Plan) -> Arc<Self> {
        Arc::new(Self { plan, runs: AtomicU32::new(0) })
    }
}

fn job_event(job: &Job, event_type: &str) -> NewEvent {
    let mut fields = Map::new();
    fields.insert("job_id".into(), Value::String(job.id.to_string()));
    NewEvent::new(job.account_id.clone(), event_type, fields)
}

fn busy() -> Problem {
    Problem::new(503, "busy", "Busy", "try again")
}

#[async_trait]
impl JobHandler for TestHandler {
    fn kind(&self) -> &'static str {
        "test.job"
    }

    async fn run(&self, ctx: &JobContext) -> Result<JobOutcome, JobError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        ctx.set_progress(50);
        let success = || JobOutcome {
            output: json!({"echo": ctx.job.params.clone(), "attempt": ctx.job.attempts}),
            event: Some(job_event(&ctx.job, "dem.job.succeeded")),
        };
        match self.plan {
            Plan::Succeed => Ok(success()),
            Plan::RetryUntil(n) if ctx.job.attempts < n => Err(JobError::Retryable(busy())),
            Plan::RetryUntil(_) => Ok(success()),
            Plan::AlwaysRetry => Err(JobError::Retryable(busy())),
            Plan::Permanent => Err(JobError::invalid("the input is not a raster")),
            Plan::UntilCancelled => {
                let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
                while tokio::time::Instant::now() < deadline {
                    if ctx.is_cancelled() {
                        return Err(JobError::Cancelled);
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Err(JobError::invalid("never cancelled"))
            }
        }
    }

    fn failure_event(&self, job: &Job, _error: &Problem) -> Option<NewEvent> {
        Some(job_event(job, "dem.job.failed"))
    }
}

async fn submit(store: &Store, account: &AccountId, max_attempts: u32) -> TestResult<Job> {
    let job = NewJob { account_id: account.clone(), kind: "test.job".into(), params: json!({"n": 7}), max_attempts };
    Ok(store.jobs.submit(job).await?)
}

/// The types of the account's events, oldest first.
async fn event_types(store: &Store, account: &AccountId) -> TestResult<Vec<(String, Value)>> {
    let (mut events, _) = store.outbox.list_events(account, &Default::default(), Page::at(100, 0)).await?;
    events.reverse();
    Ok(events.into_iter().map(|e| (e.event_type, e.payload["job_id"].clone())).collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_runs_to_success_and_its_event_is_committed() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "ann@example.com").await?;
    let handler = TestHandler::new(Plan::Succeed);
    let pool = start_pool(&store, vec![handler.clone()]);

    let job = submit(&store, &account, 3).await?;
    let done = wait_until_ended(&store, &account, &job.id).await?;
    pool.stop().await?;

    assert_eq!(done.status, JobStatus::Succeeded);
    assert_eq!(done.output, Some(json!({"echo": {"n": 7}, "attempt": 1})));
    assert_eq!(done.progress, 100);
    assert_eq!(done.attempts, 1);
    assert_eq!(done.error, None);
    assert_eq!(done.lease_owner, None);
    assert!(done.finished_at.is_some());
    assert_eq!(handler.runs.load(Ordering::SeqCst), 1);
    assert_eq!(event_types(&store, &account).await?, vec![("dem.job.succeeded".into(), json!(job.id))]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retryable_error_is_retried_and_then_succeeds() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "ann@example.com").await?;
    let handler = TestHandler::new(Plan::RetryUntil(2));
    let pool = start_pool(&store, vec![handler.clone()]);

    let job = submit(&store, &account, 3).await?;
    let done = wait_until_ended(&store, &account, &job.id).await?;
    pool.stop().await?;

    assert_eq!(done.status, JobStatus::Succeeded);
    assert_eq!(done.attempts, 2);
    assert_eq!(done.output, Some(json!({"echo": {"n": 7}, "attempt": 2})));
    assert_eq!(done.error, None, "success clears the earlier attempt's error");
    assert_eq!(handler.runs.load(Ordering::SeqCst), 2);
    assert_eq!(event_types(&store, &account).await?, vec![("dem.job.succeeded".into(), json!(job.id))]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retryable_errors_beyond_max_attempts_fail_the_job() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "ann@example.com").await?;
    let handler = TestHandler::new(Plan::AlwaysRetry);
    let pool = start_pool(&store, vec![handler.clone()]);

    let job = submit(&store, &account, 3).await?;
    let done = wait_until_ended(&store, &account, &job.id).await?;
    pool.stop().await?;

    assert_eq!(done.status, JobStatus::Failed);
    assert_eq!(done.attempts, 3);
    assert_eq!(handler.runs.load(Ordering::SeqCst), 3);
    assert_eq!(done.error, Some(serde_json::to_value(busy())?));
    assert_eq!(done.output, None);
    assert!(done.finished_at.is_some());
    assert_eq!(event_types(&store, &account).await?, vec![("dem.job.failed".into(), json!(job.id))]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permanent_error_fails_the_job_at_once() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "ann@example.com").await?;
    let handler = TestHandler::new(Plan::Permanent);
    let pool = start_pool(&store, vec![handler.clone()]);

    let job = submit(&store, &account, 3).await?;
    let done = wait_until_ended(&store, &account, &job.id).await?;
    pool.stop().await?;

    assert_eq!(done.status, JobStatus::Failed);
    assert_eq!(done.attempts, 1);
    assert_eq!(handler.runs.load(Ordering::SeqCst), 1);
    let error = done.error.ok_or("no error stored")?;
    assert_eq!(error["code"], "job_input_invalid");
    assert_eq!(error["detail"], "the input is not a raster");
    assert_eq!(event_types(&store, &account).await?, vec![("dem.job.failed".into(), json!(job.id))]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_running_job_stops_it() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "ann@example.com").await?;
    let handler = TestHandler::new(Plan::UntilCancelled);
    let pool = start_pool(&store, vec![handler.clone()]);

    let job = submit(&store, &account, 3).await?;
    let running = wait_for_job(&store, &account, &job.id, "the job to run", |j| j.status == JobStatus::Running).await?;
    assert!(running.lease_owner.is_some());
    // The handler reports progress while it runs; the heartbeat carries it to the store.
    wait_for_job(&store, &account, &job.id, "progress", |j| j.progress == 50).await?;

    let cancelling = store.jobs.cancel(&account, &job.id).await?;
    assert!(cancelling.cancel_requested);
    let done = wait_until_ended(&store, &account, &job.id).await?;
    pool.stop().await?;

    assert_eq!(done.status, JobStatus::Cancelled);
    assert_eq!(done.attempts, 1);
    assert_eq!(handler.runs.load(Ordering::SeqCst), 1);
    assert_eq!(done.output, None);
    assert!(done.finished_at.is_some());
    assert!(event_types(&store, &account).await?.is_empty());
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_whose_worker_died_runs_again_after_a_restart() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (account, job) = {
        let store = open(dir.path()).await?;
        let account = create_account(&store, "ann@example.com").await?;
        let job = submit(&store, &account, 3).await?;
        let claimed = store
            .jobs
            .claim(&["test.job".to_owned()], "dead", Duration::from_millis(100))
            .await?
            .ok_or("nothing claimed")?;
        assert_eq!((claimed.id.clone(), claimed.attempts), (job.id.clone(), 1));
        // The worker dies here: no heartbeat, no outcome; the process goes away with its store.
        (account, job)
    };

    let store = open(dir.path()).await?;
    let handler = TestHandler::new(Plan::Succeed);
    let pool = start_pool(&store, vec![handler.clone()]);
    let done = wait_until_ended(&store, &account, &job.id).await?;
    pool.stop().await?;

    assert_eq!(done.status, JobStatus::Succeeded);
    assert_eq!(done.attempts, 2);
    assert_eq!(done.output, Some(json!({"echo": {"n": 7}, "attempt": 2})));
    assert_eq!(handler.runs.load(Ordering::SeqCst), 1);
    assert_eq!(event_types(&store, &account).await?, vec![("dem.job.succeeded".into(), json!(job.id))]);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_jobs_each_run_once() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "ann@example.com").await?;
    let handler = TestHandler::new(Plan::Succeed);
    let pool = start_pool(&store, vec![handler.clone()]);

    let mut jobs = Vec::new();
    for _ in 0..10 {
        jobs.push(submit(&store, &account, 3).await?);
    }
    for job in &jobs {
        let done = wait_until_ended(&store, &account, &job.id).await?;
        assert_eq!((done.status, done.attempts), (JobStatus::Succeeded, 1));
    }
    pool.stop().await?;
    assert_eq!(handler.runs.load(Ordering::SeqCst), 10);
    assert_eq!(event_types(&store, &account).await?.len(), 10);
    Ok(())
}

/// Claims the job as a worker that then dies (no heartbeat, no outcome) and waits out its lease.
async fn claim_and_die(store: &Store, job: &Job) -> TestResult<Job> {
    let lease = Duration::from_millis(50);
    let claimed = store.jobs.claim(&["test.job".to_owned()], "dead", lease).await?.ok_or("nothing claimed")?;
    assert_eq!(claimed.id, job.id);
    tokio::time::sleep(lease * 2).await;
    Ok(claimed)
}

/// A poison job: every attempt takes its worker down. After `max_attempts` such attempts the
/// next claim fails it with a problem instead of running it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_that_keeps_killing_its_worker_is_abandoned_after_max_attempts() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "ann@example.com").await?;
    let job = submit(&store, &account, 2).await?;
    for attempt in 1..=2 {
        assert_eq!(claim_and_die(&store, &job).await?.attempts, attempt);
    }
    let handler = TestHandler::new(Plan::Succeed);
    let pool = start_pool(&store, vec![handler.clone()]);
    let done = wait_until_ended(&store, &account, &job.id).await?;
    pool.stop().await?;

    assert_eq!(done.status, JobStatus::Failed);
    assert_eq!(handler.runs.load(Ordering::SeqCst), 0, "a poison job is not run again");
    let error = done.error.ok_or("no error")?;
    assert_eq!((error["status"].as_u64(), error["code"].as_str()), (Some(500), Some("job_abandoned")));
    assert!(error["detail"].as_str().unwrap_or("").contains("2 attempts"), "{error}");
    assert_eq!(event_types(&store, &account).await?, vec![("dem.job.failed".into(), json!(job.id))]);
    Ok(())
}

/// Cancelled while its worker was dying (the job took the process down): after the restart it is
/// cancelled, not run again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_job_whose_worker_died_is_not_run_again() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "ann@example.com").await?;
    let job = submit(&store, &account, 3).await?;
    let lease = Duration::from_millis(50);
    store.jobs.claim(&["test.job".to_owned()], "dead", lease).await?.ok_or("nothing claimed")?;
    let cancelling = store.jobs.cancel(&account, &job.id).await?;
    assert!(cancelling.cancel_requested);
    tokio::time::sleep(lease * 2).await;

    let handler = TestHandler::new(Plan::Succeed);
    let pool = start_pool(&store, vec![handler.clone()]);
    let done = wait_until_ended(&store, &account, &job.id).await?;
    pool.stop().await?;

    assert_eq!(done.status, JobStatus::Cancelled);
    assert!(done.cancel_requested, "a cancelled job still says cancellation was asked for");
    assert_eq!(handler.runs.load(Ordering::SeqCst), 0);
    assert!(done.finished_at.is_some());
    assert!(event_types(&store, &account).await?.is_empty());
    Ok(())
}

/// A handler that never looks at cancellation (one long block of work) is still stopped: the
/// job is cancelled about half a lease after the request, not when the work ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_job_that_ignores_cancellation_still_ends_it() -> TestResult {
    struct Stubborn;
    #[async_trait]
    impl JobHandler for Stubborn {
        fn kind(&self) -> &'static str {
            "test.job"
        }
        async fn run(&self, _ctx: &JobContext) -> Result<JobOutcome, JobError> {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(JobOutcome::default())
        }
    }
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "ann@example.com").await?;
    let pool = start_pool(&store, vec![Arc::new(Stubborn)]);
    let job = submit(&store, &account, 3).await?;
    wait_for_job(&store, &account, &job.id, "the job to run", |j| j.status == JobStatus::Running).await?;
    store.jobs.cancel(&account, &job.id).await?;
    let done = wait_until_ended(&store, &account, &job.id).await?;
    pool.stop().await?;
    assert_eq!(done.status, JobStatus::Cancelled);
    assert!(done.cancel_requested);
    Ok(())
}

/// What the worker relies on from the store: a job whose worker died is claimed again with its
/// attempts counted and its cancellation request kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_hands_back_a_dead_workers_job_with_attempts_and_cancel_request() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "ann@example.com").await?;
    let job = submit(&store, &account, 3).await?;
    claim_and_die(&store, &job).await?;
    store.jobs.cancel(&account, &job.id).await?;
    let again = claim_and_die(&store, &job).await?;
    assert_eq!(again.attempts, 2);
    assert!(again.cancel_requested);
    Ok(())
}

#[tokio::test]
async fn progress_reaches_the_store_well_before_the_next_heartbeat() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "progress@example.com").await?;
    let handler = TestHandler::new(Plan::UntilCancelled);
    // A heartbeat far longer than the wait below: only a progress write can make it in time.
    let config = meridian_core::config::JobsConfig {
        heartbeat: Duration::from_secs(60),
        lease: Duration::from_secs(120),
        ..jobs_config()
    };
    let pool = start_pool_with(&store, vec![handler.clone()], config);
    let job = submit(&store, &account, 3).await?;
    wait_for_job(&store, &account, &job.id, "progress before the heartbeat", |j| j.progress == 50).await?;
    // Cancellation is seen at the same pace.
    store.jobs.cancel(&account, &job.id).await?;
    let done = wait_until_ended(&store, &account, &job.id).await?;
    pool.stop().await?;
    assert_eq!(done.status, JobStatus::Cancelled);
    Ok(())
}

/// A worker that loses its lease (another worker took the job over) does not drop its handler
/// and walk away: the handler's blocking work is told and waited for, so nothing of the old
/// attempt writes after `execute` returns, and the old worker records nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_lease_waits_for_the_handlers_blocking_work_to_stop() -> TestResult {
    struct Blocking {
        writes: Arc<AtomicU32>,
    }
    #[async_trait]
    impl JobHandler for Blocking {
        fn kind(&self) -> &'static str {
            "test.job"
        }
        async fn run(&self, ctx: &JobContext) -> Result<JobOutcome, JobError> {
            let (cancel, writes) = (ctx.cancellation(), self.writes.clone());
            let work = tokio::task::spawn_blocking(move || {
                // Each step is long between checks, as a chunk of a real computation is.
                while !cancel.is_cancelled() {
                    std::thread::sleep(Duration::from_millis(150));
                    writes.fetch_add(1, Ordering::SeqCst);
                }
            });
            // Moving progress makes the worker write a heartbeat, which finds the lease taken.
            ctx.set_progress(10);
            work.await.map_err(JobError::internal)?;
            Err(JobError::Cancelled)
        }
    }
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = create_account(&store, "ann@example.com").await?;
    let job = submit(&store, &account, 3).await?;
    // A lease far shorter than the heartbeat: it runs out while the handler works.
    let config = meridian_core::config::JobsConfig {
        lease: Duration::from_millis(200),
        heartbeat: Duration::from_secs(60),
        ..jobs_config()
    };
    let claimed = store.jobs.claim(&["test.job".to_owned()], "old", config.lease).await?.ok_or("nothing claimed")?;
    let writes = Arc::new(AtomicU32::new(0));
    let mut pool = meridian_jobs::WorkerPool::new(store.clone(), config);
    pool.register(Arc::new(Blocking { writes: writes.clone() }));
    let pool = Arc::new(pool);
    let running = tokio::spawn({
        let pool = pool.clone();
        async move { pool.execute(claimed, "old").await }
    });
    // The lease runs out; another worker claims the job.
    let taken = crate::common::eventually("another worker to take the job over", || {
        let store = store.clone();
        async move { Ok(store.jobs.claim(&["test.job".to_owned()], "new", Duration::from_secs(60)).await?) }
    })
    .await?;
    assert_eq!(taken.id, job.id);
    tokio::time::timeout(Duration::from_secs(10), running).await.map_err(|_| "execute did not return")??;
    let seen = writes.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(writes.load(Ordering::SeqCst), seen, "the old attempt's blocking work wrote after execute returned");
    let now = store.jobs.get_job(&account, &job.id).await?.ok_or("the job vanished")?;
    assert_eq!((now.status, now.lease_owner.as_deref()), (JobStatus::Running, Some("new")));
    Ok(())
}
