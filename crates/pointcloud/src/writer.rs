//! Writing LAS and LAZ files for downloads: a stored file streamed to LAS or LAZ, optionally
//! cut to a box, filtered by class, reclassified and given a per-point confidence.
//!
//! Points are copied as raw records, batch by batch (about 4 MiB at a time), so every field of
//! the point format and every extra byte survives untouched; only the classification (when
//! replaced) and the appended confidence byte change. The header is the input's with its point
//! counts, counts by return and bounds recomputed for what is written; the VLRs and EVLRs
//! (the CRS as WKT or GeoTIFF keys among them) are kept, except the laszip VLR, which is
//! rewritten for LAZ output and dropped for LAS output, the COPC records of a COPC input, whose
//! octree the output does not keep, and the extra-bytes VLRs, which are merged into one when a
//! confidence attribute is added.
//!
//! Classes: the legacy point formats 0–5 hold classes 0–31 in five bits. A `classification`
//! with a value above 31 for such an input is refused ([`WriteError::Class`]) before anything
//! is written; the format is not changed behind the caller's back. Formats 6–10 take 0–255.

use crate::reader::{self, Limits, PointCloudInfo, ReadError};
use laz::{
    LasZipDecompressor, LazItemRecordBuilder, LazVlr, LazVlrBuilder, ParLasZipCompressor, ParLasZipDecompressor,
};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
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
/// for. `output` is written from its start and should be empty. `progress` is called after
/// every batch with the fraction of the input read; returning `false` stops the writing with
/// [`WriteError::Cancelled`], leaving a partial output for the caller to discard.
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
    contain(|| rewrite_inner(input, output, opts, progress))
}

fn rewrite_inner(
    input: &Path,
    output: &mut (impl Write + Seek + Send + Sync),
    opts: &Rewrite,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<WriteSummary> {
    let mut src = Source::open(input)?;
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

    let mut vlrs = Vec::with_capacity(src.vlrs.len() + 1);
    let mut eb_placed = false;
    for v in &src.vlrs {
        // The COPC info would describe an octree this file no longer has.
        if v.is("laszip encoded", LASZIP_RECORD) || v.user() == "copc" {
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
    let evlrs: Vec<Vlr> = src.evlrs.iter().filter(|v| v.user() != "copc").cloned().collect();

    output.seek(SeekFrom::Start(0))?;
    let mut header = src.header.clone();
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
        while let Some(first) = src.next_batch(&mut inbuf)? {
            outbuf.clear();
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
                Sink::Las(w) => w.write_all(&outbuf)?,
                Sink::Laz(c) => c.compress_many(&outbuf)?,
            }
            if !progress(src.fraction()) {
                return Err(WriteError::Cancelled);
            }
        }
        match sink {
            Sink::Las(w) => w.stream_position()?,
            Sink::Laz(mut c) => {
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
/// Record id of the laszip VLR (user id `laszip encoded`).
pub(crate) const LASZIP_RECORD: u16 = 22204;
/// Record id of the extra-bytes VLR (user id `LASF_Spec`).
pub(crate) const EXTRA_BYTES_RECORD: u16 = 4;
/// Bytes of one extra-bytes descriptor.
const DESCRIPTOR: usize = 192;
/// The most EVLR data carried over, all EVLRs together (they are held in memory).
const MAX_EVLR_BYTES: u64 = 256 << 20;

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

/// A variable-length record, or an extended one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Vlr {
    pub(crate) user_id: [u8; 16],
    pub(crate) record_id: u16,
    pub(crate) description: [u8; 32],
    pub(crate) data: Vec<u8>,
}

impl Vlr {
    pub(crate) fn new(user_id: &str, record_id: u16, description: &str, data: Vec<u8>) -> Self {
        Self { user_id: padded(user_id), record_id, description: padded(description), data }
    }

    pub(crate) fn is(&self, user_id: &str, record_id: u16) -> bool {
        self.record_id == record_id && self.user() == user_id
    }

    pub(crate) fn user(&self) -> &str {
        let end = self.user_id.iter().position(|&b| b == 0).unwrap_or(16);
        std::str::from_utf8(&self.user_id[..end]).unwrap_or("")
    }

    /// Bytes the record takes in a file.
    pub(crate) fn len(&self, extended: bool) -> u64 {
        (if extended { 60 } else { 54 }) + self.data.len() as u64
    }

    pub(crate) fn write_to(&self, w: &mut impl Write, extended: bool) -> Result<()> {
        w.write_all(&[0, 0])?;
        w.write_all(&self.user_id)?;
        w.write_all(&self.record_id.to_le_bytes())?;
        if extended {
            w.write_all(&(self.data.len() as u64).to_le_bytes())?;
        } else {
            let len = u16::try_from(self.data.len())
                .map_err(|_| WriteError::Unsupported(format!("a VLR of {} bytes", self.data.len())))?;
            w.write_all(&len.to_le_bytes())?;
        }
        w.write_all(&self.description)?;
        w.write_all(&self.data)?;
        Ok(())
    }
}

fn padded<const N: usize>(s: &str) -> [u8; N] {
    let mut a = [0u8; N];
    let n = s.len().min(N);
    a[..n].copy_from_slice(&s.as_bytes()[..n]);
    a
}

/// An input file: its checked header, VLRs, EVLRs and a stream of raw point records.
pub(crate) struct Source {
    pub(crate) info: PointCloudInfo,
    /// The header as stored (its declared size).
    pub(crate) header: Vec<u8>,
    pub(crate) vlrs: Vec<Vlr>,
    pub(crate) evlrs: Vec<Vlr>,
    points: Points,
    read: u64,
    batch: u64,
}

enum Points {
    Las(BufReader<File>),
    /// Chunks decoded on rayon's threads, through the chunk table.
    ParLaz(Box<ParLasZipDecompressor<BufReader<File>>>),
    /// Chunks decoded in sequence, for files without a chunk table.
    Laz(Box<LasZipDecompressor<'static, BufReader<File>>>),
}

impl Source {
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let mut file = BufReader::new(File::open(path)?);
        // Points are streamed, so the count is not limited; the header is still checked
        // against the file before anything is sized from it.
        let info = reader::check_header(&mut file, Limits { max_points: u64::MAX })?;
        let mut h = [0u8; 375];
        file.seek(SeekFrom::Start(0))?;
        let header_size = {
            file.read_exact(&mut h[..227])?;
            usize::from(u16::from_le_bytes([h[94], h[95]]))
        };
        let mut header = vec![0u8; header_size];
        file.seek(SeekFrom::Start(0))?;
        file.read_exact(&mut header)?;
        let n_vlrs = u32_at(&header, 100);
        let offset_to_points = u64::from(u32_at(&header, 96));
        let mut vlrs = Vec::new();
        for _ in 0..n_vlrs {
            vlrs.push(read_vlr(&mut file, false, u64::MAX)?);
        }
        let mut evlrs = Vec::new();
        if info.version.1 >= 4 {
            let start = u64_at(&header, 235);
            let n = u32_at(&header, 243);
            if n > 0 {
                file.seek(SeekFrom::Start(start))?;
                let mut budget = MAX_EVLR_BYTES;
                for _ in 0..n {
                    let v = read_vlr(&mut file, true, budget)?;
                    budget -= v.data.len() as u64;
                    evlrs.push(v);
                }
            }
        }
        file.seek(SeekFrom::Start(offset_to_points))?;
        let mut chunk = 0;
        let points = if info.compressed {
            let data = vlrs
                .iter()
                .find(|v| v.is("laszip encoded", LASZIP_RECORD))
                .map(|v| v.data.clone())
                .ok_or_else(|| ReadError::Header("a LAZ file without its laszip VLR".to_owned()))?;
            let vlr = LazVlr::from_buffer(data)?;
            if vlr.chunk_size() != u32::MAX {
                chunk = u64::from(vlr.chunk_size());
            }
            match ParLasZipDecompressor::new(file, vlr.clone()) {
                Ok(d) => Points::ParLaz(Box::new(d)),
                Err(_) => {
                    let mut file = BufReader::new(File::open(path)?);
                    file.seek(SeekFrom::Start(offset_to_points))?;
                    Points::Laz(Box::new(LasZipDecompressor::new(file, vlr)?))
                }
            }
        } else {
            Points::Las(file)
        };
        // Batches of about 4 MiB; from a LAZ file of fixed-size chunks, whole chunks, at least
        // one a thread (up to 64 MiB), so that the threads decode whole chunks together.
        let len = u64::from(info.record_length);
        let mut batch = (4u64 << 20) / len + 1;
        if chunk > 0 {
            let threads = rayon::current_num_threads() as u64;
            let chunks = batch.div_ceil(chunk).max(threads).div_ceil(threads) * threads;
            batch = (chunks * chunk).min(((64u64 << 20) / len).max(1));
        }
        Ok(Self { info, header, vlrs, evlrs, points, read: 0, batch })
    }

    pub(crate) fn record_len(&self) -> usize {
        usize::from(self.info.record_length)
    }

    pub(crate) fn global_encoding(&self) -> u16 {
        u16::from_le_bytes([self.header[6], self.header[7]])
    }

    /// Fraction of the points read so far.
    pub(crate) fn fraction(&self) -> f64 {
        if self.info.points == 0 {
            1.0
        } else {
            self.read as f64 / self.info.points as f64
        }
    }

    /// Reads the next batch of records into `buf`; returns the index of its first point, or
    /// `None` once every point is read.
    pub(crate) fn next_batch(&mut self, buf: &mut Vec<u8>) -> Result<Option<usize>> {
        let n = self.batch.min(self.info.points - self.read);
        if n == 0 {
            return Ok(None);
        }
        buf.resize(n as usize * self.record_len(), 0);
        let result = match &mut self.points {
            Points::Las(f) => f.read_exact(buf),
            Points::ParLaz(d) => d.decompress_many(buf).map_err(|e| match e {
                laz::LasZipError::IoError(e) => e,
                e => std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            }),
            Points::Laz(d) => d.decompress_many(buf),
        };
        result.map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => WriteError::Read(ReadError::Header(format!(
                "the file ends after {} of {} points",
                self.read, self.info.points
            ))),
            _ => WriteError::Read(ReadError::Io(e)),
        })?;
        let first = self.read as usize;
        self.read += n;
        Ok(Some(first))
    }
}

fn read_vlr(r: &mut impl Read, extended: bool, budget: u64) -> Result<Vlr> {
    let mut h = [0u8; 60];
    let hl = if extended { 60 } else { 54 };
    r.read_exact(&mut h[..hl])?;
    let mut user_id = [0u8; 16];
    user_id.copy_from_slice(&h[2..18]);
    let record_id = u16::from_le_bytes([h[18], h[19]]);
    let (len, desc_at) =
        if extended { (u64_at(&h, 20), 28) } else { (u64::from(u16::from_le_bytes([h[20], h[21]])), 22) };
    if len > budget {
        return Err(WriteError::Unsupported(format!("EVLRs of more than {MAX_EVLR_BYTES} bytes")));
    }
    let mut description = [0u8; 32];
    description.copy_from_slice(&h[desc_at..desc_at + 32]);
    let mut data = Vec::new();
    r.take(len).read_to_end(&mut data)?;
    if data.len() as u64 != len {
        return Err(WriteError::Read(ReadError::Header("a VLR runs past the end of the file".to_owned())));
    }
    Ok(Vlr { user_id, record_id, description, data })
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn put(b: &mut [u8], at: usize, bytes: &[u8]) {
    b[at..at + bytes.len()].copy_from_slice(bytes);
}

/// Bytes of the fields of point formats 0 to 10, extra bytes excluded.
pub(crate) fn base_len(format: u8) -> usize {
    const LENGTHS: [usize; 11] = [20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67];
    LENGTHS[usize::from(format.min(10))]
}

/// The stored integer coordinates of a record.
pub(crate) fn xyz(rec: &[u8]) -> [i32; 3] {
    let i = |at: usize| i32::from_le_bytes([rec[at], rec[at + 1], rec[at + 2], rec[at + 3]]);
    [i(0), i(4), i(8)]
}

/// The class of a record (five bits in formats 0–5, a byte in 6–10).
pub(crate) fn class_of(rec: &[u8], format: u8) -> u8 {
    if format < 6 {
        rec[15] & 0x1f
    } else {
        rec[16]
    }
}

/// Sets the class of a record; in formats 0–5 the class must be 0–31 (checked by the caller).
pub(crate) fn set_class(rec: &mut [u8], format: u8, class: u8) {
    if format < 6 {
        rec[15] = (rec[15] & 0xe0) | (class & 0x1f);
    } else {
        rec[16] = class;
    }
}

fn return_number(rec: &[u8], format: u8) -> u8 {
    if format < 6 {
        rec[14] & 0x07
    } else {
        rec[14] & 0x0f
    }
}

/// Point counts, counts by return and integer bounds of the records written.
#[derive(Debug, Clone)]
pub(crate) struct Stats {
    format: u8,
    pub(crate) points: u64,
    pub(crate) by_return: [u64; 15],
    pub(crate) min: [i32; 3],
    pub(crate) max: [i32; 3],
}

impl Stats {
    pub(crate) fn new(format: u8) -> Self {
        Self { format, points: 0, by_return: [0; 15], min: [i32::MAX; 3], max: [i32::MIN; 3] }
    }

    pub(crate) fn add(&mut self, rec: &[u8]) {
        self.points += 1;
        let r = return_number(rec, self.format);
        if (1..=15).contains(&r) {
            self.by_return[usize::from(r - 1)] += 1;
        }
        for (k, v) in xyz(rec).into_iter().enumerate() {
            self.min[k] = self.min[k].min(v);
            self.max[k] = self.max[k].max(v);
        }
    }

    /// Bounds in file coordinates: min x, min y, min z, max x, max y, max z (zeros when empty).
    pub(crate) fn bounds(&self, scale: [f64; 3], offset: [f64; 3]) -> [f64; 6] {
        if self.points == 0 {
            return [0.0; 6];
        }
        let mut b = [0.0; 6];
        for k in 0..3 {
            let a = f64::from(self.min[k]) * scale[k] + offset[k];
            let c = f64::from(self.max[k]) * scale[k] + offset[k];
            b[k] = a.min(c);
            b[k + 3] = a.max(c);
        }
        b
    }
}

/// Sets the counts, bounds, offsets and layout fields of a header (LAS 1.0–1.4).
#[allow(clippy::too_many_arguments)]
pub(crate) fn patch_header(
    h: &mut [u8],
    info: &PointCloudInfo,
    stats: &Stats,
    bounds: [f64; 6],
    compressed: bool,
    record_length: usize,
    vlrs: &[Vlr],
    offset_to_points: u64,
    evlrs: &[Vlr],
    end_of_points: u64,
) -> Result<()> {
    let format = info.point_format;
    put(h, 58, &padded::<32>("Meridian"));
    let offset = u32::try_from(offset_to_points)
        .map_err(|_| WriteError::Unsupported(format!("VLRs ending at byte {offset_to_points}")))?;
    put(h, 96, &offset.to_le_bytes());
    put(h, 100, &(vlrs.len() as u32).to_le_bytes());
    h[104] = format | if compressed { 0x80 } else { 0 };
    let len = u16::try_from(record_length)
        .map_err(|_| WriteError::Unsupported(format!("records of {record_length} bytes")))?;
    put(h, 105, &len.to_le_bytes());
    let legacy = u32::try_from(stats.points).ok().filter(|_| format < 6);
    if info.version.1 < 4 && legacy.is_none() {
        return Err(WriteError::Unsupported(format!("{} points in a LAS 1.{} file", stats.points, info.version.1)));
    }
    put(h, 107, &legacy.unwrap_or(0).to_le_bytes());
    for r in 0..5 {
        let n = legacy.map_or(0, |_| stats.by_return[r] as u32);
        put(h, 111 + 4 * r, &n.to_le_bytes());
    }
    let [x0, y0, z0, x1, y1, z1] = bounds;
    for (at, v) in [(179, x1), (187, x0), (195, y1), (203, y0), (211, z1), (219, z0)] {
        put(h, at, &v.to_le_bytes());
    }
    if info.version.1 >= 4 {
        put(h, 235, &(if evlrs.is_empty() { 0 } else { end_of_points }).to_le_bytes());
        put(h, 243, &(evlrs.len() as u32).to_le_bytes());
        put(h, 247, &stats.points.to_le_bytes());
        for r in 0..15 {
            put(h, 255 + 8 * r, &stats.by_return[r].to_le_bytes());
        }
    }
    Ok(())
}

/// How the extra bytes are laid out once a confidence byte is added.
pub(crate) struct ExtraBytesPlan {
    /// Extra bytes per output record.
    pub(crate) extra: usize,
    /// Where the confidence byte lies among the extra bytes.
    pub(crate) confidence_at: Option<usize>,
    /// The one extra-bytes VLR to write in place of the input's (`None`: keep them as they are).
    pub(crate) vlr: Option<Vec<u8>>,
}

/// Bytes a descriptor's attribute takes (LAS 1.4 R15, table 24), `None` for an unknown type.
fn attribute_size(d: &[u8]) -> Option<usize> {
    let one = |t: u8| match t {
        1 | 2 => Some(1),
        3 | 4 => Some(2),
        5 | 6 | 9 => Some(4),
        7 | 8 | 10 => Some(8),
        _ => None,
    };
    match d[2] {
        0 => Some(usize::from(d[3])),
        t @ 1..=10 => one(t),
        t @ 11..=20 => one(t - 10).map(|s| 2 * s),
        t @ 21..=30 => one(t - 20).map(|s| 3 * s),
        _ => None,
    }
}

fn descriptor(name: &str, data_type: u8, options: u8, description: &str) -> [u8; DESCRIPTOR] {
    let mut d = [0u8; DESCRIPTOR];
    d[2] = data_type;
    d[3] = options;
    put(&mut d, 4, &padded::<32>(name));
    put(&mut d, 160, &padded::<32>(description));
    d
}

/// Plans the extra bytes: the input's descriptors (from every extra-bytes VLR, in order, as
/// files written by several tools hold more than one) plus, when asked, a `confidence` byte.
pub(crate) fn plan_extra_bytes(vlrs: &[Vlr], extra: usize, confidence: bool) -> Result<ExtraBytesPlan> {
    if !confidence {
        return Ok(ExtraBytesPlan { extra, confidence_at: None, vlr: None });
    }
    let mut descriptors: Vec<u8> = Vec::new();
    for v in vlrs.iter().filter(|v| v.is("LASF_Spec", EXTRA_BYTES_RECORD)) {
        let whole = v.data.len() / DESCRIPTOR * DESCRIPTOR;
        descriptors.extend_from_slice(&v.data[..whole]);
    }
    let mut described = 0usize;
    for d in descriptors.chunks_exact(DESCRIPTOR) {
        let name = &d[4..36];
        let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(32)];
        if name == b"confidence" && d[2] == 1 && described < extra {
            return Ok(ExtraBytesPlan { extra, confidence_at: Some(described), vlr: Some(descriptors) });
        }
        described += attribute_size(d)
            .ok_or_else(|| WriteError::Unsupported(format!("an extra-bytes descriptor of data type {}", d[2])))?;
    }
    if described > extra {
        return Err(WriteError::Unsupported(format!(
            "the extra-bytes descriptors describe {described} bytes, the records hold {extra}"
        )));
    }
    // Bytes no descriptor names are kept, described as undocumented, so that the new byte
    // lands where its descriptor says.
    let mut rest = extra - described;
    while rest > 0 {
        let n = rest.min(255);
        descriptors.extend_from_slice(&descriptor("undocumented", 0, n as u8, "Undocumented extra bytes"));
        rest -= n;
    }
    descriptors.extend_from_slice(&descriptor("confidence", 1, 0, "Classification confidence"));
    Ok(ExtraBytesPlan { extra: extra + 1, confidence_at: Some(extra), vlr: Some(descriptors) })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_confidence_byte_follows_the_described_extra_bytes() {
        let deviation = descriptor("Deviation", 3, 0, "");
        let vlrs = [Vlr::new("LASF_Spec", 4, "", deviation.to_vec())];
        let plan = plan_extra_bytes(&vlrs, 3, true).unwrap();
        assert_eq!((plan.extra, plan.confidence_at), (4, Some(3)));
        let data = plan.vlr.unwrap();
        assert_eq!(data.len(), 3 * DESCRIPTOR);
        assert_eq!((data[DESCRIPTOR + 2], data[DESCRIPTOR + 3]), (0, 1), "the undescribed byte is kept");
        assert_eq!(&data[2 * DESCRIPTOR + 4..2 * DESCRIPTOR + 14], b"confidence");
    }

    #[test]
    fn an_existing_confidence_byte_is_reused() {
        let vlrs = [
            Vlr::new("LASF_Spec", 4, "", descriptor("Deviation", 3, 0, "").to_vec()),
            Vlr::new("LASF_Spec", 4, "", descriptor("confidence", 1, 0, "").to_vec()),
        ];
        let plan = plan_extra_bytes(&vlrs, 3, true).unwrap();
        assert_eq!((plan.extra, plan.confidence_at), (3, Some(2)));
        assert_eq!(plan.vlr.unwrap().len(), 2 * DESCRIPTOR, "the two VLRs merged into one");
    }

    #[test]
    fn descriptors_longer_than_the_records_are_refused() {
        let vlrs = [Vlr::new("LASF_Spec", 4, "", descriptor("big", 10, 0, "").to_vec())];
        assert!(matches!(plan_extra_bytes(&vlrs, 2, true), Err(WriteError::Unsupported(_))));
        assert!(plan_extra_bytes(&vlrs, 2, false).unwrap().vlr.is_none());
    }

    #[test]
    fn classes_are_set_in_the_bits_of_each_format() {
        let mut rec = [0u8; 30];
        rec[15] = 0b1010_0000;
        set_class(&mut rec, 1, 31);
        assert_eq!((rec[15], class_of(&rec, 1)), (0b1011_1111, 31));
        set_class(&mut rec, 6, 200);
        assert_eq!(class_of(&rec, 6), 200);
    }
}
