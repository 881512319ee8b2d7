//! Coordinate reference systems: parsing CRS identifiers as OGC API Features uses them, axis
//! order, and transformation between any two EPSG codes that have a definition (pure Rust,
//! proj4rs with the EPSG definitions compiled in).

use proj4rs::Proj;
use std::fmt;

/// The URI of WGS84 longitude/latitude (the default CRS of GeoJSON and OGC API Features).
pub const CRS84_URI: &str = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";

/// A coordinate reference system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Crs {
    /// WGS84 with longitude first.
    Crs84,
    /// An EPSG code; geographic EPSG codes put latitude first.
    Epsg(u16),
}

impl Crs {
    /// Parses `http://www.opengis.net/def/crs/EPSG/0/NNNN`, `EPSG:NNNN`, `urn:ogc:def:crs:EPSG::NNNN`,
    /// the CRS84 URI, `CRS84` or `OGC:CRS84`. Unknown codes are refused.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        let t = t.strip_prefix('[').and_then(|s| s.strip_suffix(']')).unwrap_or(t);
        let lower = t.to_ascii_lowercase();
        if lower.ends_with("/ogc/1.3/crs84")
            || lower == "crs84"
            || lower == "ogc:crs84"
            || lower.ends_with("ogc:1.3:crs84")
        {
            return Ok(Crs::Crs84);
        }
        let code = lower
            .strip_prefix("http://www.opengis.net/def/crs/epsg/0/")
            .or_else(|| lower.strip_prefix("https://www.opengis.net/def/crs/epsg/0/"))
            .or_else(|| lower.strip_prefix("epsg:"))
            .or_else(|| lower.strip_prefix("urn:ogc:def:crs:epsg::"))
            .or_else(|| lower.strip_prefix("urn:ogc:def:crs:epsg:"))
            .and_then(|c| c.rsplit(':').next())
            .ok_or_else(|| format!("`{text}` is not a CRS identifier; use a URI like {CRS84_URI} or http://www.opengis.net/def/crs/EPSG/0/3857"))?;
        // An EPSG identifier whose code is not one we know (or not a number) is an unknown CRS,
        // not a malformed identifier.
        let unknown = || format!("EPSG:{code} is an unknown or unsupported CRS");
        let code = code.parse::<u16>().map_err(|_| unknown())?;
        if Proj::from_epsg_code(code).is_err() {
            return Err(unknown());
        }
        Ok(Crs::Epsg(code))
    }

    /// The OGC URI.
    pub fn uri(&self) -> String {
        match self {
            Crs::Crs84 => CRS84_URI.to_owned(),
            Crs::Epsg(code) => format!("http://www.opengis.net/def/crs/EPSG/0/{code}"),
        }
    }

    fn proj(&self) -> Result<Proj, String> {
        let code = match self {
            Crs::Crs84 => 4326,
            Crs::Epsg(c) => *c,
        };
        Proj::from_epsg_code(code).map_err(|e| format!("EPSG:{code}: {e}"))
    }

    /// Whether coordinates are degrees of longitude and latitude.
    pub fn is_geographic(&self) -> bool {
        self.proj().is_ok_and(|p| p.is_latlong())
    }

    /// Whether the first axis is latitude (EPSG geographic CRSs by URI, per OGC API Features Part 2).
    pub fn lat_first(&self) -> bool {
        matches!(self, Crs::Epsg(_)) && self.is_geographic()
    }
}

impl fmt::Display for Crs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.uri())
    }
}

/// Transforms coordinates between two CRSs, each in its own axis order.
pub struct Transformer {
    src: Proj,
    dst: Proj,
    src_geo: bool,
    dst_geo: bool,
    src_swap: bool,
    dst_swap: bool,
    identity: bool,
}

impl Transformer {
    /// A transformer from `from` to `to`.
    pub fn new(from: Crs, to: Crs) -> Result<Self, String> {
        let (src, dst) = (from.proj()?, to.proj()?);
        Ok(Self {
            src_geo: src.is_latlong(),
            dst_geo: dst.is_latlong(),
            src_swap: from.lat_first(),
            dst_swap: to.lat_first(),
            identity: from == to,
            src,
            dst,
        })
    }

    /// Transforms one position; `None` when it cannot be transformed (out of the projection's domain).
    pub fn apply(&self, x: f64, y: f64) -> Option<(f64, f64)> {
        if self.identity {
            return Some((x, y));
        }
        let (mut x, mut y) = if self.src_swap { (y, x) } else { (x, y) };
        if self.src_geo {
            x = x.to_radians();
            y = y.to_radians();
        }
        let mut p = (x, y, 0.0);
        proj4rs::transform::transform(&self.src, &self.dst, &mut p).ok()?;
        let (mut ox, mut oy) = (p.0, p.1);
        if self.dst_geo {
            ox = ox.to_degrees();
            oy = oy.to_degrees();
        }
        if !(ox.is_finite() && oy.is_finite()) {
            return None;
        }
        Some(if self.dst_swap { (oy, ox) } else { (ox, oy) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_identifiers() {
        assert_eq!(Crs::parse(CRS84_URI), Ok(Crs::Crs84));
        assert_eq!(Crs::parse("EPSG:3857"), Ok(Crs::Epsg(3857)));
        assert_eq!(Crs::parse("http://www.opengis.net/def/crs/EPSG/0/7856"), Ok(Crs::Epsg(7856)));
        assert_eq!(Crs::parse("urn:ogc:def:crs:EPSG::4326"), Ok(Crs::Epsg(4326)));
        assert!(Crs::parse("EPSG:1").is_err());
        assert!(Crs::parse("nonsense").is_err());
    }

    #[test]
    fn unknown_epsg_codes_are_unsupported_not_malformed() {
        for (text, code) in
            [("http://www.opengis.net/def/crs/EPSG/0/99999", "99999"), ("EPSG:1", "1"), ("EPSG:12ab", "12ab")]
        {
            let e = Crs::parse(text).err().unwrap_or_default();
            assert_eq!(e, format!("EPSG:{code} is an unknown or unsupported CRS"), "{text}");
        }
        assert!(Crs::parse("nonsense").is_err_and(|e| e.contains("is not a CRS identifier")));
    }

    #[test]
    fn web_mercator_and_axis_order() -> Result<(), String> {
        let t = Transformer::new(Crs::Crs84, Crs::Epsg(3857))?;
        let (x, y) = t.apply(151.2093, -33.8688).ok_or("no transform")?;
        assert!((x - 16_832_542.279).abs() < 0.01 && (y - (-4_011_198.647)).abs() < 0.01, "{x} {y}");
        let t = Transformer::new(Crs::Crs84, Crs::Epsg(4326))?;
        assert_eq!(t.apply(10.0, 50.0).map(|(a, b)| (a.round(), b.round())), Some((50.0, 10.0)));
        Ok(())
    }
}
