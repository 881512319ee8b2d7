//! From committed events to deliveries: the outbox sink, and replays.

use crate::deliver::Handoff;
use async_trait::async_trait;
use meridian_core::event::{matches, Event};
use meridian_core::id::{AccountId, DeliveryId};
use meridian_core::Timestamp;
use meridian_jobs::{EventSink, Waker};
use meridian_store::repo::{ClaimedDelivery, NewDelivery, Subscription};
use meridian_store::{Store, StoreError};
use std::time::Instant;

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
    Ok(fan_out_to(store, events, None).await?.0.len() as u64)
}

/// The deliveries that `events` make: (index of the event, subscription).
fn plan<'a>(subs: &'a [Subscription], events: &'a [Event]) -> Vec<(usize, &'a Subscription)> {
    events
        .iter()
        .enumerate()
        .flat_map(|(i, e)| {
            subs.iter().filter(move |s| s.account_id == e.account_id && receives(s, e)).map(move |s| (i, s))
        })
        .collect()
}

/// [`fan_out`], handing the deliveries added to a worker in memory when `handoff` has room
/// for them (they are inserted leased to it); otherwise they wait in the database to be claimed.
/// Answers the deliveries added, and whether they were handed over.
async fn fan_out_to(
    store: &Store,
    events: &[Event],
    handoff: Option<&Handoff>,
) -> Result<(Vec<DeliveryId>, bool), StoreError> {
    let mut accounts: Vec<AccountId> = events.iter().map(|e| e.account_id.clone()).collect();
    accounts.sort();
    accounts.dedup();
    let subs = store.webhooks.active_subscriptions(&accounts).await?;
    let planned = plan(&subs, events);
    let deliveries: Vec<NewDelivery> = planned
        .iter()
        .map(|&(i, s)| (&events[i], s))
        .map(|(e, s)| NewDelivery {
            account_id: e.account_id.clone(),
            subscription_id: s.id.clone(),
            event_id: e.id.clone(),
            event_type: e.event_type.clone(),
        })
        .collect();
    let handoff = handoff.filter(|h| h.reserve(deliveries.len()));
    let Some(h) = handoff else {
        let added = store.webhooks.insert_deliveries_leased(&deliveries, None).await?;
        return Ok((added.into_iter().map(|(_, id)| id).collect(), false));
    };
    // The lease ends no later in memory than in the database.
    let lease_until = Instant::now() + h.lease();
    let until = Timestamp::now().plus(h.lease());
    let added = match store.webhooks.insert_deliveries_leased(&deliveries, Some((h.worker(), until))).await {
        Ok(added) => added,
        Err(e) => {
            h.release(deliveries.len());
            return Err(e);
        }
    };
    h.release(deliveries.len() - added.len());
    let now = Timestamp::now();
    let mut ids = Vec::with_capacity(added.len());
    let mut bodies: Vec<Option<String>> = vec![None; events.len()];
    for (i, id) in added {
        let (at, sub) = planned[i];
        let event = &events[at];
        let body = match &bodies[at] {
            Some(b) => b.clone(),
            None => {
                let b = serde_json::to_string(&event.payload).map_err(StoreError::from)?;
                bodies[at] = Some(b.clone());
                b
            }
        };
        ids.push(id.clone());
        h.hand(
            ClaimedDelivery {
                id,
                account_id: event.account_id.clone(),
                subscription_id: sub.id.clone(),
                event_id: event.id.clone(),
                event_type: event.event_type.clone(),
                body,
                url: sub.url.clone(),
                secrets: secrets(sub, now),
                round_attempts: 0,
            },
            lease_until,
        );
    }
    Ok((ids, true))
}

/// The secrets a delivery is signed with now: the current one, then the previous one while its
/// grace period lasts.
fn secrets(sub: &Subscription, now: Timestamp) -> Vec<String> {
    let mut secrets = vec![sub.secret.clone()];
    if let (Some(previous), Some(until)) = (&sub.previous_secret, sub.previous_secret_expires_at) {
        if until > now {
            secrets.push(previous.clone());
        }
    }
    secrets
}

/// Hands outbox events to [`fan_out`] and wakes the delivery worker, or hands the deliveries to
/// it in memory.
pub struct WebhookSink {
    store: Store,
    waker: Waker,
    handoff: Option<Handoff>,
}

impl WebhookSink {
    /// A sink writing to `store` and waking the [`crate::Deliverer`] through `waker`.
    pub fn new(store: Store, waker: Waker) -> Self {
        Self { store, waker, handoff: None }
    }

    /// Hands new deliveries to the worker of this process in memory (see [`Handoff`]).
    pub fn with_handoff(mut self, handoff: Handoff) -> Self {
        self.handoff = Some(handoff);
        self
    }
}

#[async_trait]
impl EventSink for WebhookSink {
    fn name(&self) -> &'static str {
        "webhooks"
    }

    async fn accept(&self, events: &[Event]) -> Result<(), String> {
        let (added, handed) =
            fan_out_to(&self.store, events, self.handoff.as_ref()).await.map_err(|e| e.to_string())?;
        if !added.is_empty() {
            metrics::counter!("meridian_webhook_deliveries_created_total").increment(added.len() as u64);
            if !handed {
                // They wait in the database to be claimed.
                self.waker.wake();
            }
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
