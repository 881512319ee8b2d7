//! The one ETag scheme of versioned resources: a strong tag `"<prefix><version>"`, where the
//! prefix names the resource (`parcel_…-v` for a feature, `<collection>-` for a collection,
//! nothing for a webhook subscription) and the version is the number the store keeps. `If-Match`
//! takes a list of tags or `*`; an empty header counts as absent; a tag of anything else can never
//! match, so the precondition fails (412).

use crate::error::{ApiError, ApiResult};
use axum::http::{header, HeaderMap, HeaderValue};
use meridian_core::DomainError;

/// The ETag header value of version `version` of the resource that `prefix` names.
pub fn tag(prefix: &str, version: i64) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{prefix}{version}\"")).unwrap_or(HeaderValue::from_static("\"\""))
}

/// The version an `If-Match` header names for the resource `prefix` names: `None` without a
/// header, with an empty one or with `*`.
pub fn expected_version(headers: &HeaderMap, prefix: &str) -> ApiResult<Option<i64>> {
    let Some(value) = headers.get(header::IF_MATCH) else { return Ok(None) };
    let text = value.to_str().unwrap_or("").trim();
    if text.is_empty() || text == "*" {
        return Ok(None);
    }
    text.split(',')
        .map(|t| t.trim().trim_start_matches("W/"))
        .find_map(|t| {
            t.strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .and_then(|t| t.strip_prefix(prefix))
                .and_then(|v| v.parse::<i64>().ok())
        })
        .map(Some)
        .ok_or_else(|| {
            ApiError::from(DomainError::PreconditionFailed(format!(
                "If-Match {text} names no version of this resource"
            )))
        })
}

/// The raw `If-Match` header, for services that keep their own tags (DNS records).
pub fn if_match_text(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::IF_MATCH).and_then(|v| v.to_str().ok()).map(str::trim).filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::IF_MATCH, HeaderValue::from_str(v).unwrap_or(HeaderValue::from_static("")));
        h
    }

    #[test]
    fn tags_round_trip_and_foreign_tags_fail() {
        assert_eq!(tag("parcel_1-v", 3), "\"parcel_1-v3\"");
        assert_eq!(expected_version(&with("\"parcel_1-v3\""), "parcel_1-v").ok(), Some(Some(3)));
        assert_eq!(expected_version(&with("W/\"7\", \"8\""), "").ok(), Some(Some(7)));
        assert_eq!(expected_version(&with("*"), "x-").ok(), Some(None));
        assert_eq!(expected_version(&with(""), "x-").ok(), Some(None));
        assert_eq!(expected_version(&HeaderMap::new(), "x-").ok(), Some(None));
        assert!(expected_version(&with("\"parcel_2-v3\""), "parcel_1-v").is_err());
        assert!(expected_version(&with("\"abc\""), "").is_err());
    }
}
