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

    // Ten footprints on the same spot cannot be split by a quadtree.
    let same: Vec<Footprint> = (0..10).map(|i| rect(&format!("s{i}"), 153.0, -27.5, 10.0, 10.0)).collect();
    let o = TilesetOptions { max_features_per_tile: 3, max_depth: 5, ..TilesetOptions::default() };
    assert_eq!(build_tileset(&same, None, &o).unwrap_err(), TwinError::TileTooFull { depth: 5, count: 10, max: 3 });

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
