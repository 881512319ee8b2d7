//! Integration tests of the earth-observation engine: expressions, band math and zonal
//! statistics, with oracles that drive numpy, rasterstats and GDAL's COG validator. Tests that
//! need a tool skip, saying so, when it is absent (and fail with `MERIDIAN_REQUIRE_TOOLS=1`).
#![allow(clippy::unwrap_used)]

mod bandmath;
mod expr;
mod fuzz;
mod service;
mod zonal;

use meridian_raster::tiff::GeoTiff;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The CBERS-4 MUX test band `n` (5 blue, 6 green, 7 red, 8 nir).
pub(crate) fn cbers_path(n: u8) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/cbers4-mux-057-094-20171121-band{n}.tif"))
}

pub(crate) fn cbers(n: u8) -> GeoTiff {
    GeoTiff::open(cbers_path(n)).unwrap()
}

pub(crate) fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

pub(crate) fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `python` with `script` and `args`; fails the test with stderr when it fails.
pub(crate) fn python(python: &str, script: &str, args: &[&str]) -> String {
    let out = Command::new(python).arg("-c").arg(script).args(args).output().unwrap();
    assert!(out.status.success(), "{python} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

pub(crate) fn never() -> bool {
    false
}
