//! The HTML pages of OGC API Features escape everything users wrote.

use super::Harness;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::json;
use tower::ServiceExt;

const ROOT: &str = "/api/v1/ogc/v1/features";
const SCRIPT: &str = "<script>alert(1)</script>";

async fn send(h: &Harness, method: &str, path: &str, key: &str, body: Option<String>) -> (StatusCode, String) {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/geo+json");
    let req = req.body(body.map(Body::from).unwrap_or_else(Body::empty)).unwrap();
    let response = meridian_api::router(h.state.clone()).oneshot(req).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

fn assert_escaped(page: &str, what: &str) {
    assert!(!page.contains("<script>"), "{what}: a <script> element got through:\n{page}");
    assert!(!page.contains("<img"), "{what}: an <img> element got through:\n{page}");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{what}: the text should be shown escaped:\n{page}"
    );
}

#[tokio::test]
async fn user_strings_are_escaped_in_html_pages() {
    let h = Harness::new().await;
    let (_, key) = h.account("html@example.com").await;
    let upload = json!({
        "type": "FeatureCollection",
        "id": "xss",
        "title": SCRIPT,
        "description": SCRIPT,
        "features": [{
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [1.0, 2.0]},
            "properties": {"note": SCRIPT, "<img src=x onerror=alert(1)>": "'quoted\""}
        }]
    });
    let (status, body) = send(&h, "POST", &format!("{ROOT}/collections"), &key, Some(upload.to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    let (status, page) = send(&h, "GET", &format!("{ROOT}/collections/xss?f=html"), &key, None).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_escaped(&page, "collection page");

    let (status, page) = send(&h, "GET", &format!("{ROOT}/collections/xss/items?f=html"), &key, None).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_escaped(&page, "items page");
    assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;"), "{page}");
    assert!(page.contains("&#39;quoted&quot;"), "{page}");

    let (status, page) = send(&h, "GET", &format!("{ROOT}/collections?f=html"), &key, None).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_escaped(&page, "collections page");
}
