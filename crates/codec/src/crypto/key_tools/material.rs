//! Key material and key metadata in the JSON form Arrow C++ and parquet-java write
//! (`"keyMaterialType":"PKMT1"`).
//!
//! A key's `key_metadata` is either the key material itself (internal storage) or a
//! reference to an entry of a key material file kept beside the Parquet file (external
//! storage, `_KEY_MATERIAL_FOR_<file name>.json`):
//!
//! ```text
//! internal: {"keyMaterialType":"PKMT1","internalStorage":true,"isFooterKey":true,
//!            "kmsInstanceID":"DEFAULT","kmsInstanceURL":"DEFAULT","masterKeyID":"kf",
//!            "wrappedDEK":"...","doubleWrapping":true,"keyEncryptionKeyID":"...","wrappedKEK":"..."}
//! external: {"keyMaterialType":"PKMT1","internalStorage":false,"keyReference":"footerKey"}
//! ```
//!
//! ```
//! use herringbone_codec::crypto::key_tools::{KeyMaterial, KeyMetadata};
//! let material = KeyMaterial {
//!     is_footer_key: false,
//!     kms_instance_id: None,
//!     kms_instance_url: None,
//!     master_key_id: "kc1".into(),
//!     wrapped_dek: "AAAA".into(),
//!     double_wrapping: false,
//!     kek_id: None,
//!     wrapped_kek: None,
//! };
//! let metadata = KeyMetadata::Internal(material.clone()).to_json();
//! assert_eq!(KeyMetadata::parse(metadata.as_bytes()).unwrap(), KeyMetadata::Internal(material));
//! ```

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// The key material type this version reads and writes.
pub const KEY_MATERIAL_TYPE: &str = "PKMT1";

/// How one data key is wrapped, and by which master key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyMaterial {
    /// Whether this is the footer key's material (which also names the KMS instance).
    pub is_footer_key: bool,
    /// The KMS instance (footer key only).
    pub kms_instance_id: Option<String>,
    /// The KMS instance URL (footer key only).
    pub kms_instance_url: Option<String>,
    /// The master key that wraps the data key (or its KEK).
    pub master_key_id: String,
    /// The wrapped data key (base64 text).
    pub wrapped_dek: String,
    /// Whether the data key is wrapped by a KEK that the master key wraps.
    pub double_wrapping: bool,
    /// The KEK's identifier (base64 of 16 random bytes), with double wrapping.
    pub kek_id: Option<String>,
    /// The wrapped KEK, with double wrapping.
    pub wrapped_kek: Option<String>,
}

/// A `key_metadata` written by the key tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyMetadata {
    /// The key material itself.
    Internal(KeyMaterial),
    /// A reference into the external key material file.
    External {
        /// The entry's name (`footerKey`, `columnKey0`, ...).
        key_reference: String,
    },
}

fn object(text: &str, what: &str) -> Result<Map<String, Value>> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(Error::corrupt(format!("{what} is not a JSON object"))),
        Err(e) => Err(Error::corrupt(format!("{what} is not valid JSON: {e}"))),
    }
}

fn string(map: &Map<String, Value>, field: &str, what: &str) -> Result<Option<String>> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(Error::corrupt(format!(
            "{what}: field {field} is {other}, not a string"
        ))),
    }
}

fn required(map: &Map<String, Value>, field: &str, what: &str) -> Result<String> {
    string(map, field, what)?
        .ok_or_else(|| Error::corrupt(format!("{what}: field {field} is missing")))
}

fn boolean(map: &Map<String, Value>, field: &str, what: &str) -> Result<bool> {
    match map.get(field) {
        Some(Value::Bool(b)) => Ok(*b),
        None => Err(Error::corrupt(format!("{what}: field {field} is missing"))),
        Some(other) => Err(Error::corrupt(format!(
            "{what}: field {field} is {other}, not true or false"
        ))),
    }
}

fn check_type(map: &Map<String, Value>, what: &str) -> Result<()> {
    let kind = required(map, "keyMaterialType", what)?;
    if kind != KEY_MATERIAL_TYPE {
        return Err(Error::unsupported(format!(
            "{what}: key material type {kind:?} (this version reads {KEY_MATERIAL_TYPE})"
        )));
    }
    Ok(())
}

impl KeyMaterial {
    /// Parses key material JSON (from `key_metadata` or a key material file).
    pub fn parse(text: &str) -> Result<KeyMaterial> {
        let what = "key material";
        let map = object(text, what)?;
        Self::from_map(&map)
    }

    fn from_map(map: &Map<String, Value>) -> Result<KeyMaterial> {
        let what = "key material";
        check_type(map, what)?;
        let is_footer_key = boolean(map, "isFooterKey", what)?;
        let double_wrapping = boolean(map, "doubleWrapping", what)?;
        let (kek_id, wrapped_kek) = if double_wrapping {
            (
                Some(required(map, "keyEncryptionKeyID", what)?),
                Some(required(map, "wrappedKEK", what)?),
            )
        } else {
            (None, None)
        };
        Ok(KeyMaterial {
            is_footer_key,
            kms_instance_id: string(map, "kmsInstanceID", what)?,
            kms_instance_url: string(map, "kmsInstanceURL", what)?,
            master_key_id: required(map, "masterKeyID", what)?,
            wrapped_dek: required(map, "wrappedDEK", what)?,
            double_wrapping,
            kek_id,
            wrapped_kek,
        })
    }

    fn fill(&self, map: &mut Map<String, Value>) {
        map.insert("isFooterKey".into(), self.is_footer_key.into());
        if self.is_footer_key {
            for (field, value) in [
                ("kmsInstanceID", &self.kms_instance_id),
                ("kmsInstanceURL", &self.kms_instance_url),
            ] {
                let value = value.clone().unwrap_or_else(|| "DEFAULT".into());
                map.insert(field.into(), value.into());
            }
        }
        map.insert("masterKeyID".into(), self.master_key_id.clone().into());
        map.insert("wrappedDEK".into(), self.wrapped_dek.clone().into());
        map.insert("doubleWrapping".into(), self.double_wrapping.into());
        if self.double_wrapping {
            if let Some(id) = &self.kek_id {
                map.insert("keyEncryptionKeyID".into(), id.clone().into());
            }
            if let Some(kek) = &self.wrapped_kek {
                map.insert("wrappedKEK".into(), kek.clone().into());
            }
        }
    }

    /// The JSON of this material as a key material file stores it.
    pub fn to_json(&self) -> String {
        let mut map = Map::new();
        map.insert("keyMaterialType".into(), KEY_MATERIAL_TYPE.into());
        self.fill(&mut map);
        Value::Object(map).to_string()
    }
}

impl KeyMetadata {
    /// Parses a `key_metadata` written by the key tools.
    pub fn parse(bytes: &[u8]) -> Result<KeyMetadata> {
        let what = "key metadata";
        let text = std::str::from_utf8(bytes)
            .map_err(|_| Error::corrupt(format!("{what} is not UTF-8 text")))?;
        let map = object(text, what)?;
        check_type(&map, what)?;
        if boolean(&map, "internalStorage", what)? {
            Ok(KeyMetadata::Internal(KeyMaterial::from_map(&map)?))
        } else {
            Ok(KeyMetadata::External {
                key_reference: required(&map, "keyReference", what)?,
            })
        }
    }

    /// The JSON to store as `key_metadata`.
    pub fn to_json(&self) -> String {
        let mut map = Map::new();
        map.insert("keyMaterialType".into(), KEY_MATERIAL_TYPE.into());
        match self {
            KeyMetadata::Internal(material) => {
                map.insert("internalStorage".into(), true.into());
                material.fill(&mut map);
            }
            KeyMetadata::External { key_reference } => {
                map.insert("internalStorage".into(), false.into());
                map.insert("keyReference".into(), key_reference.clone().into());
            }
        }
        Value::Object(map).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn parses_parquet_java_footer_material() {
        // As parquet-java wrote it in the corpus' external key material file.
        let text = r#"{"kmsInstanceURL":"DEFAULT","masterKeyID":"kf","wrappedDEK":"FLQD","keyEncryptionKeyID":"NFki","doubleWrapping":true,"isFooterKey":true,"keyMaterialType":"PKMT1","kmsInstanceID":"DEFAULT","wrappedKEK":"kWHN"}"#;
        let m = KeyMaterial::parse(text).unwrap();
        assert!(m.is_footer_key && m.double_wrapping);
        assert_eq!(m.master_key_id, "kf");
        assert_eq!(m.kek_id.as_deref(), Some("NFki"));
        assert_eq!(m.wrapped_kek.as_deref(), Some("kWHN"));
        assert_eq!(m.kms_instance_id.as_deref(), Some("DEFAULT"));
        assert_eq!(KeyMaterial::parse(&m.to_json()).unwrap(), m);
    }

    #[test]
    fn external_reference_and_errors() {
        let external =
            br#"{"keyMaterialType":"PKMT1","internalStorage":false,"keyReference":"footerKey"}"#;
        assert_eq!(
            KeyMetadata::parse(external).unwrap(),
            KeyMetadata::External {
                key_reference: "footerKey".into()
            }
        );
        let e = KeyMetadata::parse(b"kc1").unwrap_err();
        assert!(e.message().contains("not valid JSON"), "{e}");
        let e = KeyMetadata::parse(br#"{"keyMaterialType":"PKMT9","internalStorage":true}"#)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported);
        let e = KeyMaterial::parse(
            r#"{"keyMaterialType":"PKMT1","isFooterKey":false,"doubleWrapping":true,"masterKeyID":"k","wrappedDEK":"x"}"#,
        )
        .unwrap_err();
        assert!(e.message().contains("keyEncryptionKeyID is missing"), "{e}");
        let e = KeyMaterial::parse(
            r#"{"keyMaterialType":"PKMT1","isFooterKey":"no","doubleWrapping":false,"masterKeyID":"k","wrappedDEK":"x"}"#,
        )
        .unwrap_err();
        assert!(e.message().contains("isFooterKey"), "{e}");
    }
}
