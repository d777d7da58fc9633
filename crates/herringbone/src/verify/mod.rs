//! Verification: checks everything a Parquet file promises, without trusting any of it.
//!
//! [`verify`] reads the footer, then every column chunk one at a time: each page header
//! and CRC, each page decompressed and decoded (levels against the schema and the
//! record structure, dictionary indices in range, value and row counts against the
//! headers and the row group), chunk and page statistics against the decoded values
//! (min/max in the column's sort order, truncated byte-array bounds allowed; null, NaN
//! and distinct counts), the column and offset indexes against the pages, size
//! statistics, Bloom filters (every value must be in it) and the row group's sort
//! order; finally every row group is read through the Arrow reader. What it finds is a
//! [`Report`]: problems (broken promises), warnings (tolerated deviations, and what
//! could not be checked, such as encrypted modules without keys), and counts.
//!
//! Memory follows one column chunk: its bytes, one decompressed page, a batch of
//! levels, the Bloom filter, and (only when the chunk declares a distinct count) its
//! distinct values up to [`VerifyOptions::with_max_distinct`].
//!
//! ```
//! use bytes::Bytes;
//! use std::sync::Arc;
//! use arrow_array::{ArrayRef, Int32Array, RecordBatch};
//! use herringbone::ArrowWriter;
//! use herringbone::verify::{verify, VerifyOptions};
//!
//! let ids: ArrayRef = Arc::new(Int32Array::from(vec![3, 1, 2]));
//! let batch = RecordBatch::try_from_iter([("id", ids)]).unwrap();
//! let mut file = Vec::new();
//! let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), None).unwrap();
//! writer.write(&batch).unwrap();
//! writer.close().unwrap();
//!
//! let report = verify(Bytes::from(file.clone()), &VerifyOptions::default());
//! assert!(report.is_clean(), "{:?}", report.problems);
//!
//! // The statistics say max 3; make the last value 7.
//! let at = file.windows(12).position(|w| w == [3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]).unwrap();
//! file[at + 8] = 7;
//! let report = verify(Bytes::from(file), &VerifyOptions::default());
//! assert_eq!(report.exit_code(), 1);
//! assert!(report.problems[0].to_string().contains("max_value 3 is below the largest value 7"));
//! ```

mod checks;
pub(crate) mod chunk;
mod file;
mod findings;
mod index;
pub(crate) mod order;
mod report;
mod sorting;
pub(crate) mod values;

use std::sync::Arc;

use herringbone_codec::compression::DEFAULT_MAX_UNCOMPRESSED_SIZE;
use herringbone_codec::crypto::FileDecryptionProperties;

use crate::ChunkReader;

pub use report::{Check, Finding, Location, Report, Summary};

/// What [`verify`] does besides checking everything.
#[derive(Clone)]
pub struct VerifyOptions {
    max_page_size: usize,
    max_distinct: usize,
    arrow_read: bool,
    decryption: Option<FileDecryptionProperties>,
}

impl std::fmt::Debug for VerifyOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerifyOptions")
            .field("max_page_size", &self.max_page_size)
            .field("max_distinct", &self.max_distinct)
            .field("arrow_read", &self.arrow_read)
            .field("keys", &self.decryption.is_some())
            .finish()
    }
}

impl Default for VerifyOptions {
    /// Pages up to the largest size a header can declare; distinct counts checked up to
    /// 1,048,576 distinct values; the Arrow reader pass on.
    fn default() -> Self {
        Self {
            max_page_size: DEFAULT_MAX_UNCOMPRESSED_SIZE,
            max_distinct: 1 << 20,
            arrow_read: true,
            decryption: None,
        }
    }
}

impl VerifyOptions {
    /// The largest page (compressed or not) decoded; larger pages are reported.
    pub fn with_max_page_size(mut self, bytes: usize) -> Self {
        self.max_page_size = bytes;
        self
    }

    /// The most distinct values kept to check a chunk's `distinct_count`; past it the
    /// count is not checked (a warning says so).
    pub fn with_max_distinct(mut self, values: usize) -> Self {
        self.max_distinct = values;
        self
    }

    /// Keys of an encrypted file: the footer is decrypted (or its signature checked),
    /// and every encrypted module is checked to authenticate (page headers, pages,
    /// dictionary pages, column and offset indexes, Bloom filters) and then checked
    /// like its plaintext counterpart. Without keys, encrypted modules are reported as
    /// not checked.
    pub fn with_decryption(mut self, keys: FileDecryptionProperties) -> Self {
        self.decryption = Some(keys);
        self
    }

    /// Whether to also read every row group through the Arrow reader.
    pub fn with_arrow_read(mut self, on: bool) -> Self {
        self.arrow_read = on;
        self
    }
}

/// Verifies a whole file (see the [module documentation](self)).
pub fn verify<R: ChunkReader + Sync + 'static>(input: R, options: &VerifyOptions) -> Report {
    file::verify_file(Arc::new(input), options)
}
