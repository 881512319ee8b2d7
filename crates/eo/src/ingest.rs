//! Scenes uploaded with their files: each file part is checked as a GeoTIFF before anything is
//! stored, and the item is completed from the files (footprint of the valid data in WGS84,
//! `bbox`, `proj:*`, `raster:bands` with statistics, asset types and hrefs). Cloud Optimized
//! GeoTIFFs are stored as they are and the item is published at once; other GeoTIFFs are staged
//! and an `eo.ingest` job converts them to COG, derives the item and publishes it.

use crate::service::{asset_href, keys, Error, Result};
use crate::stac::{self, check_item, COG_TYPE, EO_EXTENSION, PROJ_EXTENSION, RASTER_EXTENSION};
use crate::EoService;
use async_trait::async_trait;
use geo::{ConvexHull, Coord, MultiPoint, Point};
use meridian_core::error::FieldError;
use meridian_core::id::AccountId;
use meridian_core::problem::{code, Problem};
use meridian_core::DomainError;
use meridian_jobs::{JobContext, JobError, JobHandler, JobOutcome};
use meridian_raster::crs::transformer;
use meridian_raster::tiff::{write_cog_with_progress, CogOptions, GeoTiff, Limits};
use meridian_raster::{DataType, Window};
use meridian_store::eo::EoItem;
use meridian_store::model::{Job, NewJob};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The job kind that converts staged uploads to COG and publishes the item.
pub const INGEST_JOB: &str = "eo.ingest";

/// A file part of an upload, staged on local disk.
#[derive(Clone, Debug)]
pub struct UploadedAsset {
    /// The asset key (the part's name).
    pub key: String,
    pub path: PathBuf,
    pub filename: Option<String>,
}

/// What an upload became.
#[derive(Debug)]
pub enum Ingested {
    /// Published now.
    Item(EoItem),
    /// Being converted; the item is published when the job succeeds.
    Job(Box<Job>),
}

/// What was found in one asset file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AssetFacts {
    pub key: String,
    pub cog: bool,
    pub epsg: u16,
    pub width: usize,
    pub height: usize,
    pub geo_transform: [f64; 6],
    pub data_type: String,
    pub nodata: Option<f64>,
    /// Per band: minimum, maximum, mean, stddev, valid_percent.
    pub statistics: Vec<[f64; 5]>,
    /// The valid-data outline in WGS84 (a closed ring), when there is valid data.
    pub footprint: Option<Vec<[f64; 2]>>,
    pub size: u64,
}

fn data_type_name(t: DataType) -> &'static str {
    match t {
        DataType::UInt8 => "uint8",
        DataType::Int8 => "int8",
        DataType::UInt16 => "uint16",
        DataType::Int16 => "int16",
        DataType::UInt32 => "uint32",
        DataType::Int32 => "int32",
        DataType::Float32 => "float32",
        DataType::Float64 => "float64",
    }
}

/// Whether a GeoTIFF is laid out as a COG: tiled, with overviews once it is larger than a tile.
fn is_cog(t: &GeoTiff) -> bool {
    let im = t.image();
    im.tiled && (t.images().len() > 1 || (im.width <= im.chunk_width && im.height <= im.chunk_height))
}

/// The image level with at most `max` pixels on its longer side (the smallest when none is).
fn level_for(t: &GeoTiff, max: usize) -> usize {
    let mut best = t.images().len() - 1;
    for (i, im) in t.images().iter().enumerate() {
        if im.width.max(im.height) <= max {
            best = i;
            break;
        }
    }
    best
}

/// Reads what the item needs from one file. Blocking.
pub fn inspect(key: &str, path: &Path, limits: Limits) -> std::result::Result<AssetFacts, FieldError> {
    let pointer = format!("/assets/{key}");
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let t = GeoTiff::open_with(path, limits).map_err(|e| {
        FieldError::new(&pointer, "not_a_geotiff", format!("the file is not a GeoTIFF we can read: {e}"))
    })?;
    let epsg = t
        .epsg()
        .ok_or_else(|| FieldError::new(&pointer, "no_crs", "the GeoTIFF names no EPSG coordinate reference system"))?;
    let to_wgs84 = transformer(epsg, 4326).map_err(|e| FieldError::new(&pointer, "unsupported_crs", e.to_string()))?;
    let level = level_for(&t, 1024);
    let im = t.images()[level].clone();
    // Without an overview that small, every `step`-th cell of every `step`-th row is read, a
    // band of rows at a time: memory stays near 64 MiB whatever the file's size.
    let step = im.width.max(im.height).div_ceil(1024).max(1);
    let (ow, oh) = (im.width.div_ceil(step), im.height.div_ceil(step));
    let nodata = t.nodata();
    let mut statistics = Vec::with_capacity(t.bands());
    let mut valid_mask: Option<Vec<bool>> = None;
    for band in 0..t.bands() {
        let data = read_decimated(&t, level, band, step)
            .map_err(|e| FieldError::new(&pointer, "unreadable", format!("band {}: {e}", band + 1)))?;
        let valid = |v: f64| v.is_finite() && nodata.is_none_or(|nd| v != nd);
        let (mut n, mut sum, mut sum2, mut lo, mut hi) = (0u64, 0.0f64, 0.0f64, f64::INFINITY, f64::NEG_INFINITY);
        for &v in &data {
            if valid(v) {
                n += 1;
                sum += v;
                sum2 += v * v;
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        let mean = if n > 0 { sum / n as f64 } else { f64::NAN };
        let std = if n > 0 { (sum2 / n as f64 - mean * mean).max(0.0).sqrt() } else { f64::NAN };
        statistics.push([lo, hi, mean, std, 100.0 * n as f64 / data.len().max(1) as f64]);
        if band == 0 {
            valid_mask = Some(data.iter().map(|&v| valid(v)).collect());
        }
    }
    // The outline: the convex hull of the first and last valid cell of every row.
    let gt = t.geo_transform();
    let (fx, fy) =
        (t.width() as f64 / im.width as f64 * step as f64, t.height() as f64 / im.height as f64 * step as f64);
    let mut corners = Vec::new();
    if let Some(mask) = &valid_mask {
        for r in 0..oh {
            let row = &mask[r * ow..(r + 1) * ow];
            let (Some(a), Some(b)) = (row.iter().position(|v| *v), row.iter().rposition(|v| *v)) else { continue };
            for (c, rr) in [(a, r), (b + 1, r), (a, r + 1), (b + 1, r + 1)] {
                let (x, y) = gt.apply((c as f64 * fx).min(t.width() as f64), (rr as f64 * fy).min(t.height() as f64));
                corners.push(Point::new(x, y));
            }
        }
    }
    let footprint = if corners.is_empty() {
        None
    } else {
        let hull = MultiPoint::from(corners).convex_hull();
        let mut ring: Vec<(f64, f64)> = hull.exterior().coords().map(|c: &Coord<f64>| (c.x, c.y)).collect();
        // Densify the hull's edges so that the outline follows the projection.
        let mut dense = Vec::with_capacity(ring.len() * 8);
        for w in ring.windows(2) {
            for k in 0..8 {
                let f = k as f64 / 8.0;
                dense.push((w[0].0 + (w[1].0 - w[0].0) * f, w[0].1 + (w[1].1 - w[0].1) * f));
            }
        }
        if let Some(first) = ring.first() {
            dense.push(*first);
        }
        ring = dense;
        let failed = to_wgs84.apply_in_place(&mut ring);
        if failed > 0 {
            return Err(FieldError::new(&pointer, "unsupported_crs", "the raster's corners cannot be placed in WGS84"));
        }
        Some(ring.into_iter().map(|(x, y)| [round(x), round(y)]).collect())
    };
    Ok(AssetFacts {
        key: key.to_owned(),
        cog: is_cog(&t),
        epsg,
        width: t.width(),
        height: t.height(),
        geo_transform: gt.0,
        data_type: data_type_name(t.data_type()).to_owned(),
        nodata,
        statistics,
        footprint,
        size,
    })
}

/// Every `step`-th cell of every `step`-th row of a band (all of it when `step` is 1), read in
/// bands of rows of at most about 64 MiB.
fn read_decimated(t: &GeoTiff, level: usize, band: usize, step: usize) -> meridian_raster::Result<Vec<f64>> {
    let im = &t.images()[level];
    if step <= 1 {
        return t.read_window::<f64>(level, band, Window::new(0, 0, im.width, im.height), f64::NAN);
    }
    let (ow, oh) = (im.width.div_ceil(step), im.height.div_ceil(step));
    let rows = ((64usize << 20) / (im.width * 8).max(1) / step).max(1) * step;
    let mut out = Vec::with_capacity(ow * oh);
    let mut y = 0;
    while y < im.height {
        let h = rows.min(im.height - y);
        let block = t.read_window::<f64>(level, band, Window::new(0, y as i64, im.width, h), f64::NAN)?;
        for r in (0..h).step_by(step) {
            out.extend(block[r * im.width..(r + 1) * im.width].iter().step_by(step));
        }
        y += h;
    }
    Ok(out)
}

fn round(v: f64) -> f64 {
    (v * 1e7).round() / 1e7
}

/// STAC `proj:transform`: the affine in rasterio's order (a, b, c, d, e, f).
fn proj_transform(gt: &[f64; 6]) -> [f64; 6] {
    [gt[1], gt[2], gt[0], gt[4], gt[5], gt[3]]
}

fn num(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
}

/// The item part of an upload, completed from the files' facts, as a STAC Item.
pub fn derive_item(part: &Value, collection: &str, facts: &[AssetFacts]) -> Value {
    let mut props: Map<String, Value> = part.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    if let Some(dt) = part.get("datetime") {
        props.entry("datetime").or_insert_with(|| dt.clone());
    }
    let given_assets: Map<String, Value> = part.get("assets").and_then(Value::as_object).cloned().unwrap_or_default();
    let id = part.get("id").and_then(Value::as_str).unwrap_or_default();
    let mut assets = given_assets.clone();
    for f in facts {
        let mut a = given_assets.get(&f.key).and_then(Value::as_object).cloned().unwrap_or_default();
        a.insert("href".into(), json!(asset_href(collection, id, &f.key)));
        a.insert("type".into(), json!(COG_TYPE));
        a.entry("roles").or_insert_with(|| json!(["data"]));
        a.insert("proj:epsg".into(), json!(f.epsg));
        a.insert("proj:shape".into(), json!([f.height, f.width]));
        a.insert("proj:transform".into(), json!(proj_transform(&f.geo_transform)));
        let res = f.geo_transform[1].abs();
        let bands: Vec<Value> = f
            .statistics
            .iter()
            .map(|s| {
                let mut b = json!({
                    "data_type": f.data_type,
                    "spatial_resolution": res,
                    "statistics": {"minimum": num(s[0]), "maximum": num(s[1]), "mean": num(s[2]), "stddev": num(s[3]), "valid_percent": num(s[4])},
                });
                if let Some(nd) = f.nodata {
                    b["nodata"] = num(nd);
                }
                b
            })
            .collect();
        a.insert("raster:bands".into(), Value::Array(bands));
        a.insert("file:size".into(), json!(f.size));
        assets.insert(f.key.clone(), Value::Object(a));
    }
    // Item-level projection when every file shares it.
    if let Some(first) = facts.first() {
        if facts.iter().all(|f| f.epsg == first.epsg) {
            props.insert("proj:epsg".into(), json!(first.epsg));
        }
        if facts
            .iter()
            .all(|f| f.geo_transform == first.geo_transform && f.width == first.width && f.height == first.height)
        {
            props.insert("proj:shape".into(), json!([first.height, first.width]));
            props.insert("proj:transform".into(), json!(proj_transform(&first.geo_transform)));
            if !meridian_raster::crs::is_geographic_epsg(first.epsg) {
                props.entry("gsd").or_insert_with(|| json!(first.geo_transform[1].abs()));
            }
        }
    }
    let footprint = facts.iter().find_map(|f| f.footprint.clone());
    let geometry = footprint.map(|ring| json!({"type": "Polygon", "coordinates": [ring]})).unwrap_or(Value::Null);
    let mut extensions: Vec<Value> = part.get("stac_extensions").and_then(Value::as_array).cloned().unwrap_or_default();
    for e in [PROJ_EXTENSION, RASTER_EXTENSION] {
        if !extensions.iter().any(|x| x == e) {
            extensions.push(json!(e));
        }
    }
    let has_eo = assets.values().any(|a| a.get("eo:bands").is_some()) || props.keys().any(|k| k.starts_with("eo:"));
    if has_eo && !extensions.iter().any(|x| x == EO_EXTENSION) {
        extensions.push(json!(EO_EXTENSION));
    }
    let mut item = json!({
        "type": "Feature",
        "stac_version": stac::STAC_VERSION,
        "stac_extensions": extensions,
        "id": id,
        "collection": collection,
        "geometry": geometry,
        "properties": props,
        "assets": assets,
    });
    if let Some(obj) = part.as_object() {
        for (k, v) in obj {
            if !matches!(
                k.as_str(),
                "type"
                    | "stac_version"
                    | "stac_extensions"
                    | "id"
                    | "collection"
                    | "geometry"
                    | "bbox"
                    | "properties"
                    | "assets"
                    | "links"
                    | "datetime"
            ) {
                item[k] = v.clone();
            }
        }
    }
    item
}

/// Job parameters of an ingest.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct IngestParams {
    collection: String,
    item: Value,
    staging: String,
    assets: Vec<AssetFacts>,
}

impl EoService {
    /// Publishes an uploaded scene: `part` is the `item` part (at least `id`, `datetime`, and
    /// the assets' `eo:bands` when band names matter), `files` the file parts.
    pub async fn ingest(
        &self,
        account: &AccountId,
        collection: &str,
        part: &Value,
        files: Vec<UploadedAsset>,
    ) -> Result<Ingested> {
        self.store
            .eo
            .get_collection(account, collection)
            .await?
            .ok_or_else(|| DomainError::not_found("collection", collection))?;
        let Some(obj) = part.as_object() else {
            return Err(DomainError::invalid("/item", "invalid_type", "the item part is a JSON object").into());
        };
        let mut errors = Vec::new();
        let id = obj.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
        if !stac::valid_id(&id) {
            errors.push(FieldError::new(
                "/item/id",
                "invalid_id",
                "the item needs an `id`: letters, digits, `_`, `-`, `.`, `:`",
            ));
        }
        if files.is_empty() {
            errors.push(FieldError::new("/assets", "required", "send at least one file part, named by its asset key"));
        }
        for f in &files {
            if !stac::valid_id(&f.key) {
                errors.push(FieldError::new(
                    format!("/assets/{}", f.key),
                    "invalid_key",
                    "asset keys are letters, digits, `_`, `-`, `.`, `:`",
                ));
            }
        }
        if let Some(assets) = obj.get("assets").and_then(Value::as_object) {
            for (k, a) in assets {
                let uploaded = files.iter().any(|f| &f.key == k);
                let href = a.get("href").and_then(Value::as_str);
                if !uploaded && !href.is_some_and(|h| h.starts_with("http://") || h.starts_with("https://")) {
                    errors.push(FieldError::new(
                        format!("/item/assets/{k}"),
                        "missing_file",
                        format!("asset {k} has neither a file part nor an http(s) href"),
                    ));
                }
            }
        }
        if !errors.is_empty() {
            return Err(DomainError::Invalid(errors).into());
        }
        if self.store.eo.get_item(account, collection, &id).await?.is_some() {
            return Err(DomainError::conflict(
                meridian_core::problem::code::ITEM_EXISTS,
                format!("collection {collection} already has an item {id}"),
            )
            .into());
        }
        // Every file is read before anything is stored.
        let limits = self.raster_limits();
        let to_inspect = files.clone();
        let facts = tokio::task::spawn_blocking(move || {
            let mut facts = Vec::new();
            let mut errors = Vec::new();
            for f in &to_inspect {
                match inspect(&f.key, &f.path, limits) {
                    Ok(x) => facts.push(x),
                    Err(e) => errors.push(e),
                }
            }
            (facts, errors)
        })
        .await
        .map_err(|e| Error::Internal(e.to_string()))?;
        let (facts, errors) = facts;
        if !errors.is_empty() {
            return Err(DomainError::Invalid(errors).into());
        }
        // The item must check out before the files go anywhere.
        let item_doc = derive_item(part, collection, &facts);
        let checked = check_item(&item_doc, collection, None, "/item").map_err(DomainError::Invalid)?;
        if facts.iter().all(|f| f.cog) {
            let mut stored = Vec::new();
            let result = async {
                for f in &files {
                    let key = keys::asset(account, collection, &id, &f.key);
                    self.blobs().upload_file(&key, &f.path).await?;
                    stored.push(key);
                }
                let mut items = self.insert(account, collection, std::slice::from_ref(&checked)).await?;
                Ok::<_, Error>(items.remove(0))
            }
            .await;
            if result.is_err() {
                if let Err(e) = self.blobs().delete_prefix(&keys::item(account, collection, &id)).await {
                    tracing::warn!(error = %e, item = %id, "removing the files of a failed upload failed");
                }
            }
            return result.map(Ingested::Item);
        }
        // Not every file is a COG: stage them for the conversion job.
        let staging = format!("ingest_{}", ulid_like());
        let prefix = keys::staged(account, &staging);
        for f in &files {
            if let Err(e) = self.blobs().upload_file(&format!("{prefix}/{}.tif", f.key), &f.path).await {
                let _ = self.blobs().delete_prefix(&prefix).await;
                return Err(e.into());
            }
        }
        let params = IngestParams { collection: collection.to_owned(), item: part.clone(), staging, assets: facts };
        let job = NewJob {
            account_id: account.clone(),
            kind: INGEST_JOB.to_owned(),
            params: serde_json::to_value(&params).map_err(|e| Error::Internal(e.to_string()))?,
            max_attempts: self.max_attempts,
        };
        Ok(Ingested::Job(Box::new(self.store.jobs.submit(job).await?)))
    }
}

fn ulid_like() -> String {
    meridian_core::id::JobId::generate().0.trim_start_matches("job_").to_ascii_lowercase()
}

/// Converts staged uploads to COG, derives the item and publishes it.
pub struct IngestJobHandler {
    service: Arc<EoService>,
}

impl IngestJobHandler {
    /// A handler over the service.
    pub fn new(service: Arc<EoService>) -> Self {
        Self { service }
    }
}

fn retry(e: impl std::fmt::Display) -> JobError {
    JobError::internal(e)
}

#[async_trait]
impl JobHandler for IngestJobHandler {
    fn kind(&self) -> &'static str {
        INGEST_JOB
    }

    async fn run(&self, ctx: &JobContext) -> std::result::Result<JobOutcome, JobError> {
        let svc = &self.service;
        let params: IngestParams = serde_json::from_value(ctx.job.params.clone())
            .map_err(|e| JobError::internal(format!("the job's parameters cannot be read: {e}")))?;
        let account = ctx.job.account_id.clone();
        let prefix = keys::staged(&account, &params.staging);
        let dir = svc.staging_dir().map_err(retry)?.to_path_buf();
        let work = tempfile::tempdir_in(&dir).map_err(retry)?;
        let id = params.item.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
        let n = params.assets.len().max(1);
        let mut facts = Vec::new();
        for (i, asset) in params.assets.iter().enumerate() {
            let staged_key = format!("{prefix}/{}.tif", asset.key);
            let src = fetch_local(svc, &staged_key, work.path()).await.map_err(retry)?;
            let out = work.path().join(format!("{}.cog.tif", asset.key));
            let limits = svc.raster_limits();
            let (src2, out2, key) = (src.clone(), out.clone(), asset.key.clone());
            let progress_base = (i * 90 / n) as u8;
            let cancel = ctx.cancellation();
            let converted = tokio::task::spawn_blocking(move || -> std::result::Result<AssetFacts, String> {
                let t = GeoTiff::open_with(&src2, limits)
                    .map_err(|e| e.to_string())?
                    .with_interrupt(move || cancel.is_cancelled());
                let opts = CogOptions { tile_size: 512, level: 6, predictor: true, overviews: true, average: true };
                write_cog_with_progress(&t, &out2, &opts, &|_p| true).map_err(|e| e.to_string())?;
                inspect(&key, &out2, limits).map_err(|e| e.detail)
            })
            .await
            .map_err(retry)?
            .map_err(|e| JobError::invalid(format!("asset {}: {e}", asset.key)))?;
            if ctx.is_cancelled() {
                return Err(JobError::Cancelled);
            }
            ctx.set_progress(progress_base + (90 / n) as u8);
            facts.push((converted, out));
        }
        let all: Vec<AssetFacts> = facts.iter().map(|(f, _)| f.clone()).collect();
        let doc = derive_item(&params.item, &params.collection, &all);
        let checked = check_item(&doc, &params.collection, None, "/item").map_err(|e| {
            JobError::invalid(e.first().map(|x| format!("{}: {}", x.pointer, x.detail)).unwrap_or_default())
        })?;
        for (f, path) in &facts {
            // Checked before each write: a worker that lost its lease writes nothing more.
            if ctx.is_cancelled() {
                return Err(JobError::Cancelled);
            }
            svc.blobs()
                .upload_file(&keys::asset(&account, &params.collection, &id, &f.key), path)
                .await
                .map_err(retry)?;
        }
        let stored = match svc.insert(&account, &params.collection, std::slice::from_ref(&checked)).await {
            Ok(mut items) => items.remove(0),
            Err(Error::Domain(d)) => {
                let _ = svc.blobs().delete_prefix(&keys::item(&account, &params.collection, &id)).await;
                let _ = svc.blobs().delete_prefix(&prefix).await;
                return Err(JobError::Permanent(Problem::new(409, code::ITEM_EXISTS, "Not published", d.to_string())));
            }
            Err(e) => return Err(retry(e)),
        };
        let _ = svc.blobs().delete_prefix(&prefix).await;
        ctx.set_progress(100);
        Ok(JobOutcome {
            event: None,
            output: json!({
                "scene": format!("{}/{}", stored.collection, stored.id),
                "href": format!("{}/collections/{}/items/{}", stac::ROOT, stored.collection, stored.id),
            }),
        })
    }
}

/// A local path of a blob: the file itself on a local store, else a downloaded copy in `dir`.
pub(crate) async fn fetch_local(svc: &EoService, key: &str, dir: &Path) -> Result<PathBuf> {
    if let Some(p) = svc.blobs().local_path(key) {
        if p.exists() {
            return Ok(p);
        }
    }
    let path = dir.join(key.replace('/', "_"));
    // Streamed from the store: a large file never sits whole in memory.
    if !svc.blobs().download_to(key, &path).await? {
        return Err(DomainError::not_found("file", key).into());
    }
    Ok(path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A band without overviews is read every `step`-th cell, a band of rows at a time: the same
    /// cells as a whole read, taken every `step`, so statistics and outlines keep their meaning
    /// whatever the size (a 30,000² file used to be read whole, 7 GB as f64).
    #[test]
    fn decimated_reads_take_every_step_th_cell_of_every_step_th_row() {
        let band =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cbers4-mux-057-094-20171121-band7.tif");
        let t = GeoTiff::open_with(&band, Limits::default()).unwrap();
        let im = t.images()[0].clone();
        let all = t.read_window::<f64>(0, 0, Window::new(0, 0, im.width, im.height), f64::NAN).unwrap();
        for step in [1, 3, 7] {
            let d = read_decimated(&t, 0, 0, step).unwrap();
            let (ow, oh) = (im.width.div_ceil(step), im.height.div_ceil(step));
            assert_eq!(d.len(), ow * oh, "step {step}");
            for (r, row) in d.chunks(ow).enumerate() {
                for (c, v) in row.iter().enumerate() {
                    let want = all[r * step * im.width + c * step];
                    assert!(v == &want || (v.is_nan() && want.is_nan()), "step {step} at {r},{c}");
                }
            }
        }
    }
}
