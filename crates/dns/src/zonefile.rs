//! RFC 1035 master files: reading (`$ORIGIN`, `$TTL`, relative names, `@`, blank owners,
//! parentheses, quoted strings, comments) and writing.

use crate::name;
use crate::record::{RecordInput, RecordType, ValidRecord};
use meridian_core::config::DnsConfig;
use std::fmt::Write;

/// One resource-record line of a master file, with names made absolute.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// 1-based line where the record starts.
    pub line: usize,
    /// Owner, absolute, with the trailing dot.
    pub owner: String,
    pub ttl: Option<u32>,
    /// The type mnemonic as written, uppercase.
    pub rtype: String,
    /// The record data's fields.
    pub rdata: Vec<Token>,
    /// The origin in force at this line, absolute, with the trailing dot.
    pub origin: String,
}

/// A field: its text (escapes resolved) and whether it was quoted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub text: Vec<u8>,
    pub quoted: bool,
}

impl Token {
    fn as_str(&self) -> String {
        String::from_utf8_lossy(&self.text).into_owned()
    }
}

/// A line that could not be read, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub line: usize,
    pub reason: String,
}

/// What a master file may hold: reading stops being worth it past these.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Records read; one more is read so that the caller can tell the file was larger.
    pub max_records: usize,
    /// Longest logical line (physical lines joined by parentheses), in bytes.
    pub max_line_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_records: 100_000, max_line_bytes: 65_535 }
    }
}

struct Line {
    number: usize,
    blank_owner: bool,
    tokens: Vec<Token>,
    /// Byte offset where the logical line starts.
    start: usize,
}

/// Splits text into logical lines of tokens (parentheses join physical lines). Parentheses do
/// not nest (RFC 1035 section 5.1): a `(` inside parentheses is reported and ignored.
fn lines(text: &str, limits: &Limits) -> (Vec<Line>, Vec<Issue>) {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut issues = Vec::new();
    let mut i = 0;
    let mut line_no = 1;
    let mut current: Option<Line> = None;
    let mut depth = 0usize;
    let mut at_line_start = true;
    let finish = |l: Line, end: usize, out: &mut Vec<Line>, issues: &mut Vec<Issue>| {
        if l.tokens.is_empty() {
            return;
        }
        if end - l.start > limits.max_line_bytes {
            issues.push(Issue {
                line: l.number,
                reason: format!("the line is longer than {} bytes", limits.max_line_bytes),
            });
        } else {
            out.push(l);
        }
    };
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\n' => {
                line_no += 1;
                i += 1;
                if depth == 0 {
                    if let Some(l) = current.take() {
                        finish(l, i, &mut out, &mut issues);
                    }
                    at_line_start = true;
                }
                continue;
            }
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                if at_line_start && depth == 0 {
                    current.get_or_insert(Line { number: line_no, blank_owner: true, tokens: Vec::new(), start: i });
                }
                at_line_start = false;
                i += 1;
                continue;
            }
            _ => {}
        }
        at_line_start = false;
        let line = current.get_or_insert(Line { number: line_no, blank_owner: false, tokens: Vec::new(), start: i });
        if line.tokens.is_empty() && !line.blank_owner {
            line.number = line_no;
        }
        match b {
            b'(' => {
                if depth > 0 {
                    issues.push(Issue { line: line_no, reason: "parentheses do not nest".into() });
                } else {
                    depth = 1;
                }
                i += 1;
            }
            b')' => {
                if depth == 0 {
                    issues.push(Issue { line: line_no, reason: "unbalanced `)`".into() });
                } else {
                    depth -= 1;
                }
                i += 1;
            }
            b'"' => {
                i += 1;
                let mut text = Vec::new();
                let mut closed = false;
                while i < bytes.len() {
                    match bytes[i] {
                        b'"' => {
                            closed = true;
                            i += 1;
                            break;
                        }
                        b'\\' => {
                            let (value, used) = escape(&bytes[i..]);
                            text.push(value);
                            i += used;
                        }
                        b'\n' => {
                            line_no += 1;
                            text.push(b'\n');
                            i += 1;
                        }
                        c => {
                            text.push(c);
                            i += 1;
                        }
                    }
                }
                if !closed {
                    issues.push(Issue { line: line_no, reason: "unterminated quoted string".into() });
                }
                line.tokens.push(Token { text, quoted: true });
            }
            _ => {
                let mut text = Vec::new();
                while i < bytes.len() && !matches!(bytes[i], b' ' | b'\t' | b'\r' | b'\n' | b';' | b'(' | b')' | b'"') {
                    if bytes[i] == b'\\' {
                        let (value, used) = escape(&bytes[i..]);
                        text.push(value);
                        i += used;
                    } else {
                        text.push(bytes[i]);
                        i += 1;
                    }
                }
                line.tokens.push(Token { text, quoted: false });
            }
        }
    }
    if depth > 0 {
        issues.push(Issue { line: line_no, reason: "unbalanced `(`: the file ends inside parentheses".into() });
    }
    if let Some(l) = current.take() {
        finish(l, bytes.len(), &mut out, &mut issues);
    }
    (out, issues)
}

/// Resolves `\X` or `\DDD` at the start of `s`; returns the octet and how many bytes it took.
fn escape(s: &[u8]) -> (u8, usize) {
    if s.len() >= 4 && s[1..4].iter().all(u8::is_ascii_digit) {
        let v = (s[1] - b'0') as u32 * 100 + (s[2] - b'0') as u32 * 10 + (s[3] - b'0') as u32;
        return (v.min(255) as u8, 4);
    }
    match s.get(1) {
        Some(&c) => (c, 2),
        None => (b'\\', 1),
    }
}

/// A TTL: seconds, or BIND's units (`1h30m`, `2d`, `1w`).
pub fn parse_ttl(s: &str) -> Option<u32> {
    if s.is_empty() {
        return None;
    }
    if let Ok(n) = s.parse::<u32>() {
        return Some(n);
    }
    let mut total: u64 = 0;
    let mut number: Option<u64> = None;
    for c in s.chars() {
        if let Some(d) = c.to_digit(10) {
            number = Some(number.unwrap_or(0).checked_mul(10)?.checked_add(u64::from(d))?);
        } else {
            let unit = match c.to_ascii_lowercase() {
                's' => 1,
                'm' => 60,
                'h' => 3600,
                'd' => 86_400,
                'w' => 604_800,
                _ => return None,
            };
            total = total.checked_add(number.take()?.checked_mul(unit)?)?;
        }
    }
    if number.is_some() {
        return None;
    }
    u32::try_from(total).ok()
}

fn is_class(s: &str) -> bool {
    ["IN", "CH", "CS", "HS"].iter().any(|c| c.eq_ignore_ascii_case(s))
}

/// Mnemonics recognised as a type field (so that the owner and TTL can be told apart from it).
fn is_type(s: &str) -> bool {
    const KNOWN: &[&str] = &[
        "A",
        "AAAA",
        "CNAME",
        "MX",
        "TXT",
        "NS",
        "SRV",
        "CAA",
        "PTR",
        "SOA",
        "DNSKEY",
        "RRSIG",
        "NSEC",
        "NSEC3",
        "NSEC3PARAM",
        "DS",
        "CDS",
        "CDNSKEY",
        "HINFO",
        "NAPTR",
        "SSHFP",
        "TLSA",
        "SPF",
        "DNAME",
        "LOC",
        "SVCB",
        "HTTPS",
        "URI",
        "RP",
        "AFSDB",
        "CERT",
        "OPENPGPKEY",
        "SMIMEA",
        "ZONEMD",
        "CSYNC",
        "KEY",
        "SIG",
        "NULL",
    ];
    KNOWN.iter().any(|t| t.eq_ignore_ascii_case(s))
        || (s.len() > 4
            && s.as_bytes()[..4].eq_ignore_ascii_case(b"TYPE")
            && s.as_bytes()[4..].iter().all(u8::is_ascii_digit))
}

fn absolute(token: &str, origin: &str) -> String {
    if token == "@" {
        origin.to_owned()
    } else if token.ends_with('.') {
        token.to_owned()
    } else if origin == "." {
        format!("{token}.")
    } else {
        format!("{token}.{origin}")
    }
}

/// Reads a master file whose default origin is `origin` (a zone name), with the default
/// [`Limits`]. Returns the record lines and the lines that could not be read.
pub fn parse(text: &str, origin: &str) -> (Vec<Entry>, Vec<Issue>) {
    parse_limited(text, origin, &Limits::default())
}

/// [`parse`] within `limits`: longer lines are reported and skipped, and reading stops after
/// `max_records + 1` records. `$INCLUDE` is refused: an import is one file, and the server
/// reads no other.
pub fn parse_limited(text: &str, origin: &str, limits: &Limits) -> (Vec<Entry>, Vec<Issue>) {
    let (lines, mut issues) = lines(text, limits);
    let mut origin = format!("{}.", origin.trim_end_matches('.'));
    let mut default_ttl: Option<u32> = None;
    let mut last_owner: Option<String> = None;
    let mut entries = Vec::new();
    for line in lines {
        if entries.len() > limits.max_records {
            break;
        }
        let first = line.tokens[0].as_str();
        let first = first.as_str();
        let second = || line.tokens.get(1).map(Token::as_str);
        if !line.blank_owner && first.starts_with('$') {
            match first.to_ascii_uppercase().as_str() {
                "$ORIGIN" => match second() {
                    Some(o) => origin = absolute(&o, &origin),
                    None => issues.push(Issue { line: line.number, reason: "$ORIGIN needs a name".into() }),
                },
                "$INCLUDE" => issues.push(Issue {
                    line: line.number,
                    reason: "$INCLUDE is refused: an import is a single file".into(),
                }),
                "$TTL" => match second().and_then(|t| parse_ttl(&t)) {
                    Some(t) => default_ttl = Some(t),
                    None => issues.push(Issue { line: line.number, reason: "$TTL needs a number of seconds".into() }),
                },
                other => {
                    issues.push(Issue { line: line.number, reason: format!("the directive {other} is not supported") })
                }
            }
            continue;
        }
        let mut rest = &line.tokens[..];
        let owner = if line.blank_owner {
            match &last_owner {
                Some(o) => o.clone(),
                None => {
                    issues.push(Issue { line: line.number, reason: "the first record has no owner name".into() });
                    continue;
                }
            }
        } else {
            rest = &rest[1..];
            absolute(first, &origin)
        };
        last_owner = Some(owner.clone());
        let mut ttl = None;
        let mut rtype = None;
        while let Some((tok, tail)) = rest.split_first() {
            let t = tok.as_str();
            rest = tail;
            if !tok.quoted && is_type(&t) {
                rtype = Some(t.to_ascii_uppercase());
                break;
            } else if !tok.quoted && is_class(&t) {
                if !t.eq_ignore_ascii_case("IN") {
                    issues.push(Issue { line: line.number, reason: format!("class {t} is not supported; only IN") });
                    rtype = None;
                    rest = &[];
                    break;
                }
            } else if let Some(n) = parse_ttl(&t).filter(|_| ttl.is_none()) {
                ttl = Some(n);
            } else {
                issues.push(Issue { line: line.number, reason: format!("`{t}` is not a TTL, class or known type") });
                rest = &[];
                break;
            }
        }
        let Some(rtype) = rtype else {
            if !rest.is_empty() || !issues.iter().any(|i| i.line == line.number) {
                issues.push(Issue { line: line.number, reason: "the record has no type".into() });
            }
            continue;
        };
        entries.push(Entry {
            line: line.number,
            owner,
            ttl: ttl.or(default_ttl),
            rtype,
            rdata: rest.to_vec(),
            origin: origin.clone(),
        });
    }
    (entries, issues)
}

/// Turns a master-file entry into a record request, or says why it is skipped.
pub fn to_input(entry: &Entry, zone: &str) -> Result<RecordInput, String> {
    let owner = entry.owner.trim_end_matches('.').to_ascii_lowercase();
    let rtype = match RecordType::parse(&entry.rtype) {
        Some(t) => t,
        None if entry.rtype == "SOA" => return Err("the SOA record is managed by the server".into()),
        None if ["DNSKEY", "RRSIG", "NSEC", "NSEC3", "NSEC3PARAM", "DS", "CDS", "CDNSKEY"]
            .contains(&entry.rtype.as_str()) =>
        {
            return Err(format!("{} records are made by the server when DNSSEC is enabled", entry.rtype))
        }
        None => return Err(format!("type {} is not supported", entry.rtype)),
    };
    if rtype == RecordType::NS && owner == zone {
        return Err("the apex NS records are managed by the server".into());
    }
    let f: Vec<String> = entry.rdata.iter().map(Token::as_str).collect();
    let want = |n: usize| -> Result<(), String> {
        if f.len() == n {
            Ok(())
        } else {
            Err(format!("{} record data needs {n} field(s), found {}", rtype.as_str(), f.len()))
        }
    };
    let num = |s: &str, what: &str| -> Result<i64, String> {
        s.parse::<i64>().map_err(|_| format!("{what} `{s}` is not a number"))
    };
    let host = |s: &str| absolute(s, &entry.origin);
    let mut input = RecordInput {
        rtype: Some(rtype.as_str().to_owned()),
        name: Some(entry.owner.clone()),
        ttl: entry.ttl.map(i64::from),
        ..Default::default()
    };
    match rtype {
        RecordType::A | RecordType::AAAA => {
            want(1)?;
            input.content = Some(f[0].clone());
        }
        RecordType::CNAME | RecordType::NS | RecordType::PTR => {
            want(1)?;
            input.content = Some(host(&f[0]));
        }
        RecordType::MX => {
            want(2)?;
            input.priority = Some(num(&f[0], "preference")?);
            input.content = Some(host(&f[1]));
        }
        RecordType::SRV => {
            want(4)?;
            input.priority = Some(num(&f[0], "priority")?);
            input.weight = Some(num(&f[1], "weight")?);
            input.port = Some(num(&f[2], "port")?);
            input.content = Some(host(&f[3]));
        }
        RecordType::TXT => {
            if f.is_empty() {
                return Err("TXT record data needs at least one string".into());
            }
            // Each field is one character-string (RFC 1035 section 3.3.14), kept apart.
            let strings: Vec<Vec<u8>> = entry.rdata.iter().map(|t| t.text.clone()).collect();
            input.content = Some(crate::record::quote_all(&strings));
        }
        RecordType::CAA => {
            want(3)?;
            input.flags = Some(num(&f[0], "flags")?);
            input.tag = Some(f[1].clone());
            input.content = Some(f[2].clone());
        }
    }
    Ok(input)
}

/// The server-made apex records of a zone: SOA fields and name servers.
#[derive(Clone, Debug)]
pub struct Apex<'a> {
    pub zone: &'a str,
    pub serial: u32,
    pub config: &'a DnsConfig,
}

impl Apex<'_> {
    /// The SOA record data in master-file form.
    pub fn soa_presentation(&self) -> String {
        let soa = &self.config.soa;
        format!(
            "{}. {}. {} {} {} {} {}",
            self.config.nameservers.first().map(String::as_str).unwrap_or("localhost"),
            soa.rname.trim_end_matches('.'),
            self.serial,
            soa.refresh,
            soa.retry,
            soa.expire,
            soa.minimum
        )
    }
}

/// Writes the zone as a master file: `$ORIGIN`, `$TTL`, the SOA, the apex NS, then the records.
pub fn print(apex: &Apex<'_>, records: &[ValidRecord]) -> String {
    let zone = apex.zone;
    let soa = &apex.config.soa;
    let mut out = String::new();
    let _ = writeln!(out, "; zone {zone}, serial {}", apex.serial);
    let _ = writeln!(out, "$ORIGIN {zone}.");
    let _ = writeln!(out, "$TTL {}", soa.ttl);
    let _ = writeln!(out, "@\t{}\tIN\tSOA\t{}", soa.ttl, apex.soa_presentation());
    for ns in &apex.config.nameservers {
        let _ = writeln!(out, "@\t{}\tIN\tNS\t{}.", soa.ttl, ns.trim_end_matches('.'));
    }
    let mut sorted: Vec<&ValidRecord> = records.iter().collect();
    sorted.sort_by(|a, b| {
        name::canonical_key(&a.name)
            .cmp(&name::canonical_key(&b.name))
            .then(a.data.rtype().cmp(&b.data.rtype()))
            .then(a.data.presentation().cmp(&b.data.presentation()))
    });
    for r in sorted {
        let _ = writeln!(
            out,
            "{}\t{}\tIN\t{}\t{}",
            name::relative_to(&r.name, zone),
            r.ttl,
            r.data.rtype(),
            r.data.presentation()
        );
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::record::{validate, RData};

    const ZONE: &str = r#"
$ORIGIN example.com.
$TTL 1h
@       IN  SOA ns1.other.net. admin.example.com. (
            2024010101 ; serial
            3600 600 1209600 300 )
        IN  NS  ns1.other.net.
@       300 IN  A   192.0.2.1
www         IN  CNAME @
mail    IN 600 MX  10 mx1          ; relative exchange
        IN  MX  20 mx2.example.net.
txt     TXT "hello; world" "second \"part\"" unquoted
_sip._tcp SRV 10 5 5060 sip
@ CAA 0 issue "letsencrypt.org"
$ORIGIN sub.example.com.
deep    A   192.0.2.9
bad     A
weird   HINFO "pc" "linux"
"#;

    #[test]
    fn reads_directives_relative_names_and_continuations() {
        let (entries, issues) = parse(ZONE, "example.com");
        assert!(issues.is_empty(), "{issues:?}");
        let inputs: Vec<_> = entries.iter().map(|e| (e.line, to_input(e, "example.com"))).collect();
        let ok: Vec<ValidRecord> = inputs
            .iter()
            .filter_map(|(_, i)| i.as_ref().ok())
            .filter_map(|i| validate(i, "example.com", "").ok())
            .collect();
        let skipped: Vec<_> = inputs.iter().filter_map(|(l, i)| i.as_ref().err().map(|e| (*l, e.clone()))).collect();
        assert_eq!(skipped.len(), 4, "{skipped:?}");
        assert!(skipped[0].1.contains("SOA"));
        assert!(skipped[1].1.contains("apex NS"));
        assert!(skipped[2].1.contains("needs 1 field"));
        assert!(skipped[3].1.contains("HINFO"));
        let by_name = |n: &str| ok.iter().filter(|r| r.name == n).collect::<Vec<_>>();
        assert_eq!(by_name("example.com")[0].ttl, 300);
        assert_eq!(by_name("www.example.com")[0].data, RData::CNAME("example.com".into()));
        let mail = by_name("mail.example.com");
        assert_eq!(mail[0].data, RData::MX { priority: 10, exchange: "mx1.example.com".into() });
        assert_eq!(mail[0].ttl, 600);
        assert_eq!(mail[1].ttl, 3600, "blank owner, $TTL default");
        assert_eq!(
            by_name("txt.example.com")[0].data,
            RData::TXT(vec![b"hello; world".to_vec(), b"second \"part\"".to_vec(), b"unquoted".to_vec()])
        );
        assert_eq!(by_name("deep.sub.example.com").len(), 1);
        assert_eq!(
            by_name("_sip._tcp.example.com")[0].data,
            RData::SRV { priority: 10, weight: 5, port: 5060, target: "sip.example.com".into() }
        );
    }

    #[test]
    fn printed_zone_reads_back_the_same() {
        let (entries, _) = parse(ZONE, "example.com");
        let records: Vec<ValidRecord> = entries
            .iter()
            .filter_map(|e| to_input(e, "example.com").ok())
            .filter_map(|i| validate(&i, "example.com", "").ok())
            .collect();
        let config = DnsConfig::default();
        let text = print(&Apex { zone: "example.com", serial: 7, config: &config }, &records);
        assert!(text.contains("$ORIGIN example.com."));
        assert!(text.contains("IN\tSOA\tns1.meridian.invalid. hostmaster.meridian.invalid. 7 "));
        let (again, issues) = parse(&text, "example.com");
        assert!(issues.is_empty());
        let mut back: Vec<ValidRecord> = again
            .iter()
            .filter_map(|e| to_input(e, "example.com").ok())
            .filter_map(|i| validate(&i, "example.com", "").ok())
            .collect();
        let mut original = records.clone();
        let key = |r: &ValidRecord| (r.name.clone(), r.data.presentation(), r.ttl);
        back.sort_by_key(key);
        original.sort_by_key(key);
        assert_eq!(back, original);
    }

    #[test]
    fn ttl_units() {
        assert_eq!(parse_ttl("3600"), Some(3600));
        assert_eq!(parse_ttl("1h30m"), Some(5400));
        assert_eq!(parse_ttl("1w"), Some(604_800));
        assert_eq!(parse_ttl("h"), None);
        assert_eq!(parse_ttl("10x"), None);
    }
}
