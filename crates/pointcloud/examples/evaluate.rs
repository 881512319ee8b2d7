//! The whole classification pipeline against labelled files' own classes: precision, recall and
//! IoU of ground (2), vegetation (3, 4 and 5 as one class), building (6) and water (9, with the
//! number of points called water, which counts on files that label none), and the throughput,
//! per file and per configuration. The configurations:
//!
//! - `pdal`: PDAL's defaults, as a pipeline of `filters.outlier` (statistical), `filters.smrf`
//!   (cell 1, slope 0.15, window 18, scalar 1.25, threshold 0.5), `filters.hag_nn` and
//!   `filters.assign` by height band would give: no roof step, no reading of height-normalised
//!   files, no low noise given back to the ground, no buildings (the baseline);
//! - `rules`: the defaults with the geometric rules alone;
//! - `model`: the defaults with the forest alone;
//! - `combined`: the defaults (the forest where it is confident, the rules elsewhere).
//!
//! A file's linear unit is read from its CRS (a file in feet is classified in metres); a class
//! the file does not label is left out of its row, and points the producer never classified
//! (class 0) or put in class 12 (LAS 1.0–1.3's overlap points, whose land cover is not labelled)
//! are left out of every score. With `--markdown` the rows are a table;
//! `--params JSON` runs one configuration of your own (the body of a classify request) instead;
//! `--keep DIR` keeps each output as `DIR/FILE.CONFIG.laz`; `--held-out` scores only the 20 m
//! blocks the training holds out (`BlockSplit::default`), for the training files and their copies.
//!
//! ```sh
//! cargo run --release -p meridian-pointcloud --example evaluate -- [--markdown] [--only pdal,rules,model,combined] [--model FILE] [--keep DIR] FILE...
//! ```
#![allow(clippy::print_stdout)]

use meridian_pointcloud::pipeline::{classify_file, PipelineParams};
use meridian_pointcloud::reader::{read_path, Limits};
use meridian_pointcloud::tiles::Tiling;
use std::path::Path;

const CONFIGS: [(&str, &str); 4] = [
    (
        "pdal",
        r#"{"noise": {"method": "statistical", "elm": false}, "ground": {"cell": 1, "window": 18, "threshold": 0.5, "scalar": 1.25, "roofs": false, "normalised": false, "low_noise": false, "offset": null}, "classes": {"method": "heights", "water": false}}"#,
    ),
    ("rules", r#"{"classes": {"method": "rules"}}"#),
    ("model", r#"{"classes": {"method": "model"}}"#),
    ("combined", "{}"),
];

/// Classes that carry no land-cover label.
const UNLABELLED: [u8; 2] = [0, 12];

/// Precision, recall and IoU of one class group.
fn scores(truth: &[u8], got: &[u8], member: impl Fn(u8) -> bool) -> Option<(f64, f64, f64)> {
    let (mut tp, mut fp, mut fn_) = (0u64, 0u64, 0u64);
    // Class 0 is "created, never classified" (LAS 1.4) and class 12 "overlap points" (LAS
    // 1.0–1.3, where producers put the points of a flight line's overlap whatever they fall on):
    // the producer gave those points no land-cover label, so they are left out of every score
    // rather than counted as wrong whatever they are called.
    for (&t, &g) in truth.iter().zip(got).filter(|(&t, _)| !UNLABELLED.contains(&t)) {
        match (member(t), member(g)) {
            (true, true) => tp += 1,
            (false, true) => fp += 1,
            (true, false) => fn_ += 1,
            _ => {}
        }
    }
    (tp + fn_ > 0).then(|| {
        let p = tp as f64 / (tp + fp).max(1) as f64;
        let r = tp as f64 / (tp + fn_) as f64;
        (p, r, tp as f64 / (tp + fp + fn_) as f64)
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let markdown = args.iter().any(|a| a == "--markdown");
    args.retain(|a| a != "--markdown");
    let mut only: Vec<String> = CONFIGS.iter().map(|c| c.0.to_owned()).collect();
    if let Some(k) = args.iter().position(|a| a == "--only") {
        let list = args.get(k + 1).ok_or("--only takes a list")?.clone();
        only = list.split(',').map(str::to_owned).collect();
        args.drain(k..k + 2);
    }
    let mut custom = None;
    if let Some(k) = args.iter().position(|a| a == "--params") {
        custom = Some(args.get(k + 1).ok_or("--params takes a JSON object")?.clone());
        args.drain(k..k + 2);
        only = vec!["custom".to_owned()];
    }
    let mut keep = None;
    if let Some(k) = args.iter().position(|a| a == "--keep") {
        keep = Some(std::path::PathBuf::from(args.get(k + 1).ok_or("--keep takes a folder")?));
        args.drain(k..k + 2);
    }
    let mut model_file = None;
    let held_out = args.iter().any(|a| a == "--held-out");
    args.retain(|a| a != "--held-out");
    if let Some(k) = args.iter().position(|a| a == "--model") {
        model_file = Some(args.get(k + 1).ok_or("--model takes a file")?.clone());
        args.drain(k..k + 2);
    }
    if args.is_empty() {
        return Err("usage: evaluate [--markdown] [--only pdal,rules,model,combined] FILE...".into());
    }
    let model = match &model_file {
        Some(f) => meridian_pointcloud::learn::Model::from_bytes(&std::fs::read(f)?)?,
        None => meridian_pointcloud::learn::Model::default_model()?,
    };
    let limits = Limits { max_points: 2_000_000_000 };
    if markdown {
        println!(
            "| file | config | ground P / R / IoU | vegetation P / R / IoU | building P / R / IoU | water P / R / IoU (points called water) | points/s |"
        );
        println!("|---|---|---|---|---|---|---|");
    }
    let mut configs: Vec<(&str, &str)> = CONFIGS.to_vec();
    if let Some(c) = &custom {
        configs.push(("custom", c.as_str()));
    }
    for file in &args {
        let path = Path::new(file);
        let summary = meridian_pointcloud::summary::summarize(path, limits, &|_| true)?;
        let unit = summary.crs.as_ref().and_then(|c| c.metres_per_unit).unwrap_or(1.0);
        let (_, mut truth) = read_path(path, limits)?;
        if held_out {
            // Only the blocks the training held out are scored (class 0 is left out of every score).
            let held = meridian_pointcloud::BlockSplit::default().held_out(&truth.x, &truth.y);
            for (c, h) in truth.classification.iter_mut().zip(held) {
                if !h {
                    *c = 0;
                }
            }
        }
        let name = path.file_name().map_or(file.clone(), |n| n.to_string_lossy().into_owned());
        for (config, json) in configs.iter().filter(|c| only.iter().any(|o| o == c.0)) {
            let params = PipelineParams::from_json(&serde_json::from_str(json)?).map_err(|e| format!("{e:?}"))?;
            let out = std::env::temp_dir().join(format!("evaluate-{}.laz", std::process::id()));
            let report = classify_file(path, &out, limits, &params, Some(&model), unit, Tiling::default(), &|_| true)?;
            let (_, got) = read_path(&out, limits)?;
            match &keep {
                Some(dir) => {
                    std::fs::copy(&out, dir.join(format!("{name}.{config}.laz")))?;
                    std::fs::remove_file(&out)?;
                }
                None => std::fs::remove_file(&out)?,
            }
            let t = &truth.classification;
            let g = &got.classification;
            let cell = |s: Option<(f64, f64, f64)>| {
                s.map_or("–".to_owned(), |(p, r, i)| format!("{:.3} / {:.3} / {:.3}", p, r, i))
            };
            let ground = cell(scores(t, g, |c| c == 2));
            let veg = cell(scores(t, g, |c| (3..=5).contains(&c)));
            let building = cell(scores(t, g, |c| c == 6));
            let water = format!("{} ({})", cell(scores(t, g, |c| c == 9)), g.iter().filter(|&&c| c == 9).count());
            let pps = report.points_per_second;
            if markdown {
                println!("| {name} | {config} | {ground} | {veg} | {building} | {water} | {pps:.0} |");
            } else {
                println!(
                    "{name} {config}: {} points{}, ground {ground}, vegetation {veg}, building {building}, water {water}, {pps:.0} points/s, timings {:?}",
                    report.points,
                    if report.height_normalised { " (height-normalised)" } else { "" },
                    report.timings
                );
            }
        }
    }
    Ok(())
}
