//! `GET /api/v1/ogc/wms`: WMS 1.3.0 by KVP (GetCapabilities, GetMap, GetFeatureInfo,
//! GetLegendGraphic).

use super::{context, respond};
use crate::auth::Caller;
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/api/v1/ogc/wms`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_wms))
}

/// The main WMS parameters (names are case-insensitive; see WMS 1.3.0 for the rest).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct WmsParams {
    /// `WMS`.
    SERVICE: Option<String>,
    /// `GetCapabilities`, `GetMap`, `GetFeatureInfo` or `GetLegendGraphic`.
    REQUEST: Option<String>,
    /// `1.3.0`.
    VERSION: Option<String>,
    /// Comma-separated layer names (`features:parcels`, `dem:dset_...`).
    LAYERS: Option<String>,
    /// One style per layer, or empty for the defaults.
    STYLES: Option<String>,
    /// `CRS:84`, `EPSG:4326` (latitude first), `EPSG:3857`, `EPSG:2056`, ...
    CRS: Option<String>,
    /// `minx,miny,maxx,maxy` in the CRS's axis order.
    BBOX: Option<String>,
    /// Map width in pixels.
    WIDTH: Option<String>,
    /// Map height in pixels.
    HEIGHT: Option<String>,
    /// `image/png`, `image/png; mode=8bit` or `image/jpeg`.
    FORMAT: Option<String>,
    /// `TRUE` for a transparent background.
    TRANSPARENT: Option<String>,
    /// `XML`, `INIMAGE` or `BLANK`.
    EXCEPTIONS: Option<String>,
    /// A short-lived access token, for clients that cannot send headers.
    access_token: Option<String>,
}

#[utoipa::path(
    get,
    path = "/api/v1/ogc/wms",
    tag = "ogc",
    params(WmsParams),
    responses(
        (status = 200, description = "Capabilities (text/xml), a map (PNG or JPEG), feature info (HTML, JSON, XML or text), a legend, or with EXCEPTIONS=INIMAGE|BLANK an error drawn in (or left out of) the requested image",
            content(
                (String = "text/xml"),
                (Vec<u8> = "image/png"),
                (Vec<u8> = "image/jpeg"),
                (String = "application/json"),
                (String = "text/html"),
                (String = "text/plain"),
            )),
        (status = 400, description = "A WMS ServiceExceptionReport (LayerNotDefined, InvalidCRS, InvalidParameterValue, ...)",
            content((String = "text/xml"))),
    )
)]
async fn get_wms(State(state): State<AppState>, caller: Caller, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    let query = q.unwrap_or_default();
    let ctx = context(&state, &headers, Some(&query));
    respond(state.ogc.wms(&caller.account_id, &query, &ctx).await, &headers)
}
