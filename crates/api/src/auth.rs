//! Authentication: API keys (stored as SHA-256 hashes) and short-lived access tokens (HS256 JWTs
//! signed with a key shared by every node), the caller they identify, and the middleware that
//! checks credentials, scopes and rate limits on every protected route.

use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::Response;
use meridian_core::scope::Access;

pub use meridian_accounts::{generate_key, hash_key, Principal, KEY_PREFIX};

/// Who is calling: the account service's principal, as a handler extracts it.
#[derive(Clone, Debug)]
pub struct Caller(pub Principal);

impl std::ops::Deref for Caller {
    type Target = Principal;

    fn deref(&self) -> &Principal {
        &self.0
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

fn has_header(req: &Request) -> bool {
    credential(req.headers()).is_some()
}

/// Paths whose answers carry the URL's `access_token` on into their own links (OGC capabilities,
/// OGC API Features pages, the twin's tileset): the token stays in their query.
fn keeps_query_token(path: &str) -> bool {
    path.starts_with("/api/v1/ogc/") || path.starts_with("/api/v1/realtime/")
}

/// Takes `access_token` out of the request's query, so that areas whose parameters are checked
/// strictly never see it (and never echo it).
fn strip_query_token(req: &mut Request) {
    let Some(query) = req.uri().query() else { return };
    let kept: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .filter(|(k, _)| k != "access_token")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let mut q = form_urlencoded::Serializer::new(String::new());
    q.extend_pairs(&kept);
    let q = q.finish();
    let path_and_query = if q.is_empty() { req.uri().path().to_owned() } else { format!("{}?{q}", req.uri().path()) };
    let mut parts = req.uri().clone().into_parts();
    if let Ok(pq) = path_and_query.parse() {
        parts.path_and_query = Some(pq);
        if let Ok(uri) = axum::http::Uri::from_parts(parts) {
            *req.uri_mut() = uri;
        }
    }
}

/// Resolves a credential to a caller, or says why not.
pub async fn authenticate(state: &AppState, credential: &str, allow_token: bool) -> Result<Caller, ApiError> {
    let p = state.accounts.authenticate(credential, allow_token).await?;
    Ok(Caller(p))
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
    // WFS 2.0 sends queries as POSTed XML too: the service itself asks for `ogc:write` when the
    // request is a Transaction. STAC item searches are POSTed as JSON: reads too.
    let post_read = matches!(req.uri().path(), "/api/v1/ogc/wfs" | "/api/v1/eo/search");
    let access = if req.method() == Method::POST && post_read { Access::Read } else { access_of(req.method()) };
    // One rule for every area: a read may carry a short-lived access token in the URL, for the
    // clients that cannot set a header (map clients, QGIS's OAPIF provider, viewers opening a COG
    // or COPC URL, CesiumJS carrying the tileset's query to every tile, a browser's WebSocket).
    // Writes never take one.
    let from_query = (access == Access::Read)
        .then(|| req.uri().query().and_then(query_token))
        .flatten()
        .filter(|_| !has_header(&req));
    if from_query.is_some() && !keeps_query_token(req.uri().path()) {
        strip_query_token(&mut req);
    }
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
    let decision = state.limiter.check(area, caller.account_id.as_str()).await;
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
