//! The feature store over HTTP: one service shared by the cadastre API (`/api/v1/cadastre/parcels`)
//! and OGC API Features (`/api/v1/ogc/v1/features`), so that both serve the same data by the same rules.

pub mod html;
pub mod ogc;
pub mod parcels;
pub mod query;

use crate::error::ApiError;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use meridian_core::crs::{Crs, Transformer};
use meridian_store::features::Feature;
use serde_json::{json, Map, Value};

pub use meridian_cadastre::PARCELS;

/// GeoJSON's media type.
pub const GEOJSON: &str = "application/geo+json";

/// CRSs listed in collection metadata; any EPSG code with a definition is accepted too.
pub use meridian_core::crs::ADVERTISED as LISTED_CRS;

/// A `400` naming an unsupported CRS and what is supported.
pub fn unsupported_crs(param: &str, why: &str) -> ApiError {
    let listed: Vec<String> = LISTED_CRS.iter().map(Crs::uri).collect();
    let mut e = ApiError::new(
        StatusCode::BAD_REQUEST,
        "unsupported_crs",
        "Unsupported CRS",
        format!("{param}: {why}. Supported: {} and any other EPSG code with a definition", listed.join(", ")),
    );
    e.problem.errors = vec![meridian_core::FieldError::new(format!("/{param}"), "unsupported_crs", why)];
    e
}

/// Parses a CRS parameter or header value.
pub fn parse_crs(param: &str, value: &str) -> Result<Crs, ApiError> {
    Crs::parse(value).map_err(|why| unsupported_crs(param, &why))
}

/// The `Content-Crs` header of a request, CRS84 when absent.
pub fn content_crs(headers: &HeaderMap) -> Result<Crs, ApiError> {
    match headers.get("content-crs").and_then(|v| v.to_str().ok()) {
        None => Ok(Crs::Crs84),
        Some(v) => parse_content_crs(v),
    }
}

/// Parses a `Content-Crs` header value (a URI, optionally in angle brackets).
pub fn parse_content_crs(value: &str) -> Result<Crs, ApiError> {
    parse_crs("Content-Crs", value.trim().trim_start_matches('<').trim_end_matches('>'))
}

/// The `Content-Crs` header value for a response.
pub fn content_crs_header(crs: Crs) -> HeaderValue {
    HeaderValue::from_str(&format!("<{}>", crs.uri()))
        .unwrap_or(HeaderValue::from_static("<http://www.opengis.net/def/crs/OGC/1.3/CRS84>"))
}

/// The strong ETag of a feature version.
pub fn etag(f: &Feature) -> HeaderValue {
    crate::etag::tag(&format!("{}-v", f.id), f.version)
}

/// The version an `If-Match` header names for feature `id` (`*` means any).
pub fn if_match(headers: &HeaderMap, id: &str) -> Result<Option<i64>, ApiError> {
    crate::etag::expected_version(headers, &format!("{id}-v"))
}

/// A feature as GeoJSON in the requested CRS.
pub fn render(f: &Feature, crs: Crs, self_href: Option<&str>) -> Value {
    let geometry = match (&f.geometry, crs) {
        (None, _) => Value::Null,
        (Some(g), Crs::Crs84) => g.clone(),
        (Some(g), out) => match Transformer::new(Crs::Crs84, out) {
            Ok(t) => meridian_features::geometry::map_positions(g, &mut |x, y| t.apply(x, y)).unwrap_or(Value::Null),
            Err(_) => Value::Null,
        },
    };
    let mut props: Map<String, Value> = f.properties.clone();
    props.insert("updated_at".into(), Value::String(f.updated_at.to_rfc3339()));
    let mut out = json!({"type": "Feature", "id": f.id, "geometry": geometry, "properties": props});
    if let Some(href) = self_href {
        out["links"] = json!([{"rel": "self", "type": GEOJSON, "href": href}]);
    }
    out
}
