#![no_main]

use libfuzzer_sys::fuzz_target;
use meridian_ogc::kvp::{Kvp, KvpLimits};
use meridian_ogc::{Catalogue, MapConfig, OgcService};
use std::sync::OnceLock;

fn service() -> &'static OgcService {
    static S: OnceLock<OgcService> = OnceLock::new();
    S.get_or_init(|| OgcService::new(Catalogue::new(), MapConfig::default()))
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(kvp) = Kvp::parse(text, KvpLimits::default()) {
            let _ = service().parse_map_request(&kvp);
        }
    }
});
