//! Integration tests of the point-cloud engine: the reader on real and hostile files, the SMRF
//! and CSF ground filters on the ISPRS filter-test reference samples, the noise filter, the
//! learned classifier on held-out blocks, the reader's fuzz target, and the LAS/LAZ and COPC
//! writers (checked by the crate's reader, by the `las` and `laz` crates and by laspy).
#![allow(clippy::unwrap_used, clippy::print_stdout)]

mod copc;
mod csf;
mod fuzz;
mod isprs;
mod learn;
mod noise;
mod reader;
mod tiles;
mod writer;

use std::path::{Path, PathBuf};

/// The ISPRS reference samples in tests/data (see tests/data/NOTICE.md).
pub(crate) const SAMPLES: [&str; 8] = ["11", "21", "22", "31", "41", "51", "52", "61"];

pub(crate) fn data_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

pub(crate) fn sample_path(s: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/isprs-samp{s}.las"))
}

/// A small LAZ file (point format 1, LAS 1.2) written by the `las` crate's LAZ writer.
pub(crate) fn small_laz(points: usize) -> Vec<u8> {
    let mut builder = las::Builder::from((1, 2));
    builder.point_format = las::point::Format::new(1).unwrap();
    builder.point_format.is_compressed = true;
    let t = |offset| las::Transform { scale: 0.01, offset };
    builder.transforms = las::Vector { x: t(512_000.0), y: t(5_403_000.0), z: t(0.0) };
    let header = builder.into_header().unwrap();
    let mut writer = las::Writer::new(std::io::Cursor::new(Vec::new()), header).unwrap();
    for i in 0..points {
        let f = i as f64;
        writer
            .write_point(las::Point {
                x: 512_000.0 + f * 0.37,
                y: 5_403_000.0 + (f * 1.3) % 17.0,
                z: 250.0 + (f * 0.11).sin(),
                intensity: (i % 300) as u16,
                return_number: 1 + (i % 2) as u8,
                number_of_returns: 2,
                classification: las::point::Classification::new(if i % 3 == 0 { 2 } else { 1 }).unwrap(),
                gps_time: Some(f),
                ..Default::default()
            })
            .unwrap();
    }
    writer.into_inner().unwrap().into_inner()
}

/// The LAS 1.4 format 8 file with extra bytes and a WKT CRS in tests/data (see NOTICE.md).
pub(crate) fn extra_bytes_laz() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pdal-extra-bytes.laz")
}

/// A directory of its own for a test, emptied first.
pub(crate) fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("meridian-pointcloud-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The classes the writer tests give to the i-th point: `classify[i % classify.len()]`.
pub(crate) fn classes_for(n: u64, classify: &[u8]) -> Vec<u8> {
    (0..n as usize).map(|i| classify[i % classify.len()]).collect()
}

/// The confidence the writer tests give to the i-th point (laspy_check.py repeats the rule).
pub(crate) fn confidence_for(n: u64) -> Vec<u8> {
    (0..n).map(|i| ((31 * i + 7) % 256) as u8).collect()
}

/// A small LAS 1.2 file of point format 1 or 3 (GPS time; RGB in 3) with a GeoTIFF key VLR.
pub(crate) fn legacy_las(dir: &Path, format: u8, points: usize) -> PathBuf {
    let mut builder = las::Builder::from((1, 2));
    builder.point_format = las::point::Format::new(format).unwrap();
    let t = |offset| las::Transform { scale: 0.001, offset };
    builder.transforms = las::Vector { x: t(300_000.0), y: t(4_000_000.0), z: t(0.0) };
    // GeoKeyDirectory: version 1.1.0, one key, ProjectedCSTypeGeoKey (3072) = EPSG:32632.
    let keys: Vec<u8> = [1u16, 1, 0, 1, 3072, 0, 1, 32632].iter().flat_map(|k| k.to_le_bytes()).collect();
    builder.vlrs.push(las::Vlr {
        user_id: "LASF_Projection".to_owned(),
        record_id: 34735,
        description: "GeoTIFF GeoKeyDirectoryTag".to_owned(),
        data: keys,
    });
    let header = builder.into_header().unwrap();
    let path = dir.join(format!("format{format}.las"));
    let mut writer = las::Writer::from_path(&path, header).unwrap();
    for i in 0..points {
        let f = i as f64;
        let returns = 1 + (i % 3) as u8;
        writer
            .write_point(las::Point {
                x: 300_000.0 + (f * 0.713) % 97.0,
                y: 4_000_000.0 + (f * 0.291) % 53.0,
                z: 120.0 + (f * 0.05).sin() * 10.0,
                intensity: (i % 1000) as u16,
                return_number: 1 + (i % returns as usize) as u8,
                number_of_returns: returns,
                classification: las::point::Classification::new([1, 2, 6][i % 3]).unwrap(),
                scan_angle: ((i % 41) as f32) - 20.0,
                user_data: (i % 7) as u8,
                point_source_id: 11,
                gps_time: Some(1000.0 + f * 0.001),
                color: (format == 3)
                    .then(|| las::Color::new(i as u16, (i as u16).wrapping_mul(2), (i as u16).wrapping_mul(3))),
                ..Default::default()
            })
            .unwrap();
    }
    writer.close().unwrap();
    path
}

/// Every point of a file as decoded by the `las` crate (an independent reader of the output).
pub(crate) fn las_points(path: &Path) -> (las::Header, las::PointData) {
    let mut reader = las::Reader::from_path(path).unwrap();
    let points = reader.read_all().unwrap();
    (reader.header().clone(), points)
}

/// Runs tests/laspy_check.py on the outputs, when laspy is installed (and copclib's checks when
/// copclib is).
pub(crate) fn laspy_check(test: &str, spec: &serde_json::Value) {
    if !meridian_testing::tools::have_python_module("python3", "laspy", test) {
        return;
    }
    // copclib (a C++ COPC library with Python bindings) validates the
    // COPC output's node bounds as well.
    let mut spec = spec.clone();
    spec["copclib"] = meridian_testing::tools::have_python_module("python3", "copclib", test).into();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/laspy_check.py");
    let out = std::process::Command::new("python3").arg(&script).arg(spec.to_string()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{test}: laspy: {stdout}");
    assert!(out.status.success(), "{test}: laspy_check.py failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
}

/// Opens COPC files with copclib, when it is installed, and validates every node's points
/// against the node's bounds.
pub(crate) fn copclib_validates(test: &str, paths: &[PathBuf]) {
    if !meridian_testing::tools::have_python_module("python3", "copclib", test) {
        return;
    }
    let script = "import sys, copclib\n\
                  for p in sys.argv[1:]:\n    \
                  r = copclib.FileReader(p)\n    \
                  assert r.ValidateSpatialBounds(False), p\n    \
                  assert sum(n.point_count for n in r.GetAllNodes()) == r.copc_config.las_header.point_count, p";
    let out = std::process::Command::new("python3").args(["-c", script]).args(paths).output().unwrap();
    assert!(out.status.success(), "{test}: copclib: {}", String::from_utf8_lossy(&out.stderr));
}

/// A small deterministic pseudo-random generator (Knuth's MMIX linear congruential constants).
pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [−1, 1).
    pub(crate) fn signed(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }
}
