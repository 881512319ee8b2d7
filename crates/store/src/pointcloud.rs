//! The point-cloud area's records: uploaded LAS/LAZ datasets (their files are blobs).

use meridian_core::id::AccountId;
use meridian_core::Timestamp;
use serde_json::Value;

/// A point cloud as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct PointCloudRow {
    pub account_id: AccountId,
    pub id: String,
    /// `indexing`, `ready`, `classifying` or `failed`.
    pub status: String,
    /// Everything else the service keeps (name, file, what indexing and classification found).
    pub body: Value,
    /// Bumped by every change; the ETag.
    pub version: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}
