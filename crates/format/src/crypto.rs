//! The byte layout of encrypted files' footers, without any cryptography: this crate
//! knows no cipher, so it hands out the bytes to decrypt or verify and decodes what the
//! caller decrypted (`herringbone_codec::crypto` does the cipher work).
//!
//! ```text
//! encrypted footer:  PARE | ... | FileCryptoMetaData | encrypted FileMetaData module | len | PARE
//! plaintext footer:  PAR1 | ... | FileMetaData | nonce (12) | tag (16)               | len | PAR1
//! ```
//!
//! `len` counts everything between the data and itself: the crypto metadata and the
//! module, or the metadata and its 28-byte signature.
//!
//! ```
//! use bytes::Bytes;
//! use herringbone_format::crypto::{FooterLocation, encode_footer_tail};
//! let mut file = b"PARE".to_vec();
//! file.extend_from_slice(&[9; 10]); // crypto metadata and encrypted footer
//! encode_footer_tail(10, true, &mut file).unwrap();
//! let location = FooterLocation::of_file(&file).unwrap();
//! assert!(location.encrypted_footer);
//! assert_eq!(location.range, 4..14);
//! ```

use std::ops::Range;

use bytes::Bytes;

use crate::error::{Error, Result};
use crate::footer::{FOOTER_TAIL_LEN, FooterOptions, FooterTail, MAGIC, MAGIC_ENCRYPTED_FOOTER};
use crate::metadata::{ColumnMetaData, FileCryptoMetaData, FileMetaData};
use crate::thrift::{CompactReader, ThriftStruct};

/// Bytes of a plaintext footer's signature: the 12-byte nonce and the 16-byte GCM tag.
pub const FOOTER_SIGNATURE_LEN: usize = 28;
/// Bytes of the nonce at the start of a footer signature.
pub const FOOTER_SIGNATURE_NONCE_LEN: usize = 12;

/// Where the footer of a whole file in memory lies, and which magic the file has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FooterLocation {
    /// The footer bytes: crypto metadata and encrypted module for `PARE`, metadata (and
    /// any signature) for `PAR1`.
    pub range: Range<usize>,
    /// Whether the file ends (and starts) with `PARE`.
    pub encrypted_footer: bool,
}

impl FooterLocation {
    /// Checks the size, the magic at both ends (the same at both) and the footer length.
    pub fn of_file(file: &[u8]) -> Result<FooterLocation> {
        let len = file.len();
        if len < MAGIC.len() + FOOTER_TAIL_LEN {
            return Err(Error::truncated(format!(
                "file of {len} bytes is too small for a Parquet file (at least 12 bytes)"
            )));
        }
        let mut tail = [0u8; FOOTER_TAIL_LEN];
        tail.copy_from_slice(&file[len - FOOTER_TAIL_LEN..]);
        let tail = FooterTail::parse(&tail).map_err(|e| e.shift_offset((len - 8) as u64))?;
        let expected = if tail.encrypted_footer {
            MAGIC_ENCRYPTED_FOOTER
        } else {
            MAGIC
        };
        if file[..4] != expected {
            return Err(Error::invalid(format!(
                "not a Parquet file: leading magic is {:02x?}, expected {:?} as at the end",
                &file[..4],
                String::from_utf8_lossy(&expected)
            ))
            .with_offset(0));
        }
        let available = len - FOOTER_TAIL_LEN - MAGIC.len();
        if tail.metadata_len > available {
            return Err(Error::invalid(format!(
                "footer length {} exceeds the {available} bytes between the magic numbers",
                tail.metadata_len
            ))
            .with_offset((len - FOOTER_TAIL_LEN) as u64));
        }
        let end = len - FOOTER_TAIL_LEN;
        Ok(FooterLocation {
            range: end - tail.metadata_len..end,
            encrypted_footer: tail.encrypted_footer,
        })
    }
}

/// An encrypted (`PARE`) footer split into its two parts.
#[derive(Debug, Clone, PartialEq)]
pub struct EncryptedFooter {
    /// The algorithm and the footer key's metadata.
    pub crypto_metadata: FileCryptoMetaData,
    /// The encrypted `FileMetaData` module (length field, nonce, ciphertext, tag).
    pub module: Bytes,
    /// Where the module starts, in the coordinates of the `base_offset` given.
    pub module_offset: u64,
}

/// Splits an encrypted footer (the bytes between the data and the 8-byte tail) into its
/// `FileCryptoMetaData` and the encrypted `FileMetaData` module that follows it.
pub fn split_encrypted_footer(footer: Bytes, base_offset: u64) -> Result<EncryptedFooter> {
    let mut r = CompactReader::from_bytes(&footer).with_base_offset(base_offset);
    let crypto_metadata = FileCryptoMetaData::read(&mut r)
        .map_err(|e| e.context("FileCryptoMetaData in front of the encrypted footer"))?;
    let position = r.position();
    Ok(EncryptedFooter {
        crypto_metadata,
        module: footer.slice(position..),
        module_offset: base_offset + position as u64,
    })
}

/// A plaintext footer: the metadata, the bytes it was decoded from and, when the file is
/// encrypted (the metadata names an `encryption_algorithm`), the signature after them.
#[derive(Debug, Clone, PartialEq)]
pub struct PlaintextFooter {
    /// The decoded metadata (selected as `FooterOptions` asked).
    pub metadata: FileMetaData,
    /// The serialized `FileMetaData`: what the signature signs.
    pub signed: Bytes,
    /// Nonce and tag, for files with an encrypted column and a plaintext footer.
    pub signature: Option<[u8; FOOTER_SIGNATURE_LEN]>,
}

/// Decodes a plaintext footer and splits off its signature.
///
/// A footer whose metadata names an `encryption_algorithm` must end with exactly the
/// 28-byte signature; other footers are decoded as [`decode_file_metadata`] does
/// (bytes after the metadata ignored).
///
/// [`decode_file_metadata`]: crate::footer::decode_file_metadata
pub fn decode_plaintext_footer(footer: Bytes, options: &FooterOptions) -> Result<PlaintextFooter> {
    let mut r = CompactReader::from_bytes(&footer)
        .with_base_offset(options.base_offset())
        .with_skip_statistics(options.skip_statistics());
    let metadata =
        if options.selected_row_groups().is_none() && options.selected_columns().is_none() {
            FileMetaData::read(&mut r)?
        } else {
            crate::footer::read_file_metadata_selected(&mut r, options)?
        };
    let end = r.position();
    let signature = if metadata.encryption_algorithm.is_some() {
        let rest = &footer[end..];
        let signature: [u8; FOOTER_SIGNATURE_LEN] = rest.try_into().map_err(|_| {
            Error::invalid(format!(
                "the plaintext footer of an encrypted file ends with a {FOOTER_SIGNATURE_LEN}-byte signature, but {} bytes follow the metadata",
                rest.len()
            ))
            .with_offset(options.base_offset() + end as u64)
        })?;
        Some(signature)
    } else {
        None
    };
    Ok(PlaintextFooter {
        metadata,
        signed: footer.slice(..end),
        signature,
    })
}

/// Decodes a `FileMetaData` decrypted from an encrypted footer. Offsets in errors are
/// positions in the decrypted bytes.
pub fn decode_decrypted_footer(plaintext: Bytes, options: &FooterOptions) -> Result<FileMetaData> {
    let options = options.clone().with_base_offset(0);
    crate::footer::decode_file_metadata(plaintext, &options)
        .map_err(|e| e.context("decrypted footer"))
}

/// Decodes a `ColumnMetaData` decrypted from a chunk's `encrypted_column_metadata`.
pub fn decode_column_metadata(plaintext: &Bytes, skip_statistics: bool) -> Result<ColumnMetaData> {
    let mut r = CompactReader::from_bytes(plaintext).with_skip_statistics(skip_statistics);
    ColumnMetaData::read(&mut r).map_err(|e| e.context("decrypted column metadata"))
}

/// Appends the footer tail: the 4-byte little-endian length of the `footer_len` bytes
/// before it and the magic (`PARE` when `encrypted_footer`, else `PAR1`).
pub fn encode_footer_tail(
    footer_len: usize,
    encrypted_footer: bool,
    out: &mut Vec<u8>,
) -> Result<()> {
    let len = u32::try_from(footer_len).map_err(|_| {
        Error::invalid(format!(
            "footer of {footer_len} bytes does not fit the 4-byte length field"
        ))
    })?;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(if encrypted_footer {
        &MAGIC_ENCRYPTED_FOOTER
    } else {
        &MAGIC
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use crate::metadata::{AesGcmV1, EncryptionAlgorithm, SchemaElement};

    fn meta(encrypted: bool) -> FileMetaData {
        FileMetaData {
            version: 1,
            schema: vec![SchemaElement {
                name: "schema".into(),
                num_children: Some(0),
                ..Default::default()
            }],
            encryption_algorithm: encrypted.then(|| {
                EncryptionAlgorithm::AesGcmV1(AesGcmV1 {
                    aad_file_unique: Some(Bytes::from_static(b"12345678")),
                    ..Default::default()
                })
            }),
            ..Default::default()
        }
    }

    #[test]
    fn plaintext_footer_signature_is_split_off() {
        let mut footer = meta(true).encode();
        let signed_len = footer.len();
        footer.extend_from_slice(&[7; 28]);
        let got =
            decode_plaintext_footer(Bytes::from(footer.clone()), &FooterOptions::new()).unwrap();
        assert_eq!(got.metadata, meta(true));
        assert_eq!(got.signed.len(), signed_len);
        assert_eq!(got.signature, Some([7; 28]));
        // A short signature is an error with the offset where it starts.
        footer.pop();
        let e = decode_plaintext_footer(
            Bytes::from(footer),
            &FooterOptions::new().with_base_offset(100),
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid);
        assert_eq!(e.offset(), Some(100 + signed_len as u64));
        // Unencrypted metadata has no signature.
        let plain =
            decode_plaintext_footer(Bytes::from(meta(false).encode()), &FooterOptions::new())
                .unwrap();
        assert_eq!(plain.signature, None);
    }

    #[test]
    fn encrypted_footer_is_split_after_the_crypto_metadata() {
        let crypto = FileCryptoMetaData {
            encryption_algorithm: EncryptionAlgorithm::AesGcmV1(AesGcmV1::default()),
            key_metadata: Some(Bytes::from_static(b"kf")),
        };
        let mut footer = crypto.encode();
        let n = footer.len();
        footer.extend_from_slice(b"MODULE");
        let split = split_encrypted_footer(Bytes::from(footer), 50).unwrap();
        assert_eq!(split.crypto_metadata, crypto);
        assert_eq!(&split.module[..], b"MODULE");
        assert_eq!(split.module_offset, 50 + n as u64);
        let e = split_encrypted_footer(Bytes::from_static(&[0x15]), 0).unwrap_err();
        assert!(e.to_string().contains("FileCryptoMetaData"), "{e}");
    }

    #[test]
    fn location_checks_both_magics() {
        let mut file = b"PAR1".to_vec();
        file.extend_from_slice(&[1; 5]);
        encode_footer_tail(5, true, &mut file).unwrap();
        let e = FooterLocation::of_file(&file).unwrap_err();
        assert!(e.to_string().contains("expected \"PARE\""), "{e}");
        file[..4].copy_from_slice(b"PARE");
        assert_eq!(
            FooterLocation::of_file(&file).unwrap(),
            FooterLocation {
                range: 4..9,
                encrypted_footer: true
            }
        );
        let n = file.len();
        file[n - 8..n - 4].copy_from_slice(&6u32.to_le_bytes());
        assert!(FooterLocation::of_file(&file).is_err());
    }
}
