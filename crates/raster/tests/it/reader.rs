//! The reader on the shipped file (no GDAL needed) and on every encoding GDAL can write.

use crate::{dem_path, have_tool, run, s, tmp};
use meridian_raster::tiff::{GeoTiff, TiffWriter, WriterOptions};
use meridian_raster::{tiff::Compression, DataType, Window};

#[test]
fn shipped_lzw_dem_has_the_known_statistics() {
    let t = GeoTiff::open(dem_path()).unwrap();
    assert_eq!((t.width(), t.height(), t.bands()), (400, 400, 1));
    assert_eq!(t.data_type(), DataType::Float32);
    assert_eq!(t.epsg(), Some(2056));
    assert_eq!(t.nodata(), Some(-9999.0));
    assert_eq!(t.geo_transform().0, [2_573_000.0, 2.5, 0.0, 1_086_000.0, 0.0, -2.5]);
    assert!(t.image().tiled);
    assert_eq!(t.image().compression, Compression::Lzw);
    let r = t.read_band::<f32>(0).unwrap();
    let valid: Vec<f32> = r.data.iter().copied().filter(|v| *v != -9999.0).collect();
    assert_eq!(valid.len(), 160_000);
    let min = valid.iter().copied().fold(f32::INFINITY, f32::min);
    let max = valid.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mean = valid.iter().map(|v| *v as f64).sum::<f64>() / valid.len() as f64;
    assert!((min - 1615.817).abs() < 1e-3, "{min}");
    assert!((max - 2015.094).abs() < 1e-3, "{max}");
    assert!((mean - 1754.534).abs() < 1e-3, "{mean}");
}

#[test]
fn windows_match_the_full_read_and_fill_outside() {
    let t = GeoTiff::open(dem_path()).unwrap();
    let full = t.read_band::<f32>(0).unwrap();
    let w = t.read_window::<f32>(0, 0, Window::new(-2, 390, 10, 20), f32::NAN).unwrap();
    for r in 0..20 {
        for c in 0..10 {
            let (x, y) = (c as i64 - 2, 390 + r as i64);
            let v = w[r * 10 + c];
            if x < 0 || y >= 400 {
                assert!(v.is_nan());
            } else {
                assert_eq!(v, full.get(x as usize, y as usize));
            }
        }
    }
}

#[test]
fn rejects_files_that_are_not_tiffs() {
    assert!(GeoTiff::from_bytes(b"not a tiff at all".to_vec()).is_err());
    assert!(GeoTiff::from_bytes(b"II*\0\xff\xff\xff\x7f".to_vec()).is_err());
    let mut truncated = std::fs::read(dem_path()).unwrap();
    truncated.truncate(2000);
    let r = GeoTiff::from_bytes(truncated).and_then(|t| t.read_band::<f32>(0));
    assert!(r.is_err());
}

#[test]
fn writer_round_trips_every_layout() {
    let src = GeoTiff::open(dem_path()).unwrap().read_band::<f32>(0).unwrap();
    let dir = tmp();
    let layouts = [
        (Some(256), Compression::Deflate, true, false),
        (Some(128), Compression::None, false, true),
        (None, Compression::Deflate, true, false),
        (None, Compression::None, false, false),
    ];
    for (i, (tile, compression, predictor, bigtiff)) in layouts.into_iter().enumerate() {
        let p = dir.path().join(format!("{i}.tif"));
        let opts = WriterOptions {
            tile_size: tile,
            rows_per_strip: 7,
            compression,
            predictor,
            bigtiff,
            nodata: Some(-9999.0),
            ..WriterOptions::default()
        };
        let mut w = TiffWriter::create::<f32>(&p, 400, 400, 1, opts).unwrap();
        for rows in src.data.chunks(400 * 33) {
            w.write_rows(rows).unwrap();
        }
        w.finish().unwrap();
        let back = GeoTiff::open(&p).unwrap();
        assert_eq!(back.is_bigtiff(), bigtiff);
        assert_eq!(back.nodata(), Some(-9999.0));
        assert_eq!(back.read_band::<f32>(0).unwrap().data, src.data, "layout {i}");
    }
    // Integer samples with the horizontal predictor, three bands.
    let p = dir.path().join("rgb.tif");
    let opts = WriterOptions { predictor: true, ..WriterOptions::default() };
    let pixels: Vec<u16> = (0..300 * 200 * 3).map(|i| (i * 7919 % 65_521) as u16).collect();
    let mut w = TiffWriter::create::<u16>(&p, 300, 200, 3, opts).unwrap();
    w.write_rows(&pixels).unwrap();
    w.finish().unwrap();
    let back = GeoTiff::open(&p).unwrap();
    for b in 0..3 {
        let band = back.read_window::<u16>(0, b, Window::new(0, 0, 300, 200), 0).unwrap();
        assert!(band.iter().enumerate().all(|(i, v)| *v == pixels[i * 3 + b]));
    }
}

/// Reads raw little-endian samples GDAL wrote as ENVI.
fn envi_values(path: &std::path::Path, dt: DataType) -> Vec<f64> {
    let bytes = std::fs::read(path).unwrap();
    bytes
        .chunks_exact(dt.size())
        .map(|c| match dt {
            DataType::UInt8 => c[0] as f64,
            DataType::Int8 => c[0] as i8 as f64,
            DataType::UInt16 => u16::from_le_bytes([c[0], c[1]]) as f64,
            DataType::Int16 => i16::from_le_bytes([c[0], c[1]]) as f64,
            DataType::UInt32 => u32::from_le_bytes(c.try_into().unwrap()) as f64,
            DataType::Int32 => i32::from_le_bytes(c.try_into().unwrap()) as f64,
            DataType::Float32 => f32::from_le_bytes(c.try_into().unwrap()) as f64,
            DataType::Float64 => f64::from_le_bytes(c.try_into().unwrap()),
        })
        .collect()
}

#[test]
fn reads_every_encoding_gdal_writes() {
    if !have_tool("gdal_translate", "reads_every_encoding_gdal_writes") {
        return;
    }
    let dir = tmp();
    let src = dem_path();
    let cases: &[(&str, DataType, &[&str])] = &[
        (
            "deflate_fp",
            DataType::Float32,
            &[
                "-co",
                "COMPRESS=DEFLATE",
                "-co",
                "PREDICTOR=3",
                "-co",
                "TILED=YES",
                "-co",
                "BLOCKXSIZE=128",
                "-co",
                "BLOCKYSIZE=64",
            ],
        ),
        ("zstd_strips", DataType::Float32, &["-co", "COMPRESS=ZSTD", "-co", "PREDICTOR=3", "-co", "BLOCKYSIZE=16"]),
        ("packbits_big", DataType::Float32, &["-co", "COMPRESS=PACKBITS", "-co", "BIGTIFF=YES", "-co", "TILED=YES"]),
        ("lzw_f64", DataType::Float64, &["-ot", "Float64", "-co", "COMPRESS=LZW", "-co", "PREDICTOR=3"]),
        (
            "i16_pred",
            DataType::Int16,
            &["-ot", "Int16", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=2", "-co", "TILED=YES"],
        ),
        ("u16", DataType::UInt16, &["-ot", "UInt16", "-co", "COMPRESS=LZW", "-co", "PREDICTOR=2"]),
        ("i32", DataType::Int32, &["-ot", "Int32", "-co", "COMPRESS=ZSTD", "-co", "PREDICTOR=2", "-co", "TILED=YES"]),
        ("u32_plain", DataType::UInt32, &["-ot", "UInt32"]),
        (
            "u8",
            DataType::UInt8,
            &["-ot", "Byte", "-scale", "1600", "2020", "0", "255", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=2"],
        ),
        (
            "i8",
            DataType::Int8,
            &["-ot", "Byte", "-co", "PIXELTYPE=SIGNEDBYTE", "-scale", "1600", "2020", "-127", "127"],
        ),
        ("bigendian", DataType::Float32, &["-co", "ENDIANNESS=BIG", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=2"]),
    ];
    for (name, dt, opts) in cases {
        let tif = dir.path().join(format!("{name}.tif"));
        let raw = dir.path().join(format!("{name}.bin"));
        let mut args: Vec<&str> = vec!["-q"];
        args.extend_from_slice(opts);
        args.extend([s(&src), s(&tif)]);
        run("gdal_translate", &args);
        run("gdal_translate", &["-q", "-of", "ENVI", s(&tif), s(&raw)]);
        let expected = envi_values(&raw, if *dt == DataType::Int8 { DataType::Int8 } else { *dt });
        let t = GeoTiff::open(&tif).unwrap();
        assert_eq!(t.data_type(), *dt, "{name}");
        assert_eq!(t.epsg(), Some(2056), "{name}");
        let got = t.read_window::<f64>(0, 0, Window::new(0, 0, 400, 400), 0.0).unwrap();
        assert_eq!(got, expected, "{name}");
    }
    // Three bands, pixel- and band-interleaved, and overviews.
    for interleave in ["PIXEL", "BAND"] {
        let tif = dir.path().join(format!("{interleave}.tif"));
        run(
            "gdal_translate",
            &[
                "-q",
                "-b",
                "1",
                "-b",
                "1",
                "-b",
                "1",
                "-co",
                "COMPRESS=DEFLATE",
                "-co",
                &format!("INTERLEAVE={interleave}"),
                s(&src),
                s(&tif),
            ],
        );
        run("gdaladdo", &["-q", "-r", "average", s(&tif), "2", "4"]);
        let t = GeoTiff::open(&tif).unwrap();
        assert_eq!(t.bands(), 3);
        assert_eq!(t.images().len(), 3, "{interleave}: two overviews");
        assert_eq!((t.images()[1].width, t.images()[2].width), (200, 100));
        let band0 = t.read_window::<f32>(0, 0, Window::new(0, 0, 400, 400), 0.0).unwrap();
        let band2 = t.read_window::<f32>(0, 2, Window::new(0, 0, 400, 400), 0.0).unwrap();
        assert_eq!(band0, band2);
        let ovr = dir.path().join(format!("{interleave}_ovr.bin"));
        run(
            "gdal_translate",
            &["-q", "-of", "ENVI", "-b", "2", "-outsize", "100", "100", "-r", "nearest", s(&tif), s(&ovr)],
        );
        let expected: Vec<f32> = envi_values(&ovr, DataType::Float32).into_iter().map(|v| v as f32).collect();
        let got = t.read_window::<f32>(2, 1, Window::new(0, 0, 100, 100), 0.0).unwrap();
        assert_eq!(got, expected, "{interleave} overview");
    }
}

/// Predictor 3 on interleaved bands differences bytes with a stride of the band count (libtiff's
/// `fpDiff`); the writer used a stride of 1, so GDAL (and this reader) read other values back.
#[test]
fn multi_band_predictor_files_read_back_identically_here_and_in_gdal() {
    let dir = tmp();
    let (w, h) = (70, 45);
    let floats: Vec<f32> =
        (0..w * h * 3).map(|i| 1000.0 + (i as f32 * 0.731).sin() * 250.0 + i as f32 * 0.01).collect();
    let ints: Vec<u16> = (0..w * h * 3).map(|i| (i * 7919 % 65_521) as u16).collect();
    let gdal = have_tool("gdal_translate", "multi_band_predictor_files_read_back_identically_here_and_in_gdal");
    for tile in [Some(32), None] {
        let opts = WriterOptions { predictor: true, tile_size: tile, rows_per_strip: 8, ..WriterOptions::default() };
        let fp = dir.path().join(format!("fp-{tile:?}.tif"));
        let mut wr = TiffWriter::create::<f32>(&fp, w, h, 3, opts.clone()).unwrap();
        wr.write_rows(&floats).unwrap();
        wr.finish().unwrap();
        let ip = dir.path().join(format!("int-{tile:?}.tif"));
        let mut wr = TiffWriter::create::<u16>(&ip, w, h, 3, opts).unwrap();
        wr.write_rows(&ints).unwrap();
        wr.finish().unwrap();

        let back = GeoTiff::open(&fp).unwrap();
        assert_eq!(back.image().predictor, 3);
        let iback = GeoTiff::open(&ip).unwrap();
        assert_eq!(iback.image().predictor, 2);
        for b in 0..3 {
            let band = back.read_window::<f32>(0, b, Window::new(0, 0, w, h), 0.0).unwrap();
            assert!(band.iter().enumerate().all(|(i, v)| *v == floats[i * 3 + b]), "float band {b}, {tile:?}");
            let band = iback.read_window::<u16>(0, b, Window::new(0, 0, w, h), 0).unwrap();
            assert!(band.iter().enumerate().all(|(i, v)| *v == ints[i * 3 + b]), "int band {b}, {tile:?}");
        }
        // All bands at once (each chunk decoded once) gives the same as band by band.
        let all = back.read_window_bands::<f32>(0, &[0, 1, 2], Window::new(-3, 5, w, h), -1.0).unwrap();
        for (b, band) in all.iter().enumerate() {
            assert_eq!(band, &back.read_window::<f32>(0, b, Window::new(-3, 5, w, h), -1.0).unwrap());
        }
        if gdal {
            for (src, dt, want) in [
                (&fp, DataType::Float32, floats.iter().map(|v| *v as f64).collect::<Vec<_>>()),
                (&ip, DataType::UInt16, ints.iter().map(|v| *v as f64).collect()),
            ] {
                let raw = dir.path().join("out.bip");
                run("gdal_translate", &["-q", "-of", "ENVI", "-co", "INTERLEAVE=BIP", s(src), s(&raw)]);
                assert_eq!(envi_values(&raw, dt), want, "GDAL reads {} back", s(src));
            }
        }
    }
}
