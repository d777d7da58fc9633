//! The integration tests of this crate, built as one test binary: a binary per file
//! links the whole dependency tree again each time, which dominated the test build.
//! Each file is a module; `cargo test -p herringbone-cli --test integration <file>::` runs one.

#[allow(dead_code)]
#[path = "../../arrow-bridge/tests/common/built.rs"]
mod built;
mod cli;
mod cli_cat_corpus;
mod cli_convert;
mod cli_encrypted_tools;
mod cli_encryption;
mod cli_filter;
mod cli_memory_limits;
mod cli_read;
mod cli_salvage;
mod cli_tools;
mod common;
mod variant_cli;
