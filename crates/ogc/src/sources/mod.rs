//! The areas' layer sources: feature collections and DEM rasters.

pub mod dem;
pub mod features;

pub use dem::DemLayers;
pub use features::FeatureLayers;
