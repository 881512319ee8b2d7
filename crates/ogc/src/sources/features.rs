//! The feature collections of an account (the cadastre's parcels and every uploaded
//! collection) as vector layers, drawn from `FeatureService::list` with the view's box pushed
//! down to the spatial index.

use crate::layers::{Hit, LayerInfo, LayerKind, LayerSource, Legend, SourceError, StyleInfo};
use crate::render::vector::{draw_features, PixelGeometry, ToPixels, VectorStyle};
use crate::srs::View;
use async_trait::async_trait;
use meridian_collections::{FeatureService, ListQuery, Start};
use meridian_core::id::AccountId;
use meridian_features::Bbox;
use meridian_store::features::Feature;

/// The prefix of feature layer names.
pub const PREFIX: &str = "features";

/// Features fetched per round trip while drawing.
const PAGE: u32 = 2_000;

/// The vector styles every collection offers: `default` (translucent fill, outline) and
/// `outline`.
pub fn styles() -> Vec<(StyleInfo, VectorStyle)> {
    let default = VectorStyle {
        fill: Some([232, 116, 59, 153]),
        stroke: Some([160, 64, 26, 255]),
        stroke_width: 1.5,
        point_radius: 4.0,
        labels: false,
    };
    let outline = VectorStyle {
        fill: None,
        stroke: Some([200, 30, 30, 255]),
        stroke_width: 2.0,
        point_radius: 4.0,
        labels: false,
    };
    let labels = VectorStyle { labels: true, ..default };
    [
        ("default", "Translucent fill with an outline", default),
        ("outline", "Outline only", outline),
        ("labels", "Translucent fill, outline and a label (name, or lot/plan for parcels)", labels),
    ]
    .into_iter()
    .map(|(name, title, v)| {
        (
            StyleInfo {
                name: name.into(),
                title: title.into(),
                legend: Legend::Swatch { fill: v.fill, stroke: v.stroke },
            },
            v,
        )
    })
    .collect()
}

fn vector_style(name: &str) -> VectorStyle {
    styles().into_iter().find(|(s, _)| s.name == name).map(|(_, v)| v).unwrap_or(styles()[0].1)
}

/// The feature collections as layers.
pub struct FeatureLayers {
    features: FeatureService,
    /// Most features drawn in one layer of one map.
    max_features: usize,
}

impl FeatureLayers {
    /// A source over the feature service; a map draws at most `max_features` of one layer.
    pub fn new(features: FeatureService, max_features: usize) -> Self {
        Self { features, max_features }
    }

    async fn info(
        &self,
        account: &AccountId,
        id: &str,
        title: String,
        description: String,
    ) -> Result<LayerInfo, SourceError> {
        let extent =
            self.features.extent(account, id).await.map_err(|e| SourceError::from_err("collection extent", e))?;
        Ok(LayerInfo {
            name: format!("{PREFIX}:{id}"),
            title,
            abstract_: description,
            keywords: vec!["features".into(), id.to_owned()],
            kind: LayerKind::Vector,
            bbox: extent.bbox,
            styles: styles().into_iter().map(|(s, _)| s).collect(),
            queryable: true,
            revision: String::new(),
        })
    }

    /// Features of `collection` whose boxes meet `bbox`, at most `max`.
    async fn fetch(
        &self,
        account: &AccountId,
        collection: &str,
        bbox: Bbox,
        max: usize,
    ) -> Result<Vec<Feature>, SourceError> {
        let mut out = Vec::new();
        let mut start = Start::First;
        loop {
            let want = (max - out.len()).min(PAGE as usize) as u32;
            let q = ListQuery {
                collection: collection.to_owned(),
                bbox: Some(bbox),
                limit: want,
                start,
                ..ListQuery::default()
            };
            let mut page =
                self.features.list(account, &q).await.map_err(|e| SourceError::from_err("listing features", e))?;
            out.extend(page.take_features().map_err(|e| SourceError::from_err("listing features", e))?);
            match page.next {
                Some(c) if out.len() < max => start = Start::Cursor(c),
                _ => break,
            }
        }
        Ok(out)
    }
}

#[async_trait]
impl LayerSource for FeatureLayers {
    fn name(&self) -> &'static str {
        PREFIX
    }

    fn title(&self) -> &'static str {
        "Feature collections"
    }

    async fn layers(&self, account: &AccountId) -> Result<Vec<LayerInfo>, SourceError> {
        let collections =
            self.features.collections(account).await.map_err(|e| SourceError::from_err("listing collections", e))?;
        let mut out = Vec::with_capacity(collections.len());
        for c in collections {
            out.push(self.info(account, &c.id, c.title, c.description).await?);
        }
        Ok(out)
    }

    async fn layer(&self, account: &AccountId, name: &str) -> Result<Option<LayerInfo>, SourceError> {
        let Some(id) = name.strip_prefix(PREFIX).and_then(|r| r.strip_prefix(':')) else { return Ok(None) };
        match self.features.collection(account, id).await {
            Ok(c) => Ok(Some(self.info(account, &c.id, c.title, c.description).await?)),
            Err(meridian_collections::Error::Domain(_)) => Ok(None),
            Err(e) => Err(SourceError::from_err("reading a collection", e)),
        }
    }

    async fn render(
        &self,
        account: &AccountId,
        layer: &LayerInfo,
        style: &StyleInfo,
        view: &View,
    ) -> Result<Option<tiny_skia::Pixmap>, SourceError> {
        let Some(bbox) = view.crs84_box(4.0) else { return Ok(None) };
        if let Some(b) = layer.bbox {
            if b[0] > bbox.max_x || b[2] < bbox.min_x || b[1] > bbox.max_y || b[3] < bbox.min_y {
                return Ok(None);
            }
        }
        let features = self.fetch(account, layer.local_id(), bbox, self.max_features).await?;
        if features.is_empty() {
            return Ok(None);
        }
        let vs = vector_style(&style.name);
        let view = *view;
        tokio::task::spawn_blocking(move || {
            let mut pixmap = tiny_skia::Pixmap::new(view.width, view.height)?;
            draw_features(
                &mut pixmap,
                &view,
                &vs,
                features.iter().filter_map(|f| f.geometry.as_ref().map(|g| (f.id.as_str(), &f.properties, g))),
            );
            Some(pixmap)
        })
        .await
        .map_err(|e| SourceError::from_err("drawing features", e))
    }

    async fn feature_info(
        &self,
        account: &AccountId,
        layer: &LayerInfo,
        view: &View,
        i: u32,
        j: u32,
        count: usize,
    ) -> Result<Vec<Hit>, SourceError> {
        // A few pixels around the point, as MapServer's default tolerance.
        const TOLERANCE: f32 = 3.0;
        let (x0, y0) = view.to_map(f64::from(i) - f64::from(TOLERANCE), f64::from(j) + 1.0 + f64::from(TOLERANCE));
        let (x1, y1) = view.to_map(f64::from(i) + 1.0 + f64::from(TOLERANCE), f64::from(j) - f64::from(TOLERANCE));
        let small = View { bbox: [x0, y0, x1, y1], width: 1, height: 1, ..*view };
        let Some(bbox) = small.crs84_box(0.0) else { return Ok(Vec::new()) };
        let candidates = self.fetch(account, layer.local_id(), bbox, 1_000).await?;
        let view = *view;
        let name = layer.name.clone();
        tokio::task::spawn_blocking(move || {
            let Some(to) = ToPixels::new(&view) else { return Vec::new() };
            let (px, py) = (i as f32 + 0.5, j as f32 + 0.5);
            candidates
                .into_iter()
                .filter(|f| f.geometry.as_ref().is_some_and(|g| PixelGeometry::of(g, &to).hits(px, py, TOLERANCE)))
                .take(count)
                .map(|f| Hit { layer: name.clone(), id: Some(f.id), properties: f.properties, geometry: f.geometry })
                .collect()
        })
        .await
        .map_err(|e| SourceError::from_err("testing features", e))
    }
}
