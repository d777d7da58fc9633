//! The one cipher abstraction of modular encryption: AES keys of 128, 192 and 256 bits,
//! AES-GCM (authenticated, every module) and AES-CTR (page bodies of `AES_GCM_CTR_V1`).
//!
//! AES-GCM with 128- and 256-bit keys runs on `ring` (assembly, AES-NI and carry-less
//! multiplication); `ring` has neither AES-192 nor CTR, so AES-192-GCM runs on RustCrypto's
//! `aes-gcm` and CTR on RustCrypto's `aes` + `ctr` (both pick AES-NI at run time). Callers
//! see one type per mode and never which crate serves it.

use std::fmt;

use aes::cipher::{InnerIvInit, KeyInit, StreamCipher, StreamCipherCoreWrapper};
use aes_gcm::aead::AeadInOut;

use crate::error::{Error, Result};

/// Bytes of a module nonce (GCM nonce, and the first 12 bytes of a CTR IV).
pub const NONCE_LEN: usize = 12;
/// Bytes of a GCM authentication tag.
pub const TAG_LEN: usize = 16;

/// An AES key of 16, 24 or 32 bytes (AES-128, AES-192, AES-256).
///
/// `Debug` prints the key size only, never the key.
///
/// ```
/// use herringbone_codec::crypto::AesKey;
/// let key = AesKey::new(b"0123456789012345").unwrap();
/// assert_eq!(key.bits(), 128);
/// assert_eq!(format!("{key:?}"), "AesKey(128 bits)");
/// assert!(AesKey::new(b"short").is_err());
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct AesKey {
    bytes: Box<[u8]>,
}

impl AesKey {
    /// The key, checked to be 16, 24 or 32 bytes long.
    pub fn new(bytes: &[u8]) -> Result<Self> {
        match bytes.len() {
            16 | 24 | 32 => Ok(Self {
                bytes: bytes.into(),
            }),
            n => Err(Error::invalid_argument(format!(
                "an AES key is 16, 24 or 32 bytes (128, 192 or 256 bits), not {n} bytes"
            ))),
        }
    }

    /// Key size in bits.
    pub fn bits(&self) -> usize {
        self.bytes.len() * 8
    }

    /// The key bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl fmt::Debug for AesKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AesKey({} bits)", self.bits())
    }
}

type Aes192Gcm = aes_gcm::AesGcm<aes::Aes192, aes::cipher::consts::U12>;

/// Both boxed: ring's key schedule is ~550 bytes, and a cipher is built once per key.
enum GcmImpl {
    Ring(Box<ring::aead::LessSafeKey>),
    Aes192(Box<Aes192Gcm>),
}

/// AES-GCM with a 12-byte nonce and a 16-byte tag, for one key.
pub struct GcmCipher {
    imp: GcmImpl,
    bits: usize,
}

impl fmt::Debug for GcmCipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GcmCipher(AES-{})", self.bits)
    }
}

impl GcmCipher {
    /// A cipher for `key`.
    pub fn new(key: &AesKey) -> Self {
        let bits = key.bits();
        let ring_algorithm = match bits {
            128 => Some(&ring::aead::AES_128_GCM),
            256 => Some(&ring::aead::AES_256_GCM),
            _ => None,
        };
        let imp = match ring_algorithm {
            Some(algorithm) => {
                let unbound = ring::aead::UnboundKey::new(algorithm, key.as_bytes())
                    .expect("AesKey checked the key length");
                GcmImpl::Ring(Box::new(ring::aead::LessSafeKey::new(unbound)))
            }
            None => GcmImpl::Aes192(Box::new(
                Aes192Gcm::new_from_slice(key.as_bytes()).expect("AesKey checked the key length"),
            )),
        };
        Self { imp, bits }
    }

    /// Encrypts `data` in place and returns the tag.
    pub fn seal_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        data: &mut [u8],
    ) -> Result<[u8; TAG_LEN]> {
        let failed = || Error::invalid_argument("AES-GCM refused to encrypt a module");
        match &self.imp {
            GcmImpl::Ring(key) => {
                let tag = key
                    .seal_in_place_separate_tag(
                        ring::aead::Nonce::assume_unique_for_key(*nonce),
                        ring::aead::Aad::from(aad),
                        data,
                    )
                    .map_err(|_| failed())?;
                let mut out = [0u8; TAG_LEN];
                out.copy_from_slice(tag.as_ref());
                Ok(out)
            }
            GcmImpl::Aes192(cipher) => {
                let tag = cipher
                    .encrypt_inout_detached(&(*nonce).into(), aad, data.into())
                    .map_err(|_| failed())?;
                Ok(tag.into())
            }
        }
    }

    /// Decrypts `data` in place after verifying `tag`; on a mismatch (wrong key, wrong
    /// AAD or altered bytes) `data` is left unspecified and the result is an error of
    /// kind [`Decryption`](crate::ErrorKind::Decryption).
    pub fn open_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8; TAG_LEN],
    ) -> Result<()> {
        let failed = || {
            Error::decryption("AES-GCM tag mismatch: wrong key, wrong AAD prefix or altered bytes")
        };
        match &self.imp {
            GcmImpl::Ring(key) => key
                .open_in_place_separate_tag(
                    ring::aead::Nonce::assume_unique_for_key(*nonce),
                    ring::aead::Aad::from(aad),
                    ring::aead::Tag::from(*tag),
                    data,
                    0..,
                )
                .map(|_| ())
                .map_err(|_| failed()),
            GcmImpl::Aes192(cipher) => cipher
                .decrypt_inout_detached(&(*nonce).into(), aad, data.into(), &(*tag).into())
                .map_err(|_| failed()),
        }
    }
}

#[derive(Clone)]
enum CtrImpl {
    Aes128(aes::Aes128),
    Aes192(aes::Aes192),
    Aes256(aes::Aes256),
}

/// AES-CTR as `AES_GCM_CTR_V1` uses it: a 16-byte IV made of the 12-byte nonce and a
/// 32-bit big-endian block counter starting at 1.
#[derive(Clone)]
pub struct CtrCipher {
    imp: CtrImpl,
}

impl fmt::Debug for CtrCipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bits = match self.imp {
            CtrImpl::Aes128(_) => 128,
            CtrImpl::Aes192(_) => 192,
            CtrImpl::Aes256(_) => 256,
        };
        write!(f, "CtrCipher(AES-{bits})")
    }
}

impl CtrCipher {
    /// A cipher for `key`.
    pub fn new(key: &AesKey) -> Self {
        let bytes = key.as_bytes();
        let imp = match bytes.len() {
            16 => CtrImpl::Aes128(aes::Aes128::new_from_slice(bytes).expect("16-byte key")),
            24 => CtrImpl::Aes192(aes::Aes192::new_from_slice(bytes).expect("24-byte key")),
            _ => CtrImpl::Aes256(aes::Aes256::new_from_slice(bytes).expect("32-byte key")),
        };
        Self { imp }
    }

    /// XORs the key stream of `nonce` over `data` (encryption and decryption are the
    /// same operation).
    pub fn apply_in_place(&self, nonce: &[u8; NONCE_LEN], data: &mut [u8]) -> Result<()> {
        let mut iv = [0u8; 16];
        iv[..NONCE_LEN].copy_from_slice(nonce);
        iv[15] = 1;
        let iv = iv.into();
        let result = match &self.imp {
            CtrImpl::Aes128(aes) => StreamCipherCoreWrapper::from_core(ctr::CtrCore::<
                aes::Aes128,
                ctr::flavors::Ctr32BE,
            >::inner_iv_init(
                aes.clone(), &iv
            ))
            .try_apply_keystream(data),
            CtrImpl::Aes192(aes) => StreamCipherCoreWrapper::from_core(ctr::CtrCore::<
                aes::Aes192,
                ctr::flavors::Ctr32BE,
            >::inner_iv_init(
                aes.clone(), &iv
            ))
            .try_apply_keystream(data),
            CtrImpl::Aes256(aes) => StreamCipherCoreWrapper::from_core(ctr::CtrCore::<
                aes::Aes256,
                ctr::flavors::Ctr32BE,
            >::inner_iv_init(
                aes.clone(), &iv
            ))
            .try_apply_keystream(data),
        };
        result.map_err(|_| {
            Error::invalid_argument(format!(
                "AES-CTR module of {} bytes exceeds the 32-bit block counter",
                data.len()
            ))
        })
    }
}

/// Fills `out` with bytes from the operating system's secure random generator (nonces,
/// `aad_file_unique`, generated keys).
pub fn random_bytes(out: &mut [u8]) -> Result<()> {
    use ring::rand::SecureRandom;
    ring::rand::SystemRandom::new()
        .fill(out)
        .map_err(|_| Error::unsupported("the system random number generator failed"))
}

/// Whether two byte strings are equal, in time that depends only on their lengths.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Published AES-GCM vectors, one per key size (NIST's gcmEncryptExtIV for 128 and
    /// 256 bits, with AAD; the GCM specification's test case 9 for 192), so that each
    /// backend is checked against the standard rather than against itself.
    #[test]
    fn gcm_matches_nist_vectors() {
        // (key, iv, plaintext, aad, ciphertext, tag)
        let vectors = [
            (
                "c939cc13397c1d37de6ae0e1cb7c423c",
                "b3d8cc017cbb89b39e0f67e2",
                "c3b3c41f113a31b73d9a5cd432103069",
                "24825602bd12a984e0092d3e448eda5f",
                "93fe7d9e9bfd10348a5606e5cafa7354",
                "0032a1dc85f1c9786925a2e71d8272dd",
            ),
            // The GCM specification's test case 9 (AES-192).
            (
                "feffe9928665731c6d6a8f9467308308feffe9928665731c",
                "cafebabefacedbaddecaf888",
                "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
                 1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
                "",
                "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c\
                 7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710acade256",
                "9924a7c8587336bfb118024db8674a14",
            ),
            (
                "92e11dcdaa866f5ce790fd24501f92509aacf4cb8b1339d50c9c1240935dd08b",
                "ac93a1a6145299bde902f21a",
                "2d71bcfa914e4ac045b2aa60955fad24",
                "1e0889016f67601c8ebea4943bc23ad6",
                "8995ae2e6df3dbf96fac7b7137bae67f",
                "eca5aa77d51d4a0a14d9c51e1da474ab",
            ),
        ];
        for (key, iv, plaintext, aad, ciphertext, tag) in vectors {
            let cipher = GcmCipher::new(&AesKey::new(&hex(key)).unwrap());
            let nonce: [u8; 12] = hex(iv).try_into().unwrap();
            let mut data = hex(plaintext);
            let got_tag = cipher.seal_in_place(&nonce, &hex(aad), &mut data).unwrap();
            assert_eq!(data, hex(ciphertext), "{cipher:?}");
            assert_eq!(got_tag.to_vec(), hex(tag), "{cipher:?}");
            cipher
                .open_in_place(&nonce, &hex(aad), &mut data, &got_tag)
                .unwrap();
            assert_eq!(data, hex(plaintext));
            let mut bad_tag = got_tag;
            bad_tag[0] ^= 1;
            let mut data = hex(ciphertext);
            let e = cipher
                .open_in_place(&nonce, &hex(aad), &mut data, &bad_tag)
                .unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::Decryption);
        }
    }

    /// The key stream's block i is AES(key, nonce || be32(1 + i)), as the spec's IV
    /// layout says (checked against the raw block cipher, not against `ctr` itself).
    #[test]
    fn ctr_counter_starts_at_one_big_endian() {
        let key = AesKey::new(&hex("2b7e151628aed2a6abf7158809cf4f3c")).unwrap();
        let nonce = [7u8; 12];
        let ctr = CtrCipher::new(&key);
        let mut stream = vec![0u8; 48];
        ctr.apply_in_place(&nonce, &mut stream).unwrap();
        // Block i of the key stream is AES(key, nonce || be32(1 + i)).
        let aes = aes::Aes128::new_from_slice(key.as_bytes()).unwrap();
        for i in 0..3u32 {
            let mut block = [0u8; 16];
            block[..12].copy_from_slice(&nonce);
            block[12..].copy_from_slice(&(1 + i).to_be_bytes());
            let mut block = block.into();
            aes::cipher::BlockCipherEncrypt::encrypt_block(&aes, &mut block);
            assert_eq!(&stream[16 * i as usize..16 * (i as usize + 1)], &block[..]);
        }
    }

    #[test]
    fn ctr_round_trips_every_key_size() {
        for len in [16, 24, 32] {
            let key = AesKey::new(&vec![3u8; len]).unwrap();
            let ctr = CtrCipher::new(&key);
            let nonce = [9u8; 12];
            let plain: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
            let mut data = plain.clone();
            ctr.apply_in_place(&nonce, &mut data).unwrap();
            assert_ne!(data, plain);
            ctr.apply_in_place(&nonce, &mut data).unwrap();
            assert_eq!(data, plain);
        }
    }

    #[test]
    fn constant_time_eq_compares_contents_and_lengths() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
