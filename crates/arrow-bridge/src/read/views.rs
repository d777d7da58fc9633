//! Arrow byte views (`Utf8View` / `BinaryView`) built straight over Parquet buffers.
//!
//! A view is 16 bytes: the value's length, then either the value itself (up to 12
//! bytes, zero-padded) or its first 4 bytes, the index of the buffer holding it and its
//! offset there. Views let a batch point into a decompressed page or a dictionary page
//! instead of copying the bytes, which is how a view array pays off.

use arrow_buffer::Buffer;

/// Values up to this many bytes are stored inside the view.
const INLINE_MAX: usize = 12;

/// The view of `value`, which is stored at `offset` of buffer `buffer`.
pub(crate) fn make_view(value: &[u8], buffer: u32, offset: u32) -> u128 {
    let len = value.len() as u32;
    if value.len() <= INLINE_MAX {
        let mut bytes = [0u8; 16];
        bytes[..4].copy_from_slice(&len.to_le_bytes());
        bytes[4..4 + value.len()].copy_from_slice(value);
        u128::from_le_bytes(bytes)
    } else {
        let prefix = u32::from_le_bytes([value[0], value[1], value[2], value[3]]);
        u128::from(len)
            | (u128::from(prefix) << 32)
            | (u128::from(buffer) << 64)
            | (u128::from(offset) << 96)
    }
}

/// The view of the `len` bytes at `start` of `data` (buffer `buffer`); the caller has
/// checked that they lie within `data` and that `data` is under 4 GiB. Where `data`
/// holds 16 bytes from `start`, the view comes from one 16-byte load (the value inline,
/// or its prefix) instead of a copy of each value's bytes.
#[inline(always)]
pub(crate) fn view_at(data: &[u8], start: usize, len: usize, buffer: u32) -> u128 {
    match data
        .get(start..start + 16)
        .and_then(|block| <[u8; 16]>::try_from(block).ok())
    {
        Some(block) => {
            let raw = u128::from_le_bytes(block);
            if len <= INLINE_MAX {
                // The value's bytes, the rest zeroed, after the 4-byte length.
                let mask = (1u128 << (8 * len)) - 1;
                ((raw & mask) << 32) | len as u128
            } else {
                len as u128
                    | (u128::from(raw as u32) << 32)
                    | (u128::from(buffer) << 64)
                    | ((start as u128) << 96)
            }
        }
        None => make_view(&data[start..start + len], buffer, start as u32),
    }
}

/// Whether byte `i` of `data` may start a character (or is the end): not a UTF-8
/// continuation byte (`0b10xx_xxxx`).
#[inline(always)]
pub(crate) fn starts_char(data: &[u8], i: usize) -> bool {
    data.get(i).is_none_or(|&b| (b as i8) >= -0x40)
}

/// Whether every value `views` (over `data`, buffer 0) show is UTF-8, given that
/// `span` of `data` covers them all and `boundaries` says whether every value starts
/// and ends on a character boundary of it: then one check of the span settles all of
/// them (see [`utf8_at`]); otherwise each value is checked on its own.
pub(crate) fn utf8_views(
    data: &[u8],
    span: std::ops::Range<usize>,
    boundaries: bool,
    views: &[u128],
) -> bool {
    if boundaries
        && data
            .get(span)
            .is_some_and(|s| std::str::from_utf8(s).is_ok())
    {
        return true;
    }
    views.iter().all(|&view| {
        let len = view as u32 as usize;
        if len <= INLINE_MAX {
            let bytes = view.to_le_bytes();
            std::str::from_utf8(&bytes[4..4 + len]).is_ok()
        } else {
            let start = (view >> 96) as usize;
            data.get(start..start + len)
                .is_some_and(|v| std::str::from_utf8(v).is_ok())
        }
    })
}

/// Whether views `a` and `b` refer to the same memory.
fn same_buffer(a: &Buffer, b: &Buffer) -> bool {
    a.as_ptr() == b.as_ptr() && a.len() == b.len()
}

/// Makes `views`, which index into `from`, index into `out` instead: the buffers of
/// `from` that `out` does not hold yet are added, and the views renumbered unless every
/// buffer kept its index.
pub(crate) fn adopt_buffers(views: &mut [u128], out: &mut Vec<Buffer>, from: &[Buffer]) {
    let map = buffer_map(out, from);
    if map.iter().enumerate().any(|(i, &to)| i as u32 != to) {
        for view in views {
            *view = renumber(*view, &map);
        }
    }
}

/// For each buffer of `from`, its index in `out` (added at the end when missing).
fn buffer_map(out: &mut Vec<Buffer>, from: &[Buffer]) -> Vec<u32> {
    from.iter()
        .map(|buffer| {
            let index = match out.iter().position(|held| same_buffer(held, buffer)) {
                Some(index) => index,
                None => {
                    out.push(buffer.clone());
                    out.len() - 1
                }
            };
            index as u32
        })
        .collect()
}

/// `view` with its buffer index `i` replaced by `map[i]` (inline views have none).
fn renumber(view: u128, map: &[u32]) -> u128 {
    if (view as u32) as usize <= INLINE_MAX {
        return view;
    }
    let buffer = (view >> 64) as u32;
    let to = map[buffer as usize];
    (view & !(u128::from(u32::MAX) << 64)) | (u128::from(to) << 64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(views: &[u128], buffers: &[Buffer]) -> Vec<String> {
        views
            .iter()
            .map(|&view| {
                let len = view as u32 as usize;
                let bytes = view.to_le_bytes();
                let value = if len <= INLINE_MAX {
                    bytes[4..4 + len].to_vec()
                } else {
                    let buffer = (view >> 64) as u32 as usize;
                    let offset = (view >> 96) as u32 as usize;
                    buffers[buffer][offset..offset + len].to_vec()
                };
                String::from_utf8(value).expect("utf8")
            })
            .collect()
    }

    #[test]
    fn views_inline_short_values_and_point_at_long_ones() {
        let data = b"abcthirteen bytesxy";
        let views: Vec<u128> = [(0, 3), (3, 14), (17, 2)]
            .iter()
            .map(|&(start, len)| make_view(&data[start..start + len], 0, start as u32))
            .collect();
        let buffers = [Buffer::from(data.to_vec())];
        assert_eq!(text(&views, &buffers), ["abc", "thirteen bytes", "xy"]);
        assert_eq!(views[1] >> 96, 3, "offset of the long value");
        assert_eq!((views[1] >> 32) as u32, u32::from_le_bytes(*b"thir"));
    }

    #[test]
    fn views_from_one_load_match_views_from_the_bytes() {
        let data: Vec<u8> = (0..64u8).map(|i| b'a' + i % 26).collect();
        for start in 0..data.len() {
            for len in 0..=(data.len() - start).min(20) {
                let expected = make_view(&data[start..start + len], 3, start as u32);
                assert_eq!(view_at(&data, start, len, 3), expected, "{start} {len}");
            }
        }
    }

    #[test]
    fn utf8_of_views_is_settled_per_value_when_the_span_fails() {
        // Values "ab" and "é" with a non-UTF-8 byte between them.
        let data = [b'a', b'b', 0xff, 0xc3, 0xa9];
        let views = [view_at(&data, 0, 2, 0), view_at(&data, 3, 2, 0)];
        // The span is not UTF-8 (0xff), each value is.
        assert!(utf8_views(&data, 0..5, true, &views));
        assert!(utf8_views(&data, 0..5, false, &views));
        let bad = [view_at(&data, 0, 2, 0), view_at(&data, 2, 2, 0)];
        assert!(!utf8_views(&data, 0..5, false, &bad));
        let long = "a long value of many bytes é".as_bytes();
        let views = [view_at(long, 0, long.len(), 0)];
        assert!(utf8_views(long, 0..long.len(), true, &views));
        assert!(!utf8_views(
            long,
            0..long.len(),
            false,
            &[view_at(long, 0, long.len() - 1, 0)]
        ));
    }

    #[test]
    fn adopting_renumbers_buffers_the_target_did_not_hold() {
        let first = Buffer::from(b"first buffer, long value".to_vec());
        let second = Buffer::from(b"second buffer, long value".to_vec());
        let view = |buffer: &Buffer, len: usize| make_view(&buffer[..len], 0, 0);
        let mut buffers = vec![first.clone()];
        // Views of `second` (its buffer 0) land after `first`: renumbered to 1.
        let mut views = [view(&second, 25), view(&second, 6), view(&second, 13)];
        adopt_buffers(&mut views, &mut buffers, std::slice::from_ref(&second));
        assert_eq!(buffers.len(), 2);
        assert_eq!(
            text(&views, &buffers),
            ["second buffer, long value", "second", "second buffer"]
        );
        // A buffer already held is not added again; views of `first` keep index 0.
        let mut views = [view(&first, 24)];
        adopt_buffers(&mut views, &mut buffers, std::slice::from_ref(&first));
        assert_eq!(buffers.len(), 2);
        assert_eq!(text(&views, &buffers), ["first buffer, long value"]);
    }
}
