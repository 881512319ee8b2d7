//! Fuzz target on the stable toolchain: replays `fuzz/corpus/eo_expr/` and then mutates it (see
//! meridian-testing). The same body runs under cargo-fuzz in `fuzz/fuzz_targets/eo_expr.rs`.

use meridian_eo::expr::Expression;
use meridian_testing::Target;

const EXPR_WORDS: &[&str] = &[
    "nir", "red", "B8", "(", ")", "((((", "))))", "+", "-", "*", "/", "^", "**", ",", "abs(", "sqrt(", "exp(", "log(",
    "min(", "max(", "clamp(", "1e-3", ".5", "1e308", "0", "-", "--", "1e", "_", "é",
];

fn run_expression(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(e) = Expression::parse(text) else { return };
    // What parses prints back to something that parses to the same expression.
    let printed = e.to_string();
    let again = Expression::parse(&printed).unwrap_or_else(|err| panic!("{printed:?} does not parse back: {err}"));
    assert_eq!(again, e, "{text:?} printed as {printed:?}");
    let n = 7;
    let columns: Vec<Vec<f32>> = (0..e.variables().len())
        .map(|k| (0..n).map(|i| [0.0, 1.0, -1.0, 0.5, f32::NAN, 1e30, -3.0][(i + k) % 7]).collect())
        .collect();
    let inputs: Vec<&[f32]> = columns.iter().map(Vec::as_slice).collect();
    let mut out = vec![0.0; n];
    e.eval_slices(&inputs, &mut out);
    assert!(out.iter().all(|v| v.is_finite() || v.is_nan()), "{text:?}: {out:?}");
}

#[test]
fn fuzz_eo_expr() {
    Target::new("eo_expr").dictionary(EXPR_WORDS).max_len(8192).run(run_expression);
}

const STAC_WORDS: &[&str] = &[
    "bbox=",
    "datetime=",
    "limit=",
    "filter=",
    "sortby=",
    "fields=",
    "token=",
    "ids=",
    "collections=",
    "intersects=",
    "&",
    ",",
    "/",
    "..",
    "-",
    "+",
    "2017-11-21T06:51:03Z",
    "2017-11-21",
    "eo:cloud_cover",
    "properties.",
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    "\"type\":\"Feature\"",
    "\"properties\":",
    "\"datetime\":",
    "\"geometry\":",
    "\"bbox\":",
    "\"assets\":",
    "\"href\":",
    "\"Polygon\"",
    "\"coordinates\":",
    "null",
    "1e999",
    "-180",
    "90",
];

/// A search as a query string, as a POST body, and a body as an Item: never a panic, and what
/// parses keeps its invariants (a token parses back; an item's box is a box).
fn run_search(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let pairs: Vec<(String, String)> =
        text.split('&').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
    if let Ok(s) = meridian_eo::search::Search::from_query(&pairs, true) {
        assert!(!s.sort.is_empty());
        if let Some(t) = &s.token {
            assert_eq!(meridian_eo::search::Token::decode(&t.encode()).as_ref(), Some(t));
        }
        let doc = serde_json::json!({"id": "x", "properties": {"eo:cloud_cover": 3}, "assets": {}});
        let _ = s.fields.apply(doc);
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
        let _ = meridian_eo::search::Search::from_json(&v);
        if let Ok(item) = meridian_eo::stac::check_item(&v, "c", None, "") {
            assert!(item.bbox[0] <= item.bbox[2] || item.bbox[0] > 180.0, "{:?}", item.bbox);
            assert!(item.start_at <= item.end_at);
        }
        let _ = meridian_eo::stac::check_collection(&v, None);
        let _ = meridian_eo::compute::parse_area(&v, "/area");
    }
}

#[test]
fn fuzz_eo_search() {
    Target::new("eo_search").dictionary(STAC_WORDS).max_len(16_384).run(run_search);
}
