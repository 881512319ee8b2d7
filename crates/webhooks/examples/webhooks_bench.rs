//! Webhook delivery benchmark: starts the `meridian` binary, commits events through the API
//! (`POST /api/v1/webhooks/subscriptions/{id}/test`, which goes through the outbox like any
//! event), and measures, at a local receiver, events per second from the first commit to the last
//! receipt and the commit-to-receipt latency (the payload's `timestamp` is taken just before the
//! commit). With `--fail-rate`, that share of responses are 500s, which the retry schedule
//! absorbs. Run by bench/webhooks/run.sh.

#![allow(clippy::unwrap_used, clippy::print_stdout)]

#[path = "../tests/it/receiver.rs"]
mod receiver;

use rand::Rng;
use receiver::{Receiver, Reply};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

struct Args {
    meridian: String,
    events: usize,
    concurrency: usize,
    fail_rate: f64,
}

fn args() -> Args {
    let mut a = Args { meridian: "target/release/meridian".into(), events: 5000, concurrency: 16, fail_rate: 0.0 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--meridian" => a.meridian = value,
            "--events" => a.events = value.parse().unwrap(),
            "--concurrency" => a.concurrency = value.parse().unwrap(),
            "--fail-rate" => a.fail_rate = value.parse().unwrap(),
            other => panic!("unknown flag {other}"),
        }
    }
    a
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

fn percentile(sorted: &[i64], p: f64) -> i64 {
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() {
    let a = args();
    let rx = Receiver::http().await;
    // Receipt time of each event's first successful delivery.
    let received: Arc<Mutex<HashMap<String, i64>>> = Arc::default();
    let failures = Arc::new(AtomicUsize::new(0));
    let (seen, failed, rate) = (received.clone(), failures.clone(), a.fail_rate);
    rx.reply_with(move |_, r| {
        if rate > 0.0 && rand::rng().random_bool(rate) {
            failed.fetch_add(1, Ordering::Relaxed);
            return Reply::Status(500);
        }
        seen.lock().unwrap().entry(r.event_id()).or_insert_with(now_ms);
        Reply::Status(200)
    });

    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(&a.meridian)
        .arg("--data-dir")
        .arg(dir.path())
        .args(["serve", "--http", "127.0.0.1:0", "--dns", "127.0.0.1:0"])
        .env("MERIDIAN_LOG__LEVEL", "warn")
        .env("MERIDIAN_RATE_LIMITS__ENABLED", "false")
        .env("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true")
        .env("MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "true")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start meridian");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let base = loop {
        let line = lines.next().expect("meridian exited").unwrap();
        if let Some(addr) = line.strip_prefix("listening on http ") {
            break format!("http://{addr}");
        }
    };
    std::thread::spawn(move || for _ in lines {});

    let client = meridian_egress::tls::default_client();
    let signup: Value = client
        .post(format!("{base}/api/v1/accounts"))
        .json(&json!({"name": "bench", "email": "bench@example.com"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let key = signup["api_key"].as_str().unwrap().to_owned();
    let sub: Value = client
        .post(format!("{base}/api/v1/webhooks/subscriptions"))
        .bearer_auth(&key)
        .json(&json!({"url": rx.url, "events": ["*"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let test_url = format!("{base}/api/v1/webhooks/subscriptions/{}/test", sub["id"].as_str().unwrap());

    // Commit the events from `concurrency` clients.
    let committed: Arc<Mutex<HashMap<String, i64>>> = Arc::default();
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut clients = Vec::new();
    for _ in 0..a.concurrency {
        let (client, url, key, committed, next, total) =
            (client.clone(), test_url.clone(), key.clone(), committed.clone(), next.clone(), a.events);
        clients.push(tokio::spawn(async move {
            while next.fetch_add(1, Ordering::Relaxed) < total {
                let r = client.post(&url).bearer_auth(&key).send().await.unwrap();
                assert_eq!(r.status(), 202);
                let body: Value = r.json().await.unwrap();
                let at = meridian_core::Timestamp::parse(body["timestamp"].as_str().unwrap()).unwrap().millis();
                committed.lock().unwrap().insert(body["id"].as_str().unwrap().to_owned(), at);
            }
        }));
    }
    for c in clients {
        c.await.unwrap();
    }
    let commit_secs = started.elapsed().as_secs_f64();
    let deadline = Instant::now() + Duration::from_secs(600);
    while received.lock().unwrap().len() < a.events {
        assert!(Instant::now() < deadline, "not every event arrived within 10 minutes");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let _ = child.kill();
    let _ = child.wait();

    let committed = committed.lock().unwrap().clone();
    let received = received.lock().unwrap().clone();
    let mut latencies: Vec<i64> = committed.iter().map(|(id, at)| received[id] - at).collect();
    latencies.sort_unstable();
    let first_commit = committed.values().min().copied().unwrap();
    let last_receipt = received.values().max().copied().unwrap();
    let span = (last_receipt - first_commit) as f64 / 1000.0;
    let mut receipts: Vec<i64> = received.values().copied().collect();
    receipts.sort_unstable();
    let p99_span = (percentile(&receipts, 0.99) - first_commit) as f64 / 1000.0;
    println!(
        "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {} | {} | {} | {} |",
        a.events,
        a.concurrency,
        a.fail_rate * 100.0,
        a.events as f64 / commit_secs,
        a.events as f64 * 0.99 / p99_span,
        a.events as f64 / span,
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        latencies.last().unwrap(),
        failures.load(Ordering::Relaxed),
    );
}
