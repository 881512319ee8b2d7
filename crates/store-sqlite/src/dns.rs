use super::SqliteDb;
use crate::error::db;
use crate::error::is_unique_violation;
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::id::{AccountId, DnsKeyId, RecordId, ZoneId};
use meridian_core::page::Page;
use meridian_core::{DomainError, Timestamp};
use meridian_store::dns::{ChangeSet, DnsKey, Record, RecordFilter, Zone, ZoneVersion};
use meridian_store::repo::DnsRepo;
use meridian_store::Result;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

const ZONE_COLUMNS: &str = "id, account_id, name, status, soa_serial, record_count, dnssec, created_at, updated_at";
const RECORD_COLUMNS: &str =
    "id, zone_id, name, type, content, rdata, ttl, priority, weight, port, flags, tag, created_at, updated_at";

fn zone_from_row(row: &SqliteRow) -> Result<Zone> {
    Ok(Zone {
        id: ZoneId(row.try_get("id").map_err(db)?),
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        name: row.try_get("name").map_err(db)?,
        status: row.try_get("status").map_err(db)?,
        soa_serial: row.try_get::<i64, _>("soa_serial").map_err(db)? as u32,
        records: row.try_get::<i64, _>("record_count").map_err(db)? as u64,
        dnssec: row.try_get::<i64, _>("dnssec").map_err(db)? != 0,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
    })
}

fn record_from_row(row: &SqliteRow) -> Result<Record> {
    let small =
        |col: &str| -> Result<Option<u16>> { Ok(row.try_get::<Option<i64>, _>(col).map_err(db)?.map(|v| v as u16)) };
    Ok(Record {
        id: RecordId(row.try_get("id").map_err(db)?),
        zone_id: ZoneId(row.try_get("zone_id").map_err(db)?),
        name: row.try_get("name").map_err(db)?,
        rtype: row.try_get("type").map_err(db)?,
        content: row.try_get("content").map_err(db)?,
        rdata: row.try_get("rdata").map_err(db)?,
        ttl: row.try_get::<i64, _>("ttl").map_err(db)? as u32,
        priority: small("priority")?,
        weight: small("weight")?,
        port: small("port")?,
        flags: row.try_get::<Option<i64>, _>("flags").map_err(db)?.map(|v| v as u8),
        tag: row.try_get("tag").map_err(db)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
    })
}

fn duplicate(r: &Record) -> DomainError {
    DomainError::conflict(
        "duplicate_record",
        format!("the zone already has a {} record at {} with this content", r.rtype, r.name),
    )
}

async fn owned_zone(conn: &mut SqliteConnection, account: &AccountId, id: &ZoneId) -> Result<Zone> {
    let row = sqlx::query(&format!("SELECT {ZONE_COLUMNS} FROM dns_zones WHERE id = ? AND account_id = ?"))
        .bind(id.as_str())
        .bind(account.as_str())
        .fetch_optional(&mut *conn)
        .await
        .map_err(db)?;
    row.as_ref().map(zone_from_row).transpose()?.ok_or_else(|| DomainError::not_found("zone", id.as_str()).into())
}

/// Moves the zone's serial on by one (RFC 1982: modulo 2^32) and its record count by `added` (records created less
/// records deleted), and answers the zone as it is now.
async fn bump(conn: &mut SqliteConnection, id: &ZoneId, at: Timestamp, added: i64) -> Result<Zone> {
    let row = sqlx::query(&format!(
        "UPDATE dns_zones SET soa_serial = (soa_serial + 1) % 4294967296, record_count = record_count + ?3,
             updated_at = ?2
         WHERE id = ?1 RETURNING {ZONE_COLUMNS}"
    ))
    .bind(id.as_str())
    .bind(at.millis())
    .bind(added)
    .fetch_one(&mut *conn)
    .await
    .map_err(db)?;
    zone_from_row(&row)
}

async fn insert_record(conn: &mut SqliteConnection, r: &Record) -> Result<()> {
    let inserted = sqlx::query(&format!(
        "INSERT INTO dns_records ({RECORD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    ))
    .bind(r.id.as_str())
    .bind(r.zone_id.as_str())
    .bind(&r.name)
    .bind(&r.rtype)
    .bind(&r.content)
    .bind(&r.rdata)
    .bind(i64::from(r.ttl))
    .bind(r.priority.map(i64::from))
    .bind(r.weight.map(i64::from))
    .bind(r.port.map(i64::from))
    .bind(r.flags.map(i64::from))
    .bind(&r.tag)
    .bind(r.created_at.millis())
    .bind(r.updated_at.millis())
    .execute(&mut *conn)
    .await;
    match inserted {
        Err(e) if is_unique_violation(&e) => Err(duplicate(r).into()),
        other => other.map(|_| ()).map_err(db),
    }
}

async fn update_record(conn: &mut SqliteConnection, r: &Record) -> Result<()> {
    let updated = sqlx::query(
        "UPDATE dns_records SET name = ?, type = ?, content = ?, rdata = ?, ttl = ?, priority = ?, weight = ?,
             port = ?, flags = ?, tag = ?, updated_at = ?
         WHERE zone_id = ? AND id = ?",
    )
    .bind(&r.name)
    .bind(&r.rtype)
    .bind(&r.content)
    .bind(&r.rdata)
    .bind(i64::from(r.ttl))
    .bind(r.priority.map(i64::from))
    .bind(r.weight.map(i64::from))
    .bind(r.port.map(i64::from))
    .bind(r.flags.map(i64::from))
    .bind(&r.tag)
    .bind(r.updated_at.millis())
    .bind(r.zone_id.as_str())
    .bind(r.id.as_str())
    .execute(&mut *conn)
    .await;
    match updated {
        Err(e) if is_unique_violation(&e) => Err(duplicate(r).into()),
        Err(e) => Err(db(e)),
        Ok(done) if done.rows_affected() == 0 => Err(DomainError::not_found("record", r.id.as_str()).into()),
        Ok(_) => Ok(()),
    }
}

/// A CNAME must be alone at its name (RFC 1034 3.6.2).
async fn check_cname(conn: &mut SqliteConnection, zone: &ZoneId, name: &str) -> Result<()> {
    let row = sqlx::query(
        "SELECT count(*) AS n, coalesce(sum(type = 'CNAME'), 0) AS c FROM dns_records WHERE zone_id = ? AND name = ?",
    )
    .bind(zone.as_str())
    .bind(name)
    .fetch_one(&mut *conn)
    .await
    .map_err(db)?;
    let (n, c): (i64, i64) = (row.try_get("n").map_err(db)?, row.try_get("c").map_err(db)?);
    if c > 0 && n > 1 {
        return Err(DomainError::conflict(
            "cname_conflict",
            format!("{name} would have a CNAME and other records; a CNAME must be the only record at its name"),
        )
        .into());
    }
    Ok(())
}

impl SqliteDb {
    /// A change that only adds records, in two round trips to the writer: the zone, the rows
    /// and the checks in one script; the serial bump, the events and the commit in another.
    async fn create_records(
        &self,
        account: &AccountId,
        zone: &ZoneId,
        changes: &ChangeSet,
        events: &[NewEvent],
        at: Timestamp,
    ) -> Result<Zone> {
        let rows: Vec<serde_json::Value> = changes
            .creates
            .iter()
            .map(|r| {
                serde_json::json!([
                    r.id.as_str(),
                    r.zone_id.as_str(),
                    r.name,
                    r.rtype,
                    r.content,
                    r.rdata,
                    r.ttl,
                    r.priority,
                    r.weight,
                    r.port,
                    r.flags,
                    r.tag,
                    r.created_at.millis(),
                    r.updated_at.millis()
                ])
            })
            .collect();
        let ids: Vec<&str> = changes.creates.iter().map(|r| r.id.as_str()).collect();
        let mut names: Vec<&str> = changes.creates.iter().map(|r| r.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        // Rows a unique index turns away are skipped, then named: the first is the duplicate.
        let sql = format!(
            "BEGIN IMMEDIATE;
             SELECT 'zone' AS kind, {ZONE_COLUMNS} FROM dns_zones WHERE id = ?1 AND account_id = ?2;
             INSERT OR IGNORE INTO dns_records ({RECORD_COLUMNS})
             SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 5,
                    j.value ->> 6, j.value ->> 7, j.value ->> 8, j.value ->> 9, j.value ->> 10, j.value ->> 11,
                    j.value ->> 12, j.value ->> 13
             FROM json_each(?3) j
             WHERE EXISTS (SELECT 1 FROM dns_zones WHERE id = ?1 AND account_id = ?2)
             ORDER BY j.key;
             SELECT 'skipped' AS kind, j.value AS id FROM json_each(?4) j
             WHERE NOT EXISTS (SELECT 1 FROM dns_records r WHERE r.zone_id = ?1 AND r.id = j.value)
             ORDER BY j.key LIMIT 1;
             SELECT 'cname' AS kind, name FROM dns_records
             WHERE zone_id = ?1 AND name IN (SELECT value FROM json_each(?5))
             GROUP BY name HAVING sum(type = 'CNAME') > 0 AND count(*) > 1 LIMIT 1"
        );
        let query = sqlx::query(&sql)
            .bind(zone.as_str())
            .bind(account.as_str())
            .bind(serde_json::to_string(&rows)?)
            .bind(serde_json::to_string(&ids)?)
            .bind(serde_json::to_string(&names)?);
        let mut w = self.writer().await?;
        let found = w.script(query, false).await?;
        let mut current = None;
        let mut refused: Option<Result<Zone>> = None;
        for row in &found {
            let kind: &str = row.try_get("kind").map_err(db)?;
            match kind {
                "zone" => current = Some(zone_from_row(row)?),
                "skipped" if current.is_some() => {
                    let id: String = row.try_get("id").map_err(db)?;
                    if let Some(r) = changes.creates.iter().find(|r| r.id.as_str() == id) {
                        refused.get_or_insert(Err(duplicate(r).into()));
                    }
                }
                "cname" => {
                    let name: String = row.try_get("name").map_err(db)?;
                    refused.get_or_insert(Err(DomainError::conflict(
                        "cname_conflict",
                        format!(
                            "{name} would have a CNAME and other records; a CNAME must be the only record at its name"
                        ),
                    )
                    .into()));
                }
                _ => {}
            }
        }
        let refused = match current {
            None => Some(Err(DomainError::not_found("zone", zone.as_str()).into())),
            Some(z) if changes.expect_serial.is_some_and(|s| s != z.soa_serial) => Some(Err(
                DomainError::PreconditionFailed("the zone changed while the change was prepared".into()).into(),
            )),
            Some(_) => refused,
        };
        if let Some(refused) = refused {
            w.rollback().await;
            return refused;
        }
        let sql = format!(
            "UPDATE dns_zones SET soa_serial = (soa_serial + 1) % 4294967296, record_count = record_count + ?3,
                 updated_at = ?2
             WHERE id = ?1 RETURNING {ZONE_COLUMNS};
             {};
             COMMIT",
            crate::outbox::INSERT_EVENTS.replace("?1", "?4")
        );
        let query = sqlx::query(&sql)
            .bind(zone.as_str())
            .bind(at.millis())
            .bind(changes.creates.len() as i64)
            .bind(crate::outbox::event_rows(events.iter())?);
        let done = w.script(query, true).await?;
        let zone = done
            .first()
            .map(zone_from_row)
            .transpose()?
            .ok_or_else(|| DomainError::not_found("zone", zone.as_str()))?;
        if !events.is_empty() {
            self.events_committed(events.iter());
        }
        Ok(zone)
    }
}

#[async_trait]
impl DnsRepo for SqliteDb {
    async fn create_zone(&self, zone: &Zone, events: &[NewEvent]) -> Result<()> {
        let mut tx = self.write().await?;
        // The same name, a zone inside it, or a zone above it: only the same account may host
        // nested zones, and nobody may host a name twice.
        let clash = sqlx::query(
            "SELECT account_id, name FROM dns_zones
             WHERE name = ?1
                OR (length(name) > length(?1) AND substr(name, -length(?1) - 1) = '.' || ?1)
                OR (length(?1) > length(name) AND substr(?1, -length(name) - 1) = '.' || name)",
        )
        .bind(&zone.name)
        .fetch_all(&mut *tx)
        .await
        .map_err(db)?;
        for row in &clash {
            let (owner, name): (String, String) =
                (row.try_get("account_id").map_err(db)?, row.try_get("name").map_err(db)?);
            if name == zone.name {
                return Err(DomainError::conflict("zone_exists", format!("the zone {name} is already hosted")).into());
            }
            if owner != zone.account_id.as_str() {
                return Err(DomainError::conflict(
                    "zone_exists",
                    format!("{} overlaps the zone {name}, which another account hosts", zone.name),
                )
                .into());
            }
        }
        sqlx::query(&format!("INSERT INTO dns_zones ({ZONE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"))
            .bind(zone.id.as_str())
            .bind(zone.account_id.as_str())
            .bind(&zone.name)
            .bind(&zone.status)
            .bind(i64::from(zone.soa_serial))
            .bind(zone.records as i64)
            .bind(i64::from(zone.dnssec))
            .bind(zone.created_at.millis())
            .bind(zone.updated_at.millis())
            .execute(&mut *tx)
            .await
            .map_err(|e| {
                if is_unique_violation(&e) {
                    DomainError::conflict("zone_exists", format!("the zone {} is already hosted", zone.name)).into()
                } else {
                    db(e)
                }
            })?;
        self.commit_with_events(tx, events).await?;
        Ok(())
    }

    async fn get_zone(&self, account: &AccountId, id: &ZoneId) -> Result<Option<Zone>> {
        let row = sqlx::query(&format!("SELECT {ZONE_COLUMNS} FROM dns_zones WHERE id = ? AND account_id = ?"))
            .bind(id.as_str())
            .bind(account.as_str())
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(zone_from_row).transpose()
    }

    async fn find_zone(&self, name: &str) -> Result<Option<Zone>> {
        let row = sqlx::query(&format!("SELECT {ZONE_COLUMNS} FROM dns_zones WHERE name = ?"))
            .bind(name)
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(zone_from_row).transpose()
    }

    async fn list_zones(&self, account: &AccountId, name: Option<&str>, page: Page) -> Result<(Vec<Zone>, u64)> {
        let anchor: Option<(String,)> =
            self.anchor("SELECT name FROM dns_zones WHERE account_id = ? AND id = ?", account.as_str(), &page).await?;
        let rows = sqlx::query(&format!(
            "SELECT {ZONE_COLUMNS} FROM dns_zones WHERE account_id = ?1 AND (?2 IS NULL OR name = ?2)
             AND (?5 IS NULL OR name > ?5) ORDER BY name LIMIT ?3 OFFSET ?4"
        ))
        .bind(account.as_str())
        .bind(name)
        .bind(i64::from(page.limit))
        .bind(page.skip(anchor.is_some()))
        .bind(anchor.map(|a| a.0))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        let total: i64 =
            sqlx::query_scalar("SELECT count(*) FROM dns_zones WHERE account_id = ?1 AND (?2 IS NULL OR name = ?2)")
                .bind(account.as_str())
                .bind(name)
                .fetch_one(self.read())
                .await
                .map_err(db)?;
        Ok((rows.iter().map(zone_from_row).collect::<Result<_>>()?, total as u64))
    }

    async fn delete_zone(&self, account: &AccountId, id: &ZoneId, events: &[NewEvent]) -> Result<()> {
        let mut tx = self.write().await?;
        let done = sqlx::query("DELETE FROM dns_zones WHERE id = ? AND account_id = ?")
            .bind(id.as_str())
            .bind(account.as_str())
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        if done.rows_affected() == 0 {
            return Err(DomainError::not_found("zone", id.as_str()).into());
        }
        self.commit_with_events(tx, events).await?;
        Ok(())
    }

    async fn list_records(&self, zone: &ZoneId, filter: &RecordFilter, page: Page) -> Result<(Vec<Record>, u64)> {
        let clause = "zone_id = ?1 AND (?2 IS NULL OR type = ?2) AND (?3 IS NULL OR name = ?3)
                      AND (?4 IS NULL OR content = ?4)";
        let anchor: Option<(String, String, String)> = self
            .anchor("SELECT name, type, rdata FROM dns_records WHERE zone_id = ? AND id = ?", zone.as_str(), &page)
            .await?;
        let (a_name, a_type, a_rdata) =
            anchor.clone().map_or((None, None, None), |(n, t, r)| (Some(n), Some(t), Some(r)));
        let rows = sqlx::query(&format!(
            "SELECT {RECORD_COLUMNS} FROM dns_records WHERE {clause}
             AND (?7 IS NULL OR (name, type, rdata) > (?7, ?8, ?9)) ORDER BY name, type, rdata LIMIT ?5 OFFSET ?6"
        ))
        .bind(zone.as_str())
        .bind(&filter.rtype)
        .bind(&filter.name)
        .bind(&filter.content)
        .bind(i64::from(page.limit))
        .bind(page.skip(anchor.is_some()))
        .bind(a_name)
        .bind(a_type)
        .bind(a_rdata)
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        let total: i64 = sqlx::query_scalar(&format!("SELECT count(*) FROM dns_records WHERE {clause}"))
            .bind(zone.as_str())
            .bind(&filter.rtype)
            .bind(&filter.name)
            .bind(&filter.content)
            .fetch_one(self.read())
            .await
            .map_err(db)?;
        Ok((rows.iter().map(record_from_row).collect::<Result<_>>()?, total as u64))
    }

    async fn get_record(&self, zone: &ZoneId, id: &RecordId) -> Result<Option<Record>> {
        let row = sqlx::query(&format!("SELECT {RECORD_COLUMNS} FROM dns_records WHERE zone_id = ? AND id = ?"))
            .bind(zone.as_str())
            .bind(id.as_str())
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(record_from_row).transpose()
    }

    async fn zone_records(&self, zone: &ZoneId) -> Result<Vec<Record>> {
        let rows =
            sqlx::query(&format!("SELECT {RECORD_COLUMNS} FROM dns_records WHERE zone_id = ? ORDER BY name, type"))
                .bind(zone.as_str())
                .fetch_all(self.read())
                .await
                .map_err(db)?;
        rows.iter().map(record_from_row).collect()
    }

    async fn zone_records_named(&self, zone: &ZoneId, names: &[String]) -> Result<Vec<Record>> {
        let rows = sqlx::query(&format!(
            "SELECT {RECORD_COLUMNS} FROM dns_records
             WHERE zone_id = ? AND name IN (SELECT value FROM json_each(?)) ORDER BY name, type"
        ))
        .bind(zone.as_str())
        .bind(serde_json::to_string(names)?)
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter().map(record_from_row).collect()
    }

    async fn apply_changes(
        &self,
        account: &AccountId,
        zone: &ZoneId,
        changes: &ChangeSet,
        events: &[NewEvent],
        at: Timestamp,
    ) -> Result<Zone> {
        if changes.deletes.is_empty() && changes.updates.is_empty() && changes.unchanged_since.is_empty() {
            return self.create_records(account, zone, changes, events, at).await;
        }
        let mut tx = self.write().await?;
        let current = owned_zone(&mut tx, account, zone).await?;
        if changes.expect_serial.is_some_and(|s| s != current.soa_serial) {
            return Err(DomainError::PreconditionFailed("the zone changed while the change was prepared".into()).into());
        }
        for (id, seen) in &changes.unchanged_since {
            let current: Option<i64> =
                sqlx::query_scalar("SELECT updated_at FROM dns_records WHERE zone_id = ? AND id = ?")
                    .bind(zone.as_str())
                    .bind(id.as_str())
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db)?;
            match current {
                None => return Err(DomainError::not_found("record", id.as_str()).into()),
                Some(at) if at != seen.millis() => {
                    return Err(DomainError::PreconditionFailed(
                        "the record changed since that ETag; fetch it again and retry".into(),
                    )
                    .into())
                }
                Some(_) => {}
            }
        }
        for id in &changes.deletes {
            let done = sqlx::query("DELETE FROM dns_records WHERE zone_id = ? AND id = ?")
                .bind(zone.as_str())
                .bind(id.as_str())
                .execute(&mut *tx)
                .await
                .map_err(db)?;
            if done.rows_affected() == 0 {
                return Err(DomainError::not_found("record", id.as_str()).into());
            }
        }
        for r in &changes.updates {
            update_record(&mut tx, r).await?;
        }
        for r in &changes.creates {
            insert_record(&mut tx, r).await?;
        }
        let mut names: Vec<&str> = changes.updates.iter().chain(&changes.creates).map(|r| r.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        for name in names {
            check_cname(&mut tx, zone, name).await?;
        }
        let zone = bump(&mut tx, zone, at, changes.creates.len() as i64 - changes.deletes.len() as i64).await?;
        self.commit_with_events(tx, events).await?;
        Ok(zone)
    }

    async fn zone_versions(&self) -> Result<Vec<ZoneVersion>> {
        let rows = sqlx::query("SELECT id, account_id, name, soa_serial, dnssec FROM dns_zones")
            .fetch_all(self.read())
            .await
            .map_err(db)?;
        rows.iter()
            .map(|row| {
                Ok(ZoneVersion {
                    id: ZoneId(row.try_get("id").map_err(db)?),
                    account_id: AccountId(row.try_get("account_id").map_err(db)?),
                    name: row.try_get("name").map_err(db)?,
                    soa_serial: row.try_get::<i64, _>("soa_serial").map_err(db)? as u32,
                    dnssec: row.try_get::<i64, _>("dnssec").map_err(db)? != 0,
                })
            })
            .collect()
    }

    async fn dns_keys(&self, zone: &ZoneId) -> Result<Vec<DnsKey>> {
        let rows = sqlx::query(
            "SELECT id, zone_id, algorithm, flags, private_key, created_at FROM dns_keys WHERE zone_id = ? ORDER BY id",
        )
        .bind(zone.as_str())
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter()
            .map(|row| {
                Ok(DnsKey {
                    id: DnsKeyId(row.try_get("id").map_err(db)?),
                    zone_id: ZoneId(row.try_get("zone_id").map_err(db)?),
                    algorithm: row.try_get::<i64, _>("algorithm").map_err(db)? as u8,
                    flags: row.try_get::<i64, _>("flags").map_err(db)? as u16,
                    private_key: row.try_get("private_key").map_err(db)?,
                    created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
                })
            })
            .collect()
    }

    async fn set_dnssec(
        &self,
        account: &AccountId,
        zone: &ZoneId,
        key: Option<&DnsKey>,
        at: Timestamp,
    ) -> Result<Zone> {
        let mut tx = self.write().await?;
        owned_zone(&mut tx, account, zone).await?;
        sqlx::query("DELETE FROM dns_keys WHERE zone_id = ?")
            .bind(zone.as_str())
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        if let Some(key) = key {
            sqlx::query(
                "INSERT INTO dns_keys (id, zone_id, algorithm, flags, private_key, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            )
            .bind(key.id.as_str())
            .bind(zone.as_str())
            .bind(i64::from(key.algorithm))
            .bind(i64::from(key.flags))
            .bind(&key.private_key)
            .bind(key.created_at.millis())
            .execute(&mut *tx)
            .await.map_err(db)?;
        }
        sqlx::query("UPDATE dns_zones SET dnssec = ? WHERE id = ?")
            .bind(i64::from(key.is_some()))
            .bind(zone.as_str())
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        let zone = bump(&mut tx, zone, at, 0).await?;
        tx.commit().await.map_err(db)?;
        Ok(zone)
    }
}
