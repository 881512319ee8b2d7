//! The blob backend over `object_store`: a local folder (`file://DIR`) or an S3-compatible bucket
//! (`s3://bucket/prefix`, object_store's AWS client: credentials, region and endpoint from the
//! usual `AWS_*` variables, such as `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
//! `AWS_ENDPOINT` and `AWS_ALLOW_HTTP` for a local server); tests also use its in-memory store.

use async_trait::async_trait;
use bytes::Bytes;
use futures::{StreamExt, TryStreamExt};
use meridian_store::blobs::{BlobBackend, BlobMeta, BlobRead, ByteRange};
use meridian_store::{Result, StoreError};
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload, WriteMultipart};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::io::AsyncReadExt;

/// A blob store of `object_store`'s.
#[derive(Clone, Debug)]
pub struct ObjectBlobs {
    inner: Arc<dyn ObjectStore>,
    /// The folder behind a `file://` store, where a key is a relative path.
    local_root: Option<PathBuf>,
}

/// A blob store failure as the store's error: a store that cannot be reached now (a refused or
/// broken connection, a timeout) is `Unavailable`, anything else a blob error.
fn blob(e: object_store::Error) -> StoreError {
    if unreachable(&e) {
        StoreError::Unavailable(Box::new(e))
    } else {
        StoreError::blob(e)
    }
}

/// Whether the connection to a remote store failed under `e`: object_store's HTTP client error
/// says so by its kind (a failed connect, a request cut off, a timeout, an interrupted body; a
/// connection the server closed mid-request carries no I/O error at all), and any other I/O
/// failure of the connection found under it counts too. A local folder's I/O errors are not
/// passing.
fn unreachable(e: &object_store::Error) -> bool {
    use object_store::client::HttpErrorKind as H;
    use std::io::ErrorKind as K;
    let object_store::Error::Generic { store, source } = e else { return false };
    if *store == "LocalFileSystem" {
        return false;
    }
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(source.as_ref());
    while let Some(c) = cause {
        if let Some(http) = c.downcast_ref::<object_store::client::HttpError>() {
            if matches!(http.kind(), H::Connect | H::Request | H::Timeout | H::Interrupted) {
                return true;
            }
        }
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            if matches!(
                io.kind(),
                K::ConnectionRefused
                    | K::ConnectionReset
                    | K::ConnectionAborted
                    | K::BrokenPipe
                    | K::TimedOut
                    | K::UnexpectedEof
                    | K::NotConnected
            ) {
                return true;
            }
        }
        cause = c.source();
    }
    false
}

/// `Ok(None)` for a missing blob, the error otherwise.
fn absent<T>(e: object_store::Error) -> Result<Option<T>> {
    match e {
        object_store::Error::NotFound { .. } => Ok(None),
        e => Err(blob(e)),
    }
}

impl ObjectBlobs {
    /// Opens `file://DIR` (creating the folder) or `s3://bucket/prefix`.
    pub fn open(url: &str) -> Result<Self> {
        if let Some(rest) = url.strip_prefix("s3://") {
            return Self::s3(rest);
        }
        let Some(dir) = url.strip_prefix("file://") else {
            return Err(StoreError::Unsupported(format!(
                "storage.blob_url: file://DIR or s3://bucket/prefix (got {url})"
            )));
        };
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Unsupported(format!("cannot create blob folder {dir}: {e}")))?;
        let root = std::fs::canonicalize(dir).unwrap_or_else(|_| PathBuf::from(dir));
        let fs = LocalFileSystem::new_with_prefix(&root).map_err(blob)?.with_automatic_cleanup(true);
        Ok(Self { inner: Arc::new(fs), local_root: Some(root) })
    }

    /// `bucket/prefix` of an S3-compatible store; every key lives under the prefix.
    fn s3(rest: &str) -> Result<Self> {
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(StoreError::Unsupported("storage.blob_url: s3://bucket/prefix needs a bucket".into()));
        }
        // The S3 client's TLS is rustls with ring, the one crypto library the program already
        // carries; installed as the process default once (a second call finds it there).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let s3 = object_store::aws::AmazonS3Builder::from_env().with_bucket_name(bucket).build().map_err(blob)?;
        let prefix = prefix.trim_matches('/');
        let inner: Arc<dyn ObjectStore> =
            if prefix.is_empty() { Arc::new(s3) } else { Arc::new(object_store::prefix::PrefixStore::new(s3, prefix)) };
        Ok(Self { inner, local_root: None })
    }

    /// A store held in memory.
    pub fn memory() -> Self {
        Self { inner: Arc::new(object_store::memory::InMemory::new()), local_root: None }
    }
}

#[async_trait]
impl BlobBackend for ObjectBlobs {
    async fn size_of(&self, key: &str) -> Result<Option<u64>> {
        match self.inner.head(&Path::from(key)).await {
            Ok(meta) => Ok(Some(meta.size)),
            Err(e) => absent(e),
        }
    }

    async fn put(&self, key: &str, data: Bytes) -> Result<()> {
        self.inner.put(&Path::from(key), PutPayload::from_bytes(data)).await.map_err(blob)?;
        Ok(())
    }

    async fn get(&self, key: &str) -> Result<Option<Bytes>> {
        match self.inner.get(&Path::from(key)).await {
            Ok(r) => Ok(Some(r.bytes().await.map_err(blob)?)),
            Err(e) => absent(e),
        }
    }

    async fn get_range(&self, key: &str, range: std::ops::Range<u64>) -> Result<Bytes> {
        self.inner.get_range(&Path::from(key), range).await.map_err(blob)
    }

    async fn read(&self, key: &str, range: Option<ByteRange>) -> Result<Option<BlobRead>> {
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
            Err(e) => absent(e),
        }
    }

    async fn delete(&self, key: &str) -> Result<()> {
        match self.inner.delete(&Path::from(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(blob(e)),
        }
    }

    async fn upload_file(&self, key: &str, file: &std::path::Path) -> Result<u64> {
        let mut f = tokio::fs::File::open(file).await.map_err(StoreError::blob)?;
        let upload = self.inner.put_multipart(&Path::from(key)).await.map_err(blob)?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, 8 << 20);
        let mut buf = vec![0u8; 1 << 20];
        let mut total = 0u64;
        loop {
            let n = f.read(&mut buf).await.map_err(StoreError::blob)?;
            if n == 0 {
                break;
            }
            writer.wait_for_capacity(4).await.map_err(blob)?;
            writer.write(&buf[..n]);
            total += n as u64;
        }
        writer.finish().await.map_err(blob)?;
        Ok(total)
    }

    async fn list(&self, prefix: &str) -> Result<Vec<BlobMeta>> {
        let prefix = Path::from(prefix);
        let mut listing = self.inner.list(Some(&prefix));
        let mut blobs = Vec::new();
        while let Some(meta) = listing.next().await {
            let meta = meta.map_err(blob)?;
            blobs.push(BlobMeta { key: meta.location.to_string(), size: meta.size, last_modified: meta.last_modified });
        }
        Ok(blobs)
    }

    async fn folders(&self, prefix: &str) -> Result<Vec<String>> {
        let prefix = Path::from(prefix);
        let under = (!prefix.as_ref().is_empty()).then_some(&prefix);
        let listed = self.inner.list_with_delimiter(under).await.map_err(blob)?;
        Ok(listed.common_prefixes.into_iter().map(|p| p.to_string()).collect())
    }

    fn local_root(&self) -> Option<&std::path::Path> {
        self.local_root.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meridian_store::BlobStore;

    #[tokio::test]
    async fn put_get_delete_round_trip() -> Result<()> {
        let dir = tempfile::tempdir().map_err(StoreError::blob)?;
        let blobs = BlobStore::new(Arc::new(ObjectBlobs::open(&format!("file://{}", dir.path().display()))?));
        blobs.put("acct_x/dem/a.tif", Bytes::from_static(b"II*\0")).await?;
        assert_eq!(blobs.get("acct_x/dem/a.tif").await?, Some(Bytes::from_static(b"II*\0")));
        assert_eq!(blobs.folders("").await?, vec!["acct_x".to_owned()]);
        assert_eq!(blobs.folders("acct_x").await?, vec!["acct_x/dem".to_owned()]);
        blobs.delete("acct_x/dem/a.tif").await?;
        assert_eq!(blobs.get("acct_x/dem/a.tif").await?, None);
        blobs.delete("acct_x/dem/a.tif").await?;
        Ok(())
    }

    #[tokio::test]
    async fn prefixes_are_whole_folders() -> Result<()> {
        let blobs = BlobStore::new(Arc::new(ObjectBlobs::memory()));
        blobs.put("a/tiles/1", Bytes::from_static(b"1")).await?;
        blobs.put("a/tiles2/1", Bytes::from_static(b"2")).await?;
        blobs.delete_prefix("a/tiles").await?;
        assert!(!blobs.exists("a/tiles/1").await?);
        assert!(blobs.exists("a/tiles2/1").await?);
        let removed = blobs.evict_before("tiles2", chrono::Utc::now() + chrono::Duration::seconds(1)).await?;
        assert_eq!(removed, 1);
        assert!(!blobs.exists("a/tiles2/1").await?);
        Ok(())
    }

    #[test]
    fn an_s3_url_opens_with_its_tls_client_and_no_request() {
        // The default endpoint is https: the client's TLS (rustls with ring) is set up here.
        assert!(ObjectBlobs::open("s3://bucket/prefix").is_ok());
        assert!(ObjectBlobs::open("s3:///prefix").is_err());
    }

    /// A remote store whose connection failed is unavailable, whichever way the client reports
    /// it: a connection closed mid-request has no I/O error under it, only the client's kind.
    #[test]
    fn a_broken_connection_is_unavailable_and_a_refusal_is_not() {
        use object_store::client::{HttpError, HttpErrorKind};
        #[derive(Debug)]
        struct Closed;
        impl std::fmt::Display for Closed {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("connection closed before message completed")
            }
        }
        impl std::error::Error for Closed {}
        let generic =
            |store, source: Box<dyn std::error::Error + Send + Sync>| object_store::Error::Generic { store, source };
        let http = |kind| generic("S3", Box::new(HttpError::new(kind, Closed)));
        for kind in [HttpErrorKind::Connect, HttpErrorKind::Request, HttpErrorKind::Timeout, HttpErrorKind::Interrupted]
        {
            assert!(unreachable(&http(kind)), "{kind:?}");
        }
        assert!(!unreachable(&http(HttpErrorKind::Decode)));
        let reset = || Box::new(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert!(unreachable(&generic("S3", reset())));
        assert!(!unreachable(&generic("LocalFileSystem", reset())));
        assert!(!unreachable(&object_store::Error::NotFound { path: "a".into(), source: reset() }));
        assert!(matches!(blob(http(HttpErrorKind::Request)), StoreError::Unavailable(_)));
    }

    #[test]
    fn refuses_other_schemes() {
        assert!(ObjectBlobs::open("gs://bucket").is_err());
    }
}
