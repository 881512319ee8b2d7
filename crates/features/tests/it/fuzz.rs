//! Fuzz targets on the stable toolchain: each replays `fuzz/corpus/<name>/` and then mutates it
//! (see meridian-testing). The same bodies run under cargo-fuzz in `fuzz/fuzz_targets/`.

use geo::Geometry;
use meridian_features::cql2::{self, Subject};
use meridian_features::fgb::FgbFeatures;
use meridian_features::geometry::{self, Rules};
use meridian_testing::Target;
use serde_json::{json, Map, Value};

fn sample_properties() -> Map<String, Value> {
    json!({"lot": "12", "plan": "DP1234", "tenure": "freehold", "name": "a".repeat(300), "area_m2": 650.5,
        "updated_at": "2026-03-01T00:00:00Z", "flag": true})
    .as_object()
    .cloned()
    .unwrap_or_default()
}

fn evaluate(e: &cql2::Expr) {
    let props = sample_properties();
    let geom =
        Geometry::Polygon(meridian_features::Bbox { min_x: 0.0, min_y: 0.0, max_x: 1.0, max_y: 1.0 }.to_polygon());
    let s = Subject { id: "parcel_x", properties: &props, geometry: Some(&geom), geometry_name: "geometry" };
    let _ = cql2::eval(e, &s);
    let _ = e.properties();
}

const CQL2_WORDS: &[&str] = &[
    "AND",
    "OR",
    "NOT",
    "LIKE",
    "BETWEEN",
    "IN",
    "IS NULL",
    "CASEI(",
    "S_INTERSECTS(",
    "POINT(",
    "POLYGON((",
    "BBOX(",
    "TIMESTAMP(",
    "DATE(",
    "'%",
    "_'",
    "\\",
    "(",
    ")",
    "((((",
    "= ",
    "<>",
    ">=",
    "'",
    "\"",
    "1e308",
];

#[test]
fn fuzz_cql2_text() {
    Target::new("cql2_text").dictionary(CQL2_WORDS).run(|data: &[u8]| {
        if let Ok(text) = std::str::from_utf8(data) {
            if let Ok(e) = cql2::parse_text(text) {
                evaluate(&e);
            }
        }
    });
}

#[test]
fn fuzz_cql2_json() {
    Target::new("cql2_json")
        .dictionary([
            r#"{"op":"not","args":["#,
            r#"{"op":"like","args":[{"property":"name"},"%a%"]}"#,
            r#"{"casei":"#,
            r#"{"property":"lot"}"#,
            r#"{"timestamp":"2026-01-01T00:00:00Z"}"#,
            r#"{"bbox":[0,0,1,1]}"#,
            r#"{"type":"Point","coordinates":[0,0]}"#,
            "]}",
            "[",
            "null",
        ])
        .run(|data: &[u8]| {
            if let Ok(text) = std::str::from_utf8(data) {
                if let Ok(e) = cql2::parse_json_text_with(text, &cql2::Limits::default()) {
                    evaluate(&e);
                }
            }
        });
}

/// The CQL2 standard's own examples (in the corpora) in both encodings: everything Meridian
/// implements parses, and each text example means the same as its JSON twin on a sample feature.
#[test]
fn cql2_spec_examples_agree_between_encodings() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    let props = sample_properties();
    let geom = Geometry::Point(geo::Point::new(0.5, 0.5));
    let s = Subject { id: "x", properties: &props, geometry: Some(&geom), geometry_name: "geometry" };
    let (mut both, mut compared) = (0, 0);
    for entry in std::fs::read_dir(root.join("cql2_text")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let Some(example) = name.strip_prefix("spec_") else { continue };
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(json) = std::fs::read_to_string(root.join("cql2_json").join(format!("spec_{example}.json"))) else {
            continue; // a few examples exist in one encoding only
        };
        let (t, j) = (cql2::parse_text(text.trim()), cql2::parse_json_text_with(&json, &cql2::Limits::default()));
        match (t, j) {
            (Ok(t), Ok(j)) => {
                both += 1;
                let (a, b) = (cql2::eval(&t, &s), cql2::eval(&j, &s));
                assert_eq!(a, b, "{example}: text and JSON disagree\n{text}\n{json}");
                compared += 1;
            }
            // Temporal operators, arrays and functions are outside what Meridian implements:
            // both encodings must refuse them alike.
            (Err(_), Err(_)) => {}
            (t, j) => panic!("{example}: only one encoding parses: text {:?}, json {:?}", t.err(), j.err()),
        }
    }
    assert!(both >= 30, "only {both} spec examples parse in both encodings");
    assert_eq!(both, compared);
}

#[test]
fn fuzz_geojson() {
    Target::new("geojson")
        .dictionary([r#""type":"Polygon""#, r#""coordinates":"#, "[[", "]]", "[0,0]", "[1e400,0]", "[180,90]", ","])
        .run(|data: &[u8]| {
            let Ok(v) = serde_json::from_slice::<Value>(data) else { return };
            let g = v.get("geometry").unwrap_or(&v);
            for rules in [Rules { areal_only: true, geographic: true }, Rules { areal_only: false, geographic: false }]
            {
                if let Ok(p) = geometry::parse(g, "/geometry", rules) {
                    // What validation accepts, decoding reads back the same.
                    assert!(geometry::decode(&p.json).is_some());
                    let _ = p.geodesic_area_m2();
                }
            }
            let _ = geometry::decode(g);
        });
}

#[test]
fn fuzz_flatgeobuf() {
    Target::new("flatgeobuf").max_len(1 << 16).run(|data: &[u8]| {
        let Ok(mut file) = FgbFeatures::open(data) else { return };
        let _ = file.header();
        for _ in 0..1_000 {
            match file.next_feature() {
                Ok(Some(f)) => {
                    let _ =
                        geometry::parse(&f["geometry"], "/geometry", Rules { areal_only: false, geographic: false });
                }
                Ok(None) | Err(_) => break,
            }
        }
    });
}
