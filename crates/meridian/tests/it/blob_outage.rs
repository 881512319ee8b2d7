//! The S3-compatible blob store going away under an upload: the upload fails cleanly (503
//! `store_unavailable`), and no point cloud points at an object that was never stored.

use crate::pointcloud::data;
use crate::Server;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Moto(Child);

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn http(port: u16, method: &str, path: &str) -> Option<(u16, String)> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").ok()?;
    let mut answer = String::new();
    s.read_to_string(&mut answer).ok()?;
    let status = answer.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, answer))
}

/// ISPRS sample 11 with its point records repeated `times` times (the header's counts scaled):
/// a valid LAS 1.2 file of any size.
fn grown_las(times: u32) -> Vec<u8> {
    let original = std::fs::read(data("isprs-samp11.las")).unwrap();
    let offset = u32::from_le_bytes(original[96..100].try_into().unwrap()) as usize;
    let mut out = original[..offset].to_vec();
    let count = u32::from_le_bytes(out[107..111].try_into().unwrap());
    out[107..111].copy_from_slice(&(count * times).to_le_bytes());
    for r in 0..5 {
        let at = 111 + 4 * r;
        let n = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
        out[at..at + 4].copy_from_slice(&(n * times).to_le_bytes());
    }
    for _ in 0..times {
        out.extend_from_slice(&original[offset..]);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blob_store_killed_mid_upload_fails_it_cleanly() {
    let test = "a_blob_store_killed_mid_upload_fails_it_cleanly";
    if !meridian_testing::tools::have_tool("moto_server", test) {
        return;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let moto = Moto(
        Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while !matches!(http(port, "PUT", "/outage"), Some((s, _)) if s < 300) {
        assert!(Instant::now() < deadline, "moto_server did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let endpoint = format!("http://127.0.0.1:{port}");
    let s = Server::start_with(&[
        ("MERIDIAN_STORAGE__BLOB_URL", "s3://outage/blobs"),
        ("AWS_ENDPOINT", &endpoint),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "us-east-1"),
    ]);
    let (_, key) = s.signup("outage@example.com").await;

    // About 300 MB: the upload to the store is many parts long.
    let body = grown_las(280);
    let upload = {
        let (client, url, key) = (s.client.clone(), s.url("/api/v1/pointcloud/upload?crs=EPSG:32632"), key.clone());
        tokio::spawn(async move {
            let r = client
                .post(url)
                .bearer_auth(key)
                .header("content-type", "application/vnd.las")
                .body(body)
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        })
    };
    // The blob store stops as soon as the multipart upload has begun.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some((_, listing)) = http(port, "GET", "/outage?uploads") {
            if listing.contains("<UploadId>") {
                break;
            }
        }
        assert!(Instant::now() < deadline, "the upload never reached the blob store");
        assert!(!upload.is_finished(), "the upload ended before the blob store was stopped");
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(moto);

    let (status, body) = upload.await.unwrap();
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("store_unavailable"), "{body}");
    // Nothing was recorded: no point cloud points at the object that was never completed.
    let list: serde_json::Value = s.get("/api/v1/pointcloud", &key).await.json().await.unwrap();
    assert_eq!(list["total"], 0, "{list}");
    // The server still answers.
    assert_eq!(s.get("/healthz", &key).await.status(), 200);
}
