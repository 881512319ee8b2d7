//! Meridian's HTTP API: the axum routers of every area, and what they share: authentication and
//! scopes, rate limits, problem+json errors, request ids, metrics and the OpenAPI document.
//! Routers are thin: they check input, call the store or an engine, and shape the answer.

pub mod auth;
pub mod docs;
pub mod download;
pub mod error;
pub mod etag;
pub mod extract;
pub mod middleware;
pub mod paging;
pub mod ratelimit;
pub mod routes;
pub mod schemas;
pub mod state;
pub mod telemetry;
pub mod upload;

pub use error::ApiError;
pub use routes::{openapi, router};
pub use state::AppState;
