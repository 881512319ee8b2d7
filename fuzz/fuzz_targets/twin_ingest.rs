#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| meridian_twin::service::fuzzing::ingest(data));
