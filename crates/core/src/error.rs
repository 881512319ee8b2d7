//! Domain errors: what went wrong, in the domain's words. The HTTP edge chooses statuses.

use serde::{Deserialize, Serialize};

/// One invalid field of a request, located by a JSON pointer (RFC 6901).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FieldError {
    /// JSON pointer to the offending field, e.g. `/records/0/ttl`; `""` for the whole document.
    pub pointer: String,
    /// Stable machine-readable reason, e.g. `required`, `out_of_range`.
    pub code: String,
    /// What is wrong, for a person.
    pub detail: String,
}

impl FieldError {
    /// A field error at `pointer`.
    pub fn new(pointer: impl Into<String>, code: impl Into<String>, detail: impl Into<String>) -> Self {
        Self { pointer: pointer.into(), code: code.into(), detail: detail.into() }
    }
}

/// An error that a caller caused or can act on.
#[derive(Debug, thiserror::Error)]
pub enum DomainError {
    /// The resource does not exist, or belongs to another tenant (never tell which).
    #[error("{resource} {id} was not found")]
    NotFound { resource: &'static str, id: String },
    /// The request is well-formed but breaks one or more rules.
    #[error("the request is not valid")]
    Invalid(Vec<FieldError>),
    /// The change conflicts with existing state.
    #[error("{detail}")]
    Conflict { code: &'static str, detail: String },
    /// An `If-Match` precondition did not hold.
    #[error("{0}")]
    PreconditionFailed(String),
    /// The operation is switched off by configuration.
    #[error("{0}")]
    Disabled(String),
    /// The request is understood but refused by a rule about the caller.
    #[error("{0}")]
    Forbidden(String),
    /// The request or its payload is larger than a configured limit.
    #[error("{0}")]
    TooLarge(String),
}

impl DomainError {
    /// A not-found error.
    pub fn not_found(resource: &'static str, id: impl Into<String>) -> Self {
        Self::NotFound { resource, id: id.into() }
    }

    /// A single-field validation error.
    pub fn invalid(pointer: impl Into<String>, code: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::Invalid(vec![FieldError::new(pointer, code, detail)])
    }

    /// A conflict with a stable code.
    pub fn conflict(code: &'static str, detail: impl Into<String>) -> Self {
        Self::Conflict { code, detail: detail.into() }
    }
}

/// Collects field errors and turns them into one [`DomainError::Invalid`].
#[derive(Debug, Default)]
pub struct Validator {
    errors: Vec<FieldError>,
}

impl Validator {
    /// An empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records an error.
    pub fn push(&mut self, pointer: impl Into<String>, code: impl Into<String>, detail: impl Into<String>) {
        self.errors.push(FieldError::new(pointer, code, detail));
    }

    /// Records an error unless `ok` holds.
    pub fn check(&mut self, ok: bool, pointer: &str, code: &str, detail: impl Into<String>) {
        if !ok {
            self.push(pointer, code, detail);
        }
    }

    /// `Ok(())` when nothing was recorded.
    pub fn finish(self) -> Result<(), DomainError> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(DomainError::Invalid(self.errors))
        }
    }
}
