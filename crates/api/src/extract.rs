//! Extractors whose rejections are problem documents: JSON bodies (400 for syntax, 422 with a
//! JSON pointer for data, 413 past the limit, 415 for another media type), query strings and
//! path parameters.

use crate::error::ApiError;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use meridian_core::FieldError;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A JSON request body, or a JSON response.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json<T>(pub T);

/// Whether a Content-Type is JSON (`application/json` or `application/*+json`).
pub fn is_json(content_type: Option<&str>) -> bool {
    let Some(ct) = content_type else { return false };
    let essence = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// Converts a `serde_path_to_error` path into a JSON pointer.
fn pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        out.push('/');
        match seg {
            Segment::Seq { index } => out.push_str(&index.to_string()),
            Segment::Map { key } | Segment::Enum { variant: key } => out.push_str(&escape(key)),
            Segment::Unknown => out.push('?'),
        }
    }
    out
}

/// A JSON pointer token: `~` and `/` escaped.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The JSON pointer of a field that `serde_ignored` reports as skipped.
fn ignored_pointer(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}/{index}", ignored_pointer(parent)),
        Path::Map { parent, key } => format!("{}/{}", ignored_pointer(parent), escape(key)),
        Path::Some { parent } | Path::NewtypeStruct { parent } | Path::NewtypeVariant { parent } => {
            ignored_pointer(parent)
        }
    }
}

/// Parses JSON text into `T`, telling syntax errors (400) from data errors (422 with a pointer).
///
/// Unknown fields are refused the same way everywhere: `422` with code `unknown_field` and the
/// pointer of the field, whether or not `T` says `deny_unknown_fields` (fields a type would
/// silently skip are reported by `serde_ignored`).
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let mut ignored = Vec::new();
    let mut record = |path: serde_ignored::Path<'_>| ignored.push(ignored_pointer(&path));
    let parsed = serde_path_to_error::deserialize(serde_ignored::Deserializer::new(&mut de, &mut record));
    match parsed {
        Ok(v) => {
            de.end().map_err(|e| ApiError::malformed(format!("the body is not valid JSON: {e}")))?;
            if !ignored.is_empty() {
                return Err(ApiError::invalid(ignored.into_iter().map(unknown_field).collect()));
            }
            Ok(v)
        }
        Err(e) => {
            let inner = e.inner();
            if inner.is_syntax() || inner.is_eof() || inner.is_io() {
                Err(ApiError::malformed(format!("the body is not valid JSON: {inner}")))
            } else {
                let mut at = pointer(e.path());
                let detail = inner.to_string();
                // serde names a missing field in the message, with the path of its parent; an
                // unknown field's path already ends with the field itself.
                if detail.starts_with("missing field") {
                    if let Some(name) = detail.split('`').nth(1) {
                        at = format!("{at}/{}", escape(name));
                    }
                }
                let code = if detail.starts_with("missing field") {
                    "required"
                } else if detail.starts_with("unknown field") {
                    "unknown_field"
                } else {
                    "invalid_type"
                };
                Err(ApiError::invalid(vec![FieldError::new(at, code, strip_position(&detail))]))
            }
        }
    }
}

fn unknown_field(at: String) -> FieldError {
    let name = at.rsplit('/').next().unwrap_or_default().replace("~1", "/").replace("~0", "~");
    FieldError::new(at, "unknown_field", format!("unknown field `{name}`"))
}

fn strip_position(detail: &str) -> String {
    match detail.find(" at line ") {
        Some(i) => detail[..i].to_owned(),
        None => detail.to_owned(),
    }
}

/// Maps the body-buffering rejection: past the limit is 413, anything else 400.
pub fn body_rejection(rejection: axum::extract::rejection::BytesRejection) -> ApiError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::too_large("the request body is larger than the configured limit")
    } else {
        ApiError::malformed(format!("the request body could not be read: {}", rejection.body_text()))
    }
}

impl<T, S> FromRequest<S> for Json<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let content_type = req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_owned);
        if !is_json(content_type.as_deref()) {
            return Err(ApiError::unsupported_media_type(format!(
                "expected Content-Type: application/json, got {}",
                content_type.as_deref().unwrap_or("none")
            )));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(body_rejection)?;
        parse_json(&bytes).map(Json)
    }
}

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

/// A query string parsed into `T`; errors are 400 naming the parameter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Query<T>(pub T);

impl<T, S> FromRequestParts<S> for Query<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or("");
        let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(de).map(Query).map_err(|e| {
            let name = e.path().to_string();
            let mut err = ApiError::malformed(format!("query parameter {}: {}", name, e.inner()));
            err.problem.errors = vec![FieldError::new(
                format!("/{}", name.trim_start_matches('.')),
                "invalid_parameter",
                e.inner().to_string(),
            )];
            err
        })
    }
}

/// Path parameters; a mismatch is 404 (the resource cannot exist).
#[derive(Debug, Clone, Copy, Default)]
pub struct Path<T>(pub T);

impl<T, S> FromRequestParts<S> for Path<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(v)) => Ok(Path(v)),
            Err(_) => Err(ApiError::no_route(parts.uri.path())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Body {
        name: String,
        items: Vec<Item>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Item {
        ttl: u32,
    }

    #[test]
    fn syntax_errors_are_400_and_data_errors_point_at_the_field() {
        let e = parse_json::<Body>(b"{\"name\": ").err().map(|e| e.problem.status);
        assert_eq!(e, Some(400));
        let e = parse_json::<Body>(br#"{"name":"a","items":[{"ttl":1},{"ttl":"x"}]}"#).err();
        let p = e.map(|e| e.problem).map(|p| (p.status, p.errors[0].pointer.clone()));
        assert_eq!(p, Some((422, "/items/1/ttl".to_owned())));
        let e = parse_json::<Body>(br#"{"items":[]}"#).err().map(|e| e.problem.errors[0].clone());
        assert_eq!(e.map(|f| (f.code, f.pointer)), Some(("required".to_owned(), "/name".to_owned())));
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        name: String,
        items: Vec<StrictItem>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct StrictItem {
        ttl: u32,
    }

    fn unknown(body: &[u8], parse: fn(&[u8]) -> Result<(), ApiError>) -> Option<(u16, String, String)> {
        parse(body).err().map(|e| {
            let p = e.problem;
            (p.status, p.errors[0].code.clone(), p.errors[0].pointer.clone())
        })
    }

    #[test]
    fn unknown_fields_are_422_with_one_pointer_whether_or_not_the_type_denies_them() {
        let strict: fn(&[u8]) -> Result<(), ApiError> = |b| parse_json::<Strict>(b).map(drop);
        let lenient: fn(&[u8]) -> Result<(), ApiError> = |b| parse_json::<Body>(b).map(drop);
        for parse in [strict, lenient] {
            let e = unknown(br#"{"name":"a","items":[],"extra":1}"#, parse);
            assert_eq!(e, Some((422, "unknown_field".to_owned(), "/extra".to_owned())));
            let e = unknown(br#"{"name":"a","items":[{"ttl":1},{"ttl":2,"a/b":true}]}"#, parse);
            assert_eq!(e, Some((422, "unknown_field".to_owned(), "/items/1/a~1b".to_owned())));
        }
        assert!(parse_json::<Body>(br#"{"name":"a","items":[{"ttl":1}]}"#).is_ok());
    }

    #[test]
    fn json_media_types() {
        assert!(is_json(Some("application/json; charset=utf-8")));
        assert!(is_json(Some("application/merge-patch+json")));
        assert!(!is_json(Some("text/plain")));
        assert!(!is_json(None));
    }
}

/// The client's address, when the server knows it (it does over TCP, not in router tests).
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub Option<std::net::IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let info = parts.extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>();
        Ok(ClientAddr(info.map(|c| c.0.ip())))
    }
}

/// The request's cancellation token, cancelled when the request's deadline
/// (`server.request_timeout`) passes, when the client disconnects, and at shutdown once
/// `server.shutdown_grace` is over.
///
/// Async handlers are cancelled by having their future dropped and need nothing. Work that runs
/// on its own (`spawn_blocking`, rayon, spawned tasks) does not stop with the future: take this
/// extractor and check [`RequestCancel::is_cancelled`] between units of work (every row, tile or
/// feature), returning early when it is set. The answer no longer matters then; the point is to
/// free the thread.
#[derive(Debug, Clone, Default)]
pub struct RequestCancel(pub tokio_util::sync::CancellationToken);

/// What counts the request's connection against the server's connection caps (put in every
/// request's extensions by the listener). A route that takes the connection over (a WebSocket
/// upgrade) keeps a clone for as long as it uses the socket, so the socket stays counted.
#[derive(Clone)]
pub struct ConnectionHold(pub std::sync::Arc<dyn std::any::Any + Send + Sync>);

impl std::fmt::Debug for ConnectionHold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ConnectionHold")
    }
}

impl RequestCancel {
    /// Whether the request's work should stop.
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }

    /// The token itself, to hand to other threads or to `select!` on.
    pub fn token(&self) -> &tokio_util::sync::CancellationToken {
        &self.0
    }
}

impl<S: Send + Sync> FromRequestParts<S> for RequestCancel {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        // Outside the router's layers (a handler called directly) nothing cancels: a fresh token.
        Ok(parts.extensions.get::<RequestCancel>().cloned().unwrap_or_default())
    }
}

/// Whether an `Accept` header asks for HTML before JSON (a browser's does; a client that names
/// an `application/` type first does not).
pub fn prefers_html(accept: &str) -> bool {
    accept.contains("text/html") && !accept.trim_start().starts_with("application/")
}
