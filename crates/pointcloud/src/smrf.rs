//! The simple morphological filter (SMRF) of Pingel, Clarke and McBride (2013), "An improved
//! simple morphological filter for the terrain classification of airborne LIDAR data", ISPRS
//! Journal of Photogrammetry and Remote Sensing 77, 21–30. Parameters are named as PDAL's
//! `filters.smrf` names them.
//!
//! The steps: a minimum surface on a grid of `cell` metres, its empty cells filled; optionally a
//! net cut (an opening of radius `cut`); a progressive opening with disks of radius 1, 2, …,
//! `window / cell` cells, flagging as object every cell that an opening lowers by more than
//! `slope × radius × cell`; the provisional ground surface (the minimum surface without the
//! object cells, filled again); and the test of each point against that surface interpolated at
//! the point, with the tolerance `threshold + scalar × local slope` of the surface.
//!
//! Openings use a disk made of one horizontal run per row offset, each run a van Herk/Gil-Werman
//! running minimum or maximum, so an opening of radius r costs O(cells × r) whatever r.
//! Everything is deterministic: no randomness, no order-dependent reductions.

use crate::reader::PointCloud;

/// Errors of the ground filter.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SmrfError {
    /// A parameter is out of its range.
    #[error("invalid parameter {name}: {reason}")]
    Parameter {
        /// The parameter's name, as PDAL names it.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The columns given have different lengths.
    #[error("the point columns have different lengths")]
    Columns,
    /// The points span more grid cells than allowed.
    #[error("the grid would have {cells} cells, over the limit of {limit}")]
    GridTooLarge {
        /// Cells the grid would need.
        cells: u64,
        /// The limit ([`Smrf::max_cells`]).
        limit: u64,
    },
}

/// Which returns take part in the filter (PDAL's `returns`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReturnKind {
    /// The first of several returns.
    First,
    /// A return between the first and the last.
    Intermediate,
    /// The last of several returns.
    Last,
    /// The only return of its pulse (also every point of a file that does not record returns).
    Only,
}

impl ReturnKind {
    /// The kind of a point from its return number and number of returns.
    pub fn of(return_number: u8, number_of_returns: u8) -> Self {
        if number_of_returns <= 1 {
            ReturnKind::Only
        } else if return_number <= 1 {
            ReturnKind::First
        } else if return_number >= number_of_returns {
            ReturnKind::Last
        } else {
            ReturnKind::Intermediate
        }
    }
}

/// The SMRF parameters; the defaults are PDAL's.
#[derive(Debug, Clone, PartialEq)]
pub struct Smrf {
    /// Grid cell size in metres (`cell`, default 1.0).
    pub cell: f64,
    /// Terrain slope tolerated by the opening, rise over run (`slope`, default 0.15).
    pub slope: f64,
    /// Radius of the largest opening in metres (`window`, default 18.0).
    pub window: f64,
    /// Weight of the provisional surface's slope in the final tolerance (`scalar`, default 1.25).
    pub scalar: f64,
    /// Elevation tolerance of the final test in metres (`threshold`, default 0.5).
    pub threshold: f64,
    /// Radius of the net cut in metres, 0 for none (`cut`, default 0.0).
    pub cut: f64,
    /// Classes left out of the filter, inclusive range (`ignore`; PDAL leaves it empty, and
    /// noise, classes 7 and 18, is usually worth ignoring).
    pub ignore: Vec<std::ops::RangeInclusive<u8>>,
    /// Returns that take part (`returns`, default last and only).
    pub returns: Vec<ReturnKind>,
    /// Largest grid the filter builds, in cells (not a PDAL parameter: a guard against points
    /// spread over a continent).
    pub max_cells: u64,
}

impl Default for Smrf {
    fn default() -> Self {
        Self {
            cell: 1.0,
            slope: 0.15,
            window: 18.0,
            scalar: 1.25,
            threshold: 0.5,
            cut: 0.0,
            ignore: Vec::new(),
            returns: vec![ReturnKind::Last, ReturnKind::Only],
            max_cells: 20_000_000,
        }
    }
}

impl Smrf {
    /// The one parameter set tuned on the ISPRS filter-test samples (docs/pointcloud.md): PDAL's
    /// defaults with a 24 m window, a 0.45 m threshold and a scalar of 1.0.
    pub fn isprs() -> Self {
        Self { window: 24.0, threshold: 0.45, scalar: 1.0, ..Self::default() }
    }

    /// These parameters over points `spacing` metres apart: the cell never finer than the
    /// spacing (a grid of mostly empty cells filters its own interpolation, not the points).
    pub fn for_spacing(&self, spacing: f64) -> Self {
        let cell = if spacing.is_finite() { self.cell.max(spacing) } else { self.cell };
        Self { cell, ..self.clone() }
    }

    fn validate(&self) -> Result<(), SmrfError> {
        let positive = |name, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(SmrfError::Parameter { name, reason: format!("{v} is not a positive number") })
            }
        };
        let non_negative = |name, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(SmrfError::Parameter { name, reason: format!("{v} is not a non-negative number") })
            }
        };
        positive("cell", self.cell)?;
        non_negative("slope", self.slope)?;
        positive("window", self.window)?;
        non_negative("scalar", self.scalar)?;
        non_negative("threshold", self.threshold)?;
        non_negative("cut", self.cut)?;
        if self.window / self.cell > 10_000.0 || self.cut / self.cell > 10_000.0 {
            return Err(SmrfError::Parameter {
                name: "window",
                reason: "window and cut must be under 10,000 cells".to_owned(),
            });
        }
        Ok(())
    }

    /// Which points of `cloud` take part: not in an ignored class, of a selected return kind.
    pub fn selection(&self, cloud: &PointCloud) -> Vec<bool> {
        select(cloud, &self.ignore, &self.returns)
    }

    /// Ground points of `cloud`: `true` for ground. Points left out by [`Smrf::selection`] are
    /// never ground.
    pub fn classify_cloud(&self, cloud: &PointCloud) -> Result<Vec<bool>, SmrfError> {
        let selected = self.selection(cloud);
        self.classify(&cloud.x, &cloud.y, &cloud.z, Some(&selected))
    }

    /// Ground points of `cloud` leaving out the points `noise` marks as well (the low outliers an
    /// [`Elm`](crate::Elm) finds, say): `true` for ground.
    pub fn classify_cloud_without(&self, cloud: &PointCloud, noise: &[bool]) -> Result<Vec<bool>, SmrfError> {
        if noise.len() != cloud.len() {
            return Err(SmrfError::Columns);
        }
        let selected: Vec<bool> = self.selection(cloud).into_iter().zip(noise).map(|(s, &n)| s && !n).collect();
        self.classify(&cloud.x, &cloud.y, &cloud.z, Some(&selected))
    }

    /// Ground points among `x`, `y`, `z`: `true` for ground. With `selected`, only the points
    /// it marks are filtered (the others are never ground). Non-finite coordinates are not ground.
    ///
    /// ```
    /// use meridian_pointcloud::Smrf;
    /// // A 40 m square of flat ground, a point a metre, with a 6 m box on it.
    /// let (mut x, mut y, mut z) = (vec![], vec![], vec![]);
    /// for i in 0..40 {
    ///     for j in 0..40 {
    ///         let on_box = (15..25).contains(&i) && (15..25).contains(&j);
    ///         x.push(i as f64);
    ///         y.push(j as f64);
    ///         z.push(if on_box { 106.0 } else { 100.0 });
    ///     }
    /// }
    /// let ground = Smrf::default().classify(&x, &y, &z, None)?;
    /// assert!(ground[0] && !ground[20 * 40 + 20]);
    /// # Ok::<(), meridian_pointcloud::SmrfError>(())
    /// ```
    pub fn classify(&self, x: &[f64], y: &[f64], z: &[f64], selected: Option<&[bool]>) -> Result<Vec<bool>, SmrfError> {
        self.validate()?;
        let n = x.len();
        if y.len() != n || z.len() != n || selected.is_some_and(|s| s.len() != n) {
            return Err(SmrfError::Columns);
        }
        let take = |i: usize| selected.is_none_or(|s| s[i]) && x[i].is_finite() && y[i].is_finite() && z[i].is_finite();
        let (mut x0, mut y0, mut x1, mut y1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
        for i in (0..n).filter(|&i| take(i)) {
            x0 = x0.min(x[i]);
            y0 = y0.min(y[i]);
            x1 = x1.max(x[i]);
            y1 = y1.max(y[i]);
        }
        if x0 > x1 {
            return Ok(vec![false; n]);
        }
        // A grid far larger than its points (a few points over kilometres) buys no detail and
        // costs memory and time in proportion to its cells: the cell is widened until the grid
        // holds at most `CELLS_PER_POINT` cells a point (crate::density).
        let taken = (0..n).filter(|&i| take(i)).count();
        let cell = crate::density::grid_cell(self.cell, x1 - x0, y1 - y0, taken, self.max_cells);
        let cols = ((x1 - x0) / cell).floor() + 1.0;
        let rows = ((y1 - y0) / cell).floor() + 1.0;
        let cells = cols * rows;
        if !cells.is_finite() || cells > self.max_cells.max(crate::density::SMALL_GRID as u64) as f64 {
            return Err(SmrfError::GridTooLarge { cells: cells.min(u64::MAX as f64) as u64, limit: self.max_cells });
        }
        let grid = Grid { cols: cols as usize, rows: rows as usize, x0, y0, cell };
        let cell_of = |i: usize| grid.index(x[i], y[i]);

        // Minimum surface.
        let mut zmin = vec![f64::NAN; grid.cols * grid.rows];
        for i in (0..n).filter(|&i| take(i)) {
            let c = cell_of(i);
            if zmin[c].is_nan() || z[i] < zmin[c] {
                zmin[c] = z[i];
            }
        }
        fill(&mut zmin, grid.cols, grid.rows);

        // The openings only ever pick values of the grid they start from, so they run on the
        // ranks of its heights (as f32, exact for up to 2^24 distinct heights): half the memory of
        // the heights and twice the lanes, and the same answers, read back through the table.
        let object = match Ranks::of(&zmin) {
            Some(ranks) => self.objects(&ranks.ranks, |r: f32| ranks.heights[r as usize], &zmin, &grid),
            None => self.objects(&zmin, |h: f64| h, &zmin, &grid),
        };

        // Provisional ground surface: the minimum surface without the object cells, filled.
        let mut ground: Vec<f64> = zmin.iter().zip(&object).map(|(&v, &o)| if o { f64::NAN } else { v }).collect();
        fill(&mut ground, grid.cols, grid.rows);
        let gradient = slope_of(&ground, grid.cols, grid.rows, cell);

        use rayon::prelude::*;
        Ok((0..n)
            .into_par_iter()
            .with_min_len(4096)
            .map(|i| {
                if !take(i) {
                    return false;
                }
                let (surface_z, g) = grid.interpolate(&ground, &gradient, x[i], y[i]);
                // The surface puts each cell's value at its centre: a point up to most of a cell
                // away is compared with it, so over cells wider than a metre the slope term grows
                // with the cell (at PDAL's 1 m cell it is PDAL's).
                (z[i] - surface_z).abs() <= self.threshold + self.scalar * g * cell.max(1.0)
            })
            .collect())
    }
}

impl Smrf {
    /// The cells the net cut and the progressive opening find to be objects: `start` is the
    /// minimum surface `zmin` itself or stands for it (`height` gives a value's height).
    fn objects<V: Value>(&self, start: &[V], height: impl Fn(V) -> f64, zmin: &[f64], grid: &Grid) -> Vec<bool> {
        let (cols, rows, cell) = (grid.cols, grid.rows, grid.cell);
        let radius_cells = |metres: f64| (metres / cell).round() as usize;
        let mut object = vec![false; zmin.len()];
        // The net cut removes buildings larger than the largest window before the progression.
        // The cells it lowers by more than the slope allows at its radius are objects.
        let mut runs = Vec::new();
        let mut surface = start.to_vec();
        if self.cut > 0.0 {
            let radius = radius_cells(self.cut).max(1);
            surface = open(start, cols, rows, radius, &mut runs);
            let tolerance = self.slope * radius as f64 * cell;
            for (k, flag) in object.iter_mut().enumerate() {
                *flag = zmin[k] - height(surface[k]) > tolerance;
            }
        }

        // Progressive opening.
        for radius in 1..=radius_cells(self.window).max(1) {
            let opened = open(&surface, cols, rows, radius, &mut runs);
            let tolerance = self.slope * radius as f64 * cell;
            for (k, flag) in object.iter_mut().enumerate() {
                if height(surface[k]) - height(opened[k]) > tolerance {
                    *flag = true;
                }
            }
            surface = opened;
        }
        object
    }
}

/// A grid of heights as the ranks of its distinct heights.
struct Ranks {
    /// The distinct heights, in increasing order ([`f64::total_cmp`]).
    heights: Vec<f64>,
    /// Each cell's height as its index in `heights`.
    ranks: Vec<f32>,
}

impl Ranks {
    /// `None` when f32 cannot hold every rank exactly (more than 2^24 distinct heights).
    fn of(grid: &[f64]) -> Option<Self> {
        use rayon::prelude::*;
        // The cells in the order of their heights, then one pass gives each its rank: no search
        // per cell in the table of heights.
        let mut order: Vec<(u64, usize)> = grid.iter().enumerate().map(|(i, &v)| (total_order(v), i)).collect();
        order.par_sort_unstable();
        let mut heights = Vec::new();
        let mut ranks = vec![0f32; grid.len()];
        let mut last = None;
        for &(key, i) in &order {
            if last != Some(key) {
                if heights.len() == 1 << 24 {
                    return None;
                }
                heights.push(grid[i]);
                last = Some(key);
            }
            ranks[i] = (heights.len() - 1) as f32;
        }
        Some(Self { heights, ranks })
    }
}

/// `v` as an integer that orders as [`f64::total_cmp`] orders the numbers (equal only for the
/// same bits).
fn total_order(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// The cells: column along x, row along y, cell (c, r) centred on
/// (x0 + (c + 0.5) cell, y0 + (r + 0.5) cell).
struct Grid {
    cols: usize,
    rows: usize,
    x0: f64,
    y0: f64,
    cell: f64,
}

impl Grid {
    fn index(&self, x: f64, y: f64) -> usize {
        let c = (((x - self.x0) / self.cell) as usize).min(self.cols - 1);
        let r = (((y - self.y0) / self.cell) as usize).min(self.rows - 1);
        r * self.cols + c
    }

    /// Bilinear interpolation between cell centres of `surface`, and the slope of the cell.
    fn interpolate(&self, surface: &[f64], gradient: &[f64], x: f64, y: f64) -> (f64, f64) {
        let fx = ((x - self.x0) / self.cell - 0.5).clamp(0.0, (self.cols - 1) as f64);
        let fy = ((y - self.y0) / self.cell - 0.5).clamp(0.0, (self.rows - 1) as f64);
        let (c, r) = (fx.floor() as usize, fy.floor() as usize);
        let (c1, r1) = ((c + 1).min(self.cols - 1), (r + 1).min(self.rows - 1));
        let (tx, ty) = (fx - c as f64, fy - r as f64);
        let at = |c: usize, r: usize| surface[r * self.cols + c];
        let z = (at(c, r) * (1.0 - tx) + at(c1, r) * tx) * (1.0 - ty) + (at(c, r1) * (1.0 - tx) + at(c1, r1) * tx) * ty;
        (z, gradient[self.index(x, y)])
    }
}

/// Fills the NaN cells of `grid`: each empty cell first takes the mean of its filled neighbours,
/// ring by ring outwards from the data, then the filled cells relax towards the mean of their
/// neighbours (a Laplace fill, as the paper's inpainting) while the data cells stay fixed.
fn fill(grid: &mut [f64], cols: usize, rows: usize) {
    let empty: Vec<usize> = (0..grid.len()).filter(|&k| grid[k].is_nan()).collect();
    if empty.is_empty() || empty.len() == grid.len() {
        if empty.len() == grid.len() {
            grid.fill(0.0);
        }
        return;
    }
    let neighbours = |k: usize| {
        let (c, r) = ((k % cols) as isize, (k / cols) as isize);
        [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)].into_iter().filter_map(
            move |(dc, dr)| {
                let (cc, rr) = (c + dc, r + dr);
                (cc >= 0 && rr >= 0 && (cc as usize) < cols && (rr as usize) < rows)
                    .then(|| rr as usize * cols + cc as usize)
            },
        )
    };
    // Rings, breadth first from the data: each ring takes its values from the cells filled
    // before it, so every cell is visited once.
    let mut visited: Vec<bool> = grid.iter().map(|v| !v.is_nan()).collect();
    let mut ring: Vec<usize> = Vec::new();
    for &k in &empty {
        if neighbours(k).any(|j| !grid[j].is_nan()) {
            visited[k] = true;
            ring.push(k);
        }
    }
    while !ring.is_empty() {
        let values: Vec<f64> = ring
            .iter()
            .map(|&k| {
                let (mut sum, mut count) = (0.0, 0u32);
                for j in neighbours(k).filter(|&j| !grid[j].is_nan()) {
                    sum += grid[j];
                    count += 1;
                }
                sum / f64::from(count.max(1))
            })
            .collect();
        for (&k, v) in ring.iter().zip(values) {
            grid[k] = v;
        }
        let mut next = Vec::new();
        for &k in &ring {
            for j in neighbours(k) {
                if !visited[j] {
                    visited[j] = true;
                    next.push(j);
                }
            }
        }
        ring = next;
    }
    // Relaxation (Gauss-Seidel in a fixed order, so deterministic). A cell off the grid's edge
    // has all eight neighbours: they are read at fixed offsets, in the order `neighbours` gives
    // them, so the sums are the same to the bit.
    let inner = |k: usize| {
        let (c, r) = (k % cols, k / cols);
        c > 0 && r > 0 && c + 1 < cols && r + 1 < rows
    };
    let inside: Vec<bool> = empty.iter().map(|&k| inner(k)).collect();
    for _ in 0..20 {
        for (&k, &inside) in empty.iter().zip(&inside) {
            grid[k] = if inside {
                let (up, down) = (k - cols, k + cols);
                let sum = grid[up - 1]
                    + grid[up]
                    + grid[up + 1]
                    + grid[k - 1]
                    + grid[k + 1]
                    + grid[down - 1]
                    + grid[down]
                    + grid[down + 1];
                sum / 8.0
            } else {
                let (mut sum, mut count) = (0.0, 0u32);
                for j in neighbours(k) {
                    sum += grid[j];
                    count += 1;
                }
                sum / f64::from(count)
            };
        }
    }
}

/// Slope (rise over run) of each cell by central differences, one-sided at the edges.
fn slope_of(grid: &[f64], cols: usize, rows: usize, cell: f64) -> Vec<f64> {
    let mut out = vec![0.0; grid.len()];
    for r in 0..rows {
        for c in 0..cols {
            let (cl, cr) = (c.saturating_sub(1), (c + 1).min(cols - 1));
            let (rl, rr) = (r.saturating_sub(1), (r + 1).min(rows - 1));
            let gx =
                if cr > cl { (grid[r * cols + cr] - grid[r * cols + cl]) / ((cr - cl) as f64 * cell) } else { 0.0 };
            let gy =
                if rr > rl { (grid[rr * cols + c] - grid[rl * cols + c]) / ((rr - rl) as f64 * cell) } else { 0.0 };
            out[r * cols + c] = (gx * gx + gy * gy).sqrt();
        }
    }
    out
}

/// Morphological opening (erosion then dilation) with a disk of `radius` cells; `runs` as
/// [`disk_filter`]'s.
fn open<V: Value>(grid: &[V], cols: usize, rows: usize, radius: usize, runs: &mut Vec<Vec<V>>) -> Vec<V> {
    let eroded = disk_filter::<Min, V>(grid, cols, rows, radius, runs);
    disk_filter::<Max, V>(&eroded, cols, rows, radius, runs)
}

/// A value of the grids the disk filters take: heights (f64) or their ranks (f32).
trait Value: Copy + Send + Sync + PartialOrd + 'static {
    const INFINITY: Self;
    const NEG_INFINITY: Self;
    const ZERO: Self;
}

impl Value for f64 {
    const INFINITY: Self = f64::INFINITY;
    const NEG_INFINITY: Self = f64::NEG_INFINITY;
    const ZERO: Self = 0.0;
}

impl Value for f32 {
    const INFINITY: Self = f32::INFINITY;
    const NEG_INFINITY: Self = f32::NEG_INFINITY;
    const ZERO: Self = 0.0;
}

/// The minimum or the maximum, as a type, so that each filter is compiled for its own and its
/// loops vectorise. The grids filtered hold no NaN (empty cells are filled first).
trait Extreme: Send + Sync {
    /// The value that never wins.
    fn identity<V: Value>() -> V;
    /// The winner of two values.
    fn pick<V: Value>(a: V, b: V) -> V;
}

struct Min;

impl Extreme for Min {
    #[inline(always)]
    fn identity<V: Value>() -> V {
        V::INFINITY
    }
    #[inline(always)]
    fn pick<V: Value>(a: V, b: V) -> V {
        if b < a {
            b
        } else {
            a
        }
    }
}

struct Max;

impl Extreme for Max {
    #[inline(always)]
    fn identity<V: Value>() -> V {
        V::NEG_INFINITY
    }
    #[inline(always)]
    fn pick<V: Value>(a: V, b: V) -> V {
        if b > a {
            b
        } else {
            a
        }
    }
}

/// Rows filtered together, one a SIMD lane.
const LANES: usize = 4;

/// Minimum or maximum over a disk of `radius` cells (cells outside the grid do not count).
/// The disk is the union of horizontal runs of half-width `floor(sqrt(r² − dy²))` at each row
/// offset dy; each distinct half-width is one running filter of the whole grid, into a buffer of
/// `runs` (kept by the caller from one filter to the next: fresh grids of this size cost a page
/// fault every few cells).
fn disk_filter<E: Extreme, V: Value>(
    grid: &[V],
    cols: usize,
    rows: usize,
    radius: usize,
    runs: &mut Vec<Vec<V>>,
) -> Vec<V> {
    use rayon::prelude::*;
    let half_widths: Vec<usize> =
        (0..=radius).map(|dy| (((radius * radius - dy * dy) as f64).sqrt() + 1e-9).floor() as usize).collect();
    let mut distinct = half_widths.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if cols == 0 || rows == 0 {
        return Vec::new();
    }
    // Rows are independent in both passes: they run on rayon's threads, LANES rows at a time
    // (the same values whatever the thread count, as a minimum or maximum does not depend on the
    // order it is taken in).
    if runs.len() < distinct.len() {
        runs.resize_with(distinct.len(), Vec::new);
    }
    for (filtered, &w) in runs.iter_mut().zip(&distinct) {
        // Every cell is written below: a buffer of the grid's size is taken as it is.
        filtered.resize(grid.len(), V::ZERO);
        filtered
            .par_chunks_mut(cols * LANES)
            .zip(grid.par_chunks(cols * LANES))
            .with_min_len(4)
            .for_each_init(Scratch::default, |scratch, (dst, src)| running::<E, V>(src, cols, w, dst, scratch));
    }
    let run_of = |w: usize| distinct.iter().position(|&d| d == w).map(|j| runs[j].as_slice());
    let mut out = vec![E::identity::<V>(); grid.len()];
    out.par_chunks_mut(cols).enumerate().with_min_len(16).for_each(|(r, dst)| {
        for (dy, &w) in half_widths.iter().enumerate() {
            let Some(run) = run_of(w) else { continue };
            let sources = [r.checked_sub(dy), if dy == 0 { None } else { Some(r + dy).filter(|&s| s < rows) }];
            for s in sources.into_iter().flatten() {
                for (d, &v) in dst.iter_mut().zip(&run[s * cols..(s + 1) * cols]) {
                    *d = E::pick(*d, v);
                }
            }
        }
    });
    out
}

struct Scratch<V> {
    padded: Vec<[V; LANES]>,
    forward: Vec<[V; LANES]>,
    backward: Vec<[V; LANES]>,
}

impl<V> Default for Scratch<V> {
    fn default() -> Self {
        Self { padded: Vec::new(), forward: Vec::new(), backward: Vec::new() }
    }
}

/// Running minimum or maximum over windows `[i − w, i + w]` of each row of `src` (up to LANES
/// rows of `cols` cells, filtered side by side) into `out` (van Herk/Gil-Werman: block prefix
/// and suffix extremes, three comparisons a cell whatever w).
fn running<E: Extreme, V: Value>(src: &[V], cols: usize, w: usize, out: &mut [V], s: &mut Scratch<V>) {
    if w == 0 {
        out.copy_from_slice(src);
        return;
    }
    let lanes = src.len() / cols;
    let k = 2 * w + 1;
    // Pad w identities each side, then to a whole number of blocks; row l is lane l.
    let len = (cols + 2 * w).div_ceil(k) * k;
    s.padded.clear();
    s.padded.resize(len, [E::identity::<V>(); LANES]);
    for (l, row) in src.chunks(cols).enumerate() {
        for (p, &v) in s.padded[w..w + cols].iter_mut().zip(row) {
            p[l] = v;
        }
    }
    s.forward.clear();
    s.forward.resize(len, [V::ZERO; LANES]);
    s.backward.clear();
    s.backward.resize(len, [V::ZERO; LANES]);
    let pick = |a: [V; LANES], b: [V; LANES]| std::array::from_fn::<V, LANES, _>(|l| E::pick(a[l], b[l]));
    for b in (0..len).step_by(k) {
        let mut acc = [E::identity::<V>(); LANES];
        for i in b..b + k {
            acc = pick(acc, s.padded[i]);
            s.forward[i] = acc;
        }
        let mut acc = [E::identity::<V>(); LANES];
        for i in (b..b + k).rev() {
            acc = pick(acc, s.padded[i]);
            s.backward[i] = acc;
        }
    }
    // The window of output i is padded[i ..= i + 2w].
    for (l, row) in out.chunks_mut(cols).enumerate().take(lanes) {
        for (i, o) in row.iter_mut().enumerate() {
            *o = E::pick(s.backward[i][l], s.forward[i + k - 1][l]);
        }
    }
}

/// The points of `cloud` a ground filter takes: not in an `ignore`d class, of a listed return kind
/// (the `ignore` and `returns` options SMRF and CSF share).
pub(crate) fn select(cloud: &PointCloud, ignore: &[std::ops::RangeInclusive<u8>], returns: &[ReturnKind]) -> Vec<bool> {
    (0..cloud.len())
        .map(|i| {
            let class = cloud.classification[i];
            let kind = ReturnKind::of(cloud.return_number[i], cloud.number_of_returns[i]);
            !ignore.iter().any(|r| r.contains(&class)) && returns.contains(&kind)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn naive<E: Extreme, V: Value>(grid: &[V], cols: usize, rows: usize, radius: usize) -> Vec<V> {
        let r2 = (radius * radius) as isize;
        let rad = radius as isize;
        let mut out = vec![E::identity::<V>(); grid.len()];
        for r in 0..rows as isize {
            for c in 0..cols as isize {
                for dy in -rad..=rad {
                    for dx in -rad..=rad {
                        let (cc, rr) = (c + dx, r + dy);
                        if dx * dx + dy * dy <= r2 && cc >= 0 && rr >= 0 && cc < cols as isize && rr < rows as isize {
                            let k = (r as usize) * cols + c as usize;
                            out[k] = E::pick(out[k], grid[rr as usize * cols + cc as usize]);
                        }
                    }
                }
            }
        }
        out
    }

    /// The filter of `grid` against the definition, for the minimum and the maximum.
    fn matches_the_definition<V: Value + std::fmt::Debug>(
        grid: &[V],
        cols: usize,
        rows: usize,
        radius: usize,
        runs: &mut Vec<Vec<V>>,
    ) {
        let label = format!("{cols} × {rows}, r={radius}");
        assert_eq!(
            disk_filter::<Min, V>(grid, cols, rows, radius, runs),
            naive::<Min, V>(grid, cols, rows, radius),
            "{label}"
        );
        assert_eq!(
            disk_filter::<Max, V>(grid, cols, rows, radius, runs),
            naive::<Max, V>(grid, cols, rows, radius),
            "{label}"
        );
    }

    #[test]
    fn disk_filter_matches_the_definition() {
        // Row counts that fill the lanes, leave some empty, and a single row.
        for (cols, rows) in [(23, 17), (9, 8), (31, 1)] {
            let grid: Vec<f64> = (0..cols * rows).map(|k| ((k * 7919) % 101) as f64).collect();
            let ranks: Vec<f32> = grid.iter().map(|&v| v as f32).collect();
            // One set of buffers for every filter, as the progression keeps them.
            let (mut runs, mut rank_runs) = (Vec::new(), Vec::new());
            for radius in [1, 2, 3, 5, 8, 30] {
                matches_the_definition(&grid, cols, rows, radius, &mut runs);
                matches_the_definition(&ranks, cols, rows, radius, &mut rank_runs);
            }
        }
    }

    /// Each cell's rank is the number of distinct heights below its own ([`f64::total_cmp`]:
    /// -0 below 0, negatives, infinities), and the table holds each distinct height once.
    #[test]
    fn ranks_count_the_distinct_heights_below() {
        let mut grid: Vec<f64> = (0..5000).map(|k| ((k * 7919) % 613) as f64 * 0.25 - 40.0).collect();
        grid.extend([0.0, -0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 1e-300, -1e-300, 0.0]);
        let ranks = Ranks::of(&grid).unwrap();
        let mut distinct = grid.clone();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup_by(|a, b| a.to_bits() == b.to_bits());
        assert_eq!(
            ranks.heights.iter().map(|h| h.to_bits()).collect::<Vec<_>>(),
            distinct.iter().map(|h| h.to_bits()).collect::<Vec<_>>()
        );
        for (v, &r) in grid.iter().zip(&ranks.ranks) {
            assert_eq!(r as usize, distinct.iter().filter(|d| d.total_cmp(v).is_lt()).count(), "{v}");
            assert_eq!(ranks.heights[r as usize].to_bits(), v.to_bits());
        }
        assert!(Ranks::of(&[]).is_some_and(|r| r.heights.is_empty() && r.ranks.is_empty()));
    }

    /// The progression on the ranks of the heights finds the objects the progression on the
    /// heights finds: a rough surface with repeated heights, negative zeros and a net cut.
    #[test]
    fn the_openings_on_ranks_find_what_the_openings_on_heights_find() {
        let (cols, rows) = (61, 47);
        let zmin: Vec<f64> = (0..cols * rows)
            .map(|k| {
                let (c, r) = ((k % cols) as f64, (k / cols) as f64);
                let bump = if (k * 7919) % 13 == 0 { 3.0 + ((k * 31) % 7) as f64 } else { 0.0 };
                let v = 0.05 * c + 0.02 * r + bump + ((k * 104_729) % 5) as f64 * 0.1;
                if k % 17 == 0 {
                    -0.0
                } else {
                    v
                }
            })
            .collect();
        let grid = Grid { cols, rows, x0: 0.0, y0: 0.0, cell: 1.0 };
        for smrf in [Smrf::default(), Smrf { cut: 12.0, ..Smrf::default() }, Smrf { slope: 0.0, ..Smrf::isprs() }] {
            let ranks = Ranks::of(&zmin).unwrap();
            let on_ranks = smrf.objects(&ranks.ranks, |r: f32| ranks.heights[r as usize], &zmin, &grid);
            let on_heights = smrf.objects(&zmin, |h: f64| h, &zmin, &grid);
            assert_eq!(on_ranks, on_heights);
            assert!(on_heights.iter().any(|&o| o) && !on_heights.iter().all(|&o| o));
        }
    }

    #[test]
    fn fill_keeps_data_and_fills_holes() {
        let mut g = vec![1.0, f64::NAN, 3.0, f64::NAN, f64::NAN, f64::NAN];
        fill(&mut g, 3, 2);
        assert_eq!((g[0], g[2]), (1.0, 3.0));
        assert!(g.iter().all(|v| v.is_finite() && (1.0..=3.0).contains(v)));
    }

    #[test]
    fn a_box_on_a_tilted_plane_is_not_ground() {
        // A 60 m square of ground sloping 10 %, a point a metre, and a 10 m building of 12 m.
        let (mut x, mut y, mut z, mut truth) = (vec![], vec![], vec![], vec![]);
        for i in 0..60 {
            for j in 0..60 {
                let (px, py) = (i as f64 + 0.3, j as f64 + 0.6);
                let building = (20..32).contains(&i) && (25..37).contains(&j);
                x.push(px);
                y.push(py);
                z.push(0.1 * px + if building { 10.0 } else { 0.0 });
                truth.push(!building);
            }
        }
        let ground = Smrf::default().classify(&x, &y, &z, None).unwrap();
        assert_eq!(ground, truth);
    }

    #[test]
    fn bad_parameters_are_errors_and_huge_grids_are_widened() {
        let s = Smrf { cell: 0.0, ..Smrf::default() };
        assert!(matches!(s.classify(&[0.0], &[0.0], &[0.0], None), Err(SmrfError::Parameter { name: "cell", .. })));
        let s = Smrf { max_cells: 100, ..Smrf::default() };
        assert_eq!(s.classify(&[0.0, 1e6], &[0.0, 1e6], &[0.0, 0.0], None).unwrap(), [true, true]);
        assert_eq!(Smrf::default().classify(&[], &[], &[], None).unwrap(), Vec::<bool>::new());
    }

    /// 50 points over 7 × 7 km at a 1 m cell: 49 million cells for 50 points used to take minutes
    /// and gigabytes; the cell is now widened to the points (crate::density) and the filter
    /// answers at once.
    #[test]
    fn a_sparse_cloud_is_filtered_on_a_grid_sized_by_its_points() {
        let x: Vec<f64> = (0..50).map(|i| f64::from(i) * 140.0).collect();
        let y: Vec<f64> = (0..50).map(|i| f64::from(i % 7) * 1000.0).collect();
        let z = vec![10.0; 50];
        let ground = Smrf::default().classify(&x, &y, &z, None).unwrap();
        assert!(ground.iter().all(|&g| g));
    }
}
