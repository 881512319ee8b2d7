//! The EO service without HTTP: search pages against a brute-force evaluation of the same
//! query, uploads (COG stored at once, other GeoTIFFs queued), and NDVI with zonal statistics
//! over cadastral parcels.

use meridian_backends::StoreOptions;
use meridian_collections::FeatureService;
use meridian_core::config::Config;
use meridian_core::id::{AccountId, ApiKeyId};
use meridian_core::{DomainError, Timestamp};
use meridian_eo::compute::Computed;
use meridian_eo::ingest::{Ingested, UploadedAsset};
use meridian_eo::search::Search;
use meridian_eo::{EoService, Error};
use meridian_features::cql2::{self, Subject};
use meridian_raster::tiff::{write_cog, CogOptions, GeoTiff};
use meridian_store::model::{Account, ApiKey};
use serde_json::{json, Map, Value};
use std::cmp::Ordering;
use std::time::Duration;

async fn setup(dir: &std::path::Path) -> (EoService, FeatureService, AccountId) {
    setup_with(dir, |_| {}).await
}

async fn setup_with(
    dir: &std::path::Path,
    configure: impl FnOnce(&mut Config),
) -> (EoService, FeatureService, AccountId) {
    let store = meridian_backends::open(&StoreOptions {
        database_url: format!("sqlite://{}/m.db", dir.display()),
        blob_url: format!("file://{}/blobs", dir.display()),
        readers: 2,
        busy_timeout: Duration::from_secs(5),
        postgres: Default::default(),
    })
    .await
    .unwrap();
    let account = Account {
        id: AccountId::generate(),
        name: "Analyst".into(),
        email: "a@example.com".into(),
        created_at: Timestamp::now(),
    };
    let id = ApiKeyId::generate();
    let key = ApiKey {
        hash: format!("hash-{}", id.as_str()),
        prefix: id.as_str()[..8].to_owned(),
        id,
        account_id: account.id.clone(),
        name: "first".into(),
        scopes: vec!["eo:write".parse().unwrap()],
        created_at: Timestamp::now(),
        expires_at: None,
        revoked_at: None,
    };
    store.accounts.create_account(&account, &key).await.unwrap();
    let mut config = Config::default();
    config.server.data_dir = dir.to_path_buf();
    configure(&mut config);
    let features = FeatureService::new(store.clone());
    (EoService::new(&config, store, features.clone()), features, account.id)
}

async fn collection(svc: &EoService, account: &AccountId, id: &str) {
    svc.create_collection(
        account,
        &json!({"id": id, "description": "test",
        "extent": {"spatial": {"bbox": [[-180, -90, 180, 90]]}, "temporal": {"interval": [[null, null]]}}}),
    )
    .await
    .unwrap();
}

/// A small deterministic generator.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[derive(Clone, Debug)]
struct Plain {
    collection: String,
    id: String,
    time: i64,
    bbox: [f64; 4],
    props: Map<String, Value>,
    geometry: Value,
    seq: usize,
}

fn sql_cmp(a: &Value, b: &Value) -> Ordering {
    // SQLite's order: NULL, then numbers, then text.
    let rank = |v: &Value| match v {
        Value::Null => 0,
        Value::Number(_) => 1,
        _ => 2,
    };
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64().unwrap().total_cmp(&y.as_f64().unwrap()),
        (Value::String(x), Value::String(y)) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

#[tokio::test]
async fn search_pages_equal_a_brute_force_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let (svc, _, account) = setup(dir.path()).await;
    collection(&svc, &account, "a").await;
    collection(&svc, &account, "b").await;
    let mut rng = Lcg(7);
    let mut all = Vec::new();
    for c in ["a", "b"] {
        let mut features = Vec::new();
        for i in 0..150 {
            let (x, y) = (-20.0 + rng.next() * 40.0, -10.0 + rng.next() * 20.0);
            let s = 0.5 + rng.next() * 2.5;
            let time = 1_577_836_800_000i64 + (rng.next() * 1.5e11) as i64;
            let mut props = Map::new();
            props.insert("datetime".into(), json!(meridian_eo::stac::format_instant(time)));
            if rng.next() > 0.15 {
                props.insert("eo:cloud_cover".into(), json!((rng.next() * 100.0).round()));
            }
            props.insert("platform".into(), json!(["x", "y", "z"][(rng.next() * 3.0) as usize % 3]));
            let geometry =
                json!({"type": "Polygon", "coordinates": [[[x, y], [x + s, y], [x + s, y + s], [x, y + s], [x, y]]]});
            let id = format!("{c}-{i:03}");
            features.push(json!({"type": "Feature", "id": id, "geometry": geometry, "properties": props,
                "assets": {"d": {"href": format!("https://example.com/{id}.tif")}}}));
            all.push(Plain {
                collection: c.into(),
                id,
                time,
                bbox: [x, y, x + s, y + s],
                props,
                geometry,
                seq: all.len(),
            });
        }
        svc.add_items(&account, c, &json!({"type": "FeatureCollection", "features": features})).await.unwrap();
    }
    let queries = [
        "limit=7",
        "limit=5&sortby=eo:cloud_cover",
        "limit=9&sortby=-eo:cloud_cover,+datetime",
        "limit=11&sortby=platform,-id&collections=b",
        "limit=4&bbox=-5,-5,5,5",
        "limit=6&datetime=2021-01-01T00:00:00Z/2022-06-30T00:00:00Z&sortby=-datetime",
        "limit=3&filter=eo:cloud_cover < 30 AND platform <> 'z'",
        "limit=8&filter=eo:cloud_cover IS NULL OR platform = 'x'&sortby=-eo:cloud_cover&bbox=-10,-10,10,10",
        "limit=13&filter=S_INTERSECTS(geometry, POLYGON((0 0, 8 0, 8 8, 0 0)))&sortby=id",
        "limit=2&ids=a-001,b-002,a-149,b-100&sortby=-id",
    ];
    for q in queries {
        let pairs: Vec<(String, String)> = form_urlencoded_pairs(q);
        let mut search = Search::from_query(&pairs, true).unwrap();
        let mut got = Vec::new();
        let mut matched = None;
        for _ in 0..200 {
            let page = svc.search(&account, &search).await.unwrap();
            if matched.is_none() {
                matched = page.matched;
            }
            got.extend(page.items.iter().map(|i| i.id.clone()));
            match page.next {
                Some(t) => search.token = Some(t),
                None => break,
            }
        }
        // The same query, evaluated on the plain records.
        let s = Search::from_query(&pairs, true).unwrap();
        let mut want: Vec<&Plain> = all
            .iter()
            .filter(|p| s.collections.is_empty() || s.collections.contains(&p.collection))
            .filter(|p| s.ids.is_empty() || s.ids.contains(&p.id))
            .filter(|p| {
                s.bbox.is_none_or(|b| p.bbox[2] >= b[0] && p.bbox[0] <= b[2] && p.bbox[3] >= b[1] && p.bbox[1] <= b[3])
            })
            .filter(|p| s.time.is_none_or(|(a, b)| p.time >= a && p.time <= b))
            .filter(|p| {
                s.filter.as_ref().is_none_or(|f| {
                    let mut props = p.props.clone();
                    props.insert("collection".into(), json!(p.collection));
                    let g = meridian_features::geometry::decode(&p.geometry);
                    cql2::matches(
                        f,
                        &Subject { id: &p.id, properties: &props, geometry: g.as_ref(), geometry_name: "geometry" },
                    )
                })
            })
            .collect();
        let key = |p: &Plain, field: &meridian_store::eo::SortField| -> Value {
            use meridian_store::eo::SortField as F;
            match field {
                F::Datetime => json!(p.time),
                F::Id => json!(p.id),
                F::Collection => json!(p.collection),
                F::Property(n) => p.props.get(n).cloned().unwrap_or(Value::Null),
            }
        };
        want.sort_by(|x, y| {
            for k in &s.sort {
                let o = sql_cmp(&key(x, &k.field), &key(y, &k.field));
                let o = if k.descending { o.reverse() } else { o };
                if o != Ordering::Equal {
                    return o;
                }
            }
            x.seq.cmp(&y.seq)
        });
        let want: Vec<String> = want.iter().map(|p| p.id.clone()).collect();
        assert_eq!(got, want, "{q}");
        if let Some(m) = matched {
            assert_eq!(m, want.len() as u64, "{q}");
        }
        if s.filter.is_none() {
            assert!(matched.is_some(), "{q}: numberMatched is exact without a filter");
        }
    }
}

fn form_urlencoded_pairs(q: &str) -> Vec<(String, String)> {
    q.split('&').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.to_owned(), v.to_owned())).collect()
}

fn cbers(n: u8) -> std::path::PathBuf {
    crate::cbers_path(n)
}

/// The CBERS bands as COGs (the shipped files are stripped).
fn cog_bands(dir: &std::path::Path) -> Vec<UploadedAsset> {
    [(7u8, "B7"), (8, "B8"), (6, "B6")]
        .iter()
        .map(|(n, key)| {
            let path = dir.join(format!("{key}.tif"));
            let opts = CogOptions { tile_size: 256, level: 6, predictor: false, overviews: true, average: false };
            write_cog(&GeoTiff::open(cbers(*n)).unwrap(), &path, &opts).unwrap();
            UploadedAsset { key: (*key).into(), path, filename: None }
        })
        .collect()
}

fn part(id: &str) -> Value {
    let band = |n: &str, c: &str| json!({"eo:bands": [{"name": n, "common_name": c}]});
    json!({"id": id, "datetime": "2017-11-21T06:51:03Z",
        "assets": {"B7": band("B7", "red"), "B8": band("B8", "nir"), "B6": band("B6", "green")}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn index_tiles_read_their_chunks_once_and_draw_the_same_with_the_block_cache_off() {
    let style = meridian_eo::tiles::TileStyle::named("ndvi").unwrap();
    let mut drawn = Vec::new();
    for bytes in [256 << 20, 0] {
        let dir = tempfile::tempdir().unwrap();
        let (svc, _, account) = setup_with(dir.path(), |c| c.eo.block_cache_bytes = bytes).await;
        collection(&svc, &account, "cbers").await;
        svc.ingest(&account, "cbers", &part("scene"), cog_bands(dir.path())).await.unwrap();
        let tile = |z, x, y| svc.scene_tile(&account, "cbers/scene", &style, z, x, y, 256);
        let first = tile(7, 83, 62).await.unwrap().expect("the tile is over the scene");
        let after_first = svc.block_cache_stats();
        let again = tile(7, 83, 62).await.unwrap().unwrap();
        let next = tile(7, 84, 62).await.unwrap();
        assert_eq!(first, again);
        match (bytes, after_first, svc.block_cache_stats()) {
            (0, None, None) => {}
            (_, Some(a), Some(b)) => {
                assert!(a.misses > 0 && a.hits == 0, "{a:?}");
                assert_eq!(b.misses, a.misses, "the same tile decodes nothing again: {b:?}");
                assert!(b.hits >= a.misses, "{b:?}");
                assert!(b.bytes > 0 && b.bytes as u64 <= bytes, "{b:?}");
            }
            other => panic!("block_cache_bytes {bytes}: {other:?}"),
        }
        drawn.push((first, next));
    }
    assert_eq!(drawn[0], drawn[1], "the cache changes no pixel");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_are_derived_and_indices_summarise_parcels() {
    let dir = tempfile::tempdir().unwrap();
    let (svc, features, account) = setup(dir.path()).await;
    collection(&svc, &account, "cbers").await;
    // Stripped GeoTIFFs go to a conversion job; nothing is published yet.
    let stripped = vec![UploadedAsset { key: "B7".into(), path: cbers(7), filename: None }];
    let only_red = json!({"id": "stripped", "datetime": "2017-11-21T06:51:03Z"});
    match svc.ingest(&account, "cbers", &only_red, stripped).await.unwrap() {
        Ingested::Job(job) => assert_eq!(job.kind, meridian_eo::ingest::INGEST_JOB),
        Ingested::Item(_) => panic!("a stripped GeoTIFF is not a COG"),
    }
    assert!(svc.item(&account, "cbers", "stripped").await.is_err());
    // COGs are published at once, with what the files say.
    let item = match svc.ingest(&account, "cbers", &part("scene"), cog_bands(dir.path())).await.unwrap() {
        Ingested::Item(i) => i,
        Ingested::Job(_) => panic!("COGs are stored as they are"),
    };
    let props = &item.body["properties"];
    assert_eq!(props["proj:epsg"], 32640);
    assert_eq!(props["proj:shape"], json!([155, 163]));
    assert_eq!(props["proj:transform"], json!([900.0, 0.0, 90480.0, 0.0, -900.0, 666560.0]));
    assert!(item.bbox[0] > 53.2 && item.bbox[2] < 54.7 && item.bbox[1] > 4.7 && item.bbox[3] < 6.1, "{:?}", item.bbox);
    let stats = &item.body["assets"]["B8"]["raster:bands"][0]["statistics"];
    let nir = GeoTiff::open(cbers(8)).unwrap().read_band::<f64>(0).unwrap();
    let valid: Vec<f64> = nir.data.iter().copied().filter(|v| *v != 0.0).collect();
    let mean = valid.iter().sum::<f64>() / valid.len() as f64;
    assert!((stats["mean"].as_f64().unwrap() - mean).abs() < 1e-9, "{stats} vs {mean}");
    assert_eq!(stats["minimum"].as_f64().unwrap(), valid.iter().copied().fold(f64::INFINITY, f64::min));

    // Parcels over the scene: 3 × 3 squares of 0.1° around its centre, half freehold.
    for i in 0..9 {
        let (x, y) = (53.85 + (i % 3) as f64 * 0.1, 5.25 + (i / 3) as f64 * 0.1);
        let body = json!({"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[x, y], [x + 0.1, y], [x + 0.1, y + 0.1], [x, y + 0.1], [x, y]]]},
            "properties": {"lot": i.to_string(), "plan": "DP1", "tenure": if i % 2 == 0 { "freehold" } else { "leasehold" }}});
        let draft = meridian_collections::write::parse_feature(
            &body,
            meridian_core::crs::Crs::Crs84,
            meridian_collections::PARCELS,
        )
        .unwrap();
        features.create(&account, meridian_collections::PARCELS, draft).await.unwrap();
    }
    let request = json!({"scene": "cbers/scene", "zones": {"collection": "parcels", "filter": "tenure = 'freehold'"}});
    let doc = match svc.compute(&account, "ndvi", &request).await.unwrap() {
        Computed::Done(d) => d,
        Computed::Queued(_) => panic!("a small scene is computed at once"),
    };
    assert_eq!(doc["expression"], "(B8 - B7) / (B8 + B7)", "{doc}");
    let stats = &doc["statistics"];
    assert!(stats["min"].as_f64().unwrap() >= -1.0 && stats["max"].as_f64().unwrap() <= 1.0);
    assert!(stats["count"].as_u64().unwrap() > 10_000, "{stats}");
    let zones = doc["zones"]["features"].as_array().unwrap();
    assert_eq!(zones.len(), 5, "the freehold parcels");
    for z in zones {
        assert_eq!(z["properties"]["tenure"], "freehold");
        let n = z["properties"]["count"].as_u64().unwrap();
        // A 0.1° square is about 11 km: some 150 pixels of 900 m.
        assert!((100..200).contains(&n), "{z}");
        let mean = z["properties"]["mean"].as_f64().unwrap();
        assert!(mean >= z["properties"]["min"].as_f64().unwrap() && mean <= z["properties"]["max"].as_f64().unwrap());
    }
    assert_eq!(svc.result(&account, doc["id"].as_str().unwrap()).await.unwrap()["id"], doc["id"]);

    // Checked before anything runs.
    let invalid = |r: Result<Computed, Error>| match r {
        Err(Error::Domain(DomainError::Invalid(e))) => e[0].pointer.clone(),
        other => panic!("expected a validation error, got {other:?}"),
    };
    assert_eq!(invalid(svc.compute(&account, "ndvi", &json!({"scene": "cbers/nope"})).await), "/scene");
    assert_eq!(invalid(svc.compute(&account, "evi", &json!({"scene": "scene"})).await), "/bands", "no blue band");
    assert_eq!(
        invalid(svc.compute(&account, "expression", &json!({"scene": "scene", "expression": "(B8 - B7"})).await),
        "/expression"
    );
    assert_eq!(
        invalid(svc.compute(&account, "ndvi", &json!({"scene": "scene", "bands": {"red": "B9"}})).await),
        "/bands/red"
    );
    assert_eq!(
        invalid(svc.compute(&account, "ndvi", &json!({"scene": "scene", "area": {"bbox": [0, 0, 1, 1]}})).await),
        "/area"
    );
    assert_eq!(
        invalid(svc.compute(&account, "ndvi", &json!({"scene": "scene", "zones": {"collection": "nope"}})).await),
        "/zones/collection"
    );
    // A large area is a job.
    match svc.compute(&account, "ndwi", &json!({"scene": "scene", "async": true})).await.unwrap() {
        Computed::Queued(job) => assert_eq!(job.kind, meridian_eo::compute::COMPUTE_JOB),
        Computed::Done(_) => panic!("async asks for a job"),
    }
}
