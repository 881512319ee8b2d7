//! API keys of the caller's account: list, create (scoped, expiring), show, revoke.

use crate::auth::{generate_key, Caller};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use meridian_core::error::Validator;
use meridian_core::id::ApiKeyId;
use meridian_core::scope::Scope;
use meridian_core::Timestamp;
use meridian_store::model::ApiKey;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use utoipa::{IntoParams, ToSchema};
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

/// Paging parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Page size: 1 to `limits.max_page_size` (1000 unless the operator changed it); default 100.
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
    /// Items to skip.
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

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

/// The longest `expires_in`: 100 years.
const MAX_EXPIRES_IN: u64 = 100 * 365 * 86_400;

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
    let page = crate::paging::page(&state.config, q.limit, q.offset)?;
    let (keys, total) = state.store.accounts.list_api_keys(&caller.account_id, page).await?;
    let body = Json(ApiKeyList { api_keys: keys.into_iter().map(Into::into).collect(), total });
    let mut response = body.into_response();
    crate::paging::link(&mut response, "/api/v1/account/api-keys", "", page, total);
    Ok(response)
}

/// Checks a creation request against the caller: a key can never grant more than its creator has.
fn check_new_key(
    caller: &Caller,
    body: &CreateApiKey,
    now: Timestamp,
) -> Result<(Vec<Scope>, Option<Timestamp>), ApiError> {
    let mut v = Validator::new();
    let mut scopes = Vec::new();
    for (i, s) in body.scopes.iter().flatten().enumerate() {
        match s.parse::<Scope>() {
            Ok(scope) => scopes.push(scope),
            Err(why) => v.push(format!("/scopes/{i}"), "invalid_scope", why),
        }
    }
    if let Some(name) = &body.name {
        v.check(name.chars().count() <= 100, "/name", "too_long", "name must be at most 100 characters");
    }
    v.check(
        !(body.expires_at.is_some() && body.expires_in.is_some()),
        "/expires_in",
        "conflicting_fields",
        "give expires_at or expires_in, not both",
    );
    v.check(
        body.expires_in.is_none_or(|secs| (1..=MAX_EXPIRES_IN).contains(&secs)),
        "/expires_in",
        "out_of_range",
        format!("expires_in must be between 1 and {MAX_EXPIRES_IN} seconds (100 years)"),
    );
    let expires_at = match (body.expires_at, body.expires_in) {
        (Some(at), _) => Some(at),
        (None, Some(secs)) => Some(now.plus(Duration::from_secs(secs.min(MAX_EXPIRES_IN)))),
        (None, None) => None,
    };
    if let Some(at) = expires_at {
        v.check(at > now, "/expires_at", "in_the_past", "the expiry must be in the future");
    }
    v.finish()?;
    if body.scopes.is_none() {
        return Ok((caller.scopes.clone(), expires_at));
    }
    if !caller.scopes.is_empty() {
        let within = |s: &Scope| match s {
            Scope::All => false,
            Scope::Area { area, access } => caller.allows(area, *access),
        };
        if scopes.is_empty() || !scopes.iter().all(within) {
            return Err(ApiError::forbidden("a key cannot create a key with scopes it does not hold itself"));
        }
    }
    Ok((scopes, expires_at))
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
    let (scopes, expires_at) = check_new_key(&caller, &body, Timestamp::now())?;
    let name = body.name.as_deref().map(str::trim).filter(|n| !n.is_empty()).unwrap_or("unnamed");
    let (secret, key) = generate_key(&caller.account_id, name, scopes, expires_at);
    state.store.accounts.create_api_key(&key).await?;
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
    let key = state
        .store
        .accounts
        .get_api_key(&caller.account_id, &ApiKeyId(key_id.clone()))
        .await?
        .ok_or_else(|| meridian_core::DomainError::not_found("api key", key_id))?;
    Ok(Json(key.into()))
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
    let key = state.store.accounts.revoke_api_key(&caller.account_id, &ApiKeyId(key_id), Timestamp::now()).await?;
    Ok(Json(key.into()))
}
