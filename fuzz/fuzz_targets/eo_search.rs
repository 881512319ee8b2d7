#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let pairs: Vec<(String, String)> =
        text.split('&').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
    if let Ok(s) = meridian_eo::search::Search::from_query(&pairs, true) {
        if let Some(t) = &s.token {
            assert_eq!(meridian_eo::search::Token::decode(&t.encode()).as_ref(), Some(t));
        }
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
        let _ = meridian_eo::search::Search::from_json(&v);
        if let Ok(item) = meridian_eo::stac::check_item(&v, "c", None, "") {
            assert!(item.start_at <= item.end_at);
        }
        let _ = meridian_eo::stac::check_collection(&v, None);
        let _ = meridian_eo::compute::parse_area(&v, "/area");
    }
});
