//! Which vector extensions the kernels may use, detected at run time. With the
//! `portable` feature every answer is no, and every kernel takes its portable path:
//! that build measures what a CPU without AVX2 or AVX-512 gets; with `no-avx512` only
//! the AVX-512 answer is no (a CPU with AVX2 alone). See docs/benchmarks.md.
//!
//! Each answer combines several features and is asked per 64-slot word by `spread`: it
//! is detected once and kept.

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
use std::sync::atomic::{AtomicU8, Ordering};

/// Whether the CPU has AVX2 and POPCNT (and the build may use them). Every CPU with
/// AVX2 has POPCNT; the kernels that count bits enable both.
#[inline]
pub(crate) fn avx2() -> bool {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        static DETECTED: AtomicU8 = AtomicU8::new(0);
        return remembered(&DETECTED, || {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("popcnt")
        });
    }
    #[allow(unreachable_code)]
    false
}

/// Whether the CPU has AVX-512 F, VL and BW, and POPCNT (and the build may use them).
#[inline]
pub(crate) fn avx512_f_vl_bw() -> bool {
    #[cfg(all(
        target_arch = "x86_64",
        not(feature = "portable"),
        not(feature = "no-avx512")
    ))]
    {
        static DETECTED: AtomicU8 = AtomicU8::new(0);
        return remembered(&DETECTED, || {
            std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("popcnt")
        });
    }
    #[allow(unreachable_code)]
    false
}

/// The answer kept in `slot` (0 = not yet detected, 1 = absent, 2 = present), or
/// `detect`'s, kept there.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[inline]
fn remembered(slot: &AtomicU8, detect: impl FnOnce() -> bool) -> bool {
    match slot.load(Ordering::Relaxed) {
        2 => true,
        1 => false,
        _ => {
            let present = detect();
            slot.store(if present { 2 } else { 1 }, Ordering::Relaxed);
            present
        }
    }
}
