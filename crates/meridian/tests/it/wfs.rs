//! WFS 2.0 against the built binary: over HTTP, with GDAL/OGR's WFS driver (`ogrinfo`,
//! `ogr2ogr` paging into a GeoPackage, a WFS-T update with the Python bindings) and OWSLib.

use crate::{have_python_module, have_tool, header_file, seed_parcels, Server};
use serde_json::{json, Value};
use std::process::Command;

async fn wfs(s: &Server, key: &str, query: &str) -> reqwest::Response {
    s.client.get(s.url(&format!("/api/v1/ogc/wfs?{query}"))).header("X-Api-Key", key).send().await.unwrap()
}

#[tokio::test]
async fn wfs_over_http_answers_documents_and_exception_reports() {
    let s = Server::start();
    let (_, key) = s.signup("wfs@example.com").await;
    seed_parcels(&s, &key, 3).await;
    let r = wfs(&s, &key, "SERVICE=WFS&REQUEST=GetCapabilities").await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/xml");
    let caps = r.text().await.unwrap();
    assert!(caps.contains("<wfs:Name>features:parcels</wfs:Name>"));
    assert!(caps.contains(&format!("xlink:href=\"{}/api/v1/ogc/wfs?\"", s.base)), "{caps}");
    // Parameters the request carried for authentication come back in the operation URLs.
    let r = wfs(&s, &key, "service=WFS&request=GetCapabilities&access_token=abc").await;
    assert!(r.text().await.unwrap().contains("/api/v1/ogc/wfs?access_token=abc&amp;\""));

    let r = wfs(&s, &key, "service=WFS&version=2.0.0&request=GetFeature&typeNames=features:parcels&count=2").await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/gml+xml; version=3.2");
    let doc = r.text().await.unwrap();
    assert!(doc.contains("numberMatched=\"3\" numberReturned=\"2\""), "{doc}");
    assert!(doc.contains(" next=\""));
    let r =
        wfs(&s, &key, "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&outputFormat=application/json")
            .await;
    assert_eq!(r.headers()["content-type"], "application/json");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["features"].as_array().map(Vec::len), Some(3));

    for (query, status, code) in [
        ("service=WFS&version=2.0.0", 400, "MissingParameterValue"),
        ("service=WFS&version=2.0.0&request=GetFeature&typeNames=nope", 400, "InvalidParameterValue"),
        (
            "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&filter=%3Cbroken",
            400,
            "OperationParsingFailed",
        ),
        ("service=WFS&version=2.0.0&request=LockFeature", 501, "OperationNotSupported"),
    ] {
        let r = wfs(&s, &key, query).await;
        assert_eq!(r.status().as_u16(), status, "{query}");
        assert_eq!(r.headers()["content-type"], "application/xml");
        let text = r.text().await.unwrap();
        assert!(text.contains(&format!("exceptionCode=\"{code}\"")), "{query}: {text}");
    }
    let r = s
        .client
        .post(s.url("/api/v1/ogc/wfs"))
        .header("X-Api-Key", &key)
        .header("content-type", "application/xml")
        .body("<wfs:GetFeature service=\"WFS\" version=\"2.0.0\"")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("OperationParsingFailed"));

    // A read-only key queries by POST too, but may not change features.
    let r = s
        .client
        .post(s.url("/api/v1/account/api-keys"))
        .header("X-Api-Key", &key)
        .json(&json!({"name": "reader", "scopes": ["ogc:read"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let reader = r.json::<Value>().await.unwrap()["api_key"].as_str().unwrap().to_owned();
    let post = |body: &'static str| {
        s.client
            .post(s.url("/api/v1/ogc/wfs"))
            .header("X-Api-Key", &reader)
            .header("content-type", "application/xml")
            .body(body)
            .send()
    };
    let r = post("<wfs:GetFeature service=\"WFS\" version=\"2.0.0\" resultType=\"hits\" xmlns:wfs=\"http://www.opengis.net/wfs/2.0\"><wfs:Query typeNames=\"features:parcels\"/></wfs:GetFeature>").await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("numberMatched="));
    let r = post("<wfs:Transaction service=\"WFS\" version=\"2.0.0\" xmlns:wfs=\"http://www.opengis.net/wfs/2.0\" xmlns:fes=\"http://www.opengis.net/fes/2.0\"><wfs:Delete typeName=\"features:parcels\"><fes:Filter><fes:ResourceId rid=\"parcel_x\"/></fes:Filter></wfs:Delete></wfs:Transaction>").await.unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("exceptionCode=\"OperationProcessingFailed\""));

    // Another tenant sees its own (empty) parcels, none of these.
    let (_, other) = s.signup("other-wfs@example.com").await;
    let r = wfs(&s, &other, "service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&resultType=hits").await;
    assert!(r.text().await.unwrap().contains("numberMatched=\"0\""));
    // No credentials: the platform's 401, as the OWS exception report WFS clients read.
    let r = s.client.get(s.url("/api/v1/ogc/wfs?service=WFS&request=GetCapabilities")).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.headers().contains_key("www-authenticate"));
    assert_eq!(r.headers()["content-type"], "application/xml");
    let body = r.text().await.unwrap();
    assert!(body.contains("<ows:ExceptionReport") && body.contains("locator=\"authorization\""), "{body}");
    // A body over the limit is a report too, not plain text; elsewhere the same overflow is a
    // problem document. (The head alone is sent: the server answers before reading a body it
    // will not take.)
    let over = |path: &'static str| {
        let (addr, key) = (s.base.trim_start_matches("http://").to_owned(), key.clone());
        async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let c = tokio::net::TcpStream::connect(&addr).await.unwrap();
            let (mut rx, mut c) = c.into_split();
            let head = format!(
                "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\n\
                 Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                3 << 20
            );
            c.write_all(head.as_bytes()).await.unwrap();
            // The body goes out while the answer is read; the server may stop reading it.
            tokio::spawn(async move {
                let chunk = vec![b' '; 64 * 1024];
                for _ in 0..48 {
                    if c.write_all(&chunk).await.is_err() {
                        break;
                    }
                }
            });
            let mut answer = Vec::new();
            let _ = tokio::time::timeout(std::time::Duration::from_secs(10), rx.read_to_end(&mut answer)).await;
            String::from_utf8_lossy(&answer).to_ascii_lowercase()
        }
    };
    let wfs = over("/api/v1/ogc/wfs").await;
    assert!(wfs.starts_with("http/1.1 413"), "{wfs}");
    assert!(wfs.contains("content-type: application/xml") && wfs.contains("<ows:exceptionreport"), "{wfs}");
    let dns = over("/v1/dns/zones").await;
    assert!(dns.starts_with("http/1.1 413"), "{dns}");
    assert!(dns.contains("content-type: application/problem+json"), "{dns}");
}

/// A Python that has GDAL's bindings (Debian's python3-gdal installs them for the system Python).
fn gdal_python(test: &str) -> Option<String> {
    for candidate in ["python3", "/usr/bin/python3"] {
        let ok = Command::new(candidate).args(["-c", "import osgeo.ogr"]).output().is_ok_and(|o| o.status.success());
        if ok {
            return Some(candidate.to_owned());
        }
    }
    have_python_module("python3", "osgeo.ogr", test).then(|| "python3".to_owned())
}

#[tokio::test]
async fn gdal_pages_a_wfs_layer_into_geopackage_and_updates_through_wfs_t() {
    let test = "gdal_pages_a_wfs_layer_into_geopackage_and_updates_through_wfs_t";
    if !have_tool("ogr2ogr", test) {
        return;
    }
    let Some(python) = gdal_python(test) else { return };
    let s = Server::start();
    let (_, key) = s.signup("gdal-wfs@example.com").await;
    seed_parcels(&s, &key, 250).await;
    let headers = header_file(&s, &key);
    let source = format!("WFS:{}/api/v1/ogc/wfs", s.base);
    let gpkg = s.dir.path().join("parcels.gpkg");
    let script = r#"
import sys
from osgeo import ogr, gdal
gdal.UseExceptions()
ds = ogr.Open(sys.argv[1], 1)
lyr = ds.GetLayerByName("features:parcels")
lyr.SetAttributeFilter("lot = '7'")
f = lyr.GetNextFeature()
f.SetField("tenure", "crown")
lyr.SetFeature(f)
lyr.SyncToDisk()
print(f.GetField("gml_id"))
"#;
    let (listing, summary, lot7, updated_id) = tokio::task::spawn_blocking(move || {
        let run = |program: &str, args: &[&str]| {
            let out = Command::new(program)
                .args(args)
                .env("GDAL_HTTP_HEADER_FILE", &headers)
                .env("OGR_WFS_PAGING_ALLOWED", "ON")
                .env("OGR_WFS_PAGE_SIZE", "100")
                .env("CPL_DEBUG", "ON")
                .output()
                .unwrap();
            assert!(out.status.success(), "{program} {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
            (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
        };
        let (listing, _) = run("ogrinfo", &["-ro", "-so", &source, "features:parcels"]);
        let (_, debug) =
            run("ogr2ogr", &["-f", "GPKG", gpkg.to_str().unwrap(), &source, "features:parcels", "-nln", "parcels"]);
        // GDAL paged: three GetFeature requests of 100.
        for start in ["STARTINDEX=0&COUNT=100", "STARTINDEX=100&COUNT=100", "STARTINDEX=200&COUNT=100"] {
            assert!(debug.contains(start), "GDAL did not page ({start}): {debug}");
        }
        let (summary, _) = run("ogrinfo", &["-ro", "-so", gpkg.to_str().unwrap(), "parcels"]);
        let (lot7, _) = run("ogrinfo", &["-ro", gpkg.to_str().unwrap(), "parcels", "-where", "lot = '7'"]);
        let (updated, _) = run(&python, &["-c", script, &source]);
        (listing, summary, lot7, updated.trim().to_owned())
    })
    .await
    .unwrap();
    assert!(listing.contains("Feature Count: 250"), "{listing}");
    // DescribeFeatureType names the parcels' geometry type, so GDAL does not see "Unknown (any)".
    assert!(listing.contains("Geometry: Multi Surface") || listing.contains("Geometry: Multi Polygon"), "{listing}");
    assert!(summary.contains("Feature Count: 250"), "{summary}");
    for field in
        ["gml_id: String", "lot: String", "plan: String", "tenure: String", "area_m2: Real", "updated_at: DateTime"]
    {
        assert!(summary.contains(field), "{field}: {summary}");
    }
    assert!(lot7.contains("plan (String) = DP1") && lot7.contains("tenure (String) = leasehold"), "{lot7}");
    assert!(lot7.contains("(((151.07 -33.9,151.075 -33.9"), "{lot7}");
    // The WFS-T update went through the cadastre's write path: a new version, history, same parcel.
    let r = s.get(&format!("/api/v1/cadastre/parcels/{updated_id}"), &key).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["etag"], format!("\"{updated_id}-v2\""));
    let parcel: Value = r.json().await.unwrap();
    assert_eq!(parcel["properties"]["tenure"], "crown");
    assert_eq!(parcel["properties"]["lot"], "7");
    let history: Value =
        s.get(&format!("/api/v1/cadastre/parcels/{updated_id}/history"), &key).await.json().await.unwrap();
    assert!(history.to_string().contains("\"updated\""), "{history}");
}

#[tokio::test]
async fn owslib_reads_the_wfs_with_bbox_filter_and_paging() {
    let test = "owslib_reads_the_wfs_with_bbox_filter_and_paging";
    if !have_python_module("python3", "owslib.wfs", test) {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("owslib-wfs@example.com").await;
    seed_parcels(&s, &key, 30).await;
    let script = r#"
import json, sys
from owslib.wfs import WebFeatureService
from owslib.fes2 import PropertyIsEqualTo, And
from owslib.etree import etree
url, key = sys.argv[1], sys.argv[2]
w = WebFeatureService(url, version="2.0.0", headers={"X-Api-Key": key})
ns = {"wfs": "http://www.opengis.net/wfs/2.0", "features": "urn:meridian:features", "gml": "http://www.opengis.net/gml/3.2"}
def members(resp):
    doc = etree.fromstring(resp.read())
    return doc, [m.get("{http://www.opengis.net/gml/3.2}id") for m in doc.findall("wfs:member/features:parcels", ns)]
# The first row of the grid; OWSLib takes lon/lat and swaps for EPSG:4326 itself.
_, row = members(w.getfeature(typename=["features:parcels"], bbox=(150.99, -33.901, 151.2, -33.894)))
flt = And([PropertyIsEqualTo(propertyname="tenure", literal="freehold"), PropertyIsEqualTo(propertyname="plan", literal="DP0")])
text = '<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0">' + etree.tostring(flt.toXML()).decode() + "</fes:Filter>"
# OWSLib sends a filter in the XML encoding (its GET form puts it in a `query` parameter).
doc, filtered = members(w.getfeature(typename=["features:parcels"], filter=text, method="POST"))
seen, start = [], 0
while True:
    doc, page = members(w.getfeature(typename=["features:parcels"], startindex=start, maxfeatures=7))
    seen += page
    if doc.get("next") is None:
        break
    start += 7
print(json.dumps({"types": list(w.contents), "row": len(row), "filtered": len(filtered),
    "matched": doc.get("numberMatched"), "paged": len(seen), "unique": len(set(seen))}))
"#;
    let url = format!("{}/api/v1/ogc/wfs", s.base);
    let out =
        tokio::task::spawn_blocking(move || Command::new("python3").args(["-c", script, &url, &key]).output().unwrap())
            .await
            .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["types"], json!(["features:parcels"]));
    assert_eq!(result["row"], 10);
    // lots 0..29 with i % 2 == 0 and i % 3 == 0: 0, 6, 12, 18, 24.
    assert_eq!(result["filtered"], 5);
    assert_eq!(result["matched"], "30");
    assert_eq!(result["paged"], 30);
    assert_eq!(result["unique"], 30);
}

#[tokio::test]
async fn gml_answers_are_well_formed_for_xmllint() {
    let test = "gml_answers_are_well_formed_for_xmllint";
    if !have_tool("xmllint", test) {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("xmllint-wfs@example.com").await;
    seed_parcels(&s, &key, 5).await;
    for query in [
        "service=WFS&request=GetCapabilities",
        "service=WFS&version=2.0.0&request=DescribeFeatureType&typeNames=features:parcels",
        "service=WFS&version=2.0.0&request=GetFeature&typeNames=features:parcels",
        "service=WFS&version=2.0.0&request=GetPropertyValue&typeNames=features:parcels&valueReference=geometry",
        "service=WFS&version=2.0.0&request=DescribeStoredQueries",
        "service=WFS&version=2.0.0&request=GetFeature&typeNames=nope",
    ] {
        let doc = wfs(&s, &key, query).await.text().await.unwrap();
        let path = s.dir.path().join("doc.xml");
        std::fs::write(&path, doc).unwrap();
        let out = Command::new("xmllint").args(["--noout", path.to_str().unwrap()]).output().unwrap();
        assert!(out.status.success(), "{query}: {}", String::from_utf8_lossy(&out.stderr));
    }
}
