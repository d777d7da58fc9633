//! Reading an encrypted file: [`FileDecryptor`] holds what the file's algorithm says (AAD
//! prefix and file identifier, GCM or GCM-CTR) and resolves keys; [`ColumnDecryptor`]
//! decrypts the modules of one column chunk.
//!
//! Keys are resolved once per key and kept as ready ciphers, so every chunk of a column
//! shares them.
//!
//! # Compatibility: DuckDB
//! DuckDB 2.0 (`COPY ... (ENCRYPTION_CONFIG {...})`) writes an encrypted footer whose
//! algorithm has no `aad_file_unique`, encrypts every module with an empty AAD and marks
//! no column with crypto metadata although every column is encrypted with the footer
//! key. A conformant file always has `aad_file_unique`, so its absence selects this rule:
//! empty AADs, and columns without crypto metadata under the footer key.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use herringbone_format::crypto::FOOTER_SIGNATURE_NONCE_LEN;
use herringbone_format::metadata::{ColumnCryptoMetaData, EncryptionAlgorithm};

use crate::crypto::aad::{ModuleType, module_aad};
use crate::crypto::cipher::{AesKey, CtrCipher, GcmCipher, NONCE_LEN, TAG_LEN, constant_time_eq};
use crate::crypto::module::{ModuleCipher, decrypt_module, gcm_signature_tag, module_len};
use crate::crypto::properties::{Algorithm, FileDecryptionProperties};
use crate::error::{Error, Result};

/// The ciphers of one key: GCM always, CTR for page bodies under `AES_GCM_CTR_V1`.
#[derive(Debug)]
pub(crate) struct KeyCiphers {
    pub(crate) gcm: GcmCipher,
    pub(crate) ctr: Option<CtrCipher>,
}

impl KeyCiphers {
    pub(crate) fn new(key: &AesKey, algorithm: Algorithm) -> Self {
        Self {
            gcm: GcmCipher::new(key),
            ctr: (algorithm == Algorithm::AesGcmCtrV1).then(|| CtrCipher::new(key)),
        }
    }

    /// The cipher of a module: CTR for page bodies when the algorithm says so.
    pub(crate) fn for_module(&self, module: ModuleType) -> ModuleCipher<'_> {
        match &self.ctr {
            Some(ctr) if module.is_page() => ModuleCipher::Ctr(ctr),
            _ => ModuleCipher::Gcm(&self.gcm),
        }
    }
}

/// The parameters an `EncryptionAlgorithm` carries.
pub(crate) struct AlgorithmParameters<'a> {
    pub(crate) algorithm: Algorithm,
    pub(crate) aad_prefix: Option<&'a Bytes>,
    pub(crate) aad_file_unique: Option<&'a Bytes>,
    pub(crate) supply_aad_prefix: bool,
}

pub(crate) fn algorithm_parameters(
    algorithm: &EncryptionAlgorithm,
) -> Result<AlgorithmParameters<'_>> {
    match algorithm {
        EncryptionAlgorithm::AesGcmV1(p) => Ok(AlgorithmParameters {
            algorithm: Algorithm::AesGcmV1,
            aad_prefix: p.aad_prefix.as_ref(),
            aad_file_unique: p.aad_file_unique.as_ref(),
            supply_aad_prefix: p.supply_aad_prefix.unwrap_or(false),
        }),
        EncryptionAlgorithm::AesGcmCtrV1(p) => Ok(AlgorithmParameters {
            algorithm: Algorithm::AesGcmCtrV1,
            aad_prefix: p.aad_prefix.as_ref(),
            aad_file_unique: p.aad_file_unique.as_ref(),
            supply_aad_prefix: p.supply_aad_prefix.unwrap_or(false),
        }),
        other => Err(Error::unsupported(format!(
            "encryption algorithm {other:?} is not AES_GCM_V1 or AES_GCM_CTR_V1"
        ))),
    }
}

/// Column ciphers by dotted path and key metadata.
type ColumnCiphers = HashMap<(String, Option<Bytes>), Arc<KeyCiphers>>;

/// Decrypts the modules of one encrypted file.
pub struct FileDecryptor {
    properties: FileDecryptionProperties,
    algorithm: Algorithm,
    file_aad: Arc<[u8]>,
    empty_aad: bool,
    footer_key_metadata: Option<Bytes>,
    footer: OnceLock<Arc<KeyCiphers>>,
    /// Column ciphers by dotted path and key metadata (a key retriever is asked once).
    columns: Mutex<ColumnCiphers>,
}

impl fmt::Debug for FileDecryptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileDecryptor")
            .field("algorithm", &self.algorithm)
            .field("empty_aad", &self.empty_aad)
            .finish_non_exhaustive()
    }
}

impl FileDecryptor {
    /// A decryptor for a file encrypted with `algorithm` (from `FileCryptoMetaData`, or
    /// from `FileMetaData` with a plaintext footer), whose footer key has
    /// `footer_key_metadata`.
    ///
    /// The AAD prefix is the one the reader supplies, else the one the file stores; a
    /// file that asks for a supplied prefix without one given, or a supplied prefix that
    /// differs from the stored one, is an error.
    pub fn new(
        properties: &FileDecryptionProperties,
        algorithm: &EncryptionAlgorithm,
        footer_key_metadata: Option<Bytes>,
    ) -> Result<Self> {
        let params = algorithm_parameters(algorithm)?;
        let prefix: &[u8] = match (properties.aad_prefix(), params.aad_prefix) {
            (Some(supplied), Some(stored)) if supplied != &stored[..] => {
                return Err(Error::decryption(
                    "the AAD prefix given does not match the one the file stores",
                ));
            }
            (Some(supplied), _) => supplied,
            (None, Some(stored)) => stored,
            (None, None) if params.supply_aad_prefix => {
                return Err(Error::key_required(
                    "the file was written with an AAD prefix it does not store: supply it (aad_prefix)",
                ));
            }
            (None, None) => &[],
        };
        let empty_aad = params.aad_file_unique.is_none();
        let mut file_aad = prefix.to_vec();
        if let Some(unique) = params.aad_file_unique {
            file_aad.extend_from_slice(unique);
        }
        Ok(Self {
            properties: properties.clone(),
            algorithm: params.algorithm,
            file_aad: file_aad.into(),
            empty_aad,
            footer_key_metadata,
            footer: OnceLock::new(),
            columns: Mutex::new(HashMap::new()),
        })
    }

    /// The file's algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Whether the file has no `aad_file_unique` and is read by the DuckDB rule (module
    /// docs): empty AADs, every column under the footer key.
    pub fn is_empty_aad_file(&self) -> bool {
        self.empty_aad
    }

    /// The properties the decryptor was built with.
    pub fn properties(&self) -> &FileDecryptionProperties {
        &self.properties
    }

    fn aad(
        &self,
        module: ModuleType,
        row_group: usize,
        column: usize,
        page: Option<usize>,
    ) -> Result<Vec<u8>> {
        if self.empty_aad {
            return Ok(Vec::new());
        }
        module_aad(&self.file_aad, module, row_group, column, page)
    }

    fn resolve_footer_key(&self) -> Result<AesKey> {
        if let Some(key) = self.properties.footer_key() {
            return Ok(key.clone());
        }
        match (self.properties.key_retriever(), &self.footer_key_metadata) {
            (Some(retriever), Some(metadata)) => retriever
                .retrieve_key(metadata)
                .map_err(|e| e.context("footer key from its key metadata")),
            (Some(_), None) => Err(Error::key_required(
                "the footer key is needed: none was given and the file stores no key metadata for it",
            )),
            (None, _) => Err(Error::key_required(
                "the footer key is needed and none was given (footer_key or a key retriever)",
            )),
        }
    }

    pub(crate) fn footer_ciphers(&self) -> Result<Arc<KeyCiphers>> {
        if let Some(ciphers) = self.footer.get() {
            return Ok(ciphers.clone());
        }
        let key = self.resolve_footer_key()?;
        let ciphers = Arc::new(KeyCiphers::new(&key, self.algorithm));
        Ok(self.footer.get_or_init(|| ciphers).clone())
    }

    /// Decrypts an encrypted footer module (exactly its bytes) into the serialized
    /// `FileMetaData`.
    pub fn decrypt_footer(&self, module: &[u8]) -> Result<Vec<u8>> {
        let ciphers = self.footer_ciphers()?;
        let aad = self.aad(ModuleType::Footer, 0, 0, None)?;
        decrypt_module(ModuleCipher::Gcm(&ciphers.gcm), &aad, module)
            .map_err(|e| e.context("encrypted footer"))
    }

    /// Verifies a plaintext footer's signature (nonce and tag) over its serialized
    /// `FileMetaData`.
    pub fn verify_footer_signature(
        &self,
        signed: &[u8],
        signature: &[u8; NONCE_LEN + TAG_LEN],
    ) -> Result<()> {
        let ciphers = self.footer_ciphers()?;
        let aad = self.aad(ModuleType::Footer, 0, 0, None)?;
        let (nonce, tag) = signature.split_at(FOOTER_SIGNATURE_NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().expect("12 bytes");
        let expected = gcm_signature_tag(&ciphers.gcm, &nonce, &aad, signed)?;
        if constant_time_eq(&expected, tag) {
            Ok(())
        } else {
            Err(Error::decryption(
                "plaintext footer signature does not verify: wrong footer key, wrong AAD prefix or an altered footer",
            ))
        }
    }

    fn column_ciphers(&self, path: &str, key_metadata: Option<&Bytes>) -> Result<Arc<KeyCiphers>> {
        let cache_key = (path.to_string(), key_metadata.cloned());
        if let Some(found) = self.columns.lock().expect("not poisoned").get(&cache_key) {
            return Ok(found.clone());
        }
        let key = if let Some(key) = self.properties.column_key(path) {
            key.clone()
        } else {
            match (self.properties.key_retriever(), key_metadata) {
                (Some(retriever), Some(metadata)) => {
                    retriever.retrieve_key(metadata).map_err(|e| {
                        e.context(format!("key of column {path} from its key metadata"))
                    })?
                }
                _ => {
                    return Err(Error::key_required(format!(
                        "column {path} is encrypted with its own key and none was given{}",
                        match key_metadata {
                            Some(m) => format!(" (its key metadata: {})", describe_key_metadata(m)),
                            None => String::new(),
                        }
                    )));
                }
            }
        };
        let ciphers = Arc::new(KeyCiphers::new(&key, self.algorithm));
        self.columns
            .lock()
            .expect("not poisoned")
            .insert(cache_key, ciphers.clone());
        Ok(ciphers)
    }

    /// The decryptor of the chunk of column `path` (dotted) at `column` (leaf index) in
    /// row group `row_group`, or `None` when the chunk is not encrypted.
    ///
    /// A column key that is neither given nor found by the key retriever is an error of
    /// kind [`KeyRequired`](crate::ErrorKind::KeyRequired) naming the column.
    pub fn column(
        &self,
        path: &str,
        crypto_metadata: Option<&ColumnCryptoMetaData>,
        row_group: usize,
        column: usize,
    ) -> Result<Option<ColumnDecryptor>> {
        let ciphers = match crypto_metadata {
            None if self.empty_aad => self.footer_ciphers()?,
            None => return Ok(None),
            Some(ColumnCryptoMetaData::EncryptionWithFooterKey) => self
                .footer_ciphers()
                .map_err(|e| e.context(format!("column {path} (encrypted with the footer key)")))?,
            Some(ColumnCryptoMetaData::EncryptionWithColumnKey(k)) => {
                self.column_ciphers(path, k.key_metadata.as_ref())?
            }
            Some(other) => {
                return Err(Error::unsupported(format!(
                    "column {path}: unknown column crypto metadata {other:?}"
                )));
            }
        };
        Ok(Some(ColumnDecryptor {
            ciphers,
            file_aad: self.file_aad.clone(),
            empty_aad: self.empty_aad,
            row_group,
            column,
            path: path.into(),
        }))
    }

    /// Checks that every column given a key exists: `leaf_paths` are the dotted paths
    /// of the file's leaf columns.
    pub fn check_column_keys<'a>(
        &self,
        leaf_paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<()> {
        check_known_columns(self.properties.column_paths(), leaf_paths)
    }
}

pub(crate) fn check_known_columns<'a, 'b>(
    given: impl Iterator<Item = &'a str>,
    leaf_paths: impl IntoIterator<Item = &'b str>,
) -> Result<()> {
    let leaves: std::collections::HashSet<&str> = leaf_paths.into_iter().collect();
    let unknown: Vec<&str> = given.filter(|p| !leaves.contains(p)).collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let mut known: Vec<&str> = leaves.into_iter().collect();
    known.sort_unstable();
    Err(Error::invalid_argument(format!(
        "a key was given for column{} {} that the file does not have (its columns: {})",
        if unknown.len() > 1 { "s" } else { "" },
        unknown.join(", "),
        known.join(", ")
    )))
}

/// Key metadata as text when it is short printable ASCII (a key id such as `kc1`), else
/// its size.
fn describe_key_metadata(metadata: &[u8]) -> String {
    if metadata.len() <= 64 && metadata.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!("{:?}", String::from_utf8_lossy(metadata))
    } else {
        format!("{} bytes", metadata.len())
    }
}

/// Decrypts the modules of one column chunk: page headers and bodies, column and offset
/// index, Bloom filter header and bitset, and its `ColumnMetaData`.
#[derive(Clone)]
pub struct ColumnDecryptor {
    ciphers: Arc<KeyCiphers>,
    file_aad: Arc<[u8]>,
    empty_aad: bool,
    row_group: usize,
    column: usize,
    path: Arc<str>,
}

impl fmt::Debug for ColumnDecryptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ColumnDecryptor")
            .field("path", &self.path)
            .field("row_group", &self.row_group)
            .field("column", &self.column)
            .finish_non_exhaustive()
    }
}

impl ColumnDecryptor {
    /// The column's dotted path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The row group ordinal the AADs use.
    pub fn row_group(&self) -> usize {
        self.row_group
    }

    fn location(&self, module: ModuleType, page: Option<usize>) -> String {
        let page = match page {
            Some(p) if module.has_page_ordinal() => format!(" {p}"),
            _ => String::new(),
        };
        format!(
            "column {}, row group {}, {module}{page}",
            self.path, self.row_group
        )
    }

    fn aad(&self, module: ModuleType, page: Option<usize>) -> Result<Vec<u8>> {
        if self.empty_aad {
            return Ok(Vec::new());
        }
        module_aad(&self.file_aad, module, self.row_group, self.column, page)
    }

    /// Decrypts `bytes`, exactly one module of kind `module` (`page` is the data page
    /// ordinal for data pages and their headers).
    pub fn decrypt(
        &self,
        module: ModuleType,
        page: Option<usize>,
        bytes: &[u8],
    ) -> Result<Vec<u8>> {
        let aad = self
            .aad(module, page)
            .map_err(|e| e.context(self.location(module, page)))?;
        decrypt_module(self.ciphers.for_module(module), &aad, bytes)
            .map_err(|e| e.context(self.location(module, page)))
    }

    /// Whether the chunk is read by the DuckDB rule (module docs), whose page headers give
    /// `compressed_page_size` without the module's length, nonce and tag.
    pub fn is_empty_aad(&self) -> bool {
        self.empty_aad
    }

    /// The total size of the module of kind `module` at the start of `bytes`, from its
    /// length field (checked to fit in `bytes`).
    pub fn module_size(&self, module: ModuleType, bytes: &[u8]) -> Result<usize> {
        module_len(bytes, self.ciphers.for_module(module))
            .map_err(|e| e.context(self.location(module, None)))
    }

    /// Decrypts the module at the start of `bytes` (a page or Bloom filter header, whose
    /// size only its length field gives); returns the plaintext and the module's size.
    pub fn decrypt_prefix(
        &self,
        module: ModuleType,
        page: Option<usize>,
        bytes: &[u8],
    ) -> Result<(Vec<u8>, usize)> {
        let len = module_len(bytes, self.ciphers.for_module(module))
            .map_err(|e| e.context(self.location(module, page)))?;
        Ok((self.decrypt(module, page, &bytes[..len])?, len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::module::encrypt_module;
    use crate::error::ErrorKind;
    use herringbone_format::metadata::{AesGcmCtrV1, AesGcmV1, EncryptionWithColumnKey};

    fn gcm(
        prefix: Option<&[u8]>,
        unique: Option<&[u8]>,
        supply: Option<bool>,
    ) -> EncryptionAlgorithm {
        EncryptionAlgorithm::AesGcmV1(AesGcmV1 {
            aad_prefix: prefix.map(Bytes::copy_from_slice),
            aad_file_unique: unique.map(Bytes::copy_from_slice),
            supply_aad_prefix: supply,
        })
    }

    fn props() -> FileDecryptionProperties {
        FileDecryptionProperties::builder()
            .with_footer_key(b"0123456789012345".to_vec())
            .with_column_key("a.b", b"1234567890123450".to_vec())
            .build()
            .unwrap()
    }

    #[test]
    fn aad_prefix_rules() {
        let p = props();
        // Stored prefix is used.
        let d = FileDecryptor::new(&p, &gcm(Some(b"pre"), Some(b"u"), None), None).unwrap();
        assert_eq!(&d.file_aad[..], b"preu");
        // The file asks for a supplied prefix.
        let e = FileDecryptor::new(&p, &gcm(None, Some(b"u"), Some(true)), None).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::KeyRequired);
        let with_prefix = FileDecryptionProperties::builder()
            .with_aad_prefix(b"tester".to_vec())
            .build()
            .unwrap();
        let d = FileDecryptor::new(&with_prefix, &gcm(None, Some(b"u"), Some(true)), None).unwrap();
        assert_eq!(&d.file_aad[..], b"testeru");
        // A supplied prefix that differs from the stored one.
        let e = FileDecryptor::new(&with_prefix, &gcm(Some(b"other"), Some(b"u"), None), None)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Decryption);
        // No aad_file_unique: the DuckDB rule.
        let d = FileDecryptor::new(&p, &gcm(None, None, None), None).unwrap();
        assert!(d.is_empty_aad_file());
    }

    #[test]
    fn column_keys_resolve_and_missing_ones_name_the_column() {
        let algorithm = EncryptionAlgorithm::AesGcmCtrV1(AesGcmCtrV1 {
            aad_file_unique: Some(Bytes::from_static(b"uniq")),
            ..Default::default()
        });
        let d = FileDecryptor::new(&props(), &algorithm, None).unwrap();
        assert_eq!(d.algorithm(), Algorithm::AesGcmCtrV1);
        assert!(d.column("x", None, 0, 0).unwrap().is_none());
        let footer = ColumnCryptoMetaData::EncryptionWithFooterKey;
        assert!(d.column("x", Some(&footer), 0, 0).unwrap().is_some());
        let own = |path: &str| {
            ColumnCryptoMetaData::EncryptionWithColumnKey(EncryptionWithColumnKey {
                path_in_schema: path.split('.').map(Into::into).collect(),
                key_metadata: Some(Bytes::from_static(b"kc9")),
            })
        };
        let col = d.column("a.b", Some(&own("a.b")), 3, 1).unwrap().unwrap();
        assert_eq!(col.path(), "a.b");
        let e = d.column("c", Some(&own("c")), 0, 2).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::KeyRequired);
        assert_eq!(
            e.message(),
            "column c is encrypted with its own key and none was given (its key metadata: \"kc9\")"
        );
        let e = d.check_column_keys(["x", "c"]).unwrap_err();
        assert!(
            e.message()
                .contains("column a.b that the file does not have (its columns: c, x)"),
            "{e}"
        );
        d.check_column_keys(["x", "a.b"]).unwrap();
    }

    #[test]
    fn modules_decrypt_with_their_aad_and_errors_say_where() {
        let algorithm = gcm(None, Some(b"uniq"), None);
        let d = FileDecryptor::new(&props(), &algorithm, None).unwrap();
        let footer = ColumnCryptoMetaData::EncryptionWithFooterKey;
        let col = d.column("x", Some(&footer), 2, 5).unwrap().unwrap();
        let gcm = GcmCipher::new(&AesKey::new(b"0123456789012345").unwrap());
        let aad = module_aad(b"uniq", ModuleType::DataPageHeader, 2, 5, Some(7)).unwrap();
        let mut module = Vec::new();
        encrypt_module(ModuleCipher::Gcm(&gcm), &aad, &[b"header"], &mut module).unwrap();
        module.extend_from_slice(b"page bytes after the header");
        let (plain, len) = col
            .decrypt_prefix(ModuleType::DataPageHeader, Some(7), &module)
            .unwrap();
        assert_eq!(plain, b"header");
        assert_eq!(len, 4 + 12 + 6 + 16);
        // The same module under another page ordinal does not authenticate.
        let e = col
            .decrypt_prefix(ModuleType::DataPageHeader, Some(8), &module)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Decryption);
        assert!(
            e.message()
                .starts_with("column x, row group 2, data page header 8: AES-GCM tag mismatch"),
            "{e}"
        );
    }
}
