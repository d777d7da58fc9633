//! Every value decoder fed arbitrary bytes, the decoder chosen by the first input byte
//! (the per-decoder targets share this body; see `src/lib.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| herringbone_fuzz::run_any(input));
