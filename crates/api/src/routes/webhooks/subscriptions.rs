//! Webhook subscriptions: create, list, show, change, delete, rotate the secret, send a test
//! event, replay past events.

use super::{etag, if_match, Deleted, SubscriptionList, SubscriptionView, SubscriptionWithSecret};
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::paging::PageQuery;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::id::AccountId;
use meridian_core::Timestamp;
use meridian_store::repo::Subscription;
use meridian_webhooks::{NewSubscription, SubscriptionUpdate};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/api/v1/webhooks/subscriptions`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_subscriptions, create_subscription))
        .routes(routes!(get_subscription, update_subscription, delete_subscription))
        .routes(routes!(rotate_secret))
        .routes(routes!(test_subscription))
        .routes(routes!(replay_subscription))
}

/// Body of subscription creation.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSubscription {
    /// An `https://` endpoint on the public internet.
    pub url: String,
    /// Event types (`dns.record.created`), wildcards (`dns.*`, `dns.record.*`) or `*`.
    pub events: Vec<String>,
    /// A note for people, at most 500 characters.
    pub description: Option<String>,
}

/// Body of a subscription change; absent fields stay as they are.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateSubscription {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    /// `null` clears it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
    /// `active` or `paused`. Resuming a subscription paused for failing clears the failure run;
    /// its held deliveries go out.
    pub status: Option<String>,
}

/// Tells a field set to `null` (`Some(None)`) from an absent one (`None`).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// Body of a replay.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplayRequest {
    /// Events committed at or after this time are sent again.
    pub since: Timestamp,
    /// And before this time, when given.
    pub until: Option<Timestamp>,
    /// Only events whose delivery to this subscription failed or was exhausted.
    #[serde(default)]
    pub only_failed: bool,
}

/// Answer of a replay.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ReplayAccepted {
    /// Deliveries queued.
    pub replayed: u64,
    /// Set when one call's limit (10,000 events) was reached: replay again from here.
    pub next_since: Option<Timestamp>,
}

/// Checks and stores a new subscription (shared with `/v1/dns/webhooks`).
pub(crate) async fn create(
    state: &AppState,
    account: &AccountId,
    url: &str,
    events: &[String],
    description: Option<String>,
    dns_only: bool,
) -> Result<(Subscription, String), ApiError> {
    let new = NewSubscription { url: url.to_owned(), events: events.to_vec(), description };
    Ok(state.subscriptions.create(account, new, dns_only).await?)
}

/// The 201 answer of a creation at `base`.
pub(crate) fn created(base: &str, sub: Subscription, secret: String) -> Response {
    let location = format!("{base}/{}", sub.id);
    let tag = etag(&sub);
    let body = SubscriptionWithSecret { subscription: sub.into(), secret };
    (StatusCode::CREATED, [(header::LOCATION, location)], [(header::ETAG, tag)], Json(body)).into_response()
}

/// One subscription of the caller, or not found.
pub(crate) async fn find(state: &AppState, caller: &Caller, id: String) -> Result<Subscription, ApiError> {
    Ok(state.subscriptions.get(&caller.account_id, &id).await?)
}

/// A subscription with its ETag.
pub(crate) fn with_etag(sub: Subscription) -> Response {
    let tag = etag(&sub);
    ([(header::ETAG, tag)], Json(SubscriptionView::from(sub))).into_response()
}

#[utoipa::path(
    get,
    path = "/api/v1/webhooks/subscriptions",
    tag = "webhooks",
    params(PageQuery),
    responses((status = 200, description = "The account's subscriptions, newest first; `Link` has next/prev", body = SubscriptionList))
)]
async fn list_subscriptions(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<PageQuery>,
) -> ApiResult<Response> {
    list_page(&state, &caller, &q, false, "/api/v1/webhooks/subscriptions").await
}

/// One page of the account's subscriptions (only those limited to DNS events when `dns_only`),
/// with `Link` headers relative to `path`.
pub(crate) async fn list_page(
    state: &AppState,
    caller: &Caller,
    q: &PageQuery,
    dns_only: bool,
    path: &str,
) -> ApiResult<Response> {
    let page = crate::paging::page(&state.config, q.limit, q.offset, q.cursor.as_deref())?;
    let (subs, total) = state.subscriptions.list(&caller.account_id, dns_only, page).await?;
    let last = subs.last().map(|v| v.id.to_string());
    let mut response =
        Json(SubscriptionList { subscriptions: subs.into_iter().map(Into::into).collect(), total }).into_response();
    crate::paging::link(&mut response, path, "", page, total, last.as_deref());
    Ok(response)
}

#[utoipa::path(
    post,
    path = "/api/v1/webhooks/subscriptions",
    tag = "webhooks",
    request_body = CreateSubscription,
    responses(
        (status = 201, description = "The subscription and its signing secret, shown this once", body = SubscriptionWithSecret),
        (status = 422, description = "An unknown event type, or a URL that is not https:// or points at a private, loopback, link-local or metadata address", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn create_subscription(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<CreateSubscription>,
) -> ApiResult<Response> {
    let (sub, secret) = create(&state, &caller.account_id, &body.url, &body.events, body.description, false).await?;
    Ok(created("/api/v1/webhooks/subscriptions", sub, secret))
}

#[utoipa::path(
    get,
    path = "/api/v1/webhooks/subscriptions/{subscription_id}",
    tag = "webhooks",
    params(("subscription_id" = String, Path, description = "`whsub_...`")),
    responses((status = 200, description = "The subscription; `ETag` for `If-Match`", body = SubscriptionView))
)]
async fn get_subscription(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    Ok(with_etag(find(&state, &caller, id).await?))
}

#[utoipa::path(
    patch,
    path = "/api/v1/webhooks/subscriptions/{subscription_id}",
    tag = "webhooks",
    params(
        ("subscription_id" = String, Path, description = "`whsub_...`"),
        ("If-Match" = Option<String>, Header, description = "Apply only if the subscription's ETag is still this one"),
    ),
    request_body = UpdateSubscription,
    responses(
        (status = 200, description = "The changed subscription", body = SubscriptionView),
        (status = 412, description = "`If-Match` named an older version", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn update_subscription(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(body): Json<UpdateSubscription>,
) -> ApiResult<Response> {
    let version = if_match(&headers)?;
    let update =
        SubscriptionUpdate { url: body.url, events: body.events, description: body.description, status: body.status };
    let sub = state.subscriptions.update(&caller.account_id, &id, update, version).await?;
    Ok(with_etag(sub))
}

#[utoipa::path(
    delete,
    path = "/api/v1/webhooks/subscriptions/{subscription_id}",
    tag = "webhooks",
    params(
        ("subscription_id" = String, Path, description = "`whsub_...`"),
        ("If-Match" = Option<String>, Header, description = "Delete only if the subscription's ETag is still this one"),
    ),
    responses((status = 200, description = "Deleted, with its deliveries", body = Deleted))
)]
async fn delete_subscription(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<Deleted>> {
    let version = if_match(&headers)?;
    state.subscriptions.delete(&caller.account_id, &id, version, false).await?;
    Ok(Json(Deleted { deleted: true, id }))
}

#[utoipa::path(
    post,
    path = "/api/v1/webhooks/subscriptions/{subscription_id}/rotate-secret",
    tag = "webhooks",
    params(("subscription_id" = String, Path, description = "`whsub_...`")),
    responses((status = 200, description = "The new secret, shown this once; the previous one also signs until `previous_secret_expires_at`", body = SubscriptionWithSecret))
)]
async fn rotate_secret(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Response> {
    let (sub, secret) = state.subscriptions.rotate_secret(&caller.account_id, &id).await?;
    let tag = etag(&sub);
    Ok(([(header::ETAG, tag)], Json(SubscriptionWithSecret { subscription: sub.into(), secret })).into_response())
}

#[utoipa::path(
    post,
    path = "/api/v1/webhooks/subscriptions/{subscription_id}/test",
    tag = "webhooks",
    params(("subscription_id" = String, Path, description = "`whsub_...`")),
    responses(
        (status = 202, description = "A `webhook.test` event was committed; it is delivered to this subscription only, like any other event", body = crate::schemas::EventPayload),
        (status = 409, description = "The subscription is paused", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn test_subscription(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let (sub, event) = state.subscriptions.send_test(&caller.account_id, &id).await?;
    let location = format!("/api/v1/webhooks/subscriptions/{}/deliveries?event_id={}", sub.id, event.id);
    Ok((StatusCode::ACCEPTED, [(header::LOCATION, location)], Json::<Value>(event.payload)).into_response())
}

#[utoipa::path(
    post,
    path = "/api/v1/webhooks/subscriptions/{subscription_id}/replay",
    tag = "webhooks",
    params(("subscription_id" = String, Path, description = "`whsub_...`")),
    request_body = ReplayRequest,
    responses((status = 202, description = "Matching events since `since` are being sent again", body = ReplayAccepted))
)]
async fn replay_subscription(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    Json(body): Json<ReplayRequest>,
) -> ApiResult<Response> {
    let done = state.subscriptions.replay(&caller.account_id, &id, body.since, body.until, body.only_failed).await?;
    let body = ReplayAccepted { replayed: done.replayed, next_since: done.next_since };
    Ok((StatusCode::ACCEPTED, Json(body)).into_response())
}
