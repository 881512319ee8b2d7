//! Reading LAS and LAZ files into columns, under limits.
//!
//! The header is checked here before the `las` crate sees the file, so that a header that lies
//! (a point count the file cannot hold, offsets past its end, a LAZ chunk table or an extended
//! VLR larger than the file) is an error rather than a huge allocation: the `las` and `laz`
//! crates size their buffers from the header. Points are then decoded in batches and kept as
//! structure-of-arrays, which is what the filters want.

use las::{LazParallelism, PointDataBuilder, Reader, ReaderOptions};
use std::fs::File;
use std::io::{BufReader, Cursor, Read, Seek, SeekFrom};
use std::path::Path;

/// Errors of reading a point cloud.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("reading the file: {0}")]
    Io(#[from] std::io::Error),
    /// The file is not a LAS/LAZ file, or its header contradicts itself or the file.
    #[error("invalid LAS header: {0}")]
    Header(String),
    /// The file is valid but larger than the limits allow.
    #[error("{what} ({value}) is over the limit of {limit}")]
    Limit {
        /// What was over the limit.
        what: &'static str,
        /// The value found.
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// The points could not be decoded (a truncated file, corrupt LAZ data).
    #[error("decoding points: {0}")]
    Decode(#[from] las::Error),
    /// The compressed points are corrupt in a way the LAZ decoder does not report as an error.
    #[error("corrupt compressed points: {0}")]
    Corrupt(String),
}

/// A `Result` of this module.
pub type Result<T, E = ReadError> = std::result::Result<T, E>;

/// What a reader accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest number of points a file may declare.
    pub max_points: u64,
}

impl Default for Limits {
    /// 100 million points: about 3.5 GB of columns.
    fn default() -> Self {
        Self { max_points: 100_000_000 }
    }
}

/// What the header says about a file, once checked.
#[derive(Debug, Clone, PartialEq)]
pub struct PointCloudInfo {
    /// LAS version, major and minor (1.0 to 1.4).
    pub version: (u8, u8),
    /// Point data record format (0 to 10).
    pub point_format: u8,
    /// Whether the points are LAZ-compressed.
    pub compressed: bool,
    /// Bytes of one point record, extra bytes included.
    pub record_length: u16,
    /// Number of points the header declares.
    pub points: u64,
    /// Scale of the stored integer coordinates, x, y, z.
    pub scale: [f64; 3],
    /// Offset of the stored integer coordinates, x, y, z.
    pub offset: [f64; 3],
    /// Bounds the header declares: min x, min y, min z, max x, max y, max z.
    pub bounds: [f64; 6],
}

/// Points as columns: the i-th point is `(x[i], y[i], z[i])` with its attributes at `i`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PointCloud {
    /// Easting (scaled and offset).
    pub x: Vec<f64>,
    /// Northing (scaled and offset).
    pub y: Vec<f64>,
    /// Elevation (scaled and offset).
    pub z: Vec<f64>,
    /// ASPRS classification code.
    pub classification: Vec<u8>,
    /// Return number, 1-based (0 in files that do not record it).
    pub return_number: Vec<u8>,
    /// Number of returns of the pulse (0 in files that do not record it).
    pub number_of_returns: Vec<u8>,
    /// Pulse return magnitude.
    pub intensity: Vec<u16>,
    /// Red, green and blue, when the point format records colour (formats 2, 3, 5, 7, 8, 10).
    pub rgb: Option<Vec<[u16; 3]>>,
    /// Near infrared, when the point format records it (formats 8 and 10).
    pub nir: Option<Vec<u16>>,
}

impl PointCloud {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Empties every column, keeping which columns the cloud has.
    pub fn clear(&mut self) {
        self.x.clear();
        self.y.clear();
        self.z.clear();
        self.classification.clear();
        self.return_number.clear();
        self.number_of_returns.clear();
        self.intensity.clear();
        if let Some(rgb) = &mut self.rgb {
            rgb.clear();
        }
        if let Some(nir) = &mut self.nir {
            nir.clear();
        }
    }

    /// Appends the points of `other`; a colour column `other` lacks is padded with zeros.
    pub fn append(&mut self, other: &PointCloud) {
        let n = other.len();
        self.x.extend_from_slice(&other.x);
        self.y.extend_from_slice(&other.y);
        self.z.extend_from_slice(&other.z);
        self.classification.extend_from_slice(&other.classification);
        self.return_number.extend_from_slice(&other.return_number);
        self.number_of_returns.extend_from_slice(&other.number_of_returns);
        self.intensity.extend_from_slice(&other.intensity);
        if let Some(rgb) = &mut self.rgb {
            match &other.rgb {
                Some(o) => rgb.extend_from_slice(o),
                None => rgb.resize(rgb.len() + n, [0; 3]),
            }
        }
        if let Some(nir) = &mut self.nir {
            match &other.nir {
                Some(o) => nir.extend_from_slice(o),
                None => nir.resize(nir.len() + n, 0),
            }
        }
    }

    pub(crate) fn with_capacity(n: usize, rgb: bool, nir: bool) -> Self {
        Self {
            rgb: rgb.then(|| Vec::with_capacity(n)),
            nir: nir.then(|| Vec::with_capacity(n)),
            x: Vec::with_capacity(n),
            y: Vec::with_capacity(n),
            z: Vec::with_capacity(n),
            classification: Vec::with_capacity(n),
            return_number: Vec::with_capacity(n),
            number_of_returns: Vec::with_capacity(n),
            intensity: Vec::with_capacity(n),
        }
    }
}

/// Reads a LAS or LAZ file.
pub fn read_path(path: impl AsRef<Path>, limits: Limits) -> Result<(PointCloudInfo, PointCloud)> {
    let file = File::open(path)?;
    read_from(BufReader::new(file), limits)
}

/// Reads a LAS or LAZ file held in memory.
///
/// ```
/// use meridian_pointcloud::reader::{read_bytes, Limits, ReadError};
/// // A JPEG renamed .laz is an error, not a panic.
/// let jpeg = [0xff, 0xd8, 0xff, 0xe0, 0, 0x10, b'J', b'F', b'I', b'F', 0].repeat(40);
/// assert!(matches!(read_bytes(&jpeg, Limits::default()), Err(ReadError::Header(_))));
/// ```
pub fn read_bytes(data: &[u8], limits: Limits) -> Result<(PointCloudInfo, PointCloud)> {
    read_from(Cursor::new(data.to_vec()), limits)
}

/// Checks the header of a LAS or LAZ file without decoding its points.
pub fn check_header<R: Read + Seek>(read: &mut R, limits: Limits) -> Result<PointCloudInfo> {
    let file_len = read.seek(SeekFrom::End(0))?;
    read.seek(SeekFrom::Start(0))?;
    check(read, file_len, limits)
}

/// Reads a LAS or LAZ file from a seekable source.
pub fn read_from<R>(read: R, limits: Limits) -> Result<(PointCloudInfo, PointCloud)>
where
    R: Read + Seek + Send + Sync + 'static,
{
    let mut cloud = None;
    let info = stream_from(read, limits, |info, batch, _| {
        let all = cloud.get_or_insert_with(|| {
            let n = usize::try_from(info.points).unwrap_or(0);
            PointCloud::with_capacity(n, batch.rgb.is_some(), batch.nir.is_some())
        });
        all.append(batch);
        Ok(())
    })?;
    Ok((info, cloud.unwrap_or_default()))
}

/// Reads a LAS or LAZ file a batch of points at a time (about 4 MiB of records each), in file
/// order, without holding the whole file: `each` gets every batch, and its error stops the read.
pub fn stream_path(
    path: impl AsRef<Path>,
    limits: Limits,
    mut each: impl FnMut(&PointCloudInfo, &PointCloud) -> Result<()>,
) -> Result<PointCloudInfo> {
    stream_from(BufReader::new(File::open(path)?), limits, |info, batch, _| each(info, batch))
}

/// [`stream_path`], with each batch's records as well, decoded (uncompressed LAS records of the
/// file's own format and length, extra bytes included).
pub(crate) fn stream_path_records(
    path: impl AsRef<Path>,
    limits: Limits,
    each: impl FnMut(&PointCloudInfo, &PointCloud, &[u8]) -> Result<()>,
) -> Result<PointCloudInfo> {
    stream_from(BufReader::new(File::open(path)?), limits, each)
}

fn stream_from<R>(
    mut read: R,
    limits: Limits,
    mut each: impl FnMut(&PointCloudInfo, &PointCloud, &[u8]) -> Result<()>,
) -> Result<PointCloudInfo>
where
    R: Read + Seek + Send + Sync + 'static,
{
    let info = check_header(&mut read, limits)?;
    read.seek(SeekFrom::Start(0))?;
    // The `laz` decoder asserts on some corrupt arithmetic-coded streams instead of returning
    // an error; such a panic is contained here and reported as what it is, a corrupt file.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decode(read, &info, &mut each))) {
        Ok(result) => result.map(|()| info),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the decoder failed".to_owned());
            Err(ReadError::Corrupt(msg))
        }
    }
}

/// Points in one batch of decoding: about 4 MiB of records, whatever their length; from a LAZ
/// file decoded in parallel with chunks of `chunk` points, whole chunks, as many for every thread
/// (up to 64 MiB), so that the threads decode together and finish together.
pub(crate) fn batch_points(record_length: u16, chunk: Option<u64>) -> u64 {
    let len = u64::from(record_length).max(1);
    let batch = (4u64 << 20) / len + 1;
    match chunk {
        Some(chunk @ 1..) => {
            let threads = rayon::current_num_threads().max(1) as u64;
            let chunks = batch.div_ceil(chunk).max(threads).div_ceil(threads) * threads;
            (chunks * chunk).min(((64u64 << 20) / len).max(1))
        }
        _ => batch,
    }
}

/// What [`decode`] hands each batch to: the header, the points, and their records as decoded.
type Batches<'a> = dyn FnMut(&PointCloudInfo, &PointCloud, &[u8]) -> Result<()> + 'a;

/// Batches a file must hold beyond which [`decode`] decodes on a thread of its own.
const OVERLAP_FROM: u64 = 4;

/// A batch of points: their columns and their records as decoded.
type Batch = (PointCloud, las::PointData);

/// What the decoder is told after each batch it hands on ([`decode_batches`]).
enum Turn {
    /// Stop decoding.
    Stop,
    /// Go on; with buffers to fill, when the batch's own came back at once.
    Go(Option<Box<Batch>>),
}

fn decode<R>(mut read: R, info: &PointCloudInfo, each: &mut Batches<'_>) -> Result<()>
where
    R: Read + Seek + Send + Sync + 'static,
{
    let (parallel, chunk) = laz_decoding(&mut read, info);
    let parallel_chunk = if matches!(parallel, LazParallelism::Yes) { chunk } else { None };
    let batch_points = batch_points(info.record_length, parallel_chunk);
    if info.points <= OVERLAP_FROM * batch_points {
        // A few batches: a thread and a second set of buffers cost more than the overlap gains
        // (a 0.7 M point file of four batches decoded 10–15 % slower with them).
        return decode_batches(read, info, parallel, batch_points, 1, &mut |filled| match filled {
            Some((cloud, batch)) => {
                each(info, &cloud, batch.raw_bytes())?;
                Ok(Turn::Go(Some(Box::new((cloud, batch)))))
            }
            None => Ok(Turn::Stop),
        });
    }
    // A thread decodes the next batch while `each` reads this one (two batches take turns), so
    // that the caller's work on a batch overlaps the decoding rather than following it.
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Result<Batch>>(1);
        let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Batch>();
        let decoder = scope.spawn(move || {
            let decoded = decode_batches(read, info, parallel, batch_points, 2, &mut |filled| {
                Ok(match filled {
                    Some(batch) => {
                        if full_tx.send(Ok(batch)).is_ok() {
                            Turn::Go(None)
                        } else {
                            Turn::Stop
                        }
                    }
                    None => empty_rx.recv().map_or(Turn::Stop, |batch| Turn::Go(Some(Box::new(batch)))),
                })
            });
            if let Err(e) = decoded {
                let _ = full_tx.send(Err(e));
            }
        });
        let mut result = Ok(());
        for filled in full_rx.iter() {
            match filled.and_then(|(cloud, batch)| {
                each(info, &cloud, batch.raw_bytes())?;
                Ok((cloud, batch))
            }) {
                Ok(buffers) => {
                    let _ = empty_tx.send(buffers);
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        // The decoder stops at its next batch once nothing takes them.
        drop(full_rx);
        drop(empty_tx);
        if let Err(panic) = decoder.join() {
            std::panic::resume_unwind(panic);
        }
        result
    })
}

/// Decodes the points of `read` in batches of `batch_points`, in `slots` sets of buffers: each
/// filled batch goes to `turn`, which says whether to go on and may give buffers back at once;
/// when every set is out, `turn(None)` waits for one.
fn decode_batches<R>(
    mut read: R,
    info: &PointCloudInfo,
    parallel: LazParallelism,
    batch_points: u64,
    slots: usize,
    turn: &mut dyn FnMut(Option<Batch>) -> Result<Turn>,
) -> Result<()>
where
    R: Read + Seek + Send + Sync + 'static,
{
    read.seek(SeekFrom::Start(0))?;
    let mut reader = Reader::with_options(read, ReaderOptions::default().with_laz_parallelism(parallel))?;
    let header = reader.header();
    if header.number_of_points() != info.points {
        return Err(ReadError::Header(format!(
            "the header declares {} points, the reader {}",
            info.points,
            header.number_of_points()
        )));
    }
    let n = usize::try_from(info.points).map_err(|_| limit("points", info.points, usize::MAX as u64))?;
    let format = *header.point_format();
    let builder = PointDataBuilder::new().for_header(header);
    // A file smaller than a batch needs no more room than its points.
    let room = batch_points.min(n as u64) as usize;
    let buffers = || (PointCloud::with_capacity(room, format.has_color, format.has_nir), builder.clone().build());
    let mut spare: Vec<Batch> = (0..slots).map(|_| buffers()).collect();
    let mut seen = 0usize;
    while seen < n {
        let (mut cloud, mut batch) = match spare.pop() {
            Some(buffers) => buffers,
            None => match turn(None)? {
                Turn::Go(Some(buffers)) => *buffers,
                _ => return Ok(()),
            },
        };
        fill(&mut reader, batch_points.min((n - seen) as u64), &mut batch, &mut cloud, seen, n)?;
        seen += cloud.len();
        match turn(Some((cloud, batch)))? {
            Turn::Stop => return Ok(()),
            Turn::Go(back) => spare.extend(back.map(|b| *b)),
        }
    }
    Ok(())
}

/// Decodes the next `count` points into `batch`, and their columns into `cloud`; `seen` of the
/// file's `n` points came before.
fn fill(
    reader: &mut Reader,
    count: u64,
    batch: &mut las::PointData,
    cloud: &mut PointCloud,
    seen: usize,
    n: usize,
) -> Result<()> {
    let got = reader.fill_points(count, batch)?;
    if got == 0 {
        return Err(ReadError::Header(format!("the file ends after {seen} of {n} points")));
    }
    cloud.clear();
    cloud.x.extend(batch.x());
    cloud.y.extend(batch.y());
    cloud.z.extend(batch.z());
    cloud.classification.extend(batch.classification());
    cloud.return_number.extend(batch.return_number());
    cloud.number_of_returns.extend(batch.number_of_returns());
    cloud.intensity.extend(batch.intensity());
    if let (Some(rgb), Some(column)) = (cloud.rgb.as_mut(), batch.rgb()) {
        rgb.extend(column.map(|(r, g, b)| [r, g, b]));
    }
    if let (Some(nir), Some(column)) = (cloud.nir.as_mut(), batch.nir()) {
        nir.extend(column);
    }
    // A format that claims colour and a batch that has none would leave the columns short.
    let short = |len: Option<usize>| len.is_some_and(|l| l != cloud.len());
    if short(cloud.rgb.as_ref().map(Vec::len)) || short(cloud.nir.as_ref().map(Vec::len)) {
        return Err(ReadError::Header("the colour columns do not match the points".to_owned()));
    }
    Ok(())
}

fn limit(what: &'static str, value: u64, limit: u64) -> ReadError {
    ReadError::Limit { what, value, limit }
}

fn bad(msg: impl Into<String>) -> ReadError {
    ReadError::Header(msg.into())
}

/// Smallest record length of each point format, 0 to 10.
const FORMAT_LENGTHS: [u16; 11] = [20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67];
/// Size of a VLR header and of an extended VLR header.
const VLR_HEADER: u64 = 54;
const EVLR_HEADER: u64 = 60;

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn f64_at(b: &[u8], at: usize) -> f64 {
    f64::from_bits(u64_at(b, at))
}

fn read_at<R: Read + Seek>(read: &mut R, at: u64, buf: &mut [u8]) -> Result<()> {
    read.seek(SeekFrom::Start(at))?;
    read.read_exact(buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => bad(format!("the file ends inside a structure at byte {at}")),
        _ => ReadError::Io(e),
    })
}

fn check<R: Read + Seek>(read: &mut R, file_len: u64, limits: Limits) -> Result<PointCloudInfo> {
    // The largest header, LAS 1.4's; shorter files are checked against their version's size.
    let mut h = [0u8; 375];
    let avail = file_len.min(375) as usize;
    if avail < 227 {
        return Err(bad(format!("{file_len} bytes is shorter than a LAS header")));
    }
    read_at(read, 0, &mut h[..avail])?;
    if &h[0..4] != b"LASF" {
        return Err(bad("no LASF signature"));
    }
    let version = (h[24], h[25]);
    if version.0 != 1 || version.1 > 4 {
        return Err(bad(format!("LAS version {}.{} is not 1.0 to 1.4", version.0, version.1)));
    }
    let min_header: u16 = match version.1 {
        0..=2 => 227,
        3 => 235,
        _ => 375,
    };
    let header_size = u16_at(&h, 94);
    if header_size < min_header || u64::from(header_size) > file_len {
        return Err(bad(format!("header size {header_size} for LAS 1.{} in a {file_len}-byte file", version.1)));
    }
    let offset_to_points = u64::from(u32_at(&h, 96));
    if offset_to_points < u64::from(header_size) || offset_to_points > file_len {
        return Err(bad(format!("offset to point data {offset_to_points} outside the file")));
    }
    let n_vlrs = u32_at(&h, 100);
    let format_byte = h[104];
    let compressed = format_byte & 0x80 != 0;
    let point_format = format_byte & 0x3f;
    if format_byte & 0x40 != 0 && !compressed {
        return Err(bad(format!("point format byte {format_byte:#x}")));
    }
    let Some(&min_len) = FORMAT_LENGTHS.get(usize::from(point_format)) else {
        return Err(bad(format!("point format {point_format} is not 0 to 10")));
    };
    if point_format > 5 && version.1 < 4 {
        return Err(bad(format!("point format {point_format} needs LAS 1.4, the file is 1.{}", version.1)));
    }
    let record_length = u16_at(&h, 105);
    if record_length < min_len {
        return Err(bad(format!("record length {record_length} is shorter than format {point_format}'s {min_len}")));
    }
    let legacy_count = u64::from(u32_at(&h, 107));
    let points = if version.1 >= 4 {
        let count = u64_at(&h, 247);
        if legacy_count != 0 && count != legacy_count {
            return Err(bad(format!("legacy point count {legacy_count} differs from the point count {count}")));
        }
        count
    } else {
        legacy_count
    };
    if points > limits.max_points {
        return Err(limit("points", points, limits.max_points));
    }
    let scale = [f64_at(&h, 131), f64_at(&h, 139), f64_at(&h, 147)];
    let offset = [f64_at(&h, 155), f64_at(&h, 163), f64_at(&h, 171)];
    if scale.iter().any(|s| !s.is_finite() || *s == 0.0) || offset.iter().any(|o| !o.is_finite()) {
        return Err(bad(format!("scale {scale:?} and offset {offset:?} must be finite, scale non-zero")));
    }
    let bounds = [f64_at(&h, 187), f64_at(&h, 203), f64_at(&h, 219), f64_at(&h, 179), f64_at(&h, 195), f64_at(&h, 211)];

    // VLRs lie between the header and the points.
    let mut at = u64::from(header_size);
    let mut vh = [0u8; VLR_HEADER as usize];
    let mut laz_record_length = None;
    for i in 0..n_vlrs {
        if at + VLR_HEADER > offset_to_points {
            return Err(bad(format!("VLR {i} of {n_vlrs} starts past the point data")));
        }
        read_at(read, at, &mut vh)?;
        let len = u16_at(&vh, 20);
        if vh[2..18].starts_with(b"laszip encoded") && u16_at(&vh, 18) == 22204 {
            let mut data = vec![0u8; usize::from(len)];
            read_at(read, at + VLR_HEADER, &mut data)?;
            laz_record_length = Some(laszip_record_length(&data)?);
        }
        at += VLR_HEADER + u64::from(len);
        if at > offset_to_points {
            return Err(bad(format!("VLR {i} runs into the point data")));
        }
    }
    // The LAZ decoder writes the items its VLR lists; the buffers are sized by the header's
    // record length, so the two must agree.
    if compressed && laz_record_length != Some(u64::from(record_length)) {
        return Err(bad(match laz_record_length {
            None => "a LAZ file without its laszip VLR".to_owned(),
            Some(n) => format!("the laszip items make {n}-byte records, the header says {record_length}"),
        }));
    }

    // Extended VLRs (LAS 1.4) follow the points.
    let mut end_of_points = file_len;
    if version.1 >= 4 {
        let start = u64_at(&h, 235);
        let n_evlrs = u32_at(&h, 243);
        if n_evlrs > 0 {
            if start < offset_to_points || start > file_len {
                return Err(bad(format!("start of the first EVLR {start} outside the point data's end")));
            }
            end_of_points = start;
            let mut at = start;
            let mut eh = [0u8; EVLR_HEADER as usize];
            for i in 0..n_evlrs {
                if at.checked_add(EVLR_HEADER).is_none_or(|e| e > file_len) {
                    return Err(bad(format!("EVLR {i} of {n_evlrs} starts past the end of the file")));
                }
                read_at(read, at, &mut eh)?;
                at = at + EVLR_HEADER + u64_at(&eh, 20).min(file_len);
                if at > file_len {
                    return Err(bad(format!("EVLR {i} runs past the end of the file")));
                }
            }
        }
    }

    let room = end_of_points.saturating_sub(offset_to_points);
    if compressed {
        // A LAZ point block opens with the offset of its chunk table; the `laz` crate sizes the
        // table from the chunk count stored there.
        if room < 8 {
            return Err(bad("no room for the LAZ chunk table offset"));
        }
        let mut b = [0u8; 8];
        read_at(read, offset_to_points, &mut b)?;
        let table = i64::from_le_bytes(b);
        if table != -1 {
            let table = u64::try_from(table).map_err(|_| bad(format!("LAZ chunk table offset {table}")))?;
            if table < offset_to_points + 8 || table.saturating_add(8) > file_len {
                return Err(bad(format!("LAZ chunk table offset {table} outside the file")));
            }
            let mut t = [0u8; 8];
            read_at(read, table, &mut t)?;
            let chunks = u64::from(u32_at(&t, 4));
            // Every chunk holds at least one point and takes at least one byte.
            if chunks > points.max(1) || chunks > table - offset_to_points {
                return Err(bad(format!("{chunks} LAZ chunks for {points} points in {room} bytes")));
            }
        }
    } else {
        let need = points
            .checked_mul(u64::from(record_length))
            .ok_or_else(|| bad(format!("{points} points of {record_length} bytes")))?;
        if need > room {
            return Err(bad(format!(
                "{points} points of {record_length} bytes need {need} bytes, the file has {room} after the header"
            )));
        }
    }

    Ok(PointCloudInfo { version, point_format, compressed, record_length, points, scale, offset, bounds })
}

/// Bytes of a point record the laszip VLR's items make (the VLR lists, from byte 34, six bytes
/// per item: type, size, version).
fn laszip_record_length(vlr: &[u8]) -> Result<u64> {
    if vlr.len() < 34 {
        return Err(bad(format!("a laszip VLR of {} bytes", vlr.len())));
    }
    let items = usize::from(u16_at(vlr, 32));
    if items == 0 || vlr.len() < 34 + 6 * items {
        return Err(bad(format!("a laszip VLR of {} bytes listing {items} items", vlr.len())));
    }
    Ok((0..items).map(|k| u64::from(u16_at(vlr, 34 + 6 * k + 2))).sum())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn minimal(points: u32) -> Vec<u8> {
        let mut h = vec![0u8; 227];
        h[0..4].copy_from_slice(b"LASF");
        h[24] = 1;
        h[25] = 2;
        h[94..96].copy_from_slice(&227u16.to_le_bytes());
        h[96..100].copy_from_slice(&227u32.to_le_bytes());
        h[104] = 0;
        h[105..107].copy_from_slice(&20u16.to_le_bytes());
        h[107..111].copy_from_slice(&points.to_le_bytes());
        for at in [131, 139, 147] {
            h[at..at + 8].copy_from_slice(&0.01f64.to_le_bytes());
        }
        for i in 0..points {
            let mut p = [0u8; 20];
            p[0..4].copy_from_slice(&(i as i32 * 100).to_le_bytes());
            p[8..12].copy_from_slice(&250i32.to_le_bytes());
            p[14] = 0b0000_1001; // return 1 of 1
            p[15] = 2;
            h.extend_from_slice(&p);
        }
        h
    }

    #[test]
    fn reads_a_minimal_file() {
        let (info, pc) = read_bytes(&minimal(3), Limits::default()).unwrap();
        assert_eq!(info.points, 3);
        assert_eq!(pc.x, vec![0.0, 1.0, 2.0]);
        assert_eq!(pc.z, vec![2.5; 3]);
        assert_eq!(pc.classification, vec![2; 3]);
        assert_eq!((pc.return_number[0], pc.number_of_returns[0]), (1, 1));
        assert_eq!((pc.rgb, pc.nir), (None, None));
    }

    #[test]
    fn a_point_count_the_file_cannot_hold_is_refused() {
        let mut f = minimal(3);
        f[107..111].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(read_bytes(&f, Limits { max_points: u64::MAX }), Err(ReadError::Header(_))));
        assert!(matches!(read_bytes(&f, Limits::default()), Err(ReadError::Limit { .. })));
    }

    #[test]
    fn offsets_past_the_end_are_refused() {
        let mut f = minimal(3);
        f[96..100].copy_from_slice(&10_000u32.to_le_bytes());
        assert!(matches!(read_bytes(&f, Limits::default()), Err(ReadError::Header(_))));
        let mut f = minimal(3);
        f[100..104].copy_from_slice(&1u32.to_le_bytes());
        assert!(matches!(read_bytes(&f, Limits::default()), Err(ReadError::Header(_))));
    }

    /// A source that panics when read from any thread but the one that made it, as the LAZ
    /// decoder panics on some corrupt streams.
    struct Fused {
        inner: Cursor<Vec<u8>>,
        owner: std::thread::ThreadId,
    }

    impl Read for Fused {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            assert_eq!(std::thread::current().id(), self.owner, "the decoder met a corrupt stream");
            self.inner.read(buf)
        }
    }

    impl Seek for Fused {
        fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
            self.inner.seek(to)
        }
    }

    /// The points are decoded on a thread of their own: a panic there is reported as a corrupt
    /// file with the decoder's own words, not lost with the thread.
    #[test]
    fn a_panic_while_decoding_is_a_corrupt_file() {
        // Enough points for the decoding thread (more than OVERLAP_FROM batches).
        let read = Fused { inner: Cursor::new(minimal(1_000_000)), owner: std::thread::current().id() };
        match stream_from(read, Limits::default(), |_, _, _| Ok(())) {
            Err(ReadError::Corrupt(msg)) => assert!(msg.contains("corrupt stream"), "{msg}"),
            other => panic!("{other:?}"),
        }
    }

    /// An error of the caller's stops the read, with that error, after the batch it came from,
    /// whether the points are decoded on the caller's thread (a file of a few batches) or on a
    /// thread of their own; both read every point in order.
    #[test]
    fn the_callers_error_stops_the_read() {
        let laz = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pdal-extra-bytes.laz")).unwrap();
        for bytes in [laz, minimal(1_000_000)] {
            let mut batches = 0;
            let result = stream_from(Cursor::new(bytes.clone()), Limits::default(), |_, _, _| {
                batches += 1;
                Err(ReadError::Header("enough".to_owned()))
            });
            assert!(matches!(result, Err(ReadError::Header(m)) if m == "enough"));
            assert_eq!(batches, 1);
            let (info, cloud) = read_bytes(&bytes, Limits::default()).unwrap();
            assert_eq!(cloud.len() as u64, info.points);
            if info.points == 1_000_000 {
                assert!(cloud.x.iter().enumerate().all(|(i, &x)| x == i as f64));
            }
        }
    }

    #[test]
    fn truncated_and_foreign_files_are_refused() {
        let f = minimal(3);
        assert!(read_bytes(&f[..f.len() - 1], Limits::default()).is_err());
        assert!(read_bytes(&f[..100], Limits::default()).is_err());
        assert!(read_bytes(b"\xff\xd8\xff\xe0 a JPEG", Limits::default()).is_err());
    }
}

/// Bytes of a VLR header.
const VLR_HEADER_LEN: usize = 54;

/// Whether the points of a checked file may be decoded on rayon's threads: a LAZ file whose
/// chunk table is sound ([`sound_chunk_table`]); anything else is decoded in sequence.
pub(crate) fn laz_parallelism<R: Read + Seek>(read: &mut R, info: &PointCloudInfo) -> LazParallelism {
    laz_decoding(read, info).0
}

/// [`laz_parallelism`], with the points of a chunk when the chunks are of a fixed size.
fn laz_decoding<R: Read + Seek>(read: &mut R, info: &PointCloudInfo) -> (LazParallelism, Option<u64>) {
    if !info.compressed {
        return (LazParallelism::No, None);
    }
    let probe = |read: &mut R| -> std::io::Result<Option<(u64, laz::LazVlr)>> {
        let mut h = [0u8; 104];
        read.seek(SeekFrom::Start(0))?;
        read.read_exact(&mut h)?;
        let header_size = u64::from(u16_at(&h, 94));
        let offset_to_points = u64::from(u32_at(&h, 96));
        let vlrs = u32_at(&h, 100);
        let mut at = header_size;
        for _ in 0..vlrs {
            let mut v = [0u8; VLR_HEADER_LEN];
            read.seek(SeekFrom::Start(at))?;
            read.read_exact(&mut v)?;
            let user = String::from_utf8_lossy(&v[2..18]).trim_end_matches('\0').to_owned();
            let record = u16_at(&v, 18);
            let len = usize::from(u16_at(&v, 20));
            if user == "laszip encoded" && record == 22204 {
                let mut data = vec![0u8; len];
                read.read_exact(&mut data)?;
                return Ok(laz::LazVlr::from_buffer(&data).ok().map(|vlr| (offset_to_points, vlr)));
            }
            at += (VLR_HEADER_LEN + len) as u64;
        }
        Ok(None)
    };
    match probe(read) {
        Ok(Some((offset, vlr))) if sound_chunk_table(read, offset, info.points, info.record_length, &vlr) => {
            (LazParallelism::Yes, (!vlr.uses_variable_size_chunks()).then(|| u64::from(vlr.chunk_size())))
        }
        _ => (LazParallelism::No, None),
    }
}

/// Whether a LAZ file's chunk table (found as the `laz` crate finds it) fits the file: its
/// offset inside the file, at most one chunk a point, byte counts that add up to no more than the
/// file, point counts that add up to the header's, and (fixed-size chunks) a chunk whose decoded
/// records take at most 256 MiB: the parallel decoder sizes its buffers from these. A table that
/// does not is decoded in sequence.
pub(crate) fn sound_chunk_table<R: Read + Seek>(
    f: &mut R,
    offset_to_points: u64,
    points: u64,
    record_length: u16,
    vlr: &laz::LazVlr,
) -> bool {
    let fixed = !vlr.uses_variable_size_chunks();
    if fixed && u64::from(vlr.chunk_size()) * u64::from(record_length) > 256 << 20 {
        return false;
    }
    let mut check = || -> std::io::Result<bool> {
        let len = f.seek(SeekFrom::End(0))?;
        let mut word = [0u8; 8];
        let mut at = |f: &mut R, pos: u64| -> std::io::Result<i64> {
            f.seek(SeekFrom::Start(pos))?;
            f.read_exact(&mut word)?;
            Ok(i64::from_le_bytes(word))
        };
        let mut table = at(f, offset_to_points)?;
        if table <= offset_to_points as i64 {
            // Where the `laz` crate looks next: the last 8 bytes of the file.
            table = at(f, len.saturating_sub(8))?;
        }
        let Ok(table) = u64::try_from(table) else { return Ok(false) };
        if table <= offset_to_points || table.saturating_add(8) > len {
            return Ok(false);
        }
        f.seek(SeekFrom::Start(table + 4))?;
        let mut count = [0u8; 4];
        f.read_exact(&mut count)?;
        let chunks = u64::from(u32::from_le_bytes(count));
        if chunks > points.max(1) || chunks.saturating_mul(8) > len {
            return Ok(false);
        }
        f.seek(SeekFrom::Start(offset_to_points))?;
        let Ok(entries) = laz::laszip::ChunkTable::read_from(&mut *f, vlr) else { return Ok(false) };
        let (mut bytes, mut counted) = (0u64, 0u64);
        for i in 0..entries.len() {
            let e = &entries[i];
            bytes = bytes.saturating_add(e.byte_count);
            counted = counted.saturating_add(e.point_count);
        }
        Ok(bytes <= len
            && (counted == points || (fixed && counted >= points && counted - points < u64::from(vlr.chunk_size()))))
    };
    check().unwrap_or(false)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod parallel_tests {
    use super::*;

    fn data(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
    }

    #[test]
    fn a_sound_laz_file_is_decoded_in_parallel_and_a_lying_one_in_sequence() {
        let bytes = std::fs::read(data("pdal-extra-bytes.laz")).unwrap();
        let mut read = Cursor::new(bytes.clone());
        let info = check_header(&mut read, Limits::default()).unwrap();
        assert!(matches!(laz_parallelism(&mut read, &info), LazParallelism::Yes));
        // The chunk table's offset (the first 8 bytes of the point data) pointed past the end.
        let offset = u32_at(&bytes, 96) as usize;
        let mut lying = bytes.clone();
        lying[offset..offset + 8].copy_from_slice(&(bytes.len() as i64 + 10).to_le_bytes());
        let mut read = Cursor::new(lying);
        assert!(matches!(laz_parallelism(&mut read, &info), LazParallelism::No));
        // An uncompressed file is read in sequence, and the same points come out either way.
        let las = data("isprs-samp11.las");
        let mut read = BufReader::new(File::open(&las).unwrap());
        let info = check_header(&mut read, Limits::default()).unwrap();
        assert!(matches!(laz_parallelism(&mut read, &info), LazParallelism::No));
        let (_, parallel) = read_bytes(&bytes, Limits::default()).unwrap();
        assert_eq!(parallel.len(), 697_721);
    }
}
