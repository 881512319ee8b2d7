//! The COG writer: layout read back by our reader, and accepted by GDAL's COG validator.

use crate::{dem_path, have_python_module, have_tool, run, s, tmp};
use meridian_raster::tiff::{self, CogOptions, GeoTiff};
use meridian_raster::Window;
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
