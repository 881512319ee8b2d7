//! The WMS/WMTS request parser under the stable fuzz runner (corpus in
//! `fuzz/corpus/ogc_kvp/`; the same body runs under cargo-fuzz in `fuzz/fuzz_targets/ogc_kvp.rs`).

use meridian_fuzzing::Target;
use meridian_ogc::kvp::{Kvp, KvpLimits};

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
