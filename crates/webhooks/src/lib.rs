//! Webhooks: signing deliveries (`X-Service-Signature` and Standard Webhooks v1), the SSRF guard
//! that keeps endpoints on the public internet, the outbox sink that turns each committed event
//! into one durable delivery per matching subscription of its tenant, and the delivery worker
//! that sends them at least once with retries, back-off and a per-subscription concurrency cap.
//! No HTTP server here: the API's routes call into this crate.

pub mod deliver;
pub mod event_types;
pub mod fanout;
pub use meridian_egress::guard;
pub mod signing;
pub mod subscriptions;

pub use deliver::{Deliverer, Error, Handoff};
pub use fanout::{fan_out, replay, WebhookSink};
pub use guard::Policy;
pub use subscriptions::{NewSubscription, SubscriptionError, SubscriptionService, SubscriptionUpdate};

use meridian_core::config::WebhooksConfig;

/// The guard's policy from configuration.
pub fn policy(config: &WebhooksConfig) -> Policy {
    Policy { allow_http: config.allow_http, allow_private_networks: config.allow_private_networks }
}
