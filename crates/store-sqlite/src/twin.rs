use super::SqliteDb;
use crate::error::db;
use crate::error::is_unique_violation;
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
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

const COLUMNS: &str = "account_id, id, status, body, clock, version, created_at, updated_at";

fn twin_of(row: &SqliteRow) -> Result<TwinRow> {
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

fn sensor_of(row: &SqliteRow) -> Result<SensorRow> {
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

fn reading_of(row: &SqliteRow) -> Result<ReadingRow> {
    Ok(ReadingRow {
        sensor_id: row.try_get("sensor_id").map_err(db)?,
        ts: row.try_get("ts").map_err(db)?,
        value: row.try_get("value").map_err(db)?,
    })
}

fn build_of(row: &SqliteRow) -> Result<BuildRow> {
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

fn feature_of(row: &SqliteRow) -> Result<FeatureAsOf> {
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

/// Only a twin's own account may change it; the version check is `If-Match`.
async fn current_version(
    conn: &mut sqlx::SqliteConnection,
    account: &AccountId,
    id: &str,
    expected: Option<i64>,
) -> Result<Option<i64>> {
    let version: Option<i64> = sqlx::query_scalar("SELECT version FROM twins WHERE account_id = ? AND id = ?")
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

#[async_trait]
impl TwinRepo for SqliteDb {
    async fn insert_twin(&self, r: &TwinRow, events: &[NewEvent]) -> Result<()> {
        let mut tx = self.write().await?;
        sqlx::query(&format!("INSERT INTO twins ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"))
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
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM twins WHERE account_id = ? AND id = ?"))
            .bind(account.as_str())
            .bind(id)
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(twin_of).transpose()
    }

    async fn find_twin(&self, id: &str) -> Result<Option<TwinRow>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM twins WHERE id = ?"))
            .bind(id)
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(twin_of).transpose()
    }

    async fn list_twins(&self, account: &AccountId, page: Page) -> Result<(Vec<TwinRow>, u64)> {
        let anchor: Option<(i64, String)> = self
            .anchor("SELECT created_at, id FROM twins WHERE account_id = ? AND id = ?", account.as_str(), &page)
            .await?;
        let (a_time, a_id) = anchor.clone().map_or((None, None), |(t, i)| (Some(t), Some(i)));
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM twins WHERE account_id = ?1 AND (?4 IS NULL OR (created_at, id) < (?4, ?5))
             ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET ?3"
        ))
        .bind(account.as_str())
        .bind(i64::from(page.limit))
        .bind(page.skip(anchor.is_some()))
        .bind(a_time)
        .bind(a_id)
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        let total: i64 = sqlx::query_scalar("SELECT count(*) FROM twins WHERE account_id = ?")
            .bind(account.as_str())
            .fetch_one(self.read())
            .await
            .map_err(db)?;
        let found = rows.iter().map(twin_of).collect::<Result<Vec<_>>>()?;
        Ok((found, u64::try_from(total).unwrap_or(0)))
    }

    async fn twin_ids(&self) -> Result<Vec<String>> {
        Ok(sqlx::query_scalar("SELECT id FROM twins ORDER BY id").fetch_all(self.read()).await.map_err(db)?)
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
            "UPDATE twins SET status = ?, body = ?, version = version + 1, updated_at = ?
             WHERE account_id = ? AND id = ? RETURNING {COLUMNS}"
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
        let mut tx = self.write().await?;
        let row =
            sqlx::query(&format!("UPDATE twins SET clock = ? WHERE account_id = ? AND id = ? RETURNING {COLUMNS}"))
                .bind(clock.to_string())
                .bind(account.as_str())
                .bind(id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db)?;
        let Some(row) = row else { return Err(DomainError::not_found("twin", id).into()) };
        let updated = twin_of(&row)?;
        tx.commit().await.map_err(db)?;
        Ok(updated)
    }

    async fn delete_twin(
        &self,
        account: &AccountId,
        id: &str,
        expected: Option<i64>,
        events: &[NewEvent],
    ) -> Result<bool> {
        let mut tx = self.write().await?;
        if current_version(&mut tx, account, id, expected).await?.is_none() {
            return Ok(false);
        }
        for sql in [
            "DELETE FROM twin_readings WHERE twin_id = ?",
            "DELETE FROM twin_sensors WHERE twin_id = ?",
            "DELETE FROM twin_builds WHERE twin_id = ?",
        ] {
            sqlx::query(sql).bind(id).execute(&mut *tx).await.map_err(db)?;
        }
        sqlx::query("DELETE FROM twins WHERE account_id = ? AND id = ?")
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
        let count: i64 = sqlx::query_scalar("SELECT count(*) FROM twin_sensors WHERE twin_id = ?")
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
        let inserted = sqlx::query(
            "INSERT INTO twin_sensors (twin_id, id, account_id, feature_id, body, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
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
        let rows = sqlx::query("SELECT * FROM twin_sensors WHERE twin_id = ? ORDER BY id")
            .bind(twin)
            .fetch_all(self.read())
            .await
            .map_err(db)?;
        rows.iter().map(sensor_of).collect()
    }

    async fn get_sensor(&self, twin: &str, id: &str) -> Result<Option<SensorRow>> {
        let row = sqlx::query("SELECT * FROM twin_sensors WHERE twin_id = ? AND id = ?")
            .bind(twin)
            .bind(id)
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(sensor_of).transpose()
    }

    async fn feature_sensors(&self, twin: &str, feature: &str) -> Result<Vec<SensorRow>> {
        let rows = sqlx::query("SELECT * FROM twin_sensors WHERE twin_id = ? AND feature_id = ? ORDER BY id")
            .bind(twin)
            .bind(feature)
            .fetch_all(self.read())
            .await
            .map_err(db)?;
        rows.iter().map(sensor_of).collect()
    }

    async fn delete_sensor(&self, twin: &str, id: &str) -> Result<bool> {
        let mut tx = self.write().await?;
        let gone = sqlx::query("DELETE FROM twin_sensors WHERE twin_id = ? AND id = ?")
            .bind(twin)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?
            .rows_affected();
        sqlx::query("DELETE FROM twin_readings WHERE twin_id = ? AND sensor_id = ?")
            .bind(twin)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(gone > 0)
    }

    async fn insert_readings(&self, twin: &str, readings: Vec<NewReading>) -> Result<StoredReadings> {
        let mut tx = self.write().await?;
        let mut replaced = 0;
        let (stamped, chosen): (Vec<(usize, NewReading)>, Vec<(usize, NewReading)>) =
            readings.into_iter().enumerate().partition(|(_, r)| r.stamped);
        let mut out: Vec<(usize, ReadingRow)> = Vec::with_capacity(stamped.len() + chosen.len());
        // Instants the client chose: count those already taken, then replace them.
        for chunk in chosen.chunks(200) {
            let mut b = sqlx::QueryBuilder::new("SELECT count(*) FROM twin_readings WHERE twin_id = ");
            b.push_bind(twin).push(" AND (sensor_id, ts) IN (VALUES ");
            let mut sep = b.separated(", ");
            for (_, r) in chunk {
                sep.push("(").push_bind_unseparated(&r.row.sensor_id);
                sep.push_unseparated(", ").push_bind_unseparated(r.row.ts).push_unseparated(")");
            }
            b.push(")");
            let (taken,): (i64,) = b.build_query_as().fetch_one(&mut *tx).await.map_err(db)?;
            replaced += u64::try_from(taken).unwrap_or(0);
            // One multi-row statement per 200 readings (4 parameters each, under SQLite's limit).
            let mut b =
                sqlx::QueryBuilder::new("INSERT OR REPLACE INTO twin_readings (twin_id, sensor_id, ts, value) ");
            b.push_values(chunk, |mut row, (_, r)| {
                row.push_bind(twin).push_bind(&r.row.sensor_id).push_bind(r.row.ts).push_bind(&r.row.value);
            });
            b.build().execute(&mut *tx).await.map_err(db)?;
        }
        out.extend(chosen.into_iter().map(|(i, r)| (i, r.row)));
        // Stamped readings, per sensor in order: each takes the first instant at or after its own
        // that the sensor has free, so that two readings stamped in the same millisecond (or a
        // stamp that meets a client's instant) both stay.
        let mut by_sensor: std::collections::BTreeMap<String, Vec<(usize, ReadingRow)>> = Default::default();
        for (i, r) in stamped {
            by_sensor.entry(r.row.sensor_id.clone()).or_default().push((i, r.row));
        }
        for (sensor, mut rows) in by_sensor {
            rows.sort_by_key(|(i, r)| (r.ts, *i));
            let from = rows[0].1.ts;
            let taken: Vec<i64> = {
                use futures::TryStreamExt;
                // The readings from the first stamp on, as far as the stamps could reach.
                let mut found = Vec::new();
                let mut stream = sqlx::query_scalar::<_, i64>(
                    "SELECT ts FROM twin_readings WHERE twin_id = ? AND sensor_id = ? AND ts >= ? ORDER BY ts",
                )
                .bind(twin)
                .bind(&sensor)
                .bind(from)
                .fetch(&mut *tx);
                let mut reach = rows.last().map_or(from, |(_, r)| r.ts).saturating_add(rows.len() as i64);
                while let Some(ts) = stream.try_next().await.map_err(db)? {
                    if ts > reach {
                        break;
                    }
                    found.push(ts);
                    reach = reach.saturating_add(1);
                }
                found
            };
            let mut taken = taken.into_iter().peekable();
            let mut next = i64::MIN;
            for (_, r) in &mut rows {
                let mut ts = r.ts.max(next);
                while let Some(&t) = taken.peek() {
                    if t < ts {
                        taken.next();
                    } else if t == ts {
                        taken.next();
                        ts += 1;
                    } else {
                        break;
                    }
                }
                r.ts = ts;
                next = ts + 1;
            }
            for chunk in rows.chunks(200) {
                let mut b = sqlx::QueryBuilder::new("INSERT INTO twin_readings (twin_id, sensor_id, ts, value) ");
                b.push_values(chunk, |mut row, (_, r)| {
                    row.push_bind(twin).push_bind(&r.sensor_id).push_bind(r.ts).push_bind(&r.value);
                });
                b.build().execute(&mut *tx).await.map_err(db)?;
            }
            out.extend(rows);
        }
        tx.commit().await.map_err(db)?;
        out.sort_by_key(|(i, _)| *i);
        Ok(StoredReadings { rows: out.into_iter().map(|(_, r)| r).collect(), replaced })
    }

    async fn readings(&self, twin: &str, sensor: &str, from: i64, to: i64, limit: u32) -> Result<Vec<ReadingRow>> {
        let rows = sqlx::query(
            "SELECT sensor_id, ts, value FROM twin_readings
             WHERE twin_id = ? AND sensor_id = ? AND ts >= ? AND ts <= ? ORDER BY ts LIMIT ?",
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
            "SELECT sensor_id, ts, value FROM twin_readings INDEXED BY twin_readings_time
             WHERE twin_id = ? AND ts > ? AND ts <= ? ORDER BY {order} LIMIT ?"
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
        let bucket = "(CASE WHEN ts >= 0 THEN ts / ?1 ELSE (ts - ?1 + 1) / ?1 END) * ?1";
        let sql = if numeric {
            format!(
                "SELECT {bucket} AS b, count(*) AS n, min(CAST(value AS REAL)) AS lo, max(CAST(value AS REAL)) AS hi,
                        avg(CAST(value AS REAL)) AS mean, NULL AS last
                 FROM twin_readings WHERE twin_id = ?2 AND sensor_id = ?3 AND ts >= ?4 AND ts <= ?5
                 GROUP BY b ORDER BY b LIMIT ?6"
            )
        } else {
            // With a single max() the bare column comes from the row holding the maximum.
            format!(
                "SELECT {bucket} AS b, count(*) AS n, NULL AS lo, NULL AS hi, NULL AS mean, value AS last, max(ts) AS t
                 FROM twin_readings WHERE twin_id = ?2 AND sensor_id = ?3 AND ts >= ?4 AND ts <= ?5
                 GROUP BY b ORDER BY b LIMIT ?6"
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
            "SELECT r.sensor_id, r.ts, r.value FROM twin_sensors s JOIN twin_readings r
               ON r.twin_id = s.twin_id AND r.sensor_id = s.id
              AND r.ts = (SELECT max(ts) FROM twin_readings WHERE twin_id = s.twin_id AND sensor_id = s.id AND ts <= ?)
             WHERE s.twin_id = ? ORDER BY s.id",
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
        let n = sqlx::query("DELETE FROM twin_readings WHERE twin_id = ? AND ts < ?")
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
        sqlx::query(
            "INSERT INTO twin_builds (twin_id, stamp, summary, created_at, used_at) VALUES (?, ?, ?, ?, ?)
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
        let mut tx = self.write().await?;
        let row = sqlx::query("UPDATE twin_builds SET used_at = ? WHERE twin_id = ? AND stamp = ? RETURNING *")
            .bind(Timestamp::now().millis())
            .bind(twin)
            .bind(stamp)
            .fetch_optional(&mut *tx)
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
        row.as_ref().map(build_of).transpose()
    }

    async fn prune_builds(&self, twin: &str, keep: usize) -> Result<Vec<i64>> {
        let mut tx = self.write().await?;
        let stamps: Vec<i64> = sqlx::query_scalar(
            "SELECT stamp FROM twin_builds WHERE twin_id = ? ORDER BY used_at DESC, stamp DESC LIMIT -1 OFFSET ?",
        )
        .bind(twin)
        .bind(i64::try_from(keep).unwrap_or(i64::MAX))
        .fetch_all(&mut *tx)
        .await
        .map_err(db)?;
        for s in &stamps {
            sqlx::query("DELETE FROM twin_builds WHERE twin_id = ? AND stamp = ?")
                .bind(twin)
                .bind(s)
                .execute(&mut *tx)
                .await
                .map_err(db)?;
        }
        tx.commit().await.map_err(db)?;
        Ok(stamps)
    }

    async fn feature_stamp(&self, account: &AccountId, collection: &str, at: i64) -> Result<i64> {
        Ok(sqlx::query_scalar(
            "SELECT count(*) FROM features f JOIN feature_versions v ON v.feature_id = f.id
             WHERE f.account_id = ? AND f.collection = ? AND v.recorded_at <= ?",
        )
        .bind(account.as_str())
        .bind(collection)
        .bind(at)
        .fetch_one(self.read())
        .await
        .map_err(db)?)
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
                if let Some([x0, y0, x1, y1]) = bbox {
                    b.push(" JOIN features_rtree r ON r.seq = f.seq AND r.max_x >= ")
                        .push_bind(x0)
                        .push(" AND r.min_x <= ")
                        .push_bind(x1)
                        .push(" AND r.max_y >= ")
                        .push_bind(y0)
                        .push(" AND r.min_y <= ")
                        .push_bind(y1);
                }
                b.push(" WHERE f.account_id = ")
                    .push_bind(account.as_str())
                    .push(" AND f.collection = ")
                    .push_bind(collection)
                    .push(" AND f.retired_at IS NULL ORDER BY f.seq LIMIT ")
                    .push_bind(i64::from(limit));
                b.build().fetch_all(self.read()).await.map_err(db)?
            }
            // A feature's box in the past is not indexed: the caller tests geometries.
            Some(at) => sqlx::query(
                "SELECT f.id, v.geometry, v.properties, v.version, v.recorded_at AS valid_from, f.created_at
                     FROM features f JOIN feature_versions v ON v.feature_id = f.id
                      AND v.version = (SELECT max(version) FROM feature_versions
                                        WHERE feature_id = f.id AND recorded_at <= ?)
                     WHERE f.account_id = ? AND f.collection = ? AND f.created_at <= ? AND v.change <> 'retired'
                     ORDER BY f.seq LIMIT ?",
            )
            .bind(at)
            .bind(account.as_str())
            .bind(collection)
            .bind(at)
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
             WHERE f.account_id = ? AND f.collection = ? AND f.id = ? AND v.recorded_at <= ?
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
