//! How a column's values compare (the specification's sort orders) and the
//! statistics the verifier computes from the values it decodes: min and max, null and
//! NaN counts.

use std::cmp::Ordering;

use half::f16;
use herringbone_format::metadata::{ColumnOrder, ConvertedType, LogicalType, Type};
use herringbone_format::schema::ColumnDescriptor;

use super::values::Value;

/// How the values of a column compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortOrder {
    /// BOOLEAN: false < true.
    Bool,
    /// Signed INT32 / INT64 (and decimals stored in them).
    Signed,
    /// Unsigned INT32 / INT64 (`INTEGER(n, false)`, `UINT_*`).
    Unsigned,
    /// IEEE 754 numbers (FLOAT, DOUBLE, FLOAT16) where NaN never enters min/max.
    Float,
    /// The IEEE 754 total order (column order `IEEE_754_TOTAL_ORDER`).
    FloatTotal,
    /// Unsigned lexicographic bytes.
    Bytes,
    /// Big-endian two's complement (DECIMAL on byte arrays).
    Decimal,
    /// No order defined (INT96, INTERVAL, geometry): min/max are not checked.
    Undefined,
}

impl SortOrder {
    /// The order of a column from its types and the file's column order.
    pub(crate) fn of(descr: &ColumnDescriptor, column_order: Option<&ColumnOrder>) -> SortOrder {
        let logical = descr.logical_type();
        let converted = descr.converted_type();
        if converted == Some(ConvertedType::INTERVAL) {
            return SortOrder::Undefined;
        }
        let total = matches!(column_order, Some(ColumnOrder::Ieee754TotalOrder));
        let float = if total {
            SortOrder::FloatTotal
        } else {
            SortOrder::Float
        };
        match descr.physical_type() {
            Type::BOOLEAN => SortOrder::Bool,
            Type::INT32 | Type::INT64 => {
                let unsigned = matches!(
                    logical,
                    Some(LogicalType::Integer {
                        is_signed: false,
                        ..
                    })
                ) || matches!(
                    converted,
                    Some(
                        ConvertedType::UINT_8
                            | ConvertedType::UINT_16
                            | ConvertedType::UINT_32
                            | ConvertedType::UINT_64
                    )
                );
                if unsigned {
                    SortOrder::Unsigned
                } else {
                    SortOrder::Signed
                }
            }
            Type::FLOAT | Type::DOUBLE => float,
            Type::FIXED_LEN_BYTE_ARRAY | Type::BYTE_ARRAY => match logical {
                Some(LogicalType::Float16)
                    if descr.physical_type() == Type::FIXED_LEN_BYTE_ARRAY =>
                {
                    float
                }
                Some(LogicalType::Decimal { .. }) => SortOrder::Decimal,
                Some(LogicalType::Geometry { .. } | LogicalType::Geography { .. }) => {
                    SortOrder::Undefined
                }
                _ if converted == Some(ConvertedType::DECIMAL) => SortOrder::Decimal,
                _ => SortOrder::Bytes,
            },
            _ => SortOrder::Undefined,
        }
    }

    /// Whether the deprecated `min` / `max` statistics fields can be trusted under this
    /// order: old writers compared every type as signed (PARQUET-251), which only
    /// agrees with the real order for signed numbers and booleans.
    pub(crate) fn trusts_deprecated_bounds(self) -> bool {
        matches!(self, SortOrder::Bool | SortOrder::Signed | SortOrder::Float)
    }

    /// Whether statistics bounds hold the exact extremes unless a writer says otherwise
    /// (byte arrays may be truncated to shorter bounds without saying so).
    pub(crate) fn bounds_are_exact(self) -> bool {
        !matches!(self, SortOrder::Bytes | SortOrder::Decimal)
    }

    /// `a` compared with `b`; `None` when the order cannot place them (a NaN under
    /// [`SortOrder::Float`], values of different kinds, undefined order).
    pub(crate) fn compare(self, a: Value<'_>, b: Value<'_>, float16: bool) -> Option<Ordering> {
        match (self, a, b) {
            (SortOrder::Bool, Value::Bool(a), Value::Bool(b)) => Some(a.cmp(&b)),
            (SortOrder::Signed, Value::Int32(a), Value::Int32(b)) => Some(a.cmp(&b)),
            (SortOrder::Signed, Value::Int64(a), Value::Int64(b)) => Some(a.cmp(&b)),
            (SortOrder::Unsigned, Value::Int32(a), Value::Int32(b)) => {
                Some((a as u32).cmp(&(b as u32)))
            }
            (SortOrder::Unsigned, Value::Int64(a), Value::Int64(b)) => {
                Some((a as u64).cmp(&(b as u64)))
            }
            (SortOrder::Float, Value::Float(a), Value::Float(b)) => a.partial_cmp(&b),
            (SortOrder::Float, Value::Double(a), Value::Double(b)) => a.partial_cmp(&b),
            (SortOrder::FloatTotal, Value::Float(a), Value::Float(b)) => Some(a.total_cmp(&b)),
            (SortOrder::FloatTotal, Value::Double(a), Value::Double(b)) => Some(a.total_cmp(&b)),
            (SortOrder::Float | SortOrder::FloatTotal, Value::Bytes(a), Value::Bytes(b))
                if float16 =>
            {
                let (a, b) = (half_of(a)?, half_of(b)?);
                if self == SortOrder::FloatTotal {
                    Some(a.total_cmp(&b))
                } else {
                    a.partial_cmp(&b)
                }
            }
            (SortOrder::Bytes, Value::Bytes(a), Value::Bytes(b)) => Some(a.cmp(b)),
            (SortOrder::Decimal, Value::Bytes(a), Value::Bytes(b)) => Some(compare_be_signed(a, b)),
            _ => None,
        }
    }

    /// Whether `value` is a NaN (never a min or max under [`SortOrder::Float`]).
    pub(crate) fn is_nan(self, value: Value<'_>, float16: bool) -> bool {
        match value {
            Value::Float(v) => v.is_nan(),
            Value::Double(v) => v.is_nan(),
            Value::Bytes(b) if float16 => half_of(b).is_some_and(|h| h.is_nan()),
            _ => false,
        }
    }
}

fn half_of(bytes: &[u8]) -> Option<f16> {
    Some(f16::from_le_bytes(bytes.try_into().ok()?))
}

/// Compares two big-endian two's complement integers of any lengths.
fn compare_be_signed(a: &[u8], b: &[u8]) -> Ordering {
    let negative = |v: &[u8]| v.first().is_some_and(|&x| x & 0x80 != 0);
    let (na, nb) = (negative(a), negative(b));
    if na != nb {
        return if na {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    // Same sign: sign-extend the shorter to the longer length, then compare bytes.
    let len = a.len().max(b.len());
    let fill = if na { 0xff } else { 0x00 };
    let byte = |v: &[u8], i: usize| {
        let pad = len - v.len();
        if i < pad { fill } else { v[i - pad] }
    };
    (0..len)
        .map(|i| byte(a, i).cmp(&byte(b, i)))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// An owned copy of a value (the running min or max).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OwnedValue {
    Bool(bool),
    Int32(i32),
    Int64(i64),
    Int96([u8; 12]),
    Float(f32),
    Double(f64),
    Bytes(Vec<u8>),
}

impl OwnedValue {
    pub(crate) fn of(value: Value<'_>) -> Self {
        match value {
            Value::Bool(v) => OwnedValue::Bool(v),
            Value::Int32(v) => OwnedValue::Int32(v),
            Value::Int64(v) => OwnedValue::Int64(v),
            Value::Int96(v) => OwnedValue::Int96(v),
            Value::Float(v) => OwnedValue::Float(v),
            Value::Double(v) => OwnedValue::Double(v),
            Value::Bytes(v) => OwnedValue::Bytes(v.to_vec()),
        }
    }

    /// Overwrites with `value`, reusing the byte buffer.
    fn set(&mut self, value: Value<'_>) {
        match (self, value) {
            (OwnedValue::Bytes(own), Value::Bytes(v)) => {
                own.clear();
                own.extend_from_slice(v);
            }
            (own, v) => *own = OwnedValue::of(v),
        }
    }

    pub(crate) fn as_value(&self) -> Value<'_> {
        match self {
            OwnedValue::Bool(v) => Value::Bool(*v),
            OwnedValue::Int32(v) => Value::Int32(*v),
            OwnedValue::Int64(v) => Value::Int64(*v),
            OwnedValue::Int96(v) => Value::Int96(*v),
            OwnedValue::Float(v) => Value::Float(*v),
            OwnedValue::Double(v) => Value::Double(*v),
            OwnedValue::Bytes(v) => Value::Bytes(v),
        }
    }
}

/// Renders a value for a message: numbers as numbers, byte arrays as UTF-8 text when
/// they are, else hex (long values shortened).
pub(crate) fn display(value: Value<'_>, order: SortOrder, float16: bool) -> String {
    match value {
        Value::Bool(v) => v.to_string(),
        Value::Int32(v) if order == SortOrder::Unsigned => (v as u32).to_string(),
        Value::Int64(v) if order == SortOrder::Unsigned => (v as u64).to_string(),
        Value::Int32(v) => v.to_string(),
        Value::Int64(v) => v.to_string(),
        Value::Float(v) => format!("{v:?}"),
        Value::Double(v) => format!("{v:?}"),
        Value::Int96(v) => format!("0x{}", hex(&v)),
        Value::Bytes(b) if float16 && b.len() == 2 => {
            format!("{:?}", f32::from(half_of(b).unwrap_or(f16::ZERO)))
        }
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(text) if order != SortOrder::Decimal => {
                let mut shown: String = text.chars().take(64).collect();
                if shown.len() < text.len() {
                    shown.push('…');
                }
                format!("{shown:?}")
            }
            _ => {
                let shown = &b[..b.len().min(32)];
                let more = if shown.len() < b.len() { "…" } else { "" };
                format!("0x{}{more}", hex(shown))
            }
        },
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Statistics of some values, computed as they are decoded.
#[derive(Debug, Clone, Default)]
pub(crate) struct Computed {
    pub min: Option<OwnedValue>,
    pub max: Option<OwnedValue>,
    /// Values that are present (not null).
    pub values: u64,
    /// Under the IEEE 754 total order: the smallest and largest NaN, which are the
    /// bounds only when every value is a NaN.
    pub nan_min: Option<OwnedValue>,
    pub nan_max: Option<OwnedValue>,
    /// Levels below the maximum definition level.
    pub nulls: u64,
    /// Of those, the ones inside the innermost list (an element that is null, not a
    /// null or empty list): what some writers count as `null_count` of a list's leaf.
    pub element_nulls: u64,
    pub nans: u64,
}

impl Computed {
    /// Takes one present value into min and max (NaN excluded under the IEEE 754 order
    /// the types define; counted either way).
    pub(crate) fn add(&mut self, value: Value<'_>, order: SortOrder, float16: bool) {
        self.values += 1;
        if order.is_nan(value, float16) {
            self.nans += 1;
            if order == SortOrder::FloatTotal {
                update_bounds(&mut self.nan_min, &mut self.nan_max, value, order, float16);
            }
            return;
        }
        if order == SortOrder::Undefined {
            return;
        }
        update_bounds(&mut self.min, &mut self.max, value, order, float16);
    }

    /// The bounds statistics should hold: the smallest and largest non-NaN values, or
    /// under the IEEE 754 total order, the NaNs when there is nothing else.
    pub(crate) fn bounds(&self) -> (Option<&OwnedValue>, Option<&OwnedValue>) {
        if self.min.is_some() {
            (self.min.as_ref(), self.max.as_ref())
        } else {
            (self.nan_min.as_ref(), self.nan_max.as_ref())
        }
    }

    /// Whether `declared` is the null count under either reading (every level below
    /// the maximum, or only null elements inside the innermost list).
    pub(crate) fn null_count_matches(&self, declared: i64) -> bool {
        let declared = u64::try_from(declared).ok();
        declared == Some(self.nulls) || declared == Some(self.element_nulls)
    }

    /// Adds another set's counts and bounds.
    pub(crate) fn merge(&mut self, other: &Computed, order: SortOrder, float16: bool) {
        self.values += other.values;
        self.nulls += other.nulls;
        self.element_nulls += other.element_nulls;
        self.nans += other.nans;
        for bound in [&other.min, &other.max].into_iter().flatten() {
            update_bounds(
                &mut self.min,
                &mut self.max,
                bound.as_value(),
                order,
                float16,
            );
        }
        for bound in [&other.nan_min, &other.nan_max].into_iter().flatten() {
            update_bounds(
                &mut self.nan_min,
                &mut self.nan_max,
                bound.as_value(),
                order,
                float16,
            );
        }
    }
}

fn update_bounds(
    min: &mut Option<OwnedValue>,
    max: &mut Option<OwnedValue>,
    value: Value<'_>,
    order: SortOrder,
    float16: bool,
) {
    match min {
        None => *min = Some(OwnedValue::of(value)),
        Some(min) => {
            if order.compare(value, min.as_value(), float16) == Some(Ordering::Less) {
                min.set(value);
            }
        }
    }
    match max {
        None => *max = Some(OwnedValue::of(value)),
        Some(max) => {
            if order.compare(value, max.as_value(), float16) == Some(Ordering::Greater) {
                max.set(value);
            }
        }
    }
}
