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
    pub webhooks: WebhooksConfig,
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
}

impl Default for RolesConfig {
    fn default() -> Self {
        Self { api: true, dns: true, workers: true, dispatcher: true }
    }
}

/// Where data is kept.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StorageConfig {
    /// Database URL; `sqlite://<data_dir>/meridian.db` when unset.
    pub database_url: Option<Secret>,
    /// Blob store URL; `file://<data_dir>/blobs` when unset.
    pub blob_url: Option<String>,
    /// Read connections of the SQLite pool (writes go through one connection).
    pub sqlite_readers: u32,
    /// How long a statement waits for a lock before failing.
    #[serde(with = "humantime_serde")]
    pub busy_timeout: Duration,
}

impl Default for StorageConfig {
    fn default() -> Self {
        Self { database_url: None, blob_url: None, sqlite_readers: 4, busy_timeout: Duration::from_secs(5) }
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
}

impl Default for EventsConfig {
    fn default() -> Self {
        Self { poll_interval: Duration::from_millis(500), batch_size: 200 }
    }
}

/// Webhook delivery policy.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebhooksConfig {
    /// Accept `http://` endpoints (development and tests only).
    pub allow_http: bool,
    /// Accept endpoints on loopback, private, link-local and CGNAT addresses (development and tests only).
    pub allow_private_networks: bool,
}

impl Config {
    /// Checks rules that types cannot express; returns every problem found.
    pub fn validate(&self) -> Result<(), Vec<String>> {
        let mut problems = Vec::new();
        if self.jobs.workers == 0 && self.server.roles.workers {
            problems.push("jobs.workers must be at least 1 when the workers role is on".to_owned());
        }
        if self.jobs.heartbeat >= self.jobs.lease {
            problems.push("jobs.heartbeat must be shorter than jobs.lease".to_owned());
        }
        if self.limits.default_page_size == 0 || self.limits.default_page_size > self.limits.max_page_size {
            problems.push("limits.default_page_size must be between 1 and limits.max_page_size".to_owned());
        }
        if self.auth.access_token_ttl.is_zero() {
            problems.push("auth.access_token_ttl must be positive".to_owned());
        }
        if let Some(secret) = &self.auth.token_secret {
            if secret.expose().len() < 32 {
                problems.push("auth.token_secret must be at least 32 characters".to_owned());
            }
        }
        if let Some(url) = &self.server.public_url {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                problems.push("server.public_url must start with http:// or https://".to_owned());
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// The database URL in effect.
    pub fn database_url(&self) -> String {
        match &self.storage.database_url {
            Some(url) => url.expose().to_owned(),
            None => format!("sqlite://{}", self.server.data_dir.join("meridian.db").display()),
        }
    }

    /// The blob store URL in effect.
    pub fn blob_url(&self) -> String {
        match &self.storage.blob_url {
            Some(url) => url.clone(),
            None => format!("file://{}", self.server.data_dir.join("blobs").display()),
        }
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
    fn defaults_are_valid_and_dns_gets_1000_a_minute() {
        let c = Config::default();
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(c.rate_limits.for_area("dns").per_minute, 1000);
    }
}
