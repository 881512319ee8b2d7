//! Cadastre API and OGC API Features over real HTTP.

use crate::{problem, Server};
use serde_json::{json, Value};

fn square(lon: f64, lat: f64, size: f64) -> Value {
    json!({"type": "Polygon", "coordinates": [[[lon, lat], [lon + size, lat], [lon + size, lat + size], [lon, lat + size], [lon, lat]]]})
}

fn parcel(lot: &str, plan: &str, geometry: Value) -> Value {
    json!({"type": "Feature", "geometry": geometry, "properties": {"lot": lot, "plan": plan, "tenure": "freehold", "zone": "R2"}})
}

async fn create(s: &Server, key: &str, body: &Value) -> reqwest::Response {
    s.client
        .post(s.url("/api/v1/cadastre/parcels"))
        .header("X-Api-Key", key)
        .header("content-type", "application/geo+json")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn parcels_are_registered_listed_filtered_and_versioned() {
    let s = Server::start();
    let (_, key) = s.signup("cad@example.com").await;

    let r = create(&s, &key, &parcel("1", "DP100", square(151.2, -33.87, 0.001))).await;
    assert_eq!(r.status(), 201);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    let etag = r.headers()["etag"].to_str().unwrap().to_owned();
    assert_eq!(r.headers()["content-type"], "application/geo+json");
    let created: Value = r.json().await.unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("parcel_") && location.ends_with(&id));
    let area = created["properties"]["area_m2"].as_f64().unwrap();
    // 0.001° × 0.001° at 33.87°S: about 92.5 m × 110.9 m on the ellipsoid.
    assert!((area - 10_257.0).abs() < 60.0, "area {area}");
    assert!(created["properties"]["updated_at"].as_str().unwrap().ends_with('Z'));

    create(&s, &key, &parcel("2", "DP100", square(151.21, -33.87, 0.001))).await;
    let far = create(&s, &key, &parcel("3", "DP200", square(144.9, -37.8, 0.001))).await;
    assert_eq!(far.status(), 201);

    // Same (lot, plan) again is a conflict.
    let dup = create(&s, &key, &parcel("1", "DP100", square(151.3, -33.8, 0.001))).await;
    problem(dup, 409, "parcel_exists").await;

    let list: Value = s.get("/api/v1/cadastre/parcels?bbox=151,-34,152,-33", &key).await.json().await.unwrap();
    assert_eq!(list["type"], "FeatureCollection");
    assert_eq!(list["meta"], json!({"total": 2, "limit": 100, "offset": 0}));
    assert_eq!(list["features"].as_array().unwrap().len(), 2);

    let page: Value = s.get("/api/v1/cadastre/parcels?limit=1&sortby=-lot", &key).await.json().await.unwrap();
    assert_eq!(page["meta"]["total"], 3);
    assert_eq!(page["features"][0]["properties"]["lot"], "3");
    let next = page["links"].as_array().unwrap().iter().find(|l| l["rel"] == "next").unwrap()["href"]
        .as_str()
        .unwrap()
        .to_owned();
    let page2: Value = s.client.get(&next).header("X-Api-Key", &key).send().await.unwrap().json().await.unwrap();
    assert_eq!(page2["features"][0]["properties"]["lot"], "2");

    let by_plan: Value = s.get("/api/v1/cadastre/parcels?plan=DP200", &key).await.json().await.unwrap();
    assert_eq!(by_plan["meta"]["total"], 1);
    let cql: Value = s
        .get("/api/v1/cadastre/parcels?filter=plan%20LIKE%20%27DP1%25%27%20AND%20S_INTERSECTS(geometry,POINT(151.2005%20-33.8695))", &key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(cql["meta"]["total"], 1);
    assert_eq!(cql["features"][0]["id"], id.as_str());

    // Output in MGA zone 56 (GDA2020): eastings and northings, with Content-Crs.
    let r = s.get(&format!("/api/v1/cadastre/parcels/{id}?crs=http://www.opengis.net/def/crs/EPSG/0/7856"), &key).await;
    assert_eq!(r.headers()["content-crs"], "<http://www.opengis.net/def/crs/EPSG/0/7856>");
    let projected: Value = r.json().await.unwrap();
    let e = projected["geometry"]["coordinates"][0][0][0].as_f64().unwrap();
    let n = projected["geometry"]["coordinates"][0][0][1].as_f64().unwrap();
    assert!((e - 333_500.0).abs() < 2_000.0 && (n - 6_251_000.0).abs() < 3_000.0, "{e} {n}");

    // PATCH with a stale ETag fails; with the current one it bumps the version.
    let patch = |tag: &str| {
        s.client
            .patch(s.url(&format!("/api/v1/cadastre/parcels/{id}")))
            .header("X-Api-Key", &key)
            .header("content-type", "application/merge-patch+json")
            .header("if-match", tag)
            .body(json!({"properties": {"tenure": "leasehold", "zone": null}}).to_string())
            .send()
    };
    let r = patch(&etag).await.unwrap();
    assert_eq!(r.status(), 200);
    let new_etag = r.headers()["etag"].to_str().unwrap().to_owned();
    let updated: Value = r.json().await.unwrap();
    assert_eq!(updated["properties"]["tenure"], "leasehold");
    assert!(updated["properties"].get("zone").is_none());
    problem(patch(&etag).await.unwrap(), 412, "precondition_failed").await;
    assert_ne!(etag, new_etag);

    let r = s
        .client
        .delete(s.url(&format!("/api/v1/cadastre/parcels/{id}")))
        .header("X-Api-Key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    problem(s.get(&format!("/api/v1/cadastre/parcels/{id}"), &key).await, 404, "not_found").await;
    let history: Value = s.get(&format!("/api/v1/cadastre/parcels/{id}/history"), &key).await.json().await.unwrap();
    let changes: Vec<&str> =
        history["versions"].as_array().unwrap().iter().map(|v| v["change"].as_str().unwrap()).collect();
    assert_eq!(changes, ["registered", "updated", "retired"]);
    assert_eq!(history["versions"][0]["properties"]["tenure"], "freehold");

    // The lot is free again after retirement.
    assert_eq!(create(&s, &key, &parcel("1", "DP100", square(151.2, -33.87, 0.001))).await.status(), 201);
}

#[tokio::test]
async fn bad_parcels_and_queries_are_refused_clearly() {
    let s = Server::start();
    let (_, key) = s.signup("bad@example.com").await;
    let bowtie = json!({"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]});
    let body = problem(create(&s, &key, &parcel("1", "P", bowtie)).await, 422, "validation_failed").await;
    assert_eq!(body["errors"][0]["code"], "self_intersection");
    assert!(body["errors"][0]["pointer"].as_str().unwrap().starts_with("/geometry/coordinates/0"));
    let no_lot = json!({"type": "Feature", "geometry": square(0.0, 0.0, 1.0), "properties": {"plan": "P"}});
    let body = problem(create(&s, &key, &no_lot).await, 422, "validation_failed").await;
    assert_eq!(body["errors"][0]["pointer"], "/properties/lot");

    problem(s.get("/api/v1/cadastre/parcels?limit=10001", &key).await, 422, "validation_failed").await;
    problem(s.get("/api/v1/cadastre/parcels?colour=red", &key).await, 400, "unknown_parameter").await;
    problem(s.get("/api/v1/cadastre/parcels?bbox=1,2,3", &key).await, 400, "invalid_bbox").await;
    let body = problem(s.get("/api/v1/cadastre/parcels?crs=EPSG:99999", &key).await, 400, "unsupported_crs").await;
    assert!(body["detail"].as_str().unwrap().contains("CRS84"));
    problem(s.get("/api/v1/cadastre/parcels?filter=lot%20%3D", &key).await, 400, "invalid_filter").await;
    problem(s.get("/api/v1/cadastre/parcels?filter=owner%3D'x'", &key).await, 400, "invalid_filter").await;
}

#[tokio::test]
async fn projected_input_and_tenant_isolation() {
    let s = Server::start();
    let (_, a) = s.signup("a@example.com").await;
    let (_, b) = s.signup("b@example.com").await;
    // A 100 m square in MGA zone 56 (EPSG:28356), sent with Content-Crs.
    let (e, n) = (334_000.0, 6_250_000.0);
    let geometry = json!({"type": "Polygon", "coordinates": [[[e, n], [e + 100.0, n], [e + 100.0, n + 100.0], [e, n + 100.0], [e, n]]]});
    let r = s
        .client
        .post(s.url("/api/v1/cadastre/parcels"))
        .header("X-Api-Key", &a)
        .header("content-type", "application/geo+json")
        .header("content-crs", "<http://www.opengis.net/def/crs/EPSG/0/28356>")
        .body(parcel("9", "SP9", geometry).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let f: Value = r.json().await.unwrap();
    let area = f["properties"]["area_m2"].as_f64().unwrap();
    // A 100 m grid square is about 10,000 m² on the ground (scale factor near 0.9996).
    assert!((area - 10_000.0).abs() < 100.0, "{area}");
    let lon = f["geometry"]["coordinates"][0][0][0].as_f64().unwrap();
    assert!((150.0..152.0).contains(&lon), "stored in CRS84: {lon}");
    let id = f["id"].as_str().unwrap();

    problem(s.get(&format!("/api/v1/cadastre/parcels/{id}"), &b).await, 404, "not_found").await;
    let list: Value = s.get("/api/v1/cadastre/parcels", &b).await.json().await.unwrap();
    assert_eq!(list["meta"]["total"], 0);
    let r =
        s.client.delete(s.url(&format!("/api/v1/cadastre/parcels/{id}"))).header("X-Api-Key", &b).send().await.unwrap();
    problem(r, 404, "not_found").await;
    problem(s.get(&format!("/api/v1/cadastre/parcels/{id}/history"), &b).await, 404, "not_found").await;
}

#[tokio::test]
async fn ogc_api_features_serves_the_same_parcels() {
    let s = Server::start();
    let (_, key) = s.signup("ogc@example.com").await;
    for i in 0..5 {
        create(&s, &key, &parcel(&i.to_string(), "DP1", square(151.0 + f64::from(i) * 0.01, -33.9, 0.005))).await;
    }
    let root = "/api/v1/ogc/v1/features";
    let landing: Value = s.client.get(s.url(root)).send().await.unwrap().json().await.unwrap();
    assert!(landing["links"].as_array().unwrap().iter().any(|l| l["rel"] == "conformance"));
    let conf: Value = s.client.get(s.url(&format!("{root}/conformance"))).send().await.unwrap().json().await.unwrap();
    assert!(conf["conformsTo"].as_array().unwrap().iter().any(|c| c.as_str().unwrap().ends_with("cql2-text")));
    let cols: Value = s.get(&format!("{root}/collections"), &key).await.json().await.unwrap();
    assert_eq!(cols["collections"][0]["id"], "parcels");
    let q: Value = s.get(&format!("{root}/collections/parcels/queryables"), &key).await.json().await.unwrap();
    assert_eq!(q["properties"]["lot"]["type"], "string");

    let items: Value = s.get(&format!("{root}/collections/parcels/items?limit=2"), &key).await.json().await.unwrap();
    assert_eq!(items["numberMatched"], 5);
    assert_eq!(items["numberReturned"], 2);
    let json_filter = json!({"op": "in", "args": [{"property": "lot"}, ["1", "3"]]}).to_string();
    let encoded: String = form_urlencoded_encode(&json_filter);
    let filtered: Value = s
        .get(&format!("{root}/collections/parcels/items?filter-lang=cql2-json&filter={encoded}"), &key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(filtered["numberMatched"], 2);
    problem(s.get(&format!("{root}/collections/parcels/items?nonsense=1"), &key).await, 400, "unknown_parameter").await;
    problem(s.get(&format!("{root}/collections/nope/items"), &key).await, 404, "not_found").await;

    let html = s
        .client
        .get(s.url(&format!("{root}/collections/parcels/items?f=html")))
        .header("X-Api-Key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(html.headers()["content-type"], "text/html; charset=utf-8");
    let text = html.text().await.unwrap();
    assert!(text.contains("<svg") && text.contains("<path"), "the HTML page has a map");

    // Upload a collection of points, then query it.
    let upload = json!({"type": "FeatureCollection", "id": "trees", "title": "Street trees", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [151.0, -33.9]}, "properties": {"species": "Eucalyptus", "height": 12.5}},
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [151.1, -33.8]}, "properties": {"species": "Ficus", "height": 20}}
    ]});
    let r = s
        .client
        .post(s.url(&format!("{root}/collections")))
        .header("X-Api-Key", &key)
        .header("content-type", "application/geo+json")
        .body(upload.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let tall: Value =
        s.get(&format!("{root}/collections/trees/items?filter=height%3E15"), &key).await.json().await.unwrap();
    assert_eq!(tall["numberMatched"], 1);
    assert_eq!(tall["features"][0]["properties"]["species"], "Ficus");
    let by_param: Value =
        s.get(&format!("{root}/collections/trees/items?species=Eucalyptus"), &key).await.json().await.unwrap();
    assert_eq!(by_param["numberMatched"], 1);
}

fn form_urlencoded_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn bbox_selects_by_exact_geometry_not_by_envelope() {
    let s = Server::start();
    let (_, key) = s.signup("exact@example.com").await;
    // An L-shaped parcel: its envelope covers (0.5..1, 0.5..1) but the parcel does not.
    let l_shape =
        json!({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 0.4], [0.4, 0.4], [0.4, 1], [0, 1], [0, 0]]]});
    assert_eq!(create(&s, &key, &parcel("L", "P1", l_shape)).await.status(), 201);
    let miss: Value = s.get("/api/v1/cadastre/parcels?bbox=0.6,0.6,0.9,0.9", &key).await.json().await.unwrap();
    assert_eq!(miss["meta"]["total"], 0);
    let hit: Value = s.get("/api/v1/cadastre/parcels?bbox=0.1,0.6,0.2,0.9", &key).await.json().await.unwrap();
    assert_eq!(hit["meta"]["total"], 1);
}
