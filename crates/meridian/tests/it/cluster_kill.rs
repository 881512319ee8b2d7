//! Three nodes on one PostgreSQL database (and the test S3 server) with their roles split, under
//! load from every area that writes: DNS records, parcels, DEM jobs, webhook deliveries and twin
//! readings, sent through all three at once.
//!
//! - One node is SIGKILLed at a random moment and started again. Afterwards: no acknowledged write
//!   is lost; every event is delivered at least once; every job succeeds and completes once; both
//!   DNS nodes answer every record; the sockets on the surviving nodes got every reading
//!   acknowledged by any node.
//! - The database stops for 10 s under the same load. Meanwhile every node answers 503 (never a
//!   500); once it is back, the same processes go on and nothing acknowledged is lost.
//!
//! Both run on the second backend (`MERIDIAN_TEST_POSTGRES`).

use crate::dem::receiver::Receiver;
use crate::dns::{a_records, ask, create_zone};
use crate::twin::{connect, next_json, rfc3339, sensor, twin, Socket};
use crate::Server;
use hickory_proto::rr::RecordType;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Settings every node shares: webhooks to the local receiver, short leases so that a dead
/// node's work is taken over within seconds, and DNS polling far longer than the test (the
/// notices must do the work).
const COMMON: [(&str, &str); 8] = [
    ("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true"),
    ("MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "true"),
    ("MERIDIAN_WEBHOOKS__TIMEOUT", "2s"),
    ("MERIDIAN_WEBHOOKS__RETRY_SCHEDULE", r#"["200ms", "500ms", "1s", "1s", "1s", "1s", "1s", "1s"]"#),
    ("MERIDIAN_JOBS__LEASE", "3s"),
    ("MERIDIAN_JOBS__HEARTBEAT", "1s"),
    ("MERIDIAN_DNS__POLL_INTERVAL", "5m"),
    ("MERIDIAN_RATE_LIMITS__ENABLED", "false"),
];

/// The roles of each node: A (api, workers, dispatcher), B (api, dns, dispatcher), C (api,
/// workers, dns). Every role survives on one node when C is killed.
const ROLES: [&[(&str, &str)]; 3] = [
    &[("MERIDIAN_SERVER__ROLES__DNS", "false")],
    &[("MERIDIAN_SERVER__ROLES__WORKERS", "false")],
    &[("MERIDIAN_SERVER__ROLES__DISPATCHER", "false")],
];

/// Node `i`'s settings, on `database` (none: the test harness makes one) and the blob store
/// every node shares.
fn node_env<'a>(
    i: usize,
    database: Option<&'a str>,
    blobs: &'a SharedBlobs,
    extra: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut env: Vec<(&str, &str)> = COMMON.to_vec();
    env.extend_from_slice(ROLES[i]);
    env.push(("MERIDIAN_STORAGE__BLOB_URL", blobs.url.as_str()));
    if let Some(database) = database {
        env.push(("MERIDIAN_STORAGE__DATABASE_URL", database));
    }
    env.extend_from_slice(extra);
    env
}

/// One blob store for every node: a prefix of its own on the test S3 server, or a folder.
struct SharedBlobs {
    url: String,
    _folder: Option<tempfile::TempDir>,
}

fn shared_blobs(tag: &str) -> SharedBlobs {
    if std::env::var_os("MERIDIAN_TEST_S3").is_some() {
        let unique = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        return SharedBlobs { url: format!("s3://meridian/{tag}-{unique}"), _folder: None };
    }
    let folder = tempfile::tempdir().unwrap();
    SharedBlobs { url: format!("file://{}", folder.path().display()), _folder: Some(folder) }
}

/// What the load sends through the nodes, and what they acknowledged.
#[derive(Default)]
struct Acked {
    /// (record id, name, address)
    records: Vec<(String, String, String)>,
    parcels: Vec<String>,
    jobs: Vec<String>,
    tests: Vec<String>,
    /// (sensor, value) of readings answered 202.
    readings: Vec<(String, i64)>,
    /// Answers other than the acknowledgement, by status.
    refused: HashMap<u16, u32>,
}

#[derive(Clone)]
struct Load {
    bases: Arc<Mutex<Vec<String>>>,
    client: reqwest::Client,
    key: String,
    zone: String,
    dataset: String,
    subscription: String,
    twin: String,
    acked: Arc<Mutex<Acked>>,
    stop: Arc<AtomicBool>,
    readings_from: chrono::DateTime<chrono::Utc>,
}

impl Load {
    /// Sends a request to node `n`; none when it could not be reached (or did not answer).
    async fn call(&self, n: usize, method: &str, path: &str, body: Value, geo: bool) -> Option<(u16, Value)> {
        let base = self.bases.lock().unwrap()[n % 3].clone();
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self.client.request(m, format!("{base}{path}")).header("X-Api-Key", &self.key);
        req = if geo {
            req.header("content-type", "application/geo+json").body(body.to_string())
        } else {
            req.json(&body)
        };
        let r = req.send().await.ok()?;
        let status = r.status().as_u16();
        let body = r.json().await.unwrap_or(Value::Null);
        assert!(status < 500 || status == 503, "node {} answered {status}: {body}", n % 3);
        Some((status, body))
    }

    fn refused(&self, status: u16) {
        *self.acked.lock().unwrap().refused.entry(status).or_default() += 1;
    }

    async fn records(self) {
        let mut i = 0u32;
        while !self.stop.load(Ordering::Relaxed) {
            i += 1;
            let (name, address) = (format!("k{i}"), format!("192.0.2.{}", i % 250 + 1));
            let body = json!({"type": "A", "name": name, "content": address});
            match self.call(i as usize, "POST", &format!("/v1/dns/zones/{}/records", self.zone), body, false).await {
                Some((201, b)) => {
                    let id = b["id"].as_str().unwrap().to_owned();
                    self.acked.lock().unwrap().records.push((id, name, address));
                }
                Some((s, _)) => self.refused(s),
                None => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }

    async fn parcels(self) {
        let mut i = 0u32;
        while !self.stop.load(Ordering::Relaxed) {
            i += 1;
            let (lon, lat) = (151.0 + f64::from(i % 100) * 0.001, -33.9 + f64::from(i / 100) * 0.001);
            let body = json!({"type": "Feature",
                "geometry": {"type": "Polygon", "coordinates": [[[lon, lat], [lon + 0.0005, lat], [lon + 0.0005, lat + 0.0005], [lon, lat + 0.0005], [lon, lat]]]},
                "properties": {"lot": i.to_string(), "plan": "DP7"}});
            match self.call(i as usize + 1, "POST", "/api/v1/cadastre/parcels", body, true).await {
                Some((201, b)) => {
                    let id = b["id"].as_str().unwrap().to_owned();
                    self.acked.lock().unwrap().parcels.push(id);
                }
                Some((s, _)) => self.refused(s),
                None => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }

    async fn jobs(self) {
        let mut i = 0usize;
        while !self.stop.load(Ordering::Relaxed) {
            i += 1;
            let body = json!({"source": {"dataset_id": self.dataset}, "params": {"operations": [{"type": "slope"}]}});
            match self.call(i + 2, "POST", "/api/v1/dem/process", body, false).await {
                Some((202, b)) => {
                    let id = b["id"].as_str().unwrap().to_owned();
                    self.acked.lock().unwrap().jobs.push(id);
                }
                Some((s, _)) => self.refused(s),
                None => {}
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    async fn tests(self) {
        let mut i = 0usize;
        while !self.stop.load(Ordering::Relaxed) {
            i += 1;
            let path = format!("/api/v1/webhooks/subscriptions/{}/test", self.subscription);
            match self.call(i, "POST", &path, Value::Null, false).await {
                Some((202, b)) => {
                    let id = b["id"].as_str().unwrap().to_owned();
                    self.acked.lock().unwrap().tests.push(id);
                }
                Some((s, _)) => self.refused(s),
                None => {}
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Readings of sensor `s{n}` through node `n` only, one value after another, so that each
    /// sensor's readings are stamped in the order they are sent.
    async fn readings(self, n: usize) {
        let mut i = 0i64;
        let sensor = format!("s{n}");
        let path = format!("/api/v1/realtime/twin/{}/readings", self.twin);
        while !self.stop.load(Ordering::Relaxed) {
            i += 1;
            let ts = rfc3339(self.readings_from + chrono::Duration::milliseconds(i));
            let body = json!({"readings": [{"sensorId": sensor, "value": i, "ts": ts}]});
            match self.call(n, "POST", &path, body, false).await {
                Some((202, _)) => self.acked.lock().unwrap().readings.push((sensor.clone(), i)),
                Some((s, _)) => self.refused(s),
                None => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }

    /// Stops the load, waits for its tasks and says what was acknowledged.
    async fn finish(&self, tasks: Vec<tokio::task::JoinHandle<()>>) {
        self.stop.store(true, Ordering::Relaxed);
        for t in tasks {
            t.await.unwrap();
        }
        let acked = self.acked.lock().unwrap();
        eprintln!(
            "acknowledged: {} records, {} parcels, {} jobs, {} test events, {} readings; other answers {:?}",
            acked.records.len(),
            acked.parcels.len(),
            acked.jobs.len(),
            acked.tests.len(),
            acked.readings.len(),
            acked.refused
        );
    }

    fn start(&self) -> Vec<tokio::task::JoinHandle<()>> {
        let mut tasks = vec![
            tokio::spawn(self.clone().records()),
            tokio::spawn(self.clone().parcels()),
            tokio::spawn(self.clone().jobs()),
            tokio::spawn(self.clone().tests()),
        ];
        for n in 0..3 {
            tasks.push(tokio::spawn(self.clone().readings(n)));
        }
        tasks
    }
}

/// Polls `check` every 50 ms until it holds, for at most `secs`.
async fn within<F, Fut>(secs: u64, what: &str, check: F) -> Duration
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !check().await {
        assert!(start.elapsed() < Duration::from_secs(secs), "{what}: not seen after {secs} s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    start.elapsed()
}

/// Reads a socket until every reading in `want` arrived (extra ones, from requests that were
/// cut off, may come too); a `gap` notice fails.
async fn receive_all(ws: &mut Socket, want: &HashSet<(String, i64)>, node: &str) {
    let mut seen = HashSet::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !want.is_subset(&seen) {
        assert!(Instant::now() < deadline, "node {node}'s socket got {} of {} readings", seen.len(), want.len());
        let v = next_json(ws).await;
        assert_ne!(v["type"], "gap", "node {node}: {v}");
        if let (Some(s), Some(value)) = (v["sensorId"].as_str(), v["value"].as_i64()) {
            seen.insert((s.to_owned(), value));
        }
    }
}

/// A small DEM (the swissALTI3D tile of the raster engine's tests) uploaded as a dataset.
async fn dem_dataset(s: &Server, key: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../raster/tests/data/swissalti3d-2573-1085.tif");
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(std::fs::read(p).unwrap()).file_name("dem.tif"))
        .text("params", json!({"operations": [{"type": "hillshade"}]}).to_string());
    let r = s.client.post(s.url("/api/v1/dem/process")).bearer_auth(key).multipart(form).send().await.unwrap();
    assert_eq!(r.status(), 202);
    let queued: Value = r.json().await.unwrap();
    queued["source"]["dataset_id"].as_str().unwrap().to_owned()
}

/// The account, zone, DEM dataset, webhook subscription and twin the load writes to.
async fn prepare(a: &Server, rx: &Receiver, bases: Vec<String>) -> Load {
    let (_, key) = a.signup("cluster-kill@example.com").await;
    let zone = create_zone(a, &key, "kill.example").await;
    let r = a
        .client
        .post(a.url("/api/v1/webhooks/subscriptions"))
        .bearer_auth(&key)
        .json(&json!({"url": rx.url, "events": ["*"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let sub: Value = r.json().await.unwrap();
    let t = twin(a, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let twin_id = t["id"].as_str().unwrap().to_owned();
    for n in 0..3 {
        assert_eq!(sensor(a, &key, &twin_id, json!({"id": format!("s{n}"), "unit": "1"})).await.status(), 201);
    }
    Load {
        bases: Arc::new(Mutex::new(bases)),
        client: meridian_egress::tls::client_builder(&[]).unwrap().timeout(Duration::from_secs(15)).build().unwrap(),
        dataset: dem_dataset(a, &key).await,
        key,
        zone: zone["id"].as_str().unwrap().to_owned(),
        subscription: sub["id"].as_str().unwrap().to_owned(),
        twin: twin_id,
        acked: Arc::default(),
        stop: Arc::default(),
        readings_from: chrono::Utc::now() - chrono::Duration::minutes(4),
    }
}

/// Every acknowledged write is there, through `node`; every job succeeded and completed once;
/// every event reached the receiver.
async fn check_nothing_lost(node: &Server, load: &Load, rx: &Receiver) {
    let acked = load.acked.lock().unwrap().records.clone();
    for (id, name, _) in &acked {
        let r = node.get(&format!("/v1/dns/zones/{}/records/{id}", load.zone), &load.key).await;
        assert_eq!(r.status(), 200, "acknowledged record {name} ({id}) is missing");
    }
    let parcels = load.acked.lock().unwrap().parcels.clone();
    for id in &parcels {
        let r = node.get(&format!("/api/v1/cadastre/parcels/{id}"), &load.key).await;
        assert_eq!(r.status(), 200, "acknowledged parcel {id} is missing");
    }
    let jobs = load.acked.lock().unwrap().jobs.clone();
    for id in &jobs {
        let path = format!("/api/v1/dem/jobs/{id}");
        within(120, &format!("job {id} succeeded"), || async {
            let job: Value = node.get(&path, &load.key).await.json().await.unwrap();
            assert_ne!(job["status"], "failed", "{job}");
            job["status"] == "succeeded"
        })
        .await;
    }
    // Every event: the test events by id, the writes' events by the id they carry.
    let tests: HashSet<String> = load.acked.lock().unwrap().tests.iter().cloned().collect();
    let wanted: Vec<(&str, String)> = acked
        .iter()
        .map(|(id, _, _)| ("dns.record.created", id.clone()))
        .chain(parcels.iter().map(|id| ("cadastre.parcel.registered", id.clone())))
        .chain(jobs.iter().map(|id| ("dem.job.succeeded", id.clone())))
        .collect();
    let got = rx
        .wait_until(120, "every event of an acknowledged write", |r| {
            let ids: HashSet<String> = r.iter().map(|x| x.event_id()).collect();
            let bodies: Vec<String> = r.iter().map(|x| String::from_utf8_lossy(&x.body).into_owned()).collect();
            tests.is_subset(&ids)
                && wanted.iter().all(|(kind, id)| bodies.iter().any(|b| b.contains(kind) && b.contains(id.as_str())))
        })
        .await;
    // A job completes once: one completion event per job, however often it was delivered.
    for id in &jobs {
        let events: HashSet<String> = got
            .iter()
            .filter(|r| {
                let b = String::from_utf8_lossy(&r.body);
                b.contains("dem.job.succeeded") && b.contains(id.as_str())
            })
            .map(|r| r.event_id())
            .collect();
        assert_eq!(events.len(), 1, "job {id} completed {} times", events.len());
    }
}

/// Both DNS nodes answer every acknowledged record.
async fn check_dns(dns_nodes: &[std::net::SocketAddr], load: &Load) {
    let records = load.acked.lock().unwrap().records.clone();
    for addr in dns_nodes {
        for (_, name, address) in &records {
            let fqdn = format!("{name}.kill.example.");
            let answer = a_records(&ask(*addr, &fqdn, RecordType::A, false).await);
            assert_eq!(answer, std::slice::from_ref(address), "DNS node {addr} on {fqdn}");
        }
    }
}

fn random_ms(lo: u64, hi: u64) -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    lo + u64::from(nanos) % (hi - lo)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_nodes_lose_nothing_acknowledged_when_one_is_killed_under_load() {
    if std::env::var_os("MERIDIAN_TEST_POSTGRES").is_none() {
        eprintln!("the cluster tests run on the second backend (MERIDIAN_TEST_POSTGRES)");
        return;
    }
    let rx = Receiver::http().await;
    let blobs = shared_blobs("kill");
    let a = Server::start_with(&node_env(0, None, &blobs, &[]));
    let db = a.database_url.clone();
    let b = Server::start_with(&node_env(1, Some(&db), &blobs, &[]));
    let c = Server::start_with(&node_env(2, Some(&db), &blobs, &[]));
    let load = prepare(&a, &rx, vec![a.base.clone(), b.base.clone(), c.base.clone()]).await;

    // Sockets on the nodes that survive, open before any reading.
    let mut on_a = connect(&a, Some(&load.key), &load.twin, "").await.unwrap();
    let mut on_b = connect(&b, Some(&load.key), &load.twin, "").await.unwrap();
    assert_eq!(next_json(&mut on_a).await["type"], "hello");
    assert_eq!(next_json(&mut on_b).await["type"], "hello");

    let tasks = load.start();
    tokio::time::sleep(Duration::from_millis(random_ms(1500, 4000))).await;
    // SIGKILL, whatever it was doing. While it is down its address refuses connections: nothing
    // sent there is acknowledged.
    let dir = c.stop();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let c = Server::start_in(dir, &node_env(2, Some(&db), &blobs, &[]));
    load.bases.lock().unwrap()[2] = c.base.clone();
    tokio::time::sleep(Duration::from_secs(3)).await;
    load.finish(tasks).await;
    {
        let acked = load.acked.lock().unwrap();
        assert!(acked.records.len() > 20 && acked.parcels.len() > 20 && acked.jobs.len() > 5);
        assert!(acked.readings.iter().any(|(s, _)| s == "s2"), "node C acknowledged readings");
    }

    let readings: HashSet<(String, i64)> = load.acked.lock().unwrap().readings.iter().cloned().collect();
    receive_all(&mut on_a, &readings, "A").await;
    receive_all(&mut on_b, &readings, "B").await;
    check_nothing_lost(&b, &load, &rx).await;
    let dns_nodes = [b.dns.unwrap(), c.dns.unwrap()];
    check_dns(&dns_nodes, &load).await;

    // A record written through any node now is answered by both DNS nodes within a second.
    for (n, node) in [&a, &b, &c].into_iter().enumerate() {
        let name = format!("late{n}");
        let body = json!({"type": "A", "name": name, "content": "198.51.100.9"});
        let (status, _) =
            load.call(n, "POST", &format!("/v1/dns/zones/{}/records", load.zone), body, false).await.unwrap();
        assert_eq!(status, 201, "through node {}", node.base);
        for addr in dns_nodes {
            let fqdn = format!("{name}.kill.example.");
            let took = within(10, &format!("{fqdn} on {addr}"), || async {
                a_records(&ask(addr, &fqdn, RecordType::A, false).await) == ["198.51.100.9"]
            })
            .await;
            assert!(took < Duration::from_secs(1), "{fqdn} written through node {n} answered by {addr} after {took:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_nodes_answer_503_while_the_database_is_gone_and_go_on_after() {
    let test = "cluster_kill::three_nodes_answer_503_while_the_database_is_gone_and_go_on_after";
    if std::env::var_os("MERIDIAN_TEST_POSTGRES").is_none() {
        eprintln!("the cluster tests run on the second backend (MERIDIAN_TEST_POSTGRES)");
        return;
    }
    if crate::postgres_restart::postgres_bin().is_none() {
        crate::missing("PostgreSQL's server programs (pg_config --bindir with pg_ctl)", test);
        return;
    }
    // A PostgreSQL of the test's own, so that stopping it disturbs nobody else.
    let pg = crate::postgres_restart::cluster();
    let db = format!("postgres://postgres@127.0.0.1:{}/postgres", pg.port);
    let extra = [("MERIDIAN_STORAGE__ACQUIRE_TIMEOUT", "1s")];
    let rx = Receiver::http().await;
    let blobs = shared_blobs("outage");
    let a = Server::start_with(&node_env(0, Some(&db), &blobs, &extra));
    let b = Server::start_with(&node_env(1, Some(&db), &blobs, &extra));
    let c = Server::start_with(&node_env(2, Some(&db), &blobs, &extra));
    let nodes = [&a, &b, &c];
    let load = prepare(&a, &rx, nodes.iter().map(|n| n.base.clone()).collect()).await;
    let mut on_a = connect(&a, Some(&load.key), &load.twin, "").await.unwrap();
    assert_eq!(next_json(&mut on_a).await["type"], "hello");

    let tasks = load.start();
    tokio::time::sleep(Duration::from_secs(2)).await;
    pg.stop();
    let gone = Instant::now();
    // Every node says it is not ready, and refuses writes with 503, while the database is gone.
    for node in nodes {
        within(10, "/readyz answering 503", || async {
            node.client.get(node.url("/readyz")).send().await.map(|r| r.status() == 503).unwrap_or(false)
        })
        .await;
        let r = node
            .client
            .post(node.url(&format!("/v1/dns/zones/{}/records", load.zone)))
            .bearer_auth(&load.key)
            .json(&json!({"type": "A", "name": "during", "content": "192.0.2.200"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 503, "a write while the database is gone");
    }
    tokio::time::sleep(Duration::from_secs(10).saturating_sub(gone.elapsed())).await;
    pg.start();
    // The same processes recover without a restart.
    for node in nodes {
        within(30, "/readyz answering 200 again", || async {
            node.client.get(node.url("/readyz")).send().await.map(|r| r.status() == 200).unwrap_or(false)
        })
        .await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    load.finish(tasks).await;
    {
        let acked = load.acked.lock().unwrap();
        assert!(acked.refused.get(&503).copied().unwrap_or(0) > 0, "the load met the outage");
        assert!(acked.records.len() > 20 && acked.parcels.len() > 20);
    }
    check_nothing_lost(&a, &load, &rx).await;
    check_dns(&[b.dns.unwrap(), c.dns.unwrap()], &load).await;
    // Node A's socket lost its connection to the other nodes' readings while the database was
    // gone: it says so with a gap, then goes on; a reading sent through node B now reaches it.
    let path = format!("/api/v1/realtime/twin/{}/readings", load.twin);
    let ts = rfc3339(chrono::Utc::now());
    let body = json!({"readings": [{"sensorId": "s1", "value": 1_000_000, "ts": ts}]});
    let (status, _) = load.call(1, "POST", &path, body, false).await.unwrap();
    assert_eq!(status, 202);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        assert!(Instant::now() < deadline, "the reading through node B never reached node A's socket");
        let v = next_json(&mut on_a).await;
        if v["value"] == 1_000_000 {
            break;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_cancelled_through_one_node_stops_on_the_node_running_it_within_a_second() {
    if std::env::var_os("MERIDIAN_TEST_POSTGRES").is_none() {
        eprintln!("the cluster tests run on the second backend (MERIDIAN_TEST_POSTGRES)");
        return;
    }
    // Node A takes the request and runs no jobs; node B runs them.
    let blobs = shared_blobs("cancel");
    let blob_url = ("MERIDIAN_STORAGE__BLOB_URL", blobs.url.as_str());
    let a = Server::start_with(&[
        blob_url,
        ("MERIDIAN_SERVER__ROLES__WORKERS", "false"),
        ("MERIDIAN_SERVER__ROLES__DNS", "false"),
    ]);
    let db = a.database_url.clone();
    let b = Server::start_with(&[
        blob_url,
        ("MERIDIAN_STORAGE__DATABASE_URL", db.as_str()),
        ("MERIDIAN_SERVER__ROLES__DNS", "false"),
        ("MERIDIAN_JOBS__WORKERS", "1"),
    ]);
    let (_, key) = a.signup("cluster-cancel@example.com").await;
    let dem = crate::dem::synthetic_dem(a.dir.path(), 2000);
    let ops = json!({"operations": [
        {"type": "hillshade", "multidirectional": true}, {"type": "slope"}, {"type": "aspect"},
        {"type": "tri"}, {"type": "tpi"}, {"type": "roughness"}, {"type": "contours", "interval": 5},
    ]});
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(dem).file_name("synthetic.tif"))
        .text("params", ops.to_string());
    let r = a.client.post(a.url("/api/v1/dem/process")).bearer_auth(&key).multipart(form).send().await.unwrap();
    assert_eq!(r.status(), 202);
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/dem/jobs/{id}");
    let status = |node: &Server| {
        let (client, url, key) = (node.client.clone(), node.url(&path), key.clone());
        async move {
            let job: Value = client.get(url).bearer_auth(key).send().await.unwrap().json().await.unwrap();
            job["status"].as_str().unwrap_or_default().to_owned()
        }
    };
    within(60, "the job running on node B", || async { status(&b).await == "running" }).await;
    let r = a.client.delete(a.url(&path)).bearer_auth(&key).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let took = within(30, "the job cancelled", || async { status(&a).await == "cancelled" }).await;
    eprintln!("cancelled through node A, stopped on node B after {took:?}");
    assert!(took < Duration::from_millis(1500), "the job stopped {took:?} after the cancellation");
}
