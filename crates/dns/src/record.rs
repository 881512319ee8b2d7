//! Record types, their validation, and the record data in its three forms: the API's fields
//! (`content` plus `priority`, `weight`, `port`, `flags`, `tag`), master-file text, and wire bytes.

use crate::name::{self, NameError};
use meridian_core::error::FieldError;
use serde::Deserialize;
use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

/// Smallest TTL accepted, in seconds.
pub const MIN_TTL: u32 = 60;
/// Largest TTL accepted, in seconds.
pub const MAX_TTL: u32 = 86_400;
/// TTL when none is given.
pub const DEFAULT_TTL: u32 = 3600;

/// The record types a zone can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RecordType {
    A,
    AAAA,
    CNAME,
    MX,
    TXT,
    NS,
    SRV,
    CAA,
    PTR,
}

impl RecordType {
    /// Every type, in the order they are listed.
    pub const ALL: [RecordType; 9] = [
        RecordType::A,
        RecordType::AAAA,
        RecordType::CNAME,
        RecordType::MX,
        RecordType::TXT,
        RecordType::NS,
        RecordType::SRV,
        RecordType::CAA,
        RecordType::PTR,
    ];

    /// The mnemonic.
    pub fn as_str(&self) -> &'static str {
        match self {
            RecordType::A => "A",
            RecordType::AAAA => "AAAA",
            RecordType::CNAME => "CNAME",
            RecordType::MX => "MX",
            RecordType::TXT => "TXT",
            RecordType::NS => "NS",
            RecordType::SRV => "SRV",
            RecordType::CAA => "CAA",
            RecordType::PTR => "PTR",
        }
    }

    /// Parses a mnemonic, any case.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str().eq_ignore_ascii_case(s.trim()))
    }

    /// The type code on the wire.
    pub fn code(&self) -> u16 {
        match self {
            RecordType::A => 1,
            RecordType::NS => 2,
            RecordType::CNAME => 5,
            RecordType::PTR => 12,
            RecordType::MX => 15,
            RecordType::TXT => 16,
            RecordType::AAAA => 28,
            RecordType::SRV => 33,
            RecordType::CAA => 257,
        }
    }

    /// The type with this code.
    pub fn from_code(code: u16) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.code() == code)
    }
}

impl fmt::Display for RecordType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Validated record data.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RData {
    A(Ipv4Addr),
    AAAA(Ipv6Addr),
    CNAME(String),
    NS(String),
    PTR(String),
    MX {
        priority: u16,
        exchange: String,
    },
    /// The character-strings (RFC 1035 section 3.3.14), each at most 255 octets, kept as given.
    TXT(Vec<Vec<u8>>),
    SRV {
        priority: u16,
        weight: u16,
        port: u16,
        target: String,
    },
    CAA {
        flags: u8,
        tag: String,
        value: String,
    },
}

impl RData {
    /// The type.
    pub fn rtype(&self) -> RecordType {
        match self {
            RData::A(_) => RecordType::A,
            RData::AAAA(_) => RecordType::AAAA,
            RData::CNAME(_) => RecordType::CNAME,
            RData::NS(_) => RecordType::NS,
            RData::PTR(_) => RecordType::PTR,
            RData::MX { .. } => RecordType::MX,
            RData::TXT(_) => RecordType::TXT,
            RData::SRV { .. } => RecordType::SRV,
            RData::CAA { .. } => RecordType::CAA,
        }
    }

    /// The API's `content`: the address, the target host, the text or the CAA value.
    pub fn content(&self) -> String {
        match self {
            RData::A(a) => a.to_string(),
            RData::AAAA(a) => a.to_string(),
            RData::CNAME(n) | RData::NS(n) | RData::PTR(n) => n.clone(),
            RData::MX { exchange, .. } => exchange.clone(),
            RData::TXT(t) => txt_content(t),
            RData::SRV { target, .. } => target.clone(),
            RData::CAA { value, .. } => value.clone(),
        }
    }

    /// MX and SRV priority.
    pub fn priority(&self) -> Option<u16> {
        match self {
            RData::MX { priority, .. } | RData::SRV { priority, .. } => Some(*priority),
            _ => None,
        }
    }

    /// SRV weight and port.
    pub fn weight_port(&self) -> (Option<u16>, Option<u16>) {
        match self {
            RData::SRV { weight, port, .. } => (Some(*weight), Some(*port)),
            _ => (None, None),
        }
    }

    /// CAA flags and tag.
    pub fn caa(&self) -> (Option<u8>, Option<String>) {
        match self {
            RData::CAA { flags, tag, .. } => (Some(*flags), Some(tag.clone())),
            _ => (None, None),
        }
    }

    /// A host name the record points at, for additional-section processing.
    pub fn target(&self) -> Option<&str> {
        match self {
            RData::NS(n) | RData::MX { exchange: n, .. } | RData::SRV { target: n, .. } => Some(n),
            _ => None,
        }
    }

    /// The record data in master-file form (RFC 1035 section 5), names fully qualified.
    pub fn presentation(&self) -> String {
        match self {
            RData::A(a) => a.to_string(),
            RData::AAAA(a) => a.to_string(),
            RData::CNAME(n) | RData::NS(n) | RData::PTR(n) => format!("{n}."),
            RData::MX { priority, exchange } => format!("{priority} {exchange}."),
            RData::TXT(t) => quote_all(t),
            RData::SRV { priority, weight, port, target } => format!("{priority} {weight} {port} {target}."),
            RData::CAA { flags, tag, value } => format!("{flags} {tag} {}", quote(value.as_bytes())),
        }
    }

    /// The record data in canonical wire form (RFC 4034 section 6.2: names uncompressed, lowercase).
    pub fn to_wire(&self, out: &mut Vec<u8>) {
        match self {
            RData::A(a) => out.extend(a.octets()),
            RData::AAAA(a) => out.extend(a.octets()),
            RData::CNAME(n) | RData::NS(n) | RData::PTR(n) => name::to_wire(n, out),
            RData::MX { priority, exchange } => {
                out.extend(priority.to_be_bytes());
                name::to_wire(exchange, out);
            }
            RData::TXT(t) => {
                for s in t {
                    out.push(s.len() as u8);
                    out.extend(s);
                }
            }
            RData::SRV { priority, weight, port, target } => {
                out.extend(priority.to_be_bytes());
                out.extend(weight.to_be_bytes());
                out.extend(port.to_be_bytes());
                name::to_wire(target, out);
            }
            RData::CAA { flags, tag, value } => {
                out.push(*flags);
                out.push(tag.len() as u8);
                out.extend(tag.as_bytes());
                out.extend(value.as_bytes());
            }
        }
    }
}

/// Splits text into character-strings of at most 255 octets (an empty text is one empty string).
pub fn txt_chunks(bytes: &[u8]) -> Vec<&[u8]> {
    if bytes.is_empty() {
        return vec![bytes];
    }
    bytes.chunks(255).collect()
}

/// Most octets of text in a TXT record.
pub const MAX_TXT_TEXT: usize = 4000;
/// Most octets of a TXT record's data on the wire (each string costs one more for its length).
pub const MAX_TXT_WIRE: usize = 4096;

/// The strings in master-file form, quoted and separated by spaces.
pub fn quote_all(strings: &[Vec<u8>]) -> String {
    strings.iter().map(|s| quote(s)).collect::<Vec<_>>().join(" ")
}

/// A TXT record's API `content`: the plain text when the strings are just that text cut every
/// 255 octets (the form a plain `content` is stored in), otherwise the quoted strings.
pub fn txt_content(strings: &[Vec<u8>]) -> String {
    let text: Vec<u8> = strings.concat();
    let plain = txt_chunks(&text).iter().map(|c| c.to_vec()).collect::<Vec<_>>() == strings;
    match String::from_utf8(text) {
        Ok(t) if plain && !t.trim_start().starts_with('"') => t,
        _ => quote_all(strings),
    }
}

/// Reads a TXT `content`: quoted character-strings (`"v=spf1" "-all"`, with `\"`, `\\` and
/// `\DDD` escapes) when it starts with `"`, else plain text cut into strings of 255 octets.
pub fn parse_txt(content: &str) -> Result<Vec<Vec<u8>>, (&'static str, String)> {
    let strings = if content.trim_start().starts_with('"') {
        let b = content.trim().as_bytes();
        let mut strings = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_whitespace() {
                i += 1;
                continue;
            }
            if b[i] != b'"' {
                return Err((
                    "invalid_txt",
                    "TXT content in quoted form must be quoted strings separated by spaces".into(),
                ));
            }
            i += 1;
            let mut s = Vec::new();
            loop {
                match b.get(i) {
                    None => return Err(("invalid_txt", "a quoted string in TXT content is not closed".into())),
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(b'\\') => {
                        let rest = &b[i + 1..];
                        if rest.len() >= 3 && rest[..3].iter().all(u8::is_ascii_digit) {
                            let v = u32::from(rest[0] - b'0') * 100
                                + u32::from(rest[1] - b'0') * 10
                                + u32::from(rest[2] - b'0');
                            let Ok(v) = u8::try_from(v) else {
                                return Err(("invalid_txt", "an escape \\DDD in TXT content is above 255".into()));
                            };
                            s.push(v);
                            i += 4;
                        } else if let Some(&c) = rest.first() {
                            s.push(c);
                            i += 2;
                        } else {
                            return Err(("invalid_txt", "TXT content ends with a lone backslash".into()));
                        }
                    }
                    Some(&c) => {
                        s.push(c);
                        i += 1;
                    }
                }
            }
            if b.get(i).is_some_and(|c| !c.is_ascii_whitespace()) {
                return Err(("invalid_txt", "quoted strings in TXT content must be separated by spaces".into()));
            }
            if s.len() > 255 {
                return Err(("too_long", "each TXT character-string must be at most 255 octets".into()));
            }
            strings.push(s);
            if strings.len() > MAX_TXT_WIRE {
                break;
            }
        }
        if strings.is_empty() {
            return Err(("invalid_txt", "TXT content in quoted form needs at least one string".into()));
        }
        strings
    } else {
        txt_chunks(content.as_bytes()).into_iter().map(<[u8]>::to_vec).collect()
    };
    let text: usize = strings.iter().map(Vec::len).sum();
    if text > MAX_TXT_TEXT || text + strings.len() > MAX_TXT_WIRE {
        return Err((
            "too_long",
            format!("TXT content must be at most {MAX_TXT_TEXT} octets of text, {MAX_TXT_WIRE} on the wire"),
        ));
    }
    Ok(strings)
}

/// A character-string in master-file form: quoted, with `"` and `\` escaped and non-printable
/// octets as `\DDD`.
pub fn quote(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for &b in bytes {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03}")),
        }
    }
    out.push('"');
    out
}

/// A record as a client describes it (API body, batch entry, a parsed master-file line).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RecordInput {
    #[serde(rename = "type")]
    pub rtype: Option<String>,
    pub name: Option<String>,
    pub content: Option<String>,
    pub ttl: Option<i64>,
    pub priority: Option<i64>,
    pub weight: Option<i64>,
    pub port: Option<i64>,
    pub flags: Option<i64>,
    pub tag: Option<String>,
}

/// A validated record: its fully qualified name, TTL and data.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValidRecord {
    pub name: String,
    pub ttl: u32,
    pub data: RData,
}

fn name_error(pointer: &str, e: &NameError) -> FieldError {
    let code = match e {
        NameError::LabelTooLong(_) | NameError::TooLong => "too_long",
        NameError::OutOfZone { .. } => "out_of_zone",
        _ => "invalid_name",
    };
    FieldError::new(pointer, code, e.to_string())
}

fn u16_field(v: Option<i64>, pointer: &str, what: &str, errors: &mut Vec<FieldError>) -> u16 {
    match v {
        None => {
            errors.push(FieldError::new(pointer, "required", format!("{what} is required for this type")));
            0
        }
        Some(n) if (0..=65_535).contains(&n) => n as u16,
        Some(_) => {
            errors.push(FieldError::new(pointer, "out_of_range", format!("{what} must be between 0 and 65535")));
            0
        }
    }
}

fn host(content: &str, pointer: &str, errors: &mut Vec<FieldError>) -> String {
    match name::normalize(content, false) {
        Ok(n) => n,
        Err(e) => {
            errors.push(name_error(pointer, &e));
            String::new()
        }
    }
}

/// Checks a record for `zone`; `at` is the JSON pointer prefix of the record (`""` for a body,
/// `/creates/3` in a batch). Every invalid field is reported.
pub fn validate(input: &RecordInput, zone: &str, at: &str) -> Result<ValidRecord, Vec<FieldError>> {
    let mut errors = Vec::new();
    let p = |field: &str| format!("{at}/{field}");
    let rtype = match input.rtype.as_deref() {
        None => {
            errors.push(FieldError::new(p("type"), "required", "type is required"));
            None
        }
        Some(t) => match RecordType::parse(t) {
            Some(t) => Some(t),
            None => {
                errors.push(FieldError::new(
                    p("type"),
                    "unsupported_type",
                    format!("type must be one of {}", RecordType::ALL.map(|t| t.as_str()).join(", ")),
                ));
                None
            }
        },
    };
    let name = match name::qualify(input.name.as_deref().unwrap_or("@"), zone) {
        Ok(n) => n,
        Err(e) => {
            errors.push(name_error(&p("name"), &e));
            zone.to_owned()
        }
    };
    let ttl = match input.ttl {
        None => DEFAULT_TTL,
        Some(t) if (i64::from(MIN_TTL)..=i64::from(MAX_TTL)).contains(&t) => t as u32,
        Some(_) => {
            errors.push(FieldError::new(
                p("ttl"),
                "out_of_range",
                format!("ttl must be between {MIN_TTL} and {MAX_TTL} seconds"),
            ));
            DEFAULT_TTL
        }
    };
    let Some(rtype) = rtype else { return Err(errors) };
    let content = match input.content.as_deref() {
        Some(c) => c,
        None => {
            errors.push(FieldError::new(p("content"), "required", "content is required"));
            return Err(errors);
        }
    };
    let cp = p("content");
    let trimmed = content.trim();
    // Fields that belong to other types are refused, so that a typo does not pass silently.
    let extra = |field: &str, present: bool, errors: &mut Vec<FieldError>| {
        if present {
            errors.push(FieldError::new(
                p(field),
                "not_allowed",
                format!("{field} does not apply to {} records", rtype.as_str()),
            ));
        }
    };
    let uses_priority = matches!(rtype, RecordType::MX | RecordType::SRV);
    extra("priority", input.priority.is_some() && !uses_priority, &mut errors);
    extra("weight", input.weight.is_some() && rtype != RecordType::SRV, &mut errors);
    extra("port", input.port.is_some() && rtype != RecordType::SRV, &mut errors);
    extra("flags", input.flags.is_some() && rtype != RecordType::CAA, &mut errors);
    extra("tag", input.tag.is_some() && rtype != RecordType::CAA, &mut errors);
    let data = match rtype {
        RecordType::A => match trimmed.parse::<Ipv4Addr>() {
            Ok(a) => RData::A(a),
            Err(_) => {
                errors.push(FieldError::new(&cp, "invalid_ipv4", "content must be an IPv4 address like 192.0.2.1"));
                RData::A(Ipv4Addr::UNSPECIFIED)
            }
        },
        RecordType::AAAA => match trimmed.parse::<Ipv6Addr>() {
            Ok(a) => RData::AAAA(a),
            Err(_) => {
                errors.push(FieldError::new(&cp, "invalid_ipv6", "content must be an IPv6 address like 2001:db8::1"));
                RData::AAAA(Ipv6Addr::UNSPECIFIED)
            }
        },
        RecordType::CNAME => RData::CNAME(host(trimmed, &cp, &mut errors)),
        RecordType::NS => RData::NS(host(trimmed, &cp, &mut errors)),
        RecordType::PTR => RData::PTR(host(trimmed, &cp, &mut errors)),
        RecordType::MX => RData::MX {
            priority: u16_field(input.priority, &p("priority"), "priority", &mut errors),
            exchange: host(trimmed, &cp, &mut errors),
        },
        RecordType::SRV => RData::SRV {
            priority: u16_field(input.priority, &p("priority"), "priority", &mut errors),
            weight: u16_field(input.weight, &p("weight"), "weight", &mut errors),
            port: u16_field(input.port, &p("port"), "port", &mut errors),
            target: host(trimmed, &cp, &mut errors),
        },
        RecordType::TXT => match parse_txt(content) {
            Ok(strings) => RData::TXT(strings),
            Err((code, detail)) => {
                errors.push(FieldError::new(&cp, code, detail));
                RData::TXT(Vec::new())
            }
        },
        RecordType::CAA => {
            let flags = match input.flags {
                None => 0,
                Some(f @ (0 | 128)) => f as u8,
                Some(_) => {
                    errors.push(FieldError::new(p("flags"), "out_of_range", "flags must be 0, or 128 (critical)"));
                    0
                }
            };
            let tag = match input.tag.as_deref().map(str::trim) {
                None => {
                    errors.push(FieldError::new(
                        p("tag"),
                        "required",
                        "tag is required for CAA (issue, issuewild, iodef)",
                    ));
                    String::new()
                }
                Some(t) if !t.is_empty() && t.len() <= 15 && t.bytes().all(|b| b.is_ascii_alphanumeric()) => {
                    t.to_ascii_lowercase()
                }
                Some(_) => {
                    errors.push(FieldError::new(p("tag"), "invalid_tag", "tag must be 1 to 15 letters or digits"));
                    String::new()
                }
            };
            if content.len() > 255 || !content.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
                errors.push(FieldError::new(
                    &cp,
                    "invalid_caa",
                    "CAA value must be printable ASCII, at most 255 octets",
                ));
            }
            RData::CAA { flags, tag, value: content.to_owned() }
        }
    };
    if errors.is_empty() {
        Ok(ValidRecord { name, ttl, data })
    } else {
        Err(errors)
    }
}

/// The input that describes a stored record, so that a partial update can be laid over it.
pub fn input_of(r: &meridian_store::dns::Record) -> RecordInput {
    RecordInput {
        rtype: Some(r.rtype.clone()),
        name: Some(format!("{}.", r.name)),
        content: Some(r.content.clone()),
        ttl: Some(i64::from(r.ttl)),
        priority: r.priority.map(i64::from),
        weight: r.weight.map(i64::from),
        port: r.port.map(i64::from),
        flags: r.flags.map(i64::from),
        tag: r.tag.clone(),
    }
}

/// The typed data of a stored record (stored records were validated when written).
pub fn rdata_of(r: &meridian_store::dns::Record) -> Option<RData> {
    // Every name is inside a zone of its own name, so the record's zone need not be known here.
    validate(&input_of(r), &r.name, "").ok().map(|v| v.data)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn input(t: &str, name: &str, content: &str) -> RecordInput {
        RecordInput {
            rtype: Some(t.into()),
            name: Some(name.into()),
            content: Some(content.into()),
            ..Default::default()
        }
    }

    #[test]
    fn each_field_is_checked_with_a_pointer() {
        let mut i = input("A", "www", "300.1.1.1");
        i.ttl = Some(5);
        let errors = validate(&i, "example.com", "/creates/2").unwrap_err();
        let pointers: Vec<_> = errors.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(pointers, vec!["/creates/2/ttl", "/creates/2/content"]);
        let errors = validate(&input("AAAA", "www", "2001:db8::g"), "example.com", "").unwrap_err();
        assert_eq!(errors[0].code, "invalid_ipv6");
        let errors = validate(&input("MX", "@", "mail.example.com"), "example.com", "").unwrap_err();
        assert_eq!(errors[0].pointer, "/priority");
        let errors = validate(&input("BOGUS", "@", "x"), "example.com", "").unwrap_err();
        assert_eq!(errors[0].code, "unsupported_type");
        let mut a = input("A", "www", "192.0.2.1");
        a.priority = Some(1);
        assert_eq!(validate(&a, "example.com", "").unwrap_err()[0].pointer, "/priority");
    }

    #[test]
    fn names_are_qualified_and_hosts_normalized() {
        let v = validate(&input("CNAME", "Docs", "Target.Example.NET."), "example.com", "").unwrap();
        assert_eq!(v.name, "docs.example.com");
        assert_eq!(v.data, RData::CNAME("target.example.net".into()));
        assert_eq!(v.ttl, DEFAULT_TTL);
        let v = validate(&input("A", "bücher", "192.0.2.1"), "example.com", "").unwrap();
        assert_eq!(v.name, "xn--bcher-kva.example.com");
    }

    #[test]
    fn long_txt_is_split_into_strings_on_the_wire() {
        let text = "x".repeat(600);
        let v = validate(&input("TXT", "@", &text), "example.com", "").unwrap();
        let mut wire = Vec::new();
        v.data.to_wire(&mut wire);
        assert_eq!(wire.len(), 600 + 3);
        assert_eq!((wire[0], wire[256], wire[512]), (255, 255, 90));
        assert_eq!(v.data.presentation().matches('"').count(), 6);
    }

    #[test]
    fn txt_content_keeps_character_strings() {
        let strings = |c: &str| parse_txt(c).map_err(|(code, _)| code);
        assert_eq!(strings("\"hello\" \"world\""), Ok(vec![b"hello".to_vec(), b"world".to_vec()]));
        assert_eq!(strings(" \"a\\\"b\" \"\\065\" \"\" "), Ok(vec![b"a\"b".to_vec(), b"A".to_vec(), vec![]]));
        assert_eq!(strings("plain \"text\""), Ok(vec![b"plain \"text\"".to_vec()]));
        assert_eq!(strings("\"open"), Err("invalid_txt"));
        assert_eq!(strings("\"a\"\"b\""), Err("invalid_txt"));
        assert_eq!(strings("\"a\" b"), Err("invalid_txt"));
        assert_eq!(strings("\"\\256\""), Err("invalid_txt"));
        assert_eq!(strings(&format!("\"{}\"", "x".repeat(256))), Err("too_long"));
        assert_eq!(strings(&"\"\" ".repeat(5000)), Err("too_long"));
        // The API shows plain text when it is plain text cut every 255 octets, else quoted strings.
        assert_eq!(txt_content(&[b"hello world".to_vec()]), "hello world");
        assert_eq!(txt_content(&[b"hello".to_vec(), b"world".to_vec()]), "\"hello\" \"world\"");
        assert_eq!(txt_content(&[b"\"quoted\"".to_vec()]), "\"\\\"quoted\\\"\"");
        assert_eq!(txt_content(&[vec![0xff]]), "\"\\255\"");
        for c in ["hello world", "\"a\" \"b\"", "\"\\\"quoted\\\"\"", &"y".repeat(600)] {
            let s = parse_txt(c).unwrap();
            assert_eq!(parse_txt(&txt_content(&s)).unwrap(), s, "{c}");
        }
    }

    #[test]
    fn presentation_and_wire_of_each_type() {
        let mut srv = input("SRV", "_sip._tcp", "sip.example.com");
        srv.priority = Some(10);
        srv.weight = Some(5);
        srv.port = Some(5060);
        let v = validate(&srv, "example.com", "").unwrap();
        assert_eq!(v.data.presentation(), "10 5 5060 sip.example.com.");
        let mut caa = input("CAA", "@", "letsencrypt.org");
        caa.tag = Some("issue".into());
        let v = validate(&caa, "example.com", "").unwrap();
        assert_eq!(v.data.presentation(), "0 issue \"letsencrypt.org\"");
        let mut wire = Vec::new();
        v.data.to_wire(&mut wire);
        assert_eq!(&wire[..7], b"\x00\x05issue");
        assert_eq!(quote(b"a\"b\\c\x01"), "\"a\\\"b\\\\c\\001\"");
    }
}
