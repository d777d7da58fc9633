//! Min/max statistics in the specification's sort orders.
//!
//! Bounds are kept as their PLAIN statistics bytes (little-endian numbers, raw byte
//! arrays) and compared in the column's [`SortOrder`]: signed or unsigned integers,
//! floats (NaN never enters min/max; a zero minimum is written as -0.0 and a zero
//! maximum as +0.0 so both zeros are covered), unsigned lexicographic bytes, signed
//! big-endian decimals. Columns whose order is undefined (INTERVAL, INT96) get no
//! min/max at all, only null counts.

use std::cmp::Ordering;

use half::f16;
use herringbone_format::metadata::{ConvertedType, LogicalType, Statistics, Type};

use super::values::Values;

/// How the values of a column compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortOrder {
    /// BOOLEAN: false < true.
    Bool,
    /// Signed INT32 / INT64.
    Signed,
    /// Unsigned INT32 / INT64 (`INTEGER(n, false)`).
    Unsigned,
    /// IEEE float (FLOAT, DOUBLE, FLOAT16).
    Float,
    /// Unsigned lexicographic bytes (BYTE_ARRAY, plain FIXED_LEN_BYTE_ARRAY, UUID).
    Bytes,
    /// Big-endian two's complement (DECIMAL on FIXED_LEN_BYTE_ARRAY).
    Decimal,
    /// No order defined: no min/max.
    Undefined,
}

impl SortOrder {
    /// The order of a column from its physical and logical types.
    pub fn of(
        physical: Type,
        logical: Option<&LogicalType>,
        converted: Option<ConvertedType>,
    ) -> SortOrder {
        if converted == Some(ConvertedType::INTERVAL) {
            return SortOrder::Undefined;
        }
        match physical {
            Type::BOOLEAN => SortOrder::Bool,
            Type::INT32 | Type::INT64 => match logical {
                Some(LogicalType::Integer {
                    is_signed: false, ..
                }) => SortOrder::Unsigned,
                _ => SortOrder::Signed,
            },
            Type::FLOAT | Type::DOUBLE => SortOrder::Float,
            Type::FIXED_LEN_BYTE_ARRAY => match logical {
                Some(LogicalType::Float16) => SortOrder::Float,
                Some(LogicalType::Decimal { .. }) => SortOrder::Decimal,
                _ => SortOrder::Bytes,
            },
            // GEOMETRY / GEOGRAPHY: the spec defines no order on WKB bytes.
            Type::BYTE_ARRAY => match logical {
                Some(LogicalType::Geometry { .. } | LogicalType::Geography { .. }) => {
                    SortOrder::Undefined
                }
                _ => SortOrder::Bytes,
            },
            _ => SortOrder::Undefined,
        }
    }
}

/// Min and max of some values, as statistics bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MinMax {
    /// The smallest value.
    pub min: Vec<u8>,
    /// The largest value.
    pub max: Vec<u8>,
}

fn float_bounds<T: Copy + PartialOrd>(
    values: impl Iterator<Item = T>,
    is_nan: impl Fn(T) -> bool,
    is_zero: impl Fn(T) -> bool,
    neg_zero: T,
    pos_zero: T,
) -> Option<(T, T)> {
    let mut bounds: Option<(T, T)> = None;
    for v in values.filter(|&v| !is_nan(v)) {
        bounds = Some(match bounds {
            None => (v, v),
            Some((lo, hi)) => (if v < lo { v } else { lo }, if v > hi { v } else { hi }),
        });
    }
    bounds.map(|(lo, hi)| {
        (
            if is_zero(lo) { neg_zero } else { lo },
            if is_zero(hi) { pos_zero } else { hi },
        )
    })
}

/// Min and max of integers: a plain fold the compiler turns into vector min/max (the
/// generic [`bounds_by`] carries an `Option` through the loop and does not vectorize).
fn int_bounds<T: Copy + Ord>(mut values: impl Iterator<Item = T>) -> Option<(T, T)> {
    let first = values.next()?;
    Some(values.fold((first, first), |(lo, hi), x| (lo.min(x), hi.max(x))))
}

/// [`int_bounds`] of a slice in eight independent lanes: one running fold is a chain of
/// dependent compare-and-selects; eight chains run side by side and vectorise.
fn int_slice_bounds<T: Copy + Ord>(values: &[T]) -> Option<(T, T)> {
    const LANES: usize = 8;
    let first = *values.first()?;
    let mut lo = [first; LANES];
    let mut hi = [first; LANES];
    let chunks = values.chunks_exact(LANES);
    let tail = chunks.remainder();
    for chunk in chunks {
        let chunk: &[T; LANES] = chunk.try_into().expect("chunks_exact");
        lo = std::array::from_fn(|k| lo[k].min(chunk[k]));
        hi = std::array::from_fn(|k| hi[k].max(chunk[k]));
    }
    let (lo, hi) = lo
        .into_iter()
        .zip(hi)
        .fold((first, first), |(l, h), (a, b)| (l.min(a), h.max(b)));
    Some(
        tail.iter()
            .fold((lo, hi), |(l, h), &x| (l.min(x), h.max(x))),
    )
}

/// The IEEE minimum / maximum of a float type (`f32::min`, `f64::max`, ...): of a NaN
/// and a number, the number. Vector min/max instructions with a NaN fix-up, where a
/// compare-and-select compiles to shuffles.
trait Float: Copy + PartialOrd {
    fn min(self, other: Self) -> Self;
    fn max(self, other: Self) -> Self;
}

impl Float for f32 {
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        f32::min(self, other)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        f32::max(self, other)
    }
}

impl Float for f64 {
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        f64::min(self, other)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        f64::max(self, other)
    }
}

/// [`float_bounds`] over a slice, vectorizable: starts from the first non-NaN value, and
/// the IEEE min/max (and `x < lo` / `x > hi` when combining) pass over NaN, so NaNs
/// never become a bound.
fn float_slice_bounds<T: Float>(
    values: &[T],
    is_nan: impl Fn(T) -> bool,
    is_zero: impl Fn(T) -> bool,
    neg_zero: T,
    pos_zero: T,
) -> Option<(T, T)> {
    let first = values.iter().position(|&v| !is_nan(v))?;
    let start = values[first];
    // Eight independent lanes: one running min/max fold is a chain of dependent
    // compares the compiler may not reorder (floats), eight lanes are eight chains it
    // turns into vector min/max. Each lane starts from a non-NaN value and never takes
    // a NaN, so the lanes combine like single values.
    const LANES: usize = 8;
    let mut lo = [start; LANES];
    let mut hi = [start; LANES];
    let rest = &values[first + 1..];
    let chunks = rest.chunks_exact(LANES);
    let tail = chunks.remainder();
    for chunk in chunks {
        let chunk: &[T; LANES] = chunk.try_into().expect("chunks_exact");
        lo = std::array::from_fn(|k| T::min(lo[k], chunk[k]));
        hi = std::array::from_fn(|k| T::max(hi[k], chunk[k]));
    }
    let pick = |(lo, hi): (T, T), x: (T, T)| {
        (
            if x.0 < lo { x.0 } else { lo },
            if x.1 > hi { x.1 } else { hi },
        )
    };
    let lanes = lo.into_iter().zip(hi).fold((start, start), pick);
    let (lo, hi) = tail.iter().map(|&x| (x, x)).fold(lanes, pick);
    Some((
        if is_zero(lo) { neg_zero } else { lo },
        if is_zero(hi) { pos_zero } else { hi },
    ))
}

fn bounds_by<T: Copy>(
    values: impl Iterator<Item = T>,
    cmp: impl Fn(&T, &T) -> Ordering,
) -> Option<(T, T)> {
    let mut bounds: Option<(T, T)> = None;
    for v in values {
        bounds = Some(match bounds {
            None => (v, v),
            Some((lo, hi)) => (
                if cmp(&v, &lo) == Ordering::Less {
                    v
                } else {
                    lo
                },
                if cmp(&v, &hi) == Ordering::Greater {
                    v
                } else {
                    hi
                },
            ),
        });
    }
    bounds
}

/// Min/max of `values` in `order`; `None` when the order is undefined or no value is
/// orderable (empty, or only NaN).
pub(crate) fn min_max(values: &Values, order: SortOrder) -> Option<MinMax> {
    if order == SortOrder::Undefined {
        return None;
    }
    let pack = |lo: Vec<u8>, hi: Vec<u8>| Some(MinMax { min: lo, max: hi });
    match values {
        Values::Bool(v) => {
            if v.is_empty() {
                return None;
            }
            let lo = v.iter().all(|&b| b);
            let hi = v.iter().any(|&b| b);
            pack(vec![u8::from(lo)], vec![u8::from(hi)])
        }
        Values::I32(v) => {
            let (lo, hi) = if order == SortOrder::Unsigned {
                let (lo, hi) = int_bounds(v.iter().map(|&x| x as u32))?;
                (lo as i32, hi as i32)
            } else {
                int_slice_bounds(v)?
            };
            pack(lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec())
        }
        Values::I64(v) => {
            let (lo, hi) = if order == SortOrder::Unsigned {
                let (lo, hi) = int_bounds(v.iter().map(|&x| x as u64))?;
                (lo as i64, hi as i64)
            } else {
                int_slice_bounds(v)?
            };
            pack(lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec())
        }
        Values::F32(v) => {
            let (lo, hi) = float_slice_bounds(v, f32::is_nan, |x| x == 0.0, -0.0, 0.0)?;
            pack(lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec())
        }
        Values::F64(v) => {
            let (lo, hi) = float_slice_bounds(v, f64::is_nan, |x| x == 0.0, -0.0, 0.0)?;
            pack(lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec())
        }
        Values::I96(_) => None,
        Values::Bytes { .. } | Values::Fixed { .. } => {
            if order == SortOrder::Float {
                // FLOAT16 in 2 little-endian bytes.
                let (lo, hi) = float_bounds(
                    values
                        .byte_values()
                        .map(|b| f16::from_le_bytes([b[0], b[1]])),
                    f16::is_nan,
                    |x| x == f16::ZERO,
                    f16::NEG_ZERO,
                    f16::ZERO,
                )?;
                return pack(lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec());
            }
            if let (SortOrder::Bytes, Values::Bytes { offsets, data }) = (order, values) {
                return byte_bounds(offsets, data);
            }
            let (lo, hi) = bounds_by(values.byte_values(), |a, b| compare_bytes(order, a, b))?;
            pack(lo.to_vec(), hi.to_vec())
        }
    }
}

/// The first 8 bytes of `value` as a big-endian number, zero-padded when shorter: a
/// strict `<` / `>` between two keys is the same strict order between the values (the
/// first differing byte decides, and a zero pad is never above a real byte), so only
/// equal keys need the full comparison.
#[inline]
fn prefix_key(value: &[u8]) -> u64 {
    match value.first_chunk::<8>() {
        Some(head) => u64::from_be_bytes(*head),
        None => {
            let mut head = [0u8; 8];
            head[..value.len()].copy_from_slice(value);
            u64::from_be_bytes(head)
        }
    }
}

/// Running bounds of byte arrays in unsigned lexicographic order ([`SortOrder::Bytes`]),
/// fed one value at a time while the values are copied into a page, so that the page's
/// bounds need no second pass over its values.
///
/// Every value between the bounds starts with the bytes the bounds share (URLs, paths,
/// codes with a common stem), so a value that starts with them is placed by the 8 bytes
/// that follow: compared as keys with the bounds' own, without a call to `memcmp`.
/// Values that tie a key, or that do not share the start, are compared in full.
#[derive(Debug, Default, Clone)]
pub(crate) struct ByteBounds {
    min: Vec<u8>,
    max: Vec<u8>,
    /// The whole 8-byte words the bounds start with (native-endian).
    shared: Vec<u64>,
    /// Prefix keys of the bounds' bytes after `shared`.
    min_key: u64,
    max_key: u64,
    any: bool,
}

impl ByteBounds {
    /// Takes `value` into the bounds.
    #[inline]
    pub fn update(&mut self, value: &[u8]) {
        if let Some(rest) = self.after_shared(value) {
            let key = prefix_key(rest);
            if key > self.min_key && key < self.max_key {
                return;
            }
        }
        self.update_in_full(value);
    }

    /// `value` past the bounds' shared words, if it starts with them.
    #[inline]
    fn after_shared<'v>(&self, value: &'v [u8]) -> Option<&'v [u8]> {
        let (head, rest) = value.split_at_checked(8 * self.shared.len())?;
        head.chunks_exact(8)
            .zip(&self.shared)
            .all(|(word, shared)| {
                word.first_chunk::<8>()
                    .is_some_and(|w| u64::from_ne_bytes(*w) == *shared)
            })
            .then_some(rest)
    }

    fn update_in_full(&mut self, value: &[u8]) {
        if !self.any {
            self.any = true;
            self.min.extend_from_slice(value);
            self.max.extend_from_slice(value);
        } else if value < self.min.as_slice() {
            self.min.clear();
            self.min.extend_from_slice(value);
        } else if value > self.max.as_slice() {
            self.max.clear();
            self.max.extend_from_slice(value);
        } else {
            return;
        }
        let common = self
            .min
            .iter()
            .zip(&self.max)
            .take_while(|(a, b)| a == b)
            .count();
        self.shared.clear();
        self.shared.extend(
            self.min[..common - common % 8]
                .chunks_exact(8)
                .filter_map(|w| w.first_chunk::<8>().map(|w| u64::from_ne_bytes(*w))),
        );
        let at = 8 * self.shared.len();
        self.min_key = prefix_key(&self.min[at..]);
        self.max_key = prefix_key(&self.max[at..]);
    }

    /// The bounds so far (`None` before the first value), and empty bounds for the next
    /// page.
    pub fn take(&mut self) -> Option<MinMax> {
        if !std::mem::take(&mut self.any) {
            return None;
        }
        self.shared.clear();
        (self.min_key, self.max_key) = (0, 0);
        Some(MinMax {
            min: std::mem::take(&mut self.min),
            max: std::mem::take(&mut self.max),
        })
    }
}

/// Min and max of byte arrays in unsigned lexicographic order, over the values between
/// consecutive `offsets` into `data`.
fn byte_bounds(offsets: &[usize], data: &[u8]) -> Option<MinMax> {
    let mut bounds = ByteBounds::default();
    for w in offsets.windows(2) {
        bounds.update(&data[w[0]..w[1]]);
    }
    bounds.take()
}

fn compare_bytes(order: SortOrder, a: &[u8], b: &[u8]) -> Ordering {
    if order == SortOrder::Decimal && !a.is_empty() && !b.is_empty() {
        let sign = (a[0] as i8).cmp(&(b[0] as i8));
        // Same width: after the sign byte, unsigned comparison.
        return sign.then_with(|| a[1..].cmp(&b[1..]));
    }
    a.cmp(b)
}

/// Compares two statistics values of a column of `physical` type in `order`.
pub(crate) fn compare(physical: Type, order: SortOrder, a: &[u8], b: &[u8]) -> Ordering {
    fn arr<const N: usize>(s: &[u8]) -> [u8; N] {
        let mut out = [0u8; N];
        let n = s.len().min(N);
        out[..n].copy_from_slice(&s[..n]);
        out
    }
    match (physical, order) {
        (Type::INT32, SortOrder::Unsigned) => {
            u32::from_le_bytes(arr(a)).cmp(&u32::from_le_bytes(arr(b)))
        }
        (Type::INT32, _) => i32::from_le_bytes(arr(a)).cmp(&i32::from_le_bytes(arr(b))),
        (Type::INT64, SortOrder::Unsigned) => {
            u64::from_le_bytes(arr(a)).cmp(&u64::from_le_bytes(arr(b)))
        }
        (Type::INT64, _) => i64::from_le_bytes(arr(a)).cmp(&i64::from_le_bytes(arr(b))),
        (Type::FLOAT, _) => f32::from_le_bytes(arr(a)).total_cmp(&f32::from_le_bytes(arr(b))),
        (Type::DOUBLE, _) => f64::from_le_bytes(arr(a)).total_cmp(&f64::from_le_bytes(arr(b))),
        (Type::FIXED_LEN_BYTE_ARRAY, SortOrder::Float) => {
            f16::from_le_bytes(arr(a)).total_cmp(&f16::from_le_bytes(arr(b)))
        }
        _ => compare_bytes(order, a, b),
    }
}

/// Merges `other` into `acc` (the bounds of both).
pub(crate) fn merge(physical: Type, order: SortOrder, acc: &mut Option<MinMax>, other: &MinMax) {
    match acc {
        None => *acc = Some(other.clone()),
        Some(acc) => {
            if compare(physical, order, &other.min, &acc.min) == Ordering::Less {
                acc.min = other.min.clone();
            }
            if compare(physical, order, &other.max, &acc.max) == Ordering::Greater {
                acc.max = other.max.clone();
            }
        }
    }
}

/// How the bounds of one column are compared and written: its physical type and sort
/// order, and how byte array bounds are truncated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BoundsFormat {
    /// Physical type of the column.
    pub physical: Type,
    /// Sort order of its values.
    pub order: SortOrder,
    /// Length byte array bounds are cut to (`None`: kept whole).
    pub truncate: Option<usize>,
    /// The bytes are UTF-8 text (truncation cuts at a character boundary).
    pub is_text: bool,
}

impl BoundsFormat {
    /// Compares two bounds of this column.
    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        compare(self.physical, self.order, a, b)
    }

    /// Merges `other` into `acc` (the bounds of both).
    pub fn merge(&self, acc: &mut Option<MinMax>, other: &MinMax) {
        merge(self.physical, self.order, acc, other)
    }

    /// The bounds as written: byte arrays truncated (the minimum cut, the maximum cut
    /// and incremented), with whether each is exact.
    pub fn truncated(&self, mm: &MinMax) -> (Vec<u8>, bool, Vec<u8>, bool) {
        match self.truncate {
            Some(len) if self.physical == Type::BYTE_ARRAY => {
                let (min, min_exact) = truncate_min(&mm.min, len, self.is_text);
                let (max, max_exact) = truncate_max(&mm.max, len, self.is_text);
                (min, min_exact, max, max_exact)
            }
            _ => (mm.min.clone(), true, mm.max.clone(), true),
        }
    }

    /// Thrift statistics from bounds (truncated) and a null count.
    pub fn statistics(&self, min_max: Option<&MinMax>, null_count: i64) -> Statistics {
        let mut stats = Statistics {
            null_count: Some(null_count),
            ..Statistics::default()
        };
        if let Some(mm) = min_max {
            let (min, min_exact, max, max_exact) = self.truncated(mm);
            stats.min_value = Some(min.into());
            stats.max_value = Some(max.into());
            stats.is_min_value_exact = Some(min_exact);
            stats.is_max_value_exact = Some(max_exact);
        }
        stats
    }
}

/// Bounds of a dictionary page's values from the dictionary entries its `indices` use:
/// the minimum and maximum over the distinct values equal those over all values, and a
/// page of 20,000 values often uses only a few hundred entries. Each used entry is
/// marked once, then the marked entries are gathered (in dictionary order) and bounded.
pub(crate) fn dictionary_min_max(
    dictionary: &Values,
    indices: &[u32],
    order: SortOrder,
) -> Option<MinMax> {
    let len = dictionary.len();
    let mut distinct = Values::empty_like(dictionary);
    if len <= indices.len() * 4 {
        let mut used = vec![false; len];
        for &i in indices {
            if let Some(u) = used.get_mut(i as usize) {
                *u = true;
            }
        }
        let mut i = 0;
        while i < len {
            if used[i] {
                let start = i;
                while i < len && used[i] {
                    i += 1;
                }
                distinct.extend_range(dictionary, start, i);
            } else {
                i += 1;
            }
        }
    } else {
        // A large dictionary and a small page: the page's own values.
        for &i in indices {
            let i = i as usize;
            if i < len {
                distinct.extend_range(dictionary, i, i + 1);
            }
        }
    }
    min_max(&distinct, order)
}

/// `min` cut to at most `len` bytes (at a character boundary for text): still a lower
/// bound. Returns the bytes and whether they are exact.
pub(crate) fn truncate_min(min: &[u8], len: usize, is_text: bool) -> (Vec<u8>, bool) {
    if min.len() <= len {
        return (min.to_vec(), true);
    }
    let cut = if is_text {
        text_boundary(min, len)
    } else {
        len
    };
    (min[..cut].to_vec(), false)
}

/// `max` cut to at most `len` bytes and incremented so it is still an upper bound; the
/// whole value when no shorter upper bound exists (all `0xFF` bytes, say).
pub(crate) fn truncate_max(max: &[u8], len: usize, is_text: bool) -> (Vec<u8>, bool) {
    if max.len() <= len {
        return (max.to_vec(), true);
    }
    if is_text && let Ok(text) = std::str::from_utf8(max) {
        let cut = text_boundary(max, len);
        let mut prefix: Vec<char> = text[..cut].chars().collect();
        while let Some(last) = prefix.pop() {
            if let Some(next) = next_char(last) {
                prefix.push(next);
                let s: String = prefix.into_iter().collect();
                if s.len() <= len {
                    return (s.into_bytes(), false);
                }
                return (max.to_vec(), true);
            }
        }
        return (max.to_vec(), true);
    }
    let mut prefix = max[..len].to_vec();
    while let Some(last) = prefix.pop() {
        if last < 0xff {
            prefix.push(last + 1);
            return (prefix, false);
        }
    }
    (max.to_vec(), true)
}

fn text_boundary(bytes: &[u8], len: usize) -> usize {
    let mut cut = len.min(bytes.len());
    // A UTF-8 continuation byte is 0b10xx_xxxx: back off to the start of its character.
    while cut > 0 && cut < bytes.len() && (bytes[cut] & 0xc0) == 0x80 {
        cut -= 1;
    }
    cut
}

fn next_char(c: char) -> Option<char> {
    let mut code = c as u32 + 1;
    while code <= char::MAX as u32 {
        if let Some(next) = char::from_u32(code) {
            return Some(next);
        }
        code += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Values drawn from a few stems (so bounds share from none to over 30 bytes and
        /// keys tie), with tails of zero bytes and values shorter than the stems: the
        /// running bounds equal the plain minimum and maximum, page after page.
        #[test]
        fn byte_bounds_equal_the_plain_min_and_max(
            pages in proptest::collection::vec(
                proptest::collection::vec(
                    (0usize..5, proptest::collection::vec(
                        proptest::sample::select(vec![0u8, 1, b'a', b'b', 0xff]), 0..12)),
                    0..40,
                ),
                1..4,
            )
        ) {
            let stems: [&[u8]; 5] = [
                b"",
                b"https://www.site",
                b"https://www.site0.example.com/",
                b"category-",
                b"https://www.sitf",
            ];
            let mut bounds = ByteBounds::default();
            for page in pages {
                let values: Vec<Vec<u8>> = page
                    .iter()
                    .map(|(stem, tail)| [stems[*stem], tail.as_slice()].concat())
                    .collect();
                for v in &values {
                    bounds.update(v);
                }
                let want = values.iter().min().map(|min| MinMax {
                    min: min.clone(),
                    max: values.iter().max().cloned().unwrap_or_default(),
                });
                proptest::prop_assert_eq!(bounds.take(), want);
            }
        }
    }

    #[test]
    fn lane_bounds_of_integers_equal_one_fold() {
        assert_eq!(int_slice_bounds::<i64>(&[]), None);
        // Every length around the lane width, the extremes at every position.
        for len in 1..40usize {
            for at in 0..len {
                let mut v: Vec<i64> = (0..len as i64).map(|i| (i * 7919) % 101 - 50).collect();
                v[at] = i64::MIN;
                v[(at + 3) % len] = i64::MAX;
                let want = int_bounds(v.iter().copied());
                assert_eq!(int_slice_bounds(&v), want, "len {len} at {at}");
                let w: Vec<i32> = v.iter().map(|&x| x.clamp(-9, 9) as i32).collect();
                assert_eq!(int_slice_bounds(&w), int_bounds(w.iter().copied()));
            }
        }
    }

    #[test]
    fn float_zero_rules_and_nan() {
        let v = Values::F64(vec![f64::NAN, 0.0, -0.0, f64::NAN]);
        let mm = min_max(&v, SortOrder::Float).unwrap();
        assert_eq!(mm.min, (-0.0f64).to_le_bytes());
        assert_eq!(mm.max, 0.0f64.to_le_bytes());
        assert_eq!(
            min_max(&Values::F32(vec![f32::NAN]), SortOrder::Float),
            None
        );
    }

    #[test]
    fn float_lanes_match_a_plain_fold() {
        // Long slices (the eight-lane loop and its tail) with NaNs in some lanes from
        // the start, zeros of both signs, infinities; each compared with a one-value-
        // at-a-time fold.
        let specials = [f64::NAN, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY];
        for len in [1usize, 7, 8, 9, 16, 17, 63, 64, 1000] {
            for seed in 0..6u64 {
                let v: Vec<f64> = (0..len as u64)
                    .map(|i| {
                        let k = (i * 2654435761 + seed * 97) % 1009;
                        if k % 13 == seed % 13 || (i % 8 == seed && i < 40) {
                            specials[(k as usize) % specials.len()]
                        } else {
                            (k as f64 - 500.0) / 3.0
                        }
                    })
                    .collect();
                let plain = v
                    .iter()
                    .copied()
                    .filter(|x| !x.is_nan())
                    .fold(None, |b, x| {
                        Some(match b {
                            None => (x, x),
                            Some((lo, hi)) => {
                                (if x < lo { x } else { lo }, if x > hi { x } else { hi })
                            }
                        })
                    });
                let expected = plain.map(|(lo, hi)| {
                    (
                        if lo == 0.0 { -0.0 } else { lo },
                        if hi == 0.0 { 0.0 } else { hi },
                    )
                });
                let got = float_slice_bounds(&v, f64::is_nan, |x| x == 0.0, -0.0, 0.0);
                assert_eq!(
                    got.map(|(a, b)| (a.to_bits(), b.to_bits())),
                    expected.map(|(a, b)| (a.to_bits(), b.to_bits())),
                    "len {len} seed {seed}"
                );
                let v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
                let got = float_slice_bounds(&v32, f32::is_nan, |x| x == 0.0, -0.0, 0.0);
                assert_eq!(
                    got.map(|(a, b)| (a.to_bits(), b.to_bits())),
                    expected.map(|(a, b)| ((a as f32).to_bits(), (b as f32).to_bits())),
                    "f32 len {len} seed {seed}"
                );
            }
        }
    }

    #[test]
    fn float_bounds_skip_nan_anywhere() {
        // NaN before, between and after the numbers; a lone value; infinities.
        let v = Values::F32(vec![f32::NAN, 3.5, f32::NAN, -2.0, 7.25, f32::NAN]);
        let mm = min_max(&v, SortOrder::Float).unwrap();
        assert_eq!(mm.min, (-2.0f32).to_le_bytes());
        assert_eq!(mm.max, 7.25f32.to_le_bytes());
        let v = Values::F64(vec![f64::NAN, f64::NAN, 1.0]);
        let mm = min_max(&v, SortOrder::Float).unwrap();
        assert_eq!(
            (mm.min, mm.max),
            (1.0f64.to_le_bytes().to_vec(), 1.0f64.to_le_bytes().to_vec())
        );
        let v = Values::F64(vec![f64::INFINITY, -1.0, f64::NEG_INFINITY]);
        let mm = min_max(&v, SortOrder::Float).unwrap();
        assert_eq!(mm.min, f64::NEG_INFINITY.to_le_bytes());
        assert_eq!(mm.max, f64::INFINITY.to_le_bytes());
        // A zero bound is written as -0.0 (min) / +0.0 (max) whichever zero was seen.
        let mm = min_max(&Values::F32(vec![0.0, 1.0]), SortOrder::Float).unwrap();
        assert_eq!(mm.min, (-0.0f32).to_le_bytes());
        let mm = min_max(&Values::F32(vec![-0.0, -1.0]), SortOrder::Float).unwrap();
        assert_eq!(mm.max, 0.0f32.to_le_bytes());
        assert_eq!(min_max(&Values::F64(Vec::new()), SortOrder::Float), None);
    }

    #[test]
    fn integer_bounds() {
        let v = Values::I64(vec![5, i64::MIN, 9, i64::MAX, -3]);
        let mm = min_max(&v, SortOrder::Signed).unwrap();
        assert_eq!(mm.min, i64::MIN.to_le_bytes());
        assert_eq!(mm.max, i64::MAX.to_le_bytes());
        let mm = min_max(&v, SortOrder::Unsigned).unwrap();
        assert_eq!(mm.min, 5i64.to_le_bytes());
        assert_eq!(mm.max, (-3i64).to_le_bytes());
        let mm = min_max(&Values::I32(vec![42]), SortOrder::Signed).unwrap();
        assert_eq!(
            (mm.min, mm.max),
            (42i32.to_le_bytes().to_vec(), 42i32.to_le_bytes().to_vec())
        );
        assert_eq!(min_max(&Values::I32(Vec::new()), SortOrder::Signed), None);
    }

    #[test]
    fn unsigned_order() {
        let v = Values::I32(vec![-1, 5]);
        let mm = min_max(&v, SortOrder::Unsigned).unwrap();
        assert_eq!(mm.min, 5i32.to_le_bytes());
        assert_eq!(mm.max, (-1i32).to_le_bytes());
    }

    #[test]
    fn truncation_keeps_bounds() {
        assert_eq!(truncate_min(b"abcdef", 3, false), (b"abc".to_vec(), false));
        assert_eq!(truncate_max(b"abcdef", 3, false), (b"abd".to_vec(), false));
        assert_eq!(
            truncate_max(&[0x61, 0xff, 0xff, 0x00], 3, false),
            (vec![0x62], false)
        );
        assert_eq!(
            truncate_max(&[0xff, 0xff, 0xff, 0x00], 3, false),
            (vec![0xff, 0xff, 0xff, 0x00], true)
        );
        // "é" is 2 bytes: cut before it, then bump the previous character.
        let (max, exact) = truncate_max("aé€".as_bytes(), 2, true);
        assert_eq!((max.as_slice(), exact), ("b".as_bytes(), false));
        let (min, _) = truncate_min("aé€".as_bytes(), 2, true);
        assert_eq!(min, b"a");
    }

    #[test]
    fn decimal_order_is_signed() {
        let v = Values::Fixed {
            width: 2,
            data: vec![0xff, 0xfe, 0x00, 0x05, 0x80, 0x00],
        };
        let mm = min_max(&v, SortOrder::Decimal).unwrap();
        assert_eq!(mm.min, vec![0x80, 0x00]);
        assert_eq!(mm.max, vec![0x00, 0x05]);
    }
}
