//! Meridian's persistence, as the rest of the platform sees it: the records, the repository
//! traits every backend implements (`meridian-store-sqlite` is the embedded default), the state
//! machines they share, the store's errors, and the blob store's interface. No SQL and no
//! database driver live here; `meridian-backends` opens a configured backend.

pub mod blobs;
pub mod dem;
pub mod dns;
pub mod duties;
pub mod eo;
pub mod error;
pub mod features;
pub mod model;
pub mod notices;
pub mod pointcloud;
pub mod repo;
pub mod seats;
pub mod signal;
pub mod staging;
pub mod twin;

pub use blobs::{BlobBackend, BlobStore};
pub use error::{AreaError, ErrorClass, Result, StoreError};
pub use notices::{Notice, Notices};
pub use repo::{
    AccountRepo, DemRepo, DnsRepo, EoRepo, FeatureRepo, JobRepo, OutboxRepo, PointCloudRepo, SettingsRepo, Store,
    TwinRepo,
};
pub use signal::Signal;
