//! Router tests without sockets: the HTTP router over the program's services and a store in a
//! temporary folder, called in-process.

mod features;
mod html;
mod http;
mod jobs;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use meridian_api::AppState;
use meridian_backends::StoreOptions;
use meridian_core::config::Config;
use serde_json::Value;
use std::sync::Arc;
use tower::ServiceExt;

pub(crate) struct Harness {
    pub(crate) state: AppState,
    pub(crate) _dir: tempfile::TempDir,
}

impl Harness {
    pub(crate) async fn new() -> Self {
        Self::with_config(Config::default()).await
    }

    pub(crate) async fn with_config(config: Config) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let options = StoreOptions {
            database_url: format!("sqlite://{}/m.db", dir.path().display()),
            blob_url: format!("file://{}/blobs", dir.path().display()),
            readers: 2,
            busy_timeout: std::time::Duration::from_secs(5),
            postgres: Default::default(),
        };
        let store = meridian_backends::open(&options).await.unwrap();
        let state = AppState::new(meridian_services::Services::new(Arc::new(config), store).await.unwrap());
        Self { state, _dir: dir }
    }

    /// A new account; returns (account id, key).
    pub(crate) async fn account(&self, email: &str) -> (meridian_core::id::AccountId, String) {
        let (key, account) = self.state.accounts.create_account("T", email).await.unwrap();
        (account.id, key)
    }

    pub(crate) async fn call(&self, method: &str, path: &str, key: &str) -> (StatusCode, Value) {
        let req = Request::builder().method(method).uri(path).header("authorization", format!("Bearer {key}"));
        let response =
            meridian_api::router(self.state.clone()).oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }
}
