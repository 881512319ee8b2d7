//! What one WebSocket client receives, independent of the socket: a [`Feed`] yields the
//! interface's messages (`{sensorId, value, ts}` text) and control notices (`{"type": ...}`).
//!
//! - **Live clock**: readings as they are ingested (from the [`super::hub`]); `since` first sends
//!   the stored readings after that instant, so a client that reconnects misses nothing.
//! - **Simulated clock, playing**: the stored readings replayed as the clock passes their
//!   instants, at its rate (backwards when negative), after the state at the clock's instant.
//! - **Simulated clock, paused**: the state at the clock's instant (each sensor's latest reading
//!   then), and nothing more until the clock changes.
//! - A clock change is announced and the feed switches mode at once.
//! - **Backpressure**: the hub's ring per twin is bounded; a client that falls behind it gets a
//!   `gap` notice with how many messages it missed and then the latest reading of each sensor,
//!   never an unbounded queue. Per sensor, live readings go out in time order (the hub pushes
//!   none older than one it pushed; after a resume, none already sent from the store).

use super::clock::rfc3339;
use super::hub::{Channel, Message};
use super::sensors::reading_text;
use super::{Clock, Result, TwinService};
use meridian_core::id::AccountId;
use meridian_core::Timestamp;
use meridian_store::twin::ReadingRow;
use serde_json::json;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};

/// Wall-clock milliseconds of replay fetched at once.
const REPLAY_WINDOW_WALL_MS: f64 = 10_000.0;

/// What a client asked for when it connected.
#[derive(Clone, Debug, Default)]
pub struct FeedOptions {
    /// Only these sensors (all when `None`).
    pub sensors: Option<Vec<String>>,
    /// Resume after this instant (ms) from the stored series.
    pub since: Option<i64>,
}

/// One message for the client.
#[derive(Clone, Debug, PartialEq)]
pub enum Out {
    /// A JSON text frame (UTF-8), shared by every client it goes to.
    Text(bytes::Bytes),
    /// Close the connection with this code and reason.
    Close(u16, &'static str),
}

enum Mode {
    Live,
    Paused,
    /// `cursor`: the sim instant up to which (forwards) or down to which (backwards) readings
    /// were fetched.
    Replay {
        cursor: i64,
        buffer: VecDeque<ReadingRow>,
    },
}

/// A client's stream of messages.
pub struct Feed {
    svc: Arc<TwinService>,
    twin: String,
    channel: Arc<Channel>,
    rx: broadcast::Receiver<Arc<Message>>,
    filter: Option<HashSet<String>>,
    clock: Clock,
    mode: Mode,
    /// The mode must be entered again (the clock changed); queries are due.
    reenter: bool,
    /// Notices from other nodes may have been missed: read the twin's clock again (of this
    /// account) before going on.
    reread_clock: bool,
    account: AccountId,
    pending: VecDeque<Out>,
    delivered: HashMap<Arc<str>, i64>,
    closed: bool,
    max_replay: u32,
}

impl TwinService {
    /// Opens a feed of a twin of `account` (not found for another account's).
    pub async fn feed(self: &Arc<Self>, account: &AccountId, twin: &str, opts: FeedOptions) -> Result<Feed> {
        // Another account's twin (or none) is refused before a channel is made for it.
        self.get(account, twin).await?;
        // Subscribed before anything is read from the store, the clock included: nothing falls
        // between the two.
        let (channel, rx) = self.hub.subscribe(twin);
        let t = self.get(account, twin).await?;
        let mut feed = Feed {
            svc: self.clone(),
            twin: twin.to_owned(),
            channel,
            rx,
            filter: opts.sensors.map(|s| s.into_iter().collect()),
            clock: t.clock,
            mode: Mode::Live,
            reenter: false,
            reread_clock: false,
            account: account.clone(),
            pending: VecDeque::new(),
            delivered: HashMap::new(),
            closed: false,
            max_replay: self.config.max_replay,
        };
        let now = Timestamp::now().millis();
        feed.notice(json!({
            "type": "hello",
            "twin": twin,
            "clock": t.clock.view(now),
            "sensors": feed.filter_list(),
        }));
        if let (true, Some(since)) = (t.clock.live, opts.since) {
            // Everything stored after `since`, readings stamped a little ahead of this clock too.
            let rows = self.store.twin.readings_between(twin, since, i64::MAX, feed.max_replay, false).await?;
            if rows.len() == feed.max_replay as usize {
                feed.notice(json!({ "type": "gap", "reason": "replay_limit", "dropped": null, "ts": rfc3339(now),
                    "detail": format!("more than {} readings since then: the oldest are sent, then live readings", feed.max_replay) }));
            }
            for r in &rows {
                feed.push_row(r);
            }
        }
        feed.enter().await?;
        Ok(feed)
    }
}

impl Feed {
    fn notice(&mut self, v: serde_json::Value) {
        self.pending.push_back(Out::Text(bytes::Bytes::from(v.to_string())));
    }

    fn filter_list(&self) -> serde_json::Value {
        match &self.filter {
            Some(f) => {
                let mut v: Vec<&String> = f.iter().collect();
                v.sort();
                json!(v)
            }
            None => serde_json::Value::Null,
        }
    }

    fn wanted(&self, sensor: &str) -> bool {
        self.filter.as_ref().is_none_or(|f| f.contains(sensor))
    }

    /// Queues a stored reading if it is wanted and newer than what its sensor delivered.
    fn push_row(&mut self, r: &ReadingRow) {
        if !self.wanted(&r.sensor_id) {
            return;
        }
        if self.delivered.get(r.sensor_id.as_str()).is_some_and(|&d| d >= r.ts) {
            return;
        }
        self.delivered.insert(Arc::from(r.sensor_id.as_str()), r.ts);
        self.pending.push_back(Out::Text(bytes::Bytes::from(reading_text(&r.sensor_id, r.ts, &r.value))));
    }

    /// A live reading, if it is wanted and newer than what its sensor delivered from the store.
    /// The hub sends each sensor's readings in time order, so the guard is needed only until a
    /// live reading passes what a resume or a state sent from the store; then it is dropped.
    fn take_live(&mut self, sensor: &Arc<str>, ts: i64, text: &bytes::Bytes) -> Option<Out> {
        if !self.wanted(sensor) {
            return None;
        }
        if !self.delivered.is_empty() {
            if let Some(&d) = self.delivered.get(sensor) {
                if d >= ts {
                    return None;
                }
                self.delivered.remove(sensor);
            }
        }
        Some(Out::Text(text.clone()))
    }

    /// Replaces the sensor filter (`None`: every sensor).
    pub fn set_filter(&mut self, sensors: Option<Vec<String>>) {
        self.filter = sensors.map(|s| s.into_iter().collect());
        let list = self.filter_list();
        self.notice(json!({ "type": "subscribed", "sensors": list }));
    }

    /// Enters the mode the clock asks for, queuing the state it starts from.
    async fn enter(&mut self) -> Result<()> {
        let now = Timestamp::now().millis();
        let c = self.clock;
        if c.live {
            if self.reenter {
                // Back to the present: its state first, then live readings.
                let mut latest = self.svc.store.twin.latest_readings(&self.twin, i64::MAX).await?;
                latest.sort_by_key(|r| r.ts);
                self.delivered.clear();
                for r in &latest {
                    self.push_row(r);
                }
            }
            self.mode = Mode::Live;
        } else {
            let at = c.at(now);
            // The state at the clock's instant, whatever was delivered before.
            let latest = self.svc.store.twin.latest_readings(&self.twin, at.min(now)).await?;
            self.delivered.clear();
            let mut latest = latest;
            latest.sort_by_key(|r| r.ts);
            for r in &latest {
                self.push_row(r);
            }
            // Replayed readings go back in time when the clock does: forget the order guard.
            self.delivered.clear();
            self.mode = if c.playing && c.rate != 0.0 {
                Mode::Replay { cursor: at, buffer: VecDeque::new() }
            } else {
                Mode::Paused
            };
        }
        self.reenter = false;
        Ok(())
    }

    /// Handles a message of the hub; `Some` when it is for the client now.
    fn on_message(&mut self, m: &Message) -> Option<Out> {
        match m {
            Message::Reading { sensor, ts, text } => match self.mode {
                Mode::Live => self.take_live(sensor, *ts, text),
                _ => None,
            },
            Message::Clock(c) => {
                // A change heard twice (made on this node, then noticed from the store), or one
                // read at connect time already.
                if *c == self.clock {
                    return None;
                }
                self.clock = *c;
                self.reenter = true;
                let view = c.view(Timestamp::now().millis());
                Some(Out::Text(bytes::Bytes::from(json!({ "type": "clock", "clock": view }).to_string())))
            }
            Message::Closed => {
                self.closed = true;
                Some(Out::Close(1000, "twin deleted"))
            }
            Message::Gap => {
                self.reread_clock = true;
                if !matches!(self.mode, Mode::Live) {
                    return None;
                }
                metrics::counter!("meridian_twin_ws_gaps_total").increment(1);
                // Entering live again sends each wanted sensor's stored latest reading (after the
                // clock is read again: a change of it may have been missed too).
                self.reenter = true;
                let notice = json!({ "type": "gap", "reason": "node_resync", "dropped": null,
                    "ts": rfc3339(Timestamp::now().millis()) });
                Some(Out::Text(bytes::Bytes::from(notice.to_string())))
            }
        }
    }

    /// A client that fell behind: a notice, then the latest reading of each sensor it wants.
    fn on_lagged(&mut self, dropped: u64) {
        if !matches!(self.mode, Mode::Live) {
            return;
        }
        metrics::counter!("meridian_twin_ws_gaps_total").increment(1);
        self.notice(json!({ "type": "gap", "reason": "slow_client", "dropped": dropped,
            "ts": rfc3339(Timestamp::now().millis()) }));
        let mut latest: Vec<(Arc<str>, i64, bytes::Bytes)> = self
            .channel
            .latest()
            .iter()
            .filter_map(|m| match &**m {
                Message::Reading { sensor, ts, text } => Some((sensor.clone(), *ts, text.clone())),
                _ => None,
            })
            .collect();
        latest.sort_by_key(|(_, ts, _)| *ts);
        for (sensor, ts, text) in latest {
            if let Some(o) = self.take_live(&sensor, ts, &text) {
                self.pending.push_back(o);
            }
        }
    }

    /// The next message, without waiting: for writing several before one flush.
    pub fn try_next(&mut self) -> Option<Out> {
        if let Some(o) = self.pending.pop_front() {
            return Some(o);
        }
        if self.closed || self.reenter || !matches!(self.mode, Mode::Live) {
            return None;
        }
        loop {
            match self.rx.try_recv() {
                Ok(m) => {
                    if let Some(o) = self.on_message(&m) {
                        return Some(o);
                    }
                }
                Err(TryRecvError::Lagged(n)) => {
                    self.on_lagged(n);
                    return self.pending.pop_front();
                }
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Closed) => {
                    self.closed = true;
                    return Some(Out::Close(1001, "going away"));
                }
            }
        }
    }

    /// The next message, waiting for one; `None` once the feed has ended. Cancel-safe: dropping
    /// the future loses nothing.
    pub async fn next(&mut self) -> Result<Option<Out>> {
        loop {
            if let Some(o) = self.pending.pop_front() {
                return Ok(Some(o));
            }
            if self.closed {
                return Ok(None);
            }
            if std::mem::take(&mut self.reread_clock) {
                let t = self.svc.get(&self.account, &self.twin).await?;
                if t.clock != self.clock {
                    self.clock = t.clock;
                    let view = t.clock.view(Timestamp::now().millis());
                    self.notice(json!({ "type": "clock", "clock": view }));
                }
            }
            if self.reenter {
                self.enter().await?;
                continue;
            }
            match &mut self.mode {
                Mode::Live | Mode::Paused => match self.rx.recv().await {
                    Ok(m) => {
                        if let Some(o) = self.on_message(&m) {
                            return Ok(Some(o));
                        }
                    }
                    Err(RecvError::Lagged(n)) => self.on_lagged(n),
                    Err(RecvError::Closed) => {
                        self.closed = true;
                        return Ok(Some(Out::Close(1001, "going away")));
                    }
                },
                Mode::Replay { .. } => {
                    if let Some(o) = self.replay_step().await? {
                        return Ok(Some(o));
                    }
                }
            }
        }
    }

    /// One step of a replay: the next stored reading when the clock reaches it, or a hub
    /// message (a clock change) first.
    async fn replay_step(&mut self) -> Result<Option<Out>> {
        let c = self.clock;
        let forward = c.rate > 0.0;
        let window = ((REPLAY_WINDOW_WALL_MS * c.rate.abs()).max(1000.0)) as i64;
        let now_wall = Timestamp::now().millis();
        let sim_now = c.at(now_wall);
        let Mode::Replay { cursor, buffer } = &mut self.mode else { return Ok(None) };
        let cursor = *cursor;
        if buffer.is_empty() {
            // Fetch the next window once the clock is within a window of it.
            let due = if forward { sim_now + window >= cursor } else { sim_now - window <= cursor };
            if due {
                let (after, to) = if forward { (cursor, cursor + window) } else { (cursor - window - 1, cursor - 1) };
                let rows =
                    self.svc.store.twin.readings_between(&self.twin, after, to, self.max_replay, !forward).await?;
                let mut next = if forward { to } else { after + 1 };
                let mut rows = rows;
                if rows.len() == self.max_replay as usize {
                    // Cut at the last instant that came whole; say what was left out.
                    let last = rows.last().map(|r| r.ts).unwrap_or(next);
                    if rows.first().is_some_and(|r| r.ts != last) {
                        rows.retain(|r| r.ts != last);
                        next = if forward { last - 1 } else { last + 1 };
                    } else {
                        self.pending.push_back(Out::Text(bytes::Bytes::from(
                            json!({ "type": "gap", "reason": "replay_limit", "dropped": null, "ts": rfc3339(last) })
                                .to_string(),
                        )));
                        next = last;
                    }
                }
                if let Mode::Replay { cursor, buffer } = &mut self.mode {
                    *cursor = next;
                    buffer.extend(rows);
                }
                return Ok(None);
            }
            // Wait until the clock is within a window of the cursor, or for the hub.
            let wait_sim = if forward { cursor - window - sim_now } else { sim_now - window - cursor };
            let wait = (wait_sim as f64 / c.rate.abs()).clamp(1.0, 60_000.0) as u64;
            return self.wait_or_hub(wait).await;
        }
        let Some(first) = buffer.front() else { return Ok(None) };
        let wall_due = c.set_at as f64 + (first.ts - c.anchor) as f64 / c.rate;
        let wait = wall_due - now_wall as f64;
        if wait <= 0.0 {
            let r = buffer.pop_front();
            if let Some(r) = r {
                if self.wanted(&r.sensor_id) {
                    return Ok(Some(Out::Text(bytes::Bytes::from(reading_text(&r.sensor_id, r.ts, &r.value)))));
                }
            }
            return Ok(None);
        }
        self.wait_or_hub(wait.ceil() as u64).await
    }

    async fn wait_or_hub(&mut self, ms: u64) -> Result<Option<Out>> {
        tokio::select! {
            () = tokio::time::sleep(std::time::Duration::from_millis(ms)) => Ok(None),
            m = self.rx.recv() => match m {
                Ok(m) => Ok(self.on_message(&m)),
                Err(RecvError::Lagged(_)) => Ok(None),
                Err(RecvError::Closed) => {
                    self.closed = true;
                    Ok(Some(Out::Close(1001, "going away")))
                }
            },
        }
    }
}
