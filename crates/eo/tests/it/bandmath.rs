//! Band math over GeoTIFFs: grids, windows, masking, COG output, statistics, previews, and the
//! numpy and GDAL oracles.

use crate::{cbers, cbers_path, never, python, s, tmp};
use meridian_eo::bandmath::{
    check_grid, compute, compute_to_cog, preview_png, statistics, window_of_bbox, Band, Grid, Statistics, NODATA,
};
use meridian_eo::expr::{named_index, Expression};
use meridian_raster::dem::ColorRamp;
use meridian_raster::tiff::{write_raster_cog, CogOptions, GeoInfo, GeoTiff, TiffWriter, WriterOptions};
use meridian_raster::{GeoTransform, Raster, Window};
use meridian_testing::tools::{have_python_module, have_tool};
use std::path::{Path, PathBuf};
use std::process::Command;

fn ndvi() -> Expression {
    Expression::parse(named_index("ndvi").unwrap()).unwrap()
}

fn write_f32(path: &Path, w: usize, h: usize, data: Vec<f32>, gt: GeoTransform, epsg: u16, nodata: Option<f64>) {
    let r = Raster { width: w, height: h, data, geo_transform: gt, epsg: Some(epsg), nodata };
    write_raster_cog(&r, path, &CogOptions::default()).unwrap();
}

/// A UInt16 GeoTIFF in 256-pixel Deflate tiles, written row block by row block.
fn write_u16(path: &Path, w: usize, h: usize, gt: GeoTransform, pixel: impl Fn(usize, usize) -> u16) {
    let opts = WriterOptions {
        tile_size: Some(256),
        predictor: true,
        geo: Some(GeoInfo { geo_transform: gt, epsg: Some(32640), geographic: false }),
        nodata: Some(0.0),
        ..WriterOptions::default()
    };
    let mut wr = TiffWriter::create::<u16>(path, w, h, 1, opts).unwrap();
    for r in 0..h {
        let row: Vec<u16> = (0..w).map(|c| pixel(c, r)).collect();
        wr.write_rows(&row).unwrap();
    }
    wr.finish().unwrap();
}

/// Red and near-infrared bands of `w` × `h` pixels made from the CBERS bands (nearest
/// upsampling, values scaled into the UInt16 range, nodata 0 kept), over the scene's extent.
fn upsampled_pair(dir: &Path, w: usize, h: usize) -> (PathBuf, PathBuf) {
    let src_gt = cbers(7).geo_transform();
    let gt = GeoTransform::north_up(src_gt.0[0], src_gt.0[3], 163.0 * 900.0 / w as f64, 155.0 * 900.0 / h as f64);
    let mut out = Vec::new();
    for (band, name) in [(7u8, "red.tif"), (8, "nir.tif")] {
        let src = cbers(band).read_band::<u16>(0).unwrap();
        let p = dir.join(name);
        write_u16(&p, w, h, gt, |c, r| {
            let v = src.get(c * 163 / w, r * 155 / h);
            // A little texture so that neighbouring upsampled pixels differ.
            if v == 0 {
                0
            } else {
                v * 97 + ((c * 7 + r * 13) % 29) as u16
            }
        });
        out.push(p);
    }
    (out.remove(0), out.remove(0))
}

#[test]
fn grid_mismatch_names_the_inputs_and_the_difference() {
    let dir = tmp();
    let gt = GeoTransform::north_up(1000.0, 2000.0, 10.0, 10.0);
    let paths: Vec<PathBuf> = (0..5).map(|i| dir.path().join(format!("{i}.tif"))).collect();
    write_f32(&paths[0], 4, 3, vec![1.0; 12], gt, 32640, None);
    write_f32(&paths[1], 4, 3, vec![2.0; 12], gt, 32640, None);
    write_f32(&paths[2], 3, 3, vec![1.0; 9], gt, 32640, None);
    write_f32(&paths[3], 4, 3, vec![1.0; 12], GeoTransform::north_up(1000.5, 2000.0, 10.0, 10.0), 32640, None);
    write_f32(&paths[4], 4, 3, vec![1.0; 12], gt, 32641, None);
    let t: Vec<GeoTiff> = paths.iter().map(|p| GeoTiff::open(p).unwrap()).collect();
    let band = |i: usize| Band { tiff: &t[i], band: 0 };

    let grid = check_grid(&[band(0), band(1)]).unwrap();
    assert_eq!(grid, Grid { width: 4, height: 3, geo_transform: gt, epsg: Some(32640) });

    let e = check_grid(&[band(0), band(1), band(2)]).unwrap_err();
    assert_eq!(e, "input 2 is 3 × 3 pixels but input 0 is 4 × 3");
    let e = check_grid(&[band(0), band(3)]).unwrap_err();
    assert!(e.starts_with("input 1 has the geotransform [1000.5,") && e.contains("input 0 has [1000.0,"), "{e}");
    let e = check_grid(&[band(0), band(4)]).unwrap_err();
    assert_eq!(e, "input 1 is in EPSG:32641 but input 0 is in EPSG:32640");
    let e = check_grid(&[band(0), Band { tiff: &t[1], band: 1 }]).unwrap_err();
    assert_eq!(e, "input 1 asks for band 2 but its file has 1 band");
    assert_eq!(check_grid(&[]).unwrap_err(), "no input bands");

    // compute turns the same into an invalid argument.
    let expr = Expression::parse("a - b").unwrap();
    let err = compute(&expr, &[band(0), band(2)], Window::new(0, 0, 3, 3), &never).unwrap_err();
    assert!(err.to_string().contains("input 1 is 3 × 3 pixels"), "{err}");
    let err = compute(&expr, &[band(0)], Window::new(0, 0, 3, 3), &never).unwrap_err();
    assert!(err.to_string().contains("uses 2 bands (a, b) but 1 were given"), "{err}");
    let err = compute(&Expression::parse("1 + 1").unwrap(), &[], Window::new(0, 0, 1, 1), &never).unwrap_err();
    assert!(err.to_string().contains("uses no band"), "{err}");
}

#[test]
fn window_of_bbox_covers_and_clips() {
    // The CBERS grid: origin (90480, 666560), 900 m pixels, 163 × 155.
    let t = cbers(7);
    let grid = check_grid(&[Band { tiff: &t, band: 0 }]).unwrap();
    let (x0, y0) = (90_480.0, 666_560.0);
    // Exactly pixels 10..20 × 5..8.
    let w = window_of_bbox(&grid, [x0 + 10.0 * 900.0, y0 - 8.0 * 900.0, x0 + 20.0 * 900.0, y0 - 5.0 * 900.0]);
    assert_eq!(w, Some(Window::new(10, 5, 10, 3)));
    // A box inside one pixel takes that pixel; a box straddling edges takes every pixel touched.
    let w = window_of_bbox(&grid, [x0 + 100.0, y0 - 200.0, x0 + 300.0, y0 - 100.0]);
    assert_eq!(w, Some(Window::new(0, 0, 1, 1)));
    let w = window_of_bbox(&grid, [x0 + 850.0, y0 - 950.0, x0 + 1850.0, y0 - 850.0]);
    assert_eq!(w, Some(Window::new(0, 0, 3, 2)));
    // Clipped to the raster.
    let w = window_of_bbox(&grid, [0.0, 0.0, x0 + 2.0 * 900.0, 1e7]);
    assert_eq!(w, Some(Window::new(0, 0, 2, 155)));
    let w = window_of_bbox(&grid, [-1e9, -1e9, 1e9, 1e9]);
    assert_eq!(w, Some(Window::new(0, 0, 163, 155)));
    // Outside, inverted or not finite.
    assert_eq!(window_of_bbox(&grid, [0.0, 0.0, 1000.0, 1000.0]), None);
    assert_eq!(window_of_bbox(&grid, [x0 + 2000.0, y0 - 100.0, x0 + 1000.0, y0 - 50.0]), None);
    assert_eq!(window_of_bbox(&grid, [f64::NAN, 0.0, 1.0, 1.0]), None);
    assert_eq!(window_of_bbox(&grid, [x0 + 147_000.0, y0 - 100.0, x0 + 150_000.0, y0 - 50.0]), None);
}

#[test]
fn compute_masks_nodata_nan_and_division_by_zero() {
    let dir = tmp();
    let gt = GeoTransform::north_up(0.0, 60.0, 10.0, 10.0);
    let a = dir.path().join("a.tif");
    let b = dir.path().join("b.tif");
    write_f32(&a, 3, 2, vec![1.0, 2.0, -5.0, 4.0, f32::NAN, 6.0], gt, 32640, Some(-5.0));
    write_f32(&b, 3, 2, vec![1.0, 0.0, 1.0, 2.0, 1.0, 3.0], gt, 32640, None);
    let (ta, tb) = (GeoTiff::open(&a).unwrap(), GeoTiff::open(&b).unwrap());
    let bands = [Band { tiff: &ta, band: 0 }, Band { tiff: &tb, band: 0 }];
    let expr = Expression::parse("a / b").unwrap();
    let r = compute(&expr, &bands, Window::new(0, 0, 3, 2), &never).unwrap();
    assert_eq!(r.data, vec![1.0, NODATA, NODATA, 2.0, NODATA, 2.0]);
    assert_eq!(r.nodata, Some(-9999.0));
    assert_eq!(r.epsg, Some(32640));
    // A window reaching outside the raster: the outside is nodata, the georeference follows.
    let r = compute(&expr, &bands, Window::new(1, -1, 3, 2), &never).unwrap();
    assert_eq!(r.data, vec![NODATA, NODATA, NODATA, NODATA, NODATA, NODATA]);
    let r = compute(&expr, &bands, Window::new(-1, 1, 3, 1), &never).unwrap();
    assert_eq!(r.data, vec![NODATA, 2.0, NODATA]);
    assert_eq!(r.geo_transform, GeoTransform::north_up(-10.0, 50.0, 10.0, 10.0));
    // Cancelled before any work.
    let err = compute(&expr, &bands, Window::new(0, 0, 3, 2), &|| true).unwrap_err();
    assert!(matches!(err, meridian_raster::Error::Cancelled));
}

#[test]
fn compute_ndvi_over_cbers_matches_the_formula() {
    let (red, nir) = (cbers(7), cbers(8));
    let bands = [Band { tiff: &nir, band: 0 }, Band { tiff: &red, band: 0 }];
    let expr = ndvi();
    assert_eq!(expr.variables(), ["nir", "red"]);
    let r = compute(&expr, &bands, Window::new(0, 0, 163, 155), &never).unwrap();
    let (n, d) = (nir.read_band::<f32>(0).unwrap().data, red.read_band::<f32>(0).unwrap().data);
    let (mut valid, mut masked) = (0, 0);
    for i in 0..n.len() {
        if n[i] == 0.0 || d[i] == 0.0 {
            assert_eq!(r.data[i], NODATA, "pixel {i}");
            masked += 1;
        } else {
            assert_eq!(r.data[i], (n[i] - d[i]) / (n[i] + d[i]), "pixel {i}");
            valid += 1;
        }
    }
    assert!(valid > 10_000 && masked > 1_000, "{valid} valid, {masked} masked");
    assert_eq!(r.geo_transform, nir.geo_transform());
}

#[test]
fn statistics_of_a_known_raster() {
    let r = Raster {
        width: 3,
        height: 2,
        data: vec![1.0, 2.0, NODATA, 3.0, f32::NAN, 4.0],
        geo_transform: GeoTransform::north_up(0.0, 0.0, 1.0, 1.0),
        epsg: None,
        nodata: Some(NODATA as f64),
    };
    let s = statistics(&r);
    assert_eq!((s.count, s.nodata_count), (4, 2));
    assert_eq!((s.min, s.max, s.mean), (1.0, 4.0, 2.5));
    assert!((s.std - 1.25f64.sqrt()).abs() < 1e-12);
    // numpy.histogram([1, 2, 3, 4], bins=20)
    let mut counts = vec![0u64; 20];
    for i in [0, 6, 13, 19] {
        counts[i] = 1;
    }
    assert_eq!(s.histogram.counts, counts);
    assert_eq!((s.histogram.min, s.histogram.max), (1.0, 4.0));
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["nodata_count"], 2);
    assert_eq!(json["histogram"]["counts"].as_array().unwrap().len(), 20);

    // All equal: numpy widens the range by 0.5 each side.
    let one = Raster { data: vec![5.0; 6], nodata: None, ..r.clone() };
    let s = statistics(&one);
    assert_eq!((s.histogram.min, s.histogram.max, s.std), (4.5, 5.5, 0.0));
    assert_eq!(s.histogram.counts[10], 6);
    // Nothing valid.
    let none = Raster { data: vec![NODATA; 6], ..r };
    let s = statistics(&none);
    assert_eq!((s.count, s.nodata_count), (0, 6));
    assert!(s.mean.is_nan());
    assert_eq!(serde_json::to_value(&s).unwrap()["mean"], serde_json::Value::Null);
}

/// Equal statistics, but for the last bits of the mean and deviation, which depend on the order
/// partial sums are merged in.
fn same_statistics(a: &Statistics, b: &Statistics) {
    assert_eq!((a.count, a.nodata_count, a.min, a.max), (b.count, b.nodata_count, b.min, b.max));
    assert_eq!(a.histogram, b.histogram);
    assert!((a.mean - b.mean).abs() <= 1e-12 && (a.std - b.std).abs() <= 1e-12, "{a:?} {b:?}");
}

/// The streamed COG holds what the in-memory computation gives, with the same statistics.
#[test]
fn compute_to_cog_matches_compute_and_reports_statistics() {
    let dir = tmp();
    let (red_p, nir_p) = upsampled_pair(dir.path(), 1300, 1100);
    let (red, nir) = (GeoTiff::open(&red_p).unwrap(), GeoTiff::open(&nir_p).unwrap());
    let bands = [Band { tiff: &nir, band: 0 }, Band { tiff: &red, band: 0 }];
    let window = Window::new(0, 0, 1300, 1100);
    let out = dir.path().join("ndvi.tif");
    let seen = std::sync::Mutex::new(Vec::new());
    let stats = compute_to_cog(&ndvi(), &bands, window, &out, &never, &|p| seen.lock().unwrap().push(p)).unwrap();
    let seen = seen.into_inner().unwrap();
    assert!(seen.windows(2).all(|w| w[0] <= w[1]) && seen.last() == Some(&100), "{seen:?}");

    let cog = GeoTiff::open(&out).unwrap();
    assert_eq!(cog.nodata(), Some(-9999.0));
    assert_eq!(cog.epsg(), Some(32640));
    assert_eq!(cog.geo_transform(), nir.geo_transform());
    assert_eq!(cog.data_type(), meridian_raster::DataType::Float32);
    let sizes: Vec<usize> = cog.images().iter().map(|i| i.width).collect();
    assert_eq!(sizes, vec![1300, 650, 325]);
    let back = cog.read_band::<f32>(0).unwrap();
    let mem = compute(&ndvi(), &bands, window, &never).unwrap();
    assert_eq!(back.data, mem.data);
    same_statistics(&stats, &statistics(&mem));
    assert!(stats.count > 500_000 && stats.nodata_count > 50_000, "{stats:?}");
    // No temporary file is left beside the output.
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    assert_eq!(names.len(), 3, "{names:?}");

    // A window: the output is the window, georeferenced at its corner.
    let win = Window::new(1000, 900, 400, 300);
    let part = dir.path().join("part.tif");
    let s2 = compute_to_cog(&ndvi(), &bands, win, &part, &never, &|_| {}).unwrap();
    let back = GeoTiff::open(&part).unwrap().read_band::<f32>(0).unwrap();
    let mem = compute(&ndvi(), &bands, win, &never).unwrap();
    assert_eq!(back.data, mem.data);
    assert_eq!(back.geo_transform, mem.geo_transform);
    same_statistics(&s2, &statistics(&mem));

    // Cancelled part-way: an error, and no output.
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let stop = || calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= 2;
    let gone = dir.path().join("cancelled.tif");
    let err = compute_to_cog(&ndvi(), &bands, window, &gone, &stop, &|_| {}).unwrap_err();
    assert!(matches!(err, meridian_raster::Error::Cancelled), "{err}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 4, "only red, nir, ndvi and part remain");
}

#[test]
fn preview_png_picks_an_overview_that_fits() {
    let dir = tmp();
    let (red_p, nir_p) = upsampled_pair(dir.path(), 1300, 1100);
    let (red, nir) = (GeoTiff::open(&red_p).unwrap(), GeoTiff::open(&nir_p).unwrap());
    let bands = [Band { tiff: &nir, band: 0 }, Band { tiff: &red, band: 0 }];
    let out = dir.path().join("ndvi.tif");
    compute_to_cog(&ndvi(), &bands, Window::new(0, 0, 1300, 1100), &out, &never, &|_| {}).unwrap();
    let cog = GeoTiff::open(&out).unwrap();
    let dims = |png: &[u8]| {
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
        (w, h, png[25])
    };
    // The 650 × 550 overview fits 1024; the 325 × 275 one fits 400; 100 needs resampling.
    assert_eq!(dims(&preview_png(&cog, ColorRamp::RdYlGn, (-1.0, 1.0), 1024).unwrap()), (650, 550, 6));
    assert_eq!(dims(&preview_png(&cog, ColorRamp::RdBu, (-1.0, 1.0), 400).unwrap()), (325, 275, 6));
    assert_eq!(dims(&preview_png(&cog, ColorRamp::Blues, (0.0, 1.0), 100).unwrap()), (100, 85, 6));
    assert!(preview_png(&cog, ColorRamp::Blues, (1.0, 0.0), 100).is_err());
    assert!(preview_png(&cog, ColorRamp::Blues, (0.0, f64::NAN), 100).is_err());
}

/// NDVI and NDWI over the four CBERS bands agree with numpy on the same float32 arrays.
#[test]
fn ndvi_and_ndwi_match_numpy() {
    if !have_python_module("python3", "numpy, rasterio", "ndvi_and_ndwi_match_numpy") {
        return;
    }
    let dir = tmp();
    let raw = dir.path().join("numpy.f32");
    let script = r#"
import sys
import numpy as np
import rasterio

def band(path):
    with rasterio.open(path) as d:
        return d.read(1).astype(np.float32), d.nodata

(blue, _), (green, gnd), (red, rnd), (nir, nnd) = [band(p) for p in sys.argv[1:5]]
with np.errstate(divide="ignore", invalid="ignore"):
    ndvi = (nir - red) / (nir + red)
    ndwi = (green - nir) / (green + nir)
ndvi[(nir == nnd) | (red == rnd) | ~np.isfinite(ndvi)] = -9999
ndwi[(green == gnd) | (nir == nnd) | ~np.isfinite(ndwi)] = -9999
assert ndvi.dtype == np.float32 and ndwi.dtype == np.float32
np.concatenate([ndvi.ravel(), ndwi.ravel()]).astype("<f4").tofile(sys.argv[5])
"#;
    let paths: Vec<PathBuf> = [5, 6, 7, 8].iter().map(|&n| cbers_path(n)).collect();
    python("python3", script, &[s(&paths[0]), s(&paths[1]), s(&paths[2]), s(&paths[3]), s(&raw)]);
    let bytes = std::fs::read(&raw).unwrap();
    let numpy: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    let npx = 163 * 155;
    assert_eq!(numpy.len(), 2 * npx);

    let tiffs: Vec<GeoTiff> = [5, 6, 7, 8].iter().map(|&n| cbers(n)).collect();
    let by_name = |name: &str| -> Band {
        let i = ["blue", "green", "red", "nir"].iter().position(|n| *n == name).unwrap();
        Band { tiff: &tiffs[i], band: 0 }
    };
    for (k, index) in ["ndvi", "ndwi"].iter().enumerate() {
        let expr = Expression::parse(named_index(index).unwrap()).unwrap();
        let bands: Vec<Band> = expr.variables().iter().map(|v| by_name(v)).collect();
        let ours = compute(&expr, &bands, Window::new(0, 0, 163, 155), &never).unwrap().data;
        let theirs = &numpy[k * npx..(k + 1) * npx];
        let (mut max_diff, mut valid) = (0.0f32, 0);
        for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
            assert_eq!(*a == NODATA, *b == NODATA, "{index} pixel {i}: ours {a}, numpy {b}");
            if *b != NODATA {
                max_diff = max_diff.max((a - b).abs());
                valid += 1;
            }
        }
        eprintln!("{index}: {valid} valid pixels, max |ours - numpy| = {max_diff:e}");
        assert!(valid > 10_000);
        assert!(max_diff <= 1e-6, "{index}: max difference {max_diff}");
    }
}

fn gdal_stat(info: &str, key: &str) -> f64 {
    let line = info.lines().find_map(|l| l.trim().strip_prefix(key)).unwrap_or_else(|| panic!("{key} in {info}"));
    line.trim_start_matches('=').trim().parse().unwrap()
}

/// The COG validates with GDAL's validator, and `gdalinfo -stats` agrees with our statistics.
#[test]
fn gdal_validates_the_band_math_cog_and_agrees_on_statistics() {
    if !have_tool("gdalinfo", "gdal_validates_the_band_math_cog_and_agrees_on_statistics") {
        return;
    }
    let python = if Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" };
    if !have_python_module(python, "osgeo_utils", "gdal_validates_the_band_math_cog_and_agrees_on_statistics") {
        return;
    }
    let dir = tmp();
    let (red_p, nir_p) = upsampled_pair(dir.path(), 1300, 1100);
    let (red, nir) = (GeoTiff::open(&red_p).unwrap(), GeoTiff::open(&nir_p).unwrap());
    let bands = [Band { tiff: &nir, band: 0 }, Band { tiff: &red, band: 0 }];
    let out = dir.path().join("ndvi.tif");
    let stats = compute_to_cog(&ndvi(), &bands, Window::new(0, 0, 1300, 1100), &out, &never, &|_| {}).unwrap();

    let o = Command::new(python)
        .args(["-m", "osgeo_utils.samples.validate_cloud_optimized_geotiff", "--full-check=yes", s(&out)])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "validator: {text}{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("is a valid cloud optimized GeoTIFF"), "{text}");

    let o = Command::new("gdalinfo").args(["-stats", s(&out)]).output().unwrap();
    let info = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{info}");
    assert!(info.contains("NoData Value=-9999"), "{info}");
    assert!(info.contains("Type=Float32"), "{info}");
    assert!(info.contains("ID[\"EPSG\",32640]"), "{info}");
    assert!(info.contains("COMPRESSION=DEFLATE"), "{info}");
    assert!(info.contains("Overviews: 650x550, 325x275"), "{info}");
    let (min, max) = (gdal_stat(&info, "STATISTICS_MINIMUM"), gdal_stat(&info, "STATISTICS_MAXIMUM"));
    let (mean, std) = (gdal_stat(&info, "STATISTICS_MEAN"), gdal_stat(&info, "STATISTICS_STDDEV"));
    eprintln!(
        "gdalinfo -stats vs ours: min {:e}, max {:e}, mean {:e}, std {:e}",
        (min - stats.min).abs(),
        (max - stats.max).abs(),
        (mean - stats.mean).abs(),
        (std - stats.std).abs()
    );
    assert!((min - stats.min).abs() <= 1e-4, "min {min} vs {}", stats.min);
    assert!((max - stats.max).abs() <= 1e-4, "max {max} vs {}", stats.max);
    assert!((mean - stats.mean).abs() <= 1e-4, "mean {mean} vs {}", stats.mean);
    assert!((std - stats.std).abs() <= 1e-4, "std {std} vs {}", stats.std);
    if info.contains("STATISTICS_VALID_PERCENT") {
        let valid = gdal_stat(&info, "STATISTICS_VALID_PERCENT");
        let ours = 100.0 * stats.count as f64 / (1300.0 * 1100.0);
        assert!((valid - ours).abs() < 1e-2, "valid percent {valid} vs {ours}");
    }
}

/// User and system CPU time of this process so far (Linux), to compare runs on a busy machine.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = after.split_whitespace().skip(11).take(2).filter_map(|v| v.parse().ok()).collect();
    f.iter().sum::<f64>() / 100.0
}

/// Timing of a full Sentinel-2-sized NDVI (10,980² UInt16 inputs): run with
/// `cargo test --release -p meridian-eo -- --ignored --nocapture bench_`. Compares with the
/// same computation in rasterio + numpy when those are installed.
#[test]
#[ignore]
fn bench_compute_to_cog_10980() {
    if !have_tool("gdal_translate", "bench_compute_to_cog_10980") {
        return;
    }
    let dir = std::env::var("MERIDIAN_BENCH_DIR").map(PathBuf::from).unwrap_or_else(|_| std::env::temp_dir());
    let mut inputs = Vec::new();
    for (band, name) in [(7u8, "bench-red-10980.tif"), (8, "bench-nir-10980.tif")] {
        let p = dir.join(name);
        if !p.exists() {
            let st = Command::new("gdal_translate")
                .args(["-q", "-ot", "UInt16", "-scale", "0", "255", "0", "25500", "-a_nodata", "0"])
                .args(["-outsize", "10980", "10980", "-r", "bilinear", "-co", "TILED=YES", "-co", "COMPRESS=DEFLATE"])
                .args([s(&cbers_path(band)), s(&p)])
                .status()
                .unwrap();
            assert!(st.success());
        }
        inputs.push(p);
    }
    let (red, nir) = (GeoTiff::open(&inputs[0]).unwrap(), GeoTiff::open(&inputs[1]).unwrap());
    let bands = [Band { tiff: &nir, band: 0 }, Band { tiff: &red, band: 0 }];
    let out = tmp();
    let dst = out.path().join("ndvi.tif");
    let cpu0 = cpu_seconds();
    let started = std::time::Instant::now();
    let phases = std::sync::Mutex::new(Vec::new());
    let progress = |p: u8| {
        let mut seen = phases.lock().unwrap();
        if seen.last().is_none_or(|(q, _)| *q != p) && [60, 99].contains(&p) {
            seen.push((p, started.elapsed().as_secs_f64()));
        }
    };
    let stats = compute_to_cog(&ndvi(), &bands, Window::new(0, 0, 10_980, 10_980), &dst, &never, &progress).unwrap();
    let ours = started.elapsed();
    eprintln!("progress (percent, seconds): {:?}", phases.lock().unwrap());
    eprintln!("CPU time: {:.2} s", cpu_seconds() - cpu0);
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    eprintln!("peak memory: {}", status.lines().find(|l| l.starts_with("VmHWM")).unwrap_or("VmHWM unknown"));
    eprintln!(
        "compute_to_cog 10980²: {:.2} s, {} MB, {} valid pixels",
        ours.as_secs_f64(),
        std::fs::metadata(&dst).unwrap().len() >> 20,
        stats.count
    );
    assert!(stats.count > 0);
    if have_python_module("python3", "numpy, rasterio", "bench_compute_to_cog_10980") {
        let script = r#"
import sys, time
import numpy as np
import rasterio
t = time.time()
with rasterio.open(sys.argv[1]) as r, rasterio.open(sys.argv[2]) as n:
    red = r.read(1).astype(np.float32)
    nir = n.read(1).astype(np.float32)
    profile = n.profile
with np.errstate(divide="ignore", invalid="ignore"):
    ndvi = (nir - red) / (nir + red)
ndvi[(nir == 0) | (red == 0) | ~np.isfinite(ndvi)] = -9999
profile.update(driver="COG", dtype="float32", nodata=-9999, compress="DEFLATE", predictor=3, blocksize=512)
with rasterio.open(sys.argv[3], "w", **profile) as d:
    d.write(ndvi, 1)
print(time.time() - t, "s wall,", time.process_time(), "s CPU")
"#;
        let theirs = out.path().join("numpy.tif");
        let secs = python("python3", script, &[s(&inputs[0]), s(&inputs[1]), s(&theirs)]);
        eprintln!("rasterio + numpy: {} s", secs.trim());
    }
}
