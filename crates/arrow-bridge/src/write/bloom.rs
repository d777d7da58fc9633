//! A column chunk's Bloom filter, filled from what the chunk stores: the values of each
//! page written without the dictionary (as the page is closed) and the dictionary's
//! entries (when the chunk is closed). A split-block filter is a set (inserting a hash
//! sets bits), so hashing each distinct dictionary entry once gives the same filter as
//! hashing every value, for a fraction of the work.

use herringbone_codec::bloom::{self, SplitBlockBloomFilter};

use super::values::Values;

/// Inserts every value of `values` (hashed as the specification says: over the PLAIN
/// encoding of the value, without a length prefix for byte arrays).
pub(crate) fn insert_values(filter: &mut SplitBlockBloomFilter, values: &Values) {
    match values {
        Values::Bool(v) => v
            .iter()
            .for_each(|&b| filter.insert_hash(bloom::hash_i32(i32::from(b)))),
        Values::I32(v) => v
            .iter()
            .for_each(|&x| filter.insert_hash(bloom::hash_i32(x))),
        Values::I64(v) => v
            .iter()
            .for_each(|&x| filter.insert_hash(bloom::hash_i64(x))),
        Values::F32(v) => v
            .iter()
            .for_each(|&x| filter.insert_hash(bloom::hash_f32(x))),
        Values::F64(v) => v
            .iter()
            .for_each(|&x| filter.insert_hash(bloom::hash_f64(x))),
        Values::I96(v) => v
            .iter()
            .for_each(|x| filter.insert_hash(bloom::hash_int96(x))),
        Values::Bytes { offsets, data } => {
            for w in offsets.windows(2) {
                filter.insert_hash(bloom::hash_byte_array(&data[w[0]..w[1]]));
            }
        }
        Values::Fixed { width, data } => {
            for value in data.chunks_exact(*width) {
                filter.insert_hash(bloom::hash_fixed_len_byte_array(value));
            }
        }
    }
}

/// Inserts byte array values laid out back to back in `data` with their `lengths` (the
/// DELTA_LENGTH_BYTE_ARRAY layout, or PLAIN's when `lengths` is `None` and every value
/// is preceded by its 4-byte length).
pub(crate) fn insert_byte_arrays(
    filter: &mut SplitBlockBloomFilter,
    data: &[u8],
    lengths: Option<&[i32]>,
) {
    match lengths {
        Some(lengths) => {
            let mut at = 0;
            for &len in lengths {
                let end = at + len as usize;
                filter.insert_hash(bloom::hash_byte_array(&data[at..end]));
                at = end;
            }
        }
        None => {
            let mut at = 0;
            while at + 4 <= data.len() {
                let mut prefix = [0u8; 4];
                prefix.copy_from_slice(&data[at..at + 4]);
                let end = at + 4 + u32::from_le_bytes(prefix) as usize;
                filter.insert_hash(bloom::hash_byte_array(&data[at + 4..end]));
                at = end;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_delta_length_layouts_hash_the_same_values() {
        let values: [&[u8]; 4] = [b"", b"a", b"bcd", b"\xff\x00"];
        let mut plain = Vec::new();
        let mut data = Vec::new();
        let mut lengths = Vec::new();
        let mut as_values = Values::Bytes {
            offsets: vec![0],
            data: Vec::new(),
        };
        for v in values {
            plain.extend_from_slice(&(v.len() as u32).to_le_bytes());
            plain.extend_from_slice(v);
            data.extend_from_slice(v);
            lengths.push(v.len() as i32);
            as_values.push_bytes(v);
        }
        let mut a = SplitBlockBloomFilter::with_num_bytes(1024);
        let mut b = SplitBlockBloomFilter::with_num_bytes(1024);
        let mut c = SplitBlockBloomFilter::with_num_bytes(1024);
        insert_byte_arrays(&mut a, &plain, None);
        insert_byte_arrays(&mut b, &data, Some(&lengths));
        insert_values(&mut c, &as_values);
        let (mut ba, mut bb, mut bc) = (Vec::new(), Vec::new(), Vec::new());
        a.write_bitset(&mut ba);
        b.write_bitset(&mut bb);
        c.write_bitset(&mut bc);
        assert_eq!(ba, bb);
        assert_eq!(ba, bc);
        for v in values {
            assert!(a.check(v), "{v:?}");
        }
        assert!(!a.check(&b"absent value"[..]));
    }
}
