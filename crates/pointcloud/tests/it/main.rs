//! Integration tests of the point-cloud engine: the reader on real and hostile files, the SMRF
//! and CSF ground filters on the ISPRS filter-test reference samples, the noise filter, and the
//! reader's fuzz target.
#![allow(clippy::unwrap_used)]

mod csf;
mod fuzz;
mod isprs;
mod learn;
mod noise;
mod reader;

use std::path::{Path, PathBuf};

/// The ISPRS reference samples in tests/data (see tests/data/NOTICE.md).
pub(crate) const SAMPLES: [&str; 8] = ["11", "21", "22", "31", "41", "51", "52", "61"];

pub(crate) fn data_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

pub(crate) fn sample_path(s: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/isprs-samp{s}.las"))
}

/// A small LAZ file (point format 1, LAS 1.2) written by the `las` crate's LAZ writer.
pub(crate) fn small_laz(points: usize) -> Vec<u8> {
    let mut builder = las::Builder::from((1, 2));
    builder.point_format = las::point::Format::new(1).unwrap();
    builder.point_format.is_compressed = true;
    let t = |offset| las::Transform { scale: 0.01, offset };
    builder.transforms = las::Vector { x: t(512_000.0), y: t(5_403_000.0), z: t(0.0) };
    let header = builder.into_header().unwrap();
    let mut writer = las::Writer::new(std::io::Cursor::new(Vec::new()), header).unwrap();
    for i in 0..points {
        let f = i as f64;
        writer
            .write_point(las::Point {
                x: 512_000.0 + f * 0.37,
                y: 5_403_000.0 + (f * 1.3) % 17.0,
                z: 250.0 + (f * 0.11).sin(),
                intensity: (i % 300) as u16,
                return_number: 1 + (i % 2) as u8,
                number_of_returns: 2,
                classification: las::point::Classification::new(if i % 3 == 0 { 2 } else { 1 }).unwrap(),
                gps_time: Some(f),
                ..Default::default()
            })
            .unwrap();
    }
    writer.into_inner().unwrap().into_inner()
}

/// A small deterministic pseudo-random generator (Knuth's MMIX linear congruential constants).
pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [−1, 1).
    pub(crate) fn signed(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }
}
