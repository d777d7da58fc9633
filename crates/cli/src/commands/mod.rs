//! One module per `hb` subcommand. Each exposes `run(...) -> Result<(), String>` that
//! writes to the given output; the error string is the one-line message `hb` prints.

pub mod cat;
pub mod convert;
pub mod demo;
pub mod ipc_dictionaries;
pub mod meta;
pub mod progress;
pub mod reading;
pub mod scan;
pub mod schema;
pub mod variant;
pub mod writing;

use bytes::Bytes;
use herringbone::format::footer;
use herringbone::format::metadata::FileMetaData;
use herringbone::format::schema::SchemaDescriptor;

/// The decoded footer and schema of a Parquet file held in memory (a file on disk is
/// read footer only: [`reading::FileFooter`]).
pub struct ParquetFile {
    pub metadata: FileMetaData,
    pub schema: SchemaDescriptor,
}

impl ParquetFile {
    /// Decodes a file held in memory.
    pub fn from_bytes(bytes: Bytes) -> Result<Self, String> {
        let metadata = footer::read_metadata(&bytes).map_err(|e| e.to_string())?;
        let schema = SchemaDescriptor::new(&metadata.schema).map_err(|e| e.to_string())?;
        Ok(Self { metadata, schema })
    }
}
