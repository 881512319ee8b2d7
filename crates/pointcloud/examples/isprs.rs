//! Prints the ISPRS filter-test table of the ground filter: type I, type II and total error and
//! Cohen's kappa per reference sample. Without arguments it runs the parameter set tuned for the
//! samples (`Elm::default()` then `Smrf::isprs()`); `pdal` starts from PDAL's SMRF defaults
//! without ELM; `name=value` arguments then override SMRF parameters (`elm=0` drops ELM):
//!
//! ```text
//! cargo run --release -p meridian-pointcloud --example isprs
//! cargo run --release -p meridian-pointcloud --example isprs -- pdal
//! cargo run --release -p meridian-pointcloud --example isprs -- slope=0.2 elm=0
//! ```
#![allow(clippy::print_stdout)]

use meridian_pointcloud::reader::{read_path, Limits};
use meridian_pointcloud::{Confusion, Elm, Smrf};
use std::path::Path;

const SAMPLES: [&str; 8] = ["11", "21", "22", "31", "41", "51", "52", "61"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut smrf = Smrf::isprs();
    let mut elm = Some(Elm::default());
    for arg in std::env::args().skip(1) {
        if arg == "pdal" {
            (smrf, elm) = (Smrf::default(), None);
            continue;
        }
        let (k, v) = arg.split_once('=').ok_or("arguments are pdal or name=value")?;
        let v: f64 = v.parse()?;
        match k {
            "cell" => smrf.cell = v,
            "slope" => smrf.slope = v,
            "window" => smrf.window = v,
            "scalar" => smrf.scalar = v,
            "threshold" => smrf.threshold = v,
            "cut" => smrf.cut = v,
            "elm" if v == 0.0 => elm = None,
            "elm_cell" => elm.get_or_insert_with(Elm::default).cell = v,
            "elm_threshold" => elm.get_or_insert_with(Elm::default).threshold = v,
            _ => return Err(format!("unknown parameter {k}").into()),
        }
    }
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let Smrf { cell, slope, window, scalar, threshold, cut, .. } = &smrf;
    println!("SMRF cell {cell} slope {slope} window {window} scalar {scalar} threshold {threshold} cut {cut}");
    match &elm {
        Some(e) => println!("ELM cell {} threshold {}, its low noise ignored", e.cell, e.threshold),
        None => println!("no ELM"),
    }
    println!();
    println!("| sample | points | type I % | type II % | total % | kappa % |");
    println!("|---|---:|---:|---:|---:|---:|");
    let (mut sum_total, mut sum_kappa, mut all) = (0.0, 0.0, Confusion::default());
    for s in SAMPLES {
        let (_, cloud) = read_path(data.join(format!("isprs-samp{s}.las")), Limits::default())?;
        let noise = match &elm {
            Some(e) => e.noise(&cloud.x, &cloud.y, &cloud.z),
            None => vec![false; cloud.len()],
        };
        let ground = smrf.classify_cloud_without(&cloud, &noise)?;
        let reference: Vec<bool> = cloud.classification.iter().map(|&c| c == 2).collect();
        let c = Confusion::count(&reference, &ground);
        println!(
            "| samp{s} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            c.points(),
            100.0 * c.type1(),
            100.0 * c.type2(),
            100.0 * c.total_error(),
            100.0 * c.kappa()
        );
        sum_total += c.total_error();
        sum_kappa += c.kappa();
        all = all + c;
    }
    let n = SAMPLES.len() as f64;
    println!("| mean of samples | | | | {:.2} | {:.2} |", 100.0 * sum_total / n, 100.0 * sum_kappa / n);
    println!(
        "| all points | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
        all.points(),
        100.0 * all.type1(),
        100.0 * all.type2(),
        100.0 * all.total_error(),
        100.0 * all.kappa()
    );
    Ok(())
}
