//! Accounts (tenants) and their credentials, without HTTP: sign-up rules, API keys (generated,
//! stored as SHA-256 hashes, scoped, expiring, revocable), short-lived access tokens traded for
//! a key, and authentication of either to a [`Principal`]. The HTTP routes and the
//! `meridian account create` command call [`AccountService`].

pub mod token;

use meridian_core::error::Validator;
use meridian_core::id::{AccountId, ApiKeyId};
use meridian_core::page::Page;
use meridian_core::scope::{self, Access, Scope};
use meridian_core::{DomainError, Timestamp};
use meridian_store::model::{Account, ApiKey};
use meridian_store::{Notice, Store, StoreError};
use rand::Rng;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;

pub use token::TokenKeys;

/// Every API key starts with this, so that secret scanners and people can recognise one.
pub const KEY_PREFIX: &str = "mrd_";

/// The longest key lifetime asked for in seconds: 100 years.
pub const MAX_EXPIRES_IN: u64 = 100 * 365 * 86_400;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The credential is not accepted (unknown, revoked, expired, wrong kind); 401.
    #[error("{0}")]
    Unauthenticated(&'static str),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Who a credential identifies.
#[derive(Clone, Debug, PartialEq)]
pub struct Principal {
    pub account_id: AccountId,
    pub key_id: ApiKeyId,
    /// Empty means every scope.
    pub scopes: Vec<Scope>,
    /// Whether the credential was an access token rather than the key itself.
    pub via_token: bool,
}

impl Principal {
    /// Whether the principal may perform `access` on `area`.
    pub fn allows(&self, area: &str, access: Access) -> bool {
        self.scopes.is_empty() || scope::any_allows(&self.scopes, area, access)
    }
}

/// A key to create, as asked for.
#[derive(Clone, Debug, Default)]
pub struct NewKey {
    /// A label for people (at most 100 characters).
    pub name: Option<String>,
    /// Scopes as text; `None` means the creator's own.
    pub scopes: Option<Vec<String>>,
    /// When the key stops working.
    pub expires_at: Option<Timestamp>,
    /// Or: seconds from now.
    pub expires_in: Option<u64>,
}

/// A fresh API key: the secret (shown once) and the record to store.
pub fn generate_key(
    account_id: &AccountId,
    name: &str,
    scopes: Vec<Scope>,
    expires_at: Option<Timestamp>,
) -> (String, ApiKey) {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut rng = rand::rng();
    let body: String = (0..40).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect();
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

/// Checks and normalises a sign-up: (name, email).
pub fn validate_signup(name: &str, email: &str) -> Result<(String, String), DomainError> {
    let name = name.trim().to_owned();
    let email = email.trim().to_owned();
    let mut v = Validator::new();
    v.check(!name.is_empty(), "/name", "required", "name must not be empty");
    v.check(name.chars().count() <= 100, "/name", "too_long", "name must be at most 100 characters");
    v.check(plausible_email(&email), "/email", "invalid_email", "email must be an address like someone@example.com");
    v.finish()?;
    Ok((name, email))
}

/// Accounts, keys and tokens of one platform; shared by every route.
pub struct AccountService {
    store: Store,
    tokens: TokenKeys,
    keys: Arc<KeyCache>,
}

/// How long a key read from the store is used without reading it again. A key revoked through
/// any node stops working on every node at once (the store's notices say so); this bounds the
/// time when a notice is lost, or when a key is revoked outside the service (the command line).
pub const KEY_CACHE_TTL: Duration = Duration::from_secs(2);

/// Most keys kept in the cache.
const KEY_CACHE_MAX: usize = 10_000;

/// Keys recently read for authentication, by credential hash (or account and key id for an
/// access token), so that a stream of requests with one key reads it once per [`KEY_CACHE_TTL`].
struct KeyCache(meridian_core::cache::Bounded<String, ApiKey>);

impl Default for KeyCache {
    fn default() -> Self {
        Self(meridian_core::cache::Bounded::entries(KEY_CACHE_MAX).with_ttl(KEY_CACHE_TTL))
    }
}

impl KeyCache {
    fn get(&self, slot: &str) -> Option<ApiKey> {
        self.0.get(slot)
    }

    fn put(&self, slot: String, key: ApiKey) {
        self.0.insert(slot, key);
    }

    fn forget(&self, id: &ApiKeyId) {
        self.0.retain(|_, key| key.id != *id);
    }

    fn clear(&self) {
        self.0.retain(|_, _| false);
    }
}

/// Forgets revoked keys as every node's notices tell of them, for as long as the cache lives.
async fn follow_revocations(cache: std::sync::Weak<KeyCache>, mut notices: meridian_store::notices::Subscription) {
    while let Some(notice) = notices.next().await {
        let Some(cache) = cache.upgrade() else { return };
        match notice {
            Notice::KeyRevoked(id) => cache.forget(&ApiKeyId(id)),
            Notice::Resync => cache.clear(),
            _ => {}
        }
    }
}

impl AccountService {
    /// The service over `store`, signing tokens with `tokens`.
    pub fn new(store: Store, tokens: TokenKeys) -> Self {
        let keys = Arc::new(KeyCache::default());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(follow_revocations(Arc::downgrade(&keys), store.notices.subscribe()));
        }
        Self { store, tokens, keys }
    }

    /// The token keys (lifetime of new tokens).
    pub fn tokens(&self) -> &TokenKeys {
        &self.tokens
    }

    /// Creates an account with a first, unscoped key; returns the key (shown once) and the
    /// account. A taken email is a conflict.
    pub async fn create_account(&self, name: &str, email: &str) -> Result<(String, Account)> {
        let (name, email) = validate_signup(name, email)?;
        let account = Account { id: AccountId::generate(), name, email, created_at: Timestamp::now() };
        let (secret, key) = generate_key(&account.id, "default", Vec::new(), None);
        self.store.accounts.create_account(&account, &key).await?;
        tracing::info!(account = %account.id, "account created");
        Ok((secret, account))
    }

    /// One account.
    pub async fn account(&self, id: &AccountId) -> Result<Option<Account>> {
        Ok(self.store.accounts.get_account(id).await?)
    }

    /// Creates a key for the principal's account. A key can never grant more than its creator
    /// holds (403); absent scopes mean the creator's own.
    pub async fn create_key(&self, creator: &Principal, ask: &NewKey) -> Result<(String, ApiKey)> {
        let (scopes, expires_at) = check_new_key(creator, ask, Timestamp::now())?;
        let name = ask.name.as_deref().map(str::trim).filter(|n| !n.is_empty()).unwrap_or("unnamed");
        let (secret, key) = generate_key(&creator.account_id, name, scopes, expires_at);
        self.store.accounts.create_api_key(&key).await?;
        Ok((secret, key))
    }

    /// The account's keys, newest first, and how many there are.
    pub async fn list_keys(&self, account: &AccountId, page: Page) -> Result<(Vec<ApiKey>, u64)> {
        Ok(self.store.accounts.list_api_keys(account, page).await?)
    }

    /// One key of the account; another account's is not found.
    pub async fn key(&self, account: &AccountId, id: &str) -> Result<ApiKey> {
        self.store
            .accounts
            .get_api_key(account, &ApiKeyId(id.to_owned()))
            .await?
            .ok_or_else(|| DomainError::not_found("api key", id).into())
    }

    /// Revokes a key (idempotent); its access tokens stop working with it.
    pub async fn revoke_key(&self, account: &AccountId, id: &str) -> Result<ApiKey> {
        let key = self.store.accounts.revoke_api_key(account, &ApiKeyId(id.to_owned()), Timestamp::now()).await?;
        self.keys.forget(&key.id);
        if let Err(e) = self.store.notices.publish(&Notice::KeyRevoked(key.id.as_str().to_owned())).await {
            // Other nodes drop the key from their caches within KEY_CACHE_TTL anyway.
            tracing::warn!(error = %e, key = %key.id.as_str(), "telling other nodes of a revoked key failed");
        }
        Ok(key)
    }

    /// Resolves an API key, or (when `allow_token`) an access token, to a principal.
    pub async fn authenticate(&self, credential: &str, allow_token: bool) -> Result<Principal> {
        let now = Timestamp::now();
        let (key, via_token) = if credential.starts_with(KEY_PREFIX) {
            let hash = hash_key(credential);
            match self.keys.get(&hash) {
                Some(key) => (Some(key), false),
                None => {
                    let key = self.store.accounts.find_api_key_by_hash(&hash).await?;
                    if let Some(k) = &key {
                        self.keys.put(hash, k.clone());
                    }
                    (key, false)
                }
            }
        } else if allow_token {
            let claims = self
                .tokens
                .verify(credential, now)
                .ok_or(Error::Unauthenticated("the access token is invalid or expired"))?;
            let slot = format!("{}/{}", claims.sub, claims.kid);
            match self.keys.get(&slot) {
                Some(key) => (Some(key), true),
                None => {
                    let key = self.store.accounts.get_api_key(&AccountId(claims.sub), &ApiKeyId(claims.kid)).await?;
                    if let Some(k) = &key {
                        self.keys.put(slot, k.clone());
                    }
                    (key, true)
                }
            }
        } else {
            return Err(Error::Unauthenticated("this operation needs an API key, not an access token"));
        };
        let key = key.ok_or(Error::Unauthenticated("the API key is not known"))?;
        if !key.is_usable(now) {
            return Err(Error::Unauthenticated("the API key was revoked or has expired"));
        }
        Ok(Principal { account_id: key.account_id, key_id: key.id, scopes: key.scopes, via_token })
    }

    /// Issues an access token for the principal's key: (token, seconds until it expires).
    pub async fn issue_token(&self, principal: &Principal) -> Result<(String, u64)> {
        let key = self
            .store
            .accounts
            .get_api_key(&principal.account_id, &principal.key_id)
            .await?
            .ok_or(Error::Unauthenticated("the API key is not known"))?;
        let now = Timestamp::now();
        let token = self.tokens.issue(&key, now);
        let expires_in = key
            .expires_at
            .map(|at| ((at.millis() - now.millis()) / 1000).max(0) as u64)
            .unwrap_or(u64::MAX)
            .min(self.tokens.ttl().as_secs());
        Ok((token, expires_in))
    }
}

/// Checks a key request against its creator: (scopes, expiry).
fn check_new_key(creator: &Principal, ask: &NewKey, now: Timestamp) -> Result<(Vec<Scope>, Option<Timestamp>)> {
    let mut v = Validator::new();
    let mut scopes = Vec::new();
    for (i, s) in ask.scopes.iter().flatten().enumerate() {
        match s.parse::<Scope>() {
            Ok(scope) => scopes.push(scope),
            Err(why) => v.push(format!("/scopes/{i}"), "invalid_scope", why),
        }
    }
    if let Some(name) = &ask.name {
        v.check(name.chars().count() <= 100, "/name", "too_long", "name must be at most 100 characters");
    }
    v.check(
        !(ask.expires_at.is_some() && ask.expires_in.is_some()),
        "/expires_in",
        "conflicting_fields",
        "give expires_at or expires_in, not both",
    );
    v.check(
        ask.expires_in.is_none_or(|secs| (1..=MAX_EXPIRES_IN).contains(&secs)),
        "/expires_in",
        "out_of_range",
        format!("expires_in must be between 1 and {MAX_EXPIRES_IN} seconds (100 years)"),
    );
    let expires_at = match (ask.expires_at, ask.expires_in) {
        (Some(at), _) => Some(at),
        (None, Some(secs)) => Some(now.plus(Duration::from_secs(secs.min(MAX_EXPIRES_IN)))),
        (None, None) => None,
    };
    if let Some(at) = expires_at {
        v.check(at > now, "/expires_at", "in_the_past", "the expiry must be in the future");
    }
    v.finish()?;
    if ask.scopes.is_none() {
        return Ok((creator.scopes.clone(), expires_at));
    }
    if !creator.scopes.is_empty() {
        let within = |s: &Scope| match s {
            Scope::All => false,
            Scope::Area { area, access } => creator.allows(area, *access),
        };
        if scopes.is_empty() || !scopes.iter().all(within) {
            return Err(
                DomainError::Forbidden("a key cannot create a key with scopes it does not hold itself".into()).into()
            );
        }
    }
    Ok((scopes, expires_at))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn keys() -> TokenKeys {
        TokenKeys::from_secret(b"0123456789abcdef0123456789abcdef", Duration::from_secs(60))
    }

    #[test]
    fn emails() {
        assert!(plausible_email("a@example.com"));
        assert!(!plausible_email("a@localhost"));
        assert!(!plausible_email("a b@example.com"));
        assert!(!plausible_email("@example.com"));
        assert!(!plausible_email("a@@example.com"));
    }

    #[test]
    fn tokens_verify_and_expire_and_resist_tampering() {
        let (_, key) = generate_key(&AccountId::generate(), "k", vec![], None);
        let now = Timestamp::now();
        let token = keys().issue(&key, now);
        assert!(keys().verify(&token, now).is_some());
        assert!(keys().verify(&token, now.plus(Duration::from_secs(61))).is_none());
        let mut tampered = token.clone();
        tampered.insert(token.find('.').unwrap_or(0) + 3, 'x');
        assert!(keys().verify(&tampered, now).is_none());
        let other = TokenKeys::from_secret(b"another-secret-another-secret-xx", keys().ttl());
        assert!(other.verify(&token, now).is_none());
    }

    #[test]
    fn keys_hash_and_prefix() {
        let (secret, key) = generate_key(&AccountId::generate(), "k", vec![], None);
        assert!(secret.starts_with(KEY_PREFIX));
        assert_eq!(key.hash, hash_key(&secret));
        assert!(secret.starts_with(&key.prefix));
    }

    async fn service(dir: &tempfile::TempDir) -> AccountService {
        let store = meridian_backends::open(&meridian_backends::StoreOptions {
            database_url: format!("sqlite://{}", dir.path().join("m.db").display()),
            blob_url: format!("file://{}", dir.path().join("blobs").display()),
            readers: 2,
            busy_timeout: Duration::from_secs(5),
            postgres: Default::default(),
        })
        .await
        .unwrap();
        AccountService::new(store, keys())
    }

    #[tokio::test]
    async fn keys_authenticate_until_revoked_and_never_grant_more_than_their_creator() {
        let dir = tempfile::tempdir().unwrap();
        let accounts = service(&dir).await;
        assert!(matches!(
            accounts.create_account(" ", "nobody").await,
            Err(Error::Domain(DomainError::Invalid(e))) if e.len() == 2
        ));
        let (secret, account) = accounts.create_account("Ada", "ada@example.com").await.unwrap();
        let owner = accounts.authenticate(&secret, false).await.unwrap();
        assert_eq!(owner.account_id, account.id);
        assert!(owner.scopes.is_empty());

        // A read-only DNS key cannot mint a write key, nor a key for another area.
        let ask = NewKey { scopes: Some(vec!["dns:read".into()]), ..NewKey::default() };
        let (reader_secret, reader_key) = accounts.create_key(&owner, &ask).await.unwrap();
        let reader = accounts.authenticate(&reader_secret, false).await.unwrap();
        assert!(reader.allows("dns", Access::Read) && !reader.allows("dns", Access::Write));
        for scopes in [vec!["dns:write".to_owned()], vec!["dem:read".to_owned()], vec!["*".to_owned()]] {
            let ask = NewKey { scopes: Some(scopes), ..NewKey::default() };
            assert!(matches!(accounts.create_key(&reader, &ask).await, Err(Error::Domain(DomainError::Forbidden(_)))));
        }

        // Tokens carry the key and stop with it.
        let (token, expires_in) = accounts.issue_token(&reader).await.unwrap();
        assert!(expires_in <= 60);
        assert!(accounts.authenticate(&token, true).await.unwrap().via_token);
        assert!(matches!(accounts.authenticate(&token, false).await, Err(Error::Unauthenticated(_))));
        accounts.revoke_key(&account.id, reader_key.id.as_str()).await.unwrap();
        assert!(matches!(accounts.authenticate(&reader_secret, false).await, Err(Error::Unauthenticated(_))));
        assert!(matches!(accounts.authenticate(&token, true).await, Err(Error::Unauthenticated(_))));

        // Another account's key is not found.
        let (_, other) = accounts.create_account("Bob", "bob@example.com").await.unwrap();
        assert!(matches!(
            accounts.key(&other.id, reader_key.id.as_str()).await,
            Err(Error::Domain(DomainError::NotFound { .. }))
        ));
    }
}
