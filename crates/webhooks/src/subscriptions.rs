//! Webhook subscriptions as a service: the rules for creating and changing them (the SSRF guard
//! on the URL, known event patterns, description length, status changes), secret rotation, test
//! events and replays. The HTTP routes only extract, call this and map the answer.

use crate::event_types::check_patterns;
use crate::fanout::{replay, Replayed};
use crate::signing::generate_secret;
use meridian_core::config::WebhooksConfig;
use meridian_core::event::NewEvent;
use meridian_core::id::{AccountId, DeliveryId, SubscriptionId};
use meridian_core::page::Page;
use meridian_core::{DomainError, FieldError, Timestamp};
use meridian_jobs::Waker;
use meridian_store::repo::{Delivery, DeliveryFilter, Subscription, SubscriptionChange, SubscriptionStatus};
use meridian_store::{Store, StoreError};
use serde_json::{json, Map};
use std::sync::Arc;

/// What can go wrong with a subscription.
#[derive(Debug, thiserror::Error)]
pub enum SubscriptionError {
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub type Result<T, E = SubscriptionError> = std::result::Result<T, E>;

/// A new subscription as asked for.
#[derive(Clone, Debug)]
pub struct NewSubscription {
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
}

/// A change as asked for; absent fields stay.
#[derive(Clone, Debug, Default)]
pub struct SubscriptionUpdate {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    /// `Some(None)` clears it.
    pub description: Option<Option<String>>,
    /// `active` or `paused`.
    pub status: Option<String>,
}

/// The subscription service, shared by `/api/v1/webhooks` and `/v1/dns/webhooks`.
#[derive(Clone)]
pub struct SubscriptionService {
    store: Store,
    config: Arc<WebhooksConfig>,
    /// Wakes the delivery worker when deliveries fall due (resume, replay).
    delivery_waker: Waker,
}

const MAX_URL: usize = 2048;
const MAX_DESCRIPTION: usize = 500;

impl SubscriptionService {
    pub fn new(store: Store, config: Arc<WebhooksConfig>, delivery_waker: Waker) -> Self {
        Self { store, config, delivery_waker }
    }

    /// Checks an endpoint URL against the SSRF guard, including where its name resolves now.
    async fn check_url(&self, url: &str, pointer: &str) -> Result<String, FieldError> {
        if url.len() > MAX_URL {
            return Err(FieldError::new(pointer, "too_long", format!("the URL must be at most {MAX_URL} characters")));
        }
        match crate::policy(&self.config).check_url_resolved(url.trim()).await {
            Ok(parsed) => Ok(parsed.to_string()),
            Err(refusal) => Err(FieldError::new(pointer, refusal.code(), refusal.to_string())),
        }
    }

    fn check_description(d: Option<&str>, errors: &mut Vec<FieldError>) {
        if d.is_some_and(|d| d.chars().count() > MAX_DESCRIPTION) {
            errors.push(FieldError::new(
                "/description",
                "too_long",
                format!("description must be at most {MAX_DESCRIPTION} characters"),
            ));
        }
    }

    /// Checks and stores a new subscription; returns it with its secret (shown once).
    /// `dns_only` limits the event patterns to `dns.*` (the DNS API's webhooks).
    pub async fn create(
        &self,
        account: &AccountId,
        new: NewSubscription,
        dns_only: bool,
    ) -> Result<(Subscription, String)> {
        let mut errors = Vec::new();
        let url = self.check_url(&new.url, "/url").await.map_err(|e| errors.push(e)).ok();
        let events = check_patterns(&new.events, "/events", dns_only).map_err(|e| errors.extend(e)).ok();
        Self::check_description(new.description.as_deref(), &mut errors);
        let (Some(url), Some(events), true) = (url, events, errors.is_empty()) else {
            return Err(DomainError::Invalid(errors).into());
        };
        let secret = generate_secret();
        let now = Timestamp::now();
        let sub = Subscription {
            id: SubscriptionId::generate(),
            account_id: account.clone(),
            url,
            events,
            description: new.description.map(|d| d.trim().to_owned()).filter(|d| !d.is_empty()),
            status: SubscriptionStatus::Active,
            paused_reason: None,
            failing_since: None,
            secret: secret.clone(),
            previous_secret: None,
            previous_secret_expires_at: None,
            version: 1,
            created_at: now,
            updated_at: now,
        };
        self.store.webhooks.create_subscription(&sub).await?;
        Ok((sub, secret))
    }

    /// One subscription of the account; not-found otherwise.
    pub async fn get(&self, account: &AccountId, id: &str) -> Result<Subscription> {
        let found = self.store.webhooks.get_subscription(account, &SubscriptionId(id.to_owned())).await?;
        found.ok_or_else(|| DomainError::not_found("subscription", id).into())
    }

    /// A page of a subscription's deliveries (of the account's), newest first, with their
    /// attempts, and how many there are.
    pub async fn deliveries(
        &self,
        account: &AccountId,
        subscription: &str,
        filter: &DeliveryFilter,
        page: Page,
    ) -> Result<(Subscription, Vec<Delivery>, u64)> {
        let sub = self.get(account, subscription).await?;
        let (deliveries, total) = self.store.webhooks.list_deliveries(account, &sub.id, filter, page).await?;
        Ok((sub, deliveries, total))
    }

    /// One delivery of the account, with its event and attempts; not-found otherwise.
    pub async fn delivery(&self, account: &AccountId, id: &str) -> Result<Delivery> {
        let found = self.store.webhooks.get_delivery(account, &DeliveryId(id.to_owned())).await?;
        found.ok_or_else(|| DomainError::not_found("delivery", id).into())
    }

    /// Makes an attempted delivery due now with a fresh retry schedule, and wakes the delivery
    /// worker.
    pub async fn redeliver(&self, account: &AccountId, id: &str) -> Result<Delivery> {
        let delivery = self.store.webhooks.redeliver(account, &DeliveryId(id.to_owned())).await?;
        self.delivery_waker.wake();
        Ok(delivery)
    }

    /// A page of the account's subscriptions, newest first, and how many there are.
    pub async fn list(&self, account: &AccountId, dns_only: bool, page: Page) -> Result<(Vec<Subscription>, u64)> {
        Ok(self.store.webhooks.list_subscriptions(account, dns_only, page).await?)
    }

    /// Changes a subscription (`expected`: the version `If-Match` named). Resuming it makes its
    /// held deliveries due.
    pub async fn update(
        &self,
        account: &AccountId,
        id: &str,
        update: SubscriptionUpdate,
        expected: Option<i64>,
    ) -> Result<Subscription> {
        let mut errors = Vec::new();
        let mut change = SubscriptionChange::default();
        if let Some(url) = &update.url {
            change.url = self.check_url(url, "/url").await.map_err(|e| errors.push(e)).ok();
        }
        if let Some(events) = &update.events {
            change.events = check_patterns(events, "/events", false).map_err(|e| errors.extend(e)).ok();
        }
        if let Some(description) = &update.description {
            Self::check_description(description.as_deref(), &mut errors);
            change.description =
                Some(description.as_deref().map(str::trim).filter(|d| !d.is_empty()).map(str::to_owned));
        }
        if let Some(status) = &update.status {
            change.status = SubscriptionStatus::parse(status);
            if change.status.is_none() {
                errors.push(FieldError::new("/status", "invalid_value", "status must be active or paused"));
            }
        }
        if !errors.is_empty() {
            return Err(DomainError::Invalid(errors).into());
        }
        let sub =
            self.store.webhooks.update_subscription(account, &SubscriptionId(id.to_owned()), &change, expected).await?;
        if change.status == Some(SubscriptionStatus::Active) {
            self.delivery_waker.wake();
        }
        Ok(sub)
    }

    /// Deletes a subscription and its deliveries.
    pub async fn delete(&self, account: &AccountId, id: &str, expected: Option<i64>, dns_only: bool) -> Result<()> {
        self.store.webhooks.delete_subscription(account, &SubscriptionId(id.to_owned()), expected, dns_only).await?;
        Ok(())
    }

    /// A new secret (returned once); the previous one keeps signing for the configured grace.
    pub async fn rotate_secret(&self, account: &AccountId, id: &str) -> Result<(Subscription, String)> {
        let secret = generate_secret();
        let until = Timestamp::now().plus(self.config.secret_rotation_grace);
        let sub = self.store.webhooks.rotate_secret(account, &SubscriptionId(id.to_owned()), &secret, until).await?;
        Ok((sub, secret))
    }

    /// Commits a `webhook.test` event for an active subscription; returns it.
    pub async fn send_test(&self, account: &AccountId, id: &str) -> Result<(Subscription, NewEvent)> {
        let sub = self.get(account, id).await?;
        if sub.status != SubscriptionStatus::Active {
            return Err(DomainError::conflict(
                "subscription_paused",
                format!("subscription {} is paused; set its status to active to send it events", sub.id),
            )
            .into());
        }
        let mut fields = Map::new();
        fields.insert("subscription_id".into(), json!(sub.id));
        fields.insert("message".into(), json!("This is a test event."));
        let event = NewEvent::new(account.clone(), "webhook.test", fields);
        self.store.outbox.append(std::slice::from_ref(&event)).await?;
        Ok((sub, event))
    }

    /// Sends a subscription again the events committed in `[since, until)`.
    pub async fn replay(
        &self,
        account: &AccountId,
        id: &str,
        since: Timestamp,
        until: Option<Timestamp>,
        only_failed: bool,
    ) -> Result<Replayed> {
        if until.is_some_and(|u| u <= since) {
            return Err(DomainError::invalid("/until", "out_of_range", "until must be after since").into());
        }
        let sub = self.get(account, id).await?;
        let done = replay(&self.store, &sub, since, until, only_failed).await?;
        if done.replayed > 0 {
            self.delivery_waker.wake();
        }
        Ok(done)
    }
}
