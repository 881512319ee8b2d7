//! A sparse cloud costs what its points cost, not what its extent would: 6,000 points spread
//! over 10 × 10 km go through the whole default pipeline (noise, ground, raised ground, height
//! above ground, classes) within 200 MB of heap, counted by this binary's allocator. The time is
//! printed (`--nocapture`), not asserted; bench/pointcloud measures it.
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use meridian_pointcloud::learn::Model;
use meridian_pointcloud::pipeline::{classify_file, PipelineParams};
use meridian_pointcloud::reader::Limits;
use meridian_pointcloud::tiles::Tiling;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes held and their peak.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = HELD.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the layout is passed on unchanged.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the pointer came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `System.realloc`'s contract, passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size > layout.size() {
                grew(new_size - layout.size());
            } else {
                HELD.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A deterministic sequence in [0, 1).
fn uniform(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

#[test]
fn six_thousand_points_over_ten_kilometres_classify_within_their_budget() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("sparse.las");
    let mut builder = las::Builder::from((1, 2));
    builder.point_format = las::point::Format::new(1).unwrap();
    let t = |offset| las::Transform { scale: 0.01, offset };
    builder.transforms = las::Vector { x: t(500_000.0), y: t(5_000_000.0), z: t(0.0) };
    let mut writer = las::Writer::from_path(&source, builder.into_header().unwrap()).unwrap();
    // Rolling terrain (a 40 m swell over kilometres); one point in six a canopy return 8–20 m
    // above it.
    let mut state = 7;
    let mut canopy = Vec::new();
    for _ in 0..6_000 {
        let (x, y) = (uniform(&mut state) * 10_000.0, uniform(&mut state) * 10_000.0);
        let terrain = 200.0 + 40.0 * (x / 3_000.0).sin() * (y / 4_000.0).cos();
        let tree = uniform(&mut state) < 1.0 / 6.0;
        let z = terrain + if tree { 8.0 + 12.0 * uniform(&mut state) } else { 0.0 };
        canopy.push(tree);
        writer
            .write_point(las::Point {
                x: 500_000.0 + x,
                y: 5_000_000.0 + y,
                z,
                return_number: 1,
                number_of_returns: 1,
                gps_time: Some(0.0),
                ..Default::default()
            })
            .unwrap();
    }
    writer.close().unwrap();
    drop(writer);

    let model = Model::default_model().unwrap();
    let params = PipelineParams::from_json(&serde_json::json!({})).unwrap();
    let out = dir.path().join("out.laz");
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let started = std::time::Instant::now();
    let report =
        classify_file(&source, &out, Limits::default(), &params, Some(&model), 1.0, Tiling::default(), &|_| true)
            .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    println!(
        "6,000 points over 10 x 10 km: {seconds:.2} s, peak heap {:.1} MB, {:?}",
        peak as f64 / 1e6,
        report.histogram
    );
    assert!(peak < 200_000_000, "peak heap {peak} bytes");
    assert_eq!(report.points, 6_000);

    // The classes are those of the terrain: most bare points ground, no flood of noise, and the
    // canopy returns above the ground.
    let (_, got) = meridian_pointcloud::reader::read_path(&out, Limits::default()).unwrap();
    let bare = canopy.iter().filter(|&&t| !t).count();
    let bare_ground = got.classification.iter().zip(&canopy).filter(|(&c, &t)| !t && c == 2).count();
    let noise = got.classification.iter().filter(|&&c| c == 7 || c == 18).count();
    let tall = got.classification.iter().zip(&canopy).filter(|(&c, &t)| t && c != 2 && c != 7).count();
    assert!(bare_ground * 10 >= bare * 8, "{bare_ground} of {bare} bare points ground");
    assert!(noise * 20 <= 6_000, "{noise} noise points");
    assert!(tall * 10 >= canopy.iter().filter(|&&t| t).count() * 8, "{tall} canopy points above ground");
}
