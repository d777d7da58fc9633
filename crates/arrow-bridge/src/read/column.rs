//! One leaf column of one row group: pages in, definition levels and dense (non-null)
//! values out, for any number of rows at a time.
//!
//! Pages are decoded whole into a pending buffer (levels and values); a read hands out
//! the next rows from it and loads pages as needed. The dictionary page is decoded once
//! per chunk and data pages gather through it; a chunk may switch from dictionary to
//! plain (or any other) encoding from one page to the next. A column read as
//! `Dictionary` hands out the indices as keys instead (see [`super::dictionary`]).

use std::sync::Arc;

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, Buffer};
use arrow_schema::DataType;
use bytes::Bytes;
use herringbone_codec::bitpack::unpack_msb_first;
use herringbone_codec::encoding::FixedWidth;
use herringbone_codec::encoding::byte_stream_split::ByteStreamSplitDecoder;
use herringbone_codec::encoding::delta_binary_packed::{DeltaBinaryPackedDecoder, DeltaInt};
use herringbone_codec::encoding::delta_byte_array::DeltaByteArrayDecoder;
use herringbone_codec::encoding::delta_length_byte_array::{self, DeltaLengthByteArrayDecoder};
use herringbone_codec::encoding::dictionary::DictionaryIndexDecoder;
use herringbone_codec::encoding::plain::{PlainBooleanDecoder, PlainDecoder};
use herringbone_codec::page::{Page, PageReader};
use herringbone_codec::rle::{RleDecoder, Run};
use herringbone_format::metadata::{Encoding, Type};
use herringbone_format::schema::ColumnDescriptor;

use super::dictionary::{self, DictKeys, KeptDictionary};
use super::views;
use crate::error::{Error, Result};
use crate::offsets::OffsetWidth;

/// The most values one data page may hold (writers produce far fewer: 20,000 rows per
/// page is the usual limit; a whole 1M-row chunk of nulls in one page still fits).
pub const MAX_PAGE_VALUES: usize = 1 << 27;

/// Dense values of one physical type (nulls are not stored).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Values {
    Bool(Vec<bool>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    I96(Vec<[u8; 12]>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    /// BYTE_ARRAY: `offsets` has one entry more than there are values and starts at 0.
    Bytes {
        offsets: Vec<i64>,
        data: Vec<u8>,
    },
    /// BYTE_ARRAY values of a column read as `Utf8` / `Binary`: the same as
    /// [`Values::Bytes`] with the 32-bit offsets those arrays keep, built directly (no
    /// conversion pass). A batch whose values hold more than `i32::MAX` bytes is an
    /// error (see [`check_i32_bytes`]).
    Bytes32 {
        offsets: Vec<i32>,
        data: Vec<u8>,
    },
    /// FIXED_LEN_BYTE_ARRAY values back to back.
    Fixed {
        width: usize,
        data: Vec<u8>,
    },
    /// BYTE_ARRAY values as Arrow views into `buffers` (decompressed pages, the
    /// dictionary), for a column read as `Utf8View` / `BinaryView`. Values of a
    /// `Utf8View` column were checked to be UTF-8 when their page was decoded.
    Views {
        views: Vec<u128>,
        buffers: Vec<Buffer>,
    },
    /// Dictionary indices of a column read as `Dictionary` (see [`dictionary`]): only
    /// in a batch, never in a page's pending values.
    Dict(DictKeys),
}

impl Values {
    /// Empty values of a physical type (`width` for FIXED_LEN_BYTE_ARRAY).
    pub(crate) fn empty(physical: Type, width: usize) -> Result<Values> {
        Ok(match physical {
            Type::BOOLEAN => Values::Bool(Vec::new()),
            Type::INT32 => Values::I32(Vec::new()),
            Type::INT64 => Values::I64(Vec::new()),
            Type::INT96 => Values::I96(Vec::new()),
            Type::FLOAT => Values::F32(Vec::new()),
            Type::DOUBLE => Values::F64(Vec::new()),
            Type::BYTE_ARRAY => Values::Bytes {
                offsets: vec![0],
                data: Vec::new(),
            },
            Type::FIXED_LEN_BYTE_ARRAY => Values::Fixed {
                width,
                data: Vec::new(),
            },
            other => return Err(Error::unsupported(format!("physical type {other:?}"))),
        })
    }

    /// Number of values.
    pub(crate) fn len(&self) -> usize {
        match self {
            Values::Bool(v) => v.len(),
            Values::I32(v) => v.len(),
            Values::I64(v) => v.len(),
            Values::I96(v) => v.len(),
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Bytes { offsets, .. } => offsets.len() - 1,
            Values::Bytes32 { offsets, .. } => offsets.len() - 1,
            Values::Fixed { width, data } => data.len() / width,
            Values::Views { views, .. } => views.len(),
            Values::Dict(d) => d.keys.len(),
        }
    }

    /// Removes every value, keeping the allocation.
    fn clear(&mut self) {
        match self {
            Values::Bool(v) => v.clear(),
            Values::I32(v) => v.clear(),
            Values::I64(v) => v.clear(),
            Values::I96(v) => v.clear(),
            Values::F32(v) => v.clear(),
            Values::F64(v) => v.clear(),
            Values::Bytes { offsets, data } => {
                offsets.clear();
                offsets.push(0);
                data.clear();
            }
            Values::Bytes32 { offsets, data } => {
                offsets.clear();
                offsets.push(0);
                data.clear();
            }
            Values::Fixed { data, .. } => data.clear(),
            Values::Views { views, buffers } => {
                views.clear();
                buffers.clear();
            }
            Values::Dict(d) => d.keys.clear(),
        }
    }

    /// An empty store of the same kind, with room for `capacity` values.
    pub(crate) fn empty_like(&self, capacity: usize) -> Values {
        match self {
            Values::Bool(_) => Values::Bool(Vec::with_capacity(capacity)),
            Values::I32(_) => Values::I32(Vec::with_capacity(capacity)),
            Values::I64(_) => Values::I64(Vec::with_capacity(capacity)),
            Values::I96(_) => Values::I96(Vec::with_capacity(capacity)),
            Values::F32(_) => Values::F32(Vec::with_capacity(capacity)),
            Values::F64(_) => Values::F64(Vec::with_capacity(capacity)),
            Values::Bytes { .. } => {
                let mut offsets = Vec::with_capacity(capacity + 1);
                offsets.push(0);
                Values::Bytes {
                    offsets,
                    data: Vec::new(),
                }
            }
            Values::Bytes32 { .. } => {
                let mut offsets = Vec::with_capacity(capacity + 1);
                offsets.push(0);
                Values::Bytes32 {
                    offsets,
                    data: Vec::new(),
                }
            }
            Values::Fixed { width, .. } => Values::Fixed {
                width: *width,
                data: Vec::with_capacity(capacity * width),
            },
            Values::Views { .. } => Values::Views {
                views: Vec::with_capacity(capacity),
                buffers: Vec::new(),
            },
            Values::Dict(d) => Values::Dict(DictKeys {
                keys: Vec::with_capacity(capacity),
                dictionary: d.dictionary.clone(),
            }),
        }
    }

    /// Appends values `start..start + n` of `src` (a store of the same kind). Fails only
    /// when 32-bit offsets would overflow.
    pub(crate) fn extend_from(&mut self, src: &Values, start: usize, n: usize) -> Result<()> {
        if matches!(self, Values::Dict(_)) || matches!(src, Values::Dict(_)) {
            return dictionary::extend(self, src, start, n);
        }
        let end = start + n;
        match (self, src) {
            (Values::Bool(d), Values::Bool(s)) => d.extend_from_slice(&s[start..end]),
            (Values::I32(d), Values::I32(s)) => d.extend_from_slice(&s[start..end]),
            (Values::I64(d), Values::I64(s)) => d.extend_from_slice(&s[start..end]),
            (Values::I96(d), Values::I96(s)) => d.extend_from_slice(&s[start..end]),
            (Values::F32(d), Values::F32(s)) => d.extend_from_slice(&s[start..end]),
            (Values::F64(d), Values::F64(s)) => d.extend_from_slice(&s[start..end]),
            (
                Values::Bytes { offsets, data },
                Values::Bytes {
                    offsets: src_offsets,
                    data: src_data,
                },
            ) => {
                let from = src_offsets[start];
                let to = src_offsets[end];
                let base = *offsets.last().unwrap_or(&0) - from;
                offsets.extend(src_offsets[start + 1..=end].iter().map(|o| o + base));
                data.extend_from_slice(&src_data[from as usize..to as usize]);
            }
            (
                Values::Bytes32 { offsets, data },
                Values::Bytes32 {
                    offsets: src_offsets,
                    data: src_data,
                },
            ) => {
                let from = src_offsets[start] as usize;
                let to = src_offsets[end] as usize;
                check_i32_bytes(data.len() + (to - from))?;
                // Both ends fit i32 (checked just above), so the shifted offsets do.
                let base = data.len() as i32 - from as i32;
                offsets.extend(src_offsets[start + 1..=end].iter().map(|o| o + base));
                data.extend_from_slice(&src_data[from..to]);
            }
            (Values::Fixed { data, width }, Values::Fixed { data: s, .. }) => {
                data.extend_from_slice(&s[start * *width..end * *width]);
            }
            (
                Values::Views { views, buffers },
                Values::Views {
                    views: src_views,
                    buffers: src_buffers,
                },
            ) => views::append_views(views, buffers, &src_views[start..end], src_buffers),
            // The stores of one column always share their kind.
            _ => unreachable!("values of different physical types"),
        }
        Ok(())
    }
}

/// The rows a [`LeafReader`] handed out: definition levels (absent for a required column
/// outside any optional group), repetition levels (absent for a column outside any
/// list), and the values of the level entries whose definition level is the maximum.
#[derive(Debug)]
pub(crate) struct LeafBatch {
    pub(crate) def_levels: Option<Vec<u16>>,
    /// For a column whose only level is its own optionality (maximum definition level
    /// 1, no repetition): the definition levels as a bitmap, set where the value is
    /// present; `def_levels` is then `None`.
    pub(crate) def_bits: Option<BooleanBuffer>,
    /// How many bits of `def_bits` are unset (nulls), counted as the pages were
    /// decoded; 0 without `def_bits`.
    pub(crate) def_nulls: usize,
    pub(crate) rep_levels: Option<Vec<u16>>,
    pub(crate) values: Values,
}

impl LeafBatch {
    /// Appends the entries of `other` (a batch of the same column). Fails only when the
    /// values no longer fit 32-bit offsets.
    pub(crate) fn append(&mut self, other: LeafBatch) -> Result<()> {
        fn join(into: &mut Option<Vec<u16>>, from: Option<Vec<u16>>) {
            if let (Some(into), Some(from)) = (into.as_mut(), from) {
                into.extend_from_slice(&from);
            }
        }
        join(&mut self.def_levels, other.def_levels);
        if let (Some(into), Some(from)) = (self.def_bits.as_mut(), other.def_bits) {
            let mut joined = BooleanBufferBuilder::new(into.len() + from.len());
            joined.append_buffer(into);
            joined.append_buffer(&from);
            *into = joined.finish();
        }
        self.def_nulls += other.def_nulls;
        join(&mut self.rep_levels, other.rep_levels);
        self.values
            .extend_from(&other.values, 0, other.values.len())
    }
}

/// Decodes one column chunk. Without repetition a level entry is a row; with it, a
/// row (record) is the entries from one repetition level 0 to the next, and a record
/// may continue from one v1 page into the next.
#[derive(Debug)]
pub(crate) struct LeafReader {
    path: String,
    physical: Type,
    /// Whether BYTE_ARRAY values must be UTF-8 (checked here when they are kept as
    /// views; otherwise the array checks them).
    utf8: bool,
    max_def: u16,
    def_bit_width: usize,
    max_rep: u16,
    rep_bit_width: usize,
    pages: PageReader,
    /// Rows of the row group not yet decoded into `pending`.
    rows_left_in_chunk: usize,
    dictionary: Option<Arc<Values>>,
    /// For a column read as `Dictionary`: the chunk's dictionary as Arrow values, whose
    /// indices batches hand out as keys.
    kept: Option<KeptDictionary>,
    /// The decoded rest of the current page (`pending_rows` counts level entries).
    pending_levels: Vec<u16>,
    /// The current page's definition levels as a bitmap, for a column whose maximum
    /// definition level is 1 and which has no repetition (see [`LeafBatch::def_bits`]).
    pending_bits: Option<BooleanBuffer>,
    /// How many bits of `pending_bits` are unset: 0 (a page without nulls, the common
    /// case) spares counting the bits of each batch.
    pending_page_nulls: usize,
    pending_rep: Vec<u16>,
    pending_values: Values,
    /// Where the current page's values come from.
    source: ValueSource,
    pending_rows: usize,
    pending_row_pos: usize,
    pending_value_pos: usize,
}

impl LeafReader {
    /// A reader of the column `column` over its chunk's pages, which hold `num_rows`
    /// rows, for an Arrow array of type `target`.
    pub(crate) fn new(
        column: &ColumnDescriptor,
        pages: PageReader,
        num_rows: usize,
        target: &DataType,
    ) -> Result<Self> {
        let path = column.path().dotted();
        let physical = column.physical_type();
        let width = if physical == Type::FIXED_LEN_BYTE_ARRAY {
            column
                .type_length()
                .and_then(|w| usize::try_from(w).ok())
                .filter(|&w| w > 0)
                .ok_or_else(|| {
                    Error::corrupt(format!(
                        "column {path}: FIXED_LEN_BYTE_ARRAY without a positive type_length"
                    ))
                })?
        } else {
            0
        };
        let max_def = u16::try_from(column.max_def_level())
            .map_err(|_| Error::corrupt(format!("column {path}: negative max definition level")))?;
        let max_rep = u16::try_from(column.max_rep_level())
            .map_err(|_| Error::corrupt(format!("column {path}: negative max repetition level")))?;
        let views = physical == Type::BYTE_ARRAY
            && matches!(target, DataType::Utf8View | DataType::BinaryView);
        // `Utf8` / `Binary` (also as dictionary values) keep 32-bit offsets: built as
        // such from the start.
        let narrow = |t: &DataType| matches!(t, DataType::Utf8 | DataType::Binary);
        let offsets32 = physical == Type::BYTE_ARRAY
            && match target {
                DataType::Dictionary(_, value) => narrow(value),
                other => narrow(other),
            };
        let pending_values = if views {
            Values::Views {
                views: Vec::new(),
                buffers: Vec::new(),
            }
        } else if offsets32 {
            Values::Bytes32 {
                offsets: vec![0],
                data: Vec::new(),
            }
        } else {
            Values::empty(physical, width).map_err(|e| e.context(&path))?
        };
        Ok(Self {
            utf8: matches!(target, DataType::Utf8View),
            def_bit_width: (16 - max_def.leading_zeros()) as usize,
            rep_bit_width: (16 - max_rep.leading_zeros()) as usize,
            pages,
            path,
            physical,
            max_def,
            max_rep,
            pending_rep: Vec::new(),
            rows_left_in_chunk: num_rows,
            dictionary: None,
            kept: KeptDictionary::for_target(target, physical),
            pending_levels: Vec::new(),
            pending_bits: None,
            pending_page_nulls: 0,
            pending_values,
            source: ValueSource::Decoded,
            pending_rows: 0,
            pending_row_pos: 0,
            pending_value_pos: 0,
        })
    }

    /// The column's dotted path (for error messages).
    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// Decodes the next `rows` rows. Fewer rows in the chunk than its row group declares
    /// is an error.
    pub(crate) fn read(&mut self, rows: usize) -> Result<LeafBatch> {
        if self.max_rep > 0 {
            return self.read_records(rows);
        }
        let pending_rest = self.pending_rows - self.pending_row_pos;
        // A batch that is exactly the rest of the current page takes its buffers as
        // they are, with no copy.
        if rows == pending_rest
            && self.pending_row_pos == 0
            && rows > 0
            && matches!(self.source, ValueSource::Decoded)
        {
            self.pending_rows = 0;
            let values = self.pending_values.empty_like(0);
            let values = std::mem::replace(&mut self.pending_values, values);
            let def_bits = self.pending_bits.take();
            let def_levels = (self.max_def > 0 && def_bits.is_none())
                .then(|| std::mem::take(&mut self.pending_levels));
            return Ok(LeafBatch {
                def_levels,
                def_nulls: if def_bits.is_some() {
                    self.pending_page_nulls
                } else {
                    0
                },
                def_bits,
                rep_levels: None,
                values,
            });
        }
        let bitmap = self.bitmap_levels();
        let mut levels = Vec::with_capacity(if self.max_def > 0 && !bitmap { rows } else { 0 });
        let mut bit_slices: Vec<BooleanBuffer> = Vec::new();
        let mut def_nulls = 0;
        // Room for every row, so that spreading nulls later does not reallocate; a row
        // count beyond what the pages hold (a hostile footer) is not trusted.
        let mut values = self
            .pending_values
            .empty_like(rows.min(pending_rest.max(1 << 20)));
        let mut got = 0;
        while got < rows {
            if self.pending_row_pos == self.pending_rows && !self.load_page()? {
                return Err(Error::corrupt(format!(
                    "column {}: the column chunk ends {} rows short of its row group",
                    self.path,
                    rows - got
                )));
            }
            let take = (rows - got).min(self.pending_rows - self.pending_row_pos);
            let present = if let Some(bits) = &self.pending_bits {
                let slice = bits.slice(self.pending_row_pos, take);
                let present = match self.pending_page_nulls {
                    0 => take,
                    _ => slice.count_set_bits(),
                };
                bit_slices.push(slice);
                def_nulls += take - present;
                present
            } else if self.max_def > 0 {
                let slice = &self.pending_levels[self.pending_row_pos..self.pending_row_pos + take];
                levels.extend_from_slice(slice);
                let max = self.max_def;
                slice.iter().filter(|&&l| l == max).count()
            } else {
                take
            };
            self.append_values(&mut values, present)
                .map_err(|e| e.context(format!("column {}", self.path)))?;
            self.pending_row_pos += take;
            self.pending_value_pos += present;
            got += take;
        }
        let def_bits = bitmap.then(|| match bit_slices.len() {
            1 => bit_slices
                .pop()
                .unwrap_or_else(|| BooleanBuffer::new_unset(0)),
            _ => {
                let mut joined = BooleanBufferBuilder::new(rows);
                for slice in &bit_slices {
                    joined.append_buffer(slice);
                }
                joined.finish()
            }
        });
        Ok(LeafBatch {
            def_levels: (self.max_def > 0 && !bitmap).then_some(levels),
            def_bits,
            def_nulls,
            rep_levels: None,
            values,
        })
    }

    /// Decodes the level entries of the next `records` records of a repeated column.
    /// A record ends where the next one starts (repetition level 0), so when a page is
    /// used up exactly at the last record the next page is loaded to see whether the
    /// record continues in it.
    fn read_records(&mut self, records: usize) -> Result<LeafBatch> {
        let mut def_levels = Vec::new();
        let mut rep_levels = Vec::new();
        let mut values = self.pending_values.empty_like(0);
        let mut started = 0;
        if records == 0 {
            return Ok(LeafBatch {
                def_levels: Some(def_levels),
                def_bits: None,
                def_nulls: 0,
                rep_levels: Some(rep_levels),
                values,
            });
        }
        loop {
            if self.pending_row_pos == self.pending_rows {
                if self.load_page()? {
                    continue;
                }
                if started < records {
                    return Err(Error::corrupt(format!(
                        "column {}: the column chunk ends {} rows short of its row group",
                        self.path,
                        records - started
                    )));
                }
                break;
            }
            let start = self.pending_row_pos;
            let reps = &self.pending_rep[start..self.pending_rows];
            if started == 0 && reps[0] != 0 {
                return Err(Error::corrupt(format!(
                    "column {}: a row starts with repetition level {} instead of 0",
                    self.path, reps[0]
                )));
            }
            // Records start where the repetition level is 0. Blocks that cannot hold
            // the end are counted without a branch per level; the block that holds it
            // is walked level by level.
            let mut end = self.pending_rows;
            let mut at = 0;
            for block in reps.chunks(64) {
                let starts = block.iter().filter(|&&rep| rep == 0).count();
                if started + starts <= records {
                    started += starts;
                    at += block.len();
                    continue;
                }
                for (i, &rep) in block.iter().enumerate() {
                    if rep == 0 {
                        if started == records {
                            end = start + at + i;
                            break;
                        }
                        started += 1;
                    }
                }
                break;
            }
            let defs = &self.pending_levels[start..end];
            def_levels.extend_from_slice(defs);
            rep_levels.extend_from_slice(&self.pending_rep[start..end]);
            let max = self.max_def;
            let present = defs.iter().filter(|&&l| l == max).count();
            self.append_values(&mut values, present)
                .map_err(|e| e.context(format!("column {}", self.path)))?;
            self.pending_row_pos = end;
            self.pending_value_pos += present;
            if end < self.pending_rows {
                break;
            }
        }
        Ok(LeafBatch {
            def_levels: Some(def_levels),
            def_bits: None,
            def_nulls: 0,
            rep_levels: Some(rep_levels),
            values,
        })
    }

    /// Decodes the next data page into the pending buffers (reading the dictionary page
    /// on the way); `false` when the chunk has no more pages.
    fn load_page(&mut self) -> Result<bool> {
        loop {
            let page = self
                .pages
                .next_page()
                .map_err(|e| Error::from(e).context(format!("column {}", self.path)))?;
            let Some(page) = page else {
                return Ok(false);
            };
            let page_index = self.pages.page_index();
            let result = match page {
                Page::Dictionary {
                    values,
                    num_values,
                    encoding,
                    ..
                } => self.decode_dictionary(&values, num_values, encoding),
                Page::DataV1 {
                    buffer,
                    num_values,
                    encoding,
                    def_level_encoding,
                    rep_level_encoding,
                    ..
                } => self.decode_v1(
                    buffer,
                    num_values,
                    encoding,
                    def_level_encoding,
                    rep_level_encoding,
                ),
                Page::DataV2 {
                    rep_levels,
                    def_levels,
                    values,
                    num_values,
                    encoding,
                    ..
                } => self.decode_v2(&rep_levels, &def_levels, values, num_values, encoding),
            };
            match result {
                Ok(true) => return Ok(true),
                Ok(false) => continue,
                Err(e) => {
                    return Err(e.context(format!("column {}, page {}", self.path, page_index)));
                }
            }
        }
    }

    fn decode_dictionary(
        &mut self,
        data: &[u8],
        num_values: usize,
        encoding: Encoding,
    ) -> Result<bool> {
        if self.dictionary.is_some() {
            return Err(Error::corrupt("a second dictionary page"));
        }
        if encoding != Encoding::PLAIN && encoding != Encoding::PLAIN_DICTIONARY {
            return Err(Error::unsupported(format!(
                "dictionary page encoding {encoding:?}"
            )));
        }
        let mut dictionary = match self.pending_values {
            Values::Views { .. } => Values::empty(Type::BYTE_ARRAY, 0)?,
            _ => self.pending_values.empty_like(0),
        };
        decode_plain(data, num_values, &mut dictionary)?;
        if let (Values::Views { .. }, Values::Bytes { offsets, data }) =
            (&self.pending_values, &mut dictionary)
        {
            dictionary = bytes_to_views(offsets, std::mem::take(data), self.utf8)?;
        }
        let kept = self
            .kept
            .as_ref()
            .map(|k| k.array_of(&self.path, &dictionary));
        // Zero bytes after the last value, so that gathering copies every short value
        // as one fixed-size block (see `copy_short`).
        if let Values::Bytes { data, .. } | Values::Bytes32 { data, .. } = &mut dictionary {
            data.extend_from_slice(&[0; SHORT]);
        }
        let dictionary = Arc::new(dictionary);
        if let (Some(keeper), Some(array)) = (&mut self.kept, kept) {
            keeper.set(array, &dictionary);
        }
        self.dictionary = Some(dictionary);
        Ok(false)
    }

    /// Checks a data page's value count against the rows left and resets the pending
    /// buffers for it.
    fn start_page(&mut self, num_values: usize) -> Result<()> {
        // Levels and values of a page are decoded whole, and RLE can claim billions of
        // values in a few bytes: cap what one page may ask for until levels are decoded
        // lazily in batch-sized pieces.
        if num_values > MAX_PAGE_VALUES {
            return Err(Error::corrupt(format!(
                "data page claims {num_values} values, more than the reader's limit of \
                 {MAX_PAGE_VALUES} values per page"
            )));
        }
        // Without repetition every value is a row; with it, rows are counted as they
        // are read.
        if self.max_rep == 0 {
            if num_values > self.rows_left_in_chunk {
                return Err(Error::corrupt(format!(
                    "data page holds {num_values} values, only {} rows of the row group are left",
                    self.rows_left_in_chunk
                )));
            }
            self.rows_left_in_chunk -= num_values;
        }
        self.pending_levels.clear();
        self.pending_bits = None;
        self.pending_rep.clear();
        self.pending_values.clear();
        self.source = ValueSource::Decoded;
        self.pending_rows = num_values;
        self.pending_row_pos = 0;
        self.pending_value_pos = 0;
        Ok(())
    }

    fn decode_v1(
        &mut self,
        buffer: Bytes,
        num_values: usize,
        encoding: Encoding,
        def_level_encoding: Encoding,
        rep_level_encoding: Encoding,
    ) -> Result<bool> {
        self.start_page(num_values)?;
        let mut values_at = 0;
        let mut present = num_values;
        if self.max_rep > 0 {
            self.pending_rep.resize(num_values, 0);
            values_at = decode_v1_levels(
                &buffer,
                rep_level_encoding,
                self.rep_bit_width,
                self.max_rep,
                &mut self.pending_rep,
                "repetition",
            )?
            .1;
        }
        if self.bitmap_levels() && def_level_encoding == Encoding::RLE {
            let (mut decoder, used) =
                RleDecoder::with_length_prefix(&buffer[values_at..], self.def_bit_width)?;
            let (bits, count) = decode_level_bits(&mut decoder, num_values)?;
            self.pending_bits = Some(bits);
            self.pending_page_nulls = num_values - count;
            present = count;
            values_at += used;
        } else if self.max_def > 0 {
            self.pending_levels.resize(num_values, 0);
            let (count, used) = decode_v1_levels(
                &buffer[values_at..],
                def_level_encoding,
                self.def_bit_width,
                self.max_def,
                &mut self.pending_levels,
                "definition",
            )?;
            present = count;
            values_at += used;
            if self.bitmap_levels() {
                self.pending_bits = Some(super::array::bits_at_or_above(&self.pending_levels, 1));
                self.pending_page_nulls = num_values - count;
            }
        }
        self.decode_page_values(buffer.slice(values_at..), encoding, present)?;
        Ok(true)
    }

    fn decode_v2(
        &mut self,
        rep_levels: &[u8],
        def_levels: &[u8],
        values: Bytes,
        num_values: usize,
        encoding: Encoding,
    ) -> Result<bool> {
        self.start_page(num_values)?;
        let mut present = num_values;
        if self.max_rep > 0 {
            self.pending_rep.resize(num_values, 0);
            let mut decoder = RleDecoder::new(rep_levels, self.rep_bit_width)?;
            decode_levels(
                &mut decoder,
                &mut self.pending_rep,
                self.max_rep,
                "repetition",
            )?;
        }
        if self.bitmap_levels() {
            let mut decoder = RleDecoder::new(def_levels, self.def_bit_width)?;
            let (bits, count) = decode_level_bits(&mut decoder, num_values)?;
            self.pending_bits = Some(bits);
            self.pending_page_nulls = num_values - count;
            present = count;
        } else if self.max_def > 0 {
            self.pending_levels.resize(num_values, 0);
            let mut decoder = RleDecoder::new(def_levels, self.def_bit_width)?;
            present = decode_levels(
                &mut decoder,
                &mut self.pending_levels,
                self.max_def,
                "definition",
            )?;
        }
        self.decode_page_values(values, encoding, present)?;
        Ok(true)
    }

    /// Whether definition levels are kept as a bitmap: the column's only level is its
    /// own optionality.
    fn bitmap_levels(&self) -> bool {
        self.max_def == 1 && self.max_rep == 0
    }

    /// Appends the next `n` values of the current page to `out`.
    fn append_values(&mut self, out: &mut Values, n: usize) -> Result<()> {
        if let Some(kept) = &self.kept {
            let indices = match &self.source {
                ValueSource::Indices(indices) => {
                    Some(&indices[self.pending_value_pos..self.pending_value_pos + n])
                }
                _ => None,
            };
            if kept.append(indices, out)? {
                return Ok(());
            }
        }
        match &mut self.source {
            ValueSource::Decoded => {
                out.extend_from(&self.pending_values, self.pending_value_pos, n)
            }
            ValueSource::Plain {
                page,
                byte_pos,
                values,
                ascii,
            } => {
                // Room for the values' bytes, estimated from the page's average, so
                // that the buffer is not regrown value by value.
                let rest_values = values.saturating_sub(self.pending_value_pos).max(1);
                let estimate = (page.len() - *byte_pos) / rest_values * n.min(rest_values);
                match out {
                    Values::Views { views, buffers } => {
                        let buffer = page_buffer(buffers, page)?;
                        let check = self.utf8 && !*ascii;
                        *byte_pos = plain_views(page, *byte_pos, n, check, buffer, views)?;
                    }
                    Values::Bytes { offsets, data } => {
                        data.reserve(estimate);
                        *byte_pos = plain_byte_arrays(page, *byte_pos, n, offsets, data)?;
                    }
                    Values::Bytes32 { offsets, data } => {
                        data.reserve(estimate);
                        *byte_pos = plain_byte_arrays(page, *byte_pos, n, offsets, data)?;
                    }
                    _ => {
                        decode_plain(&page[*byte_pos..], n, out)?;
                        *byte_pos += n * plain_width(out);
                    }
                }
                Ok(())
            }
            ValueSource::Contiguous { page, first, ends } => {
                let Some(taken) = ends.get(self.pending_value_pos..=self.pending_value_pos + n)
                else {
                    return Err(Error::corrupt("page values beyond those decoded"));
                };
                match out {
                    Values::Bytes { offsets, data } => {
                        contiguous_byte_arrays(page, *first, taken, offsets, data)
                    }
                    Values::Bytes32 { offsets, data } => {
                        contiguous_byte_arrays(page, *first, taken, offsets, data)
                    }
                    Values::Views { views, buffers } => {
                        let buffer = page_buffer(buffers, page)?;
                        contiguous_views(page, *first, taken, self.utf8, buffer, views)
                    }
                    _ => Err(Error::corrupt("page values beyond those decoded")),
                }
            }
            ValueSource::Indices(indices) => {
                let dictionary = self.dictionary.as_ref().ok_or_else(|| {
                    Error::corrupt("dictionary-encoded page without a dictionary page")
                })?;
                let indices = &indices[self.pending_value_pos..self.pending_value_pos + n];
                gather_checked(dictionary, indices, out)
            }
        }
    }

    /// Decodes the page's `present` non-null values (as many as levels at the maximum).
    fn decode_page_values(
        &mut self,
        data: Bytes,
        encoding: Encoding,
        present: usize,
    ) -> Result<()> {
        let width = plain_width(&self.pending_values);
        let bytes = matches!(
            self.pending_values,
            Values::Bytes { .. } | Values::Bytes32 { .. } | Values::Views { .. }
        );
        if matches!(self.pending_values, Values::Views { .. }) && u32::try_from(data.len()).is_err()
        {
            return Err(Error::unsupported(
                "a page of 4 GiB or more of byte arrays read as views",
            ));
        }
        if encoding == Encoding::PLAIN && (width > 0 || bytes) {
            // A BYTE_ARRAY value takes at least its 4-byte length.
            let least = if bytes { 4 } else { width };
            if present
                .checked_mul(least)
                .is_none_or(|bytes| bytes > data.len())
            {
                return Err(Error::corrupt(format!(
                    "PLAIN: {present} values need more than the {} bytes present",
                    data.len()
                )));
            }
            // A page of `Utf8View` values whose every byte (length prefixes included) is
            // ASCII holds only UTF-8 values, each starting on a character boundary: one
            // vectorised pass here spares the per-value checks of each batch.
            let ascii = self.utf8 && data.is_ascii();
            self.source = ValueSource::Plain {
                page: data,
                byte_pos: 0,
                values: present,
                ascii,
            };
            return Ok(());
        }
        if matches!(
            encoding,
            Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY
        ) && !matches!(self.pending_values, Values::Bool(_))
        {
            let dictionary_len = self
                .dictionary
                .as_ref()
                .ok_or_else(|| Error::corrupt("dictionary-encoded page without a dictionary page"))?
                .len();
            let mut indices = vec![0u32; present];
            let got =
                DictionaryIndexDecoder::new(&data)?.decode_checked(&mut indices, dictionary_len)?;
            check_count(got, present)?;
            self.source = ValueSource::Indices(indices);
            return Ok(());
        }
        if encoding == Encoding::DELTA_LENGTH_BYTE_ARRAY && bytes {
            let (first, ends) = delta_length_byte_array::value_ends(&data, present)?;
            self.source = ValueSource::Contiguous {
                page: data,
                first,
                ends,
            };
            return Ok(());
        }
        if matches!(
            encoding,
            Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY
        ) {
            let dictionary = self.dictionary.as_ref().ok_or_else(|| {
                Error::corrupt("dictionary-encoded page without a dictionary page")
            })?;
            return gather(dictionary, &data, present, &mut self.pending_values);
        }
        if let Values::Views { .. } = self.pending_values {
            self.pending_values = self.decode_views(&data, encoding, present)?;
            return Ok(());
        }
        decode_values(
            &data,
            encoding,
            present,
            self.physical,
            &mut self.pending_values,
        )
    }

    /// Decodes a page's `present` BYTE_ARRAY values as views for an encoding whose
    /// values do not lie in the page as they are (PLAIN and DELTA_LENGTH_BYTE_ARRAY
    /// values are viewed in place, batch by batch, see [`Self::append_values`]): they
    /// are decoded into one new buffer and viewed there.
    fn decode_views(&mut self, data: &[u8], encoding: Encoding, present: usize) -> Result<Values> {
        let mut bytes = Values::empty(Type::BYTE_ARRAY, 0)?;
        decode_values(data, encoding, present, self.physical, &mut bytes)?;
        let Values::Bytes { offsets, data } = bytes else {
            return Err(bad_encoding(encoding, self.physical));
        };
        bytes_to_views(&offsets, data, self.utf8)
    }
}

/// Decodes `present` values of `encoding` (neither dictionary encoding) into `out`.
fn decode_values(
    data: &[u8],
    encoding: Encoding,
    present: usize,
    physical: Type,
    out: &mut Values,
) -> Result<()> {
    match encoding {
        Encoding::PLAIN => decode_plain(data, present, out)?,
        Encoding::RLE if physical == Type::BOOLEAN => {
            let (mut decoder, _) = RleDecoder::with_length_prefix(data, 1)?;
            let mut bits = vec![0u8; present];
            let got = decoder.get_batch(&mut bits)?;
            check_count(got, present)?;
            if let Values::Bool(v) = out {
                v.extend(bits.iter().map(|&b| b != 0));
            }
        }
        Encoding::DELTA_BINARY_PACKED => match out {
            Values::I32(v) => decode_delta(data, present, v)?,
            Values::I64(v) => decode_delta(data, present, v)?,
            _ => return Err(bad_encoding(encoding, physical)),
        },
        Encoding::DELTA_LENGTH_BYTE_ARRAY => match out {
            Values::Bytes {
                offsets,
                data: bytes,
            } => {
                let got =
                    DeltaLengthByteArrayDecoder::new(data)?.decode(present, offsets, bytes)?;
                check_count(got, present)?;
            }
            Values::Bytes32 {
                offsets,
                data: bytes,
            } => {
                let got =
                    DeltaLengthByteArrayDecoder::new(data)?.decode(present, offsets, bytes)?;
                check_count(got, present)?;
            }
            _ => return Err(bad_encoding(encoding, physical)),
        },
        Encoding::DELTA_BYTE_ARRAY => match out {
            Values::Bytes {
                offsets,
                data: bytes,
            } => {
                let got = DeltaByteArrayDecoder::new(data)?.decode(present, offsets, bytes)?;
                check_count(got, present)?;
            }
            Values::Bytes32 {
                offsets,
                data: bytes,
            } => {
                let got = DeltaByteArrayDecoder::new(data)?.decode(present, offsets, bytes)?;
                check_count(got, present)?;
            }
            Values::Fixed { width, data: bytes } => {
                let got = DeltaByteArrayDecoder::new(data)?.decode_fixed(*width, present, bytes)?;
                check_count(got, present)?;
            }
            _ => return Err(bad_encoding(encoding, physical)),
        },
        Encoding::BYTE_STREAM_SPLIT => match out {
            Values::I32(v) => decode_split(data, present, v)?,
            Values::I64(v) => decode_split(data, present, v)?,
            Values::F32(v) => decode_split(data, present, v)?,
            Values::F64(v) => decode_split(data, present, v)?,
            Values::Fixed { width, data: bytes } => {
                let mut decoder = ByteStreamSplitDecoder::new(data, *width)?;
                check_count(decoder.remaining().min(present), present)?;
                let got = decoder.decode_bytes(present, bytes)?;
                check_count(got, present)?;
            }
            _ => return Err(bad_encoding(encoding, physical)),
        },
        other => return Err(bad_encoding(other, physical)),
    }
    Ok(())
}

/// BYTE_ARRAY values (offsets into `data`) as views into one buffer holding `data`.
pub(crate) fn bytes_to_views(offsets: &[i64], data: Vec<u8>, utf8: bool) -> Result<Values> {
    if u32::try_from(data.len()).is_err() {
        return Err(Error::unsupported("4 GiB or more of values read as views"));
    }
    let positions = views::offset_positions(offsets);
    let views = views::checked_views(&data, &positions, utf8).ok_or_else(invalid_utf8)?;
    Ok(Values::Views {
        views,
        buffers: vec![Buffer::from_vec(data)],
    })
}

/// The index in `buffers` of the page a batch's views point into: the last buffer
/// when that is already this page, otherwise the page added at the end.
fn page_buffer(buffers: &mut Vec<Buffer>, page: &Bytes) -> Result<u32> {
    let shown = buffers
        .last()
        .is_some_and(|b| b.as_ptr() == page.as_ptr() && b.len() == page.len());
    if !shown {
        buffers.push(Buffer::from(page.clone()));
    }
    u32::try_from(buffers.len() - 1)
        .map_err(|_| Error::unsupported("more than 4 billion pages in one batch of views"))
}

/// Appends to `out` the views (into buffer `buffer`, which is `page`) of the `n` PLAIN
/// BYTE_ARRAY values from byte `pos` of the page, made in the pass that walks and
/// checks their lengths; for `Utf8View` the values are then checked to be UTF-8 with
/// one pass over their span (see [`views::utf8_views`]). Returns where the next value
/// starts. The page is under 4 GiB (checked when it was loaded).
fn plain_views(
    page: &[u8],
    mut pos: usize,
    n: usize,
    utf8: bool,
    buffer: u32,
    out: &mut Vec<u128>,
) -> Result<usize> {
    let added = out.len();
    let span_start = (pos + 4).min(page.len());
    // Filled through a slice rather than pushed: no capacity check per value.
    out.resize(added + n, 0);
    let mut boundaries = true;
    for (decoded, view) in out[added..].iter_mut().enumerate() {
        let (start, len) = plain_value_at(page, pos, decoded, n)?;
        *view = views::view_at(page, start, len, buffer);
        pos = start + len;
        if utf8 {
            boundaries &= views::starts_char(page, start) & views::starts_char(page, pos);
        }
    }
    if utf8 && !views::utf8_views(page, span_start.min(pos)..pos, boundaries, &out[added..]) {
        return Err(invalid_utf8());
    }
    Ok(pos)
}

/// Appends to `out` the views (into buffer `buffer`, which is `page`) of the
/// DELTA_LENGTH_BYTE_ARRAY values that end at `ends[1..]` (counted from byte `first`
/// of the page, the first starting at `ends[0]`); the values lie back to back, so for
/// `Utf8View` one UTF-8 check of them all and a look at each value's first byte
/// suffice.
fn contiguous_views(
    page: &[u8],
    first: usize,
    ends: &[u32],
    utf8: bool,
    buffer: u32,
    out: &mut Vec<u128>,
) -> Result<()> {
    let (Some(&from), Some(&to)) = (ends.first(), ends.last()) else {
        return Ok(());
    };
    let added = out.len();
    let span = first + from as usize..first + to as usize;
    // ASCII values (most strings) are UTF-8 and start on character boundaries: one
    // vectorised look at their bytes spares a look at each value's first byte.
    let check = utf8 && !page.get(span.clone()).is_some_and(<[u8]>::is_ascii);
    let mut boundaries = true;
    // Filled through a slice rather than pushed: no capacity check per value.
    out.resize(added + ends.len() - 1, 0);
    for (view, end) in out[added..].iter_mut().zip(ends.windows(2)) {
        let start = first + end[0] as usize;
        if check {
            boundaries &= views::starts_char(page, start);
        }
        *view = views::view_at(page, start, (end[1] - end[0]) as usize, buffer);
    }
    if check && !views::utf8_views(page, span, boundaries, &out[added..]) {
        return Err(invalid_utf8());
    }
    Ok(())
}

fn invalid_utf8() -> Error {
    Error::corrupt("invalid UTF-8 in a string column")
}

/// Where a page's values are read from when a batch takes them.
#[derive(Debug)]
enum ValueSource {
    /// Decoded whole into the pending values.
    Decoded,
    /// PLAIN values left in the page and copied straight into each batch (once, rather
    /// than into the pending values first); `byte_pos` is where the next one starts,
    /// `values` how many the page holds, `ascii` whether the values of a `Utf8View`
    /// column are known to be UTF-8 already (every byte of the page is ASCII).
    Plain {
        page: Bytes,
        byte_pos: usize,
        values: usize,
        ascii: bool,
    },
    /// The page's dictionary indices (checked against the dictionary), gathered into
    /// each batch.
    Indices(Vec<u32>),
    /// DELTA_LENGTH_BYTE_ARRAY values left in the page, back to back from byte
    /// `first`, value `i` ending `ends[i + 1]` bytes after it: a batch's values are one
    /// copy and its offsets a shift of `ends`.
    Contiguous {
        page: Bytes,
        first: usize,
        ends: Vec<u32>,
    },
}

/// Appends the dictionary values `indices` (already checked) address.
pub(crate) fn gather_checked(dictionary: &Values, indices: &[u32], out: &mut Values) -> Result<()> {
    fn pick<T: Copy>(dictionary: &[T], indices: &[u32], out: &mut Vec<T>) {
        out.extend(indices.iter().map(|&i| dictionary[i as usize]));
    }
    match (dictionary, out) {
        (Values::Bool(d), Values::Bool(o)) => pick(d, indices, o),
        (Values::I32(d), Values::I32(o)) => pick(d, indices, o),
        (Values::I64(d), Values::I64(o)) => pick(d, indices, o),
        (Values::I96(d), Values::I96(o)) => pick(d, indices, o),
        (Values::F32(d), Values::F32(o)) => pick(d, indices, o),
        (Values::F64(d), Values::F64(o)) => pick(d, indices, o),
        (
            Values::Bytes {
                offsets: dict_offsets,
                data: dict_data,
            },
            Values::Bytes { offsets, data },
        ) => gather_byte_arrays(dict_offsets, dict_data, indices, offsets, data)?,
        (
            Values::Bytes32 {
                offsets: dict_offsets,
                data: dict_data,
            },
            Values::Bytes32 { offsets, data },
        ) => gather_byte_arrays(dict_offsets, dict_data, indices, offsets, data)?,
        (Values::Fixed { width, data: dict }, Values::Fixed { data, .. }) => {
            let width = *width;
            for &i in indices {
                let i = i as usize;
                data.extend_from_slice(&dict[i * width..(i + 1) * width]);
            }
        }
        (
            Values::Views {
                views: dict_views,
                buffers: dict_buffers,
            },
            Values::Views { views, buffers },
        ) => views::gather_views(views, buffers, dict_views, dict_buffers, indices),
        _ => return Err(Error::corrupt("dictionary of another physical type")),
    }
    Ok(())
}

/// Bytes per PLAIN value of a fixed-width store; 0 for booleans (bit-packed) and byte
/// arrays (length-prefixed).
fn plain_width(values: &Values) -> usize {
    match values {
        Values::I32(_) | Values::F32(_) => 4,
        Values::I64(_) | Values::F64(_) => 8,
        Values::I96(_) => 12,
        Values::Fixed { width, .. } => *width,
        Values::Bool(_)
        | Values::Bytes { .. }
        | Values::Bytes32 { .. }
        | Values::Views { .. }
        | Values::Dict(_) => 0,
    }
}

/// Values up to this many bytes are copied as one block of this size (when the source
/// has that many bytes left) rather than by a copy call per value.
const SHORT: usize = 32;

/// Fails when `bytes` bytes of values do not fit the 32-bit offsets of a `Utf8` /
/// `Binary` array (a batch of more than 2 GiB of strings).
pub(crate) fn check_i32_bytes(bytes: usize) -> Result<()> {
    if i32::try_from(bytes).is_ok() {
        return Ok(());
    }
    Err(Error::new(
        crate::ErrorKind::Unsupported,
        format!(
            "{bytes} bytes of values in one batch do not fit the 32-bit offsets of Utf8 / \
             Binary; use a smaller batch size or read the column as LargeUtf8 / LargeBinary"
        ),
    ))
}

/// Appends `value` to `data`. A short value with at least [`SHORT`] bytes after its
/// start in `source` is copied as one fixed-size block (a couple of vector moves, not
/// a `memcpy` call) and the bytes past it cut off again.
#[inline(always)]
fn copy_short(source: &[u8], start: usize, len: usize, data: &mut Vec<u8>) {
    let end = data.len() + len;
    match source.get(start..start + SHORT) {
        Some(block) if len <= SHORT => {
            data.extend_from_slice(block);
            data.truncate(end);
        }
        _ => data.extend_from_slice(&source[start..start + len]),
    }
}

/// Where the PLAIN BYTE_ARRAY value whose 4-byte length is at byte `pos` of `page`
/// starts, and its length, checked against the page (`decoded` of `n` values read so
/// far, for the error).
#[inline(always)]
fn plain_value_at(page: &[u8], pos: usize, decoded: usize, n: usize) -> Result<(usize, usize)> {
    let Some(prefix) = page
        .get(pos..pos + 4)
        .and_then(|p| <[u8; 4]>::try_from(p).ok())
    else {
        return Err(Error::corrupt(format!(
            "PLAIN BYTE_ARRAY: the page ends after {decoded} of {n} values"
        )));
    };
    let len = u32::from_le_bytes(prefix) as usize;
    let start = pos + 4;
    if len > page.len() - start {
        return Err(Error::corrupt(format!(
            "PLAIN BYTE_ARRAY: value at byte {pos} has length {len}, only {} bytes remain",
            page.len() - start
        )));
    }
    Ok((start, len))
}

/// Appends the `n` PLAIN BYTE_ARRAY values at byte `pos` of `page` (a 4-byte length,
/// then the bytes, each) in one pass that checks each length against the page, copies
/// the bytes and writes the end offset. Returns the position after the last value.
fn plain_byte_arrays<O: OffsetWidth>(
    page: &[u8],
    mut pos: usize,
    n: usize,
    offsets: &mut Vec<O>,
    data: &mut Vec<u8>,
) -> Result<usize> {
    if offsets.is_empty() {
        offsets.push(O::from_position(data.len()));
    }
    offsets.reserve(n);
    for decoded in 0..n {
        let (start, len) = plain_value_at(page, pos, decoded, n)?;
        copy_short(page, start, len, data);
        offsets.push(O::from_position(data.len()));
        pos = start + len;
    }
    O::check_len(data.len(), "a batch")?;
    Ok(pos)
}

/// Appends the values that end at `ends[1..]` (counted from byte `first` of `page`,
/// the first starting at `ends[0]`), which lie back to back (DELTA_LENGTH_BYTE_ARRAY):
/// one copy for all of them.
fn contiguous_byte_arrays<O: OffsetWidth>(
    page: &[u8],
    first: usize,
    ends: &[u32],
    offsets: &mut Vec<O>,
    data: &mut Vec<u8>,
) -> Result<()> {
    let (Some(&from), Some(&to)) = (ends.first(), ends.last()) else {
        return Ok(());
    };
    let (from, to) = (from as usize, to as usize);
    let base = data.len();
    O::check_len(base + (to - from), "a batch")?;
    if offsets.is_empty() {
        offsets.push(O::from_position(base));
    }
    offsets.reserve(ends.len() - 1);
    offsets.extend(
        ends[1..]
            .iter()
            .map(|&end| O::from_position(end as usize - from + base)),
    );
    data.extend_from_slice(&page[first + from..first + to]);
    Ok(())
}

/// Appends the dictionary values `indices` (checked against the dictionary) address.
fn gather_byte_arrays<O: OffsetWidth>(
    dict_offsets: &[O],
    dict_data: &[u8],
    indices: &[u32],
    offsets: &mut Vec<O>,
    data: &mut Vec<u8>,
) -> Result<()> {
    offsets.reserve(indices.len());
    for &i in indices {
        let i = i as usize;
        let start = dict_offsets[i].position();
        let len = dict_offsets[i + 1].position() - start;
        copy_short(dict_data, start, len, data);
        offsets.push(O::from_position(data.len()));
    }
    O::check_len(data.len(), "a batch")
}

fn bad_encoding(encoding: Encoding, physical: Type) -> Error {
    Error::unsupported(format!("encoding {encoding:?} for {physical:?} values"))
}

fn check_count(got: usize, wanted: usize) -> Result<()> {
    if got == wanted {
        Ok(())
    } else {
        Err(Error::corrupt(format!(
            "page holds {got} values where its definition levels need {wanted}"
        )))
    }
}

/// Decodes the `levels.len()` levels at the start of a v1 page (`kind` names them for
/// errors): RLE with its length prefix, or the deprecated BIT_PACKED. Returns how many
/// equal `max` and how many bytes they took.
fn decode_v1_levels(
    buffer: &[u8],
    encoding: Encoding,
    bit_width: usize,
    max: u16,
    levels: &mut [u16],
    kind: &str,
) -> Result<(usize, usize)> {
    match encoding {
        Encoding::RLE => {
            let (mut decoder, used) = RleDecoder::with_length_prefix(buffer, bit_width)?;
            Ok((decode_levels(&mut decoder, levels, max, kind)?, used))
        }
        Encoding::BIT_PACKED => {
            let bytes = (levels.len() * bit_width).div_ceil(8);
            let packed = buffer.get(..bytes).ok_or_else(|| {
                Error::corrupt(format!(
                    "BIT_PACKED {kind} levels need {bytes} bytes, the page has {}",
                    buffer.len()
                ))
            })?;
            unpack_msb_first(packed, bit_width, 0, levels)?;
            Ok((count_present(levels, max, kind)?, bytes))
        }
        other => Err(Error::unsupported(format!(
            "{kind} level encoding {other:?}"
        ))),
    }
}

/// Fills `levels` completely from an RLE/bit-packed stream, run by run (a repeated run
/// is one fill), checking each level against `max`; returns how many levels equal `max`
/// (for definition levels, the page's non-null values).
fn decode_levels(
    decoder: &mut RleDecoder<&[u8]>,
    levels: &mut [u16],
    max: u16,
    kind: &str,
) -> Result<usize> {
    let mut filled = 0;
    let mut present = 0;
    while filled < levels.len() {
        match decoder.next_run(levels.len() - filled)? {
            None => {
                return Err(Error::corrupt(format!(
                    "{kind} levels end after {filled} of {} values",
                    levels.len()
                )));
            }
            Some(Run::Repeated { value, count }) => {
                if value > u64::from(max) {
                    return Err(level_error(value, max, kind));
                }
                levels[filled..filled + count].fill(value as u16);
                if value == u64::from(max) {
                    present += count;
                }
                filled += count;
            }
            Some(Run::BitPacked(run)) => {
                let out = &mut levels[filled..filled + run.len()];
                run.unpack_into(out)?;
                present += count_present(out, max, kind)?;
                filled += run.len();
            }
        }
    }
    Ok(present)
}

/// Decodes `n` definition levels of maximum 1 into a bitmap (set where the level is
/// 1), whole runs at a time: a repeated run is one append, and a bit-packed run of
/// width 1 already is the bitmap. Returns it and how many bits are set.
fn decode_level_bits(decoder: &mut RleDecoder<&[u8]>, n: usize) -> Result<(BooleanBuffer, usize)> {
    let mut bits = BooleanBufferBuilder::new(n);
    let mut scratch = [0u8; 1024];
    while bits.len() < n {
        match decoder.next_run((n - bits.len()).min(scratch.len()))? {
            None => {
                return Err(Error::corrupt(format!(
                    "definition levels end after {} of {n} values",
                    bits.len()
                )));
            }
            Some(Run::Repeated { value, count }) => {
                if value > 1 {
                    return Err(level_error(value, 1, "definition"));
                }
                bits.append_n(count, value == 1);
            }
            Some(Run::BitPacked(run)) => {
                let range = run.first()..run.first() + run.len();
                if run.bit_width() == 1 && run.data().len() * 8 >= range.end {
                    bits.append_packed_range(range, run.data());
                } else {
                    let out = &mut scratch[..run.len()];
                    run.unpack_into(out)?;
                    if let Some(&bad) = out.iter().find(|&&l| l > 1) {
                        return Err(level_error(u64::from(bad), 1, "definition"));
                    }
                    for &l in out.iter() {
                        bits.append(l == 1);
                    }
                }
            }
        }
    }
    let bits = bits.finish();
    let present = bits.count_set_bits();
    Ok((bits, present))
}

/// How many of `levels` equal `max`; a level above it is an error.
fn count_present(levels: &[u16], max: u16, kind: &str) -> Result<usize> {
    // One pass that vectorises: the rare bad level is looked for only when the
    // highest level seen says there is one.
    let mut highest = 0;
    let mut present = 0;
    for &l in levels {
        highest = highest.max(l);
        present += usize::from(l == max);
    }
    if highest > max {
        return Err(level_error(u64::from(highest), max, kind));
    }
    Ok(present)
}

fn level_error(level: u64, max: u16, kind: &str) -> Error {
    Error::corrupt(format!(
        "{kind} level {level} exceeds the column's maximum {max}"
    ))
}

/// Appends `n` PLAIN values to `out`. The count is checked against the bytes present
/// before anything is allocated.
fn decode_plain(data: &[u8], n: usize, out: &mut Values) -> Result<()> {
    match out {
        Values::Bool(v) => {
            if n.div_ceil(8) > data.len() {
                return Err(Error::corrupt(format!(
                    "PLAIN BOOLEAN: {n} values need {} bytes, {} present",
                    n.div_ceil(8),
                    data.len()
                )));
            }
            let start = v.len();
            v.resize(start + n, false);
            let got = PlainBooleanDecoder::new(data).decode(&mut v[start..]);
            check_count(got, n)?;
        }
        Values::I32(v) => decode_plain_fixed(data, n, v)?,
        Values::I64(v) => decode_plain_fixed(data, n, v)?,
        Values::I96(v) => decode_plain_fixed(data, n, v)?,
        Values::F32(v) => decode_plain_fixed(data, n, v)?,
        Values::F64(v) => decode_plain_fixed(data, n, v)?,
        Values::Bytes {
            offsets,
            data: bytes,
        } => {
            plain_byte_arrays(data, 0, n, offsets, bytes)?;
        }
        Values::Bytes32 {
            offsets,
            data: bytes,
        } => {
            plain_byte_arrays(data, 0, n, offsets, bytes)?;
        }
        Values::Fixed { width, data: bytes } => {
            let got = PlainDecoder::new(data).decode_flba(*width, n, bytes)?;
            check_count(got, n)?;
        }
        // Views are made over a whole page by `LeafReader::decode_views`, which needs
        // the page's buffer, not a slice of it.
        Values::Views { .. } => {
            return Err(Error::unsupported(
                "PLAIN values decoded into views without their page",
            ));
        }
        // Batches holding keys are made plain before other values are appended to them
        // (`KeptDictionary::append`).
        Values::Dict(_) => {
            return Err(Error::unsupported(
                "PLAIN values decoded into dictionary keys",
            ));
        }
    }
    Ok(())
}

fn decode_plain_fixed<T: FixedWidth>(data: &[u8], n: usize, out: &mut Vec<T>) -> Result<()> {
    if n.checked_mul(T::SIZE)
        .is_none_or(|bytes| bytes > data.len())
    {
        return Err(Error::corrupt(format!(
            "PLAIN: {n} values of {} bytes need more than the {} bytes present",
            T::SIZE,
            data.len()
        )));
    }
    let got = PlainDecoder::new(data).append_fixed(n, out);
    check_count(got, n)
}

fn decode_delta<T: DeltaInt>(data: &[u8], n: usize, out: &mut Vec<T>) -> Result<()> {
    let mut decoder = DeltaBinaryPackedDecoder::<T, _>::new(data)?;
    if decoder.len() < n {
        return Err(Error::corrupt(format!(
            "DELTA_BINARY_PACKED holds {} values where the levels need {n}",
            decoder.len()
        )));
    }
    let start = out.len();
    out.resize(start + n, T::default());
    let got = decoder.decode(&mut out[start..])?;
    check_count(got, n)
}

fn decode_split<T: FixedWidth>(data: &[u8], n: usize, out: &mut Vec<T>) -> Result<()> {
    let mut decoder = ByteStreamSplitDecoder::new(data, T::SIZE)?;
    if decoder.remaining() < n {
        return Err(Error::corrupt(format!(
            "BYTE_STREAM_SPLIT holds {} values where the levels need {n}",
            decoder.remaining()
        )));
    }
    let start = out.len();
    out.resize(start + n, T::default());
    let got = decoder.decode_fixed(&mut out[start..])?;
    check_count(got, n)
}

/// Appends the `n` dictionary values a page's indices address.
fn gather(dictionary: &Values, data: &[u8], n: usize, out: &mut Values) -> Result<()> {
    let mut indices = DictionaryIndexDecoder::new(data)?;
    match (dictionary, out) {
        (Values::Bool(d), Values::Bool(o)) => gather_fixed(&mut indices, d, n, o),
        (Values::I32(d), Values::I32(o)) => gather_fixed(&mut indices, d, n, o),
        (Values::I64(d), Values::I64(o)) => gather_fixed(&mut indices, d, n, o),
        (Values::I96(d), Values::I96(o)) => gather_fixed(&mut indices, d, n, o),
        (Values::F32(d), Values::F32(o)) => gather_fixed(&mut indices, d, n, o),
        (Values::F64(d), Values::F64(o)) => gather_fixed(&mut indices, d, n, o),
        (
            Values::Bytes {
                offsets: dict_offsets,
                data: dict_data,
            },
            Values::Bytes { offsets, data },
        ) => gather_runs(&mut indices, dict_offsets.len() - 1, n, |index, count| {
            let value = &dict_data[dict_offsets[index] as usize..dict_offsets[index + 1] as usize];
            for _ in 0..count {
                data.extend_from_slice(value);
                offsets.push(data.len() as i64);
            }
        }),
        (Values::Fixed { width, data: dict }, Values::Fixed { data, .. }) => {
            let width = *width;
            gather_runs(&mut indices, dict.len() / width, n, |index, count| {
                let value = &dict[index * width..(index + 1) * width];
                for _ in 0..count {
                    data.extend_from_slice(value);
                }
            })
        }
        _ => Err(Error::corrupt("dictionary of another physical type")),
    }
}

fn gather_fixed<T: Copy + Default>(
    indices: &mut DictionaryIndexDecoder<&[u8]>,
    dictionary: &[T],
    n: usize,
    out: &mut Vec<T>,
) -> Result<()> {
    let start = out.len();
    out.resize(start + n, T::default());
    let got = indices.gather(dictionary, &mut out[start..])?;
    check_count(got, n)
}

/// Walks `n` indices run by run, calling `emit(index, count)` with checked indices (a
/// repeated index is one call).
fn gather_runs(
    indices: &mut DictionaryIndexDecoder<&[u8]>,
    dictionary_len: usize,
    n: usize,
    mut emit: impl FnMut(usize, usize),
) -> Result<()> {
    let mut buffer = [0u32; 1024];
    let mut done = 0;
    while done < n {
        let Some(run) = indices.next_run((n - done).min(buffer.len()))? else {
            return check_count(done, n);
        };
        match run {
            Run::Repeated { value, count } => {
                let index = check_index(value, dictionary_len)?;
                emit(index, count);
                done += count;
            }
            Run::BitPacked(packed) => {
                let chunk = &mut buffer[..packed.len()];
                packed.unpack_into(chunk)?;
                for &index in chunk.iter() {
                    emit(check_index(u64::from(index), dictionary_len)?, 1);
                }
                done += packed.len();
            }
        }
    }
    Ok(())
}

fn check_index(index: u64, dictionary_len: usize) -> Result<usize> {
    usize::try_from(index)
        .ok()
        .filter(|&i| i < dictionary_len)
        .ok_or_else(|| {
            Error::corrupt(format!(
                "dictionary index {index} out of range for a dictionary of {dictionary_len} values"
            ))
        })
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use herringbone_codec::compression::Codec;
    use herringbone_codec::encoding::plain::encode_fixed;
    use herringbone_codec::page::{DataPageV1, PageReaderOptions, PageWriter};
    use herringbone_codec::rle::{LengthPrefix, RleEncoder};
    use herringbone_format::schema::{SchemaDescriptor, parse_message_type};

    use super::*;

    fn rle_levels(levels: &[u16], bit_width: usize) -> Vec<u8> {
        let mut encoder = RleEncoder::new(bit_width);
        for &l in levels {
            encoder.put(u64::from(l));
        }
        let mut out = Vec::new();
        encoder.append_to(&mut out, LengthPrefix::With);
        out
    }

    /// Two v1 pages of `optional group a (LIST) { repeated group list { optional int32
    /// element } }` where the second record starts in the first page and continues in
    /// the second, as older writers produce.
    fn spanning_chunk() -> (SchemaDescriptor, Bytes) {
        let elements = parse_message_type(
            "message m { optional group a (LIST) { repeated group list { optional int32 element; } } }",
        )
        .unwrap();
        let schema = SchemaDescriptor::new(&elements).unwrap();
        // Records: [1, 2], [3, null, 4, 5], null, [], [6]
        let pages: [(&[u16], &[u16], &[i32]); 2] = [
            (&[0, 1, 0, 1], &[3, 3, 3, 2], &[1, 2, 3]),
            (&[1, 1, 0, 0, 0], &[3, 3, 0, 1, 3], &[4, 5, 6]),
        ];
        let mut writer = PageWriter::new(Codec::Uncompressed);
        let mut sink = Vec::new();
        for (rep, def, values) in pages {
            let rep_levels = rle_levels(rep, 1);
            let def_levels = rle_levels(def, 2);
            let mut encoded = Vec::new();
            encode_fixed(values, &mut encoded);
            writer
                .write_data_page_v1(
                    &mut sink,
                    &DataPageV1 {
                        rep_levels: &rep_levels,
                        def_levels: &def_levels,
                        values: &encoded,
                        num_values: rep.len(),
                        num_rows: 0,
                        encoding: Encoding::PLAIN,
                        def_level_encoding: Encoding::RLE,
                        rep_level_encoding: Encoding::RLE,
                        statistics: None,
                    },
                )
                .unwrap();
        }
        (schema, Bytes::from(sink))
    }

    fn reader(schema: &SchemaDescriptor, chunk: Bytes, rows: usize) -> LeafReader {
        let pages = PageReader::new(chunk, Codec::Uncompressed, PageReaderOptions::default());
        LeafReader::new(schema.column(0).unwrap(), pages, rows, &DataType::Int32).unwrap()
    }

    #[test]
    fn a_record_continues_from_one_v1_page_into_the_next() {
        let (schema, chunk) = spanning_chunk();
        for batch in 1..=5 {
            let mut leaf = reader(&schema, chunk.clone(), 5);
            let (mut defs, mut reps, mut values) = (Vec::new(), Vec::new(), Vec::new());
            let mut left = 5;
            while left > 0 {
                let n = batch.min(left);
                let got = leaf.read(n).unwrap();
                let rep = got.rep_levels.unwrap();
                assert_eq!(rep.iter().filter(|&&r| r == 0).count(), n, "batch {batch}");
                reps.extend(rep);
                defs.extend(got.def_levels.unwrap());
                let Values::I32(v) = got.values else {
                    panic!("INT32 values expected")
                };
                values.extend(v);
                left -= n;
            }
            assert_eq!(reps, [0, 1, 0, 1, 1, 1, 0, 0, 0]);
            assert_eq!(defs, [3, 3, 3, 2, 3, 3, 0, 1, 3]);
            assert_eq!(values, [1, 2, 3, 4, 5, 6]);
        }
    }

    #[test]
    fn values_beyond_32_bit_offsets_are_an_error_not_wrapped() {
        assert!(check_i32_bytes(i32::MAX as usize).is_ok());
        let error = check_i32_bytes(i32::MAX as usize + 1).unwrap_err();
        assert!(error.to_string().contains("32-bit offsets"), "{error}");
        // A batch already holding i32::MAX bytes (zeroed memory that is never touched,
        // so never really allocated) cannot take one byte more.
        let mut full = Values::Bytes32 {
            offsets: vec![0, i32::MAX],
            data: vec![0u8; i32::MAX as usize],
        };
        let one = Values::Bytes32 {
            offsets: vec![0, 1],
            data: vec![b'x'],
        };
        let error = full.extend_from(&one, 0, 1).unwrap_err().to_string();
        assert!(error.contains("LargeUtf8"), "{error}");
        assert_eq!(full.len(), 1, "nothing appended");
        // Below the limit, offsets continue from the end.
        let mut small = Values::Bytes32 {
            offsets: vec![0, 2],
            data: b"ab".to_vec(),
        };
        small.extend_from(&one, 0, 1).unwrap();
        assert_eq!(
            small,
            Values::Bytes32 {
                offsets: vec![0, 2, 3],
                data: b"abx".to_vec()
            }
        );
    }

    #[test]
    fn plain_byte_arrays_are_copied_whole_and_short_and_checked() {
        let mut page = Vec::new();
        let values: Vec<Vec<u8>> = (0..80).map(|i| vec![b'a' + (i % 26) as u8; i]).collect();
        herringbone_codec::encoding::plain::encode_byte_array(&values, &mut page).unwrap();
        let (mut offsets, mut data) = (Vec::<i32>::new(), Vec::new());
        let end = plain_byte_arrays(&page, 0, 80, &mut offsets, &mut data).unwrap();
        assert_eq!(end, page.len());
        assert_eq!(data, values.concat());
        for (i, w) in offsets.windows(2).enumerate() {
            assert_eq!((w[1] - w[0]) as usize, i);
        }
        // One value more than the page holds, and a length past the end.
        assert!(plain_byte_arrays(&page, 0, 81, &mut offsets, &mut data).is_err());
        let mut bad = page.clone();
        bad.truncate(page.len() - 1);
        let error = plain_byte_arrays(&bad, 0, 80, &mut Vec::<i64>::new(), &mut Vec::new());
        assert!(error.unwrap_err().to_string().contains("length 79"));
    }

    #[test]
    fn a_chunk_with_fewer_records_than_its_row_group_is_an_error() {
        let (schema, chunk) = spanning_chunk();
        let mut leaf = reader(&schema, chunk, 6);
        leaf.read(5).unwrap();
        let error = leaf.read(1).unwrap_err().to_string();
        assert!(error.contains("1 rows short"), "{error}");
    }

    #[test]
    fn a_chunk_that_starts_inside_a_record_is_an_error() {
        let elements = parse_message_type("message m { repeated int32 a; }").unwrap();
        let schema = SchemaDescriptor::new(&elements).unwrap();
        let mut writer = PageWriter::new(Codec::Uncompressed);
        let mut sink = Vec::new();
        let rep_levels = rle_levels(&[1, 0], 1);
        let def_levels = rle_levels(&[1, 1], 1);
        let mut encoded = Vec::new();
        encode_fixed(&[1i32, 2], &mut encoded);
        writer
            .write_data_page_v1(
                &mut sink,
                &DataPageV1 {
                    rep_levels: &rep_levels,
                    def_levels: &def_levels,
                    values: &encoded,
                    num_values: 2,
                    num_rows: 1,
                    encoding: Encoding::PLAIN,
                    def_level_encoding: Encoding::RLE,
                    rep_level_encoding: Encoding::RLE,
                    statistics: None,
                },
            )
            .unwrap();
        let mut leaf = reader(&schema, Bytes::from(sink), 1);
        let error = leaf.read(1).unwrap_err().to_string();
        assert!(error.contains("repetition level 1 instead of 0"), "{error}");
    }
}
