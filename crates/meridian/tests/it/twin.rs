//! The digital-twin area end to end: twins over parcels and a DEM, their 3D Tiles (contents
//! checked as glTF and by the Khronos validator), assets and the tileset as of the simulation
//! clock (the cadastre's history), sensors and readings, the WebSocket (live, resume, replay,
//! slow clients), MQTT ingest through Mosquitto, limits and tenant isolation.

use crate::{have_tool, missing, problem, Server};
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message as WsMessage;

pub(crate) type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The swissALTI3D tile of the raster tests: 7.0906–7.1036 °E, 45.9161–45.9251 °N.
fn dem_bytes() -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../raster/tests/data/swissalti3d-2573-1085.tif");
    std::fs::read(p).unwrap()
}

fn square(lon: f64, lat: f64, size: f64) -> Value {
    json!({"type": "Polygon", "coordinates": [[[lon, lat], [lon + size, lat], [lon + size, lat + size], [lon, lat + size], [lon, lat]]]})
}

/// Registers a parcel and returns its id.
async fn parcel(s: &Server, key: &str, lot: &str, geometry: Value, props: Value) -> String {
    let mut properties = json!({"lot": lot, "plan": "SP42"});
    for (k, v) in props.as_object().unwrap() {
        properties[k] = v.clone();
    }
    let r = s
        .client
        .post(s.url("/api/v1/cadastre/parcels"))
        .header("X-Api-Key", key)
        .header("content-type", "application/geo+json")
        .body(json!({"type": "Feature", "geometry": geometry, "properties": properties}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned()
}

pub(crate) async fn post(s: &Server, key: &str, path: &str, body: Value) -> reqwest::Response {
    s.client.post(s.url(path)).header("X-Api-Key", key).json(&body).send().await.unwrap()
}

/// Creates a twin and waits until its first build is done.
pub(crate) async fn twin(s: &Server, key: &str, body: Value) -> Value {
    let r = post(s, key, "/api/v1/realtime/twins", body).await;
    assert_eq!(r.status(), 202, "{}", r.text().await.unwrap());
    let created: Value = r.json().await.unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("twin_"));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let t: Value = s.get(&format!("/api/v1/realtime/twins/{id}"), key).await.json().await.unwrap();
        if t["status"] != "building" {
            assert_eq!(t["status"], "ready", "{t}");
            return t;
        }
        assert!(Instant::now() < deadline, "the twin was never built: {t}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The JSON chunk of a GLB.
fn glb_json(bytes: &[u8]) -> Value {
    assert_eq!(&bytes[0..4], b"glTF");
    assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 2);
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize, bytes.len());
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    assert_eq!(&bytes[16..20], b"JSON");
    serde_json::from_slice(&bytes[20..20 + len]).unwrap()
}

/// Every content URI of a tileset.
fn content_uris(tile: &Value, out: &mut Vec<String>) {
    if let Some(uri) = tile["content"]["uri"].as_str() {
        out.push(uri.to_owned());
    }
    for c in tile["children"].as_array().into_iter().flatten() {
        content_uris(c, out);
    }
}

/// A twin's tileset as of `query` and its contents: (tileset, etag, [(uri, bytes)]).
async fn fetch_tileset(s: &Server, key: &str, id: &str, query: &str) -> (Value, String, Vec<(String, Vec<u8>)>) {
    let r = s.get(&format!("/api/v1/realtime/twin/{id}/tileset{query}"), key).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
    let etag = r.headers()["etag"].to_str().unwrap().to_owned();
    let tileset: Value = r.json().await.unwrap();
    let mut uris = Vec::new();
    content_uris(&tileset["root"], &mut uris);
    let mut contents = Vec::new();
    for uri in uris {
        assert!(uri.starts_with("builds/"), "{uri}");
        let r = s.get(&format!("/api/v1/realtime/twin/{id}/{uri}"), key).await;
        assert_eq!(r.status(), 200, "{uri}");
        assert_eq!(r.headers()["content-type"], "model/gltf-binary");
        assert!(r.headers()["cache-control"].to_str().unwrap().contains("immutable"));
        contents.push((uri, r.bytes().await.unwrap().to_vec()));
    }
    (tileset, etag, contents)
}

/// The `id` property of every building in the contents (terrain has none).
fn building_ids(contents: &[(String, Vec<u8>)]) -> Vec<String> {
    let mut ids = Vec::new();
    for (_, bytes) in contents {
        let (j, bin) = {
            let j = glb_json(bytes);
            let jlen = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
            let bin_start = 20 + jlen + 8;
            (j, &bytes[bin_start..])
        };
        let Some(table) = j["extensions"]["EXT_structural_metadata"]["propertyTables"].get(0) else { continue };
        let count = table["count"].as_u64().unwrap() as usize;
        let view = |i: u64| {
            let v = &j["bufferViews"][i as usize];
            let off = v["byteOffset"].as_u64().unwrap_or(0) as usize;
            &bin[off..off + v["byteLength"].as_u64().unwrap() as usize]
        };
        let values = view(table["properties"]["id"]["values"].as_u64().unwrap());
        let offsets = view(table["properties"]["id"]["stringOffsets"].as_u64().unwrap());
        let wide = table["properties"]["id"]["stringOffsetType"] == "UINT32";
        let at = |k: usize| -> usize {
            if wide {
                u32::from_le_bytes(offsets[k * 4..k * 4 + 4].try_into().unwrap()) as usize
            } else {
                u16::from_le_bytes(offsets[k * 2..k * 2 + 2].try_into().unwrap()) as usize
            }
        };
        for k in 0..count {
            ids.push(String::from_utf8(values[at(k)..at(k + 1)].to_vec()).unwrap());
        }
    }
    ids.sort();
    ids.dedup();
    ids
}

/// Runs the Khronos glTF Validator on contents, when it is installed.
fn validate_glb(dir: &std::path::Path, contents: &[(String, Vec<u8>)], test: &str) {
    if !have_tool("node", test) {
        return;
    }
    let module = std::env::var_os("GLTF_VALIDATOR_DIR").map(PathBuf::from).or_else(|| {
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/meridian-ci/npm/node_modules/gltf-validator"))
    });
    let Some(module) = module.filter(|m| m.join("package.json").is_file()) else {
        missing("the npm package gltf-validator (set GLTF_VALIDATOR_DIR)", test);
        return;
    };
    let mut files = Vec::new();
    for (i, (_, bytes)) in contents.iter().enumerate() {
        let p = dir.join(format!("content-{i}.glb"));
        std::fs::write(&p, bytes).unwrap();
        files.push(p);
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../twin/tests/it/validate_glb.js");
    let out = std::process::Command::new("node").arg(script).arg(&module).args(&files).output().unwrap();
    assert!(out.status.success(), "node: {}", String::from_utf8_lossy(&out.stderr));
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        assert_eq!(r["errors"], 0, "{r}");
        assert_eq!(r["warnings"], 0, "{r}");
    }
}

async fn upload_dem(s: &Server, key: &str) -> String {
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(dem_bytes()).file_name("swissalti3d.tif"))
        .text("params", json!({"operations": [{"type": "hillshade"}]}).to_string());
    let r = s.client.post(s.url("/api/v1/dem/process")).bearer_auth(key).multipart(form).send().await.unwrap();
    assert_eq!(r.status(), 202);
    let job: Value = r.json().await.unwrap();
    job["source"]["dataset_id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_twin_over_parcels_and_a_dem_serves_3d_tiles_and_assets() {
    const TEST: &str = "twin::a_twin_over_parcels_and_a_dem_serves_3d_tiles_and_assets";
    let s = Server::start();
    let (_, key) = s.signup("twin@example.com").await;
    let dem = upload_dem(&s, &key).await;
    // Twelve parcels on the DEM; the odd ones leasehold; the centre one with its own height.
    let mut freehold = Vec::new();
    let mut leasehold = Vec::new();
    let mut tall = String::new();
    for i in 0..12 {
        let (lon, lat) = (7.0925 + (i % 4) as f64 * 0.0022, 45.9175 + (i / 4) as f64 * 0.0022);
        let tenure = if i % 2 == 0 { "freehold" } else { "leasehold" };
        let mut props = json!({"tenure": tenure});
        if i == 5 {
            props["tenure"] = json!("freehold");
            props["height"] = json!(27.5);
        }
        let id = parcel(&s, &key, &i.to_string(), square(lon, lat, 0.0012), props).await;
        if i == 5 {
            tall = id.clone();
        }
        if i % 2 == 0 || i == 5 {
            freehold.push(id);
        } else {
            leasehold.push(id);
        }
    }
    // A parcel outside the area.
    parcel(&s, &key, "far", square(8.5, 47.3, 0.001), json!({"tenure": "freehold"})).await;
    let t = twin(
        &s,
        &key,
        json!({"name": "Old town", "bbox": [7.09, 45.91, 7.11, 45.93], "collection": "parcels",
               "filter": "tenure = 'freehold'", "dem_dataset": dem, "height_property": "height", "default_height": 9}),
    )
    .await;
    let id = t["id"].as_str().unwrap();
    assert_eq!(t["tileset"]["features"], freehold.len(), "{t}");
    assert_eq!(t["tileset"]["terrain"], true);
    assert_eq!(t["clock"]["mode"], "live");

    let (tileset, etag, contents) = fetch_tileset(&s, &key, id, "").await;
    assert_eq!(tileset["asset"]["version"], "1.1");
    assert_eq!(tileset["root"]["transform"].as_array().unwrap().len(), 16);
    assert!(contents.iter().any(|(u, _)| u.ends_with("tiles_terrain.glb")), "terrain content");
    let mut expected = freehold.clone();
    expected.sort();
    assert_eq!(building_ids(&contents), expected, "the freehold parcels in the area, and only them");
    // The buildings stand on the DEM: the root's box reaches the Alps' heights (about 1,500 m
    // and up) in its up axis, in the local frame at height 0.
    let zbox = tileset["root"]["boundingVolume"]["box"].as_array().unwrap();
    assert!(zbox[2].as_f64().unwrap() > 1000.0, "box centre height {}", zbox[2]);
    validate_glb(s.dir.path(), &contents, TEST);

    // Conditional requests; contents are immutable.
    let r = s
        .client
        .get(s.url(&format!("/api/v1/realtime/twin/{id}/tileset")))
        .header("X-Api-Key", &key)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);

    // An asset: its properties, height, area; a leasehold parcel is not in this twin.
    let centre = &freehold[freehold.len() / 2];
    let a: Value = s.get(&format!("/api/v1/realtime/twin/{id}/features/{centre}"), &key).await.json().await.unwrap();
    assert_eq!(a["id"], *centre);
    assert_eq!(a["properties"]["tenure"], "freehold");
    assert_eq!(a["footprint"]["type"], "Polygon");
    let area = a["area_m2"].as_f64().unwrap();
    assert!((area - 0.0012 * 111_195.0 * 0.0012 * 77_400.0).abs() < 500.0, "area {area}");
    assert_eq!(a["version"], 1);
    let a: Value = s.get(&format!("/api/v1/realtime/twin/{id}/features/{tall}"), &key).await.json().await.unwrap();
    assert_eq!(a["height"], 27.5, "the height property");
    assert_eq!(a["sensors"], json!([]));
    assert_eq!(a["clock"]["mode"], "live");
    problem(s.get(&format!("/api/v1/realtime/twin/{id}/features/{}", leasehold[0]), &key).await, 404, "not_found")
        .await;
    problem(s.get(&format!("/api/v1/realtime/twin/{id}/features/parcel_nope"), &key).await, 404, "not_found").await;

    // Another tenant sees nothing of it.
    let (_, other) = s.signup("other-twin@example.com").await;
    for path in [
        format!("/api/v1/realtime/twins/{id}"),
        format!("/api/v1/realtime/twin/{id}/tileset"),
        format!("/api/v1/realtime/twin/{id}/features/{centre}"),
        format!("/api/v1/realtime/twin/{id}/time"),
        format!("/api/v1/realtime/twin/{id}/sensors"),
        format!("/api/v1/realtime/twin/{id}/{}", contents[0].0),
    ] {
        problem(s.get(&path, &other).await, 404, "not_found").await;
    }
    let list: Value = s.get("/api/v1/realtime/twins", &other).await.json().await.unwrap();
    assert_eq!(list["total"], 0);
    let list: Value = s.get("/api/v1/realtime/twins", &key).await.json().await.unwrap();
    assert_eq!(list["total"], 1);

    // Bad definitions are refused field by field, and nothing is stored.
    for (body, pointer) in [
        (json!({"bbox": [7.11, 45.91, 7.09, 45.93]}), "/bbox"),
        (json!({"bbox": [0, 0, 5, 5]}), "/bbox"),
        (json!({}), "/bbox"),
        (json!({"bbox": [7.09, 45.91, 7.11, 45.93], "filter": "tenure ="}), "/filter"),
        (
            json!({"bbox": [7.09, 45.91, 7.11, 45.93], "dem_dataset": "dataset_01m80pxqn5wq755fvheh5647jw"}),
            "/dem_dataset",
        ),
        (json!({"bbox": [7.09, 45.91, 7.11, 45.93], "collection": "nope"}), "/collection"),
        (json!({"bbox": [7.09, 45.91, 7.11, 45.93], "default_height": -1}), "/default_height"),
        (json!({"area": {"type": "Point", "coordinates": [7.1, 45.92]}}), "/area"),
    ] {
        let p = problem(post(&s, &key, "/api/v1/realtime/twins", body.clone()).await, 422, "validation_failed").await;
        assert_eq!(
            p["errors"][0]["pointer"].as_str().unwrap().split('/').nth(1),
            pointer.split('/').nth(1),
            "{body}: {p}"
        );
    }
    let list: Value = s.get("/api/v1/realtime/twins", &key).await.json().await.unwrap();
    assert_eq!(list["total"], 1);

    // Delete with a stale ETag fails; with the current one everything goes.
    let r = s
        .client
        .delete(s.url(&format!("/api/v1/realtime/twins/{id}")))
        .header("X-Api-Key", &key)
        .header("if-match", "\"x-v9\"")
        .send()
        .await
        .unwrap();
    problem(r, 412, "precondition_failed").await;
    let r =
        s.client.delete(s.url(&format!("/api/v1/realtime/twins/{id}"))).header("X-Api-Key", &key).send().await.unwrap();
    assert_eq!(r.status(), 204);
    problem(s.get(&format!("/api/v1/realtime/twin/{id}/tileset"), &key).await, 404, "not_found").await;
    let left: Vec<String> = s.blob_keys("").await.into_iter().filter(|k| k.contains(&format!("/twin/{id}/"))).collect();
    assert!(left.is_empty(), "the twin's builds are removed: {left:?}");
}

async fn patch_parcel(s: &Server, key: &str, id: &str, props: Value) {
    let r = s
        .client
        .patch(s.url(&format!("/api/v1/cadastre/parcels/{id}")))
        .header("X-Api-Key", key)
        .header("content-type", "application/merge-patch+json")
        .body(json!({ "properties": props }).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
}

pub(crate) async fn set_time(s: &Server, key: &str, id: &str, body: Value) -> Value {
    let r = post(s, key, &format!("/api/v1/realtime/twin/{id}/time"), body).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    r.json().await.unwrap()
}

pub(crate) fn rfc3339(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[tokio::test]
async fn the_clock_moves_assets_and_tilesets_through_the_cadastres_history() {
    let s = Server::start();
    let (_, key) = s.signup("history@example.com").await;
    let a = parcel(&s, &key, "1", square(151.2, -33.87, 0.0005), json!({"zone": "R2", "height": 12})).await;
    let c = parcel(&s, &key, "3", square(151.202, -33.87, 0.0005), json!({"zone": "R2"})).await;
    let t = twin(&s, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86], "height_property": "height"})).await;
    let id = t["id"].as_str().unwrap();
    let (_, then_etag, then_contents) = fetch_tileset(&s, &key, id, "").await;
    let mut before = vec![a.clone(), c.clone()];
    before.sort();
    assert_eq!(building_ids(&then_contents), before);
    tokio::time::sleep(Duration::from_millis(30)).await;
    let then = chrono::Utc::now();
    tokio::time::sleep(Duration::from_millis(30)).await;

    // The present moves on: A rezoned and taller, B registered, C retired.
    patch_parcel(&s, &key, &a, json!({"zone": "B4", "height": 40})).await;
    let b = parcel(&s, &key, "2", square(151.201, -33.869, 0.0005), json!({})).await;
    let r = s
        .client
        .delete(s.url(&format!("/api/v1/cadastre/parcels/{c}")))
        .header("X-Api-Key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);

    let (_, now_etag, now_contents) = fetch_tileset(&s, &key, id, "").await;
    assert_ne!(now_etag, then_etag, "parcel edits move the tileset to a new version");
    let mut now_ids = vec![a.clone(), b.clone()];
    now_ids.sort();
    assert_eq!(building_ids(&now_contents), now_ids);
    let asset: Value = s.get(&format!("/api/v1/realtime/twin/{id}/features/{a}"), &key).await.json().await.unwrap();
    assert_eq!(
        (asset["properties"]["zone"].as_str(), asset["height"].as_f64(), asset["version"].as_i64()),
        (Some("B4"), Some(40.0), Some(2))
    );

    // Back to then, paused: the parcels, their attributes and the tileset of that time.
    let clock = set_time(&s, &key, id, json!({"time": rfc3339(then), "playing": false})).await;
    assert_eq!(clock["mode"], "simulated");
    assert_eq!(clock["time"], rfc3339(then));
    assert_eq!(clock["playing"], false);
    let got: Value = s.get(&format!("/api/v1/realtime/twin/{id}/time"), &key).await.json().await.unwrap();
    assert_eq!(got["time"], rfc3339(then), "a paused clock stands still and persists");
    let asset: Value = s.get(&format!("/api/v1/realtime/twin/{id}/features/{a}"), &key).await.json().await.unwrap();
    assert_eq!(
        (asset["properties"]["zone"].as_str(), asset["height"].as_f64(), asset["version"].as_i64()),
        (Some("R2"), Some(12.0), Some(1))
    );
    assert_eq!(asset["as_of"], rfc3339(then));
    problem(s.get(&format!("/api/v1/realtime/twin/{id}/features/{b}"), &key).await, 404, "not_found").await;
    let retired: Value = s.get(&format!("/api/v1/realtime/twin/{id}/features/{c}"), &key).await.json().await.unwrap();
    assert_eq!(retired["id"], c.as_str());
    let (_, past_etag, past_contents) = fetch_tileset(&s, &key, id, "").await;
    assert_eq!(past_etag, then_etag, "the build of that time is found again");
    assert_eq!(building_ids(&past_contents), before);
    // `time` overrides the clock for one request.
    let (_, _, present) = fetch_tileset(&s, &key, id, "?time=now").await;
    assert_eq!(building_ids(&present), now_ids);

    // A clock that plays backwards keeps going back; `now` makes it live again.
    let running = set_time(&s, &key, id, json!({"rate": -3600, "playing": true})).await;
    assert_eq!(running["rate"], -3600.0);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let later: Value = s.get(&format!("/api/v1/realtime/twin/{id}/time"), &key).await.json().await.unwrap();
    let t0 = chrono::DateTime::parse_from_rfc3339(running["time"].as_str().unwrap()).unwrap();
    let t1 = chrono::DateTime::parse_from_rfc3339(later["time"].as_str().unwrap()).unwrap();
    assert!((t0 - t1).num_seconds() >= 300, "{t0} → {t1}");
    let live = set_time(&s, &key, id, json!({"time": "now"})).await;
    assert_eq!(live["mode"], "live");
    for (body, pointer) in [
        (json!({"time": "yesterday"}), "/time"),
        (json!({"rate": 1e9}), "/rate"),
        (json!({"playing": "yes"}), "/playing"),
        (json!({"speed": 2}), "/speed"),
    ] {
        let p =
            problem(post(&s, &key, &format!("/api/v1/realtime/twin/{id}/time"), body).await, 422, "validation_failed")
                .await;
        assert_eq!(p["errors"][0]["pointer"], pointer, "{p}");
    }
}

pub(crate) async fn sensor(s: &Server, key: &str, twin: &str, body: Value) -> reqwest::Response {
    post(s, key, &format!("/api/v1/realtime/twin/{twin}/sensors"), body).await
}

#[tokio::test]
async fn sensors_take_typed_readings_read_back_by_range_and_downsampled() {
    let s = Server::start_with(&[("MERIDIAN_TWIN__MAX_BATCH", "500")]);
    let (_, key) = s.signup("sensors@example.com").await;
    let pump = parcel(&s, &key, "9", square(151.2, -33.87, 0.0005), json!({})).await;
    let t = twin(&s, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap();
    let r = sensor(
        &s,
        &key,
        id,
        json!({"id": "flow", "name": "Flow", "unit": "l/s", "type": "number", "feature_id": pump}),
    )
    .await;
    assert_eq!(r.status(), 201);
    assert!(r.headers()["location"].to_str().unwrap().ends_with(&format!("/twin/{id}/sensors/flow")));
    for (sid, ty) in [("door", "boolean"), ("mode", "string"), ("state", "object")] {
        assert_eq!(sensor(&s, &key, id, json!({"id": sid, "type": ty})).await.status(), 201);
    }
    problem(sensor(&s, &key, id, json!({"id": "flow"})).await, 409, "sensor_exists").await;
    for (body, pointer) in [
        (json!({"id": "bad/id"}), "/id"),
        (json!({"id": "x", "type": "colour"}), "/type"),
        (json!({"id": "x", "feature_id": "parcel_nope"}), "/feature_id"),
        (json!({"id": "x", "unit": "u".repeat(40)}), "/unit"),
    ] {
        let p = problem(sensor(&s, &key, id, body.clone()).await, 422, "validation_failed").await;
        assert_eq!(p["errors"][0]["pointer"], pointer, "{body}: {p}");
    }

    // One reading, a batch for one sensor, a batch over sensors.
    let base = chrono::Utc::now() - chrono::Duration::minutes(10);
    let at = |s: i64| rfc3339(base + chrono::Duration::seconds(s));
    let r = post(
        &s,
        &key,
        &format!("/api/v1/realtime/twin/{id}/sensors/flow/readings"),
        json!({"value": 1.5, "ts": at(0)}),
    )
    .await;
    assert_eq!(r.status(), 202);
    assert_eq!(r.json::<Value>().await.unwrap()["accepted"], 1);
    let batch: Vec<Value> = (1..120).map(|i| json!({"value": i as f64, "ts": at(i)})).collect();
    let r =
        post(&s, &key, &format!("/api/v1/realtime/twin/{id}/sensors/flow/readings"), json!({"readings": batch})).await;
    assert_eq!(r.json::<Value>().await.unwrap()["accepted"], 119);
    let r = post(
        &s,
        &key,
        &format!("/api/v1/realtime/twin/{id}/readings"),
        json!({"readings": [
            {"sensorId": "door", "value": true, "ts": at(5)},
            {"sensorId": "door", "value": false, "ts": at(65)},
            {"sensorId": "mode", "value": "auto", "ts": at(7)},
            {"sensorId": "state", "value": {"valve": "open", "rpm": 1200}, "ts": at(8)},
        ]}),
    )
    .await;
    assert_eq!(r.status(), 202);

    // Every reading is checked, and a batch with one bad reading stores nothing.
    for (body, pointer) in [
        (
            json!({"readings": [{"sensorId": "flow", "value": 3, "ts": at(200)}, {"sensorId": "flow", "value": "hot"}]}),
            "/readings/1/value",
        ),
        (json!({"readings": [{"sensorId": "door", "value": 1}]}), "/readings/0/value"),
        (json!({"readings": [{"sensorId": "ghost", "value": 1}]}), "/readings/0/sensorId"),
        (json!({"readings": [{"sensorId": "flow", "value": 1, "ts": "tomorrow"}]}), "/readings/0/ts"),
        (
            json!({"readings": [{"sensorId": "flow", "value": 1, "ts": rfc3339(chrono::Utc::now() + chrono::Duration::hours(2))}]}),
            "/readings/0/ts",
        ),
        (
            json!({"readings": [{"sensorId": "state", "value": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": 1}}}}}}}}}}]}),
            "/readings/0/value",
        ),
        (json!({"readings": [{"sensorId": "mode", "value": "x".repeat(5000)}]}), "/readings/0/value"),
        (json!({"readings": [{"sensorId": "flow", "value": 1, "extra": 1}]}), "/readings/0/extra"),
        (json!({"readings": "many"}), "/readings"),
        (json!(42), ""),
    ] {
        let p = problem(
            post(&s, &key, &format!("/api/v1/realtime/twin/{id}/readings"), body.clone()).await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(p["errors"][0]["pointer"], pointer, "{body}: {p}");
    }
    let too_many: Vec<Value> = (0..501).map(|i| json!({"sensorId": "flow", "value": i})).collect();
    problem(
        post(&s, &key, &format!("/api/v1/realtime/twin/{id}/readings"), json!(too_many)).await,
        413,
        "payload_too_large",
    )
    .await;

    // Read back: a range, pages, and buckets.
    let path = format!("/api/v1/realtime/twin/{id}/sensors/flow/readings");
    let all: Value = s.get(&path, &key).await.json().await.unwrap();
    let list = all["readings"].as_array().unwrap();
    assert_eq!(list.len(), 120, "nothing of the refused batch was stored");
    assert_eq!(list[0], json!({"sensorId": "flow", "value": 1.5, "ts": at(0)}));
    let q = |p: &str| format!("{path}?{p}");
    let ranged: Value =
        s.get(&q(&format!("from={}&to={}", at(10).replace('+', "%2B"), at(19))), &key).await.json().await.unwrap();
    assert_eq!(ranged["readings"].as_array().unwrap().len(), 10);
    let r = s.get(&q("limit=50"), &key).await;
    assert!(r.headers()["link"].to_str().unwrap().contains("rel=\"next\""));
    let page: Value = r.json().await.unwrap();
    assert_eq!(page["readings"].as_array().unwrap().len(), 50);
    let next: Value = s.get(page["next"].as_str().unwrap(), &key).await.json().await.unwrap();
    assert_eq!(next["readings"][0]["ts"], at(50));
    let minute: Value = s.get(&q("interval=1m"), &key).await.json().await.unwrap();
    let buckets = minute["buckets"].as_array().unwrap();
    let total: i64 = buckets.iter().map(|b| b["count"].as_i64().unwrap()).sum();
    assert_eq!(total, 120);
    for b in buckets {
        let (lo, hi, mean) = (b["min"].as_f64().unwrap(), b["max"].as_f64().unwrap(), b["mean"].as_f64().unwrap());
        assert!(lo <= mean && mean <= hi, "{b}");
        let start = chrono::DateTime::parse_from_rfc3339(b["ts"].as_str().unwrap()).unwrap();
        assert_eq!(start.timestamp() % 60, 0, "buckets are aligned on minutes");
    }
    let door: Value = s
        .get(&format!("/api/v1/realtime/twin/{id}/sensors/door/readings?interval=PT1H"), &key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(door["buckets"].as_array().unwrap().iter().map(|b| b["count"].as_i64().unwrap()).sum::<i64>(), 2);
    for bad in ["interval=5x", "interval=0s", "limit=0", "from=yesterday", "colour=red"] {
        let r = s.get(&q(bad), &key).await;
        assert!(r.status() == 422 || r.status() == 400, "{bad}: {}", r.status());
    }

    // The asset shows its sensor with the latest reading, as of the clock (when the parcel
    // existed: it was registered at the start of this test).
    let t1 = chrono::Utc::now();
    tokio::time::sleep(Duration::from_millis(60)).await;
    let later = |ms: i64| rfc3339(t1 + chrono::Duration::milliseconds(ms));
    readings(&s, &key, id, json!([{"sensorId": "flow", "value": 500, "ts": later(10)}, {"sensorId": "flow", "value": 501, "ts": later(50)}])).await;
    let asset: Value = s.get(&format!("/api/v1/realtime/twin/{id}/features/{pump}"), &key).await.json().await.unwrap();
    assert_eq!(asset["sensors"][0]["id"], "flow");
    assert_eq!(asset["sensors"][0]["latest"], json!({"value": 501, "ts": later(50)}));
    set_time(&s, &key, id, json!({"time": later(30), "playing": false})).await;
    let asset: Value = s.get(&format!("/api/v1/realtime/twin/{id}/features/{pump}"), &key).await.json().await.unwrap();
    assert_eq!(asset["sensors"][0]["latest"], json!({"value": 500, "ts": later(10)}));
    set_time(&s, &key, id, json!({"time": at(30), "playing": false})).await;
    problem(s.get(&format!("/api/v1/realtime/twin/{id}/features/{pump}"), &key).await, 404, "not_found").await;
    let listed: Value = s.get(&format!("/api/v1/realtime/twin/{id}/sensors"), &key).await.json().await.unwrap();
    assert_eq!(listed["total"], 4);
    let flow = listed["sensors"].as_array().unwrap().iter().find(|x| x["id"] == "flow").unwrap();
    assert_eq!(flow["latest"], json!({"value": 30.0, "ts": at(30)}), "as of the clock");
    let door = listed["sensors"].as_array().unwrap().iter().find(|x| x["id"] == "door").unwrap();
    assert_eq!(door["latest"]["value"], true, "as of the clock, the door was still open");

    let r = s
        .client
        .delete(s.url(&format!("/api/v1/realtime/twin/{id}/sensors/mode")))
        .header("X-Api-Key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    problem(s.get(&format!("/api/v1/realtime/twin/{id}/sensors/mode"), &key).await, 404, "not_found").await;
}

/// A WebSocket to a twin with the API key in a header (and `query`).
pub(crate) async fn connect(
    s: &Server,
    key: Option<&str>,
    twin: &str,
    query: &str,
) -> Result<Socket, tokio_tungstenite::tungstenite::Error> {
    let url = format!("{}/api/v1/realtime/twin/{twin}{query}", s.base.replacen("http", "ws", 1));
    let mut req = url.into_client_request().unwrap();
    if let Some(k) = key {
        req.headers_mut().insert("x-api-key", k.parse().unwrap());
    }
    tokio_tungstenite::connect_async(req).await.map(|(ws, _)| ws)
}

/// The next JSON text frame (pings are answered by the client as it reads).
pub(crate) async fn next_json(ws: &mut Socket) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a message within 10 s");
        match m.expect("the socket is open").expect("a frame") {
            WsMessage::Text(t) => return serde_json::from_str(t.as_str()).unwrap(),
            WsMessage::Close(c) => return json!({"closed": c.map(|c| u16::from(c.code))}),
            _ => continue,
        }
    }
}

/// The next data message (`sensorId`), skipping notices.
async fn next_reading(ws: &mut Socket) -> Value {
    loop {
        let v = next_json(ws).await;
        if v.get("sensorId").is_some() || v.get("closed").is_some() {
            return v;
        }
    }
}

pub(crate) async fn readings(s: &Server, key: &str, twin: &str, list: Value) {
    let r = post(s, key, &format!("/api/v1/realtime/twin/{twin}/readings"), json!({"readings": list})).await;
    assert_eq!(r.status(), 202, "{}", r.text().await.unwrap());
}

#[tokio::test]
async fn the_websocket_streams_live_resumes_and_replays_at_the_clocks_rate() {
    let s = Server::start();
    let (_, key) = s.signup("ws@example.com").await;
    let t = twin(&s, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap().to_owned();
    for sid in ["t1", "t2"] {
        assert_eq!(sensor(&s, &key, &id, json!({"id": sid, "unit": "degC"})).await.status(), 201);
    }
    // Refused before the upgrade: no credentials, an API key in the URL, another tenant, not a WebSocket.
    assert!(connect(&s, None, &id, "").await.is_err());
    assert!(connect(&s, None, &id, &format!("?access_token={key}")).await.is_err());
    let (_, other) = s.signup("ws-other@example.com").await;
    match connect(&s, Some(&other), &id, "").await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 404),
        other => panic!("another tenant's twin must be refused: {:?}", other.map(|_| ())),
    }
    problem(s.get(&format!("/api/v1/realtime/twin/{id}"), &key).await, 426, "upgrade_required").await;

    // Live: readings posted over HTTP arrive as {sensorId, value, ts}.
    let mut ws = connect(&s, Some(&key), &id, "").await.unwrap();
    let hello = next_json(&mut ws).await;
    assert_eq!((hello["type"].as_str(), hello["twin"].as_str()), (Some("hello"), Some(id.as_str())));
    let now = chrono::Utc::now();
    readings(&s, &key, &id, json!([{"sensorId": "t1", "value": 21.5, "ts": rfc3339(now)}])).await;
    let m = next_reading(&mut ws).await;
    assert_eq!(m, json!({"sensorId": "t1", "value": 21.5, "ts": rfc3339(now)}));
    // A subscription filters sensors.
    ws.send(WsMessage::Text(json!({"type": "subscribe", "sensors": ["t2"]}).to_string().into())).await.unwrap();
    assert_eq!(next_json(&mut ws).await, json!({"type": "subscribed", "sensors": ["t2"]}));
    readings(&s, &key, &id, json!([{"sensorId": "t1", "value": 1}, {"sensorId": "t2", "value": 2}])).await;
    assert_eq!(next_reading(&mut ws).await["sensorId"], "t2");
    ws.send(WsMessage::Text("{\"type\": \"dance\"}".into())).await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "error");
    let last_seen = chrono::Utc::now();
    ws.close(None).await.unwrap();

    // Resume: what was posted while away comes first, then live readings; nothing twice.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let away: Vec<Value> = (0..5).map(|i| json!({"sensorId": "t1", "value": 100 + i, "ts": rfc3339(chrono::Utc::now() - chrono::Duration::milliseconds(10 - i))})).collect();
    readings(&s, &key, &id, json!(away)).await;
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
    let token = token["access_token"].as_str().unwrap();
    let since = rfc3339(last_seen).replace('+', "%2B");
    let mut ws = connect(&s, None, &id, &format!("?since={since}&sensors=t1&access_token={token}")).await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "hello");
    for i in 0..5 {
        assert_eq!(next_reading(&mut ws).await["value"], 100 + i);
    }
    readings(&s, &key, &id, json!([{"sensorId": "t1", "value": 999}])).await;
    assert_eq!(next_reading(&mut ws).await["value"], 999);

    // Back in time, paused: the state then. Playing at 60×: the stored readings in order.
    let base = chrono::Utc::now() - chrono::Duration::hours(1);
    let past: Vec<Value> = (0..6)
        .map(|i| json!({"sensorId": "t2", "value": i, "ts": rfc3339(base + chrono::Duration::seconds(i * 10))}))
        .collect();
    readings(&s, &key, &id, json!(past)).await;
    ws.send(WsMessage::Text(json!({"type": "subscribe", "sensors": null}).to_string().into())).await.unwrap();
    set_time(&s, &key, &id, json!({"time": rfc3339(base + chrono::Duration::seconds(25)), "playing": false})).await;
    let mut state = Vec::new();
    let clock = loop {
        let v = next_json(&mut ws).await;
        if v["type"] == "clock" {
            break v;
        }
    };
    assert_eq!(clock["clock"]["mode"], "simulated");
    state.push(next_reading(&mut ws).await);
    assert_eq!(state[0], json!({"sensorId": "t2", "value": 2, "ts": rfc3339(base + chrono::Duration::seconds(20))}));
    set_time(
        &s,
        &key,
        &id,
        json!({"time": rfc3339(base + chrono::Duration::seconds(25)), "playing": true, "rate": 60}),
    )
    .await;
    let started = Instant::now();
    let mut replayed = Vec::new();
    while replayed.len() < 3 {
        let v = next_reading(&mut ws).await;
        if v["ts"] != rfc3339(base + chrono::Duration::seconds(20)) {
            replayed.push(v["value"].as_i64().unwrap());
        }
    }
    assert_eq!(replayed, vec![3, 4, 5], "replayed in time order");
    assert!(started.elapsed() < Duration::from_secs(5), "at 60× the 30 s of readings take half a second");

    // Deleting the twin closes its sockets with 1000.
    set_time(&s, &key, &id, json!({"time": "now"})).await;
    let r =
        s.client.delete(s.url(&format!("/api/v1/realtime/twins/{id}"))).header("X-Api-Key", &key).send().await.unwrap();
    assert_eq!(r.status(), 204);
    loop {
        let v = next_json(&mut ws).await;
        if let Some(code) = v.get("closed") {
            assert_eq!(code, 1000);
            break;
        }
    }
}

#[tokio::test]
async fn a_slow_websocket_client_gets_a_gap_notice_and_the_latest_values() {
    let s = Server::start_with(&[("MERIDIAN_TWIN__WS_QUEUE", "16")]);
    let (_, key) = s.signup("slow@example.com").await;
    let t = twin(&s, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap().to_owned();
    let sensors: Vec<String> = (0..50).map(|i| format!("s{i:02}")).collect();
    for sid in &sensors {
        assert_eq!(sensor(&s, &key, &id, json!({"id": sid})).await.status(), 201);
    }
    let mut ws = connect(&s, Some(&key), &id, "").await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "hello");
    // The client does not read while 40,000 readings are ingested: far more than its queue and
    // the socket's buffers hold.
    let base = chrono::Utc::now() - chrono::Duration::minutes(5);
    for round in 0..40 {
        let batch: Vec<Value> = (0..1000)
            .map(|k| {
                let n = round * 1000 + k;
                json!({"sensorId": sensors[n % 50], "value": n, "ts": rfc3339(base + chrono::Duration::milliseconds(n as i64))})
            })
            .collect();
        readings(&s, &key, &id, json!(batch)).await;
    }
    let mut gap = None;
    let mut last: std::collections::HashMap<String, i64> = Default::default();
    let deadline = Instant::now() + Duration::from_secs(30);
    while last.len() < 50 || last.values().any(|&v| v < 39_950) {
        assert!(Instant::now() < deadline, "the latest values never arrived: {gap:?} {last:?}");
        let v = next_json(&mut ws).await;
        if v["type"] == "gap" {
            gap = Some(v.clone());
            continue;
        }
        if let Some(sid) = v["sensorId"].as_str() {
            let value = v["value"].as_i64().unwrap();
            if let Some(prev) = last.insert(sid.to_owned(), value) {
                assert!(
                    value >= prev,
                    "per sensor, readings arrive in time order (the latest may come again after a gap)"
                );
            }
        }
    }
    let gap = gap.expect("a gap notice");
    assert_eq!(gap["reason"], "slow_client");
    assert!(gap["dropped"].as_u64().unwrap() > 0, "{gap}");
}

#[tokio::test]
async fn readings_published_over_mqtt_are_stored_and_streamed() {
    const TEST: &str = "twin::readings_published_over_mqtt_are_stored_and_streamed";
    if !have_tool("mosquitto", TEST) {
        return;
    }
    let probe = tokio::net::TcpStream::connect("127.0.0.1:1883").await;
    if probe.is_err() {
        missing("a Mosquitto broker on 127.0.0.1:1883", TEST);
        return;
    }
    let prefix = format!("meridian-test-{}", std::process::id());
    let topic = format!("{prefix}/{{twin}}/{{sensor}}");
    let s = Server::start_with(&[
        ("MERIDIAN_TWIN__MQTT_URL", "mqtt://127.0.0.1:1883"),
        ("MERIDIAN_TWIN__MQTT_TOPIC", &topic),
    ]);
    let (_, key) = s.signup("mqtt@example.com").await;
    let t = twin(&s, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(sensor(&s, &key, &id, json!({"id": "level", "unit": "m"})).await.status(), 201);
    let mut ws = connect(&s, Some(&key), &id, "").await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "hello");

    let mut options = rumqttc::MqttOptions::new(format!("{prefix}-pub"), "127.0.0.1", 1883);
    options.set_keep_alive(Duration::from_secs(5));
    options.set_max_packet_size(1 << 20, 1 << 20);
    let (client, mut eventloop) = rumqttc::AsyncClient::new(options, 100);
    tokio::spawn(async move { while eventloop.poll().await.is_ok() {} });
    let ts = rfc3339(chrono::Utc::now());
    // A bad payload, an unknown sensor, an unknown twin: left out without holding up the rest.
    // The server subscribes shortly after it starts: publish until the good reading arrives.
    let deadline = Instant::now() + Duration::from_secs(20);
    let got = loop {
        client.publish(format!("{prefix}/{id}/level"), rumqttc::QoS::AtLeastOnce, false, "not json").await.unwrap();
        client.publish(format!("{prefix}/{id}/ghost"), rumqttc::QoS::AtLeastOnce, false, "1").await.unwrap();
        client.publish(format!("{prefix}/twin_nope/level"), rumqttc::QoS::AtLeastOnce, false, "1").await.unwrap();
        let payload = json!({"value": 3.25, "ts": ts}).to_string();
        client.publish(format!("{prefix}/{id}/level"), rumqttc::QoS::AtLeastOnce, false, payload).await.unwrap();
        match tokio::time::timeout(Duration::from_millis(500), next_reading(&mut ws)).await {
            Ok(v) => break v,
            Err(_) => assert!(Instant::now() < deadline, "no MQTT reading reached the WebSocket"),
        }
    };
    assert_eq!(got, json!({"sensorId": "level", "value": 3.25, "ts": ts}));
    client.publish(format!("{prefix}/{id}/level"), rumqttc::QoS::AtLeastOnce, false, "4.5").await.unwrap();
    assert_eq!(next_reading(&mut ws).await["value"], 4.5);
    let stored: Value =
        s.get(&format!("/api/v1/realtime/twin/{id}/sensors/level/readings"), &key).await.json().await.unwrap();
    let values: Vec<f64> =
        stored["readings"].as_array().unwrap().iter().map(|r| r["value"].as_f64().unwrap()).collect();
    assert!(values.contains(&3.25) && values.contains(&4.5), "{values:?}");
    assert!(values.iter().all(|v| *v == 3.25 || *v == 4.5), "only the good readings are stored: {values:?}");

    // A message larger than a value can be (20 KB) is skipped and counted; the connection stays,
    // so the readings right after it all arrive.
    let big = json!({"value": "x".repeat(20_000)}).to_string();
    client.publish(format!("{prefix}/{id}/level"), rumqttc::QoS::AtLeastOnce, false, big).await.unwrap();
    let base = chrono::Utc::now();
    for i in 0..14 {
        let payload = json!({"value": 100 + i, "ts": rfc3339(base + chrono::Duration::milliseconds(i))}).to_string();
        client.publish(format!("{prefix}/{id}/level"), rumqttc::QoS::AtLeastOnce, false, payload).await.unwrap();
    }
    let path = format!("/api/v1/realtime/twin/{id}/sensors/level/readings?from={}", rfc3339(base));
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let stored: Value = s.get(&path, &key).await.json().await.unwrap();
        let n = stored["readings"].as_array().unwrap().len();
        if n == 14 {
            break;
        }
        assert!(Instant::now() < deadline, "{n} of the 14 readings after the large message were stored");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let metrics = s.client.get(s.url("/metrics")).send().await.unwrap().text().await.unwrap();
    assert!(
        metrics.lines().any(|l| l.starts_with("meridian_twin_mqtt_messages_total") && l.contains("too_large")),
        "the skipped message is counted"
    );
}

/// 300 readings posted to one sensor at once without `ts`, each answered 202, are all stored:
/// stamps the server gives in the same millisecond take the next free one instead of replacing
/// each other, and a live client receives every one. A `ts` sent again replaces, and says so.
#[tokio::test]
async fn a_burst_of_server_stamped_readings_keeps_every_one() {
    let s = Server::start();
    let (_, key) = s.signup("burst@example.com").await;
    let t = twin(&s, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(sensor(&s, &key, &id, json!({"id": "count", "unit": "1"})).await.status(), 201);
    let mut ws = connect(&s, Some(&key), &id, "").await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "hello");
    let path = format!("/api/v1/realtime/twin/{id}/sensors/count/readings");
    let posts = (0..300).map(|i| {
        let (s, key, path) = (&s, &key, &path);
        async move {
            let r = post(s, key, path, json!({"value": i})).await;
            assert_eq!(r.status(), 202);
            let body: Value = r.json().await.unwrap();
            assert_eq!(body, json!({"accepted": 1, "replaced": 0}));
        }
    });
    futures::StreamExt::collect::<Vec<()>>(futures::StreamExt::buffer_unordered(futures::stream::iter(posts), 32))
        .await;
    let far = rfc3339(chrono::Utc::now() + chrono::Duration::minutes(4));
    let stored: Value = s.get(&format!("{path}?to={far}&limit=1000"), &key).await.json().await.unwrap();
    let mut values: Vec<i64> =
        stored["readings"].as_array().unwrap().iter().map(|r| r["value"].as_i64().unwrap()).collect();
    values.sort_unstable();
    assert_eq!(values, (0..300).collect::<Vec<_>>(), "every acknowledged reading is stored once");
    let mut live = Vec::new();
    while live.len() < 300 {
        let r = tokio::time::timeout(Duration::from_secs(10), next_reading(&mut ws)).await.expect("a live reading");
        live.push(r["value"].as_i64().unwrap());
    }
    live.sort_unstable();
    assert_eq!(live, (0..300).collect::<Vec<_>>(), "the live client receives every reading");
    // A client's own ts sent twice: idempotent, and the answer says it replaced.
    let ts = rfc3339(chrono::Utc::now() - chrono::Duration::minutes(1));
    let once: Value = post(&s, &key, &path, json!({"value": 1, "ts": ts})).await.json().await.unwrap();
    let again: Value = post(&s, &key, &path, json!({"value": 2, "ts": ts})).await.json().await.unwrap();
    assert_eq!((once["replaced"].as_u64(), again["replaced"].as_u64()), (Some(0), Some(1)));
}

/// The Python `websockets` client, as docs/twin.md shows it: connects with an access token in
/// the URL, prints the first reading it gets.
const PY_CLIENT: &str = r#"
import asyncio, json, sys, websockets
async def main(url):
    async with websockets.connect(url, open_timeout=10) as ws:
        hello = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert hello["type"] == "hello", hello
        print("ready", flush=True)
        while True:
            m = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if "sensorId" in m:
                print(json.dumps(m), flush=True)
                return
asyncio.run(main(sys.argv[1]))
"#;

#[tokio::test]
async fn python_websockets_receives_readings() {
    const TEST: &str = "twin::python_websockets_receives_readings";
    if !crate::have_python_module("python3", "websockets", TEST) {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("py-ws@example.com").await;
    let t = twin(&s, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(sensor(&s, &key, &id, json!({"id": "pressure", "unit": "kPa"})).await.status(), 201);
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
    let url = format!(
        "{}/api/v1/realtime/twin/{id}?access_token={}",
        s.base.replacen("http", "ws", 1),
        token["access_token"].as_str().unwrap()
    );
    let mut child = tokio::process::Command::new("python3")
        .args(["-c", PY_CLIENT, &url])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(20), tokio::io::AsyncBufReadExt::read_line(&mut out, &mut line))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(line.trim(), "ready");
    let ts = rfc3339(chrono::Utc::now());
    readings(&s, &key, &id, json!([{"sensorId": "pressure", "value": 101.3, "ts": ts}])).await;
    line.clear();
    tokio::time::timeout(Duration::from_secs(20), tokio::io::AsyncBufReadExt::read_line(&mut out, &mut line))
        .await
        .unwrap()
        .unwrap();
    let got: Value = serde_json::from_str(line.trim()).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    assert_eq!(got, json!({"sensorId": "pressure", "value": 101.3, "ts": ts}));
    let status = child.wait().await.unwrap();
    assert!(status.success());
}

#[tokio::test]
async fn readings_past_the_retention_are_removed_and_the_clock_persists() {
    let s = Server::start();
    let (_, key) = s.signup("retention@example.com").await;
    let t = twin(&s, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(sensor(&s, &key, &id, json!({"id": "rain", "unit": "mm"})).await.status(), 201);
    let old = rfc3339(chrono::Utc::now() - chrono::Duration::hours(3));
    let recent = rfc3339(chrono::Utc::now() - chrono::Duration::minutes(10));
    readings(
        &s,
        &key,
        &id,
        json!([{"sensorId": "rain", "value": 1, "ts": old}, {"sensorId": "rain", "value": 2, "ts": recent}]),
    )
    .await;
    set_time(&s, &key, &id, json!({"time": "2026-01-01T00:00:00Z", "playing": false})).await;
    // A binary frame is refused with 1003.
    let mut ws = connect(&s, Some(&key), &id, "").await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "hello");
    ws.send(WsMessage::Binary(vec![1, 2, 3].into())).await.unwrap();
    loop {
        let v = next_json(&mut ws).await;
        if let Some(code) = v.get("closed") {
            assert_eq!(code, 1003);
            break;
        }
    }
    // Restarted with a retention of one hour: the sweep at start removes the old reading.
    let dir = s.stop();
    let s = Server::start_in(dir, &[("MERIDIAN_TWIN__RETENTION", "1h")]);
    let clock: Value = s.get(&format!("/api/v1/realtime/twin/{id}/time"), &key).await.json().await.unwrap();
    assert_eq!((clock["time"].as_str(), clock["playing"].as_bool()), (Some("2026-01-01T00:00:00.000Z"), Some(false)));
    set_time(&s, &key, &id, json!({"time": "now"})).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got: Value =
            s.get(&format!("/api/v1/realtime/twin/{id}/sensors/rain/readings"), &key).await.json().await.unwrap();
        let values: Vec<i64> =
            got["readings"].as_array().unwrap().iter().map(|r| r["value"].as_i64().unwrap()).collect();
        if values == vec![2] {
            break;
        }
        assert!(Instant::now() < deadline, "the old reading was never removed: {values:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A client that breaks the protocol is told why in a close frame before the connection ends:
/// 1009 for a message over the limit (64 KiB), 1007 for text that is not UTF-8. Its socket stops
/// counting against the account's WebSockets once closed.
#[tokio::test]
async fn protocol_errors_close_with_a_code() {
    let s = Server::start_with(&[("MERIDIAN_TWIN__MAX_WS_PER_ACCOUNT", "1")]);
    let (_, key) = s.signup("ws-errors@example.com").await;
    let t = twin(&s, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap().to_owned();
    let mut ws = connect(&s, Some(&key), &id, "").await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "hello");
    ws.send(WsMessage::Text("x".repeat(1 << 20).into())).await.unwrap();
    let closed = loop {
        let v = next_json(&mut ws).await;
        if v.get("closed").is_some() {
            break v;
        }
    };
    assert_eq!(closed["closed"], 1009, "{closed}");
    drop(ws);
    // The only socket the account may hold was given back: a new one is accepted.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut ws = loop {
        match connect(&s, Some(&key), &id, "").await {
            Ok(ws) => break ws,
            Err(e) => {
                assert!(Instant::now() < deadline, "the closed socket is still counted: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    assert_eq!(next_json(&mut ws).await["type"], "hello");
}

/// Readings published while the server is down are not lost: the MQTT session is kept by the
/// broker under the installation's client id, and what was queued arrives when the server is
/// back (QoS 1, acknowledged only once stored).
#[tokio::test]
async fn mqtt_readings_published_while_the_server_is_down_arrive_after_it_restarts() {
    const TEST: &str = "twin::mqtt_readings_published_while_the_server_is_down_arrive_after_it_restarts";
    if !have_tool("mosquitto", TEST) {
        return;
    }
    if tokio::net::TcpStream::connect("127.0.0.1:1883").await.is_err() {
        missing("a Mosquitto broker on 127.0.0.1:1883", TEST);
        return;
    }
    let prefix = format!("meridian-down-{}", std::process::id());
    let topic = format!("{prefix}/{{twin}}/{{sensor}}");
    // The node's name, which its MQTT session is named after on a shared store, stays across the
    // restart (its HTTP port is picked at start).
    let env = [
        ("MERIDIAN_TWIN__MQTT_URL", "mqtt://127.0.0.1:1883"),
        ("MERIDIAN_TWIN__MQTT_TOPIC", topic.as_str()),
        ("MERIDIAN_SERVER__NODE_NAME", prefix.as_str()),
    ];
    let s = Server::start_with(&env);
    let (_, key) = s.signup("mqtt-down@example.com").await;
    let t = twin(&s, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(sensor(&s, &key, &id, json!({"id": "flow", "unit": "l/s"})).await.status(), 201);

    let mut options = rumqttc::MqttOptions::new(format!("{prefix}-pub"), "127.0.0.1", 1883);
    options.set_keep_alive(Duration::from_secs(5));
    let (client, mut eventloop) = rumqttc::AsyncClient::new(options, 100);
    tokio::spawn(async move { while eventloop.poll().await.is_ok() {} });
    let path = format!("/api/v1/realtime/twin/{id}/sensors/flow/readings?limit=1000");
    // The server's subscription is in place once a first reading arrives.
    let first = rfc3339(chrono::Utc::now() - chrono::Duration::seconds(30));
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let payload = json!({"value": -1, "ts": first}).to_string();
        client.publish(format!("{prefix}/{id}/flow"), rumqttc::QoS::AtLeastOnce, false, payload).await.unwrap();
        let stored: Value = s.get(&path, &key).await.json().await.unwrap();
        if !stored["readings"].as_array().unwrap().is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "the MQTT ingest never stored a reading");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let dir = s.stop();
    // Published while no server runs: the broker keeps them for the session.
    let base = chrono::Utc::now() - chrono::Duration::seconds(10);
    for i in 0..20 {
        let payload = json!({"value": i, "ts": rfc3339(base + chrono::Duration::milliseconds(i))}).to_string();
        client.publish(format!("{prefix}/{id}/flow"), rumqttc::QoS::AtLeastOnce, false, payload).await.unwrap();
    }
    let s = Server::start_in(dir, &env);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let stored: Value = s.get(&path, &key).await.json().await.unwrap();
        let n = stored["readings"].as_array().unwrap().iter().filter(|r| r["value"].as_i64() >= Some(0)).count();
        if n == 20 {
            break;
        }
        assert!(Instant::now() < deadline, "{n} of the 20 readings published while the server was down arrived");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
