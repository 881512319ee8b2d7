use crate::{new_account, new_subscription, open_store};
use meridian_core::event::{Event, NewEvent};
use meridian_core::page::Page;
use meridian_core::Timestamp;
use meridian_store::repo::{DeliveryFilter, DeliveryStatus, Subscription};
use meridian_store::Store;
use serde_json::{json, Map, Value};
use std::time::Duration;

fn event(account: &meridian_core::id::AccountId, event_type: &str, fields: Value, seq: i64) -> Event {
    let e = NewEvent::new(account.clone(), event_type, fields.as_object().cloned().unwrap_or_else(Map::new));
    Event {
        seq,
        id: e.id,
        account_id: e.account_id,
        event_type: e.event_type,
        timestamp: e.timestamp,
        payload: e.payload,
    }
}

async fn count(store: &Store, sub: &Subscription) -> u64 {
    let page = Page::at(100, 0);
    store.webhooks.list_deliveries(&sub.account_id, &sub.id, &DeliveryFilter::default(), page).await.unwrap().1
}

async fn commit(store: &Store, events: &[Event]) {
    let new: Vec<NewEvent> = events
        .iter()
        .map(|e| NewEvent {
            id: e.id.clone(),
            account_id: e.account_id.clone(),
            event_type: e.event_type.clone(),
            timestamp: e.timestamp,
            payload: e.payload.clone(),
        })
        .collect();
    store.outbox.append(&new).await.unwrap();
}

#[tokio::test]
async fn fan_out_is_idempotent_and_stays_within_the_tenant() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_store(&dir).await;
    let a = new_account(&store).await;
    let b = new_account(&store).await;
    let a_dns = new_subscription(&store, &a, "https://a.example/dns", &["dns.*"]).await;
    let a_parcels = new_subscription(&store, &a, "https://a.example/parcels", &["cadastre.parcel.registered"]).await;
    let b_all = new_subscription(&store, &b, "https://b.example/all", &["*"]).await;
    let events = vec![
        event(&a, "dns.record.created", json!({"zone": "example.com"}), 1),
        event(&a, "cadastre.parcel.registered", json!({}), 2),
        event(&a, "cadastre.parcel.retired", json!({}), 3),
        // A test event goes to the subscription it names only, whatever its patterns...
        event(&a, "webhook.test", json!({"subscription_id": a_parcels.id}), 4),
        // ...and never across tenants, even when it names another tenant's subscription.
        event(&a, "webhook.test", json!({"subscription_id": b_all.id}), 5),
    ];
    commit(&store, &events).await;
    assert_eq!(meridian_webhooks::fan_out(&store, &events).await.unwrap(), 3);
    // Handed on again (the dispatcher crashed before marking them): nothing doubles.
    assert_eq!(meridian_webhooks::fan_out(&store, &events).await.unwrap(), 0);
    assert_eq!(count(&store, &a_dns).await, 1);
    assert_eq!(count(&store, &a_parcels).await, 2);
    assert_eq!(count(&store, &b_all).await, 0, "another tenant's events never reach B");

    // B cannot see or touch A's subscription or deliveries.
    assert!(store.webhooks.get_subscription(&b, &a_dns.id).await.unwrap().is_none());
    let page = Page::at(10, 0);
    let (list, total) = store.webhooks.list_subscriptions(&b, false, page).await.unwrap();
    assert_eq!((list.len(), total), (1, 1));
    let (a_list, _) = store.webhooks.list_deliveries(&a, &a_dns.id, &DeliveryFilter::default(), page).await.unwrap();
    let delivery = &a_list[0];
    assert!(store.webhooks.get_delivery(&b, &delivery.id).await.unwrap().is_none());
    let (b_view, _) = store.webhooks.list_deliveries(&b, &a_dns.id, &DeliveryFilter::default(), page).await.unwrap();
    assert!(b_view.is_empty());
    assert!(store.webhooks.redeliver(&b, &delivery.id).await.is_err());
    assert!(store.webhooks.delete_subscription(&b, &a_dns.id, None, false).await.is_err());
    assert!(store.webhooks.get_subscription(&a, &a_dns.id).await.unwrap().is_some());

    // A delivery not attempted yet cannot be redelivered.
    assert_eq!(delivery.status, DeliveryStatus::Pending);
    let err = store.webhooks.redeliver(&a, &delivery.id).await.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("about to be attempted"), "{err}");
}

#[tokio::test]
async fn claims_respect_the_per_subscription_cap_across_workers() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_store(&dir).await;
    let a = new_account(&store).await;
    let busy = new_subscription(&store, &a, "https://busy.example/", &["*"]).await;
    let quiet = new_subscription(&store, &a, "https://quiet.example/", &["dns.*"]).await;
    let mut events: Vec<Event> = (0..5).map(|i| event(&a, "cadastre.parcel.updated", json!({}), i)).collect();
    events.push(event(&a, "dns.zone.created", json!({}), 9));
    commit(&store, &events).await;
    assert_eq!(meridian_webhooks::fan_out(&store, &events).await.unwrap(), 7);
    let lease = Duration::from_secs(60);
    let first = store.webhooks.claim_deliveries("w1", 10, 2, lease).await.unwrap();
    let per = |sub: &Subscription, list: &[meridian_store::repo::ClaimedDelivery]| {
        list.iter().filter(|d| d.subscription_id == sub.id).count()
    };
    assert_eq!((per(&busy, &first), per(&quiet, &first)), (2, 2 - 1));
    let second = store.webhooks.claim_deliveries("w2", 10, 2, lease).await.unwrap();
    assert!(second.is_empty(), "another worker sees the cap too: {second:?}");
    // Claimed deliveries carry what an attempt needs.
    let d = first.iter().find(|d| d.subscription_id == busy.id).unwrap();
    assert_eq!(d.secrets, vec![busy.secret.clone()]);
    assert_eq!(d.url, busy.url);
    let body: Value = serde_json::from_str(&d.body).unwrap();
    assert_eq!(body["id"], d.event_id.as_str());
    // Finishing one frees one slot.
    let attempt = meridian_store::repo::Attempt {
        attempted_at: Timestamp::now(),
        status_code: Some(200),
        error: None,
        latency_ms: 3,
        response_body: Some("ok".into()),
    };
    let outcome = meridian_store::repo::AttemptOutcome::Succeeded;
    assert!(store.webhooks.record_attempt("w1", &d.id, &attempt, outcome, Duration::from_secs(60)).await.unwrap());
    // Recording twice, or by a worker without the lease, changes nothing.
    assert!(
        !store.webhooks.record_attempt("w2", &first[0].id, &attempt, outcome, Duration::from_secs(60)).await.unwrap()
            || first[0].id == d.id
    );
    let third = store.webhooks.claim_deliveries("w2", 10, 2, lease).await.unwrap();
    assert_eq!(per(&busy, &third), 1);
}

#[tokio::test]
async fn attempts_recorded_in_one_group_keep_their_order_and_their_leases() {
    use meridian_store::repo::{Attempt, AttemptOutcome, AttemptRecord, SubscriptionStatus};
    let dir = tempfile::tempdir().unwrap();
    let store = open_store(&dir).await;
    let a = new_account(&store).await;
    let sub = new_subscription(&store, &a, "https://receiver.example/", &["*"]).await;
    let events: Vec<Event> = (0..4).map(|i| event(&a, "cadastre.parcel.updated", json!({}), i)).collect();
    commit(&store, &events).await;
    assert_eq!(meridian_webhooks::fan_out(&store, &events).await.unwrap(), 4);
    let claimed = store.webhooks.claim_deliveries("w1", 10, 4, Duration::from_secs(60)).await.unwrap();
    assert_eq!(claimed.len(), 4);
    let base = Timestamp::now().millis() - 10_000;
    let at = |ms: i64| Timestamp::from_millis(base + ms);
    let attempt = |ms: i64, code: u16| Attempt {
        attempted_at: at(ms),
        status_code: Some(code),
        error: None,
        latency_ms: 1,
        response_body: None,
    };
    let retry = AttemptOutcome::RetryAt(Timestamp::now().plus(Duration::from_secs(300)));
    let group = vec![
        AttemptRecord { id: claimed[0].id.clone(), attempt: attempt(0, 500), outcome: retry },
        AttemptRecord { id: claimed[1].id.clone(), attempt: attempt(1, 200), outcome: AttemptOutcome::Succeeded },
        AttemptRecord { id: claimed[2].id.clone(), attempt: attempt(2, 500), outcome: retry },
    ];
    // A worker without the lease records nothing.
    let lost = store.webhooks.record_attempts("w2", &group, Duration::from_secs(86_400)).await.unwrap();
    assert_eq!(lost, vec![false, false, false]);
    let recorded = store.webhooks.record_attempts("w1", &group, Duration::from_secs(86_400)).await.unwrap();
    assert_eq!(recorded, vec![true, true, true]);
    // Failure, success, failure: the run of failures starts at the last failure.
    let now = store.webhooks.get_subscription(&a, &sub.id).await.unwrap().unwrap();
    assert_eq!(now.failing_since, Some(at(2)));
    assert_eq!(now.status, SubscriptionStatus::Active);
    let states: Vec<DeliveryStatus> = statuses(&store, &a, &claimed[..3]).await;
    assert_eq!(states, vec![DeliveryStatus::Failed, DeliveryStatus::Succeeded, DeliveryStatus::Failed]);
    // Recorded once: the leases are gone.
    let again = store.webhooks.record_attempts("w1", &group, Duration::from_secs(86_400)).await.unwrap();
    assert_eq!(again, vec![false, false, false]);
    // A failure that continues a run older than `disable_after` pauses the subscription.
    let last = vec![AttemptRecord { id: claimed[3].id.clone(), attempt: attempt(3, 500), outcome: retry }];
    assert_eq!(store.webhooks.record_attempts("w1", &last, Duration::from_secs(1)).await.unwrap(), vec![true]);
    let paused = store.webhooks.get_subscription(&a, &sub.id).await.unwrap().unwrap();
    assert_eq!((paused.status, paused.failing_since), (SubscriptionStatus::Paused, Some(at(2))));
}

async fn statuses(
    store: &Store,
    account: &meridian_core::id::AccountId,
    claimed: &[meridian_store::repo::ClaimedDelivery],
) -> Vec<DeliveryStatus> {
    let mut out = Vec::new();
    for d in claimed {
        out.push(store.webhooks.get_delivery(account, &d.id).await.unwrap().unwrap().status);
    }
    out
}
