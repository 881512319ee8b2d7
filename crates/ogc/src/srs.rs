//! CRS names as OGC services read and write them, on top of the platform's CRS layer
//! (`meridian_core::crs`, proj4rs with the EPSG definitions): the spellings clients send
//! (`CRS:84`, `EPSG:n`, OGC URNs and URIs, GML 2's `epsg.xml#n`), the names WMS and WMTS write
//! (`CRS:84`, `EPSG:n`) and those WFS and GML write (`urn:ogc:def:crs:EPSG::n`, the CRS84 URI),
//! and map views and boxes. Inside the services every box and position is easting/longitude
//! first; axis order is applied only where a request is read or a document written (WMS 1.3.0
//! `BBOX` and `BoundingBox`, WMTS `TopLeftCorner`, WFS `srsName`).

use crate::ows::{ExceptionCode, OgcError};
use meridian_core::crs::{Crs, Transformer, CRS84_URI};
use meridian_features::Bbox;

/// The CRSs every map layer can be served in, as advertised.
pub const DEFAULT_CRS: &[&str] =
    &["CRS:84", "EPSG:4326", "EPSG:3857", "EPSG:2056", "EPSG:7856", "EPSG:28356", "EPSG:32756"];

/// Reads a CRS name as OGC clients send it: whatever `Crs::parse` reads (`EPSG:n`, OGC URNs
/// and URIs, `CRS84`), WMS's `CRS:84`, `urn:x-ogc:def:crs:EPSG:n`, and GML 2's
/// `http://www.opengis.net/gml/srs/epsg.xml#n` (its 4326 was meant longitude first: CRS84).
pub fn parse(name: &str) -> Result<Crs, String> {
    let t = name.trim();
    if t.eq_ignore_ascii_case("CRS:84") {
        return Ok(Crs::Crs84);
    }
    let lower = t.to_ascii_lowercase();
    if let Some(code) = lower.strip_prefix("http://www.opengis.net/gml/srs/epsg.xml#") {
        return if code == "4326" { Ok(Crs::Crs84) } else { Crs::parse(&format!("EPSG:{code}")) };
    }
    if let Some(code) = lower.strip_prefix("urn:x-ogc:def:crs:epsg:") {
        return Crs::parse(&format!("EPSG:{}", code.trim_start_matches(':')));
    }
    Crs::parse(t)
}

/// The name WMS and WMTS documents use for a CRS (`CRS:84`, `EPSG:n`).
pub fn name(crs: Crs) -> String {
    match crs {
        Crs::Crs84 => "CRS:84".into(),
        Crs::Epsg(c) => format!("EPSG:{c}"),
    }
}

/// The name WFS and GML documents use for a CRS (`srsName`): the URN form for EPSG codes, the
/// URI for CRS84.
pub fn urn(crs: Crs) -> String {
    match crs {
        Crs::Crs84 => CRS84_URI.to_owned(),
        Crs::Epsg(code) => format!("urn:ogc:def:crs:EPSG::{code}"),
    }
}

/// Points along the edges of a box (easting first), 17 on each side, for transforming boxes.
fn edge_points(b: [f64; 4]) -> impl Iterator<Item = (f64, f64)> {
    (0..=16).flat_map(move |i| {
        let f = f64::from(i) / 16.0;
        [
            (b[0] + f * (b[2] - b[0]), b[1]),
            (b[0] + f * (b[2] - b[0]), b[3]),
            (b[0], b[1] + f * (b[3] - b[1])),
            (b[2], b[1] + f * (b[3] - b[1])),
        ]
    })
}

/// What a map or tile covers: a CRS, a box (easting/longitude first) and a size in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    pub crs: Crs,
    /// min x, min y, max x, max y; x is easting or longitude.
    pub bbox: [f64; 4],
    pub width: u32,
    pub height: u32,
}

impl View {
    /// Map units per pixel along x and y.
    pub fn resolution(&self) -> (f64, f64) {
        ((self.bbox[2] - self.bbox[0]) / self.width as f64, (self.bbox[3] - self.bbox[1]) / self.height as f64)
    }

    /// The pixel position (column, row from the top) of a map position.
    pub fn to_pixel(&self, x: f64, y: f64) -> (f64, f64) {
        let (rx, ry) = self.resolution();
        ((x - self.bbox[0]) / rx, (self.bbox[3] - y) / ry)
    }

    /// The map position of a pixel position.
    pub fn to_map(&self, px: f64, py: f64) -> (f64, f64) {
        let (rx, ry) = self.resolution();
        (self.bbox[0] + px * rx, self.bbox[3] - py * ry)
    }

    /// The CRS84 box holding the view grown by `margin` pixels on each side (edges sampled);
    /// `None` when it cannot be transformed.
    pub fn crs84_box(&self, margin: f64) -> Option<Bbox> {
        let (rx, ry) = self.resolution();
        let b = [
            self.bbox[0] - margin * rx,
            self.bbox[1] - margin * ry,
            self.bbox[2] + margin * rx,
            self.bbox[3] + margin * ry,
        ];
        let to = Projector::new(self.crs, Crs::Crs84)?;
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for (lon, lat) in edge_points(b).filter_map(|(x, y)| to.apply(x, y)) {
            xs.push(lon);
            ys.push(lat);
        }
        if xs.is_empty() {
            return None;
        }
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some(Bbox {
            min_x: min(&xs).max(-180.0),
            min_y: min(&ys).max(-90.0),
            max_x: max(&xs).min(180.0),
            max_y: max(&ys).min(90.0),
        })
    }

    /// Ground metres per unit of the view's CRS near its centre (gdaldem's `-s`).
    pub fn ground_scale(&self) -> f64 {
        if self.crs.is_geographic() {
            return 111_120.0;
        }
        if self.crs == Crs::Epsg(3857) {
            let my = (self.bbox[1] + self.bbox[3]) / 2.0;
            let lat = 2.0 * (my / 6_378_137.0).exp().atan() - std::f64::consts::FRAC_PI_2;
            return lat.cos();
        }
        1.0
    }
}

/// Transforms positions between two CRSs, easting/longitude first on both sides.
pub struct Projector {
    t: Transformer,
    swap_in: bool,
    swap_out: bool,
}

impl Projector {
    /// `None` when either CRS is unknown.
    pub fn new(from: Crs, to: Crs) -> Option<Self> {
        Some(Self { t: Transformer::new(from, to).ok()?, swap_in: from.lat_first(), swap_out: to.lat_first() })
    }

    /// One position; `None` outside the projection's domain.
    pub fn apply(&self, x: f64, y: f64) -> Option<(f64, f64)> {
        let (a, b) = if self.swap_in { (y, x) } else { (x, y) };
        let (p, q) = self.t.apply(a, b)?;
        Some(if self.swap_out { (q, p) } else { (p, q) })
    }
}

/// Where a CRS is meant to be used (EPSG's area of use, CRS84), for the CRSs offered by default;
/// `None` for the world or an unlisted CRS. Boxes are clipped to it before they are transformed,
/// so that a layer in Sydney gets no meaningless LV95 box.
pub fn area_of_use(crs: Crs) -> Option<[f64; 4]> {
    match crs {
        Crs::Epsg(3857) => Some([-180.0, -85.06, 180.0, 85.06]),
        Crs::Epsg(2056) => Some([5.96, 45.82, 10.49, 47.81]),
        Crs::Epsg(7856) | Crs::Epsg(28356) => Some([150.0, -58.96, 156.0, -13.87]),
        Crs::Epsg(32756) => Some([150.0, -80.0, 156.0, 0.0]),
        _ => None,
    }
}

/// The part of a CRS84 box inside `crs`'s area of use; `None` when they do not meet.
pub fn clip_to_area(b: [f64; 4], crs: Crs) -> Option<[f64; 4]> {
    let Some(a) = area_of_use(crs) else { return Some(b) };
    let c = [b[0].max(a[0]), b[1].max(a[1]), b[2].min(a[2]), b[3].min(a[3])];
    (c[0] < c[2] && c[1] < c[3]).then_some(c)
}

/// A CRS84 box in `crs` (easting first), edges sampled; `None` when it cannot be transformed.
/// Latitudes are clipped to ±85.06° for Web Mercator.
pub fn bbox_from_crs84(b: [f64; 4], crs: Crs) -> Option<[f64; 4]> {
    if crs == Crs::Crs84 || crs == Crs::Epsg(4326) {
        return Some(b);
    }
    let mut b = b;
    if crs == Crs::Epsg(3857) {
        b[1] = b[1].max(-85.051_128_78);
        b[3] = b[3].min(85.051_128_78);
    }
    let p = Projector::new(Crs::Crs84, crs)?;
    let mut out = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    for (x, y) in edge_points(b) {
        let (px, py) = p.apply(x, y)?;
        out = [out[0].min(px), out[1].min(py), out[2].max(px), out[3].max(py)];
    }
    out.iter().all(|v| v.is_finite()).then_some(out)
}

/// Reads `minx,miny,maxx,maxy` in `crs`'s axis order (WMS 1.3.0) into an easting-first box.
pub fn parse_bbox(text: &str, crs: Crs, axis_order: bool) -> Result<[f64; 4], OgcError> {
    let bad = |why: &str| OgcError::new(ExceptionCode::InvalidParameterValue, Some("BBOX".into()), why.to_owned());
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() != 4 {
        return Err(bad("BBOX takes four numbers: minx,miny,maxx,maxy in the CRS's axis order"));
    }
    let mut v = [0.0; 4];
    for (o, p) in v.iter_mut().zip(&parts) {
        *o =
            p.trim().parse::<f64>().ok().filter(|f| f.is_finite()).ok_or_else(|| bad("BBOX values must be numbers"))?;
    }
    if v[0] >= v[2] || v[1] >= v[3] {
        return Err(bad("BBOX minimum values must be less than its maximum values"));
    }
    if axis_order && crs.lat_first() {
        v = [v[1], v[0], v[3], v[2]];
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epsg_4326_boxes_are_latitude_first() {
        let b = parse_bbox("-34,151,-33,152", Crs::Epsg(4326), true).unwrap_or_default();
        assert_eq!(b, [151.0, -34.0, 152.0, -33.0]);
        let b = parse_bbox("151,-34,152,-33", Crs::Crs84, true).unwrap_or_default();
        assert_eq!(b, [151.0, -34.0, 152.0, -33.0]);
    }

    #[test]
    fn names_read_in_every_spelling() {
        for (text, crs) in [
            ("CRS:84", Crs::Crs84),
            ("EPSG:4326", Crs::Epsg(4326)),
            ("urn:ogc:def:crs:EPSG::3857", Crs::Epsg(3857)),
            ("urn:x-ogc:def:crs:EPSG:2056", Crs::Epsg(2056)),
            ("http://www.opengis.net/gml/srs/epsg.xml#4326", Crs::Crs84),
            ("http://www.opengis.net/gml/srs/epsg.xml#3857", Crs::Epsg(3857)),
        ] {
            assert_eq!(parse(text), Ok(crs), "{text}");
        }
        assert!(parse("EPSG:1").is_err());
        assert_eq!((name(Crs::Crs84), urn(Crs::Epsg(7856))), ("CRS:84".into(), "urn:ogc:def:crs:EPSG::7856".into()));
    }

    #[test]
    fn lv95_boxes_come_out_near_bern() {
        let b = bbox_from_crs84([7.43, 46.94, 7.45, 46.96], Crs::Epsg(2056)).unwrap_or_default();
        assert!((b[0] - 2_599_500.0).abs() < 2_000.0 && (b[1] - 1_199_000.0).abs() < 3_000.0, "{b:?}");
    }
}
