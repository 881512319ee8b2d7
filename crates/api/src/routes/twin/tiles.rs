//! `GET /api/v1/realtime/twin/{id}/tileset`: the 3D Tiles 1.1 entry point of the twin as of its
//! clock (or `time`), and the contents of each build under `builds/{stamp}/` (immutable: a
//! build's stamp names the parcels it shows).

use super::instant;
use crate::auth::Caller;
use crate::error::{area_error, ApiError, ApiResult};
use crate::extract::{Path, Query};
use crate::state::AppState;
use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_twin::service::TilesetAnswer;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes of tilesets.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_tileset)).routes(routes!(get_content))
}

/// The instant to show.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TimeQuery {
    /// RFC 3339 instant or `now`; the twin's simulation clock when absent.
    pub time: Option<String>,
    /// A short-lived access token, for clients that cannot send headers (it is carried to every tile).
    pub access_token: Option<String>,
}

fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == "*" || t.trim().trim_start_matches("W/") == etag))
}

#[utoipa::path(
    get,
    path = "/api/v1/realtime/twin/{twin_id}/tileset",
    tag = "twin",
    params(("twin_id" = String, Path, description = "`twin_...`"), TimeQuery),
    responses(
        (status = 200, description = "`tileset.json` (3D Tiles 1.1): buildings extruded from the parcels as they were at the clock's instant \
            (quadtree of glTF contents with EXT_mesh_features and EXT_structural_metadata), the DEM as terrain. `ETag` names the build \
            (`X-Tileset-Version` its stamp); built on first request for an instant whose parcels no kept build shows", body = crate::schemas::Tileset, content_type = "application/json"),
        (status = 202, description = "The tileset of this instant is still being built (on its own task, once, whichever request started it): `Retry-After` says when to ask again", body = crate::schemas::Pending, content_type = "application/json"),
        (status = 304, description = "`If-None-Match` names this build"),
        (status = 422, description = "The area holds more parcels than `twin.max_parcels`, or its DEM is gone", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn get_tileset(
    State(state): State<AppState>,
    caller: Caller,
    Path(twin_id): Path<String>,
    Query(q): Query<TimeQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let at = instant(q.time.as_deref(), "/time")?;
    let (twin, answer) = state.twin.tileset(&caller.account_id, &twin_id, at).await.map_err(area_error)?;
    let tileset = match answer {
        TilesetAnswer::Ready(t) => t,
        TilesetAnswer::Building { retry_after } => {
            let body = serde_json::json!({
                "status": "building",
                "detail": "the tileset of this instant is being built (once, for every request); ask again after Retry-After seconds",
            });
            let mut r = (StatusCode::ACCEPTED, crate::extract::Json(body)).into_response();
            r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
            return Ok(r);
        }
    };
    let etag = format!("\"{}-b{}\"", twin.id, tileset.stamp);
    let etag_value = HeaderValue::from_str(&etag).map_err(ApiError::internal)?;
    if not_modified(&headers, &etag) {
        return Ok((StatusCode::NOT_MODIFIED, [(header::ETAG, etag_value)]).into_response());
    }
    let bytes = state.twin.tileset_document(&tileset).await.map_err(area_error)?;
    let mut response = Response::new(Body::from(bytes));
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(header::ETAG, etag_value);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-cache"));
    h.insert("x-tileset-version", HeaderValue::from(tileset.stamp));
    Ok(response)
}

#[utoipa::path(
    get,
    path = "/api/v1/realtime/twin/{twin_id}/builds/{stamp}/{file}",
    tag = "twin",
    params(
        ("twin_id" = String, Path, description = "`twin_...`"),
        ("stamp" = i64, Path, description = "The build (a tileset's content URIs name it)"),
        ("file" = String, Path, description = "A content of the build, e.g. `tiles_2_1_3.glb` or `tiles_terrain.glb`"),
        ("access_token" = Option<String>, Query, description = "A short-lived access token (clients that cannot send headers)"),
    ),
    responses(
        (status = 200, description = "A glTF 2.0 binary content (`model/gltf-binary`); immutable, with `ETag` and byte ranges", content_type = "model/gltf-binary"),
        (status = 304, description = "`If-None-Match` names it"),
    )
)]
async fn get_content(
    State(state): State<AppState>,
    caller: Caller,
    Path((twin_id, stamp, file)): Path<(String, i64, String)>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let content = state.twin.build_content(&caller.account_id, &twin_id, stamp, &file).await.map_err(area_error)?;
    let etag = format!("\"{twin_id}-b{stamp}-{file}\"");
    crate::download::serve(
        crate::download::Download {
            store: state.twin.blobs(),
            key: &content.key,
            size: content.size,
            media_type: "model/gltf-binary",
            etag: &etag,
            filename: &file,
            cache_control: "private, max-age=31536000, immutable",
        },
        &headers,
    )
    .await
}
