//! Readings from an MQTT broker: the server subscribes to `twin.mqtt_topic` with its `{twin}` and
//! `{sensor}` levels as wildcards (QoS 1, MQTT 5, a persistent session), stores what arrives in
//! batches (one transaction per twin and batch), fans it out like any other reading, and only then
//! acknowledges it. A payload is a JSON value, or an
//! object `{"value": ..., "ts": ...}`; what cannot be stored (unknown twin or sensor, a value of
//! the wrong type, not JSON) is counted and logged, and never holds up the rest.

use super::sensors::Incoming;
use super::{Error, TwinService};
use meridian_core::DomainError;
use rumqttc::v5::mqttbytes::v5::{Packet, Publish};
use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::{AsyncClient, Event, MqttOptions};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The shared subscription's group of the nodes sharing a store.
const SHARE_GROUP: &str = "meridian";

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

/// Unacknowledged messages the broker may have in flight to us (MQTT 5 Receive Maximum): the
/// queue between the connection and the writer never holds more, so neither side waits on the
/// other.
const RECEIVE_MAXIMUM: u16 = 1000;
/// How long the broker keeps our session (subscription and unacknowledged messages) while we are
/// away.
const SESSION_EXPIRY_SECS: u32 = 24 * 3600;
/// The broker's count of messages it dropped (Mosquitto: queues full, inflight limits).
const BROKER_DROPPED: &str = "$SYS/broker/publish/messages/dropped";
/// Twins looked up by id that are remembered at most (found or not).
const KNOWN_TWINS: usize = 4096;

/// What the connection hands the writer, in the order the broker sent it: every message is
/// acknowledged in that order once what it carries is stored (or refused for good).
#[derive(Debug)]
enum Delivery {
    Reading { twin: String, reading: Incoming, ack: Publish },
    Skipped(Publish),
}

/// The largest payload worth reading: a value of `max_value_bytes` with room for `ts`, the
/// `{"value": ...}` wrapper and whitespace. Larger ones are counted (`too_large`) and skipped.
fn payload_limit(max_value_bytes: usize) -> usize {
    max_value_bytes.saturating_mul(2).saturating_add(1024)
}

/// The packet size the broker is told (MQTT 5 Maximum Packet Size): messages up to it reach us
/// and are counted when too large; larger ones the broker discards without breaking the
/// connection.
fn packet_limit(max_value_bytes: usize) -> u32 {
    u32::try_from(payload_limit(max_value_bytes).saturating_mul(4).max(1 << 20)).unwrap_or(u32::MAX)
}

/// Subscribes to the configured broker and ingests until `stop`; reconnects after failures.
///
/// MQTT 5 with a session kept for a day under a client id stored once per installation, QoS 1
/// and manual acknowledgements: a message is acknowledged only after the batch holding it is
/// committed, so readings in flight when the process stops are sent again when it comes back.
pub async fn run(svc: Arc<TwinService>, node: String, stop: CancellationToken) {
    let cfg = svc.config.clone();
    let (Some((host, port)), Some(pattern)) = (host_port(&cfg.mqtt_url), TopicPattern::parse(&cfg.mqtt_topic)) else {
        tracing::error!(url = %cfg.mqtt_url, topic = %cfg.mqtt_topic, "MQTT ingest not started: bad twin.mqtt_url or twin.mqtt_topic");
        return;
    };
    let client_id = match svc
        .store
        .settings
        .get_or_init("twin.mqtt_client_id", &format!("meridian-{}", ulid::Ulid::new().to_string().to_lowercase()))
        .await
    {
        Ok(id) => id,
        Err(e) => {
            tracing::error!(error = %e, "MQTT ingest not started: the client id could not be read");
            return;
        }
    };
    // Several nodes on one store: each has a session of its own (named after the node, so that a
    // restarted node resumes its session), and they share one subscription, so the broker gives
    // each message to one of them.
    let shared = svc.store.notices.shared();
    let client_id = if shared { format!("{client_id}-{node}") } else { client_id };
    let mut options = MqttOptions::new(client_id.clone(), host, port);
    options.set_keep_alive(Duration::from_secs(30));
    options.set_clean_start(false);
    options.set_session_expiry_interval(Some(SESSION_EXPIRY_SECS));
    options.set_receive_maximum(Some(RECEIVE_MAXIMUM));
    options.set_max_packet_size(Some(packet_limit(cfg.max_value_bytes)));
    options.set_manual_acks(true);
    let queue = usize::from(RECEIVE_MAXIMUM) * 2;
    let (client, mut eventloop) = AsyncClient::new(options, queue);
    let filter = if shared { format!("$share/{SHARE_GROUP}/{}", pattern.filter()) } else { pattern.filter() };
    let (tx, rx) = mpsc::channel::<Delivery>(queue);
    let writer = tokio::spawn(write_batches(svc.clone(), client.clone(), rx, stop.clone()));
    tracing::info!(url = %cfg.mqtt_url, filter = %filter, client_id = %client_id, "MQTT ingest started");
    let limit = payload_limit(cfg.max_value_bytes);
    let mut seq: u64 = 0;
    loop {
        let event = tokio::select! {
            () = stop.cancelled() => break,
            e = eventloop.poll() => e,
        };
        match event {
            Ok(Event::Incoming(Packet::ConnAck(ack))) => {
                metrics::counter!("meridian_twin_mqtt_connections_total").increment(1);
                if !ack.session_present {
                    if let Err(e) = client.subscribe(filter.clone(), QoS::AtLeastOnce).await {
                        tracing::warn!(error = %e, "MQTT subscribe failed");
                    }
                }
                // The broker's own count of what it dropped (a queue limit reached while the
                // ingest was slow or away); brokers without it never answer.
                let _ = client.subscribe(BROKER_DROPPED, QoS::AtMostOnce).await;
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                if p.topic.as_ref() == BROKER_DROPPED.as_bytes() {
                    if let Some(n) = std::str::from_utf8(&p.payload).ok().and_then(|t| t.trim().parse::<f64>().ok()) {
                        metrics::gauge!("meridian_twin_mqtt_broker_dropped_messages").set(n);
                    }
                    continue;
                }
                let delivery = match classify(&pattern, &p, limit) {
                    Ok((twin, sensor, value, ts)) => {
                        seq += 1;
                        let reading = Incoming { pointer: format!("/mqtt/{seq}"), sensor, value, ts };
                        Delivery::Reading { twin, reading, ack: p }
                    }
                    Err(reason) => {
                        rejected(reason, 1);
                        Delivery::Skipped(p)
                    }
                };
                if tx.send(delivery).await.is_err() {
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
    // Acknowledgements queued by the writer's last batch go out before the connection closes.
    let _ = client.disconnect().await;
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while let Ok(e) = eventloop.poll().await {
            if matches!(e, Event::Outgoing(rumqttc::Outgoing::Disconnect)) {
                break;
            }
        }
    })
    .await;
}

/// The twin, sensor, value and instant a message carries, or why it is skipped.
fn classify(
    pattern: &TopicPattern,
    p: &Publish,
    limit: usize,
) -> Result<(String, String, Value, Option<Value>), &'static str> {
    let topic = std::str::from_utf8(&p.topic).map_err(|_| "bad_topic")?;
    let (twin, sensor) = pattern.ids(topic).ok_or("bad_topic")?;
    if p.payload.len() > limit {
        return Err("too_large");
    }
    let (value, ts) = parse_payload(&p.payload).ok_or("bad_payload")?;
    Ok((twin.to_owned(), sensor.to_owned(), value, ts))
}

/// Twins looked up by id, found or not, each remembered for [`TWIN_CACHE`] and at most
/// [`KNOWN_TWINS`] of them.
#[derive(Default)]
struct KnownTwins(HashMap<String, (bool, Instant)>);

impl KnownTwins {
    async fn exists(&mut self, svc: &TwinService, twin: &str) -> bool {
        if let Some((e, at)) = self.0.get(twin) {
            if at.elapsed() < TWIN_CACHE {
                return *e;
            }
        }
        let e = svc.twin_by_id(twin).await.is_ok();
        if self.0.len() >= KNOWN_TWINS {
            self.0.retain(|_, (_, at)| at.elapsed() < TWIN_CACHE);
        }
        if self.0.len() < KNOWN_TWINS {
            self.0.insert(twin.to_owned(), (e, Instant::now()));
        }
        e
    }
}

/// Stores what the broker sent: everything that arrived since the last batch, per twin, then
/// acknowledges it in the order it arrived.
async fn write_batches(
    svc: Arc<TwinService>,
    client: AsyncClient,
    mut rx: mpsc::Receiver<Delivery>,
    stop: CancellationToken,
) {
    let mut known = KnownTwins::default();
    let max = svc.config.max_batch.max(1);
    let mut batch = Vec::with_capacity(max.min(usize::from(RECEIVE_MAXIMUM) * 2));
    loop {
        batch.clear();
        let n = tokio::select! {
            () = stop.cancelled() => 0,
            n = rx.recv_many(&mut batch, max) => n,
        };
        if n == 0 {
            return;
        }
        let mut by_twin: HashMap<&str, Vec<Incoming>> = HashMap::new();
        for d in &batch {
            if let Delivery::Reading { twin, reading, .. } = d {
                by_twin.entry(twin.as_str()).or_default().push(reading.clone());
            }
        }
        for (twin, readings) in by_twin {
            if !known.exists(&svc, twin).await {
                rejected("unknown_twin", readings.len() as u64);
                continue;
            }
            if !store_lenient(&svc, twin, readings, &stop).await {
                // Stopping with readings not stored: left unacknowledged, the broker sends
                // them again to the next session.
                return;
            }
        }
        for d in &batch {
            let p = match d {
                Delivery::Reading { ack, .. } => ack,
                Delivery::Skipped(p) => p,
            };
            if let Err(e) = client.ack(p).await {
                tracing::warn!(error = %e, "MQTT acknowledgement not sent; the broker will send the message again");
            }
        }
    }
}

/// Stores the readings that can be stored, leaving out (and counting) the others; a store that
/// fails is tried again until it works or the server stops (false then).
async fn store_lenient(svc: &TwinService, twin: &str, mut readings: Vec<Incoming>, stop: &CancellationToken) -> bool {
    let mut wait = Duration::from_millis(100);
    loop {
        let n = readings.len() as u64;
        match svc.ingest_checked(twin, readings.clone()).await {
            Ok(_) => {
                metrics::counter!("meridian_twin_mqtt_messages_total", "outcome" => "stored").increment(n);
                return true;
            }
            Err(Error::Domain(DomainError::Invalid(errors))) => {
                let bad: std::collections::HashSet<String> =
                    errors.iter().filter_map(|e| e.pointer.rsplit_once('/').map(|(p, _)| p.to_owned())).collect();
                tracing::debug!(twin, rejected = bad.len(), first = ?errors.first(), "MQTT readings refused");
                readings.retain(|r| !bad.contains(&r.pointer));
                rejected("invalid", n - readings.len() as u64);
                if readings.is_empty() {
                    return true;
                }
                if bad.is_empty() {
                    rejected("invalid", readings.len() as u64);
                    return true;
                }
            }
            Err(Error::Domain(e)) => {
                tracing::debug!(twin, error = %e, "MQTT readings refused");
                rejected("invalid", n);
                return true;
            }
            Err(e) => {
                tracing::warn!(twin, error = %e, retry_in = ?wait, "storing MQTT readings failed; trying again");
                metrics::counter!("meridian_twin_mqtt_store_retries_total").increment(1);
                tokio::select! {
                    () = stop.cancelled() => return false,
                    () = tokio::time::sleep(wait) => {}
                }
                wait = (wait * 2).min(Duration::from_secs(5));
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
