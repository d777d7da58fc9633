//! [`Source`]: one leaf array of a batch, downcast once, and the three ways its values
//! enter a page: appended as [`Values`], looked up in the chunk's [`Dictionary`], or
//! appended straight in the layout of a byte array encoding.
//!
//! Types stored as they lie in Arrow memory (32/64-bit integers, dates, times, floats,
//! Utf8/Binary with 32- or 64-bit offsets) are copied a run of slots at a time; a
//! dictionary array goes through its keys (its values converted once per batch and
//! each distinct key looked up once); every other type is converted value by value
//! ([`convert`](super::convert)).

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, OffsetSizeTrait};
use arrow_buffer::bit_chunk_iterator::BitChunks;
use arrow_buffer::{Buffer, NullBuffer};
use arrow_schema::{DataType, TimeUnit};

use super::convert::{self, Target};
use super::dictionary::Dictionary;
use super::encode::{append_delta_length_run, append_plain_run};
use super::rows::Rows;
use super::schema::LeafKind;
use super::statistics::ByteBounds;
use super::values::Values;
use crate::error::{Error, Result};

/// The values of one leaf array, ready to be appended to pages.
#[derive(Debug)]
pub(crate) struct Source<'a> {
    array: &'a ArrayRef,
    target: Target,
    kind: Kind<'a>,
}

/// How a [`Source`] reads its array.
#[derive(Debug)]
enum Kind<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Bytes32(&'a [i32], &'a [u8]),
    Bytes64(&'a [i64], &'a [u8]),
    /// Utf8View / BinaryView: the 16-byte views (as bytes) and the data buffers.
    Views(&'a [u8], &'a [Buffer]),
    Keyed(Box<Keyed<'a>>),
    Convert,
}

/// A dictionary array: its keys and a source over its values.
#[derive(Debug)]
struct Keyed<'a> {
    /// Key of every slot (normalised to `usize`; a null slot's key is never read).
    keys: Vec<usize>,
    values: Source<'a>,
    /// Every value of the Arrow dictionary, converted (built on the first lookup).
    distinct: Option<Values>,
    /// Chunk dictionary index of each Arrow dictionary value, once looked up.
    index_of: Vec<u32>,
    /// Keys of one piece.
    scratch: Vec<usize>,
}

impl<'a> Source<'a> {
    /// A source over `array` (a leaf array of the batch) converted for `target`.
    pub fn new(array: &'a ArrayRef, target: Target) -> Result<Source<'a>> {
        let plain = target.kind == LeafKind::Plain;
        let kind = match array.data_type() {
            // Each Arrow type is read through its own primitive type.
            DataType::Int32 if plain => Kind::I32(array.as_primitive::<Int32Type>().values()),
            DataType::Date32 if plain => Kind::I32(array.as_primitive::<Date32Type>().values()),
            DataType::Time32(TimeUnit::Millisecond) if plain => {
                Kind::I32(array.as_primitive::<Time32MillisecondType>().values())
            }
            DataType::Int64 if plain => Kind::I64(array.as_primitive::<Int64Type>().values()),
            DataType::Time64(TimeUnit::Microsecond) if plain => {
                Kind::I64(array.as_primitive::<Time64MicrosecondType>().values())
            }
            DataType::Time64(TimeUnit::Nanosecond) if plain => {
                Kind::I64(array.as_primitive::<Time64NanosecondType>().values())
            }
            DataType::Float32 if plain => Kind::F32(array.as_primitive::<Float32Type>().values()),
            DataType::Float64 if plain => Kind::F64(array.as_primitive::<Float64Type>().values()),
            DataType::Utf8 if plain => {
                let a = array.as_string::<i32>();
                Kind::Bytes32(a.value_offsets(), a.value_data())
            }
            DataType::LargeUtf8 if plain => {
                let a = array.as_string::<i64>();
                Kind::Bytes64(a.value_offsets(), a.value_data())
            }
            DataType::Binary if plain => {
                let a = array.as_binary::<i32>();
                Kind::Bytes32(a.value_offsets(), a.value_data())
            }
            DataType::LargeBinary if plain => {
                let a = array.as_binary::<i64>();
                Kind::Bytes64(a.value_offsets(), a.value_data())
            }
            DataType::Utf8View if plain => {
                let a = array.as_string_view();
                Kind::Views(a.views().inner().as_slice(), a.data_buffers())
            }
            DataType::BinaryView if plain => {
                let a = array.as_binary_view();
                Kind::Views(a.views().inner().as_slice(), a.data_buffers())
            }
            DataType::Dictionary(_, _) => {
                let Some(d) = array.as_any_dictionary_opt() else {
                    return Err(Error::invalid_argument(format!(
                        "a {} array that is not a dictionary array",
                        array.data_type()
                    )));
                };
                let present = d.len() - array.logical_null_count();
                if present > 0 && d.values().is_empty() {
                    return Err(Error::invalid_argument(
                        "dictionary array with present values but an empty dictionary",
                    ));
                }
                Kind::Keyed(Box::new(Keyed {
                    keys: if present > 0 {
                        d.normalized_keys()
                    } else {
                        Vec::new()
                    },
                    values: Source::new(d.values(), target)?,
                    distinct: None,
                    index_of: vec![u32::MAX; d.values().len()],
                    scratch: Vec::new(),
                }))
            }
            _ => Kind::Convert,
        };
        Ok(Source {
            array,
            target,
            kind,
        })
    }

    /// Whether the values are byte arrays read from Arrow offsets, which
    /// [`Source::append_encoded`] writes in their encoded layout.
    pub fn is_bytes(&self) -> bool {
        matches!(
            self.kind,
            Kind::Bytes32(..) | Kind::Bytes64(..) | Kind::Views(..)
        )
    }

    /// Number of slots of the array.
    pub fn len(&self) -> usize {
        self.array.len()
    }

    /// Appends the values at `rows`, converted, to `out`.
    pub fn append_values(&mut self, rows: Rows<'_>, out: &mut Values) -> Result<()> {
        match (&mut self.kind, out) {
            (Kind::I32(v), Values::I32(o)) => copy(v, rows, o),
            (Kind::I64(v), Values::I64(o)) => copy(v, rows, o),
            (Kind::F32(v), Values::F32(o)) => copy(v, rows, o),
            (Kind::F64(v), Values::F64(o)) => copy(v, rows, o),
            (
                Kind::Bytes32(offsets, data),
                Values::Bytes {
                    offsets: oo,
                    data: od,
                },
            ) => rows.for_each_run(|from, to| {
                copy_bytes(offsets, data, from, to, oo, od);
                Ok::<(), Error>(())
            })?,
            (
                Kind::Bytes64(offsets, data),
                Values::Bytes {
                    offsets: oo,
                    data: od,
                },
            ) => rows.for_each_run(|from, to| {
                copy_bytes(offsets, data, from, to, oo, od);
                Ok::<(), Error>(())
            })?,
            (Kind::Views(views, buffers), Values::Bytes { offsets, data }) => {
                offsets.reserve(rows.len());
                rows.for_each(|i| {
                    data.extend_from_slice(view(views, buffers, i));
                    offsets.push(data.len());
                });
            }
            (Kind::Keyed(keyed), out) => {
                let keyed = &mut **keyed;
                keyed.scratch.clear();
                rows.for_each(|i| keyed.scratch.push(keyed.keys[i]));
                keyed
                    .values
                    .append_values(Rows::Indices(&keyed.scratch), out)?;
            }
            (_, out) => convert::append(self.array, rows, self.target, out)?,
        }
        Ok(())
    }

    /// Looks up (adding as needed) the values at `rows` in `dictionary` and appends
    /// their indices to `out`; `scratch` holds converted values on the way. Returns
    /// the sum of the values' lengths when they are byte arrays (for size statistics).
    pub fn insert_dictionary(
        &mut self,
        rows: Rows<'_>,
        dictionary: &mut Dictionary,
        out: &mut Vec<u32>,
        scratch: &mut Values,
    ) -> Result<i64> {
        match &mut self.kind {
            Kind::Bytes32(offsets, data) => Ok(insert_bytes(offsets, data, rows, dictionary, out)),
            Kind::Bytes64(offsets, data) => Ok(insert_bytes(offsets, data, rows, dictionary, out)),
            Kind::Views(views, buffers) => {
                let mut unencoded = 0;
                out.reserve(rows.len());
                let _ = rows.for_each_run(|from, to| {
                    dictionary.insert_byte_values(
                        (from..to).map(|i| {
                            let value = view(views, buffers, i);
                            unencoded += value.len() as i64;
                            value
                        }),
                        out,
                    );
                    Ok::<(), ()>(())
                });
                Ok(unencoded)
            }
            Kind::Keyed(keyed) => {
                let keyed = &mut **keyed;
                let distinct = match &mut keyed.distinct {
                    Some(distinct) => distinct,
                    None => {
                        let mut distinct = Values::empty_like(scratch);
                        let all = keyed.values.len();
                        keyed
                            .values
                            .append_values(Rows::Range(0, all), &mut distinct)?;
                        keyed.distinct.insert(distinct)
                    }
                };
                let mut unencoded = 0;
                out.reserve(rows.len());
                rows.for_each(|i| {
                    let key = keyed.keys[i];
                    if keyed.index_of[key] == u32::MAX {
                        keyed.index_of[key] = dictionary.insert(distinct, key);
                    }
                    out.push(keyed.index_of[key]);
                    unencoded += distinct.byte_len(key, key + 1);
                });
                Ok(unencoded)
            }
            _ => {
                scratch.clear();
                self.append_values(rows, scratch)?;
                dictionary.insert_range(scratch, 0, scratch.len(), out);
                Ok(scratch.byte_len(0, scratch.len()))
            }
        }
    }

    /// Appends the byte array values at `rows` to `target` in the layout of its
    /// encoding (nothing for other values: see [`Source::is_bytes`]).
    pub fn append_encoded(&self, rows: Rows<'_>, target: &mut EncodedTarget<'_>) -> Result<()> {
        match self.kind {
            Kind::Bytes32(offsets, data) => {
                rows.for_each_run(|from, to| target.append(offsets, data, from, to))
            }
            Kind::Bytes64(offsets, data) => {
                rows.for_each_run(|from, to| target.append(offsets, data, from, to))
            }
            Kind::Views(views, buffers) => rows.for_each_run(|from, to| {
                target.append_values((from..to).map(|i| view(views, buffers, i)))
            }),
            _ => Ok(()),
        }
    }
}

/// Value `i` of a view array: up to 12 bytes inline in the view, else a range of one
/// of the data buffers.
#[inline]
fn view<'v>(views: &'v [u8], buffers: &'v [Buffer], i: usize) -> &'v [u8] {
    let v = &views[i * 16..i * 16 + 16];
    let word = |at: usize| u32::from_le_bytes([v[at], v[at + 1], v[at + 2], v[at + 3]]) as usize;
    let len = word(0);
    if len <= 12 {
        &v[4..4 + len]
    } else {
        &buffers[word(8)].as_slice()[word(12)..word(12) + len]
    }
}

/// Copies the numbers at `rows` to `out`. With a validity bitmap, a 64-slot word at a
/// time: a full word is one slice copy, an empty one nothing, a mixed one a value per
/// set bit. Where the nulls are scattered, runs of valid slots are a value or two long
/// and a copy per run (a `memcpy` call and a run search each) costs more than the values.
fn copy<T: Copy>(v: &[T], rows: Rows<'_>, out: &mut Vec<T>) {
    match rows {
        Rows::Range(start, end) => out.extend_from_slice(&v[start..end]),
        Rows::Valid(nulls, start, end) => gather_valid(v, nulls, start, end, out),
        Rows::Indices(indices) => out.extend(indices.iter().map(|&i| v[i])),
    }
}

fn gather_valid<T: Copy>(v: &[T], nulls: &NullBuffer, start: usize, end: usize, out: &mut Vec<T>) {
    let chunks = BitChunks::new(nulls.validity(), nulls.offset() + start, end - start);
    out.reserve(end - start);
    let mut word = |w: u64, n: usize, at: usize| {
        if n == 64 && w == u64::MAX {
            out.extend_from_slice(&v[at..at + 64]);
            return;
        }
        let mut w = if n < 64 { w & ((1u64 << n) - 1) } else { w };
        while w != 0 {
            out.push(v[at + w.trailing_zeros() as usize]);
            w &= w - 1;
        }
    };
    let mut at = start;
    for w in chunks.iter() {
        word(w, 64, at);
        at += 64;
    }
    word(chunks.remainder_bits(), chunks.remainder_len(), at);
}

/// Appends byte array values `start..end` of Arrow offsets and data to `Values` buffers.
fn copy_bytes<O: OffsetSizeTrait>(
    offsets: &[O],
    data: &[u8],
    start: usize,
    end: usize,
    out_offsets: &mut Vec<usize>,
    out_data: &mut Vec<u8>,
) {
    let first = offsets[start].as_usize();
    let last = offsets[end].as_usize();
    let base = out_data.len();
    out_data.extend_from_slice(&data[first..last]);
    out_offsets.extend(
        offsets[start + 1..=end]
            .iter()
            .map(|o| o.as_usize() - first + base),
    );
}

/// Looks up byte array values at `rows` straight from the Arrow buffers; the sum of
/// their lengths.
fn insert_bytes<O: OffsetSizeTrait + super::dictionary::ByteOffset>(
    offsets: &[O],
    data: &[u8],
    rows: Rows<'_>,
    dictionary: &mut Dictionary,
    out: &mut Vec<u32>,
) -> i64 {
    let mut unencoded = 0;
    let _ = rows.for_each_run(|from, to| {
        dictionary.insert_byte_run(offsets, data, from, to, out);
        unencoded += (offsets[to].as_usize() - offsets[from].as_usize()) as i64;
        Ok::<(), ()>(())
    });
    unencoded
}

/// Where [`Source::append_encoded`] puts byte array values: the open page's buffers,
/// in the layout of the page's encoding, and its running bounds.
#[derive(Debug)]
pub(crate) struct EncodedTarget<'a> {
    /// PLAIN (`true`: length-prefixed values) or DELTA_LENGTH_BYTE_ARRAY (`false`:
    /// lengths to `lengths`, bytes back to back to `bytes`).
    pub plain: bool,
    /// The values (see `plain`).
    pub bytes: &'a mut Vec<u8>,
    /// The lengths (DELTA_LENGTH_BYTE_ARRAY).
    pub lengths: &'a mut Vec<i32>,
    /// The page's bounds, when it keeps them.
    pub bounds: Option<&'a mut ByteBounds>,
}

impl EncodedTarget<'_> {
    /// Appends values one by one (values not back to back in one buffer: views).
    fn append_values<'v>(&mut self, values: impl Iterator<Item = &'v [u8]>) -> Result<()> {
        for value in values {
            let len = i32::try_from(value.len())
                .map_err(|_| Error::invalid_argument("a BYTE_ARRAY value longer than 2 GiB"))?;
            if self.plain {
                self.bytes.extend_from_slice(&len.to_le_bytes());
            } else {
                self.lengths.push(len);
            }
            self.bytes.extend_from_slice(value);
            if let Some(bounds) = self.bounds.as_deref_mut() {
                bounds.update(value);
            }
        }
        Ok(())
    }

    fn append<O: OffsetSizeTrait>(
        &mut self,
        offsets: &[O],
        data: &[u8],
        start: usize,
        end: usize,
    ) -> Result<()> {
        if start >= end {
            return Ok(());
        }
        let first = offsets[start].as_usize();
        let last = offsets[end].as_usize();
        // Every value of the run is at most as long as the run: one check for all.
        if last - first > i32::MAX as usize {
            return Err(Error::invalid_argument(
                "a run of BYTE_ARRAY values longer than 2 GiB (a value too long for a page)",
            ));
        }
        let data = &data[first..last];
        // Offsets relative to the run's first byte, as u32 (checked above).
        let rel = |o: &O| (o.as_usize() - first) as u32;
        let ends = &offsets[start + 1..=end];
        if self.plain {
            append_plain_run(
                data,
                ends.iter().map(rel),
                self.bytes,
                self.bounds.as_deref_mut(),
            );
        } else {
            append_delta_length_run(data, ends.iter().map(rel), self.bytes, self.lengths);
            if let Some(bounds) = self.bounds.as_deref_mut() {
                let mut prev = 0;
                for end in ends.iter().map(rel) {
                    bounds.update(&data[prev as usize..end as usize]);
                    prev = end;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{DictionaryArray, Int64Array, StringArray};
    use herringbone_format::metadata::Type;

    use super::*;

    fn target(physical: Type) -> Target {
        Target {
            kind: LeafKind::Plain,
            physical,
            width: 0,
        }
    }

    #[test]
    fn numbers_by_words_of_the_validity_bitmap() {
        // 150 slots: two full words and a remainder, nulls scattered and in a run.
        let values: Vec<i64> = (0..150).collect();
        let valid: Vec<bool> = (0..150)
            .map(|i| i % 7 != 3 && !(64..70).contains(&i))
            .collect();
        let array: ArrayRef = Arc::new(Int64Array::new(
            values.clone().into(),
            Some(NullBuffer::from(valid.clone())),
        ));
        let nulls = array.logical_nulls().unwrap();
        let mut source = Source::new(&array, target(Type::INT64)).unwrap();
        let mut out = Values::I64(Vec::new());
        source
            .append_values(Rows::Valid(&nulls, 1, 150), &mut out)
            .unwrap();
        let expected: Vec<i64> = (1..150).filter(|&i| valid[i as usize]).collect();
        assert_eq!(out, Values::I64(expected));
    }

    #[test]
    fn dictionary_arrays_look_up_each_key_once() {
        let keys = arrow_array::Int32Array::from(vec![1, 0, 1, 1, 2]);
        let dict = DictionaryArray::new(keys, Arc::new(StringArray::from(vec!["b", "a", "c"])));
        let array: ArrayRef = Arc::new(dict);
        let mut source = Source::new(&array, target(Type::BYTE_ARRAY)).unwrap();
        let mut chunk = Dictionary::new(Values::empty(Type::BYTE_ARRAY, 0));
        let mut indices = Vec::new();
        let mut scratch = Values::empty(Type::BYTE_ARRAY, 0);
        let unencoded = source
            .insert_dictionary(Rows::Range(0, 5), &mut chunk, &mut indices, &mut scratch)
            .unwrap();
        assert_eq!(indices, vec![0, 1, 0, 0, 2]);
        assert_eq!(unencoded, 5);
        let stored: Vec<&[u8]> = chunk.values.byte_values().collect();
        assert_eq!(stored, vec![&b"a"[..], b"b", b"c"]);
        // The same array's values appended as values, through the keys.
        let mut out = Values::empty(Type::BYTE_ARRAY, 0);
        source
            .append_values(Rows::Indices(&[4, 0]), &mut out)
            .unwrap();
        let got: Vec<&[u8]> = out.byte_values().collect();
        assert_eq!(got, vec![&b"c"[..], b"a"]);
    }

    #[test]
    fn views_inline_and_in_buffers() {
        let long = "a value longer than twelve bytes";
        let array: ArrayRef = Arc::new(arrow_array::StringViewArray::from(vec![
            Some("short"),
            None,
            Some(long),
            Some(""),
        ]));
        let nulls = array.logical_nulls().unwrap();
        let mut source = Source::new(&array, target(Type::BYTE_ARRAY)).unwrap();
        assert!(source.is_bytes());
        let mut out = Values::empty(Type::BYTE_ARRAY, 0);
        source
            .append_values(Rows::Valid(&nulls, 0, 4), &mut out)
            .unwrap();
        let got: Vec<&[u8]> = out.byte_values().collect();
        assert_eq!(got, vec![&b"short"[..], long.as_bytes(), b""]);
        let (mut bytes, mut lengths, mut bounds) = (Vec::new(), Vec::new(), ByteBounds::default());
        let mut delta = EncodedTarget {
            plain: false,
            bytes: &mut bytes,
            lengths: &mut lengths,
            bounds: Some(&mut bounds),
        };
        source
            .append_encoded(Rows::Indices(&[2, 0]), &mut delta)
            .unwrap();
        assert_eq!(lengths, vec![long.len() as i32, 5]);
        assert_eq!(bytes, [long.as_bytes(), b"short"].concat());
        let mut chunk = Dictionary::new(Values::empty(Type::BYTE_ARRAY, 0));
        let mut indices = Vec::new();
        let mut scratch = Values::empty(Type::BYTE_ARRAY, 0);
        let unencoded = source
            .insert_dictionary(
                Rows::Indices(&[2, 0, 2]),
                &mut chunk,
                &mut indices,
                &mut scratch,
            )
            .unwrap();
        assert_eq!(indices, vec![0, 1, 0]);
        assert_eq!(unencoded, 2 * long.len() as i64 + 5);
    }

    #[test]
    fn byte_arrays_straight_into_plain_and_delta_length_layouts() {
        let array: ArrayRef = Arc::new(StringArray::from(vec![
            Some("xy"),
            None,
            Some(""),
            Some("zzz"),
        ]));
        let nulls = array.logical_nulls().unwrap();
        let source = Source::new(&array, target(Type::BYTE_ARRAY)).unwrap();
        assert!(source.is_bytes());
        let (mut bytes, mut lengths, mut bounds) = (Vec::new(), Vec::new(), ByteBounds::default());
        let mut plain = EncodedTarget {
            plain: true,
            bytes: &mut bytes,
            lengths: &mut lengths,
            bounds: Some(&mut bounds),
        };
        source
            .append_encoded(Rows::Valid(&nulls, 0, 4), &mut plain)
            .unwrap();
        assert_eq!(bytes, b"\x02\0\0\0xy\0\0\0\0\x03\0\0\0zzz");
        let mm = bounds.take().unwrap();
        assert_eq!((mm.min, mm.max), (b"".to_vec(), b"zzz".to_vec()));
        let (mut bytes, mut lengths) = (Vec::new(), Vec::new());
        let mut delta = EncodedTarget {
            plain: false,
            bytes: &mut bytes,
            lengths: &mut lengths,
            bounds: None,
        };
        source
            .append_encoded(Rows::Indices(&[3, 0]), &mut delta)
            .unwrap();
        assert_eq!((bytes, lengths), (b"zzzxy".to_vec(), vec![3, 2]));
    }
}
