//! `twin-loadgen`: fan-out load for bench/twin. Many receivers (MQTT subscribers of a broker, or
//! WebSocket clients of Meridian's twin endpoint) while readings are ingested at a fixed rate;
//! reports deliveries per second and ingest-to-client latency as one JSON object on stdout.
//!
//! Every reading carries its publish instant (µs since the UNIX epoch) as its `value`, so a
//! receiver's latency is its receive instant less the value. Readings published in the
//! measurement window (after the warm-up) are the measured ones; after the ingest stops the
//! receivers keep reading for `--drain` seconds to collect those still on their way.
//!
//! ```sh
//! twin-loadgen mqtt --broker 127.0.0.1:18830 --clients 1000 --sensors 1000 --rate 100 --duration 10
//! twin-loadgen ws --url ws://127.0.0.1:8080/api/v1/realtime/twin/TWIN --key KEY --ingest http \
//!     --clients 1000 --sensors 1000 --rate 100 --duration 10
//! ```
// The report is this program's output.
#![allow(clippy::print_stdout)]

mod clients;
mod ingest;
mod stats;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde_json::json;
use stats::{cpu_seconds, now_us, peak_rss_kb, Stats};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

#[derive(Parser)]
#[command(name = "twin-loadgen", about = "Fan-out load generator for the digital-twin realtime feed")]
struct Cli {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand)]
enum Mode {
    /// MQTT subscribers of `bench/+` on a broker, one publisher on `bench/{sensor}`.
    Mqtt {
        /// Broker, HOST:PORT.
        #[arg(long, default_value = "127.0.0.1:18830")]
        broker: String,
        #[command(flatten)]
        load: Load,
    },
    /// WebSocket clients of Meridian's twin endpoint, readings ingested over HTTP or MQTT.
    Ws {
        /// ws://HOST:PORT/api/v1/realtime/twin/{twin_id}; several, comma-separated (nodes serving
        /// the same twin), spread the clients over them in turn.
        #[arg(long)]
        url: String,
        /// API key (sent as X-Api-Key on the WebSocket and on HTTP ingest).
        #[arg(long, env = "KEY")]
        key: String,
        #[arg(long, value_enum, default_value_t = Ingest::Http)]
        ingest: Ingest,
        /// Base URL for HTTP ingest; by default the WebSocket URL's host as http://.
        #[arg(long)]
        http: Option<String>,
        /// Twin id; by default the WebSocket URL's last path segment.
        #[arg(long)]
        twin: Option<String>,
        /// Broker for MQTT ingest, HOST:PORT.
        #[arg(long, default_value = "127.0.0.1:18830")]
        broker: String,
        /// Topic for MQTT ingest; `{twin}` and `{sensor}` are substituted.
        #[arg(long, default_value = "meridian/{twin}/{sensor}")]
        topic: String,
        #[command(flatten)]
        load: Load,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Ingest {
    Http,
    Mqtt,
}

#[derive(Args)]
struct Load {
    /// Receivers (subscribers or WebSocket clients).
    #[arg(long, default_value_t = 1000)]
    clients: usize,
    /// Sensors the readings go round (s0001 …).
    #[arg(long, default_value_t = 1000)]
    sensors: usize,
    /// Readings ingested per second, all sensors together.
    #[arg(long, default_value_t = 100.0)]
    rate: f64,
    /// Measured seconds (after the warm-up).
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// Seconds of ingest before the measurement starts.
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// Seconds the receivers keep reading after the ingest stops.
    #[arg(long, default_value_t = 2.0)]
    drain: f64,
    /// Ingest tick in milliseconds (readings due are sent each tick).
    #[arg(long, default_value_t = 10)]
    tick_ms: u64,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    raise_fd_limit();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let report = match runtime.block_on(run(cli.mode)) {
        Ok(report) => report,
        Err(e) => {
            // Still one JSON object on stdout, for scripts that collect the reports.
            println!("{}", json!({ "error": format!("{e:#}") }));
            runtime.shutdown_timeout(Duration::from_secs(2));
            return Err(e);
        }
    };
    println!("{report}");
    // Client tasks that did not finish in time are dropped with the runtime.
    runtime.shutdown_timeout(Duration::from_secs(2));
    Ok(())
}

/// Raises the soft limit on open files to the hard limit: one socket per client.
fn raise_fd_limit() {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok((soft, hard)) if soft < hard => {
            if let Err(e) = setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
                eprintln!("open-file limit stays {soft} (hard {hard}): {e}");
            }
        }
        Ok(_) => {}
        Err(e) => eprintln!("open-file limit unknown: {e}"),
    }
}

async fn run(mode: Mode) -> anyhow::Result<serde_json::Value> {
    let load = match &mode {
        Mode::Mqtt { load, .. } | Mode::Ws { load, .. } => load,
    };
    anyhow::ensure!(load.rate > 0.0 && load.duration > 0.0 && load.warmup >= 0.0, "rate and duration must be > 0");
    anyhow::ensure!(load.sensors > 0 && load.sensors <= 9999, "sensors: 1 to 9999");
    let stats = Arc::new(Stats::new(load.clients)?);
    let cancel = CancellationToken::new();
    let ingest_cancel = CancellationToken::new();
    // Every client task holds a sender: recv() answers None once all have ended.
    let (alive, mut all_ended) = tokio::sync::mpsc::channel::<()>(1);

    let (connected, sink, labels) = match &mode {
        Mode::Mqtt { broker, load } => {
            eprintln!("mqtt: {} subscribers of bench/+ on {broker}", load.clients);
            let connected = clients::mqtt(broker, "bench/+", load.clients, &stats, &cancel, &alive).await?;
            let sink = ingest::Sink::mqtt(broker, "bench/{sensor}", "", ingest_cancel.clone()).await?;
            (connected, sink, json!({ "mode": "mqtt", "ingest": "mqtt", "broker": broker }))
        }
        Mode::Ws { url, key, ingest, http, twin, broker, topic, load } => {
            let urls: Vec<&str> = url.split(',').map(str::trim).filter(|u| !u.is_empty()).collect();
            anyhow::ensure!(!urls.is_empty(), "no WebSocket URL");
            let twin = match twin {
                Some(t) => t.clone(),
                None => urls[0].trim_end_matches('/').rsplit('/').next().unwrap_or_default().to_string(),
            };
            anyhow::ensure!(!twin.is_empty(), "no twin id: pass --twin");
            eprintln!("ws: {} clients of {url}", load.clients);
            let connected = clients::ws(&urls, key, load.clients, &stats, &cancel, &alive).await?;
            let (sink, ingest_name) = match ingest {
                Ingest::Http => {
                    let base = match http {
                        Some(h) => h.clone(),
                        None => http_base(urls[0])?,
                    };
                    (ingest::Sink::http(&base, &twin, key)?, "http")
                }
                Ingest::Mqtt => (ingest::Sink::mqtt(broker, topic, &twin, ingest_cancel.clone()).await?, "mqtt"),
            };
            (connected, sink, json!({ "mode": "ws", "ingest": ingest_name, "url": url, "twin": twin }))
        }
    };

    let warmup = Duration::from_secs_f64(load.warmup);
    let measured = Duration::from_secs_f64(load.duration);
    let start_us = now_us();
    let warm_us = start_us + warmup.as_micros() as u64;
    let end_us = warm_us + measured.as_micros() as u64;
    stats.set_window(warm_us.max(1), end_us);
    eprintln!(
        "ingest: {} readings/s over {} sensors for {:.1} s (+{:.1} s warm-up)",
        load.rate, load.sensors, load.duration, load.warmup
    );
    let progress = tokio::spawn(progress(stats.clone(), cancel.clone()));
    let started = Instant::now();
    let cpu_start = cpu_seconds();
    ingest::run(&sink, &stats, load.rate, load.sensors, warmup + measured, Duration::from_millis(load.tick_ms.max(1)))
        .await;
    let ingest_secs = started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs_f64(load.drain.max(0.0))).await;
    let cpu = cpu_seconds() - cpu_start;
    let wall = started.elapsed().as_secs_f64();
    cancel.cancel();
    ingest_cancel.cancel();
    let _ = progress.await;
    // The client tasks flush their last counts and latencies as they end.
    drop(alive);
    if tokio::time::timeout(Duration::from_secs(5), all_ended.recv()).await.is_err() {
        eprintln!("some clients had not ended 5 s after the drain; their last counts may be missing");
    }

    let h = stats.latency()?;
    let ms = |q: f64| (h.value_at_quantile(q) as f64 / 1000.0 * 100.0).round() / 100.0;
    let clients_connected = stats.connected.load(Relaxed);
    let ingested = stats.ingested.load(Relaxed);
    let delivered = stats.delivered.load(Relaxed);
    let expected = ingested * clients_connected;
    let (per_min, per_median, per_max) = stats.per_client(&connected);
    let mut report = json!({
        "clients": load.clients,
        "clients_connected": clients_connected,
        "connect_failures": stats.connect_failures.load(Relaxed),
        "disconnects": stats.disconnects.load(Relaxed),
        "sensors": load.sensors,
        "rate_asked": load.rate,
        "rate_achieved": round2(ingested as f64 / load.duration),
        "duration_s": load.duration,
        "warmup_s": load.warmup,
        "ingest_seconds": round2(ingest_secs),
        "ingested": ingested,
        "ingested_total": stats.ingested_total.load(Relaxed),
        "ingest_errors": stats.ingest_errors.load(Relaxed),
        "expected_deliveries": expected,
        "delivered": delivered,
        "delivered_pct": if expected > 0 { round2(delivered as f64 * 100.0 / expected as f64) } else { 0.0 },
        "delivered_per_s": round2(delivered as f64 / load.duration),
        "delivered_per_client": { "min": per_min, "median": per_median, "max": per_max },
        "received_total": stats.received.load(Relaxed),
        "latency_ms": { "p50": ms(0.5), "p90": ms(0.9), "p99": ms(0.99), "max": round2(h.max() as f64 / 1000.0),
                        "samples": h.len() },
        "gaps": stats.gaps.load(Relaxed),
        "gap_dropped": stats.gap_dropped.load(Relaxed),
        "control_frames": stats.control_frames.load(Relaxed),
        "unparsed": stats.unparsed.load(Relaxed),
        "loadgen_peak_rss_kb": peak_rss_kb(),
        // From the ingest's start to the end of the drain: is the loadgen itself the limit?
        "loadgen_cpu_s": round2(cpu),
        "loadgen_cpu_cores": round2(cpu / wall),
        "loadgen_cpu_us_per_message": if stats.received.load(Relaxed) > 0 {
            round2(cpu * 1e6 / stats.received.load(Relaxed) as f64)
        } else {
            0.0
        },
        "first_error": stats.first_error(),
    });
    if let (Some(obj), Some(labels)) = (report.as_object_mut(), labels.as_object()) {
        for (k, v) in labels {
            obj.insert(k.clone(), v.clone());
        }
    }
    Ok(report)
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// ws://host:port/… → http://host:port (wss → https).
fn http_base(url: &str) -> anyhow::Result<String> {
    let (scheme, rest) = url.split_once("://").context("--url: expected ws://HOST:PORT/…")?;
    let host = rest.split('/').next().unwrap_or_default();
    let scheme = if scheme == "wss" { "https" } else { "http" };
    Ok(format!("{scheme}://{host}"))
}

/// Once a second on stderr: deliveries and ingest in the last second.
async fn progress(stats: Arc<Stats>, cancel: CancellationToken) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.tick().await;
    let (mut last_rx, mut last_in) = (0, 0);
    let t0 = Instant::now();
    loop {
        tokio::select! {
            _ = cancel.cancelled() => break,
            _ = tick.tick() => {}
        }
        let rx = stats.received.load(Relaxed);
        let ing = stats.ingested_total.load(Relaxed);
        eprintln!(
            "{:>5.1}s  ingested {:>6}/s  received {:>8}/s  gaps {}  disconnects {}",
            t0.elapsed().as_secs_f64(),
            ing - last_in,
            rx - last_rx,
            stats.gaps.load(Relaxed),
            stats.disconnects.load(Relaxed)
        );
        (last_rx, last_in) = (rx, ing);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_base_from_ws_url() -> anyhow::Result<()> {
        assert_eq!(http_base("ws://127.0.0.1:8080/api/v1/realtime/twin/abc")?, "http://127.0.0.1:8080");
        assert_eq!(http_base("wss://example.org/x")?, "https://example.org");
        Ok(())
    }
}
