//! The delivery worker: leases due deliveries, POSTs each signed event to its subscription's
//! endpoint, logs every attempt and schedules the next one.
//!
//! At least once: a delivery is leased for longer than an attempt can take, and its outcome is
//! recorded only after the attempt; a process that dies mid-attempt leaves the lease to run out,
//! and the delivery is attempted again. Receivers deduplicate on the event id.

use crate::guard::{GuardedResolver, Policy};
use crate::signing;
use bytes::BytesMut;
use meridian_core::config::WebhooksConfig;
use meridian_core::id::SubscriptionId;
use meridian_core::Timestamp;
use meridian_jobs::Waker;
use meridian_store::repo::{Attempt, AttemptOutcome, AttemptRecord, ClaimedDelivery};
use meridian_store::Store;
use rand::Rng;
use reqwest::header::{HeaderMap, HeaderValue, CONTENT_TYPE, RETRY_AFTER};
use reqwest::StatusCode;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// How much of a response body the attempt log keeps.
pub const RESPONSE_PREFIX: usize = 2048;

/// The longest wait between looks for due deliveries (other nodes do not wake this one).
const MAX_IDLE: Duration = Duration::from_secs(1);

/// Setting up the worker failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("webhooks.extra_ca_file {path}: {reason}")]
    ExtraCa { path: String, reason: String },
    #[error("building the webhook HTTP client: {0}")]
    Client(#[from] reqwest::Error),
}

/// What an endpoint answered.
struct Answer {
    status: StatusCode,
    retry_after: Option<Duration>,
    body: String,
}

/// Builds the HTTP client deliveries use: rustls with the web PKI roots plus
/// `webhooks.extra_ca_file`, the guard as its resolver, no proxies, no redirects.
pub fn http_client(config: &WebhooksConfig) -> Result<reqwest::Client, Error> {
    let fail = |reason: String| Error::ExtraCa {
        path: config.extra_ca_file.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
        reason,
    };
    let mut extra_roots = Vec::new();
    if let Some(path) = &config.extra_ca_file {
        let pem = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
        extra_roots = meridian_egress::tls::pem_certificates(&pem).map_err(fail)?;
        if extra_roots.is_empty() {
            return Err(fail("holds no PEM certificate".into()));
        }
    }
    let builder = meridian_egress::tls::client_builder(&extra_roots)
        .map_err(|e| fail(e.to_string()))?
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(Arc::new(GuardedResolver::new(crate::policy(config))))
        .connect_timeout(config.timeout)
        .pool_idle_timeout(Duration::from_secs(30))
        .pool_max_idle_per_host(config.per_subscription_concurrency as usize)
        .user_agent(concat!("Meridian-Webhooks/", env!("CARGO_PKG_VERSION")));
    Ok(builder.build()?)
}

/// Sends due deliveries until shut down.
pub struct Deliverer {
    store: Store,
    config: WebhooksConfig,
    policy: Policy,
    client: reqwest::Client,
    waker: Waker,
    name: String,
    handoff: Handoff,
    handed: mpsc::UnboundedReceiver<Handed>,
}

/// The outbox sink's way to hand new deliveries to this node's worker in memory: they are
/// inserted already leased to the worker, so that no claim has to find them again, and the
/// database stays the durable record (a worker that dies leaves the lease to run out, and the
/// deliveries are claimed again). Bounded: when the worker's queue is full, deliveries are
/// inserted unleased and claimed from the database as before.
#[derive(Clone, Debug)]
pub struct Handoff {
    worker: String,
    lease: Duration,
    sender: mpsc::UnboundedSender<Handed>,
    /// Handed over and not yet started (or dropped).
    queued: Arc<AtomicUsize>,
    capacity: usize,
}

/// A delivery handed over in memory, with the end of its lease.
#[derive(Debug)]
pub struct Handed {
    delivery: ClaimedDelivery,
    lease_until: Instant,
    /// Counted in the hand-off's queue (not claimed from the database).
    handed: bool,
}

impl Handoff {
    /// The worker the deliveries are leased to.
    pub fn worker(&self) -> &str {
        &self.worker
    }

    /// How long a lease lasts.
    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// Makes room for `n` deliveries in the worker's queue; false when it has not that much.
    pub fn reserve(&self, n: usize) -> bool {
        self.queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| (q + n <= self.capacity).then_some(q + n))
            .is_ok()
    }

    /// Gives back room reserved and not used.
    pub fn release(&self, n: usize) {
        self.queued.fetch_sub(n, Ordering::AcqRel);
    }

    /// Hands over a delivery for which room was reserved, leased until `lease_until`.
    pub fn hand(&self, delivery: ClaimedDelivery, lease_until: Instant) {
        if self.sender.send(Handed { delivery, lease_until, handed: true }).is_err() {
            // The worker has stopped; the lease runs out and the delivery is claimed again.
            self.release(1);
        }
    }
}

/// Deliveries waiting on this node, per subscription, taken in turn from subscriptions below
/// their concurrency cap.
#[derive(Default)]
struct Local {
    subs: HashMap<SubscriptionId, SubQueue>,
    /// Subscriptions with waiting deliveries and a free slot, in turn.
    ready: VecDeque<SubscriptionId>,
    waiting: usize,
}

#[derive(Default)]
struct SubQueue {
    queue: VecDeque<Handed>,
    in_flight: u32,
    listed: bool,
}

impl Local {
    fn push(&mut self, handed: Handed, cap: u32) {
        let sub = handed.delivery.subscription_id.clone();
        let q = self.subs.entry(sub.clone()).or_default();
        q.queue.push_back(handed);
        self.waiting += 1;
        if !q.listed && q.in_flight < cap {
            q.listed = true;
            self.ready.push_back(sub);
        }
    }

    /// The next delivery to attempt, counted in flight for its subscription.
    fn next(&mut self, cap: u32) -> Option<Handed> {
        while let Some(sub) = self.ready.pop_front() {
            let Some(q) = self.subs.get_mut(&sub) else { continue };
            q.listed = false;
            let Some(handed) = q.queue.pop_front() else {
                if q.in_flight == 0 {
                    self.subs.remove(&sub);
                }
                continue;
            };
            self.waiting -= 1;
            q.in_flight += 1;
            if !q.queue.is_empty() && q.in_flight < cap {
                q.listed = true;
                self.ready.push_back(sub);
            }
            return Some(handed);
        }
        None
    }

    fn finished(&mut self, sub: &SubscriptionId, cap: u32) {
        let Some(q) = self.subs.get_mut(sub) else { return };
        q.in_flight = q.in_flight.saturating_sub(1);
        if q.queue.is_empty() {
            if q.in_flight == 0 {
                self.subs.remove(sub);
            }
        } else if !q.listed && q.in_flight < cap {
            q.listed = true;
            self.ready.push_back(sub.clone());
        }
    }
}

/// Most attempts one group commit records.
const RECORD_BATCH: usize = 512;

impl Deliverer {
    /// A worker for `store`, woken by `waker` when deliveries are added without a hand-off.
    pub fn new(store: Store, config: WebhooksConfig, waker: Waker) -> Result<Self, Error> {
        let client = http_client(&config)?;
        let policy = crate::policy(&config);
        let name = meridian_core::id::new_id("webhooks");
        let (sender, handed) = mpsc::unbounded_channel();
        let handoff = Handoff {
            worker: name.clone(),
            lease: config.timeout + Duration::from_secs(5),
            sender,
            queued: Arc::default(),
            capacity: (config.max_concurrency.max(1) as usize) * 16,
        };
        Ok(Self { store, config, policy, client, waker, name, handoff, handed })
    }

    /// The hand-off for this worker, for the outbox sink of the same process.
    pub fn handoff(&self) -> Handoff {
        self.handoff.clone()
    }

    /// How long a claim lasts: longer than any attempt, so that only a dead worker loses one.
    fn lease(&self) -> Duration {
        self.handoff.lease
    }

    /// Runs until `shutdown` fires, then lets attempts in flight finish and records them.
    pub async fn run(mut self, shutdown: CancellationToken) {
        // The receiver moves into this loop; the worker keeps a closed one.
        let mut handed = std::mem::replace(&mut self.handed, mpsc::unbounded_channel().1);
        let this = Arc::new(self);
        let max = this.config.max_concurrency.max(1) as usize;
        let cap = this.config.per_subscription_concurrency.max(1);
        let (records, recorded) = mpsc::unbounded_channel::<AttemptRecord>();
        let recorder = tokio::spawn(record_loop(this.clone(), recorded));
        let (done_tx, mut done) = mpsc::unbounded_channel::<SubscriptionId>();
        let mut local = Local::default();
        let mut in_flight = 0usize;
        let mut tasks = JoinSet::new();
        let mut claim_at = tokio::time::Instant::now();
        while !shutdown.is_cancelled() {
            while tasks.try_join_next().is_some() {}
            // Look in the database (retries, deliveries added without a hand-off, leases run out)
            // when a look is due and the local queue has room.
            if tokio::time::Instant::now() >= claim_at && local.waiting < max {
                let limit = (max - local.waiting) as u32;
                let lease_until = Instant::now() + this.lease();
                match this.store.webhooks.claim_deliveries(&this.name, limit, cap, this.lease()).await {
                    Ok(batch) => {
                        let full = batch.len() as u32 == limit;
                        for delivery in batch {
                            local.push(Handed { delivery, lease_until, handed: false }, cap);
                        }
                        claim_at = tokio::time::Instant::now()
                            + if full { Duration::ZERO } else { this.until_next_due().await };
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "claiming webhook deliveries failed");
                        claim_at = tokio::time::Instant::now() + MAX_IDLE * 2;
                    }
                }
            }
            // Start what the caps allow. A delivery whose lease would run out during its attempt
            // is left to be claimed again once it has.
            while in_flight < max {
                let Some(h) = local.next(cap) else { break };
                if h.handed {
                    this.handoff.release(1);
                }
                if h.lease_until < Instant::now() + this.config.timeout + Duration::from_secs(1) {
                    local.finished(&h.delivery.subscription_id, cap);
                    continue;
                }
                in_flight += 1;
                let (worker, records, done) = (this.clone(), records.clone(), done_tx.clone());
                tasks.spawn(async move {
                    let sub = h.delivery.subscription_id.clone();
                    let record = worker.attempt(h.delivery).await;
                    let _ = records.send(record);
                    let _ = done.send(sub);
                });
            }
            tokio::select! {
                _ = shutdown.cancelled() => {}
                Some(h) = handed.recv() => {
                    local.push(h, cap);
                    while let Ok(h) = handed.try_recv() {
                        local.push(h, cap);
                    }
                }
                Some(sub) = done.recv() => {
                    in_flight -= 1;
                    local.finished(&sub, cap);
                    while let Ok(sub) = done.try_recv() {
                        in_flight -= 1;
                        local.finished(&sub, cap);
                    }
                    let soon = tokio::time::Instant::now() + Duration::from_millis(50);
                    if local.waiting == 0 && claim_at > soon {
                        // Drained: more may be due (a full claim was cut short by the queue's room).
                        claim_at = soon;
                    }
                }
                _ = this.waker.woken() => claim_at = tokio::time::Instant::now(),
                _ = tokio::time::sleep_until(claim_at) => {}
            }
        }
        let grace = this.config.timeout + Duration::from_secs(1);
        if tokio::time::timeout(grace, async { while tasks.join_next().await.is_some() {} }).await.is_err() {
            tracing::warn!("webhook attempts still in flight at shutdown will be retried after their lease");
        }
        drop(records);
        let _ = recorder.await;
    }

    /// How long until the next delivery falls due (at most [`MAX_IDLE`]).
    async fn until_next_due(&self) -> Duration {
        match self.store.webhooks.next_due().await {
            Ok(Some(at)) => {
                let ms = at.millis() - Timestamp::now().millis();
                if ms <= 0 {
                    // Due, but held back by a concurrency cap or another node's lease.
                    MAX_IDLE
                } else {
                    Duration::from_millis(ms as u64).min(MAX_IDLE)
                }
            }
            Ok(None) => MAX_IDLE,
            Err(e) => {
                tracing::warn!(error = %e, "reading the next webhook due time failed");
                MAX_IDLE
            }
        }
    }

    /// Makes one attempt; answers what to record of it.
    pub async fn attempt(&self, delivery: ClaimedDelivery) -> AttemptRecord {
        let attempted_at = Timestamp::now();
        let clock = Instant::now();
        let result = self.send(&delivery, attempted_at).await;
        let latency_ms = clock.elapsed().as_millis() as u64;
        let round = delivery.round_attempts + 1;
        let (attempt, outcome) = match result {
            Ok(answer) => {
                let attempt = Attempt {
                    attempted_at,
                    status_code: Some(answer.status.as_u16()),
                    error: None,
                    latency_ms,
                    response_body: Some(answer.body),
                };
                let outcome = if answer.status.is_success() {
                    AttemptOutcome::Succeeded
                } else {
                    let honoured = matches!(answer.status.as_u16(), 429 | 503).then_some(answer.retry_after).flatten();
                    self.after_failure(round, honoured)
                };
                (attempt, outcome)
            }
            Err(error) => {
                let attempt =
                    Attempt { attempted_at, status_code: None, error: Some(error), latency_ms, response_body: None };
                (attempt, self.after_failure(round, None))
            }
        };
        let label = match outcome {
            AttemptOutcome::Succeeded => "succeeded",
            AttemptOutcome::RetryAt(_) => "failed",
            AttemptOutcome::Exhausted => "exhausted",
        };
        metrics::counter!("meridian_webhook_attempts_total", "outcome" => label).increment(1);
        metrics::histogram!("meridian_webhook_attempt_seconds").record(latency_ms as f64 / 1000.0);
        tracing::debug!(delivery = %delivery.id, event = %delivery.event_id, outcome = label, status = ?attempt.status_code,
            error = ?attempt.error, "webhook attempt");
        AttemptRecord { id: delivery.id, attempt, outcome }
    }

    /// What follows failed attempt number `round` (of this round): the next attempt after the
    /// schedule's delay with ±20% jitter (or after `Retry-After`, up to a day), or exhaustion.
    fn after_failure(&self, round: u32, retry_after: Option<Duration>) -> AttemptOutcome {
        let Some(base) = self.config.retry_schedule.get(round as usize - 1) else {
            return AttemptOutcome::Exhausted;
        };
        let delay = match retry_after {
            Some(asked) => asked.clamp(Duration::from_secs(1), Duration::from_secs(86_400)),
            None => base.mul_f64(rand::rng().random_range(0.8..=1.2)),
        };
        AttemptOutcome::RetryAt(Timestamp::now().plus(delay))
    }

    /// POSTs the event; an error says why no answer came.
    async fn send(&self, d: &ClaimedDelivery, at: Timestamp) -> Result<Answer, String> {
        let url = self.policy.check_url(&d.url).map_err(|r| format!("refused: {r}"))?;
        let signed = signing::sign(&d.secrets, d.event_id.as_str(), at.millis() / 1000, d.body.as_bytes());
        let mut headers = HeaderMap::new();
        let mut put = |name: &'static str, value: &str| {
            if let Ok(v) = HeaderValue::from_str(value) {
                headers.insert(name, v);
            }
        };
        put("x-service-signature", &signed.service_signature);
        put("x-service-event", &d.event_type);
        put("x-service-event-id", d.event_id.as_str());
        put("x-service-delivery", d.id.as_str());
        put("x-service-timestamp", &at.to_rfc3339());
        put("webhook-id", &signed.webhook_id);
        put("webhook-timestamp", &signed.webhook_timestamp.to_string());
        put("webhook-signature", &signed.webhook_signature);
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let deadline = Instant::now() + self.config.timeout;
        let request = self.client.post(url).headers(headers).body(d.body.clone()).send();
        let response = tokio::time::timeout(self.config.timeout, request)
            .await
            .map_err(|_| format!("timed out after {} ms", self.config.timeout.as_millis()))?
            .map_err(describe)?;
        let status = response.status();
        let retry_after = response.headers().get(RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(parse_retry_after);
        // The status decides; the body is only logged, so a slow body costs at most the rest of
        // the timeout and never turns a success into a failure.
        let body = read_prefix(response, deadline).await;
        Ok(Answer { status, retry_after, body })
    }
}

/// Records finished attempts, as many at a time as have finished (group commit). An outcome is
/// written only after its attempt, and a delivery stays leased until then: a process that dies
/// before the write leaves the lease to run out, and the delivery is attempted again.
async fn record_loop(worker: Arc<Deliverer>, mut finished: mpsc::UnboundedReceiver<AttemptRecord>) {
    let mut batch = Vec::new();
    while let Some(first) = finished.recv().await {
        batch.push(first);
        while batch.len() < RECORD_BATCH {
            match finished.try_recv() {
                Ok(r) => batch.push(r),
                Err(_) => break,
            }
        }
        let recorded = worker.store.webhooks.record_attempts(&worker.name, &batch, worker.config.disable_after).await;
        match recorded {
            Ok(flags) => {
                for (r, ok) in batch.iter().zip(flags) {
                    if !ok {
                        tracing::info!(delivery = %r.id, "lease lost during an attempt; outcome not recorded");
                    }
                }
            }
            Err(e) => tracing::error!(attempts = batch.len(), error = %e,
                "recording webhook attempts failed; they will be retried after their lease"),
        }
        batch.clear();
    }
}

/// Reads up to [`RESPONSE_PREFIX`] bytes of a body before `deadline`.
async fn read_prefix(mut response: reqwest::Response, deadline: Instant) -> String {
    let mut buf = BytesMut::new();
    let read = async {
        while buf.len() < RESPONSE_PREFIX {
            match response.chunk().await {
                Ok(Some(chunk)) => buf.extend_from_slice(&chunk),
                _ => break,
            }
        }
    };
    let _ = tokio::time::timeout_at(deadline.into(), read).await;
    buf.truncate(RESPONSE_PREFIX);
    String::from_utf8_lossy(&buf).into_owned()
}

/// `Retry-After` as seconds or an HTTP date.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let ms = when.timestamp_millis() - Timestamp::now().millis();
    Some(Duration::from_millis(ms.max(0) as u64))
}

/// A network error in a few words: what failed and the innermost cause.
fn describe(e: reqwest::Error) -> String {
    let what = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "connection failed"
    } else {
        "request failed"
    };
    let mut root: &dyn std::error::Error = &e;
    while let Some(next) = root.source() {
        root = next;
    }
    format!("{what}: {root}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_takes_seconds_and_dates() {
        assert_eq!(parse_retry_after("120"), Some(Duration::from_secs(120)));
        assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"), Some(Duration::ZERO));
        let later = chrono::Utc::now() + chrono::Duration::seconds(90);
        let d = parse_retry_after(&later.format("%a, %d %b %Y %H:%M:%S GMT").to_string()).unwrap_or_default();
        assert!(d > Duration::from_secs(80) && d <= Duration::from_secs(90), "{d:?}");
        assert_eq!(parse_retry_after("soon"), None);
    }
}
