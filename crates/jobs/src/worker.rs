//! The worker pool: claims jobs under a lease, keeps the lease alive with heartbeats while the
//! handler runs, and records the outcome. A worker that dies simply stops heartbeating; its job is
//! claimed again when the lease runs out.

use crate::Waker;
use async_trait::async_trait;
use meridian_core::config::JobsConfig;
use meridian_core::event::NewEvent;
use meridian_core::problem::Problem;
use meridian_core::Timestamp;
use meridian_store::model::{Heartbeat, Job};
use meridian_store::Store;
use rand::Rng;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

/// What a successful run produced.
#[derive(Debug, Default)]
pub struct JobOutcome {
    /// Stored on the job and shown to the user (output links, statistics).
    pub output: Value,
    /// Committed in the same transaction as the job's success.
    pub event: Option<NewEvent>,
}

/// Why a run did not succeed.
#[derive(Debug)]
pub enum JobError {
    /// The input cannot work: fail now, do not retry.
    Permanent(Problem),
    /// Something passing (I/O, a busy store): try again later, within the attempt budget.
    Retryable(Problem),
    /// The handler stopped because cancellation was requested.
    Cancelled,
}

impl JobError {
    /// A permanent failure with a validation-style problem.
    pub fn invalid(detail: impl Into<String>) -> Self {
        JobError::Permanent(Problem::new(422, "job_input_invalid", "The job's input cannot be processed", detail))
    }

    /// A retryable failure that reveals nothing internal.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::warn!(error = %detail, "job attempt failed");
        JobError::Retryable(Problem::new(500, "internal_error", "Internal error", "the job failed on the server"))
    }
}

/// Runs jobs of one kind.
#[async_trait]
pub trait JobHandler: Send + Sync {
    /// The kind this handler runs, e.g. `dem.process`.
    fn kind(&self) -> &'static str;

    /// Does the work. Long work should check [`JobContext::is_cancelled`] now and then and report
    /// progress; CPU-heavy work belongs on `spawn_blocking` or rayon.
    async fn run(&self, ctx: &JobContext) -> Result<JobOutcome, JobError>;

    /// The event announcing a final failure, committed with it.
    fn failure_event(&self, _job: &Job, _error: &Problem) -> Option<NewEvent> {
        None
    }
}

/// What a handler sees of its job.
pub struct JobContext {
    /// The job as claimed.
    pub job: Job,
    /// The store, for reading inputs and writing outputs.
    pub store: Store,
    progress: Arc<AtomicU8>,
    cancel: CancellationToken,
    lost: CancellationToken,
}

impl JobContext {
    /// Whether the lease was lost: another worker may own the job now, so the handler must not
    /// write anything more of it, nor clean up what it wrote (it may be the new worker's).
    pub fn lease_lost(&self) -> bool {
        self.lost.is_cancelled()
    }

    /// Records progress (0–100); it reaches the store within about a second.
    pub fn set_progress(&self, percent: u8) {
        self.progress.store(percent.min(100), Ordering::Relaxed);
    }

    /// Whether the job was cancelled or its lease lost.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// A token that fires on cancellation, for blocking code to poll or async code to select on.
    pub fn cancellation(&self) -> CancellationToken {
        self.cancel.clone()
    }
}

/// Runs registered handlers on claimed jobs.
pub struct WorkerPool {
    store: Store,
    config: JobsConfig,
    handlers: HashMap<&'static str, Arc<dyn JobHandler>>,
    /// Wakes the pool's other loops when one has claimed a job (there may be more).
    waker: Waker,
    name: String,
}

impl WorkerPool {
    /// A pool with no handlers yet, woken by `store`'s queued-job signal.
    pub fn new(store: Store, config: JobsConfig) -> Self {
        let name = format!("{}-{}", hostname(), meridian_core::id::new_id("worker"));
        Self { store, config, handlers: HashMap::new(), waker: Waker::new(), name }
    }

    /// Adds a handler for its kind.
    pub fn register(&mut self, handler: Arc<dyn JobHandler>) {
        self.handlers.insert(handler.kind(), handler);
    }

    /// This pool's worker name, as recorded in leases.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs `config.workers` loops until `shutdown` fires, then waits for running jobs to end.
    pub async fn run(self, shutdown: CancellationToken) {
        let pool = Arc::new(self);
        let mut loops = JoinSet::new();
        for slot in 0..pool.config.workers {
            let pool = pool.clone();
            let shutdown = shutdown.clone();
            loops.spawn(async move { pool.work(slot, shutdown).await });
        }
        while loops.join_next().await.is_some() {}
    }

    async fn work(&self, slot: usize, shutdown: CancellationToken) {
        let kinds: Vec<String> = self.handlers.keys().map(|k| (*k).to_owned()).collect();
        let worker = format!("{}#{slot}", self.name);
        while !shutdown.is_cancelled() {
            match self.store.jobs.claim(&kinds, &worker, self.config.lease).await {
                Ok(Some(job)) => {
                    // Another idle worker may be able to take the next job at once.
                    self.waker.wake();
                    self.execute(job, &worker).await;
                }
                Ok(None) => {
                    tokio::select! {
                        _ = shutdown.cancelled() => {}
                        _ = self.waker.woken() => {}
                        _ = self.store.jobs_queued.fired() => {}
                        _ = tokio::time::sleep(self.config.poll_interval) => {}
                    }
                }
                Err(e) => {
                    tracing::error!(error = %e, "claiming a job failed");
                    tokio::select! {
                        _ = shutdown.cancelled() => {}
                        _ = tokio::time::sleep(self.config.poll_interval * 5) => {}
                    }
                }
            }
        }
    }

    /// Runs one claimed job to an outcome and records it.
    pub async fn execute(&self, job: Job, worker: &str) {
        let span = tracing::info_span!("job", id = %job.id, kind = %job.kind, attempt = job.attempts);
        self.execute_in_span(job, worker).instrument(span).await;
    }

    async fn execute_in_span(&self, job: Job, worker: &str) {
        let Some(handler) = self.handlers.get(job.kind.as_str()).cloned() else {
            return;
        };
        if job.cancel_requested {
            // Cancelled while a worker that has since died was running it: the user's word
            // stands, and a job that takes its worker down must not get another go at it.
            if let Err(e) = self.store.jobs.mark_cancelled(&job.id, worker).await {
                tracing::error!(error = %e, "recording the cancellation failed");
            }
            return;
        }
        if job.attempts > job.max_attempts {
            // Every attempt ended without an outcome (the worker died: a crash, an abort, the
            // process killed) or with a retryable error: a poison job. Stop trying.
            let problem = Problem::new(
                500,
                "job_abandoned",
                "Job abandoned",
                format!(
                    "the job's {} attempts ended without an outcome (its worker stopped) or with a passing error; \
                     it is not tried again (jobs.max_attempts)",
                    job.attempts - 1
                ),
            );
            self.finish_failed(&*handler, &job, worker, problem).await;
            return;
        }
        let ctx = JobContext {
            job: job.clone(),
            store: self.store.clone(),
            progress: Arc::new(AtomicU8::new(job.progress)),
            cancel: CancellationToken::new(),
            lost: CancellationToken::new(),
        };
        let lost = ctx.lost.clone();
        let beats = self.heartbeat(&ctx, worker, lost.clone());
        let run = handler.run(&ctx);
        tokio::pin!(run);
        let result = tokio::select! {
            r = &mut run => r,
            _ = beats => {
                // Told to stop (cancelled, or the lease lost). The handler is not dropped here: work
                // it handed to other threads would go on writing unseen. It is given time to reach
                // a safe point, and dropped after that only if it never looks.
                let grace = if lost.is_cancelled() { self.config.lease } else { self.config.lease / 2 };
                match tokio::time::timeout(grace, &mut run).await {
                    Ok(r) if !lost.is_cancelled() => r,
                    Ok(_) => Err(JobError::Cancelled),
                    Err(_) => {
                        tracing::error!("the job's handler ignored cancellation for a whole lease; dropping it");
                        Err(JobError::Cancelled)
                    }
                }
            }
        };
        if lost.is_cancelled() {
            tracing::warn!("lease lost; leaving the job to its new worker");
            return;
        }
        let recorded = match result {
            Ok(outcome) => self.store.jobs.succeed(&job.id, worker, outcome.output, outcome.event).await,
            Err(JobError::Cancelled) => self.store.jobs.mark_cancelled(&job.id, worker).await,
            Err(JobError::Permanent(problem)) => {
                self.finish_failed(&*handler, &job, worker, problem).await;
                return;
            }
            Err(JobError::Retryable(problem)) if job.attempts < job.max_attempts => {
                let retry_at = Timestamp::now().plus(self.backoff(job.attempts));
                let error = serde_json::to_value(&problem).unwrap_or_default();
                self.store.jobs.fail(&job.id, worker, error, Some(retry_at), None).await
            }
            Err(JobError::Retryable(problem)) => {
                self.finish_failed(&*handler, &job, worker, problem).await;
                return;
            }
        };
        if let Err(e) = recorded {
            tracing::error!(error = %e, "recording the job's outcome failed; it will run again after its lease");
        }
    }

    async fn finish_failed(&self, handler: &dyn JobHandler, job: &Job, worker: &str, problem: Problem) {
        let event = handler.failure_event(job, &problem);
        let error = serde_json::to_value(&problem).unwrap_or_default();
        if let Err(e) = self.store.jobs.fail(&job.id, worker, error, None, event).await {
            tracing::error!(error = %e, "recording the job's failure failed");
        }
    }

    /// Renews the lease until the handler ends. Resolves only when the job must stop: cancelled
    /// by the user (after telling the handler), or lease lost (`lost` fires too).
    async fn heartbeat(&self, ctx: &JobContext, worker: &str, lost: CancellationToken) {
        // Progress reaches the store within half a second of moving, a cancellation requested
        // through any node is seen within half a second, and the lease is renewed every
        // `jobs.heartbeat`.
        let step = self.config.heartbeat.min(Duration::from_millis(500));
        let mut ticks = tokio::time::interval(step);
        ticks.tick().await;
        // What the store holds: the progress the job was claimed with.
        let mut written = (std::time::Instant::now(), ctx.job.progress);
        loop {
            ticks.tick().await;
            let now = ctx.progress.load(Ordering::Relaxed);
            if now == written.1 && written.0.elapsed() + step / 2 < self.config.heartbeat {
                // Nothing to write yet: a read tells whether the user cancelled meanwhile.
                let cancelled = matches!(
                    self.store.jobs.get_job(&ctx.job.account_id, &ctx.job.id).await,
                    Ok(Some(job)) if job.cancel_requested
                );
                if !cancelled {
                    continue;
                }
            }
            written = (std::time::Instant::now(), now);
            let progress = Some(now);
            match self.store.jobs.heartbeat(&ctx.job.id, worker, self.config.lease, progress).await {
                Ok(Heartbeat::Renewed) => {}
                Ok(Heartbeat::CancelRequested) => {
                    // The handler stops at a safe point (given half a lease, the lease just renewed).
                    ctx.cancel.cancel();
                    return;
                }
                Ok(Heartbeat::Lost) => {
                    ctx.cancel.cancel();
                    lost.cancel();
                    return;
                }
                Err(e) => tracing::warn!(error = %e, "heartbeat failed; retrying"),
            }
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let base = self.config.retry_backoff.as_secs_f64() * 2f64.powi(attempt.saturating_sub(1).min(16) as i32);
        let jitter = rand::rng().random_range(0.8..1.2);
        Duration::from_secs_f64(base * jitter)
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname").map(|h| h.trim().to_owned()).unwrap_or_else(|_| "node".to_owned())
}
