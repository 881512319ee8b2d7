//! Duties done by one node at a time however many run the role (`Store::duties`): the periodic
//! ones of the `workers` role (the retention sweep, the twin readings' retention, the DEM tile
//! cache's eviction), where a node that does not get the lead skips that round; and the event
//! dispatcher, where the other nodes stand by until the leader dies.

use meridian_store::Store;
use std::future::Future;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Runs `round` every `period` (the first at once) until `stop`, on the rounds when this node
/// leads `duty`; the lead is held for the round and let go after it.
pub(crate) async fn every<F, Fut>(store: Store, duty: &'static str, period: Duration, stop: CancellationToken, round: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    let mut ticks = tokio::time::interval(period);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = ticks.tick() => {}
        }
        match store.duties.try_lead(duty).await {
            Ok(Some(lead)) => {
                round().await;
                drop(lead);
            }
            Ok(None) => tracing::debug!(duty, "another node leads this round"),
            Err(e) => tracing::warn!(error = %e, duty, "asking for the lead failed; trying again next round"),
        }
    }
}

/// Waits until this node leads `duty` (asking every second), then runs `work` while holding the
/// lead: one node does the work, the others stand by and one of them takes over within a second
/// of the leader's death (its lead ends with its database session). A lead lost while the leader
/// lives (its session cut off) can leave two nodes working for a while: the work must be safe to
/// do on two nodes at once, only wasteful.
pub(crate) async fn lead_then<F, Fut>(store: Store, duty: &'static str, stop: CancellationToken, work: F)
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = ()>,
{
    let lead = loop {
        match store.duties.try_lead(duty).await {
            Ok(Some(lead)) => break lead,
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, duty, "asking for the lead failed; asking again"),
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    };
    tracing::info!(duty, "this node leads");
    work().await;
    drop(lead);
}
