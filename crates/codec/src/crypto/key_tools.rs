//! Key tools compatible with Arrow C++ and parquet-java ("envelope encryption"): each
//! file gets random data keys, wrapped with master keys that a key management system
//! keeps; the wrapped keys travel as JSON key material (`PKMT1`) in the file's
//! `key_metadata` or in an external key material file beside it.
//!
//! | piece | item |
//! |---|---|
//! | the KMS interface, local AES-GCM wrapping, a KMS for tests | [`KmsClient`], [`InMemoryKms`] |
//! | key material and key metadata JSON | [`KeyMaterial`], [`KeyMetadata`] |
//! | reading: a [`KeyRetriever`](crate::crypto::KeyRetriever) over a KMS | [`KmsKeyRetriever`], [`ExternalKeyMaterial`] |
//! | writing: data keys, single or double wrapping (one KEK per master key) | [`KeyWrapper`], [`EncryptionConfiguration`] |
//!
//! ```
//! use std::sync::Arc;
//! use herringbone_codec::crypto::KeyRetriever;
//! use herringbone_codec::crypto::key_tools::{EncryptionConfiguration, InMemoryKms, KeyWrapper, KmsKeyRetriever};
//!
//! let kms = Arc::new(InMemoryKms::new([("kf", b"0123456789012345".to_vec())]).unwrap());
//! let keys = KeyWrapper::new(kms.clone())
//!     .file_encryption_properties(&EncryptionConfiguration::new("kf"))
//!     .unwrap();
//! // A reader with the same KMS finds the footer key from its key metadata.
//! let retriever = KmsKeyRetriever::new(kms);
//! let metadata = keys.properties.footer_key_metadata().unwrap();
//! assert_eq!(&retriever.retrieve_key(metadata).unwrap(), keys.properties.footer_key());
//! ```

mod kms;
mod material;
mod unwrap;
mod wrap;

pub use kms::{InMemoryKms, KmsClient, decrypt_key_locally, encrypt_key_locally};
pub use material::{KEY_MATERIAL_TYPE, KeyMaterial, KeyMetadata};
pub use unwrap::{ExternalKeyMaterial, KmsKeyRetriever};
pub use wrap::{EncryptionConfiguration, KeyWrapper, WrappedKeys};
