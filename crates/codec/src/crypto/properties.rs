//! What a reader or writer is told about keys: [`FileDecryptionProperties`] and
//! [`FileEncryptionProperties`], each built with a builder, and the [`KeyRetriever`]
//! hook that turns a file's `key_metadata` into a key.
//!
//! Columns are named by their dotted Parquet path (`a.b.list.element`), as
//! `ColumnMetaData::path_in_schema` joined with `.`.
//!
//! ```
//! use herringbone_codec::crypto::{Algorithm, FileDecryptionProperties, FileEncryptionProperties};
//! let write = FileEncryptionProperties::builder(b"0123456789012345".to_vec())
//!     .with_footer_key_metadata(b"kf".to_vec())
//!     .with_column_key("ssn", b"1234567890123450".to_vec())
//!     .with_algorithm(Algorithm::AesGcmCtrV1)
//!     .with_aad_prefix(b"table.part0".to_vec())
//!     .build()
//!     .unwrap();
//! assert!(write.column_key("ssn").is_some());
//! let read = FileDecryptionProperties::builder()
//!     .with_footer_key(b"0123456789012345".to_vec())
//!     .with_column_key("ssn", b"1234567890123450".to_vec())
//!     .build()
//!     .unwrap();
//! assert!(read.footer_key().is_some());
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use bytes::Bytes;

use crate::crypto::cipher::AesKey;
use crate::error::{Error, Result};

/// Turns the `key_metadata` a writer stored (for the footer or a column) into the key.
///
/// Implement it for a key management system; [`crate::crypto::key_tools`] has one that
/// understands the key material of Arrow C++ and parquet-java. An unknown key is an
/// error of kind [`KeyRequired`](crate::ErrorKind::KeyRequired).
pub trait KeyRetriever: Send + Sync + fmt::Debug {
    /// The key that `key_metadata` names.
    fn retrieve_key(&self, key_metadata: &[u8]) -> Result<AesKey>;
}

/// The two encryption algorithms of the specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Algorithm {
    /// `AES_GCM_V1`: every module with AES-GCM.
    #[default]
    AesGcmV1,
    /// `AES_GCM_CTR_V1`: page bodies with AES-CTR, every other module with AES-GCM.
    AesGcmCtrV1,
}

fn key(bytes: Vec<u8>, what: &str) -> Result<AesKey> {
    AesKey::new(&bytes).map_err(|e| e.context(what))
}

/// Keys and options for reading an encrypted file.
///
/// Keys are given directly (the footer key, column keys by dotted path) or found
/// through a [`KeyRetriever`] from the file's `key_metadata`; a directly given key wins.
#[derive(Clone)]
pub struct FileDecryptionProperties {
    footer_key: Option<AesKey>,
    column_keys: BTreeMap<String, AesKey>,
    aad_prefix: Option<Vec<u8>>,
    key_retriever: Option<Arc<dyn KeyRetriever>>,
    verify_footer_signature: bool,
    allow_plaintext_files: bool,
}

impl fmt::Debug for FileDecryptionProperties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileDecryptionProperties")
            .field("footer_key", &self.footer_key)
            .field("column_keys", &self.column_keys)
            .field("aad_prefix", &self.aad_prefix.as_ref().map(|_| "<set>"))
            .field("key_retriever", &self.key_retriever)
            .field("verify_footer_signature", &self.verify_footer_signature)
            .field("allow_plaintext_files", &self.allow_plaintext_files)
            .finish()
    }
}

impl FileDecryptionProperties {
    /// A builder with no keys, footer signatures verified, plaintext files refused.
    pub fn builder() -> FileDecryptionPropertiesBuilder {
        FileDecryptionPropertiesBuilder::default()
    }

    /// The footer key, when given directly.
    pub fn footer_key(&self) -> Option<&AesKey> {
        self.footer_key.as_ref()
    }

    /// The key given for the column at dotted path `path`.
    pub fn column_key(&self, path: &str) -> Option<&AesKey> {
        self.column_keys.get(path)
    }

    /// Dotted paths of the columns given keys.
    pub fn column_paths(&self) -> impl Iterator<Item = &str> {
        self.column_keys.keys().map(String::as_str)
    }

    /// The AAD prefix supplied by the reader.
    pub fn aad_prefix(&self) -> Option<&[u8]> {
        self.aad_prefix.as_deref()
    }

    /// The key retriever.
    pub fn key_retriever(&self) -> Option<&Arc<dyn KeyRetriever>> {
        self.key_retriever.as_ref()
    }

    /// Whether a plaintext footer's signature is verified (default true).
    pub fn verify_footer_signature(&self) -> bool {
        self.verify_footer_signature
    }

    /// Whether a file that is not encrypted at all may be read with these properties
    /// (default false: an unencrypted file where an encrypted one was expected is an
    /// error).
    pub fn allow_plaintext_files(&self) -> bool {
        self.allow_plaintext_files
    }
}

/// Builds [`FileDecryptionProperties`]; keys are checked in [`build`](Self::build).
#[derive(Default)]
pub struct FileDecryptionPropertiesBuilder {
    footer_key: Option<Vec<u8>>,
    column_keys: Vec<(String, Vec<u8>)>,
    aad_prefix: Option<Vec<u8>>,
    key_retriever: Option<Arc<dyn KeyRetriever>>,
    skip_footer_signature: bool,
    allow_plaintext_files: bool,
}

impl fmt::Debug for FileDecryptionPropertiesBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileDecryptionPropertiesBuilder")
            .field(
                "columns",
                &self.column_keys.iter().map(|c| &c.0).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl FileDecryptionPropertiesBuilder {
    /// The key of the footer (and of the columns encrypted with it): 16, 24 or 32 bytes.
    pub fn with_footer_key(mut self, key: Vec<u8>) -> Self {
        self.footer_key = Some(key);
        self
    }

    /// The key of the column at dotted path `path` (e.g. `lst.list.element`).
    pub fn with_column_key(mut self, path: impl Into<String>, key: Vec<u8>) -> Self {
        self.column_keys.push((path.into(), key));
        self
    }

    /// The AAD prefix, for files written without storing it (and checked against a
    /// stored one).
    pub fn with_aad_prefix(mut self, prefix: Vec<u8>) -> Self {
        self.aad_prefix = Some(prefix);
        self
    }

    /// Finds keys from the file's `key_metadata` when they are not given directly.
    pub fn with_key_retriever(mut self, retriever: Arc<dyn KeyRetriever>) -> Self {
        self.key_retriever = Some(retriever);
        self
    }

    /// Reads a plaintext footer without verifying its signature (for debugging files
    /// whose footer key is unknown; the footer is then not authenticated).
    pub fn without_footer_signature_verification(mut self) -> Self {
        self.skip_footer_signature = true;
        self
    }

    /// Lets these properties read files that are not encrypted.
    pub fn with_allow_plaintext_files(mut self, allow: bool) -> Self {
        self.allow_plaintext_files = allow;
        self
    }

    /// Checks every key's length and that no column is given two keys.
    pub fn build(self) -> Result<FileDecryptionProperties> {
        let footer_key = self.footer_key.map(|k| key(k, "footer key")).transpose()?;
        let mut column_keys = BTreeMap::new();
        for (path, bytes) in self.column_keys {
            let k = key(bytes, &format!("key of column {path}"))?;
            if column_keys.insert(path.clone(), k).is_some() {
                return Err(Error::invalid_argument(format!(
                    "column {path} is given two keys"
                )));
            }
        }
        Ok(FileDecryptionProperties {
            footer_key,
            column_keys,
            aad_prefix: self.aad_prefix,
            key_retriever: self.key_retriever,
            verify_footer_signature: !self.skip_footer_signature,
            allow_plaintext_files: self.allow_plaintext_files,
        })
    }
}

/// A column's key and the `key_metadata` stored with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnKey {
    /// The key.
    pub key: AesKey,
    /// Stored in the column's `EncryptionWithColumnKey` for readers' key retrievers.
    pub key_metadata: Option<Bytes>,
}

/// Keys and options for writing an encrypted file.
///
/// With no column keys every column is encrypted with the footer key ("uniform
/// encryption"); with column keys, those columns are encrypted with their keys and the
/// others are left in plaintext.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEncryptionProperties {
    footer_key: AesKey,
    footer_key_metadata: Option<Bytes>,
    column_keys: BTreeMap<String, ColumnKey>,
    algorithm: Algorithm,
    plaintext_footer: bool,
    aad_prefix: Option<Vec<u8>>,
    store_aad_prefix: bool,
}

impl FileEncryptionProperties {
    /// A builder around the footer key (16, 24 or 32 bytes).
    pub fn builder(footer_key: Vec<u8>) -> FileEncryptionPropertiesBuilder {
        FileEncryptionPropertiesBuilder {
            footer_key,
            footer_key_metadata: None,
            column_keys: Vec::new(),
            algorithm: Algorithm::AesGcmV1,
            plaintext_footer: false,
            aad_prefix: None,
            store_aad_prefix: true,
        }
    }

    /// The footer key.
    pub fn footer_key(&self) -> &AesKey {
        &self.footer_key
    }

    /// The footer key's metadata.
    pub fn footer_key_metadata(&self) -> Option<&Bytes> {
        self.footer_key_metadata.as_ref()
    }

    /// The key of the column at dotted path `path`, if it has its own.
    pub fn column_key(&self, path: &str) -> Option<&ColumnKey> {
        self.column_keys.get(path)
    }

    /// Dotted paths of the columns with their own keys.
    pub fn column_paths(&self) -> impl Iterator<Item = &str> {
        self.column_keys.keys().map(String::as_str)
    }

    /// Whether every column is encrypted with the footer key (no column keys given).
    pub fn is_uniform(&self) -> bool {
        self.column_keys.is_empty()
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Whether the footer is left in plaintext (and signed).
    pub fn plaintext_footer(&self) -> bool {
        self.plaintext_footer
    }

    /// The AAD prefix.
    pub fn aad_prefix(&self) -> Option<&[u8]> {
        self.aad_prefix.as_deref()
    }

    /// Whether the AAD prefix is stored in the file (else readers must supply it).
    pub fn store_aad_prefix(&self) -> bool {
        self.store_aad_prefix
    }
}

/// Builds [`FileEncryptionProperties`]; keys are checked in [`build`](Self::build).
pub struct FileEncryptionPropertiesBuilder {
    footer_key: Vec<u8>,
    footer_key_metadata: Option<Bytes>,
    column_keys: Vec<(String, Vec<u8>, Option<Bytes>)>,
    algorithm: Algorithm,
    plaintext_footer: bool,
    aad_prefix: Option<Vec<u8>>,
    store_aad_prefix: bool,
}

impl fmt::Debug for FileEncryptionPropertiesBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileEncryptionPropertiesBuilder")
            .field(
                "columns",
                &self.column_keys.iter().map(|c| &c.0).collect::<Vec<_>>(),
            )
            .field("algorithm", &self.algorithm)
            .field("plaintext_footer", &self.plaintext_footer)
            .finish_non_exhaustive()
    }
}

impl FileEncryptionPropertiesBuilder {
    /// Metadata stored with the footer key (`FileCryptoMetaData.key_metadata`, or
    /// `footer_signing_key_metadata` with a plaintext footer), for key retrievers.
    pub fn with_footer_key_metadata(mut self, metadata: Vec<u8>) -> Self {
        self.footer_key_metadata = Some(metadata.into());
        self
    }

    /// Encrypts the column at dotted path `path` with its own key.
    pub fn with_column_key(self, path: impl Into<String>, key: Vec<u8>) -> Self {
        self.with_column_key_and_metadata(path, key, None)
    }

    /// Encrypts the column at dotted path `path` with its own key and stores
    /// `key_metadata` with it.
    pub fn with_column_key_and_metadata(
        mut self,
        path: impl Into<String>,
        key: Vec<u8>,
        key_metadata: Option<Vec<u8>>,
    ) -> Self {
        self.column_keys
            .push((path.into(), key, key_metadata.map(Bytes::from)));
        self
    }

    /// `AES_GCM_V1` (the default) or `AES_GCM_CTR_V1`.
    pub fn with_algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// Leaves the footer in plaintext, signed with the footer key, so that readers
    /// without keys can read the plaintext columns.
    pub fn with_plaintext_footer(mut self, plaintext: bool) -> Self {
        self.plaintext_footer = plaintext;
        self
    }

    /// An AAD prefix that ties every module to this file's identity.
    pub fn with_aad_prefix(mut self, prefix: Vec<u8>) -> Self {
        self.aad_prefix = Some(prefix);
        self
    }

    /// Whether to store the AAD prefix in the file (default true); when false, readers
    /// must supply it.
    pub fn with_store_aad_prefix(mut self, store: bool) -> Self {
        self.store_aad_prefix = store;
        self
    }

    /// Checks every key's length and that no column is given two keys.
    pub fn build(self) -> Result<FileEncryptionProperties> {
        let footer_key = key(self.footer_key, "footer key")?;
        let mut column_keys = BTreeMap::new();
        for (path, bytes, key_metadata) in self.column_keys {
            let k = key(bytes, &format!("key of column {path}"))?;
            let column = ColumnKey {
                key: k,
                key_metadata,
            };
            if column_keys.insert(path.clone(), column).is_some() {
                return Err(Error::invalid_argument(format!(
                    "column {path} is given two keys"
                )));
            }
        }
        Ok(FileEncryptionProperties {
            footer_key,
            footer_key_metadata: self.footer_key_metadata,
            column_keys,
            algorithm: self.algorithm,
            plaintext_footer: self.plaintext_footer,
            aad_prefix: self.aad_prefix,
            store_aad_prefix: self.store_aad_prefix,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn builders_check_keys() {
        let e = FileDecryptionProperties::builder()
            .with_column_key("a.b", vec![0; 15])
            .build()
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.message().starts_with("key of column a.b: "), "{e}");
        let e = FileDecryptionProperties::builder()
            .with_column_key("a", vec![0; 16])
            .with_column_key("a", vec![1; 16])
            .build()
            .unwrap_err();
        assert!(e.message().contains("two keys"), "{e}");
        let e = FileEncryptionProperties::builder(vec![0; 20])
            .build()
            .unwrap_err();
        assert!(e.message().starts_with("footer key: "), "{e}");
        let p = FileEncryptionProperties::builder(vec![0; 24])
            .with_column_key_and_metadata("x", vec![1; 32], Some(b"kx".to_vec()))
            .build()
            .unwrap();
        assert!(!p.is_uniform());
        assert_eq!(p.column_key("x").unwrap().key.bits(), 256);
        assert_eq!(
            p.column_key("x").unwrap().key_metadata.as_deref(),
            Some(&b"kx"[..])
        );
        assert!(p.store_aad_prefix());
    }

    #[test]
    fn debug_never_prints_keys() {
        let p = FileDecryptionProperties::builder()
            .with_footer_key(b"0123456789012345".to_vec())
            .with_aad_prefix(b"secret-prefix".to_vec())
            .build()
            .unwrap();
        let text = format!("{p:?}");
        assert!(!text.contains("0123456789012345"), "{text}");
        assert!(!text.contains("secret-prefix"), "{text}");
        assert!(text.contains("AesKey(128 bits)"), "{text}");
    }
}
