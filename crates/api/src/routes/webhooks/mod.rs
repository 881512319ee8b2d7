//! Webhooks under `/api/v1/webhooks` (subscriptions, deliveries, event types) and the DNS API's
//! `/v1/dns/webhooks`, which shows and makes the same subscriptions, limited to `dns.*` events.

pub mod deliveries;
pub mod dns;
pub mod event_types;
pub mod subscriptions;

use crate::error::ApiError;
use crate::state::AppState;
use axum::http::{HeaderMap, HeaderValue};
use meridian_core::Timestamp;
use meridian_store::repo::Subscription;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

/// Every webhook route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(subscriptions::router())
        .merge(deliveries::router())
        .merge(event_types::router())
        .merge(dns::router())
}

/// A subscription as its owner sees it: never its secret, except on creation and rotation.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SubscriptionView {
    /// `whsub_...`
    pub id: String,
    /// The endpoint deliveries are POSTed to.
    pub url: String,
    /// Event types and wildcards (`dns.*`, `*`).
    pub events: Vec<String>,
    pub description: Option<String>,
    /// `active` or `paused`.
    pub status: String,
    /// Why it is paused: `user`, or `failing` when its deliveries failed for `webhooks.disable_after`.
    pub paused_reason: Option<String>,
    /// Since when its deliveries have failed without a success.
    pub failing_since: Option<Timestamp>,
    /// After a rotation: until when the previous secret signs too.
    pub previous_secret_expires_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<Subscription> for SubscriptionView {
    fn from(s: Subscription) -> Self {
        let grace = s.previous_secret_expires_at.filter(|t| *t > Timestamp::now());
        Self {
            id: s.id.0,
            url: s.url,
            events: s.events,
            description: s.description,
            status: s.status.as_str().to_owned(),
            paused_reason: s.paused_reason,
            failing_since: s.failing_since,
            previous_secret_expires_at: grace,
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}

/// A subscription with its signing secret, shown on creation and rotation only.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SubscriptionWithSecret {
    #[serde(flatten)]
    pub subscription: SubscriptionView,
    /// `whsec_...`: the key that signs deliveries. Keep it now.
    pub secret: String,
}

/// A page of subscriptions.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SubscriptionList {
    pub subscriptions: Vec<SubscriptionView>,
    pub total: u64,
}

/// Answer of a deletion.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Deleted {
    pub deleted: bool,
    pub id: String,
}

/// The subscription's ETag.
pub(crate) fn etag(sub: &Subscription) -> HeaderValue {
    crate::etag::tag("", sub.version)
}

/// The version an `If-Match` header names.
pub(crate) fn if_match(headers: &HeaderMap) -> Result<Option<i64>, ApiError> {
    crate::etag::expected_version(headers, "")
}
