//! The Thrift compact protocol: a reader over a borrowed byte slice and a writer into
//! a `Vec<u8>`.
//!
//! The reader never allocates based on a count it has not checked against the bytes
//! that remain, bounds the nesting depth, and skips fields it does not know (so files
//! from newer writers open). When it is built over a [`Bytes`] buffer, `binary` and
//! `string` values are slices of that buffer (no copy).
//!
//! ```
//! use herringbone_format::thrift::{CompactReader, CompactWriter};
//! let mut w = CompactWriter::new();
//! w.write_i64(-3);
//! w.write_binary(b"abc");
//! let bytes = w.into_inner();
//! let mut r = CompactReader::new(&bytes);
//! assert_eq!(r.read_i64().unwrap(), -3);
//! assert_eq!(&r.read_binary().unwrap()[..], b"abc");
//! ```

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use bytes::Bytes;

use crate::compact::ColumnPath;
use crate::error::{Error, ErrorKind, Result};

/// Compact protocol wire type codes.
pub mod wire {
    /// End of a structure's fields.
    pub const STOP: u8 = 0;
    /// `bool` true (in a field header); the element type of bool lists.
    pub const BOOL_TRUE: u8 = 1;
    /// `bool` false (in a field header).
    pub const BOOL_FALSE: u8 = 2;
    /// `i8` (a single byte).
    pub const I8: u8 = 3;
    /// `i16` (zigzag varint).
    pub const I16: u8 = 4;
    /// `i32` (zigzag varint).
    pub const I32: u8 = 5;
    /// `i64` (zigzag varint).
    pub const I64: u8 = 6;
    /// `double` (8 bytes little-endian).
    pub const DOUBLE: u8 = 7;
    /// `binary` and `string` (varint length + bytes).
    pub const BINARY: u8 = 8;
    /// `list`.
    pub const LIST: u8 = 9;
    /// `set` (same layout as list).
    pub const SET: u8 = 10;
    /// `map`.
    pub const MAP: u8 = 11;
    /// `struct` and `union`.
    pub const STRUCT: u8 = 12;
    /// `uuid` (16 bytes), from newer Thrift versions; only ever skipped here.
    pub const UUID: u8 = 13;
}

/// Default maximum nesting depth of structures and containers.
pub const DEFAULT_MAX_DEPTH: u32 = 64;

/// Smallest encoded size of one value of a wire type (used to check a container's
/// element count against the bytes that remain before allocating).
#[inline]
fn min_encoded_size(ty: u8) -> usize {
    match ty {
        wire::DOUBLE => 8,
        wire::UUID => 16,
        _ => 1,
    }
}

pub(crate) fn wire_name(ty: u8) -> &'static str {
    match ty {
        wire::STOP => "stop",
        wire::BOOL_TRUE | wire::BOOL_FALSE => "bool",
        wire::I8 => "i8",
        wire::I16 => "i16",
        wire::I32 => "i32",
        wire::I64 => "i64",
        wire::DOUBLE => "double",
        wire::BINARY => "binary",
        wire::LIST => "list",
        wire::SET => "set",
        wire::MAP => "map",
        wire::STRUCT => "struct",
        wire::UUID => "uuid",
        _ => "unknown",
    }
}

/// A saved reader position, from [`CompactReader::checkpoint`].
#[derive(Debug, Clone, Copy)]
pub struct Checkpoint {
    pos: usize,
    depth: u32,
}

/// A reader of the Thrift compact protocol over a byte slice.
///
/// Offsets in errors are positions in the slice plus the base offset given with
/// [`CompactReader::with_base_offset`].
#[derive(Debug, Clone)]
pub struct CompactReader<'a> {
    buf: &'a [u8],
    owner: Option<&'a Bytes>,
    pos: usize,
    depth: u32,
    max_depth: u32,
    base_offset: u64,
    skip_statistics: bool,
    hand_tuned: bool,
    /// Column paths decoded in the current row group, by chunk position, with the
    /// range of their encoding: the next row group's identical paths share them.
    paths: Vec<(usize, usize, ColumnPath)>,
    /// Position of the next path within the current row group.
    path_slot: usize,
    /// Scratch for the names of a path being decoded, kept between paths so that a
    /// new path costs one allocation (its shared slice).
    pub(crate) path_names: Vec<Text>,
}

impl<'a> CompactReader<'a> {
    /// A reader over `buf`; `binary` values are copied out of it.
    pub fn new(buf: &'a [u8]) -> Self {
        CompactReader {
            buf,
            owner: None,
            pos: 0,
            depth: 0,
            max_depth: DEFAULT_MAX_DEPTH,
            base_offset: 0,
            skip_statistics: false,
            hand_tuned: true,
            paths: Vec::new(),
            path_slot: 0,
            path_names: Vec::new(),
        }
    }

    /// A reader over a shared buffer; `binary` and `string` values are slices of it.
    pub fn from_bytes(bytes: &'a Bytes) -> Self {
        let mut r = Self::new(bytes.as_ref());
        r.owner = Some(bytes);
        r
    }

    /// Reports error offsets relative to `base` (e.g. the file offset of the buffer).
    pub fn with_base_offset(mut self, base: u64) -> Self {
        self.base_offset = base;
        self
    }

    /// Changes the nesting depth limit.
    pub fn with_max_depth(mut self, max_depth: u32) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// When set, statistics fields of `ColumnMetaData` (statistics, encoding stats,
    /// size and geospatial statistics) are skipped at the wire level, not decoded.
    pub fn with_skip_statistics(mut self, skip: bool) -> Self {
        self.skip_statistics = skip;
        self
    }

    /// When unset, every structure is decoded by its generated reader, including those
    /// that have a hand-tuned reader for their usual layout (column chunks). Both give
    /// the same values and errors; this is for tests and fuzzing that compare them.
    pub fn with_hand_tuned(mut self, hand_tuned: bool) -> Self {
        self.hand_tuned = hand_tuned;
        self
    }

    /// Whether hand-tuned readers may be used (see [`with_hand_tuned`](Self::with_hand_tuned)).
    #[inline]
    pub fn hand_tuned(&self) -> bool {
        self.hand_tuned
    }

    /// Whether statistics are being skipped.
    #[inline]
    pub fn skip_statistics(&self) -> bool {
        self.skip_statistics
    }

    /// Current position in the buffer.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not consumed yet.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// An error of `kind` at the current position.
    #[cold]
    pub fn error(
        &self,
        kind: ErrorKind,
        message: impl Into<std::borrow::Cow<'static, str>>,
    ) -> Error {
        Error::new(kind, message).with_offset(self.base_offset + self.pos as u64)
    }

    #[cold]
    fn truncated(&self, what: &'static str) -> Error {
        self.error(
            ErrorKind::Truncated,
            format!("input ends while reading {what}"),
        )
    }

    #[inline]
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.truncated(what));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Reads one raw byte.
    #[inline]
    pub fn read_byte(&mut self) -> Result<u8> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.truncated("a byte")),
        }
    }

    /// Reads an unsigned LEB128 varint of at most 10 bytes.
    #[inline]
    pub fn read_varint(&mut self) -> Result<u64> {
        if let Some(&b) = self.buf.get(self.pos)
            && b < 0x80
        {
            self.pos += 1;
            return Ok(u64::from(b));
        }
        self.read_varint_slow()
    }

    fn read_varint_slow(&mut self) -> Result<u64> {
        let mut result: u64 = 0;
        let mut shift = 0u32;
        loop {
            let b = match self.buf.get(self.pos) {
                Some(&b) => b,
                None => return Err(self.truncated("a varint")),
            };
            self.pos += 1;
            if shift == 63 && b > 1 {
                return Err(self.error(ErrorKind::Invalid, "varint overflows 64 bits"));
            }
            result |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(result);
            }
            shift += 7;
            if shift > 63 {
                return Err(self.error(ErrorKind::Invalid, "varint longer than 10 bytes"));
            }
        }
    }

    /// Reads a zigzag `i64`.
    #[inline]
    pub fn read_i64(&mut self) -> Result<i64> {
        let v = self.read_varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// Reads a zigzag `i32` (rejecting values out of range).
    #[inline]
    pub fn read_i32(&mut self) -> Result<i32> {
        let v = self.read_varint()?;
        if v > u64::from(u32::MAX) {
            return Err(self.error(ErrorKind::Invalid, "i32 varint out of range"));
        }
        let v = v as u32;
        Ok(((v >> 1) as i32) ^ -((v & 1) as i32))
    }

    /// Reads a zigzag `i16` (rejecting values out of range).
    #[inline]
    pub fn read_i16(&mut self) -> Result<i16> {
        let v = self.read_varint()?;
        if v > u64::from(u16::MAX) {
            return Err(self.error(ErrorKind::Invalid, "i16 varint out of range"));
        }
        let v = v as u16;
        Ok(((v >> 1) as i16) ^ -((v & 1) as i16))
    }

    /// Reads an `i8` (one byte).
    #[inline]
    pub fn read_i8(&mut self) -> Result<i8> {
        Ok(self.read_byte()? as i8)
    }

    /// Reads a `double` (8 bytes little-endian).
    #[inline]
    pub fn read_double(&mut self) -> Result<f64> {
        let b = self.take(8, "a double")?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }

    /// Reads a `bool` outside a field header (a list element): 1 is true, 0 or 2 false.
    #[inline]
    pub fn read_bool(&mut self) -> Result<bool> {
        match self.read_byte()? {
            1 => Ok(true),
            0 | 2 => Ok(false),
            other => {
                self.pos -= 1;
                Err(self.error(ErrorKind::Invalid, format!("invalid bool byte {other}")))
            }
        }
    }

    #[inline]
    fn read_length(&mut self, what: &'static str) -> Result<usize> {
        let len = self.read_varint()?;
        if len > i32::MAX as u64 {
            return Err(self.error(
                ErrorKind::Invalid,
                format!("{what} length {len} out of range"),
            ));
        }
        let len = len as usize;
        if len > self.remaining() {
            return Err(self.error(
                ErrorKind::Truncated,
                format!(
                    "{what} of {len} bytes but only {} bytes remain",
                    self.remaining()
                ),
            ));
        }
        Ok(len)
    }

    /// Reads a `binary` as a slice of the input.
    #[inline]
    pub fn read_binary_slice(&mut self) -> Result<&'a [u8]> {
        let len = self.read_length("binary")?;
        let start = self.pos;
        self.pos += len;
        Ok(&self.buf[start..start + len])
    }

    /// Reads a `binary`: a slice of the shared buffer, or a copy without one.
    #[inline]
    pub fn read_binary(&mut self) -> Result<Bytes> {
        let len = self.read_length("binary")?;
        let start = self.pos;
        self.pos += len;
        Ok(self.bytes_of(start, start + len))
    }

    /// Reads a `binary`'s length and steps over it; returns its range in the buffer.
    #[inline]
    pub(crate) fn read_binary_range(&mut self) -> Result<(usize, usize)> {
        let len = self.read_length("binary")?;
        let start = self.pos;
        self.pos += len;
        Ok((start, start + len))
    }

    /// The whole input.
    #[inline]
    pub(crate) fn buffer(&self) -> &'a [u8] {
        self.buf
    }

    /// Moves to `pos` (at most the input's length), for the hand-tuned readers that
    /// decode from a local cursor (`chunk` module) and hand the position back.
    #[inline]
    pub(crate) fn set_position(&mut self, pos: usize) {
        debug_assert!(pos <= self.buf.len());
        self.pos = pos.min(self.buf.len());
    }

    /// How many more structures may be entered before the depth limit.
    #[inline]
    pub(crate) fn depth_left(&self) -> u32 {
        self.max_depth.saturating_sub(self.depth)
    }

    /// The position of the next column path within the row group (see
    /// [`cached_path_at`](Self::cached_path_at)), saved before an attempt that may
    /// be undone.
    #[inline]
    pub(crate) fn path_slot(&self) -> usize {
        self.path_slot
    }

    /// Returns to a path position saved with [`path_slot`](Self::path_slot).
    #[inline]
    pub(crate) fn set_path_slot(&mut self, slot: usize) {
        self.path_slot = slot;
    }

    /// Marks the start of a row group: column paths are matched by chunk position
    /// against the previous row group's.
    #[inline]
    pub fn begin_row_group(&mut self) {
        self.path_slot = 0;
    }

    /// The path decoded at this chunk position in the previous row group, if the
    /// bytes at `start` (the current position) repeat its encoding; on a hit the
    /// reader steps over them. On a miss [`cache_path`](Self::cache_path) advances the
    /// position once the path is decoded.
    #[inline]
    pub(crate) fn cached_path_at(&mut self, start: usize) -> Option<ColumnPath> {
        let (s, e, path) = self.paths.get(self.path_slot)?;
        let cached = &self.buf[*s..*e];
        let new = self.buf.get(start..start + cached.len())?;
        if cached == new {
            let path = path.clone();
            self.pos = start + cached.len();
            self.path_slot += 1;
            return Some(path);
        }
        None
    }

    /// Remembers the path just decoded from `start..end` at this chunk position.
    pub(crate) fn cache_path(&mut self, start: usize, end: usize, path: &ColumnPath) {
        let entry = (start, end, path.clone());
        match self.paths.get_mut(self.path_slot) {
            Some(slot) => *slot = entry,
            None => self.paths.push(entry),
        }
        self.path_slot += 1;
    }

    #[inline]
    pub(crate) fn bytes_of(&self, start: usize, end: usize) -> Bytes {
        if start == end {
            return Bytes::new();
        }
        match self.owner {
            Some(owner) => owner.slice(start..end),
            None => Bytes::copy_from_slice(&self.buf[start..end]),
        }
    }

    /// Reads a `string`, validating UTF-8.
    #[inline]
    pub fn read_text(&mut self) -> Result<Text> {
        let start = self.pos;
        let len = self.read_length("string")?;
        let data_start = self.pos;
        let slice = &self.buf[data_start..data_start + len];
        if let Err(e) = std::str::from_utf8(slice) {
            self.pos = start;
            return Err(self.error(
                ErrorKind::Invalid,
                format!("string is not valid UTF-8 ({e})"),
            ));
        }
        self.pos += len;
        Ok(Text(self.bytes_of(data_start, data_start + len)))
    }

    /// Reads a field header. Returns `None` at the end of the structure, otherwise the
    /// wire type and the field id. `last_id` is the previous field id of this structure.
    #[inline(always)]
    pub fn read_field_header(&mut self, last_id: &mut i16) -> Result<Option<(u8, i16)>> {
        // Fast path: the stop byte, or the short form (id delta 1..=15) of a known wire type.
        if let Some(&b) = self.buf.get(self.pos) {
            if b == wire::STOP {
                self.pos += 1;
                return Ok(None);
            }
            let ty = b & 0x0f;
            let delta = b >> 4;
            if delta != 0
                && ty != wire::STOP
                && ty <= wire::UUID
                && let Some(id) = last_id.checked_add(i16::from(delta))
            {
                self.pos += 1;
                *last_id = id;
                return Ok(Some((ty, id)));
            }
        }
        self.read_field_header_slow(last_id)
    }

    #[inline(never)]
    fn read_field_header_slow(&mut self, last_id: &mut i16) -> Result<Option<(u8, i16)>> {
        let b = self.read_byte()?;
        if b == wire::STOP {
            return Ok(None);
        }
        let ty = b & 0x0f;
        let delta = b >> 4;
        let id = if delta != 0 {
            match last_id.checked_add(i16::from(delta)) {
                Some(id) => id,
                None => return Err(self.error(ErrorKind::Invalid, "field id overflows i16")),
            }
        } else {
            self.read_i16()?
        };
        if ty == wire::STOP || ty > wire::UUID {
            self.pos -= 1;
            return Err(self.error(
                ErrorKind::Invalid,
                format!("unknown wire type {ty} for field {id}"),
            ));
        }
        *last_id = id;
        Ok(Some((ty, id)))
    }

    /// Reads a list (or set) header: element wire type and element count. The count is
    /// checked against the bytes that remain, so it can size an allocation.
    #[inline]
    pub fn read_list_header(&mut self) -> Result<(u8, usize)> {
        let b = self.read_byte()?;
        let elem = b & 0x0f;
        let short = b >> 4;
        let count = if short != 15 {
            usize::from(short)
        } else {
            let n = self.read_varint()?;
            if n > i32::MAX as u64 {
                return Err(self.error(ErrorKind::Invalid, format!("list size {n} out of range")));
            }
            n as usize
        };
        self.check_count(count, min_encoded_size(elem), "list")?;
        Ok((elem, count))
    }

    #[inline]
    fn check_count(&self, count: usize, min_each: usize, what: &'static str) -> Result<()> {
        if count.saturating_mul(min_each) > self.remaining() {
            return Err(self.error(
                ErrorKind::Truncated,
                format!(
                    "{what} of {count} elements needs at least {} bytes but only {} remain",
                    count.saturating_mul(min_each),
                    self.remaining()
                ),
            ));
        }
        Ok(())
    }

    /// Reads a map header: key type, value type and entry count (checked against the
    /// bytes that remain).
    pub fn read_map_header(&mut self) -> Result<(u8, u8, usize)> {
        let n = self.read_varint()?;
        if n > i32::MAX as u64 {
            return Err(self.error(ErrorKind::Invalid, format!("map size {n} out of range")));
        }
        let count = n as usize;
        if count == 0 {
            return Ok((0, 0, 0));
        }
        let types = self.read_byte()?;
        let (k, v) = (types >> 4, types & 0x0f);
        self.check_count(count, min_encoded_size(k) + min_encoded_size(v), "map")?;
        Ok((k, v, count))
    }

    /// Where the reader stands (position and nesting depth), to return to with
    /// [`CompactReader::restore`] after a failed attempt at decoding a value.
    #[inline]
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            pos: self.pos,
            depth: self.depth,
        }
    }

    /// Returns to a [`Checkpoint`] taken earlier on this reader.
    #[inline]
    pub fn restore(&mut self, checkpoint: Checkpoint) {
        self.pos = checkpoint.pos;
        self.depth = checkpoint.depth;
    }

    /// Enters a nested structure, enforcing the depth limit.
    #[inline]
    pub fn enter(&mut self) -> Result<()> {
        if self.depth >= self.max_depth {
            return Err(self.error(
                ErrorKind::LimitExceeded,
                format!("nesting deeper than {} levels", self.max_depth),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    /// Leaves a nested structure.
    #[inline]
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Skips a value of wire type `ty` (for a field: bool types carry no payload).
    pub fn skip_field(&mut self, ty: u8) -> Result<()> {
        match ty {
            wire::BOOL_TRUE | wire::BOOL_FALSE => Ok(()),
            _ => self.skip_value(ty),
        }
    }

    /// Skips a value of wire type `ty` in a container context (bools are one byte).
    pub fn skip_value(&mut self, ty: u8) -> Result<()> {
        match ty {
            wire::BOOL_TRUE | wire::BOOL_FALSE | wire::I8 => self.take(1, "a byte").map(drop),
            wire::I16 | wire::I32 | wire::I64 => self.skip_varint(),
            wire::DOUBLE => self.take(8, "a double").map(drop),
            wire::UUID => self.take(16, "a uuid").map(drop),
            wire::BINARY => self.skip_binary(),
            wire::LIST | wire::SET => {
                let (elem, count) = self.read_list_header()?;
                if count > 0 && (elem == wire::STOP || elem > wire::UUID) {
                    return Err(self.error(
                        ErrorKind::Invalid,
                        format!("unknown list element wire type {elem}"),
                    ));
                }
                self.enter()?;
                // Tight loops for the element types footers are made of.
                match elem {
                    wire::I16 | wire::I32 | wire::I64 => {
                        for _ in 0..count {
                            self.skip_varint()?;
                        }
                    }
                    wire::BINARY => {
                        for _ in 0..count {
                            self.skip_binary()?;
                        }
                    }
                    wire::STRUCT => {
                        for _ in 0..count {
                            self.skip_struct()?;
                        }
                    }
                    _ => {
                        for _ in 0..count {
                            self.skip_value(elem)?;
                        }
                    }
                }
                self.leave();
                Ok(())
            }
            wire::MAP => {
                let (k, v, count) = self.read_map_header()?;
                if count > 0
                    && (k == wire::STOP || k > wire::UUID || v == wire::STOP || v > wire::UUID)
                {
                    return Err(self.error(ErrorKind::Invalid, "unknown map key/value wire type"));
                }
                self.enter()?;
                for _ in 0..count {
                    self.skip_value(k)?;
                    self.skip_value(v)?;
                }
                self.leave();
                Ok(())
            }
            wire::STRUCT => self.skip_struct(),
            other => Err(self.error(ErrorKind::Invalid, format!("unknown wire type {other}"))),
        }
    }

    #[inline(always)]
    fn skip_binary(&mut self) -> Result<()> {
        let len = self.read_length("binary")?;
        self.pos += len;
        Ok(())
    }

    #[inline(always)]
    fn skip_varint(&mut self) -> Result<()> {
        if let Some(&b) = self.buf.get(self.pos)
            && b < 0x80
        {
            self.pos += 1;
            return Ok(());
        }
        self.skip_varint_slow()
    }

    fn skip_varint_slow(&mut self) -> Result<()> {
        let rest = &self.buf[self.pos..];
        for (i, &b) in rest.iter().take(10).enumerate() {
            if b < 0x80 {
                self.pos += i + 1;
                return Ok(());
            }
        }
        if rest.len() < 10 {
            Err(self.truncated("a varint"))
        } else {
            Err(self.error(ErrorKind::Invalid, "varint longer than 10 bytes"))
        }
    }

    /// Skips a whole structure (its fields up to and including the stop byte).
    pub fn skip_struct(&mut self) -> Result<()> {
        self.enter()?;
        let mut last = 0i16;
        while let Some((ty, _)) = self.read_field_header(&mut last)? {
            match ty {
                wire::BOOL_TRUE | wire::BOOL_FALSE => {}
                wire::I16 | wire::I32 | wire::I64 => self.skip_varint()?,
                wire::BINARY => self.skip_binary()?,
                wire::STRUCT => self.skip_struct()?,
                _ => self.skip_value(ty)?,
            }
        }
        self.leave();
        Ok(())
    }

    /// Skips a value of wire type `ty` and returns its encoded bytes (zero-copy when
    /// the reader is backed by [`Bytes`]).
    pub fn capture_value(&mut self, ty: u8) -> Result<Bytes> {
        let start = self.pos;
        self.skip_value(ty)?;
        Ok(self.bytes_of(start, self.pos))
    }

    /// Checks that a field has the expected wire type.
    #[inline]
    pub fn expect_type(&self, actual: u8, expected: u8) -> Result<()> {
        if actual == expected {
            Ok(())
        } else {
            Err(self.error(
                ErrorKind::Invalid,
                format!(
                    "wire type {} ({actual}) where {} ({expected}) was expected",
                    wire_name(actual),
                    wire_name(expected)
                ),
            ))
        }
    }
}

/// A writer of the Thrift compact protocol into a `Vec<u8>`.
#[derive(Debug, Default, Clone)]
pub struct CompactWriter {
    buf: Vec<u8>,
}

impl CompactWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// A writer appending to `buf`.
    pub fn from_vec(buf: Vec<u8>) -> Self {
        CompactWriter { buf }
    }

    /// The bytes written so far.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    /// The written bytes.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }

    /// Appends raw bytes.
    #[inline]
    pub fn write_raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Appends one byte.
    #[inline]
    pub fn write_byte(&mut self, b: u8) {
        self.buf.push(b);
    }

    /// Appends an unsigned LEB128 varint.
    #[inline]
    pub fn write_varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    /// Appends a zigzag `i64`.
    #[inline]
    pub fn write_i64(&mut self, v: i64) {
        self.write_varint(((v << 1) ^ (v >> 63)) as u64);
    }

    /// Appends a zigzag `i32`.
    #[inline]
    pub fn write_i32(&mut self, v: i32) {
        self.write_varint(u64::from(((v << 1) ^ (v >> 31)) as u32));
    }

    /// Appends a zigzag `i16`.
    #[inline]
    pub fn write_i16(&mut self, v: i16) {
        self.write_varint(u64::from(((v << 1) ^ (v >> 15)) as u16));
    }

    /// Appends an `i8`.
    #[inline]
    pub fn write_i8(&mut self, v: i8) {
        self.buf.push(v as u8);
    }

    /// Appends a `double` (8 bytes little-endian).
    #[inline]
    pub fn write_double(&mut self, v: f64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// Appends a `bool` in container form (1 true, 2 false).
    #[inline]
    pub fn write_bool(&mut self, v: bool) {
        self.buf
            .push(if v { wire::BOOL_TRUE } else { wire::BOOL_FALSE });
    }

    /// Appends a `binary` / `string`.
    #[inline]
    pub fn write_binary(&mut self, v: &[u8]) {
        self.write_varint(v.len() as u64);
        self.buf.extend_from_slice(v);
    }

    /// Appends a field header (short form when the id delta is 1..=15).
    #[inline]
    pub fn write_field_header(&mut self, last_id: &mut i16, ty: u8, id: i16) {
        let delta = i32::from(id) - i32::from(*last_id);
        if (1..=15).contains(&delta) {
            self.buf.push(((delta as u8) << 4) | ty);
        } else {
            self.buf.push(ty);
            self.write_i16(id);
        }
        *last_id = id;
    }

    /// Appends the end-of-structure marker.
    #[inline]
    pub fn write_stop(&mut self) {
        self.buf.push(wire::STOP);
    }

    /// Appends a list header (short form for fewer than 15 elements).
    #[inline]
    pub fn write_list_header(&mut self, elem: u8, count: usize) {
        if count < 15 {
            self.buf.push(((count as u8) << 4) | elem);
        } else {
            self.buf.push(0xf0 | elem);
            self.write_varint(count as u64);
        }
    }

    /// Appends a map header.
    pub fn write_map_header(&mut self, key: u8, value: u8, count: usize) {
        self.write_varint(count as u64);
        if count > 0 {
            self.buf.push((key << 4) | value);
        }
    }
}

/// A Thrift structure (or union) that can be read and written with the compact protocol.
pub trait ThriftStruct: Sized {
    /// Reads the structure at the reader's position (fields up to the stop byte).
    fn read(r: &mut CompactReader<'_>) -> Result<Self>;

    /// Writes the structure (fields in id order, then the stop byte).
    fn write(&self, w: &mut CompactWriter);

    /// Decodes one structure from the start of `bytes` (binary fields share `bytes`);
    /// returns it and the number of bytes it took.
    fn decode_prefix(bytes: &Bytes) -> Result<(Self, usize)> {
        let mut r = CompactReader::from_bytes(bytes);
        let v = Self::read(&mut r)?;
        Ok((v, r.position()))
    }

    /// Decodes one structure from the start of a slice (binary fields are copied);
    /// returns it and the number of bytes it took.
    fn decode_slice(bytes: &[u8]) -> Result<(Self, usize)> {
        let mut r = CompactReader::new(bytes);
        let v = Self::read(&mut r)?;
        Ok((v, r.position()))
    }

    /// Encodes the structure into a new buffer.
    fn encode(&self) -> Vec<u8> {
        let mut w = CompactWriter::new();
        self.write(&mut w);
        w.into_inner()
    }
}

/// A value that can appear as a field or a container element: the glue the generated
/// readers and writers use. Implemented for the Thrift base types, [`Bytes`], [`Text`],
/// `Vec<T>`, the enums and every structure.
pub trait ThriftValue: Sized + Default {
    /// The compact wire type of the value.
    const WIRE: u8;

    /// Whether [`read_value_in_place`](Self::read_value_in_place) is the cheaper way
    /// to read this type (large structures: it avoids moving them around).
    const IN_PLACE: bool = false;

    /// Reads the value in container form into `self`, which must be `Default`.
    #[inline]
    fn read_value_in_place(&mut self, r: &mut CompactReader<'_>) -> Result<()> {
        *self = Self::read_value(r)?;
        Ok(())
    }

    /// Reads the value in container form.
    fn read_value(r: &mut CompactReader<'_>) -> Result<Self>;

    /// Writes the value in container form.
    fn write_value(&self, w: &mut CompactWriter);

    /// Reads the value of a field whose header said `ty`.
    #[inline]
    fn read_field(r: &mut CompactReader<'_>, ty: u8) -> Result<Self> {
        r.expect_type(ty, Self::WIRE)?;
        Self::read_value(r)
    }

    /// Writes a field header and the value.
    #[inline]
    fn write_field(&self, w: &mut CompactWriter, last_id: &mut i16, id: i16) {
        w.write_field_header(last_id, Self::WIRE, id);
        self.write_value(w);
    }

    /// Whether a field header's wire type fits this type.
    #[inline]
    fn field_type_ok(ty: u8) -> bool {
        ty == Self::WIRE
    }

    /// Whether a list element type code fits this type.
    #[inline]
    fn element_type_ok(ty: u8) -> bool {
        ty == Self::WIRE
    }
}

impl ThriftValue for bool {
    const WIRE: u8 = wire::BOOL_TRUE;
    #[inline]
    fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
        r.read_bool()
    }
    #[inline]
    fn write_value(&self, w: &mut CompactWriter) {
        w.write_bool(*self)
    }
    #[inline]
    fn read_field(r: &mut CompactReader<'_>, ty: u8) -> Result<Self> {
        match ty {
            wire::BOOL_TRUE => Ok(true),
            wire::BOOL_FALSE => Ok(false),
            other => Err(r.error(
                ErrorKind::Invalid,
                format!(
                    "wire type {} ({other}) where bool was expected",
                    wire_name(other)
                ),
            )),
        }
    }
    #[inline]
    fn write_field(&self, w: &mut CompactWriter, last_id: &mut i16, id: i16) {
        let ty = if *self {
            wire::BOOL_TRUE
        } else {
            wire::BOOL_FALSE
        };
        w.write_field_header(last_id, ty, id);
    }
    #[inline]
    fn element_type_ok(ty: u8) -> bool {
        ty == wire::BOOL_TRUE || ty == wire::BOOL_FALSE
    }
    #[inline]
    fn field_type_ok(ty: u8) -> bool {
        ty == wire::BOOL_TRUE || ty == wire::BOOL_FALSE
    }
}

/// Reads a field value into `slot`. A field whose wire type does not match the
/// declaration is skipped, as the C++ reader (pyarrow) does: some old writers reused
/// field ids with other types.
#[inline]
pub fn read_field_into<T: ThriftValue>(
    r: &mut CompactReader<'_>,
    ty: u8,
    slot: &mut Option<T>,
) -> Result<()> {
    if !T::field_type_ok(ty) {
        return r.skip_field(ty);
    }
    if T::IN_PLACE {
        // A repeated field starts over from the default; a first one gets its default
        // built in the slot (`insert(T::default())` built it on the stack and copied
        // it, hundreds of bytes for `ColumnMetaData`).
        if let Some(value) = slot.as_mut() {
            *value = T::default();
        }
        slot.get_or_insert_with(T::default).read_value_in_place(r)
    } else {
        *slot = Some(T::read_field(r, ty)?);
        Ok(())
    }
}

/// Reads a required field's value into `slot` (see [`read_field_into`]); returns
/// whether it was read (`false`: skipped for a mismatched wire type). `seen` says
/// whether `slot` already holds a value from an earlier occurrence of the field.
#[inline]
pub fn read_required_field_into<T: ThriftValue>(
    r: &mut CompactReader<'_>,
    ty: u8,
    slot: &mut T,
    seen: bool,
) -> Result<bool> {
    if !T::field_type_ok(ty) {
        r.skip_field(ty)?;
        return Ok(false);
    }
    if T::IN_PLACE {
        if seen {
            *slot = T::default();
        }
        slot.read_value_in_place(r)?;
    } else {
        *slot = T::read_field(r, ty)?;
    }
    Ok(true)
}

/// Whether a list element type code is one of the zigzag varint integer types.
///
/// List elements of `i16`, `i32` and `i64` share one encoding; like the C++ reader
/// (pyarrow), an integer list written with another integer element type is accepted
/// (values are range-checked), which some writers have produced for `encodings`.
#[inline]
pub fn is_varint_integer(ty: u8) -> bool {
    matches!(ty, wire::I16 | wire::I32 | wire::I64)
}

macro_rules! base_value {
    ($t:ty, $wire:expr, $read:ident, $write:ident, $elem_ok:expr) => {
        impl ThriftValue for $t {
            const WIRE: u8 = $wire;
            #[inline]
            fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
                r.$read()
            }
            #[inline]
            fn write_value(&self, w: &mut CompactWriter) {
                w.$write(*self)
            }
            #[inline]
            fn element_type_ok(ty: u8) -> bool {
                $elem_ok(ty)
            }
        }
    };
}

base_value!(i8, wire::I8, read_i8, write_i8, |ty| ty == wire::I8);
base_value!(i16, wire::I16, read_i16, write_i16, is_varint_integer);
base_value!(i32, wire::I32, read_i32, write_i32, is_varint_integer);
base_value!(i64, wire::I64, read_i64, write_i64, is_varint_integer);
base_value!(f64, wire::DOUBLE, read_double, write_double, |ty| ty
    == wire::DOUBLE);

impl ThriftValue for Bytes {
    const WIRE: u8 = wire::BINARY;
    #[inline]
    fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
        r.read_binary()
    }
    #[inline]
    fn write_value(&self, w: &mut CompactWriter) {
        w.write_binary(self)
    }
}

impl ThriftValue for Text {
    const WIRE: u8 = wire::BINARY;
    #[inline]
    fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
        r.read_text()
    }
    #[inline]
    fn write_value(&self, w: &mut CompactWriter) {
        w.write_binary(self.0.as_ref())
    }
}

/// Reads a list header and checks that its elements have `T`'s wire type (an empty
/// list may declare any); returns the element count.
#[inline]
pub(crate) fn read_list_header_of<T: ThriftValue>(r: &mut CompactReader<'_>) -> Result<usize> {
    let (elem, count) = r.read_list_header()?;
    if count > 0 && !T::element_type_ok(elem) {
        return Err(r.error(
            ErrorKind::Invalid,
            format!(
                "list of {} ({elem}) where a list of {} was expected",
                wire_name(elem),
                wire_name(T::WIRE)
            ),
        ));
    }
    Ok(count)
}

impl<T: ThriftValue> ThriftValue for Vec<T> {
    const WIRE: u8 = wire::LIST;
    #[inline]
    fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
        let count = read_list_header_of::<T>(r)?;
        if count == 0 {
            return Ok(Vec::new());
        }
        let cap = count.min(initial_capacity::<T>(r.remaining()));
        let mut out = Vec::with_capacity(cap);
        if T::IN_PLACE {
            for i in 0..count {
                // `resize_with` builds the default value in the vector's slot; `push`
                // built it on the stack and copied it (hundreds of bytes per chunk).
                let len = out.len();
                out.resize_with(len + 1, T::default);
                out[len].read_value_in_place(r).map_err(|e| e.at_index(i))?;
            }
        } else {
            for i in 0..count {
                out.push(T::read_value(r).map_err(|e| e.at_index(i))?);
            }
        }
        Ok(out)
    }
    #[inline]
    fn write_value(&self, w: &mut CompactWriter) {
        w.write_list_header(T::WIRE, self.len());
        for v in self {
            v.write_value(w);
        }
    }
}

/// A boxed value reads and writes as the value itself: rarely present, large
/// structures are boxed in the metadata types so they do not widen every chunk.
impl<T: ThriftValue> ThriftValue for Box<T> {
    const WIRE: u8 = T::WIRE;
    #[inline]
    fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut value = Box::<T>::default();
        // `T`'s reader, into the box (method syntax would pick `Box<T>`'s own
        // `read_value_in_place`, which calls back here).
        T::read_value_in_place(&mut value, r)?;
        Ok(value)
    }
    #[inline]
    fn write_value(&self, w: &mut CompactWriter) {
        (**self).write_value(w)
    }
    #[inline]
    fn read_field(r: &mut CompactReader<'_>, ty: u8) -> Result<Self> {
        if T::IN_PLACE {
            r.expect_type(ty, Self::WIRE)?;
            Self::read_value(r)
        } else {
            T::read_field(r, ty).map(Box::new)
        }
    }
    #[inline]
    fn write_field(&self, w: &mut CompactWriter, last_id: &mut i16, id: i16) {
        (**self).write_field(w, last_id, id)
    }
    #[inline]
    fn field_type_ok(ty: u8) -> bool {
        T::field_type_ok(ty)
    }
    #[inline]
    fn element_type_ok(ty: u8) -> bool {
        T::element_type_ok(ty)
    }
}

/// How many elements of `T` a list may reserve up front when `remaining` bytes of
/// input are left.
///
/// A list's count has been checked against the remaining bytes (each element takes at
/// least one), but an element in memory can be hundreds of times larger than its
/// smallest encoding, so a hostile count must not size the allocation alone. The
/// reservation is capped at 16 bytes of memory per remaining byte of input (and at
/// least 1 MiB): generous enough for real column chunk lists, whose elements take a
/// few dozen bytes each on the wire, to be allocated once at their final size rather
/// than grown by doubling (each doubling copied every chunk decoded so far); beyond
/// that a vector grows as elements are actually decoded.
#[inline]
pub(crate) fn initial_capacity<T>(remaining: usize) -> usize {
    let budget = remaining.saturating_mul(16).max(1 << 20);
    budget / std::mem::size_of::<T>().max(1)
}

/// A Thrift `string`: UTF-8-validated bytes, shared with the buffer it was decoded from.
///
/// ```
/// use herringbone_format::thrift::Text;
/// let t = Text::from("parquet-cpp");
/// assert_eq!(t, "parquet-cpp");
/// assert!(t.starts_with("parquet"));
/// ```
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Text(Bytes);

impl Text {
    /// Validates `bytes` as UTF-8.
    pub fn from_utf8(bytes: Bytes) -> Result<Text> {
        match std::str::from_utf8(&bytes) {
            Ok(_) => Ok(Text(bytes)),
            Err(e) => Err(Error::invalid(format!("string is not valid UTF-8 ({e})"))),
        }
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        // The bytes were validated on construction; `forbid(unsafe_code)` rules out the
        // unchecked conversion, so validation runs again (cheap for metadata strings).
        std::str::from_utf8(&self.0).unwrap_or_default()
    }

    /// The underlying bytes.
    pub fn as_bytes(&self) -> &Bytes {
        &self.0
    }

    /// The underlying bytes, owned.
    pub fn into_bytes(self) -> Bytes {
        self.0
    }
}

impl Deref for Text {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Same as `str`'s hash, so `Borrow<str>` lookups in hash maps work.
        self.as_str().hash(state)
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text(Bytes::copy_from_slice(s.as_bytes()))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text(Bytes::from(s))
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Self {
        Text::from(s.as_str())
    }
}

impl From<Text> for String {
    fn from(t: Text) -> Self {
        t.as_str().to_owned()
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.0.as_ref() == other.as_bytes()
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.0.as_ref() == other.as_bytes()
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.0.as_ref() == other.as_bytes()
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self.as_bytes() == other.0.as_ref()
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        self.as_bytes() == other.0.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        for v in [0i64, 1, -1, 63, -64, 64, i64::MAX, i64::MIN, 1 << 40] {
            let mut w = CompactWriter::new();
            w.write_i64(v);
            let b = w.into_inner();
            assert_eq!(CompactReader::new(&b).read_i64().unwrap(), v);
        }
        for v in [0i32, -1, i32::MAX, i32::MIN] {
            let mut w = CompactWriter::new();
            w.write_i32(v);
            let b = w.into_inner();
            assert_eq!(CompactReader::new(&b).read_i32().unwrap(), v);
        }
        for v in [0i16, -1, i16::MAX, i16::MIN] {
            let mut w = CompactWriter::new();
            w.write_i16(v);
            let b = w.into_inner();
            assert_eq!(CompactReader::new(&b).read_i16().unwrap(), v);
        }
    }

    #[test]
    fn zigzag_known_bytes() {
        let mut w = CompactWriter::new();
        w.write_i32(-1);
        w.write_i32(1);
        w.write_i32(-64);
        w.write_i32(64);
        assert_eq!(w.into_inner(), vec![0x01, 0x02, 0x7f, 0x80, 0x01]);
    }

    #[test]
    fn overlong_varint_rejected() {
        let b = [0xffu8; 11];
        let e = CompactReader::new(&b).read_varint().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid);
        let e = CompactReader::new(&b[..3]).read_varint().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Truncated);
        assert_eq!(e.offset(), Some(3));
        // i32 out of range
        let b = [0xff, 0xff, 0xff, 0xff, 0x7f];
        assert_eq!(
            CompactReader::new(&b).read_i32().unwrap_err().kind(),
            ErrorKind::Invalid
        );
    }

    #[test]
    fn field_headers_short_and_long() {
        let mut w = CompactWriter::new();
        let mut last = 0;
        w.write_field_header(&mut last, wire::I32, 1);
        w.write_i32(5);
        w.write_field_header(&mut last, wire::I32, 20);
        w.write_i32(6);
        w.write_field_header(&mut last, wire::I32, 3);
        w.write_i32(7);
        w.write_stop();
        let b = w.into_inner();
        assert_eq!(b[0], 0x15);
        assert_eq!(b[2], 0x05); // long form: type only, then zigzag id 20 = 40
        assert_eq!(b[3], 40);
        let mut r = CompactReader::new(&b);
        let mut last = 0;
        let mut seen = vec![];
        while let Some((ty, id)) = r.read_field_header(&mut last).unwrap() {
            assert_eq!(ty, wire::I32);
            seen.push((id, r.read_i32().unwrap()));
        }
        assert_eq!(seen, vec![(1, 5), (20, 6), (3, 7)]);
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn huge_list_size_is_rejected_before_allocation() {
        // list of i64 claiming 2^31-1 elements with 3 bytes behind it
        let b = [0xf6, 0xff, 0xff, 0xff, 0xff, 0x07, 1, 2, 3];
        let e = <Vec<i64>>::read_value(&mut CompactReader::new(&b)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Truncated);
        // doubles need 8 bytes each
        let b = [0x27, 0, 0, 0, 0, 0, 0, 0, 0];
        let e = <Vec<f64>>::read_value(&mut CompactReader::new(&b)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Truncated);
    }

    #[test]
    fn deep_nesting_is_limited() {
        // struct { 1: struct { 1: struct { ... } } } 1000 levels deep
        let mut b = vec![0x1c; 1000];
        b.extend(std::iter::repeat_n(0, 1001));
        let mut r = CompactReader::new(&b);
        let e = r.skip_struct().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        // lists of lists
        let mut b = vec![0x19; 1000];
        b.push(0);
        let e = CompactReader::new(&b).skip_value(wire::LIST).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    }

    #[test]
    fn skip_every_wire_type() {
        let mut w = CompactWriter::new();
        let mut last = 0;
        true.write_field(&mut w, &mut last, 1);
        3i8.write_field(&mut w, &mut last, 2);
        300i16.write_field(&mut w, &mut last, 3);
        (-7i32).write_field(&mut w, &mut last, 4);
        (1i64 << 50).write_field(&mut w, &mut last, 5);
        1.5f64.write_field(&mut w, &mut last, 6);
        Bytes::from_static(b"xyz").write_field(&mut w, &mut last, 7);
        vec![1i32; 20].write_field(&mut w, &mut last, 8);
        w.write_field_header(&mut last, wire::MAP, 9);
        w.write_map_header(wire::BINARY, wire::I64, 2);
        w.write_binary(b"a");
        w.write_i64(1);
        w.write_binary(b"b");
        w.write_i64(2);
        w.write_field_header(&mut last, wire::SET, 10);
        w.write_list_header(wire::BOOL_TRUE, 2);
        w.write_bool(true);
        w.write_bool(false);
        w.write_field_header(&mut last, wire::STRUCT, 11);
        w.write_stop();
        w.write_field_header(&mut last, wire::UUID, 12);
        w.write_raw(&[7; 16]);
        w.write_stop();
        w.write_byte(0xaa);
        let b = w.into_inner();
        let mut r = CompactReader::new(&b);
        r.skip_struct().unwrap();
        assert_eq!(r.remaining(), 1);
    }

    #[test]
    fn text_validates_utf8() {
        let b = [2u8, 0xff, 0xfe];
        let e = CompactReader::new(&b).read_text().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid);
        let owner = Bytes::from_static(&[3, b'a', b'b', b'c']);
        let t = CompactReader::from_bytes(&owner).read_text().unwrap();
        assert_eq!(t, "abc");
        assert_eq!(
            t.as_bytes().as_ptr(),
            owner[1..].as_ptr(),
            "zero-copy slice"
        );
        assert_eq!(format!("{t:?}"), "\"abc\"");
        assert_eq!(Text::from(String::from("x")).to_string(), "x");
    }
}
