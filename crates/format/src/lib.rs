//! placeholder: replaced by the crate's modules
