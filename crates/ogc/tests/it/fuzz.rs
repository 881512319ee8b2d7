//! The OGC parsers under the stable fuzz runner: the WMS/WMTS request parser (corpus in
//! `fuzz/corpus/ogc_kvp/`) and the FES/XML reader (`fuzz/corpus/fes/`); the same bodies run under
//! cargo-fuzz in `fuzz/fuzz_targets/ogc_kvp.rs` and `fes.rs`.

use meridian_features::cql2::{self, Subject};
use meridian_ogc::kvp::{Kvp, KvpLimits};
use meridian_ogc::wfs::fes::{self, FesContext};
use meridian_ogc::wfs::xml::XmlLimits;
use meridian_testing::Target;
use serde_json::json;

const WORDS: &[&str] = &[
    "SERVICE=WMS",
    "REQUEST=GetMap",
    "LAYERS=",
    "STYLES=",
    "CRS=EPSG:4326",
    "CRS=CRS:84",
    "CRS=EPSG:2056",
    "BBOX=",
    "WIDTH=",
    "HEIGHT=",
    "FORMAT=image/png",
    "TRANSPARENT=TRUE",
    "BGCOLOR=0x",
    "&",
    "=",
    ",",
    "%",
    "%2C",
    "-1e308",
    "NaN",
    "inf",
    "VERSION=1.1.1",
    "SRS=",
    "I=",
    "J=",
    "EXCEPTIONS=INIMAGE",
];

#[test]
fn ogc_kvp() {
    let (service, _) = crate::service();
    Target::new("ogc_kvp").dictionary(WORDS).run(|data: &[u8]| {
        let Ok(text) = std::str::from_utf8(data) else { return };
        if let Ok(kvp) = Kvp::parse(text, KvpLimits::default()) {
            let _ = service.parse_map_request(&kvp);
        }
    });
}

const FES_WORDS: &[&str] = &[
    "<fes:Filter xmlns:fes=\"http://www.opengis.net/fes/2.0\">",
    "</fes:Filter>",
    "<fes:And>",
    "</fes:And>",
    "<fes:Or>",
    "<fes:Not>",
    "<fes:PropertyIsEqualTo matchCase=\"false\">",
    "<fes:PropertyIsLike wildCard=\"*\" singleChar=\".\" escapeChar=\"!\">",
    "<fes:PropertyIsBetween>",
    "<fes:LowerBoundary>",
    "<fes:ValueReference>lot</fes:ValueReference>",
    "<fes:ValueReference>area_m2</fes:ValueReference>",
    "<fes:Literal>",
    "</fes:Literal>",
    "<fes:ResourceId rid=\"parcel_x\"/>",
    "<fes:BBOX>",
    "<fes:DWithin>",
    "<fes:Distance uom=\"m\">",
    "<gml:Envelope srsName=\"urn:ogc:def:crs:EPSG::4326\">",
    "<gml:lowerCorner>",
    "<gml:Polygon>",
    "<gml:posList srsDimension=\"3\">",
    "<gml:MultiSurface><gml:surfaceMember>",
    "<gml:coordinates>",
    "&amp;",
    "&#x10FFFF;",
    "<![CDATA[",
    "<!DOCTYPE",
    "1e308",
    "NaN",
];

#[test]
fn fuzz_fes() {
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
    let geom = geo::Geometry::Polygon(
        meridian_features::Bbox { min_x: 151.0, min_y: -33.9, max_x: 151.01, max_y: -33.89 }.to_polygon(),
    );
    Target::new("fes").dictionary(FES_WORDS).run(|data: &[u8]| {
        if let Ok(text) = std::str::from_utf8(data) {
            if let Ok(e) = fes::parse_text(text, &ctx) {
                let s =
                    Subject { id: "parcel_x", properties: &props, geometry: Some(&geom), geometry_name: "geometry" };
                let _ = cql2::eval(&e, &s);
            }
        }
    });
}
