//! Definition and repetition levels of Arrow arrays (Dremel encoding).
//!
//! For every leaf column, `compute_levels` walks a top-level Arrow array slot by slot
//! and emits one `(definition, repetition)` pair per Parquet value slot: a null at any
//! level, an empty list, or a present leaf value (whose index into the leaf array is
//! kept). Arrays are read through their logical view (`is_null`, `value_offsets`), so
//! sliced arrays with non-zero offsets need no special handling.
//!
//! Levels count as follows, from the top: every optional field that is present adds one
//! definition level, every list that has at least one element adds one (its repeated
//! group); a value's repetition level is the depth of the innermost list in which it is
//! not the first element (0 for the first value of a row).

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, FixedSizeListArray, MapArray};
use arrow_buffer::NullBuffer;
use arrow_buffer::bit_iterator::BitSliceIterator;
use arrow_schema::DataType;

use super::schema::{WriteField, WriteKind};
use crate::error::{Error, Result};

/// The levels and values of one leaf column for one batch.
#[derive(Debug, Clone)]
pub(crate) struct LeafLevels {
    /// The leaf array the values come from (a dictionary array stays one: the column
    /// writer uses its keys).
    pub values: ArrayRef,
    /// Where the levels and the present values are.
    pub layout: Layout,
}

/// The levels of a [`LeafLevels`] and where its present values are.
#[derive(Debug, Clone)]
pub(crate) enum Layout {
    /// A top-level leaf: slot `i` is slot `i` of the array, and holds a value unless
    /// `nulls` says it is null. No level is materialised.
    Flat {
        /// Logical validity of the array (a dictionary's null values count as null),
        /// when it has nulls.
        nulls: Option<NullBuffer>,
    },
    /// A leaf under lists or structs: its levels, one per slot, and its present
    /// values in slot order.
    Nested {
        /// Definition level of every slot.
        def: Vec<i16>,
        /// Repetition level of every slot.
        rep: Vec<i16>,
        /// Where the present values are in the array.
        selection: Selection,
    },
}

/// Where the present values of a nested leaf are in its array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Selection {
    /// Value `k` is slot `first + k`: one run of the array (lists of a null-free leaf
    /// that follow each other).
    Contiguous(usize),
    /// Value `k` is slot `indices[k]`.
    Indices(Vec<usize>),
}

impl LeafLevels {
    /// Definition levels, repetition levels and value slots of every slot, however
    /// they are held (`max_def`: the leaf's maximum definition level).
    #[cfg(test)]
    pub fn materialize(&self, max_def: i16) -> (Vec<i16>, Vec<i16>, Vec<usize>) {
        match &self.layout {
            Layout::Flat { nulls } => {
                let n = self.values.len();
                let valid = |i: usize| nulls.as_ref().is_none_or(|b| b.is_valid(i));
                (
                    (0..n).map(|i| if valid(i) { max_def } else { 0 }).collect(),
                    vec![0; n],
                    (0..n).filter(|&i| valid(i)).collect(),
                )
            }
            Layout::Nested {
                def,
                rep,
                selection,
            } => {
                let present = def.iter().filter(|&&d| d == max_def).count();
                let indices = match selection {
                    Selection::Contiguous(first) => (*first..first + present).collect(),
                    Selection::Indices(indices) => indices.clone(),
                };
                (def.clone(), rep.clone(), indices)
            }
        }
    }
}

/// A nested leaf's levels and value indices as the walker builds them.
#[derive(Debug)]
struct LeafBuilder {
    def: Vec<i16>,
    rep: Vec<i16>,
    indices: ValueIndices,
    values: ArrayRef,
    /// Logical validity of `values` (a dictionary's null values and a `Null` array's
    /// slots count as null).
    nulls: Option<NullBuffer>,
}

impl LeafBuilder {
    fn new(values: ArrayRef) -> Self {
        Self {
            def: Vec::new(),
            rep: Vec::new(),
            indices: ValueIndices::default(),
            nulls: values.logical_nulls(),
            values,
        }
    }

    /// The finished levels.
    fn finish(self) -> LeafLevels {
        let selection = self.indices.finish();
        LeafLevels {
            values: self.values,
            layout: Layout::Nested {
                def: self.def,
                rep: self.rep,
                selection,
            },
        }
    }
}

/// The present values' indices of a nested leaf as the walker finds them: one ascending
/// run for as long as they follow each other (the usual case, where no index is stored),
/// else every index in `scattered`.
#[derive(Debug, Default)]
struct ValueIndices {
    /// While `scattered` is empty, the indices are `first..end`.
    first: usize,
    end: usize,
    /// Every index, once they stopped being one run (never empty then).
    scattered: Vec<usize>,
}

impl ValueIndices {
    /// Appends the indices `from..to`.
    #[inline]
    fn push_range(&mut self, from: usize, to: usize) {
        if from >= to {
            return;
        }
        if self.scattered.is_empty() {
            if self.first == self.end {
                (self.first, self.end) = (from, to);
                return;
            }
            if self.end == from {
                self.end = to;
                return;
            }
        }
        self.scattered().extend(from..to);
    }

    /// The indices as a list, to push to one by one.
    fn scattered(&mut self) -> &mut Vec<usize> {
        if self.scattered.is_empty() {
            self.scattered.extend(self.first..self.end);
            self.end = self.first;
        }
        &mut self.scattered
    }

    /// Where the values are: a list that is one ascending run is a range too.
    fn finish(self) -> Selection {
        let list = self.scattered;
        match (list.first(), list.last()) {
            (None, _) if self.first < self.end => Selection::Contiguous(self.first),
            (None, _) => Selection::Contiguous(0),
            (Some(&first), Some(&last))
                if last.checked_sub(first) == Some(list.len() - 1)
                    && list.windows(2).all(|w| w[1] == w[0] + 1) =>
            {
                Selection::Contiguous(first)
            }
            _ => Selection::Indices(list),
        }
    }
}

/// Levels of every leaf under `field` for all rows of `array` (one top-level column of a
/// batch): one entry per leaf under the field, in order.
pub(crate) fn compute_levels(field: &WriteField, array: &ArrayRef) -> Result<Vec<LeafLevels>> {
    if let WriteKind::Leaf(_) = field.kind {
        // A top-level leaf: the levels are the validity, no slot walk.
        let nulls = array.logical_nulls().filter(|n| n.null_count() > 0);
        if let Some(nulls) = &nulls
            && !field.nullable
        {
            return Err(Error::invalid_argument(format!(
                "a non-nullable field of type {} holds {} nulls",
                array.data_type(),
                nulls.null_count()
            )));
        }
        return Ok(vec![LeafLevels {
            values: array.clone(),
            layout: Layout::Flat { nulls },
        }]);
    }
    let mut leaves = Vec::new();
    field.leaves(&mut leaves);
    let base = leaves.first().copied().unwrap_or(0);
    let mut out: Vec<Option<LeafBuilder>> = (0..leaves.len()).map(|_| None).collect();
    collect_arrays(field, array, base, &mut out)?;
    let mut out: Vec<LeafBuilder> = out
        .into_iter()
        .map(|l| l.ok_or_else(|| Error::invalid_argument("a leaf column has no array")))
        .collect::<Result<_>>()?;
    for l in &mut out {
        l.def.reserve(array.len());
        l.rep.reserve(array.len());
    }
    let mut walker = Walker {
        base,
        out,
        list_starts: Vec::new(),
    };
    let rows = Slots {
        start: 0,
        end: array.len(),
        def: 0,
        first_rep: 0,
        rest_rep: 0,
        depth: 0,
    };
    walker.visit_range(field, array.as_ref(), rows)?;
    Ok(walker.out.into_iter().map(LeafBuilder::finish).collect())
}

/// Finds the leaf arrays (list values are taken whole: offsets index into them).
fn collect_arrays(
    field: &WriteField,
    array: &ArrayRef,
    base: usize,
    out: &mut [Option<LeafBuilder>],
) -> Result<()> {
    match &field.kind {
        WriteKind::Leaf(k) => {
            out[k - base] = Some(LeafBuilder::new(array.clone()));
        }
        WriteKind::Struct(children) => {
            let s = array
                .as_struct_opt()
                .ok_or_else(|| mismatch("struct", array.data_type()))?;
            if s.num_columns() != children.len() {
                return Err(Error::invalid_argument(format!(
                    "struct array has {} columns, the schema {}",
                    s.num_columns(),
                    children.len()
                )));
            }
            for (child, column) in children.iter().zip(s.columns()) {
                collect_arrays(child, column, base, out)?;
            }
        }
        WriteKind::List(child) => {
            let values = list_values(array.as_ref())?;
            collect_arrays(child, &values, base, out)?;
        }
    }
    Ok(())
}

fn mismatch(expected: &str, actual: &DataType) -> Error {
    Error::invalid_argument(format!(
        "expected a {expected} array for this field, got {actual}"
    ))
}

fn list_values(array: &dyn Array) -> Result<ArrayRef> {
    Ok(match array.data_type() {
        DataType::List(_) => array.as_list::<i32>().values().clone(),
        DataType::LargeList(_) => array.as_list::<i64>().values().clone(),
        DataType::ListView(_) => array.as_list_view::<i32>().values().clone(),
        DataType::LargeListView(_) => array.as_list_view::<i64>().values().clone(),
        DataType::FixedSizeList(_, _) => fixed_list(array)?.values().clone(),
        DataType::Map(_, _) => {
            let entries: ArrayRef = std::sync::Arc::new(map(array)?.entries().clone());
            entries
        }
        other => return Err(mismatch("list or map", other)),
    })
}

fn fixed_list(array: &dyn Array) -> Result<&FixedSizeListArray> {
    array
        .as_any()
        .downcast_ref::<FixedSizeListArray>()
        .ok_or_else(|| mismatch("fixed-size list", array.data_type()))
}

fn map(array: &dyn Array) -> Result<&MapArray> {
    array
        .as_any()
        .downcast_ref::<MapArray>()
        .ok_or_else(|| mismatch("map", array.data_type()))
}

/// The element ranges of a list-like array's slots, with the downcast done once.
enum ListRanges<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    View32(&'a [i32], &'a [i32]),
    View64(&'a [i64], &'a [i64]),
    Fixed(&'a FixedSizeListArray),
}

impl ListRanges<'_> {
    fn of(array: &dyn Array) -> Result<ListRanges<'_>> {
        Ok(match array.data_type() {
            DataType::List(_) => ListRanges::I32(array.as_list::<i32>().value_offsets()),
            DataType::LargeList(_) => ListRanges::I64(array.as_list::<i64>().value_offsets()),
            DataType::ListView(_) => {
                let l = array.as_list_view::<i32>();
                ListRanges::View32(l.value_offsets(), l.value_sizes())
            }
            DataType::LargeListView(_) => {
                let l = array.as_list_view::<i64>();
                ListRanges::View64(l.value_offsets(), l.value_sizes())
            }
            DataType::FixedSizeList(_, _) => ListRanges::Fixed(fixed_list(array)?),
            DataType::Map(_, _) => ListRanges::I32(map(array)?.value_offsets()),
            other => return Err(mismatch("list or map", other)),
        })
    }

    /// The element range of slot `i` in the list's values.
    fn range(&self, i: usize) -> Result<(usize, usize)> {
        let bad =
            || Error::invalid_argument(format!("list slot {i} has a negative offset or size"));
        let range = match self {
            ListRanges::I32(o) => (
                usize::try_from(o[i]).map_err(|_| bad())?,
                usize::try_from(o[i + 1]).map_err(|_| bad())?,
            ),
            ListRanges::I64(o) => (
                usize::try_from(o[i]).map_err(|_| bad())?,
                usize::try_from(o[i + 1]).map_err(|_| bad())?,
            ),
            ListRanges::View32(o, n) => {
                let start = usize::try_from(o[i]).map_err(|_| bad())?;
                (start, start + usize::try_from(n[i]).map_err(|_| bad())?)
            }
            ListRanges::View64(o, n) => {
                let start = usize::try_from(o[i]).map_err(|_| bad())?;
                (start, start + usize::try_from(n[i]).map_err(|_| bad())?)
            }
            ListRanges::Fixed(l) => {
                let start = usize::try_from(l.value_offset(i)).map_err(|_| bad())?;
                (
                    start,
                    start + usize::try_from(l.value_length()).map_err(|_| bad())?,
                )
            }
        };
        Ok(range)
    }
}

struct Walker {
    base: usize,
    out: Vec<LeafBuilder>,
    /// Scratch of [`Walker::list_of_leaves`], kept between calls.
    list_starts: Vec<(usize, i16)>,
}

/// A list array made ready for walking its slots: the downcasts done and, when its
/// elements are leaves or a struct of leaves, the leaves filled in bulk
/// ([`Walker::bulk_leaves`]). Made once per array, not once per slot of a list above it.
struct ListParts<'a> {
    ranges: ListRanges<'a>,
    values: ArrayRef,
    bulk: Option<Vec<BulkLeaf>>,
}

/// Slots `start..end` of an array being walked, and the levels they start from.
#[derive(Debug, Clone, Copy)]
struct Slots {
    start: usize,
    end: usize,
    /// The level the slots' parent is defined up to.
    def: i16,
    /// Repetition level of the first slot.
    first_rep: i16,
    /// Repetition level of the others: the same as the first at the top, where every
    /// slot starts a row; inside a list, the list's depth.
    rest_rep: i16,
    /// Lists above the slots.
    depth: i16,
}

impl Slots {
    /// The repetition level of slot `i`.
    fn rep_of(&self, i: usize) -> i16 {
        if i == self.start {
            self.first_rep
        } else {
            self.rest_rep
        }
    }
}

impl Walker {
    /// Emits the levels of `slots` of `array`.
    ///
    /// Works on ranges rather than slot by slot: a leaf's levels are bulk fills, a
    /// struct's children are walked once per run of valid slots, and each list's elements
    /// are one range of its child.
    fn visit_range(&mut self, field: &WriteField, array: &dyn Array, slots: Slots) -> Result<()> {
        let Slots {
            start,
            end,
            def,
            first_rep,
            rest_rep,
            ..
        } = slots;
        if start >= end {
            return Ok(());
        }
        let present_def = def + i16::from(field.nullable);
        match &field.kind {
            WriteKind::Leaf(k) => {
                let leaf = &mut self.out[k - self.base];
                match leaf.nulls.as_ref().filter(|n| n.null_count() > 0) {
                    None => {
                        leaf.def.resize(leaf.def.len() + (end - start), present_def);
                        leaf.rep.push(first_rep);
                        leaf.rep
                            .resize(leaf.rep.len() + (end - start - 1), rest_rep);
                        leaf.indices.push_range(start, end);
                    }
                    Some(nulls) => {
                        if !field.nullable
                            && let Some(i) = (start..end).find(|&i| nulls.is_null(i))
                        {
                            return Err(non_nullable(array, i));
                        }
                        // Bulk fills: repetition levels are the first one then the
                        // rest, definition levels one bit test each, and the present
                        // values' indices one range per run of valid slots.
                        leaf.rep.push(first_rep);
                        leaf.rep
                            .resize(leaf.rep.len() + (end - start - 1), rest_rep);
                        leaf.def.extend(
                            (start..end).map(|i| if nulls.is_valid(i) { present_def } else { def }),
                        );
                        for (from, to) in BitSliceIterator::new(
                            nulls.validity(),
                            nulls.offset() + start,
                            end - start,
                        ) {
                            leaf.indices.push_range(start + from, start + to);
                        }
                    }
                }
            }
            WriteKind::Struct(children) => {
                let s = array
                    .as_struct_opt()
                    .ok_or_else(|| mismatch("struct", array.data_type()))?;
                let visit_valid = |w: &mut Walker, from: usize, to: usize| -> Result<()> {
                    for (child, column) in children.iter().zip(s.columns()) {
                        let run = Slots {
                            start: from,
                            end: to,
                            def: present_def,
                            first_rep: slots.rep_of(from),
                            ..slots
                        };
                        w.visit_range(child, column.as_ref(), run)?;
                    }
                    Ok(())
                };
                match s.nulls().filter(|n| n.null_count() > 0) {
                    None => visit_valid(self, start, end)?,
                    Some(nulls)
                        if field.nullable
                            && children
                                .iter()
                                .all(|c| matches!(c.kind, WriteKind::Leaf(_))) =>
                    {
                        self.struct_of_leaves(children, s, nulls, slots)?;
                    }
                    Some(nulls) => {
                        // Runs of valid slots go to the children whole; each null slot
                        // is one undefined level pair per leaf.
                        // Runs found from the bitmap, 64 slots at a time.
                        let mut i = start;
                        let runs = BitSliceIterator::new(
                            nulls.validity(),
                            nulls.offset() + start,
                            end - start,
                        );
                        for (from, to) in runs.chain(std::iter::once((end - start, end - start))) {
                            let (from, to) = (start + from, start + to);
                            while i < from {
                                if !field.nullable {
                                    return Err(non_nullable(array, i));
                                }
                                self.push_empty(field, def, slots.rep_of(i));
                                i += 1;
                            }
                            if from < to {
                                visit_valid(self, from, to)?;
                            }
                            i = to;
                        }
                    }
                }
            }
            WriteKind::List(child) => {
                let parts = self.list_parts(child, array, present_def)?;
                self.visit_list(field, child, array, &parts, slots)?;
            }
        }
        Ok(())
    }

    /// The parts of `array`, a list whose element field is `child` and whose slots are
    /// defined at `present_def` when valid.
    fn list_parts<'a>(
        &self,
        child: &WriteField,
        array: &'a dyn Array,
        present_def: i16,
    ) -> Result<ListParts<'a>> {
        let ranges = ListRanges::of(array)?;
        let values = list_values(array)?;
        let bulk = self.bulk_leaves(child, values.as_ref(), present_def + 1);
        Ok(ListParts {
            ranges,
            values,
            bulk,
        })
    }

    /// [`Walker::visit_range`] of a list (`field`, with element field `child`) whose
    /// parts are made. A list of lists makes its elements' parts once, not once a slot.
    fn visit_list(
        &mut self,
        field: &WriteField,
        child: &WriteField,
        array: &dyn Array,
        parts: &ListParts<'_>,
        slots: Slots,
    ) -> Result<()> {
        if slots.start >= slots.end {
            return Ok(());
        }
        let present_def = slots.def + i16::from(field.nullable);
        let values = &parts.values;
        if let Some(leaves) = &parts.bulk {
            return self.list_of_leaves(field, array, &parts.ranges, values.len(), leaves, slots);
        }
        let element_def = present_def + 1;
        let element_list = match &child.kind {
            WriteKind::List(grandchild) => Some((
                grandchild,
                self.list_parts(
                    grandchild,
                    values.as_ref(),
                    element_def + i16::from(child.nullable),
                )?,
            )),
            _ => None,
        };
        let nulls = array.nulls().filter(|n| n.null_count() > 0);
        for i in slots.start..slots.end {
            let rep = slots.rep_of(i);
            if nulls.is_some_and(|n| n.is_null(i)) {
                if !field.nullable {
                    return Err(non_nullable(array, i));
                }
                self.push_empty(field, slots.def, rep);
                continue;
            }
            let (from, to) = parts.ranges.range(i)?;
            if from >= to {
                self.push_empty(child, present_def, rep);
                continue;
            }
            if to > values.len() {
                return Err(Error::invalid_argument(format!(
                    "list slot {i} ends at {to}, past its {} values",
                    values.len()
                )));
            }
            let elements = Slots {
                start: from,
                end: to,
                def: element_def,
                first_rep: rep,
                rest_rep: slots.depth + 1,
                depth: slots.depth + 1,
            };
            match &element_list {
                Some((grandchild, element_parts)) => {
                    self.visit_list(child, grandchild, values.as_ref(), element_parts, elements)?
                }
                None => self.visit_range(child, values.as_ref(), elements)?,
            }
        }
        Ok(())
    }

    /// When `field` (the element of a list, defined at `def` when present) is a leaf,
    /// or a struct without nulls of leaves: each leaf's index into `self.out`, the
    /// definition level of its present values and, when it holds nulls (allowed only
    /// in a nullable leaf, whose nulls are then defined one level lower), its validity.
    fn bulk_leaves(
        &self,
        field: &WriteField,
        array: &dyn Array,
        def: i16,
    ) -> Option<Vec<BulkLeaf>> {
        let leaf_def = def + i16::from(field.nullable);
        let leaf = |k: usize, nullable: bool, leaf_def: i16| {
            let index = k.checked_sub(self.base)?;
            let nulls = self
                .out
                .get(index)?
                .nulls
                .clone()
                .filter(|n| n.null_count() > 0);
            // A null in a non-nullable leaf: the per-slot path reports it.
            if nulls.is_some() && !nullable {
                return None;
            }
            Some(BulkLeaf {
                index,
                def: leaf_def,
                nulls,
            })
        };
        match &field.kind {
            WriteKind::Leaf(k) => Some(vec![leaf(*k, field.nullable, leaf_def)?]),
            WriteKind::Struct(children) => {
                let s = array.as_struct_opt()?;
                if s.nulls().is_some_and(|n| n.null_count() > 0)
                    || s.num_columns() != children.len()
                {
                    return None;
                }
                children
                    .iter()
                    .map(|c| match c.kind {
                        WriteKind::Leaf(k) => leaf(k, c.nullable, leaf_def + i16::from(c.nullable)),
                        _ => None,
                    })
                    .collect()
            }
            WriteKind::List(_) => None,
        }
    }

    /// [`Walker::visit_range`] of a list whose elements are leaves or a struct of leaves (see
    /// [`Walker::bulk_leaves`]): per list slot, each leaf gets its levels as bulk
    /// fills and its value indices as one range, without a call per element.
    fn list_of_leaves(
        &mut self,
        field: &WriteField,
        array: &dyn Array,
        ranges: &ListRanges<'_>,
        num_values: usize,
        leaves: &[BulkLeaf],
        slots: Slots,
    ) -> Result<()> {
        let present_def = slots.def + i16::from(field.nullable);
        let nulls = array.nulls().filter(|n| n.null_count() > 0);
        let element_rep = slots.depth + 1;
        let is_null = |i: usize| nulls.is_some_and(|n| n.is_null(i));
        // Consecutive valid, non-empty lists whose element ranges follow each other
        // (always so for offsets) are one run of elements: each leaf gets the run's
        // levels and indices in bulk (definition levels and indices from the validity
        // bitmap 64 elements at a time) and the repetition level of each list's first
        // element patched in, instead of a few calls per list of a handful of elements.
        let mut list_starts = std::mem::take(&mut self.list_starts);
        let mut i = slots.start;
        while i < slots.end {
            let rep = slots.rep_of(i);
            let slot_def = if is_null(i) {
                if !field.nullable {
                    return Err(non_nullable(array, i));
                }
                Some(slots.def)
            } else {
                let (from, to) = ranges.range(i)?;
                (from >= to).then_some(present_def)
            };
            if let Some(d) = slot_def {
                // A null or empty list: one undefined level pair per leaf.
                for bulk in leaves {
                    let leaf = &mut self.out[bulk.index];
                    leaf.def.push(d);
                    leaf.rep.push(rep);
                }
                i += 1;
                continue;
            }
            let (run_from, mut run_to) = ranges.range(i)?;
            list_starts.clear();
            list_starts.push((0, rep));
            let mut next = i + 1;
            while next < slots.end && !is_null(next) {
                let (from, to) = ranges.range(next)?;
                if from >= to || from != run_to {
                    break;
                }
                list_starts.push((from - run_from, slots.rest_rep));
                run_to = to;
                next += 1;
            }
            if run_to > num_values {
                return Err(Error::invalid_argument(format!(
                    "list slots {i}..{next} end at {run_to}, past their {num_values} values"
                )));
            }
            let len = run_to - run_from;
            for bulk in leaves {
                let leaf = &mut self.out[bulk.index];
                let base = leaf.rep.len();
                leaf.rep.resize(base + len, element_rep);
                for &(at, r) in &list_starts {
                    leaf.rep[base + at] = r;
                }
                match &bulk.nulls {
                    None => {
                        leaf.def.resize(leaf.def.len() + len, bulk.def);
                        leaf.indices.push_range(run_from, run_to);
                    }
                    // A null element is defined up to its (nullable) leaf.
                    Some(nulls) => push_valid_levels(
                        &mut leaf.def,
                        leaf.indices.scattered(),
                        nulls.validity(),
                        nulls.offset() + run_from,
                        len,
                        run_from,
                        bulk.def,
                    ),
                }
            }
            i = next;
        }
        self.list_starts = list_starts;
        Ok(())
    }

    /// [`Walker::visit_range`] of a nullable struct with nulls whose children are all
    /// leaves: each leaf's levels in one pass over the slots from the struct's and its
    /// own validity, and its present values' indices one range per run of slots where
    /// both are valid (no call per run of valid struct slots, no pair per null).
    fn struct_of_leaves(
        &mut self,
        children: &[WriteField],
        array: &arrow_array::StructArray,
        nulls: &arrow_buffer::NullBuffer,
        slots: Slots,
    ) -> Result<()> {
        // The struct is nullable: present at def + 1. Levels and indices come from the
        // validity bitmaps 64 slots at a time (only the slots `start..end` are read: under
        // a list this is one list's elements).
        let len = slots.end - slots.start;
        let struct_bits = nulls.inner().slice(slots.start, len);
        for (child, column) in children.iter().zip(array.columns()) {
            let WriteKind::Leaf(k) = child.kind else {
                continue;
            };
            let leaf = &mut self.out[k - self.base];
            let child_nulls = leaf.nulls.clone().filter(|n| n.null_count() > 0);
            leaf.rep.push(slots.first_rep);
            leaf.rep.resize(leaf.rep.len() + (len - 1), slots.rest_rep);
            match &child_nulls {
                None => {
                    let present = slots.def + 1 + i16::from(child.nullable);
                    push_bit_levels(
                        &mut leaf.def,
                        &struct_bits,
                        None,
                        slots.def,
                        present - slots.def,
                    );
                    leaf.indices
                        .scattered()
                        .extend(struct_bits.set_indices().map(|i| slots.start + i));
                }
                Some(child_nulls) => {
                    let child_bits = child_nulls.inner().slice(slots.start, len);
                    if !child.nullable
                        && let Some(i) = (&struct_bits & &!&child_bits).set_indices().next()
                    {
                        return Err(non_nullable(column.as_ref(), slots.start + i));
                    }
                    // Present where both the struct and the child are valid.
                    let both = &struct_bits & &child_bits;
                    if child.nullable {
                        push_bit_levels(&mut leaf.def, &struct_bits, Some(&both), slots.def, 1);
                    } else {
                        push_bit_levels(&mut leaf.def, &struct_bits, None, slots.def, 1);
                    }
                    leaf.indices
                        .scattered()
                        .extend(both.set_indices().map(|i| slots.start + i));
                }
            }
        }
        Ok(())
    }

    /// A slot undefined at `def` (a null or an empty list): one level pair per leaf.
    fn push_empty(&mut self, field: &WriteField, def: i16, rep: i16) {
        match &field.kind {
            WriteKind::Leaf(k) => {
                let leaf = &mut self.out[k - self.base];
                leaf.def.push(def);
                leaf.rep.push(rep);
            }
            WriteKind::Struct(children) => {
                for child in children {
                    self.push_empty(child, def, rep);
                }
            }
            WriteKind::List(child) => self.push_empty(child, def, rep),
        }
    }
}

/// Levels and indices of `len` elements of a nullable leaf from its validity bits
/// (`bits` from bit `offset`): definition level `present` for a valid element and
/// `present - 1` for a null, and the index (`first` + position) of each valid element,
/// 64 elements per word of the bitmap.
fn push_valid_levels(
    def: &mut Vec<i16>,
    indices: &mut Vec<usize>,
    bits: &[u8],
    offset: usize,
    len: usize,
    first: usize,
    present: i16,
) {
    let chunks = arrow_buffer::bit_chunk_iterator::BitChunks::new(bits, offset, len);
    def.reserve(len);
    indices.reserve(len);
    let null = present - 1;
    let mut at = first;
    let mut word = |w: u64, n: usize, at: usize| {
        def.extend((0..n).map(|j| null + ((w >> j) & 1) as i16));
        let mut w = if n < 64 { w & ((1u64 << n) - 1) } else { w };
        while w != 0 {
            indices.push(at + w.trailing_zeros() as usize);
            w &= w - 1;
        }
    };
    for w in chunks.iter() {
        word(w, 64, at);
        at += 64;
    }
    word(chunks.remainder_bits(), chunks.remainder_len(), at);
}

/// A leaf under a list that [`Walker::list_of_leaves`] fills in bulk.
struct BulkLeaf {
    /// Index into the walker's leaves.
    index: usize,
    /// Definition level of a present value.
    def: i16,
    /// Validity of the leaf array when it holds nulls (its field is then nullable).
    nulls: Option<arrow_buffer::NullBuffer>,
}

fn non_nullable(array: &dyn Array, i: usize) -> Error {
    Error::invalid_argument(format!(
        "a non-nullable field of type {} holds a null (slot {i})",
        array.data_type()
    ))
}

/// Appends one definition level per bit of `a`: `base + step * a[i] + b[i]` (`b`, when
/// given, is only set where `a` is), read 64 bits at a time.
fn push_bit_levels(
    out: &mut Vec<i16>,
    a: &arrow_buffer::BooleanBuffer,
    b: Option<&arrow_buffer::BooleanBuffer>,
    base: i16,
    step: i16,
) {
    out.reserve(a.len());
    let ca = a.inner().bit_chunks(a.offset(), a.len());
    match b {
        None => {
            for w in ca.iter() {
                out.extend((0..64).map(|j| base + step * ((w >> j) & 1) as i16));
            }
            let w = ca.remainder_bits();
            out.extend((0..ca.remainder_len()).map(|j| base + step * ((w >> j) & 1) as i16));
        }
        Some(b) => {
            let cb = b.inner().bit_chunks(b.offset(), b.len());
            for (wa, wb) in ca.iter().zip(cb.iter()) {
                out.extend(
                    (0..64).map(|j| base + step * ((wa >> j) & 1) as i16 + ((wb >> j) & 1) as i16),
                );
            }
            let (wa, wb) = (ca.remainder_bits(), cb.remainder_bits());
            out.extend(
                (0..ca.remainder_len())
                    .map(|j| base + step * ((wa >> j) & 1) as i16 + ((wb >> j) & 1) as i16),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::builder::{Int32Builder, ListBuilder};
    use arrow_array::{Int32Array, ListArray, StructArray};
    use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
    use arrow_schema::{Field, Fields, Schema};

    use super::*;
    use crate::write::schema::{ArrowToParquetOptions, arrow_to_parquet};

    /// Levels of every leaf of the single column `array` (field nullable as given).
    fn levels(array: ArrayRef, nullable: bool) -> Vec<(Vec<i16>, Vec<i16>, Vec<usize>)> {
        let schema = Schema::new(vec![Field::new("c", array.data_type().clone(), nullable)]);
        let parquet = arrow_to_parquet(&schema, ArrowToParquetOptions::default()).unwrap();
        let descriptor = &parquet.descriptor;
        compute_levels(&parquet.fields[0], &array)
            .unwrap()
            .into_iter()
            .enumerate()
            .map(|(i, l)| l.materialize(descriptor.column(i).unwrap().max_def_level()))
            .collect()
    }

    #[test]
    fn flat_nullable() {
        let a: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
        assert_eq!(
            levels(a, true),
            vec![(vec![1, 0, 1], vec![0, 0, 0], vec![0, 2])]
        );
    }

    #[test]
    fn flat_sliced() {
        let a = Int32Array::from(vec![Some(1), None, Some(3), None, Some(5)]);
        let a: ArrayRef = Arc::new(a.slice(1, 3));
        assert_eq!(
            levels(a, true),
            vec![(vec![0, 1, 0], vec![0, 0, 0], vec![1])]
        );
    }

    #[test]
    fn list_of_nullable_ints() {
        // [[1, null], null, [], [4]]: optional list (def 1), repeated (2), optional element (3).
        let mut b = ListBuilder::new(Int32Builder::new());
        b.append_value([Some(1), None]);
        b.append_null();
        b.append_value([] as [Option<i32>; 0]);
        b.append_value([Some(4)]);
        let a: ArrayRef = Arc::new(b.finish());
        assert_eq!(
            levels(a, true),
            // Child values are [1, null, 4]: null and empty lists add none.
            vec![(vec![3, 2, 0, 1, 3], vec![0, 1, 0, 0, 0], vec![0, 2])]
        );
    }

    #[test]
    fn sliced_list_uses_absolute_offsets() {
        let mut b = ListBuilder::new(Int32Builder::new());
        b.append_value([Some(1), Some(2)]);
        b.append_value([Some(3)]);
        b.append_value([Some(4), None, Some(6)]);
        let list = b.finish();
        let a: ArrayRef = Arc::new(list.slice(1, 2));
        // Element indices point into the whole values array.
        assert_eq!(
            levels(a, true),
            vec![(vec![3, 3, 2, 3], vec![0, 0, 1, 1], vec![2, 3, 5])]
        );
    }

    #[test]
    fn list_of_null_free_leaves_in_bulk() {
        // [[1, 2], null, [], [3]]: no null elements, so each list is one bulk fill.
        let mut b = ListBuilder::new(Int32Builder::new());
        b.append_value([Some(1), Some(2)]);
        b.append_null();
        b.append_value([] as [Option<i32>; 0]);
        b.append_value([Some(3)]);
        let list = b.finish();
        let a: ArrayRef = Arc::new(list.clone());
        assert_eq!(
            levels(a, true),
            vec![(vec![3, 3, 0, 1, 3], vec![0, 1, 0, 0, 0], vec![0, 1, 2])]
        );
        // Sliced: the null, the empty list and [3] (index 2 of the values).
        let a: ArrayRef = Arc::new(list.slice(1, 3));
        assert_eq!(
            levels(a, true),
            vec![(vec![0, 1, 3], vec![0, 0, 0], vec![2])]
        );
    }

    #[test]
    fn list_of_struct_of_null_free_leaves_in_bulk() {
        // [[{1, 10}, {2, 20}], [], [{3, 30}]]: optional list (1), repeated (2), required
        // struct, required a (2), optional b without nulls (3).
        let fields = Fields::from(vec![
            Field::new("a", DataType::Int32, false),
            Field::new("b", DataType::Int32, true),
        ]);
        let entries = StructArray::new(
            fields.clone(),
            vec![
                Arc::new(Int32Array::from(vec![1, 2, 3])),
                Arc::new(Int32Array::from(vec![10, 20, 30])),
            ],
            None,
        );
        let list = ListArray::new(
            Arc::new(Field::new("item", DataType::Struct(fields), false)),
            OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 2, 3])),
            Arc::new(entries),
            None,
        );
        assert_eq!(
            levels(Arc::new(list), true),
            vec![
                (vec![2, 2, 1, 2], vec![0, 1, 0, 0], vec![0, 1, 2]),
                (vec![3, 3, 1, 3], vec![0, 1, 0, 0], vec![0, 1, 2]),
            ]
        );
    }

    #[test]
    fn list_of_lists_of_lists() {
        // [[[1], [2, 3]], [[]]], [] with every list and element required: levels
        // outer repeated (1), middle repeated (2), inner repeated (3).
        let field = |t: &DataType| Arc::new(Field::new_list_field(t.clone(), false));
        let inner = ListArray::new(
            field(&DataType::Int32),
            OffsetBuffer::new(ScalarBuffer::from(vec![0, 1, 3, 3])),
            Arc::new(Int32Array::from(vec![1, 2, 3])),
            None,
        );
        let middle = ListArray::new(
            field(inner.data_type()),
            OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 3])),
            Arc::new(inner),
            None,
        );
        let outer = ListArray::new(
            field(middle.data_type()),
            OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 2])),
            Arc::new(middle),
            None,
        );
        assert_eq!(
            levels(Arc::new(outer), false),
            vec![(vec![3, 3, 3, 2, 0], vec![0, 2, 3, 1, 0], vec![0, 1, 2])]
        );
    }

    #[test]
    fn value_indices_stay_a_run_until_one_breaks_it() {
        let mut run = ValueIndices::default();
        run.push_range(4, 6);
        run.push_range(6, 6);
        run.push_range(6, 9);
        assert!(run.scattered.is_empty());
        assert_eq!(run.finish(), Selection::Contiguous(4));

        let mut broken = ValueIndices::default();
        broken.push_range(4, 6);
        broken.push_range(7, 8);
        broken.scattered().push(10);
        broken.push_range(11, 12);
        assert_eq!(broken.finish(), Selection::Indices(vec![4, 5, 7, 10, 11]));

        let mut listed_in_order = ValueIndices::default();
        listed_in_order.scattered().extend([2, 3]);
        listed_in_order.push_range(4, 5);
        assert_eq!(listed_in_order.finish(), Selection::Contiguous(2));

        let mut empty = ValueIndices::default();
        empty.scattered().extend(std::iter::empty::<usize>());
        assert_eq!(empty.finish(), Selection::Contiguous(0));
    }

    #[test]
    fn list_of_lists() {
        // Required outer list of optional inner lists of required ints:
        // [[[1, 2], []], [null], []]
        let inner = ListArray::new(
            Arc::new(Field::new_list_field(DataType::Int32, false)),
            OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 2, 2])),
            Arc::new(Int32Array::from(vec![1, 2])),
            Some(NullBuffer::from(vec![true, true, false])),
        );
        let outer = ListArray::new(
            Arc::new(Field::new_list_field(inner.data_type().clone(), true)),
            OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 3, 3])),
            Arc::new(inner),
            None,
        );
        // Levels: outer repeated (1), inner optional (2), inner repeated (3); element required.
        assert_eq!(
            levels(Arc::new(outer), false),
            vec![(vec![3, 3, 2, 1, 0], vec![0, 2, 1, 0, 0], vec![0, 1])]
        );
    }

    #[test]
    fn struct_with_null_parent() {
        // optional struct { optional a; required b }: [{1, 10}, null, {null, 30}]
        let fields = Fields::from(vec![
            Field::new("a", DataType::Int32, true),
            Field::new("b", DataType::Int32, false),
        ]);
        let s = StructArray::new(
            fields,
            vec![
                Arc::new(Int32Array::from(vec![Some(1), Some(2), None])),
                Arc::new(Int32Array::from(vec![10, 20, 30])),
            ],
            Some(NullBuffer::from(vec![true, false, true])),
        );
        assert_eq!(
            levels(Arc::new(s), true),
            vec![
                (vec![2, 0, 1], vec![0, 0, 0], vec![0]),
                (vec![1, 0, 1], vec![0, 0, 0], vec![0, 2]),
            ]
        );
    }

    #[test]
    fn null_in_non_nullable_field_is_an_error() {
        let a: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None]));
        let schema = Schema::new(vec![Field::new("c", DataType::Int32, false)]);
        let parquet = arrow_to_parquet(&schema, ArrowToParquetOptions::default()).unwrap();
        assert!(compute_levels(&parquet.fields[0], &a).is_err());
    }
}
