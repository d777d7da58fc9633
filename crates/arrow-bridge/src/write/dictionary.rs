//! The dictionary of one column chunk: distinct values in insertion order and an
//! open-addressing hash table from value to dictionary index.
//!
//! Why not `std::collections::HashMap`: the map would hold a second copy of every
//! distinct byte array (its keys) next to the dictionary's own values, and the per-value
//! work is a generic entry lookup behind a `match` on the value type. Here the table
//! holds only `u32` indices into the dictionary (in buckets of eight, each with a word of
//! one-byte hash tags) plus one 64-bit hash per entry, keys are compared against the
//! dictionary's own values, and each physical type has its own loop.
//!
//! Numbers are keyed by their bit patterns (floats by `to_bits`, so `-0.0` and `0.0`,
//! and NaNs with different payloads, are distinct entries, as PLAIN would write them).
//! Their hash is a bijection of the 64-bit key (the murmur3 finalizer), so equal hashes
//! mean equal keys and a probe compares hashes only.

use super::values::Values;

/// murmur3's 64-bit finalizer: a bijection on `u64` that spreads every input bit over
/// the low bits the table indexes by.
#[inline]
fn mix(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// Constants of the hash of byte arrays (wyhash's secrets: odd, with well spread bits).
const K0: u64 = 0xa076_1d64_78bd_642f;
const K1: u64 = 0xe703_7ed1_a0b4_28db;
const K2: u64 = 0x8ebc_6af0_9c88_c6e3;

/// The 128-bit product of `a` and `b` folded to 64 bits (low half xor high half): one
/// multiplication that mixes every input bit into every output bit.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

#[inline(always)]
fn read8(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

#[inline(always)]
fn read4(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u64::from(u32::from_le_bytes(word))
}

/// Hash of a byte array, after wyhash: up to 16 bytes are read as two (overlapping)
/// words, which with the length determine the value, and mixed by one folded
/// multiplication; longer values fold 16 bytes per step. A dictionary value of a few
/// dozen bytes costs one to three multiplications instead of a dependent chain per 8
/// bytes plus a finalizer. The data is the caller's own, so flooding resistance (what
/// SipHash buys) is not needed; every byte takes part, so values that differ anywhere
/// rarely collide.
#[inline]
fn hash_bytes(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    let (a, b) = if len <= 16 {
        if len >= 8 {
            (read8(bytes, 0), read8(bytes, len - 8))
        } else if len >= 4 {
            (read4(bytes, 0), read4(bytes, len - 4))
        } else if len > 0 {
            let packed = (u64::from(bytes[0]) << 16)
                | (u64::from(bytes[len / 2]) << 8)
                | u64::from(bytes[len - 1]);
            (packed, 0)
        } else {
            (0, 0)
        }
    } else {
        let mut h = K2;
        let mut at = 0;
        while len - at > 16 {
            h = fold(read8(bytes, at) ^ K0, read8(bytes, at + 8) ^ h);
            at += 16;
        }
        // The last 16 bytes (overlapping the previous step when the length is not a
        // multiple of 16).
        (read8(bytes, len - 16) ^ h, read8(bytes, len - 8))
    };
    fold(a ^ K0, b ^ K1 ^ (len as u64))
}

/// Byte array equality; values of 4 to 16 bytes are compared as two (overlapping)
/// words (the common dictionary entry) without a call to `memcmp`.
#[inline(always)]
fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    let len = a.len();
    if len != b.len() {
        return false;
    }
    if (8..=16).contains(&len) {
        return read8(a, 0) == read8(b, 0) && read8(a, len - 8) == read8(b, len - 8);
    }
    if (4..8).contains(&len) {
        return read4(a, 0) == read4(b, 0) && read4(a, len - 4) == read4(b, len - 4);
    }
    a == b
}

/// A value boundary in a byte array's offsets: Arrow's `i32` / `i64` offsets (never
/// negative in a valid array) or the writer's own `usize` ones.
pub(crate) trait ByteOffset: Copy {
    /// The offset as an index.
    fn to_usize(self) -> usize;
}

impl ByteOffset for usize {
    #[inline(always)]
    fn to_usize(self) -> usize {
        self
    }
}

impl ByteOffset for i32 {
    #[inline(always)]
    fn to_usize(self) -> usize {
        self as usize
    }
}

impl ByteOffset for i64 {
    #[inline(always)]
    fn to_usize(self) -> usize {
        self as usize
    }
}

/// Slots per bucket: eight one-byte tags in one word, and eight entry indices.
const BUCKET: usize = 8;

/// The low bit of every byte of a word.
const LOWS: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte of a word.
const HIGHS: u64 = 0x8080_8080_8080_8080;
/// Tag byte of an empty slot; a real tag has its top bit clear (see [`tag_of`]).
const EMPTY: u8 = 0x80;

/// Eight slots in one cache line: their tags (7 bits of each entry's hash) as the bytes
/// of one word, so a lookup compares all eight at once with a few word operations, and
/// the entry indices beside them.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct Bucket {
    tags: u64,
    entries: [u32; BUCKET],
}

const EMPTY_BUCKET: Bucket = Bucket {
    tags: LOWS * EMPTY as u64,
    entries: [0; BUCKET],
};

/// The bits of `hash` a slot keeps: 7 of the high bits (the bucket comes from the low
/// bits), so no tag equals [`EMPTY`].
#[inline(always)]
fn tag_of(hash: u64) -> u8 {
    (hash >> 57) as u8
}

/// The high bit of byte `i` set where tag byte `i` of `tags` may equal `tag`: a zero
/// byte test on `tags ^ tag`. The test can also flag the byte above a true match (a
/// borrow), never misses one; every candidate is confirmed against the entry's hash.
#[inline(always)]
fn candidates(tags: u64, tag: u8) -> u64 {
    let x = tags ^ (LOWS * u64::from(tag));
    x.wrapping_sub(LOWS) & !x & HIGHS
}

/// The high bit of byte `i` set where slot `i` is empty.
#[inline(always)]
fn empties(tags: u64) -> u64 {
    tags & HIGHS
}

/// Slot of the lowest flagged byte of a [`candidates`] / [`empties`] mask.
#[inline(always)]
fn first_slot(mask: u64) -> usize {
    (mask.trailing_zeros() / 8) as usize
}

/// Open addressing over buckets of eight slots, probed bucket after bucket, at most half
/// full. Why buckets: with one slot per probe, whether the first slot holds the key is a
/// coin the branch predictor loses a good share of the time (linear probing at half load
/// needs 1.5 probes on average); a key is almost always in its home bucket, found by one
/// tag comparison over the whole bucket and one check of the candidate entry.
#[derive(Debug, Default)]
struct Table {
    buckets: Vec<Bucket>,
    /// Hash of every entry, by entry index (to confirm a tag match, and to grow).
    hashes: Vec<u64>,
}

impl Table {
    /// The entry whose hash is `hash` and for which `eq` holds, else a new entry
    /// (`len()` before the call) with `true`.
    #[inline]
    fn find_or_insert(&mut self, hash: u64, eq: impl Fn(u32) -> bool) -> (u32, bool) {
        if self.buckets.is_empty() {
            self.grow();
        }
        let tag = tag_of(hash);
        let mask = self.buckets.len() - 1;
        let mut pos = hash as usize & mask;
        loop {
            let bucket = &self.buckets[pos];
            let mut found = candidates(bucket.tags, tag);
            while found != 0 {
                let entry = bucket.entries[first_slot(found)];
                if self.hashes.get(entry as usize) == Some(&hash) && eq(entry) {
                    return (entry, false);
                }
                found &= found - 1;
            }
            // Buckets fill from slot 0 and entries are never removed: an empty slot
            // means the key is in no later bucket either.
            let empty = empties(bucket.tags);
            if empty != 0 {
                let index = self.hashes.len() as u32;
                let slot = first_slot(empty);
                let bucket = &mut self.buckets[pos];
                bucket.tags ^= u64::from(EMPTY ^ tag) << (slot * 8);
                bucket.entries[slot] = index;
                self.hashes.push(hash);
                if self.hashes.len() * 2 > self.buckets.len() * BUCKET {
                    self.grow();
                }
                return (index, true);
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Removes every entry, keeping the buckets.
    fn clear(&mut self) {
        self.buckets.fill(EMPTY_BUCKET);
        self.hashes.clear();
    }

    /// Doubles the buckets (eight at first) and places every entry again from its hash.
    fn grow(&mut self) {
        let size = (self.buckets.len() * 2).max(8);
        let mask = size - 1;
        let mut buckets = vec![EMPTY_BUCKET; size];
        for (index, &hash) in self.hashes.iter().enumerate() {
            let mut pos = hash as usize & mask;
            loop {
                let bucket = &mut buckets[pos];
                let empty = empties(bucket.tags);
                if empty != 0 {
                    let slot = first_slot(empty);
                    bucket.tags ^= u64::from(EMPTY ^ tag_of(hash)) << (slot * 8);
                    bucket.entries[slot] = index as u32;
                    break;
                }
                pos = (pos + 1) & mask;
            }
        }
        self.buckets = buckets;
    }
}

/// Distinct values of one column chunk in insertion order, with their lookup table.
#[derive(Debug)]
pub(crate) struct Dictionary {
    table: Table,
    /// The distinct values; a value's dictionary index is its position here.
    pub values: Values,
}

impl Dictionary {
    /// An empty dictionary for values shaped like `empty` (an empty [`Values`]).
    pub fn new(empty: Values) -> Self {
        Self {
            table: Table::default(),
            values: empty,
        }
    }

    /// Removes every entry, keeping the buffers for the next column chunk.
    pub fn clear(&mut self) {
        self.table.clear();
        self.values.clear();
    }

    /// Dictionary index of a number keyed by its 64-bit pattern; `push` appends the
    /// value to `self.values` when it is new.
    #[inline]
    fn number(&mut self, key: u64, push: impl FnOnce(&mut Values)) -> u32 {
        // `mix` is a bijection: equal hashes are equal keys.
        let (index, new) = self.table.find_or_insert(mix(key), |_| true);
        if new {
            push(&mut self.values);
        }
        index
    }

    /// Dictionary index of a byte string (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY or INT96
    /// bytes), appended when new.
    #[inline]
    fn bytes(&mut self, value: &[u8]) -> u32 {
        let values = &self.values;
        let (index, new) = self.table.find_or_insert(hash_bytes(value), |e| {
            bytes_eq(values.bytes_at(e as usize), value)
        });
        if new {
            self.values.push_bytes(value);
        }
        index
    }

    /// Looks up (adding as needed) the BYTE_ARRAY values `start..end` of Arrow offsets
    /// and data, and appends their dictionary indices to `out`: straight from the Arrow
    /// buffers.
    pub fn insert_byte_run<O: ByteOffset>(
        &mut self,
        offsets: &[O],
        data: &[u8],
        start: usize,
        end: usize,
        out: &mut Vec<u32>,
    ) {
        out.reserve(end.saturating_sub(start));
        self.insert_byte_values(
            offsets[start..=end]
                .windows(2)
                .map(|w| &data[w[0].to_usize()..w[1].to_usize()]),
            out,
        );
    }

    /// Looks up (adding as needed) byte array values and appends their dictionary
    /// indices to `out`, with the dictionary's own offsets and bytes borrowed once for
    /// all of them.
    pub fn insert_byte_values<'v>(
        &mut self,
        values: impl Iterator<Item = &'v [u8]>,
        out: &mut Vec<u32>,
    ) {
        let Values::Bytes {
            offsets: dict_offsets,
            data: dict_data,
        } = &mut self.values
        else {
            // Not a BYTE_ARRAY dictionary: one value at a time through `bytes`.
            for value in values {
                let index = self.bytes(value);
                out.push(index);
            }
            return;
        };
        for value in values {
            let (index, new) = self.table.find_or_insert(hash_bytes(value), |e| {
                let e = e as usize;
                bytes_eq(&dict_data[dict_offsets[e]..dict_offsets[e + 1]], value)
            });
            if new {
                dict_data.extend_from_slice(value);
                dict_offsets.push(dict_data.len());
            }
            out.push(index);
        }
    }

    /// Looks up (adding as needed) values `start..end` of `values` (the dictionary's
    /// variant) and appends their dictionary indices to `out`.
    pub fn insert_range(&mut self, values: &Values, start: usize, end: usize, out: &mut Vec<u32>) {
        out.reserve(end.saturating_sub(start));
        macro_rules! numbers {
            ($v:expr, $variant:ident, $key:expr) => {
                for &x in &$v[start..end] {
                    let index = self.number($key(x), |d| {
                        if let Values::$variant(d) = d {
                            d.push(x)
                        }
                    });
                    out.push(index);
                }
            };
        }
        match values {
            Values::I32(v) => numbers!(v, I32, |x: i32| u64::from(x as u32)),
            Values::I64(v) => numbers!(v, I64, |x: i64| x as u64),
            Values::F32(v) => numbers!(v, F32, |x: f32| u64::from(x.to_bits())),
            Values::F64(v) => numbers!(v, F64, |x: f64| x.to_bits()),
            Values::Bool(v) => numbers!(v, Bool, u64::from),
            Values::Bytes { offsets, data } => {
                self.insert_byte_run(offsets, data, start, end, out);
            }
            Values::Fixed { .. } | Values::I96(_) => {
                for i in start..end {
                    let index = self.bytes(values.bytes_at(i));
                    out.push(index);
                }
            }
        }
    }

    /// Dictionary index of value `i` of `values`, added when new.
    pub fn insert(&mut self, values: &Values, i: usize) -> u32 {
        let mut out = Vec::with_capacity(1);
        self.insert_range(values, i, i + 1, &mut out);
        out[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indices(dict: &mut Dictionary, values: &Values) -> Vec<u32> {
        let mut out = Vec::new();
        dict.insert_range(values, 0, values.len(), &mut out);
        out
    }

    #[test]
    fn integers_in_insertion_order_through_growth() {
        // 10,000 distinct values force several doublings of the table.
        let values: Vec<i64> = (0..10_000).map(|i| (i * 7919) % 10_007 - 5_000).collect();
        let mut dict = Dictionary::new(Values::I64(Vec::new()));
        let first = indices(&mut dict, &Values::I64(values.clone()));
        assert_eq!(first, (0..10_000).collect::<Vec<u32>>());
        assert_eq!(dict.values, Values::I64(values.clone()));
        // Every value again, reversed: the same indices, nothing added.
        let reversed: Vec<i64> = values.iter().rev().copied().collect();
        let again = indices(&mut dict, &Values::I64(reversed));
        assert_eq!(again, (0..10_000).rev().collect::<Vec<u32>>());
        assert_eq!(dict.values.len(), 10_000);
    }

    #[test]
    fn colliding_slots_keep_keys_apart() {
        // Keys that share the low bits of their position in a small table: the probe
        // must walk past occupied slots and still tell the keys apart.
        let mut dict = Dictionary::new(Values::I32(Vec::new()));
        let keys: Vec<i32> = (0..40).map(|i| i << 20).collect();
        let mut twice = keys.clone();
        twice.extend(&keys);
        let got = indices(&mut dict, &Values::I32(twice));
        let expected: Vec<u32> = (0..40).chain(0..40).collect();
        assert_eq!(got, expected);
        // Force full collisions in the table itself: same home slot for every entry.
        let mut table = Table::default();
        for i in 0..50u32 {
            let (index, new) = table.find_or_insert(0xABC0_0000_0000_0000, |e| e == i);
            assert!(new);
            assert_eq!(index, i);
        }
        for i in 0..50u32 {
            let (index, new) = table.find_or_insert(0xABC0_0000_0000_0000, |e| e == i);
            assert!(!new);
            assert_eq!(index, i);
        }
    }

    #[test]
    fn tag_candidates_never_miss() {
        // Every tag against words holding it at each position, next to neighbours that
        // differ by one (where the zero-byte test's borrow can flag extra bytes).
        for tag in 0..0x80u8 {
            for slot in 0..BUCKET {
                let mut bytes = [tag.wrapping_add(1) & 0x7f; BUCKET];
                bytes[slot] = tag;
                if slot + 1 < BUCKET {
                    bytes[slot + 1] = tag ^ 1;
                }
                let word = u64::from_le_bytes(bytes);
                let found = candidates(word, tag);
                assert_ne!(found & (0x80 << (slot * 8)), 0, "tag {tag} slot {slot}");
                // Candidates below the first true match are impossible.
                assert_eq!(first_slot(found), slot, "tag {tag} slot {slot}");
            }
        }
        assert_eq!(empties(EMPTY_BUCKET.tags).count_ones(), BUCKET as u32);
        assert_eq!(candidates(EMPTY_BUCKET.tags, 0x7f), 0);
    }

    #[test]
    fn same_tag_and_bucket_different_hashes() {
        // Hashes with equal low bits (same home bucket) and equal top 7 bits (same tag)
        // but different in between: told apart by the stored hashes, not by `eq`.
        let mut table = Table::default();
        let hash = |i: u64| (0x55 << 57) | (i << 20) | 3;
        for i in 0..100u64 {
            assert_eq!(table.find_or_insert(hash(i), |_| true), (i as u32, true));
        }
        for i in (0..100u64).rev() {
            assert_eq!(table.find_or_insert(hash(i), |_| true), (i as u32, false));
        }
        assert_eq!(table.hashes.len(), 100);
    }

    #[test]
    fn many_distinct_numbers() {
        // 300,000 distinct values (a dictionary that outgrows any cache level), each
        // seen three times in a scrambled order.
        let distinct: Vec<i64> = (0..300_000i64)
            .map(|i| i * 0x9E37_79B9 - (i << 40))
            .collect();
        let mut dict = Dictionary::new(Values::I64(Vec::new()));
        let first = indices(&mut dict, &Values::I64(distinct.clone()));
        assert_eq!(first, (0..300_000).collect::<Vec<u32>>());
        let order: Vec<usize> = (0..900_000usize).map(|i| (i * 7_919) % 300_000).collect();
        let again: Vec<i64> = order.iter().map(|&i| distinct[i]).collect();
        let got = indices(&mut dict, &Values::I64(again));
        assert_eq!(got, order.iter().map(|&i| i as u32).collect::<Vec<u32>>());
        assert_eq!(dict.values, Values::I64(distinct));
    }

    #[test]
    fn float_keys_are_bit_patterns() {
        let nan_a = f64::from_bits(0x7ff8_0000_0000_0001);
        let nan_b = f64::from_bits(0x7ff8_0000_0000_0002);
        let values = vec![0.0, -0.0, nan_a, nan_b, 0.0, -0.0, nan_a, f64::NAN, 1.5];
        let mut dict = Dictionary::new(Values::F64(Vec::new()));
        let got = indices(&mut dict, &Values::F64(values));
        assert_eq!(got, vec![0, 1, 2, 3, 0, 1, 2, 4, 5]);
        let Values::F64(stored) = &dict.values else {
            panic!("f64 dictionary")
        };
        let bits: Vec<u64> = stored.iter().map(|x| x.to_bits()).collect();
        assert_eq!(
            bits,
            vec![
                0,
                (-0.0f64).to_bits(),
                nan_a.to_bits(),
                nan_b.to_bits(),
                f64::NAN.to_bits(),
                1.5f64.to_bits()
            ]
        );

        let values32 = vec![-0.0f32, 0.0, f32::NAN, -0.0];
        let mut dict = Dictionary::new(Values::F32(Vec::new()));
        assert_eq!(indices(&mut dict, &Values::F32(values32)), vec![0, 1, 2, 0]);
    }

    #[test]
    fn byte_arrays_by_content() {
        let strings: Vec<&[u8]> = vec![
            b"",
            b"a",
            b"abcdefgh",
            b"abcdefgh\0",
            b"abcdefghi",
            b"a",
            b"",
            b"abcdefgh",
            b"\0",
        ];
        let mut offsets = vec![0];
        let mut data = Vec::new();
        for s in &strings {
            data.extend_from_slice(s);
            offsets.push(data.len());
        }
        let mut dict = Dictionary::new(Values::Bytes {
            offsets: vec![0],
            data: Vec::new(),
        });
        let got = indices(&mut dict, &Values::Bytes { offsets, data });
        assert_eq!(got, vec![0, 1, 2, 3, 4, 1, 0, 2, 5]);
        let stored: Vec<&[u8]> = dict.values.byte_values().collect();
        assert_eq!(
            stored,
            vec![
                &b""[..],
                b"a",
                b"abcdefgh",
                b"abcdefgh\0",
                b"abcdefghi",
                b"\0"
            ]
        );
        // Many distinct strings: growth rehashes from the stored hashes.
        let many: Vec<String> = (0..5000).map(|i| format!("value-{i}")).collect();
        let mut offsets = vec![0];
        let mut data = Vec::new();
        for s in many.iter().chain(&many) {
            data.extend_from_slice(s.as_bytes());
            offsets.push(data.len());
        }
        let mut dict = Dictionary::new(Values::Bytes {
            offsets: vec![0],
            data: Vec::new(),
        });
        let got = indices(&mut dict, &Values::Bytes { offsets, data });
        let expected: Vec<u32> = (0..5000).chain(0..5000).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn fixed_width_values() {
        let data: Vec<u8> = [[1u8, 2], [3, 4], [1, 2], [0, 0], [3, 4]].concat();
        let mut dict = Dictionary::new(Values::Fixed {
            width: 2,
            data: Vec::new(),
        });
        let got = indices(&mut dict, &Values::Fixed { width: 2, data });
        assert_eq!(got, vec![0, 1, 0, 2, 1]);
        assert_eq!(
            dict.values,
            Values::Fixed {
                width: 2,
                data: vec![1, 2, 3, 4, 0, 0]
            }
        );
        assert_eq!(
            dict.insert(
                &Values::Fixed {
                    width: 2,
                    data: vec![0, 0]
                },
                0
            ),
            2
        );
    }
}
