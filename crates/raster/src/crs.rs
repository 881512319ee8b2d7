//! The raster engine's side of the platform's CRS module (`meridian_core::crs`): transformers
//! between EPSG codes with x east and y north on both sides (longitude first for geographic
//! CRSs), with the engine's errors.

use crate::{Error, Result};
pub use meridian_core::crs::{is_geographic_epsg, utm_epsg, Transformer};

/// A transformer between two EPSG codes; fails for codes without a definition.
pub fn transformer(src: u16, dst: u16) -> Result<Transformer> {
    Transformer::between_epsg(src, dst).map_err(|e| Error::Crs(format!("EPSG:{src} to EPSG:{dst}: {e}")))
}

/// Transforms points in place; a point that cannot be transformed becomes NaN, and the call fails
/// only when every point failed.
pub fn transform_all(t: &Transformer, points: &mut [(f64, f64)]) -> Result<()> {
    let failed = t.apply_in_place(points);
    if failed > 0 && failed == points.len() {
        return Err(Error::Crs(format!(
            "no point could be transformed from EPSG:{} to EPSG:{}",
            t.source_epsg(),
            t.target_epsg()
        )));
    }
    Ok(())
}
