//! STAC clients against the real server: pystac-client searches (bbox, datetime, collections,
//! CQL2 text and JSON, sorting, paging) and pystac validates what it reads against the STAC JSON
//! Schemas; stac-api-validator checks the conformance classes the landing page claims; and the
//! links a STAC browser (QGIS's) walks are checked by hand. No internet is needed: the schemas are
//! served from `tests/data/stac-schemas` by its `offline.py` (see the NOTICE.md there).

use crate::eo::SCENE;
use crate::{have_python_module, Server};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Command, Output};

/// The offline schemas and the module that serves them.
fn schemas_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/stac-schemas")
}

/// Runs `python3 -c script args…` with `offline` importable, off the async runtime.
async fn python(script: &str, args: Vec<String>, env: Vec<(String, String)>) -> Output {
    let script = script.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut path = schemas_dir().into_os_string();
        if let Some(old) = std::env::var_os("PYTHONPATH") {
            path.push(":");
            path.push(old);
        }
        Command::new("python3").arg("-c").arg(&script).args(&args).env("PYTHONPATH", path).envs(env).output().unwrap()
    })
    .await
    .unwrap()
}

/// Item `i` of the grid collection `s2`: a 1° cell at (10 + i % 5, 40 + i / 5), items 0..11 in
/// 2023 and the rest in 2024 (the 15th of month i % 12 + 1), cloud cover 4 i, platform
/// sentinel-2a for even i, one remote asset.
fn grid_item(i: usize) -> Value {
    let (lon, lat) = (10.0 + (i % 5) as f64, 40.0 + (i / 5) as f64);
    let year = if i < 12 { 2023 } else { 2024 };
    json!({"type": "Feature", "stac_version": "1.0.0", "id": format!("s2-{i:02}"),
        "geometry": {"type": "Polygon", "coordinates": [[[lon, lat], [lon + 1.0, lat], [lon + 1.0, lat + 1.0], [lon, lat + 1.0], [lon, lat]]]},
        "bbox": [lon, lat, lon + 1.0, lat + 1.0],
        "properties": {"datetime": format!("{year}-{:02}-15T10:00:00Z", i % 12 + 1), "eo:cloud_cover": (i * 4) as f64,
            "platform": if i.is_multiple_of(2) { "sentinel-2a" } else { "sentinel-2b"}},
        "assets": {"red": {"href": format!("https://data.example.com/s2/{i:02}/B04.tif"),
            "type": "image/tiff; application=geotiff; profile=cloud-optimized", "roles": ["data"], "title": "Red"}}})
}

const GRID: usize = 25;

/// Creates collection `s2` and posts the grid items to it as one FeatureCollection.
async fn seed_grid(s: &Server, key: &str) {
    s.eo_collection(key, "s2").await;
    let features: Vec<Value> = (0..GRID).map(grid_item).collect();
    let r = s
        .client
        .post(s.url("/api/v1/eo/collections/s2/items"))
        .bearer_auth(key)
        .json(&json!({"type": "FeatureCollection", "features": features}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_owned()).collect()
}

fn grid_ids(pred: impl Fn(usize) -> bool) -> Vec<String> {
    (0..GRID).filter(|&i| pred(i)).map(|i| format!("s2-{i:02}")).collect()
}

const PYSTAC_SCRIPT: &str = r#"
import copy, json, sys
import offline
import pystac
from pystac.validation import validate_dict
from pystac_client import Client
from pystac_client.conformance import ConformanceClasses

base, key, scene = sys.argv[1:4]
client = Client.open(f"{base}/api/v1/eo", headers={"X-Api-Key": key})
out = {"conforms": [c.name for c in ConformanceClasses if client.conforms_to(c)]}

# Paging with a small limit, by POST (pystac-client's default) and by GET.
bbox, interval = [9.5, 39.5, 12.5, 45.5], "2023-01-01T00:00:00Z/2023-12-31T23:59:59Z"
for method in ("POST", "GET"):
    search = client.search(method=method, collections=["s2"], bbox=bbox, datetime=interval, limit=3)
    pages = list(search.pages_as_dicts())
    out[f"paged_{method}"] = {
        "ids": [f["id"] for p in pages for f in p["features"]],
        "pages": len(pages),
        "matched": search.matched(),
    }

text = client.search(collections=["s2"], filter="eo:cloud_cover < 20 AND platform = 'sentinel-2a'", filter_lang="cql2-text", limit=100)
out["cql2_text"] = sorted(i.id for i in text.items())
cell = {"type": "Polygon", "coordinates": [[[10.2, 44.2], [11.5, 44.2], [11.5, 44.8], [10.2, 44.8], [10.2, 44.2]]]}
cql2_json = {"op": "and", "args": [
    {"op": ">=", "args": [{"property": "eo:cloud_cover"}, 80]},
    {"op": "s_intersects", "args": [{"property": "geometry"}, cell]}]}
out["cql2_json"] = sorted(i.id for i in client.search(filter=cql2_json, filter_lang="cql2-json").items())
out["sorted"] = [i.id for i in client.search(collections=["s2"], sortby="-eo:cloud_cover", max_items=3).items()]

# Collections and the uploaded scene, read through pystac-client, then validated as the server
# wrote them (pystac migrates what it reads to its newest extension versions, so the documents are
# fetched again as they are).
import requests
def raw(url):
    r = requests.get(url, headers={"X-Api-Key": key}, timeout=60)
    r.raise_for_status()
    return r.json()
collection = client.get_collection("cbers4")
item = collection.get_item(scene)
out["collection"] = collection.id
out["collection_items"] = [i.id for i in collection.get_items()]
doc = raw(item.get_self_href())
skipped = [e for e in doc["stac_extensions"] if e in offline.MISSING]
usable = [e for e in doc["stac_extensions"] if e not in offline.MISSING]
out["item_extensions"] = doc["stac_extensions"]
out["skipped_extensions"] = skipped
out["item_schemas"] = validate_dict(doc, extensions=usable)
out["collection_schemas"] = [u for c in ("cbers4", "s2") for u in validate_dict(raw(client.get_collection(c).get_self_href()))]
out["catalog_schemas"] = validate_dict(raw(f"{base}/api/v1/eo"))
out["grid_items_valid"] = sum(1 for d in client.search(collections=["s2"], limit=100).items_as_dicts() if validate_dict(d))

# The schemas do reject: a broken core field, and a broken extension field when its schema is here.
rejected = {}
broken = copy.deepcopy(doc)
broken["properties"]["datetime"] = "yesterday"
broken["geometry"] = {"type": "Polygon", "coordinates": [[0, 0]]}
try:
    validate_dict(broken, extensions=[])
    rejected["core"] = False
except pystac.errors.STACValidationError:
    rejected["core"] = True
if not skipped:
    broken = copy.deepcopy(doc)
    broken["properties"]["proj:epsg"] = "32640"
    try:
        validate_dict(broken)
        rejected["projection"] = False
    except pystac.errors.STACValidationError:
        rejected["projection"] = True
out["rejected"] = rejected
out["served"] = sorted(set(offline.served))
print(json.dumps(out))
"#;

#[tokio::test]
async fn eo_pystac_client_searches_and_pystac_validates_items() {
    let test = "eo_pystac_client_searches_and_pystac_validates_items";
    if !have_python_module("python3", "pystac_client", test)
        || !have_python_module("python3", "pystac.validation", test)
    {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("pystac@example.com").await;
    s.eo_collection(&key, "cbers4").await;
    s.eo_upload_scene(&key, "cbers4", SCENE).await;
    seed_grid(&s, &key).await;

    let out = python(PYSTAC_SCRIPT, vec![s.base.clone(), key.clone(), SCENE.to_owned()], vec![]).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));

    let conforms: BTreeSet<String> = ids(&r["conforms"]).into_iter().collect();
    for c in ["CORE", "COLLECTIONS", "FEATURES", "ITEM_SEARCH", "FILTER", "SORT", "FIELDS", "TRANSACTION"] {
        assert!(conforms.contains(c), "pystac-client does not see {c}: {conforms:?}");
    }

    // bbox [9.5, 12.5] takes the columns i % 5 < 3; 2023 is items 0..11.
    let expected = grid_ids(|i| i % 5 < 3 && i < 12);
    assert_eq!(expected.len(), 8);
    for method in ["POST", "GET"] {
        let paged = &r[format!("paged_{method}")];
        let got = ids(&paged["ids"]);
        let unique: BTreeSet<&String> = got.iter().collect();
        assert_eq!(unique.len(), got.len(), "{method}: an item came twice: {got:?}");
        assert_eq!(paged["matched"], got.len(), "{method}: numberMatched against the items paged through");
        assert_eq!(paged["pages"], 3, "{method}: 8 items by 3");
        let mut sorted = got.clone();
        sorted.sort();
        assert_eq!(sorted, expected, "{method}");
    }
    // cloud cover 4 i < 20 and even i; cloud cover >= 80 (i >= 20, the row at 44 °N) meeting 10.2–11.5 °E.
    assert_eq!(ids(&r["cql2_text"]), grid_ids(|i| i * 4 < 20 && i.is_multiple_of(2)));
    assert_eq!(ids(&r["cql2_json"]), ["s2-20", "s2-21"]);
    assert_eq!(ids(&r["sorted"]), ["s2-24", "s2-23", "s2-22"]);

    assert_eq!(r["collection"], "cbers4");
    assert_eq!(ids(&r["collection_items"]), [SCENE]);
    assert_eq!(r["grid_items_valid"], GRID);
    assert_eq!(
        ids(&r["catalog_schemas"]),
        ["https://schemas.stacspec.org/v1.0.0/catalog-spec/json-schema/catalog.json"]
    );

    // Validated against the offline schemas: the core Item and Collection schemas, and every
    // extension the item declares whose schema is available.
    let served = ids(&r["served"]);
    let item_schemas = ids(&r["item_schemas"]);
    let skipped = ids(&r["skipped_extensions"]);
    assert!(
        item_schemas.contains(&"https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json".to_owned()),
        "{r}"
    );
    assert_eq!(
        ids(&r["collection_schemas"]),
        vec!["https://schemas.stacspec.org/v1.0.0/collection-spec/json-schema/collection.json".to_owned(); 2]
    );
    for url in [
        "https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json",
        "https://schemas.stacspec.org/v1.0.0/collection-spec/json-schema/collection.json",
    ] {
        assert!(served.contains(&url.to_owned()), "{url} not served offline: {served:?}");
    }
    for ext in ["eo/v1.1.0", "projection/v1.1.0", "raster/v1.1.0"] {
        let url = format!("https://stac-extensions.github.io/{ext}/schema.json");
        assert!(ids(&r["item_extensions"]).contains(&url), "the item declares {url}: {r}");
        if !skipped.contains(&url) {
            assert!(item_schemas.contains(&url), "{url} not validated: {item_schemas:?}");
        }
    }
    assert_eq!(r["rejected"]["core"], true, "a broken item passed the core schema");
    assert!(skipped.is_empty(), "{test}: extension schemas {skipped:?} are missing from the committed set");
    assert_eq!(r["rejected"]["projection"], true, "a string proj:epsg passed the projection schema");
}

/// The validator's complaints that are not server faults: (where, what), each matched as text.
const VALIDATOR_DISAGREEMENTS: &[(&str, &str, &str)] = &[
    (
        "[Features - Transaction Ext] : DELETE",
        "had unexpected status code 404 instead of 204",
        "the validator first deletes an item that does not exist yet: 404 is the right answer",
    ),
    (
        "[Features - Transaction Ext] : PUT",
        "had unexpected status code 200 instead of 204",
        "PUT answers 200 with the stored item, which the Transaction extension allows",
    ),
    (
        "[Features - Transaction Ext] : PATCH",
        "had unexpected status code 200 instead of 204",
        "PATCH answers 200 with the stored item, which the Transaction extension allows",
    ),
];

#[tokio::test]
async fn eo_stac_api_validator_passes() {
    let test = "eo_stac_api_validator_passes";
    if !have_python_module("python3", "stac_api_validator.__main__", test) {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("stac-api-validator@example.com").await;
    seed_grid(&s, &key).await;
    let log = s.dir.path().join("schema-urls.log");
    let geometry = json!({"type": "Polygon", "coordinates": [[[9.5, 39.5], [12.5, 39.5], [12.5, 42.5], [9.5, 42.5], [9.5, 39.5]]]});
    let mut args = vec!["--root-url".to_owned(), s.url("/api/v1/eo")];
    for c in
        ["core", "collections", "features", "item-search", "filter", "item-search#sort", "features#sort", "transaction"]
    {
        args.extend(["--conformance".to_owned(), c.to_owned()]);
    }
    args.extend(
        [
            "--collection",
            "s2",
            "--transaction-collection",
            "s2",
            "--validate-pagination",
            "--geometry",
            &geometry.to_string(),
            "-H",
            &format!("X-Api-Key: {key}"),
        ]
        .map(str::to_owned),
    );
    let script = "import offline\nfrom stac_api_validator.__main__ import main\nmain()";
    let out = python(script, args, vec![("STAC_OFFLINE_LOG".into(), log.display().to_string())]).await;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    // The progress log goes to either stream depending on the logging set-up; the report to stdout.
    let log_lines = format!("{stdout}\n{stderr}");
    assert!(!stdout.contains("Failed."), "the validator crashed: {report}");

    // Every conformance class asked for was validated.
    for class in [
        "Validating STAC API - Core conformance class.",
        "Validating STAC API - Collections conformance class.",
        "Validating STAC API - Features conformance class.",
        "STAC API - Features - Transaction extension conformance class found.",
        "Validating STAC API - Item Search conformance class.",
        "STAC API - Item Search - Sort extension conformance class found.",
        "Validating STAC API - Item Search - Filter Extension - CQL2-Text conformance class.",
        "Validating STAC API - Item Search - Filter Extension - CQL2-JSON conformance class.",
        "Validating STAC API - Item Search - Filter Extension - Advanced Comparison Operators conformance class.",
    ] {
        assert!(log_lines.contains(class), "not validated: {class}\n{report}");
    }

    // The errors: none but the known disagreements.
    let errors: Vec<&str> = match stdout.split_once("\nErrors:") {
        Some((_, rest)) if rest.trim_start().starts_with("none") => vec![],
        Some((_, rest)) => rest.lines().filter_map(|l| l.strip_prefix("- ")).collect(),
        None if stdout.starts_with("Errors:") => stdout.lines().skip(1).filter_map(|l| l.strip_prefix("- ")).collect(),
        None => panic!("no Errors section: {report}"),
    };
    let unexpected: Vec<&&str> = errors
        .iter()
        .filter(|e| !VALIDATOR_DISAGREEMENTS.iter().any(|(at, what, _)| e.starts_with(at) && e.contains(what)))
        .collect();
    assert!(unexpected.is_empty(), "stac-api-validator errors: {unexpected:#?}\n{report}");
    for (at, what, why) in VALIDATOR_DISAGREEMENTS {
        if errors.iter().any(|e| e.starts_with(at) && e.contains(what)) {
            eprintln!("{test}: stac-api-validator disagrees, not a fault: {at} … {what}: {why}");
        }
    }
    assert_eq!(out.status.success(), errors.is_empty(), "exit status against the errors listed: {report}");

    // Items and collections were checked against the schemas, served from the committed copies.
    let fetched = std::fs::read_to_string(&log).unwrap_or_default();
    for url in [
        "https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json",
        "https://schemas.stacspec.org/v1.0.0/collection-spec/json-schema/collection.json",
        "https://geojson.org/schema/Feature.json",
    ] {
        assert!(fetched.lines().any(|l| l == url), "{url} was never asked for: {fetched}");
    }
}

/// Every href of `links` is absolute on the server; the rels are returned.
fn rels(s: &Server, doc: &Value, what: &str) -> BTreeSet<String> {
    let links = doc["links"].as_array().unwrap_or_else(|| panic!("{what} has no links: {doc}"));
    for l in links {
        let href = l["href"].as_str().unwrap_or_else(|| panic!("{what}: a link without href: {l}"));
        assert!(href.starts_with(&s.base), "{what}: {href} is not absolute on {}", s.base);
    }
    links.iter().map(|l| l["rel"].as_str().unwrap().to_owned()).collect()
}

fn href<'a>(doc: &'a Value, rel: &str) -> &'a str {
    doc["links"].as_array().unwrap().iter().find(|l| l["rel"] == rel).and_then(|l| l["href"].as_str()).unwrap()
}

#[tokio::test]
async fn eo_links_walk_as_a_stac_browser_walks_them() {
    let s = Server::start();
    let (_, key) = s.signup("qgis-stac@example.com").await;
    s.eo_collection(&key, "cbers4").await;
    seed_grid(&s, &key).await;
    let get = |url: String| {
        let s = &s;
        let key = &key;
        async move {
            let r = s.client.get(&url).bearer_auth(key).send().await.unwrap();
            assert_eq!(r.status(), 200, "{url}");
            r.json::<Value>().await.unwrap()
        }
    };

    // The landing page: self and root resolve to it; every href is absolute.
    let landing = get(s.url("/api/v1/eo")).await;
    let landing_rels = rels(&s, &landing, "the landing page");
    for rel in ["self", "root", "data", "conformance", "search", "service-desc", "service-doc"] {
        assert!(landing_rels.contains(rel), "landing page lacks {rel}: {landing_rels:?}");
    }
    for rel in ["self", "root"] {
        let again = get(href(&landing, rel).to_owned()).await;
        assert_eq!(again["id"], landing["id"], "{rel}");
        assert_eq!(again["type"], "Catalog");
    }
    let docs = s.client.get(href(&landing, "service-doc")).send().await.unwrap();
    assert_eq!(docs.status(), 200, "service-doc");
    let desc = s.client.get(href(&landing, "service-desc")).send().await.unwrap();
    assert_eq!(desc.status(), 200, "service-desc");

    // Collections: root, parent, self and items, and each resolves.
    let list = get(href(&landing, "data").to_owned()).await;
    rels(&s, &list, "/collections");
    let collections = list["collections"].as_array().unwrap();
    let mut seen: Vec<&str> = collections.iter().map(|c| c["id"].as_str().unwrap()).collect();
    seen.sort();
    assert_eq!(seen, ["cbers4", "s2"]);
    for c in collections {
        let id = c["id"].as_str().unwrap();
        let what = format!("collection {id}");
        let have = rels(&s, c, &what);
        for rel in ["root", "parent", "self", "items"] {
            assert!(have.contains(rel), "{what} lacks {rel}: {have:?}");
        }
        assert_eq!(href(c, "root"), href(&landing, "self"), "{what}");
        assert_eq!(href(c, "parent"), href(&landing, "self"), "{what}");
        let itself = get(href(c, "self").to_owned()).await;
        assert_eq!(itself["id"], id);
        assert_eq!(rels(&s, &itself, &what), have, "{what}: the list and the document differ");

        // Its items: self, parent, collection and root, and each resolves.
        let page = get(href(c, "items").to_owned()).await;
        rels(&s, &page, &format!("{what} items"));
        assert_eq!(page["features"].as_array().unwrap().is_empty(), id == "cbers4", "{what}: {page}");
        for item in page["features"].as_array().unwrap() {
            let iid = item["id"].as_str().unwrap();
            let what = format!("item {id}/{iid}");
            let have = rels(&s, item, &what);
            for rel in ["self", "parent", "collection", "root"] {
                assert!(have.contains(rel), "{what} lacks {rel}: {have:?}");
            }
            assert_eq!(href(item, "parent"), href(c, "self"), "{what}");
            assert_eq!(href(item, "collection"), href(c, "self"), "{what}");
            assert_eq!(href(item, "root"), href(&landing, "self"), "{what}");
            assert_eq!(get(href(item, "self").to_owned()).await["id"], iid, "{what}");
            for (name, asset) in item["assets"].as_object().unwrap() {
                let a = asset["href"].as_str().unwrap();
                assert!(a.starts_with("https://") || a.starts_with(&s.base), "{what} asset {name}: {a}");
            }
        }
    }
    // pystac-client pages a collection's items with `collections` naming it; another is refused.
    let r = s
        .client
        .get(s.url("/api/v1/eo/collections/s2/items?collections=s2&limit=2"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap()["features"].as_array().unwrap().len(), 2);
    let r = s
        .client
        .get(s.url("/api/v1/eo/collections/s2/items?collections=cbers4"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);

    // Fields as stac-api-validator asks for them: a property kept out of an excluded object, and
    // null lists taken as absent ones.
    let one = get(s.url("/api/v1/eo/search?ids=s2-03&fields=-properties,%2Bproperties.eo:cloud_cover")).await;
    assert_eq!(one["features"][0]["properties"], json!({"eo:cloud_cover": 12.0}));
    let body = json!({"ids": ["s2-03"], "fields": {"include": null, "exclude": null}});
    let r = s.client.post(s.url("/api/v1/eo/search")).bearer_auth(&key).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.json::<Value>().await.unwrap()["features"][0],
        get(s.url("/api/v1/eo/collections/s2/items/s2-03")).await
    );

    // The search page links the same way.
    let found = get(s.url("/api/v1/eo/search?limit=5")).await;
    let have = rels(&s, &found, "/search");
    assert!(have.contains("next") && have.contains("root"), "{have:?}");
    for item in found["features"].as_array().unwrap() {
        let have = rels(&s, item, "a search result");
        assert!(["self", "parent", "collection", "root"].iter().all(|r| have.contains(*r)), "{have:?}");
    }
}
