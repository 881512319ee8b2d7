//! The feature collections service: the cadastre's parcels and every uploaded feature
//! collection, without HTTP.
//!
//! One write path (validation, (lot, plan) identity for parcels, server-kept properties, versions,
//! events) and one query path (bbox, CQL2, property equality, datetime, sort, paging by cursor)
//! shared by the cadastre API, OGC API Features and, later, WFS and WMS. Queries push what the
//! store can decide into its indexes and stream the rest through the exact tests in batches, so a
//! page costs the same at any collection size.

pub mod import;
pub mod query;
pub mod write;

use meridian_core::id::AccountId;
use meridian_core::{DomainError, Timestamp};
use meridian_store::features::{Extent, Feature, FeatureCollection, FeatureVersion};
use meridian_store::{Store, StoreError};

pub use import::{ImportJobHandler, Imported, UploadFormat, UploadMeta, IMPORT_JOB};
pub use query::{Cursor, FeaturePage, ListQuery, Start};
pub use write::{Batch, Draft};

/// The cadastre's collection.
pub const PARCELS: &str = "parcels";

/// What can go wrong in the feature service.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("background work failed: {0}")]
    Join(String),
    /// An upload that cannot be read as its format (400).
    #[error("{0}")]
    Malformed(String),
    /// A CRS that is named but not supported (400).
    #[error("{param}: {why}")]
    UnsupportedCrs { param: String, why: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The feature service of one platform: cheap to clone, shared by every route and job.
#[derive(Clone)]
pub struct FeatureService {
    store: Store,
    /// The extents last read, as hints for [`FeatureService::list`] (see `query::ExtentHints`).
    extents: std::sync::Arc<query::ExtentHints>,
}

impl FeatureService {
    /// A service over the store.
    pub fn new(store: Store) -> Self {
        Self { store, extents: std::sync::Arc::default() }
    }

    /// The store behind the service (for job handlers that write through it).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The cadastre's collection of an account, as it is created on first use.
    pub fn parcels_collection(account: &AccountId) -> FeatureCollection {
        let now = Timestamp::now();
        FeatureCollection {
            account_id: account.clone(),
            id: PARCELS.into(),
            title: "Parcels".into(),
            description: "Cadastral parcels".into(),
            created_at: now,
            updated_at: now,
        }
    }

    /// Every collection of an account; the parcels collection is always listed first.
    pub async fn collections(&self, account: &AccountId) -> Result<Vec<FeatureCollection>> {
        let mut list = self.store.features.list_collections(account).await?;
        if !list.iter().any(|c| c.id == PARCELS) {
            list.insert(0, Self::parcels_collection(account));
        } else if let Some(i) = list.iter().position(|c| c.id == PARCELS) {
            let parcels = list.remove(i);
            list.insert(0, parcels);
        }
        Ok(list)
    }

    /// One collection of an account (the parcels collection always exists); not-found otherwise.
    pub async fn collection(&self, account: &AccountId, id: &str) -> Result<FeatureCollection> {
        match self.store.features.get_collection(account, id).await? {
            Some(c) => Ok(c),
            None if id == PARCELS => Ok(Self::parcels_collection(account)),
            None => Err(DomainError::not_found("collection", id).into()),
        }
    }

    /// Deletes an uploaded collection and everything in it (`expected`: the `updated_at` in
    /// milliseconds that an `If-Match` named). The cadastre's parcels are retired one by one and
    /// keep their history, so their collection cannot be deleted.
    pub async fn delete_collection(&self, account: &AccountId, id: &str, expected: Option<i64>) -> Result<()> {
        if id == PARCELS {
            return Err(DomainError::conflict(
                "collection_protected",
                "the cadastre's parcels collection cannot be deleted; retire parcels one by one",
            )
            .into());
        }
        Ok(self.store.features.delete_collection(account, id, expected).await?)
    }

    /// The extent of a collection's live features.
    pub async fn extent(&self, account: &AccountId, id: &str) -> Result<Extent> {
        Ok(self.store.features.collection_extent(account, id).await?)
    }

    /// One live feature; not-found for a missing, retired or another account's feature.
    pub async fn feature(&self, account: &AccountId, collection: &str, id: &str) -> Result<Feature> {
        self.store
            .features
            .get_feature(account, collection, id)
            .await?
            .ok_or_else(|| DomainError::not_found("feature", id).into())
    }

    /// Every version of a feature.
    pub async fn history(&self, account: &AccountId, collection: &str, id: &str) -> Result<Vec<FeatureVersion>> {
        Ok(self.store.features.feature_history(account, collection, id).await?)
    }
}
