use super::{ts, SqliteDb};
use crate::error::db;
use crate::error::is_unique_violation;
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::id::AccountId;
use meridian_core::{DomainError, Timestamp};
use meridian_store::features::ValueCondition;
use meridian_store::features::{
    parse_geometry, parse_properties, ExpectedVersion, Extent, Feature, FeatureChange, FeatureCollection, FeatureQuery,
    FeatureVersion, Scalar, ScanFrom, ScannedFeature, SortKey, StoredFeature,
};
use meridian_store::repo::FeatureRepo;
use meridian_store::{Result, StoreError};
use serde_json::Value;
use sqlx::sqlite::SqliteRow;
use sqlx::{QueryBuilder, Row, Sqlite, SqliteConnection};

const COLUMNS: &str = "f.seq, f.id, f.account_id, f.collection, f.geometry, f.properties, f.version, f.created_at,
    f.updated_at, f.retired_at, r.min_x, r.min_y, r.max_x, r.max_y";

/// A feature row as read (geometry and properties as their text, checked to be JSON).
fn stored_from_row(row: &SqliteRow) -> Result<StoredFeature> {
    let min_x: Option<f64> = row.try_get("min_x").map_err(db)?;
    let bbox = match min_x {
        Some(min_x) => Some([
            min_x,
            row.try_get("min_y").map_err(db)?,
            row.try_get("max_x").map_err(db)?,
            row.try_get("max_y").map_err(db)?,
        ]),
        None => None,
    };
    StoredFeature {
        id: row.try_get("id").map_err(db)?,
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        collection: row.try_get("collection").map_err(db)?,
        geometry: row.try_get("geometry").map_err(db)?,
        properties: row.try_get("properties").map_err(db)?,
        bbox,
        version: row.try_get("version").map_err(db)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
        retired_at: ts(row.try_get("retired_at").map_err(db)?),
    }
    .check()
}

fn feature_from_row(row: &SqliteRow) -> Result<Feature> {
    stored_from_row(row)?.into_feature()
}

fn collection_from_row(row: &SqliteRow) -> Result<FeatureCollection> {
    Ok(FeatureCollection {
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        id: row.try_get("id").map_err(db)?,
        title: row.try_get("title").map_err(db)?,
        description: row.try_get("description").map_err(db)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
    })
}

fn lot_plan_conflict(f: &Feature) -> StoreError {
    DomainError::conflict(
        "parcel_exists",
        format!(
            "a parcel with lot {} on plan {} already exists",
            f.lot().unwrap_or_default(),
            f.plan().unwrap_or_default()
        ),
    )
    .into()
}

async fn record_version(conn: &mut SqliteConnection, f: &Feature, change: &str, at: Timestamp) -> Result<()> {
    sqlx::query(
        "INSERT INTO feature_versions (feature_id, version, change, geometry, properties, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(&f.id)
    .bind(f.version)
    .bind(change)
    .bind(f.geometry.as_ref().map(Value::to_string))
    .bind(Value::Object(f.properties.clone()).to_string())
    .bind(at.millis())
    .execute(conn)
    .await
    .map_err(db)?;
    Ok(())
}

async fn set_index(conn: &mut SqliteConnection, seq: i64, bbox: Option<[f64; 4]>) -> Result<()> {
    sqlx::query("DELETE FROM features_rtree WHERE seq = ?").bind(seq).execute(&mut *conn).await.map_err(db)?;
    if let Some([min_x, min_y, max_x, max_y]) = bbox {
        sqlx::query("INSERT INTO features_rtree (seq, min_x, max_x, min_y, max_y) VALUES (?, ?, ?, ?, ?)")
            .bind(seq)
            .bind(min_x)
            .bind(max_x)
            .bind(min_y)
            .bind(max_y)
            .execute(&mut *conn)
            .await
            .map_err(db)?;
    }
    Ok(())
}

async fn current(
    conn: &mut SqliteConnection,
    account: &AccountId,
    collection: &str,
    id: &str,
) -> Result<Option<(i64, Feature)>> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM features f LEFT JOIN features_rtree r ON r.seq = f.seq
         WHERE f.account_id = ? AND f.collection = +? AND f.id = ? AND f.retired_at IS NULL"
    ))
    .bind(account.as_str())
    .bind(collection)
    .bind(id)
    .fetch_optional(conn)
    .await
    .map_err(db)?;
    row.map(|r| Ok((r.try_get("seq").map_err(db)?, feature_from_row(&r)?))).transpose()
}

/// Forgets a collection's kept extent; the next read computes it again.
async fn clear_extent(conn: &mut SqliteConnection, account: &AccountId, collection: &str) -> Result<()> {
    sqlx::query("UPDATE feature_collections SET extent = NULL WHERE account_id = ? AND id = ? AND extent IS NOT NULL")
        .bind(account.as_str())
        .bind(collection)
        .execute(&mut *conn)
        .await
        .map_err(db)?;
    Ok(())
}

/// Adds `added` (new live features) to a collection's kept count and grows its kept extent by
/// them. An extent that was kept, or that of a collection that was empty, stays known, so that a
/// read right after a bulk load does not compute it from every feature; one that was not kept
/// stays unknown.
async fn count_and_grow(
    conn: &mut SqliteConnection,
    account: &AccountId,
    collection: &str,
    added: &[&Feature],
) -> Result<()> {
    let row: Option<(Option<String>, i64)> =
        sqlx::query_as("SELECT extent, feature_count FROM feature_collections WHERE account_id = ? AND id = ?")
            .bind(account.as_str())
            .bind(collection)
            .fetch_optional(&mut *conn)
            .await
            .map_err(db)?;
    let Some((kept, count)) = row else { return Ok(()) };
    let base = match kept {
        Some(text) => Some(serde_json::from_str::<Extent>(&text)?),
        None if count == 0 => Some(Extent::EMPTY),
        None => None,
    };
    let extent = base.map(|e| serde_json::to_string(&e.grown_by(added.iter().copied()))).transpose()?;
    sqlx::query(
        "UPDATE feature_collections SET feature_count = feature_count + ?, extent = ? WHERE account_id = ? AND id = ?",
    )
    .bind(added.len() as i64)
    .bind(extent)
    .bind(account.as_str())
    .bind(collection)
    .execute(&mut *conn)
    .await
    .map_err(db)?;
    Ok(())
}

/// The extent of a collection's live features, from the features themselves.
async fn compute_extent(conn: &mut SqliteConnection, account: &AccountId, collection: &str) -> Result<Extent> {
    let row = sqlx::query(
        "SELECT min(r.min_x) AS min_x, min(r.min_y) AS min_y, max(r.max_x) AS max_x, max(r.max_y) AS max_y,
                min(f.updated_at) AS t0, max(f.updated_at) AS t1
         FROM features f LEFT JOIN features_rtree r ON r.seq = f.seq
         WHERE f.account_id = ? AND f.collection = +? AND f.retired_at IS NULL",
    )
    .bind(account.as_str())
    .bind(collection)
    .fetch_one(&mut *conn)
    .await
    .map_err(db)?;
    let min_x: Option<f64> = row.try_get("min_x").map_err(db)?;
    let bbox = match min_x {
        Some(min_x) => Some([
            min_x,
            row.try_get("min_y").map_err(db)?,
            row.try_get("max_x").map_err(db)?,
            row.try_get("max_y").map_err(db)?,
        ]),
        None => None,
    };
    let t0: Option<i64> = row.try_get("t0").map_err(db)?;
    let t1: Option<i64> = row.try_get("t1").map_err(db)?;
    Ok(Extent { bbox, updated: t0.zip(t1) })
}

fn check_expected(current: i64, expected: ExpectedVersion) -> Result<()> {
    match expected {
        Some(v) if v != current => {
            Err(DomainError::PreconditionFailed("the feature changed since that ETag; fetch it again and retry".into())
                .into())
        }
        _ => Ok(()),
    }
}

#[async_trait]
impl FeatureRepo for SqliteDb {
    async fn ensure_collection(&self, c: &FeatureCollection) -> Result<()> {
        let mut tx = self.write().await?;
        sqlx::query(
            "INSERT INTO feature_collections (account_id, id, title, description, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        )
        .bind(c.account_id.as_str())
        .bind(&c.id)
        .bind(&c.title)
        .bind(&c.description)
        .bind(c.created_at.millis())
        .bind(c.updated_at.millis())
        .execute(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn create_collection(&self, c: &FeatureCollection, features: &[Feature]) -> Result<()> {
        let mut tx = self.write().await?;
        insert_collection(&mut tx, c, false).await?;
        insert_many(&mut tx, features).await?;
        add_to_count(&mut tx, &c.account_id, &c.id, features.len() as i64).await?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn delete_collection(&self, account: &AccountId, id: &str, expected: Option<i64>) -> Result<()> {
        let mut tx = self.write().await?;
        let updated: Option<i64> = sqlx::query_scalar(
            "SELECT updated_at FROM feature_collections WHERE account_id = ? AND id = ? AND importing = 0",
        )
        .bind(account.as_str())
        .bind(id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db)?;
        let Some(updated) = updated else { return Err(DomainError::not_found("collection", id).into()) };
        if expected.is_some_and(|e| e != updated) {
            return Err(DomainError::PreconditionFailed(
                "the collection changed since that ETag; fetch it again and retry".into(),
            )
            .into());
        }
        remove_collection(&mut tx, account, id).await?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn begin_import(&self, c: &FeatureCollection) -> Result<()> {
        let mut tx = self.write().await?;
        let importing: Option<i64> =
            sqlx::query_scalar("SELECT importing FROM feature_collections WHERE account_id = ? AND id = ?")
                .bind(c.account_id.as_str())
                .bind(&c.id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db)?;
        match importing {
            Some(0) => {
                return Err(
                    DomainError::conflict("collection_exists", format!("collection {} already exists", c.id)).into()
                )
            }
            // Left by an import whose process died: its batches go.
            Some(_) => remove_collection(&mut tx, &c.account_id, &c.id).await?,
            None => {}
        }
        insert_collection(&mut tx, c, true).await?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn import_features(&self, account: &AccountId, id: &str, features: &[Feature]) -> Result<()> {
        let mut tx = self.write().await?;
        insert_many(&mut tx, features).await?;
        add_to_count(&mut tx, account, id, features.len() as i64).await?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn finish_import(&self, account: &AccountId, id: &str) -> Result<()> {
        let mut tx = self.write().await?;
        sqlx::query(
            "UPDATE feature_collections SET importing = 0, extent = NULL WHERE account_id = ? AND id = ? AND importing = 1",
        )
        .bind(account.as_str())
        .bind(id)
        .execute(&mut *tx)
        .await.map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn abort_import(&self, account: &AccountId, id: &str) -> Result<()> {
        let mut tx = self.write().await?;
        let importing: Option<i64> =
            sqlx::query_scalar("SELECT importing FROM feature_collections WHERE account_id = ? AND id = ?")
                .bind(account.as_str())
                .bind(id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db)?;
        if importing == Some(1) {
            remove_collection(&mut tx, account, id).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn list_collections(&self, account: &AccountId) -> Result<Vec<FeatureCollection>> {
        let rows = sqlx::query("SELECT * FROM feature_collections WHERE account_id = ? AND importing = 0 ORDER BY id")
            .bind(account.as_str())
            .fetch_all(self.read())
            .await
            .map_err(db)?;
        rows.iter().map(collection_from_row).collect()
    }

    async fn get_collection(&self, account: &AccountId, id: &str) -> Result<Option<FeatureCollection>> {
        let row = sqlx::query("SELECT * FROM feature_collections WHERE account_id = ? AND id = ? AND importing = 0")
            .bind(account.as_str())
            .bind(id)
            .fetch_optional(self.read())
            .await
            .map_err(db)?;
        row.as_ref().map(collection_from_row).transpose()
    }

    async fn collection_extent(&self, account: &AccountId, id: &str) -> Result<Extent> {
        let kept: Option<Option<String>> =
            sqlx::query_scalar("SELECT extent FROM feature_collections WHERE account_id = ? AND id = ?")
                .bind(account.as_str())
                .bind(id)
                .fetch_optional(self.read())
                .await
                .map_err(db)?;
        match kept {
            Some(Some(text)) => Ok(serde_json::from_str(&text)?),
            None => {
                let mut conn = self.read().acquire().await.map_err(db)?;
                compute_extent(&mut conn, account, id).await
            }
            Some(None) => {
                // Computed under the write lock so that no change can slip in between.
                let mut tx = self.write().await?;
                let extent = compute_extent(&mut tx, account, id).await?;
                sqlx::query("UPDATE feature_collections SET extent = ? WHERE account_id = ? AND id = ?")
                    .bind(serde_json::to_string(&extent)?)
                    .bind(account.as_str())
                    .bind(id)
                    .execute(&mut *tx)
                    .await
                    .map_err(db)?;
                tx.commit().await.map_err(db)?;
                Ok(extent)
            }
        }
    }

    async fn insert_features(&self, features: &[Feature], events: &[NewEvent]) -> Result<()> {
        let mut tx = self.write().await?;
        insert_many(&mut tx, features).await?;
        let mut touched: Vec<(&AccountId, &str)> = features.iter().map(|f| (&f.account_id, &*f.collection)).collect();
        touched.sort_unstable();
        let mut counted: Vec<((&AccountId, &str), i64)> = Vec::new();
        for t in touched {
            match counted.last_mut() {
                Some((last, n)) if *last == t => *n += 1,
                _ => counted.push((t, 1)),
            }
        }
        for ((account, collection), _) in counted {
            let added: Vec<&Feature> =
                features.iter().filter(|f| &f.account_id == account && f.collection == collection).collect();
            count_and_grow(&mut tx, account, collection, &added).await?;
        }
        self.commit_with_events(tx, events).await?;
        Ok(())
    }

    async fn get_feature(&self, account: &AccountId, collection: &str, id: &str) -> Result<Option<Feature>> {
        let mut conn = self.read().acquire().await.map_err(db)?;
        Ok(current(&mut conn, account, collection, id).await?.map(|(_, f)| f))
    }

    async fn update_feature(
        &self,
        next: &Feature,
        based_on: i64,
        expected: ExpectedVersion,
        event: Option<NewEvent>,
    ) -> Result<Feature> {
        let mut tx = self.write().await?;
        update_in(&mut tx, next, based_on, expected).await?;
        self.commit_with_events(tx, event.as_slice()).await?;
        Ok(next.clone())
    }

    async fn apply_feature_changes(&self, changes: &[FeatureChange], events: &[NewEvent]) -> Result<Vec<Feature>> {
        let mut tx = self.write().await?;
        let mut out = Vec::with_capacity(changes.len());
        for change in changes {
            match change {
                FeatureChange::Insert(f) => {
                    insert_one(&mut tx, f).await?;
                    add_to_count(&mut tx, &f.account_id, &f.collection, 1).await?;
                    clear_extent(&mut tx, &f.account_id, &f.collection).await?;
                    out.push(f.clone());
                }
                FeatureChange::Update { next, based_on, expected } => {
                    update_in(&mut tx, next, *based_on, *expected).await?;
                    out.push(next.clone());
                }
                FeatureChange::Retire { account, collection, id, expected } => {
                    out.push(retire_in(&mut tx, account, collection, id, *expected, Timestamp::now()).await?);
                }
            }
        }
        self.commit_with_events(tx, events).await?;
        Ok(out)
    }

    async fn retire_feature(
        &self,
        account: &AccountId,
        collection: &str,
        id: &str,
        expected: ExpectedVersion,
        event: Option<NewEvent>,
    ) -> Result<Feature> {
        let mut tx = self.write().await?;
        let f = retire_in(&mut tx, account, collection, id, expected, Timestamp::now()).await?;
        self.commit_with_events(tx, event.as_slice()).await?;
        Ok(f)
    }

    async fn feature_history(&self, account: &AccountId, collection: &str, id: &str) -> Result<Vec<FeatureVersion>> {
        let owned: Option<i64> =
            sqlx::query_scalar("SELECT seq FROM features WHERE account_id = ? AND collection = ? AND id = ?")
                .bind(account.as_str())
                .bind(collection)
                .bind(id)
                .fetch_optional(self.read())
                .await
                .map_err(db)?;
        if owned.is_none() {
            return Err(DomainError::not_found("feature", id).into());
        }
        let rows = sqlx::query("SELECT * FROM feature_versions WHERE feature_id = ? ORDER BY version")
            .bind(id)
            .fetch_all(self.read())
            .await
            .map_err(db)?;
        rows.iter()
            .map(|r| {
                Ok(FeatureVersion {
                    version: r.try_get("version").map_err(db)?,
                    change: r.try_get("change").map_err(db)?,
                    geometry: parse_geometry(r.try_get::<Option<&str>, _>("geometry").map_err(db)?)?,
                    properties: parse_properties(r.try_get("properties").map_err(db)?)?,
                    recorded_at: Timestamp::from_millis(r.try_get("recorded_at").map_err(db)?),
                })
            })
            .collect()
    }

    async fn scan_features(
        &self,
        account: &AccountId,
        q: &FeatureQuery,
        from: ScanFrom,
        limit: u32,
    ) -> Result<Vec<ScannedFeature>> {
        let mut b = query_builder(&format!("SELECT {COLUMNS}"), account, q, Window::Any);
        if let ScanFrom::After(seq) = from {
            b.push(" AND f.seq > ").push_bind(seq);
        }
        order_by(&mut b, q);
        b.push(" LIMIT ").push_bind(i64::from(limit));
        if let ScanFrom::Skip(n) = from {
            b.push(" OFFSET ").push_bind(i64::try_from(n).unwrap_or(i64::MAX));
        }
        let rows = b.build().fetch_all(self.read()).await.map_err(db)?;
        rows.iter()
            .map(|r| Ok(ScannedFeature { seq: r.try_get("seq").map_err(db)?, feature: stored_from_row(r)? }))
            .collect()
    }

    async fn count_features(&self, account: &AccountId, q: &FeatureQuery) -> Result<u64> {
        let unconditioned = q.bbox.is_none()
            && !q.drive_by_values
            && !q.bbox_edge_only
            && q.lot.is_none()
            && q.plan.is_none()
            && q.tenure.is_none()
            && q.updated_from.is_none()
            && q.updated_to.is_none()
            && q.values.is_empty();
        let n: i64 = if unconditioned {
            sqlx::query_scalar("SELECT feature_count FROM feature_collections WHERE account_id = ? AND id = ?")
                .bind(account.as_str())
                .bind(&q.collection)
                .fetch_optional(self.read())
                .await
                .map_err(db)?
                .unwrap_or(0)
        } else {
            query_builder("SELECT count(*)", account, q, Window::Any)
                .build_query_scalar()
                .fetch_one(self.read())
                .await
                .map_err(db)?
        };
        Ok(u64::try_from(n).unwrap_or(0))
    }

    async fn count_features_upto(&self, account: &AccountId, q: &FeatureQuery, cap: u64) -> Result<u64> {
        let mut b = query_builder("SELECT count(*) FROM (SELECT 1", account, q, Window::Any);
        b.push(" LIMIT ").push_bind(i64::try_from(cap).unwrap_or(i64::MAX)).push(")");
        let n: i64 = b.build_query_scalar().fetch_one(self.read()).await.map_err(db)?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    async fn count_inside_scan_edge(
        &self,
        account: &AccountId,
        q: &FeatureQuery,
        first: u32,
    ) -> Result<(u64, Vec<ScannedFeature>)> {
        // One statement, one trip to a reading connection: the inside count on every row, the
        // edge features joined to it (one row of NULLs when there are none).
        let edge = FeatureQuery { bbox_edge_only: true, sort: Vec::new(), ..q.clone() };
        let mut b = QueryBuilder::new("SELECT (");
        push_query(&mut b, "SELECT count(*)", account, q, Window::Inside);
        b.push(") AS inside_count, e.* FROM (SELECT 1) LEFT JOIN (");
        push_query(&mut b, &format!("SELECT {COLUMNS}"), account, &edge, Window::Any);
        b.push(" ORDER BY f.seq LIMIT ").push_bind(i64::from(first)).push(") e ON 1 ORDER BY e.seq");
        let rows = b.build().fetch_all(self.read()).await.map_err(db)?;
        let mut inside = 0;
        let mut scanned = Vec::with_capacity(rows.len());
        for r in &rows {
            inside = r.try_get::<i64, _>("inside_count").map_err(db)?;
            if let Some(seq) = r.try_get::<Option<i64>, _>("seq").map_err(db)? {
                scanned.push(ScannedFeature { seq, feature: stored_from_row(r)? });
            }
        }
        Ok((u64::try_from(inside).unwrap_or(0), scanned))
    }

    async fn count_features_inside(&self, account: &AccountId, q: &FeatureQuery) -> Result<u64> {
        let n: i64 = query_builder("SELECT count(*)", account, q, Window::Inside)
            .build_query_scalar()
            .fetch_one(self.read())
            .await
            .map_err(db)?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}

/// Which features a box selects: those whose boxes touch it, or those whose boxes it holds wholly.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Window {
    Any,
    Inside,
}

/// The ORDER BY of a scan: the sort keys, then insertion order.
fn order_by(b: &mut QueryBuilder<'_, Sqlite>, q: &FeatureQuery) {
    b.push(" ORDER BY ");
    for (key, desc) in &q.sort {
        let dir = if *desc { "DESC" } else { "ASC" };
        match key {
            SortKey::Id => {
                b.push(format!("f.id {dir}, "));
            }
            SortKey::UpdatedAt => {
                b.push(format!("f.updated_at {dir}, "));
            }
            SortKey::Property(name) => {
                // Missing values sort last ascending (first descending), as the in-memory order did.
                let path = json_path(name);
                b.push("(json_extract(f.properties, ").push_bind(path.clone()).push(format!(") IS NULL) {dir}, "));
                b.push("json_extract(f.properties, ").push_bind(path).push(format!(") {dir}, "));
            }
        }
    }
    b.push("f.seq");
}

/// A JSON path naming one top-level member, quoted so that any key works.
fn json_path(key: &str) -> String {
    format!("$.\"{}\"", key.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `SELECT <what> FROM features ...` with the query's conditions (and its page when `paged`).
fn query_builder<'a>(
    what: &str,
    account: &'a AccountId,
    q: &'a FeatureQuery,
    window: Window,
) -> QueryBuilder<'a, Sqlite> {
    let mut b = QueryBuilder::new("");
    push_query(&mut b, what, account, q, window);
    b
}

/// [`query_builder`], appended to `b`.
fn push_query<'a>(
    b: &mut QueryBuilder<'a, Sqlite>,
    what: &str,
    account: &'a AccountId,
    q: &'a FeatureQuery,
    window: Window,
) {
    b.push(format!("{what} FROM "));
    // Single comparisons on one key are decided by one index range (`n >= 5 AND n < 9`);
    // disjunctions each take their own look-up.
    let mut singles: Vec<(&str, Vec<&ValueCondition>)> = Vec::new();
    let mut groups: Vec<Vec<&ValueCondition>> = Vec::new();
    for any in &q.values {
        match any.as_slice() {
            [] => {}
            [one] => match singles.iter_mut().find(|(k, _)| *k == one.key) {
                Some((_, list)) => list.push(one),
                None => singles.push((&one.key, vec![one])),
            },
            many => groups.push(many.iter().collect()),
        }
    }
    // A selective value condition drives the search from its index (the caller says when).
    let drive =
        if q.bbox.is_none() && q.drive_by_values && !singles.is_empty() { Some(singles.remove(0)) } else { None };
    match q.bbox {
        Some([x0, y0, x1, y1]) if window == Window::Inside => {
            b.push("features_rtree r CROSS JOIN features f ON f.seq = r.seq WHERE r.min_x >= ")
                .push_bind(x0)
                .push(" AND r.max_x <= ")
                .push_bind(x1)
                .push(" AND r.min_y >= ")
                .push_bind(y0)
                .push(" AND r.max_y <= ")
                .push_bind(y1)
                .push(" AND ");
        }
        Some([x0, y0, x1, y1]) => {
            // CROSS JOIN keeps the R*Tree as the outer loop, so the box drives the search.
            b.push("features_rtree r CROSS JOIN features f ON f.seq = r.seq WHERE r.min_x <= ")
                .push_bind(x1)
                .push(" AND r.max_x >= ")
                .push_bind(x0)
                .push(" AND r.min_y <= ")
                .push_bind(y1)
                .push(" AND r.max_y >= ")
                .push_bind(y0)
                .push(" AND ");
        }
        None => match &drive {
            Some((key, all)) => {
                b.push(
                    "feature_values d CROSS JOIN features f ON f.seq = d.seq LEFT JOIN features_rtree r ON r.seq = f.seq \
                     WHERE d.account_id = ",
                )
                .push_bind(account.as_str())
                .push(" AND d.collection = ")
                .push_bind(&q.collection)
                .push(" AND d.key = ")
                .push_bind(*key);
                for c in all {
                    push_value_test(b, "d", c);
                }
                b.push(" AND ");
            }
            None => {
                b.push("features f LEFT JOIN features_rtree r ON r.seq = f.seq WHERE ");
            }
        },
    }
    if let (Some([x0, y0, x1, y1]), true) = (q.bbox, q.bbox_edge_only) {
        b.push("NOT (r.min_x >= ")
            .push_bind(x0)
            .push(" AND r.max_x <= ")
            .push_bind(x1)
            .push(" AND r.min_y >= ")
            .push_bind(y0)
            .push(" AND r.max_y <= ")
            .push_bind(y1)
            .push(") AND ");
    }
    b.push("f.account_id = ").push_bind(account.as_str());
    // `+` keeps the planner from weighing the bound collection against the partial index on
    // parcels (features_lot_plan): a plan that depends on a bound value makes SQLite prepare the
    // statement again at every execution, a sixth of a page's time before.
    b.push(" AND f.collection = +").push_bind(&q.collection);
    b.push(" AND f.retired_at IS NULL");
    for (column, value) in [("lot", &q.lot), ("plan", &q.plan), ("tenure", &q.tenure)] {
        if let Some(v) = value {
            b.push(format!(" AND f.{column} = ")).push_bind(v);
        }
    }
    if let Some(from) = q.updated_from {
        b.push(" AND f.updated_at >= ").push_bind(from);
    }
    if let Some(to) = q.updated_to {
        b.push(" AND f.updated_at <= ").push_bind(to);
    }
    for (_, all) in &singles {
        b.push(" AND f.seq IN (SELECT v.seq FROM feature_values v WHERE v.account_id = ")
            .push_bind(account.as_str())
            .push(" AND v.collection = ")
            .push_bind(&q.collection)
            .push(" AND v.key = ")
            .push_bind(&all[0].key);
        for c in all {
            push_value_test(b, "v", c);
        }
        b.push(")");
    }
    for any in &groups {
        b.push(" AND f.seq IN (SELECT v.seq FROM feature_values v WHERE v.account_id = ")
            .push_bind(account.as_str())
            .push(" AND v.collection = ")
            .push_bind(&q.collection)
            .push(" AND (");
        for (i, c) in any.iter().enumerate() {
            if i > 0 {
                b.push(" OR ");
            }
            b.push("(v.key = ").push_bind(&c.key);
            push_value_test(b, "v", c);
            b.push(")");
        }
        b.push("))");
    }
}

/// ` AND <table>.<column> <op> ?` for one comparison.
fn push_value_test<'a>(b: &mut QueryBuilder<'a, Sqlite>, table: &str, c: &'a ValueCondition) {
    match &c.value {
        Scalar::Text(t) => b.push(format!(" AND {table}.text {} ", sql_op(c.op))).push_bind(t),
        Scalar::Num(n) => b.push(format!(" AND {table}.num {} ", sql_op(c.op))).push_bind(n),
        Scalar::Bool(f) => b.push(format!(" AND {table}.flag {} ", sql_op(c.op))).push_bind(i64::from(*f)),
    };
}

/// The property-value index rows of a live feature: top-level strings as text, numbers as
/// numbers, booleans as flags, arrays and objects as their JSON text.
/// One row of the value index: key, text, number, flag.
type ValueRow<'a> = (&'a String, Option<String>, Option<f64>, Option<i64>);

/// The value-index rows of a feature's properties.
fn value_rows(f: &Feature) -> Vec<ValueRow<'_>> {
    f.properties
        .iter()
        .filter_map(|(key, value)| match value {
            Value::String(s) => Some((key, Some(s.clone()), None, None)),
            Value::Number(n) => Some((key, None, n.as_f64(), None)),
            Value::Bool(b) => Some((key, None, None, Some(i64::from(*b)))),
            Value::Array(_) | Value::Object(_) => Some((key, Some(value.to_string()), None, None)),
            Value::Null => None,
        })
        .collect()
}

async fn index_values(conn: &mut SqliteConnection, seq: i64, f: &Feature) -> Result<()> {
    let rows: Vec<(i64, &Feature, ValueRow<'_>)> = value_rows(f).into_iter().map(|r| (seq, f, r)).collect();
    insert_value_rows(conn, &rows).await
}

/// Writes value-index rows (feature seq, feature, row), 4,000 a statement (7 parameters each,
/// under SQLite's 32,766).
async fn insert_value_rows(conn: &mut SqliteConnection, rows: &[(i64, &Feature, ValueRow<'_>)]) -> Result<()> {
    for part in rows.chunks(4_000) {
        let mut b: QueryBuilder<'_, Sqlite> =
            QueryBuilder::new("INSERT INTO feature_values (seq, account_id, collection, key, text, num, flag) ");
        b.push_values(part, |mut row, (seq, f, (key, text, num, flag))| {
            row.push_bind(*seq)
                .push_bind(f.account_id.as_str())
                .push_bind(&f.collection)
                .push_bind(key.as_str())
                .push_bind(text.clone())
                .push_bind(*num)
                .push_bind(*flag);
        });
        b.build().execute(&mut *conn).await.map_err(db)?;
    }
    Ok(())
}

async fn unindex_values(conn: &mut SqliteConnection, seq: i64) -> Result<()> {
    sqlx::query("DELETE FROM feature_values WHERE seq = ?").bind(seq).execute(&mut *conn).await.map_err(db)?;
    Ok(())
}

async fn add_to_count(conn: &mut SqliteConnection, account: &AccountId, collection: &str, delta: i64) -> Result<()> {
    sqlx::query("UPDATE feature_collections SET feature_count = feature_count + ? WHERE account_id = ? AND id = ?")
        .bind(delta)
        .bind(account.as_str())
        .bind(collection)
        .execute(&mut *conn)
        .await
        .map_err(db)?;
    Ok(())
}

/// Replaces a live feature with `next` inside a write transaction (see `update_feature`).
async fn update_in(
    conn: &mut SqliteConnection,
    next: &Feature,
    based_on: i64,
    expected: ExpectedVersion,
) -> Result<()> {
    let (seq, now) = current(conn, &next.account_id, &next.collection, &next.id)
        .await?
        .ok_or_else(|| DomainError::not_found("feature", next.id.clone()))?;
    check_expected(now.version, expected)?;
    if now.version != based_on {
        return Err(DomainError::PreconditionFailed("the feature changed meanwhile; retry".into()).into());
    }
    let updated = sqlx::query(
        "UPDATE features SET geometry = ?, properties = ?, lot = ?, plan = ?, tenure = ?, version = ?, updated_at = ?
         WHERE seq = ?",
    )
    .bind(next.geometry.as_ref().map(Value::to_string))
    .bind(Value::Object(next.properties.clone()).to_string())
    .bind(next.lot())
    .bind(next.plan())
    .bind(next.tenure())
    .bind(next.version)
    .bind(next.updated_at.millis())
    .bind(seq)
    .execute(&mut *conn)
    .await;
    match updated {
        Err(e) if is_unique_violation(&e) => return Err(lot_plan_conflict(next)),
        other => other.map_err(db)?,
    };
    set_index(conn, seq, next.bbox).await?;
    unindex_values(conn, seq).await?;
    index_values(conn, seq, next).await?;
    clear_extent(conn, &next.account_id, &next.collection).await?;
    record_version(conn, next, "updated", next.updated_at).await
}

/// Retires a live feature inside a write transaction (see `retire_feature`).
async fn retire_in(
    conn: &mut SqliteConnection,
    account: &AccountId,
    collection: &str,
    id: &str,
    expected: ExpectedVersion,
    at: Timestamp,
) -> Result<Feature> {
    let (seq, mut f) =
        current(conn, account, collection, id).await?.ok_or_else(|| DomainError::not_found("feature", id))?;
    check_expected(f.version, expected)?;
    f.version += 1;
    f.retired_at = Some(at);
    f.updated_at = at;
    sqlx::query("UPDATE features SET retired_at = ?, updated_at = ?, version = ? WHERE seq = ?")
        .bind(at.millis())
        .bind(at.millis())
        .bind(f.version)
        .bind(seq)
        .execute(&mut *conn)
        .await
        .map_err(db)?;
    set_index(conn, seq, None).await?;
    unindex_values(conn, seq).await?;
    add_to_count(conn, account, collection, -1).await?;
    clear_extent(conn, account, collection).await?;
    record_version(conn, &f, "retired", at).await?;
    Ok(f)
}

/// Inserts a collection's row (hidden while `importing`); a taken id is a conflict.
async fn insert_collection(conn: &mut SqliteConnection, c: &FeatureCollection, importing: bool) -> Result<()> {
    let inserted = sqlx::query(
        "INSERT INTO feature_collections (account_id, id, title, description, created_at, updated_at, importing)
         VALUES (?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(c.account_id.as_str())
    .bind(&c.id)
    .bind(&c.title)
    .bind(&c.description)
    .bind(c.created_at.millis())
    .bind(c.updated_at.millis())
    .bind(i64::from(importing))
    .execute(&mut *conn)
    .await;
    match inserted {
        Err(e) if is_unique_violation(&e) => {
            Err(DomainError::conflict("collection_exists", format!("collection {} already exists", c.id)).into())
        }
        other => other.map(drop).map_err(db),
    }
}

/// Removes a collection with its features, their versions and index rows.
async fn remove_collection(conn: &mut SqliteConnection, account: &AccountId, id: &str) -> Result<()> {
    let owned = "SELECT seq FROM features WHERE account_id = ? AND collection = ?";
    for sql in [
        format!("DELETE FROM features_rtree WHERE seq IN ({owned})"),
        "DELETE FROM feature_values WHERE account_id = ? AND collection = ?".to_owned(),
        "DELETE FROM feature_versions WHERE feature_id IN \
         (SELECT id FROM features WHERE account_id = ? AND collection = ?)"
            .to_owned(),
        "DELETE FROM features WHERE account_id = ? AND collection = ?".to_owned(),
        "DELETE FROM feature_collections WHERE account_id = ? AND id = ?".to_owned(),
    ] {
        sqlx::query(&sql).bind(account.as_str()).bind(id).execute(&mut *conn).await.map_err(db)?;
    }
    Ok(())
}

async fn insert_one(conn: &mut SqliteConnection, f: &Feature) -> Result<()> {
    let inserted = sqlx::query(
        "INSERT INTO features (id, account_id, collection, geometry, properties, lot, plan, tenure, version, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq",
    )
    .bind(&f.id)
    .bind(f.account_id.as_str())
    .bind(&f.collection)
    .bind(f.geometry.as_ref().map(Value::to_string))
    .bind(Value::Object(f.properties.clone()).to_string())
    .bind(f.lot())
    .bind(f.plan())
    .bind(f.tenure())
    .bind(f.version)
    .bind(f.created_at.millis())
    .bind(f.updated_at.millis())
    .fetch_one(&mut *conn)
    .await;
    let seq: i64 = match inserted {
        Err(e) if is_unique_violation(&e) => return Err(lot_plan_conflict(f)),
        other => other.map_err(db)?.try_get("seq").map_err(db)?,
    };
    set_index(conn, seq, f.bbox).await?;
    index_values(conn, seq, f).await?;
    record_version(conn, f, "registered", f.created_at).await
}

/// Features a statement inserts at once: 11 parameters each, under SQLite's 32,766.
const INSERT_CHUNK: usize = 2_000;

/// Inserts new features with their index rows and first versions: a few multi-row statements
/// per [`INSERT_CHUNK`] features instead of five statements a feature (a bulk load's cost was
/// its round trips to the connection's thread).
async fn insert_many(conn: &mut SqliteConnection, features: &[Feature]) -> Result<()> {
    for chunk in features.chunks(INSERT_CHUNK) {
        let texts: Vec<(Option<String>, String)> = chunk
            .iter()
            .map(|f| Ok((f.geometry.as_ref().map(Value::to_string), serde_json::to_string(&f.properties)?)))
            .collect::<Result<_>>()?;
        let mut b: QueryBuilder<'_, Sqlite> = QueryBuilder::new(
            "INSERT INTO features (id, account_id, collection, geometry, properties, lot, plan, tenure, version, created_at, updated_at) ",
        );
        b.push_values(chunk.iter().zip(&texts), |mut row, (f, (geometry, properties))| {
            row.push_bind(&f.id)
                .push_bind(f.account_id.as_str())
                .push_bind(&f.collection)
                .push_bind(geometry.as_deref())
                .push_bind(properties.as_str())
                .push_bind(f.lot())
                .push_bind(f.plan())
                .push_bind(f.tenure())
                .push_bind(f.version)
                .push_bind(f.created_at.millis())
                .push_bind(f.updated_at.millis());
        });
        b.push(" RETURNING seq, id");
        let rows: Vec<(i64, String)> = match b.build_query_as().fetch_all(&mut *conn).await {
            Ok(rows) => rows,
            // The statement was undone as a whole; one at a time finds the parcel that conflicts.
            Err(e) if is_unique_violation(&e) => {
                for f in chunk {
                    insert_one(conn, f).await?;
                }
                continue;
            }
            Err(e) => return Err(db(e)),
        };
        let seq_of: std::collections::HashMap<&str, i64> = rows.iter().map(|(seq, id)| (id.as_str(), *seq)).collect();
        let seqs: Vec<i64> = chunk
            .iter()
            .map(|f| {
                seq_of
                    .get(f.id.as_str())
                    .copied()
                    .ok_or_else(|| StoreError::Corrupt("an inserted feature has no seq".into()))
            })
            .collect::<Result<_>>()?;
        let boxed: Vec<(i64, [f64; 4])> =
            chunk.iter().zip(&seqs).filter_map(|(f, s)| f.bbox.map(|b| (*s, b))).collect();
        for part in boxed.chunks(6_000) {
            let mut b: QueryBuilder<'_, Sqlite> =
                QueryBuilder::new("INSERT INTO features_rtree (seq, min_x, max_x, min_y, max_y) ");
            b.push_values(part, |mut row, (seq, [min_x, min_y, max_x, max_y])| {
                row.push_bind(*seq).push_bind(*min_x).push_bind(*max_x).push_bind(*min_y).push_bind(*max_y);
            });
            b.build().execute(&mut *conn).await.map_err(db)?;
        }
        let values: Vec<(i64, &Feature, ValueRow<'_>)> =
            chunk.iter().zip(&seqs).flat_map(|(f, s)| value_rows(f).into_iter().map(move |r| (*s, f, r))).collect();
        insert_value_rows(conn, &values).await?;
        // The first versions are copies of the rows just written.
        sqlx::query(
            "INSERT INTO feature_versions (feature_id, version, change, geometry, properties, recorded_at)
             SELECT f.id, f.version, 'registered', f.geometry, f.properties, f.created_at
             FROM json_each(?) j JOIN features f ON f.seq = j.value ORDER BY j.key",
        )
        .bind(serde_json::to_string(&seqs)?)
        .execute(&mut *conn)
        .await
        .map_err(db)?;
    }
    Ok(())
}

/// The SQL operator of a property-value comparison.
fn sql_op(op: meridian_store::features::ValueOp) -> &'static str {
    use meridian_store::features::ValueOp;
    match op {
        ValueOp::Eq => "=",
        ValueOp::Ne => "<>",
        ValueOp::Lt => "<",
        ValueOp::Le => "<=",
        ValueOp::Gt => ">",
        ValueOp::Ge => ">=",
    }
}
