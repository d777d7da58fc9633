//! The salvage reader's first pass over one column chunk: every page is checked as the
//! reader would decode it (header, CRC, decryption, decompression, levels, values,
//! dictionary indices) and placed in the row group's rows, so that what is damaged
//! becomes a range of lost rows.
//!
//! The rows of a page are what the reader itself goes by: a column without repetition
//! has a row per level entry (`num_values` of the header), a v2 page says how many
//! records start in it (`num_rows`), and the pages of a repeated column are otherwise
//! counted by their repetition levels. The rules of the specification's error recovery
//! section follow:
//!
//! | damage | rows lost |
//! |--------|-----------|
//! | chunk metadata (offsets outside the file, codec, type), dictionary page | the chunk's |
//! | a page header | the rest of the chunk |
//! | a page body (CRC, decryption, decompression, levels, values) | the page's, when its header counts them |
//! | a v1 page of a repeated column | the rest of the chunk, from the last record begun before it (a v1 page may continue a record) |
//! | page row counts that do not add up to the row group's | the chunk's: no row can be placed |
//!
//! The chunk's offset index, when it fits the chunk and agrees with every page walked
//! before the damage (same place, same rows), narrows the two "rest of the chunk" rows
//! to the page's: it says where the next page starts (so a damaged header is jumped
//! over) and which rows the page holds (where a page starts a row, as the specification
//! requires of a chunk with an offset index, so a v1 page of a repeated column does not
//! continue a record). The reader then steps over that page by the same index.
//!
//! A page is checked a bounded number of values at a time; nothing is held but the
//! page being checked and the chunk's dictionary.

use std::cell::Cell;
use std::ops::Range;
use std::sync::Arc;

use herringbone_codec::compression::Codec;
use herringbone_codec::crypto::ColumnDecryptor;
use herringbone_codec::page::{Page, PageLocations, PageReader, column_chunk_range};
use herringbone_format::metadata::{Encoding, FileMetaData, OffsetIndex, PageType};
use herringbone_format::schema::ColumnDescriptor;

use super::assemble::IntoArray;
use super::budget::Budget;
use super::column::{KindVisitor, with_value_kind};
use super::decode::{ValueKind, check_dictionary_encoding};
use super::input::{InputRange, SharedInput};
use super::levels::PageLevels;
use super::row_group::{ReadPlan, chunk_metadata};
use crate::error::{Error, ErrorKind, Result};

/// Values (or records) decoded at a time while a page is checked.
const CHECK_STEP: usize = 4096;

/// How much of a column chunk a loss takes, by the specification's error recovery rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LossScope {
    /// The whole chunk: its metadata or its dictionary page is damaged, or its pages'
    /// row counts do not add up.
    Chunk,
    /// The rest of the chunk from a damaged page header, or from a damaged v1 page of a
    /// repeated column (whose rows are not known).
    RestOfChunk,
    /// One page, whose rows its header counts.
    Page,
    /// The rest of the row group: the reader failed where the first pass found nothing
    /// wrong (a safety net; the error names the column).
    RestOfRowGroup,
}

impl std::fmt::Display for LossScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LossScope::Chunk => "column chunk",
            LossScope::RestOfChunk => "rest of column chunk",
            LossScope::Page => "page",
            LossScope::RestOfRowGroup => "rest of row group",
        })
    }
}

/// Damage found in one chunk: the rows of the row group it loses, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Damage {
    /// Index of the page in the chunk (counting every page), when one is to blame.
    pub(crate) page: Option<usize>,
    /// File offset of that page's header.
    pub(crate) offset: Option<u64>,
    /// Rows of the row group lost.
    pub(crate) rows: Range<usize>,
    pub(crate) scope: LossScope,
    pub(crate) reason: String,
}

/// One column chunk to check.
pub(crate) struct ChunkToCheck<'a> {
    pub(crate) plan: &'a ReadPlan,
    pub(crate) metadata: &'a FileMetaData,
    pub(crate) row_group: usize,
    /// Position of the leaf in `plan.columns()`.
    pub(crate) leaf: usize,
    pub(crate) input: &'a SharedInput,
    pub(crate) file_len: u64,
    /// The chunk's offset index, if the reader will go by it (it fits the chunk).
    pub(crate) offset_index: Option<&'a OffsetIndex>,
}

/// What checking a chunk found.
#[derive(Debug, Default)]
pub(crate) struct ChunkCheck {
    /// The damage, in row order.
    pub(crate) damage: Vec<Damage>,
    /// Whether the chunk's offset index contradicts a page read whole (its place or its
    /// rows): the reader must not go by it, or it would fail at that page.
    pub(crate) index_contradicted: bool,
}

/// Checks a chunk. Errors only for what is not damage (a missing key).
pub(crate) fn check_chunk(chunk: &ChunkToCheck<'_>) -> Result<ChunkCheck> {
    let contradicted = Cell::new(false);
    let damage = chunk_damage(chunk, &contradicted)?;
    Ok(ChunkCheck {
        damage,
        index_contradicted: contradicted.get(),
    })
}

fn chunk_damage(chunk: &ChunkToCheck<'_>, contradicted: &Cell<bool>) -> Result<Vec<Damage>> {
    let plan = chunk.plan;
    let rows = usize::try_from(chunk.metadata.row_groups[chunk.row_group].num_rows).unwrap_or(0);
    let whole = |reason: String| {
        Ok(vec![Damage {
            page: None,
            offset: None,
            rows: 0..rows,
            scope: LossScope::Chunk,
            reason,
        }])
    };
    let column = plan.columns()[chunk.leaf];
    let descr = plan.descriptor().column(column).ok_or_else(|| {
        Error::invalid_argument(format!("leaf column {column} is not in the schema"))
    })?;
    // A chunk stored in another file is checked only as it is read: damage there loses
    // the rest of its row group.
    let group = &chunk.metadata.row_groups[chunk.row_group];
    if group
        .columns
        .get(column)
        .is_some_and(|c| c.file_path.is_some())
    {
        return Ok(Vec::new());
    }
    let meta = match chunk_metadata(chunk.metadata, chunk.row_group, column) {
        Ok(meta) => meta,
        Err(e) if e.kind() == ErrorKind::Encrypted => return Err(e),
        Err(e) => return whole(e.to_string()),
    };
    if meta.type_ != descr.physical_type() {
        return whole(format!(
            "chunk type {:?} where the schema says {:?}",
            meta.type_,
            descr.physical_type()
        ));
    }
    let codec = match Codec::from_thrift_id(meta.codec.0) {
        Ok(codec) => codec,
        Err(e) => return whole(e.to_string()),
    };
    let Ok(num_values) = u64::try_from(meta.num_values) else {
        return whole(format!("negative num_values {}", meta.num_values));
    };
    let range = match column_chunk_range(meta, chunk.metadata.created_by.as_deref(), chunk.file_len)
    {
        Ok(range) => range,
        Err(e) => return whole(e.to_string()),
    };
    let decryptor = plan.column_decryptor(chunk.metadata, chunk.row_group, column)?;
    let dictionary_first = matches!(
        meta.dictionary_page_offset,
        Some(d) if d > 0 && d < meta.data_page_offset
    );
    // As the reader: an encrypted chunk's pages are walked by their headers.
    let locations = chunk
        .offset_index
        .filter(|_| decryptor.is_none())
        .and_then(|index| {
            let len = usize::try_from(range.end - range.start).ok()?;
            PageLocations::new(&index.page_locations, range.start, len, rows as u64).ok()
        });
    let pages = ChunkPages {
        input: chunk.input,
        range,
        codec,
        num_values,
        decryptor: decryptor.map(|d| (d, dictionary_first)),
        plan,
        locations,
    };
    let target = &plan.leaf_types()[chunk.leaf];
    let walk = Walk {
        pages: &pages,
        descr,
        rows,
        budget: plan.batch_memory_limit(),
        contradicted,
    };
    match with_value_kind(descr, target, walk) {
        Ok(damage) => Ok(damage),
        Err(e) if e.kind() == ErrorKind::Encrypted => Err(e),
        Err(e) => whole(e.to_string()),
    }
}

/// How to open a page reader over the chunk, as the reader opens it (CRCs checked).
struct ChunkPages<'a> {
    input: &'a SharedInput,
    range: Range<u64>,
    codec: Codec,
    num_values: u64,
    decryptor: Option<(ColumnDecryptor, bool)>,
    plan: &'a ReadPlan,
    locations: Option<PageLocations>,
}

impl ChunkPages<'_> {
    /// A page reader positioned at page `index` (the pages before it stepped over by
    /// their headers, which counts the data pages of an encrypted chunk for its AADs).
    fn open_at(&self, index: usize) -> Result<PageReader> {
        self.open(index, false)
    }

    /// [`Self::open_at`], the data pages the offset index places jumped over by it (a
    /// damaged header among them included).
    fn open_located_at(&self, index: usize) -> Result<PageReader> {
        self.open(index, true)
    }

    fn open(&self, index: usize, located: bool) -> Result<PageReader> {
        let source = InputRange::source(self.input.clone(), self.range.clone())?;
        let options = self.plan.page_options().with_verify_crc(true);
        let mut pages = PageReader::from_source(source, self.codec, options)
            .with_num_values(self.num_values)
            .with_base_offset(self.range.start);
        if let Some((decryptor, dictionary_first)) = &self.decryptor {
            pages = pages.with_decryptor(decryptor.clone(), *dictionary_first);
        }
        if let Some(locations) = self.locations.as_ref().filter(|_| located) {
            pages = pages.with_page_locations(locations.clone());
        }
        for _ in 0..index {
            if !pages.skip_located() {
                pages.skip_page()?;
            }
        }
        Ok(pages)
    }
}

/// The walk over a chunk's pages with the column's value kind.
struct Walk<'a> {
    pages: &'a ChunkPages<'a>,
    descr: &'a ColumnDescriptor,
    /// Rows of the row group.
    rows: usize,
    budget: usize,
    /// Set when the offset index contradicts a page walked whole.
    contradicted: &'a Cell<bool>,
}

/// Where the walk is in the chunk's rows.
struct Position {
    /// Rows (records) begun before the next page.
    row: usize,
    /// Whether the last data page was a v1 page that began a record (which the next
    /// page may continue).
    open_v1: bool,
    /// The offset index's next data page, while every data page walked so far was
    /// where and as long as the index says (`None`: no index, or it disagreed).
    located: Option<usize>,
}

impl Position {
    /// The located data page at chunk position `position` that begins row `self.row`,
    /// if the index still holds.
    fn located_page(&self, locations: Option<&PageLocations>, position: usize) -> Option<usize> {
        let (locations, page) = (locations?, self.located?);
        (page < locations.len()
            && locations.bytes(page).start == position
            && locations.first_row(page) == self.row as u64)
            .then_some(page)
    }

    /// Goes past the data page at chunk position `position`, which held `rows` rows: the
    /// index still holds if it placed the page there with those rows. Whether it does.
    fn pass_located(
        &mut self,
        locations: Option<&PageLocations>,
        position: usize,
        rows: usize,
    ) -> bool {
        self.located = self
            .located_page(locations, position)
            .filter(|&page| locations.is_some_and(|l| l.rows(page) == rows as u64))
            .map(|page| page + 1);
        self.located.is_some()
    }
}

impl KindVisitor for Walk<'_> {
    type Output = Vec<Damage>;

    fn visit<K>(self, kind: K) -> Result<Vec<Damage>>
    where
        K: ValueKind,
        K::Buffer: IntoArray,
    {
        let max_def = u16::try_from(self.descr.max_def_level())
            .map_err(|_| Error::corrupt("negative max definition level"))?;
        let max_rep = u16::try_from(self.descr.max_rep_level())
            .map_err(|_| Error::corrupt("negative max repetition level"))?;
        let mut levels = PageLevels::new(max_def, max_rep);
        let mut budget = Budget::new(self.budget);
        let mut dictionary: Option<Arc<K::Dictionary>> = None;
        let mut damage = Vec::new();
        let locations = self.pages.locations.as_ref();
        let chunk_start = self.pages.range.start;
        let in_chunk = |offset: u64| usize::try_from(offset - chunk_start).unwrap_or(usize::MAX);
        let mut at = Position {
            row: 0,
            open_v1: false,
            located: locations.map(|_| 0),
        };
        let mut pages = self.pages.open_at(0)?;
        let rest = |at: &Position, index: usize, offset: u64, reason: String| Damage {
            page: Some(index),
            offset: Some(offset),
            // A v1 page may continue the record the page before it began.
            rows: at
                .row
                .saturating_sub(usize::from(at.open_v1))
                .min(self.rows)..self.rows,
            scope: LossScope::RestOfChunk,
            reason,
        };
        loop {
            let index = pages.page_index();
            let offset = pages.offset();
            let header = match pages.peek_header() {
                Ok(Some(header)) => header.clone(),
                Ok(None) => break,
                Err(e) => {
                    let reason = format!("page header: {e}");
                    match self.lose_located(&mut at, index, in_chunk(offset), reason) {
                        Some((lost, reopened)) => {
                            damage.push(lost);
                            pages = reopened;
                            levels.clear();
                            continue;
                        }
                        None => {
                            damage.push(rest(&at, index, offset, format!("page header: {e}")));
                            return Ok(damage);
                        }
                    }
                }
            };
            let header_rows = match header.type_ {
                PageType::DATA_PAGE if max_rep == 0 => {
                    header.data_page_header.as_ref().map(|h| h.num_values)
                }
                PageType::DATA_PAGE_V2 if max_rep == 0 => {
                    header.data_page_header_v2.as_ref().map(|h| h.num_values)
                }
                PageType::DATA_PAGE_V2 => header.data_page_header_v2.as_ref().map(|h| h.num_rows),
                _ => None,
            }
            .and_then(|n| usize::try_from(n).ok());
            let checked = pages
                .next_page()
                .map_err(Error::from)
                .and_then(|page| match page {
                    None => Ok(None),
                    Some(page) => {
                        let v2 = matches!(page, Page::DataV2 { .. });
                        check_page(
                            &kind,
                            &mut levels,
                            &mut dictionary,
                            &mut budget,
                            page,
                            at.open_v1,
                            max_rep,
                        )
                        .map(|rows| rows.map(|rows| (rows, v2)))
                        .map(Some)
                    }
                });
            match checked {
                Ok(None) => break,
                // The dictionary page (or a page holding no rows).
                Ok(Some(None)) => {}
                Ok(Some(Some((rows, v2)))) => {
                    if (max_rep == 0 || v2)
                        && let Some(declared) = header_rows.filter(|&n| n != rows.started)
                    {
                        // The reader steps over pages by their header's count.
                        damage.push(rest(
                            &at,
                            index,
                            offset,
                            format!(
                                "the header counts {declared} rows, the levels {}",
                                rows.started
                            ),
                        ));
                        return Ok(damage);
                    }
                    let position = in_chunk(offset);
                    if !at.pass_located(locations, position, rows.started) && locations.is_some() {
                        self.contradicted.set(true);
                    }
                    at.row += rows.started;
                    at.open_v1 = !v2 && max_rep > 0 && (rows.started > 0 || at.open_v1);
                }
                Err(e) if e.kind() == ErrorKind::Encrypted => return Err(e),
                Err(e) => {
                    let is_dictionary = header.type_ == PageType::DICTIONARY_PAGE;
                    if is_dictionary && index == 0 {
                        return Ok(vec![Damage {
                            page: Some(index),
                            offset: Some(offset),
                            rows: 0..self.rows,
                            scope: LossScope::Chunk,
                            reason: format!("dictionary page: {e}"),
                        }]);
                    }
                    match header_rows {
                        Some(rows)
                            if !is_dictionary && at.row.saturating_add(rows) <= self.rows =>
                        {
                            damage.push(Damage {
                                page: Some(index),
                                offset: Some(offset),
                                rows: at.row..at.row + rows,
                                scope: LossScope::Page,
                                reason: e.to_string(),
                            });
                            at.pass_located(locations, in_chunk(offset), rows);
                            at.row += rows;
                            at.open_v1 = false;
                            // The failed reader stops; a new one steps over the pages up
                            // to here by their headers.
                            pages = match self.pages.open_at(index + 1) {
                                Ok(pages) => pages,
                                Err(e) => {
                                    damage.push(rest(&at, index + 1, offset, e.to_string()));
                                    return Ok(damage);
                                }
                            };
                            levels.clear();
                        }
                        _ => {
                            if let Some((lost, reopened)) =
                                self.lose_located(&mut at, index, in_chunk(offset), e.to_string())
                            {
                                damage.push(lost);
                                pages = reopened;
                                levels.clear();
                                continue;
                            }
                            let why = if max_rep > 0 && header.type_ == PageType::DATA_PAGE {
                                format!(
                                    "{e} (a v1 page of a repeated column: the rows it held are not known)"
                                )
                            } else {
                                e.to_string()
                            };
                            damage.push(rest(&at, index, offset, why));
                            return Ok(damage);
                        }
                    }
                }
            }
        }
        if at.row != self.rows {
            // Without a place for every row, none of the chunk's rows can be trusted.
            return Ok(vec![Damage {
                page: None,
                offset: None,
                rows: 0..self.rows,
                scope: LossScope::Chunk,
                reason: format!(
                    "the pages hold {} rows, the row group {}",
                    at.row, self.rows
                ),
            }]);
        }
        Ok(damage)
    }
}

impl Walk<'_> {
    /// Loses only page `index` (at chunk position `position`) when the offset index
    /// places it and says its rows: the loss, and a page reader past it. `None` when the
    /// index does not hold there (the caller loses the rest of the chunk).
    fn lose_located(
        &self,
        at: &mut Position,
        index: usize,
        position: usize,
        reason: String,
    ) -> Option<(Damage, PageReader)> {
        let locations = self.pages.locations.as_ref();
        let page = at.located_page(locations, position)?;
        let rows = usize::try_from(locations?.rows(page)).ok()?;
        let end = at.row.checked_add(rows).filter(|&end| end <= self.rows)?;
        let reopened = self.pages.open_located_at(index + 1).ok()?;
        let lost = Damage {
            page: Some(index),
            offset: Some(self.pages.range.start + position as u64),
            rows: at.row..end,
            scope: LossScope::Page,
            reason: format!("{reason} (the offset index places the page and its rows)"),
        };
        at.row = end;
        at.open_v1 = false;
        at.located = Some(page + 1);
        Some((lost, reopened))
    }
}

/// Rows of a checked data page.
struct PageRows {
    /// Rows (records) begun in the page.
    started: usize,
}

/// Decodes every level and value of `page` (bounded steps, nothing kept); the rows a
/// data page begins, `None` for the dictionary page.
fn check_page<K: ValueKind>(
    kind: &K,
    levels: &mut PageLevels,
    dictionary: &mut Option<Arc<K::Dictionary>>,
    budget: &mut Budget,
    page: Page,
    open: bool,
    max_rep: u16,
) -> Result<Option<PageRows>> {
    let (values, entries) = match page {
        Page::Dictionary {
            values,
            num_values,
            encoding,
            ..
        } => {
            if dictionary.is_some() {
                return Err(Error::corrupt("a second dictionary page"));
            }
            check_dictionary_encoding(encoding)?;
            *dictionary = Some(Arc::new(kind.dictionary(values, num_values)?));
            return Ok(None);
        }
        Page::DataV1 {
            buffer,
            num_values,
            encoding,
            def_level_encoding,
            rep_level_encoding,
            ..
        } => {
            let at =
                levels.start_v1(&buffer, num_values, def_level_encoding, rep_level_encoding)?;
            let values = start_values(kind, encoding, buffer.slice(at..), num_values, dictionary)?;
            (values, num_values)
        }
        Page::DataV2 {
            rep_levels,
            def_levels,
            values,
            num_values,
            encoding,
            ..
        } => {
            levels.start_v2(rep_levels, def_levels, num_values)?;
            let values = start_values(kind, encoding, values, num_values, dictionary)?;
            (values, num_values)
        }
    };
    let mut values = values;
    let mut started = 0;
    let mut read = |present: usize, budget: &mut Budget| -> Result<()> {
        budget.reset();
        let mut out = kind.buffer();
        kind.reserve(&mut out, present, budget)?;
        kind.read(&mut values, present, &mut out, budget)
    };
    if max_rep == 0 {
        let mut left = entries;
        while left > 0 {
            let n = left.min(CHECK_STEP);
            let present = levels.skip_flat(n)?;
            read(present, budget)?;
            left -= n;
        }
        started = entries;
    } else {
        let mut unlimited = Budget::new(usize::MAX);
        let mut open = open;
        while levels.entries_left() > 0 {
            let step = levels.records(CHECK_STEP, open, None, &mut unlimited)?;
            open = true;
            started += step.started;
            read(step.present, budget)?;
            if step.entries == 0 {
                break;
            }
        }
    }
    levels.clear();
    Ok(Some(PageRows { started }))
}

fn start_values<K: ValueKind>(
    kind: &K,
    encoding: Encoding,
    values: bytes::Bytes,
    entries: usize,
    dictionary: &Option<Arc<K::Dictionary>>,
) -> Result<K::Page> {
    kind.page(encoding, values, entries, dictionary.as_ref())
}
