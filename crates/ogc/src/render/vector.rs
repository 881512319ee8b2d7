//! GeoJSON geometries (CRS84) drawn into a pixmap: positions projected to the view's CRS, then
//! to pixels; polygons filled (even-odd, so holes stay open) and outlined, lines stroked, points
//! drawn as discs, all anti-aliased. Also the pixel-space hit test GetFeatureInfo uses.

use crate::srs::{Projector, View};
use serde_json::Value;
use tiny_skia::{FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Stroke, Transform};

/// How features are painted (straight RGBA colours).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VectorStyle {
    pub fill: Option<[u8; 4]>,
    pub stroke: Option<[u8; 4]>,
    pub stroke_width: f32,
    pub point_radius: f32,
    /// Whether features are labelled (see [`label_of`]).
    pub labels: bool,
}

/// The label of a feature: its `name`, `title` or `label` property, a parcel's `lot/plan`, or
/// its id.
pub fn label_of(id: &str, properties: &serde_json::Map<String, Value>) -> String {
    let text = |k: &str| properties.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    if let Some(t) = text("name").or_else(|| text("title")).or_else(|| text("label")) {
        return t.chars().take(40).collect();
    }
    match (properties.get("lot"), properties.get("plan")) {
        (Some(l), Some(p)) => format!("{}/{}", plain(l), plain(p)),
        _ => id.chars().take(40).collect(),
    }
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Draws features (id, properties, CRS84 geometry) over `view`, then their labels when the style
/// asks for them, so that labels stay above every feature of the layer.
pub fn draw_features<'a>(
    pixmap: &mut Pixmap,
    view: &View,
    style: &VectorStyle,
    features: impl IntoIterator<Item = (&'a str, &'a serde_json::Map<String, Value>, &'a Value)>,
) {
    let Some(to) = ToPixels::new(view) else { return };
    let mut anchors = Vec::new();
    // Every polygon of the layer goes into one path filled and stroked once: per-feature paths
    // cost a rasteriser set-up each, which dominated maps of a thousand parcels. Stored rings
    // follow RFC 7946 (holes wound against their shell), so the non-zero rule keeps holes open
    // and lets features that overlap blend once, as one layer.
    let mut polygons = PathBuilder::new();
    for (id, properties, geometry) in features {
        let pg = PixelGeometry::of(geometry, &to);
        pg.add_polygons(&mut polygons);
        pg.draw_lines_and_points(pixmap, style);
        if style.labels {
            anchors.extend(pg.anchor().map(|a| (a, label_of(id, properties))));
        }
    }
    if let Some(path) = polygons.finish() {
        fill_and_stroke(pixmap, &path, style, FillRule::Winding);
    }
    let mut labeller = Labeller::default();
    for (a, text) in anchors {
        labeller.place(pixmap, a, &text);
    }
}

/// An anti-aliased paint of one colour.
fn paint_of(c: [u8; 4]) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color_rgba8(c[0], c[1], c[2], c[3]);
    p.anti_alias = true;
    p
}

/// The outline stroke of a style.
fn stroke_of(style: &VectorStyle) -> Stroke {
    Stroke { width: style.stroke_width, line_join: LineJoin::Round, line_cap: LineCap::Round, ..Stroke::default() }
}

/// Fills then outlines polygon rings.
fn fill_and_stroke(pixmap: &mut Pixmap, path: &tiny_skia::Path, style: &VectorStyle, rule: FillRule) {
    if let Some(fill) = style.fill {
        pixmap.fill_path(path, &paint_of(fill), rule, Transform::identity(), None);
    }
    if let Some(s) = style.stroke {
        pixmap.stroke_path(path, &paint_of(s), &stroke_of(style), Transform::identity(), None);
    }
}

/// Places labels without overlaps: a label whose box meets one already drawn is skipped.
#[derive(Default)]
pub struct Labeller {
    placed: Vec<[f32; 4]>,
}

impl Labeller {
    /// Draws `text` centred on `anchor` unless it would overlap an earlier label.
    pub fn place(&mut self, pixmap: &mut Pixmap, anchor: (f32, f32), text: &str) {
        let (w, h) = crate::render::text::size(text, 1);
        let (w, h) = (w as f32, h as f32);
        let b =
            [anchor.0 - w / 2.0 - 2.0, anchor.1 - h / 2.0 - 2.0, anchor.0 + w / 2.0 + 2.0, anchor.1 + h / 2.0 + 2.0];
        if b[2] < 0.0 || b[3] < 0.0 || b[0] > pixmap.width() as f32 || b[1] > pixmap.height() as f32 {
            return;
        }
        if self.placed.iter().any(|p| p[0] < b[2] && b[0] < p[2] && p[1] < b[3] && b[1] < p[3]) {
            return;
        }
        self.placed.push(b);
        let (x, y) = ((anchor.0 - w / 2.0).round(), (anchor.1 - h / 2.0).round());
        crate::render::text::draw(pixmap, x, y, text, 1, [40, 20, 10, 255], Some([255, 255, 255, 220]));
    }
}

/// Most positions of one geometry that are drawn; the rest of a larger one is skipped.
pub const MAX_POSITIONS: usize = 1_000_000;

/// Projects CRS84 positions to pixels of a view.
pub struct ToPixels<'a> {
    view: &'a View,
    projector: Option<Projector>,
}

impl<'a> ToPixels<'a> {
    /// `None` when the view's CRS cannot be reached from CRS84.
    pub fn new(view: &'a View) -> Option<Self> {
        let projector = if view.crs == meridian_core::crs::Crs::Crs84 {
            None
        } else {
            Some(Projector::new(meridian_core::crs::Crs::Crs84, view.crs)?)
        };
        Some(Self { view, projector })
    }

    /// The pixel of a CRS84 position.
    pub fn apply(&self, lon: f64, lat: f64) -> Option<(f32, f32)> {
        let (x, y) = match &self.projector {
            None => (lon, lat),
            Some(p) => p.apply(lon, lat)?,
        };
        let (px, py) = self.view.to_pixel(x, y);
        // Keep far-away positions within what f32 rasterisation handles well.
        let clamp = |v: f64| v.clamp(-1.0e6, 1.0e6) as f32;
        (px.is_finite() && py.is_finite()).then(|| (clamp(px), clamp(py)))
    }
}

fn position(v: &Value) -> Option<(f64, f64)> {
    let a = v.as_array()?;
    Some((a.first()?.as_f64()?, a.get(1)?.as_f64()?))
}

/// Pixel rings (polygons), pixel lines and pixel points of a geometry.
#[derive(Default)]
pub struct PixelGeometry {
    /// Each polygon is a list of rings.
    pub polygons: Vec<Vec<Vec<(f32, f32)>>>,
    pub lines: Vec<Vec<(f32, f32)>>,
    pub points: Vec<(f32, f32)>,
}

impl PixelGeometry {
    /// Projects a GeoJSON geometry; positions that cannot be projected are left out.
    pub fn of(geometry: &Value, to: &ToPixels<'_>) -> Self {
        let mut g = Self::default();
        let mut budget = MAX_POSITIONS;
        g.add(geometry, to, &mut budget, 0);
        g
    }

    fn line(coords: &Value, to: &ToPixels<'_>, budget: &mut usize) -> Vec<(f32, f32)> {
        let Some(a) = coords.as_array() else { return Vec::new() };
        let mut out = Vec::with_capacity(a.len().min(*budget));
        for p in a {
            if *budget == 0 {
                break;
            }
            *budget -= 1;
            if let Some(px) = position(p).and_then(|(x, y)| to.apply(x, y)) {
                out.push(px);
            }
        }
        out
    }

    fn add(&mut self, g: &Value, to: &ToPixels<'_>, budget: &mut usize, depth: usize) {
        let coords = &g["coordinates"];
        let each = |v: &Value| v.as_array().cloned().unwrap_or_default();
        match g["type"].as_str().unwrap_or("") {
            "Point" => self.points.extend(position(coords).and_then(|(x, y)| to.apply(x, y))),
            "MultiPoint" => {
                for p in each(coords) {
                    self.points.extend(position(&p).and_then(|(x, y)| to.apply(x, y)));
                }
            }
            "LineString" => self.lines.push(Self::line(coords, to, budget)),
            "MultiLineString" => {
                for l in each(coords) {
                    let line = Self::line(&l, to, budget);
                    self.lines.push(line);
                }
            }
            "Polygon" => {
                let rings = each(coords).iter().map(|r| Self::line(r, to, budget)).collect();
                self.polygons.push(rings);
            }
            "MultiPolygon" => {
                for p in each(coords) {
                    let rings = each(&p).iter().map(|r| Self::line(r, to, budget)).collect();
                    self.polygons.push(rings);
                }
            }
            // Collections nest; stored geometries are validated, but decode defensively.
            "GeometryCollection" if depth < 8 => {
                for m in g["geometries"].as_array().into_iter().flatten() {
                    self.add(m, to, budget, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// Draws the geometry.
    pub fn draw(&self, pixmap: &mut Pixmap, style: &VectorStyle) {
        let mut pb = PathBuilder::new();
        self.add_polygons(&mut pb);
        if let Some(path) = pb.finish() {
            fill_and_stroke(pixmap, &path, style, FillRule::EvenOdd);
        }
        self.draw_lines_and_points(pixmap, style);
    }

    /// Adds the polygons' rings to a path.
    pub fn add_polygons(&self, pb: &mut PathBuilder) {
        for rings in &self.polygons {
            for ring in rings.iter().filter(|r| r.len() >= 3) {
                pb.move_to(ring[0].0, ring[0].1);
                for &(x, y) in &ring[1..] {
                    pb.line_to(x, y);
                }
                pb.close();
            }
        }
    }

    /// Draws the lines and points (polygons are drawn by [`Self::add_polygons`] and a fill).
    pub fn draw_lines_and_points(&self, pixmap: &mut Pixmap, style: &VectorStyle) {
        let stroke = stroke_of(style);
        for line in self.lines.iter().filter(|l| l.len() >= 2) {
            let mut pb = PathBuilder::new();
            pb.move_to(line[0].0, line[0].1);
            for &(x, y) in &line[1..] {
                pb.line_to(x, y);
            }
            let Some(path) = pb.finish() else { continue };
            let color = style.stroke.or(style.fill).unwrap_or([0, 0, 0, 255]);
            let width = Stroke { width: style.stroke_width.max(1.0) * 1.5, ..stroke.clone() };
            pixmap.stroke_path(&path, &paint_of(color), &width, Transform::identity(), None);
        }
        for &(x, y) in &self.points {
            let Some(path) = PathBuilder::from_circle(x, y, style.point_radius) else { continue };
            if let Some(fill) = style.fill.map(|mut c| {
                c[3] = c[3].max(200);
                c
            }) {
                pixmap.fill_path(&path, &paint_of(fill), FillRule::Winding, Transform::identity(), None);
            }
            if let Some(s) = style.stroke {
                pixmap.stroke_path(&path, &paint_of(s), &stroke, Transform::identity(), None);
            }
        }
    }

    /// Where a label goes: the centre of the largest polygon's box, the middle vertex of the
    /// first line, or the first point.
    pub fn anchor(&self) -> Option<(f32, f32)> {
        let boxed = |ring: &[(f32, f32)]| {
            ring.iter().fold([f32::MAX, f32::MAX, f32::MIN, f32::MIN], |b, &(x, y)| {
                [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)]
            })
        };
        if let Some(b) = self
            .polygons
            .iter()
            .filter_map(|p| p.first())
            .filter(|r| !r.is_empty())
            .map(|r| boxed(r))
            .max_by(|a, b| ((a[2] - a[0]) * (a[3] - a[1])).total_cmp(&((b[2] - b[0]) * (b[3] - b[1]))))
        {
            return Some(((b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0));
        }
        if let Some(l) = self.lines.iter().find(|l| !l.is_empty()) {
            return Some(l[l.len() / 2]);
        }
        self.points.first().copied()
    }

    /// Whether pixel position (`x`, `y`) hits the geometry: inside a polygon, or within
    /// `tolerance` pixels of a line, an outline or a point.
    pub fn hits(&self, x: f32, y: f32, tolerance: f32) -> bool {
        let near_segment = |a: (f32, f32), b: (f32, f32)| {
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let len2 = dx * dx + dy * dy;
            let t = if len2 > 0.0 { (((x - a.0) * dx + (y - a.1) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
            let (px, py) = (a.0 + t * dx - x, a.1 + t * dy - y);
            px * px + py * py <= tolerance * tolerance
        };
        for rings in &self.polygons {
            let mut inside = false;
            for ring in rings {
                for w in ring.windows(2) {
                    if near_segment(w[0], w[1]) {
                        return true;
                    }
                    let ((x0, y0), (x1, y1)) = (w[0], w[1]);
                    if (y0 > y) != (y1 > y) && x < (x1 - x0) * (y - y0) / (y1 - y0) + x0 {
                        inside = !inside;
                    }
                }
            }
            if inside {
                return true;
            }
        }
        if self.lines.iter().any(|l| l.windows(2).any(|w| near_segment(w[0], w[1]))) {
            return true;
        }
        self.points.iter().any(|&(px, py)| (px - x).powi(2) + (py - y).powi(2) <= (tolerance + 2.0).powi(2))
    }
}
