//! [`TwinService`]: the digital-twin area without HTTP. A twin is an area of a feature collection
//! (the cadastre's parcels by default) with an optional DEM: its assets are the features in the
//! area, its 3D Tiles are built from them ([`crate::build_tileset`]) as they were at the twin's
//! simulation clock, and its sensors' readings are stored as a time series, fanned out live to
//! subscribers ([`hub`]) and replayed at the clock's rate ([`feed`]).

mod assets;
mod build;
pub mod clock;
pub mod feed;
pub mod fuzzing;
pub mod hub;
pub mod mqtt;
mod relay;
mod sensors;
mod twins;

pub use assets::Asset;
pub use build::{BuildContent, BuildJobHandler, Tileset, TilesetAnswer};
pub use clock::{Clock, ClockChange};
pub use feed::{Feed, FeedOptions};
pub use sensors::{
    check_value, parse_instant, parse_readings, sensor_json, valid_sensor_id, Bucket, Incoming, Ingested, NewSensor,
    Reading, ReadingsPage, ReadingsQuery, Sensor, ValueType,
};
pub use twins::{NewTwin, Status, Twin};

use meridian_core::config::{Config, TwinConfig};
use meridian_core::DomainError;
use meridian_store::{BlobStore, Store, StoreError};
use std::sync::Arc;

/// The job kind that builds a twin's tileset.
pub const BUILD_JOB: &str = "twin.build";
/// The event of a twin created.
pub const CREATED: &str = "twin.created";
/// The event of a twin's tileset built.
pub const BUILT: &str = "twin.built";
/// The event of a twin's build that failed.
pub const FAILED: &str = "twin.failed";
/// The event of a twin deleted.
pub const DELETED: &str = "twin.deleted";

/// What can go wrong in the twin service.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The caller's mistake (invalid input, not found, conflict).
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Internal(String),
}

meridian_store::area_error!(Error);

/// Results of the service.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Where the area's blobs live, all under the owning account.
pub mod keys {
    use meridian_core::id::AccountId;

    /// The folder of a twin.
    pub fn twin(account: &AccountId, id: &str) -> String {
        format!("{account}/twin/{id}")
    }

    /// The folder of one build (its `tileset.json` and `tiles/`).
    pub fn build(account: &AccountId, id: &str, stamp: i64) -> String {
        format!("{}/builds/{stamp}", twin(account, id))
    }
}

/// The twin service shared by the HTTP routes, the build job, the MQTT ingest and the WebSocket.
pub struct TwinService {
    pub(crate) store: Store,
    pub(crate) config: TwinConfig,
    pub(crate) max_attempts: u32,
    pub(crate) dem_limits: meridian_raster::tiff::Limits,
    /// Live fan-out of readings and clock changes.
    pub(crate) hub: Arc<hub::Hub>,
    /// Each twin's sensors and their value types, for ingest (dropped when a sensor is added or
    /// removed).
    pub(crate) sensor_types: Arc<SensorTypes>,
    /// One build at a time per twin.
    pub(crate) building: dashmap::DashMap<String, Arc<tokio::sync::Mutex<()>>>,
    /// Ingest of a twin's readings, from storing to publishing, one batch at a time (a twin's id
    /// picks one of these), so that live readings leave in the order they were stamped.
    pub(crate) ingest_order: Vec<tokio::sync::Mutex<()>>,
}

/// Each twin's sensors and their value types, with when they were read.
pub(crate) type SensorTypes =
    dashmap::DashMap<String, (std::time::Instant, Arc<std::collections::HashMap<String, ValueType>>)>;

/// How long a twin's sensor types are kept without a notice: a notice another node failed to
/// send (its database connection dropped after the commit) is made good this soon.
pub(crate) const SENSOR_TYPES_TTL: std::time::Duration = std::time::Duration::from_secs(10);

impl std::fmt::Debug for TwinService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TwinService").field("config", &self.config).finish()
    }
}

impl TwinService {
    /// The service over `store`.
    pub fn new(config: &Config, store: Store) -> Self {
        let hub = Arc::new(hub::Hub::new(config.twin.ws_queue));
        let sensor_types = Arc::new(SensorTypes::new());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let notices = store.notices.subscribe();
            runtime.spawn(follow_notices(store.clone(), Arc::downgrade(&hub), Arc::downgrade(&sensor_types), notices));
            if store.notices.shared() {
                let readings = store.notices.subscribe_readings();
                runtime.spawn(follow_readings(store.clone(), Arc::downgrade(&hub), readings));
            }
        }
        Self {
            store,
            config: config.twin.clone(),
            max_attempts: config.jobs.max_attempts,
            dem_limits: meridian_dem::raster_limits(&config.dem),
            hub,
            sensor_types,
            building: dashmap::DashMap::new(),
            ingest_order: (0..64).map(|_| tokio::sync::Mutex::new(())).collect(),
        }
    }

    /// The area's configuration.
    pub fn config(&self) -> &TwinConfig {
        &self.config
    }

    /// The blob store the builds live in.
    pub fn blobs(&self) -> &BlobStore {
        &self.store.blobs
    }

    /// The live fan-out.
    pub fn hub(&self) -> &hub::Hub {
        &self.hub
    }

    /// A seat for one more WebSocket of `account`, counted across every node; none when the
    /// account has `twin.max_ws_per_account` open. Held until dropped.
    pub async fn socket_seat(
        &self,
        account: &meridian_core::id::AccountId,
    ) -> Result<Option<meridian_store::seats::Seat>> {
        Ok(self.store.seats.take("twin_ws", account.as_str(), self.config.max_ws_per_account).await?)
    }

    /// Tells every node that a twin's clock, sensors or existence changed (they drop what they
    /// keep of it, and tell their sockets of a new clock).
    pub(crate) async fn tell_nodes(&self, account: &meridian_core::id::AccountId, twin: &str) {
        let notice = meridian_store::Notice::Twin { account: account.as_str().to_owned(), twin: twin.to_owned() };
        if let Err(e) = self.store.notices.publish(&notice).await {
            tracing::warn!(error = %e, twin, "telling other nodes of a twin's change failed");
        }
    }
}

/// What a node does when any node changed a twin: forget its sensors' types, and give the
/// twin's sockets here its clock as stored (or tell them it is gone).
async fn follow_notices(
    store: Store,
    hub: std::sync::Weak<hub::Hub>,
    sensor_types: std::sync::Weak<SensorTypes>,
    mut notices: meridian_store::notices::Subscription,
) {
    while let Some(notice) = notices.next().await {
        let (Some(hub), Some(sensor_types)) = (hub.upgrade(), sensor_types.upgrade()) else { return };
        match notice {
            meridian_store::Notice::Twin { account, twin } => {
                sensor_types.remove(&twin);
                // A deleted sensor's last reading is not handed to a slow client any more.
                hub.forget_latest(&twin);
                if hub.subscribers(&twin) == 0 {
                    continue;
                }
                match store.twin.get_twin(&meridian_core::id::AccountId(account), &twin).await {
                    Ok(Some(row)) => hub.clock_changed(&twin, Clock::of_value(&row.clock)),
                    Ok(None) => hub.close(&twin),
                    Err(e) => tracing::warn!(error = %e, twin, "reading a changed twin failed"),
                }
            }
            meridian_store::Notice::Resync => sensor_types.clear(),
            _ => {}
        }
    }
}

/// What a node does with the live readings other nodes stored: hand them to its sockets of the
/// twin; when some may have been missed, tell every socket so.
async fn follow_readings(
    store: Store,
    hub: std::sync::Weak<hub::Hub>,
    mut readings: meridian_store::notices::Subscription,
) {
    while let Some(notice) = readings.next().await {
        let Some(hub) = hub.upgrade() else { return };
        match notice {
            meridian_store::Notice::Readings { origin, twin, lines } => {
                if origin == store.notices.node() || hub.subscribers(&twin) == 0 {
                    continue;
                }
                relay_readings(&store, &hub, &twin, &lines).await;
            }
            // Every socket says so and starts again from the stored present.
            meridian_store::Notice::Resync => hub.gap_all(),
            _ => {}
        }
    }
}

/// Readings another node stored, to this node's sockets of the twin.
async fn relay_readings(store: &Store, hub: &hub::Hub, twin: &str, text: &str) {
    let mut messages = Vec::new();
    for line in relay::lines(text) {
        let value = match line.value {
            Some(v) => std::borrow::Cow::Borrowed(v),
            None => match store.twin.readings_between(twin, line.ts - 1, line.ts, 1_000, false).await {
                Ok(rows) => match rows.into_iter().find(|r| r.sensor_id == line.sensor) {
                    Some(r) => std::borrow::Cow::Owned(r.value),
                    None => continue,
                },
                Err(e) => {
                    tracing::warn!(error = %e, twin, "reading back a relayed reading failed");
                    continue;
                }
            },
        };
        messages.push(hub::Message::Reading {
            sensor: Arc::from(line.sensor),
            ts: line.ts,
            text: bytes::Bytes::from(sensors::reading_text(line.sensor, line.ts, &value)),
        });
    }
    hub.publish(twin, messages);
}

/// A not-found error for a twin (another account's too: never tell which).
pub(crate) fn twin_not_found(id: &str) -> Error {
    Error::Domain(DomainError::not_found("twin", id))
}
