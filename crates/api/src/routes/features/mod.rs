//! The feature store over HTTP: one service shared by the cadastre API (`/api/v1/cadastre/parcels`)
//! and OGC API Features (`/api/v1/ogc/v1/features`), so that both serve the same data by the same rules.

pub mod html;
pub mod items;
pub mod ogc;
pub mod query;

use crate::error::ApiError;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use meridian_core::crs::{Crs, Transformer};
use meridian_store::features::Feature;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{json, Value};

pub use meridian_collections::PARCELS;

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
    serde_json::to_value(FeatureOut { feature: f, crs, self_href }).unwrap_or(Value::Null)
}

/// A feature as GeoJSON in the requested CRS, written straight from the stored feature (no copy
/// of its properties or geometry): members in the order of a JSON object's keys, `updated_at`
/// among the properties, a `self` link when given.
pub struct FeatureOut<'a> {
    pub feature: &'a Feature,
    pub crs: Crs,
    pub self_href: Option<&'a str>,
}

impl Serialize for FeatureOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = self.feature;
        let mut m = s.serialize_map(None)?;
        match (&f.geometry, self.crs) {
            (None, _) => m.serialize_entry("geometry", &Value::Null)?,
            (Some(g), Crs::Crs84) => m.serialize_entry("geometry", g)?,
            (Some(g), out) => {
                let moved = match Transformer::new(Crs::Crs84, out) {
                    Ok(t) => {
                        meridian_features::geometry::map_positions(g, &mut |x, y| t.apply(x, y)).unwrap_or(Value::Null)
                    }
                    Err(_) => Value::Null,
                };
                m.serialize_entry("geometry", &moved)?
            }
        }
        m.serialize_entry("id", &f.id)?;
        if let Some(href) = self.self_href {
            m.serialize_entry("links", &[json!({"rel": "self", "type": GEOJSON, "href": href})])?;
        }
        m.serialize_entry("properties", &Properties(f))?;
        m.serialize_entry("type", "Feature")?;
        m.end()
    }
}

/// A feature's properties with `updated_at` in its place among them.
struct Properties<'a>(&'a Feature);

impl Serialize for Properties<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = self.0;
        let updated = f.updated_at.to_rfc3339();
        let mut m = s.serialize_map(Some(f.properties.len() + 1))?;
        let mut pending = true;
        for (k, v) in &f.properties {
            if pending && k.as_str() >= "updated_at" {
                m.serialize_entry("updated_at", &updated)?;
                pending = false;
            }
            if k != "updated_at" {
                m.serialize_entry(k, v)?;
            }
        }
        if pending {
            m.serialize_entry("updated_at", &updated)?;
        }
        m.end()
    }
}
