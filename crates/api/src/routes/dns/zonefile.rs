//! Zone files: export as an RFC 1035 master file, import one.

use super::RecordView;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::state::AppState;
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::header;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The media type of master files (RFC 4027).
pub const TEXT_DNS: &str = "text/dns";

/// Routes under `/v1/dns/zones/{zone_id}/export` and `/import`.
pub fn router() -> OpenApiRouter<AppState> {
    // A master file has its own size limit (`dns.import_max_bytes`), read by [`MasterFile`].
    let import = OpenApiRouter::new().routes(routes!(import_zone)).layer(DefaultBodyLimit::disable());
    OpenApiRouter::new().routes(routes!(export_zone)).merge(import)
}

/// A line of the file that was not imported.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SkippedLine {
    /// 1-based line number.
    pub line: usize,
    /// The owner name, when the line could be read that far.
    pub name: Option<String>,
    #[serde(rename = "type")]
    pub rtype: Option<String>,
    /// Why it was skipped.
    pub reason: String,
}

/// What an import did.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ImportResult {
    /// The records added (all in one transaction).
    pub added: Vec<RecordView>,
    /// Lines not imported, with the reason.
    pub skipped: Vec<SkippedLine>,
    /// The zone's serial afterwards.
    pub soa_serial: u32,
    /// The zone's record count afterwards.
    pub records: u64,
}

#[utoipa::path(
    get,
    path = "/v1/dns/zones/{zone_id}/export",
    tag = "dns",
    params(("zone_id" = String, Path, description = "`zone_...`")),
    responses((status = 200, description = "The zone as an RFC 1035 master file", content_type = "text/dns", body = String))
)]
async fn export_zone(
    State(state): State<AppState>,
    caller: Caller,
    Path(zone_id): Path<String>,
) -> ApiResult<impl IntoResponse> {
    let (zone, text) = state.dns.export(&caller.account_id, &zone_id).await?;
    let disposition = format!("attachment; filename=\"{}.zone\"", zone.name);
    Ok(([(header::CONTENT_TYPE, TEXT_DNS.to_owned()), (header::CONTENT_DISPOSITION, disposition)], text))
}

/// A master-file body (`text/dns` or `text/plain`).
pub struct MasterFile(pub String);

impl FromRequest<AppState> for MasterFile {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let ct = req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let essence = ct.as_deref().unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        if essence != TEXT_DNS && essence != "text/plain" {
            return Err(ApiError::unsupported_media_type(format!(
                "send the master file as Content-Type: text/dns (or text/plain), got {}",
                ct.as_deref().unwrap_or("none")
            )));
        }
        let limit = state.config.dns.import_max_bytes;
        let bytes = axum::body::to_bytes(req.into_body(), limit).await.map_err(|_| {
            ApiError::too_large(format!("the master file is larger than {limit} bytes (dns.import_max_bytes)"))
        })?;
        let text =
            String::from_utf8(bytes.to_vec()).map_err(|_| ApiError::malformed("the master file is not UTF-8 text"))?;
        Ok(MasterFile(text))
    }
}

#[utoipa::path(
    post,
    path = "/v1/dns/zones/{zone_id}/import",
    tag = "dns",
    params(("zone_id" = String, Path, description = "`zone_...`")),
    request_body(content = String, content_type = "text/dns", description = "An RFC 1035 master file ($ORIGIN, $TTL, relative names)"),
    responses(
        (status = 200, description = "What was added and what was skipped, and why", body = ImportResult),
        (status = 422, description = "Not one line of the body reads as a record; `errors` gives each line's reason", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn import_zone(
    State(state): State<AppState>,
    caller: Caller,
    Path(zone_id): Path<String>,
    MasterFile(text): MasterFile,
) -> ApiResult<Json<ImportResult>> {
    let outcome = state.dns.import(&caller.account_id, &zone_id, text).await?;
    // A body in which not one line reads as a record is no master file: nothing to report as
    // "skipped", the request is wrong. (Lines skipped by zone rules, such as duplicates, did read.)
    if outcome.added.is_empty()
        && !outcome.skipped.is_empty()
        && outcome.skipped.iter().all(|s| s.name.is_none() && s.rtype.is_none())
    {
        let errors = outcome
            .skipped
            .iter()
            .take(100)
            .map(|s| meridian_core::FieldError::new(format!("/line/{}", s.line), "invalid_record", s.reason.clone()))
            .collect();
        return Err(ApiError::invalid(errors));
    }
    Ok(Json(ImportResult {
        added: outcome.added.into_iter().map(Into::into).collect(),
        skipped: outcome
            .skipped
            .into_iter()
            .map(|s| SkippedLine { line: s.line, name: s.name, rtype: s.rtype, reason: s.reason })
            .collect(),
        soa_serial: outcome.zone.soa_serial,
        records: outcome.zone.records,
    }))
}
