//! The engine's side of bench/pointcloud: one measurement per process, printed as a JSON line
//! (points, seconds, rate, peak RSS from /proc/self/status).
//!
//! ```sh
//! cargo run --release -p meridian-pointcloud --example bench -- decode FILE OUT REPEAT
//! # ops: decode (into columns), encode (LAZ written from the file's points uncompressed, as
//! # laspy writes points it holds), rewrite (LAZ to LAZ: decode and encode), copc, csf (ground
//! # only), classify (the whole pipeline, reading and writing included), features (the
//! # learned step's features of the points off the ground, the best of REPEAT; OUT is unused),
//! # forest (the shipped model's answers for those features, computed once: the best of REPEAT),
//! # make-big SRC OUT TILES
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

use meridian_pointcloud::copc::{write_copc, CopcOptions};
use meridian_pointcloud::csf::Csf;
use meridian_pointcloud::pipeline::{classify_file, PipelineParams};
use meridian_pointcloud::reader::{read_path, Limits};
use meridian_pointcloud::tiles::Tiling;
use meridian_pointcloud::writer::{rewrite, OutputFormat, Rewrite};
use std::path::Path;
use std::time::Instant;

fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn best<T>(repeat: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        last = Some(f());
        times.push(t.elapsed().as_secs_f64());
    }
    (times.into_iter().fold(f64::INFINITY, f64::min), last.expect("at least one run"))
}

fn limits() -> Limits {
    Limits { max_points: 2_000_000_000 }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage =
        "usage: bench decode|encode|copc|csf|features|forest FILE OUT REPEAT | classify FILE OUT REPEAT [TILE_POINTS] | make-big SRC OUT TILES";
    let (op, file, out) = match args.as_slice() {
        [_, op, file, out, ..] => (op.as_str(), Path::new(file), Path::new(out)),
        _ => return Err(usage.into()),
    };
    let repeat: usize = args.get(4).and_then(|r| r.parse().ok()).unwrap_or(3);
    let never = |_f: f64| true;
    let line = |op: &str, points: usize, seconds: f64, extra: serde_json::Value| {
        let mut v = serde_json::json!({
            "tool": "meridian", "op": op, "points": points, "seconds": seconds,
            "mpts": points as f64 / seconds / 1e6, "pts_per_s": points as f64 / seconds, "peak_mib": peak_mib(),
        });
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        println!("{v}");
    };
    match op {
        "decode" => {
            let (s, (_, cloud)) = best(repeat, || read_path(file, limits()).expect("read"));
            line("decode", cloud.len(), s, serde_json::json!({}));
        }
        "encode" | "rewrite" => {
            let n = read_path(file, limits())?.1.len();
            let as_format = |format| Rewrite {
                format,
                bbox: None,
                classes: None,
                classification: None,
                confidence: None,
                crs: None,
            };
            // Encoding alone reads the points from an uncompressed copy (in the page cache after
            // the first run), as laspy encodes points it already holds.
            let source = if op == "encode" {
                let las = out.with_extension("source.las");
                let mut f = std::io::BufWriter::new(std::fs::File::create(&las)?);
                rewrite(file, &mut f, &as_format(OutputFormat::Las), &never)?;
                las
            } else {
                file.to_path_buf()
            };
            let (s, ()) = best(repeat, || {
                let mut f = std::io::BufWriter::new(std::fs::File::create(out).expect("create"));
                rewrite(&source, &mut f, &as_format(OutputFormat::Laz), &never).expect("rewrite");
            });
            line(op, n, s, serde_json::json!({}));
        }
        "copc" => {
            let opts = CopcOptions::default();
            let (s, summary) = best(repeat, || write_copc(file, out, &opts, &never).expect("copc"));
            line("copc", summary.points as usize, s, serde_json::json!({"nodes": summary.nodes}));
        }
        "csf" => {
            let (_, cloud) = read_path(file, limits())?;
            let csf = Csf::default();
            let t = Instant::now();
            let ground = csf.classify(&cloud.x, &cloud.y, &cloud.z, None, &never)?;
            let s = t.elapsed().as_secs_f64();
            line("ground_csf", cloud.len(), s, serde_json::json!({"ground": ground.iter().filter(|g| **g).count()}));
        }
        "classify" => {
            let model = meridian_pointcloud::learn::Model::default_model()?;
            let params = PipelineParams::from_json(&serde_json::json!({})).map_err(|e| format!("{e:?}"))?;
            let t = Instant::now();
            // The fifth argument: points a tile (the default of `pointcloud.classify_tile_points`).
            let tiling = match args.get(5).and_then(|t| t.parse().ok()) {
                Some(tile_points) => Tiling { tile_points, ..Tiling::default() },
                None => Tiling::default(),
            };
            let report = classify_file(file, out, limits(), &params, Some(&model), 1.0, tiling, &never)?;
            let s = t.elapsed().as_secs_f64();
            line(
                "classify",
                report.points as usize,
                s,
                serde_json::json!({"timings": report.timings, "histogram": report.histogram, "tiles": report.tiles}),
            );
        }
        "features" => {
            let (_, cloud) = read_path(file, limits())?;
            let prepared = meridian_pointcloud::Pipeline::default().prepare(&cloud)?;
            let objects: Vec<bool> = (0..cloud.len()).map(|i| !prepared.ground[i] && prepared.noise[i] == 0).collect();
            let (s, features) =
                best(repeat, || meridian_pointcloud::features::compute_features(&cloud, &prepared.hag, Some(&objects)));
            line("features", features?.len(), s, serde_json::json!({"cloud_points": cloud.len()}));
        }
        "forest" => {
            let (_, cloud) = read_path(file, limits())?;
            let prepared = meridian_pointcloud::Pipeline::default().prepare(&cloud)?;
            let features = meridian_pointcloud::learn::object_features(&cloud, &prepared, None)?;
            let model = meridian_pointcloud::Model::default_model()?;
            let (s, answers) = best(repeat, || meridian_pointcloud::learn::predict_rows(&model, &features.values));
            // A sum of the answers, so that two builds can be compared at a glance.
            let classes: u64 = answers.iter().map(|a| u64::from(a.0)).sum();
            line("forest", answers.len(), s, serde_json::json!({"cloud_points": cloud.len(), "class_sum": classes}));
        }
        "make-big" => make_big(file, out, repeat)?,
        _ => return Err(usage.into()),
    }
    Ok(())
}

/// `tiles` copies of `src` side by side (a square-ish grid), every point jittered by up to two
/// centimetres with a fixed seed, written as LAZ with the source's header (bounds and counts
/// recomputed by the writer).
fn make_big(src: &Path, out: &Path, tiles: usize) -> Result<(), Box<dyn std::error::Error>> {
    let mut reader = las::Reader::from_path(src)?;
    let header = reader.header().clone();
    let data = reader.read_all()?;
    let n = data.len();
    let record = data.record_len();
    let raw = data.raw_bytes().to_vec();
    let b = header.bounds();
    let t = header.transforms();
    let (w, h) = (b.max.x - b.min.x, b.max.y - b.min.y);
    let cols = (tiles as f64).sqrt().ceil() as usize;
    let mut writer = las::Writer::from_path(out, header.clone())?;
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut jitter = |scale: f64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (((state >> 11) as f64 / (1u64 << 53) as f64 * 0.04 - 0.02) / scale).round() as i32
    };
    let patch = |rec: &mut [u8], at: usize, delta: i32| {
        let v = i32::from_le_bytes([rec[at], rec[at + 1], rec[at + 2], rec[at + 3]]).wrapping_add(delta);
        rec[at..at + 4].copy_from_slice(&v.to_le_bytes());
    };
    for tile in 0..tiles {
        let dx = ((tile % cols) as f64 * w / t.x.scale).round() as i32;
        let dy = ((tile / cols) as f64 * h / t.y.scale).round() as i32;
        let mut bytes = raw.clone();
        for rec in bytes.chunks_exact_mut(record) {
            patch(rec, 0, dx + jitter(t.x.scale));
            patch(rec, 4, dy + jitter(t.y.scale));
            patch(rec, 8, jitter(t.z.scale));
        }
        let points = las::PointDataBuilder::new().for_header(&header).build_from_bytes(bytes)?;
        writer.write_points(&points)?;
    }
    writer.close()?;
    eprintln!("{} points in {}", n * tiles, out.display());
    Ok(())
}
