//! The key management system interface ([`KmsClient`]), local key wrapping with AES-GCM,
//! and an in-memory KMS for tests ([`InMemoryKms`]).
//!
//! A locally wrapped key is `base64(nonce (12) | ciphertext | tag (16))`, encrypted with
//! AES-GCM under the wrapping key and an AAD, as Arrow C++ and parquet-java do (the
//! in-memory KMS uses the master key id as the AAD; a KEK wraps data keys with its
//! identifier's bytes as the AAD).
//!
//! ```
//! use herringbone_codec::crypto::key_tools::{InMemoryKms, KmsClient};
//! let kms = InMemoryKms::new([("kf", b"0123456789012345".to_vec())]).unwrap();
//! let wrapped = kms.wrap_key(b"a data key 16 by", "kf").unwrap();
//! assert_eq!(kms.unwrap_key(&wrapped, "kf").unwrap(), b"a data key 16 by");
//! assert!(kms.unwrap_key(&wrapped, "other").is_err());
//! ```

use std::collections::HashMap;
use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;

use crate::crypto::cipher::{AesKey, GcmCipher, NONCE_LEN, TAG_LEN, random_bytes};
use crate::error::{Error, Result};

/// A key management system: wraps and unwraps keys with master keys it keeps.
///
/// Implement it for a KMS (a cloud KMS, Vault, ...); the key tools call it to wrap the
/// data keys (or KEKs) of files they write and to unwrap them when reading.
pub trait KmsClient: Send + Sync + fmt::Debug {
    /// Wraps `key` with the master key `master_key_id`; returns text to store.
    fn wrap_key(&self, key: &[u8], master_key_id: &str) -> Result<String>;

    /// Unwraps what [`wrap_key`](Self::wrap_key) returned.
    fn unwrap_key(&self, wrapped: &str, master_key_id: &str) -> Result<Vec<u8>>;
}

/// Wraps `key` with AES-GCM under `wrapping_key` and `aad`: base64 of nonce, ciphertext
/// and tag.
pub fn encrypt_key_locally(key: &[u8], wrapping_key: &AesKey, aad: &[u8]) -> Result<String> {
    let mut nonce = [0u8; NONCE_LEN];
    random_bytes(&mut nonce)?;
    let mut data = key.to_vec();
    let tag = GcmCipher::new(wrapping_key).seal_in_place(&nonce, aad, &mut data)?;
    let mut out = Vec::with_capacity(NONCE_LEN + data.len() + TAG_LEN);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&data);
    out.extend_from_slice(&tag);
    Ok(BASE64.encode(out))
}

/// Unwraps a key wrapped by [`encrypt_key_locally`].
pub fn decrypt_key_locally(wrapped: &str, wrapping_key: &AesKey, aad: &[u8]) -> Result<Vec<u8>> {
    let bytes = BASE64
        .decode(wrapped.trim())
        .map_err(|e| Error::corrupt(format!("wrapped key is not base64: {e}")))?;
    if bytes.len() < NONCE_LEN + TAG_LEN {
        return Err(Error::corrupt(format!(
            "wrapped key of {} bytes is shorter than its nonce and tag ({} bytes)",
            bytes.len(),
            NONCE_LEN + TAG_LEN
        )));
    }
    let nonce: [u8; NONCE_LEN] = bytes[..NONCE_LEN].try_into().expect("12 bytes");
    let (ciphertext, tag) = bytes[NONCE_LEN..].split_at(bytes.len() - NONCE_LEN - TAG_LEN);
    let tag: [u8; TAG_LEN] = tag.try_into().expect("16 bytes");
    let mut data = ciphertext.to_vec();
    GcmCipher::new(wrapping_key)
        .open_in_place(&nonce, aad, &mut data, &tag)
        .map_err(|e| e.context("unwrapping a key"))?;
    Ok(data)
}

/// A KMS whose master keys are held in memory, wrapping locally with AES-GCM (AAD = the
/// master key id), like parquet-java's and Arrow C++'s test KMS. For tests and tools, not
/// for production secrets.
#[derive(Clone)]
pub struct InMemoryKms {
    master_keys: HashMap<String, AesKey>,
}

impl fmt::Debug for InMemoryKms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut ids: Vec<&String> = self.master_keys.keys().collect();
        ids.sort();
        f.debug_struct("InMemoryKms")
            .field("master_keys", &ids)
            .finish()
    }
}

impl InMemoryKms {
    /// A KMS holding these master keys (id, key of 16, 24 or 32 bytes).
    pub fn new<I, S>(master_keys: I) -> Result<Self>
    where
        I: IntoIterator<Item = (S, Vec<u8>)>,
        S: Into<String>,
    {
        let mut keys = HashMap::new();
        for (id, key) in master_keys {
            let id = id.into();
            let key = AesKey::new(&key).map_err(|e| e.context(format!("master key {id}")))?;
            keys.insert(id, key);
        }
        Ok(Self { master_keys: keys })
    }

    fn master_key(&self, id: &str) -> Result<&AesKey> {
        self.master_keys
            .get(id)
            .ok_or_else(|| Error::key_required(format!("the KMS has no master key {id:?}")))
    }
}

impl KmsClient for InMemoryKms {
    fn wrap_key(&self, key: &[u8], master_key_id: &str) -> Result<String> {
        encrypt_key_locally(
            key,
            self.master_key(master_key_id)?,
            master_key_id.as_bytes(),
        )
    }

    fn unwrap_key(&self, wrapped: &str, master_key_id: &str) -> Result<Vec<u8>> {
        decrypt_key_locally(
            wrapped,
            self.master_key(master_key_id)?,
            master_key_id.as_bytes(),
        )
        .map_err(|e| e.context(format!("master key {master_key_id}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    /// The corpus' `external_key_material_java` file: its footer KEK, wrapped by
    /// parquet-java's in-memory KMS with master key `kf`, unwraps to 16 bytes, and the
    /// footer data key under that KEK (AAD = the KEK id's bytes) to 16 bytes.
    #[test]
    fn unwraps_parquet_java_keys() {
        let kms = InMemoryKms::new([("kf", b"0123456789012345".to_vec())]).unwrap();
        let kek = kms
            .unwrap_key(
                "kWHNReXsULhmTplhvImESLFTXV91t5CyoqaEVYLk7k0jD8oeTDDJCUnIiCs=",
                "kf",
            )
            .unwrap();
        assert_eq!(kek.len(), 16);
        let kek_id = BASE64.decode("NFkiTmDXYzZMTb+O3b9nSA==").unwrap();
        let dek = decrypt_key_locally(
            "FLQDczpR9upRCqUjtzac5N1PbdduFekfeklLxi4VwOLul7un1iBcdAsJAXc=",
            &AesKey::new(&kek).unwrap(),
            &kek_id,
        )
        .unwrap();
        assert_eq!(dek.len(), 16);
    }

    #[test]
    fn wrong_master_key_and_bad_text_are_errors() {
        let kms = InMemoryKms::new([("a", vec![1; 16]), ("b", vec![2; 32])]).unwrap();
        let wrapped = kms.wrap_key(&[9; 24], "a").unwrap();
        let e = kms.unwrap_key(&wrapped, "b").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Decryption);
        assert!(
            e.message().starts_with("master key b: unwrapping a key"),
            "{e}"
        );
        let e = kms.unwrap_key(&wrapped, "c").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::KeyRequired);
        assert!(kms.unwrap_key("@@@", "a").is_err());
        assert!(kms.unwrap_key("AAAA", "a").is_err());
        assert!(InMemoryKms::new([("x", vec![0; 3])]).is_err());
    }
}
