//! Readings from an MQTT broker: the server subscribes to `twin.mqtt_topic` with its `{twin}` and
//! `{sensor}` levels as wildcards (QoS 1), and stores what arrives in batches (one transaction per
//! twin and batch), then fans it out like any other reading. A payload is a JSON value, or an
//! object `{"value": ..., "ts": ...}`; what cannot be stored (unknown twin or sensor, a value of
//! the wrong type, not JSON) is counted and logged, and never holds up the rest.

use super::sensors::Incoming;
use super::{Error, TwinService};
use meridian_core::DomainError;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How long a twin looked up by id is remembered.
const TWIN_CACHE: Duration = Duration::from_secs(10);

/// The place of `{twin}` and `{sensor}` in a topic pattern, and its subscription filter.
#[derive(Clone, Debug, PartialEq)]
pub struct TopicPattern {
    levels: Vec<String>,
    twin: usize,
    sensor: usize,
}

impl TopicPattern {
    /// A pattern such as `meridian/{twin}/{sensor}`: both must be whole levels.
    pub fn parse(pattern: &str) -> Option<Self> {
        let levels: Vec<String> = pattern.split('/').map(str::to_owned).collect();
        let twin = levels.iter().position(|l| l == "{twin}")?;
        let sensor = levels.iter().position(|l| l == "{sensor}")?;
        let literal_ok =
            levels.iter().enumerate().all(|(i, l)| i == twin || i == sensor || !(l.contains(['+', '#', '{', '}'])));
        literal_ok.then_some(Self { levels, twin, sensor })
    }

    /// The subscription filter: the ids as `+`.
    pub fn filter(&self) -> String {
        let mut l = self.levels.clone();
        l[self.twin] = "+".into();
        l[self.sensor] = "+".into();
        l.join("/")
    }

    /// The twin and sensor a topic names.
    pub fn ids<'a>(&self, topic: &'a str) -> Option<(&'a str, &'a str)> {
        let parts: Vec<&str> = topic.split('/').collect();
        if parts.len() != self.levels.len() {
            return None;
        }
        for (i, (p, l)) in parts.iter().zip(&self.levels).enumerate() {
            if i != self.twin && i != self.sensor && p != l {
                return None;
            }
        }
        Some((parts[self.twin], parts[self.sensor]))
    }
}

/// A reading's value and instant from a payload.
pub fn parse_payload(payload: &[u8]) -> Option<(Value, Option<Value>)> {
    let v: Value = serde_json::from_slice(payload).ok()?;
    match v {
        Value::Object(mut m) if m.contains_key("value") && m.keys().all(|k| k == "value" || k == "ts") => {
            let value = m.remove("value")?;
            Some((value, m.remove("ts")))
        }
        other => Some((other, None)),
    }
}

/// `mqtt://host[:port]` as a host and port.
fn host_port(url: &str) -> Option<(String, u16)> {
    let rest = url.strip_prefix("mqtt://")?.trim_end_matches('/');
    match rest.rsplit_once(':') {
        Some((h, p)) => Some((h.to_owned(), p.parse().ok()?)),
        None => Some((rest.to_owned(), 1883)),
    }
}

fn rejected(reason: &'static str, n: u64) {
    metrics::counter!("meridian_twin_mqtt_messages_total", "outcome" => reason).increment(n);
}

/// Subscribes to the configured broker and ingests until `stop`; reconnects after failures.
pub async fn run(svc: Arc<TwinService>, stop: CancellationToken) {
    let cfg = svc.config.clone();
    let (Some((host, port)), Some(pattern)) = (host_port(&cfg.mqtt_url), TopicPattern::parse(&cfg.mqtt_topic)) else {
        tracing::error!(url = %cfg.mqtt_url, topic = %cfg.mqtt_topic, "MQTT ingest not started: bad twin.mqtt_url or twin.mqtt_topic");
        return;
    };
    let mut options = MqttOptions::new(format!("meridian-{}", ulid::Ulid::new()), host, port);
    options.set_keep_alive(Duration::from_secs(30));
    options.set_clean_session(true);
    options.set_max_packet_size(cfg.max_value_bytes + 4096, 4096);
    options.set_inflight(200);
    let (client, mut eventloop) = AsyncClient::new(options, 100);
    let filter = pattern.filter();
    let (tx, rx) = mpsc::channel::<(String, Incoming)>(cfg.max_batch.max(1000));
    let writer = tokio::spawn(write_batches(svc.clone(), rx, stop.clone()));
    tracing::info!(url = %cfg.mqtt_url, filter = %filter, "MQTT ingest started");
    let mut seq: u64 = 0;
    loop {
        let event = tokio::select! {
            () = stop.cancelled() => break,
            e = eventloop.poll() => e,
        };
        match event {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                // A clean session forgets subscriptions: subscribe on every connection.
                if let Err(e) = client.subscribe(filter.clone(), QoS::AtLeastOnce).await {
                    tracing::warn!(error = %e, "MQTT subscribe failed");
                }
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                let Some((twin, sensor)) = pattern.ids(&p.topic) else {
                    rejected("bad_topic", 1);
                    continue;
                };
                let Some((value, ts)) = parse_payload(&p.payload) else {
                    rejected("bad_payload", 1);
                    continue;
                };
                seq += 1;
                let r = Incoming { pointer: format!("/mqtt/{seq}"), sensor: sensor.to_owned(), value, ts };
                if tx.send((twin.to_owned(), r)).await.is_err() {
                    break;
                }
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(error = %e, "MQTT connection lost; reconnecting");
                tokio::select! {
                    () = stop.cancelled() => break,
                    () = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
        }
    }
    drop(tx);
    let _ = writer.await;
}

/// Stores what the broker sent: everything that arrived since the last batch, per twin.
async fn write_batches(svc: Arc<TwinService>, mut rx: mpsc::Receiver<(String, Incoming)>, stop: CancellationToken) {
    let mut known: HashMap<String, (bool, Instant)> = HashMap::new();
    let max = svc.config.max_batch;
    let mut batch = Vec::with_capacity(max);
    loop {
        batch.clear();
        let n = tokio::select! {
            () = stop.cancelled() => 0,
            n = rx.recv_many(&mut batch, max) => n,
        };
        if n == 0 {
            return;
        }
        let mut by_twin: HashMap<String, Vec<Incoming>> = HashMap::new();
        for (twin, r) in batch.drain(..) {
            by_twin.entry(twin).or_default().push(r);
        }
        for (twin, readings) in by_twin {
            let exists = match known.get(&twin) {
                Some((e, at)) if at.elapsed() < TWIN_CACHE => *e,
                _ => {
                    let e = svc.twin_by_id(&twin).await.is_ok();
                    known.insert(twin.clone(), (e, Instant::now()));
                    e
                }
            };
            if !exists {
                rejected("unknown_twin", readings.len() as u64);
                continue;
            }
            store_lenient(&svc, &twin, readings).await;
        }
    }
}

/// Stores the readings that can be stored, leaving out (and counting) the others.
async fn store_lenient(svc: &TwinService, twin: &str, mut readings: Vec<Incoming>) {
    for _ in 0..20 {
        let n = readings.len() as u64;
        match svc.ingest_checked(twin, readings.clone()).await {
            Ok(_) => {
                metrics::counter!("meridian_twin_mqtt_messages_total", "outcome" => "stored").increment(n);
                return;
            }
            Err(Error::Domain(DomainError::Invalid(errors))) => {
                let bad: std::collections::HashSet<String> =
                    errors.iter().filter_map(|e| e.pointer.rsplit_once('/').map(|(p, _)| p.to_owned())).collect();
                tracing::debug!(twin, rejected = bad.len(), first = ?errors.first(), "MQTT readings refused");
                readings.retain(|r| !bad.contains(&r.pointer));
                rejected("invalid", n - readings.len() as u64);
                if readings.is_empty() || bad.is_empty() {
                    return;
                }
            }
            Err(e) => {
                tracing::warn!(twin, error = %e, "storing MQTT readings failed");
                rejected("store_failed", n);
                return;
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn topics_name_the_twin_and_sensor_in_their_levels() {
        let p = TopicPattern::parse("meridian/{twin}/{sensor}").unwrap();
        assert_eq!(p.filter(), "meridian/+/+");
        assert_eq!(p.ids("meridian/twin_1/temp"), Some(("twin_1", "temp")));
        assert_eq!(p.ids("other/twin_1/temp"), None);
        assert_eq!(p.ids("meridian/twin_1/temp/x"), None);
        let q = TopicPattern::parse("site/{sensor}/of/{twin}").unwrap();
        assert_eq!(q.ids("site/s1/of/t1"), Some(("t1", "s1")));
        assert!(TopicPattern::parse("a/{twin}x/{sensor}").is_none());
        assert!(TopicPattern::parse("a/+/{twin}/{sensor}").is_none());
    }

    #[test]
    fn payloads_are_values_or_value_and_ts() {
        assert_eq!(parse_payload(b"21.5"), Some((json!(21.5), None)));
        assert_eq!(
            parse_payload(br#"{"value": true, "ts": "2026-01-01T00:00:00Z"}"#),
            Some((json!(true), Some(json!("2026-01-01T00:00:00Z"))))
        );
        assert_eq!(parse_payload(br#"{"a": 1}"#), Some((json!({"a": 1}), None)));
        assert_eq!(parse_payload(b"not json"), None);
        assert_eq!(host_port("mqtt://127.0.0.1:1883"), Some(("127.0.0.1".into(), 1883)));
        assert_eq!(host_port("mqtt://broker"), Some(("broker".into(), 1883)));
        assert_eq!(host_port("http://broker"), None);
    }
}
