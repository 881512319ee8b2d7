//! The simulation clock of a twin: live (the present), or a simulated instant that stands still
//! or runs at a rate (negative plays backwards). Stored as an anchor: the simulated instant at the
//! wall-clock instant it was set, so that it needs no ticking to advance.

use chrono::SecondsFormat;
use meridian_core::{FieldError, Timestamp};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Largest rate, either way.
pub const MAX_RATE: f64 = 1_000_000.0;

/// A twin's clock as stored.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    /// Follows the present (the other fields are ignored).
    pub live: bool,
    /// The simulated instant (ms) at `set_at`.
    pub anchor: i64,
    /// The wall-clock instant (ms) the clock was set.
    pub set_at: i64,
    /// Simulated milliseconds per real one while playing.
    pub rate: f64,
    pub playing: bool,
}

impl Default for Clock {
    fn default() -> Self {
        Self { live: true, anchor: 0, set_at: 0, rate: 1.0, playing: true }
    }
}

/// A change asked for by `POST .../time`: every field optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockChange {
    /// RFC 3339, or `now` for the present.
    #[serde(default)]
    pub time: Option<String>,
    #[serde(default)]
    pub rate: Option<f64>,
    #[serde(default)]
    pub playing: Option<bool>,
}

impl Clock {
    /// The stored form, or the default (live) for anything unreadable.
    pub fn of_value(v: &Value) -> Self {
        serde_json::from_value(v.clone()).unwrap_or_default()
    }

    /// The simulated instant (ms) at wall-clock `now` (ms).
    pub fn at(&self, now: i64) -> i64 {
        if self.live {
            return now;
        }
        if !self.playing {
            return self.anchor;
        }
        let elapsed = (now - self.set_at) as f64 * self.rate;
        self.anchor.saturating_add(elapsed.clamp(-9.0e15, 9.0e15) as i64)
    }

    /// The simulated instant now.
    pub fn now(&self) -> i64 {
        self.at(Timestamp::now().millis())
    }

    /// The clock after `change` at wall-clock `now`: the fields given replace the current ones,
    /// the others are kept (a running clock is re-anchored where it stands).
    pub fn apply(&self, change: &ClockChange, now: i64) -> Result<Clock, Vec<FieldError>> {
        let mut errors = Vec::new();
        let now_asked = change.time.as_deref().is_some_and(|t| t.trim().eq_ignore_ascii_case("now"));
        // `now` alone means the present, live; otherwise unnamed fields keep their values.
        let (rate, playing) = if now_asked || self.live {
            (change.rate.unwrap_or(1.0), change.playing.unwrap_or(true))
        } else {
            (change.rate.unwrap_or(self.rate), change.playing.unwrap_or(self.playing))
        };
        if !rate.is_finite() || rate.abs() > MAX_RATE {
            errors.push(FieldError::new(
                "/rate",
                "out_of_range",
                format!("rate is a number from -{MAX_RATE} to {MAX_RATE}"),
            ));
        }
        let time = match change.time.as_deref().map(str::trim) {
            None => Some(self.at(now)),
            Some(t) if t.eq_ignore_ascii_case("now") => None,
            Some(t) => match chrono::DateTime::parse_from_rfc3339(t) {
                Ok(d) => Some(d.timestamp_millis()),
                Err(e) => {
                    errors.push(FieldError::new(
                        "/time",
                        "invalid_time",
                        format!("give an RFC 3339 instant or \"now\": {e}"),
                    ));
                    None
                }
            },
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        let present = now_asked || (change.time.is_none() && self.live);
        let live = present && rate == 1.0 && playing;
        Ok(if live {
            Clock::default()
        } else {
            Clock { live: false, anchor: time.unwrap_or(now), set_at: now, rate, playing }
        })
    }

    /// The clock as answers show it, at wall-clock `now`.
    pub fn view(&self, now: i64) -> Value {
        json!({
            "time": rfc3339(self.at(now)),
            "mode": if self.live { "live" } else { "simulated" },
            "rate": if self.live { 1.0 } else { self.rate },
            "playing": self.live || self.playing,
            "set_at": if self.live { Value::Null } else { Value::String(rfc3339(self.set_at)) },
        })
    }
}

/// RFC 3339 in UTC with milliseconds.
pub fn rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default().to_rfc3339_opts(SecondsFormat::Millis, true)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_playing_clock_advances_at_its_rate_and_backwards_when_negative() {
        let c = Clock { live: false, anchor: 1_000_000, set_at: 10_000, rate: 60.0, playing: true };
        assert_eq!(c.at(11_000), 1_060_000);
        let back = Clock { rate: -2.0, ..c };
        assert_eq!(back.at(11_000), 998_000);
        let paused = Clock { playing: false, ..c };
        assert_eq!(paused.at(99_000), 1_000_000);
    }

    #[test]
    fn changes_keep_what_they_do_not_name() {
        let live = Clock::default();
        let set = live
            .apply(&ClockChange { time: Some("2020-01-01T00:00:00Z".into()), ..ClockChange::default() }, 5_000)
            .unwrap();
        assert!(!set.live && set.playing && set.rate == 1.0);
        assert_eq!(set.anchor, 1_577_836_800_000);
        let paused = set.apply(&ClockChange { playing: Some(false), ..ClockChange::default() }, 6_000).unwrap();
        assert_eq!(paused.anchor, 1_577_836_801_000);
        assert!(!paused.playing);
        let back =
            paused.apply(&ClockChange { time: Some("now".into()), playing: Some(false), rate: None }, 7_000).unwrap();
        assert!(!back.live, "now, paused, is a simulated instant that stands still");
        assert_eq!(back.anchor, 7_000);
        let fast = paused.apply(&ClockChange { rate: Some(-60.0), ..ClockChange::default() }, 8_000).unwrap();
        assert!(!fast.live && !fast.playing && fast.rate == -60.0);
        let live_again =
            fast.apply(&ClockChange { time: Some("now".into()), ..ClockChange::default() }, 9_000).unwrap();
        assert!(live_again.live, "now alone is the present");
        assert!(live.apply(&ClockChange { rate: Some(f64::INFINITY), ..ClockChange::default() }, 0).is_err());
        assert!(live.apply(&ClockChange { time: Some("yesterday".into()), ..ClockChange::default() }, 0).is_err());
    }
}
