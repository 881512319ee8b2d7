#![no_main]

use geo::Geometry;
use libfuzzer_sys::fuzz_target;
use meridian_features::cql2::{self, Subject};
use meridian_features::Bbox;
use serde_json::{json, Map, Value};

fn evaluate(e: &cql2::Expr) {
    let props: Map<String, Value> = json!({"lot": "12", "plan": "DP1234", "tenure": "freehold",
        "name": "a".repeat(300), "area_m2": 650.5, "updated_at": "2026-03-01T00:00:00Z", "flag": true})
    .as_object()
    .cloned()
    .unwrap_or_default();
    let geom = Geometry::Polygon(Bbox { min_x: 0.0, min_y: 0.0, max_x: 1.0, max_y: 1.0 }.to_polygon());
    let s = Subject { id: "parcel_x", properties: &props, geometry: Some(&geom), geometry_name: "geometry" };
    let _ = cql2::eval(e, &s);
    let _ = e.properties();
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(e) = cql2::parse_json_text_with(text, &cql2::Limits::default()) {
            evaluate(&e);
        }
    }
});
