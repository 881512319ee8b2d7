//! TIFF writers. [`TiffWriter`] streams rows into a tiled or stripped GeoTIFF (chunk data first,
//! directory last), holding one row of chunks in memory. [`write_cog`] lays out a Cloud
//! Optimized GeoTIFF: every IFD right after the header, then the overviews' tiles from the
//! smallest up, then the full-resolution tiles, each image's tiles in row-major order. Overviews
//! are built by a cascade of 2×2 averaging levels fed block by block, in the source's sample
//! type, so memory stays at a few tile rows per level whatever the raster size. Tiles are
//! compressed on rayon's threads while the next block is read; each level writes its own tiles
//! in order, so the layout does not depend on the scheduling.

use super::codec::{self, Compression};
use super::reader::{write_ne, GeoTiff, Sample};
use super::tags::*;
use super::GeoInfo;
use crate::types::{DataType, Window};
use crate::{Error, Result};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// A pixel type that can be written.
pub trait Pixel: Sample {
    /// The TIFF sample type.
    const DATA_TYPE: DataType;
    /// As `f64`.
    fn to_f64(self) -> f64;
    /// Appends the native-order bytes.
    fn put_ne(self, out: &mut Vec<u8>);
    /// Writes the native-order bytes of `values` to the start of `out`.
    fn write_ne_slice(values: &[Self], out: &mut [u8]) {
        let mut bytes = Vec::with_capacity(std::mem::size_of_val(values));
        for v in values {
            v.put_ne(&mut bytes);
        }
        out[..bytes.len()].copy_from_slice(&bytes);
    }
}

macro_rules! pixel {
    ($($t:ty => $d:ident),*) => {$(impl Pixel for $t {
        const DATA_TYPE: DataType = DataType::$d;
        #[inline] fn to_f64(self) -> f64 { self as f64 }
        #[inline] fn put_ne(self, out: &mut Vec<u8>) { out.extend_from_slice(&self.to_ne_bytes()) }
        fn write_ne_slice(values: &[Self], out: &mut [u8]) {
            for (o, v) in out.chunks_exact_mut(std::mem::size_of::<$t>()).zip(values) {
                o.copy_from_slice(&v.to_ne_bytes());
            }
        }
    })*};
}
pixel!(u8 => UInt8, i8 => Int8, u16 => UInt16, i16 => Int16, u32 => UInt32, i32 => Int32, f32 => Float32, f64 => Float64);

/// Layout and encoding of a written TIFF.
#[derive(Clone, Debug)]
pub struct WriterOptions {
    /// Tile edge in pixels (a multiple of 16); `None` writes strips of `rows_per_strip`.
    pub tile_size: Option<usize>,
    pub rows_per_strip: usize,
    pub compression: Compression,
    /// Deflate level 1–9 (zlib-rs), or [`FASTEST`] for the fastest encoder.
    pub level: u32,
    /// Use predictor 2 (integers) or 3 (floats) with Deflate.
    pub predictor: bool,
    pub geo: Option<GeoInfo>,
    pub nodata: Option<f64>,
    /// Force BigTIFF; otherwise chosen when the data may pass 4 GiB.
    pub bigtiff: bool,
}

impl Default for WriterOptions {
    fn default() -> Self {
        Self {
            tile_size: Some(256),
            rows_per_strip: 16,
            compression: Compression::Deflate,
            level: 6,
            predictor: false,
            geo: None,
            nodata: None,
            bigtiff: false,
        }
    }
}

/// Options of [`write_cog`].
/// The Deflate "level" that asks for the fastest encoder rather than zlib's stored mode:
/// fdeflate's, which writes literals and runs with Huffman codes fitted to the chunk and looks for
/// no other matches. On a Float32 index with the floating-point predictor it compresses about six
/// times faster than zlib level 1, into a stream about a fifth larger (bench/eo); any Deflate
/// reader reads it.
pub const FASTEST: u32 = 0;

#[derive(Clone, Debug)]
pub struct CogOptions {
    pub tile_size: usize,
    /// Deflate level 1–9 (zlib-rs), or [`FASTEST`] for the fastest encoder.
    pub level: u32,
    pub predictor: bool,
    /// Overviews are made until the image fits in one tile.
    pub overviews: bool,
    /// Average (continuous data) or nearest (categorical data) for overviews.
    pub average: bool,
}

impl Default for CogOptions {
    fn default() -> Self {
        Self { tile_size: 512, level: 6, predictor: true, overviews: true, average: true }
    }
}

#[derive(Clone, Copy)]
struct Layout {
    width: usize,
    height: usize,
    bands: usize,
    data_type: DataType,
    chunk_width: usize,
    chunk_height: usize,
    tiled: bool,
    compression: Compression,
    level: u32,
    predictor: u16,
}

impl Layout {
    fn new(width: usize, height: usize, bands: usize, data_type: DataType, o: &WriterOptions) -> Result<Self> {
        if width == 0 || height == 0 || bands == 0 {
            return Err(Error::arg("empty raster"));
        }
        let (cw, ch, tiled) = match o.tile_size {
            Some(t) if t.is_multiple_of(16) && t > 0 => (t, t, true),
            Some(t) => return Err(Error::arg(format!("tile size {t} is not a multiple of 16"))),
            None => (width, o.rows_per_strip.clamp(1, height), false),
        };
        let predictor = match (o.predictor, o.compression) {
            (true, Compression::None) | (false, _) => 1,
            (true, _) if data_type.is_float() => 3,
            (true, _) => 2,
        };
        Ok(Self {
            width,
            height,
            bands,
            data_type,
            chunk_width: cw,
            chunk_height: ch,
            tiled,
            compression: o.compression,
            level: if o.level == FASTEST { FASTEST } else { o.level.clamp(1, 9) },
            predictor,
        })
    }

    fn chunks_across(&self) -> usize {
        self.width.div_ceil(self.chunk_width)
    }
    fn chunks(&self) -> usize {
        self.chunks_across() * self.height.div_ceil(self.chunk_height)
    }

    /// Encodes one row of chunks from `rows` (native bytes, bands interleaved, `n` rows).
    fn encode_chunk_row(&self, rows: &[u8], n: usize, fill: &[u8]) -> Result<Vec<Vec<u8>>> {
        let px = self.bands * self.data_type.size();
        let row_bytes = self.width * px;
        let chunk_rows = if self.tiled { self.chunk_height } else { n };
        (0..self.chunks_across())
            .into_par_iter()
            .map(|c| {
                let x0 = c * self.chunk_width;
                let w = self.chunk_width.min(self.width - x0);
                let mut buf = Vec::with_capacity(self.chunk_width * chunk_rows * px);
                for r in 0..chunk_rows {
                    if r < n {
                        let start = r * row_bytes + x0 * px;
                        buf.extend_from_slice(&rows[start..start + w * px]);
                        for _ in w..self.chunk_width {
                            buf.extend_from_slice(fill);
                        }
                    } else {
                        for _ in 0..self.chunk_width {
                            buf.extend_from_slice(fill);
                        }
                    }
                }
                let ss = self.data_type.size();
                let row_samples = self.chunk_width * self.bands;
                match self.predictor {
                    2 => codec::apply_horizontal_spp(&mut buf, row_samples, self.bands, ss),
                    3 => codec::apply_float(&mut buf, row_samples, self.bands, ss),
                    _ => {}
                }
                match self.compression {
                    Compression::None => Ok(buf),
                    c => codec::compress(c, &buf, self.level),
                }
            })
            .collect()
    }

    fn fill_pixel(&self, nodata: Option<f64>) -> Vec<u8> {
        let ss = self.data_type.size();
        let mut fill = vec![0u8; self.bands * ss];
        if let Some(v) = nodata {
            for s in fill.chunks_exact_mut(ss) {
                write_ne(self.data_type, v, s);
            }
        }
        fill
    }
}

/// Streams rows into a GeoTIFF.
pub struct TiffWriter {
    out: BufWriter<File>,
    layout: Layout,
    opts: WriterOptions,
    bigtiff: bool,
    pending: Vec<u8>,
    pending_rows: usize,
    rows_done: usize,
    offsets: Vec<u64>,
    counts: Vec<u64>,
    pos: u64,
    fill: Vec<u8>,
}

impl TiffWriter {
    /// Creates `path` for a `width` × `height` raster of `bands` bands of `T`.
    pub fn create<T: Pixel>(
        path: impl AsRef<Path>,
        width: usize,
        height: usize,
        bands: usize,
        opts: WriterOptions,
    ) -> Result<Self> {
        Self::create_typed(path, width, height, bands, T::DATA_TYPE, opts)
    }

    fn create_typed(
        path: impl AsRef<Path>,
        width: usize,
        height: usize,
        bands: usize,
        data_type: DataType,
        opts: WriterOptions,
    ) -> Result<Self> {
        let layout = Layout::new(width, height, bands, data_type, &opts)?;
        let raw = width as u64 * height as u64 * bands as u64 * data_type.size() as u64;
        let bigtiff = opts.bigtiff || raw > 3_900_000_000;
        // Chunks of 64 KiB and more (whole strips and tiles) go to the file without a copy into
        // the buffer first; the buffer gathers the small ones.
        let mut out = BufWriter::with_capacity(64 << 10, File::create(path)?);
        let header_len = if bigtiff { 16 } else { 8 };
        out.write_all(&vec![0u8; header_len])?;
        let fill = layout.fill_pixel(opts.nodata);
        Ok(Self {
            out,
            layout,
            opts,
            bigtiff,
            pending: Vec::new(),
            pending_rows: 0,
            rows_done: 0,
            offsets: Vec::with_capacity(layout.chunks()),
            counts: Vec::with_capacity(layout.chunks()),
            pos: header_len as u64,
            fill,
        })
    }

    /// Appends whole rows (bands interleaved). The row count is `rows.len() / (width * bands)`.
    pub fn write_rows<T: Pixel>(&mut self, rows: &[T]) -> Result<()> {
        if T::DATA_TYPE != self.layout.data_type {
            return Err(Error::arg("sample type differs from the writer's"));
        }
        let per_row = self.layout.width * self.layout.bands;
        if !rows.len().is_multiple_of(per_row) {
            return Err(Error::arg("partial row"));
        }
        let n = rows.len() / per_row;
        if self.rows_done + self.pending_rows + n > self.layout.height {
            return Err(Error::arg("more rows than the raster has"));
        }
        let at = self.pending.len();
        self.pending.resize(at + std::mem::size_of_val(rows), 0);
        T::write_ne_slice(rows, &mut self.pending[at..]);
        self.pending_rows += n;
        self.flush_full()?;
        Ok(())
    }

    fn flush_full(&mut self) -> Result<()> {
        let ch = self.layout.chunk_height;
        let row_bytes = self.layout.width * self.layout.bands * self.layout.data_type.size();
        // Rows of chunks are taken from the front of `pending`; what is left (less than a row of
        // chunks) moves to the front once at the end rather than after every row of chunks.
        let mut taken = 0;
        // Uncompressed strips are the rows as they are: written straight from `pending`.
        let as_is = !self.layout.tiled && self.layout.compression == Compression::None && self.layout.predictor == 1;
        while self.pending_rows >= ch
            || (self.pending_rows > 0 && self.rows_done + self.pending_rows == self.layout.height)
        {
            let n = self.pending_rows.min(ch);
            let rows = &self.pending[taken..taken + n * row_bytes];
            if as_is {
                Self::put_chunk(&mut self.out, &mut self.pos, &mut self.offsets, &mut self.counts, rows)?;
            } else {
                for e in self.layout.encode_chunk_row(rows, n, &self.fill)? {
                    Self::put_chunk(&mut self.out, &mut self.pos, &mut self.offsets, &mut self.counts, &e)?;
                }
            }
            taken += n * row_bytes;
            self.pending_rows -= n;
            self.rows_done += n;
        }
        self.pending.drain(..taken);
        Ok(())
    }

    /// Appends one encoded chunk, padded to an even offset.
    fn put_chunk(
        out: &mut BufWriter<File>,
        pos: &mut u64,
        offsets: &mut Vec<u64>,
        counts: &mut Vec<u64>,
        e: &[u8],
    ) -> Result<()> {
        out.write_all(e)?;
        offsets.push(*pos);
        counts.push(e.len() as u64);
        *pos += e.len() as u64;
        if !pos.is_multiple_of(2) {
            out.write_all(&[0])?;
            *pos += 1;
        }
        Ok(())
    }

    /// Writes the directory and closes the file; fails if rows are missing.
    pub fn finish(mut self) -> Result<()> {
        if self.rows_done != self.layout.height {
            return Err(Error::arg(format!("{} of {} rows written", self.rows_done, self.layout.height)));
        }
        let ifd_at = self.pos;
        let entries = image_entries(
            &self.layout,
            &self.offsets,
            &self.counts,
            false,
            &self.opts.geo,
            self.opts.nodata,
            self.bigtiff,
        );
        let bytes = encode_ifd(&entries, ifd_at, self.bigtiff, 0);
        self.out.write_all(&bytes)?;
        let mut f = self.out.into_inner().map_err(|e| e.into_error())?;
        f.seek(SeekFrom::Start(0))?;
        f.write_all(&header(self.bigtiff, ifd_at))?;
        f.sync_data().ok();
        Ok(())
    }
}

fn header(bigtiff: bool, first_ifd: u64) -> Vec<u8> {
    let mut h = Vec::with_capacity(16);
    h.extend_from_slice(b"II");
    if bigtiff {
        h.extend_from_slice(&43u16.to_le_bytes());
        h.extend_from_slice(&8u16.to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        h.extend_from_slice(&first_ifd.to_le_bytes());
    } else {
        h.extend_from_slice(&42u16.to_le_bytes());
        h.extend_from_slice(&(first_ifd as u32).to_le_bytes());
    }
    h
}

enum Value {
    Short(Vec<u16>),
    Long(Vec<u32>),
    Long8(Vec<u64>),
    Double(Vec<f64>),
    Ascii(String),
}

impl Value {
    fn typ(&self) -> u16 {
        match self {
            Value::Short(_) => SHORT,
            Value::Long(_) => LONG,
            Value::Long8(_) => LONG8,
            Value::Double(_) => DOUBLE,
            Value::Ascii(_) => ASCII,
        }
    }
    fn bytes(&self) -> Vec<u8> {
        match self {
            Value::Short(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Value::Long(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Value::Long8(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Value::Double(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Value::Ascii(s) => {
                let mut b = s.as_bytes().to_vec();
                b.push(0);
                b
            }
        }
    }
    fn count(&self) -> usize {
        match self {
            Value::Short(v) => v.len(),
            Value::Long(v) => v.len(),
            Value::Long8(v) => v.len(),
            Value::Double(v) => v.len(),
            Value::Ascii(s) => s.len() + 1,
        }
    }
}

fn offsets_value(v: &[u64], bigtiff: bool) -> Value {
    if bigtiff {
        Value::Long8(v.to_vec())
    } else {
        Value::Long(v.iter().map(|&x| x as u32).collect())
    }
}

fn image_entries(
    l: &Layout,
    offsets: &[u64],
    counts: &[u64],
    overview: bool,
    geo: &Option<GeoInfo>,
    nodata: Option<f64>,
    bigtiff: bool,
) -> Vec<(u16, Value)> {
    let mut e: Vec<(u16, Value)> = Vec::new();
    if overview {
        e.push((NEW_SUBFILE_TYPE, Value::Long(vec![1])));
    }
    e.push((IMAGE_WIDTH, Value::Long(vec![l.width as u32])));
    e.push((IMAGE_LENGTH, Value::Long(vec![l.height as u32])));
    e.push((BITS_PER_SAMPLE, Value::Short(vec![(l.data_type.size() * 8) as u16; l.bands])));
    e.push((COMPRESSION, Value::Short(vec![l.compression.tag()])));
    let rgb = l.bands >= 3 && l.data_type == DataType::UInt8;
    e.push((PHOTOMETRIC, Value::Short(vec![if rgb { 2 } else { 1 }])));
    if !l.tiled {
        e.push((STRIP_OFFSETS, offsets_value(offsets, bigtiff)));
    }
    e.push((SAMPLES_PER_PIXEL, Value::Short(vec![l.bands as u16])));
    if !l.tiled {
        e.push((ROWS_PER_STRIP, Value::Long(vec![l.chunk_height as u32])));
        e.push((STRIP_BYTE_COUNTS, offsets_value(counts, bigtiff)));
    }
    e.push((PLANAR_CONFIG, Value::Short(vec![1])));
    if l.predictor != 1 {
        e.push((PREDICTOR, Value::Short(vec![l.predictor])));
    }
    if l.tiled {
        e.push((TILE_WIDTH, Value::Long(vec![l.chunk_width as u32])));
        e.push((TILE_LENGTH, Value::Long(vec![l.chunk_height as u32])));
        e.push((TILE_OFFSETS, offsets_value(offsets, bigtiff)));
        e.push((TILE_BYTE_COUNTS, offsets_value(counts, bigtiff)));
    }
    let extra = if rgb { l.bands - 3 } else { l.bands - 1 };
    if extra > 0 {
        // The first extra sample of an RGB image is unassociated alpha.
        let mut v = vec![0u16; extra];
        if rgb && l.bands == 4 {
            v[0] = 2;
        }
        e.push((EXTRA_SAMPLES, Value::Short(v)));
    }
    e.push((SAMPLE_FORMAT, Value::Short(vec![l.data_type.sample_format(); l.bands])));
    if let Some(g) = geo {
        let gt = g.geo_transform.0;
        if g.geo_transform.is_north_up() {
            e.push((MODEL_PIXEL_SCALE, Value::Double(vec![gt[1], -gt[5], 0.0])));
            e.push((MODEL_TIEPOINT, Value::Double(vec![0.0, 0.0, 0.0, gt[0], gt[3], 0.0])));
        } else {
            let m = vec![gt[1], gt[2], 0.0, gt[0], gt[4], gt[5], 0.0, gt[3], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0];
            e.push((MODEL_TRANSFORMATION, Value::Double(m)));
        }
        let mut keys: Vec<[u16; 4]> =
            vec![[GT_MODEL_TYPE, 0, 1, if g.geographic { 2 } else { 1 }], [GT_RASTER_TYPE, 0, 1, 1]];
        if let Some(code) = g.epsg {
            keys.push([if g.geographic { GEOGRAPHIC_TYPE } else { PROJECTED_CS_TYPE }, 0, 1, code]);
        }
        let mut dir = vec![1u16, 1, 0, keys.len() as u16];
        dir.extend(keys.iter().flatten());
        e.push((GEO_KEY_DIRECTORY, Value::Short(dir)));
    }
    if let Some(nd) = nodata {
        e.push((GDAL_NODATA, Value::Ascii(format_nodata(nd))));
    }
    e.sort_by_key(|(t, _)| *t);
    e
}

fn format_nodata(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// Size of an IFD with its out-of-line values.
fn ifd_size(entries: &[(u16, Value)], bigtiff: bool) -> u64 {
    let (cs, es, ps, inline) = if bigtiff { (8, 20, 8, 8) } else { (2, 12, 4, 4) };
    let mut n = cs + entries.len() as u64 * es + ps;
    for (_, v) in entries {
        let len = v.bytes().len() as u64;
        if len > inline {
            n += len + (len % 2);
        }
    }
    n
}

/// Encodes an IFD to be placed at `at`, out-of-line values right after it.
fn encode_ifd(entries: &[(u16, Value)], at: u64, bigtiff: bool, next: u64) -> Vec<u8> {
    let (cs, es, ps, inline) = if bigtiff { (8u64, 20u64, 8u64, 8usize) } else { (2, 12, 4, 4) };
    let mut head = Vec::new();
    let mut tail = Vec::new();
    let mut tail_at = at + cs + entries.len() as u64 * es + ps;
    if bigtiff {
        head.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    } else {
        head.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    }
    for (tag, v) in entries {
        head.extend_from_slice(&tag.to_le_bytes());
        head.extend_from_slice(&v.typ().to_le_bytes());
        if bigtiff {
            head.extend_from_slice(&(v.count() as u64).to_le_bytes());
        } else {
            head.extend_from_slice(&(v.count() as u32).to_le_bytes());
        }
        let bytes = v.bytes();
        if bytes.len() <= inline {
            let mut field = bytes.clone();
            field.resize(inline, 0);
            head.extend_from_slice(&field);
        } else {
            if bigtiff {
                head.extend_from_slice(&tail_at.to_le_bytes());
            } else {
                head.extend_from_slice(&(tail_at as u32).to_le_bytes());
            }
            tail.extend_from_slice(&bytes);
            tail_at += bytes.len() as u64;
            if bytes.len() % 2 == 1 {
                tail.push(0);
                tail_at += 1;
            }
        }
    }
    if bigtiff {
        head.extend_from_slice(&next.to_le_bytes());
    } else {
        head.extend_from_slice(&(next as u32).to_le_bytes());
    }
    head.extend_from_slice(&tail);
    head
}

/// The tiles of one resolution level, in a temporary file until the COG is assembled.
struct Encoded {
    layout: Layout,
    data: BufWriter<File>,
    counts: Vec<u64>,
    size: u64,
}

/// One resolution level of a COG being built, in the source's own sample type: its tiles go to
/// a temporary file, and every pair of rows it receives is averaged into a row of the next level.
struct Level<T> {
    tiles: Encoded,
    /// Rows that do not yet make a full row of tiles.
    pending: Vec<T>,
    /// Rows received so far.
    received: usize,
    /// The odd row left over from the last block, waiting for its pair.
    carry: Option<Vec<T>>,
    nodata: Option<f64>,
    average: bool,
    fill: Vec<u8>,
}

impl<T: Pixel> Level<T> {
    fn new(layout: Layout, nodata: Option<f64>, average: bool) -> Result<Self> {
        let fill = layout.fill_pixel(nodata);
        Ok(Self {
            tiles: Encoded {
                layout,
                data: BufWriter::with_capacity(1 << 20, tempfile::tempfile()?),
                counts: Vec::new(),
                size: 0,
            },
            pending: Vec::new(),
            received: 0,
            carry: None,
            nodata,
            average,
            fill,
        })
    }

    fn row_len(&self) -> usize {
        self.tiles.layout.width * self.tiles.layout.bands
    }

    /// Adds `rows` to the pending rows and takes out those that make full rows of tiles (all of
    /// them once the level is complete), with their count.
    fn take_ready(&mut self, rows: &[T]) -> (Vec<T>, usize) {
        let per_row = self.row_len();
        self.pending.extend_from_slice(rows);
        let pending_rows = self.pending.len() / per_row;
        let ch = self.tiles.layout.chunk_height;
        let ready = if self.received == self.tiles.layout.height { pending_rows } else { pending_rows / ch * ch };
        if ready == pending_rows {
            (std::mem::take(&mut self.pending), ready)
        } else {
            (self.pending.drain(..ready * per_row).collect(), ready)
        }
    }

    /// Halves `rows` (with the row carried over from the last call) into rows of the next level.
    fn halve_rows(&mut self, rows: &[T]) -> Vec<T> {
        let per_row = self.row_len();
        let carried = self.carry.take();
        let list: Vec<&[T]> = carried.iter().map(|c| c.as_slice()).chain(rows.chunks_exact(per_row)).collect();
        let complete = self.received == self.tiles.layout.height;
        let odd = list.len() % 2 == 1;
        let out_rows = list.len() / 2 + usize::from(odd && complete);
        let out_len = self.tiles.layout.width.div_ceil(2) * self.tiles.layout.bands;
        let mut down = vec![T::from_f64(0.0); out_rows * out_len];
        down.par_chunks_mut(out_len).enumerate().for_each(|(i, out)| {
            self.halve(list[2 * i], list.get(2 * i + 1).copied(), out);
        });
        let leftover = (odd && !complete).then(|| list[list.len() - 1].to_vec());
        drop(list);
        self.carry = leftover;
        down
    }

    /// One output row from rows `a` and `b` (`b` absent for the last row of an odd height): the
    /// mean of the valid samples of each 2×2 block, or its first sample when not averaging.
    fn halve(&self, a: &[T], b: Option<&[T]>, out: &mut [T]) {
        let w = self.tiles.layout.width;
        let bands = self.tiles.layout.bands;
        let is_float = self.tiles.layout.data_type.is_float();
        if !self.average {
            for (x, px) in out.chunks_exact_mut(bands).enumerate() {
                px.copy_from_slice(&a[2 * x * bands..(2 * x + 1) * bands]);
            }
            return;
        }
        let is_nodata = |v: f64| match self.nodata {
            Some(nd) if nd.is_nan() => v.is_nan(),
            Some(nd) => v == nd,
            None => v.is_nan(),
        };
        let empty = self.nodata.unwrap_or(f64::NAN);
        let mean = |sum: f64, n: f64| match n > 0.0 {
            true if is_float => sum / n,
            true => (sum / n).round(),
            false => empty,
        };
        if bands == 1 {
            // The same sums in the same order, without the per-band indexing.
            let nd = self.nodata.filter(|v| !v.is_nan());
            let valid = |v: f64| match nd {
                Some(nd) => v != nd,
                None => !v.is_nan(),
            };
            for (x, o) in out.iter_mut().enumerate() {
                let (x0, x1) = (2 * x, (2 * x + 1).min(w - 1));
                let (mut sum, mut n) = (0.0, 0.0);
                for row in [Some(a), b].into_iter().flatten() {
                    let v = row[x0].to_f64();
                    if valid(v) {
                        sum += v;
                        n += 1.0;
                    }
                    if x1 != x0 {
                        let v = row[x1].to_f64();
                        if valid(v) {
                            sum += v;
                            n += 1.0;
                        }
                    }
                }
                *o = T::from_f64(mean(sum, n));
            }
            return;
        }
        for (x, px) in out.chunks_exact_mut(bands).enumerate() {
            let (x0, x1) = (2 * x, (2 * x + 1).min(w - 1));
            for (band, o) in px.iter_mut().enumerate() {
                let mut sum = 0.0;
                let mut n = 0.0;
                for row in [Some(a), b].into_iter().flatten() {
                    for sx in x0..=x1 {
                        let v = row[sx * bands + band].to_f64();
                        if !is_nodata(v) {
                            sum += v;
                            n += 1.0;
                        }
                    }
                }
                *o = T::from_f64(mean(sum, n));
            }
        }
    }
}

impl Encoded {
    fn write_tiles(&mut self, tiles: Vec<Vec<u8>>) -> Result<()> {
        for t in tiles {
            self.data.write_all(&t)?;
            self.counts.push(t.len() as u64);
            self.size += t.len() as u64;
        }
        Ok(())
    }
}

/// Encodes `n` rows (bands interleaved) as rows of tiles, every tile on its own thread; the
/// tiles come back in row-major order.
fn encode_tiles<T: Pixel>(l: &Layout, rows: &[T], n: usize, fill: &[u8]) -> Result<Vec<Vec<u8>>> {
    let bands = l.bands;
    let row_len = l.width * bands;
    let (across, down) = (l.chunks_across(), n.div_ceil(l.chunk_height));
    let ss = l.data_type.size();
    (0..across * down)
        .into_par_iter()
        .map(|i| {
            let (ty, tx) = (i / across, i % across);
            let x0 = tx * l.chunk_width;
            let w = l.chunk_width.min(l.width - x0);
            let row_samples = l.chunk_width * bands;
            let mut buf = vec![0u8; row_samples * l.chunk_height * ss];
            for (r, out) in buf.chunks_exact_mut(row_samples * ss).enumerate() {
                let y = ty * l.chunk_height + r;
                let valid = if y < n {
                    let start = y * row_len + x0 * bands;
                    T::write_ne_slice(&rows[start..start + w * bands], out);
                    w * fill.len()
                } else {
                    0
                };
                if fill.iter().any(|b| *b != 0) {
                    for px in out[valid..].chunks_exact_mut(fill.len()) {
                        px.copy_from_slice(fill);
                    }
                }
            }
            match l.predictor {
                2 => codec::apply_horizontal_spp(&mut buf, row_samples, bands, ss),
                3 => codec::apply_float(&mut buf, row_samples, bands, ss),
                _ => {}
            }
            codec::compress(l.compression, &buf, l.level)
        })
        .collect()
}

/// Passes a block of rows through the levels: each level's full rows of tiles are encoded while
/// the levels below it work on its halved rows.
fn push_levels<T: Pixel>(levels: &mut [Level<T>], rows: &[T]) -> Result<()> {
    let Some((level, rest)) = levels.split_first_mut() else {
        return Ok(());
    };
    if rows.is_empty() {
        return Ok(());
    }
    let per_row = level.row_len();
    level.received += rows.len() / per_row;
    let ch = level.tiles.layout.chunk_height;
    let whole = (rows.len() / per_row).is_multiple_of(ch) || level.received == level.tiles.layout.height;
    let taken;
    let (ready, n) = if level.pending.is_empty() && whole {
        // Rows that make whole rows of tiles are encoded where they are.
        (rows, rows.len() / per_row)
    } else {
        let (r, n) = level.take_ready(rows);
        taken = r;
        (&taken[..], n)
    };
    let down = if rest.is_empty() { Vec::new() } else { level.halve_rows(rows) };
    let (tiles, below) = rayon::join(
        || if n > 0 { encode_tiles(&level.tiles.layout, ready, n, &level.fill) } else { Ok(Vec::new()) },
        || push_levels(rest, &down),
    );
    level.tiles.write_tiles(tiles?)?;
    below
}

/// Reads rows `y..y + n` of the source's full-resolution image as `T`, bands interleaved.
fn read_rows<T: Pixel>(src: &GeoTiff, y: usize, n: usize) -> Result<Vec<T>> {
    let (w, bands) = (src.width(), src.bands());
    let win = Window::new(0, y as i64, w, n);
    let all: Vec<usize> = (0..bands).collect();
    let fill = T::from_f64(src.nodata().unwrap_or(0.0));
    let mut per_band = src.read_window_bands::<T>(0, &all, win, fill)?;
    if bands == 1 {
        return Ok(per_band.pop().unwrap_or_default());
    }
    let mut rows = vec![fill; w * n * bands];
    for (b, data) in per_band.iter().enumerate() {
        for (i, v) in data.iter().enumerate() {
            rows[i * bands + b] = *v;
        }
    }
    Ok(rows)
}

/// Copies band data of `src` into a Cloud Optimized GeoTIFF at `dst`: tiled, Deflate, with
/// overviews, GeoKeys and nodata. Reads `src` once, by rows of tiles.
pub fn write_cog(src: &GeoTiff, dst: impl AsRef<Path>, opts: &CogOptions) -> Result<()> {
    write_cog_with_progress(src, dst, opts, &|_| true)
}

/// [`write_cog`], telling `progress` the fraction of the source read after each block of rows;
/// `progress` returns false to cancel ([`Error::Cancelled`](crate::Error::Cancelled)).
pub fn write_cog_with_progress(
    src: &GeoTiff,
    dst: impl AsRef<Path>,
    opts: &CogOptions,
    progress: &dyn Fn(f64) -> bool,
) -> Result<()> {
    let block = src.image().chunk_height.max(opts.tile_size).min(src.height());
    let cog = CogSource {
        width: src.width(),
        height: src.height(),
        bands: src.bands(),
        geo: src.geo().cloned(),
        nodata: src.nodata(),
        block,
    };
    macro_rules! go {
        ($t:ty) => {
            cog.write::<$t>(&|y, n| read_rows::<$t>(src, y, n), dst.as_ref(), opts, progress)
        };
    }
    match src.data_type() {
        DataType::UInt8 => go!(u8),
        DataType::Int8 => go!(i8),
        DataType::UInt16 => go!(u16),
        DataType::Int16 => go!(i16),
        DataType::UInt32 => go!(u32),
        DataType::Int32 => go!(i32),
        DataType::Float32 => go!(f32),
        DataType::Float64 => go!(f64),
    }
}

/// What a COG is made from: the raster's shape and metadata, read by blocks of `block` rows.
struct CogSource {
    width: usize,
    height: usize,
    bands: usize,
    geo: Option<GeoInfo>,
    nodata: Option<f64>,
    block: usize,
}

/// Reads `n` rows from row `y`, bands interleaved.
type ReadRows<'a, T> = dyn Fn(usize, usize) -> Result<Vec<T>> + Sync + 'a;

impl CogSource {
    /// Builds the levels block by block, reading the next block while the current one is encoded,
    /// then assembles the COG.
    fn write<T: Pixel>(
        &self,
        read: &ReadRows<T>,
        dst: &Path,
        opts: &CogOptions,
        progress: &dyn Fn(f64) -> bool,
    ) -> Result<()> {
        let (w, h, bands) = (self.width, self.height, self.bands);
        let wo = WriterOptions {
            tile_size: Some(opts.tile_size),
            compression: Compression::Deflate,
            level: opts.level,
            predictor: opts.predictor,
            geo: self.geo.clone(),
            nodata: self.nodata,
            ..WriterOptions::default()
        };
        let dt = T::DATA_TYPE;
        let mut levels = vec![Level::<T>::new(Layout::new(w, h, bands, dt, &wo)?, self.nodata, opts.average)?];
        if opts.overviews {
            let (mut lw, mut lh) = (w, h);
            while lw.max(lh) > opts.tile_size {
                lw = lw.div_ceil(2);
                lh = lh.div_ceil(2);
                levels.push(Level::new(Layout::new(lw, lh, bands, dt, &wo)?, self.nodata, opts.average)?);
            }
        }
        let block = self.block.max(1);
        let mut rows = read(0, block.min(h))?;
        let mut y = 0;
        while y < h {
            let n = block.min(h - y);
            let next = y + n;
            let (ahead, pushed) = rayon::join(
                || if next < h { read(next, block.min(h - next)).map(Some) } else { Ok(None) },
                || push_levels(&mut levels, &rows),
            );
            pushed?;
            let ahead = ahead?;
            y = next;
            if !progress(y as f64 / h as f64) {
                return Err(crate::Error::Cancelled);
            }
            match ahead {
                Some(r) => rows = r,
                None => break,
            }
        }
        assemble_cog(levels.into_iter().map(|l| l.tiles).collect(), &wo, dst)
    }
}

fn assemble_cog(levels: Vec<Encoded>, wo: &WriterOptions, dst: &Path) -> Result<()> {
    let total: u64 = levels.iter().map(|l| l.size).sum();
    let bigtiff = wo.bigtiff || total > 3_900_000_000;
    let header_len: u64 = if bigtiff { 16 } else { 8 };
    // IFD sizes depend only on counts, so lay them out with placeholder offsets first.
    let mut ifd_pos = Vec::new();
    let mut at = header_len;
    for (i, l) in levels.iter().enumerate() {
        let dummy = vec![0u64; l.counts.len()];
        let geo = if i == 0 { wo.geo.clone() } else { None };
        let e = image_entries(&l.layout, &dummy, &l.counts, i > 0, &geo, wo.nodata, bigtiff);
        ifd_pos.push(at);
        at += ifd_size(&e, bigtiff);
    }
    // Tile data: smallest overview first, full resolution last.
    let mut data_start = vec![0u64; levels.len()];
    for i in (0..levels.len()).rev() {
        data_start[i] = at;
        at += levels[i].size;
    }
    let mut out = BufWriter::with_capacity(1 << 20, File::create(dst)?);
    out.write_all(&header(bigtiff, header_len))?;
    for (i, l) in levels.iter().enumerate() {
        let mut offsets = Vec::with_capacity(l.counts.len());
        let mut o = data_start[i];
        for c in &l.counts {
            offsets.push(o);
            o += c;
        }
        let geo = if i == 0 { wo.geo.clone() } else { None };
        let e = image_entries(&l.layout, &offsets, &l.counts, i > 0, &geo, wo.nodata, bigtiff);
        let next = ifd_pos.get(i + 1).copied().unwrap_or(0);
        out.write_all(&encode_ifd(&e, ifd_pos[i], bigtiff, next))?;
    }
    for l in levels.into_iter().rev() {
        let mut f = l.data.into_inner().map_err(|e| e.into_error())?;
        f.seek(SeekFrom::Start(0))?;
        let copied = std::io::copy(&mut (&mut f).take(l.size), &mut out)?;
        if copied != l.size {
            return Err(Error::Io(std::io::Error::other("temporary tile data truncated")));
        }
    }
    out.flush()?;
    Ok(())
}

/// Writes an in-memory single-band raster as a COG, straight from memory.
pub fn write_raster_cog<T: Pixel>(raster: &crate::Raster<T>, dst: impl AsRef<Path>, opts: &CogOptions) -> Result<()> {
    let (w, h) = (raster.width, raster.height);
    if raster.data.len() != w * h {
        return Err(Error::arg(format!("{} samples for a {w} × {h} raster", raster.data.len())));
    }
    let cog = CogSource {
        width: w,
        height: h,
        bands: 1,
        geo: Some(GeoInfo {
            geo_transform: raster.geo_transform,
            epsg: raster.epsg,
            geographic: raster.epsg.is_some_and(crate::crs::is_geographic_epsg),
        }),
        nodata: raster.nodata,
        block: opts.tile_size,
    };
    let read = |y: usize, n: usize| Ok(raster.data[y * w..(y + n) * w].to_vec());
    cog.write::<T>(&read, dst.as_ref(), opts, &|_| true)
}
