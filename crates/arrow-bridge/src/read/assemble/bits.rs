//! Bits from levels: a bitmap built some bits at a time ([`BitWriter`]), the
//! mask of which of 64 levels pass a test ([`level_mask`]), and the bits of a word
//! that a mask selects ([`compress`]).

use arrow_buffer::{BooleanBuffer, Buffer};

/// A bitmap written some bits at a time into whole words.
pub(crate) struct BitWriter {
    words: Vec<u64>,
    word: u64,
    bits: usize,
    len: usize,
}

impl BitWriter {
    /// An empty bitmap with room for `bits` bits.
    pub(crate) fn with_capacity(bits: usize) -> Self {
        Self {
            words: Vec::with_capacity(bits.div_ceil(64)),
            word: 0,
            bits: 0,
            len: 0,
        }
    }

    /// Appends the low `n` bits of `word` (`n` at most 64; the bits above are zero).
    #[inline]
    pub(crate) fn push_bits(&mut self, word: u64, n: usize) {
        debug_assert!(n <= 64 && (n == 64 || word >> n == 0));
        if n == 0 {
            return;
        }
        self.word |= word << self.bits;
        let filled = self.bits + n;
        if filled >= 64 {
            self.words.push(self.word);
            self.len += 64;
            // The bits of `word` that did not fit (none when the word was empty).
            self.word = if self.bits == 0 {
                0
            } else {
                word >> (64 - self.bits)
            };
            self.bits = filled - 64;
        } else {
            self.bits = filled;
        }
    }

    /// The bits written, as a buffer.
    pub(crate) fn finish(mut self) -> BooleanBuffer {
        let len = self.len + self.bits;
        if self.bits > 0 {
            self.words.push(self.word);
        }
        BooleanBuffer::new(Buffer::from_vec(self.words), 0, len)
    }
}

/// Bit `i` set where `test(levels[i])`, for up to 64 levels (bits past the levels are
/// zero). The tests fill a byte array (vector compares), and each 8 bytes of 0 / 1
/// become 8 bits by one multiply: the product gathers byte `j`'s low bit at bit
/// `56 + j`. (A loop or-ing each test's bit in at its shift compiles to four lanes at a
/// time and measured slower.)
#[inline(always)]
pub(crate) fn level_mask(levels: &[u16], test: impl Fn(u16) -> bool) -> u64 {
    let mut flags = [0u8; 64];
    for (flag, &level) in flags.iter_mut().zip(levels) {
        *flag = u8::from(test(level));
    }
    let (bytes, _) = flags.as_chunks::<8>();
    let mut bits = 0u64;
    for (j, eight) in bytes.iter().enumerate() {
        let gathered = u64::from_le_bytes(*eight).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        bits |= gathered << (8 * j);
    }
    bits
}

/// A bitmap of which `levels` are at least `level`.
pub(crate) fn bits_at_or_above(levels: &[u16], level: u16) -> BooleanBuffer {
    let words: Vec<u64> = levels
        .chunks(64)
        .map(|chunk| level_mask(chunk, |l| l >= level))
        .collect();
    BooleanBuffer::new(Buffer::from_vec(words), 0, levels.len())
}

/// The bits of `levels` at or above `level`, kept only for the levels at or above
/// `slot_def` (the slots: below it an entry belongs to an empty or null list further
/// up). Returns the bitmap and the number of slots.
pub(crate) fn slot_bits(levels: &[u16], slot_def: u16, level: u16) -> (BooleanBuffer, usize) {
    let mut bits = BitWriter::with_capacity(levels.len());
    for chunk in levels.chunks(64) {
        let slots = level_mask(chunk, |l| l >= slot_def);
        let set = level_mask(chunk, |l| l >= level);
        let all = u64::MAX >> (64 - chunk.len());
        if slots == all {
            // Every entry a slot: the common case, a word at a time.
            bits.push_bits(set, chunk.len());
        } else {
            let (kept, n) = compress(set, slots);
            bits.push_bits(kept, n);
        }
    }
    let bits = bits.finish();
    let slots = bits.len();
    (bits, slots)
}

/// The bits of `word` where `mask` is set, packed from bit 0 in their order, and how
/// many they are (the portable form of BMI2's `pext`). A byte of the mask that is full
/// or empty takes or drops the byte whole; any other goes through [`NIBBLE_COMPRESS`]
/// a nibble at a time. (Bit by bit, the blocks of a list column with a few empty or
/// null lists cost a shift and a test per slot.)
#[inline]
pub(crate) fn compress(word: u64, mask: u64) -> (u64, usize) {
    let mut kept = 0u64;
    let mut n = 0usize;
    for byte in 0..8 {
        let m = (mask >> (8 * byte)) as u8;
        let v = (word >> (8 * byte)) as u8;
        let (bits, count) = match m {
            0 => continue,
            0xff => (v, 8),
            _ => {
                let low = NIBBLE_COMPRESS[usize::from(m & 0xf) << 4 | usize::from(v & 0xf)];
                let high = NIBBLE_COMPRESS[usize::from(m >> 4) << 4 | usize::from(v >> 4)];
                let low_count = (m & 0xf).count_ones();
                (low | high << low_count, m.count_ones() as usize)
            }
        };
        kept |= u64::from(bits) << n;
        n += count;
    }
    (kept, n)
}

/// `NIBBLE_COMPRESS[mask << 4 | value]`: the bits of the 4-bit `value` where the 4-bit
/// `mask` is set, packed from bit 0.
const NIBBLE_COMPRESS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let (mask, value) = (i >> 4, i & 0xf);
        let (mut out, mut n, mut bit) = (0u8, 0, 0);
        while bit < 4 {
            if mask >> bit & 1 == 1 {
                out |= ((value >> bit & 1) as u8) << n;
                n += 1;
            }
            bit += 1;
        }
        table[i] = out;
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn masks_and_slot_bits_follow_the_levels(
            levels in proptest::collection::vec(0u16..5, 0..400),
            slot_def in 0u16..3,
            extra in 0u16..3,
        ) {
            let level = slot_def + extra;
            let expected: Vec<bool> = levels.iter().map(|&l| l >= level).collect();
            let at_or_above = bits_at_or_above(&levels, level);
            prop_assert_eq!(at_or_above.iter().collect::<Vec<_>>(), expected);

            let (slot, slots) = slot_bits(&levels, slot_def, level);
            let expected: Vec<bool> = levels
                .iter()
                .filter(|&&l| l >= slot_def)
                .map(|&l| l >= level)
                .collect();
            prop_assert_eq!(slots, expected.len());
            prop_assert_eq!(slot.iter().collect::<Vec<_>>(), expected);
        }

        #[test]
        fn compress_keeps_the_masked_bits_in_order(word in any::<u64>(), mask in any::<u64>(), full in any::<u8>(), empty in any::<u8>()) {
            // Whole bytes of the mask set or clear, as lists' blocks mostly are.
            let mut mask = mask;
            for byte in 0..8 {
                if full >> byte & 1 == 1 {
                    mask |= 0xff << (8 * byte);
                } else if empty >> byte & 1 == 1 {
                    mask &= !(0xff << (8 * byte));
                }
            }
            let (kept, n) = compress(word, mask);
            let expected: Vec<bool> = (0..64).filter(|i| mask >> i & 1 == 1).map(|i| word >> i & 1 == 1).collect();
            prop_assert_eq!(n, expected.len());
            prop_assert_eq!((0..n).map(|i| kept >> i & 1 == 1).collect::<Vec<_>>(), expected);
            prop_assert!(n == 64 || kept >> n == 0);
        }

        #[test]
        fn words_and_bits_append_in_order(pushes in proptest::collection::vec((any::<u64>(), 0usize..=64, any::<bool>()), 0..40)) {
            let mut writer = BitWriter::with_capacity(0);
            let mut expected = Vec::new();
            for (word, n, single) in pushes {
                if single {
                    writer.push_bits(word & 1, 1);
                    expected.push(word & 1 == 1);
                } else {
                    let word = if n == 64 { word } else { word & ((1u64 << n) - 1) };
                    writer.push_bits(word, n);
                    expected.extend((0..n).map(|i| word >> i & 1 == 1));
                }
            }
            prop_assert_eq!(writer.finish().iter().collect::<Vec<_>>(), expected);
        }
    }
}
