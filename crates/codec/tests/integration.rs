//! The integration tests of this crate, built as one test binary: a binary per file
//! links the whole dependency tree again each time, which dominated the test build.
//! Each file is a module; `cargo test -p herringbone-codec --test integration <file>::` runs one.

mod bitpack_kernels;
mod bloom;
mod compression;
mod corpus_pages;
mod crypto_corpus;
mod encoding;
mod geo;
mod lzo_vectors;
mod page;
mod rle;
mod variant_arrow_rs;
mod variant_corpus;
mod variant_proptest;
