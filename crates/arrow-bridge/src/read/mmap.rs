//! Memory-mapped input: a file read through the page cache without copies.
//!
//! [`map_file`] maps a whole file and hands it over as one [`Bytes`], which the reader
//! takes like any other [`ChunkReader`](super::ChunkReader): every fetch is a slice of
//! the mapping (no `read` call, no buffer to allocate or fill), an uncompressed page
//! is decoded where it lies, and the mapping stays alive as long as anything sliced from
//! it (pages, and the Arrow buffers that share them, such as string views).
//!
//! The cost is a promise only the caller can keep: the file must not change while it is
//! mapped, so [`map_file`] is `unsafe`. Read with [`std::fs::File`] (the default) when
//! another process may truncate or rewrite the file.

use std::fs::File;

use bytes::Bytes;
use memmap2::Mmap;

use crate::error::{Error, Result};

/// Maps all of `file` into memory, read-only, as one [`Bytes`] to read from
/// ([`ParquetRecordBatchReaderBuilder::try_new`](super::ParquetRecordBatchReaderBuilder::try_new)
/// takes it as it is). An empty file is an empty `Bytes` (nothing to map).
///
/// # Safety
///
/// The bytes of the file are the mapping's memory: if the file is truncated while it is
/// mapped, reading past the new end kills the process (`SIGBUS`), and if it is written
/// to, data the reader already checked may change under it. The caller must make sure
/// that neither happens while the returned `Bytes`, or anything read from it, lives.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Int64Array, RecordBatch};
/// # let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..10));
/// # let batch = RecordBatch::try_from_iter([("id", ids)])?;
/// # let path = std::env::temp_dir().join(format!("herringbone-mmap-doc-{}.parquet", std::process::id()));
/// # let mut writer = herringbone_arrow_bridge::write::ArrowWriter::try_new(
/// #     std::fs::File::create(&path)?, batch.schema(), None)?;
/// # writer.write(&batch)?;
/// # writer.close()?;
/// use herringbone_arrow_bridge::read::{ParquetRecordBatchReaderBuilder, map_file};
///
/// let file = std::fs::File::open(&path)?;
/// // SAFETY: this example's file is not changed while it is read.
/// let mapped = unsafe { map_file(&file)? };
/// let reader = ParquetRecordBatchReaderBuilder::try_new(mapped)?.build()?;
/// let rows: usize = reader.map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
/// assert_eq!(rows, 10);
/// # std::fs::remove_file(&path)?;
/// # Ok(())
/// # }
/// ```
pub unsafe fn map_file(file: &File) -> Result<Bytes> {
    let len = file
        .metadata()
        .map_err(|e| Error::invalid_argument(format!("cannot map the file: {e}")))?
        .len();
    if len == 0 {
        // Linux refuses a mapping of length 0.
        return Ok(Bytes::new());
    }
    // SAFETY: the caller promises the file does not change while mapped (this
    // function's contract); the mapping is read-only and private to this process.
    let map = unsafe { Mmap::map(file) }
        .map_err(|e| Error::invalid_argument(format!("cannot map the file: {e}")))?;
    Ok(Bytes::from_owner(map))
}
