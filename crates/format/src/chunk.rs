//! A hand-tuned reader for the column chunks of a footer.
//!
//! A wide footer is almost entirely `ColumnChunk`s (200,000 of them for 10,000 columns
//! x 20 row groups), and they are almost all laid out the same way: known fields in
//! ascending id order, short field headers, short lists. The generated reader handles
//! every layout, but pays for it on each field: a call per field helper, the reader's
//! position kept in memory across those calls, a `Result<Option<..>>` per field header.
//! This reader decodes that common layout straight-line from a local cursor (the
//! position stays in a register) and gives up, returning `None`, at the first thing it
//! does not expect: an unknown, repeated or out-of-order field, a long-form header, a
//! wire type other than the declared one, a list longer than the inline capacity, a
//! value out of range, the end of the input, nesting near the depth limit. The caller
//! then puts the reader and the chunk back as they were and runs the generated reader,
//! which decodes the chunk (or reports the error) with its full rules. So this reader
//! never decides anything on its own: whatever it accepts, the generated reader would
//! have decoded to the same value. Statistics to skip are stepped over as the generated
//! reader does (along their usual layout when they have it, which is cheaper than the
//! general skip and accepts nothing the general skip would reject).
//!
//! `CompactReader::with_hand_tuned(false)` turns this reader off; the tests and the
//! footer fuzz target compare both readers on the same input.

use crate::compact::{Binary, ColumnPath, InlineVec};
use crate::metadata::{
    ColumnChunk, ColumnMetaData, CompressionCodec, Encoding, EncodingStatsList, LevelHistogram,
    PageEncodingStats, PageType, SizeStatistics, Statistics, Type,
};
use crate::thrift::{CompactReader, ThriftValue, is_varint_integer, wire};

/// Structures this reader enters below the chunk it starts at (`ColumnChunk` ->
/// `ColumnMetaData` -> `Statistics`): it only runs when the generated reader could
/// enter as many without reaching the depth limit.
const NESTING: u32 = 3;

// The empty values the decoded fields are written into. Set from these constants, an
// `Option` field is copied into place from read-only memory; set from `Default`, the
// value was built on the stack and copied, and the copy's wide loads of the narrow
// stores that built it stalled the CPU (a few per chunk, a fifth of the decode).
const EMPTY_META_DATA: ColumnMetaData = ColumnMetaData {
    type_: Type(0),
    encodings: InlineVec::empty_with(Encoding(0)),
    path_in_schema: ColumnPath::EMPTY,
    codec: CompressionCodec(0),
    num_values: 0,
    total_uncompressed_size: 0,
    total_compressed_size: 0,
    key_value_metadata: None,
    data_page_offset: 0,
    index_page_offset: None,
    dictionary_page_offset: None,
    statistics: None,
    encoding_stats: None,
    bloom_filter_offset: None,
    bloom_filter_length: None,
    size_statistics: None,
    geospatial_statistics: None,
};
const EMPTY_STATISTICS: Statistics = Statistics {
    max: None,
    min: None,
    null_count: None,
    distinct_count: None,
    max_value: None,
    min_value: None,
    is_max_value_exact: None,
    is_min_value_exact: None,
    nan_count: None,
};
const EMPTY_ENCODING_STATS: EncodingStatsList = InlineVec::empty_with(PageEncodingStats {
    page_type: PageType(0),
    encoding: Encoding(0),
    count: 0,
});
const EMPTY_SIZE_STATISTICS: SizeStatistics = SizeStatistics {
    unencoded_byte_array_data_bytes: None,
    repetition_level_histogram: None,
    definition_level_histogram: None,
};
const EMPTY_HISTOGRAM: LevelHistogram = InlineVec::empty_with(0);

/// Decodes the `ColumnChunk` at the reader's position into `chunk` (which must be
/// `Default`) if it has the common layout; returns whether it did. When it did not, the
/// reader (position, depth, column path slot) and `chunk` are as they were, for the
/// generated reader to start over.
pub(crate) fn read_column_chunk(chunk: &mut ColumnChunk, r: &mut CompactReader<'_>) -> bool {
    if !r.hand_tuned() || r.depth_left() < NESTING {
        return false;
    }
    // Position and depth: a skip that failed inside may have left the depth raised.
    let start = r.checkpoint();
    let slot = r.path_slot();
    if read_chunk(chunk, r).is_some() {
        return true;
    }
    *chunk = ColumnChunk::default();
    r.restore(start);
    r.set_path_slot(slot);
    false
}

/// The input and a position in it, held in registers while a chunk is decoded.
struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    #[inline(always)]
    fn byte(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// An unsigned varint (as `CompactReader::read_varint`: at most 10 bytes, no bits
    /// past the 64th).
    #[inline(always)]
    fn varint(&mut self) -> Option<u64> {
        let b = *self.buf.get(self.pos)?;
        if b < 0x80 {
            self.pos += 1;
            return Some(u64::from(b));
        }
        self.varint_long()
    }

    #[inline(never)]
    fn varint_long(&mut self) -> Option<u64> {
        let mut result = 0u64;
        let mut shift = 0u32;
        loop {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return None;
            }
            result |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(result);
            }
            shift += 7;
            if shift > 63 {
                return None;
            }
        }
    }

    #[inline(always)]
    fn i64(&mut self) -> Option<i64> {
        let v = self.varint()?;
        Some(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    #[inline(always)]
    fn i32(&mut self) -> Option<i32> {
        let v = u32::try_from(self.varint()?).ok()?;
        Some(((v >> 1) as i32) ^ -((v & 1) as i32))
    }

    /// A short-form field header: `(wire type, id)`, `(STOP, 0)` at the end of the
    /// structure. A long-form header (id delta 0) gives up.
    #[inline(always)]
    fn header(&mut self, last: &mut i16) -> Option<(u8, i16)> {
        let b = self.byte()?;
        if b == wire::STOP {
            return Some((wire::STOP, 0));
        }
        let (delta, ty) = (b >> 4, b & 0x0f);
        if delta == 0 || ty == wire::STOP {
            return None;
        }
        *last = last.checked_add(i16::from(delta))?;
        Some((ty, *last))
    }

    /// A short-form list header of at most `max` elements: `(element type, count)`.
    #[inline(always)]
    fn list_header(&mut self, max: usize) -> Option<(u8, usize)> {
        let b = self.byte()?;
        let count = usize::from(b >> 4);
        // 15 is the long form's marker; every `max` here is smaller.
        (count <= max).then_some((b & 0x0f, count))
    }

    /// Steps over a `binary` (a length of at most `i32::MAX` that fits the input).
    #[inline(always)]
    fn skip_binary(&mut self) -> Option<()> {
        let len = self.varint()?;
        let len = usize::try_from(len)
            .ok()
            .filter(|&n| n <= i32::MAX as usize)?;
        self.pos = self.pos.checked_add(len).filter(|&e| e <= self.buf.len())?;
        Some(())
    }

    /// A `binary` (as `Binary`'s reader: a length of at most `i32::MAX` that fits the
    /// remaining input), copied into `slot` in place.
    #[inline(always)]
    fn binary_into(&mut self, slot: &mut Option<Binary>) -> Option<()> {
        let len = self.varint()?;
        let len = usize::try_from(len)
            .ok()
            .filter(|&n| n <= i32::MAX as usize)?;
        let start = self.pos;
        let end = start.checked_add(len).filter(|&e| e <= self.buf.len())?;
        self.pos = end;
        slot.get_or_insert_with(Binary::new)
            .assign_range(self.buf, start, end);
        Some(())
    }
}

/// Reads the next field header into `$ty` and `$id`.
macro_rules! next_field {
    ($c:ident, $last:ident, $ty:ident, $id:ident) => {
        ($ty, $id) = $c.header(&mut $last)?
    };
}

/// Whether the structure ended: the last header read was the stop (the only one
/// [`Cursor::header`] gives id 0), not a field this reader leaves to the generated one.
macro_rules! at_stop {
    ($ty:ident, $id:ident) => {
        $ty == wire::STOP && $id == 0
    };
}

/// A required field: it must come next, with the declared wire type.
macro_rules! required {
    ($c:ident, $last:ident, $ty:ident, $id:ident, $want_id:literal, $wire:expr, $read:expr) => {{
        if $id != $want_id || $ty != $wire {
            return None;
        }
        let value = $read;
        next_field!($c, $last, $ty, $id);
        value
    }};
}

/// An optional field: `None` unless it comes next; with the declared wire type if so.
macro_rules! optional {
    ($c:ident, $last:ident, $ty:ident, $id:ident, $want_id:literal, $wire:expr, $read:expr) => {{
        if $id == $want_id {
            if $ty != $wire {
                return None;
            }
            let value = $read;
            next_field!($c, $last, $ty, $id);
            Some(value)
        } else {
            None
        }
    }};
}

/// Steps over a statistics field to be skipped, from inside `ColumnMetaData`, with
/// `parse` (a stepper or a decode into a dropped scratch value) when it has the usual
/// layout: cheaper than the general skip. Whatever `parse` accepts, the general skip
/// steps over the same bytes (every value parsed is well-formed for it), provided it
/// can enter one level more than the decode does (the list of page encoding stats and
/// the level histograms count as a level when skipped). Otherwise the general skip
/// decides, two structures below the depth the reader is at, as the generated reader
/// would be (so that a deeply nested value fails here exactly when it fails there).
fn skip_statistics_parsed(
    c: &mut Cursor<'_>,
    r: &mut CompactReader<'_>,
    ty: u8,
    parse: impl FnOnce(&mut Cursor<'_>) -> Option<()>,
) -> Option<()> {
    let start = c.pos;
    if r.depth_left() > NESTING && parse(c).is_some() {
        return Some(());
    }
    c.pos = start;
    skip_statistics_field(c, r, ty)
}

fn skip_statistics_field(c: &mut Cursor<'_>, r: &mut CompactReader<'_>, ty: u8) -> Option<()> {
    r.set_position(c.pos);
    r.enter().ok()?;
    r.enter().ok()?;
    let skipped = r.skip_field(ty);
    r.leave();
    r.leave();
    skipped.ok()?;
    c.pos = r.position();
    Some(())
}

/// Steps over the `ColumnChunk` at the reader's position if it has the usual layout,
/// as `CompactReader::skip_struct` would (a selective decode's unselected chunks);
/// returns whether it did, else the reader is untouched. Following the known field
/// order is cheaper than the general skip's dispatch on every field's wire type.
/// Whatever this accepts is well-formed for the general skip, which would end at the
/// same position, provided it can enter the chunk's four levels (the chunk, its
/// metadata, a list of page encoding stats or a level histogram, and the stats).
pub(crate) fn skip_column_chunk(r: &mut CompactReader<'_>) -> bool {
    if !r.hand_tuned() || r.depth_left() <= NESTING {
        return false;
    }
    let mut c = Cursor {
        buf: r.buffer(),
        pos: r.position(),
    };
    if skip_chunk(&mut c).is_some() {
        r.set_position(c.pos);
        return true;
    }
    false
}

fn skip_chunk(c: &mut Cursor<'_>) -> Option<()> {
    let mut last = 0i16;
    let (mut ty, mut id);
    next_field!(c, last, ty, id);
    required!(c, last, ty, id, 2, wire::I64, c.i64()?);
    optional!(c, last, ty, id, 3, wire::STRUCT, skip_meta_data(c)?);
    optional!(c, last, ty, id, 4, wire::I64, c.i64()?);
    optional!(c, last, ty, id, 5, wire::I32, c.i32()?);
    optional!(c, last, ty, id, 6, wire::I64, c.i64()?);
    optional!(c, last, ty, id, 7, wire::I32, c.i32()?);
    at_stop!(ty, id).then_some(())
}

fn skip_meta_data(c: &mut Cursor<'_>) -> Option<()> {
    let mut last = 0i16;
    let (mut ty, mut id);
    next_field!(c, last, ty, id);
    required!(c, last, ty, id, 1, wire::I32, c.i32()?);
    required!(c, last, ty, id, 2, wire::LIST, {
        let (elem, count) = c.list_header(5)?;
        if count > 0 && !is_varint_integer(elem) {
            return None;
        }
        for _ in 0..count {
            c.i32()?;
        }
    });
    required!(c, last, ty, id, 3, wire::LIST, {
        // The names are not looked at (the general skip does not check UTF-8 either).
        let (elem, count) = c.list_header(14)?;
        if count > 0 && elem != wire::BINARY {
            return None;
        }
        for _ in 0..count {
            c.skip_binary()?;
        }
    });
    required!(c, last, ty, id, 4, wire::I32, c.i32()?);
    required!(c, last, ty, id, 5, wire::I64, c.i64()?);
    required!(c, last, ty, id, 6, wire::I64, c.i64()?);
    required!(c, last, ty, id, 7, wire::I64, c.i64()?);
    required!(c, last, ty, id, 9, wire::I64, c.i64()?);
    optional!(c, last, ty, id, 10, wire::I64, c.i64()?);
    optional!(c, last, ty, id, 11, wire::I64, c.i64()?);
    optional!(c, last, ty, id, 12, wire::STRUCT, step_statistics(c)?);
    optional!(c, last, ty, id, 13, wire::LIST, {
        let (elem, count) = c.list_header(3)?;
        if count > 0 && elem != wire::STRUCT {
            return None;
        }
        for _ in 0..count {
            read_page_encoding_stats(c)?;
        }
    });
    optional!(c, last, ty, id, 14, wire::I64, c.i64()?);
    optional!(c, last, ty, id, 15, wire::I32, c.i32()?);
    optional!(c, last, ty, id, 16, wire::STRUCT, {
        let mut scratch = EMPTY_SIZE_STATISTICS;
        read_size_statistics(&mut scratch, c)?
    });
    at_stop!(ty, id).then_some(())
}

fn read_chunk(chunk: &mut ColumnChunk, r: &mut CompactReader<'_>) -> Option<()> {
    let mut c = Cursor {
        buf: r.buffer(),
        pos: r.position(),
    };
    let mut last = 0i16;
    let (mut ty, mut id);
    next_field!(c, last, ty, id);
    // 1: file_path (metadata in another file) is left to the generated reader.
    chunk.file_offset = required!(c, last, ty, id, 2, wire::I64, c.i64()?);
    if id == 3 {
        if ty != wire::STRUCT {
            return None;
        }
        read_meta_data(&mut chunk.meta_data, &mut c, r)?;
        next_field!(c, last, ty, id);
    }
    chunk.offset_index_offset = optional!(c, last, ty, id, 4, wire::I64, c.i64()?);
    chunk.offset_index_length = optional!(c, last, ty, id, 5, wire::I32, c.i32()?);
    chunk.column_index_offset = optional!(c, last, ty, id, 6, wire::I64, c.i64()?);
    chunk.column_index_length = optional!(c, last, ty, id, 7, wire::I32, c.i32()?);
    // 8, 9: encryption, left to the generated reader.
    if !at_stop!(ty, id) {
        return None;
    }
    r.set_position(c.pos);
    Some(())
}

fn read_meta_data(
    slot: &mut Option<ColumnMetaData>,
    c: &mut Cursor<'_>,
    r: &mut CompactReader<'_>,
) -> Option<()> {
    let skip = r.skip_statistics();
    let mut last = 0i16;
    let (mut ty, mut id);
    next_field!(c, last, ty, id);
    // The first three fields go to locals, and the metadata is set up after them: the
    // path's shared reference count is an atomic increment, which waits for the
    // stores in flight (the metadata's hundreds of bytes, if they came first).
    let type_ = required!(c, last, ty, id, 1, wire::I32, Type(c.i32()?));
    let (encodings, encoding_count) = required!(c, last, ty, id, 2, wire::LIST, {
        let (elem, count) = c.list_header(5)?;
        if count > 0 && !is_varint_integer(elem) {
            return None;
        }
        let mut encodings = [Encoding(0); 5];
        for e in &mut encodings[..count] {
            *e = Encoding(c.i32()?);
        }
        (encodings, count)
    });
    let path_in_schema = required!(c, last, ty, id, 3, wire::LIST, {
        // Through the reader: the path is shared with the previous row group's.
        r.set_position(c.pos);
        let path = ThriftValue::read_value(r).ok()?;
        c.pos = r.position();
        path
    });
    *slot = Some(EMPTY_META_DATA);
    let m = slot.as_mut()?;
    m.type_ = type_;
    let mut encodings = encodings.into_iter();
    m.encodings
        .fill_inline(encoding_count, || encodings.next())?;
    m.path_in_schema = path_in_schema;
    m.codec = required!(c, last, ty, id, 4, wire::I32, CompressionCodec(c.i32()?));
    m.num_values = required!(c, last, ty, id, 5, wire::I64, c.i64()?);
    m.total_uncompressed_size = required!(c, last, ty, id, 6, wire::I64, c.i64()?);
    m.total_compressed_size = required!(c, last, ty, id, 7, wire::I64, c.i64()?);
    // 8: key_value_metadata, left to the generated reader.
    m.data_page_offset = required!(c, last, ty, id, 9, wire::I64, c.i64()?);
    m.index_page_offset = optional!(c, last, ty, id, 10, wire::I64, c.i64()?);
    m.dictionary_page_offset = optional!(c, last, ty, id, 11, wire::I64, c.i64()?);
    // Statistics fields to skip are stepped over whatever their wire type, as the
    // generated reader does, and left `None`.
    if id == 12 && skip {
        skip_statistics_parsed(c, r, ty, |c| {
            (ty == wire::STRUCT).then_some(())?;
            step_statistics(c)
        })?;
        next_field!(c, last, ty, id);
    }
    if id == 12 {
        if ty != wire::STRUCT {
            return None;
        }
        m.statistics = Some(EMPTY_STATISTICS);
        read_statistics(m.statistics.as_mut()?, c)?;
        next_field!(c, last, ty, id);
    }
    if id == 13 && skip {
        skip_statistics_parsed(c, r, ty, |c| {
            (ty == wire::LIST).then_some(())?;
            let (elem, count) = c.list_header(3)?;
            if count > 0 && elem != wire::STRUCT {
                return None;
            }
            for _ in 0..count {
                read_page_encoding_stats(c)?;
            }
            Some(())
        })?;
        next_field!(c, last, ty, id);
    }
    optional!(c, last, ty, id, 13, wire::LIST, {
        let (elem, count) = c.list_header(3)?;
        if count > 0 && elem != wire::STRUCT {
            return None;
        }
        m.encoding_stats = Some(EMPTY_ENCODING_STATS);
        let stats = m.encoding_stats.as_mut()?;
        stats.fill_inline(count, || read_page_encoding_stats(c))?;
    });
    m.bloom_filter_offset = optional!(c, last, ty, id, 14, wire::I64, c.i64()?);
    m.bloom_filter_length = optional!(c, last, ty, id, 15, wire::I32, c.i32()?);
    if id == 16 && skip {
        skip_statistics_parsed(c, r, ty, |c| {
            (ty == wire::STRUCT).then_some(())?;
            let mut scratch = EMPTY_SIZE_STATISTICS;
            read_size_statistics(&mut scratch, c)
        })?;
        next_field!(c, last, ty, id);
    }
    if id == 16 {
        if ty != wire::STRUCT {
            return None;
        }
        m.size_statistics = Some(EMPTY_SIZE_STATISTICS);
        read_size_statistics(m.size_statistics.as_mut()?, c)?;
        next_field!(c, last, ty, id);
    }
    // 17: geospatial statistics, left to the generated reader unless skipped.
    if id == 17 && skip {
        skip_statistics_field(c, r, ty)?;
        next_field!(c, last, ty, id);
    }
    at_stop!(ty, id).then_some(())
}

fn read_statistics(s: &mut Statistics, c: &mut Cursor<'_>) -> Option<()> {
    let mut last = 0i16;
    let (mut ty, mut id);
    next_field!(c, last, ty, id);
    optional!(c, last, ty, id, 1, wire::BINARY, c.binary_into(&mut s.max)?);
    optional!(c, last, ty, id, 2, wire::BINARY, c.binary_into(&mut s.min)?);
    s.null_count = optional!(c, last, ty, id, 3, wire::I64, c.i64()?);
    s.distinct_count = optional!(c, last, ty, id, 4, wire::I64, c.i64()?);
    optional!(
        c,
        last,
        ty,
        id,
        5,
        wire::BINARY,
        c.binary_into(&mut s.max_value)?
    );
    optional!(
        c,
        last,
        ty,
        id,
        6,
        wire::BINARY,
        c.binary_into(&mut s.min_value)?
    );
    s.is_max_value_exact = read_bool_field(c, &mut last, &mut ty, &mut id, 7)?;
    s.is_min_value_exact = read_bool_field(c, &mut last, &mut ty, &mut id, 8)?;
    s.nan_count = optional!(c, last, ty, id, 9, wire::I64, c.i64()?);
    at_stop!(ty, id).then_some(())
}

/// Steps over a `Statistics` of the layout [`read_statistics`] accepts, checking the
/// same things (field order and wire types, lengths within the input) without building
/// the values: statistics to skip cost no copies of their bounds.
fn step_statistics(c: &mut Cursor<'_>) -> Option<()> {
    let mut last = 0i16;
    let (mut ty, mut id);
    next_field!(c, last, ty, id);
    optional!(c, last, ty, id, 1, wire::BINARY, c.skip_binary()?);
    optional!(c, last, ty, id, 2, wire::BINARY, c.skip_binary()?);
    optional!(c, last, ty, id, 3, wire::I64, c.i64()?);
    optional!(c, last, ty, id, 4, wire::I64, c.i64()?);
    optional!(c, last, ty, id, 5, wire::BINARY, c.skip_binary()?);
    optional!(c, last, ty, id, 6, wire::BINARY, c.skip_binary()?);
    read_bool_field(c, &mut last, &mut ty, &mut id, 7)?;
    read_bool_field(c, &mut last, &mut ty, &mut id, 8)?;
    optional!(c, last, ty, id, 9, wire::I64, c.i64()?);
    at_stop!(ty, id).then_some(())
}

/// An optional `bool` field (its value is the header's wire type): `Some(None)` when
/// the field is not next.
#[inline(always)]
fn read_bool_field(
    c: &mut Cursor<'_>,
    last: &mut i16,
    ty: &mut u8,
    id: &mut i16,
    want_id: i16,
) -> Option<Option<bool>> {
    if *id != want_id {
        return Some(None);
    }
    let value = match *ty {
        wire::BOOL_TRUE => true,
        wire::BOOL_FALSE => false,
        _ => return None,
    };
    (*ty, *id) = c.header(last)?;
    Some(Some(value))
}

// Inlined: its result comes back in registers, not through memory.
#[inline(always)]
fn read_page_encoding_stats(c: &mut Cursor<'_>) -> Option<PageEncodingStats> {
    // How writers encode it when the page count is below 64: three short `i32` field
    // headers (id delta 1), each followed by a one-byte varint, then the stop. Matched
    // as seven bytes at once; anything else takes the field-by-field path below.
    if let Some(&[0x15, page_type, 0x15, encoding, 0x15, count, wire::STOP]) =
        c.buf.get(c.pos..).and_then(|rest| rest.first_chunk::<7>())
        && (page_type | encoding | count) < 0x80
    {
        c.pos += 7;
        let zigzag = |v: u8| i32::from(v >> 1) ^ -i32::from(v & 1);
        return Some(PageEncodingStats {
            page_type: PageType(zigzag(page_type)),
            encoding: Encoding(zigzag(encoding)),
            count: zigzag(count),
        });
    }
    let mut last = 0i16;
    let (mut ty, mut id);
    next_field!(c, last, ty, id);
    let page_type = required!(c, last, ty, id, 1, wire::I32, PageType(c.i32()?));
    let encoding = required!(c, last, ty, id, 2, wire::I32, Encoding(c.i32()?));
    let count = required!(c, last, ty, id, 3, wire::I32, c.i32()?);
    at_stop!(ty, id).then_some(PageEncodingStats {
        page_type,
        encoding,
        count,
    })
}

fn read_size_statistics(s: &mut SizeStatistics, c: &mut Cursor<'_>) -> Option<()> {
    let mut last = 0i16;
    let (mut ty, mut id);
    next_field!(c, last, ty, id);
    s.unencoded_byte_array_data_bytes = optional!(c, last, ty, id, 1, wire::I64, c.i64()?);
    optional!(c, last, ty, id, 2, wire::LIST, {
        s.repetition_level_histogram = Some(EMPTY_HISTOGRAM);
        read_histogram(s.repetition_level_histogram.as_mut()?, c)?
    });
    optional!(c, last, ty, id, 3, wire::LIST, {
        s.definition_level_histogram = Some(EMPTY_HISTOGRAM);
        read_histogram(s.definition_level_histogram.as_mut()?, c)?
    });
    at_stop!(ty, id).then_some(())
}

fn read_histogram(h: &mut LevelHistogram, c: &mut Cursor<'_>) -> Option<()> {
    let (elem, count) = c.list_header(3)?;
    if count > 0 && !is_varint_integer(elem) {
        return None;
    }
    h.fill_inline(count, || c.i64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::KeyValue;
    use crate::thrift::{CompactWriter, ThriftStruct};

    fn typical_chunk() -> ColumnChunk {
        ColumnChunk {
            file_offset: 4,
            meta_data: Some(ColumnMetaData {
                type_: Type::BYTE_ARRAY,
                encodings: vec![Encoding::PLAIN, Encoding::RLE].into(),
                path_in_schema: vec!["a".into(), "b".into()].into(),
                codec: CompressionCodec::ZSTD,
                num_values: 1000,
                total_uncompressed_size: 123_456,
                total_compressed_size: 65_432,
                data_page_offset: 4,
                dictionary_page_offset: Some(-3),
                statistics: Some(Statistics {
                    max: Some(b"zz".into()),
                    min: Some(vec![b'a'; 40].into()),
                    null_count: Some(0),
                    max_value: Some(b"zz".into()),
                    min_value: Some(vec![b'a'; 40].into()),
                    is_max_value_exact: Some(true),
                    is_min_value_exact: Some(false),
                    ..Default::default()
                }),
                encoding_stats: Some(
                    vec![PageEncodingStats {
                        page_type: PageType::DATA_PAGE,
                        encoding: Encoding::PLAIN,
                        count: 3,
                    }]
                    .into(),
                ),
                bloom_filter_offset: Some(i64::MAX),
                bloom_filter_length: Some(i32::MIN),
                size_statistics: Some(SizeStatistics {
                    unencoded_byte_array_data_bytes: Some(77),
                    repetition_level_histogram: Some(vec![].into()),
                    definition_level_histogram: Some(vec![1, 999].into()),
                }),
                ..Default::default()
            }),
            offset_index_offset: Some(1 << 40),
            offset_index_length: Some(17),
            column_index_offset: Some(9),
            column_index_length: Some(0),
            ..Default::default()
        }
    }

    /// Runs the hand-tuned reader on `bytes`; returns whether it took the chunk, the
    /// chunk, and the reader's position afterwards.
    fn hand_tuned(bytes: &[u8]) -> (bool, ColumnChunk, usize) {
        let mut r = CompactReader::new(bytes);
        let mut chunk = ColumnChunk::default();
        let took = read_column_chunk(&mut chunk, &mut r);
        (took, chunk, r.position())
    }

    /// The generated reader's result and the full (hand-tuned first) reader's agree.
    fn assert_same_as_generated(bytes: &[u8]) {
        let full = ColumnChunk::read(&mut CompactReader::new(bytes));
        let generated = ColumnChunk::read(&mut CompactReader::new(bytes).with_hand_tuned(false));
        assert_eq!(format!("{full:?}"), format!("{generated:?}"));
    }

    #[test]
    fn chunk_skip_agrees_with_the_general_skip() {
        let typical = typical_chunk().encode();
        let general = |bytes: &[u8], depth: u32| {
            let mut r = CompactReader::new(bytes).with_max_depth(depth);
            r.skip_struct().ok().map(|()| r.position())
        };
        let layout_aware = |bytes: &[u8], depth: u32| {
            let mut r = CompactReader::new(bytes).with_max_depth(depth);
            let took = skip_column_chunk(&mut r);
            (took, r.position())
        };
        assert_eq!(layout_aware(&typical, 64), (true, typical.len()));
        // Four levels are needed (chunk, metadata, encoding stats list, its elements).
        assert_eq!(layout_aware(&typical, 3), (false, 0));
        assert_eq!(layout_aware(&typical, 4), (true, typical.len()));
        assert_eq!(general(&typical, 4), Some(typical.len()));
        assert_eq!(general(&typical, 3), None);
        // Every single-byte change: whenever the layout-aware skip takes the bytes, the
        // general skip takes the same bytes; otherwise it leaves the reader alone.
        let (mut taken, mut left) = (0, 0);
        for pos in 0..typical.len() {
            for value in [0x00u8, 0x01, 0x0c, 0x15, 0x19, 0x26, 0x7f, 0x80, 0xff] {
                let mut bytes = typical.clone();
                bytes[pos] = value;
                match layout_aware(&bytes, 64) {
                    (true, end) => {
                        taken += 1;
                        assert_eq!(general(&bytes, 64), Some(end), "byte {pos} = {value:#x}");
                    }
                    (false, end) => {
                        left += 1;
                        assert_eq!(end, 0);
                    }
                }
            }
        }
        assert!(taken > 100 && left > 100, "{taken} taken, {left} left");
    }

    #[test]
    fn empty_constants_are_the_defaults() {
        assert_eq!(EMPTY_META_DATA, ColumnMetaData::default());
        assert_eq!(EMPTY_STATISTICS, Statistics::default());
        assert_eq!(EMPTY_ENCODING_STATS, EncodingStatsList::default());
        assert_eq!(EMPTY_SIZE_STATISTICS, SizeStatistics::default());
        assert_eq!(EMPTY_HISTOGRAM, LevelHistogram::default());
    }

    #[test]
    fn usual_layout_is_decoded_by_the_hand_tuned_reader() {
        let chunk = typical_chunk();
        let mut bytes = chunk.encode();
        bytes.push(0xaa); // what follows the chunk is left alone
        let (took, got, pos) = hand_tuned(&bytes);
        assert!(took);
        assert_eq!(got, chunk);
        assert_eq!(pos, bytes.len() - 1);
        assert_same_as_generated(&bytes);
        // The smallest chunk: only the required offset.
        let bare = ColumnChunk::default();
        let (took, got, pos) = hand_tuned(&bare.encode());
        assert!(took);
        assert_eq!((got, pos), (bare, 3), "header, zero, stop");
    }

    #[test]
    fn page_encoding_stats_read_alike_on_the_seven_byte_path_and_off_it() {
        let stats = |count: i32, page_type: PageType| PageEncodingStats {
            page_type,
            encoding: Encoding::RLE_DICTIONARY,
            count,
        };
        // 63 and -64 are the last counts of one varint byte; 64 and -65 take two.
        for count in [0, 1, 3, 63, -64, 64, -65, 1000, i32::MAX, i32::MIN] {
            for page_type in [PageType::DATA_PAGE, PageType(-1), PageType(70)] {
                let mut chunk = typical_chunk();
                let list = vec![stats(count, page_type), stats(1, PageType::DICTIONARY_PAGE)];
                chunk.meta_data.as_mut().unwrap().encoding_stats = Some(list.into());
                let bytes = chunk.encode();
                let (took, got, pos) = hand_tuned(&bytes);
                assert!(took, "count {count}");
                assert_eq!((got, pos), (chunk, bytes.len()), "count {count}");
                assert_same_as_generated(&bytes);
            }
        }
        let fast = [0x15, 0x02, 0x15, 0x10, 0x15, 0x7e, 0x00, 0xaa];
        let mut c = Cursor { buf: &fast, pos: 0 };
        assert_eq!(
            read_page_encoding_stats(&mut c),
            Some(PageEncodingStats {
                page_type: PageType(1),
                encoding: Encoding(8),
                count: 63,
            })
        );
        assert_eq!(c.pos, 7);
    }

    #[test]
    fn other_layouts_are_left_to_the_generated_reader() {
        let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
        let mut c = typical_chunk();
        c.file_path = Some(Box::new("other.parquet".into()));
        cases.push(("file_path", c.encode()));
        let mut c = typical_chunk();
        c.meta_data.as_mut().unwrap().key_value_metadata = Some(Box::new(vec![KeyValue {
            key: "k".into(),
            value: None,
        }]));
        cases.push(("key_value_metadata", c.encode()));
        let mut c = typical_chunk();
        c.meta_data.as_mut().unwrap().encodings = vec![Encoding::PLAIN; 6].into();
        cases.push(("six encodings", c.encode()));
        let mut c = typical_chunk();
        c.meta_data
            .as_mut()
            .unwrap()
            .statistics
            .as_mut()
            .unwrap()
            .min_value = None;
        c.meta_data
            .as_mut()
            .unwrap()
            .size_statistics
            .as_mut()
            .unwrap()
            .definition_level_histogram = Some(vec![1, 2, 3, 4].into());
        cases.push(("long histogram", c.encode()));
        // An unknown field (id 30, long-form header) after the known ones.
        let mut w = CompactWriter::new();
        let mut last = 0i16;
        w.write_field_header(&mut last, wire::I64, 2);
        w.write_i64(4);
        w.write_field_header(&mut last, wire::I32, 30);
        w.write_i32(1);
        w.write_stop();
        cases.push(("unknown field", w.into_inner()));
        // Fields out of order: 4 before 2.
        let mut w = CompactWriter::new();
        let mut last = 0i16;
        w.write_field_header(&mut last, wire::I64, 4);
        w.write_i64(8);
        w.write_field_header(&mut last, wire::I64, 2);
        w.write_i64(4);
        w.write_stop();
        cases.push(("out of order", w.into_inner()));
        // A declared i64 field sent as i32 (the generated reader skips it).
        let mut w = CompactWriter::new();
        let mut last = 0i16;
        w.write_field_header(&mut last, wire::I64, 2);
        w.write_i64(4);
        w.write_field_header(&mut last, wire::I32, 4);
        w.write_i32(8);
        w.write_stop();
        cases.push(("wrong wire type", w.into_inner()));
        let typical = typical_chunk().encode();
        cases.push(("truncated", typical[..typical.len() - 1].to_vec()));
        for (what, bytes) in &cases {
            let (took, got, pos) = hand_tuned(bytes);
            assert!(!took, "{what}");
            assert_eq!(got, ColumnChunk::default(), "{what}: chunk put back");
            assert_eq!(pos, 0, "{what}: reader put back");
            assert_same_as_generated(bytes);
        }
        // Statistics to skip are stepped over, as the generated reader does.
        let mut r = CompactReader::new(&typical).with_skip_statistics(true);
        let mut chunk = ColumnChunk::default();
        assert!(read_column_chunk(&mut chunk, &mut r));
        assert_eq!(r.position(), typical.len());
        let generated = ColumnChunk::read(
            &mut CompactReader::new(&typical)
                .with_skip_statistics(true)
                .with_hand_tuned(false),
        )
        .unwrap();
        assert_eq!(chunk, generated);
        let m = chunk.meta_data.unwrap();
        assert_eq!(m.statistics, None);
        assert_eq!(m.encoding_stats, None);
        assert_eq!(m.size_statistics, None);
        assert_eq!(m.num_values, 1000);
        // Skipping the encoding stats (a list of structures) takes a level more than
        // decoding them: at 3 levels, both readers fail the same way; at 4, both skip.
        for depth in [3, 4] {
            let read = |hand_tuned: bool| {
                let mut r = CompactReader::new(&typical)
                    .with_skip_statistics(true)
                    .with_max_depth(depth)
                    .with_hand_tuned(hand_tuned);
                format!("{:?}", ColumnChunk::read(&mut r))
            };
            assert_eq!(read(true), read(false), "depth {depth}");
            assert_eq!(read(true).starts_with("Err"), depth == 3, "depth {depth}");
        }
    }
}
