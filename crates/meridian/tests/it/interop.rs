//! The OpenAPI document checked by an independent validator (Python's openapi-spec-validator).

use crate::{have_tool, Server};
use std::process::Command;

#[tokio::test]
async fn openapi_document_validates_as_3_1() {
    let s = Server::start();
    let doc = s.client.get(s.url("/api/v1/openapi.json")).send().await.unwrap().text().await.unwrap();
    let value: serde_json::Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(value["openapi"], "3.1.0");
    if !have_tool("python3", "openapi_document_validates_as_3_1") {
        return;
    }
    let probe = Command::new("python3").args(["-c", "import openapi_spec_validator"]).output().unwrap();
    if !probe.status.success() {
        println!("skipping openapi_document_validates_as_3_1: python package openapi-spec-validator is not installed (.ci/run installs it)");
        return;
    }
    let path = s.dir.path().join("openapi.json");
    std::fs::write(&path, &doc).unwrap();
    let script = "import json,sys\nfrom openapi_spec_validator import validate\nfrom openapi_spec_validator.validation import OpenAPIV31SpecValidator\nvalidate(json.load(open(sys.argv[1])), cls=OpenAPIV31SpecValidator)\nprint('valid')";
    let out = Command::new("python3").args(["-c", script, path.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
