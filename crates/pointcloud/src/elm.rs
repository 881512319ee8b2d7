//! The extended local minimum filter (PDAL's `filters.elm`, after Chen et al. 2012): low
//! outliers, the points below the ground that would otherwise pull a minimum surface down.
//!
//! Points are binned in square cells; in each cell the points are taken from the lowest up, and
//! while the next point is more than `threshold` above the current one the current one is noise.
//! PDAL marks them class 7 (low noise), which the ground filter then ignores.

use rayon::prelude::*;

/// ELM parameters; the defaults are PDAL's.
#[derive(Debug, Clone, PartialEq)]
pub struct Elm {
    /// Cell size in metres (`cell`, default 10.0).
    pub cell: f64,
    /// Gap in metres above which the lower point is noise (`threshold`, default 1.0).
    pub threshold: f64,
}

impl Default for Elm {
    fn default() -> Self {
        Self { cell: 10.0, threshold: 1.0 }
    }
}

impl Elm {
    /// The filter for points `spacing` metres apart: PDAL's defaults where a 10 m cell holds
    /// several points (any airborne survey), otherwise a cell of three spacings (about nine
    /// points) with the threshold grown in proportion (a 10 % rise over the cell), so that a
    /// sparse cloud's lowest point on a slope is not taken for a pit.
    pub fn for_spacing(spacing: f64) -> Self {
        let base = Self::default();
        let cell = if spacing.is_finite() { (3.0 * spacing).max(base.cell) } else { base.cell };
        Self { cell, threshold: base.threshold * cell / base.cell }
    }

    /// Low noise among `x`, `y`, `z`: `true` for noise. Non-finite points are left alone, as are
    /// all points when the parameters are not positive numbers or the columns differ in length.
    pub fn noise(&self, x: &[f64], y: &[f64], z: &[f64]) -> Vec<bool> {
        let n = x.len();
        let mut noise = vec![false; n];
        let usable = self.cell.is_finite() && self.cell > 0.0 && self.threshold.is_finite() && self.threshold >= 0.0;
        if !usable || y.len() != n || z.len() != n {
            return noise;
        }
        let finite = |i: usize| x[i].is_finite() && y[i].is_finite() && z[i].is_finite();
        let (mut x0, mut y0) = (f64::INFINITY, f64::INFINITY);
        for i in (0..n).filter(|&i| finite(i)) {
            x0 = x0.min(x[i]);
            y0 = y0.min(y[i]);
        }
        // Sort by cell, then height, then index: deterministic, and each cell a run. The keys
        // are computed once (the comparisons would otherwise divide again each time) and sorted
        // on rayon's threads.
        let key = |i: usize| (((x[i] - x0) / self.cell) as u64, ((y[i] - y0) / self.cell) as u64);
        let mut order: Vec<((u64, u64), u64, usize)> = (0..n)
            .into_par_iter()
            .filter(|&i| finite(i))
            .map(|i| {
                // z as an integer that sorts as the float does (total order).
                let bits = z[i].to_bits();
                let ordered = if bits >> 63 == 1 { !bits } else { bits | (1 << 63) };
                (key(i), ordered, i)
            })
            .collect();
        order.par_sort_unstable();
        let mut start = 0;
        while start < order.len() {
            let cell = order[start].0;
            let end = start + order[start..].iter().take_while(|o| o.0 == cell).count();
            for w in order[start..end].windows(2) {
                if z[w[1].2] - z[w[0].2] > self.threshold {
                    noise[w[0].2] = true;
                } else {
                    break;
                }
            }
            start = end;
        }
        noise
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_far_below_its_cell_is_noise() {
        let x = [1.0, 2.0, 3.0, 4.0, 15.0];
        let y = [1.0; 5];
        let z = [10.0, 10.2, -5.0, 10.1, 3.0];
        assert_eq!(Elm::default().noise(&x, &y, &z), [false, false, true, false, false]);
    }
}
