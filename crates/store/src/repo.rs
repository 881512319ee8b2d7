//! The repository traits. Everything above the store codes against these; each backend
//! (`meridian-store-sqlite`, later PostgreSQL) implements all of them.

use crate::dns::{ChangeSet, DnsKey, Record as DnsRecord, RecordFilter, Zone as DnsZone, ZoneVersion};
use crate::model::{Account, ApiKey, Heartbeat, Job, NewJob};
use crate::{BlobStore, Result};
use async_trait::async_trait;
use meridian_core::event::{Event, NewEvent};
use meridian_core::id::{AccountId, ApiKeyId, DeliveryId, EventId, JobId, RecordId, SubscriptionId, ZoneId};
use meridian_core::page::Page;
use meridian_core::Timestamp;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// Accounts and their API keys.
#[async_trait]
pub trait AccountRepo: Send + Sync {
    /// Creates an account and its first key in one transaction. A taken email is a conflict.
    async fn create_account(&self, account: &Account, first_key: &ApiKey) -> Result<()>;
    /// One account.
    async fn get_account(&self, id: &AccountId) -> Result<Option<Account>>;
    /// Adds a key to an existing account.
    async fn create_api_key(&self, key: &ApiKey) -> Result<()>;
    /// The account's keys, newest first, and how many there are.
    async fn list_api_keys(&self, account: &AccountId, page: Page) -> Result<(Vec<ApiKey>, u64)>;
    /// One key of the account.
    async fn get_api_key(&self, account: &AccountId, id: &ApiKeyId) -> Result<Option<ApiKey>>;
    /// The key with this hash, whoever owns it (authentication).
    async fn find_api_key_by_hash(&self, hash: &str) -> Result<Option<ApiKey>>;
    /// Revokes a key of the account (idempotent); not-found for another account's key.
    async fn revoke_api_key(&self, account: &AccountId, id: &ApiKeyId, at: Timestamp) -> Result<ApiKey>;
}

/// Server-wide settings shared by every node (e.g. the token-signing key).
#[async_trait]
pub trait SettingsRepo: Send + Sync {
    /// The value of `key`, storing `init` first if there is none; every node gets the same answer.
    async fn get_or_init(&self, key: &str, init: &str) -> Result<String>;
}

/// The durable job queue.
#[async_trait]
pub trait JobRepo: Send + Sync {
    /// Queues a job.
    async fn submit(&self, job: NewJob) -> Result<Job>;
    /// One job of the account.
    async fn get_job(&self, account: &AccountId, id: &JobId) -> Result<Option<Job>>;
    /// The account's jobs, newest first, optionally of one kind, and how many there are.
    async fn list_jobs(&self, account: &AccountId, kind: Option<&str>, page: Page) -> Result<(Vec<Job>, u64)>;
    /// Claims the next runnable job of one of `kinds`: queued and due, or running with a lease
    /// that ran out (its worker died). The claim holds for `lease`.
    async fn claim(&self, kinds: &[String], worker: &str, lease: Duration) -> Result<Option<Job>>;
    /// Renews the lease and records progress.
    async fn heartbeat(&self, id: &JobId, worker: &str, lease: Duration, progress: Option<u8>) -> Result<Heartbeat>;
    /// Marks the job succeeded, committing `event` with it. False when the lease was lost.
    async fn succeed(&self, id: &JobId, worker: &str, output: Value, event: Option<NewEvent>) -> Result<bool>;
    /// Records a failure: queued again at `retry_at`, or failed for good (with `event`) when `None`.
    async fn fail(
        &self,
        id: &JobId,
        worker: &str,
        error: Value,
        retry_at: Option<Timestamp>,
        event: Option<NewEvent>,
    ) -> Result<bool>;
    /// Marks a running job cancelled after its handler stopped.
    async fn mark_cancelled(&self, id: &JobId, worker: &str) -> Result<bool>;
    /// Asks for cancellation: a queued job is cancelled at once, a running one at its next
    /// heartbeat. A job that already ended is a conflict.
    async fn cancel(&self, account: &AccountId, id: &JobId) -> Result<Job>;
    /// Removes at most `limit` jobs that finished before `before`; returns them (their outputs
    /// may need removing too).
    async fn purge_finished(&self, before: Timestamp, limit: u32) -> Result<Vec<Job>>;
}

/// The transactional outbox. Area repositories insert events in the same transaction as their
/// change; this trait is for the dispatcher and for events with no other change to ride on.
#[async_trait]
pub trait OutboxRepo: Send + Sync {
    /// Appends events on their own.
    async fn append(&self, events: &[NewEvent]) -> Result<()>;
    /// Events not yet handed on, oldest first.
    async fn pending(&self, limit: u32) -> Result<Vec<Event>>;
    /// Marks events handed on.
    async fn mark_dispatched(&self, seqs: &[i64], at: Timestamp) -> Result<()>;
    /// Events not yet dispatched with a position after `after`, oldest first, at most `limit`
    /// (a sink that is ahead of the others reads on from its own position).
    async fn pending_after(&self, after: i64, limit: u32) -> Result<Vec<Event>>;
    /// Removes at most `limit` dispatched events committed before `before`; returns how many.
    async fn purge_dispatched(&self, before: Timestamp, limit: u32) -> Result<u64>;
    /// The account's events that pass `filter`, newest first (a cursor seeks after its event),
    /// and how many pass it. Only events the dispatcher has not purged yet are there
    /// (`events.retention`).
    async fn list_events(&self, account: &AccountId, filter: &EventFilter, page: Page) -> Result<(Vec<Event>, u64)>;
}

/// Which events a list holds: `EventFilter::default()` holds them all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventFilter {
    /// Types starting with this (`"dns."`: every DNS event).
    pub type_prefix: Option<String>,
    /// A top-level member of the payload and the string it must equal (`("zone_id", "zone_...")`).
    /// The member's name is the caller's, never a request's: it must be letters, digits and `_`.
    pub field: Option<(String, String)>,
}

impl EventFilter {
    /// The member name of `field`, checked (a name it refuses selects nothing).
    pub fn field_name(&self) -> Option<&str> {
        self.field
            .as_ref()
            .map(|(name, _)| name.as_str())
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
    }
}

/// Webhook subscriptions, their deliveries and every attempt. Another account's subscription or
/// delivery is not found.
#[async_trait]
pub trait WebhookRepo: Send + Sync {
    /// Removes at most `limit` finished deliveries (succeeded or exhausted) that finished before
    /// `before`, with their attempts; returns how many.
    async fn purge_completed(&self, before: Timestamp, limit: u32) -> Result<u64>;
    /// Stores a new subscription.
    async fn create_subscription(&self, sub: &Subscription) -> Result<()>;
    /// One subscription of the account.
    async fn get_subscription(&self, account: &AccountId, id: &SubscriptionId) -> Result<Option<Subscription>>;
    /// The account's subscriptions, newest first (only those limited to `dns.*` events when
    /// `dns_only`), and how many there are.
    async fn list_subscriptions(
        &self,
        account: &AccountId,
        dns_only: bool,
        page: Page,
    ) -> Result<(Vec<Subscription>, u64)>;
    /// Applies a change; `if_version` makes it conditional (precondition failed otherwise).
    async fn update_subscription(
        &self,
        account: &AccountId,
        id: &SubscriptionId,
        change: &SubscriptionChange,
        if_version: Option<i64>,
    ) -> Result<Subscription>;
    /// Deletes a subscription and its deliveries; with `dns_only`, only one limited to `dns.*`.
    async fn delete_subscription(
        &self,
        account: &AccountId,
        id: &SubscriptionId,
        if_version: Option<i64>,
        dns_only: bool,
    ) -> Result<()>;
    /// Makes `secret` current; the old one keeps signing until `previous_expires_at`.
    async fn rotate_secret(
        &self,
        account: &AccountId,
        id: &SubscriptionId,
        secret: &str,
        previous_expires_at: Timestamp,
    ) -> Result<Subscription>;
    /// The active subscriptions of these accounts (fan-out).
    async fn active_subscriptions(&self, accounts: &[AccountId]) -> Result<Vec<Subscription>>;
    /// Adds deliveries due now, skipping any (event, subscription) pair that already has one and
    /// any subscription deleted meanwhile; returns how many were added.
    async fn insert_deliveries(&self, deliveries: &[NewDelivery]) -> Result<u64> {
        Ok(self.insert_deliveries_leased(deliveries, None).await?.len() as u64)
    }
    /// As [`WebhookRepo::insert_deliveries`], in one statement, leasing the new deliveries to
    /// `lease` (worker, until) when given, so that the worker that is handed them in memory is the
    /// only one to attempt them. Answers the index in `deliveries` and the id of each one added.
    async fn insert_deliveries_leased(
        &self,
        deliveries: &[NewDelivery],
        lease: Option<(&str, Timestamp)>,
    ) -> Result<Vec<(usize, DeliveryId)>>;
    /// The account's events committed in `[since, until)`, oldest first.
    async fn events_between(
        &self,
        account: &AccountId,
        since: Timestamp,
        until: Option<Timestamp>,
        limit: u32,
    ) -> Result<Vec<Event>>;
    /// Sends events again to one subscription: adds missing deliveries and makes ended ones due
    /// now (only failed and exhausted ones with `only_failed`); returns how many will be sent.
    async fn replay(&self, account: &AccountId, deliveries: &[NewDelivery], only_failed: bool) -> Result<u64>;
    /// Makes an ended delivery (or one waiting for a retry) due now; one being attempted is a conflict.
    async fn redeliver(&self, account: &AccountId, id: &DeliveryId) -> Result<Delivery>;
    /// One delivery with its event and attempts.
    async fn get_delivery(&self, account: &AccountId, id: &DeliveryId) -> Result<Option<Delivery>>;
    /// A subscription's deliveries, newest first, with their attempts, and how many there are.
    async fn list_deliveries(
        &self,
        account: &AccountId,
        subscription: &SubscriptionId,
        filter: &DeliveryFilter,
        page: Page,
    ) -> Result<(Vec<Delivery>, u64)>;
    /// Leases up to `limit` due deliveries of active subscriptions, never more than
    /// `per_subscription` in flight for one subscription (counting other workers' leases).
    async fn claim_deliveries(
        &self,
        worker: &str,
        limit: u32,
        per_subscription: u32,
        lease: Duration,
    ) -> Result<Vec<ClaimedDelivery>>;
    /// Logs an attempt and, while `worker` still holds the lease, records its outcome; a failure
    /// pauses the subscription once it has failed without a success for `disable_after`.
    /// False when the lease was lost.
    async fn record_attempt(
        &self,
        worker: &str,
        id: &DeliveryId,
        attempt: &Attempt,
        outcome: AttemptOutcome,
        disable_after: Duration,
    ) -> Result<bool> {
        let one = [AttemptRecord { id: id.clone(), attempt: attempt.clone(), outcome }];
        Ok(self.record_attempts(worker, &one, disable_after).await?.first().copied().unwrap_or(false))
    }
    /// [`WebhookRepo::record_attempt`] for many attempts in one transaction (group commit), in
    /// the order given; answers, for each, whether its outcome was recorded.
    async fn record_attempts(
        &self,
        worker: &str,
        records: &[AttemptRecord],
        disable_after: Duration,
    ) -> Result<Vec<bool>>;
    /// When the next pending delivery falls due, if any is pending.
    async fn next_due(&self) -> Result<Option<Timestamp>>;
}

/// Whether a subscription receives events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubscriptionStatus {
    Active,
    Paused,
}

impl SubscriptionStatus {
    /// The stored and displayed name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Paused => "paused",
        }
    }

    /// Parses a stored name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "active" => Some(Self::Active),
            "paused" => Some(Self::Paused),
            _ => None,
        }
    }
}

/// A webhook subscription.
#[derive(Clone, Debug, PartialEq)]
pub struct Subscription {
    pub id: SubscriptionId,
    pub account_id: AccountId,
    pub url: String,
    /// Event types and wildcards.
    pub events: Vec<String>,
    pub description: Option<String>,
    pub status: SubscriptionStatus,
    /// `user`, or `failing` when paused for failing too long.
    pub paused_reason: Option<String>,
    /// Start of the current run of failures.
    pub failing_since: Option<Timestamp>,
    pub secret: String,
    pub previous_secret: Option<String>,
    pub previous_secret_expires_at: Option<Timestamp>,
    pub version: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Fields of a subscription to change; `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct SubscriptionChange {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    /// `Some(None)` clears it.
    pub description: Option<Option<String>>,
    /// Pausing records the reason `user`; resuming clears the reason and the failure run.
    pub status: Option<SubscriptionStatus>,
}

/// Where a delivery is. The delivery lifecycle is this state machine, and every backend
/// applies it through [`DeliveryStatus::after`] and the state sets below rather than naming
/// states in its own queries:
///
/// ```text
///             attempt ok                     attempt failed, schedule left
///  pending ───────────────► succeeded   pending/failed ───────────────► failed
///     │                        │            │
///     │ attempt failed,        │ replay     │ attempt failed, schedule spent
///     │ schedule spent         ▼ (all)      ▼
///     └──────────────────► exhausted ◄── redeliver/replay ──► pending
/// ```
///
/// `pending` and `failed` are due (a worker may claim them when their time comes); `succeeded`
/// and `exhausted` are ended. Redelivery and replay start a new round from `pending`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeliveryStatus {
    /// Not attempted yet in this round.
    Pending,
    /// The last attempt failed; another is scheduled.
    Failed,
    Succeeded,
    /// Every attempt of the schedule failed; it can be redelivered or replayed.
    Exhausted,
}

/// What can happen to a delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeliveryTransition {
    /// A worker attempted it, with this outcome.
    Attempted(AttemptOutcome),
    /// Its owner asked for it again (`POST .../redeliver`).
    Redeliver,
    /// A replay of its subscription's events covers it; `only_failed` leaves successes alone.
    Replay { only_failed: bool },
}

impl DeliveryStatus {
    /// Every state.
    pub const ALL: [Self; 4] = [Self::Pending, Self::Failed, Self::Succeeded, Self::Exhausted];
    /// The states a worker may claim when due.
    pub const DUE: [Self; 2] = [Self::Pending, Self::Failed];
    /// The state of a new delivery, and of one a redelivery or replay starts again.
    pub const START: Self = Self::Pending;

    /// The state after `t`, or `None` when `t` is not allowed from here (a redelivery of a
    /// delivery whose round has not started is refused; a replay skips it).
    pub fn after(self, t: DeliveryTransition) -> Option<Self> {
        use DeliveryTransition as T;
        match (self, t) {
            (Self::Pending | Self::Failed, T::Attempted(AttemptOutcome::Succeeded)) => Some(Self::Succeeded),
            (Self::Pending | Self::Failed, T::Attempted(AttemptOutcome::RetryAt(_))) => Some(Self::Failed),
            (Self::Pending | Self::Failed, T::Attempted(AttemptOutcome::Exhausted)) => Some(Self::Exhausted),
            (Self::Succeeded | Self::Exhausted, T::Attempted(_)) => None,
            (Self::Pending, T::Redeliver) => None,
            (_, T::Redeliver) => Some(Self::START),
            (Self::Failed | Self::Exhausted, T::Replay { .. }) => Some(Self::START),
            (Self::Succeeded, T::Replay { only_failed }) => (!only_failed).then_some(Self::START),
            (Self::Pending, T::Replay { .. }) => None,
        }
    }

    /// The states from which `t` is allowed.
    pub fn from_which(t: DeliveryTransition) -> Vec<Self> {
        Self::ALL.into_iter().filter(|s| s.after(t).is_some()).collect()
    }

    /// Whether the delivery's round has ended.
    pub fn is_ended(self) -> bool {
        !Self::DUE.contains(&self)
    }

    /// The stored and displayed name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Failed => "failed",
            Self::Succeeded => "succeeded",
            Self::Exhausted => "exhausted",
        }
    }

    /// Parses a stored name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "pending" => Self::Pending,
            "failed" => Self::Failed,
            "succeeded" => Self::Succeeded,
            "exhausted" => Self::Exhausted,
            _ => return None,
        })
    }

    /// A set of states as an SQL list of literals, `('pending', 'failed')`, for backends.
    pub fn sql_list(states: &[Self]) -> String {
        let names: Vec<String> = states.iter().map(|s| format!("'{}'", s.as_str())).collect();
        format!("({})", names.join(", "))
    }
}

/// One event to deliver to one subscription.
#[derive(Clone, Debug, PartialEq)]
pub struct NewDelivery {
    pub account_id: AccountId,
    pub subscription_id: SubscriptionId,
    pub event_id: EventId,
    pub event_type: String,
}

/// One attempt to deliver.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    pub attempted_at: Timestamp,
    /// The response's status, when one came.
    pub status_code: Option<u16>,
    /// Why no response came, or why it was refused.
    pub error: Option<String>,
    pub latency_ms: u64,
    /// The first 2 KiB of the response body.
    pub response_body: Option<String>,
}

/// A delivery with its event and attempts.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    pub id: DeliveryId,
    pub account_id: AccountId,
    pub subscription_id: SubscriptionId,
    pub event_id: EventId,
    pub event_type: String,
    /// The event payload, exactly as sent.
    pub payload: Value,
    pub status: DeliveryStatus,
    pub attempt_count: u32,
    pub next_attempt_at: Option<Timestamp>,
    /// Oldest first.
    pub attempts: Vec<Attempt>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub completed_at: Option<Timestamp>,
}

/// Filters of the delivery list.
#[derive(Clone, Debug, Default)]
pub struct DeliveryFilter {
    pub status: Option<DeliveryStatus>,
    pub event_id: Option<EventId>,
}

/// A leased delivery with what an attempt needs.
#[derive(Clone, Debug)]
pub struct ClaimedDelivery {
    pub id: DeliveryId,
    pub account_id: AccountId,
    pub subscription_id: SubscriptionId,
    pub event_id: EventId,
    pub event_type: String,
    /// The stored payload text: the exact bytes that are signed and sent.
    pub body: String,
    /// The subscription's URL now.
    pub url: String,
    /// The current secret, then the previous one while its grace period lasts.
    pub secrets: Vec<String>,
    /// Attempts made since the delivery was created, redelivered or replayed.
    pub round_attempts: u32,
}

/// An attempt and what follows it, for [`WebhookRepo::record_attempts`].
#[derive(Clone, Debug, PartialEq)]
pub struct AttemptRecord {
    pub id: DeliveryId,
    pub attempt: Attempt,
    pub outcome: AttemptOutcome,
}

/// What follows an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    Succeeded,
    /// Failed; try again at this time.
    RetryAt(Timestamp),
    /// Failed, and that was the last attempt.
    Exhausted,
}

/// DNS zones, their records and DNSSEC keys. Every change bumps the zone's SOA serial (RFC 1982
/// arithmetic), keeps its record count exact and commits its events, all in one transaction.
#[async_trait]
pub trait DnsRepo: Send + Sync {
    /// Creates a zone. A name hosted already, or one inside or above another account's zone, is a
    /// conflict (`zone_exists`).
    async fn create_zone(&self, zone: &DnsZone, events: &[NewEvent]) -> Result<()>;
    /// One zone of the account.
    async fn get_zone(&self, account: &AccountId, id: &ZoneId) -> Result<Option<DnsZone>>;
    /// The zone with this name, whoever owns it (the DNS server's dynamic updates).
    async fn find_zone(&self, name: &str) -> Result<Option<DnsZone>>;
    /// The account's zones by name, optionally only the one named `name`, and how many there are.
    async fn list_zones(&self, account: &AccountId, name: Option<&str>, page: Page) -> Result<(Vec<DnsZone>, u64)>;
    /// Deletes a zone with its records and keys.
    async fn delete_zone(&self, account: &AccountId, id: &ZoneId, events: &[NewEvent]) -> Result<()>;
    /// A page of the zone's records, ordered by name and type, and how many match.
    async fn list_records(&self, zone: &ZoneId, filter: &RecordFilter, page: Page) -> Result<(Vec<DnsRecord>, u64)>;
    /// One record of the zone.
    async fn get_record(&self, zone: &ZoneId, id: &RecordId) -> Result<Option<DnsRecord>>;
    /// Every record of the zone.
    async fn zone_records(&self, zone: &ZoneId) -> Result<Vec<DnsRecord>>;
    /// The zone's records at these owner names only (a dynamic update reads what it touches).
    async fn zone_records_named(&self, zone: &ZoneId, names: &[String]) -> Result<Vec<DnsRecord>>;
    /// Applies deletes, updates and creates all-or-nothing, with one serial bump. A missing record
    /// is not-found, an exact duplicate is `duplicate_record`, a CNAME sharing its name is
    /// `cname_conflict`.
    async fn apply_changes(
        &self,
        account: &AccountId,
        zone: &ZoneId,
        changes: &ChangeSet,
        events: &[NewEvent],
        at: Timestamp,
    ) -> Result<DnsZone>;
    /// Every zone's name and serial, for DNS nodes to tell which copies are stale.
    async fn zone_versions(&self) -> Result<Vec<ZoneVersion>>;
    /// The zone's DNSSEC keys.
    async fn dns_keys(&self, zone: &ZoneId) -> Result<Vec<DnsKey>>;
    /// Signs the zone with `key` (`Some`), or stops signing it and drops its keys (`None`); bumps the serial.
    async fn set_dnssec(
        &self,
        account: &AccountId,
        zone: &ZoneId,
        key: Option<&DnsKey>,
        at: Timestamp,
    ) -> Result<DnsZone>;
}

/// The feature store: collections, features with a spatial index, and versions.
#[async_trait]
pub trait FeatureRepo: Send + Sync {
    /// Creates the collection if it does not exist (the cadastre's `parcels`).
    async fn ensure_collection(&self, collection: &crate::features::FeatureCollection) -> Result<()>;
    /// Creates a collection with its first features in one transaction; an existing id is a conflict.
    async fn create_collection(
        &self,
        collection: &crate::features::FeatureCollection,
        features: &[crate::features::Feature],
    ) -> Result<()>;
    /// Starts importing a collection in batches: its row is written but hidden from every read
    /// until [`FeatureRepo::finish_import`]. An existing collection of that id is a conflict; a
    /// hidden one left by an import that died is removed first.
    async fn begin_import(&self, collection: &crate::features::FeatureCollection) -> Result<()>;
    /// Adds a batch of features to a collection being imported, in one transaction.
    async fn import_features(&self, account: &AccountId, id: &str, features: &[crate::features::Feature])
        -> Result<()>;
    /// Makes an imported collection visible.
    async fn finish_import(&self, account: &AccountId, id: &str) -> Result<()>;
    /// Removes a collection being imported with whatever of it was written.
    async fn abort_import(&self, account: &AccountId, id: &str) -> Result<()>;
    /// The account's collections.
    async fn list_collections(&self, account: &AccountId) -> Result<Vec<crate::features::FeatureCollection>>;
    /// One collection of the account.
    async fn get_collection(&self, account: &AccountId, id: &str)
        -> Result<Option<crate::features::FeatureCollection>>;
    /// Deletes a collection with all its features, their versions and index rows, in one
    /// transaction; `expected` is the `updated_at` (milliseconds) an `If-Match` named.
    async fn delete_collection(&self, account: &AccountId, id: &str, expected: Option<i64>) -> Result<()>;
    /// The extent of a collection's live features (kept between changes, computed after one).
    async fn collection_extent(&self, account: &AccountId, id: &str) -> Result<crate::features::Extent>;
    /// Inserts features (version 1) and events in one transaction; a taken (lot, plan) is a conflict.
    async fn insert_features(&self, features: &[crate::features::Feature], events: &[NewEvent]) -> Result<()>;
    /// One live feature.
    async fn get_feature(
        &self,
        account: &AccountId,
        collection: &str,
        id: &str,
    ) -> Result<Option<crate::features::Feature>>;
    /// Replaces a live feature's geometry and properties with `next` (whose version is `based_on + 1`),
    /// provided it is still at `based_on` and at `expected` when given (412 otherwise).
    async fn update_feature(
        &self,
        next: &crate::features::Feature,
        based_on: i64,
        expected: crate::features::ExpectedVersion,
        event: Option<NewEvent>,
    ) -> Result<crate::features::Feature>;
    /// Applies inserts, updates and retirements in order, with `events`, all in one transaction:
    /// every change or none. Returns the features as each change left them.
    async fn apply_feature_changes(
        &self,
        changes: &[crate::features::FeatureChange],
        events: &[NewEvent],
    ) -> Result<Vec<crate::features::Feature>>;
    /// Retires a live feature: gone from lists, kept in its history.
    async fn retire_feature(
        &self,
        account: &AccountId,
        collection: &str,
        id: &str,
        expected: crate::features::ExpectedVersion,
        event: Option<NewEvent>,
    ) -> Result<crate::features::Feature>;
    /// Every version of a feature, retired ones included; not-found for another account's.
    async fn feature_history(
        &self,
        account: &AccountId,
        collection: &str,
        id: &str,
    ) -> Result<Vec<crate::features::FeatureVersion>>;
    /// Up to `limit` live features matching the store-side conditions, in the query's order
    /// (insertion order when it has no sort keys), starting where `from` says.
    async fn scan_features(
        &self,
        account: &AccountId,
        query: &crate::features::FeatureQuery,
        from: crate::features::ScanFrom,
        limit: u32,
    ) -> Result<Vec<crate::features::ScannedFeature>>;
    /// How many live features match the store-side conditions (the kept count when there are none).
    async fn count_features(&self, account: &AccountId, query: &crate::features::FeatureQuery) -> Result<u64>;
    /// How many live features match, counting no further than `cap` (cost bounded by the cap).
    async fn count_features_upto(
        &self,
        account: &AccountId,
        query: &crate::features::FeatureQuery,
        cap: u64,
    ) -> Result<u64>;
    /// How many live features the box holds wholly (their own boxes inside it), with the other
    /// store-side conditions: these match a box filter without looking at their geometry.
    async fn count_features_inside(&self, account: &AccountId, query: &crate::features::FeatureQuery) -> Result<u64>;
    /// [`FeatureRepo::count_features_inside`], and the first `first` features on the box's edge
    /// (`bbox_edge_only`: their boxes touch it without lying inside it) in insertion order, all
    /// of them when there are fewer: what a count by box needs, the edge features being the only
    /// ones whose geometry must be tested. A store may answer both in one statement.
    async fn count_inside_scan_edge(
        &self,
        account: &AccountId,
        query: &crate::features::FeatureQuery,
        first: u32,
    ) -> Result<(u64, Vec<crate::features::ScannedFeature>)> {
        let inside = self.count_features_inside(account, query).await?;
        let edge = crate::features::FeatureQuery { bbox_edge_only: true, sort: Vec::new(), ..query.clone() };
        let scanned = self.scan_features(account, &edge, crate::features::ScanFrom::After(0), first).await?;
        Ok((inside, scanned))
    }
}

/// The DEM area's datasets (their files are blobs).
#[async_trait]
pub trait DemRepo: Send + Sync {
    /// Records a dataset whose files are stored (an existing id is left as it is).
    async fn insert_dataset(&self, dataset: &crate::dem::DemDataset) -> Result<()>;
    /// One dataset of the account.
    async fn get_dataset(&self, account: &AccountId, id: &str) -> Result<Option<crate::dem::DemDataset>>;
    /// The account's datasets, newest first, and how many there are.
    async fn list_datasets(&self, account: &AccountId, page: Page) -> Result<(Vec<crate::dem::DemDataset>, u64)>;
    /// Forgets a dataset; false when there was none.
    async fn delete_dataset(&self, account: &AccountId, id: &str) -> Result<bool>;
}

/// The earth-observation area's STAC collections and items.
#[async_trait]
pub trait EoRepo: Send + Sync {
    /// Stores a new collection (a conflict when the id is taken).
    async fn create_collection(&self, collection: &crate::eo::EoCollection) -> Result<()>;
    /// Replaces a collection's body; `expected` is the version an `If-Match` named.
    async fn replace_collection(
        &self,
        account: &AccountId,
        id: &str,
        body: &Value,
        expected: Option<i64>,
    ) -> Result<crate::eo::EoCollection>;
    async fn get_collection(&self, account: &AccountId, id: &str) -> Result<Option<crate::eo::EoCollection>>;
    /// The account's collections by id.
    async fn list_collections(&self, account: &AccountId) -> Result<Vec<crate::eo::EoCollection>>;
    /// Deletes a collection and its items; false when there was none.
    async fn delete_collection(&self, account: &AccountId, id: &str, expected: Option<i64>) -> Result<bool>;
    /// Item count, extent and time span of a collection.
    async fn collection_summary(&self, account: &AccountId, id: &str) -> Result<crate::eo::CollectionSummary>;
    /// Stores new items of a collection with their events, all or none (a conflict names the
    /// first id already taken).
    async fn insert_items(
        &self,
        account: &AccountId,
        collection: &str,
        items: &[crate::eo::NewItem],
        events: &[NewEvent],
    ) -> Result<Vec<crate::eo::EoItem>>;
    async fn get_item(&self, account: &AccountId, collection: &str, id: &str) -> Result<Option<crate::eo::EoItem>>;
    /// The account's items with this id, in any collection (at most `limit`).
    async fn find_items(&self, account: &AccountId, id: &str, limit: u32) -> Result<Vec<crate::eo::EoItem>>;
    /// Replaces an item; `expected` is the version an `If-Match` named.
    async fn replace_item(
        &self,
        account: &AccountId,
        collection: &str,
        item: &crate::eo::NewItem,
        expected: Option<i64>,
        events: &[NewEvent],
    ) -> Result<crate::eo::EoItem>;
    /// Deletes an item; false when there was none.
    async fn delete_item(&self, account: &AccountId, collection: &str, id: &str, expected: Option<i64>)
        -> Result<bool>;
    /// Items passing the query's store filters, in its order, up to its limit.
    async fn search_items(&self, account: &AccountId, query: &crate::eo::ItemQuery) -> Result<Vec<crate::eo::EoItem>>;
    /// How many items pass the query's store filters (order, keyset and limit ignored).
    async fn count_items(&self, account: &AccountId, query: &crate::eo::ItemQuery) -> Result<u64>;
}

/// The point-cloud area's datasets (their files are blobs).
#[async_trait]
pub trait PointCloudRepo: Send + Sync {
    /// Records a new point cloud with its events (a conflict when the id is taken).
    async fn insert_point_cloud(&self, row: &crate::pointcloud::PointCloudRow, events: &[NewEvent]) -> Result<()>;
    /// One point cloud of the account.
    async fn get_point_cloud(&self, account: &AccountId, id: &str) -> Result<Option<crate::pointcloud::PointCloudRow>>;
    /// The account's point clouds, newest first, and how many there are.
    async fn list_point_clouds(
        &self,
        account: &AccountId,
        page: Page,
    ) -> Result<(Vec<crate::pointcloud::PointCloudRow>, u64)>;
    /// Sets a point cloud's status and body with its events, provided it is still at `expected`
    /// when given (412 otherwise); bumps the version.
    async fn update_point_cloud(
        &self,
        account: &AccountId,
        id: &str,
        status: &str,
        body: &Value,
        expected: Option<i64>,
        events: &[NewEvent],
    ) -> Result<crate::pointcloud::PointCloudRow>;
    /// Forgets a point cloud; false when there was none.
    async fn delete_point_cloud(&self, account: &AccountId, id: &str, expected: Option<i64>) -> Result<bool>;
}

/// The digital-twin area: twins, sensors, readings and tileset builds, and the source features
/// as of an instant.
#[async_trait]
pub trait TwinRepo: Send + Sync {
    /// Records a new twin with its events.
    async fn insert_twin(&self, row: &crate::twin::TwinRow, events: &[NewEvent]) -> Result<()>;
    /// One twin of the account.
    async fn get_twin(&self, account: &AccountId, id: &str) -> Result<Option<crate::twin::TwinRow>>;
    /// A twin by id alone (ids are unique across accounts): for ingest that names only the twin.
    async fn find_twin(&self, id: &str) -> Result<Option<crate::twin::TwinRow>>;
    /// The account's twins, newest first, and how many there are.
    async fn list_twins(&self, account: &AccountId, page: Page) -> Result<(Vec<crate::twin::TwinRow>, u64)>;
    /// Every twin's id (for retention sweeps).
    async fn twin_ids(&self) -> Result<Vec<String>>;
    /// Sets a twin's status and body with its events, provided it is still at `expected` when
    /// given (412 otherwise); bumps the version.
    async fn update_twin(
        &self,
        account: &AccountId,
        id: &str,
        status: &str,
        body: &Value,
        expected: Option<i64>,
        events: &[NewEvent],
    ) -> Result<crate::twin::TwinRow>;
    /// Sets a twin's clock (the version is not bumped).
    async fn set_twin_clock(&self, account: &AccountId, id: &str, clock: &Value) -> Result<crate::twin::TwinRow>;
    /// Forgets a twin with its sensors, readings and builds, in one transaction with its events;
    /// false when there was none.
    async fn delete_twin(
        &self,
        account: &AccountId,
        id: &str,
        expected: Option<i64>,
        events: &[NewEvent],
    ) -> Result<bool>;
    /// Adds a sensor unless the twin has `max` already (a taken id is a conflict).
    async fn insert_sensor(&self, row: &crate::twin::SensorRow, max: u32) -> Result<()>;
    /// The twin's sensors, in id order.
    async fn list_sensors(&self, twin: &str) -> Result<Vec<crate::twin::SensorRow>>;
    /// One sensor of the twin.
    async fn get_sensor(&self, twin: &str, id: &str) -> Result<Option<crate::twin::SensorRow>>;
    /// The sensors attached to a feature.
    async fn feature_sensors(&self, twin: &str, feature: &str) -> Result<Vec<crate::twin::SensorRow>>;
    /// Forgets a sensor and its readings; false when there was none.
    async fn delete_sensor(&self, twin: &str, id: &str) -> Result<bool>;
    /// Stores readings in one transaction: one at an instant the client chose replaces the
    /// reading already there (a retry stores nothing twice); one the server stamped takes the
    /// first free instant from its own and never replaces.
    async fn insert_readings(
        &self,
        twin: &str,
        readings: Vec<crate::twin::NewReading>,
    ) -> Result<crate::twin::StoredReadings>;
    /// A sensor's readings with `from <= ts <= to`, oldest first, at most `limit`.
    async fn readings(
        &self,
        twin: &str,
        sensor: &str,
        from: i64,
        to: i64,
        limit: u32,
    ) -> Result<Vec<crate::twin::ReadingRow>>;
    /// The twin's readings with `after < ts <= to`, in time order (then sensor; newest first when
    /// `descending`), at most `limit`: resuming a stream and replaying the past.
    async fn readings_between(
        &self,
        twin: &str,
        after: i64,
        to: i64,
        limit: u32,
        descending: bool,
    ) -> Result<Vec<crate::twin::ReadingRow>>;
    /// A sensor's readings with `from <= ts <= to` in buckets of `interval` ms (aligned on the
    /// epoch), oldest first, at most `limit` buckets: count, and for numbers min, max and mean;
    /// the last value of each bucket otherwise.
    async fn downsample(
        &self,
        twin: &str,
        sensor: &str,
        q: &crate::twin::Downsample,
    ) -> Result<Vec<crate::twin::BucketRow>>;
    /// Each sensor's latest reading at or before `at` (sensors without one are left out).
    async fn latest_readings(&self, twin: &str, at: i64) -> Result<Vec<crate::twin::ReadingRow>>;
    /// Removes the twin's readings older than `before`; returns how many.
    async fn purge_readings(&self, twin: &str, before: i64) -> Result<u64>;
    /// Records a build (or marks an existing one used).
    async fn put_build(&self, row: &crate::twin::BuildRow) -> Result<()>;
    /// The build of the twin with this stamp, marked used now.
    async fn get_build(&self, twin: &str, stamp: i64) -> Result<Option<crate::twin::BuildRow>>;
    /// Forgets all but the `keep` builds used last; returns the stamps forgotten.
    async fn prune_builds(&self, twin: &str, keep: usize) -> Result<Vec<i64>>;
    /// How many versions of the collection's features began at or before `at`: equal counts
    /// mean the same features (history only grows, at the present).
    async fn feature_stamp(&self, account: &AccountId, collection: &str, at: i64) -> Result<i64>;
    /// The collection's features as they were at `at` (`None`: as they are now) whose boxes at
    /// that time may meet `bbox`, in registration order, at most `limit`.
    async fn features_as_of(
        &self,
        account: &AccountId,
        collection: &str,
        bbox: Option<[f64; 4]>,
        at: Option<i64>,
        limit: u32,
    ) -> Result<Vec<crate::twin::FeatureAsOf>>;
    /// One feature as it was at `at` (`None` when it did not exist or was retired then).
    async fn feature_as_of(
        &self,
        account: &AccountId,
        collection: &str,
        id: &str,
        at: i64,
    ) -> Result<Option<crate::twin::FeatureAsOf>>;
}

/// Liveness of the backing store.
#[async_trait]
pub trait Health: Send + Sync {
    /// Succeeds when the store answers a trivial query.
    async fn ping(&self) -> Result<()>;
}

/// Every repository of one backend, and the blob store.
#[derive(Clone)]
pub struct Store {
    pub accounts: Arc<dyn AccountRepo>,
    pub settings: Arc<dyn SettingsRepo>,
    pub jobs: Arc<dyn JobRepo>,
    pub outbox: Arc<dyn OutboxRepo>,
    pub webhooks: Arc<dyn WebhookRepo>,
    pub dns: Arc<dyn DnsRepo>,
    pub features: Arc<dyn FeatureRepo>,
    pub dem: Arc<dyn DemRepo>,
    pub eo: Arc<dyn EoRepo>,
    pub pointcloud: Arc<dyn PointCloudRepo>,
    pub twin: Arc<dyn TwinRepo>,
    pub health: Arc<dyn Health>,
    pub blobs: BlobStore,
    /// Fired by the backend after every commit that wrote events ([`crate::signal`]).
    pub events: crate::Signal,
    /// Fired by the backend after every commit that queued a job.
    pub jobs_queued: crate::Signal,
    /// What changed, heard by every node sharing the store ([`crate::notices`]).
    pub notices: crate::Notices,
    /// Duties one node at a time does ([`crate::duties`]).
    pub duties: Arc<dyn crate::duties::Duties>,
    /// Seats per account counted across nodes ([`crate::seats`]).
    pub seats: Arc<dyn crate::seats::Seats>,
}

#[cfg(test)]
mod delivery_lifecycle {
    use super::{AttemptOutcome as O, DeliveryStatus as S, DeliveryTransition as T};
    use meridian_core::Timestamp;

    #[test]
    fn attempts_move_due_deliveries_only() {
        let retry = T::Attempted(O::RetryAt(Timestamp::from_millis(0)));
        for due in S::DUE {
            assert_eq!(due.after(T::Attempted(O::Succeeded)), Some(S::Succeeded));
            assert_eq!(due.after(retry), Some(S::Failed));
            assert_eq!(due.after(T::Attempted(O::Exhausted)), Some(S::Exhausted));
        }
        for ended in [S::Succeeded, S::Exhausted] {
            assert!(ended.is_ended());
            assert_eq!(ended.after(retry), None);
        }
    }

    #[test]
    fn redelivery_and_replay_start_a_new_round() {
        assert_eq!(S::from_which(T::Redeliver), vec![S::Failed, S::Succeeded, S::Exhausted]);
        assert_eq!(S::from_which(T::Replay { only_failed: true }), vec![S::Failed, S::Exhausted]);
        assert_eq!(S::from_which(T::Replay { only_failed: false }), vec![S::Failed, S::Succeeded, S::Exhausted]);
        assert!(S::ALL.iter().filter_map(|s| s.after(T::Redeliver)).all(|s| s == S::START));
        assert_eq!(S::sql_list(&S::DUE), "('pending', 'failed')");
    }
}
