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

/// The stable problem codes. Use these constants rather than string literals; each one is in
/// [`REGISTRY`], which `/docs/problems` publishes (a test fails on a code used in the source
/// but missing from the registry).
pub mod code {
    /// `malformed_request`.
    pub const MALFORMED_REQUEST: &str = "malformed_request";
    /// `invalid_parameter`.
    pub const INVALID_PARAMETER: &str = "invalid_parameter";
    /// `unknown_parameter`.
    pub const UNKNOWN_PARAMETER: &str = "unknown_parameter";
    /// `repeated_parameter`.
    pub const REPEATED_PARAMETER: &str = "repeated_parameter";
    /// `invalid_bbox`.
    pub const INVALID_BBOX: &str = "invalid_bbox";
    /// `invalid_datetime`.
    pub const INVALID_DATETIME: &str = "invalid_datetime";
    /// `invalid_filter`.
    pub const INVALID_FILTER: &str = "invalid_filter";
    /// `unsupported_crs`.
    pub const UNSUPPORTED_CRS: &str = "unsupported_crs";
    /// `unauthenticated`.
    pub const UNAUTHENTICATED: &str = "unauthenticated";
    /// `forbidden`.
    pub const FORBIDDEN: &str = "forbidden";
    /// `signup_closed`.
    pub const SIGNUP_CLOSED: &str = "signup_closed";
    /// `not_found`.
    pub const NOT_FOUND: &str = "not_found";
    /// `method_not_allowed`.
    pub const METHOD_NOT_ALLOWED: &str = "method_not_allowed";
    /// `conflict`.
    pub const CONFLICT: &str = "conflict";
    /// `email_taken`.
    pub const EMAIL_TAKEN: &str = "email_taken";
    /// `delivery_in_flight`.
    pub const DELIVERY_IN_FLIGHT: &str = "delivery_in_flight";
    /// `subscription_paused`.
    pub const SUBSCRIPTION_PAUSED: &str = "subscription_paused";
    /// `zone_exists`.
    pub const ZONE_EXISTS: &str = "zone_exists";
    /// `duplicate_record`.
    pub const DUPLICATE_RECORD: &str = "duplicate_record";
    /// `cname_conflict`.
    pub const CNAME_CONFLICT: &str = "cname_conflict";
    /// `collection_exists`.
    pub const COLLECTION_EXISTS: &str = "collection_exists";
    /// `collection_protected`.
    pub const COLLECTION_PROTECTED: &str = "collection_protected";
    /// `parcel_exists`.
    pub const PARCEL_EXISTS: &str = "parcel_exists";
    /// `item_exists`.
    pub const ITEM_EXISTS: &str = "item_exists";
    /// `ambiguous_scene`.
    pub const AMBIGUOUS_SCENE: &str = "ambiguous_scene";
    /// `dataset_in_use`.
    pub const DATASET_IN_USE: &str = "dataset_in_use";
    /// `point_cloud_not_ready`.
    pub const POINT_CLOUD_NOT_READY: &str = "point_cloud_not_ready";
    /// `point_cloud_busy`.
    pub const POINT_CLOUD_BUSY: &str = "point_cloud_busy";
    /// `upgrade_required`.
    pub const UPGRADE_REQUIRED: &str = "upgrade_required";
    /// `twin_build_failed`.
    pub const TWIN_BUILD_FAILED: &str = "twin_build_failed";
    /// `sensor_exists`.
    pub const SENSOR_EXISTS: &str = "sensor_exists";
    /// `job_finished`.
    pub const JOB_FINISHED: &str = "job_finished";
    /// `job_not_succeeded`.
    pub const JOB_NOT_SUCCEEDED: &str = "job_not_succeeded";
    /// `upload_gone`.
    pub const UPLOAD_GONE: &str = "upload_gone";
    /// `precondition_failed`.
    pub const PRECONDITION_FAILED: &str = "precondition_failed";
    /// `payload_too_large`.
    pub const PAYLOAD_TOO_LARGE: &str = "payload_too_large";
    /// `uri_too_long`.
    pub const URI_TOO_LONG: &str = "uri_too_long";
    /// `headers_too_large`.
    pub const HEADERS_TOO_LARGE: &str = "headers_too_large";
    /// `unsupported_media_type`.
    pub const UNSUPPORTED_MEDIA_TYPE: &str = "unsupported_media_type";
    /// `range_not_satisfiable`.
    pub const RANGE_NOT_SATISFIABLE: &str = "range_not_satisfiable";
    /// `validation_failed`.
    pub const VALIDATION_FAILED: &str = "validation_failed";
    /// `raster_too_large`.
    pub const RASTER_TOO_LARGE: &str = "raster_too_large";
    /// `invalid_raster`.
    pub const INVALID_RASTER: &str = "invalid_raster";
    /// `job_input_invalid`.
    pub const JOB_INPUT_INVALID: &str = "job_input_invalid";
    /// `rate_limited`.
    pub const RATE_LIMITED: &str = "rate_limited";
    /// `internal_error`.
    pub const INTERNAL_ERROR: &str = "internal_error";
    /// `job_abandoned`.
    pub const JOB_ABANDONED: &str = "job_abandoned";
    /// `unavailable`.
    pub const UNAVAILABLE: &str = "unavailable";
    /// `deadline_exceeded`.
    pub const DEADLINE_EXCEEDED: &str = "deadline_exceeded";
    /// `server_busy`.
    pub const SERVER_BUSY: &str = "server_busy";
    /// `store_unavailable`.
    pub const STORE_UNAVAILABLE: &str = "store_unavailable";
}

/// Every problem code the platform uses, with its status and a sentence for the docs.
pub const REGISTRY: &[(&str, u16, &str)] = &[
    (code::MALFORMED_REQUEST, 400, "The body or a parameter could not be parsed (malformed JSON, a query parameter of the wrong type)."),
    (code::INVALID_PARAMETER, 400, "A query parameter has a value the operation does not accept (`errors` names it); for example `f=xml` or an unknown `sortby` property."),
    (code::UNKNOWN_PARAMETER, 400, "The query names a parameter the operation does not have."),
    (code::REPEATED_PARAMETER, 400, "A query parameter that takes one value was given more than once."),
    (code::INVALID_BBOX, 400, "`bbox` is not four (or six) numbers with minimums below maximums, or cannot be transformed to CRS84."),
    (code::INVALID_DATETIME, 400, "`datetime` is not an RFC 3339 instant or an interval of two (`..` for an open end)."),
    (code::INVALID_FILTER, 400, "`filter` is not valid CQL2 (text or JSON as `filter-lang` says) or names a property the collection does not have."),
    (code::UNSUPPORTED_CRS, 400, "`crs`, `bbox-crs` or `Content-Crs` names a coordinate reference system Meridian cannot transform; the detail lists the supported ones."),
    (code::UNAUTHENTICATED, 401, "No credentials, or credentials that are unknown, revoked or expired."),
    (code::FORBIDDEN, 403, "The key's scopes do not allow this operation, or the operation is switched off."),
    (code::SIGNUP_CLOSED, 403, "This server does not accept self-service sign-up; its operator creates accounts (`meridian account create`)."),
    (code::NOT_FOUND, 404, "No such resource for this account, or no such route."),
    (code::METHOD_NOT_ALLOWED, 405, "The route exists but not with this method; `Allow` lists the methods it has."),
    (code::CONFLICT, 409, "The change conflicts with existing state (a duplicate, a name already taken)."),
    (code::EMAIL_TAKEN, 409, "An account with this email address already exists."),
    (code::DELIVERY_IN_FLIGHT, 409, "The webhook delivery is waiting for or making an attempt; redeliver it once it ended."),
    (code::SUBSCRIPTION_PAUSED, 409, "The webhook subscription is paused; set its status to active first."),
    (code::ZONE_EXISTS, 409, "A DNS zone with this name is already hosted (by this or another account), or overlaps one hosted by another account."),
    (code::DUPLICATE_RECORD, 409, "The zone already has a DNS record with this name, type and content."),
    (code::CNAME_CONFLICT, 409, "A CNAME may not share its name with other records, nor sit at the zone apex."),
    (code::COLLECTION_EXISTS, 409, "A feature collection with this id already exists for the account."),
    (code::COLLECTION_PROTECTED, 409, "The cadastre's parcels collection cannot be deleted: parcels are retired one by one and keep their history."),
    (code::PARCEL_EXISTS, 409, "A parcel with this lot on this plan already exists; lot and plan identify a parcel."),
    (code::ITEM_EXISTS, 409, "The EO collection already holds an item with this id; replace it with PUT or choose another id."),
    (code::AMBIGUOUS_SCENE, 409, "Items of several EO collections have this id; name the scene as `collection/item`."),
    (code::DATASET_IN_USE, 409, "A running job reads this DEM dataset; cancel the job or wait for it to finish before deleting the dataset."),
    (code::POINT_CLOUD_NOT_READY, 409, "The point cloud is still being indexed, or its indexing failed: it cannot be classified or downloaded yet (its `status` says which)."),
    (code::UPGRADE_REQUIRED, 426, "The address is a WebSocket: connect with `Upgrade: websocket` (a WebSocket client), not a plain request."),
    (code::TWIN_BUILD_FAILED, 422, "A twin's tileset could not be built from its definition (too many parcels in its area, or its DEM is gone); its `error` says why."),
    (code::SENSOR_EXISTS, 409, "The twin already has a sensor with this id; choose another id or delete that sensor first."),
    (code::POINT_CLOUD_BUSY, 409, "A classification of this point cloud is queued or running; wait for it or cancel its job before classifying again or deleting the point cloud."),
    (code::JOB_FINISHED, 409, "The job already ended (succeeded, failed or cancelled), so it cannot be cancelled."),
    (code::JOB_NOT_SUCCEEDED, 409, "The job has not succeeded (yet), so it has no outputs to download, render or build on."),
    (code::UPLOAD_GONE, 410, "In a job's `error`: the uploaded file the job was to read is no longer stored; upload it again."),
    (code::PRECONDITION_FAILED, 412, "`If-Match` named an ETag that is no longer current."),
    (code::PAYLOAD_TOO_LARGE, 413, "The body or upload is larger than the configured limit."),
    (code::URI_TOO_LONG, 414, "The request's URI is longer than 65,534 bytes; send long parameters (a filter, a geometry) in a POST body."),
    (code::UNSUPPORTED_MEDIA_TYPE, 415, "The body's `Content-Type` is not one this operation accepts."),
    (code::RANGE_NOT_SATISFIABLE, 416, "The `Range` asked for lies wholly past the end of the file; `Content-Range` gives its size."),
    (code::HEADERS_TOO_LARGE, 431, "The request's head (its headers) is larger than the server reads."),
    (code::VALIDATION_FAILED, 422, "The body parsed but broke rules; `errors` lists each field with a JSON pointer."),
    (code::RASTER_TOO_LARGE, 422, "The GeoTIFF declares more pixels, bytes per tile or strip, or tiles than the `dem.max_*` limits allow (as a field error at `/file`, or a job's `error`)."),
    (code::INVALID_RASTER, 422, "The GeoTIFF's data cannot be decoded, e.g. a tile that inflates past its declared size (as a field error at `/file`; in a job's `error` it is `job_input_invalid`)."),
    (code::JOB_INPUT_INVALID, 422, "A job's input could not be processed (in a job's `error`: for example a GeoTIFF whose data cannot be decoded)."),
    (code::RATE_LIMITED, 429, "The key used up its request budget for this API area; wait `Retry-After` seconds."),
    (code::INTERNAL_ERROR, 500, "Something failed on the server; the request id lets operators find it in the logs."),
    (code::JOB_ABANDONED, 500, "In a job's `error`: every allowed attempt (`jobs.max_attempts`) ended with its worker stopping (a crash) or a passing error, so the job is not tried again."),
    (code::UNAVAILABLE, 503, "The server is starting, draining or cannot reach its store."),
    (code::DEADLINE_EXCEEDED, 503, "The request ran past `server.request_timeout`; its work was cancelled. Narrow the request or retry later."),
    (code::STORE_UNAVAILABLE, 503, "The database or the blob store cannot be reached now (it is restarting or unreachable, or every database connection of the pool is busy past `storage.acquire_timeout`); nothing was changed. Retry after `Retry-After` seconds."),
    (code::SERVER_BUSY, 503, "The server holds as many HTTP connections as it allows (`server.max_connections`, or `server.max_connections_per_ip` from this address); the connection was closed. Retry shortly."),
];

/// The registry entry of `code`: its status and meaning.
pub fn lookup(code: &str) -> Option<(u16, &'static str)> {
    REGISTRY.iter().find(|(c, _, _)| *c == code).map(|(_, status, meaning)| (*status, *meaning))
}
