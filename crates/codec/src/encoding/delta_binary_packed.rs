//! DELTA_BINARY_PACKED for INT32 and INT64.
//!
//! Header: ULEB128 block size (a multiple of 128), ULEB128 miniblocks per block (block
//! size / miniblocks a multiple of 32), ULEB128 total value count, zigzag ULEB128 first
//! value. Then blocks: zigzag ULEB128 minimum delta, one bit-width byte per miniblock,
//! and the miniblocks' `delta - min_delta` bit-packed. Arithmetic wraps (in 32 bits for
//! INT32, 64 for INT64). Miniblocks after the last value carry no data, whatever their
//! declared width.
//!
//! ```
//! use herringbone_codec::encoding::delta_binary_packed::{self, DeltaBinaryPackedDecoder};
//! let mut page = Vec::new();
//! delta_binary_packed::encode(&[7i32, 5, 3, 1, 2, 3, 4, 5], &mut page);
//! let mut decoder = DeltaBinaryPackedDecoder::<i32, _>::new(&page).unwrap();
//! decoder.skip(2).unwrap();
//! let mut out = [0i32; 6];
//! assert_eq!(decoder.decode(&mut out).unwrap(), 6);
//! assert_eq!(out, [3, 1, 2, 3, 4, 5]);
//! ```

use std::marker::PhantomData;

use crate::bitpack::{self, BitPackable};
use crate::error::{Error, Result};
use crate::rle::{read_uleb128, write_uleb128};
use crate::source::ByteSource;

/// Block size the reference writers use.
pub const BLOCK_SIZE: usize = 128;
/// Miniblocks per block the reference writers use.
pub const MINIBLOCKS_PER_BLOCK: usize = 4;
/// Largest block size accepted on read (the reference writers use 128).
pub const MAX_BLOCK_SIZE: usize = 1 << 20;

/// An integer type DELTA_BINARY_PACKED can hold: `i32` or `i64`.
pub trait DeltaInt: Copy + Default + PartialEq + std::fmt::Debug + 'static {
    /// Width in bits.
    const BITS: usize;
    /// Truncating conversion from the wrapping 64-bit accumulator.
    fn from_u64(value: u64) -> Self;
    /// Sign-extending conversion.
    fn to_i64(self) -> i64;
}

impl DeltaInt for i32 {
    const BITS: usize = 32;
    #[inline(always)]
    fn from_u64(value: u64) -> Self {
        value as i32
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        i64::from(self)
    }
}

impl DeltaInt for i64 {
    const BITS: usize = 64;
    #[inline(always)]
    fn from_u64(value: u64) -> Self {
        value as i64
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self
    }
}

fn read_zigzag(data: &[u8], pos: &mut usize, what: &str) -> Result<i64> {
    let v = read_uleb128(data, pos, what)?;
    Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
}

fn write_zigzag(v: i64, out: &mut Vec<u8>) {
    write_uleb128(((v << 1) ^ (v >> 63)) as u64, out);
}

fn read_usize(data: &[u8], pos: &mut usize, what: &str) -> Result<usize> {
    let v = read_uleb128(data, pos, what)?;
    usize::try_from(v).map_err(|_| Error::corrupt(format!("{what} {v} too large")))
}

/// Decoder of a DELTA_BINARY_PACKED stream, over a borrowed slice
/// ([`DeltaBinaryPackedDecoder::new`]) or a [`ByteSource`] it owns
/// ([`DeltaBinaryPackedDecoder::from_source`]).
#[derive(Debug, Clone)]
pub struct DeltaBinaryPackedDecoder<T: DeltaInt, S: ByteSource> {
    data: S,
    pos: usize,
    miniblocks_per_block: usize,
    values_per_miniblock: usize,
    total: usize,
    /// Values not yet handed out.
    remaining: usize,
    first_value: Option<u64>,
    last: u64,
    /// Deltas not yet assigned to a loaded miniblock.
    unloaded: usize,
    min_delta: u64,
    /// Byte offset of the current block's bit widths.
    widths_at: usize,
    /// Next miniblock of the current block (== miniblocks_per_block: load a block).
    miniblock: usize,
    mb_start: usize,
    mb_width: usize,
    mb_next: usize,
    mb_len: usize,
    _type: PhantomData<T>,
}

impl<'a, T: DeltaInt> DeltaBinaryPackedDecoder<T, &'a [u8]> {
    /// Reads and validates the header at the start of `data`.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Self::from_source(data)
    }
}

impl<T: DeltaInt, S: ByteSource> DeltaBinaryPackedDecoder<T, S> {
    /// [`DeltaBinaryPackedDecoder::new`] over any [`ByteSource`].
    pub fn from_source(data: S) -> Result<Self> {
        let bytes = data.as_ref();
        let mut pos = 0;
        let block_size = read_usize(bytes, &mut pos, "DELTA_BINARY_PACKED block size")?;
        let miniblocks = read_usize(bytes, &mut pos, "DELTA_BINARY_PACKED miniblock count")?;
        let total = read_usize(bytes, &mut pos, "DELTA_BINARY_PACKED value count")?;
        let first = read_zigzag(bytes, &mut pos, "DELTA_BINARY_PACKED first value")?;
        // The specification asks for blocks of a multiple of 128 values and miniblocks of a
        // multiple of 32; decoding only needs miniblocks to end on a byte boundary, so
        // reading accepts multiples of 8 (as in the specification's own examples).
        if block_size == 0 || block_size > MAX_BLOCK_SIZE {
            return Err(Error::corrupt(format!(
                "DELTA_BINARY_PACKED block size {block_size} is not in 1..={MAX_BLOCK_SIZE}"
            )));
        }
        if miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 8 != 0 {
            return Err(Error::corrupt(format!(
                "DELTA_BINARY_PACKED: {miniblocks} miniblocks per block of {block_size} values do not give a multiple of 8 values each"
            )));
        }
        Ok(Self {
            data,
            pos,
            miniblocks_per_block: miniblocks,
            values_per_miniblock: block_size / miniblocks,
            total,
            remaining: total,
            first_value: (total > 0).then_some(first as u64),
            last: 0,
            unloaded: total.saturating_sub(1),
            min_delta: 0,
            widths_at: 0,
            miniblock: miniblocks,
            mb_start: 0,
            mb_width: 0,
            mb_next: 0,
            mb_len: 0,
            _type: PhantomData,
        })
    }

    /// Total number of values the header declares.
    pub fn len(&self) -> usize {
        self.total
    }

    /// Whether the stream holds no values.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Values not yet decoded or skipped.
    pub fn remaining(&self) -> usize {
        self.remaining
    }

    /// Loads the next miniblock holding values (reading a block header when needed).
    fn load_miniblock(&mut self) -> Result<()> {
        let data = self.data.as_ref();
        if self.miniblock == self.miniblocks_per_block {
            let block_at = self.pos;
            self.min_delta =
                read_zigzag(data, &mut self.pos, "DELTA_BINARY_PACKED block min delta")? as u64;
            if data.len() - self.pos < self.miniblocks_per_block {
                return Err(Error::corrupt(format!(
                    "DELTA_BINARY_PACKED block at byte {block_at}: {} miniblock bit widths expected, {} bytes present",
                    self.miniblocks_per_block,
                    data.len() - self.pos
                )));
            }
            self.widths_at = self.pos;
            self.pos += self.miniblocks_per_block;
            self.miniblock = 0;
        }
        let width = usize::from(data[self.widths_at + self.miniblock]);
        if width > 64 {
            return Err(Error::corrupt(format!(
                "DELTA_BINARY_PACKED miniblock bit width {width} exceeds 64"
            )));
        }
        let values = self.values_per_miniblock.min(self.unloaded);
        let full_bytes = self.values_per_miniblock * width / 8;
        let available = data.len() - self.pos;
        let bytes = if full_bytes <= available {
            full_bytes
        } else if values < self.values_per_miniblock
            && bitpack::packed_len(values, width) <= available
        {
            // The final miniblock may lack its padding; the values themselves are here.
            available
        } else {
            return Err(Error::corrupt(format!(
                "DELTA_BINARY_PACKED miniblock at byte {}: {full_bytes} bytes expected, {available} present",
                self.pos
            )));
        };
        self.mb_start = self.pos;
        self.mb_width = width;
        self.mb_next = 0;
        self.mb_len = values;
        self.pos += bytes;
        self.unloaded -= values;
        self.miniblock += 1;
        Ok(())
    }

    /// Decodes up to `n` values, handing each to `sink` in chunks of words of type `W`.
    /// `W` is `u32` for INT32, whose arithmetic wraps in 32 bits: the deltas are then
    /// unpacked and summed in 32-bit lanes, twice as many per vector as in 64-bit ones.
    /// A miniblock wider than `W` (a writer that took INT32 deltas in 64 bits) is
    /// unpacked in 64 bits and truncated, which wraps the same way.
    fn run<W: BitPackable>(
        &mut self,
        n: usize,
        mut sink: impl FnMut(usize, &[W]),
    ) -> Result<usize> {
        let n = n.min(self.remaining);
        let mut done = 0;
        if n > 0
            && let Some(first) = self.first_value.take()
        {
            self.last = first;
            sink(0, &[W::from_u64(first)]);
            done = 1;
        }
        let mut buf = [W::default(); 256];
        let mut wide = [0u64; 256];
        while done < n {
            if self.mb_next == self.mb_len {
                self.load_miniblock()?;
                continue;
            }
            let k = (n - done).min(self.mb_len - self.mb_next).min(buf.len());
            let chunk = &mut buf[..k];
            let packed = &self.data.as_ref()[self.mb_start..self.pos];
            if self.mb_width <= W::BITS {
                bitpack::unpack_from(packed, self.mb_width, self.mb_next, chunk)?;
            } else {
                bitpack::unpack_from(packed, self.mb_width, self.mb_next, &mut wide[..k])?;
                for (c, &w) in chunk.iter_mut().zip(&wide[..k]) {
                    *c = W::from_u64(w);
                }
            }
            // Truncating the 64-bit state to `W` keeps it exact modulo 2^BITS of `W`.
            let min_delta = W::from_u64(self.min_delta);
            let mut last = W::from_u64(self.last);
            for v in chunk.iter_mut() {
                last = W::from_u64(
                    last.to_u64()
                        .wrapping_add(min_delta.to_u64())
                        .wrapping_add(v.to_u64()),
                );
                *v = last;
            }
            self.last = last.to_u64();
            sink(done, chunk);
            self.mb_next += k;
            done += k;
        }
        self.remaining -= done;
        Ok(done)
    }

    /// Decodes up to `out.len()` values; returns how many (fewer only at the end).
    pub fn decode(&mut self, out: &mut [T]) -> Result<usize> {
        if T::BITS == 32 {
            self.run::<u32>(out.len(), |at, values| {
                for (o, &v) in out[at..at + values.len()].iter_mut().zip(values) {
                    *o = T::from_u64(u64::from(v));
                }
            })
        } else {
            self.run::<u64>(out.len(), |at, values| {
                for (o, &v) in out[at..at + values.len()].iter_mut().zip(values) {
                    *o = T::from_u64(v);
                }
            })
        }
    }

    /// Appends up to `n` values to `out` (no zero-fill first); returns how many (fewer
    /// only at the end).
    pub fn append(&mut self, n: usize, out: &mut Vec<T>) -> Result<usize> {
        out.reserve(n.min(self.remaining));
        if T::BITS == 32 {
            self.run::<u32>(n, |_, values| {
                out.extend(values.iter().map(|&v| T::from_u64(u64::from(v))));
            })
        } else {
            self.run::<u64>(n, |_, values| {
                out.extend(values.iter().map(|&v| T::from_u64(v)));
            })
        }
    }

    /// Skips up to `n` values (their deltas are still summed); returns how many.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        if T::BITS == 32 {
            self.run::<u32>(n, |_, _| {})
        } else {
            self.run::<u64>(n, |_, _| {})
        }
    }

    /// Byte offset just past the stream (after the last miniblock holding values),
    /// found by walking the block structure without unpacking.
    pub fn end_offset(&self) -> Result<usize> {
        let mut walker = self.clone();
        while walker.unloaded > 0 {
            walker.load_miniblock()?;
        }
        Ok(walker.pos)
    }
}

/// Appends `values` DELTA_BINARY_PACKED with blocks of 128 values in 4 miniblocks, as
/// the reference writers do. Deltas wrap in the width of `T`.
pub fn encode<T: DeltaInt>(values: &[T], out: &mut Vec<u8>) {
    encode_with_layout(values, BLOCK_SIZE, MINIBLOCKS_PER_BLOCK, out)
        .expect("the default layout is valid");
}

/// Appends `values` DELTA_BINARY_PACKED with blocks of `block_size` values split into
/// `miniblocks` miniblocks; the miniblock size must be a positive multiple of 8 (the
/// specification asks for multiples of 128 and 32; smaller layouts exist for its
/// examples and for tests) and at most 1024.
pub fn encode_with_layout<T: DeltaInt>(
    values: &[T],
    block_size: usize,
    miniblocks: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    if miniblocks == 0
        || !block_size.is_multiple_of(miniblocks)
        || !(block_size / miniblocks).is_multiple_of(8)
        || block_size / miniblocks > 1024
        || block_size > MAX_BLOCK_SIZE
    {
        return Err(Error::invalid_argument(format!(
            "DELTA_BINARY_PACKED layout of {miniblocks} miniblocks per {block_size} values is not supported"
        )));
    }
    write_uleb128(block_size as u64, out);
    write_uleb128(miniblocks as u64, out);
    write_uleb128(values.len() as u64, out);
    let Some(first) = values.first() else {
        write_zigzag(0, out);
        return Ok(());
    };
    write_zigzag(first.to_i64(), out);
    let value_mask = bitpack::mask(T::BITS);
    let per_miniblock = block_size / miniblocks;
    let mut deltas = vec![0u64; block_size];
    let mut padded = vec![0u64; per_miniblock];
    let mut widths = vec![0u8; miniblocks];
    for block in (0..values.len() - 1).step_by(block_size) {
        // Delta j of the block pairs value j with value j + 1.
        let pairs = &values[block..values.len().min(block + block_size + 1)];
        if pairs.len() < 2 {
            break;
        }
        let deltas = &mut deltas[..pairs.len() - 1];
        let mut min_delta = i64::MAX;
        for (d, pair) in deltas.iter_mut().zip(pairs.windows(2)) {
            // Wrapping in T's width, then sign-extended so the minimum is signed.
            let delta = T::from_u64(pair[1].to_i64().wrapping_sub(pair[0].to_i64()) as u64);
            *d = delta.to_i64() as u64;
            min_delta = min_delta.min(delta.to_i64());
        }
        write_zigzag(min_delta, out);
        for d in deltas.iter_mut() {
            *d = d.wrapping_sub(min_delta as u64) & value_mask;
        }
        widths.fill(0);
        for (width, mb) in widths.iter_mut().zip(deltas.chunks(per_miniblock)) {
            let max = mb.iter().fold(0u64, |a, &b| a | b);
            *width = (64 - max.leading_zeros()) as u8;
        }
        out.extend_from_slice(&widths);
        for (width, mb) in widths.iter().zip(deltas.chunks(per_miniblock)) {
            // Only the last, partial miniblock needs the zero padding copy.
            let mb = if mb.len() == per_miniblock {
                mb
            } else {
                padded.fill(0);
                padded[..mb.len()].copy_from_slice(mb);
                &padded[..]
            };
            bitpack::pack(mb, usize::from(*width), out).expect("width <= 64");
        }
    }
    Ok(())
}
