//! The footer of an encrypted file, read with keys: decrypts an encrypted (`PARE`)
//! footer or verifies a plaintext footer's signature, then decrypts the metadata of the
//! column chunks encrypted with their own keys.
//!
//! `herringbone_format::crypto` finds the bytes; this module does the cipher work, so
//! `format` stays free of cryptography.
//!
//! ```
//! use bytes::Bytes;
//! use herringbone_codec::crypto::{FileDecryptionProperties, FileEncryptionProperties, FileEncryptor, decode_footer};
//! use herringbone_format::footer::FooterOptions;
//! use herringbone_format::metadata::{FileMetaData, SchemaElement};
//!
//! let meta = FileMetaData {
//!     version: 1,
//!     schema: vec![SchemaElement { name: "schema".into(), num_children: Some(0), ..Default::default() }],
//!     ..Default::default()
//! };
//! let key = b"0123456789012345".to_vec();
//! let encryptor = FileEncryptor::new(FileEncryptionProperties::builder(key.clone()).build().unwrap()).unwrap();
//! let mut tail = Vec::new();
//! encryptor.write_footer(&meta, &mut tail).unwrap();
//! let footer = Bytes::copy_from_slice(&tail[..tail.len() - 8]);
//! assert_eq!(&tail[tail.len() - 4..], b"PARE");
//!
//! let keys = FileDecryptionProperties::builder().with_footer_key(key).build().unwrap();
//! let read = decode_footer(footer, true, Some(&keys), &FooterOptions::new()).unwrap();
//! assert_eq!(read.metadata.schema, meta.schema);
//! assert!(read.decryptor.is_some());
//! ```

use std::sync::Arc;

use bytes::Bytes;
use herringbone_format::crypto::{
    decode_column_metadata, decode_decrypted_footer, decode_plaintext_footer,
    split_encrypted_footer,
};
use herringbone_format::footer::FooterOptions;
use herringbone_format::metadata::{ColumnCryptoMetaData, FileMetaData};

use crate::crypto::aad::ModuleType;
use crate::crypto::decryptor::FileDecryptor;
use crate::crypto::properties::FileDecryptionProperties;
use crate::error::{Error, ErrorKind, Result};

/// A footer read with (or without) keys.
#[derive(Debug)]
pub struct DecodedFooter {
    /// The metadata; chunks encrypted with a key that was available have their
    /// `meta_data` decrypted from `encrypted_column_metadata`.
    pub metadata: FileMetaData,
    /// The file's decryptor: `None` for a file that is not encrypted, and for an
    /// encrypted file with a plaintext footer read without keys.
    pub decryptor: Option<Arc<FileDecryptor>>,
}

/// Decodes the footer bytes (between the data and the 8-byte tail) of a file whose tail
/// said `encrypted_footer` (`PARE`) or not, with the keys in `properties`.
///
/// - `PARE`: keys are required; the footer is decrypted and decoded.
/// - `PAR1` of an encrypted file (the metadata names an algorithm): with keys, the
///   signature is verified (unless switched off); without keys, the metadata is returned
///   as it is, and only its plaintext columns can be read.
/// - `PAR1` of a plain file: returned as it is; with keys, an error unless the
///   properties allow plaintext files.
pub fn decode_footer(
    footer: Bytes,
    encrypted_footer: bool,
    properties: Option<&FileDecryptionProperties>,
    options: &FooterOptions,
) -> Result<DecodedFooter> {
    if encrypted_footer {
        let Some(properties) = properties else {
            return Err(Error::key_required(
                "encrypted footer: keys required (footer key or key retriever)",
            ));
        };
        let split = split_encrypted_footer(footer, options.base_offset())
            .map_err(metadata_error("encrypted footer"))?;
        let crypto = &split.crypto_metadata;
        let decryptor = FileDecryptor::new(
            properties,
            &crypto.encryption_algorithm,
            crypto.key_metadata.clone(),
        )?;
        let plaintext = decryptor.decrypt_footer(&split.module)?;
        let mut metadata = decode_decrypted_footer(Bytes::from(plaintext), options)
            .map_err(metadata_error("decrypted footer"))?;
        decrypt_column_metadata(&mut metadata, &decryptor, options)?;
        return Ok(DecodedFooter {
            metadata,
            decryptor: Some(Arc::new(decryptor)),
        });
    }
    let footer = decode_plaintext_footer(footer, options).map_err(metadata_error("footer"))?;
    let mut metadata = footer.metadata;
    let Some(algorithm) = metadata.encryption_algorithm.clone() else {
        if properties.is_some_and(|p| !p.allow_plaintext_files()) {
            return Err(Error::invalid_argument(
                "decryption keys were given but the file is not encrypted (allow plaintext files to read it anyway)",
            ));
        }
        return Ok(DecodedFooter {
            metadata,
            decryptor: None,
        });
    };
    let Some(properties) = properties else {
        return Ok(DecodedFooter {
            metadata,
            decryptor: None,
        });
    };
    let decryptor = FileDecryptor::new(
        properties,
        &algorithm,
        metadata.footer_signing_key_metadata.clone(),
    )?;
    if properties.verify_footer_signature() {
        let signature = footer
            .signature
            .as_ref()
            .expect("an encrypted file's plaintext footer has its signature");
        decryptor
            .verify_footer_signature(&footer.signed, signature)
            .map_err(|e| e.context("plaintext footer"))?;
    }
    decrypt_column_metadata(&mut metadata, &decryptor, options)?;
    Ok(DecodedFooter {
        metadata,
        decryptor: Some(Arc::new(decryptor)),
    })
}

fn metadata_error(what: &str) -> impl FnOnce(herringbone_format::Error) -> Error + '_ {
    move |e| Error::new(ErrorKind::Metadata, format!("invalid {what}")).with_source(e)
}

/// Replaces the `meta_data` of every chunk that has `encrypted_column_metadata` with its
/// decryption, where the chunk's key is available. A missing key leaves the chunk as it
/// is (reading its column fails later, naming the key); a key that does not decrypt the
/// metadata is an error here.
fn decrypt_column_metadata(
    metadata: &mut FileMetaData,
    decryptor: &FileDecryptor,
    options: &FooterOptions,
) -> Result<()> {
    let selected_row_groups = options.selected_row_groups();
    let selected_columns = options.selected_columns();
    for (k, row_group) in metadata.row_groups.iter_mut().enumerate() {
        let file_index = selected_row_groups.map_or(k, |s| s[k]);
        let ordinal = match row_group.ordinal {
            Some(ordinal) => usize::try_from(ordinal).map_err(|_| {
                Error::corrupt(format!(
                    "row group {file_index} has a negative ordinal {ordinal}"
                ))
            })?,
            None => file_index,
        };
        for (j, chunk) in row_group.columns.iter_mut().enumerate() {
            let Some(sealed) = chunk.encrypted_column_metadata.as_ref() else {
                continue;
            };
            let Some(crypto) = chunk.crypto_metadata.as_deref() else {
                continue;
            };
            let path = match crypto {
                ColumnCryptoMetaData::EncryptionWithColumnKey(k) => k.path_in_schema.join("."),
                _ => match &chunk.meta_data {
                    Some(meta) => meta.path_in_schema.join("."),
                    None => continue,
                },
            };
            let column = selected_columns.map_or(j, |s| s[j]);
            let column_decryptor = match decryptor.column(&path, Some(crypto), ordinal, column) {
                Ok(Some(d)) => d,
                Ok(None) => continue,
                Err(e) if e.kind() == ErrorKind::KeyRequired => continue,
                Err(e) => return Err(e),
            };
            let plaintext = column_decryptor.decrypt(ModuleType::ColumnMetaData, None, sealed)?;
            let decoded =
                decode_column_metadata(&Bytes::from(plaintext), options.skip_statistics())
                    .map_err(metadata_error(&format!(
                        "column {path}, row group {file_index}: decrypted column metadata"
                    )))?;
            chunk.meta_data = Some(decoded);
        }
    }
    Ok(())
}
