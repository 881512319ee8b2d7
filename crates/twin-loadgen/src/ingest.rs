//! The ingest side: readings at R per second over all sensors, round robin, sent every tick either
//! as MQTT publishes (one per reading) or as one HTTP request per tick.

use crate::stats::{now_us, Stats};
use anyhow::Context;
use chrono::{SecondsFormat, TimeZone, Utc};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use serde_json::json;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// At most this many ingest requests in flight over HTTP.
const HTTP_IN_FLIGHT: usize = 4;
/// At most this many readings in one HTTP request (after a stall, several ticks' worth).
const HTTP_MAX_BATCH: usize = 5_000;

/// `s0001` … for sensor index 0 ….
pub(crate) fn sensor_id(index: usize) -> String {
    format!("s{:04}", index + 1)
}

/// RFC 3339 with milliseconds, UTC, of a µs instant.
fn rfc3339(us: u64) -> String {
    Utc.timestamp_micros(us as i64)
        .single()
        .map_or_else(String::new, |t| t.to_rfc3339_opts(SecondsFormat::Millis, true))
}

/// `host:port` → (host, port).
pub(crate) fn host_port(addr: &str) -> anyhow::Result<(String, u16)> {
    let addr = addr.strip_prefix("mqtt://").unwrap_or(addr);
    let (host, port) = addr.rsplit_once(':').with_context(|| format!("{addr}: expected HOST:PORT"))?;
    Ok((host.trim_matches(['[', ']']).to_string(), port.parse().with_context(|| format!("{addr}: bad port"))?))
}

pub(crate) enum Sink {
    Mqtt { client: AsyncClient, topic: String, twin: String },
    Http { client: reqwest::Client, url: String, key: String, in_flight: Arc<Semaphore> },
}

impl Sink {
    /// Connects a publisher to the broker and waits for its CONNACK; its event loop runs until
    /// `cancel`. `topic` may hold `{twin}` and `{sensor}`.
    pub(crate) async fn mqtt(broker: &str, topic: &str, twin: &str, cancel: CancellationToken) -> anyhow::Result<Self> {
        let (host, port) = host_port(broker)?;
        let mut opts = MqttOptions::new(format!("twin-loadgen-pub-{}", std::process::id()), host, port);
        opts.set_keep_alive(Duration::from_secs(30));
        opts.set_max_packet_size(64 * 1024, 64 * 1024);
        opts.set_inflight(1000);
        let (client, mut eventloop) = AsyncClient::new(opts, 100_000);
        let (tx, rx) = tokio::sync::oneshot::channel();
        let mut tx = Some(tx);
        tokio::spawn(async move {
            loop {
                let polled = tokio::select! {
                    _ = cancel.cancelled() => break,
                    p = eventloop.poll() => p,
                };
                match polled {
                    Ok(Event::Incoming(Packet::ConnAck(_))) => {
                        if let Some(tx) = tx.take() {
                            let _ = tx.send(Ok(()));
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        eprintln!("publisher: {e}");
                        if let Some(tx) = tx.take() {
                            let _ = tx.send(Err(e));
                            break;
                        }
                        // Connected once already: rumqttc reconnects on the next poll.
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                }
            }
        });
        match tokio::time::timeout(Duration::from_secs(10), rx).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(e))) => anyhow::bail!("publisher could not connect to {broker}: {e}"),
            Ok(Err(_)) | Err(_) => anyhow::bail!("publisher: no CONNACK from {broker}"),
        }
        Ok(Sink::Mqtt { client, topic: topic.to_string(), twin: twin.to_string() })
    }

    pub(crate) fn http(http: &str, twin: &str, key: &str) -> anyhow::Result<Self> {
        let client = meridian_egress::tls::client_builder(&[])?
            .pool_max_idle_per_host(HTTP_IN_FLIGHT)
            .timeout(Duration::from_secs(30))
            .build()?;
        Ok(Sink::Http {
            client,
            url: format!("{}/api/v1/realtime/twin/{twin}/readings", http.trim_end_matches('/')),
            key: key.to_string(),
            in_flight: Arc::new(Semaphore::new(HTTP_IN_FLIGHT)),
        })
    }

    /// Sends readings `first .. first + n` (sensor = index mod sensors).
    async fn send(&self, stats: &Arc<Stats>, first: u64, n: u64, sensors: usize) {
        match self {
            Sink::Mqtt { client, topic, twin } => {
                for i in first..first + n {
                    let sensor = sensor_id((i % sensors as u64) as usize);
                    let topic = topic.replace("{twin}", twin).replace("{sensor}", &sensor);
                    let us = now_us();
                    let payload = json!({ "value": us, "ts": rfc3339(us) }).to_string();
                    match client.publish(topic, QoS::AtMostOnce, false, payload).await {
                        Ok(()) => {
                            stats.ingested_total.fetch_add(1, Relaxed);
                            if stats.in_window(us) {
                                stats.ingested.fetch_add(1, Relaxed);
                            }
                        }
                        Err(e) => {
                            stats.ingest_errors.fetch_add(1, Relaxed);
                            stats.error("publish", e);
                        }
                    }
                }
            }
            Sink::Http { client, url, key, in_flight } => {
                let mut start = first;
                while start < first + n {
                    let end = (start + HTTP_MAX_BATCH as u64).min(first + n);
                    let Ok(permit) = in_flight.clone().acquire_owned().await else { return };
                    let us = now_us();
                    let ts = rfc3339(us);
                    let readings: Vec<_> = (start..end)
                        .map(|i| json!({ "sensorId": sensor_id((i % sensors as u64) as usize), "value": us, "ts": ts }))
                        .collect();
                    let count = readings.len() as u64;
                    let request = client
                        .post(url.as_str())
                        .header("X-Api-Key", key.as_str())
                        .header("Content-Type", "application/json")
                        .body(json!({ "readings": readings }).to_string());
                    let stats = stats.clone();
                    tokio::spawn(async move {
                        let result = request.send().await;
                        drop(permit);
                        match result {
                            Ok(resp) if resp.status().is_success() => {
                                stats.ingested_total.fetch_add(count, Relaxed);
                                if stats.in_window(us) {
                                    stats.ingested.fetch_add(count, Relaxed);
                                }
                            }
                            Ok(resp) => {
                                stats.ingest_errors.fetch_add(1, Relaxed);
                                let status = resp.status();
                                let body = resp.text().await.unwrap_or_default();
                                stats.error(
                                    "ingest",
                                    format!("{status}: {}", body.chars().take(300).collect::<String>()),
                                );
                            }
                            Err(e) => {
                                stats.ingest_errors.fetch_add(1, Relaxed);
                                stats.error("ingest", e);
                            }
                        }
                    });
                    start = end;
                }
            }
        }
    }

    /// Waits (up to `limit`) for HTTP requests still in flight.
    async fn finish(&self, limit: Duration) {
        if let Sink::Http { in_flight, .. } = self {
            let _ = tokio::time::timeout(limit, in_flight.acquire_many(HTTP_IN_FLIGHT as u32)).await;
        }
    }
}

/// Ingests at `rate` readings per second for `total`, every `tick`: each tick sends the readings
/// due by then (⌊rate × elapsed⌋ less those sent), so the rate holds without drift.
pub(crate) async fn run(sink: &Sink, stats: &Arc<Stats>, rate: f64, sensors: usize, total: Duration, tick: Duration) {
    let start = Instant::now();
    let mut sent: u64 = 0;
    let mut ticker = tokio::time::interval(tick);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        let elapsed = start.elapsed().min(total);
        let due = (rate * elapsed.as_secs_f64()).floor() as u64;
        if due > sent {
            sink.send(stats, sent, due - sent, sensors).await;
            sent = due;
        }
        if elapsed >= total {
            break;
        }
    }
    sink.finish(Duration::from_secs(10)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_times_and_addresses() -> anyhow::Result<()> {
        assert_eq!(sensor_id(0), "s0001");
        assert_eq!(sensor_id(999), "s1000");
        assert_eq!(rfc3339(1_764_039_600_123_456), "2025-11-25T03:00:00.123Z");
        assert_eq!(host_port("127.0.0.1:18830")?, ("127.0.0.1".to_string(), 18830));
        assert_eq!(host_port("mqtt://localhost:1883")?, ("localhost".to_string(), 1883));
        assert!(host_port("localhost").is_err());
        Ok(())
    }
}
