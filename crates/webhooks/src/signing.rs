//! Signing deliveries, two ways at once:
//!
//! - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the raw body, keyed with the secret's
//!   text as it is shown (`whsec_...`, the whole string), as GitHub and Stripe receivers expect.
//! - Standard Webhooks v1: `webhook-signature: v1,<base64>`, HMAC-SHA256 of
//!   `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the bytes the secret's base64 part
//!   decodes to, so that the Standard Webhooks libraries verify it unchanged.
//!
//! During a secret rotation each header carries one signature per secret: comma-separated in
//! `X-Service-Signature`, space-separated in `webhook-signature` (as the standard says).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// Every signing secret starts with this.
pub const SECRET_PREFIX: &str = "whsec_";

/// A new signing secret: `whsec_` and the base64 of 32 random bytes.
///
/// ```
/// let s = meridian_webhooks::signing::generate_secret();
/// assert!(s.starts_with("whsec_"));
/// assert_eq!(meridian_webhooks::signing::secret_key(&s).len(), 32);
/// ```
pub fn generate_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("{SECRET_PREFIX}{}", STANDARD.encode(bytes))
}

/// The key Standard Webhooks signatures use: the decoded base64 after `whsec_` (the text itself
/// when it is not base64, which never happens for secrets made here).
pub fn secret_key(secret: &str) -> Vec<u8> {
    let encoded = secret.strip_prefix(SECRET_PREFIX).unwrap_or(secret);
    STANDARD.decode(encoded).unwrap_or_else(|_| secret.as_bytes().to_vec())
}

fn hmac(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC takes any key"));
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().to_vec()
}

/// `sha256=<hex HMAC-SHA256 of body keyed with the secret's text>`.
///
/// ```
/// use meridian_webhooks::signing::service_signature;
/// let sig = service_signature("whsec_test", b"{}");
/// assert!(sig.starts_with("sha256=") && sig.len() == 7 + 64);
/// ```
pub fn service_signature(secret: &str, body: &[u8]) -> String {
    format!("sha256={}", hex::encode(hmac(secret.as_bytes(), &[body])))
}

/// `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` (Standard Webhooks).
pub fn standard_signature(secret: &str, msg_id: &str, timestamp: i64, body: &[u8]) -> String {
    let ts = timestamp.to_string();
    let mac = hmac(&secret_key(secret), &[msg_id.as_bytes(), b".", ts.as_bytes(), b".", body]);
    format!("v1,{}", STANDARD.encode(mac))
}

/// The headers that carry signatures and identify a delivery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedHeaders {
    /// `X-Service-Signature`.
    pub service_signature: String,
    /// `webhook-id`: the event id, the same on every retry.
    pub webhook_id: String,
    /// `webhook-timestamp`: Unix seconds of this attempt.
    pub webhook_timestamp: i64,
    /// `webhook-signature`.
    pub webhook_signature: String,
}

/// Signs `body` with every secret in `secrets` (current first).
pub fn sign(secrets: &[String], event_id: &str, timestamp: i64, body: &[u8]) -> SignedHeaders {
    SignedHeaders {
        service_signature: secrets.iter().map(|s| service_signature(s, body)).collect::<Vec<_>>().join(","),
        webhook_id: event_id.to_owned(),
        webhook_timestamp: timestamp,
        webhook_signature: secrets
            .iter()
            .map(|s| standard_signature(s, event_id, timestamp, body))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// Whether an `X-Service-Signature` value holds a valid signature of `body` for `secret`,
/// compared in constant time. For receivers written in Rust, and for tests.
pub fn verify_service_signature(secret: &str, body: &[u8], header: &str) -> bool {
    let expected = service_signature(secret, body);
    header
        .split(',')
        .map(str::trim)
        .fold(false, |ok, given| ok | bool::from(given.as_bytes().ct_eq(expected.as_bytes())))
}

/// Whether a `webhook-signature` value holds a valid Standard Webhooks signature.
pub fn verify_standard_signature(secret: &str, msg_id: &str, timestamp: i64, body: &[u8], header: &str) -> bool {
    let expected = standard_signature(secret, msg_id, timestamp, body);
    header.split(' ').fold(false, |ok, given| ok | bool::from(given.as_bytes().ct_eq(expected.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_signature_matches_a_known_hmac() {
        // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
        assert_eq!(
            service_signature("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn standard_signature_matches_the_specification_example() {
        // The example of the Standard Webhooks specification and its reference libraries.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = br#"{"test": 2432232314}"#;
        let sig = standard_signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body);
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn rotation_signs_with_both_and_either_verifies() {
        let old = generate_secret();
        let new = generate_secret();
        let body = br#"{"id":"evt_1"}"#;
        let h = sign(&[new.clone(), old.clone()], "evt_1", 1_700_000_000, body);
        assert_eq!(h.service_signature.split(',').count(), 2);
        assert_eq!(h.webhook_signature.split(' ').count(), 2);
        for secret in [&old, &new] {
            assert!(verify_service_signature(secret, body, &h.service_signature));
            assert!(verify_standard_signature(secret, "evt_1", 1_700_000_000, body, &h.webhook_signature));
        }
        let stranger = generate_secret();
        assert!(!verify_service_signature(&stranger, body, &h.service_signature));
        assert!(!verify_service_signature(&new, b"{\"id\":\"evt_2\"}", &h.service_signature));
        assert!(!verify_standard_signature(&new, "evt_1", 1_700_000_001, body, &h.webhook_signature));
    }
}
