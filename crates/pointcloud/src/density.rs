//! Point spacing, and grid cells sized by the points rather than by their extent.
//!
//! Every raster step (the SMRF and CSF grids, the ground surface of the height above ground)
//! costs memory and time in proportion to its cells. Over a dense tile that is the point count;
//! over a few thousand points spread across kilometres it is the extent, and a 1 m grid of
//! 10 × 10 km is 100 million cells for nothing. [`grid_cell`] keeps the cell asked for unless
//! the grid would have more than [`CELLS_PER_POINT`] cells a point (and more than
//! [`SMALL_GRID`] cells in all); it then widens the cell until it does not. A sparse cloud is
//! so filtered at the resolution its points can carry, and no grid outgrows its points.
//!
//! [`spacing`] is the nominal spacing of the points over the area they occupy (the cells that
//! hold a point, not the bounding box), so that clusters far apart do not read as sparse.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

/// Most cells a raster step builds a point.
pub const CELLS_PER_POINT: f64 = 16.0;

/// A grid of this many cells is always allowed, however few its points.
pub const SMALL_GRID: f64 = 65_536.0;

/// The cell to use for a grid over `width` × `height` holding `points` points: `cell`, or the
/// smallest wider cell that keeps the grid within [`CELLS_PER_POINT`] cells a point, and within
/// `max_cells` in any case. Non-finite or non-positive inputs give `cell` back.
///
/// ```
/// use meridian_pointcloud::density::grid_cell;
/// // 6,000 points over 10 × 10 km: a 1 m grid would be 100 M cells; about 96,000 instead.
/// let cell = grid_cell(1.0, 10_000.0, 10_000.0, 6_000, 20_000_000);
/// assert!((cell - 32.3).abs() < 0.1);
/// // A dense tile keeps its cell.
/// assert_eq!(grid_cell(1.0, 500.0, 500.0, 2_000_000, 20_000_000), 1.0);
/// ```
pub fn grid_cell(cell: f64, width: f64, height: f64, points: usize, max_cells: u64) -> f64 {
    if !(cell.is_finite() && cell > 0.0 && width.is_finite() && height.is_finite()) {
        return cell;
    }
    let (w, h) = (width.max(0.0), height.max(0.0));
    let limit = (points as f64 * CELLS_PER_POINT).max(SMALL_GRID).min(max_cells.max(1) as f64);
    let cells = |c: f64| ((w / c).floor() + 1.0) * ((h / c).floor() + 1.0);
    if cells(cell) <= limit {
        return cell;
    }
    // (w/c + 1)(h/c + 1) <= limit: solve the quadratic in 1/c, then step up past rounding.
    let a = limit - 1.0;
    let s = w + h;
    let inv = (-s + (s * s + 4.0 * w * h * a).sqrt()) / (2.0 * w * h).max(f64::MIN_POSITIVE);
    let mut c = if inv.is_finite() && inv > 0.0 { (1.0 / inv).max(cell) } else { cell.max(w.max(h)) };
    while cells(c) > limit {
        c *= 1.0001;
    }
    c
}

/// The bounds `[x0, y0, x1, y1]` of the finite points `take` accepts, with their count; `None`
/// when there are none.
pub fn bounds(x: &[f64], y: &[f64], take: impl Fn(usize) -> bool) -> Option<([f64; 4], usize)> {
    let mut b = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    let mut count = 0;
    for i in (0..x.len().min(y.len())).filter(|&i| take(i) && x[i].is_finite() && y[i].is_finite()) {
        b = [b[0].min(x[i]), b[1].min(y[i]), b[2].max(x[i]), b[3].max(y[i])];
        count += 1;
    }
    (count > 0).then_some((b, count))
}

/// The nominal spacing of the points, 1/√density, the density taken over the area the points
/// occupy: the cells (about nine points each where the points are) that hold at least one.
/// Points far apart in clusters read as dense as each cluster is. 1.0 for fewer than two
/// finite points.
///
/// ```
/// use meridian_pointcloud::density::spacing;
/// // Two 10 × 10 m patches, a point every 0.5 m, 5 km apart.
/// let (mut x, mut y) = (vec![], vec![]);
/// for patch in [0.0, 5_000.0] {
///     for i in 0..20 {
///         for j in 0..20 {
///             x.push(patch + i as f64 * 0.5);
///             y.push(j as f64 * 0.5);
///         }
///     }
/// }
/// let s = spacing(&x, &y);
/// assert!(s > 0.4 && s < 0.8, "{s}");
/// ```
pub fn spacing(x: &[f64], y: &[f64]) -> f64 {
    let Some((b, n)) = bounds(x, y, |_| true) else {
        return 1.0;
    };
    let fill = |mut grid: Occupied| {
        for (&a, &c) in x.iter().zip(y) {
            grid.add(a, c);
        }
        Ok::<_, std::convert::Infallible>(grid)
    };
    fill(Occupied::first(b, n)).and_then(|first| spacing_over(&first, n, fill)).unwrap_or(1.0)
}

/// [`spacing`] of `n` points, for points that are not all in memory: `first` is the grid of
/// [`Occupied::first`] with every point [`Occupied::add`]ed, and `second` is handed the empty grid
/// of the second pass and gives it back with every point added (in any order, on any number of
/// threads: grids of one pass [`Occupied::merge`]).
pub fn spacing_over<E>(
    first: &Occupied,
    n: usize,
    second: impl FnOnce(Occupied) -> Result<Occupied, E>,
) -> Result<f64, E> {
    if n < 2 {
        return Ok(1.0);
    }
    Ok(second(first.next(n))?.spacing(n))
}

/// The cells that hold a point, in one of [`spacing`]'s passes: cells of three times the
/// spacing estimated so far (first from the bounding box, then from the cells the first pass
/// found), so that each holds about nine points where there are points.
#[derive(Clone, Debug)]
pub struct Occupied {
    origin: [f64; 2],
    cell: f64,
    cells: HashSet<(i64, i64), BuildHasherDefault<CellHasher>>,
}

impl Occupied {
    /// The first pass's grid for `n` points within `bounds` (min x, min y, max x, max y).
    pub fn first(bounds: [f64; 4], n: usize) -> Self {
        let area = ((bounds[2] - bounds[0]) * (bounds[3] - bounds[1])).max(1e-6);
        Self::with_spacing([bounds[0], bounds[1]], (area / n.max(1) as f64).sqrt().max(1e-3))
    }

    fn with_spacing(origin: [f64; 2], s: f64) -> Self {
        Self { origin, cell: 3.0 * s, cells: HashSet::default() }
    }

    /// An empty grid of the same cells.
    pub fn empty(&self) -> Self {
        Self { origin: self.origin, cell: self.cell, cells: HashSet::default() }
    }

    /// Marks the cell of a point; non-finite points are left out.
    pub fn add(&mut self, x: f64, y: f64) {
        if x.is_finite() && y.is_finite() {
            let cell = |v: f64, o: f64| ((v - o) / self.cell).floor() as i64;
            self.cells.insert((cell(x, self.origin[0]), cell(y, self.origin[1])));
        }
    }

    /// The cells of both grids (of one pass).
    pub fn merge(mut self, other: Self) -> Self {
        if other.cells.len() > self.cells.len() {
            return other.merge(self);
        }
        self.cells.extend(other.cells);
        self
    }

    /// The spacing of `n` points over the area of the cells held.
    fn spacing(&self, n: usize) -> f64 {
        let area = self.cells.len() as f64 * self.cell * self.cell;
        (area / n.max(1) as f64).sqrt().max(1e-3)
    }

    /// The next pass's empty grid, its cells sized by this one's spacing.
    fn next(&self, n: usize) -> Self {
        Self::with_spacing(self.origin, self.spacing(n))
    }
}

/// A hash map keyed by grid cells, with [`CellHasher`].
pub type CellMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<CellHasher>>;

/// A hash set of grid cells, with [`CellHasher`].
pub type CellSet<K> = HashSet<K, BuildHasherDefault<CellHasher>>;

/// A hasher for grid cell numbers: the 64-bit finaliser of MurmurHash3, which spreads the
/// low bits of neighbouring cells (the default SipHash is several times slower here).
#[derive(Default)]
pub struct CellHasher(u64);

impl std::hash::Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0.rotate_left(8) ^ u64::from(b));
        }
    }

    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }

    fn write_u64(&mut self, v: u64) {
        let mut h = v ^ self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^= h >> 33;
        self.0 = h;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_widened_grid_stays_within_its_budget() {
        for (w, h, n) in [(10_000.0, 10_000.0, 6_000), (7_000.0, 7_000.0, 50), (1e6, 1.0, 10), (0.0, 5e5, 3)] {
            let c = grid_cell(1.0, w, h, n, 20_000_000);
            let cells = ((w / c).floor() + 1.0) * ((h / c).floor() + 1.0);
            assert!(cells <= (n as f64 * CELLS_PER_POINT).max(SMALL_GRID), "{w} {h} {n}: {c} {cells}");
            assert!(c >= 1.0);
        }
    }

    #[test]
    fn uniform_points_have_their_spacing() {
        let (mut x, mut y) = (vec![], vec![]);
        for i in 0..100 {
            for j in 0..100 {
                x.push(f64::from(i) * 2.0);
                y.push(f64::from(j) * 2.0);
            }
        }
        let s = spacing(&x, &y);
        assert!((s - 2.0).abs() < 0.3, "{s}");
    }
}
