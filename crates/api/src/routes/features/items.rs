//! Feature items, of the cadastre (`/api/v1/cadastre/parcels`) and of every OGC API Features
//! collection (`/api/v1/collections/{id}/items`): one set of item handlers for both.

use super::query::{self, collection_body};
use super::{content_crs, content_crs_header, etag, if_match, parse_crs, render, GEOJSON, PARCELS};
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::paging::base_url;
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::crs::Crs;
use meridian_store::features::Feature;
use serde_json::{json, Value};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

const BASE: &str = "/api/v1/cadastre/parcels";

/// Routes under `/api/v1/cadastre/parcels`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_parcels, create_parcel))
        .routes(routes!(get_parcel, replace_parcel, update_parcel, retire_parcel))
        .routes(routes!(parcel_history))
}

/// A GeoJSON answer with `Content-Crs`.
pub(crate) fn geojson(status: StatusCode, body: &impl serde::Serialize, crs: Crs) -> Response {
    geojson_text(status, serde_json::to_string(body).unwrap_or_else(|_| "null".to_owned()), crs)
}

/// [`geojson`] of an answer already written as JSON text.
pub(crate) fn geojson_text(status: StatusCode, text: String, crs: Crs) -> Response {
    let mut r = (status, text).into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(GEOJSON));
    r.headers_mut().insert("content-crs", content_crs_header(crs));
    r
}

fn output_crs(raw: &Option<String>) -> Result<Crs, ApiError> {
    let raw = raw.as_deref().unwrap_or("");
    for (k, v) in form_urlencoded::parse(raw.as_bytes()) {
        match k.as_ref() {
            "crs" => return parse_crs("crs", &v),
            "f" | "access_token" => {}
            other => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "unknown_parameter",
                    "Invalid query parameter",
                    format!("{other}: this parameter is not supported here"),
                ))
            }
        }
    }
    Ok(Crs::Crs84)
}

/// Lists a collection's features (shared with OGC API Features).
pub(crate) async fn list_items(
    state: &AppState,
    caller: &Caller,
    collection: &str,
    raw: Option<String>,
    headers: &HeaderMap,
    path: &str,
) -> ApiResult<(query::ListParams, query::ItemsBody)> {
    let known = state.features.queryables(&caller.account_id, collection).await?;
    let f = &state.config.features;
    let limits = meridian_features::cql2::Limits {
        max_bytes: f.filter_max_bytes,
        max_depth: f.filter_max_depth,
        max_terms: f.filter_max_terms,
    };
    let p = query::parse(raw.as_deref().unwrap_or(""), collection, &known, &limits)?;
    let page = state.features.list(&caller.account_id, &p.query).await?;
    let base = base_url(state, headers);
    let body = collection_body(&base, path, &p, page, path);
    Ok((p, body))
}

#[utoipa::path(
    get,
    path = "/api/v1/cadastre/parcels",
    tag = "cadastre",
    params(
        super::query::FeatureListQuery,
        ("lot" = Option<String>, Query, description = "Exact lot"),
        ("plan" = Option<String>, Query, description = "Exact plan"),
        ("tenure" = Option<String>, Query, description = "Exact tenure, e.g. freehold"),
    ),
    responses((status = 200, description = "Parcels as a GeoJSON FeatureCollection with meta {total, limit, offset} and links", content_type = "application/geo+json", body = crate::schemas::ParcelCollection))
)]
async fn list_parcels(
    State(state): State<AppState>,
    caller: Caller,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let (p, body) = list_items(&state, &caller, PARCELS, raw, &headers, BASE).await?;
    Ok(geojson_text(StatusCode::OK, body.to_json(), p.crs))
}

/// Creates a feature in a collection (shared with OGC API Features).
pub(crate) async fn create_item(
    state: &AppState,
    caller: &Caller,
    collection: &str,
    headers: &HeaderMap,
    body: &Value,
    path: &str,
) -> ApiResult<Response> {
    let crs = content_crs(headers)?;
    let draft = state.features.draft(body.clone(), crs, collection).await?;
    let f = state.features.create(&caller.account_id, collection, draft).await?;
    let location = format!("{path}/{}", f.id);
    let mut r = geojson(StatusCode::CREATED, &render(&f, Crs::Crs84, None), Crs::Crs84);
    r.headers_mut().insert(header::ETAG, etag(&f));
    if let Ok(v) = HeaderValue::from_str(&location) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    Ok(r)
}

#[utoipa::path(
    post,
    path = "/api/v1/cadastre/parcels",
    tag = "cadastre",
    params(("Content-Crs" = Option<String>, Header, nullable = false, pattern = r"^<http://www\.opengis\.net/def/crs/(OGC/1\.3/CRS84|EPSG/0/(4326|3857|4283|7844|2835[456]|785[456]|32633|3275[56]|2056))>$", description = "CRS of the body's coordinates, e.g. <http://www.opengis.net/def/crs/EPSG/0/7856>")),
    request_body(content = crate::schemas::ParcelInput, content_type = "application/geo+json", description = "A GeoJSON Feature: Polygon or MultiPolygon geometry, properties lot, plan, tenure and any others. A FeatureCollection registers all its parcels in one transaction (all or nothing) and answers {registered, ids}"),
    responses(
        (status = 201, description = "The parcel (`application/geo+json`), with Location and ETag; area_m2 computed on the ellipsoid. For a FeatureCollection, `{registered, ids}` (`application/json`)", content(
            (crate::schemas::Parcel = "application/geo+json"),
            (crate::schemas::ParcelsRegistered = "application/json"),
        )),
        (status = 409, description = "(lot, plan) already registered", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid geometry or properties, with a JSON pointer per problem", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn create_parcel(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    if body["type"] == "FeatureCollection" {
        return register_many(&state, &caller, &headers, &body).await;
    }
    create_item(&state, &caller, PARCELS, &headers, &body, BASE).await
}

/// Registers every parcel of a FeatureCollection in one transaction: all or nothing.
async fn register_many(state: &AppState, caller: &Caller, headers: &HeaderMap, body: &Value) -> ApiResult<Response> {
    let crs = content_crs(headers)?;
    let items = body["features"].as_array().cloned().unwrap_or_default();
    let drafts = state.features.drafts(items, crs, PARCELS).await?;
    let created = state.features.create_many(&caller.account_id, PARCELS, drafts).await?;
    let ids: Vec<&str> = created.iter().map(|f| f.id.as_str()).collect();
    Ok((StatusCode::CREATED, Json(json!({"registered": ids.len(), "ids": ids}))).into_response())
}

async fn load(state: &AppState, caller: &Caller, collection: &str, id: &str) -> Result<Feature, ApiError> {
    Ok(state.features.feature(&caller.account_id, collection, id).await?)
}

/// One feature (shared with OGC API Features).
pub(crate) async fn get_item(
    state: &AppState,
    caller: &Caller,
    collection: &str,
    id: &str,
    raw: Option<String>,
    self_href: Option<String>,
) -> ApiResult<Response> {
    let crs = output_crs(&raw)?;
    let f = load(state, caller, collection, id).await?;
    let mut r = geojson(StatusCode::OK, &render(&f, crs, self_href.as_deref()), crs);
    r.headers_mut().insert(header::ETAG, etag(&f));
    Ok(r)
}

#[utoipa::path(
    get,
    path = "/api/v1/cadastre/parcels/{id}",
    tag = "cadastre",
    params(("id" = String, Path, description = "`parcel_...`"), ("crs" = Option<String>, Query, nullable = false, pattern = r"^http://www\.opengis\.net/def/crs/(OGC/1\.3/CRS84|EPSG/0/(4326|3857|4283|7844|2835[456]|785[456]|32633|3275[56]|2056))$", description = "CRS URI of the answer")),
    responses((status = 200, description = "The parcel, with its ETag", content_type = "application/geo+json", body = crate::schemas::Parcel))
)]
async fn get_parcel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult<Response> {
    get_item(&state, &caller, PARCELS, &id, raw, None).await
}

/// Replaces a feature (shared with OGC API Features).
pub(crate) async fn replace_item(
    state: &AppState,
    caller: &Caller,
    collection: &str,
    id: &str,
    headers: &HeaderMap,
    body: &Value,
) -> ApiResult<Response> {
    let current = load(state, caller, collection, id).await?;
    let expected = if_match(headers, id)?;
    let draft = state.features.draft(body.clone(), content_crs(headers)?, collection).await?;
    let f = state.features.replace(&current, draft, expected).await?;
    let mut r = geojson(StatusCode::OK, &render(&f, Crs::Crs84, None), Crs::Crs84);
    r.headers_mut().insert(header::ETAG, etag(&f));
    Ok(r)
}

/// Merge-patches a feature (shared with OGC API Features).
pub(crate) async fn update_item(
    state: &AppState,
    caller: &Caller,
    collection: &str,
    id: &str,
    headers: &HeaderMap,
    patch: &Value,
) -> ApiResult<Response> {
    if !patch.is_object() {
        return Err(ApiError::invalid(vec![meridian_core::FieldError::new(
            "",
            "invalid_patch",
            "a merge patch must be a JSON object",
        )]));
    }
    let current = load(state, caller, collection, id).await?;
    let expected = if_match(headers, id)?;
    let crs = content_crs(headers)?;
    let f = state.features.patch(&current, patch, crs, expected).await?;
    let mut r = geojson(StatusCode::OK, &render(&f, Crs::Crs84, None), Crs::Crs84);
    r.headers_mut().insert(header::ETAG, etag(&f));
    Ok(r)
}

/// Retires a feature (shared with OGC API Features).
pub(crate) async fn retire_item(
    state: &AppState,
    caller: &Caller,
    collection: &str,
    id: &str,
    headers: &HeaderMap,
) -> ApiResult<Response> {
    let current = load(state, caller, collection, id).await?;
    let expected = if_match(headers, id)?;
    state.features.retire(&current, expected).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[utoipa::path(
    put,
    path = "/api/v1/cadastre/parcels/{id}",
    tag = "cadastre",
    params(("id" = String, Path, description = "`parcel_...`"), ("If-Match" = Option<String>, Header, description = "The ETag you last read; 412 if stale")),
    request_body(content = crate::schemas::ParcelDraft, content_type = "application/geo+json", description = "The whole new Feature"),
    responses((status = 200, description = "The parcel as replaced, with its new ETag", content_type = "application/geo+json", body = crate::schemas::Parcel))
)]
async fn replace_parcel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    replace_item(&state, &caller, PARCELS, &id, &headers, &body).await
}

#[utoipa::path(
    patch,
    path = "/api/v1/cadastre/parcels/{id}",
    tag = "cadastre",
    params(("id" = String, Path, description = "`parcel_...`"), ("If-Match" = Option<String>, Header, description = "The ETag you last read; 412 if stale")),
    request_body(content = crate::schemas::ParcelPatch, content_type = "application/merge-patch+json", description = "A JSON merge patch (RFC 7396) of the Feature: properties and/or geometry"),
    responses((status = 200, description = "The parcel as updated, with its new ETag", content_type = "application/geo+json", body = crate::schemas::Parcel))
)]
async fn update_parcel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(patch): Json<Value>,
) -> ApiResult<Response> {
    update_item(&state, &caller, PARCELS, &id, &headers, &patch).await
}

#[utoipa::path(
    delete,
    path = "/api/v1/cadastre/parcels/{id}",
    tag = "cadastre",
    params(("id" = String, Path, description = "`parcel_...`"), ("If-Match" = Option<String>, Header, description = "The ETag you last read; 412 if stale")),
    responses((status = 204, description = "Retired: gone from lists and reads, kept in its history"))
)]
async fn retire_parcel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    retire_item(&state, &caller, PARCELS, &id, &headers).await
}

#[utoipa::path(
    get,
    path = "/api/v1/cadastre/parcels/{id}/history",
    tag = "cadastre",
    params(("id" = String, Path, description = "`parcel_...`")),
    responses((status = 200, description = "Every version, oldest first: version, change (registered, updated, retired), recorded_at, geometry, properties", body = crate::schemas::ParcelHistory))
)]
async fn parcel_history(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let versions = state.features.history(&caller.account_id, PARCELS, &id).await?;
    let versions: Vec<Value> = versions
        .into_iter()
        .map(|v| json!({"version": v.version, "change": v.change, "recorded_at": v.recorded_at, "geometry": v.geometry, "properties": v.properties}))
        .collect();
    Ok(Json(json!({"id": id, "versions": versions})))
}
