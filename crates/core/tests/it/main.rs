//! Our CRS transformations against PROJ's `cs2cs` on thousands of points: at most 1 mm apart.

#![allow(clippy::unwrap_used, clippy::print_stdout)]

use meridian_core::crs::{Crs, Transformer};
use std::io::Write;
use std::process::{Command, Stdio};

mod problem_codes;
mod tools;

fn cs2cs_available() -> bool {
    tools::have_tool("cs2cs", "crs_matches_cs2cs")
}

/// Points on a grid over (lon0..lon1, lat0..lat1).
fn grid(lon0: f64, lon1: f64, lat0: f64, lat1: f64, n: usize) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let fx = i as f64 / (n - 1) as f64;
            let fy = j as f64 / (n - 1) as f64;
            out.push((lon0 + fx * (lon1 - lon0), lat0 + fy * (lat1 - lat0)));
        }
    }
    out
}

/// Forward from geographic (lon, lat in the source datum) to `to`, with cs2cs on the same points.
fn compare(from: u16, to: u16, points: &[(f64, f64)]) -> f64 {
    let mut child = Command::new("cs2cs")
        .args(["-f", "%.6f", &format!("EPSG:{from}"), &format!("EPSG:{to}")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = String::new();
    for (lon, lat) in points {
        // EPSG geographic CRSs are latitude first for PROJ too.
        input.push_str(&format!("{lat:.9} {lon:.9}\n"));
    }
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let t = Transformer::new(Crs::Epsg(from), Crs::Epsg(to)).unwrap();
    let mut worst: f64 = 0.0;
    for ((lon, lat), line) in points.iter().zip(text.lines()) {
        let nums: Vec<f64> = line.split_whitespace().take(2).map(|v| v.parse().unwrap()).collect();
        let (x, y) = t.apply(*lat, *lon).unwrap();
        let d = ((x - nums[0]).powi(2) + (y - nums[1]).powi(2)).sqrt();
        worst = worst.max(d);
    }
    assert_eq!(text.lines().count(), points.len());
    worst
}

#[test]
fn crs_matches_cs2cs() {
    if !cs2cs_available() {
        return;
    }
    // (source EPSG, target EPSG, (min lon, max lon, min lat, max lat))
    type Case = (u16, u16, (f64, f64, f64, f64));
    let cases: &[Case] = &[
        (4326, 3857, (-179.0, 179.0, -84.0, 84.0)),
        (4326, 32633, (12.0, 18.0, 0.0, 80.0)),
        (4326, 32756, (150.0, 156.0, -79.0, -1.0)),
        (4283, 28356, (150.0, 156.0, -44.0, -10.0)),
        (7844, 7856, (150.0, 156.0, -44.0, -10.0)),
        (7844, 7855, (144.0, 150.0, -44.0, -10.0)),
        (4283, 28355, (144.0, 150.0, -44.0, -10.0)),
        (4150, 2056, (5.9, 10.5, 45.8, 47.8)),
        (4326, 32632, (6.0, 12.0, 30.0, 70.0)),
    ];
    let mut total = 0;
    for (from, to, (lon0, lon1, lat0, lat1)) in cases {
        let points = grid(*lon0, *lon1, *lat0, *lat1, 25);
        total += points.len();
        let worst = compare(*from, *to, &points);
        println!("EPSG:{from} -> EPSG:{to}: worst difference {:.6} m over {} points", worst, points.len());
        assert!(worst <= 0.001, "EPSG:{from} -> EPSG:{to} differs by {worst} m");
    }
    assert!(total >= 4000);
}
