//! The DEM area's files in the blob store (`meridian_store::blobs::BlobStore`): where each
//! lives, and opening a GeoTIFF for the engine. A local (`file://`) store is read in place; any
//! other store is read with ranged GETs, so that opening a large COG fetches only its header and
//! the tiles a window needs.

use crate::{Error, Result};
use meridian_core::id::{AccountId, DatasetId, JobId};
use meridian_raster::tiff::{GeoTiff, Limits, ReadAt};
use meridian_store::blobs::{BlobStore, RangedBlob};
use tokio::runtime::Handle;

/// Where the area's blobs live, all under the owning account.
pub mod keys {
    use super::*;

    /// The folder of an uploaded dataset.
    pub fn dataset(account: &AccountId, id: &DatasetId) -> String {
        format!("{account}/dem/datasets/{id}")
    }

    /// The GeoTIFF as uploaded.
    pub fn dataset_source(account: &AccountId, id: &DatasetId) -> String {
        format!("{}/source.tif", dataset(account, id))
    }

    /// A Cloud Optimized copy of the upload, made by the first job that reads it (tiles come from it).
    pub fn dataset_cog(account: &AccountId, id: &DatasetId) -> String {
        format!("{}/cog.tif", dataset(account, id))
    }

    /// The folder of a job's outputs.
    pub fn job_outputs(account: &AccountId, job: &JobId) -> String {
        format!("{account}/dem/jobs/{job}")
    }

    /// One output of a job.
    pub fn job_output(account: &AccountId, job: &JobId, name: &str) -> String {
        format!("{}/{name}", job_outputs(account, job))
    }

    /// A cached tile of a job's layer or style.
    pub fn tile(account: &AccountId, job: &JobId, layer: &str, z: u8, x: u32, y: u32, size: usize) -> String {
        let scale = if size == 512 { "@2x" } else { "" };
        format!("{account}/dem/tiles/{job}/{layer}/{z}/{x}/{y}{scale}.png")
    }
}

/// Opens a GeoTIFF blob for the engine under `limits`. Blocking: call it from `spawn_blocking`
/// (a remote store is read with ranged GETs through `handle`).
pub fn open_geotiff(blobs: &BlobStore, key: &str, handle: &Handle, limits: Limits) -> Result<GeoTiff> {
    let blob = blobs.open_ranged(key, handle)?.ok_or_else(gone)?;
    Ok(GeoTiff::from_source_with(Box::new(Ranged(blob)), limits)?)
}

/// Removes the cached tiles of every account last written before `cutoff`; returns how many.
pub async fn evict_tiles_before(blobs: &BlobStore, cutoff: chrono::DateTime<chrono::Utc>) -> Result<u64> {
    Ok(blobs.evict_before("dem/tiles", cutoff).await?)
}

/// A raster that was removed (its dataset deleted): not found for the caller.
fn gone() -> Error {
    Error::Domain(meridian_core::DomainError::not_found("raster", "(its dataset was deleted)"))
}

/// A blob as the TIFF reader reads it.
struct Ranged(RangedBlob);

impl ReadAt for Ranged {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        self.0.read_exact_at(buf, offset)
    }

    fn size(&self) -> u64 {
        self.0.size()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use meridian_raster::Window;

    fn dem() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../raster/tests/data/swissalti3d-2573-1085.tif")
    }

    #[test]
    fn old_tiles_are_evicted_and_nothing_else() {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let blobs = meridian_backends::memory_blobs();
        let keep = ["acct_a/dem/datasets/dataset_y/source.tif", "acct_a/dem/jobs/job_z/slope.tif"];
        let tiles = ["acct_a/dem/tiles/job_z/slope/3/1/2.png", "acct_b/dem/tiles/job_w/hillshade/4/5/6@2x.png"];
        for k in keep.iter().chain(&tiles) {
            rt.block_on(blobs.put(k, Bytes::from_static(b"x"))).unwrap();
        }
        let hour = chrono::Duration::hours(1);
        // Nothing was written an hour ago.
        assert_eq!(rt.block_on(evict_tiles_before(&blobs, chrono::Utc::now() - hour)).unwrap(), 0);
        assert_eq!(rt.block_on(evict_tiles_before(&blobs, chrono::Utc::now() + hour)).unwrap(), 2);
        for k in keep {
            assert!(rt.block_on(blobs.exists(k)).unwrap(), "{k}");
        }
        for k in tiles {
            assert!(!rt.block_on(blobs.exists(k)).unwrap(), "{k}");
        }
    }

    #[test]
    fn a_remote_store_is_read_with_ranges() {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let blobs = meridian_backends::memory_blobs();
        let key = "acct_x/dem/datasets/dataset_y/source.tif";
        rt.block_on(blobs.upload_file(key, &dem())).unwrap();
        assert!(rt.block_on(blobs.exists(key)).unwrap());
        // Opened off the runtime's threads, as jobs and tiles do.
        let handle = rt.handle().clone();
        let remote = std::thread::spawn(move || {
            let t = open_geotiff(&blobs, key, &handle, Limits::default()).unwrap();
            (t.epsg(), t.read_window::<f32>(0, 0, Window::new(100, 120, 50, 40), f32::NAN).unwrap())
        })
        .join()
        .unwrap();
        let local = GeoTiff::open(dem()).unwrap();
        assert_eq!(remote.0, Some(2056));
        assert_eq!(remote.1, local.read_window::<f32>(0, 0, Window::new(100, 120, 50, 40), f32::NAN).unwrap());
    }

    #[test]
    fn keys_live_under_the_account() {
        let a = AccountId("acct_1".into());
        assert_eq!(
            keys::dataset_source(&a, &DatasetId("dataset_2".into())),
            "acct_1/dem/datasets/dataset_2/source.tif"
        );
        assert_eq!(
            keys::tile(&a, &JobId("job_3".into()), "hillshade", 14, 5, 6, 512),
            "acct_1/dem/tiles/job_3/hillshade/14/5/6@2x.png"
        );
    }
}
