//! Tile rendering throughput in process: every WebMercatorQuad tile covering a COG at the given
//! zooms, rendered as Terrain-RGB and as hillshade PNGs, on one thread and on two, as the DEM
//! service renders them (one `GeoTiff` opened once and shared).
//!
//! ```text
//! cargo run --release -p meridian-raster --example tiles_bench -- COG.tif [ZOOMS] [PASSES] [CACHE_MIB] [STYLES]
//! ```
//!
//! STYLES defaults to `terrain-rgb,hillshade`.
//! ZOOMS defaults to `12,13,14`, PASSES (passes over the tile list per measurement) to 3, CACHE_MIB
//! (the block cache's capacity; 0 for none) to 256. The first pass starts with a cold cache and is
//! reported apart from the others. Make the COG as the DEM service does:
//! `meridian-raster cog DEM.tif COG.tif`.
#![allow(clippy::print_stdout)]

use meridian_raster::tiff::{BlockCache, GeoTiff};
use meridian_raster::tile::{TileRenderer, TileStyle};
use rayon::prelude::*;
use std::sync::Arc;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: tiles_bench COG.tif [ZOOMS] [PASSES]")?;
    let zooms: Vec<u8> =
        args.get(1).map(String::as_str).unwrap_or("12,13,14").split(',').map(str::parse).collect::<Result<_, _>>()?;
    let passes: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(3).max(2);
    let cache_mib: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(256);
    let styles: Vec<&str> = args.get(4).map(String::as_str).unwrap_or("terrain-rgb,hillshade").split(',').collect();
    let tiles = {
        let src = GeoTiff::open(path)?;
        covering(&TileRenderer::new(&src)?.bounds_wgs84()?, &zooms)
    };
    println!("{} tiles at zooms {zooms:?}, {passes} passes per measurement, block cache {cache_mib} MiB", tiles.len());
    for style in styles {
        let style = TileStyle::by_name(style).ok_or("unknown style")?;
        for threads in [1, 2] {
            // A fresh open and an empty cache per measurement, as a server starting cold has.
            let cache = Arc::new(BlockCache::new(cache_mib << 20));
            let src = GeoTiff::open(path)?.with_block_cache(cache.clone());
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
            // As the DEM service does: a renderer per tile over the one open file.
            let pass = || -> meridian_raster::Result<usize> {
                tiles
                    .par_iter()
                    .with_max_len(1)
                    .map(|&(z, x, y)| {
                        let renderer = TileRenderer::new(&src)?;
                        renderer.render_png(z, x, y, 256, &style).map(|p| p.map_or(0, |p| p.len()))
                    })
                    .sum()
            };
            let t = Instant::now();
            let bytes = pool.install(pass)?;
            let cold = t.elapsed().as_secs_f64();
            let t = Instant::now();
            for _ in 1..passes {
                pool.install(pass)?;
            }
            let warm = t.elapsed().as_secs_f64();
            let n = tiles.len();
            let stats = cache.stats();
            println!(
                "{:<12} {threads} thread(s): first pass {:.0} tiles/s, then {:.0} tiles/s ({} KiB of PNG a pass; \
                 cache: {} hits, {} chunks decoded, {} MiB held)",
                style_name(&style),
                n as f64 / cold,
                (n * (passes - 1)) as f64 / warm,
                bytes / 1024,
                stats.hits,
                stats.misses,
                stats.bytes >> 20
            );
        }
    }
    Ok(())
}

fn style_name(s: &TileStyle) -> &'static str {
    match s {
        TileStyle::Hillshade(_) => "hillshade",
        TileStyle::TerrainRgb => "terrain-rgb",
        _ => "other",
    }
}

/// The tiles covering `b` (min lon, min lat, max lon, max lat) at each zoom, row by row, as
/// bench/dem/tiles.sh lists them.
fn covering(b: &[f64; 4], zooms: &[u8]) -> Vec<(u8, u32, u32)> {
    let tile = |lon: f64, lat: f64, z: u8| {
        let n = (1u64 << z) as f64;
        let lat = lat.to_radians();
        let x = ((lon + 180.0) / 360.0 * n) as u32;
        let y = ((1.0 - (lat.tan() + 1.0 / lat.cos()).ln() / std::f64::consts::PI) / 2.0 * n) as u32;
        (x, y)
    };
    let mut out = Vec::new();
    for &z in zooms {
        let (x0, y0) = tile(b[0], b[3], z);
        let (x1, y1) = tile(b[2], b[1], z);
        for y in y0..=y1 {
            for x in x0..=x1 {
                out.push((z, x, y));
            }
        }
    }
    out
}
