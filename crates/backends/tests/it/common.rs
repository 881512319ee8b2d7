//! Helpers shared by the store tests.

use meridian_backends::StoreOptions;
use meridian_core::event::NewEvent;
use meridian_core::id::{AccountId, ApiKeyId};
use meridian_core::page::Page;
use meridian_core::{DomainError, Timestamp};
use meridian_store::model::{Account, ApiKey, NewJob};
use meridian_store::{Store, StoreError};
use serde_json::{json, Map, Value};
use std::future::Future;
use std::path::Path;
use std::time::Duration;

pub(crate) type TestResult<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// The store the suite runs on: SQLite in `dir`, or, when `MERIDIAN_TEST_POSTGRES` names a
/// PostgreSQL server (`postgres://user@host:port`), a database of its own there, named after
/// `dir` (so that opening the same `dir` again opens the same database). The one place that
/// names the backend.
pub(crate) async fn options(dir: &Path) -> TestResult<StoreOptions> {
    let database_url = match std::env::var("MERIDIAN_TEST_POSTGRES") {
        Ok(server) => {
            let tail: String = dir
                .file_name()
                .map(|n| n.to_string_lossy().to_ascii_lowercase())
                .unwrap_or_default()
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .collect();
            meridian_store_postgres::create_database(&server, &format!("meridian_test_{tail}")).await?
        }
        Err(_) => format!("sqlite://{}/m.db", dir.display()),
    };
    Ok(StoreOptions {
        database_url,
        blob_url: format!("file://{}/blobs", dir.display()),
        readers: 2,
        busy_timeout: Duration::from_secs(5),
        postgres: Default::default(),
    })
}

pub(crate) async fn open(dir: &Path) -> TestResult<Store> {
    Ok(meridian_backends::open(&options(dir).await?).await?)
}

/// A key of `account` whose hash is unique.
pub(crate) fn new_key(account: &AccountId, name: &str) -> ApiKey {
    let id = ApiKeyId::generate();
    ApiKey {
        hash: format!("hash-of-{}", id.as_str()),
        prefix: id.as_str()[..8].to_owned(),
        id,
        account_id: account.clone(),
        name: name.to_owned(),
        scopes: vec!["dns:write".parse().expect("valid scope")],
        created_at: Timestamp::now(),
        expires_at: None,
        revoked_at: None,
    }
}

/// An account with `email` and its first key.
pub(crate) fn new_account(email: &str) -> (Account, ApiKey) {
    let account = Account {
        id: AccountId::generate(),
        name: format!("Account of {email}"),
        email: email.to_owned(),
        created_at: Timestamp::now(),
    };
    let key = new_key(&account.id, "first");
    (account, key)
}

/// Creates an account and returns its id.
pub(crate) async fn create_account(store: &Store, email: &str) -> TestResult<AccountId> {
    let (account, key) = new_account(email);
    store.accounts.create_account(&account, &key).await?;
    Ok(account.id)
}

pub(crate) fn new_job(account: &AccountId, kind: &str) -> NewJob {
    NewJob { account_id: account.clone(), kind: kind.to_owned(), params: json!({"input": kind}), max_attempts: 3 }
}

pub(crate) fn event(account: &AccountId, event_type: &str, n: u64) -> NewEvent {
    let mut fields = Map::new();
    fields.insert("n".into(), Value::from(n));
    NewEvent::new(account.clone(), event_type, fields)
}

pub(crate) fn page(limit: u32, offset: u64) -> Page {
    Page::at(limit, offset)
}

/// The code of a conflict error.
pub(crate) fn conflict_code(e: &StoreError) -> Option<&'static str> {
    match e {
        StoreError::Domain(DomainError::Conflict { code, .. }) => Some(code),
        _ => None,
    }
}

pub(crate) fn is_not_found(e: &StoreError) -> bool {
    matches!(e, StoreError::Domain(DomainError::NotFound { .. }))
}

/// Polls `check` every 20 ms until it yields a value; fails after 10 s.
pub(crate) async fn eventually<T, F, Fut>(what: &str, mut check: F) -> TestResult<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = TestResult<Option<T>>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(value) = check().await? {
            return Ok(value);
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(format!("timed out waiting for {what}").into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The page after the item `id`, `offset` items in (what a `next` link's cursor asks for).
pub(crate) fn after(limit: u32, offset: u64, id: &str) -> Page {
    Page { after: meridian_core::page::After::new(id), ..Page::at(limit, offset) }
}
