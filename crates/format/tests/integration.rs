//! The integration tests of this crate, built as one test binary: a binary per file
//! links the whole dependency tree again each time, which dominated the test build.
//! Each file is a module; `cargo test -p herringbone-format --test integration <file>::` runs one.

mod common;
mod corpus;
mod hostile;
mod roundtrip;
mod schema_arrow_rs;
mod schema_corpus;
mod schema_text;
mod schema_validation;
mod thrift_crosscheck;
