//! Hostile files: sizes a file declares but cannot hold, and chunks that inflate past their size.
//! Each must be refused when opened or when the chunk is read, with a clear error and without
//! allocating anything the size of the declared image.

use meridian_raster::tiff::{GeoTiff, Limits};
use meridian_raster::{Error, Window};
use std::io::Write;

const NONE: u16 = 1;
const LZW: u16 = 5;
const DEFLATE: u16 = 8;
const PACKBITS: u16 = 32773;
const ZSTD: u16 = 50000;

/// A little-endian classic TIFF with one stripped Float32 band; `strips` are stored as given.
pub(crate) fn tiny_tiff(width: u32, height: u32, compression: u16, rows_per_strip: u32, strips: &[Vec<u8>]) -> Vec<u8> {
    let n = strips.len() as u32;
    let entries = 9u32;
    let ifd_end = 8 + 2 + entries * 12 + 4;
    // Offset and count arrays live after the IFD when they do not fit in an entry.
    let arrays = if n > 1 { 8 * n } else { 0 };
    let mut data_at = ifd_end + arrays;
    let mut offsets = Vec::new();
    for s in strips {
        offsets.push(data_at);
        data_at += s.len() as u32;
    }
    let counts: Vec<u32> = strips.iter().map(|s| s.len() as u32).collect();
    let mut f = b"II*\0\x08\0\0\0".to_vec();
    f.extend_from_slice(&(entries as u16).to_le_bytes());
    let mut entry = |tag: u16, typ: u16, count: u32, value: u32| {
        f.extend_from_slice(&tag.to_le_bytes());
        f.extend_from_slice(&typ.to_le_bytes());
        f.extend_from_slice(&count.to_le_bytes());
        f.extend_from_slice(&value.to_le_bytes());
    };
    let (short, long) = (3, 4);
    let array_or = |values: &[u32], at: u32| if values.len() == 1 { values[0] } else { at };
    entry(256, long, 1, width);
    entry(257, long, 1, height);
    entry(258, short, 1, 32);
    entry(259, short, 1, compression as u32);
    entry(273, long, n, array_or(&offsets, ifd_end));
    entry(277, short, 1, 1);
    entry(278, long, 1, rows_per_strip);
    entry(279, long, n, array_or(&counts, ifd_end + 4 * n));
    entry(339, short, 1, 3);
    f.extend_from_slice(&0u32.to_le_bytes());
    if n > 1 {
        for v in offsets.iter().chain(&counts) {
            f.extend_from_slice(&v.to_le_bytes());
        }
    }
    for s in strips {
        f.extend_from_slice(s);
    }
    f
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A 16 MiB run of zeros, deflated to about 16 KiB.
pub(crate) fn deflate_bomb() -> Vec<u8> {
    deflate(&vec![0u8; 16 << 20])
}

fn too_large(r: Result<GeoTiff, Error>) -> String {
    match r {
        Err(Error::TooLarge(m)) => m,
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

fn decode_error(r: Result<Vec<u8>, Error>) -> String {
    match r {
        Err(Error::Decode { reason, .. }) => reason,
        other => panic!("expected a decode error, got {:?}", other.map(|v| v.len())),
    }
}

/// The 247-byte file: 200,000 × 200,000 Float32 in one strip of 16 bytes. It used to
/// abort the process trying to allocate 160 GB.
#[test]
fn a_tiny_file_declaring_200000_squared_pixels_is_too_large() {
    let f = tiny_tiff(200_000, 200_000, DEFLATE, 200_000, &[deflate(&[0u8; 64])]);
    assert!(f.len() < 256, "{}", f.len());
    let m = too_large(GeoTiff::from_bytes(f));
    assert!(m.contains("200000 x 200000"), "{m}");
}

/// 40,000² in a single strip used to be accepted after 26 s with the process at 6.5 GB.
#[test]
fn a_single_compressed_strip_of_40000_squared_is_refused() {
    let f = tiny_tiff(40_000, 40_000, DEFLATE, 40_000, &[deflate(&[0u8; 1024])]);
    too_large(GeoTiff::from_bytes(f.clone()));
    // Even where the pixel count is allowed, the strip alone is 6.4 GB decoded.
    let limits = Limits { max_pixels: u64::MAX, ..Limits::default() };
    let m = too_large(GeoTiff::from_source_with(Box::new(f), limits));
    assert!(m.contains("bytes per chunk"), "{m}");
}

/// An uncompressed single strip is read a slice at a time: a window costs its rows, not the image.
#[test]
fn a_single_uncompressed_strip_is_read_in_slices() {
    let rows: Vec<u8> = (0..2 * 40_000).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let f = tiny_tiff(40_000, 40_000, NONE, 40_000, &[rows]);
    let limits = Limits { max_pixels: u64::MAX, ..Limits::default() };
    let t = GeoTiff::from_source_with(Box::new(f), limits).unwrap();
    assert!(t.image().chunk_height < 40_000);
    let w = t.read_window::<f32>(0, 0, Window::new(39_990, 0, 10, 3), -1.0).unwrap();
    assert_eq!(&w[..10], &(39_990..40_000).map(|v| v as f32).collect::<Vec<_>>()[..]);
    assert_eq!(w[10], 79_990.0);
    // Rows past the end of the (truncated) data read as zero, as sparse chunks do.
    assert_eq!(w[20], 0.0);
}

#[test]
fn more_strips_than_the_limit_are_refused() {
    let f = tiny_tiff(1, 2_000_000, NONE, 1, &[vec![0u8; 4]]);
    let m = too_large(GeoTiff::from_bytes(f));
    assert!(m.contains("chunks"), "{m}");
}

#[test]
fn limits_are_configurable() {
    let dem = std::fs::read(crate::dem_path()).unwrap();
    let small = Limits { max_pixels: 100_000, ..Limits::default() };
    too_large(GeoTiff::from_source_with(Box::new(dem.clone()), small));
    let small_chunks = Limits { max_chunk_bytes: 1000, ..Limits::default() };
    too_large(GeoTiff::from_source_with(Box::new(dem.clone()), small_chunks));
    let few_chunks = Limits { max_chunks: 0, ..Limits::default() };
    too_large(GeoTiff::from_source_with(Box::new(dem), few_chunks));
}

/// The deflate bomb (here 16 KiB inflating to 16 MiB): decoding stops at the strip's
/// 256 KiB and the chunk is invalid.
#[test]
fn a_deflate_bomb_stops_at_the_chunk_size() {
    let f = tiny_tiff(256, 256, DEFLATE, 256, &[deflate_bomb()]);
    assert!(f.len() < 20_000, "{}", f.len());
    let t = GeoTiff::from_bytes(f).unwrap();
    let reason = decode_error(t.read_chunk(0, 0));
    assert!(reason.contains("more than the chunk's 262144 bytes"), "{reason}");
    assert!(t.read_band::<f32>(0).is_err());
}

#[test]
fn an_lzw_bomb_stops_at_the_chunk_size() {
    let mut enc = weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8);
    let bomb = enc.encode(&vec![0u8; 4 << 20]).unwrap();
    let f = tiny_tiff(256, 256, LZW, 256, &[bomb]);
    let reason = decode_error(GeoTiff::from_bytes(f).unwrap().read_chunk(0, 0));
    assert!(reason.contains("more than"), "{reason}");
    // Exactly the chunk's bytes is fine.
    let mut enc = weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8);
    let exact = enc.encode(&vec![7u8; 256 * 256 * 4]).unwrap();
    let t = GeoTiff::from_bytes(tiny_tiff(256, 256, LZW, 256, &[exact])).unwrap();
    assert_eq!(t.read_chunk(0, 0).unwrap(), vec![7u8; 256 * 256 * 4]);
}

#[test]
fn a_zstd_bomb_stops_at_the_chunk_size() {
    let bomb = ruzstd::encoding::compress_to_vec(&vec![0u8; 4 << 20][..], ruzstd::encoding::CompressionLevel::Fastest);
    let f = tiny_tiff(256, 256, ZSTD, 256, &[bomb]);
    let reason = decode_error(GeoTiff::from_bytes(f).unwrap().read_chunk(0, 0));
    assert!(reason.contains("more than"), "{reason}");
}

#[test]
fn a_packbits_bomb_stops_at_the_chunk_size() {
    // Runs of 128 zeros, 4,096 of them: 512 KiB where the strip holds 256 KiB.
    let bomb: Vec<u8> = std::iter::repeat_n([0x81u8, 0x00], 4096).flatten().collect();
    let f = tiny_tiff(256, 256, PACKBITS, 256, &[bomb]);
    let reason = decode_error(GeoTiff::from_bytes(f).unwrap().read_chunk(0, 0));
    assert!(reason.contains("more than"), "{reason}");
}

#[test]
fn an_interrupted_read_stops_with_cancelled() {
    let t = GeoTiff::open(crate::dem_path()).unwrap().with_interrupt(|| true);
    assert!(matches!(t.read_band::<f32>(0), Err(Error::Cancelled)));
}
