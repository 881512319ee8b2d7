//! A CesiumJS developer's view of a twin: CesiumJS (npm `cesium`) in headless Chromium loads the
//! server's tileset with an access token in its URL (carried to every tile), and the pick at the
//! centre of the view returns the centre parcel's id; then 3d-tiles-tools reads the same
//! tileset, downloaded as a directory. The screenshot is kept in
//! `target/test-artefacts/twin/cesium-server.png`.

use crate::tools::{chromium, npm_package, test_artefacts};
use crate::{have_tool, Server};
use serde_json::{json, Value};
use std::process::Command;

const TEST: &str = "twin_browser::cesiumjs_loads_a_twin_and_picks_the_parcel_at_the_centre";

fn collect_uris(tile: &Value, out: &mut Vec<String>) {
    if let Some(u) = tile["content"]["uri"].as_str() {
        out.push(u.to_owned());
    }
    for c in tile["children"].as_array().into_iter().flatten() {
        collect_uris(c, out);
    }
}

#[tokio::test]
async fn cesiumjs_loads_a_twin_and_picks_the_parcel_at_the_centre() {
    if !have_tool("node", TEST) {
        return;
    }
    let Some(chromium) = chromium(TEST) else { return };
    let Some(cesium) = npm_package("CESIUM_DIR", "cesium", "Build/Cesium/Cesium.js", TEST) else { return };
    let Some(playwright) = npm_package("PLAYWRIGHT_CORE_DIR", "playwright-core", "package.json", TEST) else { return };

    let s = Server::start();
    let (_, key) = s.signup("cesium@example.com").await;
    // A 3 × 3 block of parcels 60 m apart around 153.02 °E, 27.47 °S; the middle one is larger,
    // taller, and the one under the centre of the view.
    let (m_lon, m_lat) = (1.0 / (111_320.0 * (-27.47f64).to_radians().cos()), 1.0 / 110_850.0);
    let mut ids = Vec::new();
    for row in -1..=1 {
        for col in -1..=1 {
            let n = (row + 1) * 3 + col + 2;
            let (side, height) = if row == 0 && col == 0 { (30.0, 25.0) } else { (20.0, 8.0 + f64::from(n)) };
            let (lon, lat) = (153.02 + f64::from(col) * 60.0 * m_lon, -27.47 + f64::from(row) * 60.0 * m_lat);
            let (hw, hh) = (side / 2.0 * m_lon, side / 2.0 * m_lat);
            let ring = json!([
                [lon - hw, lat - hh],
                [lon + hw, lat - hh],
                [lon + hw, lat + hh],
                [lon - hw, lat + hh],
                [lon - hw, lat - hh]
            ]);
            let body = json!({"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [ring]},
                "properties": {"lot": n.to_string(), "plan": "SP4242", "tenure": "freehold", "storeys": height}});
            let r = s
                .client
                .post(s.url("/api/v1/cadastre/parcels"))
                .header("X-Api-Key", &key)
                .header("content-type", "application/geo+json")
                .body(body.to_string())
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 201);
            ids.push(r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned());
        }
    }
    let r = s
        .client
        .post(s.url("/api/v1/realtime/twins"))
        .header("X-Api-Key", &key)
        .json(&json!({"name": "Block", "bbox": [153.018, -27.472, 153.022, -27.468], "height_property": "storeys"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    let token: Value = s
        .client
        .post(s.url("/api/v1/auth/token"))
        .header("X-Api-Key", &key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = token["access_token"].as_str().unwrap().to_owned();

    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("cesium.png");
    let url = s.url(&format!("/api/v1/realtime/twin/{id}/tileset?access_token={token}"));
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../twin/tests/cesium/check.mjs");
    let (chromium2, shot2) = (chromium.clone(), shot.clone());
    let out = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg(script)
            .args(["--tileset", &url, "--timeout", "60000", "--chromium", &chromium2])
            .arg("--out")
            .arg(&shot2)
            .env("CESIUM_DIR", &cesium)
            .env("PLAYWRIGHT_CORE_DIR", &playwright)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(out.status.success(), "check.mjs could not run: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let report: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    eprintln!("check.mjs: {report}");
    if shot.is_file() {
        let artefacts = test_artefacts("twin");
        std::fs::create_dir_all(&artefacts).unwrap();
        std::fs::copy(&shot, artefacts.join("cesium-server.png")).unwrap();
    }
    assert_eq!(report["errors"], json!([]), "{report:#}");
    assert_eq!(report["tilesLoaded"], true, "{report:#}");
    assert_eq!(report["tilesetVersion"], "1.1");
    assert_eq!(report["featuresPicked"], ids[4].as_str(), "the pick at the centre: {report:#}");
    let props = &report["properties"];
    assert_eq!(
        (props["lot"].as_str(), props["plan"].as_str(), props["tenure"].as_str()),
        (Some("5"), Some("SP4242"), Some("freehold"))
    );
    assert!((props["height"].as_f64().unwrap() - 25.0).abs() < 1e-3, "{props}");
    // What was picked is what the API says about the asset.
    let asset: Value =
        s.get(&format!("/api/v1/realtime/twin/{id}/features/{}", ids[4]), &key).await.json().await.unwrap();
    assert_eq!(asset["properties"]["lot"], "5");

    // 3d-tiles-tools reads the same tileset, downloaded as the files its URIs name.
    let Some(tools) = npm_package("TILES_TOOLS_DIR", "3d-tiles-tools", "package.json", TEST) else { return };
    let tileset: Value = s.get(&format!("/api/v1/realtime/twin/{id}/tileset"), &key).await.json().await.unwrap();
    let copy = dir.path().join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::write(copy.join("tileset.json"), serde_json::to_vec(&tileset).unwrap()).unwrap();
    let mut uris = Vec::new();
    collect_uris(&tileset["root"], &mut uris);
    for uri in &uris {
        let bytes = s.get(&format!("/api/v1/realtime/twin/{id}/{uri}"), &key).await.bytes().await.unwrap();
        let path = copy.join(uri);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let reader = concat!(env!("CARGO_MANIFEST_DIR"), "/../twin/tests/it/tiles_tools_read.js");
    let out = Command::new("node").arg(reader).arg(&tools).arg(&copy).output().unwrap();
    assert!(out.status.success(), "3d-tiles-tools: {}", String::from_utf8_lossy(&out.stderr));
    let read: Value = serde_json::from_slice(&out.stdout).unwrap();
    eprintln!("3d-tiles-tools: {read}");
    let contents = read["contents"].as_array().unwrap();
    assert_eq!(contents.len(), uris.len(), "{read}");
    let rows: u64 = contents
        .iter()
        .flat_map(|c| c["propertyTables"].as_array().unwrap().iter().map(|t| t["count"].as_u64().unwrap()))
        .sum();
    assert_eq!(rows, 9, "one row per parcel: {read}");
}
