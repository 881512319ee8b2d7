//! CesiumJS on the engine's output: a small tileset (nine buildings in a 3 × 3 grid, the middle
//! one over the centre of the area) is written to a temporary directory and loaded by
//! `tests/cesium/check.mjs`, which serves it beside the CesiumJS build and drives headless
//! Chromium through playwright-core. The page looks straight down at the centre of the
//! tileset's bounding sphere, waits for every tile, and picks at the canvas centre: the picked
//! `Cesium3DTileFeature` must be the middle building, with its properties (`tenure`, which no
//! building has and so no property table holds, as the schema's default `""`), and the page
//! must report no error.
//!
//! The directory is served the way the server will serve a twin: the tileset at `tileset` (no
//! extension, contents relative to it) and every request refused without `access_token`, so
//! the test also shows that CesiumJS carries the token from the tileset URL on to each content.
//!
//! Tools: `node`, Chromium (`$CHROMIUM`, else `/usr/bin/chromium`), and the npm packages
//! `cesium` (`$CESIUM_DIR`) and `playwright-core` (`$PLAYWRIGHT_CORE_DIR`), by default in
//! `$HOME/.cache/meridian-ci/npm/node_modules`, where `.ci/run` installs them. The screenshot is
//! kept as `target/test-artefacts/twin/cesium-engine.png`.
#![allow(clippy::unwrap_used)]

use meridian_testing::tools::{chromium, have_tool, npm_package, test_artefacts};
use meridian_twin::{build_tileset, Footprint, TilesetOptions};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

const TEST: &str = "cesium::cesium_loads_the_engine_tileset_and_picks_the_centre_building";
const CENTRE: (f64, f64) = (153.02, -27.47);
const TOKEN: &str = "s3cret-token";

/// A square building of `side` metres centred `dx`, `dy` metres east and north of [`CENTRE`].
/// It has no `tenure`, so no tile has that column: CesiumJS must give the schema's default.
fn building(id: &str, dx: f64, dy: f64, side: f64, height: f64) -> Footprint {
    let (m_lon, m_lat) = (1.0 / (111_320.0 * CENTRE.1.to_radians().cos()), 1.0 / 110_850.0);
    let (lon, lat) = (CENTRE.0 + dx * m_lon, CENTRE.1 + dy * m_lat);
    let (hw, hh) = (side / 2.0 * m_lon, side / 2.0 * m_lat);
    let ring = vec![[lon - hw, lat - hh], [lon + hw, lat - hh], [lon + hw, lat + hh], [lon - hw, lat + hh]];
    let mut properties = serde_json::Map::new();
    properties.insert("lot".into(), json!(id.trim_start_matches("lot-")));
    properties.insert("plan".into(), json!("SP4242"));
    Footprint { id: id.into(), polygon: vec![ring], base: 10.0, height, properties }
}

/// Nine buildings, 60 m apart; the middle one (30 m wide) covers the centre.
fn footprints() -> Vec<Footprint> {
    let mut fps = Vec::new();
    for row in -1..=1 {
        for col in -1..=1 {
            let n = (row + 1) * 3 + col + 2;
            let (side, height) = if row == 0 && col == 0 { (30.0, 25.0) } else { (20.0, 8.0 + f64::from(n)) };
            fps.push(building(&format!("lot-{n}"), f64::from(col) * 60.0, f64::from(row) * 60.0, side, height));
        }
    }
    fps
}

fn write_tileset(dir: &Path, tileset: &Value, contents: &[(String, Vec<u8>)]) {
    std::fs::write(dir.join("tileset.json"), serde_json::to_vec_pretty(tileset).unwrap()).unwrap();
    for (uri, glb) in contents {
        let path = dir.join(uri);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, glb).unwrap();
    }
}

#[test]
fn cesium_loads_the_engine_tileset_and_picks_the_centre_building() {
    if !have_tool("node", TEST) {
        return;
    }
    let Some(chromium) = chromium(TEST) else { return };
    let Some(cesium) = npm_package("CESIUM_DIR", "cesium", "Build/Cesium/Cesium.js", TEST) else { return };
    let Some(playwright) = npm_package("PLAYWRIGHT_CORE_DIR", "playwright-core", "package.json", TEST) else { return };

    let fps = footprints();
    // Three buildings a tile at most: a quadtree of several levels for CesiumJS to refine.
    let built = build_tileset(&fps, None, &TilesetOptions { max_features_per_tile: 3, ..Default::default() }).unwrap();
    assert!(built.skipped.is_empty());
    assert!(built.contents.len() >= 3, "{} contents", built.contents.len());
    let dir = tempfile::tempdir().unwrap();
    write_tileset(dir.path(), &built.tileset, &built.contents);

    let shot = dir.path().join("cesium.png");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cesium/check.mjs");
    let out = Command::new("node")
        .arg(script)
        .args(["--tileset", &format!("/local/tileset?access_token={TOKEN}")])
        .arg("--out")
        .arg(&shot)
        .arg("--serve-dir")
        .arg(dir.path())
        .args(["--serve-prefix", "/local/", "--serve-token", TOKEN, "--timeout", "60000", "--chromium", &chromium])
        .env("CESIUM_DIR", &cesium)
        .env("PLAYWRIGHT_CORE_DIR", &playwright)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "check.mjs could not run ({}): {stderr}", out.status);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let report: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    eprintln!("check.mjs: {report}");

    if shot.is_file() {
        let artefacts = test_artefacts("twin");
        std::fs::create_dir_all(&artefacts).unwrap();
        std::fs::copy(&shot, artefacts.join("cesium-engine.png")).unwrap();
    }
    assert!(shot.is_file(), "no screenshot");
    assert_eq!(report["errors"], json!([]), "{report:#}");
    assert_eq!(report["consoleErrors"], json!([]), "{report:#}");
    assert_eq!(report["tilesLoaded"], true, "{report:#}");
    assert_eq!(report["tilesetVersion"], "1.1");
    assert_eq!(report["contentsLoaded"], built.contents.len(), "{report:#}");
    // tileset.json and every content, each with the token.
    assert_eq!(report["served"]["withoutToken"], json!([]), "{report:#}");
    assert_eq!(report["served"]["requests"], 1 + built.contents.len(), "{report:#}");

    let centre = &fps[4];
    assert_eq!(centre.id, "lot-5");
    assert_eq!(report["featuresPicked"], "lot-5", "the pick at the canvas centre: {report:#}");
    let props = &report["properties"];
    assert_eq!(props["id"], "lot-5");
    assert_eq!(props["lot"], "5");
    assert_eq!(props["plan"], "SP4242");
    assert_eq!(props["tenure"], "", "a property left out of every table reads as its default: {props}");
    assert!((props["height"].as_f64().unwrap() - 25.0).abs() < 1e-3, "{props}");
    assert!((props["area"].as_f64().unwrap() - 900.0).abs() < 20.0, "{props}");
    for name in ["id", "lot", "plan", "tenure", "area", "height", "base"] {
        assert!(report["propertyIds"].as_array().unwrap().contains(&json!(name)), "{name}: {report:#}");
    }
}
