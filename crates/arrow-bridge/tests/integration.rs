//! The integration tests of this crate, built as one test binary: a binary per file
//! links the whole dependency tree again each time, which dominated the test build.
//! Each file is a module; `cargo test -p herringbone-arrow-bridge --test integration <file>::` runs one.

mod async_read;
mod async_write;
mod common;
mod encryption;
mod geo_prune;
mod geo_statistics;
mod predicate;
mod prune_proptest;
mod read_api;
mod read_corpus;
mod read_dictionary;
mod read_encrypted;
mod read_external;
mod read_fast_paths;
mod read_hostile;
mod read_mmap;
mod read_offset_index;
mod read_quirks;
mod read_roundtrip;
mod read_salvage;
mod read_skip;
mod read_threads;
mod scan_byte_ranges;
mod scan_corpus;
mod scan_encrypted;
mod scan_late;
mod schema_corpus;
mod schema_hint_fields;
mod schema_mapping;
mod statistics;
mod variant_api;
mod variant_cases;
mod variant_proptest;
mod write_api;
mod write_dictionary_choice;
mod write_fast_paths;
mod write_interval_geo_bloom;
mod write_metadata;
mod write_proptest;
mod write_sorting;
mod write_threads;
mod write_types;
