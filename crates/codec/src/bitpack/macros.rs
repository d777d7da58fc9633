// Generated lists used by the kernels: the 64 lanes of a group and the bit widths of
// each output type. Kept in one place so the unrolling is explicit and auditable.

/// Expands `$lane!(i)` for every lane `i` of a 64-value group, fully unrolled so that
/// every shift amount and word index is a compile-time constant for a given width.
macro_rules! unroll_64 {
    ($lane:ident) => {
        $lane!(0);
        $lane!(1);
        $lane!(2);
        $lane!(3);
        $lane!(4);
        $lane!(5);
        $lane!(6);
        $lane!(7);
        $lane!(8);
        $lane!(9);
        $lane!(10);
        $lane!(11);
        $lane!(12);
        $lane!(13);
        $lane!(14);
        $lane!(15);
        $lane!(16);
        $lane!(17);
        $lane!(18);
        $lane!(19);
        $lane!(20);
        $lane!(21);
        $lane!(22);
        $lane!(23);
        $lane!(24);
        $lane!(25);
        $lane!(26);
        $lane!(27);
        $lane!(28);
        $lane!(29);
        $lane!(30);
        $lane!(31);
        $lane!(32);
        $lane!(33);
        $lane!(34);
        $lane!(35);
        $lane!(36);
        $lane!(37);
        $lane!(38);
        $lane!(39);
        $lane!(40);
        $lane!(41);
        $lane!(42);
        $lane!(43);
        $lane!(44);
        $lane!(45);
        $lane!(46);
        $lane!(47);
        $lane!(48);
        $lane!(49);
        $lane!(50);
        $lane!(51);
        $lane!(52);
        $lane!(53);
        $lane!(54);
        $lane!(55);
        $lane!(56);
        $lane!(57);
        $lane!(58);
        $lane!(59);
        $lane!(60);
        $lane!(61);
        $lane!(62);
        $lane!(63);
    };
}

/// Maps a runtime bit width to the kernel monomorphised for it, once per call.
macro_rules! width_dispatch {
    ($width:expr, $kernel:ident, $t:ty, u8) => { width_dispatch!(@arms $width, $kernel, $t, [0 1 2 3 4 5 6 7 8]) };
    ($width:expr, $kernel:ident, $t:ty, u16) => { width_dispatch!(@arms $width, $kernel, $t, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16]) };
    ($width:expr, $kernel:ident, $t:ty, u32) => { width_dispatch!(@arms $width, $kernel, $t, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32]) };
    ($width:expr, $kernel:ident, $t:ty, u64) => { width_dispatch!(@arms $width, $kernel, $t, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64]) };
    (@kernel $width:expr, $kernel:ident, u8) => { width_dispatch!(@warms $width, $kernel, [0 1 2 3 4 5 6 7 8]) };
    (@kernel $width:expr, $kernel:ident, u16) => { width_dispatch!(@warms $width, $kernel, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16]) };
    (@kernel $width:expr, $kernel:ident, u32) => { width_dispatch!(@warms $width, $kernel, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32]) };
    (@kernel $width:expr, $kernel:ident, u64) => { width_dispatch!(@warms $width, $kernel, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64]) };
    (@warms $width:expr, $kernel:ident, [$($n:literal)*]) => {
        match $width {
            $($n => Some($kernel::<$n> as _),)*
            _ => None,
        }
    };
    (@arms $width:expr, $kernel:ident, $t:ty, [$($n:literal)*]) => {
        match $width {
            $($n => Some($kernel::<$t, $n> as _),)*
            _ => None,
        }
    };
}
