//! RFC 7807 problem documents, the one error shape of every Meridian API.

use crate::error::FieldError;
use serde::{Deserialize, Serialize};

/// The media type of a problem document.
pub const MEDIA_TYPE: &str = "application/problem+json";

/// An RFC 7807 problem document with Meridian's extensions `code`, `errors` and `request_id`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Problem {
    /// A URI reference naming the kind of problem; `/docs/problems#<code>` explains it.
    #[serde(rename = "type")]
    pub type_uri: String,
    /// Short summary of the kind of problem.
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What happened on this occasion.
    pub detail: String,
    /// Stable machine-readable code, e.g. `validation_failed`.
    pub code: String,
    /// One entry per invalid field.
    pub errors: Vec<FieldError>,
    /// The request's identifier, as echoed in `X-Request-Id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

impl Problem {
    /// A problem with no field errors.
    pub fn new(status: u16, code: &str, title: &str, detail: impl Into<String>) -> Self {
        Self {
            type_uri: type_uri(code),
            title: title.to_owned(),
            status,
            detail: detail.into(),
            code: code.to_owned(),
            errors: Vec::new(),
            request_id: None,
        }
    }

    /// Adds field errors.
    pub fn with_errors(mut self, errors: Vec<FieldError>) -> Self {
        self.errors = errors;
        self
    }
}

/// The `type` URI for a code.
pub fn type_uri(code: &str) -> String {
    format!("/docs/problems#{code}")
}

/// Every problem code the platform uses, with its status and a sentence for the docs.
pub const CATALOGUE: &[(&str, u16, &str)] = &[
    (
        "malformed_request",
        400,
        "The body or a parameter could not be parsed (malformed JSON, a query parameter of the wrong type).",
    ),
    ("unauthenticated", 401, "No credentials, or credentials that are unknown, revoked or expired."),
    ("forbidden", 403, "The key's scopes do not allow this operation, or the operation is switched off."),
    ("not_found", 404, "No such resource for this account, or no such route."),
    ("method_not_allowed", 405, "The route exists but not with this method; `Allow` lists the methods it has."),
    ("conflict", 409, "The change conflicts with existing state (a duplicate, a name already taken)."),
    ("delivery_in_flight", 409, "The webhook delivery is waiting for or making an attempt; redeliver it once it ended."),
    ("subscription_paused", 409, "The webhook subscription is paused; set its status to active first."),
    ("zone_exists", 409, "A DNS zone with this name is already hosted (by this or another account), or overlaps one hosted by another account."),
    ("duplicate_record", 409, "The zone already has a DNS record with this name, type and content."),
    ("cname_conflict", 409, "A CNAME may not share its name with other records, nor sit at the zone apex."),
    ("job_finished", 409, "The job already ended (succeeded, failed or cancelled), so it cannot be cancelled."),
    ("job_not_succeeded", 409, "The job has not succeeded (yet), so it has no outputs to download, render or build on."),
    ("precondition_failed", 412, "`If-Match` named an ETag that is no longer current."),
    ("payload_too_large", 413, "The body or upload is larger than the configured limit."),
    ("unsupported_media_type", 415, "The body's `Content-Type` is not one this operation accepts."),
    ("range_not_satisfiable", 416, "The `Range` asked for lies wholly past the end of the file; `Content-Range` gives its size."),
    ("validation_failed", 422, "The body parsed but broke rules; `errors` lists each field with a JSON pointer."),
    ("raster_too_large", 422, "The GeoTIFF declares more pixels, bytes per tile or strip, or tiles than the `dem.max_*` limits allow (as a field error at `/file`, or a job's `error`)."),
    ("invalid_raster", 422, "The GeoTIFF's data cannot be decoded, e.g. a tile that inflates past its declared size (as a field error at `/file`; in a job's `error` it is `job_input_invalid`)."),
    ("job_input_invalid", 422, "A job's input could not be processed (in a job's `error`: for example a GeoTIFF whose data cannot be decoded)."),
    ("rate_limited", 429, "The key used up its request budget for this API area; wait `Retry-After` seconds."),
    ("internal_error", 500, "Something failed on the server; the request id lets operators find it in the logs."),
    ("job_abandoned", 500, "In a job's `error`: every allowed attempt (`jobs.max_attempts`) ended with its worker stopping (a crash) or a passing error, so the job is not tried again."),
    ("unavailable", 503, "The server is starting, draining or cannot reach its store."),
];
