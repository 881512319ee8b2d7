//! Notices that every node sharing a store hears: what changed, for the state a node keeps to
//! itself (the key cache, the DNS zones it serves).
//!
//! A notice names a change and never carries data that matters on its own: a node that hears
//! one reads what it needs from the store. Notices may be lost (a node's listening connection
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
pub const MAX_NOTICE_BYTES: usize = 4_000;

/// What changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// An API key was revoked (its id): no node may accept it, or its tokens, any longer.
    KeyRevoked(String),
    /// A commit wrote events of these types (distinct, in no particular order).
    Events(Vec<String>),
    /// A twin's clock, sensors or existence changed (its account and id).
    Twin { account: String, twin: String },
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
}

/// A node's end of the notices: publish, and subscribe to what every node publishes.
#[derive(Clone)]
pub struct Notices {
    bus: Arc<dyn NoticeBus>,
    local: broadcast::Sender<Notice>,
}

/// How many notices a slow subscriber may fall behind before it is told to resync.
const BACKLOG: usize = 4_096;

impl Notices {
    /// Notices sent through `bus`; `bus` delivers what it receives with [`Notices::deliver`].
    pub fn new(bus: Arc<dyn NoticeBus>) -> Self {
        let (local, _) = broadcast::channel(BACKLOG);
        Self { bus, local }
    }

    /// Notices of one process: what is published is delivered here, in memory.
    pub fn in_process() -> Self {
        struct Loopback(std::sync::OnceLock<broadcast::Sender<Notice>>);
        #[async_trait]
        impl NoticeBus for Loopback {
            async fn publish(&self, notice: &Notice) -> crate::Result<()> {
                if let Some(tx) = self.0.get() {
                    let _ = tx.send(notice.clone());
                }
                Ok(())
            }
        }
        let bus = Arc::new(Loopback(std::sync::OnceLock::new()));
        let notices = Self::new(bus.clone());
        let _ = bus.0.set(notices.local.clone());
        notices
    }

    /// Sends `notice` to every node.
    pub async fn publish(&self, notice: &Notice) -> crate::Result<()> {
        self.bus.publish(notice).await
    }

    /// Hands a notice heard by the backend to this node's subscribers.
    pub fn deliver(&self, notice: Notice) {
        let _ = self.local.send(notice);
    }

    /// Every notice from now on.
    pub fn subscribe(&self) -> Subscription {
        Subscription(self.local.subscribe())
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
}
