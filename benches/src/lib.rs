//! Criterion benchmarks live in `benches/`; this library target is empty.
