//! Spectral indices: `POST /api/v1/eo/compute/{index}` (`ndvi`, `ndwi`, ..., `expression`),
//! results and their outputs and tiles, and index tiles straight from a scene's bands.

use super::{bad_request, links};
use crate::auth::Caller;
use crate::error::{area_error, ApiResult};
use crate::extract::{Json, Path};
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::{DomainError, FieldError};
use meridian_eo::compute::Computed;
use meridian_eo::tiles::{parse_paint, parse_style};
use serde_json::{json, Value};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(compute_eo_index))
        .routes(routes!(get_eo_result))
        .routes(routes!(get_eo_result_output))
        .routes(routes!(get_eo_result_tile))
        .routes(routes!(get_eo_scene_tile))
}

/// Makes the result's hrefs absolute.
fn absolute(doc: &mut Value, base: &str) {
    if let Some(list) = doc.get_mut("outputs").and_then(Value::as_array_mut) {
        for o in list {
            if let Some(h) = o.get("href").and_then(Value::as_str) {
                if h.starts_with('/') {
                    o["href"] = json!(format!("{base}{h}"));
                }
            }
        }
    }
    if let Some(h) = doc.get("tiles").and_then(Value::as_str) {
        if h.starts_with('/') {
            doc["tiles"] = json!(format!("{base}{h}"));
        }
    }
}

#[utoipa::path(
    post,
    path = "/api/v1/eo/compute/{index}",
    tag = "eo",
    params(("index" = String, Path, description = "`ndvi`, `ndwi`, `evi`, `savi`, `gndvi`, `ndmi`, `nbr`, `ndbi`, or `expression` (then the body's `expression` over asset keys or band names)")),
    request_body(content = crate::schemas::ComputeRequest, description = "`scene` (`collection/item` or an item id), optional `bands` ({\"red\": \"B7\", \"nir\": \"B8\"}) when the assets' common names do not decide, `area` ({\"bbox\": [...]} or {\"geometry\": {...}}, with `crs`), `output` ({\"formats\": [\"cog\", \"png\"], \"colormap\": \"rdylgn\", \"rescale\": [-1, 1]}), `zones` ({\"collection\": \"parcels\", \"filter\": \"tenure = 'freehold'\", \"all_touched\": false}), `async`"),
    responses(
        (status = 200, description = "Computed at once: outputs (the Float32 COG first), statistics, tiles and, when asked, zones (a FeatureCollection with mean, min, max, std, median, count)", body = crate::schemas::ComputeResult),
        (status = 202, description = "A large area: an `eo.compute` job; `Location` names it and its output is the same document", body = crate::schemas::JobAccepted),
        (status = 422, description = "Unknown scene or bands, mismatched grids, a malformed expression, an area outside the scene: nothing was queued", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn compute_eo_index(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(index): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let computed = state.eo.compute(&caller.account_id, &index, &body).await.map_err(area_error)?;
    let base = links(&state, &headers).base;
    match computed {
        Computed::Done(mut doc) => {
            absolute(&mut doc, &base);
            let mut r = (StatusCode::OK, axum::Json(&doc)).into_response();
            if let Some(id) = doc["id"].as_str() {
                if let Ok(v) = HeaderValue::from_str(&format!("/api/v1/eo/results/{id}")) {
                    r.headers_mut().insert(header::CONTENT_LOCATION, v);
                }
            }
            Ok(r)
        }
        Computed::Queued(job) => {
            let location = format!("/api/v1/jobs/{}", job.id);
            let result = job.params.get("id").and_then(Value::as_str).unwrap_or_default();
            let body = json!({"job": job.id.0, "status": job.status.as_str(), "href": location,
                "result": format!("{base}/api/v1/eo/results/{result}")});
            let mut r = (StatusCode::ACCEPTED, axum::Json(body)).into_response();
            if let Ok(v) = HeaderValue::from_str(&location) {
                r.headers_mut().insert(header::LOCATION, v);
            }
            Ok(r)
        }
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/eo/results/{id}",
    tag = "eo",
    params(("id" = String, Path, description = "`eoc_...`")),
    responses((status = 200, description = "A computation's result: outputs, statistics, tiles, zones", body = crate::schemas::ComputeResult))
)]
async fn get_eo_result(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let mut doc = state.eo.result(&caller.account_id, &id).await.map_err(area_error)?;
    absolute(&mut doc, &links(&state, &headers).base);
    Ok(axum::Json(doc).into_response())
}

#[utoipa::path(
    get,
    path = "/api/v1/eo/results/{id}/outputs/{name}",
    tag = "eo",
    params(
        ("id" = String, Path, description = "`eoc_...`"),
        ("name" = String, Path, description = "`index.tif` or `preview.png`"),
        ("Range" = Option<String>, Header, description = "One byte range: 206 with that part"),
    ),
    responses(
        (status = 200, description = "The output", content_type = "image/tiff"),
        (status = 206, description = "The requested byte range", content_type = "image/tiff"),
        (status = 304, description = "`If-None-Match` names the current ETag"),
    )
)]
async fn get_eo_result_output(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path((id, name)): Path<(String, String)>,
) -> ApiResult<Response> {
    let doc = state.eo.result(&caller.account_id, &id).await.map_err(area_error)?;
    let output = doc["outputs"]
        .as_array()
        .and_then(|l| l.iter().find(|o| o["name"] == name.as_str()))
        .cloned()
        .ok_or_else(|| DomainError::not_found("output", format!("{name} of {id}")))?;
    let size = output["size"].as_u64().unwrap_or(0);
    let media_type = output["type"].as_str().unwrap_or("application/octet-stream").to_owned();
    let key = format!("{}/{name}", meridian_eo::service::keys::result(&caller.account_id, &id));
    // Results never change: the id, the name and the size name them.
    let tag = crate::etag::tag(&format!("{id}-{name}-"), size as i64);
    let tag = tag.to_str().unwrap_or("\"\"");
    let filename = format!("{id}-{name}");
    let download = crate::download::Download {
        store: state.eo.blobs(),
        key: &key,
        size,
        media_type: &media_type,
        etag: tag,
        filename: &filename,
        cache_control: "private, max-age=86400",
    };
    crate::download::serve(download, &headers).await
}

fn tile_coords(y: &str) -> Option<(u32, usize)> {
    let (stem, ext) = y.split_once('.')?;
    if ext != "png" {
        return None;
    }
    match stem.strip_suffix("@2x") {
        Some(s) => Some((s.parse().ok()?, 512)),
        None => Some((stem.parse().ok()?, 256)),
    }
}

fn png(bytes: Option<Vec<u8>>, max_age: u64) -> Response {
    match bytes {
        Some(b) => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, HeaderValue::from_static("image/png")),
                (
                    header::CACHE_CONTROL,
                    HeaderValue::from_str(&format!("private, max-age={max_age}"))
                        .unwrap_or(HeaderValue::from_static("private")),
                ),
            ],
            b,
        )
            .into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    }
}

fn pairs(raw: &Option<String>) -> Vec<(String, String)> {
    form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes()).into_owned().collect()
}

/// A tile parameter's refusal (the parameter, why) as a 400.
fn invalid_parameter((param, detail): (String, String)) -> crate::error::ApiError {
    bad_request(vec![FieldError::new(format!("/{param}"), "invalid_parameter", detail)])
}

fn not_a_tile(y: &str) -> crate::error::ApiError {
    DomainError::not_found("tile", format!("{y} (tiles are {{y}}.png or {{y}}@2x.png)")).into()
}

#[utoipa::path(
    get,
    path = "/api/v1/eo/results/{id}/tiles/{z}/{x}/{y}",
    tag = "eo",
    params(
        ("id" = String, Path, description = "`eoc_...`"),
        ("z" = u8, Path, description = "Zoom"), ("x" = u32, Path, description = "Column"),
        ("y" = String, Path, description = "Row with `.png` (or `@2x.png` for 512 px)"),
        ("colormap" = Option<String>, Query, description = "rdylgn (default), rdbu, blues, viridis, spectral, terrain, grayscale"),
        ("rescale" = Option<String>, Query, description = "min,max of the colour ramp (default -1,1)"),
    ),
    responses(
        (status = 200, description = "A WebMercatorQuad PNG tile of the index", content_type = "image/png"),
        (status = 204, description = "The tile is outside the result"),
    )
)]
async fn get_eo_result_tile(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, z, x, y)): Path<(String, u8, u32, String)>,
    RawQuery(raw): RawQuery,
) -> ApiResult<Response> {
    let (y, size) = tile_coords(&y).ok_or_else(|| not_a_tile(&y))?;
    let (ramp, rescale) = parse_paint(&pairs(&raw)).map_err(invalid_parameter)?;
    let tile = state.eo.result_tile(&caller.account_id, &id, ramp, rescale, z, x, y, size).await.map_err(area_error)?;
    Ok(png(tile, state.config.eo.tile_max_age.as_secs()))
}

#[utoipa::path(
    get,
    path = "/api/v1/eo/scenes/{id}/tiles/{z}/{x}/{y}",
    tag = "eo",
    params(
        ("id" = String, Path, description = "`collection/item` (slash as %2F) or an item id"),
        ("z" = u8, Path, description = "Zoom"), ("x" = u32, Path, description = "Column"),
        ("y" = String, Path, description = "Row with `.png` (or `@2x.png` for 512 px)"),
        ("index" = Option<String>, Query, description = "ndvi (default), ndwi, evi, savi, ..."),
        ("expression" = Option<String>, Query, description = "Band math over asset keys or band names, instead of `index`"),
        ("bands" = Option<String>, Query, description = "name:asset pairs, e.g. red:B7,nir:B8"),
        ("colormap" = Option<String>, Query, description = "rdylgn (default), rdbu, blues, viridis, ..."),
        ("rescale" = Option<String>, Query, description = "min,max of the colour ramp (default -1,1)"),
    ),
    responses(
        (status = 200, description = "A WebMercatorQuad PNG tile of the index computed from the scene's bands", content_type = "image/png"),
        (status = 204, description = "The tile is outside the scene"),
        (status = 400, description = "An invalid parameter", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn get_eo_scene_tile(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, z, x, y)): Path<(String, u8, u32, String)>,
    RawQuery(raw): RawQuery,
) -> ApiResult<Response> {
    let (y, size) = tile_coords(&y).ok_or_else(|| not_a_tile(&y))?;
    let style = parse_style(&pairs(&raw)).map_err(|(param, detail)| {
        bad_request(vec![FieldError::new(format!("/{param}"), "invalid_parameter", detail)])
    })?;
    let tile = state.eo.scene_tile(&caller.account_id, &id, &style, z, x, y, size).await.map_err(area_error)?;
    Ok(png(tile, state.config.eo.tile_max_age.as_secs()))
}
