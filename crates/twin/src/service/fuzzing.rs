//! The twin area's parsers of untrusted input in one body, for the `twin_ingest` fuzz target
//! (cargo-fuzz and the stable replay in `tests/it/fuzz.rs`): reading batches as requests send
//! them, values against every type, instants, MQTT topics and payloads, sensor ids and clock
//! changes. Nothing may panic, and what is accepted must be consistent.

use super::clock::{Clock, ClockChange};
use super::mqtt::{parse_payload, TopicPattern};
use super::sensors::{check_value, parse_instant, parse_readings, valid_sensor_id, ValueType};

/// Runs every parser on `data`.
pub fn ingest(data: &[u8]) {
    if let Some((value, ts)) = parse_payload(data) {
        for t in [ValueType::Number, ValueType::Boolean, ValueType::String, ValueType::Object] {
            if let Ok(text) = check_value(t, &value, 4096) {
                assert!(text.len() <= 4096);
                let back: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
                assert_eq!(back, value, "a stored value reads back as it was sent");
            }
        }
        if let Some(ts) = ts {
            let _ = parse_instant(&ts);
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = valid_sensor_id(text);
        if let Some(p) = TopicPattern::parse(text) {
            let filter = p.filter();
            assert!(!filter.contains('{'), "{filter}");
            let topic = text.replace("{twin}", "t").replace("{sensor}", "s");
            assert_eq!(p.ids(&topic), Some(("t", "s")), "{text}");
        }
    }
    let Ok(body) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    for sensor in [None, Some("s1")] {
        if let Ok(list) = parse_readings(body.clone(), sensor, 100) {
            assert!(list.len() <= 100);
            for r in &list {
                assert!(sensor.is_none_or(|s| r.sensor == s));
            }
        }
    }
    if let Ok(change) = serde_json::from_value::<ClockChange>(body) {
        for base in [Clock::default(), Clock { live: false, anchor: -5_000, set_at: 1_000, rate: -60.0, playing: true }]
        {
            if let Ok(c) = base.apply(&change, 1_700_000_000_000) {
                let _ = c.view(1_700_000_001_000);
                assert!(c.rate.is_finite());
            }
        }
    }
}
