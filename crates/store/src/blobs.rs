//! Blobs (uploads, rasters, outputs, tile caches) through `object_store`'s interface. Only the
//! local folder is built (`object_store` with its `fs` feature; `open` refuses other URLs): an
//! S3-compatible store would be another constructor behind the same interface, not a change of
//! its callers.

use crate::{Result, StoreError};
use bytes::Bytes;
use futures::StreamExt;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
pub use object_store::ObjectStore;
use object_store::{PutPayload, WriteMultipart};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::io::AsyncReadExt;
use tokio::runtime::Handle;

/// The blob store every area uses: whole-blob reads and writes, JSON records, streamed uploads,
/// prefix deletes, age-based eviction, and ranged reads for formats that open only what they
/// need. A local (`file://`) store also exposes the file behind a key, so that blocking readers
/// can open it in place.
#[derive(Clone, Debug)]
pub struct BlobStore {
    inner: Arc<dyn ObjectStore>,
    /// The folder behind a `file://` store, where a key is a relative path.
    local_root: Option<PathBuf>,
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
        let root = std::fs::canonicalize(dir).unwrap_or_else(|_| PathBuf::from(dir));
        let fs = LocalFileSystem::new_with_prefix(&root)?.with_automatic_cleanup(true);
        Ok(Self { inner: Arc::new(fs), local_root: Some(root) })
    }

    /// Wraps any `object_store` (tests use the in-memory one); `local_root` is the folder of a
    /// `file://` store, if it is one.
    pub fn new(inner: Arc<dyn ObjectStore>, local_root: Option<PathBuf>) -> Self {
        Self { inner, local_root }
    }

    /// The underlying store, for streaming reads and multipart writes.
    pub fn object_store(&self) -> Arc<dyn ObjectStore> {
        self.inner.clone()
    }

    /// The file behind a key, for a local store.
    pub fn local_path(&self, key: &str) -> Option<PathBuf> {
        self.local_root.as_ref().map(|root| root.join(key))
    }

    /// Whether a blob exists.
    pub async fn exists(&self, key: &str) -> Result<bool> {
        Ok(self.size_of(key).await?.is_some())
    }

    /// The size of a blob in bytes, or `None` when there is none under `key`.
    pub async fn size_of(&self, key: &str) -> Result<Option<u64>> {
        match self.inner.head(&Path::from(key)).await {
            Ok(meta) => Ok(Some(meta.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
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

    /// A JSON record; `None` when absent.
    pub async fn get_json<T: serde::de::DeserializeOwned>(&self, key: &str) -> Result<Option<T>> {
        match self.get(key).await? {
            Some(bytes) => Ok(Some(
                serde_json::from_slice(&bytes)
                    .map_err(|e| StoreError::Corrupt(format!("record {key} is unreadable: {e}")))?,
            )),
            None => Ok(None),
        }
    }

    /// Writes a JSON record.
    pub async fn put_json<T: serde::Serialize>(&self, key: &str, value: &T) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(value)?;
        self.put(key, Bytes::from(bytes)).await
    }

    /// Streams a local file into the store (multipart: never the whole file in memory); returns
    /// its size.
    pub async fn upload_file(&self, key: &str, file: &std::path::Path) -> Result<u64> {
        let io =
            |e: std::io::Error| StoreError::Blob(object_store::Error::Generic { store: "upload", source: Box::new(e) });
        let mut f = tokio::fs::File::open(file).await.map_err(io)?;
        let upload = self.inner.put_multipart(&Path::from(key)).await?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, 8 << 20);
        let mut buf = vec![0u8; 1 << 20];
        let mut total = 0u64;
        loop {
            let n = f.read(&mut buf).await.map_err(io)?;
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
        let mut listing = self.inner.list(Some(&prefix));
        let mut paths = Vec::new();
        while let Some(meta) = listing.next().await {
            paths.push(meta?.location);
        }
        for p in paths {
            match self.inner.delete(&p).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// Removes, in every account's folder, the blobs under `<account>/<folder>` last written
    /// before `cutoff` (caches); returns how many.
    pub async fn evict_before(&self, folder: &str, cutoff: chrono::DateTime<chrono::Utc>) -> Result<u64> {
        let accounts = self.inner.list_with_delimiter(None).await?;
        let mut removed = 0u64;
        for account in accounts.common_prefixes {
            let prefix = folder.split('/').filter(|p| !p.is_empty()).fold(account, |p, part| p.child(part));
            let mut listing = self.inner.list(Some(&prefix));
            let mut old = Vec::new();
            while let Some(meta) = listing.next().await {
                let meta = meta?;
                if meta.last_modified < cutoff {
                    old.push(meta.location);
                }
            }
            for path in old {
                match self.inner.delete(&path).await {
                    Ok(()) | Err(object_store::Error::NotFound { .. }) => removed += 1,
                    Err(e) => return Err(e.into()),
                }
            }
        }
        Ok(removed)
    }

    /// Opens a blob for random access from blocking code: the file itself for a local store,
    /// ranged GETs through `handle` otherwise. `None` when there is no such blob.
    pub fn open_ranged(&self, key: &str, handle: &Handle) -> Result<Option<RangedBlob>> {
        if let Some(path) = self.local_path(key) {
            return match std::fs::File::open(&path) {
                Ok(f) => {
                    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
                    Ok(Some(RangedBlob { source: Source::File(f), size }))
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(StoreError::Blob(object_store::Error::Generic { store: "open", source: Box::new(e) })),
            };
        }
        let path = Path::from(key);
        let size = match handle.block_on(self.inner.head(&path)) {
            Ok(meta) => meta.size,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        Ok(Some(RangedBlob {
            source: Source::Remote { store: self.inner.clone(), path, handle: handle.clone() },
            size,
        }))
    }
}

/// A blob open for positioned reads (see [`BlobStore::open_ranged`]).
pub struct RangedBlob {
    source: Source,
    size: u64,
}

enum Source {
    File(std::fs::File),
    Remote { store: Arc<dyn ObjectStore>, path: Path, handle: Handle },
}

impl RangedBlob {
    /// The blob's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Fills `buf` from `offset`; blocking.
    pub fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let end = offset.checked_add(buf.len() as u64).ok_or(std::io::ErrorKind::UnexpectedEof)?;
        if end > self.size {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        match &self.source {
            Source::File(f) => std::os::unix::fs::FileExt::read_exact_at(f, buf, offset),
            Source::Remote { store, path, handle } => {
                let bytes = handle.block_on(store.get_range(path, offset..end)).map_err(std::io::Error::other)?;
                if bytes.len() != buf.len() {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                buf.copy_from_slice(&bytes);
                Ok(())
            }
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

impl BlobStore {
    /// Streams `key` (or `range` of it); `None` when there is no such blob.
    pub async fn read(&self, key: &str, range: Option<ByteRange>) -> Result<Option<BlobRead>> {
        use futures::TryStreamExt;
        let range = range.map(|r| match r {
            ByteRange::Bounded(r) => object_store::GetRange::Bounded(r),
            ByteRange::From(o) => object_store::GetRange::Offset(o),
            ByteRange::Suffix(n) => object_store::GetRange::Suffix(n),
        });
        let options = object_store::GetOptions { range, ..object_store::GetOptions::default() };
        match self.inner.get_opts(&Path::from(key), options).await {
            Ok(got) => {
                let (served, total) = (got.range.clone(), got.meta.size);
                let stream = Box::pin(got.into_stream().map_err(std::io::Error::other));
                Ok(Some(BlobRead { stream, served, total }))
            }
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}
