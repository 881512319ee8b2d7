use super::Harness;
use axum::http::StatusCode;
use meridian_store::model::NewJob;
use serde_json::json;

#[tokio::test]
async fn jobs_are_polled_cancelled_and_private_to_their_account() {
    let h = Harness::new().await;
    let (a, key_a) = h.account("a@example.com").await;
    let (_, key_b) = h.account("b@example.com").await;
    let submit =
        |kind: &str| NewJob { account_id: a.clone(), kind: kind.into(), params: json!({"n": 1}), max_attempts: 3 };
    let first = h.state.store.jobs.submit(submit("dem.process")).await.unwrap();
    h.state.store.jobs.submit(submit("pointcloud.classify")).await.unwrap();

    let (status, job) = h.call("GET", &format!("/api/v1/jobs/{}", first.id), &key_a).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(job["status"], "queued");
    assert_eq!(job["kind"], "dem.process");
    assert_eq!(job["progress"], 0);

    let (status, body) = h.call("GET", &format!("/api/v1/jobs/{}", first.id), &key_b).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["code"], "not_found");
    let (status, _) = h.call("DELETE", &format!("/api/v1/jobs/{}", first.id), &key_b).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, list) = h.call("GET", "/api/v1/jobs", &key_b).await;
    assert_eq!(list["total"], 0);

    let (_, list) = h.call("GET", "/api/v1/jobs?kind=dem.process", &key_a).await;
    assert_eq!(list["total"], 1);
    let (_, list) = h.call("GET", "/api/v1/jobs", &key_a).await;
    assert_eq!(list["total"], 2);
    assert_eq!(list["jobs"][1]["id"], first.id.as_str(), "newest first");

    let (status, job) = h.call("DELETE", &format!("/api/v1/jobs/{}", first.id), &key_a).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(job["status"], "cancelled");
    assert!(job["finished_at"].is_string());
    let (status, body) = h.call("DELETE", &format!("/api/v1/jobs/{}", first.id), &key_a).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["code"], "job_finished");
}
