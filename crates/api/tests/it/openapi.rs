//! The committed `openapi.json` must match what the code generates. To update it after an API
//! change: `UPDATE_OPENAPI=1 cargo test -p meridian-api openapi`.

use serde_json::Value;

fn committed_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../openapi.json")
}

#[test]
fn committed_openapi_matches_the_code() {
    let generated = meridian_api::docs::openapi_text();
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(committed_path(), &generated).unwrap();
    }
    let committed = std::fs::read_to_string(committed_path()).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi.json is out of date: run `UPDATE_OPENAPI=1 cargo test -p meridian-api openapi` and commit it"
    );
}

#[test]
fn every_operation_is_documented_and_secured_unless_public() {
    let doc: Value = serde_json::from_str(&meridian_api::docs::openapi_text()).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    let public = [
        "/api/v1/accounts",
        "/api/v1/auth/token",
        "/healthz",
        "/readyz",
        "/metrics",
        "/",
        "/api/v1",
        "/api/v1/ogc/v1/features",
        "/api/v1/ogc/v1/features/conformance",
        "/api/v1/ogc/v1/features/api",
    ];
    for (path, item) in doc["paths"].as_object().unwrap() {
        assert!(
            path == "/"
                || path.starts_with("/api/v1")
                || path.starts_with("/v1/dns")
                || ["/healthz", "/readyz", "/metrics", "/docs", "/docs/problems"].contains(&path.as_str()),
            "{path}"
        );
        for (method, op) in item.as_object().unwrap() {
            assert!(op["responses"]["default"].is_object(), "{method} {path} lacks the problem response");
            assert!(op["tags"].is_array(), "{method} {path} lacks a tag");
            let secured = op.get("security").is_some();
            let is_public =
                public.contains(&path.as_str()) || path.starts_with("/docs") || path.ends_with("openapi.json");
            assert!(secured || is_public, "{method} {path} must declare its security");
        }
    }
}
