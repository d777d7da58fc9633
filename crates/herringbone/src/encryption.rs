//! Parquet modular encryption: keys for reading and writing encrypted files, and the
//! key tools (KMS clients, key material, single and double wrapping) compatible with
//! Arrow C++ and parquet-java.
//!
//! Reading: [`FileDecryptionProperties`] to
//! [`ParquetRecordBatchReaderBuilder::try_new_with_decryption`](crate::read::ParquetRecordBatchReaderBuilder::try_new_with_decryption).
//! Writing: [`FileEncryptionProperties`] in
//! [`WriterProperties`](crate::write::WriterProperties).
//!
//! ```
//! # use std::sync::Arc;
//! # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
//! use herringbone::encryption::{FileDecryptionProperties, FileEncryptionProperties};
//! use herringbone::{ArrowWriter, ParquetRecordBatchReaderBuilder, WriterProperties};
//!
//! let key = b"0123456789012345".to_vec();
//! # let ids: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
//! # let batch = RecordBatch::try_from_iter([("id", ids)])?;
//! let props = WriterProperties::builder()
//!     .set_encryption(FileEncryptionProperties::builder(key.clone()).build()?)
//!     .build();
//! let mut file = Vec::new();
//! let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props))?;
//! writer.write(&batch)?;
//! writer.close()?;
//!
//! let keys = FileDecryptionProperties::builder().with_footer_key(key).build()?;
//! let reader =
//!     ParquetRecordBatchReaderBuilder::try_new_with_decryption(bytes::Bytes::from(file), &keys)?
//!         .build()?;
//! let rows: usize = reader.map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
//! assert_eq!(rows, 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use herringbone_arrow_bridge::read::read_metadata_with_decryption;
pub use herringbone_codec::crypto::key_tools;
pub use herringbone_codec::crypto::{
    Algorithm, ColumnKey, FileDecryptionProperties, FileDecryptionPropertiesBuilder,
    FileEncryptionProperties, FileEncryptionPropertiesBuilder, KeyRetriever,
};
