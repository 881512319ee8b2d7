//! Accounts: sign-up (public) and the caller's own account.

use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::{ClientAddr, Json};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use meridian_core::config::Signup;
use meridian_core::problem::code;
use meridian_core::Timestamp;
use meridian_store::model::Account;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Sign-up routes.
pub fn public() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(create_account))
}

/// Routes that need a caller.
pub fn protected() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_account))
}

/// An account as its owner sees it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct AccountView {
    /// `acct_...`
    pub id: String,
    pub name: String,
    pub email: String,
    pub created_at: Timestamp,
}

impl From<Account> for AccountView {
    fn from(a: Account) -> Self {
        Self { id: a.id.0, name: a.name, email: a.email, created_at: a.created_at }
    }
}

/// Body of sign-up.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateAccount {
    /// Display name, 1 to 100 characters (not only spaces).
    #[schema(pattern = r"\S", max_length = 100)]
    pub name: String,
    /// Contact address; one account per address.
    pub email: String,
}

/// Answer of sign-up: the account and its first API key, shown this once.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CreatedAccount {
    pub account: AccountView,
    /// The API key (`mrd_...`). It is stored only as a hash: keep it now.
    pub api_key: String,
}

/// Creates an account and returns its first API key.
#[utoipa::path(
    post,
    path = "/api/v1/accounts",
    tag = "accounts",
    request_body = CreateAccount,
    responses(
        (status = 201, description = "The account and its API key (shown once)", body = CreatedAccount),
        (status = 403, description = "Sign-up is closed on this server", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 409, description = "An account with this email exists", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid name or email", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn create_account(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    Json(body): Json<CreateAccount>,
) -> ApiResult<impl IntoResponse> {
    if state.config.auth.signup == Signup::Closed {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            code::SIGNUP_CLOSED,
            "Sign-up is closed",
            "this server does not accept new accounts; ask its operator (meridian account create)",
        ));
    }
    let client = client.map(|ip| ip.to_string()).unwrap_or_else(|| "local".into());
    let decision = state.limiter.check("signup", &client).await.map_err(|r| r.to_error())?;
    let (secret, account) = state.accounts.create_account(&body.name, &body.email).await?;
    let mut response = (
        StatusCode::CREATED,
        [(header::LOCATION, "/api/v1/account")],
        Json(CreatedAccount { account: account.into(), api_key: secret }),
    )
        .into_response();
    decision.write_headers(response.headers_mut());
    Ok(response)
}

/// The caller's account.
#[utoipa::path(
    get,
    path = "/api/v1/account",
    tag = "accounts",
    responses((status = 200, description = "The caller's account", body = AccountView))
)]
async fn get_account(State(state): State<AppState>, caller: Caller) -> ApiResult<Json<AccountView>> {
    let account = state
        .accounts
        .account(&caller.account_id)
        .await?
        .ok_or_else(|| ApiError::unauthenticated("the account no longer exists"))?;
    Ok(Json(account.into()))
}
