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

/// Every error response that carries a problem document is declared as
/// `application/problem+json`, the type `ApiError` serves.
#[test]
fn error_responses_are_problem_json() {
    let doc: Value = serde_json::from_str(&meridian_api::docs::openapi_text()).unwrap();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for (status, response) in op["responses"].as_object().into_iter().flatten() {
                if !(status.starts_with('4') || status.starts_with('5') || status == "default") {
                    continue;
                }
                if response["$ref"] == "#/components/responses/Problem" {
                    assert!(response["description"].is_string(), "{method} {path} {status} lacks its description");
                    checked += 1;
                }
                for (media, content) in response["content"].as_object().into_iter().flatten() {
                    if content.pointer("/schema/$ref") == Some(&Value::from("#/components/schemas/Problem")) {
                        assert_eq!(media, "application/problem+json", "{method} {path} {status}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} problem responses");
}

/// Paging parameters declare the bounds the server enforces (`Page::new`), so a schema-valid
/// `limit` is never rejected.
#[test]
fn paging_parameters_declare_their_bounds() {
    let doc: Value = serde_json::from_str(&meridian_api::docs::openapi_text()).unwrap();
    let mut checked = Vec::new();
    for path in [
        "/v1/dns/zones",
        "/v1/dns/zones/{zone_id}/records",
        "/api/v1/jobs",
        "/api/v1/dem/jobs",
        "/api/v1/account/api-keys",
    ] {
        let params = doc["paths"][path]["get"]["parameters"].as_array().unwrap();
        let find = |name: &str| params.iter().find(|p| p["name"] == name).unwrap()["schema"].clone();
        let limit = find("limit");
        assert_eq!((limit["minimum"].as_i64(), limit["maximum"].as_i64()), (Some(1), Some(1000)), "{path}");
        assert_eq!(find("offset")["minimum"].as_i64(), Some(0), "{path}");
        checked.push(path);
    }
    assert_eq!(checked.len(), 5);
}

/// DNS record integers declare the ranges `meridian_dns::record` enforces, in single and batch
/// changes alike.
#[test]
fn record_integers_declare_their_ranges() {
    let doc: Value = serde_json::from_str(&meridian_api::docs::openapi_text()).unwrap();
    for schema in ["RecordBody", "BatchUpdateBody"] {
        let props = &doc["components"]["schemas"][schema]["properties"];
        assert_eq!(props["ttl"]["minimum"].as_i64(), Some(60), "{schema}");
        assert_eq!(props["ttl"]["maximum"].as_i64(), Some(86400), "{schema}");
        for field in ["priority", "weight", "port"] {
            assert_eq!(props[field]["maximum"].as_i64(), Some(65535), "{schema}.{field}");
        }
        assert_eq!(props["flags"]["enum"], serde_json::json!([0, 128]), "{schema}");
    }
}

/// Follows a `$ref` to a component schema.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str().and_then(|r| r.strip_prefix("#/components/schemas/")) {
        Some(name) => &doc["components"]["schemas"][name],
        None => schema,
    }
}

/// No JSON body is a bare `{"type": "object"}`: each names its schema, which generators turn
/// into types; every request body has an example (binary uploads aside); the problem document
/// is described once.
#[test]
fn bodies_are_typed_named_and_exemplified() {
    let doc: Value = serde_json::from_str(&meridian_api::docs::openapi_text()).unwrap();
    let bare = serde_json::json!({"type": "object"});
    let mut bodies = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for (media, c) in op.pointer("/requestBody/content").and_then(Value::as_object).into_iter().flatten() {
                assert_ne!(c["schema"], bare, "{method} {path} request {media}");
                if meridian_api::schemas::is_binary(media) {
                    assert_eq!(c["schema"]["format"], "binary", "{method} {path} request {media}");
                    continue;
                }
                let schema = resolve(&doc, &c["schema"]);
                assert!(
                    c.get("example").is_some() || schema.get("example").is_some() || schema.get("examples").is_some(),
                    "{method} {path}: the {media} request body has no example"
                );
                bodies += 1;
            }
            for (status, r) in op["responses"].as_object().unwrap() {
                for (media, c) in r["content"].as_object().into_iter().flatten() {
                    assert_ne!(c["schema"], bare, "{method} {path} {status} {media}");
                }
            }
        }
    }
    assert!(bodies > 30, "only {bodies} request bodies");
    assert_eq!(
        doc.pointer("/components/responses/Problem/content/application~1problem+json/schema/$ref").unwrap(),
        "#/components/schemas/Problem"
    );
}
