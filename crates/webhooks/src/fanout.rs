//! From committed events to deliveries: the outbox sink, and replays.

use async_trait::async_trait;
use meridian_core::event::{matches, Event};
use meridian_core::id::AccountId;
use meridian_core::Timestamp;
use meridian_jobs::{EventSink, Waker};
use meridian_store::repo::{NewDelivery, Subscription};
use meridian_store::{Store, StoreError};

/// Whether `sub` receives an event. A `webhook.test` event goes only to the subscription it names,
/// whatever that one's patterns.
pub fn receives(sub: &Subscription, event: &Event) -> bool {
    if event.event_type == "webhook.test" {
        return event.payload.get("subscription_id").and_then(|v| v.as_str()) == Some(sub.id.as_str());
    }
    sub.events.iter().any(|p| matches(p, &event.event_type))
}

/// Adds one delivery per (event, matching active subscription of the event's own tenant).
/// Idempotent: an event handed on twice gets no second delivery. Answers how many were added.
pub async fn fan_out(store: &Store, events: &[Event]) -> Result<u64, StoreError> {
    let mut accounts: Vec<AccountId> = events.iter().map(|e| e.account_id.clone()).collect();
    accounts.sort();
    accounts.dedup();
    let subs = store.webhooks.active_subscriptions(&accounts).await?;
    let deliveries: Vec<NewDelivery> = events
        .iter()
        .flat_map(|e| {
            subs.iter().filter(move |s| s.account_id == e.account_id && receives(s, e)).map(move |s| NewDelivery {
                account_id: e.account_id.clone(),
                subscription_id: s.id.clone(),
                event_id: e.id.clone(),
                event_type: e.event_type.clone(),
            })
        })
        .collect();
    store.webhooks.insert_deliveries(&deliveries).await
}

/// Hands outbox events to [`fan_out`] and wakes the delivery worker.
pub struct WebhookSink {
    store: Store,
    waker: Waker,
}

impl WebhookSink {
    /// A sink writing to `store` and waking the [`crate::Deliverer`] through `waker`.
    pub fn new(store: Store, waker: Waker) -> Self {
        Self { store, waker }
    }
}

#[async_trait]
impl EventSink for WebhookSink {
    fn name(&self) -> &'static str {
        "webhooks"
    }

    async fn accept(&self, events: &[Event]) -> Result<(), String> {
        let added = fan_out(&self.store, events).await.map_err(|e| e.to_string())?;
        if added > 0 {
            metrics::counter!("meridian_webhook_deliveries_created_total").increment(added);
            self.waker.wake();
        }
        Ok(())
    }
}

/// Most events one replay call sends; `next_since` says where to continue.
pub const REPLAY_LIMIT: u32 = 10_000;

/// What a replay did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// Deliveries made due now.
    pub replayed: u64,
    /// Set when the limit was reached: replay again from here for the rest.
    pub next_since: Option<Timestamp>,
}

/// Sends `sub` again the events it matches committed in `[since, until)`: missing deliveries are
/// added and ended ones made due (only failed and exhausted ones with `only_failed`).
pub async fn replay(
    store: &Store,
    sub: &Subscription,
    since: Timestamp,
    until: Option<Timestamp>,
    only_failed: bool,
) -> Result<Replayed, StoreError> {
    let mut events = store.webhooks.events_between(&sub.account_id, since, until, REPLAY_LIMIT + 1).await?;
    let next_since = if events.len() > REPLAY_LIMIT as usize { events.pop().map(|e| e.timestamp) } else { None };
    let deliveries: Vec<NewDelivery> = events
        .iter()
        .filter(|e| receives(sub, e))
        .map(|e| NewDelivery {
            account_id: sub.account_id.clone(),
            subscription_id: sub.id.clone(),
            event_id: e.id.clone(),
            event_type: e.event_type.clone(),
        })
        .collect();
    let replayed = store.webhooks.replay(&sub.account_id, &deliveries, only_failed).await?;
    Ok(Replayed { replayed, next_since })
}
