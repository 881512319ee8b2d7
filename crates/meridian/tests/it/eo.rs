//! Earth observation through the real binary: a STAC collection, the CBERS-4 scene uploaded band
//! by band (the server derives footprint, projection and statistics), scenes, assets with ranges,
//! item search with every parameter, ETags, tenant isolation, bad input, and the
//! `eo.scene.published` event at a webhook receiver.

use crate::{problem, Server};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

#[path = "../../../webhooks/tests/it/receiver.rs"]
mod receiver;

/// The four CBERS-4 MUX bands shipped with the EO engine's tests (INPE open data; see the NOTICE there).
pub fn band_path(n: u8) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../eo/tests/data/cbers4-mux-057-094-20171121-band{n}.tif"))
}

pub const SCENE: &str = "CBERS_4_MUX_20171121_057_094";

/// The item part of the scene's upload: ids, time and band names only.
pub fn item_part(id: &str) -> Value {
    let band = |n: u8, common: &str| json!({"eo:bands": [{"name": format!("B{n}"), "common_name": common}]});
    json!({
        "id": id,
        "datetime": "2017-11-21T06:51:03Z",
        "properties": {"platform": "CBERS-4", "instruments": ["MUX"], "eo:cloud_cover": 3.5},
        "assets": {"B5": band(5, "blue"), "B6": band(6, "green"), "B7": band(7, "red"), "B8": band(8, "nir")},
    })
}

impl Server {
    /// Creates collection `id`.
    pub async fn eo_collection(&self, key: &str, id: &str) {
        let body = json!({"type": "Collection", "id": id, "description": "CBERS-4 MUX scenes", "license": "CC-BY-SA-3.0",
            "extent": {"spatial": {"bbox": [[-180, -90, 180, 90]]}, "temporal": {"interval": [["2014-12-07T00:00:00Z", null]]}}});
        let r = self.client.post(self.url("/api/v1/eo/collections")).bearer_auth(key).json(&body).send().await.unwrap();
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    }

    /// Uploads the CBERS scene as item `id` of `collection` and waits until it is published.
    pub async fn eo_upload_scene(&self, key: &str, collection: &str, id: &str) -> Value {
        let mut form = reqwest::multipart::Form::new().text("item", item_part(id).to_string());
        for n in 5..=8u8 {
            let bytes = std::fs::read(band_path(n)).unwrap();
            form = form.part(format!("B{n}"), reqwest::multipart::Part::bytes(bytes).file_name(format!("band{n}.tif")));
        }
        let r = self
            .client
            .post(self.url(&format!("/api/v1/eo/collections/{collection}/items")))
            .bearer_auth(key)
            .multipart(form)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let body: Value = r.json().await.unwrap();
        match status {
            201 => body,
            202 => {
                let job = body["job"].as_str().unwrap().to_owned();
                let deadline = Instant::now() + Duration::from_secs(120);
                loop {
                    let j: Value = self.get(&format!("/api/v1/jobs/{job}"), key).await.json().await.unwrap();
                    if j["status"] == "succeeded" {
                        break;
                    }
                    assert!(j["status"] != "failed", "ingest failed: {j}");
                    assert!(Instant::now() < deadline, "ingest never finished: {j}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                self.get(&format!("/api/v1/eo/collections/{collection}/items/{id}"), key).await.json().await.unwrap()
            }
            other => panic!("upload answered {other}: {body}"),
        }
    }

    async fn eo_items(&self, key: &str, collection: &str, items: Value) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/eo/collections/{collection}/items")))
            .bearer_auth(key)
            .json(&items)
            .send()
            .await
            .unwrap()
    }
}

/// A small item with a remote asset, for search tests.
fn remote_item(id: &str, lon: f64, lat: f64, datetime: &str, cloud: f64) -> Value {
    json!({"type": "Feature", "stac_version": "1.0.0", "id": id,
        "geometry": {"type": "Polygon", "coordinates": [[[lon, lat], [lon + 1.0, lat], [lon + 1.0, lat + 1.0], [lon, lat + 1.0], [lon, lat]]]},
        "properties": {"datetime": datetime, "eo:cloud_cover": cloud, "platform": if cloud < 50.0 { "sentinel-2a" } else { "sentinel-2b" }},
        "assets": {"red": {"href": format!("https://data.example.com/{id}/B04.tif"), "type": "image/tiff; application=geotiff; profile=cloud-optimized", "roles": ["data"]}}})
}

#[tokio::test]
async fn eo_upload_derives_the_item_and_serves_scenes_and_assets() {
    let rx = receiver::Receiver::http().await;
    let s = Server::start_with(&[("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true"), ("MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "true")]);
    let (_, key) = s.signup("eo@example.com").await;
    let r = s
        .client
        .post(s.url("/api/v1/webhooks/subscriptions"))
        .bearer_auth(&key)
        .json(&json!({"url": rx.url, "events": ["eo.scene.published"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    s.eo_collection(&key, "cbers4").await;
    let item = s.eo_upload_scene(&key, "cbers4", SCENE).await;

    // Derived from the files: UTM 40N, 163 × 155 pixels of 900 m, a footprint in WGS84 near 54 °E, 5 °N.
    assert_eq!(item["properties"]["proj:epsg"], 32640, "{item}");
    assert_eq!(item["properties"]["proj:shape"], json!([155, 163]));
    assert_eq!(item["properties"]["gsd"].as_f64().unwrap().round(), 900.0);
    assert_eq!(item["geometry"]["type"], "Polygon");
    let bbox: Vec<f64> = item["bbox"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(bbox[0] > 53.0 && bbox[2] < 55.0 && bbox[1] > 4.5 && bbox[3] < 6.5, "{bbox:?}");
    let red = &item["assets"]["B7"];
    assert_eq!(red["eo:bands"][0]["common_name"], "red");
    assert_eq!(red["raster:bands"][0]["data_type"], "uint8");
    assert_eq!(red["raster:bands"][0]["nodata"], 0.0);
    let stats = &red["raster:bands"][0]["statistics"];
    assert!(stats["minimum"].as_f64().unwrap() >= 1.0, "nodata excluded: {stats}");
    assert!(stats["valid_percent"].as_f64().unwrap() < 100.0, "the scene has nodata corners: {stats}");
    let exts = item["stac_extensions"].as_array().unwrap();
    for e in ["projection", "raster", "eo"] {
        assert!(exts.iter().any(|x| x.as_str().unwrap().contains(e)), "{e} extension: {exts:?}");
    }
    assert!(item["links"].as_array().unwrap().iter().any(|l| l["rel"] == "self"));

    // The scene by item id and by collection/item.
    for id in [SCENE.to_owned(), format!("cbers4%2F{SCENE}")] {
        let r = s.get(&format!("/api/v1/eo/scenes/{id}"), &key).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["content-type"], "application/geo+json");
        assert!(r.headers().contains_key("etag"));
        let scene: Value = r.json().await.unwrap();
        assert_eq!(scene["id"], SCENE);
    }

    // The asset: the COG the stripped upload was converted to, whole or by range; GDAL reads it
    // over HTTP with range requests and finds the upload's pixels.
    let href = red["href"].as_str().unwrap();
    assert!(href.starts_with(&s.base), "{href}");
    let original = std::fs::read(band_path(7)).unwrap();
    let whole = s.client.get(href).bearer_auth(&key).send().await.unwrap();
    assert_eq!(whole.status(), 200);
    let whole = whole.bytes().await.unwrap();
    assert_eq!(whole.len() as u64, red["file:size"].as_u64().unwrap());
    assert!(whole.starts_with(b"II*\0"), "a little-endian TIFF");
    let part = s.client.get(href).bearer_auth(&key).header("range", "bytes=0-15").send().await.unwrap();
    assert_eq!(part.status(), 206);
    assert!(part.bytes().await.unwrap().as_ref() == &whole[..16], "the range is the file's first 16 bytes");
    if crate::have_tool("gdalinfo", "eo_upload_derives_the_item_and_serves_scenes_and_assets") {
        let headers = crate::header_file(&s, &key);
        let out = std::process::Command::new("gdalinfo")
            .args(["-checksum", &format!("/vsicurl/{href}")])
            .env("GDAL_HTTP_HEADER_FILE", &headers)
            .env("GDAL_DISABLE_READDIR_ON_OPEN", "EMPTY_DIR")
            .output()
            .unwrap();
        let info = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "{info}{}", String::from_utf8_lossy(&out.stderr));
        let local = std::process::Command::new("gdalinfo").args(["-checksum", band_path(7).to_str().unwrap()]).output().unwrap();
        let checksum = |t: &str| t.lines().find(|l| l.contains("Checksum=")).map(str::trim).map(str::to_owned);
        assert_eq!(checksum(&info), checksum(&String::from_utf8_lossy(&local.stdout)), "{info}");
        assert!(info.contains("LAYOUT=COG") || info.contains("Overviews") || info.contains("Block=512x512"), "{info}");
    }

    // Published scenes reach webhook subscribers.
    let got = rx.wait_until(60, "eo.scene.published", |r| !r.is_empty()).await;
    let event = got[0].json();
    assert_eq!(event["event"], "eo.scene.published");
    assert_eq!(event["scene"], format!("cbers4/{SCENE}"));

    // The same id again is a conflict; another tenant sees nothing.
    let again = s
        .client
        .post(s.url("/api/v1/eo/collections/cbers4/items"))
        .bearer_auth(&key)
        .multipart(
            reqwest::multipart::Form::new()
                .text("item", json!({"id": SCENE, "datetime": "2017-11-21T06:51:03Z"}).to_string())
                .part("B7", reqwest::multipart::Part::bytes(original.clone())),
        )
        .send()
        .await
        .unwrap();
    problem(again, 409, "item_exists").await;
    let (_, other) = s.signup("eo-other@example.com").await;
    problem(s.get(&format!("/api/v1/eo/scenes/{SCENE}"), &other).await, 404, "not_found").await;
    let r: Value = s.get("/api/v1/eo/search", &other).await.json().await.unwrap();
    assert_eq!(r["numberMatched"], 0);
    problem(s.client.get(href).bearer_auth(&other).send().await.unwrap(), 404, "not_found").await;

    // Deleting the item removes its files.
    let r = s.client.delete(s.url(&format!("/api/v1/eo/collections/cbers4/items/{SCENE}"))).bearer_auth(&key).send().await.unwrap();
    assert_eq!(r.status(), 204);
    problem(s.client.get(href).bearer_auth(&key).send().await.unwrap(), 404, "not_found").await;
}

#[tokio::test]
async fn eo_uploads_that_are_not_rasters_are_refused_before_anything_is_stored() {
    let s = Server::start();
    let (_, key) = s.signup("eo-bad@example.com").await;
    s.eo_collection(&key, "c").await;
    let form = reqwest::multipart::Form::new()
        .text("item", json!({"id": "x", "datetime": "2017-11-21T06:51:03Z"}).to_string())
        .part("B7", reqwest::multipart::Part::bytes(b"this is not a tiff".to_vec()));
    let r = s.client.post(s.url("/api/v1/eo/collections/c/items")).bearer_auth(&key).multipart(form).send().await.unwrap();
    let p = problem(r, 422, "validation_failed").await;
    assert_eq!(p["errors"][0]["pointer"], "/assets/B7", "{p}");
    assert_eq!(p["errors"][0]["code"], "not_a_geotiff");
    // Nothing was published.
    let r: Value = s.get("/api/v1/eo/collections/c/items", &key).await.json().await.unwrap();
    assert_eq!(r["features"].as_array().unwrap().len(), 0);
    // No item part; an unknown collection; an item without datetime.
    let form = reqwest::multipart::Form::new().part("B7", reqwest::multipart::Part::bytes(std::fs::read(band_path(7)).unwrap()));
    let r = s.client.post(s.url("/api/v1/eo/collections/c/items")).bearer_auth(&key).multipart(form).send().await.unwrap();
    problem(r, 422, "validation_failed").await;
    problem(s.eo_items(&key, "nope", remote_item("a", 0.0, 0.0, "2020-01-01T00:00:00Z", 1.0)).await, 404, "not_found").await;
    let mut undated = remote_item("a", 0.0, 0.0, "2020-01-01T00:00:00Z", 1.0);
    undated["properties"].as_object_mut().unwrap().remove("datetime");
    let p = problem(s.eo_items(&key, "c", undated).await, 422, "validation_failed").await;
    assert_eq!(p["errors"][0]["pointer"], "/properties/datetime");
    // A relative asset href is not a URL.
    let mut local = remote_item("b", 0.0, 0.0, "2020-01-01T00:00:00Z", 1.0);
    local["assets"]["red"]["href"] = json!("/etc/passwd");
    problem(s.eo_items(&key, "c", local).await, 422, "validation_failed").await;
    // Text that is not JSON.
    let r = s
        .client
        .post(s.url("/api/v1/eo/collections/c/items"))
        .bearer_auth(&key)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
}

#[tokio::test]
async fn eo_search_filters_sorts_pages_and_selects_fields() {
    let s = Server::start();
    let (_, key) = s.signup("eo-search@example.com").await;
    s.eo_collection(&key, "s2").await;
    s.eo_collection(&key, "l8").await;
    // 30 items on a 6 × 5 grid of 1° cells, one a month, cloud cover 0..87.
    let features: Vec<Value> = (0..30)
        .map(|i| {
            let dt = format!("2023-{:02}-15T10:00:00Z", i % 12 + 1).replace("2023-", if i < 12 { "2023-" } else { "2024-" });
            remote_item(&format!("s2-{i:02}"), (i % 6) as f64, (i / 6) as f64, &dt, (i * 3) as f64)
        })
        .collect();
    let r = s.eo_items(&key, "s2", json!({"type": "FeatureCollection", "features": features})).await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let r = s.eo_items(&key, "l8", remote_item("l8-0", 100.0, 50.0, "2022-06-01T00:00:00Z", 10.0)).await;
    assert_eq!(r.status(), 201);

    let search = |q: &str| {
        let s = &s;
        let key = &key;
        let q = q.to_owned();
        async move {
            let r = s.get(&format!("/api/v1/eo/search?{q}"), key).await;
            assert_eq!(r.status(), 200, "{q}");
            assert_eq!(r.headers()["content-type"], "application/geo+json");
            r.json::<Value>().await.unwrap()
        }
    };
    let ids = |v: &Value| -> Vec<String> { v["features"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap().to_owned()).collect() };

    let all = search("limit=100").await;
    assert_eq!(all["numberMatched"], 31);
    assert_eq!(all["numberReturned"], 31);
    // Newest first by default.
    assert_eq!(ids(&all)[0], "s2-23");
    // bbox: the cells meeting [2.5, 0.5]–[3.5, 1.5] are 2, 3, 8, 9.
    let mut got = ids(&search("bbox=2.5,0.5,3.5,1.5&limit=100").await);
    got.sort();
    assert_eq!(got, ["s2-02", "s2-03", "s2-08", "s2-09"]);
    // datetime interval, open end, collections.
    assert_eq!(search("datetime=2024-01-01T00:00:00Z/..&limit=100").await["numberMatched"], 18);
    assert_eq!(search("datetime=../2022-12-31T00:00:00Z").await["numberMatched"], 1);
    assert_eq!(search("collections=l8").await["numberMatched"], 1);
    assert_eq!(ids(&search("ids=s2-05,l8-0&sortby=id").await), ["l8-0", "s2-05"]);
    // CQL2 text and JSON over eo:cloud_cover and platform.
    let low = search("filter=eo:cloud_cover < 10 AND collection = 's2'&limit=100").await;
    assert_eq!(ids(&low).len(), 4);
    let body = json!({"filter-lang": "cql2-json", "filter": {"op": "and", "args": [
        {"op": ">=", "args": [{"property": "eo:cloud_cover"}, 60]},
        {"op": "=", "args": [{"property": "platform"}, "sentinel-2b"]}]}, "limit": 100, "sortby": [{"field": "properties.eo:cloud_cover", "direction": "desc"}]});
    let r = s.client.post(s.url("/api/v1/eo/search")).bearer_auth(&key).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let high: Value = r.json().await.unwrap();
    assert_eq!(ids(&high), ["s2-29", "s2-28", "s2-27", "s2-26", "s2-25", "s2-24", "s2-23", "s2-22", "s2-21", "s2-20"]);
    // intersects.
    let poly = json!({"type": "Polygon", "coordinates": [[[100.2, 50.2], [100.4, 50.2], [100.4, 50.4], [100.2, 50.2]]]});
    let r = s.client.post(s.url("/api/v1/eo/search")).bearer_auth(&key).json(&json!({"intersects": poly})).send().await.unwrap();
    assert_eq!(ids(&r.json::<Value>().await.unwrap()), ["l8-0"]);
    // Fields: only what was asked, plus what every item keeps.
    let f = search("ids=s2-01&fields=properties.eo:cloud_cover,-assets").await;
    let item = &f["features"][0];
    assert_eq!(item["properties"], json!({"eo:cloud_cover": 3.0}));
    assert!(item.get("assets").is_none() && item.get("geometry").is_none());

    // Paging by next links through everything, in a stable order, with a CQL2 filter.
    let mut seen = Vec::new();
    let mut url = s.url("/api/v1/eo/search?limit=4&collections=s2&sortby=-eo:cloud_cover&filter=platform%3D'sentinel-2a'");
    let mut pages = 0;
    loop {
        let page: Value = s.client.get(&url).bearer_auth(&key).send().await.unwrap().json().await.unwrap();
        seen.extend(ids(&page));
        pages += 1;
        match page["links"].as_array().unwrap().iter().find(|l| l["rel"] == "next") {
            Some(next) => url = next["href"].as_str().unwrap().to_owned(),
            None => break,
        }
        assert!(pages < 20);
    }
    let expected: Vec<String> = (0..17).rev().map(|i| format!("s2-{i:02}")).collect();
    assert_eq!(seen, expected, "cloud cover < 50 is sentinel-2a: items 0..16, highest first");
    // POST paging: the next link carries the body with a token.
    let r = s.client.post(s.url("/api/v1/eo/search")).bearer_auth(&key).json(&json!({"limit": 20, "collections": ["s2"]})).send().await.unwrap();
    let first: Value = r.json().await.unwrap();
    let next = first["links"].as_array().unwrap().iter().find(|l| l["rel"] == "next").unwrap().clone();
    assert_eq!(next["method"], "POST");
    let r = s.client.post(next["href"].as_str().unwrap()).bearer_auth(&key).json(&next["body"]).send().await.unwrap();
    let second: Value = r.json().await.unwrap();
    assert_eq!(ids(&first).len() + ids(&second).len(), 30);
    assert!(ids(&second).iter().all(|i| !ids(&first).contains(i)));

    // Bad parameters are 400 problems naming the parameter.
    for (q, param) in [
        ("bbox=1,2,3", "/bbox"),
        ("datetime=yesterday", "/datetime"),
        ("limit=0", "/limit"),
        ("filter=eo:cloud_cover <", "/filter"),
        ("sortby=-", "/sortby"),
        ("token=zzz", "/token"),
        ("colour=red", "/colour"),
    ] {
        let p = problem(s.get(&format!("/api/v1/eo/search?{q}"), &key).await, 400, "invalid_parameter").await;
        assert_eq!(p["errors"][0]["pointer"], param, "{q}: {p}");
    }

    // ETags: a stale If-Match is refused, the current one accepted; PATCH merges.
    let r = s.get("/api/v1/eo/collections/s2/items/s2-01", &key).await;
    let etag = r.headers()["etag"].to_str().unwrap().to_owned();
    let mut doc: Value = r.json().await.unwrap();
    doc["properties"]["eo:cloud_cover"] = json!(99.0);
    let put = |tag: String, doc: Value| {
        s.client.put(s.url("/api/v1/eo/collections/s2/items/s2-01")).bearer_auth(&key).header("if-match", tag).json(&doc).send()
    };
    assert_eq!(put(etag.clone(), doc.clone()).await.unwrap().status(), 200);
    problem(put(etag, doc).await.unwrap(), 412, "precondition_failed").await;
    let r = s
        .client
        .patch(s.url("/api/v1/eo/collections/s2/items/s2-01"))
        .bearer_auth(&key)
        .json(&json!({"properties": {"eo:cloud_cover": 1.5}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let patched: Value = r.json().await.unwrap();
    assert_eq!(patched["properties"]["eo:cloud_cover"], 1.5);
    assert_eq!(patched["properties"]["platform"], "sentinel-2a");

    // The landing page and the collection as STAC clients read them.
    let landing: Value = s.get("/api/v1/eo", &key).await.json().await.unwrap();
    assert_eq!(landing["type"], "Catalog");
    for rel in ["self", "root", "data", "search", "service-desc", "conformance"] {
        assert!(landing["links"].as_array().unwrap().iter().any(|l| l["rel"] == rel), "{rel}");
    }
    let c: Value = s.get("/api/v1/eo/collections/s2", &key).await.json().await.unwrap();
    assert_eq!(c["extent"]["spatial"]["bbox"][0], json!([0.0, 0.0, 6.0, 5.0]));
    assert_eq!(c["extent"]["temporal"]["interval"][0][0], "2023-01-15T10:00:00Z");
    assert!(c["item_assets"]["red"].is_object());
}

/// Parcels over the CBERS scene: 3 × 3 squares of 0.1° around its centre, half freehold.
async fn scene_parcels(s: &Server, key: &str) {
    for i in 0..9 {
        let (x, y) = (53.85 + (i % 3) as f64 * 0.1, 5.25 + (i / 3) as f64 * 0.1);
        let body = json!({"type": "Feature",
            "geometry": {"type": "Polygon", "coordinates": [[[x, y], [x + 0.1, y], [x + 0.1, y + 0.1], [x, y + 0.1], [x, y]]]},
            "properties": {"lot": i.to_string(), "plan": "DP9", "tenure": if i % 2 == 0 { "freehold" } else { "leasehold" }}});
        crate::post_parcel(s, key, &body).await;
    }
}

fn is_png(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x89PNG\r\n\x1a\n")
}

#[tokio::test]
async fn eo_ndvi_with_parcel_zones_outputs_tiles_and_jobs() {
    let s = Server::start();
    let (_, key) = s.signup("eo-ndvi@example.com").await;
    s.eo_collection(&key, "cbers4").await;
    s.eo_upload_scene(&key, "cbers4", SCENE).await;
    scene_parcels(&s, &key).await;
    let compute = |path: &str, body: Value| {
        s.client.post(s.url(&format!("/api/v1/eo/compute/{path}"))).bearer_auth(&key).json(&body).send()
    };

    // The interface's example: NDVI of a scene, bands named, zones from the cadastre.
    let body = json!({"scene": format!("cbers4/{SCENE}"), "bands": {"red": "B7", "nir": "B8"},
        "zones": {"collection": "parcels", "filter": "tenure = 'freehold'"}});
    let r = compute("ndvi", body).await.unwrap();
    assert_eq!(r.status(), 200);
    let doc: Value = r.json().await.unwrap();
    assert_eq!(doc["expression"], "(B8 - B7) / (B8 + B7)");
    assert_eq!(doc["crs"], "EPSG:32640");
    assert_eq!((doc["width"].as_u64(), doc["height"].as_u64()), (Some(163), Some(155)));
    let stats = &doc["statistics"];
    assert!(stats["min"].as_f64().unwrap() >= -1.0 && stats["max"].as_f64().unwrap() <= 1.0, "{stats}");
    assert_eq!(stats["histogram"]["counts"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).sum::<u64>(), stats["count"].as_u64().unwrap());
    let zones = doc["zones"]["features"].as_array().unwrap();
    assert_eq!(zones.len(), 5, "the freehold parcels");
    for z in zones {
        assert!(z["id"].as_str().unwrap().starts_with("parcel_"));
        for k in ["mean", "min", "max", "std", "median", "count"] {
            assert!(z["properties"][k].is_number(), "{k}: {z}");
        }
    }
    // Outputs: the COG first, downloadable with ranges; the preview is a PNG.
    let outputs = doc["outputs"].as_array().unwrap();
    assert_eq!(outputs[0]["name"], "index.tif");
    let cog = s.client.get(outputs[0]["href"].as_str().unwrap()).bearer_auth(&key).send().await.unwrap();
    assert_eq!(cog.status(), 200);
    assert!(cog.headers()["etag"].to_str().unwrap().starts_with('"'));
    let cog = cog.bytes().await.unwrap();
    assert_eq!(cog.len() as u64, outputs[0]["size"].as_u64().unwrap());
    let preview = s.client.get(outputs[1]["href"].as_str().unwrap()).bearer_auth(&key).send().await.unwrap();
    assert!(is_png(&preview.bytes().await.unwrap()));
    if crate::have_tool("gdalinfo", "eo_ndvi_with_parcel_zones_outputs_tiles_and_jobs") {
        let path = s.dir.path().join("ndvi.tif");
        std::fs::write(&path, &cog).unwrap();
        let out = std::process::Command::new("gdalinfo").args(["-stats", path.to_str().unwrap()]).output().unwrap();
        let info = String::from_utf8_lossy(&out.stdout);
        assert!(info.contains("Type=Float32") && info.contains("NoData Value=-9999"), "{info}");
        let mean: f64 = info.lines().find_map(|l| l.trim().strip_prefix("STATISTICS_MEAN=")).unwrap().parse().unwrap();
        assert!((mean - stats["mean"].as_f64().unwrap()).abs() < 1e-4, "{mean} vs {stats}");
    }
    // The result again, and its tiles; tiles straight from the scene's bands.
    let id = doc["id"].as_str().unwrap();
    let again: Value = s.get(&format!("/api/v1/eo/results/{id}"), &key).await.json().await.unwrap();
    assert_eq!(again["statistics"], doc["statistics"]);
    let tile = s.get(&format!("/api/v1/eo/results/{id}/tiles/7/83/62.png?colormap=rdylgn&rescale=-1,1"), &key).await;
    assert_eq!(tile.status(), 200);
    assert!(is_png(&tile.bytes().await.unwrap()));
    let tile = s.get(&format!("/api/v1/eo/scenes/cbers4%2F{SCENE}/tiles/7/83/62.png?index=ndvi"), &key).await;
    assert_eq!(tile.status(), 200);
    let png = tile.bytes().await.unwrap();
    assert!(is_png(&png));
    let (w, h, rgba) = crate::ogc::decode_png(&png);
    assert_eq!((w, h), (256, 256));
    assert!(rgba.chunks(4).any(|p| p[3] == 255) && rgba.chunks(4).any(|p| p[3] == 0), "the scene covers part of the tile");
    let away = s.get(&format!("/api/v1/eo/scenes/{SCENE}/tiles/7/10/10.png?expression=(B8-B7)/(B8%2BB7)"), &key).await;
    assert_eq!(away.status(), 204);
    crate::problem(s.get(&format!("/api/v1/eo/scenes/{SCENE}/tiles/7/83/62.png?colormap=plaid"), &key).await, 400, "invalid_parameter").await;

    // A job when asked (or when the area is large): 202, Location, the same document as output.
    let r = compute("ndwi", json!({"scene": SCENE, "async": true, "area": {"bbox": [53.7, 5.1, 54.3, 5.7]}})).await.unwrap();
    assert_eq!(r.status(), 202);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(120);
    let job = loop {
        let j: Value = s.get(&location, &key).await.json().await.unwrap();
        if j["status"] == "succeeded" {
            break j;
        }
        assert!(j["status"] != "failed", "{j}");
        assert!(Instant::now() < deadline, "{j}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let out = &job["output"];
    assert_eq!(out["expression"], "(B6 - B8) / (B6 + B8)", "NDWI from the green and nir common names: {out}");
    assert!(out["width"].as_u64().unwrap() < 163, "the area is a window of the scene");

    // Checked before anything runs: 422 with a pointer.
    for (path, body, pointer) in [
        ("ndvi", json!({"scene": "cbers4/nope"}), "/scene"),
        ("ndvi", json!({"scene": SCENE, "bands": {"red": "B9"}}), "/bands/red"),
        ("ndmi", json!({"scene": SCENE}), "/bands"),
        ("expression", json!({"scene": SCENE, "expression": "(B8 - B7) / (B8 + "}), "/expression"),
        ("expression", json!({"scene": SCENE, "expression": "B8 - nope"}), "/bands"),
        ("ndvi", json!({"scene": SCENE, "area": {"bbox": [10, 10, 11, 11]}}), "/area"),
        ("ndvi", json!({"scene": SCENE, "zones": {"collection": "parcels", "filter": "tenure ="}}), "/zones/filter"),
        ("ndvi", json!({"scene": SCENE, "output": {"colormap": "plaid"}}), "/output/colormap"),
        ("nope", json!({"scene": SCENE}), "/index"),
    ] {
        let p = crate::problem(compute(path, body.clone()).await.unwrap(), 422, "validation_failed").await;
        assert_eq!(p["errors"][0]["pointer"], pointer, "{path} {body}: {p}");
    }
    // Inputs on different grids: the DEM beside a band.
    let dem = std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../raster/tests/data/swissalti3d-2573-1085.tif")).unwrap();
    let form = reqwest::multipart::Form::new()
        .text("item", json!({"id": "mixed", "datetime": "2020-01-01T00:00:00Z"}).to_string())
        .part("B7", reqwest::multipart::Part::bytes(std::fs::read(band_path(7)).unwrap()))
        .part("dem", reqwest::multipart::Part::bytes(dem));
    let r = s.client.post(s.url("/api/v1/eo/collections/cbers4/items")).bearer_auth(&key).multipart(form).send().await.unwrap();
    assert!(r.status() == 201 || r.status() == 202);
    let deadline = Instant::now() + Duration::from_secs(60);
    while s.get("/api/v1/eo/collections/cbers4/items/mixed", &key).await.status() != 200 {
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let p = crate::problem(compute("expression", json!({"scene": "mixed", "expression": "B7 - dem"})).await.unwrap(), 422, "validation_failed").await;
    assert_eq!(p["errors"][0]["code"], "mismatched_grids", "{p}");
}
