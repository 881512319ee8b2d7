//! Zones: create, list, show, delete.

use super::{filter_query, Deleted, ZoneView};
use crate::auth::Caller;
use crate::error::ApiResult;
use crate::extract::{Json, Path, Query};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/v1/dns/zones`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_zones, create_zone)).routes(routes!(get_zone, delete_zone))
}

/// A page of zones, exactly as the interface shapes it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ZoneList {
    pub zones: Vec<ZoneView>,
    pub total: u64,
}

/// Filters and paging of the zone list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ZoneQuery {
    /// Only the zone with this name.
    pub name: Option<String>,
    /// Page size: 1 to `limits.max_page_size` (1000 unless the operator changed it); default 100.
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
    /// Zones to skip.
    #[param(minimum = 0)]
    pub offset: Option<i64>,
    /// Where the page starts: the `cursor` of a `next` link (it replaces `offset`).
    pub cursor: Option<String>,
}

/// Body of zone creation.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateZone {
    /// The domain, e.g. `example.com` (internationalized names are accepted and kept as punycode).
    #[schema(value_type = String, required = true, min_length = 1)]
    pub name: Option<String>,
}

#[utoipa::path(
    get,
    path = "/v1/dns/zones",
    tag = "dns",
    params(ZoneQuery),
    responses((status = 200, description = "The account's zones by name; `Link` has next/prev", body = ZoneList))
)]
async fn list_zones(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<ZoneQuery>,
) -> ApiResult<impl IntoResponse> {
    let page = crate::paging::page(&state.config, q.limit, q.offset, q.cursor.as_deref())?;
    let (zones, total) = state.dns.list_zones(&caller.account_id, q.name.as_deref(), page).await?;
    let last = zones.last().map(|v| v.id.to_string());
    let body = ZoneList { zones: zones.into_iter().map(|z| ZoneView::new(z, &state)).collect(), total };
    let mut response = Json(body).into_response();
    crate::paging::link(
        &mut response,
        "/v1/dns/zones",
        &filter_query(&[("name", q.name.as_deref())]),
        page,
        total,
        last.as_deref(),
    );
    Ok(response)
}

#[utoipa::path(
    post,
    path = "/v1/dns/zones",
    tag = "dns",
    request_body = CreateZone,
    responses(
        (status = 201, description = "The zone, with its SOA and apex NS made by the server", body = ZoneView),
        (status = 409, description = "The name is hosted already (`zone_exists`)", body = meridian_core::problem::Problem),
        (status = 422, description = "The name is not a valid domain", body = meridian_core::problem::Problem),
    )
)]
async fn create_zone(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<CreateZone>,
) -> ApiResult<impl IntoResponse> {
    let zone = state.dns.create_zone(&caller.account_id, body.name.as_deref()).await?;
    let location = format!("/v1/dns/zones/{}", zone.id);
    Ok((StatusCode::CREATED, [(header::LOCATION, location)], Json(ZoneView::new(zone, &state))))
}

#[utoipa::path(
    get,
    path = "/v1/dns/zones/{zone_id}",
    tag = "dns",
    params(("zone_id" = String, Path, description = "`zone_...`")),
    responses((status = 200, description = "The zone", body = ZoneView))
)]
async fn get_zone(
    State(state): State<AppState>,
    caller: Caller,
    Path(zone_id): Path<String>,
) -> ApiResult<Json<ZoneView>> {
    let zone = state.dns.zone(&caller.account_id, &zone_id).await?;
    Ok(Json(ZoneView::new(zone, &state)))
}

#[utoipa::path(
    delete,
    path = "/v1/dns/zones/{zone_id}",
    tag = "dns",
    params(("zone_id" = String, Path, description = "`zone_...`")),
    responses((status = 200, description = "The zone and its records are gone; the DNS server stops answering for it", body = Deleted))
)]
async fn delete_zone(
    State(state): State<AppState>,
    caller: Caller,
    Path(zone_id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    let zone = state.dns.delete_zone(&caller.account_id, &zone_id).await?;
    Ok(Json(Deleted { deleted: true, id: zone.id.0 }))
}
