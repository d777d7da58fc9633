//! Parquet file metadata for Herringbone: the Thrift compact protocol, every structure of
//! `parquet.thrift`, the schema tree built from the flat schema list, and the footer.
//!
//! This crate knows nothing about Arrow and contains no `unsafe` code.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod chunk;
pub mod compact;
pub mod crypto;
pub mod error;
pub mod footer;
pub mod metadata;
pub mod schema;
pub mod thrift;

pub use error::{Error, ErrorKind, Result};
