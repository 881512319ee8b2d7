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
        (status = 503, description = "The store does not answer, or a part of the process is still starting (the DNS zones loading)", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn readyz(State(state): State<AppState>) -> Response {
    let starting = state.starting.lock().map(|l| l.join(", ")).unwrap_or_default();
    if !starting.is_empty() {
        return ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            code::UNAVAILABLE,
            "Not ready",
            format!("still starting: {starting}"),
        )
        .into_response();
    }
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
            {"rel": "wms", "type": "text/xml", "href": "/api/v1/ogc/wms?SERVICE=WMS&REQUEST=GetCapabilities"},
            {"rel": "wmts", "type": "application/xml", "href": "/api/v1/ogc/wmts/1.0.0/WMTSCapabilities.xml"},
            {"rel": "wfs", "type": "application/xml", "href": "/api/v1/ogc/wfs?SERVICE=WFS&REQUEST=GetCapabilities"},
            {"rel": "eo", "type": "application/json", "title": "STAC API", "href": "/api/v1/eo"},
            {"rel": "pointcloud", "type": "application/json", "href": "/api/v1/pointcloud"},
            {"rel": "twins", "type": "application/json", "href": "/api/v1/realtime/twins"},
            {"rel": "webhooks", "type": "application/json", "href": "/api/v1/webhooks/subscriptions"},
            {"rel": "jobs", "type": "application/json", "href": "/api/v1/jobs"},
        ]
    })
}

/// The landing page as a browser asks for it: the same links as HTML.
fn landing_html() -> String {
    let body = landing_body();
    let escape = |t: &str| t.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    let mut items = String::new();
    for l in body["links"].as_array().into_iter().flatten() {
        let href = escape(l["href"].as_str().unwrap_or(""));
        let rel = escape(l["rel"].as_str().unwrap_or(""));
        let title = l["title"].as_str().map(|t| format!(" ({})", escape(t))).unwrap_or_default();
        items.push_str(&format!("<li><a href=\"{href}\">{rel}</a>{title} <code>{href}</code></li>\n"));
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Meridian</title></head>\n\
         <body><h1>Meridian</h1><p>DNS, geospatial, digital twin and webhook platform. Every API but sign-up \
         takes an API key (<code>Authorization: Bearer mrd_...</code>); the reference is at <a href=\"/docs\">/docs</a>.</p>\n\
         <ul>\n{items}</ul></body></html>\n"
    )
}

/// JSON, or HTML for a client that prefers it (a browser).
fn landing_answer(headers: &axum::http::HeaderMap) -> Response {
    let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    if crate::extract::prefers_html(accept) {
        Html(landing_html()).into_response()
    } else {
        Json(landing_body()).into_response()
    }
}

#[utoipa::path(get, path = "/", tag = "system", responses((status = 200, description = "Links to every area's API and the docs; HTML for a browser (Accept: text/html)", body = crate::schemas::LandingPage)))]
async fn root(headers: axum::http::HeaderMap) -> Response {
    landing_answer(&headers)
}

#[utoipa::path(get, path = "/api/v1", tag = "system", responses((status = 200, description = "Links to every area's API and the docs; HTML for a browser (Accept: text/html)", body = crate::schemas::LandingPage)))]
async fn landing(headers: axum::http::HeaderMap) -> Response {
    landing_answer(&headers)
}

#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    tag = "system",
    responses((status = 200, description = "This API's OpenAPI 3.1 document", content_type = "application/vnd.oai.openapi+json;version=3.1", body = crate::schemas::OpenApiDocument))
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
