//! The periodic duties of the `workers` role, each done by one node at a time however many run
//! that role (`Store::duties`): the retention sweep, the twin readings' retention, the DEM tile
//! cache's eviction. A node that does not get a duty's lead skips that round.

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
