//! Band math over GeoTIFF bands: an [`Expression`] evaluated pixel by pixel over bands that share
//! one grid, into an in-memory raster ([`compute`]) or, for whole scenes, streamed strip by strip
//! into a Float32 Cloud Optimized GeoTIFF ([`compute_to_cog`]) with its [`Statistics`]; and PNG
//! previews of the result ([`preview_png`]).
//!
//! An output pixel is [`NODATA`] when any input pixel is its band's nodata or NaN, or when the
//! expression's value is not finite (a division by zero, the log of a negative number).

use crate::expr::Expression;
use meridian_raster::dem::{ColorRamp, ColorReliefOptions};
use meridian_raster::tiff::{
    write_cog_with_progress, CogOptions, Compression, GeoInfo, GeoTiff, TiffWriter, WriterOptions,
};
use meridian_raster::{Error, GeoTransform, Raster, Result, Window};
use rayon::prelude::*;
use serde::Serialize;
use std::path::Path;

/// The nodata value of every band-math output.
pub const NODATA: f32 = -9999.0;

/// Bins of [`Histogram`], as `numpy.histogram(bins=20)`.
pub const HISTOGRAM_BINS: usize = 20;

/// Tile edge of the COGs written, and the height of the strips they are computed in.
const TILE: usize = 512;

/// Pixels evaluated by one rayon task.
const TASK: usize = 64 * 1024;

/// One input: band `band` (0-based) of an open GeoTIFF.
#[derive(Clone, Copy, Debug)]
pub struct Band<'a> {
    /// The file.
    pub tiff: &'a GeoTiff,
    /// The band, 0-based.
    pub band: usize,
}

/// The pixel grid that all inputs of a computation share.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// The georeference of pixel (0, 0).
    pub geo_transform: GeoTransform,
    /// The CRS, when the files name one.
    pub epsg: Option<u16>,
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Checks that every band exists and that all share size, geotransform (within 1e-9 relative)
/// and EPSG code. The error names the two inputs that differ, by their index in `bands`, and how.
pub fn check_grid(bands: &[Band]) -> Result<Grid, String> {
    let Some(first) = bands.first() else { return Err("no input bands".into()) };
    for (i, b) in bands.iter().enumerate() {
        if b.band >= b.tiff.bands() {
            return Err(format!(
                "input {i} asks for band {} but its file has {} band{}",
                b.band + 1,
                b.tiff.bands(),
                if b.tiff.bands() == 1 { "" } else { "s" }
            ));
        }
    }
    let grid = Grid {
        width: first.tiff.width(),
        height: first.tiff.height(),
        geo_transform: first.tiff.geo_transform(),
        epsg: first.tiff.epsg(),
    };
    for (i, b) in bands.iter().enumerate().skip(1) {
        let t = b.tiff;
        if (t.width(), t.height()) != (grid.width, grid.height) {
            return Err(format!(
                "input {i} is {} × {} pixels but input 0 is {} × {}",
                t.width(),
                t.height(),
                grid.width,
                grid.height
            ));
        }
        let gt = t.geo_transform();
        if !gt.0.iter().zip(grid.geo_transform.0.iter()).all(|(a, b)| close(*a, *b)) {
            return Err(format!(
                "input {i} has the geotransform {:?} but input 0 has {:?}: the bands are not on the same grid",
                gt.0, grid.geo_transform.0
            ));
        }
        if t.epsg() != grid.epsg {
            let name = |e: Option<u16>| e.map_or("no CRS".to_owned(), |c| format!("EPSG:{c}"));
            return Err(format!("input {i} is in {} but input 0 is in {}", name(t.epsg()), name(grid.epsg)));
        }
    }
    Ok(grid)
}

/// The window of pixels that covers `bbox` (`[min_x, min_y, max_x, max_y]` in the grid's CRS),
/// clipped to the raster; `None` when the box is empty, not finite or outside the raster.
pub fn window_of_bbox(grid: &Grid, bbox: [f64; 4]) -> Option<Window> {
    let [x0, y0, x1, y1] = bbox;
    if !bbox.iter().all(|v| v.is_finite()) || x0 > x1 || y0 > y1 {
        return None;
    }
    let inv = grid.geo_transform.invert()?;
    let (mut c0, mut r0, mut c1, mut r1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for (x, y) in [(x0, y0), (x0, y1), (x1, y0), (x1, y1)] {
        let (c, r) = inv.apply(x, y);
        c0 = c0.min(c);
        c1 = c1.max(c);
        r0 = r0.min(r);
        r1 = r1.max(r);
    }
    // A hair of tolerance so that a box edge on a pixel edge does not take the next pixel.
    const EPS: f64 = 1e-9;
    let col0 = (c0 + EPS).floor().max(0.0);
    let row0 = (r0 + EPS).floor().max(0.0);
    let col1 = (c1 - EPS).ceil().min(grid.width as f64);
    let row1 = (r1 - EPS).ceil().min(grid.height as f64);
    if !(col1 > col0 && row1 > row0) {
        return None;
    }
    Some(Window::new(col0 as i64, row0 as i64, (col1 - col0) as usize, (row1 - row0) as usize))
}

/// The nodata of each input as `f32` (NaN when the file has none: NaN is invalid anyway).
fn input_nodata(bands: &[Band]) -> Vec<f32> {
    bands.iter().map(|b| b.tiff.nodata().map_or(f32::NAN, |v| v as f32)).collect()
}

/// Reads `window` of every band as `f32`; bands of the same file are read together, so each
/// chunk of an interleaved file is decoded once. Pixels outside the raster read as nodata.
fn read_inputs(bands: &[Band], window: Window, nodata: &[f32]) -> Result<Vec<Vec<f32>>> {
    let mut out: Vec<Option<Vec<f32>>> = vec![None; bands.len()];
    for i in 0..bands.len() {
        if out[i].is_some() {
            continue;
        }
        let same: Vec<usize> =
            (i..bands.len()).filter(|&j| out[j].is_none() && std::ptr::eq(bands[j].tiff, bands[i].tiff)).collect();
        let which: Vec<usize> = same.iter().map(|&j| bands[j].band).collect();
        let data = bands[i].tiff.read_window_bands::<f32>(0, &which, window, nodata[i])?;
        for (j, d) in same.into_iter().zip(data) {
            out[j] = Some(d);
        }
    }
    Ok(out.into_iter().map(Option::unwrap_or_default).collect())
}

/// Evaluates `expr` over `inputs` into `out` and masks: NaN results and pixels where any input
/// is its nodata (or NaN) become [`NODATA`]. Runs on rayon, a task per [`TASK`] pixels, and
/// returns the statistics of the values written.
fn evaluate(expr: &Expression, inputs: &[Vec<f32>], nodata: &[f32], out: &mut [f32]) -> Acc {
    out.par_chunks_mut(TASK)
        .enumerate()
        .map(|(k, o)| {
            let start = k * TASK;
            let slices: Vec<&[f32]> = inputs.iter().map(|v| &v[start..start + o.len()]).collect();
            expr.eval_slices(&slices, o);
            for v in o.iter_mut() {
                if v.is_nan() {
                    *v = NODATA;
                }
            }
            for (s, &nd) in slices.iter().zip(nodata) {
                for (v, &x) in o.iter_mut().zip(s.iter()) {
                    if x.is_nan() || x == nd {
                        *v = NODATA;
                    }
                }
            }
            Acc::of(o, NODATA)
        })
        .reduce(Acc::default, Acc::merge)
}

fn check_inputs(expr: &Expression, bands: &[Band]) -> Result<Grid> {
    if expr.variables().is_empty() {
        return Err(Error::InvalidArgument("the expression uses no band".into()));
    }
    if bands.len() != expr.variables().len() {
        return Err(Error::InvalidArgument(format!(
            "the expression uses {} band{} ({}) but {} were given",
            expr.variables().len(),
            if expr.variables().len() == 1 { "" } else { "s" },
            expr.variables().join(", "),
            bands.len()
        )));
    }
    check_grid(bands).map_err(Error::InvalidArgument)
}

/// Evaluates `expr` over `window` of `bands` (`bands[i]` is the band of `expr.variables()[i]`)
/// into memory. The raster has the window's georeference and nodata [`NODATA`].
pub fn compute(
    expr: &Expression,
    bands: &[Band],
    window: Window,
    interrupted: &(dyn Fn() -> bool + Sync),
) -> Result<Raster<f32>> {
    let grid = check_inputs(expr, bands)?;
    if interrupted() {
        return Err(Error::Cancelled);
    }
    let nodata = input_nodata(bands);
    let inputs = read_inputs(bands, window, &nodata)?;
    if interrupted() {
        return Err(Error::Cancelled);
    }
    let mut data = vec![NODATA; window.width * window.height];
    evaluate(expr, &inputs, &nodata, &mut data);
    Ok(Raster {
        width: window.width,
        height: window.height,
        data,
        geo_transform: grid.geo_transform.shifted(window.x as f64, window.y as f64),
        epsg: grid.epsg,
        nodata: Some(NODATA as f64),
    })
}

/// A 20-bin histogram of the valid values, as `numpy.histogram(values, bins=20)`: equal bins over
/// `[min, max]` (widened by 0.5 on each side when all values are equal), the last bin closed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Histogram {
    /// Lower edge of the first bin (NaN when there are no values).
    pub min: f64,
    /// Upper edge of the last bin (NaN when there are no values).
    pub max: f64,
    /// Values per bin.
    pub counts: Vec<u64>,
}

impl Histogram {
    fn new(min: f64, max: f64) -> Self {
        let (lo, hi) = if min == max { (min - 0.5, max + 0.5) } else { (min, max) };
        Histogram { min: lo, max: hi, counts: vec![0; HISTOGRAM_BINS] }
    }

    /// numpy's bin of `v`: a first guess from the scaled offset, corrected against the edges.
    #[inline]
    fn bin(&self, v: f64) -> Option<usize> {
        if !(v >= self.min && v <= self.max) {
            return None;
        }
        let n = HISTOGRAM_BINS;
        let span = self.max - self.min;
        let edge = |k: usize| if k == n { self.max } else { self.min + k as f64 * (span / n as f64) };
        let mut i = (((v - self.min) * (n as f64 / span)) as usize).min(n - 1);
        if v < edge(i) && i > 0 {
            i -= 1;
        } else if i + 1 < n && v >= edge(i + 1) {
            i += 1;
        }
        Some(i)
    }

    fn add(&mut self, values: &[f32], nodata: f32) {
        for &v in values {
            if v.is_nan() || v == nodata {
                continue;
            }
            if let Some(i) = self.bin(v as f64) {
                self.counts[i] += 1;
            }
        }
    }

    fn merge(mut self, other: Histogram) -> Histogram {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
        self
    }
}

/// Statistics of a band-math output over its valid pixels: population standard deviation
/// (numpy's `std` with `ddof=0`), means and deviations accumulated in `f64`. With no valid
/// pixel, `min`, `max`, `mean` and `std` are NaN (`null` in JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Statistics {
    /// Smallest valid value.
    pub min: f64,
    /// Largest valid value.
    pub max: f64,
    /// Mean of the valid values.
    pub mean: f64,
    /// Population standard deviation of the valid values.
    pub std: f64,
    /// Valid pixels.
    pub count: u64,
    /// Nodata pixels.
    pub nodata_count: u64,
    /// Distribution of the valid values.
    pub histogram: Histogram,
}

/// Running statistics: count, mean and sum of squared deviations, merged with Chan's formula so
/// that parallel partial sums stay accurate.
#[derive(Clone, Copy, Debug)]
struct Acc {
    n: u64,
    nodata: u64,
    min: f64,
    max: f64,
    mean: f64,
    m2: f64,
}

impl Default for Acc {
    fn default() -> Self {
        Acc { n: 0, nodata: 0, min: f64::INFINITY, max: f64::NEG_INFINITY, mean: 0.0, m2: 0.0 }
    }
}

impl Acc {
    fn of(values: &[f32], nodata: f32) -> Acc {
        values.chunks(1024).map(|c| Acc::of_chunk(c, nodata)).fold(Acc::default(), Acc::merge)
    }

    /// Two passes over a chunk that stays in cache: the sum, then the deviations from its mean.
    fn of_chunk(values: &[f32], nodata: f32) -> Acc {
        let mut a = Acc::default();
        let mut sum = 0.0f64;
        for &v in values {
            if v.is_nan() || v == nodata {
                a.nodata += 1;
                continue;
            }
            let v = v as f64;
            a.n += 1;
            sum += v;
            a.min = a.min.min(v);
            a.max = a.max.max(v);
        }
        if a.n == 0 {
            return a;
        }
        a.mean = sum / a.n as f64;
        for &v in values {
            if v.is_nan() || v == nodata {
                continue;
            }
            let d = v as f64 - a.mean;
            a.m2 += d * d;
        }
        a
    }

    fn merge(a: Acc, b: Acc) -> Acc {
        let n = a.n + b.n;
        let (mean, m2) = if n == 0 {
            (0.0, 0.0)
        } else {
            let d = b.mean - a.mean;
            let (na, nb, nn) = (a.n as f64, b.n as f64, n as f64);
            (a.mean + d * nb / nn, a.m2 + b.m2 + d * d * na * nb / nn)
        };
        Acc { n, nodata: a.nodata + b.nodata, min: a.min.min(b.min), max: a.max.max(b.max), mean, m2 }
    }

    fn statistics(&self, histogram: Histogram) -> Statistics {
        let valid = self.n > 0;
        let or_nan = |v: f64| if valid { v } else { f64::NAN };
        Statistics {
            min: or_nan(self.min),
            max: or_nan(self.max),
            mean: or_nan(self.mean),
            std: or_nan((self.m2 / self.n.max(1) as f64).max(0.0).sqrt()),
            count: self.n,
            nodata_count: self.nodata,
            histogram,
        }
    }

    fn empty_histogram(&self) -> Histogram {
        if self.n == 0 {
            Histogram { min: f64::NAN, max: f64::NAN, counts: vec![0; HISTOGRAM_BINS] }
        } else {
            Histogram::new(self.min, self.max)
        }
    }
}

/// Statistics of an in-memory raster; its `nodata` (if any) and NaN are not counted as values.
pub fn statistics(raster: &Raster<f32>) -> Statistics {
    let nd = raster.nodata.map_or(f32::NAN, |v| v as f32);
    let acc = raster.data.par_chunks(TASK).map(|c| Acc::of(c, nd)).reduce(Acc::default, Acc::merge);
    let empty = acc.empty_histogram();
    let histogram = if acc.n == 0 {
        empty
    } else {
        raster
            .data
            .par_chunks(TASK)
            .map(|c| {
                let mut h = empty.clone();
                h.add(c, nd);
                h
            })
            .reduce(|| empty.clone(), Histogram::merge)
    };
    acc.statistics(histogram)
}

/// Rows of inputs read and evaluated at a time: whole rows of the inputs' chunks, at least one
/// output tile high, so that no input chunk is decoded twice.
fn strip_rows(bands: &[Band]) -> usize {
    let chunk = bands.iter().map(|b| b.tiff.image().chunk_height).max().unwrap_or(TILE);
    if chunk <= 4 * TILE {
        chunk.div_ceil(TILE) * TILE
    } else {
        TILE
    }
}

/// Evaluates `expr` over `window` of `bands` into a Float32 Cloud Optimized GeoTIFF at `dst`
/// (512-pixel tiles, fast Deflate with the floating-point predictor, averaged overviews, nodata
/// [`NODATA`], the inputs' georeference) and returns the output's statistics.
///
/// Memory stays bounded by a few strips of rows whatever the raster's size: strips are read
/// (chunks decoded in parallel), evaluated on rayon and streamed into a temporary tiled GeoTIFF
/// next to `dst`, the next strip being read while the current one is evaluated and the previous
/// one written; the COG is then laid out from that file. `progress` hears the percentage done;
/// `interrupted` returning true stops the work with [`Error::Cancelled`].
pub fn compute_to_cog(
    expr: &Expression,
    bands: &[Band],
    window: Window,
    dst: &Path,
    interrupted: &(dyn Fn() -> bool + Sync),
    progress: &(dyn Fn(u8) + Sync),
) -> Result<Statistics> {
    let grid = check_inputs(expr, bands)?;
    if window.width == 0 || window.height == 0 {
        return Err(Error::InvalidArgument("the window is empty".into()));
    }
    let nodata = input_nodata(bands);
    let geo = bands[0]
        .tiff
        .geo()
        .map(|g| GeoInfo { geo_transform: grid.geo_transform.shifted(window.x as f64, window.y as f64), ..g.clone() });
    let dir = dst.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let plain = tempfile::Builder::new().prefix(".bandmath-").suffix(".tif").tempfile_in(dir)?;
    let writer_options = WriterOptions {
        tile_size: Some(TILE),
        compression: Compression::None,
        predictor: false,
        geo: geo.clone(),
        nodata: Some(NODATA as f64),
        ..WriterOptions::default()
    };
    let mut writer = TiffWriter::create::<f32>(plain.path(), window.width, window.height, 1, writer_options)?;
    let strip = strip_rows(bands);
    let (w, h) = (window.width, window.height);
    let strip_window = |y: usize| Window::new(window.x, window.y + y as i64, w, strip.min(h - y));

    // Reading the next strip, evaluating this one and writing the last overlap.
    let acc = std::thread::scope(|scope| -> Result<Acc> {
        let (to_writer, strips) = std::sync::mpsc::sync_channel::<Vec<f32>>(1);
        let writing = scope.spawn(move || -> Result<()> {
            for rows in strips {
                writer.write_rows(&rows)?;
            }
            writer.finish()
        });
        let nodata = &nodata;
        let mut acc = Acc::default();
        let mut reading = Some(scope.spawn(move || read_inputs(bands, strip_window(0), nodata)));
        let mut y = 0;
        let mut result = Ok(());
        while let Some(r) = reading.take() {
            let inputs = match r.join() {
                Ok(Ok(v)) => v,
                Ok(Err(e)) => {
                    result = Err(e);
                    break;
                }
                Err(_) => {
                    result = Err(Error::Io(std::io::Error::other("the strip reader stopped")));
                    break;
                }
            };
            let n = strip.min(h - y);
            let next = y + n;
            if interrupted() {
                result = Err(Error::Cancelled);
                break;
            }
            if next < h {
                reading = Some(scope.spawn(move || read_inputs(bands, strip_window(next), nodata)));
            }
            let mut out = vec![0.0f32; w * n];
            acc = Acc::merge(acc, evaluate(expr, &inputs, nodata, &mut out));
            drop(inputs);
            if to_writer.send(out).is_err() {
                break;
            }
            y = next;
            progress((y as f64 / h as f64 * 60.0) as u8);
        }
        drop(to_writer);
        if let Some(r) = reading {
            let _ = r.join();
        }
        let written = writing.join().unwrap_or_else(|_| Err(Error::Io(std::io::Error::other("the writer stopped"))));
        result?;
        written?;
        Ok(acc)
    })?;

    let plain_tiff = GeoTiff::open(plain.path())?;
    progress(60);
    // The fastest Deflate encoder: on float indices about six times faster than zlib level 1
    // (itself several times faster than level 6) for files about a fifth larger, and layout time
    // dominates band math on large scenes.
    let cog = CogOptions {
        tile_size: TILE,
        level: meridian_raster::tiff::FASTEST,
        predictor: true,
        overviews: true,
        average: true,
    };
    let report = |f: f64| {
        progress((60.0 + f * 39.0) as u8);
        !interrupted()
    };
    // The histogram needs the range, known only now: it reads the plain file back while the COG
    // is being laid out, filling the gaps the layout's sequential steps leave on the cores.
    let (histogram, written) = std::thread::scope(|scope| {
        let histogram = scope.spawn(|| {
            if acc.n == 0 {
                Ok(acc.empty_histogram())
            } else {
                histogram_of(&plain_tiff, &acc, interrupted)
            }
        });
        let written = write_cog_with_progress(&plain_tiff, dst, &cog, &report);
        let histogram =
            histogram.join().unwrap_or_else(|_| Err(Error::Io(std::io::Error::other("the histogram stopped"))));
        (histogram, written)
    });
    written?;
    let histogram = histogram?;
    drop(plain_tiff);
    plain.close()?;
    progress(100);
    Ok(acc.statistics(histogram))
}

/// The histogram of a written output, reading it back by strips.
fn histogram_of(tiff: &GeoTiff, acc: &Acc, interrupted: &(dyn Fn() -> bool + Sync)) -> Result<Histogram> {
    let empty = acc.empty_histogram();
    let mut total = empty.clone();
    let (w, h) = (tiff.width(), tiff.height());
    let rows = tiff.image().chunk_height.max(1);
    let mut y = 0;
    while y < h {
        if interrupted() {
            return Err(Error::Cancelled);
        }
        let n = rows.min(h - y);
        let values = tiff.read_window::<f32>(0, 0, Window::new(0, y as i64, w, n), NODATA)?;
        let part = values
            .par_chunks(TASK)
            .map(|c| {
                let mut hg = empty.clone();
                hg.add(c, NODATA);
                hg
            })
            .reduce(|| empty.clone(), Histogram::merge);
        total = total.merge(part);
        y += n;
    }
    Ok(total)
}

/// A PNG preview of a single-band raster (typically a band-math COG): the largest image level
/// (full resolution or overview) that fits `max_size` pixels on its longer side, or the smallest
/// level resampled (nearest) to fit; values coloured with `ramp` stretched over `range`
/// (values outside take the end colours); nodata and NaN transparent.
pub fn preview_png(cog: &GeoTiff, ramp: ColorRamp, range: (f64, f64), max_size: usize) -> Result<Vec<u8>> {
    let (lo, hi) = range;
    if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
        return Err(Error::InvalidArgument(format!("invalid range [{lo}, {hi}]")));
    }
    if max_size == 0 {
        return Err(Error::InvalidArgument("max_size must be positive".into()));
    }
    let images = cog.images();
    let level = images.iter().position(|im| im.width.max(im.height) <= max_size).unwrap_or(images.len() - 1);
    let im = &images[level];
    let (iw, ih) = (im.width, im.height);
    let data = cog.read_window::<f32>(level, 0, Window::new(0, 0, iw, ih), f32::NAN)?;
    let scale = (max_size as f64 / iw.max(ih) as f64).min(1.0);
    let ow = ((iw as f64 * scale).round() as usize).clamp(1, max_size);
    let oh = ((ih as f64 * scale).round() as usize).clamp(1, max_size);
    let lut = ColorReliefOptions { ramp: Some(ramp), ..ColorReliefOptions::default() }.samples(lo, hi, 256);
    let nd = cog.nodata().map(|v| v as f32);
    let mut rgba = vec![0u8; ow * oh * 4];
    rgba.par_chunks_mut(ow * 4).enumerate().for_each(|(r, row)| {
        let sr = (r * ih / oh).min(ih - 1);
        for (c, px) in row.chunks_exact_mut(4).enumerate() {
            let sc = (c * iw / ow).min(iw - 1);
            let v = data[sr * iw + sc];
            if v.is_nan() || nd == Some(v) {
                continue;
            }
            let t = if hi > lo { ((v as f64 - lo) / (hi - lo)).clamp(0.0, 1.0) } else { 0.5 };
            let k = (t * 255.0).round() as usize;
            if let Some((_, color)) = lut.get(k) {
                px.copy_from_slice(color);
            }
        }
    });
    meridian_raster::tile::encode_png(&rgba, ow as u32, oh as u32)
}
