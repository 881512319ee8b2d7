//! The one CRS module of the platform: parsing CRS identifiers as OGC services use them, axis
//! order, and transformation between any two EPSG codes that have a definition (pure Rust,
//! proj4rs with the EPSG definitions compiled in). Vector code transforms positions in each CRS's
//! own axis order ([`Transformer::new`]); raster code works x east, y north on both sides
//! ([`Transformer::between_epsg`]), and transforms grids of points in place.

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

    /// The EPSG code (4326 for CRS84).
    pub fn epsg(&self) -> u16 {
        match self {
            Crs::Crs84 => 4326,
            Crs::Epsg(c) => *c,
        }
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

fn parse_proj(proj: &str) -> Result<Proj, String> {
    Proj::from_proj_string(proj).map_err(|e| format!("{proj}: {e}"))
}

/// Transforms coordinates between two CRSs.
pub struct Transformer {
    src_epsg: u16,
    dst_epsg: u16,
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
            src_epsg: from.epsg(),
            dst_epsg: to.epsg(),
            src_geo: src.is_latlong(),
            dst_geo: dst.is_latlong(),
            src_swap: from.lat_first(),
            dst_swap: to.lat_first(),
            identity: from == to,
            src,
            dst,
        })
    }

    /// A transformer between two EPSG codes with x east and y north on both sides (longitude
    /// first for geographic CRSs), as rasters and GIS software order them.
    pub fn between_epsg(from: u16, to: u16) -> Result<Self, String> {
        let mut t = Self::new(Crs::Epsg(from), Crs::Epsg(to))?;
        t.src_swap = false;
        t.dst_swap = false;
        Ok(t)
    }

    /// A transformer from a CRS given as a PROJ string (one made from a file's own WKT, when no
    /// EPSG definition matches it) to an EPSG code, x east and y north on both sides.
    pub fn from_proj_string(proj: &str, to: u16) -> Result<Self, String> {
        Ok(Self::unswapped(0, parse_proj(proj)?, to, Crs::Epsg(to).proj()?))
    }

    /// A transformer from an EPSG code to a CRS given as a PROJ string, x east and y north on
    /// both sides.
    pub fn to_proj_string(from: u16, proj: &str) -> Result<Self, String> {
        Ok(Self::unswapped(from, Crs::Epsg(from).proj()?, 0, parse_proj(proj)?))
    }

    /// Between two projections, axes as given (0 for a CRS with no EPSG code).
    fn unswapped(src_epsg: u16, src: Proj, dst_epsg: u16, dst: Proj) -> Self {
        Self {
            src_epsg,
            dst_epsg,
            src_geo: src.is_latlong(),
            dst_geo: dst.is_latlong(),
            src_swap: false,
            dst_swap: false,
            identity: false,
            src,
            dst,
        }
    }

    /// The EPSG code of the source CRS (4326 for CRS84).
    pub fn source_epsg(&self) -> u16 {
        self.src_epsg
    }

    /// The EPSG code of the target CRS (4326 for CRS84).
    pub fn target_epsg(&self) -> u16 {
        self.dst_epsg
    }

    /// Whether target coordinates are degrees.
    pub fn target_is_geographic(&self) -> bool {
        self.dst_geo
    }

    /// Transforms points in place; a point that cannot be transformed becomes NaN. Returns how
    /// many failed.
    pub fn apply_in_place(&self, points: &mut [(f64, f64)]) -> usize {
        let mut failed = 0;
        for p in points.iter_mut() {
            match self.apply(p.0, p.1) {
                Some(q) => *p = q,
                None => {
                    *p = (f64::NAN, f64::NAN);
                    failed += 1;
                }
            }
        }
        failed
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

/// The CRSs the feature services advertise (OGC API Features collection metadata, WFS
/// capabilities): WGS84 both ways, Web Mercator, and the Australian, UTM and Swiss grids the
/// platform's users work in. Any other EPSG code with a definition is accepted too.
pub const ADVERTISED: &[Crs] = &[
    Crs::Crs84,
    Crs::Epsg(4326),
    Crs::Epsg(3857),
    Crs::Epsg(4283),
    Crs::Epsg(7844),
    Crs::Epsg(28354),
    Crs::Epsg(28355),
    Crs::Epsg(28356),
    Crs::Epsg(7854),
    Crs::Epsg(7855),
    Crs::Epsg(7856),
    Crs::Epsg(32633),
    Crs::Epsg(32755),
    Crs::Epsg(32756),
    Crs::Epsg(2056),
];

/// Whether an EPSG code names a geographic CRS (false for unknown codes).
pub fn is_geographic_epsg(code: u16) -> bool {
    Crs::Epsg(code).is_geographic()
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
    fn swiss_reference_point_matches_swisstopo() -> Result<(), String> {
        // swisstopo's reference: Zimmerwald 2602030.74, 1191775.03 (LV95) is 7.46527°E, 46.87709°N
        // (to about a metre with the 3-parameter datum shift).
        let t = Transformer::between_epsg(2056, 4326)?;
        let (lon, lat) = t.apply(2_602_030.74, 1_191_775.03).ok_or("no transform")?;
        assert!((lon - 7.465_27).abs() < 2e-5, "{lon}");
        assert!((lat - 46.877_09).abs() < 2e-5, "{lat}");
        let back = Transformer::between_epsg(4326, 2056)?.apply(lon, lat).ok_or("no transform")?;
        assert!((back.0 - 2_602_030.74).abs() < 0.01 && (back.1 - 1_191_775.03).abs() < 0.01);
        Ok(())
    }

    #[test]
    fn rasters_work_x_east_and_utm_zones() -> Result<(), String> {
        let t = Transformer::between_epsg(4326, 3857)?;
        let (x, y) = t.apply(180.0, 0.0).ok_or("no transform")?;
        assert!((x - 20_037_508.342_789_244).abs() < 1e-3 && y.abs() < 1e-6);
        assert_eq!(utm_epsg(7.4, 46.9), 32632);
        let mut pts = [(9.0, 0.0), (f64::NAN, 0.0)];
        assert_eq!(Transformer::between_epsg(4326, 32632)?.apply_in_place(&mut pts), 1);
        assert!((pts[0].0 - 500_000.0).abs() < 1e-3 && pts[0].1.abs() < 1e-3);
        assert!(is_geographic_epsg(4326) && !is_geographic_epsg(2056));
        Ok(())
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
