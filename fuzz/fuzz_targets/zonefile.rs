#![no_main]
//! The master-file parser: reading, checking and printing any text must not panic, and what is
//! accepted prints to a file that reads back.

use libfuzzer_sys::fuzz_target;
use meridian_dns::record::validate;
use meridian_dns::zonefile::{self, Apex, Limits};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let limits = Limits { max_records: 10_000, max_line_bytes: 4096 };
    let (entries, _) = zonefile::parse_limited(text, "example.com", &limits);
    let records: Vec<_> = entries
        .iter()
        .filter_map(|e| zonefile::to_input(e, "example.com").ok())
        .filter_map(|i| validate(&i, "example.com", "").ok())
        .collect();
    let config = meridian_core::config::DnsConfig::default();
    let printed = zonefile::print(&Apex { zone: "example.com", serial: 1, config: &config }, &records);
    let (_, issues) = zonefile::parse(&printed, "example.com");
    assert!(issues.is_empty());
});
