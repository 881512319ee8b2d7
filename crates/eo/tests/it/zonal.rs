//! Zonal statistics: hand-made rasters with known answers, a brute-force check of which pixels a
//! polygon covers, and rasterstats as the oracle on a real index.

use crate::{cbers, never, python, s, tmp};
use geo::{Coord, LineString, MultiPolygon, Polygon};
use meridian_eo::bandmath::{compute, Band, NODATA};
use meridian_eo::expr::{named_index, Expression};
use meridian_eo::zonal::{pixel_window, zonal_stats, ZoneStats};
use meridian_raster::tiff::{write_raster_cog, CogOptions};
use meridian_raster::{GeoTransform, Window};
use meridian_testing::tools::have_python_module;
use serde_json::{json, Value};

fn ring(points: &[(f64, f64)]) -> LineString<f64> {
    LineString(points.iter().map(|&(x, y)| Coord { x, y }).collect())
}

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Vec<(f64, f64)> {
    vec![(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
}

fn poly(outer: &[(f64, f64)], holes: &[Vec<(f64, f64)>]) -> MultiPolygon<f64> {
    MultiPolygon(vec![Polygon::new(ring(outer), holes.iter().map(|h| ring(h)).collect())])
}

/// A 10 × 10 raster whose value is `row * 10 + col`, with x = col and y = 10 - row.
fn grid10() -> (Vec<f32>, GeoTransform) {
    ((0..100).map(|i| i as f32).collect(), GeoTransform::north_up(0.0, 10.0, 1.0, 1.0))
}

fn stats_of(values: &[f64]) -> ZoneStats {
    ZoneStats::of(&mut values.to_vec())
}

#[test]
fn centre_rule_on_a_square() {
    let (v, gt) = grid10();
    // x 2.7..5.3 holds the centres of columns 3 and 4; y 4.7..7.3 those of rows 3 and 4.
    let sq = poly(&rect(2.7, 4.7, 5.3, 7.3), &[]);
    let z = zonal_stats(&v, 10, 10, &gt, None, &sq, false);
    assert_eq!(z, stats_of(&[33.0, 34.0, 43.0, 44.0]));
    assert_eq!((z.count, z.min, z.max, z.mean, z.median), (4, Some(33.0), Some(44.0), Some(38.5), Some(38.5)));
    assert_eq!(z.std, Some(5.024937810560445));
    // All touched: columns and rows 2..=5.
    let t = zonal_stats(&v, 10, 10, &gt, None, &sq, true);
    assert_eq!(t.count, 16);
    assert_eq!((t.min, t.max), (Some(22.0), Some(55.0)));
    assert!(t.count > z.count);
}

#[test]
fn a_hole_is_left_out() {
    let (v, gt) = grid10();
    let p = poly(&rect(0.1, 0.1, 9.9, 9.9), &[rect(3.1, 3.1, 6.9, 6.9)]);
    let z = zonal_stats(&v, 10, 10, &gt, None, &p, false);
    // The hole holds the centres of columns 3..=6 and rows 3..=6.
    let want: Vec<f64> =
        (0..100).filter(|i| !((3..=6).contains(&(i / 10)) && (3..=6).contains(&(i % 10)))).map(|i| i as f64).collect();
    assert_eq!(want.len(), 84);
    assert_eq!(z, stats_of(&want));
    // All touched adds the pixels the hole's ring passes through: columns/rows 3 and 6.
    let t = zonal_stats(&v, 10, 10, &gt, None, &p, true);
    assert_eq!(t.count, 84 + 12);
}

#[test]
fn nodata_nan_and_empty_zones() {
    let (mut v, gt) = grid10();
    v[33] = -1.0;
    v[34] = f32::NAN;
    let sq = poly(&rect(2.7, 4.7, 5.3, 7.3), &[]);
    let z = zonal_stats(&v, 10, 10, &gt, Some(-1.0), &sq, false);
    assert_eq!(z, stats_of(&[43.0, 44.0]));
    assert_eq!(z.median, Some(43.5));
    // A polygon between centres covers nothing by the centre rule, one pixel when touched.
    let tiny = poly(&rect(2.1, 7.1, 2.4, 7.4), &[]);
    let z = zonal_stats(&v, 10, 10, &gt, None, &tiny, false);
    assert_eq!(z, ZoneStats { count: 0, min: None, max: None, mean: None, std: None, median: None });
    assert_eq!(zonal_stats(&v, 10, 10, &gt, None, &tiny, true), stats_of(&[22.0]));
    // Outside the raster, empty, or values too short: nothing, and no panic.
    let away = poly(&rect(50.0, 50.0, 60.0, 60.0), &[]);
    assert_eq!(zonal_stats(&v, 10, 10, &gt, None, &away, true).count, 0);
    assert_eq!(zonal_stats(&v, 10, 10, &gt, None, &MultiPolygon(vec![]), true).count, 0);
    assert_eq!(zonal_stats(&v[..50], 10, 10, &gt, None, &sq, true).count, 0);
    let nan = poly(&[(f64::NAN, 0.0), (1.0, 1.0), (0.0, 1.0)], &[]);
    assert_eq!(zonal_stats(&v, 10, 10, &gt, None, &nan, true).count, 0);
}

#[test]
fn pixel_window_covers_the_bbox_clipped() {
    let (_, gt) = grid10();
    let p = poly(&rect(2.7, 4.7, 5.3, 7.3), &[]);
    assert_eq!(pixel_window(&gt, 10, 10, &p), Some(Window::new(2, 2, 4, 4)));
    let p = poly(&rect(-3.0, 8.5, 2.0, 12.0), &[]);
    assert_eq!(pixel_window(&gt, 10, 10, &p), Some(Window::new(0, 0, 2, 2)));
    assert_eq!(pixel_window(&gt, 10, 10, &poly(&rect(20.0, 20.0, 30.0, 30.0), &[])), None);
    assert_eq!(pixel_window(&gt, 10, 10, &MultiPolygon(vec![])), None);
}

/// Statistics over a window (with its own geotransform) equal those over the whole raster.
#[test]
fn a_window_gives_the_same_answer_as_the_whole_raster() {
    let (v, gt) = grid10();
    let p = poly(&[(1.3, 1.2), (8.7, 2.9), (6.2, 8.8), (2.2, 6.1), (1.3, 1.2)], &[]);
    let w = pixel_window(&gt, 10, 10, &p).unwrap();
    let sub: Vec<f32> = (0..w.height)
        .flat_map(|r| (0..w.width).map(move |c| (r + w.y as usize) * 10 + c + w.x as usize))
        .map(|i| v[i])
        .collect();
    let wgt = gt.shifted(w.x as f64, w.y as f64);
    for touched in [false, true] {
        assert_eq!(
            zonal_stats(&sub, w.width, w.height, &wgt, None, &p, touched),
            zonal_stats(&v, 10, 10, &gt, None, &p, touched)
        );
    }
}

/// Even-odd point in polygon over every ring.
fn inside(rings: &[Vec<(f64, f64)>], x: f64, y: f64) -> bool {
    let mut c = false;
    for r in rings {
        for s in r.windows(2) {
            let ((x1, y1), (x2, y2)) = (s[0], s[1]);
            if (y1 > y) != (y2 > y) && x < (x2 - x1) * (y - y1) / (y2 - y1) + x1 {
                c = !c;
            }
        }
    }
    c
}

/// Whether a segment meets the closed square [x0, x0+1] × [y0, y0+1].
fn touches(a: (f64, f64), b: (f64, f64), x0: f64, y0: f64) -> bool {
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    for (p, q) in [(-dx, a.0 - x0), (dx, x0 + 1.0 - a.0), (-dy, a.1 - y0), (dy, y0 + 1.0 - a.1)] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else if p < 0.0 {
            t0 = t0.max(q / p);
        } else {
            t1 = t1.min(q / p);
        }
    }
    t0 <= t1
}

/// On irregular polygons, the scanline fill agrees with a brute-force point-in-polygon test of
/// every pixel centre, and all-touched with "centre inside or some edge meets the pixel".
#[test]
fn rasterization_agrees_with_brute_force() {
    let (w, h) = (40usize, 30usize);
    let gt = GeoTransform::north_up(0.0, h as f64, 1.0, 1.0);
    // Values encode the pixel index, so the statistics tell which pixels were taken.
    let v: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
    let mut seed = 12345u64;
    let mut rnd = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    for case in 0..60 {
        // A star-shaped polygon around a random centre (partly outside now and then), with a
        // hole for every third case.
        let (cx, cy) = (rnd() * 46.0 - 3.0, rnd() * 36.0 - 3.0);
        let n = 3 + (rnd() * 12.0) as usize;
        let mut outer: Vec<(f64, f64)> = (0..n)
            .map(|k| {
                let a = k as f64 / n as f64 * std::f64::consts::TAU;
                let r = 2.0 + rnd() * 12.0;
                (cx + r * a.cos(), cy + r * a.sin())
            })
            .collect();
        outer.push(outer[0]);
        let mut rings = vec![outer.clone()];
        let mut holes = vec![];
        if case % 3 == 0 {
            let hole: Vec<(f64, f64)> =
                vec![(cx - 0.9, cy - 0.7), (cx + 1.1, cy - 0.6), (cx + 0.3, cy + 1.3), (cx - 0.9, cy - 0.7)];
            rings.push(hole.clone());
            holes.push(hole);
        }
        let p = poly(&outer, &holes);
        // Pixel coordinates: x = col, y = h - row; the centre of (c, r) is (c + 0.5, h - r - 0.5).
        let mut centre = vec![];
        let mut touched = vec![];
        for r in 0..h {
            for c in 0..w {
                let (x, y) = (c as f64 + 0.5, h as f64 - r as f64 - 0.5);
                let inn = inside(&rings, x, y);
                let edge = rings
                    .iter()
                    .any(|ring| ring.windows(2).any(|s| touches(s[0], s[1], c as f64, h as f64 - r as f64 - 1.0)));
                if inn {
                    centre.push((r * w + c) as f64);
                }
                if inn || edge {
                    touched.push((r * w + c) as f64);
                }
            }
        }
        assert_eq!(zonal_stats(&v, w, h, &gt, None, &p, false), stats_of(&centre), "case {case}: centre rule");
        assert_eq!(zonal_stats(&v, w, h, &gt, None, &p, true), stats_of(&touched), "case {case}: all touched");
    }
}

/// The polygons of the rasterstats oracle, in EPSG:32640 over the CBERS scene (x 90,480 to
/// 237,180, y 527,060 to 666,560).
fn oracle_polygons() -> Vec<(&'static str, MultiPolygon<f64>)> {
    let star: Vec<(f64, f64)> = (0..11)
        .map(|k| {
            let a = k as f64 / 10.0 * std::f64::consts::TAU + 0.1;
            let r = if k % 2 == 0 { 31_000.0 } else { 13_700.0 };
            (163_123.4 + r * a.cos(), 598_765.4 + r * a.sin())
        })
        .collect();
    vec![
        (
            "pentagon",
            poly(
                &[
                    (101_234.5, 600_111.1),
                    (140_987.6, 590_432.1),
                    (150_321.0, 640_876.5),
                    (120_555.5, 655_432.1),
                    (99_876.5, 630_000.3),
                    (101_234.5, 600_111.1),
                ],
                &[],
            ),
        ),
        (
            "with_hole",
            poly(
                &rect(160_111.1, 540_222.2, 225_333.3, 610_444.4),
                &[vec![(180_050.5, 560_070.7), (205_090.9, 565_010.1), (199_980.8, 595_060.6), (180_050.5, 560_070.7)]],
            ),
        ),
        (
            "partly_outside",
            poly(&[(60_000.7, 500_000.3), (130_123.1, 520_987.6), (110_456.4, 700_321.2), (60_000.7, 500_000.3)], &[]),
        ),
        (
            "sliver",
            poly(&[(95_432.1, 530_123.4), (230_987.6, 660_456.7), (232_345.6, 659_012.3), (95_432.1, 530_123.4)], &[]),
        ),
        ("star", poly(&star, &[])),
        (
            "two_parts",
            MultiPolygon(vec![
                Polygon::new(ring(&rect(92_345.6, 620_111.1, 99_876.5, 628_222.2)), vec![]),
                Polygon::new(ring(&rect(210_010.1, 530_303.3, 235_505.5, 548_808.8)), vec![]),
            ]),
        ),
    ]
}

fn geojson(p: &MultiPolygon<f64>) -> Value {
    let rings = |pg: &Polygon<f64>| -> Vec<Vec<[f64; 2]>> {
        std::iter::once(pg.exterior()).chain(pg.interiors()).map(|r| r.0.iter().map(|c| [c.x, c.y]).collect()).collect()
    };
    json!({"type": "MultiPolygon", "coordinates": p.0.iter().map(rings).collect::<Vec<_>>()})
}

/// Our zonal statistics of NDVI over the CBERS scene equal `rasterstats.zonal_stats` for polygons
/// inside, with a hole, partly outside, a thin sliver, a star and two parts; centre rule and all
/// touched.
#[test]
fn zonal_stats_match_rasterstats() {
    if !have_python_module("python3", "rasterstats", "zonal_stats_match_rasterstats") {
        return;
    }
    let dir = tmp();
    let (red, nir) = (cbers(7), cbers(8));
    let expr = Expression::parse(named_index("ndvi").unwrap()).unwrap();
    let bands = [Band { tiff: &nir, band: 0 }, Band { tiff: &red, band: 0 }];
    let index = compute(&expr, &bands, Window::new(0, 0, 163, 155), &never).unwrap();
    let tif = dir.path().join("ndvi.tif");
    write_raster_cog(&index, &tif, &CogOptions::default()).unwrap();
    let polygons = oracle_polygons();
    let features: Vec<Value> = polygons
        .iter()
        .map(|(name, p)| json!({"type": "Feature", "properties": {"name": name}, "geometry": geojson(p)}))
        .collect();
    let fc = dir.path().join("zones.geojson");
    std::fs::write(&fc, json!({"type": "FeatureCollection", "features": features}).to_string()).unwrap();
    let script = r#"
import json, sys
from rasterstats import zonal_stats
out = {}
for touched in (False, True):
    out[str(touched)] = zonal_stats(sys.argv[1], sys.argv[2], stats="count min max mean std median",
                                    all_touched=touched)
print(json.dumps(out))
"#;
    let theirs: Value = serde_json::from_str(&python("python3", script, &[s(&fc), s(&tif)])).unwrap();
    let mut max_diff = 0.0f64;
    for touched in [false, true] {
        for (k, (name, p)) in polygons.iter().enumerate() {
            let want = &theirs[if touched { "True" } else { "False" }][k];
            let w = pixel_window(&index.geo_transform, 163, 155, p).unwrap();
            let sub: Vec<f32> = (0..w.height)
                .flat_map(|r| {
                    let start = (r + w.y as usize) * 163 + w.x as usize;
                    index.data[start..start + w.width].to_vec()
                })
                .collect();
            let gt = index.geo_transform.shifted(w.x as f64, w.y as f64);
            let ours = zonal_stats(&sub, w.width, w.height, &gt, Some(NODATA), p, touched);
            assert_eq!(ours.count, want["count"].as_u64().unwrap(), "{name} all_touched={touched}: {want}");
            assert!(ours.count > 0, "{name}");
            for (key, v) in
                [("min", ours.min), ("max", ours.max), ("mean", ours.mean), ("std", ours.std), ("median", ours.median)]
            {
                let (a, b) = (v.unwrap(), want[key].as_f64().unwrap());
                max_diff = max_diff.max((a - b).abs());
                assert!((a - b).abs() <= 1e-5, "{name} all_touched={touched} {key}: ours {a}, rasterstats {b}");
            }
            eprintln!("{name} all_touched={touched}: {} pixels", ours.count);
        }
    }
    eprintln!("rasterstats: counts equal, max |difference| {max_diff:e}");
}
