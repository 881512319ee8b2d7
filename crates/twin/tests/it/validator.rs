//! The Khronos glTF Validator (the `gltf-validator` npm package, run by node) on generated
//! content. The package is `$GLTF_VALIDATOR_DIR`, by default
//! `$HOME/.cache/meridian-ci/npm/node_modules/gltf-validator`, where `.ci/run` installs it with
//! `npm install --prefix $HOME/.cache/meridian-ci/npm gltf-validator@2.0.0-dev.3.10`.

use crate::{hostile, scatter};
use meridian_testing::tools::{have_tool, missing};
use meridian_twin::{build_tileset, Terrain, TilesetOptions};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

const TEST: &str = "validator::generated_content_passes_the_gltf_validator";

fn validator_module() -> Option<PathBuf> {
    let module = std::env::var_os("GLTF_VALIDATOR_DIR").map(PathBuf::from).or_else(|| {
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/meridian-ci/npm/node_modules/gltf-validator"))
    });
    match module {
        Some(m) if m.join("package.json").is_file() => Some(m),
        other => {
            let at = other.map_or_else(|| "$GLTF_VALIDATOR_DIR".to_owned(), |m| m.display().to_string());
            missing(&format!("the npm package gltf-validator (looked for {at}; set GLTF_VALIDATOR_DIR)"), TEST);
            None
        }
    }
}

#[test]
fn generated_content_passes_the_gltf_validator() {
    if !have_tool("node", TEST) {
        return;
    }
    let Some(module) = validator_module() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let (w, h) = (300, 300);
    let mut heights: Vec<f32> = (0..w * h).map(|i| 15.0 + ((i % w) as f32 * 0.05).sin() * 3.0).collect();
    heights[1000] = f32::NAN;
    let terrain = Terrain { width: w, height: h, bounds: [152.999, -27.501, 153.021, -27.479], heights };
    // Small tiles (16-bit indices), and one big tile with more than 65,535 vertices (32-bit).
    let small = build_tileset(
        &scatter(400, 21),
        Some(&terrain),
        &TilesetOptions { max_features_per_tile: 50, ..Default::default() },
    )
    .unwrap();
    let big =
        build_tileset(&scatter(3000, 22), None, &TilesetOptions { max_features_per_tile: 3000, ..Default::default() })
            .unwrap();
    assert_eq!(big.contents.len(), 1);
    let odd =
        build_tileset(&hostile(600, 5), None, &TilesetOptions { max_features_per_tile: 100, ..Default::default() })
            .unwrap();
    for (name, built) in [("small", &small), ("big", &big), ("hostile", &odd)] {
        for (i, (_, bytes)) in built.contents.iter().enumerate() {
            let path = dir.path().join(format!("{name}-{i}.glb"));
            std::fs::write(&path, bytes).unwrap();
            files.push(path);
        }
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/validate_glb.js");
    let out = Command::new("node").arg(script).arg(&module).args(&files).output().unwrap();
    assert!(out.status.success(), "node failed: {}", String::from_utf8_lossy(&out.stderr));
    let reports: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(reports.len(), files.len());
    for r in &reports {
        eprintln!(
            "{}: validator {}: {} errors, {} warnings, {} infos, {} hints",
            r["file"], r["validatorVersion"], r["errors"], r["warnings"], r["infos"], r["hints"]
        );
        let messages: Vec<&str> = r["messages"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(r["errors"], 0, "{}: {messages:#?}", r["file"]);
        assert_eq!(r["warnings"], 0, "{}: {messages:#?}", r["file"]);
    }
}
