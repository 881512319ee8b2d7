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
    let logged = redact_path(&path);
    let span = tracing::info_span!("request", %method, path = %logged, request_id = %request_id);
    let started = Instant::now();
    let response = REQUEST_ID
        .scope(request_id.clone(), async move {
            let response = next.run(req).await;
            let response = problem_for_bare_errors(response, &method_name, &path).await;
            ogc_report_for_errors(response, &path).await
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
        // 501 is a request for something not offered (a WFS LockFeature), not a fault.
        if status.is_server_error() && status != StatusCode::NOT_IMPLEMENTED {
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

/// The path as logged: a credential a client put in the path by mistake (`.../items&access_token=...`)
/// is cut out. The query is never logged.
fn redact_path(path: &str) -> std::borrow::Cow<'_, str> {
    let lower = path.to_ascii_lowercase();
    match ["access_token", "api_key", "apikey", "token=", "mrd_"].iter().filter_map(|k| lower.find(k)).min() {
        Some(at) => std::borrow::Cow::Owned(format!("{}[redacted]", &path[..at])),
        None => std::borrow::Cow::Borrowed(path),
    }
}

/// Largest error body read back to be rewritten (extractor rejections are a line).
const BARE_ERROR_BYTES: usize = 64 * 1024;

/// The router answers unknown routes and wrong methods with empty bodies, and axum's extractors
/// (a body over the limit, a bad header) with plain text: make them all problems.
async fn problem_for_bare_errors(response: Response, method: &str, path: &str) -> Response {
    let status = response.status();
    let plain = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/plain"));
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    if plain {
        let (parts, body) = response.into_parts();
        let text = axum::body::to_bytes(body, BARE_ERROR_BYTES).await.unwrap_or_default();
        let detail = String::from_utf8_lossy(&text).trim().to_owned();
        let (code, title) = match status {
            StatusCode::PAYLOAD_TOO_LARGE => ("payload_too_large", "Payload too large"),
            StatusCode::UNSUPPORTED_MEDIA_TYPE => ("unsupported_media_type", "Unsupported media type"),
            s if s.is_server_error() => ("internal_error", "Internal error"),
            _ => ("bad_request", "Bad request"),
        };
        let mut e = ApiError::new(status, code, title, detail);
        for name in [header::ALLOW, header::WWW_AUTHENTICATE, header::RETRY_AFTER] {
            if let Some(v) = parts.headers.get(&name) {
                e = e.with_header(name, v.clone());
            }
        }
        return e.into_response();
    }
    if response.headers().contains_key(header::CONTENT_TYPE) {
        return response;
    }
    match status {
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

/// WMS, WMTS and WFS clients read errors as exception reports: a problem document on those paths
/// (authentication, a body over the limit, a rate limit) becomes the service's report, with the
/// same status and headers.
async fn ogc_report_for_errors(response: Response, path: &str) -> Response {
    use meridian_ogc::ows::{ExceptionCode, OgcError, Service};
    let Some(rest) = path.strip_prefix("/api/v1/ogc/") else {
        return response;
    };
    let service = match rest.split('/').next() {
        Some("wms") => Service::Wms,
        Some("wmts") => Service::Wmts,
        Some("wfs") => Service::Wfs,
        _ => return response,
    };
    let problem = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/problem+json"));
    if !problem {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, BARE_ERROR_BYTES).await.unwrap_or_default();
    let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    let detail = doc["detail"].as_str().or(doc["title"].as_str()).unwrap_or("the request failed").to_owned();
    let code = match parts.status {
        s if s.is_server_error() => ExceptionCode::NoApplicableCode,
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN | StatusCode::TOO_MANY_REQUESTS => {
            ExceptionCode::OperationProcessingFailed
        }
        StatusCode::NOT_FOUND => ExceptionCode::NotFound,
        _ => ExceptionCode::InvalidParameterValue,
    };
    let locator = match parts.status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Some("authorization".to_owned()),
        _ => doc["code"].as_str().map(str::to_owned),
    };
    let report = service.report(&OgcError::new(code, locator, detail));
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/xml"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(report))
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

/// Outermost layer: CORS for pages on `origins` (`*`: any). A preflight (`OPTIONS` with
/// `Access-Control-Request-Method`) is answered here, before authentication, with the headers
/// browser clients send (`Authorization`, `X-Api-Key`, `Range`, `If-None-Match`, ...); every
/// answer to a page exposes `ETag`, `Content-Range`, `Link`, `Location` and `Retry-After`.
/// No credentials mode: keys and tokens travel in headers or `access_token`, never cookies.
/// Not applied at all when `origins` is empty.
pub fn cors(origins: &[String]) -> tower_http::cors::CorsLayer {
    use axum::http::{HeaderName, Method};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    let allow_origin = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
    };
    CorsLayer::new()
        .allow_origin(allow_origin)
        .allow_methods([
            Method::GET,
            Method::HEAD,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers([
            header::AUTHORIZATION,
            HeaderName::from_static("x-api-key"),
            header::RANGE,
            header::IF_NONE_MATCH,
            header::IF_MATCH,
            header::IF_MODIFIED_SINCE,
            header::CONTENT_TYPE,
            header::ACCEPT,
            HeaderName::from_static("x-request-id"),
        ])
        .expose_headers([
            header::ETAG,
            header::CONTENT_RANGE,
            header::ACCEPT_RANGES,
            header::CONTENT_LENGTH,
            header::LINK,
            header::LOCATION,
            header::RETRY_AFTER,
            HeaderName::from_static("x-request-id"),
        ])
        .max_age(std::time::Duration::from_secs(600))
}

#[cfg(test)]
mod tests {
    use super::redact_path;

    #[test]
    fn credentials_in_a_path_are_not_logged() {
        assert_eq!(redact_path("/api/v1/collections/parcels/items"), "/api/v1/collections/parcels/items");
        assert_eq!(
            redact_path("/api/v1/collections/parcels/items&access_token=eyJhbGciOi.x.y"),
            "/api/v1/collections/parcels/items&[redacted]"
        );
        assert_eq!(redact_path("/api/v1/eo/mrd_abcdef/x"), "/api/v1/eo/[redacted]");
    }
}
