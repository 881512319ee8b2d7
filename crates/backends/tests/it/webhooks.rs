//! The webhook repository: subscriptions with their versions, pauses and secrets; deliveries made
//! once per event and subscription, leased to one worker, attempted, redelivered and replayed
//! along the `DeliveryStatus` state machine; all of it kept to its account.

use crate::common::{conflict_code, create_account, event, is_not_found, open, page, TestResult};
use meridian_core::event::NewEvent;
use meridian_core::id::{AccountId, DeliveryId, SubscriptionId};
use meridian_core::{DomainError, Timestamp};
use meridian_store::repo::{
    Attempt, AttemptOutcome, AttemptRecord, Delivery, DeliveryFilter, DeliveryStatus, NewDelivery, Subscription,
    SubscriptionChange, SubscriptionStatus,
};
use meridian_store::{Store, StoreError};
use std::collections::BTreeSet;
use std::time::Duration;

const LEASE: Duration = Duration::from_secs(60);
const HOUR: Duration = Duration::from_secs(3600);

/// An active subscription of `account` to `events`, created at `created_at` (ms).
fn subscription(account: &AccountId, events: &[&str], created_at: i64) -> Subscription {
    let id = SubscriptionId::generate();
    let at = Timestamp::from_millis(created_at);
    Subscription {
        url: format!("https://hooks.example.com/{}", id.as_str()),
        secret: format!("whsec_{}", &id.as_str()[6..]),
        id,
        account_id: account.clone(),
        events: events.iter().map(|e| (*e).to_owned()).collect(),
        description: Some("Zone changes to the ops channel".into()),
        status: SubscriptionStatus::Active,
        paused_reason: None,
        failing_since: None,
        previous_secret: None,
        previous_secret_expires_at: None,
        version: 1,
        created_at: at,
        updated_at: at,
    }
}

fn delivery_of(e: &NewEvent, sub: &Subscription) -> NewDelivery {
    NewDelivery {
        account_id: e.account_id.clone(),
        subscription_id: sub.id.clone(),
        event_id: e.id.clone(),
        event_type: e.event_type.clone(),
    }
}

/// Appends `n` events of `account` to the outbox (a delivery needs its event).
async fn events(store: &Store, account: &AccountId, n: u64) -> TestResult<Vec<NewEvent>> {
    let made: Vec<NewEvent> = (0..n).map(|i| event(account, "dns.record.created", i)).collect();
    store.outbox.append(&made).await?;
    Ok(made)
}

fn attempt(status_code: Option<u16>, error: Option<&str>) -> Attempt {
    Attempt {
        attempted_at: Timestamp::now(),
        status_code,
        error: error.map(str::to_owned),
        latency_ms: 42,
        response_body: status_code.map(|c| format!("{{\"status\": {c}}}")),
    }
}

fn is_precondition_failed(e: &StoreError) -> bool {
    matches!(e, StoreError::Domain(DomainError::PreconditionFailed(_)))
}

async fn delivery(store: &Store, account: &AccountId, id: &DeliveryId) -> TestResult<Delivery> {
    Ok(store.webhooks.get_delivery(account, id).await?.ok_or("no such delivery")?)
}

/// The delivery of each event to `sub`, in the events' order.
async fn deliveries_of(store: &Store, sub: &Subscription, events: &[NewEvent]) -> TestResult<Vec<DeliveryId>> {
    let mut ids = Vec::new();
    for e in events {
        let filter = DeliveryFilter { event_id: Some(e.id.clone()), ..Default::default() };
        let (found, _) = store.webhooks.list_deliveries(&sub.account_id, &sub.id, &filter, page(10, 0)).await?;
        ids.push(found.first().ok_or("no delivery of that event")?.id.clone());
    }
    Ok(ids)
}

fn claimed_ids(claimed: &[meridian_store::repo::ClaimedDelivery]) -> BTreeSet<String> {
    claimed.iter().map(|c| c.id.as_str().to_owned()).collect()
}

#[tokio::test]
async fn subscriptions_are_listed_newest_first_and_kept_to_their_account() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "wh-a@example.com").await?;
    let b = create_account(&store, "wh-b@example.com").await?;
    let s1 = subscription(&a, &["dns.*"], 1_000);
    let s2 = subscription(&a, &["*"], 2_000);
    let s3 = subscription(&a, &["dns.zone.created", "dns.record.created"], 3_000);
    let sb = subscription(&b, &["dns.*"], 4_000);
    for s in [&s1, &s2, &s3, &sb] {
        store.webhooks.create_subscription(s).await?;
    }

    assert_eq!(store.webhooks.get_subscription(&a, &s1.id).await?, Some(s1.clone()), "stored as given");
    let (all, total) = store.webhooks.list_subscriptions(&a, false, page(10, 0)).await?;
    assert_eq!((all, total), (vec![s3.clone(), s2.clone(), s1.clone()], 3));
    let (second, total) = store.webhooks.list_subscriptions(&a, false, page(1, 1)).await?;
    assert_eq!((second, total), (vec![s2.clone()], 3));
    // Only those whose every pattern is within `dns.`.
    let (dns, total) = store.webhooks.list_subscriptions(&a, true, page(10, 0)).await?;
    assert_eq!((dns, total), (vec![s3.clone(), s1.clone()], 2));

    assert_eq!(store.webhooks.get_subscription(&b, &s1.id).await?, None);
    assert_eq!(store.webhooks.list_subscriptions(&b, false, page(10, 0)).await?, (vec![sb.clone()], 1));
    let ids = |subs: Vec<Subscription>| subs.into_iter().map(|s| s.id.0).collect::<BTreeSet<_>>();
    assert_eq!(ids(store.webhooks.active_subscriptions(std::slice::from_ref(&a)).await?).len(), 3);
    assert_eq!(ids(store.webhooks.active_subscriptions(&[a.clone(), b.clone()]).await?), ids(vec![s1, s2, s3, sb]));
    assert!(store.webhooks.active_subscriptions(&[]).await?.is_empty());
    Ok(())
}

#[tokio::test]
async fn subscription_changes_are_versioned_and_record_why_it_is_paused() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "wh-v@example.com").await?;
    let b = create_account(&store, "wh-v2@example.com").await?;
    let s = subscription(&a, &["dns.*"], 1_000);
    store.webhooks.create_subscription(&s).await?;

    let change = SubscriptionChange {
        url: Some("https://hooks.example.com/moved".into()),
        description: Some(None),
        ..Default::default()
    };
    let e = store.webhooks.update_subscription(&a, &s.id, &change, Some(2)).await.unwrap_err();
    assert!(is_precondition_failed(&e), "{e:?}");
    assert_eq!(store.webhooks.get_subscription(&a, &s.id).await?, Some(s.clone()), "a refused change changes nothing");
    let moved = store.webhooks.update_subscription(&a, &s.id, &change, Some(1)).await?;
    assert_eq!((moved.version, moved.url.as_str(), &moved.description), (2, "https://hooks.example.com/moved", &None));
    assert_eq!((&moved.events, &moved.secret, moved.status), (&s.events, &s.secret, SubscriptionStatus::Active));
    assert_eq!(store.webhooks.get_subscription(&a, &s.id).await?, Some(moved.clone()));
    let e = store.webhooks.update_subscription(&b, &s.id, &change, None).await.unwrap_err();
    assert!(is_not_found(&e), "another account's: {e:?}");

    // Pausing by hand records `user`; a paused subscription receives nothing.
    let pause = SubscriptionChange { status: Some(SubscriptionStatus::Paused), ..Default::default() };
    let paused = store.webhooks.update_subscription(&a, &s.id, &pause, None).await?;
    assert_eq!(
        (paused.version, paused.status, paused.paused_reason.as_deref()),
        (3, SubscriptionStatus::Paused, Some("user"))
    );
    assert!(store.webhooks.active_subscriptions(std::slice::from_ref(&a)).await?.is_empty());
    let events_only = SubscriptionChange { events: Some(vec!["dns.zone.*".into()]), ..Default::default() };
    let still = store.webhooks.update_subscription(&a, &s.id, &events_only, Some(3)).await?;
    assert_eq!(
        (still.version, still.status, &still.events),
        (4, SubscriptionStatus::Paused, &vec!["dns.zone.*".to_owned()])
    );

    // One paused for failing resumes with its reason and failure run cleared.
    let mut failing = subscription(&a, &["*"], 2_000);
    failing.status = SubscriptionStatus::Paused;
    failing.paused_reason = Some("failing".into());
    failing.failing_since = Some(Timestamp::from_millis(1_500));
    store.webhooks.create_subscription(&failing).await?;
    let resume = SubscriptionChange { status: Some(SubscriptionStatus::Active), ..Default::default() };
    let resumed = store.webhooks.update_subscription(&a, &failing.id, &resume, Some(1)).await?;
    assert_eq!(
        (resumed.version, resumed.status, resumed.paused_reason, resumed.failing_since),
        (2, SubscriptionStatus::Active, None, None)
    );
    let active = store.webhooks.active_subscriptions(std::slice::from_ref(&a)).await?;
    assert_eq!(active.into_iter().map(|s| s.id).collect::<Vec<_>>(), vec![failing.id.clone()]);

    // Rotation keeps the old secret until it expires.
    let until = Timestamp::now().plus(HOUR);
    let rotated = store.webhooks.rotate_secret(&a, &s.id, "whsec_rotated", until).await?;
    assert_eq!(rotated.version, 5);
    assert_eq!(rotated.secret, "whsec_rotated");
    assert_eq!(
        (rotated.previous_secret.as_deref(), rotated.previous_secret_expires_at),
        (Some(s.secret.as_str()), Some(until))
    );
    assert_eq!(store.webhooks.get_subscription(&a, &s.id).await?, Some(rotated));
    let e = store.webhooks.rotate_secret(&b, &s.id, "whsec_theirs", until).await.unwrap_err();
    assert!(is_not_found(&e), "{e:?}");

    // Deleting: the version must match, the DNS view deletes only DNS subscriptions.
    let e = store.webhooks.delete_subscription(&a, &s.id, Some(4), false).await.unwrap_err();
    assert!(is_precondition_failed(&e), "{e:?}");
    let e = store.webhooks.delete_subscription(&b, &s.id, None, false).await.unwrap_err();
    assert!(is_not_found(&e), "{e:?}");
    let e = store.webhooks.delete_subscription(&a, &failing.id, None, true).await.unwrap_err();
    assert!(is_not_found(&e), "`*` is not a DNS subscription: {e:?}");
    assert!(store.webhooks.get_subscription(&a, &failing.id).await?.is_some());
    store.webhooks.delete_subscription(&a, &s.id, Some(5), true).await?;
    assert_eq!(store.webhooks.get_subscription(&a, &s.id).await?, None);
    let e = store.webhooks.delete_subscription(&a, &s.id, None, false).await.unwrap_err();
    assert!(is_not_found(&e), "deleting twice: {e:?}");
    Ok(())
}

#[tokio::test]
async fn deliveries_are_made_once_per_event_and_kept_to_their_account() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "wh-d@example.com").await?;
    let b = create_account(&store, "wh-d2@example.com").await?;
    let s = subscription(&a, &["dns.*"], 1_000);
    let sb = subscription(&b, &["dns.*"], 2_000);
    let gone = subscription(&a, &["*"], 3_000);
    for x in [&s, &sb, &gone] {
        store.webhooks.create_subscription(x).await?;
    }
    store.webhooks.delete_subscription(&a, &gone.id, None, false).await?;
    let evs = events(&store, &a, 2).await?;

    let added = store
        .webhooks
        .insert_deliveries(&[delivery_of(&evs[0], &s), delivery_of(&evs[1], &s), delivery_of(&evs[0], &s)])
        .await?;
    assert_eq!(added, 2, "one delivery per (event, subscription)");
    // Again, to another account's subscription, or to one deleted meanwhile: nothing added.
    let foreign = NewDelivery { subscription_id: sb.id.clone(), ..delivery_of(&evs[0], &s) };
    let again = [delivery_of(&evs[1], &s), foreign, delivery_of(&evs[0], &gone)];
    assert_eq!(store.webhooks.insert_deliveries(&again).await?, 0);
    assert_eq!(store.webhooks.list_deliveries(&b, &sb.id, &DeliveryFilter::default(), page(10, 0)).await?.1, 0);

    let (listed, total) = store.webhooks.list_deliveries(&a, &s.id, &DeliveryFilter::default(), page(10, 0)).await?;
    assert_eq!(total, 2);
    assert_eq!(listed.iter().map(|d| &d.event_id).collect::<Vec<_>>(), [&evs[1].id, &evs[0].id], "newest first");
    for (d, e) in listed.iter().zip(evs.iter().rev()) {
        assert_eq!((d.status, d.attempt_count, d.completed_at), (DeliveryStatus::Pending, 0, None));
        assert_eq!(
            (&d.account_id, &d.subscription_id, &d.event_type, &d.payload),
            (&a, &s.id, &e.event_type, &e.payload)
        );
        assert!(d.attempts.is_empty());
        assert!(d.next_attempt_at.is_some_and(|t| t <= Timestamp::now()), "due now");
    }
    let (one, total) = store.webhooks.list_deliveries(&a, &s.id, &DeliveryFilter::default(), page(1, 1)).await?;
    assert_eq!((one, total), (vec![listed[1].clone()], 2));
    let by_event = DeliveryFilter { event_id: Some(evs[0].id.clone()), ..Default::default() };
    let (found, total) = store.webhooks.list_deliveries(&a, &s.id, &by_event, page(10, 0)).await?;
    assert_eq!((found, total), (vec![listed[1].clone()], 1));
    let done = DeliveryFilter { status: Some(DeliveryStatus::Succeeded), ..Default::default() };
    assert_eq!(store.webhooks.list_deliveries(&a, &s.id, &done, page(10, 0)).await?.1, 0);
    assert_eq!(delivery(&store, &a, &listed[0].id).await?, listed[0]);

    // Another account sees none of them.
    assert_eq!(store.webhooks.get_delivery(&b, &listed[0].id).await?, None);
    let (none, total) = store.webhooks.list_deliveries(&b, &s.id, &DeliveryFilter::default(), page(10, 0)).await?;
    assert!(none.is_empty() && total == 0);
    let e = store.webhooks.redeliver(&b, &listed[0].id).await.unwrap_err();
    assert!(is_not_found(&e), "{e:?}");
    // Nor can another account's replay reach them.
    let replay = [delivery_of(&evs[0], &s)];
    assert_eq!(store.webhooks.replay(&b, &replay, false).await?, 0);

    // Deleting the subscription takes its deliveries.
    store.webhooks.delete_subscription(&a, &s.id, None, false).await?;
    assert_eq!(store.webhooks.get_delivery(&a, &listed[0].id).await?, None);
    assert_eq!(store.webhooks.next_due().await?, None);
    Ok(())
}

#[tokio::test]
async fn a_delivery_is_claimed_by_one_worker_attempted_and_redelivered() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "wh-l@example.com").await?;
    let s = subscription(&a, &["dns.*"], 1_000);
    store.webhooks.create_subscription(&s).await?;
    let evs = events(&store, &a, 2).await?;
    assert_eq!(store.webhooks.next_due().await?, None, "nothing pending");
    store.webhooks.insert_deliveries(&[delivery_of(&evs[0], &s), delivery_of(&evs[1], &s)]).await?;
    let ids = deliveries_of(&store, &s, &evs).await?;
    let (d1, d2) = (&ids[0], &ids[1]);
    assert!(store.webhooks.next_due().await?.is_some_and(|t| t <= Timestamp::now()));

    // A delivery whose round has not started cannot be redelivered.
    let e = store.webhooks.redeliver(&a, d1).await.unwrap_err();
    assert_eq!(conflict_code(&e), Some("delivery_in_flight"), "{e:?}");
    // Refused changes of its subscription (a stale version) leave nothing locked for the claim
    // that follows them.
    let stale = Some(s.version + 1);
    let e = store.webhooks.update_subscription(&a, &s.id, &SubscriptionChange::default(), stale).await.unwrap_err();
    assert!(is_precondition_failed(&e), "{e:?}");
    let e = store.webhooks.delete_subscription(&a, &s.id, stale, false).await.unwrap_err();
    assert!(is_precondition_failed(&e), "{e:?}");

    let claimed = store.webhooks.claim_deliveries("w1", 10, 10, LEASE).await?;
    assert_eq!(claimed_ids(&claimed), ids.iter().map(|d| d.as_str().to_owned()).collect());
    for c in &claimed {
        let e = evs.iter().find(|e| e.id == c.event_id).unwrap();
        assert_eq!((&c.account_id, &c.subscription_id, &c.event_type), (&a, &s.id, &e.event_type));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&c.body)?, e.payload, "the payload as sent");
        assert_eq!((c.url.as_str(), &c.secrets, c.round_attempts), (s.url.as_str(), &vec![s.secret.clone()], 0));
    }
    assert!(store.webhooks.claim_deliveries("w2", 10, 10, LEASE).await?.is_empty(), "leased to w1");
    let e = store.webhooks.redeliver(&a, d1).await.unwrap_err();
    assert_eq!(conflict_code(&e), Some("delivery_in_flight"), "mid-attempt: {e:?}");

    // Only the lease holder records an outcome; the attempt is logged either way.
    let stray = attempt(Some(200), None);
    assert!(!store.webhooks.record_attempt("w2", d1, &stray, AttemptOutcome::Succeeded, HOUR).await?);
    assert_eq!(delivery(&store, &a, d1).await?.status, DeliveryStatus::Pending);
    let ok = attempt(Some(204), None);
    assert!(store.webhooks.record_attempt("w1", d1, &ok, AttemptOutcome::Succeeded, HOUR).await?);
    let done = delivery(&store, &a, d1).await?;
    assert_eq!((done.status, done.attempt_count), (DeliveryStatus::Succeeded, 1));
    assert!(done.completed_at.is_some());
    assert_eq!(done.attempts, vec![stray, ok.clone()], "oldest first");
    // Ended: a second outcome is not recorded.
    let late = AttemptRecord { id: d1.clone(), attempt: ok.clone(), outcome: AttemptOutcome::Succeeded };
    assert_eq!(store.webhooks.record_attempts("w1", &[late], HOUR).await?, vec![false]);
    assert_eq!(delivery(&store, &a, d1).await?.status, DeliveryStatus::Succeeded);

    // A failure with a retry waits for it.
    let retry_at = Timestamp::now().plus(HOUR);
    let failed = attempt(Some(503), None);
    assert!(store.webhooks.record_attempt("w1", d2, &failed, AttemptOutcome::RetryAt(retry_at), HOUR).await?);
    let waiting = delivery(&store, &a, d2).await?;
    assert_eq!(
        (waiting.status, waiting.next_attempt_at, waiting.completed_at),
        (DeliveryStatus::Failed, Some(retry_at), None)
    );
    assert!(store.webhooks.claim_deliveries("w1", 10, 10, LEASE).await?.is_empty(), "not due yet");
    assert_eq!(store.webhooks.next_due().await?, Some(retry_at));

    // Redelivery makes it due now, in a new round.
    let again = store.webhooks.redeliver(&a, d2).await?;
    assert_eq!((again.status, again.attempt_count, again.attempts.len()), (DeliveryStatus::Pending, 1, 1));
    assert!(again.next_attempt_at.is_some_and(|t| t <= Timestamp::now()));
    let claimed = store.webhooks.claim_deliveries("w1", 10, 10, LEASE).await?;
    assert_eq!(claimed.iter().map(|c| (&c.id, c.round_attempts)).collect::<Vec<_>>(), [(d2, 0)]);
    let timeout = attempt(None, Some("timed out after 10 s"));
    assert!(store.webhooks.record_attempt("w1", d2, &timeout, AttemptOutcome::Exhausted, HOUR).await?);
    let exhausted = delivery(&store, &a, d2).await?;
    assert_eq!((exhausted.status, exhausted.attempt_count), (DeliveryStatus::Exhausted, 2));
    assert!(exhausted.completed_at.is_some());
    assert_eq!(exhausted.attempts.last(), Some(&timeout));
    let only = DeliveryFilter { status: Some(DeliveryStatus::Exhausted), ..Default::default() };
    let (found, total) = store.webhooks.list_deliveries(&a, &s.id, &only, page(10, 0)).await?;
    assert_eq!((found.len(), total, &found[0].id), (1, 1, d2));

    // Both ended states start again from pending.
    for d in [d1, d2] {
        let restarted = store.webhooks.redeliver(&a, d).await?;
        assert_eq!((restarted.status, restarted.completed_at), (DeliveryStatus::Pending, None));
    }
    // At most one in flight per subscription, counting other workers' leases.
    let first = store.webhooks.claim_deliveries("w3", 10, 1, LEASE).await?;
    assert_eq!(first.len(), 1);
    assert!(store.webhooks.claim_deliveries("w4", 10, 1, LEASE).await?.is_empty());
    // A paused subscription's deliveries wait.
    let pause = SubscriptionChange { status: Some(SubscriptionStatus::Paused), ..Default::default() };
    store.webhooks.update_subscription(&a, &s.id, &pause, None).await?;
    assert!(store.webhooks.claim_deliveries("w4", 10, 10, LEASE).await?.is_empty());
    let resume = SubscriptionChange { status: Some(SubscriptionStatus::Active), ..Default::default() };
    store.webhooks.update_subscription(&a, &s.id, &resume, None).await?;
    let second = store.webhooks.claim_deliveries("w4", 10, 10, LEASE).await?;
    assert_eq!(second.len(), 1);
    assert_ne!(second[0].id, first[0].id);
    Ok(())
}

#[tokio::test]
async fn a_lapsed_lease_passes_to_another_worker_and_a_leased_insert_goes_to_its_worker() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "wh-ll@example.com").await?;
    let s = subscription(&a, &["dns.*"], 1_000);
    store.webhooks.create_subscription(&s).await?;
    let evs = events(&store, &a, 3).await?;

    // Leased on insert: the worker it is handed to attempts it, nobody claims it meanwhile.
    let until = Timestamp::now().plus(LEASE);
    let dup = delivery_of(&evs[0], &s);
    let added = store
        .webhooks
        .insert_deliveries_leased(&[delivery_of(&evs[0], &s), dup, delivery_of(&evs[1], &s)], Some(("w1", until)))
        .await?;
    assert_eq!(added.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [0, 2], "the duplicate is skipped");
    assert_eq!(added.iter().map(|(_, id)| id.clone()).collect::<Vec<_>>(), deliveries_of(&store, &s, &evs[..2]).await?);
    assert!(store.webhooks.claim_deliveries("w2", 10, 10, LEASE).await?.is_empty());
    assert_eq!(store.webhooks.next_due().await?, Some(until), "due once the lease ends");
    assert!(
        store
            .webhooks
            .record_attempt("w1", &added[0].1, &attempt(Some(200), None), AttemptOutcome::Succeeded, HOUR)
            .await?
    );

    // A lease that ran out (its worker died) passes on; the first worker's outcome is then dropped.
    store.webhooks.insert_deliveries(&[delivery_of(&evs[2], &s)]).await?;
    let d3 = deliveries_of(&store, &s, &evs[2..]).await?.remove(0);
    let short = store.webhooks.claim_deliveries("w3", 1, 10, Duration::from_millis(1)).await?;
    // The oldest due first is evs[1]'s leased one, not yet due; so evs[2]'s.
    assert_eq!(short.iter().map(|c| &c.id).collect::<Vec<_>>(), [&d3]);
    tokio::time::sleep(Duration::from_millis(20)).await;
    let taken = store.webhooks.claim_deliveries("w4", 10, 10, LEASE).await?;
    assert_eq!(taken.iter().map(|c| &c.id).collect::<Vec<_>>(), [&d3]);
    assert!(
        !store.webhooks.record_attempt("w3", &d3, &attempt(Some(200), None), AttemptOutcome::Succeeded, HOUR).await?
    );
    assert_eq!(delivery(&store, &a, &d3).await?.status, DeliveryStatus::Pending);
    assert!(
        store.webhooks.record_attempt("w4", &d3, &attempt(Some(200), None), AttemptOutcome::Succeeded, HOUR).await?
    );
    assert_eq!(delivery(&store, &a, &d3).await?.status, DeliveryStatus::Succeeded);
    Ok(())
}

#[tokio::test]
async fn failing_too_long_pauses_the_subscription_and_a_success_ends_the_run() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "wh-f@example.com").await?;
    let s = subscription(&a, &["dns.*"], 1_000);
    let mut recovering = subscription(&a, &["dns.*"], 2_000);
    recovering.failing_since = Some(Timestamp::from_millis(1_500));
    store.webhooks.create_subscription(&s).await?;
    store.webhooks.create_subscription(&recovering).await?;
    let evs = events(&store, &a, 2).await?;
    store
        .webhooks
        .insert_deliveries(&[delivery_of(&evs[0], &s), delivery_of(&evs[1], &s), delivery_of(&evs[0], &recovering)])
        .await?;
    let ids = deliveries_of(&store, &s, &evs).await?;
    let r1 = deliveries_of(&store, &recovering, &evs[..1]).await?.remove(0);
    assert_eq!(store.webhooks.claim_deliveries("w1", 10, 10, LEASE).await?.len(), 3);

    // The first failure starts the run; it has not lasted an hour.
    let first = attempt(Some(500), None);
    let retry = AttemptOutcome::RetryAt(Timestamp::now().plus(HOUR));
    assert!(store.webhooks.record_attempt("w1", &ids[0], &first, retry, HOUR).await?);
    let sub = store.webhooks.get_subscription(&a, &s.id).await?.unwrap();
    assert_eq!((sub.status, sub.failing_since, sub.version), (SubscriptionStatus::Active, Some(first.attempted_at), 1));

    // Another failure, the run now longer than allowed: paused for failing, the run kept.
    tokio::time::sleep(Duration::from_millis(5)).await;
    let second = attempt(None, Some("connection refused"));
    assert!(store.webhooks.record_attempt("w1", &ids[1], &second, AttemptOutcome::Exhausted, Duration::ZERO).await?);
    let sub = store.webhooks.get_subscription(&a, &s.id).await?.unwrap();
    assert_eq!(
        (sub.status, sub.paused_reason.as_deref(), sub.failing_since, sub.version),
        (SubscriptionStatus::Paused, Some("failing"), Some(first.attempted_at), 2)
    );

    // A success ends a run.
    assert!(
        store
            .webhooks
            .record_attempt("w1", &r1, &attempt(Some(200), None), AttemptOutcome::Succeeded, Duration::ZERO)
            .await?
    );
    let sub = store.webhooks.get_subscription(&a, &recovering.id).await?.unwrap();
    assert_eq!((sub.status, sub.failing_since), (SubscriptionStatus::Active, None));
    Ok(())
}

#[tokio::test]
async fn a_replay_adds_missing_deliveries_and_restarts_ended_ones() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "wh-r@example.com").await?;
    let b = create_account(&store, "wh-r2@example.com").await?;
    let s = subscription(&a, &["dns.*"], 1_000);
    store.webhooks.create_subscription(&s).await?;
    // Events a minute ago, 10 ms apart, and one of another account between them.
    let t0 = Timestamp::now().millis() - 60_000;
    let mut evs: Vec<NewEvent> = (0..3).map(|i| event(&a, "dns.zone.created", i)).collect();
    for (i, e) in evs.iter_mut().enumerate() {
        e.timestamp = Timestamp::from_millis(t0 + 10 * i as i64);
    }
    let mut theirs = event(&b, "dns.zone.created", 9);
    theirs.timestamp = Timestamp::from_millis(t0 + 5);
    store.outbox.append(&[evs[0].clone(), theirs, evs[1].clone(), evs[2].clone()]).await?;

    let between = store.webhooks.events_between(&a, Timestamp::from_millis(t0), None, 10).await?;
    assert_eq!(between.iter().map(|e| &e.id).collect::<Vec<_>>(), evs.iter().map(|e| &e.id).collect::<Vec<_>>());
    assert_eq!(between[1].payload, evs[1].payload);
    let window = store
        .webhooks
        .events_between(&a, Timestamp::from_millis(t0 + 10), Some(Timestamp::from_millis(t0 + 20)), 10)
        .await?;
    assert_eq!(window.iter().map(|e| &e.id).collect::<Vec<_>>(), [&evs[1].id], "[since, until)");
    assert_eq!(store.webhooks.events_between(&a, Timestamp::from_millis(t0), None, 2).await?.len(), 2);

    // The first event was delivered, the second exhausted, the third never sent.
    store.webhooks.insert_deliveries(&[delivery_of(&evs[0], &s), delivery_of(&evs[1], &s)]).await?;
    let ids = deliveries_of(&store, &s, &evs[..2]).await?;
    store.webhooks.claim_deliveries("w1", 10, 10, LEASE).await?;
    store.webhooks.record_attempt("w1", &ids[0], &attempt(Some(200), None), AttemptOutcome::Succeeded, HOUR).await?;
    store.webhooks.record_attempt("w1", &ids[1], &attempt(Some(410), None), AttemptOutcome::Exhausted, HOUR).await?;
    let all: Vec<NewDelivery> = evs.iter().map(|e| delivery_of(e, &s)).collect();

    // Only the failed: the exhausted one starts again, nothing else.
    assert_eq!(store.webhooks.replay(&a, &all, true).await?, 1);
    assert_eq!(delivery(&store, &a, &ids[0]).await?.status, DeliveryStatus::Succeeded);
    assert_eq!(delivery(&store, &a, &ids[1]).await?.status, DeliveryStatus::Pending);
    assert_eq!(store.webhooks.list_deliveries(&a, &s.id, &DeliveryFilter::default(), page(10, 0)).await?.1, 2);

    // Everything: the success starts again and the missing one is added; the pending one is left.
    assert_eq!(store.webhooks.replay(&a, &all, false).await?, 2);
    let (listed, total) = store.webhooks.list_deliveries(&a, &s.id, &DeliveryFilter::default(), page(10, 0)).await?;
    assert_eq!(total, 3);
    assert!(listed.iter().all(|d| d.status == DeliveryStatus::Pending && d.completed_at.is_none()), "{listed:?}");
    assert_eq!(delivery(&store, &a, &ids[0]).await?.attempts.len(), 1, "the attempts stay");
    Ok(())
}

#[tokio::test]
async fn finished_deliveries_are_purged_with_their_attempts() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let a = create_account(&store, "wh-p@example.com").await?;
    let s = subscription(&a, &["dns.*"], 1_000);
    store.webhooks.create_subscription(&s).await?;
    let evs = events(&store, &a, 4).await?;
    let all: Vec<NewDelivery> = evs.iter().map(|e| delivery_of(e, &s)).collect();
    store.webhooks.insert_deliveries(&all).await?;
    let ids = deliveries_of(&store, &s, &evs).await?;
    store.webhooks.claim_deliveries("w1", 10, 10, LEASE).await?;
    let outcomes =
        [AttemptOutcome::Succeeded, AttemptOutcome::Exhausted, AttemptOutcome::RetryAt(Timestamp::now().plus(HOUR))];
    let records: Vec<AttemptRecord> = ids
        .iter()
        .zip(outcomes)
        .map(|(id, outcome)| AttemptRecord { id: id.clone(), attempt: attempt(Some(200), None), outcome })
        .collect();
    assert_eq!(store.webhooks.record_attempts("w1", &records, HOUR).await?, vec![true, true, true]);

    let a_minute_ago = Timestamp::from_millis(Timestamp::now().millis() - 60_000);
    assert_eq!(store.webhooks.purge_completed(a_minute_ago, 10).await?, 0, "finished just now");
    let later = Timestamp::now().plus(Duration::from_secs(1));
    assert_eq!(store.webhooks.purge_completed(later, 1).await?, 1, "at most the limit");
    assert_eq!(store.webhooks.purge_completed(later, 10).await?, 1);
    assert_eq!(store.webhooks.purge_completed(later, 10).await?, 0);
    for id in &ids[..2] {
        assert_eq!(store.webhooks.get_delivery(&a, id).await?, None);
    }
    // The one waiting for a retry and the one never attempted stay.
    assert_eq!(delivery(&store, &a, &ids[2]).await?.status, DeliveryStatus::Failed);
    assert_eq!(delivery(&store, &a, &ids[3]).await?.status, DeliveryStatus::Pending);
    Ok(())
}
