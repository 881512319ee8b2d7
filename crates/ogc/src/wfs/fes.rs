//! FES 2.0 filters translated into the CQL2 tree of `meridian_features::cql2`, so WFS filters are
//! evaluated (and pushed into the store's indexes) exactly as OGC API Features filters are.
//!
//! Comparison operators (with `matchCase`), `PropertyIsLike`, `PropertyIsBetween`,
//! `PropertyIsNull`/`PropertyIsNil`, `And`/`Or`/`Not`, `ResourceId`, and the spatial operators
//! `BBOX`, `Equals`, `Disjoint`, `Touches`, `Within`, `Overlaps`, `Crosses`, `Intersects`,
//! `Contains`, `DWithin` and `Beyond`. Geometry literals are brought to CRS84 from their own
//! `srsName` (or the query's CRS) with its axis order. `DWithin` becomes an intersection with the
//! literal buffered by the distance, computed in a local metric frame around the literal.

use super::gml;
use super::xml::{self, Element, XmlLimits};
use crate::ows::{OgcError, OgcResult};
use crate::srs;
use geo::MapCoords;
use meridian_collections::query::bbox_to_crs84;
use meridian_core::crs::{Crs, Transformer};
use meridian_features::cql2::{CmpOp, Expr, Operand, SpatialOp};
use meridian_features::geometry::{self, Bbox};

/// What a filter is read against.
pub struct FesContext<'a> {
    /// The feature type's queryable properties and their JSON types.
    pub queryables: &'a [(String, &'static str)],
    /// The CRS of geometry literals that name none.
    pub default_crs: Crs,
    pub limits: XmlLimits,
}

/// The locator of filter errors.
const LOC: &str = "filter";

fn bad(text: impl Into<String>) -> OgcError {
    OgcError::invalid(LOC, text)
}

/// Parses a `fes:Filter` document (the KVP `FILTER` value).
pub fn parse_text(text: &str, ctx: &FesContext<'_>) -> OgcResult<Expr> {
    let root = xml::parse(text, &ctx.limits).map_err(|e| OgcError::parsing(LOC, format!("FILTER: {e}")))?;
    from_element(&root, ctx)
}

/// Translates a `fes:Filter` element.
pub fn from_element(el: &Element, ctx: &FesContext<'_>) -> OgcResult<Expr> {
    if el.name != "Filter" {
        return Err(OgcError::parsing(LOC, format!("expected fes:Filter, found {}", el.name)));
    }
    // Several ResourceIds side by side select any of them.
    if !el.children.is_empty() && el.children.iter().all(is_id) {
        return resource_ids(el.children.iter());
    }
    match el.children.as_slice() {
        [one] => predicate(one, ctx, 0),
        [] => Err(bad("the filter is empty")),
        _ => Err(bad("a filter holds one predicate; combine several with fes:And or fes:Or")),
    }
}

/// `fes:ResourceId`, and the `ogc:GmlObjectId`/`ogc:FeatureId` of FES 1.1 that older clients send.
fn is_id(el: &Element) -> bool {
    matches!(el.name.as_str(), "ResourceId" | "GmlObjectId" | "FeatureId")
}

fn resource_ids<'a>(items: impl Iterator<Item = &'a Element>) -> OgcResult<Expr> {
    let list: Vec<Operand> = items
        .map(|r| {
            r.attr("rid")
                .or_else(|| r.attr("fid"))
                .or_else(|| r.attr("id"))
                .map(|id| Operand::Str(id.to_owned()))
                .ok_or_else(|| bad("fes:ResourceId needs a rid"))
        })
        .collect::<OgcResult<_>>()?;
    Ok(Expr::In { value: Operand::Property("id".into()), list })
}

/// The resource ids a filter names when it is only `fes:ResourceId`s (fetched directly, not
/// searched for).
pub fn only_resource_ids(e: &Expr) -> Option<Vec<String>> {
    match e {
        Expr::In { value: Operand::Property(p), list } if p == "id" => list
            .iter()
            .map(|o| match o {
                Operand::Str(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// A value reference as a property name: prefixes and XPath steps are dropped (`features:parcels/features:lot`
/// is `lot`, `@gml:id` is `id`).
pub fn property_name(text: &str) -> String {
    let last = text.trim().rsplit('/').next().unwrap_or("").trim_start_matches('@');
    last.rsplit(':').next().unwrap_or(last).to_owned()
}

fn known<'a>(name: &str, ctx: &FesContext<'a>) -> OgcResult<Option<&'static str>> {
    if name == "geometry" {
        return Ok(Some("geometry"));
    }
    if name == "id" {
        return Ok(Some("string"));
    }
    match ctx.queryables.iter().find(|(n, _)| n == name) {
        Some((_, t)) => Ok(Some(t)),
        None => Err(bad(format!("`{name}` is not a property of this feature type"))),
    }
}

fn literal(text: &str, kind: Option<&str>, prop: Option<&str>) -> Operand {
    let t = text.trim();
    match kind {
        Some("number") => t.parse::<f64>().map(Operand::Num).unwrap_or_else(|_| Operand::Str(text.to_owned())),
        Some("boolean") => match t {
            "true" | "1" => Operand::Bool(true),
            "false" | "0" => Operand::Bool(false),
            _ => Operand::Str(text.to_owned()),
        },
        Some(_) if prop == Some("updated_at") => match meridian_core::Timestamp::parse(t) {
            Some(ts) => Operand::Instant(ts.millis()),
            None => Operand::Str(t.to_owned()),
        },
        Some(_) => Operand::Str(text.to_owned()),
        None => match t.parse::<f64>() {
            Ok(n) if n.is_finite() => Operand::Num(n),
            _ => Operand::Str(text.to_owned()),
        },
    }
}

/// The operands of a comparison: value references and literals, literals typed after the
/// property they are compared with.
fn operands(el: &Element, ctx: &FesContext<'_>) -> OgcResult<Vec<Operand>> {
    let mut kind = None;
    let mut prop = None;
    for c in &el.children {
        if c.name == "ValueReference" {
            let name = property_name(c.trimmed());
            kind = known(&name, ctx)?;
            prop = Some(name);
        }
    }
    el.children
        .iter()
        .map(|c| match c.name.as_str() {
            "ValueReference" => Ok(Operand::Property(property_name(c.trimmed()))),
            "Literal" => Ok(literal(&c.text, kind, prop.as_deref())),
            "Function" => Err(bad("functions are not supported in filters")),
            other => Err(bad(format!("fes:{other} is not an expression"))),
        })
        .collect()
}

fn cmp_op(name: &str) -> Option<CmpOp> {
    Some(match name {
        "PropertyIsEqualTo" => CmpOp::Eq,
        "PropertyIsNotEqualTo" => CmpOp::Ne,
        "PropertyIsLessThan" => CmpOp::Lt,
        "PropertyIsLessThanOrEqualTo" => CmpOp::Le,
        "PropertyIsGreaterThan" => CmpOp::Gt,
        "PropertyIsGreaterThanOrEqualTo" => CmpOp::Ge,
        _ => return None,
    })
}

fn spatial_op(name: &str) -> Option<SpatialOp> {
    Some(match name {
        "Equals" => SpatialOp::Equals,
        "Disjoint" => SpatialOp::Disjoint,
        "Touches" => SpatialOp::Touches,
        "Within" => SpatialOp::Within,
        "Overlaps" => SpatialOp::Overlaps,
        "Crosses" => SpatialOp::Crosses,
        "Intersects" | "BBOX" => SpatialOp::Intersects,
        "Contains" => SpatialOp::Contains,
        _ => return None,
    })
}

/// Escapes a literal for a CQL2 LIKE pattern.
fn like_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A FES LIKE pattern (with its own wildcard, single-character and escape characters) as a CQL2
/// pattern.
fn like_pattern(pattern: &str, wild: char, single: char, escape: char) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == escape {
            if let Some(n) = chars.next() {
                out.push_str(&like_literal(&n.to_string()));
            }
        } else if c == wild {
            out.push('%');
        } else if c == single {
            out.push('_');
        } else {
            out.push_str(&like_literal(&c.to_string()));
        }
    }
    out
}

fn one_char(el: &Element, names: &[&str], default: char) -> OgcResult<char> {
    let Some(v) = names.iter().find_map(|n| el.attr(n)) else { return Ok(default) };
    let mut it = v.chars();
    match (it.next(), it.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(bad(format!("PropertyIsLike: `{v}` must be one character"))),
    }
}

fn match_case(el: &Element) -> bool {
    !matches!(el.attr("matchCase"), Some("false") | Some("0"))
}

fn predicate(el: &Element, ctx: &FesContext<'_>, depth: usize) -> OgcResult<Expr> {
    if depth > ctx.limits.max_depth {
        return Err(bad(format!("the filter is nested more than {} levels deep", ctx.limits.max_depth)));
    }
    let name = el.name.as_str();
    if let Some(op) = cmp_op(name) {
        let ops = operands(el, ctx)?;
        let [a, b] = <[Operand; 2]>::try_from(ops).map_err(|_| bad(format!("{name} needs two expressions")))?;
        if !match_case(el) && matches!(op, CmpOp::Eq | CmpOp::Ne) {
            // A case-blind equality is a LIKE without wildcards.
            if let (Operand::Property(_), Operand::Str(s)) | (Operand::Str(s), Operand::Property(_)) = (&a, &b) {
                let value = if matches!(a, Operand::Property(_)) { a.clone() } else { b.clone() };
                let like = Expr::Like { value, pattern: like_literal(s), case_insensitive: true };
                return Ok(if op == CmpOp::Eq { like } else { Expr::Not(Box::new(like)) });
            }
        }
        return Ok(Expr::Compare(op, a, b));
    }
    match name {
        "And" | "Or" => {
            if el.children.len() < 2 {
                return Err(bad(format!("fes:{name} needs at least two operands")));
            }
            let parts = el.children.iter().map(|c| predicate(c, ctx, depth + 1)).collect::<OgcResult<Vec<_>>>()?;
            Ok(if name == "And" { Expr::And(parts) } else { Expr::Or(parts) })
        }
        "Not" => match el.children.as_slice() {
            [one] => Ok(Expr::Not(Box::new(predicate(one, ctx, depth + 1)?))),
            _ => Err(bad("fes:Not needs one operand")),
        },
        "PropertyIsLike" => {
            let ops = operands(el, ctx)?;
            let [value, pattern] =
                <[Operand; 2]>::try_from(ops).map_err(|_| bad("PropertyIsLike needs two expressions"))?;
            let Operand::Str(p) = pattern else {
                // A pattern that read as a number is still a pattern.
                let text = el.child("Literal").map(|l| l.text.clone()).unwrap_or_default();
                return like_expr(el, value, &text);
            };
            like_expr(el, value, &p)
        }
        "PropertyIsNull" | "PropertyIsNil" => {
            let ops = operands(el, ctx)?;
            match ops.as_slice() {
                [v] => Ok(Expr::IsNull(v.clone())),
                _ => Err(bad(format!("{name} needs one expression"))),
            }
        }
        "PropertyIsBetween" => {
            let value_el = el
                .children
                .iter()
                .find(|c| c.name != "LowerBoundary" && c.name != "UpperBoundary")
                .ok_or_else(|| bad("PropertyIsBetween needs an expression"))?;
            let lo = el.child("LowerBoundary").ok_or_else(|| bad("PropertyIsBetween needs a LowerBoundary"))?;
            let hi = el.child("UpperBoundary").ok_or_else(|| bad("PropertyIsBetween needs an UpperBoundary"))?;
            let holder = Element { name: name.into(), children: vec![value_el.clone()], ..Element::default() };
            let value = operands(&holder, ctx)?.pop().ok_or_else(|| bad("PropertyIsBetween needs an expression"))?;
            let bound = |b: &Element| -> OgcResult<Operand> {
                let mut h = holder.clone();
                h.children.extend(b.children.iter().cloned());
                operands(&h, ctx)?.pop().ok_or_else(|| bad("a boundary needs an expression"))
            };
            Ok(Expr::Between { value, low: bound(lo)?, high: bound(hi)? })
        }
        "ResourceId" | "GmlObjectId" | "FeatureId" => resource_ids(std::iter::once(el)),
        "DWithin" | "Beyond" => {
            let (prop, g) = spatial_args(el, ctx)?;
            let d = el.child("Distance").ok_or_else(|| bad(format!("{name} needs a Distance")))?;
            let value: f64 = d
                .trimmed()
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| bad(format!("{name}: `{}` is not a distance", d.trimmed())))?;
            let buffered = buffer(&g, value, d.attr("uom").unwrap_or("m"))?;
            let within = Expr::Spatial(SpatialOp::Intersects, prop, Operand::Geometry(buffered));
            Ok(if name == "DWithin" { within } else { Expr::Not(Box::new(within)) })
        }
        other => match spatial_op(other) {
            Some(op) => {
                let (prop, g) = spatial_args(el, ctx)?;
                Ok(Expr::Spatial(op, prop, Operand::Geometry(g)))
            }
            None => Err(bad(format!("fes:{other} is not a supported filter operator"))),
        },
    }
}

fn like_expr(el: &Element, value: Operand, pattern: &str) -> OgcResult<Expr> {
    let wild = one_char(el, &["wildCard"], '*')?;
    let single = one_char(el, &["singleChar"], '.')?;
    let escape = one_char(el, &["escapeChar", "escape"], '!')?;
    Ok(Expr::Like { value, pattern: like_pattern(pattern, wild, single, escape), case_insensitive: !match_case(el) })
}

/// The property and the CRS84 geometry of a spatial operator.
fn spatial_args(el: &Element, ctx: &FesContext<'_>) -> OgcResult<(Operand, geo::Geometry<f64>)> {
    let prop = match el.child("ValueReference") {
        Some(v) => {
            let name = property_name(v.trimmed());
            if known(&name, ctx)? != Some("geometry") {
                return Err(bad(format!("`{name}` is not a geometry property")));
            }
            Operand::Property(name)
        }
        None => Operand::Property("geometry".into()),
    };
    let g_el = el
        .children
        .iter()
        .find(|c| gml::is_geometry(c))
        .or_else(|| el.child("Literal").and_then(|l| l.children.iter().find(|c| gml::is_geometry(c))))
        .ok_or_else(|| bad(format!("fes:{} needs a GML geometry", el.name)))?;
    Ok((prop, literal_geometry(g_el, ctx)?))
}

/// A GML geometry of a filter in CRS84.
pub fn literal_geometry(el: &Element, ctx: &FesContext<'_>) -> OgcResult<geo::Geometry<f64>> {
    let read = gml::read_geometry(el).map_err(|e| bad(format!("gml:{}: {e}", el.name)))?;
    let crs = match &read.srs_name {
        Some(s) => srs::parse(s).map_err(|e| bad(format!("srsName: {e}")))?,
        None => ctx.default_crs,
    };
    if el.name == "Envelope" {
        let c = read.geojson["coordinates"][0].as_array().cloned().unwrap_or_default();
        let xy = |i: usize, k: usize| c.get(i).and_then(|p| p[k].as_f64()).unwrap_or(0.0);
        let b = Bbox { min_x: xy(0, 0), min_y: xy(0, 1), max_x: xy(2, 0), max_y: xy(2, 1) };
        let b = bbox_to_crs84(b, crs).ok_or_else(|| bad("the envelope is outside its CRS's domain"))?;
        return Ok(geo::Geometry::Polygon(b.to_polygon()));
    }
    let json = if crs == Crs::Crs84 {
        read.geojson
    } else {
        let t = Transformer::new(crs, Crs::Crs84).map_err(bad)?;
        geometry::map_positions(&read.geojson, &mut |x, y| t.apply(x, y))
            .ok_or_else(|| bad("the geometry is outside its CRS's domain"))?
    };
    geometry::decode(&json).ok_or_else(|| bad(format!("gml:{} is not a valid geometry", el.name)))
}

/// Metres per unit of a distance's `uom`, or `None` for degrees.
fn metres_per_unit(uom: &str) -> OgcResult<Option<f64>> {
    let u = uom.trim().to_ascii_lowercase();
    let u = u.rsplit([':', '#', '/']).next().unwrap_or(&u).to_owned();
    Ok(Some(match u.as_str() {
        "m" | "metre" | "meter" | "metres" | "meters" | "9001" => 1.0,
        "km" | "kilometre" | "kilometer" | "kilometres" | "kilometers" | "9036" => 1000.0,
        "ft" | "foot" | "feet" | "9002" => 0.3048,
        "mi" | "mile" | "miles" | "9093" => 1609.344,
        "deg" | "degree" | "degrees" | "9102" => return Ok(None),
        _ => return Err(bad(format!("Distance: the unit `{uom}` is not supported (m, km, ft, mi, deg)"))),
    }))
}

/// Most vertices of a `DWithin`/`Beyond` geometry: its grown form has a few dozen per vertex.
pub const MAX_DISTANCE_VERTICES: usize = 5_000;
/// Segments of a half circle in a grown geometry's round ends.
const ARC_STEPS: usize = 16;

/// The geometry grown by `distance`: in degrees directly, or in metres in an equirectangular frame
/// centred on the geometry (accurate to well under 1% for distances of a few kilometres).
///
/// The grown geometry is the geometry's own polygons and, for every segment of it, the capsule of
/// points within `distance` of that segment (a disc for a point), left as separate overlapping
/// parts: a feature meets the union exactly when it meets one of them, so no union is computed.
/// Cost and size are linear in the vertices (a general buffer's are not: a zigzag line of a few
/// hundred vertices can take minutes and gigabytes).
fn buffer(g: &geo::Geometry<f64>, distance: f64, uom: &str) -> OgcResult<geo::Geometry<f64>> {
    use geo::CoordsIter;
    let vertices = g.coords_count();
    if vertices > MAX_DISTANCE_VERTICES {
        return Err(bad(format!(
            "a DWithin or Beyond geometry has at most {MAX_DISTANCE_VERTICES} vertices; this one has {vertices}"
        )));
    }
    if distance == 0.0 {
        return Ok(g.clone());
    }
    let Some(per_unit) = metres_per_unit(uom)? else {
        return Ok(geo::Geometry::MultiPolygon(grow(g, distance)));
    };
    let metres = distance * per_unit;
    let b = geometry::bbox_of(g).ok_or_else(|| bad("the geometry is empty"))?;
    let (lon0, lat0) = ((b.min_x + b.max_x) / 2.0, (b.min_y + b.max_y) / 2.0);
    let ky = 111_132.954 - 559.822 * (2.0 * lat0.to_radians()).cos();
    let kx = (111_412.84 * lat0.to_radians().cos()).max(1.0);
    let local = g.map_coords(|c| geo::Coord { x: (c.x - lon0) * kx, y: (c.y - lat0) * ky });
    let grown = grow(&local, metres);
    let back = grown.map_coords(|c| geo::Coord { x: c.x / kx + lon0, y: c.y / ky + lat0 });
    Ok(geo::Geometry::MultiPolygon(back))
}

/// The parts of `g` grown by `r` (see [`buffer`]).
fn grow(g: &geo::Geometry<f64>, r: f64) -> geo::MultiPolygon<f64> {
    use geo::CoordsIter;
    let mut parts = Vec::new();
    let mut polygons = |p: &geo::Polygon<f64>| parts.push(p.clone());
    match g {
        geo::Geometry::Polygon(p) => polygons(p),
        geo::Geometry::MultiPolygon(m) => m.0.iter().for_each(polygons),
        geo::Geometry::Rect(rect) => polygons(&rect.to_polygon()),
        geo::Geometry::Triangle(t) => polygons(&t.to_polygon()),
        geo::Geometry::GeometryCollection(c) => {
            for part in &c.0 {
                parts.extend(grow(part, r).0);
            }
            return geo::MultiPolygon(parts);
        }
        _ => {}
    }
    let mut rings: Vec<&geo::LineString<f64>> = Vec::new();
    let (rect, triangle);
    match g {
        geo::Geometry::LineString(l) => rings.push(l),
        geo::Geometry::MultiLineString(m) => rings.extend(&m.0),
        geo::Geometry::Polygon(p) => rings.extend(std::iter::once(p.exterior()).chain(p.interiors())),
        geo::Geometry::MultiPolygon(m) => {
            rings.extend(m.0.iter().flat_map(|p| std::iter::once(p.exterior()).chain(p.interiors())))
        }
        geo::Geometry::Rect(r) => {
            rect = r.to_polygon();
            rings.push(rect.exterior());
        }
        geo::Geometry::Triangle(t) => {
            triangle = t.to_polygon();
            rings.push(triangle.exterior());
        }
        geo::Geometry::Line(l) => parts.push(capsule(l.start, l.end, r)),
        _ => {}
    }
    let mut segments = usize::from(matches!(g, geo::Geometry::Line(_)));
    for line in rings.iter().flat_map(|l| l.lines()) {
        segments += 1;
        parts.push(capsule(line.start, line.end, r));
    }
    if segments == 0 {
        // Points: discs.
        for c in g.coords_iter() {
            parts.push(capsule(c, c, r));
        }
    }
    geo::MultiPolygon(parts)
}

/// The points within `r` of the segment `a`–`b` (a disc when they are one point), as a polygon
/// whose round ends lie just outside the circle, so that no point within `r` is left out.
fn capsule(a: geo::Coord<f64>, b: geo::Coord<f64>, r: f64) -> geo::Polygon<f64> {
    let step = std::f64::consts::PI / ARC_STEPS as f64;
    let outer = r / (step / 2.0).cos();
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len = dx.hypot(dy);
    // The direction along the segment (any, for a point).
    let along = if len > 0.0 { dy.atan2(dx) } else { 0.0 };
    let mut ring = Vec::with_capacity(2 * ARC_STEPS + 3);
    // Round end at b from the left side to the right side, then at a back to the left.
    for (centre, start) in [(b, along + std::f64::consts::FRAC_PI_2), (a, along - std::f64::consts::FRAC_PI_2)] {
        for i in 0..=ARC_STEPS {
            let t = start - step * i as f64;
            ring.push(geo::Coord { x: centre.x + outer * t.cos(), y: centre.y + outer * t.sin() });
        }
    }
    ring.push(ring[0]);
    geo::Polygon::new(geo::LineString(ring), Vec::new())
}
