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
    let mut out = vec![(f64::NAN, f64::NAN); grid.width * grid.height];
    out.par_chunks_mut(grid.width).enumerate().for_each(|(r, row)| {
        let rc = r as f64 + 0.5;
        let j = (r / step).min(ny - 2);
        let (r0, r1) = (node_row(j), node_row(j + 1));
        let fy = if r1 > r0 { (rc - r0) / (r1 - r0) } else { 0.0 };
        for (c, o) in row.iter_mut().enumerate() {
            let cc = c as f64 + 0.5;
            let i = (c / step).min(nx - 2);
            let (c0, c1) = (node_col(i), node_col(i + 1));
            let fx = if c1 > c0 { (cc - c0) / (c1 - c0) } else { 0.0 };
            let p00 = nodes[j * nx + i];
            let p10 = nodes[j * nx + i + 1];
            let p01 = nodes[(j + 1) * nx + i];
            let p11 = nodes[(j + 1) * nx + i + 1];
            let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
            *o = (
                lerp(lerp(p00.0, p10.0, fx), lerp(p01.0, p11.0, fx), fy),
                lerp(lerp(p00.1, p10.1, fx), lerp(p01.1, p11.1, fx), fy),
            );
        }
    });
    Ok(out)
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
            Resampling::Nearest => self.at(px.floor() as i64, py.floor() as i64),
            Resampling::Bilinear => self.bilinear(px, py),
            Resampling::Cubic => self.cubic(px, py).or_else(|| self.bilinear(px, py)),
        }
    }

    fn bilinear(&self, px: f64, py: f64) -> Option<f32> {
        // The nearest pixel must hold data, so that nodata edges stay where they are.
        self.at(px.floor() as i64, py.floor() as i64)?;
        let u = px - 0.5;
        let v = py - 0.5;
        let (i0, j0) = (u.floor() as i64, v.floor() as i64);
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
        return Ok(None);
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
    let win = Window::new(x0, y0, (x1 - x0).max(1) as usize, (y1 - y0).max(1) as usize);
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
