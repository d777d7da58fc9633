//! The dense (non-null) values of one leaf column in one batch, in the buffers the
//! batch's Arrow array is made of: the bottom of the read stack. A chunk's decoded
//! dictionary page is held in the same buffers.
//!
//! | physical type          | buffer                        |
//! |------------------------|-------------------------------|
//! | BOOLEAN                | `Vec<bool>`                   |
//! | INT32, INT64, FLOAT, DOUBLE, INT96 | `Vec<T>`          |
//! | FIXED_LEN_BYTE_ARRAY   | [`FixedBytes`]                |
//! | BYTE_ARRAY             | [`ByteArrays`] (`i32` or `i64` offsets) or [`Views`] |
//! | any, kept as a dictionary | [`Keyed`] (keys of one [`KeptDictionary`], perhaps in [`KeyRuns`]) |

use std::sync::{Arc, OnceLock};

use arrow_array::ArrayRef;
use arrow_buffer::Buffer;
use bytes::Bytes;
use herringbone_codec::encoding::dictionary::DictionaryIndexDecoder;

use super::budget::Budget;
use super::views;
use crate::error::Result;
use crate::offsets::OffsetWidth;

/// What every buffer of values can do.
pub(crate) trait ValueBuffer: Send + Sync + std::fmt::Debug + 'static {
    /// Number of values.
    fn value_count(&self) -> usize;

    /// Appends to `out` the values `keys` (each below [`Self::value_count`]) address:
    /// a dictionary's values gathered into a batch, charged to `budget`.
    fn gather_into(&self, keys: &[u32], out: &mut Self, budget: &mut Budget) -> Result<()>;

    /// Appends to `out` the values the next `n` indices of `indices` address (each
    /// checked against [`Self::value_count`]); returns how many (fewer only at the end
    /// of the data).
    fn gather_indices_into(
        &self,
        indices: &mut DictionaryIndexDecoder<Bytes>,
        n: usize,
        out: &mut Self,
        budget: &mut Budget,
    ) -> Result<usize> {
        let mut keys = Vec::with_capacity(n.min(1 << 16));
        let got = indices.append_checked(n, self.value_count(), &mut keys)?;
        self.gather_into(&keys, out, budget)?;
        Ok(got)
    }

    /// Gives back the room reserved past the values when it is more than an eighth of
    /// them. A repeated column's values are reserved page by page, not at the batch's
    /// final size, and the array keeps its buffer's capacity: without this a list's
    /// values held (and reported, to a memory pool counting
    /// `get_array_memory_size`) up to twice their size.
    fn shrink(&mut self);
}

/// Shrinks `values` to its length when more than an eighth of its capacity is unused
/// (the allocator gives back a block's tail in place, without copying).
pub(crate) fn shrink_vec<T>(values: &mut Vec<T>) {
    if values.capacity() - values.len() > values.len() / 8 {
        values.shrink_to_fit();
    }
}

impl<T: Copy + Send + Sync + std::fmt::Debug + 'static> ValueBuffer for Vec<T> {
    fn value_count(&self) -> usize {
        self.len()
    }

    fn shrink(&mut self) {
        shrink_vec(self);
    }

    fn gather_into(&self, keys: &[u32], out: &mut Self, budget: &mut Budget) -> Result<()> {
        budget.reserve(out, keys.len())?;
        out.extend(keys.iter().map(|&k| self[k as usize]));
        Ok(())
    }

    /// Decoded and gathered in one pass (no buffer of keys).
    fn gather_indices_into(
        &self,
        indices: &mut DictionaryIndexDecoder<Bytes>,
        n: usize,
        out: &mut Self,
        budget: &mut Budget,
    ) -> Result<usize> {
        budget.reserve(out, n)?;
        Ok(indices.append_gathered(self, n, out)?)
    }
}

/// FIXED_LEN_BYTE_ARRAY values of `width` bytes, back to back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FixedBytes {
    pub(crate) width: usize,
    pub(crate) data: Vec<u8>,
}

impl ValueBuffer for FixedBytes {
    fn value_count(&self) -> usize {
        self.data.len() / self.width
    }

    fn shrink(&mut self) {
        shrink_vec(&mut self.data);
    }

    fn gather_into(&self, keys: &[u32], out: &mut Self, budget: &mut Budget) -> Result<()> {
        let width = self.width;
        budget.reserve(&mut out.data, keys.len().saturating_mul(width))?;
        for &k in keys {
            let k = k as usize;
            out.data
                .extend_from_slice(&self.data[k * width..(k + 1) * width]);
        }
        Ok(())
    }
}

/// BYTE_ARRAY values: `offsets` holds one entry more than there are values (or none
/// at all before the first value), `data` their bytes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ByteArrays<O> {
    pub(crate) offsets: Vec<O>,
    pub(crate) data: Vec<u8>,
}

impl<O> Default for ByteArrays<O> {
    fn default() -> Self {
        Self {
            offsets: Vec::new(),
            data: Vec::new(),
        }
    }
}

impl<O: OffsetWidth> ValueBuffer for ByteArrays<O> {
    fn value_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    fn shrink(&mut self) {
        shrink_vec(&mut self.offsets);
        shrink_vec(&mut self.data);
    }

    fn gather_into(&self, keys: &[u32], out: &mut Self, budget: &mut Budget) -> Result<()> {
        let range = |k: u32| {
            let k = k as usize;
            self.offsets[k].position()..self.offsets[k + 1].position()
        };
        let bytes: usize = keys.iter().map(|&k| range(k).len()).sum();
        O::check_len(out.data.len() + bytes)?;
        let first = usize::from(out.offsets.is_empty());
        budget.reserve(&mut out.offsets, keys.len() + first)?;
        budget.reserve(&mut out.data, bytes)?;
        if first == 1 {
            out.offsets.push(O::from_position(out.data.len()));
        }
        for &k in keys {
            out.data.extend_from_slice(&self.data[range(k)]);
            out.offsets.push(O::from_position(out.data.len()));
        }
        Ok(())
    }
}

/// BYTE_ARRAY values as Arrow views into `buffers` (decompressed pages, the
/// dictionary page, or bytes rebuilt by DELTA_BYTE_ARRAY). Values of a `Utf8View`
/// column were checked to be UTF-8 when the views were made.
#[derive(Debug, Clone, Default)]
pub(crate) struct Views {
    pub(crate) views: Vec<u128>,
    pub(crate) buffers: Vec<Buffer>,
}

impl ValueBuffer for Views {
    fn value_count(&self) -> usize {
        self.views.len()
    }

    fn shrink(&mut self) {
        shrink_vec(&mut self.views);
    }

    fn gather_into(&self, keys: &[u32], out: &mut Self, budget: &mut Budget) -> Result<()> {
        budget.reserve(&mut out.views, keys.len())?;
        let start = out.views.len();
        out.views
            .extend(keys.iter().map(|&k| self.views[k as usize]));
        views::adopt_buffers(&mut out.views[start..], &mut out.buffers, &self.buffers);
        Ok(())
    }
}

/// A chunk's dictionary for a column read as `Dictionary`: its values in the reader's
/// buffer, and (made once, by the array layer, when a batch first needs it) the same
/// values as the Arrow array that the batches' `DictionaryArray`s share, or why the
/// values do not convert to the dictionary's value type.
#[derive(Debug)]
pub(crate) struct KeptDictionary<B> {
    pub(crate) values: Arc<B>,
    pub(crate) array: OnceLock<std::result::Result<ArrayRef, String>>,
}

impl<B> KeptDictionary<B> {
    /// The dictionary of `values`, its Arrow array not made yet.
    pub(crate) fn new(values: Arc<B>) -> Self {
        Self {
            values,
            array: OnceLock::new(),
        }
    }
}

/// The values of a batch of a column read as `Dictionary`: the keys of its chunk's
/// dictionary while every value came from dictionary-encoded pages, plain values once
/// one did not (a writer's fallback to PLAIN), as arrow-rs does when its dictionary
/// buffer spills.
#[derive(Debug)]
pub(crate) enum Keyed<B> {
    /// Dictionary indices, each checked against the dictionary (`None` until the
    /// batch's first dictionary-encoded value).
    Keys {
        keys: Vec<u32>,
        dictionary: Option<Arc<KeptDictionary<B>>>,
    },
    /// Dictionary indices kept in runs of equal keys (a column read as
    /// `RunEndEncoded`), each checked against the dictionary.
    Runs {
        runs: KeyRuns,
        dictionary: Option<Arc<KeptDictionary<B>>>,
    },
    /// Plain values.
    Plain(B),
}

/// Dictionary keys as runs of equal keys: run `i` repeats `keys[i]` up to value
/// `ends[i]` (exclusive, counted from the batch's first value). Neighbouring runs
/// never hold the same key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct KeyRuns {
    pub(crate) keys: Vec<u32>,
    pub(crate) ends: Vec<u32>,
}

impl KeyRuns {
    /// Number of values (the end of the last run).
    pub(crate) fn value_count(&self) -> usize {
        self.ends.last().map_or(0, |&e| e as usize)
    }

    /// Appends `count` copies of `key`, joining the last run when it holds `key`.
    /// Returns whether a run was added (the caller charges its memory).
    pub(crate) fn push(&mut self, key: u32, count: usize) -> Result<bool> {
        let end = self.value_count() + count;
        let end = u32::try_from(end).map_err(|_| {
            crate::error::Error::new(
                crate::error::ErrorKind::LimitExceeded,
                format!(
                    "a batch of {end} dictionary keys in runs (at most {} fit)",
                    u32::MAX
                ),
            )
        })?;
        match (self.keys.last(), self.ends.last_mut()) {
            (Some(&last), Some(last_end)) if last == key => {
                *last_end = end;
                Ok(false)
            }
            _ => {
                self.keys.push(key);
                self.ends.push(end);
                Ok(true)
            }
        }
    }

    /// The keys one per value.
    pub(crate) fn expand(&self) -> Vec<u32> {
        let mut keys = Vec::with_capacity(self.value_count());
        let mut start = 0;
        for (&key, &end) in self.keys.iter().zip(&self.ends) {
            keys.resize(keys.len() + (end - start) as usize, key);
            start = end;
        }
        keys
    }
}

impl<B: ValueBuffer> ValueBuffer for Keyed<B> {
    fn value_count(&self) -> usize {
        match self {
            Keyed::Keys { keys, .. } => keys.len(),
            Keyed::Runs { runs, .. } => runs.value_count(),
            Keyed::Plain(values) => values.value_count(),
        }
    }

    fn shrink(&mut self) {
        match self {
            Keyed::Keys { keys, .. } => shrink_vec(keys),
            Keyed::Runs { runs, .. } => {
                shrink_vec(&mut runs.keys);
                shrink_vec(&mut runs.ends);
            }
            Keyed::Plain(values) => values.shrink(),
        }
    }

    /// Keys of a [`Keyed`] gather as plain values (never needed: a kept dictionary is
    /// not itself kept as a dictionary).
    fn gather_into(&self, keys: &[u32], out: &mut Self, budget: &mut Budget) -> Result<()> {
        match (self, out) {
            (Keyed::Plain(values), Keyed::Plain(out)) => values.gather_into(keys, out, budget),
            _ => Err(crate::error::Error::unsupported(
                "a dictionary of dictionary keys",
            )),
        }
    }
}
