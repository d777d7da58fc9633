//! Parquet modular encryption: AES-GCM and AES-CTR module ciphers, the AAD of every
//! module, the serialized module layout, key properties for readers and writers, the
//! encrypted and signed footer, and key tools compatible with Arrow C++ and
//! parquet-java.
//!
//! | piece | module |
//! |---|---|
//! | AES keys, GCM (`ring`; AES-192 on `aes-gcm`), CTR (`aes` + `ctr`) | [`cipher`] |
//! | module AAD: file AAD, type, row group, column, page ordinals | [`aad`] |
//! | module layout: length, nonce, ciphertext, tag | [`module`] |
//! | [`FileDecryptionProperties`], [`FileEncryptionProperties`], [`KeyRetriever`] | [`properties`] |
//! | reading: [`FileDecryptor`], [`ColumnDecryptor`] | [`decryptor`] |
//! | writing: [`FileEncryptor`], [`ColumnEncryptor`] | [`encryptor`] |
//! | footer with keys: [`decode_footer`] | [`footer`] |
//! | column index, offset index, Bloom filter of an encrypted chunk | [`chunk`] |
//! | KMS, key material (PKMT1), single and double wrapping | [`key_tools`] |
//!
//! The reader hands each column chunk's [`ColumnDecryptor`] to the page reader
//! ([`crate::page::PageReader::with_decryptor`]); the writer hands a
//! [`ColumnEncryptor`] to the page writer ([`crate::page::PageWriter::with_encryptor`]).
//!
//! ```
//! use herringbone_codec::crypto::{FileDecryptionProperties, FileDecryptor, FileEncryptionProperties, FileEncryptor, ModuleType};
//!
//! let key = b"0123456789012345".to_vec();
//! let writer = FileEncryptor::new(FileEncryptionProperties::builder(key.clone()).build().unwrap()).unwrap();
//! let column = writer.column("x", 0, 0).unwrap().expect("uniform encryption covers every column");
//! let mut module = Vec::new();
//! column.encrypt(ModuleType::DictionaryPage, None, &[b"values"], &mut module).unwrap();
//!
//! let keys = FileDecryptionProperties::builder().with_footer_key(key).build().unwrap();
//! let reader = FileDecryptor::new(&keys, &writer.encryption_algorithm(), None).unwrap();
//! let column = reader.column("x", Some(column.crypto_metadata()), 0, 0).unwrap().unwrap();
//! assert_eq!(column.decrypt(ModuleType::DictionaryPage, None, &module).unwrap(), b"values");
//! ```

pub mod aad;
pub mod chunk;
pub mod cipher;
pub mod decryptor;
pub mod encryptor;
pub mod footer;
pub mod key_tools;
pub mod module;
pub mod properties;

pub use aad::{ModuleType, module_aad};
pub use chunk::{decrypt_bloom_filter, decrypt_column_index, decrypt_offset_index};
pub use cipher::{AesKey, CtrCipher, GcmCipher};
pub use decryptor::{ColumnDecryptor, FileDecryptor};
pub use encryptor::{ColumnEncryptor, FileEncryptor};
pub use footer::{DecodedFooter, decode_footer};
pub use module::{ModuleCipher, decrypt_module, encrypt_module};
pub use properties::{
    Algorithm, ColumnKey, FileDecryptionProperties, FileDecryptionPropertiesBuilder,
    FileEncryptionProperties, FileEncryptionPropertiesBuilder, KeyRetriever,
};
