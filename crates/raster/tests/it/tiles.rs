//! WebMercatorQuad tiles: elevation encodings agree with `gdalwarp` to EPSG:3857, tiles are
//! transparent outside the data, and neighbouring hillshade tiles meet without a seam.

use crate::{dem_path, have_tool, run, s, tmp};
use meridian_raster::tiff::GeoTiff;
use meridian_raster::tile::{tile_bounds, TileRenderer, TileStyle};

/// The z15 tile that holds the DEM's centre (7.098°E, 45.922°N).
fn centre_tile(z: u8) -> (u32, u32) {
    let (lon, lat) = (7.0980_f64, 45.9218_f64);
    let n = (1u64 << z) as f64;
    let x = ((lon + 180.0) / 360.0 * n).floor() as u32;
    let y = ((1.0 - (lat.to_radians().tan() + 1.0 / lat.to_radians().cos()).ln() / std::f64::consts::PI) / 2.0 * n)
        .floor() as u32;
    (x, y)
}

#[test]
fn terrain_rgb_decodes_to_the_dem_heights() {
    let src = GeoTiff::open(dem_path()).unwrap();
    let r = TileRenderer::new(&src).unwrap();
    let (x, y) = centre_tile(15);
    let rgba = r.render_rgba(15, x, y, 256, &TileStyle::TerrainRgb).unwrap().unwrap();
    let mut n = 0;
    for px in rgba.chunks_exact(4) {
        if px[3] == 0 {
            continue;
        }
        let h = -10_000.0 + (px[0] as f64 * 65_536.0 + px[1] as f64 * 256.0 + px[2] as f64) * 0.1;
        assert!((1615.0..=2016.0).contains(&h), "{h}");
        n += 1;
    }
    assert!(n > 10_000);
    // Far away there is nothing to draw.
    assert!(r.render_rgba(15, 0, 0, 256, &TileStyle::TerrainRgb).unwrap().is_none());
    assert!(r.render_png(15, x, y, 300, &TileStyle::TerrainRgb).is_err());
    let (zmin, zmax) = r.zoom_range(256).unwrap();
    assert!(zmin < 15 && zmax >= 15, "{zmin}..{zmax}");
}

#[test]
fn terrain_rgb_matches_gdalwarp_to_web_mercator() {
    if !have_tool("gdalwarp", "terrain_rgb_matches_gdalwarp_to_web_mercator") {
        return;
    }
    let src = GeoTiff::open(dem_path()).unwrap();
    let r = TileRenderer::new(&src).unwrap();
    let (x, y) = centre_tile(16);
    let b = tile_bounds(16, x, y);
    let dir = tmp();
    let out = dir.path().join("t.tif");
    let te: Vec<String> = b.iter().map(|v| v.to_string()).collect();
    run(
        "gdalwarp",
        &[
            "-q",
            "-t_srs",
            "EPSG:3857",
            "-te",
            &te[0],
            &te[1],
            &te[2],
            &te[3],
            "-ts",
            "256",
            "256",
            "-r",
            "bilinear",
            "-et",
            "0",
            s(&dem_path()),
            s(&out),
        ],
    );
    let gd = GeoTiff::open(&out).unwrap().read_band::<f32>(0).unwrap();
    let rgba = r.render_rgba(16, x, y, 256, &TileStyle::TerrainRgb).unwrap().unwrap();
    let (mut both, mut close) = (0, 0);
    for (px, g) in rgba.chunks_exact(4).zip(&gd.data) {
        if px[3] == 0 || *g == -9999.0 {
            continue;
        }
        both += 1;
        let h = -10_000.0 + (px[0] as f64 * 65_536.0 + px[1] as f64 * 256.0 + px[2] as f64) * 0.1;
        if (h - *g as f64).abs() <= 0.5 {
            close += 1;
        }
    }
    assert!(both > 30_000, "{both}");
    assert!(close as f64 >= both as f64 * 0.99, "{close} of {both} within 0.5 m");
}

#[test]
fn hillshade_tiles_are_seamless() {
    let src = GeoTiff::open(dem_path()).unwrap();
    let r = TileRenderer::new(&src).unwrap();
    let (x, y) = centre_tile(16);
    let style = TileStyle::by_name("hillshade").unwrap();
    // The same area rendered as one 512 px tile at z16 and as four 256 px tiles at z17: the
    // z17 tiles' shared edges hold the values the z16 buffer computation gives.
    let left = r.render_rgba(17, 2 * x, 2 * y, 256, &style).unwrap().unwrap();
    let right = r.render_rgba(17, 2 * x + 1, 2 * y, 256, &style).unwrap().unwrap();
    let whole = r.render_rgba(16, x, y, 512, &style).unwrap().unwrap();
    let mut compared = 0;
    for row in 0..256 {
        for (tile, col, wcol) in [(&left, 255usize, 255usize), (&right, 0, 256)] {
            let a = &tile[(row * 256 + col) * 4..(row * 256 + col) * 4 + 4];
            let b = &whole[(row * 512 + wcol) * 4..(row * 512 + wcol) * 4 + 4];
            if a[3] == 255 && b[3] == 255 {
                assert!((a[0] as i32 - b[0] as i32).abs() <= 1, "row {row} col {col}: {a:?} vs {b:?}");
                compared += 1;
            }
        }
    }
    assert!(compared > 100, "{compared}");
    for name in TileStyle::NAMES {
        let png = r.render_png(16, x, y, 256, &TileStyle::by_name(name).unwrap()).unwrap().unwrap();
        assert_eq!(&png[1..4], b"PNG");
    }
}

#[test]
fn layer_tiles_paint_processed_rasters() {
    use meridian_raster::dem::{self, ColorRamp, ColorReliefOptions, FileOutput, HillshadeOptions, Operation};
    use meridian_raster::tiff::{write_cog, CogOptions};
    use meridian_raster::tile::LayerPaint;
    let src = GeoTiff::open(dem_path()).unwrap();
    let dir = tmp();
    let (x, y) = centre_tile(15);
    // Hillshade as a job writes it: a tiled GeoTIFF, then a COG with overviews.
    let plain = dir.path().join("hs.tif");
    let op = Operation::Hillshade(HillshadeOptions::default());
    dem::run_to_file(&op, &src, &plain, &FileOutput::default(), &|_| true).unwrap();
    let cog = dir.path().join("hs-cog.tif");
    write_cog(&GeoTiff::open(&plain).unwrap(), &cog, &CogOptions::default()).unwrap();
    let hs = GeoTiff::open(&cog).unwrap();
    let r = TileRenderer::new(&hs).unwrap();
    let rgba = r.render_layer_rgba(15, x, y, 256, &LayerPaint::Gray).unwrap().unwrap();
    let (mut opaque, mut clear) = (0, 0);
    for px in rgba.chunks_exact(4) {
        if px[3] == 0 {
            clear += 1;
        } else {
            assert!(px[0] == px[1] && px[1] == px[2] && px[0] > 0, "{px:?}");
            opaque += 1;
        }
    }
    // The 1 km DEM covers part of a z15 tile (about 1.2 km wide at 46°N): both kinds show.
    assert!(opaque > 10_000 && clear > 1_000, "{opaque} {clear}");
    // With nearest resampling the grey levels are the layer's own values at each pixel centre
    // (the approximate transformer may pick a neighbour right at a pixel boundary).
    let mut nearest = TileRenderer::new(&hs).unwrap();
    nearest.resampling = meridian_raster::warp::Resampling::Nearest;
    let rgba = nearest.render_layer_rgba(15, x, y, 256, &LayerPaint::Gray).unwrap().unwrap();
    let layer = hs.read_band::<u8>(0).unwrap();
    let t = meridian_raster::crs::transformer(3857, 2056).unwrap();
    let b = tile_bounds(15, x, y);
    let res = (b[2] - b[0]) / 256.0;
    let gt = hs.geo_transform().0;
    let (mut same, mut compared) = (0, 0);
    for (i, px) in rgba.chunks_exact(4).enumerate() {
        let (c, r) = ((i % 256) as f64 + 0.5, (i / 256) as f64 + 0.5);
        let (sx, sy) = t.apply(b[0] + c * res, b[3] - r * res).unwrap();
        let (col, row) = (((sx - gt[0]) / gt[1]).floor(), ((sy - gt[3]) / gt[5]).floor());
        if col < 0.0 || row < 0.0 || col >= layer.width as f64 || row >= layer.height as f64 {
            continue;
        }
        let v = layer.get(col as usize, row as usize);
        if v == 0 || px[3] == 0 {
            continue;
        }
        compared += 1;
        same += usize::from(px[0] == v);
    }
    assert!(compared > 10_000 && same as f64 >= 0.99 * compared as f64, "{same} of {compared}");
    assert!(r.render_layer_rgba(15, 0, 0, 256, &LayerPaint::Gray).unwrap().is_none());

    // A Float32 layer through a ramp, and an RGBA colour relief band by band.
    let ramp = LayerPaint::Ramp {
        colors: ColorReliefOptions { ramp: Some(ColorRamp::Viridis), ..ColorReliefOptions::default() },
        min: 1600.0,
        max: 2020.0,
    };
    let painted = r.render_layer_rgba(15, x, y, 512, &ramp).unwrap().unwrap();
    assert_eq!(painted.len(), 512 * 512 * 4);
    let relief = dir.path().join("relief.tif");
    let op = Operation::ColorRelief(ColorReliefOptions {
        ramp: Some(ColorRamp::Terrain),
        alpha: true,
        ..ColorReliefOptions::default()
    });
    dem::run_to_file(&op, &src, &relief, &FileOutput::default(), &|_| true).unwrap();
    let relief = GeoTiff::open(&relief).unwrap();
    let rr = TileRenderer::new(&relief).unwrap();
    let rgba = rr.render_layer_rgba(15, x, y, 256, &LayerPaint::Rgb).unwrap().unwrap();
    assert!(rgba.chunks_exact(4).any(|p| p[3] == 255 && (p[0], p[1], p[2]) != (0, 0, 0)));
    assert!(rgba.chunks_exact(4).any(|p| p[3] == 0));
    assert!(rr.render_layer_rgba(15, x, y, 256, &LayerPaint::Gray).unwrap().is_some());
    let hs_only = TileRenderer::new(&hs).unwrap();
    assert!(hs_only.render_layer_rgba(15, x, y, 256, &LayerPaint::Rgb).is_err());
}

/// The test DEM as a COG of 64-px tiles with overviews (200, 100 and 50 px: 2×, 4×, 8×), so that
/// a map tile touches several of its chunks and every zoom has its own level.
fn small_tile_cog(dir: &std::path::Path) -> std::path::PathBuf {
    let cog = dir.join("cog64.tif");
    let opts = meridian_raster::tiff::CogOptions { tile_size: 64, ..Default::default() };
    meridian_raster::tiff::write_cog(&GeoTiff::open(dem_path()).unwrap(), &cog, &opts).unwrap();
    cog
}

/// Every tile covering the DEM at zoom `z`.
fn covering(r: &TileRenderer<'_>, z: u8) -> Vec<(u32, u32)> {
    let b = r.bounds_wgs84().unwrap();
    let tile = |lon: f64, lat: f64| {
        let n = (1u64 << z) as f64;
        let lat = lat.to_radians();
        let x = ((lon + 180.0) / 360.0 * n).floor() as u32;
        let y = ((1.0 - (lat.tan() + 1.0 / lat.cos()).ln() / std::f64::consts::PI) / 2.0 * n).floor() as u32;
        (x, y)
    };
    let (x0, y0) = tile(b[0], b[3]);
    let (x1, y1) = tile(b[2], b[1]);
    (y0..=y1).flat_map(|y| (x0..=x1).map(move |x| (x, y))).collect()
}

#[test]
fn tiles_are_the_same_with_the_block_cache_cold_warm_and_without_it() {
    use meridian_raster::tiff::BlockCache;
    use std::sync::Arc;
    let dir = tmp();
    let cog = small_tile_cog(dir.path());
    let plain = GeoTiff::open(&cog).unwrap();
    let cache = Arc::new(BlockCache::new(64 << 20));
    let cached = GeoTiff::open(&cog).unwrap().with_block_cache(cache.clone());
    let (rp, rc) = (TileRenderer::new(&plain).unwrap(), TileRenderer::new(&cached).unwrap());
    let styles =
        [TileStyle::TerrainRgb, TileStyle::by_name("hillshade").unwrap(), TileStyle::by_name("color-relief").unwrap()];
    let mut rendered = 0;
    for z in 12..=16 {
        for (x, y) in covering(&rp, z) {
            for style in &styles {
                let want = rp.render_rgba(z, x, y, 256, style).unwrap();
                // Cold for the first style of a tile (its chunks may be cached by a neighbour),
                // then warm: the same pixels each time.
                let cold = rc.render_rgba(z, x, y, 256, style).unwrap();
                let warm = rc.render_rgba(z, x, y, 256, style).unwrap();
                assert!(want == cold && cold == warm, "tile {z}/{x}/{y} {style:?}");
                rendered += want.is_some() as usize;
            }
        }
    }
    assert!(rendered > 30, "{rendered}");
    let stats = cache.stats();
    // Each chunk was decoded once and read from the cache afterwards.
    let chunks: usize = cached.images().iter().map(|im| im.chunks_across() * im.chunks_down()).sum();
    assert!(stats.misses as usize <= chunks, "{stats:?} of {chunks} chunks");
    assert!(stats.hits > 4 * stats.misses, "{stats:?}");
    assert!(stats.bytes <= cache.capacity());

    // A cache too small for one tile's chunks still gives the same pixels.
    let tiny = GeoTiff::open(&cog).unwrap().with_block_cache(Arc::new(BlockCache::new(20_000)));
    let rt = TileRenderer::new(&tiny).unwrap();
    let (x, y) = centre_tile(15);
    for style in &styles {
        assert_eq!(rt.render_rgba(15, x, y, 256, style).unwrap(), rp.render_rgba(15, x, y, 256, style).unwrap());
    }
    assert!(tiny.block_cache().unwrap().stats().bytes <= 20_000);
}

#[test]
fn tiles_read_the_coarsest_overview_still_as_fine_as_they_need() {
    let dir = tmp();
    let cog = small_tile_cog(dir.path());
    let src = GeoTiff::open(&cog).unwrap();
    let widths: Vec<usize> = src.images().iter().map(|im| im.width).collect();
    assert_eq!(widths, [400, 200, 100, 50]);
    let r = TileRenderer::new(&src).unwrap();
    // 2.5 m pixels at 45.9°N; a 256-px tile's pixel is 156,543 m / 2^z of Web Mercator, times
    // cos(lat) on the ground: 1.3 source pixels at z15, 2.7 at z14, 5.3 at z13, 10.6 at z12.
    for (z, level) in [(17, 0), (16, 0), (15, 0), (14, 1), (13, 2), (12, 3), (11, 3)] {
        let (x, y) = centre_tile(z);
        for style in [TileStyle::TerrainRgb, TileStyle::by_name("hillshade").unwrap()] {
            assert_eq!(r.source_level(z, x, y, 256, &style).unwrap(), Some(level), "z{z} {style:?}");
        }
        // 512-px tiles have pixels half the size: those of the next zoom's 256-px tiles.
        let finer = match z {
            12..=14 => level - 1,
            11 => 3,
            _ => 0,
        };
        assert_eq!(r.source_level(z, x, y, 512, &TileStyle::TerrainRgb).unwrap(), Some(finer), "z{z} @2x");
    }
    assert_eq!(r.source_level(15, 0, 0, 256, &TileStyle::TerrainRgb).unwrap(), None);
}
