//! The page layer: the open page of a column chunk ([`OpenPage`]) and the chunk's
//! written pages ([`Pages`]).
//!
//! An open page holds its levels (a validity bitmap when the column's only level is
//! one definition level, else definition and repetition levels) and its values in one
//! of three forms: dictionary indices, [`Values`], or byte arrays already in the layout
//! of PLAIN or DELTA_LENGTH_BYTE_ARRAY. [`Pages::write_data_page`] encodes it, takes its
//! statistics, and hands the sections to the codec's `PageWriter`: the one place where
//! a finished page's bytes are produced (a page encryptor goes there).

use arrow_buffer::{BooleanBufferBuilder, NullBuffer};
use herringbone_codec::bloom::SplitBlockBloomFilter;
use herringbone_codec::compression::Codec;
use herringbone_codec::crypto::ColumnEncryptor;
use herringbone_codec::encoding::{delta_binary_packed, dictionary};
use herringbone_codec::page::{DataPageV1, DataPageV2, PageWriter, WrittenPage};
use herringbone_codec::rle::{self, LengthPrefix};
use herringbone_format::metadata::{Encoding, Type};

use super::blocks::PageBlocks;
use super::bloom;
use super::dictionary::Dictionary;
use super::encode::{encode, encode_levels, encode_plain, histogram};
use super::properties::{DataPageVersion, StatisticsLevel};
use super::statistics::{self, BoundsFormat, ByteBounds, MinMax};
use super::values::Values;
use crate::error::Result;

/// How the values of the open page are held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageForm {
    /// Dictionary indices (`indices`).
    Indices,
    /// Values of the physical type (`values`).
    Values,
    /// Byte arrays in the layout of PLAIN (`true`) or DELTA_LENGTH_BYTE_ARRAY (`false`),
    /// in `encoded` (and `lengths`).
    Encoded(bool),
}

/// The page being filled.
#[derive(Debug)]
pub(crate) struct OpenPage {
    /// Maximum definition level of the column.
    max_def: i16,
    /// Maximum repetition level of the column.
    max_rep: i16,
    /// The levels are held as a validity bitmap (`valid`): no repetition, maximum
    /// definition level 1.
    bitmap_levels: bool,
    /// Level slots (values, nulls and empty lists).
    pub slots: usize,
    /// Rows that start in the page.
    pub rows: usize,
    /// Present values.
    pub non_null: usize,
    /// Sum of the lengths of the byte array values (size statistics).
    pub unencoded: i64,
    valid: BooleanBufferBuilder,
    def: Vec<i16>,
    rep: Vec<i16>,
    /// The form of the values, once the first one arrived.
    pub form: Option<PageForm>,
    /// See [`PageForm::Indices`].
    pub indices: Vec<u32>,
    /// See [`PageForm::Values`].
    pub values: Values,
    /// See [`PageForm::Encoded`].
    pub encoded: Vec<u8>,
    /// See [`PageForm::Encoded`].
    pub lengths: Vec<i32>,
    /// Bounds of the [`PageForm::Encoded`] values, kept as they are appended.
    pub bounds: ByteBounds,
}

impl OpenPage {
    /// An empty page of a column with these levels and values of `physical` type.
    pub fn new(physical: Type, width: usize, max_def: i16, max_rep: i16) -> Self {
        Self {
            max_def,
            max_rep,
            bitmap_levels: max_rep == 0 && max_def == 1,
            slots: 0,
            rows: 0,
            non_null: 0,
            unencoded: 0,
            valid: BooleanBufferBuilder::new(0),
            def: Vec::new(),
            rep: Vec::new(),
            form: None,
            indices: Vec::new(),
            values: Values::empty(physical, width),
            encoded: Vec::new(),
            lengths: Vec::new(),
            bounds: ByteBounds::default(),
        }
    }

    /// Whether the page holds no slot.
    pub fn is_empty(&self) -> bool {
        self.slots == 0
    }

    /// Appends the levels of slots `start..end` of a top-level leaf (one slot per row):
    /// defined where `nulls` is valid (everywhere without it).
    pub fn push_flat_levels(&mut self, nulls: Option<&NullBuffer>, start: usize, end: usize) {
        let n = end - start;
        match (nulls, self.bitmap_levels) {
            (None, true) => self.valid.append_n(n, true),
            (Some(nulls), true) => {
                let offset = nulls.offset();
                self.valid
                    .append_packed_range(offset + start..offset + end, nulls.validity());
            }
            // A required column (maximum definition level 0) stores no levels; a
            // nullable one always has the bitmap.
            (_, false) if self.max_def == 0 => {}
            (None, false) => self.def.resize(self.def.len() + n, self.max_def),
            (Some(nulls), false) => self
                .def
                .extend((start..end).map(|i| if nulls.is_valid(i) { self.max_def } else { 0 })),
        }
        if self.max_rep > 0 {
            self.rep.resize(self.rep.len() + n, 0);
        }
        self.slots += n;
        self.rows += n;
    }

    /// Appends materialised levels of `rows` rows (`rep` is ignored without repetition).
    pub fn push_levels(&mut self, def: &[i16], rep: &[i16], rows: usize) {
        if self.bitmap_levels {
            for &d in def {
                self.valid.append(d == 1);
            }
        } else if self.max_def > 0 {
            self.def.extend_from_slice(def);
        }
        if self.max_rep > 0 {
            self.rep.extend_from_slice(rep);
        }
        self.slots += def.len();
        self.rows += rows;
    }

    /// Bytes the page would take encoded, roughly: what the page size limit is
    /// checked against (`dictionary_len`: entries of the chunk's dictionary).
    pub fn estimate(&self, dictionary_len: usize) -> usize {
        if self.slots == 0 {
            return 0;
        }
        let levels = self.slots * 2 / 8 + 1;
        let values = match self.form {
            None => 0,
            Some(PageForm::Indices) => {
                self.indices.len() * dictionary::bit_width_for(dictionary_len) / 8
            }
            // What `plain_size` says of the same values.
            Some(PageForm::Encoded(_)) => self.encoded.len() + 4 * self.lengths.len(),
            Some(PageForm::Values) => self.values.plain_size(),
        };
        levels + values
    }

    /// Empties the page, keeping its buffers.
    fn clear(&mut self) {
        self.slots = 0;
        self.rows = 0;
        self.non_null = 0;
        self.unencoded = 0;
        self.valid.truncate(0);
        self.def.clear();
        self.rep.clear();
        self.form = None;
        self.indices.clear();
        self.values.clear();
        self.encoded.clear();
        self.lengths.clear();
        self.bounds = ByteBounds::default();
    }
}

/// What the page layer needs to know of its column.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PageFormat {
    /// Encoding of pages without the dictionary.
    pub encoding: Encoding,
    /// Data page header version.
    pub version: DataPageVersion,
    /// Statistics level of the column.
    pub statistics: StatisticsLevel,
    /// Whether page headers carry statistics (at [`StatisticsLevel::Page`]).
    pub header_statistics: bool,
    /// How bounds compare and are truncated.
    pub bounds: BoundsFormat,
    /// Maximum definition level.
    pub max_def: i16,
    /// Maximum repetition level.
    pub max_rep: i16,
}

/// One written data page: where it is and what the chunk metadata and the page index
/// say about it.
#[derive(Debug, Clone)]
pub(crate) struct PageRecord {
    /// Where the page landed (offsets relative to the chunk's data pages).
    pub written: WrittenPage,
    /// Index in the chunk of the page's first row.
    pub first_row: u64,
    /// Bounds of the page's values (`None`: no statistics, or no orderable value).
    pub min_max: Option<MinMax>,
    /// Null slots.
    pub null_count: i64,
    /// Present values.
    pub non_null: usize,
    /// Definition level histogram (empty without definition levels).
    pub def_histogram: Vec<i64>,
    /// Repetition level histogram (empty without repetition levels).
    pub rep_histogram: Vec<i64>,
    /// Sum of the byte array lengths (BYTE_ARRAY columns).
    pub unencoded_bytes: Option<i64>,
}

/// The written data pages of one column chunk, and the scratch buffers of writing them
/// (kept from chunk to chunk).
#[derive(Debug)]
pub(crate) struct Pages {
    writer: PageWriter,
    write_crc: bool,
    /// The data pages, back to back.
    pub data: PageBlocks,
    /// What each data page holds.
    pub records: Vec<PageRecord>,
    /// Rows in the pages so far.
    rows: u64,
    scratch_def: Vec<u8>,
    scratch_rep: Vec<u8>,
    scratch_values: Vec<u8>,
}

impl Pages {
    /// No pages yet; pages compressed with `codec`, with a CRC when `write_crc`.
    pub fn new(codec: Codec, write_crc: bool) -> Self {
        Self {
            writer: PageWriter::new(codec).with_crc(write_crc),
            write_crc,
            data: PageBlocks::default(),
            records: Vec::new(),
            rows: 0,
            scratch_def: Vec::new(),
            scratch_rep: Vec::new(),
            scratch_values: Vec::new(),
        }
    }

    /// The codec pages are compressed with.
    pub fn codec(&self) -> Codec {
        self.writer.codec()
    }

    /// Encrypts the pages of the next chunk with `encryptor` (its AADs name the row
    /// group and count the chunk's data pages from zero), or stops encrypting.
    pub fn set_encryptor(&mut self, encryptor: Option<ColumnEncryptor>) {
        let writer = PageWriter::new(self.writer.codec()).with_crc(self.write_crc);
        self.writer = match encryptor {
            Some(encryptor) => writer.with_encryptor(encryptor),
            None => writer,
        };
    }

    /// Encodes, compresses and appends the open page (nothing when it is empty), and
    /// empties it. `dictionary` is the chunk's dictionary while pages use it; `bloom`
    /// takes the values of a page written without it.
    pub fn write_data_page(
        &mut self,
        page: &mut OpenPage,
        dictionary: Option<&Dictionary>,
        bloom: Option<&mut SplitBlockBloomFilter>,
        format: &PageFormat,
    ) -> Result<()> {
        if page.is_empty() {
            return Ok(());
        }
        let num_slots = page.slots;
        let non_null = page.non_null;
        let null_count = num_slots - non_null;
        let prefix = match format.version {
            DataPageVersion::V1 => LengthPrefix::With,
            DataPageVersion::V2 => LengthPrefix::Without,
        };
        self.scratch_def.clear();
        self.scratch_rep.clear();
        if page.bitmap_levels {
            // Maximum level 1: the levels are the validity bits, encoded as they are.
            rle::encode_bitmap(
                page.valid.as_slice(),
                num_slots,
                prefix,
                &mut self.scratch_def,
            );
        } else if format.max_def > 0 {
            encode_levels(&page.def, format.max_def, prefix, &mut self.scratch_def);
        }
        if format.max_rep > 0 {
            encode_levels(&page.rep, format.max_rep, prefix, &mut self.scratch_rep);
        }
        self.scratch_values.clear();
        let dictionary = dictionary.filter(|d| !d.values.is_empty());
        // The values section (borrowed from the page where it is already encoded) and
        // its encoding.
        let (encoding, in_page) = match (page.form, dictionary) {
            (Some(PageForm::Encoded(true)), _) => (Encoding::PLAIN, true),
            (Some(PageForm::Encoded(false)), _) => {
                // DELTA_LENGTH_BYTE_ARRAY: the lengths, then the bytes as one block.
                delta_binary_packed::encode(&page.lengths, &mut self.scratch_values);
                self.scratch_values.extend_from_slice(&page.encoded);
                (Encoding::DELTA_LENGTH_BYTE_ARRAY, false)
            }
            (_, Some(dict)) => {
                dictionary::encode_indices(
                    &page.indices,
                    dict.values.len(),
                    &mut self.scratch_values,
                );
                (Encoding::RLE_DICTIONARY, false)
            }
            // Fixed-width numbers are their PLAIN bytes already.
            _ if format.encoding == Encoding::PLAIN && page.values.fixed_plain().is_some() => {
                (Encoding::PLAIN, true)
            }
            _ => {
                encode(&page.values, format.encoding, &mut self.scratch_values)?;
                (format.encoding, false)
            }
        };
        let values_section: &[u8] = match (in_page, page.form) {
            (false, _) => &self.scratch_values,
            (true, Some(PageForm::Encoded(_))) => &page.encoded,
            (true, _) => page.values.fixed_plain().unwrap_or_default(),
        };
        let min_max = if format.statistics == StatisticsLevel::None {
            None
        } else {
            match (page.form, dictionary) {
                (Some(PageForm::Encoded(_)), _) => page.bounds.take(),
                (Some(PageForm::Indices), Some(dict)) => {
                    statistics::dictionary_min_max(&dict.values, &page.indices, format.bounds.order)
                }
                _ => statistics::min_max(&page.values, format.bounds.order),
            }
        };
        let header_statistics =
            (format.statistics == StatisticsLevel::Page && format.header_statistics).then(|| {
                format
                    .bounds
                    .statistics(min_max.as_ref(), null_count as i64)
            });
        // Room for the sections, a header and what a codec may add to incompressible
        // bytes (a page bigger than this still fits: its block grows).
        let sections = self.scratch_rep.len() + self.scratch_def.len() + values_section.len();
        let (block, block_offset) = self.data.block_for(sections + sections / 64 + 1024);
        let mut written = match format.version {
            DataPageVersion::V1 => self.writer.write_data_page_v1(
                block,
                &DataPageV1 {
                    rep_levels: &self.scratch_rep,
                    def_levels: &self.scratch_def,
                    values: values_section,
                    num_values: num_slots,
                    num_rows: page.rows,
                    encoding,
                    def_level_encoding: Encoding::RLE,
                    rep_level_encoding: Encoding::RLE,
                    statistics: header_statistics,
                },
            )?,
            DataPageVersion::V2 => self.writer.write_data_page_v2(
                block,
                &DataPageV2 {
                    rep_levels: &self.scratch_rep,
                    def_levels: &self.scratch_def,
                    values: values_section,
                    num_values: num_slots,
                    num_nulls: null_count,
                    num_rows: page.rows,
                    encoding,
                    statistics: header_statistics,
                },
            )?,
        };
        written.offset += block_offset;
        if let Some(bloom) = bloom
            && encoding != Encoding::RLE_DICTIONARY
        {
            match page.form {
                Some(PageForm::Encoded(plain)) => bloom::insert_byte_arrays(
                    bloom,
                    &page.encoded,
                    (!plain).then_some(page.lengths.as_slice()),
                ),
                _ => bloom::insert_values(bloom, &page.values),
            }
        }
        self.records.push(PageRecord {
            written,
            first_row: self.rows,
            min_max,
            null_count: null_count as i64,
            non_null,
            def_histogram: if page.bitmap_levels {
                vec![null_count as i64, non_null as i64]
            } else {
                histogram(&page.def, format.max_def)
            },
            rep_histogram: histogram(&page.rep, format.max_rep),
            unencoded_bytes: (format.bounds.physical == Type::BYTE_ARRAY).then_some(page.unencoded),
        });
        self.rows += page.rows as u64;
        page.clear();
        Ok(())
    }

    /// Encodes and compresses the dictionary page (PLAIN values) into `out`.
    pub fn write_dictionary_page(
        &mut self,
        dictionary: &Dictionary,
        out: &mut Vec<u8>,
    ) -> Result<WrittenPage> {
        self.scratch_values.clear();
        encode_plain(&dictionary.values, &mut self.scratch_values)?;
        Ok(self.writer.write_dictionary_page(
            out,
            &self.scratch_values,
            dictionary.values.len(),
            false,
        )?)
    }

    /// Forgets the pages (after the chunk was taken), keeping the buffers.
    pub fn clear(&mut self) {
        self.data.clear();
        self.records.clear();
        self.rows = 0;
    }
}
