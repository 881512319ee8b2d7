//! Height-normalised clouds: files whose Z is already the height above ground (what lidR's
//! `normalize_height` writes, or PDAL's `filters.hag_*` copied into Z). Their ground is the
//! points at z ≈ 0, wherever it is; a morphological filter looking for the lowest surface would
//! read them as terrain and lose that (on a sparse forest it takes canopy for ground where no
//! ground return is near, as it does on the same file before normalisation).
//!
//! A cloud is taken as normalised when both hold among the points that take part:
//! - hardly any point lies below zero: at most [`MAX_BELOW`] of them more than
//!   [`TOLERANCE`] under it (a terrain file has its lowest points spread over its relief);
//! - nearly every cell has its floor at zero: at least [`MIN_FLAT_CELLS`] of the cells that hold
//!   [`MIN_CELL_POINTS`] points or more hold a point within [`TOLERANCE`] of zero and at most
//!   [`MAX_CELL_BELOW`] of their points below it (a few returns under the ground, as every
//!   survey has, do not count against a cell), cells being [`CELL_SPACINGS`] point spacings
//!   wide and never under [`MIN_CELL`] metres (wider than most roofs and crowns, so that a cell
//!   nearly always holds some ground).
//!
//! Ground is then every such point within [`TOLERANCE`] of zero. A terrain file that passes
//! both tests is flat at z ≈ 0 everywhere (a shore at sea level), where ground at z ≈ 0 is the
//! same answer the filter would give. The cells are keyed in a map, so the cost follows the
//! points, not the extent.

use std::collections::HashMap;

/// How far from zero a normalised file's ground lies, in metres: 1.5 times the 10 cm vertical
/// RMSE of a USGS QL2 / IGN Lidar HD terrain model, the surface a file is normalised against.
pub const TOLERANCE: f64 = 0.15;
/// Largest share of points more than [`TOLERANCE`] below zero.
pub const MAX_BELOW: f64 = 0.005;
/// Smallest share of the counted cells whose lowest point is within [`TOLERANCE`] of zero.
pub const MIN_FLAT_CELLS: f64 = 0.9;
/// Largest share of a cell's points more than [`TOLERANCE`] below zero for its floor to be at zero.
pub const MAX_CELL_BELOW: f64 = 0.05;
/// Points a cell needs to be counted.
pub const MIN_CELL_POINTS: usize = 10;
/// Cell width in point spacings.
pub const CELL_SPACINGS: f64 = 20.0;
/// Smallest cell width, in metres.
pub const MIN_CELL: f64 = 25.0;
/// Counted cells needed before anything is decided (a handful of cells says little).
pub const MIN_CELLS: usize = 4;

/// The ground of a height-normalised cloud (coordinates in metres), or `None` when the cloud is
/// not one. `selected` marks the points that take part (not noise); `spacing` is the nominal
/// point spacing.
pub fn ground(x: &[f64], y: &[f64], z: &[f64], selected: &[bool], spacing: f64) -> Option<Vec<bool>> {
    let n = z.len();
    if x.len() != n || y.len() != n || selected.len() != n {
        return None;
    }
    let cell = (CELL_SPACINGS * spacing).max(MIN_CELL);
    if !cell.is_finite() {
        return None;
    }
    let (mut taking, mut below) = (0usize, 0usize);
    // Per cell: points, points within the tolerance of zero, points below it.
    let mut cells: HashMap<(i64, i64), (usize, usize, usize)> = HashMap::new();
    for i in 0..n {
        if !(selected[i] && x[i].is_finite() && y[i].is_finite() && z[i].is_finite()) {
            continue;
        }
        taking += 1;
        let key = ((x[i] / cell).floor() as i64, (y[i] / cell).floor() as i64);
        let e = cells.entry(key).or_insert((0, 0, 0));
        e.0 += 1;
        if z[i] < -TOLERANCE {
            below += 1;
            e.2 += 1;
        } else if z[i] <= TOLERANCE {
            e.1 += 1;
        }
    }
    if taking == 0 || below as f64 > MAX_BELOW * taking as f64 {
        return None;
    }
    let counted = cells.values().filter(|c| c.0 >= MIN_CELL_POINTS);
    let (mut total, mut flat) = (0usize, 0usize);
    for &(k, near, under) in counted {
        total += 1;
        if near > 0 && under as f64 <= MAX_CELL_BELOW * k as f64 {
            flat += 1;
        }
    }
    if total < MIN_CELLS || (flat as f64) < MIN_FLAT_CELLS * total as f64 {
        return None;
    }
    Some((0..n).map(|i| selected[i] && z[i].abs() <= TOLERANCE).collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A 200 × 200 m stand: ground every 3 m (z from `terrain`, plus a few cm), crowns of 15–25 m
    /// over a third of it, at one point a metre.
    fn stand(terrain: impl Fn(f64, f64) -> f64) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<bool>) {
        let (mut x, mut y, mut z, mut truth) = (vec![], vec![], vec![], vec![]);
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for i in 0..200 {
            for j in 0..200 {
                let (px, py) = (i as f64 + 0.5, j as f64 + 0.5);
                let crown = (i / 20 + j / 20) % 3 == 0;
                if i % 3 == 0 && j % 3 == 0 {
                    x.push(px);
                    y.push(py);
                    z.push(terrain(px, py) + 0.05 * (next() - 0.5));
                    truth.push(true);
                } else if crown {
                    x.push(px);
                    y.push(py);
                    z.push(terrain(px, py) + 15.0 + 10.0 * next());
                    truth.push(false);
                }
            }
        }
        (x, y, z, truth)
    }

    #[test]
    fn a_normalised_stand_has_its_ground_at_zero() {
        let (x, y, z, truth) = stand(|_, _| 0.0);
        let all = vec![true; z.len()];
        let g = ground(&x, &y, &z, &all, 1.0).unwrap();
        assert_eq!(g, truth);
        // Noise left out of the selection is never ground.
        let mut some = all.clone();
        some[0] = false;
        assert!(!ground(&x, &y, &z, &some, 1.0).unwrap()[0]);
    }

    #[test]
    fn terrain_with_relief_is_not_normalised() {
        let (x, y, z, _) = stand(|px, py| 240.0 + 0.1 * px + 0.05 * py);
        assert!(ground(&x, &y, &z, &vec![true; z.len()], 1.0).is_none());
        // Nor is terrain about sea level with ditches below it.
        let (x, y, z, _) = stand(|px, _| if (px as i64) % 40 < 4 { -2.0 } else { 0.3 });
        assert!(ground(&x, &y, &z, &vec![true; z.len()], 1.0).is_none());
    }

    #[test]
    fn a_few_cells_decide_nothing() {
        let x = vec![1.0, 2.0, 3.0];
        let y = vec![1.0, 2.0, 3.0];
        let z = vec![0.0, 0.0, 10.0];
        assert!(ground(&x, &y, &z, &[true; 3], 1.0).is_none());
        assert!(ground(&x, &y, &z[..2], &[true; 3], 1.0).is_none());
    }
}
