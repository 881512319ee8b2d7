//! DNSSEC of a zone: status, enable (ECDSA P-256 / SHA-256, algorithm 13), disable.

use crate::auth::Caller;
use crate::error::ApiResult;
use crate::extract::{Json, Path};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use meridian_dns::service::DnssecState;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/v1/dns/zones/{zone_id}/dnssec`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_dnssec, enable_dnssec, disable_dnssec))
}

/// A signing key.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DnskeyView {
    pub key_tag: u16,
    /// 257: a key-signing key that also signs the zone.
    pub flags: u16,
    /// 13: ECDSA P-256 with SHA-256.
    pub algorithm: u8,
    /// Base64.
    pub public_key: String,
    /// The DNSKEY record in master-file form.
    pub dnskey: String,
}

/// A DS record to give the registrar.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DsView {
    pub key_tag: u16,
    pub algorithm: u8,
    /// 2: SHA-256.
    pub digest_type: u8,
    /// Hex.
    pub digest: String,
    /// The DS record in master-file form.
    pub ds: String,
}

/// A zone's DNSSEC state.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DnssecView {
    pub zone_id: String,
    /// `active` or `disabled`.
    pub status: String,
    pub keys: Vec<DnskeyView>,
    /// Publish these at the registrar to make the zone secure.
    pub ds: Vec<DsView>,
    /// The zone's serial.
    pub soa_serial: u32,
}

fn view(state: &AppState, s: DnssecState) -> DnssecView {
    let ttl = state.config.dns.soa.ttl;
    DnssecView {
        zone_id: s.zone.id.0.clone(),
        status: if s.zone.dnssec { "active" } else { "disabled" }.to_owned(),
        keys: s
            .keys
            .iter()
            .map(|(k, _)| DnskeyView {
                key_tag: k.key_tag(),
                flags: k.flags(),
                algorithm: meridian_dns::dnssec::ALGORITHM,
                public_key: DnssecState::public_key(k),
                dnskey: s.dnskey_line(k, ttl),
            })
            .collect(),
        ds: s
            .keys
            .iter()
            .map(|(_, d)| DsView {
                key_tag: d.key_tag,
                algorithm: d.algorithm,
                digest_type: d.digest_type,
                digest: d.digest.clone(),
                ds: s.ds_line(d),
            })
            .collect(),
        soa_serial: s.zone.soa_serial,
    }
}

#[utoipa::path(
    get,
    path = "/v1/dns/zones/{zone_id}/dnssec",
    tag = "dns",
    params(("zone_id" = String, Path, description = "`zone_...`")),
    responses((status = 200, description = "Whether the zone is signed; its DNSKEY and DS records", body = DnssecView))
)]
async fn get_dnssec(
    State(state): State<AppState>,
    caller: Caller,
    Path(zone_id): Path<String>,
) -> ApiResult<Json<DnssecView>> {
    let s = state.dns.dnssec(&caller.account_id, &zone_id).await?;
    Ok(Json(view(&state, s)))
}

#[utoipa::path(
    post,
    path = "/v1/dns/zones/{zone_id}/dnssec",
    tag = "dns",
    params(("zone_id" = String, Path, description = "`zone_...`")),
    responses(
        (status = 201, description = "The zone is now signed; give the DS record to the registrar", body = DnssecView),
        (status = 200, description = "The zone was signed already", body = DnssecView),
    )
)]
async fn enable_dnssec(
    State(state): State<AppState>,
    caller: Caller,
    Path(zone_id): Path<String>,
) -> ApiResult<impl IntoResponse> {
    let (s, created) = state.dns.enable_dnssec(&caller.account_id, &zone_id).await?;
    let status = if created { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(view(&state, s))))
}

#[utoipa::path(
    delete,
    path = "/v1/dns/zones/{zone_id}/dnssec",
    tag = "dns",
    params(("zone_id" = String, Path, description = "`zone_...`")),
    responses((status = 200, description = "The zone is no longer signed; remove the DS at the registrar first", body = DnssecView))
)]
async fn disable_dnssec(
    State(state): State<AppState>,
    caller: Caller,
    Path(zone_id): Path<String>,
) -> ApiResult<Json<DnssecView>> {
    let s = state.dns.disable_dnssec(&caller.account_id, &zone_id).await?;
    Ok(Json(view(&state, s)))
}
