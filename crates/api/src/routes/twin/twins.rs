//! `POST /api/v1/realtime/twins` (create a twin over a feature collection and a DEM; its first
//! tileset is built by a job), and the twins: list, read, delete.

use super::{etag_prefix, TwinView};
use crate::auth::Caller;
use crate::error::{area_error, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::paging::PageQuery;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_twin::service::NewTwin;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes of twins.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(create_twin, list_twins)).routes(routes!(get_twin, delete_twin))
}

/// What a twin is made of.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTwin {
    /// 1 to 200 characters.
    #[schema(max_length = 200)]
    pub name: Option<String>,
    /// West, south, east, north in degrees (at most 2° a side). Required unless `area` is given.
    #[schema(min_items = 4, max_items = 4)]
    pub bbox: Option<Vec<f64>>,
    /// A GeoJSON Polygon or MultiPolygon (CRS84): only features meeting it are assets.
    #[schema(value_type = Option<Object>)]
    pub area: Option<Value>,
    /// The feature collection of the assets; `parcels` (the cadastre) by default.
    pub collection: Option<String>,
    /// CQL2 text on the features' properties, e.g. `tenure = 'freehold'`.
    pub filter: Option<String>,
    /// A DEM dataset (`dataset_...`): terrain, and the ground each building stands on.
    pub dem_dataset: Option<String>,
    /// The property holding each building's height in metres.
    pub height_property: Option<String>,
    /// Height of a building without one, in metres (default 9).
    #[schema(exclusive_minimum = 0, maximum = 1000)]
    pub default_height: Option<f64>,
}

/// The 202 of a created twin.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TwinCreated {
    #[serde(flatten)]
    pub twin: TwinView,
    /// The job building its first tileset: `/api/v1/jobs/{id}`.
    #[schema(value_type = Object)]
    pub job: Value,
}

#[utoipa::path(
    post,
    path = "/api/v1/realtime/twins",
    tag = "twin",
    request_body = CreateTwin,
    responses(
        (status = 202, description = "Created; its first tileset is being built (`status: building`, the job in `job`); `Location` is the twin", body = TwinCreated),
        (status = 422, description = "A field is wrong (bbox, area, unknown collection or DEM dataset, filter, heights); nothing was stored", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn create_twin(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<CreateTwin>,
) -> ApiResult<Response> {
    let p = NewTwin {
        name: body.name,
        bbox: body.bbox,
        area: body.area,
        collection: body.collection,
        filter: body.filter,
        dem_dataset: body.dem_dataset,
        height_property: body.height_property,
        default_height: body.default_height,
    };
    let (twin, job) = state.twin.create(&caller.account_id, p).await.map_err(area_error)?;
    let location = format!("/api/v1/realtime/twins/{}", twin.id);
    let etag = crate::etag::tag(&etag_prefix(twin.id.as_str()), twin.version);
    let body = TwinCreated {
        twin: twin.into(),
        job: serde_json::to_value(crate::routes::jobs::JobView::from(job)).unwrap_or_default(),
    };
    let mut response = (StatusCode::ACCEPTED, Json(body)).into_response();
    if let Ok(v) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, v);
    }
    response.headers_mut().insert(header::ETAG, etag);
    Ok(response)
}

/// A page of twins.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TwinList {
    pub twins: Vec<TwinView>,
    /// All twins of the account.
    pub total: u64,
}

#[utoipa::path(
    get,
    path = "/api/v1/realtime/twins",
    tag = "twin",
    params(PageQuery),
    responses((status = 200, description = "The account's twins, newest first; `Link` has next/prev", body = TwinList))
)]
async fn list_twins(State(state): State<AppState>, caller: Caller, Query(q): Query<PageQuery>) -> ApiResult<Response> {
    let page = crate::paging::page(&state.config, q.limit, q.offset, q.cursor.as_deref())?;
    let (list, total) = state.twin.list(&caller.account_id, page).await.map_err(area_error)?;
    let last = list.last().map(|v| v.id.to_string());
    let twins = list.into_iter().map(Into::into).collect();
    let mut response = Json(TwinList { twins, total }).into_response();
    crate::paging::link(&mut response, "/api/v1/realtime/twins", "", page, total, last.as_deref());
    Ok(response)
}

#[utoipa::path(
    get,
    path = "/api/v1/realtime/twins/{twin_id}",
    tag = "twin",
    params(("twin_id" = String, Path, description = "`twin_...`")),
    responses((status = 200, description = "The twin: definition, status, latest build, clock, links; `ETag`", body = TwinView))
)]
async fn get_twin(State(state): State<AppState>, caller: Caller, Path(twin_id): Path<String>) -> ApiResult<Response> {
    let t = state.twin.get(&caller.account_id, &twin_id).await.map_err(area_error)?;
    let etag = crate::etag::tag(&etag_prefix(t.id.as_str()), t.version);
    let mut response = Json(TwinView::from(t)).into_response();
    response.headers_mut().insert(header::ETAG, etag);
    Ok(response)
}

#[utoipa::path(
    delete,
    path = "/api/v1/realtime/twins/{twin_id}",
    tag = "twin",
    params(
        ("twin_id" = String, Path, description = "`twin_...`"),
        ("If-Match" = Option<String>, Header, description = "The ETag of the version to delete"),
    ),
    responses(
        (status = 204, description = "Deleted with its sensors, readings and tilesets; its WebSocket clients are closed (1000, `twin deleted`)"),
        (status = 412, description = "`If-Match` names another version", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn delete_twin(
    State(state): State<AppState>,
    caller: Caller,
    Path(twin_id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<StatusCode> {
    let expected = crate::etag::expected_version(&headers, &etag_prefix(&twin_id))?;
    state.twin.delete(&caller.account_id, &twin_id, expected).await.map_err(area_error)?;
    Ok(StatusCode::NO_CONTENT)
}
