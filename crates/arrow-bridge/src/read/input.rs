//! The synchronous reader's input shared by the column chunks of the row group being
//! read: each chunk is a [`ChunkSource`] over its byte range, so that its pages are read
//! from the input as the batches reach them (see [`PageReader::from_source`]) instead
//! of the whole row group up front.
//!
//! [`PageReader::from_source`]: herringbone_codec::page::PageReader::from_source

use std::ops::Range;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use herringbone_codec::page::ChunkSource;

use super::ChunkReader;
use crate::error::{Error, ErrorKind, Result};

/// The reader's input. A [`ChunkReader`] need only be `Send`; the lock lets every
/// column's chunk share it (one fetch per page or so: never contended for long).
pub(crate) type SharedInput = Arc<Mutex<Box<dyn ChunkReader>>>;

/// One column chunk's bytes in the input.
pub(crate) struct InputRange {
    input: SharedInput,
    start: u64,
    len: usize,
}

impl InputRange {
    /// The chunk at `range` of `input` (a range [`super::row_group_ranges`] checked
    /// against the input's length).
    pub(crate) fn source(input: SharedInput, range: Range<u64>) -> Result<Arc<dyn ChunkSource>> {
        let len = range
            .end
            .checked_sub(range.start)
            .and_then(|len| usize::try_from(len).ok())
            .ok_or_else(|| Error::invalid_argument(format!("byte range {range:?} too large")))?;
        Ok(Arc::new(Self {
            input,
            start: range.start,
            len,
        }))
    }
}

impl std::fmt::Debug for InputRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputRange")
            .field("start", &self.start)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl ChunkSource for InputRange {
    fn len(&self) -> usize {
        self.len
    }

    fn fetch(&self, range: Range<usize>) -> herringbone_codec::Result<Bytes> {
        let absolute = self.start + range.start as u64..self.start + range.end as u64;
        // A panic elsewhere while the lock was held leaves the input as it was: reading
        // on is safe.
        let input = self.input.lock().unwrap_or_else(|p| p.into_inner());
        input.get_bytes(absolute).map_err(|e| {
            let kind = match e.kind() {
                ErrorKind::InvalidArgument => herringbone_codec::ErrorKind::InvalidArgument,
                _ => herringbone_codec::ErrorKind::Corrupt,
            };
            herringbone_codec::Error::new(kind, "reading the column chunk").with_source(e)
        })
    }
}
