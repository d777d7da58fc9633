//! [`Rows`]: which slots of a leaf array hold the values of one piece of a page.

use arrow_buffer::NullBuffer;
use arrow_buffer::bit_iterator::{BitIndexIterator, BitSliceIterator};

/// The slots of a leaf array whose values one piece of a page takes, in order.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Rows<'a> {
    /// Slots `start..end`, every one present.
    Range(usize, usize),
    /// The valid slots among `start..end` of `nulls` (a top-level leaf with nulls).
    Valid(&'a NullBuffer, usize, usize),
    /// The listed slots (values under lists or nullable parents).
    Indices(&'a [usize]),
}

impl Rows<'_> {
    /// Calls `f` with every slot, in order.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(usize)) {
        match *self {
            Rows::Range(start, end) => (start..end).for_each(f),
            Rows::Valid(nulls, start, end) => {
                for i in
                    BitIndexIterator::new(nulls.validity(), nulls.offset() + start, end - start)
                {
                    f(start + i);
                }
            }
            Rows::Indices(indices) => indices.iter().for_each(|&i| f(i)),
        }
    }

    /// Calls `f` with every run `from..to` of consecutive slots, in order.
    pub fn for_each_run<E>(
        &self,
        mut f: impl FnMut(usize, usize) -> Result<(), E>,
    ) -> Result<(), E> {
        match *self {
            Rows::Range(start, end) if start < end => f(start, end),
            Rows::Range(..) => Ok(()),
            Rows::Valid(nulls, start, end) => {
                for (from, to) in
                    BitSliceIterator::new(nulls.validity(), nulls.offset() + start, end - start)
                {
                    f(start + from, start + to)?;
                }
                Ok(())
            }
            Rows::Indices(indices) => {
                let mut i = 0;
                while i < indices.len() {
                    let from = indices[i];
                    let mut j = i + 1;
                    while j < indices.len() && indices[j] == from + (j - i) {
                        j += 1;
                    }
                    f(from, from + (j - i))?;
                    i = j;
                }
                Ok(())
            }
        }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        match *self {
            Rows::Range(start, end) => end.saturating_sub(start),
            Rows::Valid(nulls, start, end) => nulls
                .inner()
                .inner()
                .count_set_bits_offset(nulls.offset() + start, end - start),
            Rows::Indices(indices) => indices.len(),
        }
    }

    /// One past the highest slot (0 when there is none): what the array must hold.
    pub fn end(&self) -> usize {
        match *self {
            Rows::Range(start, end) if start < end => end,
            Rows::Range(..) => 0,
            Rows::Valid(_, _, end) => end,
            Rows::Indices(indices) => indices.iter().max().map_or(0, |&i| i + 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(rows: Rows<'_>) -> Vec<usize> {
        let mut out = Vec::new();
        rows.for_each(|i| out.push(i));
        out
    }

    fn runs(rows: Rows<'_>) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        rows.for_each_run(|a, b| {
            out.push((a, b));
            Ok::<(), ()>(())
        })
        .unwrap();
        out
    }

    #[test]
    fn the_three_forms_agree() {
        let nulls = NullBuffer::from(vec![true, false, true, true, false, false, true]);
        let sliced = nulls.slice(1, 6);
        let valid = Rows::Valid(&sliced, 1, 6);
        assert_eq!(slots(valid), vec![1, 2, 5]);
        assert_eq!(runs(valid), vec![(1, 3), (5, 6)]);
        assert_eq!(valid.len(), 3);
        assert_eq!(valid.end(), 6);
        let indices = [1, 2, 5];
        let listed = Rows::Indices(&indices);
        assert_eq!(slots(listed), vec![1, 2, 5]);
        assert_eq!(runs(listed), vec![(1, 3), (5, 6)]);
        assert_eq!(listed.len(), 3);
        assert_eq!(listed.end(), 6);
        let range = Rows::Range(4, 7);
        assert_eq!(slots(range), vec![4, 5, 6]);
        assert_eq!(runs(range), vec![(4, 7)]);
        assert_eq!((range.len(), range.end()), (3, 7));
        assert_eq!(runs(Rows::Range(3, 3)), vec![]);
        assert_eq!(Rows::Indices(&[]).end(), 0);
    }
}
