//! The COG writer: layout read back by our reader, and accepted by GDAL's COG validator.

use crate::{dem_path, have_python_module, have_tool, run, s, tmp};
use meridian_raster::tiff::{self, CogOptions, GeoTiff};
use meridian_raster::{DataType, Window};
use std::process::Command;

fn big_dem(dir: &std::path::Path) -> std::path::PathBuf {
    // A 1300 × 1300 raster from the shipped tile, written by our own writer (no GDAL needed).
    let src = GeoTiff::open(dem_path()).unwrap().read_band::<f32>(0).unwrap();
    let n = 1300;
    let mut data = Vec::with_capacity(n * n);
    for r in 0..n {
        for c in 0..n {
            data.push(src.get(c * 400 / n, r * 400 / n));
        }
    }
    // A nodata corner.
    for r in 0..100 {
        for c in 0..100 {
            data[r * n + c] = -9999.0;
        }
    }
    let raster = meridian_raster::Raster {
        width: n,
        height: n,
        data,
        geo_transform: meridian_raster::GeoTransform::north_up(
            2_573_000.0,
            1_086_000.0,
            1000.0 / n as f64,
            1000.0 / n as f64,
        ),
        epsg: Some(2056),
        nodata: Some(-9999.0),
    };
    let p = dir.join("cog.tif");
    tiff::write_raster_cog(&raster, &p, &CogOptions::default()).unwrap();
    p
}

#[test]
fn cog_has_overviews_and_reads_back() {
    let dir = tmp();
    let p = big_dem(dir.path());
    let t = GeoTiff::open(&p).unwrap();
    assert_eq!(t.epsg(), Some(2056));
    assert_eq!(t.nodata(), Some(-9999.0));
    let sizes: Vec<usize> = t.images().iter().map(|i| i.width).collect();
    assert_eq!(sizes, vec![1300, 650, 325]);
    assert!(t.images().iter().all(|i| i.tiled && i.chunk_width == 512));
    let full = t.read_window::<f32>(0, 0, Window::new(0, 0, 1300, 1300), 0.0).unwrap();
    let ovr = t.read_window::<f32>(1, 0, Window::new(0, 0, 650, 650), 0.0).unwrap();
    // Overview pixels are the mean of their 2 × 2 valid source pixels.
    for (r, c) in [(100, 100), (300, 17), (649, 649), (60, 60)] {
        let vals: Vec<f32> = [(0, 0), (0, 1), (1, 0), (1, 1)]
            .iter()
            .map(|(dr, dc)| full[(2 * r + dr) * 1300 + 2 * c + dc])
            .filter(|v| *v != -9999.0)
            .collect();
        let mean = vals.iter().map(|v| *v as f64).sum::<f64>() / vals.len() as f64;
        assert!((ovr[r * 650 + c] as f64 - mean).abs() < 1e-3);
    }
    assert_eq!(ovr[10 * 650 + 10], -9999.0);
}

#[test]
fn gdal_validates_our_cog() {
    if !have_tool("gdalinfo", "gdal_validates_our_cog") {
        return;
    }
    let dir = tmp();
    let p = big_dem(dir.path());
    let out = Command::new("gdalinfo").args(["-checksum", s(&p)]).output().unwrap();
    let info = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(info.contains("ID[\"EPSG\",2056]"), "{info}");
    assert!(info.contains("NoData Value=-9999"), "{info}");
    assert!(info.contains("Overviews: 650x650, 325x325"), "{info}");
    assert!(info.contains("COMPRESSION=DEFLATE"), "{info}");
    // Debian's GDAL bindings live in the system interpreter.
    let python = if std::path::Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" };
    if have_python_module(python, "osgeo_utils", "gdal_validates_our_cog (COG validator)") {
        let o = Command::new(python)
            .args(["-m", "osgeo_utils.samples.validate_cloud_optimized_geotiff", "--full-check=yes", s(&p)])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "validator: {text}{}", String::from_utf8_lossy(&o.stderr));
        assert!(text.contains("is a valid cloud optimized GeoTIFF"), "{text}");
    } else {
        // Without the Python bindings, GDAL's COG driver checks the layout instead.
        let copy = dir.path().join("copy.tif");
        run("gdal_translate", &["-q", "-of", "COG", s(&p), s(&copy)]);
    }
    // Reading through GDAL gives our values back.
    let raw = dir.path().join("raw.bin");
    run("gdal_translate", &["-q", "-of", "ENVI", s(&p), s(&raw)]);
    let bytes = std::fs::read(&raw).unwrap();
    let gdal: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    let ours = GeoTiff::open(&p).unwrap().read_band::<f32>(0).unwrap().data;
    assert_eq!(gdal, ours);
}

#[test]
fn the_fastest_deflate_gives_the_same_values_to_us_and_to_gdal() {
    let dir = tmp();
    let p = big_dem(dir.path());
    let fast = dir.path().join("fast.tif");
    let opts = CogOptions { level: tiff::FASTEST, ..CogOptions::default() };
    tiff::write_cog(&GeoTiff::open(&p).unwrap(), &fast, &opts).unwrap();
    let (a, b) = (GeoTiff::open(&p).unwrap(), GeoTiff::open(&fast).unwrap());
    assert_eq!(a.images().len(), b.images().len());
    for level in 0..a.images().len() {
        let (w, h) = (a.images()[level].width, a.images()[level].height);
        let win = Window::new(0, 0, w, h);
        assert_eq!(
            a.read_window::<f32>(level, 0, win, 0.0).unwrap(),
            b.read_window::<f32>(level, 0, win, 0.0).unwrap(),
            "level {level}"
        );
    }
    if !have_tool("gdal_translate", "the_fastest_deflate_gives_the_same_values_to_us_and_to_gdal") {
        return;
    }
    let raw = dir.path().join("fast.bin");
    run("gdal_translate", &["-q", "-of", "ENVI", s(&fast), s(&raw)]);
    let bytes = std::fs::read(&raw).unwrap();
    let gdal: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(gdal, b.read_band::<f32>(0).unwrap().data);
}

/// Copying a source to a COG (the first step of a job on an upload) reports progress block by
/// block, and stops when told to: it used to say nothing until it was done.
#[test]
fn cog_copy_reports_progress_and_can_be_cancelled() {
    let dir = tmp();
    let src = GeoTiff::open(big_dem(dir.path())).unwrap();
    let seen = std::sync::Mutex::new(Vec::new());
    let out = dir.path().join("progress-cog.tif");
    tiff::write_cog_with_progress(&src, &out, &CogOptions::default(), &|f| {
        seen.lock().unwrap().push(f);
        true
    })
    .unwrap();
    let seen = seen.into_inner().unwrap();
    assert!(seen.len() >= 3, "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0] < w[1]) && seen[0] > 0.0 && *seen.last().unwrap() == 1.0, "{seen:?}");
    let stopped = tiff::write_cog_with_progress(&src, dir.path().join("x.tif"), &CogOptions::default(), &|_| false);
    assert!(matches!(stopped, Err(meridian_raster::Error::Cancelled)));
}

/// The overview cascade as the writer first built it: every level in `f64`, the unrounded means
/// of one level passed to the next. Returns each level's samples, bands interleaved.
fn reference_levels(
    full: Vec<f64>,
    (mut w, mut h): (usize, usize),
    bands: usize,
    nodata: Option<f64>,
    int: bool,
    average: bool,
    tile: usize,
) -> Vec<Vec<f64>> {
    let mut levels = vec![full];
    while w.max(h) > tile {
        let prev = levels.last().unwrap();
        let (nw, nh) = (w.div_ceil(2), h.div_ceil(2));
        let mut next = vec![0.0; nw * nh * bands];
        for y in 0..nh {
            for x in 0..nw {
                for b in 0..bands {
                    let mut vals = Vec::new();
                    for sy in [2 * y, 2 * y + 1].into_iter().filter(|sy| *sy < h) {
                        for sx in [2 * x, 2 * x + 1].into_iter().filter(|sx| *sx < w) {
                            vals.push(prev[(sy * w + sx) * bands + b]);
                        }
                    }
                    let first = vals[0];
                    let valid: Vec<f64> = vals
                        .into_iter()
                        .filter(|v| match nodata {
                            Some(nd) if !nd.is_nan() => *v != nd,
                            _ => !v.is_nan(),
                        })
                        .collect();
                    next[(y * nw + x) * bands + b] = if !average {
                        first
                    } else if valid.is_empty() {
                        nodata.unwrap_or(f64::NAN)
                    } else {
                        let m = valid.iter().sum::<f64>() / valid.len() as f64;
                        if int {
                            m.round()
                        } else {
                            m
                        }
                    };
                }
            }
        }
        levels.push(next);
        (w, h) = (nw, nh);
    }
    levels
}

/// Writes `data` with our tiled writer, lays it out as a COG and checks every level against the
/// reference cascade: the full resolution bit for bit, the overviews exactly for integers and to
/// rounding for floats.
fn check_cog_levels<T: tiff::Pixel + Into<f64>>(
    data: &[T],
    (w, h): (usize, usize),
    bands: usize,
    nodata: Option<f64>,
    average: bool,
) {
    let dir = tmp();
    let src = dir.path().join("src.tif");
    let wo = tiff::WriterOptions { tile_size: Some(64), predictor: true, nodata, ..Default::default() };
    let mut writer = tiff::TiffWriter::create::<T>(&src, w, h, bands, wo).unwrap();
    // Rows in uneven blocks, as a streaming producer gives them.
    let per_row = w * bands;
    let mut y = 0;
    for n in [7, 1, 64, 33].iter().cycle() {
        if y >= h {
            break;
        }
        let n = (*n).min(h - y);
        writer.write_rows(&data[y * per_row..(y + n) * per_row]).unwrap();
        y += n;
    }
    writer.finish().unwrap();
    let cog = dir.path().join("cog.tif");
    let opts = CogOptions { tile_size: 64, average, ..CogOptions::default() };
    tiff::write_cog(&GeoTiff::open(&src).unwrap(), &cog, &opts).unwrap();
    let t = GeoTiff::open(&cog).unwrap();
    let int = !<T as tiff::Pixel>::DATA_TYPE.is_float();
    let full: Vec<f64> = data.iter().map(|v| (*v).into()).collect();
    // Overviews of floats are kept in the source type from one level to the next, so they differ
    // from the f64 cascade by the rounding of the largest values averaged.
    let largest = full.iter().filter(|v| v.is_finite() && Some(**v) != nodata).fold(1.0f64, |m, v| m.max(v.abs()));
    let tolerance = if <T as tiff::Pixel>::DATA_TYPE == DataType::Float32 { 1e-6 } else { 1e-12 } * largest;
    let expected = reference_levels(full, (w, h), bands, nodata, int, average, 64);
    assert_eq!(t.images().len(), expected.len());
    let all: Vec<usize> = (0..bands).collect();
    for (level, (im, want)) in t.images().iter().zip(&expected).enumerate() {
        let win = Window::new(0, 0, im.width, im.height);
        let got = t.read_window_bands::<T>(level, &all, win, T::from_f64(0.0)).unwrap();
        for (b, got) in got.iter().enumerate() {
            for (i, g) in got.iter().enumerate() {
                let e = want[i * bands + b];
                if level == 0 {
                    let (mut got, mut want) = (Vec::new(), Vec::new());
                    g.put_ne(&mut got);
                    data[i * bands + b].put_ne(&mut want);
                    assert_eq!(got, want, "full resolution, sample {i} of band {b}");
                    continue;
                }
                let g: f64 = (*g).into();
                let same = if int { g == e } else { (g.is_nan() && e.is_nan()) || (g - e).abs() <= tolerance };
                assert!(same, "level {level}, band {b}, sample {i}: {g} against {e}");
            }
        }
    }
}

#[test]
fn cog_levels_keep_the_source_type_and_values() {
    let (w, h) = (301, 203);
    let wave = |i: usize| ((i % 977) as f64 * 0.731).sin();
    // Float32 with nodata patches and NaNs that are not nodata.
    let f: Vec<f32> = (0..w * h)
        .map(|i| match i % 211 {
            0..=9 => -9999.0,
            10 => f32::NAN,
            _ => (wave(i) * 1000.0) as f32 + 0.123,
        })
        .collect();
    check_cog_levels(&f, (w, h), 1, Some(-9999.0), true);
    check_cog_levels(&f, (w, h), 1, Some(-9999.0), false);
    // Float64 with NaN as nodata.
    let d: Vec<f64> = (0..w * h).map(|i| if i % 97 < 5 { f64::NAN } else { wave(i) * 1e6 }).collect();
    check_cog_levels(&d, (w, h), 1, None, true);
    // UInt16, one band with nodata 0, then three interleaved bands.
    let u: Vec<u16> = (0..w * h).map(|i| if i % 131 < 7 { 0 } else { (wave(i).abs() * 60000.0) as u16 }).collect();
    check_cog_levels(&u, (w, h), 1, Some(0.0), true);
    let u3: Vec<u16> = (0..w * h * 3).map(|i| (wave(i).abs() * 65535.0) as u16).collect();
    check_cog_levels(&u3, (w, h), 3, None, true);
    // Int16 with negatives, UInt8 RGB.
    let s16: Vec<i16> = (0..w * h).map(|i| (wave(i) * 30000.0) as i16).collect();
    check_cog_levels(&s16, (w, h), 1, Some(-32768.0), true);
    let rgb: Vec<u8> = (0..w * h * 3).map(|i| (wave(i).abs() * 255.0) as u8).collect();
    check_cog_levels(&rgb, (w, h), 3, None, true);
    check_cog_levels(&rgb, (w, h), 3, None, false);
}

/// Times `write_cog` alone on a 10,980² Float32 scene (tiled, uncompressed, as band math leaves
/// it), made with `gdal_translate` into `$MERIDIAN_BENCH_DIR` (default the temp dir) if absent.
/// Prints wall and CPU seconds and the process's peak resident memory.
/// Run with `cargo test --release -p meridian-raster --test it bench_write_cog_10980 -- --ignored --nocapture`.
#[test]
#[ignore = "benchmark"]
fn bench_write_cog_10980() {
    if !have_tool("gdal_translate", "bench_write_cog_10980") {
        return;
    }
    let dir =
        std::env::var("MERIDIAN_BENCH_DIR").map(std::path::PathBuf::from).unwrap_or_else(|_| std::env::temp_dir());
    let src = dir.join("bench-float32-10980.tif");
    if !src.exists() {
        // The eo benchmark's near-infrared scene when it is there (its texture is a satellite
        // image's), else the shipped DEM scaled up.
        let nir = dir.join("bench-nir-10980.tif");
        let input = if nir.exists() { nir } else { dem_path() };
        let st = Command::new("gdal_translate")
            .args(["-q", "-ot", "Float32", "-scale", "0", "25500", "-1", "1", "-a_nodata", "-9999"])
            .args(["-outsize", "10980", "10980", "-r", "bilinear"])
            .args(["-co", "TILED=YES", "-co", "BLOCKXSIZE=512", "-co", "BLOCKYSIZE=512"])
            .args([s(&input), s(&src)])
            .status()
            .unwrap();
        assert!(st.success());
    }
    let out = tmp();
    let dst = out.path().join("cog.tif");
    let cpu = || {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        let f: Vec<f64> =
            stat.rsplit(')').next().unwrap_or("").split_whitespace().map(|v| v.parse().unwrap_or(0.0)).collect();
        (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / 100.0
    };
    let (cpu0, started) = (cpu(), std::time::Instant::now());
    let opts = CogOptions { level: 1, ..CogOptions::default() };
    tiff::write_cog(&GeoTiff::open(&src).unwrap(), &dst, &opts).unwrap();
    let wall = started.elapsed().as_secs_f64();
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    eprintln!(
        "write_cog 10980² Float32: {wall:.2} s wall, {:.2} s CPU, {} MB, {}",
        cpu() - cpu0,
        std::fs::metadata(&dst).unwrap().len() >> 20,
        status.lines().find(|l| l.starts_with("VmHWM")).unwrap_or("VmHWM unknown")
    );
}
