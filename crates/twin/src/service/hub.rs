//! Live fan-out: one broadcast channel per twin with a bounded ring of messages, each reading
//! serialised once for every subscriber, and the latest reading of every sensor kept aside so
//! that a subscriber that fell behind the ring can be given the present instead of everything it
//! missed.

use dashmap::DashMap;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// One message of a twin's channel.
#[derive(Debug)]
pub enum Message {
    /// A reading, as the interface's JSON text (`{sensorId, value, ts}`).
    Reading { sensor: Arc<str>, ts: i64, text: bytes::Bytes },
    /// The clock changed (its stored form).
    Clock(super::Clock),
    /// The twin is gone.
    Closed,
    /// Readings of other nodes may have been missed (this node stopped hearing them for a
    /// while): start again from the stored present.
    Gap,
}

/// The channel of one twin.
#[derive(Debug)]
pub struct Channel {
    tx: broadcast::Sender<Arc<Message>>,
    latest: Mutex<HashMap<Arc<str>, Arc<Message>>>,
}

impl Channel {
    /// The latest live reading of each sensor.
    pub fn latest(&self) -> Vec<Arc<Message>> {
        self.latest.lock().map(|m| m.values().cloned().collect()).unwrap_or_default()
    }
}

/// Every twin's channel.
#[derive(Debug)]
pub struct Hub {
    channels: DashMap<String, Arc<Channel>>,
    capacity: usize,
}

impl Hub {
    /// A hub whose channels hold `capacity` messages per subscriber at most.
    pub fn new(capacity: usize) -> Self {
        Self { channels: DashMap::new(), capacity: capacity.max(16) }
    }

    fn channel(&self, twin: &str) -> Arc<Channel> {
        if let Some(c) = self.channels.get(twin) {
            return c.clone();
        }
        self.channels
            .entry(twin.to_owned())
            .or_insert_with(|| {
                let (tx, _) = broadcast::channel(self.capacity);
                Arc::new(Channel { tx, latest: Mutex::new(HashMap::new()) })
            })
            .clone()
    }

    /// Subscribes to a twin's channel.
    pub fn subscribe(&self, twin: &str) -> (Arc<Channel>, broadcast::Receiver<Arc<Message>>) {
        let c = self.channel(twin);
        let rx = c.tx.subscribe();
        (c, rx)
    }

    /// How many subscribers a twin has.
    pub fn subscribers(&self, twin: &str) -> usize {
        self.channels.get(twin).map(|c| c.tx.receiver_count()).unwrap_or(0)
    }

    /// Publishes readings (already stored) in order.
    pub fn publish(&self, twin: &str, readings: impl IntoIterator<Item = Message>) {
        let c = self.channel(twin);
        let mut latest = c.latest.lock().ok();
        for m in readings {
            let m = Arc::new(m);
            if let (Some(latest), Message::Reading { sensor, ts, .. }) = (latest.as_mut(), &*m) {
                let newer = match latest.get(sensor).map(|p| &**p) {
                    Some(Message::Reading { ts: seen, .. }) => ts > seen,
                    _ => true,
                };
                // Per sensor, live readings go out in time order: one that arrives after a newer
                // one is stored (and replayed, and read back) but not pushed.
                if !newer {
                    continue;
                }
                latest.insert(sensor.clone(), m.clone());
            }
            // No subscriber is not an error: the reading is stored.
            let _ = c.tx.send(m);
        }
    }

    /// Tells a twin's subscribers that its clock changed (each feed skips a clock it already
    /// follows: a change made here is also heard back from the store's notices).
    pub fn clock_changed(&self, twin: &str, clock: super::Clock) {
        if let Some(c) = self.channels.get(twin) {
            let _ = c.tx.send(Arc::new(Message::Clock(clock)));
        }
    }

    /// Tells a twin's subscribers that it is gone, and forgets its channel.
    pub fn close(&self, twin: &str) {
        if let Some((_, c)) = self.channels.remove(twin) {
            let _ = c.tx.send(Arc::new(Message::Closed));
        }
    }

    /// Tells every twin's subscribers that readings of other nodes may have been missed.
    pub fn gap_all(&self) {
        for c in self.channels.iter() {
            if c.tx.receiver_count() > 0 {
                let _ = c.tx.send(Arc::new(Message::Gap));
            }
        }
    }

    /// Forgets the latest reading of every sensor of a twin (its sensors changed elsewhere; the
    /// next readings fill it again).
    pub fn forget_latest(&self, twin: &str) {
        if let Some(c) = self.channels.get(twin) {
            if let Ok(mut latest) = c.latest.lock() {
                latest.clear();
            }
        }
    }

    /// Forgets the latest reading of a sensor (deleted).
    pub fn forget_sensor(&self, twin: &str, sensor: &str) {
        if let Some(c) = self.channels.get(twin) {
            if let Ok(mut latest) = c.latest.lock() {
                latest.remove(sensor);
            }
        }
    }
}
