//! The CRS layer: EPSG codes to PROJ.4 definitions (crs-definitions) and point transformations
//! (proj4rs), in pure Rust. Geographic coordinates are longitude, latitude in degrees (x = east),
//! the order GIS software and GeoJSON use. Reusable by any area that needs to transform
//! coordinates (the cadastre's `crs` parameter included).

use crate::{Error, Result};
use proj4rs::proj::Proj;

/// A coordinate reference system known by its EPSG code.
#[derive(Debug)]
pub struct Crs {
    epsg: u16,
    proj: Proj,
}

impl Crs {
    /// The CRS of an EPSG code; fails for codes without a PROJ.4 definition.
    pub fn from_epsg(code: u16) -> Result<Self> {
        let proj = Proj::from_epsg_code(code).map_err(|e| Error::Crs(format!("EPSG:{code}: {e}")))?;
        Ok(Self { epsg: code, proj })
    }

    /// The EPSG code.
    pub fn epsg(&self) -> u16 {
        self.epsg
    }

    /// Whether coordinates are longitude and latitude in degrees.
    pub fn is_geographic(&self) -> bool {
        self.proj.is_latlong()
    }
}

/// Whether an EPSG code names a geographic CRS (false for unknown codes).
pub fn is_geographic_epsg(code: u16) -> bool {
    Crs::from_epsg(code).map(|c| c.is_geographic()).unwrap_or(false)
}

/// Parses `EPSG:4326`, `epsg:2056`, a bare code, or an OGC CRS URI
/// (`http://www.opengis.net/def/crs/EPSG/0/3857`; `.../OGC/1.3/CRS84` is EPSG:4326).
pub fn parse_crs(s: &str) -> Option<u16> {
    let t = s.trim();
    if t.ends_with("/OGC/1.3/CRS84") || t.eq_ignore_ascii_case("CRS84") || t.eq_ignore_ascii_case("OGC:CRS84") {
        return Some(4326);
    }
    let code = if let Some(rest) = t.strip_prefix("EPSG:").or_else(|| t.strip_prefix("epsg:")) {
        rest
    } else if let Some(i) = t.find("/EPSG/") {
        t[i + 6..].rsplit('/').next().unwrap_or("")
    } else {
        t
    };
    code.parse().ok()
}

/// Transforms points from one CRS to another.
#[derive(Debug)]
pub struct Transformer {
    src: Crs,
    dst: Crs,
}

impl Transformer {
    /// A transformer between two EPSG codes.
    pub fn new(src: u16, dst: u16) -> Result<Self> {
        Ok(Self { src: Crs::from_epsg(src)?, dst: Crs::from_epsg(dst)? })
    }

    /// The source CRS.
    pub fn source(&self) -> &Crs {
        &self.src
    }

    /// The target CRS.
    pub fn target(&self) -> &Crs {
        &self.dst
    }

    /// Transforms one point.
    pub fn transform(&self, x: f64, y: f64) -> Result<(f64, f64)> {
        let mut p = [(x, y)];
        self.transform_in_place(&mut p)?;
        Ok(p[0])
    }

    /// Transforms points in place; a point that cannot be transformed becomes NaN and the call
    /// still succeeds unless every point failed.
    pub fn transform_in_place(&self, points: &mut [(f64, f64)]) -> Result<()> {
        if self.src.epsg == self.dst.epsg {
            return Ok(());
        }
        let mut failed = 0;
        for p in points.iter_mut() {
            let (mut x, mut y) = *p;
            if self.src.is_geographic() {
                x = x.to_radians();
                y = y.to_radians();
            }
            let mut q = (x, y, 0.0);
            match proj4rs::transform::transform(&self.src.proj, &self.dst.proj, &mut q) {
                Ok(()) if q.0.is_finite() && q.1.is_finite() => {
                    *p = if self.dst.is_geographic() { (q.0.to_degrees(), q.1.to_degrees()) } else { (q.0, q.1) };
                }
                _ => {
                    *p = (f64::NAN, f64::NAN);
                    failed += 1;
                }
            }
        }
        if failed > 0 && failed == points.len() {
            return Err(Error::Crs(format!(
                "no point could be transformed from EPSG:{} to EPSG:{}",
                self.src.epsg, self.dst.epsg
            )));
        }
        Ok(())
    }
}

/// The UTM zone EPSG code (WGS 84) for a longitude and latitude.
pub fn utm_epsg(lon: f64, lat: f64) -> u16 {
    let zone = (((lon + 180.0) / 6.0).floor() as i32).clamp(0, 59) + 1;
    if lat >= 0.0 {
        32600 + zone as u16
    } else {
        32700 + zone as u16
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_crs_names() {
        assert_eq!(parse_crs("EPSG:2056"), Some(2056));
        assert_eq!(parse_crs("http://www.opengis.net/def/crs/EPSG/0/3857"), Some(3857));
        assert_eq!(parse_crs("http://www.opengis.net/def/crs/OGC/1.3/CRS84"), Some(4326));
        assert_eq!(parse_crs("nonsense"), None);
    }

    #[test]
    fn swiss_reference_point_matches_swisstopo() {
        // swisstopo's reference: Zimmerwald 2602030.74, 1191775.03 (LV95) is 7.46527°E, 46.87709°N
        // (to about a metre with the 3-parameter datum shift).
        let t = Transformer::new(2056, 4326).unwrap();
        let (lon, lat) = t.transform(2_602_030.74, 1_191_775.03).unwrap();
        assert!((lon - 7.465_27).abs() < 2e-5, "{lon}");
        assert!((lat - 46.877_09).abs() < 2e-5, "{lat}");
        let back = Transformer::new(4326, 2056).unwrap().transform(lon, lat).unwrap();
        assert!((back.0 - 2_602_030.74).abs() < 0.01 && (back.1 - 1_191_775.03).abs() < 0.01);
    }

    #[test]
    fn web_mercator_and_utm() {
        let t = Transformer::new(4326, 3857).unwrap();
        let (x, y) = t.transform(180.0, 0.0).unwrap();
        assert!((x - 20_037_508.342_789_244).abs() < 1e-3 && y.abs() < 1e-6);
        assert_eq!(utm_epsg(7.4, 46.9), 32632);
        let u = Transformer::new(4326, 32632).unwrap().transform(9.0, 0.0).unwrap();
        assert!((u.0 - 500_000.0).abs() < 1e-3 && u.1.abs() < 1e-3);
    }
}
