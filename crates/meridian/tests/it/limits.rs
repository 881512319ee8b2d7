use crate::{problem, Server};

#[tokio::test]
async fn rate_limits_answer_429_with_retry_after_and_headers() {
    let s = Server::start_with(&[("MERIDIAN_RATE_LIMITS__ACCOUNT__PER_MINUTE", "3")]);
    let (_, key) = s.signup("rl@example.com").await;
    let (_, other) = s.signup("rl2@example.com").await;
    for remaining in ["2", "1", "0"] {
        let r = s.get("/api/v1/account", &key).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["ratelimit-limit"], "3");
        assert_eq!(r.headers()["ratelimit-remaining"], remaining);
        assert!(r.headers().contains_key("ratelimit-reset"));
    }
    let r = s.get("/api/v1/account", &key).await;
    let retry: u64 = r.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=20).contains(&retry), "Retry-After {retry}");
    assert_eq!(r.headers()["ratelimit-remaining"], "0");
    problem(r, 429, "rate_limited").await;
    // Buckets are per account, and per area.
    assert_eq!(s.get("/api/v1/account", &other).await.status(), 200);
    assert_eq!(s.get("/api/v1/jobs", &key).await.status(), 200);
}

#[tokio::test]
async fn sigterm_drains_and_exits_cleanly() {
    let mut s = Server::start();
    let (_, key) = s.signup("term@example.com").await;
    assert_eq!(s.get("/api/v1/account", &key).await.status(), 200);
    let status = s.terminate();
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn data_survives_a_restart() {
    let s = Server::start();
    let (id, key) = s.signup("restart@example.com").await;
    let token: serde_json::Value =
        s.client.post(s.url("/api/v1/auth/token")).bearer_auth(&key).send().await.unwrap().json().await.unwrap();
    let dir = s.stop();
    let s = Server::start_in(dir, &[]);
    let me: serde_json::Value = s.get("/api/v1/account", &key).await.json().await.unwrap();
    assert_eq!(me["id"], id.as_str());
    // The token-signing key is kept in the store, so tokens outlive a restart.
    let access = token["access_token"].as_str().unwrap();
    assert_eq!(s.get("/api/v1/account", access).await.status(), 200);
}
