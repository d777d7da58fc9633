//! Pruning: which row groups and rows of a file a predicate can skip without reading
//! them, from chunk statistics, the page index and Bloom filters.
//!
//! ```text
//! BoundPredicate ──(NOT pushed onto the atoms)──> Pruner
//!   row groups ── chunk statistics ──┐
//!              ── Bloom filters (=, IN) ──> row groups that may match
//!   pages      ── column index + offset index ──> RowRanges per row group ──> RowSelection
//! ```
//!
//! Every answer is conservative: a row group, page or row is dropped only when no row
//! in it can make the predicate true (as [`BoundPredicate::evaluate`] decides it);
//! anything unknown (no statistics, no page index, a column whose bounds have no
//! defined order, a float column that may hold NaNs) is kept. The reader is told the
//! outcome through the row groups and the [`RowSelection`] it is built with; this
//! module calls the reader's layer, never the other way round.
//!
//! ```
//! # use std::sync::Arc;
//! # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
//! # use bytes::Bytes;
//! use herringbone_arrow_bridge::predicate::col;
//! use herringbone_arrow_bridge::prune::Pruner;
//! use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
//! use herringbone_arrow_bridge::schema::{SchemaOptions, parquet_to_arrow};
//! # use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
//! # let column: ArrayRef = Arc::new(Int32Array::from((0..100).collect::<Vec<i32>>()));
//! # let batch = RecordBatch::try_from_iter([("x", column)]).unwrap();
//! # let props = WriterProperties::builder().set_max_row_group_rows(10).build();
//! # let mut file = Vec::new();
//! # let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).unwrap();
//! # writer.write(&batch).unwrap();
//! # writer.close().unwrap();
//! // `file`: x = 0..100 in ten row groups of ten rows.
//! let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file)).unwrap();
//! let (metadata, descriptor) = (builder.metadata(), builder.parquet_schema());
//! let mapping = parquet_to_arrow(descriptor, None, &SchemaOptions::default()).unwrap();
//! let predicate = col("x").gt_eq(35).and(col("x").lt(52)).bind(mapping.schema()).unwrap();
//! let pruner = Pruner::try_new(&predicate, metadata, descriptor, &mapping).unwrap();
//! let keep = pruner.row_groups(metadata, &(0..10).collect::<Vec<_>>()).unwrap();
//! assert_eq!(keep, [false, false, false, true, true, true, false, false, false, false]);
//! ```

mod atoms;
mod bloom;
mod ranges;

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use herringbone_codec::bloom::SplitBlockBloomFilter;
use herringbone_codec::crypto::{
    ColumnDecryptor, FileDecryptor, decrypt_column_index, decrypt_offset_index,
};
use herringbone_codec::page::PageLocations;
use herringbone_format::footer::{
    column_index_range, decode_column_index, decode_offset_index, offset_index_range,
};
use herringbone_format::metadata::{ColumnChunk, ColumnIndex, FileMetaData, OffsetIndex};
use herringbone_format::schema::{ColumnDescriptor, SchemaDescriptor};

use crate::decryption::chunk_decryptor;
use crate::error::{Error, Result};
use crate::predicate::{Bound, BoundPredicate, CompareOp};
use crate::read::{ChunkReader, RowSelection};
use crate::schema::{ArrowSchemaMapping, ParquetField, ParquetFieldKind};
use crate::statistics::{StatisticsArrays, StatisticsConverter};
use atoms::ColumnStats;
pub use ranges::RowRanges;

/// A predicate prepared for pruning one file (see the [module documentation](self)).
#[derive(Debug, Clone)]
pub struct Pruner {
    root: Bound,
    columns: Vec<PruneColumn>,
    /// Decrypts the page indexes and Bloom filters of encrypted chunks.
    decryptor: Option<Arc<FileDecryptor>>,
}

#[derive(Debug, Clone)]
struct PruneColumn {
    /// The leaf column, when the predicate's column is one of the file's leaves.
    leaf: Option<Leaf>,
}

#[derive(Debug, Clone)]
struct Leaf {
    converter: StatisticsConverter,
    descr: ColumnDescriptor,
}

/// The page index of one column chunk.
#[derive(Debug, Clone)]
pub struct PageIndex {
    /// Per-page statistics, when the writer stored them.
    pub column_index: Option<ColumnIndex>,
    /// Page locations and first rows.
    pub offset_index: OffsetIndex,
}

impl Pruner {
    /// Prepares `predicate` (bound to the Arrow schema of `mapping`, or one with the
    /// same fields) for the file of `metadata`.
    pub fn try_new(
        predicate: &BoundPredicate,
        metadata: &FileMetaData,
        descriptor: &SchemaDescriptor,
        mapping: &ArrowSchemaMapping,
    ) -> Result<Self> {
        let mut columns = Vec::with_capacity(predicate.columns.len());
        for column in &predicate.columns {
            let leaf = match leaf_of_path(mapping.fields(), &column.path) {
                Some(leaf) => {
                    let converter =
                        StatisticsConverter::for_leaf(leaf, metadata, descriptor, mapping)?;
                    let descr = descriptor
                        .column(leaf)
                        .ok_or_else(|| {
                            Error::invalid_argument(format!("leaf {leaf} out of range"))
                        })?
                        .clone();
                    // Bounds of another type than the bound literals cannot be compared.
                    (converter.arrow_type() == column.value_type() && !converter.is_repeated())
                        .then_some(Leaf { converter, descr })
                }
                None => None,
            };
            columns.push(PruneColumn { leaf });
        }
        Ok(Self {
            root: predicate.root.clone().push_not(false),
            columns,
            decryptor: None,
        })
    }

    /// Reads the page indexes and Bloom filters of encrypted chunks with `decryptor`
    /// (the file's, from [`read_metadata_with_decryption`] or
    /// [`ParquetRecordBatchReaderBuilder::decryptor`]). Without it, an encrypted chunk
    /// whose index or filter the predicate needs is an [`ErrorKind::Encrypted`] error.
    ///
    /// [`read_metadata_with_decryption`]: crate::read::read_metadata_with_decryption
    /// [`ParquetRecordBatchReaderBuilder::decryptor`]: crate::read::ParquetRecordBatchReaderBuilder::decryptor
    /// [`ErrorKind::Encrypted`]: crate::ErrorKind::Encrypted
    pub fn with_decryptor(mut self, decryptor: Option<Arc<FileDecryptor>>) -> Self {
        self.decryptor = decryptor;
        self
    }

    /// The decryptor of a chunk of `leaf`'s column, `None` when it is plaintext.
    fn chunk_decryptor(
        &self,
        metadata: &FileMetaData,
        row_group: usize,
        leaf: &Leaf,
    ) -> Result<Option<ColumnDecryptor>> {
        chunk_decryptor(
            self.decryptor.as_deref(),
            metadata,
            row_group,
            leaf.converter.leaf(),
            &leaf.descr.path().dotted(),
        )
    }

    /// The leaf columns whose statistics the predicate uses, each once.
    pub fn leaves(&self) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        for c in &self.columns {
            if let Some(leaf) = &c.leaf
                && !out.contains(&leaf.converter.leaf())
            {
                out.push(leaf.converter.leaf());
            }
        }
        out
    }

    /// Per row group of `row_groups`, whether it may hold a row where the predicate is
    /// true, from the column chunk statistics.
    pub fn row_groups(&self, metadata: &FileMetaData, row_groups: &[usize]) -> Result<Vec<bool>> {
        let stats = self.row_group_stats(metadata, row_groups)?;
        let n = row_groups.len();
        eval_bool(&self.root, n, &mut |atom| {
            if let Bound::Spatial { column, .. } = atom
                && let (Some(leaf), Some(stats)) =
                    (self.columns[*column].leaf.as_ref(), stats[*column].as_ref())
            {
                // By the chunks' geospatial statistics.
                return atoms::may_match_spatial(
                    atom,
                    leaf.converter.leaf(),
                    stats,
                    metadata,
                    row_groups,
                );
            }
            let column = atom_column(atom).and_then(|c| {
                let leaf = self.columns[c].leaf.as_ref()?;
                Some(ColumnStats {
                    stats: stats[c].as_ref()?,
                    float: leaf.converter.is_float(),
                })
            });
            atoms::may_match(atom, column, n)
        })
    }

    /// As [`Self::row_groups`], with each `=` and `IN` also asked of the column chunk's
    /// Bloom filter (read through `input`) where the statistics kept the row group.
    pub fn row_groups_with_bloom_filters<R: ChunkReader + ?Sized>(
        &self,
        metadata: &FileMetaData,
        input: &R,
        row_groups: &[usize],
    ) -> Result<Vec<bool>> {
        let stats = self.row_group_stats(metadata, row_groups)?;
        let n = row_groups.len();
        let mut filters: HashMap<(usize, usize), Option<SplitBlockBloomFilter>> = HashMap::new();
        eval_bool(&self.root, n, &mut |atom| {
            let column = atom_column(atom).and_then(|c| {
                let leaf = self.columns[c].leaf.as_ref()?;
                Some(ColumnStats {
                    stats: stats[c].as_ref()?,
                    float: leaf.converter.is_float(),
                })
            });
            let mut keep = atoms::may_match(atom, column, n)?;
            let values = match atom {
                Bound::Compare {
                    op: CompareOp::Eq,
                    value,
                    ..
                } => value,
                Bound::In {
                    values,
                    negated: false,
                    ..
                } => values,
                _ => return Ok(keep),
            };
            let Some(leaf) = atom_column(atom).and_then(|c| self.columns[c].leaf.as_ref()) else {
                return Ok(keep);
            };
            let Some(hashes) = bloom::hashes(values, &leaf.descr) else {
                return Ok(keep);
            };
            let column = leaf.converter.leaf();
            for (i, &g) in row_groups.iter().enumerate() {
                if !keep[i] {
                    continue;
                }
                let filter = match filters.entry((g, column)) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        let chunk = chunk(metadata, g, column)?;
                        let decryptor = self.chunk_decryptor(metadata, g, leaf)?;
                        e.insert(
                            bloom::read_filter(input, chunk, decryptor.as_ref()).map_err(|e| {
                                e.context(format!(
                                    "row group {g}, column {}",
                                    leaf.descr.path().dotted()
                                ))
                            })?,
                        )
                    }
                };
                if let Some(filter) = filter {
                    keep[i] = hashes.iter().any(|&h| filter.check_hash(h));
                }
            }
            Ok(keep)
        })
    }

    fn row_group_stats(
        &self,
        metadata: &FileMetaData,
        row_groups: &[usize],
    ) -> Result<Vec<Option<StatisticsArrays>>> {
        self.columns
            .iter()
            .map(|c| match &c.leaf {
                Some(leaf) => leaf.converter.row_groups(metadata, row_groups).map(Some),
                None => Ok(None),
            })
            .collect()
    }

    /// The rows of row group `row_group` that may make the predicate true, from the
    /// page indexes of its columns (read through `input`). Columns without a page index
    /// keep every row.
    pub fn page_ranges<R: ChunkReader + ?Sized>(
        &self,
        metadata: &FileMetaData,
        input: &R,
        row_group: usize,
    ) -> Result<RowRanges> {
        let rows = row_group_rows(metadata, row_group)?;
        let mut indexes: HashMap<usize, Option<(PageIndex, StatisticsArrays)>> = HashMap::new();
        for c in &self.columns {
            let Some(leaf) = &c.leaf else { continue };
            let column = leaf.converter.leaf();
            if indexes.contains_key(&column) {
                continue;
            }
            let path = leaf.descr.path().dotted();
            let context = |e: Error| e.context(format!("row group {row_group}, column {path}"));
            let decryptor = self.chunk_decryptor(metadata, row_group, leaf)?;
            let chunk = chunk(metadata, row_group, column)?;
            let index = read_page_index(input, chunk, decryptor.as_ref()).map_err(context)?;
            let entry = match index {
                Some(index) => {
                    let stats = leaf
                        .converter
                        .pages(index.column_index.as_ref(), &index.offset_index, rows)
                        .map_err(context)?;
                    Some((index, stats))
                }
                None => None,
            };
            indexes.insert(column, entry);
        }
        eval_ranges(&self.root, rows, &mut |atom| {
            let leaf = atom_column(atom).and_then(|c| self.columns[c].leaf.as_ref());
            let Some(Some((index, stats))) = leaf.map(|l| &indexes[&l.converter.leaf()]) else {
                let keep = atoms::may_match(atom, None, 1)?;
                return Ok(if keep[0] {
                    RowRanges::all(rows)
                } else {
                    RowRanges::none()
                });
            };
            let column = ColumnStats {
                stats,
                float: leaf.is_some_and(|l| l.converter.is_float()),
            };
            let keep = atoms::may_match(atom, Some(column), stats.len())?;
            Ok(page_rows(&index.offset_index, rows, &keep))
        })
    }
}

/// The rows of the pages marked in `keep`.
pub fn page_rows(offset_index: &OffsetIndex, rows: u64, keep: &[bool]) -> RowRanges {
    let locations = &offset_index.page_locations;
    RowRanges::from_sorted(locations.iter().enumerate().filter(|(i, _)| keep[*i]).map(
        |(i, page)| {
            let start = page.first_row_index.max(0) as u64;
            let end = locations
                .get(i + 1)
                .map_or(rows, |next| next.first_row_index.max(0) as u64);
            start.min(rows)..end.min(rows)
        },
    ))
}

/// The pages of a chunk (by its offset index) that hold any row of `ranges`, and how
/// many pages it has.
pub fn pages_overlapping(
    offset_index: &OffsetIndex,
    rows: u64,
    ranges: &RowRanges,
) -> (usize, usize) {
    let locations = &offset_index.page_locations;
    let hit = (0..locations.len())
        .filter(|&i| {
            let start = locations[i].first_row_index.max(0) as u64;
            let end = locations
                .get(i + 1)
                .map_or(rows, |next| next.first_row_index.max(0) as u64);
            ranges.overlaps(&(start..end))
        })
        .count();
    (hit, locations.len())
}

/// The byte ranges of a chunk (counted from its first byte) that reading `rows` of it
/// needs: the bytes before the first data page (the dictionary page) and each data page
/// holding one of `rows`.
pub(crate) fn selected_page_ranges(
    locations: &PageLocations,
    rows: &[Range<usize>],
) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    if locations.first_start() > 0 {
        out.push(0..locations.first_start());
    }
    let mut wanted = rows.iter().peekable();
    for page in 0..locations.len() {
        let first = locations.first_row(page);
        let page_rows = first as usize..(first + locations.rows(page)) as usize;
        while wanted.peek().is_some_and(|r| r.end <= page_rows.start) {
            wanted.next();
        }
        let Some(next) = wanted.peek() else {
            break;
        };
        if next.start < page_rows.end {
            let bytes = locations.bytes(page);
            match out.last_mut() {
                Some(last) if last.end == bytes.start => last.end = bytes.end,
                _ => out.push(bytes),
            }
        }
    }
    out
}

/// Reads the page index of a column chunk: `None` without an offset index, and for a
/// chunk stored in another file (`file_path`: its indexes are in that file). An
/// encrypted chunk's indexes are decrypted with `decryptor` (see
/// [`crate::decryption::chunk_decryptor`]).
pub fn read_page_index<R: ChunkReader + ?Sized>(
    input: &R,
    chunk: &ColumnChunk,
    decryptor: Option<&ColumnDecryptor>,
) -> Result<Option<PageIndex>> {
    let Some(offset_index) = read_offset_index(input, chunk, decryptor)? else {
        return Ok(None);
    };
    let file_len = usize::try_from(input.len()).unwrap_or(usize::MAX);
    let column_index = match column_index_range(chunk, file_len)? {
        Some(range) => {
            let start = range.start as u64;
            let bytes = input.get_bytes(start..range.end as u64)?;
            Some(match decryptor {
                None => decode_column_index(&bytes, start)?,
                Some(d) => decrypt_column_index(&bytes, d)
                    .map_err(|e| Error::from(e).context(format!("column index at {start}")))?,
            })
        }
        None => None,
    };
    Ok(Some(PageIndex {
        column_index,
        offset_index,
    }))
}

/// Reads the offset index of a column chunk, `None` when it has none or is stored in
/// another file (`file_path`). An encrypted chunk's index is decrypted with `decryptor`.
pub fn read_offset_index<R: ChunkReader + ?Sized>(
    input: &R,
    chunk: &ColumnChunk,
    decryptor: Option<&ColumnDecryptor>,
) -> Result<Option<OffsetIndex>> {
    if chunk.file_path.is_some() {
        return Ok(None);
    }
    let file_len = usize::try_from(input.len()).unwrap_or(usize::MAX);
    let Some(range) = offset_index_range(chunk, file_len)? else {
        return Ok(None);
    };
    let start = range.start as u64;
    let bytes = input.get_bytes(start..range.end as u64)?;
    Ok(Some(match decryptor {
        None => decode_offset_index(&bytes, start)?,
        Some(d) => decrypt_offset_index(&bytes, d)
            .map_err(|e| Error::from(e).context(format!("offset index at {start}")))?,
    }))
}

/// The selection of the rows in `ranges` (one per row group, in the order the row
/// groups are read, each counted from the row group's first row), as the reader takes
/// it (rows counted over the row groups read).
pub fn selection_of(ranges: &[(u64, RowRanges)]) -> RowSelection {
    let mut offset = 0u64;
    let mut all = Vec::new();
    for (rows, r) in ranges {
        all.extend(
            r.ranges()
                .iter()
                .map(|x| (offset + x.start) as usize..(offset + x.end) as usize),
        );
        offset += rows;
    }
    RowSelection::from_consecutive_ranges(all, offset as usize)
}

fn row_group_rows(metadata: &FileMetaData, row_group: usize) -> Result<u64> {
    let group = metadata
        .row_groups
        .get(row_group)
        .ok_or_else(|| Error::invalid_argument(format!("row group {row_group} out of range")))?;
    u64::try_from(group.num_rows)
        .map_err(|_| Error::corrupt(format!("row group {row_group}: negative num_rows")))
}

fn chunk(metadata: &FileMetaData, row_group: usize, column: usize) -> Result<&ColumnChunk> {
    metadata
        .row_groups
        .get(row_group)
        .and_then(|g| g.columns.get(column))
        .ok_or_else(|| {
            Error::corrupt(format!(
                "row group {row_group} has no column chunk for leaf {column}"
            ))
        })
}

/// The column an atom reads.
fn atom_column(atom: &Bound) -> Option<usize> {
    match atom {
        Bound::NullOr { column, .. }
        | Bound::Compare { column, .. }
        | Bound::In { column, .. }
        | Bound::IsNull { column, .. }
        | Bound::Like { column, .. }
        | Bound::Spatial { column, .. } => Some(*column),
        _ => None,
    }
}

fn eval_bool(
    node: &Bound,
    n: usize,
    atom: &mut dyn FnMut(&Bound) -> Result<Vec<bool>>,
) -> Result<Vec<bool>> {
    match node {
        Bound::And(list) => {
            let mut acc = vec![true; n];
            for child in list {
                let v = eval_bool(child, n, atom)?;
                acc.iter_mut().zip(v).for_each(|(a, b)| *a &= b);
            }
            Ok(acc)
        }
        Bound::Or(list) => {
            let mut acc = vec![false; n];
            for child in list {
                let v = eval_bool(child, n, atom)?;
                acc.iter_mut().zip(v).for_each(|(a, b)| *a |= b);
            }
            Ok(acc)
        }
        // NOT was pushed onto the atoms.
        Bound::Not(_) => Ok(vec![true; n]),
        atom_node => atom(atom_node),
    }
}

fn eval_ranges(
    node: &Bound,
    rows: u64,
    atom: &mut dyn FnMut(&Bound) -> Result<RowRanges>,
) -> Result<RowRanges> {
    match node {
        Bound::And(list) => {
            let mut acc = RowRanges::all(rows);
            for child in list {
                acc = acc.intersect(&eval_ranges(child, rows, atom)?);
                if acc.is_empty() {
                    break;
                }
            }
            Ok(acc)
        }
        Bound::Or(list) => {
            let mut acc = RowRanges::none();
            for child in list {
                acc = acc.union(&eval_ranges(child, rows, atom)?);
            }
            Ok(acc)
        }
        Bound::Not(_) => Ok(RowRanges::all(rows)),
        atom_node => atom(atom_node),
    }
}

/// The leaf column at an Arrow path of struct fields.
pub(crate) fn leaf_of_path(fields: &[ParquetField], path: &[String]) -> Option<usize> {
    let (first, rest) = path.split_first()?;
    let field = fields.iter().find(|f| f.field.name() == first)?;
    match (&field.kind, rest.is_empty()) {
        (ParquetFieldKind::Primitive { column, .. }, true) => Some(*column),
        (ParquetFieldKind::Struct { children }, false) => leaf_of_path(children, rest),
        _ => None,
    }
}
