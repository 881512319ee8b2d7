//! Contours against `gdal_contour`.

use crate::{dem_path, have_tool, run, s, tmp};
use meridian_raster::dem::{self, ContourOptions};
use meridian_raster::tiff::GeoTiff;
use std::collections::HashMap;

type Lines = Vec<(f64, Vec<(f64, f64)>)>;
type Segment = ((f64, f64), (f64, f64));

fn parse(v: &serde_json::Value, attr: &str) -> Lines {
    v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let level = f["properties"][attr].as_f64().unwrap();
            let pts = f["geometry"]["coordinates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
                .collect();
            (level, pts)
        })
        .collect()
}

/// Largest distance from any vertex of `a` to the nearest segment of `b` at the same level.
fn max_distance(a: &Lines, b: &Lines, cell: f64) -> f64 {
    // Bucket b's segments by level and grid cell.
    let mut grid: HashMap<(i64, i64, i64), Vec<Segment>> = HashMap::new();
    for (level, pts) in b {
        for s in pts.windows(2) {
            let (x0, x1) = (s[0].0.min(s[1].0), s[0].0.max(s[1].0));
            let (y0, y1) = (s[0].1.min(s[1].1), s[0].1.max(s[1].1));
            for gx in (x0 / cell).floor() as i64..=(x1 / cell).floor() as i64 {
                for gy in (y0 / cell).floor() as i64..=(y1 / cell).floor() as i64 {
                    grid.entry((*level as i64, gx, gy)).or_default().push((s[0], s[1]));
                }
            }
        }
    }
    let mut worst: f64 = 0.0;
    for (level, pts) in a {
        for p in pts {
            let (gx, gy) = ((p.0 / cell).floor() as i64, (p.1 / cell).floor() as i64);
            let mut best = f64::INFINITY;
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for (s0, s1) in grid.get(&(*level as i64, gx + dx, gy + dy)).into_iter().flatten() {
                        best = best.min(point_segment(*p, *s0, *s1));
                    }
                }
            }
            worst = worst.max(best);
        }
    }
    worst
}

fn point_segment(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 { 0.0 } else { (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0) };
    let (x, y) = (a.0 + t * dx, a.1 + t * dy);
    ((p.0 - x).powi(2) + (p.1 - y).powi(2)).sqrt()
}

#[test]
fn contours_match_gdal_contour() {
    if !have_tool("gdal_contour", "contours_match_gdal_contour") {
        return;
    }
    let t = GeoTiff::open(dem_path()).unwrap();
    let opts = ContourOptions { interval: 10.0, ..ContourOptions::default() };
    let ours = parse(&dem::to_geojson(&dem::contours(&t, &opts).unwrap(), "elevation"), "elevation");
    let dir = tmp();
    let out = dir.path().join("c.geojson");
    run("gdal_contour", &["-q", "-i", "10", "-a", "ELEV", "-f", "GeoJSON", s(&dem_path()), s(&out)]);
    let theirs = parse(&serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap(), "ELEV");
    assert_eq!(theirs.len(), 80);
    assert_eq!(ours.len(), 80, "same number of lines as gdal_contour");
    let mut la: Vec<f64> = ours.iter().map(|l| l.0).collect();
    let mut lb: Vec<f64> = theirs.iter().map(|l| l.0).collect();
    la.sort_by(f64::total_cmp);
    lb.sort_by(f64::total_cmp);
    assert_eq!(la, lb, "same levels");
    assert_eq!(la[0], 1620.0);
    let half_pixel = 1.25;
    let d1 = max_distance(&ours, &theirs, 5.0);
    let d2 = max_distance(&theirs, &ours, 5.0);
    assert!(d1 <= half_pixel && d2 <= half_pixel, "vertices {d1} m / {d2} m from the other's lines");
    let va: usize = ours.iter().map(|l| l.1.len()).sum();
    let vb: usize = theirs.iter().map(|l| l.1.len()).sum();
    assert_eq!(va, vb, "same vertex count");
}

#[test]
fn contour_levels_follow_interval_and_base() {
    let t = GeoTiff::open(dem_path()).unwrap();
    let lines = dem::contours(&t, &ContourOptions { interval: 50.0, base: 25.0, ..ContourOptions::default() }).unwrap();
    let mut levels: Vec<f64> = lines.iter().map(|l| l.level).collect();
    levels.dedup();
    assert_eq!(levels, vec![1625.0, 1675.0, 1725.0, 1775.0, 1825.0, 1875.0, 1925.0, 1975.0]);
    // Every line lies inside the raster and has at least two vertices.
    for l in &lines {
        assert!(l.points.len() >= 2);
        for p in &l.points {
            assert!((2_573_000.0..=2_574_000.0).contains(&p.0) && (1_085_000.0..=1_086_000.0).contains(&p.1));
        }
    }
    assert!(dem::contours(&t, &ContourOptions { interval: 0.0, ..ContourOptions::default() }).is_err());
}

#[test]
fn flatgeobuf_contours_read_back_by_gdal() {
    if !have_tool("ogr2ogr", "flatgeobuf_contours_read_back_by_gdal") {
        return;
    }
    let t = GeoTiff::open(dem_path()).unwrap();
    let lines = dem::contours(&t, &ContourOptions { interval: 10.0, ..ContourOptions::default() }).unwrap();
    let dir = tmp();
    let fgb = dir.path().join("c.fgb");
    let out = std::io::BufWriter::new(std::fs::File::create(&fgb).unwrap());
    dem::write_flatgeobuf(&lines, "elevation", t.epsg().map(u32::from), out).unwrap();
    // GDAL reads the file, its CRS and its attributes; the lines are ours, vertex for vertex.
    let info = std::process::Command::new("ogrinfo").args(["-so", "-al", s(&fgb)]).output().unwrap();
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(info.contains("Feature Count: 80"), "{info}");
    assert!(info.contains("Geometry: Line String"), "{info}");
    assert!(info.contains("elevation: Real"), "{info}");
    assert!(info.contains("2056"), "the CRS is named: {info}");
    let json = dir.path().join("c.geojson");
    run("ogr2ogr", &["-f", "GeoJSON", s(&json), s(&fgb)]);
    let theirs = parse(&serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap(), "elevation");
    let mut ours = parse(&dem::to_geojson(&lines, "elevation"), "elevation");
    let mut theirs = theirs;
    // Same lines in any order; GDAL's GeoJSON writer prints 15 significant digits.
    let key = |l: &(f64, Vec<(f64, f64)>)| {
        let p = l.1.first().copied().unwrap_or_default();
        (l.0 as i64, (p.0 * 1e3).round() as i64, (p.1 * 1e3).round() as i64, l.1.len())
    };
    ours.sort_by_key(key);
    theirs.sort_by_key(key);
    assert_eq!(ours.len(), theirs.len());
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a.0, b.0, "level");
        assert_eq!(a.1.len(), b.1.len(), "vertices of a line at {}", a.0);
        let worst = a.1.iter().zip(&b.1).map(|(p, q)| (p.0 - q.0).abs().max((p.1 - q.1).abs())).fold(0.0, f64::max);
        assert!(worst < 1e-6, "a line at {} differs by {worst}", a.0);
    }
}

#[test]
fn contours_run_up_to_nodata_like_gdal_contour() {
    if !have_tool("gdal_contour", "contours_run_up_to_nodata_like_gdal_contour") {
        return;
    }
    use meridian_raster::tiff::{TiffWriter, WriterOptions};
    // The DEM with holes: a disc, a band of rows, and scattered single pixels set to nodata.
    let t = GeoTiff::open(dem_path()).unwrap();
    let mut dem = t.read_band::<f32>(0).unwrap();
    let nd = t.nodata().unwrap() as f32;
    for y in 0..400usize {
        for x in 0..400usize {
            let disc = (x as f64 - 130.0).powi(2) + (y as f64 - 250.0).powi(2) < 35.0f64.powi(2);
            let band = (300..304).contains(&y) && x > 200;
            let speck = (x * 7 + y * 13) % 97 == 0;
            if disc || band || speck {
                dem.data[y * 400 + x] = nd;
            }
        }
    }
    let dir = tmp();
    let holed = dir.path().join("holed.tif");
    let opts = WriterOptions { geo: t.geo().cloned(), nodata: Some(nd as f64), ..WriterOptions::default() };
    let mut w = TiffWriter::create::<f32>(&holed, 400, 400, 1, opts).unwrap();
    w.write_rows(&dem.data).unwrap();
    w.finish().unwrap();

    let src = GeoTiff::open(&holed).unwrap();
    let ours = parse(
        &dem::to_geojson(
            &dem::contours(&src, &ContourOptions { interval: 10.0, ..ContourOptions::default() }).unwrap(),
            "e",
        ),
        "e",
    );
    let out = dir.path().join("c.geojson");
    run("gdal_contour", &["-q", "-i", "10", "-a", "e", "-f", "GeoJSON", s(&holed), s(&out)]);
    let theirs = parse(&serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap(), "e");
    let mut la: Vec<f64> = ours.iter().map(|l| l.0).collect();
    let mut lb: Vec<f64> = theirs.iter().map(|l| l.0).collect();
    la.sort_by(f64::total_cmp);
    lb.sort_by(f64::total_cmp);
    la.dedup();
    lb.dedup();
    assert_eq!(la, lb, "same levels");
    let half_pixel = 1.25;
    let d1 = max_distance(&ours, &theirs, 5.0);
    let d2 = max_distance(&theirs, &ours, 5.0);
    assert!(d1 <= half_pixel && d2 <= half_pixel, "vertices {d1} m / {d2} m from the other's lines");
    let va: usize = ours.iter().map(|l| l.1.len()).sum();
    let vb: usize = theirs.iter().map(|l| l.1.len()).sum();
    assert_eq!(ours.len(), theirs.len(), "same number of lines");
    assert_eq!(va, vb, "same vertex count");
}

/// A tiny interval on a large relief would trace millions of levels for hours: with
/// `max_levels` it is refused before any line is traced.
#[test]
fn too_many_levels_are_refused_up_front() {
    let t = GeoTiff::open(crate::dem_path()).unwrap();
    let opts = ContourOptions { interval: 0.0001, max_levels: Some(10_000), ..ContourOptions::default() };
    // The tile spans about 1616 to 2015 m: some four million levels.
    assert!(opts.level_count(1615.8, 2015.1) > 3_000_000);
    match dem::contours(&t, &opts) {
        Err(meridian_raster::Error::InvalidArgument(m)) => assert!(m.contains("more than the limit of 10000"), "{m}"),
        other => panic!("expected a refusal, got {:?}", other.map(|l| l.len())),
    }
    // Within the limit, progress reaches the end and cancelling stops the work.
    let opts = ContourOptions { interval: 50.0, max_levels: Some(10_000), ..ContourOptions::default() };
    let seen = std::sync::Mutex::new(Vec::new());
    let lines = dem::contours_with_progress(&t, &opts, &|f| {
        seen.lock().unwrap().push(f);
        true
    })
    .unwrap();
    assert!(!lines.is_empty());
    let seen = seen.into_inner().unwrap();
    assert!(seen.len() >= 2 && seen.windows(2).all(|w| w[0] <= w[1]) && *seen.last().unwrap() == 1.0, "{seen:?}");
    assert!(matches!(dem::contours_with_progress(&t, &opts, &|_| false), Err(meridian_raster::Error::Cancelled)));
}
