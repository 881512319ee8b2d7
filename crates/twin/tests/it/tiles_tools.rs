//! The 3D Tiles tools of Cesium (the `3d-tiles-tools` npm package, run by node) reading the
//! engine's output: its command line packs the tileset into a `.3tz` and unpacks it again
//! (`convert`), and its library then reads the unpacked copy from `tileset.json` down
//! (`tiles_tools_read.js`: `TilesetTraverser`, `ContentDataTypeRegistry`, and glTF-Transform
//! with the package's EXT_mesh_features and EXT_structural_metadata): every content must be
//! found, be a GLB, have one feature ID set and one property table of class `parcel` with as
//! many rows as the tile has footprints. The package is `$TILES_TOOLS_DIR`, by default
//! `$HOME/.cache/meridian-ci/npm/node_modules/3d-tiles-tools`, where `.ci/run` installs it.
//!
//! Cesium's 3D Tiles Validator (`3d-tiles-validator`) checks the tileset, its contents (with
//! the Khronos glTF Validator) and their EXT_mesh_features and EXT_structural_metadata. It is
//! not on the npm registry that CI reaches, so `.ci/run` cannot install it and its test is
//! `#[ignore]`d: run it with a build of the validator (a folder holding its `package.json` and
//! `build/`) in `$TILES_VALIDATOR_DIR` and `cargo test -p meridian-twin --test it -- --ignored
//! 3d_tiles_validator`.

use crate::{hostile, scatter};
use meridian_testing::tools::{have_tool, missing};
use meridian_twin::{build_tileset, Terrain, TilesetOptions, TERRAIN_URI};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const TEST: &str = "tiles_tools::the_3d_tiles_tools_read_every_content";

const VALIDATOR_TEST: &str = "tiles_tools::the_3d_tiles_validator_finds_no_error_or_warning";

/// An npm package: `$env`, else `name` in the CI prefix; `None` (after [`missing`]) when absent.
fn npm_package(env: &str, name: &str, test: &str) -> Option<PathBuf> {
    let module = std::env::var_os(env).map(PathBuf::from).or_else(|| {
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/meridian-ci/npm/node_modules").join(name))
    });
    match module {
        Some(m) if m.join("package.json").is_file() => Some(m),
        other => {
            let at = other.map_or_else(|| format!("${env}"), |m| m.display().to_string());
            missing(&format!("the npm package {name} (looked for {at}; set {env})"), test);
            None
        }
    }
}

fn write_tileset(dir: &Path, built: &meridian_twin::BuiltTileset) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("tileset.json"), serde_json::to_vec_pretty(&built.tileset).unwrap()).unwrap();
    for (uri, glb) in &built.contents {
        let path = dir.join(uri);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, glb).unwrap();
    }
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}): {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A package's command line (its `bin` called `name`).
fn cli(module: &Path, name: &str) -> PathBuf {
    let pkg: Value = serde_json::from_slice(&std::fs::read(module.join("package.json")).unwrap()).unwrap();
    let bin = match &pkg["bin"] {
        Value::String(s) => s.clone(),
        other => other[name].as_str().unwrap().to_owned(),
    };
    module.join(bin)
}

#[test]
fn the_3d_tiles_tools_read_every_content() {
    if !have_tool("node", TEST) {
        return;
    }
    let Some(module) = npm_package("TILES_TOOLS_DIR", "3d-tiles-tools", TEST) else { return };
    let (w, h) = (40, 40);
    let heights = (0..w * h).map(|i| 12.0 + (i % w) as f32 * 0.1).collect();
    let terrain = Terrain { width: w, height: h, bounds: [152.999, -27.501, 153.021, -27.479], heights };
    let fps = scatter(300, 31);
    let built =
        build_tileset(&fps, Some(&terrain), &TilesetOptions { max_features_per_tile: 40, ..Default::default() })
            .unwrap();
    assert!(built.contents.len() > 8, "{} contents", built.contents.len());
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("tileset");
    write_tileset(&src, &built);

    // The command line: to a 3TZ package and back.
    let cli = cli(&module, "3d-tiles-tools");
    let packed = dir.path().join("tileset.3tz");
    let back = dir.path().join("back");
    run(Command::new("node").arg(&cli).args(["convert", "-i"]).arg(src.join("tileset.json")).arg("-o").arg(&packed));
    run(Command::new("node").arg(&cli).args(["convert", "-i"]).arg(&packed).arg("-o").arg(&back));
    for (uri, glb) in &built.contents {
        assert_eq!(&std::fs::read(back.join(uri)).unwrap(), glb, "{uri} after the 3TZ round trip");
    }

    // The library: the tileset traversed from its root, every content read.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/tiles_tools_read.js");
    let stdout = run(Command::new("node").arg(script).arg(&module).arg(&back));
    let report: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let contents = report["contents"].as_array().unwrap();
    eprintln!("3d-tiles-tools: {} tiles, {} contents", report["tiles"], contents.len());
    assert_eq!(contents.len(), built.contents.len(), "{report}");
    let mut seen = std::collections::BTreeSet::new();
    for c in contents {
        // The traversal's order is its own: contents are matched by uri.
        let uri = c["uri"].as_str().unwrap();
        assert!(seen.insert(uri), "{uri} read twice");
        let tile = built.tiles.iter().find(|t| t.uri == uri).unwrap_or_else(|| panic!("{uri} is not the engine's"));
        assert_eq!(c["type"], "CONTENT_TYPE_GLB", "{c}");
        if tile.uri == TERRAIN_URI {
            assert_eq!(c["featureIdSets"], 0, "{c}");
            continue;
        }
        assert_eq!(c["featureIdSets"], 1, "{c}");
        let tables = c["propertyTables"].as_array().unwrap();
        assert_eq!(tables.len(), 1, "{c}");
        assert_eq!(tables[0]["class"], meridian_twin::CLASS);
        assert_eq!(tables[0]["count"], tile.features.len(), "{c}");
        let props: Vec<&str> = tables[0]["properties"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        for name in ["id", "lot", "plan", "tenure", "area", "height", "base"] {
            assert!(props.contains(&name), "{name} in {c}");
        }
    }
}

/// Every issue without causes (the leaves of the report's tree), as `SEVERITY TYPE path: message`.
fn leaves(issues: &Value, out: &mut Vec<String>) {
    for issue in issues.as_array().into_iter().flatten() {
        match issue["causes"].as_array() {
            Some(causes) if !causes.is_empty() => leaves(&issue["causes"], out),
            _ => out.push(format!(
                "{} {} {}: {}",
                issue["severity"].as_str().unwrap_or("?"),
                issue["type"].as_str().unwrap_or("?"),
                issue["path"].as_str().unwrap_or(""),
                issue["message"].as_str().unwrap_or("")
            )),
        }
    }
}

#[test]
#[ignore = "3d-tiles-validator is not on the npm registry CI reaches: run with TILES_VALIDATOR_DIR and --ignored"]
fn the_3d_tiles_validator_finds_no_error_or_warning() {
    if !have_tool("node", VALIDATOR_TEST) {
        return;
    }
    let Some(module) = npm_package("TILES_VALIDATOR_DIR", "3d-tiles-validator", VALIDATOR_TEST) else { return };
    let cli = cli(&module, "3d-tiles-validator");
    let (w, h) = (60, 50);
    let mut heights: Vec<f32> = (0..w * h).map(|i| 14.0 + ((i % w) as f32 * 0.3).sin() * 2.0).collect();
    heights[77] = f32::NAN;
    let terrain = Terrain { width: w, height: h, bounds: [152.999, -27.501, 153.021, -27.479], heights };
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "terrain-and-quadtree",
            build_tileset(
                &scatter(500, 41),
                Some(&terrain),
                &TilesetOptions { max_features_per_tile: 20, ..Default::default() },
            ),
        ),
        ("one-tile", build_tileset(&scatter(60, 42), None, &TilesetOptions::default())),
        (
            "hostile",
            build_tileset(&hostile(400, 43), None, &TilesetOptions { max_features_per_tile: 50, ..Default::default() }),
        ),
        (
            "stacked-parts",
            build_tileset(
                &vec![scatter(1, 44)[0].clone(); 9],
                None,
                &TilesetOptions { max_features_per_tile: 4, ..Default::default() },
            ),
        ),
    ];
    for (name, built) in cases {
        let built = built.unwrap();
        let at = dir.path().join(name);
        write_tileset(&at, &built);
        let report_file = dir.path().join(format!("{name}.report.json"));
        run(Command::new("node")
            .arg(&cli)
            .arg("--tilesetFile")
            .arg(at.join("tileset.json"))
            .arg("--reportFile")
            .arg(&report_file));
        let report: Value = serde_json::from_slice(&std::fs::read(&report_file).unwrap()).unwrap();
        let mut issues = Vec::new();
        leaves(&report["issues"], &mut issues);
        eprintln!(
            "3d-tiles-validator, {name} ({} contents): {} errors, {} warnings, {} infos",
            built.contents.len(),
            report["numErrors"],
            report["numWarnings"],
            report["numInfos"]
        );
        assert_eq!(report["numErrors"], 0, "{name}: {issues:#?}");
        assert_eq!(report["numWarnings"], 0, "{name}: {issues:#?}");
        // The infos allowed: the glTF Validator inside does not know the two extensions (the
        // 3D Tiles Validator checks them itself) and so sees their buffer views as unused.
        for i in &issues {
            assert!(
                i.contains("not supported by the validator: 'EXT_") || i.ends_with("This object may be unused."),
                "{name}: an unexpected info: {i}"
            );
        }
    }
}
