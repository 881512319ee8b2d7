//! What the receivers count: deliveries inside the measurement window, their latency, gaps and
//! connection failures. Shared by every client task; counters are atomics, latencies go through a
//! per-client buffer into a few mutex-guarded histograms.

use hdrhistogram::Histogram;
use serde::Deserialize;
use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// Latencies are recorded in microseconds, up to an hour, to three significant digits.
const HIST_MAX_US: u64 = 3_600_000_000;
const SHARDS: usize = 16;
const FLUSH_EVERY: usize = 256;
/// A client's counts reach the shared counters at least this often (µs), for the progress lines.
const FLUSH_AFTER_US: u64 = 100_000;

/// Microseconds since the UNIX epoch, now.
pub(crate) fn now_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as u64)
}

/// One frame (WebSocket) or payload (MQTT) as the receivers read it. Data frames have no `type`
/// and a numeric `value`; control frames have a `type`.
#[derive(Deserialize)]
struct Frame<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    value: Option<f64>,
    #[serde(default)]
    dropped: Option<u64>,
}

pub(crate) struct Stats {
    /// Readings whose publish instant (their `value`) is in [warm_us, end_us) are the measured
    /// ones; 0 and 0 until the ingest starts.
    warm_us: AtomicU64,
    end_us: AtomicU64,
    /// Data messages received whose value is in the window.
    pub(crate) delivered: AtomicU64,
    /// Data messages received, all of them.
    pub(crate) received: AtomicU64,
    pub(crate) gaps: AtomicU64,
    pub(crate) gap_dropped: AtomicU64,
    pub(crate) control_frames: AtomicU64,
    pub(crate) unparsed: AtomicU64,
    pub(crate) connected: AtomicU64,
    pub(crate) connect_failures: AtomicU64,
    pub(crate) disconnects: AtomicU64,
    /// Readings ingested (accepted by the server, or handed to the MQTT client) with their value
    /// in the window; readings ingested in all.
    pub(crate) ingested: AtomicU64,
    pub(crate) ingested_total: AtomicU64,
    pub(crate) ingest_errors: AtomicU64,
    per_client: Vec<AtomicU64>,
    hist: Vec<Mutex<Histogram<u64>>>,
    first_error: Mutex<Option<String>>,
}

/// A client task's own buffer of latencies (µs), flushed into a shared histogram now and then.
pub(crate) struct Local {
    client: usize,
    buf: Vec<u64>,
    /// Data messages received, and of those in the window, since the last flush.
    received: u64,
    delivered: u64,
    last_flush_us: u64,
}

impl Stats {
    pub(crate) fn new(clients: usize) -> anyhow::Result<Self> {
        let mut hist = Vec::with_capacity(SHARDS);
        for _ in 0..SHARDS {
            hist.push(Mutex::new(Histogram::new_with_bounds(1, HIST_MAX_US, 3)?));
        }
        Ok(Self {
            warm_us: AtomicU64::new(0),
            end_us: AtomicU64::new(0),
            delivered: AtomicU64::new(0),
            received: AtomicU64::new(0),
            gaps: AtomicU64::new(0),
            gap_dropped: AtomicU64::new(0),
            control_frames: AtomicU64::new(0),
            unparsed: AtomicU64::new(0),
            connected: AtomicU64::new(0),
            connect_failures: AtomicU64::new(0),
            disconnects: AtomicU64::new(0),
            ingested: AtomicU64::new(0),
            ingested_total: AtomicU64::new(0),
            ingest_errors: AtomicU64::new(0),
            per_client: (0..clients).map(|_| AtomicU64::new(0)).collect(),
            hist,
            first_error: Mutex::new(None),
        })
    }

    pub(crate) fn set_window(&self, warm_us: u64, end_us: u64) {
        self.end_us.store(end_us, Relaxed);
        self.warm_us.store(warm_us, Relaxed);
    }

    pub(crate) fn in_window(&self, value_us: u64) -> bool {
        let warm = self.warm_us.load(Relaxed);
        warm != 0 && value_us >= warm && value_us < self.end_us.load(Relaxed)
    }

    /// Keeps the first error of each run for the report (and prints every one on stderr, up to a
    /// point).
    pub(crate) fn error(&self, what: &str, err: impl std::fmt::Display) {
        let msg = format!("{what}: {err}");
        if let Ok(mut first) = self.first_error.lock() {
            if first.is_none() {
                eprintln!("{msg}");
                *first = Some(msg);
            }
        }
    }

    pub(crate) fn first_error(&self) -> Option<String> {
        self.first_error.lock().ok().and_then(|e| e.clone())
    }

    /// One message as a receiver got it (`recv_us` is when it was read).
    pub(crate) fn message(&self, local: &mut Local, bytes: &[u8], recv_us: u64) {
        let frame: Frame<'_> = match serde_json::from_slice(bytes) {
            Ok(f) => f,
            Err(_) => {
                self.unparsed.fetch_add(1, Relaxed);
                return;
            }
        };
        match (frame.kind.as_deref(), frame.value) {
            (Some("gap"), _) => {
                self.gaps.fetch_add(1, Relaxed);
                self.gap_dropped.fetch_add(frame.dropped.unwrap_or(0), Relaxed);
            }
            (Some(_), _) => {
                self.control_frames.fetch_add(1, Relaxed);
            }
            (None, Some(value)) if value.is_finite() && value >= 0.0 => {
                local.received += 1;
                let value = value as u64;
                if self.in_window(value) {
                    local.delivered += 1;
                    local.buf.push(recv_us.saturating_sub(value).max(1));
                }
                if local.buf.len() >= FLUSH_EVERY || recv_us.saturating_sub(local.last_flush_us) >= FLUSH_AFTER_US {
                    local.last_flush_us = recv_us;
                    self.flush(local);
                }
            }
            (None, _) => {
                self.unparsed.fetch_add(1, Relaxed);
            }
        }
    }

    /// Moves a client's counts and latencies into the shared ones.
    pub(crate) fn flush(&self, local: &mut Local) {
        if local.received > 0 {
            self.received.fetch_add(local.received, Relaxed);
            local.received = 0;
        }
        if local.delivered > 0 {
            self.delivered.fetch_add(local.delivered, Relaxed);
            self.per_client[local.client].fetch_add(local.delivered, Relaxed);
            local.delivered = 0;
        }
        if local.buf.is_empty() {
            return;
        }
        if let Ok(mut h) = self.hist[local.client % SHARDS].lock() {
            for &v in &local.buf {
                h.saturating_record(v);
            }
        }
        local.buf.clear();
    }

    pub(crate) fn local(client: usize) -> Local {
        Local { client, buf: Vec::with_capacity(FLUSH_EVERY), received: 0, delivered: 0, last_flush_us: 0 }
    }

    /// The latency histogram of all clients.
    pub(crate) fn latency(&self) -> anyhow::Result<Histogram<u64>> {
        let mut all = Histogram::new_with_bounds(1, HIST_MAX_US, 3)?;
        for shard in &self.hist {
            if let Ok(h) = shard.lock() {
                all.add(&*h)?;
            }
        }
        Ok(all)
    }

    /// Min, median and max of the deliveries per connected client (clients that never connected
    /// are left out).
    pub(crate) fn per_client(&self, connected: &[bool]) -> (u64, u64, u64) {
        let mut counts: Vec<u64> =
            self.per_client.iter().zip(connected).filter(|(_, &c)| c).map(|(n, _)| n.load(Relaxed)).collect();
        if counts.is_empty() {
            return (0, 0, 0);
        }
        counts.sort_unstable();
        (counts[0], counts[counts.len() / 2], counts[counts.len() - 1])
    }
}

/// CPU seconds (user + system) this process has used so far.
pub(crate) fn cpu_seconds() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    getrusage(UsageWho::RUSAGE_SELF).map_or(0.0, |u| {
        let (user, system) = (u.user_time(), u.system_time());
        (user.tv_sec() + system.tv_sec()) as f64 + (user.tv_usec() + system.tv_usec()) as f64 / 1e6
    })
}

/// Peak resident set size of this process in kB (VmHWM), if /proc says.
pub(crate) fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_data_in_window_and_gaps() -> anyhow::Result<()> {
        let stats = Stats::new(2)?;
        let mut local = Stats::local(1);
        stats.message(&mut local, br#"{"sensorId":"s0001","value":1500,"ts":"x"}"#, 2000);
        assert_eq!(stats.delivered.load(Relaxed), 0, "no window yet");
        stats.set_window(1000, 3000);
        stats.message(&mut local, br#"{"sensorId":"s0001","value":1500,"ts":"x"}"#, 2000);
        stats.message(&mut local, br#"{"sensorId":"s0002","value":3000,"ts":"x"}"#, 3100);
        stats.message(&mut local, br#"{"type":"gap","dropped":7}"#, 3100);
        stats.message(&mut local, br#"{"type":"hello","twin":"t"}"#, 3100);
        stats.message(&mut local, b"not json", 3100);
        stats.flush(&mut local);
        assert_eq!(stats.received.load(Relaxed), 3);
        assert_eq!(stats.delivered.load(Relaxed), 1);
        assert_eq!(stats.gaps.load(Relaxed), 1);
        assert_eq!(stats.gap_dropped.load(Relaxed), 7);
        assert_eq!(stats.control_frames.load(Relaxed), 1);
        assert_eq!(stats.unparsed.load(Relaxed), 1);
        let h = stats.latency()?;
        assert_eq!(h.len(), 1);
        assert_eq!(h.value_at_quantile(0.5), 500);
        assert_eq!(stats.per_client(&[true, true]), (0, 1, 1));
        Ok(())
    }
}
