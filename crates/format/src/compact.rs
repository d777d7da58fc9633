//! Compact containers for the decoded metadata of column chunks.
//!
//! A wide footer holds one `ColumnMetaData` per column and row group (200,000 of them
//! for 10,000 columns x 20 row groups), and each used to own several small heap
//! vectors and reference-counted slices of the footer buffer. Allocating, counting
//! and freeing those dominated the decode. The types here keep the same contents
//! (order, duplicates and unknown values included, so a decode -> encode -> decode
//! round trip is exact) without a per-chunk allocation in the common case:
//!
//! - [`InlineVec`]: a short list of small `Copy` values (encodings, level histograms,
//!   page encoding stats) held inline, spilling to a `Vec` only when longer;
//! - [`Binary`]: a statistics value, held inline up to [`Binary::INLINE_CAPACITY`]
//!   bytes, else in its own heap copy (16 bytes either way, where `Option<Bytes>` took
//!   32 plus a reference count on the footer buffer);
//! - [`ColumnPath`]: a column's `path_in_schema`, shared (reference counted) between
//!   the row groups that repeat the same path; the decoder reuses the previous row
//!   group's path when the encoded bytes are identical.
//!
//! All three dereference to slices, compare by contents and print as lists, so most
//! code that used the former `Vec`s and `Bytes` reads them unchanged.
//!
//! ```
//! use herringbone_format::compact::{Binary, ColumnPath, InlineVec};
//! use herringbone_format::metadata::Encoding;
//! use herringbone_format::thrift::Text;
//! let encodings: InlineVec<Encoding, 6> = vec![Encoding::PLAIN, Encoding::RLE].into();
//! assert!(encodings.contains(&Encoding::RLE));
//! assert_eq!(encodings, [Encoding::PLAIN, Encoding::RLE]);
//! let min = Binary::from(&b"abc"[..]);
//! assert_eq!(&min[..], b"abc");
//! let path: ColumnPath = ["a", "b"].into_iter().map(Text::from).collect();
//! assert_eq!(path.join("."), "a.b");
//! ```

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use bytes::Bytes;

use crate::error::{ErrorKind, Result};
use crate::thrift::{
    CompactReader, CompactWriter, Text, ThriftValue, read_list_header_of, wire, wire_name,
};

// ---------------------------------------------------------------------------------------
// InlineVec

/// A list of up to `N` small `Copy` values stored inline (no allocation), longer
/// lists on the heap. Dereferences to `[T]`; equality, ordering of elements and
/// hashing are those of the slice, whatever the storage.
#[derive(Clone)]
pub struct InlineVec<T: Copy + Default, const N: usize>(Repr<T, N>);

#[derive(Clone)]
enum Repr<T, const N: usize> {
    Inline { len: u8, items: [T; N] },
    Heap(Vec<T>),
}

impl<T: Copy + Default, const N: usize> InlineVec<T, N> {
    /// An empty list.
    #[inline]
    pub fn new() -> Self {
        const { assert!(N <= u8::MAX as usize, "inline capacity must fit in a u8") };
        InlineVec(Repr::Inline {
            len: 0,
            items: [T::default(); N],
        })
    }

    /// An empty list, as a constant (the unused inline slots hold `fill`). A constant
    /// is copied into place from read-only memory; `new()` may be built on the stack
    /// first and copied, and reloading the just-built value stalls the CPU.
    pub(crate) const fn empty_with(fill: T) -> Self {
        InlineVec(Repr::Inline {
            len: 0,
            items: [fill; N],
        })
    }

    /// Sets an empty, inline list to `count` values from `next`, written in place; `None`
    /// (the list left unspecified) when `count` exceeds the inline capacity, the list is
    /// not an empty inline one, or `next` gives up.
    #[inline(always)]
    pub(crate) fn fill_inline(
        &mut self,
        count: usize,
        mut next: impl FnMut() -> Option<T>,
    ) -> Option<()> {
        match &mut self.0 {
            Repr::Inline {
                len: len @ 0,
                items,
            } if count <= N => {
                for slot in &mut items[..count] {
                    *slot = next()?;
                }
                *len = count as u8;
                Some(())
            }
            _ => None,
        }
    }

    /// The values.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        match &self.0 {
            Repr::Inline { len, items } => &items[..usize::from(*len)],
            Repr::Heap(v) => v,
        }
    }

    /// The values, mutably.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.0 {
            Repr::Inline { len, items } => &mut items[..usize::from(*len)],
            Repr::Heap(v) => v,
        }
    }

    /// Appends a value (moving to the heap when the inline capacity is exceeded).
    #[inline]
    pub fn push(&mut self, value: T) {
        match &mut self.0 {
            Repr::Inline { len, items } => {
                let n = usize::from(*len);
                if n < N {
                    items[n] = value;
                    *len += 1;
                } else {
                    let mut v = Vec::with_capacity(2 * N + 1);
                    v.extend_from_slice(items);
                    v.push(value);
                    self.0 = Repr::Heap(v);
                }
            }
            Repr::Heap(v) => v.push(value),
        }
    }

    /// The values as a `Vec`.
    pub fn to_vec(&self) -> Vec<T> {
        self.as_slice().to_vec()
    }
}

impl<T: Copy + Default, const N: usize> Default for InlineVec<T, N> {
    #[inline]
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default, const N: usize> Deref for InlineVec<T, N> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + Default, const N: usize> DerefMut for InlineVec<T, N> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: Copy + Default, const N: usize> From<Vec<T>> for InlineVec<T, N> {
    fn from(v: Vec<T>) -> Self {
        if v.len() <= N {
            v.into_iter().collect()
        } else {
            InlineVec(Repr::Heap(v))
        }
    }
}

impl<T: Copy + Default, const N: usize> From<&[T]> for InlineVec<T, N> {
    fn from(v: &[T]) -> Self {
        v.iter().copied().collect()
    }
}

impl<T: Copy + Default, const N: usize, const M: usize> From<[T; M]> for InlineVec<T, N> {
    fn from(v: [T; M]) -> Self {
        v.into_iter().collect()
    }
}

impl<T: Copy + Default, const N: usize> From<InlineVec<T, N>> for Vec<T> {
    fn from(v: InlineVec<T, N>) -> Self {
        match v.0 {
            Repr::Inline { .. } => v.to_vec(),
            Repr::Heap(v) => v,
        }
    }
}

impl<T: Copy + Default, const N: usize> FromIterator<T> for InlineVec<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut out = Self::new();
        for v in iter {
            out.push(v);
        }
        out
    }
}

impl<T: Copy + Default, const N: usize> Extend<T> for InlineVec<T, N> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for v in iter {
            self.push(v);
        }
    }
}

impl<'a, T: Copy + Default, const N: usize> IntoIterator for &'a InlineVec<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq for InlineVec<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default + Eq, const N: usize> Eq for InlineVec<T, N> {}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq<Vec<T>> for InlineVec<T, N> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq<[T]> for InlineVec<T, N> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
    }
}

impl<T: Copy + Default + PartialEq, const N: usize, const M: usize> PartialEq<[T; M]>
    for InlineVec<T, N>
{
    fn eq(&self, other: &[T; M]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default + Hash, const N: usize> Hash for InlineVec<T, N> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl<T: Copy + Default + fmt::Debug, const N: usize> fmt::Debug for InlineVec<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: ThriftValue + Copy, const N: usize> ThriftValue for InlineVec<T, N> {
    const WIRE: u8 = wire::LIST;
    // Decoded straight into the field: building the list on the stack and moving it
    // in made the CPU reload just-written elements with wider loads (a stall per
    // list, and the lists are read hundreds of thousands of times in a wide footer).
    const IN_PLACE: bool = true;

    #[inline]
    fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut out = Self::new();
        out.read_value_in_place(r)?;
        Ok(out)
    }

    #[inline]
    fn read_value_in_place(&mut self, r: &mut CompactReader<'_>) -> Result<()> {
        let count = read_list_header_of::<T>(r)?;
        if count == 0 {
            return Ok(());
        }
        if count <= N
            && let Repr::Inline { len, items } = &mut self.0
        {
            for (i, slot) in items[..count].iter_mut().enumerate() {
                if T::IN_PLACE {
                    *slot = T::default();
                    slot.read_value_in_place(r)
                } else {
                    T::read_value(r).map(|v| *slot = v)
                }
                .map_err(|e| e.at_index(i))?;
            }
            *len = count as u8;
            return Ok(());
        }
        // `count` was checked against the remaining bytes by `read_list_header`; as for
        // `Vec`, the up-front reservation is capped further.
        let mut out =
            Vec::with_capacity(count.min(crate::thrift::initial_capacity::<T>(r.remaining())));
        for i in 0..count {
            out.push(T::read_value(r).map_err(|e| e.at_index(i))?);
        }
        self.0 = Repr::Heap(out);
        Ok(())
    }

    #[inline]
    fn write_value(&self, w: &mut CompactWriter) {
        w.write_list_header(T::WIRE, self.len());
        for v in self.as_slice() {
            v.write_value(w);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Binary

/// A Thrift `binary` statistics value: held inline up to
/// [`INLINE_CAPACITY`](Self::INLINE_CAPACITY) bytes (most minimum and maximum values:
/// numbers, short strings), else in a heap copy of its own. Either way it is 16 bytes
/// and owes nothing to the buffer it was decoded from (no reference count to update,
/// which a wide footer would do hundreds of thousands of times). Dereferences to
/// `[u8]`; compares and hashes by contents.
#[derive(Clone)]
pub struct Binary(BinRepr);

#[derive(Clone)]
enum BinRepr {
    Inline {
        len: u8,
        data: [u8; Binary::INLINE_CAPACITY],
    },
    // Boxed twice: a thin pointer leaves room beside the tag for the inline bytes,
    // so the value (and `Option` of it) is 16 bytes rather than 24.
    Heap(Box<Box<[u8]>>),
}

impl Binary {
    /// Values up to this many bytes are stored inline.
    pub const INLINE_CAPACITY: usize = 14;

    /// An empty value.
    #[inline]
    pub const fn new() -> Self {
        Binary(BinRepr::Inline {
            len: 0,
            data: [0; Self::INLINE_CAPACITY],
        })
    }

    /// A copy of `bytes`, inline if they fit.
    #[inline]
    fn from_slice(bytes: &[u8]) -> Self {
        if bytes.len() <= Self::INLINE_CAPACITY {
            let mut data = [0u8; Self::INLINE_CAPACITY];
            data[..bytes.len()].copy_from_slice(bytes);
            Binary(BinRepr::Inline {
                len: bytes.len() as u8,
                data,
            })
        } else {
            Binary(BinRepr::Heap(Box::new(bytes.into())))
        }
    }

    /// Sets the value to a copy of `buf[start..end]` (a range within `buf`), in place:
    /// built on the stack and moved, the value was reloaded with wider loads than it
    /// was stored with, a stall per value.
    #[inline(always)]
    pub(crate) fn assign_range(&mut self, buf: &[u8], start: usize, end: usize) {
        let n = end - start;
        match &mut self.0 {
            BinRepr::Inline { len, data } if n <= Self::INLINE_CAPACITY => {
                // A fixed-size copy (two vector moves) when the buffer extends far
                // enough, rather than a `memcpy` call of a variable length; the bytes
                // past `len` are never looked at.
                // The short copy at the end of the buffer is out of line: inlined, the
                // compiler merged both copies into one `memcpy` of a selected length.
                match buf
                    .get(start..)
                    .and_then(|tail| tail.first_chunk::<{ Self::INLINE_CAPACITY }>())
                {
                    Some(window) => *data = *window,
                    None => copy_short(data, &buf[start..end]),
                }
                *len = n as u8;
            }
            _ => *self = Binary::from_slice(&buf[start..end]),
        }
    }

    /// The bytes.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        match &self.0 {
            BinRepr::Inline { len, data } => &data[..usize::from(*len)],
            BinRepr::Heap(b) => b,
        }
    }

    /// A copy of the bytes as [`Bytes`].
    pub fn to_bytes(&self) -> Bytes {
        Bytes::copy_from_slice(self.as_slice())
    }
}

/// Copies a value shorter than the inline window available at the end of a buffer.
#[cold]
#[inline(never)]
fn copy_short(data: &mut [u8; Binary::INLINE_CAPACITY], bytes: &[u8]) {
    data[..bytes.len()].copy_from_slice(bytes);
}

impl Default for Binary {
    #[inline]
    fn default() -> Self {
        Self::new()
    }
}

impl Deref for Binary {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl AsRef<[u8]> for Binary {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl From<Bytes> for Binary {
    fn from(b: Bytes) -> Self {
        Binary::from_slice(&b)
    }
}

impl From<Vec<u8>> for Binary {
    fn from(v: Vec<u8>) -> Self {
        if v.len() <= Self::INLINE_CAPACITY {
            Binary::from_slice(&v)
        } else {
            Binary(BinRepr::Heap(Box::new(v.into_boxed_slice())))
        }
    }
}

impl From<&[u8]> for Binary {
    fn from(v: &[u8]) -> Self {
        Binary::from_slice(v)
    }
}

impl<const M: usize> From<[u8; M]> for Binary {
    fn from(v: [u8; M]) -> Self {
        Binary::from(&v[..])
    }
}

impl<const M: usize> From<&[u8; M]> for Binary {
    fn from(v: &[u8; M]) -> Self {
        Binary::from(&v[..])
    }
}

impl From<Binary> for Bytes {
    fn from(b: Binary) -> Self {
        match b.0 {
            BinRepr::Inline { .. } => Bytes::copy_from_slice(b.as_slice()),
            BinRepr::Heap(b) => Bytes::from(*b),
        }
    }
}

impl PartialEq for Binary {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Binary {}

impl PartialEq<[u8]> for Binary {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<&[u8]> for Binary {
    fn eq(&self, other: &&[u8]) -> bool {
        self.as_slice() == *other
    }
}

impl<const M: usize> PartialEq<[u8; M]> for Binary {
    fn eq(&self, other: &[u8; M]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<const M: usize> PartialEq<&[u8; M]> for Binary {
    fn eq(&self, other: &&[u8; M]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<Vec<u8>> for Binary {
    fn eq(&self, other: &Vec<u8>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<Bytes> for Binary {
    fn eq(&self, other: &Bytes) -> bool {
        self.as_slice() == other.as_ref()
    }
}

impl Hash for Binary {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl fmt::Debug for Binary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Same rendering as `Bytes` (b"..." with escapes), which callers' snapshots
        // and error messages were written against.
        fmt::Debug::fmt(&Bytes::copy_from_slice(self.as_slice()), f)
    }
}

impl ThriftValue for Binary {
    const WIRE: u8 = wire::BINARY;
    // Copied straight into the field (see `InlineVec`: no stack copy to move).
    const IN_PLACE: bool = true;
    #[inline]
    fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
        r.read_binary_compact()
    }
    #[inline]
    fn read_value_in_place(&mut self, r: &mut CompactReader<'_>) -> Result<()> {
        let (start, end) = r.read_binary_range()?;
        self.assign_range(r.buffer(), start, end);
        Ok(())
    }
    #[inline]
    fn write_value(&self, w: &mut CompactWriter) {
        w.write_binary(self.as_slice())
    }
}

impl CompactReader<'_> {
    /// Reads a `binary` as a [`Binary`] (a copy: inline when short).
    #[inline]
    pub fn read_binary_compact(&mut self) -> Result<Binary> {
        let (start, end) = self.read_binary_range()?;
        Ok(Binary::from_slice(&self.buffer()[start..end]))
    }
}

// ---------------------------------------------------------------------------------------
// ColumnPath

/// A column chunk's `path_in_schema`: the names from the root's child to the leaf.
///
/// Shared (reference counted) rather than owned per chunk: every row group repeats
/// each column's path, and the decoder hands out the previous row group's path again
/// when the encoded bytes are the same. Dereferences to `[Text]`; compares by contents.
#[derive(Clone, Default)]
pub struct ColumnPath(Option<Arc<[Text]>>);

impl ColumnPath {
    /// The empty path, as a constant.
    pub(crate) const EMPTY: ColumnPath = ColumnPath(None);

    /// The path's names.
    #[inline]
    pub fn as_slice(&self) -> &[Text] {
        self.0.as_deref().unwrap_or(&[])
    }

    /// Whether `self` and `other` share the same storage (not only equal names).
    pub fn ptr_eq(&self, other: &ColumnPath) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl Deref for ColumnPath {
    type Target = [Text];
    #[inline]
    fn deref(&self) -> &[Text] {
        self.as_slice()
    }
}

impl From<Vec<Text>> for ColumnPath {
    fn from(v: Vec<Text>) -> Self {
        if v.is_empty() {
            ColumnPath(None)
        } else {
            ColumnPath(Some(v.into()))
        }
    }
}

impl From<&[Text]> for ColumnPath {
    fn from(v: &[Text]) -> Self {
        ColumnPath::from(v.to_vec())
    }
}

impl FromIterator<Text> for ColumnPath {
    fn from_iter<I: IntoIterator<Item = Text>>(iter: I) -> Self {
        ColumnPath::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl<'a> IntoIterator for &'a ColumnPath {
    type Item = &'a Text;
    type IntoIter = std::slice::Iter<'a, Text>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl PartialEq for ColumnPath {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for ColumnPath {}

impl PartialEq<Vec<Text>> for ColumnPath {
    fn eq(&self, other: &Vec<Text>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Hash for ColumnPath {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl fmt::Debug for ColumnPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl ThriftValue for ColumnPath {
    const WIRE: u8 = wire::LIST;

    fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
        let start = r.position();
        // Bytes identical to the path decoded at this chunk position in the previous
        // row group decode to the same path: share it without parsing the list.
        if let Some(path) = r.cached_path_at(start) {
            return Ok(path);
        }
        let (elem, count) = r.read_list_header()?;
        if count == 0 {
            // Cached too, so that the chunk positions after it still line up.
            let path = ColumnPath(None);
            r.cache_path(start, r.position(), &path);
            return Ok(path);
        }
        if elem != wire::BINARY {
            return Err(r.error(
                ErrorKind::Invalid,
                format!(
                    "list of {} ({elem}) where a list of string was expected",
                    wire_name(elem)
                ),
            ));
        }
        // Names are gathered in the reader's scratch and moved into the shared slice
        // (one allocation per new path, not a vector and then the slice).
        let mut names = std::mem::take(&mut r.path_names);
        names.clear();
        names.reserve(count.min(crate::thrift::initial_capacity::<Text>(r.remaining())));
        for i in 0..count {
            match r.read_text() {
                Ok(name) => names.push(name),
                Err(e) => {
                    r.path_names = names;
                    return Err(e.at_index(i));
                }
            }
        }
        let end = r.position();
        let path = ColumnPath(Some(names.drain(..).collect()));
        r.path_names = names;
        r.cache_path(start, end, &path);
        Ok(path)
    }

    fn write_value(&self, w: &mut CompactWriter) {
        w.write_list_header(wire::BINARY, self.len());
        for name in self.as_slice() {
            w.write_binary(name.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::Encoding;

    #[test]
    fn inline_vec_spills_and_compares_by_contents() {
        let mut v: InlineVec<i64, 2> = InlineVec::new();
        v.push(1);
        v.push(2);
        assert!(matches!(v.0, Repr::Inline { len: 2, .. }));
        v.push(3);
        assert!(matches!(v.0, Repr::Heap(_)));
        assert_eq!(v, vec![1, 2, 3]);
        let w: InlineVec<i64, 2> = InlineVec::from(vec![1, 2, 3]);
        assert_eq!(v, w);
        assert_eq!(format!("{v:?}"), "[1, 2, 3]");
        assert_eq!(Vec::from(w), vec![1, 2, 3]);
    }

    #[test]
    fn inline_vec_thrift_round_trip_keeps_unknown_and_order() {
        for values in [
            vec![],
            vec![Encoding::RLE, Encoding::PLAIN, Encoding::RLE],
            vec![Encoding(99), Encoding::PLAIN],
            (0..20).map(Encoding).collect(),
        ] {
            let v: InlineVec<Encoding, 4> = values.clone().into();
            let mut w = CompactWriter::new();
            v.write_value(&mut w);
            let bytes = w.into_inner();
            let mut plain = CompactWriter::new();
            values.write_value(&mut plain);
            assert_eq!(bytes, plain.into_inner(), "same wire form as Vec");
            let back =
                <InlineVec<Encoding, 4>>::read_value(&mut CompactReader::new(&bytes)).unwrap();
            assert_eq!(back, values);
        }
    }

    #[test]
    fn binary_inline_and_heap() {
        let long = vec![7u8; 40];
        let mut w = CompactWriter::new();
        w.write_binary(b"short");
        w.write_binary(&long);
        let owner = Bytes::from(w.into_inner());
        let mut r = CompactReader::from_bytes(&owner);
        let a = r.read_binary_compact().unwrap();
        let b = r.read_binary_compact().unwrap();
        assert!(matches!(a.0, BinRepr::Inline { len: 5, .. }));
        assert_eq!(a, b"short");
        assert!(matches!(b.0, BinRepr::Heap(_)), "40 bytes go to the heap");
        assert_eq!(b, long);
        assert_eq!(Binary::from(long.clone()), b);
        assert_eq!(Bytes::from(b.clone()), Bytes::from(long));
        assert_eq!(std::mem::size_of::<Binary>(), 16);
        assert_eq!(std::mem::size_of::<Option<Binary>>(), 16);
        // The inline capacity is the boundary: 14 bytes stay inline, 15 spill.
        let mut w = CompactWriter::new();
        w.write_binary(&[1u8; 14]);
        w.write_binary(&[2u8; 15]);
        let owner = Bytes::from(w.into_inner());
        let mut r = CompactReader::from_bytes(&owner);
        let fits = r.read_binary_compact().unwrap();
        let spills = r.read_binary_compact().unwrap();
        assert!(matches!(fits.0, BinRepr::Inline { len: 14, .. }));
        assert_eq!(fits, [1u8; 14]);
        assert!(matches!(spills.0, BinRepr::Heap(_)));
        assert_eq!(spills, [2u8; 15]);
        assert_eq!(Bytes::from(a.clone()), Bytes::from_static(b"short"));
        assert_eq!(format!("{a:?}"), "b\"short\"");
        let e = CompactReader::new(&[5, 1, 2])
            .read_binary_compact()
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Truncated);
    }

    #[test]
    fn boxed_structure_reads_and_writes_as_itself() {
        use crate::metadata::{BoundingBox, GeospatialStatistics};
        let geo = GeospatialStatistics {
            bbox: Some(BoundingBox {
                xmin: 1.0,
                xmax: 2.0,
                ymin: -1.0,
                ymax: 0.5,
                ..Default::default()
            }),
            geospatial_types: Some(vec![1, 3]),
        };
        let mut w = CompactWriter::new();
        Box::new(geo.clone()).write_value(&mut w);
        let bytes = w.into_inner();
        let mut plain = CompactWriter::new();
        geo.write_value(&mut plain);
        assert_eq!(bytes, plain.into_inner());
        let back = <Box<GeospatialStatistics>>::read_value(&mut CompactReader::new(&bytes));
        assert_eq!(*back.unwrap(), geo);
    }

    #[test]
    fn column_path_shared_between_identical_encodings() {
        let path: ColumnPath = vec![Text::from("a"), Text::from("b")].into();
        let other: ColumnPath = vec![Text::from("c")].into();
        let mut w = CompactWriter::new();
        for p in [&path, &path, &other, &path] {
            p.write_value(&mut w);
        }
        let bytes = Bytes::from(w.into_inner());
        let mut r = CompactReader::from_bytes(&bytes);
        let got: Vec<ColumnPath> = (0..4)
            .map(|_| {
                r.begin_row_group();
                ColumnPath::read_value(&mut r).unwrap()
            })
            .collect();
        assert_eq!(got, [path.clone(), path.clone(), other, path]);
        assert!(
            got[0].ptr_eq(&got[1]),
            "second row group shares the first's path"
        );
        assert!(
            !got[0].ptr_eq(&got[3]),
            "a different path in between breaks sharing"
        );
        // A name that is not UTF-8 is still an error (checked before caching).
        let bad = [0x18, 2, 0xff, 0xfe];
        let e = ColumnPath::read_value(&mut CompactReader::new(&bad)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid);
    }
}
