//! The subscription service without HTTP: its rules, states and transitions.

use crate::{new_account, open_store, test_config};
use meridian_core::config::WebhooksConfig;
use meridian_core::page::Page;
use meridian_core::{DomainError, Timestamp};
use meridian_jobs::Waker;
use meridian_store::repo::SubscriptionStatus;
use meridian_webhooks::{NewSubscription, SubscriptionError, SubscriptionService, SubscriptionUpdate};
use std::sync::Arc;

fn service(store: &meridian_store::Store, config: WebhooksConfig) -> SubscriptionService {
    SubscriptionService::new(store.clone(), Arc::new(config), Waker::new())
}

fn invalid_pointers(e: SubscriptionError) -> Vec<(String, String)> {
    match e {
        SubscriptionError::Domain(DomainError::Invalid(list)) => {
            list.into_iter().map(|f| (f.pointer, f.code)).collect()
        }
        other => panic!("expected a validation error, got {other:?}"),
    }
}

fn new(url: &str, events: &[&str]) -> NewSubscription {
    NewSubscription { url: url.into(), events: events.iter().map(|e| (*e).to_owned()).collect(), description: None }
}

#[tokio::test]
async fn creation_checks_url_events_and_description_together() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_store(&dir).await;
    let account = new_account(&store).await;
    let strict = service(&store, WebhooksConfig::default());
    let mut bad = new("http://127.0.0.1/hook", &["dns.nonsense"]);
    bad.description = Some("x".repeat(501));
    let mut pointers = invalid_pointers(strict.create(&account, bad, false).await.unwrap_err());
    pointers.sort();
    let at: Vec<&str> = pointers.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(at, ["/description", "/events/0", "/url"]);
    // The DNS API's webhooks take DNS events only.
    let lenient = service(&store, test_config());
    let refused = lenient.create(&account, new("http://127.0.0.1:9/h", &["dem.job.succeeded"]), true).await;
    assert!(invalid_pointers(refused.unwrap_err()).iter().any(|(p, _)| p == "/events/0"));
    let (sub, secret) = lenient.create(&account, new("http://127.0.0.1:9/h", &["dns.*"]), true).await.unwrap();
    assert!(secret.starts_with("whsec_"));
    assert_eq!(sub.version, 1);
    let (listed, total) = lenient.list(&account, true, Page::at(10, 0)).await.unwrap();
    assert_eq!((listed.len(), total), (1, 1));
}

#[tokio::test]
async fn pausing_resuming_rotating_and_tests_follow_the_states() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_store(&dir).await;
    let account = new_account(&store).await;
    let other = new_account(&store).await;
    let svc = service(&store, test_config());
    let (sub, first_secret) = svc.create(&account, new("http://127.0.0.1:9/h", &["*"]), false).await.unwrap();
    let id = sub.id.as_str().to_owned();

    // Another tenant sees nothing.
    assert!(matches!(
        svc.get(&other, &id).await,
        Err(SubscriptionError::Store(meridian_store::StoreError::Domain(DomainError::NotFound { .. })))
            | Err(SubscriptionError::Domain(DomainError::NotFound { .. }))
    ));

    let bad_status = SubscriptionUpdate { status: Some("sleeping".into()), ..Default::default() };
    assert_eq!(invalid_pointers(svc.update(&account, &id, bad_status, None).await.unwrap_err())[0].0, "/status");

    let pause = SubscriptionUpdate { status: Some("paused".into()), ..Default::default() };
    let paused = svc.update(&account, &id, pause, Some(1)).await.unwrap();
    assert_eq!(paused.status, SubscriptionStatus::Paused);
    match svc.send_test(&account, &id).await {
        Err(SubscriptionError::Domain(DomainError::Conflict { code, .. })) => assert_eq!(code, "subscription_paused"),
        other => panic!("a paused subscription takes no test event: {other:?}"),
    }
    // A stale version is refused.
    let resume = SubscriptionUpdate { status: Some("active".into()), ..Default::default() };
    assert!(svc.update(&account, &id, resume.clone(), Some(1)).await.is_err());
    let active = svc.update(&account, &id, resume, Some(paused.version)).await.unwrap();
    assert_eq!(active.status, SubscriptionStatus::Active);
    let (_, event) = svc.send_test(&account, &id).await.unwrap();
    assert_eq!(event.payload["event"], "webhook.test");

    let (rotated, second_secret) = svc.rotate_secret(&account, &id).await.unwrap();
    assert_ne!(first_secret, second_secret);
    assert!(rotated.previous_secret_expires_at.is_some());

    let since = Timestamp::now();
    let earlier = Timestamp::from_millis(since.millis() - 1000);
    assert!(svc.replay(&account, &id, since, Some(earlier), false).await.is_err());
    svc.delete(&account, &id, None, false).await.unwrap();
    assert!(svc.get(&account, &id).await.is_err());
}
