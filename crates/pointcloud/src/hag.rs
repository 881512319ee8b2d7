//! Height above ground: each point's height over a ground surface made from the ground points.
//!
//! The surface is a raster, not a TIN: the lowest ground point of each `cell`-metre cell, the
//! empty cells (under buildings, in gaps) given the value of the nearest filled cell, and the
//! surface read at each point by bilinear interpolation between cell centres. A raster costs
//! O(points + cells) and needs no triangulation; at the 1 m cells the ground filter itself works
//! on, its error against a TIN is a few centimetres on slopes, below what the classes need. The
//! nearest-cell fill is a two-pass propagation over the grid (forward and backward raster scans
//! passing on the nearest filled cell, as a chamfer distance transform does), so a large hole
//! costs no more than a small one.

/// The largest grid built, in cells (a guard against points spread over a continent).
pub const MAX_CELLS: u64 = 50_000_000;

/// Errors of the height above ground.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum HagError {
    /// The columns have different lengths.
    #[error("the point columns have different lengths")]
    Columns,
    /// The cell size is not a positive number.
    #[error("the cell size {0} is not a positive number")]
    Cell(f64),
    /// No finite point is marked ground.
    #[error("no ground point")]
    NoGround,
    /// The points span more cells than [`MAX_CELLS`].
    #[error("the grid would have {cells} cells, over the limit of {limit}")]
    GridTooLarge {
        /// Cells the grid would need.
        cells: u64,
        /// The limit.
        limit: u64,
    },
}

/// Height of each point above the ground surface made from the points `ground` marks, in metres
/// (negative below it; NaN for a point with a non-finite coordinate).
///
/// ```
/// use meridian_pointcloud::hag::height_above_ground;
/// let x = [0.0, 10.0, 0.0, 10.0, 5.0];
/// let y = [0.0, 0.0, 10.0, 10.0, 5.0];
/// let z = [100.0, 100.0, 100.0, 100.0, 112.0];
/// let hag = height_above_ground(&x, &y, &z, &[true, true, true, true, false], 1.0)?;
/// assert_eq!(hag[4], 12.0);
/// # Ok::<(), meridian_pointcloud::hag::HagError>(())
/// ```
pub fn height_above_ground(x: &[f64], y: &[f64], z: &[f64], ground: &[bool], cell: f64) -> Result<Vec<f32>, HagError> {
    let surface = GroundSurface::new(x, y, z, ground, cell)?;
    Ok((0..x.len()).map(|i| (z[i] - surface.at(x[i], y[i])) as f32).collect())
}

/// A filled ground raster, read by bilinear interpolation.
#[derive(Debug, Clone)]
pub struct GroundSurface {
    x0: f64,
    y0: f64,
    cell: f64,
    cols: usize,
    rows: usize,
    z: Vec<f64>,
}

impl GroundSurface {
    /// The surface of the points `ground` marks, over the bounds of all finite points.
    pub fn new(x: &[f64], y: &[f64], z: &[f64], ground: &[bool], cell: f64) -> Result<Self, HagError> {
        let n = x.len();
        if y.len() != n || z.len() != n || ground.len() != n {
            return Err(HagError::Columns);
        }
        if !(cell.is_finite() && cell > 0.0) {
            return Err(HagError::Cell(cell));
        }
        let finite = |i: usize| x[i].is_finite() && y[i].is_finite() && z[i].is_finite();
        let mut b = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
        let mut any_ground = false;
        let mut count = 0;
        for i in (0..n).filter(|&i| finite(i)) {
            b = [b[0].min(x[i]), b[1].min(y[i]), b[2].max(x[i]), b[3].max(y[i])];
            any_ground |= ground[i];
            count += 1;
        }
        if !any_ground {
            return Err(HagError::NoGround);
        }
        // Widened over a sparse cloud, so that the grid grows with the points, not their extent.
        let cell = crate::density::grid_cell(cell, b[2] - b[0], b[3] - b[1], count, MAX_CELLS);
        let cols = ((b[2] - b[0]) / cell).floor() + 1.0;
        let rows = ((b[3] - b[1]) / cell).floor() + 1.0;
        let cells = cols * rows;
        if !cells.is_finite() || cells > MAX_CELLS as f64 {
            let cells = if cells.is_finite() { cells as u64 } else { u64::MAX };
            return Err(HagError::GridTooLarge { cells, limit: MAX_CELLS });
        }
        let (cols, rows) = (cols as usize, rows as usize);
        let mut grid = vec![f64::INFINITY; cols * rows];
        for i in (0..n).filter(|&i| ground[i] && finite(i)) {
            let c = (((x[i] - b[0]) / cell) as usize).min(cols - 1);
            let r = (((y[i] - b[1]) / cell) as usize).min(rows - 1);
            let v = &mut grid[r * cols + c];
            *v = v.min(z[i]);
        }
        fill_nearest(&mut grid, cols, rows);
        Ok(Self { x0: b[0], y0: b[1], cell, cols, rows, z: grid })
    }

    /// The surface's height at `(x, y)`: bilinear between the four nearest cell centres, clamped
    /// to the grid at its edges.
    pub fn at(&self, x: f64, y: f64) -> f64 {
        let fx = ((x - self.x0) / self.cell - 0.5).clamp(0.0, (self.cols - 1) as f64);
        let fy = ((y - self.y0) / self.cell - 0.5).clamp(0.0, (self.rows - 1) as f64);
        if !(fx.is_finite() && fy.is_finite()) {
            return f64::NAN;
        }
        let (c, r) = (fx as usize, fy as usize);
        let (c1, r1) = ((c + 1).min(self.cols - 1), (r + 1).min(self.rows - 1));
        let (tx, ty) = (fx - c as f64, fy - r as f64);
        let g = |r: usize, c: usize| self.z[r * self.cols + c];
        let bottom = g(r, c) * (1.0 - tx) + g(r, c1) * tx;
        let top = g(r1, c) * (1.0 - tx) + g(r1, c1) * tx;
        bottom * (1.0 - ty) + top * ty
    }
}

/// Gives every empty (infinite) cell the value of the nearest filled cell, nearest by the
/// squared distance between cell centres as the two scans find it.
pub(crate) fn fill_nearest(grid: &mut [f64], cols: usize, rows: usize) {
    const NONE: u32 = u32::MAX;
    // The nearest filled cell found so far, as (column, row).
    let mut src: Vec<u32> = (0..grid.len()).map(|k| if grid[k].is_finite() { k as u32 } else { NONE }).collect();
    let d2 = |k: usize, s: u32| -> u64 {
        let (c, r) = ((k % cols) as i64, (k / cols) as i64);
        let (sc, sr) = ((s as usize % cols) as i64, (s as usize / cols) as i64);
        ((c - sc).pow(2) + (r - sr).pow(2)) as u64
    };
    let relax = |k: usize, nb: usize, src: &mut [u32]| {
        let s = src[nb];
        if s != NONE && (src[k] == NONE || d2(k, s) < d2(k, src[k])) {
            src[k] = s;
        }
    };
    for r in 0..rows {
        for c in 0..cols {
            let k = r * cols + c;
            if c > 0 {
                relax(k, k - 1, &mut src);
            }
            if r > 0 {
                relax(k, k - cols, &mut src);
                if c > 0 {
                    relax(k, k - cols - 1, &mut src);
                }
                if c + 1 < cols {
                    relax(k, k - cols + 1, &mut src);
                }
            }
        }
    }
    for r in (0..rows).rev() {
        for c in (0..cols).rev() {
            let k = r * cols + c;
            if c + 1 < cols {
                relax(k, k + 1, &mut src);
            }
            if r + 1 < rows {
                relax(k, k + cols, &mut src);
                if c + 1 < cols {
                    relax(k, k + cols + 1, &mut src);
                }
                if c > 0 {
                    relax(k, k + cols - 1, &mut src);
                }
            }
        }
    }
    for k in 0..grid.len() {
        if !grid[k].is_finite() && src[k] != NONE {
            grid[k] = grid[src[k] as usize];
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_sloped_plane_gives_heights_over_it() {
        let (mut x, mut y, mut z, mut g) = (vec![], vec![], vec![], vec![]);
        for i in 0..30 {
            for j in 0..30 {
                x.push(i as f64 + 0.5);
                y.push(j as f64 + 0.5);
                z.push(50.0 + 0.1 * (i as f64 + 0.5));
                g.push(true);
            }
        }
        x.push(15.0);
        y.push(15.0);
        z.push(50.0 + 1.5 + 7.0);
        g.push(false);
        let hag = height_above_ground(&x, &y, &z, &g, 1.0).unwrap();
        // The raster puts each cell's lowest point at its centre: half a cell of slope at most.
        assert!(hag[..900].iter().all(|h| h.abs() <= 0.051));
        assert!((hag[900] - 7.0).abs() < 0.06, "{}", hag[900]);
    }

    #[test]
    fn holes_are_filled_and_bad_input_is_an_error() {
        let x = [0.0, 20.0, 10.0];
        let y = [0.0, 0.0, 0.0];
        let z = [1.0, 1.0, 5.0];
        let hag = height_above_ground(&x, &y, &z, &[true, true, false], 1.0).unwrap();
        assert_eq!(hag[2], 4.0);
        assert_eq!(height_above_ground(&x, &y, &z, &[false; 3], 1.0), Err(HagError::NoGround));
        assert_eq!(height_above_ground(&x, &y, &z, &[true; 2], 1.0), Err(HagError::Columns));
        assert!(matches!(height_above_ground(&x, &y, &z, &[true; 3], 0.0), Err(HagError::Cell(_))));
        // Three points over a million kilometres: the cell widens to the points (crate::density).
        let far = [0.0, 1e9, 0.0];
        let hag = height_above_ground(&far, &far, &z, &[true, true, false], 1.0).unwrap();
        assert_eq!(hag[2], 4.0);
    }
}
