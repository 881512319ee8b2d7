//! Shared value types: sample types, geotransforms, windows and in-memory rasters.

use serde::{Deserialize, Serialize};

/// The sample type of a band, as TIFF stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DataType {
    UInt8,
    Int8,
    UInt16,
    Int16,
    UInt32,
    Int32,
    Float32,
    Float64,
}

impl DataType {
    /// Bytes per sample.
    pub fn size(self) -> usize {
        match self {
            Self::UInt8 | Self::Int8 => 1,
            Self::UInt16 | Self::Int16 => 2,
            Self::UInt32 | Self::Int32 | Self::Float32 => 4,
            Self::Float64 => 8,
        }
    }

    /// TIFF `SampleFormat`: 1 unsigned, 2 signed, 3 IEEE float.
    pub fn sample_format(self) -> u16 {
        match self {
            Self::UInt8 | Self::UInt16 | Self::UInt32 => 1,
            Self::Int8 | Self::Int16 | Self::Int32 => 2,
            Self::Float32 | Self::Float64 => 3,
        }
    }

    /// The type from TIFF `BitsPerSample` and `SampleFormat`.
    pub fn from_tiff(bits: u16, format: u16) -> Option<Self> {
        Some(match (bits, format) {
            (8, 1) => Self::UInt8,
            (8, 2) => Self::Int8,
            (16, 1) => Self::UInt16,
            (16, 2) => Self::Int16,
            (32, 1) => Self::UInt32,
            (32, 2) => Self::Int32,
            (32, 3) => Self::Float32,
            (64, 3) => Self::Float64,
            _ => return None,
        })
    }

    /// Whether the type holds floating-point samples.
    pub fn is_float(self) -> bool {
        matches!(self, Self::Float32 | Self::Float64)
    }
}

/// An affine georeference in GDAL's order: `x = gt[0] + col * gt[1] + row * gt[2]`,
/// `y = gt[3] + col * gt[4] + row * gt[5]`, for the top-left corner of pixel (col, row).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GeoTransform(pub [f64; 6]);

impl GeoTransform {
    /// A north-up transform from the top-left corner and the pixel size.
    pub fn north_up(origin_x: f64, origin_y: f64, res_x: f64, res_y: f64) -> Self {
        Self([origin_x, res_x, 0.0, origin_y, 0.0, -res_y.abs()])
    }

    /// World coordinates of a (fractional) pixel position.
    pub fn apply(&self, col: f64, row: f64) -> (f64, f64) {
        let g = &self.0;
        (g[0] + col * g[1] + row * g[2], g[3] + col * g[4] + row * g[5])
    }

    /// The pixel position of world coordinates; `None` when the transform is degenerate.
    pub fn invert(&self) -> Option<GeoTransform> {
        let g = &self.0;
        let det = g[1] * g[5] - g[2] * g[4];
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        let inv_det = 1.0 / det;
        let a = g[5] * inv_det;
        let b = -g[2] * inv_det;
        let d = -g[4] * inv_det;
        let e = g[1] * inv_det;
        Some(GeoTransform([-(a * g[0] + b * g[3]), a, b, -(d * g[0] + e * g[3]), d, e]))
    }

    /// Whether the raster has no rotation terms.
    pub fn is_north_up(&self) -> bool {
        self.0[2] == 0.0 && self.0[4] == 0.0
    }

    /// The transform of a window starting at (col, row).
    pub fn shifted(&self, col: f64, row: f64) -> Self {
        let (x, y) = self.apply(col, row);
        let g = self.0;
        Self([x, g[1], g[2], y, g[4], g[5]])
    }

    /// The transform after scaling the pixel size by `fx`, `fy` (for overviews).
    pub fn scaled(&self, fx: f64, fy: f64) -> Self {
        let g = self.0;
        Self([g[0], g[1] * fx, g[2] * fy, g[3], g[4] * fx, g[5] * fy])
    }
}

/// A rectangle of pixels: columns `x..x + width`, rows `y..y + height`. May reach outside the
/// raster; reads fill such pixels with a fill value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub x: i64,
    pub y: i64,
    pub width: usize,
    pub height: usize,
}

impl Window {
    /// A window.
    pub fn new(x: i64, y: i64, width: usize, height: usize) -> Self {
        Self { x, y, width, height }
    }
}

/// A single-band raster held in memory, with its georeference.
#[derive(Clone, Debug, PartialEq)]
pub struct Raster<T> {
    pub width: usize,
    pub height: usize,
    pub data: Vec<T>,
    pub geo_transform: GeoTransform,
    pub epsg: Option<u16>,
    pub nodata: Option<f64>,
}

impl<T: Copy> Raster<T> {
    /// The sample at (col, row).
    pub fn get(&self, col: usize, row: usize) -> T {
        self.data[row * self.width + col]
    }
}
