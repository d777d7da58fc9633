//! The column chunk writer: one leaf's levels and values ([`LeafLevels`]) into pages,
//! with the dictionary and its fallback, statistics, page index entries and a Bloom
//! filter.
//!
//! Every batch takes one route: its levels are cut into pieces that end at row
//! boundaries ([`PIECE_SLOTS`] slots or the page's remaining rows), and each piece's
//! levels and values are appended to the open page, its values in the page's form
//! (dictionary indices while the dictionary is on; byte arrays straight in their
//! encoded layout; else [`Values`](super::values::Values)). A page is written when its
//! encoded size or row count reaches the limits. When the dictionary's PLAIN size
//! passes its limit the open page is written and the rest of the chunk uses the
//! column's encoding; the dictionary page is put in front of the data pages at close.
//!
//! A writer lives as long as the file: [`ColumnWriter::close`] hands over one chunk and
//! keeps the buffers (page scratch, dictionary table, data blocks via
//! [`ColumnWriter::recycle`]) for the next row group.

use herringbone_codec::bloom::SplitBlockBloomFilter;
use herringbone_codec::crypto::ColumnEncryptor;
use herringbone_codec::page::WrittenPage;
use herringbone_format::metadata::{
    ColumnIndex, ColumnMetaData, Encoding, LogicalType, OffsetIndex, Type,
};
use herringbone_format::schema::ColumnDescriptor;
use herringbone_format::thrift::Text;

use super::bloom;
use super::convert::Target;
use super::dictionary::Dictionary;
use super::encode::check_encoding;
use super::levels::{Layout, LeafLevels, Selection};
use super::metadata::{ChunkFacts, chunk_metadata};
use super::page::{OpenPage, PageForm, PageFormat, Pages};
use super::properties::{BloomFilterProperties, WriterProperties};
use super::rows::Rows;
use super::schema::LeafInfo;
use super::source::{EncodedTarget, Source};
use super::statistics::{BoundsFormat, SortOrder};
use super::values::Values;
use crate::error::{Error, Result};

/// Values a chunk's first page must hold, nearly all distinct, for the dictionary to be
/// given up (see [`ColumnWriter::drop_dictionary_of_unique_values`]): fewer say too little
/// about the rest of the chunk.
const UNIQUE_SAMPLE: usize = 1024;

/// Level slots appended to a page at a time (pages are checked against their limits
/// between pieces).
const PIECE_SLOTS: usize = 1024;

/// A closed column chunk: its bytes (the dictionary page, then the data pages) and
/// everything the footer and page index need, with offsets relative to the chunk's
/// first byte.
#[derive(Debug)]
pub(crate) struct ClosedChunk {
    /// The dictionary page (empty without one).
    pub dictionary_page: Vec<u8>,
    /// The data pages, in blocks.
    pub data: Vec<Vec<u8>>,
    /// The chunk's `ColumnMetaData`.
    pub metadata: ColumnMetaData,
    /// Its column index.
    pub column_index: Option<ColumnIndex>,
    /// Its offset index.
    pub offset_index: OffsetIndex,
    /// Its Bloom filter.
    pub bloom_filter: Option<SplitBlockBloomFilter>,
}

impl ClosedChunk {
    /// Bytes of the chunk.
    pub fn len(&self) -> usize {
        self.dictionary_page.len() + self.data.iter().map(Vec::len).sum::<usize>()
    }
}

/// Writes the chunks of one leaf column.
#[derive(Debug)]
pub(crate) struct ColumnWriter {
    path: Vec<Text>,
    target: Target,
    format: PageFormat,
    page_size_limit: usize,
    page_row_limit: usize,
    dictionary_limit: usize,
    bloom_settings: Option<BloomFilterProperties>,
    bloom: Option<SplitBlockBloomFilter>,
    /// The chunk's dictionary (`None`: the column does not use one).
    dictionary: Option<Dictionary>,
    /// Values still go through the dictionary (until it passes its limit).
    dictionary_active: bool,
    /// A data page of the chunk was dictionary-encoded.
    dictionary_used: bool,
    page: OpenPage,
    /// Bounding box and type list of a GEOMETRY / GEOGRAPHY chunk.
    geo: Option<herringbone_codec::geo::GeoStatisticsAccumulator>,
    pages: Pages,
    /// Level slots in the chunk's written pages.
    num_values: i64,
    /// Converted values on their way into the dictionary.
    scratch: Values,
}

impl ColumnWriter {
    /// A writer for `column` with the settings `props` has for its dotted path.
    pub fn new(
        column: &ColumnDescriptor,
        info: &LeafInfo,
        props: &WriterProperties,
    ) -> Result<Self> {
        let dotted = column.path().dotted();
        let physical = column.physical_type();
        let width = column.type_length().unwrap_or(0).max(0) as usize;
        let encoding = props.encoding(&dotted).unwrap_or(Encoding::PLAIN);
        check_encoding(physical, encoding, &dotted)?;
        let dictionary = (props.dictionary_enabled(&dotted) && physical != Type::BOOLEAN)
            .then(|| Dictionary::new(Values::empty(physical, width)));
        let bloom_settings = props.bloom_filter(&dotted);
        let bloom = new_bloom(bloom_settings, &dotted)?;
        let (max_def, max_rep) = (column.max_def_level(), column.max_rep_level());
        let format = PageFormat {
            encoding,
            version: props.data_page_version(),
            statistics: props.statistics(&dotted),
            header_statistics: props.write_page_header_statistics(),
            bounds: BoundsFormat {
                physical,
                order: SortOrder::of(physical, column.logical_type(), column.converted_type()),
                truncate: props.statistics_truncate_length(),
                is_text: matches!(
                    column.logical_type(),
                    Some(LogicalType::String | LogicalType::Json | LogicalType::Enum)
                ),
            },
            max_def,
            max_rep,
        };
        Ok(Self {
            path: column.path().parts().to_vec(),
            target: Target {
                kind: info.kind,
                physical,
                width,
            },
            format,
            page_size_limit: props.data_page_size_limit(),
            page_row_limit: props.data_page_row_limit(),
            dictionary_limit: props.dictionary_page_size_limit(),
            bloom_settings,
            bloom,
            dictionary_active: dictionary.is_some(),
            dictionary,
            dictionary_used: false,
            page: OpenPage::new(physical, width, max_def, max_rep),
            geo: super::geo::accumulator_for(column, props.statistics(&dotted)),
            pages: Pages::new(props.compression(&dotted), props.write_crc()),
            num_values: 0,
            scratch: Values::empty(physical, width),
        })
    }

    /// Bytes held: written pages plus an estimate of the open page and dictionary.
    pub fn memory_size(&self) -> usize {
        self.pages.data.len() + self.page.estimate(self.dictionary_len()) + self.dictionary_size()
    }

    fn dictionary_len(&self) -> usize {
        self.dictionary.as_ref().map_or(0, |d| d.values.len())
    }

    fn dictionary_size(&self) -> usize {
        self.dictionary
            .as_ref()
            .map_or(0, |d| d.values.plain_size())
    }

    /// Appends one batch of a leaf's levels and values.
    pub fn write(&mut self, leaf: &LeafLevels) -> Result<()> {
        let mut source = Source::new(&leaf.values, self.target)?;
        if let Some(geo) = &mut self.geo {
            match &leaf.layout {
                Layout::Flat { nulls } => super::geo::add_array(geo, &leaf.values, nulls.as_ref()),
                Layout::Nested { def, selection, .. } => {
                    let max_def = self.format.max_def;
                    let present = def.iter().filter(|&&d| d == max_def).count();
                    let slots: Vec<usize> = match selection {
                        Selection::Contiguous(first) => (*first..first + present).collect(),
                        Selection::Indices(indices) => indices.clone(),
                    };
                    super::geo::add_slots(geo, &leaf.values, &slots);
                }
            }
        }
        match &leaf.layout {
            Layout::Flat { nulls } => {
                let slots = leaf.values.len();
                let mut start = 0;
                while start < slots {
                    let end = (start + self.row_room().min(PIECE_SLOTS)).min(slots);
                    self.start_piece(&source)?;
                    self.page.push_flat_levels(nulls.as_ref(), start, end);
                    let rows = match nulls {
                        None => Rows::Range(start, end),
                        Some(n) => Rows::Valid(n, start, end),
                    };
                    self.append_values(&mut source, rows)?;
                    start = end;
                    self.after_piece()?;
                }
            }
            Layout::Nested {
                def,
                rep,
                selection,
            } => self.write_nested(&mut source, def, rep, selection)?,
        }
        Ok(())
    }

    /// [`ColumnWriter::write`] of materialised levels.
    fn write_nested(
        &mut self,
        source: &mut Source<'_>,
        def: &[i16],
        rep: &[i16],
        selection: &Selection,
    ) -> Result<()> {
        let (max_def, max_rep) = (self.format.max_def, self.format.max_rep);
        let slots = def.len();
        if max_rep > 0 && rep.len() != slots {
            return Err(Error::invalid_argument(
                "definition and repetition levels differ in length",
            ));
        }
        let mut start = 0;
        let mut value_start = 0;
        while start < slots {
            // Cut a piece that ends at a row boundary and stays within the page's rows.
            let row_room = self.row_room();
            let (end, rows) = if max_rep == 0 {
                // One slot per row: the piece is a plain range.
                let end = (start + row_room.min(PIECE_SLOTS)).min(slots);
                (end, end - start)
            } else {
                // The piece ends at the first row start that is either the
                // (row_room + 1)-th row start from `start` or at least PIECE_SLOTS
                // slots in: found with counting passes rather than a branch per slot.
                let limit = (start + PIECE_SLOTS).min(slots);
                let starts_in = rep[start..limit].iter().filter(|&&r| r == 0).count();
                if starts_in <= row_room {
                    let end = limit
                        + rep[limit..]
                            .iter()
                            .position(|&r| r == 0)
                            .unwrap_or(slots - limit);
                    (end, starts_in)
                } else {
                    let end = start
                        + rep[start..limit]
                            .iter()
                            .enumerate()
                            .filter(|(_, r)| **r == 0)
                            .nth(row_room)
                            .map_or(limit - start, |(i, _)| i);
                    (end, row_room)
                }
            };
            let present = if max_def == 0 {
                end - start
            } else {
                def[start..end].iter().filter(|&&d| d == max_def).count()
            };
            let value_end = value_start + present;
            let rows_of_values = match selection {
                Selection::Contiguous(first) => Rows::Range(first + value_start, first + value_end),
                Selection::Indices(indices) => Rows::Indices(
                    indices
                        .get(value_start..value_end)
                        .ok_or_else(too_few_values)?,
                ),
            };
            if rows_of_values.end() > source.len() {
                return Err(too_few_values());
            }
            self.start_piece(source)?;
            let rep = if max_rep > 0 { &rep[start..end] } else { &[] };
            self.page.push_levels(&def[start..end], rep, rows);
            self.append_values(source, rows_of_values)?;
            value_start = value_end;
            start = end;
            self.after_piece()?;
        }
        Ok(())
    }

    /// Rows the open page can still take (at least one: a page holds a row).
    fn row_room(&self) -> usize {
        self.page_row_limit.saturating_sub(self.page.rows).max(1)
    }

    /// Chooses the form of the piece's values in the page (writing the open page
    /// first if it holds another form).
    fn start_piece(&mut self, source: &Source<'_>) -> Result<()> {
        let form = if self.dictionary_active {
            PageForm::Indices
        } else if source.is_bytes()
            && matches!(
                self.format.encoding,
                Encoding::PLAIN | Encoding::DELTA_LENGTH_BYTE_ARRAY
            )
        {
            PageForm::Encoded(self.format.encoding == Encoding::PLAIN)
        } else {
            PageForm::Values
        };
        if self.page.form.is_some_and(|f| f != form) {
            self.flush_page()?;
        }
        self.page.form = Some(form);
        Ok(())
    }

    /// Appends the piece's values at `rows` in the page's form.
    fn append_values(&mut self, source: &mut Source<'_>, rows: Rows<'_>) -> Result<()> {
        let present = rows.len();
        let page = &mut self.page;
        match page.form {
            Some(PageForm::Indices) => {
                let Some(dictionary) = self.dictionary.as_mut() else {
                    return Err(Error::invalid_argument(
                        "a dictionary page without a dictionary",
                    ));
                };
                page.unencoded += source.insert_dictionary(
                    rows,
                    dictionary,
                    &mut page.indices,
                    &mut self.scratch,
                )?;
            }
            Some(PageForm::Encoded(plain)) => {
                let track_bounds = self.format.statistics
                    != super::properties::StatisticsLevel::None
                    && self.format.bounds.order == SortOrder::Bytes;
                let before = page.encoded.len();
                source.append_encoded(
                    rows,
                    &mut EncodedTarget {
                        plain,
                        bytes: &mut page.encoded,
                        lengths: &mut page.lengths,
                        bounds: track_bounds.then_some(&mut page.bounds),
                    },
                )?;
                let added = page.encoded.len() - before;
                // PLAIN adds 4 bytes of length per value; the value bytes are the rest.
                page.unencoded += if plain { added - 4 * present } else { added } as i64;
            }
            _ => {
                let before = page.values.len();
                source.append_values(rows, &mut page.values)?;
                page.unencoded += page.values.byte_len(before, page.values.len());
            }
        }
        page.non_null += present;
        Ok(())
    }

    /// After a piece: writes the page when it is full, and falls back from the
    /// dictionary when it outgrew its limit (the pages so far keep the dictionary,
    /// written in front of them at close; the rest use the column's encoding).
    fn after_piece(&mut self) -> Result<()> {
        if self.page.estimate(self.dictionary_len()) >= self.page_size_limit
            || self.page.rows >= self.page_row_limit
        {
            self.flush_page()?;
        }
        if self.dictionary_active && self.dictionary_size() > self.dictionary_limit {
            self.flush_page()?;
            self.dictionary_active = false;
        }
        Ok(())
    }

    /// Writes the open page (nothing when it is empty).
    fn flush_page(&mut self) -> Result<()> {
        if self.page.is_empty() {
            return Ok(());
        }
        self.drop_dictionary_of_unique_values();
        self.num_values += self.page.slots as i64;
        let dictionary = self.dictionary.as_ref().filter(|_| self.dictionary_active);
        self.pages.write_data_page(
            &mut self.page,
            dictionary,
            self.bloom.as_mut(),
            &self.format,
        )?;
        if self
            .pages
            .records
            .last()
            .is_some_and(|p| p.written.encoding == Encoding::RLE_DICTIONARY)
        {
            self.dictionary_used = true;
        }
        Ok(())
    }

    /// Gives up the dictionary before the chunk's first page when nearly every value of
    /// that page is distinct (at least [`UNIQUE_SAMPLE`] values, at most 1 in 100
    /// repeated): keys, timestamps, measured values. Such a dictionary fills up to its
    /// limit with little to index twice (a page of 20,000 values drawn from fewer than
    /// about a million has more than 1% repeats), so the chunk is written in the
    /// column's encoding from its first page, with no dictionary page: smaller, and the
    /// rest of the chunk is not hashed. The page's values are taken back from the
    /// dictionary through their indices.
    fn drop_dictionary_of_unique_values(&mut self) {
        if !self.dictionary_active
            || !self.pages.records.is_empty()
            || self.page.form != Some(PageForm::Indices)
            || self.page.non_null < UNIQUE_SAMPLE
        {
            return;
        }
        let Some(dictionary) = self.dictionary.as_mut() else {
            return;
        };
        let distinct = dictionary.values.len();
        if distinct * 100 < self.page.non_null * 99 || self.page.indices.len() != self.page.non_null
        {
            return;
        }
        let page = &mut self.page;
        page.values.clear();
        if distinct == page.non_null {
            // Every value was new: the dictionary is the page's values in order.
            page.values.extend_range(&dictionary.values, 0, distinct);
        } else {
            for &index in &page.indices {
                let index = index as usize;
                page.values
                    .extend_range(&dictionary.values, index, index + 1);
            }
        }
        page.indices.clear();
        page.form = Some(PageForm::Values);
        dictionary.clear();
        self.dictionary_active = false;
    }

    /// Finishes the chunk (the dictionary page in front of the data pages) and makes
    /// the writer ready for the next one.
    pub fn close(&mut self) -> Result<ClosedChunk> {
        self.flush_page()?;
        let mut dictionary_page = Vec::new();
        let mut written_dictionary: Option<WrittenPage> = None;
        if self.dictionary_used
            && let Some(dict) = &self.dictionary
        {
            written_dictionary = Some(
                self.pages
                    .write_dictionary_page(dict, &mut dictionary_page)?,
            );
            if let Some(bloom) = &mut self.bloom {
                bloom::insert_values(bloom, &dict.values);
            }
        }
        let data_len = self.pages.data.len();
        let data = self.pages.data.take();
        let facts = ChunkFacts {
            path: &self.path,
            codec: self.pages.codec(),
            num_values: self.num_values,
            dictionary_page: written_dictionary.as_ref(),
            data_offset: dictionary_page.len(),
            total_size: dictionary_page.len() + data_len,
        };
        let mut meta = chunk_metadata(&facts, &self.pages.records, &self.format)?;
        meta.metadata.geospatial_statistics = super::geo::finish(self.geo.as_ref());
        if let Some(geo) = &mut self.geo {
            geo.reset();
        }
        let bloom_filter = std::mem::replace(
            &mut self.bloom,
            new_bloom(self.bloom_settings, &self.path.join("."))?,
        );
        // Ready for the next chunk.
        self.pages.clear();
        self.num_values = 0;
        if let Some(dict) = &mut self.dictionary {
            dict.clear();
        }
        self.dictionary_active = self.dictionary.is_some();
        self.dictionary_used = false;
        Ok(ClosedChunk {
            dictionary_page,
            data,
            metadata: meta.metadata,
            column_index: meta.column_index,
            offset_index: meta.offset_index,
            bloom_filter,
        })
    }

    /// Encrypts the next chunk's pages with `encryptor` (`None`: plain pages).
    pub fn set_encryptor(&mut self, encryptor: Option<ColumnEncryptor>) {
        self.pages.set_encryptor(encryptor);
    }

    /// Gives back the data blocks of a closed chunk once its bytes are written, so the
    /// next chunk fills them instead of new allocations.
    pub fn recycle(&mut self, data: Vec<Vec<u8>>) {
        self.pages.data.recycle(data);
    }
}

fn new_bloom(
    settings: Option<BloomFilterProperties>,
    column: &str,
) -> Result<Option<SplitBlockBloomFilter>> {
    settings
        .map(|b| {
            SplitBlockBloomFilter::with_ndv_fpp(b.ndv, b.fpp).map_err(|e| {
                Error::invalid_argument(format!("column {column}: bad Bloom filter settings"))
                    .with_source(e)
            })
        })
        .transpose()
}

fn too_few_values() -> Error {
    Error::invalid_argument("levels announce more values than the leaf array holds")
}
