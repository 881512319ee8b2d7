//! Domain names as Meridian keeps them: lowercase ASCII (internationalized labels as punycode),
//! fully qualified, without the trailing dot. Label ≤ 63 octets, name ≤ 253 octets.

/// Longest label, in octets.
pub const MAX_LABEL: usize = 63;
/// Longest name in text form without the trailing dot, in octets.
pub const MAX_NAME: usize = 253;

/// Why a name is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("the name is empty")]
    Empty,
    #[error("the name has an empty label (two dots in a row, or a leading dot)")]
    EmptyLabel,
    #[error("label `{0}` is longer than 63 octets")]
    LabelTooLong(String),
    #[error("the name is longer than 253 octets")]
    TooLong,
    #[error("label `{0}` may hold only letters, digits, hyphens and underscores")]
    BadCharacter(String),
    #[error("label `{0}` starts or ends with a hyphen")]
    Hyphen(String),
    #[error("`*` is allowed only as the whole leftmost label")]
    Wildcard,
    #[error("`{0}` is not a valid internationalized label")]
    Idn(String),
    #[error("{name} is not inside the zone {zone}")]
    OutOfZone { name: String, zone: String },
}

/// Normalizes a host or owner name: IDN labels to punycode, lowercase, no trailing dot.
/// `*` is accepted as the leftmost label when `wildcard` holds.
///
/// ```
/// use meridian_dns::name::normalize;
/// assert_eq!(normalize("WWW.Example.COM.", false).unwrap(), "www.example.com");
/// assert_eq!(normalize("bücher.example", false).unwrap(), "xn--bcher-kva.example");
/// assert!(normalize("a..b", false).is_err());
/// ```
pub fn normalize(name: &str, wildcard: bool) -> Result<String, NameError> {
    let name = name.trim();
    let name = name.strip_suffix('.').unwrap_or(name);
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    let mut labels = Vec::new();
    for (i, label) in name.split('.').enumerate() {
        if label.is_empty() {
            return Err(NameError::EmptyLabel);
        }
        if label == "*" {
            if i != 0 || !wildcard {
                return Err(NameError::Wildcard);
            }
            labels.push("*".to_owned());
            continue;
        }
        let ascii = if label.is_ascii() {
            label.to_ascii_lowercase()
        } else {
            idna::domain_to_ascii(label).map_err(|_| NameError::Idn(label.to_owned()))?
        };
        if ascii.len() > MAX_LABEL {
            return Err(NameError::LabelTooLong(ascii));
        }
        if ascii.contains('*') {
            return Err(NameError::Wildcard);
        }
        if !ascii.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
            return Err(NameError::BadCharacter(label.to_owned()));
        }
        if ascii.starts_with('-') || ascii.ends_with('-') {
            return Err(NameError::Hyphen(label.to_owned()));
        }
        labels.push(ascii);
    }
    let joined = labels.join(".");
    if joined.len() > MAX_NAME {
        return Err(NameError::TooLong);
    }
    Ok(joined)
}

/// A zone's name: like [`normalize`], with at least two labels, no wildcard and no underscore.
pub fn normalize_zone(name: &str) -> Result<String, NameError> {
    let n = normalize(name, false)?;
    if let Some(label) = n.split('.').find(|l| l.contains('_')) {
        return Err(NameError::BadCharacter(label.to_owned()));
    }
    Ok(n)
}

/// Whether `name` is `zone` or below it (both normalized).
pub fn in_zone(name: &str, zone: &str) -> bool {
    name == zone
        || (name.len() > zone.len() && name.ends_with(zone) && name.as_bytes()[name.len() - zone.len() - 1] == b'.')
}

/// The fully qualified name of a record given relative to `zone`: `@` or empty is the apex, a
/// name ending in the zone's name (or with a trailing dot) is taken as fully qualified, anything
/// else gets the zone appended.
///
/// ```
/// use meridian_dns::name::qualify;
/// assert_eq!(qualify("www", "example.com").unwrap(), "www.example.com");
/// assert_eq!(qualify("@", "example.com").unwrap(), "example.com");
/// assert_eq!(qualify("WWW.example.com", "example.com").unwrap(), "www.example.com");
/// assert_eq!(qualify("*.dev", "example.com").unwrap(), "*.dev.example.com");
/// assert!(qualify("www.other.org.", "example.com").is_err());
/// ```
pub fn qualify(relative: &str, zone: &str) -> Result<String, NameError> {
    let raw = relative.trim();
    if raw.is_empty() || raw == "@" {
        return Ok(zone.to_owned());
    }
    let absolute = raw.ends_with('.');
    let normalized = normalize(raw, true)?;
    let full = if absolute || in_zone(&normalized, zone) {
        normalized
    } else {
        let joined = format!("{normalized}.{zone}");
        if joined.len() > MAX_NAME {
            return Err(NameError::TooLong);
        }
        joined
    };
    if !in_zone(&full, zone) {
        return Err(NameError::OutOfZone { name: full, zone: zone.to_owned() });
    }
    Ok(full)
}

/// `name` relative to `zone` for a master file (`@` for the apex).
pub fn relative_to(name: &str, zone: &str) -> String {
    if name == zone {
        "@".to_owned()
    } else if in_zone(name, zone) {
        name[..name.len() - zone.len() - 1].to_owned()
    } else {
        format!("{name}.")
    }
}

/// The name's labels from the root down, lowercase: the key of canonical DNS name order
/// (RFC 4034 section 6.1).
pub fn canonical_key(name: &str) -> Vec<Vec<u8>> {
    if name.is_empty() {
        return Vec::new();
    }
    name.split('.').rev().map(|l| l.to_ascii_lowercase().into_bytes()).collect()
}

/// The name in uncompressed, lowercase wire form.
pub fn to_wire(name: &str, out: &mut Vec<u8>) {
    if !name.is_empty() {
        for label in name.split('.') {
            out.push(label.len() as u8);
            out.extend(label.bytes().map(|b| b.to_ascii_lowercase()));
        }
    }
    out.push(0);
}

/// How many labels the name has, not counting a leading `*` (the RRSIG labels field).
pub fn label_count(name: &str) -> u8 {
    if name.is_empty() {
        return 0;
    }
    let n = name.split('.').count();
    (if name.starts_with("*.") { n - 1 } else { n }) as u8
}

/// The name one label up, or `None` at the top.
pub fn parent(name: &str) -> Option<&str> {
    name.split_once('.').map(|(_, rest)| rest)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_enforced() {
        let long_label = "a".repeat(64);
        assert_eq!(normalize(&format!("{long_label}.com"), false), Err(NameError::LabelTooLong(long_label)));
        let ok_label = "a".repeat(63);
        assert!(normalize(&format!("{ok_label}.com"), false).is_ok());
        let long_name = vec!["abcdefghi"; 26].join(".");
        assert_eq!(long_name.len(), 259);
        assert_eq!(normalize(&long_name, false), Err(NameError::TooLong));
        assert!(matches!(normalize("-a.com", false), Err(NameError::Hyphen(_))));
        assert!(matches!(normalize("a b.com", false), Err(NameError::BadCharacter(_))));
        assert_eq!(normalize("a.*.com", true), Err(NameError::Wildcard));
        assert_eq!(normalize("*.com", false), Err(NameError::Wildcard));
        assert_eq!(normalize("*.com", true).as_deref(), Ok("*.com"));
        assert_eq!(normalize("_sip._tcp.example.com", false).as_deref(), Ok("_sip._tcp.example.com"));
    }

    #[test]
    fn idn_becomes_punycode() {
        assert_eq!(normalize_zone("Münich.de").as_deref(), Ok("xn--mnich-kva.de"));
        assert_eq!(qualify("café", "example.com").as_deref(), Ok("xn--caf-dma.example.com"));
    }

    #[test]
    fn relative_names_and_zone_membership() {
        assert!(in_zone("a.example.com", "example.com"));
        assert!(!in_zone("aexample.com", "example.com"));
        assert_eq!(relative_to("a.b.example.com", "example.com"), "a.b");
        assert_eq!(relative_to("example.com", "example.com"), "@");
        assert_eq!(label_count("*.a.example.com"), 3);
        assert_eq!(parent("a.example.com"), Some("example.com"));
    }

    #[test]
    fn canonical_order_is_by_reversed_labels() {
        let mut names =
            vec!["z.example", "example", "a.example", "yljkjljk.a.example", "*.z.example", "\u{1}.z.example"];
        names.sort_by_key(|n| canonical_key(n));
        assert_eq!(
            names,
            vec!["example", "a.example", "yljkjljk.a.example", "z.example", "\u{1}.z.example", "*.z.example"]
        );
    }
}
