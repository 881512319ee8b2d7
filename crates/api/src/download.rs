//! Downloads of stored files (job outputs today; scene assets and point clouds next): `ETag` with
//! `If-None-Match` (304), single byte ranges (206, `Content-Range`, 416 past the end),
//! `Content-Length`, `Accept-Ranges`, `Content-Disposition`, streamed from the blob store.

use crate::error::{ApiError, ApiResult};
use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::problem::code;
use meridian_store::blobs::ByteRange;
use meridian_store::BlobStore;

/// A stored file to serve.
pub struct Download<'a> {
    pub store: &'a BlobStore,
    pub key: &'a str,
    /// The file's size as recorded when it was written.
    pub size: u64,
    pub media_type: &'a str,
    /// A strong ETag (quoted) that changes whenever the file does.
    pub etag: &'a str,
    /// The name offered to save it as.
    pub filename: &'a str,
    pub cache_control: &'static str,
}

/// A single-range `Range: bytes=...` header; several ranges or a malformed one are ignored (the
/// whole file is served), as RFC 9110 allows.
pub fn parse_range(headers: &HeaderMap) -> Option<ByteRange> {
    let v = headers.get(header::RANGE)?.to_str().ok()?.trim();
    let spec = v.strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (a, b) = (a.trim(), b.trim());
    match (a.is_empty(), b.is_empty()) {
        (true, false) => Some(ByteRange::Suffix(b.parse().ok()?)),
        (false, true) => Some(ByteRange::From(a.parse().ok()?)),
        (false, false) => {
            let (start, end): (u64, u64) = (a.parse().ok()?, b.parse().ok()?);
            (end >= start).then(|| ByteRange::Bounded(start..end.saturating_add(1)))
        }
        (true, true) => None,
    }
}

/// Serves `d` for a request with `headers`.
pub async fn serve(d: Download<'_>, headers: &HeaderMap) -> ApiResult<Response> {
    let etag_value = HeaderValue::from_str(d.etag).map_err(ApiError::internal)?;
    let not_modified = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == "*" || t.trim().trim_start_matches("W/") == d.etag));
    if not_modified {
        return Ok((StatusCode::NOT_MODIFIED, [(header::ETAG, etag_value)]).into_response());
    }
    let range = match parse_range(headers) {
        None => None,
        Some(r) => match r.clamp(d.size) {
            Some(r) => Some(r),
            None => {
                let unsatisfiable =
                    HeaderValue::from_str(&format!("bytes */{}", d.size)).map_err(ApiError::internal)?;
                return Ok(ApiError::new(
                    StatusCode::RANGE_NOT_SATISFIABLE,
                    code::RANGE_NOT_SATISFIABLE,
                    "Range not satisfiable",
                    format!("the file has {} bytes", d.size),
                )
                .with_header(header::CONTENT_RANGE, unsatisfiable)
                .into_response());
            }
        },
    };
    let ranged = range.is_some();
    let read =
        d.store.read(d.key, range).await?.ok_or_else(|| ApiError::internal(format!("blob {} is missing", d.key)))?;
    let mut response = Response::new(Body::from_stream(read.stream));
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_str(d.media_type).map_err(ApiError::internal)?);
    h.insert(header::ETAG, etag_value);
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(d.cache_control));
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(read.served.end - read.served.start));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{}\"", d.filename)) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    if ranged {
        let v = format!("bytes {}-{}/{}", read.served.start, read.served.end.saturating_sub(1), read.total);
        h.insert(header::CONTENT_RANGE, HeaderValue::from_str(&v).map_err(ApiError::internal)?);
        *response.status_mut() = StatusCode::PARTIAL_CONTENT;
    }
    Ok(response)
}

/// Serves a file written for one request (a filtered export): `Content-Length`, no `ETag` or
/// ranges (nothing else will ever have these bytes). `file` is held until the body has been sent
/// or the client went away, then dropped: a temporary path (the services hand out
/// `tempfile::TempPath`) deletes its file then.
pub async fn serve_file<F>(file: F, size: u64, media_type: &str, filename: &str) -> ApiResult<Response>
where
    F: AsRef<std::path::Path> + Send + Sync + 'static,
{
    let opened = tokio::fs::File::open(file.as_ref()).await.map_err(ApiError::internal)?;
    let stream = tokio_util::io::ReaderStream::new(opened);
    // The path lives as long as the stream: dropping the body removes the file.
    let keep = std::sync::Arc::new(file);
    let stream = futures::StreamExt::map(stream, move |chunk| {
        let _ = &keep;
        chunk
    });
    let mut response = Response::new(Body::from_stream(stream));
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_str(media_type).map_err(ApiError::internal)?);
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(size));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_range(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::RANGE, HeaderValue::from_str(v).unwrap_or(HeaderValue::from_static("")));
        h
    }

    #[test]
    fn ranges_are_parsed_and_clamped_as_rfc_9110_says() {
        assert_eq!(parse_range(&with_range("bytes=0-99")), Some(ByteRange::Bounded(0..100)));
        assert_eq!(parse_range(&with_range("bytes=100-")), Some(ByteRange::From(100)));
        assert_eq!(parse_range(&with_range("bytes=-5")), Some(ByteRange::Suffix(5)));
        assert_eq!(parse_range(&with_range("bytes=5-1")), None);
        assert_eq!(parse_range(&with_range("bytes=0-1,4-5")), None);
        assert_eq!(parse_range(&with_range("items=0-1")), None);
        assert_eq!(ByteRange::Bounded(10..1000).clamp(50), Some(ByteRange::Bounded(10..50)));
        assert_eq!(ByteRange::From(50).clamp(50), None);
        assert_eq!(ByteRange::Suffix(80).clamp(50), Some(ByteRange::Suffix(50)));
        assert_eq!(ByteRange::Suffix(0).clamp(50), None);
    }
}
