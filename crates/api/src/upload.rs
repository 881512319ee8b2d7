//! Uploads: every area stages a request body (or a multipart part) through here, so the size
//! limit, the staging folder and the answers (413 past `limits.upload_bytes`) are the same
//! everywhere. The bytes go through `meridian_store::staging`.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use axum::extract::multipart::{Field, MultipartError};
use axum::extract::{Multipart, Request};
use axum::http::{header, HeaderMap, StatusCode};
use bytes::Bytes;
use futures::Stream;
use meridian_core::FieldError;
use meridian_store::staging::StageError;

pub use meridian_store::staging::StagedFile;

/// Streams `body` to a staging file, refusing it past `limit` bytes (413); `read_error` turns a
/// failure to read the body (a client gone, a malformed part) into the area's problem.
pub async fn stage<S, E>(
    state: &AppState,
    body: S,
    limit: u64,
    read_error: impl FnOnce(E) -> ApiError,
) -> ApiResult<StagedFile>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    match state.staging.stage(body, limit).await {
        Ok((file, _)) => Ok(file),
        Err(StageError::TooLarge { limit }) => Err(too_large(limit)),
        Err(StageError::Read(e)) => Err(read_error(e)),
        Err(StageError::Io(e)) => Err(ApiError::internal(e)),
    }
}

/// The 413 of an upload past `limit` bytes.
pub fn too_large(limit: u64) -> ApiError {
    ApiError::too_large(format!("the upload is larger than the limit of {limit} bytes (limits.upload_bytes)"))
}

/// The length a request declares (`Content-Length`), if any.
pub fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok())
}

/// A multipart read failure as a problem: 413 past the limit, else 400.
pub fn multipart_error(e: MultipartError) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::too_large("the upload is larger than the configured limit")
    } else {
        ApiError::malformed(format!("the multipart body could not be read: {}", e.body_text()))
    }
}

/// Reads a small text part, refusing it past `limit` bytes.
pub async fn read_small(field: &mut Field<'_>, limit: usize, what: &str) -> ApiResult<Vec<u8>> {
    let mut buf = Vec::new();
    while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
        if buf.len() + chunk.len() > limit {
            return Err(ApiError::too_large(format!(
                "the {what} part is larger than {limit} bytes (limits.body_bytes)"
            )));
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf)
}

/// How much of a refused upload is still read and thrown away, so that the client finishes
/// sending and reads the refusal; past this the connection is simply closed.
pub const DRAIN_LIMIT: u64 = 64 << 20;

/// Reads and discards a refused body whose declared length is at most [`DRAIN_LIMIT`].
pub async fn drain_body(headers: &HeaderMap, req: Request) {
    if declared_length(headers).is_some_and(|n| n <= DRAIN_LIMIT) {
        let mut body = req.into_body();
        while let Some(Ok(_)) = http_body_util::BodyExt::frame(&mut body).await {}
    }
}

/// The media type of a request's body (`Content-Type` without parameters, lower case), or `""`.
pub fn media_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|ct| ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// A refusal that may come before the whole body was read: the connection cannot carry another
/// request then, so the answer says it closes rather than leave the client to find out.
pub fn closing(e: ApiError) -> ApiError {
    e.with_header(header::CONNECTION, axum::http::HeaderValue::from_static("close"))
}

/// Longest file name kept from an upload, in bytes.
pub const MAX_FILENAME_BYTES: usize = 255;

/// A client's file name as it is kept: its last path component, without control characters, at
/// most [`MAX_FILENAME_BYTES`] (cut on a character boundary); none when nothing is left.
pub fn clean_filename(name: &str) -> Option<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let mut out = String::new();
    for c in base.chars().filter(|c| !c.is_control()) {
        if out.len() + c.len_utf8() > MAX_FILENAME_BYTES {
            break;
        }
        out.push(c);
    }
    let out = out.trim().to_owned();
    (!out.is_empty()).then_some(out)
}

/// The `file` part (staged on disk, with its file name) and the `params` part (at most
/// `limits.body_bytes`) of an upload; a repeated or unknown part is a 422.
pub async fn file_and_params(
    state: &AppState,
    multipart: &mut Multipart,
) -> ApiResult<(Option<(StagedFile, Option<String>)>, Option<Vec<u8>>)> {
    let limits = &state.config.limits;
    let mut file = None;
    let mut params = None;
    while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
        let name = field.name().unwrap_or("").to_owned();
        match name.as_str() {
            "file" if file.is_none() => {
                let filename = field.file_name().and_then(clean_filename);
                file = Some((stage(state, &mut field, limits.upload_bytes, multipart_error).await?, filename));
            }
            "params" if params.is_none() => params = Some(read_small(&mut field, limits.body_bytes, "params").await?),
            "file" | "params" => {
                let e = FieldError::new(format!("/{name}"), "duplicate_part", format!("send one `{name}` part"));
                return Err(ApiError::invalid(vec![e]));
            }
            other => {
                let e = FieldError::new(
                    format!("/{}", other.replace('~', "~0").replace('/', "~1")),
                    "unknown_field",
                    format!("unknown part `{other}`; send `file` and `params`"),
                );
                return Err(ApiError::invalid(vec![e]));
            }
        }
    }
    Ok((file, params))
}

/// Reads and discards what is left of a refused multipart body, up to [`DRAIN_LIMIT`].
pub async fn drain(multipart: &mut Multipart) {
    let mut seen = 0u64;
    while let Ok(Some(mut field)) = multipart.next_field().await {
        while let Ok(Some(chunk)) = field.chunk().await {
            seen += chunk.len() as u64;
            if seen > DRAIN_LIMIT {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::clean_filename;

    #[test]
    fn file_names_are_kept_short_and_plain() {
        assert_eq!(clean_filename("survey.laz").as_deref(), Some("survey.laz"));
        assert_eq!(clean_filename("C:\\scans\\a.las").as_deref(), Some("a.las"));
        assert_eq!(clean_filename("../../etc/passwd").as_deref(), Some("passwd"));
        assert_eq!(clean_filename("a\u{0}b\nc.las").as_deref(), Some("abc.las"));
        assert_eq!(clean_filename("x".repeat(2 << 20).as_str()).map(|n| n.len()), Some(255));
        assert_eq!(clean_filename("é".repeat(200).as_str()).map(|n| n.len()), Some(254));
        assert_eq!(clean_filename("dir/"), None);
    }
}
