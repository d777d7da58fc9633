//! A predicate bound to a schema: columns resolved, literals in the columns' types.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use arrow_select::concat::concat;

use super::coerce::{Coerced, coerce};
use super::{ColumnRef, CompareOp, Literal, Predicate};
use crate::error::{Error, Result};
use crate::statistics::value_type;

/// A column a bound predicate reads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BoundColumn {
    /// The field names from the top level down, as the schema spells them.
    pub path: Vec<String>,
    /// The leaf field's type (a dictionary type when the column is one).
    pub data_type: DataType,
}

impl BoundColumn {
    /// The type of the values (a dictionary's value type).
    pub fn value_type(&self) -> &DataType {
        value_type(&self.data_type)
    }

    /// The dotted path.
    pub fn dotted(&self) -> String {
        self.path.join(".")
    }
}

/// A node of a bound predicate. Columns are indices into [`BoundPredicate::columns`];
/// literals are one-element arrays (lists: arrays) of the column's value type.
#[derive(Debug, Clone)]
pub(crate) enum Bound {
    /// Always this value (`None`: always null, e.g. a comparison with `NULL`).
    Const(Option<bool>),
    /// Null where the column is null, else this value (`x = 2.5` on an integer column
    /// is never true but still null on null rows).
    NullOr {
        column: usize,
        value: bool,
    },
    Compare {
        column: usize,
        op: CompareOp,
        value: ArrayRef,
    },
    In {
        column: usize,
        /// The non-null values, each once.
        values: ArrayRef,
        /// Whether the list held a `NULL` (a non-match is then null, not false).
        has_null: bool,
        negated: bool,
    },
    IsNull {
        column: usize,
        negated: bool,
    },
    Like {
        column: usize,
        pattern: String,
        negated: bool,
        case_insensitive: bool,
    },
    Spatial {
        column: usize,
        filter: super::SpatialFilter,
        edges: herringbone_codec::geo::Edges,
        negated: bool,
    },
    And(Vec<Bound>),
    Or(Vec<Bound>),
    Not(Box<Bound>),
}

impl Bound {
    /// The same predicate with every `NOT` pushed down onto the atoms, so that none is
    /// left: `NOT (x < v)` is `x >= v` (both null where `x` is), `NOT (a AND b)` is
    /// `NOT a OR NOT b` (De Morgan holds in three-valued logic).
    pub(crate) fn push_not(self, negate: bool) -> Bound {
        match self {
            Bound::Not(inner) => inner.push_not(!negate),
            Bound::And(list) if list.is_empty() => Bound::Const(Some(!negate)),
            Bound::Or(list) if list.is_empty() => Bound::Const(Some(negate)),
            Bound::And(list) => {
                let list = list.into_iter().map(|b| b.push_not(negate)).collect();
                if negate {
                    Bound::Or(list)
                } else {
                    Bound::And(list)
                }
            }
            Bound::Or(list) => {
                let list = list.into_iter().map(|b| b.push_not(negate)).collect();
                if negate {
                    Bound::And(list)
                } else {
                    Bound::Or(list)
                }
            }
            atom if !negate => atom,
            Bound::Const(value) => Bound::Const(value.map(|b| !b)),
            Bound::NullOr { column, value } => Bound::NullOr {
                column,
                value: !value,
            },
            Bound::Compare { column, op, value } => Bound::Compare {
                column,
                op: op.negate(),
                value,
            },
            Bound::In {
                column,
                values,
                has_null,
                negated,
            } => Bound::In {
                column,
                values,
                has_null,
                negated: !negated,
            },
            Bound::IsNull { column, negated } => Bound::IsNull {
                column,
                negated: !negated,
            },
            Bound::Spatial {
                column,
                filter,
                edges,
                negated,
            } => Bound::Spatial {
                column,
                filter,
                edges,
                negated: !negated,
            },
            Bound::Like {
                column,
                pattern,
                negated,
                case_insensitive,
            } => Bound::Like {
                column,
                pattern,
                negated: !negated,
                case_insensitive,
            },
        }
    }
}

/// A [`Predicate`] bound to a schema ([`Predicate::bind`]): evaluates over
/// `RecordBatch`es holding its columns ([`BoundPredicate::evaluate`]) and drives pruning.
#[derive(Debug, Clone)]
pub struct BoundPredicate {
    pub(crate) root: Bound,
    pub(crate) columns: Vec<BoundColumn>,
    predicate: Predicate,
}

impl Predicate {
    /// Binds the predicate to `schema`: resolves every column (a dotted path walks
    /// struct fields; a top-level field whose name is the whole dotted path, or that
    /// differs only in case, is found too) and coerces every literal to its column's
    /// type (see the predicate module's coercion rules).
    ///
    /// Errors (kind `InvalidArgument`) name a column that is missing, inside a list or
    /// map, or of a type that cannot be compared, and a literal that is not a value of
    /// its column's type.
    pub fn bind(&self, schema: &Schema) -> Result<BoundPredicate> {
        let mut binder = Binder {
            schema,
            columns: Vec::new(),
        };
        let root = binder.bind(self)?;
        Ok(BoundPredicate {
            root,
            columns: binder.columns,
            predicate: self.clone(),
        })
    }
}

impl BoundPredicate {
    /// The predicate as given.
    pub fn predicate(&self) -> &Predicate {
        &self.predicate
    }

    /// The paths (field names from the top level down) of the columns it reads.
    pub fn column_paths(&self) -> Vec<Vec<String>> {
        self.columns.iter().map(|c| c.path.clone()).collect()
    }

    /// The predicate over every row of `batch`: true, false, or null (unknown). The
    /// batch holds the predicate's columns by name (other columns are ignored).
    ///
    /// Errors when a column is missing from the batch or of another type than bound.
    pub fn evaluate(&self, batch: &RecordBatch) -> Result<BooleanArray> {
        super::evaluate::evaluate(self, batch)
    }

    /// The rows of `batch` where the predicate is true.
    pub fn filter(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let mask = self.evaluate(batch)?;
        let mask = super::evaluate::null_as_false(mask);
        if mask.true_count() == batch.num_rows() {
            return Ok(batch.clone());
        }
        Ok(arrow_select::filter::filter_record_batch(batch, &mask)?)
    }
}

struct Binder<'a> {
    schema: &'a Schema,
    columns: Vec<BoundColumn>,
}

impl Binder<'_> {
    fn bind(&mut self, p: &Predicate) -> Result<Bound> {
        Ok(match p {
            Predicate::Const(b) => Bound::Const(Some(*b)),
            Predicate::And(list) => {
                Bound::And(list.iter().map(|p| self.bind(p)).collect::<Result<_>>()?)
            }
            Predicate::Or(list) => {
                Bound::Or(list.iter().map(|p| self.bind(p)).collect::<Result<_>>()?)
            }
            Predicate::Not(p) => Bound::Not(Box::new(self.bind(p)?)),
            Predicate::IsNull { column, negated } => Bound::IsNull {
                column: self.column(column)?,
                negated: *negated,
            },
            Predicate::Spatial { column, filter } => {
                let (_, field) = resolve(self.schema, column)?;
                let edges = super::spatial::column_edges(&field, &column.dotted())?;
                Bound::Spatial {
                    column: self.column(column)?,
                    filter: filter.clone(),
                    edges,
                    negated: false,
                }
            }
            Predicate::Compare { column, op, value } => {
                let index = self.column(column)?;
                let c = &self.columns[index];
                compare(index, *op, coerce(value, c.value_type(), &c.dotted())?)
            }
            Predicate::In {
                column,
                values,
                negated,
            } => {
                let index = self.column(column)?;
                self.in_list(index, values, *negated)?
            }
            Predicate::Like {
                column,
                pattern,
                negated,
                case_insensitive,
            } => {
                let index = self.column(column)?;
                let c = &self.columns[index];
                if !matches!(
                    c.value_type(),
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                ) {
                    return Err(Error::invalid_argument(format!(
                        "filter: LIKE needs a string column, {} is {}",
                        c.dotted(),
                        c.data_type
                    )));
                }
                Bound::Like {
                    column: index,
                    pattern: pattern.clone(),
                    negated: *negated,
                    case_insensitive: *case_insensitive,
                }
            }
        })
    }

    fn in_list(&mut self, index: usize, values: &[Literal], negated: bool) -> Result<Bound> {
        let c = &self.columns[index];
        let mut exact = Vec::new();
        let mut has_null = false;
        for value in values {
            match coerce(value, c.value_type(), &c.dotted())? {
                Coerced::Exact(v) => exact.push(v),
                Coerced::Null => has_null = true,
                // No value of the column equals it.
                Coerced::Between { .. } => {}
            }
        }
        if exact.is_empty() {
            // `x IN ()` is false on non-null rows; with a NULL in the list, null.
            return Ok(match (has_null, negated) {
                (true, _) => Bound::Const(None),
                (false, negated) => Bound::NullOr {
                    column: index,
                    value: negated,
                },
            });
        }
        let refs: Vec<&dyn Array> = exact.iter().map(|a| a.as_ref()).collect();
        let values = concat(&refs)?;
        let values = distinct(values)?;
        Ok(Bound::In {
            column: index,
            values,
            has_null,
            negated,
        })
    }

    /// Resolves a column, adding it to the list once.
    fn column(&mut self, column: &ColumnRef) -> Result<usize> {
        let (path, field) = resolve(self.schema, column)?;
        if let Some(i) = self.columns.iter().position(|c| c.path == path) {
            return Ok(i);
        }
        let data_type = field.data_type().clone();
        let comparable = !matches!(
            value_type(&data_type),
            DataType::List(_)
                | DataType::LargeList(_)
                | DataType::ListView(_)
                | DataType::LargeListView(_)
                | DataType::FixedSizeList(_, _)
                | DataType::Map(_, _)
                | DataType::Struct(_)
                | DataType::Union(_, _)
                | DataType::RunEndEncoded(_, _)
        );
        if !comparable {
            return Err(Error::invalid_argument(format!(
                "filter: column {} is {data_type}: only columns of values can be filtered on",
                path.join(".")
            )));
        }
        self.columns.push(BoundColumn { path, data_type });
        Ok(self.columns.len() - 1)
    }
}

fn compare(column: usize, op: CompareOp, value: Coerced) -> Bound {
    match value {
        Coerced::Exact(value) => Bound::Compare { column, op, value },
        Coerced::Null => Bound::Const(None),
        Coerced::Between { below, above } => match op {
            CompareOp::Eq => Bound::NullOr {
                column,
                value: false,
            },
            CompareOp::NotEq => Bound::NullOr {
                column,
                value: true,
            },
            CompareOp::Lt | CompareOp::LtEq => match below {
                Some(value) => Bound::Compare {
                    column,
                    op: CompareOp::LtEq,
                    value,
                },
                None => Bound::NullOr {
                    column,
                    value: false,
                },
            },
            CompareOp::Gt | CompareOp::GtEq => match above {
                Some(value) => Bound::Compare {
                    column,
                    op: CompareOp::GtEq,
                    value,
                },
                None => Bound::NullOr {
                    column,
                    value: false,
                },
            },
        },
    }
}

/// The values without repeats (IN lists are short: a quadratic pass is fine).
fn distinct(values: ArrayRef) -> Result<ArrayRef> {
    let n = values.len();
    if n < 2 {
        return Ok(values);
    }
    let data: Vec<_> = (0..n).map(|i| values.slice(i, 1).to_data()).collect();
    let keep: Vec<u32> = (0..n)
        .filter(|&i| !data[..i].contains(&data[i]))
        .map(|i| i as u32)
        .collect();
    if keep.len() == n {
        return Ok(values);
    }
    let indices = arrow_array::UInt32Array::from(keep);
    Ok(arrow_select::take::take(&values, &indices, None)?)
}

/// The field at `column`'s path in `schema`, with the path as the schema spells it.
pub(crate) fn resolve(schema: &Schema, column: &ColumnRef) -> Result<(Vec<String>, Arc<Field>)> {
    let parts = column.parts();
    let dotted = column.dotted();
    let missing = || {
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        Error::invalid_argument(format!(
            "filter: no column `{dotted}` (the columns are {})",
            names.join(", ")
        ))
    };
    // A top-level field named by the whole dotted path.
    if parts.len() > 1
        && let Ok(field) = schema.field_with_name(&dotted)
    {
        return Ok((vec![dotted.clone()], Arc::new(field.clone())));
    }
    let mut fields = schema.fields().clone();
    let mut path = Vec::with_capacity(parts.len());
    let mut found: Option<Arc<Field>> = None;
    for (depth, part) in parts.iter().enumerate() {
        let field = find_field(&fields, part).ok_or_else(missing)?;
        path.push(field.name().clone());
        if depth + 1 < parts.len() {
            match field.data_type() {
                DataType::Struct(children) => fields = children.clone(),
                DataType::List(_)
                | DataType::LargeList(_)
                | DataType::ListView(_)
                | DataType::LargeListView(_)
                | DataType::FixedSizeList(_, _)
                | DataType::Map(_, _) => {
                    return Err(Error::invalid_argument(format!(
                        "filter: column `{dotted}` is inside the list or map {}: only columns outside lists can be filtered on",
                        path.join(".")
                    )));
                }
                _ => return Err(missing()),
            }
        }
        found = Some(field);
    }
    Ok((path, found.ok_or_else(missing)?))
}

/// The field named `name`: exactly, else the one field whose name differs only in case.
fn find_field(fields: &arrow_schema::Fields, name: &str) -> Option<Arc<Field>> {
    if let Some(f) = fields.iter().find(|f| f.name() == name) {
        return Some(f.clone());
    }
    let mut folded = fields
        .iter()
        .filter(|f| f.name().eq_ignore_ascii_case(name));
    match (folded.next(), folded.next()) {
        (Some(f), None) => Some(f.clone()),
        _ => None,
    }
}
