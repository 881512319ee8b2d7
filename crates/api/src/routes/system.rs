//! Health, metrics, landing pages, the OpenAPI document and the human-readable docs.

use crate::docs;
use crate::error::ApiError;
use crate::extract::Json;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use meridian_core::problem::code;
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// System routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(healthz))
        .routes(routes!(readyz))
        .routes(routes!(metrics))
        .routes(routes!(root))
        .routes(routes!(landing))
        .routes(routes!(openapi_json))
        .routes(routes!(docs_page))
        .routes(routes!(problems_page))
}

/// A health answer.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Health {
    /// `ok`, or `unavailable`.
    pub status: String,
}

#[utoipa::path(get, path = "/healthz", tag = "system", responses((status = 200, description = "The process is alive", body = Health)))]
async fn healthz() -> Json<Health> {
    Json(Health { status: "ok".into() })
}

#[utoipa::path(
    get,
    path = "/readyz",
    tag = "system",
    responses(
        (status = 200, description = "The store answers", body = Health),
        (status = 503, description = "The store does not answer", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn readyz(State(state): State<AppState>) -> Response {
    match state.store.health.ping().await {
        Ok(()) => Json(Health { status: "ok".into() }).into_response(),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            ApiError::new(StatusCode::SERVICE_UNAVAILABLE, code::UNAVAILABLE, "Not ready", "the store does not answer")
                .into_response()
        }
    }
}

#[utoipa::path(
    get,
    path = "/metrics",
    tag = "system",
    responses((status = 200, description = "Prometheus text exposition", body = String, content_type = "text/plain"))
)]
async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], state.metrics.render())
}

/// The landing page: every link names a route that exists (a test follows each one).
pub fn landing_body() -> serde_json::Value {
    json!({
        "title": "Meridian",
        "description": "DNS, geospatial, digital twin and webhook platform",
        "links": [
            {"rel": "service-desc", "type": "application/vnd.oai.openapi+json;version=3.1", "href": "/api/v1/openapi.json"},
            {"rel": "service-doc", "type": "text/html", "href": "/docs"},
            {"rel": "signup", "type": "application/json", "href": "/api/v1/accounts"},
            {"rel": "account", "type": "application/json", "href": "/api/v1/account"},
            {"rel": "dns", "type": "application/json", "href": "/v1/dns/zones"},
            {"rel": "cadastre", "type": "application/geo+json", "href": "/api/v1/cadastre/parcels"},
            {"rel": "dem", "type": "application/json", "href": "/api/v1/dem/datasets"},
            {"rel": "ogc-features", "type": "application/json", "href": "/api/v1/ogc/v1/features"},
            {"rel": "webhooks", "type": "application/json", "href": "/api/v1/webhooks/subscriptions"},
            {"rel": "jobs", "type": "application/json", "href": "/api/v1/jobs"},
        ]
    })
}

#[utoipa::path(get, path = "/", tag = "system", responses((status = 200, description = "Links to the APIs and docs", body = Object)))]
async fn root() -> Json<serde_json::Value> {
    Json(landing_body())
}

#[utoipa::path(get, path = "/api/v1", tag = "system", responses((status = 200, description = "Links to the APIs and docs", body = Object)))]
async fn landing() -> Json<serde_json::Value> {
    Json(landing_body())
}

#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    tag = "system",
    responses((status = 200, description = "This API's OpenAPI 3.1 document", content_type = "application/vnd.oai.openapi+json;version=3.1", body = Object))
)]
async fn openapi_json() -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/vnd.oai.openapi+json;version=3.1"),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        docs::openapi_text(),
    )
        .into_response()
}

#[utoipa::path(get, path = "/docs", tag = "system", responses((status = 200, description = "The API reference as HTML", body = String, content_type = "text/html")))]
async fn docs_page() -> Html<String> {
    Html(docs::reference_html())
}

#[utoipa::path(get, path = "/docs/problems", tag = "system", responses((status = 200, description = "Every problem code", body = String, content_type = "text/html")))]
async fn problems_page() -> Html<String> {
    Html(docs::problems_html())
}
