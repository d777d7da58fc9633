//! Leaf batches -> Arrow arrays: each leaf's dense values become the array of its
//! mapped Arrow type (nulls spread in place, physical values converted), and structs,
//! lists and maps are assembled from their leaves' levels ([`nested`]).
//!
//! | values              | Arrow types                                                  | module |
//! |---------------------|--------------------------------------------------------------|--------|
//! | booleans, numbers, INT96 | Boolean, integers, floats, dates, times, timestamps, durations, decimals | [`primitive`] |
//! | byte arrays, views  | Utf8, Binary (and Large), Utf8View, BinaryView, decimals     | [`binary`] |
//! | FIXED_LEN_BYTE_ARRAY | FixedSizeBinary, decimals, Float16, intervals               | [`fixed_len`] |
//! | dictionary keys     | `Dictionary(K, V)`                                           | [`dictionary`] |

mod binary;
mod bits;
mod decimal;
mod dictionary;
mod fixed_len;
pub(crate) mod nested;
mod primitive;
mod shape;

use arrow_array::{ArrayRef, NullArray};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::DataType;
use std::sync::Arc;

use super::leaf::LeafBatch;
use super::levels::DefLevels;
use super::values::ValueBuffer;
use crate::error::{Error, Result};

pub(crate) use dictionary::key_capacity;

/// A buffer of dense values that becomes an Arrow array.
pub(crate) trait IntoArray: ValueBuffer + Sized {
    /// The array of type `target` with `len` slots, the values at the valid slots of
    /// `nulls` (as many values as valid slots, checked by the caller).
    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef>;

    /// Whether the values are dictionary keys that build `target` (a `Dictionary`)
    /// themselves.
    fn builds_dictionary(&self) -> bool {
        false
    }
}

/// [`IntoArray`] behind a pointer: the values of any leaf column.
pub(crate) trait ArrayValues: Send + std::fmt::Debug {
    /// Number of values.
    fn value_count(&self) -> usize;
    /// See [`IntoArray::builds_dictionary`].
    fn builds_dictionary(&self) -> bool;
    /// See [`IntoArray::into_array`].
    fn into_array_boxed(
        self: Box<Self>,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef>;
}

impl<T: IntoArray> ArrayValues for T {
    fn value_count(&self) -> usize {
        ValueBuffer::value_count(self)
    }

    fn builds_dictionary(&self) -> bool {
        IntoArray::builds_dictionary(self)
    }

    fn into_array_boxed(
        self: Box<Self>,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        (*self).into_array(target, nulls, len)
    }
}

/// What one leaf column decoded for a batch: its levels and its values.
#[derive(Debug)]
pub(crate) struct LeafOutput {
    /// Definition levels (absent for a required column outside any optional group, and
    /// when they are kept as `def_bits`).
    pub(crate) def_levels: Option<Vec<u16>>,
    /// For a column whose only level is its own optionality: set where the value is
    /// present.
    pub(crate) def_bits: Option<BooleanBuffer>,
    /// How many bits of `def_bits` are unset (nulls); 0 without `def_bits`.
    pub(crate) def_nulls: usize,
    /// Repetition levels (absent for a column outside any list).
    pub(crate) rep_levels: Option<Vec<u16>>,
    pub(crate) values: Box<dyn ArrayValues>,
}

impl LeafOutput {
    /// The output of a leaf batch of a column with or without repetition.
    pub(crate) fn new<B: IntoArray>(batch: LeafBatch<B>, repeated: bool) -> Self {
        let (def_levels, def_bits, def_nulls) = match batch.def {
            DefLevels::None => (None, None, 0),
            DefLevels::Bits { mut bits, nulls } => (None, Some(bits.finish()), nulls),
            DefLevels::Levels(levels) => (Some(levels), None, 0),
        };
        Self {
            def_levels,
            def_bits,
            def_nulls,
            rep_levels: repeated.then_some(batch.rep),
            values: Box::new(batch.values),
        }
    }
}

/// The Arrow array of type `target` holding a leaf's values, `len` slots with `nulls`.
pub(crate) fn leaf_array(
    target: &DataType,
    path: impl std::fmt::Display,
    values: Box<dyn ArrayValues>,
    nulls: Option<NullBuffer>,
    len: usize,
) -> Result<ArrayRef> {
    let valid = len - nulls.as_ref().map_or(0, |n| n.null_count());
    if values.value_count() != valid {
        return Err(Error::corrupt(format!(
            "column {path}: {} values for {valid} non-null rows",
            values.value_count()
        )));
    }
    let context = |e: Error| e.context(format!("column {path}"));
    match target {
        DataType::Null => Ok(Arc::new(NullArray::new(len))),
        // Plain values read as a dictionary (a chunk that is not dictionary-encoded, a
        // batch that reaches into a page of another encoding, a dictionary not kept):
        // the batch's values are hashed into a new dictionary.
        DataType::Dictionary(_, value_type) if !values.builds_dictionary() => {
            let plain = values
                .into_array_boxed(value_type, nulls, len)
                .map_err(context)?;
            arrow_cast::cast(&plain, target)
                .map_err(|e| Error::from(e).context(format!("column {path}, read as {target}")))
        }
        _ => values.into_array_boxed(target, nulls, len).map_err(context),
    }
}

/// The error of values that cannot be read as `target`.
pub(crate) fn cannot(physical: &str, target: &DataType) -> Error {
    Error::unsupported(format!(
        "reading {physical} values as {target} is not supported"
    ))
}
