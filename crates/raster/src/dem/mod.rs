//! DEM algorithms that follow `gdaldem` in method: hillshade (Horn and Zevenbergen–Thorne,
//! combined, multidirectional), slope, aspect, TRI (Riley and Wilson), TPI, roughness,
//! color relief, and `gdal_contour`-style contour lines.
//!
//! The 3×3 operations stream: rows are read in blocks aligned to the source's chunks, each
//! block keeps the two rows before it as its one-pixel buffer, output rows are computed in
//! parallel on rayon and handed to a sink (a [`TiffWriter`](crate::tiff::TiffWriter) or memory).
//! Edge and nodata handling is gdaldem's: without `compute_edges` the outer ring and any window
//! touching nodata are nodata; with it, missing neighbours are extrapolated (`2a − b`) and nodata
//! neighbours take the centre value.

mod color;
mod contour;
mod kernels;
mod source;

pub use color::{ColorMode, ColorRamp, ColorReliefOptions, ColorStop, StopValue};
pub use contour::{contours, contours_with_progress, to_geojson, write_flatgeobuf, ContourLine, ContourOptions};
pub use kernels::{AspectOptions, GradientAlg, HillshadeOptions, SlopeFormat, SlopeOptions, TriAlg};
pub use source::{DemSource, RowSink, Stats};

use crate::tiff::{GeoTiff, TiffWriter, WriterOptions};
use crate::{Error, Raster, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One DEM operation with its options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Operation {
    Hillshade(HillshadeOptions),
    Slope(SlopeOptions),
    Aspect(AspectOptions),
    ColorRelief(ColorReliefOptions),
    Tri(TriOptions),
    Tpi(EdgeOptions),
    Roughness(EdgeOptions),
}

/// Options shared by TPI and roughness.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EdgeOptions {
    pub compute_edges: bool,
}

/// Options of TRI.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TriOptions {
    pub algorithm: TriAlg,
    pub compute_edges: bool,
}

/// gdaldem's nodata for Float32 outputs.
pub const FLOAT_NODATA: f32 = -9999.0;

/// The sample type an operation produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// One Byte band, nodata 0 (hillshade).
    Byte,
    /// One Float32 band, nodata -9999.
    Float32,
    /// RGB or RGBA Byte bands (color relief).
    Rgba { bands: usize },
}

impl Operation {
    /// The operation's name, as in `gdaldem`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Hillshade(_) => "hillshade",
            Self::Slope(_) => "slope",
            Self::Aspect(_) => "aspect",
            Self::ColorRelief(_) => "color-relief",
            Self::Tri(_) => "tri",
            Self::Tpi(_) => "tpi",
            Self::Roughness(_) => "roughness",
        }
    }

    /// What the operation produces.
    pub fn output_kind(&self) -> OutputKind {
        match self {
            Self::Hillshade(_) => OutputKind::Byte,
            Self::ColorRelief(o) => OutputKind::Rgba { bands: if o.alpha { 4 } else { 3 } },
            _ => OutputKind::Float32,
        }
    }

    /// The nodata value of the output band: 0 for hillshade, -9999 for the Float32 outputs,
    /// none for color relief and for aspect with `zero_for_flat` (gdaldem writes 0 at its edges).
    pub fn output_nodata(&self) -> Option<f64> {
        match self {
            Self::Hillshade(_) => Some(0.0),
            Self::ColorRelief(_) => None,
            Self::Aspect(o) if o.zero_for_flat => None,
            _ => Some(FLOAT_NODATA as f64),
        }
    }

    /// Checks option ranges; errors name the offending option.
    pub fn validate(&self) -> Result<()> {
        match self {
            Self::Hillshade(o) => o.validate(),
            Self::Slope(o) => o.validate(),
            Self::ColorRelief(o) => o.validate(),
            _ => Ok(()),
        }
    }
}

/// Output layout of [`run_to_file`].
#[derive(Clone, Debug)]
pub struct FileOutput {
    pub writer: WriterOptions,
}

impl Default for FileOutput {
    fn default() -> Self {
        Self { writer: WriterOptions { predictor: true, ..WriterOptions::default() } }
    }
}

/// Runs `op` on band 1 of `src`, streaming the result into a GeoTIFF at `dst`. `progress` gets
/// the fraction done after each block and returns false to cancel.
pub fn run_to_file(
    op: &Operation,
    src: &GeoTiff,
    dst: impl AsRef<Path>,
    out: &FileOutput,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<Stats> {
    op.validate()?;
    let mut wo = out.writer.clone();
    wo.geo = src.geo().cloned();
    let (w, h) = (src.width(), src.height());
    match op.output_kind() {
        OutputKind::Byte => {
            wo.nodata = Some(0.0);
            let mut sink = TiffWriter::create::<u8>(dst, w, h, 1, wo)?;
            let stats = run_into::<_, u8, _>(op, src, &mut sink, progress)?;
            sink.finish()?;
            Ok(stats)
        }
        OutputKind::Float32 => {
            wo.nodata = op.output_nodata();
            let mut sink = TiffWriter::create::<f32>(dst, w, h, 1, wo)?;
            let stats = run_into::<_, f32, _>(op, src, &mut sink, progress)?;
            sink.finish()?;
            Ok(stats)
        }
        OutputKind::Rgba { bands } => {
            wo.nodata = None;
            let mut sink = TiffWriter::create::<u8>(dst, w, h, bands, wo)?;
            let stats = run_into::<_, u8, _>(op, src, &mut sink, progress)?;
            sink.finish()?;
            Ok(stats)
        }
    }
}

/// The in-memory result of an operation.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    Byte(Raster<u8>),
    Float32(Raster<f32>),
    /// Bands interleaved; `bands` is 3 or 4.
    Rgba {
        raster: Raster<u8>,
        bands: usize,
    },
}

/// Runs `op` on a source and keeps the result in memory.
pub fn run_to_raster<S: DemSource>(op: &Operation, src: &S) -> Result<(Output, Stats)> {
    op.validate()?;
    let (w, h) = (src.width(), src.height());
    fn make<T, S: DemSource>(src: &S, data: Vec<T>, nodata: Option<f64>) -> Raster<T> {
        Raster {
            width: src.width(),
            height: src.height(),
            data,
            geo_transform: src.geo_transform(),
            epsg: src.epsg(),
            nodata,
        }
    }
    let ok = &|_: f64| true;
    Ok(match op.output_kind() {
        OutputKind::Byte => {
            let mut v: Vec<u8> = Vec::with_capacity(w * h);
            let s = run_into(op, src, &mut v, ok)?;
            (Output::Byte(make(src, v, Some(0.0))), s)
        }
        OutputKind::Float32 => {
            let mut v: Vec<f32> = Vec::with_capacity(w * h);
            let s = run_into(op, src, &mut v, ok)?;
            (Output::Float32(make(src, v, op.output_nodata())), s)
        }
        OutputKind::Rgba { bands } => {
            let mut v: Vec<u8> = Vec::with_capacity(w * h * bands);
            let s = run_into(op, src, &mut v, ok)?;
            (Output::Rgba { raster: make(src, v, None), bands }, s)
        }
    })
}

/// The sample types operations write.
pub trait OutSample: Copy + Send + Sync + Default + 'static {
    /// From the kernel's float result, rounding as GDAL does when writing Byte bands.
    fn from_kernel(v: f32) -> Self;
    /// From a colour component.
    fn from_byte(v: u8) -> Self;
    fn to_f64(self) -> f64;
}

impl OutSample for u8 {
    #[inline]
    fn from_kernel(v: f32) -> Self {
        if v.is_nan() {
            0
        } else {
            (v + 0.5).clamp(0.0, 255.0) as u8
        }
    }
    #[inline]
    fn from_byte(v: u8) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl OutSample for f32 {
    #[inline]
    fn from_kernel(v: f32) -> Self {
        v
    }
    #[inline]
    fn from_byte(v: u8) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

/// Runs `op` into any row sink whose sample type fits the operation.
pub fn run_into<S: DemSource, T: OutSample, K: RowSink<T> + Send>(
    op: &Operation,
    src: &S,
    sink: &mut K,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<Stats> {
    let gt = src.geo_transform();
    let (ewres, nsres) = (gt.0[1], gt.0[5]);
    match op {
        Operation::Hillshade(o) => {
            let k = kernels::Hillshade::new(o, ewres, nsres);
            let nd = 0.0;
            match (o.algorithm, o.multidirectional, o.combined) {
                (GradientAlg::Horn, true, _) => {
                    process3x3(src, sink, nd, o.compute_edges, progress, |w| k.multi::<false>(w))
                }
                (GradientAlg::ZevenbergenThorne, true, _) => {
                    process3x3(src, sink, nd, o.compute_edges, progress, |w| k.multi::<true>(w))
                }
                (GradientAlg::Horn, false, true) => {
                    process3x3(src, sink, nd, o.compute_edges, progress, |w| k.combined::<false>(w))
                }
                (GradientAlg::ZevenbergenThorne, false, true) => {
                    process3x3(src, sink, nd, o.compute_edges, progress, |w| k.combined::<true>(w))
                }
                (GradientAlg::Horn, false, false) => {
                    process3x3(src, sink, nd, o.compute_edges, progress, |w| k.standard::<false>(w))
                }
                (GradientAlg::ZevenbergenThorne, false, false) => {
                    process3x3(src, sink, nd, o.compute_edges, progress, |w| k.standard::<true>(w))
                }
            }
        }
        Operation::Slope(o) => {
            let k = kernels::Slope::new(o, ewres, nsres);
            match o.algorithm {
                GradientAlg::Horn => process3x3(src, sink, FLOAT_NODATA, o.compute_edges, progress, |w| k.horn(w)),
                GradientAlg::ZevenbergenThorne => {
                    process3x3(src, sink, FLOAT_NODATA, o.compute_edges, progress, |w| k.zt(w))
                }
            }
        }
        Operation::Aspect(o) => {
            let k = kernels::Aspect::new(o);
            let nd = if o.zero_for_flat { 0.0 } else { FLOAT_NODATA };
            match o.algorithm {
                GradientAlg::Horn => process3x3(src, sink, nd, o.compute_edges, progress, |w| k.horn(w)),
                GradientAlg::ZevenbergenThorne => process3x3(src, sink, nd, o.compute_edges, progress, |w| k.zt(w)),
            }
        }
        Operation::Tri(o) => match o.algorithm {
            TriAlg::Riley => process3x3(src, sink, FLOAT_NODATA, o.compute_edges, progress, kernels::tri_riley),
            TriAlg::Wilson => process3x3(src, sink, FLOAT_NODATA, o.compute_edges, progress, kernels::tri_wilson),
        },
        Operation::Tpi(o) => process3x3(src, sink, FLOAT_NODATA, o.compute_edges, progress, kernels::tpi),
        Operation::Roughness(o) => process3x3(src, sink, FLOAT_NODATA, o.compute_edges, progress, kernels::roughness),
        Operation::ColorRelief(o) => color::process(o, src, sink, progress),
    }
}

/// The lowest and highest valid value of band 1 (nodata and NaN left out), read block by block;
/// `None` when there is none. `progress` gets the fraction read and returns false to cancel.
pub fn value_range<S: DemSource>(src: &S, progress: &dyn Fn(f64) -> bool) -> Result<Option<(f64, f64)>> {
    let nd = src.nodata().map(|v| v as f32);
    let (h, block) = (src.height(), block_rows(src));
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    let mut y = 0;
    while y < h {
        let n = block.min(h - y);
        for v in src.read_rows(y, n)? {
            if !v.is_nan() && !is_nd(v, nd) {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        y += n;
        if !progress(y as f64 / h as f64) {
            return Err(Error::Cancelled);
        }
    }
    Ok((lo <= hi).then_some((lo as f64, hi as f64)))
}

fn block_rows<S: DemSource>(src: &S) -> usize {
    src.rows_per_block().max(2)
}

fn is_nd(v: f32, nd: Option<f32>) -> bool {
    match nd {
        Some(n) if n.is_nan() => v.is_nan(),
        Some(n) => v == n,
        None => false,
    }
}

/// Whether a row holds the nodata value `n` (NaN matches NaN).
#[inline]
fn has_nd(row: &[f32], n: f32) -> bool {
    if n.is_nan() {
        row.iter().any(|v| v.is_nan())
    } else {
        row.contains(&n)
    }
}

/// gdaldem's edge extrapolation: `2a − b`, or nodata if either side is nodata.
#[inline]
fn interpol(a: f32, b: f32, nd: Option<f32>) -> f32 {
    if let Some(n) = nd {
        if is_nd(a, Some(n)) || is_nd(b, Some(n)) {
            return n;
        }
    }
    2.0 * a - b
}

/// Streams `src` in blocks of rows through `compute` into `sink`: reading the next block,
/// computing this one and writing the previous one overlap, so the decoder, the kernels and the
/// writer keep every core busy. `compute` gets each block's rows (and whether it is the last) and
/// returns the output rows it can now give and how many output rows are done in all. The writer
/// adds the outputs to the statistics, skipping `stats_nodata`, unless that is `None`.
fn pipeline<S, T, K>(
    src: &S,
    sink: &mut K,
    stats_nodata: Option<T>,
    progress: &(dyn Fn(f64) -> bool + Sync),
    mut compute: impl FnMut(Vec<f32>, bool) -> (Vec<T>, usize),
) -> Result<Stats>
where
    S: DemSource,
    T: OutSample,
    K: RowSink<T> + Send,
{
    let h = src.height();
    let block = block_rows(src);
    if h > 0 && block >= h {
        // One block (a map tile, a small raster): nothing to overlap, so no threads to start.
        let (out, done) = compute(src.read_rows(0, h)?, true);
        let mut stats = Stats::default();
        if let Some(nd) = stats_nodata {
            stats.add(&out, nd);
        }
        sink.put_rows(&out)?;
        if !progress(done as f64 / h as f64) {
            return Err(Error::Cancelled);
        }
        return Ok(stats);
    }
    std::thread::scope(|scope| -> Result<Stats> {
        // The writer: takes finished blocks in order, adds them to the statistics and writes them.
        let (to_writer, blocks) = std::sync::mpsc::sync_channel::<Vec<T>>(1);
        let writer = scope.spawn(move || -> Result<Stats> {
            let mut stats = Stats::default();
            for out in blocks {
                if let Some(nd) = stats_nodata {
                    stats.add(&out, nd);
                }
                sink.put_rows(&out)?;
            }
            Ok(stats)
        });
        let mut y = 0;
        let first = block.min(h);
        let mut reading = (h > 0).then(|| scope.spawn(move || src.read_rows(0, first)));
        let mut result = Ok(());
        while let Some(r) = reading.take() {
            let n = block.min(h - y);
            let rows = match r.join() {
                Ok(Ok(rows)) => rows,
                Ok(Err(e)) => {
                    result = Err(e);
                    break;
                }
                Err(_) => {
                    result = Err(Error::Io(std::io::Error::other("the block reader stopped")));
                    break;
                }
            };
            y += n;
            if y < h {
                let (next, m) = (y, block.min(h - y));
                reading = Some(scope.spawn(move || src.read_rows(next, m)));
            }
            let (out, done) = compute(rows, y == h);
            if to_writer.send(out).is_err() {
                break; // the writer failed; its error is reported below
            }
            if !progress(done as f64 / h as f64) {
                result = Err(Error::Cancelled);
                break;
            }
        }
        drop(to_writer);
        if let Some(r) = reading {
            let _ = r.join();
        }
        let stats = writer.join().map_err(|_| Error::Io(std::io::Error::other("the block writer stopped")))??;
        result.map(|()| stats)
    })
}

/// The generic 3×3 driver (gdaldem's `GDALGeneric3x3Processing`), streaming by blocks through
/// [`pipeline`]: each block keeps the row before it, and an output row is computed (on rayon)
/// once the row after it has been read.
fn process3x3<S, T, K, F>(
    src: &S,
    sink: &mut K,
    dst_nodata: f32,
    compute_edges: bool,
    progress: &(dyn Fn(f64) -> bool + Sync),
    f: F,
) -> Result<Stats>
where
    S: DemSource,
    T: OutSample,
    K: RowSink<T> + Send,
    F: Fn(&[f32; 9]) -> f32 + Sync,
{
    let (w, h) = (src.width(), src.height());
    let nd = src.nodata().map(|v| v as f32);
    let mut buf: Vec<f32> = Vec::new();
    let mut buf_start = 0usize;
    let mut next_out = 0usize;
    pipeline(src, sink, Some(T::from_kernel(dst_nodata)), progress, |rows, last| {
        buf.extend_from_slice(&rows);
        let read_to = buf_start + buf.len() / w;
        let out_end = if last { h } else { read_to - 1 };
        let mut out = vec![T::default(); (out_end - next_out) * w];
        let buf_ref = &buf;
        let row = |i: usize| -> Option<&[f32]> {
            if i < buf_start || i >= read_to {
                None
            } else {
                Some(&buf_ref[(i - buf_start) * w..(i - buf_start + 1) * w])
            }
        };
        out.par_chunks_mut(w).enumerate().for_each(|(k, o)| {
            let i = next_out + k;
            let up = if i == 0 { None } else { row(i - 1) };
            let down = if i + 1 >= h { None } else { row(i + 1) };
            let mid = row(i).unwrap_or(&[]);
            eval_row(up, mid, down, o, nd, dst_nodata, compute_edges, &f);
        });
        next_out = out_end;
        // Keep the rows the next output row needs: next_out - 1 and on.
        let keep_from = next_out.saturating_sub(1).max(buf_start);
        buf.drain(..(keep_from - buf_start) * w);
        buf_start = keep_from;
        (out, next_out)
    })
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn eval_row<T: OutSample, F: Fn(&[f32; 9]) -> f32>(
    up: Option<&[f32]>,
    mid: &[f32],
    down: Option<&[f32]>,
    out: &mut [T],
    nd: Option<f32>,
    dst_nodata: f32,
    compute_edges: bool,
    f: &F,
) {
    let w = mid.len();
    let dst = T::from_kernel(dst_nodata);
    let compute = |win: &mut [f32; 9]| -> T {
        if let Some(n) = nd {
            if is_nd(win[4], Some(n)) {
                return dst;
            }
            for k in 0..9 {
                if is_nd(win[k], Some(n)) {
                    if compute_edges {
                        win[k] = win[4];
                    } else {
                        return dst;
                    }
                }
            }
        }
        T::from_kernel(f(win))
    };
    match (up, down) {
        (Some(u), Some(d)) => {
            if w < 2 {
                out.fill(dst);
                return;
            }
            let clean = nd.is_none_or(|n| !(has_nd(u, n) || has_nd(mid, n) || has_nd(d, n)));
            let windows = u.windows(3).zip(mid.windows(3)).zip(d.windows(3)).zip(&mut out[1..w - 1]);
            if clean {
                // No nodata anywhere in the three rows: no checks per window.
                for (((a, b), c), o) in windows {
                    *o = T::from_kernel(f(&[a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2]]));
                }
            } else {
                for (((a, b), c), o) in windows {
                    *o = compute(&mut [a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2]]);
                }
            }
            if compute_edges {
                let j = 0;
                let mut win = [
                    interpol(u[j], u[j + 1], nd),
                    u[j],
                    u[j + 1],
                    interpol(mid[j], mid[j + 1], nd),
                    mid[j],
                    mid[j + 1],
                    interpol(d[j], d[j + 1], nd),
                    d[j],
                    d[j + 1],
                ];
                out[j] = compute(&mut win);
                let j = w - 1;
                let mut win = [
                    u[j - 1],
                    u[j],
                    interpol(u[j], u[j - 1], nd),
                    mid[j - 1],
                    mid[j],
                    interpol(mid[j], mid[j - 1], nd),
                    d[j - 1],
                    d[j],
                    interpol(d[j], d[j - 1], nd),
                ];
                out[j] = compute(&mut win);
            } else {
                out[0] = dst;
                out[w - 1] = dst;
            }
        }
        (None, Some(d)) if compute_edges && w >= 2 => {
            for j in 0..w {
                let jmin = if j == 0 { j } else { j - 1 };
                let jmax = if j == w - 1 { j } else { j + 1 };
                let mut win = [
                    interpol(mid[jmin], d[jmin], nd),
                    interpol(mid[j], d[j], nd),
                    interpol(mid[jmax], d[jmax], nd),
                    mid[jmin],
                    mid[j],
                    mid[jmax],
                    d[jmin],
                    d[j],
                    d[jmax],
                ];
                out[j] = compute(&mut win);
            }
        }
        (Some(u), None) if compute_edges && w >= 2 => {
            for j in 0..w {
                let jmin = if j == 0 { j } else { j - 1 };
                let jmax = if j == w - 1 { j } else { j + 1 };
                let mut win = [
                    u[jmin],
                    u[j],
                    u[jmax],
                    mid[jmin],
                    mid[j],
                    mid[jmax],
                    interpol(mid[jmin], u[jmin], nd),
                    interpol(mid[j], u[j], nd),
                    interpol(mid[jmax], u[jmax], nd),
                ];
                out[j] = compute(&mut win);
            }
        }
        _ => out.fill(dst),
    }
}

/// Reads a DEM file's first band as an in-memory source.
pub fn read_dem(path: impl AsRef<Path>) -> Result<Raster<f32>> {
    GeoTiff::open(path)?.read_band::<f32>(0)
}
