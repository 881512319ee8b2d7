//! Meridian's point-cloud engine, without HTTP: LAS/LAZ files read under limits into columns
//! ([`reader`]). The service (uploads, classification jobs, downloads) will be built on it.

pub mod reader;

pub use reader::{Limits, PointCloud, PointCloudInfo, ReadError};
