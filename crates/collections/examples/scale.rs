//! Loads a collection of N square parcels-like features into a fresh store and times the list
//! queries a map client makes: first pages, deep cursor pages, a bbox page, a property equality
//! page and a CQL2 range page, each with its `numberMatched`.
//!
//! `cargo run --release -p meridian-collections --example scale -- 1000000 /tmp/scale`
//! (add `reuse` as a third argument to query a collection loaded by an earlier run)

#![allow(clippy::print_stdout)] // a measuring tool: its output is the report

use meridian_backends::StoreOptions;
use meridian_collections::{FeatureService, ListQuery, Start};
use meridian_core::crs::Crs;
use meridian_core::id::{AccountId, ApiKeyId};
use meridian_core::Timestamp;
use meridian_features::cql2;
use meridian_features::geometry::Bbox;
use meridian_store::features::FeatureCollection;
use meridian_store::model::{Account, ApiKey};
use serde_json::json;
use std::time::{Duration, Instant};

type Res<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

#[tokio::main]
async fn main() -> Res {
    let mut args = std::env::args().skip(1);
    let n: u32 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(100_000);
    let dir = std::path::PathBuf::from(args.next().unwrap_or_else(|| "/tmp/meridian-scale".into()));
    let reuse = args.next().as_deref() == Some("reuse") && dir.join("account").exists();
    if !reuse {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
    }
    let store = meridian_backends::open(&StoreOptions {
        database_url: format!("sqlite://{}/m.db", dir.display()),
        blob_url: format!("file://{}/blobs", dir.display()),
        readers: 4,
        busy_timeout: Duration::from_secs(30),
        postgres: Default::default(),
    })
    .await?;
    let account = Account {
        id: if reuse { AccountId(std::fs::read_to_string(dir.join("account"))?) } else { AccountId::generate() },
        name: "Scale".into(),
        email: "scale@example.com".into(),
        created_at: Timestamp::now(),
    };
    let id = ApiKeyId::generate();
    let key = ApiKey {
        hash: format!("hash-{}", id.as_str()),
        prefix: id.as_str()[..8].to_owned(),
        id,
        account_id: account.id.clone(),
        name: "k".into(),
        scopes: vec!["cadastre:write".parse()?],
        created_at: Timestamp::now(),
        expires_at: None,
        revoked_at: None,
    };
    let svc = FeatureService::new(store.clone());
    if !reuse {
        store.accounts.create_account(&account, &key).await?;
        std::fs::write(dir.join("account"), account.id.as_str())?;
        load(&svc, &account.id, n).await?;
    }
    query(&svc, &account.id, n).await
}

async fn load(svc: &FeatureService, account: &AccountId, n: u32) -> Res {
    let now = Timestamp::now();
    let c = FeatureCollection {
        account_id: account.clone(),
        id: "big".into(),
        title: "big".into(),
        description: String::new(),
        created_at: now,
        updated_at: now,
    };
    svc.store().features.create_collection(&c, &[]).await?;
    // A square grid over about 1 x 1 degrees, 1,000 features per row.
    let started = Instant::now();
    let per_row = 1000u32;
    let step = 1.0 / f64::from(per_row);
    let mut i = 0u32;
    while i < n {
        let end = (i + 5000).min(n);
        let bodies = (i..end)
            .map(|k| {
                let (x, y) = (f64::from(k % per_row) * step, f64::from(k / per_row) * step);
                let s = step * 0.8;
                json!({"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[x, y], [x + s, y], [x + s, y + s], [x, y + s], [x, y]]]},
                       "properties": {"n": k, "name": format!("f{}", k % 1000), "zone": format!("z{}", k % 17)}})
            })
            .collect();
        let drafts = svc.drafts(bodies, Crs::Crs84, "big").await?;
        svc.create_many(account, "big", drafts).await?;
        i = end;
    }
    println!("loaded {n} features in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

async fn query(svc: &FeatureService, account: &AccountId, n: u32) -> Res {
    let per_row = 1000u32;
    let step = 1.0 / f64::from(per_row);

    let base = ListQuery { collection: "big".into(), limit: 100, ..ListQuery::default() };
    let rows = f64::from(n / per_row).max(1.0) * step;
    let cases: Vec<(&str, ListQuery)> = vec![
        ("first page", base.clone()),
        ("page at offset 10,000", ListQuery { start: Start::Offset(10_000), ..base.clone() }),
        (
            "bbox 0.05 deg (about 2,500 features)",
            ListQuery {
                bbox: Some(Bbox { min_x: 0.4, min_y: rows * 0.4, max_x: 0.45, max_y: rows * 0.4 + 0.05 }),
                ..base.clone()
            },
        ),
        (
            "bbox over everything",
            ListQuery { bbox: Some(Bbox { min_x: -1.0, min_y: -1.0, max_x: 2.0, max_y: 2.0 }), ..base.clone() },
        ),
        ("equality name=f123", ListQuery { equals: vec![("name".into(), "f123".into())], ..base.clone() }),
        (
            "CQL2 n BETWEEN-like range",
            ListQuery { filter: Some(cql2::parse_text("n >= 5000 AND n < 5100").map_err(|e| e.0)?), ..base.clone() },
        ),
        (
            "CQL2 LIKE (not indexed)",
            ListQuery { filter: Some(cql2::parse_text("name LIKE 'f12%'").map_err(|e| e.0)?), ..base.clone() },
        ),
        ("sorted by n descending", ListQuery { sortby: vec![("n".into(), true)], ..base.clone() }),
    ];
    for (name, q) in cases {
        let mut times = Vec::new();
        let mut matched = None;
        for _ in 0..7 {
            let t = Instant::now();
            let page = svc.list(account, &q).await?;
            times.push(t.elapsed());
            matched = page.number_matched;
        }
        times.sort();
        println!("{name:40} median {:>8.2} ms  numberMatched {:?}", times[3].as_secs_f64() * 1e3, matched);
    }
    // Walking 100 pages by cursor from deep inside the collection.
    let mut q = ListQuery { start: Start::Offset(u64::from(n / 2)), ..base.clone() };
    let t = Instant::now();
    for _ in 0..100 {
        let page = svc.list(account, &q).await?;
        match page.next {
            Some(c) => q.start = Start::Cursor(c),
            None => break,
        }
    }
    println!(
        "{:40} median {:>8.2} ms per page",
        "cursor pages from the middle",
        t.elapsed().as_secs_f64() * 1e3 / 100.0
    );
    Ok(())
}
