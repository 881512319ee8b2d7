//! The outbox dispatcher: reads committed events in order and hands them to every sink. An event
//! is marked dispatched only after every sink took it, so a crash in between hands it on again
//! (sinks deduplicate on the event id). Each sink keeps its own position and its own back-off: a
//! sink that fails is tried again later while the others go on. The store's event signal
//! ([`meridian_store::Signal`], fired after every commit that wrote events) wakes it; the
//! poll interval is the fallback.

use async_trait::async_trait;
use meridian_core::config::EventsConfig;
use meridian_core::event::Event;
use meridian_core::Timestamp;
use meridian_store::Store;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// Something that consumes committed events.
#[async_trait]
pub trait EventSink: Send + Sync {
    /// For logs.
    fn name(&self) -> &'static str;
    /// Takes a batch. An error leaves the batch in the outbox to be handed on again.
    async fn accept(&self, events: &[Event]) -> Result<(), String>;
}

/// Where a sink is: the last event it took, and when to try it again after failures.
#[derive(Default)]
struct Position {
    /// The position (`seq`) of the last event it took in this process.
    taken: i64,
    failures: u32,
    retry_at: Option<tokio::time::Instant>,
}

/// Hands outbox events to sinks, and to in-process listeners.
pub struct Dispatcher {
    store: Store,
    config: EventsConfig,
    sinks: Vec<(Arc<dyn EventSink>, std::sync::Mutex<Position>)>,
    live: broadcast::Sender<Arc<Event>>,
}

impl Dispatcher {
    /// A dispatcher with no sinks yet, woken by `store`'s event signal.
    pub fn new(store: Store, config: EventsConfig) -> Self {
        let (live, _) = broadcast::channel(1024);
        Self { store, config, sinks: Vec::new(), live }
    }

    /// Adds a sink.
    pub fn add_sink(&mut self, sink: Arc<dyn EventSink>) {
        self.sinks.push((sink, std::sync::Mutex::new(Position::default())));
    }

    /// A live feed of dispatched events, for in-process listeners that may miss some (caches).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.live.subscribe()
    }

    /// Dispatches until `shutdown` fires.
    pub async fn run(self, shutdown: CancellationToken) {
        let mut failures: u32 = 0;
        while !shutdown.is_cancelled() {
            let wait = match self.round().await {
                Ok(n) if n as u32 >= self.config.batch_size => {
                    failures = 0;
                    continue;
                }
                Ok(_) => {
                    failures = 0;
                    self.config.poll_interval
                }
                Err(e) => {
                    failures += 1;
                    tracing::warn!(error = %e, failures, "dispatching events failed");
                    (self.config.poll_interval * 2u32.saturating_pow(failures.min(6))).min(Duration::from_secs(30))
                }
            };
            tokio::select! {
                _ = shutdown.cancelled() => {}
                _ = self.store.events.fired() => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// Hands each sink that is due its next batch, then marks dispatched what every sink took;
    /// returns how many events the largest batch handed on held.
    pub async fn round(&self) -> Result<usize, String> {
        let mut handed = 0;
        for (sink, position) in &self.sinks {
            let (after, due) = {
                let p = position.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                (p.taken, p.retry_at.is_none_or(|at| at <= tokio::time::Instant::now()))
            };
            if !due {
                continue;
            }
            let events =
                self.store.outbox.pending_after(after, self.config.batch_size).await.map_err(|e| e.to_string())?;
            let Some(last) = events.last().map(|e| e.seq) else { continue };
            let outcome = sink.accept(&events).await;
            let mut p = position.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            match outcome {
                Ok(()) => {
                    *p = Position { taken: last, failures: 0, retry_at: None };
                    handed = handed.max(events.len());
                }
                Err(e) => {
                    p.failures += 1;
                    let wait = (self.config.poll_interval * 2u32.saturating_pow(p.failures.min(6)))
                        .min(Duration::from_secs(30));
                    p.retry_at = Some(tokio::time::Instant::now() + wait);
                    metrics::counter!("meridian_event_sink_failures_total", "sink" => sink.name()).increment(1);
                    tracing::warn!(sink = sink.name(), error = %e, failures = p.failures, retry_in = ?wait, "an event sink refused a batch; the other sinks go on");
                }
            }
        }
        // What every sink took is dispatched.
        let upto = self
            .sinks
            .iter()
            .map(|(_, p)| p.lock().unwrap_or_else(std::sync::PoisonError::into_inner).taken)
            .min()
            .unwrap_or(i64::MAX);
        let events = self.store.outbox.pending(self.config.batch_size).await.map_err(|e| e.to_string())?;
        let events: Vec<Event> = events.into_iter().filter(|e| e.seq <= upto).collect();
        if events.is_empty() {
            return Ok(handed);
        }
        let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
        self.store.outbox.mark_dispatched(&seqs, Timestamp::now()).await.map_err(|e| e.to_string())?;
        for event in events.iter() {
            let _ = self.live.send(Arc::new(event.clone()));
        }
        metrics::counter!("meridian_events_dispatched_total").increment(events.len() as u64);
        Ok(handed.max(events.len()))
    }
}
