//! Deliveries: each event's delivery to one subscription, with every attempt; redelivery.

use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use meridian_core::id::EventId;
use meridian_core::{FieldError, Timestamp};
use meridian_store::repo::{Attempt, Delivery, DeliveryFilter, DeliveryStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes of deliveries.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_deliveries)).routes(routes!(get_delivery)).routes(routes!(redeliver))
}

/// One attempt to deliver.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct AttemptView {
    pub attempted_at: Timestamp,
    /// The endpoint's HTTP status, when it answered.
    pub status_code: Option<u16>,
    /// Why there was no answer (timeout, connection refused, TLS, refused by the SSRF guard).
    pub error: Option<String>,
    /// Milliseconds from sending to the answer's headers.
    pub latency_ms: u64,
    /// The first 2 KiB of the answer's body.
    pub response_body: Option<String>,
}

impl From<Attempt> for AttemptView {
    fn from(a: Attempt) -> Self {
        Self {
            attempted_at: a.attempted_at,
            status_code: a.status_code,
            error: a.error,
            latency_ms: a.latency_ms,
            response_body: a.response_body,
        }
    }
}

/// One event's delivery to one subscription.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DeliveryView {
    /// `dlv_...`
    pub id: String,
    /// `whsub_...`
    pub subscription_id: String,
    /// `evt_...`: the `id` of the payload, which receivers deduplicate on.
    pub event_id: String,
    pub event_type: String,
    /// The payload, as sent.
    #[schema(value_type = Object)]
    pub event: Value,
    /// `pending` (not attempted yet), `failed` (a retry is scheduled), `succeeded`, or
    /// `exhausted` (every attempt failed; redeliver or replay it).
    pub status: String,
    /// Attempts so far, over every redelivery.
    pub attempt_count: u32,
    /// When the next attempt is due, while one is.
    pub next_attempt_at: Option<Timestamp>,
    /// Every attempt, oldest first.
    pub attempts: Vec<AttemptView>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub completed_at: Option<Timestamp>,
}

impl From<Delivery> for DeliveryView {
    fn from(d: Delivery) -> Self {
        Self {
            id: d.id.0,
            subscription_id: d.subscription_id.0,
            event_id: d.event_id.0,
            event_type: d.event_type,
            event: d.payload,
            status: d.status.as_str().to_owned(),
            attempt_count: d.attempt_count,
            next_attempt_at: d.next_attempt_at,
            attempts: d.attempts.into_iter().map(Into::into).collect(),
            created_at: d.created_at,
            updated_at: d.updated_at,
            completed_at: d.completed_at,
        }
    }
}

/// A page of deliveries.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DeliveryList {
    pub deliveries: Vec<DeliveryView>,
    pub total: u64,
}

/// Filters and paging of the delivery list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeliveryQuery {
    /// Only deliveries in this state: pending, failed, succeeded or exhausted.
    #[param(pattern = "^(pending|failed|succeeded|exhausted)$", nullable = false)]
    pub status: Option<String>,
    /// Only the delivery of this event.
    pub event_id: Option<String>,
    /// Page size (default and most: `limits.default_page_size`, `limits.max_page_size`).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
    /// Items to skip.
    #[param(minimum = 0)]
    pub offset: Option<i64>,
    /// Where the page starts: the `cursor` of a `next` link (it replaces `offset`).
    pub cursor: Option<String>,
}

#[utoipa::path(
    get,
    path = "/api/v1/webhooks/subscriptions/{subscription_id}/deliveries",
    tag = "webhooks",
    params(("subscription_id" = String, Path, description = "`whsub_...`"), DeliveryQuery),
    responses((status = 200, description = "The subscription's deliveries, newest first, with their attempts", body = DeliveryList))
)]
async fn list_deliveries(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Query(q): Query<DeliveryQuery>,
) -> ApiResult<Response> {
    let page = crate::paging::page(&state.config, q.limit, q.offset, q.cursor.as_deref())?;
    let status = match q.status.as_deref() {
        None => None,
        Some(s) => Some(DeliveryStatus::parse(s).ok_or_else(|| {
            let mut e = ApiError::malformed("status must be pending, failed, succeeded or exhausted");
            e.problem.errors =
                vec![FieldError::new("/status", "invalid_parameter", "pending, failed, succeeded or exhausted")];
            e
        })?),
    };
    let filter = DeliveryFilter { status, event_id: q.event_id.clone().map(EventId) };
    let (sub, deliveries, total) = state.subscriptions.deliveries(&caller.account_id, &id, &filter, page).await?;
    let last = deliveries.last().map(|v| v.id.to_string());
    let mut response =
        Json(DeliveryList { deliveries: deliveries.into_iter().map(Into::into).collect(), total }).into_response();
    let mut extra = Vec::new();
    if let Some(s) = status {
        extra.push(format!("status={}", s.as_str()));
    }
    if let Some(e) = &q.event_id {
        extra.push(format!("event_id={}", form_urlencoded::byte_serialize(e.as_bytes()).collect::<String>()));
    }
    let path = format!("/api/v1/webhooks/subscriptions/{}/deliveries", sub.id);
    crate::paging::link(&mut response, &path, &extra.join("&"), page, total, last.as_deref());
    Ok(response)
}

#[utoipa::path(
    get,
    path = "/api/v1/webhooks/deliveries/{delivery_id}",
    tag = "webhooks",
    params(("delivery_id" = String, Path, description = "`dlv_...`")),
    responses((status = 200, description = "The delivery with its event and attempts", body = DeliveryView))
)]
async fn get_delivery(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> ApiResult<Json<DeliveryView>> {
    Ok(Json(state.subscriptions.delivery(&caller.account_id, &id).await?.into()))
}

#[utoipa::path(
    post,
    path = "/api/v1/webhooks/deliveries/{delivery_id}/redeliver",
    tag = "webhooks",
    params(("delivery_id" = String, Path, description = "`dlv_...`")),
    responses(
        (status = 202, description = "The delivery is due now, with a fresh retry schedule", body = DeliveryView),
        (status = 409, description = "The delivery has not been attempted yet, or an attempt is under way", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn redeliver(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Response> {
    let delivery = state.subscriptions.redeliver(&caller.account_id, &id).await?;
    Ok((StatusCode::ACCEPTED, Json(DeliveryView::from(delivery))).into_response())
}
