//! Reading a file of an `object_store` under the synchronous scan: the byte ranges a
//! row group needs are fetched ahead, coalesced, and the scan reads them from memory.
//!
//! A scan partition runs on a blocking thread. For each row group it asks the scan
//! which ranges it will read ([`ScanBuilder::byte_ranges`](herringbone::scan::ScanBuilder::byte_ranges)), fetches them with one
//! `get_ranges` call on the runtime while the previous row group decodes (the store
//! merges ranges close enough to be cheaper as one request), and hands
//! the scan a [`FetchedRanges`]: a [`ChunkReader`] over those blocks. A range the plan
//! did not foresee (a Bloom filter whose length the metadata leaves out) is fetched on
//! its own, blocking, and counted.
//!
//! With a predicate, a row group is fetched in two requests: first its indexes
//! ([`ScanBuilder::index_ranges`](herringbone::scan::ScanBuilder::index_ranges):
//! column and offset indexes, Bloom filters), with which the scan prunes; then only
//! the pages pruning keeps ([`ScanBuilder::pruned_byte_ranges`](herringbone::scan::ScanBuilder::pruned_byte_ranges)),
//! so that a selective filter on a sorted column fetches a few pages of each chunk,
//! not the chunks.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use herringbone::async_read::{AsyncFileReader, ObjectStoreReader, coalesce_ranges};
use herringbone::read::ChunkReader;
use herringbone::{Error, ErrorKind};
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// Only ranges that touch or overlap are merged here: one `get_ranges` call asks for
/// all of a row group's ranges, and the store merges nearby ones by its own measure
/// of what a request costs (`object_store` merges ranges less than 1 MiB apart).
const COALESCE_GAP: u64 = 0;

/// What the scans of a table fetched from its store.
#[derive(Debug, Default)]
pub struct FetchCounts {
    requests: AtomicU64,
    bytes: AtomicU64,
    unplanned: AtomicU64,
}

impl FetchCounts {
    /// `get_ranges` calls made for row groups, plus single unplanned fetches.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Bytes fetched.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Fetches the plan did not foresee (each also counted in `requests`).
    pub fn unplanned(&self) -> u64 {
        self.unplanned.load(Ordering::Relaxed)
    }

    fn add(&self, requests: u64, bytes: u64) {
        self.requests.fetch_add(requests, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }
}

/// One object of a store, read by a scan partition on a blocking thread.
#[derive(Debug, Clone)]
pub(crate) struct StoreFile {
    pub reader: ObjectStoreReader,
    pub size: u64,
}

/// The fetch of one row group's ranges, running on the runtime.
pub(crate) struct Prefetch(JoinHandle<herringbone::Result<Vec<(u64, Bytes)>>>);

impl StoreFile {
    /// Starts fetching `ranges` (coalesced) on `runtime`; the blocks of `held` (fetched
    /// before) are kept beside them.
    pub fn prefetch(
        &self,
        runtime: &Handle,
        ranges: Vec<Range<u64>>,
        held: Vec<(u64, Bytes)>,
        counts: Arc<FetchCounts>,
    ) -> Prefetch {
        let reader = self.reader.clone();
        Prefetch(runtime.spawn(async move {
            let (merged, _) = coalesce_ranges(&ranges, COALESCE_GAP);
            let mut out = held;
            if !merged.is_empty() {
                let blocks = reader.get_byte_ranges(merged.clone()).await?;
                let bytes: u64 = blocks.iter().map(|b| b.len() as u64).sum();
                counts.add(1, bytes);
                for (range, block) in merged.iter().zip(blocks) {
                    if block.len() as u64 != range.end - range.start {
                        return Err(Error::new(
                            ErrorKind::Io,
                            format!(
                                "the store returned {} bytes for byte range {range:?}",
                                block.len()
                            ),
                        ));
                    }
                    out.push((range.start, block));
                }
            }
            out.sort_unstable_by_key(|(start, _)| *start);
            Ok(out)
        }))
    }

    /// A reader of the object with nothing fetched yet (each read a request of its own):
    /// what a scan is planned with.
    pub fn nothing_fetched(&self, runtime: &Handle, counts: Arc<FetchCounts>) -> FetchedRanges {
        FetchedRanges {
            file: self.clone(),
            runtime: runtime.clone(),
            blocks: Vec::new(),
            counts,
        }
    }

    /// Waits for a prefetch (on a blocking thread) and wraps its blocks for the scan.
    pub fn fetched(
        &self,
        runtime: &Handle,
        prefetch: Prefetch,
        counts: Arc<FetchCounts>,
    ) -> herringbone::Result<FetchedRanges> {
        let blocks = runtime
            .block_on(prefetch.0)
            .map_err(|e| Error::new(ErrorKind::Io, format!("the fetch task failed: {e}")))??;
        Ok(FetchedRanges {
            file: self.clone(),
            runtime: runtime.clone(),
            blocks,
            counts,
        })
    }
}

/// The blocks fetched for one row group, as the [`ChunkReader`] its scan reads.
#[derive(Clone)]
pub(crate) struct FetchedRanges {
    file: StoreFile,
    runtime: Handle,
    /// `(start, bytes)` in file order, not overlapping.
    blocks: Vec<(u64, Bytes)>,
    counts: Arc<FetchCounts>,
}

impl FetchedRanges {
    /// The blocks held, in file order.
    pub fn into_blocks(self) -> Vec<(u64, Bytes)> {
        self.blocks
    }

    /// The block holding byte `start`, from `start` on, if one does.
    fn from(&self, start: u64) -> Option<Bytes> {
        let at = self.blocks.partition_point(|(s, _)| *s <= start);
        let (block_start, block) = &self.blocks[at.checked_sub(1)?];
        let offset = usize::try_from(start - block_start).ok()?;
        (offset < block.len()).then(|| block.slice(offset..))
    }
}

impl ChunkReader for FetchedRanges {
    fn len(&self) -> u64 {
        self.file.size
    }

    fn get_bytes_within(&self, range: Range<u64>, needed_end: u64) -> herringbone::Result<Bytes> {
        // What a block holds, when it holds what is needed: the page reader's look
        // ahead past a page need not be fetched.
        if range.start <= needed_end
            && needed_end <= range.end
            && let Some(held) = self.from(range.start)
            && held.len() as u64 >= needed_end - range.start
        {
            let wanted = usize::try_from(range.end - range.start).unwrap_or(usize::MAX);
            return Ok(held.slice(..held.len().min(wanted)));
        }
        self.get_bytes(range)
    }

    fn get_bytes(&self, range: Range<u64>) -> herringbone::Result<Bytes> {
        if range.start > range.end || range.end > self.file.size {
            return Err(Error::invalid_argument(format!(
                "byte range {range:?} outside an object of {} bytes",
                self.file.size
            )));
        }
        // The last block starting at or before the range holds it, if any does.
        let at = self
            .blocks
            .partition_point(|(start, _)| *start <= range.start);
        if let Some((start, block)) = at.checked_sub(1).map(|i| &self.blocks[i])
            && range.end - start <= block.len() as u64
        {
            return Ok(block.slice((range.start - start) as usize..(range.end - start) as usize));
        }
        let bytes = self.runtime.block_on(self.file.reader.get_bytes(range))?;
        self.counts.add(1, bytes.len() as u64);
        self.counts.unplanned.fetch_add(1, Ordering::Relaxed);
        Ok(bytes)
    }
}
