//! Records of a zone: list, create, show, change, delete.

use super::{filter_query, Deleted, RecordBody, RecordView};
use crate::auth::Caller;
use crate::error::ApiResult;
use crate::extract::{Json, Path, Query};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use meridian_dns::service::etag;
use meridian_store::dns::Record;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/v1/dns/zones/{zone_id}/records`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_records, create_record)).routes(routes!(
        get_record,
        update_record,
        delete_record
    ))
}

/// The record as JSON with its `ETag`.
fn tagged(status: StatusCode, record: Record) -> axum::response::Response {
    let tag = HeaderValue::from_str(&etag(&record)).ok();
    let mut response = (status, Json(RecordView::from(record))).into_response();
    if let Some(tag) = tag {
        response.headers_mut().insert(header::ETAG, tag);
    }
    response
}

fn if_match(headers: &HeaderMap) -> Option<&str> {
    crate::etag::if_match_text(headers)
}

/// A page of records.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RecordList {
    pub records: Vec<RecordView>,
    pub total: u64,
}

/// Filters and paging of the record list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RecordQuery {
    /// Only records of this type.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    pub rtype: Option<String>,
    /// Only records at this name (relative or fully qualified).
    pub name: Option<String>,
    /// Only records with exactly this content.
    pub content: Option<String>,
    /// Page size: 1 to `limits.max_page_size` (1000 unless the operator changed it); default 100.
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
    /// Records to skip.
    #[param(minimum = 0)]
    pub offset: Option<i64>,
    /// Where the page starts: the `cursor` of a `next` link (it replaces `offset`).
    pub cursor: Option<String>,
}

#[utoipa::path(
    get,
    path = "/v1/dns/zones/{zone_id}/records",
    tag = "dns",
    params(("zone_id" = String, Path, description = "`zone_...`"), RecordQuery),
    responses((status = 200, description = "The zone's records by name and type; `Link` has next/prev", body = RecordList))
)]
async fn list_records(
    State(state): State<AppState>,
    caller: Caller,
    Path(zone_id): Path<String>,
    Query(q): Query<RecordQuery>,
) -> ApiResult<impl IntoResponse> {
    let page = crate::paging::page(&state.config, q.limit, q.offset, q.cursor.as_deref())?;
    let (_, records, total) = state
        .dns
        .list_records(&caller.account_id, &zone_id, q.rtype.as_deref(), q.name.as_deref(), q.content.as_deref(), page)
        .await?;
    let last = records.last().map(|v| v.id.to_string());
    let body = RecordList { records: records.into_iter().map(Into::into).collect(), total };
    let mut response = Json(body).into_response();
    let extra =
        filter_query(&[("type", q.rtype.as_deref()), ("name", q.name.as_deref()), ("content", q.content.as_deref())]);
    crate::paging::link(
        &mut response,
        &format!("/v1/dns/zones/{zone_id}/records"),
        &extra,
        page,
        total,
        last.as_deref(),
    );
    Ok(response)
}

#[utoipa::path(
    post,
    path = "/v1/dns/zones/{zone_id}/records",
    tag = "dns",
    params(("zone_id" = String, Path, description = "`zone_...`")),
    request_body = RecordBody,
    responses(
        (status = 201, description = "The record; the zone's serial went up and the DNS server answers with it within a second", body = RecordView),
        (status = 409, description = "An exact duplicate (`duplicate_record`), or a CNAME clash (`cname_conflict`)", body = meridian_core::problem::Problem),
        (status = 422, description = "Invalid fields, each with a JSON pointer", body = meridian_core::problem::Problem),
    )
)]
async fn create_record(
    State(state): State<AppState>,
    caller: Caller,
    Path(zone_id): Path<String>,
    Json(body): Json<RecordBody>,
) -> ApiResult<impl IntoResponse> {
    let record = state.dns.create_record(&caller.account_id, &zone_id, &body.into()).await?;
    let location = format!("/v1/dns/zones/{zone_id}/records/{}", record.id);
    Ok(([(header::LOCATION, location)], tagged(StatusCode::CREATED, record)))
}

#[utoipa::path(
    get,
    path = "/v1/dns/zones/{zone_id}/records/{record_id}",
    tag = "dns",
    params(("zone_id" = String, Path, description = "`zone_...`"), ("record_id" = String, Path, description = "`rec_...`")),
    responses((status = 200, description = "The record; `ETag` for `If-Match`", body = RecordView))
)]
async fn get_record(
    State(state): State<AppState>,
    caller: Caller,
    Path((zone_id, record_id)): Path<(String, String)>,
) -> ApiResult<impl IntoResponse> {
    let (_, record) = state.dns.record(&caller.account_id, &zone_id, &record_id).await?;
    Ok(tagged(StatusCode::OK, record))
}

#[utoipa::path(
    patch,
    path = "/v1/dns/zones/{zone_id}/records/{record_id}",
    tag = "dns",
    params(
        ("zone_id" = String, Path, description = "`zone_...`"),
        ("record_id" = String, Path, description = "`rec_...`"),
        ("If-Match" = Option<String>, Header, description = "Change only if the record still has this ETag"),
    ),
    request_body = RecordBody,
    responses(
        (status = 200, description = "The changed record", body = RecordView),
        (status = 412, description = "The record changed since the ETag in `If-Match`", body = meridian_core::problem::Problem),
    )
)]
async fn update_record(
    State(state): State<AppState>,
    caller: Caller,
    Path((zone_id, record_id)): Path<(String, String)>,
    headers: HeaderMap,
    Json(body): Json<RecordBody>,
) -> ApiResult<impl IntoResponse> {
    let record =
        state.dns.update_record(&caller.account_id, &zone_id, &record_id, &body.into(), if_match(&headers)).await?;
    Ok(tagged(StatusCode::OK, record))
}

#[utoipa::path(
    delete,
    path = "/v1/dns/zones/{zone_id}/records/{record_id}",
    tag = "dns",
    params(
        ("zone_id" = String, Path, description = "`zone_...`"),
        ("record_id" = String, Path, description = "`rec_...`"),
        ("If-Match" = Option<String>, Header, description = "Delete only if the record still has this ETag"),
    ),
    responses(
        (status = 200, description = "The record is gone", body = Deleted),
        (status = 412, description = "The record changed since the ETag in `If-Match`", body = meridian_core::problem::Problem),
    )
)]
async fn delete_record(
    State(state): State<AppState>,
    caller: Caller,
    Path((zone_id, record_id)): Path<(String, String)>,
    headers: HeaderMap,
) -> ApiResult<Json<Deleted>> {
    let id = state.dns.delete_record(&caller.account_id, &zone_id, &record_id, if_match(&headers)).await?;
    Ok(Json(Deleted { deleted: true, id: id.0 }))
}
