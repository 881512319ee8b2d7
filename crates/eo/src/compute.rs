//! Spectral indices and band math over a scene: the request is checked in full (scene, bands,
//! expression, grids, area, zones) before anything runs; small areas are computed at once, large
//! ones by an `eo.compute` job. Each result is a Float32 COG (nodata where an input is nodata or
//! the expression is undefined), statistics, a PNG preview, tiles, and optionally zonal
//! statistics over a feature collection (the cadastre's parcels by default).

use crate::bandmath::{self, Band, Statistics};
use crate::expr::{self, Expression};
use crate::service::{keys, Error, Result};
use crate::stac::{self, COG_TYPE};
use crate::zonal::{self, ZoneStats};
use crate::EoService;
use async_trait::async_trait;
use meridian_collections::query::{ListQuery, Start};
use meridian_core::crs::Crs;
use meridian_core::error::FieldError;
use meridian_core::id::AccountId;
use meridian_core::{DomainError, Timestamp};
use meridian_features::cql2::{self, Expr};
use meridian_features::geometry::{self as fgeom, Rules};
use meridian_jobs::{JobContext, JobError, JobHandler, JobOutcome};
use meridian_raster::crs::transformer;
use meridian_raster::tiff::GeoTiff;
use meridian_raster::tile::TileRenderer;
use meridian_raster::{GeoTransform, Window};
use meridian_store::eo::EoItem;
use meridian_store::model::{Job, NewJob};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub use meridian_raster::dem::ColorRamp;
use std::sync::Arc;

/// Asset rasters kept open for tiles and computations.
pub(crate) const OPENED_CAPACITY: usize = 256;

/// The job kind of large computations.
pub const COMPUTE_JOB: &str = "eo.compute";

/// Where a computation's result lives and how it is reached.
pub fn result_path(id: &str) -> String {
    format!("{}/results/{id}", stac::ROOT)
}

/// An area of interest: a box or a polygon, in any CRS the cadastre accepts (CRS84 by default).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Area {
    /// EPSG code of the coordinates (4326 for CRS84).
    pub epsg: u16,
    /// The box, or the polygon's box.
    pub bbox: [f64; 4],
    /// Polygon rings (outer first) when the area is a polygon: pixels outside are nodata.
    pub polygon: Option<Vec<Vec<Vec<[f64; 2]>>>>,
}

/// Zonal statistics over features.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ZonesSpec {
    pub collection: String,
    /// CQL2 text.
    pub filter: Option<String>,
    pub filter_json: Option<Value>,
    pub all_touched: bool,
}

/// A checked computation, ready to run (the job's parameters).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    pub id: String,
    pub collection: String,
    pub item: String,
    /// `ndvi`, `ndwi`, ... or `expression`.
    pub index: String,
    /// The expression over asset keys.
    pub expression: String,
    /// Variable (asset key) → blob key, in the expression's variable order.
    pub assets: Vec<(String, String)>,
    /// Common name → asset key, as resolved.
    pub bands: BTreeMap<String, String>,
    pub epsg: u16,
    /// The pixel window of the assets' grid.
    pub window: [i64; 4],
    pub area: Option<Area>,
    pub png: bool,
    pub colormap: String,
    pub rescale: (f64, f64),
    pub zones: Option<ZonesSpec>,
}

/// What a computation produced: the document answered and stored.
pub type ResultDoc = Value;

/// How a computation is answered.
#[derive(Debug)]
pub enum Computed {
    /// Done: the result document.
    Done(ResultDoc),
    /// Queued: the job.
    Queued(Box<Job>),
}

fn err(pointer: &str, code: &str, detail: impl Into<String>) -> FieldError {
    FieldError::new(pointer, code, detail)
}

/// The colour maps index previews and tiles accept.
pub fn colormap(name: &str) -> Option<ColorRamp> {
    serde_json::from_value(json!(name.to_ascii_lowercase())).ok()
}

fn default_colormap(index: &str) -> &'static str {
    match index {
        "ndwi" | "ndmi" => "rdbu",
        _ => "rdylgn",
    }
}

/// Parses an area member: `{"bbox": [...], "crs": "..."}` or `{"geometry": {...}, "crs": "..."}`,
/// or a bare box array, or a bare GeoJSON geometry.
pub fn parse_area(v: &Value, pointer: &str) -> std::result::Result<Area, Vec<FieldError>> {
    let crs_text = v.get("crs").and_then(Value::as_str).unwrap_or("http://www.opengis.net/def/crs/OGC/1.3/CRS84");
    let crs = Crs::parse(crs_text).map_err(|e| vec![err(&format!("{pointer}/crs"), "unsupported_crs", e)])?;
    let epsg = crs.epsg();
    let bbox_value = if v.is_array() { Some(v) } else { v.get("bbox") };
    if let Some(b) = bbox_value {
        let nums: Vec<f64> = b.as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default();
        if nums.len() != 4 || b.as_array().map(Vec::len) != Some(4) || nums[0] >= nums[2] || nums[1] >= nums[3] {
            return Err(vec![err(
                &format!("{pointer}/bbox"),
                "invalid_bbox",
                "a box is [min x, min y, max x, max y] with min < max",
            )]);
        }
        let mut bbox = [nums[0], nums[1], nums[2], nums[3]];
        if crs.lat_first() {
            bbox = [bbox[1], bbox[0], bbox[3], bbox[2]];
        }
        return Ok(Area { epsg, bbox, polygon: None });
    }
    let geometry = if v.get("type").is_some() { Some(v) } else { v.get("geometry") };
    let Some(g) = geometry else {
        return Err(vec![err(
            pointer,
            "invalid_area",
            "an area is {\"bbox\": [...]} or {\"geometry\": {...}}, with an optional \"crs\"",
        )]);
    };
    let geographic = epsg == 4326;
    let parsed = fgeom::parse(g, &format!("{pointer}/geometry"), Rules { areal_only: true, geographic })?;
    let mut rings: Vec<Vec<Vec<[f64; 2]>>> = Vec::new();
    let swap = crs.lat_first();
    let ring = |ls: &geo::LineString<f64>| -> Vec<[f64; 2]> {
        ls.coords().map(|c| if swap { [c.y, c.x] } else { [c.x, c.y] }).collect()
    };
    let mut push = |p: &geo::Polygon<f64>| {
        let mut r = vec![ring(p.exterior())];
        r.extend(p.interiors().iter().map(ring));
        rings.push(r);
    };
    match &parsed.geo {
        geo::Geometry::Polygon(p) => push(p),
        geo::Geometry::MultiPolygon(mp) => mp.0.iter().for_each(&mut push),
        _ => {
            return Err(vec![err(
                &format!("{pointer}/geometry"),
                "invalid_geometry",
                "the area is a Polygon or MultiPolygon",
            )])
        }
    }
    let mut b = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    for poly in &rings {
        for p in &poly[0] {
            b = [b[0].min(p[0]), b[1].min(p[1]), b[2].max(p[0]), b[3].max(p[1])];
        }
    }
    Ok(Area { epsg, bbox: b, polygon: Some(rings) })
}

/// The pieces of a request before the scene is looked at.
struct Request {
    scene: String,
    index: String,
    expression: Expression,
    bands: BTreeMap<String, String>,
    area: Option<Area>,
    png: bool,
    colormap: String,
    rescale: (f64, f64),
    zones: Option<ZonesSpec>,
    asynchronous: Option<bool>,
}

fn parse_request(path_index: &str, body: &Value) -> std::result::Result<Request, Vec<FieldError>> {
    let Some(obj) = body.as_object() else {
        return Err(vec![err("", "invalid_type", "a computation is a JSON object")]);
    };
    let mut errors = Vec::new();
    for k in obj.keys() {
        if !matches!(
            k.as_str(),
            "scene" | "index" | "expression" | "bands" | "area" | "bbox" | "geometry" | "output" | "zones" | "async"
        ) {
            errors.push(err(&format!("/{k}"), "unknown_field", format!("unknown member {k}")));
        }
    }
    let scene = match obj.get("scene").and_then(Value::as_str) {
        Some(s) if !s.is_empty() => s.to_owned(),
        _ => {
            errors.push(err("/scene", "required", "name the scene: `collection/item` or an item id"));
            String::new()
        }
    };
    let index = path_index.to_ascii_lowercase();
    if let Some(i) = obj.get("index").and_then(Value::as_str) {
        if !i.eq_ignore_ascii_case(&index) {
            errors.push(err("/index", "index_mismatch", format!("the path computes {index}, the body names {i}")));
        }
    }
    let expression = parse_expression(obj, &index, &mut errors);
    let bands = parse_bands(obj, &mut errors);
    let area = parse_request_area(obj, body, &mut errors);
    let (formats, colormap, rescale) = parse_output(obj, &index, &mut errors);
    let zones = parse_zones(obj, &mut errors);
    let asynchronous = match obj.get("async") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => {
            errors.push(err("/async", "invalid_type", "async is true or false"));
            None
        }
    };
    match (errors.is_empty(), expression) {
        (true, Some(expression)) => Ok(Request {
            scene,
            index,
            expression,
            bands,
            area,
            png: formats.iter().any(|f| f == "png"),
            colormap,
            rescale,
            zones,
            asynchronous,
        }),
        _ => Err(errors),
    }
}

/// The expression: the path's named index, or the body's `expression` on the `expression` path.
fn parse_expression(obj: &Map<String, Value>, index: &str, errors: &mut Vec<FieldError>) -> Option<Expression> {
    let text = match (index, obj.get("expression")) {
        ("expression", Some(Value::String(e))) => Some(e.clone()),
        ("expression", _) => {
            errors.push(err(
                "/expression",
                "required",
                "POST /eo/compute/expression needs an `expression` over asset keys or band names",
            ));
            None
        }
        (name, None) => match expr::named_index(name) {
            Some(e) => Some(e.to_owned()),
            None => {
                errors.push(err(
                    "/index",
                    "unknown_index",
                    format!("unknown index {name}; known: {}, or `expression`", expr::NAMED.join(", ")),
                ));
                None
            }
        },
        (_, Some(_)) => {
            errors.push(err("/expression", "not_allowed", "an expression goes to /eo/compute/expression"));
            None
        }
    };
    match text.as_deref().map(Expression::parse) {
        Some(Ok(e)) => Some(e),
        Some(Err(e)) => {
            errors.push(err("/expression", "invalid_expression", e.to_string()));
            None
        }
        None => None,
    }
}

/// `bands`: band names to asset keys.
fn parse_bands(obj: &Map<String, Value>, errors: &mut Vec<FieldError>) -> BTreeMap<String, String> {
    let mut bands = BTreeMap::new();
    match obj.get("bands") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            for (k, v) in m {
                match v.as_str() {
                    Some(a) => {
                        bands.insert(k.clone(), a.to_owned());
                    }
                    None => errors.push(err(
                        &format!("/bands/{k}"),
                        "invalid_type",
                        "a band maps to an asset key (a string)",
                    )),
                }
            }
        }
        Some(_) => {
            errors.push(err("/bands", "invalid_type", "`bands` maps band names to asset keys, e.g. {\"red\": \"B7\"}"))
        }
    }
    bands
}

/// The area: `area`, or `bbox`/`geometry` at the top level.
fn parse_request_area(obj: &Map<String, Value>, body: &Value, errors: &mut Vec<FieldError>) -> Option<Area> {
    let area_value =
        obj.get("area").or_else(|| obj.get("bbox").map(|_| body)).or_else(|| obj.get("geometry").map(|_| body));
    match area_value {
        None | Some(Value::Null) => None,
        Some(v) => {
            let target = if std::ptr::eq(v, body) {
                let mut m = Map::new();
                for k in ["bbox", "geometry"] {
                    if let Some(x) = obj.get(k) {
                        m.insert(k.into(), x.clone());
                    }
                }
                Value::Object(m)
            } else {
                v.clone()
            };
            match parse_area(&target, "/area") {
                Ok(a) => Some(a),
                Err(mut e) => {
                    errors.append(&mut e);
                    None
                }
            }
        }
    }
}

/// `output`: the formats, the colour map and the rescale range.
fn parse_output(
    obj: &Map<String, Value>,
    index: &str,
    errors: &mut Vec<FieldError>,
) -> (Vec<String>, String, (f64, f64)) {
    let output = obj.get("output").cloned().unwrap_or(Value::Null);
    let formats: Vec<String> = match output.get("formats") {
        None => vec!["cog".into(), "png".into()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_ascii_lowercase).collect(),
        Some(_) => {
            errors.push(err("/output/formats", "invalid_type", "formats is an array: [\"cog\", \"png\"]"));
            Vec::new()
        }
    };
    for f in &formats {
        if f != "cog" && f != "png" {
            errors.push(err("/output/formats", "unknown_format", format!("{f}: the formats are cog and png")));
        }
    }
    let colormap =
        output.get("colormap").and_then(Value::as_str).unwrap_or(default_colormap(index)).to_ascii_lowercase();
    if colormap_of(&colormap).is_none() {
        errors.push(err(
            "/output/colormap",
            "unknown_colormap",
            format!("{colormap}: one of {}", ColorRamp::NAMES.join(", ")),
        ));
    }
    let rescale = match output.get("rescale") {
        None => (-1.0, 1.0),
        Some(Value::Array(a)) if a.len() == 2 && a.iter().all(Value::is_number) => {
            let (lo, hi) = (a[0].as_f64().unwrap_or(0.0), a[1].as_f64().unwrap_or(0.0));
            if lo < hi {
                (lo, hi)
            } else {
                errors.push(err("/output/rescale", "invalid_range", "rescale is [min, max] with min < max"));
                (-1.0, 1.0)
            }
        }
        Some(_) => {
            errors.push(err("/output/rescale", "invalid_range", "rescale is [min, max]"));
            (-1.0, 1.0)
        }
    };
    (formats, colormap, rescale)
}

/// `zones`: the feature collection and filter of zonal statistics.
fn parse_zones(obj: &Map<String, Value>, errors: &mut Vec<FieldError>) -> Option<ZonesSpec> {
    match obj.get("zones") {
        None | Some(Value::Null) => None,
        Some(Value::Object(z)) => {
            let collection = z.get("collection").and_then(Value::as_str).unwrap_or("parcels").to_owned();
            let (filter, filter_json) = match z.get("filter") {
                None | Some(Value::Null) => (None, None),
                Some(Value::String(t)) => match cql2::parse_text_with(t, &cql2::Limits::default()) {
                    Ok(_) => (Some(t.clone()), None),
                    Err(e) => {
                        errors.push(err("/zones/filter", "invalid_filter", e.0));
                        (None, None)
                    }
                },
                Some(v) => match cql2::parse_json_with(v, &cql2::Limits::default()) {
                    Ok(_) => (None, Some(v.clone())),
                    Err(e) => {
                        errors.push(err("/zones/filter", "invalid_filter", e.0));
                        (None, None)
                    }
                },
            };
            let all_touched = match z.get("all_touched") {
                None => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    errors.push(err("/zones/all_touched", "invalid_type", "all_touched is true or false"));
                    false
                }
            };
            Some(ZonesSpec { collection, filter, filter_json, all_touched })
        }
        Some(_) => {
            errors.push(err("/zones", "invalid_type", "zones is {\"collection\": \"parcels\", \"filter\": \"...\"}"));
            None
        }
    }
}

fn colormap_of(name: &str) -> Option<ColorRamp> {
    colormap(name)
}

/// The common name of each asset's first band (`eo:bands`), by asset key.
fn common_names(item: &EoItem) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(assets) = item.body.get("assets").and_then(Value::as_object) {
        for (k, a) in assets {
            if let Some(cn) = a.pointer("/eo:bands/0/common_name").and_then(Value::as_str) {
                out.push((cn.to_ascii_lowercase(), k.clone()));
            }
        }
    }
    out
}

/// Maps each variable of the expression to an asset key: an asset key itself, a name given in
/// `bands`, or the common name of an asset's band.
fn resolve_bands(
    item: &EoItem,
    expr: &Expression,
    given: &BTreeMap<String, String>,
) -> std::result::Result<(Expression, BTreeMap<String, String>), Vec<FieldError>> {
    let assets: Vec<String> =
        item.body.get("assets").and_then(Value::as_object).map(|m| m.keys().cloned().collect()).unwrap_or_default();
    let names = common_names(item);
    let mut errors = Vec::new();
    for (k, a) in given {
        if !assets.contains(a) {
            errors.push(err(
                &format!("/bands/{k}"),
                "unknown_asset",
                format!("the scene has no asset {a}; it has {}", assets.join(", ")),
            ));
        }
    }
    let mut used = BTreeMap::new();
    for v in expr.variables() {
        let key = if let Some(a) = given.get(v) {
            Some(a.clone())
        } else if assets.contains(v) {
            Some(v.clone())
        } else {
            let matches: Vec<&(String, String)> =
                names.iter().filter(|(cn, _)| cn == &v.to_ascii_lowercase()).collect();
            match matches.as_slice() {
                [one] => Some(one.1.clone()),
                [] => None,
                many => {
                    errors.push(err(
                        "/bands",
                        "ambiguous_band",
                        format!(
                            "assets {} all carry {v}; name one in `bands`",
                            many.iter().map(|m| m.1.as_str()).collect::<Vec<_>>().join(", ")
                        ),
                    ));
                    continue;
                }
            }
        };
        match key {
            Some(k) => {
                used.insert(v.clone(), k);
            }
            None => errors.push(err(
                "/bands",
                "unknown_band",
                format!(
                    "the scene has no band {v}: its assets are {} (common names: {}); map it in `bands`, e.g. {{\"{v}\": \"{}\"}}",
                    assets.join(", "),
                    if names.is_empty() { "none".to_owned() } else { names.iter().map(|n| format!("{}={}", n.1, n.0)).collect::<Vec<_>>().join(", ") },
                    assets.first().cloned().unwrap_or_default()
                ),
            )),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let renamed = expr.rename(&|v: &str| used.get(v).cloned());
    Ok((renamed, used))
}

/// [`resolve_bands`] for tiles: the errors as the service's.
pub(crate) fn resolve_bands_for(
    item: &EoItem,
    expr: &Expression,
    given: &BTreeMap<String, String>,
) -> Result<(Expression, BTreeMap<String, String>)> {
    resolve_bands(item, expr, given).map_err(|e| Error::Domain(DomainError::Invalid(e)))
}

impl EoService {
    /// Checks a computation of `index` (`ndvi`, `ndwi`, ..., or `expression`) completely, then
    /// runs it now (small areas) or queues it.
    pub async fn compute(&self, account: &AccountId, index: &str, body: &Value) -> Result<Computed> {
        let req = parse_request(index, body).map_err(DomainError::Invalid)?;
        let item = self.scene(account, &req.scene).await.map_err(|e| match e {
            Error::Domain(DomainError::NotFound { .. }) => Error::Domain(DomainError::invalid(
                "/scene",
                "unknown_scene",
                format!("no scene {} in this account", req.scene),
            )),
            other => other,
        })?;
        let (expression, bands) = resolve_bands(&item, &req.expression, &req.bands).map_err(DomainError::Invalid)?;
        // Every input is a GeoTIFF (stored, or on a server the guard lets through) on one grid.
        let mut assets = Vec::new();
        for v in expression.variables() {
            assets.push((v.clone(), self.asset_source(account, &item, v).await?));
        }
        let opened = self.open_assets(&assets).await?;
        let grid = {
            let bands: Vec<Band<'_>> = opened.iter().map(|t| Band { tiff: t, band: 0 }).collect();
            bandmath::check_grid(&bands).map_err(|m| DomainError::invalid("/bands", "mismatched_grids", m))?
        };
        let epsg = grid
            .epsg
            .ok_or_else(|| DomainError::invalid("/scene", "no_crs", "the scene's rasters name no EPSG code"))?;
        let window = match &req.area {
            None => Window::new(0, 0, grid.width, grid.height),
            Some(a) => {
                let b = area_in(a, epsg).map_err(|e| DomainError::invalid("/area", "unsupported_crs", e))?;
                bandmath::window_of_bbox(&grid, b)
                    .ok_or_else(|| DomainError::invalid("/area", "outside_scene", "the area does not meet the scene"))?
            }
        };
        if let Some(z) = &req.zones {
            self.features.collection(account, &z.collection).await.map_err(|_| {
                DomainError::invalid(
                    "/zones/collection",
                    "unknown_collection",
                    format!("no feature collection {}", z.collection),
                )
            })?;
        }
        let pixels = window.width as u64 * window.height as u64;
        let sync = match req.asynchronous {
            Some(true) => false,
            Some(false) if pixels > self.config.sync_pixels.saturating_mul(4) => {
                return Err(DomainError::invalid(
                    "/async",
                    "too_large_for_sync",
                    format!(
                    "{pixels} pixels is more than an immediate answer computes (4 × eo.sync_pixels); leave async out"
                ),
                )
                .into())
            }
            Some(false) => true,
            None => pixels <= self.config.sync_pixels,
        };
        let id =
            format!("eoc_{}", meridian_core::id::JobId::generate().0.trim_start_matches("job_").to_ascii_lowercase());
        let plan = Plan {
            id,
            collection: item.collection.clone(),
            item: item.id.clone(),
            index: req.index.clone(),
            expression: expression.to_string(),
            assets,
            bands,
            epsg,
            window: [window.x, window.y, window.width as i64, window.height as i64],
            area: req.area,
            png: req.png,
            colormap: req.colormap,
            rescale: req.rescale,
            zones: req.zones,
        };
        if sync {
            let never = || false;
            return Ok(Computed::Done(self.run_plan(account, &plan, &never, &|_| {}).await?));
        }
        let job = NewJob {
            account_id: account.clone(),
            kind: COMPUTE_JOB.to_owned(),
            params: serde_json::to_value(&plan).map_err(|e| Error::Internal(e.to_string()))?,
            max_attempts: self.max_attempts,
        };
        Ok(Computed::Queued(Box::new(self.store.jobs.submit(job).await?)))
    }

    async fn open_assets(&self, assets: &[(String, String)]) -> Result<Vec<Arc<GeoTiff>>> {
        let mut out = Vec::with_capacity(assets.len());
        for (_, key) in assets {
            out.push(self.open_asset(key).await?);
        }
        Ok(out)
    }

    /// Where an item's asset is read from: its blob key when Meridian stores it, else its
    /// http(s) URL once the SSRF guard accepts it.
    pub(crate) async fn asset_source(&self, account: &AccountId, item: &EoItem, asset: &str) -> Result<String> {
        let href = item.body.pointer(&format!("/assets/{asset}/href")).and_then(Value::as_str).unwrap_or("");
        if href == crate::service::asset_href(&item.collection, &item.id, asset) {
            // The item's row and version after the `#` name this copy of the file in the kept
            // open assets: an item stored again under the same id (through any node) is a new key.
            let key = keys::asset(account, &item.collection, &item.id, asset);
            return Ok(format!("{key}#{}.{}", item.seq, item.version));
        }
        let url = self.policy.check_url_resolved(href).await.map_err(|e| {
            DomainError::invalid(format!("/bands/{asset}"), "forbidden_address", format!("asset {asset} ({href}): {e}"))
        })?;
        Ok(url.to_string())
    }

    /// Opens an asset, stored or remote (kept open for later computations).
    pub(crate) async fn open_asset(&self, key: &str) -> Result<Arc<GeoTiff>> {
        self.open_asset_as(key, false).await
    }

    /// Opens an asset for tiles: its chunks are kept in the block cache (`eo.block_cache_bytes`).
    pub(crate) async fn open_tile_asset(&self, key: &str) -> Result<Arc<GeoTiff>> {
        self.open_asset_as(key, self.block_cache.is_some()).await
    }

    async fn open_asset_as(&self, key: &str, cached: bool) -> Result<Arc<GeoTiff>> {
        // The cached reader is kept under its own entry; the suffix keeps `forget_opened`'s
        // prefix match working for both.
        let entry = if cached { format!("{key}\u{0}tiles") } else { key.to_owned() };
        if let Some(t) = self.opened.get(entry.as_str()) {
            return Ok(t);
        }
        let limits = self.raster_limits();
        let handle = tokio::runtime::Handle::current();
        let remote = key.starts_with("https://") || key.starts_with("http://");
        // A stored asset's key carries its item's version after a `#` (see `asset_source`).
        let blob_key = if remote { key } else { key.rsplit_once('#').map_or(key, |(k, _)| k) };
        let t = if remote {
            let file = crate::remote::open(self.remote.clone(), key, handle)
                .await
                .map_err(|e| DomainError::invalid("/bands", "unreadable_asset", e))?;
            tokio::task::spawn_blocking(move || GeoTiff::from_source_with(Box::new(file), limits))
                .await
                .map_err(|e| Error::Internal(e.to_string()))?
                .map_err(|e| DomainError::invalid("/bands", "not_a_geotiff", e.to_string()))?
        } else {
            let blobs = self.blobs().clone();
            let k = blob_key.to_owned();
            tokio::task::spawn_blocking(move || meridian_dem::blobs::open_geotiff(&blobs, &k, &handle, limits))
                .await
                .map_err(|e| Error::Internal(e.to_string()))??
        };
        let t = match (&self.block_cache, cached) {
            (Some(cache), true) => t.with_block_cache(cache.clone()),
            _ => t,
        };
        let t = Arc::new(t);
        self.opened.insert(entry, t.clone());
        Ok(t)
    }

    /// Forgets opened files under `prefix` (their item was deleted).
    pub(crate) fn forget_opened(&self, prefix: &str) {
        self.opened.retain(|k, _| !k.starts_with(prefix));
    }

    /// Runs a checked plan: the COG, its statistics, the preview, the zones; stores the outputs
    /// and the result document.
    pub(crate) async fn run_plan(
        &self,
        account: &AccountId,
        plan: &Plan,
        interrupted: &(dyn Fn() -> bool + Sync),
        progress: &(dyn Fn(u8) + Sync),
    ) -> Result<ResultDoc> {
        let opened = self.open_assets(&plan.assets).await?;
        let expression = Expression::parse(&plan.expression).map_err(|e| Error::Internal(e.to_string()))?;
        let dir = self.staging_dir()?.to_path_buf();
        let work = tempfile::tempdir_in(&dir)?;
        let cog = work.path().join("index.tif");
        let png = work.path().join("preview.png");
        let window = Window::new(plan.window[0], plan.window[1], plan.window[2] as usize, plan.window[3] as usize);
        let area_rings = match &plan.area {
            Some(Area { polygon: Some(rings), epsg, .. }) => {
                Some(rings_in(rings, *epsg, plan.epsg).map_err(Error::Internal)?)
            }
            _ => None,
        };
        let ramp = colormap_of(&plan.colormap).unwrap_or(ColorRamp::Viridis);
        let rescale = plan.rescale;
        let want_png = plan.png;
        let stats: Statistics = {
            let cog = cog.clone();
            let png = png.clone();
            let opened = opened.clone();
            let expression = expression.clone();
            // Runs on this thread pool's blocking side; the closures only read.
            tokio::task::block_in_place(|| -> Result<Statistics> {
                let bands: Vec<Band<'_>> = opened.iter().map(|t| Band { tiff: t, band: 0 }).collect();
                let stats = match &area_rings {
                    None => bandmath::compute_to_cog(&expression, &bands, window, &cog, interrupted, progress)?,
                    Some(rings) => {
                        let mut raster = bandmath::compute(&expression, &bands, window, interrupted)?;
                        mask_outside(&mut raster.data, raster.width, raster.height, &raster.geo_transform, rings);
                        meridian_raster::tiff::write_raster_cog(&raster, &cog, &index_cog_options())?;
                        bandmath::statistics(&raster)
                    }
                };
                if want_png {
                    let tiff = GeoTiff::open(&cog)?;
                    let bytes = bandmath::preview_png(&tiff, ramp, rescale, 1024)?;
                    std::fs::write(&png, bytes)?;
                }
                Ok(stats)
            })?
        };
        let tiff = GeoTiff::open(&cog)?;
        let gt = tiff.geo_transform();
        let (w, h) = (tiff.width(), tiff.height());
        let bbox = TileRenderer::new(&tiff)?.bounds_wgs84()?.map(|v| (v * 1e7).round() / 1e7);
        let zones = match &plan.zones {
            None => None,
            Some(z) => Some(self.zones(account, z, &tiff, plan.epsg, bbox).await?),
        };
        let prefix = keys::result(account, &plan.id);
        let mut outputs = Vec::new();
        let size = self.blobs().move_file_in(&format!("{prefix}/index.tif"), &cog).await?;
        outputs.push(json!({"name": "index.tif", "href": format!("{}/outputs/index.tif", result_path(&plan.id)), "type": COG_TYPE, "size": size, "roles": ["data"]}));
        if plan.png {
            let size = self.blobs().move_file_in(&format!("{prefix}/preview.png"), &png).await?;
            outputs.push(json!({"name": "preview.png", "href": format!("{}/outputs/preview.png", result_path(&plan.id)), "type": "image/png", "size": size, "roles": ["overview"]}));
        }
        let doc = json!({
            "id": plan.id,
            "scene": format!("{}/{}", plan.collection, plan.item),
            "index": plan.index,
            "expression": plan.expression,
            "bands": plan.bands,
            "crs": format!("EPSG:{}", plan.epsg),
            "width": w,
            "height": h,
            "geo_transform": gt.0,
            "bbox": bbox,
            "nodata": bandmath::NODATA,
            "statistics": stats,
            "outputs": outputs,
            "tiles": format!("{}/tiles/{{z}}/{{x}}/{{y}}.png?colormap={}&rescale={},{}", result_path(&plan.id), plan.colormap, plan.rescale.0, plan.rescale.1),
            "zones": zones,
            "created_at": Timestamp::now(),
        });
        self.blobs().put_json(&format!("{prefix}/result.json"), &doc).await?;
        Ok(doc)
    }

    /// Zonal statistics of the index over the features of `spec` that meet `bbox` (WGS84).
    async fn zones(
        &self,
        account: &AccountId,
        spec: &ZonesSpec,
        tiff: &GeoTiff,
        epsg: u16,
        bbox: [f64; 4],
    ) -> Result<Value> {
        let filter: Option<Expr> = match (&spec.filter, &spec.filter_json) {
            (Some(t), _) => Some(cql2::parse_text_with(t, &cql2::Limits::default()).map_err(|e| Error::Internal(e.0))?),
            (None, Some(j)) => {
                Some(cql2::parse_json_with(j, &cql2::Limits::default()).map_err(|e| Error::Internal(e.0))?)
            }
            _ => None,
        };
        let max = self.config.max_zones;
        let mut q = ListQuery {
            collection: spec.collection.clone(),
            bbox: Some(fgeom::Bbox { min_x: bbox[0], min_y: bbox[1], max_x: bbox[2], max_y: bbox[3] }),
            filter,
            limit: max.min(meridian_collections::query::MAX_LIMIT),
            ..ListQuery::default()
        };
        let mut features = Vec::new();
        loop {
            let mut page = self.features.list(account, &q).await?;
            features.extend(page.take_features()?);
            if features.len() as u64 > u64::from(max) {
                return Err(DomainError::invalid(
                    "/zones",
                    "too_many_zones",
                    format!("more than {max} features meet the area (eo.max_zones); narrow the filter or the area"),
                )
                .into());
            }
            match page.next {
                Some(c) => q.start = Start::Cursor(c),
                None => break,
            }
        }
        let to_raster = transformer(4326, epsg)?;
        let gt = tiff.geo_transform();
        let (w, h) = (tiff.width(), tiff.height());
        let mut out = Vec::with_capacity(features.len());
        for f in features {
            let Some(g) = f.geometry.as_ref().and_then(fgeom::decode) else { continue };
            let mp = match g {
                geo::Geometry::Polygon(p) => geo::MultiPolygon(vec![p]),
                geo::Geometry::MultiPolygon(mp) => mp,
                _ => continue,
            };
            let failed = std::cell::Cell::new(false);
            let projected = geo::MapCoords::map_coords(&mp, |c| match to_raster.apply(c.x, c.y) {
                Some((x, y)) => geo::Coord { x, y },
                None => {
                    failed.set(true);
                    c
                }
            });
            let stats = if failed.get() {
                ZoneStats::default()
            } else {
                match zonal::pixel_window(&gt, w, h, &projected) {
                    None => ZoneStats::default(),
                    Some(win) => {
                        let values = tiff.read_window::<f32>(0, 0, win, bandmath::NODATA)?;
                        let wgt = gt.shifted(win.x as f64, win.y as f64);
                        zonal::zonal_stats(
                            &values,
                            win.width,
                            win.height,
                            &wgt,
                            Some(bandmath::NODATA),
                            &projected,
                            spec.all_touched,
                        )
                    }
                }
            };
            let mut props = f.properties.clone();
            let s = serde_json::to_value(&stats).map_err(|e| Error::Internal(e.to_string()))?;
            if let Some(m) = s.as_object() {
                for (k, v) in m {
                    props.insert(k.clone(), v.clone());
                }
            }
            out.push(json!({"type": "Feature", "id": f.id, "geometry": f.geometry, "properties": props}));
        }
        Ok(json!({"type": "FeatureCollection", "features": out}))
    }

    /// A stored result document.
    pub async fn result(&self, account: &AccountId, id: &str) -> Result<ResultDoc> {
        if !id.starts_with("eoc_") || !stac::valid_id(id) {
            return Err(DomainError::not_found("result", id).into());
        }
        self.blobs()
            .get_json::<Value>(&format!("{}/result.json", keys::result(account, id)))
            .await?
            .ok_or_else(|| DomainError::not_found("result", id).into())
    }
}

/// COG options of index outputs: Float32, deflate with the float predictor, averaged overviews.
pub fn index_cog_options() -> meridian_raster::tiff::CogOptions {
    meridian_raster::tiff::CogOptions { tile_size: 512, level: 6, predictor: true, overviews: true, average: true }
}

/// The area's box in the raster's CRS (the corners and edge points transformed).
fn area_in(a: &Area, epsg: u16) -> std::result::Result<[f64; 4], String> {
    if a.epsg == epsg {
        return Ok(a.bbox);
    }
    let t = transformer(a.epsg, epsg).map_err(|e| e.to_string())?;
    let mut pts = Vec::new();
    for i in 0..=8 {
        let f = i as f64 / 8.0;
        let x = a.bbox[0] + (a.bbox[2] - a.bbox[0]) * f;
        let y = a.bbox[1] + (a.bbox[3] - a.bbox[1]) * f;
        pts.extend([(x, a.bbox[1]), (x, a.bbox[3]), (a.bbox[0], y), (a.bbox[2], y)]);
    }
    t.apply_in_place(&mut pts);
    let mut b = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    for (x, y) in pts.into_iter().filter(|p| p.0.is_finite() && p.1.is_finite()) {
        b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
    }
    if b[0].is_finite() {
        Ok(b)
    } else {
        Err("the area cannot be placed in the scene's CRS".into())
    }
}

fn rings_in(polys: &[Vec<Vec<[f64; 2]>>], from: u16, to: u16) -> std::result::Result<geo::MultiPolygon<f64>, String> {
    let t = if from == to { None } else { Some(transformer(from, to).map_err(|e| e.to_string())?) };
    let ring = |r: &Vec<[f64; 2]>| -> std::result::Result<geo::LineString<f64>, String> {
        let mut pts: Vec<(f64, f64)> = r.iter().map(|p| (p[0], p[1])).collect();
        if let Some(t) = &t {
            if t.apply_in_place(&mut pts) > 0 {
                return Err("the area cannot be placed in the scene's CRS".into());
            }
        }
        Ok(geo::LineString::from(pts))
    };
    let mut out = Vec::new();
    for p in polys {
        let Some((outer, holes)) = p.split_first() else { continue };
        out.push(geo::Polygon::new(ring(outer)?, holes.iter().map(ring).collect::<std::result::Result<_, _>>()?));
    }
    Ok(geo::MultiPolygon(out))
}

/// Sets pixels whose centre lies outside `area` to nodata (even-odd rule per row).
fn mask_outside(data: &mut [f32], width: usize, height: usize, gt: &GeoTransform, area: &geo::MultiPolygon<f64>) {
    let Some(inv) = gt.invert() else { return };
    // Edges in pixel space.
    let mut edges = Vec::new();
    for p in &area.0 {
        for ls in std::iter::once(p.exterior()).chain(p.interiors()) {
            for w in ls.0.windows(2) {
                let a = inv.apply(w[0].x, w[0].y);
                let b = inv.apply(w[1].x, w[1].y);
                edges.push((a, b));
            }
        }
    }
    let mut xs = Vec::new();
    for r in 0..height {
        let y = r as f64 + 0.5;
        xs.clear();
        for &((x0, y0), (x1, y1)) in &edges {
            if (y0 <= y && y1 > y) || (y1 <= y && y0 > y) {
                xs.push(x0 + (y - y0) / (y1 - y0) * (x1 - x0));
            }
        }
        xs.sort_by(f64::total_cmp);
        let row = &mut data[r * width..(r + 1) * width];
        let mut inside_from = Vec::new();
        for pair in xs.chunks(2) {
            if let [a, b] = pair {
                inside_from.push((*a, *b));
            }
        }
        for (c, v) in row.iter_mut().enumerate() {
            let x = c as f64 + 0.5;
            if !inside_from.iter().any(|(a, b)| x >= *a && x < *b) {
                *v = bandmath::NODATA;
            }
        }
    }
}

/// Runs queued computations.
pub struct ComputeJobHandler {
    service: Arc<EoService>,
}

impl ComputeJobHandler {
    /// A handler over the service.
    pub fn new(service: Arc<EoService>) -> Self {
        Self { service }
    }
}

#[async_trait]
impl JobHandler for ComputeJobHandler {
    fn kind(&self) -> &'static str {
        COMPUTE_JOB
    }

    async fn run(&self, ctx: &JobContext) -> std::result::Result<JobOutcome, JobError> {
        let plan: Plan = serde_json::from_value(ctx.job.params.clone())
            .map_err(|e| JobError::internal(format!("the job's parameters cannot be read: {e}")))?;
        let cancel = ctx.cancellation();
        let interrupted = move || cancel.is_cancelled();
        let progress = |p: u8| ctx.set_progress(p.min(99));
        match self.service.run_plan(&ctx.job.account_id, &plan, &interrupted, &progress).await {
            Ok(doc) => {
                ctx.set_progress(100);
                Ok(JobOutcome { output: doc, event: None })
            }
            Err(_) if ctx.is_cancelled() => Err(JobError::Cancelled),
            Err(Error::Domain(d)) => Err(JobError::invalid(d.to_string())),
            Err(Error::Raster(e)) => Err(JobError::invalid(e.to_string())),
            Err(e) => Err(JobError::internal(e)),
        }
    }
}
