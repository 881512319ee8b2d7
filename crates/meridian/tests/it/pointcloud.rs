//! Point clouds through the real binary: an ISPRS sample uploaded as a raw body, indexed,
//! classified and downloaded as LAZ, LAS and COPC (read back with the engine's reader), filters,
//! ranges and ETags, tenant isolation, hostile files refused with 422 and nothing stored, the
//! `pointcloud.*` events at a webhook receiver; and laspy reading every output of a real
//! airborne file (with its CRS and extra bytes) and the COPC hierarchy.

use crate::dem::receiver;
use crate::{have_python_module, problem, Server};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A file of the point-cloud engine's test data (see the NOTICE there).
pub(crate) fn data(name: &str) -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../pointcloud/tests/data").join(name)
}

impl Server {
    /// Uploads `bytes` as a raw LAS/LAZ body; returns the status and the body.
    async fn pc_upload_raw(&self, key: &str, bytes: Vec<u8>, query: &str) -> (u16, Value) {
        let r = self
            .client
            .post(self.url(&format!("/api/v1/pointcloud/upload{query}")))
            .bearer_auth(key)
            .header("content-type", "application/vnd.laszip")
            .body(bytes)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap())
    }

    /// Polls a point cloud until `done` holds for it.
    pub(crate) async fn pc_wait(&self, key: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            let d: Value = self.get(&format!("/api/v1/pointcloud/{id}"), key).await.json().await.unwrap();
            if done(&d) {
                return d;
            }
            assert!(d["status"] != "failed", "point cloud {id} failed: {d}");
            assert!(Instant::now() < deadline, "point cloud {id} never got there: {d}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn pc_download(&self, key: &str, id: &str, query: &str) -> reqwest::Response {
        self.get(&format!("/api/v1/pointcloud/{id}/download{query}"), key).await
    }
}

/// Reads a download with the engine's reader.
fn read(bytes: &[u8]) -> meridian_pointcloud::PointCloud {
    meridian_pointcloud::reader::read_bytes(bytes, meridian_pointcloud::Limits::default()).unwrap().1
}

/// The EPSG code a download's own CRS records name, as the engine reads an upload's.
fn file_epsg(bytes: &[u8]) -> Option<u16> {
    let cursor = std::io::Cursor::new(bytes.to_vec());
    let summary =
        meridian_pointcloud::summary::summarize_from(cursor, meridian_pointcloud::Limits::default(), &|_| true);
    summary.unwrap().crs.and_then(|c| c.epsg)
}

fn histogram(classes: &[u8]) -> Value {
    let mut h = std::collections::BTreeMap::<String, u64>::new();
    for c in classes {
        *h.entry(c.to_string()).or_default() += 1;
    }
    json!(h)
}

#[tokio::test]
async fn pointcloud_upload_classify_and_download() {
    let rx = receiver::Receiver::http().await;
    let s = Server::start_with(&[
        ("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true"),
        ("MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "true"),
    ]);
    let (_, key) = s.signup("pc@example.com").await;
    let r = s
        .client
        .post(s.url("/api/v1/webhooks/subscriptions"))
        .bearer_auth(&key)
        .json(&json!({"url": rx.url, "events": ["pointcloud.*"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());

    // A raw upload: accepted, then indexed.
    let original = std::fs::read(data("isprs-samp11.las")).unwrap();
    let source = read(&original);
    let (status, body) = s.pc_upload_raw(&key, original.clone(), "?name=samp11&crs=EPSG:25832").await;
    assert_eq!(status, 202, "{body}");
    let id = body["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("pc_"), "{id}");
    assert_eq!(body["status"], "indexing");
    assert!(body["job"]["id"].as_str().unwrap().starts_with("job_"));
    let d = s.pc_wait(&key, &id, |d| d["status"] == "ready").await;
    assert_eq!(d["points"], source.len() as u64, "{d}");
    assert_eq!(d["format"], "las");
    assert_eq!(d["name"], "samp11");
    assert_eq!(d["crs"]["epsg"], 25832);
    assert_eq!(d["crs"]["source"], "override");
    let native = d["bounds"]["native"].as_array().unwrap();
    let min_x = source.x.iter().copied().fold(f64::INFINITY, f64::min);
    assert!((native[0].as_f64().unwrap() - min_x).abs() < 1e-6, "{d}");
    let wgs84: Vec<f64> = d["bounds"]["wgs84"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(wgs84[0] > 6.0 && wgs84[2] < 12.0 && wgs84[1] > 45.0 && wgs84[3] < 50.0, "ETRS89 / UTM 32N: {wgs84:?}");
    assert!(d["density"].as_f64().unwrap() > 0.0);
    assert_eq!(d["classification_histogram"], histogram(&source.classification));
    let got = rx.wait_until(60, "pointcloud.uploaded", |r| !r.is_empty()).await;
    assert_eq!(got[0].json()["event"], "pointcloud.uploaded");
    assert_eq!(got[0].json()["point_cloud"], id.as_str());
    assert_eq!(got[0].json()["points"], source.len() as u64);

    // The original, as stored: ETag, ranges, 304.
    let whole = s.pc_download(&key, &id, "?version=original&format=las").await;
    assert_eq!(whole.status(), 200);
    let etag = whole.headers()["etag"].to_str().unwrap().to_owned();
    assert_eq!(whole.bytes().await.unwrap().as_ref(), original.as_slice());
    assert_eq!(file_epsg(&original), Some(32632), "the sample names WGS 84 / UTM 32N in GeoTIFF keys");
    let ranged = s
        .client
        .get(s.url(&format!("/api/v1/pointcloud/{id}/download?version=original&format=las")))
        .bearer_auth(&key)
        .header("range", "bytes=0-3")
        .send()
        .await
        .unwrap();
    assert_eq!(ranged.status(), 206);
    assert_eq!(ranged.bytes().await.unwrap().as_ref(), b"LASF");
    let unchanged = s
        .client
        .get(s.url(&format!("/api/v1/pointcloud/{id}/download?version=original&format=las")))
        .bearer_auth(&key)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(unchanged.status(), 304);
    problem(s.pc_download(&key, &id, "?version=classified").await, 409, "point_cloud_not_ready").await;

    // Classification with the defaults.
    let r = s.client.post(s.url(&format!("/api/v1/pointcloud/{id}/classify"))).bearer_auth(&key).send().await.unwrap();
    assert_eq!(r.status(), 202);
    assert!(r.headers()["location"].to_str().unwrap().starts_with("/api/v1/jobs/job_"));
    let d = s.pc_wait(&key, &id, |d| d["status"] == "ready" && d["classification"]["status"] == "succeeded").await;
    let c = &d["classification"];
    assert_eq!(c["params"]["ground"]["method"], "smrf", "{c}");
    assert!(c["timings"]["ground"].as_f64().is_some(), "{c}");
    assert!(c["points_per_second"].as_f64().unwrap() > 0.0);
    // UTM 32N: metres, read from the CRS, not assumed.
    assert_eq!(c["unit"], json!({"metres_per_unit": 1.0, "assumed": false}), "{c}");
    let got = rx
        .wait_until(60, "pointcloud.classified", |r| r.iter().any(|m| m.json()["event"] == "pointcloud.classified"))
        .await;
    let event = got.iter().map(|m| m.json()).find(|e| e["event"] == "pointcloud.classified").unwrap();
    assert_eq!(event["histogram"], c["histogram"]);
    assert_eq!(event["point_cloud"], id.as_str());

    // The classified version (the default download): the same points, the classes reported,
    // ground mostly where the ISPRS reference says.
    let laz = s.pc_download(&key, &id, "").await;
    assert_eq!(laz.status(), 200);
    assert_eq!(laz.headers()["content-type"], "application/vnd.laszip");
    let laz = laz.bytes().await.unwrap();
    // The override is written into the file in place of the sample's keys (GeoTIFF keys, as
    // the sample is LAS 1.2).
    assert_eq!(file_epsg(&laz), Some(25832));
    let classified = read(&laz);
    assert_eq!(classified.len(), source.len());
    assert_eq!(histogram(&classified.classification), c["histogram"]);
    let truth: Vec<bool> = source.classification.iter().map(|&k| k == 2).collect();
    let found: Vec<bool> = classified.classification.iter().map(|&k| k == 2).collect();
    let confusion = meridian_pointcloud::Confusion::count(&truth, &found);
    assert!(confusion.total_error() < 0.1, "total error {}", confusion.total_error());
    for (a, b) in source.x.iter().zip(&classified.x) {
        assert!((a - b).abs() < 1e-6);
    }

    // LAS and COPC conversions, then a filtered download.
    let las = s.pc_download(&key, &id, "?format=las").await;
    assert_eq!(las.status(), 200);
    assert!(las.headers().contains_key("etag"));
    let las = las.bytes().await.unwrap();
    assert_eq!(file_epsg(&las), Some(25832));
    let las = read(&las);
    assert_eq!(las.classification, classified.classification);
    let copc = s.pc_download(&key, &id, "?format=copc").await;
    assert_eq!(copc.status(), 200);
    let copc_bytes = copc.bytes().await.unwrap();
    assert_eq!(&copc_bytes[377..381], b"copc", "the COPC info VLR comes first");
    // The sample has no WKT of its own (GeoTIFF keys only): the COPC names the override as WKT.
    assert!(copc_bytes[..8192].windows(14).any(|w| w == br#""EPSG","25832""#), "no WKT of EPSG:25832");
    assert_eq!(read(&copc_bytes).len(), source.len());
    let (cx, cy) = (
        (native[0].as_f64().unwrap() + native[3].as_f64().unwrap()) / 2.0,
        (native[1].as_f64().unwrap() + native[4].as_f64().unwrap()) / 2.0,
    );
    let q =
        format!("?format=laz&bbox-crs=native&bbox={},{},{},{}&classes=2", cx - 30.0, cy - 30.0, cx + 30.0, cy + 30.0);
    let part = s.pc_download(&key, &id, &q).await;
    assert_eq!(part.status(), 200);
    assert!(!part.headers().contains_key("etag"));
    let part = part.bytes().await.unwrap();
    assert_eq!(file_epsg(&part), Some(25832));
    let part = read(&part);
    let expected = (0..classified.len())
        .filter(|&i| {
            classified.classification[i] == 2
                && (cx - 30.0..=cx + 30.0).contains(&classified.x[i])
                && (cy - 30.0..=cy + 30.0).contains(&classified.y[i])
        })
        .count();
    assert!(expected > 0);
    assert_eq!(part.len(), expected);
    // A selection of no point: an empty LAS/LAZ file, and a 422 for COPC (an octree needs a cube).
    let none = s.pc_download(&key, &id, "?format=laz&classes=99").await;
    assert_eq!(none.status(), 200);
    assert_eq!(read(&none.bytes().await.unwrap()).len(), 0);
    let p = problem(s.pc_download(&key, &id, "?format=copc&classes=99").await, 422, "validation_failed").await;
    assert_eq!(p["errors"][0]["code"], "empty_selection", "{p}");
    problem(s.pc_download(&key, &id, "?format=xyz").await, 422, "validation_failed").await;
    problem(s.pc_download(&key, &id, "?bbox=1,2,3").await, 422, "validation_failed").await;

    // Bad classification parameters name the field.
    let r = s
        .client
        .post(s.url(&format!("/api/v1/pointcloud/{id}/classify")))
        .bearer_auth(&key)
        .json(&json!({"ground": {"method": "magic", "cell": -1}, "steps": ["ground", "paint"]}))
        .send()
        .await
        .unwrap();
    let p = problem(r, 422, "validation_failed").await;
    let pointers: Vec<&str> = p["errors"].as_array().unwrap().iter().map(|e| e["pointer"].as_str().unwrap()).collect();
    for ptr in ["/ground/method", "/ground/cell", "/steps/1"] {
        assert!(pointers.contains(&ptr), "{pointers:?}");
    }

    // Another tenant sees nothing; the list has the point cloud; delete removes it.
    let (_, other) = s.signup("pc-other@example.com").await;
    problem(s.get(&format!("/api/v1/pointcloud/{id}"), &other).await, 404, "not_found").await;
    problem(s.pc_download(&other, &id, "").await, 404, "not_found").await;
    let list: Value = s.get("/api/v1/pointcloud", &other).await.json().await.unwrap();
    assert_eq!(list["total"], 0);
    let list: Value = s.get("/api/v1/pointcloud", &key).await.json().await.unwrap();
    assert_eq!(list["total"], 1);
    assert_eq!(list["point_clouds"][0]["id"], id.as_str());
    let r = s.client.delete(s.url(&format!("/api/v1/pointcloud/{id}"))).bearer_auth(&key).send().await.unwrap();
    assert_eq!(r.status(), 204);
    problem(s.get(&format!("/api/v1/pointcloud/{id}"), &key).await, 404, "not_found").await;
}

#[tokio::test]
async fn pointcloud_hostile_files_are_refused_and_nothing_is_stored() {
    let s = Server::start();
    let (_, key) = s.signup("pc-hostile@example.com").await;
    let good = std::fs::read(data("isprs-samp41.las")).unwrap();
    let jpeg = [0xff, 0xd8, 0xff, 0xe0, 0, 0x10, b'J', b'F', b'I', b'F', 0].repeat(400);
    let truncated = good[..good.len() / 2].to_vec();
    // The header claims ten times the points (legacy count at byte 107).
    let mut lying_count = good.clone();
    let n = u32::from_le_bytes(lying_count[107..111].try_into().unwrap());
    lying_count[107..111].copy_from_slice(&(n * 10).to_le_bytes());
    // The point data offset past the end of the file (byte 96).
    let mut lying_offset = good.clone();
    lying_offset[96..100].copy_from_slice(&(good.len() as u32 + 1000).to_le_bytes());
    for (what, bytes) in [("jpeg", jpeg), ("truncated", truncated), ("count", lying_count), ("offset", lying_offset)] {
        let (status, body) = s.pc_upload_raw(&key, bytes, "").await;
        assert_eq!(status, 422, "{what}: {body}");
        assert_eq!(body["errors"][0]["pointer"], "/file", "{what}: {body}");
    }
    // A bad CRS override, and a multipart upload without its file.
    let (status, body) = s.pc_upload_raw(&key, good.clone(), "?crs=EPSG:99999").await;
    assert_eq!(status, 422, "{body}");
    let form = reqwest::multipart::Form::new().text("params", json!({"name": "x"}).to_string());
    let r = s.client.post(s.url("/api/v1/pointcloud/upload")).bearer_auth(&key).multipart(form).send().await.unwrap();
    problem(r, 422, "validation_failed").await;
    let r = s
        .client
        .post(s.url("/api/v1/pointcloud/upload"))
        .bearer_auth(&key)
        .header("content-type", "text/plain")
        .body("LASF")
        .send()
        .await
        .unwrap();
    problem(r, 415, "unsupported_media_type").await;
    let list: Value = s.get("/api/v1/pointcloud", &key).await.json().await.unwrap();
    assert_eq!(list["total"], 0, "nothing was stored: {list}");
    // Nothing was left in the blob store either.
    let left: Vec<String> = s.blob_keys("").await.into_iter().filter(|k| k.contains("/pointcloud/")).collect();
    assert!(left.is_empty(), "{left:?}");
}

/// laspy (with lazrs) reads every output of a real airborne file: the point count, coordinates
/// within the scale, the classes the API reports, the confidence extra dimension, the CRS; and
/// `CopcReader` reads the COPC output's hierarchy.
#[tokio::test]
async fn pointcloud_outputs_read_with_laspy() {
    if !have_python_module("python3", "laspy", "pointcloud_outputs_read_with_laspy")
        || !have_python_module("python3", "lazrs", "pointcloud_outputs_read_with_laspy")
    {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("pc-laspy@example.com").await;
    let bytes = std::fs::read(data("pdal-extra-bytes.laz")).unwrap();
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(bytes).file_name("pdal-extra-bytes.laz"))
        .text("params", json!({"name": "lidar"}).to_string());
    let r = s.client.post(s.url("/api/v1/pointcloud/upload")).bearer_auth(&key).multipart(form).send().await.unwrap();
    assert_eq!(r.status(), 202, "{}", r.text().await.unwrap());
    let body: Value = r.json().await.unwrap();
    let id = body["id"].as_str().unwrap().to_owned();
    let d = s.pc_wait(&key, &id, |d| d["status"] == "ready").await;
    assert_eq!(d["points"], 697_721);
    assert_eq!(d["point_format"], 8);
    assert_eq!(d["crs"]["epsg"], 2154, "{d}");
    let wgs84: Vec<f64> = d["bounds"]["wgs84"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(wgs84[0] > -5.0 && wgs84[2] < 10.0 && wgs84[1] > 41.0 && wgs84[3] < 52.0, "France: {wgs84:?}");
    let r = s
        .client
        .post(s.url(&format!("/api/v1/pointcloud/{id}/classify")))
        .bearer_auth(&key)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    // A second classification while the first is queued or running is refused.
    let again = s
        .client
        .post(s.url(&format!("/api/v1/pointcloud/{id}/classify")))
        .bearer_auth(&key)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    problem(again, 409, "point_cloud_busy").await;
    let d = s.pc_wait(&key, &id, |d| d["classification"]["status"] == "succeeded").await;
    let histogram = d["classification"]["histogram"].clone();
    let dir = s.dir.path().join("laspy");
    std::fs::create_dir_all(&dir).unwrap();
    for format in ["laz", "las", "copc"] {
        let r = s.pc_download(&key, &id, &format!("?format={format}")).await;
        assert_eq!(r.status(), 200, "{format}");
        std::fs::write(dir.join(format!("out.{format}")), r.bytes().await.unwrap()).unwrap();
    }
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/pointcloud_laspy.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(data("pdal-extra-bytes.laz"))
        .arg(&dir)
        .arg(histogram.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "laspy: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    println!("{stdout}");
}

/// A US file in feet whose WKT is ESRI's (no authority for the projected CRS): the CRS is matched
/// to EPSG:6880 by its definition and says so, its unit is the US survey foot, its WGS84 bounds
/// are degrees in Nebraska, and a longitude/latitude box over the whole file downloads every
/// point.
#[tokio::test]
async fn pointcloud_esri_wkt_in_feet_is_placed_and_cut_in_degrees() {
    let s = Server::start();
    let (_, key) = s.signup("pc-feet@example.com").await;
    let bytes = std::fs::read(data("labelled/us_nebraska_ftUS_singlereturn.las")).unwrap();
    let (status, body) = s.pc_upload_raw(&key, bytes, "").await;
    assert_eq!(status, 202, "{body}");
    let id = body["id"].as_str().unwrap().to_owned();
    let d = s.pc_wait(&key, &id, |d| d["status"] == "ready").await;
    assert_eq!(d["crs"]["epsg"], 6880, "{d}");
    assert_eq!(d["crs"]["epsg_from"], "definition", "{d}");
    let unit = d["crs"]["metres_per_unit"].as_f64().unwrap();
    assert!((unit - 1200.0 / 3937.0).abs() < 1e-9, "{unit}");
    let b: Vec<f64> = d["bounds"]["wgs84"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(b[0] > -104.1 && b[2] < -95.3 && b[1] > 39.9 && b[3] < 43.1, "Nebraska: {b:?}");
    let pad = 0.001;
    let query = format!("?bbox={},{},{},{}", b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad);
    let r = s.pc_download(&key, &id, &query).await;
    assert_eq!(r.status(), 200);
    let cloud = read(&r.bytes().await.unwrap());
    assert_eq!(cloud.len(), 25_408);
}
