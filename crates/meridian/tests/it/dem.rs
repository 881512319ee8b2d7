//! The DEM service through the real binary: a multipart upload of the swissALTI3D tile, the job
//! polled to success, outputs downloaded and read back with the engine (and `gdalinfo`), contours
//! as GeoJSON, terrain tiles decoded as PNG, validation before queueing, the upload limit,
//! cancellation, tenant isolation, and `dem.job.succeeded` delivered by webhook.

use crate::{have_tool, problem, Server};
use meridian_raster::tiff::GeoTiff;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

// The webhooks tests' receiver, private to their module; the DEM and EO tests share this copy.
#[allow(clippy::duplicate_mod)]
#[path = "../../../webhooks/tests/it/receiver.rs"]
pub(crate) mod receiver;

/// The swissALTI3D tile shipped with the raster engine's tests (© swisstopo; see its README).
fn dem_bytes() -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../raster/tests/data/swissalti3d-2573-1085.tif");
    std::fs::read(p).unwrap()
}

impl Server {
    async fn upload(&self, key: &str, file: Vec<u8>, file_name: &str, params: Value) -> reqwest::Response {
        let form = reqwest::multipart::Form::new()
            .part("file", reqwest::multipart::Part::bytes(file).file_name(file_name.to_owned()))
            .text("params", params.to_string());
        self.client.post(self.url("/api/v1/dem/process")).bearer_auth(key).multipart(form).send().await.unwrap()
    }

    async fn process_json(&self, key: &str, body: Value) -> reqwest::Response {
        self.client.post(self.url("/api/v1/dem/process")).bearer_auth(key).json(&body).send().await.unwrap()
    }

    /// Polls a DEM job until `done` holds for it.
    async fn wait_job(&self, key: &str, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let job: Value = self.get(&format!("/api/v1/dem/jobs/{id}"), key).await.json().await.unwrap();
            if done(&job) {
                return job;
            }
            assert!(job["status"] != "failed", "job {id} failed: {job}");
            assert!(Instant::now() < deadline, "job {id} never became {what}: {job}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn dem_job_count(&self, key: &str) -> u64 {
        let list: Value = self.get("/api/v1/dem/jobs", key).await.json().await.unwrap();
        list["total"].as_u64().unwrap()
    }
}

/// The WebMercatorQuad tile holding a longitude/latitude.
fn tile_of(lon: f64, lat: f64, z: u8) -> (u32, u32) {
    let n = (1u64 << z) as f64;
    let x = ((lon + 180.0) / 360.0 * n).floor() as u32;
    let lat = lat.to_radians();
    let y = ((1.0 - (lat.tan() + 1.0 / lat.cos()).ln() / std::f64::consts::PI) / 2.0 * n).floor() as u32;
    (x, y)
}

/// Decodes an RGBA PNG: (width, height, pixels).
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

fn webhook_env() -> [(&'static str, &'static str); 2] {
    [("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true"), ("MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "true")]
}

#[tokio::test]
async fn dem_upload_process_download_and_tiles() {
    let rx = receiver::Receiver::http().await;
    let s = Server::start_with(&webhook_env());
    let (_, key) = s.signup("dem@example.com").await;
    let r = s
        .client
        .post(s.url("/api/v1/webhooks/subscriptions"))
        .bearer_auth(&key)
        .json(&json!({"url": rx.url, "events": ["dem.*"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);

    let params = json!({"operations": [
        {"type": "hillshade"},
        {"type": "contours", "interval": 10},
        {"type": "slope"},
        {"type": "color-relief", "ramp": "terrain", "alpha": true},
    ]});
    let r = s.upload(&key, dem_bytes(), "swissalti3d-2573-1085.tif", params).await;
    assert_eq!(r.status(), 202);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    let queued: Value = r.json().await.unwrap();
    let id = queued["id"].as_str().unwrap().to_owned();
    assert_eq!(location, format!("/api/v1/dem/jobs/{id}"));
    assert_eq!(queued["status"], "queued");
    assert_eq!(queued["operations"][0]["azimuth"], 315.0, "defaults are gdaldem's");
    let dataset = queued["source"]["dataset_id"].as_str().unwrap().to_owned();

    let job = s.wait_job(&key, &id, "succeeded", |j| j["status"] == "succeeded").await;
    assert_eq!(job["progress"], 100);
    assert!(job["started_at"].is_string() && job["finished_at"].is_string());
    assert!(job["error"].is_null());
    let outputs = job["outputs"].as_array().unwrap();
    let ops: Vec<&str> = outputs.iter().map(|o| o["operation"].as_str().unwrap()).collect();
    assert_eq!(ops, ["hillshade", "contours", "slope", "color-relief"]);

    // The hillshade output: a COG the engine reads back, whose values match the statistics.
    let hs = &outputs[0];
    assert_eq!(hs["media_type"], "image/tiff; application=geotiff; profile=cloud-optimized");
    let href = hs["href"].as_str().unwrap();
    assert!(href.ends_with(&format!("/api/v1/dem/jobs/{id}/outputs/hillshade.tif")), "{href}");
    let r = s.client.get(href).bearer_auth(&key).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let bytes = r.bytes().await.unwrap().to_vec();
    assert_eq!(bytes.len() as u64, hs["size"].as_u64().unwrap());
    let tif = GeoTiff::from_bytes(bytes.clone()).unwrap();
    assert_eq!((tif.width(), tif.height(), tif.bands()), (400, 400, 1));
    assert_eq!(tif.epsg(), Some(2056));
    assert_eq!(tif.nodata(), Some(0.0));
    assert!(tif.image().tiled);
    let band = tif.read_band::<u8>(0).unwrap();
    let valid: Vec<f64> = band.data.iter().filter(|v| **v != 0).map(|v| *v as f64).collect();
    let stats = &hs["statistics"];
    assert_eq!(stats["count"].as_u64().unwrap(), valid.len() as u64);
    assert_eq!(stats["min"].as_f64().unwrap(), valid.iter().cloned().fold(f64::INFINITY, f64::min));
    assert_eq!(stats["max"].as_f64().unwrap(), valid.iter().cloned().fold(f64::NEG_INFINITY, f64::max));
    let mean = valid.iter().sum::<f64>() / valid.len() as f64;
    assert!((stats["mean"].as_f64().unwrap() - mean).abs() < 1e-6);
    // gdaldem leaves the outer ring as nodata: so does the service.
    assert_eq!(band.get(0, 0), 0);
    assert_eq!(valid.len(), 398 * 398);
    if have_tool("gdalinfo", "dem_upload_process_download_and_tiles (gdalinfo)") {
        let path = s.dir.path().join("hillshade-download.tif");
        std::fs::write(&path, &bytes).unwrap();
        let out = std::process::Command::new("gdalinfo").arg("-json").arg(&path).output().unwrap();
        assert!(out.status.success());
        let info: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(info["size"], json!([400, 400]));
        assert_eq!(info["bands"][0]["type"], "Byte");
        assert_eq!(info["bands"][0]["noDataValue"], 0.0);
        assert!(info["coordinateSystem"]["wkt"].as_str().unwrap().contains("\"EPSG\",2056"));
    }
    // Ranged reads (GDAL's /vsicurl/ reads COGs this way) and conditional downloads.
    let r = s.client.get(href).bearer_auth(&key).header("range", "bytes=0-15").send().await.unwrap();
    assert_eq!(r.status(), 206);
    assert_eq!(r.headers()["content-range"], format!("bytes 0-15/{}", bytes.len()).as_str());
    assert_eq!(r.bytes().await.unwrap().to_vec(), bytes[..16].to_vec());
    let etag = s.client.get(href).bearer_auth(&key).send().await.unwrap().headers()["etag"].clone();
    let r = s.client.get(href).bearer_auth(&key).header("if-none-match", etag).send().await.unwrap();
    assert_eq!(r.status(), 304);

    // Contours: GeoJSON lines at multiples of 10 m with an elevation property.
    let contours = &outputs[1];
    assert_eq!(contours["media_type"], "application/geo+json");
    let r = s.client.get(contours["href"].as_str().unwrap()).bearer_auth(&key).send().await.unwrap();
    let fc: Value = r.json().await.unwrap();
    assert_eq!(fc["type"], "FeatureCollection");
    assert_eq!(fc["crs"]["properties"]["name"], "urn:ogc:def:crs:EPSG::2056");
    let features = fc["features"].as_array().unwrap();
    assert_eq!(features.len() as u64, contours["statistics"]["count"].as_u64().unwrap());
    assert!(features.len() > 30, "{}", features.len());
    for f in features {
        let e = f["properties"]["elevation"].as_f64().unwrap();
        assert!((1615.0..=2016.0).contains(&e) && e % 10.0 == 0.0, "{e}");
        assert_eq!(f["geometry"]["type"], "LineString");
        let first = &f["geometry"]["coordinates"][0];
        let (x, y) = (first[0].as_f64().unwrap(), first[1].as_f64().unwrap());
        assert!((2_573_000.0..=2_574_000.0).contains(&x) && (1_085_000.0..=1_086_000.0).contains(&y));
    }
    let slope = &outputs[2]["statistics"];
    assert!(slope["min"].as_f64().unwrap() >= 0.0 && slope["max"].as_f64().unwrap() <= 90.0);
    assert!(outputs[3]["statistics"].is_null(), "a colour relief's bands are colours");

    // Tiles: the tile holding the DEM's north-west corner shows data and transparency.
    let layer = job["tiles"].as_array().unwrap().iter().find(|t| t["layer"] == "hillshade").unwrap().clone();
    let b: Vec<f64> = layer["bounds"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let (minzoom, maxzoom) = (layer["minzoom"].as_u64().unwrap() as u8, layer["maxzoom"].as_u64().unwrap() as u8);
    assert!(minzoom <= 16 && 16 <= maxzoom, "{layer}");
    let template = layer["template"].as_str().unwrap();
    let (x, y) = tile_of(b[0] + 1e-6, b[3] - 1e-6, 16);
    let url = template.replace("{z}", "16").replace("{x}", &x.to_string()).replace("{y}", &y.to_string());
    let r = s.client.get(&url).bearer_auth(&key).send().await.unwrap();
    assert_eq!(r.status(), 200, "{url}");
    assert_eq!(r.headers()["content-type"], "image/png");
    assert!(r.headers()["cache-control"].to_str().unwrap().contains("max-age="));
    let etag = r.headers()["etag"].clone();
    let (w, h, px) = decode_png(&r.bytes().await.unwrap());
    assert_eq!((w, h), (256, 256));
    let opaque = px.chunks_exact(4).filter(|p| p[3] == 255).count();
    let clear = px.chunks_exact(4).filter(|p| p[3] == 0).count();
    assert!(opaque > 1000 && clear > 1000, "{opaque} opaque, {clear} transparent");
    assert!(px.chunks_exact(4).filter(|p| p[3] == 255).all(|p| p[0] == p[1] && p[1] == p[2]), "hillshade is grey");
    let r = s.client.get(&url).bearer_auth(&key).header("if-none-match", etag.clone()).send().await.unwrap();
    assert_eq!(r.status(), 304);
    assert!(r.bytes().await.unwrap().is_empty());
    // The same tile again (from the tile cache) is the same bytes.
    let r = s.client.get(&url).bearer_auth(&key).send().await.unwrap();
    assert_eq!(r.headers()["etag"], etag);
    let retina = url.replace(".png?", "@2x.png?");
    let (w, h, _) = decode_png(&s.client.get(&retina).bearer_auth(&key).send().await.unwrap().bytes().await.unwrap());
    assert_eq!((w, h), (512, 512));

    // Terrain-RGB from the source DEM decodes to the DEM's heights.
    let (cx, cy) = tile_of((b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0, 15);
    let url = format!("/api/v1/dem/tiles/15/{cx}/{cy}.png?job={id}&style=terrain-rgb");
    let r = s.get(&url, &key).await;
    assert_eq!(r.status(), 200);
    let (_, _, px) = decode_png(&r.bytes().await.unwrap());
    let heights: Vec<f64> = px
        .chunks_exact(4)
        .filter(|p| p[3] == 255)
        .map(|p| -10_000.0 + (p[0] as f64 * 65_536.0 + p[1] as f64 * 256.0 + p[2] as f64) * 0.1)
        .collect();
    assert!(heights.len() > 10_000);
    assert!(heights.iter().all(|h| (1615.0..=2016.0).contains(h)));
    for q in
        ["layer=slope", "layer=color-relief", "style=hillshade", "style=terrarium", "style=color-relief&ramp=viridis"]
    {
        let r = s.get(&format!("/api/v1/dem/tiles/15/{cx}/{cy}.png?job={id}&{q}"), &key).await;
        assert_eq!(r.status(), 200, "{q}");
        let (_, _, px) = decode_png(&r.bytes().await.unwrap());
        assert!(px.chunks_exact(4).any(|p| p[3] == 255), "{q}");
    }

    // Outside the data or the zoom range: 404; bad parameters: 422.
    let far = s.get(&format!("/api/v1/dem/tiles/16/0/0.png?job={id}&layer=hillshade"), &key).await;
    problem(far, 404, "not_found").await;
    let deep = s.get(&format!("/api/v1/dem/tiles/{}/{x}/{y}.png?job={id}&layer=hillshade", maxzoom + 1), &key).await;
    problem(deep, 404, "not_found").await;
    let shallow = s.get(&format!("/api/v1/dem/tiles/{}/0/0.png?job={id}&layer=hillshade", minzoom - 1), &key).await;
    problem(shallow, 404, "not_found").await;
    let outside = s.get(&format!("/api/v1/dem/tiles/2/9/0.png?job={id}&layer=hillshade"), &key).await;
    problem(outside, 404, "not_found").await;
    let missing = s.get(&format!("/api/v1/dem/tiles/15/{cx}/{cy}.png?job={id}&layer=aspect"), &key).await;
    problem(missing, 404, "not_found").await;
    for (q, pointer) in [
        (format!("job={id}&style=sepia"), "/style"),
        (format!("job={id}&layer=sharpen"), "/layer"),
        (format!("job={id}&layer=contours"), "/layer"),
        (format!("job={id}"), "/layer"),
        (format!("job={id}&layer=hillshade&style=hillshade"), "/style"),
        (format!("job={id}&style=color-relief&ramp=rainbow"), "/ramp"),
        ("layer=hillshade".to_owned(), "/job"),
    ] {
        let r = s.get(&format!("/api/v1/dem/tiles/15/{cx}/{cy}.png?{q}"), &key).await;
        let p = problem(r, 422, "validation_failed").await;
        assert_eq!(p["errors"][0]["pointer"], pointer, "{q}");
    }
    let jpeg = s.get(&format!("/api/v1/dem/tiles/15/{cx}/{cy}.jpg?job={id}&layer=hillshade"), &key).await;
    assert_eq!(problem(jpeg, 422, "validation_failed").await["errors"][0]["pointer"], "/y");
    let letters = s.get(&format!("/api/v1/dem/tiles/z/{cx}/{cy}.png?job={id}&layer=hillshade"), &key).await;
    assert_eq!(problem(letters, 422, "validation_failed").await["errors"][0]["pointer"], "/z");

    // An earlier result and an earlier upload as the source of new jobs.
    let r = s
        .process_json(
            &key,
            json!({"source": {"job_id": id, "operation": "slope"}, "params": {"operations": [{"type": "roughness"}]}}),
        )
        .await;
    assert_eq!(r.status(), 202);
    let chained: Value = r.json().await.unwrap();
    let r = s
        .process_json(&key, json!({"source": {"dataset_id": dataset}, "params": {"operations": [{"type": "tpi"}]}}))
        .await;
    assert_eq!(r.status(), 202);
    let again: Value = r.json().await.unwrap();
    for j in [&chained, &again] {
        let done = s.wait_job(&key, j["id"].as_str().unwrap(), "succeeded", |j| j["status"] == "succeeded").await;
        assert_eq!(done["outputs"].as_array().unwrap().len(), 1);
    }
    let ds: Value = s.get(&format!("/api/v1/dem/datasets/{dataset}"), &key).await.json().await.unwrap();
    assert_eq!((ds["width"].as_u64(), ds["epsg"].as_u64()), (Some(400), Some(2056)));
    assert_eq!(ds["filename"], "swissalti3d-2573-1085.tif");

    // The outbox: dem.job.succeeded reached the subscriber, with links to the outputs.
    let got = rx
        .wait_until(60, "dem.job.succeeded", |r| {
            r.iter().any(|m| m.json()["event"] == "dem.job.succeeded" && m.json()["job"]["id"] == id.as_str())
        })
        .await;
    let event = got.iter().map(|m| m.json()).find(|e| e["job"]["id"] == id.as_str()).unwrap();
    assert_eq!(event["job"]["status"], "succeeded");
    let hrefs: Vec<&str> =
        event["job"]["outputs"].as_array().unwrap().iter().map(|o| o["href"].as_str().unwrap()).collect();
    // Absolute, as the API's own links are (no `server.public_url`: the address it was sent to).
    assert_eq!(hrefs[0], s.url(&format!("/api/v1/dem/jobs/{id}/outputs/hillshade.tif")), "{hrefs:?}");
    assert!(event["job"]["outputs"][0]["statistics"]["mean"].is_number());
}

#[tokio::test]
async fn dem_bad_input_is_refused_before_any_job_is_queued() {
    let s = Server::start();
    let (account, key) = s.signup("bad-dem@example.com").await;
    let ok = json!({"operations": [{"type": "hillshade"}]});
    let cases: Vec<(Vec<u8>, Value, &str, &str)> = vec![
        (b"elevation\n1600\n1700\n".to_vec(), ok.clone(), "/file", "not_a_geotiff"),
        (dem_bytes(), json!({"operations": [{"type": "sharpen"}]}), "/params/operations/0/type", "unknown_operation"),
        (
            dem_bytes(),
            json!({"operations": [{"type": "hillshade", "azimuth": 400}]}),
            "/params/operations/0/azimuth",
            "invalid_option",
        ),
        (
            dem_bytes(),
            json!({"operations": [{"type": "slope", "format": "radians"}]}),
            "/params/operations/0/format",
            "invalid_option",
        ),
        (
            dem_bytes(),
            json!({"operations": [{"type": "tri", "size": 5}]}),
            "/params/operations/0/size",
            "unknown_option",
        ),
        (
            dem_bytes(),
            json!({"operations": [{"type": "contours", "interval": 0}]}),
            "/params/operations/0/interval",
            "invalid_option",
        ),
        (dem_bytes(), json!({"operations": []}), "/params/operations", "required"),
        // 0.0001 m over the tile's 400 m of relief: four million levels, past dem.max_contour_levels.
        (
            dem_bytes(),
            json!({"operations": [{"type": "hillshade"}, {"type": "contours", "interval": 0.0001}]}),
            "/params/operations/1/interval",
            "too_many_levels",
        ),
    ];
    for (file, params, pointer, code) in cases {
        let r = s.upload(&key, file, "upload.tif", params.clone()).await;
        let p = problem(r, 422, "validation_failed").await;
        assert!(
            p["errors"].as_array().unwrap().iter().any(|e| e["pointer"] == pointer && e["code"] == code),
            "{params}: {p}"
        );
    }
    // Both mistakes at once are both reported.
    let r = s.upload(&key, b"not a tiff".to_vec(), "x.tif", json!({"operations": [{"type": "sharpen"}]})).await;
    let p = problem(r, 422, "validation_failed").await;
    assert_eq!(p["errors"].as_array().unwrap().len(), 2, "{p}");
    // A missing part, an extra part, malformed params, another media type.
    let form = reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(dem_bytes()));
    let r = s.client.post(s.url("/api/v1/dem/process")).bearer_auth(&key).multipart(form).send().await.unwrap();
    assert_eq!(problem(r, 422, "validation_failed").await["errors"][0]["pointer"], "/params");
    let form = reqwest::multipart::Form::new().text("params", ok.to_string()).text("colour", "blue");
    let r = s.client.post(s.url("/api/v1/dem/process")).bearer_auth(&key).multipart(form).send().await.unwrap();
    assert_eq!(problem(r, 422, "validation_failed").await["errors"][0]["pointer"], "/colour");
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(dem_bytes()))
        .text("params", "{\"operations\": [");
    let r = s.client.post(s.url("/api/v1/dem/process")).bearer_auth(&key).multipart(form).send().await.unwrap();
    problem(r, 400, "malformed_request").await;
    let r = s
        .client
        .post(s.url("/api/v1/dem/process"))
        .bearer_auth(&key)
        .header("content-type", "image/tiff")
        .body(dem_bytes())
        .send()
        .await
        .unwrap();
    problem(r, 415, "unsupported_media_type").await;
    // JSON requests: unknown sources and fields.
    for (body, pointer) in [
        (json!({"source": {"dataset_id": "dataset_01m80pxqn5wq755fvheh5647jw"}, "params": ok}), "/source/dataset_id"),
        (
            json!({"source": {"job_id": "job_01m80pxqn5wq755fvheh5647jw", "operation": "hillshade"}, "params": ok}),
            "/source/job_id",
        ),
        (json!({"source": {}, "params": ok}), "/source"),
        (json!({"params": ok}), "/source"),
        (json!({"source": {"dataset_id": "dataset_x"}, "params": ok, "priority": 1}), "/priority"),
    ] {
        let r = s.process_json(&key, body.clone()).await;
        let p = problem(r, 422, "validation_failed").await;
        assert!(p["errors"].as_array().unwrap().iter().any(|e| e["pointer"] == pointer), "{body}: {p}");
    }
    // Nothing was queued and nothing was stored.
    assert_eq!(s.dem_job_count(&key).await, 0);
    let all: Value = s.get("/api/v1/jobs", &key).await.json().await.unwrap();
    assert_eq!(all["total"], 0);
    let stored = s.blob_keys(&format!("{account}/dem/datasets/")).await;
    assert!(stored.is_empty(), "no dataset may be left behind: {stored:?}");
}

#[tokio::test]
async fn dem_upload_over_the_limit_is_413() {
    let s = Server::start_with(&[("MERIDIAN_LIMITS__UPLOAD_BYTES", "100000")]);
    let (_, key) = s.signup("big-dem@example.com").await;
    let dem = dem_bytes();
    assert!(dem.len() > 100_000);
    let r = s.upload(&key, dem, "big.tif", json!({"operations": [{"type": "hillshade"}]})).await;
    let p = problem(r, 413, "payload_too_large").await;
    assert!(p["detail"].as_str().unwrap().contains("100000"), "{p}");
    assert_eq!(s.dem_job_count(&key).await, 0);
    // A small upload under the limit still goes through the same route.
    let r = s.upload(&key, b"tiny".to_vec(), "tiny.tif", json!({"operations": [{"type": "hillshade"}]})).await;
    problem(r, 422, "validation_failed").await;
}

#[tokio::test]
async fn dem_jobs_cancel_and_stay_with_their_tenant() {
    // No workers: jobs stay queued until cancelled.
    let s = Server::start_with(&[("MERIDIAN_SERVER__ROLES__WORKERS", "false")]);
    let (_, a) = s.signup("a-dem@example.com").await;
    let (_, b) = s.signup("b-dem@example.com").await;
    let r = s.upload(&a, dem_bytes(), "a.tif", json!({"operations": [{"type": "hillshade"}]})).await;
    assert_eq!(r.status(), 202);
    let job: Value = r.json().await.unwrap();
    let id = job["id"].as_str().unwrap();
    let dataset = job["source"]["dataset_id"].as_str().unwrap();

    // Styles of the source DEM are drawn at once; output layers once the job succeeded.
    let b0: Vec<f64> = job["tiles"][0]["bounds"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let (x, y) = tile_of((b0[0] + b0[2]) / 2.0, (b0[1] + b0[3]) / 2.0, 15);
    let r = s.get(&format!("/api/v1/dem/tiles/15/{x}/{y}.png?job={id}&style=hillshade"), &a).await;
    assert_eq!(r.status(), 200);
    let r = s.get(&format!("/api/v1/dem/tiles/15/{x}/{y}.png?job={id}&layer=hillshade"), &a).await;
    problem(r, 409, "job_not_succeeded").await;
    let r = s.get(&format!("/api/v1/dem/jobs/{id}/outputs/hillshade.tif"), &a).await;
    problem(r, 409, "job_not_succeeded").await;

    // Another account sees none of it.
    for path in [
        format!("/api/v1/dem/jobs/{id}"),
        format!("/api/v1/dem/jobs/{id}/outputs/hillshade.tif"),
        format!("/api/v1/dem/tiles/15/{x}/{y}.png?job={id}&style=hillshade"),
        format!("/api/v1/dem/datasets/{dataset}"),
    ] {
        problem(s.get(&path, &b).await, 404, "not_found").await;
    }
    let r = s.client.delete(s.url(&format!("/api/v1/dem/jobs/{id}"))).bearer_auth(&b).send().await.unwrap();
    problem(r, 404, "not_found").await;
    let r = s
        .process_json(&b, json!({"source": {"dataset_id": dataset}, "params": {"operations": [{"type": "tpi"}]}}))
        .await;
    assert_eq!(problem(r, 422, "validation_failed").await["errors"][0]["pointer"], "/source/dataset_id");
    assert_eq!(s.dem_job_count(&b).await, 0);
    let list: Value = s.get("/api/v1/dem/jobs", &b).await.json().await.unwrap();
    assert_eq!(list["jobs"], json!([]));

    // The owner cancels: a queued job is cancelled at once, and cancelling twice is a conflict.
    let r = s.client.delete(s.url(&format!("/api/v1/dem/jobs/{id}"))).bearer_auth(&a).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let cancelled: Value = r.json().await.unwrap();
    assert_eq!(cancelled["status"], "cancelled");
    let job: Value = s.get(&format!("/api/v1/dem/jobs/{id}"), &a).await.json().await.unwrap();
    assert_eq!(job["status"], "cancelled");
    assert!(job["finished_at"].is_string());
    let r = s.client.delete(s.url(&format!("/api/v1/dem/jobs/{id}"))).bearer_auth(&a).send().await.unwrap();
    problem(r, 409, "job_finished").await;
}

/// A smooth synthetic DEM (EPSG:2056) large enough that a job runs for a while.
pub(crate) fn synthetic_dem(dir: &std::path::Path, n: usize) -> Vec<u8> {
    use meridian_raster::tiff::{GeoInfo, TiffWriter, WriterOptions};
    let path = dir.join("synthetic.tif");
    let options = WriterOptions {
        geo: Some(GeoInfo {
            geo_transform: meridian_raster::GeoTransform::north_up(2_600_000.0, 1_200_000.0, 2.0, -2.0),
            epsg: Some(2056),
            geographic: false,
        }),
        predictor: true,
        ..WriterOptions::default()
    };
    let mut w = TiffWriter::create::<f32>(&path, n, n, 1, options).unwrap();
    for r in 0..n {
        let row: Vec<f32> = (0..n)
            .map(|c| 1000.0 + 200.0 * ((r as f32 / 97.0).sin() * (c as f32 / 131.0).cos()) + (c as f32) * 0.05)
            .collect();
        w.write_rows(&row).unwrap();
    }
    w.finish().unwrap();
    std::fs::read(path).unwrap()
}

#[tokio::test]
async fn dem_running_job_is_cancelled() {
    let s = Server::start_with(&[
        ("MERIDIAN_JOBS__HEARTBEAT", "100ms"),
        ("MERIDIAN_JOBS__LEASE", "2s"),
        ("MERIDIAN_JOBS__WORKERS", "1"),
    ]);
    let (_, key) = s.signup("cancel-dem@example.com").await;
    let dem = synthetic_dem(s.dir.path(), 2000);
    let ops = json!({"operations": [
        {"type": "hillshade", "multidirectional": true}, {"type": "slope"}, {"type": "aspect"},
        {"type": "tri"}, {"type": "tpi"}, {"type": "roughness"}, {"type": "contours", "interval": 5},
    ]});
    let r = s.upload(&key, dem, "synthetic.tif", ops).await;
    assert_eq!(r.status(), 202);
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    s.wait_job(&key, &id, "running", |j| j["status"] == "running").await;
    let r = s.client.delete(s.url(&format!("/api/v1/dem/jobs/{id}"))).bearer_auth(&key).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let job = s.wait_job(&key, &id, "cancelled", |j| j["status"] == "cancelled").await;
    assert!(job["outputs"].as_array().unwrap().is_empty());
    assert!(job["finished_at"].is_string());
}

#[tokio::test]
async fn dem_job_that_cannot_be_processed_fails_with_an_event() {
    let rx = receiver::Receiver::http().await;
    let s = Server::start_with(&webhook_env());
    let (_, key) = s.signup("broken-dem@example.com").await;
    let r = s
        .client
        .post(s.url("/api/v1/webhooks/subscriptions"))
        .bearer_auth(&key)
        .json(&json!({"url": rx.url, "events": ["dem.job.failed"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    // A GeoTIFF whose first block decodes and a later one does not is refused at upload (every
    // block is decoded there), so nothing can fail later on its data.
    let mut dem = synthetic_dem(s.dir.path(), 1024);
    let at = dem.len() * 3 / 4;
    for (i, b) in dem[at..at + 256].iter_mut().enumerate() {
        *b = (i * 37 % 251) as u8;
    }
    let r = s.upload(&key, dem, "broken.tif", json!({"operations": [{"type": "hillshade"}]})).await;
    assert_eq!(r.status(), 422);
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["errors"][0]["code"], "invalid_raster", "{p}");
    // A stored dataset damaged afterwards (on the disk under the blob store) still fails its
    // job with a problem and an event.
    let dem = synthetic_dem(s.dir.path(), 1024);
    let r = s.upload(&key, dem, "fine.tif", json!({"operations": [{"type": "hillshade"}]})).await;
    assert_eq!(r.status(), 202);
    let first: Value = r.json().await.unwrap();
    let first_id = first["id"].as_str().unwrap().to_owned();
    s.wait_job(&key, &first_id, "succeeded", |j| j["status"] == "succeeded").await;
    let dataset = first["source"]["dataset_id"].as_str().unwrap().to_owned();
    let account: Value = s.get("/api/v1/account", &key).await.json().await.unwrap();
    let folder = format!("{}/dem/datasets/{dataset}/", account["id"].as_str().unwrap());
    let stored = s.blob_keys(&folder).await;
    assert!(!stored.is_empty());
    for key in stored {
        let mut bytes = s.blob_read(&key).await;
        let at = bytes.len() * 3 / 4;
        for (i, b) in bytes[at..at + 256].iter_mut().enumerate() {
            *b = (i * 37 % 251) as u8;
        }
        s.blob_write(&key, bytes).await;
    }
    let r = s
        .process_json(&key, json!({"source": {"dataset_id": dataset}, "params": {"operations": [{"type": "slope"}]}}))
        .await;
    assert_eq!(r.status(), 202);
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(120);
    let job = loop {
        let job: Value = s.get(&format!("/api/v1/dem/jobs/{id}"), &key).await.json().await.unwrap();
        if job["status"] == "failed" {
            break job;
        }
        assert!(job["status"] != "succeeded", "a corrupt DEM was processed: {job}");
        assert!(Instant::now() < deadline, "the job never failed: {job}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(job["error"]["code"], "job_input_invalid", "{job}");
    assert_eq!(job["error"]["status"], 422);
    assert!(job["outputs"].as_array().unwrap().is_empty());
    let got = rx.wait_until(60, "dem.job.failed", |r| r.iter().any(|m| m.json()["job"]["id"] == id.as_str())).await;
    let event = got.iter().map(|m| m.json()).find(|e| e["job"]["id"] == id.as_str()).unwrap();
    assert_eq!(event["event"], "dem.job.failed");
    assert_eq!(event["job"]["status"], "failed");
    assert_eq!(event["job"]["error"]["code"], "job_input_invalid");
}

#[tokio::test]
async fn dem_contours_as_flatgeobuf_open_in_gdal() {
    let s = Server::start();
    let (_, key) = s.signup("fgb-dem@example.com").await;
    let params =
        json!({"operations": [{"type": "contours", "interval": 20, "attribute": "elev", "format": "flatgeobuf"}]});
    let r = s.upload(&key, dem_bytes(), "swissalti3d-2573-1085.tif", params).await;
    assert_eq!(r.status(), 202);
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    let job = s.wait_job(&key, &id, "succeeded", |j| j["status"] == "succeeded").await;
    let out = &job["outputs"][0];
    assert_eq!(out["media_type"], "application/flatgeobuf");
    let href = out["href"].as_str().unwrap();
    assert!(href.ends_with("/outputs/contours.fgb"), "{href}");
    let bytes = s.client.get(href).bearer_auth(&key).send().await.unwrap().bytes().await.unwrap();
    assert_eq!(&bytes[..3], b"fgb", "FlatGeobuf magic bytes");
    if !crate::have_tool("ogrinfo", "dem_contours_as_flatgeobuf_open_in_gdal") {
        return;
    }
    let path = s.dir.path().join("contours.fgb");
    std::fs::write(&path, &bytes).unwrap();
    let info = std::process::Command::new("ogrinfo").args(["-so", "-al"]).arg(&path).output().unwrap();
    let info = String::from_utf8_lossy(&info.stdout);
    let count = out["statistics"]["count"].as_u64().unwrap();
    assert!(info.contains(&format!("Feature Count: {count}")), "{info}");
    assert!(info.contains("elev: Real"), "{info}");
    assert!(info.contains("2056"), "{info}");
}

#[tokio::test]
async fn dem_datasets_are_listed_and_deleted() {
    // No workers: jobs stay queued, so a dataset can be held by one.
    let s = Server::start_with(&[("MERIDIAN_SERVER__ROLES__WORKERS", "false")]);
    let (_, a) = s.signup("list-dem@example.com").await;
    let (_, b) = s.signup("list-dem-b@example.com").await;
    let mut jobs = Vec::new();
    for name in ["first.tif", "second.tif"] {
        let r = s.upload(&a, dem_bytes(), name, json!({"operations": [{"type": "slope"}]})).await;
        assert_eq!(r.status(), 202);
        jobs.push(r.json::<Value>().await.unwrap());
    }
    let list: Value = s.get("/api/v1/dem/datasets", &a).await.json().await.unwrap();
    assert_eq!(list["total"], 2);
    let names: Vec<&str> =
        list["datasets"].as_array().unwrap().iter().map(|d| d["filename"].as_str().unwrap()).collect();
    assert_eq!(names, ["second.tif", "first.tif"], "newest first");
    assert_eq!(list["datasets"][0]["epsg"], 2056);
    let page: Value = s.get("/api/v1/dem/datasets?limit=1&offset=1", &a).await.json().await.unwrap();
    assert_eq!(page["datasets"][0]["filename"], "first.tif");
    problem(s.get("/api/v1/dem/datasets?limit=0", &a).await, 422, "validation_failed").await;
    let other: Value = s.get("/api/v1/dem/datasets", &b).await.json().await.unwrap();
    assert_eq!(other["total"], 0);

    let (job, dataset) = (jobs[0]["id"].as_str().unwrap(), jobs[0]["source"]["dataset_id"].as_str().unwrap());
    let delete = |key: &str| s.client.delete(s.url(&format!("/api/v1/dem/datasets/{dataset}"))).bearer_auth(key).send();
    problem(delete(&b).await.unwrap(), 404, "not_found").await;
    // Held by a queued job: refused until the job is cancelled.
    problem(delete(&a).await.unwrap(), 409, "dataset_in_use").await;
    let r = s.client.delete(s.url(&format!("/api/v1/dem/jobs/{job}"))).bearer_auth(&a).send().await.unwrap();
    assert_eq!(r.status(), 200);
    // A source tile drawn (and cached) before the dataset goes.
    let b0: Vec<f64> = jobs[0]["tiles"][0]["bounds"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let (x, y) = tile_of((b0[0] + b0[2]) / 2.0, (b0[1] + b0[3]) / 2.0, 14);
    let tile = format!("/api/v1/dem/tiles/14/{x}/{y}.png?job={job}&style=hillshade");
    assert_eq!(s.get(&tile, &a).await.status(), 200);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(delete(&a).await.unwrap().status(), 204);
    problem(s.get(&format!("/api/v1/dem/datasets/{dataset}"), &a).await, 404, "not_found").await;
    problem(delete(&a).await.unwrap(), 404, "not_found").await;
    let list: Value = s.get("/api/v1/dem/datasets", &a).await.json().await.unwrap();
    assert_eq!(list["total"], 1);
    // The cancelled job's source tiles are gone with the dataset, the cached one too: 404.
    problem(s.get(&tile, &a).await, 404, "not_found").await;
}

/// A hostile file from the TIFF fuzz corpus.
fn hostile(name: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/tiff").join(name);
    std::fs::read(p).unwrap()
}

/// A 134-byte file declaring 200,000² Float32 used to abort the process; a 16 KiB deflate bomb
/// was accepted with the process growing by gigabytes. Both are now refused with 422 naming the
/// file, and the server stays up.
#[tokio::test]
async fn dem_hostile_uploads_are_refused_and_the_server_lives() {
    let s = Server::start();
    let (_, key) = s.signup("hostile-dem@example.com").await;
    let ops = json!({"operations": [{"type": "hillshade"}]});
    for (file, code) in [
        ("hostile-200000-squared.tif", "raster_too_large"),
        ("hostile-40000-single-strip.tif", "raster_too_large"),
        ("hostile-many-strips.tif", "raster_too_large"),
        ("hostile-deflate-bomb.tif", "invalid_raster"),
        ("hostile-packbits-bomb.tif", "invalid_raster"),
    ] {
        let r = s.upload(&key, hostile(file), file, ops.clone()).await;
        let body = problem(r, 422, "validation_failed").await;
        let e = &body["errors"][0];
        assert_eq!((e["pointer"].as_str(), e["code"].as_str()), (Some("/file"), Some(code)), "{file}: {body}");
        let r = s.client.get(s.url("/healthz")).send().await.unwrap();
        assert_eq!(r.status(), 200, "after {file}");
    }
    assert_eq!(s.dem_job_count(&key).await, 0);
}
