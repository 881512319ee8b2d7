//! The GeoTIFF reader: parses every IFD up front (cheap: a few kilobytes) and decodes chunks only
//! when a window needs them, so reading a small window of a large COG touches a few tiles.

use super::cache::BlockCache;
use super::codec::{self, Compression};
use super::tags::*;
use super::GeoInfo;
use crate::types::{DataType, GeoTransform, Raster, Window};
use crate::{Error, Result};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// Bounds on what a file may declare, checked when it is opened, before anything the size of the
/// image is allocated: a file of a few hundred bytes can declare terapixels, and a chunk of a few
/// kilobytes can inflate to gigabytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most samples in the full-resolution image: width × height × bands.
    pub max_pixels: u64,
    /// Most decoded bytes in one chunk (a tile or a strip). A single uncompressed strip is split
    /// into rows and read a slice at a time instead.
    pub max_chunk_bytes: u64,
    /// Most chunks (tiles or strips, all bands) in one image.
    pub max_chunks: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_pixels: 1 << 30, max_chunk_bytes: 64 << 20, max_chunks: 1 << 20 }
    }
}

/// Most bytes of one tag's values.
const MAX_TAG_BYTES: u64 = 32 << 20;

/// Uncompressed single strips are read in slices of about this many bytes.
const STRIP_SLICE_BYTES: usize = 1 << 20;

/// Random-access byte source: a file, or bytes in memory. Positional reads let several threads
/// decode chunks of the same file at once.
pub trait ReadAt: Send + Sync {
    /// Fills `buf` from `offset`; fails if the source is shorter.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()>;
    /// Total size in bytes.
    fn size(&self) -> u64;
}

impl ReadAt for std::fs::File {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }
    fn size(&self) -> u64 {
        self.metadata().map(|m| m.len()).unwrap_or(0)
    }
}

impl ReadAt for Vec<u8> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let start = usize::try_from(offset).map_err(|_| std::io::ErrorKind::UnexpectedEof)?;
        let end = start.checked_add(buf.len()).ok_or(std::io::ErrorKind::UnexpectedEof)?;
        let src = self.get(start..end).ok_or(std::io::ErrorKind::UnexpectedEof)?;
        buf.copy_from_slice(src);
        Ok(())
    }
    fn size(&self) -> u64 {
        self.len() as u64
    }
}

/// A pixel type that windows can be read into.
pub trait Sample: Copy + Send + Sync + 'static {
    /// Conversion from the widest type (saturating for integers, as Rust's `as` does).
    fn from_f64(v: f64) -> Self;
}

macro_rules! sample {
    ($($t:ty),*) => {$(impl Sample for $t { #[inline] fn from_f64(v: f64) -> Self { v as $t } })*};
}
sample!(u8, i8, u16, i16, u32, i32, f32, f64);

/// One image (IFD) of the file: the full-resolution image or one of its overviews.
#[derive(Clone, Debug)]
pub struct Image {
    pub width: usize,
    pub height: usize,
    /// Tile size, or for strips the image width and rows per strip.
    pub chunk_width: usize,
    pub chunk_height: usize,
    pub tiled: bool,
    pub compression: Compression,
    pub predictor: u16,
    pub data_type: DataType,
    pub samples_per_pixel: usize,
    /// PlanarConfiguration 2: each band in its own chunks.
    pub planar: bool,
    offsets: Vec<u64>,
    counts: Vec<u64>,
}

impl Image {
    /// Chunks per row of chunks.
    pub fn chunks_across(&self) -> usize {
        self.width.div_ceil(self.chunk_width)
    }
    /// Rows of chunks.
    pub fn chunks_down(&self) -> usize {
        self.height.div_ceil(self.chunk_height)
    }
    /// Stored bytes of each chunk (tiles or strips, band after band when planar).
    pub fn chunk_byte_counts(&self) -> &[u64] {
        &self.counts
    }
    /// Chunks that are not stored (offset or byte count 0), read as nodata.
    pub fn sparse_chunks(&self) -> usize {
        self.offsets.iter().zip(&self.counts).filter(|(o, c)| **o == 0 || **c == 0).count()
    }
    /// Total bytes of compressed data.
    pub fn compressed_size(&self) -> u64 {
        self.counts.iter().sum()
    }
}

struct Entry {
    typ: u16,
    count: u64,
    /// The inline value bytes, or the offset when the values live elsewhere.
    inline: Option<Vec<u8>>,
    offset: u64,
}

/// An open GeoTIFF.
pub struct GeoTiff {
    src: Box<dyn ReadAt>,
    limits: Limits,
    interrupt: Option<Arc<dyn Fn() -> bool + Send + Sync>>,
    little_endian: bool,
    bigtiff: bool,
    images: Vec<Image>,
    geo: Option<GeoInfo>,
    nodata: Option<f64>,
    /// Where decoded chunks are kept, and this reader's id in it.
    cache: Option<(Arc<BlockCache>, u64)>,
}

impl std::fmt::Debug for GeoTiff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeoTiff")
            .field("bigtiff", &self.bigtiff)
            .field("images", &self.images)
            .field("geo", &self.geo)
            .field("nodata", &self.nodata)
            .finish()
    }
}

impl GeoTiff {
    /// Opens a file under the default [`Limits`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, Limits::default())
    }

    /// Opens a file under `limits`.
    pub fn open_with(path: impl AsRef<Path>, limits: Limits) -> Result<Self> {
        Self::from_source_with(Box::new(std::fs::File::open(path)?), limits)
    }

    /// Reads from bytes in memory under the default [`Limits`].
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self> {
        Self::from_source(Box::new(bytes))
    }

    /// Reads from any random-access source under the default [`Limits`].
    pub fn from_source(src: Box<dyn ReadAt>) -> Result<Self> {
        Self::from_source_with(src, Limits::default())
    }

    /// Makes every later chunk read fail with [`Error::Cancelled`] once `interrupted` returns
    /// true, so that a long read of many chunks stops soon after its caller gives up.
    pub fn with_interrupt(mut self, interrupted: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        self.interrupt = Some(Arc::new(interrupted));
        self
    }

    /// Keeps the chunks that windows decode in `cache` (shared with other readers), and reads
    /// them from there when a later window touches them again. Chunks read with
    /// [`read_chunk`](Self::read_chunk) bypass it.
    pub fn with_block_cache(mut self, cache: Arc<BlockCache>) -> Self {
        self.cache = Some((cache, BlockCache::next_source_id()));
        self
    }

    /// The block cache given with [`with_block_cache`](Self::with_block_cache).
    pub fn block_cache(&self) -> Option<&Arc<BlockCache>> {
        self.cache.as_ref().map(|c| &c.0)
    }

    /// The limits the file was opened under.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Reads from any random-access source; fails with [`Error::TooLarge`] when the file
    /// declares more than `limits` allow.
    pub fn from_source_with(src: Box<dyn ReadAt>, limits: Limits) -> Result<Self> {
        let mut head = [0u8; 16];
        let size = src.size();
        if size < 8 {
            return Err(Error::invalid("file too short"));
        }
        src.read_exact_at(&mut head[..size.min(16) as usize], 0)?;
        let little_endian = match &head[0..2] {
            b"II" => true,
            b"MM" => false,
            _ => return Err(Error::invalid("no TIFF byte-order mark")),
        };
        let mut t = GeoTiff {
            src,
            limits,
            interrupt: None,
            little_endian,
            bigtiff: false,
            images: Vec::new(),
            geo: None,
            nodata: None,
            cache: None,
        };
        let magic = t.u16_at(&head[2..4]);
        let mut next = match magic {
            42 => t.u32_at(&head[4..8]) as u64,
            43 => {
                t.bigtiff = true;
                if size < 16 || t.u16_at(&head[4..6]) != 8 {
                    return Err(Error::invalid("bad BigTIFF header"));
                }
                t.u64_at(&head[8..16])
            }
            _ => return Err(Error::invalid("bad TIFF magic number")),
        };
        let mut first = true;
        let mut seen = std::collections::HashSet::new();
        while next != 0 {
            if !seen.insert(next) || seen.len() > 1000 {
                return Err(Error::invalid("IFD chain loops"));
            }
            let (entries, after) = t.read_ifd(next)?;
            next = after;
            let subfile = t.scalar(&entries, NEW_SUBFILE_TYPE)?.unwrap_or(0);
            if first {
                let image = t.parse_image(&entries)?;
                t.parse_geo(&entries, &image)?;
                t.images.push(image);
                first = false;
            } else if subfile & 1 == 1 && subfile & 4 == 0 {
                // A reduced-resolution image that is not a mask: an overview.
                if let Ok(image) = t.parse_image(&entries) {
                    if image.samples_per_pixel == t.images[0].samples_per_pixel {
                        t.images.push(image);
                    }
                }
            }
        }
        if t.images.is_empty() {
            return Err(Error::invalid("no image"));
        }
        t.images[1..].sort_by_key(|im| std::cmp::Reverse(im.width));
        Ok(t)
    }

    fn u16_at(&self, b: &[u8]) -> u16 {
        let a = [b[0], b[1]];
        if self.little_endian {
            u16::from_le_bytes(a)
        } else {
            u16::from_be_bytes(a)
        }
    }
    fn u32_at(&self, b: &[u8]) -> u32 {
        let a = [b[0], b[1], b[2], b[3]];
        if self.little_endian {
            u32::from_le_bytes(a)
        } else {
            u32::from_be_bytes(a)
        }
    }
    fn u64_at(&self, b: &[u8]) -> u64 {
        let a: [u8; 8] = [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
        if self.little_endian {
            u64::from_le_bytes(a)
        } else {
            u64::from_be_bytes(a)
        }
    }

    fn read_ifd(&self, offset: u64) -> Result<(HashMap<u16, Entry>, u64)> {
        let (count_size, entry_size, ptr_size) = if self.bigtiff { (8, 20, 8) } else { (2, 12, 4) };
        let mut cbuf = [0u8; 8];
        self.src.read_exact_at(&mut cbuf[..count_size], offset).map_err(|_| Error::invalid("IFD past end of file"))?;
        let n = if self.bigtiff { self.u64_at(&cbuf) } else { self.u16_at(&cbuf) as u64 };
        if n > 10_000 {
            return Err(Error::invalid("implausible IFD entry count"));
        }
        let mut buf = vec![0u8; n as usize * entry_size + ptr_size];
        self.src
            .read_exact_at(&mut buf, offset + count_size as u64)
            .map_err(|_| Error::invalid("IFD past end of file"))?;
        let mut entries = HashMap::new();
        for e in buf[..n as usize * entry_size].chunks_exact(entry_size) {
            let tag = self.u16_at(&e[0..2]);
            let typ = self.u16_at(&e[2..4]);
            let (count, value) = if self.bigtiff {
                (self.u64_at(&e[4..12]), &e[12..20])
            } else {
                (self.u32_at(&e[4..8]) as u64, &e[8..12])
            };
            let Some(size) = type_size(typ) else { continue };
            let total = (size as u64).saturating_mul(count);
            let entry = if total <= value.len() as u64 {
                Entry { typ, count, inline: Some(value[..total as usize].to_vec()), offset: 0 }
            } else {
                let off = if self.bigtiff { self.u64_at(value) } else { self.u32_at(value) as u64 };
                Entry { typ, count, inline: None, offset: off }
            };
            entries.insert(tag, entry);
        }
        let tail = &buf[n as usize * entry_size..];
        let next = if self.bigtiff { self.u64_at(tail) } else { self.u32_at(tail) as u64 };
        Ok((entries, next))
    }

    fn raw(&self, e: &Entry) -> Result<Vec<u8>> {
        if let Some(v) = &e.inline {
            return Ok(v.clone());
        }
        let size = (type_size(e.typ).unwrap_or(1) as u64).saturating_mul(e.count);
        if size > self.src.size() || e.offset.saturating_add(size) > self.src.size() {
            return Err(Error::invalid("tag values past end of file"));
        }
        // The file's size bounds nothing when the source is remote (its server states the size):
        // no tag of a readable image is this large (a million tile offsets are 8 MiB).
        if size > MAX_TAG_BYTES {
            return Err(Error::invalid(format!("a tag holds {size} bytes of values, more than {MAX_TAG_BYTES}")));
        }
        let mut buf = vec![0u8; size as usize];
        self.src.read_exact_at(&mut buf, e.offset)?;
        Ok(buf)
    }

    fn values_u64(&self, entries: &HashMap<u16, Entry>, tag: u16) -> Result<Option<Vec<u64>>> {
        // A tag with no values says nothing: treat it as absent.
        let Some(e) = entries.get(&tag).filter(|e| e.count > 0) else { return Ok(None) };
        let raw = self.raw(e)?;
        let v = match e.typ {
            BYTE | UNDEFINED => raw.iter().map(|&b| b as u64).collect(),
            SHORT => raw.chunks_exact(2).map(|c| self.u16_at(c) as u64).collect(),
            LONG | IFD => raw.chunks_exact(4).map(|c| self.u32_at(c) as u64).collect(),
            LONG8 | IFD8 => raw.chunks_exact(8).map(|c| self.u64_at(c)).collect(),
            _ => return Err(Error::invalid(format!("tag {tag} has type {} where an integer is expected", e.typ))),
        };
        Ok(Some(v))
    }

    fn values_f64(&self, entries: &HashMap<u16, Entry>, tag: u16) -> Result<Option<Vec<f64>>> {
        let Some(e) = entries.get(&tag).filter(|e| e.count > 0) else { return Ok(None) };
        let raw = self.raw(e)?;
        let v = match e.typ {
            DOUBLE => raw
                .chunks_exact(8)
                .map(|c| {
                    let bits = self.u64_at(c);
                    f64::from_bits(bits)
                })
                .collect(),
            FLOAT => raw.chunks_exact(4).map(|c| f32::from_bits(self.u32_at(c)) as f64).collect(),
            RATIONAL => {
                raw.chunks_exact(8).map(|c| self.u32_at(&c[..4]) as f64 / self.u32_at(&c[4..]) as f64).collect()
            }
            _ => self.values_u64(entries, tag)?.unwrap_or_default().into_iter().map(|v| v as f64).collect(),
        };
        Ok(Some(v))
    }

    fn ascii(&self, entries: &HashMap<u16, Entry>, tag: u16) -> Result<Option<String>> {
        let Some(e) = entries.get(&tag) else { return Ok(None) };
        let raw = self.raw(e)?;
        Ok(Some(String::from_utf8_lossy(&raw).trim_end_matches('\0').to_string()))
    }

    fn scalar(&self, entries: &HashMap<u16, Entry>, tag: u16) -> Result<Option<u64>> {
        Ok(self.values_u64(entries, tag)?.and_then(|v| v.first().copied()))
    }

    fn parse_image(&self, entries: &HashMap<u16, Entry>) -> Result<Image> {
        let need = |tag: u16, name: &str| -> Result<u64> {
            self.scalar(entries, tag)?.ok_or_else(|| Error::invalid(format!("missing {name}")))
        };
        let width = need(IMAGE_WIDTH, "ImageWidth")? as usize;
        let height = need(IMAGE_LENGTH, "ImageLength")? as usize;
        if width == 0 || height == 0 || width > 1 << 31 || height > 1 << 31 {
            return Err(Error::invalid("bad image size"));
        }
        let spp = self.scalar(entries, SAMPLES_PER_PIXEL)?.unwrap_or(1) as usize;
        if spp == 0 || spp > 4096 {
            return Err(Error::invalid("bad SamplesPerPixel"));
        }
        let bits = self.values_u64(entries, BITS_PER_SAMPLE)?.unwrap_or_else(|| vec![1]);
        let formats = self.values_u64(entries, SAMPLE_FORMAT)?.unwrap_or_else(|| vec![1]);
        if bits.iter().any(|b| *b != bits[0]) || formats.iter().any(|f| *f != formats[0]) {
            return Err(Error::unsupported("bands of different sample types"));
        }
        let data_type = DataType::from_tiff(bits[0] as u16, formats[0] as u16)
            .ok_or_else(|| Error::unsupported(format!("{}-bit samples of format {}", bits[0], formats[0])))?;
        let compression = Compression::from_tag(self.scalar(entries, COMPRESSION)?.unwrap_or(1) as u16)?;
        let predictor = self.scalar(entries, PREDICTOR)?.unwrap_or(1) as u16;
        if !matches!(predictor, 1..=3) {
            return Err(Error::unsupported(format!("predictor {predictor}")));
        }
        if predictor == 3 && !data_type.is_float() {
            return Err(Error::invalid("floating-point predictor on integer samples"));
        }
        let planar = self.scalar(entries, PLANAR_CONFIG)?.unwrap_or(1) == 2 && spp > 1;
        let limits = self.limits;
        let samples = (width as u64).saturating_mul(height as u64).saturating_mul(spp as u64);
        if samples > limits.max_pixels {
            return Err(Error::too_large(format!(
                "{width} x {height} pixels x {spp} bands is more than the limit of {} samples",
                limits.max_pixels
            )));
        }
        let bands_per_chunk = if planar { spp } else { 1 };
        let check_chunks = |cw: usize, ch: usize| -> Result<()> {
            if cw == 0 || ch == 0 {
                return Err(Error::invalid("bad chunk size"));
            }
            let count = (width.div_ceil(cw) as u64)
                .saturating_mul(height.div_ceil(ch) as u64)
                .saturating_mul(bands_per_chunk as u64);
            if count > limits.max_chunks {
                return Err(Error::too_large(format!(
                    "{count} chunks is more than the limit of {}",
                    limits.max_chunks
                )));
            }
            Ok(())
        };
        let (tiled, cw, ch, offsets, counts) = if entries.contains_key(&TILE_WIDTH) {
            let tw = need(TILE_WIDTH, "TileWidth")? as usize;
            let th = need(TILE_LENGTH, "TileLength")? as usize;
            check_chunks(tw, th)?;
            let offsets =
                self.values_u64(entries, TILE_OFFSETS)?.ok_or_else(|| Error::invalid("missing TileOffsets"))?;
            let counts =
                self.values_u64(entries, TILE_BYTE_COUNTS)?.ok_or_else(|| Error::invalid("missing TileByteCounts"))?;
            (true, tw, th, offsets, counts)
        } else {
            let rps = self.scalar(entries, ROWS_PER_STRIP)?.unwrap_or(height as u64).min(height as u64) as usize;
            check_chunks(width, rps.max(1))?;
            let offsets =
                self.values_u64(entries, STRIP_OFFSETS)?.ok_or_else(|| Error::invalid("missing StripOffsets"))?;
            let counts = self
                .values_u64(entries, STRIP_BYTE_COUNTS)?
                .ok_or_else(|| Error::invalid("missing StripByteCounts"))?;
            (false, width, rps.max(1), offsets, counts)
        };
        if cw > 1 << 16 && tiled {
            return Err(Error::invalid("bad chunk size"));
        }
        let mut image = Image {
            width,
            height,
            chunk_width: cw,
            chunk_height: ch,
            tiled,
            compression,
            predictor,
            data_type,
            samples_per_pixel: spp,
            planar,
            offsets,
            counts,
        };
        let expected = image.chunks_across() * image.chunks_down() * if planar { spp } else { 1 };
        if image.offsets.len() < expected || image.counts.len() < expected {
            return Err(Error::invalid(format!("{} chunk offsets where {expected} are needed", image.offsets.len())));
        }
        if !image.tiled && image.compression == Compression::None && image.chunks_down() == 1 {
            split_single_strip(&mut image);
        }
        let chunk_bytes = (image.chunk_width as u64)
            .saturating_mul(image.chunk_height as u64)
            .saturating_mul((spp / bands_per_chunk) as u64)
            .saturating_mul(image.data_type.size() as u64);
        if chunk_bytes > limits.max_chunk_bytes {
            return Err(Error::too_large(format!(
                "{} chunks of {chunk_bytes} bytes each are more than the limit of {} bytes per chunk",
                if image.tiled { "tiles" } else { "strips" },
                limits.max_chunk_bytes
            )));
        }
        Ok(image)
    }

    fn parse_geo(&mut self, entries: &HashMap<u16, Entry>, image: &Image) -> Result<()> {
        if let Some(s) = self.ascii(entries, GDAL_NODATA)? {
            let s = s.trim();
            self.nodata = match s.to_ascii_lowercase().as_str() {
                "nan" | "-nan" => Some(f64::NAN),
                "inf" => Some(f64::INFINITY),
                "-inf" => Some(f64::NEG_INFINITY),
                _ => s.parse().ok(),
            };
        }
        let mut gt = None;
        if let Some(m) = self.values_f64(entries, MODEL_TRANSFORMATION)? {
            if m.len() >= 16 {
                gt = Some(GeoTransform([m[3], m[0], m[1], m[7], m[4], m[5]]));
            }
        }
        if gt.is_none() {
            let tie = self.values_f64(entries, MODEL_TIEPOINT)?;
            let scale = self.values_f64(entries, MODEL_PIXEL_SCALE)?;
            if let (Some(t), Some(s)) = (tie, scale) {
                if t.len() >= 6 && s.len() >= 2 {
                    gt = Some(GeoTransform([t[3] - t[0] * s[0], s[0], 0.0, t[4] + t[1] * s[1], 0.0, -s[1]]));
                }
            }
        }
        let mut epsg = None;
        let mut geographic = false;
        let mut point = false;
        if let Some(dir) = self.values_u64(entries, GEO_KEY_DIRECTORY)? {
            if dir.len() >= 4 {
                let n = dir[3] as usize;
                let mut keys = HashMap::new();
                for k in dir[4..].chunks_exact(4).take(n) {
                    // Only inline SHORT values are needed here.
                    if k[1] == 0 {
                        keys.insert(k[0] as u16, k[3]);
                    }
                }
                let projected = keys.get(&PROJECTED_CS_TYPE).copied().filter(|&c| c > 0 && c < 32767);
                let geog = keys.get(&GEOGRAPHIC_TYPE).copied().filter(|&c| c > 0 && c < 32767);
                let model = keys.get(&GT_MODEL_TYPE).copied();
                if let (Some(c), false) = (projected, model == Some(2)) {
                    epsg = Some(c as u16);
                } else if let Some(c) = geog {
                    epsg = Some(c as u16);
                    geographic = true;
                }
                point = keys.get(&GT_RASTER_TYPE) == Some(&2);
            }
        }
        let _ = (self.ascii(entries, GEO_ASCII_PARAMS)?, self.values_f64(entries, GEO_DOUBLE_PARAMS)?);
        if let Some(mut g) = gt {
            if point {
                // GDAL's default: a PixelIsPoint tiepoint names the pixel centre.
                let (x, y) = g.apply(-0.5, -0.5);
                g.0[0] = x;
                g.0[3] = y;
            }
            self.geo = Some(GeoInfo { geo_transform: g, epsg, geographic });
        } else if epsg.is_some() {
            let _ = image;
            self.geo = Some(GeoInfo { geo_transform: GeoTransform([0.0, 1.0, 0.0, 0.0, 0.0, 1.0]), epsg, geographic });
        }
        Ok(())
    }

    /// Whether the file is BigTIFF.
    pub fn is_bigtiff(&self) -> bool {
        self.bigtiff
    }
    /// The full-resolution image.
    pub fn image(&self) -> &Image {
        &self.images[0]
    }
    /// The full-resolution image followed by its overviews, largest first.
    pub fn images(&self) -> &[Image] {
        &self.images
    }
    /// Width in pixels.
    pub fn width(&self) -> usize {
        self.images[0].width
    }
    /// Height in pixels.
    pub fn height(&self) -> usize {
        self.images[0].height
    }
    /// Number of bands.
    pub fn bands(&self) -> usize {
        self.images[0].samples_per_pixel
    }
    /// The sample type.
    pub fn data_type(&self) -> DataType {
        self.images[0].data_type
    }
    /// The GDAL_NODATA value.
    pub fn nodata(&self) -> Option<f64> {
        self.nodata
    }
    /// Georeferencing, when the file has any.
    pub fn geo(&self) -> Option<&GeoInfo> {
        self.geo.as_ref()
    }
    /// The geotransform of the full-resolution image (identity-like when absent).
    pub fn geo_transform(&self) -> GeoTransform {
        self.geo.as_ref().map(|g| g.geo_transform).unwrap_or(GeoTransform([0.0, 1.0, 0.0, 0.0, 0.0, 1.0]))
    }
    /// The geotransform of image `level` (0 = full resolution).
    pub fn level_transform(&self, level: usize) -> GeoTransform {
        let base = &self.images[0];
        let im = &self.images[level];
        self.geo_transform().scaled(base.width as f64 / im.width as f64, base.height as f64 / im.height as f64)
    }
    /// The EPSG code of the CRS.
    pub fn epsg(&self) -> Option<u16> {
        self.geo.as_ref().and_then(|g| g.epsg)
    }

    /// Decodes one chunk of image `level` into native-order samples (a full tile, or the rows
    /// of a strip).
    pub fn read_chunk(&self, level: usize, index: usize) -> Result<Vec<u8>> {
        let im = self.images.get(level).ok_or_else(|| Error::arg(format!("no image level {level}")))?;
        if self.interrupt.as_ref().is_some_and(|f| f()) {
            return Err(Error::Cancelled);
        }
        let per_band = im.chunks_across() * im.chunks_down();
        if index >= per_band * if im.planar { im.samples_per_pixel } else { 1 } {
            return Err(Error::arg(format!("no chunk {index}")));
        }
        let in_band = index % per_band;
        let rows = if im.tiled {
            im.chunk_height
        } else {
            let first = (in_band / im.chunks_across()) * im.chunk_height;
            im.chunk_height.min(im.height - first)
        };
        let spp = if im.planar { 1 } else { im.samples_per_pixel };
        let size = im.data_type.size();
        let expected = im.chunk_width * rows * spp * size;
        let (off, count) = (im.offsets[index], im.counts[index]);
        if off == 0 || count == 0 {
            // A sparse chunk: GDAL reads it as nodata (or zero).
            let v = self.nodata.unwrap_or(0.0);
            let mut out = vec![0u8; expected];
            if v != 0.0 {
                for s in out.chunks_exact_mut(size) {
                    write_ne(im.data_type, v, s);
                }
            }
            return Ok(out);
        }
        if off.saturating_add(count) > self.src.size() || count > (expected as u64).saturating_mul(4) + 1024 {
            return Err(Error::Decode { chunk: index, reason: "chunk past end of file".into() });
        }
        // Uncompressed data past the chunk's size is never looked at.
        let count = if im.compression == Compression::None { count.min(expected as u64) } else { count };
        let mut raw = vec![0u8; count as usize];
        self.src.read_exact_at(&mut raw, off)?;
        let mut data = codec::decompress(im.compression, &raw, expected, index)?;
        let row_samples = im.chunk_width * spp;
        match im.predictor {
            2 => {
                codec::to_native(&mut data, size, self.little_endian);
                codec::undo_horizontal(&mut data, row_samples, spp, size);
            }
            3 => codec::undo_float(&mut data, row_samples, spp, size),
            _ => codec::to_native(&mut data, size, self.little_endian),
        }
        Ok(data)
    }

    /// Reads `window` of band `band` (0-based) from image `level` as `T`. Pixels outside the
    /// image get `fill`. Only the chunks the window touches are read, decoded in parallel.
    pub fn read_window<T: Sample>(&self, level: usize, band: usize, win: Window, fill: T) -> Result<Vec<T>> {
        let mut bands = self.read_window_bands(level, &[band], win, fill)?;
        Ok(bands.pop().unwrap_or_default())
    }

    /// Reads `window` of several bands at once: with interleaved bands each chunk is decoded
    /// once for all of them, rather than once per band.
    pub fn read_window_bands<T: Sample>(
        &self,
        level: usize,
        bands: &[usize],
        win: Window,
        fill: T,
    ) -> Result<Vec<Vec<T>>> {
        let im = self.images.get(level).ok_or_else(|| Error::arg(format!("no image level {level}")))?;
        if let Some(b) = bands.iter().find(|b| **b >= im.samples_per_pixel) {
            return Err(Error::arg(format!("no band {b}")));
        }
        if im.planar && bands.len() > 1 {
            // Each band has chunks of its own: nothing to share.
            return bands.iter().map(|b| self.read_window(level, *b, win, fill)).collect();
        }
        let mut out = vec![vec![fill; win.width * win.height]; bands.len()];
        let x0 = win.x.max(0) as usize;
        let y0 = win.y.max(0) as usize;
        let x1 = (win.x + win.width as i64).clamp(0, im.width as i64) as usize;
        let y1 = (win.y + win.height as i64).clamp(0, im.height as i64) as usize;
        if x0 >= x1 || y0 >= y1 || bands.is_empty() {
            return Ok(out);
        }
        let (cw, ch) = (im.chunk_width, im.chunk_height);
        let across = im.chunks_across();
        let per_band = across * im.chunks_down();
        let mut chunks = Vec::new();
        for cy in y0 / ch..=(y1 - 1) / ch {
            for cx in x0 / cw..=(x1 - 1) / cw {
                chunks.push((cx, cy));
            }
        }
        let spp = if im.planar { 1 } else { im.samples_per_pixel };
        let dt = im.data_type;
        // Each chunk is decoded (or taken from the block cache) on its own thread, and the part
        // of it inside the window converted to `T`; rows are then copied.
        let decoded: Vec<Result<DecodedChunk<T>>> = chunks
            .par_iter()
            .map(|&(cx, cy)| {
                let index = cy * across + cx + if im.planar { bands[0] * per_band } else { 0 };
                let d = self.chunk(level, index)?;
                let (cx0, cy0) = (cx * cw, cy * ch);
                let (rx0, rx1) = (x0.max(cx0), x1.min(cx0 + cw));
                let (ry0, ry1) = (y0.max(cy0), y1.min(cy0 + ch));
                let part = Part { x0: rx0 - cx0, width: rx1 - rx0, y0: ry0 - cy0, height: ry1 - ry0, chunk_width: cw };
                let per: Vec<Vec<T>> =
                    bands.iter().map(|&b| extract::<T>(dt, &d, spp, if im.planar { 0 } else { b }, &part)).collect();
                Ok((rx0, ry0, part, per))
            })
            .collect();
        for d in decoded {
            let (rx0, ry0, part, per) = d?;
            let len = part.width;
            for (vals, out) in per.iter().zip(out.iter_mut()) {
                for (k, src) in vals.chunks_exact(len).enumerate() {
                    let dst = ((ry0 + k) as i64 - win.y) as usize * win.width + (rx0 as i64 - win.x) as usize;
                    out[dst..dst + len].copy_from_slice(src);
                }
            }
        }
        Ok(out)
    }

    /// Chunk `index` of image `level`, decoded, through the block cache when there is one.
    fn chunk(&self, level: usize, index: usize) -> Result<Arc<Vec<u8>>> {
        match &self.cache {
            Some((cache, id)) => {
                if self.interrupt.as_ref().is_some_and(|f| f()) {
                    return Err(Error::Cancelled);
                }
                cache.get_or_decode((*id, level, index), || self.read_chunk(level, index))
            }
            None => self.read_chunk(level, index).map(Arc::new),
        }
    }

    /// Reads a whole band of the full-resolution image into memory.
    pub fn read_band<T: Sample>(&self, band: usize) -> Result<Raster<T>> {
        let fill = T::from_f64(self.nodata.unwrap_or(0.0));
        let data = self.read_window(0, band, Window::new(0, 0, self.width(), self.height()), fill)?;
        Ok(Raster {
            width: self.width(),
            height: self.height(),
            data,
            geo_transform: self.geo_transform(),
            epsg: self.epsg(),
            nodata: self.nodata,
        })
    }
}

/// Where a window's part of a chunk starts in the image (column, row), the part, and its
/// samples of each band asked for.
type DecodedChunk<T> = (usize, usize, Part, Vec<Vec<T>>);

/// A rectangle of a chunk, in the chunk's pixels.
struct Part {
    x0: usize,
    width: usize,
    y0: usize,
    height: usize,
    chunk_width: usize,
}

/// Band `b` of the `part` of native-order chunk samples as `T`, row after row.
fn extract<T: Sample>(dt: DataType, data: &[u8], spp: usize, b: usize, part: &Part) -> Vec<T> {
    let mut out = Vec::with_capacity(part.width * part.height);
    macro_rules! go {
        ($t:ty) => {{
            const N: usize = std::mem::size_of::<$t>();
            let px = N * spp;
            for r in part.y0..part.y0 + part.height {
                let start = (r * part.chunk_width + part.x0) * px;
                let row = data.get(start..start + part.width * px).unwrap_or(&[]);
                if spp == 1 {
                    // One band: fixed-size samples, a loop the compiler unrolls.
                    out.extend(row.chunks_exact(N).map(|p| {
                        let mut a = [0u8; N];
                        a.copy_from_slice(p);
                        T::from_f64(<$t>::from_ne_bytes(a) as f64)
                    }));
                } else {
                    out.extend(row.chunks_exact(px).map(|p| {
                        let mut a = [0u8; N];
                        a.copy_from_slice(&p[b * N..(b + 1) * N]);
                        T::from_f64(<$t>::from_ne_bytes(a) as f64)
                    }));
                }
            }
        }};
    }
    match dt {
        DataType::UInt8 => go!(u8),
        DataType::Int8 => go!(i8),
        DataType::UInt16 => go!(u16),
        DataType::Int16 => go!(i16),
        DataType::UInt32 => go!(u32),
        DataType::Int32 => go!(i32),
        DataType::Float32 => go!(f32),
        DataType::Float64 => go!(f64),
    }
    out
}

pub(crate) fn write_ne(dt: DataType, v: f64, out: &mut [u8]) {
    match dt {
        DataType::UInt8 => out[0] = v as u8,
        DataType::Int8 => out[0] = v as i8 as u8,
        DataType::UInt16 => out.copy_from_slice(&(v as u16).to_ne_bytes()),
        DataType::Int16 => out.copy_from_slice(&(v as i16).to_ne_bytes()),
        DataType::UInt32 => out.copy_from_slice(&(v as u32).to_ne_bytes()),
        DataType::Int32 => out.copy_from_slice(&(v as i32).to_ne_bytes()),
        DataType::Float32 => out.copy_from_slice(&(v as f32).to_ne_bytes()),
        DataType::Float64 => out.copy_from_slice(&v.to_ne_bytes()),
    }
}

/// Turns the one strip of an uncompressed image into strips of a few rows (per band when planar),
/// as libtiff does, so that a window reads only its rows rather than the whole image.
fn split_single_strip(im: &mut Image) {
    let spp = if im.planar { 1 } else { im.samples_per_pixel };
    let row_bytes = im.width * spp * im.data_type.size();
    let rows = (STRIP_SLICE_BYTES / row_bytes.max(1)).max(1);
    if rows >= im.height {
        return;
    }
    let strips = im.height.div_ceil(rows);
    let bands = if im.planar { im.samples_per_pixel } else { 1 };
    let mut offsets = Vec::with_capacity(strips * bands);
    let mut counts = Vec::with_capacity(strips * bands);
    for b in 0..bands {
        let (off, count) = (im.offsets[b], im.counts[b]);
        for k in 0..strips {
            let start = (k * rows * row_bytes) as u64;
            let len = (rows.min(im.height - k * rows) * row_bytes) as u64;
            // A truncated strip leaves its missing rows sparse (nodata), as a short strip does.
            let available = count.saturating_sub(start).min(len);
            if off == 0 || available == 0 {
                offsets.push(0);
                counts.push(0);
            } else {
                offsets.push(off + start);
                counts.push(available);
            }
        }
    }
    im.chunk_height = rows;
    im.offsets = offsets;
    im.counts = counts;
}
