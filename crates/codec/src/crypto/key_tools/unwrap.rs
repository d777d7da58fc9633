//! Reading keys written by the key tools of Arrow C++, parquet-java or [`super::KeyWrapper`]:
//! [`KmsKeyRetriever`] parses each `key_metadata`, fetches external key material when
//! the metadata points there, and unwraps the data key through the [`KmsClient`]
//! (directly, or through a KEK that it unwraps once per KEK and keeps).

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::Value;

use crate::crypto::cipher::AesKey;
use crate::crypto::key_tools::kms::{KmsClient, decrypt_key_locally};
use crate::crypto::key_tools::material::{KeyMaterial, KeyMetadata};
use crate::crypto::properties::KeyRetriever;
use crate::error::{Error, Result};

/// The key material of one file kept outside it: entry name (`footerKey`,
/// `columnKey0`, ...) to key material JSON, stored as a JSON object in
/// `_KEY_MATERIAL_FOR_<file name>.json` beside the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExternalKeyMaterial {
    entries: HashMap<String, String>,
}

impl ExternalKeyMaterial {
    /// An empty store (the writer fills it).
    pub fn new() -> Self {
        Self::default()
    }

    /// The name of the key material file of the Parquet file at `parquet_path`.
    pub fn file_name_for(parquet_path: &Path) -> Result<std::path::PathBuf> {
        let name = parquet_path.file_name().ok_or_else(|| {
            Error::invalid_argument(format!(
                "{} has no file name for its key material file",
                parquet_path.display()
            ))
        })?;
        let mut sidecar = std::ffi::OsString::from("_KEY_MATERIAL_FOR_");
        sidecar.push(name);
        sidecar.push(".json");
        Ok(parquet_path.with_file_name(sidecar))
    }

    /// Parses a key material file's JSON.
    pub fn from_json(text: &str) -> Result<Self> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| Error::corrupt(format!("key material file is not valid JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(Error::corrupt("key material file is not a JSON object"));
        };
        let mut entries = HashMap::with_capacity(map.len());
        for (name, material) in map {
            let Value::String(material) = material else {
                return Err(Error::corrupt(format!(
                    "key material file: entry {name} is not a string"
                )));
            };
            entries.insert(name, material);
        }
        Ok(Self { entries })
    }

    /// Reads the key material file of the Parquet file at `parquet_path`.
    pub fn read_for(parquet_path: &Path) -> Result<Self> {
        let sidecar = Self::file_name_for(parquet_path)?;
        let text = std::fs::read_to_string(&sidecar).map_err(|e| {
            Error::key_required(format!(
                "cannot read the key material file {}: {e}",
                sidecar.display()
            ))
        })?;
        Self::from_json(&text).map_err(|e| e.context(sidecar.display()))
    }

    /// The JSON of the whole store.
    pub fn to_json(&self) -> String {
        let mut names: Vec<&String> = self.entries.keys().collect();
        names.sort();
        let map: serde_json::Map<String, Value> = names
            .into_iter()
            .map(|n| (n.clone(), Value::String(self.entries[n].clone())))
            .collect();
        Value::Object(map).to_string()
    }

    /// Writes the key material file of the Parquet file at `parquet_path`.
    pub fn write_for(&self, parquet_path: &Path) -> Result<()> {
        let sidecar = Self::file_name_for(parquet_path)?;
        std::fs::write(&sidecar, self.to_json()).map_err(|e| {
            Error::invalid_argument(format!("cannot write {}: {e}", sidecar.display()))
        })
    }

    /// The material of entry `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.entries.get(name).map(String::as_str)
    }

    /// Adds (or replaces) entry `name`.
    pub fn insert(&mut self, name: impl Into<String>, material: &KeyMaterial) {
        self.entries.insert(name.into(), material.to_json());
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A [`KeyRetriever`] for files written with the key tools: unwraps data keys through a
/// [`KmsClient`], from internal key material or from an [`ExternalKeyMaterial`] store.
pub struct KmsKeyRetriever {
    kms: Arc<dyn KmsClient>,
    external: Option<ExternalKeyMaterial>,
    /// KEKs by their identifier: each is unwrapped by the KMS once.
    keks: Mutex<HashMap<String, AesKey>>,
}

impl fmt::Debug for KmsKeyRetriever {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KmsKeyRetriever")
            .field("kms", &self.kms)
            .field("external_entries", &self.external.as_ref().map(|e| e.len()))
            .finish_non_exhaustive()
    }
}

impl KmsKeyRetriever {
    /// A retriever for files with internal key material.
    pub fn new(kms: Arc<dyn KmsClient>) -> Self {
        Self {
            kms,
            external: None,
            keks: Mutex::new(HashMap::new()),
        }
    }

    /// Also resolves references into this file's external key material.
    pub fn with_external_key_material(mut self, external: ExternalKeyMaterial) -> Self {
        self.external = Some(external);
        self
    }

    fn material(&self, key_metadata: &[u8]) -> Result<KeyMaterial> {
        match KeyMetadata::parse(key_metadata)? {
            KeyMetadata::Internal(material) => Ok(material),
            KeyMetadata::External { key_reference } => {
                let external = self.external.as_ref().ok_or_else(|| {
                    Error::key_required(format!(
                        "the key material of {key_reference:?} is stored outside the file and no key material file was given"
                    ))
                })?;
                let text = external.get(&key_reference).ok_or_else(|| {
                    Error::key_required(format!(
                        "the key material file has no entry {key_reference:?}"
                    ))
                })?;
                KeyMaterial::parse(text).map_err(|e| e.context(format!("entry {key_reference}")))
            }
        }
    }

    fn kek(&self, material: &KeyMaterial) -> Result<AesKey> {
        let (Some(id), Some(wrapped)) = (&material.kek_id, &material.wrapped_kek) else {
            return Err(Error::corrupt("double wrapping without a KEK"));
        };
        if let Some(kek) = self.keks.lock().expect("not poisoned").get(id) {
            return Ok(kek.clone());
        }
        let kek = AesKey::new(&self.kms.unwrap_key(wrapped, &material.master_key_id)?)
            .map_err(|e| e.context("unwrapped KEK"))?;
        self.keks
            .lock()
            .expect("not poisoned")
            .insert(id.clone(), kek.clone());
        Ok(kek)
    }

    /// The data key of one key material.
    pub fn unwrap_material(&self, material: &KeyMaterial) -> Result<AesKey> {
        let dek = if material.double_wrapping {
            let kek = self.kek(material)?;
            let id = material.kek_id.as_deref().unwrap_or_default();
            let aad = BASE64
                .decode(id)
                .map_err(|e| Error::corrupt(format!("KEK id {id:?} is not base64: {e}")))?;
            decrypt_key_locally(&material.wrapped_dek, &kek, &aad)?
        } else {
            self.kms
                .unwrap_key(&material.wrapped_dek, &material.master_key_id)?
        };
        AesKey::new(&dek).map_err(|e| e.context("unwrapped data key"))
    }
}

impl KeyRetriever for KmsKeyRetriever {
    fn retrieve_key(&self, key_metadata: &[u8]) -> Result<AesKey> {
        let material = self.material(key_metadata)?;
        self.unwrap_material(&material).map_err(|e| {
            e.context(format!(
                "data key under master key {}",
                material.master_key_id
            ))
        })
    }
}
