//! The DEM area's records: uploaded datasets (the files themselves are blobs).

use meridian_core::id::AccountId;
use meridian_core::Timestamp;
use serde_json::Value;

/// An uploaded DEM as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct DemDataset {
    pub id: String,
    pub account_id: AccountId,
    /// The file name the client sent, if any.
    pub filename: Option<String>,
    /// Bytes as uploaded.
    pub size: u64,
    /// What the raster engine found in the file (the DEM crate's `RasterInfo`), as JSON.
    pub info: Value,
    pub created_at: Timestamp,
}
