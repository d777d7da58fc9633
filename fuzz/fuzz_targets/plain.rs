//! The PLAIN decoders fed arbitrary bytes (parameters from the first 4 bytes):
//! no panic, skip-then-read equals read-then-drop (see `src/lib.rs`).
#![no_main]

use herringbone_fuzz::Decoder;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| herringbone_fuzz::run(Decoder::Plain, input));
