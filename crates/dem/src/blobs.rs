//! The DEM area's files in the blob store: where each lives, streaming writes, and opening a
//! GeoTIFF for the engine. A local (`file://`) store is read in place; any other store is read
//! with ranged GETs, so that opening a large COG fetches only its header and the tiles a window
//! needs.

use crate::{Error, Result};
use bytes::Bytes;
use futures::StreamExt;
use meridian_core::id::{AccountId, DatasetId, JobId};
use meridian_raster::tiff::{GeoTiff, Limits, ReadAt};
use object_store::path::Path;
use object_store::{ObjectStore, PutPayload, WriteMultipart};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::io::AsyncReadExt;
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

    /// The dataset's record.
    pub fn dataset_record(account: &AccountId, id: &DatasetId) -> String {
        format!("{}/dataset.json", dataset(account, id))
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

/// The blob store as the DEM area uses it.
#[derive(Clone, Debug)]
pub struct Blobs {
    store: Arc<dyn ObjectStore>,
    /// The folder behind a `file://` store, where a key is a relative path.
    local_root: Option<PathBuf>,
}

impl Blobs {
    /// Wraps a store; `local_root` is the folder of a `file://` store.
    pub fn new(store: Arc<dyn ObjectStore>, local_root: Option<PathBuf>) -> Self {
        Self { store, local_root }
    }

    /// The store itself, for streaming reads.
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// The file behind a key, for a local store.
    pub fn local_path(&self, key: &str) -> Option<PathBuf> {
        self.local_root.as_ref().map(|root| root.join(key))
    }

    /// Whether a blob exists.
    pub async fn exists(&self, key: &str) -> Result<bool> {
        match self.store.head(&Path::from(key)).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Reads a whole (small) blob; `None` when absent.
    pub async fn get(&self, key: &str) -> Result<Option<Bytes>> {
        match self.store.get(&Path::from(key)).await {
            Ok(r) => Ok(Some(r.bytes().await?)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Writes a whole (small) blob.
    pub async fn put(&self, key: &str, data: Bytes) -> Result<()> {
        self.store.put(&Path::from(key), PutPayload::from_bytes(data)).await?;
        Ok(())
    }

    /// Deletes one blob; an absent one is not an error.
    pub async fn delete(&self, key: &str) -> Result<()> {
        match self.store.delete(&Path::from(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// A JSON record; `None` when absent.
    pub async fn get_json<T: serde::de::DeserializeOwned>(&self, key: &str) -> Result<Option<T>> {
        match self.get(key).await? {
            Some(bytes) => Ok(Some(
                serde_json::from_slice(&bytes)
                    .map_err(|e| Error::Internal(format!("record {key} is unreadable: {e}")))?,
            )),
            None => Ok(None),
        }
    }

    /// Writes a JSON record.
    pub async fn put_json<T: serde::Serialize>(&self, key: &str, value: &T) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(value).map_err(|e| Error::Internal(e.to_string()))?;
        self.put(key, Bytes::from(bytes)).await
    }

    /// Streams a local file into the store (multipart: never the whole file in memory); returns
    /// its size.
    pub async fn upload_file(&self, key: &str, file: &std::path::Path) -> Result<u64> {
        let mut f = tokio::fs::File::open(file).await?;
        let upload = self.store.put_multipart(&Path::from(key)).await?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, 8 << 20);
        let mut buf = vec![0u8; 1 << 20];
        let mut total = 0u64;
        loop {
            let n = f.read(&mut buf).await?;
            if n == 0 {
                break;
            }
            writer.wait_for_capacity(4).await?;
            writer.write(&buf[..n]);
            total += n as u64;
        }
        writer.finish().await?;
        Ok(total)
    }

    /// Deletes every blob under a folder (best effort for cleanup after a failed request).
    pub async fn delete_prefix(&self, prefix: &str) -> Result<()> {
        let prefix = Path::from(prefix);
        let mut listing = self.store.list(Some(&prefix));
        let mut paths = Vec::new();
        while let Some(meta) = listing.next().await {
            paths.push(meta?.location);
        }
        for p in paths {
            match self.store.delete(&p).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// Removes the cached tiles of every account last written before `cutoff`; returns how many.
    pub async fn evict_tiles_before(&self, cutoff: chrono::DateTime<chrono::Utc>) -> Result<u64> {
        let accounts = self.store.list_with_delimiter(None).await?;
        let mut removed = 0u64;
        for account in accounts.common_prefixes {
            let prefix = account.child("dem").child("tiles");
            let mut listing = self.store.list(Some(&prefix));
            let mut old = Vec::new();
            while let Some(meta) = listing.next().await {
                let meta = meta?;
                if meta.last_modified < cutoff {
                    old.push(meta.location);
                }
            }
            for path in old {
                match self.store.delete(&path).await {
                    Ok(()) | Err(object_store::Error::NotFound { .. }) => removed += 1,
                    Err(e) => return Err(e.into()),
                }
            }
        }
        Ok(removed)
    }

    /// Opens a GeoTIFF blob for the engine under `limits`. Blocking: call it from
    /// `spawn_blocking` (a remote store is read through `handle`).
    pub fn open_geotiff(&self, key: &str, handle: &Handle, limits: Limits) -> Result<GeoTiff> {
        if let Some(path) = self.local_path(key) {
            return match std::fs::File::open(&path) {
                Ok(f) => Ok(GeoTiff::from_source_with(Box::new(f), limits)?),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(gone()),
                Err(e) => Err(e.into()),
            };
        }
        let path = Path::from(key);
        let size = match handle.block_on(self.store.head(&path)) {
            Ok(meta) => meta.size,
            Err(object_store::Error::NotFound { .. }) => return Err(gone()),
            Err(e) => return Err(e.into()),
        };
        let source = RangedBlob { store: self.store.clone(), path, size, handle: handle.clone() };
        Ok(GeoTiff::from_source_with(Box::new(source), limits)?)
    }
}

/// A raster that was removed (its dataset deleted): not found for the caller.
fn gone() -> Error {
    Error::Domain(meridian_core::DomainError::not_found("raster", "(its dataset was deleted)"))
}

/// A blob read with ranged GETs.
struct RangedBlob {
    store: Arc<dyn ObjectStore>,
    path: Path,
    size: u64,
    handle: Handle,
}

impl ReadAt for RangedBlob {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let end = offset.checked_add(buf.len() as u64).ok_or(std::io::ErrorKind::UnexpectedEof)?;
        if end > self.size {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let bytes =
            self.handle.block_on(self.store.get_range(&self.path, offset..end)).map_err(std::io::Error::other)?;
        if bytes.len() != buf.len() {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.copy_from_slice(&bytes);
        Ok(())
    }

    fn size(&self) -> u64 {
        self.size
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use meridian_raster::Window;
    use object_store::memory::InMemory;

    fn dem() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../raster/tests/data/swissalti3d-2573-1085.tif")
    }

    #[test]
    fn old_tiles_are_evicted_and_nothing_else() {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let blobs = Blobs::new(Arc::new(InMemory::new()), None);
        let keep = ["acct_a/dem/datasets/dataset_y/source.tif", "acct_a/dem/jobs/job_z/slope.tif"];
        let tiles = ["acct_a/dem/tiles/job_z/slope/3/1/2.png", "acct_b/dem/tiles/job_w/hillshade/4/5/6@2x.png"];
        for k in keep.iter().chain(&tiles) {
            rt.block_on(blobs.put(k, Bytes::from_static(b"x"))).unwrap();
        }
        let hour = chrono::Duration::hours(1);
        // Nothing was written an hour ago.
        assert_eq!(rt.block_on(blobs.evict_tiles_before(chrono::Utc::now() - hour)).unwrap(), 0);
        assert_eq!(rt.block_on(blobs.evict_tiles_before(chrono::Utc::now() + hour)).unwrap(), 2);
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
        let blobs = Blobs::new(Arc::new(InMemory::new()), None);
        let key = "acct_x/dem/datasets/dataset_y/source.tif";
        rt.block_on(blobs.upload_file(key, &dem())).unwrap();
        assert!(rt.block_on(blobs.exists(key)).unwrap());
        // Opened off the runtime's threads, as jobs and tiles do.
        let handle = rt.handle().clone();
        let remote = std::thread::spawn(move || {
            let t = blobs.open_geotiff(key, &handle, Limits::default()).unwrap();
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
