//! The raw side of LAS: the header, VLRs and EVLRs of an input as stored, its point records
//! streamed in batches, the fields of a record by point format, and the header fields a writer
//! recomputes.

use super::{Result, WriteError};
use crate::reader::{self, Limits, PointCloudInfo, ReadError};
use laz::{LasZipDecompressor, LazVlr, ParLasZipDecompressor};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Record id of the laszip VLR (user id `laszip encoded`).
pub(crate) const LASZIP_RECORD: u16 = 22204;
/// Record id of the extra-bytes VLR (user id `LASF_Spec`).
pub(crate) const EXTRA_BYTES_RECORD: u16 = 4;
/// The most EVLR data carried over, all EVLRs together (they are held in memory).
const MAX_EVLR_BYTES: u64 = 256 << 20;

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

pub(crate) fn padded<const N: usize>(s: &str) -> [u8; N] {
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
            // The parallel decoder sizes its reads from the chunk table: it is used only when the
            // table is one a file of this size and point count can hold.
            let parallel = {
                let mut probe = BufReader::new(File::open(path)?);
                reader::sound_chunk_table(&mut probe, offset_to_points, info.points, info.record_length, &vlr)
            };
            match parallel.then(|| ParLasZipDecompressor::new(file, vlr.clone())) {
                Some(Ok(d)) => Points::ParLaz(Box::new(d)),
                _ => {
                    let mut file = BufReader::new(File::open(path)?);
                    file.seek(SeekFrom::Start(offset_to_points))?;
                    Points::Laz(Box::new(LasZipDecompressor::new(file, vlr)?))
                }
            }
        } else {
            Points::Las(file)
        };
        // From a LAZ file of fixed-size chunks (chunk > 0), whole chunks.
        let batch = reader::batch_points(info.record_length, Some(chunk));
        Ok(Self { info, header, vlrs, evlrs, points, read: 0, batch })
    }

    /// The file at `path` with its points read from `records` instead: the file's records
    /// decoded, one after another from the start (what a tiled classification keeps as it
    /// streams the file), so that they are not decoded a second time.
    pub(crate) fn open_with_records(path: &Path, records: &Path) -> Result<Self> {
        let mut source = Self::open(path)?;
        let file = File::open(records)?;
        let expected = source.info.points.saturating_mul(u64::from(source.info.record_length));
        let len = file.metadata()?.len();
        if len != expected {
            return Err(ReadError::Header(format!("{len} bytes of records where {expected} were kept")).into());
        }
        source.points = Points::Las(BufReader::with_capacity(1 << 20, file));
        source.batch = reader::batch_points(source.info.record_length, None);
        Ok(source)
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

pub(crate) fn put(b: &mut [u8], at: usize, bytes: &[u8]) {
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn classes_are_set_in_the_bits_of_each_format() {
        let mut rec = [0u8; 30];
        rec[15] = 0b1010_0000;
        set_class(&mut rec, 1, 31);
        assert_eq!((rec[15], class_of(&rec, 1)), (0b1011_1111, 31));
        set_class(&mut rec, 6, 200);
        assert_eq!(class_of(&rec, 6), 200);
    }

    #[test]
    fn kept_records_must_be_the_files_length() {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pdal-extra-bytes.laz");
        let dir = tempfile::tempdir().unwrap();
        let records = dir.path().join("records.las");
        std::fs::write(&records, b"too short").unwrap();
        let err = Source::open_with_records(&source, &records).err().unwrap();
        assert!(err.to_string().contains("9 bytes of records"), "{err}");
    }
}
