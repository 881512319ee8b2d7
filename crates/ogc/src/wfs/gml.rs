//! GML 3.2 geometries: writing stored GeoJSON geometries (already in the answer's CRS and axis
//! order) as GML, and reading GML geometries from filters and transactions as GeoJSON with the
//! coordinates as written and the `srsName` they came with.

use super::xml::Element;
use crate::ows::escape;
use serde_json::{json, Value};
use std::fmt::Write;

/// Most positions one GML geometry of a request may have.
pub const MAX_POSITIONS: usize = 250_000;

fn num(out: &mut String, v: &Value) {
    match v.as_f64() {
        Some(f) => {
            let _ = write!(out, "{f}");
        }
        None => out.push('0'),
    }
}

fn positions(out: &mut String, coords: &[Value]) {
    let mut first = true;
    for p in coords {
        let Some(p) = p.as_array() else { continue };
        for c in p.iter().take(2) {
            if !first {
                out.push(' ');
            }
            first = false;
            num(out, c);
        }
    }
}

fn ring(out: &mut String, tag: &str, coords: &Value) {
    let empty = Vec::new();
    let list = coords.as_array().unwrap_or(&empty);
    let _ = write!(out, "<gml:{tag}><gml:LinearRing><gml:posList srsDimension=\"2\">");
    positions(out, list);
    let _ = write!(out, "</gml:posList></gml:LinearRing></gml:{tag}>");
}

fn polygon_body(out: &mut String, coords: &Value) {
    if let Some(rings) = coords.as_array() {
        for (i, r) in rings.iter().enumerate() {
            ring(out, if i == 0 { "exterior" } else { "interior" }, r);
        }
    }
}

/// Writes a GeoJSON geometry as GML 3.2 with `gml:id`s derived from `id` (GML 3.2 requires one
/// on every geometry) and the `srsName` on the outermost element.
pub fn write_geometry(out: &mut String, g: &Value, id: &str, srs_name: Option<&str>) {
    let srs = srs_name.map(|s| format!(" srsName=\"{}\"", escape(s))).unwrap_or_default();
    let kind = g.get("type").and_then(Value::as_str).unwrap_or("");
    let empty = Value::Array(Vec::new());
    let coords = g.get("coordinates").unwrap_or(&empty);
    let items = coords.as_array().cloned().unwrap_or_default();
    match kind {
        "Point" => {
            let _ = write!(out, "<gml:Point gml:id=\"{id}\"{srs}><gml:pos srsDimension=\"2\">");
            positions(out, std::slice::from_ref(coords));
            out.push_str("</gml:pos></gml:Point>");
        }
        "LineString" => {
            let _ = write!(out, "<gml:LineString gml:id=\"{id}\"{srs}><gml:posList srsDimension=\"2\">");
            positions(out, &items);
            out.push_str("</gml:posList></gml:LineString>");
        }
        "Polygon" => {
            let _ = write!(out, "<gml:Polygon gml:id=\"{id}\"{srs}>");
            polygon_body(out, coords);
            out.push_str("</gml:Polygon>");
        }
        "MultiPoint" => {
            let _ = write!(out, "<gml:MultiPoint gml:id=\"{id}\"{srs}>");
            for (i, p) in items.iter().enumerate() {
                let _ = write!(out, "<gml:pointMember><gml:Point gml:id=\"{id}.{i}\"><gml:pos srsDimension=\"2\">");
                positions(out, std::slice::from_ref(p));
                out.push_str("</gml:pos></gml:Point></gml:pointMember>");
            }
            out.push_str("</gml:MultiPoint>");
        }
        "MultiLineString" => {
            let _ = write!(out, "<gml:MultiCurve gml:id=\"{id}\"{srs}>");
            for (i, l) in items.iter().enumerate() {
                let _ = write!(
                    out,
                    "<gml:curveMember><gml:LineString gml:id=\"{id}.{i}\"><gml:posList srsDimension=\"2\">"
                );
                positions(out, l.as_array().map(Vec::as_slice).unwrap_or(&[]));
                out.push_str("</gml:posList></gml:LineString></gml:curveMember>");
            }
            out.push_str("</gml:MultiCurve>");
        }
        "MultiPolygon" => {
            let _ = write!(out, "<gml:MultiSurface gml:id=\"{id}\"{srs}>");
            for (i, p) in items.iter().enumerate() {
                let _ = write!(out, "<gml:surfaceMember><gml:Polygon gml:id=\"{id}.{i}\">");
                polygon_body(out, p);
                out.push_str("</gml:Polygon></gml:surfaceMember>");
            }
            out.push_str("</gml:MultiSurface>");
        }
        "GeometryCollection" => {
            let _ = write!(out, "<gml:MultiGeometry gml:id=\"{id}\"{srs}>");
            let parts = g.get("geometries").and_then(Value::as_array).cloned().unwrap_or_default();
            for (i, part) in parts.iter().enumerate() {
                out.push_str("<gml:geometryMember>");
                write_geometry(out, part, &format!("{id}.{i}"), None);
                out.push_str("</gml:geometryMember>");
            }
            out.push_str("</gml:MultiGeometry>");
        }
        _ => {
            // Not a geometry this writer knows: an empty collection keeps the document valid.
            let _ = write!(out, "<gml:MultiGeometry gml:id=\"{id}\"{srs}/>");
        }
    }
}

/// A geometry read from GML: GeoJSON with the coordinates in the order written, and the
/// `srsName` of the outermost element that had one.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadGeometry {
    pub geojson: Value,
    pub srs_name: Option<String>,
}

struct Reader {
    positions: usize,
}

fn dimension(el: &Element, inherited: usize) -> usize {
    el.attr("srsDimension")
        .and_then(|d| d.trim().parse::<usize>().ok())
        .filter(|d| (2..=3).contains(d))
        .unwrap_or(inherited)
}

impl Reader {
    fn numbers(&mut self, text: &str, dim: usize) -> Result<Vec<Value>, String> {
        let nums: Vec<f64> = text
            .split_ascii_whitespace()
            .map(|t| t.parse::<f64>().map_err(|_| format!("`{t}` is not a number")))
            .collect::<Result<_, _>>()?;
        if nums.iter().any(|n| !n.is_finite()) {
            return Err("coordinates must be finite".into());
        }
        if !nums.len().is_multiple_of(dim) || nums.is_empty() {
            return Err(format!("a position list of {} numbers does not hold {dim}-dimensional positions", nums.len()));
        }
        self.count(nums.len() / dim)?;
        Ok(nums.chunks(dim).map(|c| json!([c[0], c[1]])).collect())
    }

    fn count(&mut self, n: usize) -> Result<(), String> {
        self.positions += n;
        if self.positions > MAX_POSITIONS {
            return Err(format!("a geometry has more than {MAX_POSITIONS} positions"));
        }
        Ok(())
    }

    /// `gml:coordinates` (GML 2 style: `x,y x,y`).
    fn coordinates(&mut self, el: &Element) -> Result<Vec<Value>, String> {
        let cs = el.attr("cs").unwrap_or(",");
        let ts = el.attr("ts").unwrap_or(" ");
        let mut out = Vec::new();
        for tuple in el.trimmed().split(|c: char| ts.contains(c) || (ts == " " && c.is_whitespace())) {
            if tuple.is_empty() {
                continue;
            }
            let parts: Vec<f64> = tuple
                .split(cs)
                .map(|t| t.trim().parse::<f64>().map_err(|_| format!("`{t}` is not a number")))
                .collect::<Result<_, _>>()?;
            if parts.len() < 2 || parts.iter().any(|n| !n.is_finite()) {
                return Err(format!("`{tuple}` is not a position"));
            }
            out.push(json!([parts[0], parts[1]]));
        }
        self.count(out.len())?;
        Ok(out)
    }

    /// The positions of a LineString, LinearRing or LineStringSegment.
    fn line(&mut self, el: &Element, dim: usize) -> Result<Vec<Value>, String> {
        let dim = dimension(el, dim);
        if let Some(pl) = el.child("posList") {
            return self.numbers(pl.trimmed(), dimension(pl, dim));
        }
        if let Some(c) = el.child("coordinates") {
            return self.coordinates(c);
        }
        let mut out = Vec::new();
        for p in el.children_named("pos") {
            out.extend(self.numbers(p.trimmed(), dimension(p, dim))?);
        }
        if out.is_empty() {
            return Err(format!("{} has no positions", el.name));
        }
        Ok(out)
    }

    fn ring(&mut self, holder: &Element, dim: usize) -> Result<Value, String> {
        let r = holder.child("LinearRing").ok_or_else(|| format!("{} needs a LinearRing", holder.name))?;
        Ok(Value::Array(self.line(r, dim)?))
    }

    fn polygon_rings(&mut self, el: &Element, dim: usize) -> Result<Value, String> {
        let dim = dimension(el, dim);
        let exterior = el
            .child("exterior")
            .or_else(|| el.child("outerBoundaryIs"))
            .ok_or_else(|| "a Polygon needs an exterior".to_owned())?;
        let mut rings = vec![self.ring(exterior, dim)?];
        for i in el.children.iter().filter(|c| c.name == "interior" || c.name == "innerBoundaryIs") {
            rings.push(self.ring(i, dim)?);
        }
        Ok(Value::Array(rings))
    }

    /// The geometry elements inside member properties (`pointMember`, `surfaceMembers`, ...).
    fn members<'a>(el: &'a Element, single: &[&str], plural: &str) -> Vec<&'a Element> {
        let mut out = Vec::new();
        for c in &el.children {
            if single.contains(&c.name.as_str()) {
                out.extend(c.children.first());
            } else if c.name == plural {
                out.extend(c.children.iter());
            }
        }
        out
    }

    fn geometry(&mut self, el: &Element, dim: usize) -> Result<Value, String> {
        let dim = dimension(el, dim);
        Ok(match el.name.as_str() {
            "Point" => {
                let pos = if let Some(p) = el.child("pos") {
                    self.numbers(p.trimmed(), dimension(p, dim))?
                } else if let Some(c) = el.child("coordinates") {
                    self.coordinates(c)?
                } else {
                    return Err("a Point needs a pos".into());
                };
                if pos.len() != 1 {
                    return Err("a Point has one position".into());
                }
                json!({"type": "Point", "coordinates": pos[0]})
            }
            "LineString" => json!({"type": "LineString", "coordinates": self.line(el, dim)?}),
            "Curve" => {
                let segs = el.child("segments").ok_or("a Curve needs segments")?;
                let mut coords: Vec<Value> = Vec::new();
                for s in &segs.children {
                    let mut part = self.line(s, dim)?;
                    if !coords.is_empty() && coords.last() == part.first() {
                        part.remove(0);
                    }
                    coords.extend(part);
                }
                json!({"type": "LineString", "coordinates": coords})
            }
            "Polygon" | "PolygonPatch" => json!({"type": "Polygon", "coordinates": self.polygon_rings(el, dim)?}),
            "Surface" => {
                let patches = el.child("patches").ok_or("a Surface needs patches")?;
                let polys: Vec<Value> =
                    patches.children.iter().map(|p| self.polygon_rings(p, dim)).collect::<Result<_, _>>()?;
                match polys.len() {
                    1 => json!({"type": "Polygon", "coordinates": polys[0]}),
                    _ => json!({"type": "MultiPolygon", "coordinates": polys}),
                }
            }
            "Envelope" => {
                let lo = el.child("lowerCorner").ok_or("an Envelope needs a lowerCorner")?;
                let hi = el.child("upperCorner").ok_or("an Envelope needs an upperCorner")?;
                let lo = self.numbers(lo.trimmed(), dimension(lo, dim))?;
                let hi = self.numbers(hi.trimmed(), dimension(hi, dim))?;
                let (x0, y0) = (lo[0][0].as_f64().unwrap_or(0.0), lo[0][1].as_f64().unwrap_or(0.0));
                let (x1, y1) = (hi[0][0].as_f64().unwrap_or(0.0), hi[0][1].as_f64().unwrap_or(0.0));
                json!({"type": "Polygon", "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]})
            }
            "MultiPoint" => {
                let pts: Vec<Value> = Self::members(el, &["pointMember"], "pointMembers")
                    .into_iter()
                    .map(|p| self.geometry(p, dim).map(|g| g["coordinates"].clone()))
                    .collect::<Result<_, _>>()?;
                json!({"type": "MultiPoint", "coordinates": pts})
            }
            "MultiCurve" | "MultiLineString" => {
                let lines: Vec<Value> = Self::members(el, &["curveMember", "lineStringMember"], "curveMembers")
                    .into_iter()
                    .map(|p| self.geometry(p, dim).map(|g| g["coordinates"].clone()))
                    .collect::<Result<_, _>>()?;
                json!({"type": "MultiLineString", "coordinates": lines})
            }
            "MultiSurface" | "MultiPolygon" => {
                let mut polys: Vec<Value> = Vec::new();
                for p in Self::members(el, &["surfaceMember", "polygonMember"], "surfaceMembers") {
                    let g = self.geometry(p, dim)?;
                    match g["type"].as_str() {
                        Some("Polygon") => polys.push(g["coordinates"].clone()),
                        Some("MultiPolygon") => polys.extend(g["coordinates"].as_array().cloned().unwrap_or_default()),
                        _ => return Err("a MultiSurface holds surfaces".into()),
                    }
                }
                json!({"type": "MultiPolygon", "coordinates": polys})
            }
            "MultiGeometry" => {
                let parts: Vec<Value> = Self::members(el, &["geometryMember"], "geometryMembers")
                    .into_iter()
                    .map(|p| self.geometry(p, dim))
                    .collect::<Result<_, _>>()?;
                json!({"type": "GeometryCollection", "geometries": parts})
            }
            other => return Err(format!("gml:{other} is not a supported geometry")),
        })
    }
}

/// Whether an element is a GML geometry this reader knows.
pub fn is_geometry(el: &Element) -> bool {
    matches!(
        el.name.as_str(),
        "Point"
            | "LineString"
            | "Curve"
            | "Polygon"
            | "Surface"
            | "Envelope"
            | "MultiPoint"
            | "MultiCurve"
            | "MultiLineString"
            | "MultiSurface"
            | "MultiPolygon"
            | "MultiGeometry"
    )
}

/// Reads a GML geometry element.
pub fn read_geometry(el: &Element) -> Result<ReadGeometry, String> {
    let mut r = Reader { positions: 0 };
    let geojson = r.geometry(el, 2)?;
    Ok(ReadGeometry { geojson, srs_name: el.attr("srsName").map(str::to_owned) })
}
