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

/// Appends the views of the values at `positions` (start, length) of `data`, which is
/// buffer `buffer` of the array. The positions must lie within `data`.
pub(crate) fn push_views(data: &[u8], positions: &[(u32, u32)], buffer: u32, out: &mut Vec<u128>) {
    out.reserve(positions.len());
    out.extend(positions.iter().map(|&(start, len)| {
        let (start, end) = (start as usize, start as usize + len as usize);
        make_view(&data[start..end], buffer, start as u32)
    }));
}

/// The views of the values at `positions` of `data` (buffer 0); `None` when `utf8` is
/// asked for and some value is not UTF-8 (see [`utf8_at`]).
pub(crate) fn checked_views(
    data: &[u8],
    positions: &[(u32, u32)],
    utf8: bool,
) -> Option<Vec<u128>> {
    if utf8 && !utf8_at(data, positions) {
        return None;
    }
    let mut views = Vec::new();
    push_views(data, positions, 0, &mut views);
    Some(views)
}

/// The (start, length) of each value of BYTE_ARRAY offsets (which start at 0, rise and
/// fit in `u32`: the caller checked the data's length).
pub(crate) fn offset_positions(offsets: &[i64]) -> Vec<(u32, u32)> {
    offsets
        .windows(2)
        .map(|w| (w[0] as u32, (w[1] - w[0]) as u32))
        .collect()
}

/// Whether every value at `positions` of `data` is valid UTF-8.
///
/// One pass over the span from the first value to the end of the last, plus a look at
/// the first and last byte of each value, instead of one validation call per value:
/// when the span is valid UTF-8 and no value starts or ends inside a character, every
/// value is valid on its own. Bytes between values (PLAIN's length prefixes) are part of
/// the span, so a span that fails may still hold only valid values; that case is
/// settled value by value.
pub(crate) fn utf8_at(data: &[u8], positions: &[(u32, u32)]) -> bool {
    let (Some(first), Some(last)) = (positions.first(), positions.last()) else {
        return true;
    };
    let span_start = first.0 as usize;
    let span_end = last.0 as usize + last.1 as usize;
    if span_start <= span_end && span_end <= data.len() {
        let span = &data[span_start..span_end];
        // A continuation byte is 0b10xx_xxxx: never the first byte of a character.
        let starts_char = |i: usize| i >= span.len() || (span[i] as i8) >= -0x40;
        if std::str::from_utf8(span).is_ok()
            && positions.iter().all(|&(start, len)| {
                // Positions come in order; one that does not is settled below.
                (start as usize)
                    .checked_sub(span_start)
                    .is_some_and(|start| {
                        let end = start + len as usize;
                        end <= span.len() && starts_char(start) && starts_char(end)
                    })
            })
        {
            return true;
        }
    }
    positions.iter().all(|&(start, len)| {
        std::str::from_utf8(&data[start as usize..start as usize + len as usize]).is_ok()
    })
}

/// Whether views `a` and `b` refer to the same memory.
fn same_buffer(a: &Buffer, b: &Buffer) -> bool {
    a.as_ptr() == b.as_ptr() && a.len() == b.len()
}

/// Appends `views` (which index into `from`) to `out_views`, adding the buffers of
/// `from` that `out_buffers` does not hold yet and renumbering the views' buffer
/// indices accordingly.
pub(crate) fn append_views(
    out_views: &mut Vec<u128>,
    out_buffers: &mut Vec<Buffer>,
    views: &[u128],
    from: &[Buffer],
) {
    let map = buffer_map(out_buffers, from);
    if map.iter().enumerate().all(|(i, &to)| i as u32 == to) {
        out_views.extend_from_slice(views);
    } else {
        out_views.extend(views.iter().map(|&view| renumber(view, &map)));
    }
}

/// Appends the views `dictionary[i]` for each of `indices` (checked against the
/// dictionary's length), renumbering buffers as [`append_views`] does.
pub(crate) fn gather_views(
    out_views: &mut Vec<u128>,
    out_buffers: &mut Vec<Buffer>,
    dictionary: &[u128],
    dictionary_buffers: &[Buffer],
    indices: &[u32],
) {
    let map = buffer_map(out_buffers, dictionary_buffers);
    out_views.reserve(indices.len());
    if map.iter().enumerate().all(|(i, &to)| i as u32 == to) {
        out_views.extend(indices.iter().map(|&i| dictionary[i as usize]));
    } else {
        out_views.extend(
            indices
                .iter()
                .map(|&i| renumber(dictionary[i as usize], &map)),
        );
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
        let positions = [(0, 3), (3, 14), (17, 2)];
        let mut views = Vec::new();
        push_views(data, &positions, 0, &mut views);
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
    fn appending_renumbers_buffers_the_target_did_not_hold() {
        let first = Buffer::from(b"first buffer, long value".to_vec());
        let second = Buffer::from(b"second buffer, long value".to_vec());
        let mut a = Vec::new();
        push_views(first.as_slice(), &[(0, 24)], 0, &mut a);
        let mut b = Vec::new();
        push_views(second.as_slice(), &[(0, 25), (0, 6)], 0, &mut b);
        let mut views = Vec::new();
        let mut buffers = Vec::new();
        append_views(&mut views, &mut buffers, &a, std::slice::from_ref(&first));
        append_views(&mut views, &mut buffers, &b, std::slice::from_ref(&second));
        // The same buffer again is not added twice.
        append_views(&mut views, &mut buffers, &a, std::slice::from_ref(&first));
        assert_eq!(buffers.len(), 2);
        assert_eq!(
            text(&views, &buffers),
            [
                "first buffer, long value",
                "second buffer, long value",
                "second",
                "first buffer, long value"
            ]
        );
        let mut gathered = Vec::new();
        let mut gathered_buffers = vec![first.clone()];
        gather_views(
            &mut gathered,
            &mut gathered_buffers,
            &b,
            std::slice::from_ref(&second),
            &[1, 0, 0],
        );
        assert_eq!(
            text(&gathered, &gathered_buffers),
            [
                "second",
                "second buffer, long value",
                "second buffer, long value"
            ]
        );
    }

    #[test]
    fn utf8_is_checked_per_value_not_per_span() {
        // "é" is two bytes: a value ending inside it is invalid although the span is not.
        let data = "aé".as_bytes();
        assert!(utf8_at(data, &[(0, 1), (1, 2)]));
        assert!(!utf8_at(data, &[(0, 2), (2, 1)]));
        // Non-UTF-8 bytes between the values (a PLAIN length prefix) do not matter.
        let data = [b'a', 0xff, 0x80, 0x00, b'b'];
        assert!(utf8_at(&data, &[(0, 1), (4, 1)]));
        assert!(!utf8_at(&data, &[(0, 2), (4, 1)]));
        assert!(utf8_at(&data, &[]));
    }
}
