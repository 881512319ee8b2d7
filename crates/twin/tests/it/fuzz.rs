//! Fuzz target on the stable toolchain: replays `fuzz/corpus/twin_ingest/` and then mutates it
//! (see meridian-testing). The same body runs under cargo-fuzz in `fuzz/fuzz_targets/twin_ingest.rs`.

use meridian_testing::Target;

const WORDS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "\"readings\"",
    "\"sensorId\"",
    "\"value\"",
    "\"ts\"",
    "\"time\"",
    "\"rate\"",
    "\"playing\"",
    "\"now\"",
    "true",
    "null",
    "1e308",
    "-1e309",
    "2026-01-01T00:00:00Z",
    "{twin}",
    "{sensor}",
    "/",
    "+",
    "#",
    "9999999999999999999",
];

#[test]
fn fuzz_twin_ingest() {
    Target::new("twin_ingest").dictionary(WORDS).max_len(4096).run(meridian_twin::service::fuzzing::ingest);
}
