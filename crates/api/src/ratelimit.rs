//! Token buckets per account and API area (an account's keys and tokens share them; sign-up is
//! counted per client address). Each node keeps its own buckets.

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
}

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
    /// A limiter with the configured rates.
    pub fn new(config: RateLimitsConfig) -> Self {
        Self { config, buckets: DashMap::new(), checks: AtomicU64::new(0) }
    }

    /// Spends one token of `who`'s bucket in `area`; `who` is an account id (or, for sign-up, a
    /// client address).
    pub fn check(&self, area: &'static str, who: &str) -> Result<Allowed, Refused> {
        let rate = self.config.for_area(area);
        if !self.config.enabled {
            return Ok(Allowed { limit: rate.capacity(), remaining: rate.capacity(), reset_secs: 0 });
        }
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

fn spend(bucket: &mut Bucket, rate: Rate, now: Instant) -> Result<Allowed, Refused> {
    let capacity = f64::from(rate.capacity());
    let per_sec = f64::from(rate.per_minute.max(1)) / 60.0;
    let elapsed = now.duration_since(bucket.last).as_secs_f64();
    bucket.tokens = (bucket.tokens + elapsed * per_sec).min(capacity);
    bucket.last = now;
    if bucket.tokens >= 1.0 {
        bucket.tokens -= 1.0;
        Ok(Allowed {
            limit: rate.capacity(),
            remaining: bucket.tokens.floor() as u32,
            reset_secs: ((capacity - bucket.tokens) / per_sec).ceil() as u64,
        })
    } else {
        Err(Refused {
            limit: rate.capacity(),
            per_minute: rate.per_minute,
            retry_after_secs: ((1.0 - bucket.tokens) / per_sec).ceil().max(1.0) as u64,
            reset_secs: ((capacity - bucket.tokens) / per_sec).ceil() as u64,
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

    #[test]
    fn dns_allows_1000_a_minute_per_account() {
        let limiter = RateLimiter::new(RateLimitsConfig::default());
        for _ in 0..1000 {
            assert!(limiter.check("dns", "acct_a").is_ok());
        }
        assert!(limiter.check("dns", "acct_a").is_err());
        assert!(limiter.check("dns", "acct_b").is_ok(), "buckets are per account");
        assert!(limiter.check("cadastre", "acct_a").is_ok(), "and per area");
    }
}
