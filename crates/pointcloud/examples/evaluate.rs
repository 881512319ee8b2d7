//! The whole classification pipeline against a labelled file's own classes: overall accuracy,
//! per-class IoU and the confusion matrix, with the parameters given as JSON (the body of
//! `POST /pointcloud/{id}/classify`). Vegetation 3, 4 and 5 are compared as one class here, and
//! noise (7, 18) counts as wrong unless the file says noise.
//!
//! ```sh
//! cargo run --release -p meridian-pointcloud --example evaluate -- FILE ['{"noise": {"multiplier": 3}}']
//! ```
#![allow(clippy::print_stdout)]

use meridian_pointcloud::pipeline::{classify_file, PipelineParams};
use meridian_pointcloud::reader::{read_path, Limits};
use std::collections::BTreeMap;

fn group(c: u8) -> u8 {
    match c {
        3..=5 => 4,
        7 | 18 => 7,
        c => c,
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let file = args.get(1).ok_or("usage: evaluate FILE [PARAMS_JSON]")?;
    let params: serde_json::Value = serde_json::from_str(args.get(2).map_or("{}", String::as_str))?;
    let params = PipelineParams::from_json(&params).map_err(|e| format!("{e:?}"))?;
    let model = meridian_pointcloud::learn::Model::default_model()?;
    let out = std::env::temp_dir().join(format!("evaluate-{}.laz", std::process::id()));
    let limits = Limits { max_points: 2_000_000_000 };
    let report = classify_file(std::path::Path::new(file), &out, limits, &params, Some(&model), 1.0, &|_| true)?;
    let (_, truth) = read_path(file, limits)?;
    let (_, got) = read_path(&out, limits)?;
    std::fs::remove_file(&out)?;
    let mut confusion: BTreeMap<(u8, u8), u64> = BTreeMap::new();
    for (&t, &g) in truth.classification.iter().zip(&got.classification) {
        *confusion.entry((group(t), group(g))).or_default() += 1;
    }
    let classes: Vec<u8> = {
        let mut c: Vec<u8> = confusion.keys().flat_map(|&(a, b)| [a, b]).collect();
        c.sort_unstable();
        c.dedup();
        c
    };
    let n: u64 = confusion.values().sum();
    let right: u64 = confusion.iter().filter(|((a, b), _)| a == b).map(|(_, v)| v).sum();
    println!("{file}: {n} points, {:.2} s, {:.0} points/s", report.timings["total"], report.points_per_second);
    println!(
        "overall accuracy {:.2} % (vegetation 3-5 as one class, noise 7/18 as one)",
        100.0 * right as f64 / n as f64
    );
    for &c in &classes {
        let tp = confusion.get(&(c, c)).copied().unwrap_or(0);
        let fn_: u64 = confusion.iter().filter(|((a, b), _)| *a == c && *b != c).map(|(_, v)| v).sum();
        let fp: u64 = confusion.iter().filter(|((a, b), _)| *a != c && *b == c).map(|(_, v)| v).sum();
        let iou = tp as f64 / (tp + fn_ + fp).max(1) as f64;
        println!("class {c}: reference {}, IoU {:.1} %", tp + fn_, 100.0 * iou);
    }
    print!("reference \\ result");
    for &c in &classes {
        print!(" | {c}");
    }
    println!();
    for &a in &classes {
        print!("{a}");
        for &b in &classes {
            print!(" | {}", confusion.get(&(a, b)).copied().unwrap_or(0));
        }
        println!();
    }
    println!("timings {:?}", report.timings);
    Ok(())
}
