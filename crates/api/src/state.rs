//! What every handler can reach.

use crate::ratelimit::RateLimiter;
use meridian_services::Services;
use metrics_exporter_prometheus::PrometheusHandle;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Shared, cheaply cloned state of the HTTP API: the program's services (reached through
/// `Deref`: `state.dns`, `state.features`, ...) and what only the HTTP side keeps.
#[derive(Clone)]
pub struct AppState {
    /// Every area's service, built once by the program and shared with its other roles.
    pub services: Services,
    pub limiter: Arc<RateLimiter>,
    pub metrics: PrometheusHandle,
    /// Parent of every request's cancellation token ([`crate::extract::RequestCancel`]);
    /// cancelled when the process stops waiting for in-flight requests.
    pub requests: CancellationToken,
    /// Parts of this process still starting (the DNS zones loading): `/readyz` answers 503
    /// naming them until they are done.
    pub starting: Arc<std::sync::Mutex<Vec<&'static str>>>,
}

impl std::ops::Deref for AppState {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.services
    }
}

impl AppState {
    /// Marks `part` as starting until the returned guard is dropped.
    pub fn starting(&self, part: &'static str) -> Starting {
        self.starting.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(part);
        Starting { list: self.starting.clone(), part }
    }

    /// The HTTP state over the program's services.
    pub fn new(services: Services) -> Self {
        Self {
            limiter: Arc::new(RateLimiter::new(services.config.rate_limits.clone())),
            services,
            metrics: crate::telemetry::prometheus(),
            requests: CancellationToken::new(),
            starting: Arc::new(std::sync::Mutex::new(Vec::new())),
        }
    }
}

/// A part of the process still starting; ready when dropped.
#[derive(Debug)]
pub struct Starting {
    list: Arc<std::sync::Mutex<Vec<&'static str>>>,
    part: &'static str,
}

impl Drop for Starting {
    fn drop(&mut self) {
        let mut list = self.list.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(i) = list.iter().position(|p| *p == self.part) {
            list.remove(i);
        }
    }
}
