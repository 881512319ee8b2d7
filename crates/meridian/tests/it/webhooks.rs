//! Webhooks through the real binary: the subscription API, deliveries to real receivers (HTTPS
//! with a certificate trusted through `webhooks.extra_ca_file`, and plain HTTP), tenant
//! isolation, the SSRF guard, and at-least-once delivery across a SIGKILL.

use crate::{problem, Server};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use std::collections::HashSet;
use std::time::{Duration, Instant};

#[path = "../../../webhooks/tests/it/receiver.rs"]
mod receiver;

use receiver::{Received, Receiver, Reply};

fn mac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut m = Hmac::<Sha256>::new_from_slice(key).unwrap();
    m.update(data);
    m.finalize().into_bytes().to_vec()
}

/// Verifies both signature headers over the raw body, as a receiver does.
fn verified(secret: &str, r: &Received) -> bool {
    let hex_sig = format!("sha256={}", hex::encode(mac(secret.as_bytes(), &r.body)));
    let service = r.header("x-service-signature").split(',').any(|s| s.trim() == hex_sig);
    let key = STANDARD.decode(secret.trim_start_matches("whsec_")).unwrap();
    let signed =
        [r.header("webhook-id").as_bytes(), b".", r.header("webhook-timestamp").as_bytes(), b".", &r.body].concat();
    let v1 = format!("v1,{}", STANDARD.encode(mac(&key, &signed)));
    service && r.header("webhook-signature").split(' ').any(|s| s == v1)
}

impl Server {
    async fn send(&self, method: &str, path: &str, key: &str, body: Option<Value>) -> reqwest::Response {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self.client.request(method, self.url(path)).bearer_auth(key);
        if let Some(body) = body {
            req = req.json(&body);
        }
        req.send().await.unwrap()
    }

    async fn create_sub(&self, key: &str, body: Value) -> Value {
        let r = self.send("POST", "/api/v1/webhooks/subscriptions", key, Some(body)).await;
        assert_eq!(r.status(), 201);
        r.json().await.unwrap()
    }

    async fn test_event(&self, key: &str, sub: &str) -> String {
        let r = self.send("POST", &format!("/api/v1/webhooks/subscriptions/{sub}/test"), key, None).await;
        assert_eq!(r.status(), 202);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["event"], "webhook.test");
        body["id"].as_str().unwrap().to_owned()
    }

    /// Polls the subscription's delivery of `event` until it has `status`.
    async fn wait_delivery(&self, key: &str, sub: &str, event: &str, status: &str) -> Value {
        let path = format!("/api/v1/webhooks/subscriptions/{sub}/deliveries?event_id={event}");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let list: Value = self.get(&path, key).await.json().await.unwrap();
            if let Some(d) = list["deliveries"].as_array().and_then(|d| d.first()) {
                if d["status"] == status {
                    return d.clone();
                }
            }
            assert!(Instant::now() < deadline, "delivery of {event} never became {status}: {list}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[tokio::test]
async fn webhook_subscriptions_end_to_end_over_https() {
    let dir = tempfile::tempdir().unwrap();
    let rx = Receiver::https(dir.path()).await;
    let ca = rx.ca_file.clone().unwrap();
    let s = Server::start_with(&[
        ("MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "true"),
        ("MERIDIAN_WEBHOOKS__EXTRA_CA_FILE", ca.to_str().unwrap()),
        ("MERIDIAN_WEBHOOKS__RETRY_SCHEDULE", r#"["100ms", "100ms"]"#),
    ]);
    let (_, api_key) = s.signup("hooks@example.com").await;
    let token: Value =
        s.client.post(s.url("/api/v1/auth/token")).bearer_auth(&api_key).send().await.unwrap().json().await.unwrap();
    let key = token["access_token"].as_str().unwrap().to_owned();

    let r = s
        .send(
            "POST",
            "/api/v1/webhooks/subscriptions",
            &key,
            Some(json!({"url": rx.url, "events": ["dns.*"], "description": "ops"})),
        )
        .await;
    assert_eq!(r.status(), 201);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    assert!(r.headers().contains_key("etag"));
    let created: Value = r.json().await.unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    let secret = created["secret"].as_str().unwrap().to_owned();
    assert!(id.starts_with("whsub_") && secret.starts_with("whsec_"), "{created}");
    assert_eq!(STANDARD.decode(&secret["whsec_".len()..]).unwrap().len(), 32);
    assert_eq!((created["status"].as_str(), created["events"].clone()), (Some("active"), json!(["dns.*"])));
    assert!(created["created_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(location, format!("/api/v1/webhooks/subscriptions/{id}"));

    // Shown again without its secret.
    let r = s.get(&location, &key).await;
    let etag = r.headers()["etag"].to_str().unwrap().to_owned();
    let shown: Value = r.json().await.unwrap();
    assert!(shown.get("secret").is_none(), "{shown}");
    let list: Value = s.get("/api/v1/webhooks/subscriptions", &key).await.json().await.unwrap();
    assert_eq!(list["total"], 1);

    // A test event travels the outbox and arrives signed over HTTPS.
    let event = s.test_event(&key, &id).await;
    let got = rx.wait_until(60, "the test event", |r| r.len() == 1).await;
    assert!(verified(&secret, &got[0]));
    assert_eq!(got[0].event_id(), event);
    assert_eq!(got[0].json()["subscription_id"], id.as_str());
    assert_eq!(got[0].header("x-service-event"), "webhook.test");
    let delivery = s.wait_delivery(&key, &id, &event, "succeeded").await;
    assert_eq!(delivery["attempts"][0]["status_code"], 200);
    assert_eq!(delivery["event"]["id"], event.as_str());
    let dlv = delivery["id"].as_str().unwrap().to_owned();
    assert_eq!(got[0].header("x-service-delivery"), dlv);
    let one: Value = s.get(&format!("/api/v1/webhooks/deliveries/{dlv}"), &key).await.json().await.unwrap();
    assert_eq!(one["status"], "succeeded");

    // Redelivery sends the same event again.
    let r = s.send("POST", &format!("/api/v1/webhooks/deliveries/{dlv}/redeliver"), &key, None).await;
    assert_eq!(r.status(), 202);
    let got = rx.wait_until(60, "the redelivery", |r| r.len() == 2).await;
    assert_eq!(got[1].event_id(), event);

    // Optimistic locking.
    let stale = s
        .client
        .patch(s.url(&location))
        .bearer_auth(&key)
        .header("if-match", "\"999\"")
        .json(&json!({"description": "x"}))
        .send()
        .await
        .unwrap();
    problem(stale, 412, "precondition_failed").await;
    let r = s
        .client
        .patch(s.url(&location))
        .bearer_auth(&key)
        .header("if-match", &etag)
        .json(&json!({"events": ["*"], "description": null}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_ne!(r.headers()["etag"].to_str().unwrap(), etag);
    let patched: Value = r.json().await.unwrap();
    assert_eq!((patched["events"].clone(), patched["description"].clone()), (json!(["*"]), Value::Null));

    // Rotation: both secrets sign during the grace period.
    let r = s.send("POST", &format!("{location}/rotate-secret"), &key, None).await;
    assert_eq!(r.status(), 200);
    let rotated: Value = r.json().await.unwrap();
    let new_secret = rotated["secret"].as_str().unwrap().to_owned();
    assert_ne!(new_secret, secret);
    assert!(rotated["previous_secret_expires_at"].is_string());
    let second = s.test_event(&key, &id).await;
    let got = rx.wait_until(60, "a delivery after rotation", |r| r.len() == 3).await;
    assert_eq!(got[2].event_id(), second);
    assert_eq!(got[2].header("x-service-signature").split(',').count(), 2);
    assert!(verified(&secret, &got[2]) && verified(&new_secret, &got[2]));

    // Replay since before the first event sends both again.
    let since = meridian_core::Timestamp::from_millis(meridian_core::Timestamp::now().millis() - 600_000).to_rfc3339();
    s.wait_delivery(&key, &id, &event, "succeeded").await;
    s.wait_delivery(&key, &id, &second, "succeeded").await;
    let r = s.send("POST", &format!("{location}/replay"), &key, Some(json!({"since": since}))).await;
    assert_eq!(r.status(), 202);
    let replay: Value = r.json().await.unwrap();
    assert_eq!(replay["replayed"], 2, "{replay}");
    let got = rx.wait_until(60, "the replay", |r| r.len() == 5).await;
    let replayed: HashSet<String> = got[3..].iter().map(Received::event_id).collect();
    assert_eq!(replayed, [event.clone(), second.clone()].into_iter().collect());

    // The list of event types.
    let types: Value = s.get("/api/v1/webhooks/event-types", &key).await.json().await.unwrap();
    let dns = types["event_types"].as_array().unwrap().iter().find(|t| t["name"] == "dns.record.updated").unwrap();
    assert_eq!(dns["example"]["event"], "dns.record.updated");
    assert!(dns["example"]["record"]["content"].is_string());

    // Deleted: gone, with its deliveries.
    let r = s.send("DELETE", &location, &key, None).await;
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"deleted": true, "id": id}));
    problem(s.get(&location, &key).await, 404, "not_found").await;
    problem(s.get(&format!("/api/v1/webhooks/deliveries/{dlv}"), &key).await, 404, "not_found").await;
}

#[tokio::test]
async fn subscription_urls_and_events_are_checked() {
    let s = Server::start();
    let (_, key) = s.signup("checks@example.com").await;
    let path = "/api/v1/webhooks/subscriptions";
    for (url, code) in [
        ("http://hooks.example.com/x", "https_required"),
        ("https://127.0.0.1/hook", "forbidden_address"),
        ("https://10.1.2.3/hook", "forbidden_address"),
        ("https://169.254.169.254/latest/meta-data/", "forbidden_address"),
        ("https://[::1]:8443/hook", "forbidden_address"),
        ("https://localhost:9/hook", "forbidden_address"),
        ("not a url", "invalid_url"),
    ] {
        let r = s.send("POST", path, &key, Some(json!({"url": url, "events": ["*"]}))).await;
        let p = problem(r, 422, "validation_failed").await;
        assert_eq!(p["errors"][0]["pointer"], "/url", "{url}: {p}");
        assert_eq!(p["errors"][0]["code"], code, "{url}: {p}");
    }
    let r = s.send("POST", path, &key, Some(json!({"url": "https://10.0.0.1/", "events": ["dns.nope", "*"]}))).await;
    let p = problem(r, 422, "validation_failed").await;
    let pointers: Vec<&str> = p["errors"].as_array().unwrap().iter().map(|e| e["pointer"].as_str().unwrap()).collect();
    assert_eq!(pointers, ["/url", "/events/0"]);
    let r = s.send("POST", path, &key, Some(json!({"url": "https://h.example/", "events": []}))).await;
    assert_eq!(problem(r, 422, "validation_failed").await["errors"][0]["pointer"], "/events");
    let r = s.send("POST", path, &key, Some(json!({"events": ["*"]}))).await;
    assert_eq!(problem(r, 422, "validation_failed").await["errors"][0]["pointer"], "/url");
    let r =
        s.send("POST", path, &key, Some(json!({"url": "https://h.example/", "events": ["*"], "secret": "x"}))).await;
    problem(r, 422, "validation_failed").await;
    let r = s
        .client
        .post(s.url(path))
        .bearer_auth(&key)
        .header("content-type", "application/json")
        .body("{")
        .send()
        .await
        .unwrap();
    problem(r, 400, "malformed_request").await;
    let r = s.client.post(s.url(path)).bearer_auth(&key).body("url=x").send().await.unwrap();
    problem(r, 415, "unsupported_media_type").await;
    // Nothing was stored.
    let list: Value = s.get(path, &key).await.json().await.unwrap();
    assert_eq!(list["total"], 0);
    problem(s.get(&format!("{path}/whsub_01jbz3x7c8v9b0n1m2q3w4e5r6"), &key).await, 404, "not_found").await;
    let r = s.client.get(s.url(path)).send().await.unwrap();
    problem(r, 401, "unauthenticated").await;
}

#[tokio::test]
async fn tenants_never_see_each_others_webhooks() {
    let rx_a = Receiver::http().await;
    let rx_b = Receiver::http().await;
    let s = Server::start_with(&[
        ("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true"),
        ("MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "true"),
    ]);
    let (_, a) = s.signup("a@example.com").await;
    let (_, b) = s.signup("b@example.com").await;
    let sub_a = s.create_sub(&a, json!({"url": rx_a.url, "events": ["*"]})).await["id"].as_str().unwrap().to_owned();
    let sub_b = s.create_sub(&b, json!({"url": rx_b.url, "events": ["*"]})).await["id"].as_str().unwrap().to_owned();
    let e1 = s.test_event(&a, &sub_a).await;
    let e2 = s.test_event(&a, &sub_a).await;
    rx_a.wait_until(60, "A's events", |r| r.len() == 2).await;
    let delivery = s.wait_delivery(&a, &sub_a, &e1, "succeeded").await;
    let dlv = delivery["id"].as_str().unwrap();

    let base = format!("/api/v1/webhooks/subscriptions/{sub_a}");
    for (method, path) in [
        ("GET", base.clone()),
        ("PATCH", base.clone()),
        ("DELETE", base.clone()),
        ("POST", format!("{base}/test")),
        ("POST", format!("{base}/rotate-secret")),
        ("POST", format!("{base}/replay")),
        ("GET", format!("{base}/deliveries")),
        ("GET", format!("/api/v1/webhooks/deliveries/{dlv}")),
        ("POST", format!("/api/v1/webhooks/deliveries/{dlv}/redeliver")),
        ("GET", format!("/v1/dns/webhooks/{sub_a}")),
        ("DELETE", format!("/v1/dns/webhooks/{sub_a}")),
    ] {
        let body = match (method, path.ends_with("replay")) {
            ("PATCH", _) => Some(json!({"description": "mine now"})),
            (_, true) => Some(json!({"since": "2020-01-01T00:00:00Z"})),
            _ => None,
        };
        let r = s.send(method, &path, &b, body).await;
        problem(r, 404, "not_found").await;
    }
    let list: Value = s.get("/api/v1/webhooks/subscriptions", &b).await.json().await.unwrap();
    assert_eq!(list["total"], 1);
    assert_eq!(list["subscriptions"][0]["id"], sub_b.as_str());

    // B's own event arrives at B's receiver, and it is the only thing that ever did.
    let e3 = s.test_event(&b, &sub_b).await;
    rx_b.wait_until(60, "B's event", |r| !r.is_empty()).await;
    assert_eq!(rx_b.event_ids(), [e3].into_iter().collect());
    assert_eq!(rx_a.event_ids(), [e1, e2].into_iter().collect());
    // A's subscription is untouched.
    let mine: Value = s.get(&base, &a).await.json().await.unwrap();
    assert_eq!(mine["description"], Value::Null);
}

#[tokio::test]
async fn dns_webhooks_are_the_same_subscriptions_limited_to_dns_events() {
    let rx = Receiver::http().await;
    let s = Server::start_with(&[
        ("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true"),
        ("MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "true"),
    ]);
    let (_, key) = s.signup("dnshooks@example.com").await;
    let r = s.send("POST", "/v1/dns/webhooks", &key, Some(json!({"url": rx.url}))).await;
    assert_eq!(r.status(), 201);
    assert!(r.headers()["location"].to_str().unwrap().starts_with("/v1/dns/webhooks/whsub_"));
    let dns: Value = r.json().await.unwrap();
    assert_eq!(dns["events"], json!(["dns.*"]));
    assert!(dns["secret"].as_str().unwrap().starts_with("whsec_"));
    let dns_id = dns["id"].as_str().unwrap();
    let r = s
        .send("POST", "/v1/dns/webhooks", &key, Some(json!({"url": rx.url, "events": ["dns.record.*", "cadastre.*"]})))
        .await;
    let p = problem(r, 422, "validation_failed").await;
    assert_eq!(
        (p["errors"][0]["pointer"].as_str(), p["errors"][0]["code"].as_str()),
        (Some("/events/1"), Some("not_a_dns_event"))
    );
    let general = s.create_sub(&key, json!({"url": rx.url, "events": ["*"]})).await;
    let general_id = general["id"].as_str().unwrap();

    let listed: Value = s.get("/v1/dns/webhooks", &key).await.json().await.unwrap();
    assert_eq!(listed["total"], 1);
    assert_eq!(listed["subscriptions"][0]["id"], dns_id);
    let all: Value = s.get("/api/v1/webhooks/subscriptions", &key).await.json().await.unwrap();
    assert_eq!(all["total"], 2);
    let same: Value = s.get(&format!("/api/v1/webhooks/subscriptions/{dns_id}"), &key).await.json().await.unwrap();
    assert_eq!(same["url"], dns["url"]);
    problem(s.send("DELETE", &format!("/v1/dns/webhooks/{general_id}"), &key, None).await, 404, "not_found").await;
    let r = s.send("DELETE", &format!("/v1/dns/webhooks/{dns_id}"), &key, None).await;
    assert_eq!(r.status(), 200);
    problem(s.get(&format!("/api/v1/webhooks/subscriptions/{dns_id}"), &key).await, 404, "not_found").await;
}

#[tokio::test]
async fn a_server_killed_mid_delivery_delivers_everything_after_restart() {
    let rx = Receiver::http().await;
    // The first server's attempts never get an answer: it dies with them in flight.
    rx.reply_with(|_, _| Reply::Hang);
    let env = [
        ("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true"),
        ("MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "true"),
        ("MERIDIAN_WEBHOOKS__TIMEOUT", "2s"),
        ("MERIDIAN_WEBHOOKS__RETRY_SCHEDULE", r#"["200ms", "200ms", "200ms", "200ms", "200ms"]"#),
        ("MERIDIAN_WEBHOOKS__PER_SUBSCRIPTION_CONCURRENCY", "4"),
    ];
    let s = Server::start_with(&env);
    let (_, key) = s.signup("kill@example.com").await;
    let sub = s.create_sub(&key, json!({"url": rx.url, "events": ["*"]})).await;
    let (id, secret) = (sub["id"].as_str().unwrap().to_owned(), sub["secret"].as_str().unwrap().to_owned());
    let mut events = HashSet::new();
    for _ in 0..20 {
        events.insert(s.test_event(&key, &id).await);
    }
    rx.wait_until(60, "deliveries in flight", |r| r.len() >= 4).await;
    let dir = s.stop(); // SIGKILL

    rx.reply_with(|_, _| Reply::Status(200));
    let s = Server::start_in(dir, &env);
    let got = rx
        .wait_until(90, "every event after the restart", |r| {
            let ids: HashSet<String> = r.iter().map(Received::event_id).collect();
            events.is_subset(&ids)
        })
        .await;
    assert!(got.iter().all(|r| verified(&secret, r)));
    for event in &events {
        s.wait_delivery(&key, &id, event, "succeeded").await;
    }
    let list: Value =
        s.get(&format!("/api/v1/webhooks/subscriptions/{id}/deliveries?limit=100"), &key).await.json().await.unwrap();
    assert_eq!(list["total"], 20, "one delivery per event, none doubled");
}

#[tokio::test]
async fn private_endpoints_are_refused_at_connect_time_too() {
    let rx = Receiver::http().await;
    let lax = [("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true"), ("MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "true")];
    let s = Server::start_with(&lax);
    let (_, key) = s.signup("rebind@example.com").await;
    let by_ip = s.create_sub(&key, json!({"url": rx.url, "events": ["*"]})).await["id"].as_str().unwrap().to_owned();
    let by_name = s
        .create_sub(&key, json!({"url": format!("http://localhost:{}/hook", rx.addr.port()), "events": ["*"]}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let dir = s.stop();
    // The same subscriptions under a strict policy: every attempt is refused before connecting.
    let s = Server::start_in(
        dir,
        &[("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true"), ("MERIDIAN_WEBHOOKS__RETRY_SCHEDULE", "[]")],
    );
    for sub in [&by_ip, &by_name] {
        let event = s.test_event(&key, sub).await;
        let d = s.wait_delivery(&key, sub, &event, "exhausted").await;
        let error = d["attempts"][0]["error"].as_str().unwrap();
        assert!(error.contains("loopback"), "{error}");
        assert!(d["attempts"][0]["status_code"].is_null());
    }
    assert_eq!(rx.count(), 0);
    let r = s.send("POST", "/api/v1/webhooks/subscriptions", &key, Some(json!({"url": rx.url, "events": ["*"]}))).await;
    assert_eq!(problem(r, 422, "validation_failed").await["errors"][0]["code"], "forbidden_address");
}

/// Events written by a path no route wakes anything for, a WFS transaction, reach a webhook
/// without waiting for the dispatcher's poll: the store fires its signal when the transaction
/// commits. The poll here is a minute; the deliveries must come in seconds.
#[tokio::test]
async fn wfs_transactions_wake_the_dispatcher_on_commit() {
    let rx = Receiver::http().await;
    let s = Server::start_with(&[
        ("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true"),
        ("MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS", "true"),
        ("MERIDIAN_EVENTS__POLL_INTERVAL", "60s"),
    ]);
    let (_, key) = s.signup("wfs-hooks@example.com").await;
    s.create_sub(&key, json!({"url": rx.url, "events": ["cadastre.*"]})).await;
    crate::seed_parcels(&s, &key, 1).await;
    rx.wait_until(10, "the registration", |r| !r.is_empty()).await;
    let list: Value = s.get("/api/v1/cadastre/parcels", &key).await.json().await.unwrap();
    let id = list["features"][0]["id"].as_str().unwrap().to_owned();
    let body = format!(
        "<wfs:Transaction service=\"WFS\" version=\"2.0.0\" xmlns:wfs=\"http://www.opengis.net/wfs/2.0\" \
         xmlns:fes=\"http://www.opengis.net/fes/2.0\"><wfs:Delete typeName=\"features:parcels\"><fes:Filter>\
         <fes:ResourceId rid=\"{id}\"/></fes:Filter></wfs:Delete></wfs:Transaction>"
    );
    let sent = Instant::now();
    let r = s
        .client
        .post(s.url("/api/v1/ogc/wfs"))
        .header("X-Api-Key", &key)
        .header("content-type", "application/xml")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let got = rx
        .wait_until(10, "the retirement", |r| {
            r.iter().any(|x| x.header("x-service-event") == "cadastre.parcel.retired")
        })
        .await;
    println!("WFS transaction to webhook receipt: {:?}", sent.elapsed());
    let retired = got.iter().find(|x| x.header("x-service-event") == "cadastre.parcel.retired").unwrap();
    assert!(retired.json().to_string().contains(&id), "the event names the parcel: {}", retired.json());
}
