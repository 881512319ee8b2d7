//! API key scopes: `*`, or `<area>:read` / `<area>:write` (write includes read).

use std::fmt;
use std::str::FromStr;

/// The API areas a scope can name.
pub const AREAS: &[&str] =
    &["account", "dns", "cadastre", "dem", "pointcloud", "eo", "ogc", "twin", "webhooks", "jobs"];

/// Read or write access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Access {
    /// Safe methods: GET, HEAD, OPTIONS.
    Read,
    /// Everything else.
    Write,
}

/// One scope a key holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Everything.
    All,
    /// One area at a level of access.
    Area { area: String, access: Access },
}

impl Scope {
    /// Whether this scope allows `access` to `area`.
    pub fn allows(&self, area: &str, access: Access) -> bool {
        match self {
            Scope::All => true,
            Scope::Area { area: a, access: granted } => a == area && *granted >= access,
        }
    }
}

impl FromStr for Scope {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "*" {
            return Ok(Scope::All);
        }
        let (area, level) =
            s.split_once(':').ok_or_else(|| format!("scope `{s}` is not `*` or `<area>:<read|write>`"))?;
        if !AREAS.contains(&area) {
            return Err(format!("scope `{s}` names an unknown area; areas are {}", AREAS.join(", ")));
        }
        let access = match level {
            "read" => Access::Read,
            "write" => Access::Write,
            _ => return Err(format!("scope `{s}` has an unknown level; use read or write")),
        };
        Ok(Scope::Area { area: area.to_owned(), access })
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::All => f.write_str("*"),
            Scope::Area { area, access: Access::Read } => write!(f, "{area}:read"),
            Scope::Area { area, access: Access::Write } => write!(f, "{area}:write"),
        }
    }
}

/// Whether any of `scopes` allows the operation.
pub fn any_allows(scopes: &[Scope], area: &str, access: Access) -> bool {
    scopes.iter().any(|s| s.allows(area, access))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_includes_read_but_not_other_areas() {
        let s: Scope = "dns:write".parse().unwrap_or(Scope::All);
        assert!(s.allows("dns", Access::Read));
        assert!(s.allows("dns", Access::Write));
        assert!(!s.allows("cadastre", Access::Read));
        let r: Scope = "dns:read".parse().unwrap_or(Scope::All);
        assert!(!r.allows("dns", Access::Write));
    }

    #[test]
    fn rejects_unknown_areas_and_levels() {
        assert!("nowhere:read".parse::<Scope>().is_err());
        assert!("dns:admin".parse::<Scope>().is_err());
        assert!("dns".parse::<Scope>().is_err());
        assert_eq!("*".parse::<Scope>(), Ok(Scope::All));
    }
}
