//! The blob backends through `BlobStore`: the local folder, and an S3-compatible server (moto's
//! server mode, from PyPI: a whole S3 API in one process that a test can start and stop). The
//! same checks run on both.

use crate::common::TestResult;
use bytes::Bytes;
use meridian_backends::open_blobs;
use meridian_store::blobs::ByteRange;
use meridian_store::BlobStore;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A moto S3 server on a free port, stopped on drop.
pub(crate) struct S3Server {
    child: Child,
    pub(crate) endpoint: String,
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl S3Server {
    /// Starts the server and creates `bucket`; `None` when moto is not installed (and tools are
    /// not required).
    pub(crate) fn start(bucket: &str, test: &str) -> TestResult<Option<Self>> {
        if !meridian_testing::tools::have_tool("moto_server", test) {
            return Ok(None);
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let server = Self { child, endpoint: format!("http://127.0.0.1:{port}") };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            // S3 CreateBucket: PUT /bucket.
            match http_put(port, &format!("/{bucket}")) {
                Ok(status) if status < 300 => break,
                _ if Instant::now() > deadline => return Err("moto_server did not start".into()),
                _ => std::thread::sleep(Duration::from_millis(100)),
            }
        }
        Ok(Some(server))
    }

    /// Sets the `AWS_*` variables object_store's S3 client reads for this server.
    pub(crate) fn environment(&self) {
        for (k, v) in [
            ("AWS_ENDPOINT", self.endpoint.as_str()),
            ("AWS_ALLOW_HTTP", "true"),
            ("AWS_ACCESS_KEY_ID", "test"),
            ("AWS_SECRET_ACCESS_KEY", "test"),
            ("AWS_REGION", "us-east-1"),
        ] {
            std::env::set_var(k, v);
        }
    }
}

fn http_put(port: u16, path: &str) -> std::io::Result<u16> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(s, "PUT {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?;
    let mut answer = String::new();
    s.read_to_string(&mut answer)?;
    answer.split_whitespace().nth(1).and_then(|c| c.parse().ok()).ok_or_else(|| std::io::Error::other("no status"))
}

/// What every backend must do the same way.
async fn behaves_as_a_blob_store(blobs: &BlobStore) -> TestResult {
    blobs.put("acct_a/dem/x.tif", Bytes::from_static(b"0123456789")).await?;
    assert_eq!(blobs.get("acct_a/dem/x.tif").await?, Some(Bytes::from_static(b"0123456789")));
    assert_eq!(blobs.size_of("acct_a/dem/x.tif").await?, Some(10));
    assert_eq!(blobs.get("acct_a/dem/none").await?, None);
    let read = blobs.read("acct_a/dem/x.tif", Some(ByteRange::Bounded(2..5))).await?.ok_or("absent")?;
    assert_eq!((read.served.clone(), read.total), (2..5, 10));
    let bytes: Vec<u8> =
        futures::TryStreamExt::try_concat(futures::TryStreamExt::map_ok(read.stream, |b| b.to_vec())).await?;
    assert_eq!(bytes, b"234");
    let read = blobs.read("acct_a/dem/x.tif", Some(ByteRange::Suffix(3))).await?.ok_or("absent")?;
    assert_eq!(read.served, 7..10);

    // A multipart upload larger than one part (8 MiB), streamed from a file.
    let dir = tempfile::tempdir()?;
    let big: Vec<u8> = (0..12_000_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.path().join("big"), &big)?;
    assert_eq!(blobs.upload_file("acct_a/pc/big.laz", &dir.path().join("big")).await?, 12_000_000);
    let copy = blobs.local_file("acct_a/pc/big.laz", dir.path()).await?.ok_or("absent")?;
    assert_eq!(std::fs::read(copy.path())?, big);
    // Positioned reads from blocking code.
    let handle = tokio::runtime::Handle::current();
    let b = blobs.clone();
    let tail = tokio::task::spawn_blocking(move || -> TestResult<Vec<u8>> {
        let ranged = b.open_ranged("acct_a/pc/big.laz", &handle)?.ok_or("absent")?;
        let mut buf = vec![0u8; 4];
        ranged.read_exact_at(&mut buf, 11_999_996)?;
        Ok(buf)
    })
    .await??;
    assert_eq!(tail, big[11_999_996..].to_vec());

    // A file moved in: whole under its key, gone from where it was (renamed on a local folder on
    // the same filesystem, uploaded and removed elsewhere).
    let moved = dir.path().join("moved");
    std::fs::write(&moved, &big[..3_000_000])?;
    assert_eq!(blobs.move_file_in("acct_a/pc/moved/index.tif", &moved).await?, 3_000_000);
    assert!(!moved.exists());
    assert_eq!(blobs.get("acct_a/pc/moved/index.tif").await?.ok_or("absent")?.as_ref(), &big[..3_000_000]);
    // A key a local folder would spell differently goes the uploading way.
    std::fs::write(&moved, b"odd")?;
    assert_eq!(blobs.move_file_in("acct_a/pc/odd name#1.txt", &moved).await?, 3);
    assert!(!moved.exists());
    assert_eq!(blobs.get("acct_a/pc/odd name#1.txt").await?.ok_or("absent")?.as_ref(), b"odd");
    blobs.delete("acct_a/pc/odd name#1.txt").await?;
    blobs.delete("acct_a/pc/moved/index.tif").await?;

    assert_eq!(blobs.folders("").await?, vec!["acct_a".to_owned()]);
    let mut folders = blobs.folders("acct_a").await?;
    folders.sort();
    assert_eq!(folders, vec!["acct_a/dem".to_owned(), "acct_a/pc".to_owned()]);
    blobs.put("acct_a/dem/tiles/1/2/3.png", Bytes::from_static(b"png")).await?;
    let evicted = blobs.evict_before("dem/tiles", chrono::Utc::now() + chrono::Duration::seconds(5)).await?;
    assert_eq!(evicted, 1);
    blobs.delete_prefix("acct_a/dem").await?;
    assert!(!blobs.exists("acct_a/dem/x.tif").await?);
    assert!(blobs.exists("acct_a/pc/big.laz").await?);
    blobs.delete("acct_a/pc/big.laz").await?;
    blobs.delete("acct_a/pc/big.laz").await?;
    assert!(blobs.local_file("acct_a/pc/big.laz", dir.path()).await?.is_none());
    Ok(())
}

#[tokio::test]
async fn the_local_folder_behaves_as_a_blob_store() -> TestResult {
    let dir = tempfile::tempdir()?;
    let blobs = open_blobs(&format!("file://{}", dir.path().display()))?;
    behaves_as_a_blob_store(&blobs).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_s3_bucket_behaves_as_a_blob_store() -> TestResult {
    let Some(server) = S3Server::start("meridian", "an_s3_bucket_behaves_as_a_blob_store")? else { return Ok(()) };
    server.environment();
    let blobs = open_blobs("s3://meridian/node-a")?;
    behaves_as_a_blob_store(&blobs).await?;
    // The prefix keeps what another deployment stores in the same bucket apart.
    let other = open_blobs("s3://meridian/node-b")?;
    assert!(other.folders("").await?.is_empty());
    Ok(())
}
