//! The cloth simulation filter (CSF) of Zhang, Qi, Wan, Wang, Xie, Wang and Yan (2016), "An
//! Easy-to-Use Airborne LiDAR Data Filtering Method Based on Cloth Simulation", Remote Sensing
//! 8(6), 501. Parameters are named as PDAL's `filters.csf` names them, with its defaults.
//!
//! The cloud is turned upside down (z → −z) and a cloth, a grid of particles `resolution` metres
//! apart, is dropped onto it from above. Particles move only vertically:
//!
//! 1. **Intersection heights**: each point is projected onto its nearest particle; a particle's
//!    intersection height is the inverted height of the point nearest to it in plan. Particles
//!    that no point projects to take the mean of their filled neighbours, ring by ring outwards.
//! 2. **Gravity**: each movable particle moves by Verlet integration, its previous displacement
//!    damped by 1 % plus the fall under gravity in one time `step`.
//! 3. **Internal forces**: every pair of neighbouring particles (4-neighbours) is pulled
//!    together; `rigidness` stands for repeating the pull that many times, in closed form: a
//!    movable particle next to a fixed one moves by 1 − 0.7^rigidness of their height
//!    difference, two movable ones each by (1 − 0.4^rigidness) / 2 of it (the constants of the
//!    authors' implementation: each pull closes 30 % of the gap).
//! 4. **Collision**: a particle that falls below its intersection height is put back on it and
//!    fixed.
//! 5. Steps 2–4 repeat until the largest movement of a movable particle in a step is under
//!    `threshold / 100`, or `iterations` times.
//! 6. **Slope post-processing** (`smooth`): in each connected region of more than 50 movable
//!    particles, a movable particle next to a fixed one is fixed onto its intersection height when
//!    it is within `hdiff` of that neighbour and of its intersection height, and so on outwards.
//!    This brings the cloth down onto steep slopes where its stiffness held it up.
//! 7. **Classification**: a point is ground when its inverted height is within `threshold` of the
//!    cloth, interpolated bilinearly between the particles around it.
//!
//! Noise, low outliers above all, should be left out first ([`Csf::classify_cloud_without`]): the
//! cloth starts above the highest inverted point, and a point far under the ground makes it fall
//! a long way and sag into the hollows that buildings make in the inverted cloud.
//!
//! Edges are relaxed in four phases (even then odd columns, even then odd rows), each a set of
//! disjoint pairs processed in parallel, so the result is deterministic and the same on any
//! number of threads.

use crate::reader::PointCloud;
use crate::smrf::ReturnKind;
use rayon::prelude::*;
use std::collections::VecDeque;

/// Errors of the cloth simulation filter.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CsfError {
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
    /// The points span more cloth particles than allowed.
    #[error("the cloth would have {cells} particles, over the limit of {limit}")]
    GridTooLarge {
        /// Particles the cloth would need.
        cells: u64,
        /// The limit ([`Csf::max_cells`]).
        limit: u64,
    },
    /// `progress` returned `false`.
    #[error("cancelled")]
    Cancelled,
}

/// Gravity of the authors' implementation; with mass 1 its displacement in one step is
/// `GRAVITY × step⁴` (the force is scaled by step² and integrated over step²).
const GRAVITY: f64 = 0.2;
/// Share of a particle's velocity lost in each step.
const DAMPING: f64 = 0.01;
/// Height of the cloth above the highest inverted point at the start, metres.
const START_ABOVE: f64 = 0.05;
/// Particles around the points' extent on each side.
const BUFFER: usize = 2;
/// Movable regions of at most this many particles are left to the slope post-processing.
const SMALL_REGION: usize = 50;

/// CSF parameters; the defaults are PDAL's.
#[derive(Debug, Clone, PartialEq)]
pub struct Csf {
    /// Distance between cloth particles in metres (`resolution`, default 1.0).
    pub resolution: f64,
    /// Stiffness of the cloth: the number of times neighbours are pulled together in a step
    /// (`rigidness`, default 3; the paper uses 1 for steep slopes, 2 for terraces, 3 for flat
    /// ground).
    pub rigidness: u32,
    /// Time step of the simulation (`step`, default 0.65).
    pub step: f64,
    /// Distance in metres from the cloth within which a point is ground (`threshold`, default 0.5).
    pub threshold: f64,
    /// Most simulation steps (`iterations`, default 500).
    pub iterations: u32,
    /// Slope post-processing (`smooth`, default true).
    pub smooth: bool,
    /// Height difference in metres up to which the post-processing fixes a particle (`hdiff`,
    /// default 0.3).
    pub hdiff: f64,
    /// Classes left out of the filter, inclusive ranges (`ignore`; none by default).
    pub ignore: Vec<std::ops::RangeInclusive<u8>>,
    /// Returns that take part (`returns`, default last and only).
    pub returns: Vec<ReturnKind>,
    /// Largest cloth, in particles (not a PDAL parameter: a guard against points spread over a
    /// continent).
    pub max_cells: u64,
}

impl Default for Csf {
    fn default() -> Self {
        Self {
            resolution: 1.0,
            rigidness: 3,
            step: 0.65,
            threshold: 0.5,
            iterations: 500,
            smooth: true,
            hdiff: 0.3,
            ignore: Vec::new(),
            returns: vec![ReturnKind::Last, ReturnKind::Only],
            max_cells: 20_000_000,
        }
    }
}

impl Csf {
    /// The one parameter set tuned on the ISPRS filter-test samples: PDAL's defaults with a
    /// rigidness of 2 and a 0.7 m threshold (see the crate's documentation for the search).
    pub fn isprs() -> Self {
        Self { rigidness: 2, threshold: 0.7, ..Self::default() }
    }

    fn validate(&self) -> Result<(), CsfError> {
        let bad = |name, reason: String| Err(CsfError::Parameter { name, reason });
        if !(self.resolution.is_finite() && self.resolution > 0.0) {
            return bad("resolution", format!("{} is not a positive number", self.resolution));
        }
        if !(1..=100).contains(&self.rigidness) {
            return bad("rigidness", format!("{} is not between 1 and 100", self.rigidness));
        }
        if !(self.step.is_finite() && self.step > 0.0) {
            return bad("step", format!("{} is not a positive number", self.step));
        }
        if !(self.threshold.is_finite() && self.threshold > 0.0) {
            return bad("threshold", format!("{} is not a positive number", self.threshold));
        }
        if !(1..=100_000).contains(&self.iterations) {
            return bad("iterations", format!("{} is not between 1 and 100,000", self.iterations));
        }
        if !(self.hdiff.is_finite() && self.hdiff >= 0.0) {
            return bad("hdiff", format!("{} is not a non-negative number", self.hdiff));
        }
        Ok(())
    }

    /// Which points of `cloud` take part: not in an ignored class, of a selected return kind.
    pub fn selection(&self, cloud: &PointCloud) -> Vec<bool> {
        crate::smrf::select(cloud, &self.ignore, &self.returns)
    }

    /// Ground points of `cloud`: `true` for ground. Points left out by [`Csf::selection`] are
    /// never ground.
    pub fn classify_cloud(
        &self,
        cloud: &PointCloud,
        progress: &(dyn Fn(f64) -> bool + Sync),
    ) -> Result<Vec<bool>, CsfError> {
        let selected = self.selection(cloud);
        self.classify(&cloud.x, &cloud.y, &cloud.z, Some(&selected), progress)
    }

    /// Ground points of `cloud` leaving out the points `noise` marks as well (the noise a
    /// [`Noise`](crate::Noise) filter finds, say): `true` for ground.
    pub fn classify_cloud_without(
        &self,
        cloud: &PointCloud,
        noise: &[bool],
        progress: &(dyn Fn(f64) -> bool + Sync),
    ) -> Result<Vec<bool>, CsfError> {
        if noise.len() != cloud.len() {
            return Err(CsfError::Columns);
        }
        let selected: Vec<bool> = self.selection(cloud).into_iter().zip(noise).map(|(s, &n)| s && !n).collect();
        self.classify(&cloud.x, &cloud.y, &cloud.z, Some(&selected), progress)
    }

    /// Ground points among `x`, `y`, `z`: `true` for ground. With `selected`, only the points it
    /// marks are filtered (the others are never ground). Non-finite coordinates are not ground.
    ///
    /// `progress` is called after each simulation step and at the end with the share of the work
    /// done (0 to 1), from the calling thread; when it returns `false` the filter stops with
    /// [`CsfError::Cancelled`].
    ///
    /// ```
    /// use meridian_pointcloud::Csf;
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
    /// let ground = Csf::default().classify(&x, &y, &z, None, &|_| true)?;
    /// assert!(ground[0] && !ground[20 * 40 + 20]);
    /// # Ok::<(), meridian_pointcloud::CsfError>(())
    /// ```
    pub fn classify(
        &self,
        x: &[f64],
        y: &[f64],
        z: &[f64],
        selected: Option<&[bool]>,
        progress: &(dyn Fn(f64) -> bool + Sync),
    ) -> Result<Vec<bool>, CsfError> {
        self.validate()?;
        let n = x.len();
        if y.len() != n || z.len() != n || selected.is_some_and(|s| s.len() != n) {
            return Err(CsfError::Columns);
        }
        let take = |i: usize| selected.is_none_or(|s| s[i]) && x[i].is_finite() && y[i].is_finite() && z[i].is_finite();
        let points: Vec<usize> = (0..n).filter(|&i| take(i)).collect();
        if !progress(0.0) {
            return Err(CsfError::Cancelled);
        }
        if points.is_empty() {
            return Ok(vec![false; n]);
        }
        let (mut x0, mut y0, mut x1, mut y1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
        let mut top = f64::NEG_INFINITY;
        for &i in &points {
            x0 = x0.min(x[i]);
            y0 = y0.min(y[i]);
            x1 = x1.max(x[i]);
            y1 = y1.max(y[i]);
            top = top.max(-z[i]);
        }
        let extra = (2 * BUFFER) as f64;
        // A grid far larger than its points (a few points over kilometres) buys no detail and
        // costs memory and time in proportion to its cells: the resolution is widened until the
        // grid holds at most `CELLS_PER_POINT` cells a point (crate::density).
        let res = crate::density::grid_cell(self.resolution, x1 - x0, y1 - y0, points.len(), self.max_cells);
        let cols = ((x1 - x0) / res).floor() + 1.0 + extra;
        let rows = ((y1 - y0) / res).floor() + 1.0 + extra;
        let cells = cols * rows;
        let limit = self.max_cells.max(crate::density::SMALL_GRID as u64);
        if !cells.is_finite() || cells > limit as f64 + extra * (cols + rows) {
            return Err(CsfError::GridTooLarge { cells: cells.min(u64::MAX as f64) as u64, limit });
        }
        let grid = Grid {
            cols: cols as usize,
            rows: rows as usize,
            ox: x0 - BUFFER as f64 * res,
            oy: y0 - BUFFER as f64 * res,
            res,
        };

        let terrain = grid.intersection_heights(&points, x, y, z);
        let mut cloth = Cloth::new(&grid, top + START_ABOVE, self.rigidness);
        let displacement = GRAVITY * self.step.powi(4);
        for it in 0..self.iterations {
            let moved = cloth.step(displacement);
            cloth.collide(&terrain);
            if !progress(0.95 * f64::from(it + 1) / f64::from(self.iterations)) {
                return Err(CsfError::Cancelled);
            }
            if (moved != 0.0 && moved < self.threshold / 100.0) || !cloth.movable.contains(&true) {
                break;
            }
        }
        if self.smooth {
            cloth.smooth_slopes(&grid, &terrain, self.hdiff);
        }

        let mut ground = vec![false; n];
        let on_cloth: Vec<bool> = points
            .par_iter()
            .with_min_len(4096)
            .map(|&i| (-z[i] - grid.interpolate(&cloth.height, x[i], y[i])).abs() < self.threshold)
            .collect();
        for (&i, g) in points.iter().zip(on_cloth) {
            ground[i] = g;
        }
        if !progress(1.0) {
            return Err(CsfError::Cancelled);
        }
        Ok(ground)
    }
}

/// The particles: column along x, row along y, particle (c, r) at (ox + c res, oy + r res).
struct Grid {
    cols: usize,
    rows: usize,
    ox: f64,
    oy: f64,
    res: f64,
}

impl Grid {
    /// The particle nearest to (x, y) in plan.
    fn nearest(&self, x: f64, y: f64) -> usize {
        let c = (((x - self.ox) / self.res).round().max(0.0) as usize).min(self.cols - 1);
        let r = (((y - self.oy) / self.res).round().max(0.0) as usize).min(self.rows - 1);
        r * self.cols + c
    }

    /// Each particle's intersection height: the inverted height of the point nearest to it in
    /// plan among those projected onto it, the others filled from their neighbours.
    fn intersection_heights(&self, points: &[usize], x: &[f64], y: &[f64], z: &[f64]) -> Vec<f64> {
        let cells = self.cols * self.rows;
        let mut height = vec![f64::NAN; cells];
        let mut best = vec![f64::INFINITY; cells];
        for &i in points {
            let k = self.nearest(x[i], y[i]);
            let (px, py) = (self.ox + (k % self.cols) as f64 * self.res, self.oy + (k / self.cols) as f64 * self.res);
            let d = (x[i] - px).powi(2) + (y[i] - py).powi(2);
            if d < best[k] {
                best[k] = d;
                height[k] = -z[i];
            }
        }
        // Rings outwards from the particles with a point: each takes the mean of its filled
        // 4-neighbours of the rings before.
        let mut ring: Vec<usize> =
            (0..cells).filter(|&k| height[k].is_nan() && self.neighbours(k).any(|j| !height[j].is_nan())).collect();
        let mut queued: Vec<bool> = height.iter().map(|h| !h.is_nan()).collect();
        for &k in &ring {
            queued[k] = true;
        }
        while !ring.is_empty() {
            let values: Vec<f64> = ring
                .iter()
                .map(|&k| {
                    let (sum, count) = self
                        .neighbours(k)
                        .filter(|&j| !height[j].is_nan())
                        .fold((0.0, 0u32), |(s, c), j| (s + height[j], c + 1));
                    sum / f64::from(count.max(1))
                })
                .collect();
            for (&k, v) in ring.iter().zip(values) {
                height[k] = v;
            }
            let mut next = Vec::new();
            for &k in &ring {
                for j in self.neighbours(k) {
                    if !queued[j] {
                        queued[j] = true;
                        next.push(j);
                    }
                }
            }
            ring = next;
        }
        height
    }

    /// The 4-neighbours of particle `k`.
    fn neighbours(&self, k: usize) -> impl Iterator<Item = usize> {
        let (c, r, cols, rows) = (k % self.cols, k / self.cols, self.cols, self.rows);
        [
            (c > 0).then(|| k - 1),
            (c + 1 < cols).then_some(k + 1),
            (r > 0).then(|| k - cols),
            (r + 1 < rows).then_some(k + cols),
        ]
        .into_iter()
        .flatten()
    }

    /// The height of `surface` at (x, y), bilinear between the four particles around it.
    fn interpolate(&self, surface: &[f64], x: f64, y: f64) -> f64 {
        let fx = ((x - self.ox) / self.res).clamp(0.0, (self.cols - 1) as f64);
        let fy = ((y - self.oy) / self.res).clamp(0.0, (self.rows - 1) as f64);
        let (c, r) = (fx.floor() as usize, fy.floor() as usize);
        let (c1, r1) = ((c + 1).min(self.cols - 1), (r + 1).min(self.rows - 1));
        let (tx, ty) = (fx - c as f64, fy - r as f64);
        let at = |c: usize, r: usize| surface[r * self.cols + c];
        (at(c, r) * (1.0 - tx) + at(c1, r) * tx) * (1.0 - ty) + (at(c, r1) * (1.0 - tx) + at(c1, r1) * tx) * ty
    }
}

/// The cloth's state: heights (inverted), heights a step before, and which particles may move.
struct Cloth {
    cols: usize,
    height: Vec<f64>,
    previous: Vec<f64>,
    movable: Vec<bool>,
    /// Share of the gap a movable particle closes towards a fixed neighbour in one step.
    single: f64,
    /// Share of the gap each of two movable neighbours closes in one step.
    double: f64,
}

impl Cloth {
    fn new(grid: &Grid, start: f64, rigidness: u32) -> Self {
        let cells = grid.cols * grid.rows;
        let times = rigidness.min(1_000) as i32;
        Self {
            cols: grid.cols,
            height: vec![start; cells],
            previous: vec![start; cells],
            movable: vec![true; cells],
            single: 1.0 - 0.7f64.powi(times),
            double: 0.5 * (1.0 - 0.4f64.powi(times)),
        }
    }

    /// One step of gravity and internal forces; returns the largest vertical movement of a
    /// movable particle in it.
    fn step(&mut self, displacement: f64) -> f64 {
        self.height
            .par_iter_mut()
            .zip(self.previous.par_iter_mut())
            .zip(self.movable.par_iter())
            .with_min_len(4096)
            .for_each(|((h, p), &m)| {
                if m {
                    let now = *h;
                    *h = now + (now - *p) * (1.0 - DAMPING) - displacement;
                    *p = now;
                }
            });
        let cols = self.cols;
        let (single, double) = (self.single, self.double);
        let pull = |ha: &mut f64, hb: &mut f64, ma: bool, mb: bool| {
            let gap = *hb - *ha;
            match (ma, mb) {
                (true, true) => {
                    *ha += double * gap;
                    *hb -= double * gap;
                }
                (true, false) => *ha += single * gap,
                (false, true) => *hb -= single * gap,
                (false, false) => {}
            }
        };
        // Along rows: pairs (c, c + 1) with c even, then with c odd.
        for parity in 0..2 {
            self.height.par_chunks_mut(cols).zip(self.movable.par_chunks(cols)).with_min_len(64).for_each(|(h, m)| {
                let mut c = parity;
                while c + 1 < cols {
                    let (left, right) = h.split_at_mut(c + 1);
                    pull(&mut left[c], &mut right[0], m[c], m[c + 1]);
                    c += 2;
                }
            });
        }
        // Across rows: pairs (r, r + 1) with r even, then with r odd.
        for parity in 0..2 {
            let skip = parity * cols;
            let (heights, movable) = (&mut self.height[skip..], &self.movable[skip..]);
            heights.par_chunks_mut(2 * cols).zip(movable.par_chunks(2 * cols)).with_min_len(32).for_each(|(h, m)| {
                if h.len() < 2 * cols {
                    return;
                }
                let (lower, upper) = h.split_at_mut(cols);
                for c in 0..cols {
                    pull(&mut lower[c], &mut upper[c], m[c], m[cols + c]);
                }
            });
        }
        // A movable particle's previous height is its height at the start of this step.
        self.height
            .par_iter()
            .zip(self.previous.par_iter())
            .zip(self.movable.par_iter())
            .with_min_len(4096)
            .filter(|(_, &m)| m)
            .map(|((h, s), _)| (h - s).abs())
            .reduce(|| 0.0, f64::max)
    }

    /// Particles below the terrain go back onto it and stop.
    fn collide(&mut self, terrain: &[f64]) {
        self.height
            .par_iter_mut()
            .zip(self.movable.par_iter_mut())
            .zip(terrain.par_iter())
            .with_min_len(4096)
            .for_each(|((h, m), &t)| {
                if *m && *h < t {
                    *h = t;
                    *m = false;
                }
            });
    }

    /// The slope post-processing: in each 4-connected region of movable particles larger than
    /// [`SMALL_REGION`], particles next to fixed ones within `hdiff` of them and of the terrain
    /// are put on the terrain and fixed, spreading from the region's edge inwards.
    fn smooth_slopes(&mut self, grid: &Grid, terrain: &[f64], hdiff: f64) {
        let cells = self.height.len();
        let mut seen = vec![false; cells];
        let mut queue = VecDeque::new();
        for start in 0..cells {
            if !self.movable[start] || seen[start] {
                continue;
            }
            // The region, breadth first.
            let mut region = vec![start];
            seen[start] = true;
            let mut head = 0;
            while head < region.len() {
                let k = region[head];
                head += 1;
                for j in grid.neighbours(k) {
                    if self.movable[j] && !seen[j] {
                        seen[j] = true;
                        region.push(j);
                    }
                }
            }
            if region.len() <= SMALL_REGION {
                continue;
            }
            // From each fixed particle on the region's edge, inwards.
            let close = |cloth: &Cloth, k: usize, fixed: usize| {
                (cloth.height[k] - cloth.height[fixed]).abs() < hdiff && cloth.height[k] - terrain[k] < hdiff
            };
            for &k in &region {
                if self.movable[k] && grid.neighbours(k).any(|j| !self.movable[j] && close(self, k, j)) {
                    self.height[k] = terrain[k];
                    self.movable[k] = false;
                    queue.push_back(k);
                }
            }
            while let Some(f) = queue.pop_front() {
                for j in grid.neighbours(f) {
                    if self.movable[j] && close(self, j, f) {
                        self.height[j] = terrain[j];
                        self.movable[j] = false;
                        queue.push_back(j);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn bad_parameters_are_errors_and_huge_grids_are_widened() {
        let run = |c: Csf| c.classify(&[0.0], &[0.0], &[0.0], None, &|_| true);
        assert!(matches!(
            run(Csf { resolution: 0.0, ..Csf::default() }),
            Err(CsfError::Parameter { name: "resolution", .. })
        ));
        assert!(matches!(
            run(Csf { rigidness: 0, ..Csf::default() }),
            Err(CsfError::Parameter { name: "rigidness", .. })
        ));
        assert!(matches!(run(Csf { step: f64::NAN, ..Csf::default() }), Err(CsfError::Parameter { name: "step", .. })));
        let c = Csf { max_cells: 100, ..Csf::default() };
        assert_eq!(c.classify(&[0.0, 1e6], &[0.0, 1e6], &[0.0, 0.0], None, &|_| true).unwrap(), [true, true]);
        assert_eq!(Csf::default().classify(&[], &[], &[], None, &|_| true).unwrap(), Vec::<bool>::new());
        assert_eq!(Csf::default().classify(&[0.0], &[], &[0.0], None, &|_| true), Err(CsfError::Columns));
    }

    #[test]
    fn rigidness_factors_are_the_repeated_pulls() {
        // Three pulls of 30 % of the gap against a fixed neighbour leave 0.7³ of it.
        let grid = Grid { cols: 2, rows: 1, ox: 0.0, oy: 0.0, res: 1.0 };
        let mut cloth = Cloth::new(&grid, 0.0, 3);
        let mut gap = 1.0;
        for _ in 0..3 {
            gap -= 0.3 * gap;
        }
        assert!((1.0 - cloth.single - gap).abs() < 1e-12);
        // Two movable particles 1 m apart, no gravity: they meet halfway less 0.4³ of the gap.
        cloth.height = vec![0.0, 1.0];
        cloth.previous = cloth.height.clone();
        cloth.step(0.0);
        assert!((cloth.height[1] - cloth.height[0] - 0.4f64.powi(3)).abs() < 1e-12);
        assert!((cloth.height[0] + cloth.height[1] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn degenerate_clouds_are_handled() {
        let csf = Csf::default();
        assert_eq!(csf.classify(&[3.0], &[4.0], &[5.0], None, &|_| true).unwrap(), [true]);
        assert_eq!(csf.classify(&[3.0; 50], &[4.0; 50], &[5.0; 50], None, &|_| true).unwrap(), [true; 50]);
        // A line of points, one of them 5 m up; and nothing selected.
        let x: Vec<f64> = (0..30).map(f64::from).collect();
        let mut z = vec![0.0; 30];
        z[15] = 5.0;
        let ground = csf.classify(&x, &[0.0; 30], &z, None, &|_| true).unwrap();
        assert!(!ground[15] && ground.iter().filter(|&&g| g).count() == 29);
        assert_eq!(csf.classify(&x, &[0.0; 30], &z, Some(&[false; 30]), &|_| true).unwrap(), [false; 30]);
    }

    #[test]
    fn interpolation_is_bilinear() {
        let grid = Grid { cols: 2, rows: 2, ox: 10.0, oy: 20.0, res: 2.0 };
        let surface = [0.0, 2.0, 4.0, 6.0];
        assert_eq!(grid.interpolate(&surface, 11.0, 21.0), 3.0);
        assert_eq!(grid.interpolate(&surface, 10.0, 22.0), 4.0);
        assert_eq!(grid.interpolate(&surface, 100.0, 0.0), 2.0);
    }

    #[test]
    fn cancellation_stops_the_simulation() {
        let x: Vec<f64> = (0..400).map(|i| f64::from(i % 20)).collect();
        let y: Vec<f64> = (0..400).map(|i| f64::from(i / 20)).collect();
        let z = vec![0.0; 400];
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let stop = |_: f64| calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < 3;
        assert_eq!(Csf::default().classify(&x, &y, &z, None, &stop), Err(CsfError::Cancelled));
        assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 4);
    }
}
