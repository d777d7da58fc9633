//! Predicates over the rows of a file: what a filter, a scan or an engine asks for.
//!
//! A [`Predicate`] refers to columns by path (`a.b` is field `b` of struct `a`) and
//! compares them with literals (Arrow scalars: a one-element array of any type), with
//! `IN` lists, `IS [NOT] NULL`, `LIKE` patterns (`'abc%'` is a prefix test), combined
//! with `AND`, `OR` and `NOT`. It is built in code ([`col`], [`lit`]) or parsed from
//! text ([`Predicate::parse`], the form `hb --filter` takes):
//!
//! ```
//! use herringbone_arrow_bridge::predicate::{Predicate, col};
//! let parsed = Predicate::parse("l_shipdate >= '1998-09-01' AND l_returnflag = 'R'").unwrap();
//! let built = col("l_shipdate").gt_eq("1998-09-01").and(col("l_returnflag").eq("R"));
//! assert_eq!(parsed, built);
//! assert_eq!(parsed.to_string(), "l_shipdate >= '1998-09-01' AND l_returnflag = 'R'");
//! ```
//!
//! Before use a predicate is bound to an Arrow schema ([`Predicate::bind`]): columns are
//! resolved and literals coerced to the column's type as SQL does (a string to a date,
//! timestamp or decimal, `12.50` to a decimal of the column's scale, `x < 2.5` on an
//! integer column to `x <= 2`). A [`BoundPredicate`] evaluates over `RecordBatch`es
//! with SQL's three-valued logic: a row is selected when the predicate is true, not
//! when it is false or null.
//!
//! Values compare as Arrow's kernels compare them (and so as DataFusion does): strings
//! and binaries byte by byte, floats by IEEE 754 total order (`-0.0 < +0.0`, NaN above
//! every number).

mod bind;
mod coerce;
mod evaluate;
mod parse;
mod spatial;

use std::fmt;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, NullArray, StringArray,
    UInt64Array,
};
use arrow_schema::DataType;

pub(crate) use bind::Bound;
pub use bind::BoundPredicate;
pub use herringbone_codec::geo::QueryBox;
pub use spatial::SpatialFilter;
pub(crate) use spatial::may_match as spatial_may_match;

/// A column by its path: the names from the top-level field down (`["a", "b"]` for
/// field `b` of struct `a`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ColumnRef {
    parts: Vec<String>,
}

impl ColumnRef {
    /// A column from a dotted path (`"a.b"`). A top-level column whose name contains a
    /// dot is also found by this path (see [`Predicate::bind`]).
    pub fn new(dotted: &str) -> Self {
        Self {
            parts: dotted.split('.').map(str::to_string).collect(),
        }
    }

    /// A column from its path's parts.
    pub fn from_parts(parts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            parts: parts.into_iter().map(Into::into).collect(),
        }
    }

    /// The names from the top-level field down.
    pub fn parts(&self) -> &[String] {
        &self.parts
    }

    /// The dotted form.
    pub fn dotted(&self) -> String {
        self.parts.join(".")
    }
}

impl fmt::Display for ColumnRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            let plain = part
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !parse::is_keyword(part);
            if plain {
                f.write_str(part)?;
            } else {
                write!(f, "\"{}\"", part.replace('"', "\"\""))?;
            }
        }
        Ok(())
    }
}

/// A literal: one value of an Arrow type (a one-element array; null is allowed).
#[derive(Debug, Clone)]
pub struct Literal {
    value: ArrayRef,
}

impl Literal {
    /// The literal held by a one-element array.
    ///
    /// # Panics
    /// When `value` does not have exactly one element (a programming error).
    pub fn new(value: ArrayRef) -> Self {
        assert_eq!(value.len(), 1, "a literal is a one-element array");
        Self { value }
    }

    /// The SQL `NULL` literal.
    pub fn null() -> Self {
        Self::new(Arc::new(NullArray::new(1)))
    }

    /// The value, a one-element array.
    pub fn value(&self) -> &ArrayRef {
        &self.value
    }

    /// The literal's Arrow type.
    pub fn data_type(&self) -> &DataType {
        self.value.data_type()
    }

    /// Whether the literal is null.
    pub fn is_null(&self) -> bool {
        // A `NullArray` has no validity buffer: its nulls are logical.
        self.value.logical_null_count() == 1
    }
}

impl PartialEq for Literal {
    fn eq(&self, other: &Self) -> bool {
        self.value.to_data() == other.value.to_data()
    }
}

macro_rules! literal_from {
    ($($t:ty => $array:ty),* $(,)?) => {$(
        impl From<$t> for Literal {
            fn from(v: $t) -> Self {
                Literal::new(Arc::new(<$array>::from(vec![v])))
            }
        }
    )*};
}
literal_from!(bool => BooleanArray, i32 => Int32Array, i64 => Int64Array, u64 => UInt64Array, f64 => Float64Array);

impl From<&str> for Literal {
    fn from(v: &str) -> Self {
        Literal::new(Arc::new(StringArray::from(vec![v])))
    }
}

impl From<String> for Literal {
    fn from(v: String) -> Self {
        Literal::from(v.as_str())
    }
}

impl From<ArrayRef> for Literal {
    fn from(v: ArrayRef) -> Self {
        Literal::new(v)
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `=`
    Eq,
    /// `!=` (also written `<>`)
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtEq,
    /// `>`
    Gt,
    /// `>=`
    GtEq,
}

impl CompareOp {
    /// The operator with its operands swapped (`a < b` is `b > a`).
    pub fn flip(self) -> Self {
        match self {
            CompareOp::Lt => CompareOp::Gt,
            CompareOp::LtEq => CompareOp::GtEq,
            CompareOp::Gt => CompareOp::Lt,
            CompareOp::GtEq => CompareOp::LtEq,
            other => other,
        }
    }

    /// The operator that is true exactly where this one is false (for non-null
    /// operands).
    pub fn negate(self) -> Self {
        match self {
            CompareOp::Eq => CompareOp::NotEq,
            CompareOp::NotEq => CompareOp::Eq,
            CompareOp::Lt => CompareOp::GtEq,
            CompareOp::LtEq => CompareOp::Gt,
            CompareOp::Gt => CompareOp::LtEq,
            CompareOp::GtEq => CompareOp::Lt,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "=",
            CompareOp::NotEq => "!=",
            CompareOp::Lt => "<",
            CompareOp::LtEq => "<=",
            CompareOp::Gt => ">",
            CompareOp::GtEq => ">=",
        }
    }
}

/// A condition on the rows of a file (see the [module documentation](self)).
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    /// `TRUE` or `FALSE`.
    Const(bool),
    /// `column op value`.
    Compare {
        /// The column.
        column: ColumnRef,
        /// The operator.
        op: CompareOp,
        /// The value it is compared with.
        value: Literal,
    },
    /// `column [NOT] IN (values)`.
    In {
        /// The column.
        column: ColumnRef,
        /// The values.
        values: Vec<Literal>,
        /// `NOT IN`.
        negated: bool,
    },
    /// `column IS [NOT] NULL`.
    IsNull {
        /// The column.
        column: ColumnRef,
        /// `IS NOT NULL`.
        negated: bool,
    },
    /// `column [NOT] [I]LIKE pattern`: `%` matches any run of characters, `_` one
    /// character, `\` escapes the next one.
    Like {
        /// The column (strings).
        column: ColumnRef,
        /// The pattern.
        pattern: String,
        /// `NOT LIKE`.
        negated: bool,
        /// `ILIKE`: ignoring case.
        case_insensitive: bool,
    },
    /// A spatial test on a WKB column: `bbox_intersects(column, xmin, ymin, xmax,
    /// ymax)` or `geometry_type_in(column, code, ...)` (see [`SpatialFilter`]).
    Spatial {
        /// The column (`geoarrow.wkb` or any binary column of WKB values).
        column: ColumnRef,
        /// The test.
        filter: SpatialFilter,
    },
    /// All of them.
    And(Vec<Predicate>),
    /// Any of them.
    Or(Vec<Predicate>),
    /// Not it.
    Not(Box<Predicate>),
}

/// A reference to the column at a dotted path, to build predicates from.
///
/// ```
/// use herringbone_arrow_bridge::predicate::col;
/// let p = col("s.x").gt(5).or(col("name").starts_with("ab"));
/// assert_eq!(p.to_string(), "s.x > 5 OR name LIKE 'ab%'");
/// ```
pub fn col(dotted: &str) -> ColumnRef {
    ColumnRef::new(dotted)
}

/// A literal from a Rust value (`lit(5)`, `lit("R")`) or a one-element array.
pub fn lit(value: impl Into<Literal>) -> Literal {
    value.into()
}

impl ColumnRef {
    fn compare(self, op: CompareOp, value: impl Into<Literal>) -> Predicate {
        Predicate::Compare {
            column: self,
            op,
            value: value.into(),
        }
    }

    /// `self = value`.
    pub fn eq(self, value: impl Into<Literal>) -> Predicate {
        self.compare(CompareOp::Eq, value)
    }

    /// `self != value`.
    pub fn not_eq(self, value: impl Into<Literal>) -> Predicate {
        self.compare(CompareOp::NotEq, value)
    }

    /// `self < value`.
    pub fn lt(self, value: impl Into<Literal>) -> Predicate {
        self.compare(CompareOp::Lt, value)
    }

    /// `self <= value`.
    pub fn lt_eq(self, value: impl Into<Literal>) -> Predicate {
        self.compare(CompareOp::LtEq, value)
    }

    /// `self > value`.
    pub fn gt(self, value: impl Into<Literal>) -> Predicate {
        self.compare(CompareOp::Gt, value)
    }

    /// `self >= value`.
    pub fn gt_eq(self, value: impl Into<Literal>) -> Predicate {
        self.compare(CompareOp::GtEq, value)
    }

    /// `self IN (values)`.
    pub fn in_list<L: Into<Literal>>(self, values: impl IntoIterator<Item = L>) -> Predicate {
        Predicate::In {
            column: self,
            values: values.into_iter().map(Into::into).collect(),
            negated: false,
        }
    }

    /// `self IS NULL`.
    pub fn is_null(self) -> Predicate {
        Predicate::IsNull {
            column: self,
            negated: false,
        }
    }

    /// `self IS NOT NULL`.
    pub fn is_not_null(self) -> Predicate {
        Predicate::IsNull {
            column: self,
            negated: true,
        }
    }

    /// `self LIKE pattern`.
    pub fn like(self, pattern: impl Into<String>) -> Predicate {
        Predicate::Like {
            column: self,
            pattern: pattern.into(),
            negated: false,
            case_insensitive: false,
        }
    }

    /// `self LIKE 'prefix%'` (the prefix's `%`, `_` and `\` escaped).
    pub fn starts_with(self, prefix: &str) -> Predicate {
        let mut pattern = String::with_capacity(prefix.len() + 1);
        for c in prefix.chars() {
            if matches!(c, '%' | '_' | '\\') {
                pattern.push('\\');
            }
            pattern.push(c);
        }
        pattern.push('%');
        self.like(pattern)
    }
}

impl Predicate {
    /// Parses the text form (see the module documentation for the grammar).
    ///
    /// Errors (kind `InvalidArgument`) say what was expected and at which byte offset.
    pub fn parse(text: &str) -> crate::Result<Predicate> {
        parse::parse(text)
    }

    /// `self AND other` (flattening nested `AND`s).
    pub fn and(self, other: Predicate) -> Predicate {
        match (self, other) {
            (Predicate::And(mut a), Predicate::And(b)) => {
                a.extend(b);
                Predicate::And(a)
            }
            (Predicate::And(mut a), b) => {
                a.push(b);
                Predicate::And(a)
            }
            (a, b) => Predicate::And(vec![a, b]),
        }
    }

    /// `self OR other` (flattening nested `OR`s).
    pub fn or(self, other: Predicate) -> Predicate {
        match (self, other) {
            (Predicate::Or(mut a), Predicate::Or(b)) => {
                a.extend(b);
                Predicate::Or(a)
            }
            (Predicate::Or(mut a), b) => {
                a.push(b);
                Predicate::Or(a)
            }
            (a, b) => Predicate::Or(vec![a, b]),
        }
    }

    /// Every column the predicate refers to, each once, in order of first use.
    pub fn columns(&self) -> Vec<&ColumnRef> {
        let mut out: Vec<&ColumnRef> = Vec::new();
        self.visit_columns(&mut |c| {
            if !out.contains(&c) {
                out.push(c);
            }
        });
        out
    }

    fn visit_columns<'a>(&'a self, f: &mut impl FnMut(&'a ColumnRef)) {
        match self {
            Predicate::Const(_) => {}
            Predicate::Compare { column, .. }
            | Predicate::In { column, .. }
            | Predicate::IsNull { column, .. }
            | Predicate::Like { column, .. }
            | Predicate::Spatial { column, .. } => f(column),
            Predicate::And(list) | Predicate::Or(list) => {
                list.iter().for_each(|p| p.visit_columns(f))
            }
            Predicate::Not(p) => p.visit_columns(f),
        }
    }
}

impl std::ops::Not for Predicate {
    type Output = Predicate;

    fn not(self) -> Predicate {
        Predicate::Not(Box::new(self))
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null() {
            return f.write_str("NULL");
        }
        let quoted =
            |f: &mut fmt::Formatter<'_>, text: &str| write!(f, "'{}'", text.replace('\'', "''"));
        let text = arrow_cast::display::array_value_to_string(&self.value, 0)
            .unwrap_or_else(|_| "?".to_string());
        match self.data_type() {
            DataType::Boolean => f.write_str(if text == "true" { "TRUE" } else { "FALSE" }),
            t if t.is_numeric() => f.write_str(&text),
            _ => quoted(f, &text),
        }
    }
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Operands of AND that are ORs, and of NOT that are not atoms, need parentheses.
        let operand = |f: &mut fmt::Formatter<'_>, p: &Predicate, parent_and: bool| {
            let wrap = matches!(p, Predicate::Or(_)) && parent_and
                || matches!(p, Predicate::And(_) | Predicate::Or(_)) && !parent_and;
            if wrap {
                write!(f, "({p})")
            } else {
                write!(f, "{p}")
            }
        };
        match self {
            Predicate::Const(b) => f.write_str(if *b { "TRUE" } else { "FALSE" }),
            Predicate::Compare { column, op, value } => {
                write!(f, "{column} {} {value}", op.symbol())
            }
            Predicate::In {
                column,
                values,
                negated,
            } => {
                write!(f, "{column} {}IN (", if *negated { "NOT " } else { "" })?;
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")")
            }
            Predicate::IsNull { column, negated } => {
                write!(f, "{column} IS {}NULL", if *negated { "NOT " } else { "" })
            }
            Predicate::Like {
                column,
                pattern,
                negated,
                case_insensitive,
            } => write!(
                f,
                "{column} {}{} '{}'",
                if *negated { "NOT " } else { "" },
                if *case_insensitive { "ILIKE" } else { "LIKE" },
                pattern.replace('\'', "''")
            ),
            Predicate::Spatial { column, filter } => {
                write!(f, "{}({column}", filter.name())?;
                filter.fmt_args(f)?;
                f.write_str(")")
            }
            Predicate::And(list) | Predicate::Or(list) => {
                let is_and = matches!(self, Predicate::And(_));
                if list.is_empty() {
                    return f.write_str(if is_and { "TRUE" } else { "FALSE" });
                }
                for (i, p) in list.iter().enumerate() {
                    if i > 0 {
                        f.write_str(if is_and { " AND " } else { " OR " })?;
                    }
                    if is_and {
                        operand(f, p, true)?;
                    } else if matches!(p, Predicate::Or(_)) {
                        write!(f, "({p})")?;
                    } else {
                        write!(f, "{p}")?;
                    }
                }
                Ok(())
            }
            Predicate::Not(p) => {
                f.write_str("NOT ")?;
                match **p {
                    Predicate::And(_) | Predicate::Or(_) | Predicate::Not(_) => write!(f, "({p})"),
                    _ => operand(f, p, false),
                }
            }
        }
    }
}
