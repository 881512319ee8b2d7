//! Prints the ISPRS filter-test table of the cloth simulation filter next to SMRF's: type I,
//! type II and total error and Cohen's kappa per reference sample, and the time each filter took.
//! Both start from PDAL's defaults (`isprs` starts CSF from `Csf::isprs()`, the set tuned on
//! these samples); `name=value` arguments then override CSF parameters (`resolution`,
//! `rigidness`, `step`, `threshold`, `iterations`, `smooth` as 0 or 1, `hdiff`); `noise` leaves
//! the statistical noise (`Noise::default()`) out of CSF, its time included. A second table
//! gives the noise filter's findings (PDAL's defaults, statistical and radius) on each sample.
//!
//! ```text
//! cargo run --release -p meridian-pointcloud --example isprs_csf
//! cargo run --release -p meridian-pointcloud --example isprs_csf -- isprs
//! cargo run --release -p meridian-pointcloud --example isprs_csf -- resolution=0.5 rigidness=2
//! ```
#![allow(clippy::print_stdout)]

use meridian_pointcloud::noise::{HIGH_NOISE, LOW_NOISE};
use meridian_pointcloud::reader::{read_path, Limits};
use meridian_pointcloud::{Confusion, Csf, Noise, NoiseMethod, Smrf};
use std::path::Path;
use std::time::Instant;

const SAMPLES: [&str; 8] = ["11", "21", "22", "31", "41", "51", "52", "61"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut csf = Csf::default();
    let mut noise: Option<Noise> = None;
    for arg in std::env::args().skip(1) {
        if arg == "isprs" {
            csf = Csf::isprs();
            continue;
        }
        if arg == "noise" {
            noise = Some(Noise::default());
            continue;
        }
        let (k, v) = arg.split_once('=').ok_or("arguments are name=value")?;
        match k {
            "resolution" => csf.resolution = v.parse()?,
            "rigidness" => csf.rigidness = v.parse()?,
            "step" => csf.step = v.parse()?,
            "threshold" => csf.threshold = v.parse()?,
            "iterations" => csf.iterations = v.parse()?,
            "smooth" => csf.smooth = v != "0" && v != "false",
            "hdiff" => csf.hdiff = v.parse()?,
            _ => return Err(format!("unknown parameter {k}").into()),
        }
    }
    let smrf = Smrf::default();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let Csf { resolution, rigidness, step, threshold, iterations, smooth, hdiff, .. } = &csf;
    println!(
        "CSF resolution {resolution} rigidness {rigidness} step {step} threshold {threshold} \
         iterations {iterations} smooth {smooth} hdiff {hdiff}{}; SMRF with PDAL's defaults",
        if noise.is_some() { ", statistical noise left out" } else { "" }
    );
    println!();
    println!("| sample | points | SMRF I % | SMRF II % | SMRF total % | SMRF κ % | SMRF ms | CSF I % | CSF II % | CSF total % | CSF κ % | CSF ms |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let row = |c: &Confusion| {
        format!(
            "{:.2} | {:.2} | {:.2} | {:.2}",
            100.0 * c.type1(),
            100.0 * c.type2(),
            100.0 * c.total_error(),
            100.0 * c.kappa()
        )
    };
    let (mut sums, mut all_smrf, mut all_csf) = ([0.0; 4], Confusion::default(), Confusion::default());
    let mut noise_rows = Vec::new();
    for s in SAMPLES {
        let (_, cloud) = read_path(data.join(format!("isprs-samp{s}.las")), Limits::default())?;
        let mut noise_row = format!("| samp{s} | {} |", cloud.len());
        for method in [NoiseMethod::Statistical, NoiseMethod::Radius] {
            let t = Instant::now();
            let classes = Noise { method, ..Noise::default() }.classify(&cloud.x, &cloud.y, &cloud.z, &|_| true)?;
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let low = classes.iter().filter(|&&c| c == LOW_NOISE).count();
            let high = classes.iter().filter(|&&c| c == HIGH_NOISE).count();
            noise_row.push_str(&format!(" {low} | {high} | {ms:.0} |"));
        }
        noise_rows.push(noise_row);
        let reference: Vec<bool> = cloud.classification.iter().map(|&c| c == 2).collect();
        let t = Instant::now();
        let ground = smrf.classify_cloud(&cloud)?;
        let smrf_ms = t.elapsed().as_secs_f64() * 1e3;
        let smrf_c = Confusion::count(&reference, &ground);
        let t = Instant::now();
        let ground = match &noise {
            Some(n) => {
                let classes = n.classify(&cloud.x, &cloud.y, &cloud.z, &|_| true)?;
                let flagged: Vec<bool> = classes.iter().map(|&c| c != 0).collect();
                csf.classify_cloud_without(&cloud, &flagged, &|_| true)?
            }
            None => csf.classify_cloud(&cloud, &|_| true)?,
        };
        let csf_ms = t.elapsed().as_secs_f64() * 1e3;
        let csf_c = Confusion::count(&reference, &ground);
        println!("| samp{s} | {} | {} | {smrf_ms:.0} | {} | {csf_ms:.0} |", cloud.len(), row(&smrf_c), row(&csf_c));
        sums[0] += smrf_c.total_error();
        sums[1] += smrf_c.kappa();
        sums[2] += csf_c.total_error();
        sums[3] += csf_c.kappa();
        all_smrf = all_smrf + smrf_c;
        all_csf = all_csf + csf_c;
    }
    let n = SAMPLES.len() as f64;
    println!(
        "| mean of samples | | | | {:.2} | {:.2} | | | | {:.2} | {:.2} | |",
        100.0 * sums[0] / n,
        100.0 * sums[1] / n,
        100.0 * sums[2] / n,
        100.0 * sums[3] / n
    );
    println!("| all points | {} | {} | | {} | |", all_csf.points(), row(&all_smrf), row(&all_csf));
    println!();
    println!("Noise with PDAL's defaults (statistical: mean_k 8, multiplier 2; radius: radius 1, min_k 2)");
    println!();
    println!("| sample | points | statistical low (7) | high (18) | ms | radius low (7) | high (18) | ms |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in noise_rows {
        println!("{r}");
    }
    Ok(())
}
