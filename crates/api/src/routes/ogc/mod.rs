//! The OGC classic services under `/api/v1/ogc`: WMS 1.3.0 (`wms.rs`), WMTS 1.0.0 (`wmts.rs`)
//! and WFS 2.0 (`wfs.rs`). `meridian_ogc::OgcService` and `meridian_ogc::wfs::WfsService` do the
//! work; these routes hand it the raw query
//! string, the caller's account and where links should point, and copy its reply out. Errors
//! are the services' own exception reports (XML), never problem documents, except for
//! authentication, which runs before.

pub mod wfs;
pub mod wms;
pub mod wmts;

use crate::state::AppState;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_ogc::{Context, Reply};
use utoipa_axum::router::OpenApiRouter;

/// Every OGC classic service route. Their answers may be read by a web map on any origin
/// (`Access-Control-Allow-Origin: *`): they are requested with an `access_token` in the URL or a
/// header the page sets itself, never with cookies, so no other site can borrow a session.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(wms::router())
        .merge(wmts::router())
        .merge(wfs::router())
        .layer(axum::middleware::map_response(allow_any_origin))
}

async fn allow_any_origin(mut r: Response) -> Response {
    r.headers_mut().entry(header::ACCESS_CONTROL_ALLOW_ORIGIN).or_insert(HeaderValue::from_static("*"));
    r
}

/// The links' base and the access token of the query string, if the request carried one.
pub(crate) fn context(state: &AppState, headers: &HeaderMap, query: Option<&str>) -> Context {
    let access_token = query.and_then(crate::auth::query_token);
    Context { base_url: crate::paging::base_url(state, headers), access_token }
}

/// A reply as a response, with `ETag`/`Cache-Control` when it has them and a 304 for a
/// matching `If-None-Match`.
pub(crate) fn respond(reply: Reply, headers: &HeaderMap) -> Response {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::BAD_REQUEST);
    let content_type = HeaderValue::from_str(&reply.content_type)
        .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream"));
    let mut out = Vec::with_capacity(3);
    out.push((header::CONTENT_TYPE, content_type));
    if let Some(age) = reply.max_age {
        if let Ok(v) = HeaderValue::from_str(&format!("private, max-age={}", age.as_secs())) {
            out.push((header::CACHE_CONTROL, v));
        }
    }
    if let Some(etag) = reply.etag.as_deref().and_then(|e| HeaderValue::from_str(e).ok()) {
        let fresh = headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim() == "*" || t.trim().trim_start_matches("W/") == reply.etag.as_deref().unwrap_or(""))
        });
        out.push((header::ETAG, etag));
        if fresh && status == StatusCode::OK {
            out.retain(|(h, _)| h != header::CONTENT_TYPE);
            let mut r = StatusCode::NOT_MODIFIED.into_response();
            for (h, v) in out {
                r.headers_mut().insert(h, v);
            }
            return r;
        }
    }
    let mut r = (status, reply.body).into_response();
    for (h, v) in out {
        r.headers_mut().insert(h, v);
    }
    r
}
