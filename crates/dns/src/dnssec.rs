//! DNSSEC with ECDSA P-256 and SHA-256 (algorithm 13, RFC 6605): keys, DNSKEY and DS records,
//! RRSIG signatures over canonical RRsets (RFC 4034 section 6) and NSEC type bitmaps.

use crate::name;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use sha2::{Digest, Sha256};

/// ECDSA P-256 with SHA-256.
pub const ALGORITHM: u8 = 13;
/// A key-signing key that signs the whole zone (a combined signing key): zone key + SEP.
pub const CSK_FLAGS: u16 = 257;
/// SHA-256, the DS digest type.
pub const DIGEST_SHA256: u8 = 2;

/// Type codes of the records DNSSEC adds.
pub mod types {
    pub const SOA: u16 = 6;
    pub const NS: u16 = 2;
    pub const DS: u16 = 43;
    pub const RRSIG: u16 = 46;
    pub const NSEC: u16 = 47;
    pub const DNSKEY: u16 = 48;
}

/// Why a stored key cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("the stored DNSSEC key is not a valid P-256 private key")]
pub struct BadKey;

/// A zone's signing key.
#[derive(Clone)]
pub struct ZoneKey {
    key: SigningKey,
    flags: u16,
}

impl std::fmt::Debug for ZoneKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZoneKey").field("flags", &self.flags).field("key_tag", &self.key_tag()).finish()
    }
}

/// A DS record's fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ds {
    pub key_tag: u16,
    pub algorithm: u8,
    pub digest_type: u8,
    /// Hex, uppercase.
    pub digest: String,
}

impl ZoneKey {
    /// A new random key; returns it with its private scalar in hex, for storing.
    pub fn generate() -> (Self, String) {
        // 32 bytes from the operating system's generator (through rand's thread generator,
        // reseeded from it); a value outside the curve's order, never seen in practice, is
        // drawn again.
        let key = loop {
            let bytes: [u8; 32] = rand::random();
            if let Ok(key) = SigningKey::from_bytes(&bytes.into()) {
                break key;
            }
        };
        let hex = hex::encode(key.to_bytes());
        (Self { key, flags: CSK_FLAGS }, hex)
    }

    /// A stored key.
    pub fn from_hex(private: &str, flags: u16) -> Result<Self, BadKey> {
        let bytes = hex::decode(private).map_err(|_| BadKey)?;
        let key = SigningKey::from_slice(&bytes).map_err(|_| BadKey)?;
        Ok(Self { key, flags })
    }

    /// The public key as DNSKEY carries it: the point's x and y, 64 octets.
    pub fn public_key(&self) -> Vec<u8> {
        let point = self.key.verifying_key().to_encoded_point(false);
        point.as_bytes()[1..].to_vec()
    }

    /// The DNSKEY record data.
    pub fn dnskey_rdata(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(68);
        out.extend(self.flags.to_be_bytes());
        out.push(3);
        out.push(ALGORITHM);
        out.extend(self.public_key());
        out
    }

    /// DNSKEY record data in master-file form.
    pub fn dnskey_presentation(&self) -> String {
        format!("{} 3 {} {}", self.flags, ALGORITHM, STANDARD.encode(self.public_key()))
    }

    /// The key tag (RFC 4034 appendix B).
    pub fn key_tag(&self) -> u16 {
        key_tag(&self.dnskey_rdata())
    }

    /// The flags (257).
    pub fn flags(&self) -> u16 {
        self.flags
    }

    /// The DS record (SHA-256) that the parent zone publishes for this key.
    pub fn ds(&self, zone: &str) -> Ds {
        let mut data = Vec::new();
        name::to_wire(zone, &mut data);
        data.extend(self.dnskey_rdata());
        Ds {
            key_tag: self.key_tag(),
            algorithm: ALGORITHM,
            digest_type: DIGEST_SHA256,
            digest: hex::encode_upper(Sha256::digest(&data)),
        }
    }

    /// RRSIG record data over an RRset. `owner` is the RRset's owner (a wildcard owner as `*.x`),
    /// `rdatas` the records' data in canonical wire form.
    #[allow(clippy::too_many_arguments)]
    pub fn sign(
        &self,
        zone: &str,
        owner: &str,
        rtype: u16,
        ttl: u32,
        rdatas: &[Vec<u8>],
        inception: u32,
        expiration: u32,
    ) -> Vec<u8> {
        let mut rrsig = Vec::with_capacity(200);
        rrsig.extend(rtype.to_be_bytes());
        rrsig.push(ALGORITHM);
        rrsig.push(name::label_count(owner));
        rrsig.extend(ttl.to_be_bytes());
        rrsig.extend(expiration.to_be_bytes());
        rrsig.extend(inception.to_be_bytes());
        rrsig.extend(self.key_tag().to_be_bytes());
        name::to_wire(zone, &mut rrsig);
        let mut signed = rrsig.clone();
        let mut sorted: Vec<&Vec<u8>> = rdatas.iter().collect();
        sorted.sort();
        sorted.dedup();
        let mut owner_wire = Vec::new();
        name::to_wire(owner, &mut owner_wire);
        for rdata in sorted {
            signed.extend(&owner_wire);
            signed.extend(rtype.to_be_bytes());
            signed.extend(1u16.to_be_bytes());
            signed.extend(ttl.to_be_bytes());
            signed.extend((rdata.len() as u16).to_be_bytes());
            signed.extend(rdata);
        }
        let signature: Signature = self.key.sign(&signed);
        rrsig.extend(signature.to_bytes());
        rrsig
    }
}

/// The key tag of DNSKEY record data (RFC 4034 appendix B).
pub fn key_tag(rdata: &[u8]) -> u16 {
    let mut ac: u32 = 0;
    for (i, &b) in rdata.iter().enumerate() {
        ac += if i & 1 == 1 { u32::from(b) } else { u32::from(b) << 8 };
    }
    ac += (ac >> 16) & 0xffff;
    (ac & 0xffff) as u16
}

/// NSEC record data: the next owner name and the type bitmap (RFC 4034 section 4.1).
pub fn nsec_rdata(next: &str, types: &[u16]) -> Vec<u8> {
    let mut out = Vec::new();
    name::to_wire(next, &mut out);
    out.extend(type_bitmap(types));
    out
}

/// The windowed type bitmap of NSEC and NSEC3.
pub fn type_bitmap(types: &[u16]) -> Vec<u8> {
    let mut sorted = types.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let window = (sorted[i] >> 8) as u8;
        let mut bits = [0u8; 32];
        let mut len = 0;
        while i < sorted.len() && (sorted[i] >> 8) as u8 == window {
            let low = (sorted[i] & 0xff) as usize;
            bits[low / 8] |= 0x80 >> (low % 8);
            len = len.max(low / 8 + 1);
            i += 1;
        }
        out.push(window);
        out.push(len as u8);
        out.extend(&bits[..len]);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use p256::ecdsa::signature::Verifier;
    use p256::ecdsa::VerifyingKey;

    #[test]
    fn key_tag_matches_rfc_4034_example_algorithm() {
        // A DNSKEY rdata whose tag is easy to compute by hand: flags 257, proto 3, alg 13, 4 octets.
        let rdata = [0x01, 0x01, 0x03, 0x0d, 0x00, 0x01, 0x00, 0x02];
        // (0x0101 + 0x030d + 0x0001 + 0x0002) = 0x0411
        assert_eq!(key_tag(&rdata), 0x0411);
    }

    #[test]
    fn bitmap_windows() {
        // A, MX, RRSIG, NSEC, TYPE1234 from RFC 4034 section 4.3.
        let bitmap = type_bitmap(&[1, 15, 46, 47, 1234]);
        let mut expected = vec![0x00, 0x06, 0x40, 0x01, 0x00, 0x00, 0x00, 0x03, 0x04, 0x1b];
        expected.extend([0u8; 26]);
        expected.push(0x20);
        assert_eq!(bitmap, expected);
    }

    #[test]
    fn signatures_verify_with_the_published_key() {
        let (key, hex) = ZoneKey::generate();
        let again = ZoneKey::from_hex(&hex, CSK_FLAGS).unwrap();
        assert_eq!(again.public_key(), key.public_key());
        let rdatas = vec![vec![192, 0, 2, 1], vec![192, 0, 2, 2]];
        let rrsig = key.sign("example.com", "www.example.com", 1, 300, &rdatas, 1, 2);
        let sig = Signature::from_slice(&rrsig[rrsig.len() - 64..]).unwrap();
        // Rebuild the signed data independently: RRSIG rdata without the signature, then the RRs.
        let mut data = rrsig[..rrsig.len() - 64].to_vec();
        for rd in &rdatas {
            data.extend(b"\x03www\x07example\x03com\x00\x00\x01\x00\x01\x00\x00\x01\x2c\x00\x04");
            data.extend(rd);
        }
        let mut point = vec![4u8];
        point.extend(key.public_key());
        let vk = VerifyingKey::from_sec1_bytes(&point).unwrap();
        assert!(vk.verify(&data, &sig).is_ok());
        assert_eq!(rrsig[3], 3, "labels");
        let ds = key.ds("example.com");
        assert_eq!(ds.digest.len(), 64);
        assert_eq!(ds.key_tag, key.key_tag());
    }
}
