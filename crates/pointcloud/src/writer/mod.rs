//! Writing LAS and LAZ files for downloads: a stored file streamed to LAS or LAZ, optionally
//! cut to a box, filtered by class, reclassified and given a per-point confidence.
//!
//! Points are copied as raw records, batch by batch (about 4 MiB at a time; from LAZ, whole
//! chunks decoded on rayon's threads, and LAZ output coded the same way), so every field of
//! the point format and every extra byte survives untouched; only the classification (when
//! replaced) and the appended confidence byte change. The header is the input's with its point
//! counts, counts by return and bounds recomputed for what is written; the VLRs and EVLRs
//! (the CRS as WKT or GeoTIFF keys among them) are kept, except the laszip VLR, which is
//! rewritten for LAZ output and dropped for LAS output, the COPC records of a COPC input, whose
//! octree the output does not keep, and the extra-bytes VLRs, which are merged into one when a
//! confidence attribute is added. A [`Rewrite::crs`] replaces the CRS records (GeoTIFF keys,
//! WKT) with its own: a WKT VLR where LAS 1.4 asks for WKT (point formats 6–10, or a file that
//! already set the WKT bit), GeoTIFF keys naming the EPSG code otherwise (what a LAS 1.0–1.3
//! reader looks for), and WKT again for a CRS that is neither projected nor geographic.
//!
//! Classes: the legacy point formats 0–5 hold classes 0–31 in five bits. A `classification`
//! with a value above 31 for such an input is refused ([`WriteError::Class`]) before anything
//! is written; the format is not changed behind the caller's back. Formats 6–10 take 0–255.
//!
//! The private `raw` module holds the input side and the record fields, shared with
//! [`crate::copc`].

mod extra_bytes;
pub(crate) mod raw;

pub(crate) use extra_bytes::plan_extra_bytes;
use raw::{base_len, class_of, patch_header, set_class, xyz, Source, Stats, Vlr, EXTRA_BYTES_RECORD, LASZIP_RECORD};

use crate::reader::{PointCloudInfo, ReadError};
use laz::{LazItemRecordBuilder, LazVlrBuilder, ParLasZipCompressor};
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

/// Errors of writing a point cloud.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The input is not a readable LAS/LAZ file.
    #[error("reading the input: {0}")]
    Read(#[from] ReadError),
    /// Reading the input or writing the output failed.
    #[error("input/output: {0}")]
    Io(#[from] std::io::Error),
    /// The LAZ codec refused the data.
    #[error("LAZ: {0}")]
    Laz(#[from] laz::LasZipError),
    /// The options do not fit the input (a vector of the wrong length, a box that is not one).
    #[error("invalid options: {0}")]
    Options(String),
    /// A class does not fit the point format (0–31 in formats 0–5).
    #[error("class {class} does not fit point format {format}, which holds classes 0 to 31")]
    Class {
        /// The class asked for.
        class: u8,
        /// The input's point format.
        format: u8,
    },
    /// The input uses something this writer does not carry over.
    #[error("unsupported input: {0}")]
    Unsupported(String),
    /// More points than the writer holds in memory (COPC).
    #[error("{what} ({value}) is over the limit of {limit}")]
    Limit {
        /// What was over the limit.
        what: &'static str,
        /// The value found.
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// No point is selected and the output format cannot be empty (COPC).
    #[error("no point is selected")]
    Empty,
    /// The progress callback asked to stop.
    #[error("cancelled")]
    Cancelled,
    /// The LAZ codec failed on data it does not report as an error.
    #[error("corrupt compressed points: {0}")]
    Corrupt(String),
}

/// A `Result` of this module.
pub type Result<T, E = WriteError> = std::result::Result<T, E>;

/// The container written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// Uncompressed LAS.
    Las,
    /// LASzip-compressed LAS (chunks of 50,000 points).
    #[default]
    Laz,
}

/// What [`rewrite`] writes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rewrite {
    /// LAS or LAZ.
    pub format: OutputFormat,
    /// Keep only points with `minx <= x <= maxx` and `miny <= y <= maxy`, in the file's own
    /// coordinates: `[minx, miny, maxx, maxy]`.
    pub bbox: Option<[f64; 4]>,
    /// Keep only points whose class, after `classification` is applied, is one of these.
    pub classes: Option<Vec<u8>>,
    /// A class per input point (in file order), replacing the stored class.
    pub classification: Option<Vec<u8>>,
    /// A value per input point, written as an unsigned byte extra-bytes attribute named
    /// `confidence` (added to the extra-bytes VLR; an existing `confidence` byte is overwritten).
    pub confidence: Option<Vec<u8>>,
    /// The CRS to write in place of the file's own CRS records (the uploader's override).
    pub crs: Option<CrsRecord>,
}

/// A CRS as the writer records it: its EPSG code and its OGC WKT (1).
#[derive(Debug, Clone, PartialEq)]
pub struct CrsRecord {
    /// The EPSG code.
    pub epsg: u16,
    /// The definition as OGC WKT 1 (`PROJCS[...]` or `GEOGCS[...]`).
    pub wkt: String,
}

/// `LASF_Projection` records: GeoKeyDirectoryTag, GeoDoubleParamsTag, GeoAsciiParamsTag, math
/// transform WKT and coordinate system WKT.
const CRS_RECORDS: [u16; 5] = [34735, 34736, 34737, 2111, 2112];
const PROJECTION_USER: &str = "LASF_Projection";
/// The global-encoding bit that says the CRS is WKT.
const WKT_BIT: u16 = 0b1_0000;

fn is_crs_record(v: &Vlr) -> bool {
    v.user() == PROJECTION_USER && CRS_RECORDS.contains(&v.record_id)
}

/// The GeoKeyDirectoryTag of an EPSG code: GTModelType (projected or geographic, read from the
/// WKT's first keyword), GTRasterType PixelIsArea, and ProjectedCSType or GeographicType. `None`
/// for another kind of CRS (geocentric, say), which GeoTIFF keys of one code do not name.
fn geo_keys(crs: &CrsRecord) -> Option<Vec<u8>> {
    let wkt = crs.wkt.trim_start();
    let (model, key) = if wkt.starts_with("PROJCS[") {
        (1, 3072)
    } else if wkt.starts_with("GEOGCS[") {
        (2, 2048)
    } else {
        return None;
    };
    let keys: [[u16; 4]; 4] = [[1, 1, 0, 3], [1024, 0, 1, model], [1025, 0, 1, 1], [key, 0, 1, crs.epsg]];
    Some(keys.iter().flatten().flat_map(|v| v.to_le_bytes()).collect())
}

/// What was written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WriteSummary {
    /// Points written.
    pub points: u64,
    /// Bounds of the points written: min x, min y, min z, max x, max y, max z (all 0 when no
    /// point is written).
    pub bounds: [f64; 6],
}

/// Streams the LAS/LAZ file at `input` to `output` as LAS or LAZ, with the changes `opts` asks
/// for. `output` is written from its start and should be empty; it is `Sync` because the LAZ
/// compressor requires it (a `File`, a `BufWriter<File>` or a `Cursor<Vec<u8>>` is).
/// `progress` is called after every batch with the fraction of the input read; returning
/// `false` stops the writing with [`WriteError::Cancelled`], leaving a partial output for the
/// caller to discard.
///
/// A filter that selects nothing gives a valid file with no points.
///
/// ```
/// use meridian_pointcloud::writer::{rewrite, OutputFormat, Rewrite};
/// use std::path::Path;
/// let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/isprs-samp11.las");
/// // Every point ground, with a confidence of 200, as LAZ in memory.
/// let n = 38_010;
/// let opts = Rewrite {
///     format: OutputFormat::Laz,
///     classification: Some(vec![2; n]),
///     confidence: Some(vec![200; n]),
///     ..Default::default()
/// };
/// let mut out = std::io::Cursor::new(Vec::new());
/// let summary = rewrite(&input, &mut out, &opts, &|_| true)?;
/// assert_eq!(summary.points, n as u64);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rewrite(
    input: &Path,
    output: &mut (impl Write + Seek + Send + Sync),
    opts: &Rewrite,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<WriteSummary> {
    contain(|| rewrite_inner(Source::open(input)?, output, opts, progress))
}

/// [`rewrite`] with the points of `input` taken from `records`, the file's records already
/// decoded (uncompressed, in file order), so that a LAZ input is not decoded again.
pub(crate) fn rewrite_from_records(
    input: &Path,
    records: &Path,
    output: &mut (impl Write + Seek + Send + Sync),
    opts: &Rewrite,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<WriteSummary> {
    contain(|| rewrite_inner(Source::open_with_records(input, records)?, output, opts, progress))
}

fn rewrite_inner(
    mut src: Source,
    output: &mut (impl Write + Seek + Send + Sync),
    opts: &Rewrite,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<WriteSummary> {
    let info = src.info.clone();
    let edits = Edits::new(
        &info,
        opts.bbox,
        opts.classes.as_deref(),
        opts.classification.as_deref(),
        opts.confidence.as_deref(),
    )?;
    if info.point_format < 6 {
        if let Some(&class) = opts.classification.as_deref().and_then(|c| c.iter().max()).filter(|&&c| c > 31) {
            return Err(WriteError::Class { class, format: info.point_format });
        }
    }
    if src.global_encoding() & 0b10 != 0 {
        return Err(WriteError::Unsupported("waveform data stored inside the file".to_owned()));
    }
    let extra = usize::from(info.record_length) - base_len(info.point_format);
    let eb = plan_extra_bytes(&src.vlrs, extra, opts.confidence.is_some())?;
    let out_len = base_len(info.point_format) + eb.extra;
    if out_len > usize::from(u16::MAX) {
        return Err(WriteError::Unsupported(format!("records of {out_len} bytes")));
    }
    let compressed = opts.format == OutputFormat::Laz;

    let mut vlrs = Vec::with_capacity(src.vlrs.len() + 2);
    let mut eb_placed = false;
    let mut header = src.header.clone();
    if let Some(crs) = &opts.crs {
        let encoding = src.global_encoding();
        let wkt_asked = info.point_format >= 6 || (info.version.1 >= 4 && encoding & WKT_BIT != 0);
        match geo_keys(crs).filter(|_| !wkt_asked) {
            Some(keys) => {
                vlrs.push(Vlr::new(PROJECTION_USER, 34735, "GeoKeyDirectoryTag", keys));
                raw::put(&mut header, 6, &(encoding & !WKT_BIT).to_le_bytes());
            }
            None => {
                let mut wkt = crs.wkt.clone().into_bytes();
                wkt.push(0);
                vlrs.push(Vlr::new(PROJECTION_USER, 2112, "OGC WKT", wkt));
                // LAS 1.0–1.3 have no WKT bit: their readers find the WKT record by its id.
                if info.version.1 >= 4 {
                    raw::put(&mut header, 6, &(encoding | WKT_BIT).to_le_bytes());
                }
            }
        }
    }
    for v in &src.vlrs {
        // The COPC info would describe an octree this file no longer has.
        if v.is("laszip encoded", LASZIP_RECORD) || v.user() == "copc" {
            continue;
        }
        if opts.crs.is_some() && is_crs_record(v) {
            continue;
        }
        if let (true, Some(data)) = (v.is("LASF_Spec", EXTRA_BYTES_RECORD), &eb.vlr) {
            if !eb_placed {
                vlrs.push(Vlr::new("LASF_Spec", EXTRA_BYTES_RECORD, "Extra bytes", data.clone()));
                eb_placed = true;
            }
            continue;
        }
        vlrs.push(v.clone());
    }
    if let (false, Some(data)) = (eb_placed, &eb.vlr) {
        vlrs.push(Vlr::new("LASF_Spec", EXTRA_BYTES_RECORD, "Extra bytes", data.clone()));
    }
    let laz_vlr = if compressed {
        let items = LazItemRecordBuilder::default_for_point_format_id(info.point_format, eb.extra as u16)?;
        let vlr = LazVlrBuilder::new(items).with_fixed_chunk_size(LAZ_CHUNK).build();
        let mut data = Vec::new();
        vlr.write_to(&mut data)?;
        vlrs.push(Vlr::new("laszip encoded", LASZIP_RECORD, "LASzip compression", data));
        Some(vlr)
    } else {
        None
    };
    let evlrs: Vec<Vlr> =
        src.evlrs.iter().filter(|v| v.user() != "copc" && !(opts.crs.is_some() && is_crs_record(v))).cloned().collect();

    output.seek(SeekFrom::Start(0))?;
    output.write_all(&header)?;
    let mut offset_to_points = header.len() as u64;
    for v in &vlrs {
        v.write_to(output, false)?;
        offset_to_points += v.len(false);
    }
    let format = info.point_format;
    let mut stats = Stats::new(format);
    let mut inbuf = Vec::new();
    let mut outbuf = Vec::new();
    let end_of_points = {
        let mut sink = match &laz_vlr {
            Some(vlr) => Sink::Laz(Box::new(ParLasZipCompressor::new(&mut *output, vlr.clone())?)),
            None => Sink::Las(&mut *output),
        };
        // The LAZ compressor compresses whole chunks in parallel, but a part-chunk it is given
        // waits for the next call and is then compressed alone: points are handed to it in whole
        // chunks only, two for every thread, and the rest kept for the next batch.
        let chunk_bytes = LAZ_CHUNK as usize * out_len;
        let flush_at = 2 * rayon::current_num_threads().max(1) * chunk_bytes;
        while let Some(first) = src.next_batch(&mut inbuf)? {
            for (k, rec) in inbuf.chunks_exact(src.record_len()).enumerate() {
                let i = first + k;
                let mut class = class_of(rec, format);
                if let Some(c) = &edits.classification {
                    class = c[i];
                }
                if !edits.keeps(rec, class) {
                    continue;
                }
                let at = outbuf.len();
                outbuf.extend_from_slice(rec);
                outbuf.resize(at + out_len, 0);
                let out = &mut outbuf[at..];
                set_class(out, format, class);
                if let (Some(c), Some(off)) = (&edits.confidence, eb.confidence_at) {
                    out[base_len(format) + off] = c[i];
                }
                stats.add(out);
            }
            match &mut sink {
                Sink::Las(w) => {
                    w.write_all(&outbuf)?;
                    outbuf.clear();
                }
                Sink::Laz(c) if outbuf.len() >= flush_at => {
                    let whole = outbuf.len() / chunk_bytes * chunk_bytes;
                    c.compress_many(&outbuf[..whole])?;
                    outbuf.drain(..whole);
                }
                Sink::Laz(_) => {}
            }
            if !progress(src.fraction()) {
                return Err(WriteError::Cancelled);
            }
        }
        match sink {
            Sink::Las(w) => w.stream_position()?,
            Sink::Laz(mut c) => {
                c.compress_many(&outbuf)?;
                c.done()?;
                c.get_mut().stream_position()?
            }
        }
    };
    output.seek(SeekFrom::Start(end_of_points))?;
    for v in &evlrs {
        v.write_to(output, true)?;
    }
    let end = output.stream_position()?;

    let bounds = stats.bounds(info.scale, info.offset);
    patch_header(
        &mut header,
        &info,
        &stats,
        bounds,
        compressed,
        out_len,
        &vlrs,
        offset_to_points,
        &evlrs,
        end_of_points,
    )?;
    output.seek(SeekFrom::Start(0))?;
    output.write_all(&header)?;
    output.seek(SeekFrom::Start(end))?;
    output.flush()?;
    Ok(WriteSummary { points: stats.points, bounds })
}

enum Sink<'a, W: Write + Seek + Send + Sync> {
    Las(&'a mut W),
    Laz(Box<ParLasZipCompressor<&'a mut W>>),
}

/// Points of a LAZ chunk in [`rewrite`]'s output (the LASzip default).
const LAZ_CHUNK: u32 = 50_000;
/// Runs `f`, turning a panic of the LAZ codec (it asserts on some corrupt streams) into an error.
pub(crate) fn contain<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the LAZ codec failed".to_owned());
            Err(WriteError::Corrupt(msg))
        }
    }
}

/// The selection and the per-point changes, checked against the input.
pub(crate) struct Edits<'a> {
    bbox: Option<[f64; 4]>,
    /// Scale and offset of x and y.
    transform: [[f64; 2]; 2],
    classes: Option<[bool; 256]>,
    pub(crate) classification: Option<&'a [u8]>,
    pub(crate) confidence: Option<&'a [u8]>,
}

impl<'a> Edits<'a> {
    pub(crate) fn new(
        info: &PointCloudInfo,
        bbox: Option<[f64; 4]>,
        classes: Option<&[u8]>,
        classification: Option<&'a [u8]>,
        confidence: Option<&'a [u8]>,
    ) -> Result<Self> {
        for (name, v) in [("classification", classification), ("confidence", confidence)] {
            if let Some(v) = v.filter(|v| v.len() as u64 != info.points) {
                return Err(WriteError::Options(format!("{} {name} values for {} points", v.len(), info.points)));
            }
        }
        let bbox = match bbox {
            None => None,
            Some(b) if b.iter().all(|v| v.is_finite()) && b[0] <= b[2] && b[1] <= b[3] => Some(b),
            Some(b) => return Err(WriteError::Options(format!("bbox {b:?} is not [minx, miny, maxx, maxy]"))),
        };
        let classes = classes.map(|list| {
            let mut keep = [false; 256];
            for &c in list {
                keep[usize::from(c)] = true;
            }
            keep
        });
        let transform = [[info.scale[0], info.offset[0]], [info.scale[1], info.offset[1]]];
        Ok(Self { bbox, transform, classes, classification, confidence })
    }

    /// Whether the record, with its class `class`, is written.
    pub(crate) fn keeps(&self, rec: &[u8], class: u8) -> bool {
        if let Some(keep) = &self.classes {
            if !keep[usize::from(class)] {
                return false;
            }
        }
        if let Some([x0, y0, x1, y1]) = self.bbox {
            // The coordinates as every reader computes them, so that the box is exact for them.
            let [x, y, _] = xyz(rec);
            let [[sx, ox], [sy, oy]] = self.transform;
            let (x, y) = (f64::from(x) * sx + ox, f64::from(y) * sy + oy);
            if !(x0 <= x && x <= x1 && y0 <= y && y <= y1) {
                return false;
            }
        }
        true
    }
}
