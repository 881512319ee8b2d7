//! GeoJSON geometries: parsing with a JSON pointer for every problem, validity rules for areal
//! geometries (closed rings, at least four positions, no self-intersection, holes inside their
//! shell, coordinates in range), RFC 7946 winding (exterior counter-clockwise, holes clockwise),
//! geodesic area on the WGS84 ellipsoid, and bounding boxes.
//!
//! Validation is O(n log n) in the number of positions for real shapes (a sweep compares only
//! segments whose boxes meet) but still CPU work: callers on an async runtime
//! run [`parse`] in `spawn_blocking`. Stored geometries were checked when written, so reads use
//! [`decode`], which only rebuilds the shapes.

use geo::{Coord, GeodesicArea, Geometry, LineString, MultiLineString, MultiPoint, MultiPolygon, Point, Polygon};
use meridian_core::FieldError;
use serde_json::{json, Value};

/// Bounds on one geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most positions in one geometry (all rings and parts together).
    pub max_positions: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_positions: 250_000 }
    }
}

/// An axis-aligned bounding box in the geometry's CRS (lon/lat for stored features).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bbox {
    pub min_x: f64,
    pub min_y: f64,
    pub max_x: f64,
    pub max_y: f64,
}

impl Bbox {
    /// Parses `minx,miny,maxx,maxy` (or the six-number 3D form, whose heights are ignored).
    /// Messages do not name the parameter: callers prefix it.
    pub fn parse(text: &str) -> Result<Self, String> {
        let numbers: Result<Vec<f64>, _> = text.split(',').map(|p| p.trim().parse::<f64>()).collect();
        let n = numbers.map_err(|_| "expected four comma-separated numbers (or six for 3D)".to_owned())?;
        let b = match n.as_slice() {
            [a, b, c, d] => Bbox { min_x: *a, min_y: *b, max_x: *c, max_y: *d },
            [a, b, _, d, e, _] => Bbox { min_x: *a, min_y: *b, max_x: *d, max_y: *e },
            _ => return Err("expected four comma-separated numbers (or six for 3D)".into()),
        };
        if [b.min_x, b.min_y, b.max_x, b.max_y].iter().any(|v| !v.is_finite()) {
            return Err("the numbers must be finite".into());
        }
        if b.min_y > b.max_y {
            return Err("the minimum y is larger than the maximum".into());
        }
        Ok(b)
    }

    /// Checks a box in longitude/latitude (CRS84): longitudes within ±180, latitudes within ±90.
    /// (min_x > max_x is allowed: the box crosses the antimeridian.)
    pub fn check_lon_lat(&self) -> Result<(), String> {
        if !(-90.0..=90.0).contains(&self.min_y) || !(-90.0..=90.0).contains(&self.max_y) {
            return Err("latitudes must be within ±90".into());
        }
        if !(-180.0..=180.0).contains(&self.min_x) || !(-180.0..=180.0).contains(&self.max_x) {
            return Err("longitudes must be within ±180".into());
        }
        Ok(())
    }

    /// Whether two boxes share any point. A box crossing the antimeridian (min_x > max_x) is split.
    pub fn intersects(&self, other: &Bbox) -> bool {
        if self.min_x > self.max_x {
            let west = Bbox { max_x: 180.0, ..*self };
            let east = Bbox { min_x: -180.0, ..*self };
            return west.intersects(other) || east.intersects(other);
        }
        self.min_x <= other.max_x && other.min_x <= self.max_x && self.min_y <= other.max_y && other.min_y <= self.max_y
    }

    /// The box as a polygon, for spatial predicates.
    pub fn to_polygon(&self) -> Polygon<f64> {
        Polygon::new(
            LineString::from(vec![
                (self.min_x, self.min_y),
                (self.max_x, self.min_y),
                (self.max_x, self.max_y),
                (self.min_x, self.max_y),
                (self.min_x, self.min_y),
            ]),
            vec![],
        )
    }

    /// As a JSON array.
    pub fn to_json(&self) -> Value {
        json!([self.min_x, self.min_y, self.max_x, self.max_y])
    }
}

/// A parsed, checked and normalised geometry.
#[derive(Clone, Debug)]
pub struct ParsedGeometry {
    /// For predicates and measures.
    pub geo: Geometry<f64>,
    /// The normalised GeoJSON to store and serve.
    pub json: Value,
    pub bbox: Bbox,
}

impl ParsedGeometry {
    /// Geodesic area in square metres (lon/lat input); 0 for non-areal geometries.
    pub fn geodesic_area_m2(&self) -> f64 {
        match &self.geo {
            Geometry::Polygon(p) => p.geodesic_area_unsigned(),
            Geometry::MultiPolygon(p) => p.geodesic_area_unsigned(),
            _ => 0.0,
        }
    }
}

/// What kinds of geometry are allowed, and whether coordinates are lon/lat.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// Only Polygon and MultiPolygon (parcels).
    pub areal_only: bool,
    /// Coordinates must be longitude in [-180, 180] and latitude in [-90, 90].
    pub geographic: bool,
}

struct Errors<'a> {
    list: Vec<FieldError>,
    base: &'a str,
    /// False when decoding stored geometry: structure only, no validity rules.
    validate: bool,
    /// Positions still allowed; past zero every position is refused (reported once).
    positions_left: usize,
    max_positions: usize,
}

impl Errors<'_> {
    fn push(&mut self, at: &str, code: &str, detail: impl Into<String>) {
        self.list.push(FieldError::new(format!("{}{at}", self.base), code, detail));
    }
}

/// Parses and checks a GeoJSON geometry object found at `pointer` of the request, within the
/// default [`Limits`].
pub fn parse(value: &Value, pointer: &str, rules: Rules) -> Result<ParsedGeometry, Vec<FieldError>> {
    parse_with(value, pointer, rules, &Limits::default())
}

/// Decodes a geometry that was validated when it was stored: the same structure as [`parse`]
/// reads, but none of the validity rules and no limits, so a read never pays for validation.
/// `None` if the value is not a GeoJSON geometry at all.
pub fn decode(value: &Value) -> Option<Geometry<f64>> {
    let mut errors =
        Errors { list: Vec::new(), base: "", validate: false, positions_left: usize::MAX, max_positions: usize::MAX };
    let rules = Rules { areal_only: false, geographic: false };
    parse_geometry(value, "", rules, &mut errors, 0).filter(|_| errors.list.is_empty())
}

/// [`parse`] with explicit limits.
pub fn parse_with(
    value: &Value,
    pointer: &str,
    rules: Rules,
    limits: &Limits,
) -> Result<ParsedGeometry, Vec<FieldError>> {
    let mut errors = Errors {
        list: Vec::new(),
        base: pointer,
        validate: true,
        positions_left: limits.max_positions,
        max_positions: limits.max_positions,
    };
    let geo = parse_geometry(value, "", rules, &mut errors, 0);
    match geo {
        Some(geo) if errors.list.is_empty() => {
            let json = to_geojson(&geo);
            let bbox = bbox_of(&geo).unwrap_or(Bbox { min_x: 0.0, min_y: 0.0, max_x: 0.0, max_y: 0.0 });
            Ok(ParsedGeometry { geo, json, bbox })
        }
        _ => {
            if errors.list.is_empty() {
                errors.push("", "invalid_geometry", "the geometry is not valid");
            }
            Err(errors.list)
        }
    }
}

fn parse_geometry(value: &Value, at: &str, rules: Rules, e: &mut Errors<'_>, depth: usize) -> Option<Geometry<f64>> {
    let Some(obj) = value.as_object() else {
        e.push(at, "invalid_geometry", "a geometry must be a GeoJSON geometry object");
        return None;
    };
    let Some(kind) = obj.get("type").and_then(Value::as_str) else {
        e.push(&format!("{at}/type"), "required", "a geometry needs a type");
        return None;
    };
    if rules.areal_only && !matches!(kind, "Polygon" | "MultiPolygon") {
        e.push(&format!("{at}/type"), "unsupported_geometry", format!("must be Polygon or MultiPolygon, not {kind}"));
        return None;
    }
    if kind == "GeometryCollection" {
        if depth > 0 {
            e.push(&format!("{at}/type"), "unsupported_geometry", "nested GeometryCollections are not allowed");
            return None;
        }
        let Some(items) = obj.get("geometries").and_then(Value::as_array) else {
            e.push(&format!("{at}/geometries"), "required", "a GeometryCollection needs geometries");
            return None;
        };
        let parts: Vec<_> = items
            .iter()
            .enumerate()
            .map(|(i, g)| parse_geometry(g, &format!("{at}/geometries/{i}"), rules, e, depth + 1))
            .collect();
        return parts.into_iter().collect::<Option<Vec<_>>>().map(|g| Geometry::GeometryCollection(g.into()));
    }
    let Some(coords) = obj.get("coordinates") else {
        e.push(&format!("{at}/coordinates"), "required", "a geometry needs coordinates");
        return None;
    };
    let at = format!("{at}/coordinates");
    match kind {
        "Point" => position(coords, &at, rules, e).map(|c| Geometry::Point(Point(c))),
        "MultiPoint" => array(coords, &at, e)?
            .iter()
            .enumerate()
            .map(|(i, p)| position(p, &format!("{at}/{i}"), rules, e).map(Point))
            .collect::<Option<Vec<_>>>()
            .map(|p| Geometry::MultiPoint(MultiPoint(p))),
        "LineString" => line(coords, &at, rules, e).map(Geometry::LineString),
        "MultiLineString" => array(coords, &at, e)?
            .iter()
            .enumerate()
            .map(|(i, l)| line(l, &format!("{at}/{i}"), rules, e))
            .collect::<Option<Vec<_>>>()
            .map(|l| Geometry::MultiLineString(MultiLineString(l))),
        "Polygon" => polygon(coords, &at, rules, e).map(Geometry::Polygon),
        "MultiPolygon" => {
            let items = array(coords, &at, e)?;
            if items.is_empty() {
                e.push(&at, "invalid_geometry", "a MultiPolygon needs at least one polygon");
                return None;
            }
            items
                .iter()
                .enumerate()
                .map(|(i, p)| polygon(p, &format!("{at}/{i}"), rules, e))
                .collect::<Option<Vec<_>>>()
                .map(|p| Geometry::MultiPolygon(MultiPolygon(p)))
        }
        other => {
            e.push(
                &at.replace("/coordinates", "/type"),
                "unsupported_geometry",
                format!("unknown geometry type {other}"),
            );
            None
        }
    }
}

fn array<'v>(v: &'v Value, at: &str, e: &mut Errors<'_>) -> Option<&'v Vec<Value>> {
    let a = v.as_array();
    if a.is_none() {
        e.push(at, "invalid_geometry", "expected an array");
    }
    a
}

fn position(v: &Value, at: &str, rules: Rules, e: &mut Errors<'_>) -> Option<Coord<f64>> {
    if e.positions_left == 0 {
        if e.validate && !e.list.iter().any(|f| f.code == "too_many_positions") {
            let max = e.max_positions;
            e.push(at, "too_many_positions", format!("a geometry may have at most {max} positions"));
        }
        return None;
    }
    e.positions_left -= 1;
    let nums: Option<Vec<f64>> = v.as_array().and_then(|a| a.iter().map(Value::as_f64).collect());
    match nums.as_deref() {
        Some([x, y]) | Some([x, y, _]) if x.is_finite() && y.is_finite() => {
            if e.validate && rules.geographic && !((-180.0..=180.0).contains(x) && (-90.0..=90.0).contains(y)) {
                e.push(at, "out_of_range", "longitude must be within ±180 and latitude within ±90");
                return None;
            }
            Some(Coord { x: *x, y: *y })
        }
        _ => {
            e.push(at, "invalid_position", "a position is an array of two or three numbers");
            None
        }
    }
}

fn line(v: &Value, at: &str, rules: Rules, e: &mut Errors<'_>) -> Option<LineString<f64>> {
    let coords = array(v, at, e)?
        .iter()
        .enumerate()
        .map(|(i, p)| position(p, &format!("{at}/{i}"), rules, e))
        .collect::<Option<Vec<_>>>()?;
    if coords.len() < 2 {
        e.push(at, "invalid_geometry", "a line needs at least two positions");
        return None;
    }
    Some(LineString(coords))
}

fn ring(v: &Value, at: &str, rules: Rules, e: &mut Errors<'_>) -> Option<Vec<Coord<f64>>> {
    let coords = array(v, at, e)?
        .iter()
        .enumerate()
        .map(|(i, p)| position(p, &format!("{at}/{i}"), rules, e))
        .collect::<Option<Vec<_>>>()?;
    if !e.validate {
        return Some(coords);
    }
    if coords.len() < 4 {
        e.push(at, "ring_too_short", "a linear ring needs at least four positions");
        return None;
    }
    if coords.first() != coords.last() {
        e.push(at, "ring_not_closed", "a linear ring must end at its first position");
        return None;
    }
    if let Some(i) = self_intersection(&coords) {
        e.push(&format!("{at}/{i}"), "self_intersection", "the ring crosses itself near this position");
        return None;
    }
    if signed_area(&coords).abs() == 0.0 {
        e.push(at, "degenerate_ring", "the ring encloses no area");
        return None;
    }
    Some(coords)
}

fn polygon(v: &Value, at: &str, rules: Rules, e: &mut Errors<'_>) -> Option<Polygon<f64>> {
    let rings = array(v, at, e)?;
    if rings.is_empty() {
        e.push(at, "invalid_geometry", "a polygon needs an exterior ring");
        return None;
    }
    let parsed: Vec<Vec<Coord<f64>>> =
        rings.iter().enumerate().map(|(i, r)| ring(r, &format!("{at}/{i}"), rules, e)).collect::<Option<Vec<_>>>()?;
    let mut parsed = parsed.into_iter();
    let mut shell = parsed.next()?;
    if !e.validate {
        return Some(Polygon::new(LineString(shell), parsed.map(LineString).collect()));
    }

    // RFC 7946: exterior rings counter-clockwise, holes clockwise.
    if signed_area(&shell) < 0.0 {
        shell.reverse();
    }
    let parsed: Vec<Vec<Coord<f64>>> = parsed.collect();
    if parsed.is_empty() {
        return Some(Polygon::new(LineString(shell), Vec::new()));
    }
    // Where each hole position lies against the shell, in one sweep over y.
    let positions: Vec<Coord<f64>> = parsed.iter().flatten().copied().collect();
    let sides = points_in_ring(&shell, &positions);
    // Which rings cross which, in one sweep over x of the shell and every hole together.
    let mut rings: Vec<&[Coord<f64>]> = vec![&shell];
    rings.extend(parsed.iter().map(Vec::as_slice));
    let mut crosses_shell = vec![false; parsed.len()];
    let mut holes_cross = false;
    SegmentIndex::new(&rings).for_each_pair(|s, t| {
        if s.ring != t.ring && segments_cross(s.a, s.b, t.a, t.b) {
            match (s.ring, t.ring) {
                (0, h) | (h, 0) => crosses_shell[h - 1] = true,
                _ => holes_cross = true,
            }
        }
    });
    let mut holes = Vec::new();
    let mut sides = sides.into_iter();
    for (i, mut hole) in parsed.into_iter().enumerate() {
        let hole_at = format!("{at}/{}", i + 1);
        let (mut some_inside, mut some_outside) = (false, false);
        for side in sides.by_ref().take(hole.len()) {
            match side {
                Some(true) => some_inside = true,
                Some(false) => some_outside = true,
                None => {}
            }
        }
        if !some_inside || some_outside {
            e.push(&hole_at, "hole_outside_shell", "a hole must lie inside the exterior ring");
            return None;
        }
        if crosses_shell[i] {
            e.push(&hole_at, "self_intersection", "a hole crosses the exterior ring");
            return None;
        }
        if signed_area(&hole) > 0.0 {
            hole.reverse();
        }
        holes.push(LineString(hole));
    }
    if holes_cross {
        e.push(at, "self_intersection", "two holes cross each other");
        return None;
    }
    Some(Polygon::new(LineString(shell), holes))
}

/// Twice the signed area (shoelace): positive for counter-clockwise rings.
fn signed_area(ring: &[Coord<f64>]) -> f64 {
    ring.windows(2).map(|w| w[0].x * w[1].y - w[1].x * w[0].y).sum()
}

fn orient(a: Coord<f64>, b: Coord<f64>, c: Coord<f64>) -> f64 {
    (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
}

fn on_segment(a: Coord<f64>, b: Coord<f64>, p: Coord<f64>) -> bool {
    p.x >= a.x.min(b.x) && p.x <= a.x.max(b.x) && p.y >= a.y.min(b.y) && p.y <= a.y.max(b.y)
}

/// Whether segments ab and cd share a point.
fn segments_touch(a: Coord<f64>, b: Coord<f64>, c: Coord<f64>, d: Coord<f64>) -> bool {
    let (d1, d2, d3, d4) = (orient(c, d, a), orient(c, d, b), orient(a, b, c), orient(a, b, d));
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)) && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0)) {
        return true;
    }
    (d1 == 0.0 && on_segment(c, d, a))
        || (d2 == 0.0 && on_segment(c, d, b))
        || (d3 == 0.0 && on_segment(a, b, c))
        || (d4 == 0.0 && on_segment(a, b, d))
}

/// Whether segments ab and cd cross properly (through each other's interiors).
fn segments_cross(a: Coord<f64>, b: Coord<f64>, c: Coord<f64>, d: Coord<f64>) -> bool {
    let (d1, d2, d3, d4) = (orient(c, d, a), orient(c, d, b), orient(a, b, c), orient(a, b, d));
    ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)) && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
}

/// One segment of a ring: ring `ring`, from position `i` to `i + 1`, with its box.
struct Segment {
    ring: usize,
    i: usize,
    a: Coord<f64>,
    b: Coord<f64>,
    min_x: f64,
    max_x: f64,
    min_y: f64,
    max_y: f64,
}

/// The segments of some rings sorted by their smallest x, so that a sweep compares a segment only
/// with those whose boxes meet its own: O(n log n + k) for k pairs of meeting boxes, which for
/// real shapes is a small multiple of n, instead of comparing all n² pairs.
struct SegmentIndex {
    segments: Vec<Segment>,
}

impl SegmentIndex {
    fn new(rings: &[&[Coord<f64>]]) -> Self {
        let mut segments: Vec<Segment> = rings
            .iter()
            .enumerate()
            .flat_map(|(ring, r)| {
                r.windows(2).enumerate().map(move |(i, w)| Segment {
                    ring,
                    i,
                    a: w[0],
                    b: w[1],
                    min_x: w[0].x.min(w[1].x),
                    max_x: w[0].x.max(w[1].x),
                    min_y: w[0].y.min(w[1].y),
                    max_y: w[0].y.max(w[1].y),
                })
            })
            .collect();
        segments.sort_unstable_by(|s, t| s.min_x.total_cmp(&t.min_x));
        Self { segments }
    }

    /// Calls `f` for every pair of segments whose boxes meet (boundaries included), once each.
    fn for_each_pair(&self, mut f: impl FnMut(&Segment, &Segment)) {
        for (k, s) in self.segments.iter().enumerate() {
            for t in &self.segments[k + 1..] {
                if t.min_x > s.max_x {
                    break;
                }
                if t.min_y <= s.max_y && s.min_y <= t.max_y {
                    f(s, t);
                }
            }
        }
    }
}

/// The index of a vertex where the closed ring touches or crosses itself, if any: the same
/// answer as comparing every pair of segments in order, (i, j) with i < j, and stopping at the
/// first problem (a repeated position at i counts before any pair (i, j)).
fn self_intersection(ring: &[Coord<f64>]) -> Option<usize> {
    let n = ring.len() - 1; // segments
                            // (i, j, the vertex to report), smallest (i, j) first.
    let mut first: Option<(usize, usize, usize)> = (0..n).find(|&i| ring[i] == ring[i + 1]).map(|i| (i, 0, i + 1));
    SegmentIndex::new(&[ring]).for_each_pair(|s, t| {
        let (i, j) = if s.i < t.i { (s.i, t.i) } else { (t.i, s.i) };
        if first.is_some_and(|(fi, fj, _)| (fi, fj) <= (i, j)) {
            return;
        }
        let hit = if j == i + 1 || (i == 0 && j == n - 1) {
            // Neighbours share a vertex; they are invalid only if they fold back onto each other.
            let (shared, p, q) =
                if j == i + 1 { (ring[j], ring[i], ring[j + 1]) } else { (ring[i], ring[i + 1], ring[j]) };
            orient(shared, p, q) == 0.0
                && (p.x - shared.x) * (q.x - shared.x) + (p.y - shared.y) * (q.y - shared.y) > 0.0
        } else {
            segments_touch(ring[i], ring[i + 1], ring[j], ring[j + 1])
        };
        if hit {
            first = Some((i, j, j));
        }
    });
    first.map(|(_, _, at)| at)
}

/// For each point: Some(true) inside the ring, Some(false) outside, None on its boundary. The
/// points are taken in order of y while the segments spanning the current y are kept, so each
/// point is tested only against the segments its horizontal ray can meet.
fn points_in_ring(ring: &[Coord<f64>], points: &[Coord<f64>]) -> Vec<Option<bool>> {
    let index = SegmentIndex::new(&[ring]);
    let mut by_min_y: Vec<&Segment> = index.segments.iter().collect();
    by_min_y.sort_unstable_by(|s, t| s.min_y.total_cmp(&t.min_y));
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_unstable_by(|&i, &j| points[i].y.total_cmp(&points[j].y));
    let mut out = vec![None; points.len()];
    let (mut active, mut next): (Vec<&Segment>, usize) = (Vec::new(), 0);
    for k in order {
        let p = points[k];
        while next < by_min_y.len() && by_min_y[next].min_y <= p.y {
            active.push(by_min_y[next]);
            next += 1;
        }
        active.retain(|s| s.max_y >= p.y);
        let mut inside = Some(false);
        for s in &active {
            let (a, b) = (s.a, s.b);
            if orient(a, b, p) == 0.0 && on_segment(a, b, p) {
                inside = None;
                break;
            }
            if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
                inside = inside.map(|i| !i);
            }
        }
        out[k] = inside;
    }
    out
}

fn coords_json(ls: &LineString<f64>) -> Value {
    Value::Array(ls.0.iter().map(|c| json!([c.x, c.y])).collect())
}

fn polygon_json(p: &Polygon<f64>) -> Value {
    let mut rings = vec![coords_json(p.exterior())];
    rings.extend(p.interiors().iter().map(coords_json));
    Value::Array(rings)
}

/// GeoJSON for a geometry.
pub fn to_geojson(g: &Geometry<f64>) -> Value {
    match g {
        Geometry::Point(p) => json!({"type": "Point", "coordinates": [p.x(), p.y()]}),
        Geometry::MultiPoint(m) => {
            json!({"type": "MultiPoint", "coordinates": m.0.iter().map(|p| json!([p.x(), p.y()])).collect::<Vec<_>>()})
        }
        Geometry::LineString(l) => json!({"type": "LineString", "coordinates": coords_json(l)}),
        Geometry::MultiLineString(m) => {
            json!({"type": "MultiLineString", "coordinates": m.0.iter().map(coords_json).collect::<Vec<_>>()})
        }
        Geometry::Polygon(p) => json!({"type": "Polygon", "coordinates": polygon_json(p)}),
        Geometry::MultiPolygon(m) => {
            json!({"type": "MultiPolygon", "coordinates": m.0.iter().map(polygon_json).collect::<Vec<_>>()})
        }
        Geometry::GeometryCollection(c) => {
            json!({"type": "GeometryCollection", "geometries": c.0.iter().map(to_geojson).collect::<Vec<_>>()})
        }
        Geometry::Line(l) => json!({"type": "LineString", "coordinates": [[l.start.x, l.start.y], [l.end.x, l.end.y]]}),
        Geometry::Rect(r) => to_geojson(&Geometry::Polygon(r.to_polygon())),
        Geometry::Triangle(t) => to_geojson(&Geometry::Polygon(t.to_polygon())),
    }
}

/// The bounding box of a geometry.
pub fn bbox_of(g: &Geometry<f64>) -> Option<Bbox> {
    use geo::BoundingRect;
    g.bounding_rect().map(|r| Bbox { min_x: r.min().x, min_y: r.min().y, max_x: r.max().x, max_y: r.max().y })
}

/// Applies `f` to every position of a GeoJSON geometry (reprojection), keeping its structure and
/// any third coordinate. `None` from `f` (a position outside the CRS's domain) fails the whole.
pub fn map_positions(geometry: &Value, f: &mut dyn FnMut(f64, f64) -> Option<(f64, f64)>) -> Option<Value> {
    fn walk(v: &Value, f: &mut dyn FnMut(f64, f64) -> Option<(f64, f64)>) -> Option<Value> {
        match v {
            Value::Array(items) if items.first().is_some_and(Value::is_number) => {
                let x = items.first()?.as_f64()?;
                let y = items.get(1)?.as_f64()?;
                let (nx, ny) = f(x, y)?;
                let mut out = vec![json!(nx), json!(ny)];
                out.extend(items.iter().skip(2).cloned());
                Some(Value::Array(out))
            }
            Value::Array(items) => items.iter().map(|i| walk(i, f)).collect::<Option<Vec<_>>>().map(Value::Array),
            other => Some(other.clone()),
        }
    }
    let mut out = geometry.clone();
    let obj = out.as_object_mut()?;
    if let Some(coords) = obj.get("coordinates") {
        let mapped = walk(coords, f)?;
        obj.insert("coordinates".into(), mapped);
    }
    if let Some(Value::Array(parts)) = obj.get("geometries") {
        let mapped = parts.iter().map(|g| map_positions(g, f)).collect::<Option<Vec<_>>>()?;
        obj.insert("geometries".into(), Value::Array(mapped));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GEO: Rules = Rules { areal_only: true, geographic: true };

    fn poly(rings: Value) -> Value {
        json!({"type": "Polygon", "coordinates": rings})
    }

    fn first_code(r: Result<ParsedGeometry, Vec<FieldError>>) -> (String, String) {
        let e = r.err().unwrap_or_default();
        e.first().map(|f| (f.code.clone(), f.pointer.clone())).unwrap_or_default()
    }

    #[test]
    fn clockwise_exteriors_are_reversed_and_area_is_geodesic() {
        // A 0.01° square near the equator, given clockwise.
        let g = parse(&poly(json!([[[0, 0], [0, 0.01], [0.01, 0.01], [0.01, 0], [0, 0]]])), "/geometry", GEO);
        let g = g.unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(g.json["coordinates"][0][1], json!([0.01, 0.0]), "exterior now counter-clockwise");
        // 1113.2 m × 1105.7 m on the WGS84 ellipsoid at the equator.
        let area = g.geodesic_area_m2();
        assert!((area - 1_230_918.0).abs() < 1_000.0, "{area}");
    }

    #[test]
    fn holes_become_clockwise_and_must_lie_inside() {
        let shell = json!([[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]);
        let hole_ccw = json!([[2, 2], [4, 2], [4, 4], [2, 4], [2, 2]]);
        let g = parse(&poly(json!([shell, hole_ccw])), "", GEO).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(g.json["coordinates"][1][1], json!([2.0, 4.0]));
        let outside = json!([[20, 20], [24, 20], [24, 24], [20, 24], [20, 20]]);
        assert_eq!(
            first_code(parse(&poly(json!([shell, outside])), "/geometry", GEO)),
            ("hole_outside_shell".into(), "/geometry/coordinates/1".into())
        );
    }

    #[test]
    fn invalid_rings_name_the_problem_and_place() {
        let open = json!([[[0, 0], [1, 0], [1, 1], [0, 1]]]);
        assert_eq!(first_code(parse(&poly(open), "/geometry", GEO)).0, "ring_not_closed");
        let short = json!([[[0, 0], [1, 0], [0, 0]]]);
        assert_eq!(first_code(parse(&poly(short), "/geometry", GEO)).0, "ring_too_short");
        let bowtie = json!([[[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]]]);
        assert_eq!(first_code(parse(&poly(bowtie), "/geometry", GEO)).0, "self_intersection");
        let far = json!([[[0, 0], [200, 0], [1, 1], [0, 0]]]);
        assert_eq!(
            first_code(parse(&poly(far), "/geometry", GEO)),
            ("out_of_range".into(), "/geometry/coordinates/0/1".into())
        );
        let point = json!({"type": "Point", "coordinates": [1, 2]});
        assert_eq!(first_code(parse(&point, "/geometry", GEO)).0, "unsupported_geometry");
        let any = Rules { areal_only: false, geographic: true };
        assert!(parse(&point, "/geometry", any).is_ok());
    }

    /// A star-ish ring of `n` positions around (0.5, 0.5), counter-clockwise and simple.
    fn big_ring(n: usize) -> Vec<Value> {
        let mut ring: Vec<Value> = (0..n)
            .map(|k| {
                let t = k as f64 / n as f64 * std::f64::consts::TAU;
                let r = if k % 2 == 0 { 0.4 } else { 0.39 };
                json!([0.5 + r * t.cos(), 0.5 + r * t.sin()])
            })
            .collect();
        ring.push(ring[0].clone());
        ring
    }

    #[test]
    fn fifty_thousand_positions_validate_quickly() {
        let ring = big_ring(50_000);
        let g = parse(&poly(json!([ring.clone()])), "/geometry", GEO).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(g.json["coordinates"][0].as_array().map(Vec::len), Some(50_001));

        // A hole of 50,000 positions inside it is fine too.
        let hole: Vec<Value> = big_ring(50_000)
            .iter()
            .map(|c| {
                json!([
                    0.5 + (c[0].as_f64().unwrap_or(0.0) - 0.5) / 2.0,
                    0.5 + (c[1].as_f64().unwrap_or(0.0) - 0.5) / 2.0
                ])
            })
            .collect();
        assert!(parse(&poly(json!([ring.clone(), hole])), "/geometry", GEO).is_ok());

        // Swap two positions deep in the ring: the edges between them now cross.
        let mut crossed = ring;
        crossed.swap(31_001, 31_003);
        assert_eq!(
            first_code(parse(&poly(json!([crossed])), "/geometry", GEO)),
            ("self_intersection".into(), "/geometry/coordinates/0/31002".into())
        );
    }

    /// The all-pairs check the R-tree replaced, kept as the reference.
    fn self_intersection_all_pairs(ring: &[Coord<f64>]) -> Option<usize> {
        let n = ring.len() - 1;
        for i in 0..n {
            if ring[i] == ring[i + 1] {
                return Some(i + 1);
            }
            for j in (i + 1)..n {
                if j == i + 1 || (i == 0 && j == n - 1) {
                    let (shared, p, q) =
                        if j == i + 1 { (ring[j], ring[i], ring[j + 1]) } else { (ring[i], ring[i + 1], ring[j]) };
                    if orient(shared, p, q) == 0.0
                        && (p.x - shared.x) * (q.x - shared.x) + (p.y - shared.y) * (q.y - shared.y) > 0.0
                    {
                        return Some(j);
                    }
                    continue;
                }
                if segments_touch(ring[i], ring[i + 1], ring[j], ring[j + 1]) {
                    return Some(j);
                }
            }
        }
        None
    }

    fn point_in_ring_all_segments(p: Coord<f64>, ring: &[Coord<f64>]) -> Option<bool> {
        let mut inside = false;
        for w in ring.windows(2) {
            let (a, b) = (w[0], w[1]);
            if orient(a, b, p) == 0.0 && on_segment(a, b, p) {
                return None;
            }
            if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
                inside = !inside;
            }
        }
        Some(inside)
    }

    #[test]
    fn indexed_self_intersection_agrees_with_all_pairs() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 5) as f64
        };
        let mut invalid = 0;
        for _ in 0..3_000 {
            let n = 3 + (next() as usize) * 2;
            let mut ring: Vec<Coord<f64>> = (0..n).map(|_| Coord { x: next(), y: next() }).collect();
            ring.push(ring[0]);
            let expected = self_intersection_all_pairs(&ring);
            invalid += usize::from(expected.is_some());
            assert_eq!(self_intersection(&ring), expected, "{ring:?}");
            let points: Vec<Coord<f64>> = (0..8).map(|_| Coord { x: next() - 0.5, y: next() }).collect();
            let swept = points_in_ring(&ring, &points);
            for (p, side) in points.iter().zip(swept) {
                assert_eq!(side, point_in_ring_all_segments(*p, &ring), "{p:?} in {ring:?}");
            }
        }
        assert!(invalid > 100, "the random rings should include invalid ones");
    }

    #[test]
    fn decode_reads_stored_geometry_without_validating() {
        // A bow-tie (which `parse` refuses) decodes as written: reads trust what writes checked.
        let bowtie = poly(json!([[[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]]]));
        assert!(parse(&bowtie, "", GEO).is_err());
        assert!(matches!(decode(&bowtie), Some(Geometry::Polygon(_))));
        assert!(decode(&json!({"type": "Point", "coordinates": [1, 2]})).is_some());
        assert!(decode(&json!({"type": "Polygon", "coordinates": "no"})).is_none());
    }

    #[test]
    fn position_count_is_limited() {
        let limits = Limits { max_positions: 100 };
        let e = parse_with(&poly(json!([big_ring(200)])), "/geometry", GEO, &limits).err().unwrap_or_default();
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].code, "too_many_positions");
        assert_eq!(e[0].pointer, "/geometry/coordinates/0/100");
        assert!(parse_with(&poly(json!([big_ring(98)])), "/geometry", GEO, &limits).is_ok());
    }

    #[test]
    fn bbox_parsing_and_antimeridian() {
        assert!(Bbox::parse("1,2,3").is_err());
        // Messages leave naming the parameter to the caller.
        for bad in ["1,2,3", "a,b,c,d", "0,0,inf,1", "0,5,1,2"] {
            assert!(Bbox::parse(bad).is_err_and(|e| !e.contains("bbox")), "{bad}");
        }
        let Ok(tall) = Bbox::parse("0,0,1,95") else { panic!("four finite numbers parse") };
        assert!(tall.check_lon_lat().is_err_and(|e| e.contains("±90")));
        assert!(Bbox::parse("-181,0,1,1").is_ok_and(|b| b.check_lon_lat().is_err()));
        assert!(Bbox::parse("170,-10,-170,10").is_ok_and(|b| b.check_lon_lat().is_ok()));
        let b = Bbox::parse("170,-10,-170,10").unwrap_or(Bbox { min_x: 0.0, min_y: 0.0, max_x: 0.0, max_y: 0.0 });
        assert!(b.intersects(&Bbox { min_x: 175.0, min_y: 0.0, max_x: 176.0, max_y: 1.0 }));
        assert!(!b.intersects(&Bbox { min_x: 0.0, min_y: 0.0, max_x: 1.0, max_y: 1.0 }));
    }
}
