//! The OpenAPI document checked by an independent validator (Python's openapi-spec-validator).

use crate::{have_python_module, Server};
use std::process::Command;

#[tokio::test]
async fn openapi_document_validates_as_3_1() {
    let s = Server::start();
    let doc = s.client.get(s.url("/api/v1/openapi.json")).send().await.unwrap().text().await.unwrap();
    let value: serde_json::Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(value["openapi"], "3.1.0");
    if !have_python_module("python3", "openapi_spec_validator", "openapi_document_validates_as_3_1") {
        return;
    }
    let path = s.dir.path().join("openapi.json");
    std::fs::write(&path, &doc).unwrap();
    let script = "import json,sys\nfrom openapi_spec_validator import validate\nfrom openapi_spec_validator.validation import OpenAPIV31SpecValidator\nvalidate(json.load(open(sys.argv[1])), cls=OpenAPIV31SpecValidator)\nprint('valid')";
    let out = Command::new("python3").args(["-c", script, path.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
