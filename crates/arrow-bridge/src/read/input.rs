//! The synchronous reader's input shared by the column chunks of the row group being
//! read: each chunk is a [`ChunkSource`] over its byte range, so that its pages are read
//! from the input as the batches reach them (see [`PageReader::from_source`]) instead
//! of the whole row group up front.
//!
//! [`PageReader::from_source`]: herringbone_codec::page::PageReader::from_source

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use herringbone_codec::page::ChunkSource;
use herringbone_format::footer::{decode_offset_index, offset_index_range};
use herringbone_format::metadata::{FileMetaData, OffsetIndex};

use super::ChunkReader;
use crate::error::{Error, ErrorKind, Result};

/// The reader's input, shared by every column's chunk. A [`ChunkReader`] is `Sync`, so
/// columns decoded on different threads fetch their pages at the same time (a file by
/// positioned reads) instead of taking turns.
pub(crate) type SharedInput = Arc<dyn ChunkReader>;

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
        self.input.get_bytes(absolute).map_err(chunk_error)
    }

    fn fetch_within(
        &self,
        start: usize,
        needed_end: usize,
        wanted_end: usize,
    ) -> herringbone_codec::Result<Bytes> {
        let absolute = self.start + start as u64..self.start + wanted_end as u64;
        let bytes = self
            .input
            .get_bytes_within(absolute, self.start + needed_end as u64)
            .map_err(chunk_error)?;
        // The input may stop short of what was wanted, never of what is needed.
        if bytes.len() < needed_end - start || bytes.len() > wanted_end - start {
            return Err(herringbone_codec::Error::corrupt(format!(
                "the input returned {} bytes for bytes {start}..{needed_end} (at most {wanted_end}) of the column chunk",
                bytes.len()
            )));
        }
        Ok(bytes)
    }
}

fn chunk_error(e: Error) -> herringbone_codec::Error {
    let kind = match e.kind() {
        ErrorKind::InvalidArgument => herringbone_codec::ErrorKind::InvalidArgument,
        _ => herringbone_codec::ErrorKind::Corrupt,
    };
    herringbone_codec::Error::new(kind, "reading the column chunk").with_source(e)
}

/// Where the offset indexes of leaf `columns` in row group `row_group` are (`None` for a
/// chunk without one, an encrypted chunk or one stored in another file), and the one range that holds them all when
/// they lie close together (writers put a row group's indexes side by side): then it is
/// read in one fetch, else each is read alone.
pub(crate) struct OffsetIndexFetch {
    ranges: Vec<Option<Range<usize>>>,
    together: Option<Range<usize>>,
}

impl OffsetIndexFetch {
    pub(crate) fn plan(
        metadata: &FileMetaData,
        row_group: usize,
        columns: &[usize],
        file_len: u64,
    ) -> Result<Self> {
        let file_len = usize::try_from(file_len).unwrap_or(usize::MAX);
        let Some(group) = metadata.row_groups.get(row_group) else {
            return Ok(Self {
                ranges: vec![None; columns.len()],
                together: None,
            });
        };
        let mut ranges = Vec::with_capacity(columns.len());
        for &column in columns {
            let range = match group.columns.get(column) {
                // An index of a chunk in another file lies in that file: not used.
                Some(chunk) if chunk.crypto_metadata.is_none() && chunk.file_path.is_none() => {
                    offset_index_range(chunk, file_len).map_err(|e| {
                        Error::from(e)
                            .context(format!("row group {row_group}, leaf column {column}"))
                    })?
                }
                _ => None,
            };
            ranges.push(range);
        }
        let wanted: usize = ranges.iter().flatten().map(|r| r.len()).sum();
        let span = ranges
            .iter()
            .flatten()
            .fold(None, |span: Option<Range<usize>>, r| {
                Some(span.map_or(r.clone(), |s| s.start.min(r.start)..s.end.max(r.end)))
            });
        // One fetch when it reads little beyond what is wanted.
        let together =
            span.filter(|span| span.len() <= wanted.saturating_mul(2).saturating_add(64 << 10));
        Ok(Self { ranges, together })
    }

    /// The byte ranges the reader fetches.
    pub(crate) fn fetches(&self) -> Vec<Range<u64>> {
        let as_u64 = |r: &Range<usize>| r.start as u64..r.end as u64;
        match &self.together {
            Some(span) => vec![as_u64(span)],
            None => self.ranges.iter().flatten().map(as_u64).collect(),
        }
    }
}

/// The offset index of each chunk of leaf `columns` in row group `row_group` that has
/// one and is not encrypted (`None` for the others), fetched as [`OffsetIndexFetch`]
/// plans.
pub(crate) fn offset_indexes(
    input: &SharedInput,
    metadata: &FileMetaData,
    row_group: usize,
    columns: &[usize],
) -> Result<Vec<Option<OffsetIndex>>> {
    let fetch = OffsetIndexFetch::plan(metadata, row_group, columns, input.len())?;
    let together = match &fetch.together {
        Some(span) => Some((
            span.start,
            input.get_bytes(span.start as u64..span.end as u64)?,
        )),
        None => None,
    };
    fetch
        .ranges
        .into_iter()
        .zip(columns)
        .map(|(range, &column)| {
            let Some(range) = range else {
                return Ok(None);
            };
            let bytes = match &together {
                Some((start, bytes)) => bytes.slice(range.start - start..range.end - start),
                None => input.get_bytes(range.start as u64..range.end as u64)?,
            };
            decode_offset_index(&bytes, range.start as u64)
                .map(Some)
                .map_err(|e| {
                    Error::from(e).context(format!("row group {row_group}, leaf column {column}"))
                })
        })
        .collect()
}
