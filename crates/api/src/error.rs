//! `ApiError`: the one way an HTTP handler fails. It renders as an RFC 7807 problem document and
//! never shows internals for a 5xx.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::problem::{code, Problem, MEDIA_TYPE};
use meridian_core::{DomainError, FieldError};
use meridian_store::StoreError;

tokio::task_local! {
    /// The id of the request being served, for problem documents built deep in a handler.
    pub static REQUEST_ID: String;
}

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    /// Boxed so that `Result<T, ApiError>` stays small on the happy path.
    pub problem: Box<Problem>,
    headers: Vec<(header::HeaderName, HeaderValue)>,
}

impl ApiError {
    /// An error with a status, code, title and detail.
    pub fn new(status: StatusCode, code: &str, title: &str, detail: impl Into<String>) -> Self {
        Self { problem: Box::new(Problem::new(status.as_u16(), code, title, detail)), headers: Vec::new() }
    }

    /// Adds a header to the answer.
    pub fn with_header(mut self, name: header::HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    /// 400: the request could not be parsed.
    pub fn malformed(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code::MALFORMED_REQUEST, "Malformed request", detail)
    }

    /// 422 with field errors.
    pub fn invalid(errors: Vec<FieldError>) -> Self {
        let detail = match errors.as_slice() {
            [one] => one.detail.clone(),
            many => format!("{} fields are invalid", many.len()),
        };
        let mut e = Self::new(StatusCode::UNPROCESSABLE_ENTITY, code::VALIDATION_FAILED, "Validation failed", detail);
        e.problem.errors = errors;
        e
    }

    /// 401 with a `WWW-Authenticate` challenge.
    pub fn unauthenticated(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, code::UNAUTHENTICATED, "Authentication required", detail)
            .with_header(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"meridian\""))
    }

    /// 403.
    pub fn forbidden(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, code::FORBIDDEN, "Forbidden", detail)
    }

    /// 404 for a route that does not exist.
    pub fn no_route(path: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, code::NOT_FOUND, "Not found", format!("there is no resource at {path}"))
    }

    /// 413.
    pub fn too_large(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, code::PAYLOAD_TOO_LARGE, "Payload too large", detail)
    }

    /// 415.
    pub fn unsupported_media_type(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, code::UNSUPPORTED_MEDIA_TYPE, "Unsupported media type", detail)
    }

    /// 500: logs the cause and says nothing about it.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            code::INTERNAL_ERROR,
            "Internal error",
            "the server failed to complete the request; quote the request id when reporting it",
        )
    }

    /// The status.
    pub fn status(&self) -> StatusCode {
        StatusCode::from_u16(self.problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }
}

impl From<DomainError> for ApiError {
    fn from(e: DomainError) -> Self {
        match e {
            DomainError::NotFound { .. } => {
                Self::new(StatusCode::NOT_FOUND, code::NOT_FOUND, "Not found", e.to_string())
            }
            DomainError::Invalid(errors) => Self::invalid(errors),
            DomainError::Conflict { code, detail } => Self::new(StatusCode::CONFLICT, code, "Conflict", detail),
            DomainError::PreconditionFailed(detail) => {
                Self::new(StatusCode::PRECONDITION_FAILED, code::PRECONDITION_FAILED, "Precondition failed", detail)
            }
            DomainError::Disabled(detail) | DomainError::Forbidden(detail) => Self::forbidden(detail),
            DomainError::TooLarge(detail) => Self::too_large(detail),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Domain(d) => d.into(),
            StoreError::Unavailable(cause) => {
                tracing::warn!(error = %cause, "the database or the blob store is unavailable");
                Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    code::STORE_UNAVAILABLE,
                    "Store unavailable",
                    "the database or the blob store cannot be reached now; nothing was changed, retry shortly",
                )
                .with_header(header::RETRY_AFTER, HeaderValue::from_static("1"))
            }
            other => Self::internal(other),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let mut problem = *self.problem;
        if problem.request_id.is_none() {
            problem.request_id = REQUEST_ID.try_with(Clone::clone).ok();
        }
        let body = serde_json::to_vec(&problem).unwrap_or_default();
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(MEDIA_TYPE));
        for (name, value) in self.headers {
            headers.insert(name, value);
        }
        response
    }
}

impl From<meridian_collections::Error> for ApiError {
    fn from(e: meridian_collections::Error) -> Self {
        match e {
            meridian_collections::Error::Domain(d) => d.into(),
            meridian_collections::Error::Store(s) => s.into(),
            meridian_collections::Error::Malformed(detail) => Self::malformed(detail),
            meridian_collections::Error::UnsupportedCrs { param, why } => {
                crate::routes::features::unsupported_crs(&param, &why)
            }
            other => Self::internal(other),
        }
    }
}

impl From<meridian_accounts::Error> for ApiError {
    fn from(e: meridian_accounts::Error) -> Self {
        match e {
            meridian_accounts::Error::Domain(d) => d.into(),
            meridian_accounts::Error::Store(s) => s.into(),
            meridian_accounts::Error::Unauthenticated(why) => Self::unauthenticated(why),
        }
    }
}

impl From<meridian_webhooks::SubscriptionError> for ApiError {
    fn from(e: meridian_webhooks::SubscriptionError) -> Self {
        match e {
            meridian_webhooks::SubscriptionError::Domain(d) => d.into(),
            meridian_webhooks::SubscriptionError::Store(s) => s.into(),
        }
    }
}

/// An area service's error (DEM, earth observation, point clouds, twins) as an answer, mapped
/// once for all: the caller's mistakes keep their status, anything else is a 500 that shows
/// nothing internal.
pub fn area_error<E: meridian_store::AreaError>(e: E) -> ApiError {
    match e.class() {
        meridian_store::ErrorClass::Domain(d) => d.into(),
        meridian_store::ErrorClass::Store(s) => s.into(),
        meridian_store::ErrorClass::Internal(other) => ApiError::internal(other),
    }
}

/// Result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;
