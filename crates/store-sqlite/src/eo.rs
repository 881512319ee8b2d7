use super::SqliteDb;
use crate::error::db;
use crate::error::is_unique_violation;
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::id::AccountId;
use meridian_core::{DomainError, Timestamp};
use meridian_store::eo::{CollectionSummary, EoCollection, EoItem, ItemQuery, NewItem, SortField};
use meridian_store::repo::EoRepo;
use meridian_store::{Result, StoreError};
use serde_json::Value;
use sqlx::sqlite::{SqliteArguments, SqliteRow};
use sqlx::{Arguments, Row};

const ITEM_COLUMNS: &str =
    "i.seq, i.account_id, i.collection, i.id, i.start_at, i.end_at, i.min_x, i.min_y, i.max_x, i.max_y, i.body, \
     i.version, i.created_at, i.updated_at";

const ITEM_VERSION: &str = "SELECT version FROM eo_items WHERE account_id = ? AND collection = ? AND id = ?";

fn collection(row: &SqliteRow) -> Result<EoCollection> {
    Ok(EoCollection {
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        id: row.try_get("id").map_err(db)?,
        body: serde_json::from_str(&row.try_get::<String, _>("body").map_err(db)?)?,
        version: row.try_get("version").map_err(db)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
    })
}

fn item(row: &SqliteRow) -> Result<EoItem> {
    Ok(EoItem {
        seq: row.try_get("seq").map_err(db)?,
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        collection: row.try_get("collection").map_err(db)?,
        id: row.try_get("id").map_err(db)?,
        start_at: row.try_get("start_at").map_err(db)?,
        end_at: row.try_get("end_at").map_err(db)?,
        bbox: [
            row.try_get("min_x").map_err(db)?,
            row.try_get("min_y").map_err(db)?,
            row.try_get("max_x").map_err(db)?,
            row.try_get("max_y").map_err(db)?,
        ],
        body: serde_json::from_str(&row.try_get::<String, _>("body").map_err(db)?)?,
        version: row.try_get("version").map_err(db)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
    })
}

/// A query under construction: SQL text and its arguments in order.
struct Sql {
    text: String,
    args: SqliteArguments<'static>,
}

impl Sql {
    fn new(text: &str) -> Self {
        Self { text: text.to_owned(), args: SqliteArguments::default() }
    }

    fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    fn text_arg(&mut self, v: &str) -> &mut Self {
        let _ = self.args.add(v.to_owned());
        self
    }

    fn int_arg(&mut self, v: i64) -> &mut Self {
        let _ = self.args.add(v);
        self
    }

    fn real_arg(&mut self, v: f64) -> &mut Self {
        let _ = self.args.add(v);
        self
    }

    /// A JSON value as the SQL value `json_extract` yields for it.
    fn json_arg(&mut self, v: &Value) -> &mut Self {
        match v {
            Value::Bool(b) => self.int_arg(i64::from(*b)),
            Value::Number(n) => match n.as_i64() {
                Some(i) => self.int_arg(i),
                None => self.real_arg(n.as_f64().unwrap_or(0.0)),
            },
            Value::String(s) => self.text_arg(s),
            other => self.text_arg(&other.to_string()),
        }
    }

    fn list(&mut self, column: &str, values: &[String]) -> &mut Self {
        self.push(" AND ").push(column).push(" IN (");
        for (i, v) in values.iter().enumerate() {
            self.push(if i == 0 { "?" } else { ", ?" }).text_arg(v);
        }
        self.push(")")
    }
}

/// The SQL expression of a sort key; a property's JSON path is an argument.
fn sort_expr(sql: &mut Sql, field: &SortField) {
    match field {
        SortField::Datetime => sql.push("i.start_at"),
        SortField::Id => sql.push("i.id"),
        SortField::Collection => sql.push("i.collection"),
        SortField::Property(p) => sql.push("json_extract(i.body, ?)").text_arg(&property_path(p)),
    };
}

fn property_path(name: &str) -> String {
    format!("$.properties.\"{}\"", name.replace('"', ""))
}

/// The store filters shared by searches and counts.
fn filters(sql: &mut Sql, account: &AccountId, q: &ItemQuery) {
    sql.push(" WHERE i.account_id = ?").text_arg(account.as_str());
    if !q.collections.is_empty() {
        sql.list("i.collection", &q.collections);
    }
    if !q.ids.is_empty() {
        sql.list("i.id", &q.ids);
    }
    if let Some((start, end)) = q.time {
        sql.push(" AND i.end_at >= ? AND i.start_at <= ?").int_arg(start).int_arg(end);
    }
    if !q.boxes.is_empty() {
        sql.push(" AND i.seq IN (SELECT seq FROM eo_items_rtree WHERE ");
        for (n, b) in q.boxes.iter().enumerate() {
            sql.push(if n == 0 { "(" } else { " OR (" })
                .push("max_x >= ? AND min_x <= ? AND max_y >= ? AND min_y <= ?)")
                .real_arg(b[0])
                .real_arg(b[2])
                .real_arg(b[1])
                .real_arg(b[3]);
        }
        sql.push(")");
    }
}

/// Rows after the keyset position `(values, seq)` in the query's order (NULLs sort first, as
/// SQLite orders them).
fn keyset(sql: &mut Sql, q: &ItemQuery, values: &[Value], seq: i64) {
    sql.push(" AND (");
    for i in 0..=q.sort.len() {
        if i > 0 {
            sql.push(" OR ");
        }
        sql.push("(");
        for j in 0..i {
            sort_expr(sql, &q.sort[j].field);
            match values.get(j).filter(|v| !v.is_null()) {
                None => sql.push(" IS NULL AND "),
                Some(v) => sql.push(" = ? AND ").json_arg(v),
            };
        }
        if i == q.sort.len() {
            sql.push("i.seq > ?").int_arg(seq);
        } else {
            let key = &q.sort[i];
            let value = values.get(i).filter(|v| !v.is_null());
            match (key.descending, value) {
                (false, None) => {
                    sort_expr(sql, &key.field);
                    sql.push(" IS NOT NULL");
                }
                (false, Some(v)) => {
                    sort_expr(sql, &key.field);
                    sql.push(" > ?").json_arg(v);
                }
                (true, None) => {
                    sql.push("0");
                }
                (true, Some(v)) => {
                    sql.push("(");
                    sort_expr(sql, &key.field);
                    sql.push(" < ?").json_arg(v).push(" OR ");
                    sort_expr(sql, &key.field);
                    sql.push(" IS NULL)");
                }
            }
        }
        sql.push(")");
    }
    sql.push(")");
}

fn conflict(collection: &str, id: &str) -> StoreError {
    DomainError::conflict(
        meridian_core::problem::code::ITEM_EXISTS,
        format!("collection {collection} already has an item {id}"),
    )
    .into()
}

/// Up to how many R*Tree entries a search's boxes may hold for the tree to drive the search.
const DRIVE_LIMIT: u64 = 20_000;

/// The index a search is driven by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    Ids,
    Boxes,
    Order,
}

/// The boxes as conditions on the R*Tree joined as `r`.
fn rtree_boxes(sql: &mut Sql, boxes: &[[f64; 4]]) {
    for (n, b) in boxes.iter().enumerate() {
        sql.push(if n == 0 { " AND ((" } else { " OR (" })
            .push("r.max_x >= ? AND r.min_x <= ? AND r.max_y >= ? AND r.min_y <= ?)")
            .real_arg(b[0])
            .real_arg(b[2])
            .real_arg(b[1])
            .real_arg(b[3]);
    }
    if !boxes.is_empty() {
        sql.push(")");
    }
}

impl SqliteDb {
    /// How many R*Tree entries (of every account) meet the boxes, counted up to one past
    /// [`DRIVE_LIMIT`].
    async fn box_candidates(&self, boxes: &[[f64; 4]]) -> Result<u64> {
        let mut sql = Sql::new("SELECT count(*) FROM (SELECT 1 FROM eo_items_rtree r WHERE 1");
        rtree_boxes(&mut sql, boxes);
        sql.push(" LIMIT ?)").int_arg(i64::try_from(DRIVE_LIMIT + 1).unwrap_or(i64::MAX));
        let n: i64 = sqlx::query_scalar_with(&sql.text, sql.args).fetch_one(self.read()).await.map_err(db)?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}

/// The version of the row `select` names (its `?`s bound to `keys` in order), checked against
/// an `If-Match` version: `None` when there is no such row.
async fn checked_version(
    conn: &mut sqlx::SqliteConnection,
    select: &str,
    keys: &[&str],
    what: &str,
    expected: Option<i64>,
) -> Result<Option<i64>> {
    let mut q = sqlx::query_scalar::<_, i64>(select);
    for k in keys {
        q = q.bind(*k);
    }
    let Some(version) = q.fetch_optional(&mut *conn).await.map_err(db)? else { return Ok(None) };
    if expected.is_some_and(|e| e != version) {
        return Err(DomainError::PreconditionFailed(format!("{what} is at version {version}")).into());
    }
    Ok(Some(version))
}

#[async_trait]
impl EoRepo for SqliteDb {
    async fn create_collection(&self, c: &EoCollection) -> Result<()> {
        let mut tx = self.write().await?;
        let done = sqlx::query(
            "INSERT INTO eo_collections (account_id, id, body, version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(c.account_id.as_str())
        .bind(&c.id)
        .bind(c.body.to_string())
        .bind(c.version)
        .bind(c.created_at.millis())
        .bind(c.updated_at.millis())
        .execute(&mut *tx)
        .await;
        match done {
            Err(e) if is_unique_violation(&e) => {
                return Err(DomainError::conflict(
                    meridian_core::problem::code::COLLECTION_EXISTS,
                    format!("a collection {} exists", c.id),
                )
                .into())
            }
            other => other.map_err(db)?,
        };
        tx.commit().await.map_err(db)?;
        Ok(())
    }

    async fn replace_collection(
        &self,
        account: &AccountId,
        id: &str,
        body: &Value,
        expected: Option<i64>,
    ) -> Result<EoCollection> {
        let mut tx = self.write().await?;
        let select = "SELECT version FROM eo_collections WHERE account_id = ? AND id = ?";
        let what = format!("collection {id}");
        if checked_version(&mut tx, select, &[account.as_str(), id], &what, expected).await?.is_none() {
            return Err(DomainError::not_found("collection", id).into());
        }
        let row = sqlx::query(
            "UPDATE eo_collections SET body = ?, version = version + 1, updated_at = ? WHERE account_id = ? AND id = ?
             RETURNING account_id, id, body, version, created_at, updated_at",
        )
        .bind(body.to_string())
        .bind(Timestamp::now().millis())
        .bind(account.as_str())
        .bind(id)
        .fetch_one(&mut *tx)
        .await
        .map_err(db)?;
        let c = collection(&row)?;
        tx.commit().await.map_err(db)?;
        Ok(c)
    }

    async fn get_collection(&self, account: &AccountId, id: &str) -> Result<Option<EoCollection>> {
        let row = sqlx::query(
            "SELECT account_id, id, body, version, created_at, updated_at FROM eo_collections WHERE account_id = ? AND id = ?",
        )
        .bind(account.as_str())
        .bind(id)
        .fetch_optional(self.read())
        .await.map_err(db)?;
        row.as_ref().map(collection).transpose()
    }

    async fn list_collections(&self, account: &AccountId) -> Result<Vec<EoCollection>> {
        let rows = sqlx::query(
            "SELECT account_id, id, body, version, created_at, updated_at FROM eo_collections WHERE account_id = ? ORDER BY id",
        )
        .bind(account.as_str())
        .fetch_all(self.read())
        .await.map_err(db)?;
        rows.iter().map(collection).collect()
    }

    async fn delete_collection(&self, account: &AccountId, id: &str, expected: Option<i64>) -> Result<bool> {
        let mut tx = self.write().await?;
        let select = "SELECT version FROM eo_collections WHERE account_id = ? AND id = ?";
        let what = format!("collection {id}");
        if checked_version(&mut tx, select, &[account.as_str(), id], &what, expected).await?.is_none() {
            return Ok(false);
        }
        sqlx::query("DELETE FROM eo_items WHERE account_id = ? AND collection = ?")
            .bind(account.as_str())
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        sqlx::query("DELETE FROM eo_collections WHERE account_id = ? AND id = ?")
            .bind(account.as_str())
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(true)
    }

    async fn collection_summary(&self, account: &AccountId, id: &str) -> Result<CollectionSummary> {
        let row = sqlx::query(
            "SELECT count(*) AS n, min(min_x) AS a, min(min_y) AS b, max(max_x) AS c, max(max_y) AS d,
                    min(start_at) AS s, max(end_at) AS e
             FROM eo_items WHERE account_id = ? AND collection = ?",
        )
        .bind(account.as_str())
        .bind(id)
        .fetch_one(self.read())
        .await
        .map_err(db)?;
        let n: i64 = row.try_get("n").map_err(db)?;
        let bbox = match (
            row.try_get::<Option<f64>, _>("a").map_err(db)?,
            row.try_get::<Option<f64>, _>("b").map_err(db)?,
            row.try_get::<Option<f64>, _>("c").map_err(db)?,
            row.try_get::<Option<f64>, _>("d").map_err(db)?,
        ) {
            (Some(a), Some(b), Some(c), Some(d)) => Some([a, b, c, d]),
            _ => None,
        };
        Ok(CollectionSummary {
            items: u64::try_from(n).unwrap_or(0),
            bbox,
            start_at: row.try_get("s").map_err(db)?,
            end_at: row.try_get("e").map_err(db)?,
        })
    }

    async fn insert_items(
        &self,
        account: &AccountId,
        collection_id: &str,
        items: &[NewItem],
        events: &[NewEvent],
    ) -> Result<Vec<EoItem>> {
        let mut tx = self.write().await?;
        let exists: Option<i64> = sqlx::query_scalar("SELECT 1 FROM eo_collections WHERE account_id = ? AND id = ?")
            .bind(account.as_str())
            .bind(collection_id)
            .fetch_optional(&mut *tx)
            .await
            .map_err(db)?;
        if exists.is_none() {
            return Err(DomainError::not_found("collection", collection_id).into());
        }
        let now = Timestamp::now().millis();
        let mut stored = Vec::with_capacity(items.len());
        for it in items {
            let done = sqlx::query(
                "INSERT INTO eo_items (account_id, collection, id, start_at, end_at, min_x, min_y, max_x, max_y, body,
                                       version, created_at, updated_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?) RETURNING seq",
            )
            .bind(account.as_str())
            .bind(collection_id)
            .bind(&it.id)
            .bind(it.start_at)
            .bind(it.end_at)
            .bind(it.bbox[0])
            .bind(it.bbox[1])
            .bind(it.bbox[2])
            .bind(it.bbox[3])
            .bind(it.body.to_string())
            .bind(now)
            .bind(now)
            .fetch_one(&mut *tx)
            .await;
            let seq: i64 = match done {
                Err(e) if is_unique_violation(&e) => return Err(conflict(collection_id, &it.id)),
                other => other.map_err(db)?.try_get("seq").map_err(db)?,
            };
            stored.push(EoItem {
                seq,
                account_id: account.clone(),
                collection: collection_id.to_owned(),
                id: it.id.clone(),
                start_at: it.start_at,
                end_at: it.end_at,
                bbox: it.bbox,
                body: it.body.clone(),
                version: 1,
                created_at: Timestamp::from_millis(now),
                updated_at: Timestamp::from_millis(now),
            });
        }
        self.commit_with_events(tx, events).await?;
        Ok(stored)
    }

    async fn get_item(&self, account: &AccountId, collection_id: &str, id: &str) -> Result<Option<EoItem>> {
        let row = sqlx::query(&format!(
            "SELECT {ITEM_COLUMNS} FROM eo_items i WHERE i.account_id = ? AND i.collection = ? AND i.id = ?"
        ))
        .bind(account.as_str())
        .bind(collection_id)
        .bind(id)
        .fetch_optional(self.read())
        .await
        .map_err(db)?;
        row.as_ref().map(item).transpose()
    }

    async fn find_items(&self, account: &AccountId, id: &str, limit: u32) -> Result<Vec<EoItem>> {
        let rows = sqlx::query(&format!(
            "SELECT {ITEM_COLUMNS} FROM eo_items i WHERE i.account_id = ? AND i.id = ? ORDER BY i.seq LIMIT ?"
        ))
        .bind(account.as_str())
        .bind(id)
        .bind(i64::from(limit))
        .fetch_all(self.read())
        .await
        .map_err(db)?;
        rows.iter().map(item).collect()
    }

    async fn replace_item(
        &self,
        account: &AccountId,
        collection_id: &str,
        it: &NewItem,
        expected: Option<i64>,
        events: &[NewEvent],
    ) -> Result<EoItem> {
        let mut tx = self.write().await?;
        let what = format!("item {}", it.id);
        let keys = [account.as_str(), collection_id, it.id.as_str()];
        if checked_version(&mut tx, ITEM_VERSION, &keys, &what, expected).await?.is_none() {
            return Err(DomainError::not_found("item", &it.id).into());
        }
        let row = sqlx::query(&format!(
            "UPDATE eo_items SET start_at = ?, end_at = ?, min_x = ?, min_y = ?, max_x = ?, max_y = ?, body = ?,
                    version = version + 1, updated_at = ?
             WHERE account_id = ? AND collection = ? AND id = ? RETURNING {}",
            ITEM_COLUMNS.replace("i.", "")
        ))
        .bind(it.start_at)
        .bind(it.end_at)
        .bind(it.bbox[0])
        .bind(it.bbox[1])
        .bind(it.bbox[2])
        .bind(it.bbox[3])
        .bind(it.body.to_string())
        .bind(Timestamp::now().millis())
        .bind(account.as_str())
        .bind(collection_id)
        .bind(&it.id)
        .fetch_one(&mut *tx)
        .await
        .map_err(db)?;
        let updated = item(&row)?;
        self.commit_with_events(tx, events).await?;
        Ok(updated)
    }

    async fn delete_item(
        &self,
        account: &AccountId,
        collection_id: &str,
        id: &str,
        expected: Option<i64>,
    ) -> Result<bool> {
        let mut tx = self.write().await?;
        let what = format!("item {id}");
        if checked_version(&mut tx, ITEM_VERSION, &[account.as_str(), collection_id, id], &what, expected)
            .await?
            .is_none()
        {
            return Ok(false);
        }
        sqlx::query("DELETE FROM eo_items WHERE account_id = ? AND collection = ? AND id = ?")
            .bind(account.as_str())
            .bind(collection_id)
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(true)
    }

    async fn search_items(&self, account: &AccountId, q: &ItemQuery) -> Result<Vec<EoItem>> {
        // Which index drives: the ids when there are ids; the R*Tree when the boxes hold few
        // items (the matches are then sorted); otherwise the index of the order, walked until
        // the page is full (EXPLAIN QUERY PLAN: docs/eo.md).
        let plan = if !q.ids.is_empty() {
            Plan::Ids
        } else if !q.boxes.is_empty() && self.box_candidates(&q.boxes).await? <= DRIVE_LIMIT {
            Plan::Boxes
        } else {
            Plan::Order
        };
        let mut sql = match plan {
            Plan::Ids => Sql::new(&format!("SELECT {ITEM_COLUMNS} FROM eo_items i INDEXED BY eo_items_by_id")),
            Plan::Boxes => {
                Sql::new(&format!("SELECT {ITEM_COLUMNS} FROM eo_items_rtree r CROSS JOIN eo_items i ON i.seq = r.seq"))
            }
            Plan::Order => Sql::new(&format!("SELECT {ITEM_COLUMNS} FROM eo_items i")),
        };
        if plan == Plan::Boxes {
            let rest = ItemQuery { boxes: Vec::new(), ..q.clone() };
            filters(&mut sql, account, &rest);
            rtree_boxes(&mut sql, &q.boxes);
        } else {
            filters(&mut sql, account, q);
        }
        if let Some((values, seq)) = &q.after {
            keyset(&mut sql, q, values, *seq);
        }
        sql.push(" ORDER BY ");
        for k in &q.sort {
            sort_expr(&mut sql, &k.field);
            sql.push(if k.descending { " DESC, " } else { " ASC, " });
        }
        sql.push("i.seq ASC LIMIT ?").int_arg(i64::from(q.limit));
        let rows = sqlx::query_with(&sql.text, sql.args).fetch_all(self.read()).await.map_err(db)?;
        rows.iter().map(item).collect()
    }

    async fn count_items(&self, account: &AccountId, q: &ItemQuery) -> Result<u64> {
        // With a box, the R*Tree drives (a join in that order); otherwise the covering indexes.
        let mut sql = if q.boxes.is_empty() {
            Sql::new("SELECT count(*) FROM eo_items i")
        } else {
            Sql::new("SELECT count(*) FROM eo_items_rtree r CROSS JOIN eo_items i ON i.seq = r.seq")
        };
        let boxes = q.boxes.clone();
        let q = &ItemQuery { boxes: Vec::new(), ..q.clone() };
        filters(&mut sql, account, q);
        rtree_boxes(&mut sql, &boxes);
        let n: i64 = sqlx::query_scalar_with(&sql.text, sql.args).fetch_one(self.read()).await.map_err(db)?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}
