#![no_main]

use libfuzzer_sys::fuzz_target;
use meridian_features::fgb::FgbFeatures;
use meridian_features::geometry::{self, Rules};

fuzz_target!(|data: &[u8]| {
    let Ok(mut file) = FgbFeatures::open(data) else { return };
    let _ = file.header();
    for _ in 0..1_000 {
        match file.next_feature() {
            Ok(Some(f)) => {
                let _ = geometry::parse(&f["geometry"], "/geometry", Rules { areal_only: false, geographic: false });
            }
            Ok(None) | Err(_) => break,
        }
    }
});
