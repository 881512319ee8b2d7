use crate::{hostile, parse_glb, rect, scatter};
use meridian_twin::{build_tileset, Footprint, SkipReason, Terrain, TilesetOptions, TwinError};

#[test]
fn invalid_footprints_are_skipped_and_reported() {
    let mut fps = scatter(20, 5);
    fps[1].polygon = vec![vec![[153.0, -27.5], [153.0001, -27.5], [153.0, -27.5]]];
    fps[2].polygon[0][1][0] = f64::NAN;
    fps[3].polygon = vec![vec![[153.0, -27.5], [153.0001, -27.5], [153.0002, -27.5], [153.0, -27.5]]];
    fps[4].height = 0.0;
    fps[5].polygon.clear();
    fps[6].base = f64::INFINITY;
    let built = build_tileset(&fps, None, &TilesetOptions::default()).unwrap();
    let reasons: Vec<(usize, SkipReason)> = built.skipped.iter().map(|s| (s.index, s.reason)).collect();
    assert_eq!(
        reasons,
        [
            (1, SkipReason::TooFewPoints),
            (2, SkipReason::NonFinite),
            (3, SkipReason::ZeroArea),
            (4, SkipReason::BadHeight),
            (5, SkipReason::TooFewPoints),
            (6, SkipReason::BadHeight),
        ]
    );
    assert_eq!(built.skipped[0].id, "p1");
    let kept: usize = built.tiles.iter().map(|t| t.features.len()).sum();
    assert_eq!(kept, 14);
}

#[test]
fn limits_are_errors() {
    let fps = scatter(50, 2);
    let o = TilesetOptions { max_footprints: 49, ..TilesetOptions::default() };
    assert_eq!(build_tileset(&fps, None, &o).unwrap_err(), TwinError::TooManyFootprints { count: 50, max: 49 });

    let o = TilesetOptions { max_vertices_per_polygon: 4, ..TilesetOptions::default() };
    // Rectangles have five points (closed) in their exterior.
    assert!(matches!(build_tileset(&fps, None, &o), Err(TwinError::TooManyVertices { max: 4, .. })));

    let o = TilesetOptions { max_triangles: 100, ..TilesetOptions::default() };
    assert!(matches!(build_tileset(&fps, None, &o), Err(TwinError::TooManyTriangles { max: 100, .. })));

    // Ten footprints on the same spot (strata lots) cannot be split by a quadtree: the cell is
    // divided into parts.
    let same: Vec<Footprint> = (0..10).map(|i| rect(&format!("s{i}"), 153.0, -27.5, 10.0, 10.0)).collect();
    let o = TilesetOptions { max_features_per_tile: 3, max_depth: 5, ..TilesetOptions::default() };
    let built = build_tileset(&same, None, &o).unwrap();
    let uris: Vec<&str> = built.tiles.iter().map(|t| t.uri.as_str()).collect();
    assert_eq!(uris, ["tiles/0/0/0-0.glb", "tiles/0/0/0-1.glb", "tiles/0/0/0-2.glb", "tiles/0/0/0-3.glb"]);
    let parts: Vec<Vec<usize>> = built.tiles.iter().map(|t| t.features.clone()).collect();
    assert_eq!(parts, [vec![0, 1, 2], vec![3, 4, 5], vec![6, 7, 8], vec![9]]);
    // Close but distinct centroids are split down to max_depth, then into parts.
    let near: Vec<Footprint> =
        (0..10).map(|i| rect(&format!("n{i}"), 153.0 + f64::from(i) * 1e-9, -27.5, 10.0, 10.0)).collect();
    let built = build_tileset(&near, None, &o).unwrap();
    assert!(built.tiles.iter().all(|t| t.features.len() <= 3 && t.depth <= 5));
    assert_eq!(built.tiles.iter().map(|t| t.features.len()).sum::<usize>(), 10);

    let o = TilesetOptions { max_features_per_tile: 0, ..TilesetOptions::default() };
    assert!(matches!(build_tileset(&fps, None, &o), Err(TwinError::Options(_))));

    assert_eq!(build_tileset(&[], None, &TilesetOptions::default()).unwrap_err(), TwinError::Empty);
    let bad = Footprint { polygon: vec![vec![[0.0, 0.0]]], height: 1.0, ..Footprint::default() };
    assert_eq!(build_tileset(&[bad], None, &TilesetOptions::default()).unwrap_err(), TwinError::Empty);
}

#[test]
fn malformed_terrain_is_an_error() {
    let t = Terrain { width: 3, height: 3, bounds: [153.0, -27.5, 153.01, -27.49], heights: vec![1.0; 8] };
    assert!(matches!(build_tileset(&[], Some(&t), &TilesetOptions::default()), Err(TwinError::Terrain(_))));
    let t = Terrain { heights: vec![f32::NAN; 9], ..t };
    assert!(matches!(build_tileset(&[], Some(&t), &TilesetOptions::default()), Err(TwinError::Terrain(_))));
    let t = Terrain { bounds: [153.01, -27.5, 153.0, -27.49], heights: vec![1.0; 9], ..t };
    assert!(matches!(build_tileset(&[], Some(&t), &TilesetOptions::default()), Err(TwinError::Terrain(_))));
    // Terrain alone is a tileset of one tile.
    let t = Terrain { bounds: [153.0, -27.5, 153.01, -27.49], ..t };
    let built = build_tileset(&[], Some(&t), &TilesetOptions::default()).unwrap();
    assert_eq!(built.contents.len(), 1);
    assert_eq!(built.triangles, 8);
}

#[test]
fn hostile_polygons_give_valid_content_or_a_skip_never_a_panic() {
    let fps = hostile(2000, 99);
    let built =
        build_tileset(&fps, None, &TilesetOptions { max_features_per_tile: 100, ..Default::default() }).unwrap();
    let kept: usize = built.tiles.iter().map(|t| t.features.len()).sum();
    assert_eq!(kept + built.skipped.len(), fps.len());
    assert!(kept > 500, "{kept}");
    for (_, bytes) in &built.contents {
        let g = parse_glb(bytes);
        let p = g.enu_positions();
        assert!(p.iter().flatten().all(|c| c.is_finite()));
        let idx = g.accessor(g.primitive()["indices"].as_u64().unwrap());
        assert!(idx.iter().all(|&i| (i as usize) < p.len()));
    }
}
