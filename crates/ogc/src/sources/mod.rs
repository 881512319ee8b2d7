//! The areas' layer sources: feature collections, DEM rasters and EO scenes.

pub mod dem;
pub mod eo;
pub mod features;

pub use dem::DemLayers;
pub use eo::EoLayers;
pub use features::FeatureLayers;
