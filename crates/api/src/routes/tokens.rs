//! Access tokens: an API key traded for a short-lived bearer token.

use crate::auth::{authenticate, check_source, credential};
use crate::error::{ApiError, ApiResult};
use crate::extract::Json;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/api/v1/auth`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(create_token))
}

/// An access token (OAuth 2.0 token response shape).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct AccessToken {
    /// Send as `Authorization: Bearer <access_token>`.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// Seconds until it expires.
    pub expires_in: u64,
}

#[utoipa::path(
    post,
    path = "/api/v1/auth/token",
    tag = "accounts",
    security(("bearer" = []), ("api_key" = [])),
    responses((status = 200, description = "A token carrying the key's scopes; revoking the key ends it", body = AccessToken))
)]
async fn create_token(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<impl IntoResponse> {
    let (presented, source) = credential(&headers)
        .ok_or_else(|| ApiError::unauthenticated("authenticate with the API key to trade for a token"))?;
    check_source(presented, source)?;
    let caller = authenticate(&state, presented, false).await?;
    let decision = state.limiter.check("account", caller.account_id.as_str()).await.map_err(|r| r.to_error())?;
    let (token, expires_in) = state.accounts.issue_token(&caller).await?;
    let mut response =
        Json(AccessToken { access_token: token, token_type: "Bearer".into(), expires_in }).into_response();
    response.headers_mut().insert(axum::http::header::CACHE_CONTROL, axum::http::HeaderValue::from_static("no-store"));
    decision.write_headers(response.headers_mut());
    Ok(response)
}
