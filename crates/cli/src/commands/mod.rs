//! One module per `hb` subcommand. Each exposes `run(...) -> Result<(), String>` that
//! writes to the given output; the error string is the one-line message `hb` prints.

pub mod cat;
pub mod convert;
pub mod demo;
pub mod ipc_dictionaries;
pub mod meta;
pub mod progress;
pub mod reading;
pub mod render;
pub mod scan;
pub mod schema;
pub mod variant;
pub mod writing;

use std::path::Path;

use bytes::Bytes;
use herringbone::metadata::FileMetaData;
use herringbone::schema::SchemaDescriptor;
use herringbone_format::footer;

/// A Parquet file loaded into memory with its decoded footer and schema.
pub struct ParquetFile {
    pub bytes: Bytes,
    pub metadata: FileMetaData,
    pub schema: SchemaDescriptor,
}

impl ParquetFile {
    /// Reads and decodes `path`; errors name the file.
    pub fn open(path: &Path) -> Result<Self, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::from_bytes(Bytes::from(bytes)).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Decodes a file held in memory.
    pub fn from_bytes(bytes: Bytes) -> Result<Self, String> {
        let metadata = footer::read_metadata(&bytes).map_err(|e| e.to_string())?;
        let schema = SchemaDescriptor::new(&metadata.schema).map_err(|e| e.to_string())?;
        Ok(Self {
            bytes,
            metadata,
            schema,
        })
    }
}
