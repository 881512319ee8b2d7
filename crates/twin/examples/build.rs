//! Builds a tileset from N synthetic parcels (a street grid of rectangular lots, every fifth one
//! with a courtyard) and prints how long `build_tileset` took, as a JSON line.
//!
//! ```sh
//! cargo run --release -p meridian-twin --example build -- 100000 [OUT_DIR] [--terrain]
//! ```
//! With OUT_DIR, writes tileset.json and the tiles there (to open in CesiumJS).
#![allow(clippy::print_stdout)]

use meridian_twin::{build_tileset, Footprint, Terrain, TilesetOptions};
use serde_json::json;
use std::time::Instant;

/// Lots are 20 m × 30 m, in blocks of 10 × 4 lots with 15 m streets, around Brisbane.
fn parcels(n: usize) -> Vec<Footprint> {
    let (m_lon, m_lat) = (1.0 / 98_786.0, 1.0 / 110_837.0);
    let per_row = ((n as f64).sqrt() * 1.2).ceil() as usize;
    (0..n)
        .map(|i| {
            let (c, r) = (i % per_row, i / per_row);
            let x = c as f64 * 20.0 + (c / 10) as f64 * 15.0;
            let y = r as f64 * 30.0 + (r / 4) as f64 * 15.0;
            let inset = 2.0 + (i % 3) as f64;
            let (w, s) = (153.0 + (x + inset) * m_lon, -27.5 + (y + inset) * m_lat);
            let (e, n) = (153.0 + (x + 20.0 - inset) * m_lon, -27.5 + (y + 30.0 - inset) * m_lat);
            let mut polygon = vec![vec![[w, s], [e, s], [e, n], [w, n], [w, s]]];
            if i % 5 == 0 {
                let (dx, dy) = ((e - w) / 3.0, (n - s) / 3.0);
                polygon.push(vec![[w + dx, s + dy], [w + dx, n - dy], [e - dx, n - dy], [e - dx, s + dy]]);
            }
            let mut properties = serde_json::Map::new();
            properties.insert("lot".into(), json!((i % 40 + 1).to_string()));
            properties.insert("plan".into(), json!(format!("SP{}", 100_000 + i / 40)));
            properties.insert("tenure".into(), json!(if i % 11 == 0 { "Leasehold" } else { "Freehold" }));
            properties.insert("zone".into(), json!(["LDR", "MDR", "MU"][i % 3]));
            Footprint {
                id: format!("parcel-{i}"),
                polygon,
                base: 10.0 + (r as f64 * 0.01),
                height: 4.0 + (i * 7 % 23) as f64,
                properties,
            }
        })
        .collect()
}

fn terrain() -> Terrain {
    let (width, height) = (1024, 1024);
    let heights = (0..width * height).map(|i| 10.0 + ((i % width) as f32 / 90.0).sin() * 4.0).collect();
    Terrain { width, height, bounds: [153.0, -27.5, 153.06, -27.44], heights }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map_or(Ok(100_000), |a| a.parse())?;
    let out = args.get(1).filter(|a| !a.starts_with("--"));
    let with_terrain = args.iter().any(|a| a == "--terrain");
    let fps = parcels(n);
    let t = with_terrain.then(terrain);
    let opts = TilesetOptions::default();
    let start = Instant::now();
    let built = build_tileset(&fps, t.as_ref(), &opts)?;
    let seconds = start.elapsed().as_secs_f64();
    let bytes: usize = built.contents.iter().map(|c| c.1.len()).sum();
    println!(
        "{}",
        json!({ "footprints": n, "terrain": with_terrain, "seconds": seconds, "tiles": built.contents.len(),
                "triangles": built.triangles, "glb_bytes": bytes, "skipped": built.skipped.len(),
                "threads": rayon::current_num_threads() })
    );
    if let Some(dir) = out {
        let dir = std::path::Path::new(dir);
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("tileset.json"), serde_json::to_vec_pretty(&built.tileset)?)?;
        for (uri, glb) in &built.contents {
            let path = dir.join(uri);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, glb)?;
        }
    }
    Ok(())
}
