//! A list's shape (offsets and validity) from the repetition and definition levels of
//! its first leaf, 64 entries at a time.
//!
//! Every entry whose repetition level is at most the list's own starts an instance of
//! the list; the instance counts (is one of the batch's lists) when its definition
//! level reaches the slot level, and it is null below the list's definition level.
//! Every entry at or above the element level that starts or continues a counted list
//! is an element. The levels of 64 entries become bit masks ([`level_mask`]), and the
//! offsets are counts of the element bits before each list start: the work per entry
//! is a few bit operations, per list two table lookups and one store. List lengths
//! vary, so a loop branching per entry would mispredict.

use super::bits::{BitWriter, compress, level_mask};

/// The levels that place a list's entries.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListLevels {
    /// An entry at or below this repetition level starts an instance of the list.
    pub list_rep: u16,
    /// An instance at or above this definition level is a list, not null.
    pub list_def: u16,
    /// An instance at or above this definition level is one of the batch's lists (the
    /// others are the entries of empty or null lists further up).
    pub slot_def: u16,
    /// An entry at or above this definition level is an element.
    pub entry_def: u16,
    /// An entry continuing a list at or below this repetition level is its element (a
    /// higher level continues a list nested inside an element).
    pub entry_rep: u16,
}

/// What is wrong with levels that do not make lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShapeError {
    /// An entry continues a list, but no list has started.
    Orphan,
    /// A continued non-empty list holds an entry below the element level.
    BelowElement,
}

/// Offsets (one per list, then the end) and validity bits (one per list) of the lists
/// the levels hold.
pub(crate) fn list_shape(
    defs: &[u16],
    reps: &[u16],
    levels: ListLevels,
) -> Result<(Vec<i64>, BitWriter), ShapeError> {
    // A leaf has as many of either level; the entries both give are the list's.
    let entries = defs.len().min(reps.len());
    let (defs, reps) = (&defs[..entries], &reps[..entries]);
    let mut offsets = Vec::with_capacity(entries / 2 + 1);
    let mut valid = BitWriter::with_capacity(entries / 2);
    let mut elements: i64 = 0;
    let mut started_any = false;
    // Whether the list under way is null or empty. DuckDB (2.0) writes a NULL row of a
    // fixed-size ARRAY column (`DOUBLE[3]`) as the null list's entry followed by
    // entries continuing it below the element level, one per element the array type
    // has: padding that adds no element, as DuckDB reads it. A non-empty list
    // continued that way is still an error.
    let mut open_empty = false;
    let (def_blocks, def_tail) = defs.as_chunks::<64>();
    let (rep_blocks, rep_tail) = reps.as_chunks::<64>();
    let blocks = def_blocks
        .iter()
        .map(|d| d.as_slice())
        .zip(rep_blocks.iter().map(|r| r.as_slice()))
        .chain(std::iter::once((def_tail, rep_tail)));
    for (defs, reps) in blocks {
        let masks = Masks::of(defs, reps, &levels);
        // An entry that continues before any list started.
        let before_first = if masks.counted == 0 {
            u64::MAX
        } else {
            (1u64 << masks.counted.trailing_zeros()) - 1
        };
        if !started_any && masks.continued & before_first != 0 {
            return Err(ShapeError::Orphan);
        }
        let suspect = masks.continued & masks.below;
        if suspect != 0 && !continued_empty_lists(&masks, suspect, open_empty) {
            return Err(ShapeError::BelowElement);
        }
        if masks.new_list != 0 {
            let last = 63 - masks.new_list.leading_zeros();
            open_empty = masks.below >> last & 1 == 1;
        }
        let element = ((masks.counted | masks.continued) & !masks.below).to_le_bytes();
        // Element bits before each byte of the block. Without a popcount instruction
        // in the portable build, a count per list start was most of the loop; a table
        // of the bytes' counts is two lookups per start.
        let mut before_byte = [0u8; 8];
        let mut in_block = 0u8;
        for (before, &byte) in before_byte.iter_mut().zip(&element) {
            *before = in_block;
            in_block += BYTE_ONES[usize::from(byte)];
        }
        let mut starts = masks.counted;
        while starts != 0 {
            let at = starts.trailing_zeros() as usize;
            let (byte, bit) = (at / 8, at % 8);
            let before =
                before_byte[byte] + BYTE_ONES[usize::from(element[byte] & ((1 << bit) - 1))];
            offsets.push(elements + i64::from(before));
            starts &= starts - 1;
        }
        let (list_bits, lists) = compress(masks.list, masks.counted);
        valid.push_bits(list_bits, lists);
        started_any |= masks.counted != 0;
        elements += i64::from(in_block);
    }
    offsets.push(elements);
    Ok((offsets, valid))
}

/// The number of set bits of each byte.
static BYTE_ONES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = (byte as u8).count_ones() as u8;
        byte += 1;
    }
    table
};

/// Bit `i` of each mask says something of entry `i` of a block of up to 64.
struct Masks {
    /// Starts an instance of the list.
    new_list: u64,
    /// Starts one of the batch's lists.
    counted: u64,
    /// Continues the list under way at the element level.
    continued: u64,
    /// Below the element level (the list is null or empty there).
    below: u64,
    /// At or above the list's definition level (the list is not null).
    list: u64,
}

impl Masks {
    #[inline(always)]
    fn of(defs: &[u16], reps: &[u16], levels: &ListLevels) -> Self {
        let new_list = level_mask(reps, |r| r <= levels.list_rep);
        let at_entry_rep = level_mask(reps, |r| r <= levels.entry_rep);
        Masks {
            new_list,
            counted: new_list & level_mask(defs, |d| d >= levels.slot_def),
            continued: !new_list & at_entry_rep,
            below: level_mask(defs, |d| d < levels.entry_def),
            list: level_mask(defs, |d| d >= levels.list_def),
        }
    }
}

/// Whether every entry of `suspect` (continuing a list below the element level)
/// continues a null or empty list: one whose start, the last list start before the
/// entry (in this block, or `open_empty` from the blocks before), was below the element
/// level too.
#[cold]
fn continued_empty_lists(masks: &Masks, mut suspect: u64, open_empty: bool) -> bool {
    while suspect != 0 {
        let at = suspect.trailing_zeros();
        let starts_before = masks.new_list & ((1u64 << at) - 1);
        let empty = if starts_before == 0 {
            open_empty
        } else {
            masks.below >> (63 - starts_before.leading_zeros()) & 1 == 1
        };
        if !empty {
            return false;
        }
        suspect &= suspect - 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same shape one entry at a time, as the rules say it.
    fn entry_by_entry(
        defs: &[u16],
        reps: &[u16],
        l: ListLevels,
    ) -> Result<(Vec<i64>, Vec<bool>), ShapeError> {
        let (mut offsets, mut valid) = (Vec::new(), Vec::new());
        let mut elements = 0i64;
        let mut open_empty = false;
        for (&d, &r) in defs.iter().zip(reps) {
            let new_list = r <= l.list_rep;
            let below = d < l.entry_def;
            if new_list {
                if d >= l.slot_def {
                    offsets.push(elements);
                    valid.push(d >= l.list_def);
                    elements += i64::from(!below);
                }
                open_empty = below;
            } else if r <= l.entry_rep {
                if offsets.is_empty() {
                    return Err(ShapeError::Orphan);
                }
                if below && !open_empty {
                    return Err(ShapeError::BelowElement);
                }
                elements += i64::from(!below);
            }
        }
        offsets.push(elements);
        Ok((offsets, valid))
    }

    fn run(defs: &[u16], reps: &[u16], l: ListLevels) -> Result<(Vec<i64>, Vec<bool>), ShapeError> {
        list_shape(defs, reps, l).map(|(offsets, valid)| {
            let valid = valid.finish();
            (offsets, valid.iter().collect())
        })
    }

    /// `list<list<int32>>` with every list and element nullable: an entry of the
    /// outer list is at def 0 (null list), 1 (empty), 2 (null inner list), 3 (empty
    /// inner list), 4 (null value) or 5 (a value); the outer list repeats at rep 1, the
    /// inner at rep 2.
    const OUTER: ListLevels = ListLevels {
        list_rep: 0,
        list_def: 1,
        slot_def: 0,
        entry_def: 2,
        entry_rep: 1,
    };
    const INNER: ListLevels = ListLevels {
        list_rep: 1,
        list_def: 3,
        slot_def: 2,
        entry_def: 4,
        entry_rep: 2,
    };

    #[test]
    fn nested_lists_with_nulls_and_empties() {
        // Rows: [[1, 2], [], null], null, [], [[3]]
        let defs = [5, 5, 3, 2, 0, 1, 5];
        let reps = [0, 2, 1, 1, 0, 0, 0];
        assert_eq!(
            run(&defs, &reps, OUTER),
            Ok((vec![0, 3, 3, 3, 4], vec![true, false, true, true]))
        );
        // Inner lists (slots of the outer's elements): [1, 2], [], null, [3].
        assert_eq!(
            run(&defs, &reps, INNER),
            Ok((vec![0, 2, 2, 2, 3], vec![true, true, false, true]))
        );
    }

    #[test]
    fn levels_that_make_no_lists_are_errors() {
        // An element before any list.
        assert_eq!(run(&[2, 2], &[1, 0], OUTER), Err(ShapeError::Orphan));
        // A non-empty list continued below the element level.
        assert_eq!(run(&[2, 1], &[0, 1], OUTER), Err(ShapeError::BelowElement));
        // A null list continued below it (DuckDB's padding of a NULL fixed-size
        // array): one null list, no element.
        assert_eq!(
            run(&[0, 0, 0], &[0, 1, 1], OUTER),
            Ok((vec![0, 0], vec![false]))
        );
    }

    fn levels_and_shape() -> impl Strategy<Value = (Vec<u16>, Vec<u16>, ListLevels)> {
        (0u16..3, 0u16..3, 0u16..3, 0u16..3, 0u16..3).prop_flat_map(
            |(list_rep, slot_def, list_extra, entry_extra, rep_extra)| {
                let list_def = slot_def + list_extra;
                let entry_def = list_def + entry_extra;
                let entry_rep = list_rep + 1 + rep_extra % 2;
                let levels = ListLevels {
                    list_rep,
                    list_def,
                    slot_def,
                    entry_def,
                    entry_rep,
                };
                (0usize..300).prop_flat_map(move |n| {
                    (
                        proptest::collection::vec(0..=entry_def + 1, n),
                        proptest::collection::vec(0..=entry_rep + 1, n),
                        Just(levels),
                    )
                })
            },
        )
    }

    proptest! {
        #[test]
        fn masks_give_the_entry_by_entry_shape((defs, reps, levels) in levels_and_shape()) {
            prop_assert_eq!(run(&defs, &reps, levels), entry_by_entry(&defs, &reps, levels));
        }
    }
}
