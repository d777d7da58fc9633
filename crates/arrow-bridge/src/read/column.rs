//! One leaf column reader per projected leaf, behind one object-safe trait: the table
//! that picks, from a leaf's physical type and the Arrow type it is read as, the value
//! kind its pages decode into ([`super::decode`]), and the step that turns a batch of
//! that kind into an Arrow array ([`super::assemble`]).
//!
//! | physical type        | read as                           | value kind          |
//! |----------------------|-----------------------------------|---------------------|
//! | BOOLEAN              | anything                          | `Booleans`          |
//! | INT32                | `Decimal64`, `Decimal128`         | `Decimals<Fixed<i32>, D>` |
//! | INT64                | `Decimal128`                      | `Decimals<Fixed<i64>, i128>` |
//! | INT32, INT64, FLOAT, DOUBLE, INT96 | anything else       | `Fixed<T>`          |
//! | FIXED_LEN_BYTE_ARRAY of ≤ 16 bytes | `Decimal32`, `Decimal64`, `Decimal128` | `Decimals<FixedLenBytes, D>` |
//! | FIXED_LEN_BYTE_ARRAY | anything else                     | `FixedLenBytes`     |
//! | BYTE_ARRAY           | `Utf8View`, `BinaryView`          | `ViewBytes`         |
//! | BYTE_ARRAY           | `Utf8`, `Binary`                  | `Binary<i32>`       |
//! | BYTE_ARRAY           | anything else                     | `Binary<i64>`       |
//! | any but BOOLEAN      | `Dictionary(K, V)`                | `KeyedKind<` the kind for `V` `>` |
//! | any but BOOLEAN      | `RunEndEncoded(_, Dictionary(K, V))` | `KeyedKind<` the kind for `V` `>`, in runs |

use std::sync::Arc;

use arrow_schema::DataType;
use herringbone_codec::page::PageReader;
use herringbone_format::metadata::Type;
use herringbone_format::schema::ColumnDescriptor;

use super::assemble::{IntoArray, LeafOutput, key_capacity};
use super::budget::Budget;
use super::decode::decimal::MAX_DECIMAL_WIDTH;
use super::decode::{
    Binary, Booleans, Decimals, Fixed, FixedLenBytes, KeyedKind, ValueKind, ViewBytes,
};
use super::leaf::LeafReader;
use crate::error::{Error, Result};

/// A leaf column reader of any value kind.
pub(crate) trait ColumnReader: Send + std::fmt::Debug {
    /// Prepares a batch of at most `rows` rows.
    fn begin(&mut self, rows: usize, budget: &mut Budget) -> Result<()>;
    /// Reads the next `rows` rows into the batch.
    fn read(&mut self, rows: usize, budget: &mut Budget) -> Result<()>;
    /// Skips the next `rows` rows.
    fn skip(&mut self, rows: usize) -> Result<()>;
    /// Takes the batch read so far.
    fn finish(&mut self) -> LeafOutput;
    /// Data pages decoded, and skipped without decompression, so far.
    fn page_counts(&self) -> (usize, usize);
    /// The column's rows are all read: frees what it keeps for later batches (its
    /// pages, dictionary and scratch) on the thread that decoded it, rather than with
    /// the row group's other readers on the thread that hands out batches.
    fn release(&mut self);

    /// Decodes one batch of `selected` rows: applies `steps` (skip or read, rows) in
    /// order after [`Self::begin`].
    fn decode_steps(
        &mut self,
        steps: &[(bool, usize)],
        selected: usize,
        budget: &mut Budget,
    ) -> Result<()> {
        self.begin(selected, budget)?;
        for &(skip, rows) in steps {
            if skip {
                self.skip(rows)?;
            } else {
                self.read(rows, budget)?;
            }
        }
        Ok(())
    }

    /// [`Self::decode_steps`], then [`Self::release`] when the batch ends the column's
    /// chunk (`last`): what every path that decodes a batch runs.
    fn decode_batch(
        &mut self,
        steps: &[(bool, usize)],
        selected: usize,
        budget: &mut Budget,
        last: bool,
    ) -> Result<()> {
        self.decode_steps(steps, selected, budget)?;
        if last {
            self.release();
        }
        Ok(())
    }
}

impl<K> ColumnReader for LeafReader<K>
where
    K: ValueKind,
    K::Buffer: IntoArray,
{
    fn begin(&mut self, rows: usize, budget: &mut Budget) -> Result<()> {
        LeafReader::begin(self, rows, budget)
    }

    fn read(&mut self, rows: usize, budget: &mut Budget) -> Result<()> {
        LeafReader::read(self, rows, budget)
    }

    fn skip(&mut self, rows: usize) -> Result<()> {
        LeafReader::skip(self, rows)
    }

    fn finish(&mut self) -> LeafOutput {
        let repeated = self.max_levels().1 > 0;
        LeafOutput::new(self.take(), repeated)
    }

    fn page_counts(&self) -> (usize, usize) {
        LeafReader::page_counts(self)
    }

    fn release(&mut self) {
        LeafReader::release(self)
    }
}

/// What is done with the value kind [`with_value_kind`] picks for a leaf column: the
/// one table of the module documentation, shared by the column readers and the salvage
/// reader's page checks.
pub(crate) trait KindVisitor {
    /// What the visit produces.
    type Output;
    /// Called with the value kind of the column.
    fn visit<K>(self, kind: K) -> Result<Self::Output>
    where
        K: ValueKind,
        K::Buffer: IntoArray;
}

/// The reader of one chunk, built by [`column_reader`].
struct LeafReaderOf<'a> {
    column: &'a ColumnDescriptor,
    path: Arc<str>,
    row_group: usize,
    pages: PageReader,
    rows: usize,
}

impl KindVisitor for LeafReaderOf<'_> {
    type Output = Box<dyn ColumnReader>;

    fn visit<K>(self, kind: K) -> Result<Self::Output>
    where
        K: ValueKind,
        K::Buffer: IntoArray,
    {
        Ok(Box::new(LeafReader::new(
            kind,
            self.column,
            self.path,
            self.row_group,
            self.pages,
            self.rows,
        )?))
    }
}

/// The reader of `column` (dotted path `path`; whose chunk in row group `row_group`
/// `pages` hands out, `rows` rows) as an Arrow array of type `target`.
pub(crate) fn column_reader(
    column: &ColumnDescriptor,
    path: Arc<str>,
    target: &DataType,
    row_group: usize,
    pages: PageReader,
    rows: usize,
) -> Result<Box<dyn ColumnReader>> {
    let visitor = LeafReaderOf {
        column,
        path,
        row_group,
        pages,
        rows,
    };
    with_value_kind(column, target, visitor)
}

/// Calls `visitor` with the value kind `column` is decoded as when read as `target`.
pub(crate) fn with_value_kind<V: KindVisitor>(
    column: &ColumnDescriptor,
    target: &DataType,
    visitor: V,
) -> Result<V::Output> {
    let physical = column.physical_type();
    // A dictionary whose key type can index entries keeps its chunks' dictionaries;
    // booleans never do (their pages are not dictionary-encoded in practice).
    // Runs of a dictionary's keys (a row filter's leaf) are read as the dictionary.
    let (dictionary, runs) = match target {
        DataType::RunEndEncoded(_, values) => (values.data_type(), true),
        _ => (target, false),
    };
    let (values_type, keyed) = match dictionary {
        DataType::Dictionary(key, value) if physical != Type::BOOLEAN => match key_capacity(key) {
            0 => (target, None),
            entries => (value.as_ref(), Some(entries)),
        },
        _ => (target, None),
    };
    macro_rules! kind {
        ($kind:expr) => {
            match keyed {
                Some(max_entries) => visitor.visit(KeyedKind::new(
                    $kind,
                    max_entries,
                    runs,
                    matches!(
                        physical,
                        Type::INT32 | Type::INT64 | Type::FLOAT | Type::DOUBLE
                    ),
                )),
                None => visitor.visit($kind),
            }
        };
    }
    // Decimals wider than their stored integers, or stored as big-endian bytes, are
    // decoded at their Arrow width; kept as a dictionary, they keep their stored form
    // until the dictionary's values are assembled.
    macro_rules! decimal {
        ($stored:expr) => {
            match (keyed, values_type) {
                (Some(_), _) => kind!($stored),
                (None, DataType::Decimal32(_, _)) => {
                    visitor.visit(Decimals::<_, i32>::new($stored, values_type.clone()))
                }
                (None, DataType::Decimal64(_, _)) => {
                    visitor.visit(Decimals::<_, i64>::new($stored, values_type.clone()))
                }
                (None, _) => visitor.visit(Decimals::<_, i128>::new($stored, values_type.clone())),
            }
        };
    }
    match physical {
        Type::BOOLEAN => visitor.visit(Booleans),
        Type::INT32
            if matches!(
                values_type,
                DataType::Decimal64(..) | DataType::Decimal128(..)
            ) =>
        {
            decimal!(Fixed::<i32>::new())
        }
        Type::INT32 => kind!(Fixed::<i32>::new()),
        Type::INT64 if matches!(values_type, DataType::Decimal128(..)) => {
            decimal!(Fixed::<i64>::new())
        }
        Type::INT64 => kind!(Fixed::<i64>::new()),
        Type::INT96 => kind!(Fixed::<[u8; 12]>::new()),
        Type::FLOAT => kind!(Fixed::<f32>::new()),
        Type::DOUBLE => kind!(Fixed::<f64>::new()),
        Type::FIXED_LEN_BYTE_ARRAY => {
            let width = column
                .type_length()
                .and_then(|w| usize::try_from(w).ok())
                .filter(|&w| w > 0)
                .ok_or_else(|| {
                    Error::corrupt(format!(
                        "column {}: FIXED_LEN_BYTE_ARRAY without a positive type_length",
                        column.path().dotted()
                    ))
                })?;
            let stored = FixedLenBytes { width };
            match values_type {
                DataType::Decimal32(..) | DataType::Decimal64(..) | DataType::Decimal128(..)
                    if width <= MAX_DECIMAL_WIDTH =>
                {
                    decimal!(stored)
                }
                _ => kind!(stored),
            }
        }
        Type::BYTE_ARRAY => match values_type {
            DataType::Utf8View | DataType::BinaryView => kind!(ViewBytes {
                utf8: values_type == &DataType::Utf8View,
            }),
            DataType::Utf8 | DataType::Binary => kind!(Binary::<i32>::new()),
            _ => kind!(Binary::<i64>::new()),
        },
        other => Err(Error::unsupported(format!(
            "column {}: physical type {other:?}",
            column.path().dotted()
        ))),
    }
}
