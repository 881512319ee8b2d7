//! The outbox dispatcher: reads committed events in order and hands them to every sink. An event
//! is marked dispatched only after every sink took it, so a crash in between hands it on again
//! (sinks deduplicate on the event id).

use crate::Waker;
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

/// Hands outbox events to sinks, and to in-process listeners.
pub struct Dispatcher {
    store: Store,
    config: EventsConfig,
    sinks: Vec<Arc<dyn EventSink>>,
    waker: Waker,
    live: broadcast::Sender<Arc<Event>>,
}

impl Dispatcher {
    /// A dispatcher with no sinks yet.
    pub fn new(store: Store, config: EventsConfig, waker: Waker) -> Self {
        let (live, _) = broadcast::channel(1024);
        Self { store, config, sinks: Vec::new(), waker, live }
    }

    /// Adds a sink.
    pub fn add_sink(&mut self, sink: Arc<dyn EventSink>) {
        self.sinks.push(sink);
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
                _ = self.waker.woken() => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// Hands on one batch; returns how many events it held.
    pub async fn round(&self) -> Result<usize, String> {
        let events = self.store.outbox.pending(self.config.batch_size).await.map_err(|e| e.to_string())?;
        if events.is_empty() {
            return Ok(0);
        }
        for sink in &self.sinks {
            sink.accept(&events).await.map_err(|e| format!("{}: {e}", sink.name()))?;
        }
        let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
        self.store.outbox.mark_dispatched(&seqs, Timestamp::now()).await.map_err(|e| e.to_string())?;
        for event in events.iter() {
            let _ = self.live.send(Arc::new(event.clone()));
        }
        metrics::counter!("meridian_events_dispatched_total").increment(events.len() as u64);
        Ok(events.len())
    }
}
