//! Listing features over HTTP: the query parameters of OGC API Features Parts 1–3 (and the
//! cadastre's own `lot`, `plan`, `tenure`), checked strictly and turned into the feature
//! service's [`ListQuery`]; the service's page is answered as a FeatureCollection with cursor
//! `next` links.

use super::{parse_crs, PARCELS};
use crate::error::ApiError;
use axum::http::StatusCode;
use meridian_collections::query::{bbox_to_crs84, filter_to_crs84};
use meridian_collections::{Cursor, FeaturePage, ListQuery, Start};
use meridian_core::crs::Crs;
use meridian_core::crs::Transformer;
use meridian_core::{FieldError, Timestamp};
use meridian_features::cql2::{self, Expr};
use meridian_features::geometry::Bbox;
use meridian_store::features::StoredFeature;
use serde::Serialize;
use serde_json::{json, Map, Value};

pub use meridian_collections::query::{DEFAULT_LIMIT, MAX_LIMIT};

/// The largest `offset` (2^53 − 1, the largest integer every JSON client reads exactly).
pub const MAX_OFFSET: u64 = 9_007_199_254_740_991;

/// The query parameters of a feature list (OGC API Features Parts 1–3), as the OpenAPI document
/// declares them for the cadastre's and every collection's list; [`list_params`] reads the raw
/// query string itself, to check it strictly.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct FeatureListQuery {
    /// minx,miny,maxx,maxy in WGS84 lon/lat (or in bbox-crs)
    #[param(nullable = false, pattern = r"^-?[0-9]+(\.[0-9]+)?(,-?[0-9]+(\.[0-9]+)?){3}$")]
    bbox: Option<String>,
    /// CRS URI of bbox
    #[param(
        rename = "bbox-crs",
        nullable = false,
        pattern = r"^http://www\.opengis\.net/def/crs/(OGC/1\.3/CRS84|EPSG/0/(4326|3857|4283|7844|2835[456]|785[456]|32633|3275[56]|2056))$"
    )]
    bbox_crs: Option<String>,
    /// CRS URI of the answer's geometries (default CRS84)
    #[param(
        nullable = false,
        pattern = r"^http://www\.opengis\.net/def/crs/(OGC/1\.3/CRS84|EPSG/0/(4326|3857|4283|7844|2835[456]|785[456]|32633|3275[56]|2056))$"
    )]
    crs: Option<String>,
    /// Page size, 1 to 10000 (default 100)
    #[param(nullable = false, minimum = 1, maximum = 10000)]
    limit: Option<u32>,
    /// Features to skip (follow `next` links rather than deep offsets)
    #[param(nullable = false, minimum = 0, maximum = 9007199254740991_u64)]
    offset: Option<u64>,
    /// Where a page continues: the token of a `next` link
    #[param(nullable = false)]
    cursor: Option<String>,
    /// Instant or interval (`start/end`, `..` open) on updated_at
    datetime: Option<String>,
    /// CQL2 filter
    filter: Option<String>,
    /// cql2-text (default) or cql2-json
    #[param(rename = "filter-lang")]
    filter_lang: Option<String>,
    /// CRS of geometry literals in the filter
    #[param(
        rename = "filter-crs",
        nullable = false,
        pattern = r"^http://www\.opengis\.net/def/crs/(OGC/1\.3/CRS84|EPSG/0/(4326|3857|4283|7844|2835[456]|785[456]|32633|3275[56]|2056))$"
    )]
    filter_crs: Option<String>,
    /// Comma-separated properties, `-` for descending
    sortby: Option<String>,
}

/// Checked list parameters: the service's query and how to answer.
pub struct ListParams {
    pub query: ListQuery,
    pub crs: Crs,
    /// `f=html|json`.
    pub format: Option<String>,
    /// Every parameter as given, to rebuild paging links.
    pub raw: Vec<(String, String)>,
}

fn bad(param: &str, code: &str, detail: impl Into<String>) -> ApiError {
    let detail = detail.into();
    let mut e = ApiError::new(StatusCode::BAD_REQUEST, code, "Invalid query parameter", format!("{param}: {detail}"));
    e.problem.errors = vec![FieldError::new(format!("/{param}"), code, detail)];
    e
}

fn instant(text: &str) -> Option<i64> {
    Timestamp::parse(text).map(|t| t.millis()).or_else(|| {
        cql2::parse_text(&format!("x = DATE('{text}')")).ok().and_then(|e| match e {
            Expr::Compare(_, _, cql2::Operand::Instant(ms)) => Some(ms),
            _ => None,
        })
    })
}

/// Parses and checks the query string. Unknown parameters are refused (400).
pub fn parse(
    raw_query: &str,
    collection: &str,
    known: &[(String, &'static str)],
    limits: &cql2::Limits,
) -> Result<ListParams, ApiError> {
    let raw: Vec<(String, String)> = form_urlencoded::parse(raw_query.as_bytes()).into_owned().collect();
    let mut p = ListParams {
        query: ListQuery { collection: collection.to_owned(), limit: DEFAULT_LIMIT, ..ListQuery::default() },
        crs: Crs::Crs84,
        format: None,
        raw: raw.clone(),
    };
    let q = &mut p.query;
    let mut crs = Crs::Crs84;
    let mut format = None;
    let get = |name: &str| raw.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    for (name, _) in &raw {
        if raw.iter().filter(|(k, _)| k == name).count() > 1 {
            return Err(bad(name, "repeated_parameter", "given more than once"));
        }
    }
    let bbox_crs = match get("bbox-crs") {
        Some(v) => parse_crs("bbox-crs", v)?,
        None => Crs::Crs84,
    };
    let filter_crs = match get("filter-crs") {
        Some(v) => parse_crs("filter-crs", v)?,
        None => Crs::Crs84,
    };
    for (name, value) in &raw {
        match name.as_str() {
            "bbox" => {
                let b = Bbox::parse(value).map_err(|e| bad("bbox", "invalid_bbox", e))?;
                let b = bbox_to_crs84(b, bbox_crs)
                    .ok_or_else(|| bad("bbox", "invalid_bbox", "the box cannot be transformed to CRS84"))?;
                b.check_lon_lat().map_err(|e| bad("bbox", "invalid_bbox", e))?;
                q.bbox = Some(b);
            }
            "bbox-crs" | "filter-crs" | "filter-lang" => {}
            "crs" => crs = parse_crs("crs", value)?,
            "limit" => {
                let n: i64 = value.parse().map_err(|_| bad("limit", "invalid_parameter", "must be an integer"))?;
                if !(1..=i64::from(MAX_LIMIT)).contains(&n) {
                    return Err(ApiError::invalid(vec![FieldError::new(
                        "/limit",
                        "out_of_range",
                        format!("limit must be between 1 and {MAX_LIMIT}"),
                    )]));
                }
                q.limit = n as u32;
            }
            "offset" => {
                if get("cursor").is_some() {
                    return Err(bad("offset", "invalid_parameter", "give offset or cursor, not both"));
                }
                let n: u64 = value.parse().ok().filter(|n| *n <= MAX_OFFSET).ok_or_else(|| {
                    bad("offset", "invalid_parameter", format!("must be an integer from 0 to {MAX_OFFSET}"))
                })?;
                q.start = if n == 0 { Start::First } else { Start::Offset(n) };
            }
            "cursor" => {
                let c = Cursor::parse(value)
                    .ok_or_else(|| bad("cursor", "invalid_parameter", "not a cursor from a next link of this list"))?;
                q.start = Start::Cursor(c);
            }
            "datetime" => {
                let (from, to) = match value.split_once('/') {
                    Some((a, b)) => (a, b),
                    None => (value.as_str(), value.as_str()),
                };
                let end = |t: &str| -> Result<Option<i64>, ApiError> {
                    if t.is_empty() || t == ".." {
                        return Ok(None);
                    }
                    instant(t).map(Some).ok_or_else(|| {
                        bad(
                            "datetime",
                            "invalid_datetime",
                            "use RFC 3339 instants or intervals like 2026-01-01T00:00:00Z/..",
                        )
                    })
                };
                q.updated_from = end(from)?;
                q.updated_to = end(to)?;
            }
            "filter" => {
                let lang = get("filter-lang").unwrap_or("cql2-text");
                let expr = match lang {
                    "cql2-text" => cql2::parse_text_with(value, limits),
                    "cql2-json" => cql2::parse_json_text_with(value, limits),
                    other => {
                        return Err(bad(
                            "filter-lang",
                            "invalid_parameter",
                            format!("{other} is not supported; use cql2-text or cql2-json"),
                        ))
                    }
                }
                .map_err(|e| bad("filter", "invalid_filter", e.0))?;
                for prop in expr.properties() {
                    if prop != "geometry" && prop != "id" && !known.iter().any(|(k, _)| *k == prop) {
                        return Err(bad(
                            "filter",
                            "invalid_filter",
                            format!("`{prop}` is not a queryable of this collection"),
                        ));
                    }
                }
                q.filter =
                    Some(filter_to_crs84(expr, filter_crs).map_err(|why| super::unsupported_crs("filter-crs", &why))?);
            }
            "sortby" => {
                for part in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let (name, desc) = match part.strip_prefix('-') {
                        Some(n) => (n, true),
                        None => (part.strip_prefix('+').unwrap_or(part), false),
                    };
                    if name != "id" && !known.iter().any(|(k, _)| k == name) {
                        return Err(bad("sortby", "invalid_parameter", format!("`{name}` is not sortable")));
                    }
                    q.sortby.push((name.to_owned(), desc));
                }
            }
            "f" => match value.as_str() {
                "json" | "geojson" | "html" => format = Some(value.clone()),
                other => {
                    return Err(bad("f", "invalid_parameter", format!("{other} is not an encoding; use json or html")))
                }
            },
            "lot" if collection == PARCELS => q.lot = Some(value.clone()),
            "plan" if collection == PARCELS => q.plan = Some(value.clone()),
            "tenure" if collection == PARCELS => q.tenure = Some(value.clone()),
            other if collection != PARCELS && known.iter().any(|(k, _)| k == other) => {
                q.equals.push((other.to_owned(), value.clone()))
            }
            // Authentication read it (QGIS sends it in the URL); links carry it on.
            "access_token" => {}
            other => return Err(bad(other, "unknown_parameter", "this parameter is not supported here")),
        }
    }
    p.crs = crs;
    p.format = format;
    Ok(p)
}

fn link_with(base: &str, path: &str, raw: &[(String, String)], overrides: &[(&str, String)], drop: &[&str]) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (k, v) in raw {
        if !overrides.iter().any(|(o, _)| o == k) && !drop.contains(&k.as_str()) {
            q.append_pair(k, v);
        }
    }
    for (k, v) in overrides {
        q.append_pair(k, v);
    }
    format!("{base}{path}?{}", q.finish())
}

/// The FeatureCollection answer with `meta`, OGC counts and paging links (`next` by cursor).
pub fn collection_body(base: &str, path: &str, p: &ListParams, page: FeaturePage, item_path: &str) -> ItemsBody {
    let limit = p.query.limit;
    let mut links =
        vec![json!({"rel": "self", "type": super::GEOJSON, "href": link_with(base, path, &p.raw, &[], &[])})];
    // Only OGC API Features items have an HTML page; the cadastre list is GeoJSON alone.
    if path.starts_with("/api/v1/ogc/") {
        links.push(json!({"rel": "alternate", "type": "text/html", "href": link_with(base, path, &p.raw, &[("f", "html".into())], &[])}));
    }
    if let Some(next) = page.next {
        links.push(json!({"rel": "next", "type": super::GEOJSON, "href": link_with(base, path, &p.raw, &[("cursor", next.token()), ("limit", limit.to_string())], &["offset"])}));
    }
    if page.offset > 0 {
        let prev = page.offset.saturating_sub(u64::from(limit));
        links.push(json!({"rel": "prev", "type": super::GEOJSON, "href": link_with(base, path, &p.raw, &[("offset", prev.to_string()), ("limit", limit.to_string())], &["cursor"])}));
    }
    let mut rest = json!({
        "type": "FeatureCollection",
        "numberReturned": page.features.len(),
        "timeStamp": Timestamp::now().to_rfc3339(),
        "links": links,
        "meta": {"limit": limit, "offset": page.offset},
    });
    if let Some(n) = page.number_matched {
        rest["numberMatched"] = json!(n);
        rest["meta"]["total"] = json!(n);
    }
    let rest = match rest {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    ItemsBody { rest, features: page.features, crs: p.crs, item_base: format!("{base}{item_path}/") }
}

/// A page of features as a GeoJSON FeatureCollection, written straight from the stored
/// features: geometry and properties go out as the text the store holds (in CRS84), and are
/// parsed only to move the geometry to another CRS.
pub struct ItemsBody {
    /// Every member but `features`.
    rest: Map<String, Value>,
    features: Vec<StoredFeature>,
    crs: Crs,
    /// Each feature's `self` link is this followed by its id.
    item_base: String,
}

impl ItemsBody {
    /// The answer as a JSON value (the HTML page reads it).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.to_json()).unwrap_or(Value::Null)
    }

    /// The answer's JSON text (members in the order of a JSON object's keys: `features` first).
    pub fn to_json(&self) -> String {
        let size: usize =
            self.features.iter().map(|f| f.properties.len() + f.geometry.as_ref().map_or(4, String::len)).sum();
        let mut out = String::with_capacity(size + self.features.len() * (self.item_base.len() + 160) + 1024);
        out.push_str("{\"features\":[");
        for (i, f) in self.features.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_feature(&mut out, f, self.crs, &self.item_base);
        }
        out.push(']');
        for (k, v) in &self.rest {
            out.push(',');
            push_json(&mut out, k);
            out.push(':');
            push_json(&mut out, v);
        }
        out.push('}');
        out
    }
}

/// Appends `v` as JSON.
fn push_json(out: &mut String, v: &impl Serialize) {
    out.push_str(&serde_json::to_string(v).unwrap_or_else(|_| "null".to_owned()));
}

/// One feature of a page, with its `self` link and `updated_at` among its properties.
fn write_feature(out: &mut String, f: &StoredFeature, crs: Crs, item_base: &str) {
    out.push_str("{\"geometry\":");
    match (&f.geometry, crs) {
        (None, _) => out.push_str("null"),
        (Some(g), Crs::Crs84) => out.push_str(g),
        (Some(g), to) => {
            let moved = match (serde_json::from_str::<Value>(g), Transformer::new(Crs::Crs84, to)) {
                (Ok(g), Ok(t)) => meridian_features::geometry::map_positions(&g, &mut |x, y| t.apply(x, y)),
                _ => None,
            };
            push_json(out, &moved.unwrap_or(Value::Null));
        }
    }
    out.push_str(",\"id\":");
    push_json(out, &f.id);
    out.push_str(",\"links\":[{\"href\":");
    push_json(out, &format!("{item_base}{}", f.id));
    out.push_str(",\"rel\":\"self\",\"type\":\"");
    out.push_str(super::GEOJSON);
    out.push_str("\"}],\"properties\":");
    let updated = f.updated_at.to_rfc3339();
    let props = f.properties.trim();
    match props.strip_prefix('{') {
        // The stored text of an object without an `updated_at` of its own: the time goes first.
        Some(inner) if !props.contains("\"updated_at\"") => {
            out.push_str("{\"updated_at\":");
            push_json(out, &updated);
            if !inner.trim_start().starts_with('}') {
                out.push(',');
            }
            out.push_str(inner);
        }
        // Otherwise (the text names `updated_at`, as a property or a value): the values, with
        // the feature's own time in place of such a property.
        _ => {
            let mut m: Map<String, Value> = serde_json::from_str(props).unwrap_or_default();
            m.insert("updated_at".into(), Value::String(updated));
            push_json(out, &m);
        }
    }
    out.push_str(",\"type\":\"Feature\"}");
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use meridian_core::id::AccountId;

    fn stored(geometry: Option<&str>, properties: &str) -> StoredFeature {
        StoredFeature {
            id: "f\"1".into(),
            account_id: AccountId("acc".into()),
            collection: "c".into(),
            geometry: geometry.map(str::to_owned),
            properties: properties.into(),
            bbox: None,
            version: 1,
            created_at: Timestamp::from_millis(0),
            updated_at: Timestamp::from_millis(1_000),
            retired_at: None,
        }
    }

    fn written(f: &StoredFeature, crs: Crs) -> Value {
        let mut rest = Map::new();
        rest.insert("type".into(), json!("FeatureCollection"));
        rest.insert("numberReturned".into(), json!(1));
        let body = ItemsBody { rest, features: vec![f.clone()], crs, item_base: "http://x/items/".into() };
        let v: Value = serde_json::from_str(&body.to_json()).unwrap();
        assert_eq!(v["type"], "FeatureCollection");
        v["features"][0].clone()
    }

    #[test]
    fn stored_text_is_written_as_the_parsed_feature_would_be() {
        let updated = Timestamp::from_millis(1_000).to_rfc3339();
        let point = r#"{"type":"Point","coordinates":[151.0,-34.0]}"#;
        for props in [r#"{"a":1,"z":[true,null]}"#, "{}", " { } ", r#"{"updated_at":"mine","b":"updated_at"}"#] {
            let v = written(&stored(Some(point), props), Crs::Crs84);
            let mut want: Map<String, Value> = serde_json::from_str(props).unwrap();
            want.insert("updated_at".into(), Value::String(updated.clone()));
            assert_eq!(v["properties"], Value::Object(want), "{props}");
            assert_eq!(v["geometry"], serde_json::from_str::<Value>(point).unwrap());
            assert_eq!(v["id"], "f\"1");
            assert_eq!(v["links"][0]["href"], "http://x/items/f\"1");
            assert_eq!(v["type"], "Feature");
        }
        assert_eq!(written(&stored(None, "{}"), Crs::Crs84)["geometry"], Value::Null);
        // Another CRS moves the coordinates (EPSG:4326 is latitude first).
        let v = written(&stored(Some(point), "{}"), Crs::Epsg(4326));
        assert_eq!(v["geometry"]["coordinates"], json!([-34.0, 151.0]));
    }
}
