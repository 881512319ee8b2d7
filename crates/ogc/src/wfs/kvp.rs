//! Key-value-pair requests: parameter names are case-insensitive (OGC 06-121r3, 11.5.2), values
//! are kept as sent.

use super::ows::{OwsException, OwsResult};

/// The parameters of a KVP request, names upper-cased.
#[derive(Clone, Debug, Default)]
pub struct Kvp {
    pairs: Vec<(String, String)>,
}

impl Kvp {
    /// Parses a query string. A parameter given twice is refused: its meaning would be a guess.
    pub fn parse(raw: &str) -> OwsResult<Self> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (k, v) in form_urlencoded::parse(raw.as_bytes()) {
            let key = k.to_ascii_uppercase();
            if pairs.iter().any(|(p, _)| *p == key) {
                return Err(OwsException::invalid(&k, format!("the parameter {k} is given more than once")));
            }
            pairs.push((key, v.into_owned()));
        }
        Ok(Self { pairs })
    }

    /// A parameter's value, by name in any case; an empty value counts as absent.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.trim().is_empty())
    }

    /// A required parameter.
    pub fn require(&self, name: &str) -> OwsResult<&str> {
        self.get(name).ok_or_else(|| OwsException::missing(name))
    }

    /// Every parameter (upper-cased names).
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }
}
