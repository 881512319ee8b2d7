//! The event types a subscription can name, with an example payload each.

use crate::error::ApiResult;
use crate::extract::Json;
use crate::state::AppState;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes of the event types.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_event_types))
}

/// One event type.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct EventTypeView {
    /// e.g. `dns.record.created`; subscriptions may also list `dns.*`, `dns.record.*` or `*`.
    pub name: String,
    pub description: String,
    /// A payload of this type: `id`, `event`, `timestamp` and the area's fields.
    #[schema(value_type = Object)]
    pub example: Value,
}

/// Every event type.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct EventTypeList {
    pub event_types: Vec<EventTypeView>,
}

#[utoipa::path(
    get,
    path = "/api/v1/webhooks/event-types",
    tag = "webhooks",
    responses((status = 200, description = "Every event type with an example payload", body = EventTypeList))
)]
async fn list_event_types() -> ApiResult<Json<EventTypeList>> {
    let event_types = meridian_webhooks::event_types::event_types()
        .into_iter()
        .map(|t| EventTypeView { name: t.name.to_owned(), description: t.description.to_owned(), example: t.example })
        .collect();
    Ok(Json(EventTypeList { event_types }))
}
