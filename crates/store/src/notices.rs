//! Notices that every node sharing a store hears: what changed, for the state a node keeps to
//! itself (the key cache, the DNS zones it serves).
//!
//! A notice names a change and never carries data that matters on its own: a node that hears
//! one reads what it needs from the store. The one kind that carries data, live readings, carries
//! copies of rows already committed, for the sockets of other nodes: losing one costs those
//! sockets a `gap`, never a stored reading. Notices may be lost (a node's listening connection
//! drops; a receiver lags behind); the backend then delivers [`Notice::Resync`] and every holder
//! of kept state treats everything as changed. So a lost notice costs a reload, never a stale
//! answer beyond the holder's own time limit.
//!
//! On the embedded default one process holds the store, and notices go from the writer to the
//! process's subscribers in memory. On PostgreSQL they travel as `NOTIFY` on one channel,
//! delivered at commit to every node (the sender included) by its listening connection; a
//! notice's text is at most [`MAX_NOTICE_BYTES`].

use async_trait::async_trait;
use std::sync::Arc;
use tokio::sync::broadcast;

/// The longest notice text (PostgreSQL's `NOTIFY` payloads are under 8,000 bytes).
pub const MAX_NOTICE_BYTES: usize = 7_900;

/// What changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// An API key was revoked (its id): no node may accept it, or its tokens, any longer.
    KeyRevoked(String),
    /// A commit wrote events of these types (distinct, in no particular order).
    Events(Vec<String>),
    /// A twin's clock, sensors or existence changed (its account and id).
    Twin { account: String, twin: String },
    /// Readings of a twin stored by node `origin`, for the live sockets of the others; `lines` is
    /// the twin area's own encoding.
    Readings { origin: String, twin: String, lines: String },
    /// Notices may have been missed: treat everything kept as changed.
    Resync,
}

impl Notice {
    /// The notice as text: `key_revoked <id>`, `events <type>,<type>`, `resync`.
    pub fn encode(&self) -> String {
        match self {
            Notice::KeyRevoked(id) => format!("key_revoked {id}"),
            Notice::Events(types) => format!("events {}", types.join(",")),
            Notice::Twin { account, twin } => format!("twin {account} {twin}"),
            Notice::Readings { origin, twin, lines } => format!("readings {origin} {twin} {lines}"),
            Notice::Resync => "resync".to_owned(),
        }
    }

    /// A notice from its text; text of an unknown kind (a newer node's) is none.
    pub fn decode(text: &str) -> Option<Notice> {
        let (kind, rest) = text.split_once(' ').unwrap_or((text, ""));
        match kind {
            "key_revoked" if !rest.is_empty() => Some(Notice::KeyRevoked(rest.to_owned())),
            "events" => Some(Notice::Events(rest.split(',').filter(|t| !t.is_empty()).map(str::to_owned).collect())),
            "twin" => {
                let (account, twin) = rest.split_once(' ')?;
                Some(Notice::Twin { account: account.to_owned(), twin: twin.to_owned() })
            }
            "readings" => {
                let (origin, rest) = rest.split_once(' ')?;
                let (twin, lines) = rest.split_once(' ')?;
                Some(Notice::Readings { origin: origin.to_owned(), twin: twin.to_owned(), lines: lines.to_owned() })
            }
            "resync" => Some(Notice::Resync),
            _ => None,
        }
    }

    /// The notice of a commit that wrote events of `types` (repeats dropped), cut to
    /// [`MAX_NOTICE_BYTES`]: a commit with more distinct types than fit says `Resync`.
    pub fn of_events<'a>(types: impl IntoIterator<Item = &'a str>) -> Notice {
        let mut distinct: Vec<String> = Vec::new();
        for t in types {
            if !distinct.iter().any(|d| d == t) {
                distinct.push(t.to_owned());
            }
        }
        let notice = Notice::Events(distinct);
        if notice.encode().len() > MAX_NOTICE_BYTES {
            Notice::Resync
        } else {
            notice
        }
    }
}

/// How a backend sends a notice to every node.
#[async_trait]
pub trait NoticeBus: Send + Sync {
    /// Sends `notice` to every node, this one included (through [`Notices::deliver`]).
    async fn publish(&self, notice: &Notice) -> crate::Result<()>;

    /// Sends several notices, in order.
    async fn publish_all(&self, notices: &[Notice]) -> crate::Result<()> {
        for n in notices {
            self.publish(n).await?;
        }
        Ok(())
    }
}

/// A node's end of the notices: publish, and subscribe to what every node publishes.
#[derive(Clone)]
pub struct Notices {
    bus: Arc<dyn NoticeBus>,
    local: broadcast::Sender<Notice>,
    /// Live readings go apart, so that a burst of them never pushes the other notices' readers
    /// into a resync.
    live: broadcast::Sender<Notice>,
    /// This node's name among those sharing the store.
    node: Arc<str>,
    /// Whether other processes hear what this one publishes.
    shared: bool,
}

/// How many notices a slow subscriber may fall behind before it is told to resync.
const BACKLOG: usize = 4_096;

impl Notices {
    /// Notices sent through `bus`; `bus` delivers what it receives with [`Notices::deliver`].
    pub fn new(bus: Arc<dyn NoticeBus>) -> Self {
        let (local, _) = broadcast::channel(BACKLOG);
        let (live, _) = broadcast::channel(BACKLOG);
        Self { bus, local, live, node: Arc::from(meridian_core::id::new_id("node")), shared: true }
    }

    /// Notices of one process: what is published is delivered here, in memory.
    pub fn in_process() -> Self {
        type Senders = (broadcast::Sender<Notice>, broadcast::Sender<Notice>);
        struct Loopback(std::sync::OnceLock<Senders>);
        #[async_trait]
        impl NoticeBus for Loopback {
            async fn publish(&self, notice: &Notice) -> crate::Result<()> {
                if let Some((local, live)) = self.0.get() {
                    route(local, live, notice.clone());
                }
                Ok(())
            }
        }
        let bus = Arc::new(Loopback(std::sync::OnceLock::new()));
        let notices = Self { shared: false, ..Self::new(bus.clone()) };
        let _ = bus.0.set((notices.local.clone(), notices.live.clone()));
        notices
    }

    /// Sends `notice` to every node.
    pub async fn publish(&self, notice: &Notice) -> crate::Result<()> {
        self.bus.publish(notice).await
    }

    /// Sends several notices to every node, in order (one round trip where the backend can).
    pub async fn publish_all(&self, notices: &[Notice]) -> crate::Result<()> {
        self.bus.publish_all(notices).await
    }

    /// This node's name: unique among the processes sharing the store, new at every start.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// Whether other processes hear these notices (false on the embedded default, where this
    /// process is the only one).
    pub fn shared(&self) -> bool {
        self.shared
    }

    /// Hands a notice heard by the backend to this node's subscribers.
    pub fn deliver(&self, notice: Notice) {
        route(&self.local, &self.live, notice);
    }

    /// Every notice from now on but live readings.
    pub fn subscribe(&self) -> Subscription {
        Subscription(self.local.subscribe())
    }

    /// Live readings ([`Notice::Readings`]) from now on, and [`Notice::Resync`].
    pub fn subscribe_readings(&self) -> Subscription {
        Subscription(self.live.subscribe())
    }
}

/// Live readings to their own subscribers, `Resync` to both kinds, the rest to the others.
fn route(local: &broadcast::Sender<Notice>, live: &broadcast::Sender<Notice>, notice: Notice) {
    match notice {
        Notice::Readings { .. } => {
            let _ = live.send(notice);
        }
        Notice::Resync => {
            let _ = live.send(Notice::Resync);
            let _ = local.send(notice);
        }
        _ => {
            let _ = local.send(notice);
        }
    }
}

impl std::fmt::Debug for Notices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notices").field("subscribers", &self.local.receiver_count()).finish()
    }
}

/// A subscriber's queue of notices.
pub struct Subscription(broadcast::Receiver<Notice>);

impl Subscription {
    /// The next notice; a subscriber that fell behind gets [`Notice::Resync`] for what it
    /// missed. None once the notices are gone (the store was dropped).
    pub async fn next(&mut self) -> Option<Notice> {
        match self.0.recv().await {
            Ok(n) => Some(n),
            Err(broadcast::error::RecvError::Lagged(_)) => Some(Notice::Resync),
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }

    /// A notice already queued, without waiting.
    pub fn try_next(&mut self) -> Option<Notice> {
        match self.0.try_recv() {
            Ok(n) => Some(n),
            Err(broadcast::error::TryRecvError::Lagged(_)) => Some(Notice::Resync),
            Err(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_read_back_as_written() {
        for n in [
            Notice::KeyRevoked("key_01abc".into()),
            Notice::Events(vec!["dns.record.created".into(), "cadastre.parcel.registered".into()]),
            Notice::Events(Vec::new()),
            Notice::Twin { account: "acct_01".into(), twin: "twin_01".into() },
            Notice::Readings {
                origin: "node_01".into(),
                twin: "twin_01".into(),
                lines: "s1\t5\t{\"a b\": 1}\ns2\t6".into(),
            },
            Notice::Resync,
        ] {
            assert_eq!(Notice::decode(&n.encode()), Some(n));
        }
        assert_eq!(Notice::decode("from_a_newer_node x"), None);
        assert_eq!(Notice::decode("key_revoked"), None);
    }

    #[test]
    fn an_event_notice_names_each_type_once_and_too_many_resync() {
        assert_eq!(Notice::of_events(["a.b", "c.d", "a.b"]), Notice::Events(vec!["a.b".into(), "c.d".into()]));
        let many: Vec<String> = (0..1000).map(|i| format!("area.thing.happened{i}")).collect();
        assert_eq!(Notice::of_events(many.iter().map(String::as_str)), Notice::Resync);
    }

    #[tokio::test]
    async fn in_process_notices_reach_every_subscriber_and_laggards_resync() -> crate::Result<()> {
        let notices = Notices::in_process();
        let (mut a, mut b) = (notices.subscribe(), notices.subscribe());
        notices.publish(&Notice::KeyRevoked("k".into())).await?;
        assert_eq!(a.next().await, Some(Notice::KeyRevoked("k".into())));
        assert_eq!(b.next().await, Some(Notice::KeyRevoked("k".into())));
        for _ in 0..BACKLOG + 1 {
            notices.publish(&Notice::Events(Vec::new())).await?;
        }
        assert_eq!(a.next().await, Some(Notice::Resync));
        Ok(())
    }

    #[tokio::test]
    async fn live_readings_go_apart_from_the_other_notices() -> crate::Result<()> {
        let notices = Notices::in_process();
        let (mut others, mut live) = (notices.subscribe(), notices.subscribe_readings());
        for _ in 0..BACKLOG + 1 {
            notices.publish(&Notice::Readings { origin: "n".into(), twin: "t".into(), lines: "s\t1".into() }).await?;
        }
        notices.publish(&Notice::KeyRevoked("k".into())).await?;
        assert_eq!(others.next().await, Some(Notice::KeyRevoked("k".into())), "never pushed behind by readings");
        assert_eq!(live.next().await, Some(Notice::Resync), "the readings' reader fell behind");
        notices.publish(&Notice::Resync).await?;
        assert_eq!(others.next().await, Some(Notice::Resync));
        Ok(())
    }
}
