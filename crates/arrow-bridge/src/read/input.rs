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
use rayon::ThreadPool;

use super::ChunkReader;
use super::pool::map_shared;
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
///
/// With `pool` (idle: nothing to decode yet), the fetches are shared between the
/// caller's thread and the pool's: the first row group of a read with threads is
/// opened before any decode, and a wide one's tens of megabytes read by one thread
/// were the time the other waited.
pub(crate) fn small_chunk_sources(
    input: &SharedInput,
    ranges: &[Range<u64>],
    pool: Option<&ThreadPool>,
) -> Result<Vec<Arc<dyn ChunkSource>>> {
    let runs = side_by_side_runs(ranges);
    let fetch = |run: &Range<usize>| -> Result<Vec<Arc<dyn ChunkSource>>> {
        let members = &ranges[run.clone()];
        if let [single] = members {
            return Ok(vec![InputRange::source(input.clone(), single.clone())?]);
        }
        let (start, end) = (members[0].start, members[members.len() - 1].end);
        let together = input
            .get_bytes(start..end)
            .map_err(|e| e.context(format!("reading column chunks at bytes {start}..{end}")))?;
        if together.len() as u64 != end - start {
            return Err(Error::corrupt(format!(
                "the input returned {} bytes for bytes {start}..{end}",
                together.len()
            )));
        }
        Ok(members
            .iter()
            .map(|range| {
                let at = (range.start - start) as usize..(range.end - start) as usize;
                Arc::new(HeldRange(together.slice(at))) as Arc<dyn ChunkSource>
            })
            .collect())
    };
    let fetched = match pool {
        Some(pool) if runs.len() > 1 => map_shared(pool, runs.len(), |i| fetch(&runs[i])),
        _ => runs.iter().map(fetch).collect(),
    };
    let mut sources: Vec<Arc<dyn ChunkSource>> = Vec::with_capacity(ranges.len());
    for run in fetched {
        sources.extend(run?);
    }
    Ok(sources)
}

/// `ranges` cut into runs read in one fetch each (index ranges into `ranges`): chunks
/// one after the other (gaps of at most [`MOST_GAP`]) spanning at most
/// [`MOST_TOGETHER`] bytes.
fn side_by_side_runs(ranges: &[Range<u64>]) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
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
        runs.push(first..next);
        first = next;
    }
    runs
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

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use rayon::ThreadPoolBuilder;

    use super::*;

    /// A file in memory that records the ranges it is asked for.
    struct CountingInput {
        bytes: Bytes,
        asked: Mutex<Vec<Range<u64>>>,
    }

    impl ChunkReader for CountingInput {
        fn len(&self) -> u64 {
            self.bytes.len() as u64
        }

        fn get_bytes(&self, range: Range<u64>) -> Result<Bytes> {
            self.asked.lock().unwrap().push(range.clone());
            self.bytes.get_bytes(range)
        }

        fn reads_side_by_side(&self) -> bool {
            true
        }
    }

    /// Small chunks read through `small_chunk_sources` (with `pool` or without): each
    /// chunk's bytes, and the fetches, sorted.
    fn read_small(
        file: &Bytes,
        ranges: &[Range<u64>],
        pool: Option<&ThreadPool>,
    ) -> (Vec<Bytes>, Vec<Range<u64>>) {
        let input = Arc::new(CountingInput {
            bytes: file.clone(),
            asked: Mutex::new(Vec::new()),
        });
        let shared: SharedInput = input.clone();
        let sources = small_chunk_sources(&shared, ranges, pool).unwrap();
        let chunks = sources
            .iter()
            .map(|source| source.fetch(0..source.len()).unwrap())
            .collect();
        let mut asked = input.asked.lock().unwrap().clone();
        asked.sort_by_key(|range| range.start);
        (chunks, asked)
    }

    #[test]
    fn small_chunks_are_read_in_runs_alike_on_one_thread_and_on_a_pool() {
        let file = Bytes::from(
            (0..2_000_000u32)
                .map(|i| (i % 251) as u8)
                .collect::<Vec<_>>(),
        );
        // 100 chunks of 8 KiB side by side, then a gap wider than `MOST_GAP`, a chunk
        // alone, and 3 more side by side.
        let mut ranges: Vec<Range<u64>> = (0..100u64).map(|i| i * 8192..(i + 1) * 8192).collect();
        ranges.push(900_000..900_100);
        ranges.extend((0..3u64).map(|i| 1_000_000 + i * 100..1_000_000 + (i + 1) * 100));

        let (alone, alone_asked) = read_small(&file, &ranges, None);
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let (shared, shared_asked) = read_small(&file, &ranges, Some(&pool));

        let expected: Vec<Bytes> = ranges
            .iter()
            .map(|r| file.slice(r.start as usize..r.end as usize))
            .collect();
        assert_eq!(alone, expected);
        assert_eq!(shared, expected);
        // 819,200 bytes side by side in runs of at most 256 KiB (32 chunks each: 4
        // runs), the lone chunk (its own source, fetched when the test reads it) and
        // one run of 3.
        let runs = vec![
            0..262_144,
            262_144..524_288,
            524_288..786_432,
            786_432..819_200,
            900_000..900_100,
            1_000_000..1_000_300,
        ];
        assert_eq!(alone_asked, runs);
        assert_eq!(shared_asked, runs);
    }

    #[test]
    fn a_short_read_of_small_chunks_is_an_error_on_a_pool_too() {
        let file = Bytes::from(vec![7u8; 10_000]);
        // The second run reaches past the end of the file.
        let ranges = [0..4_000, 4_000..8_000, 300_000..300_100, 300_100..300_200];
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let input: SharedInput = Arc::new(CountingInput {
            bytes: file,
            asked: Mutex::new(Vec::new()),
        });
        let Err(error) = small_chunk_sources(&input, &ranges, Some(&pool)) else {
            panic!("a run past the end of the file was read");
        };
        assert!(
            error.to_string().contains("bytes 300000..300200"),
            "{error}"
        );
    }
}
