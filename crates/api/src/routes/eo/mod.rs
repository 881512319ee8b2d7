//! `/api/v1/eo`: the STAC API (landing page, conformance, queryables, collections, items, item
//! search), scene uploads, spectral indices with zonal statistics, and index tiles. Each handler
//! extracts, calls [`meridian_eo::EoService`] and shapes the answer.

mod catalog;
mod compute;
mod items;
mod search;

use crate::error::ApiError;
use crate::state::AppState;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::FieldError;
use meridian_eo::stac::Links;
use serde_json::Value;
use utoipa_axum::router::OpenApiRouter;

/// Routes under `/api/v1/eo`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(catalog::router())
        .merge(items::router())
        .merge(search::router())
        .merge(compute::router())
}

/// Links of answers, on `server.public_url` or the request's host.
pub(crate) fn links(state: &AppState, headers: &HeaderMap) -> Links {
    Links { base: crate::paging::base_url(state, headers) }
}

/// A JSON document with its media type.
pub(crate) fn document(status: StatusCode, media_type: &'static str, body: &Value) -> Response {
    let mut r = (status, body.to_string()).into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(media_type));
    r
}

/// A body that must be a JSON object (an Item, a Collection, a merge patch): 422 otherwise,
/// before any precondition is looked at.
pub(crate) fn object_body(body: &Value) -> Result<(), ApiError> {
    if body.is_object() {
        Ok(())
    } else {
        Err(ApiError::invalid(vec![FieldError::new("", "invalid_type", "the body is a JSON object")]))
    }
}

/// Bad query parameters or search members: 400, each with its pointer.
pub(crate) fn bad_request(errors: Vec<FieldError>) -> ApiError {
    let detail = match errors.as_slice() {
        [one] => format!("{}: {}", one.pointer.trim_start_matches('/'), one.detail),
        many => format!("{} parameters are invalid", many.len()),
    };
    let mut e = ApiError::new(StatusCode::BAD_REQUEST, "invalid_parameter", "Invalid search parameter", detail);
    e.problem.errors = errors;
    e
}
