//! Black-box tests: the built `meridian` binary on port 0 with a temporary data directory,
//! driven over real HTTP.

#![allow(clippy::unwrap_used, clippy::print_stdout)]

mod accounts;
mod blob_outage;
mod cadastre;
mod cli;
mod cluster;
mod cluster_kill;
mod console_browser;
mod dem;
mod dns;
mod dns_interop;
mod eo;
mod eo_interop;
mod errors;
mod http;
mod interop;
mod limits;
mod ogc;
mod ogc_browser;
mod ogc_interop;
mod ogc_mapserver;
mod ogc_schemas;
mod pointcloud;
mod postgres_restart;
mod readme;
mod router;
mod tools;
mod twin;
mod twin_browser;
mod uploads;
mod webhooks;
mod wfs;

pub(crate) use tools::{have_python_module, have_tool, missing};

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The store of a test server on the second backend: with `MERIDIAN_TEST_POSTGRES`
/// (`postgres://user@host:port`) a database of its own on that server, and with
/// `MERIDIAN_TEST_S3` (an S3 endpoint holding the bucket `meridian`) blobs under a prefix of its
/// own; both named after the data folder, so that a server started again on the same folder
/// finds its data. Unless the test sets the storage itself. Without either variable: the
/// embedded default (SQLite and files in the data folder).
pub(crate) fn second_backend(dir: &std::path::Path, env: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut vars = Vec::new();
    let name: String = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let set = |key: &str| env.iter().any(|(k, _)| *k == key);
    if let Ok(server) = std::env::var("MERIDIAN_TEST_POSTGRES") {
        if !set("MERIDIAN_STORAGE__DATABASE_URL") {
            let database = format!("meridian_it_{name}");
            let url = std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                runtime.block_on(meridian_store_postgres::create_database(&server, &database)).unwrap()
            })
            .join()
            .unwrap();
            vars.push(("MERIDIAN_STORAGE__DATABASE_URL".to_owned(), url));
        }
    }
    if let Ok(endpoint) = std::env::var("MERIDIAN_TEST_S3") {
        if !set("MERIDIAN_STORAGE__BLOB_URL") {
            vars.push(("MERIDIAN_STORAGE__BLOB_URL".to_owned(), format!("s3://meridian/{name}")));
        }
        // A test that names its own s3:// prefix (several nodes sharing one) needs the endpoint too.
        if !set("MERIDIAN_STORAGE__BLOB_URL")
            || env.iter().any(|(k, v)| *k == "MERIDIAN_STORAGE__BLOB_URL" && v.starts_with("s3://"))
        {
            for (k, v) in [
                ("AWS_ENDPOINT", endpoint.as_str()),
                ("AWS_ALLOW_HTTP", "true"),
                ("AWS_ACCESS_KEY_ID", "test"),
                ("AWS_SECRET_ACCESS_KEY", "test"),
                ("AWS_REGION", "us-east-1"),
            ] {
                vars.push((k.to_owned(), v.to_owned()));
            }
        }
    }
    vars
}

/// A running server, killed on drop.
pub struct Server {
    child: Child,
    pub base: String,
    /// The DNS listener (UDP and TCP), unless the DNS role is off.
    pub dns: Option<std::net::SocketAddr>,
    pub dir: tempfile::TempDir,
    pub client: reqwest::Client,
    /// Where its blobs are: the data folder's `blobs/`, or a bucket prefix on the test S3 server.
    blobs: Blobs,
    /// Its database: the data folder's SQLite file, or its database on the test PostgreSQL server.
    pub database_url: String,
}

/// Where a test server keeps its blobs, for tests that look at them or spoil them on purpose.
enum Blobs {
    Folder(std::path::PathBuf),
    /// The S3 endpoint and the prefix in the bucket `meridian`.
    S3(String, String),
}

impl Server {
    /// Starts with default configuration.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts with extra `MERIDIAN_*` variables.
    pub fn start_with(env: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        Self::start_in(dir, env)
    }

    /// Starts on an existing data directory.
    pub fn start_in(dir: tempfile::TempDir, env: &[(&str, &str)]) -> Self {
        Self::start_listening(dir, "127.0.0.1:0", env)
    }

    /// Starts with the DNS listener on `dns` (`0.0.0.0:53` to be queried on several addresses).
    pub fn start_listening(dir: tempfile::TempDir, dns: &str, env: &[(&str, &str)]) -> Self {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_meridian"));
        cmd.arg("--data-dir").arg(dir.path()).args(["serve", "--http", "127.0.0.1:0", "--dns", dns]);
        cmd.env("MERIDIAN_LOG__LEVEL", "warn").stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut blobs = Blobs::Folder(dir.path().join("blobs"));
        let mut database_url = format!("sqlite://{}", dir.path().join("meridian.db").display());
        if let Some((_, url)) = env.iter().find(|(k, _)| *k == "MERIDIAN_STORAGE__DATABASE_URL") {
            database_url = (*url).to_owned();
        }
        for (k, v) in second_backend(dir.path(), env) {
            if k == "MERIDIAN_STORAGE__DATABASE_URL" {
                database_url = v.clone();
            }
            if k == "MERIDIAN_STORAGE__BLOB_URL" {
                if let (Some(prefix), Ok(endpoint)) =
                    (v.strip_prefix("s3://meridian/"), std::env::var("MERIDIAN_TEST_S3"))
                {
                    blobs = Blobs::S3(endpoint, prefix.to_owned());
                }
            }
            cmd.env(k, v);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start meridian");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let dns_wanted = !env.iter().any(|(k, v)| *k == "MERIDIAN_SERVER__ROLES__DNS" && *v == "false");
        let (mut http, mut dns) = (None, None);
        while http.is_none() || (dns_wanted && dns.is_none()) {
            let line = lines.next().expect("meridian exited before listening").unwrap();
            if let Some(addr) = line.strip_prefix("listening on http ") {
                http = Some(addr.to_owned());
            }
            if let Some(addr) = line.strip_prefix("listening on dns ") {
                dns = addr.parse().ok();
            }
        }
        let addr = http.unwrap();
        // Keep draining stdout so the child never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Server {
            child,
            base: format!("http://{addr}"),
            dns,
            dir,
            client: meridian_egress::tls::default_client(),
            blobs,
            database_url,
        }
    }

    /// The keys of the stored blobs that start with `prefix` (`<account>/dem/...`), sorted.
    pub async fn blob_keys(&self, prefix: &str) -> Vec<String> {
        let mut keys = Vec::new();
        match &self.blobs {
            Blobs::Folder(root) => {
                let mut stack = vec![root.clone()];
                while let Some(d) = stack.pop() {
                    for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                        let path = entry.path();
                        if path.is_dir() {
                            stack.push(path);
                        } else if let Ok(rel) = path.strip_prefix(root) {
                            let key = rel.to_string_lossy().into_owned();
                            if key.starts_with(prefix) {
                                keys.push(key);
                            }
                        }
                    }
                }
            }
            Blobs::S3(endpoint, base) => {
                let url = format!("{endpoint}/meridian?list-type=2&max-keys=100000&prefix={base}/{prefix}");
                let listing = self.client.get(url).send().await.unwrap().text().await.unwrap();
                for part in listing.split("<Key>").skip(1) {
                    let key = part.split("</Key>").next().unwrap_or_default();
                    keys.push(key.strip_prefix(&format!("{base}/")).unwrap_or(key).to_owned());
                }
            }
        }
        keys.sort();
        keys
    }

    /// A stored blob's bytes.
    pub async fn blob_read(&self, key: &str) -> Vec<u8> {
        match &self.blobs {
            Blobs::Folder(root) => std::fs::read(root.join(key)).unwrap(),
            Blobs::S3(endpoint, base) => {
                let r = self.client.get(format!("{endpoint}/meridian/{base}/{key}")).send().await.unwrap();
                assert!(r.status().is_success(), "{key}: {}", r.status());
                r.bytes().await.unwrap().to_vec()
            }
        }
    }

    /// Replaces a stored blob behind the server's back.
    pub async fn blob_write(&self, key: &str, bytes: Vec<u8>) {
        match &self.blobs {
            Blobs::Folder(root) => std::fs::write(root.join(key), bytes).unwrap(),
            Blobs::S3(endpoint, base) => {
                let r = self.client.put(format!("{endpoint}/meridian/{base}/{key}")).body(bytes).send().await.unwrap();
                assert!(r.status().is_success(), "{key}: {}", r.status());
            }
        }
    }

    /// Stops the server and hands back its data directory.
    pub fn stop(mut self) -> tempfile::TempDir {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap())
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Signs up and returns (account id, API key).
    pub async fn signup(&self, email: &str) -> (String, String) {
        let r = self
            .client
            .post(self.url("/api/v1/accounts"))
            .json(&json!({"name": "Test", "email": email}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let body: Value = r.json().await.unwrap();
        (body["account"]["id"].as_str().unwrap().to_owned(), body["api_key"].as_str().unwrap().to_owned())
    }

    pub async fn get(&self, path: &str, key: &str) -> reqwest::Response {
        self.client.get(self.url(path)).bearer_auth(key).send().await.unwrap()
    }

    /// Sends SIGTERM and waits (with a deadline) for the exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "meridian did not exit after SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Posts one GeoJSON Feature to the cadastre and expects it stored.
pub async fn post_parcel(s: &Server, key: &str, body: &Value) {
    let r = s
        .client
        .post(s.url("/api/v1/cadastre/parcels"))
        .header("X-Api-Key", key)
        .header("content-type", "application/geo+json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
}

/// `n` parcels of 0.005° on a 10-wide grid every 0.01° from 151.0 °E, 33.9 °S; `plan` cycles
/// through DP0..DP2 and tenure alternates.
pub async fn seed_parcels(s: &Server, key: &str, n: usize) {
    for i in 0..n {
        let lon = 151.0 + (i % 10) as f64 * 0.01;
        let lat = -33.9 + (i / 10) as f64 * 0.01;
        let body = json!({"type": "Feature",
            "geometry": {"type": "Polygon", "coordinates": [[[lon, lat], [lon + 0.005, lat], [lon + 0.005, lat + 0.005], [lon, lat + 0.005], [lon, lat]]]},
            "properties": {"lot": i.to_string(), "plan": format!("DP{}", i % 3), "tenure": if i % 2 == 0 { "freehold" } else { "leasehold" }}});
        post_parcel(s, key, &body).await;
    }
}

/// A header file for GDAL (`GDAL_HTTP_HEADER_FILE`) carrying the API key.
pub fn header_file(s: &Server, key: &str) -> std::path::PathBuf {
    let path = s.dir.path().join("gdal-headers.txt");
    std::fs::write(&path, format!("X-Api-Key: {key}\n")).unwrap();
    path
}

/// Asserts a problem document with `status` and `code`, returning it.
pub async fn problem(r: reqwest::Response, status: u16, code: &str) -> Value {
    assert_eq!(r.status().as_u16(), status, "status");
    let ct = r.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned());
    assert_eq!(ct.as_deref(), Some("application/problem+json"));
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["status"], status);
    assert_eq!(body["code"], code, "{body}");
    for field in ["type", "title", "detail", "request_id"] {
        assert!(body[field].is_string(), "problem lacks {field}: {body}");
    }
    assert!(body["errors"].is_array());
    body
}
