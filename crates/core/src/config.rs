//! The configuration tree. Loading (defaults, file, environment, flags) happens in the binary;
//! this module only says what can be configured and checks it.

use serde::{Deserialize, Serialize, Serializer};
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// A secret value: never printed, never logged.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(pub String);

impl Secret {
    /// The value itself, for the one place that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"[redacted]\"")
    }
}

impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("[redacted]")
    }
}

/// The whole configuration.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub storage: StorageConfig,
    pub log: LogConfig,
    pub auth: AuthConfig,
    pub limits: LimitsConfig,
    pub rate_limits: RateLimitsConfig,
    pub jobs: JobsConfig,
    pub events: EventsConfig,
    pub dns: DnsConfig,
    pub webhooks: WebhooksConfig,
    pub dem: DemConfig,
    pub eo: EoConfig,
    pub pointcloud: PointCloudConfig,
    pub twin: TwinConfig,
    pub features: FeaturesConfig,
    pub maps: MapsConfig,
}

/// Listeners, data directory and which roles this process plays.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// HTTP API address; port 0 picks a free port.
    pub http: SocketAddr,
    /// Authoritative DNS address (UDP and TCP); port 0 picks a free port.
    pub dns: SocketAddr,
    /// Where the embedded database and blobs live.
    pub data_dir: PathBuf,
    /// The externally visible base URL (scheme and host), used in links; derived from the request when unset.
    pub public_url: Option<String>,
    /// How long in-flight requests and jobs may take to finish after SIGTERM.
    #[serde(with = "humantime_serde")]
    pub shutdown_grace: Duration,
    /// Deadline of one request, from its head being read to its answer; past it the request's
    /// work is cancelled and the client gets a 503 `deadline_exceeded`.
    #[serde(with = "humantime_serde")]
    pub request_timeout: Duration,
    /// Time a client has to send a complete request head, counted from the connection opening or
    /// the previous answer (so it also closes connections that stay quiet between requests).
    #[serde(with = "humantime_serde")]
    pub header_read_timeout: Duration,
    /// A connection on which no byte moves either way, while no request of it is being handled
    /// (a client that stops reading its answer), is closed after this long.
    #[serde(with = "humantime_serde")]
    pub idle_timeout: Duration,
    /// Open HTTP connections in all; past it new connections get a 503 and are closed.
    pub max_connections: usize,
    /// Open HTTP connections from one client address.
    pub max_connections_per_ip: usize,
    /// Origins whose pages may call the API from a browser (CORS); `*` for any. Credentials
    /// travel in headers or an `access_token`, never in cookies, so `*` lends no session to
    /// another site. Empty: no CORS headers at all.
    pub cors_origins: Vec<String>,
    /// This node's name among the nodes sharing a store, stable across restarts (its MQTT
    /// session is named after it); empty: `<hostname>-<HTTP port>`.
    pub node_name: String,
    pub roles: RolesConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            http: SocketAddr::from(([127, 0, 0, 1], 8080)),
            dns: SocketAddr::from(([127, 0, 0, 1], 5353)),
            data_dir: PathBuf::from("./data"),
            public_url: None,
            shutdown_grace: Duration::from_secs(30),
            request_timeout: Duration::from_secs(120),
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 4096,
            max_connections_per_ip: 256,
            cors_origins: vec!["*".to_owned()],
            node_name: String::new(),
            roles: RolesConfig::default(),
        }
    }
}

/// Roles this process plays; at scale API nodes, DNS nodes and workers run apart.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RolesConfig {
    pub api: bool,
    pub dns: bool,
    pub workers: bool,
    pub dispatcher: bool,
    /// Takes readings from `twin.mqtt_url` (when set).
    pub mqtt: bool,
}

impl Default for RolesConfig {
    fn default() -> Self {
        Self { api: true, dns: true, workers: true, dispatcher: true, mqtt: true }
    }
}

impl RolesConfig {
    /// The roles named in a list such as `api,dns` (every other one off).
    pub fn parse_list(list: &str) -> Result<Self, String> {
        let mut roles = Self { api: false, dns: false, workers: false, dispatcher: false, mqtt: false };
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "api" => roles.api = true,
                "dns" => roles.dns = true,
                "workers" => roles.workers = true,
                "dispatcher" => roles.dispatcher = true,
                "mqtt" => roles.mqtt = true,
                _ => return Err(format!("unknown role {name:?}: the roles are api, dns, workers, dispatcher, mqtt")),
            }
        }
        Ok(roles)
    }
}

/// Where data is kept.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StorageConfig {
    /// Database URL: `sqlite://PATH` (the embedded default, `sqlite://<data_dir>/meridian.db`
    /// when unset) or `postgres://user@host:port/database`.
    pub database_url: Option<Secret>,
    /// Blob store URL; `file://<data_dir>/blobs` when unset.
    pub blob_url: Option<String>,
    /// Read connections of the SQLite pool (writes go through one connection).
    pub sqlite_readers: u32,
    /// How long a statement waits for a lock before failing.
    #[serde(with = "humantime_serde")]
    pub busy_timeout: Duration,
    /// PostgreSQL: connections in each process's pool.
    pub max_connections: u32,
    /// PostgreSQL: how long a request waits for a connection before it is answered 503
    /// `store_unavailable`.
    #[serde(with = "humantime_serde")]
    pub acquire_timeout: Duration,
    /// PostgreSQL: the longest a statement may run (`statement_timeout`; 0 for no limit).
    #[serde(with = "humantime_serde")]
    pub statement_timeout: Duration,
    /// PostgreSQL: `application_name`, as `pg_stat_activity` shows each connection.
    pub application_name: String,
}

impl Default for StorageConfig {
    fn default() -> Self {
        Self {
            database_url: None,
            blob_url: None,
            sqlite_readers: 4,
            busy_timeout: Duration::from_secs(5),
            max_connections: 16,
            acquire_timeout: Duration::from_secs(5),
            statement_timeout: Duration::from_secs(30),
            application_name: "meridian".into(),
        }
    }
}

/// Log output.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    pub format: LogFormat,
    /// A `tracing` filter, e.g. `info` or `meridian_api=debug,info`.
    pub level: String,
}

impl Default for LogConfig {
    fn default() -> Self {
        Self { format: LogFormat::Pretty, level: "info".into() }
    }
}

/// Human-readable or one JSON object per line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Pretty,
    Json,
}

/// Sign-up and tokens.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuthConfig {
    /// Whether `POST /api/v1/accounts` is open to anyone.
    pub signup: Signup,
    /// Lifetime of access tokens from `POST /api/v1/auth/token`.
    #[serde(with = "humantime_serde")]
    pub access_token_ttl: Duration,
    /// Key that signs access tokens; generated and kept in the database when unset, so that
    /// every node sharing the database accepts the same tokens.
    pub token_secret: Option<Secret>,
}

impl Default for AuthConfig {
    fn default() -> Self {
        Self { signup: Signup::Open, access_token_ttl: Duration::from_secs(3600), token_secret: None }
    }
}

/// Whether anyone may create an account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Signup {
    Open,
    Closed,
}

/// Size limits.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsConfig {
    /// Largest JSON or text body, in bytes.
    pub body_bytes: usize,
    /// Largest upload (GeoTIFF, LAS/LAZ, GeoJSON imports), in bytes.
    pub upload_bytes: u64,
    /// Page size when `limit` is absent.
    pub default_page_size: u32,
    /// Largest `limit` of the platform's own lists (areas with their own rule say so).
    pub max_page_size: u32,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        Self {
            body_bytes: 2 * 1024 * 1024,
            upload_bytes: 1024 * 1024 * 1024,
            default_page_size: 100,
            max_page_size: 1000,
        }
    }
}

/// One token bucket: `per_minute` requests a minute, bursts up to `burst` (default `per_minute`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    pub per_minute: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<u32>,
}

impl Rate {
    const fn per_minute(n: u32) -> Self {
        Self { per_minute: n, burst: None }
    }

    /// The bucket's capacity.
    pub fn capacity(&self) -> u32 {
        self.burst.unwrap_or(self.per_minute).max(1)
    }
}

/// Per-key rate limits for each API area (sign-up is limited per client address).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RateLimitsConfig {
    pub enabled: bool,
    /// A Redis server (`redis://host:6379/0`) that holds the buckets for every node sharing it;
    /// empty: each node keeps its own.
    pub redis_url: String,
    pub signup: Rate,
    pub account: Rate,
    pub dns: Rate,
    pub cadastre: Rate,
    pub dem: Rate,
    pub pointcloud: Rate,
    pub eo: Rate,
    pub ogc: Rate,
    pub twin: Rate,
    pub webhooks: Rate,
    pub jobs: Rate,
}

impl Default for RateLimitsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            redis_url: String::new(),
            signup: Rate::per_minute(30),
            account: Rate::per_minute(600),
            dns: Rate::per_minute(1000),
            cadastre: Rate::per_minute(3000),
            dem: Rate::per_minute(6000),
            pointcloud: Rate::per_minute(600),
            eo: Rate::per_minute(3000),
            ogc: Rate::per_minute(6000),
            twin: Rate::per_minute(6000),
            webhooks: Rate::per_minute(600),
            jobs: Rate::per_minute(600),
        }
    }
}

impl RateLimitsConfig {
    /// The rate for an area named as in [`crate::scope::AREAS`], or sign-up.
    pub fn for_area(&self, area: &str) -> Rate {
        match area {
            "signup" => self.signup,
            "dns" => self.dns,
            "cadastre" => self.cadastre,
            "dem" => self.dem,
            "pointcloud" => self.pointcloud,
            "eo" => self.eo,
            "ogc" => self.ogc,
            "twin" => self.twin,
            "webhooks" => self.webhooks,
            "jobs" => self.jobs,
            _ => self.account,
        }
    }
}

/// The durable job queue.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JobsConfig {
    /// Jobs run at once by this process.
    pub workers: usize,
    /// How long a claim lasts without a heartbeat; a dead worker's job is claimed again after it.
    #[serde(with = "humantime_serde")]
    pub lease: Duration,
    /// How often a running job renews its lease.
    #[serde(with = "humantime_serde")]
    pub heartbeat: Duration,
    /// How often idle workers look for work (they are also woken on submit).
    #[serde(with = "humantime_serde")]
    pub poll_interval: Duration,
    /// Attempts before a job that keeps failing is marked failed.
    pub max_attempts: u32,
    /// First retry delay; doubled on each further attempt, with jitter.
    #[serde(with = "humantime_serde")]
    pub retry_backoff: Duration,
    /// Finished jobs (and a DEM job's outputs) are removed this long after they finished; 0 keeps
    /// them.
    #[serde(with = "humantime_serde")]
    pub retention: Duration,
}

impl Default for JobsConfig {
    fn default() -> Self {
        Self {
            workers: 2,
            lease: Duration::from_secs(60),
            heartbeat: Duration::from_secs(15),
            poll_interval: Duration::from_secs(1),
            max_attempts: 3,
            retry_backoff: Duration::from_secs(10),
            retention: Duration::from_secs(90 * 86_400),
        }
    }
}

/// The outbox dispatcher.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EventsConfig {
    /// How often the dispatcher looks for events committed by other nodes.
    #[serde(with = "humantime_serde")]
    pub poll_interval: Duration,
    /// Events handed on per round.
    pub batch_size: u32,
    /// Dispatched events are removed this long after they were committed (the window webhook
    /// replays can reach back over); 0 keeps them.
    #[serde(with = "humantime_serde")]
    pub retention: Duration,
}

impl Default for EventsConfig {
    fn default() -> Self {
        Self { poll_interval: Duration::from_millis(500), batch_size: 200, retention: Duration::from_secs(30 * 86_400) }
    }
}

/// The feature store: collection uploads.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FeaturesConfig {
    /// Collection uploads up to this size are imported while the client waits (201); bigger ones
    /// become a `features.import` job (202). Uploads are capped by `limits.upload_bytes`.
    pub sync_import_bytes: u64,
    /// Longest CQL2 filter accepted (`filter=`, text or JSON), in bytes.
    pub filter_max_bytes: usize,
    /// Deepest nesting of a CQL2 filter (parentheses, NOTs, JSON operations).
    pub filter_max_depth: usize,
    /// Most terms in a CQL2 filter (tokens of cql2-text, values of cql2-json).
    pub filter_max_terms: usize,
}

impl Default for FeaturesConfig {
    fn default() -> Self {
        Self {
            sync_import_bytes: 16 * 1024 * 1024,
            filter_max_bytes: 64 * 1024,
            filter_max_depth: 64,
            filter_max_terms: 10_000,
        }
    }
}

/// The map services (WMS, WMTS): sizes and limits.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MapsConfig {
    /// Largest WMS GetMap WIDTH, in pixels.
    pub max_width: u32,
    /// Largest WMS GetMap HEIGHT, in pixels.
    pub max_height: u32,
    /// Most layers in one GetMap.
    pub max_layers: usize,
    /// Most features drawn from one layer in one map or tile.
    pub max_features: usize,
    /// `Cache-Control: max-age` of WMTS tiles.
    #[serde(with = "humantime_serde")]
    pub tile_max_age: Duration,
}

impl Default for MapsConfig {
    fn default() -> Self {
        Self {
            max_width: 4096,
            max_height: 4096,
            max_layers: 16,
            max_features: 50_000,
            tile_max_age: Duration::from_secs(300),
        }
    }
}

/// The DEM service: processing jobs and terrain tiles.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DemConfig {
    /// Keep rendered tiles in the blob store and answer repeated requests from there.
    pub tile_cache: bool,
    /// Cached tiles older than this are removed by the workers (checked every hour; 0 keeps them).
    #[serde(with = "humantime_serde")]
    pub tile_cache_ttl: Duration,
    /// Highest zoom level served; a DEM's own limit is one level past its native resolution.
    pub max_zoom: u8,
    /// `Cache-Control: max-age` of tiles (outputs of a job never change).
    #[serde(with = "humantime_serde")]
    pub tile_max_age: Duration,
    /// Most operations in one job.
    pub max_operations: usize,
    /// Most samples (width × height × bands) a GeoTIFF may declare.
    pub max_pixels: u64,
    /// Most decoded bytes in one tile or strip of a GeoTIFF.
    pub max_chunk_bytes: u64,
    /// Most tiles or strips in one image of a GeoTIFF.
    pub max_chunks: u64,
    /// Most contour levels one contours operation may produce (relief ÷ interval).
    pub max_contour_levels: u64,
    /// Most bytes of decoded COG chunks kept in memory for rendering tiles, shared by every
    /// dataset (least recently used out first); 0 decodes every chunk for every tile.
    pub block_cache_bytes: u64,
}

impl Default for DemConfig {
    fn default() -> Self {
        Self {
            tile_cache: true,
            tile_cache_ttl: Duration::from_secs(7 * 24 * 3600),
            max_zoom: 22,
            tile_max_age: Duration::from_secs(3600),
            max_operations: 16,
            max_pixels: 1 << 30,
            max_chunk_bytes: 64 << 20,
            max_chunks: 1 << 20,
            max_contour_levels: 10_000,
            block_cache_bytes: 256 << 20,
        }
    }
}

/// Earth observation: the STAC catalogue, band math and zonal statistics.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EoConfig {
    /// Items a search page holds when the request names no `limit`.
    pub default_limit: u32,
    /// Largest `limit` of a search page.
    pub max_limit: u32,
    /// Most items one POST of a FeatureCollection may add.
    pub max_items_per_request: usize,
    /// Index computations over at most this many pixels answer at once; larger ones are jobs.
    pub sync_pixels: u64,
    /// Most zones (features) one computation may summarise.
    pub max_zones: u32,
    /// Most samples (width × height × bands) an asset GeoTIFF may declare.
    pub max_pixels: u64,
    /// Most decoded bytes in one tile or strip of an asset.
    pub max_chunk_bytes: u64,
    /// Most tiles or strips in one image of an asset.
    pub max_chunks: u64,
    /// `Cache-Control: max-age` of index tiles.
    #[serde(with = "humantime_serde")]
    pub tile_max_age: Duration,
    /// Most bytes of decoded asset chunks kept in memory for index tiles, shared by every
    /// scene (least recently used out first); 0 decodes every chunk for every tile.
    pub block_cache_bytes: u64,
}

impl Default for EoConfig {
    fn default() -> Self {
        Self {
            default_limit: 10,
            max_limit: 10_000,
            max_items_per_request: 1_000,
            sync_pixels: 1 << 22,
            max_zones: 10_000,
            max_pixels: 1 << 30,
            max_chunk_bytes: 64 << 20,
            max_chunks: 1 << 20,
            tile_max_age: Duration::from_secs(3600),
            block_cache_bytes: 256 << 20,
        }
    }
}

/// The point-cloud area.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PointCloudConfig {
    /// Most points an uploaded LAS/LAZ file may declare (refused with 422 beyond).
    pub max_points: u64,
    /// Most points one classification takes (refused with 422 beyond). Memory holds two bytes a
    /// point for the whole file plus one tile; the tiles are spooled to disk (about 40 bytes a
    /// point) beside the job's work files.
    pub max_classify_points: u64,
    /// A file with at most this many points is classified whole; a larger one in tiles of about
    /// this many points (working memory about 110 bytes a point of the tile).
    pub classify_tile_points: u64,
    /// The classifier's model file; empty for the model built into the binary.
    pub model: String,
    /// Most points in one COPC octree node.
    pub copc_node_points: u32,
}

impl Default for PointCloudConfig {
    fn default() -> Self {
        Self {
            max_points: 2_000_000_000,
            max_classify_points: 500_000_000,
            classify_tile_points: 3_000_000,
            model: String::new(),
            copc_node_points: 100_000,
        }
    }
}

/// Digital twins: tileset builds, sensors, readings, MQTT ingest and the WebSocket.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TwinConfig {
    /// Most parcels (footprints) one twin's tileset is built from.
    pub max_parcels: usize,
    /// Tileset builds kept per twin (older ones are removed when a new one is stored).
    pub builds_kept: usize,
    /// Most sensors one twin may have.
    pub max_sensors: u32,
    /// Most readings one ingest request (or one MQTT write batch) may carry.
    pub max_batch: usize,
    /// Largest encoded reading value, in bytes (strings and JSON objects).
    pub max_value_bytes: usize,
    /// Readings older than this are removed (hourly); 0 keeps them for ever.
    #[serde(with = "humantime_serde")]
    pub retention: Duration,
    /// Messages queued for one WebSocket client before it is told of a gap and given the latest
    /// value of each sensor instead.
    pub ws_queue: usize,
    /// WebSockets one account may hold open at once.
    pub max_ws_per_account: usize,
    /// Interval of WebSocket pings; a client that has not answered within three is closed.
    #[serde(with = "humantime_serde")]
    pub ws_ping: Duration,
    /// Most stored readings one `since` resume or replay step sends before going live.
    pub max_replay: u32,
    /// MQTT broker to take readings from (`mqtt://host:port`); empty for none.
    pub mqtt_url: String,
    /// Topic of a reading on the broker; `{twin}` and `{sensor}` are the ids.
    pub mqtt_topic: String,
}

impl Default for TwinConfig {
    fn default() -> Self {
        Self {
            max_parcels: 200_000,
            builds_kept: 8,
            max_sensors: 10_000,
            max_batch: 10_000,
            max_value_bytes: 4096,
            retention: Duration::from_secs(30 * 86_400),
            ws_queue: 16_384,
            ws_ping: Duration::from_secs(20),
            max_ws_per_account: 5_000,
            max_replay: 100_000,
            mqtt_url: String::new(),
            mqtt_topic: "meridian/{twin}/{sensor}".to_owned(),
        }
    }
}

/// Webhook delivery policy.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebhooksConfig {
    /// Accept `http://` endpoints (development and tests only).
    pub allow_http: bool,
    /// Accept endpoints on loopback, private, link-local and CGNAT addresses (development and tests only).
    pub allow_private_networks: bool,
    /// How long one attempt may take, from connecting to the end of the response's headers.
    #[serde(with = "humantime_serde")]
    pub timeout: Duration,
    /// Delays before the second, third, ... attempt (each with ±20% jitter); after the last one the
    /// delivery is exhausted.
    #[serde(with = "duration_list")]
    pub retry_schedule: Vec<Duration>,
    /// A subscription whose deliveries fail without a single success for this long is paused.
    #[serde(with = "humantime_serde")]
    pub disable_after: Duration,
    /// How long the previous secret keeps signing, next to the new one, after a rotation.
    #[serde(with = "humantime_serde")]
    pub secret_rotation_grace: Duration,
    /// Deliveries in flight at once in this process.
    pub max_concurrency: u32,
    /// Deliveries in flight at once to one subscription, across every node.
    pub per_subscription_concurrency: u32,
    /// A PEM file of extra trusted root certificates for endpoints (a private CA, a test receiver).
    pub extra_ca_file: Option<PathBuf>,
    /// Finished deliveries (succeeded or exhausted) and their attempts are removed this long after
    /// they finished; 0 keeps them.
    #[serde(with = "humantime_serde")]
    pub retention: Duration,
}

impl Default for WebhooksConfig {
    fn default() -> Self {
        let minutes = |m: u64| Duration::from_secs(60 * m);
        Self {
            allow_http: false,
            allow_private_networks: false,
            timeout: Duration::from_secs(10),
            retry_schedule: vec![
                Duration::from_secs(5),
                minutes(1),
                minutes(5),
                minutes(30),
                minutes(120),
                minutes(360),
                minutes(720),
                minutes(1440),
            ],
            disable_after: Duration::from_secs(5 * 86_400),
            secret_rotation_grace: Duration::from_secs(86_400),
            max_concurrency: 64,
            per_subscription_concurrency: 8,
            extra_ca_file: None,
            retention: Duration::from_secs(30 * 86_400),
        }
    }
}

/// A list of durations in human form (`["5s", "1m"]`).
mod duration_list {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub(super) fn serialize<S: Serializer>(list: &[Duration], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(list.iter().map(|d| humantime_serde::Serde::from(*d)))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Duration>, D::Error> {
        let list = Vec::<humantime_serde::Serde<Duration>>::deserialize(d)?;
        Ok(list.into_iter().map(humantime_serde::Serde::into_inner).collect())
    }
}

/// The authoritative DNS server, and what every zone gets.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DnsConfig {
    /// Host names of the name servers in every zone's apex NS records; the first is the SOA MNAME.
    pub nameservers: Vec<String>,
    /// SOA fields of every zone.
    pub soa: SoaConfig,
    /// Addresses or networks (`192.0.2.1`, `10.0.0.0/8`) allowed to transfer zones (AXFR) without TSIG.
    pub allow_transfer: Vec<String>,
    /// Secondaries (`ip:port`) that get a NOTIFY after every change of a zone.
    pub notify: Vec<SocketAddr>,
    /// TSIG keys (HMAC-SHA256) for zone transfers and RFC 2136 dynamic updates.
    pub tsig_keys: Vec<TsigKeyConfig>,
    /// How often a DNS node looks for zones changed by other nodes.
    #[serde(with = "humantime_serde")]
    pub poll_interval: Duration,
    /// Largest answer sent over UDP when the client's EDNS buffer allows it, in bytes.
    pub max_udp_payload: u16,
    /// UDP sockets sharing the DNS port, each served by its own thread (0: one per core).
    pub udp_workers: usize,
    /// Bytes of rendered UDP answers each UDP worker keeps for the current zones (0: none).
    pub answer_cache_bytes: usize,
    /// Lifetime of DNSSEC signatures.
    #[serde(with = "humantime_serde")]
    pub signature_validity: Duration,
    /// Signatures are made anew when less than this is left of their lifetime.
    #[serde(with = "humantime_serde")]
    pub signature_refresh: Duration,
    /// TCP connections served at once; a new one past this is closed at once.
    pub tcp_connections: usize,
    /// TCP connections served at once from one client address.
    pub tcp_connections_per_client: usize,
    /// A TCP connection that sends nothing for this long is closed.
    #[serde(with = "humantime_serde")]
    pub tcp_idle_timeout: Duration,
    /// The idle timeout while more than half of `tcp_connections` are in use, so that idle
    /// connections make room for new clients.
    #[serde(with = "humantime_serde")]
    pub tcp_busy_idle_timeout: Duration,
    /// Most records one master-file import may hold.
    pub import_max_records: usize,
    /// Largest master file accepted by an import, in bytes.
    pub import_max_bytes: usize,
    /// Longest logical line (parentheses joined) of a master file, in bytes.
    pub import_max_line_bytes: usize,
}

impl Default for DnsConfig {
    fn default() -> Self {
        Self {
            nameservers: vec!["ns1.meridian.invalid".into(), "ns2.meridian.invalid".into()],
            soa: SoaConfig::default(),
            allow_transfer: Vec::new(),
            notify: Vec::new(),
            tsig_keys: Vec::new(),
            poll_interval: Duration::from_millis(500),
            max_udp_payload: 1232,
            udp_workers: 0,
            answer_cache_bytes: 16 * 1024 * 1024,
            signature_validity: Duration::from_secs(14 * 86_400),
            signature_refresh: Duration::from_secs(7 * 86_400),
            tcp_connections: 1024,
            tcp_connections_per_client: 16,
            tcp_idle_timeout: Duration::from_secs(10),
            tcp_busy_idle_timeout: Duration::from_millis(500),
            import_max_records: 100_000,
            import_max_bytes: 16 * 1024 * 1024,
            import_max_line_bytes: 65_535,
        }
    }
}

/// SOA fields shared by every zone (the serial is per zone).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SoaConfig {
    /// The responsible person's mailbox as a name (`hostmaster.example.com` for hostmaster@example.com).
    pub rname: String,
    /// TTL of the SOA and apex NS records, in seconds.
    pub ttl: u32,
    pub refresh: u32,
    pub retry: u32,
    pub expire: u32,
    /// TTL of negative answers (RFC 2308), in seconds.
    pub minimum: u32,
}

impl Default for SoaConfig {
    fn default() -> Self {
        Self {
            rname: "hostmaster.meridian.invalid".into(),
            ttl: 3600,
            refresh: 14_400,
            retry: 3600,
            expire: 1_209_600,
            minimum: 300,
        }
    }
}

/// A TSIG key shared with a secondary or an update client.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TsigKeyConfig {
    /// The key's name, as the peer knows it (`transfer-key`).
    pub name: String,
    /// Only `hmac-sha256`.
    #[serde(default = "default_tsig_algorithm")]
    pub algorithm: String,
    /// The shared secret, base64.
    pub secret: Secret,
    /// Whether the key may transfer zones (AXFR).
    #[serde(default = "default_true")]
    pub transfer: bool,
    /// Zones the key may change with dynamic updates (`example.com`, or `*` for every zone).
    #[serde(default)]
    pub update: Vec<String>,
}

fn default_tsig_algorithm() -> String {
    "hmac-sha256".into()
}

fn default_true() -> bool {
    true
}

impl Config {
    /// Checks rules that types cannot express; returns every problem found.
    pub fn validate(&self) -> Result<(), Vec<String>> {
        let mut problems = Vec::new();
        for check in [
            check_server,
            check_jobs_limits_auth,
            check_webhooks,
            check_dns,
            check_features,
            check_dem,
            check_pointcloud,
            check_twin,
            check_rate_limits,
        ] {
            check(self, &mut problems);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// This node's name: `server.node_name`, or `<hostname>-<HTTP port>` (`<hostname>-pid<pid>`
    /// when the port is picked at start).
    pub fn node_name(&self) -> String {
        if !self.server.node_name.is_empty() {
            return self.server.node_name.clone();
        }
        let host = std::env::var("HOSTNAME")
            .ok()
            .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
            .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
            .map(|h| h.trim().to_owned())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "meridian".to_owned());
        match self.server.http.port() {
            // A port picked at start is no name to come back with: the process is.
            0 => format!("{host}-pid{}", std::process::id()),
            port => format!("{host}-{port}"),
        }
    }

    /// The database URL in effect.
    pub fn database_url(&self) -> String {
        match &self.storage.database_url {
            Some(url) => url.expose().to_owned(),
            None => format!("sqlite://{}", self.server.data_dir.join("meridian.db").display()),
        }
    }

    /// Where uploads and work files are staged (`<data_dir>/tmp`): local disk, whatever the store.
    pub fn staging_dir(&self) -> std::path::PathBuf {
        self.server.data_dir.join("tmp")
    }

    /// The blob store URL in effect.
    pub fn blob_url(&self) -> String {
        match &self.storage.blob_url {
            Some(url) => url.clone(),
            None => format!("file://{}", self.server.data_dir.join("blobs").display()),
        }
    }
}

/// The HTTP server: timeouts, connection caps, CORS origins, the public URL.
fn check_server(c: &Config, p: &mut Vec<String>) {
    let server = &c.server;
    for (key, value) in [
        ("server.request_timeout", server.request_timeout),
        ("server.header_read_timeout", server.header_read_timeout),
        ("server.idle_timeout", server.idle_timeout),
    ] {
        if value.is_zero() {
            p.push(format!("{key} must be positive"));
        }
    }
    if server.max_connections == 0 || server.max_connections_per_ip == 0 {
        p.push("server.max_connections and server.max_connections_per_ip must be at least 1".to_owned());
    }
    if server.max_connections_per_ip > server.max_connections {
        p.push("server.max_connections_per_ip must not exceed server.max_connections".to_owned());
    }
    for o in &c.server.cors_origins {
        let scheme = o.starts_with("http://") || o.starts_with("https://");
        if o != "*" && (!scheme || o.ends_with('/') || o.contains(char::is_whitespace)) {
            p.push(format!("server.cors_origins: `{o}` is neither `*` nor an origin such as https://maps.example.com"));
        }
    }
    if let Some(url) = &c.server.public_url {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            p.push("server.public_url must start with http:// or https://".to_owned());
        }
    }
}

/// Jobs, page sizes and tokens.
fn check_jobs_limits_auth(c: &Config, p: &mut Vec<String>) {
    if c.jobs.workers == 0 && c.server.roles.workers {
        p.push("jobs.workers must be at least 1 when the workers role is on".to_owned());
    }
    if c.jobs.heartbeat >= c.jobs.lease {
        p.push("jobs.heartbeat must be shorter than jobs.lease".to_owned());
    }
    if c.limits.default_page_size == 0 || c.limits.default_page_size > c.limits.max_page_size {
        p.push("limits.default_page_size must be between 1 and limits.max_page_size".to_owned());
    }
    if c.auth.access_token_ttl.is_zero() {
        p.push("auth.access_token_ttl must be positive".to_owned());
    }
    if let Some(secret) = &c.auth.token_secret {
        if secret.expose().len() < 32 {
            p.push("auth.token_secret must be at least 32 characters".to_owned());
        }
    }
}

/// Webhook delivery.
fn check_webhooks(c: &Config, p: &mut Vec<String>) {
    let hooks = &c.webhooks;
    if hooks.timeout.is_zero() {
        p.push("webhooks.timeout must be positive".to_owned());
    }
    if hooks.max_concurrency == 0 || hooks.per_subscription_concurrency == 0 {
        p.push("webhooks.max_concurrency and webhooks.per_subscription_concurrency must be at least 1".to_owned());
    }
    if hooks.retry_schedule.len() > 100 {
        p.push("webhooks.retry_schedule may hold at most 100 delays".to_owned());
    }
}

/// The DNS server and its zones.
fn check_dns(c: &Config, p: &mut Vec<String>) {
    let dns = &c.dns;
    if dns.nameservers.is_empty() {
        p.push("dns.nameservers must name at least one name server".to_owned());
    }
    if dns.udp_workers > 256 {
        p.push("dns.udp_workers must be at most 256".to_owned());
    }
    if dns.max_udp_payload < 512 {
        p.push("dns.max_udp_payload must be at least 512".to_owned());
    }
    if dns.tcp_connections == 0 || dns.tcp_connections_per_client == 0 {
        p.push("dns.tcp_connections and dns.tcp_connections_per_client must be positive".to_owned());
    }
    if dns.tcp_idle_timeout.is_zero() || dns.tcp_busy_idle_timeout.is_zero() {
        p.push("dns.tcp_idle_timeout and dns.tcp_busy_idle_timeout must be positive".to_owned());
    }
    if dns.import_max_records == 0 || dns.import_max_bytes == 0 || dns.import_max_line_bytes == 0 {
        p.push("dns.import_max_records, import_max_bytes and import_max_line_bytes must be positive".to_owned());
    }
    if dns.poll_interval.is_zero() {
        p.push("dns.poll_interval must be positive".to_owned());
    }
    if dns.signature_refresh >= dns.signature_validity {
        p.push("dns.signature_refresh must be shorter than dns.signature_validity".to_owned());
    }
    for entry in &dns.allow_transfer {
        let (addr, len) = entry.split_once('/').map_or((entry.as_str(), None), |(a, l)| (a, Some(l)));
        let valid = match addr.parse::<std::net::IpAddr>() {
            Ok(ip) => len.is_none_or(|l| l.parse::<u8>().is_ok_and(|l| l <= if ip.is_ipv4() { 32 } else { 128 })),
            Err(_) => false,
        };
        if !valid {
            p.push(format!("dns.allow_transfer: `{entry}` is not an address or network"));
        }
    }
    for key in &dns.tsig_keys {
        if !key.algorithm.eq_ignore_ascii_case("hmac-sha256") {
            p.push(format!("dns.tsig_keys: key {} uses {}; only hmac-sha256 is supported", key.name, key.algorithm));
        }
        if key.secret.expose().trim().is_empty() {
            p.push(format!("dns.tsig_keys: key {} has an empty secret", key.name));
        }
    }
}

/// Feature filters.
fn check_features(c: &Config, p: &mut Vec<String>) {
    let f = &c.features;
    if f.filter_max_bytes == 0 || f.filter_max_depth == 0 || f.filter_max_terms == 0 {
        p.push("features.filter_max_bytes, filter_max_depth and filter_max_terms must be at least 1".to_owned());
    }
    if f.filter_max_depth > 256 {
        // Parsing and evaluation recurse once per level: keep them far from the stack's end.
        p.push("features.filter_max_depth must be at most 256".to_owned());
    }
}

/// DEM processing.
fn check_dem(c: &Config, p: &mut Vec<String>) {
    if c.dem.max_zoom > 24 {
        p.push("dem.max_zoom must be at most 24".to_owned());
    }
    if c.dem.max_operations == 0 {
        p.push("dem.max_operations must be at least 1".to_owned());
    }
    if c.dem.max_pixels == 0 || c.dem.max_chunk_bytes == 0 || c.dem.max_chunks == 0 {
        p.push("dem.max_pixels, dem.max_chunk_bytes and dem.max_chunks must be at least 1".to_owned());
    }
    if c.dem.max_contour_levels == 0 {
        p.push("dem.max_contour_levels must be at least 1".to_owned());
    }
}

/// Point clouds.
fn check_pointcloud(c: &Config, p: &mut Vec<String>) {
    let pc = &c.pointcloud;
    if pc.max_points == 0
        || pc.max_classify_points == 0
        || pc.classify_tile_points < 10_000
        || !(1_000..=10_000_000).contains(&pc.copc_node_points)
    {
        p.push(
            "pointcloud.max_points and pointcloud.max_classify_points must be at least 1, pointcloud.classify_tile_points at least 10000, pointcloud.copc_node_points 1000 to 10000000"
                .to_owned(),
        );
    }
}

/// Rate limits: a shared Redis is named by a `redis://` URL.
fn check_rate_limits(c: &Config, p: &mut Vec<String>) {
    let url = &c.rate_limits.redis_url;
    if !url.is_empty() && !url.starts_with("redis://") {
        p.push(format!("rate_limits.redis_url is a redis://host[:port][/db] URL (or empty), not {url:?}"));
    }
}

/// Digital twins and their MQTT ingest.
fn check_twin(c: &Config, p: &mut Vec<String>) {
    let twin = &c.twin;
    if twin.max_parcels == 0
        || twin.builds_kept == 0
        || twin.max_sensors == 0
        || twin.max_batch == 0
        || twin.ws_queue < 16
        || twin.max_value_bytes < 16
        || twin.ws_ping.is_zero()
    {
        p.push(
            "twin.max_parcels, builds_kept, max_sensors, max_batch and ws_ping must be at least 1, ws_queue and max_value_bytes at least 16"
                .to_owned(),
        );
    }
    if !twin.mqtt_url.is_empty() && !twin.mqtt_url.starts_with("mqtt://") {
        p.push("twin.mqtt_url must be empty or start with mqtt://".to_owned());
    }
    let levels: Vec<&str> = twin.mqtt_topic.split('/').collect();
    let whole = |l: &str| levels.iter().filter(|x| **x == l).count() == 1;
    if !(whole("{twin}") && whole("{sensor}"))
        || levels.iter().any(|l| *l != "{twin}" && *l != "{sensor}" && l.contains(['+', '#', '{', '}']))
    {
        p.push("twin.mqtt_topic must have {twin} and {sensor} each as a whole level, and no MQTT wildcard".to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_print() {
        let mut c = Config::default();
        c.auth.token_secret = Some(Secret("x".repeat(40)));
        assert!(!format!("{c:?}").contains("xxxx"));
        let json = serde_json::to_string(&c).unwrap_or_default();
        assert!(!json.contains("xxxx"));
        assert!(json.contains("[redacted]"));
    }

    #[test]
    fn filter_limits_are_checked() {
        let mut c = Config::default();
        c.features.filter_max_depth = 0;
        assert!(c.validate().is_err_and(|p| p.iter().any(|m| m.contains("filter_max_depth"))));
        c.features.filter_max_depth = 1_000;
        assert!(c.validate().is_err_and(|p| p.iter().any(|m| m.contains("at most 256"))));
    }

    #[test]
    fn defaults_are_valid_and_dns_gets_1000_a_minute() {
        let c = Config::default();
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(c.rate_limits.for_area("dns").per_minute, 1000);
    }
}
