//! A bitmap built one bit at a time ([`BitWriter`]), for validity that follows levels.

use arrow_buffer::{BooleanBuffer, Buffer};

/// A bitmap written one bit at a time into whole words.
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

    /// Appends `bit` when `take` (without a branch on either).
    #[inline(always)]
    pub(crate) fn push_if(&mut self, take: bool, bit: bool) {
        self.word |= u64::from(bit & take) << self.bits;
        self.bits += usize::from(take);
        if self.bits == 64 {
            self.words.push(self.word);
            self.word = 0;
            self.bits = 0;
            self.len += 64;
        }
    }

    /// Appends `bit`.
    #[inline(always)]
    pub(crate) fn push(&mut self, bit: bool) {
        self.push_if(true, bit);
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
