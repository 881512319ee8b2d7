use crate::receiver::{Receiver, Reply};
use crate::{record_fields, test_config, Platform};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use meridian_core::Timestamp;
use meridian_store::repo::{DeliveryStatus, SubscriptionStatus};
use sha2::Sha256;
use std::time::Duration;

fn mac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut m = Hmac::<Sha256>::new_from_slice(key).unwrap();
    m.update(data);
    m.finalize().into_bytes().to_vec()
}

/// What a receiver does: recompute both signatures over the raw body.
fn verify(secret: &str, r: &crate::receiver::Received) -> (bool, bool) {
    let hex_sig = format!("sha256={}", hex::encode(mac(secret.as_bytes(), &r.body)));
    let service = r.header("x-service-signature").split(',').any(|s| s.trim() == hex_sig);
    let key = STANDARD.decode(secret.trim_start_matches("whsec_")).unwrap();
    let signed =
        [r.header("webhook-id").as_bytes(), b".", r.header("webhook-timestamp").as_bytes(), b".", &r.body].concat();
    let v1 = format!("v1,{}", STANDARD.encode(mac(&key, &signed)));
    let standard = r.header("webhook-signature").split(' ').any(|s| s == v1);
    (service, standard)
}

#[tokio::test]
async fn https_receiver_gets_signed_events_in_both_header_styles() {
    let dir = tempfile::tempdir().unwrap();
    let receiver = Receiver::https(dir.path()).await;
    let config = meridian_core::config::WebhooksConfig {
        allow_http: false,
        extra_ca_file: receiver.ca_file.clone(),
        ..test_config()
    };
    let p = Platform::start(config).await;
    let account = p.account().await;
    let sub = p.subscribe(&account, &receiver.url, &["dns.*"]).await;
    let created = p.emit(&account, "dns.record.created", record_fields("www")).await;
    p.emit(&account, "cadastre.parcel.registered", serde_json::json!({"parcel": {"id": "parcel_1"}})).await;
    let zone = p.emit(&account, "dns.zone.created", serde_json::json!({"zone": "example.com"})).await;

    let got = receiver.wait_until(30, "two DNS events", |r| r.len() >= 2).await;
    let ids: std::collections::HashSet<String> = got.iter().map(|r| r.event_id()).collect();
    assert_eq!(ids, [created.id.0.clone(), zone.id.0.clone()].into_iter().collect());
    for r in &got {
        assert_eq!(verify(&sub.secret, r), (true, true), "signatures of {:?}", r.body);
        assert_eq!(r.header("content-type"), "application/json");
        let body = r.json();
        assert_eq!(r.header("x-service-event"), body["event"].as_str().unwrap());
        assert_eq!(r.header("x-service-event-id"), body["id"].as_str().unwrap());
        assert_eq!(r.header("webhook-id"), body["id"].as_str().unwrap());
        assert!(r.header("x-service-delivery").starts_with("dlv_"));
        assert!(Timestamp::parse(&r.header("x-service-timestamp")).is_some());
        let ts: i64 = r.header("webhook-timestamp").parse().unwrap();
        assert!((ts - Timestamp::now().millis() / 1000).abs() < 300);
        assert!(body["timestamp"].as_str().unwrap().ends_with('Z'));
    }
    let record = got.iter().find(|r| r.event_id() == created.id.0).unwrap().json();
    assert_eq!(record["record"]["type"], "A");
    assert_eq!(record["zone"], "example.com");
    // A wrong secret does not verify.
    assert_eq!(verify(&meridian_webhooks::signing::generate_secret(), &got[0]), (false, false));

    let list = p
        .wait_deliveries(&sub, "two succeeded deliveries", |d| {
            d.len() == 2 && d.iter().all(|d| d.status == DeliveryStatus::Succeeded)
        })
        .await;
    for d in list {
        assert_eq!(d.attempts.len(), 1);
        assert_eq!(d.attempts[0].status_code, Some(200));
        assert_eq!(d.attempts[0].response_body.as_deref(), Some("received"));
        assert!(d.next_attempt_at.is_none() && d.completed_at.is_some());
    }
}

#[tokio::test]
async fn an_untrusted_certificate_fails_the_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let receiver = Receiver::https(dir.path()).await;
    let config = meridian_core::config::WebhooksConfig { retry_schedule: vec![], ..test_config() };
    let p = Platform::start(config).await;
    let account = p.account().await;
    let sub = p.subscribe(&account, &receiver.url, &["*"]).await;
    p.emit(&account, "dns.zone.created", serde_json::json!({"zone": "example.com"})).await;
    let list = p
        .wait_deliveries(&sub, "an exhausted delivery", |d| d.iter().any(|d| d.status == DeliveryStatus::Exhausted))
        .await;
    let error = list[0].attempts[0].error.clone().unwrap_or_default();
    assert!(error.to_lowercase().contains("certificate"), "{error}");
    assert_eq!(receiver.count(), 0);
}

#[tokio::test]
async fn retries_after_500s_and_timeouts_until_a_success() {
    let receiver = Receiver::http().await;
    receiver.reply_with(|n, _| match n {
        0 => Reply::Status(500),
        1 => Reply::Hang,
        _ => Reply::Status(204),
    });
    let config = meridian_core::config::WebhooksConfig { timeout: Duration::from_millis(700), ..test_config() };
    let p = Platform::start(config).await;
    let account = p.account().await;
    let sub = p.subscribe(&account, &receiver.url, &["dns.record.*"]).await;
    let event = p.emit(&account, "dns.record.updated", record_fields("api")).await;
    let list = p
        .wait_deliveries(&sub, "a success after retries", |d| d.iter().any(|d| d.status == DeliveryStatus::Succeeded))
        .await;
    let attempts = &list[0].attempts;
    assert_eq!(attempts.len(), 3, "{attempts:#?}");
    assert_eq!(attempts[0].status_code, Some(500));
    assert_eq!(attempts[1].status_code, None);
    assert!(attempts[1].error.as_deref().unwrap_or("").contains("timed out"), "{attempts:#?}");
    assert_eq!(attempts[2].status_code, Some(204));
    assert_eq!(list[0].attempt_count, 3);
    // Every attempt carries the same event, so the receiver can deduplicate on its id.
    let got = receiver.received();
    assert_eq!(got.len(), 3);
    assert!(got.iter().all(|r| r.event_id() == event.id.0 && r.header("webhook-id") == event.id.0));
    assert!(got.iter().all(|r| verify(&sub.secret, r) == (true, true)));
}

#[tokio::test]
async fn retry_after_is_honoured_on_429_and_503() {
    let receiver = Receiver::http().await;
    receiver.reply_with(|n, _| match n {
        0 => Reply::RetryAfter(429, 2),
        1 => Reply::RetryAfter(503, 1),
        _ => Reply::Status(200),
    });
    let p = Platform::start(test_config()).await;
    let account = p.account().await;
    let sub = p.subscribe(&account, &receiver.url, &["*"]).await;
    p.emit(&account, "dem.job.succeeded", serde_json::json!({"job": {"id": "job_1"}})).await;
    let got = receiver.wait_until(30, "three attempts", |r| r.len() >= 3).await;
    // The schedule says 50 ms; the receiver asked for 2 s, then 1 s.
    assert!(got[1].at - got[0].at >= Duration::from_secs(2), "{:?}", got[1].at - got[0].at);
    assert!(got[2].at - got[1].at >= Duration::from_secs(1), "{:?}", got[2].at - got[1].at);
    p.wait_deliveries(&sub, "success", |d| d.iter().any(|d| d.status == DeliveryStatus::Succeeded)).await;
}

#[tokio::test]
async fn exhausted_deliveries_can_be_redelivered() {
    let receiver = Receiver::http().await;
    receiver.reply_with(|_, _| Reply::Status(500));
    let p = Platform::start(test_config()).await;
    let account = p.account().await;
    let sub = p.subscribe(&account, &receiver.url, &["dns.*"]).await;
    p.emit(&account, "dns.zone.deleted", serde_json::json!({"zone": "example.com"})).await;
    let list = p.wait_deliveries(&sub, "exhaustion", |d| d.iter().any(|d| d.status == DeliveryStatus::Exhausted)).await;
    // The first attempt and one per step of the three-step schedule.
    assert_eq!(list[0].attempts.len(), 4);
    assert!(list[0].next_attempt_at.is_none());
    assert_eq!(receiver.count(), 4);

    receiver.reply_with(|_, _| Reply::Status(200));
    let again = p.store.webhooks.redeliver(&account, &list[0].id).await.unwrap();
    assert_eq!(again.status, DeliveryStatus::Pending);
    p.deliveries.wake();
    let list = p.wait_deliveries(&sub, "redelivery", |d| d.iter().any(|d| d.status == DeliveryStatus::Succeeded)).await;
    assert_eq!(list[0].attempt_count, 5);
    assert_eq!(receiver.count(), 5);
    // A succeeded delivery can be sent again too.
    p.store.webhooks.redeliver(&account, &list[0].id).await.unwrap();
    p.deliveries.wake();
    receiver.wait_until(30, "the second redelivery", |r| r.len() == 6).await;
}

#[tokio::test]
async fn replay_since_a_time_resends_and_fills_gaps() {
    let receiver = Receiver::http().await;
    let p = Platform::start(test_config()).await;
    let account = p.account().await;
    let sub = p.subscribe(&account, &receiver.url, &["dns.*"]).await;
    let first = p.emit(&account, "dns.zone.created", serde_json::json!({"zone": "a.example"})).await;
    receiver.wait_until(30, "the first event", |r| r.len() == 1).await;
    // Paused: events meanwhile are not queued for it.
    let pause =
        meridian_store::repo::SubscriptionChange { status: Some(SubscriptionStatus::Paused), ..Default::default() };
    p.store.webhooks.update_subscription(&account, &sub.id, &pause, None).await.unwrap();
    let second = p.emit(&account, "dns.zone.created", serde_json::json!({"zone": "b.example"})).await;
    let other = p.emit(&account, "cadastre.parcel.registered", serde_json::json!({"parcel": {"id": "p"}})).await;
    let resume =
        meridian_store::repo::SubscriptionChange { status: Some(SubscriptionStatus::Active), ..Default::default() };
    // Wait for the dispatcher to hand the events on before resuming.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !p.store.outbox.pending(10).await.unwrap().is_empty() {
        assert!(std::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    p.store.webhooks.update_subscription(&account, &sub.id, &resume, None).await.unwrap();
    assert_eq!(p.deliveries(&sub).await.len(), 1, "nothing was queued while paused");

    let sub = p.store.webhooks.get_subscription(&account, &sub.id).await.unwrap().unwrap();
    let done = meridian_webhooks::replay(&p.store, &sub, second.timestamp, None, false).await.unwrap();
    assert_eq!(done.replayed, 1);
    p.deliveries.wake();
    let got = receiver.wait_until(30, "the replayed event", |r| r.len() == 2).await;
    assert_eq!(got[1].event_id(), second.id.0);
    assert!(got.iter().all(|r| r.event_id() != other.id.0));

    // From the start: both are sent again (the first had succeeded).
    let done = meridian_webhooks::replay(&p.store, &sub, first.timestamp, None, false).await.unwrap();
    assert_eq!(done.replayed, 2);
    p.deliveries.wake();
    let got = receiver.wait_until(30, "both again", |r| r.len() == 4).await;
    assert_eq!(receiver.event_ids(), [first.id.0, second.id.0].into_iter().collect());
    assert_eq!(got.len(), 4);
    // Only failed ones: there are none.
    let done = meridian_webhooks::replay(&p.store, &sub, first.timestamp, None, true).await.unwrap();
    assert_eq!(done.replayed, 0);
}

#[tokio::test]
async fn rotation_signs_with_both_secrets_during_the_grace_period() {
    let receiver = Receiver::http().await;
    let p = Platform::start(test_config()).await;
    let account = p.account().await;
    let sub = p.subscribe(&account, &receiver.url, &["*"]).await;
    let new_secret = meridian_webhooks::signing::generate_secret();
    let grace = Timestamp::now().plus(Duration::from_secs(3600));
    p.store.webhooks.rotate_secret(&account, &sub.id, &new_secret, grace).await.unwrap();
    p.emit(&account, "dns.zone.created", serde_json::json!({"zone": "example.com"})).await;
    let got = receiver.wait_until(30, "a delivery", |r| r.len() == 1).await;
    assert_eq!(got[0].header("x-service-signature").split(',').count(), 2);
    assert_eq!(got[0].header("webhook-signature").split(' ').count(), 2);
    assert_eq!(verify(&sub.secret, &got[0]), (true, true), "the old secret still verifies");
    assert_eq!(verify(&new_secret, &got[0]), (true, true), "the new secret verifies");

    // Rotating again with a grace period already over: only the newest secret signs.
    let newest = meridian_webhooks::signing::generate_secret();
    p.store.webhooks.rotate_secret(&account, &sub.id, &newest, Timestamp::now()).await.unwrap();
    p.emit(&account, "dns.zone.created", serde_json::json!({"zone": "example.org"})).await;
    let got = receiver.wait_until(30, "a second delivery", |r| r.len() == 2).await;
    assert_eq!(got[1].header("x-service-signature").split(',').count(), 1);
    assert_eq!(verify(&newest, &got[1]), (true, true));
    assert_eq!(verify(&new_secret, &got[1]), (false, false));
}

#[tokio::test]
async fn the_guard_refuses_private_endpoints_at_connect_time() {
    // Subscriptions stored directly, as if made when the addresses were public (or under a laxer
    // configuration): the attempt itself must refuse them, before any byte is sent.
    let receiver = Receiver::http().await;
    let config = meridian_core::config::WebhooksConfig {
        allow_private_networks: false,
        retry_schedule: vec![],
        ..test_config()
    };
    let p = Platform::start(config).await;
    let account = p.account().await;
    let port = receiver.addr.port();
    let by_ip = p.subscribe(&account, &format!("http://127.0.0.1:{port}/hook"), &["*"]).await;
    let by_name = p.subscribe(&account, &format!("http://localhost:{port}/hook"), &["*"]).await;
    let mapped = p.subscribe(&account, &format!("http://[::ffff:127.0.0.1]:{port}/hook"), &["*"]).await;
    p.emit(&account, "dns.zone.created", serde_json::json!({"zone": "example.com"})).await;
    for sub in [&by_ip, &by_name, &mapped] {
        let list = p
            .wait_deliveries(sub, "a refused attempt", |d| d.iter().any(|d| d.status == DeliveryStatus::Exhausted))
            .await;
        let error = list[0].attempts[0].error.clone().unwrap_or_default();
        assert!(error.contains("loopback"), "{}: {error}", sub.url);
        assert_eq!(list[0].attempts[0].status_code, None);
    }
    assert_eq!(receiver.count(), 0, "no request reached the receiver");
}

#[tokio::test]
async fn one_slow_endpoint_does_not_hold_back_the_others() {
    let slow = Receiver::http().await;
    slow.reply_with(|_, _| Reply::Hang);
    let fast = Receiver::http().await;
    let config = meridian_core::config::WebhooksConfig {
        timeout: Duration::from_secs(20),
        max_concurrency: 6,
        per_subscription_concurrency: 2,
        ..test_config()
    };
    let p = Platform::start(config).await;
    let account = p.account().await;
    p.subscribe(&account, &slow.url, &["*"]).await;
    p.subscribe(&account, &fast.url, &["*"]).await;
    for i in 0..12 {
        p.emit(&account, "dns.zone.created", serde_json::json!({"zone": format!("z{i}.example")})).await;
    }
    fast.wait_until(30, "every event at the fast endpoint", |r| r.len() == 12).await;
    assert_eq!(slow.count(), 2, "the slow endpoint holds exactly its cap");
    assert_eq!(slow.max_in_flight(), 2);
    assert!(fast.max_in_flight() <= 2);
}

#[tokio::test]
async fn a_subscription_failing_for_too_long_is_paused() {
    let receiver = Receiver::http().await;
    receiver.reply_with(|_, _| Reply::Status(502));
    let config = meridian_core::config::WebhooksConfig {
        retry_schedule: vec![Duration::from_millis(100); 50],
        disable_after: Duration::from_millis(400),
        ..test_config()
    };
    let p = Platform::start(config).await;
    let account = p.account().await;
    let sub = p.subscribe(&account, &receiver.url, &["*"]).await;
    p.emit(&account, "dns.zone.created", serde_json::json!({"zone": "example.com"})).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let paused = loop {
        let s = p.store.webhooks.get_subscription(&account, &sub.id).await.unwrap().unwrap();
        if s.status == SubscriptionStatus::Paused {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "never paused");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(paused.paused_reason.as_deref(), Some("failing"));
    assert!(paused.failing_since.is_some());
    // While paused nothing is attempted; the delivery waits, still retryable.
    let before = receiver.count();
    let d = p.deliveries(&sub).await;
    assert_eq!(d[0].status, DeliveryStatus::Failed);
    // Resuming clears the failure run and sends the held delivery.
    receiver.reply_with(|_, _| Reply::Status(200));
    let resume =
        meridian_store::repo::SubscriptionChange { status: Some(SubscriptionStatus::Active), ..Default::default() };
    let s = p.store.webhooks.update_subscription(&account, &sub.id, &resume, None).await.unwrap();
    assert!(s.failing_since.is_none() && s.paused_reason.is_none());
    p.wait_deliveries(&sub, "success after resuming", |d| d[0].status == DeliveryStatus::Succeeded).await;
    assert!(receiver.count() > before);
}

#[tokio::test]
async fn the_standard_webhooks_library_verifies_a_delivery() {
    if !crate::tools::have_python_module(
        "python3",
        "standardwebhooks",
        "the_standard_webhooks_library_verifies_a_delivery",
    ) {
        return;
    }
    let receiver = Receiver::http().await;
    let p = Platform::start(test_config()).await;
    let account = p.account().await;
    let sub = p.subscribe(&account, &receiver.url, &["*"]).await;
    p.emit(&account, "dns.record.deleted", record_fields("old")).await;
    let got = receiver.wait_until(30, "a delivery", |r| r.len() == 1).await;
    let r = &got[0];
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("body"), &r.body).unwrap();
    let script = r#"
import sys, standardwebhooks
secret, msg_id, ts, sig, path = sys.argv[1:6]
body = open(path, "rb").read()
headers = {"webhook-id": msg_id, "webhook-timestamp": ts, "webhook-signature": sig}
payload = standardwebhooks.Webhook(secret).verify(body, headers)
print(payload["id"])
"#;
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            script,
            &sub.secret,
            &r.header("webhook-id"),
            &r.header("webhook-timestamp"),
            &r.header("webhook-signature"),
        ])
        .arg(dir.path().join("body"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), r.event_id());
}
