//! Fuzz target on the stable toolchain: replays `fuzz/corpus/las_header/` and then mutates it
//! (see meridian-testing). The same body runs under cargo-fuzz in `fuzz/fuzz_targets/las_header.rs`.

use meridian_pointcloud::reader::{read_bytes, Limits};
use meridian_pointcloud::summary::summarize_from;
use meridian_pointcloud::writer::{rewrite, OutputFormat, Rewrite};
use meridian_testing::Target;

const LAS_WORDS: &[&[u8]] = &[
    b"LASF",
    b"LASF_Projection",
    b"laszip encoded",
    b"LASF_Spec",
    b"copc",
    b"\xff\xff\xff\xff",
    b"\x00\x00\x00\x00",
    b"\xe3\x00",
    b"\x77\x01",
    b"\xff\xff\xff\xff\xff\xff\xff\xff",
    b"\x01\x04",
    b"\x01\x02",
    b"\x83",
    b"\x86",
    b"\x06",
    b"\x0a",
];

/// Never a panic; what reads has as many points in every column as its header declares.
fn run_las(data: &[u8]) {
    let Ok((info, pc)) = read_bytes(data, Limits { max_points: 1 << 16 }) else { return };
    assert_eq!(pc.len() as u64, info.points);
    let n = pc.len();
    assert!([pc.y.len(), pc.z.len(), pc.classification.len(), pc.intensity.len()].iter().all(|&l| l == n));
    assert!([pc.return_number.len(), pc.number_of_returns.len()].iter().all(|&l| l == n));
    assert!(pc.rgb.as_ref().is_none_or(|c| c.len() == n) && pc.nir.as_ref().is_none_or(|c| c.len() == n));
    // Indexing's streaming pass agrees with the reader on what it accepted.
    let cursor = std::io::Cursor::new(data.to_vec());
    let summary = summarize_from(cursor, Limits { max_points: 1 << 16 }, &|_| true).unwrap();
    assert_eq!(summary.points, info.points);
    assert_eq!(summary.classification.values().sum::<u64>(), info.points);
    let mut classes = std::collections::BTreeMap::<String, u64>::new();
    for c in &pc.classification {
        *classes.entry(c.to_string()).or_default() += 1;
    }
    assert_eq!(summary.classification, classes);
    // And the writers stream it back (the parallel LAZ decoder only over a sound chunk table).
    let dir = std::env::temp_dir().join(format!("meridian-fuzz-las-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("input.laz");
    std::fs::write(&path, data).unwrap();
    for format in [OutputFormat::Las, OutputFormat::Laz] {
        let opts = Rewrite { format, bbox: None, classes: None, classification: None, confidence: None, crs: None };
        let mut out = std::io::Cursor::new(Vec::new());
        if let Ok(written) = rewrite(&path, &mut out, &opts, &|_| true) {
            assert_eq!(written.points, info.points);
        }
    }
}

#[test]
fn fuzz_las_header() {
    Target::new("las_header").dictionary(LAS_WORDS).max_len(1 << 16).run(run_las);
}
