//! [`EoService`]: collections, items, search and scenes of an account, over the store's
//! [`EoRepo`](meridian_store::EoRepo) and the blob store.

use crate::search::{boxes, Search, Token};
use crate::stac::{self, check_collection, check_item};
use geo::Intersects;
use meridian_collections::FeatureService;
use meridian_core::config::{Config, EoConfig};
use meridian_core::error::FieldError;
use meridian_core::event::NewEvent;
use meridian_core::id::AccountId;
use meridian_core::{DomainError, Timestamp};
use meridian_features::cql2::{self, Subject};
use meridian_features::geometry;
use meridian_raster::tiff::{GeoTiff, Limits};
use meridian_store::eo::{sort_values, CollectionSummary, EoCollection, EoItem, ItemQuery, NewItem};
use meridian_store::{BlobStore, Store, StoreError};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The event every published scene emits.
pub const SCENE_PUBLISHED: &str = "eo.scene.published";

/// What can go wrong in the EO service.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The caller's mistake (invalid input, not found, conflict).
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error("raster engine: {0}")]
    Raster(#[from] meridian_raster::Error),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Internal(String),
}

meridian_store::area_error!(Error);

impl From<meridian_dem::Error> for Error {
    fn from(e: meridian_dem::Error) -> Self {
        match e {
            meridian_dem::Error::Domain(d) => Error::Domain(d),
            meridian_dem::Error::Store(s) => Error::Store(s),
            meridian_dem::Error::Raster(r) => Error::Raster(r),
            meridian_dem::Error::Io(i) => Error::Io(i),
            meridian_dem::Error::Internal(m) => Error::Internal(m),
        }
    }
}

impl From<meridian_collections::Error> for Error {
    fn from(e: meridian_collections::Error) -> Self {
        match e {
            meridian_collections::Error::Domain(d) => Error::Domain(d),
            meridian_collections::Error::Store(s) => Error::Store(s),
            other => Error::Internal(other.to_string()),
        }
    }
}

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How many candidates one store round trip of a filtered search brings.
const BATCH: u32 = 250;

/// Up to how many candidates a filtered search tests before answering a shorter page (with a
/// `next` link) rather than scanning on.
const SCAN_BUDGET: usize = 50_000;

/// One page of a search.
#[derive(Clone, Debug)]
pub struct SearchPage {
    pub items: Vec<EoItem>,
    /// Matches in all, when known exactly.
    pub matched: Option<u64>,
    /// Where the next page starts.
    pub next: Option<Token>,
    /// The page size used.
    pub limit: u32,
}

/// The earth-observation service shared by the HTTP routes and the job handlers.
pub struct EoService {
    pub(crate) store: Store,
    pub(crate) config: EoConfig,
    pub(crate) features: FeatureService,
    pub(crate) tmp_dir: PathBuf,
    pub(crate) max_attempts: u32,
    /// Asset GeoTIFFs opened for tiles, by blob key or URL.
    pub(crate) opened: meridian_core::cache::Bounded<String, Arc<GeoTiff>>,
    /// Decoded chunks of the assets read for index tiles (`eo.block_cache_bytes`), shared by
    /// every scene. Whole-scene computations read past it, so that one does not empty it.
    pub(crate) block_cache: Option<Arc<meridian_raster::tiff::BlockCache>>,
    /// What remote asset URLs may name (the webhooks' policy).
    pub(crate) policy: meridian_egress::Policy,
    /// The client remote assets are read with.
    pub(crate) remote: reqwest::Client,
}

impl std::fmt::Debug for EoService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EoService").field("config", &self.config).finish()
    }
}

impl EoService {
    /// The service over `store`; zones come from `features` (the cadastre).
    pub fn new(config: &Config, store: Store, features: FeatureService) -> Self {
        let policy = meridian_egress::Policy {
            allow_http: config.webhooks.allow_http,
            allow_private_networks: config.webhooks.allow_private_networks,
        };
        let remote = crate::remote::client(policy);
        Self {
            store,
            config: config.eo.clone(),
            features,
            tmp_dir: config.staging_dir(),
            max_attempts: config.jobs.max_attempts,
            opened: meridian_core::cache::Bounded::entries(crate::compute::OPENED_CAPACITY),
            block_cache: (config.eo.block_cache_bytes > 0).then(|| {
                Arc::new(meridian_raster::tiff::BlockCache::new(
                    usize::try_from(config.eo.block_cache_bytes).unwrap_or(usize::MAX),
                ))
            }),
            policy,
            remote,
        }
    }

    /// Hits, misses and bytes of the block cache of index tiles (`None` when it is off).
    pub fn block_cache_stats(&self) -> Option<meridian_raster::tiff::CacheStats> {
        self.block_cache.as_ref().map(|c| c.stats())
    }

    /// The area's configuration.
    pub fn config(&self) -> &EoConfig {
        &self.config
    }

    /// The blob store assets and results live in.
    pub fn blobs(&self) -> &BlobStore {
        &self.store.blobs
    }

    /// What an asset GeoTIFF may declare.
    pub fn raster_limits(&self) -> Limits {
        Limits {
            max_pixels: self.config.max_pixels,
            max_chunk_bytes: self.config.max_chunk_bytes,
            max_chunks: self.config.max_chunks,
        }
    }

    /// Where uploads and outputs are staged, made if missing.
    pub fn staging_dir(&self) -> std::io::Result<&std::path::Path> {
        std::fs::create_dir_all(&self.tmp_dir)?;
        Ok(&self.tmp_dir)
    }

    // ---- collections

    /// Creates a collection from a STAC Collection document.
    pub async fn create_collection(&self, account: &AccountId, body: &Value) -> Result<EoCollection> {
        let body = check_collection(body, None).map_err(DomainError::Invalid)?;
        let id = body.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
        let now = Timestamp::now();
        let c = EoCollection { account_id: account.clone(), id, body, version: 1, created_at: now, updated_at: now };
        self.store.eo.create_collection(&c).await?;
        Ok(c)
    }

    /// Replaces a collection's document (`If-Match` as `expected`).
    pub async fn replace_collection(
        &self,
        account: &AccountId,
        id: &str,
        body: &Value,
        expected: Option<i64>,
    ) -> Result<EoCollection> {
        let body = check_collection(body, Some(id)).map_err(DomainError::Invalid)?;
        Ok(self.store.eo.replace_collection(account, id, &body, expected).await?)
    }

    /// One collection with what its items add up to, and the assets of its newest item.
    pub async fn collection(
        &self,
        account: &AccountId,
        id: &str,
    ) -> Result<(EoCollection, CollectionSummary, Option<Value>)> {
        let c =
            self.store.eo.get_collection(account, id).await?.ok_or_else(|| DomainError::not_found("collection", id))?;
        let summary = self.store.eo.collection_summary(account, id).await?;
        let q = ItemQuery {
            collections: vec![id.to_owned()],
            sort: meridian_store::eo::default_sort(),
            limit: 1,
            ..ItemQuery::default()
        };
        let first = self.store.eo.search_items(account, &q).await?.into_iter().next();
        Ok((c, summary, first.and_then(|i| i.body.get("assets").cloned())))
    }

    /// The account's collections.
    pub async fn collections(
        &self,
        account: &AccountId,
    ) -> Result<Vec<(EoCollection, CollectionSummary, Option<Value>)>> {
        let list = self.store.eo.list_collections(account).await?;
        let mut out = Vec::with_capacity(list.len());
        for c in list {
            out.push(self.collection(account, &c.id).await?);
        }
        Ok(out)
    }

    /// Deletes a collection, its items and their stored assets.
    pub async fn delete_collection(&self, account: &AccountId, id: &str, expected: Option<i64>) -> Result<()> {
        if !self.store.eo.delete_collection(account, id, expected).await? {
            return Err(DomainError::not_found("collection", id).into());
        }
        self.forget_opened(&keys::collection(account, id));
        if let Err(e) = self.blobs().delete_prefix(&keys::collection(account, id)).await {
            tracing::warn!(error = %e, collection = id, "removing a deleted collection's assets failed");
        }
        Ok(())
    }

    // ---- items

    /// Adds items given as JSON: one Item, or a FeatureCollection of Items (all or none). Asset
    /// hrefs must be http(s) URLs.
    pub async fn add_items(&self, account: &AccountId, collection: &str, body: &Value) -> Result<Vec<EoItem>> {
        let (docs, base): (Vec<&Value>, &str) = match body.get("type").and_then(Value::as_str) {
            Some("FeatureCollection") => match body.get("features").and_then(Value::as_array) {
                Some(list) => (list.iter().collect(), "/features"),
                None => {
                    return Err(
                        DomainError::invalid("/features", "required", "a FeatureCollection has `features`").into()
                    )
                }
            },
            _ => (vec![body], ""),
        };
        if docs.is_empty() {
            return Err(DomainError::invalid("/features", "empty", "send at least one item").into());
        }
        if docs.len() > self.config.max_items_per_request {
            return Err(DomainError::TooLarge(format!(
                "at most {} items in one request (eo.max_items_per_request)",
                self.config.max_items_per_request
            ))
            .into());
        }
        let mut errors = Vec::new();
        let mut items = Vec::with_capacity(docs.len());
        let mut seen = std::collections::HashSet::new();
        for (i, doc) in docs.iter().enumerate() {
            let pointer = if base.is_empty() { String::new() } else { format!("{base}/{i}") };
            match check_item(doc, collection, None, &pointer) {
                Ok(item) => {
                    check_remote_hrefs(&self.policy, &item.body, &pointer, &mut errors);
                    if !seen.insert(item.id.clone()) {
                        errors.push(FieldError::new(
                            format!("{pointer}/id"),
                            "duplicate",
                            "the request names this id twice",
                        ));
                    }
                    items.push(item);
                }
                Err(mut e) => errors.append(&mut e),
            }
            if errors.len() > 100 {
                break;
            }
        }
        if !errors.is_empty() {
            return Err(DomainError::Invalid(errors).into());
        }
        self.insert(account, collection, &items).await
    }

    /// Stores checked items with their `eo.scene.published` events.
    pub(crate) async fn insert(&self, account: &AccountId, collection: &str, items: &[NewItem]) -> Result<Vec<EoItem>> {
        let events: Vec<NewEvent> = items.iter().map(|i| published_event(account, collection, i)).collect();
        Ok(self.store.eo.insert_items(account, collection, items, &events).await?)
    }

    /// One item of a collection.
    pub async fn item(&self, account: &AccountId, collection: &str, id: &str) -> Result<EoItem> {
        self.store.eo.get_item(account, collection, id).await?.ok_or_else(|| DomainError::not_found("item", id).into())
    }

    /// Replaces an item with a new document (`If-Match` as `expected`). Assets Meridian stores
    /// must keep their hrefs.
    pub async fn replace_item(
        &self,
        account: &AccountId,
        collection: &str,
        id: &str,
        body: &Value,
        expected: Option<i64>,
    ) -> Result<EoItem> {
        let current = self.item(account, collection, id).await?;
        let item = check_item(body, collection, Some(id), "").map_err(DomainError::Invalid)?;
        let mut errors = Vec::new();
        check_hrefs_against(&current, &item.body, &mut errors);
        if !errors.is_empty() {
            return Err(DomainError::Invalid(errors).into());
        }
        let event = published_event(account, collection, &item);
        Ok(self.store.eo.replace_item(account, collection, &item, expected, &[event]).await?)
    }

    /// Applies a JSON merge patch (RFC 7396) to an item.
    pub async fn patch_item(
        &self,
        account: &AccountId,
        collection: &str,
        id: &str,
        patch: &Value,
        expected: Option<i64>,
    ) -> Result<EoItem> {
        let current = self.item(account, collection, id).await?;
        if expected.is_some_and(|e| e != current.version) {
            return Err(DomainError::PreconditionFailed(format!("item {id} is at version {}", current.version)).into());
        }
        let mut doc = current.body.clone();
        merge_patch(&mut doc, patch, 0);
        self.replace_item(account, collection, id, &doc, Some(current.version)).await
    }

    /// Deletes an item and its stored assets.
    pub async fn delete_item(
        &self,
        account: &AccountId,
        collection: &str,
        id: &str,
        expected: Option<i64>,
    ) -> Result<()> {
        if !self.store.eo.delete_item(account, collection, id, expected).await? {
            return Err(DomainError::not_found("item", id).into());
        }
        self.forget_opened(&format!("{}/", keys::item(account, collection, id)));
        if let Err(e) = self.blobs().delete_prefix(&keys::item(account, collection, id)).await {
            tracing::warn!(error = %e, item = id, "removing a deleted item's assets failed");
        }
        Ok(())
    }

    /// A scene by reference: `collection/item`, or an item id unique among the account's items.
    pub async fn scene(&self, account: &AccountId, reference: &str) -> Result<EoItem> {
        if let Some((c, i)) = reference.split_once('/') {
            return self.item(account, c, i).await.map_err(|e| match e {
                Error::Domain(DomainError::NotFound { .. }) => DomainError::not_found("scene", reference).into(),
                other => other,
            });
        }
        let mut found = self.store.eo.find_items(account, reference, 2).await?;
        match found.len() {
            0 => Err(DomainError::not_found("scene", reference).into()),
            1 => Ok(found.remove(0)),
            _ => Err(DomainError::conflict(
                meridian_core::problem::code::AMBIGUOUS_SCENE,
                format!("several collections hold an item {reference}; name the scene as collection/item"),
            )
            .into()),
        }
    }

    // ---- search

    /// Runs an item search: the store applies collections, ids, box, time and order; CQL2
    /// filters and `intersects` are tested here on candidates streamed in order.
    pub async fn search(&self, account: &AccountId, s: &Search) -> Result<SearchPage> {
        let limit = s.limit.unwrap_or(self.config.default_limit).min(self.config.max_limit).max(1);
        let search_box = s.bbox.or_else(|| {
            s.intersects.as_ref().and_then(geometry::bbox_of).map(|b| [b.min_x, b.min_y, b.max_x, b.max_y])
        });
        let mut q = ItemQuery {
            collections: s.collections.clone(),
            ids: s.ids.clone(),
            boxes: search_box.map(boxes).unwrap_or_default(),
            time: s.time,
            sort: s.sort.clone(),
            after: s.token.as_ref().map(|t| (t.values.clone(), t.seq)),
            limit: 0,
        };
        let offset = s.token.as_ref().map(|t| t.offset).unwrap_or(0);
        let tested = s.filter.is_some() || s.intersects.is_some();
        let want = limit as usize + 1;
        let mut found: Vec<EoItem> = Vec::new();
        let mut scanned = 0usize;
        let mut exhausted = false;
        let mut last_scanned: Option<EoItem> = None;
        loop {
            q.limit = if tested { BATCH } else { want as u32 };
            let batch = self.store.eo.search_items(account, &q).await?;
            let n = batch.len();
            for item in batch {
                scanned += 1;
                if !tested || self.passes(&item, s) {
                    found.push(item.clone());
                }
                last_scanned = Some(item);
                if found.len() >= want {
                    break;
                }
            }
            if found.len() >= want {
                break;
            }
            if n < q.limit as usize {
                exhausted = true;
                break;
            }
            if !tested || scanned >= SCAN_BUDGET {
                break;
            }
            if let Some(last) = &last_scanned {
                q.after = Some((sort_values(last, &q.sort), last.seq));
            }
        }
        let mut next = None;
        if found.len() > limit as usize {
            found.truncate(limit as usize);
            if let Some(last) = found.last() {
                next = Some(Token { values: sort_values(last, &s.sort), seq: last.seq, offset: offset + limit as u64 });
            }
        } else if !exhausted && tested {
            // The scan budget ran out: continue after the last candidate tested.
            if let Some(last) = &last_scanned {
                next = Some(Token {
                    values: sort_values(last, &s.sort),
                    seq: last.seq,
                    offset: offset + found.len() as u64,
                });
            }
        }
        let matched = if !tested {
            let mut count_q = q.clone();
            count_q.after = None;
            Some(self.store.eo.count_items(account, &count_q).await?)
        } else if next.is_none() {
            Some(offset + found.len() as u64)
        } else {
            None
        };
        Ok(SearchPage { items: found, matched, next, limit })
    }

    fn passes(&self, item: &EoItem, s: &Search) -> bool {
        let geom = item.body.get("geometry").and_then(geometry::decode);
        if let Some(g) = &s.intersects {
            if !geom.as_ref().is_some_and(|ig| ig.intersects(g)) {
                return false;
            }
        }
        if let Some(f) = &s.filter {
            let mut props: Map<String, Value> =
                item.body.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
            props.insert("collection".into(), json!(item.collection));
            let subject =
                Subject { id: &item.id, properties: &props, geometry: geom.as_ref(), geometry_name: "geometry" };
            return cql2::matches(f, &subject);
        }
        true
    }

    /// Queryables beyond the common ones: the properties of a collection's newest items, with
    /// their JSON types.
    pub async fn extra_queryables(
        &self,
        account: &AccountId,
        collection: Option<&str>,
    ) -> Result<Vec<(String, &'static str)>> {
        let q = ItemQuery {
            collections: collection.map(|c| vec![c.to_owned()]).unwrap_or_default(),
            sort: meridian_store::eo::default_sort(),
            limit: 50,
            ..ItemQuery::default()
        };
        let mut out: Vec<(String, &'static str)> = Vec::new();
        for item in self.store.eo.search_items(account, &q).await? {
            if let Some(props) = item.body.get("properties").and_then(Value::as_object) {
                for (k, v) in props {
                    let kind = match v {
                        Value::String(_) => "string",
                        Value::Number(_) => "number",
                        Value::Bool(_) => "boolean",
                        Value::Array(_) => "array",
                        _ => continue,
                    };
                    if !out.iter().any(|(n, _)| n == k) {
                        out.push((k.clone(), kind));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The `eo.scene.published` event of an item.
pub(crate) fn published_event(account: &AccountId, collection: &str, item: &NewItem) -> NewEvent {
    let mut fields = Map::new();
    fields.insert("scene".into(), json!(format!("{collection}/{}", item.id)));
    fields.insert("collection".into(), json!(collection));
    fields.insert("item".into(), json!(item.id));
    fields.insert("datetime".into(), json!(stac::format_instant(item.start_at)));
    if item.bbox.iter().all(|v| v.abs() <= 180.0) {
        fields.insert("bbox".into(), json!(item.bbox));
    }
    fields.insert("href".into(), json!(format!("{}/collections/{collection}/items/{}", stac::ROOT, item.id)));
    NewEvent::new(account.clone(), SCENE_PUBLISHED, fields)
}

/// Asset hrefs of items sent as JSON: http(s) URLs that the SSRF guard accepts (the scheme, and
/// addresses written as IP literals; names are checked again when an asset is read).
fn check_remote_hrefs(policy: &meridian_egress::Policy, body: &Value, pointer: &str, errors: &mut Vec<FieldError>) {
    if let Some(assets) = body.get("assets").and_then(Value::as_object) {
        for (k, a) in assets {
            let href = a.get("href").and_then(Value::as_str).unwrap_or("");
            let at = format!("{pointer}/assets/{k}/href");
            if !(href.starts_with("https://") || href.starts_with("http://")) {
                errors.push(FieldError::new(
                    at,
                    "invalid_href",
                    "an asset href is an http(s) URL; upload files as multipart/form-data parts",
                ));
            } else if let Err(refusal) = policy.check_url(href) {
                errors.push(FieldError::new(at, refusal.code(), refusal.to_string()));
            }
        }
    }
}

/// A replacement may keep, drop or add remote assets, but a stored asset keeps its href.
fn check_hrefs_against(current: &EoItem, new_body: &Value, errors: &mut Vec<FieldError>) {
    let stored: HashMap<&str, &str> = current
        .body
        .get("assets")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, a)| {
                    a.get("href").and_then(Value::as_str).filter(|h| h.starts_with('/')).map(|h| (k.as_str(), h))
                })
                .collect()
        })
        .unwrap_or_default();
    if let Some(assets) = new_body.get("assets").and_then(Value::as_object) {
        for (k, a) in assets {
            let href = a.get("href").and_then(Value::as_str).unwrap_or("");
            let ok = match stored.get(k.as_str()) {
                Some(h) => href == *h || href.ends_with(h),
                None => href.starts_with("https://") || href.starts_with("http://"),
            };
            if !ok {
                errors.push(FieldError::new(
                    format!("/assets/{k}/href"),
                    "invalid_href",
                    "a stored asset keeps its href; other assets are http(s) URLs",
                ));
            }
        }
    }
}

/// RFC 7396 merge patch, with a depth bound.
fn merge_patch(target: &mut Value, patch: &Value, depth: usize) {
    match patch {
        Value::Object(p) if depth < 32 => {
            if !target.is_object() {
                *target = json!({});
            }
            if let Some(t) = target.as_object_mut() {
                for (k, v) in p {
                    if v.is_null() {
                        t.remove(k);
                    } else {
                        merge_patch(t.entry(k.clone()).or_insert(Value::Null), v, depth + 1);
                    }
                }
            }
        }
        other => *target = other.clone(),
    }
}

/// Where the area's blobs live, all under the owning account.
pub mod keys {
    use meridian_core::id::AccountId;

    /// A collection's stored assets.
    pub fn collection(account: &AccountId, collection: &str) -> String {
        format!("{account}/eo/items/{collection}")
    }

    /// An item's stored assets.
    pub fn item(account: &AccountId, collection: &str, item: &str) -> String {
        format!("{account}/eo/items/{collection}/{item}")
    }

    /// One stored asset.
    pub fn asset(account: &AccountId, collection: &str, item: &str, asset: &str) -> String {
        format!("{account}/eo/items/{collection}/{item}/{asset}.tif")
    }

    /// Files staged for an ingest job.
    pub fn staged(account: &AccountId, job: &str) -> String {
        format!("{account}/eo/staging/{job}")
    }

    /// A computation's outputs.
    pub fn result(account: &AccountId, id: &str) -> String {
        format!("{account}/eo/results/{id}")
    }
}

/// The href of a stored asset (a path; answers make it absolute).
pub fn asset_href(collection: &str, item: &str, asset: &str) -> String {
    format!("{}/collections/{collection}/items/{item}/assets/{asset}", stac::ROOT)
}
