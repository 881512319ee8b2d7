//! Classes by geometry alone, with no training: raised ground taken back from the ground filter,
//! buildings as roof-sized planar segments above the ground, vegetation as the rest of what
//! stands above it, in height bands. The rules LAStools' `lasground`/`lasclassify` and most
//! producers' first pass apply; they need nothing but coordinates and the ground, so they hold
//! on single-return data, on files without intensity or colour, and on height-normalised files.
//!
//! Every threshold is in metres (the pipeline scales a file in feet before any step) and is
//! written down in docs/pointcloud.md:
//!
//! - **Raised ground** ([`Rules::raised_ground`]): the ground points' lowest-point raster, its
//!   gaps filled from the nearest cell, split into plateaus wherever two neighbouring cells differ
//!   by more than `jump` plus a 0.3 rise over the cell (1.8 m at the 1 m cells of a dense
//!   survey). A plateau that drops by more than that along at least 90 % of its
//!   edge (the tile's edge counting as no drop), and is not the largest plateau, is a roof (or a deck or a bridge) that the ground
//!   filter took for ground because it is wider than its largest window: its points are taken
//!   out of the ground.
//! - **Buildings** ([`Rules::buildings`]): the points at least `building_height` above the
//!   ground are planar where they lie on a roof plane ([`Rules::planar_points`]: among the
//!   elevated points, each one's nearest neighbours, as many as a disc of `roof_radius` holds at
//!   the survey's density and 8 to 50, whose scattering λ₃/λ₁ is under `planar_scattering` make
//!   a plane; a point within `roof_tolerance` of its own plane or of a neighbour's is planar,
//!   so the points along a ridge, whose own neighbourhoods span both sides, count too). They are
//!   binned in cells of twice the point spacing (1 m at least);
//!   the cells where at least half the elevated points are planar are joined into segments
//!   (8-neighbours whose planar points are at heights a 45° roof allows), and a segment is a
//!   building when it covers at least `building_area` square metres with at least
//!   `building_points` planar points, `building_cover` of them a cell on average,
//!   planar points make at least `planar_share` of its elevated points and (when the file
//!   records several returns) at most `multi_share` of them are first-of-many returns. Every
//!   point of its cells at least `building_height` above the ground is class 6.
//! - **Water** ([`Rules::water`]): laser light is absorbed or mirrored away by water, so a water
//!   surface is where the survey has few returns, and the few it has are flat and single. Cells of
//!   three spacings (1 m at least) holding under `water_density` of the points the survey's
//!   density puts in a cell are joined into regions (4-neighbours); a region of at least
//!   `water_area` whose single-return ground points number at least `water_points`, spread by at
//!   most `water_flatness` (90th less 10th percentile) and lie at least `water_below` under the
//!   median ground of the dense cells around it is water: those of its single-return ground
//!   points within `water_flatness` of its median height are class 9. A survey edge or an
//!   occlusion shadow is sparse too, but its points are level with the ground beside it.
//! - **Vegetation**: every other point above the ground that is neither ground nor noise, class
//!   3 under `vegetation_heights[0]`, 4 under `vegetation_heights[1]`, 5 above (IGN's Lidar HD
//!   bands: 0.5 m and 1.5 m).

use crate::density::CellMap;
use crate::features::{column, FeatureContext, N_FEATURES};
use std::collections::VecDeque;

/// The thresholds of the rules, metres and shares.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Rules {
    /// Lowest height above ground of a building point (2.0).
    pub building_height: f64,
    /// Smallest footprint of a building segment, square metres (12.0).
    pub building_area: f64,
    /// Fewest planar points of a building segment (10): a roof the survey does not resolve is
    /// no roof.
    pub building_points: u32,
    /// Fewest planar points a building segment's cells hold on average (1.5; a cell of twice the
    /// spacing holds about four on a roof): scattered points over kilometres that happen to lie
    /// on a plane are no roof.
    pub building_cover: f64,
    /// Largest scattering (λ₃/λ₁) of a roof plane: the neighbourhood of an elevated point among
    /// the elevated points (0.03).
    pub planar_scattering: f64,
    /// Radius of the disc a roof plane's neighbourhood covers at the survey's density, metres
    /// (1.5; between 8 and 50 neighbours whatever the density).
    pub roof_radius: f64,
    /// Largest distance of a planar point from its own roof plane or a neighbour's, metres (0.15,
    /// the vertical accuracy of a QL2 survey).
    pub roof_tolerance: f64,
    /// Smallest share of a segment's elevated points that are planar (0.55).
    pub planar_share: f64,
    /// Largest share of a segment's points that are first (or intermediate) of several returns,
    /// where the file records several (0.3).
    pub multi_share: f64,
    /// Heights above ground separating classes 3 from 4 and 4 from 5 (0.5, 1.5).
    pub vegetation_heights: [f32; 2],
    /// Step between neighbouring ground cells that separates two plateaus (1.5; chosen on tuning
    /// data: docs/pointcloud.md, "Roofs beside raised ground").
    pub jump: f64,
    /// Largest plateau taken for a roof, square metres (50,000).
    pub roof_area: f64,
    /// Water: a cell (three spacings, 1 m at least) is sparse when it holds fewer than this
    /// share of the points the survey's density puts in a cell (0.25).
    pub water_density: f64,
    /// Water: smallest sparse region, square metres (25).
    pub water_area: f64,
    /// Water: fewest single-return ground points in the region (5).
    pub water_points: usize,
    /// Water: largest spread (90th less 10th percentile) of their heights, metres (0.3).
    pub water_flatness: f64,
    /// Water: least depth of the surface under the ground of the cells around it, metres (0.1).
    pub water_below: f64,
}

impl Default for Rules {
    fn default() -> Self {
        Self {
            building_height: 2.0,
            building_area: 12.0,
            building_points: 10,
            building_cover: 1.5,
            planar_scattering: 0.03,
            roof_radius: 1.5,
            roof_tolerance: 0.15,
            planar_share: 0.55,
            multi_share: 0.3,
            vegetation_heights: [0.5, 1.5],
            jump: 1.5,
            roof_area: 50_000.0,
            water_density: 0.25,
            water_area: 25.0,
            water_points: 5,
            water_flatness: 0.3,
            water_below: 0.1,
        }
    }
}

const HAG: usize = column("height_above_ground");
const RETURN_NUMBER: usize = column("return_number");
const NUMBER_OF_RETURNS: usize = column("number_of_returns");

/// What the rules read of a point, taken from its feature row.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PointShape {
    /// Height above ground.
    pub hag: f32,
    /// First or intermediate of several returns.
    pub early_return: bool,
}

impl PointShape {
    /// The shape of a point from its feature row ([`crate::features::FEATURE_NAMES`]).
    pub fn of_row(row: &[f32]) -> Self {
        debug_assert_eq!(row.len(), N_FEATURES);
        let (rn, nr) = (row[RETURN_NUMBER], row[NUMBER_OF_RETURNS]);
        Self { hag: row[HAG], early_return: nr > 1.0 && rn < nr }
    }
}

impl Rules {
    /// The vegetation class of a height above ground.
    pub fn vegetation_band(&self, hag: f32) -> u8 {
        let [low, high] = self.vegetation_heights;
        if hag < low {
            3
        } else if hag < high {
            4
        } else {
            5
        }
    }

    /// Which of the ground points (`ground`) lie on raised plateaus: roofs wider than the ground
    /// filter's window. `spacing` is the points' nominal spacing ([`crate::density::spacing`]).
    pub fn raised_ground(&self, x: &[f64], y: &[f64], z: &[f64], ground: &[bool], spacing: f64) -> Vec<bool> {
        let n = x.len();
        let mut raised = vec![false; n];
        let take = |i: usize| ground[i] && x[i].is_finite() && y[i].is_finite() && z[i].is_finite();
        let Some((b, count)) = crate::density::bounds(x, y, take) else {
            return raised;
        };
        let cell =
            crate::density::grid_cell((1.5 * spacing).max(1.0), b[2] - b[0], b[3] - b[1], count, crate::hag::MAX_CELLS);
        let cols = ((b[2] - b[0]) / cell).floor() as usize + 1;
        let rows = ((b[3] - b[1]) / cell).floor() as usize + 1;
        let cell_of = |i: usize| {
            let c = (((x[i] - b[0]) / cell) as usize).min(cols - 1);
            let r = (((y[i] - b[1]) / cell) as usize).min(rows - 1);
            r * cols + c
        };
        let mut surface = vec![f64::INFINITY; cols * rows];
        for i in (0..n).filter(|&i| take(i)) {
            let k = cell_of(i);
            surface[k] = surface[k].min(z[i]);
        }
        crate::hag::fill_nearest(&mut surface, cols, rows);
        // Plateaus: 4-connected cells whose steps stay within `jump` and the rise of a 0.3 slope
        // over a cell (so that coarse cells over a sparse cloud do not cut hills into steps).
        let jump = self.jump + 0.3 * cell;
        const NONE: u32 = u32::MAX;
        let mut label = vec![NONE; cols * rows];
        let mut sizes: Vec<usize> = Vec::new();
        let neighbours = |k: usize| {
            let (c, r) = (k % cols, k / cols);
            [
                (c > 0).then(|| k - 1),
                (c + 1 < cols).then(|| k + 1),
                (r > 0).then(|| k - cols),
                (r + 1 < rows).then(|| k + cols),
            ]
            .into_iter()
            .flatten()
        };
        let mut queue = VecDeque::new();
        for start in 0..label.len() {
            if label[start] != NONE {
                continue;
            }
            let id = sizes.len() as u32;
            label[start] = id;
            queue.push_back(start);
            let mut size = 0;
            while let Some(k) = queue.pop_front() {
                size += 1;
                for m in neighbours(k) {
                    if label[m] == NONE && (surface[m] - surface[k]).abs() <= jump {
                        label[m] = id;
                        queue.push_back(m);
                    }
                }
            }
            sizes.push(size);
        }
        if sizes.len() < 2 {
            return raised;
        }
        let largest = (0..sizes.len()).max_by_key(|&s| sizes[s]).unwrap_or(0);
        // Edges of each plateau: how many step down, how many up.
        let mut down = vec![0u64; sizes.len()];
        let mut edges = vec![0u64; sizes.len()];
        for k in 0..label.len() {
            // The tile's edge counts as an edge that does not step down: a plateau cut by it
            // may go on at its height beyond.
            let (c, r) = (k % cols, k / cols);
            let border =
                usize::from(c == 0) + usize::from(c + 1 == cols) + usize::from(r == 0) + usize::from(r + 1 == rows);
            edges[label[k] as usize] += border as u64;
            for m in neighbours(k) {
                if label[m] != label[k] {
                    edges[label[k] as usize] += 1;
                    if surface[k] - surface[m] > jump {
                        down[label[k] as usize] += 1;
                    }
                }
            }
        }
        let max_cells = self.roof_area / (cell * cell);
        let is_roof: Vec<bool> = (0..sizes.len())
            .map(|p| p != largest && (sizes[p] as f64) <= max_cells && edges[p] > 0 && down[p] * 10 >= edges[p] * 9)
            .collect();
        for i in (0..n).filter(|&i| take(i)) {
            raised[i] = is_roof[label[cell_of(i)] as usize];
        }
        raised
    }

    /// The points on water (class 9): see the module's description. `ground` is the ground
    /// filter's answer; `returns` the number of returns of each point (0 where the file does
    /// not record it: taken as single).
    pub fn water(&self, x: &[f64], y: &[f64], z: &[f64], ground: &[bool], returns: &[u8], spacing: f64) -> Vec<bool> {
        let n = x.len().min(y.len()).min(z.len()).min(ground.len());
        let mut water = vec![false; n];
        let Some((b, count)) = crate::density::bounds(x, y, |_| true) else {
            return water;
        };
        let want = (3.0 * spacing).max(1.0);
        let cell = crate::density::grid_cell(want, b[2] - b[0], b[3] - b[1], count, 20_000_000);
        if cell > 1.5 * want {
            // The points are too few over their extent for a density contrast to mean anything.
            return water;
        }
        let nx = ((b[2] - b[0]) / cell).floor() as usize + 1;
        let ny = ((b[3] - b[1]) / cell).floor() as usize + 1;
        let cell_of = |i: usize| -> Option<usize> {
            let (cx, cy) = ((x[i] - b[0]) / cell, (y[i] - b[1]) / cell);
            (cx.is_finite() && cy.is_finite()).then(|| (cy as usize).min(ny - 1) * nx + (cx as usize).min(nx - 1))
        };
        let mut counts = vec![0u32; nx * ny];
        for i in 0..n {
            if let Some(c) = cell_of(i) {
                counts[c] += 1;
            }
        }
        let expected = (cell / spacing.max(1e-3)).powi(2);
        let sparse: Vec<bool> = counts.iter().map(|&c| f64::from(c) < self.water_density * expected).collect();
        // Regions of sparse cells, and the dense cells bordering each.
        const NONE: u32 = u32::MAX;
        let mut region = vec![NONE; nx * ny];
        let mut bank = vec![NONE; nx * ny];
        let mut areas: Vec<f64> = Vec::new();
        let mut queue = VecDeque::new();
        for start in 0..nx * ny {
            if !sparse[start] || region[start] != NONE {
                continue;
            }
            let id = areas.len() as u32;
            let mut cells = 0usize;
            region[start] = id;
            queue.push_back(start);
            while let Some(c) = queue.pop_front() {
                cells += 1;
                let (cx, cy) = (c % nx, c / nx);
                let around = [
                    (cx > 0).then(|| c - 1),
                    (cx + 1 < nx).then(|| c + 1),
                    (cy > 0).then(|| c - nx),
                    (cy + 1 < ny).then(|| c + nx),
                ];
                for d in around.into_iter().flatten() {
                    if sparse[d] {
                        if region[d] == NONE {
                            region[d] = id;
                            queue.push_back(d);
                        }
                    } else {
                        bank[d] = id;
                    }
                }
            }
            areas.push(cells as f64 * cell * cell);
        }
        let big: Vec<bool> = areas.iter().map(|&a| a >= self.water_area).collect();
        let single = |i: usize| returns.get(i).is_none_or(|&r| r <= 1);
        let mut surface: Vec<Vec<f64>> = vec![Vec::new(); areas.len()];
        let mut banks: Vec<Vec<f64>> = vec![Vec::new(); areas.len()];
        for i in (0..n).filter(|&i| ground[i]) {
            let Some(c) = cell_of(i) else { continue };
            if region[c] != NONE && big[region[c] as usize] && single(i) {
                surface[region[c] as usize].push(z[i]);
            } else if bank[c] != NONE && big[bank[c] as usize] {
                banks[bank[c] as usize].push(z[i]);
            }
        }
        let level: Vec<Option<f64>> = surface
            .iter_mut()
            .zip(&mut banks)
            .map(|(s, k)| {
                if s.len() < self.water_points.max(1) || k.is_empty() {
                    return None;
                }
                s.sort_by(f64::total_cmp);
                let at = |v: &[f64], q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
                let (median, spread) = (at(s, 0.5), at(s, 0.9) - at(s, 0.1));
                k.sort_by(f64::total_cmp);
                (spread <= self.water_flatness && median <= at(k, 0.5) - self.water_below).then_some(median)
            })
            .collect();
        for i in (0..n).filter(|&i| ground[i] && single(i)) {
            let Some(c) = cell_of(i) else { continue };
            if let Some(Some(median)) = (region[c] != NONE).then(|| level[region[c] as usize]) {
                water[i] = (z[i] - median).abs() <= self.water_flatness;
            }
        }
        water
    }

    /// Takes the points of raised plateaus ([`Rules::raised_ground`]) out of `ground`.
    pub fn lower_raised_ground(&self, x: &[f64], y: &[f64], z: &[f64], ground: &mut [bool], spacing: f64) {
        let raised = self.raised_ground(x, y, z, ground, spacing);
        for (g, r) in ground.iter_mut().zip(raised) {
            *g &= !r;
        }
    }

    /// Which of `points` (indices into the cloud, with their shapes in `shapes`) are building.
    /// `multi_returns` says whether the file records several returns per pulse.
    pub fn buildings(
        &self,
        context: &FeatureContext<'_>,
        points: &[usize],
        shapes: &[PointShape],
        spacing: f64,
        multi_returns: bool,
    ) -> Vec<bool> {
        let (x, y) = context.xy();
        let cell = (2.0 * spacing).max(1.0);
        let key = |i: usize| ((x[i] / cell).floor() as i64, (y[i] / cell).floor() as i64);
        #[derive(Default, Clone, Copy)]
        struct Acc {
            elevated: u32,
            planar: u32,
            early: u32,
            /// Sum of the planar points' heights above ground.
            planar_height: f64,
        }
        let planar_points = self.planar_points(context, points, shapes, spacing);
        let mut cells: CellMap<(i64, i64), Acc> = CellMap::default();
        for ((&i, s), &planar) in points.iter().zip(shapes).zip(&planar_points) {
            if f64::from(s.hag) >= self.building_height && context.usable(i) {
                let a = cells.entry(key(i)).or_default();
                a.elevated += 1;
                a.planar += u32::from(planar);
                if planar {
                    a.planar_height += f64::from(s.hag);
                }
                a.early += u32::from(s.early_return);
            }
        }
        let roofy = |a: &Acc| a.planar > 0 && 2 * a.planar >= a.elevated;
        let step = 0.5 + 1.5 * cell;
        let mut segment: CellMap<(i64, i64), u32> = CellMap::default();
        let mut accepted = Vec::new();
        let mut queue = VecDeque::new();
        let mut keys: Vec<(i64, i64)> = cells.iter().filter(|(_, a)| roofy(a)).map(|(&k, _)| k).collect();
        keys.sort_unstable();
        for start in keys {
            if segment.contains_key(&start) {
                continue;
            }
            let id = accepted.len() as u32;
            segment.insert(start, id);
            queue.push_back(start);
            let (mut n_cells, mut total) = (0u64, Acc::default());
            while let Some((c, r)) = queue.pop_front() {
                n_cells += 1;
                if let Some(a) = cells.get(&(c, r)) {
                    total.elevated += a.elevated;
                    total.planar += a.planar;
                    total.early += a.early;
                }
                let height = cells.get(&(c, r)).map_or(0.0, |a| a.planar_height / f64::from(a.planar.max(1)));
                for (dc, dr) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
                    let m = (c + dc, r + dr);
                    // Neighbours join when their planar points are at heights a 45° roof allows:
                    // a tree beside a roof, or a lower roof, starts a segment of its own.
                    let joins = |a: &Acc| roofy(a) && (a.planar_height / f64::from(a.planar) - height).abs() <= step;
                    if !segment.contains_key(&m) && cells.get(&m).is_some_and(joins) {
                        segment.insert(m, id);
                        queue.push_back(m);
                    }
                }
            }
            let area = n_cells as f64 * cell * cell;
            let planar = f64::from(total.planar) / f64::from(total.elevated.max(1));
            let early = f64::from(total.early) / f64::from(total.elevated.max(1));
            accepted.push(
                area >= self.building_area
                    && total.planar >= self.building_points
                    && f64::from(total.planar) >= self.building_cover * n_cells as f64
                    && planar >= self.planar_share
                    && (!multi_returns || early <= self.multi_share),
            );
        }
        points
            .iter()
            .zip(shapes)
            .map(|(&i, s)| {
                f64::from(s.hag) >= self.building_height
                    && context.usable(i)
                    && segment.get(&key(i)).is_some_and(|&id| accepted[id as usize])
            })
            .collect()
    }
}

impl Rules {
    /// Which of `points` (with their shapes in `shapes`) lie on a roof plane: among the points at
    /// least `building_height` above the ground, each one's k nearest (in 3-D, k the number a disc
    /// of `roof_radius` holds at the survey's `spacing`, 8 to 50) make a plane when their
    /// scattering λ₃/λ₁ is under `planar_scattering`; a point is planar when it lies within
    /// `roof_tolerance` of the plane of one of its k nearest (itself included). A point by a ridge
    /// or an edge, whose own neighbourhood spans two faces, lies on the plane of a neighbour
    /// whose neighbourhood does not; a crown's neighbourhoods are rarely planes at all. Only
    /// elevated points take part, so a roof's edge is not measured against the ground beside
    /// it. Points below `building_height` are never planar.
    pub fn planar_points(
        &self,
        context: &FeatureContext<'_>,
        points: &[usize],
        shapes: &[PointShape],
        spacing: f64,
    ) -> Vec<bool> {
        use rayon::prelude::*;
        let mut planar = vec![false; points.len()];
        let elevated: Vec<usize> = (0..points.len())
            .filter(|&k| f64::from(shapes[k].hag) >= self.building_height && context.usable(points[k]))
            .collect();
        let Some(&first) = elevated.first() else { return planar };
        if elevated.len() > u32::MAX as usize - 1 {
            return planar;
        }
        let cloud = context.cloud();
        let o = points[first];
        let origin = [cloud.x[o], cloud.y[o], cloud.z[o]];
        let coords: Vec<[f32; 3]> = elevated
            .iter()
            .map(|&k| {
                let i = points[k];
                [(cloud.x[i] - origin[0]) as f32, (cloud.y[i] - origin[1]) as f32, (cloud.z[i] - origin[2]) as f32]
            })
            .collect();
        let per_disc = std::f64::consts::PI * self.roof_radius * self.roof_radius / (spacing * spacing).max(1e-6);
        let k = (per_disc.round().clamp(8.0, 50.0) as usize).min(coords.len());
        if k < 3 {
            return planar;
        }
        let index = crate::knn::ColumnIndex::new(&coords, k);
        // Both passes run in the index's order (positions, `ColumnIndex::at`): one point's
        // neighbours are mostly the next one's, and their planes lie side by side.
        let n = coords.len() as u32;
        // Each elevated point's plane: a point on it and its unit normal, when it is a plane.
        let planes: Vec<Option<([f64; 3], [f64; 3])>> = (0..n)
            .into_par_iter()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(scratch, near), at| {
                    let p = index.at(at).0;
                    index.nearest_positions(p, k, scratch, near);
                    let mut m = crate::features::Moments::default();
                    for &(_, at) in near.iter() {
                        let q = index.at(at).0;
                        m.add([f64::from(q[0] - p[0]), f64::from(q[1] - p[1]), f64::from(q[2] - p[2])]);
                    }
                    let (l, normal) = crate::features::eigen(m.covariance());
                    let c = m.mean();
                    let centre = [f64::from(p[0]) + c[0], f64::from(p[1]) + c[1], f64::from(p[2]) + c[2]];
                    (l[0] > 1e-12 && l[2] / l[0] < self.planar_scattering).then_some((centre, normal))
                },
            )
            .collect();
        let on = |p: [f32; 3], plane: &Option<([f64; 3], [f64; 3])>| {
            plane.is_some_and(|(c, n)| {
                let d =
                    (f64::from(p[0]) - c[0]) * n[0] + (f64::from(p[1]) - c[1]) * n[1] + (f64::from(p[2]) - c[2]) * n[2];
                d.abs() < self.roof_tolerance
            })
        };
        let on_plane: Vec<bool> = (0..n)
            .into_par_iter()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(scratch, near), at| {
                    let p = index.at(at).0;
                    // On its own plane, a point needs no other (most roof points).
                    if on(p, &planes[at as usize]) {
                        return true;
                    }
                    index.nearest_positions(p, k, scratch, near);
                    near.iter().any(|&(_, j)| on(p, &planes[j as usize]))
                },
            )
            .collect();
        // Back from the index's order to the points'.
        for (at, on) in (0..n).zip(on_plane) {
            planar[elevated[index.at(at).1 as usize]] = on;
        }
        planar
    }
}

/// Takes the ground points more than `offset` metres above the ground surface (their heights
/// above ground in `hag`) out of `ground`. The surface is the lowest ground point of each cell,
/// so this leaves it, and the heights, as they are.
pub fn trim_ground(ground: &mut [bool], hag: &[f32], offset: f64) {
    for (g, &h) in ground.iter_mut().zip(hag) {
        *g &= f64::from(h) <= offset;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which points of a `cols` × `rows` grid of ground points, one a square metre at heights
    /// `z(i, j)`, are raised (a spacing of 0.5 m: 1 m cells, one point each).
    fn raised_grid(cols: u32, rows: u32, z: impl Fn(u32, u32) -> f64) -> Vec<bool> {
        let (mut xs, mut ys, mut zs) = (vec![], vec![], vec![]);
        for i in 0..cols {
            for j in 0..rows {
                xs.push(f64::from(i) + 0.5);
                ys.push(f64::from(j) + 0.5);
                zs.push(z(i, j));
            }
        }
        Rules::default().raised_ground(&xs, &ys, &zs, &vec![true; xs.len()], 0.5)
    }

    /// The 40 × 40 m square in the middle of a 100 m grid.
    fn roof(i: u32, j: u32) -> bool {
        (30..70).contains(&i) && (30..70).contains(&j)
    }

    fn assert_only_the_roof_is_raised(raised: &[bool]) {
        for i in 0..100 {
            for j in 0..100 {
                assert_eq!(raised[(i * 100 + j) as usize], roof(i, j), "{i} {j}");
            }
        }
    }

    /// A 100 m square of gently sloping ground with a 40 × 40 m flat roof 6 m up: the roof's
    /// points, all taken for ground, are raised; the ground stays.
    #[test]
    fn a_roof_wider_than_the_window_is_raised() {
        let raised = raised_grid(100, 100, |i, j| 0.02 * f64::from(i) + if roof(i, j) { 6.0 } else { 0.0 });
        assert_only_the_roof_is_raised(&raised);
    }

    /// A wide shed roof 1.9 m above the yard it stands in (its eaves lower than a dwelling's) is
    /// raised; a terrace 1.9 m high is not.
    #[test]
    fn a_low_wide_roof_beside_a_yard_is_raised() {
        let terrace = |i: u32| i >= 85;
        let raised = raised_grid(100, 100, |i, j| if roof(i, j) || terrace(i) { 1.9 } else { 0.0 });
        assert_only_the_roof_is_raised(&raised);
    }

    /// A terrace on a hillside steps down on one side and up on the other: not a roof.
    #[test]
    fn a_terrace_is_not_a_roof() {
        let raised = raised_grid(90, 30, |i, _| f64::from(i / 30) * 3.0);
        assert!(raised.iter().all(|&r| !r));
    }

    #[test]
    fn a_sparse_flat_low_surface_is_water_and_a_survey_edge_is_not() {
        // A 60 × 60 m survey at 4 points/m² on flat ground at z = 2, a canal 10 m wide at
        // z = 1 where one return in twenty comes back, and the survey thinning out at its east
        // edge on ground level with the rest.
        let (mut x, mut y, mut z, mut truth) = (vec![], vec![], vec![], vec![]);
        let mut rng = crate::forest::SplitMix64::new(7);
        for i in 0..120 {
            for j in 0..120 {
                let (px, py) = (f64::from(i) * 0.5, f64::from(j) * 0.5);
                let canal = (20.0..30.0).contains(&px);
                let edge = px >= 55.0;
                let k = rng.next_u64() % 20;
                if (canal && k != 0) || (edge && k >= 2) {
                    continue;
                }
                x.push(px);
                y.push(py);
                z.push(if canal { 1.0 + f64::from(j % 3) * 0.02 } else { 2.0 });
                truth.push(canal);
            }
        }
        let ground = vec![true; x.len()];
        let returns = vec![1u8; x.len()];
        let spacing = crate::density::spacing(&x, &y);
        let water = Rules::default().water(&x, &y, &z, &ground, &returns, spacing);
        let found = water.iter().zip(&truth).filter(|(w, t)| **w && **t).count();
        let wrong = water.iter().zip(&truth).filter(|(w, t)| **w && !**t).count();
        let canal = truth.iter().filter(|t| **t).count();
        assert!(found * 10 >= canal * 7, "{found} of {canal} canal points");
        assert_eq!(wrong, 0);
        // Multiple returns are not water; a file with no sparse area has none.
        let multi = Rules::default().water(&x, &y, &z, &ground, &vec![2u8; x.len()], spacing);
        assert!(!multi.iter().any(|w| *w));
    }

    /// A gabled roof sampled every 2 m (0.25 points a square metre), its ridge on a row of
    /// points, beside a canopy at the same density: every roof point is planar, the ridge's too
    /// (its own neighbours span both faces: it lies on a neighbour's plane); few crown points are.
    #[test]
    fn a_sparse_gabled_roof_is_planar_to_its_ridge_and_a_canopy_is_not() {
        let mut cloud = crate::reader::PointCloud::default();
        let mut hag = Vec::new();
        let mut roof = Vec::new();
        for i in 0..7 {
            for j in 0..6 {
                let x = 2.0 * f64::from(i);
                cloud.x.push(x);
                cloud.y.push(2.0 * f64::from(j));
                // Eaves 5 m up, faces rising 0.7 m a metre (35°) to the ridge at x = 6.
                let z = 5.0 + 0.7 * (6.0 - (x - 6.0).abs());
                cloud.z.push(z);
                hag.push(z as f32);
                roof.push(true);
            }
        }
        for i in 0..12 {
            for j in 0..12 {
                let (x, y) = (40.0 + 2.0 * f64::from(i), 2.0 * f64::from(j));
                let hash = ((x * 12.9898 + y * 78.233).sin() * 43_758.545_3).rem_euclid(1.0);
                let z = 8.0 + 6.0 * hash;
                cloud.x.push(x);
                cloud.y.push(y);
                cloud.z.push(z);
                hag.push(z as f32);
                roof.push(false);
            }
        }
        let n = cloud.x.len();
        cloud.intensity.resize(n, 0);
        cloud.classification.resize(n, 1);
        cloud.return_number.resize(n, 1);
        cloud.number_of_returns.resize(n, 1);
        let context = FeatureContext::new(&cloud, &hag).expect("the columns are complete");
        let points: Vec<usize> = (0..n).collect();
        let shapes: Vec<PointShape> = hag.iter().map(|&h| PointShape { hag: h, early_return: false }).collect();
        let planar = Rules::default().planar_points(&context, &points, &shapes, 2.0);
        let ridge: Vec<usize> = (0..n).filter(|&i| roof[i] && cloud.x[i] == 6.0).collect();
        assert_eq!(ridge.len(), 6);
        assert!(ridge.iter().all(|&i| planar[i]), "the ridge is planar");
        let roof_planar = (0..n).filter(|&i| roof[i] && planar[i]).count();
        assert_eq!(roof_planar, 42, "every roof point is planar");
        let crown_planar = (0..n).filter(|&i| !roof[i] && planar[i]).count();
        assert!(crown_planar < 144 / 5, "{crown_planar} of 144 crown points planar");
    }

    #[test]
    fn vegetation_bands() {
        let r = Rules::default();
        assert_eq!([r.vegetation_band(0.2), r.vegetation_band(1.0), r.vegetation_band(12.0)], [3, 4, 5]);
    }
}
