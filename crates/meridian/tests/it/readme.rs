//! Documentation run as written: the README's tour (every `sh` block of "A five-minute tour"),
//! and every block of docs/*.md fenced as `sh run`, each file's blocks in order in one bash
//! session against a fresh server (its address put in for `localhost:8080` and
//! `127.0.0.1:8080`, the repository's sample files found from the repository root, `API_KEY` a
//! new account's key for docs/). A command that fails stops the script (`set -e`); afterwards
//! the server must have answered no request with a 5xx.

use crate::{have_python_module, have_tool, Server};
use serde_json::Value;

const TEST: &str = "readme::the_readme_tour_runs_as_written";

/// The fenced blocks of `text` whose info string is `info` (`sh`, `sh run`), in order.
fn fenced(text: &str, info: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim().strip_prefix("```") == Some(info) {
            let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
            out.push(block.join("\n"));
        }
    }
    out
}

/// The `sh` blocks of the README section `section`.
fn blocks(readme: &str, section: &str) -> Vec<String> {
    let start = readme.find(section).expect("the section is in the README");
    let rest = &readme[start + section.len()..];
    fenced(&rest[..rest.find("\n## ").unwrap_or(rest.len())], "sh")
}

#[tokio::test]
async fn the_readme_tour_runs_as_written() {
    for tool in ["bash", "curl", "jq", "ogr2ogr", "gdalinfo"] {
        if !have_tool(tool, TEST) {
            return;
        }
    }
    for module in ["pystac_client", "laspy"] {
        if !have_python_module("python3", module, TEST) {
            return;
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let tour = blocks(&readme, "## A five-minute tour");
    assert!(tour.len() >= 10, "the tour has its blocks: {}", tour.len());
    let s = Server::start();
    let host = s.base.trim_start_matches("http://").to_owned();
    let mut script = String::from("set -euo pipefail\n");
    for b in &tour {
        script
            .push_str(&b.replace("localhost:8080", &host).replace("@crates/", &format!("@{}/crates/", root.display())));
        script.push('\n');
    }
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("tour.sh"), &script).unwrap();
    let out = tokio::process::Command::new("bash").arg("tour.sh").current_dir(work.path()).output().await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the tour stopped:\n--- stdout\n{stdout}\n--- stderr\n{stderr}");

    // No request of the tour was a server error.
    let metrics = s.client.get(s.url("/metrics")).send().await.unwrap().text().await.unwrap();
    let errors: Vec<&str> =
        metrics.lines().filter(|l| l.starts_with("meridian_http_requests_total") && l.contains("status=\"5")).collect();
    assert!(errors.is_empty(), "server errors during the tour: {errors:?}\n{stderr}");
    // What the tour made is there: its account's key works, the point cloud was classified and
    // read back by laspy, the scene was found by pystac-client.
    let key = stdout.lines().find_map(|l| l.split("\"api_key\":\"").nth(1)).and_then(|k| k.split('"').next());
    let key = key.expect("the sign-up answer is printed").to_owned();
    let pcs: Value = s.get("/api/v1/pointcloud", &key).await.json().await.unwrap();
    assert_eq!(pcs["point_clouds"][0]["classification"]["status"], "succeeded", "{pcs}");
    assert!(stdout.contains("'scene1'"), "pystac-client found the scene:\n{stdout}");
    assert!(work.path().join("parcels.gpkg").exists() && work.path().join("survey.copc.laz").exists());
}

#[tokio::test]
async fn docs_examples_marked_run_run_as_written() {
    const TEST: &str = "readme::docs_examples_marked_run_run_as_written";
    for tool in ["bash", "curl", "jq"] {
        if !have_tool(tool, TEST) {
            return;
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    let mut files: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    let mut ran = 0;
    for file in files {
        let blocks = fenced(&std::fs::read_to_string(&file).unwrap(), "sh run");
        if blocks.is_empty() {
            continue;
        }
        let s = Server::start();
        let (_, key) = s.signup("docs@example.com").await;
        let host = s.base.trim_start_matches("http://").to_owned();
        let mut script = format!("set -euo pipefail\nAPI_KEY={key}\nKEY={key}\n");
        for b in &blocks {
            let b = b.replace("localhost:8080", &host).replace("127.0.0.1:8080", &host);
            script.push_str(&b.replace("@crates/", &format!("@{}/crates/", root.display())));
            script.push('\n');
        }
        let work = tempfile::tempdir().unwrap();
        std::fs::write(work.path().join("doc.sh"), &script).unwrap();
        let out = tokio::process::Command::new("bash").arg("doc.sh").current_dir(work.path()).output().await.unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{}: stopped\n--- stdout\n{stdout}\n--- stderr\n{stderr}", file.display());
        let metrics = s.client.get(s.url("/metrics")).send().await.unwrap().text().await.unwrap();
        let errors: Vec<&str> = metrics
            .lines()
            .filter(|l| l.starts_with("meridian_http_requests_total") && l.contains("status=\"5"))
            .collect();
        assert!(errors.is_empty(), "{}: server errors: {errors:?}", file.display());
        assert!(
            !stdout.contains("\"status\":4") && !stdout.contains("\"status\":5"),
            "{}: a problem answer:\n{stdout}",
            file.display()
        );
        ran += blocks.len();
    }
    assert!(ran >= 2, "docs/ has runnable blocks");
}
