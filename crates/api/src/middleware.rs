//! Layers every request passes through: request ids and logging, metrics, problem documents for
//! the router's own 404 and 405, the request deadline and its cancellation token, and a 500
//! problem for a handler that panicked.

use crate::error::{ApiError, REQUEST_ID};
use crate::extract::RequestCancel;
use crate::state::AppState;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::time::Instant;
use tracing::Instrument;

/// The route template a request matched, carried on the response for the outer layers.
#[derive(Clone)]
struct RouteTemplate(String);

/// Inner layer (`route_layer`): remembers which route matched.
pub async fn tag_route(req: Request, next: Next) -> Response {
    let route = req.extensions().get::<MatchedPath>().map(|m| m.as_str().to_owned());
    let mut response = next.run(req).await;
    if let Some(route) = route {
        response.extensions_mut().insert(RouteTemplate(route));
    }
    response
}

fn acceptable_request_id(v: &HeaderValue) -> Option<String> {
    let s = v.to_str().ok()?;
    (!s.is_empty() && s.len() <= 128 && s.bytes().all(|b| b.is_ascii_graphic())).then(|| s.to_owned())
}

/// Outer layer: accepts or makes the request id, opens the request's span, logs the outcome,
/// records metrics, and turns the router's bare 404/405 into problem documents.
pub async fn observe(req: Request, next: Next) -> Response {
    let request_id = req
        .headers()
        .get("x-request-id")
        .and_then(acceptable_request_id)
        .unwrap_or_else(|| meridian_core::id::new_id("req"));
    let method = req.method().clone();
    let method_name = method.to_string();
    let path = req.uri().path().to_owned();
    let span = tracing::info_span!("request", %method, %path, request_id = %request_id);
    let started = Instant::now();
    let response = REQUEST_ID
        .scope(request_id.clone(), async move {
            let response = next.run(req).await;
            problem_for_bare_errors(response, &method_name, &path)
        })
        .instrument(span.clone())
        .await;
    let mut response = response;
    let status = response.status();
    let route = response.extensions().get::<RouteTemplate>().map(|r| r.0.clone()).unwrap_or_else(|| "unmatched".into());
    let elapsed = started.elapsed();
    let labels = [("method", method.to_string()), ("route", route.clone()), ("status", status.as_u16().to_string())];
    metrics::counter!("meridian_http_requests_total", &labels).increment(1);
    metrics::histogram!("meridian_http_request_duration_seconds", &labels[..2]).record(elapsed.as_secs_f64());
    span.in_scope(|| {
        if status.is_server_error() {
            tracing::error!(status = status.as_u16(), %route, ms = elapsed.as_millis() as u64, "request failed");
        } else {
            tracing::info!(status = status.as_u16(), %route, ms = elapsed.as_millis() as u64, "request");
        }
    });
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("x-request-id", v);
    }
    response
}

/// The router answers unknown routes and wrong methods with empty bodies: make them problems.
fn problem_for_bare_errors(response: Response, method: &str, path: &str) -> Response {
    if response.headers().contains_key(header::CONTENT_TYPE) {
        return response;
    }
    match response.status() {
        StatusCode::NOT_FOUND => ApiError::no_route(path).into_response(),
        StatusCode::METHOD_NOT_ALLOWED => {
            let allow = response.headers().get(header::ALLOW).cloned();
            let mut e = ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "Method not allowed",
                format!("{path} does not accept {method}; the Allow header lists what it accepts"),
            );
            if let Some(allow) = allow {
                e = e.with_header(header::ALLOW, allow);
            }
            e.into_response()
        }
        _ => response,
    }
}

/// The answer for a handler that panicked: a 500 problem that reveals nothing.
pub fn panic_response(_panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::internal("a handler panicked").into_response()
}

/// Gives the request its deadline (`server.request_timeout`) and its cancellation token
/// ([`RequestCancel`]). The token is cancelled when the deadline passes, when the client goes away
/// (the server drops the request's future, and with it this guard), when the answer is ready, and
/// when the process stops waiting for in-flight requests at shutdown.
pub async fn deadline(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let token = state.requests.child_token();
    req.extensions_mut().insert(RequestCancel(token.clone()));
    let _cancel_on_drop = token.clone().drop_guard();
    let limit = state.config.server.request_timeout;
    tokio::select! {
        biased;
        _ = token.cancelled() => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "Shutting down",
            "the server is shutting down and stopped this request",
        )
        .into_response(),
        _ = tokio::time::sleep(limit) => {
            token.cancel();
            tracing::warn!(timeout = ?limit, "request deadline passed; its work was cancelled");
            deadline_exceeded(limit).into_response()
        }
        response = next.run(req) => response,
    }
}

fn deadline_exceeded(limit: std::time::Duration) -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "deadline_exceeded",
        "Deadline exceeded",
        format!("the request took longer than {} s (server.request_timeout) and was cancelled", limit.as_secs_f64()),
    )
}
