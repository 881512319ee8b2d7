//! Meridian's persistence: repository traits that the rest of the platform codes against, the
//! SQLite implementation (the embedded default; PostgreSQL implements the same traits), embedded
//! migrations, and the blob store.

pub mod blobs;
pub mod dem;
pub mod dns;
pub mod eo;
pub mod error;
pub mod features;
pub mod model;
mod open;
pub mod pointcloud;
pub mod repo;
pub mod signal;
pub mod sqlite;
pub mod staging;
pub mod twin;

pub use blobs::BlobStore;
pub use error::{AreaError, ErrorClass, Result, StoreError};
pub use repo::{
    AccountRepo, DemRepo, DnsRepo, EoRepo, FeatureRepo, JobRepo, OutboxRepo, PointCloudRepo, SettingsRepo, Store,
    TwinRepo,
};
pub use signal::Signal;
