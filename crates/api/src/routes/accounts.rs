//! Accounts: sign-up (public) and the caller's own account.

use crate::auth::{generate_key, Caller};
use crate::error::{ApiError, ApiResult};
use crate::extract::{ClientAddr, Json};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use meridian_core::config::Signup;
use meridian_core::error::Validator;
use meridian_core::id::AccountId;
use meridian_core::problem::code;
use meridian_core::{DomainError, Timestamp};
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

/// Whether `email` looks like an address: one `@`, a local part, a dotted domain, no spaces.
fn plausible_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else { return false };
    !local.is_empty()
        && email.len() <= 254
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Checks and normalises a sign-up.
pub fn validate_signup(body: &CreateAccount) -> Result<(String, String), DomainError> {
    let name = body.name.trim().to_owned();
    let email = body.email.trim().to_owned();
    let mut v = Validator::new();
    v.check(!name.is_empty(), "/name", "required", "name must not be empty");
    v.check(name.chars().count() <= 100, "/name", "too_long", "name must be at most 100 characters");
    v.check(plausible_email(&email), "/email", "invalid_email", "email must be an address like someone@example.com");
    v.finish()?;
    Ok((name, email))
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
    let decision = state.limiter.check("signup", &client).map_err(|r| r.to_error())?;
    let (name, email) = validate_signup(&body)?;
    let (secret, account) = create(&state.store, name, email).await?;
    let mut response = (
        StatusCode::CREATED,
        [(header::LOCATION, "/api/v1/account")],
        Json(CreatedAccount { account: account.into(), api_key: secret }),
    )
        .into_response();
    decision.write_headers(response.headers_mut());
    Ok(response)
}

/// Creates an account with a first, unscoped key; also used by `meridian account create`.
pub async fn create(
    store: &meridian_store::Store,
    name: String,
    email: String,
) -> Result<(String, Account), meridian_store::StoreError> {
    let account = Account { id: AccountId::generate(), name, email, created_at: Timestamp::now() };
    let (secret, key) = generate_key(&account.id, "default", Vec::new(), None);
    store.accounts.create_account(&account, &key).await?;
    tracing::info!(account = %account.id, "account created");
    Ok((secret, account))
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
        .store
        .accounts
        .get_account(&caller.account_id)
        .await?
        .ok_or_else(|| ApiError::unauthenticated("the account no longer exists"))?;
    Ok(Json(account.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        assert!(plausible_email("a@example.com"));
        assert!(!plausible_email("a@localhost"));
        assert!(!plausible_email("a b@example.com"));
        assert!(!plausible_email("@example.com"));
        assert!(!plausible_email("a@@example.com"));
    }
}
