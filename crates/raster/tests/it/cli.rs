//! The `meridian-raster` command line.

use std::process::Command;

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_meridian-raster"))
}

#[test]
fn help_prints_usage_and_succeeds() {
    for flag in ["--help", "-h", "help"] {
        let out = cli().arg(flag).output().unwrap();
        assert!(out.status.success(), "{flag}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.starts_with("usage:") && text.contains("meridian-raster tile IN.tif Z X Y"), "{text}");
    }
    // No arguments is a mistake: usage on stderr, failure.
    let out = cli().output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage:"));
}

/// The example in docs/dem.md names a tile that holds data.
#[test]
fn the_documented_tile_example_renders() {
    let dir = crate::tmp();
    let png = dir.path().join("tile.png");
    let out = cli()
        .args(["tile", crate::s(&crate::dem_path()), "16", "34059", "23335", "terrain-rgb", crate::s(&png)])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/dem.md")).unwrap();
    assert!(docs.contains(
        "meridian-raster tile crates/raster/tests/data/swissalti3d-2573-1085.tif 16 34059 23335 terrain-rgb"
    ));
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
}
