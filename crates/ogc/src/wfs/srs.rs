//! CRS names as WFS 2.0 clients send and expect them. Parsing goes through
//! `meridian_core::crs::Crs` (EPSG geographic CRSs latitude first, CRS84 longitude first); the
//! old `http://www.opengis.net/gml/srs/epsg.xml#4326` form, which GML 2 clients meant
//! longitude first, is read as CRS84.

use meridian_core::crs::{Crs, CRS84_URI};

/// The CRS of answers when a request names none, as WFS 2.0 servers commonly default to.
pub const DEFAULT: Crs = Crs::Epsg(4326);

/// The CRSs listed in the capabilities (any other EPSG code with a definition works too).
pub const OFFERED: &[Crs] = &[
    Crs::Epsg(4326),
    Crs::Crs84,
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

/// Parses an `srsName`.
pub fn parse(text: &str) -> Result<Crs, String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    if let Some(code) = lower.strip_prefix("http://www.opengis.net/gml/srs/epsg.xml#") {
        return if code == "4326" { Ok(Crs::Crs84) } else { Crs::parse(&format!("EPSG:{code}")) };
    }
    if let Some(code) = lower.strip_prefix("urn:x-ogc:def:crs:epsg:") {
        return Crs::parse(&format!("EPSG:{}", code.trim_start_matches(':')));
    }
    Crs::parse(t)
}

/// The name written in documents: the URN form for EPSG codes, the URI for CRS84.
pub fn name(crs: Crs) -> String {
    match crs {
        Crs::Crs84 => CRS84_URI.to_owned(),
        Crs::Epsg(code) => format!("urn:ogc:def:crs:EPSG::{code}"),
    }
}
