//! Noise: the outliers that PDAL's `filters.outlier` finds, split into low and high noise.
//!
//! Two tests, named and parameterised as PDAL names them:
//!
//! - **statistical** (`mean_k`, `multiplier`): each point's mean 3D distance to its `mean_k`
//!   nearest neighbours; a point whose mean distance exceeds the mean of all those distances plus
//!   `multiplier` sample standard deviations is noise.
//! - **radius** (`radius`, `min_k`): a point with fewer than `min_k` other points within `radius`
//!   metres (3D, boundary included) is noise.
//!
//! PDAL marks every outlier class 7. Here each one is then placed against the points that are not
//! noise: it is low noise (class 7, [`LOW_NOISE`]) when it lies below the median height of the
//! `mean_k` inliers nearest to it in plan, high noise (class 18, [`HIGH_NOISE`]) otherwise. Taking
//! the neighbourhood from the inliers keeps a clump of noise (a flock of birds, a multipath pit)
//! from being measured against itself.
//!
//! The statistical test asks a k-d tree (kiddo) of the points; the radius test sorts the points
//! into cubes and looks only at the cubes around a point; a second tree, of the inliers in plan,
//! serves the split; queries run in parallel on rayon in blocks, and `progress` is called between
//! blocks. The result does not depend on the number of threads.

use kiddo::{ImmutableKdTree, SquaredEuclidean};
use rayon::prelude::*;
use std::num::NonZeroUsize;

/// The ASPRS class of noise below the surface.
pub const LOW_NOISE: u8 = 7;
/// The ASPRS class of noise above the surface.
pub const HIGH_NOISE: u8 = 18;

/// Points processed between two calls of `progress`.
const BLOCK: usize = 1 << 14;

/// Errors of the noise filter.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum NoiseError {
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
    /// More points than [`Noise::max_points`] allows.
    #[error("{points} points, over the limit of {limit}")]
    TooManyPoints {
        /// Points given.
        points: u64,
        /// The limit.
        limit: u64,
    },
    /// The spatial index could not be built.
    #[error("building the spatial index: {0}")]
    Index(String),
    /// `progress` returned `false`.
    #[error("cancelled")]
    Cancelled,
}

/// Which test finds the noise (PDAL's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoiseMethod {
    /// Mean distance to the nearest neighbours against its distribution (PDAL's `statistical`).
    Statistical,
    /// Too few neighbours within a radius: isolated points (PDAL's `radius`).
    Radius,
    /// Noise by either test (not a PDAL method: both filters in one pass over one index).
    Both,
}

/// Noise parameters; the defaults are PDAL's `filters.outlier` defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Noise {
    /// The test (`method`, default statistical).
    pub method: NoiseMethod,
    /// Neighbours whose mean distance is measured (`mean_k`, default 8); also the size of the
    /// neighbourhood that decides low against high noise.
    pub mean_k: usize,
    /// Standard deviations above the mean distance beyond which a point is noise
    /// (`multiplier`, default 2.0).
    pub multiplier: f64,
    /// Radius of the isolated-point test in metres (`radius`, default 1.0).
    pub radius: f64,
    /// Fewest other points within `radius` of a point that is not noise (`min_k`, default 2).
    pub min_k: usize,
    /// Most points accepted (not a PDAL parameter: a guard on memory and time; default 100
    /// million, as the reader's limit).
    pub max_points: u64,
}

impl Default for Noise {
    fn default() -> Self {
        Self {
            method: NoiseMethod::Statistical,
            mean_k: 8,
            multiplier: 2.0,
            radius: 1.0,
            min_k: 2,
            max_points: 100_000_000,
        }
    }
}

type Tree3 = ImmutableKdTree<f64, 3>;
type Tree2 = ImmutableKdTree<f64, 2>;

/// Calls `progress` with the share of the work done; an error when it asks to stop.
struct Progress<'a> {
    f: &'a (dyn Fn(f64) -> bool + Sync),
    done: f64,
    total: f64,
}

impl Progress<'_> {
    fn advance(&mut self, work: f64) -> Result<(), NoiseError> {
        self.done += work;
        // Snapped to 1 at the end, whatever the rounding of the sums on the way.
        let fraction =
            if self.total > 0.0 && self.done < self.total * (1.0 - 1e-9) { self.done / self.total } else { 1.0 };
        if (self.f)(fraction) {
            Ok(())
        } else {
            Err(NoiseError::Cancelled)
        }
    }
}

/// Runs `f` over `0..n` in parallel, a block at a time, reporting progress between blocks; the
/// `n` items weigh `work` in the progress.
fn blocks<T: Send>(
    n: usize,
    work: f64,
    progress: &mut Progress<'_>,
    f: impl Fn(usize) -> T + Sync + Send,
) -> Result<Vec<T>, NoiseError> {
    let mut out = Vec::with_capacity(n);
    for start in (0..n).step_by(BLOCK) {
        let end = (start + BLOCK).min(n);
        out.par_extend((start..end).into_par_iter().map(&f));
        progress.advance(work * (end - start) as f64 / n as f64)?;
    }
    Ok(out)
}

/// The points sorted into cubes of side radius / √3. Any two points in one cube are within radius
/// of each other, so a point whose cube holds `min_k` others is not isolated: in a dense cloud
/// that settles almost every point with no search. Every point within radius of a point lies in
/// the 5 × 5 × 5 cubes around its own (radius is √3 sides), so the others are settled by a look at
/// those. The sort runs on rayon's threads; no tree is built.
struct Cubes {
    side: f64,
    /// Point indices in the order of their cube's key.
    order: Vec<u32>,
    /// The keys of the cubes that hold points, sorted.
    keys: Vec<[i64; 3]>,
    /// Cube c holds `order[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    /// Each point's cube.
    cube_of: Vec<u32>,
}

impl Cubes {
    fn new(points: &[[f64; 3]], radius: f64) -> Self {
        let side = radius / 3f64.sqrt();
        let key =
            |p: &[f64; 3]| [(p[0] / side).floor() as i64, (p[1] / side).floor() as i64, (p[2] / side).floor() as i64];
        let mut keyed: Vec<([i64; 3], u32)> = points.par_iter().enumerate().map(|(i, p)| (key(p), i as u32)).collect();
        keyed.par_sort_unstable();
        let mut keys = Vec::new();
        let mut starts = Vec::new();
        let mut cube_of = vec![0u32; points.len()];
        for (at, (k, i)) in keyed.iter().enumerate() {
            if keys.last() != Some(k) {
                keys.push(*k);
                starts.push(at as u32);
            }
            cube_of[*i as usize] = (keys.len() - 1) as u32;
        }
        starts.push(keyed.len() as u32);
        let order = keyed.into_iter().map(|(_, i)| i).collect();
        Self { side, order, keys, starts, cube_of }
    }

    /// Points in point i's cube, itself included.
    fn count(&self, i: usize) -> usize {
        let c = self.cube_of[i] as usize;
        (self.starts[c + 1] - self.starts[c]) as usize
    }

    /// Whether point i has at least `min_k` other points within `radius` (boundary included).
    fn crowded(&self, points: &[[f64; 3]], i: usize, radius: f64, min_k: usize) -> bool {
        if self.count(i) > min_k {
            return true;
        }
        let p = &points[i];
        let k = self.keys[self.cube_of[i] as usize];
        let r2 = radius * radius;
        // Itself is among the points found.
        let mut found = 0usize;
        let reach = (radius / self.side).ceil() as i64;
        for dx in -reach..=reach {
            for dy in -reach..=reach {
                // The cubes of one column are consecutive in the sorted keys.
                let (x, y) = (k[0].saturating_add(dx), k[1].saturating_add(dy));
                let lo = self.keys.partition_point(|c| *c < [x, y, k[2].saturating_sub(reach)]);
                let hi = self.keys.partition_point(|c| *c <= [x, y, k[2].saturating_add(reach)]);
                for c in lo..hi {
                    for &j in &self.order[self.starts[c] as usize..self.starts[c + 1] as usize] {
                        let q = &points[j as usize];
                        let (a, b, d) = (q[0] - p[0], q[1] - p[1], q[2] - p[2]);
                        if a * a + b * b + d * d <= r2 {
                            found += 1;
                            if found > min_k {
                                return true;
                            }
                        }
                    }
                }
            }
        }
        false
    }
}

impl Noise {
    fn validate(&self) -> Result<(), NoiseError> {
        let bad = |name, reason: String| Err(NoiseError::Parameter { name, reason });
        if self.mean_k == 0 || self.mean_k > 10_000 {
            return bad("mean_k", format!("{} is not between 1 and 10,000", self.mean_k));
        }
        if !self.multiplier.is_finite() {
            return bad("multiplier", format!("{} is not a number", self.multiplier));
        }
        if !(self.radius.is_finite() && self.radius > 0.0) {
            return bad("radius", format!("{} is not a positive number", self.radius));
        }
        if self.min_k == 0 || self.min_k > 10_000 {
            return bad("min_k", format!("{} is not between 1 and 10,000", self.min_k));
        }
        Ok(())
    }

    /// The class of each point among `x`, `y`, `z`: 0 when it is not noise, [`LOW_NOISE`] (7) or
    /// [`HIGH_NOISE`] (18). Points with a non-finite coordinate take no part and are 0.
    ///
    /// `progress` is called now and then with the share of the work done (0 to 1), from the
    /// calling thread; when it returns `false` the filter stops with [`NoiseError::Cancelled`].
    ///
    /// ```
    /// use meridian_pointcloud::noise::{Noise, HIGH_NOISE, LOW_NOISE};
    /// // A flat 30 m square, a point a metre, with one point 15 m above and one 15 m below.
    /// let (mut x, mut y, mut z) = (vec![], vec![], vec![]);
    /// for i in 0..30 {
    ///     for j in 0..30 {
    ///         x.push(i as f64);
    ///         y.push(j as f64);
    ///         z.push(100.0);
    ///     }
    /// }
    /// x.extend([10.5, 20.5]);
    /// y.extend([10.5, 20.5]);
    /// z.extend([115.0, 85.0]);
    /// let classes = Noise::default().classify(&x, &y, &z, &|_| true)?;
    /// assert_eq!(classes[900..], [HIGH_NOISE, LOW_NOISE]);
    /// assert!(classes[..900].iter().all(|&c| c == 0));
    /// # Ok::<(), meridian_pointcloud::NoiseError>(())
    /// ```
    pub fn classify(
        &self,
        x: &[f64],
        y: &[f64],
        z: &[f64],
        progress: &(dyn Fn(f64) -> bool + Sync),
    ) -> Result<Vec<u8>, NoiseError> {
        self.validate()?;
        let n = x.len();
        if y.len() != n || z.len() != n {
            return Err(NoiseError::Columns);
        }
        let limit = self.max_points.min(u64::from(u32::MAX));
        if n as u64 > limit {
            return Err(NoiseError::TooManyPoints { points: n as u64, limit });
        }
        // Tree item k is point index[k].
        let index: Vec<usize> = (0..n).filter(|&i| x[i].is_finite() && y[i].is_finite() && z[i].is_finite()).collect();
        let m = index.len();
        let stages = match self.method {
            NoiseMethod::Both => 2,
            _ => 1,
        };
        // Each test weighs m, the split of the noise into low and high m as well.
        let mut progress = Progress { f: progress, done: 0.0, total: ((stages + 1) * m) as f64 };
        progress.advance(0.0)?;

        let points: Vec<[f64; 3]> = index.iter().map(|&i| [x[i], y[i], z[i]]).collect();
        let radius_test = matches!(self.method, NoiseMethod::Radius | NoiseMethod::Both);
        let cubes = radius_test.then(|| Cubes::new(&points, self.radius));
        // The radius test alone: when every point's cube is crowded there is no noise, and
        // neither the search nor the split is needed.
        if let (NoiseMethod::Radius, Some(cubes)) = (self.method, &cubes) {
            if (0..m).into_par_iter().all(|i| cubes.count(i) > self.min_k) {
                progress.advance(((stages + 1) * m) as f64)?;
                return Ok(vec![0u8; n]);
            }
        }
        let mut noise = vec![false; m];
        if matches!(self.method, NoiseMethod::Statistical | NoiseMethod::Both) {
            let tree = Tree3::new_from_slice(&points).map_err(|e| NoiseError::Index(e.to_string()))?;
            for (flag, is_noise) in noise.iter_mut().zip(self.statistical(&tree, &points, &mut progress)?) {
                *flag |= is_noise;
            }
        }
        if let Some(cubes) = &cubes {
            let isolated = blocks(m, m as f64, &mut progress, |i| !cubes.crowded(&points, i, self.radius, self.min_k))?;
            for (flag, is_noise) in noise.iter_mut().zip(isolated) {
                *flag |= is_noise;
            }
        }
        drop(cubes);

        let classes = self.split(&points, &noise, &mut progress)?;
        let mut out = vec![0u8; n];
        for (k, &i) in index.iter().enumerate() {
            out[i] = classes[k];
        }
        Ok(out)
    }

    /// The statistical test: `true` for noise, per tree item.
    fn statistical(
        &self,
        tree: &Tree3,
        points: &[[f64; 3]],
        progress: &mut Progress<'_>,
    ) -> Result<Vec<bool>, NoiseError> {
        let k = NonZeroUsize::new(self.mean_k + 1).unwrap_or(NonZeroUsize::MIN);
        // Mean distance to the mean_k nearest other points (the query's first answer, at
        // distance 0, stands for the point itself; with duplicates any one of them does).
        let mean_distance = blocks(points.len(), points.len() as f64, progress, |i| {
            let found = tree.query(&points[i]).nearest_n::<SquaredEuclidean<f64>>(k).execute();
            let others = found.len().saturating_sub(1);
            if others == 0 {
                return None;
            }
            Some(found.iter().skip(1).map(|r| r.distance.sqrt()).sum::<f64>() / others as f64)
        })?;
        let measured: Vec<f64> = mean_distance.iter().flatten().copied().collect();
        if measured.len() < 2 {
            return Ok(vec![false; points.len()]);
        }
        let count = measured.len() as f64;
        let mean = measured.iter().sum::<f64>() / count;
        let variance = measured.iter().map(|d| (d - mean) * (d - mean)).sum::<f64>() / (count - 1.0);
        let threshold = mean + self.multiplier * variance.sqrt();
        Ok(mean_distance.into_iter().map(|d| d.is_some_and(|d| d > threshold)).collect())
    }

    /// Low or high noise for each noise point, against the median height of the `mean_k` inliers
    /// nearest in plan (all inliers' median when there are none near: then every inlier is).
    fn split(&self, points: &[[f64; 3]], noise: &[bool], progress: &mut Progress<'_>) -> Result<Vec<u8>, NoiseError> {
        let outliers: Vec<usize> = (0..points.len()).filter(|&k| noise[k]).collect();
        let mut classes = vec![0u8; points.len()];
        if outliers.is_empty() {
            progress.advance(points.len() as f64)?;
            return Ok(classes);
        }
        let inliers: Vec<usize> = (0..points.len()).filter(|&k| !noise[k]).collect();
        if inliers.is_empty() {
            // Nothing to stand against: all noise is high noise.
            for &k in &outliers {
                classes[k] = HIGH_NOISE;
            }
            progress.advance(points.len() as f64)?;
            return Ok(classes);
        }
        // The inliers near the noise only: those in the 3 × 3 cells (of side `g`, about twice the
        // distance to the mean_k-th neighbour) around each noise point. A noise point whose
        // mean_k-th nearest inlier found there is within `g` has its exact answer (every inlier
        // within `g` of it is in the set); the others ask a tree of all inliers.
        let (mut x0, mut y0, mut x1, mut y1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
        for p in points {
            x0 = x0.min(p[0]);
            y0 = y0.min(p[1]);
            x1 = x1.max(p[0]);
            y1 = y1.max(p[1]);
        }
        let area = ((x1 - x0) * (y1 - y0)).max(1e-9);
        let g = (2.0 * (self.mean_k as f64 * area / inliers.len() as f64).sqrt()).max(1e-6);
        let cell = |p: &[f64; 3]| ((p[0] / g).floor() as i64, (p[1] / g).floor() as i64);
        let mut near = crate::density::CellSet::<(i64, i64)>::default();
        for &o in &outliers {
            let (cx, cy) = cell(&points[o]);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    near.insert((cx + dx, cy + dy));
                }
            }
        }
        let local: Vec<usize> = inliers.par_iter().copied().filter(|&k| near.contains(&cell(&points[k]))).collect();
        let plan: Vec<[f64; 2]> = local.iter().map(|&k| [points[k][0], points[k][1]]).collect();
        let tree = Tree2::new_from_slice(&plan).map_err(|e| NoiseError::Index(e.to_string()))?;
        let all = std::sync::OnceLock::new();
        let all_tree = || -> Result<&Tree2, NoiseError> {
            if all.get().is_none() {
                let plan: Vec<[f64; 2]> = inliers.iter().map(|&k| [points[k][0], points[k][1]]).collect();
                let t = Tree2::new_from_slice(&plan).map_err(|e| NoiseError::Index(e.to_string()))?;
                let _ = all.set(t);
            }
            all.get().ok_or_else(|| NoiseError::Index("the inlier tree".to_owned()))
        };
        let k = NonZeroUsize::new(self.mean_k).unwrap_or(NonZeroUsize::MIN);
        let wanted = self.mean_k.min(inliers.len());
        let answered = blocks(outliers.len(), points.len() as f64 / 2.0, progress, |o| {
            let p = &points[outliers[o]];
            let found = tree.query(&[p[0], p[1]]).nearest_n::<SquaredEuclidean<f64>>(k).execute();
            let exact = found.len() == wanted && found.last().is_none_or(|r| r.distance <= g * g);
            exact.then(|| {
                let mut heights: Vec<f64> = found.iter().map(|r| points[local[r.item as usize]][2]).collect();
                p[2] < median(&mut heights)
            })
        })?;
        let mut low = Vec::with_capacity(outliers.len());
        for (o, a) in answered.into_iter().enumerate() {
            low.push(match a {
                Some(l) => l,
                None => {
                    let p = &points[outliers[o]];
                    let found = all_tree()?.query(&[p[0], p[1]]).nearest_n::<SquaredEuclidean<f64>>(k).execute();
                    let mut heights: Vec<f64> = found.iter().map(|r| points[inliers[r.item as usize]][2]).collect();
                    p[2] < median(&mut heights)
                }
            });
        }
        progress.advance(points.len() as f64 / 2.0)?;
        for (&k, low) in outliers.iter().zip(low) {
            classes[k] = if low { LOW_NOISE } else { HIGH_NOISE };
        }
        Ok(classes)
    }
}

/// The median of a non-empty slice (the mean of the two middle values for an even length);
/// NaN for an empty one.
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_unstable_by(f64::total_cmp);
    let h = v.len() / 2;
    if v.len() % 2 == 1 {
        v[h]
    } else {
        (v[h - 1] + v[h]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn median_of_odd_and_even_lengths() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn bad_parameters_and_columns_are_errors() {
        let run = |n: Noise| n.classify(&[0.0], &[0.0], &[0.0], &|_| true);
        assert!(matches!(
            run(Noise { mean_k: 0, ..Noise::default() }),
            Err(NoiseError::Parameter { name: "mean_k", .. })
        ));
        assert!(matches!(
            run(Noise { radius: -1.0, ..Noise::default() }),
            Err(NoiseError::Parameter { name: "radius", .. })
        ));
        assert!(matches!(
            run(Noise { multiplier: f64::NAN, ..Noise::default() }),
            Err(NoiseError::Parameter { name: "multiplier", .. })
        ));
        assert_eq!(Noise::default().classify(&[0.0], &[], &[0.0], &|_| true), Err(NoiseError::Columns));
        let limited = Noise { max_points: 2, ..Noise::default() };
        assert_eq!(
            limited.classify(&[0.0; 3], &[0.0; 3], &[0.0; 3], &|_| true),
            Err(NoiseError::TooManyPoints { points: 3, limit: 2 })
        );
        assert_eq!(Noise::default().classify(&[], &[], &[], &|_| true).unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn duplicates_and_tiny_clouds_are_handled() {
        // Thousands of copies of one point, a ring of points around it and one far stray.
        let mut x = vec![5.0; 5_000];
        let mut y = vec![5.0; 5_000];
        let mut z = vec![1.0; 5_000];
        for k in 0..40 {
            let a = f64::from(k) * std::f64::consts::TAU / 40.0;
            x.push(5.0 + 0.5 * a.cos());
            y.push(5.0 + 0.5 * a.sin());
            z.push(1.0);
        }
        x.push(5.0);
        y.push(5.0);
        z.push(60.0);
        for method in [NoiseMethod::Statistical, NoiseMethod::Radius, NoiseMethod::Both] {
            let classes = Noise { method, ..Noise::default() }.classify(&x, &y, &z, &|_| true).unwrap();
            assert_eq!(classes.last(), Some(&HIGH_NOISE), "{method:?}");
            assert_eq!(classes.iter().filter(|&&c| c != 0).count(), 1, "{method:?}");
        }
        // One or two points: nothing to compare with, no panic.
        assert_eq!(Noise::default().classify(&[1.0], &[2.0], &[3.0], &|_| true).unwrap(), [0]);
        let two = Noise { method: NoiseMethod::Both, ..Noise::default() };
        assert_eq!(two.classify(&[1.0, 9.0], &[2.0, 9.0], &[3.0, 3.0], &|_| true).unwrap(), [18, 18]);
    }

    #[test]
    fn the_cube_search_finds_what_a_full_search_finds() {
        // A pseudo-random cloud on a coarse lattice, so that many pairs lie exactly at the
        // radius, with clumps and strays; every point against every other.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        let points: Vec<[f64; 3]> =
            (0..1_500).map(|_| [next(40) as f64 * 0.5, next(40) as f64 * 0.5, next(12) as f64 * 0.5 - 3.0]).collect();
        for (radius, min_k) in [(0.5, 1), (0.5, 2), (1.0, 3), (0.7, 2), (2.5, 20)] {
            let cubes = Cubes::new(&points, radius);
            for (i, p) in points.iter().enumerate() {
                let others = points
                    .iter()
                    .enumerate()
                    .filter(|&(j, q)| {
                        j != i
                            && (q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2) + (q[2] - p[2]).powi(2) <= radius * radius
                    })
                    .count();
                assert_eq!(cubes.crowded(&points, i, radius, min_k), others >= min_k, "point {i}, radius {radius}");
            }
        }
    }

    #[test]
    fn non_finite_points_take_no_part() {
        let x = [0.0, 1.0, f64::NAN, 0.0, 1.0];
        let y = [0.0, 0.0, 0.0, 1.0, 1.0];
        let z = [0.0, 0.0, 0.0, 0.0, f64::INFINITY];
        let classes = Noise { method: NoiseMethod::Both, ..Noise::default() }.classify(&x, &y, &z, &|_| true).unwrap();
        assert_eq!((classes[2], classes[4]), (0, 0));
    }
}
