//! OGC key-value-pair requests: a query string read into a map whose keys are case-insensitive
//! (OGC 06-121r3 §11.5.2: parameter names are case-insensitive, values are not), with limits on
//! the length of the whole request, the number of pairs and the length of one value, so that a
//! hostile query string costs little. Shared by WMS, WMTS and WFS.

use crate::ows::{ExceptionCode, OgcError};
use std::collections::HashMap;

/// What a request may hold.
#[derive(Clone, Copy, Debug)]
pub struct KvpLimits {
    /// Longest query string, in bytes.
    pub max_bytes: usize,
    /// Most key-value pairs.
    pub max_pairs: usize,
    /// Longest single value, in bytes (after percent-decoding).
    pub max_value_bytes: usize,
}

impl Default for KvpLimits {
    fn default() -> Self {
        Self { max_bytes: 64 * 1024, max_pairs: 64, max_value_bytes: 16 * 1024 }
    }
}

/// A parsed KVP request: upper-cased keys, values as sent (percent-decoded).
#[derive(Clone, Debug, Default)]
pub struct Kvp {
    pairs: HashMap<String, String>,
}

impl Kvp {
    /// Reads a query string (without the `?`). A key given twice keeps its first value, as
    /// MapServer and GeoServer do; an empty value counts as given (`STYLES=` is legal).
    pub fn parse(query: &str, limits: KvpLimits) -> Result<Self, OgcError> {
        if query.len() > limits.max_bytes {
            return Err(OgcError::new(
                ExceptionCode::InvalidParameterValue,
                None,
                format!("the request is longer than {} bytes", limits.max_bytes),
            ));
        }
        let mut pairs = HashMap::new();
        for (n, (k, v)) in form_urlencoded::parse(query.as_bytes()).enumerate() {
            if n >= limits.max_pairs {
                return Err(OgcError::new(
                    ExceptionCode::InvalidParameterValue,
                    None,
                    format!("the request has more than {} parameters", limits.max_pairs),
                ));
            }
            if v.len() > limits.max_value_bytes {
                return Err(OgcError::new(
                    ExceptionCode::InvalidParameterValue,
                    Some(k.to_ascii_uppercase()),
                    format!("the value of {k} is longer than {} bytes", limits.max_value_bytes),
                ));
            }
            let key = k.trim().to_ascii_uppercase();
            if key.is_empty() {
                continue;
            }
            pairs.entry(key).or_insert_with(|| v.into_owned());
        }
        Ok(Self { pairs })
    }

    /// A map from pairs (tests, RESTful routes that turn path parts into KVP).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut map = HashMap::new();
        for (k, v) in pairs {
            map.entry(k.to_ascii_uppercase()).or_insert_with(|| v.to_owned());
        }
        Self { pairs: map }
    }

    /// The value of `key` (any case), if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs.get(&key.to_ascii_uppercase()).map(String::as_str)
    }

    /// The value of `key`, or `MissingParameterValue` naming it.
    pub fn required(&self, key: &str) -> Result<&str, OgcError> {
        match self.get(key) {
            Some(v) if !v.trim().is_empty() => Ok(v),
            _ => Err(OgcError::new(
                ExceptionCode::MissingParameterValue,
                Some(key.to_ascii_uppercase()),
                format!("the {} parameter is required", key.to_ascii_uppercase()),
            )),
        }
    }

    /// Sets a value (RESTful requests fill their path parts in).
    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        self.pairs.insert(key.to_ascii_uppercase(), value.into());
    }

    /// A positive integer no greater than `max`, or `InvalidParameterValue`.
    pub fn uint(&self, key: &str, max: u64) -> Result<Option<u64>, OgcError> {
        let Some(v) = self.get(key) else { return Ok(None) };
        let bad = || {
            OgcError::new(
                ExceptionCode::InvalidParameterValue,
                Some(key.to_ascii_uppercase()),
                format!("{} must be a whole number from 0 to {max}, not `{}`", key.to_ascii_uppercase(), clip(v)),
            )
        };
        let n: u64 = v.trim().parse().map_err(|_| bad())?;
        if n > max {
            return Err(bad());
        }
        Ok(Some(n))
    }

    /// Every key (upper case).
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.pairs.keys().map(String::as_str)
    }
}

/// A value shortened for an error message (values can be long and are echoed back).
pub fn clip(v: &str) -> String {
    if v.chars().count() <= 64 {
        v.to_owned()
    } else {
        format!("{}…", v.chars().take(64).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_case_insensitive_and_values_kept() {
        let k = Kvp::parse("service=WMS&Request=GetMap&layers=a%2Cb&styles=", KvpLimits::default()).unwrap_or_default();
        assert_eq!(k.get("SERVICE"), Some("WMS"));
        assert_eq!(k.get("request"), Some("GetMap"));
        assert_eq!(k.get("LAYERS"), Some("a,b"));
        assert_eq!(k.get("Styles"), Some(""));
        assert!(k.required("styles").is_err());
    }

    #[test]
    fn limits_hold() {
        let long = format!("a={}", "x".repeat(100));
        let l = KvpLimits { max_bytes: 50, max_pairs: 2, max_value_bytes: 10 };
        assert!(Kvp::parse(&long, l).is_err());
        assert!(Kvp::parse("a=1&b=2&c=3", l).is_err());
        assert!(Kvp::parse("a=12345678901", l).is_err());
        assert!(Kvp::parse("a=1&b=2", l).is_ok());
    }
}
