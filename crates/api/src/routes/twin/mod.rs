//! The digital-twin area: twins under `/api/v1/realtime/twins`, and the interface's
//! `/api/v1/realtime/twin/{id}/...` (3D Tiles, assets, the simulation clock, sensors and
//! readings, and the WebSocket of live telemetry). The work is done by
//! `meridian_twin::service::TwinService`; these routes parse HTTP and shape answers. Answers may
//! be read by a 3D viewer on any origin (`Access-Control-Allow-Origin: *`): credentials travel in
//! a header the page sets or an `access_token` in the URL, never in cookies.

pub mod assets;
pub mod clock;
pub mod sensors;
pub mod socket;
pub mod tiles;
pub mod twins;

use crate::error::ApiError;
use crate::state::AppState;
use axum::http::{header, HeaderValue};
use axum::response::Response;
use meridian_core::{FieldError, Timestamp};
use meridian_twin::service::Twin;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

/// Every twin route.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(twins::router())
        .merge(tiles::router())
        .merge(assets::router())
        .merge(clock::router())
        .merge(sensors::router())
        .merge(socket::router())
        .layer(axum::middleware::map_response(allow_any_origin))
}

async fn allow_any_origin(mut r: Response) -> Response {
    r.headers_mut().entry(header::ACCESS_CONTROL_ALLOW_ORIGIN).or_insert(HeaderValue::from_static("*"));
    r
}

/// The ETag prefix of a twin's versions.
pub(crate) fn etag_prefix(id: &str) -> String {
    format!("{id}-v")
}

/// An instant of a query string: RFC 3339, or `now`.
pub(crate) fn instant(v: Option<&str>, pointer: &str) -> Result<Option<i64>, ApiError> {
    match v.map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) if t.eq_ignore_ascii_case("now") => Ok(Some(Timestamp::now().millis())),
        Some(t) => chrono::DateTime::parse_from_rfc3339(t).map(|d| Some(d.timestamp_millis())).map_err(|e| {
            ApiError::invalid(vec![FieldError::new(
                pointer,
                "invalid_time",
                format!("an RFC 3339 instant or `now`: {e}"),
            )])
        }),
    }
}

/// A twin as its owner sees it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TwinView {
    /// `twin_...`
    pub id: String,
    pub name: String,
    /// `building` (its first tileset), `ready` or `failed`.
    pub status: String,
    /// West, south, east, north (degrees).
    pub bbox: [f64; 4],
    /// The polygon given as the area, if any (GeoJSON).
    #[schema(value_type = Option<Object>)]
    pub area: Value,
    /// The feature collection of its assets.
    pub collection: String,
    /// The CQL2 text filter on the features.
    pub filter: Option<String>,
    /// The DEM dataset giving terrain and ground heights.
    pub dem_dataset: Option<String>,
    pub height_property: Option<String>,
    pub default_height: f64,
    /// The latest build: `stamp` (the tileset's version), `as_of`, `features`, `footprints`,
    /// `tiles`, `triangles`, `bytes`, `skipped`, `terrain`, `built_at`.
    #[schema(value_type = Option<Object>)]
    pub tileset: Value,
    /// The simulation clock: `time`, `mode` (`live` or `simulated`), `rate`, `playing`, `set_at`.
    #[schema(value_type = Object)]
    pub clock: Value,
    /// Why the first build failed, as a problem document.
    #[schema(value_type = Option<Object>)]
    pub error: Value,
    /// `self`, `tileset`, `time`, `sensors`, `readings`, `features`, `websocket`, `build_job`.
    #[schema(value_type = Object)]
    pub links: Value,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<Twin> for TwinView {
    fn from(t: Twin) -> Self {
        let id = t.id.0.clone();
        let base = format!("/api/v1/realtime/twin/{id}");
        Self {
            name: t.name.clone(),
            status: t.status.as_str().to_owned(),
            bbox: t.bbox,
            area: t.area.clone().unwrap_or(Value::Null),
            collection: t.collection.clone(),
            filter: t.filter.clone(),
            dem_dataset: t.dem_dataset.clone(),
            height_property: t.height_property.clone(),
            default_height: t.default_height,
            tileset: t.tileset.clone().unwrap_or(Value::Null),
            clock: t.clock.view(Timestamp::now().millis()),
            error: t.error.clone().unwrap_or(Value::Null),
            links: json!({
                "self": format!("/api/v1/realtime/twins/{id}"),
                "tileset": format!("{base}/tileset"),
                "time": format!("{base}/time"),
                "sensors": format!("{base}/sensors"),
                "readings": format!("{base}/readings"),
                "features": format!("{base}/features/{{fid}}"),
                "websocket": base,
                "build_job": format!("/api/v1/jobs/{}", t.build_job),
            }),
            created_at: t.created_at,
            updated_at: t.updated_at,
            id,
        }
    }
}
