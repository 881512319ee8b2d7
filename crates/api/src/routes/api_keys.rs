//! API keys of the caller's account: list, create (scoped, expiring), show, revoke.

use crate::auth::Caller;
use crate::error::ApiResult;
use crate::extract::{Json, Path, Query};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use meridian_core::Timestamp;
use meridian_store::model::ApiKey;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/api/v1/account/api-keys`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_api_keys, create_api_key)).routes(routes!(get_api_key, revoke_api_key))
}

/// A key as its owner sees it: never the key itself.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ApiKeyView {
    /// `key_...`
    pub id: String,
    pub name: String,
    /// The key's first characters, to tell keys apart.
    pub prefix: String,
    /// `*`, or `<area>:read|write`; an empty list means every scope.
    pub scopes: Vec<String>,
    pub created_at: Timestamp,
    pub expires_at: Option<Timestamp>,
    pub revoked_at: Option<Timestamp>,
}

impl From<ApiKey> for ApiKeyView {
    fn from(k: ApiKey) -> Self {
        Self {
            id: k.id.0,
            name: k.name,
            prefix: k.prefix,
            scopes: k.scopes.iter().map(ToString::to_string).collect(),
            created_at: k.created_at,
            expires_at: k.expires_at,
            revoked_at: k.revoked_at,
        }
    }
}

/// A page of keys.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ApiKeyList {
    pub api_keys: Vec<ApiKeyView>,
    pub total: u64,
}

use crate::paging::PageQuery;

/// Body of key creation.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct CreateApiKey {
    /// A label for people.
    pub name: Option<String>,
    /// Scopes: `*`, or `<area>:read|write` with areas account, dns, cadastre, dem, pointcloud, eo,
    /// ogc, twin, webhooks, jobs. Absent means the caller's own scopes.
    pub scopes: Option<Vec<String>>,
    /// When the key stops working.
    pub expires_at: Option<Timestamp>,
    /// Or: seconds from now until the key stops working (at most 100 years).
    #[schema(minimum = 1, maximum = 3_153_600_000_u64)]
    pub expires_in: Option<u64>,
}

/// A new key: its record and, this once, the key.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CreatedApiKey {
    #[serde(flatten)]
    pub key: ApiKeyView,
    /// The API key (`mrd_...`), shown only now.
    pub api_key: String,
}

#[utoipa::path(
    get,
    path = "/api/v1/account/api-keys",
    tag = "accounts",
    params(PageQuery),
    responses((status = 200, description = "The account's keys, newest first; `Link` has next/prev", body = ApiKeyList))
)]
async fn list_api_keys(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<PageQuery>,
) -> ApiResult<impl IntoResponse> {
    let page = crate::paging::page(&state.config, q.limit, q.offset, q.cursor.as_deref())?;
    let (keys, total) = state.accounts.list_keys(&caller.account_id, page).await?;
    let last = keys.last().map(|v| v.id.to_string());
    let body = Json(ApiKeyList { api_keys: keys.into_iter().map(Into::into).collect(), total });
    let mut response = body.into_response();
    crate::paging::link(&mut response, "/api/v1/account/api-keys", "", page, total, last.as_deref());
    Ok(response)
}

#[utoipa::path(
    post,
    path = "/api/v1/account/api-keys",
    tag = "accounts",
    request_body = CreateApiKey,
    responses((status = 201, description = "The new key, shown once", body = CreatedApiKey))
)]
async fn create_api_key(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<CreateApiKey>,
) -> ApiResult<impl IntoResponse> {
    let ask = meridian_accounts::NewKey {
        name: body.name,
        scopes: body.scopes,
        expires_at: body.expires_at,
        expires_in: body.expires_in,
    };
    let (secret, key) = state.accounts.create_key(&caller, &ask).await?;
    let location = format!("/api/v1/account/api-keys/{}", key.id);
    Ok((StatusCode::CREATED, [(header::LOCATION, location)], Json(CreatedApiKey { key: key.into(), api_key: secret })))
}

#[utoipa::path(
    get,
    path = "/api/v1/account/api-keys/{key_id}",
    tag = "accounts",
    params(("key_id" = String, Path, description = "`key_...`")),
    responses((status = 200, description = "The key", body = ApiKeyView))
)]
async fn get_api_key(
    State(state): State<AppState>,
    caller: Caller,
    Path(key_id): Path<String>,
) -> ApiResult<Json<ApiKeyView>> {
    Ok(Json(state.accounts.key(&caller.account_id, &key_id).await?.into()))
}

#[utoipa::path(
    delete,
    path = "/api/v1/account/api-keys/{key_id}",
    tag = "accounts",
    params(("key_id" = String, Path, description = "`key_...`")),
    responses((status = 200, description = "The key, now revoked; its access tokens stop working too", body = ApiKeyView))
)]
async fn revoke_api_key(
    State(state): State<AppState>,
    caller: Caller,
    Path(key_id): Path<String>,
) -> ApiResult<Json<ApiKeyView>> {
    Ok(Json(state.accounts.revoke_key(&caller.account_id, &key_id).await?.into()))
}
