//! The console in a real browser: `tests/console/flow.mjs` drives headless Chromium (Debian's
//! `chromium`, through playwright-core) through every page: sign-up, a zone and its records (one
//! the API refuses, its message under the field), an ETag-guarded edit, DNSSEC and a zone-file
//! import, signing in again with the key; a parcel drawn on the map; a DEM uploaded and its
//! hillshade drawn; a scene's NDVI with parcel zones; a point cloud classified and shown in 3D
//! from its COPC file; a twin's building picked on the globe and on the map, with a reading
//! arriving live and its clock moved; a webhook's delivery log; a scoped
//! key made and revoked. axe-core checks each page. The flow runs at the server's own address
//! and again behind a reverse proxy at a path prefix. What the browser did is checked here
//! against the API, and the maps in pixels. Screenshots go to `target/test-artefacts/console/`.

use crate::tools::{chromium, npm_package, test_artefacts};
use crate::{have_tool, Server};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const TEST: &str = "console_browser::a_person_uses_every_page_of_the_console";

#[tokio::test]
async fn a_person_uses_every_page_of_the_console() {
    if !have_tool("node", TEST) {
        return;
    }
    let Some(chromium) = chromium(TEST) else { return };
    let Some(playwright) = npm_package("PLAYWRIGHT_CORE_DIR", "playwright-core", "package.json", TEST) else { return };
    let Some(axe) = npm_package("AXE_CORE_DIR", "axe-core", "axe.min.js", TEST) else { return };

    let s = Server::start();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/console/flow.mjs");
    // Once at the server's own address, once behind a reverse proxy at a path prefix.
    for (zone_name, prefix, out_dir) in [
        ("console.example", "", test_artefacts("console")),
        ("prefixed.example", "/meridian", test_artefacts("console").join("behind-a-prefix")),
    ] {
        let args = Flow { script: &script, chromium: &chromium, playwright: &playwright, axe: &axe };
        let report = args.run(&s.base, zone_name, prefix, &out_dir).await;
        check(&s, &report, zone_name).await;
        assert!(out_dir.join("zone.png").is_file());
        check_map(&out_dir.join("parcels.png"), &report);
        check_hillshade(&out_dir.join("dem.png"), &report);
        check_ndvi(&out_dir.join("eo.png"));
    }
}

struct Flow<'a> {
    script: &'a Path,
    chromium: &'a str,
    playwright: &'a Path,
    axe: &'a Path,
}

impl Flow<'_> {
    async fn run(&self, base: &str, zone: &str, prefix: &str, out_dir: &Path) -> Value {
        let mut command = Command::new("node");
        command
            .arg(self.script)
            .args(["--base", base, "--zone", zone, "--chromium", self.chromium])
            .arg("--eo")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../eo/tests/data"))
            .arg("--pointcloud")
            .arg(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../pointcloud/tests/data/labelled/pl_warsaw_small_veg.las"),
            )
            .arg("--dem")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../raster/tests/data/swissalti3d-2573-1085.tif"))
            .arg("--out")
            .arg(out_dir)
            .env("PLAYWRIGHT_CORE_DIR", self.playwright)
            .env("AXE_CORE_DIR", self.axe);
        if !prefix.is_empty() {
            command.args(["--prefix", prefix]);
        }
        let out = tokio::task::spawn_blocking(move || command.output().unwrap()).await.unwrap();
        assert!(out.status.success(), "flow.mjs could not run: {}", String::from_utf8_lossy(&out.stderr));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        eprintln!("console flow ({zone}, prefix {prefix:?}): {report}");
        report
    }
}

/// What the flow reports, against the API: the steps all ran, no page broke or failed axe-core,
/// and what the browser did is what the API holds.
async fn check(s: &Server, report: &Value, zone_name: &str) {
    let errors = report["errors"].as_array().unwrap();
    assert!(errors.is_empty(), "the page reported errors: {report}");
    let steps: Vec<&str> = report["steps"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(
        steps,
        [
            "signed up",
            "zone created",
            "record added",
            "invalid record refused",
            "record edited",
            "zone signed",
            "zone file imported",
            "zone history",
            "signed in again",
            "parcels map",
            "parcel drawn",
            "parcel changed, history shown",
            "parcel shape edited",
            "cql2 filter",
            "collection uploaded",
            "dem hillshade",
            "dem dataset processed again",
            "eo ndvi with zones",
            "point cloud classified",
            "point cloud in 3d",
            "twin building picked on the globe",
            "twin building picked, reading live",
            "twin clock",
            "webhooks",
            "api keys",
            "keyboard reaches sign out"
        ],
        "{report}"
    );
    for page in
        ["sign-in", "zone", "zones", "parcels", "dem", "eo", "pointcloud", "twin-globe", "twin", "webhooks", "keys"]
    {
        assert_eq!(report["axe"][page], serde_json::json!([]), "serious or critical axe-core violations on {page}");
    }

    // What the browser did, read back through the API with the key it was shown.
    let key = report["key"].as_str().unwrap();
    let zone = report["zone"].as_str().unwrap();
    let z: Value = s.get(&format!("/v1/dns/zones/{zone}"), key).await.json().await.unwrap();
    assert_eq!(z["name"], zone_name);
    assert_eq!(z["dnssec"], "active", "{z}");
    let record = report["record"].as_str().unwrap();
    let r: Value = s.get(&format!("/v1/dns/zones/{zone}/records/{record}"), key).await.json().await.unwrap();
    assert_eq!((r["content"].as_str(), r["ttl"].as_u64()), (Some("192.0.2.10"), Some(600)), "{r}");
    let listed: Value = s.get(&format!("/v1/dns/zones/{zone}/records?type=A"), key).await.json().await.unwrap();
    let contents: Vec<&str> =
        listed["records"].as_array().unwrap().iter().map(|r| r["content"].as_str().unwrap()).collect();
    assert!(contents.contains(&"192.0.2.25") && !contents.contains(&"not-an-address"), "{listed}");
    // The message under the field is the API's own.
    let refused = s
        .client
        .post(s.url(&format!("/v1/dns/zones/{zone}/records")))
        .bearer_auth(key)
        .json(&serde_json::json!({"type": "A", "name": "bad", "content": "not-an-address"}))
        .send()
        .await
        .unwrap();
    let problem: Value = refused.json().await.unwrap();
    let detail = problem["errors"][0]["detail"].as_str().unwrap();
    assert_eq!(report["fieldError"].as_str(), Some(detail), "{problem}");
    // The history shown is the zone's changes as the API lists them.
    let changes: Value = s.get(&format!("/v1/dns/zones/{zone}/changes?limit=20"), key).await.json().await.unwrap();
    let kinds: Vec<&str> =
        changes["changes"].as_array().unwrap().iter().map(|c| c["event"].as_str().unwrap()).collect();
    assert_eq!(report["changes"], serde_json::json!(kinds), "{changes}");
    assert!(kinds.contains(&"dns.record.updated") && kinds.last() == Some(&"dns.zone.created"), "{kinds:?}");
    let ds: Value = s.get(&format!("/v1/dns/zones/{zone}/dnssec"), key).await.json().await.unwrap();
    assert_eq!(report["ds"], ds["ds"][0]["ds"]);

    // The parcel drawn on the map is in the cadastre, as drawn (four corners, closed), and the
    // attributes shown on picking it are its own.
    let drawn: Value = s.get("/api/v1/cadastre/parcels?lot=2&plan=SP2", key).await.json().await.unwrap();
    let features = drawn["features"].as_array().unwrap();
    assert_eq!(features.len(), 1, "{drawn}");
    let id = features[0]["id"].as_str().unwrap();
    assert_eq!(report["drawn"].as_str(), Some(format!("Parcel {id} saved.").as_str()));
    assert_eq!(features[0]["geometry"]["coordinates"][0].as_array().unwrap().len(), 5);
    assert_eq!(features[0]["properties"]["tenure"], "leasehold", "changed in the console");
    assert_eq!(report["history"], serde_json::json!(["registered", "updated"]), "{report}");
    // Its shape, changed on the map: a third version, its corner dragged out, so a larger area.
    assert_eq!(report["shapeHistory"], serde_json::json!(["registered", "updated", "updated"]), "{report}");
    let history: Value = s.get(&format!("/api/v1/cadastre/parcels/{id}/history"), key).await.json().await.unwrap();
    let areas: Vec<f64> = history["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["properties"]["area_m2"].as_f64().unwrap_or(f64::NAN))
        .collect();
    assert!(areas.len() == 3 && areas[2] > areas[1] * 1.05, "the shape did not grow: {areas:?} {history}");
    // The collection uploaded from the page holds the file's three trees.
    let trees: Value = s.get("/api/v1/ogc/v1/features/collections/trees/items", key).await.json().await.unwrap();
    assert_eq!(trees["features"].as_array().map(Vec::len), Some(3), "{trees}");
    assert_eq!(report["uploadProgress"], 100, "{report}");
    // The DEM dataset processed again: a second job over the same dataset, slope only.
    let again: Value =
        s.get(&format!("/api/v1/dem/jobs/{}", report["demAgain"].as_str().unwrap()), key).await.json().await.unwrap();
    assert_eq!(again["status"], "succeeded", "{again}");
    assert!(report["demAgainLegend"].as_str().unwrap().starts_with("slope"), "{report}");
    let picked = report["picked"].as_str().unwrap();
    assert!(picked.contains("lot2") && picked.contains("planSP2"), "{picked}");
    // The subscription's delivery and its attempt, as the API holds them; the key made in the
    // console was shown once and is revoked.
    let delivery = report["delivery"].as_str().unwrap();
    let d: Value = s.get(&format!("/api/v1/webhooks/deliveries/{delivery}"), key).await.json().await.unwrap();
    assert_eq!(d["event_type"], "webhook.test", "{d}");
    assert!(!d["attempts"].as_array().unwrap().is_empty(), "{d}");
    assert!(report["webhookSecret"].as_str().unwrap().starts_with("whsec_"));
    assert_ne!(report["webhookSecret"], report["rotatedSecret"]);
    let scoped = report["scopedKey"].as_str().unwrap();
    assert!(scoped.starts_with("mrd_"));
    assert_eq!(s.get("/api/v1/account", scoped).await.status(), 401, "the revoked key is refused");
    // The zonal table's row of the parcel inside the scene is the API's own figure.
    let ndvi: Value = s
        .client
        .post(s.url("/api/v1/eo/compute/ndvi"))
        .bearer_auth(key)
        .json(&serde_json::json!({"scene": "cbers4/CBERS_4_MUX_20171121_057_094", "zones": {"collection": "parcels"}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let parcel = report["zoneParcel"].as_str().unwrap();
    let zone = ndvi["zones"]["features"].as_array().unwrap().iter().find(|z| z["id"] == parcel).unwrap();
    let row: Vec<&str> = report["zoneRow"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(row[0], parcel, "{row:?}");
    assert_eq!(row[3], zone["properties"]["count"].to_string(), "{row:?} {zone}");
    assert_eq!(row[4], format!("{:.3}", zone["properties"]["mean"].as_f64().unwrap()), "{row:?} {zone}");
    // The class chart is the classification's histogram.
    let cloud = report["cloud"].as_str().unwrap();
    let pc: Value = s.get(&format!("/api/v1/pointcloud/{cloud}"), key).await.json().await.unwrap();
    assert_eq!(pc["classification"]["status"], "succeeded", "{pc}");
    assert_eq!(report["classes"], pc["classification"]["histogram"], "{pc}");
    check_cloud_3d(&report["cloud3d"], &pc);
    // The twin's clock is where the console left it: paused at the time travelled to.
    let twin = report["twin"].as_str().unwrap();
    let clock: Value = s.get(&format!("/api/v1/realtime/twin/{twin}/time"), key).await.json().await.unwrap();
    assert_eq!((clock["mode"].as_str(), clock["playing"].as_bool()), (Some("simulated"), Some(false)), "{clock}");
    assert!(clock["time"].as_str().unwrap().starts_with("2024-06-01"), "{clock}");
    assert!(report["liveText"].as_str().unwrap().contains("pump-3 = 12.5"), "{report}");
    // The building picked on the globe is the twin's parcel, read from the tile's property table.
    assert_eq!(report["globePicked"], report["twinParcel"], "{report}");
    // ... and drawn in the accent colour (#d9480f, lit): red well above green and blue.
    let roof: Vec<i64> = report["globeRoofColour"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
    assert!(roof[0] > roof[1] + 60 && roof[0] > roof[2] + 60, "the picked roof is {roof:?}");
    // The CQL2 mistake is shown as the API words it.
    let refused = s
        .get("/api/v1/ogc/v1/features/collections/parcels/items?filter=tenure%20%3D%20&filter-lang=cql2-text", key)
        .await;
    assert_eq!(refused.status(), 400);
    let problem: Value = refused.json().await.unwrap();
    let shown = report["cqlError"].as_str().unwrap();
    assert!(!shown.is_empty(), "{report}");
    let expected = problem["errors"][0]["detail"].as_str().or(problem["detail"].as_str()).unwrap();
    assert_eq!(shown, expected, "{problem}");
}

/// The 3D view of the classified cloud: read from the COPC file by range requests only (the
/// header, the hierarchy, then nodes), at most every point of the file shown, and drawn in the
/// colours of the classes the file holds, the commonest of them plainly visible.
fn check_cloud_3d(c3: &Value, pc: &Value) {
    assert!(c3["error"].is_null(), "{c3}");
    let total = c3["total"].as_u64().unwrap();
    assert_eq!(Some(total), pc["points"].as_u64(), "{c3} {pc}");
    let shown = c3["points"].as_u64().unwrap();
    assert!(shown > 0 && shown <= total && c3["nodes"].as_u64().unwrap() >= 1, "{c3}");
    assert!(c3["requests"].as_u64().unwrap() >= 3, "{c3}");
    assert_eq!(c3["withoutRange"], 0, "every COPC read is a range request: {c3}");
    let histogram = pc["classification"]["histogram"].as_object().unwrap();
    let pixels = c3["pixels"].as_object().unwrap();
    for (class, n) in pixels {
        if n.as_u64().unwrap() > 200 {
            assert!(histogram.contains_key(class), "class {class} drawn on {n} pixels, not in {histogram:?}");
        }
    }
    let (commonest, _) = histogram.iter().max_by_key(|(_, n)| n.as_u64().unwrap()).unwrap();
    let drawn = pixels.get(commonest).and_then(Value::as_u64).unwrap_or(0);
    assert!(drawn >= 500, "the commonest class {commonest} is on {drawn} pixels: {c3}");
}

/// The map as drawn: the seeded parcel fills the middle, the drawn one the top left (corners at
/// 40..160 × 40..120 px), in the parcels' colour; a corner far from both is the background.
fn check_map(png: &Path, report: &Value) {
    let (w, h, rgba) = crate::ogc::decode_png(&std::fs::read(png).unwrap());
    let at = |x: u32, y: u32| {
        let i = ((y * w + x) * 4) as usize;
        (rgba[i], rgba[i + 1], rgba[i + 2])
    };
    let parcel = |(r, g, b): (u8, u8, u8)| r > g.saturating_add(40) && r > b.saturating_add(40);
    assert!(w >= 300 && h >= 200, "{report}");
    assert!(parcel(at(100, 80)), "the drawn parcel at (100, 80) is {:?}", at(100, 80));
    assert!(parcel(at(w / 2, h / 2)), "the seeded parcel at the centre is {:?}", at(w / 2, h / 2));
    assert!(!parcel(at(w - 60, h - 20)), "the background at the bottom right is {:?}", at(w - 60, h - 20));
}

/// The DEM's hillshade as drawn: the middle of the map is shades of grey (the relief lit from the
/// north-west), not the plain background.
fn check_hillshade(png: &Path, report: &Value) {
    let (w, h, rgba) = crate::ogc::decode_png(&std::fs::read(png).unwrap());
    let mut shades = std::collections::BTreeSet::new();
    let mut grey = 0;
    let mut total = 0;
    for y in (h / 3..2 * h / 3).step_by(3) {
        for x in (w / 3..2 * w / 3).step_by(3) {
            let i = ((y * w + x) * 4) as usize;
            let (r, g, b) = (i32::from(rgba[i]), i32::from(rgba[i + 1]), i32::from(rgba[i + 2]));
            total += 1;
            if (r - g).abs() <= 10 && (g - b).abs() <= 10 {
                grey += 1;
                shades.insert(r / 4);
            }
        }
    }
    assert!(grey * 10 >= total * 9, "{grey} of {total} pixels grey: {report}");
    assert!(shades.len() >= 12, "only {} shades of grey: the hillshade is not drawn ({report})", shades.len());
    assert!(report["demStatus"].as_str().unwrap().contains("succeeded"), "{report}");
    assert!(report["legend"].as_str().unwrap().starts_with("hillshade"), "{report}");
}

/// The scene's NDVI as drawn: coloured pixels of the red-yellow-green ramp in the middle of the
/// map, not grey background.
fn check_ndvi(png: &Path) {
    let (w, h, rgba) = crate::ogc::decode_png(&std::fs::read(png).unwrap());
    let (mut coloured, mut total) = (0, 0);
    for y in (h / 3..2 * h / 3).step_by(3) {
        for x in (w / 3..2 * w / 3).step_by(3) {
            let i = ((y * w + x) * 4) as usize;
            let (r, g, b) = (i32::from(rgba[i]), i32::from(rgba[i + 1]), i32::from(rgba[i + 2]));
            total += 1;
            if r.max(g) - b > 40 {
                coloured += 1;
            }
        }
    }
    assert!(coloured * 2 >= total, "{coloured} of {total} pixels coloured: the NDVI layer is not drawn");
}
