//! Access tokens: HS256 JWTs signed with a key shared by every node (configuration, or kept in
//! the store), carrying the scopes of the API key they were traded for.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use meridian_core::config::Config;
use meridian_core::Timestamp;
use meridian_store::model::ApiKey;
use meridian_store::Store;
use rand::Rng;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// What a token says.
#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    pub sub: String,
    pub kid: String,
    pub scp: Vec<String>,
    pub iat: i64,
    pub exp: i64,
}

/// Signs and verifies access tokens.
pub struct TokenKeys {
    secret: Vec<u8>,
    ttl: std::time::Duration,
}

impl TokenKeys {
    /// Uses `auth.token_secret`, or the key kept in the store (made on first start).
    pub async fn load(config: &Config, store: &Store) -> Result<Self, meridian_store::StoreError> {
        let secret = match &config.auth.token_secret {
            Some(s) => s.expose().as_bytes().to_vec(),
            None => {
                let fresh: [u8; 32] = rand::rng().random();
                let stored = store.settings.get_or_init("auth.token_secret", &hex::encode(fresh)).await?;
                stored.into_bytes()
            }
        };
        Ok(Self { secret, ttl: config.auth.access_token_ttl })
    }

    /// Keys from a secret (tests, tools).
    pub fn from_secret(secret: &[u8], ttl: std::time::Duration) -> Self {
        Self { secret: secret.to_vec(), ttl }
    }

    /// Lifetime of new tokens.
    pub fn ttl(&self) -> std::time::Duration {
        self.ttl
    }

    fn sign(&self, data: &[u8]) -> Vec<u8> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.secret).unwrap_or_else(|_| unreachable!("HMAC takes any key"));
        mac.update(data);
        mac.finalize().into_bytes().to_vec()
    }

    /// Issues a token for a key, carrying the key's scopes.
    pub fn issue(&self, key: &ApiKey, now: Timestamp) -> String {
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
        let mut exp = now.plus(self.ttl).millis() / 1000;
        if let Some(key_exp) = key.expires_at {
            exp = exp.min(key_exp.millis() / 1000);
        }
        let claims = Claims {
            iss: "meridian".into(),
            sub: key.account_id.0.clone(),
            kid: key.id.0.clone(),
            scp: key.scopes.iter().map(ToString::to_string).collect(),
            iat: now.millis() / 1000,
            exp,
        };
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims).unwrap_or_default());
        let signing_input = format!("{header}.{payload}");
        let signature = URL_SAFE_NO_PAD.encode(self.sign(signing_input.as_bytes()));
        format!("{signing_input}.{signature}")
    }

    /// Verifies a token's signature and expiry.
    pub fn verify(&self, token: &str, now: Timestamp) -> Option<Claims> {
        let (signing_input, signature) = token.rsplit_once('.')?;
        let (header, payload) = signing_input.split_once('.')?;
        let header: serde_json::Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).ok()?).ok()?;
        if header.get("alg").and_then(|a| a.as_str()) != Some("HS256") {
            return None;
        }
        let given = URL_SAFE_NO_PAD.decode(signature).ok()?;
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.secret).ok()?;
        mac.update(signing_input.as_bytes());
        mac.verify_slice(&given).ok()?;
        let claims: Claims = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()?;
        (claims.exp > now.millis() / 1000).then_some(claims)
    }
}
