//! A row group's `sorting_columns`: the rows must be in that order.
//!
//! The sort columns are checked one after another, primary first, each in one pass
//! over its values: a bit per row remembers whether the row still ties with the one
//! before on every earlier sort column, and only tied rows are compared on the next
//! column. Memory: one bit per row decoded, plus the previous value.

use std::cmp::Ordering;

use super::chunk::ColumnFacts;
use super::order::{OwnedValue, display};
use super::values::Value;

/// The order check of one sort column over one row group.
#[derive(Debug)]
pub(crate) struct SortCheck {
    descending: bool,
    nulls_first: bool,
    /// Bit `i`: row `i` ties with row `i - 1` on every earlier sort column (all ones
    /// for the primary column).
    tied_before: Option<Vec<u64>>,
    /// Bit `i`: row `i` ties with row `i - 1` up to and including this column.
    tied_after: Vec<u64>,
    row: u64,
    previous: Option<Option<OwnedValue>>,
    /// The first row out of order and why.
    pub violation: Option<(u64, String)>,
    /// The column's order cannot compare some values (undefined order, NaN).
    pub incomparable: bool,
}

impl SortCheck {
    /// A check of one column; `tied_before` is what the previous sort column left
    /// (`None` for the primary column).
    pub(crate) fn new(descending: bool, nulls_first: bool, tied_before: Option<Vec<u64>>) -> Self {
        Self {
            descending,
            nulls_first,
            tied_before,
            tied_after: Vec::new(),
            row: 0,
            previous: None,
            violation: None,
            incomparable: false,
        }
    }

    fn tied_before(&self, row: u64) -> bool {
        match &self.tied_before {
            None => true,
            Some(bits) => bits
                .get((row / 64) as usize)
                .is_some_and(|w| w >> (row % 64) & 1 == 1),
        }
    }

    fn set_tied_after(&mut self, row: u64) {
        let word = (row / 64) as usize;
        if self.tied_after.len() <= word {
            self.tied_after.resize(word + 1, 0);
        }
        self.tied_after[word] |= 1 << (row % 64);
    }

    /// The next row's value (`None` for null).
    pub(crate) fn row(&mut self, value: Option<Value<'_>>, facts: &ColumnFacts) {
        let row = self.row;
        self.row += 1;
        let Some(previous) = self.previous.take() else {
            self.previous = Some(value.map(OwnedValue::of));
            return;
        };
        if self.tied_before(row) {
            let ordering = match (&previous, value) {
                (None, None) => Some(Ordering::Equal),
                (None, Some(_)) => Some(if self.nulls_first {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }),
                (Some(_), None) => Some(if self.nulls_first {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }),
                (Some(p), Some(v)) => facts
                    .order
                    .compare(p.as_value(), v, facts.float16)
                    .map(|o| if self.descending { o.reverse() } else { o }),
            };
            match ordering {
                Some(Ordering::Equal) => self.set_tied_after(row),
                Some(Ordering::Less) => {}
                Some(Ordering::Greater) => {
                    if self.violation.is_none() {
                        let shown = |v: Option<Value<'_>>| {
                            v.map_or("null".to_string(), |v| {
                                display(v, facts.order, facts.float16)
                            })
                        };
                        self.violation = Some((
                            row,
                            format!(
                                "row {row} ({}) comes after row {} ({}) in a {} order with nulls {}",
                                shown(value),
                                row - 1,
                                shown(previous.as_ref().map(OwnedValue::as_value)),
                                if self.descending {
                                    "descending"
                                } else {
                                    "ascending"
                                },
                                if self.nulls_first { "first" } else { "last" },
                            ),
                        ));
                    }
                }
                None => self.incomparable = true,
            }
        }
        self.previous = Some(value.map(OwnedValue::of));
    }

    /// What the next sort column needs: the rows that still tie.
    pub(crate) fn into_ties(self) -> Vec<u64> {
        self.tied_after
    }
}
