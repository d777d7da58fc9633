//! One module per `hb` subcommand. Each exposes `run(...) -> Result<(), String>` that
//! writes to the given output; the error string is the one-line message `hb` prints.

pub mod cat;
pub mod convert;
pub mod demo;
pub mod head;
pub mod ipc_dictionaries;
pub mod keys;
pub mod merge;
pub mod meta;
pub mod pages;
pub mod progress;
pub mod reading;
pub mod recover;
pub mod render;
pub mod rewrite;
pub mod salvage;
pub mod scan;
pub mod schema;
pub mod variant;
pub mod variant_input;
pub mod verify;
pub mod writing;

use std::path::Path;

use bytes::Bytes;
use herringbone::metadata::FileMetaData;
use herringbone::schema::SchemaDescriptor;
use herringbone_format::footer;

/// The decoded footer and schema of a Parquet file held in memory (a file on disk is
/// read footer only: [`reading::FileFooter`]).
pub struct ParquetFile {
    pub bytes: Bytes,
    pub metadata: FileMetaData,
    pub schema: SchemaDescriptor,
    /// The file's decryptor, when it was opened with keys and is encrypted.
    pub decryptor: Option<std::sync::Arc<herringbone_codec::crypto::FileDecryptor>>,
}

impl ParquetFile {
    /// Reads and decodes `path`, decrypting its footer (and the metadata of columns
    /// under their own keys) with `keys`; errors name the file.
    pub fn open(path: &Path, keys: &keys::KeyArgs) -> Result<Self, String> {
        let named = |e: String| format!("{}: {e}", path.display());
        let bytes = std::fs::read(path).map_err(|e| named(e.to_string()))?;
        let bytes = Bytes::from(bytes);
        let Some(decryption) = keys.decryption().map_err(named)? else {
            return Self::from_bytes(bytes).map_err(named);
        };
        let location = herringbone_format::crypto::FooterLocation::of_file(&bytes)
            .map_err(|e| named(e.to_string()))?;
        let decoded = herringbone_codec::crypto::decode_footer(
            bytes.slice(location.range.clone()),
            location.encrypted_footer,
            Some(&decryption),
            &footer::FooterOptions::new().with_base_offset(location.range.start as u64),
        )
        .map_err(|e| named(e.to_string()))?;
        let schema =
            SchemaDescriptor::new(&decoded.metadata.schema).map_err(|e| named(e.to_string()))?;
        Ok(Self {
            bytes,
            metadata: decoded.metadata,
            schema,
            decryptor: decoded.decryptor,
        })
    }

    /// Decodes a file held in memory.
    pub fn from_bytes(bytes: Bytes) -> Result<Self, String> {
        let metadata = footer::read_metadata(&bytes).map_err(|e| e.to_string())?;
        let schema = SchemaDescriptor::new(&metadata.schema).map_err(|e| e.to_string())?;
        Ok(Self {
            bytes,
            metadata,
            schema,
            decryptor: None,
        })
    }
}
