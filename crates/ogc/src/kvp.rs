//! OGC key-value-pair requests: a query string read into a map whose keys are case-insensitive
//! (OGC 06-121r3 §11.5.2: parameter names are case-insensitive, values are not), with limits on
//! the length of the whole request, the number of pairs and the length of one value, so that a
//! hostile query string costs little. Shared by WMS, WMTS and WFS.

use crate::ows::{ExceptionCode, OgcError};

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

/// A parsed KVP request: upper-cased keys, values as sent (percent-decoded), in request order.
///
/// The services read it differently, each through its own accessors: WMS and WMTS keep the
/// first of a key given twice and count an empty value as given ([`Kvp::get`]: `STYLES=` is
/// legal); WFS refuses a key given twice ([`Kvp::unique`]) and counts an empty value as absent
/// ([`Kvp::given`]).
#[derive(Clone, Debug, Default)]
pub struct Kvp {
    pairs: Vec<(String, String)>,
}

impl Kvp {
    /// Reads a query string (without the `?`) within `limits`. Every pair is kept, a key given
    /// twice too; keys are trimmed and upper-cased, pairs without a key dropped.
    pub fn parse(query: &str, limits: KvpLimits) -> Result<Self, OgcError> {
        if query.len() > limits.max_bytes {
            return Err(OgcError::new(
                ExceptionCode::InvalidParameterValue,
                None,
                format!("the request is longer than {} bytes", limits.max_bytes),
            ));
        }
        let mut pairs = Vec::new();
        for (n, (k, v)) in form_urlencoded::parse(query.as_bytes()).enumerate() {
            if n >= limits.max_pairs {
                return Err(OgcError::new(
                    ExceptionCode::InvalidParameterValue,
                    None,
                    format!("the request has more than {} parameters", limits.max_pairs),
                ));
            }
            if v.len() > limits.max_value_bytes {
                return Err(OgcError::invalid(
                    &k.to_ascii_uppercase(),
                    format!("the value of {k} is longer than {} bytes", limits.max_value_bytes),
                ));
            }
            let key = k.trim().to_ascii_uppercase();
            if key.is_empty() {
                continue;
            }
            pairs.push((key, v.into_owned()));
        }
        Ok(Self { pairs })
    }

    /// The request, refusing a key given more than once: its meaning would be a guess (WFS).
    pub fn unique(self) -> Result<Self, OgcError> {
        for (n, (k, _)) in self.pairs.iter().enumerate() {
            if self.pairs[..n].iter().any(|(p, _)| p == k) {
                return Err(OgcError::invalid(k, format!("the parameter {k} is given more than once")));
            }
        }
        Ok(self)
    }

    /// A map from pairs (tests, RESTful routes that turn path parts into KVP).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Self { pairs: pairs.into_iter().map(|(k, v)| (k.to_ascii_uppercase(), v.to_owned())).collect() }
    }

    /// The (first) value of `key` (any case), if given; an empty value counts as given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.as_str())
    }

    /// The value of `key` unless it is empty or blank, which counts as not given.
    pub fn given(&self, key: &str) -> Option<&str> {
        self.get(key).filter(|v| !v.trim().is_empty())
    }

    /// The value of `key`, or `MissingParameterValue` naming it as written here; an empty value
    /// is missing.
    pub fn required(&self, key: &str) -> Result<&str, OgcError> {
        self.given(key).ok_or_else(|| OgcError::missing(key))
    }

    /// Sets a value (RESTful requests fill their path parts in).
    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        let key = key.to_ascii_uppercase();
        self.pairs.retain(|(k, _)| *k != key);
        self.pairs.push((key, value.into()));
    }

    /// A positive integer no greater than `max`, or `InvalidParameterValue`.
    pub fn uint(&self, key: &str, max: u64) -> Result<Option<u64>, OgcError> {
        let Some(v) = self.get(key) else { return Ok(None) };
        let bad = || {
            OgcError::invalid(
                &key.to_ascii_uppercase(),
                format!("{} must be a whole number from 0 to {max}, not `{}`", key.to_ascii_uppercase(), clip(v)),
            )
        };
        let n: u64 = v.trim().parse().map_err(|_| bad())?;
        if n > max {
            return Err(bad());
        }
        Ok(Some(n))
    }

    /// Every key (upper case), in request order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.pairs.iter().map(|(k, _)| k.as_str())
    }

    /// Every pair (upper-cased keys), in request order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
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

    #[test]
    fn duplicates_keep_the_first_or_are_refused() {
        let k = Kvp::parse("a=1&A=2&b=", KvpLimits::default()).unwrap_or_default();
        assert_eq!(k.get("a"), Some("1"));
        assert_eq!(k.get("b"), Some(""));
        assert_eq!(k.given("b"), None);
        assert_eq!(k.unique().err().and_then(|e| e.locator), Some("A".to_owned()));
        assert!(Kvp::parse("a=1&b=2", KvpLimits::default()).and_then(Kvp::unique).is_ok());
    }
}
