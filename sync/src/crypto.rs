//! End-to-end encryption: a key from the passphrase (Argon2id), records sealed with
//! AES-256-GCM, and the check that tells a wrong passphrase from a tampered record.
//!
//! Randomness comes in as arguments (the salt of a new space, each record's nonce), so
//! this module is as deterministic as the rest of the core.
//!
//! ```
//! use nocturne_sync::crypto::{Key, KdfParams};
//! let key = Key::derive("correct horse", &[7; 16], KdfParams::TEST).unwrap();
//! let sealed = key.seal(&[1; 12], b"r:phone:1", b"I live in Lisbon");
//! assert_eq!(key.open(b"r:phone:1", &sealed).unwrap(), b"I live in Lisbon");
//! assert!(key.open(b"r:phone:2", &sealed).is_err()); // moved to another record's place
//! ```

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use serde::{Deserialize, Serialize};

/// Argon2id's cost. Stored (in clear) beside the salt in the space, so every device
/// derives the same key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KdfParams {
    /// Memory in KiB.
    pub memory_kib: u32,
    pub iterations: u32,
    pub lanes: u32,
}

impl KdfParams {
    /// OWASP's first Argon2id setting: 19 MiB, 2 passes, one lane (about a second in a
    /// page, a tenth of that natively).
    pub const DEFAULT: KdfParams = KdfParams { memory_kib: 19 * 1024, iterations: 2, lanes: 1 };
    /// A cheap setting for tests only; a space created with it says so in its params.
    pub const TEST: KdfParams = KdfParams { memory_kib: 64, iterations: 1, lanes: 1 };
}

/// The space's encryption key. Never printed: `Debug` shows nothing of it.
#[derive(Clone)]
pub struct Key([u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(…)")
    }
}

/// What the check of a key or a record found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CryptoError {
    /// The KDF refused its parameters (a corrupt or hostile space header).
    Params(String),
    /// The bytes did not authenticate under this key: tampered, cut short, or sealed under
    /// another key.
    Unauthentic,
}

impl std::fmt::Display for CryptoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CryptoError::Params(m) => write!(f, "the space's key settings are unusable ({m})"),
            CryptoError::Unauthentic => f.write_str("the bytes do not authenticate under this key"),
        }
    }
}

/// The words sealed in a space's key check: opening them proves the passphrase.
const CHECK: &[u8] = b"nocturne sync key check v1";
const NONCE_LEN: usize = 12;

impl Key {
    /// Derives the key from `passphrase` and the space's `salt`.
    pub fn derive(passphrase: &str, salt: &[u8], params: KdfParams) -> Result<Key, CryptoError> {
        let p = argon2::Params::new(params.memory_kib, params.iterations, params.lanes, Some(32))
            .map_err(|e| CryptoError::Params(e.to_string()))?;
        let argon = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, p);
        let mut key = [0u8; 32];
        argon
            .hash_password_into(passphrase.as_bytes(), salt, &mut key)
            .map_err(|e| CryptoError::Params(e.to_string()))?;
        Ok(Key(key))
    }

    /// Seals `plain`, bound to `aad` (the record's id, so a sealed record cannot be moved
    /// to another's place): nonce ‖ ciphertext ‖ tag.
    pub fn seal(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], plain: &[u8]) -> Vec<u8> {
        let cipher = Aes256Gcm::new((&self.0).into());
        // Encryption into a Vec cannot fail for inputs under 64 GiB.
        let sealed = cipher.encrypt(Nonce::from_slice(nonce), Payload { msg: plain, aad }).unwrap_or_default();
        let mut out = Vec::with_capacity(NONCE_LEN + sealed.len());
        out.extend_from_slice(nonce);
        out.extend_from_slice(&sealed);
        out
    }

    /// Opens what [`Key::seal`] made under the same `aad`.
    pub fn open(&self, aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, CryptoError> {
        if sealed.len() < NONCE_LEN + 16 {
            return Err(CryptoError::Unauthentic);
        }
        let (nonce, body) = sealed.split_at(NONCE_LEN);
        Aes256Gcm::new((&self.0).into())
            .decrypt(Nonce::from_slice(nonce), Payload { msg: body, aad })
            .map_err(|_| CryptoError::Unauthentic)
    }

    /// The key check a new space stores.
    pub fn check(&self, nonce: &[u8; NONCE_LEN]) -> Vec<u8> {
        self.seal(nonce, b"check", CHECK)
    }

    /// Whether this key opens the space's key `check` (false: a wrong passphrase).
    pub fn opens_check(&self, check: &[u8]) -> bool {
        self.open(b"check", check).is_ok_and(|p| p == CHECK)
    }
}

/// A SHA-256 digest as lowercase hex (a memory's head digest, compared across devices).
pub fn digest_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}
