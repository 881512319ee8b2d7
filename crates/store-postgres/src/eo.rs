//! Earth observation: STAC collections and items, searched by collection, id, box and time in
//! any order with keyset paging. Answers are the SQLite backend's, item for item:
//! - a box search narrows with the GiST index of the items' footprints (`&&`) and decides on the
//!   boxes as SQLite's R*Tree holds them (32-bit floats rounded outward, see the migration);
//! - text sorts byte by byte (the columns are `COLLATE "C"`);
//! - a property sorts as SQLite's `json_extract` value does: NULL first, then numbers (booleans
//!   as 0 and 1), then text (arrays and objects as their JSON text), ascending.
//!
//! Check-then-act: an `If-Match` check locks the row it reads (`FOR NO KEY UPDATE` to replace,
//! `FOR UPDATE` to delete); a batch of items locks its collection, so that it is stored whole or
//! refused whole against a deletion and against other batches of the collection; a taken id is
//! the unique constraint's to find.

use crate::error::{db, is_unique_violation};
use crate::{Analyzed, PgDb};
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::id::AccountId;
use meridian_core::{DomainError, Timestamp};
use meridian_store::eo::{CollectionSummary, EoCollection, EoItem, ItemQuery, NewItem, SortField};
use meridian_store::repo::EoRepo;
use meridian_store::{Result, StoreError};
use serde_json::Value;
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Postgres, QueryBuilder, Row};
use std::collections::{HashMap, HashSet};

const COLLECTION_COLUMNS: &str = "account_id, id, body, version, created_at, updated_at";

const ITEM_COLUMNS: &str =
    "i.seq, i.account_id, i.collection, i.id, i.start_at, i.end_at, i.min_x, i.min_y, i.max_x, i.max_y, i.body, \
     i.version, i.created_at, i.updated_at";

fn collection(row: &PgRow) -> Result<EoCollection> {
    Ok(EoCollection {
        account_id: AccountId(row.try_get("account_id").map_err(db)?),
        id: row.try_get("id").map_err(db)?,
        body: serde_json::from_str(&row.try_get::<String, _>("body").map_err(db)?)?,
        version: row.try_get("version").map_err(db)?,
        created_at: Timestamp::from_millis(row.try_get("created_at").map_err(db)?),
        updated_at: Timestamp::from_millis(row.try_get("updated_at").map_err(db)?),
    })
}

fn item(row: &PgRow) -> Result<EoItem> {
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

/// `1 - 2^-23` and `1 + 2^-23`: the factors SQLite's R*Tree nudges a coordinate by when the
/// nearest 32-bit float lies on the wrong side of it.
const TOWARDS_ZERO: f64 = 1.0 - 1.0 / 8_388_608.0;
const AWAY_FROM_ZERO: f64 = 1.0 + 1.0 / 8_388_608.0;

/// A box minimum as the R*Tree stores it: a 32-bit float no greater than `d`.
fn tree_down(d: f64) -> f32 {
    let f = d as f32;
    if f64::from(f) > d {
        (d * if d < 0.0 { AWAY_FROM_ZERO } else { TOWARDS_ZERO }) as f32
    } else {
        f
    }
}

/// A box maximum as the R*Tree stores it: a 32-bit float no less than `d`.
fn tree_up(d: f64) -> f32 {
    let f = d as f32;
    if f64::from(f) < d {
        (d * if d < 0.0 { TOWARDS_ZERO } else { AWAY_FROM_ZERO }) as f32
    } else {
        f
    }
}

/// An item's box as the R*Tree holds it (min x, min y, max x, max y).
fn tree_box(b: [f64; 4]) -> [f32; 4] {
    [tree_down(b[0]), tree_down(b[1]), tree_up(b[2]), tree_up(b[3])]
}

/// The store filters shared by searches and counts.
fn filters(b: &mut QueryBuilder<'_, Postgres>, account: &AccountId, q: &ItemQuery) {
    b.push(" WHERE i.account_id = ").push_bind(account.as_str().to_owned());
    if !q.collections.is_empty() {
        b.push(" AND i.collection = ANY(").push_bind(q.collections.clone()).push(")");
    }
    if !q.ids.is_empty() {
        b.push(" AND i.id = ANY(").push_bind(q.ids.clone()).push(")");
    }
    if let Some((start, end)) = q.time {
        b.push(" AND i.end_at >= ").push_bind(start).push(" AND i.start_at <= ").push_bind(end);
    }
    if !q.boxes.is_empty() {
        // A box with a NaN meets nothing (SQLite binds NaN as NULL).
        let boxes: Vec<&[f64; 4]> = q.boxes.iter().filter(|b| !b.iter().any(|v| v.is_nan())).collect();
        if boxes.is_empty() {
            b.push(" AND false");
            return;
        }
        // The footprints' index narrows (its boxes are rounded outward once more, so it finds a
        // superset); the R*Tree boxes decide, compared with the search boxes as SQLite compares.
        b.push(" AND (");
        for (n, [x0, y0, x1, y1]) in boxes.iter().copied().enumerate() {
            b.push(if n == 0 { "" } else { " OR " });
            b.push("i.footprint && ST_MakeEnvelope(")
                .push_bind(*x0)
                .push(", ")
                .push_bind(*y0)
                .push(", ")
                .push_bind(*x1)
                .push(", ")
                .push_bind(*y1)
                .push(", 4326)");
        }
        b.push(") AND (");
        for (n, [x0, y0, x1, y1]) in boxes.iter().copied().enumerate() {
            b.push(if n == 0 { "(" } else { " OR (" });
            b.push("i.box_max_x >= ")
                .push_bind(*x0)
                .push(" AND i.box_min_x <= ")
                .push_bind(*x1)
                .push(" AND i.box_max_y >= ")
                .push_bind(*y0)
                .push(" AND i.box_min_y <= ")
                .push_bind(*y1)
                .push(")");
        }
        b.push(")");
    }
}

/// A sort value as SQLite holds it: NULL, a number (booleans are 0 and 1) or text (arrays and
/// objects are their JSON text). Storage classes order NULL < number < text.
#[derive(Clone, Debug, PartialEq)]
enum Atom {
    Null,
    /// The number's decimal text, and the number itself when it is an integer.
    Num(String, Option<i64>),
    Text(String),
}

impl Atom {
    fn of(v: Option<&Value>) -> Self {
        match v {
            None | Some(Value::Null) => Self::Null,
            Some(Value::Bool(b)) => Self::Num(i64::from(*b).to_string(), Some(i64::from(*b))),
            Some(Value::Number(n)) => Self::Num(n.to_string(), n.as_i64()),
            Some(Value::String(s)) => Self::Text(s.clone()),
            Some(other) => Self::Text(other.to_string()),
        }
    }

    /// The storage class's rank: none for NULL, 1 for numbers, 2 for text.
    fn rank(&self) -> Option<u8> {
        match self {
            Self::Null => None,
            Self::Num(..) => Some(1),
            Self::Text(_) => Some(2),
        }
    }

    /// The value compared with a column of text affinity: SQLite turns a number into its text.
    fn into_text_column(self) -> Self {
        match self {
            Self::Num(text, _) => Self::Text(text),
            other => other,
        }
    }

    /// The value compared with a column of integer affinity: SQLite turns text that reads as a
    /// number into that number.
    fn into_integer_column(self) -> Self {
        match self {
            Self::Text(s) => {
                let t = s.trim();
                let numeric = !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c));
                match (t.parse::<i64>(), t.parse::<f64>()) {
                    (Ok(i), _) if numeric => Self::Num(i.to_string(), Some(i)),
                    (_, Ok(f)) if numeric && f.is_finite() => Self::Num(t.to_owned(), None),
                    _ => Self::Text(s),
                }
            }
            other => other,
        }
    }
}

/// One key of a search order as SQL.
#[derive(Clone, Copy, Debug)]
enum Key {
    /// A column that is never NULL: `rank` is its storage class (1 integer, 2 text).
    Column { expr: &'static str, rank: u8 },
    /// The n-th property of the order, joined as `p<n>` with its storage class `r`, number `n`
    /// and text `t` (see [`property_join`]).
    Property(usize),
}

/// The keys of `q`'s order, and the names of the properties among them.
fn keys(q: &ItemQuery) -> (Vec<Key>, Vec<String>) {
    let mut properties = Vec::new();
    let keys = q
        .sort
        .iter()
        .map(|k| match &k.field {
            SortField::Datetime => Key::Column { expr: "i.start_at", rank: 1 },
            SortField::Id => Key::Column { expr: "i.id", rank: 2 },
            SortField::Collection => Key::Column { expr: "i.collection", rank: 2 },
            SortField::Property(p) => {
                // As the SQLite backend's JSON path `$.properties."<name>"` reads it.
                properties.push(p.replace('"', ""));
                Key::Property(properties.len() - 1)
            }
        })
        .collect();
    (keys, properties)
}

/// Joins the n-th sort property as `p<n>`: its value's storage class as SQLite's `json_extract`
/// gives it (`r`: NULL, 1 number, 2 text), the number (`n`) and the text (`t`). The body is read
/// once per row (`OFFSET 0` keeps the subquery from being inlined into every use).
fn property_join(b: &mut QueryBuilder<'_, Postgres>, n: usize, name: &str) {
    b.push(
        " CROSS JOIN LATERAL (SELECT \
             CASE json_typeof(x.v) WHEN 'number' THEN 1 WHEN 'boolean' THEN 1 \
                 WHEN 'string' THEN 2 WHEN 'array' THEN 2 WHEN 'object' THEN 2 END AS r, \
             CASE json_typeof(x.v) WHEN 'number' THEN x.v::text::numeric \
                 WHEN 'boolean' THEN CASE WHEN x.v::text = 'true' THEN 1 ELSE 0 END END AS n, \
             CASE json_typeof(x.v) WHEN 'string' THEN x.v #>> '{}' \
                 WHEN 'array' THEN x.v::text WHEN 'object' THEN x.v::text END COLLATE \"C\" AS t \
         FROM (SELECT i.body::json -> 'properties' -> ",
    )
    .push_bind(name.to_owned())
    .push(format!(" AS v OFFSET 0) x) p{n}"));
}

/// A number bound for comparison with a column or expression of type `numeric`/`bigint`.
fn push_number(b: &mut QueryBuilder<'_, Postgres>, text: &str, int: Option<i64>) {
    match int {
        Some(i) => b.push_bind(i),
        None => b.push_bind(text.to_owned()).push("::numeric"),
    };
}

/// The value of a column key as its affinity makes it.
fn column_atom(rank: u8, v: Option<&Value>) -> Atom {
    let a = Atom::of(v);
    if rank == 2 {
        a.into_text_column()
    } else {
        a.into_integer_column()
    }
}

/// Whether the key's value equals `a`.
fn push_equal(b: &mut QueryBuilder<'_, Postgres>, key: Key, a: &Atom) {
    match key {
        Key::Column { expr, rank } => match a {
            _ if a.rank() != Some(rank) => b.push("FALSE"),
            Atom::Num(text, int) => {
                b.push(expr).push(" = ");
                push_number(b, text, *int);
                b
            }
            Atom::Text(s) => b.push(expr).push(" = ").push_bind(s.clone()),
            Atom::Null => b.push("FALSE"),
        },
        Key::Property(n) => match a {
            Atom::Null => b.push(format!("p{n}.r IS NULL")),
            Atom::Num(text, _) => {
                b.push(format!("(p{n}.r = 1 AND p{n}.n = ")).push_bind(text.clone()).push("::numeric)")
            }
            Atom::Text(s) => b.push(format!("(p{n}.r = 2 AND p{n}.t = ")).push_bind(s.clone()).push(")"),
        },
    };
}

/// Whether the key's value comes after `a` in the key's direction (NULL is the smallest value).
fn push_after(b: &mut QueryBuilder<'_, Postgres>, key: Key, descending: bool, a: &Atom) {
    match key {
        Key::Column { expr, rank } => {
            match (a.rank(), a) {
                // NULL, or a number against text: the column is greater.
                (r, _) if r.is_none_or(|r| r < rank) => b.push(if descending { "FALSE" } else { "TRUE" }),
                // Text against an integer column: the column is smaller.
                (Some(r), _) if r > rank => b.push(if descending { "TRUE" } else { "FALSE" }),
                (_, Atom::Num(text, int)) => {
                    b.push(expr).push(if descending { " < " } else { " > " });
                    push_number(b, text, *int);
                    b
                }
                (_, Atom::Text(s)) => b.push(expr).push(if descending { " < " } else { " > " }).push_bind(s.clone()),
                (_, Atom::Null) => b.push("FALSE"),
            };
        }
        Key::Property(n) => {
            match (descending, a) {
                (false, Atom::Null) => b.push(format!("p{n}.r IS NOT NULL")),
                (true, Atom::Null) => b.push("FALSE"),
                (false, Atom::Num(text, _)) => b
                    .push(format!("(p{n}.r = 2 OR (p{n}.r = 1 AND p{n}.n > "))
                    .push_bind(text.clone())
                    .push("::numeric))"),
                (true, Atom::Num(text, _)) => b
                    .push(format!("(p{n}.r IS NULL OR (p{n}.r = 1 AND p{n}.n < "))
                    .push_bind(text.clone())
                    .push("::numeric))"),
                (false, Atom::Text(s)) => b.push(format!("(p{n}.r = 2 AND p{n}.t > ")).push_bind(s.clone()).push(")"),
                (true, Atom::Text(s)) => b
                    .push(format!("(p{n}.r IS NULL OR p{n}.r = 1 OR (p{n}.r = 2 AND p{n}.t < "))
                    .push_bind(s.clone())
                    .push("))"),
            };
        }
    }
}

/// Rows after the keyset position `(values, seq)` in the query's order.
fn keyset(b: &mut QueryBuilder<'_, Postgres>, q: &ItemQuery, keys: &[Key], values: &[Value], seq: i64) {
    let atoms: Vec<Atom> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| match k {
            Key::Column { rank, .. } => column_atom(*rank, values.get(i)),
            Key::Property(_) => Atom::of(values.get(i)),
        })
        .collect();
    // A bound on the first key that an index of the order can start from: every row after the
    // position has a first key at or beyond the position's (implied by the condition below).
    if let (Some(Key::Column { expr, rank }), Some(a), Some(k)) = (keys.first(), atoms.first(), q.sort.first()) {
        if a.rank() == Some(*rank) {
            b.push(" AND ").push(*expr).push(if k.descending { " <= " } else { " >= " });
            match a {
                Atom::Num(text, int) => push_number(b, text, *int),
                Atom::Text(s) => {
                    b.push_bind(s.clone());
                }
                Atom::Null => {}
            }
        }
    }
    b.push(" AND (");
    for i in 0..=keys.len() {
        if i > 0 {
            b.push(" OR ");
        }
        b.push("(");
        for j in 0..i {
            push_equal(b, keys[j], &atoms[j]);
            b.push(" AND ");
        }
        if i == keys.len() {
            b.push("i.seq > ").push_bind(seq);
        } else {
            push_after(b, keys[i], q.sort[i].descending, &atoms[i]);
        }
        b.push(")");
    }
    b.push(")");
}

/// The order: NULL is the smallest value, as in SQLite (the columns are never NULL).
fn order_by(b: &mut QueryBuilder<'_, Postgres>, q: &ItemQuery, keys: &[Key]) {
    b.push(" ORDER BY ");
    for (k, key) in q.sort.iter().zip(keys) {
        match key {
            Key::Column { expr, .. } => {
                b.push(*expr).push(if k.descending { " DESC, " } else { " ASC, " });
            }
            Key::Property(n) => {
                let dir = if k.descending { "DESC NULLS LAST" } else { "ASC NULLS FIRST" };
                b.push(format!("p{n}.r {dir}, p{n}.n {dir}, p{n}.t {dir}, "));
            }
        }
    }
    b.push("i.seq ASC");
}

fn item_conflict(collection: &str, id: &str) -> StoreError {
    DomainError::conflict(
        meridian_core::problem::code::ITEM_EXISTS,
        format!("collection {collection} already has an item {id}"),
    )
    .into()
}

/// The version of the row `select` names (its parameters bound to `keys` in order), locked by
/// the select's own locking clause until the transaction ends and checked against an
/// `If-Match` version: `None` when there is no such row.
async fn checked_version(
    conn: &mut PgConnection,
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
impl EoRepo for PgDb {
    async fn create_collection(&self, c: &EoCollection) -> Result<()> {
        let mut tx = self.write().await?;
        let done =
            sqlx::query(&format!("INSERT INTO eo_collections ({COLLECTION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)"))
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
        // Locked against other changes (and batches of items being added).
        let select = "SELECT version FROM eo_collections WHERE account_id = $1 AND id = $2 FOR NO KEY UPDATE";
        let what = format!("collection {id}");
        if checked_version(&mut tx, select, &[account.as_str(), id], &what, expected).await?.is_none() {
            return Err(DomainError::not_found("collection", id).into());
        }
        let row = sqlx::query(&format!(
            "UPDATE eo_collections SET body = $1, version = version + 1, updated_at = $2
             WHERE account_id = $3 AND id = $4 RETURNING {COLLECTION_COLUMNS}"
        ))
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
        let row =
            sqlx::query(&format!("SELECT {COLLECTION_COLUMNS} FROM eo_collections WHERE account_id = $1 AND id = $2"))
                .bind(account.as_str())
                .bind(id)
                .fetch_optional(self.read())
                .await
                .map_err(db)?;
        row.as_ref().map(collection).transpose()
    }

    async fn list_collections(&self, account: &AccountId) -> Result<Vec<EoCollection>> {
        let rows =
            sqlx::query(&format!("SELECT {COLLECTION_COLUMNS} FROM eo_collections WHERE account_id = $1 ORDER BY id"))
                .bind(account.as_str())
                .fetch_all(self.read())
                .await
                .map_err(db)?;
        rows.iter().map(collection).collect()
    }

    async fn delete_collection(&self, account: &AccountId, id: &str, expected: Option<i64>) -> Result<bool> {
        let mut tx = self.write().await?;
        // FOR UPDATE waits for batches being added (they hold the row FOR NO KEY UPDATE) and
        // makes later ones find no collection.
        let select = "SELECT version FROM eo_collections WHERE account_id = $1 AND id = $2 FOR UPDATE";
        let what = format!("collection {id}");
        if checked_version(&mut tx, select, &[account.as_str(), id], &what, expected).await?.is_none() {
            return Ok(false);
        }
        // The items go with it (ON DELETE CASCADE).
        sqlx::query("DELETE FROM eo_collections WHERE account_id = $1 AND id = $2")
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
             FROM eo_items WHERE account_id = $1 AND collection = $2",
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
        // The collection is locked until the items commit: a deletion waits for them, then takes
        // them along; and batches into one collection are stored one after another, as two
        // batches sharing ids in different orders would otherwise each wait for the other's.
        let exists: Option<i32> =
            sqlx::query_scalar("SELECT 1 FROM eo_collections WHERE account_id = $1 AND id = $2 FOR NO KEY UPDATE")
                .bind(account.as_str())
                .bind(collection_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db)?;
        if exists.is_none() {
            return Err(DomainError::not_found("collection", collection_id).into());
        }
        if items.is_empty() {
            self.commit_with_events(tx, events).await?;
            return Ok(Vec::new());
        }
        let now = Timestamp::now().millis();
        let n = items.len();
        let (mut ids, mut starts, mut ends, mut bodies) =
            (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        let mut exact: [Vec<f64>; 4] = Default::default();
        let mut tree: [Vec<f32>; 4] = Default::default();
        for it in items {
            ids.push(it.id.clone());
            starts.push(it.start_at);
            ends.push(it.end_at);
            bodies.push(it.body.to_string());
            let boxed = tree_box(it.bbox);
            for k in 0..4 {
                exact[k].push(it.bbox[k]);
                tree[k].push(boxed[k]);
            }
        }
        // One statement, in the order given (seq follows it); an id already taken is skipped
        // here and named below, and nothing is kept.
        let [min_x, min_y, max_x, max_y] = exact;
        let [box_min_x, box_min_y, box_max_x, box_max_y] = tree;
        let rows = sqlx::query(
            "INSERT INTO eo_items (account_id, collection, id, start_at, end_at, min_x, min_y, max_x, max_y,
                                   box_min_x, box_min_y, box_max_x, box_max_y, body, version, created_at, updated_at)
             SELECT $1, $2, u.id, u.start_at, u.end_at, u.min_x, u.min_y, u.max_x, u.max_y,
                    u.box_min_x, u.box_min_y, u.box_max_x, u.box_max_y, u.body, 1, $3, $3
             FROM unnest($4::text[], $5::bigint[], $6::bigint[], $7::float8[], $8::float8[], $9::float8[],
                         $10::float8[], $11::float4[], $12::float4[], $13::float4[], $14::float4[], $15::text[])
                  WITH ORDINALITY AS u(id, start_at, end_at, min_x, min_y, max_x, max_y,
                                       box_min_x, box_min_y, box_max_x, box_max_y, body, n)
             ORDER BY u.n
             ON CONFLICT DO NOTHING
             RETURNING id, seq",
        )
        .bind(account.as_str())
        .bind(collection_id)
        .bind(now)
        .bind(&ids)
        .bind(&starts)
        .bind(&ends)
        .bind(&min_x)
        .bind(&min_y)
        .bind(&max_x)
        .bind(&max_y)
        .bind(&box_min_x)
        .bind(&box_min_y)
        .bind(&box_max_x)
        .bind(&box_max_y)
        .bind(&bodies)
        .fetch_all(&mut *tx)
        .await
        .map_err(db)?;
        let mut seqs: HashMap<String, i64> = HashMap::with_capacity(rows.len());
        for row in &rows {
            seqs.insert(row.try_get("id").map_err(db)?, row.try_get("seq").map_err(db)?);
        }
        if seqs.len() < items.len() {
            // The first item whose id was taken before, or earlier in the batch.
            let mut seen = HashSet::with_capacity(items.len());
            let taken = items.iter().find(|it| !seqs.contains_key(&it.id) || !seen.insert(it.id.as_str()));
            let id = taken.map_or("", |it| it.id.as_str());
            return Err(item_conflict(collection_id, id));
        }
        let stored: Vec<EoItem> = items
            .iter()
            .map(|it| EoItem {
                seq: seqs[&it.id],
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
            })
            .collect();
        self.commit_with_events(tx, events).await?;
        self.inserted(Analyzed::EoItems, stored.len() as u64, false).await;
        Ok(stored)
    }

    async fn get_item(&self, account: &AccountId, collection_id: &str, id: &str) -> Result<Option<EoItem>> {
        let row = sqlx::query(&format!(
            "SELECT {ITEM_COLUMNS} FROM eo_items i WHERE i.account_id = $1 AND i.collection = $2 AND i.id = $3"
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
            "SELECT {ITEM_COLUMNS} FROM eo_items i WHERE i.account_id = $1 AND i.id = $2 ORDER BY i.seq LIMIT $3"
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
        let select = "SELECT version FROM eo_items WHERE account_id = $1 AND collection = $2 AND id = $3
                      FOR NO KEY UPDATE";
        let what = format!("item {}", it.id);
        let keys = [account.as_str(), collection_id, it.id.as_str()];
        if checked_version(&mut tx, select, &keys, &what, expected).await?.is_none() {
            return Err(DomainError::not_found("item", &it.id).into());
        }
        let [bx0, by0, bx1, by1] = tree_box(it.bbox);
        let row = sqlx::query(&format!(
            "UPDATE eo_items i SET start_at = $1, end_at = $2, min_x = $3, min_y = $4, max_x = $5, max_y = $6,
                    box_min_x = $7, box_min_y = $8, box_max_x = $9, box_max_y = $10, body = $11,
                    version = version + 1, updated_at = $12
             WHERE account_id = $13 AND collection = $14 AND id = $15 RETURNING {ITEM_COLUMNS}"
        ))
        .bind(it.start_at)
        .bind(it.end_at)
        .bind(it.bbox[0])
        .bind(it.bbox[1])
        .bind(it.bbox[2])
        .bind(it.bbox[3])
        .bind(bx0)
        .bind(by0)
        .bind(bx1)
        .bind(by1)
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
        let select = "SELECT version FROM eo_items WHERE account_id = $1 AND collection = $2 AND id = $3 FOR UPDATE";
        let what = format!("item {id}");
        if checked_version(&mut tx, select, &[account.as_str(), collection_id, id], &what, expected).await?.is_none() {
            return Ok(false);
        }
        sqlx::query("DELETE FROM eo_items WHERE account_id = $1 AND collection = $2 AND id = $3")
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
        // The planner picks the index that drives: (account, id) for ids, the footprints' GiST
        // index for a box that holds few items, the order's index walked until the page is full
        // otherwise (the keyset's bound on the first key is where that walk starts). Which one
        // depends on the values (how much a box holds), so the statement is planned for them
        // every time (unnamed): a cached generic plan would read a large box's every item.
        let (keys, properties) = keys(q);
        let mut b = QueryBuilder::new(format!("SELECT {ITEM_COLUMNS} FROM eo_items i"));
        for (n, p) in properties.iter().enumerate() {
            property_join(&mut b, n, p);
        }
        filters(&mut b, account, q);
        if let Some((values, seq)) = &q.after {
            keyset(&mut b, q, &keys, values, *seq);
        }
        order_by(&mut b, q, &keys);
        b.push(" LIMIT ").push_bind(i64::from(q.limit));
        let rows = b.build().persistent(false).fetch_all(self.read()).await.map_err(db)?;
        rows.iter().map(item).collect()
    }

    async fn count_items(&self, account: &AccountId, q: &ItemQuery) -> Result<u64> {
        // Planned for its values, as searches are: a box, or a time span's index.
        let mut b = QueryBuilder::new("SELECT count(*) FROM eo_items i");
        filters(&mut b, account, q);
        let n: i64 = b.build_query_scalar().persistent(false).fetch_one(self.read()).await.map_err(db)?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::{tree_box, Atom};
    use serde_json::json;

    #[test]
    fn tree_boxes_round_outward_to_32_bit_floats() {
        let b = [0.1, -0.1, 1.0 / 3.0, 52.3671];
        let t = tree_box(b);
        assert!(f64::from(t[0]) <= b[0] && f64::from(t[1]) <= b[1]);
        assert!(f64::from(t[2]) >= b[2] && f64::from(t[3]) >= b[3]);
        // Values a 32-bit float holds stay as they are.
        assert_eq!(tree_box([0.0, -90.0, 1.5, 90.0]), [0.0, -90.0, 1.5, 90.0]);
        // As SQLite's R*Tree stores them (read back from an R*Tree).
        assert_eq!(tree_box([0.1, 0.1, 0.1, 0.1]), [0.099_999_99, 0.099_999_99, 0.1, 0.1]);
    }

    #[test]
    fn sort_values_take_sqlite_storage_classes() {
        assert_eq!(Atom::of(Some(&json!(true))), Atom::Num("1".into(), Some(1)));
        assert_eq!(Atom::of(Some(&json!(2.5))), Atom::Num("2.5".into(), None));
        assert_eq!(Atom::of(Some(&json!([1, 2]))), Atom::Text("[1,2]".into()));
        assert_eq!(Atom::of(None), Atom::Null);
        assert_eq!(Atom::of(Some(&json!(7))).into_text_column(), Atom::Text("7".into()));
        assert_eq!(Atom::of(Some(&json!("12"))).into_integer_column(), Atom::Num("12".into(), Some(12)));
        assert_eq!(Atom::of(Some(&json!("x1"))).into_integer_column(), Atom::Text("x1".into()));
    }
}
