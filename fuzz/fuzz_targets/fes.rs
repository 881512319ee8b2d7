#![no_main]

use libfuzzer_sys::fuzz_target;
use meridian_features::cql2::{self, Subject};
use meridian_features::Bbox;
use meridian_ogc::wfs::fes::{self, FesContext};
use meridian_ogc::wfs::xml::XmlLimits;
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    let queryables = meridian_collections::query::parcel_queryables();
    let ctx = FesContext {
        queryables: &queryables,
        default_crs: meridian_core::crs::Crs::Epsg(4326),
        limits: XmlLimits { max_bytes: 1 << 20, max_depth: 64, max_elements: 10_000 },
    };
    let props = json!({"lot": "12", "plan": "DP1234", "tenure": "freehold", "area_m2": 650.5})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let geom = geo::Geometry::Polygon(Bbox { min_x: 151.0, min_y: -33.9, max_x: 151.01, max_y: -33.89 }.to_polygon());
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(e) = fes::parse_text(text, &ctx) {
            let s = Subject { id: "parcel_x", properties: &props, geometry: Some(&geom), geometry_name: "geometry" };
            let _ = cql2::eval(&e, &s);
        }
    }
});
