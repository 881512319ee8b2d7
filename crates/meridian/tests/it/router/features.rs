//! Hostile or mistaken feature queries end in clear problems.

use super::Harness;
use axum::http::StatusCode;

const PARCELS: &str = "/api/v1/cadastre/parcels";

fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[tokio::test]
async fn bbox_problems_are_clear() {
    let h = Harness::new().await;
    let (_, key) = h.account("bbox@example.com").await;
    // Latitude 95 used to be accepted and match nothing.
    let (status, body) = h.call("GET", &format!("{PARCELS}?bbox=0,0,1,95"), &key).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["code"], "invalid_bbox");
    assert!(body["detail"].as_str().is_some_and(|d| d.contains("±90")), "{body}");
    // The parameter is named once.
    let (_, body) = h.call("GET", &format!("{PARCELS}?bbox=1,2,3"), &key).await;
    assert_eq!(body["code"], "invalid_bbox");
    let detail = body["detail"].as_str().unwrap_or_default();
    assert!(detail.starts_with("bbox: ") && !detail.contains("bbox: bbox"), "{detail}");
    // An EPSG code without a definition is an unsupported CRS, not a malformed identifier.
    let crs = enc("http://www.opengis.net/def/crs/EPSG/0/99999");
    let (status, body) = h.call("GET", &format!("{PARCELS}?bbox=0,0,1,1&bbox-crs={crs}"), &key).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["code"], "unsupported_crs");
    let detail = body["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("unknown or unsupported CRS") && !detail.contains("not a CRS identifier"), "{detail}");
}

#[tokio::test]
async fn deeply_nested_filters_are_invalid_filter() {
    let h = Harness::new().await;
    let (_, key) = h.account("cql@example.com").await;
    for filter in
        [format!("{}lot = '1'{}", "(".repeat(2_000), ")".repeat(2_000)), format!("{}lot = '1'", "NOT ".repeat(10_000))]
    {
        let (status, body) = h.call("GET", &format!("{PARCELS}?filter={}", enc(&filter)), &key).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["code"], "invalid_filter");
    }
    let json = format!("{}{}{}", r#"{"op":"not","args":["#.repeat(100), "true", "]}".repeat(100));
    let url = format!("{PARCELS}?filter-lang=cql2-json&filter={}", enc(&json));
    let (status, body) = h.call("GET", &url, &key).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["code"], "invalid_filter");
    assert!(body["detail"].as_str().is_some_and(|d| d.contains("nested more than 64 levels")), "{body}");
}
