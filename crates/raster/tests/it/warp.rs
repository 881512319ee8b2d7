//! Reprojection against `gdalwarp` and CRS transformations against `gdaltransform`.

use crate::{dem_path, have_tool, run, s, tmp};

use meridian_raster::tiff::GeoTiff;
use meridian_raster::warp::{self, Grid, Resampling};
use std::process::Command;

#[test]
fn points_match_gdaltransform() {
    if !have_tool("gdaltransform", "points_match_gdaltransform") {
        return;
    }
    let pts = [(2_573_000.0, 1_086_000.0), (2_600_000.0, 1_200_000.0), (2_700_000.0, 1_100_000.0)];
    for (src, dst, tol) in [(2056u16, 4326u16, 1e-6), (2056, 3857, 0.1), (2056, 32632, 0.1)] {
        let input: String = pts.iter().map(|p| format!("{} {}\n", p.0, p.1)).collect();
        let mut child = Command::new("gdaltransform")
            .args(["-s_srs", &format!("EPSG:{src}"), "-t_srs", &format!("EPSG:{dst}"), "-output_xy"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let t = meridian_raster::crs::transformer(src, dst).unwrap();
        for (line, p) in text.lines().zip(pts) {
            let v: Vec<f64> = line.split_whitespace().map(|x| x.parse().unwrap()).collect();
            let (x, y) = t.apply(p.0, p.1).unwrap();
            assert!((x - v[0]).abs() < tol && (y - v[1]).abs() < tol, "EPSG:{src}->{dst}: ({x}, {y}) vs {line}");
        }
    }
}

#[test]
fn warp_matches_gdalwarp() {
    if !have_tool("gdalwarp", "warp_matches_gdalwarp") {
        return;
    }
    let dir = tmp();
    let src = GeoTiff::open(dem_path()).unwrap();
    for (epsg, r, gr) in [
        (4326u16, Resampling::Bilinear, "bilinear"),
        (3857, Resampling::Cubic, "cubic"),
        (32632, Resampling::Nearest, "near"),
    ] {
        let out = dir.path().join(format!("{epsg}.tif"));
        run(
            "gdalwarp",
            &["-q", "-overwrite", "-t_srs", &format!("EPSG:{epsg}"), "-r", gr, "-et", "0", s(&dem_path()), s(&out)],
        );
        let theirs = GeoTiff::open(&out).unwrap();
        let grid = Grid { width: theirs.width(), height: theirs.height(), geo_transform: theirs.geo_transform(), epsg };
        let ours = warp::warp(&src, &grid, r, Some(-9999.0)).unwrap().unwrap();
        let gd = theirs.read_band::<f32>(0).unwrap();
        let (mut both, mut close, mut only) = (0usize, 0usize, 0usize);
        for (a, b) in ours.data.iter().zip(&gd.data) {
            match (*a == -9999.0, *b == -9999.0) {
                (false, false) => {
                    both += 1;
                    if (a - b).abs() <= 0.5 {
                        close += 1;
                    }
                }
                (true, true) => {}
                _ => only += 1,
            }
        }
        assert!(both > 100_000, "EPSG:{epsg}: {both} common pixels");
        assert!(close as f64 >= both as f64 * 0.99, "EPSG:{epsg} {gr}: {close} of {both} within 0.5 m");
        assert!((only as f64) < both as f64 * 0.01, "EPSG:{epsg}: {only} pixels valid in one only");
    }
}
