//! Two nodes on one PostgreSQL database: what one node changes, the other acts on within a
//! second through the store's notices, not through its own polling (set far longer here).
//!
//! Runs on the second backend (`MERIDIAN_TEST_POSTGRES`): the embedded default is one process
//! per data folder, so there is no second node to ask.

use crate::dns::{a_records, api, ask, create_record, create_zone};
use crate::twin::{connect, next_json, post, rfc3339, sensor, set_time, twin};
use crate::Server;
use hickory_proto::rr::RecordType;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The API node: no DNS listener. The DNS node: no dispatcher or workers (nothing of its own
/// would tell it of a change), and DNS polling every 30 s.
fn two_nodes() -> Option<(Server, Server)> {
    std::env::var("MERIDIAN_TEST_POSTGRES").ok()?;
    let api = Server::start_with(&[("MERIDIAN_SERVER__ROLES__DNS", "false")]);
    let url = api.database_url.clone();
    let dns = Server::start_with(&[
        ("MERIDIAN_STORAGE__DATABASE_URL", url.as_str()),
        ("MERIDIAN_SERVER__ROLES__DISPATCHER", "false"),
        ("MERIDIAN_SERVER__ROLES__WORKERS", "false"),
        ("MERIDIAN_DNS__POLL_INTERVAL", "30s"),
    ]);
    Some((api, dns))
}

/// Polls `check` every 20 ms until it holds; returns how long that took (fails after 10 s).
async fn within<F, Fut>(what: &str, check: F) -> Duration
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !check().await {
        assert!(start.elapsed() < Duration::from_secs(10), "{what}: not seen after 10 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    start.elapsed()
}

#[tokio::test]
async fn a_key_revoked_on_one_node_stops_working_on_the_other_within_a_second() {
    let Some((a, b)) = two_nodes() else {
        eprintln!("the cluster tests run on the second backend (MERIDIAN_TEST_POSTGRES)");
        return;
    };
    let (_, key) = a.signup("cluster-keys@example.com").await;
    const KEYS: &str = "/api/v1/account/api-keys";
    let r = a.client.post(a.url(KEYS)).bearer_auth(&key).json(&json!({"name": "second"})).send().await.unwrap();
    assert_eq!(r.status(), 201);
    let created: Value = r.json().await.unwrap();
    let (id, second) = (created["id"].as_str().unwrap().to_owned(), created["api_key"].as_str().unwrap().to_owned());
    // Node B reads the key and keeps it in its cache.
    assert_eq!(b.get(KEYS, &second).await.status(), 200);

    let r = a.client.delete(a.url(&format!("{KEYS}/{id}"))).bearer_auth(&key).send().await.unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let took =
        within("the revoked key refused by node B", || async { b.get(KEYS, &second).await.status() == 401 }).await;
    assert!(took < Duration::from_secs(1), "node B accepted the revoked key for {took:?}");
    // The first key still works on both.
    assert_eq!(b.get(KEYS, &key).await.status(), 200);
}

#[tokio::test]
async fn a_record_written_through_one_node_is_answered_by_the_other_within_a_second() {
    let Some((a, b)) = two_nodes() else {
        eprintln!("the cluster tests run on the second backend (MERIDIAN_TEST_POSTGRES)");
        return;
    };
    let dns = b.dns.expect("node B serves DNS");
    let (_, key) = a.signup("cluster-dns@example.com").await;
    let zone = create_zone(&a, &key, "cluster.example").await;
    let zid = zone["id"].as_str().unwrap().to_owned();
    within("the new zone served by node B", || async {
        ask(dns, "cluster.example.", RecordType::SOA, false).await.answers.len() == 1
    })
    .await;

    let r = create_record(&a, &key, &zid, json!({"type": "A", "name": "www", "content": "192.0.2.7"})).await;
    assert_eq!(r.status(), 201);
    let record: Value = r.json().await.unwrap();
    let rid = record["id"].as_str().unwrap().to_owned();
    let took = within("the new record answered by node B", || async {
        a_records(&ask(dns, "www.cluster.example.", RecordType::A, false).await) == ["192.0.2.7"]
    })
    .await;
    assert!(took < Duration::from_secs(1), "node B answered the new record after {took:?}");

    // A change to it too.
    let r =
        api(&a, "PATCH", &format!("/v1/dns/zones/{zid}/records/{rid}"), &key, Some(json!({"content": "192.0.2.8"})))
            .await;
    assert_eq!(r.status(), 200);
    let took = within("the changed record answered by node B", || async {
        a_records(&ask(dns, "www.cluster.example.", RecordType::A, false).await) == ["192.0.2.8"]
    })
    .await;
    assert!(took < Duration::from_secs(1), "node B answered the changed record after {took:?}");
}

#[tokio::test]
async fn a_twin_changed_through_one_node_reaches_the_other_nodes_sockets_and_ingest() {
    // The twin's first build runs on a node with workers: the API node here.
    let Some((a, b)) = two_nodes() else {
        eprintln!("the cluster tests run on the second backend (MERIDIAN_TEST_POSTGRES)");
        return;
    };
    let (_, key) = a.signup("cluster-twin@example.com").await;
    let t = twin(&a, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(sensor(&a, &key, &id, json!({"id": "t1", "unit": "degC"})).await.status(), 201);

    // Node B ingests for t1 (and keeps the twin's sensors); once t1 is deleted through node A,
    // node B's ingest refuses it at once.
    let reading = |sid: &str| json!({"readings": [{"sensorId": sid, "value": 1.5}]});
    let path = format!("/api/v1/realtime/twin/{id}/readings");
    assert_eq!(post(&b, &key, &path, reading("t1")).await.status(), 202);
    let r = a
        .client
        .delete(a.url(&format!("/api/v1/realtime/twin/{id}/sensors/t1")))
        .header("X-Api-Key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let took = within("node B refusing readings of the deleted sensor", || async {
        post(&b, &key, &path, reading("t1")).await.status() == 422
    })
    .await;
    assert!(took < Duration::from_secs(1), "node B took readings of the deleted sensor for {took:?}");

    // A socket on node B hears the clock set through node A.
    let mut ws = connect(&b, Some(&key), &id, "").await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "hello");
    let at = chrono::Utc::now() - chrono::Duration::hours(2);
    let start = Instant::now();
    set_time(&a, &key, &id, json!({"time": rfc3339(at), "playing": false})).await;
    let clock = loop {
        let v = next_json(&mut ws).await;
        if v["type"] == "clock" {
            break v;
        }
    };
    let took = start.elapsed();
    assert_eq!(clock["clock"]["mode"], "simulated", "{clock}");
    assert!(took < Duration::from_secs(1), "node B's socket heard the clock after {took:?}");
}

#[tokio::test]
async fn readings_ingested_on_any_node_reach_the_sockets_of_every_node_in_order() {
    let Some(_) = std::env::var_os("MERIDIAN_TEST_POSTGRES") else {
        eprintln!("the cluster tests run on the second backend (MERIDIAN_TEST_POSTGRES)");
        return;
    };
    // Values larger than one notice are allowed here: those cross as a pointer to the store.
    let a =
        Server::start_with(&[("MERIDIAN_SERVER__ROLES__DNS", "false"), ("MERIDIAN_TWIN__MAX_VALUE_BYTES", "20000")]);
    let url = a.database_url.clone();
    let b = Server::start_with(&[
        ("MERIDIAN_STORAGE__DATABASE_URL", url.as_str()),
        ("MERIDIAN_SERVER__ROLES__DNS", "false"),
        ("MERIDIAN_SERVER__ROLES__WORKERS", "false"),
        ("MERIDIAN_TWIN__MAX_VALUE_BYTES", "20000"),
    ]);
    let (_, key) = a.signup("cluster-readings@example.com").await;
    let t = twin(&a, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(sensor(&a, &key, &id, json!({"id": "t1", "unit": "degC"})).await.status(), 201);
    assert_eq!(sensor(&a, &key, &id, json!({"id": "doc", "type": "string"})).await.status(), 201);

    let mut on_a = connect(&a, Some(&key), &id, "").await.unwrap();
    let mut on_b = connect(&b, Some(&key), &id, "").await.unwrap();
    assert_eq!(next_json(&mut on_a).await["type"], "hello");
    assert_eq!(next_json(&mut on_b).await["type"], "hello");

    // 300 readings through node A (several notices), then 3 through node B, then one value too
    // large for a notice through node A.
    let base = chrono::Utc::now() - chrono::Duration::minutes(10);
    let at = |i: i64| rfc3339(base + chrono::Duration::milliseconds(i));
    let batch: Vec<Value> = (0..300).map(|i| json!({"sensorId": "t1", "value": i, "ts": at(i)})).collect();
    let path = format!("/api/v1/realtime/twin/{id}/readings");
    let start = Instant::now();
    assert_eq!(post(&a, &key, &path, json!({ "readings": batch })).await.status(), 202);
    let later: Vec<Value> = (300..303).map(|i| json!({"sensorId": "t1", "value": i, "ts": at(i)})).collect();
    assert_eq!(post(&b, &key, &path, json!({ "readings": later })).await.status(), 202);
    let big = "x".repeat(15_000);
    assert_eq!(post(&a, &key, &path, json!({"readings": [{"sensorId": "doc", "value": big}]})).await.status(), 202);

    for (node, ws) in [("A", &mut on_a), ("B", &mut on_b)] {
        let mut values = Vec::new();
        let mut doc = None;
        while values.len() < 303 || doc.is_none() {
            let v = next_json(ws).await;
            assert_ne!(v["type"], "gap", "node {node}: {v}");
            match v["sensorId"].as_str() {
                Some("t1") => values.push(v["value"].as_i64().unwrap()),
                Some("doc") => doc = v["value"].as_str().map(str::len),
                _ => panic!("node {node}: unexpected {v}"),
            }
        }
        assert_eq!(values, (0..303).collect::<Vec<i64>>(), "node {node}: every reading, in order");
        assert_eq!(doc, Some(15_000), "node {node}: the large value read back whole");
    }
    let took = start.elapsed();
    assert!(took < Duration::from_secs(2), "the readings reached both nodes' sockets after {took:?}");
}

#[tokio::test]
async fn with_redis_the_nodes_spend_one_rate_limit_and_without_it_each_its_own() {
    let Some(_) = std::env::var_os("MERIDIAN_TEST_POSTGRES") else {
        eprintln!("the cluster tests run on the second backend (MERIDIAN_TEST_POSTGRES)");
        return;
    };
    let Ok(redis) = std::env::var("MERIDIAN_TEST_REDIS") else {
        assert!(std::env::var_os("MERIDIAN_REQUIRE_TOOLS").is_none(), "MERIDIAN_TEST_REDIS is not set");
        eprintln!("the shared rate limits need a Redis server (MERIDIAN_TEST_REDIS)");
        return;
    };
    for shared in [true, false] {
        let url = if shared { redis.as_str() } else { "" };
        let limits = [("MERIDIAN_RATE_LIMITS__REDIS_URL", url), ("MERIDIAN_RATE_LIMITS__DNS__PER_MINUTE", "10")];
        let a = Server::start_with(&[limits[0], limits[1], ("MERIDIAN_SERVER__ROLES__DNS", "false")]);
        let db = a.database_url.clone();
        let b = Server::start_with(&[
            limits[0],
            limits[1],
            ("MERIDIAN_STORAGE__DATABASE_URL", db.as_str()),
            ("MERIDIAN_SERVER__ROLES__DNS", "false"),
            ("MERIDIAN_SERVER__ROLES__WORKERS", "false"),
        ]);
        let (_, key) = a.signup(&format!("cluster-limits-{shared}@example.com")).await;
        let mut allowed = 0;
        for i in 0..30 {
            let node = if i % 2 == 0 { &a } else { &b };
            let r = node.get("/v1/dns/zones", &key).await;
            match r.status().as_u16() {
                200 => allowed += 1,
                429 => assert!(r.headers().contains_key("retry-after")),
                s => panic!("GET /v1/dns/zones answered {s}"),
            }
        }
        // A bucket of 10 refills one token every 6 s: the 30 requests take well under that.
        if shared {
            assert!((10..=11).contains(&allowed), "two nodes sharing one bucket of 10 allowed {allowed}");
        } else {
            assert!((20..=22).contains(&allowed), "two nodes with a bucket of 10 each allowed {allowed}");
        }
    }
}

/// The value of a counter in a node's `/metrics` (0 when absent).
async fn counter(node: &Server, name: &str) -> f64 {
    let text = node.client.get(node.url("/metrics")).send().await.unwrap().text().await.unwrap();
    text.lines()
        .filter(|l| l.starts_with(name) && l[name.len()..].starts_with([' ', '{']))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[tokio::test]
async fn mqtt_readings_are_taken_once_by_the_nodes_sharing_one_subscription() {
    const TEST: &str = "cluster::mqtt_readings_are_taken_once_by_the_nodes_sharing_one_subscription";
    let Some(_) = std::env::var_os("MERIDIAN_TEST_POSTGRES") else {
        eprintln!("the cluster tests run on the second backend (MERIDIAN_TEST_POSTGRES)");
        return;
    };
    if tokio::net::TcpStream::connect("127.0.0.1:1883").await.is_err() {
        crate::missing("a Mosquitto broker on 127.0.0.1:1883", TEST);
        return;
    }
    let prefix = format!("meridian-cluster-{}", std::process::id());
    let topic = format!("{prefix}/{{twin}}/{{sensor}}");
    let mqtt = [("MERIDIAN_TWIN__MQTT_URL", "mqtt://127.0.0.1:1883"), ("MERIDIAN_TWIN__MQTT_TOPIC", topic.as_str())];
    let a = Server::start_with(&[mqtt[0], mqtt[1], ("MERIDIAN_SERVER__ROLES__DNS", "false")]);
    let db = a.database_url.clone();
    let b = Server::start_with(&[
        mqtt[0],
        mqtt[1],
        ("MERIDIAN_STORAGE__DATABASE_URL", db.as_str()),
        ("MERIDIAN_SERVER__ROLES__DNS", "false"),
        ("MERIDIAN_SERVER__ROLES__WORKERS", "false"),
    ]);
    let (_, key) = a.signup("cluster-mqtt@example.com").await;
    let t = twin(&a, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(sensor(&a, &key, &id, json!({"id": "level", "unit": "m"})).await.status(), 201);
    for node in [&a, &b] {
        within("the node's MQTT session", || async {
            counter(node, "meridian_twin_mqtt_connections_total").await >= 1.0
        })
        .await;
    }
    // The subscription follows the connection at once; leave it a moment to reach the broker.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let mut options = rumqttc::MqttOptions::new(format!("{prefix}-pub"), "127.0.0.1", 1883);
    options.set_keep_alive(Duration::from_secs(5));
    let (client, mut eventloop) = rumqttc::AsyncClient::new(options, 500);
    tokio::spawn(async move { while eventloop.poll().await.is_ok() {} });
    let base = chrono::Utc::now() - chrono::Duration::minutes(1);
    const N: i64 = 200;
    for i in 0..N {
        let payload = json!({"value": i, "ts": rfc3339(base + chrono::Duration::milliseconds(i))}).to_string();
        client.publish(format!("{prefix}/{id}/level"), rumqttc::QoS::AtLeastOnce, false, payload).await.unwrap();
    }
    let path = format!("/api/v1/realtime/twin/{id}/sensors/level/readings?from={}&limit=1000", rfc3339(base));
    within("every MQTT reading stored", || async {
        let stored: Value = b.get(&path, &key).await.json().await.unwrap();
        stored["readings"].as_array().map_or(0, Vec::len) == N as usize
    })
    .await;
    let (on_a, on_b) =
        (counter(&a, "meridian_twin_readings_total").await, counter(&b, "meridian_twin_readings_total").await);
    assert_eq!(on_a + on_b, N as f64, "each message taken by one node: {on_a} on A, {on_b} on B");
    assert!(on_a > 0.0 && on_b > 0.0, "the broker shares the messages between the nodes: {on_a} on A, {on_b} on B");
}

#[tokio::test]
async fn the_socket_cap_of_an_account_counts_the_sockets_of_every_node() {
    let Some(_) = std::env::var_os("MERIDIAN_TEST_POSTGRES") else {
        eprintln!("the cluster tests run on the second backend (MERIDIAN_TEST_POSTGRES)");
        return;
    };
    let cap = ("MERIDIAN_TWIN__MAX_WS_PER_ACCOUNT", "3");
    let a = Server::start_with(&[cap, ("MERIDIAN_SERVER__ROLES__DNS", "false")]);
    let db = a.database_url.clone();
    let b = Server::start_with(&[
        cap,
        ("MERIDIAN_STORAGE__DATABASE_URL", db.as_str()),
        ("MERIDIAN_SERVER__ROLES__DNS", "false"),
        ("MERIDIAN_SERVER__ROLES__WORKERS", "false"),
    ]);
    let (_, key) = a.signup("cluster-sockets@example.com").await;
    let t = twin(&a, &key, json!({"bbox": [151.19, -33.88, 151.21, -33.86]})).await;
    let id = t["id"].as_str().unwrap().to_owned();
    let mut first = connect(&a, Some(&key), &id, "").await.unwrap();
    let _second = connect(&a, Some(&key), &id, "").await.unwrap();
    let _third = connect(&b, Some(&key), &id, "").await.unwrap();
    for node in [&a, &b] {
        match connect(node, Some(&key), &id, "").await {
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 429),
            other => panic!("a fourth socket of the account was not refused: {:?}", other.map(|_| ())),
        }
    }
    // One closed on node A frees a seat on node B.
    futures::SinkExt::close(&mut first).await.unwrap();
    drop(first);
    let took =
        within("a seat freed on node A taken on node B", || async { connect(&b, Some(&key), &id, "").await.is_ok() })
            .await;
    assert!(took < Duration::from_secs(2), "the seat was free on node B after {took:?}");
}

/// A free TCP port on 127.0.0.1 (free now; the caller binds it soon after).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The operator's guide's example, as written: `deploy/cluster/up.sh` starts three nodes on one
/// database behind nginx; a zone and a record written through nginx are answered by the DNS node,
/// a WebSocket opened through nginx hears a reading posted through it, and SIGTERM stops it all.
#[tokio::test]
async fn the_guides_three_nodes_behind_nginx_start_serve_and_stop() {
    const TEST: &str = "cluster::the_guides_three_nodes_behind_nginx_start_serve_and_stop";
    let Ok(server) = std::env::var("MERIDIAN_TEST_POSTGRES") else {
        eprintln!("the cluster tests run on the second backend (MERIDIAN_TEST_POSTGRES)");
        return;
    };
    if !crate::have_tool("nginx", TEST) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let database = format!("meridian_it_guide_{}", std::process::id());
    let _ = std::process::Command::new("psql")
        .args([&format!("{server}/postgres"), "-qc", &format!("DROP DATABASE IF EXISTS {database}")])
        .status();
    let (listen, dns) = (format!("127.0.0.1:{}", free_port()), format!("127.0.0.1:{}", free_port()));
    let ports = format!("{} {} {}", free_port(), free_port(), free_port());
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut script = std::process::Command::new("bash")
        .arg(root.join("deploy/cluster/up.sh"))
        .env("BIN", env!("CARGO_BIN_EXE_meridian"))
        .env("DATABASE_URL", format!("{server}/{database}"))
        .env("DIR", dir.path())
        .env("LISTEN", &listen)
        .env("HTTP_PORTS", &ports)
        .env("DNS_ADDR", &dns)
        .env("MERIDIAN_LOG__LEVEL", "warn")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(script.stdout.take().unwrap()));
    loop {
        let line = lines.next().expect("up.sh stopped before the cluster was ready").unwrap();
        if line.starts_with("cluster ready") {
            break;
        }
    }
    let base = format!("http://{listen}");
    let client = meridian_egress::tls::default_client();
    let r = client
        .post(format!("{base}/api/v1/accounts"))
        .json(&json!({"name": "Ops", "email": "ops@example.com"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let key = r.json::<Value>().await.unwrap()["api_key"].as_str().unwrap().to_owned();
    let r = client
        .post(format!("{base}/v1/dns/zones"))
        .bearer_auth(&key)
        .json(&json!({"name": "guide.example"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let zone = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    for i in 0..6 {
        // Through nginx, so through every node in turn.
        let r = client
            .post(format!("{base}/v1/dns/zones/{zone}/records"))
            .bearer_auth(&key)
            .json(&json!({"type": "A", "name": format!("n{i}"), "content": format!("192.0.2.{}", i + 1)}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
    }
    let dns: std::net::SocketAddr = dns.parse().unwrap();
    for i in 0..6 {
        let name = format!("n{i}.guide.example.");
        let want = format!("192.0.2.{}", i + 1);
        within("the record answered by the DNS node", || async {
            a_records(&ask(dns, &name, RecordType::A, false).await) == [want.clone()]
        })
        .await;
    }
    // A WebSocket through nginx hears readings posted through nginx (to whichever node).
    let r = client
        .post(format!("{base}/api/v1/realtime/twins"))
        .header("X-Api-Key", &key)
        .json(&json!({"bbox": [151.19, -33.88, 151.21, -33.86]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let twin_id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    let r = client
        .post(format!("{base}/api/v1/realtime/twin/{twin_id}/sensors"))
        .header("X-Api-Key", &key)
        .json(&json!({"id": "t1", "unit": "degC"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = format!("ws://{listen}/api/v1/realtime/twin/{twin_id}").into_client_request().unwrap();
    request.headers_mut().insert("x-api-key", key.parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "hello");
    for i in 0..3 {
        let r = client
            .post(format!("{base}/api/v1/realtime/twin/{twin_id}/readings"))
            .header("X-Api-Key", &key)
            .json(&json!({"readings": [{"sensorId": "t1", "value": i}]}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
        let v = loop {
            let v = next_json(&mut ws).await;
            if v["sensorId"] == "t1" {
                break v;
            }
        };
        assert_eq!(v["value"], i);
    }
    drop(ws);

    let status = std::process::Command::new("kill").args(["-TERM", &script.id().to_string()]).status().unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(60);
    while script.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "up.sh did not stop its processes after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
    for n in 1..=3 {
        let pid = std::fs::read_to_string(dir.path().join(format!("node{n}.pid"))).unwrap();
        let alive = std::process::Command::new("kill").args(["-0", pid.trim()]).status().unwrap().success();
        assert!(!alive, "node{n} still runs after up.sh stopped");
    }
}
