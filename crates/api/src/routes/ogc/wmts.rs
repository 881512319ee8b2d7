//! WMTS 1.0.0: `GET /api/v1/ogc/wmts` by KVP, and the RESTful resources under
//! `/api/v1/ogc/wmts/1.0.0` (capabilities, tiles, feature info).

use super::{context, respond};
use crate::auth::Caller;
use crate::state::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use meridian_ogc::wmts::{self, TileInfoRequest, TileRequest};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/api/v1/ogc/wmts`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_wmts))
        .routes(routes!(get_wmts_capabilities))
        .routes(routes!(get_wmts_tile))
        .routes(routes!(get_wmts_feature_info))
}

/// The main WMTS KVP parameters (names are case-insensitive).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct WmtsParams {
    /// `WMTS`.
    SERVICE: Option<String>,
    /// `GetCapabilities`, `GetTile` or `GetFeatureInfo`.
    REQUEST: Option<String>,
    /// `1.0.0`.
    VERSION: Option<String>,
    /// The layer identifier.
    LAYER: Option<String>,
    /// The style identifier.
    STYLE: Option<String>,
    /// `WebMercatorQuad`, `WorldCRS84Quad` or `2056`.
    TILEMATRIXSET: Option<String>,
    TILEMATRIX: Option<String>,
    TILEROW: Option<String>,
    TILECOL: Option<String>,
    /// `image/png` or `image/jpeg`.
    FORMAT: Option<String>,
    /// A short-lived access token, for clients that cannot send headers.
    access_token: Option<String>,
}

/// The path of a RESTful feature info request.
#[derive(Debug, Deserialize)]
struct InfoPath {
    layer: String,
    style: String,
    tile_matrix_set: String,
    tile_matrix: String,
    tile_row: String,
    tile_col: String,
    j: String,
    i: String,
}

/// A short-lived access token, for clients that cannot send headers.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct TokenParam {
    access_token: Option<String>,
}

#[utoipa::path(
    get,
    path = "/api/v1/ogc/wmts",
    tag = "ogc",
    params(WmtsParams),
    responses(
        (status = 200, description = "Capabilities (text/xml), a tile (PNG or JPEG, with ETag and Cache-Control) or feature info",
            content((String = "text/xml"), (Vec<u8> = "image/png"), (Vec<u8> = "image/jpeg"), (String = "application/json"), (String = "text/html"))),
        (status = 304, description = "Not modified (If-None-Match)"),
        (status = 400, description = "An OWS ExceptionReport (MissingParameterValue, InvalidParameterValue, TileOutOfRange, ...)", body = String, content_type = "text/xml"),
    )
)]
async fn get_wmts(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    let query = q.unwrap_or_default();
    let ctx = context(&state, &headers, Some(&query));
    respond(state.ogc.wmts(&caller.account_id, &query, &ctx).await, &headers)
}

#[utoipa::path(
    get,
    path = "/api/v1/ogc/wmts/1.0.0/WMTSCapabilities.xml",
    tag = "ogc",
    params(TokenParam),
    responses(
        (status = 200, description = "The WMTS capabilities (RESTful)", body = String, content_type = "text/xml"),
    )
)]
async fn get_wmts_capabilities(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    let ctx = context(&state, &headers, q.as_deref());
    let reply = match state.ogc.wmts_capabilities(&caller.account_id, &ctx).await {
        Ok(doc) => meridian_ogc::Reply::ok("text/xml", doc),
        Err(e) => wmts::error_reply(&e),
    };
    respond(reply, &headers)
}

#[utoipa::path(
    get,
    path = "/api/v1/ogc/wmts/1.0.0/{layer}/{style}/{tile_matrix_set}/{tile_matrix}/{tile_row}/{tile_col}",
    tag = "ogc",
    params(
        ("layer" = String, Path, description = "Layer identifier"),
        ("style" = String, Path, description = "Style identifier"),
        ("tile_matrix_set" = String, Path, description = "`WebMercatorQuad`, `WorldCRS84Quad` or `2056`"),
        ("tile_matrix" = String, Path, description = "Tile matrix identifier"),
        ("tile_row" = String, Path, description = "Row"),
        ("tile_col" = String, Path, description = "Column with the format's extension: `{col}.png` or `{col}.jpg`"),
        TokenParam,
    ),
    responses(
        (status = 200, description = "A tile, with ETag and Cache-Control", content((Vec<u8> = "image/png"), (Vec<u8> = "image/jpeg"))),
        (status = 304, description = "Not modified (If-None-Match)"),
        (status = 400, description = "An OWS ExceptionReport", body = String, content_type = "text/xml"),
    )
)]
async fn get_wmts_tile(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path((layer, style, tile_matrix_set, tile_matrix, row, col)): Path<(
        String,
        String,
        String,
        String,
        String,
        String,
    )>,
) -> Response {
    let (col, format) =
        col.rsplit_once('.').map_or((col.clone(), String::new()), |(c, e)| (c.to_owned(), e.to_owned()));
    let t = TileRequest { layer, style, tile_matrix_set, tile_matrix, row, col, format };
    let reply = match state.ogc.get_tile(&caller.account_id, &t).await {
        Ok(r) => r,
        Err(e) => wmts::error_reply(&e),
    };
    respond(reply, &headers)
}

#[utoipa::path(
    get,
    path = "/api/v1/ogc/wmts/1.0.0/{layer}/{style}/{tile_matrix_set}/{tile_matrix}/{tile_row}/{tile_col}/{j}/{i}",
    tag = "ogc",
    params(
        ("layer" = String, Path, description = "Layer identifier"),
        ("style" = String, Path, description = "Style identifier"),
        ("tile_matrix_set" = String, Path, description = "Tile matrix set identifier"),
        ("tile_matrix" = String, Path, description = "Tile matrix identifier"),
        ("tile_row" = String, Path, description = "Row"),
        ("tile_col" = String, Path, description = "Column"),
        ("j" = String, Path, description = "Pixel row in the tile"),
        ("i" = String, Path, description = "Pixel column with the format's extension: `{i}.json`, `{i}.html` or `{i}.xml`"),
        TokenParam,
    ),
    responses(
        (status = 200, description = "What lies under the pixel", content((String = "application/json"), (String = "text/html"), (String = "text/xml"))),
        (status = 400, description = "An OWS ExceptionReport", body = String, content_type = "text/xml"),
    )
)]
async fn get_wmts_feature_info(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(p): Path<InfoPath>,
) -> Response {
    let InfoPath { layer, style, tile_matrix_set, tile_matrix, tile_row: row, tile_col: col, j, i } = p;
    let (i, info_format) = i.rsplit_once('.').map_or((i.clone(), String::new()), |(c, e)| (c.to_owned(), e.to_owned()));
    let tile = TileRequest { layer, style, tile_matrix_set, tile_matrix, row, col, format: "image/png".into() };
    let r = TileInfoRequest { tile, i, j, info_format };
    let reply = match state.ogc.get_tile_feature_info(&caller.account_id, &r).await {
        Ok(r) => r,
        Err(e) => wmts::error_reply(&e),
    };
    respond(reply, &headers)
}
