//! Collection uploads: GeoJSON and FlatGeobuf (written by GDAL's `ogr2ogr`), imported at once or
//! by a `features.import` job, and the extents collections publish.

use crate::{have_tool, problem, Server};
use serde_json::{json, Value};
use std::process::Command;
use std::time::Duration;

const ROOT: &str = "/api/v1/ogc/v1/features";

async fn upload(s: &Server, key: &str, query: &str, content_type: &str, body: Vec<u8>) -> reqwest::Response {
    upload_with(s, key, query, content_type, body, &[]).await
}

async fn upload_with(
    s: &Server,
    key: &str,
    query: &str,
    content_type: &str,
    body: Vec<u8>,
    headers: &[(&str, &str)],
) -> reqwest::Response {
    let mut req = s
        .client
        .post(s.url(&format!("{ROOT}/collections{query}")))
        .header("X-Api-Key", key)
        .header("content-type", content_type);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.body(body).send().await.unwrap()
}

/// `n` small squares in a row starting at (lon, lat), with a `name` and an `n` property.
fn squares(id: Option<&str>, lon: f64, lat: f64, n: usize) -> Value {
    let d = 0.001;
    let features: Vec<Value> = (0..n)
        .map(|i| {
            let x = lon + i as f64 * 2.0 * d;
            json!({"type": "Feature", "properties": {"name": format!("sq{i}"), "n": i},
                "geometry": {"type": "Polygon", "coordinates": [[[x, lat], [x + d, lat], [x + d, lat + d], [x, lat + d], [x, lat]]]}})
        })
        .collect();
    let mut fc = json!({"type": "FeatureCollection", "features": features});
    if let Some(id) = id {
        fc["id"] = json!(id);
    }
    fc
}

async fn wait_for_job(s: &Server, key: &str, location: &str) -> Value {
    for _ in 0..600 {
        let job: Value = s.get(location, key).await.json().await.unwrap();
        if ["succeeded", "failed", "cancelled"].contains(&job["status"].as_str().unwrap_or("")) {
            return job;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the job at {location} did not finish");
}

#[tokio::test]
async fn big_uploads_are_imported_by_a_job_all_or_nothing() {
    let s = Server::start_with(&[("MERIDIAN_FEATURES__SYNC_IMPORT_BYTES", "4096")]);
    let (_, key) = s.signup("import@example.com").await;
    let (_, other) = s.signup("other-import@example.com").await;

    // Small: imported at once.
    let r =
        upload(&s, &key, "", "application/geo+json", squares(Some("small"), 10.0, 50.0, 3).to_string().into()).await;
    assert_eq!(r.status(), 201);

    // Big: a job, whose id is the Location.
    let r = upload(
        &s,
        &key,
        "?title=Many%20squares",
        "application/geo+json",
        squares(Some("many"), 10.0, 50.0, 400).to_string().into(),
    )
    .await;
    assert_eq!(r.status(), 202);
    assert_eq!(r.headers()["preference-applied"], "respond-async");
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with("/api/v1/jobs/job_"), "{location}");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["kind"], "features.import");
    // Another account cannot see the job.
    assert_eq!(s.get(&location, &other).await.status(), 404);
    let job = wait_for_job(&s, &key, &location).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    assert_eq!(job["progress"], 100);
    assert_eq!(job["output"]["collection"], "many");
    assert_eq!(job["output"]["numberOfFeatures"], 400);
    let c: Value = s.get(&format!("{ROOT}/collections/many"), &key).await.json().await.unwrap();
    assert_eq!(c["title"], "Many squares");
    let items: Value = s.get(&format!("{ROOT}/collections/many/items?limit=1"), &key).await.json().await.unwrap();
    assert_eq!(items["numberMatched"], 400);
    assert_eq!(s.get(&format!("{ROOT}/collections/many"), &other).await.status(), 404);

    // One bad feature fails the whole job with a pointer to it, and creates nothing.
    let mut bad = squares(Some("broken"), 10.0, 50.0, 300);
    bad["features"][7]["geometry"]["coordinates"][0][4] = json!([11.0, 51.0]);
    let r = upload(&s, &key, "", "application/geo+json", bad.to_string().into()).await;
    assert_eq!(r.status(), 202);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    let job = wait_for_job(&s, &key, &location).await;
    assert_eq!(job["status"], "failed", "{job}");
    assert_eq!(job["error"]["status"], 422);
    let pointer = job["error"]["errors"][0]["pointer"].as_str().unwrap();
    assert!(pointer.starts_with("/features/7/geometry"), "{pointer}");
    assert_eq!(s.get(&format!("{ROOT}/collections/broken"), &key).await.status(), 404);

    // A small upload can ask for a job too; a taken id is refused at once either way.
    let r = upload_with(
        &s,
        &key,
        "?id=asked",
        "application/geo+json",
        squares(None, 1.0, 1.0, 2).to_string().into(),
        &[("Prefer", "respond-async")],
    )
    .await;
    assert_eq!(r.status(), 202);
    let job = wait_for_job(&s, &key, r.headers()["location"].to_str().unwrap()).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    let r =
        upload(&s, &key, "?id=many", "application/geo+json", squares(None, 10.0, 50.0, 400).to_string().into()).await;
    problem(r, 409, "collection_exists").await;
    let r = upload(&s, &key, "", "application/geo+json", squares(Some("small"), 1.0, 1.0, 1).to_string().into()).await;
    problem(r, 409, "collection_exists").await;

    // Bad requests.
    problem(upload(&s, &key, "?id=x", "text/csv", b"a,b".to_vec()).await, 415, "unsupported_media_type").await;
    problem(upload(&s, &key, "?id=Bad%20Id", "application/geo+json", b"{}".to_vec()).await, 422, "validation_failed")
        .await;
    problem(upload(&s, &key, "?nope=1", "application/geo+json", b"{}".to_vec()).await, 400, "malformed_request").await;
    problem(
        upload(
            &s,
            &key,
            "?id=x",
            "application/geo+json",
            b"{\"type\": \"FeatureCollection\", \"features\": [".to_vec(),
        )
        .await,
        400,
        "malformed_request",
    )
    .await;
    problem(
        upload(&s, &key, "?id=x", "application/flatgeobuf", b"not a flatgeobuf file".to_vec()).await,
        400,
        "malformed_request",
    )
    .await;
}

#[tokio::test]
async fn uploads_over_the_limit_are_413() {
    let s = Server::start_with(&[("MERIDIAN_LIMITS__UPLOAD_BYTES", "20000")]);
    let (_, key) = s.signup("limit-import@example.com").await;
    let body = squares(Some("too-big"), 10.0, 50.0, 200).to_string();
    assert!(body.len() > 20000);
    problem(upload(&s, &key, "", "application/geo+json", body.into()).await, 413, "payload_too_large").await;
    assert_eq!(s.get(&format!("{ROOT}/collections/too-big"), &key).await.status(), 404);
}

#[tokio::test]
async fn collections_publish_their_extent() {
    let s = Server::start();
    let (_, key) = s.signup("extent@example.com").await;
    let r = upload(&s, &key, "", "application/geo+json", squares(Some("row"), 10.0, 50.0, 5).to_string().into()).await;
    assert_eq!(r.status(), 201);
    let c: Value = s.get(&format!("{ROOT}/collections/row"), &key).await.json().await.unwrap();
    let bbox =
        c["extent"]["spatial"]["bbox"][0].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect::<Vec<_>>();
    let expect = [10.0, 50.0, 10.0 + 8.0 * 0.001 + 0.001, 50.001];
    // The spatial index keeps single-precision boxes rounded outwards: the extent encloses the
    // features and is within one float32 step of them.
    for (k, (got, want)) in bbox.iter().zip(expect).enumerate() {
        let outwards = if k < 2 { *got <= want } else { *got >= want };
        assert!(outwards && (got - want).abs() < 2e-5, "{bbox:?} vs {expect:?}");
    }
    assert_eq!(c["extent"]["spatial"]["crs"], "http://www.opengis.net/def/crs/OGC/1.3/CRS84");
    assert!(c["extent"]["temporal"]["interval"][0][0].is_string());
    // Removing the easternmost feature shrinks the extent.
    let items: Value =
        s.get(&format!("{ROOT}/collections/row/items?sortby=-n&limit=1"), &key).await.json().await.unwrap();
    let fid = items["features"][0]["id"].as_str().unwrap().to_owned();
    let r = s
        .client
        .delete(s.url(&format!("{ROOT}/collections/row/items/{fid}")))
        .header("X-Api-Key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let c: Value = s.get(&format!("{ROOT}/collections/row"), &key).await.json().await.unwrap();
    let max_x = c["extent"]["spatial"]["bbox"][0][2].as_f64().unwrap();
    assert!((max_x - (10.0 + 6.0 * 0.001 + 0.001)).abs() < 2e-5, "{c}");
    // The list of collections carries extents too; an empty parcels collection has none.
    let list: Value = s.get(&format!("{ROOT}/collections"), &key).await.json().await.unwrap();
    let row = list["collections"].as_array().unwrap().iter().find(|c| c["id"] == "row").unwrap();
    assert!(row["extent"]["spatial"]["bbox"].is_array());
    let parcels = list["collections"].as_array().unwrap().iter().find(|c| c["id"] == "parcels").unwrap();
    assert!(parcels.get("extent").is_none(), "{parcels}");
}

fn run(cmd: &str, args: &[&str]) {
    let out = Command::new(cmd).args(args).output().unwrap();
    assert!(out.status.success(), "{cmd} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[tokio::test]
async fn flatgeobuf_written_by_gdal_uploads_in_any_crs() {
    if !have_tool("ogr2ogr", "flatgeobuf_written_by_gdal_uploads_in_any_crs") {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("fgb@example.com").await;
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("lots.geojson");
    std::fs::write(&src, squares(None, 151.2, -33.87, 25).to_string()).unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();

    // Longitude/latitude (EPSG:4326), projected (MGA zone 56 on GDA2020) and another geographic
    // CRS (GDA94, axis order swapped by EPSG but longitude first in FlatGeobuf).
    run("ogr2ogr", &["-f", "FlatGeobuf", &p("wgs84.fgb"), src.to_str().unwrap(), "-nln", "lots_wgs84"]);
    run(
        "ogr2ogr",
        &["-f", "FlatGeobuf", &p("mga56.fgb"), src.to_str().unwrap(), "-t_srs", "EPSG:7856", "-nln", "lots_mga"],
    );
    run(
        "ogr2ogr",
        &["-f", "FlatGeobuf", &p("gda94.fgb"), src.to_str().unwrap(), "-a_srs", "EPSG:4283", "-nln", "lots_gda94"],
    );

    let mut named = Vec::new();
    for (file, query) in [("wgs84.fgb", "?title=WGS84%20lots"), ("mga56.fgb", "?id=mga"), ("gda94.fgb", "")] {
        let r = upload(&s, &key, query, "application/flatgeobuf", std::fs::read(p(file)).unwrap()).await;
        let status = r.status();
        let body: Value = r.json().await.unwrap();
        assert_eq!(status, 201, "{file}: {body}");
        assert_eq!(body["numberOfFeatures"], 25);
        named.push(body["id"].as_str().unwrap().to_owned());
    }
    // The layer name is the id unless the query gives one.
    assert_eq!(named, ["lots_wgs84", "mga", "lots_gda94"]);
    let c: Value = s.get(&format!("{ROOT}/collections/lots_wgs84"), &key).await.json().await.unwrap();
    assert_eq!(c["title"], "WGS84 lots");

    for id in &named {
        let items: Value =
            s.get(&format!("{ROOT}/collections/{id}/items?limit=100&sortby=n"), &key).await.json().await.unwrap();
        assert_eq!(items["numberMatched"], 25, "{id}");
        let f = &items["features"][3];
        assert_eq!(f["properties"]["name"], "sq3", "{id}");
        assert_eq!(f["properties"]["n"], 3, "{id}");
        let ring = f["geometry"]["coordinates"][0].as_array().unwrap();
        let (lon, lat) = (ring[0][0].as_f64().unwrap(), ring[0][1].as_f64().unwrap());
        // 1e-7 degrees is about a centimetre.
        let want_lon = 151.2 + 3.0 * 0.002;
        assert!((lon - want_lon).abs() < 1e-7 && (lat + 33.87).abs() < 1e-7, "{id}: {lon} {lat}");
    }
}
