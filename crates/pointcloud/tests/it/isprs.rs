//! The ground filter on the ISPRS filter-test reference samples (Sithole and Vosselman 2004).
//! The bounds are the measured figures (docs/pointcloud.md, `--example isprs`) with a little
//! room, so that a change that makes the filter worse fails here.

use crate::{sample_path, SAMPLES};
use meridian_pointcloud::reader::{read_path, Limits};
use meridian_pointcloud::{Confusion, Elm, Smrf};

fn evaluate(smrf: &Smrf, elm: Option<&Elm>) -> Vec<(&'static str, Confusion)> {
    SAMPLES
        .iter()
        .map(|&s| {
            let (_, cloud) = read_path(sample_path(s), Limits::default()).unwrap();
            let noise = elm.map_or_else(|| vec![false; cloud.len()], |e| e.noise(&cloud.x, &cloud.y, &cloud.z));
            let ground = smrf.classify_cloud_without(&cloud, &noise).unwrap();
            let reference: Vec<bool> = cloud.classification.iter().map(|&c| c == 2).collect();
            (s, Confusion::count(&reference, &ground))
        })
        .collect()
}

fn mean(results: &[(&str, Confusion)], f: impl Fn(&Confusion) -> f64) -> f64 {
    results.iter().map(|(_, c)| f(c)).sum::<f64>() / results.len() as f64
}

fn check(results: &[(&str, Confusion)], max_mean_total: f64, min_mean_kappa: f64, max_total: f64, min_kappa: f64) {
    let total = mean(results, Confusion::total_error);
    let kappa = mean(results, Confusion::kappa);
    assert!(total <= max_mean_total, "mean total error {:.2} %", 100.0 * total);
    assert!(kappa >= min_mean_kappa, "mean kappa {:.2} %", 100.0 * kappa);
    for (s, c) in results {
        assert!(c.total_error() <= max_total, "samp{s}: total error {:.2} %", 100.0 * c.total_error());
        assert!(c.kappa() >= min_kappa, "samp{s}: kappa {:.2} %", 100.0 * c.kappa());
    }
}

#[test]
fn isprs_tuned_set_meets_the_target() {
    // Measured: mean total error 4.22 %, mean kappa 86.56 %; worst sample 8.56 % (samp11),
    // lowest kappa 77.87 % (samp52). The target is a mean total error of 6 % or less.
    check(&evaluate(&Smrf::isprs(), Some(&Elm::default())), 0.044, 0.86, 0.09, 0.77);
}

#[test]
fn isprs_pdal_defaults() {
    // Measured: mean total error 4.47 %, mean kappa 86.07 %; worst sample 9.27 % (samp11),
    // lowest kappa 79.65 % (samp61).
    check(&evaluate(&Smrf::default(), None), 0.046, 0.855, 0.095, 0.79);
}

#[test]
fn smrf_is_deterministic() {
    let (_, cloud) = read_path(sample_path("41"), Limits::default()).unwrap();
    let a = Smrf::isprs().classify_cloud(&cloud).unwrap();
    let b = Smrf::isprs().classify_cloud(&cloud).unwrap();
    assert_eq!(a, b);
}

/// The same survey in US survey feet classifies as it does in metres once its unit is known:
/// every parameter is metres, and the coordinates are scaled to metres first. Read in feet as if
/// they were metres (the old behaviour), the ground step calls far more points ground.
#[test]
fn a_file_in_feet_is_classified_as_in_metres() {
    use meridian_pointcloud::pipeline::{classify_file, PipelineParams};
    use meridian_pointcloud::tiles::Tiling;
    let source = sample_path("11");
    let dir = tempfile::tempdir().unwrap();
    // The sample rewritten with coordinates in US survey feet.
    let foot = 1200.0 / 3937.0;
    let feet = dir.path().join("feet.las");
    {
        let mut reader = las::Reader::from_path(&source).unwrap();
        let mut builder = las::Builder::from(reader.header().clone());
        let b = reader.header().bounds();
        let t = |min: f64| las::Transform { scale: 0.001, offset: (min / foot).floor() };
        builder.transforms = las::Vector { x: t(b.min.x), y: t(b.min.y), z: t(b.min.z) };
        let mut writer = las::Writer::from_path(&feet, builder.into_header().unwrap()).unwrap();
        let data = reader.read_all().unwrap();
        for p in data.points() {
            let mut p = p.unwrap();
            p.x /= foot;
            p.y /= foot;
            p.z /= foot;
            writer.write_point(p).unwrap();
        }
        writer.close().unwrap();
    }
    let params = PipelineParams::from_json(&serde_json::json!({"steps": ["ground"]})).unwrap();
    let ground = |file: &std::path::Path, unit: f64| -> Vec<bool> {
        let out = dir.path().join("out.laz");
        classify_file(file, &out, Limits::default(), &params, None, unit, Tiling::default(), &|_| true).unwrap();
        let (_, cloud) = read_path(&out, Limits::default()).unwrap();
        cloud.classification.iter().map(|&c| c == 2).collect()
    };
    let (_, reference) = read_path(&source, Limits::default()).unwrap();
    let truth: Vec<bool> = reference.classification.iter().map(|&c| c == 2).collect();
    let error = |g: &[bool]| Confusion::count(&truth, g).total_error();
    let metres = error(&ground(&source, 1.0));
    let converted = error(&ground(&feet, foot));
    let unconverted = error(&ground(&feet, 1.0));
    // Measured on samp11 (ground step only, its cell from the spacing): total error 9.16 % in
    // metres and in feet with the unit known, 10.46 % with feet read as metres (13.27 % when the
    // cell was a fixed metre: the spacing-sized cell takes some of a wrong unit's harm away).
    assert!((converted - metres).abs() < 0.01, "feet with the unit known: {converted:.4} vs {metres:.4} in metres");
    assert!(unconverted > metres + 0.01, "feet read as metres: {unconverted:.4} vs {metres:.4}");
}

/// The classification job's own noise and ground steps (isolated points, SMRF with its cell
/// from the spacing, the raised-ground step) on the eight samples: the ISPRS error stays within
/// the tuned filter's.
#[test]
fn isprs_through_the_default_pipeline() {
    use meridian_pointcloud::pipeline::{classify_file, PipelineParams};
    use meridian_pointcloud::tiles::Tiling;
    let params = PipelineParams::from_json(&serde_json::json!({"steps": ["noise", "ground"]})).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let results: Vec<(&str, Confusion)> = SAMPLES
        .iter()
        .map(|&s| {
            let out = dir.path().join(format!("{s}.laz"));
            classify_file(&sample_path(s), &out, Limits::default(), &params, None, 1.0, Tiling::default(), &|_| true)
                .unwrap();
            let (_, reference) = read_path(sample_path(s), Limits::default()).unwrap();
            let (_, got) = read_path(&out, Limits::default()).unwrap();
            let truth: Vec<bool> = reference.classification.iter().map(|&c| c == 2).collect();
            let ground: Vec<bool> = got.classification.iter().map(|&c| c == 2).collect();
            (s, Confusion::count(&truth, &ground))
        })
        .collect();
    for (s, c) in &results {
        println!("samp{s}: total error {:.2} %, kappa {:.2} %", 100.0 * c.total_error(), 100.0 * c.kappa());
    }
    println!(
        "mean total error {:.2} %, mean kappa {:.2} %",
        100.0 * mean(&results, Confusion::total_error),
        100.0 * mean(&results, Confusion::kappa)
    );
    // Measured: mean total error 4.41 %, mean kappa 84.60 %; worst sample 8.63 % (samp11), lowest
    // kappa 62.06 % (samp61, whose few objects make kappa move with a handful of points).
    check(&results, 0.05, 0.83, 0.09, 0.6);
}
