//! TSIG (RFC 8945) with HMAC-SHA256: verifying signed requests and signing responses, including
//! the chained MACs of multi-message zone transfers. Works on the raw message bytes, so that the
//! MAC covers exactly what was sent.

use crate::name;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hickory_proto::op::Query;
use hickory_proto::rr::rdata::tsig::TsigAlgorithm;
use hickory_proto::rr::{RData, Record};
use hickory_proto::serialize::binary::{BinDecodable, BinDecoder};
use hmac::{Hmac, Mac};
use meridian_core::config::TsigKeyConfig;
use sha2::Sha256;

/// The TSIG record type.
const TSIG_TYPE: u16 = 250;
/// The class of a TSIG record.
const ANY_CLASS: u16 = 255;
/// The only algorithm offered.
pub const HMAC_SHA256: &str = "hmac-sha256";
/// Allowed clock difference, in seconds.
pub const FUDGE: u16 = 300;

/// TSIG error codes (RFC 8945 section 3).
pub mod error {
    pub const BADSIG: u16 = 16;
    pub const BADKEY: u16 = 17;
    pub const BADTIME: u16 = 18;
}

/// A shared key.
#[derive(Clone)]
pub struct TsigKey {
    /// Lowercase, without the trailing dot.
    pub name: String,
    secret: Vec<u8>,
    /// May transfer zones.
    pub transfer: bool,
    /// Zones it may update (`*` for all).
    pub update: Vec<String>,
}

impl std::fmt::Debug for TsigKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TsigKey").field("name", &self.name).field("transfer", &self.transfer).finish()
    }
}

impl TsigKey {
    /// A key from its name and base64 secret.
    pub fn new(name: &str, secret_base64: &str) -> Result<Self, String> {
        let secret = STANDARD
            .decode(secret_base64.trim())
            .map_err(|_| format!("the secret of TSIG key {name} is not base64"))?;
        Ok(Self { name: name.trim_end_matches('.').to_ascii_lowercase(), secret, transfer: true, update: Vec::new() })
    }

    /// Whether the key may change `zone` with dynamic updates.
    pub fn may_update(&self, zone: &str) -> bool {
        self.update.iter().any(|z| z == "*" || z.trim_end_matches('.').eq_ignore_ascii_case(zone))
    }

    fn mac(&self, data: &[u8]) -> Vec<u8> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.secret).unwrap_or_else(|_| unreachable!("HMAC takes any key"));
        mac.update(data);
        mac.finalize().into_bytes().to_vec()
    }

    fn check(&self, data: &[u8], given: &[u8]) -> bool {
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.secret) else { return false };
        mac.update(data);
        // RFC 8945 section 5.2.2.1: truncated MACs of at least half the length (and 10 octets).
        given.len() >= 16 && mac.verify_truncated_left(given).is_ok()
    }
}

/// The configured keys.
#[derive(Clone, Debug, Default)]
pub struct KeyRing {
    keys: Vec<TsigKey>,
}

impl KeyRing {
    /// Keys from configuration.
    pub fn from_config(keys: &[TsigKeyConfig]) -> Result<Self, String> {
        let keys = keys
            .iter()
            .map(|k| {
                let mut key = TsigKey::new(&k.name, k.secret.expose())?;
                key.transfer = k.transfer;
                key.update = k.update.clone();
                Ok(key)
            })
            .collect::<Result<_, String>>()?;
        Ok(Self { keys })
    }

    /// The key with this name.
    pub fn get(&self, name: &str) -> Option<&TsigKey> {
        let name = name.trim_end_matches('.');
        self.keys.iter().find(|k| k.name.eq_ignore_ascii_case(name))
    }
}

/// What a message's TSIG said.
#[derive(Debug)]
pub enum Verified {
    /// No TSIG.
    Unsigned,
    /// A good signature by this key; `mac` is the request's MAC, which the response's MAC covers.
    Valid { key: TsigKey, mac: Vec<u8> },
    /// A TSIG that failed: the answer is NOTAUTH with this TSIG error.
    Failed { key_name: String, error: u16 },
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

fn time48(t: u64) -> [u8; 6] {
    let b = t.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

/// The parts of a message's final TSIG record.
struct Located {
    /// Where the TSIG record starts.
    start: usize,
    key_name: String,
    algorithm: String,
    time: u64,
    fudge: u16,
    mac: Vec<u8>,
    original_id: u16,
    error: u16,
    other: Vec<u8>,
}

/// Finds the TSIG record that ends the additional section.
fn locate(bytes: &[u8]) -> Option<Located> {
    if bytes.len() < 12 || u16::from_be_bytes([bytes[10], bytes[11]]) == 0 {
        return None;
    }
    let counts = [4, 6, 8, 10].map(|i| u16::from_be_bytes([bytes[i], bytes[i + 1]]) as usize);
    let mut decoder = BinDecoder::new(bytes);
    decoder.read_slice(12).ok()?;
    for _ in 0..counts[0] {
        Query::read(&mut decoder).ok()?;
    }
    let before = counts[1] + counts[2] + counts[3] - 1;
    for _ in 0..before {
        skip_record(&mut decoder)?;
    }
    let start = bytes.len() - decoder.len();
    // The last record, decoded whatever the opcode (hickory keeps an UPDATE's TSIG among the
    // additional records rather than as the message's signature).
    let record = Record::<RData>::read(&mut decoder).ok()?;
    let RData::TSIG(tsig) = &record.data else { return None };
    Some(Located {
        start,
        key_name: record.name.to_ascii().trim_end_matches('.').to_ascii_lowercase(),
        algorithm: tsig.algorithm.to_name().to_ascii().trim_end_matches('.').to_ascii_lowercase(),
        time: tsig.time,
        fudge: tsig.fudge,
        mac: tsig.mac.clone(),
        original_id: tsig.oid,
        error: tsig.error.map(u16::from).unwrap_or(0),
        other: tsig.other.clone(),
    })
}

/// Skips one resource record without interpreting its data.
fn skip_record(d: &mut BinDecoder<'_>) -> Option<()> {
    hickory_proto::rr::Name::read(d).ok()?;
    d.read_slice(8).ok()?;
    let len = d.read_u16().ok()?.unverified();
    d.read_slice(len as usize).ok()?;
    Some(())
}

/// The TSIG variables that follow the message in the MAC input (RFC 8945 section 4.3.3).
fn variables(key_name: &str, algorithm: &str, time: u64, fudge: u16, error: u16, other: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    name::to_wire(key_name, &mut out);
    out.extend(ANY_CLASS.to_be_bytes());
    out.extend(0u32.to_be_bytes());
    name::to_wire(algorithm, &mut out);
    out.extend(time48(time));
    out.extend(fudge.to_be_bytes());
    out.extend(error.to_be_bytes());
    out.extend((other.len() as u16).to_be_bytes());
    out.extend(other);
    out
}

/// The message as it was before the TSIG was added: ARCOUNT one less, the original id.
fn unsigned_prefix(bytes: &[u8], located: &Located) -> Vec<u8> {
    let mut out = bytes[..located.start].to_vec();
    out[0..2].copy_from_slice(&located.original_id.to_be_bytes());
    let ar = u16::from_be_bytes([out[10], out[11]]).saturating_sub(1);
    out[10..12].copy_from_slice(&ar.to_be_bytes());
    out
}

/// Verifies a request's TSIG against the ring.
pub fn verify_request(ring: &KeyRing, bytes: &[u8], now: u64) -> Verified {
    let Some(located) = locate(bytes) else { return Verified::Unsigned };
    let Some(key) = ring.get(&located.key_name).filter(|_| located.algorithm == HMAC_SHA256) else {
        return Verified::Failed { key_name: located.key_name, error: error::BADKEY };
    };
    let mut data = unsigned_prefix(bytes, &located);
    data.extend(variables(
        &located.key_name,
        &located.algorithm,
        located.time,
        located.fudge,
        located.error,
        &located.other,
    ));
    if !key.check(&data, &located.mac) {
        return Verified::Failed { key_name: located.key_name, error: error::BADSIG };
    }
    if now.abs_diff(located.time) > u64::from(located.fudge) {
        return Verified::Failed { key_name: located.key_name, error: error::BADTIME };
    }
    Verified::Valid { key: key.clone(), mac: located.mac }
}

/// Verifies a signed response (or a later message of a transfer) as a client does: `prior` is
/// the request's MAC for the first message, the previous message's MAC after that. Returns the
/// message's MAC.
pub fn verify_response(key: &TsigKey, bytes: &[u8], prior: &[u8], first: bool) -> Option<Vec<u8>> {
    let located = locate(bytes)?;
    let mut data = Vec::new();
    data.extend((prior.len() as u16).to_be_bytes());
    data.extend(prior);
    data.extend(unsigned_prefix(bytes, &located));
    if first {
        data.extend(variables(
            &located.key_name,
            &located.algorithm,
            located.time,
            located.fudge,
            located.error,
            &located.other,
        ));
    } else {
        data.extend(time48(located.time));
        data.extend(located.fudge.to_be_bytes());
    }
    key.check(&data, &located.mac).then_some(located.mac)
}

fn append_tsig(msg: &mut Vec<u8>, key_name: &str, time: u64, mac: &[u8], error: u16, other: &[u8]) {
    let original_id = u16::from_be_bytes([msg[0], msg[1]]);
    name::to_wire(key_name, msg);
    msg.extend(TSIG_TYPE.to_be_bytes());
    msg.extend(ANY_CLASS.to_be_bytes());
    msg.extend(0u32.to_be_bytes());
    let mut rdata = Vec::new();
    name::to_wire(HMAC_SHA256, &mut rdata);
    rdata.extend(time48(time));
    rdata.extend(FUDGE.to_be_bytes());
    rdata.extend((mac.len() as u16).to_be_bytes());
    rdata.extend(mac);
    rdata.extend(original_id.to_be_bytes());
    rdata.extend(error.to_be_bytes());
    rdata.extend((other.len() as u16).to_be_bytes());
    rdata.extend(other);
    msg.extend((rdata.len() as u16).to_be_bytes());
    msg.extend(rdata);
    let ar = u16::from_be_bytes([msg[10], msg[11]]) + 1;
    msg[10..12].copy_from_slice(&ar.to_be_bytes());
}

/// Signs the messages of one exchange: a request, or the response(s) to a signed request.
pub struct Signer {
    key: TsigKey,
    prior: Option<Vec<u8>>,
    first: bool,
}

impl Signer {
    /// Signs a request (no prior MAC).
    pub fn request(key: TsigKey) -> Self {
        Self { key, prior: None, first: true }
    }

    /// Signs the response(s) to a request whose MAC was `request_mac`.
    pub fn response(key: TsigKey, request_mac: Vec<u8>) -> Self {
        Self { key, prior: Some(request_mac), first: true }
    }

    /// Appends the TSIG record to `msg` and returns it; the MAC chains into the next message.
    pub fn sign(&mut self, mut msg: Vec<u8>, now: u64) -> Vec<u8> {
        let mut data = Vec::new();
        if let Some(prior) = &self.prior {
            data.extend((prior.len() as u16).to_be_bytes());
            data.extend(prior);
        }
        data.extend(&msg);
        if self.first {
            data.extend(variables(&self.key.name, HMAC_SHA256, now, FUDGE, 0, &[]));
        } else {
            data.extend(time48(now));
            data.extend(FUDGE.to_be_bytes());
        }
        let mac = self.key.mac(&data);
        append_tsig(&mut msg, &self.key.name, now, &mac, 0, &[]);
        self.prior = Some(mac);
        self.first = false;
        msg
    }

    /// The MAC of the last message signed.
    pub fn last_mac(&self) -> Option<&[u8]> {
        self.prior.as_deref()
    }
}

/// Appends an unsigned TSIG carrying an error (BADKEY, BADSIG), as RFC 8945 section 5.3.2 asks.
pub fn append_error(msg: &mut Vec<u8>, key_name: &str, error: u16, now: u64) {
    let other = if error == error::BADTIME { time48(now).to_vec() } else { Vec::new() };
    append_tsig(msg, key_name, now, &[], error, &other);
}

/// The algorithm hickory calls HMAC-SHA256, for clients built on it.
pub fn algorithm() -> TsigAlgorithm {
    TsigAlgorithm::HmacSha256
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use hickory_proto::op::{Message, MessageType, OpCode};
    use hickory_proto::rr::{Name, RecordType};

    fn query_bytes() -> Vec<u8> {
        let mut m = Message::new(4321, MessageType::Query, OpCode::Query);
        m.add_query(Query::query(Name::from_ascii("example.com.").unwrap(), RecordType::AXFR));
        m.to_vec().unwrap()
    }

    #[test]
    fn signed_requests_verify_and_tampering_fails() {
        let key = TsigKey::new("xfr-key", &STANDARD.encode(b"0123456789abcdef0123456789abcdef")).unwrap();
        let ring = KeyRing { keys: vec![key.clone()] };
        let signed = Signer::request(key.clone()).sign(query_bytes(), now());
        let Verified::Valid { mac, .. } = verify_request(&ring, &signed, now()) else { panic!("not valid") };
        assert_eq!(mac.len(), 32);
        let mut tampered = signed.clone();
        tampered[13] ^= 1;
        assert!(matches!(verify_request(&ring, &tampered, now()), Verified::Failed { error: error::BADSIG, .. }));
        assert!(matches!(verify_request(&ring, &signed, now() + 1000), Verified::Failed { error: error::BADTIME, .. }));
        let other = KeyRing { keys: vec![TsigKey::new("other", "AAAA").unwrap()] };
        assert!(matches!(verify_request(&other, &signed, now()), Verified::Failed { error: error::BADKEY, .. }));
        assert!(matches!(verify_request(&ring, &query_bytes(), now()), Verified::Unsigned));
    }

    #[test]
    fn response_chains_verify_like_a_client() {
        let key = TsigKey::new("k", &STANDARD.encode(b"secret-secret-secret")).unwrap();
        let mut client = Signer::request(key.clone());
        let request = client.sign(query_bytes(), now());
        let request_mac = client.last_mac().unwrap().to_vec();
        let mut server = Signer::response(key.clone(), request_mac.clone());
        let first = server.sign(query_bytes(), now());
        let second = server.sign(query_bytes(), now());
        let mac1 = verify_response(&key, &first, &request_mac, true).expect("first verifies");
        assert!(verify_response(&key, &second, &mac1, false).is_some());
        assert!(verify_response(&key, &second, &request_mac, false).is_none());
        assert!(request.len() > 12);
    }
}
