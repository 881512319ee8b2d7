//! The earth-observation scenes as layers: every scene whose stored bands make a spectral index
//! is a layer `eo:<collection>:<item>` with one style per index it can make (`ndvi` first, then
//! `ndwi`, `evi`, ...), computed from the bands for the map's grid as the index tiles are.
//! GetFeatureInfo answers the index under the point.

use crate::layers::{Hit, LayerInfo, LayerKind, LayerSource, Legend, SourceError, StyleInfo};
use crate::render::pixmap_from_rgba;
use crate::srs::View;
use async_trait::async_trait;
use meridian_core::id::AccountId;
use meridian_eo::search::Search;
use meridian_eo::tiles::{available_indices, paint, TileStyle};
use meridian_eo::EoService;
use meridian_raster::dem::{ColorMode, ColorReliefOptions};
use meridian_raster::warp::Grid;
use meridian_store::eo::EoItem;
use serde_json::{json, Map};
use std::sync::Arc;

/// The prefix of EO layer names.
pub const PREFIX: &str = "eo";

/// Most scenes listed as layers per account (the newest).
const MAX_LISTED: u32 = 500;

/// The EO scenes as layers.
pub struct EoLayers {
    eo: Arc<EoService>,
}

impl EoLayers {
    /// A source over the EO service.
    pub fn new(eo: Arc<EoService>) -> Self {
        Self { eo }
    }

    fn info(item: &EoItem) -> Option<LayerInfo> {
        let indices = available_indices(item);
        if indices.is_empty() || item.bbox.iter().any(|v| v.abs() > 180.0) {
            return None;
        }
        let styles = indices
            .iter()
            .filter_map(|name| {
                let style = TileStyle::named(name)?;
                let colors = ColorReliefOptions {
                    ramp: Some(style.colormap),
                    stops: None,
                    mode: ColorMode::default(),
                    alpha: true,
                };
                let legend = Legend::Ramp(
                    colors.samples(-1.0, 1.0, 11).into_iter().map(|(v, c)| (format!("{v:.1}"), c)).collect(),
                );
                Some(StyleInfo { name: (*name).to_owned(), title: name.to_uppercase(), legend })
            })
            .collect();
        Some(LayerInfo {
            name: format!("{PREFIX}:{}:{}", item.collection, item.id),
            title: format!("{} ({})", item.id, item.collection),
            abstract_: format!(
                "Spectral indices of scene {}/{} of {}, computed from its bands; GetFeatureInfo gives the index under the point.",
                item.collection,
                item.id,
                item.body.pointer("/properties/datetime").and_then(|v| v.as_str()).unwrap_or("")
            ),
            keywords: vec!["earth observation".into(), "STAC".into()],
            kind: LayerKind::Raster,
            bbox: Some(item.bbox),
            styles,
            queryable: true,
            revision: format!("{}.{}", item.seq, item.version),
        })
    }

    async fn resolve(&self, account: &AccountId, name: &str) -> Result<Option<(EoItem, LayerInfo)>, SourceError> {
        let Some(rest) = name.strip_prefix(PREFIX).and_then(|r| r.strip_prefix(':')) else { return Ok(None) };
        let Some((collection, item)) = rest.split_once(':') else { return Ok(None) };
        match self.eo.item(account, collection, item).await {
            Ok(item) => Ok(Self::info(&item).map(|info| (item, info))),
            Err(meridian_eo::Error::Domain(_)) => Ok(None),
            Err(e) => Err(SourceError::from_err("reading a scene", e)),
        }
    }

    async fn values(
        &self,
        account: &AccountId,
        item: &EoItem,
        style: &str,
        grid: Grid,
    ) -> Result<Option<(Vec<f32>, TileStyle)>, SourceError> {
        let Some(style) = TileStyle::named(style) else { return Ok(None) };
        match self.eo.index_grid(account, item, &style, grid).await {
            Ok(v) => Ok(v.map(|v| (v, style))),
            // A map no point of which reaches the scene's CRS shows nothing of it.
            Err(meridian_eo::Error::Raster(
                meridian_raster::Error::Crs(_) | meridian_raster::Error::InvalidArgument(_),
            )) => Ok(None),
            Err(e) => Err(SourceError::from_err("computing an index", e)),
        }
    }
}

#[async_trait]
impl LayerSource for EoLayers {
    fn name(&self) -> &'static str {
        PREFIX
    }

    fn title(&self) -> &'static str {
        "Earth observation scenes (spectral indices)"
    }

    async fn layers(&self, account: &AccountId) -> Result<Vec<LayerInfo>, SourceError> {
        let search = Search { limit: Some(MAX_LISTED), sort: meridian_store::eo::default_sort(), ..Search::default() };
        let page = self.eo.search(account, &search).await.map_err(|e| SourceError::from_err("listing scenes", e))?;
        Ok(page.items.iter().filter_map(Self::info).collect())
    }

    async fn layer(&self, account: &AccountId, name: &str) -> Result<Option<LayerInfo>, SourceError> {
        Ok(self.resolve(account, name).await?.map(|(_, info)| info))
    }

    async fn render(
        &self,
        account: &AccountId,
        layer: &LayerInfo,
        style: &StyleInfo,
        view: &View,
    ) -> Result<Option<tiny_skia::Pixmap>, SourceError> {
        let Some((item, _)) = self.resolve(account, &layer.name).await? else { return Ok(None) };
        let grid = Grid::from_bbox(view.bbox, view.width as usize, view.height as usize, view.crs.epsg());
        let Some((values, style)) = self.values(account, &item, &style.name, grid).await? else { return Ok(None) };
        Ok(pixmap_from_rgba(&paint(&values, &style), view.width, view.height))
    }

    async fn feature_info(
        &self,
        account: &AccountId,
        layer: &LayerInfo,
        view: &View,
        i: u32,
        j: u32,
        _count: usize,
    ) -> Result<Vec<Hit>, SourceError> {
        let Some((item, info)) = self.resolve(account, &layer.name).await? else { return Ok(Vec::new()) };
        let (x0, y1) = view.to_map(f64::from(i), f64::from(j));
        let (x1, y0) = view.to_map(f64::from(i) + 1.0, f64::from(j) + 1.0);
        let grid = Grid::from_bbox([x0, y0, x1, y1], 1, 1, view.crs.epsg());
        let mut properties = Map::new();
        for style in &info.styles {
            if let Some((v, _)) = self.values(account, &item, &style.name, grid).await? {
                if v[0].is_finite() {
                    properties.insert(style.name.clone(), json!(v[0]));
                }
            }
        }
        if properties.is_empty() {
            return Ok(Vec::new());
        }
        properties.insert("scene".into(), json!(format!("{}/{}", item.collection, item.id)));
        Ok(vec![Hit { layer: layer.name.clone(), id: Some(item.id.clone()), properties, geometry: None }])
    }
}
