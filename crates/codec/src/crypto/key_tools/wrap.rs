//! Writing with the key tools: [`KeyWrapper`] draws a random data key per file and per
//! key, wraps it with a master key of the [`KmsClient`] (directly, or through a KEK per
//! master key that it draws once, wraps once and reuses), and stores the key material
//! in the file's `key_metadata` or in an [`ExternalKeyMaterial`] store.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;

use crate::crypto::cipher::{AesKey, random_bytes};
use crate::crypto::key_tools::kms::{KmsClient, encrypt_key_locally};
use crate::crypto::key_tools::material::{KeyMaterial, KeyMetadata};
use crate::crypto::key_tools::unwrap::ExternalKeyMaterial;
use crate::crypto::properties::{Algorithm, FileEncryptionProperties};
use crate::error::{Error, Result};

/// Which master keys protect a file, and how (the key tools' side of
/// [`FileEncryptionProperties`]).
///
/// ```
/// use herringbone_codec::crypto::key_tools::EncryptionConfiguration;
/// let config = EncryptionConfiguration::new("kf")
///     .with_column_master_key("kc1", ["ssn", "address.zip"])
///     .with_double_wrapping(true);
/// assert_eq!(config.footer_master_key_id(), "kf");
/// ```
#[derive(Debug, Clone)]
pub struct EncryptionConfiguration {
    footer_master_key_id: String,
    column_master_keys: Vec<(String, Vec<String>)>,
    double_wrapping: bool,
    data_key_bytes: usize,
    algorithm: Algorithm,
    plaintext_footer: bool,
    internal_key_material: bool,
}

impl EncryptionConfiguration {
    /// Every column under a data key wrapped by `footer_master_key_id` (uniform
    /// encryption), double wrapping, 128-bit data keys, `AES_GCM_V1`, encrypted footer,
    /// key material inside the file.
    pub fn new(footer_master_key_id: impl Into<String>) -> Self {
        Self {
            footer_master_key_id: footer_master_key_id.into(),
            column_master_keys: Vec::new(),
            double_wrapping: true,
            data_key_bytes: 16,
            algorithm: Algorithm::AesGcmV1,
            plaintext_footer: false,
            internal_key_material: true,
        }
    }

    /// Encrypts `columns` (dotted paths) with a data key wrapped by `master_key_id`;
    /// once any column is listed, unlisted columns are written in plaintext.
    pub fn with_column_master_key<I, S>(
        mut self,
        master_key_id: impl Into<String>,
        columns: I,
    ) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.column_master_keys.push((
            master_key_id.into(),
            columns.into_iter().map(Into::into).collect(),
        ));
        self
    }

    /// Wraps data keys with a KEK per master key (default) or with the master key.
    pub fn with_double_wrapping(mut self, double: bool) -> Self {
        self.double_wrapping = double;
        self
    }

    /// Data key size in bits: 128 (default), 192 or 256.
    pub fn with_data_key_bits(mut self, bits: usize) -> Self {
        self.data_key_bytes = bits / 8;
        self
    }

    /// The algorithm.
    pub fn with_algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// Leaves the footer in plaintext (signed).
    pub fn with_plaintext_footer(mut self, plaintext: bool) -> Self {
        self.plaintext_footer = plaintext;
        self
    }

    /// Keeps key material in the file (default) or in an external key material file.
    pub fn with_internal_key_material(mut self, internal: bool) -> Self {
        self.internal_key_material = internal;
        self
    }

    /// The footer's master key id.
    pub fn footer_master_key_id(&self) -> &str {
        &self.footer_master_key_id
    }
}

/// A KEK: the key, its identifier (base64) and its wrapping by the master key.
#[derive(Clone)]
struct Kek {
    key: AesKey,
    id: String,
    wrapped: String,
}

/// Creates [`FileEncryptionProperties`] whose keys are wrapped through a [`KmsClient`].
///
/// KEKs are drawn once per master key and reused for every file this wrapper
/// configures, so the KMS wraps each master key's KEK once.
pub struct KeyWrapper {
    kms: Arc<dyn KmsClient>,
    keks: Mutex<HashMap<String, Kek>>,
}

impl fmt::Debug for KeyWrapper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyWrapper")
            .field("kms", &self.kms)
            .finish_non_exhaustive()
    }
}

/// What [`KeyWrapper::file_encryption_properties`] returns.
#[derive(Debug)]
pub struct WrappedKeys {
    /// The properties to write the file with.
    pub properties: FileEncryptionProperties,
    /// The key material to store beside the file, with external key material.
    pub external: Option<ExternalKeyMaterial>,
}

impl KeyWrapper {
    /// A wrapper over `kms`.
    pub fn new(kms: Arc<dyn KmsClient>) -> Self {
        Self {
            kms,
            keks: Mutex::new(HashMap::new()),
        }
    }

    fn kek(&self, master_key_id: &str) -> Result<Kek> {
        if let Some(kek) = self.keks.lock().expect("not poisoned").get(master_key_id) {
            return Ok(kek.clone());
        }
        let mut key = [0u8; 16];
        random_bytes(&mut key)?;
        let mut id = [0u8; 16];
        random_bytes(&mut id)?;
        let kek = Kek {
            key: AesKey::new(&key)?,
            id: BASE64.encode(id),
            wrapped: self.kms.wrap_key(&key, master_key_id)?,
        };
        Ok(self
            .keks
            .lock()
            .expect("not poisoned")
            .entry(master_key_id.to_string())
            .or_insert(kek)
            .clone())
    }

    fn wrap(
        &self,
        dek: &[u8],
        master_key_id: &str,
        double: bool,
        is_footer_key: bool,
    ) -> Result<KeyMaterial> {
        let (wrapped_dek, kek_id, wrapped_kek) = if double {
            let kek = self.kek(master_key_id)?;
            let aad = BASE64.decode(&kek.id).expect("we encoded it");
            (
                encrypt_key_locally(dek, &kek.key, &aad)?,
                Some(kek.id),
                Some(kek.wrapped),
            )
        } else {
            (self.kms.wrap_key(dek, master_key_id)?, None, None)
        };
        Ok(KeyMaterial {
            is_footer_key,
            kms_instance_id: is_footer_key.then(|| "DEFAULT".into()),
            kms_instance_url: is_footer_key.then(|| "DEFAULT".into()),
            master_key_id: master_key_id.to_string(),
            wrapped_dek,
            double_wrapping: double,
            kek_id,
            wrapped_kek,
        })
    }

    /// Draws the file's data keys and wraps them as `config` says.
    pub fn file_encryption_properties(
        &self,
        config: &EncryptionConfiguration,
    ) -> Result<WrappedKeys> {
        if !matches!(config.data_key_bytes, 16 | 24 | 32) {
            return Err(Error::invalid_argument(format!(
                "data keys are 128, 192 or 256 bits, not {}",
                config.data_key_bytes * 8
            )));
        }
        let mut external = (!config.internal_key_material).then(ExternalKeyMaterial::new);
        let mut store = |name: String, material: KeyMaterial| -> Vec<u8> {
            match external.as_mut() {
                Some(ext) => {
                    ext.insert(name.clone(), &material);
                    KeyMetadata::External {
                        key_reference: name,
                    }
                    .to_json()
                    .into_bytes()
                }
                None => KeyMetadata::Internal(material).to_json().into_bytes(),
            }
        };
        let new_key = || -> Result<Vec<u8>> {
            let mut key = vec![0u8; config.data_key_bytes];
            random_bytes(&mut key)?;
            Ok(key)
        };
        let footer_key = new_key()?;
        let footer_material = self.wrap(
            &footer_key,
            &config.footer_master_key_id,
            config.double_wrapping,
            true,
        )?;
        let mut builder = FileEncryptionProperties::builder(footer_key)
            .with_footer_key_metadata(store("footerKey".into(), footer_material))
            .with_algorithm(config.algorithm)
            .with_plaintext_footer(config.plaintext_footer);
        let mut n = 0;
        for (master_key_id, columns) in &config.column_master_keys {
            for column in columns {
                let key = new_key()?;
                let material = self.wrap(&key, master_key_id, config.double_wrapping, false)?;
                let metadata = store(format!("columnKey{n}"), material);
                n += 1;
                builder = builder.with_column_key_and_metadata(column.clone(), key, Some(metadata));
            }
        }
        let properties = builder.build()?;
        Ok(WrappedKeys {
            properties,
            external,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::key_tools::kms::InMemoryKms;
    use crate::crypto::key_tools::unwrap::KmsKeyRetriever;
    use crate::crypto::properties::KeyRetriever;

    #[derive(Debug)]
    struct CountingKms {
        inner: InMemoryKms,
        wraps: std::sync::atomic::AtomicUsize,
    }

    impl KmsClient for CountingKms {
        fn wrap_key(&self, key: &[u8], id: &str) -> Result<String> {
            self.wraps
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.inner.wrap_key(key, id)
        }
        fn unwrap_key(&self, wrapped: &str, id: &str) -> Result<Vec<u8>> {
            self.inner.unwrap_key(wrapped, id)
        }
    }

    fn kms() -> Arc<CountingKms> {
        Arc::new(CountingKms {
            inner: InMemoryKms::new([
                ("kf", b"0123456789012345".to_vec()),
                ("kc1", b"1234567890123450".to_vec()),
            ])
            .unwrap(),
            wraps: Default::default(),
        })
    }

    #[test]
    fn wrapped_keys_unwrap_to_the_same_keys() {
        for (double, internal) in [(true, true), (false, true), (true, false), (false, false)] {
            let kms = kms();
            let wrapper = KeyWrapper::new(kms.clone());
            let config = EncryptionConfiguration::new("kf")
                .with_column_master_key("kc1", ["a", "b.c"])
                .with_double_wrapping(double)
                .with_data_key_bits(256)
                .with_internal_key_material(internal);
            let keys = wrapper.file_encryption_properties(&config).unwrap();
            let p = &keys.properties;
            assert_eq!(keys.external.is_none(), internal);
            let mut retriever = KmsKeyRetriever::new(kms.clone());
            if let Some(external) = keys.external.clone() {
                assert_eq!(external.len(), 3);
                let round = ExternalKeyMaterial::from_json(&external.to_json()).unwrap();
                retriever = retriever.with_external_key_material(round);
            }
            let footer = retriever
                .retrieve_key(p.footer_key_metadata().unwrap())
                .unwrap();
            assert_eq!(&footer, p.footer_key());
            assert_eq!(footer.bits(), 256);
            for column in ["a", "b.c"] {
                let key = p.column_key(column).unwrap();
                let got = retriever
                    .retrieve_key(key.key_metadata.as_ref().unwrap())
                    .unwrap();
                assert_eq!(got, key.key);
            }
            // Double wrapping wraps one KEK per master key, once across files.
            let wraps = kms.wraps.load(std::sync::atomic::Ordering::Relaxed);
            assert_eq!(wraps, if double { 2 } else { 3 });
            wrapper.file_encryption_properties(&config).unwrap();
            let again = kms.wraps.load(std::sync::atomic::Ordering::Relaxed);
            assert_eq!(again, if double { 2 } else { 6 });
        }
    }

    #[test]
    fn unknown_master_key_and_bad_sizes() {
        let wrapper = KeyWrapper::new(kms());
        let e = wrapper
            .file_encryption_properties(&EncryptionConfiguration::new("nope"))
            .unwrap_err();
        assert!(e.message().contains("no master key \"nope\""), "{e}");
        let e = wrapper
            .file_encryption_properties(&EncryptionConfiguration::new("kf").with_data_key_bits(100))
            .unwrap_err();
        assert!(e.message().contains("not 96"), "{e}");
    }
}
