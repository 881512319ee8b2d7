//! The shared HTTP rules: landing links, credentials, per-account rate limits, unknown fields,
//! request deadlines and their cancellation token.

use super::Harness;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::routing::get;
use axum::Router;
use http_body_util::BodyExt;
use meridian_api::extract::RequestCancel;
use meridian_core::config::{Config, Rate};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower::ServiceExt;

async fn send(h: &Harness, req: Request<Body>) -> (StatusCode, Value) {
    let response = meridian_api::router(h.state.clone()).oneshot(req).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

fn post_json(path: &str, key: Option<&str>, body: Value) -> Request<Body> {
    let mut req = Request::builder().method("POST").uri(path).header("content-type", "application/json");
    if let Some(key) = key {
        req = req.header("authorization", format!("Bearer {key}"));
    }
    req.body(Body::from(body.to_string())).unwrap()
}

#[tokio::test]
async fn every_landing_link_leads_somewhere() {
    let h = Harness::new().await;
    let (_, key) = h.account("links@example.com").await;
    for page in ["/", "/api/v1"] {
        let (status, body) = h.call("GET", page, &key).await;
        assert_eq!(status, 200);
        let links = body["links"].as_array().unwrap();
        assert!(links.iter().any(|l| l["rel"] == "dns"));
        for link in links {
            let href = link["href"].as_str().unwrap();
            let (status, body) = h.call("GET", href, &key).await;
            assert_ne!(status, StatusCode::NOT_FOUND, "{page} links to {href}, which is 404: {body}");
            assert!(!status.is_server_error(), "{href}: {status}");
        }
    }
}

#[tokio::test]
async fn x_api_key_takes_only_api_keys_and_bearer_takes_both() {
    let h = Harness::new().await;
    let (_, key) = h.account("xkey@example.com").await;
    let req = Request::builder().method("POST").uri("/api/v1/auth/token").header("x-api-key", &key);
    let (status, body) = send(&h, req.body(Body::empty()).unwrap()).await;
    assert_eq!(status, 200, "{body}");
    let token = body["access_token"].as_str().unwrap().to_owned();

    let with_header = |name: &str, value: String| {
        Request::builder().uri("/api/v1/account").header(name, value).body(Body::empty()).unwrap()
    };
    let (status, body) = send(&h, with_header("x-api-key", token.clone())).await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["code"], "unauthenticated");
    assert!(body["detail"].as_str().unwrap().contains("X-Api-Key takes only API keys"), "{body}");
    assert_eq!(send(&h, with_header("x-api-key", key.clone())).await.0, 200);
    assert_eq!(send(&h, with_header("authorization", format!("Bearer {token}"))).await.0, 200);
    assert_eq!(send(&h, with_header("authorization", format!("Bearer {key}"))).await.0, 200);
    // Trading a token for a token through X-Api-Key is refused the same way.
    let req = Request::builder().method("POST").uri("/api/v1/auth/token").header("x-api-key", token);
    let (status, body) = send(&h, req.body(Body::empty()).unwrap()).await;
    assert_eq!(status, 401);
    assert!(body["detail"].as_str().unwrap().contains("X-Api-Key takes only API keys"), "{body}");
}

#[tokio::test]
async fn keys_of_one_account_share_its_rate_limit() {
    let mut config = Config::default();
    config.rate_limits.dns = Rate { per_minute: 4, burst: None };
    config.rate_limits.account = Rate { per_minute: 100, burst: None };
    let h = Harness::with_config(config).await;
    let (_, first) = h.account("shared@example.com").await;
    let (_, other_account) = h.account("other@example.com").await;
    let (status, created) = send(&h, post_json("/api/v1/account/api-keys", Some(&first), json!({"name": "k2"}))).await;
    assert_eq!(status, 201, "{created}");
    let second = created["api_key"].as_str().unwrap().to_owned();
    // Four requests spread over two keys use up the account's four.
    for key in [&first, &second, &first, &second] {
        assert_eq!(h.call("GET", "/v1/dns/zones", key).await.0, 200);
    }
    let (status, body) = h.call("GET", "/v1/dns/zones", &second).await;
    assert_eq!(status, 429, "a new key does not bring a new allowance: {body}");
    assert_eq!(h.call("GET", "/v1/dns/zones", &first).await.0, 429);
    assert_eq!(h.call("GET", "/v1/dns/zones", &other_account).await.0, 200, "other accounts are apart");
}

#[tokio::test]
async fn unknown_fields_are_422_with_the_field_pointer_everywhere() {
    let h = Harness::new().await;
    let (_, key) = h.account("unknown@example.com").await;
    let cases = [
        ("/api/v1/accounts", None, json!({"name": "A", "email": "a2@example.com", "extra": 1})),
        ("/api/v1/account/api-keys", Some(key.as_str()), json!({"name": "k", "extra": 1})),
        ("/v1/dns/zones", Some(key.as_str()), json!({"name": "unknown-fields.example", "extra": 1})),
    ];
    for (path, key, body) in cases {
        let (status, problem) = send(&h, post_json(path, key, body)).await;
        assert_eq!(status, 422, "{path}: {problem}");
        assert_eq!(problem["code"], "validation_failed");
        assert_eq!(problem["errors"][0]["pointer"], "/extra", "{path}: {problem}");
        assert_eq!(problem["errors"][0]["code"], "unknown_field", "{path}: {problem}");
    }
}

/// A route whose blocking work runs until its request is cancelled, recording that it stopped.
fn slow_router(h: &Harness, stopped: Arc<AtomicBool>) -> Router {
    let handler = move |cancel: RequestCancel| {
        let stopped = stopped.clone();
        async move {
            let work = tokio::task::spawn_blocking(move || {
                let until = Instant::now() + Duration::from_secs(30);
                while !cancel.is_cancelled() && Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(5));
                }
                stopped.store(cancel.is_cancelled(), Ordering::SeqCst);
            });
            let _ = work.await;
            "done"
        }
    };
    Router::new()
        .route("/slow", get(handler))
        .layer(axum::middleware::from_fn_with_state(h.state.clone(), meridian_api::middleware::deadline))
}

async fn wait_for(flag: &AtomicBool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if flag.load(Ordering::SeqCst) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn a_request_past_its_deadline_is_503_and_its_work_is_cancelled() {
    let mut config = Config::default();
    config.server.request_timeout = Duration::from_millis(200);
    let h = Harness::with_config(config).await;
    let stopped = Arc::new(AtomicBool::new(false));
    let app = slow_router(&h, stopped.clone());
    let response = app.oneshot(Request::get("/slow").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["content-type"], "application/problem+json");
    let body: Value = serde_json::from_slice(&response.into_body().collect().await.unwrap().to_bytes()).unwrap();
    assert_eq!(body["code"], "deadline_exceeded");
    assert!(wait_for(&stopped).await, "the blocking work did not see the cancellation");
    assert!(meridian_core::problem::REGISTRY
        .iter()
        .any(|(code, status, _)| *code == "deadline_exceeded" && *status == 503));
}

#[tokio::test]
async fn a_request_whose_client_goes_away_is_cancelled() {
    let h = Harness::new().await;
    let stopped = Arc::new(AtomicBool::new(false));
    let app = slow_router(&h, stopped.clone());
    // The server drops the request's future when its connection closes: do the same.
    let call = tokio::spawn(app.oneshot(Request::get("/slow").body(Body::empty()).unwrap()));
    tokio::time::sleep(Duration::from_millis(100)).await;
    call.abort();
    assert!(wait_for(&stopped).await, "the blocking work outlived its request");
}

#[tokio::test]
async fn requests_still_running_stop_when_the_server_stops_waiting() {
    let h = Harness::new().await;
    let stopped = Arc::new(AtomicBool::new(false));
    let app = slow_router(&h, stopped.clone());
    let call = tokio::spawn(app.oneshot(Request::get("/slow").body(Body::empty()).unwrap()));
    tokio::time::sleep(Duration::from_millis(100)).await;
    h.state.requests.cancel();
    assert!(wait_for(&stopped).await, "the blocking work outlived the shutdown");
    let response = call.await.unwrap().unwrap();
    assert_eq!(response.status(), 503);
}

/// Browsers ask before a cross-origin call with a credential or a range: the preflight is
/// answered before authentication (it carries none), for every area, and the answers a page then
/// reads expose the headers clients use (STAC Browser, copc.js, OpenLayers).
#[tokio::test]
async fn cors_preflights_are_answered_and_answers_expose_their_headers() {
    let h = Harness::new().await;
    let (_, key) = h.account("cors@example.com").await;
    for path in [
        "/api/v1/eo/collections",
        "/api/v1/pointcloud/datasets",
        "/api/v1/collections/parcels/items",
        "/v1/dns/zones",
        "/api/v1/realtime/twin",
        "/api/v1/ogc/wms",
    ] {
        let req = Request::builder()
            .method("OPTIONS")
            .uri(path)
            .header("origin", "https://stac-browser.example")
            .header("access-control-request-method", "GET")
            .header("access-control-request-headers", "authorization, range, if-none-match, x-api-key")
            .body(Body::empty())
            .unwrap();
        let response = meridian_api::router(h.state.clone()).oneshot(req).await.unwrap();
        assert!(response.status().is_success(), "{path}: {}", response.status());
        let headers = response.headers();
        assert_eq!(headers["access-control-allow-origin"], "*", "{path}");
        let allowed = headers["access-control-allow-headers"].to_str().unwrap().to_ascii_lowercase();
        for h in ["authorization", "range", "if-none-match", "x-api-key"] {
            assert!(allowed.contains(h), "{path}: {allowed}");
        }
        assert!(headers["access-control-allow-methods"].to_str().unwrap().contains("GET"));
    }
    let req = Request::builder()
        .uri("/api/v1/eo/collections")
        .header("origin", "https://stac-browser.example")
        .header("authorization", format!("Bearer {key}"))
        .body(Body::empty())
        .unwrap();
    let response = meridian_api::router(h.state.clone()).oneshot(req).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
    let exposed = response.headers()["access-control-expose-headers"].to_str().unwrap().to_ascii_lowercase();
    for h in ["etag", "content-range", "link"] {
        assert!(exposed.contains(h), "{exposed}");
    }
}

/// With a list of origins only those are allowed, and answers vary by origin.
#[tokio::test]
async fn cors_origins_can_be_listed() {
    let mut config = Config::default();
    config.server.cors_origins = vec!["https://maps.example.com".into()];
    let h = Harness::with_config(config).await;
    let preflight = |origin: &str| {
        Request::builder()
            .method("OPTIONS")
            .uri("/api/v1/eo/collections")
            .header("origin", origin)
            .header("access-control-request-method", "GET")
            .body(Body::empty())
            .unwrap()
    };
    let ok = meridian_api::router(h.state.clone()).oneshot(preflight("https://maps.example.com")).await.unwrap();
    assert_eq!(ok.headers()["access-control-allow-origin"], "https://maps.example.com");
    assert!(ok.headers()["vary"].to_str().unwrap().to_ascii_lowercase().contains("origin"));
    let other = meridian_api::router(h.state.clone()).oneshot(preflight("https://evil.example")).await.unwrap();
    assert!(other.headers().get("access-control-allow-origin").is_none());
}

/// The landing page links every area, and a browser gets it as HTML.
#[tokio::test]
async fn the_landing_page_links_every_area_and_speaks_html_to_browsers() {
    let h = Harness::new().await;
    let (_, key) = h.account("landing@example.com").await;
    let (_, body) = h.call("GET", "/", &key).await;
    let rels: Vec<&str> = body["links"].as_array().unwrap().iter().map(|l| l["rel"].as_str().unwrap()).collect();
    for rel in ["dns", "cadastre", "dem", "eo", "pointcloud", "twins", "ogc-features", "wms", "wmts", "wfs", "webhooks"]
    {
        assert!(rels.contains(&rel), "{rel} missing from {rels:?}");
    }
    let req = Request::builder()
        .uri("/")
        .header("accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
        .body(Body::empty())
        .unwrap();
    let response = meridian_api::router(h.state.clone()).oneshot(req).await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let html = String::from_utf8(response.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    assert!(
        html.contains("href=\"/api/v1/eo\"")
            && html.contains("/api/v1/ogc/wms?SERVICE=WMS&amp;REQUEST=GetCapabilities")
    );
}

/// `/readyz` is 503 naming what is still starting (the DNS zones, when there are many), and 200
/// once it is done.
#[tokio::test]
async fn readyz_waits_for_what_is_still_starting() {
    let h = Harness::new().await;
    let ready = || async {
        let req = Request::builder().uri("/readyz").body(Body::empty()).unwrap();
        send(&h, req).await
    };
    let loading = h.state.starting("dns zones loading");
    let (status, body) = ready().await;
    assert_eq!(status, 503);
    assert!(body["detail"].as_str().unwrap().contains("dns zones loading"), "{body}");
    drop(loading);
    assert_eq!(ready().await.0, 200);
}
