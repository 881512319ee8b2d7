//! Contour lines as `gdal_contour` draws them: marching squares on the grid of pixel centres,
//! levels `base + k × interval`, a corner counting as above a level when it is at or above it,
//! saddles always split the same way (GDAL's rule), segments joined into the longest possible
//! lines (closed rings where they close), and lines carried on to the raster's outer edge as
//! GDAL does (its border squares are split, which extends each crossing of the outermost row or
//! column straight out to the edge). Squares with one to three nodata corners are split into
//! quarters around the valid corners, as GDAL splits them, so lines run up to the nodata.

use super::source::DemSource;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Contour options, named like `gdal_contour`'s.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContourOptions {
    /// Elevation difference between lines (`-i`).
    pub interval: f64,
    /// Offset of the levels (`-off`): levels are `base + k × interval`.
    pub base: f64,
    /// Name of the elevation property (`-a`).
    pub attribute: String,
    /// Refuse to trace more levels than this between the source's lowest and highest value
    /// ([`Error::InvalidArgument`]): a tiny interval on a large relief would run for hours.
    pub max_levels: Option<u64>,
}

impl Default for ContourOptions {
    fn default() -> Self {
        Self { interval: 10.0, base: 0.0, attribute: "elevation".into(), max_levels: None }
    }
}

impl ContourOptions {
    /// Checks option ranges.
    pub fn validate(&self) -> Result<()> {
        if !(self.interval.is_finite() && self.interval > 0.0) {
            return Err(Error::arg("interval must be positive"));
        }
        if !self.base.is_finite() {
            return Err(Error::arg("base must be a number"));
        }
        if self.attribute.is_empty() {
            return Err(Error::arg("attribute must not be empty"));
        }
        Ok(())
    }

    /// How many levels `base + k × interval` lie in `[lo, hi]`.
    pub fn level_count(&self, lo: f64, hi: f64) -> u64 {
        if lo.is_nan() || hi.is_nan() || lo > hi {
            return 0;
        }
        let first = ((lo - self.base) / self.interval).ceil();
        let last = ((hi - self.base) / self.interval).floor();
        if last < first {
            0
        } else {
            // Saturating: a count past u64 is simply "too many".
            (last - first + 1.0).min(u64::MAX as f64) as u64
        }
    }

    /// Fails when the levels between `lo` and `hi` are more than `max_levels`.
    pub fn check_levels(&self, lo: f64, hi: f64) -> Result<()> {
        let count = self.level_count(lo, hi);
        match self.max_levels {
            Some(max) if count > max => Err(Error::arg(format!(
                "an interval of {} over values from {lo} to {hi} gives {count} levels, more than the limit of {max}",
                self.interval
            ))),
            _ => Ok(()),
        }
    }
}

/// One contour line in the source's CRS.
#[derive(Clone, Debug, PartialEq)]
pub struct ContourLine {
    pub level: f64,
    pub points: Vec<(f64, f64)>,
    pub closed: bool,
}

const NONE: u64 = u64::MAX;

#[derive(Default)]
struct LevelGraph {
    points: HashMap<u64, (f64, f64)>,
    adj: HashMap<u64, [u64; 2]>,
}

impl LevelGraph {
    fn link(&mut self, a: u64, b: u64) {
        for (x, y) in [(a, b), (b, a)] {
            let e = self.adj.entry(x).or_insert([NONE, NONE]);
            if e[0] == NONE {
                e[0] = y;
            } else {
                e[1] = y;
            }
        }
    }

    fn lines(mut self, level: f64, pixel_to_world: &impl Fn(f64, f64) -> (f64, f64)) -> Vec<ContourLine> {
        let mut out = Vec::new();
        let mut starts: Vec<u64> = self.adj.iter().filter(|(_, v)| v[1] == NONE).map(|(k, _)| *k).collect();
        starts.sort_unstable();
        let mut rest: Vec<u64> = self.adj.keys().copied().collect();
        rest.sort_unstable();
        for (start, open) in starts.into_iter().map(|s| (s, true)).chain(rest.into_iter().map(|s| (s, false))) {
            if !self.adj.contains_key(&start) {
                continue;
            }
            let mut ids = vec![start];
            let mut prev = NONE;
            let mut cur = start;
            while let Some(n) = self.adj.remove(&cur) {
                let next = if n[0] != prev && n[0] != NONE {
                    n[0]
                } else if n[1] != prev && n[1] != NONE {
                    n[1]
                } else {
                    NONE
                };
                if next == NONE {
                    break;
                }
                prev = cur;
                cur = next;
                ids.push(cur);
                if cur == start {
                    break;
                }
            }
            let closed = !open && ids.len() > 2 && ids.first() == ids.last();
            let points =
                ids.iter().filter_map(|id| self.points.get(id)).map(|&(c, r)| pixel_to_world(c, r)).collect::<Vec<_>>();
            if points.len() >= 2 {
                out.push(ContourLine { level, points, closed });
            }
        }
        out
    }
}

/// A corner of a marching square: its value and its position in pixel coordinates.
type Corner = (f64, (f64, f64));

/// Marching squares on one square whose corners all have values (upper-left, upper-right,
/// lower-left, lower-right), adding segments to each level's graph. `edges` are the ids of the
/// points where lines cross its top, right, bottom and left sides.
fn march(
    corners: &[Corner; 4],
    edges: [u64; 4],
    graphs: &mut HashMap<i64, LevelGraph>,
    level_range: &impl Fn(f64, f64) -> std::ops::RangeInclusive<i64>,
    level_of: &impl Fn(i64) -> f64,
) {
    let [(ul, p_ul), (ur, p_ur), (ll, p_ll), (lr, p_lr)] = *corners;
    let lo = ul.min(ur).min(ll).min(lr);
    let hi = ul.max(ur).max(ll).max(lr);
    if lo == hi {
        return;
    }
    let cross = |l: f64, a: f64, b: f64, pa: (f64, f64), pb: (f64, f64)| -> (f64, f64) {
        let t = ((l - a) / (b - a)).clamp(0.0, 1.0);
        (pa.0 + t * (pb.0 - pa.0), pa.1 + t * (pb.1 - pa.1))
    };
    let [top, right, bottom, left] = edges;
    for kk in level_range(lo, hi) {
        let l = level_of(kk);
        let above = [ul >= l, ur >= l, ll >= l, lr >= l];
        let g = graphs.entry(kk).or_default();
        let seg = |e1: u64, e2: u64, g: &mut LevelGraph| {
            for e in [e1, e2] {
                g.points.entry(e).or_insert_with(|| {
                    if e == top {
                        cross(l, ul, ur, p_ul, p_ur)
                    } else if e == bottom {
                        cross(l, ll, lr, p_ll, p_lr)
                    } else if e == left {
                        cross(l, ul, ll, p_ul, p_ll)
                    } else {
                        cross(l, ur, lr, p_ur, p_lr)
                    }
                });
            }
            g.link(e1, e2);
        };
        let count = above.iter().filter(|&&a| a).count();
        if count == 2 && above[0] == above[3] {
            // Saddle: like GDAL, always the same pair of segments whatever the centre, cutting
            // off the upper-right and lower-left corners, so that lines of different levels
            // never cross.
            seg(top, right, g);
            seg(left, bottom, g);
            continue;
        }
        let mut es = Vec::with_capacity(2);
        if above[0] != above[1] {
            es.push(top);
        }
        if above[1] != above[3] {
            es.push(right);
        }
        if above[2] != above[3] {
            es.push(bottom);
        }
        if above[0] != above[2] {
            es.push(left);
        }
        if es.len() == 2 {
            seg(es[0], es[1], g);
        }
    }
}

/// A square with one to three nodata corners, split as GDAL splits it: one quarter-square per
/// valid corner, reaching to the square's centre, whose other corners take the mean of the valid
/// corners they lie between (the centre: of all valid corners). Lines end where they meet the
/// quarter of a nodata corner. `spokes` numbers the four half-lines from the centre to the middle
/// of the top, right, bottom and left sides, where quarters meet.
#[allow(clippy::too_many_arguments)]
fn split_square(
    v: [f32; 4],
    ok: [bool; 4],
    (x0, y0): (f64, f64),
    edges: [u64; 4],
    spokes: u64,
    graphs: &mut HashMap<i64, LevelGraph>,
    level_range: &impl Fn(f64, f64) -> std::ops::RangeInclusive<i64>,
    level_of: &impl Fn(i64) -> f64,
) {
    let val = |i: usize| ok[i].then_some(v[i] as f64);
    let mid = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => 0.5 * (a + b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => f64::NAN,
    };
    let (ul, ur, ll, lr) = (val(0), val(1), val(2), val(3));
    let valid: Vec<f64> = [ul, ur, ll, lr].into_iter().flatten().collect();
    let centre = valid.iter().sum::<f64>() / valid.len() as f64;
    let (tm, rm, bm, lm) = (mid(ul, ur), mid(ur, lr), mid(ll, lr), mid(ul, ll));
    let (xm, ym, x1, y1) = (x0 + 0.5, y0 + 0.5, x0 + 1.0, y0 + 1.0);
    let [top, right, bottom, left] = edges;
    let [s_top, s_right, s_bottom, s_left] = [spokes, spokes + 1, spokes + 2, spokes + 3];
    let c = (centre, (xm, ym));
    if let Some(ul) = ul {
        let q = [(ul, (x0, y0)), (tm, (xm, y0)), (lm, (x0, ym)), c];
        march(&q, [top, s_top, s_left, left], graphs, level_range, level_of);
    }
    if let Some(ur) = ur {
        let q = [(tm, (xm, y0)), (ur, (x1, y0)), c, (rm, (x1, ym))];
        march(&q, [top, right, s_right, s_top], graphs, level_range, level_of);
    }
    if let Some(ll) = ll {
        let q = [(lm, (x0, ym)), c, (ll, (x0, y1)), (bm, (xm, y1))];
        march(&q, [s_left, s_bottom, bottom, left], graphs, level_range, level_of);
    }
    if let Some(lr) = lr {
        let q = [c, (rm, (x1, ym)), (bm, (xm, y1)), (lr, (x1, y1))];
        march(&q, [s_right, right, bottom, s_bottom], graphs, level_range, level_of);
    }
}

/// Computes contour lines of band 1 of `src`, sorted by level.
pub fn contours<S: DemSource>(src: &S, opts: &ContourOptions) -> Result<Vec<ContourLine>> {
    contours_with_progress(src, opts, &|_| true)
}

/// [`contours`], telling `progress` the fraction done after each block (the level check, when
/// `max_levels` is set, is the first tenth); `progress` returns false to cancel.
pub fn contours_with_progress<S: DemSource>(
    src: &S,
    opts: &ContourOptions,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<Vec<ContourLine>> {
    opts.validate()?;
    let (span, start) = if opts.max_levels.is_some() {
        let check = |f: f64| progress(f * 0.1);
        if let Some((lo, hi)) = super::value_range(src, &check)? {
            opts.check_levels(lo, hi)?;
        }
        (0.9, 0.1)
    } else {
        (1.0, 0.0)
    };
    let (w, h) = (src.width(), src.height());
    if w < 2 || h < 2 {
        return Ok(Vec::new());
    }
    let nd = src.nodata();
    let valid = |v: f32| !(v.is_nan() || nd.is_some_and(|n| n == v as f64));
    let (base, interval) = (opts.base, opts.interval);
    let level_of = |k: i64| base + k as f64 * interval;
    // Levels L with lo < L <= hi.
    let level_range = |lo: f64, hi: f64| -> std::ops::RangeInclusive<i64> {
        let mut k0 = ((lo - base) / interval).floor() as i64;
        while level_of(k0) <= lo {
            k0 += 1;
        }
        let mut k1 = ((hi - base) / interval).floor() as i64 + 1;
        while level_of(k1) > hi {
            k1 -= 1;
        }
        k0..=k1
    };
    let wu = w as u64;
    let hid = |r: usize, c: usize| (r as u64 * wu + c as u64) * 2;
    let vid = |r: usize, c: usize| (r as u64 * wu + c as u64) * 2 + 1;
    let terminal = 2 * wu * h as u64;
    // Ids of points inside split squares (four spokes from the centre per square).
    let spoke_base = 2 * terminal;
    let mut graphs: HashMap<i64, LevelGraph> = HashMap::new();

    // Crossing of level `l` on the edge from A (value a, pixel-centre position pa) to B.
    let cross = |l: f64, a: f64, b: f64, pa: (f64, f64), pb: (f64, f64)| -> (f64, f64) {
        let t = ((l - a) / (b - a)).clamp(0.0, 1.0);
        (pa.0 + t * (pb.0 - pa.0), pa.1 + t * (pb.1 - pa.1))
    };

    let mut prev: Vec<f32> = src.read_rows(0, 1)?;
    let block = super::block_rows(src);
    let mut y = 1;
    let handle_row_edges = |row: &[f32], r: usize, graphs: &mut HashMap<i64, LevelGraph>| {
        // Horizontal edges of the first and last rows reach out to the top or bottom edge.
        let (edge_y, is_border) = if r == 0 {
            (0.0, true)
        } else if r == h - 1 {
            (h as f64, true)
        } else {
            (0.0, false)
        };
        if !is_border {
            return;
        }
        for c in 0..w - 1 {
            let (a, b) = (row[c], row[c + 1]);
            if !valid(a) || !valid(b) {
                continue;
            }
            let (a, b) = (a as f64, b as f64);
            for k in level_range(a.min(b), a.max(b)) {
                let l = level_of(k);
                let p = cross(l, a, b, (c as f64 + 0.5, r as f64 + 0.5), (c as f64 + 1.5, r as f64 + 0.5));
                let g = graphs.entry(k).or_default();
                let id = hid(r, c);
                let t = terminal + id;
                g.points.insert(id, p);
                g.points.insert(t, (p.0, edge_y));
                g.link(id, t);
            }
        }
    };
    handle_row_edges(&prev, 0, &mut graphs);
    while y < h {
        let n = block.min(h - y);
        let rows = src.read_rows(y, n)?;
        for k in 0..n {
            let r = y + k - 1;
            let cur = &rows[k * w..(k + 1) * w];
            let up: &[f32] = if k == 0 { &prev } else { &rows[(k - 1) * w..k * w] };
            // Vertical edges of the first and last columns reach out to the left or right edge.
            for (c, edge_x) in [(0usize, 0.0f64), (w - 1, w as f64)] {
                let (a, b) = (up[c], cur[c]);
                if !valid(a) || !valid(b) {
                    continue;
                }
                let (a, b) = (a as f64, b as f64);
                for kk in level_range(a.min(b), a.max(b)) {
                    let l = level_of(kk);
                    let p = cross(l, a, b, (c as f64 + 0.5, r as f64 + 0.5), (c as f64 + 0.5, r as f64 + 1.5));
                    let g = graphs.entry(kk).or_default();
                    let id = vid(r, c);
                    let t = terminal + id;
                    g.points.insert(id, p);
                    g.points.insert(t, (edge_x, p.1));
                    g.link(id, t);
                }
            }
            for c in 0..w - 1 {
                let v = [up[c], up[c + 1], cur[c], cur[c + 1]];
                let ok = v.map(valid);
                let (x0, y0) = (c as f64 + 0.5, r as f64 + 0.5);
                let edges = [hid(r, c), vid(r, c + 1), hid(r + 1, c), vid(r, c)];
                if ok.iter().all(|&b| b) {
                    let [ul, ur, ll, lr] = v.map(|x| x as f64);
                    let corners =
                        [(ul, (x0, y0)), (ur, (x0 + 1.0, y0)), (ll, (x0, y0 + 1.0)), (lr, (x0 + 1.0, y0 + 1.0))];
                    march(&corners, edges, &mut graphs, &level_range, &level_of);
                } else if ok.iter().any(|&b| b) {
                    split_square(
                        v,
                        ok,
                        (x0, y0),
                        edges,
                        spoke_base + (r as u64 * wu + c as u64) * 4,
                        &mut graphs,
                        &level_range,
                        &level_of,
                    );
                }
            }
        }
        let last_row = rows[(n - 1) * w..].to_vec();
        for k in 0..n {
            let r = y + k;
            if r == h - 1 {
                handle_row_edges(&rows[k * w..(k + 1) * w], r, &mut graphs);
            }
        }
        prev = last_row;
        y += n;
        if !progress(start + span * y as f64 / h as f64) {
            return Err(Error::Cancelled);
        }
    }
    let gt = src.geo_transform();
    let to_world = |c: f64, r: f64| gt.apply(c, r);
    let mut levels: Vec<i64> = graphs.keys().copied().collect();
    levels.sort_unstable();
    let mut out = Vec::new();
    for k in levels {
        if let Some(g) = graphs.remove(&k) {
            out.extend(g.lines(level_of(k), &to_world));
        }
    }
    Ok(out)
}

/// Encodes contour lines as a GeoJSON FeatureCollection of LineStrings.
pub fn to_geojson(lines: &[ContourLine], attribute: &str) -> serde_json::Value {
    let features: Vec<serde_json::Value> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            serde_json::json!({
                "type": "Feature",
                "id": i,
                "properties": { attribute: l.level },
                "geometry": {
                    "type": "LineString",
                    "coordinates": l.points.iter().map(|p| [p.0, p.1]).collect::<Vec<_>>(),
                }
            })
        })
        .collect();
    serde_json::json!({ "type": "FeatureCollection", "features": features })
}

/// A contour line replayed into a geozero processor (what the FlatGeobuf writer consumes).
struct LineGeom<'a>(&'a [(f64, f64)]);

impl geozero::GeozeroGeometry for LineGeom<'_> {
    fn process_geom<P: geozero::GeomProcessor>(&self, p: &mut P) -> geozero::error::Result<()> {
        p.linestring_begin(true, self.0.len(), 0)?;
        for (i, (x, y)) in self.0.iter().enumerate() {
            p.xy(*x, *y, i)?;
        }
        p.linestring_end(true, 0)
    }
}

/// Writes contour lines as FlatGeobuf (LineStrings with an `ID` and the elevation attribute, as
/// `gdal_contour` names them, a spatial index, and the EPSG code when known).
pub fn write_flatgeobuf(
    lines: &[ContourLine],
    attribute: &str,
    epsg: Option<u32>,
    out: impl std::io::Write,
) -> crate::Result<()> {
    use flatgeobuf::{ColumnType, FgbCrs, FgbWriter, FgbWriterOptions, GeometryType};
    use geozero::{ColumnValue, PropertyProcessor};
    fn fail(e: impl std::fmt::Display) -> crate::Error {
        crate::Error::Io(std::io::Error::other(format!("FlatGeobuf: {e}")))
    }
    let options = FgbWriterOptions {
        write_index: true,
        crs: FgbCrs { code: epsg.and_then(|c| i32::try_from(c).ok()).unwrap_or(0), ..Default::default() },
        ..Default::default()
    };
    let mut w = FgbWriter::create_with_options("contour", GeometryType::LineString, options).map_err(fail)?;
    w.add_column("ID", ColumnType::Int, |_, c| c.nullable = false);
    w.add_column(attribute, ColumnType::Double, |_, c| c.nullable = false);
    for (i, l) in lines.iter().enumerate() {
        let mut failed = None;
        w.add_feature_geom(LineGeom(&l.points), |f| {
            let id = ColumnValue::Int(i32::try_from(i).unwrap_or(i32::MAX));
            if let Err(e) =
                f.property(0, "ID", &id).and_then(|_| f.property(1, attribute, &ColumnValue::Double(l.level)))
            {
                failed = Some(e);
            }
        })
        .map_err(fail)?;
        if let Some(e) = failed {
            return Err(fail(e));
        }
    }
    w.write(out).map_err(fail)
}
