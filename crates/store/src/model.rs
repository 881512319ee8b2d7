//! Records the repositories read and write.

use meridian_core::id::{AccountId, ApiKeyId, JobId};
use meridian_core::scope::Scope;
use meridian_core::Timestamp;
use serde_json::Value;

/// A tenant.
#[derive(Clone, Debug, PartialEq)]
pub struct Account {
    pub id: AccountId,
    pub name: String,
    pub email: String,
    pub created_at: Timestamp,
}

/// An API key as stored: only its hash, never the key.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiKey {
    pub id: ApiKeyId,
    pub account_id: AccountId,
    pub name: String,
    /// The first characters of the key, so that a person can tell keys apart.
    pub prefix: String,
    /// Hex SHA-256 of the key.
    pub hash: String,
    /// Empty means every scope.
    pub scopes: Vec<Scope>,
    pub created_at: Timestamp,
    pub expires_at: Option<Timestamp>,
    pub revoked_at: Option<Timestamp>,
}

impl ApiKey {
    /// Whether the key may be used at `now`.
    pub fn is_usable(&self, now: Timestamp) -> bool {
        self.revoked_at.is_none() && self.expires_at.is_none_or(|t| t > now)
    }
}

/// Where a job is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobStatus {
    Queued,
    Running,
    Succeeded,
    Failed,
    Cancelled,
}

impl JobStatus {
    /// The stored and displayed name.
    pub fn as_str(&self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Succeeded => "succeeded",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
        }
    }

    /// Parses a stored name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "queued" => JobStatus::Queued,
            "running" => JobStatus::Running,
            "succeeded" => JobStatus::Succeeded,
            "failed" => JobStatus::Failed,
            "cancelled" => JobStatus::Cancelled,
            _ => return None,
        })
    }

    /// Whether the job has ended.
    pub fn is_terminal(&self) -> bool {
        matches!(self, JobStatus::Succeeded | JobStatus::Failed | JobStatus::Cancelled)
    }
}

/// A job to submit.
#[derive(Clone, Debug)]
pub struct NewJob {
    pub account_id: AccountId,
    /// Which handler runs it, e.g. `dem.process`.
    pub kind: String,
    pub params: Value,
    pub max_attempts: u32,
}

/// A durable job.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub id: JobId,
    pub account_id: AccountId,
    pub kind: String,
    pub status: JobStatus,
    pub params: Value,
    /// 0 to 100.
    pub progress: u8,
    pub attempts: u32,
    pub max_attempts: u32,
    pub run_at: Timestamp,
    pub lease_owner: Option<String>,
    pub lease_expires_at: Option<Timestamp>,
    pub cancel_requested: bool,
    pub output: Option<Value>,
    /// A problem document.
    pub error: Option<Value>,
    pub created_at: Timestamp,
    pub started_at: Option<Timestamp>,
    pub finished_at: Option<Timestamp>,
    pub updated_at: Timestamp,
}

/// What a heartbeat learned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heartbeat {
    /// The lease was renewed; carry on.
    Renewed,
    /// Someone asked to cancel the job: stop and report it cancelled.
    CancelRequested,
    /// The lease is no longer ours (it ran out and another worker took the job): stop quietly.
    Lost,
}
