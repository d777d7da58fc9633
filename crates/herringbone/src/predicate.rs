//! Filter expressions over the rows of a file: what a scan, a filter or an engine asks
//! for.
//!
//! A [`Predicate`] names columns by dotted path and compares them with literals
//! (`=`, `<`, `IN`, `IS NULL`, `LIKE`, spatial intersection), combined with `AND`, `OR`
//! and `NOT`. Build one in code ([`col`], [`lit`]) or parse its text form (the form
//! `hb --filter` takes); [`Predicate::bind`] resolves it against an Arrow schema into a
//! [`BoundPredicate`] that evaluates over `RecordBatch`es with SQL's three-valued logic.
//!
//! ```
//! use herringbone::predicate::{Predicate, col};
//!
//! let parsed = Predicate::parse("x >= 35 AND tag = 'odd'")?;
//! assert_eq!(parsed, col("x").gt_eq(35i64).and(col("tag").eq("odd")));
//! # Ok::<(), herringbone::Error>(())
//! ```

pub use herringbone_arrow_bridge::predicate::{
    BoundPredicate, ColumnRef, CompareOp, Literal, Predicate, QueryBox, SpatialFilter, col, lit,
};
