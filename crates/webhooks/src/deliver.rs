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
use meridian_core::Timestamp;
use meridian_jobs::Waker;
use meridian_store::repo::{Attempt, AttemptOutcome, ClaimedDelivery};
use meridian_store::Store;
use rand::Rng;
use reqwest::header::{HeaderMap, HeaderValue, CONTENT_TYPE, RETRY_AFTER};
use reqwest::StatusCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{Notify, Semaphore};
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
    let mut builder = reqwest::Client::builder()
        .use_rustls_tls()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(Arc::new(GuardedResolver::new(crate::policy(config))))
        .connect_timeout(config.timeout)
        .pool_idle_timeout(Duration::from_secs(30))
        .pool_max_idle_per_host(config.per_subscription_concurrency as usize)
        .user_agent(concat!("Meridian-Webhooks/", env!("CARGO_PKG_VERSION")));
    if let Some(path) = &config.extra_ca_file {
        let fail = |reason: String| Error::ExtraCa { path: path.display().to_string(), reason };
        let pem = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| fail(e.to_string()))?;
        if certs.is_empty() {
            return Err(fail("holds no PEM certificate".into()));
        }
        for cert in certs {
            builder = builder.add_root_certificate(cert);
        }
    }
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
}

impl Deliverer {
    /// A worker for `store`, woken by `waker` when the sink adds deliveries.
    pub fn new(store: Store, config: WebhooksConfig, waker: Waker) -> Result<Self, Error> {
        let client = http_client(&config)?;
        let policy = crate::policy(&config);
        let name = meridian_core::id::new_id("webhooks");
        Ok(Self { store, config, policy, client, waker, name })
    }

    /// How long a claim lasts: longer than any attempt, so that only a dead worker loses one.
    fn lease(&self) -> Duration {
        self.config.timeout + Duration::from_secs(5)
    }

    /// Runs until `shutdown` fires, then lets attempts in flight finish.
    pub async fn run(self, shutdown: CancellationToken) {
        let this = Arc::new(self);
        let slots = Arc::new(Semaphore::new(this.config.max_concurrency.max(1) as usize));
        let finished = Arc::new(Notify::new());
        let mut tasks = JoinSet::new();
        while !shutdown.is_cancelled() {
            while tasks.try_join_next().is_some() {}
            let free = slots.available_permits();
            let mut wait = MAX_IDLE;
            if free > 0 {
                let claimed = this
                    .store
                    .webhooks
                    .claim_deliveries(&this.name, free as u32, this.config.per_subscription_concurrency, this.lease())
                    .await;
                match claimed {
                    Ok(batch) => {
                        let full = batch.len() == free;
                        for delivery in batch {
                            let Ok(permit) = slots.clone().acquire_owned().await else { break };
                            let worker = this.clone();
                            let finished = finished.clone();
                            tasks.spawn(async move {
                                worker.attempt(delivery).await;
                                drop(permit);
                                finished.notify_one();
                            });
                        }
                        if full {
                            // Every slot is busy; a finishing attempt wakes us.
                            wait = MAX_IDLE;
                        } else {
                            wait = this.until_next_due().await;
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "claiming webhook deliveries failed");
                        wait = MAX_IDLE * 2;
                    }
                }
            }
            tokio::select! {
                _ = shutdown.cancelled() => {}
                _ = this.waker.woken() => {}
                _ = finished.notified() => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
        let grace = this.config.timeout + Duration::from_secs(1);
        if tokio::time::timeout(grace, async { while tasks.join_next().await.is_some() {} }).await.is_err() {
            tracing::warn!("webhook attempts still in flight at shutdown will be retried after their lease");
        }
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

    /// Makes one attempt and records it.
    pub async fn attempt(&self, delivery: ClaimedDelivery) {
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
        let recorded = self
            .store
            .webhooks
            .record_attempt(&self.name, &delivery.id, &attempt, outcome, self.config.disable_after)
            .await;
        match recorded {
            Ok(true) => {}
            Ok(false) => tracing::info!(delivery = %delivery.id, "lease lost during an attempt; outcome not recorded"),
            Err(e) => {
                tracing::error!(delivery = %delivery.id, error = %e, "recording a webhook attempt failed; it will be retried")
            }
        }
    }

    /// What follows failed attempt number `round` (of this round): the next attempt after the
    /// schedule's delay with ±20% jitter (or after `Retry-After`, up to a day), or exhaustion.
    fn after_failure(&self, round: u32, retry_after: Option<Duration>) -> AttemptOutcome {
        let Some(base) = self.config.retry_schedule.get(round as usize - 1) else {
            return AttemptOutcome::Exhausted;
        };
        let delay = match retry_after {
            Some(asked) => asked.clamp(Duration::from_secs(1), Duration::from_secs(86_400)),
            None => base.mul_f64(rand::thread_rng().gen_range(0.8..=1.2)),
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
