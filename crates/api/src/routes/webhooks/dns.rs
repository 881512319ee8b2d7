//! `/v1/dns/webhooks`: the DNS API's view of webhook subscriptions limited to `dns.*` events.
//! They are the same subscriptions as under `/api/v1/webhooks`; this view only lists, makes and
//! deletes the DNS ones.

use super::subscriptions::{create, created, find, with_etag};
use super::{Deleted, SubscriptionList};
use crate::auth::Caller;
use crate::error::ApiResult;
use crate::extract::{Json, Path, Query};
use crate::paging::PageQuery;
use crate::state::AppState;
use axum::extract::State;
use axum::response::Response;
use meridian_core::DomainError;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/v1/dns/webhooks`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_dns_webhooks, create_dns_webhook))
        .routes(routes!(get_dns_webhook, delete_dns_webhook))
}

/// Body of a DNS webhook registration.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateDnsWebhook {
    /// An `https://` endpoint on the public internet.
    pub url: String,
    /// DNS event types or wildcards (`dns.record.*`); every DNS event (`dns.*`) when absent.
    pub events: Option<Vec<String>>,
    pub description: Option<String>,
}

#[utoipa::path(
    get,
    path = "/v1/dns/webhooks",
    tag = "webhooks",
    params(PageQuery),
    responses((status = 200, description = "The account's subscriptions limited to DNS events, newest first", body = SubscriptionList))
)]
async fn list_dns_webhooks(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<PageQuery>,
) -> ApiResult<Response> {
    super::subscriptions::list_page(&state, &caller, &q, true, "/v1/dns/webhooks").await
}

#[utoipa::path(
    post,
    path = "/v1/dns/webhooks",
    tag = "webhooks",
    request_body = CreateDnsWebhook,
    responses((status = 201, description = "The subscription and its signing secret, shown this once", body = super::SubscriptionWithSecret))
)]
async fn create_dns_webhook(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<CreateDnsWebhook>,
) -> ApiResult<Response> {
    let events = body.events.unwrap_or_else(|| vec!["dns.*".to_owned()]);
    let (sub, secret) = create(&state, &caller.account_id, &body.url, &events, body.description, true).await?;
    Ok(created("/v1/dns/webhooks", sub, secret))
}

#[utoipa::path(
    get,
    path = "/v1/dns/webhooks/{subscription_id}",
    tag = "webhooks",
    params(("subscription_id" = String, Path, description = "`whsub_...`")),
    responses((status = 200, description = "The subscription", body = super::SubscriptionView))
)]
async fn get_dns_webhook(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Response> {
    let sub = find(&state, &caller, id.clone()).await?;
    if !sub.events.iter().all(|e| e.starts_with("dns.")) {
        return Err(DomainError::not_found("DNS webhook", id).into());
    }
    Ok(with_etag(sub))
}

#[utoipa::path(
    delete,
    path = "/v1/dns/webhooks/{subscription_id}",
    tag = "webhooks",
    params(("subscription_id" = String, Path, description = "`whsub_...`")),
    responses((status = 200, description = "Deleted, with its deliveries", body = Deleted))
)]
async fn delete_dns_webhook(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    state.subscriptions.delete(&caller.account_id, &id, None, true).await?;
    Ok(Json(Deleted { deleted: true, id }))
}
