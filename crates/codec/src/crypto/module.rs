//! The serialized form of an encrypted module: a 4-byte little-endian length, then the
//! 12-byte nonce, the ciphertext and (GCM only) the 16-byte tag; the length counts
//! everything after itself.
//!
//! ```text
//! GCM: | length (4) | nonce (12) | ciphertext (length - 28) | tag (16) |
//! CTR: | length (4) | nonce (12) | ciphertext (length - 12) |
//! ```
//!
//! Every length is checked against the bytes present before anything is allocated.
//!
//! ```
//! use herringbone_codec::crypto::{AesKey, GcmCipher, ModuleCipher, decrypt_module, encrypt_module};
//! let gcm = GcmCipher::new(&AesKey::new(&[7; 16]).unwrap());
//! let mut out = Vec::new();
//! encrypt_module(ModuleCipher::Gcm(&gcm), b"aad", &[b"hello ", b"world"], &mut out).unwrap();
//! assert_eq!(out.len(), 4 + 12 + 11 + 16);
//! let plain = decrypt_module(ModuleCipher::Gcm(&gcm), b"aad", &out).unwrap();
//! assert_eq!(plain, b"hello world");
//! assert!(decrypt_module(ModuleCipher::Gcm(&gcm), b"other aad", &out).is_err());
//! ```

use crate::crypto::cipher::{CtrCipher, GcmCipher, NONCE_LEN, TAG_LEN, random_bytes};
use crate::error::{Error, Result};

/// Bytes of the length field in front of every module.
pub const LENGTH_LEN: usize = 4;
/// Bytes a GCM module adds to its plaintext: length, nonce and tag.
pub const GCM_OVERHEAD: usize = LENGTH_LEN + NONCE_LEN + TAG_LEN;
/// Bytes a CTR module adds to its plaintext: length and nonce.
pub const CTR_OVERHEAD: usize = LENGTH_LEN + NONCE_LEN;

/// The cipher of one module: GCM for every module, or CTR for page bodies under
/// `AES_GCM_CTR_V1`.
#[derive(Debug, Clone, Copy)]
pub enum ModuleCipher<'a> {
    /// Authenticated AES-GCM.
    Gcm(&'a GcmCipher),
    /// AES-CTR (page bodies of `AES_GCM_CTR_V1`; not authenticated).
    Ctr(&'a CtrCipher),
}

impl ModuleCipher<'_> {
    /// Bytes the module adds to its plaintext.
    pub fn overhead(self) -> usize {
        match self {
            ModuleCipher::Gcm(_) => GCM_OVERHEAD,
            ModuleCipher::Ctr(_) => CTR_OVERHEAD,
        }
    }
}

/// The total size (length field included) of the module that starts `bytes`, checked to
/// fit in `bytes` and to hold at least a nonce (and a tag for GCM).
pub fn module_len(bytes: &[u8], cipher: ModuleCipher<'_>) -> Result<usize> {
    let Some(length) = bytes.get(..LENGTH_LEN) else {
        return Err(Error::corrupt(format!(
            "truncated module: {} bytes, too short for the 4-byte length",
            bytes.len()
        )));
    };
    let length = u32::from_le_bytes(length.try_into().expect("4 bytes")) as usize;
    let minimum = cipher.overhead() - LENGTH_LEN;
    if length < minimum {
        return Err(Error::corrupt(format!(
            "module length {length} is shorter than its nonce{} ({minimum} bytes)",
            if minimum > NONCE_LEN { " and tag" } else { "" }
        )));
    }
    let available = bytes.len() - LENGTH_LEN;
    if length > available {
        return Err(Error::corrupt(format!(
            "truncated module: its length field says {length} bytes but {available} follow"
        )));
    }
    Ok(LENGTH_LEN + length)
}

/// Encrypts the concatenation of `plaintext` as one module with a fresh random nonce and
/// appends it to `out`; returns the module's size.
pub fn encrypt_module(
    cipher: ModuleCipher<'_>,
    aad: &[u8],
    plaintext: &[&[u8]],
    out: &mut Vec<u8>,
) -> Result<usize> {
    let plain_len: usize = plaintext.iter().map(|s| s.len()).sum();
    let total = plain_len + cipher.overhead();
    let length = u32::try_from(total - LENGTH_LEN).map_err(|_| {
        Error::invalid_argument(format!(
            "module of {plain_len} bytes is too large to encrypt (the length field is 32 bits)"
        ))
    })?;
    let mut nonce = [0u8; NONCE_LEN];
    random_bytes(&mut nonce)?;
    out.reserve(total);
    let start = out.len();
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(&nonce);
    let body = out.len();
    for section in plaintext {
        out.extend_from_slice(section);
    }
    let data = &mut out[body..];
    match cipher {
        ModuleCipher::Gcm(gcm) => {
            let tag = gcm.seal_in_place(&nonce, aad, data);
            match tag {
                Ok(tag) => out.extend_from_slice(&tag),
                Err(e) => {
                    out.truncate(start);
                    return Err(e);
                }
            }
        }
        ModuleCipher::Ctr(ctr) => {
            if let Err(e) = ctr.apply_in_place(&nonce, data) {
                out.truncate(start);
                return Err(e);
            }
        }
    }
    Ok(total)
}

/// Decrypts `module`, which must be exactly one module (length field included), and
/// returns its plaintext; for GCM the tag is verified first.
pub fn decrypt_module(cipher: ModuleCipher<'_>, aad: &[u8], module: &[u8]) -> Result<Vec<u8>> {
    let len = module_len(module, cipher)?;
    if len != module.len() {
        return Err(Error::corrupt(format!(
            "module length field says {} bytes but the module spans {}",
            len - LENGTH_LEN,
            module.len() - LENGTH_LEN
        )));
    }
    let nonce: [u8; NONCE_LEN] = module[LENGTH_LEN..LENGTH_LEN + NONCE_LEN]
        .try_into()
        .expect("module_len checked the nonce fits");
    let rest = &module[LENGTH_LEN + NONCE_LEN..];
    match cipher {
        ModuleCipher::Gcm(gcm) => {
            let (ciphertext, tag) = rest.split_at(rest.len() - TAG_LEN);
            let tag: [u8; TAG_LEN] = tag.try_into().expect("16 bytes");
            let mut data = ciphertext.to_vec();
            gcm.open_in_place(&nonce, aad, &mut data, &tag)?;
            Ok(data)
        }
        ModuleCipher::Ctr(ctr) => {
            let mut data = rest.to_vec();
            ctr.apply_in_place(&nonce, &mut data)?;
            Ok(data)
        }
    }
}

/// Computes the GCM tag that signs `plaintext` under `nonce` and `aad` without keeping the
/// ciphertext: a plaintext footer's signature is its nonce and this tag.
pub fn gcm_signature_tag(
    gcm: &GcmCipher,
    nonce: &[u8; NONCE_LEN],
    aad: &[u8],
    plaintext: &[u8],
) -> Result<[u8; TAG_LEN]> {
    let mut scratch = plaintext.to_vec();
    gcm.seal_in_place(nonce, aad, &mut scratch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::cipher::AesKey;
    use crate::error::ErrorKind;

    #[test]
    fn layout_and_round_trip_for_both_ciphers() {
        let key = AesKey::new(&[1; 32]).unwrap();
        let gcm = GcmCipher::new(&key);
        let ctr = CtrCipher::new(&key);
        for cipher in [ModuleCipher::Gcm(&gcm), ModuleCipher::Ctr(&ctr)] {
            let mut out = vec![0xAA]; // modules append
            let n = encrypt_module(cipher, b"x", &[b"abc", b"", b"defg"], &mut out).unwrap();
            assert_eq!(n, 7 + cipher.overhead());
            assert_eq!(out.len(), 1 + n);
            let module = &out[1..];
            let length = u32::from_le_bytes(module[..4].try_into().unwrap()) as usize;
            assert_eq!(length, n - 4);
            assert_eq!(module_len(module, cipher).unwrap(), n);
            assert_eq!(decrypt_module(cipher, b"x", module).unwrap(), b"abcdefg");
        }
    }

    #[test]
    fn nonces_are_fresh_per_module() {
        let gcm = GcmCipher::new(&AesKey::new(&[1; 16]).unwrap());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        encrypt_module(ModuleCipher::Gcm(&gcm), b"", &[b"same"], &mut a).unwrap();
        encrypt_module(ModuleCipher::Gcm(&gcm), b"", &[b"same"], &mut b).unwrap();
        assert_ne!(a[4..16], b[4..16]);
        assert_ne!(a, b);
    }

    #[test]
    fn lengths_are_checked_against_the_bytes() {
        let gcm = GcmCipher::new(&AesKey::new(&[1; 16]).unwrap());
        let cipher = ModuleCipher::Gcm(&gcm);
        let mut module = Vec::new();
        encrypt_module(cipher, b"", &[b"payload"], &mut module).unwrap();
        // Truncated: fewer bytes than the length says.
        let e = decrypt_module(cipher, b"", &module[..module.len() - 1]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Corrupt);
        assert!(e.message().contains("truncated module"), "{e}");
        // Trailing bytes after the module.
        let mut long = module.clone();
        long.push(0);
        assert!(decrypt_module(cipher, b"", &long).is_err());
        // A length shorter than nonce + tag.
        let e = module_len(&[27, 0, 0, 0], cipher).unwrap_err();
        assert!(
            e.message().contains("shorter than its nonce and tag"),
            "{e}"
        );
        assert!(module_len(&[1, 0], cipher).is_err());
        // A length far past the bytes present is refused before any allocation.
        let e = module_len(&[0xff, 0xff, 0xff, 0xff, 0, 0], cipher).unwrap_err();
        assert!(e.message().contains("4294967295"), "{e}");
        // Every single-bit change is caught by the tag (or the length checks).
        for i in 0..module.len() {
            let mut bad = module.clone();
            bad[i] ^= 0x10;
            assert!(decrypt_module(cipher, b"", &bad).is_err(), "byte {i}");
        }
    }

    #[test]
    fn signature_tag_equals_the_module_tag() {
        let gcm = GcmCipher::new(&AesKey::new(&[5; 24]).unwrap());
        let nonce = [3u8; 12];
        let tag = gcm_signature_tag(&gcm, &nonce, b"aad", b"footer").unwrap();
        let mut data = b"footer".to_vec();
        assert_eq!(gcm.seal_in_place(&nonce, b"aad", &mut data).unwrap(), tag);
    }
}
