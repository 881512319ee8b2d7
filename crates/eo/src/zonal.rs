//! Zonal statistics of a raster under a polygon, as Python's `rasterstats.zonal_stats` defines
//! them: the polygon is rasterized the way GDAL does (`gdal_rasterize`): by default a pixel
//! belongs to the zone when its centre is inside the polygon (a scanline fill at each row's centre
//! with even-odd crossings over all rings, so holes are holes); with `all_touched`, every pixel
//! that any ring passes through is added as well. Nodata and NaN pixels are left out.
//!
//! The work is proportional to the pixels of the polygon's bounding box plus its edges: edges
//! are sorted by the first row they cross and kept in an active list while the scanline moves
//! down, and boundary pixels are found by walking each edge across the grid.

use geo::MultiPolygon;
use meridian_raster::{GeoTransform, Window};
use serde::Serialize;

/// Statistics of the valid pixels of one zone: `std` is the population standard deviation
/// (numpy's `std`, `ddof=0`), `median` numpy's (the mean of the two middle values when the count
/// is even). All but `count` are `None` when no pixel is counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ZoneStats {
    /// Valid pixels in the zone.
    pub count: u64,
    /// Smallest value.
    pub min: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
    /// Mean value.
    pub mean: Option<f64>,
    /// Population standard deviation.
    pub std: Option<f64>,
    /// Median value.
    pub median: Option<f64>,
}

impl ZoneStats {
    /// The statistics of `values` (all valid).
    pub fn of(values: &mut [f64]) -> ZoneStats {
        if values.is_empty() {
            return ZoneStats::default();
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
        for &v in values.iter() {
            min = min.min(v);
            max = max.max(v);
        }
        let mid = values.len() / 2;
        let (_, upper, _) = values.select_nth_unstable_by(mid, f64::total_cmp);
        let upper = *upper;
        let median = if values.len() % 2 == 1 {
            upper
        } else {
            let lower = values[..mid].iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (lower + upper) / 2.0
        };
        ZoneStats {
            count: values.len() as u64,
            min: Some(min),
            max: Some(max),
            mean: Some(mean),
            std: Some(var.sqrt()),
            median: Some(median),
        }
    }
}

/// The pixels that the polygon's bounding box covers (columns from the floor of its left edge to
/// the ceiling of its right edge, as rasterstats reads them), clipped to a `width` × `height`
/// grid; `None` when the polygon is empty or outside.
pub fn pixel_window(
    grid_transform: &GeoTransform,
    width: usize,
    height: usize,
    polygon: &MultiPolygon<f64>,
) -> Option<Window> {
    let inv = grid_transform.invert()?;
    let (mut c0, mut r0, mut c1, mut r1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for p in &polygon.0 {
        for c in &p.exterior().0 {
            let (c, r) = inv.apply(c.x, c.y);
            c0 = c0.min(c);
            c1 = c1.max(c);
            r0 = r0.min(r);
            r1 = r1.max(r);
        }
    }
    if ![c0, r0, c1, r1].iter().all(|v| v.is_finite()) {
        return None;
    }
    let col0 = c0.floor().max(0.0);
    let row0 = r0.floor().max(0.0);
    let col1 = c1.ceil().min(width as f64);
    let row1 = r1.ceil().min(height as f64);
    if !(col1 > col0 && row1 > row0) {
        return None;
    }
    Some(Window::new(col0 as i64, row0 as i64, (col1 - col0) as usize, (row1 - row0) as usize))
}

/// Zonal statistics of `values` (a `width` × `height` raster, row-major, georeferenced by
/// `geo_transform`) under `polygon` (in the raster's CRS). Pixels equal to `nodata`, and NaN
/// pixels, are not counted. See the module documentation for which pixels a polygon covers.
pub fn zonal_stats(
    values: &[f32],
    width: usize,
    height: usize,
    geo_transform: &GeoTransform,
    nodata: Option<f32>,
    polygon: &MultiPolygon<f64>,
    all_touched: bool,
) -> ZoneStats {
    if width == 0 || height == 0 || values.len() < width.saturating_mul(height) {
        return ZoneStats::default();
    }
    let Some(mask) = rasterize(width, height, geo_transform, polygon, all_touched) else {
        return ZoneStats::default();
    };
    let mut picked = Vec::new();
    for (&v, &m) in values.iter().zip(&mask) {
        if m && !v.is_nan() && nodata != Some(v) {
            picked.push(v as f64);
        }
    }
    ZoneStats::of(&mut picked)
}

/// The polygon's rings in pixel coordinates (column, row), each closed.
fn rings_in_pixels(inv: &GeoTransform, polygon: &MultiPolygon<f64>) -> Vec<Vec<(f64, f64)>> {
    let mut rings = Vec::new();
    for p in &polygon.0 {
        for ring in std::iter::once(p.exterior()).chain(p.interiors()) {
            let mut pts: Vec<(f64, f64)> = ring.0.iter().map(|c| inv.apply(c.x, c.y)).collect();
            if pts.len() < 2 {
                continue;
            }
            if pts.first() != pts.last() {
                let first = pts[0];
                pts.push(first);
            }
            if pts.iter().all(|(x, y)| x.is_finite() && y.is_finite()) {
                rings.push(pts);
            }
        }
    }
    rings
}

/// Which pixels of a `width` × `height` grid the polygon covers, row-major.
fn rasterize(
    width: usize,
    height: usize,
    geo_transform: &GeoTransform,
    polygon: &MultiPolygon<f64>,
    all_touched: bool,
) -> Option<Vec<bool>> {
    let inv = geo_transform.invert()?;
    let rings = rings_in_pixels(&inv, polygon);
    let mut mask = vec![false; width * height];
    fill_centres(&rings, width, height, &mut mask);
    if all_touched {
        for ring in &rings {
            for seg in ring.windows(2) {
                walk_segment(seg[0], seg[1], width, height, &mut mask);
            }
        }
    }
    Some(mask)
}

/// An edge that crosses row centres: from its upper end (smaller row) down.
struct Edge {
    first_row: usize,
    last_row: usize,
    x0: f64,
    y0: f64,
    dxdy: f64,
}

/// Marks the pixels whose centres are inside the rings (even-odd). A crossing at `x` on the
/// scanline through row centres `y + 0.5` is rounded as GDAL does (`floor(x + 0.5)`), and a span
/// between crossings `a` and `b` takes the columns `a..b`: the pixels whose centre lies in
/// `(x_a, x_b]`. An edge counts for the rows whose centres are in `[y_top, y_bottom)`, so a
/// vertex is counted once; a horizontal edge lying exactly on a row centre and running right to
/// left fills its own span, as GDAL's does.
fn fill_centres(rings: &[Vec<(f64, f64)>], width: usize, height: usize, mask: &mut [bool]) {
    let mut edges = Vec::new();
    let h = height as f64;
    for ring in rings {
        for seg in ring.windows(2) {
            let ((xa, ya), (xb, yb)) = (seg[0], seg[1]);
            if ya == yb {
                let centre = ya - 0.5;
                if xa > xb && centre.fract() == 0.0 && centre >= 0.0 && centre < h {
                    fill_span(mask, width, centre as usize, (xb + 0.5).floor(), (xa + 0.5).floor());
                }
                continue;
            }
            let ((x0, y0), (_, y1)) = if ya < yb { ((xa, ya), (xb, yb)) } else { ((xb, yb), (xa, ya)) };
            // Rows r with y0 <= r + 0.5 < y1.
            let first = (y0 - 0.5).ceil().max(0.0);
            let end = (y1 - 0.5).ceil().min(h);
            if end <= first {
                continue;
            }
            let dxdy = if ya < yb { (xb - xa) / (yb - ya) } else { (xa - xb) / (ya - yb) };
            edges.push(Edge { first_row: first as usize, last_row: end as usize - 1, x0, y0, dxdy });
        }
    }
    edges.sort_by_key(|e| e.first_row);
    let mut active: Vec<usize> = Vec::new();
    let mut next = 0;
    let mut xs: Vec<f64> = Vec::new();
    let Some(start) = edges.first().map(|e| e.first_row) else { return };
    for row in start..height {
        while next < edges.len() && edges[next].first_row == row {
            active.push(next);
            next += 1;
        }
        active.retain(|&i| edges[i].last_row >= row);
        if active.is_empty() {
            if next == edges.len() {
                break;
            }
            continue;
        }
        let y = row as f64 + 0.5;
        xs.clear();
        xs.extend(active.iter().map(|&i| {
            let e = &edges[i];
            ((y - e.y0) * e.dxdy + e.x0 + 0.5).floor()
        }));
        xs.sort_by(f64::total_cmp);
        for pair in xs.chunks_exact(2) {
            fill_span(mask, width, row, pair[0], pair[1]);
        }
    }
}

/// Sets columns `from..to` (clipped) of `row`.
fn fill_span(mask: &mut [bool], width: usize, row: usize, from: f64, to: f64) {
    let a = from.max(0.0);
    let b = to.min(width as f64);
    if b > a {
        let base = row * width;
        mask[base + a as usize..base + b as usize].fill(true);
    }
}

/// Marks every pixel the segment passes through (a supercover walk: the cells a line crosses,
/// moving one cell boundary at a time). A point exactly on a pixel edge belongs to the pixel on
/// its right or below, as GDAL's all-touched lines do. The segment is first clipped to just
/// around the grid, so a ring far larger than the raster costs only the pixels it crosses.
fn walk_segment(a: (f64, f64), b: (f64, f64), width: usize, height: usize, mask: &mut [bool]) {
    let (w, h) = (width as f64, height as f64);
    let Some(((x0, y0), (x1, y1))) = clip(a, b, (-1.0, -1.0), (w + 1.0, h + 1.0)) else { return };
    let mut mark = |c: i64, r: i64| {
        if c >= 0 && r >= 0 && (c as usize) < width && (r as usize) < height {
            mask[r as usize * width + c as usize] = true;
        }
    };
    let (mut cx, mut cy) = (x0.floor() as i64, y0.floor() as i64);
    let (ex, ey) = (x1.floor() as i64, y1.floor() as i64);
    let (dx, dy) = (x1 - x0, y1 - y0);
    let step_x: i64 = if dx > 0.0 { 1 } else { -1 };
    let step_y: i64 = if dy > 0.0 { 1 } else { -1 };
    // Parameter t (0..1 along the segment) at which the next vertical / horizontal cell
    // boundary is crossed, and the increment per cell.
    let next_boundary = |p: f64, c: i64, step: i64| if step > 0 { (c + 1) as f64 - p } else { p - c as f64 };
    let (mut t_x, dt_x) =
        if dx != 0.0 { (next_boundary(x0, cx, step_x) / dx.abs(), 1.0 / dx.abs()) } else { (f64::INFINITY, 0.0) };
    let (mut t_y, dt_y) =
        if dy != 0.0 { (next_boundary(y0, cy, step_y) / dy.abs(), 1.0 / dy.abs()) } else { (f64::INFINITY, 0.0) };
    mark(cx, cy);
    let steps = (ex - cx).unsigned_abs() + (ey - cy).unsigned_abs();
    for _ in 0..steps {
        if t_x < t_y {
            cx += step_x;
            t_x += dt_x;
        } else {
            cy += step_y;
            t_y += dt_y;
        }
        mark(cx, cy);
        if cx == ex && cy == ey {
            break;
        }
    }
}

/// Liang–Barsky clipping of a segment to a rectangle.
fn clip(a: (f64, f64), b: (f64, f64), min: (f64, f64), max: (f64, f64)) -> Option<((f64, f64), (f64, f64))> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [(-dx, a.0 - min.0), (dx, max.0 - a.0), (-dy, a.1 - min.1), (dy, max.1 - a.1)] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
        }
    }
    if t0 > t1 {
        return None;
    }
    Some(((a.0 + t0 * dx, a.1 + t0 * dy), (a.0 + t1 * dx, a.1 + t1 * dy)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_diagonal_walk_visits_each_crossed_cell_once_in_order() {
        let mut mask = vec![false; 25];
        walk_segment((0.5, 0.5), (4.5, 2.5), 5, 5, &mut mask);
        let cells: Vec<usize> = (0..25).filter(|&i| mask[i]).collect();
        // Rows 0..=2; the line crosses y = 1 at x = 1.5 and y = 2 at x = 3.5.
        assert_eq!(cells, vec![0, 1, 6, 7, 8, 13, 14]);
    }

    #[test]
    fn clipping_keeps_the_inside_part() {
        let ((x0, _), (x1, _)) = clip((-10.0, 1.0), (10.0, 1.0), (0.0, 0.0), (5.0, 5.0)).unwrap();
        assert_eq!((x0, x1), (0.0, 5.0));
        assert!(clip((-10.0, 9.0), (10.0, 9.0), (0.0, 0.0), (5.0, 5.0)).is_none());
    }
}
