//! A filtered read: a [`Predicate`] prunes row groups (chunk statistics, Bloom filters)
//! and pages (the page index) before anything is decoded, then selects the matching
//! rows of every batch inside the reader: the predicate's fields are decoded first, the
//! other projected fields only for the rows it keeps (late materialisation, see
//! [`RowFilter`]; a field both filtered on and returned is decoded once).
//!
//! ```text
//! ScanBuilder ── Pruner: row groups ── Bloom filters ── page index ──> RowSelection
//!     └─> ParquetRecordBatchReader (projection ∪ predicate columns, the selection,
//!         │                         the predicate as a RowFilter)
//!         └─ per batch: predicate fields ─> mask ─> other fields for the kept rows
//!             └─> Scan: offset, limit, projection ──> batches
//! ```
//!
//! ```
//! # use std::sync::Arc;
//! # use arrow_array::{ArrayRef, Int32Array, StringArray, RecordBatch, cast::AsArray, types::Int32Type};
//! # use bytes::Bytes;
//! use herringbone_arrow_bridge::predicate::Predicate;
//! use herringbone_arrow_bridge::scan::ScanBuilder;
//! # use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
//! # let x: ArrayRef = Arc::new(Int32Array::from((0..100).collect::<Vec<i32>>()));
//! # let tag: ArrayRef = Arc::new(StringArray::from_iter_values((0..100).map(|i| if i % 2 == 0 { "even" } else { "odd" })));
//! # let batch = RecordBatch::try_from_iter([("x", x), ("tag", tag)]).unwrap();
//! # let props = WriterProperties::builder().set_max_row_group_rows(10).build();
//! # let mut file = Vec::new();
//! # let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).unwrap();
//! # writer.write(&batch).unwrap();
//! # writer.close().unwrap();
//! // `file`: x = 0..100 in ten row groups, tag = "even" / "odd".
//! let mut scan = ScanBuilder::try_new(Bytes::from(file))
//!     .unwrap()
//!     .with_predicate(Predicate::parse("x >= 35 AND x < 52 AND tag = 'odd'").unwrap())
//!     .build()
//!     .unwrap();
//! let batches: Vec<RecordBatch> = scan.by_ref().collect::<Result<_, _>>().unwrap();
//! let x: Vec<i32> = batches.iter().flat_map(|b| b.column(0).as_primitive::<Int32Type>().values().to_vec()).collect();
//! assert_eq!(x, [35, 37, 39, 41, 43, 45, 47, 49, 51]);
//! let metrics = scan.metrics();
//! assert_eq!((metrics.row_groups_read, metrics.row_groups_total), (3, 10));
//! assert_eq!(metrics.rows_matched, 9);
//! ```

use std::ops::Range;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, RecordBatch, RecordBatchOptions, RecordBatchReader, StructArray,
};
use arrow_schema::{ArrowError, DataType, Field, SchemaRef};
use bytes::Bytes;
use herringbone_codec::crypto::{FileDecryptionProperties, FileDecryptor};
use herringbone_codec::page::PageLocations;
use herringbone_format::footer::column_index_range;
use herringbone_format::metadata::FileMetaData;
use herringbone_format::schema::SchemaDescriptor;

use crate::decryption::chunk_decryptor;
use crate::error::{Error, Result};
use crate::predicate::{BoundPredicate, Predicate};
use crate::prune::{self, Pruner, RowRanges};
use crate::read::{
    ChunkReader, ExternalFiles, OffsetIndexFetch, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder, ReaderMetadata, RowFilter, row_group_ranges,
};
use crate::schema::{ArrowSchemaMapping, Projection, SchemaOptions, parquet_to_arrow};

/// What a scan skipped and read. Row groups and rows count those of the row groups
/// the scan was asked for (all, or [`ScanBuilder::with_row_groups`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanMetrics {
    /// Row groups asked for.
    pub row_groups_total: usize,
    /// Row groups skipped by their column chunk statistics.
    pub row_groups_pruned_by_statistics: usize,
    /// Row groups skipped by a Bloom filter (after the statistics kept them).
    pub row_groups_pruned_by_bloom_filter: usize,
    /// Row groups skipped because the page index kept none of their rows.
    pub row_groups_pruned_by_page_index: usize,
    /// Row groups read.
    pub row_groups_read: usize,
    /// Data pages of the columns read, in the row groups asked for (counted from
    /// offset indexes; only with [`ScanBuilder::with_page_counts`], and only chunks
    /// that have one).
    pub pages_total: usize,
    /// Of those, the pages holding a selected row.
    pub pages_selected: usize,
    /// Rows in the row groups asked for.
    pub rows_total: u64,
    /// Rows left after pruning (the rows decoded and tested).
    pub rows_selected: u64,
    /// Rows where the predicate is true (returned, before the limit).
    pub rows_matched: u64,
    /// Rows the predicate's fields were decoded for and the other projected fields
    /// were not, as the predicate was false (late materialisation; see
    /// [`crate::read::RowFilter`]). Grows as batches are returned.
    pub rows_filtered_late: u64,
    /// Data pages of the other projected fields stepped over without decompression
    /// in skips the predicate made or lengthened (not counting the pages the page
    /// index pruned). Grows as batches are returned.
    pub pages_skipped_late: usize,
}

/// Whether each pruning source is used (all are by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PruningOptions {
    /// Column chunk statistics.
    pub statistics: bool,
    /// Bloom filters (for `=` and `IN`).
    pub bloom_filters: bool,
    /// The page index (column index and offset index).
    pub page_index: bool,
}

impl Default for PruningOptions {
    fn default() -> Self {
        Self {
            statistics: true,
            bloom_filters: true,
            page_index: true,
        }
    }
}

/// A file read through a shared handle: the pruner reads the indexes and Bloom filters
/// through it, the reader the column chunks.
struct Shared<T>(Arc<T>);

impl<T: ChunkReader + Sync> ChunkReader for Shared<T> {
    fn len(&self) -> u64 {
        self.0.len()
    }

    fn get_bytes(&self, range: Range<u64>) -> Result<Bytes> {
        self.0.get_bytes(range)
    }

    fn get_bytes_within(&self, range: Range<u64>, needed_end: u64) -> Result<Bytes> {
        self.0.get_bytes_within(range, needed_end)
    }

    fn reads_side_by_side(&self) -> bool {
        self.0.reads_side_by_side()
    }
}

/// Builds a [`Scan`]: a read with a predicate (see the [module documentation](self)).
pub struct ScanBuilder<T> {
    input: Arc<T>,
    builder: ParquetRecordBatchReaderBuilder<Shared<T>>,
    schema_options: SchemaOptions,
    projection: Projection,
    predicate: Option<Predicate>,
    row_groups: Option<Vec<usize>>,
    batch_size: Option<usize>,
    offset: usize,
    limit: Option<usize>,
    pruning: PruningOptions,
    page_counts: bool,
    min_rows_per_run: usize,
}

impl<T: ChunkReader + Sync + 'static> ScanBuilder<T> {
    /// Reads the footer of `input`.
    pub fn try_new(input: T) -> Result<Self> {
        Self::open(input, None)
    }

    /// Reads the footer of an encrypted `input` with `decryption`'s keys.
    ///
    /// Pruning works as on a plaintext file: the statistics come from the decrypted
    /// metadata, and the page indexes and Bloom filters of encrypted chunks are
    /// decrypted with their column's key. A predicate on a column whose key was not
    /// given is an error naming the column.
    pub fn try_new_with_decryption(
        input: T,
        decryption: &FileDecryptionProperties,
    ) -> Result<Self> {
        Self::open(input, Some(decryption))
    }

    /// A scan of `input`, whose footer was read before (see [`ReaderMetadata`]): no
    /// footer is read again, so a table opened once can scan its files many times.
    pub fn new_with_metadata(input: T, footer: ReaderMetadata) -> Self {
        let input = Arc::new(input);
        let builder =
            ParquetRecordBatchReaderBuilder::new_with_metadata(Shared(input.clone()), footer);
        Self::with_builder(input, builder)
    }

    fn open(input: T, decryption: Option<&FileDecryptionProperties>) -> Result<Self> {
        let footer = ReaderMetadata::load_with_decryption(&input, decryption)?;
        Ok(Self::new_with_metadata(input, footer))
    }

    fn with_builder(input: Arc<T>, builder: ParquetRecordBatchReaderBuilder<Shared<T>>) -> Self {
        Self {
            input,
            builder,
            schema_options: SchemaOptions::default(),
            projection: Projection::All,
            predicate: None,
            row_groups: None,
            batch_size: None,
            offset: 0,
            limit: None,
            pruning: PruningOptions::default(),
            page_counts: false,
            min_rows_per_run: crate::read::MIN_ROWS_PER_RUN,
        }
    }

    /// The file's metadata.
    pub fn metadata(&self) -> &Arc<FileMetaData> {
        self.builder.metadata()
    }

    /// The file's Parquet schema.
    pub fn parquet_schema(&self) -> &Arc<SchemaDescriptor> {
        self.builder.parquet_schema()
    }

    /// The Arrow schema of the whole file (before projection).
    pub fn schema(&self) -> Result<SchemaRef> {
        Ok(self.mapping()?.schema().clone())
    }

    /// The file's schema mapping under the current schema options.
    pub fn mapping(&self) -> Result<ArrowSchemaMapping> {
        parquet_to_arrow(
            self.parquet_schema(),
            self.metadata().key_value_metadata.as_deref(),
            &self.schema_options,
        )
    }

    /// Options of the Parquet -> Arrow type mapping.
    pub fn with_schema_options(mut self, options: SchemaOptions) -> Self {
        self.schema_options = options.clone();
        self.builder = self.builder.with_schema_options(options);
        self
    }

    /// Which fields to return (the predicate may read others).
    pub fn with_projection(mut self, projection: Projection) -> Self {
        self.projection = projection;
        self
    }

    /// Returns only the rows where `predicate` is true.
    pub fn with_predicate(mut self, predicate: Predicate) -> Self {
        self.predicate = Some(predicate);
        self
    }

    /// Which row groups to consider, in this order.
    pub fn with_row_groups(mut self, row_groups: Vec<usize>) -> Self {
        self.row_groups = Some(row_groups);
        self
    }

    /// Rows per batch read (a batch returned holds the matching rows of one).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = Some(batch_size);
        self
    }

    /// Skips the first `offset` matching rows (before the limit).
    pub fn with_offset(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }

    /// Returns at most `limit` matching rows.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Which pruning sources to use.
    pub fn with_pruning(mut self, pruning: PruningOptions) -> Self {
        self.pruning = pruning;
        self
    }

    /// When the columns the predicate does not read are decoded for the matching rows
    /// only (see [`RowFilter::with_min_rows_per_run`]; default
    /// [`crate::read::MIN_ROWS_PER_RUN`]).
    pub fn with_min_rows_per_run(mut self, rows: usize) -> Self {
        self.min_rows_per_run = rows;
        self
    }

    /// Reads on past damage, dropping the rows lost and reporting them
    /// ([`ParquetRecordBatchReaderBuilder::with_salvage`]; [`Scan::salvage_report`]).
    pub fn with_salvage(mut self, salvage: bool) -> Self {
        self.builder = self.builder.with_salvage(salvage);
        self
    }

    /// Decodes on a pool of `threads` threads
    /// ([`ParquetRecordBatchReaderBuilder::with_threads`]); the predicate is evaluated
    /// on the caller's thread.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.builder = self.builder.with_threads(threads);
        self
    }

    /// Reads column chunks stored in other files through `files`
    /// ([`ParquetRecordBatchReaderBuilder::with_external_files`]); their page indexes
    /// and Bloom filters are in those files and not used for pruning (their statistics
    /// are).
    pub fn with_external_files(mut self, files: Arc<dyn ExternalFiles>) -> Self {
        self.builder = self.builder.with_external_files(files);
        self
    }

    /// The byte ranges the scan may read from `row_group`, in file order: the column
    /// chunks of the projection's and the predicate's leaves, and with a predicate the
    /// [index ranges](Self::index_ranges) of the row group.
    ///
    /// An engine reading from an object store fetches these ahead, coalesced, while it
    /// decodes the previous row group, and serves the scan from memory; or, to fetch
    /// less, the index ranges first and then [`Self::pruned_byte_ranges`]. Errors for
    /// a row group out of range, a predicate that does not bind, and chunk offsets
    /// outside the file.
    pub fn byte_ranges(&self, row_group: usize) -> Result<Vec<Range<u64>>> {
        let leaves = self.leaves_for(row_group)?;
        let mut ranges =
            row_group_ranges(self.metadata(), row_group, &leaves.read, self.input.len())?;
        ranges.extend(self.index_ranges_of(row_group, &leaves)?);
        ranges.sort_unstable_by_key(|r| (r.start, r.end));
        Ok(ranges)
    }

    /// The byte ranges pruning and the reader read from `row_group` before any page,
    /// in file order (none without a predicate): the column indexes and Bloom filters
    /// of the predicate's leaves that pruning reads, and the offset indexes of every
    /// leaf read, by which the reader jumps over pruned pages. A Bloom filter whose
    /// length the metadata does not give is left out (the scan finds its end itself).
    pub fn index_ranges(&self, row_group: usize) -> Result<Vec<Range<u64>>> {
        let leaves = self.leaves_for(row_group)?;
        let mut ranges = self.index_ranges_of(row_group, &leaves)?;
        ranges.sort_unstable_by_key(|r| (r.start, r.end));
        Ok(ranges)
    }

    /// The byte ranges of column data the scan reads from `row_group` after pruning, in
    /// file order: none for a row group that statistics, Bloom filters or the page
    /// index prune whole; otherwise, of each leaf read, the bytes before its first data
    /// page (the dictionary page) and the data pages holding a row the page index
    /// keeps (the whole chunk of a leaf without an offset index). Without a predicate,
    /// the whole chunks.
    ///
    /// Pruning reads the [index ranges](Self::index_ranges) through the scan's input:
    /// an engine fetches those first, then these, and serves the scan from both. The
    /// rows a row filter drops inside a kept page cannot be known before decoding, so
    /// their pages are included.
    pub fn pruned_byte_ranges(&self, row_group: usize) -> Result<Vec<Range<u64>>> {
        let leaves = self.leaves_for(row_group)?;
        let metadata = self.metadata().clone();
        let file_len = self.input.len();
        let chunks = row_group_ranges(&metadata, row_group, &leaves.read, file_len)?;
        let Some(bound) = &leaves.bound else {
            return Ok(chunks);
        };
        let group_rows = u64::try_from(metadata.row_groups[row_group].num_rows).unwrap_or(0);
        let mapping = self.mapping()?;
        let pruner = Pruner::try_new(bound, &metadata, self.parquet_schema(), &mapping)?
            .with_decryptor(self.builder.decryptor().cloned());
        if self.pruning.statistics && !pruner.row_groups(&metadata, &[row_group])?[0] {
            return Ok(Vec::new());
        }
        if self.pruning.bloom_filters
            && !pruner.row_groups_with_bloom_filters(
                &metadata,
                self.input.as_ref(),
                &[row_group],
            )?[0]
        {
            return Ok(Vec::new());
        }
        if !self.pruning.page_index {
            return Ok(chunks);
        }
        let kept = pruner.page_ranges(&metadata, self.input.as_ref(), row_group)?;
        if kept.is_empty() {
            return Ok(Vec::new());
        }
        if kept.row_count() == group_rows {
            return Ok(chunks);
        }
        let rows: Vec<Range<usize>> = kept
            .ranges()
            .iter()
            .map(|r| {
                let start = usize::try_from(r.start).unwrap_or(usize::MAX);
                let end = usize::try_from(r.end).unwrap_or(usize::MAX);
                start..end
            })
            .collect();
        let group = &metadata.row_groups[row_group];
        let mut out = Vec::with_capacity(chunks.len());
        for (&leaf, chunk_range) in leaves.read.iter().zip(chunks) {
            let chunk = group
                .columns
                .get(leaf)
                .filter(|c| c.crypto_metadata.is_none());
            let index = match chunk {
                Some(chunk) => prune::read_offset_index(self.input.as_ref(), chunk, None)?,
                None => None,
            };
            let Some(index) = index else {
                out.push(chunk_range);
                continue;
            };
            let chunk_len = usize::try_from(chunk_range.end - chunk_range.start)
                .map_err(|_| Error::invalid_argument("column chunk too large"))?;
            let locations = PageLocations::new(
                &index.page_locations,
                chunk_range.start,
                chunk_len,
                group_rows,
            )
            .map_err(|e| {
                Error::from(e).context(format!("row group {row_group}, leaf column {leaf}"))
            })?;
            out.extend(
                prune::selected_page_ranges(&locations, &rows)
                    .into_iter()
                    .map(|r| chunk_range.start + r.start as u64..chunk_range.start + r.end as u64),
            );
        }
        out.sort_unstable_by_key(|r| (r.start, r.end));
        Ok(out)
    }

    /// The predicate bound to the file's schema and the leaves read from `row_group`
    /// (checked to exist).
    fn leaves_for(&self, row_group: usize) -> Result<ScanLeaves> {
        let metadata = self.metadata();
        if row_group >= metadata.row_groups.len() {
            return Err(Error::invalid_argument(format!(
                "row group {row_group} out of range (the file has {})",
                metadata.row_groups.len()
            )));
        }
        let mapping = self.mapping()?;
        let output = mapping.project(&self.projection)?;
        let bound = match &self.predicate {
            Some(p) => Some(p.bind(mapping.schema())?),
            None => None,
        };
        let (read, predicate) = leaves_to_read(&output, &mapping, bound.as_ref());
        Ok(ScanLeaves {
            bound,
            read,
            predicate,
        })
    }

    fn index_ranges_of(&self, row_group: usize, leaves: &ScanLeaves) -> Result<Vec<Range<u64>>> {
        if leaves.bound.is_none() {
            return Ok(Vec::new());
        }
        let metadata = self.metadata();
        let group = &metadata.row_groups[row_group];
        let file_len = self.input.len();
        let len = usize::try_from(file_len).unwrap_or(usize::MAX);
        let as_u64 = |r: Range<usize>| r.start as u64..r.end as u64;
        // The page index prunes with the predicate's column indexes; the reader of a
        // filtered scan jumps pages by the offset indexes of every leaf it reads (the
        // pages the page index pruned, and those the predicate drops whole), fetched
        // as the reader fetches them.
        let mut ranges =
            OffsetIndexFetch::plan(metadata, row_group, &leaves.read, file_len)?.fetches();
        for &leaf in &leaves.predicate {
            let Some(chunk) = group.columns.get(leaf) else {
                continue;
            };
            if self.pruning.page_index {
                ranges.extend(column_index_range(chunk, len)?.map(as_u64));
            }
            let bloom = chunk.meta_data.as_ref().and_then(|m| {
                let start = u64::try_from(m.bloom_filter_offset?).ok()?;
                let len = u64::try_from(m.bloom_filter_length?).ok()?;
                Some(start..start.checked_add(len)?)
            });
            if let Some(bloom) = bloom.filter(|r| self.pruning.bloom_filters && r.end <= file_len) {
                ranges.push(bloom);
            }
        }
        Ok(ranges)
    }

    /// Counts the pages of the columns read and the pages selected (reads the offset
    /// index of every column read; off by default).
    pub fn with_page_counts(mut self, on: bool) -> Self {
        self.page_counts = on;
        self
    }

    /// Prunes and builds the scan.
    ///
    /// Errors for a predicate that does not bind to the file's schema (a missing
    /// column, a literal that is not a value of its column's type), a projection or
    /// row group out of range, and an invalid page index or Bloom filter.
    pub fn build(self) -> Result<Scan> {
        let metadata = self.metadata().clone();
        let descriptor = self.parquet_schema().clone();
        let mapping = self.mapping()?;
        let output = mapping.project(&self.projection)?;
        let num_row_groups = metadata.row_groups.len();
        let candidates = match self.row_groups {
            Some(groups) => {
                if let Some(bad) = groups.iter().find(|&&g| g >= num_row_groups) {
                    return Err(Error::invalid_argument(format!(
                        "row group {bad} out of range (the file has {num_row_groups})"
                    )));
                }
                groups
            }
            None => (0..num_row_groups).collect(),
        };
        let rows_of = |g: usize| u64::try_from(metadata.row_groups[g].num_rows).unwrap_or(0);
        let mut metrics = ScanMetrics {
            row_groups_total: candidates.len(),
            rows_total: candidates.iter().map(|&g| rows_of(g)).sum(),
            ..Default::default()
        };

        let bound = match &self.predicate {
            Some(p) => Some(p.bind(mapping.schema())?),
            None => None,
        };
        let (read_leaves, _) = leaves_to_read(&output, &mapping, bound.as_ref());
        let read_projection = match (&self.projection, &bound) {
            (Projection::All, _) | (_, None) => self.projection.clone(),
            _ => Projection::Leaves(read_leaves.clone()),
        };

        let mut kept = candidates.clone();
        let mut ranges: Vec<(u64, RowRanges)> = kept
            .iter()
            .map(|&g| (rows_of(g), RowRanges::all(rows_of(g))))
            .collect();
        if let Some(bound) = &bound {
            let pruner = Pruner::try_new(bound, &metadata, &descriptor, &mapping)?
                .with_decryptor(self.builder.decryptor().cloned());
            if self.pruning.statistics {
                let keep = pruner.row_groups(&metadata, &kept)?;
                metrics.row_groups_pruned_by_statistics = keep.iter().filter(|k| !**k).count();
                kept = retain(kept, &keep);
            }
            if self.pruning.bloom_filters {
                let keep =
                    pruner.row_groups_with_bloom_filters(&metadata, self.input.as_ref(), &kept)?;
                metrics.row_groups_pruned_by_bloom_filter = keep.iter().filter(|k| !**k).count();
                kept = retain(kept, &keep);
            }
            ranges = Vec::with_capacity(kept.len());
            let mut survivors = Vec::with_capacity(kept.len());
            for &g in &kept {
                let rows = rows_of(g);
                let r = if self.pruning.page_index {
                    pruner.page_ranges(&metadata, self.input.as_ref(), g)?
                } else {
                    RowRanges::all(rows)
                };
                if r.is_empty() {
                    metrics.row_groups_pruned_by_page_index += 1;
                } else {
                    survivors.push(g);
                    ranges.push((rows, r));
                }
            }
            kept = survivors;
        }
        metrics.row_groups_read = kept.len();
        metrics.rows_selected = ranges.iter().map(|(_, r)| r.row_count()).sum();
        if self.page_counts {
            count_pages(
                &metadata,
                &descriptor,
                self.builder.decryptor().map(|d| d.as_ref()),
                self.input.as_ref(),
                &candidates,
                &kept,
                &ranges,
                &read_leaves,
                &mut metrics,
            )?;
        }

        let mut builder = self
            .builder
            .with_projection(read_projection.clone())
            .with_row_groups(kept.clone());
        if let Some(size) = self.batch_size {
            builder = builder.with_batch_size(size);
        }
        let partial = ranges.iter().any(|(rows, r)| r.row_count() != *rows);
        if partial {
            builder = builder.with_row_selection(prune::selection_of(&ranges));
        }
        // Without a predicate every row read matches: the reader skips and stops.
        let mut offset = self.offset;
        if bound.is_none() {
            builder = builder.with_offset(offset);
            offset = 0;
            if let Some(limit) = self.limit {
                builder = builder.with_limit(limit);
            }
        }
        // The predicate runs inside the reader, bound to the batches it reads: its
        // fields are decoded first, the others only for the rows it keeps.
        let has_filter = self.predicate.is_some();
        if let Some(p) = &self.predicate {
            let read_schema = mapping.project(&read_projection)?.schema().clone();
            let filter = p.bind(&read_schema)?;
            let mut fields: Vec<String> = Vec::new();
            for path in filter.column_paths() {
                if let Some(top) = path.into_iter().next()
                    && !fields.contains(&top)
                {
                    fields.push(top);
                }
            }
            // Fields the output leaves out are read for the predicate only.
            let returned = output.schema();
            let dropped = fields
                .iter()
                .filter(|name| returned.field_with_name(name).is_err())
                .cloned()
                .collect();
            let filter = RowFilter::new(fields, move |batch| filter.evaluate(batch))
                .with_min_rows_per_run(self.min_rows_per_run)
                .with_key_runs(true)
                .with_fields_dropped(dropped);
            builder = builder.with_row_filter(filter);
        }
        let reader = builder.build()?;
        Ok(Scan {
            reader,
            has_filter,
            output: output.schema().clone(),
            offset,
            limit: self.limit,
            metrics,
            done: false,
        })
    }
}

/// The predicate bound to the file's schema, the leaves a scan reads (the projection's
/// and the predicate's, sorted) and those of the predicate alone.
struct ScanLeaves {
    bound: Option<BoundPredicate>,
    read: Vec<usize>,
    predicate: Vec<usize>,
}

/// The leaves a scan reads (the projection's and the predicate's, sorted) and those of
/// the predicate alone.
fn leaves_to_read(
    output: &ArrowSchemaMapping,
    mapping: &ArrowSchemaMapping,
    bound: Option<&BoundPredicate>,
) -> (Vec<usize>, Vec<usize>) {
    let mut read_leaves = output.leaf_columns();
    let mut predicate_leaves = Vec::new();
    if let Some(bound) = bound {
        for path in bound.column_paths() {
            if let Some(leaf) = prune::leaf_of_path(mapping.fields(), &path) {
                if !read_leaves.contains(&leaf) {
                    read_leaves.push(leaf);
                }
                if !predicate_leaves.contains(&leaf) {
                    predicate_leaves.push(leaf);
                }
            }
        }
        read_leaves.sort_unstable();
        predicate_leaves.sort_unstable();
    }
    (read_leaves, predicate_leaves)
}

impl<T> std::fmt::Debug for ScanBuilder<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanBuilder")
            .field("projection", &self.projection)
            .field("predicate", &self.predicate.as_ref().map(|p| p.to_string()))
            .field("row_groups", &self.row_groups)
            .field("limit", &self.limit)
            .field("pruning", &self.pruning)
            .finish_non_exhaustive()
    }
}

fn retain(groups: Vec<usize>, keep: &[bool]) -> Vec<usize> {
    groups
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .map(|(g, _)| g)
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn count_pages<R: ChunkReader + ?Sized>(
    metadata: &FileMetaData,
    descriptor: &SchemaDescriptor,
    decryptor: Option<&FileDecryptor>,
    input: &R,
    candidates: &[usize],
    kept: &[usize],
    ranges: &[(u64, RowRanges)],
    leaves: &[usize],
    metrics: &mut ScanMetrics,
) -> Result<()> {
    for &g in candidates {
        let selected = kept.iter().position(|&k| k == g).map(|i| &ranges[i].1);
        let rows = u64::try_from(metadata.row_groups[g].num_rows).unwrap_or(0);
        for &leaf in leaves {
            let Some(chunk) = metadata.row_groups[g].columns.get(leaf) else {
                continue;
            };
            let path = descriptor
                .column(leaf)
                .map_or_else(|| format!("#{leaf}"), |d| d.path().dotted());
            let column = chunk_decryptor(decryptor, metadata, g, leaf, &path)?;
            let Some(index) = prune::read_offset_index(input, chunk, column.as_ref())
                .map_err(|e| e.context(format!("row group {g}, column {path}")))?
            else {
                continue;
            };
            let (hit, total) = match selected {
                Some(r) => prune::pages_overlapping(&index, rows, r),
                None => (0, index.page_locations.len()),
            };
            metrics.pages_total += total;
            metrics.pages_selected += hit;
        }
    }
    Ok(())
}

/// A filtered read: an iterator of the batches' matching rows (see [`ScanBuilder`]).
/// After an error it yields nothing more.
pub struct Scan {
    reader: ParquetRecordBatchReader,
    /// Whether the reader filters (with the predicate).
    has_filter: bool,
    output: SchemaRef,
    /// Matching rows still to skip.
    offset: usize,
    limit: Option<usize>,
    metrics: ScanMetrics,
    done: bool,
}

impl Scan {
    /// What a salvage read lost so far (see [`ScanBuilder::with_salvage`]); `None` for
    /// a scan built without salvage.
    pub fn salvage_report(&self) -> Option<&crate::read::SalvageReport> {
        self.reader.salvage_report()
    }

    /// What was pruned and read so far (`rows_matched` grows as batches are returned).
    pub fn metrics(&self) -> &ScanMetrics {
        &self.metrics
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            if self.limit == Some(0) {
                return Ok(None);
            }
            let Some(batch) = self.reader.next() else {
                return Ok(None);
            };
            let mut batch = batch?;
            self.metrics.rows_matched += batch.num_rows() as u64;
            let read = self.reader.metrics();
            self.metrics.rows_filtered_late = read.rows_filtered_late;
            self.metrics.pages_skipped_late = read.pages_skipped_late;
            if self.offset > 0 {
                let skip = self.offset.min(batch.num_rows());
                batch = batch.slice(skip, batch.num_rows() - skip);
                self.offset -= skip;
                if batch.num_rows() == 0 {
                    continue;
                }
            }
            if let Some(limit) = &mut self.limit {
                if batch.num_rows() > *limit {
                    batch = batch.slice(0, *limit);
                }
                *limit -= batch.num_rows();
            }
            if batch.num_rows() == 0 && self.has_filter {
                continue;
            }
            return project(&batch, &self.output).map(Some);
        }
    }
}

impl Iterator for Scan {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_batch() {
            Ok(Some(batch)) => Some(Ok(batch)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e.into()))
            }
        }
    }
}

impl RecordBatchReader for Scan {
    fn schema(&self) -> SchemaRef {
        self.output.clone()
    }
}

impl std::fmt::Debug for Scan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scan")
            .field("schema", &self.output)
            .field("metrics", &self.metrics)
            .finish_non_exhaustive()
    }
}

/// `batch` (read with the predicate's extra columns) as `schema`: fields by name,
/// structs keeping only the children `schema` names.
fn project(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    if batch.schema().fields() == schema.fields() {
        return Ok(RecordBatch::try_new_with_options(
            schema.clone(),
            batch.columns().to_vec(),
            &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
        )?);
    }
    let mut columns = Vec::with_capacity(schema.fields().len());
    for field in schema.fields() {
        let column = batch.column_by_name(field.name()).ok_or_else(|| {
            Error::invalid_argument(format!(
                "scan: the batch read has no field {}",
                field.name()
            ))
        })?;
        columns.push(project_array(column, field)?);
    }
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
    )?)
}

fn project_array(array: &ArrayRef, field: &Field) -> Result<ArrayRef> {
    if array.data_type() == field.data_type() {
        return Ok(array.clone());
    }
    match (array.data_type(), field.data_type()) {
        (DataType::Struct(_), DataType::Struct(wanted)) => {
            let parent = array
                .as_any()
                .downcast_ref::<StructArray>()
                .ok_or_else(|| Error::invalid_argument("scan: struct expected"))?;
            let mut children = Vec::with_capacity(wanted.len());
            for child in wanted {
                let column = parent.column_by_name(child.name()).ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "scan: the struct read has no field {}",
                        child.name()
                    ))
                })?;
                children.push(project_array(column, child)?);
            }
            Ok(Arc::new(StructArray::try_new(
                wanted.clone(),
                children,
                parent.nulls().cloned(),
            )?))
        }
        _ => Err(Error::invalid_argument(format!(
            "scan: field {} read as {}, expected {}",
            field.name(),
            array.data_type(),
            field.data_type()
        ))),
    }
}
