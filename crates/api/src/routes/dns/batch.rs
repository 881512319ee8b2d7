//! Atomic batches of record changes: all applied with one serial bump, or none.

use super::{Deleted, RecordBody, RecordView};
use crate::auth::Caller;
use crate::error::ApiResult;
use crate::extract::{Json, Path};
use crate::state::AppState;
use axum::extract::State;
use meridian_dns::service::{Batch, BatchUpdate};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/v1/dns/zones/{zone_id}/records/batch`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(batch_records))
}

/// A change to one record of a batch.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchUpdateBody {
    /// `rec_...`
    pub id: String,
    #[serde(rename = "type")]
    pub rtype: Option<String>,
    pub name: Option<String>,
    pub content: Option<String>,
    #[serde(default, deserialize_with = "super::whole_number")]
    #[schema(minimum = 60, maximum = 86400)]
    pub ttl: Option<i64>,
    #[serde(default, deserialize_with = "super::whole_number")]
    #[schema(minimum = 0, maximum = 65535)]
    pub priority: Option<i64>,
    #[serde(default, deserialize_with = "super::whole_number")]
    #[schema(minimum = 0, maximum = 65535)]
    pub weight: Option<i64>,
    #[serde(default, deserialize_with = "super::whole_number")]
    #[schema(minimum = 0, maximum = 65535)]
    pub port: Option<i64>,
    #[serde(default, deserialize_with = "super::whole_number")]
    #[schema(schema_with = super::caa_flags_schema)]
    pub flags: Option<i64>,
    pub tag: Option<String>,
}

/// A record to delete in a batch.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteRef {
    /// `rec_...`
    pub id: String,
}

/// Creates, updates and deletes, applied together (deletes first, then updates, then creates).
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BatchBody {
    pub creates: Vec<RecordBody>,
    pub updates: Vec<BatchUpdateBody>,
    pub deletes: Vec<DeleteRef>,
}

/// What a batch did.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct BatchResult {
    pub created: Vec<RecordView>,
    pub updated: Vec<RecordView>,
    pub deleted: Vec<Deleted>,
    /// The zone's serial after the batch (one bump for the whole batch).
    pub soa_serial: u32,
    /// The zone's record count after the batch.
    pub records: u64,
}

#[utoipa::path(
    post,
    path = "/v1/dns/zones/{zone_id}/records/batch",
    tag = "dns",
    params(("zone_id" = String, Path, description = "`zone_...`")),
    request_body = BatchBody,
    responses(
        (status = 200, description = "Every change was applied, with one serial bump and one event per record", body = BatchResult),
        (status = 409, description = "A duplicate or CNAME clash; nothing was applied", body = meridian_core::problem::Problem),
        (status = 422, description = "Invalid entries, pointed at as `/creates/0/ttl`; nothing was applied", body = meridian_core::problem::Problem),
    )
)]
async fn batch_records(
    State(state): State<AppState>,
    caller: Caller,
    Path(zone_id): Path<String>,
    Json(body): Json<BatchBody>,
) -> ApiResult<Json<BatchResult>> {
    let batch = Batch {
        creates: body.creates.into_iter().map(Into::into).collect(),
        updates: body
            .updates
            .into_iter()
            .map(|u| BatchUpdate {
                id: u.id,
                fields: RecordBody {
                    rtype: u.rtype,
                    name: u.name,
                    content: u.content,
                    ttl: u.ttl,
                    priority: u.priority,
                    weight: u.weight,
                    port: u.port,
                    flags: u.flags,
                    tag: u.tag,
                }
                .into(),
            })
            .collect(),
        deletes: body.deletes.into_iter().map(|d| d.id).collect(),
    };
    let outcome = state.dns.batch(&caller.account_id, &zone_id, &batch).await?;
    Ok(Json(BatchResult {
        created: outcome.created.into_iter().map(Into::into).collect(),
        updated: outcome.updated.into_iter().map(Into::into).collect(),
        deleted: outcome.deleted.into_iter().map(|id| Deleted { deleted: true, id: id.0 }).collect(),
        soa_serial: outcome.zone.soa_serial,
        records: outcome.zone.records,
    }))
}
