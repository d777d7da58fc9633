//! [`ReaderMetadata`]: a file's footer decoded once, shared by every reader of the file.

use std::sync::Arc;

use herringbone_codec::crypto::{FileDecryptionProperties, FileDecryptor};
use herringbone_format::metadata::FileMetaData;
use herringbone_format::schema::SchemaDescriptor;

use super::{ChunkReader, read_metadata_with_decryption};
use crate::error::Result;

/// What a reader needs from a file's footer: the metadata, the Parquet schema built from
/// it and, for an encrypted file, the decryptor. Cheap to clone (three `Arc`s).
///
/// A query engine opens each file once (to plan: schema, statistics, row groups), then
/// reads it from several partitions or several times; each of those readers is built
/// with [`ParquetRecordBatchReaderBuilder::new_with_metadata`](super::ParquetRecordBatchReaderBuilder::new_with_metadata)
/// or [`ScanBuilder::new_with_metadata`](crate::scan::ScanBuilder::new_with_metadata)
/// and reads no footer again.
///
/// ```
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
/// # use bytes::Bytes;
/// use herringbone_arrow_bridge::read::{ParquetRecordBatchReaderBuilder, ReaderMetadata};
/// # let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
/// # let batch = RecordBatch::try_from_iter([("x", column)]).unwrap();
/// # let mut file = Vec::new();
/// # let mut writer = herringbone_arrow_bridge::ArrowWriter::try_new(&mut file, batch.schema(), None).unwrap();
/// # writer.write(&batch).unwrap();
/// # writer.close().unwrap();
/// let file = Bytes::from(file);
/// let footer = ReaderMetadata::load(&file).unwrap();
/// for _ in 0..2 {
///     let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(file.clone(), footer.clone())
///         .build()
///         .unwrap();
///     assert_eq!(reader.map(|b| b.unwrap().num_rows()).sum::<usize>(), 3);
/// }
/// ```
#[derive(Debug, Clone)]
pub struct ReaderMetadata {
    metadata: Arc<FileMetaData>,
    descriptor: Arc<SchemaDescriptor>,
    decryptor: Option<Arc<FileDecryptor>>,
}

impl ReaderMetadata {
    /// Reads and decodes the footer of `input` (see [`read_metadata`](super::read_metadata)).
    pub fn load<R: ChunkReader + ?Sized>(input: &R) -> Result<Self> {
        Self::load_with_decryption(input, None)
    }

    /// Reads and decodes the footer of a file that may be encrypted, with these keys
    /// (see [`read_metadata_with_decryption`]).
    pub fn load_with_decryption<R: ChunkReader + ?Sized>(
        input: &R,
        decryption: Option<&FileDecryptionProperties>,
    ) -> Result<Self> {
        let (metadata, decryptor) = read_metadata_with_decryption(input, decryption)?;
        let mut loaded = Self::try_new(Arc::new(metadata))?;
        loaded.decryptor = decryptor;
        Ok(loaded)
    }

    /// Metadata decoded elsewhere (for example by the async footer reader): builds its
    /// Parquet schema, which fails for an invalid schema tree.
    pub fn try_new(metadata: Arc<FileMetaData>) -> Result<Self> {
        let descriptor = Arc::new(SchemaDescriptor::new(&metadata.schema)?);
        Ok(Self {
            metadata,
            descriptor,
            decryptor: None,
        })
    }

    /// The file's metadata.
    pub fn metadata(&self) -> &Arc<FileMetaData> {
        &self.metadata
    }

    /// The file's Parquet schema.
    pub fn parquet_schema(&self) -> &Arc<SchemaDescriptor> {
        &self.descriptor
    }

    /// The file's decryptor, when it was opened with keys and is encrypted.
    pub fn decryptor(&self) -> Option<&Arc<FileDecryptor>> {
        self.decryptor.as_ref()
    }

    pub(super) fn into_parts(
        self,
    ) -> (
        Arc<FileMetaData>,
        Arc<SchemaDescriptor>,
        Option<Arc<FileDecryptor>>,
    ) {
        (self.metadata, self.descriptor, self.decryptor)
    }
}
