//! One leaf column of one row group: its pages in, the levels and dense values of each
//! batch out, decoded straight from the current page into the batch's buffers.
//!
//! A [`LeafReader`] holds the chunk's page reader, its decoded dictionary page and the
//! current data page (levels and values being decoded); nothing else of the chunk is
//! decoded ahead. A batch is built by any sequence of [`LeafReader::read`] and
//! [`LeafReader::skip`] calls (a row selection), then taken with [`LeafReader::take`].
//!
//! Skipping is skipping: a data page wholly inside a skip is stepped over without being
//! decompressed. With the chunk's offset index (see
//! [`PageReader::with_page_locations`]) the index gives each page's rows and the page is
//! jumped over without its header being fetched; without it, the header says how many
//! rows the page holds (always for a column without repetition, and for v2 pages of
//! repeated columns). Within a page the levels are counted and the values skipped
//! without being written.
//!
//! Without repetition every level entry is a row. With it, a row is the entries from one
//! repetition level 0 to the next, and a record may continue from one v1 page into the
//! next, so a read that ends with its page looks at the next page (v2 pages, and pages
//! the offset index places, always start a record, so there it does not).

use std::sync::Arc;

use bytes::Bytes;
use herringbone_codec::page::{Page, PageReader};
use herringbone_format::metadata::{Encoding, PageType};
use herringbone_format::schema::ColumnDescriptor;

use super::budget::Budget;
use super::decode::{ValueKind, check_dictionary_encoding};
use super::levels::{DefLevels, PageLevels};
use super::values::ValueBuffer;
use crate::error::{Error, Result};

/// The rows of one batch of one leaf column: definition levels, repetition levels
/// (empty without repetition) and the values of the entries whose definition level is
/// the maximum.
#[derive(Debug)]
pub(crate) struct LeafBatch<B> {
    pub(crate) def: DefLevels,
    pub(crate) rep: Vec<u16>,
    pub(crate) values: B,
}

/// The data page being decoded.
#[derive(Debug)]
struct DataPage<P> {
    values: P,
    /// The page's decompressed bytes, handed back to the page reader once done with.
    buffer: Bytes,
    /// Index of the page in the chunk, for errors.
    index: usize,
    /// A v2 page, or a page the offset index placed: it starts and ends at record
    /// boundaries.
    whole_records: bool,
}

/// Decodes one column chunk, batch by batch.
#[derive(Debug)]
pub(crate) struct LeafReader<K: ValueKind> {
    kind: K,
    /// The row group and the column's dotted path (shared by the column's chunks),
    /// what errors start with: `row group G, column PATH`.
    row_group: usize,
    path: Arc<str>,
    max_def: u16,
    max_rep: u16,
    pages: PageReader,
    /// Rows of the row group not in a data page read so far (columns without
    /// repetition, whose every level entry is a row).
    rows_unpaged: usize,
    dictionary: Option<Arc<K::Dictionary>>,
    levels: PageLevels,
    page: Option<DataPage<K::Page>>,
    def: DefLevels,
    rep: Vec<u16>,
    values: K::Buffer,
}

impl<K: ValueKind> LeafReader<K> {
    /// A reader of `column` over the pages of its chunk in row group `row_group`, which
    /// hold `num_rows` rows, decoding values as `kind`.
    pub(crate) fn new(
        kind: K,
        column: &ColumnDescriptor,
        path: Arc<str>,
        row_group: usize,
        pages: PageReader,
        num_rows: usize,
    ) -> Result<Self> {
        let max_def = u16::try_from(column.max_def_level())
            .map_err(|_| Error::corrupt(format!("column {path}: negative max definition level")))?;
        let max_rep = u16::try_from(column.max_rep_level())
            .map_err(|_| Error::corrupt(format!("column {path}: negative max repetition level")))?;
        let values = kind.buffer();
        Ok(Self {
            kind,
            row_group,
            path,
            max_def,
            max_rep,
            pages,
            rows_unpaged: num_rows,
            dictionary: None,
            levels: PageLevels::new(max_def, max_rep),
            page: None,
            def: DefLevels::for_column(max_def, max_rep),
            rep: Vec::new(),
            values,
        })
    }

    /// The column's maximum definition and repetition levels.
    pub(crate) fn max_levels(&self) -> (u16, u16) {
        (self.max_def, self.max_rep)
    }

    /// The chunk is read to its end: frees its pages, dictionary and level scratch now
    /// (the batch decoded last stays until [`Self::take`]).
    pub(crate) fn release(&mut self) {
        self.pages.release();
        self.dictionary = None;
        self.page = None;
        self.levels = PageLevels::new(self.max_def, self.max_rep);
    }

    /// Data pages decoded and skipped without decompression so far.
    pub(crate) fn page_counts(&self) -> (usize, usize) {
        (self.pages.pages_decoded(), self.pages.pages_skipped())
    }

    /// Prepares a batch of at most `rows` rows: a column without repetition gets its
    /// buffers at their final size now (charged to `budget`), once.
    pub(crate) fn begin(&mut self, rows: usize, budget: &mut Budget) -> Result<()> {
        if self.max_rep > 0 {
            return Ok(());
        }
        let reserved = self
            .def
            .reserve(rows, budget)
            .and_then(|()| self.kind.reserve(&mut self.values, rows, budget));
        reserved.map_err(|e| e.context(self.location()))
    }

    /// Reads the next `rows` rows into the batch; fewer rows in the chunk than its row
    /// group declares is an error.
    pub(crate) fn read(&mut self, rows: usize, budget: &mut Budget) -> Result<()> {
        let result = if self.max_rep == 0 {
            self.flat(rows, Some(budget))
        } else {
            self.records(rows, Some(budget))
        };
        result.map_err(|e| self.locate(e))
    }

    /// Skips the next `rows` rows.
    pub(crate) fn skip(&mut self, rows: usize) -> Result<()> {
        let result = if self.max_rep == 0 {
            self.flat(rows, None)
        } else {
            self.records(rows, None)
        };
        result.map_err(|e| self.locate(e).context("skipping"))
    }

    /// Takes the batch read so far, leaving an empty one.
    pub(crate) fn take(&mut self) -> LeafBatch<K::Buffer> {
        if self.max_rep > 0 {
            self.values.shrink();
        }
        LeafBatch {
            def: self.def.take(),
            rep: std::mem::take(&mut self.rep),
            values: std::mem::replace(&mut self.values, self.kind.buffer()),
        }
    }

    /// `row group G, column PATH`: formatted only for an error.
    fn location(&self) -> String {
        format!("row group {}, column {}", self.row_group, self.path)
    }

    /// `error` with the column (and page) in front.
    fn locate(&self, error: Error) -> Error {
        match &self.page {
            Some(page) => error.context(format!("{}, page {}", self.location(), page.index)),
            None => error.context(self.location()),
        }
    }

    fn short(&self, rows: usize) -> Error {
        Error::corrupt(format!(
            "the column chunk ends {rows} rows short of its row group"
        ))
    }

    /// Reads (with a budget) or skips `rows` rows of a column without repetition.
    fn flat(&mut self, rows: usize, mut budget: Option<&mut Budget>) -> Result<()> {
        let mut left = rows;
        while left > 0 {
            let available = self.levels.entries_left();
            if available == 0 {
                if budget.is_none() && self.skip_whole_pages(&mut left)? {
                    continue;
                }
                if !self.next_data_page()? {
                    return Err(self.short(left));
                }
                continue;
            }
            let n = left.min(available);
            let page = self.page.as_mut().expect("levels left means a page");
            match budget.as_deref_mut() {
                Some(budget) => {
                    let present = self.levels.read_flat(n, &mut self.def)?;
                    self.kind
                        .read(&mut page.values, present, &mut self.values, budget)?;
                }
                None => {
                    let present = self.levels.skip_flat(n)?;
                    self.kind.skip(&mut page.values, present)?;
                }
            }
            left -= n;
        }
        Ok(())
    }

    /// Reads (with a budget) or skips `records` records of a repeated column.
    fn records(&mut self, records: usize, mut budget: Option<&mut Budget>) -> Result<()> {
        if records == 0 {
            return Ok(());
        }
        // Skipping writes no levels; nothing is charged.
        let mut unlimited = Budget::new(usize::MAX);
        let mut started = 0;
        loop {
            if self.levels.entries_left() == 0 {
                let at_boundary = self.page.as_ref().is_none_or(|p| p.whole_records);
                if started == records && at_boundary {
                    // A v2 page ends a record: no need to look at the next page.
                    return Ok(());
                }
                if budget.is_none() && (started < records || at_boundary) {
                    let mut left = records - started;
                    if self.skip_whole_pages(&mut left)? {
                        started = records - left;
                        continue;
                    }
                }
                if !self.next_data_page()? {
                    if started < records {
                        return Err(self.short(records - started));
                    }
                    return Ok(());
                }
                continue;
            }
            let out = budget.is_some().then_some((&mut self.def, &mut self.rep));
            let out = match out {
                Some((DefLevels::Levels(def), rep)) => Some((def, rep)),
                Some(_) => {
                    return Err(Error::corrupt("repeated column without definition levels"));
                }
                None => None,
            };
            let step = self.levels.records(
                records - started,
                started > 0,
                out,
                budget.as_deref_mut().unwrap_or(&mut unlimited),
            )?;
            started += step.started;
            let page = self.page.as_mut().expect("levels left means a page");
            match budget.as_deref_mut() {
                Some(budget) => {
                    self.kind.reserve(&mut self.values, step.present, budget)?;
                    self.kind
                        .read(&mut page.values, step.present, &mut self.values, budget)?;
                }
                None => self.kind.skip(&mut page.values, step.present)?,
            }
            if step.at_boundary {
                return Ok(());
            }
        }
    }

    /// Steps over the data pages that lie wholly within the next `left` rows to skip,
    /// without decompressing them, taking their rows off `left`; `false` when the next
    /// page is not one (a page reaching past the skip, a v1 page of a repeated column,
    /// whose rows the header does not count). A dictionary page on the way is decoded
    /// (the pages after the skip need it).
    fn skip_whole_pages(&mut self, left: &mut usize) -> Result<bool> {
        let mut skipped = false;
        loop {
            // With an offset index, a data page's rows come from it (every page starts
            // a row there, v1 pages of repeated columns too) and the page is jumped over
            // without its header being fetched or read.
            if let Some(rows) = self.pages.located_rows() {
                let rows = usize::try_from(rows).unwrap_or(usize::MAX);
                if rows > *left {
                    return Ok(skipped);
                }
                if self.max_rep == 0 {
                    self.take_unpaged(rows)?;
                }
                self.pages.skip_located();
                self.page = None;
                *left -= rows;
                skipped = true;
                continue;
            }
            let Some(header) = self.pages.peek_header()? else {
                return Ok(skipped);
            };
            if header.type_ == PageType::DICTIONARY_PAGE {
                let index = self.pages.page_index();
                if let Some(Page::Dictionary {
                    values,
                    num_values,
                    encoding,
                    ..
                }) = self.pages.next_page()?
                {
                    self.dictionary_page(values, num_values, encoding)
                        .map_err(|e| e.context(format!("page {index}")))?;
                }
                continue;
            }
            let rows = match header.type_ {
                PageType::DATA_PAGE if self.max_rep == 0 => {
                    header.data_page_header.as_ref().map(|h| h.num_values)
                }
                PageType::DATA_PAGE_V2 if self.max_rep == 0 => {
                    header.data_page_header_v2.as_ref().map(|h| h.num_values)
                }
                PageType::DATA_PAGE_V2 => header.data_page_header_v2.as_ref().map(|h| h.num_rows),
                PageType::DATA_PAGE => return Ok(skipped),
                // Index pages and page types from later versions hold no rows.
                _ => Some(0),
            };
            let Some(rows) = rows.and_then(|r| usize::try_from(r).ok()) else {
                return Ok(skipped);
            };
            if rows > *left {
                return Ok(skipped);
            }
            if self.max_rep == 0 {
                self.take_unpaged(rows)?;
            }
            self.pages.skip_page()?;
            self.page = None;
            *left -= rows;
            skipped = true;
        }
    }

    /// Accounts for a data page of `rows` rows of a column without repetition.
    fn take_unpaged(&mut self, rows: usize) -> Result<()> {
        if rows > self.rows_unpaged {
            return Err(Error::corrupt(format!(
                "data page holds {rows} values, only {} rows of the row group are left",
                self.rows_unpaged
            )));
        }
        self.rows_unpaged -= rows;
        Ok(())
    }

    /// Moves to the next data page (decoding the dictionary page on the way); `false`
    /// at the end of the chunk.
    fn next_data_page(&mut self) -> Result<bool> {
        if let Some(done) = self.page.take() {
            // Once nothing else holds the page's bytes (values were copied out, not
            // viewed), the next page is decompressed into them.
            drop(done.values);
            self.levels.clear();
            self.pages.recycle(done.buffer);
        }
        loop {
            let index = self.pages.page_index();
            let located = self.pages.located_rows();
            let Some(page) = self.pages.next_page()? else {
                self.page = None;
                return Ok(false);
            };
            if let Err(e) = self.check_located(located, &page) {
                self.page = None;
                return Err(e.context(format!("page {index}")));
            }
            let result = match page {
                Page::Dictionary {
                    values,
                    num_values,
                    encoding,
                    ..
                } => self
                    .dictionary_page(values, num_values, encoding)
                    .map(|()| None),
                Page::DataV1 {
                    buffer,
                    num_values,
                    encoding,
                    def_level_encoding,
                    rep_level_encoding,
                    ..
                } => self
                    .start_v1(
                        buffer,
                        num_values,
                        encoding,
                        def_level_encoding,
                        rep_level_encoding,
                    )
                    .map(Some),
                Page::DataV2 {
                    rep_levels,
                    def_levels,
                    values,
                    num_values,
                    encoding,
                    ..
                } => self
                    .start_v2(rep_levels, def_levels, values, num_values, encoding)
                    .map(Some),
            };
            match result {
                Ok(None) => continue,
                Ok(Some((values, buffer, v2))) => {
                    self.page = Some(DataPage {
                        values,
                        buffer,
                        index,
                        whole_records: v2 || located.is_some(),
                    });
                    return Ok(true);
                }
                Err(e) => {
                    self.page = None;
                    return Err(e.context(format!("page {index}")));
                }
            }
        }
    }

    /// A data page the offset index placed must hold the rows it says: its header's
    /// row count (v2 pages; every value of a column without repetition is a row).
    fn check_located(&self, located: Option<u64>, page: &Page) -> Result<()> {
        let Some(expected) = located else {
            return Ok(());
        };
        let rows = match page {
            Page::DataV2 { num_rows, .. } => *num_rows,
            Page::DataV1 { num_values, .. } if self.max_rep == 0 => *num_values,
            _ => return Ok(()),
        };
        if rows as u64 == expected {
            Ok(())
        } else {
            Err(Error::corrupt(format!(
                "the offset index gives the page {expected} rows, its header {rows}"
            )))
        }
    }

    fn dictionary_page(
        &mut self,
        values: Bytes,
        num_values: usize,
        encoding: Encoding,
    ) -> Result<()> {
        if self.dictionary.is_some() {
            return Err(Error::corrupt("a second dictionary page"));
        }
        check_dictionary_encoding(encoding)?;
        self.dictionary = Some(Arc::new(self.kind.dictionary(values.clone(), num_values)?));
        // A dictionary copied out of its page leaves the page's buffer to the data pages
        // (a fresh buffer is zero-filled before SNAPPY and LZ4_RAW write into it); one
        // that keeps viewing the page keeps it, and the recycle does nothing.
        self.pages.recycle(values);
        Ok(())
    }

    fn start_v1(
        &mut self,
        buffer: Bytes,
        num_values: usize,
        encoding: Encoding,
        def_encoding: Encoding,
        rep_encoding: Encoding,
    ) -> Result<(K::Page, Bytes, bool)> {
        if self.max_rep == 0 {
            self.take_unpaged(num_values)?;
        }
        let at = self
            .levels
            .start_v1(&buffer, num_values, def_encoding, rep_encoding)?;
        let values = self.kind.page(
            encoding,
            buffer.slice(at..),
            num_values,
            self.dictionary.as_ref(),
        )?;
        Ok((values, buffer, false))
    }

    fn start_v2(
        &mut self,
        rep: Bytes,
        def: Bytes,
        values: Bytes,
        num_values: usize,
        encoding: Encoding,
    ) -> Result<(K::Page, Bytes, bool)> {
        if self.max_rep == 0 {
            self.take_unpaged(num_values)?;
        }
        self.levels.start_v2(rep, def, num_values)?;
        let page = self.kind.page(
            encoding,
            values.clone(),
            num_values,
            self.dictionary.as_ref(),
        )?;
        Ok((page, values, true))
    }
}
