//! Listing features: the query parameters of OGC API Features Parts 1–3 (and the cadastre's own
//! `lot`, `plan`, `tenure`), checked strictly, run against the store's spatial index and then
//! CQL2 and sorting, and answered as a paged FeatureCollection.

use super::{parse_crs, render, PARCELS};
use crate::error::ApiError;
use crate::state::AppState;
use axum::http::{HeaderMap, StatusCode};
use geo::MapCoords;
use meridian_core::crs::{Crs, Transformer};
use meridian_core::id::AccountId;
use meridian_core::{FieldError, Timestamp};
use meridian_features::cql2::{self, Expr, Subject};
use meridian_features::geometry::{self, Bbox};
use meridian_store::features::{Feature, FeatureQuery};
use serde_json::{json, Map, Value};
use std::cmp::Ordering;

/// Default and largest page sizes of feature lists.
pub const DEFAULT_LIMIT: u32 = 100;
pub const MAX_LIMIT: u32 = 10_000;

/// Checked list parameters.
pub struct ListParams {
    pub bbox: Option<Bbox>,
    pub crs: Crs,
    pub limit: u32,
    pub offset: u64,
    pub lot: Option<String>,
    pub plan: Option<String>,
    pub tenure: Option<String>,
    pub updated_from: Option<i64>,
    pub updated_to: Option<i64>,
    pub filter: Option<Expr>,
    pub sortby: Vec<(String, bool)>,
    /// `f=html|json`.
    pub format: Option<String>,
    /// Every parameter as given, to rebuild paging links.
    pub raw: Vec<(String, String)>,
    /// Equality filters on other queryables (`?colour=red`).
    pub equals: Vec<(String, String)>,
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

/// The queryable properties of a collection (besides `geometry` and `id`).
pub fn queryables(collection: &str, sample: &[Feature]) -> Vec<(String, &'static str)> {
    if collection == PARCELS {
        return vec![
            ("lot".into(), "string"),
            ("plan".into(), "string"),
            ("tenure".into(), "string"),
            ("area_m2".into(), "number"),
            ("updated_at".into(), "string"),
        ];
    }
    let mut out: Vec<(String, &'static str)> = vec![("updated_at".into(), "string")];
    for f in sample {
        for (k, v) in &f.properties {
            if out.iter().any(|(n, _)| n == k) {
                continue;
            }
            let t = match v {
                Value::Number(_) => "number",
                Value::Bool(_) => "boolean",
                Value::String(_) => "string",
                _ => continue,
            };
            out.push((k.clone(), t));
        }
    }
    out
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
        bbox: None,
        crs: Crs::Crs84,
        limit: DEFAULT_LIMIT,
        offset: 0,
        lot: None,
        plan: None,
        tenure: None,
        updated_from: None,
        updated_to: None,
        filter: None,
        sortby: Vec::new(),
        format: None,
        raw: raw.clone(),
        equals: Vec::new(),
    };
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
                let b = to_crs84_box(b, bbox_crs)
                    .ok_or_else(|| bad("bbox", "invalid_bbox", "the box cannot be transformed to CRS84"))?;
                b.check_lon_lat().map_err(|e| bad("bbox", "invalid_bbox", e))?;
                p.bbox = Some(b);
            }
            "bbox-crs" | "filter-crs" | "filter-lang" => {}
            "crs" => p.crs = parse_crs("crs", value)?,
            "limit" => {
                let n: i64 = value.parse().map_err(|_| bad("limit", "invalid_parameter", "must be an integer"))?;
                if !(1..=i64::from(MAX_LIMIT)).contains(&n) {
                    return Err(ApiError::invalid(vec![FieldError::new(
                        "/limit",
                        "out_of_range",
                        format!("limit must be between 1 and {MAX_LIMIT}"),
                    )]));
                }
                p.limit = n as u32;
            }
            "offset" => {
                p.offset =
                    value.parse().map_err(|_| bad("offset", "invalid_parameter", "must be a non-negative integer"))?;
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
                p.updated_from = end(from)?;
                p.updated_to = end(to)?;
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
                p.filter = Some(reproject_literals(expr, filter_crs)?);
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
                    p.sortby.push((name.to_owned(), desc));
                }
            }
            "f" => match value.as_str() {
                "json" | "geojson" | "html" => p.format = Some(value.clone()),
                other => {
                    return Err(bad("f", "invalid_parameter", format!("{other} is not an encoding; use json or html")))
                }
            },
            "lot" if collection == PARCELS => p.lot = Some(value.clone()),
            "plan" if collection == PARCELS => p.plan = Some(value.clone()),
            "tenure" if collection == PARCELS => p.tenure = Some(value.clone()),
            other if collection != PARCELS && known.iter().any(|(k, _)| k == other) => {
                p.equals.push((other.to_owned(), value.clone()))
            }
            other => return Err(bad(other, "unknown_parameter", "this parameter is not supported here")),
        }
    }
    Ok(p)
}

fn to_crs84_box(b: Bbox, crs: Crs) -> Option<Bbox> {
    if crs == Crs::Crs84 {
        return Some(b);
    }
    let t = Transformer::new(crs, Crs::Crs84).ok()?;
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..=8 {
        let f = f64::from(i) / 8.0;
        for (x, y) in [
            (b.min_x + f * (b.max_x - b.min_x), b.min_y),
            (b.min_x + f * (b.max_x - b.min_x), b.max_y),
            (b.min_x, b.min_y + f * (b.max_y - b.min_y)),
            (b.max_x, b.min_y + f * (b.max_y - b.min_y)),
        ] {
            let (lon, lat) = t.apply(x, y)?;
            xs.push(lon);
            ys.push(lat);
        }
    }
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(Bbox { min_x: min(&xs), min_y: min(&ys), max_x: max(&xs), max_y: max(&ys) })
}

fn reproject_literals(e: Expr, crs: Crs) -> Result<Expr, ApiError> {
    if crs == Crs::Crs84 {
        return Ok(e);
    }
    let t = Transformer::new(crs, Crs::Crs84).map_err(|why| super::unsupported_crs("filter-crs", &why))?;
    fn op(o: cql2::Operand, t: &Transformer) -> cql2::Operand {
        match o {
            cql2::Operand::Geometry(g) => cql2::Operand::Geometry(g.map_coords(|c| {
                let (x, y) = t.apply(c.x, c.y).unwrap_or((f64::NAN, f64::NAN));
                geo::Coord { x, y }
            })),
            other => other,
        }
    }
    fn walk(e: Expr, t: &Transformer) -> Expr {
        match e {
            Expr::And(v) => Expr::And(v.into_iter().map(|e| walk(e, t)).collect()),
            Expr::Or(v) => Expr::Or(v.into_iter().map(|e| walk(e, t)).collect()),
            Expr::Not(e) => Expr::Not(Box::new(walk(*e, t))),
            Expr::Spatial(s, a, b) => Expr::Spatial(s, op(a, t), op(b, t)),
            other => other,
        }
    }
    Ok(walk(e, &t))
}

fn sort_value(f: &Feature, key: &str) -> Value {
    match key {
        "id" => Value::String(f.id.clone()),
        "updated_at" => Value::String(f.updated_at.to_rfc3339()),
        k => f.properties.get(k).cloned().unwrap_or(Value::Null),
    }
}

fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64().partial_cmp(&y.as_f64()).unwrap_or(Ordering::Equal),
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Greater,
        (_, Value::Null) => Ordering::Less,
        _ => a.to_string().cmp(&b.to_string()),
    }
}

/// Runs the query; returns the page and how many features match in all.
pub async fn run(
    state: &AppState,
    account: &AccountId,
    collection: &str,
    p: &ListParams,
) -> Result<(Vec<Feature>, u64), ApiError> {
    let mut q = FeatureQuery {
        collection: collection.to_owned(),
        bbox: p.bbox.map(|b| [b.min_x, b.min_y, b.max_x, b.max_y]),
        lot: p.lot.clone(),
        plan: p.plan.clone(),
        tenure: p.tenure.clone(),
        updated_from: p.updated_from,
        updated_to: p.updated_to,
        page: None,
    };
    let antimeridian = p.bbox.is_some_and(|b| b.min_x > b.max_x);
    if antimeridian {
        q.bbox = None;
    }
    // Without a bbox the store pages by itself; with one, its R*Tree only prefilters and the exact
    // intersection with the box is decided here.
    let simple = p.filter.is_none() && p.sortby.is_empty() && p.equals.is_empty() && p.bbox.is_none();
    if simple {
        q.page = Some((p.limit, p.offset));
        return Ok(state.store.features.query_features(account, &q).await?);
    }
    let (candidates, _) = state.store.features.query_features(account, &q).await?;
    let filter = p.filter.clone();
    let bbox = p.bbox;
    let equals = p.equals.clone();
    let sortby = p.sortby.clone();
    let (limit, offset) = (p.limit as usize, p.offset as usize);
    // CQL2 and sorting are CPU work: keep them off the async executor.
    tokio::task::spawn_blocking(move || {
        let mut matched: Vec<Feature> = candidates
            .into_iter()
            .filter(|f| {
                // Stored geometry was validated when written: decode it, do not validate again.
                let geo = || f.geometry.as_ref().and_then(geometry::decode);
                let mut parsed = None;
                if let Some(b) = bbox {
                    let Some(fb) = f.bbox else { return false };
                    if !b.intersects(&Bbox { min_x: fb[0], min_y: fb[1], max_x: fb[2], max_y: fb[3] }) {
                        return false;
                    }
                    let box_is_whole = fb[0] >= b.min_x && fb[2] <= b.max_x && fb[1] >= b.min_y && fb[3] <= b.max_y;
                    if !box_is_whole && b.min_x <= b.max_x {
                        parsed = geo();
                        let inside = parsed.as_ref().is_some_and(|g| geo::Intersects::intersects(g, &b.to_polygon()));
                        if !inside {
                            return false;
                        }
                    }
                }
                if !equals.iter().all(|(k, v)| match f.properties.get(k) {
                    Some(Value::String(s)) => s == v,
                    Some(Value::Number(n)) => v.parse::<f64>().ok() == n.as_f64(),
                    Some(Value::Bool(b)) => v.parse::<bool>().ok() == Some(*b),
                    _ => false,
                }) {
                    return false;
                }
                let Some(expr) = &filter else { return true };
                let geo = parsed.or_else(geo);
                let mut props: Map<String, Value> = f.properties.clone();
                props.insert("updated_at".into(), Value::String(f.updated_at.to_rfc3339()));
                cql2::matches(
                    expr,
                    &Subject { id: &f.id, properties: &props, geometry: geo.as_ref(), geometry_name: "geometry" },
                )
            })
            .collect();
        if !sortby.is_empty() {
            matched.sort_by(|a, b| {
                sortby
                    .iter()
                    .map(|(k, desc)| {
                        let o = compare(&sort_value(a, k), &sort_value(b, k));
                        if *desc {
                            o.reverse()
                        } else {
                            o
                        }
                    })
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            });
        }
        let total = matched.len() as u64;
        let page = matched.into_iter().skip(offset).take(limit).collect();
        (page, total)
    })
    .await
    .map_err(ApiError::internal)
}

/// The scheme and authority links should use: `server.public_url`, else the request's Host.
pub fn base_url(state: &AppState, headers: &HeaderMap) -> String {
    if let Some(url) = &state.config.server.public_url {
        return url.trim_end_matches('/').to_owned();
    }
    let host = headers.get(axum::http::header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("localhost");
    let proto = headers.get("x-forwarded-proto").and_then(|v| v.to_str().ok()).unwrap_or("http");
    format!("{proto}://{host}")
}

fn link_with(base: &str, path: &str, raw: &[(String, String)], overrides: &[(&str, String)]) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (k, v) in raw {
        if !overrides.iter().any(|(o, _)| o == k) {
            q.append_pair(k, v);
        }
    }
    for (k, v) in overrides {
        q.append_pair(k, v);
    }
    format!("{base}{path}?{}", q.finish())
}

/// The FeatureCollection answer with `meta`, OGC counts and paging links.
pub fn collection_body(base: &str, path: &str, p: &ListParams, page: &[Feature], total: u64, item_path: &str) -> Value {
    let features: Vec<Value> =
        page.iter().map(|f| render(f, p.crs, Some(&format!("{base}{item_path}/{}", f.id)))).collect();
    let mut links = vec![json!({"rel": "self", "type": super::GEOJSON, "href": link_with(base, path, &p.raw, &[])})];
    links.push(json!({"rel": "alternate", "type": "text/html", "href": link_with(base, path, &p.raw, &[("f", "html".into())])}));
    let next = p.offset + page.len() as u64;
    if next < total && !page.is_empty() {
        links.push(json!({"rel": "next", "type": super::GEOJSON, "href": link_with(base, path, &p.raw, &[("offset", next.to_string()), ("limit", p.limit.to_string())])}));
    }
    if p.offset > 0 {
        let prev = p.offset.saturating_sub(u64::from(p.limit));
        links.push(json!({"rel": "prev", "type": super::GEOJSON, "href": link_with(base, path, &p.raw, &[("offset", prev.to_string()), ("limit", p.limit.to_string())])}));
    }
    json!({
        "type": "FeatureCollection",
        "features": features,
        "numberMatched": total,
        "numberReturned": page.len(),
        "timeStamp": Timestamp::now().to_rfc3339(),
        "links": links,
        "meta": {"total": total, "limit": p.limit, "offset": p.offset},
    })
}
