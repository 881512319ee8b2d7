//! Authentication: API keys (stored as SHA-256 hashes) and short-lived access tokens (HS256 JWTs
//! signed with a key shared by every node), the caller they identify, and the middleware that
//! checks credentials, scopes and rate limits on every protected route.

use crate::error::ApiError;
use crate::state::AppState;
pub use crate::token::TokenKeys;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::Response;
use meridian_core::id::{AccountId, ApiKeyId};
use meridian_core::scope::{self, Access, Scope};
use meridian_core::Timestamp;
use meridian_store::model::ApiKey;
use rand::Rng;
use sha2::{Digest, Sha256};

/// Every API key starts with this, so that secret scanners and people can recognise one.
pub const KEY_PREFIX: &str = "mrd_";

/// A fresh API key: the secret (shown once) and the record to store.
pub fn generate_key(
    account_id: &AccountId,
    name: &str,
    scopes: Vec<Scope>,
    expires_at: Option<Timestamp>,
) -> (String, ApiKey) {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut rng = rand::thread_rng();
    let body: String = (0..40).map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char).collect();
    let secret = format!("{KEY_PREFIX}{body}");
    let key = ApiKey {
        id: ApiKeyId::generate(),
        account_id: account_id.clone(),
        name: name.to_owned(),
        prefix: secret[..KEY_PREFIX.len() + 6].to_owned(),
        hash: hash_key(&secret),
        scopes,
        created_at: Timestamp::now(),
        expires_at,
        revoked_at: None,
    };
    (secret, key)
}

/// Hex SHA-256 of a key. Keys carry 238 bits of entropy, so a fast hash is enough.
pub fn hash_key(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Who is calling.
#[derive(Clone, Debug)]
pub struct Caller {
    pub account_id: AccountId,
    pub key_id: ApiKeyId,
    /// Empty means every scope.
    pub scopes: Vec<Scope>,
    /// Whether the credential was an access token rather than the key itself.
    pub via_token: bool,
}

impl Caller {
    /// Whether the caller may perform `access` on `area`.
    pub fn allows(&self, area: &str, access: Access) -> bool {
        self.scopes.is_empty() || scope::any_allows(&self.scopes, area, access)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| ApiError::unauthenticated("this operation needs an API key or access token"))
    }
}

/// Where a request carried its credential.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CredentialSource {
    /// `Authorization: Bearer X`: an API key or an access token.
    Bearer,
    /// `X-Api-Key: X`: an API key only.
    ApiKeyHeader,
}

/// The credential a request carries: `Authorization: Bearer X` or `X-Api-Key: X`.
pub fn credential(headers: &HeaderMap) -> Option<(&str, CredentialSource)> {
    if let Some(v) = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) {
        let (scheme, rest) = v.split_once(' ')?;
        return scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| rest.trim())
            .filter(|s| !s.is_empty())
            .map(|c| (c, CredentialSource::Bearer));
    }
    headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|c| (c, CredentialSource::ApiKeyHeader))
}

/// The `access_token` of a query string. Map clients (OGC services) cannot always send
/// headers, so the OGC paths also take a short-lived access token there; API keys never go in
/// URLs, and request logs record the path only, never the query.
pub fn query_token(query: &str) -> Option<String> {
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "access_token")
        .map(|(_, v)| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// `X-Api-Key` is for API keys: anything else there is refused before it is looked at.
pub fn check_source(credential: &str, source: CredentialSource) -> Result<(), ApiError> {
    if source == CredentialSource::ApiKeyHeader && !credential.starts_with(KEY_PREFIX) {
        return Err(ApiError::unauthenticated(
            "X-Api-Key takes only API keys (mrd_...); send an access token as Authorization: Bearer <token>",
        ));
    }
    Ok(())
}

/// Resolves a credential to a caller, or says why not.
pub async fn authenticate(state: &AppState, credential: &str, allow_token: bool) -> Result<Caller, ApiError> {
    let now = Timestamp::now();
    let (key, via_token) = if credential.starts_with(KEY_PREFIX) {
        let key = state.store.accounts.find_api_key_by_hash(&hash_key(credential)).await?;
        (key, false)
    } else if allow_token {
        let claims = state
            .tokens
            .verify(credential, now)
            .ok_or_else(|| ApiError::unauthenticated("the access token is invalid or expired"))?;
        let key = state.store.accounts.get_api_key(&AccountId(claims.sub), &ApiKeyId(claims.kid)).await?;
        (key, true)
    } else {
        return Err(ApiError::unauthenticated("this operation needs an API key, not an access token"));
    };
    let key = key.ok_or_else(|| ApiError::unauthenticated("the API key is not known"))?;
    if !key.is_usable(now) {
        return Err(ApiError::unauthenticated("the API key was revoked or has expired"));
    }
    Ok(Caller { account_id: key.account_id, key_id: key.id, scopes: key.scopes, via_token })
}

/// The API area a path belongs to, which selects scopes and rate limits.
pub fn area_of(path: &str) -> &'static str {
    if path.starts_with("/v1/dns") {
        return "dns";
    }
    let rest = path.strip_prefix("/api/v1/").unwrap_or("");
    match rest.split('/').next().unwrap_or("") {
        "cadastre" => "cadastre",
        "dem" => "dem",
        "pointcloud" => "pointcloud",
        "eo" => "eo",
        "ogc" => "ogc",
        "realtime" => "twin",
        "webhooks" => "webhooks",
        "jobs" => "jobs",
        _ => "account",
    }
}

/// Read for safe methods, write for the rest.
pub fn access_of(method: &Method) -> Access {
    if method == Method::GET || method == Method::HEAD || method == Method::OPTIONS {
        Access::Read
    } else {
        Access::Write
    }
}

/// Middleware for protected routes: authenticate, check the scope, spend a rate-limit token.
pub async fn require_auth(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let area = area_of(req.uri().path());
    let access = access_of(req.method());
    let from_query = (area == "ogc").then(|| req.uri().query().and_then(query_token)).flatten();
    let caller = match credential(req.headers()) {
        None if from_query.as_deref().is_some_and(|t| t.starts_with(KEY_PREFIX)) => {
            Err(ApiError::unauthenticated("access_token takes access tokens only; API keys never go in URLs"))
        }
        None if from_query.is_some() => authenticate(&state, from_query.as_deref().unwrap_or_default(), true).await,
        None => Err(ApiError::unauthenticated("send Authorization: Bearer <API key or access token>, or X-Api-Key")),
        Some((c, source)) => match check_source(c, source) {
            Ok(()) => authenticate(&state, c, true).await,
            Err(e) => Err(e),
        },
    };
    let caller = match caller {
        Ok(c) => c,
        Err(e) => return axum::response::IntoResponse::into_response(e),
    };
    if !caller.allows(area, access) {
        let level = if access == Access::Read { "read" } else { "write" };
        return axum::response::IntoResponse::into_response(ApiError::forbidden(format!(
            "this key's scopes do not include {area}:{level}"
        )));
    }
    // Per account: an account's keys share one bucket per area, so minting keys buys nothing.
    let decision = state.limiter.check(area, caller.account_id.as_str());
    if let Err(refusal) = decision.as_ref() {
        return axum::response::IntoResponse::into_response(refusal.to_error());
    }
    req.extensions_mut().insert(caller);
    let mut response = next.run(req).await;
    if let Ok(allowed) = decision {
        allowed.write_headers(response.headers_mut());
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> TokenKeys {
        TokenKeys { secret: b"0123456789abcdef0123456789abcdef".to_vec(), ttl: std::time::Duration::from_secs(60) }
    }

    #[test]
    fn tokens_verify_and_expire_and_resist_tampering() {
        let (_, key) = generate_key(&AccountId::generate(), "k", vec![], None);
        let now = Timestamp::now();
        let token = keys().issue(&key, now);
        assert!(keys().verify(&token, now).is_some());
        assert!(keys().verify(&token, now.plus(std::time::Duration::from_secs(61))).is_none());
        let mut tampered = token.clone();
        tampered.insert(token.find('.').unwrap_or(0) + 3, 'x');
        assert!(keys().verify(&tampered, now).is_none());
        let other = TokenKeys { secret: b"another-secret-another-secret-xx".to_vec(), ttl: keys().ttl };
        assert!(other.verify(&token, now).is_none());
    }

    #[test]
    fn keys_hash_and_prefix() {
        let (secret, key) = generate_key(&AccountId::generate(), "k", vec![], None);
        assert!(secret.starts_with(KEY_PREFIX));
        assert_eq!(key.hash, hash_key(&secret));
        assert!(secret.starts_with(&key.prefix));
    }

    #[test]
    fn query_tokens_are_read_from_access_token_only() {
        assert_eq!(query_token("SERVICE=WMS&access_token=a.b.c&x=1").as_deref(), Some("a.b.c"));
        assert_eq!(query_token("ACCESS_TOKEN=a.b.c"), None);
        assert_eq!(query_token("access_token=&x=1"), None);
        assert_eq!(query_token("token=a.b.c"), None);
    }

    #[test]
    fn areas_from_paths() {
        assert_eq!(area_of("/v1/dns/zones"), "dns");
        assert_eq!(area_of("/api/v1/realtime/twin/x"), "twin");
        assert_eq!(area_of("/api/v1/ogc/wms"), "ogc");
        assert_eq!(area_of("/api/v1/account/api-keys"), "account");
    }
}
