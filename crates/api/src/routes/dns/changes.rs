//! A zone's change history: the `dns.*` events about it, newest first.

use crate::auth::Caller;
use crate::error::ApiResult;
use crate::extract::{Json, Path, Query};
use crate::paging::PageQuery;
use crate::state::AppState;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/v1/dns/zones/{zone_id}/changes`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_changes))
}

/// A page of a zone's changes.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ChangeList {
    /// Each change as a webhook receiver gets it: `id` (the event id), `event` (its type, such as
    /// `dns.record.updated`), `timestamp`, `zone`, `zone_id`, and what changed (`record`, ...).
    #[schema(value_type = Vec<Object>)]
    pub changes: Vec<Value>,
    /// All the zone's changes still kept (`events.retention`).
    pub total: u64,
}

#[utoipa::path(
    get,
    path = "/v1/dns/zones/{zone_id}/changes",
    tag = "dns",
    params(("zone_id" = String, Path, description = "`zone_...`"), PageQuery),
    responses((status = 200, description = "The zone's changes, newest first (the `dns.*` events about it, kept for `events.retention`); `Link` has next/prev", body = ChangeList))
)]
async fn list_changes(
    State(state): State<AppState>,
    caller: Caller,
    Path(zone_id): Path<String>,
    Query(q): Query<PageQuery>,
) -> ApiResult<impl IntoResponse> {
    let page = crate::paging::page(&state.config, q.limit, q.offset, q.cursor.as_deref())?;
    let (_, events, total) = state.dns.changes(&caller.account_id, &zone_id, page).await?;
    let last = events.last().map(|e| e.id.to_string());
    let body = ChangeList { changes: events.into_iter().map(|e| e.payload).collect(), total };
    let mut response = Json(body).into_response();
    crate::paging::link(&mut response, &format!("/v1/dns/zones/{zone_id}/changes"), "", page, total, last.as_deref());
    Ok(response)
}
