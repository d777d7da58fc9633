//! Async writes: Parquet to any sink that takes bytes asynchronously (an object store, a
//! socket, an async file).
//!
//! [`AsyncArrowWriter`] encodes with the synchronous [`ArrowWriter`] into a buffer of its
//! own and hands the buffer to the sink whenever it holds more than a threshold (and
//! when a row group is flushed, and at the end): memory stays at the row group being
//! encoded (bounded by the writer's row group limits) plus at most the threshold plus
//! one row group's encoded bytes, however large the file grows.
//!
//! [`AsyncFileWriter`] is the one trait a sink implements; every `futures`
//! [`futures::io::AsyncWrite`] does, and with the `object_store` feature
//! [`ObjectStoreWriter`] writes an object of an `object_store` 0.13 store (a multipart
//! upload when it grows large).
//!
//! ```
//! # futures::executor::block_on(async {
//! # use std::sync::Arc;
//! use arrow_array::{ArrayRef, Int32Array, RecordBatch};
//! use herringbone_arrow_bridge::async_write::AsyncArrowWriter;
//!
//! let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
//! let batch = RecordBatch::try_from_iter([("a", column)]).unwrap();
//! let mut writer = AsyncArrowWriter::try_new(Vec::<u8>::new(), batch.schema(), None)?;
//! writer.write(&batch).await?;
//! let (file, metadata) = writer.close().await?;
//! assert_eq!(metadata.num_rows, 3);
//! assert_eq!(&file[..4], b"PAR1");
//! # Ok::<_, herringbone_arrow_bridge::Error>(()) }).unwrap();
//! ```

use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use futures::future::BoxFuture;
use futures::io::{AsyncWrite, AsyncWriteExt};
use herringbone_format::metadata::FileMetaData;

use crate::error::Result;
use crate::write::{ArrowToParquetOptions, ArrowWriter, WriterProperties};

#[cfg(feature = "object_store")]
mod object_store_writer;
#[cfg(feature = "object_store")]
pub use object_store_writer::ObjectStoreWriter;

/// Bytes buffered before they are handed to the sink, by default.
pub const DEFAULT_FLUSH_THRESHOLD: usize = 10 * 1024 * 1024;

/// A sink of a file's bytes, in order, asynchronously: what the async writer needs.
pub trait AsyncFileWriter: Send {
    /// Appends `bytes` to the file.
    fn write(&mut self, bytes: Bytes) -> BoxFuture<'_, Result<()>>;

    /// Completes the file: everything written is durable (or visible, for a store) once
    /// this returns.
    fn complete(&mut self) -> BoxFuture<'_, Result<()>>;
}

impl<W: AsyncWrite + Unpin + Send> AsyncFileWriter for W {
    fn write(&mut self, bytes: Bytes) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move { Ok(self.write_all(&bytes).await?) })
    }

    fn complete(&mut self) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move { Ok(self.close().await?) })
    }
}

/// The synchronous writer's sink: a buffer the async writer drains.
#[derive(Debug, Clone, Default)]
struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl SharedBuffer {
    fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl Write for SharedBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut buffer = self.0.lock().unwrap_or_else(|p| p.into_inner());
        buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes Arrow `RecordBatch`es as a Parquet file into an [`AsyncFileWriter`], with the
/// [`ArrowWriter`]'s properties and behaviour (see the [module documentation](self) for
/// its memory).
#[derive(Debug)]
pub struct AsyncArrowWriter<W> {
    writer: ArrowWriter<SharedBuffer>,
    buffer: SharedBuffer,
    sink: W,
    flush_threshold: usize,
}

impl<W: AsyncFileWriter> AsyncArrowWriter<W> {
    /// A writer of batches of `schema` into `sink` (default properties when `None`).
    /// Errors as [`ArrowWriter::try_new`].
    pub fn try_new(sink: W, schema: SchemaRef, props: Option<WriterProperties>) -> Result<Self> {
        Self::try_new_with_options(sink, schema, props, ArrowToParquetOptions::default())
    }

    /// [`AsyncArrowWriter::try_new`] with schema mapping options.
    pub fn try_new_with_options(
        sink: W,
        schema: SchemaRef,
        props: Option<WriterProperties>,
        options: ArrowToParquetOptions,
    ) -> Result<Self> {
        let buffer = SharedBuffer::default();
        let writer = ArrowWriter::try_new_with_options(buffer.clone(), schema, props, options)?;
        Ok(Self {
            writer,
            buffer,
            sink,
            flush_threshold: DEFAULT_FLUSH_THRESHOLD,
        })
    }

    /// Hands the buffer to the sink once it holds more than `bytes` (default
    /// [`DEFAULT_FLUSH_THRESHOLD`]; 0: after every batch that completes bytes).
    pub fn with_flush_threshold(mut self, bytes: usize) -> Self {
        self.flush_threshold = bytes;
        self
    }

    /// The Arrow schema batches must have.
    pub fn schema(&self) -> &SchemaRef {
        self.writer.schema()
    }

    /// Bytes buffered for the row group in progress (not yet encoded into pages).
    pub fn in_progress_size(&self) -> usize {
        self.writer.in_progress_size()
    }

    /// Rows buffered in the row group in progress.
    pub fn in_progress_rows(&self) -> usize {
        self.writer.in_progress_rows()
    }

    /// Encoded bytes not yet handed to the sink.
    pub fn buffered_bytes(&self) -> usize {
        self.buffer.len()
    }

    /// Bytes of the file so far (handed to the sink or buffered).
    pub fn bytes_written(&self) -> u64 {
        self.writer.bytes_written()
    }

    /// Appends a batch (split across row groups as needed); hands the encoded bytes to
    /// the sink when they pass the threshold.
    pub async fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.writer.write(batch)?;
        self.drain(self.flush_threshold).await
    }

    /// Closes the row group in progress and hands everything encoded to the sink.
    pub async fn flush(&mut self) -> Result<()> {
        self.writer.flush()?;
        self.drain(0).await
    }

    /// Writes the last row group, the indexes and the footer, hands them to the sink and
    /// completes it; returns the sink and the file metadata.
    pub async fn close(mut self) -> Result<(W, FileMetaData)> {
        let metadata = self.finish().await?;
        Ok((self.sink, metadata))
    }

    /// Like [`AsyncArrowWriter::close`], keeping the writer (which accepts nothing more).
    pub async fn finish(&mut self) -> Result<FileMetaData> {
        let metadata = self.writer.finish()?;
        self.drain(0).await?;
        self.sink.complete().await?;
        Ok(metadata)
    }

    /// Hands the buffer to the sink when it holds more than `threshold` bytes.
    async fn drain(&mut self, threshold: usize) -> Result<()> {
        if self.buffer.len() > threshold {
            let bytes = self.buffer.take();
            self.sink.write(Bytes::from(bytes)).await?;
        }
        Ok(())
    }
}
