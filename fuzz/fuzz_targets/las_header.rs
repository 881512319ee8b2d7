//! cargo-fuzz target over the LAS/LAZ reader; the same body as
//! `crates/pointcloud/tests/it/fuzz.rs` (`fuzz_las_header`), which replays
//! `fuzz/corpus/las_header/` on stable.
#![no_main]

use meridian_pointcloud::reader::{read_bytes, Limits};
use meridian_pointcloud::summary::summarize_from;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok((info, pc)) = read_bytes(data, Limits { max_points: 1 << 16 }) else { return };
    assert_eq!(pc.len() as u64, info.points);
    let n = pc.len();
    assert!([pc.y.len(), pc.z.len(), pc.classification.len(), pc.intensity.len()].iter().all(|&l| l == n));
    assert!([pc.return_number.len(), pc.number_of_returns.len()].iter().all(|&l| l == n));
    let cursor = std::io::Cursor::new(data.to_vec());
    let summary = summarize_from(cursor, Limits { max_points: 1 << 16 }, &|_| true).unwrap();
    assert_eq!(summary.points, info.points);
    assert_eq!(summary.classification.values().sum::<u64>(), info.points);
});
