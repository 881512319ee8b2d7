//! Digital twins: twins, sensors, readings, kept builds, and the source features as of an
//! instant (read from the feature tables and their history).
//!
//! Writes that read before they decide lock what they read:
//! - a twin's version check locks its row (`FOR UPDATE`);
//! - every write under a twin (sensors, readings, builds) holds the twin's advisory lock shared,
//!   and deleting the twin holds it exclusively, so that a deletion takes along everything
//!   written under the twin before it and nothing is written under it meanwhile;
//! - a sensor's readings are written under the sensor's advisory lock, so that a reading the
//!   server stamps takes an instant no concurrent writer is taking;
//! - the sensor cap is counted under the twin's sensor-list lock;
//! - pruning builds holds the twin's build-list lock and locks the builds before it ranks them.

use crate::error::{db, is_unique_violation};
use crate::PgDb;
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::id::AccountId;
use meridian_core::page::Page;
use meridian_core::problem::code;
use meridian_core::{DomainError, Timestamp};
use meridian_store::repo::TwinRepo;
use meridian_store::twin::{
    BucketRow, BuildRow, Downsample, FeatureAsOf, NewReading, ReadingRow, SensorRow, StoredReadings, TwinRow,
};
use meridian_store::{Result, StoreError};
use serde_json::{Map, Value};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};
use std::collections::{BTreeMap, BTreeSet, HashMap};

const COLUMNS: &str = "account_id, id, status, body, clock, version, created_at, updated_at";
const SENSOR_COLUMNS: &str = "twin_id, id, account_id, feature_id, body, created_at";
const BUILD_COLUMNS: &str = "twin_id, stamp, summary, created_at";

/// How many taken instants a stamped reading's search reads at a time.
const TAKEN_PAGE: i64 = 1_000;

fn twin_of(row: &PgRow) -> Result<TwinRow> {
    let body: String = row.try_get("body").map_err(db)?;
    let clock: String = row.try_get("clock").map_err(db)?;
    Ok(TwinRow {
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        id: row.try_get("id").map_err(db)?,
        status: row.try_get("status").map_err(db)?,
        body: serde_json::from_str(&body)?,
        clock: serde_json::from_str(&clock)?,
        version: row.try_get("version").map_err(db)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
    })
}

fn sensor_of(row: &PgRow) -> Result<SensorRow> {
    let body: String = row.try_get("body").map_err(db)?;
    Ok(SensorRow {
        twin_id: row.try_get("twin_id").map_err(db)?,
        id: row.try_get("id").map_err(db)?,
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        feature_id: row.try_get("feature_id").map_err(db)?,
        body: serde_json::from_str(&body)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
    })
}

fn reading_of(row: &PgRow) -> Result<ReadingRow> {
    Ok(ReadingRow {
        sensor_id: row.try_get("sensor_id").map_err(db)?,
        ts: row.try_get("ts").map_err(db)?,
        value: row.try_get("value").map_err(db)?,
    })
}

fn build_of(row: &PgRow) -> Result<BuildRow> {
    let summary: String = row.try_get("summary").map_err(db)?;
    Ok(BuildRow {
        twin_id: row.try_get("twin_id").map_err(db)?,
        stamp: row.try_get("stamp").map_err(db)?,
        summary: serde_json::from_str(&summary)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
    })
}

fn properties(text: &str) -> Result<Map<String, Value>> {
    match serde_json::from_str(text)? {
        Value::Object(m) => Ok(m),
        _ => Err(StoreError::Corrupt("feature properties are not an object".into())),
    }
}

fn feature_of(row: &PgRow) -> Result<FeatureAsOf> {
    let geometry: Option<String> = row.try_get("geometry").map_err(db)?;
    Ok(FeatureAsOf {
        id: row.try_get("id").map_err(db)?,
        geometry: geometry.map(|g| serde_json::from_str(&g)).transpose()?,
        properties: properties(&row.try_get::<String, _>("properties").map_err(db)?)?,
        version: row.try_get("version").map_err(db)?,
        valid_from: Timestamp::from_millis(row.try_get("valid_from").map_err(db)?),
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
    })
}

/// The name of a twin's advisory lock.
fn twin_lock_name(twin: &str) -> String {
    format!("twin:{twin}")
}

/// The name of a sensor's advisory lock (twin ids never hold a `/`).
fn sensor_lock_name(twin: &str, sensor: &str) -> String {
    format!("twin-sensor:{twin}/{sensor}")
}

/// Holds the twin's lock shared until the transaction ends: a write under the twin.
async fn share_twin(conn: &mut PgConnection, twin: &str) -> Result<()> {
    sqlx::query("SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))")
        .bind(twin_lock_name(twin))
        .execute(&mut *conn)
        .await
        .map_err(db)?;
    Ok(())
}

/// Locks the twin's sensors until the transaction ends, in the order of their lock keys (so
/// that two writers never wait for each other in a circle).
async fn lock_sensors<'a>(conn: &mut PgConnection, twin: &str, sensors: impl Iterator<Item = &'a str>) -> Result<()> {
    let names: Vec<String> = sensors.map(|s| sensor_lock_name(twin, s)).collect();
    if names.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "SELECT pg_advisory_xact_lock(k)
         FROM (SELECT DISTINCT hashtextextended(n, 0) AS k FROM unnest($1::text[]) AS n ORDER BY k) s",
    )
    .bind(&names)
    .execute(&mut *conn)
    .await
    .map_err(db)?;
    Ok(())
}

/// Only a twin's own account may change it; the version check is `If-Match`. The row stays
/// locked until the transaction ends.
async fn current_version(
    conn: &mut PgConnection,
    account: &AccountId,
    id: &str,
    expected: Option<i64>,
) -> Result<Option<i64>> {
    let version: Option<i64> =
        sqlx::query_scalar("SELECT version FROM twins WHERE account_id = $1 AND id = $2 FOR UPDATE")
            .bind(account.as_str())
            .bind(id)
            .fetch_optional(&mut *conn)
            .await
            .map_err(db)?;
    if let (Some(v), Some(e)) = (version, expected) {
        if v != e {
            return Err(DomainError::PreconditionFailed(format!("twin {id} is at version {v}")).into());
        }
    }
    Ok(version)
}

/// The instants a sensor already has that stamped readings starting at `from` and ending
/// at `last` (`count` of them) could meet, in order: every instant taken within their reach
/// pushes the reach one further.
async fn taken_instants(
    conn: &mut PgConnection,
    twin: &str,
    sensor: &str,
    from: i64,
    last: i64,
    count: usize,
) -> Result<Vec<i64>> {
    let mut reach = last.saturating_add(i64::try_from(count).unwrap_or(i64::MAX));
    let mut found = Vec::new();
    let mut cursor = from;
    loop {
        let bound = reach;
        let page: Vec<i64> = sqlx::query_scalar(
            "SELECT ts FROM twin_readings WHERE twin_id = $1 AND sensor_id = $2 AND ts >= $3 AND ts <= $4
             ORDER BY ts LIMIT $5",
        )
        .bind(twin)
        .bind(sensor)
        .bind(cursor)
        .bind(bound)
        .bind(TAKEN_PAGE)
        .fetch_all(&mut *conn)
        .await
        .map_err(db)?;
        let full = page.len() as i64 == TAKEN_PAGE;
        let Some(&end) = page.last() else {
            break;
        };
        reach = reach.saturating_add(page.len() as i64);
        found.extend(page);
        if end == i64::MAX {
            break;
        }
        if full {
            cursor = end + 1;
        } else if reach > bound && bound < i64::MAX {
            // Every instant up to `bound` is read; the reach grew past it.
            cursor = bound + 1;
        } else {
            break;
        }
    }
    Ok(found)
}

#[async_trait]
impl TwinRepo for PgDb {
    async fn insert_twin(&self, r: &TwinRow, events: &[NewEvent]) -> Result<()> {
        let mut tx = self.write().await?;
        sqlx::query(&format!("INSERT INTO twins ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"))
            .bind(r.account_id.as_str())
            .bind(&r.id)
            .bind(&r.status)
            .bind(r.body.to_string())
            .bind(r.clock.to_string())
            .bind(r.version)
            .bind(r.created_at.millis())
            .bind(r.updated_at.millis())
            .execute(&mut *tx)
            .await
            .map_err(|e| crate::error::taken(e, "twin", &r.id))?;
        self.commit_with_events(tx, events).await?;
        Ok(())
    }

    async fn get_twin(&self, account: &AccountId, id: &str) -> Result<Option<TwinRow>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM twins WHERE account_id = $1 AND id = $2"))
            .bind(account.as_str())
            .bind(id)
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(twin_of).transpose()
    }

    async fn find_twin(&self, id: &str) -> Result<Option<TwinRow>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM twins WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(twin_of).transpose()
    }

    async fn list_twins(&self, account: &AccountId, page: Page) -> Result<(Vec<TwinRow>, u64)> {
        let anchor: Option<(i64, String)> = self
            .anchor("SELECT created_at, id FROM twins WHERE account_id = $1 AND id = $2", account.as_str(), &page)
            .await?;
        let (a_time, a_id) = anchor.clone().map_or((None, None), |(t, i)| (Some(t), Some(i)));
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM twins WHERE account_id = $1
             AND ($4::bigint IS NULL OR (created_at, id) < ($4, $5::text))
             ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
        ))
        .bind(account.as_str())
        .bind(i64::from(page.limit))
        .bind(page.skip(anchor.is_some()))
        .bind(a_time)
        .bind(a_id)
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        let total: i64 = sqlx::query_scalar("SELECT count(*) FROM twins WHERE account_id = $1")
            .bind(account.as_str())
            .fetch_one(self.read())
            .await
            .map_err(db)?;
        let found = rows.iter().map(twin_of).collect::<Result<Vec<_>>>()?;
        Ok((found, u64::try_from(total).unwrap_or(0)))
    }

    async fn twin_ids(&self) -> Result<Vec<String>> {
        sqlx::query_scalar("SELECT id FROM twins ORDER BY id").fetch_all(self.read()).await.map_err(db)
    }

    async fn update_twin(
        &self,
        account: &AccountId,
        id: &str,
        status: &str,
        body: &Value,
        expected: Option<i64>,
        events: &[NewEvent],
    ) -> Result<TwinRow> {
        let mut tx = self.write().await?;
        if current_version(&mut tx, account, id, expected).await?.is_none() {
            return Err(DomainError::not_found("twin", id).into());
        }
        let row = sqlx::query(&format!(
            "UPDATE twins SET status = $1, body = $2, version = version + 1, updated_at = $3
             WHERE account_id = $4 AND id = $5 RETURNING {COLUMNS}"
        ))
        .bind(status)
        .bind(body.to_string())
        .bind(Timestamp::now().millis())
        .bind(account.as_str())
        .bind(id)
        .fetch_one(&mut *tx)
        .await
        .map_err(db)?;
        let updated = twin_of(&row)?;
        self.commit_with_events(tx, events).await?;
        Ok(updated)
    }

    async fn set_twin_clock(&self, account: &AccountId, id: &str, clock: &Value) -> Result<TwinRow> {
        let row =
            sqlx::query(&format!("UPDATE twins SET clock = $1 WHERE account_id = $2 AND id = $3 RETURNING {COLUMNS}"))
                .bind(clock.to_string())
                .bind(account.as_str())
                .bind(id)
                .fetch_optional(self.read())
                .await
                .map_err(db)?;
        let Some(row) = row else { return Err(DomainError::not_found("twin", id).into()) };
        twin_of(&row)
    }

    async fn delete_twin(
        &self,
        account: &AccountId,
        id: &str,
        expected: Option<i64>,
        events: &[NewEvent],
    ) -> Result<bool> {
        let mut tx = self.write().await?;
        // Waits for the writes under the twin in flight, and holds off new ones until the end.
        crate::lock(&mut tx, &twin_lock_name(id)).await?;
        if current_version(&mut tx, account, id, expected).await?.is_none() {
            return Ok(false);
        }
        for sql in [
            "DELETE FROM twin_readings WHERE twin_id = $1",
            "DELETE FROM twin_sensors WHERE twin_id = $1",
            "DELETE FROM twin_builds WHERE twin_id = $1",
        ] {
            sqlx::query(sql).bind(id).execute(&mut *tx).await.map_err(db)?;
        }
        sqlx::query("DELETE FROM twins WHERE account_id = $1 AND id = $2")
            .bind(account.as_str())
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        self.commit_with_events(tx, events).await?;
        Ok(true)
    }

    async fn insert_sensor(&self, r: &SensorRow, max: u32) -> Result<()> {
        let mut tx = self.write().await?;
        share_twin(&mut tx, &r.twin_id).await?;
        // The count and the insert under one lock of the twin's sensor list: two sensors added
        // at once never both take the last place.
        crate::lock(&mut tx, &format!("twin-sensors:{}", r.twin_id)).await?;
        let count: i64 = sqlx::query_scalar("SELECT count(*) FROM twin_sensors WHERE twin_id = $1")
            .bind(&r.twin_id)
            .fetch_one(&mut *tx)
            .await
            .map_err(db)?;
        if count >= i64::from(max) {
            return Err(DomainError::TooLarge(format!(
                "the twin has {count} sensors, the most it may have (twin.max_sensors)"
            ))
            .into());
        }
        let inserted =
            sqlx::query(&format!("INSERT INTO twin_sensors ({SENSOR_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)"))
                .bind(&r.twin_id)
                .bind(&r.id)
                .bind(r.account_id.as_str())
                .bind(&r.feature_id)
                .bind(r.body.to_string())
                .bind(r.created_at.millis())
                .execute(&mut *tx)
                .await;
        match inserted {
            Ok(_) => {}
            Err(e) if is_unique_violation(&e) => {
                return Err(DomainError::Conflict {
                    code: code::SENSOR_EXISTS,
                    detail: format!("the twin already has a sensor {}", r.id),
                }
                .into())
            }
            Err(e) => return Err(db(e)),
        }
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn list_sensors(&self, twin: &str) -> Result<Vec<SensorRow>> {
        let rows = sqlx::query(&format!("SELECT {SENSOR_COLUMNS} FROM twin_sensors WHERE twin_id = $1 ORDER BY id"))
            .bind(twin)
            .fetch_all(self.read())
            .await
            .map_err(db)?;
        rows.iter().map(sensor_of).collect()
    }

    async fn get_sensor(&self, twin: &str, id: &str) -> Result<Option<SensorRow>> {
        let row = sqlx::query(&format!("SELECT {SENSOR_COLUMNS} FROM twin_sensors WHERE twin_id = $1 AND id = $2"))
            .bind(twin)
            .bind(id)
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(sensor_of).transpose()
    }

    async fn feature_sensors(&self, twin: &str, feature: &str) -> Result<Vec<SensorRow>> {
        let rows = sqlx::query(&format!(
            "SELECT {SENSOR_COLUMNS} FROM twin_sensors WHERE twin_id = $1 AND feature_id = $2 ORDER BY id"
        ))
        .bind(twin)
        .bind(feature)
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter().map(sensor_of).collect()
    }

    async fn delete_sensor(&self, twin: &str, id: &str) -> Result<bool> {
        let mut tx = self.write().await?;
        share_twin(&mut tx, twin).await?;
        // Readings being written for the sensor commit first, and go with it.
        lock_sensors(&mut tx, twin, std::iter::once(id)).await?;
        let gone = sqlx::query("DELETE FROM twin_sensors WHERE twin_id = $1 AND id = $2")
            .bind(twin)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?
            .rows_affected();
        sqlx::query("DELETE FROM twin_readings WHERE twin_id = $1 AND sensor_id = $2")
            .bind(twin)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(gone > 0)
    }

    async fn insert_readings(&self, twin: &str, readings: Vec<NewReading>) -> Result<StoredReadings> {
        if readings.is_empty() {
            return Ok(StoredReadings::default());
        }
        let mut tx = self.write().await?;
        share_twin(&mut tx, twin).await?;
        // Every sensor the batch writes, locked: its instants are decided here alone.
        let sensors: BTreeSet<&str> = readings.iter().map(|r| r.row.sensor_id.as_str()).collect();
        lock_sensors(&mut tx, twin, sensors.into_iter()).await?;

        let (stamped, chosen): (Vec<(usize, NewReading)>, Vec<(usize, NewReading)>) =
            readings.into_iter().enumerate().partition(|(_, r)| r.stamped);
        let mut out: Vec<(usize, ReadingRow)> = Vec::with_capacity(stamped.len() + chosen.len());
        let mut replaced = 0;

        // Instants the client chose: count those the sensors already have, then write them all
        // (the last of a batch's readings at one instant wins) in one statement.
        if !chosen.is_empty() {
            let mut last: HashMap<(&str, i64), &str> = HashMap::with_capacity(chosen.len());
            let mut keys: Vec<(&str, i64)> = Vec::with_capacity(chosen.len());
            for (_, r) in &chosen {
                let key = (r.row.sensor_id.as_str(), r.row.ts);
                if last.insert(key, r.row.value.as_str()).is_none() {
                    keys.push(key);
                }
            }
            let sensor_ids: Vec<&str> = keys.iter().map(|(s, _)| *s).collect();
            let instants: Vec<i64> = keys.iter().map(|(_, t)| *t).collect();
            let values: Vec<&str> = keys.iter().map(|k| last[k]).collect();
            let taken: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM twin_readings r
                 JOIN unnest($2::text[], $3::bigint[]) AS u(sensor_id, ts) ON r.sensor_id = u.sensor_id AND r.ts = u.ts
                 WHERE r.twin_id = $1",
            )
            .bind(twin)
            .bind(&sensor_ids)
            .bind(&instants)
            .fetch_one(&mut *tx)
            .await
            .map_err(db)?;
            replaced = u64::try_from(taken).unwrap_or(0);
            sqlx::query(
                "INSERT INTO twin_readings (twin_id, sensor_id, ts, value)
                 SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::text[])
                 ON CONFLICT (twin_id, sensor_id, ts) DO UPDATE SET value = excluded.value",
            )
            .bind(twin)
            .bind(&sensor_ids)
            .bind(&instants)
            .bind(&values)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        }
        out.extend(chosen.into_iter().map(|(i, r)| (i, r.row)));

        // Stamped readings, per sensor in order: each takes the first instant at or after its own
        // that the sensor has free, so that two readings stamped in the same millisecond (or a
        // stamp that meets a client's instant) both stay.
        if !stamped.is_empty() {
            let mut by_sensor: BTreeMap<String, Vec<(usize, ReadingRow)>> = BTreeMap::new();
            for (i, r) in stamped {
                by_sensor.entry(r.row.sensor_id.clone()).or_default().push((i, r.row));
            }
            let mut rows: Vec<(usize, ReadingRow)> = Vec::new();
            for (sensor, mut mine) in by_sensor {
                mine.sort_by_key(|(i, r)| (r.ts, *i));
                let (from, last) = (mine[0].1.ts, mine[mine.len() - 1].1.ts);
                let taken = taken_instants(&mut tx, twin, &sensor, from, last, mine.len()).await?;
                let mut taken = taken.into_iter().peekable();
                let mut next = i64::MIN;
                for (_, r) in &mut mine {
                    let mut ts = r.ts.max(next);
                    while let Some(&t) = taken.peek() {
                        if t < ts {
                            taken.next();
                        } else if t == ts {
                            taken.next();
                            ts = ts.saturating_add(1);
                        } else {
                            break;
                        }
                    }
                    r.ts = ts;
                    next = ts.saturating_add(1);
                }
                rows.extend(mine);
            }
            let sensor_ids: Vec<&str> = rows.iter().map(|(_, r)| r.sensor_id.as_str()).collect();
            let instants: Vec<i64> = rows.iter().map(|(_, r)| r.ts).collect();
            let values: Vec<&str> = rows.iter().map(|(_, r)| r.value.as_str()).collect();
            sqlx::query(
                "INSERT INTO twin_readings (twin_id, sensor_id, ts, value)
                 SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::text[])",
            )
            .bind(twin)
            .bind(&sensor_ids)
            .bind(&instants)
            .bind(&values)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
            out.extend(rows);
        }
        tx.commit().await.map_err(db)?;
        out.sort_by_key(|(i, _)| *i);
        Ok(StoredReadings { rows: out.into_iter().map(|(_, r)| r).collect(), replaced })
    }

    async fn readings(&self, twin: &str, sensor: &str, from: i64, to: i64, limit: u32) -> Result<Vec<ReadingRow>> {
        let rows = sqlx::query(
            "SELECT sensor_id, ts, value FROM twin_readings
             WHERE twin_id = $1 AND sensor_id = $2 AND ts >= $3 AND ts <= $4 ORDER BY ts LIMIT $5",
        )
        .bind(twin)
        .bind(sensor)
        .bind(from)
        .bind(to)
        .bind(i64::from(limit))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter().map(reading_of).collect()
    }

    async fn readings_between(
        &self,
        twin: &str,
        after: i64,
        to: i64,
        limit: u32,
        descending: bool,
    ) -> Result<Vec<ReadingRow>> {
        let order = if descending { "ts DESC, sensor_id DESC" } else { "ts, sensor_id" };
        let rows = sqlx::query(&format!(
            "SELECT sensor_id, ts, value FROM twin_readings
             WHERE twin_id = $1 AND ts > $2 AND ts <= $3 ORDER BY {order} LIMIT $4"
        ))
        .bind(twin)
        .bind(after)
        .bind(to)
        .bind(i64::from(limit))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter().map(reading_of).collect()
    }

    async fn downsample(&self, twin: &str, sensor: &str, q: &Downsample) -> Result<Vec<BucketRow>> {
        let Downsample { from, to, interval, numeric, limit } = *q;
        // Buckets aligned on the epoch; integer division rounds towards zero, so instants before
        // 1970 are shifted into their bucket.
        let bucket = "(CASE WHEN ts >= 0 THEN ts / $1 ELSE (ts - $1 + 1) / $1 END) * $1";
        let sql = if numeric {
            // A value that is not a JSON number counts as 0, as SQLite's CAST AS REAL reads it.
            format!(
                "SELECT {bucket} AS b, count(*) AS n, min(v) AS lo, max(v) AS hi, avg(v) AS mean, NULL::text AS last
                 FROM (SELECT ts, CASE WHEN value ~ '^-?[0-9]' THEN value::float8 ELSE 0 END AS v
                       FROM twin_readings WHERE twin_id = $2 AND sensor_id = $3 AND ts >= $4 AND ts <= $5) r
                 GROUP BY b ORDER BY b LIMIT $6"
            )
        } else {
            // Each bucket's last value is the one at its latest instant.
            format!(
                "SELECT g.b, g.n, NULL::float8 AS lo, NULL::float8 AS hi, NULL::float8 AS mean, r.value AS last
                 FROM (SELECT {bucket} AS b, count(*) AS n, max(ts) AS t
                       FROM twin_readings WHERE twin_id = $2 AND sensor_id = $3 AND ts >= $4 AND ts <= $5
                       GROUP BY b ORDER BY b LIMIT $6) g
                 JOIN twin_readings r ON r.twin_id = $2 AND r.sensor_id = $3 AND r.ts = g.t
                 ORDER BY g.b"
            )
        };
        let rows = sqlx::query(&sql)
            .bind(interval.max(1))
            .bind(twin)
            .bind(sensor)
            .bind(from)
            .bind(to)
            .bind(i64::from(limit))
            .fetch_all(self.read())
            .await
            .map_err(db)?;
        rows.iter()
            .map(|r| {
                Ok(BucketRow {
                    ts: r.try_get("b").map_err(db)?,
                    count: r.try_get("n").map_err(db)?,
                    min: r.try_get("lo").map_err(db)?,
                    max: r.try_get("hi").map_err(db)?,
                    mean: r.try_get("mean").map_err(db)?,
                    last: r.try_get("last").map_err(db)?,
                })
            })
            .collect()
    }

    async fn latest_readings(&self, twin: &str, at: i64) -> Result<Vec<ReadingRow>> {
        let rows = sqlx::query(
            "SELECT s.id AS sensor_id, r.ts, r.value FROM twin_sensors s
             CROSS JOIN LATERAL (SELECT ts, value FROM twin_readings
                                 WHERE twin_id = s.twin_id AND sensor_id = s.id AND ts <= $1
                                 ORDER BY ts DESC LIMIT 1) r
             WHERE s.twin_id = $2 ORDER BY s.id",
        )
        .bind(at)
        .bind(twin)
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter().map(reading_of).collect()
    }

    async fn purge_readings(&self, twin: &str, before: i64) -> Result<u64> {
        let mut tx = self.write().await?;
        share_twin(&mut tx, twin).await?;
        let n = sqlx::query("DELETE FROM twin_readings WHERE twin_id = $1 AND ts < $2")
            .bind(twin)
            .bind(before)
            .execute(&mut *tx)
            .await
            .map_err(db)?
            .rows_affected();
        tx.commit().await.map_err(db)?;
        Ok(n)
    }

    async fn put_build(&self, r: &BuildRow) -> Result<()> {
        let mut tx = self.write().await?;
        share_twin(&mut tx, &r.twin_id).await?;
        sqlx::query(
            "INSERT INTO twin_builds (twin_id, stamp, summary, created_at, used_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (twin_id, stamp) DO UPDATE SET summary = excluded.summary, used_at = excluded.used_at",
        )
        .bind(&r.twin_id)
        .bind(r.stamp)
        .bind(r.summary.to_string())
        .bind(r.created_at.millis())
        .bind(Timestamp::now().millis())
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn get_build(&self, twin: &str, stamp: i64) -> Result<Option<BuildRow>> {
        // Marked used as it is read, so that pruning keeps the builds clients are fetching.
        let row = sqlx::query(&format!(
            "UPDATE twin_builds SET used_at = $1 WHERE twin_id = $2 AND stamp = $3 RETURNING {BUILD_COLUMNS}"
        ))
        .bind(Timestamp::now().millis())
        .bind(twin)
        .bind(stamp)
        .fetch_optional(self.read())
        .await
        .map_err(db)?;
        row.as_ref().map(build_of).transpose()
    }

    async fn prune_builds(&self, twin: &str, keep: usize) -> Result<Vec<i64>> {
        let mut tx = self.write().await?;
        share_twin(&mut tx, twin).await?;
        // One pruning of the twin's builds at a time: two would each delete rows the other holds.
        crate::lock(&mut tx, &format!("twin-builds:{twin}")).await?;
        // The twin's builds are locked (in stamp order) before their use times are read: a build
        // being marked used is ranked by its new time, or its reader waits and finds it gone.
        sqlx::query("SELECT stamp FROM twin_builds WHERE twin_id = $1 ORDER BY stamp FOR UPDATE")
            .bind(twin)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        let stamps: Vec<i64> = sqlx::query_scalar(
            "SELECT stamp FROM twin_builds WHERE twin_id = $1 ORDER BY used_at DESC, stamp DESC OFFSET $2",
        )
        .bind(twin)
        .bind(i64::try_from(keep).unwrap_or(i64::MAX))
        .fetch_all(&mut *tx)
        .await
        .map_err(db)?;
        if !stamps.is_empty() {
            sqlx::query("DELETE FROM twin_builds WHERE twin_id = $1 AND stamp = ANY($2)")
                .bind(twin)
                .bind(&stamps)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
        }
        tx.commit().await.map_err(db)?;
        Ok(stamps)
    }

    async fn feature_stamp(&self, account: &AccountId, collection: &str, at: i64) -> Result<i64> {
        sqlx::query_scalar(
            "SELECT count(*) FROM features f JOIN feature_versions v ON v.feature_id = f.id
             WHERE f.account_id = $1 AND f.collection = $2 AND v.recorded_at <= $3",
        )
        .bind(account.as_str())
        .bind(collection)
        .bind(at)
        .fetch_one(self.read())
        .await
        .map_err(db)
    }

    async fn features_as_of(
        &self,
        account: &AccountId,
        collection: &str,
        bbox: Option<[f64; 4]>,
        at: Option<i64>,
        limit: u32,
    ) -> Result<Vec<FeatureAsOf>> {
        let rows = match at {
            None => {
                let mut b = sqlx::QueryBuilder::new(
                    "SELECT f.id, f.geometry, f.properties, f.version, f.updated_at AS valid_from, f.created_at
                     FROM features f",
                );
                b.push(" WHERE f.account_id = ")
                    .push_bind(account.as_str())
                    .push(" AND f.collection = ")
                    .push_bind(collection)
                    .push(" AND f.retired_at IS NULL");
                match bbox {
                    // No box compares with NaN.
                    Some(bbox) if bbox.iter().any(|v| v.is_nan()) => {
                        b.push(" AND false");
                    }
                    // The boxes' GiST index gives candidates (its boxes are rounded outward); the
                    // exact box columns decide, as the feature store's own box filter does. A
                    // feature without a geometry has no box and meets none.
                    Some([x0, y0, x1, y1]) => {
                        b.push(" AND f.bbox && ST_MakeEnvelope(")
                            .push_bind(x0)
                            .push(", ")
                            .push_bind(y0)
                            .push(", ")
                            .push_bind(x1)
                            .push(", ")
                            .push_bind(y1)
                            .push(", 4326) AND f.min_x <= ")
                            .push_bind(x1)
                            .push(" AND f.max_x >= ")
                            .push_bind(x0)
                            .push(" AND f.min_y <= ")
                            .push_bind(y1)
                            .push(" AND f.max_y >= ")
                            .push_bind(y0);
                    }
                    None => {}
                }
                b.push(" ORDER BY f.seq LIMIT ").push_bind(i64::from(limit));
                // Planned for the box at hand (unnamed): the index to drive by depends on how
                // much it holds.
                b.build().persistent(false).fetch_all(self.read()).await.map_err(db)?
            }
            // A feature's box in the past is not indexed: the caller tests geometries.
            Some(at) => sqlx::query(
                "SELECT f.id, v.geometry, v.properties, v.version, v.recorded_at AS valid_from, f.created_at
                 FROM features f
                 CROSS JOIN LATERAL (SELECT geometry, properties, version, recorded_at, change FROM feature_versions
                                     WHERE feature_id = f.id AND recorded_at <= $1
                                     ORDER BY version DESC LIMIT 1) v
                 WHERE f.account_id = $2 AND f.collection = $3 AND f.created_at <= $1 AND v.change <> 'retired'
                 ORDER BY f.seq LIMIT $4",
            )
            .bind(at)
            .bind(account.as_str())
            .bind(collection)
            .bind(i64::from(limit))
            .fetch_all(self.read())
            .await
            .map_err(db)?,
        };
        rows.iter().map(feature_of).collect()
    }

    async fn feature_as_of(
        &self,
        account: &AccountId,
        collection: &str,
        id: &str,
        at: i64,
    ) -> Result<Option<FeatureAsOf>> {
        let row = sqlx::query(
            "SELECT f.id, v.geometry, v.properties, v.version, v.recorded_at AS valid_from, f.created_at, v.change
             FROM features f JOIN feature_versions v ON v.feature_id = f.id
             WHERE f.account_id = $1 AND f.collection = $2 AND f.id = $3 AND v.recorded_at <= $4
             ORDER BY v.version DESC LIMIT 1",
        )
        .bind(account.as_str())
        .bind(collection)
        .bind(id)
        .bind(at)
        .fetch_optional(self.read())
        .await
        .map_err(db)?;
        match row {
            Some(r) if r.try_get::<String, _>("change").map_err(db)? != "retired" => Ok(Some(feature_of(&r)?)),
            _ => Ok(None),
        }
    }
}
