//! Listing features: what the store can decide goes into its indexes (R*Tree box, lot/plan/tenure,
//! `updated_at`, property comparisons through the value index, sort keys); the exact tests (the
//! geometry against the box, CQL2 beyond simple comparisons) run on batches streamed in order,
//! until a page is full. Pages continue by cursor (a keyset on insertion order), so page 10,000
//! costs what page 1 does. `numberMatched` comes from the store's kept count or index counts when
//! those are exact, from the scan when it reached the end, and is left out otherwise (OGC API
//! Features allows that).

use crate::{Error, FeatureService, Result, PARCELS};
use geo::MapCoords;
use meridian_core::crs::{Crs, Transformer};
use meridian_core::id::AccountId;
use meridian_features::cql2::{self, CmpOp, Expr, Operand, Subject};
use meridian_features::geometry::{self, Bbox};
use meridian_store::features::{
    Feature, FeatureQuery, Scalar, ScanFrom, ScannedFeature, SortKey, StoredFeature, ValueCondition, ValueOp,
};
use serde_json::{Map, Value};
use std::time::{Duration, Instant};

/// Default and largest page sizes of feature lists.
pub const DEFAULT_LIMIT: u32 = 100;
pub const MAX_LIMIT: u32 = 10_000;

/// How many candidates one store round trip brings.
const BATCH: u32 = 500;

/// Batches this small are tested on the request's own task rather than on a blocking thread.
const INLINE_TESTS: usize = 256;

/// Up to how many features a value condition selects for the search to start from its index.
const DRIVE_LIMIT: u64 = 50_000;

/// How many candidates one round trip of a count brings.
const COUNT_BATCH: u32 = 5_000;

/// How many candidates a count may test exactly before `numberMatched` is left out.
const COUNT_BUDGET: u64 = 20_000;
/// Edge features read with a count by box, in the same trip: a page's box has a few dozen.
const FIRST_EDGE: u32 = 1_000;

/// A feature query, independent of how it arrived (OGC API Features, the cadastre, WFS, WMS).
#[derive(Clone, Debug, Default)]
pub struct ListQuery {
    pub collection: String,
    /// CRS84 box; `min_x > max_x` crosses the antimeridian.
    pub bbox: Option<Bbox>,
    pub lot: Option<String>,
    pub plan: Option<String>,
    pub tenure: Option<String>,
    /// `updated_at` within [from, to] (milliseconds).
    pub updated_from: Option<i64>,
    pub updated_to: Option<i64>,
    /// A CQL2 filter whose geometry literals are in CRS84.
    pub filter: Option<Expr>,
    /// Equality on other queryables (`?colour=red`): strings, numbers or booleans as text.
    pub equals: Vec<(String, String)>,
    /// (property, descending); `id` and `updated_at` are properties too.
    pub sortby: Vec<(String, bool)>,
    pub limit: u32,
    pub start: Start,
}

/// Where a page begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Start {
    /// After skipping this many matches (deep offsets cost a scan; cursors do not).
    #[default]
    First,
    Offset(u64),
    Cursor(Cursor),
}

/// An opaque continuation: where the store scan stands and how many matches came before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    scan: ScanFrom,
    /// Matches before the page that starts here.
    pub offset: u64,
}

impl Cursor {
    /// The token form used in `next` links.
    pub fn token(&self) -> String {
        match self.scan {
            ScanFrom::After(seq) => format!("a{seq}-{}", self.offset),
            ScanFrom::Skip(n) => format!("s{n}-{}", self.offset),
        }
    }

    /// Reads a token; `None` when it is not one.
    pub fn parse(token: &str) -> Option<Self> {
        let (head, offset) = token.split_once('-')?;
        let offset: u64 = offset.parse().ok()?;
        let kind = head.chars().next()?;
        let n = &head[1..];
        let scan = match kind {
            'a' => ScanFrom::After(n.parse().ok().filter(|v: &i64| *v >= 0)?),
            's' => ScanFrom::Skip(n.parse().ok()?),
            _ => return None,
        };
        Some(Self { scan, offset })
    }
}

/// One page of features.
#[derive(Clone, Debug)]
pub struct FeaturePage {
    /// As stored: [`StoredFeature::parse`] gives the values.
    pub features: Vec<StoredFeature>,
    /// Matches before this page.
    pub offset: u64,
    /// How many features match in all, when known exactly.
    pub number_matched: Option<u64>,
    /// Where the next page starts, if there is one.
    pub next: Option<Cursor>,
}

impl FeaturePage {
    /// The page's features with their values, taken from the page.
    pub fn take_features(&mut self) -> Result<Vec<Feature>> {
        std::mem::take(&mut self.features).into_iter().map(|f| f.into_feature().map_err(Into::into)).collect()
    }
}

/// The queryable properties of a collection (besides `geometry` and `id`), with JSON types.
pub fn parcel_queryables() -> Vec<(String, &'static str)> {
    vec![
        ("lot".into(), "string"),
        ("plan".into(), "string"),
        ("tenure".into(), "string"),
        ("area_m2".into(), "number"),
        ("updated_at".into(), "string"),
    ]
}

/// A stored geometry as a `geo` geometry, without validating it again (it was checked on write).
fn stored_geometry(g: &Value) -> Option<geo::Geometry<f64>> {
    geometry::decode(g)
}

fn scalar_of_text(v: &str) -> Vec<Scalar> {
    let mut out = vec![Scalar::Text(v.to_owned())];
    if let Ok(n) = v.parse::<f64>() {
        if n.is_finite() {
            out.push(Scalar::Num(n));
        }
    }
    match v {
        "true" => out.push(Scalar::Bool(true)),
        "false" => out.push(Scalar::Bool(false)),
        _ => {}
    }
    out
}

fn value_op(op: CmpOp) -> ValueOp {
    match op {
        CmpOp::Eq => ValueOp::Eq,
        CmpOp::Ne => ValueOp::Ne,
        CmpOp::Lt => ValueOp::Lt,
        CmpOp::Le => ValueOp::Le,
        CmpOp::Gt => ValueOp::Gt,
        CmpOp::Ge => ValueOp::Ge,
    }
}

fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// A property the value index holds (not `id`, `geometry` or the server's `updated_at`).
fn indexed(name: &str) -> bool {
    !matches!(name, "id" | "geometry" | "updated_at")
}

/// The index condition equivalent to one CQL2 conjunct, when there is one. Equivalent means the
/// same features pass: CQL2 compares strings with strings and numbers with numbers only, as the
/// index does.
fn pushdown(e: &Expr) -> Option<Vec<ValueCondition>> {
    match e {
        Expr::Compare(op, Operand::Property(p), lit) | Expr::Compare(op, lit, Operand::Property(p)) if indexed(p) => {
            let op = if matches!(e, Expr::Compare(_, Operand::Property(_), _)) { *op } else { flip(*op) };
            let value = match lit {
                Operand::Str(s) => Scalar::Text(s.clone()),
                Operand::Num(n) if n.is_finite() => Scalar::Num(*n),
                Operand::Bool(b) => Scalar::Bool(*b),
                _ => return None,
            };
            Some(vec![ValueCondition { key: p.clone(), op: value_op(op), value }])
        }
        Expr::In { value: Operand::Property(p), list } if indexed(p) => list
            .iter()
            .map(|o| match o {
                Operand::Str(s) => {
                    Some(ValueCondition { key: p.clone(), op: ValueOp::Eq, value: Scalar::Text(s.clone()) })
                }
                Operand::Num(n) if n.is_finite() => {
                    Some(ValueCondition { key: p.clone(), op: ValueOp::Eq, value: Scalar::Num(*n) })
                }
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// Index conditions that every feature passing a conjunct also passes, for conjuncts the index
/// cannot decide exactly: a LIKE pattern's literal prefix becomes a text range.
fn narrowing(e: &Expr) -> Vec<Vec<ValueCondition>> {
    let Expr::Like { value: Operand::Property(p), pattern, case_insensitive: false } = e else { return Vec::new() };
    if !indexed(p) {
        return Vec::new();
    }
    let prefix: String = pattern.chars().take_while(|c| !matches!(c, '%' | '_' | '\\')).collect();
    if prefix.is_empty() {
        return Vec::new();
    }
    let low = ValueCondition { key: p.clone(), op: ValueOp::Ge, value: Scalar::Text(prefix.clone()) };
    // Every string that starts with the prefix sorts below the prefix followed by the largest
    // code point (byte order of UTF-8, as the index compares).
    let high = ValueCondition { key: p.clone(), op: ValueOp::Lt, value: Scalar::Text(format!("{prefix}\u{10FFFF}")) };
    vec![vec![low], vec![high]]
}

/// The store query for a list, and whether the store alone decides it exactly (apart from the box).
fn store_query(q: &ListQuery) -> (FeatureQuery, bool, bool) {
    let antimeridian = q.bbox.is_some_and(|b| b.min_x > b.max_x);
    let mut exact = true;
    let mut values = Vec::new();
    if let Some(filter) = &q.filter {
        let conjuncts: Vec<&Expr> = match filter {
            Expr::And(v) => v.iter().collect(),
            other => vec![other],
        };
        for c in conjuncts {
            match pushdown(c) {
                Some(any) => values.push(any),
                None => {
                    exact = false;
                    values.extend(narrowing(c));
                }
            }
        }
    }
    let mut equals_exact = true;
    for (key, v) in &q.equals {
        values.push(
            scalar_of_text(v)
                .into_iter()
                .map(|value| ValueCondition { key: key.clone(), op: ValueOp::Eq, value })
                .collect(),
        );
        // The index keeps arrays and objects as JSON text, which an equality parameter never
        // matches: such a value needs the exact test.
        if v.starts_with('[') || v.starts_with('{') {
            equals_exact = false;
        }
    }
    let sort = q
        .sortby
        .iter()
        .map(|(k, desc)| {
            let key = match k.as_str() {
                "id" => SortKey::Id,
                "updated_at" => SortKey::UpdatedAt,
                other => SortKey::Property(other.to_owned()),
            };
            (key, *desc)
        })
        .collect();
    let fq = FeatureQuery {
        collection: q.collection.clone(),
        bbox: if antimeridian { None } else { q.bbox.map(|b| [b.min_x, b.min_y, b.max_x, b.max_y]) },
        lot: q.lot.clone(),
        plan: q.plan.clone(),
        tenure: q.tenure.clone(),
        updated_from: q.updated_from,
        updated_to: q.updated_to,
        values,
        sort,
        bbox_edge_only: false,
        drive_by_values: false,
    };
    (fq, exact && !antimeridian, equals_exact)
}

/// The collection extents last read, kept as hints: a box that does not hold a collection's
/// last known extent is very likely not to hold its extent now, and is listed without reading
/// the extent again (one trip to the store less a request). A hint is never trusted the other
/// way: a box that holds it reads the extent again before it is widened. A stale hint therefore
/// never changes an answer, only which of two exact paths gives it; hints older than
/// [`EXTENT_HINT_TTL`] are read again, so that a collection that shrank is noticed.
#[derive(Debug, Default)]
pub struct ExtentHints(std::sync::Mutex<std::collections::HashMap<(String, String), ExtentHint>>);

/// A collection's extent (its box) and when it was read.
type ExtentHint = (Option<[f64; 4]>, Instant);

/// How long an extent hint is used.
const EXTENT_HINT_TTL: Duration = Duration::from_secs(5);

/// Most hints kept (the map is cleared past it).
const EXTENT_HINTS_MAX: usize = 10_000;

impl ExtentHints {
    /// Whether `b` may hold the collection's extent (true when there is no fresh hint).
    fn may_hold(&self, account: &AccountId, collection: &str, b: Bbox) -> bool {
        let hints = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match hints.get(&(account.as_str().to_owned(), collection.to_owned())) {
            Some((Some([x0, y0, x1, y1]), at)) if at.elapsed() < EXTENT_HINT_TTL => {
                b.min_x <= *x0 && b.min_y <= *y0 && b.max_x >= *x1 && b.max_y >= *y1
            }
            _ => true,
        }
    }

    fn note(&self, account: &AccountId, collection: &str, bbox: Option<[f64; 4]>) {
        let mut hints = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if hints.len() >= EXTENT_HINTS_MAX {
            hints.clear();
        }
        hints.insert((account.as_str().to_owned(), collection.to_owned()), (bbox, Instant::now()));
    }
}

/// The exact tests the store could not decide.
struct Residual {
    bbox: Option<Bbox>,
    equals: Vec<(String, String)>,
    filter: Option<Expr>,
}

impl Residual {
    fn matches(&self, stored: &StoredFeature) -> bool {
        let mut parsed: Option<Option<geo::Geometry<f64>>> = None;
        if let Some(b) = self.bbox {
            let Some(fb) = stored.bbox else { return false };
            if !b.intersects(&Bbox { min_x: fb[0], min_y: fb[1], max_x: fb[2], max_y: fb[3] }) {
                return false;
            }
            let box_is_whole = fb[0] >= b.min_x && fb[2] <= b.max_x && fb[1] >= b.min_y && fb[3] <= b.max_y;
            if !box_is_whole && b.min_x <= b.max_x {
                let g = stored.geometry_value().ok().flatten().as_ref().and_then(stored_geometry);
                let inside = g.as_ref().is_some_and(|g| geo::Intersects::intersects(g, &b.to_polygon()));
                if !inside {
                    return false;
                }
                parsed = Some(g);
            }
        }
        if self.equals.is_empty() && self.filter.is_none() {
            return true;
        }
        // Properties (and the geometry, for a spatial filter) are parsed only for these tests.
        let Ok(f) = stored.parse() else { return false };
        if !self.equals.iter().all(|(k, v)| match f.properties.get(k) {
            Some(Value::String(s)) => s == v,
            Some(Value::Number(n)) => v.parse::<f64>().ok() == n.as_f64(),
            Some(Value::Bool(b)) => v.parse::<bool>().ok() == Some(*b),
            _ => false,
        }) {
            return false;
        }
        let Some(expr) = &self.filter else { return true };
        let geo = match parsed {
            Some(g) => g,
            None if expr.properties().iter().any(|p| p == "geometry") => f.geometry.as_ref().and_then(stored_geometry),
            None => None,
        };
        let mut props: Map<String, Value> = f.properties.clone();
        props.insert("updated_at".into(), Value::String(f.updated_at.to_rfc3339()));
        cql2::matches(
            expr,
            &Subject { id: &f.id, properties: &props, geometry: geo.as_ref(), geometry_name: "geometry" },
        )
    }

    fn is_empty(&self) -> bool {
        self.bbox.is_none() && self.equals.is_empty() && self.filter.is_none()
    }
}

impl FeatureService {
    /// The queryables of a collection: the parcels' fixed set, or the scalar properties of the
    /// first features of an uploaded collection.
    pub async fn queryables(&self, account: &AccountId, collection: &str) -> Result<Vec<(String, &'static str)>> {
        if collection == PARCELS {
            return Ok(parcel_queryables());
        }
        let q = FeatureQuery { collection: collection.to_owned(), ..FeatureQuery::default() };
        let sample = self.store.features.scan_features(account, &q, ScanFrom::After(0), 100).await?;
        let mut out: Vec<(String, &'static str)> = vec![("updated_at".into(), "string")];
        for s in &sample {
            for (k, v) in &s.feature.parse()?.properties {
                if out.iter().any(|(n, _)| n == k) {
                    continue;
                }
                let t = match v {
                    Value::Number(_) => "number",
                    Value::Bool(_) => "boolean",
                    Value::String(_) => "string",
                    _ => continue,
                };
                out.push((k.clone(), t));
            }
        }
        Ok(out)
    }

    /// One page of a list.
    pub async fn list(&self, account: &AccountId, q: &ListQuery) -> Result<FeaturePage> {
        // A box that holds the whole collection (a map zoomed out) selects every feature: no
        // box test at all is needed then.
        let widened;
        let q = match q.bbox {
            Some(b) if b.min_x <= b.max_x && self.extents.may_hold(account, &q.collection, b) => {
                let extent = self.store.features.collection_extent(account, &q.collection).await?;
                self.extents.note(account, &q.collection, extent.bbox);
                match extent.bbox {
                    Some([x0, y0, x1, y1]) if b.min_x <= x0 && b.min_y <= y0 && b.max_x >= x1 && b.max_y >= y1 => {
                        widened = ListQuery { bbox: None, ..q.clone() };
                        &widened
                    }
                    _ => q,
                }
            }
            _ => q,
        };
        let (mut fq, store_exact, equals_exact) = store_query(q);
        // Driving the search from the value index pays when it selects few features; along the
        // collection when it selects many (the page fills early then).
        if fq.bbox.is_none() && fq.values.iter().any(|any| any.len() == 1) {
            let first = fq.values.iter().find(|any| any.len() == 1).map(|any| any[0].key.clone());
            let only_first = FeatureQuery {
                values: fq
                    .values
                    .iter()
                    .filter(|any| any.len() == 1 && Some(&any[0].key) == first.as_ref())
                    .cloned()
                    .collect(),
                drive_by_values: true,
                ..fq.clone()
            };
            let selected = self.store.features.count_features_upto(account, &only_first, DRIVE_LIMIT + 1).await?;
            fq.drive_by_values = selected <= DRIVE_LIMIT;
        }
        let residual = Residual {
            bbox: q.bbox,
            equals: if equals_exact { Vec::new() } else { q.equals.clone() },
            filter: if store_exact { None } else { q.filter.clone() },
        };
        let sorted = !fq.sort.is_empty();
        let limit = q.limit.clamp(1, MAX_LIMIT);
        // Where the scan starts, and how many matches must still be skipped from there.
        let (mut scan, mut skip, offset) = match q.start {
            Start::First => (if sorted { ScanFrom::Skip(0) } else { ScanFrom::After(0) }, 0, 0),
            Start::Cursor(c) => (c.scan, 0, c.offset),
            // Without exact tests the store skips by itself.
            Start::Offset(n) if residual.is_empty() => (ScanFrom::Skip(n), 0, n),
            Start::Offset(n) => (if sorted { ScanFrom::Skip(0) } else { ScanFrom::After(0) }, n, n),
        };
        // Each match with its position in the store's order (for sorted scans' cursors).
        let mut page: Vec<(ScannedFeature, u64)> = Vec::with_capacity(limit as usize);
        let mut exhausted = false;
        let mut next = None;
        'scan: loop {
            let room = limit - page.len() as u32;
            let want = if residual.is_empty() { room + 1 } else { BATCH.max(room + 1) };
            let base = match scan {
                ScanFrom::Skip(n) => n,
                ScanFrom::After(_) => 0,
            };
            let batch = self.store.features.scan_features(account, &fq, scan, want).await?;
            let got = batch.len() as u32;
            let last_seq = batch.last().map(|s| s.seq);
            for Positioned(s, i, ok) in self.test_batch(batch, &residual).await? {
                if !ok {
                    continue;
                }
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                if page.len() as u32 == limit {
                    // Another match exists: the next page begins right after this page's last.
                    // Unsorted lists continue by keyset, however the page started (an offset
                    // start scans by position once; the pages after it do not).
                    let resume = match page.last() {
                        Some((last, _)) if !sorted => ScanFrom::After(last.seq),
                        Some((_, pos)) => ScanFrom::Skip(pos + 1),
                        None => scan,
                    };
                    next = Some(Cursor { scan: resume, offset: offset + u64::from(limit) });
                    break 'scan;
                }
                page.push((s, base + i));
            }
            if got < want {
                exhausted = true;
                break;
            }
            scan = match scan {
                ScanFrom::After(_) => ScanFrom::After(last_seq.unwrap_or(0)),
                ScanFrom::Skip(n) => ScanFrom::Skip(n + u64::from(got)),
            };
        }
        // A scan that ran out tells the count, unless it started past the last match (an offset
        // beyond the end reads nothing and proves nothing).
        let number_matched = if exhausted && (offset == 0 || !page.is_empty()) {
            Some(offset + page.len() as u64)
        } else {
            self.count(account, &fq, store_exact, &residual).await?
        };
        Ok(FeaturePage { features: page.into_iter().map(|(s, _)| s.feature).collect(), offset, number_matched, next })
    }

    /// Runs the exact tests of a batch on a blocking thread (geometry and CQL2 are CPU work).
    async fn test_batch(&self, batch: Vec<ScannedFeature>, residual: &Residual) -> Result<Vec<Positioned>> {
        if residual.is_empty() {
            return Ok(batch.into_iter().enumerate().map(|(i, s)| Positioned(s, i as u64, true)).collect());
        }
        if batch.len() <= INLINE_TESTS {
            // A page's worth is well under a millisecond: a hand-off to a blocking thread costs more.
            return Ok(batch
                .into_iter()
                .enumerate()
                .map(|(i, s)| {
                    let ok = residual.matches(&s.feature);
                    Positioned(s, i as u64, ok)
                })
                .collect());
        }
        let residual =
            Residual { bbox: residual.bbox, equals: residual.equals.clone(), filter: residual.filter.clone() };
        tokio::task::spawn_blocking(move || {
            batch
                .into_iter()
                .enumerate()
                .map(|(i, s)| {
                    let ok = residual.matches(&s.feature);
                    Positioned(s, i as u64, ok)
                })
                .collect()
        })
        .await
        .map_err(|e| Error::Join(e.to_string()))
    }

    /// How many features match in all, when that can be known within the counting budget.
    async fn count(
        &self,
        account: &AccountId,
        fq: &FeatureQuery,
        store_exact: bool,
        residual: &Residual,
    ) -> Result<Option<u64>> {
        let only_box = store_exact && residual.equals.is_empty();
        if only_box && residual.bbox.is_none() {
            return Ok(Some(self.store.features.count_features(account, fq).await?));
        }
        let unsorted = FeatureQuery { sort: Vec::new(), ..fq.clone() };
        let (mut n, scanned, mut scan) = if only_box && fq.bbox.is_some() {
            // Features whose boxes lie inside the query box match without a look at their
            // geometry; only those on its edge need the exact test. The count and the first
            // edge features come in one trip; an edge longer than that is counted (to the
            // budget) before it is read on.
            let (inside, first) = self.store.features.count_inside_scan_edge(account, fq, FIRST_EDGE).await?;
            let got = first.len() as u32;
            let last = first.last().map(|s| s.seq).unwrap_or(0);
            let n = inside + self.test_batch(first, residual).await?.iter().filter(|p| p.2).count() as u64;
            if got < FIRST_EDGE {
                return Ok(Some(n));
            }
            let edge = FeatureQuery { bbox_edge_only: true, ..unsorted };
            if self.store.features.count_features_upto(account, &edge, COUNT_BUDGET + 1).await? > COUNT_BUDGET {
                return Ok(None);
            }
            (n, edge, ScanFrom::After(last))
        } else {
            if self.store.features.count_features_upto(account, &unsorted, COUNT_BUDGET + 1).await? > COUNT_BUDGET {
                return Ok(None);
            }
            (0, unsorted, ScanFrom::After(0))
        };
        loop {
            let batch = self.store.features.scan_features(account, &scanned, scan, COUNT_BATCH).await?;
            let got = batch.len() as u32;
            let last = batch.last().map(|s| s.seq).unwrap_or(0);
            n += self.test_batch(batch, residual).await?.iter().filter(|p| p.2).count() as u64;
            if got < COUNT_BATCH {
                return Ok(Some(n));
            }
            scan = ScanFrom::After(last);
        }
    }
}

/// A box given in `crs` as the CRS84 box that holds it (edges sampled, not only corners).
pub fn bbox_to_crs84(b: Bbox, crs: Crs) -> Option<Bbox> {
    if crs == Crs::Crs84 {
        return Some(b);
    }
    let t = Transformer::new(crs, Crs::Crs84).ok()?;
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..=8 {
        let f = f64::from(i) / 8.0;
        for (x, y) in [
            (b.min_x + f * (b.max_x - b.min_x), b.min_y),
            (b.min_x + f * (b.max_x - b.min_x), b.max_y),
            (b.min_x, b.min_y + f * (b.max_y - b.min_y)),
            (b.max_x, b.min_y + f * (b.max_y - b.min_y)),
        ] {
            let (lon, lat) = t.apply(x, y)?;
            xs.push(lon);
            ys.push(lat);
        }
    }
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(Bbox { min_x: min(&xs), min_y: min(&ys), max_x: max(&xs), max_y: max(&ys) })
}

/// A filter whose geometry literals are in `crs`, with those literals brought to CRS84.
pub fn filter_to_crs84(e: Expr, crs: Crs) -> Result<Expr, String> {
    if crs == Crs::Crs84 {
        return Ok(e);
    }
    let t = Transformer::new(crs, Crs::Crs84)?;
    fn op(o: cql2::Operand, t: &Transformer) -> cql2::Operand {
        match o {
            cql2::Operand::Geometry(g) => cql2::Operand::Geometry(g.map_coords(|c| {
                let (x, y) = t.apply(c.x, c.y).unwrap_or((f64::NAN, f64::NAN));
                geo::Coord { x, y }
            })),
            other => other,
        }
    }
    fn walk(e: Expr, t: &Transformer) -> Expr {
        match e {
            Expr::And(v) => Expr::And(v.into_iter().map(|e| walk(e, t)).collect()),
            Expr::Or(v) => Expr::Or(v.into_iter().map(|e| walk(e, t)).collect()),
            Expr::Not(e) => Expr::Not(Box::new(walk(*e, t))),
            Expr::Spatial(s, a, b) => Expr::Spatial(s, op(a, t), op(b, t)),
            other => other,
        }
    }
    Ok(walk(e, &t))
}

/// A scanned feature, its index within its batch, and whether it passed the exact tests.
struct Positioned(ScannedFeature, u64, bool);

#[cfg(test)]
mod extent_hint_tests {
    use super::*;

    #[test]
    fn a_hint_only_ever_skips_the_read_for_boxes_that_do_not_hold_it() {
        let hints = ExtentHints::default();
        let (a, c) = (AccountId("acc".into()), "parcels");
        let small = Bbox { min_x: 0.0, min_y: 0.0, max_x: 1.0, max_y: 1.0 };
        let large = Bbox { min_x: -10.0, min_y: -10.0, max_x: 10.0, max_y: 10.0 };
        // No hint: the extent is read.
        assert!(hints.may_hold(&a, c, small));
        hints.note(&a, c, Some([-5.0, -5.0, 5.0, 5.0]));
        assert!(!hints.may_hold(&a, c, small), "a box that does not hold the last extent skips the read");
        assert!(hints.may_hold(&a, c, large), "a box that holds it reads the extent again");
        assert!(hints.may_hold(&AccountId("other".into()), c, small), "hints are per account");
        hints.note(&a, c, None);
        assert!(hints.may_hold(&a, c, small), "an empty collection's hint says nothing");
    }
}
