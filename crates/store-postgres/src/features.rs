//! Feature collections, features, their versions and indexes.
//!
//! Boxes: every live feature keeps its box in `min_x`..`max_y` and, as a polygon, in `bbox` with a
//! GiST index. A box filter asks the index (`&&`: float4 boxes rounded outward, so they only
//! ever add candidates) and then compares the exact columns, so that the answer is exactly the
//! features whose boxes meet (or lie inside) the query box.
//!
//! Property values: `feature_values` holds one row per top-level property of each live feature,
//! text, number and boolean in columns of their own, so that a comparison only meets values of
//! its own type; each condition is a semi-join on its btree indexes.
//!
//! Check-then-act: every write to a collection's features or to the collection itself first takes
//! the collection's advisory lock (`lock_collections`: several in name order), so that writes to one
//! collection are applied one after another, as they were under one writer. The lock covers what
//! may not have a row (a collection being created or imported), keeps the kept count and extent
//! true (the extent is computed and kept under the same lock), and a feature read before it is
//! changed is also locked (`FOR UPDATE`). Ids and parcel identity are unique indexes.

use crate::error::{db, is_unique_violation};
use crate::{lock, ts, Analyzed, PgDb};
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::id::AccountId;
use meridian_core::{DomainError, Timestamp};
use meridian_store::features::{
    parse_geometry, parse_properties, ExpectedVersion, Extent, Feature, FeatureChange, FeatureCollection, FeatureQuery,
    FeatureVersion, Scalar, ScanFrom, ScannedFeature, SortKey, StoredFeature, ValueCondition, ValueOp,
};
use meridian_store::repo::FeatureRepo;
use meridian_store::{Result, StoreError};
use serde_json::Value;
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Postgres, QueryBuilder, Row};

const COLUMNS: &str = "f.seq, f.id, f.account_id, f.collection, f.geometry, f.properties, f.version, f.created_at,
    f.updated_at, f.retired_at, f.min_x, f.min_y, f.max_x, f.max_y";

/// Features written by one statement (each column is one array parameter).
const INSERT_CHUNK: usize = 1_000;

/// A collection created or imported with at least this many features refreshes the statistics
/// of the feature tables at once (see `PgDb::inserted`).
const ANALYZE_AFTER: usize = 1_000;

/// The box of a row whose `min_x`, `min_y`, `max_x`, `max_y` columns are set together.
fn bbox_from_row(row: &PgRow) -> Result<Option<[f64; 4]>> {
    let min_x: Option<f64> = row.try_get("min_x").map_err(db)?;
    let Some(min_x) = min_x else { return Ok(None) };
    let corner = |name: &str| -> Result<f64> {
        let v: Option<f64> = row.try_get(name).map_err(db)?;
        v.ok_or_else(|| StoreError::Corrupt(format!("feature box without {name}")))
    };
    Ok(Some([min_x, corner("min_y")?, corner("max_x")?, corner("max_y")?]))
}

/// A feature row as read (geometry and properties as their text, checked to be JSON).
fn stored_from_row(row: &PgRow) -> Result<StoredFeature> {
    StoredFeature {
        id: row.try_get("id").map_err(db)?,
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        collection: row.try_get("collection").map_err(db)?,
        geometry: row.try_get("geometry").map_err(db)?,
        properties: row.try_get("properties").map_err(db)?,
        bbox: bbox_from_row(row)?,
        version: row.try_get("version").map_err(db)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
        retired_at: ts(row.try_get("retired_at").map_err(db)?),
    }
    .check()
}

fn feature_from_row(row: &PgRow) -> Result<Feature> {
    stored_from_row(row)?.into_feature()
}

const COLLECTION_COLUMNS: &str = "account_id, id, title, description, created_at, updated_at";

fn collection_from_row(row: &PgRow) -> Result<FeatureCollection> {
    Ok(FeatureCollection {
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        id: row.try_get("id").map_err(db)?,
        title: row.try_get("title").map_err(db)?,
        description: row.try_get("description").map_err(db)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
    })
}

/// The conflict of a feature that could not be inserted or updated because of a unique index
/// (a parcel's (lot, plan), or its id).
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

fn collection_exists(id: &str) -> StoreError {
    DomainError::conflict("collection_exists", format!("collection {id} already exists")).into()
}

/// Takes the advisory locks of the collections `touched` names, each once and in name order (so
/// that two writers never wait for each other's), until the transaction ends.
async fn lock_collections(conn: &mut PgConnection, mut touched: Vec<(&str, &str)>) -> Result<()> {
    touched.sort_unstable();
    touched.dedup();
    for (account, collection) in touched {
        lock(&mut *conn, &format!("feature_collection:{account}:{collection}")).await?;
    }
    Ok(())
}

/// Takes the advisory lock of one collection until the transaction ends.
async fn lock_collection(conn: &mut PgConnection, account: &AccountId, collection: &str) -> Result<()> {
    lock_collections(conn, vec![(account.as_str(), collection)]).await
}

async fn record_version(conn: &mut PgConnection, f: &Feature, change: &str, at: Timestamp) -> Result<()> {
    sqlx::query(
        "INSERT INTO feature_versions (feature_id, version, change, geometry, properties, recorded_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&f.id)
    .bind(f.version)
    .bind(change)
    .bind(f.geometry.as_ref().map(Value::to_string))
    .bind(serde_json::to_string(&f.properties)?)
    .bind(at.millis())
    .execute(conn)
    .await
    .map_err(db)?;
    Ok(())
}

/// The live feature `id` with its sequence number; `for_update` locks its row until the
/// transaction ends (a write reads it before it decides).
async fn current(
    conn: &mut PgConnection,
    account: &AccountId,
    collection: &str,
    id: &str,
    for_update: bool,
) -> Result<Option<(i64, Feature)>> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM features f
         WHERE f.account_id = $1 AND f.collection = $2 AND f.id = $3 AND f.retired_at IS NULL{}",
        if for_update { " FOR UPDATE" } else { "" }
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
async fn clear_extent(conn: &mut PgConnection, account: &AccountId, collection: &str) -> Result<()> {
    sqlx::query(
        "UPDATE feature_collections SET extent = NULL WHERE account_id = $1 AND id = $2 AND extent IS NOT NULL",
    )
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
    conn: &mut PgConnection,
    account: &AccountId,
    collection: &str,
    added: &[&Feature],
) -> Result<()> {
    let row: Option<(Option<String>, i64)> =
        sqlx::query_as("SELECT extent, feature_count FROM feature_collections WHERE account_id = $1 AND id = $2")
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
        "UPDATE feature_collections SET feature_count = feature_count + $1, extent = $2
         WHERE account_id = $3 AND id = $4",
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
async fn compute_extent(conn: &mut PgConnection, account: &AccountId, collection: &str) -> Result<Extent> {
    let row = sqlx::query(
        "SELECT min(min_x) AS min_x, min(min_y) AS min_y, max(max_x) AS max_x, max(max_y) AS max_y,
                min(updated_at) AS t0, max(updated_at) AS t1
         FROM features
         WHERE account_id = $1 AND collection = $2 AND retired_at IS NULL",
    )
    .bind(account.as_str())
    .bind(collection)
    .fetch_one(&mut *conn)
    .await
    .map_err(db)?;
    let t0: Option<i64> = row.try_get("t0").map_err(db)?;
    let t1: Option<i64> = row.try_get("t1").map_err(db)?;
    Ok(Extent { bbox: bbox_from_row(&row)?, updated: t0.zip(t1) })
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
impl FeatureRepo for PgDb {
    async fn ensure_collection(&self, c: &FeatureCollection) -> Result<()> {
        let mut tx = self.write().await?;
        sqlx::query(
            "INSERT INTO feature_collections (account_id, id, title, description, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
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
        lock_collection(&mut tx, &c.account_id, &c.id).await?;
        insert_collection(&mut tx, c, false).await?;
        insert_many(&mut tx, features).await?;
        add_to_count(&mut tx, &c.account_id, &c.id, features.len() as i64).await?;
        tx.commit().await.map_err(db)?;
        if features.len() >= ANALYZE_AFTER {
            // Until autovacuum gets to them, tables just filled have no statistics, and
            // PostgreSQL plans a value condition as if it selected one row (a nested loop that
            // reads the index range again for every feature).
            self.inserted(Analyzed::Features, features.len() as u64, true).await;
        }
        Ok(())
    }

    async fn delete_collection(&self, account: &AccountId, id: &str, expected: Option<i64>) -> Result<()> {
        let mut tx = self.write().await?;
        lock_collection(&mut tx, account, id).await?;
        let updated: Option<i64> = sqlx::query_scalar(
            "SELECT updated_at FROM feature_collections WHERE account_id = $1 AND id = $2 AND NOT importing
             FOR UPDATE",
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
        lock_collection(&mut tx, &c.account_id, &c.id).await?;
        let importing: Option<bool> = sqlx::query_scalar(
            "SELECT importing FROM feature_collections WHERE account_id = $1 AND id = $2 FOR UPDATE",
        )
        .bind(c.account_id.as_str())
        .bind(&c.id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db)?;
        match importing {
            Some(false) => return Err(collection_exists(&c.id)),
            // Left by an import whose process died: its batches go.
            Some(true) => remove_collection(&mut tx, &c.account_id, &c.id).await?,
            None => {}
        }
        insert_collection(&mut tx, c, true).await?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn import_features(&self, account: &AccountId, id: &str, features: &[Feature]) -> Result<()> {
        let mut tx = self.write().await?;
        lock_collection(&mut tx, account, id).await?;
        insert_many(&mut tx, features).await?;
        add_to_count(&mut tx, account, id, features.len() as i64).await?;
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn finish_import(&self, account: &AccountId, id: &str) -> Result<()> {
        let mut tx = self.write().await?;
        lock_collection(&mut tx, account, id).await?;
        let imported: Option<i64> = sqlx::query_scalar(
            "UPDATE feature_collections SET importing = false, extent = NULL
             WHERE account_id = $1 AND id = $2 AND importing
             RETURNING feature_count",
        )
        .bind(account.as_str())
        .bind(id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        if let Some(n) = imported.filter(|n| *n >= ANALYZE_AFTER as i64) {
            self.inserted(Analyzed::Features, n as u64, true).await;
        }
        Ok(())
    }

    async fn abort_import(&self, account: &AccountId, id: &str) -> Result<()> {
        let mut tx = self.write().await?;
        lock_collection(&mut tx, account, id).await?;
        let importing: Option<bool> = sqlx::query_scalar(
            "SELECT importing FROM feature_collections WHERE account_id = $1 AND id = $2 FOR UPDATE",
        )
        .bind(account.as_str())
        .bind(id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db)?;
        if importing == Some(true) {
            remove_collection(&mut tx, account, id).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn list_collections(&self, account: &AccountId) -> Result<Vec<FeatureCollection>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLLECTION_COLUMNS} FROM feature_collections WHERE account_id = $1 AND NOT importing ORDER BY id"
        ))
        .bind(account.as_str())
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter().map(collection_from_row).collect()
    }

    async fn get_collection(&self, account: &AccountId, id: &str) -> Result<Option<FeatureCollection>> {
        let row = sqlx::query(&format!(
            "SELECT {COLLECTION_COLUMNS} FROM feature_collections WHERE account_id = $1 AND id = $2 AND NOT importing"
        ))
        .bind(account.as_str())
        .bind(id)
        .fetch_optional(self.read())
        .await
        .map_err(db)?;
        row.as_ref().map(collection_from_row).transpose()
    }

    async fn collection_extent(&self, account: &AccountId, id: &str) -> Result<Extent> {
        let kept: Option<Option<String>> =
            sqlx::query_scalar("SELECT extent FROM feature_collections WHERE account_id = $1 AND id = $2")
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
                // Computed and kept under the collection's lock, which every write to the
                // collection takes: no change slips in between, and none commits after the
                // computation without clearing what is kept.
                let mut tx = self.write().await?;
                lock_collection(&mut tx, account, id).await?;
                let extent = compute_extent(&mut tx, account, id).await?;
                sqlx::query("UPDATE feature_collections SET extent = $1 WHERE account_id = $2 AND id = $3")
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
        let mut touched: Vec<(&str, &str)> =
            features.iter().map(|f| (f.account_id.as_str(), f.collection.as_str())).collect();
        touched.sort_unstable();
        let mut counted: Vec<((&str, &str), i64)> = Vec::new();
        for t in touched {
            match counted.last_mut() {
                Some((last, n)) if *last == t => *n += 1,
                _ => counted.push((t, 1)),
            }
        }
        let mut tx = self.write().await?;
        lock_collections(&mut tx, counted.iter().map(|(t, _)| *t).collect()).await?;
        insert_many(&mut tx, features).await?;
        for ((account, collection), _) in counted {
            let added: Vec<&Feature> =
                features.iter().filter(|f| f.account_id.as_str() == account && f.collection == collection).collect();
            count_and_grow(&mut tx, &AccountId(account.to_owned()), collection, &added).await?;
        }
        self.commit_with_events(tx, events).await?;
        self.inserted(Analyzed::Features, features.len() as u64, false).await;
        Ok(())
    }

    async fn get_feature(&self, account: &AccountId, collection: &str, id: &str) -> Result<Option<Feature>> {
        let mut conn = self.read().acquire().await.map_err(db)?;
        Ok(current(&mut conn, account, collection, id, false).await?.map(|(_, f)| f))
    }

    async fn update_feature(
        &self,
        next: &Feature,
        based_on: i64,
        expected: ExpectedVersion,
        event: Option<NewEvent>,
    ) -> Result<Feature> {
        let mut tx = self.write().await?;
        lock_collection(&mut tx, &next.account_id, &next.collection).await?;
        update_in(&mut tx, next, based_on, expected).await?;
        self.commit_with_events(tx, event.as_slice()).await?;
        Ok(next.clone())
    }

    async fn apply_feature_changes(&self, changes: &[FeatureChange], events: &[NewEvent]) -> Result<Vec<Feature>> {
        let touched = changes
            .iter()
            .map(|change| match change {
                FeatureChange::Insert(f) | FeatureChange::Update { next: f, .. } => {
                    (f.account_id.as_str(), f.collection.as_str())
                }
                FeatureChange::Retire { account, collection, .. } => (account.as_str(), collection.as_str()),
            })
            .collect();
        let mut tx = self.write().await?;
        lock_collections(&mut tx, touched).await?;
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
        lock_collection(&mut tx, account, collection).await?;
        let f = retire_in(&mut tx, account, collection, id, expected, Timestamp::now()).await?;
        self.commit_with_events(tx, event.as_slice()).await?;
        Ok(f)
    }

    async fn feature_history(&self, account: &AccountId, collection: &str, id: &str) -> Result<Vec<FeatureVersion>> {
        let owned: Option<i64> =
            sqlx::query_scalar("SELECT seq FROM features WHERE account_id = $1 AND collection = $2 AND id = $3")
                .bind(account.as_str())
                .bind(collection)
                .bind(id)
                .fetch_optional(self.read())
                .await
                .map_err(db)?;
        if owned.is_none() {
            return Err(DomainError::not_found("feature", id).into());
        }
        let rows = sqlx::query(
            "SELECT version, change, geometry, properties, recorded_at FROM feature_versions
             WHERE feature_id = $1 ORDER BY version",
        )
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
        let mut b = query_builder(&format!("SELECT {COLUMNS}"), account, q, Window::Any, true);
        if let ScanFrom::After(seq) = from {
            b.push(" AND f.seq > ").push_bind(seq);
        }
        order_by(&mut b, q);
        b.push(" LIMIT ").push_bind(i64::from(limit));
        if let ScanFrom::Skip(n) = from {
            b.push(" OFFSET ").push_bind(i64::try_from(n).unwrap_or(i64::MAX));
        }
        let rows = b.build().persistent(prepared(q)).fetch_all(self.read()).await.map_err(db)?;
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
            sqlx::query_scalar("SELECT feature_count FROM feature_collections WHERE account_id = $1 AND id = $2")
                .bind(account.as_str())
                .bind(&q.collection)
                .fetch_optional(self.read())
                .await
                .map_err(db)?
                .unwrap_or(0)
        } else {
            query_builder("SELECT count(*)", account, q, Window::Any, false)
                .build_query_scalar()
                .persistent(prepared(q))
                .fetch_one(self.read())
                .await
                .map_err(db)?
        };
        Ok(u64::try_from(n).unwrap_or(0))
    }

    async fn count_features_upto(&self, account: &AccountId, q: &FeatureQuery, cap: u64) -> Result<u64> {
        let mut b = query_builder("SELECT count(*) FROM (SELECT 1", account, q, Window::Any, false);
        b.push(" LIMIT ").push_bind(i64::try_from(cap).unwrap_or(i64::MAX)).push(") AS capped");
        let n: i64 = b.build_query_scalar().persistent(prepared(q)).fetch_one(self.read()).await.map_err(db)?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    async fn count_features_inside(&self, account: &AccountId, q: &FeatureQuery) -> Result<u64> {
        let n: i64 = query_builder("SELECT count(*)", account, q, Window::Inside, false)
            .build_query_scalar()
            .persistent(prepared(q))
            .fetch_one(self.read())
            .await
            .map_err(db)?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}

/// Whether a query's statement is kept prepared. One with a box or value conditions is planned
/// for the values at hand (an unnamed statement): whether to start from the box's index, from a
/// value index or along the collection depends on how much each selects, which a plan made once
/// for any values cannot know.
fn prepared(q: &FeatureQuery) -> bool {
    q.bbox.is_none() && q.values.iter().all(Vec::is_empty)
}

/// Which features a box selects: those whose boxes touch it, or those whose boxes it holds wholly.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Window {
    Any,
    Inside,
}

/// The ORDER BY of a scan: the sort keys, then insertion order.
///
/// A property sorts as in the SQLite backend: present values first (a JSON null is
/// missing), numbers (booleans as 0 and 1) before text (strings, and arrays and objects as their
/// JSON text), numbers by exact value, text by bytes. `s{i}.j` is the property as JSON, extracted
/// once per feature by `query_builder`.
fn order_by(b: &mut QueryBuilder<'_, Postgres>, q: &FeatureQuery) {
    b.push(" ORDER BY ");
    for (i, (key, desc)) in q.sort.iter().enumerate() {
        let dir = if *desc { "DESC" } else { "ASC" };
        match key {
            SortKey::Id => {
                b.push(format!("f.id {dir}, "));
            }
            SortKey::UpdatedAt => {
                b.push(format!("f.updated_at {dir}, "));
            }
            SortKey::Property(_) => {
                let j = format!("s{i}.j");
                b.push(format!(
                    "(coalesce(json_typeof({j}), 'null') = 'null') {dir}, \
                     (CASE json_typeof({j}) WHEN 'number' THEN 0 WHEN 'boolean' THEN 0 \
                      WHEN 'string' THEN 1 WHEN 'array' THEN 1 WHEN 'object' THEN 1 END) {dir}, \
                     (CASE json_typeof({j}) WHEN 'number' THEN ({j}::text)::numeric \
                      WHEN 'boolean' THEN CASE WHEN {j}::text = 'true' THEN 1 ELSE 0 END END) {dir}, \
                     (CASE json_typeof({j}) WHEN 'string' THEN {j} #>> '{{}}' \
                      WHEN 'array' THEN {j}::text WHEN 'object' THEN {j}::text END) COLLATE \"C\" {dir}, "
                ));
            }
        }
    }
    b.push("f.seq");
}

/// `<what> FROM features ...` with the query's conditions; `sorted` adds the property values its
/// sort keys need.
///
/// `drive_by_values` is not needed here: PostgreSQL plans each value condition (a semi-join on
/// `feature_values`) from its statistics, and starts from the value index when that is cheaper.
fn query_builder<'a>(
    what: &str,
    account: &'a AccountId,
    q: &'a FeatureQuery,
    window: Window,
    sorted: bool,
) -> QueryBuilder<'a, Postgres> {
    let mut b = QueryBuilder::new(format!("{what} FROM features f"));
    if sorted {
        for (i, (key, _)) in q.sort.iter().enumerate() {
            if let SortKey::Property(name) = key {
                // OFFSET 0 keeps the subquery from being folded into the ORDER BY, which would
                // parse the properties once per use rather than once per feature.
                b.push(" CROSS JOIN LATERAL (SELECT f.properties::json -> ")
                    .push_bind(name)
                    .push(format!("::text AS j OFFSET 0) s{i}"));
            }
        }
    }
    b.push(" WHERE f.account_id = ").push_bind(account.as_str());
    b.push(" AND f.collection = ").push_bind(&q.collection);
    b.push(" AND f.retired_at IS NULL");
    if let Some(bbox) = q.bbox {
        match window {
            Window::Inside => push_inside(&mut b, bbox, true),
            Window::Any => push_touching(&mut b, bbox),
        }
        if q.bbox_edge_only {
            push_inside(&mut b, bbox, false);
        }
    }
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
    // Single comparisons on one key are decided by one index range (`n >= 5 AND n < 9`);
    // disjunctions each take their own look-up.
    let mut singles: Vec<(&str, Vec<&ValueCondition>)> = Vec::new();
    let mut groups: Vec<&[ValueCondition]> = Vec::new();
    for any in &q.values {
        match any.as_slice() {
            [] => {}
            [one] => match singles.iter_mut().find(|(k, _)| *k == one.key) {
                Some((_, list)) => list.push(one),
                None => singles.push((&one.key, vec![one])),
            },
            many => groups.push(many),
        }
    }
    for (key, all) in singles {
        b.push(" AND f.seq IN (SELECT v.seq FROM feature_values v WHERE v.account_id = ")
            .push_bind(account.as_str())
            .push(" AND v.collection = ")
            .push_bind(&q.collection)
            .push(" AND v.key = ")
            .push_bind(key);
        for c in all {
            push_value_test(&mut b, c);
        }
        b.push(")");
    }
    for any in groups {
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
            push_value_test(&mut b, c);
            b.push(")");
        }
        b.push("))");
    }
    b
}

/// ` ST_MakeEnvelope(x0, y0, x1, y1, 4326)`, the query box as a polygon for the GiST index.
fn push_envelope(b: &mut QueryBuilder<'_, Postgres>, [x0, y0, x1, y1]: [f64; 4]) {
    b.push(" ST_MakeEnvelope(")
        .push_bind(x0)
        .push(", ")
        .push_bind(y0)
        .push(", ")
        .push_bind(x1)
        .push(", ")
        .push_bind(y1)
        .push(", 4326)");
}

/// Features whose boxes touch `bbox`: the index's candidates, decided on the exact columns.
fn push_touching(b: &mut QueryBuilder<'_, Postgres>, bbox: [f64; 4]) {
    if bbox.iter().any(|v| v.is_nan()) {
        // No box compares with NaN.
        b.push(" AND false");
        return;
    }
    let [x0, y0, x1, y1] = bbox;
    b.push(" AND f.bbox &&");
    push_envelope(b, bbox);
    b.push(" AND f.min_x <= ")
        .push_bind(x1)
        .push(" AND f.max_x >= ")
        .push_bind(x0)
        .push(" AND f.min_y <= ")
        .push_bind(y1)
        .push(" AND f.max_y >= ")
        .push_bind(y0);
}

/// Features whose boxes `bbox` holds wholly (`inside`), or those it does not (with a box).
fn push_inside(b: &mut QueryBuilder<'_, Postgres>, bbox: [f64; 4], inside: bool) {
    if bbox.iter().any(|v| v.is_nan()) {
        b.push(" AND false");
        return;
    }
    let [x0, y0, x1, y1] = bbox;
    if inside {
        // `&&`, not `@`: PostGIS estimates how much `&&` selects from the column's statistics,
        // but not `@`, and a count planned with a guess walks the whole collection rather than
        // the index (200 ms instead of 1 ms on 200,000 parcels). Boxes held by the query box also
        // touch it, so the candidates are the same superset and the exact columns decide.
        b.push(" AND f.bbox &&");
        push_envelope(b, bbox);
        b.push(" AND (");
    } else {
        b.push(" AND NOT (");
    }
    b.push("f.min_x >= ")
        .push_bind(x0)
        .push(" AND f.max_x <= ")
        .push_bind(x1)
        .push(" AND f.min_y >= ")
        .push_bind(y0)
        .push(" AND f.max_y <= ")
        .push_bind(y1)
        .push(")");
}

/// ` AND v.<column> <op> $n` for one comparison: text only meets text, numbers numbers, booleans
/// booleans.
fn push_value_test<'a>(b: &mut QueryBuilder<'a, Postgres>, c: &'a ValueCondition) {
    let op = sql_op(c.op);
    match &c.value {
        Scalar::Text(t) => b.push(format!(" AND v.text {op} ")).push_bind(t),
        // NaN equals nothing and orders with nothing (PostgreSQL would order it above every
        // number).
        Scalar::Num(n) => b.push(format!(" AND v.num {op} ")).push_bind((!n.is_nan()).then_some(*n)),
        Scalar::Bool(f) => b.push(format!(" AND v.flag {op} ")).push_bind(*f),
    };
}

/// The SQL operator of a property-value comparison.
fn sql_op(op: ValueOp) -> &'static str {
    match op {
        ValueOp::Eq => "=",
        ValueOp::Ne => "<>",
        ValueOp::Lt => "<",
        ValueOp::Le => "<=",
        ValueOp::Gt => ">",
        ValueOp::Ge => ">=",
    }
}

/// The property-value index rows of live features, as columns: top-level strings as text,
/// numbers as numbers, booleans as flags, arrays and objects as their JSON text.
#[derive(Default)]
struct ValueRows {
    seq: Vec<i64>,
    account: Vec<String>,
    collection: Vec<String>,
    key: Vec<String>,
    text: Vec<Option<String>>,
    num: Vec<Option<f64>>,
    flag: Vec<Option<bool>>,
}

impl ValueRows {
    fn add(&mut self, seq: i64, f: &Feature) {
        for (key, value) in &f.properties {
            let (text, num, flag) = match value {
                Value::String(s) => (Some(s.clone()), None, None),
                Value::Number(n) => (None, n.as_f64(), None),
                Value::Bool(b) => (None, None, Some(*b)),
                Value::Array(_) | Value::Object(_) => (Some(value.to_string()), None, None),
                Value::Null => continue,
            };
            self.seq.push(seq);
            self.account.push(f.account_id.as_str().to_owned());
            self.collection.push(f.collection.clone());
            self.key.push(key.clone());
            self.text.push(text);
            self.num.push(num);
            self.flag.push(flag);
        }
    }

    async fn insert(&self, conn: &mut PgConnection) -> Result<()> {
        if self.seq.is_empty() {
            return Ok(());
        }
        sqlx::query(
            "INSERT INTO feature_values (seq, account_id, collection, key, text, num, flag)
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[],
                                  $7::boolean[])",
        )
        .bind(&self.seq)
        .bind(&self.account)
        .bind(&self.collection)
        .bind(&self.key)
        .bind(&self.text)
        .bind(&self.num)
        .bind(&self.flag)
        .execute(conn)
        .await
        .map_err(db)?;
        Ok(())
    }
}

async fn unindex_values(conn: &mut PgConnection, seq: i64) -> Result<()> {
    sqlx::query("DELETE FROM feature_values WHERE seq = $1").bind(seq).execute(&mut *conn).await.map_err(db)?;
    Ok(())
}

async fn add_to_count(conn: &mut PgConnection, account: &AccountId, collection: &str, delta: i64) -> Result<()> {
    sqlx::query("UPDATE feature_collections SET feature_count = feature_count + $1 WHERE account_id = $2 AND id = $3")
        .bind(delta)
        .bind(account.as_str())
        .bind(collection)
        .execute(&mut *conn)
        .await
        .map_err(db)?;
    Ok(())
}

/// Replaces a live feature with `next` inside a write transaction holding the collection's lock
/// (see `update_feature`).
async fn update_in(conn: &mut PgConnection, next: &Feature, based_on: i64, expected: ExpectedVersion) -> Result<()> {
    let (seq, now) = current(conn, &next.account_id, &next.collection, &next.id, true)
        .await?
        .ok_or_else(|| DomainError::not_found("feature", next.id.clone()))?;
    check_expected(now.version, expected)?;
    if now.version != based_on {
        return Err(DomainError::PreconditionFailed("the feature changed meanwhile; retry".into()).into());
    }
    let [min_x, min_y, max_x, max_y] = next.bbox.map_or([None; 4], |b| b.map(Some));
    let updated = sqlx::query(
        "UPDATE features SET geometry = $1, properties = $2, lot = $3, plan = $4, tenure = $5, version = $6,
             updated_at = $7, min_x = $8, min_y = $9, max_x = $10, max_y = $11
         WHERE seq = $12",
    )
    .bind(next.geometry.as_ref().map(Value::to_string))
    .bind(serde_json::to_string(&next.properties)?)
    .bind(next.lot())
    .bind(next.plan())
    .bind(next.tenure())
    .bind(next.version)
    .bind(next.updated_at.millis())
    .bind(min_x)
    .bind(min_y)
    .bind(max_x)
    .bind(max_y)
    .bind(seq)
    .execute(&mut *conn)
    .await;
    match updated {
        Err(e) if is_unique_violation(&e) => return Err(lot_plan_conflict(next)),
        other => other.map_err(db)?,
    };
    unindex_values(conn, seq).await?;
    let mut values = ValueRows::default();
    values.add(seq, next);
    values.insert(conn).await?;
    clear_extent(conn, &next.account_id, &next.collection).await?;
    record_version(conn, next, "updated", next.updated_at).await
}

/// Retires a live feature inside a write transaction holding the collection's lock (see
/// `retire_feature`): its box and values leave the indexes.
async fn retire_in(
    conn: &mut PgConnection,
    account: &AccountId,
    collection: &str,
    id: &str,
    expected: ExpectedVersion,
    at: Timestamp,
) -> Result<Feature> {
    let (seq, mut f) =
        current(conn, account, collection, id, true).await?.ok_or_else(|| DomainError::not_found("feature", id))?;
    check_expected(f.version, expected)?;
    f.version += 1;
    f.retired_at = Some(at);
    f.updated_at = at;
    sqlx::query(
        "UPDATE features SET retired_at = $1, updated_at = $1, version = $2,
             min_x = NULL, min_y = NULL, max_x = NULL, max_y = NULL
         WHERE seq = $3",
    )
    .bind(at.millis())
    .bind(f.version)
    .bind(seq)
    .execute(&mut *conn)
    .await
    .map_err(db)?;
    unindex_values(conn, seq).await?;
    add_to_count(conn, account, collection, -1).await?;
    clear_extent(conn, account, collection).await?;
    record_version(conn, &f, "retired", at).await?;
    Ok(f)
}

/// Inserts a collection's row (hidden while `importing`); a taken id is a conflict.
async fn insert_collection(conn: &mut PgConnection, c: &FeatureCollection, importing: bool) -> Result<()> {
    let inserted = sqlx::query(
        "INSERT INTO feature_collections (account_id, id, title, description, created_at, updated_at, importing)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(c.account_id.as_str())
    .bind(&c.id)
    .bind(&c.title)
    .bind(&c.description)
    .bind(c.created_at.millis())
    .bind(c.updated_at.millis())
    .bind(importing)
    .execute(&mut *conn)
    .await;
    match inserted {
        Err(e) if is_unique_violation(&e) => Err(collection_exists(&c.id)),
        other => other.map(drop).map_err(db),
    }
}

/// Removes a collection with its features, their versions and index rows.
async fn remove_collection(conn: &mut PgConnection, account: &AccountId, id: &str) -> Result<()> {
    for sql in [
        "DELETE FROM feature_values WHERE account_id = $1 AND collection = $2",
        "DELETE FROM feature_versions WHERE feature_id IN
             (SELECT id FROM features WHERE account_id = $1 AND collection = $2)",
        "DELETE FROM features WHERE account_id = $1 AND collection = $2",
        "DELETE FROM feature_collections WHERE account_id = $1 AND id = $2",
    ] {
        sqlx::query(sql).bind(account.as_str()).bind(id).execute(&mut *conn).await.map_err(db)?;
    }
    Ok(())
}

async fn insert_one(conn: &mut PgConnection, f: &Feature) -> Result<()> {
    insert_many(conn, std::slice::from_ref(f)).await
}

/// Inserts new features (version 1) in order with their value rows and first versions, a chunk
/// of them per statement. The first feature that a unique index turns away (a taken id, or a
/// parcel's (lot, plan)) is the conflict, as if they had been inserted one by one; the caller's
/// transaction is then rolled back.
async fn insert_many(conn: &mut PgConnection, features: &[Feature]) -> Result<()> {
    for chunk in features.chunks(INSERT_CHUNK) {
        let n = chunk.len();
        let mut ids = Vec::with_capacity(n);
        let mut accounts = Vec::with_capacity(n);
        let mut collections = Vec::with_capacity(n);
        let mut geometries = Vec::with_capacity(n);
        let mut properties = Vec::with_capacity(n);
        let mut lots = Vec::with_capacity(n);
        let mut plans = Vec::with_capacity(n);
        let mut tenures = Vec::with_capacity(n);
        let mut versions = Vec::with_capacity(n);
        let mut created = Vec::with_capacity(n);
        let mut updated = Vec::with_capacity(n);
        let mut boxes: [Vec<Option<f64>>; 4] = Default::default();
        for f in chunk {
            ids.push(f.id.clone());
            accounts.push(f.account_id.as_str().to_owned());
            collections.push(f.collection.clone());
            geometries.push(f.geometry.as_ref().map(Value::to_string));
            properties.push(serde_json::to_string(&f.properties)?);
            lots.push(f.lot());
            plans.push(f.plan());
            tenures.push(f.tenure());
            versions.push(f.version);
            created.push(f.created_at.millis());
            updated.push(f.updated_at.millis());
            for (column, v) in boxes.iter_mut().zip(f.bbox.map_or([None; 4], |b| b.map(Some))) {
                column.push(v);
            }
        }
        // Rows a unique index turns away are skipped rather than failing the statement, so that
        // the first of them can be named. Sequence numbers are given in the order of `n`, so the
        // rows returned, in sequence order, are the chunk's features less those skipped.
        let rows = sqlx::query(
            "INSERT INTO features (id, account_id, collection, geometry, properties, lot, plan, tenure, version,
                 created_at, updated_at, min_x, min_y, max_x, max_y)
             SELECT id, account_id, collection, geometry, properties, lot, plan, tenure, version,
                 created_at, updated_at, min_x, min_y, max_x, max_y
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                         $8::text[], $9::bigint[], $10::bigint[], $11::bigint[], $12::float8[], $13::float8[],
                         $14::float8[], $15::float8[]) WITH ORDINALITY
                 AS i(id, account_id, collection, geometry, properties, lot, plan, tenure, version,
                      created_at, updated_at, min_x, min_y, max_x, max_y, n)
             ORDER BY n
             ON CONFLICT DO NOTHING
             RETURNING seq, id",
        )
        .bind(&ids)
        .bind(&accounts)
        .bind(&collections)
        .bind(&geometries)
        .bind(&properties)
        .bind(&lots)
        .bind(&plans)
        .bind(&tenures)
        .bind(&versions)
        .bind(&created)
        .bind(&updated)
        .bind(&boxes[0])
        .bind(&boxes[1])
        .bind(&boxes[2])
        .bind(&boxes[3])
        .fetch_all(&mut *conn)
        .await
        .map_err(db)?;
        let mut inserted = Vec::with_capacity(rows.len());
        for r in &rows {
            inserted.push((r.try_get::<i64, _>("seq").map_err(db)?, r.try_get::<String, _>("id").map_err(db)?));
        }
        inserted.sort_unstable_by_key(|(seq, _)| *seq);
        let mut inserted = inserted.into_iter().peekable();
        let mut values = ValueRows::default();
        for f in chunk {
            match inserted.next_if(|(_, id)| *id == f.id) {
                Some((seq, _)) => values.add(seq, f),
                None => return Err(lot_plan_conflict(f)),
            }
        }
        values.insert(&mut *conn).await?;
        sqlx::query(
            "INSERT INTO feature_versions (feature_id, version, change, geometry, properties, recorded_at)
             SELECT id, version, 'registered', geometry, properties, recorded_at
             FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[])
                 AS v(id, version, geometry, properties, recorded_at)",
        )
        .bind(&ids)
        .bind(&versions)
        .bind(&geometries)
        .bind(&properties)
        .bind(&created)
        .execute(&mut *conn)
        .await
        .map_err(db)?;
    }
    Ok(())
}
