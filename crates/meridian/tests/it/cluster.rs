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
