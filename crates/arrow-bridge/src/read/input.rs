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

/// Column chunks of at most this many bytes are read together with their neighbours:
/// one read would have fetched such a chunk whole anyway (a page fetch asks for 64 KiB
/// at least).
pub(crate) const SMALL_CHUNK: u64 = 64 << 10;

/// The most one read of small chunks spans.
const MOST_TOGETHER: u64 = 256 << 10;

/// The widest gap between two small chunks read together (bytes read for nothing).
const MOST_GAP: u64 = 4 << 10;

/// The sources of small chunks (each at most [`SMALL_CHUNK`] bytes, in the order the
/// plan reads them) of `input`: runs of chunks lying one after the other in the file
/// are read in one fetch of up to 256 KiB, each chunk a slice of it. A wide table's row
/// group holds thousands of chunks of a few KiB: one system call and one buffer each
/// was a tenth of its read.
pub(crate) fn small_chunk_sources(
    input: &SharedInput,
    ranges: &[Range<u64>],
) -> Result<Vec<Arc<dyn ChunkSource>>> {
    let mut sources: Vec<Arc<dyn ChunkSource>> = Vec::with_capacity(ranges.len());
    let mut first = 0;
    while first < ranges.len() {
        let start = ranges[first].start;
        let mut end = ranges[first].end;
        let mut next = first + 1;
        while let Some(range) = ranges.get(next) {
            let adjacent = range.start >= end && range.start - end <= MOST_GAP;
            if !adjacent || range.end.saturating_sub(start) > MOST_TOGETHER {
                break;
            }
            end = range.end;
            next += 1;
        }
        if next - first == 1 {
            sources.push(InputRange::source(input.clone(), ranges[first].clone())?);
        } else {
            let together = input
                .get_bytes(start..end)
                .map_err(|e| e.context(format!("reading column chunks at bytes {start}..{end}")))?;
            if together.len() as u64 != end - start {
                return Err(Error::corrupt(format!(
                    "the input returned {} bytes for bytes {start}..{end}",
                    together.len()
                )));
            }
            for range in &ranges[first..next] {
                let at = (range.start - start) as usize..(range.end - start) as usize;
                sources.push(Arc::new(HeldRange(together.slice(at))));
            }
        }
        first = next;
    }
    Ok(sources)
}

/// A chunk's bytes, read together with its neighbours' ([`small_chunk_sources`]).
#[derive(Debug)]
struct HeldRange(Bytes);

impl ChunkSource for HeldRange {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn fetch(&self, range: Range<usize>) -> herringbone_codec::Result<Bytes> {
        // Always within `0..len()` (the trait's contract); checked anyway.
        if range.start > range.end || range.end > self.0.len() {
            return Err(herringbone_codec::Error::invalid_argument(format!(
                "bytes {range:?} outside a column chunk of {} bytes",
                self.0.len()
            )));
        }
        Ok(self.0.slice(range))
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
