//! Blobs (uploads, rasters, outputs, tile caches) through `object_store`, so that a local folder
//! and S3-compatible storage are one configuration change apart.

use crate::{Result, StoreError};
use bytes::Bytes;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
pub use object_store::ObjectStore;
use object_store::PutPayload;
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

/// A byte range of a blob, as an HTTP `Range` asks for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ByteRange {
    /// `start..end` (end exclusive).
    Bounded(std::ops::Range<u64>),
    /// From this offset to the end.
    From(u64),
    /// The last this many bytes.
    Suffix(u64),
}

impl ByteRange {
    /// The range clamped to a blob of `size` bytes, as RFC 9110 serves it; `None` when it lies
    /// wholly past the end (unsatisfiable).
    pub fn clamp(self, size: u64) -> Option<Self> {
        match self {
            Self::Bounded(r) if r.start < size => Some(Self::Bounded(r.start..r.end.min(size))),
            Self::From(o) if o < size => Some(Self::From(o)),
            Self::Suffix(n) if n > 0 => Some(Self::Suffix(n.min(size))),
            _ => None,
        }
    }
}

/// A blob (or part of it) being read as a stream.
pub struct BlobRead {
    pub stream: futures::stream::BoxStream<'static, std::io::Result<Bytes>>,
    /// The bytes served, within the blob.
    pub served: std::ops::Range<u64>,
    /// The blob's whole size.
    pub total: u64,
}

/// Streams `key` (or `range` of it) from `store`; `None` when there is no such blob.
pub async fn read(store: &Arc<dyn ObjectStore>, key: &str, range: Option<ByteRange>) -> Result<Option<BlobRead>> {
    use futures::TryStreamExt;
    let range = range.map(|r| match r {
        ByteRange::Bounded(r) => object_store::GetRange::Bounded(r),
        ByteRange::From(o) => object_store::GetRange::Offset(o),
        ByteRange::Suffix(n) => object_store::GetRange::Suffix(n),
    });
    let options = object_store::GetOptions { range, ..object_store::GetOptions::default() };
    match store.get_opts(&Path::from(key), options).await {
        Ok(got) => {
            let (served, total) = (got.range.clone(), got.meta.size);
            let stream = Box::pin(got.into_stream().map_err(std::io::Error::other));
            Ok(Some(BlobRead { stream, served, total }))
        }
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}
