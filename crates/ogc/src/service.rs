//! [`OgcService`]: the WMS and WMTS operations over the layer registry, answering bytes with a media
//! type and an HTTP status so that routes only copy them out. Errors come back as the service's
//! own exception report, never as a panic or a bare 500.

use crate::kvp::KvpLimits;
use crate::layers::{LayerInfo, LayerRegistry, LayerSource, StyleInfo};
use crate::ows::{ExceptionCode, OgcError, Service};
use crate::render::{self, ImageFormat};
use crate::srs::{self, View};
use bytes::Bytes;
use meridian_core::crs::Crs;
use meridian_core::id::AccountId;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;

/// Limits and choices of the map services.
#[derive(Clone, Debug)]
pub struct MapConfig {
    /// Largest GetMap WIDTH and HEIGHT.
    pub max_width: u32,
    pub max_height: u32,
    /// Most layers in one GetMap.
    pub max_layers: usize,
    /// Most features drawn in one layer of one map or tile.
    pub max_features: usize,
    /// The CRSs every layer is offered in.
    pub crs: Vec<Crs>,
    /// `Cache-Control: max-age` of WMTS tiles.
    pub tile_max_age: Duration,
    /// Deepest WebMercatorQuad and WorldCRS84Quad level advertised.
    pub max_zoom: u8,
    pub kvp: KvpLimits,
}

impl Default for MapConfig {
    fn default() -> Self {
        Self {
            max_width: 4096,
            max_height: 4096,
            max_layers: 16,
            max_features: 50_000,
            crs: srs::DEFAULT_CRS.iter().filter_map(|c| srs::parse(c).ok()).collect(),
            tile_max_age: Duration::from_secs(300),
            max_zoom: 22,
            kvp: KvpLimits::default(),
        }
    }
}

/// Where links in documents point and what they carry.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// Scheme and authority, e.g. `https://maps.example.com`.
    pub base_url: String,
    /// The access token the request came with (`access_token=`), repeated in every link so
    /// that clients which cannot send headers keep working.
    pub access_token: Option<String>,
}

impl Context {
    /// An absolute URL of `path` (under the base), with the access token when there is one.
    /// The result ends with `?` or `&`, ready for more parameters.
    pub fn url(&self, path: &str) -> String {
        match &self.access_token {
            Some(t) => format!("{}{path}?access_token={}&", self.base_url, encode(t)),
            None => format!("{}{path}?", self.base_url),
        }
    }

    /// An absolute URL of `path` with the access token and nothing to add.
    pub fn link(&self, path: &str) -> String {
        match &self.access_token {
            Some(t) => format!("{}{path}?access_token={}", self.base_url, encode(t)),
            None => format!("{}{path}", self.base_url),
        }
    }
}

/// Percent-encodes a query value.
pub fn encode(v: &str) -> String {
    form_urlencoded::byte_serialize(v.as_bytes()).collect()
}

/// An answer: status, media type, body, and for cacheable ones a validator and lifetime.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub body: Bytes,
    pub etag: Option<String>,
    pub max_age: Option<Duration>,
}

impl Reply {
    /// A 200 answer.
    pub fn ok(content_type: &str, body: impl Into<Bytes>) -> Self {
        Self { status: 200, content_type: content_type.to_owned(), body: body.into(), etag: None, max_age: None }
    }

    /// `err` as `service`'s exception report, with the status that service gives its code.
    pub fn error(service: Service, err: &OgcError) -> Self {
        Self { status: service.status(err.code), ..Self::ok("text/xml", service.report(err)) }
    }

    /// Adds a strong validator made from the body.
    pub fn with_etag(mut self) -> Self {
        self.etag = Some(format!("\"{}\"", hex::encode(&Sha256::digest(&self.body)[..16])));
        self
    }
}

/// The WMS and WMTS of one platform.
pub struct OgcService {
    pub(crate) layers: LayerRegistry,
    pub(crate) config: MapConfig,
    /// Rendered tiles of raster layers (DEM datasets and job outputs never change once
    /// written); vector layers change with every feature write and are drawn each time.
    pub(crate) tiles: meridian_core::cache::Bounded<String, Bytes>,
    /// Maps drawn at once: two per core (one reading its features or raster blocks while the
    /// other draws). Drawing is CPU work; more at a time only share the cores and lengthen every
    /// map, while the FIFO queue keeps the slowest answers close to the typical ones.
    drawing: tokio::sync::Semaphore,
    /// Memory of maps being drawn, in MiB: each map takes what its canvas, one layer being drawn
    /// onto it and its encoded copy need, and waits while others hold the rest.
    drawing_memory: tokio::sync::Semaphore,
}

/// MiB that maps being drawn at once may hold in all.
const DRAWING_MEMORY_MIB: u32 = 1024;

/// MiB a map of `width` × `height` holds at its peak: the canvas, the layer being drawn onto it
/// and the RGBA copy the encoder reads, 4 bytes a pixel each.
pub(crate) fn map_memory_mib(width: u32, height: u32) -> u32 {
    let bytes = u64::from(width).saturating_mul(u64::from(height)).saturating_mul(12);
    u32::try_from(bytes.div_ceil(1 << 20)).unwrap_or(u32::MAX).clamp(1, DRAWING_MEMORY_MIB)
}

/// Tiles kept in memory; the cache starts afresh when full.
pub(crate) const TILE_CACHE_CAPACITY: usize = 2_048;
/// Bytes of rendered tiles kept (64 MiB).
pub(crate) const TILE_CACHE_BYTES: u64 = 64 << 20;

/// A layer chosen for a map, with its source and style.
pub(crate) struct MapLayer {
    pub(crate) source: Arc<dyn LayerSource>,
    pub(crate) info: LayerInfo,
    pub(crate) style: StyleInfo,
}

impl OgcService {
    /// The service over a layer registry.
    pub fn new(layers: LayerRegistry, config: MapConfig) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        Self {
            layers,
            config,
            tiles: meridian_core::cache::Bounded::weighed(TILE_CACHE_BYTES, TILE_CACHE_CAPACITY, |b| b.len() as u64),
            drawing: tokio::sync::Semaphore::new(cores * 2),
            drawing_memory: tokio::sync::Semaphore::new(DRAWING_MEMORY_MIB as usize),
        }
    }

    /// The layer registry (WFS lists its vector layers).
    pub fn layers(&self) -> &LayerRegistry {
        &self.layers
    }

    /// The configuration.
    pub fn config(&self) -> &MapConfig {
        &self.config
    }

    /// Whether `crs` is offered.
    /// The capabilities list `config.crs` (and each layer its own UTM zone); a map is drawn in
    /// any CRS the CRS module can transform to (a Landsat scene's UTM zone, a national grid), as
    /// WFS answers in them.
    pub(crate) fn offers(&self, crs: Crs) -> bool {
        self.config.crs.contains(&crs)
            || (crs == Crs::Crs84 && self.config.crs.contains(&Crs::Epsg(4326)))
            || meridian_core::crs::Transformer::new(Crs::Crs84, crs).is_ok()
    }

    /// Every layer of `account`, grouped by source (the capabilities documents).
    pub(crate) async fn layer_groups(
        &self,
        account: &AccountId,
    ) -> Result<Vec<(Arc<dyn LayerSource>, Vec<LayerInfo>)>, OgcError> {
        self.layers.layers(account).await.map_err(|e| {
            tracing::error!(error = %e, "listing layers failed");
            OgcError::internal()
        })
    }

    /// Resolves layer names and their styles (empty = default).
    pub(crate) async fn resolve_layers(
        &self,
        account: &AccountId,
        names: &[&str],
        styles: &[&str],
    ) -> Result<Vec<MapLayer>, OgcError> {
        let mut out = Vec::with_capacity(names.len());
        for (k, name) in names.iter().enumerate() {
            let name = name.trim();
            let (source, info) = self
                .layers
                .find(account, name)
                .await
                .map_err(|e| {
                    tracing::error!(error = %e, "layer lookup failed");
                    OgcError::internal()
                })?
                .ok_or_else(|| {
                    OgcError::new(
                        ExceptionCode::LayerNotDefined,
                        Some("LAYERS".into()),
                        format!("no layer named `{}`", crate::kvp::clip(name)),
                    )
                })?;
            let wanted = styles.get(k).map_or("", |s| s.trim());
            let style = info.style(wanted).cloned().ok_or_else(|| {
                OgcError::new(
                    ExceptionCode::StyleNotDefined,
                    Some("STYLES".into()),
                    format!(
                        "layer `{}` has no style `{}`; its styles are {}",
                        info.name,
                        crate::kvp::clip(wanted),
                        info.styles.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                )
            })?;
            out.push(MapLayer { source, info, style });
        }
        Ok(out)
    }

    /// Draws `layers` over `view` in order and encodes the result.
    pub(crate) async fn render_map(
        &self,
        account: &AccountId,
        layers: &[MapLayer],
        view: &View,
        format: ImageFormat,
        background: Option<[u8; 3]>,
    ) -> Result<Vec<u8>, OgcError> {
        let (w, h) = (view.width, view.height);
        let _memory = self.drawing_memory.acquire_many(map_memory_mib(w, h)).await.map_err(|_| OgcError::internal())?;
        let _turn = self.drawing.acquire().await.map_err(|_| OgcError::internal())?;
        // Each layer after the first is drawn onto the canvas as soon as it is ready and then
        // dropped, so a map of many layers holds a few images at most, not one per layer; the
        // first is kept as drawn, so a map or tile of one layer goes to the encoder in one hop.
        let mut first: Option<tiny_skia::Pixmap> = None;
        let mut canvas: Option<tiny_skia::Pixmap> = None;
        for l in layers {
            let layer = match l.source.render(account, &l.info, &l.style, view).await {
                Ok(Some(p)) => p,
                Ok(None) => continue,
                Err(e) => {
                    tracing::error!(error = %e, layer = %l.info.name, "rendering a layer failed");
                    return Err(OgcError::internal());
                }
            };
            if first.is_none() && canvas.is_none() {
                first = Some(layer);
                continue;
            }
            let (under, bottom) = (canvas.take(), first.take());
            canvas = Some(
                tokio::task::spawn_blocking(move || {
                    let mut c = match under {
                        Some(c) => c,
                        None => render::compose_all(w, h, background, bottom.into_iter().collect())?,
                    };
                    render::compose(&mut c, &layer);
                    Some(c)
                })
                .await
                .map_err(|_| OgcError::internal())?
                .ok_or_else(OgcError::internal)?,
            );
        }
        tokio::task::spawn_blocking(move || {
            let canvas = match canvas {
                Some(c) => c,
                None => {
                    render::compose_all(w, h, background, first.into_iter().collect()).ok_or_else(OgcError::internal)?
                }
            };
            let rgba = render::rgba_of(&canvas);
            render::encode(&rgba, w, h, format, background.unwrap_or([255, 255, 255])).map_err(|e| {
                tracing::error!(error = %e, "encoding a map failed");
                OgcError::internal()
            })
        })
        .await
        .map_err(|_| OgcError::internal())?
    }
}

impl OgcService {
    /// A cached tile.
    pub(crate) fn cached_tile(&self, key: &str) -> Option<Bytes> {
        self.tiles.get(key)
    }

    /// Keeps a tile.
    pub(crate) fn cache_tile(&self, key: String, body: Bytes) {
        self.tiles.insert(key, body);
    }
}

#[cfg(test)]
mod tests {
    use super::map_memory_mib;

    /// A map's share of the drawing budget: three 4-byte images of its size, at least 1 MiB and
    /// never more than the whole budget (so any map can be drawn alone).
    #[test]
    fn maps_take_a_share_of_the_drawing_budget_by_size() {
        assert_eq!(map_memory_mib(4096, 4096), 192);
        assert_eq!(map_memory_mib(256, 256), 1);
        assert_eq!(map_memory_mib(1, 1), 1);
        assert_eq!(map_memory_mib(u32::MAX, u32::MAX), super::DRAWING_MEMORY_MIB);
    }
}
