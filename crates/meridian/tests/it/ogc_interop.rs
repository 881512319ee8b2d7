//! OGC API Features driven by the clients GIS users already have: GDAL/OGR's OAPIF driver
//! (`ogrinfo`, `ogr2ogr` to a GeoPackage) and OWSLib.

use crate::{have_python_module, have_tool, header_file, seed_parcels, Server};
use std::process::Command;

#[tokio::test]
async fn gdal_lists_counts_and_copies_parcels_to_geopackage() {
    if !have_tool("ogrinfo", "gdal_lists_counts_and_copies_parcels_to_geopackage") {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("gdal@example.com").await;
    seed_parcels(&s, &key, 25).await;
    let headers = header_file(&s, &key);
    let source = format!("OAPIF:{}/api/v1/ogc/v1/features", s.base);
    let gpkg = s.dir.path().join("parcels.gpkg");
    // GDAL blocks; run it off the runtime that serves nothing here but keeps the test async.
    let (listing, summary) = tokio::task::spawn_blocking(move || {
        let run = |program: &str, args: &[&str]| {
            let out = Command::new(program).args(args).env("GDAL_HTTP_HEADER_FILE", &headers).output().unwrap();
            assert!(out.status.success(), "{program} {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let listing = run("ogrinfo", &["-ro", "-so", &source]);
        run("ogr2ogr", &["-f", "GPKG", gpkg.to_str().unwrap(), &source, "parcels"]);
        let summary = run("ogrinfo", &["-ro", "-so", gpkg.to_str().unwrap(), "parcels"]);
        (listing, summary)
    })
    .await
    .unwrap();
    assert!(listing.contains("parcels"), "{listing}");
    assert!(summary.contains("Feature Count: 25"), "{summary}");
    assert!(summary.contains("lot: String") && summary.contains("area_m2: Real"), "{summary}");
}

#[tokio::test]
async fn owslib_pages_through_items_with_bbox_and_cql2() {
    if !have_python_module("python3", "owslib.ogcapi.features", "owslib_pages_through_items_with_bbox_and_cql2") {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("owslib@example.com").await;
    seed_parcels(&s, &key, 30).await;
    let script = r#"
import json, sys
from owslib.ogcapi.features import Features
url, key = sys.argv[1], sys.argv[2]
w = Features(url, headers={"X-Api-Key": key})
assert "parcels" in [c["id"] for c in w.collections()["collections"]]
seen, offset = [], 0
while True:
    page = w.collection_items("parcels", limit=7, offset=offset, bbox=[150.9, -34.0, 151.2, -33.0])
    seen += [f["id"] for f in page["features"]]
    if not any(l["rel"] == "next" for l in page["links"]):
        break
    offset += 7
filtered = w.collection_items("parcels", filter="tenure = 'freehold' AND plan = 'DP0'", limit=100)
print(json.dumps({"paged": len(seen), "unique": len(set(seen)), "matched": page["numberMatched"], "filtered": filtered["numberMatched"]}))
"#;
    let url = format!("{}/api/v1/ogc/v1/features", s.base);
    let out =
        tokio::task::spawn_blocking(move || Command::new("python3").args(["-c", script, &url, &key]).output().unwrap())
            .await
            .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["paged"], 30);
    assert_eq!(result["unique"], 30);
    assert_eq!(result["matched"], 30);
    // lots 0..29 with i % 2 == 0 and i % 3 == 0: 0, 6, 12, 18, 24.
    assert_eq!(result["filtered"], 5);
}
