//! Fuzz target on the stable toolchain: replays `fuzz/corpus/las_header/` and then mutates it
//! (see meridian-fuzzing). The same body runs under cargo-fuzz in `fuzz/fuzz_targets/las_header.rs`.

use meridian_fuzzing::Target;
use meridian_pointcloud::reader::{read_bytes, Limits};

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
}

#[test]
fn fuzz_las_header() {
    Target::new("las_header").dictionary(LAS_WORDS).max_len(1 << 16).run(run_las);
}
