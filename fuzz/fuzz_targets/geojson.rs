#![no_main]

use libfuzzer_sys::fuzz_target;
use meridian_features::geometry::{self, Rules};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(v) = serde_json::from_slice::<Value>(data) else { return };
    let g = v.get("geometry").unwrap_or(&v);
    for rules in [Rules { areal_only: true, geographic: true }, Rules { areal_only: false, geographic: false }] {
        if let Ok(p) = geometry::parse(g, "/geometry", rules) {
            assert!(geometry::decode(&p.json).is_some());
            let _ = p.geodesic_area_m2();
        }
    }
    let _ = geometry::decode(g);
});
