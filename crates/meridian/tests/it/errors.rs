use crate::{problem, Server};
use serde_json::json;

#[tokio::test]
async fn client_mistakes_are_problem_documents() {
    let s = Server::start();
    let (_, key) = s.signup("err@example.com").await;
    let keys = s.url("/api/v1/account/api-keys");

    let r = s
        .client
        .post(&keys)
        .bearer_auth(&key)
        .header("content-type", "application/json")
        .body("{\"name\":")
        .send()
        .await
        .unwrap();
    problem(r, 400, "malformed_request").await;

    let r = s.client.post(&keys).bearer_auth(&key).json(&json!({"name": 5})).send().await.unwrap();
    let body = problem(r, 422, "validation_failed").await;
    assert_eq!(body["errors"][0]["pointer"], "/name");

    let r = s
        .client
        .post(&keys)
        .bearer_auth(&key)
        .json(&json!({"scopes": ["dns:read", "dns:admin"]}))
        .send()
        .await
        .unwrap();
    let body = problem(r, 422, "validation_failed").await;
    assert_eq!(body["errors"][0]["pointer"], "/scopes/1");

    let r =
        s.client.post(&keys).bearer_auth(&key).header("content-type", "text/plain").body("{}").send().await.unwrap();
    problem(r, 415, "unsupported_media_type").await;

    let r = s.get("/api/v1/no-such-thing", &key).await;
    problem(r, 404, "not_found").await;
    let r = s.get("/api/v1/account/api-keys/key_unknown", &key).await;
    problem(r, 404, "not_found").await;

    let r = s.client.put(s.url("/api/v1/account")).bearer_auth(&key).send().await.unwrap();
    let allow = r.headers().get("allow").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    assert!(allow.contains("GET"), "Allow: {allow}");
    problem(r, 405, "method_not_allowed").await;

    let r = s.client.delete(s.url("/healthz")).send().await.unwrap();
    problem(r, 405, "method_not_allowed").await;
}

#[tokio::test]
async fn bodies_over_the_limit_are_413() {
    let s = Server::start_with(&[("MERIDIAN_LIMITS__BODY_BYTES", "1024")]);
    let (_, key) = s.signup("big@example.com").await;
    let name = "x".repeat(4096);
    let r = s
        .client
        .post(s.url("/api/v1/account/api-keys"))
        .bearer_auth(&key)
        .json(&json!({ "name": name }))
        .send()
        .await
        .unwrap();
    problem(r, 413, "payload_too_large").await;
    // Nothing was half-written.
    let keys: serde_json::Value = s.get("/api/v1/account/api-keys", &key).await.json().await.unwrap();
    assert_eq!(keys["total"], 1);
}

#[tokio::test]
async fn request_ids_are_echoed_or_generated() {
    let s = Server::start();
    let r = s.client.get(s.url("/healthz")).header("x-request-id", "trace-abc-123").send().await.unwrap();
    assert_eq!(r.headers()["x-request-id"], "trace-abc-123");
    let r = s.client.get(s.url("/api/v1/account")).header("x-request-id", "trace-xyz").send().await.unwrap();
    let body = problem(r, 401, "unauthenticated").await;
    assert_eq!(body["request_id"], "trace-xyz");
    let r = s.client.get(s.url("/healthz")).send().await.unwrap();
    assert!(r.headers()["x-request-id"].to_str().unwrap().starts_with("req_"));
}

#[tokio::test]
async fn health_metrics_landing_and_docs_need_no_key() {
    let s = Server::start();
    // Readiness waits for the DNS zones to load: 503 until then, then 200, never a 401.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let status = s.client.get(s.url("/readyz")).send().await.unwrap().status();
        if status == 200 {
            break;
        }
        assert_eq!(status, 503, "/readyz before ready");
        assert!(std::time::Instant::now() < deadline, "/readyz never became ready");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    for path in ["/healthz", "/readyz", "/", "/api/v1", "/docs", "/docs/problems", "/api/v1/openapi.json"] {
        let r = s.client.get(s.url(path)).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
    }
    let metrics = s.client.get(s.url("/metrics")).send().await.unwrap().text().await.unwrap();
    assert!(metrics.contains("meridian_http_requests_total"), "{metrics}");
    let docs = s.client.get(s.url("/docs")).send().await.unwrap().text().await.unwrap();
    assert!(docs.contains("/api/v1/account/api-keys"));
    assert!(!docs.contains("src=\"http") && !docs.contains("href=\"http"), "the docs page must work offline");
    let problems = s.client.get(s.url("/docs/problems")).send().await.unwrap().text().await.unwrap();
    assert!(problems.contains("id=\"validation_failed\""));
}
