//! Tilesets of a twin. A tileset is built from the twin's features as they were at an instant:
//! the features of its collection in its area that its filter selects, each extruded from the
//! ground (the DEM, when the twin has one) by its height, with the DEM as terrain. Builds are
//! kept by *stamp* (how many versions of the collection's features existed at the instant), so a
//! build is found again for every instant at which the features were the same: editing a parcel
//! makes the next request build anew (the tileset's version moves on), and moving the clock back
//! finds, or builds, the tileset of that time.

use super::twins::{event_fields, Status, Twin};
use super::{keys, Error, Result, TwinService, BUILD_JOB, BUILT, FAILED};
use crate::{build_tileset, Footprint, Terrain, TilesetOptions, TwinError};
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::id::{AccountId, DatasetId};
use meridian_core::problem::Problem;
use meridian_core::{DomainError, FieldError, Timestamp};
use meridian_features::cql2::{self, Subject};
use meridian_features::geometry;
use meridian_jobs::{JobContext, JobError, JobHandler, JobOutcome};
use meridian_store::model::Job;
use meridian_store::twin::{BuildRow, FeatureAsOf};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Side of the terrain grid sampled from the DEM (the engine decimates it further if asked).
const TERRAIN_SIDE: usize = 256;

/// A tileset ready to serve: where its files are and what it holds.
#[derive(Clone, Debug)]
pub struct Tileset {
    pub stamp: i64,
    /// The blob folder of the build (`tileset.json`, `tiles/...`).
    pub folder: String,
    /// Tiles, features, triangles, skipped footprints, the instant it shows.
    pub summary: Value,
}

/// How long a request waits for a tileset being built before it is answered 202.
const TILESET_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// A tileset asked for by a request.
#[derive(Clone, Debug)]
pub enum TilesetAnswer {
    Ready(Tileset),
    /// Still being built (on its own task, once): ask again after this many seconds.
    Building {
        retry_after: u64,
    },
}

/// A content of a kept build, as its blob: where it is and how large.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildContent {
    /// The blob key.
    pub key: String,
    /// Bytes.
    pub size: u64,
}

impl TwinService {
    /// The `tileset.json` of a build the tileset answer named.
    pub async fn tileset_document(&self, tileset: &Tileset) -> Result<bytes::Bytes> {
        let key = format!("{}/tileset.json", tileset.folder);
        self.store.blobs.get(&key).await?.ok_or_else(|| Error::Internal(format!("blob {key} is missing")))
    }

    /// A content (`tiles_2_1_3.glb`, `tiles_terrain.glb`, ...) of one of the twin's builds: a
    /// name that is not a content's (a path, another extension, over 128 bytes) or a content that
    /// is not there is not found.
    pub async fn build_content(
        &self,
        account: &AccountId,
        twin_id: &str,
        stamp: i64,
        file: &str,
    ) -> Result<BuildContent> {
        let twin = self.get(account, twin_id).await?;
        let not_found = || Error::from(DomainError::not_found("tile", file));
        let safe = file.len() <= 128
            && file.ends_with(".glb")
            && file.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
            && !file.contains("..");
        if !safe {
            return Err(not_found());
        }
        let key = format!("{}/{file}", keys::build(&twin.account_id, twin.id.as_str(), stamp));
        let size = self.store.blobs.size_of(&key).await?.ok_or_else(not_found)?;
        Ok(BuildContent { key, size })
    }

    /// The tileset of `twin` as of `at` (ms; its clock when `None`), built if no kept build
    /// shows the features of that instant. The build runs on its own task (one at a time per
    /// twin, so requests asking at once share it): a request that leaves does not stop it, and
    /// one that has waited [`TILESET_WAIT`] is told to come back.
    pub async fn tileset(
        self: &Arc<Self>,
        account: &AccountId,
        id: &str,
        at: Option<i64>,
    ) -> Result<(Twin, TilesetAnswer)> {
        let twin = self.get(account, id).await?;
        let now = Timestamp::now().millis();
        let at = at.unwrap_or_else(|| twin.clock.at(now)).min(now);
        let live = twin.clock.live && at >= now - 1;
        let (svc, t) = (self.clone(), twin.clone());
        let build = tokio::spawn(async move { svc.tileset_at(&t, at, live).await });
        match tokio::time::timeout(TILESET_WAIT, build).await {
            Ok(joined) => {
                let tileset =
                    joined.map_err(|e| Error::Internal(format!("the tileset build ended abnormally: {e}")))??;
                Ok((twin, TilesetAnswer::Ready(tileset)))
            }
            Err(_) => Ok((twin, TilesetAnswer::Building { retry_after: 5 })),
        }
    }

    async fn tileset_at(&self, twin: &Twin, at: i64, live: bool) -> Result<Tileset> {
        let account = &twin.account_id;
        let id = twin.id.as_str();
        let stamp = self.store.twin.feature_stamp(account, &twin.collection, at).await?;
        if let Some(b) = self.store.twin.get_build(id, stamp).await? {
            return Ok(Tileset { stamp, folder: keys::build(account, id, stamp), summary: b.summary });
        }
        let lock = self.building.entry(id.to_owned()).or_default().clone();
        let _guard = lock.lock().await;
        if let Some(b) = self.store.twin.get_build(id, stamp).await? {
            return Ok(Tileset { stamp, folder: keys::build(account, id, stamp), summary: b.summary });
        }
        let limit = u32::try_from(self.config.max_parcels).unwrap_or(u32::MAX).saturating_add(1);
        let features = self
            .store
            .twin
            .features_as_of(account, &twin.collection, Some(twin.bbox), (!live).then_some(at), limit)
            .await?;
        // A change between the stamp and the read would label newer features with an older
        // stamp: read the stamp again and, when it moved, label the build with the newer one
        // only if it is still the present.
        let after = self
            .store
            .twin
            .feature_stamp(account, &twin.collection, if live { Timestamp::now().millis() } else { at })
            .await?;
        let stamp = if live { after } else { stamp };
        if features.len() > self.config.max_parcels {
            return Err(DomainError::Invalid(vec![FieldError::new(
                "/bbox",
                "too_many_parcels",
                format!("the twin's area holds more than {} features (twin.max_parcels)", self.config.max_parcels),
            )])
            .into());
        }
        let terrain = match &twin.dem_dataset {
            Some(d) => self.terrain(account, d, twin.bbox).await?,
            None => None,
        };
        let twin2 = twin.clone();
        let max = self.config.max_parcels;
        let built = tokio::task::spawn_blocking(move || build(&twin2, &features, terrain.as_ref(), max))
            .await
            .map_err(|e| Error::Internal(e.to_string()))??;
        let folder = keys::build(account, id, stamp);
        let (mut tileset_json, contents, mut summary) = built;
        rebase_uris(&mut tileset_json, stamp);
        let mut bytes = 0u64;
        for (uri, glb) in contents {
            bytes += glb.len() as u64;
            let key = format!("{folder}/{}", flat_name(&uri));
            self.blobs().put(&key, glb.into()).await?;
        }
        let text = serde_json::to_vec(&tileset_json).map_err(|e| Error::Internal(e.to_string()))?;
        bytes += text.len() as u64;
        self.blobs().put(&format!("{folder}/tileset.json"), text.into()).await?;
        summary["stamp"] = json!(stamp);
        summary["as_of"] = json!(super::clock::rfc3339(at));
        summary["bytes"] = json!(bytes);
        summary["built_at"] = json!(Timestamp::now().to_rfc3339());
        self.store
            .twin
            .put_build(&BuildRow {
                twin_id: id.to_owned(),
                stamp,
                summary: summary.clone(),
                created_at: Timestamp::now(),
            })
            .await?;
        for old in self.store.twin.prune_builds(id, self.config.builds_kept).await? {
            if let Err(e) = self.blobs().delete_prefix(&keys::build(account, id, old)).await {
                tracing::warn!(error = %e, twin = id, stamp = old, "removing an old build failed");
            }
        }
        Ok(Tileset { stamp, folder, summary })
    }

    /// The DEM sampled over the twin's box, or `None` when it does not cover it.
    async fn terrain(&self, account: &AccountId, dataset: &str, bbox: [f64; 4]) -> Result<Option<Terrain>> {
        let id = DatasetId(dataset.to_owned());
        let cog = meridian_dem::blobs::keys::dataset_cog(account, &id);
        let key = if self.blobs().exists(&cog).await? {
            cog
        } else {
            meridian_dem::blobs::keys::dataset_source(account, &id)
        };
        if !self.blobs().exists(&key).await? {
            return Err(DomainError::Invalid(vec![FieldError::new(
                "/dem_dataset",
                "unknown_dataset",
                format!("the DEM dataset {dataset} is no longer stored"),
            )])
            .into());
        }
        let blobs = self.blobs().clone();
        let limits = self.dem_limits;
        let handle = tokio::runtime::Handle::current();
        tokio::task::spawn_blocking(move || {
            let tiff = meridian_dem::blobs::open_geotiff(&blobs, &key, &handle, limits)
                .map_err(|e| Error::Internal(format!("the DEM cannot be read: {e}")))?;
            // About square cells: as many columns as the box is wide in metres, relatively.
            let mid = ((bbox[1] + bbox[3]) / 2.0).to_radians().cos().max(0.01);
            let (dx, dy) = ((bbox[2] - bbox[0]) * mid, bbox[3] - bbox[1]);
            let (w, h) = if dx >= dy {
                (TERRAIN_SIDE, ((TERRAIN_SIDE as f64 * dy / dx).round() as usize).max(2))
            } else {
                (((TERRAIN_SIDE as f64 * dx / dy).round() as usize).max(2), TERRAIN_SIDE)
            };
            let grid = meridian_raster::warp::Grid::from_bbox(bbox, w, h, 4326);
            let raster =
                meridian_raster::warp::warp(&tiff, &grid, meridian_raster::warp::Resampling::Bilinear, Some(f32::NAN))
                    .map_err(|e| Error::Internal(format!("the DEM cannot be sampled: {e}")))?;
            Ok(raster.and_then(|r| {
                let nodata = r.nodata.map(|v| v as f32);
                let heights: Vec<f32> =
                    r.data.iter().map(|&v| if Some(v) == nodata || !v.is_finite() { f32::NAN } else { v }).collect();
                heights.iter().any(|v| v.is_finite()).then_some(Terrain { width: w, height: h, bounds: bbox, heights })
            }))
        })
        .await
        .map_err(|e| Error::Internal(e.to_string()))?
    }
}

/// A feature's geometry when, as it was, it belongs to the twin: in its area and selected by
/// its filter.
pub(crate) fn selects(
    f: &FeatureAsOf,
    area: &geo::Geometry<f64>,
    filter: Option<&cql2::Expr>,
) -> Option<geo::Geometry<f64>> {
    let g = f.geometry.as_ref().and_then(geometry::decode)?;
    if !geo::Intersects::intersects(&g, area) {
        return None;
    }
    if let Some(expr) = filter {
        let mut props = f.properties.clone();
        props.insert("updated_at".into(), Value::String(f.valid_from.to_rfc3339()));
        let s = Subject { id: &f.id, properties: &props, geometry: Some(&g), geometry_name: "geometry" };
        if !cql2::matches(expr, &s) {
            return None;
        }
    }
    Some(g)
}

/// A feature's height: its height property when that is a positive number (or text of one).
pub(crate) fn height_of(twin: &Twin, properties: &Map<String, Value>) -> f64 {
    let h = twin.height_property.as_ref().and_then(|k| properties.get(k)).and_then(|v| match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    });
    match h {
        Some(h) if h.is_finite() && h > 0.0 && h <= 2000.0 => h,
        _ => twin.default_height,
    }
}

/// The ground under a footprint: the lowest terrain height at its exterior's vertices and
/// centre (bilinear), so that no building floats; 0 without terrain.
fn ground(terrain: Option<&Terrain>, ring: &[[f64; 2]]) -> f64 {
    let Some(t) = terrain else { return 0.0 };
    let sample = |lon: f64, lat: f64| -> Option<f64> {
        let [w, s, e, n] = t.bounds;
        let fx = (lon - w) / (e - w) * t.width as f64 - 0.5;
        let fy = (n - lat) / (n - s) * t.height as f64 - 0.5;
        let x0 = fx.floor().clamp(0.0, (t.width - 1) as f64) as usize;
        let y0 = fy.floor().clamp(0.0, (t.height - 1) as f64) as usize;
        let (x1, y1) = ((x0 + 1).min(t.width - 1), (y0 + 1).min(t.height - 1));
        let (ax, ay) = ((fx - x0 as f64).clamp(0.0, 1.0), (fy - y0 as f64).clamp(0.0, 1.0));
        let at = |x: usize, y: usize| f64::from(t.heights[y * t.width + x]);
        let v = at(x0, y0) * (1.0 - ax) * (1.0 - ay)
            + at(x1, y0) * ax * (1.0 - ay)
            + at(x0, y1) * (1.0 - ax) * ay
            + at(x1, y1) * ax * ay;
        v.is_finite().then_some(v)
    };
    let n = ring.len().max(1) as f64;
    let (cx, cy) = ring.iter().fold((0.0, 0.0), |(x, y), p| (x + p[0] / n, y + p[1] / n));
    ring.iter()
        .filter_map(|p| sample(p[0], p[1]))
        .chain(sample(cx, cy))
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.min(v))))
        .unwrap_or(0.0)
}

/// Footprints from the features and the tileset built from them, its content URIs under
/// `tiles/`; with an empty root when there is nothing to show.
#[allow(clippy::type_complexity)]
fn build(
    twin: &Twin,
    features: &[FeatureAsOf],
    terrain: Option<&Terrain>,
    max: usize,
) -> Result<(Value, Vec<(String, Vec<u8>)>, Value)> {
    let area = twin.area_geometry();
    let filter = twin.filter_expr();
    let max_vertices = TilesetOptions::default().max_vertices_per_polygon;
    let mut footprints = Vec::new();
    let mut assets = 0usize;
    for f in features {
        let Some(g) = selects(f, &area, filter.as_ref()) else { continue };
        let polygons: Vec<geo::Polygon<f64>> = match g {
            geo::Geometry::Polygon(p) => vec![p],
            geo::Geometry::MultiPolygon(mp) => mp.0,
            _ => continue,
        };
        assets += 1;
        let height = height_of(twin, &f.properties);
        for p in polygons {
            let p = within_vertices(p, max_vertices);
            let ring = |l: &geo::LineString<f64>| l.0.iter().map(|c| [c.x, c.y]).collect::<Vec<_>>();
            let mut rings = vec![ring(p.exterior())];
            rings.extend(p.interiors().iter().map(ring));
            let base = ground(terrain, &rings[0]);
            let mut properties = f.properties.clone();
            properties.insert("version".into(), json!(f.version));
            footprints.push(Footprint { id: f.id.clone(), polygon: rings, base, height, properties });
        }
    }
    let opts = TilesetOptions { max_footprints: max.saturating_mul(4).max(1), ..TilesetOptions::default() };
    let mut summary = json!({ "features": assets, "footprints": footprints.len(), "terrain": terrain.is_some() });
    match build_tileset(&footprints, terrain, &opts) {
        Ok(b) => {
            summary["tiles"] = json!(b.tiles.len());
            summary["triangles"] = json!(b.triangles);
            summary["skipped"] = json!(b
                .skipped
                .iter()
                .take(100)
                .map(|s| json!({ "id": s.id, "reason": format!("{:?}", s.reason) }))
                .collect::<Vec<_>>());
            summary["skipped_count"] = json!(b.skipped.len());
            Ok((b.tileset, b.contents, summary))
        }
        Err(TwinError::Empty) => {
            summary["tiles"] = json!(0);
            summary["triangles"] = json!(0);
            summary["skipped"] = json!([]);
            summary["skipped_count"] = json!(0);
            Ok((empty_tileset(twin.bbox), Vec::new(), summary))
        }
        Err(
            e @ (TwinError::TooManyFootprints { .. }
            | TwinError::TooManyTriangles { .. }
            | TwinError::TileTooLarge { .. }),
        ) => Err(DomainError::Invalid(vec![FieldError::new("/bbox", "too_many_parcels", e.to_string())]).into()),
        Err(e @ TwinError::TooManyVertices { .. }) => {
            Err(DomainError::Invalid(vec![FieldError::new("/collection", "footprint_too_complex", e.to_string())])
                .into())
        }
        Err(e) => Err(Error::Internal(e.to_string())),
    }
}

/// A footprint with at most `max` vertices: a finer one (the cadastre takes up to 250,000) is
/// simplified (Douglas–Peucker, the tolerance doubled from about a centimetre until it fits),
/// which a building's outline at tile scale does not show.
fn within_vertices(p: geo::Polygon<f64>, max: usize) -> geo::Polygon<f64> {
    use geo::{CoordsIter, Simplify};
    let mut tolerance = 1e-7;
    let mut out = p;
    while out.coords_count() > max && tolerance < 1.0 {
        out = out.simplify(tolerance);
        tolerance *= 2.0;
    }
    out
}

/// A content's file name in a build's folder: its path with `_` for `/` (`tiles_3_2_5.glb`).
pub(crate) fn flat_name(uri: &str) -> String {
    uri.replace('/', "_")
}

/// Points every content URI of a tileset at the build's folder, relative to the tileset's own
/// address (`/realtime/twin/{id}/tileset` → `/realtime/twin/{id}/builds/{stamp}/...`).
fn rebase_uris(v: &mut Value, stamp: i64) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(content)) = m.get_mut("content") {
                if let Some(Value::String(uri)) = content.get_mut("uri") {
                    *uri = format!("builds/{stamp}/{}", flat_name(uri));
                }
            }
            if let Some(Value::Array(children)) = m.get_mut("children") {
                children.iter_mut().for_each(|c| rebase_uris(c, stamp));
            }
            if let Some(root) = m.get_mut("root") {
                rebase_uris(root, stamp);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|c| rebase_uris(c, stamp)),
        _ => {}
    }
}

/// A tileset with nothing in it: the area as a region, no content.
fn empty_tileset(b: [f64; 4]) -> Value {
    let r = |d: f64| d.to_radians();
    json!({
        "asset": { "version": "1.1", "generator": crate::GENERATOR },
        "geometricError": 0.0,
        "root": {
            "boundingVolume": { "region": [r(b[0]), r(b[1]), r(b[2]), r(b[3]), 0.0, 1.0] },
            "geometricError": 0.0,
            "refine": "ADD"
        }
    })
}

/// Builds a new twin's first tileset.
pub struct BuildJobHandler {
    service: Arc<TwinService>,
}

impl BuildJobHandler {
    /// A handler over the service.
    pub fn new(service: Arc<TwinService>) -> Self {
        Self { service }
    }
}

#[async_trait]
impl JobHandler for BuildJobHandler {
    fn kind(&self) -> &'static str {
        BUILD_JOB
    }

    fn failure_event(&self, job: &Job, error: &Problem) -> Option<NewEvent> {
        let mut m = Map::new();
        m.insert("twin".into(), job.params["twin"].clone());
        m.insert("job".into(), json!(job.id.as_str()));
        m.insert("error".into(), json!(error));
        Some(NewEvent::new(job.account_id.clone(), FAILED, m))
    }

    async fn run(&self, ctx: &JobContext) -> Result<JobOutcome, JobError> {
        let svc = &self.service;
        let account = ctx.job.account_id.clone();
        let id = ctx.job.params["twin"].as_str().unwrap_or_default().to_owned();
        let twin = match svc.store.twin.get_twin(&account, &id).await {
            Ok(Some(row)) => Twin::of_row(row).map_err(JobError::internal)?,
            Ok(None) => return Err(JobError::internal(format!("twin {id} is not recorded (yet)"))),
            Err(e) => return Err(JobError::internal(e)),
        };
        let now = Timestamp::now().millis();
        let at = twin.clock.at(now).min(now);
        match svc.tileset_at(&twin, at, twin.clock.live).await {
            Ok(t) => {
                let mut next = twin.clone();
                next.status = Status::Ready;
                next.tileset = Some(t.summary.clone());
                next.error = None;
                let mut fields = event_fields(&next);
                fields.insert("tileset".into(), t.summary.clone());
                let event = NewEvent::new(account.clone(), BUILT, fields);
                let body = serde_json::to_value(next.body()).map_err(JobError::internal)?;
                svc.store
                    .twin
                    .update_twin(&account, &id, Status::Ready.as_str(), &body, None, &[])
                    .await
                    .map_err(JobError::internal)?;
                Ok(JobOutcome { output: json!({ "twin": id, "tileset": t.summary }), event: Some(event) })
            }
            Err(Error::Domain(d)) => {
                let problem = Problem::new(
                    422,
                    meridian_core::problem::code::TWIN_BUILD_FAILED,
                    "The tileset cannot be built",
                    d.to_string(),
                );
                let mut next = twin.clone();
                next.status = Status::Failed;
                next.error = Some(json!(problem));
                if let Ok(body) = serde_json::to_value(next.body()) {
                    let _ = svc.store.twin.update_twin(&account, &id, Status::Failed.as_str(), &body, None, &[]).await;
                }
                Err(JobError::Permanent(problem))
            }
            Err(e) => {
                // The last attempt: the twin says it failed instead of building for ever.
                if ctx.job.attempts >= ctx.job.max_attempts {
                    let problem = Problem::new(
                        500,
                        meridian_core::problem::code::TWIN_BUILD_FAILED,
                        "The tileset cannot be built",
                        "the build failed on every attempt; the server's log has the cause",
                    );
                    let mut next = twin.clone();
                    next.status = Status::Failed;
                    next.error = Some(json!(problem));
                    if let Ok(body) = serde_json::to_value(next.body()) {
                        let _ =
                            svc.store.twin.update_twin(&account, &id, Status::Failed.as_str(), &body, None, &[]).await;
                    }
                }
                Err(JobError::internal(e))
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::within_vertices;
    use geo::{Area, CoordsIter};

    /// A parcel of 30,000 vertices (a surveyed curve) is simplified under the mesh's limit, its
    /// area kept within a thousandth; one under the limit is left alone.
    #[test]
    fn footprints_over_the_vertex_limit_are_simplified() {
        let ring: Vec<geo::Coord<f64>> = (0..=30_000)
            .map(|i| {
                let t = std::f64::consts::TAU * f64::from(i) / 30_000.0;
                geo::Coord { x: 151.0 + 0.001 * t.cos(), y: -33.9 + 0.001 * t.sin() }
            })
            .collect();
        let p = geo::Polygon::new(geo::LineString(ring), Vec::new());
        let small = within_vertices(p.clone(), 10_000);
        assert!(small.coords_count() <= 10_000, "{}", small.coords_count());
        assert!(small.coords_count() > 100);
        assert!((small.unsigned_area() / p.unsigned_area() - 1.0).abs() < 1e-3);
        assert_eq!(within_vertices(p.clone(), 40_000), p);
    }
}
