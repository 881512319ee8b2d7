//! What indexing finds in a LAS/LAZ file in one streaming pass, never holding the points: the
//! bounds the points really have, classification and return histograms, intensity range, GPS
//! time span, and the density over the cells the points occupy.

use crate::crs::{self, Crs};
use crate::reader::{check_header, Limits, PointCloudInfo, ReadError};
use las::{PointDataBuilder, Reader, ReaderOptions};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// The grid density is measured on has at most this many cells.
const DENSITY_CELLS: f64 = 4_000_000.0;

/// What one pass over the points found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Points in the file.
    pub points: u64,
    /// LAS version, e.g. `1.4`.
    pub las_version: String,
    pub point_format: u8,
    pub compressed: bool,
    pub record_length: u16,
    pub scale: [f64; 3],
    pub offset: [f64; 3],
    /// Bounds of the points (min x, min y, min z, max x, max y, max z) in the file's CRS.
    pub bounds: [f64; 6],
    /// The CRS the file declares, if any.
    pub crs: Option<Crs>,
    /// Points per class code (codes as text, as JSON objects need).
    pub classification: BTreeMap<String, u64>,
    /// Points per return number.
    pub return_numbers: BTreeMap<String, u64>,
    /// Points per number of returns of their pulse.
    pub number_of_returns: BTreeMap<String, u64>,
    /// Single (only), first of several, intermediate and last of several returns.
    pub returns: ReturnKinds,
    /// Smallest and largest intensity.
    pub intensity: [u16; 2],
    /// Earliest and latest GPS time, when the format records it.
    pub gps_time: Option<[f64; 2]>,
    /// Points per square metre (per square CRS unit) over the occupied cells of a grid.
    pub density: f64,
    /// The side of the grid cells density was measured on.
    pub density_cell: f64,
    /// Whether the points carry RGB colour, NIR, extra bytes.
    pub has_color: bool,
    pub has_nir: bool,
    pub extra_bytes: u16,
    /// VLRs and extended VLRs in the file.
    pub vlrs: usize,
    pub evlrs: usize,
}

/// Points by the kind of return they are.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnKinds {
    pub only: u64,
    pub first: u64,
    pub intermediate: u64,
    pub last: u64,
}

/// Errors of summarising.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("the file declares {declared} points but holds {found}")]
    Count { declared: u64, found: u64 },
    #[error("cancelled")]
    Cancelled,
}

/// Reads every point of a LAS/LAZ file once, under `limits`. `progress(fraction)` is called now
/// and then; when it answers false the pass stops with [`SummaryError::Cancelled`].
pub fn summarize(
    path: &Path,
    limits: Limits,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<Summary, SummaryError> {
    let file = BufReader::new(File::open(path).map_err(ReadError::Io)?);
    summarize_from(file, limits, progress)
}

/// [`summarize`] over any seekable source (a file held in memory, a blob read with ranges).
pub fn summarize_from<R>(
    mut read: R,
    limits: Limits,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<Summary, SummaryError>
where
    R: Read + Seek + Send + Sync + 'static,
{
    let info = check_header(&mut read, limits)?;
    read.seek(SeekFrom::Start(0)).map_err(ReadError::Io)?;
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pass(read, &info, progress)));
    match run {
        Ok(r) => r,
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the decoder failed".to_owned());
            Err(ReadError::Corrupt(msg).into())
        }
    }
}

fn pass<R: Read + Seek + Send + Sync + 'static>(
    file: R,
    info: &PointCloudInfo,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<Summary, SummaryError> {
    let mut file = file;
    let parallel = crate::reader::laz_parallelism(&mut file, info);
    file.seek(SeekFrom::Start(0)).map_err(ReadError::Io)?;
    let mut reader = Reader::with_options(file, ReaderOptions::default().with_laz_parallelism(parallel))
        .map_err(ReadError::Decode)?;
    let header = reader.header().clone();
    let format = *header.point_format();
    // The density grid covers the header's bounds (checked against the points as they come).
    let hb = info.bounds;
    let (w, h) = ((hb[3] - hb[0]).max(0.0), (hb[4] - hb[1]).max(0.0));
    let mut cell = ((w * h) / DENSITY_CELLS).sqrt().max(1.0);
    if !cell.is_finite() {
        cell = 1.0;
    }
    // At most 8,192 cells a side, whatever the header claims (infinite or absurd bounds).
    let side = |span: f64| (span / cell).floor().clamp(0.0, 8191.0) as usize + 1;
    let (cols, rows) = (side(w), side(h));
    let mut occupied = vec![0u64; (cols * rows).div_ceil(64)];
    let mut classes = [0u64; 256];
    let mut return_numbers = [0u64; 16];
    let mut pulse_returns = [0u64; 16];
    let mut kinds = ReturnKinds::default();
    let mut bounds =
        [f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    let (mut imin, mut imax) = (u16::MAX, 0u16);
    let mut gps = [f64::INFINITY, f64::NEG_INFINITY];
    let mut outside = 0u64;
    let mut seen = 0u64;
    let mut batch = PointDataBuilder::new().for_header(&header).build();
    let batch_points = (4u64 << 20) / u64::from(info.record_length).max(1) + 1;
    while seen < info.points {
        let got = reader.fill_points(batch_points, &mut batch).map_err(ReadError::Decode)?;
        if got == 0 {
            return Err(SummaryError::Count { declared: info.points, found: seen });
        }
        let xyz = batch.x().zip(batch.y()).zip(batch.z());
        let attrs =
            batch.classification().zip(batch.return_number()).zip(batch.number_of_returns()).zip(batch.intensity());
        for (((x, y), z), (((class, r), n), intensity)) in xyz.zip(attrs) {
            bounds[0] = bounds[0].min(x);
            bounds[1] = bounds[1].min(y);
            bounds[2] = bounds[2].min(z);
            bounds[3] = bounds[3].max(x);
            bounds[4] = bounds[4].max(y);
            bounds[5] = bounds[5].max(z);
            classes[usize::from(class)] += 1;
            let (r, n) = (r.min(15), n.min(15));
            return_numbers[usize::from(r)] += 1;
            pulse_returns[usize::from(n)] += 1;
            match (r, n) {
                (_, 0 | 1) => kinds.only += 1,
                (1, _) => kinds.first += 1,
                (r, n) if r >= n => kinds.last += 1,
                _ => kinds.intermediate += 1,
            }
            imin = imin.min(intensity);
            imax = imax.max(intensity);
            let (cx, cy) = ((x - hb[0]) / cell, (y - hb[1]) / cell);
            if cx >= 0.0 && cy >= 0.0 && (cx as usize) < cols && (cy as usize) < rows {
                let k = (cy as usize) * cols + cx as usize;
                occupied[k / 64] |= 1 << (k % 64);
            } else {
                outside += 1;
            }
        }
        if let Some(times) = batch.gps_time() {
            for t in times {
                gps[0] = gps[0].min(t);
                gps[1] = gps[1].max(t);
            }
        }
        seen += got;
        if !progress(seen as f64 / info.points.max(1) as f64) {
            return Err(SummaryError::Cancelled);
        }
    }
    let cells: u64 = occupied.iter().map(|w| u64::from(w.count_ones())).sum();
    let inside = seen - outside;
    let density = if cells > 0 { inside as f64 / (cells as f64 * cell * cell) } else { 0.0 };
    if seen == 0 {
        bounds = [0.0; 6];
    }
    let hist = |counts: &[u64]| -> BTreeMap<String, u64> {
        counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(k, &c)| (k.to_string(), c)).collect()
    };
    Ok(Summary {
        points: seen,
        las_version: format!("{}.{}", info.version.0, info.version.1),
        point_format: info.point_format,
        compressed: info.compressed,
        record_length: info.record_length,
        scale: info.scale,
        offset: info.offset,
        bounds,
        crs: crs::of_header(&header),
        classification: hist(&classes),
        return_numbers: hist(&return_numbers),
        number_of_returns: hist(&pulse_returns),
        returns: kinds,
        intensity: if seen > 0 { [imin, imax] } else { [0, 0] },
        gps_time: (format.has_gps_time && seen > 0).then_some(gps),
        density: (density * 1000.0).round() / 1000.0,
        density_cell: cell,
        has_color: format.has_color,
        has_nir: format.has_nir,
        extra_bytes: format.extra_bytes,
        vlrs: header.vlrs().len(),
        evlrs: header.evlrs().len(),
    })
}
