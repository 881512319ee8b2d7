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
    let page = Page { limit: 100, offset: 0 };
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
    let page = Page { limit: 10, offset: 0 };
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
