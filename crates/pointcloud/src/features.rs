//! Per-point features for the learned classification ([`crate::learn`]).
//!
//! Every feature vector has the same [`FEATURE_NAMES`] columns in the same order, whatever the
//! file records: a column the file lacks (colour, near infrared) holds [`MISSING`] and a flag
//! column says whether it is present.
//!
//! - **Shape** at three scales, the 10, 25 and 50 nearest neighbours in 3-D (one neighbour index
//!   over all points, built once, [`crate::knn`]; one exact query of 50 per point, the smaller
//!   scales its prefixes): from the
//!   eigenvalues λ1 ≥ λ2 ≥ λ3 of the neighbourhood's covariance, linearity (λ1 − λ2)/λ1,
//!   planarity (λ2 − λ3)/λ1, scattering λ3/λ1, omnivariance ∛(e1 e2 e3), anisotropy
//!   (λ1 − λ3)/λ1, eigenentropy −Σ eᵢ ln eᵢ and change of curvature e3 (eᵢ = λᵢ / Σλ), the
//!   normal's |z| and verticality 1 − |n_z|, and the distance to the k-th neighbour (density).
//! - **Height above ground** ([`crate::hag`]).
//! - **Vertical columns**: over the 3 × 3 block of cells around the point, for 1 m and 3 m cells
//!   (square columns 3 m and 9 m wide, all points): z range, z standard deviation, height below
//!   the column's highest point and above its lowest.
//! - **Echoes**: return number, number of returns, and their ratio.
//! - **Intensity**, normalised per file: 0 at the 1st percentile, 1 at the 99th, clamped.
//! - **Colour**: red, green, blue and near infrared scaled to 0–1 (by 255 when the file's values
//!   stay under 256, else by 65,535), an NDVI-like (nir − red)/(nir + red), and the two flags.

use crate::knn::ColumnIndex;
use crate::reader::PointCloud;
use rayon::prelude::*;

/// The value of a feature the file cannot give (no colour, no near infrared).
pub const MISSING: f32 = -1.0;

/// Neighbour counts of the shape scales.
pub const SCALES: [usize; 3] = [10, 25, 50];

/// Shape features per scale, in order.
const SHAPE: [&str; 10] = [
    "linearity",
    "planarity",
    "scattering",
    "omnivariance",
    "anisotropy",
    "eigenentropy",
    "change_of_curvature",
    "normal_z",
    "verticality",
    "knn_radius",
];

/// Cell sizes of the vertical columns, metres.
const COLUMN_CELLS: [f64; 2] = [1.0, 3.0];

/// The feature columns, in order.
pub const FEATURE_NAMES: [&str; 50] = [
    "k10_linearity",
    "k10_planarity",
    "k10_scattering",
    "k10_omnivariance",
    "k10_anisotropy",
    "k10_eigenentropy",
    "k10_change_of_curvature",
    "k10_normal_z",
    "k10_verticality",
    "k10_knn_radius",
    "k25_linearity",
    "k25_planarity",
    "k25_scattering",
    "k25_omnivariance",
    "k25_anisotropy",
    "k25_eigenentropy",
    "k25_change_of_curvature",
    "k25_normal_z",
    "k25_verticality",
    "k25_knn_radius",
    "k50_linearity",
    "k50_planarity",
    "k50_scattering",
    "k50_omnivariance",
    "k50_anisotropy",
    "k50_eigenentropy",
    "k50_change_of_curvature",
    "k50_normal_z",
    "k50_verticality",
    "k50_knn_radius",
    "height_above_ground",
    "col1_z_range",
    "col1_z_std",
    "col1_below_max",
    "col1_above_min",
    "col3_z_range",
    "col3_z_std",
    "col3_below_max",
    "col3_above_min",
    "return_number",
    "number_of_returns",
    "return_ratio",
    "intensity",
    "red",
    "green",
    "blue",
    "nir",
    "ndvi",
    "has_rgb",
    "has_nir",
];

/// The column of feature `name` in [`FEATURE_NAMES`], at compile time (a name not there fails
/// the build where it is used in a constant).
pub const fn column(name: &str) -> usize {
    let mut i = 0;
    while i < FEATURE_NAMES.len() {
        let (a, b) = (FEATURE_NAMES[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("no such feature")
}

/// Number of feature columns.
pub const N_FEATURES: usize = FEATURE_NAMES.len();

/// Errors of the feature computation.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FeatureError {
    /// The columns (cloud, heights, selection) have different lengths.
    #[error("the point columns have different lengths")]
    Columns,
    /// The cloud has no point with finite coordinates.
    #[error("no point with finite coordinates")]
    NoPoints,
    /// The cloud has more points than the neighbour index holds (2³² − 1).
    #[error("{0} points is more than the neighbour index holds")]
    TooManyPoints(usize),
    /// The column grid would be too large.
    #[error("the column grid would have {cells} cells, over the limit of {limit}")]
    GridTooLarge {
        /// Cells the grid would need.
        cells: u64,
        /// The limit.
        limit: u64,
    },
}

/// Feature vectors, one row of [`N_FEATURES`] per point asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Features {
    /// Index in the cloud of each row's point.
    pub points: Vec<usize>,
    /// Row-major values, `points.len() × N_FEATURES`.
    pub values: Vec<f32>,
}

impl Features {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The feature vector of row `r` (panics when `r >= len()`, as slice indexing does).
    pub fn row(&self, r: usize) -> &[f32] {
        &self.values[r * N_FEATURES..(r + 1) * N_FEATURES]
    }
}

/// Features of the points `selected` marks (every point when `None`), their neighbourhoods taken
/// among all points of `cloud`; `hag` is each point's height above ground. Points with a
/// non-finite coordinate are never selected. Rows follow the cloud's order.
pub fn compute_features(cloud: &PointCloud, hag: &[f32], selected: Option<&[bool]>) -> Result<Features, FeatureError> {
    if selected.is_some_and(|s| s.len() != cloud.len()) {
        return Err(FeatureError::Columns);
    }
    let context = FeatureContext::new(cloud, hag)?;
    let points: Vec<usize> = (0..cloud.len()).filter(|&i| context.usable(i) && selected.is_none_or(|s| s[i])).collect();
    let values = context.compute(&points);
    Ok(Features { points, values })
}

/// What the features of a cloud need, built once: the neighbour index, the column grids, the
/// intensity and colour scales. [`FeatureContext::compute`] then takes any subset of points,
/// so that a caller can work in chunks.
pub struct FeatureContext<'a> {
    cloud: &'a PointCloud,
    hag: &'a [f32],
    origin: [f64; 3],
    index: ColumnIndex,
    k_max: usize,
    columns: Vec<ColumnGrid>,
    intensity: (f32, f32),
    colour: Colour<'a>,
}

impl std::fmt::Debug for FeatureContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FeatureContext").field("points", &self.index.len()).finish_non_exhaustive()
    }
}

impl<'a> FeatureContext<'a> {
    /// The neighbour index, grids and scales of `cloud`, with `hag` its heights above ground.
    pub fn new(cloud: &'a PointCloud, hag: &'a [f32]) -> Result<Self, FeatureError> {
        let n = cloud.len();
        let columns_ok = [cloud.y.len(), cloud.z.len(), cloud.classification.len(), cloud.return_number.len()]
            .into_iter()
            .chain([cloud.number_of_returns.len(), cloud.intensity.len(), hag.len()])
            .chain(cloud.rgb.as_ref().map(Vec::len))
            .chain(cloud.nir.as_ref().map(Vec::len))
            .all(|l| l == n);
        if !columns_ok {
            return Err(FeatureError::Columns);
        }
        let finite = |i: usize| cloud.x[i].is_finite() && cloud.y[i].is_finite() && cloud.z[i].is_finite();
        let finite_idx: Vec<usize> = (0..n).into_par_iter().filter(|&i| finite(i)).collect();
        let first = *finite_idx.first().ok_or(FeatureError::NoPoints)?;
        if finite_idx.len() >= u32::MAX as usize {
            return Err(FeatureError::TooManyPoints(finite_idx.len()));
        }
        // Coordinates relative to a point of the cloud, in f32 for the index: millimetres are
        // kept over kilometres.
        let origin = [cloud.x[first], cloud.y[first], cloud.z[first]];
        let coords: Vec<[f32; 3]> = finite_idx
            .par_iter()
            .map(|&i| {
                [(cloud.x[i] - origin[0]) as f32, (cloud.y[i] - origin[1]) as f32, (cloud.z[i] - origin[2]) as f32]
            })
            .collect();
        let k_max = SCALES[SCALES.len() - 1].min(coords.len());
        // The index and the column grids are built side by side on rayon's threads.
        let (index, columns) = rayon::join(
            || ColumnIndex::new(&coords, k_max),
            || COLUMN_CELLS.par_iter().map(|&cell| ColumnGrid::new(cloud, &finite_idx, cell)).collect::<Vec<_>>(),
        );
        let columns = columns.into_iter().collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            cloud,
            hag,
            origin,
            index,
            k_max,
            columns,
            intensity: percentiles(&cloud.intensity),
            colour: Colour::of(cloud),
        })
    }

    /// The cloud the features are of.
    pub fn cloud(&self) -> &'a PointCloud {
        self.cloud
    }

    /// The cloud's x and y columns.
    pub fn xy(&self) -> (&'a [f64], &'a [f64]) {
        (&self.cloud.x, &self.cloud.y)
    }

    /// Whether point `i` has features: finite coordinates.
    pub fn usable(&self, i: usize) -> bool {
        let c = self.cloud;
        i < c.len() && c.x[i].is_finite() && c.y[i].is_finite() && c.z[i].is_finite()
    }

    /// Row-major features of `points` (indices of usable points), `points.len() × N_FEATURES`.
    /// An index out of range or of an unusable point gets a row of [`MISSING`].
    pub fn compute(&self, points: &[usize]) -> Vec<f32> {
        let mut values = vec![MISSING; points.len() * N_FEATURES];
        values.par_chunks_mut(N_FEATURES).zip(points.par_iter()).for_each_init(
            || (Vec::new(), Vec::new()),
            |(scratch, nearest), (row, &i)| {
                if self.usable(i) {
                    self.row(i, row, scratch, nearest);
                }
            },
        );
        values
    }

    fn row(&self, i: usize, row: &mut [f32], scratch: &mut Vec<u64>, nearest: &mut Vec<(f32, u32)>) {
        let cloud = self.cloud;
        let o = self.origin;
        let p = [(cloud.x[i] - o[0]) as f32, (cloud.y[i] - o[1]) as f32, (cloud.z[i] - o[2]) as f32];
        let k_max = self.k_max;
        // Positions in the index, not indices: the neighbours' coordinates are read from a few
        // runs of the index's memory rather than from all over the cloud's.
        self.index.nearest_positions(p, k_max, scratch, nearest);
        let mut acc = Moments::default();
        let mut scale = 0;
        for (j, &(d2, at)) in nearest.iter().enumerate() {
            let q = self.index.at(at).0;
            acc.add([f64::from(q[0] - p[0]), f64::from(q[1] - p[1]), f64::from(q[2] - p[2])]);
            while scale < SCALES.len() && j + 1 == SCALES[scale].min(k_max) {
                shape(&acc, f64::from(d2).sqrt(), &mut row[scale * SHAPE.len()..(scale + 1) * SHAPE.len()]);
                scale += 1;
            }
        }
        let mut f = 3 * SHAPE.len();
        row[f] = self.hag[i];
        f += 1;
        for grid in &self.columns {
            grid.features(cloud.x[i], cloud.y[i], cloud.z[i], &mut row[f..f + 4]);
            f += 4;
        }
        let (rn, nr) = (f32::from(cloud.return_number[i]), f32::from(cloud.number_of_returns[i]));
        row[f] = rn;
        row[f + 1] = nr;
        row[f + 2] = if nr > 0.0 { rn / nr } else { 1.0 };
        let (lo, hi) = self.intensity;
        row[f + 3] = if hi > lo { ((f32::from(cloud.intensity[i]) - lo) / (hi - lo)).clamp(0.0, 1.0) } else { 0.0 };
        self.colour.features(i, &mut row[f + 4..f + 11]);
    }
}

/// Sums of the neighbour offsets and their products, for the covariance.
#[derive(Default)]
pub(crate) struct Moments {
    n: f64,
    s: [f64; 3],
    ss: [f64; 6],
}

impl Moments {
    pub(crate) fn add(&mut self, d: [f64; 3]) {
        self.n += 1.0;
        for (s, d) in self.s.iter_mut().zip(d) {
            *s += d;
        }
        self.ss[0] += d[0] * d[0];
        self.ss[1] += d[0] * d[1];
        self.ss[2] += d[0] * d[2];
        self.ss[3] += d[1] * d[1];
        self.ss[4] += d[1] * d[2];
        self.ss[5] += d[2] * d[2];
    }

    /// The mean of the offsets added.
    pub(crate) fn mean(&self) -> [f64; 3] {
        let n = self.n.max(1.0);
        [self.s[0] / n, self.s[1] / n, self.s[2] / n]
    }

    /// Covariance xx, xy, xz, yy, yz, zz.
    pub(crate) fn covariance(&self) -> [f64; 6] {
        let n = self.n.max(1.0);
        let m = self.mean();
        [
            self.ss[0] / n - m[0] * m[0],
            self.ss[1] / n - m[0] * m[1],
            self.ss[2] / n - m[0] * m[2],
            self.ss[3] / n - m[1] * m[1],
            self.ss[4] / n - m[1] * m[2],
            self.ss[5] / n - m[2] * m[2],
        ]
    }
}

/// The [`SHAPE`] features of a neighbourhood.
fn shape(m: &Moments, radius: f64, out: &mut [f32]) {
    let (l, normal) = eigen(m.covariance());
    let sum = l[0] + l[1] + l[2];
    if !(l[0] > 1e-12 && sum > 1e-12) {
        // A single point or coincident points: no shape.
        out[..9].copy_from_slice(&[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0 / 3.0, 1.0, 0.0]);
        out[9] = radius as f32;
        return;
    }
    let e = [l[0] / sum, l[1] / sum, l[2] / sum];
    let entropy: f64 = e.iter().filter(|&&v| v > 1e-12).map(|&v| -v * v.ln()).sum();
    let nz = normal[2].abs();
    let v = [
        (l[0] - l[1]) / l[0],
        (l[1] - l[2]) / l[0],
        l[2] / l[0],
        (e[0] * e[1] * e[2]).cbrt(),
        (l[0] - l[2]) / l[0],
        entropy,
        e[2],
        nz,
        1.0 - nz,
        radius,
    ];
    for (o, v) in out.iter_mut().zip(v) {
        *o = v as f32;
    }
}

/// Eigenvalues of a symmetric 3 × 3 matrix (xx, xy, xz, yy, yz, zz), largest first, clamped at
/// zero, and the unit eigenvector of the smallest (the normal); the closed form of Smith (1961).
pub(crate) fn eigen(a: [f64; 6]) -> ([f64; 3], [f64; 3]) {
    let [xx, xy, xz, yy, yz, zz] = a;
    let p1 = xy * xy + xz * xz + yz * yz;
    let q = (xx + yy + zz) / 3.0;
    let p2 = (xx - q).powi(2) + (yy - q).powi(2) + (zz - q).powi(2) + 2.0 * p1;
    let p = (p2 / 6.0).sqrt();
    let mut l = if p < 1e-15 {
        [q, q, q]
    } else {
        let b = [(xx - q) / p, xy / p, xz / p, (yy - q) / p, yz / p, (zz - q) / p];
        let det = b[0] * (b[3] * b[5] - b[4] * b[4]) - b[1] * (b[1] * b[5] - b[4] * b[2])
            + b[2] * (b[1] * b[4] - b[3] * b[2]);
        let phi = (det / 2.0).clamp(-1.0, 1.0).acos() / 3.0;
        let l1 = q + 2.0 * p * phi.cos();
        let l3 = q + 2.0 * p * (phi + 2.0 * std::f64::consts::PI / 3.0).cos();
        [l1, 3.0 * q - l1 - l3, l3]
    };
    for v in &mut l {
        *v = v.max(0.0);
    }
    // The null space of A − λ3 I: the largest cross product of two of its rows.
    let r = [[xx - l[2], xy, xz], [xy, yy - l[2], yz], [xz, yz, zz - l[2]]];
    let cross =
        |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let norm2 = |v: [f64; 3]| v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    let mut best = [0.0, 0.0, 1.0];
    let mut best_n = 0.0;
    for c in [cross(r[0], r[1]), cross(r[0], r[2]), cross(r[1], r[2])] {
        let n2 = norm2(c);
        if n2 > best_n {
            best = c;
            best_n = n2;
        }
    }
    if best_n > 0.0 {
        let s = best_n.sqrt();
        best = [best[0] / s, best[1] / s, best[2] / s];
    }
    (l, best)
}

/// Per-cell z statistics of all points, read over the 3 × 3 block of cells around a point.
/// The cells are a dense raster where the points cover their box, and a map of the occupied
/// cells where they do not (a few points over kilometres), so the grid grows with the points.
struct ColumnGrid {
    x0: f64,
    y0: f64,
    cell: f64,
    cells: Cells,
    z0: f64,
}

/// Per cell: min, max, sum, sum of squares (relative to `z0`), count.
type Stats = [f64; 5];

const EMPTY: Stats = [f64::INFINITY, f64::NEG_INFINITY, 0.0, 0.0, 0.0];

/// The slot of a cell with no point.
const NO_POINTS: u32 = u32::MAX;

enum Cells {
    /// `slot[r * cols + c]` indexes the cell's statistics in `stats`, [`NO_POINTS`] for an
    /// empty cell: a cloud fills few of its cells, so the statistics are kept for those alone.
    Dense {
        cols: usize,
        rows: usize,
        slot: Vec<u32>,
        stats: Vec<Stats>,
    },
    Sparse(std::collections::HashMap<(i64, i64), Stats>),
}

impl ColumnGrid {
    fn new(cloud: &PointCloud, idx: &[usize], cell: f64) -> Result<Self, FeatureError> {
        let (x, y, z) = (&cloud.x, &cloud.y, &cloud.z);
        let mut b = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
        for &i in idx {
            b = [b[0].min(x[i]), b[1].min(y[i]), b[2].max(x[i]), b[3].max(y[i])];
        }
        let cols = ((b[2] - b[0]) / cell).floor() + 1.0;
        let rows = ((b[3] - b[1]) / cell).floor() + 1.0;
        if (cols * rows).is_nan() {
            return Err(FeatureError::GridTooLarge { cells: u64::MAX, limit: crate::hag::MAX_CELLS });
        }
        let dense_limit = (idx.len() as f64 * crate::density::CELLS_PER_POINT)
            .max(crate::density::SMALL_GRID)
            .min(crate::hag::MAX_CELLS as f64);
        let z0 = z[idx[0]];
        let add = |s: &mut Stats, v: f64| *s = [s[0].min(v), s[1].max(v), s[2] + v, s[3] + v * v, s[4] + 1.0];
        let cells = if cols * rows <= dense_limit {
            let (cols, rows) = (cols as usize, rows as usize);
            let mut slot = vec![NO_POINTS; cols * rows];
            let mut stats = Vec::new();
            for &i in idx {
                let c = (((x[i] - b[0]) / cell) as usize).min(cols - 1);
                let r = (((y[i] - b[1]) / cell) as usize).min(rows - 1);
                let s = &mut slot[r * cols + c];
                if *s == NO_POINTS {
                    *s = stats.len() as u32;
                    stats.push(EMPTY);
                }
                add(&mut stats[*s as usize], z[i] - z0);
            }
            Cells::Dense { cols, rows, slot, stats }
        } else {
            let mut map = std::collections::HashMap::with_capacity(idx.len().min(1 << 20));
            for &i in idx {
                let key = (((x[i] - b[0]) / cell) as i64, ((y[i] - b[1]) / cell) as i64);
                add(map.entry(key).or_insert(EMPTY), z[i] - z0);
            }
            Cells::Sparse(map)
        };
        Ok(Self { x0: b[0], y0: b[1], cell, cells, z0 })
    }

    /// z range, z standard deviation, height below the highest and above the lowest point.
    fn features(&self, x: f64, y: f64, z: f64, out: &mut [f32]) {
        let mut t = EMPTY;
        let mut merge = |s: &Stats| t = [t[0].min(s[0]), t[1].max(s[1]), t[2] + s[2], t[3] + s[3], t[4] + s[4]];
        match &self.cells {
            Cells::Dense { cols, rows, slot, stats } => {
                let c = (((x - self.x0) / self.cell) as usize).min(cols - 1);
                let r = (((y - self.y0) / self.cell) as usize).min(rows - 1);
                for rr in r.saturating_sub(1)..=(r + 1).min(rows - 1) {
                    for cc in c.saturating_sub(1)..=(c + 1).min(cols - 1) {
                        // An empty cell would change nothing: its minimum and maximum are
                        // infinite, its sums zero.
                        if let Some(s) = stats.get(slot[rr * cols + cc] as usize) {
                            merge(s);
                        }
                    }
                }
            }
            Cells::Sparse(map) => {
                let (c, r) = (((x - self.x0) / self.cell) as i64, ((y - self.y0) / self.cell) as i64);
                for rr in r - 1..=r + 1 {
                    for cc in c - 1..=c + 1 {
                        if let Some(s) = map.get(&(cc, rr)) {
                            merge(s);
                        }
                    }
                }
            }
        }
        let v = z - self.z0;
        let n = t[4].max(1.0);
        let var = (t[3] / n - (t[2] / n).powi(2)).max(0.0);
        out[0] = (t[1] - t[0]).max(0.0) as f32;
        out[1] = var.sqrt() as f32;
        out[2] = (t[1] - v).max(0.0) as f32;
        out[3] = (v - t[0]).max(0.0) as f32;
    }
}

/// The 1st and 99th percentiles of the intensities.
fn percentiles(intensity: &[u16]) -> (f32, f32) {
    if intensity.is_empty() {
        return (0.0, 0.0);
    }
    let mut hist = vec![0u64; 65_536];
    for &v in intensity {
        hist[usize::from(v)] += 1;
    }
    let n = intensity.len() as u64;
    let at = |q: u64| {
        let target = (n * q / 100).min(n - 1);
        let mut seen = 0;
        for (v, &c) in hist.iter().enumerate() {
            seen += c;
            if seen > target {
                return v as f32;
            }
        }
        65_535.0
    };
    (at(1), at(99))
}

/// The colour columns of a cloud, with their scales.
struct Colour<'a> {
    rgb: Option<(&'a [[u16; 3]], f32)>,
    nir: Option<(&'a [u16], f32)>,
}

impl<'a> Colour<'a> {
    fn of(cloud: &'a PointCloud) -> Self {
        let scale = |max: u16| if max < 256 { 255.0 } else { 65_535.0 };
        // A format with colour fields that are all zero records no colour.
        let rgb = cloud.rgb.as_deref().and_then(|c| {
            let max = c.iter().flatten().copied().max().unwrap_or(0);
            (max > 0).then(|| (c, scale(max)))
        });
        let nir = cloud.nir.as_deref().and_then(|c| {
            let max = c.iter().copied().max().unwrap_or(0);
            (max > 0).then(|| (c, scale(max)))
        });
        Self { rgb, nir }
    }

    /// red, green, blue, nir, ndvi, has_rgb, has_nir.
    fn features(&self, i: usize, out: &mut [f32]) {
        out.copy_from_slice(&[MISSING, MISSING, MISSING, MISSING, MISSING, 0.0, 0.0]);
        let mut red = None;
        if let Some((c, s)) = self.rgb {
            let [r, g, b] = c[i];
            out[0] = f32::from(r) / s;
            out[1] = f32::from(g) / s;
            out[2] = f32::from(b) / s;
            out[5] = 1.0;
            red = Some(out[0]);
        }
        if let Some((c, s)) = self.nir {
            let nir = f32::from(c[i]) / s;
            out[3] = nir;
            out[6] = 1.0;
            if let Some(red) = red {
                out[4] = if nir + red > 0.0 { (nir - red) / (nir + red) } else { 0.0 };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn index(name: &str) -> usize {
        FEATURE_NAMES.iter().position(|&n| n == name).unwrap()
    }

    #[test]
    fn names_follow_the_layout() {
        for (s, k) in SCALES.iter().enumerate() {
            for (j, name) in SHAPE.iter().enumerate() {
                assert_eq!(FEATURE_NAMES[s * SHAPE.len() + j], format!("k{k}_{name}"));
            }
        }
        assert_eq!(index("height_above_ground"), 3 * SHAPE.len());
        assert_eq!(index("return_number"), 3 * SHAPE.len() + 1 + 4 * COLUMN_CELLS.len());
        assert_eq!(index("red"), index("intensity") + 1);
        assert_eq!(N_FEATURES, index("has_nir") + 1);
    }

    #[test]
    fn eigen_of_a_diagonal_matrix() {
        let (l, n) = eigen([4.0, 0.0, 0.0, 2.0, 0.0, 1.0]);
        assert!((l[0] - 4.0).abs() < 1e-9 && (l[1] - 2.0).abs() < 1e-9 && (l[2] - 1.0).abs() < 1e-9);
        assert!((n[2].abs() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn colour_columns_and_their_flags() {
        let n = 60;
        let cloud = PointCloud {
            x: (0..n).map(|i| f64::from(i % 8)).collect(),
            y: (0..n).map(|i| f64::from(i / 8)).collect(),
            z: vec![1.0; n as usize],
            classification: vec![1; n as usize],
            return_number: vec![1; n as usize],
            number_of_returns: vec![1; n as usize],
            intensity: (0..n).map(|i| i as u16).collect(),
            rgb: Some(vec![[100, 200, 50]; n as usize]),
            nir: Some(vec![220; n as usize]),
        };
        let f = compute_features(&cloud, &vec![1.0; n as usize], None).unwrap();
        let row = f.row(0);
        assert_eq!(row[index("has_rgb")], 1.0);
        assert_eq!(row[index("has_nir")], 1.0);
        assert!((row[index("green")] - 200.0 / 255.0).abs() < 1e-6);
        assert!((row[index("ndvi")] - 120.0 / 320.0).abs() < 1e-6);
        assert_eq!(row[index("intensity")], 0.0);
        assert_eq!(f.row(59)[index("intensity")], 1.0);
        // Colour fields that are all zero are no colour.
        let grey = PointCloud { rgb: Some(vec![[0; 3]; n as usize]), nir: None, ..cloud };
        let row = compute_features(&grey, &vec![1.0; n as usize], None).unwrap().row(0).to_vec();
        assert_eq!((row[index("has_rgb")], row[index("red")], row[index("ndvi")]), (0.0, MISSING, MISSING));
    }

    #[test]
    fn a_plane_a_line_and_a_wall() {
        // A horizontal 20 × 20 plane, a vertical wall along x at y = 30, and a line of points
        // (a wire) along x at 10 m.
        let mut cloud = PointCloud::default();
        let mut push = |x: f64, y: f64, z: f64| {
            cloud.x.push(x);
            cloud.y.push(y);
            cloud.z.push(z);
        };
        for i in 0..20 {
            for j in 0..20 {
                push(i as f64 * 0.5, j as f64 * 0.5, 0.0);
                push(i as f64 * 0.5, 30.0, j as f64 * 0.5);
            }
        }
        for i in 0..60 {
            push(i as f64 * 0.2, 50.0, 10.0);
        }
        let n = cloud.x.len();
        cloud.classification = vec![1; n];
        cloud.return_number = vec![1; n];
        cloud.number_of_returns = vec![1; n];
        cloud.intensity = vec![100; n];
        let hag: Vec<f32> = cloud.z.iter().map(|&z| z as f32).collect();
        let f = compute_features(&cloud, &hag, None).unwrap();
        assert_eq!(f.len(), n);
        let (plane, wall, wire) = (f.row(2 * (10 * 20 + 10)), f.row(2 * (10 * 20 + 10) + 1), f.row(n - 30));
        assert!(plane[index("k25_planarity")] > 0.9, "{plane:?}");
        assert!(plane[index("k25_normal_z")] > 0.99);
        assert!(wall[index("k25_verticality")] > 0.99);
        assert!(wire[index("k10_linearity")] > 0.99);
        assert_eq!(plane[index("has_rgb")], 0.0);
        assert_eq!(plane[index("red")], MISSING);
        assert_eq!(wire[index("height_above_ground")], 10.0);
    }
}
