//! Fuzzing the TIFF reader (stable runner over `fuzz/corpus/tiff/`): open under tight limits, read
//! every band of every image, and where the `tiff` crate also decodes the full-resolution image,
//! the two must agree on its size and on every sample.

use meridian_raster::tiff::{Compression, GeoTiff, Image, Limits};
use meridian_raster::Window;

/// Limits small enough that every mutation stays well inside the time budget.
const LIMITS: Limits = Limits { max_pixels: 1 << 22, max_chunk_bytes: 4 << 20, max_chunks: 1 << 14 };

fn reference(data: &[u8]) -> Option<(u32, u32, Vec<f64>)> {
    use tiff::decoder::{Decoder, DecodingResult};
    let mut limits = tiff::decoder::Limits::default();
    limits.decoding_buffer_size = 64 << 20;
    limits.intermediate_buffer_size = 16 << 20;
    let mut d = Decoder::new(std::io::Cursor::new(data)).ok()?.with_limits(limits);
    let (w, h) = d.dimensions().ok()?;
    // The tiff crate inverts WhiteIsZero samples; GDAL and this reader return them as stored.
    if d.find_tag_unsigned::<u32>(tiff::tags::Tag::PhotometricInterpretation).ok()? == Some(0) {
        return None;
    }
    let samples = match d.read_image().ok()? {
        DecodingResult::U8(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::I8(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::U16(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::I16(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::U32(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::I32(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::F32(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::F64(v) => v,
        _ => return None,
    };
    Some((w, h, samples))
}

/// Whether an uncompressed chunk holds fewer bytes than its rows need.
fn has_short_chunk(im: &Image) -> bool {
    let px = (im.samples_per_pixel * im.data_type.size()) as u64;
    let across = im.chunks_across();
    im.chunk_byte_counts().iter().take(across * im.chunks_down()).enumerate().any(|(i, &count)| {
        let first_row = (i / across) * im.chunk_height;
        let rows = if im.tiled { im.chunk_height } else { im.chunk_height.min(im.height.saturating_sub(first_row)) };
        count < im.chunk_width as u64 * rows as u64 * px
    })
}

fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// Returns whether the image was compared with the `tiff` crate's decoding.
fn check_tiff(data: &[u8]) -> bool {
    let Ok(t) = GeoTiff::from_source_with(Box::new(data.to_vec()), LIMITS) else { return false };
    let mut full = Vec::new();
    for (level, im) in t.images().iter().enumerate() {
        let bands: Vec<usize> = (0..im.samples_per_pixel).collect();
        let win = Window::new(0, 0, im.width, im.height);
        match t.read_window_bands::<f64>(level, &bands, win, f64::NAN) {
            Ok(v) if level == 0 => full = v,
            _ => {}
        }
    }
    let im = t.image();
    // Sparse chunks read as nodata here and as zero there; planar files differ in layout; short
    // uncompressed chunks are zero-padded here (as libtiff does for strips) and not there.
    let comparable = full.len() == im.samples_per_pixel
        && !im.planar
        && im.sparse_chunks() == 0
        && (im.compression != Compression::None || !has_short_chunk(im));
    if !comparable {
        return false;
    }
    let Some((w, h, theirs)) = reference(data) else { return false };
    assert_eq!((w as usize, h as usize), (im.width, im.height), "dimensions differ from the tiff crate's");
    let spp = im.samples_per_pixel;
    if theirs.len() != im.width * im.height * spp {
        // The tiff crate derives channels from the colour model (four samples tagged RGB without
        // ExtraSamples read as three); samples per pixel are what this reader goes by.
        return false;
    }
    for (b, ours) in full.iter().enumerate() {
        for (i, v) in ours.iter().enumerate() {
            let r = theirs[i * spp + b];
            assert!(same(*v, r), "band {b} sample {i}: {v} here, {r} in the tiff crate");
        }
    }
    true
}

#[test]
fn fuzz_tiff() {
    meridian_testing::Target::new("tiff")
        .dictionary([
            &b"II*\0"[..],
            b"MM\0*",
            b"II+\0\x08\0\0\0",
            b"\x00\x01\x04\x00\x01\x00\x00\x00", // ImageWidth LONG 1
            b"\x01\x01\x04\x00\x01\x00\x00\x00", // ImageLength LONG 1
            b"\x03\x01\x03\x00\x01\x00\x00\x00", // Compression SHORT 1
            b"\x3d\x01\x03\x00\x01\x00\x00\x00", // Predictor SHORT 1
            b"\x42\x01",                         // TileWidth
            b"\x44\x01",                         // TileOffsets
            b"\x11\x01",                         // StripOffsets
            b"\x17\x01",                         // StripByteCounts
            b"\xff\xff\xff\x7f",
            b"\x00\x00\x01\x00",
            b"\x80\x80\x80\x80",
        ])
        .max_len(64 << 10)
        .run(|data| {
            check_tiff(data);
        });
}

/// The differential check is not vacuous: the real files of the corpus (GDAL's encodings, the
/// writer's) decode in both readers and are compared sample by sample.
#[test]
fn the_real_corpus_files_are_compared_with_the_tiff_crate() {
    let dir = meridian_testing::workspace_root().join("fuzz/corpus/tiff");
    let mut compared = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if check_tiff(&std::fs::read(&path).unwrap()) {
            compared.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    compared.sort();
    for name in
        ["strips-deflate-pred3.tif", "tiled-lzw-pred2-int16.tif", "three-band-f32-pred3.tif", "bigtiff-deflate.tif"]
    {
        assert!(compared.iter().any(|c| c == name), "{name} not compared; compared: {compared:?}");
    }
}
