//! Token buckets per account and API area (an account's keys and tokens share them; sign-up is
//! counted per client address).
//!
//! Each node keeps its own buckets unless `rate_limits.redis_url` names a Redis server: then the
//! buckets live there, one hash per bucket updated by one script run (atomic, on Redis's own
//! clock), and every node sharing it spends from the same tokens. When Redis cannot be reached
//! the node limits on its own buckets and tries Redis again a second later.

use crate::error::ApiError;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use dashmap::DashMap;
use meridian_core::config::{Rate, RateLimitsConfig};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

struct Bucket {
    tokens: f64,
    last: Instant,
}

/// The limiter.
pub struct RateLimiter {
    config: RateLimitsConfig,
    buckets: DashMap<(&'static str, String), Bucket>,
    checks: AtomicU64,
    shared: Option<Shared>,
}

/// Buckets kept in Redis for every node.
struct Shared {
    redis: redis::aio::ConnectionManager,
    script: redis::Script,
    /// Until when (ms since `epoch`) Redis is not asked, after a failure.
    resting_until: AtomicU64,
    epoch: Instant,
}

/// One bucket's spend, on Redis's clock: refills by the time passed since the bucket was last
/// touched, takes a token if there is one, and keeps the bucket as long as it takes to fill.
/// Answers `{taken (0 or 1), tokens left as text}`.
const SPEND: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or capacity
local at = tonumber(b[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * per_ms)
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / per_ms) + 1000)
return {taken, tostring(tokens)}
";

/// How long a node limits on its own after Redis failed to answer.
const REST_MS: u64 = 1_000;

/// A request that may go ahead, with what is left.
#[derive(Debug, Clone, Copy)]
pub struct Allowed {
    limit: u32,
    remaining: u32,
    reset_secs: u64,
}

/// A refused request.
#[derive(Debug, Clone, Copy)]
pub struct Refused {
    /// The bucket's capacity (the burst), as `RateLimit-Limit` says it.
    limit: u32,
    /// Tokens added a minute.
    per_minute: u32,
    retry_after_secs: u64,
    reset_secs: u64,
}

fn header_value(n: u64) -> HeaderValue {
    HeaderValue::from_str(&n.to_string()).unwrap_or(HeaderValue::from_static("0"))
}

impl Allowed {
    /// Adds `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`.
    pub fn write_headers(&self, headers: &mut HeaderMap) {
        headers.insert("ratelimit-limit", header_value(u64::from(self.limit)));
        headers.insert("ratelimit-remaining", header_value(u64::from(self.remaining)));
        headers.insert("ratelimit-reset", header_value(self.reset_secs));
    }
}

impl Refused {
    /// The 429 answer with `Retry-After` and the rate-limit headers.
    pub fn to_error(&self) -> ApiError {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            "Too many requests",
            format!(
                "this account may make {} requests a minute in this API area (bursts of up to {}), with all its keys \
                 together; retry in {} s",
                self.per_minute, self.limit, self.retry_after_secs
            ),
        )
        .with_header(axum::http::header::RETRY_AFTER, header_value(self.retry_after_secs))
        .with_header(axum::http::HeaderName::from_static("ratelimit-limit"), header_value(u64::from(self.limit)))
        .with_header(axum::http::HeaderName::from_static("ratelimit-remaining"), HeaderValue::from_static("0"))
        .with_header(axum::http::HeaderName::from_static("ratelimit-reset"), header_value(self.reset_secs))
    }
}

impl RateLimiter {
    /// A limiter with the configured rates (connecting to Redis, when one is named, on first use).
    pub fn new(config: RateLimitsConfig) -> Self {
        let shared =
            (config.enabled && !config.redis_url.is_empty()).then(|| Shared::open(&config.redis_url)).flatten();
        Self { config, buckets: DashMap::new(), checks: AtomicU64::new(0), shared }
    }

    /// Spends one token of `who`'s bucket in `area`; `who` is an account id (or, for sign-up, a
    /// client address).
    pub async fn check(&self, area: &'static str, who: &str) -> Result<Allowed, Refused> {
        let rate = self.config.for_area(area);
        if !self.config.enabled {
            return Ok(Allowed { limit: rate.capacity(), remaining: rate.capacity(), reset_secs: 0 });
        }
        if let Some(shared) = &self.shared {
            if let Some(decision) = shared.spend(area, who, rate).await {
                return decision;
            }
        }
        self.check_here(area, who, rate)
    }

    /// Spends from this node's own bucket.
    fn check_here(&self, area: &'static str, who: &str, rate: Rate) -> Result<Allowed, Refused> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % 10_000 == 9_999 {
            self.sweep();
        }
        let now = Instant::now();
        let mut bucket = self
            .buckets
            .entry((area, who.to_owned()))
            .or_insert_with(|| Bucket { tokens: f64::from(rate.capacity()), last: now });
        spend(&mut bucket, rate, now)
    }

    /// Forgets buckets that have been full for a while, so that memory follows active keys.
    fn sweep(&self) {
        let now = Instant::now();
        self.buckets.retain(|_, b| now.duration_since(b.last) < Duration::from_secs(600));
    }
}

impl Shared {
    fn open(url: &str) -> Option<Self> {
        let client = match redis::Client::open(url) {
            Ok(c) => c,
            Err(e) => {
                tracing::error!(error = %e, "rate_limits.redis_url cannot be used; each node limits on its own");
                return None;
            }
        };
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_millis(500)))
            .set_response_timeout(Some(Duration::from_millis(250)))
            .set_number_of_retries(1);
        match redis::aio::ConnectionManager::new_lazy_with_config(client, config) {
            Ok(redis) => Some(Self {
                redis,
                script: redis::Script::new(SPEND),
                resting_until: AtomicU64::new(0),
                epoch: Instant::now(),
            }),
            Err(e) => {
                tracing::error!(error = %e, "rate_limits.redis_url cannot be used; each node limits on its own");
                None
            }
        }
    }

    /// The decision of the shared bucket; none when Redis did not answer (or rests after not
    /// answering).
    async fn spend(&self, area: &str, who: &str, rate: Rate) -> Option<Result<Allowed, Refused>> {
        let now = self.epoch.elapsed().as_millis() as u64;
        if now < self.resting_until.load(Ordering::Relaxed) {
            return None;
        }
        let per_ms = f64::from(rate.per_minute.max(1)) / 60_000.0;
        let mut redis = self.redis.clone();
        let answer: redis::RedisResult<(i64, String)> = self
            .script
            .key(format!("meridian:ratelimit:{area}:{who}"))
            .arg(rate.capacity())
            .arg(per_ms)
            .invoke_async(&mut redis)
            .await;
        match answer {
            Ok((taken, tokens)) => Some(decide(rate, tokens.parse().unwrap_or(0.0), taken == 1)),
            Err(e) => {
                self.resting_until.store(now + REST_MS, Ordering::Relaxed);
                metrics::counter!("meridian_rate_limit_redis_failures_total").increment(1);
                tracing::warn!(error = %e, "the shared rate limits in Redis did not answer; limiting on this node for 1 s");
                None
            }
        }
    }
}

fn spend(bucket: &mut Bucket, rate: Rate, now: Instant) -> Result<Allowed, Refused> {
    let capacity = f64::from(rate.capacity());
    let per_sec = f64::from(rate.per_minute.max(1)) / 60.0;
    let elapsed = now.duration_since(bucket.last).as_secs_f64();
    bucket.tokens = (bucket.tokens + elapsed * per_sec).min(capacity);
    bucket.last = now;
    let taken = bucket.tokens >= 1.0;
    if taken {
        bucket.tokens -= 1.0;
    }
    decide(rate, bucket.tokens, taken)
}

/// The answer of a bucket left with `tokens` after a token was `taken` from it (or not).
fn decide(rate: Rate, tokens: f64, taken: bool) -> Result<Allowed, Refused> {
    let capacity = f64::from(rate.capacity());
    let per_sec = f64::from(rate.per_minute.max(1)) / 60.0;
    let reset_secs = ((capacity - tokens) / per_sec).ceil().max(0.0) as u64;
    if taken {
        Ok(Allowed { limit: rate.capacity(), remaining: tokens.floor().max(0.0) as u32, reset_secs })
    } else {
        Err(Refused {
            limit: rate.capacity(),
            per_minute: rate.per_minute,
            retry_after_secs: ((1.0 - tokens) / per_sec).ceil().max(1.0) as u64,
            reset_secs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_empties_then_refills() {
        let rate = Rate { per_minute: 60, burst: Some(3) };
        let start = Instant::now();
        let mut b = Bucket { tokens: 3.0, last: start };
        for left in [2, 1, 0] {
            assert_eq!(spend(&mut b, rate, start).map(|a| a.remaining).ok(), Some(left));
        }
        let refused = spend(&mut b, rate, start).err();
        assert_eq!(refused.map(|r| r.retry_after_secs), Some(1));
        assert!(spend(&mut b, rate, start + Duration::from_millis(1100)).is_ok());
    }

    #[tokio::test]
    async fn dns_allows_1000_a_minute_per_account() {
        let limiter = RateLimiter::new(RateLimitsConfig::default());
        for _ in 0..1000 {
            assert!(limiter.check("dns", "acct_a").await.is_ok());
        }
        assert!(limiter.check("dns", "acct_a").await.is_err());
        assert!(limiter.check("dns", "acct_b").await.is_ok(), "buckets are per account");
        assert!(limiter.check("cadastre", "acct_a").await.is_ok(), "and per area");
    }

    #[tokio::test]
    async fn an_unreachable_redis_leaves_each_node_limiting_on_its_own() {
        // Nothing listens on port 1: every node falls back to its own buckets, at once.
        let config = RateLimitsConfig {
            redis_url: "redis://127.0.0.1:1/0".into(),
            dns: Rate { per_minute: 60, burst: Some(3) },
            ..RateLimitsConfig::default()
        };
        let limiter = RateLimiter::new(config);
        for _ in 0..3 {
            assert!(limiter.check("dns", "acct_a").await.is_ok());
        }
        assert!(limiter.check("dns", "acct_a").await.is_err());
    }
}
