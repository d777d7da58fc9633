//! One view over the three Arrow binary layouts (`Binary`, `LargeBinary`, `BinaryView`)
//! a Variant's `metadata` and `value` columns may have.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BinaryArray, BinaryViewArray, LargeBinaryArray};
use arrow_schema::DataType;

use crate::error::{Error, Result};

/// A binary column of any offset width or views.
#[derive(Debug, Clone, Copy)]
pub enum BinaryColumn<'a> {
    /// `Binary`.
    Small(&'a BinaryArray),
    /// `LargeBinary`.
    Large(&'a LargeBinaryArray),
    /// `BinaryView`.
    View(&'a BinaryViewArray),
}

impl<'a> BinaryColumn<'a> {
    /// Views `array`; `name` says which child it is in the error for another type.
    pub fn try_new(array: &'a ArrayRef, name: &str) -> Result<Self> {
        Ok(match array.data_type() {
            DataType::Binary => BinaryColumn::Small(array.as_binary::<i32>()),
            DataType::LargeBinary => BinaryColumn::Large(array.as_binary::<i64>()),
            DataType::BinaryView => BinaryColumn::View(array.as_binary_view()),
            other => {
                return Err(Error::invalid_argument(format!(
                    "variant `{name}` must be Binary, LargeBinary or BinaryView, it is {other}"
                )));
            }
        })
    }

    /// The bytes of row `index`, `None` when it is null.
    #[inline]
    pub fn get(&self, index: usize) -> Option<&'a [u8]> {
        match self {
            BinaryColumn::Small(a) => a.is_valid(index).then(|| a.value(index)),
            BinaryColumn::Large(a) => a.is_valid(index).then(|| a.value(index)),
            BinaryColumn::View(a) => a.is_valid(index).then(|| a.value(index)),
        }
    }

    /// Whether row `index` is non-null.
    #[inline]
    pub fn is_valid(&self, index: usize) -> bool {
        match self {
            BinaryColumn::Small(a) => a.is_valid(index),
            BinaryColumn::Large(a) => a.is_valid(index),
            BinaryColumn::View(a) => a.is_valid(index),
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            BinaryColumn::Small(a) => a.len(),
            BinaryColumn::Large(a) => a.len(),
            BinaryColumn::View(a) => a.len(),
        }
    }

    /// Whether the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of null rows.
    pub fn null_count(&self) -> usize {
        match self {
            BinaryColumn::Small(a) => a.null_count(),
            BinaryColumn::Large(a) => a.null_count(),
            BinaryColumn::View(a) => a.null_count(),
        }
    }
}
