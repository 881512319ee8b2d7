//! Integration tests of the raster engine. Tests that compare with GDAL (`gdaldem`,
//! `gdal_contour`, `gdalwarp`, `gdal_translate`) skip, saying so, when GDAL is not installed.
#![allow(clippy::unwrap_used)]

mod cli;
mod cog;
mod contour;
mod dem_gdal;
mod fuzz;
mod limits;
mod reader;
mod tiles;
mod tools;
mod warp;

pub(crate) use tools::{have_python_module, have_tool};

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shipped swissALTI3D tile.
pub(crate) fn dem_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/swissalti3d-2573-1085.tif")
}

/// Runs a tool and fails the test with its stderr when it fails.
pub(crate) fn run(tool: &str, args: &[&str]) {
    let out = Command::new(tool).args(args).output().unwrap();
    assert!(out.status.success(), "{tool} {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
}

pub(crate) fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

pub(crate) fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
