//! Every DEM operation against `gdaldem` run on the same file with the same options: Byte
//! outputs within ±1 on at least 99.9 % of pixels, Float32 outputs within 1e-3 relative, nodata
//! in the same places.

use crate::{dem_path, have_tool, run, s, tmp};
use meridian_raster::dem::{self, FileOutput, Operation};
use meridian_raster::tiff::GeoTiff;
use std::path::Path;

fn read_all(p: &Path) -> (Vec<f64>, usize, Option<f64>) {
    let t = GeoTiff::open(p).unwrap();
    let mut all = Vec::new();
    for b in 0..t.bands() {
        all.extend(
            t.read_window::<f64>(0, b, meridian_raster::Window::new(0, 0, t.width(), t.height()), f64::NAN).unwrap(),
        );
    }
    (all, t.bands(), t.nodata())
}

/// Runs our operation and gdaldem on `src`, and compares.
fn compare(src: &Path, json: &str, gdal_args: &[&str], byte: bool) {
    let dir = tmp();
    let ours = dir.path().join("ours.tif");
    let theirs = dir.path().join("theirs.tif");
    let op: Operation = serde_json::from_str(json).unwrap();
    let t = GeoTiff::open(src).unwrap();
    dem::run_to_file(&op, &t, &ours, &FileOutput::default(), &|_| true).unwrap();
    let mut args = vec![gdal_args[0], "-q"];
    args.extend_from_slice(&gdal_args[1..]);
    args.extend([s(src), s(&theirs)]);
    run("gdaldem", &args);
    let (a, ab, and) = read_all(&ours);
    let (b, bb, bnd) = read_all(&theirs);
    assert_eq!(ab, bb, "{json}: bands");
    assert_eq!(and, bnd, "{json}: nodata value");
    assert_eq!(a.len(), b.len());
    let mut bad = 0usize;
    for (x, y) in a.iter().zip(&b) {
        let ok = if byte {
            (x - y).abs() <= 1.0
        } else if Some(*y) == bnd || Some(*x) == and {
            x == y
        } else {
            (x - y).abs() <= 1e-3 * y.abs().max(1e-3)
        };
        if !ok {
            bad += 1;
        }
    }
    if byte {
        assert!((bad as f64) <= a.len() as f64 * 0.001, "{json}: {bad} of {} pixels differ by more than 1", a.len());
        let nodata_mismatch = a.iter().zip(&b).filter(|(x, y)| (**x == 0.0) != (**y == 0.0)).count();
        assert_eq!(nodata_mismatch, 0, "{json}: nodata pixels differ");
    } else {
        assert_eq!(bad, 0, "{json}: pixels beyond 1e-3 relative");
    }
}

const CASES: &[(&str, &[&str], bool)] = &[
    (r#"{"type":"hillshade"}"#, &["hillshade"], true),
    (r#"{"type":"hillshade","compute_edges":true}"#, &["hillshade", "-compute_edges"], true),
    (
        r#"{"type":"hillshade","azimuth":90,"altitude":30,"z_factor":2.5}"#,
        &["hillshade", "-az", "90", "-alt", "30", "-z", "2.5"],
        true,
    ),
    (r#"{"type":"hillshade","algorithm":"ZevenbergenThorne"}"#, &["hillshade", "-alg", "ZevenbergenThorne"], true),
    (r#"{"type":"hillshade","combined":true}"#, &["hillshade", "-combined"], true),
    (
        r#"{"type":"hillshade","multidirectional":true,"compute_edges":true}"#,
        &["hillshade", "-multidirectional", "-compute_edges"],
        true,
    ),
    (
        r#"{"type":"hillshade","multidirectional":true,"algorithm":"ZevenbergenThorne","altitude":60}"#,
        &["hillshade", "-multidirectional", "-alg", "ZevenbergenThorne", "-alt", "60"],
        true,
    ),
    (r#"{"type":"slope"}"#, &["slope"], false),
    (r#"{"type":"slope","format":"percent","compute_edges":true}"#, &["slope", "-p", "-compute_edges"], false),
    (
        r#"{"type":"slope","algorithm":"ZevenbergenThorne","scale":2}"#,
        &["slope", "-alg", "ZevenbergenThorne", "-s", "2"],
        false,
    ),
    (r#"{"type":"aspect"}"#, &["aspect"], false),
    (
        r#"{"type":"aspect","trigonometric":true,"zero_for_flat":true}"#,
        &["aspect", "-trigonometric", "-zero_for_flat"],
        false,
    ),
    (
        r#"{"type":"aspect","algorithm":"ZevenbergenThorne","compute_edges":true}"#,
        &["aspect", "-alg", "ZevenbergenThorne", "-compute_edges"],
        false,
    ),
    (r#"{"type":"tri"}"#, &["TRI"], false),
    (
        r#"{"type":"tri","algorithm":"Wilson","compute_edges":true}"#,
        &["TRI", "-alg", "Wilson", "-compute_edges"],
        false,
    ),
    (r#"{"type":"tpi"}"#, &["TPI"], false),
    (r#"{"type":"tpi","compute_edges":true}"#, &["TPI", "-compute_edges"], false),
    (r#"{"type":"roughness"}"#, &["roughness"], false),
    (r#"{"type":"roughness","compute_edges":true}"#, &["roughness", "-compute_edges"], false),
];

#[test]
fn dem_operations_match_gdaldem() {
    if !have_tool("gdaldem", "dem_operations_match_gdaldem") {
        return;
    }
    for (json, args, byte) in CASES {
        compare(&dem_path(), json, args, *byte);
    }
}

#[test]
fn dem_operations_match_gdaldem_with_nodata_holes() {
    if !have_tool("gdal_calc.py", "dem_operations_match_gdaldem_with_nodata_holes") {
        return;
    }
    // Punch a nodata hole and a ragged edge into the DEM.
    let dir = tmp();
    let holed = dir.path().join("holed.tif");
    run(
        "gdal_calc.py",
        &[
            "--quiet",
            "-A",
            s(&dem_path()),
            "--outfile",
            s(&holed),
            "--NoDataValue=-9999",
            "--calc=where(((A>1700)*(A<1720))+(A>2000),-9999,A)",
        ],
    );
    for (json, args, byte) in CASES.iter().step_by(2) {
        compare(&holed, json, args, *byte);
    }
}

#[test]
fn geographic_dem_matches_gdaldem_with_scale() {
    if !have_tool("gdalwarp", "geographic_dem_matches_gdaldem_with_scale") {
        return;
    }
    let dir = tmp();
    let geo = dir.path().join("geo.tif");
    run("gdalwarp", &["-q", "-t_srs", "EPSG:4326", "-r", "bilinear", s(&dem_path()), s(&geo)]);
    let t = GeoTiff::open(&geo).unwrap();
    assert_eq!(t.epsg(), Some(4326));
    assert!(t.geo().unwrap().geographic);
    compare(&geo, r#"{"type":"hillshade","scale":111120}"#, &["hillshade", "-s", "111120"], true);
    compare(
        &geo,
        r#"{"type":"hillshade","scale":111120,"multidirectional":true}"#,
        &["hillshade", "-s", "111120", "-multidirectional"],
        true,
    );
    compare(&geo, r#"{"type":"slope","scale":111120}"#, &["slope", "-s", "111120"], false);
    compare(&geo, r#"{"type":"aspect"}"#, &["aspect"], false);
    compare(&geo, r#"{"type":"tri"}"#, &["TRI"], false);
}

#[test]
fn color_relief_matches_gdaldem() {
    if !have_tool("gdaldem", "color_relief_matches_gdaldem") {
        return;
    }
    let dir = tmp();
    let colors = dir.path().join("colors.txt");
    std::fs::write(&colors, "1600 0 97 71\n1750 232 215 125\n1900 161 67 0\n2000 255 255 255\nnv 0 0 0 0\n").unwrap();
    let json = r#"{"type":"color-relief","stops":[
        {"value":1600,"color":[0,97,71]},{"value":1750,"color":[232,215,125]},
        {"value":1900,"color":[161,67,0]},{"value":2000,"color":[255,255,255]},
        {"value":"nv","color":[0,0,0,0]}]}"#;
    let op: Operation = serde_json::from_str(json).unwrap();
    let ours = dir.path().join("ours.tif");
    let theirs = dir.path().join("theirs.tif");
    dem::run_to_file(&op, &GeoTiff::open(dem_path()).unwrap(), &ours, &FileOutput::default(), &|_| true).unwrap();
    run("gdaldem", &["color-relief", "-q", s(&dem_path()), s(&colors), s(&theirs)]);
    let (a, ab, _) = read_all(&ours);
    let (b, bb, _) = read_all(&theirs);
    assert_eq!((ab, bb), (3, 3));
    let off = a.iter().zip(&b).filter(|(x, y)| (**x - **y).abs() > 1.0).count();
    assert_eq!(off, 0, "color relief differs from gdaldem");
}

/// A source that hands out rows in small blocks, to exercise the block buffer.
struct SmallBlocks(meridian_raster::Raster<f32>, usize);

impl dem::DemSource for SmallBlocks {
    fn width(&self) -> usize {
        self.0.width
    }
    fn height(&self) -> usize {
        self.0.height
    }
    fn geo_transform(&self) -> meridian_raster::GeoTransform {
        self.0.geo_transform
    }
    fn epsg(&self) -> Option<u16> {
        self.0.epsg
    }
    fn nodata(&self) -> Option<f64> {
        self.0.nodata
    }
    fn block_height(&self) -> usize {
        self.1
    }
    fn read_rows(&self, y: usize, n: usize) -> meridian_raster::Result<Vec<f32>> {
        self.0.read_rows(y, n)
    }
    fn rows_per_block(&self) -> usize {
        self.1
    }
}

#[test]
fn blocks_stream_the_same_result_as_memory() {
    let t = GeoTiff::open(dem_path()).unwrap();
    let mem = t.read_band::<f32>(0).unwrap();
    for json in [r#"{"type":"slope","compute_edges":true}"#, r#"{"type":"hillshade"}"#, r#"{"type":"tpi"}"#] {
        let op: Operation = serde_json::from_str(json).unwrap();
        let (whole, _) = dem::run_to_raster(&op, &mem).unwrap();
        for rows in [2, 3, 7, 64] {
            let (blocks, _) = dem::run_to_raster(&op, &SmallBlocks(mem.clone(), rows)).unwrap();
            assert_eq!(whole, blocks, "{json} in blocks of {rows} rows");
        }
    }
}

#[test]
fn bad_options_are_refused() {
    for json in [
        r#"{"type":"hillshade","altitude":120}"#,
        r#"{"type":"hillshade","z_factor":0}"#,
        r#"{"type":"hillshade","combined":true,"multidirectional":true}"#,
        r#"{"type":"slope","scale":-1}"#,
        r#"{"type":"color-relief"}"#,
        r#"{"type":"color-relief","stops":[{"value":"abc","color":[1,2,3]}]}"#,
    ] {
        let op: Operation = serde_json::from_str(json).unwrap();
        assert!(op.validate().is_err(), "{json}");
    }
    assert!(serde_json::from_str::<Operation>(r#"{"type":"hillshade","azimut":3}"#).is_err());
    assert!(serde_json::from_str::<Operation>(r#"{"type":"warp"}"#).is_err());
}
