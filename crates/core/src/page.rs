//! Paging: `limit` and `offset`, or a `cursor` from a `next` link, checked against configured
//! bounds.
//!
//! A list is read by offset (`LIMIT … OFFSET …`: the store reads and drops the rows before the
//! page) or, through the `cursor` of a `next` link, by keyset: the cursor names the last item
//! of the page before, and the store starts after that item's sort key, so page 1,000 costs
//! what page 1 costs. The cursor also carries the offset, for the page's position and its
//! `prev` link; when its item is gone (deleted between pages), the store falls back to it.

use crate::error::{DomainError, Validator};
use std::fmt;

/// The longest item id a cursor holds (ids are a prefix, `_` and 26 base-32 digits).
pub const MAX_AFTER: usize = 48;

/// The id of the last item of the page before: where a keyset page starts. Fixed-size, so that
/// a [`Page`] stays `Copy`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct After {
    len: u8,
    bytes: [u8; MAX_AFTER],
}

impl After {
    /// An id of at most [`MAX_AFTER`] ASCII letters, digits and `_`; `None` otherwise.
    pub fn new(id: &str) -> Option<Self> {
        if id.is_empty() || id.len() > MAX_AFTER || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return None;
        }
        let mut bytes = [0u8; MAX_AFTER];
        bytes[..id.len()].copy_from_slice(id.as_bytes());
        Some(Self { len: id.len() as u8, bytes })
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        // Only ASCII is ever stored (checked in `new`).
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl fmt::Debug for After {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "After({})", self.as_str())
    }
}

/// A checked page request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// How many items at most.
    pub limit: u32,
    /// How many items come before the page.
    pub offset: u64,
    /// Keyset: the page starts after this item (the store falls back to `offset` when the item
    /// is gone).
    pub after: Option<After>,
}

impl Page {
    /// The page of `limit` items after skipping `offset`.
    pub const fn at(limit: u32, offset: u64) -> Self {
        Self { limit, offset, after: None }
    }

    /// Checks `limit` (1..=max, `default` when absent) and `offset` (≥ 0).
    pub fn new(limit: Option<i64>, offset: Option<i64>, default: u32, max: u32) -> Result<Self, DomainError> {
        Self::with_cursor(limit, offset, None, default, max)
    }

    /// As [`Page::new`], with the `cursor` of a `next` link ([`Page::cursor`]); a cursor and an
    /// offset together, or a cursor that is not one, are 422s.
    pub fn with_cursor(
        limit: Option<i64>,
        offset: Option<i64>,
        cursor: Option<&str>,
        default: u32,
        max: u32,
    ) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let limit = limit.unwrap_or(i64::from(default));
        v.check(
            (1..=i64::from(max)).contains(&limit),
            "/limit",
            "out_of_range",
            format!("limit must be between 1 and {max}"),
        );
        let mut after = None;
        let mut skip = offset.unwrap_or(0);
        v.check(skip >= 0, "/offset", "out_of_range", "offset must not be negative");
        if let Some(cursor) = cursor {
            v.check(offset.is_none(), "/cursor", "conflict", "give offset or cursor, not both");
            match parse_cursor(cursor) {
                Some((n, id)) => {
                    skip = n;
                    after = Some(id);
                }
                None => v.check(false, "/cursor", "invalid", "cursor is not one this server gave in a next link"),
            }
        }
        v.finish()?;
        Ok(Self { limit: limit as u32, offset: skip as u64, after })
    }

    /// Rows to skip: none when the page starts after a found anchor (keyset), else `offset`.
    pub fn skip(&self, anchored: bool) -> i64 {
        if anchored {
            0
        } else {
            i64::try_from(self.offset).unwrap_or(i64::MAX)
        }
    }

    /// The cursor of the page that follows this one, whose last item is `last`.
    pub fn cursor(&self, last: &str) -> String {
        format!("{}.{last}", self.offset + u64::from(self.limit))
    }
}

fn parse_cursor(cursor: &str) -> Option<(i64, After)> {
    let (offset, id) = cursor.split_once('.')?;
    let offset: i64 = offset.parse().ok().filter(|n| *n >= 0)?;
    Some((offset, After::new(id)?))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_cursor_round_trips_and_bad_ones_are_refused() {
        let page = Page::new(Some(10), Some(20), 100, 1000).unwrap();
        let cursor = page.cursor("zone_01jd0000000000000000000000");
        assert_eq!(cursor, "30.zone_01jd0000000000000000000000");
        let next = Page::with_cursor(Some(10), None, Some(&cursor), 100, 1000).unwrap();
        assert_eq!((next.offset, next.after.unwrap().as_str()), (30, "zone_01jd0000000000000000000000"));
        for bad in ["", "x", "3", "-1.a", "3.", "3.a b", "3.é", &format!("1.{}", "a".repeat(49))] {
            let e = Page::with_cursor(None, None, Some(bad), 100, 1000).unwrap_err();
            assert!(format!("{e:?}").contains("/cursor"), "{bad}: {e:?}");
        }
        let e = Page::with_cursor(None, Some(3), Some(&cursor), 100, 1000).unwrap_err();
        assert!(format!("{e:?}").contains("conflict"));
    }
}
