//! The webhooks engine against a real store and real receivers over real sockets: the outbox
//! dispatcher with the webhook sink, and the delivery worker.

#![allow(clippy::unwrap_used, clippy::print_stdout)]

mod delivery;
mod fanout;
mod receiver;
mod subscriptions;
mod tools;

use meridian_backends::StoreOptions;
use meridian_core::config::{EventsConfig, WebhooksConfig};
use meridian_core::event::NewEvent;
use meridian_core::id::{AccountId, ApiKeyId, SubscriptionId};
use meridian_core::Timestamp;
use meridian_jobs::{Dispatcher, Waker};
use meridian_store::model::{Account, ApiKey};
use meridian_store::repo::{Delivery, DeliveryFilter, Subscription, SubscriptionStatus};
use meridian_store::Store;
use meridian_webhooks::{Deliverer, WebhookSink};
use serde_json::{json, Map, Value};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// A store with a running dispatcher (webhook sink) and delivery worker.
pub struct Platform {
    pub store: Store,
    pub dir: tempfile::TempDir,
    pub deliveries: Waker,
    stop: CancellationToken,
}

impl Drop for Platform {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Delivery settings for tests: short retries, private networks allowed.
pub fn test_config() -> WebhooksConfig {
    WebhooksConfig {
        allow_http: true,
        allow_private_networks: true,
        timeout: Duration::from_millis(1500),
        retry_schedule: vec![Duration::from_millis(50); 3],
        ..WebhooksConfig::default()
    }
}

pub async fn open_store(dir: &tempfile::TempDir) -> Store {
    let options = StoreOptions {
        database_url: format!("sqlite://{}/m.db", dir.path().display()),
        blob_url: format!("file://{}/blobs", dir.path().display()),
        readers: 4,
        busy_timeout: Duration::from_secs(5),
        postgres: Default::default(),
    };
    meridian_backends::open(&options).await.unwrap()
}

impl Platform {
    pub async fn start(config: WebhooksConfig) -> Self {
        let dir = tempfile::tempdir().unwrap();
        Self::start_in(dir, config).await
    }

    pub async fn start_in(dir: tempfile::TempDir, config: WebhooksConfig) -> Self {
        let store = open_store(&dir).await;
        let (deliveries, stop) = (Waker::new(), CancellationToken::new());
        let events_config =
            EventsConfig { poll_interval: Duration::from_millis(100), batch_size: 200, ..EventsConfig::default() };
        let mut dispatcher = Dispatcher::new(store.clone(), events_config);
        let deliverer = Deliverer::new(store.clone(), config, deliveries.clone()).unwrap();
        let sink = WebhookSink::new(store.clone(), deliveries.clone()).with_handoff(deliverer.handoff());
        dispatcher.add_sink(std::sync::Arc::new(sink));
        tokio::spawn(dispatcher.run(stop.clone()));
        tokio::spawn(deliverer.run(stop.clone()));
        Self { store, dir, deliveries, stop }
    }

    /// A new account (tenant).
    pub async fn account(&self) -> AccountId {
        new_account(&self.store).await
    }

    /// Stores a subscription as given, bypassing the API's checks.
    pub async fn subscribe(&self, account: &AccountId, url: &str, events: &[&str]) -> Subscription {
        new_subscription(&self.store, account, url, events).await
    }

    /// Commits an event for `account` (the commit wakes the dispatcher).
    pub async fn emit(&self, account: &AccountId, event_type: &str, fields: Value) -> NewEvent {
        let fields: Map<String, Value> = fields.as_object().cloned().unwrap_or_default();
        let event = NewEvent::new(account.clone(), event_type, fields);
        self.store.outbox.append(std::slice::from_ref(&event)).await.unwrap();
        event
    }

    /// The subscription's deliveries, newest first.
    pub async fn deliveries(&self, sub: &Subscription) -> Vec<Delivery> {
        let page = meridian_core::page::Page::at(1000, 0);
        let (list, _) = self
            .store
            .webhooks
            .list_deliveries(&sub.account_id, &sub.id, &DeliveryFilter::default(), page)
            .await
            .unwrap();
        list
    }

    /// Polls the subscription's deliveries until `done` holds.
    pub async fn wait_deliveries(
        &self,
        sub: &Subscription,
        what: &str,
        done: impl Fn(&[Delivery]) -> bool,
    ) -> Vec<Delivery> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let list = self.deliveries(sub).await;
            if done(&list) {
                return list;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}: {list:#?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// A new account (tenant).
pub async fn new_account(store: &Store) -> AccountId {
    let id = AccountId::generate();
    let account =
        Account { id: id.clone(), name: "T".into(), email: format!("{id}@example.com"), created_at: Timestamp::now() };
    let key = ApiKey {
        id: ApiKeyId::generate(),
        account_id: id.clone(),
        name: "k".into(),
        prefix: "mrd_x".into(),
        hash: format!("hash-{id}"),
        scopes: vec![],
        created_at: Timestamp::now(),
        expires_at: None,
        revoked_at: None,
    };
    store.accounts.create_account(&account, &key).await.unwrap();
    id
}

/// Stores a subscription as given, bypassing the API's checks.
pub async fn new_subscription(store: &Store, account: &AccountId, url: &str, events: &[&str]) -> Subscription {
    let now = Timestamp::now();
    let sub = Subscription {
        id: SubscriptionId::generate(),
        account_id: account.clone(),
        url: url.to_owned(),
        events: events.iter().map(|e| (*e).to_owned()).collect(),
        description: None,
        status: SubscriptionStatus::Active,
        paused_reason: None,
        failing_since: None,
        secret: meridian_webhooks::signing::generate_secret(),
        previous_secret: None,
        previous_secret_expires_at: None,
        version: 1,
        created_at: now,
        updated_at: now,
    };
    store.webhooks.create_subscription(&sub).await.unwrap();
    sub
}

/// A DNS record event's fields, as the interface shapes them.
pub fn record_fields(name: &str) -> Value {
    json!({"zone": "example.com", "record": {"id": "rec_1", "type": "A", "name": format!("{name}.example.com"), "content": "192.0.2.1"}})
}
