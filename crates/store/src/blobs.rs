//! Blobs (uploads, rasters, outputs, tile caches): the interface every area uses. A backend
//! (a local folder, an S3-compatible bucket: `meridian-backends`) implements [`BlobBackend`];
//! [`BlobStore`] adds what every area needs on top of it (JSON records, prefix deletes,
//! age-based eviction, positioned reads from blocking code) once, for every backend.

use crate::{Result, StoreError};
use async_trait::async_trait;
use bytes::Bytes;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::runtime::Handle;

/// What a blob backend does. Keys are `/`-separated paths; a folder is a key prefix ending at a
/// `/`. Absent blobs are `None` (or nothing to do for a delete), never an error.
#[async_trait]
pub trait BlobBackend: Send + Sync + std::fmt::Debug {
    /// The size of a blob in bytes.
    async fn size_of(&self, key: &str) -> Result<Option<u64>>;
    /// Writes a whole blob (atomically: readers see the old or the new one).
    async fn put(&self, key: &str, data: Bytes) -> Result<()>;
    /// Reads a whole blob.
    async fn get(&self, key: &str) -> Result<Option<Bytes>>;
    /// Reads `range` of a blob, which must lie within it.
    async fn get_range(&self, key: &str, range: std::ops::Range<u64>) -> Result<Bytes>;
    /// Streams a blob, or `range` of it.
    async fn read(&self, key: &str, range: Option<ByteRange>) -> Result<Option<BlobRead>>;
    /// Deletes a blob.
    async fn delete(&self, key: &str) -> Result<()>;
    /// Streams a local file into the store (never the whole file in memory); returns its size.
    async fn upload_file(&self, key: &str, file: &Path) -> Result<u64>;
    /// Every blob under the folder `prefix`, at any depth.
    async fn list(&self, prefix: &str) -> Result<Vec<BlobMeta>>;
    /// The folders directly under `prefix` (the top level for `""`), as full prefixes.
    async fn folders(&self, prefix: &str) -> Result<Vec<String>>;
    /// The folder behind a local store, where a key is a relative path; `None` for a remote one.
    fn local_root(&self) -> Option<&Path>;
}

/// A listed blob.
#[derive(Clone, Debug)]
pub struct BlobMeta {
    pub key: String,
    pub size: u64,
    pub last_modified: chrono::DateTime<chrono::Utc>,
}

/// The blob store every area uses: whole-blob reads and writes, JSON records, streamed uploads,
/// prefix deletes, age-based eviction, and ranged reads for formats that open only what they
/// need. A local store also exposes the file behind a key, so that blocking readers can open it
/// in place.
#[derive(Clone, Debug)]
pub struct BlobStore {
    inner: Arc<dyn BlobBackend>,
}

/// Whether a key maps to the same path in a local store's folder for every reader: segments of
/// letters, digits, `-`, `_` and `.` (none empty, none `.` or `..`), which the object store keeps
/// as they are.
fn plain_key(key: &str) -> bool {
    key.split('/').all(|seg| {
        !seg.is_empty()
            && seg != "."
            && seg != ".."
            && seg.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    })
}

impl BlobStore {
    /// A store over `backend`.
    pub fn new(backend: Arc<dyn BlobBackend>) -> Self {
        Self { inner: backend }
    }

    /// The file behind a key, for a local store.
    pub fn local_path(&self, key: &str) -> Option<PathBuf> {
        self.inner.local_root().map(|root| root.join(key))
    }

    /// Whether a blob exists.
    pub async fn exists(&self, key: &str) -> Result<bool> {
        Ok(self.size_of(key).await?.is_some())
    }

    /// The size of a blob in bytes, or `None` when there is none under `key`.
    pub async fn size_of(&self, key: &str) -> Result<Option<u64>> {
        self.inner.size_of(key).await
    }

    /// Writes a whole blob (atomically: readers see the old or the new one).
    pub async fn put(&self, key: &str, data: Bytes) -> Result<()> {
        self.inner.put(key, data).await
    }

    /// Reads a whole blob; `None` when absent.
    pub async fn get(&self, key: &str) -> Result<Option<Bytes>> {
        self.inner.get(key).await
    }

    /// Deletes a blob; absent is fine.
    pub async fn delete(&self, key: &str) -> Result<()> {
        self.inner.delete(key).await
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

    /// Streams a local file into the store (never the whole file in memory); returns its size.
    pub async fn upload_file(&self, key: &str, file: &Path) -> Result<u64> {
        self.inner.upload_file(key, file).await
    }

    /// Moves a local file the caller is done with into the store; returns its size. On a local
    /// store whose folder is on the file's filesystem this is a rename (no byte is copied, and the
    /// blob appears whole or not at all); elsewhere the file is uploaded as by
    /// [`upload_file`](Self::upload_file), then removed. On an error the file may remain.
    pub async fn move_file_in(&self, key: &str, file: &Path) -> Result<u64> {
        if let Some(target) = self.local_path(key).filter(|_| plain_key(key)) {
            let from = file.to_path_buf();
            let renamed = tokio::task::spawn_blocking(move || -> std::io::Result<Option<u64>> {
                if let Some(dir) = target.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                match std::fs::rename(&from, &target) {
                    Ok(()) => Ok(Some(std::fs::metadata(&target)?.len())),
                    // Another filesystem (EXDEV) or a rename the platform refuses: copy instead.
                    Err(_) => Ok(None),
                }
            })
            .await
            .map_err(StoreError::blob)?
            .map_err(StoreError::blob)?;
            if let Some(size) = renamed {
                return Ok(size);
            }
        }
        let size = self.upload_file(key, file).await?;
        tokio::fs::remove_file(file).await.map_err(StoreError::blob)?;
        Ok(size)
    }

    /// The folders directly under `prefix` (the top level for `""`).
    pub async fn folders(&self, prefix: &str) -> Result<Vec<String>> {
        self.inner.folders(prefix).await
    }

    /// Streams `key` (or `range` of it); `None` when there is no such blob.
    pub async fn read(&self, key: &str, range: Option<ByteRange>) -> Result<Option<BlobRead>> {
        self.inner.read(key, range).await
    }

    /// Copies a blob into the local file `path`, streamed (never whole in memory); false when
    /// there is no such blob. On a failure the partial file is removed.
    pub async fn download_to(&self, key: &str, path: &Path) -> Result<bool> {
        use futures::StreamExt;
        use tokio::io::AsyncWriteExt;
        let Some(mut read) = self.read(key, None).await? else { return Ok(false) };
        let copied = async {
            let mut out = tokio::fs::File::create(path).await?;
            while let Some(chunk) = read.stream.next().await {
                out.write_all(&chunk?).await?;
            }
            out.flush().await
        }
        .await;
        if let Err(e) = copied {
            let _ = tokio::fs::remove_file(path).await;
            return Err(StoreError::blob(e));
        }
        Ok(true)
    }

    /// A local file with the blob's bytes: the file itself on a local store, else a streamed copy
    /// in `dir` (removed when the answer is dropped). `None` when there is no such blob.
    pub async fn local_file(&self, key: &str, dir: &Path) -> Result<Option<LocalBlob>> {
        if let Some(p) = self.local_path(key) {
            if p.exists() {
                return Ok(Some(LocalBlob { path: p, copy: None }));
            }
        }
        std::fs::create_dir_all(dir).map_err(StoreError::blob)?;
        let copy = crate::staging::StagedFile::new_in(dir).map_err(StoreError::blob)?;
        if !self.download_to(key, copy.path()).await? {
            return Ok(None);
        }
        Ok(Some(LocalBlob { path: copy.path().to_owned(), copy: Some(copy) }))
    }

    /// Deletes every blob under a folder (best effort for cleanup after a failed request).
    pub async fn delete_prefix(&self, prefix: &str) -> Result<()> {
        for blob in self.inner.list(prefix).await? {
            self.inner.delete(&blob.key).await?;
        }
        Ok(())
    }

    /// Removes, in every account's folder, the blobs under `<account>/<folder>` last written
    /// before `cutoff` (caches); returns how many.
    pub async fn evict_before(&self, folder: &str, cutoff: chrono::DateTime<chrono::Utc>) -> Result<u64> {
        let folder = folder.trim_matches('/');
        let mut removed = 0u64;
        for account in self.inner.folders("").await? {
            let prefix = format!("{}/{folder}", account.trim_end_matches('/'));
            for blob in self.inner.list(&prefix).await? {
                if blob.last_modified < cutoff {
                    self.inner.delete(&blob.key).await?;
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }

    /// Opens a blob for random access from blocking code: the file itself for a local store,
    /// ranged reads through `handle` otherwise. `None` when there is no such blob.
    pub fn open_ranged(&self, key: &str, handle: &Handle) -> Result<Option<RangedBlob>> {
        if let Some(path) = self.local_path(key) {
            return match std::fs::File::open(&path) {
                Ok(f) => {
                    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
                    Ok(Some(RangedBlob { source: Source::File(f), size }))
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(StoreError::blob(e)),
            };
        }
        let Some(size) = handle.block_on(self.inner.size_of(key))? else { return Ok(None) };
        Ok(Some(RangedBlob {
            source: Source::Remote { blobs: self.inner.clone(), key: key.to_owned(), handle: handle.clone() },
            size,
        }))
    }
}

/// A blob as a local file ([`BlobStore::local_file`]); a downloaded copy is removed on drop.
#[derive(Debug)]
pub struct LocalBlob {
    path: PathBuf,
    copy: Option<crate::staging::StagedFile>,
}

impl LocalBlob {
    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether this is a downloaded copy (a remote store) rather than the stored file itself.
    pub fn is_copy(&self) -> bool {
        self.copy.is_some()
    }
}

/// A blob open for positioned reads (see [`BlobStore::open_ranged`]).
pub struct RangedBlob {
    source: Source,
    size: u64,
}

enum Source {
    File(std::fs::File),
    Remote { blobs: Arc<dyn BlobBackend>, key: String, handle: Handle },
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
            Source::Remote { blobs, key, handle } => {
                let bytes = handle.block_on(blobs.get_range(key, offset..end)).map_err(std::io::Error::other)?;
                if bytes.len() != buf.len() {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                buf.copy_from_slice(&bytes);
                Ok(())
            }
        }
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
