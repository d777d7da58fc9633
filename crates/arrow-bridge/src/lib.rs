//! Parquet pages <-> Arrow arrays: the Arrow side of Herringbone.
//!
//! [`schema`] maps a Parquet schema to Arrow (and records, for every Arrow field, the
//! Parquet levels and leaf columns the reader needs).

pub mod error;
pub mod schema;

pub use error::{Error, ErrorKind, Result};
