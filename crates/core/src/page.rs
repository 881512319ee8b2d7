//! Paging: `limit` and `offset`, checked against configured bounds.

use crate::error::{DomainError, Validator};

/// A checked page request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// How many items at most.
    pub limit: u32,
    /// How many items to skip.
    pub offset: u64,
}

impl Page {
    /// Checks `limit` (1..=max, `default` when absent) and `offset` (≥ 0).
    pub fn new(limit: Option<i64>, offset: Option<i64>, default: u32, max: u32) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let limit = limit.unwrap_or(i64::from(default));
        v.check(
            (1..=i64::from(max)).contains(&limit),
            "/limit",
            "out_of_range",
            format!("limit must be between 1 and {max}"),
        );
        let offset = offset.unwrap_or(0);
        v.check(offset >= 0, "/offset", "out_of_range", "offset must not be negative");
        v.finish()?;
        Ok(Self { limit: limit as u32, offset: offset as u64 })
    }
}
