//! Sensors of a twin and their readings: declared value types, ingest (HTTP, MQTT) checked
//! all-or-nothing, stored as a time series, published live, read back by time range and
//! downsampled.

use super::clock::rfc3339;
use super::hub::Message;
use super::{twin_not_found, Error, Result, TwinService};
use meridian_core::id::AccountId;
use meridian_core::{DomainError, FieldError, Timestamp};
use meridian_store::twin::{NewReading, ReadingRow, SensorRow};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// How far ahead of the server's clock a reading's instant may be (clock skew).
const MAX_FUTURE_MS: i64 = 5 * 60 * 1000;
/// Deepest nesting of an object value.
const MAX_DEPTH: usize = 8;
/// Largest page of readings or buckets.
pub(crate) const MAX_READINGS: u32 = 10_000;

/// What a sensor's values are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueType {
    #[default]
    Number,
    Boolean,
    String,
    /// A small JSON object.
    Object,
}

/// A sensor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sensor {
    pub id: String,
    pub twin: String,
    pub name: String,
    pub unit: Option<String>,
    #[serde(rename = "type")]
    pub value_type: ValueType,
    /// The asset it is attached to.
    pub feature_id: Option<String>,
    pub created_at: Timestamp,
}

#[derive(Serialize, Deserialize)]
struct SensorBody {
    name: String,
    #[serde(default)]
    unit: Option<String>,
    #[serde(rename = "type", default)]
    value_type: ValueType,
}

impl Sensor {
    pub(crate) fn of_row_pub(r: SensorRow) -> Result<Self> {
        Self::of_row(r)
    }

    fn of_row(r: SensorRow) -> Result<Self> {
        let b: SensorBody = serde_json::from_value(r.body).map_err(|e| Error::Internal(format!("sensor body: {e}")))?;
        Ok(Self {
            id: r.id,
            twin: r.twin_id,
            name: b.name,
            unit: b.unit,
            value_type: b.value_type,
            feature_id: r.feature_id,
            created_at: r.created_at,
        })
    }
}

/// What `POST .../sensors` takes.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewSensor {
    /// Letters, digits, `_ . : -`, 1 to 64 characters; made up when absent.
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub unit: Option<String>,
    #[serde(rename = "type", default)]
    pub value_type: Option<ValueType>,
    /// The asset (a feature of the twin) it is attached to.
    #[serde(default)]
    pub feature_id: Option<String>,
}

/// A reading as answers show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    #[serde(rename = "sensorId")]
    pub sensor_id: String,
    pub value: Value,
    /// RFC 3339 with milliseconds.
    pub ts: String,
}

impl Reading {
    pub(crate) fn of_row(r: &ReadingRow) -> Self {
        Self {
            sensor_id: r.sensor_id.clone(),
            value: serde_json::from_str(&r.value).unwrap_or(Value::Null),
            ts: rfc3339(r.ts),
        }
    }
}

/// One bucket of a downsampled series.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bucket {
    /// The bucket's start.
    pub ts: String,
    pub count: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    /// The bucket's last value (sensors whose values are not numbers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<Value>,
}

/// A time range of a sensor's readings.
#[derive(Clone, Debug, Default)]
pub struct ReadingsQuery {
    /// ms; from the beginning when absent.
    pub from: Option<i64>,
    /// ms; the twin's clock when absent.
    pub to: Option<i64>,
    pub limit: Option<u32>,
    /// Bucket width in ms: downsampled when given.
    pub interval: Option<i64>,
}

/// A page of readings.
#[derive(Clone, Debug)]
pub struct ReadingsPage {
    pub sensor: Sensor,
    pub from: i64,
    pub to: i64,
    pub readings: Vec<Reading>,
    pub buckets: Option<Vec<Bucket>>,
    /// Where the next page starts (ms), when this one is full.
    pub next: Option<i64>,
}

/// A sensor id is safe in a path and an MQTT topic level.
pub fn valid_sensor_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
        && id.as_bytes()[0].is_ascii_alphanumeric()
}

fn depth(v: &Value) -> usize {
    match v {
        Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// A value checked against its sensor's type, as stored JSON text.
pub fn check_value(t: ValueType, v: &Value, max_bytes: usize) -> Result<String, String> {
    let ok = match (t, v) {
        (ValueType::Number, Value::Number(_)) => true,
        (ValueType::Boolean, Value::Bool(_)) => true,
        (ValueType::String, Value::String(_)) => true,
        (ValueType::Object, Value::Object(_)) => depth(v) <= MAX_DEPTH,
        _ => false,
    };
    if !ok {
        let want = match t {
            ValueType::Number => "a number",
            ValueType::Boolean => "a boolean",
            ValueType::String => "a string",
            ValueType::Object => "a JSON object nested at most 8 deep",
        };
        return Err(format!("the sensor's values are {want}"));
    }
    let text = v.to_string();
    if text.len() > max_bytes {
        return Err(format!("a value has at most {max_bytes} bytes encoded (twin.max_value_bytes)"));
    }
    Ok(text)
}

/// An instant from an answer's `ts`: RFC 3339, or milliseconds since the epoch.
pub fn parse_instant(v: &Value) -> Option<i64> {
    match v {
        Value::String(s) => chrono::DateTime::parse_from_rfc3339(s.trim()).ok().map(|d| d.timestamp_millis()),
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
}

/// What ingest stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Ingested {
    /// Readings stored.
    pub accepted: u64,
    /// Of those, how many replaced a reading at the same instant (a `ts` the client sent again).
    pub replaced: u64,
}

/// One reading as sent, before it is checked.
#[derive(Clone, Debug)]
pub struct Incoming {
    /// Where it was in the request, for errors (`/readings/3`).
    pub pointer: String,
    pub sensor: String,
    pub value: Value,
    pub ts: Option<Value>,
}

/// Readings as a request sends them: `{value, ts}` (with a sensor in the path),
/// `{"readings": [...]}` or `[...]`, each an object of `value`, `ts` and `sensorId`; the shape is
/// checked here, the values by [`TwinService::ingest`]. Readings sent as `{value, ts}`, `{"readings": [...]}` or `[...]`, each checked.
pub fn parse_readings(body: Value, sensor: Option<&str>, max: usize) -> Result<Vec<Incoming>> {
    let (list, base) = match body {
        Value::Array(a) => (a, String::new()),
        Value::Object(mut m) if m.contains_key("readings") => match m.remove("readings") {
            Some(Value::Array(a)) if m.is_empty() => (a, "/readings".to_owned()),
            _ => {
                return Err(DomainError::Invalid(vec![FieldError::new(
                    "/readings",
                    "invalid_type",
                    "readings is an array of {value, ts} (and nothing beside it)",
                )])
                .into())
            }
        },
        v @ Value::Object(_) if sensor.is_some() => (vec![v], String::new()),
        _ => {
            return Err(DomainError::Invalid(vec![FieldError::new(
                "",
                "invalid_type",
                "send {\"readings\": [{\"sensorId\", \"value\", \"ts\"}, ...]} or an array of them",
            )])
            .into())
        }
    };
    if list.len() > max {
        return Err(DomainError::TooLarge(format!(
            "{} readings in one request, more than twin.max_batch ({max})",
            list.len()
        ))
        .into());
    }
    let single = base.is_empty() && list.len() == 1 && sensor.is_some();
    let mut out = Vec::with_capacity(list.len());
    let mut errors = Vec::new();
    for (i, item) in list.into_iter().enumerate() {
        let pointer = if single { String::new() } else { format!("{base}/{i}") };
        let Value::Object(mut m) = item else {
            errors.push(FieldError::new(pointer, "invalid_type", "a reading is an object {value, ts}"));
            continue;
        };
        let unknown: Vec<String> =
            m.keys().filter(|k| !matches!(k.as_str(), "value" | "ts" | "sensorId")).cloned().collect();
        if let Some(k) = unknown.first() {
            errors.push(FieldError::new(
                format!("{pointer}/{k}"),
                "unknown_field",
                "a reading has value, ts and sensorId",
            ));
            continue;
        }
        let Some(value) = m.remove("value") else {
            errors.push(FieldError::new(format!("{pointer}/value"), "required", "a reading has a value"));
            continue;
        };
        let sensor_id = match (m.remove("sensorId"), sensor) {
            (Some(Value::String(s)), Some(path)) if s != path => {
                errors.push(FieldError::new(
                    format!("{pointer}/sensorId"),
                    "mismatch",
                    "sensorId differs from the sensor in the path",
                ));
                continue;
            }
            (_, Some(path)) => path.to_owned(),
            (Some(Value::String(s)), None) => s,
            (_, None) => {
                errors.push(FieldError::new(
                    format!("{pointer}/sensorId"),
                    "required",
                    "each reading names its sensorId",
                ));
                continue;
            }
        };
        out.push(Incoming { pointer, sensor: sensor_id, value, ts: m.remove("ts") });
        if errors.len() >= 100 {
            break;
        }
    }
    if !errors.is_empty() {
        return Err(DomainError::Invalid(errors).into());
    }
    Ok(out)
}

impl TwinService {
    async fn twin_exists(&self, account: &AccountId, twin: &str) -> Result<()> {
        self.get(account, twin).await.map(|_| ())
    }

    /// Adds a sensor to a twin.
    pub async fn create_sensor(&self, account: &AccountId, twin: &str, p: NewSensor) -> Result<Sensor> {
        let t = self.get(account, twin).await?;
        let mut errors = Vec::new();
        let id = p.id.clone().unwrap_or_else(|| format!("sensor-{}", ulid::Ulid::new().to_string().to_lowercase()));
        if !valid_sensor_id(&id) {
            errors.push(FieldError::new(
                "/id",
                "invalid_id",
                "a sensor id has 1 to 64 letters, digits, `_`, `.`, `:` or `-`, starting with a letter or digit",
            ));
        }
        if p.name.as_ref().is_some_and(|n| n.chars().count() > 200) {
            errors.push(FieldError::new("/name", "too_long", "a name has at most 200 characters"));
        }
        if p.unit.as_ref().is_some_and(|u| u.chars().count() > 32) {
            errors.push(FieldError::new("/unit", "too_long", "a unit has at most 32 characters"));
        }
        if let Some(f) = &p.feature_id {
            let now = Timestamp::now().millis();
            let found = self.store.twin.feature_as_of(account, &t.collection, f, now).await?;
            let area = t.area_geometry();
            let filter = t.filter_expr();
            if found.is_none_or(|f| super::build::selects(&f, &area, filter.as_ref()).is_none()) {
                errors.push(FieldError::new(
                    "/feature_id",
                    "unknown_feature",
                    format!("the twin has no asset {f} (a feature of {} in its area)", t.collection),
                ));
            }
        }
        if !errors.is_empty() {
            return Err(DomainError::Invalid(errors).into());
        }
        let body = SensorBody {
            name: p.name.unwrap_or_else(|| id.clone()),
            unit: p.unit,
            value_type: p.value_type.unwrap_or_default(),
        };
        let row = SensorRow {
            twin_id: twin.to_owned(),
            id,
            account_id: account.clone(),
            feature_id: p.feature_id,
            body: serde_json::to_value(&body).map_err(|e| Error::Internal(e.to_string()))?,
            created_at: Timestamp::now(),
        };
        self.store.twin.insert_sensor(&row, self.config.max_sensors).await?;
        self.sensor_types.remove(twin);
        self.tell_nodes(account, twin).await;
        Sensor::of_row(row)
    }

    /// The twin's sensors, in id order.
    pub async fn sensors(&self, account: &AccountId, twin: &str) -> Result<Vec<Sensor>> {
        self.twin_exists(account, twin).await?;
        self.store.twin.list_sensors(twin).await?.into_iter().map(Sensor::of_row).collect()
    }

    /// One sensor of the twin.
    pub async fn sensor(&self, account: &AccountId, twin: &str, id: &str) -> Result<Sensor> {
        self.twin_exists(account, twin).await?;
        let row = self.store.twin.get_sensor(twin, id).await?;
        Sensor::of_row(row.ok_or_else(|| Error::Domain(DomainError::not_found("sensor", id)))?)
    }

    /// Deletes a sensor and its readings.
    pub async fn delete_sensor(&self, account: &AccountId, twin: &str, id: &str) -> Result<()> {
        self.twin_exists(account, twin).await?;
        if !self.store.twin.delete_sensor(twin, id).await? {
            return Err(Error::Domain(DomainError::not_found("sensor", id)));
        }
        self.sensor_types.remove(twin);
        self.hub.forget_sensor(twin, id);
        self.tell_nodes(account, twin).await;
        Ok(())
    }

    /// Each sensor's latest reading at or before `at` (ms).
    pub async fn latest(&self, twin: &str, at: i64) -> Result<Vec<Reading>> {
        Ok(self.store.twin.latest_readings(twin, at).await?.iter().map(Reading::of_row).collect())
    }

    /// Ingests readings of a twin of `account`: every one is checked (its sensor exists, its
    /// value has the sensor's type, its instant is not in the future) or none is stored.
    pub async fn ingest(&self, account: &AccountId, twin: &str, readings: Vec<Incoming>) -> Result<Ingested> {
        self.twin_exists(account, twin).await?;
        self.ingest_checked(twin, readings).await
    }

    /// Ingests readings of a twin known to exist (MQTT names only the twin).
    pub(crate) async fn ingest_checked(&self, twin: &str, readings: Vec<Incoming>) -> Result<Ingested> {
        if readings.is_empty() {
            return Ok(Ingested::default());
        }
        if readings.len() > self.config.max_batch {
            return Err(DomainError::TooLarge(format!(
                "{} readings in one request, more than twin.max_batch ({})",
                readings.len(),
                self.config.max_batch
            ))
            .into());
        }
        let cached =
            self.sensor_types.get(twin).filter(|t| t.0.elapsed() < super::SENSOR_TYPES_TTL).map(|t| t.1.clone());
        // A sensor the cache does not know may have been added since: read them all again then.
        let cached = cached.filter(|t| readings.iter().all(|r| t.contains_key(&r.sensor)));
        let sensors = match cached {
            Some(t) => t,
            None => {
                let t: Arc<HashMap<String, ValueType>> = Arc::new(
                    self.store
                        .twin
                        .list_sensors(twin)
                        .await?
                        .into_iter()
                        .filter_map(|r| Sensor::of_row(r).ok())
                        .map(|s| (s.id, s.value_type))
                        .collect(),
                );
                self.sensor_types.insert(twin.to_owned(), (std::time::Instant::now(), t.clone()));
                t
            }
        };
        let now = Timestamp::now().millis();
        let mut errors = Vec::new();
        let mut rows = Vec::with_capacity(readings.len());
        for r in readings {
            let Some(t) = sensors.get(&r.sensor) else {
                errors.push(FieldError::new(
                    format!("{}/sensorId", r.pointer),
                    "unknown_sensor",
                    format!("the twin has no sensor {}", r.sensor),
                ));
                continue;
            };
            let (ts, stamped) = match &r.ts {
                None | Some(Value::Null) => (now, true),
                Some(v) => match parse_instant(v) {
                    Some(ts) if ts <= now + MAX_FUTURE_MS && ts >= -62_135_596_800_000 => (ts, false),
                    Some(_) => {
                        errors.push(FieldError::new(
                            format!("{}/ts", r.pointer),
                            "out_of_range",
                            "a reading's instant is at most 5 minutes ahead of the server's clock, and after year 1",
                        ));
                        continue;
                    }
                    None => {
                        errors.push(FieldError::new(
                            format!("{}/ts", r.pointer),
                            "invalid_time",
                            "ts is an RFC 3339 instant (or milliseconds since 1970)",
                        ));
                        continue;
                    }
                },
            };
            match check_value(*t, &r.value, self.config.max_value_bytes) {
                Ok(value) => rows.push(NewReading { row: ReadingRow { sensor_id: r.sensor, ts, value }, stamped }),
                Err(detail) => errors.push(FieldError::new(format!("{}/value", r.pointer), "invalid_value", detail)),
            }
            if errors.len() >= 100 {
                break;
            }
        }
        if !errors.is_empty() {
            return Err(DomainError::Invalid(errors).into());
        }
        // Stored and published under the twin's turn: readings stamped in one order are
        // published in that order, so live clients see every one of them.
        let turn = &self.ingest_order[stripe(twin, self.ingest_order.len())];
        let _turn = turn.lock().await;
        let stored = self.store.twin.insert_readings(twin, rows).await?;
        let accepted = stored.rows.len() as u64;
        metrics::counter!("meridian_twin_readings_total").increment(accepted);
        self.publish(twin, &stored.rows).await;
        Ok(Ingested { accepted, replaced: stored.replaced })
    }

    /// Sends stored readings to the twin's live subscribers, serialised once, and to the other
    /// nodes' (whose sockets get them when they hear them; a failure to tell them costs their
    /// sockets these live readings, never the stored ones).
    async fn publish(&self, twin: &str, rows: &[ReadingRow]) {
        let mut sorted: Vec<&ReadingRow> = rows.iter().collect();
        sorted.sort_by_key(|r| r.ts);
        self.hub.publish(
            twin,
            sorted.iter().map(|r| Message::Reading {
                sensor: Arc::from(r.sensor_id.as_str()),
                ts: r.ts,
                text: bytes::Bytes::from(reading_text(&r.sensor_id, r.ts, &r.value)),
            }),
        );
        let notices = &self.store.notices;
        if notices.shared() && !sorted.is_empty() {
            if let Err(e) = notices.publish_all(&super::relay::notices(notices.node(), twin, &sorted)).await {
                metrics::counter!("meridian_twin_relay_failures_total").increment(1);
                tracing::warn!(error = %e, twin, "sending live readings to the other nodes failed");
            }
        }
    }

    /// A sensor's readings in a time range, downsampled when asked.
    pub async fn readings(
        &self,
        account: &AccountId,
        twin: &str,
        sensor: &str,
        q: ReadingsQuery,
    ) -> Result<ReadingsPage> {
        let t = self.get(account, twin).await?;
        let s = Sensor::of_row(
            self.store
                .twin
                .get_sensor(twin, sensor)
                .await?
                .ok_or_else(|| Error::Domain(DomainError::not_found("sensor", sensor)))?,
        )?;
        let to = q.to.unwrap_or_else(|| t.clock.now());
        let from = q.from.unwrap_or(i64::MIN);
        let limit = q.limit.unwrap_or(1000).clamp(1, MAX_READINGS);
        if from > to {
            return Err(DomainError::Invalid(vec![FieldError::new("/from", "out_of_range", "from is after to")]).into());
        }
        match q.interval {
            Some(i) => {
                let numeric = s.value_type == ValueType::Number;
                let q = meridian_store::twin::Downsample { from, to, interval: i, numeric, limit };
                let rows = self.store.twin.downsample(twin, sensor, &q).await?;
                let next = (rows.len() == limit as usize).then(|| rows.last().map(|b| b.ts + i)).flatten();
                let buckets = rows
                    .into_iter()
                    .map(|b| Bucket {
                        ts: rfc3339(b.ts),
                        count: b.count,
                        min: b.min,
                        max: b.max,
                        mean: b.mean,
                        last: b.last.and_then(|l| serde_json::from_str(&l).ok()),
                    })
                    .collect();
                Ok(ReadingsPage { sensor: s, from, to, readings: Vec::new(), buckets: Some(buckets), next })
            }
            None => {
                let rows = self.store.twin.readings(twin, sensor, from, to, limit).await?;
                let next = (rows.len() == limit as usize).then(|| rows.last().map(|r| r.ts + 1)).flatten();
                let readings = rows.iter().map(Reading::of_row).collect();
                Ok(ReadingsPage { sensor: s, from, to, readings, buckets: None, next })
            }
        }
    }

    /// Removes readings older than the retention from every twin; returns how many.
    pub async fn purge_expired(&self) -> Result<u64> {
        if self.config.retention.is_zero() {
            return Ok(0);
        }
        let before = Timestamp::now().millis() - i64::try_from(self.config.retention.as_millis()).unwrap_or(i64::MAX);
        let mut n = 0;
        for twin in self.store.twin.twin_ids().await? {
            n += self.store.twin.purge_readings(&twin, before).await?;
        }
        Ok(n)
    }

    /// Looks a twin up by id alone (MQTT topics name no account).
    pub(crate) async fn twin_by_id(&self, id: &str) -> Result<String> {
        match self.store.twin.find_twin(id).await? {
            Some(row) => Ok(row.id),
            None => Err(twin_not_found(id)),
        }
    }
}

/// Which of `n` stripes a twin's id falls in.
fn stripe(twin: &str, n: usize) -> usize {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    twin.hash(&mut h);
    (h.finish() % n.max(1) as u64) as usize
}

/// The interface's message for a reading: `{"sensorId", "value", "ts"}`.
pub(crate) fn reading_text(sensor: &str, ts: i64, value: &str) -> String {
    let mut s = String::with_capacity(48 + sensor.len() + value.len());
    s.push_str("{\"sensorId\":");
    s.push_str(&Value::String(sensor.to_owned()).to_string());
    s.push_str(",\"value\":");
    s.push_str(value);
    s.push_str(",\"ts\":\"");
    s.push_str(&rfc3339(ts));
    s.push_str("\"}");
    s
}

/// A sensor as answers show it, with its latest reading.
pub fn sensor_json(s: &Sensor, latest: Option<&Reading>) -> Value {
    json!({
        "id": s.id,
        "twin": s.twin,
        "name": s.name,
        "unit": s.unit,
        "type": s.value_type,
        "feature_id": s.feature_id,
        "latest": latest.map(|r| json!({ "value": r.value, "ts": r.ts })),
        "created_at": s.created_at,
    })
}
