//! Where DEM rows come from and where results go.

use super::OutSample;
use crate::tiff::{GeoTiff, Pixel, TiffWriter};
use crate::{GeoTransform, Raster, Result, Window};
use serde::Serialize;

/// A single-band elevation source read by rows.
pub trait DemSource: Sync {
    fn width(&self) -> usize;
    fn height(&self) -> usize;
    fn geo_transform(&self) -> GeoTransform;
    fn epsg(&self) -> Option<u16>;
    fn nodata(&self) -> Option<f64>;
    /// Rows per stored chunk, so that blocks can align to them.
    fn block_height(&self) -> usize;
    /// Rows `y..y + n`, all columns, as `f32`.
    fn read_rows(&self, y: usize, n: usize) -> Result<Vec<f32>>;
    /// Rows per processing block: a multiple of the chunk height, about 32 MiB of samples.
    fn rows_per_block(&self) -> usize {
        let chunk = self.block_height().max(1);
        let target = ((32 << 20) / (self.width().max(1) * 4)).max(chunk).max(4);
        (target / chunk * chunk).max(chunk).min(self.height().max(1))
    }
}

impl DemSource for GeoTiff {
    fn width(&self) -> usize {
        GeoTiff::width(self)
    }
    fn height(&self) -> usize {
        GeoTiff::height(self)
    }
    fn geo_transform(&self) -> GeoTransform {
        GeoTiff::geo_transform(self)
    }
    fn epsg(&self) -> Option<u16> {
        GeoTiff::epsg(self)
    }
    fn nodata(&self) -> Option<f64> {
        GeoTiff::nodata(self)
    }
    fn block_height(&self) -> usize {
        self.image().chunk_height
    }
    fn read_rows(&self, y: usize, n: usize) -> Result<Vec<f32>> {
        let fill = self.nodata().unwrap_or(f64::NAN) as f32;
        self.read_window(0, 0, Window::new(0, y as i64, GeoTiff::width(self), n), fill)
    }
}

impl DemSource for Raster<f32> {
    fn width(&self) -> usize {
        self.width
    }
    fn height(&self) -> usize {
        self.height
    }
    fn geo_transform(&self) -> GeoTransform {
        self.geo_transform
    }
    fn epsg(&self) -> Option<u16> {
        self.epsg
    }
    fn nodata(&self) -> Option<f64> {
        self.nodata
    }
    fn block_height(&self) -> usize {
        256
    }
    fn read_rows(&self, y: usize, n: usize) -> Result<Vec<f32>> {
        Ok(self.data[y * self.width..(y + n) * self.width].to_vec())
    }
}

/// Receives output rows in order.
pub trait RowSink<T> {
    fn put_rows(&mut self, rows: &[T]) -> Result<()>;
}

impl<T: Copy> RowSink<T> for Vec<T> {
    fn put_rows(&mut self, rows: &[T]) -> Result<()> {
        self.extend_from_slice(rows);
        Ok(())
    }
}

impl<T: Pixel> RowSink<T> for TiffWriter {
    fn put_rows(&mut self, rows: &[T]) -> Result<()> {
        self.write_rows(rows)
    }
}

/// Statistics of an output's valid samples (nodata excluded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub count: u64,
    #[serde(skip)]
    sum: f64,
}

impl Stats {
    pub(crate) fn add<T: OutSample>(&mut self, values: &[T], nodata: T) {
        let nd = nodata.to_f64();
        // Locals rather than fields, so that the loop keeps them in registers; the sum is taken
        // in the same order as before, value by value.
        let (mut lo, mut hi) = if self.count == 0 { (f64::INFINITY, f64::NEG_INFINITY) } else { (self.min, self.max) };
        let (mut count, mut sum) = (self.count, self.sum);
        for v in values {
            let v = v.to_f64();
            if v == nd || v.is_nan() {
                continue;
            }
            lo = lo.min(v);
            hi = hi.max(v);
            count += 1;
            sum += v;
        }
        if count > 0 {
            (self.min, self.max) = (lo, hi);
        }
        (self.count, self.sum) = (count, sum);
        if self.count > 0 {
            self.mean = self.sum / self.count as f64;
        }
    }
}
