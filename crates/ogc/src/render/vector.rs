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
        let paint = |c: [u8; 4]| {
            let mut p = Paint::default();
            p.set_color_rgba8(c[0], c[1], c[2], c[3]);
            p.anti_alias = true;
            p
        };
        let stroke = Stroke {
            width: style.stroke_width,
            line_join: LineJoin::Round,
            line_cap: LineCap::Round,
            ..Stroke::default()
        };
        for rings in &self.polygons {
            let mut pb = PathBuilder::new();
            for ring in rings.iter().filter(|r| r.len() >= 3) {
                pb.move_to(ring[0].0, ring[0].1);
                for &(x, y) in &ring[1..] {
                    pb.line_to(x, y);
                }
                pb.close();
            }
            let Some(path) = pb.finish() else { continue };
            if let Some(fill) = style.fill {
                pixmap.fill_path(&path, &paint(fill), FillRule::EvenOdd, Transform::identity(), None);
            }
            if let Some(s) = style.stroke {
                pixmap.stroke_path(&path, &paint(s), &stroke, Transform::identity(), None);
            }
        }
        for line in self.lines.iter().filter(|l| l.len() >= 2) {
            let mut pb = PathBuilder::new();
            pb.move_to(line[0].0, line[0].1);
            for &(x, y) in &line[1..] {
                pb.line_to(x, y);
            }
            let Some(path) = pb.finish() else { continue };
            let color = style.stroke.or(style.fill).unwrap_or([0, 0, 0, 255]);
            let width = Stroke { width: style.stroke_width.max(1.0) * 1.5, ..stroke.clone() };
            pixmap.stroke_path(&path, &paint(color), &width, Transform::identity(), None);
        }
        for &(x, y) in &self.points {
            let Some(path) = PathBuilder::from_circle(x, y, style.point_radius) else { continue };
            if let Some(fill) = style.fill.map(|mut c| {
                c[3] = c[3].max(200);
                c
            }) {
                pixmap.fill_path(&path, &paint(fill), FillRule::Winding, Transform::identity(), None);
            }
            if let Some(s) = style.stroke {
                pixmap.stroke_path(&path, &paint(s), &stroke, Transform::identity(), None);
            }
        }
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
