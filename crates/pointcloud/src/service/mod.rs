//! [`PointCloudService`]: the point-cloud area without HTTP. Uploaded LAS/LAZ files are checked
//! and stored as blobs with a row each (`meridian_store::PointCloudRepo`); the `pointcloud.index`
//! job reads every point once ([`crate::summary`]), the `pointcloud.classify` job runs the
//! classification pipeline and stores the classified version beside the original, and downloads
//! are the stored files or conversions of them (LAS, LAZ, COPC; bbox and class filters).

mod classify;
mod datasets;
mod download;
mod index;

pub use classify::{ClassifyJobHandler, ClassifyParams};
pub use datasets::{Classification, Dataset, Status, UploadParams};
pub use download::{DownloadFormat, DownloadRequest, Prepared, Version};
pub use index::IndexJobHandler;

use meridian_core::config::{Config, PointCloudConfig};
use meridian_core::id::{AccountId, PointCloudId};
use meridian_core::DomainError;
use meridian_store::{BlobStore, Store, StoreError};
use std::path::{Path, PathBuf};

/// The job kind that indexes an upload.
pub const INDEX_JOB: &str = "pointcloud.index";
/// The job kind that classifies a point cloud.
pub const CLASSIFY_JOB: &str = "pointcloud.classify";
/// The event of a point cloud indexed and ready.
pub const UPLOADED: &str = "pointcloud.uploaded";
/// The event of a classification stored.
pub const CLASSIFIED: &str = "pointcloud.classified";
/// The event of an indexing or classification that failed.
pub const FAILED: &str = "pointcloud.failed";

/// What can go wrong in the point-cloud service.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The caller's mistake (invalid input, not found, conflict).
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Internal(String),
}

meridian_store::area_error!(Error);

/// Results of the service.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Where the area's blobs live, all under the owning account.
pub mod keys {
    use super::*;

    /// The folder of a point cloud.
    pub fn dataset(account: &AccountId, id: &PointCloudId) -> String {
        format!("{account}/pointcloud/{id}")
    }

    /// The file as uploaded (`las` or `laz`).
    pub fn original(account: &AccountId, id: &PointCloudId, ext: &str) -> String {
        format!("{}/original.{ext}", dataset(account, id))
    }

    /// The latest classified version (LAZ).
    pub fn classified(account: &AccountId, id: &PointCloudId) -> String {
        format!("{}/classified.laz", dataset(account, id))
    }

    /// Conversions of a version kept for downloads.
    pub fn cache(account: &AccountId, id: &PointCloudId) -> String {
        format!("{}/cache", dataset(account, id))
    }

    /// One cached conversion: `<version>.<format extension>`.
    pub fn cached(account: &AccountId, id: &PointCloudId, tag: &str, ext: &str) -> String {
        format!("{}/{tag}.{ext}", cache(account, id))
    }
}

/// The point-cloud service shared by the HTTP routes and the job handlers.
pub struct PointCloudService {
    pub(crate) store: Store,
    pub(crate) config: PointCloudConfig,
    pub(crate) tmp_dir: PathBuf,
    pub(crate) max_attempts: u32,
    pub(crate) model: std::sync::OnceLock<std::result::Result<std::sync::Arc<crate::learn::Model>, String>>,
    /// Whole-file conversions running, by the key they will be kept under: each runs once
    /// however many requests ask for it (docs/pointcloud.md, "Downloads").
    pub(crate) conversions: download::Conversions,
}

impl std::fmt::Debug for PointCloudService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PointCloudService").field("config", &self.config).finish()
    }
}

impl PointCloudService {
    /// The service over `store`, staging files in `<data_dir>/tmp`.
    pub fn new(config: &Config, store: Store) -> Self {
        Self {
            store,
            config: config.pointcloud.clone(),
            tmp_dir: config.staging_dir(),
            max_attempts: config.jobs.max_attempts,
            model: std::sync::OnceLock::new(),
            conversions: download::Conversions::default(),
        }
    }

    /// The area's configuration.
    pub fn config(&self) -> &PointCloudConfig {
        &self.config
    }

    /// The blob store the files live in.
    pub fn blobs(&self) -> &BlobStore {
        &self.store.blobs
    }

    /// Where uploads and outputs are staged, made if missing.
    pub fn staging_dir(&self) -> std::io::Result<&Path> {
        std::fs::create_dir_all(&self.tmp_dir)?;
        Ok(&self.tmp_dir)
    }

    /// What the reader accepts from an upload.
    pub fn read_limits(&self) -> crate::reader::Limits {
        crate::reader::Limits { max_points: self.config.max_points }
    }

    /// The classifier: the configured model file, else the one built in; loaded once.
    pub fn model(&self) -> Result<std::sync::Arc<crate::learn::Model>> {
        let loaded = self.model.get_or_init(|| {
            let model = if self.config.model.is_empty() {
                crate::learn::Model::default_model().map_err(|e| e.to_string())
            } else {
                std::fs::read(&self.config.model)
                    .map_err(|e| format!("{}: {e}", self.config.model))
                    .and_then(|bytes| crate::learn::Model::from_bytes(&bytes).map_err(|e| e.to_string()))
            };
            model.map(std::sync::Arc::new).map_err(|e| format!("the classifier model cannot be loaded: {e}"))
        });
        loaded.clone().map_err(Error::Internal)
    }

    /// A local path of a blob: the file itself on a local store, else a downloaded copy in `dir`.
    pub(crate) async fn local_copy(&self, key: &str, dir: &Path) -> Result<PathBuf> {
        if let Some(p) = self.blobs().local_path(key) {
            if p.exists() {
                return Ok(p);
            }
        }
        let path = dir.join(key.replace('/', "_"));
        // Streamed from the store: a large file never sits whole in memory.
        if !self.blobs().download_to(key, &path).await? {
            return Err(DomainError::not_found("file", key).into());
        }
        Ok(path)
    }
}
