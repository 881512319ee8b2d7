//! Times the writers on a file (by default the PDAL extra-bytes sample in tests/data): LAS and
//! LAZ through `rewrite` with a new class and a confidence per point, and COPC. Prints points
//! per second for each, the best of five runs (the machines are shared); the outputs go to the
//! system's temporary directory.
//!
//! ```text
//! cargo run --release -p meridian-pointcloud --example write
//! cargo run --release -p meridian-pointcloud --example write -- some.laz
//! ```
#![allow(clippy::print_stdout)]

use meridian_pointcloud::reader::{check_header, Limits};
use meridian_pointcloud::{rewrite, write_copc, CopcOptions, OutputFormat, Rewrite};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let input = std::env::args().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/pdal-extra-bytes.laz"),
        PathBuf::from,
    );
    let info = check_header(&mut std::fs::File::open(&input)?, Limits { max_points: u64::MAX })?;
    let n = info.points;
    let classification: Vec<u8> = (0..n).map(|i| [1, 2, 6][(i % 3) as usize]).collect();
    let confidence: Vec<u8> = (0..n).map(|i| (i % 101) as u8).collect();
    let dir = std::env::temp_dir();
    let rate = |secs: f64| n as f64 / secs / 1e6;
    println!("{}: {n} points, format {}, compressed {}", input.display(), info.point_format, info.compressed);
    for (name, format) in [("LAS", OutputFormat::Las), ("LAZ", OutputFormat::Laz)] {
        let out = dir.join(format!("meridian-write-bench.{}", name.to_lowercase()));
        let opts = Rewrite {
            format,
            classification: Some(classification.clone()),
            confidence: Some(confidence.clone()),
            ..Default::default()
        };
        let (summary, secs) = best_of(|| {
            let mut file = std::io::BufWriter::new(std::fs::File::create(&out)?);
            Ok(rewrite(&input, &mut file, &opts, &|_| true)?)
        })?;
        let bytes = std::fs::metadata(&out)?.len();
        println!("{name}: {} points in {secs:.2} s, {:.2} Mpts/s, {bytes} bytes", summary.points, rate(secs));
    }
    let out = dir.join("meridian-write-bench.copc.laz");
    let opts = CopcOptions { classification: Some(classification), confidence: Some(confidence), ..Default::default() };
    let (summary, secs) = best_of(|| Ok(write_copc(&input, &out, &opts, &|_| true)?))?;
    let bytes = std::fs::metadata(&out)?.len();
    println!(
        "COPC: {} points in {secs:.2} s, {:.2} Mpts/s, {} nodes, depth {}, {bytes} bytes",
        summary.points,
        rate(secs),
        summary.nodes,
        summary.depth
    );
    Ok(())
}

/// The result of `f` and its shortest time in seconds over five runs.
fn best_of<T>(
    mut f: impl FnMut() -> Result<T, Box<dyn std::error::Error>>,
) -> Result<(T, f64), Box<dyn std::error::Error>> {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..5 {
        let t = Instant::now();
        last = Some(f()?);
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok((last.ok_or("no run")?, best))
}
