use crate::common::{events_config, eventually, open, start_dispatcher, TestResult};
use async_trait::async_trait;
use meridian_core::config::EventsConfig;
use meridian_core::event::{Event, NewEvent};
use meridian_core::id::{AccountId, EventId};
use meridian_jobs::{Dispatcher, EventSink};
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast::error::TryRecvError;

/// Records what it accepts; refuses everything while `failing`.
#[derive(Default)]
struct RecordingSink {
    accepted: Mutex<Vec<Event>>,
    calls: AtomicU32,
    failing: AtomicBool,
}

impl RecordingSink {
    fn accepted(&self) -> Vec<Event> {
        self.accepted.lock().map(|a| a.clone()).unwrap_or_default()
    }
}

#[async_trait]
impl EventSink for RecordingSink {
    fn name(&self) -> &'static str {
        "recording"
    }

    async fn accept(&self, events: &[Event]) -> Result<(), String> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if self.failing.load(Ordering::SeqCst) {
            return Err("the sink is down".into());
        }
        self.accepted.lock().map_err(|e| e.to_string())?.extend_from_slice(events);
        Ok(())
    }
}

fn events(account: &AccountId, n: usize) -> Vec<NewEvent> {
    (0..n)
        .map(|i| {
            let mut fields = Map::new();
            fields.insert("n".into(), Value::from(i));
            NewEvent::new(account.clone(), "dns.record.created", fields)
        })
        .collect()
}

fn ids(events: &[Event]) -> Vec<EventId> {
    events.iter().map(|e| e.id.clone()).collect()
}

fn new_ids(events: &[NewEvent]) -> Vec<EventId> {
    events.iter().map(|e| e.id.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_reach_the_sink_in_order_and_are_marked_dispatched() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = AccountId::generate();
    let mut appended = events(&account, 5);
    store.outbox.append(&appended[..3]).await?;
    store.outbox.append(&appended[3..]).await?;

    let sink = Arc::new(RecordingSink::default());
    // Small batches, so that the order holds across rounds too; a poll interval longer than the
    // test, so that only the store's signal (fired on commit) can wake the dispatcher.
    let config = EventsConfig { poll_interval: Duration::from_secs(600), ..events_config(2) };
    let mut dispatcher = Dispatcher::new(store.clone(), config);
    dispatcher.add_sink(sink.clone());
    let mut live = dispatcher.subscribe();
    let running = start_dispatcher(dispatcher);

    let wait_for = |n: usize| {
        let (sink, store) = (sink.clone(), store.clone());
        eventually("the events to be dispatched", move || {
            let (sink, store) = (sink.clone(), store.clone());
            async move { Ok((sink.accepted().len() >= n && store.outbox.pending(100).await?.is_empty()).then_some(())) }
        })
    };
    wait_for(5).await?;

    // Events committed later are handed on at once: the commit fires the store's signal.
    let later = events(&account, 2);
    let committed = tokio::time::Instant::now();
    store.outbox.append(&later).await?;
    appended.extend(later);
    wait_for(7).await?;
    assert!(committed.elapsed() < Duration::from_secs(5), "woken by the commit, not the poll");
    running.stop().await?;

    let accepted = sink.accepted();
    assert_eq!(ids(&accepted), new_ids(&appended));
    assert!(accepted.windows(2).all(|w| w[0].seq < w[1].seq), "in seq order");
    assert!(store.outbox.pending(100).await?.is_empty());

    // In-process listeners saw the same events, in the same order.
    let mut heard = Vec::new();
    while heard.len() < appended.len() {
        let event = tokio::time::timeout(Duration::from_secs(10), live.recv()).await??;
        heard.push(event.id.clone());
    }
    assert_eq!(heard, new_ids(&appended));
    assert!(matches!(live.try_recv(), Err(TryRecvError::Empty | TryRecvError::Closed)));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_sink_leaves_events_pending_until_it_recovers() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = AccountId::generate();
    let appended = events(&account, 3);
    store.outbox.append(&appended).await?;

    let sink = Arc::new(RecordingSink { failing: AtomicBool::new(true), ..RecordingSink::default() });
    let mut dispatcher = Dispatcher::new(store.clone(), events_config(200));
    dispatcher.add_sink(sink.clone());
    let mut live = dispatcher.subscribe();
    let running = start_dispatcher(dispatcher);

    eventually("the sink to be tried twice", || {
        let sink = sink.clone();
        async move { Ok((sink.calls.load(Ordering::SeqCst) >= 2).then_some(())) }
    })
    .await?;
    assert_eq!(ids(&store.outbox.pending(100).await?), new_ids(&appended), "refused events stay pending");
    assert!(sink.accepted().is_empty());
    assert!(matches!(live.try_recv(), Err(TryRecvError::Empty)), "refused events are not announced");

    sink.failing.store(false, Ordering::SeqCst);
    eventually("the events to be dispatched", || {
        let store = store.clone();
        async move { Ok(store.outbox.pending(100).await?.is_empty().then_some(())) }
    })
    .await?;
    running.stop().await?;

    assert_eq!(ids(&sink.accepted()), new_ids(&appended));
    let mut heard = Vec::new();
    while heard.len() < appended.len() {
        let event = tokio::time::timeout(Duration::from_secs(10), live.recv()).await??;
        heard.push(event.id.clone());
    }
    assert_eq!(heard, new_ids(&appended));
    Ok(())
}

/// One sink that keeps failing does not hold up another: the working sink receives every event,
/// in batches past the failing one's position, while the events stay pending (not dispatched)
/// until the failing sink has them too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_sink_does_not_stall_the_others() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = open(dir.path()).await?;
    let account = AccountId::generate();
    let appended = events(&account, 25);
    store.outbox.append(&appended).await?;

    let down = Arc::new(RecordingSink { failing: AtomicBool::new(true), ..RecordingSink::default() });
    let up = Arc::new(RecordingSink::default());
    // Batches of 10: the working sink must read on past the first batch on its own.
    let mut dispatcher = Dispatcher::new(store.clone(), events_config(10));
    dispatcher.add_sink(down.clone());
    dispatcher.add_sink(up.clone());
    let running = start_dispatcher(dispatcher);

    eventually("the working sink to receive every event", || {
        let up = up.clone();
        async move { Ok((up.accepted().len() == 25).then_some(())) }
    })
    .await?;
    assert_eq!(ids(&up.accepted()), new_ids(&appended), "in order, each once");
    assert_eq!(store.outbox.pending(100).await?.len(), 25, "not dispatched while a sink lacks them");
    down.failing.store(false, Ordering::SeqCst);
    eventually("every event to be dispatched", || {
        let store = store.clone();
        async move { Ok(store.outbox.pending(100).await?.is_empty().then_some(())) }
    })
    .await?;
    running.stop().await?;
    assert_eq!(ids(&down.accepted()), new_ids(&appended));
    assert_eq!(up.accepted().len(), 25, "the working sink got nothing twice");
    Ok(())
}
