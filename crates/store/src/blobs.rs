//! Blobs (uploads, rasters, outputs, tile caches) through `object_store`, so that a local folder
//! and S3-compatible storage are one configuration change apart.

use crate::{Result, StoreError};
use bytes::Bytes;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{ObjectStore, PutPayload};
use std::sync::Arc;

/// A handle on the blob store.
#[derive(Clone, Debug)]
pub struct BlobStore {
    inner: Arc<dyn ObjectStore>,
}

impl BlobStore {
    /// Opens `file://DIR`, creating the folder.
    pub fn open(url: &str) -> Result<Self> {
        let Some(dir) = url.strip_prefix("file://") else {
            return Err(StoreError::Unsupported(format!(
                "storage.blob_url: this build opens file:// blob stores only (got {url})"
            )));
        };
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Unsupported(format!("cannot create blob folder {dir}: {e}")))?;
        let fs = LocalFileSystem::new_with_prefix(dir)?.with_automatic_cleanup(true);
        Ok(Self { inner: Arc::new(fs) })
    }

    /// The underlying store, for streaming reads and multipart writes.
    pub fn object_store(&self) -> Arc<dyn ObjectStore> {
        self.inner.clone()
    }

    /// Writes a whole blob (atomically: readers see the old or the new one).
    pub async fn put(&self, key: &str, data: Bytes) -> Result<()> {
        self.inner.put(&Path::from(key), PutPayload::from_bytes(data)).await?;
        Ok(())
    }

    /// Reads a whole blob; `None` when absent.
    pub async fn get(&self, key: &str) -> Result<Option<Bytes>> {
        match self.inner.get(&Path::from(key)).await {
            Ok(r) => Ok(Some(r.bytes().await?)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes a blob; absent is fine.
    pub async fn delete(&self, key: &str) -> Result<()> {
        match self.inner.delete(&Path::from(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn put_get_delete_round_trip() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| StoreError::Unsupported(e.to_string()))?;
        let blobs = BlobStore::open(&format!("file://{}", dir.path().display()))?;
        blobs.put("acct_x/dem/a.tif", Bytes::from_static(b"II*\0")).await?;
        assert_eq!(blobs.get("acct_x/dem/a.tif").await?, Some(Bytes::from_static(b"II*\0")));
        blobs.delete("acct_x/dem/a.tif").await?;
        assert_eq!(blobs.get("acct_x/dem/a.tif").await?, None);
        blobs.delete("acct_x/dem/a.tif").await?;
        Ok(())
    }

    #[test]
    fn refuses_other_schemes() {
        assert!(BlobStore::open("s3://bucket").is_err());
    }
}
