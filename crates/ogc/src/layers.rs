//! The layer registry: one per tenant, filled by the areas that own data. Each area registers a
//! [`LayerSource`] (the feature collections, the DEM datasets and job outputs; EO scenes later);
//! the registry lists the caller's layers from every source and routes a layer name to the
//! source that draws or queries it. The OGC services know layers only through this trait.
//!
//! Layer names are `<source>:<id>` (`features:parcels`, `dem:dset_...`), so sources never clash
//! and a name says where the layer comes from, as GeoServer's `workspace:layer` does.

use crate::srs::View;
use async_trait::async_trait;
use meridian_core::id::AccountId;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Whether a layer is drawn from features or from a raster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerKind {
    Vector,
    Raster,
}

/// What a legend shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Legend {
    /// A polygon swatch with this fill and outline (straight RGBA).
    Swatch { fill: Option<[u8; 4]>, stroke: Option<[u8; 4]> },
    /// A colour ramp: labelled stops from the lowest value to the highest.
    Ramp(Vec<(String, [u8; 4])>),
}

/// One style of a layer.
#[derive(Clone, Debug, PartialEq)]
pub struct StyleInfo {
    pub name: String,
    pub title: String,
    pub legend: Legend,
}

/// A layer as the capabilities documents describe it.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerInfo {
    /// `<source>:<id>`.
    pub name: String,
    pub title: String,
    pub abstract_: String,
    pub keywords: Vec<String>,
    pub kind: LayerKind,
    /// CRS84 extent (min lon, min lat, max lon, max lat); none for an empty layer.
    pub bbox: Option<[f64; 4]>,
    /// The first style is the default.
    pub styles: Vec<StyleInfo>,
    /// Whether GetFeatureInfo answers for it.
    pub queryable: bool,
    /// What changes when the layer's data does (an EO scene's row and version), for keys of kept
    /// tiles; empty when the data never changes under the name (a DEM job's output).
    pub revision: String,
}

impl LayerInfo {
    /// The style named `name`, the default for an empty name or `default`.
    pub fn style(&self, name: &str) -> Option<&StyleInfo> {
        if name.is_empty() || name.eq_ignore_ascii_case("default") {
            return self.styles.first();
        }
        self.styles.iter().find(|s| s.name == name)
    }

    /// The part of the name after the source's prefix.
    pub fn local_id(&self) -> &str {
        self.name.split_once(':').map_or(self.name.as_str(), |(_, id)| id)
    }
}

/// A feature (or a raster sample) found under a point.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub layer: String,
    pub id: Option<String>,
    pub properties: Map<String, Value>,
    /// GeoJSON geometry in CRS84, when the hit is a feature.
    pub geometry: Option<Value>,
}

/// A source's failure: our fault, never the caller's (an unknown layer is `Ok(None)`).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SourceError(pub String);

impl SourceError {
    /// Wraps any error.
    pub fn from_err(context: &str, e: impl std::fmt::Display) -> Self {
        Self(format!("{context}: {e}"))
    }
}

/// An area's layers, as the OGC services see them.
#[async_trait]
pub trait LayerSource: Send + Sync {
    /// The prefix of its layer names and the name of its group in the layer tree.
    fn name(&self) -> &'static str;

    /// The group's title.
    fn title(&self) -> &'static str;

    /// Every layer of `account`.
    async fn layers(&self, account: &AccountId) -> Result<Vec<LayerInfo>, SourceError>;

    /// One layer of `account` by its full name; `None` when the account has no such layer.
    async fn layer(&self, account: &AccountId, name: &str) -> Result<Option<LayerInfo>, SourceError>;

    /// Draws `layer` with `style` over `view`; `None` when nothing is there. CPU work belongs on
    /// a blocking thread.
    async fn render(
        &self,
        account: &AccountId,
        layer: &LayerInfo,
        style: &StyleInfo,
        view: &View,
    ) -> Result<Option<tiny_skia::Pixmap>, SourceError>;

    /// What lies under pixel (`i`, `j`) of `view`: at most `count` hits.
    async fn feature_info(
        &self,
        account: &AccountId,
        layer: &LayerInfo,
        view: &View,
        i: u32,
        j: u32,
        count: usize,
    ) -> Result<Vec<Hit>, SourceError>;
}

/// Every registered source.
#[derive(Clone, Default)]
pub struct LayerRegistry {
    sources: Vec<Arc<dyn LayerSource>>,
}

impl LayerRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers an area's source.
    pub fn register(&mut self, source: Arc<dyn LayerSource>) -> &mut Self {
        self.sources.push(source);
        self
    }

    /// The sources, in registration order.
    pub fn sources(&self) -> &[Arc<dyn LayerSource>] {
        &self.sources
    }

    /// Every layer of `account`, grouped by source.
    pub async fn layers(
        &self,
        account: &AccountId,
    ) -> Result<Vec<(Arc<dyn LayerSource>, Vec<LayerInfo>)>, SourceError> {
        let mut out = Vec::new();
        for s in &self.sources {
            out.push((s.clone(), s.layers(account).await?));
        }
        Ok(out)
    }

    /// Every vector layer of `account` (what a feature service offers).
    pub async fn vector_layers(&self, account: &AccountId) -> Result<Vec<LayerInfo>, SourceError> {
        let mut out = Vec::new();
        for (_, layers) in self.layers(account).await? {
            out.extend(layers.into_iter().filter(|l| l.kind == LayerKind::Vector));
        }
        Ok(out)
    }

    /// The layer `name` of `account` and its source; `None` when it has none by that name.
    pub async fn find(
        &self,
        account: &AccountId,
        name: &str,
    ) -> Result<Option<(Arc<dyn LayerSource>, LayerInfo)>, SourceError> {
        let Some((prefix, _)) = name.split_once(':') else { return Ok(None) };
        for s in &self.sources {
            if s.name() == prefix {
                return Ok(s.layer(account, name).await?.map(|l| (s.clone(), l)));
            }
        }
        Ok(None)
    }
}
