//! Async reads: Parquet from any store that serves byte ranges asynchronously (an object
//! store, a remote file), as a [`Stream`] of `RecordBatch`es.
//!
//! The I/O is all here; the decoding is the reader's I/O-free core ([`ReadPlan`],
//! [`row_group_ranges`], [`RowGroupDecoder`]):
//!
//! ```text
//! footer: one ranged request of the last `size_hint` bytes (a second one only when the
//!         footer is longer than the hint)
//! per row group: the projected columns' chunk ranges, coalesced when they lie closer
//!         than `coalesce_gap`, in one get_byte_ranges call -> RowGroupDecoder, batch by batch
//!         while the next row group's fetch is already under way (with threads: two row
//!         groups decoded side by side, each opened once its fetch is done)
//! with a row selection: row groups without a selected row are not fetched; in a row
//!         group read in part, the chunks' offset indexes first (one call), then only the
//!         data pages holding a selected row and the dictionary pages, coalesced
//! ```
//!
//! [`AsyncFileReader`] is the one trait a store implements; with the `object_store` feature
//! [`ObjectStoreReader`] implements it over `object_store` 0.13 (the version DataFusion 55
//! uses).
//!
//! ```
//! # futures::executor::block_on(async {
//! use bytes::Bytes;
//! use futures::TryStreamExt;
//! use herringbone_arrow_bridge::async_read::ParquetRecordBatchStreamBuilder;
//! # use std::sync::Arc;
//! # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
//! # let column: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
//! # let batch = RecordBatch::try_from_iter([("a", column)]).unwrap();
//! # let mut file = Vec::new();
//! # let mut writer = herringbone_arrow_bridge::ArrowWriter::try_new(&mut file, batch.schema(), None).unwrap();
//! # writer.write(&batch).unwrap();
//! # writer.close().unwrap();
//! let file = Bytes::from(file); // anything implementing AsyncFileReader
//! let size = file.len() as u64;
//! let stream = ParquetRecordBatchStreamBuilder::try_new(file, size).await?.build()?;
//! let batches: Vec<_> = stream.try_collect().await?;
//! assert_eq!(batches[0].num_rows(), 3);
//! # Ok::<_, herringbone_arrow_bridge::Error>(()) }).unwrap();
//! ```

use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use futures::FutureExt;
use futures::future::BoxFuture;
use futures::stream::{BoxStream, Stream};
use herringbone_codec::page::{ChunkSource, PageLocations, PageReaderOptions};
use herringbone_format::footer::{
    FooterOptions, decode_file_metadata, decode_offset_index, offset_index_range, parse_footer_tail,
};
use herringbone_format::metadata::{FileMetaData, OffsetIndex};
use herringbone_format::schema::SchemaDescriptor;

use crate::error::{Error, ErrorKind, Result};
use crate::read::{
    DEFAULT_BATCH_SIZE, Lookahead, Next, Opened, Opening, ReadPlan, ResolvedFilter, RowFilter,
    RowGroupDecoder, RowSelection, RowSelector, row_group_ranges, take_rows,
};
use crate::schema::{Projection, SchemaOptions, parquet_to_arrow};

mod pages;
use crate::prune::selected_page_ranges;
use pages::{SparseChunk, rows_per_group};

#[cfg(feature = "object_store")]
mod object_store_reader;
#[cfg(feature = "object_store")]
pub use object_store_reader::ObjectStoreReader;

/// How many bytes the footer request fetches by default: most footers fit, so the footer
/// takes one request.
pub const DEFAULT_FOOTER_SIZE_HINT: u64 = 64 * 1024;

/// Chunks closer than this many bytes are fetched in one request by default.
pub const DEFAULT_COALESCE_GAP: u64 = 1024 * 1024;

/// A source of a file's bytes by range, asynchronously: what the async reader needs.
pub trait AsyncFileReader: Send + Sync {
    /// The bytes of `range`.
    fn get_bytes(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes>>;

    /// The bytes of each of `ranges`, in that order (one request per range unless the
    /// store does better).
    fn get_byte_ranges(&self, ranges: Vec<Range<u64>>) -> BoxFuture<'_, Result<Vec<Bytes>>> {
        Box::pin(async move {
            let mut out = Vec::with_capacity(ranges.len());
            for range in ranges {
                out.push(self.get_bytes(range).await?);
            }
            Ok(out)
        })
    }
}

impl AsyncFileReader for Bytes {
    fn get_bytes(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes>> {
        Box::pin(async move { crate::read::ChunkReader::get_bytes(self, range) })
    }
}

impl<T: AsyncFileReader + ?Sized> AsyncFileReader for Arc<T> {
    fn get_bytes(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes>> {
        (**self).get_bytes(range)
    }

    fn get_byte_ranges(&self, ranges: Vec<Range<u64>>) -> BoxFuture<'_, Result<Vec<Bytes>>> {
        (**self).get_byte_ranges(ranges)
    }
}

/// Checks that a store returned as many bytes as asked for.
fn checked(range: &Range<u64>, bytes: Bytes) -> Result<Bytes> {
    if bytes.len() as u64 != range.end.saturating_sub(range.start) {
        return Err(Error::new(
            ErrorKind::Io,
            format!(
                "the store returned {} bytes for byte range {range:?}",
                bytes.len()
            ),
        ));
    }
    Ok(bytes)
}

/// Reads the footer metadata of a file of `file_size` bytes: one request for the last
/// `size_hint` bytes (at least the 8-byte tail), and a second one for the rest of the
/// footer only when it is longer.
pub async fn read_metadata_async<R: AsyncFileReader + ?Sized>(
    reader: &R,
    file_size: u64,
    size_hint: u64,
) -> Result<FileMetaData> {
    if file_size < 12 {
        return Err(Error::new(
            ErrorKind::Format,
            format!("not a Parquet file: {file_size} bytes, at least 12 needed"),
        ));
    }
    let fetched_len = size_hint.clamp(8, file_size);
    let range = file_size - fetched_len..file_size;
    let fetched = checked(&range, reader.get_bytes(range.clone()).await?)?;
    let tail: [u8; 8] = fetched[fetched.len() - 8..]
        .try_into()
        .map_err(|_| Error::invalid_argument("short footer tail"))?;
    let metadata_len = parse_footer_tail(&tail).map_err(|e| {
        if e.kind() == herringbone_format::ErrorKind::Encrypted {
            Error::new(
                ErrorKind::Encrypted,
                "encrypted: keys required (the file's footer is encrypted)",
            )
        } else {
            Error::from(e)
        }
    })? as u64;
    if metadata_len > file_size - 12 {
        return Err(Error::new(
            ErrorKind::Format,
            format!("footer of {metadata_len} bytes does not fit a file of {file_size} bytes"),
        ));
    }
    let start = file_size - 8 - metadata_len;
    let footer = if metadata_len + 8 <= fetched_len {
        let from = (fetched_len - 8 - metadata_len) as usize;
        fetched.slice(from..fetched.len() - 8)
    } else {
        // The footer starts before what the hint fetched: fetch the missing head.
        let head_range = start..file_size - fetched_len;
        let head = checked(&head_range, reader.get_bytes(head_range.clone()).await?)?;
        let mut footer = Vec::with_capacity(metadata_len as usize);
        footer.extend_from_slice(&head);
        footer.extend_from_slice(&fetched[..fetched.len() - 8]);
        Bytes::from(footer)
    };
    Ok(decode_file_metadata(
        footer,
        &FooterOptions::default().with_base_offset(start),
    )?)
}

/// Where an input range lies after [`coalesce_ranges`]: the index of the merged range
/// holding it and its place inside that range.
pub type Placement = (usize, Range<usize>);

/// Merges `ranges` lying closer than `gap` bytes (or overlapping) into fewer, larger ones.
/// Returns the merged ranges, and for each input range the index of the merged range
/// holding it and its place inside.
pub fn coalesce_ranges(ranges: &[Range<u64>], gap: u64) -> (Vec<Range<u64>>, Vec<Placement>) {
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_by_key(|&i| (ranges[i].start, ranges[i].end));
    let mut merged: Vec<Range<u64>> = Vec::new();
    let mut place = vec![(0, 0..0); ranges.len()];
    let mut members: Vec<Vec<usize>> = Vec::new();
    for i in order {
        let r = &ranges[i];
        match merged.last_mut() {
            Some(last) if r.start <= last.end.saturating_add(gap) => {
                last.end = last.end.max(r.end);
                if let Some(m) = members.last_mut() {
                    m.push(i);
                }
            }
            _ => {
                merged.push(r.clone());
                members.push(vec![i]);
            }
        }
    }
    for (m, indices) in members.iter().enumerate() {
        for &i in indices {
            let start = (ranges[i].start - merged[m].start) as usize;
            let end = (ranges[i].end - merged[m].start) as usize;
            place[i] = (m, start..end);
        }
    }
    (merged, place)
}

/// Fetches `ranges` through `reader`, coalesced by `gap`, and slices each out.
async fn fetch<R: AsyncFileReader + ?Sized>(
    reader: &R,
    ranges: &[Range<u64>],
    gap: u64,
) -> Result<Vec<Bytes>> {
    let (merged, place) = coalesce_ranges(ranges, gap);
    let fetched = reader.get_byte_ranges(merged.clone()).await?;
    if fetched.len() != merged.len() {
        return Err(Error::new(
            ErrorKind::Io,
            format!(
                "the store returned {} buffers for {} byte ranges",
                fetched.len(),
                merged.len()
            ),
        ));
    }
    let fetched = merged
        .iter()
        .zip(fetched)
        .map(|(range, bytes)| checked(range, bytes))
        .collect::<Result<Vec<_>>>()?;
    Ok(place
        .into_iter()
        .map(|(m, inside)| fetched[m].slice(inside))
        .collect())
}

/// Builds a [`ParquetRecordBatchStream`]: which columns and row groups to read, in
/// batches of how many rows, and how to fetch.
pub struct ParquetRecordBatchStreamBuilder<R> {
    reader: Arc<R>,
    file_size: u64,
    metadata: Arc<FileMetaData>,
    descriptor: Arc<SchemaDescriptor>,
    schema_options: SchemaOptions,
    projection: Projection,
    row_groups: Option<Vec<usize>>,
    batch_size: usize,
    limit: Option<usize>,
    coalesce_gap: u64,
    verify_crc: bool,
    selection: Option<RowSelection>,
    offset_index: bool,
    row_filter: Option<RowFilter>,
    threads: usize,
}

impl<R> std::fmt::Debug for ParquetRecordBatchStreamBuilder<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRecordBatchStreamBuilder")
            .field("file_size", &self.file_size)
            .field("projection", &self.projection)
            .field("row_groups", &self.row_groups)
            .field("batch_size", &self.batch_size)
            .field("limit", &self.limit)
            .field("coalesce_gap", &self.coalesce_gap)
            .finish_non_exhaustive()
    }
}

impl<R: AsyncFileReader + 'static> ParquetRecordBatchStreamBuilder<R> {
    /// Reads the footer of a file of `file_size` bytes (one request of the last
    /// [`DEFAULT_FOOTER_SIZE_HINT`] bytes when the footer fits in them).
    pub async fn try_new(reader: R, file_size: u64) -> Result<Self> {
        Self::try_new_with_size_hint(reader, file_size, DEFAULT_FOOTER_SIZE_HINT).await
    }

    /// Like [`Self::try_new`], fetching the last `size_hint` bytes for the footer.
    pub async fn try_new_with_size_hint(reader: R, file_size: u64, size_hint: u64) -> Result<Self> {
        let metadata = read_metadata_async(&reader, file_size, size_hint).await?;
        Self::new_with_metadata(reader, file_size, Arc::new(metadata))
    }

    /// A builder over metadata already read (for example cached from an earlier read).
    pub fn new_with_metadata(
        reader: R,
        file_size: u64,
        metadata: Arc<FileMetaData>,
    ) -> Result<Self> {
        let descriptor = Arc::new(SchemaDescriptor::new(&metadata.schema)?);
        Ok(Self {
            reader: Arc::new(reader),
            file_size,
            metadata,
            descriptor,
            schema_options: SchemaOptions::default(),
            projection: Projection::All,
            row_groups: None,
            batch_size: DEFAULT_BATCH_SIZE,
            limit: None,
            coalesce_gap: DEFAULT_COALESCE_GAP,
            verify_crc: false,
            selection: None,
            offset_index: true,
            row_filter: None,
            threads: 1,
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

    /// The Arrow schema of the whole file (before projection).
    pub fn schema(&self) -> Result<SchemaRef> {
        Ok(parquet_to_arrow(
            &self.descriptor,
            self.metadata.key_value_metadata.as_deref(),
            &self.schema_options,
        )?
        .schema()
        .clone())
    }

    /// Rows per batch (default [`DEFAULT_BATCH_SIZE`]; 0 is read as 1).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Which fields to read.
    pub fn with_projection(mut self, projection: Projection) -> Self {
        self.projection = projection;
        self
    }

    /// Which row groups to read, in the order given.
    pub fn with_row_groups(mut self, row_groups: Vec<usize>) -> Self {
        self.row_groups = Some(row_groups);
        self
    }

    /// Reads at most `limit` rows.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Reads only the rows `selection` selects (over the row groups read, in order),
    /// as [`crate::read::ParquetRecordBatchReaderBuilder::with_row_selection`]. Row
    /// groups without a selected row are not fetched; of a row group read in part only
    /// the data pages holding a selected row (and the dictionary pages) are fetched,
    /// when its chunks have offset indexes (see [`Self::with_offset_index`]).
    pub fn with_row_selection(mut self, selection: RowSelection) -> Self {
        self.selection = Some(selection);
        self
    }

    /// Returns only the rows `filter` keeps, decoding the fields it reads first and the
    /// others only for those rows, as
    /// [`crate::read::ParquetRecordBatchReaderBuilder::with_row_filter`] does (the
    /// chunks are fetched as without a filter: the rows it keeps are not known before).
    /// The limit counts rows before the filter.
    pub fn with_row_filter(mut self, filter: RowFilter) -> Self {
        self.row_filter = Some(filter);
        self
    }

    /// Whether a row group read in part fetches its chunks' offset indexes and then
    /// only the pages it needs (default `true`); otherwise it fetches whole chunks.
    pub fn with_offset_index(mut self, use_offset_index: bool) -> Self {
        self.offset_index = use_offset_index;
        self
    }

    /// Chunks of a row group closer than `gap` bytes are fetched in one request (default
    /// [`DEFAULT_COALESCE_GAP`]; 0 merges only touching chunks).
    pub fn with_coalesce_gap(mut self, gap: u64) -> Self {
        self.coalesce_gap = gap;
        self
    }

    /// Decodes on `threads` threads, the polling thread and a pool of `threads - 1`
    /// (default 1: the polling thread alone, no pool); the batches are the same, in the
    /// same order, as with one thread. Decoding runs inside `poll_next`, as it does on
    /// one thread.
    ///
    /// As in the synchronous reader
    /// ([`with_threads`](crate::read::ParquetRecordBatchReaderBuilder::with_threads)),
    /// the columns of a batch and the batches of two row groups (the one being read and
    /// the next) are decoded side by side. A row group is opened once its chunks are
    /// fetched (one row group's fetch is under way at a time, started when the one
    /// before it is opened); until then the open ones go on decoding, and the stream
    /// waits on the fetch only when nothing is left to decode. Memory: the chunks of the
    /// row groups open and of the one being fetched, and beside the batch handed out at
    /// most the decoded batches of the next row group. With a row filter
    /// ([`Self::with_row_filter`]) row groups are read one at a time, their columns
    /// still decoded side by side.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Options of the Parquet -> Arrow type mapping.
    pub fn with_schema_options(mut self, options: SchemaOptions) -> Self {
        self.schema_options = options;
        self
    }

    /// Whether to check page CRCs where the writer stored them (default `false`).
    pub fn with_verify_crc(mut self, verify: bool) -> Self {
        self.verify_crc = verify;
        self
    }

    /// The stream.
    ///
    /// Errors for a projection or row group out of range, or encrypted columns
    /// ([`ErrorKind::Encrypted`]).
    pub fn build(self) -> Result<ParquetRecordBatchStream> {
        let mapping = parquet_to_arrow(
            &self.descriptor,
            self.metadata.key_value_metadata.as_deref(),
            &self.schema_options,
        )?
        .project(&self.projection)?;
        let num_row_groups = self.metadata.row_groups.len();
        let row_groups = match self.row_groups {
            Some(selected) => {
                if let Some(bad) = selected.iter().find(|&&g| g >= num_row_groups) {
                    return Err(Error::invalid_argument(format!(
                        "row group {bad} out of range (the file has {num_row_groups})"
                    )));
                }
                selected
            }
            None => (0..num_row_groups).collect(),
        };
        let encrypted = self.metadata.encryption_algorithm.is_some()
            || row_groups.iter().any(|&g| {
                self.metadata.row_groups[g]
                    .columns
                    .iter()
                    .any(|c| c.crypto_metadata.is_some() || c.encrypted_column_metadata.is_some())
            });
        if encrypted {
            return Err(Error::new(
                ErrorKind::Encrypted,
                "encrypted: keys required (the file's columns are encrypted)",
            ));
        }
        let options = PageReaderOptions::default().with_verify_crc(self.verify_crc);
        let mut plan = ReadPlan::new(self.descriptor, &mapping, options)?;
        let filter = match self.row_filter {
            Some(filter) => {
                let filter = filter.resolve(&plan)?;
                plan = plan.with_row_filter(&filter)?;
                Some(filter)
            }
            None => None,
        };
        let plan = Arc::new(plan);
        let schema = plan.schema().clone();
        // The selection (and limit) split by row group: groups without a selected row
        // are dropped, and the runs rebuilt over the groups kept.
        let sizes = row_groups
            .iter()
            .map(|&g| {
                usize::try_from(self.metadata.row_groups[g].num_rows)
                    .map_err(|_| Error::corrupt(format!("row group {g}: num_rows is negative")))
            })
            .collect::<Result<Vec<_>>>()?;
        let total = sizes.iter().fold(0usize, |a, &n| a.saturating_add(n));
        let mut selection = self.selection.unwrap_or_else(|| RowSelection::all(total));
        if let Some(limit) = self.limit {
            selection = selection.limit(limit);
        }
        let mut kept = VecDeque::new();
        let mut partial = HashMap::new();
        let mut kept_ranges = Vec::new();
        let mut kept_rows = 0;
        for ((&group, &rows), selected) in row_groups
            .iter()
            .zip(&sizes)
            .zip(rows_per_group(selection.selectors(), &sizes))
        {
            if selected.is_empty() {
                continue;
            }
            kept_ranges.extend(
                selected
                    .iter()
                    .map(|r| kept_rows + r.start..kept_rows + r.end),
            );
            kept_rows += rows;
            let whole = selected.len() == 1 && selected[0] == (0..rows);
            if self.offset_index && !whole {
                partial.insert(group, Arc::new(selected));
            }
            kept.push_back(group);
        }
        let runs = RowSelection::from_consecutive_ranges(kept_ranges, kept_rows).into_runs();
        let pool = crate::read::decode_pool(self.threads)?;
        // As in the synchronous reader: with threads and no row filter, row groups are
        // decoded ahead on the pool beside the one being read.
        let lookahead = pool
            .clone()
            .filter(|_| filter.is_none())
            .map(Lookahead::new);
        let state = StreamState {
            reader: self.reader,
            file_size: self.file_size,
            metadata: self.metadata,
            plan,
            row_groups: kept,
            current: None,
            prefetch: None,
            batch_size: self.batch_size,
            runs,
            partial,
            gap: self.coalesce_gap,
            filter,
            pool,
            lookahead,
        };
        let inner = futures::stream::unfold(Some(state), |state| async move {
            let mut state = state?;
            match state.next_batch().await {
                Ok(Some(batch)) => Some((Ok(batch), Some(state))),
                Ok(None) => None,
                // After an error the stream ends.
                Err(e) => Some((Err(e), None)),
            }
        });
        Ok(ParquetRecordBatchStream {
            schema,
            inner: Box::pin(inner),
        })
    }
}

/// A row group's fetched chunks (whole, or the pages a selection reads) and the offset
/// indexes that place their pages.
type Fetched = (Vec<Arc<dyn ChunkSource>>, Vec<Option<OffsetIndex>>);

/// The fetch of a row group's chunks, started ahead of its decoding.
enum Prefetch {
    Pending(usize, BoxFuture<'static, Result<Fetched>>),
    Ready(usize, Result<Fetched>),
}

impl Prefetch {
    /// The row group fetched.
    fn group(&self) -> usize {
        match self {
            Prefetch::Pending(group, _) | Prefetch::Ready(group, _) => *group,
        }
    }
}

struct StreamState<R> {
    reader: Arc<R>,
    file_size: u64,
    metadata: Arc<FileMetaData>,
    plan: Arc<ReadPlan>,
    row_groups: VecDeque<usize>,
    current: Option<RowGroupDecoder>,
    prefetch: Option<Prefetch>,
    batch_size: usize,
    /// What is left of the selection, over the row groups kept.
    runs: VecDeque<RowSelector>,
    /// The selected rows of each row group read in part (fetched page by page).
    partial: HashMap<usize, Arc<Vec<Range<usize>>>>,
    gap: u64,
    /// The row filter, evaluated between the fields it reads and the others.
    filter: Option<ResolvedFilter>,
    /// The decode threads (`None`: the polling thread alone).
    pool: Option<Arc<rayon::ThreadPool>>,
    /// With threads and no row filter: the row groups decoded ahead (the stream's
    /// `current` and `runs` are then theirs).
    lookahead: Option<Lookahead>,
}

impl<R: AsyncFileReader + 'static> StreamState<R> {
    async fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if let Some(mut lookahead) = self.lookahead.take() {
            let next = self.next_batch_ahead(&mut lookahead).await;
            self.lookahead = Some(lookahead);
            return next;
        }
        loop {
            if self.runs.is_empty() {
                return Ok(None);
            }
            if self.current.is_some() {
                // Let the next row group's requests progress before decoding.
                self.poll_prefetch().await;
            }
            if let Some(decoder) = &mut self.current {
                let batch = match &mut self.filter {
                    Some(filter) => {
                        decoder.next_filtered_batch(&mut self.runs, self.batch_size, filter)?
                    }
                    None => decoder.next_selected_batch(&mut self.runs, self.batch_size)?,
                };
                match batch {
                    // A filter may keep no row of a batch: the next one is read.
                    Some(batch) if batch.num_rows() == 0 && self.filter.is_some() => continue,
                    Some(batch) => return Ok(Some(batch)),
                    None => self.current = None,
                }
            }
            let Some(group) = self.row_groups.pop_front() else {
                return Ok(None);
            };
            let fetched = match self.prefetch.take() {
                Some(Prefetch::Ready(g, result)) if g == group => result?,
                Some(Prefetch::Pending(g, future)) if g == group => future.await?,
                _ => self.fetch(group)?.await?,
            };
            self.current = Some(self.decoder(group, fetched)?);
            // Start fetching the next row group while this one decodes.
            if let Some(&next) = self.row_groups.front() {
                self.prefetch = Some(Prefetch::Pending(next, self.fetch(next)?));
            }
        }
    }

    /// [`Self::next_batch`] with row groups decoded ahead on the pool. A row group is
    /// opened once its chunks are here: the lookahead asks at every step (while the
    /// fetch progresses between steps), and waits for them only when it has nothing
    /// else to decode.
    async fn next_batch_ahead(&mut self, lookahead: &mut Lookahead) -> Result<Option<RecordBatch>> {
        loop {
            self.poll_prefetch().await;
            match lookahead.next_batch(self.batch_size, &mut |_| self.open_fetched())? {
                Next::Batch(batch) => return Ok(Some(batch)),
                Next::RowGroupDone(_) => {}
                Next::End => return Ok(None),
                Next::Fetching => {
                    self.prefetch = match self.prefetch.take() {
                        Some(Prefetch::Pending(group, future)) => {
                            Some(Prefetch::Ready(group, future.await))
                        }
                        other => other,
                    };
                }
            }
        }
    }

    /// Lets the next row group's requests progress (one poll), keeping what they gave
    /// when they are done.
    async fn poll_prefetch(&mut self) {
        if let Some(Prefetch::Pending(group, future)) = &mut self.prefetch
            && let Poll::Ready(result) = futures::poll!(future)
        {
            self.prefetch = Some(Prefetch::Ready(*group, result));
        }
    }

    /// The next row group with selected rows, if its chunks are here (starting their
    /// fetch if not started, and the next row group's once they are taken), with the
    /// selection's runs over its rows.
    fn open_fetched(&mut self) -> Opened {
        let Some(&group) = self.row_groups.front() else {
            return Ok(Opening::End);
        };
        if self.prefetch.as_ref().map(Prefetch::group) != Some(group) {
            self.prefetch = Some(started(group, self.fetch(group)?));
        }
        let fetched = match self.prefetch.take() {
            Some(Prefetch::Ready(_, result)) => result?,
            pending => {
                self.prefetch = pending;
                return Ok(Opening::Fetching);
            }
        };
        self.row_groups.pop_front();
        let decoder = self.decoder(group, fetched)?;
        let rows = usize::try_from(self.metadata.row_groups[group].num_rows).unwrap_or(0);
        if let Some(&next) = self.row_groups.front() {
            self.prefetch = Some(started(next, self.fetch(next)?));
        }
        Ok(Opening::RowGroup(decoder, take_rows(&mut self.runs, rows)))
    }

    /// The decoder of row group `group` over its fetched chunks.
    fn decoder(&self, group: usize, (sources, indexes): Fetched) -> Result<RowGroupDecoder> {
        let decoder = RowGroupDecoder::from_sources_with_offset_indexes(
            self.plan.clone(),
            &self.metadata,
            group,
            sources,
            indexes,
        )
        .map_err(|e| e.context(format!("row group {group}")))?;
        Ok(decoder.with_pool(self.pool.clone()))
    }

    /// The fetch of row group `group`'s chunks (lazy: it starts when first polled):
    /// whole, or for a row group read in part, its offset indexes and then the pages
    /// holding selected rows.
    fn fetch(&self, group: usize) -> Result<BoxFuture<'static, Result<Fetched>>> {
        let ranges = row_group_ranges(&self.metadata, group, self.plan.columns(), self.file_size)?;
        let reader = self.reader.clone();
        let gap = self.gap;
        let selected = self.partial.get(&group).cloned();
        let metadata = self.metadata.clone();
        let columns = self.plan.columns().to_vec();
        let file_size = self.file_size;
        Ok(Box::pin(async move {
            let fetched = match selected {
                None => fetch_whole(reader.as_ref(), &ranges, gap).await,
                Some(rows) => {
                    fetch_pages(
                        reader.as_ref(),
                        &metadata,
                        group,
                        &columns,
                        (&ranges, file_size),
                        &rows,
                        gap,
                    )
                    .await
                }
            };
            fetched.map_err(|e| e.context(format!("fetching row group {group}")))
        }))
    }
}

/// The fetch of row group `group`, polled once so that it is under way while the step
/// that opened the row group before it decodes (a fetch starts when first polled, and
/// the stream polls with its waker only between steps). The poll's waker does nothing:
/// the stream polls the fetch again before it waits on it.
fn started(group: usize, mut fetch: BoxFuture<'static, Result<Fetched>>) -> Prefetch {
    match (&mut fetch).now_or_never() {
        Some(result) => Prefetch::Ready(group, result),
        None => Prefetch::Pending(group, fetch),
    }
}

/// A row group's whole chunks.
async fn fetch_whole<R: AsyncFileReader + ?Sized>(
    reader: &R,
    ranges: &[Range<u64>],
    gap: u64,
) -> Result<Fetched> {
    let chunks = fetch(reader, ranges, gap).await?;
    let sources = chunks
        .into_iter()
        .map(|bytes| Arc::new(SparseChunk::new(bytes.len(), vec![(0, bytes)])) as _)
        .collect();
    Ok((sources, Vec::new()))
}

/// Of a row group, the offset indexes of its chunks, then the pages holding `rows`
/// (and the dictionary pages) of each chunk that has one, the others whole.
async fn fetch_pages<R: AsyncFileReader + ?Sized>(
    reader: &R,
    metadata: &FileMetaData,
    group: usize,
    columns: &[usize],
    (ranges, file_size): (&[Range<u64>], u64),
    rows: &[Range<usize>],
    gap: u64,
) -> Result<Fetched> {
    let chunks = &metadata.row_groups[group].columns;
    let file_len = usize::try_from(file_size).unwrap_or(usize::MAX);
    let mut index_ranges = Vec::new();
    let mut has_index = Vec::with_capacity(columns.len());
    for &c in columns {
        let range = match chunks.get(c) {
            Some(chunk) if chunk.crypto_metadata.is_none() => offset_index_range(chunk, file_len)?,
            _ => None,
        };
        has_index.push(range.is_some());
        index_ranges.extend(range.map(|r| r.start as u64..r.end as u64));
    }
    let mut index_bytes = fetch(reader, &index_ranges, gap)
        .await?
        .into_iter()
        .zip(index_ranges);
    let group_rows = metadata.row_groups[group].num_rows as u64;
    let mut indexes = Vec::with_capacity(columns.len());
    let mut wanted = Vec::new();
    // Per column: where its pieces start in the chunk, and their index in `wanted`.
    let mut placed: Vec<Vec<(usize, usize)>> = Vec::with_capacity(columns.len());
    for ((&c, chunk), indexed) in columns.iter().zip(ranges).zip(has_index) {
        let chunk_len = (chunk.end - chunk.start) as usize;
        let index = match indexed.then(|| index_bytes.next()).flatten() {
            Some((bytes, range)) => {
                Some(decode_offset_index(&bytes, range.start).map_err(|e| {
                    Error::from(e).context(format!("row group {group}, leaf column {c}"))
                })?)
            }
            None => None,
        };
        let pieces = match &index {
            Some(index) => {
                let locations =
                    PageLocations::new(&index.page_locations, chunk.start, chunk_len, group_rows)
                        .map_err(|e| {
                        Error::from(e).context(format!("row group {group}, leaf column {c}"))
                    })?;
                selected_page_ranges(&locations, rows)
            }
            None => std::iter::once(0..chunk_len).collect(),
        };
        placed.push(
            pieces
                .iter()
                .map(|p| {
                    wanted.push(chunk.start + p.start as u64..chunk.start + p.end as u64);
                    (p.start, wanted.len() - 1)
                })
                .collect(),
        );
        indexes.push(index);
    }
    let fetched = fetch(reader, &wanted, gap).await?;
    let sources = ranges
        .iter()
        .zip(placed)
        .map(|(chunk, pieces)| {
            let pieces = pieces
                .into_iter()
                .map(|(start, i)| (start, fetched[i].clone()))
                .collect();
            Arc::new(SparseChunk::new((chunk.end - chunk.start) as usize, pieces)) as _
        })
        .collect();
    Ok((sources, indexes))
}

/// A [`Stream`] of `RecordBatch`es read from a Parquet file through an
/// [`AsyncFileReader`]; built by [`ParquetRecordBatchStreamBuilder`]. After an error it
/// yields nothing more.
pub struct ParquetRecordBatchStream {
    schema: SchemaRef,
    inner: BoxStream<'static, Result<RecordBatch>>,
}

impl ParquetRecordBatchStream {
    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

impl std::fmt::Debug for ParquetRecordBatchStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRecordBatchStream")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl Stream for ParquetRecordBatchStream {
    type Item = Result<RecordBatch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coalescing_merges_near_ranges_and_keeps_each_place() {
        let ranges = [100..200, 0..50, 250..300, 5000..5100, 260..270];
        let (merged, place) = coalesce_ranges(&ranges, 60);
        assert_eq!(merged, [0..300, 5000..5100]);
        assert_eq!(
            place,
            [
                (0, 100..200),
                (0, 0..50),
                (0, 250..300),
                (1, 0..100),
                (0, 260..270)
            ]
        );
        let (merged, _) = coalesce_ranges(&ranges, 0);
        assert_eq!(merged, [0..50, 100..200, 250..300, 5000..5100]);
        assert_eq!(coalesce_ranges(&[], 10).0, Vec::<Range<u64>>::new());
    }
}
