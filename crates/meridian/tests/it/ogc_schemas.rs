//! Every kind of OGC XML document the binary answers, validated with `xmllint --schema` against
//! the OGC XML Schemas committed in `tests/data/ogc-schemas/` (WMS 1.3.0 with the SLD 1.1.0
//! capabilities extension, WMTS 1.0, OWS 1.1.0, WFS 2.0, FES 2.0, GML 3.2.1), offline: the XML
//! catalog there maps every `http://schemas.opengis.net/` and W3C schema URL to the local copies,
//! and `--nonet` forbids the network.
//!
//! The data covers every kind of layer: the cadastre's parcels, an uploaded collection (points,
//! lines, multipolygons, text to escape, an id that needs a prefix to be an XML name), an empty
//! collection, a DEM dataset and a DEM job's output.

use crate::ogc::{access_token, dem_bytes};
use crate::{have_tool, Server};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The committed schemas and their catalog.
fn schemas() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ogc-schemas")
}

/// A local schema by its URL below `http://schemas.opengis.net/`.
fn ogc_schema(path: &str) -> PathBuf {
    schemas().join("schemas.opengis.net").join(path)
}

/// The outcome of `xmllint --nonet --noout --schema schema doc` with the catalog: whether it
/// passed, and what it said.
fn xmllint(schema: &Path, doc: &Path) -> (bool, String) {
    let out = Command::new("xmllint")
        .arg("--nonet")
        .arg("--noout")
        .arg("--schema")
        .arg(schema)
        .arg(doc)
        .env("XML_CATALOG_FILES", schemas().join("catalog.xml"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    // An import the catalog failed to map is only a warning for xmllint: the schema would then
    // be incomplete, so it fails the test too.
    let unresolved = said.contains("failed to load") || said.contains("Failed to locate");
    (out.status.success() && !unresolved, said)
}

/// Writes `doc` to `dir/name` and asserts it validates against `schema`.
fn assert_valid(dir: &Path, name: &str, schema: &Path, doc: &str) {
    let path = dir.join(name);
    std::fs::write(&path, doc).unwrap();
    let (ok, said) = xmllint(schema, &path);
    let head: String = doc.chars().take(3000).collect();
    assert!(ok, "{name} does not validate against {}:\n{said}\n{head}", schema.display());
}

/// The one known erratum of the WMTS 1.0.0 schema: `MaxTileRow` and `MaxTileCol` are declared
/// `xs:positiveInteger`, though the standard (OGC 07-057r7, table 19: "from minTileRow to
/// matrixHeight-1") and every client count tiles from 0, so the limits of a matrix whose data
/// lies in its first row or column are "invalid". OGC has not corrected the schema (see
/// GeoWebCache issues 250 and 411); these errors, and only these, are tolerated.
const WMTS_MAX_TILE_ERRATUM: [&str; 2] = [
    "Element '{http://www.opengis.net/wmts/1.0}MaxTileRow': '0' is not a valid value of the atomic type 'xs:positiveInteger'.",
    "Element '{http://www.opengis.net/wmts/1.0}MaxTileCol': '0' is not a valid value of the atomic type 'xs:positiveInteger'.",
];

/// As [`assert_valid`] for WMTS capabilities: every validity error must be the schema's
/// erratum [`WMTS_MAX_TILE_ERRATUM`].
fn assert_valid_wmts(dir: &Path, name: &str, schema: &Path, doc: &str) {
    let path = dir.join(name);
    std::fs::write(&path, doc).unwrap();
    let (ok, said) = xmllint(schema, &path);
    if ok {
        return;
    }
    let unresolved = said.contains("failed to load") || said.contains("Failed to locate");
    let errors: Vec<&str> = said.lines().filter(|l| l.contains("error")).collect();
    let other: Vec<&&str> =
        errors.iter().filter(|l| !WMTS_MAX_TILE_ERRATUM.iter().any(|erratum| l.ends_with(erratum))).collect();
    assert!(!unresolved && !errors.is_empty() && other.is_empty(), "{name}:\n{said}");
}

/// Writes `doc` and asserts it does NOT validate: the check can fail.
fn assert_invalid(dir: &Path, name: &str, schema: &Path, doc: &str) {
    let path = dir.join(name);
    std::fs::write(&path, doc).unwrap();
    let (ok, said) = xmllint(schema, &path);
    assert!(!ok, "{name} validates against {} though it was broken on purpose", schema.display());
    assert!(said.contains("Schemas validity error"), "{name}: {said}");
}

/// A schema importing several namespaces, for documents that use more than one schema's
/// elements (WMS with the SLD extension, WFS answers with the feature types).
fn wrapper(dir: &Path, name: &str, imports: &[(&str, &str)]) -> PathBuf {
    let mut xsd = String::from(
        "<xsd:schema xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" targetNamespace=\"urn:meridian:test:wrapper\">\n",
    );
    for (ns, location) in imports {
        xsd.push_str(&format!("  <xsd:import namespace=\"{ns}\" schemaLocation=\"{location}\"/>\n"));
    }
    xsd.push_str("</xsd:schema>\n");
    let path = dir.join(name);
    std::fs::write(&path, xsd).unwrap();
    path
}

async fn post_json(s: &Server, key: &str, path: &str, content_type: &str, body: &Value) -> Value {
    let r = s
        .client
        .post(s.url(path))
        .header("X-Api-Key", key)
        .header("content-type", content_type)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = r.status();
    let text = r.text().await.unwrap();
    assert!(status.is_success(), "{path}: {status} {text}");
    serde_json::from_str(&text).unwrap()
}

/// Three parcels, the `2024-trees` collection (a point, a line, a multipolygon; text with
/// `&` and `<`; numbers, booleans, a null) and an empty collection.
async fn seed_features(s: &Server, key: &str) {
    for i in 0..3 {
        let lon = 151.0 + f64::from(i) * 0.01;
        let feature = json!({"type": "Feature",
            "geometry": {"type": "Polygon", "coordinates": [[[lon, -33.9], [lon + 0.005, -33.9], [lon + 0.005, -33.895], [lon, -33.895], [lon, -33.9]]]},
            "properties": {"lot": i.to_string(), "plan": "DP1", "tenure": "freehold"}});
        post_json(s, key, "/api/v1/cadastre/parcels", "application/geo+json", &feature).await;
    }
    let trees = json!({"type": "FeatureCollection", "id": "2024-trees", "features": [
        {"type": "Feature", "properties": {"name": "Fig & <oak>", "height": 12.5, "protected": true, "n": 1},
         "geometry": {"type": "Point", "coordinates": [151.01, -33.89]}},
        {"type": "Feature", "properties": {"name": "row", "height": 3, "protected": false, "n": 2},
         "geometry": {"type": "LineString", "coordinates": [[151.0, -33.88], [151.02, -33.88]]}},
        {"type": "Feature", "properties": {"name": "multi", "height": null, "n": 3},
         "geometry": {"type": "MultiPolygon", "coordinates": [
             [[[151.03, -33.88], [151.031, -33.88], [151.031, -33.879], [151.03, -33.88]]],
             [[[151.04, -33.88], [151.041, -33.88], [151.041, -33.879], [151.04, -33.88]]]]}}]});
    let collections = "/api/v1/ogc/v1/features/collections";
    post_json(s, key, collections, "application/geo+json", &trees).await;
    let empty = json!({"type": "FeatureCollection", "id": "empty", "features": []});
    post_json(s, key, collections, "application/geo+json", &empty).await;
}

/// A DEM dataset and a slope job's output; returns their layer names.
async fn seed_dem(s: &Server, key: &str) -> (String, String) {
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(dem_bytes()).file_name("alti.tif"))
        .text("params", json!({"operations": [{"type": "slope"}]}).to_string());
    let r = s.client.post(s.url("/api/v1/dem/process")).bearer_auth(key).multipart(form).send().await.unwrap();
    assert_eq!(r.status(), 202);
    let queued: Value = r.json().await.unwrap();
    let (job, dataset) =
        (queued["id"].as_str().unwrap().to_owned(), queued["source"]["dataset_id"].as_str().unwrap().to_owned());
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let j: Value = s.get(&format!("/api/v1/dem/jobs/{job}"), key).await.json().await.unwrap();
        if j["status"] == "succeeded" {
            break;
        }
        assert!(j["status"] != "failed" && Instant::now() < deadline, "{j}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (format!("dem:{dataset}"), format!("dem:{job}:slope"))
}

/// GET with the key; returns (status, body).
async fn get(s: &Server, key: &str, path: &str) -> (u16, String) {
    let r = s.get(path, key).await;
    (r.status().as_u16(), r.text().await.unwrap())
}

#[tokio::test]
async fn ogc_schemas_wms_and_wmts_documents_validate() {
    let test = "ogc_schemas_wms_and_wmts_documents_validate";
    if !have_tool("xmllint", test) {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("schemas-wms@example.com").await;
    seed_features(&s, &key).await;
    let (dem, slope) = seed_dem(&s, &key).await;
    let token = access_token(&s, &key).await;
    let dir = s.dir.path().join("schemas-wms");
    std::fs::create_dir_all(&dir).unwrap();

    // WMS 1.3.0 capabilities use the SLD 1.1.0 extension (sld:GetLegendGraphic): validated
    // against both, through a wrapper importing the two.
    let wms = wrapper(
        &dir,
        "wms-sld.xsd",
        &[
            ("http://www.opengis.net/wms", "http://schemas.opengis.net/wms/1.3.0/capabilities_1_3_0.xsd"),
            ("http://www.opengis.net/sld", "http://schemas.opengis.net/sld/1.1.0/sld_capabilities.xsd"),
        ],
    );
    let (status, caps) =
        get(&s, &key, &format!("/api/v1/ogc/wms?SERVICE=WMS&REQUEST=GetCapabilities&access_token={token}")).await;
    assert_eq!(status, 200);
    for layer in ["features:parcels", "features:2024-trees", "features:empty", &dem, &slope] {
        assert!(caps.contains(&format!("<Name>{layer}</Name>")), "{layer} missing from the WMS capabilities");
    }
    assert!(caps.contains("<sld:GetLegendGraphic>"));
    assert_valid(&dir, "wms-capabilities.xml", &wms, &caps);
    let (_, caps_13) = get(&s, &key, "/api/v1/ogc/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetCapabilities").await;
    assert_valid(&dir, "wms-capabilities-header.xml", &wms, &caps_13);
    // The check can fail: a layer without its Title is not a WMS 1.3.0 layer.
    let broken = caps.replacen("<Title>", "<Titel>", 2).replacen("</Title>", "</Titel>", 2);
    assert_invalid(&dir, "wms-broken.xml", &wms, &broken);

    let exceptions = ogc_schema("wms/1.3.0/exceptions_1_3_0.xsd");
    let map = "/api/v1/ogc/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&WIDTH=10&HEIGHT=10&FORMAT=image/png";
    for (query, code) in [
        (format!("{map}&LAYERS=nope&STYLES=&CRS=CRS:84&BBOX=0,0,1,1"), "LayerNotDefined"),
        (format!("{map}&LAYERS=features:parcels&STYLES=&CRS=EPSG:9999&BBOX=0,0,1,1"), "InvalidCRS"),
        (format!("{map}&LAYERS=features:parcels&STYLES=&CRS=CRS:84"), "MissingParameterValue"),
        (format!("{map}&LAYERS={dem}&STYLES=nope&CRS=CRS:84&BBOX=0,0,1,1&EXCEPTIONS=XML"), "StyleNotDefined"),
        ("/api/v1/ogc/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=Nope".to_owned(), "OperationNotSupported"),
    ] {
        let (status, doc) = get(&s, &key, &query).await;
        assert_eq!(status, 400, "{query}");
        assert!(doc.contains(&format!("code=\"{code}\"")), "{query}: {doc}");
        assert_valid(&dir, &format!("wms-exception-{code}.xml"), &exceptions, &doc);
    }

    // WMTS 1.0 capabilities, KVP and RESTful.
    let wmts = ogc_schema("wmts/1.0/wmtsGetCapabilities_response.xsd");
    for (name, path) in [
        ("wmts-capabilities-kvp.xml", "/api/v1/ogc/wmts?SERVICE=WMTS&REQUEST=GetCapabilities".to_owned()),
        (
            "wmts-capabilities-kvp-token.xml",
            format!("/api/v1/ogc/wmts?SERVICE=WMTS&REQUEST=GetCapabilities&VERSION=1.0.0&access_token={token}"),
        ),
        ("wmts-capabilities-rest.xml", format!("/api/v1/ogc/wmts/1.0.0/WMTSCapabilities.xml?access_token={token}")),
    ] {
        let (status, doc) = get(&s, &key, &path).await;
        assert_eq!(status, 200, "{path}");
        for layer in ["features:parcels", "features:2024-trees", "features:empty", &dem, &slope] {
            assert!(doc.contains(&format!("<ows:Identifier>{layer}</ows:Identifier>")), "{name}: {layer}");
        }
        assert_valid_wmts(&dir, name, &wmts, &doc);
    }

    // The check can fail: a layer without its identifier is not a WMTS layer.
    let (_, doc) = get(&s, &key, "/api/v1/ogc/wmts?SERVICE=WMTS&REQUEST=GetCapabilities").await;
    let broken = doc.replacen("<ows:Identifier>features:parcels</ows:Identifier>", "", 1);
    assert_ne!(broken, doc);
    assert_invalid(&dir, "wmts-broken.xml", &wmts, &broken);

    // WMTS errors are OWS 1.1 exception reports, in both encodings.
    let ows = ogc_schema("ows/1.1.0/owsExceptionReport.xsd");
    let kvp = "/api/v1/ogc/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&STYLE=default&TILEMATRIXSET=WebMercatorQuad&TILEMATRIX=8&TILEROW=153&TILECOL=235&FORMAT=image/png";
    for (query, code) in [
        (format!("{kvp}&LAYER=nope"), "InvalidParameterValue"),
        (kvp.to_owned(), "MissingParameterValue"),
        ("/api/v1/ogc/wmts/1.0.0/features:parcels/default/WebMercatorQuad/8/300/235.png".to_owned(), "TileOutOfRange"),
        ("/api/v1/ogc/wmts?SERVICE=WMTS&VERSION=1.0.0&REQUEST=Nope".to_owned(), "OperationNotSupported"),
    ] {
        let (status, doc) = get(&s, &key, &query).await;
        assert_eq!(status, 400, "{query}");
        assert!(doc.contains(&format!("exceptionCode=\"{code}\"")), "{query}: {doc}");
        assert_valid(&dir, &format!("wmts-exception-{code}.xml"), &ows, &doc);
    }
}

async fn wfs_get(s: &Server, key: &str, query: &str) -> (u16, String) {
    get(s, key, &format!("/api/v1/ogc/wfs?{query}")).await
}

async fn wfs_post(s: &Server, key: &str, body: &str) -> (u16, String) {
    let r = s
        .client
        .post(s.url("/api/v1/ogc/wfs"))
        .header("X-Api-Key", key)
        .header("content-type", "application/xml")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

/// The `gml:id`s of the features of a GML answer, in order.
fn gml_ids(doc: &str, prefix: &str) -> Vec<String> {
    doc.split(&format!("gml:id=\"{prefix}"))
        .skip(1)
        .map(|t| format!("{prefix}{}", t.split('"').next().unwrap()))
        .collect()
}

const TRANSACTION_NS: &str = r#"service="WFS" version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:features="urn:meridian:features""#;

fn square(id: &str, lat: f64, lon: f64) -> String {
    format!(
        // Parcels are declared gml:MultiSurface: a client sends its polygon as one.
        "<features:geometry><gml:MultiSurface gml:id=\"{id}\" srsName=\"urn:ogc:def:crs:EPSG::4326\"><gml:surfaceMember><gml:Polygon gml:id=\"{id}.0\"><gml:exterior><gml:LinearRing><gml:posList>{lat} {lon} {lat} {e} {n} {e} {n} {lon} {lat} {lon}</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></gml:surfaceMember></gml:MultiSurface></features:geometry>",
        e = lon + 0.005,
        n = lat + 0.005
    )
}

#[tokio::test]
async fn ogc_schemas_wfs_documents_validate() {
    let test = "ogc_schemas_wfs_documents_validate";
    if !have_tool("xmllint", test) {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("schemas-wfs@example.com").await;
    seed_features(&s, &key).await;
    let token = access_token(&s, &key).await;
    let dir = s.dir.path().join("schemas-wfs");
    std::fs::create_dir_all(&dir).unwrap();
    let wfs = ogc_schema("wfs/2.0/wfs.xsd");
    let ows = ogc_schema("ows/1.1.0/owsExceptionReport.xsd");

    for (name, query) in [
        ("wfs-capabilities.xml", "service=WFS&request=GetCapabilities".to_owned()),
        (
            "wfs-capabilities-token.xml",
            format!("service=WFS&version=2.0.0&request=GetCapabilities&access_token={token}"),
        ),
    ] {
        let (status, caps) = wfs_get(&s, &key, &query).await;
        assert_eq!(status, 200);
        for t in ["features:parcels", "features:_2024-trees", "features:empty"] {
            assert!(caps.contains(&format!("<wfs:Name>{t}</wfs:Name>")), "{t}");
        }
        assert_valid(&dir, name, &wfs, &caps);
        // The check can fail: FES conformance constraints are fes:Constraint, not ows:Constraint.
        let broken = caps.replace(
            "<fes:Conformance><fes:Constraint name=\"ImplementsQuery\"><ows:NoValues/><ows:DefaultValue>TRUE</ows:DefaultValue></fes:Constraint>",
            "<fes:Conformance><ows:Constraint name=\"ImplementsQuery\"><ows:NoValues/><ows:DefaultValue>TRUE</ows:DefaultValue></ows:Constraint>",
        );
        assert_ne!(broken, caps);
        assert_invalid(&dir, &format!("broken-{name}"), &wfs, &broken);
    }

    // DescribeFeatureType is itself a schema (importing GML 3.2.1). Saved, it is the application
    // schema of the answers: a wrapper imports it with WFS 2.0.
    let (status, all_types) = wfs_get(&s, &key, "service=WFS&version=2.0.0&request=DescribeFeatureType").await;
    assert_eq!(status, 200);
    std::fs::write(dir.join("features.xsd"), &all_types).unwrap();
    let (status, parcel_type) = wfs_get(
        &s,
        &key,
        &format!(
            "service=WFS&version=2.0.0&request=DescribeFeatureType&typeNames=features:parcels&access_token={token}"
        ),
    )
    .await;
    assert_eq!(status, 200);
    std::fs::write(dir.join("parcels.xsd"), &parcel_type).unwrap();
    let app = wrapper(
        &dir,
        "wfs-app.xsd",
        &[
            ("http://www.opengis.net/wfs/2.0", "http://schemas.opengis.net/wfs/2.0/wfs.xsd"),
            ("urn:meridian:features", "features.xsd"),
        ],
    );

    let gf = "service=WFS&version=2.0.0&request=GetFeature";
    let (_, page) = wfs_get(&s, &key, &format!("{gf}&typeNames=features:parcels&count=2")).await;
    assert!(page.contains("numberReturned=\"2\"") && page.contains(" next=\""), "{page}");
    let ids = gml_ids(&page, "parcel_");
    let ids: Vec<&String> = ids.iter().filter(|id| !id.contains(".geom")).collect();
    assert_eq!(ids.len(), 2, "{page}");
    assert_valid(&dir, "getfeature-page.xml", &app, &page);
    for (name, query) in [
        ("getfeature-page2.xml", format!("{gf}&typeNames=features:parcels&count=2&startIndex=2")),
        ("getfeature-trees.xml", format!("{gf}&typeNames=features:_2024-trees&access_token={token}")),
        ("getfeature-empty.xml", format!("{gf}&typeNames=features:empty")),
        ("getfeature-hits.xml", format!("{gf}&typeNames=features:parcels&resultType=hits")),
        ("getfeature-7856.xml", format!("{gf}&typeNames=features:parcels&srsName=EPSG:7856&sortBy=lot%20DESC")),
        ("getfeature-crs84-bbox.xml", format!("{gf}&typeNames=features:parcels&bbox=150.9,-34,151.2,-33.8,urn:ogc:def:crs:OGC:1.3:CRS84&srsName=urn:ogc:def:crs:OGC:1.3:CRS84")),
        ("getfeature-properties.xml", format!("{gf}&typeNames=features:parcels&propertyName=plan,geometry")),
        ("getfeature-resourceid.xml", format!("{gf}&resourceId={}", ids[0])),
        (
            "getfeature-stored-query.xml",
            format!("{gf}&storedQuery_Id=urn:ogc:def:query:OGC-WFS::GetFeatureById&ID={}", ids[1]),
        ),
        ("getpropertyvalue.xml", "service=WFS&version=2.0.0&request=GetPropertyValue&typeNames=features:parcels&valueReference=lot".to_owned()),
        ("getpropertyvalue-geometry.xml", "service=WFS&version=2.0.0&request=GetPropertyValue&typeNames=features:_2024-trees&valueReference=geometry".to_owned()),
        ("liststoredqueries.xml", "service=WFS&version=2.0.0&request=ListStoredQueries".to_owned()),
        ("describestoredqueries.xml", "service=WFS&version=2.0.0&request=DescribeStoredQueries".to_owned()),
    ] {
        let (status, doc) = wfs_get(&s, &key, &query).await;
        assert_eq!(status, 200, "{query}: {doc}");
        if name == "getfeature-stored-query.xml" {
            // GetFeatureById answers the bare feature: valid against the type's own schema,
            // which shows that DescribeFeatureType loads as a schema by itself.
            assert!(doc.contains("<features:parcels "), "{doc}");
            assert_valid(&dir, name, &dir.join("parcels.xsd"), &doc);
        }
        assert_valid(&dir, name, &app, &doc);
    }
    // The check can fail: a property the schema does not declare.
    let broken =
        page.replacen("<features:plan>", "<features:planet>", 1).replacen("</features:plan>", "</features:planet>", 1);
    assert_invalid(&dir, "getfeature-broken.xml", &app, &broken);
    let filter = r#"<wfs:GetFeature service="WFS" version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:fes="http://www.opengis.net/fes/2.0"><wfs:Query typeNames="features:_2024-trees"><fes:Filter><fes:PropertyIsGreaterThan><fes:ValueReference>n</fes:ValueReference><fes:Literal>1</fes:Literal></fes:PropertyIsGreaterThan></fes:Filter></wfs:Query></wfs:GetFeature>"#;
    let (status, doc) = wfs_post(&s, &key, filter).await;
    assert_eq!(status, 200, "{doc}");
    assert!(doc.contains("numberReturned=\"2\""), "{doc}");
    assert_valid(&dir, "getfeature-post.xml", &app, &doc);

    // Transactions: Insert and Update, Replace, Delete; each request and answer validates.
    let insert = format!(
        "<wfs:Transaction {TRANSACTION_NS}><wfs:Insert handle=\"ins\"><features:parcels>{}<features:lot>99</features:lot><features:plan>DP9</features:plan></features:parcels></wfs:Insert>\
         <wfs:Update typeName=\"features:parcels\" handle=\"upd\"><wfs:Property><wfs:ValueReference>tenure</wfs:ValueReference><wfs:Value>leasehold</wfs:Value></wfs:Property><fes:Filter><fes:ResourceId rid=\"{}\"/></fes:Filter></wfs:Update></wfs:Transaction>",
        square("new.geom", -33.8, 151.1),
        ids[0]
    );
    let replace = format!(
        "<wfs:Transaction {TRANSACTION_NS}><wfs:Replace handle=\"rep\"><features:parcels>{}<features:lot>1</features:lot><features:plan>DP1</features:plan><features:tenure>crown</features:tenure></features:parcels><fes:Filter><fes:ResourceId rid=\"{}\"/></fes:Filter></wfs:Replace></wfs:Transaction>",
        square("rep.geom", -33.8, 151.2),
        ids[1]
    );
    let (status, inserted) = wfs_post(&s, &key, &insert).await;
    assert_eq!(status, 200, "{inserted}");
    assert!(inserted.contains("<wfs:totalInserted>1</wfs:totalInserted>"), "{inserted}");
    let new_id = inserted
        .split("<wfs:InsertResults>")
        .nth(1)
        .unwrap()
        .split("rid=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let delete = format!(
        "<wfs:Transaction {TRANSACTION_NS}><wfs:Delete typeName=\"features:parcels\" handle=\"del\"><fes:Filter><fes:ResourceId rid=\"{new_id}\"/></fes:Filter></wfs:Delete></wfs:Transaction>"
    );
    assert_valid(&dir, "transaction-insert-update.xml", &app, &insert);
    assert_valid(&dir, "transaction-insert-update-response.xml", &app, &inserted);
    for (name, request, total) in [
        ("replace", &replace, "<wfs:totalReplaced>1</wfs:totalReplaced>"),
        ("delete", &delete, "<wfs:totalDeleted>1</wfs:totalDeleted>"),
    ] {
        assert_valid(&dir, &format!("transaction-{name}.xml"), &app, request);
        let (status, doc) = wfs_post(&s, &key, request).await;
        assert_eq!(status, 200, "{name}: {doc}");
        assert!(doc.contains(total), "{name}: {doc}");
        assert_valid(&dir, &format!("transaction-{name}-response.xml"), &app, &doc);
    }

    // Exception reports: OWS 1.1.
    for (query, status, code) in [
        ("service=WFS&version=2.0.0&request=GetFeature&typeNames=nope", 400, "InvalidParameterValue"),
        ("service=WFS&version=2.0.0", 400, "MissingParameterValue"),
        ("service=WFS&version=2.0.0&request=LockFeature", 501, "OperationNotSupported"),
        ("service=WFS&version=2.0.0&request=GetFeature&typeNames=parcels&filter=%3Cbroken", 400, "OperationParsingFailed"),
        ("service=WFS&version=2.0.0&request=GetFeature&storedQuery_Id=urn:ogc:def:query:OGC-WFS::GetFeatureById&ID=parcel_nope", 404, "NotFound"),
    ] {
        let (got, doc) = wfs_get(&s, &key, query).await;
        assert_eq!(got, status, "{query}: {doc}");
        assert!(doc.contains(&format!("exceptionCode=\"{code}\"")), "{query}: {doc}");
        assert_valid(&dir, &format!("wfs-exception-{code}.xml"), &ows, &doc);
    }
    // A transaction refused by the cadastre's rules: lot 2 on DP1 exists.
    let taken = insert.replace(
        "<features:lot>99</features:lot><features:plan>DP9</features:plan>",
        "<features:lot>2</features:lot><features:plan>DP1</features:plan>",
    );
    let (status, doc) = wfs_post(&s, &key, &taken).await;
    assert_eq!(status, 403, "{doc}");
    assert!(doc.contains("exceptionCode=\"OperationProcessingFailed\""), "{doc}");
    assert_valid(&dir, "wfs-exception-transaction.xml", &ows, &doc);
}
