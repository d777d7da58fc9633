//! [`Values`]: a column's values in their physical type, the container every layer of the
//! writer above the Arrow conversion works on (the dictionary's entries, a page's values
//! before encoding, the bounds of statistics).
//!
//! Numbers are held as the physical type's Rust type, byte arrays as one byte buffer with
//! their boundaries, fixed-width byte arrays as one buffer of a width. Nothing here knows
//! Arrow, encodings or pages.

use arrow_buffer::ToByteSlice;
use herringbone_format::metadata::Type;

/// Values of one physical type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Values {
    /// BOOLEAN.
    Bool(Vec<bool>),
    /// INT32.
    I32(Vec<i32>),
    /// INT64.
    I64(Vec<i64>),
    /// INT96 (raw 12 bytes).
    I96(Vec<[u8; 12]>),
    /// FLOAT.
    F32(Vec<f32>),
    /// DOUBLE.
    F64(Vec<f64>),
    /// BYTE_ARRAY: `offsets` has one entry more than there are values.
    Bytes {
        /// Value boundaries in `data`.
        offsets: Vec<usize>,
        /// Value bytes back to back.
        data: Vec<u8>,
    },
    /// FIXED_LEN_BYTE_ARRAY.
    Fixed {
        /// Bytes per value.
        width: usize,
        /// Value bytes back to back.
        data: Vec<u8>,
    },
}

impl Values {
    /// No values of `physical` type (`width`: bytes per FIXED_LEN_BYTE_ARRAY value).
    pub fn empty(physical: Type, width: usize) -> Values {
        match physical {
            Type::BOOLEAN => Values::Bool(Vec::new()),
            Type::INT32 => Values::I32(Vec::new()),
            Type::INT64 => Values::I64(Vec::new()),
            Type::INT96 => Values::I96(Vec::new()),
            Type::FLOAT => Values::F32(Vec::new()),
            Type::DOUBLE => Values::F64(Vec::new()),
            Type::BYTE_ARRAY => Values::Bytes {
                offsets: vec![0],
                data: Vec::new(),
            },
            _ => Values::Fixed {
                width: width.max(1),
                data: Vec::new(),
            },
        }
    }

    /// An empty [`Values`] of the same variant (and width) as `other`.
    pub fn empty_like(other: &Values) -> Values {
        match other {
            Values::Bool(_) => Values::Bool(Vec::new()),
            Values::I32(_) => Values::I32(Vec::new()),
            Values::I64(_) => Values::I64(Vec::new()),
            Values::I96(_) => Values::I96(Vec::new()),
            Values::F32(_) => Values::F32(Vec::new()),
            Values::F64(_) => Values::F64(Vec::new()),
            Values::Bytes { .. } => Values::Bytes {
                offsets: vec![0],
                data: Vec::new(),
            },
            Values::Fixed { width, .. } => Values::Fixed {
                width: *width,
                data: Vec::new(),
            },
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Bool(v) => v.len(),
            Values::I32(v) => v.len(),
            Values::I64(v) => v.len(),
            Values::I96(v) => v.len(),
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Bytes { offsets, .. } => offsets.len() - 1,
            Values::Fixed { width, data } => data.len() / width,
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values as byte slices (BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY only).
    pub fn byte_values(&self) -> Box<dyn Iterator<Item = &[u8]> + '_> {
        match self {
            Values::Bytes { offsets, data } => {
                Box::new(offsets.windows(2).map(move |w| &data[w[0]..w[1]]))
            }
            Values::Fixed { width, data } => Box::new(data.chunks_exact(*width)),
            _ => Box::new(std::iter::empty()),
        }
    }

    /// Value `i` as bytes (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY and INT96; empty otherwise).
    pub fn bytes_at(&self, i: usize) -> &[u8] {
        match self {
            Values::Bytes { offsets, data } => &data[offsets[i]..offsets[i + 1]],
            Values::Fixed { width, data } => &data[i * width..(i + 1) * width],
            Values::I96(v) => &v[i],
            _ => &[],
        }
    }

    /// Appends one value given as bytes (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY of the same
    /// width, INT96 of 12 bytes; other variants ignore it).
    pub fn push_bytes(&mut self, value: &[u8]) {
        match self {
            Values::Bytes { offsets, data } => {
                data.extend_from_slice(value);
                offsets.push(data.len());
            }
            Values::Fixed { data, .. } => data.extend_from_slice(value),
            Values::I96(v) => {
                if let Ok(raw) = <[u8; 12]>::try_from(value) {
                    v.push(raw);
                }
            }
            _ => {}
        }
    }

    /// PLAIN-encoded size of the values.
    pub fn plain_size(&self) -> usize {
        match self {
            Values::Bool(v) => v.len().div_ceil(8),
            Values::I32(v) => v.len() * 4,
            Values::F32(v) => v.len() * 4,
            Values::I64(v) => v.len() * 8,
            Values::F64(v) => v.len() * 8,
            Values::I96(v) => v.len() * 12,
            Values::Bytes { offsets, data } => data.len() + 4 * (offsets.len() - 1),
            Values::Fixed { data, .. } => data.len(),
        }
    }

    /// Appends values `start..end` of `other` (same variant).
    pub fn extend_range(&mut self, other: &Values, start: usize, end: usize) {
        match (self, other) {
            (Values::Bool(a), Values::Bool(b)) => a.extend_from_slice(&b[start..end]),
            (Values::I32(a), Values::I32(b)) => a.extend_from_slice(&b[start..end]),
            (Values::I64(a), Values::I64(b)) => a.extend_from_slice(&b[start..end]),
            (Values::I96(a), Values::I96(b)) => a.extend_from_slice(&b[start..end]),
            (Values::F32(a), Values::F32(b)) => a.extend_from_slice(&b[start..end]),
            (Values::F64(a), Values::F64(b)) => a.extend_from_slice(&b[start..end]),
            (
                Values::Bytes { offsets, data },
                Values::Bytes {
                    offsets: bo,
                    data: bd,
                },
            ) => {
                let base = data.len();
                let first = bo[start];
                data.extend_from_slice(&bd[first..bo[end]]);
                offsets.extend(bo[start + 1..=end].iter().map(|o| o - first + base));
            }
            (Values::Fixed { width, data }, Values::Fixed { data: bd, .. }) => {
                data.extend_from_slice(&bd[start * *width..end * *width]);
            }
            _ => {}
        }
    }

    /// Removes every value, keeping the buffers.
    pub fn clear(&mut self) {
        match self {
            Values::Bool(v) => v.clear(),
            Values::I32(v) => v.clear(),
            Values::I64(v) => v.clear(),
            Values::I96(v) => v.clear(),
            Values::F32(v) => v.clear(),
            Values::F64(v) => v.clear(),
            Values::Bytes { offsets, data } => {
                offsets.clear();
                offsets.push(0);
                data.clear();
            }
            Values::Fixed { data, .. } => data.clear(),
        }
    }

    /// Sum of the lengths of BYTE_ARRAY values `start..end` (0 for other types; for
    /// size statistics).
    pub fn byte_len(&self, start: usize, end: usize) -> i64 {
        match self {
            Values::Bytes { offsets, .. } if start < end => (offsets[end] - offsets[start]) as i64,
            _ => 0,
        }
    }

    /// The PLAIN bytes of fixed-width numbers as they lie in memory (little-endian
    /// targets, where PLAIN's little-endian layout is the native one); `None` for
    /// other values and targets.
    pub fn fixed_plain(&self) -> Option<&[u8]> {
        if cfg!(target_endian = "big") {
            return None;
        }
        match self {
            Values::I32(v) => Some(v.to_byte_slice()),
            Values::I64(v) => Some(v.to_byte_slice()),
            Values::F32(v) => Some(v.to_byte_slice()),
            Values::F64(v) => Some(v.to_byte_slice()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_of_byte_arrays_keep_their_boundaries() {
        let mut source = Values::empty(Type::BYTE_ARRAY, 0);
        for v in [&b"ab"[..], b"", b"cde", b"f"] {
            source.push_bytes(v);
        }
        let mut out = Values::empty_like(&source);
        out.push_bytes(b"x");
        out.extend_range(&source, 1, 4);
        let got: Vec<&[u8]> = out.byte_values().collect();
        assert_eq!(got, vec![&b"x"[..], b"", b"cde", b"f"]);
        assert_eq!(out.byte_len(1, 4), 4);
        assert_eq!(out.plain_size(), 5 + 4 * 4);
        out.clear();
        assert!(out.is_empty());
        assert_eq!(out, Values::empty(Type::BYTE_ARRAY, 0));
    }

    #[test]
    fn fixed_width_values_by_position() {
        let mut v = Values::empty(Type::FIXED_LEN_BYTE_ARRAY, 3);
        v.push_bytes(&[1, 2, 3]);
        v.push_bytes(&[4, 5, 6]);
        assert_eq!(v.len(), 2);
        assert_eq!(v.bytes_at(1), &[4, 5, 6]);
        let mut i96 = Values::empty(Type::INT96, 0);
        i96.push_bytes(&[7; 12]);
        i96.push_bytes(&[1; 11]);
        assert_eq!(i96.len(), 1);
        assert_eq!(i96.plain_size(), 12);
        if cfg!(target_endian = "little") {
            assert_eq!(
                Values::I32(vec![1, -1]).fixed_plain(),
                Some(&[1u8, 0, 0, 0, 255, 255, 255, 255][..])
            );
        }
        assert_eq!(Values::Bool(vec![true]).fixed_plain(), None);
    }
}
