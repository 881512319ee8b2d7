//! Reprojection and resampling. Target pixel centres are mapped to source pixel positions
//! through the CRS layer on a coarse grid (every `step` pixels) and interpolated in between,
//! as GDAL's approximate transformer does; samples are taken with nearest, bilinear or cubic
//! (Keys, a = −0.5) kernels that skip nodata neighbours. Only the source window (and the
//! overview level) the target needs is read.

use crate::crs::{transform_all, transformer, Transformer};
use crate::tiff::GeoTiff;
use crate::{Error, GeoTransform, Raster, Result, Window};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Resampling kernels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Resampling {
    Nearest,
    #[default]
    Bilinear,
    Cubic,
}

/// A target grid: size, georeference and CRS.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub width: usize,
    pub height: usize,
    pub geo_transform: GeoTransform,
    pub epsg: u16,
}

impl Grid {
    /// A grid over `bbox` (min x, min y, max x, max y) in `epsg` with `width` × `height` pixels.
    pub fn from_bbox(bbox: [f64; 4], width: usize, height: usize, epsg: u16) -> Self {
        let gt = GeoTransform([
            bbox[0],
            (bbox[2] - bbox[0]) / width as f64,
            0.0,
            bbox[3],
            0.0,
            -(bbox[3] - bbox[1]) / height as f64,
        ]);
        Self { width, height, geo_transform: gt, epsg }
    }
}

/// A position: x and y, or column and row.
type Point = (f64, f64);

/// Source pixel positions (fractional column, row; pixel centres at i + 0.5) of every target
/// pixel centre, exact on a grid every `step` pixels and bilinearly interpolated in between.
pub fn source_positions(grid: &Grid, src_gt: &GeoTransform, t: &Transformer, step: usize) -> Result<Vec<(f64, f64)>> {
    let inv = src_gt.invert().ok_or_else(|| Error::arg("source geotransform is not invertible"))?;
    let step = step.max(1);
    // Nodes sit on pixel centres every `step` pixels, the last one on the last pixel.
    let nx = (grid.width.saturating_sub(1)).div_ceil(step) + 2;
    let ny = (grid.height.saturating_sub(1)).div_ceil(step) + 2;
    let node_col = |i: usize| (i * step).min(grid.width - 1) as f64 + 0.5;
    let node_row = |j: usize| (j * step).min(grid.height - 1) as f64 + 0.5;
    let mut nodes = Vec::with_capacity(nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            nodes.push(grid.geo_transform.apply(node_col(i), node_row(j)));
        }
    }
    transform_all(t, &mut nodes)?;
    for p in nodes.iter_mut() {
        *p = inv.apply(p.0, p.1);
    }
    // A column's node and fraction are the same on every row, and so is a row of nodes
    // interpolated across for every row between two node rows: both are computed once, with the
    // same operations as per pixel, so the positions are the same to the bit.
    let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
    let cols: Vec<(usize, f64)> = (0..grid.width)
        .map(|c| {
            let cc = c as f64 + 0.5;
            let i = (c / step).min(nx - 2);
            let (c0, c1) = (node_col(i), node_col(i + 1));
            (i, if c1 > c0 { (cc - c0) / (c1 - c0) } else { 0.0 })
        })
        .collect();
    // For each pair of node rows j, j + 1: the upper and lower rows interpolated across.
    let across: Vec<(Vec<Point>, Vec<Point>)> = (0..ny - 1)
        .into_par_iter()
        .map(|j| {
            let row = |j: usize| -> Vec<Point> {
                cols.iter()
                    .map(|&(i, fx)| {
                        let (p0, p1) = (nodes[j * nx + i], nodes[j * nx + i + 1]);
                        (lerp(p0.0, p1.0, fx), lerp(p0.1, p1.1, fx))
                    })
                    .collect()
            };
            (row(j), row(j + 1))
        })
        .collect();
    let mut out = vec![(f64::NAN, f64::NAN); grid.width * grid.height];
    out.par_chunks_mut(grid.width).enumerate().for_each(|(r, row)| {
        let rc = r as f64 + 0.5;
        let j = (r / step).min(ny - 2);
        let (r0, r1) = (node_row(j), node_row(j + 1));
        let fy = if r1 > r0 { (rc - r0) / (r1 - r0) } else { 0.0 };
        let (top, bottom) = &across[j];
        for ((o, a), b) in row.iter_mut().zip(top).zip(bottom) {
            *o = (lerp(a.0, b.0, fy), lerp(a.1, b.1, fy));
        }
    });
    Ok(out)
}

/// `x.floor() as i64` for finite `x`, without a call to `floor` (which the baseline x86-64
/// target has no instruction for).
#[inline]
fn floor(x: f64) -> i64 {
    let t = x as i64;
    t.saturating_sub(((t as f64) > x) as i64)
}

/// A window of source samples used for sampling.
pub struct SourceWindow<'a> {
    pub data: &'a [f32],
    pub x0: i64,
    pub y0: i64,
    pub width: usize,
    pub height: usize,
    pub nodata: Option<f32>,
}

impl SourceWindow<'_> {
    #[inline]
    fn at(&self, col: i64, row: i64) -> Option<f32> {
        let (x, y) = (col - self.x0, row - self.y0);
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return None;
        }
        let v = self.data[y as usize * self.width + x as usize];
        if v.is_nan() || self.nodata == Some(v) {
            None
        } else {
            Some(v)
        }
    }

    /// Samples at a fractional pixel position (centres at i + 0.5).
    pub fn sample(&self, px: f64, py: f64, r: Resampling) -> Option<f32> {
        if !px.is_finite() || !py.is_finite() {
            return None;
        }
        match r {
            Resampling::Nearest => self.at(floor(px), floor(py)),
            Resampling::Bilinear => self.bilinear(px, py),
            Resampling::Cubic => self.cubic(px, py).or_else(|| self.bilinear(px, py)),
        }
    }

    fn bilinear(&self, px: f64, py: f64) -> Option<f32> {
        let u = px - 0.5;
        let v = py - 0.5;
        let (i0, j0) = (floor(u), floor(v));
        // The common case: all four neighbours inside the window and holding data. The nearest
        // pixel is one of them, and the sums are taken in the same order as in the general case,
        // so the result is the same to the bit.
        let (x, y) = (i0 - self.x0, j0 - self.y0);
        if x >= 0 && y >= 0 && x + 1 < self.width as i64 && y + 1 < self.height as i64 {
            let k = y as usize * self.width + x as usize;
            let (s00, s10) = (self.data[k], self.data[k + 1]);
            let (s01, s11) = (self.data[k + self.width], self.data[k + self.width + 1]);
            if self.valid(s00) && self.valid(s10) && self.valid(s01) && self.valid(s11) {
                let (fx, fy) = (u - i0 as f64, v - j0 as f64);
                let (w00, w10, w01, w11) = ((1.0 - fx) * (1.0 - fy), fx * (1.0 - fy), (1.0 - fx) * fy, fx * fy);
                let mut sum = 0.0;
                sum += s00 as f64 * w00;
                sum += s10 as f64 * w10;
                sum += s01 as f64 * w01;
                sum += s11 as f64 * w11;
                let mut wsum = 0.0;
                wsum += w00;
                wsum += w10;
                wsum += w01;
                wsum += w11;
                // The weights often add up to exactly 1, and x / 1 is x: no division then.
                return (wsum > 0.0).then(|| if wsum == 1.0 { sum as f32 } else { (sum / wsum) as f32 });
            }
        }
        // The nearest pixel must hold data, so that nodata edges stay where they are.
        self.at(floor(px), floor(py))?;
        let (fx, fy) = (u - i0 as f64, v - j0 as f64);
        let mut sum = 0.0;
        let mut wsum = 0.0;
        for (di, dj, w) in
            [(0, 0, (1.0 - fx) * (1.0 - fy)), (1, 0, fx * (1.0 - fy)), (0, 1, (1.0 - fx) * fy), (1, 1, fx * fy)]
        {
            if let Some(s) = self.at(i0 + di, j0 + dj) {
                sum += s as f64 * w;
                wsum += w;
            }
        }
        (wsum > 0.0).then(|| (sum / wsum) as f32)
    }

    #[inline]
    fn valid(&self, v: f32) -> bool {
        !(v.is_nan() || self.nodata == Some(v))
    }

    fn cubic(&self, px: f64, py: f64) -> Option<f32> {
        let u = px - 0.5;
        let v = py - 0.5;
        let (i0, j0) = (u.floor() as i64, v.floor() as i64);
        let (fx, fy) = (u - i0 as f64, v - j0 as f64);
        let k = |t: f64| -> f64 {
            let a = -0.5;
            let t = t.abs();
            if t <= 1.0 {
                (a + 2.0) * t * t * t - (a + 3.0) * t * t + 1.0
            } else if t < 2.0 {
                a * t * t * t - 5.0 * a * t * t + 8.0 * a * t - 4.0 * a
            } else {
                0.0
            }
        };
        let mut sum = 0.0;
        for dj in -1..=2 {
            let wy = k(dj as f64 - fy);
            for di in -1..=2 {
                let s = self.at(i0 + di, j0 + dj)?;
                sum += s as f64 * k(di as f64 - fx) * wy;
            }
        }
        Some(sum as f32)
    }
}

/// Picks the overview level whose resolution is the coarsest not coarser than `target_res`
/// (in source pixels per target pixel).
pub fn pick_level(src: &GeoTiff, source_pixels_per_target: f64) -> usize {
    let full = src.width() as f64;
    let mut best = 0;
    for (i, im) in src.images().iter().enumerate() {
        let factor = full / im.width as f64;
        if factor <= source_pixels_per_target * 1.2 {
            best = i;
        }
    }
    best
}

/// What warping onto `grid` reads: the image level (0 = full resolution, then the overviews,
/// largest first) and the window of it, with a margin for the kernels. `None` when the grid does
/// not touch the source. The level is the coarsest whose pixels are at most 1.2 times the size of
/// the target's pixels measured in source pixels (see [`pick_level`]).
pub fn read_plan(src: &GeoTiff, grid: &Grid, pos: &[(f64, f64)]) -> Option<(usize, Window)> {
    let (mut minx, mut miny, mut maxx, mut maxy) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for &(x, y) in pos {
        if x.is_finite() && y.is_finite() {
            minx = minx.min(x);
            maxx = maxx.max(x);
            miny = miny.min(y);
            maxy = maxy.max(y);
        }
    }
    let (w, h) = (src.width() as f64, src.height() as f64);
    if !(minx < w && maxx > 0.0 && miny < h && maxy > 0.0) {
        return None;
    }
    // Source pixels per target pixel, to choose an overview.
    let spread = ((maxx - minx) / grid.width as f64).max((maxy - miny) / grid.height as f64);
    let level = pick_level(src, spread);
    let im = &src.images()[level];
    let (fx, fy) = (im.width as f64 / w, im.height as f64 / h);
    let margin = 3.0;
    let x0 = ((minx * fx).floor() - margin).max(-margin) as i64;
    let y0 = ((miny * fy).floor() - margin).max(-margin) as i64;
    let x1 = ((maxx * fx).ceil() + margin).min(im.width as f64 + margin) as i64;
    let y1 = ((maxy * fy).ceil() + margin).min(im.height as f64 + margin) as i64;
    Some((level, Window::new(x0, y0, (x1 - x0).max(1) as usize, (y1 - y0).max(1) as usize)))
}

/// Warps band 1 of `src` onto `grid`. Target pixels without data are `nodata` (NaN if `None`).
pub fn warp(src: &GeoTiff, grid: &Grid, resampling: Resampling, nodata: Option<f32>) -> Result<Option<Raster<f32>>> {
    let epsg = src.epsg().ok_or_else(|| Error::arg("the source has no EPSG code"))?;
    let t = transformer(grid.epsg, epsg)?;
    let pos = source_positions(grid, &src.geo_transform(), &t, 8)?;
    warp_positions(src, grid, &pos, resampling, nodata)
}

/// Warps band 1 with precomputed source positions (full-resolution pixel space). `None` when the
/// grid does not touch the source.
pub fn warp_positions(
    src: &GeoTiff,
    grid: &Grid,
    pos: &[(f64, f64)],
    resampling: Resampling,
    nodata: Option<f32>,
) -> Result<Option<Raster<f32>>> {
    warp_band_positions(src, 0, grid, pos, resampling, nodata)
}

/// Warps band `band` (0-based) with precomputed source positions, as [`warp_positions`] does
/// band 1.
pub fn warp_band_positions(
    src: &GeoTiff,
    band: usize,
    grid: &Grid,
    pos: &[(f64, f64)],
    resampling: Resampling,
    nodata: Option<f32>,
) -> Result<Option<Raster<f32>>> {
    let Some((level, win)) = read_plan(src, grid, pos) else { return Ok(None) };
    let im = &src.images()[level];
    let (fx, fy) = (im.width as f64 / src.width() as f64, im.height as f64 / src.height() as f64);
    let (x0, y0) = (win.x, win.y);
    let src_nd = src.nodata().map(|v| v as f32);
    let fill = src_nd.unwrap_or(f32::NAN);
    let data = src.read_window::<f32>(level, band, win, fill)?;
    let sw = SourceWindow { data: &data, x0, y0, width: win.width, height: win.height, nodata: src_nd };
    let out_nd = nodata.unwrap_or(f32::NAN);
    let mut out = vec![out_nd; grid.width * grid.height];
    out.par_chunks_mut(grid.width).zip(pos.par_chunks(grid.width)).for_each(|(o, p)| {
        for (v, &(x, y)) in o.iter_mut().zip(p) {
            if let Some(s) = sw.sample(x * fx, y * fy, resampling) {
                *v = s;
            }
        }
    });
    Ok(Some(Raster {
        width: grid.width,
        height: grid.height,
        data: out,
        geo_transform: grid.geo_transform,
        epsg: Some(grid.epsg),
        nodata: Some(out_nd as f64),
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Bilinear sampling as written before its fast path, kept as the reference.
    fn bilinear_reference(w: &SourceWindow<'_>, px: f64, py: f64) -> Option<f32> {
        w.at(px.floor() as i64, py.floor() as i64)?;
        let u = px - 0.5;
        let v = py - 0.5;
        let (i0, j0) = (u.floor() as i64, v.floor() as i64);
        let (fx, fy) = (u - i0 as f64, v - j0 as f64);
        let mut sum = 0.0;
        let mut wsum = 0.0;
        for (di, dj, w8) in
            [(0, 0, (1.0 - fx) * (1.0 - fy)), (1, 0, fx * (1.0 - fy)), (0, 1, (1.0 - fx) * fy), (1, 1, fx * fy)]
        {
            if let Some(s) = w.at(i0 + di, j0 + dj) {
                sum += s as f64 * w8;
                wsum += w8;
            }
        }
        (wsum > 0.0).then(|| (sum / wsum) as f32)
    }

    fn xorshift(s: &mut u64) -> f64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        (*s >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn bilinear_sampling_matches_the_reference_to_the_bit() {
        let (width, height) = (37, 29);
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        let mut data: Vec<f32> = (0..width * height).map(|_| 1500.0 + (xorshift(&mut seed) * 600.0) as f32).collect();
        // Holes: NaN and the nodata value, alone and in a block.
        for k in [5, 100, 101, 102, 400, 401, 437, 438] {
            data[k] = f32::NAN;
        }
        for k in [200, 640, 641, 677, 678, 900] {
            data[k] = -9999.0;
        }
        let w = SourceWindow { data: &data, x0: -3, y0: 4, width, height, nodata: Some(-9999.0) };
        for _ in 0..200_000 {
            let px = -6.0 + xorshift(&mut seed) * (width as f64 + 6.0);
            let py = 1.0 + xorshift(&mut seed) * (height as f64 + 6.0);
            let got = w.sample(px, py, Resampling::Bilinear);
            let want = bilinear_reference(&w, px, py);
            assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits), "({px}, {py})");
        }
        // Pixel centres and edges exactly.
        for j in -4..40 {
            for i in -6..45 {
                for (dx, dy) in [(0.5, 0.5), (0.0, 0.0), (1.0, 0.5)] {
                    let (px, py) = (i as f64 + dx, j as f64 + dy);
                    let got = w.sample(px, py, Resampling::Bilinear).map(f32::to_bits);
                    assert_eq!(got, bilinear_reference(&w, px, py).map(f32::to_bits), "({px}, {py})");
                }
            }
        }
    }

    #[test]
    fn source_positions_match_per_pixel_interpolation() {
        let grid = Grid::from_bbox([790_000.0, 5_780_000.0, 800_000.0, 5_790_000.0], 258, 251, 3857);
        let src_gt = GeoTransform([2_573_000.0, 2.5, 0.0, 1_086_000.0, 0.0, -2.5]);
        let t = transformer(3857, 2056).unwrap();
        let step = 16;
        let got = source_positions(&grid, &src_gt, &t, step).unwrap();
        // The interpolation pixel by pixel, as it was written before.
        let inv = src_gt.invert().unwrap();
        let nx = (grid.width - 1).div_ceil(step) + 2;
        let ny = (grid.height - 1).div_ceil(step) + 2;
        let node_col = |i: usize| (i * step).min(grid.width - 1) as f64 + 0.5;
        let node_row = |j: usize| (j * step).min(grid.height - 1) as f64 + 0.5;
        let mut nodes = Vec::new();
        for j in 0..ny {
            for i in 0..nx {
                nodes.push(grid.geo_transform.apply(node_col(i), node_row(j)));
            }
        }
        transform_all(&t, &mut nodes).unwrap();
        for p in nodes.iter_mut() {
            *p = inv.apply(p.0, p.1);
        }
        let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
        for r in 0..grid.height {
            let j = (r / step).min(ny - 2);
            let (r0, r1) = (node_row(j), node_row(j + 1));
            let fy = if r1 > r0 { (r as f64 + 0.5 - r0) / (r1 - r0) } else { 0.0 };
            for c in 0..grid.width {
                let i = (c / step).min(nx - 2);
                let (c0, c1) = (node_col(i), node_col(i + 1));
                let fx = if c1 > c0 { (c as f64 + 0.5 - c0) / (c1 - c0) } else { 0.0 };
                let (p00, p10) = (nodes[j * nx + i], nodes[j * nx + i + 1]);
                let (p01, p11) = (nodes[(j + 1) * nx + i], nodes[(j + 1) * nx + i + 1]);
                let want = (
                    lerp(lerp(p00.0, p10.0, fx), lerp(p01.0, p11.0, fx), fy),
                    lerp(lerp(p00.1, p10.1, fx), lerp(p01.1, p11.1, fx), fy),
                );
                let g = got[r * grid.width + c];
                assert_eq!((g.0.to_bits(), g.1.to_bits()), (want.0.to_bits(), want.1.to_bits()), "{r} {c}");
            }
        }
    }
}
