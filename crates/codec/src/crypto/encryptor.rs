//! Writing an encrypted file: [`FileEncryptor`] draws the file's random identifier
//! (`aad_file_unique`), says which columns are encrypted with which key, and encrypts
//! the footer; [`ColumnEncryptor`] encrypts the modules of one column chunk.
//!
//! Every module gets a fresh random nonce. Each key counts its GCM invocations and
//! refuses to go past 2^32 (NIST SP 800-38D, section 8.3).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use herringbone_format::crypto::{FOOTER_SIGNATURE_NONCE_LEN, encode_footer_tail};
use herringbone_format::metadata::{
    AesGcmCtrV1, AesGcmV1, ColumnChunk, ColumnCryptoMetaData, EncryptionAlgorithm,
    EncryptionWithColumnKey, FileCryptoMetaData, FileMetaData,
};
use herringbone_format::thrift::{Text, ThriftStruct};

use crate::crypto::aad::{ModuleType, module_aad};
use crate::crypto::cipher::{NONCE_LEN, random_bytes};
use crate::crypto::decryptor::{KeyCiphers, check_known_columns};
use crate::crypto::module::{ModuleCipher, encrypt_module, gcm_signature_tag};
use crate::crypto::properties::{Algorithm, FileEncryptionProperties};
use crate::error::{Error, Result};

/// Bytes of the random file identifier (`aad_file_unique`), as Arrow C++ writes it.
pub const AAD_FILE_UNIQUE_LEN: usize = 8;

/// The most modules one key may encrypt.
const MAX_INVOCATIONS: u64 = 1 << 32;

/// A key's ciphers and its count of encryptions.
#[derive(Debug)]
struct CountingCiphers {
    ciphers: KeyCiphers,
    invocations: AtomicU64,
}

impl CountingCiphers {
    fn cipher(&self, module: ModuleType) -> Result<ModuleCipher<'_>> {
        let cipher = self.ciphers.for_module(module);
        if matches!(cipher, ModuleCipher::Gcm(_))
            && self.invocations.fetch_add(1, Ordering::Relaxed) >= MAX_INVOCATIONS
        {
            return Err(Error::invalid_argument(
                "this key has encrypted 2^32 modules, the most AES-GCM allows with random nonces: use another key",
            ));
        }
        Ok(cipher)
    }
}

/// Encrypts the modules of one file.
pub struct FileEncryptor {
    properties: FileEncryptionProperties,
    aad_file_unique: [u8; AAD_FILE_UNIQUE_LEN],
    file_aad: Arc<[u8]>,
    footer: Arc<CountingCiphers>,
    columns: BTreeMap<String, Arc<CountingCiphers>>,
}

impl fmt::Debug for FileEncryptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileEncryptor")
            .field("algorithm", &self.properties.algorithm())
            .field("plaintext_footer", &self.properties.plaintext_footer())
            .field("columns", &self.columns.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

fn counting(key: &crate::crypto::AesKey, algorithm: Algorithm) -> Arc<CountingCiphers> {
    Arc::new(CountingCiphers {
        ciphers: KeyCiphers::new(key, algorithm),
        invocations: AtomicU64::new(0),
    })
}

impl FileEncryptor {
    /// An encryptor with a fresh random file identifier.
    pub fn new(properties: FileEncryptionProperties) -> Result<Self> {
        let mut aad_file_unique = [0u8; AAD_FILE_UNIQUE_LEN];
        random_bytes(&mut aad_file_unique)?;
        let mut file_aad = properties.aad_prefix().unwrap_or_default().to_vec();
        file_aad.extend_from_slice(&aad_file_unique);
        let algorithm = properties.algorithm();
        let footer = counting(properties.footer_key(), algorithm);
        let columns = properties
            .column_paths()
            .map(|path| {
                let key = &properties.column_key(path).expect("listed path").key;
                let ciphers = if key == properties.footer_key() {
                    footer.clone()
                } else {
                    counting(key, algorithm)
                };
                (path.to_string(), ciphers)
            })
            .collect();
        Ok(Self {
            properties,
            aad_file_unique,
            file_aad: file_aad.into(),
            footer,
            columns,
        })
    }

    /// The properties.
    pub fn properties(&self) -> &FileEncryptionProperties {
        &self.properties
    }

    /// The magic at the start and end of the file: `PARE` with an encrypted footer.
    pub fn magic(&self) -> [u8; 4] {
        if self.properties.plaintext_footer() {
            herringbone_format::footer::MAGIC
        } else {
            herringbone_format::footer::MAGIC_ENCRYPTED_FOOTER
        }
    }

    /// The algorithm with its AAD parameters, as the file stores it.
    pub fn encryption_algorithm(&self) -> EncryptionAlgorithm {
        let (aad_prefix, supply_aad_prefix) = match self.properties.aad_prefix() {
            Some(prefix) if self.properties.store_aad_prefix() => {
                (Some(Bytes::copy_from_slice(prefix)), None)
            }
            Some(_) => (None, Some(true)),
            None => (None, None),
        };
        let aad_file_unique = Some(Bytes::copy_from_slice(&self.aad_file_unique));
        match self.properties.algorithm() {
            Algorithm::AesGcmV1 => EncryptionAlgorithm::AesGcmV1(AesGcmV1 {
                aad_prefix,
                aad_file_unique,
                supply_aad_prefix,
            }),
            Algorithm::AesGcmCtrV1 => EncryptionAlgorithm::AesGcmCtrV1(AesGcmCtrV1 {
                aad_prefix,
                aad_file_unique,
                supply_aad_prefix,
            }),
        }
    }

    /// Checks that every column given a key exists among `leaf_paths` (dotted).
    pub fn check_column_keys<'a>(
        &self,
        leaf_paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<()> {
        check_known_columns(self.properties.column_paths(), leaf_paths)
    }

    /// The encryptor of the chunk of column `path` (dotted) at leaf index `column` in
    /// row group `row_group`, or `None` when the column is written in plaintext.
    pub fn column(
        &self,
        path: &str,
        row_group: usize,
        column: usize,
    ) -> Result<Option<ColumnEncryptor>> {
        let (ciphers, crypto_metadata) = if self.properties.is_uniform() {
            (
                self.footer.clone(),
                ColumnCryptoMetaData::EncryptionWithFooterKey,
            )
        } else if let Some(ciphers) = self.columns.get(path) {
            let key = self.properties.column_key(path).expect("listed path");
            (
                ciphers.clone(),
                ColumnCryptoMetaData::EncryptionWithColumnKey(EncryptionWithColumnKey {
                    path_in_schema: path.split('.').map(Text::from).collect(),
                    key_metadata: key.key_metadata.clone(),
                }),
            )
        } else {
            return Ok(None);
        };
        // Ordinals are checked here once, not on every page.
        module_aad(&[], ModuleType::ColumnMetaData, row_group, column, None)
            .map_err(|e| e.context(format!("column {path}")))?;
        Ok(Some(ColumnEncryptor {
            ciphers,
            file_aad: self.file_aad.clone(),
            row_group,
            column,
            path: path.into(),
            crypto_metadata,
        }))
    }

    /// Seals a column chunk's metadata once the chunk is written: sets its crypto
    /// metadata and, unless the column uses the footer key under an encrypted footer,
    /// encrypts its `ColumnMetaData` into `encrypted_column_metadata`, leaving in
    /// `meta_data` nothing (encrypted footer) or a copy without statistics (plaintext
    /// footer, for readers without keys).
    pub fn seal_column_chunk(
        &self,
        chunk: &mut ColumnChunk,
        column: &ColumnEncryptor,
    ) -> Result<()> {
        chunk.crypto_metadata = Some(Box::new(column.crypto_metadata.clone()));
        let with_footer_key = matches!(
            column.crypto_metadata,
            ColumnCryptoMetaData::EncryptionWithFooterKey
        );
        let plaintext_footer = self.properties.plaintext_footer();
        if with_footer_key && !plaintext_footer {
            return Ok(());
        }
        let Some(meta) = chunk.meta_data.take() else {
            return Err(Error::invalid_argument(format!(
                "column {}: a chunk to encrypt has no metadata",
                column.path
            )));
        };
        let mut sealed = Vec::new();
        column.encrypt(
            ModuleType::ColumnMetaData,
            None,
            &[&meta.encode()],
            &mut sealed,
        )?;
        chunk.encrypted_column_metadata = Some(Box::new(sealed.into()));
        if plaintext_footer {
            let mut redacted = meta;
            redacted.statistics = None;
            redacted.encoding_stats = None;
            redacted.size_statistics = None;
            redacted.geospatial_statistics = None;
            chunk.meta_data = Some(redacted);
        }
        Ok(())
    }

    /// Appends the footer and its tail: `FileCryptoMetaData` and the encrypted
    /// `FileMetaData` then `PARE`, or the `FileMetaData` (naming the algorithm) with its
    /// signature then `PAR1`.
    pub fn write_footer(&self, metadata: &FileMetaData, out: &mut Vec<u8>) -> Result<()> {
        let footer_aad = module_aad(&self.file_aad, ModuleType::Footer, 0, 0, None)?;
        let start = out.len();
        if self.properties.plaintext_footer() {
            let mut metadata = metadata.clone();
            metadata.encryption_algorithm = Some(self.encryption_algorithm());
            metadata.footer_signing_key_metadata = self.properties.footer_key_metadata().cloned();
            let encoded = metadata.encode();
            let mut nonce = [0u8; NONCE_LEN];
            random_bytes(&mut nonce)?;
            let ModuleCipher::Gcm(gcm) = self.footer.cipher(ModuleType::Footer)? else {
                unreachable!("the footer is always GCM");
            };
            let tag = gcm_signature_tag(gcm, &nonce, &footer_aad, &encoded)?;
            out.extend_from_slice(&encoded);
            debug_assert_eq!(nonce.len(), FOOTER_SIGNATURE_NONCE_LEN);
            out.extend_from_slice(&nonce);
            out.extend_from_slice(&tag);
        } else {
            let crypto = FileCryptoMetaData {
                encryption_algorithm: self.encryption_algorithm(),
                key_metadata: self.properties.footer_key_metadata().cloned(),
            };
            out.extend_from_slice(&crypto.encode());
            let cipher = self.footer.cipher(ModuleType::Footer)?;
            encrypt_module(cipher, &footer_aad, &[&metadata.encode()], out)?;
        }
        encode_footer_tail(out.len() - start, !self.properties.plaintext_footer(), out)?;
        Ok(())
    }
}

/// Encrypts the modules of one column chunk.
#[derive(Clone)]
pub struct ColumnEncryptor {
    ciphers: Arc<CountingCiphers>,
    file_aad: Arc<[u8]>,
    row_group: usize,
    column: usize,
    path: Arc<str>,
    crypto_metadata: ColumnCryptoMetaData,
}

impl fmt::Debug for ColumnEncryptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ColumnEncryptor")
            .field("path", &self.path)
            .field("row_group", &self.row_group)
            .field("column", &self.column)
            .finish_non_exhaustive()
    }
}

impl ColumnEncryptor {
    /// The column's dotted path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The chunk's `crypto_metadata`.
    pub fn crypto_metadata(&self) -> &ColumnCryptoMetaData {
        &self.crypto_metadata
    }

    /// Bytes a module of kind `module` adds to its plaintext.
    pub fn overhead(&self, module: ModuleType) -> usize {
        self.ciphers.ciphers.for_module(module).overhead()
    }

    /// Encrypts the concatenation of `sections` as one module of kind `module` (`page`:
    /// the data page ordinal for data pages and their headers) and appends it to `out`;
    /// returns its size.
    pub fn encrypt(
        &self,
        module: ModuleType,
        page: Option<usize>,
        sections: &[&[u8]],
        out: &mut Vec<u8>,
    ) -> Result<usize> {
        let location = || {
            format!(
                "column {}, row group {}, {module}",
                self.path, self.row_group
            )
        };
        let aad = module_aad(&self.file_aad, module, self.row_group, self.column, page)
            .map_err(|e| e.context(location()))?;
        let cipher = self.ciphers.cipher(module)?;
        encrypt_module(cipher, &aad, sections, out).map_err(|e| e.context(location()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::decryptor::FileDecryptor;
    use crate::crypto::properties::FileDecryptionProperties;
    use herringbone_format::metadata::{ColumnMetaData, Statistics};

    fn props(plaintext_footer: bool) -> FileEncryptionProperties {
        FileEncryptionProperties::builder(b"0123456789012345".to_vec())
            .with_column_key("secret", b"1234567890123450".to_vec())
            .with_algorithm(Algorithm::AesGcmCtrV1)
            .with_plaintext_footer(plaintext_footer)
            .with_aad_prefix(b"tbl".to_vec())
            .with_store_aad_prefix(false)
            .build()
            .unwrap()
    }

    #[test]
    fn algorithm_metadata_and_magic() {
        let e = FileEncryptor::new(props(false)).unwrap();
        assert_eq!(e.magic(), *b"PARE");
        let EncryptionAlgorithm::AesGcmCtrV1(p) = e.encryption_algorithm() else {
            panic!("CTR expected");
        };
        assert_eq!(p.aad_prefix, None);
        assert_eq!(p.supply_aad_prefix, Some(true));
        assert_eq!(p.aad_file_unique.as_ref().map(|u| u.len()), Some(8));
        let other = FileEncryptor::new(props(false)).unwrap();
        assert_ne!(e.aad_file_unique, other.aad_file_unique);
        assert_eq!(FileEncryptor::new(props(true)).unwrap().magic(), *b"PAR1");
    }

    #[test]
    fn only_keyed_columns_are_encrypted_unless_uniform() {
        let e = FileEncryptor::new(props(false)).unwrap();
        assert!(e.column("plain", 0, 0).unwrap().is_none());
        let c = e.column("secret", 0, 1).unwrap().unwrap();
        assert!(matches!(
            c.crypto_metadata(),
            ColumnCryptoMetaData::EncryptionWithColumnKey(k) if k.path_in_schema == ["secret"]
        ));
        let e = e.check_column_keys(["plain", "other"]).unwrap_err();
        assert!(
            e.message()
                .contains("column secret that the file does not have"),
            "{e}"
        );
        let uniform = FileEncryptor::new(
            FileEncryptionProperties::builder(vec![1; 32])
                .build()
                .unwrap(),
        )
        .unwrap();
        let c = uniform.column("anything", 4, 2).unwrap().unwrap();
        assert!(matches!(
            c.crypto_metadata(),
            ColumnCryptoMetaData::EncryptionWithFooterKey
        ));
        let e = uniform.column("far", 0, 40_000).unwrap_err();
        assert!(e.message().contains("column ordinal 40000"), "{e}");
    }

    #[test]
    fn sealed_chunks_hide_their_metadata_and_decrypt_back() {
        for plaintext_footer in [false, true] {
            let e = FileEncryptor::new(props(plaintext_footer)).unwrap();
            let column = e.column("secret", 1, 3).unwrap().unwrap();
            let meta = ColumnMetaData {
                num_values: 42,
                statistics: Some(Statistics {
                    null_count: Some(1),
                    ..Default::default()
                }),
                ..Default::default()
            };
            let mut chunk = ColumnChunk {
                meta_data: Some(meta.clone()),
                ..Default::default()
            };
            e.seal_column_chunk(&mut chunk, &column).unwrap();
            match &chunk.meta_data {
                None => assert!(!plaintext_footer),
                Some(redacted) => {
                    assert!(plaintext_footer);
                    assert_eq!(redacted.num_values, 42);
                    assert_eq!(redacted.statistics, None);
                }
            }
            let decryptor = FileDecryptor::new(
                &FileDecryptionProperties::builder()
                    .with_column_key("secret", b"1234567890123450".to_vec())
                    .with_aad_prefix(b"tbl".to_vec())
                    .build()
                    .unwrap(),
                &e.encryption_algorithm(),
                None,
            )
            .unwrap();
            let col = decryptor
                .column("secret", chunk.crypto_metadata.as_deref(), 1, 3)
                .unwrap()
                .unwrap();
            let plain = col
                .decrypt(
                    ModuleType::ColumnMetaData,
                    None,
                    chunk.encrypted_column_metadata.as_ref().unwrap(),
                )
                .unwrap();
            let decoded =
                herringbone_format::crypto::decode_column_metadata(&plain.into(), false).unwrap();
            assert_eq!(decoded, meta);
        }
    }
}
