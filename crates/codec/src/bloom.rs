//! Split-block Bloom filters (SBBF), exactly as the Parquet specification defines them.
//!
//! The bitset is a sequence of 256-bit blocks, each eight little-endian `u32` words. A
//! value's 64-bit XXH64 hash (seed 0, over the value's PLAIN encoding; for BYTE_ARRAY the
//! bytes without their length prefix) picks a block with its high 32 bits and sets one
//! bit in each of the block's eight words from its low 32 bits and eight fixed salts.
//!
//! ```
//! use herringbone_codec::bloom::SplitBlockBloomFilter;
//!
//! let mut filter = SplitBlockBloomFilter::with_ndv_fpp(1000, 0.01).unwrap();
//! filter.insert(&42i64);
//! filter.insert("herringbone");
//! assert!(filter.check(&42i64));
//! assert!(filter.check("herringbone"));
//! assert!(!filter.check(&43i64)); // almost certainly absent
//! ```

use herringbone_format::metadata::{
    BloomFilterAlgorithm, BloomFilterCompression, BloomFilterHash, BloomFilterHeader,
};
use herringbone_format::thrift::{CompactWriter, ThriftStruct};

use crate::error::{Error, ErrorKind, Result};

/// The smallest bitset the reference writers produce: one block.
pub const BITSET_MIN_BYTES: usize = 32;
/// The largest bitset the reference writers produce (and the default read limit).
pub const BITSET_MAX_BYTES: usize = 128 * 1024 * 1024;

/// Bytes in one block: eight 32-bit words.
const BLOCK_BYTES: usize = 32;

/// The eight odd salts of the specification, one per word of a block.
const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

type Block = [u32; 8];

/// The one-bit-per-word mask of a block for the low 32 bits of a hash.
#[inline]
fn block_mask(key: u32) -> Block {
    let mut mask = [0u32; 8];
    for (word, salt) in mask.iter_mut().zip(SALT) {
        *word = 1u32 << (key.wrapping_mul(salt) >> 27);
    }
    mask
}

/// XXH64 (seed 0) of a value's bytes: the hash the filter stores.
#[inline]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh64::xxh64(bytes, 0)
}

/// Hash of an INT32 (PLAIN: 4 bytes little-endian).
#[inline]
pub fn hash_i32(value: i32) -> u64 {
    hash_bytes(&value.to_le_bytes())
}

/// Hash of an INT64 (PLAIN: 8 bytes little-endian).
#[inline]
pub fn hash_i64(value: i64) -> u64 {
    hash_bytes(&value.to_le_bytes())
}

/// Hash of a FLOAT (PLAIN: its IEEE 754 bits, little-endian; `0.0` and `-0.0` differ).
#[inline]
pub fn hash_f32(value: f32) -> u64 {
    hash_bytes(&value.to_le_bytes())
}

/// Hash of a DOUBLE (PLAIN: its IEEE 754 bits, little-endian; `0.0` and `-0.0` differ).
#[inline]
pub fn hash_f64(value: f64) -> u64 {
    hash_bytes(&value.to_le_bytes())
}

/// Hash of an INT96 value (PLAIN: its 12 bytes).
#[inline]
pub fn hash_int96(value: &[u8; 12]) -> u64 {
    hash_bytes(value)
}

/// Hash of a BYTE_ARRAY value: its bytes, without PLAIN's length prefix.
#[inline]
pub fn hash_byte_array(value: &[u8]) -> u64 {
    hash_bytes(value)
}

/// Hash of a FIXED_LEN_BYTE_ARRAY value: its bytes.
#[inline]
pub fn hash_fixed_len_byte_array(value: &[u8]) -> u64 {
    hash_bytes(value)
}

/// A value that can be looked up in (or added to) a Bloom filter, hashed over its PLAIN
/// encoding as the specification requires.
pub trait BloomHash {
    /// XXH64 (seed 0) of the value's PLAIN encoding.
    fn bloom_hash(&self) -> u64;
}

impl BloomHash for i32 {
    fn bloom_hash(&self) -> u64 {
        hash_i32(*self)
    }
}

impl BloomHash for i64 {
    fn bloom_hash(&self) -> u64 {
        hash_i64(*self)
    }
}

impl BloomHash for f32 {
    fn bloom_hash(&self) -> u64 {
        hash_f32(*self)
    }
}

impl BloomHash for f64 {
    fn bloom_hash(&self) -> u64 {
        hash_f64(*self)
    }
}

impl BloomHash for [u8] {
    fn bloom_hash(&self) -> u64 {
        hash_bytes(self)
    }
}

impl<const N: usize> BloomHash for [u8; N] {
    fn bloom_hash(&self) -> u64 {
        hash_bytes(self)
    }
}

impl BloomHash for str {
    fn bloom_hash(&self) -> u64 {
        hash_bytes(self.as_bytes())
    }
}

impl BloomHash for Vec<u8> {
    fn bloom_hash(&self) -> u64 {
        hash_bytes(self)
    }
}

impl BloomHash for String {
    fn bloom_hash(&self) -> u64 {
        hash_bytes(self.as_bytes())
    }
}

/// The bitset size for `ndv` distinct values at false-positive probability `fpp`:
/// `-8 * ndv / ln(1 - fpp^(1/8))` bits, as bytes rounded up to a power of two within
/// [`BITSET_MIN_BYTES`, `BITSET_MAX_BYTES`] (the reference writers' sizing).
pub fn optimal_num_bytes(ndv: u64, fpp: f64) -> Result<usize> {
    if !(fpp > 0.0 && fpp < 1.0) {
        return Err(Error::invalid_argument(format!(
            "Bloom filter false-positive probability must be in (0, 1), got {fpp}"
        )));
    }
    let bits = -8.0 * ndv as f64 / (1.0 - fpp.powf(1.0 / 8.0)).ln();
    // `as` saturates: an absurd NDV lands on the maximum, not on garbage.
    Ok(rounded_num_bytes(bits as usize / 8))
}

/// Rounds a requested size to a power of two within the writers' bounds.
fn rounded_num_bytes(num_bytes: usize) -> usize {
    num_bytes
        .clamp(BITSET_MIN_BYTES, BITSET_MAX_BYTES)
        .next_power_of_two()
}

/// A split-block Bloom filter.
#[derive(Clone, PartialEq, Eq)]
pub struct SplitBlockBloomFilter {
    blocks: Vec<Block>,
}

impl std::fmt::Debug for SplitBlockBloomFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitBlockBloomFilter")
            .field("num_bytes", &self.num_bytes())
            .finish()
    }
}

impl SplitBlockBloomFilter {
    /// An empty filter sized for `ndv` distinct values at false-positive probability
    /// `fpp` (see [`optimal_num_bytes`]).
    pub fn with_ndv_fpp(ndv: u64, fpp: f64) -> Result<Self> {
        Ok(Self::with_num_bytes(optimal_num_bytes(ndv, fpp)?))
    }

    /// An empty filter of `num_bytes` rounded up to a power of two within
    /// [`BITSET_MIN_BYTES`, `BITSET_MAX_BYTES`].
    pub fn with_num_bytes(num_bytes: usize) -> Self {
        let num_bytes = rounded_num_bytes(num_bytes);
        Self {
            blocks: vec![[0u32; 8]; num_bytes / BLOCK_BYTES],
        }
    }

    /// A filter over a stored bitset (little-endian words, a whole number of blocks).
    ///
    /// `max_bytes` bounds what the caller is willing to hold in memory.
    pub fn from_bitset(bitset: &[u8], max_bytes: usize) -> Result<Self> {
        if bitset.is_empty() || !bitset.len().is_multiple_of(BLOCK_BYTES) {
            return Err(Error::corrupt(format!(
                "Bloom filter bitset of {} bytes is not a positive multiple of the {BLOCK_BYTES}-byte block",
                bitset.len()
            )));
        }
        if bitset.len() > max_bytes {
            return Err(Error::unsupported(format!(
                "Bloom filter bitset of {} bytes exceeds the configured limit of {max_bytes} bytes",
                bitset.len()
            )));
        }
        let blocks = bitset
            .chunks_exact(BLOCK_BYTES)
            .map(|chunk| {
                let mut block = [0u32; 8];
                for (word, bytes) in block.iter_mut().zip(chunk.chunks_exact(4)) {
                    *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                }
                block
            })
            .collect();
        Ok(Self { blocks })
    }

    /// Size of the bitset in bytes.
    pub fn num_bytes(&self) -> usize {
        self.blocks.len() * BLOCK_BYTES
    }

    #[inline]
    fn block_index(&self, hash: u64) -> usize {
        // Multiply-shift maps the high 32 bits uniformly onto [0, num_blocks).
        (((hash >> 32) * self.blocks.len() as u64) >> 32) as usize
    }

    /// Adds a hash (see [`hash_bytes`] and friends).
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) {
        let index = self.block_index(hash);
        let mask = block_mask(hash as u32);
        for (word, bit) in self.blocks[index].iter_mut().zip(mask) {
            *word |= bit;
        }
    }

    /// Whether a hash may have been added: `false` means definitely not.
    #[inline]
    pub fn check_hash(&self, hash: u64) -> bool {
        let block = &self.blocks[self.block_index(hash)];
        let mask = block_mask(hash as u32);
        block.iter().zip(mask).all(|(word, bit)| word & bit != 0)
    }

    /// Adds a value, hashed over its PLAIN encoding.
    pub fn insert<V: BloomHash + ?Sized>(&mut self, value: &V) {
        self.insert_hash(value.bloom_hash());
    }

    /// Whether a value may be present: `false` means definitely absent.
    pub fn check<V: BloomHash + ?Sized>(&self, value: &V) -> bool {
        self.check_hash(value.bloom_hash())
    }

    /// The Thrift header stored in front of the bitset.
    pub fn header(&self) -> BloomFilterHeader {
        BloomFilterHeader {
            num_bytes: i32::try_from(self.num_bytes()).unwrap_or(i32::MAX),
            algorithm: BloomFilterAlgorithm::Block,
            hash: BloomFilterHash::Xxhash,
            compression: BloomFilterCompression::Uncompressed,
        }
    }

    /// Appends the filter as stored in a file: the Thrift header, then the bitset.
    /// Returns the number of bytes written (the chunk's `bloom_filter_length`).
    pub fn write(&self, out: &mut Vec<u8>) -> usize {
        let start = out.len();
        let mut writer = CompactWriter::from_vec(std::mem::take(out));
        self.header().write(&mut writer);
        *out = writer.into_inner();
        self.write_bitset(out);
        out.len() - start
    }

    /// Reads a filter stored as header + bitset at the start of `bytes` (which may go
    /// on past it); returns it and the number of bytes it took.
    ///
    /// Only the split-block algorithm, XXH64 and no compression exist; anything else is
    /// an `Unsupported` error. The bitset size is checked against the bytes present and
    /// against `max_bytes` before anything is allocated.
    pub fn read(bytes: &[u8], max_bytes: usize) -> Result<(Self, usize)> {
        let (header, header_len) = BloomFilterHeader::decode_slice(bytes).map_err(|e| {
            Error::new(ErrorKind::Metadata, "invalid Bloom filter header").with_source(e)
        })?;
        if header.algorithm != BloomFilterAlgorithm::Block {
            return Err(Error::unsupported(format!(
                "Bloom filter algorithm {:?} (only the split-block algorithm exists)",
                header.algorithm
            )));
        }
        if header.hash != BloomFilterHash::Xxhash {
            return Err(Error::unsupported(format!(
                "Bloom filter hash {:?} (only XXH64 exists)",
                header.hash
            )));
        }
        if header.compression != BloomFilterCompression::Uncompressed {
            return Err(Error::unsupported(format!(
                "Bloom filter compression {:?} (only uncompressed bitsets exist)",
                header.compression
            )));
        }
        let num_bytes = usize::try_from(header.num_bytes).map_err(|_| {
            Error::corrupt(format!(
                "Bloom filter num_bytes {} is negative",
                header.num_bytes
            ))
        })?;
        let available = bytes.len() - header_len;
        if num_bytes > available {
            return Err(Error::corrupt(format!(
                "Bloom filter bitset of {num_bytes} bytes exceeds the {available} bytes after its {header_len}-byte header"
            )));
        }
        let filter = Self::from_bitset(&bytes[header_len..header_len + num_bytes], max_bytes)?;
        Ok((filter, header_len + num_bytes))
    }

    /// Appends the bitset as stored in a file (little-endian words).
    pub fn write_bitset(&self, out: &mut Vec<u8>) {
        out.reserve(self.num_bytes());
        for block in &self.blocks {
            for word in block {
                out.extend_from_slice(&word.to_le_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_follows_the_reference_formula() {
        assert_eq!(optimal_num_bytes(0, 0.01).unwrap(), 32);
        assert_eq!(optimal_num_bytes(1, 0.5).unwrap(), 32);
        // 1000 values at 1%: 9,585 bits by the formula -> 1,198 bytes -> 2,048.
        assert_eq!(optimal_num_bytes(1000, 0.01).unwrap(), 2048);
        assert_eq!(optimal_num_bytes(u64::MAX, 0.01).unwrap(), BITSET_MAX_BYTES);
        assert!(optimal_num_bytes(10, 0.0).is_err());
        assert!(optimal_num_bytes(10, 1.0).is_err());
        assert!(optimal_num_bytes(10, f64::NAN).is_err());
        assert_eq!(SplitBlockBloomFilter::with_num_bytes(33).num_bytes(), 64);
    }

    #[test]
    fn mask_sets_one_bit_per_word() {
        for key in [0u32, 1, 0xdead_beef, u32::MAX] {
            assert!(block_mask(key).iter().all(|w| w.count_ones() == 1));
        }
        // key 1: each word's bit is the top five bits of its salt.
        let mask = block_mask(1);
        for (word, salt) in mask.iter().zip(SALT) {
            assert_eq!(*word, 1 << (salt >> 27));
        }
    }

    #[test]
    fn inserted_values_are_found_and_bitset_round_trips() {
        let mut filter = SplitBlockBloomFilter::with_ndv_fpp(500, 0.01).unwrap();
        for i in 0..500i64 {
            filter.insert(&(i * 7919));
        }
        assert!((0..500i64).all(|i| filter.check(&(i * 7919))));
        let false_positives = (0..10_000i64)
            .filter(|i| filter.check(&(1_000_000_007 + i)))
            .count();
        assert!(false_positives < 400, "{false_positives} false positives");
        let mut bitset = Vec::new();
        filter.write_bitset(&mut bitset);
        assert_eq!(bitset.len(), filter.num_bytes());
        let back = SplitBlockBloomFilter::from_bitset(&bitset, BITSET_MAX_BYTES).unwrap();
        assert_eq!(back, filter);
    }

    #[test]
    fn from_bitset_validates() {
        assert!(SplitBlockBloomFilter::from_bitset(&[], 1024).is_err());
        assert!(SplitBlockBloomFilter::from_bitset(&[0; 33], 1024).is_err());
        let err = SplitBlockBloomFilter::from_bitset(&[0; 64], 32).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Unsupported);
    }

    #[test]
    fn header_and_bitset_round_trip() {
        let mut filter = SplitBlockBloomFilter::with_num_bytes(1024);
        filter.insert("parquet");
        let mut stored = vec![0xEE];
        let written = filter.write(&mut stored);
        assert_eq!(written, stored.len() - 1);
        // 0x15 = field 1, i32; 1024 zigzag-varint = 0x80 0x10; three unions each holding
        // an empty member struct; stop.
        assert_eq!(
            &stored[1..17],
            &[
                0x15, 0x80, 0x10, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0
            ]
        );
        stored.extend_from_slice(b"trailing");
        let (back, used) = SplitBlockBloomFilter::read(&stored[1..], BITSET_MAX_BYTES).unwrap();
        assert_eq!(used, written);
        assert_eq!(back, filter);
        assert!(back.check("parquet"));
    }

    #[test]
    fn read_rejects_bad_headers() {
        let mut stored = Vec::new();
        SplitBlockBloomFilter::with_num_bytes(64).write(&mut stored);
        // Truncated bitset.
        let err =
            SplitBlockBloomFilter::read(&stored[..stored.len() - 1], BITSET_MAX_BYTES).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Corrupt);
        // Over the caller's limit.
        let err = SplitBlockBloomFilter::read(&stored, 32).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported);
        // An unknown hash union member (id 2).
        let mut unknown_hash = stored.clone();
        // Bytes: 0x15 0x80 0x01 | algorithm 0x1c 0x1c 0 0 | hash 0x1c (member) 0x1c ...
        assert_eq!(unknown_hash[8], 0x1c);
        unknown_hash[8] = 0x2c;
        let err = SplitBlockBloomFilter::read(&unknown_hash, BITSET_MAX_BYTES).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
        // Negative size.
        let negative = [
            0x15, 0x01, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0,
        ];
        let err = SplitBlockBloomFilter::read(&negative, BITSET_MAX_BYTES).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Corrupt);
        // Not a header at all.
        assert!(SplitBlockBloomFilter::read(&[], BITSET_MAX_BYTES).is_err());
    }

    #[test]
    fn xxh64_reference_values() {
        // XXH64 of the empty input with seed 0.
        assert_eq!(hash_bytes(b""), 0xEF46_DB37_51D8_E999);
        assert_eq!(hash_i32(7), hash_bytes(&[7, 0, 0, 0]));
        assert_eq!(hash_f64(1.5), hash_bytes(&1.5f64.to_bits().to_le_bytes()));
        assert_eq!("ab".bloom_hash(), hash_byte_array(b"ab"));
    }
}
