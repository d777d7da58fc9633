//! Dictionary chunks kept as Arrow `DictionaryArray`s.
//!
//! When a leaf is read as `Dictionary(K, V)` and its chunk is dictionary-encoded, the
//! chunk's dictionary page is turned into an Arrow array of type `V` once
//! ([`KeptDictionary::set`]), and a batch hands out the data pages' indices as the keys
//! ([`Values::Dict`]): the `DictionaryArray` shares that array, so no value is copied or
//! hashed per batch.
//!
//! Fallback, per batch: a batch that also takes values from a page of another encoding
//! (a writer's dictionary fallback to PLAIN midway through the chunk) has its keys
//! gathered into plain values as soon as that happens, and the batch's plain values are
//! then cast to the dictionary type (hashing only that batch's values), as arrow-rs does
//! when its dictionary buffer spills. A dictionary whose entries `K` cannot all index (an
//! `Int8` key for 300 entries), or whose values do not convert to `V`, is not kept: the
//! chunk is read through the same cast path (where arrow-rs returns "dictionary too large
//! for index type" for byte arrays, a batch whose own distinct values fit `K` is read).

use std::sync::Arc;

use arrow_array::types::{
    ArrowDictionaryKeyType, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, DictionaryArray, PrimitiveArray};
use arrow_buffer::{ArrowNativeType, NullBuffer, ScalarBuffer};
use arrow_schema::DataType;
use herringbone_format::metadata::Type;

use super::column::{Values, gather_checked};
use crate::error::{Error, Result};

/// One chunk's dictionary: the decoded values the column reader gathers from, and the
/// same values as the Arrow array that the batches' `DictionaryArray`s share.
#[derive(Debug)]
pub(crate) struct ChunkDictionary {
    /// The reader's dictionary (possibly padded after the last value for gathering).
    values: Arc<Values>,
    /// The dictionary's values as the Arrow value type.
    array: ArrayRef,
}

impl PartialEq for ChunkDictionary {
    fn eq(&self, other: &Self) -> bool {
        self.values == other.values && self.array.as_ref() == other.array.as_ref()
    }
}

/// A batch's dictionary indices (one per non-null value, each checked against the
/// dictionary when its page was decoded) and the dictionary they address.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DictKeys {
    pub(crate) keys: Vec<u32>,
    pub(crate) dictionary: Arc<ChunkDictionary>,
}

impl DictKeys {
    /// The values the keys address, gathered into a store of the dictionary's kind.
    pub(crate) fn materialise(&self) -> Result<Values> {
        let dictionary = self.dictionary.values.as_ref();
        let mut plain = dictionary.empty_like(self.keys.len());
        gather_checked(dictionary, &self.keys, &mut plain)?;
        Ok(plain)
    }

    /// Keys `start..start + n` with the same dictionary.
    fn slice(&self, start: usize, n: usize) -> DictKeys {
        DictKeys {
            keys: self.keys[start..start + n].to_vec(),
            dictionary: self.dictionary.clone(),
        }
    }
}

/// What a column reader needs to keep its chunk's dictionary: the requested key and
/// value types, and the current chunk's dictionary once it is known to fit them.
#[derive(Debug)]
pub(crate) struct KeptDictionary {
    key: DataType,
    value: DataType,
    current: Option<Arc<ChunkDictionary>>,
}

impl KeptDictionary {
    /// For a leaf of physical type `physical` read as `target`: `Some` when `target` is
    /// a dictionary with an integer key type and the physical type has dictionary pages
    /// the reader gathers from (booleans are never kept).
    pub(crate) fn for_target(target: &DataType, physical: Type) -> Option<Self> {
        let DataType::Dictionary(key, value) = target else {
            return None;
        };
        (key.is_dictionary_key_type() && physical != Type::BOOLEAN).then(|| Self {
            key: key.as_ref().clone(),
            value: value.as_ref().clone(),
            current: None,
        })
    }

    /// The Arrow array of a chunk's dictionary `values` (before any padding), or `None`
    /// when the dictionary is not kept: the key type cannot index all of its entries,
    /// or a value does not convert (the gather path then reports it only if a row uses
    /// it).
    pub(crate) fn array_of(&self, path: &str, values: &Values) -> Option<ArrayRef> {
        let len = values.len();
        if !key_fits(&self.key, len) {
            return None;
        }
        super::array::leaf_array(&self.value, path, values.clone(), None, len).ok()
    }

    /// Sets the chunk's dictionary: `array` (from [`Self::array_of`]) of the reader's
    /// `values`.
    pub(crate) fn set(&mut self, array: Option<ArrayRef>, values: &Arc<Values>) {
        self.current = array.map(|array| {
            Arc::new(ChunkDictionary {
                values: values.clone(),
                array,
            })
        });
    }

    /// Appends the next values of the current page to `out`: with `indices` (the
    /// page is dictionary-encoded) and a kept dictionary, as keys, and `true`. Otherwise
    /// `out` is made plain (keys gathered) if it held keys, and `false`: the caller
    /// appends the values itself.
    pub(crate) fn append(&self, indices: Option<&[u32]>, out: &mut Values) -> Result<bool> {
        if let (Some(indices), Some(dictionary)) = (indices, &self.current) {
            match out {
                Values::Dict(d) if Arc::ptr_eq(&d.dictionary, dictionary) => {
                    d.keys.extend_from_slice(indices);
                    return Ok(true);
                }
                // A batch's first values start it as keys.
                other if other.len() == 0 => {
                    *other = Values::Dict(DictKeys {
                        keys: indices.to_vec(),
                        dictionary: dictionary.clone(),
                    });
                    return Ok(true);
                }
                _ => {}
            }
        }
        make_plain(out)
    }
}

/// Gathers `out`'s keys into plain values, if it holds keys. Always `false` (see
/// [`KeptDictionary::append`]).
fn make_plain(out: &mut Values) -> Result<bool> {
    if let Values::Dict(d) = out {
        *out = d.materialise()?;
    }
    Ok(false)
}

/// Appends `src`'s values `start..start + n` to `dst` where either holds keys: keys of
/// one dictionary stay keys; otherwise both sides become plain values.
pub(crate) fn extend(dst: &mut Values, src: &Values, start: usize, n: usize) -> Result<()> {
    match (&mut *dst, src) {
        (Values::Dict(d), Values::Dict(s)) if Arc::ptr_eq(&d.dictionary, &s.dictionary) => {
            d.keys.extend_from_slice(&s.keys[start..start + n]);
            Ok(())
        }
        (d, Values::Dict(s)) if d.len() == 0 => {
            *d = Values::Dict(s.slice(start, n));
            Ok(())
        }
        (d, s) => {
            make_plain(d)?;
            match s {
                Values::Dict(s) => {
                    let plain = s.slice(start, n).materialise()?;
                    d.extend_from(&plain, 0, n)
                }
                s => d.extend_from(s, start, n),
            }
        }
    }
}

/// Whether keys of type `key` can index every entry of a dictionary of `len` entries.
fn key_fits(key: &DataType, len: usize) -> bool {
    let Some(last) = len.checked_sub(1) else {
        return true;
    };
    let max = match key {
        DataType::Int8 => i8::MAX as u64,
        DataType::Int16 => i16::MAX as u64,
        DataType::Int32 => i32::MAX as u64,
        DataType::Int64 => i64::MAX as u64,
        DataType::UInt8 => u64::from(u8::MAX),
        DataType::UInt16 => u64::from(u16::MAX),
        DataType::UInt32 => u64::from(u32::MAX),
        DataType::UInt64 => u64::MAX,
        _ => return false,
    };
    last as u64 <= max
}

/// The `Dictionary(key, value)` array of `len` slots with `keys` at the valid slots of
/// `nulls`. Keys were checked against the dictionary when decoded; a key type or value
/// type other than the kept dictionary's (which [`KeptDictionary`] rules out) is read
/// through the plain values and a cast.
pub(crate) fn dictionary_array(
    keys: DictKeys,
    key: &DataType,
    value: &DataType,
    nulls: Option<NullBuffer>,
    len: usize,
    path: &str,
) -> Result<ArrayRef> {
    let values = keys.dictionary.array.clone();
    if values.data_type() != value || !key_fits(key, values.len()) {
        let target = DataType::Dictionary(Box::new(key.clone()), Box::new(value.clone()));
        let plain = super::array::leaf_array(value, path, keys.materialise()?, nulls, len)?;
        return arrow_cast::cast(&plain, &target)
            .map_err(|e| Error::from(e).context(format!("column {path}, read as {target}")));
    }
    let keys = keys.keys;
    match key {
        DataType::Int8 => build::<Int8Type>(keys, values, nulls, len, path),
        DataType::Int16 => build::<Int16Type>(keys, values, nulls, len, path),
        DataType::Int32 => build::<Int32Type>(keys, values, nulls, len, path),
        DataType::Int64 => build::<Int64Type>(keys, values, nulls, len, path),
        DataType::UInt8 => build::<UInt8Type>(keys, values, nulls, len, path),
        DataType::UInt16 => build::<UInt16Type>(keys, values, nulls, len, path),
        DataType::UInt32 => build::<UInt32Type>(keys, values, nulls, len, path),
        DataType::UInt64 => build::<UInt64Type>(keys, values, nulls, len, path),
        other => Err(Error::unsupported(format!(
            "column {path}: dictionary key type {other}"
        ))),
    }
}

fn build<K: ArrowDictionaryKeyType>(
    keys: Vec<u32>,
    values: ArrayRef,
    nulls: Option<NullBuffer>,
    len: usize,
    path: &str,
) -> Result<ArrayRef> {
    if nulls.as_ref().map_or(len, |n| n.len()) != len
        || keys.len() != len - nulls.as_ref().map_or(0, |n| n.null_count())
    {
        return Err(Error::corrupt(format!(
            "column {path}: {} dictionary keys for {len} slots",
            keys.len()
        )));
    }
    // Every key is below the dictionary's length, which fits `K` (checked by the
    // caller), so the conversion does not wrap. Mapped in place: for 32-bit keys the
    // allocation is reused.
    let dense: Vec<K::Native> = keys
        .into_iter()
        .map(|k| K::Native::usize_as(k as usize))
        .collect();
    let keys = super::array::spread(dense, nulls.as_ref(), len)?;
    let keys = PrimitiveArray::<K>::new(ScalarBuffer::from(keys), nulls);
    // SAFETY: every key of a valid slot is below `values.len()`: each index was checked
    // against the chunk's dictionary when its page was decoded
    // (`decode_checked`), and `values` is that dictionary's array (same length, checked
    // by `ChunkDictionary` being built from it); null slots hold 0 from `spread`, which
    // `new_unchecked` allows for null slots. That is what `try_new` checks, value by
    // value.
    let array = unsafe { DictionaryArray::<K>::new_unchecked(keys, values) };
    Ok(Arc::new(array))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_types_fit_the_dictionary_length() {
        assert!(key_fits(&DataType::Int8, 0));
        assert!(key_fits(&DataType::Int8, 128));
        assert!(!key_fits(&DataType::Int8, 129));
        assert!(key_fits(&DataType::UInt8, 256));
        assert!(!key_fits(&DataType::UInt8, 257));
        assert!(key_fits(&DataType::Int16, 32_768));
        assert!(!key_fits(&DataType::Int16, 32_769));
        assert!(key_fits(&DataType::UInt64, usize::MAX));
        assert!(!key_fits(&DataType::Utf8, 1));
    }

    fn kept(values: Values) -> (KeptDictionary, Arc<Values>) {
        let target = DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Int64));
        let mut kept = KeptDictionary::for_target(&target, Type::INT64).unwrap();
        let array = kept.array_of("c", &values);
        let values = Arc::new(values);
        kept.set(array, &values);
        (kept, values)
    }

    #[test]
    fn keys_stay_keys_until_a_plain_page_and_then_gather() {
        let (kept, _) = kept(Values::I64(vec![10, 20, 30]));
        let mut out = Values::I64(Vec::new());
        assert!(kept.append(Some(&[2, 0]), &mut out).unwrap());
        assert!(kept.append(Some(&[1]), &mut out).unwrap());
        match &out {
            Values::Dict(d) => assert_eq!(d.keys, vec![2, 0, 1]),
            other => panic!("expected keys, got {other:?}"),
        }
        // A PLAIN page: the keys become values and the caller appends the rest.
        assert!(!kept.append(None, &mut out).unwrap());
        assert_eq!(out, Values::I64(vec![30, 10, 20]));
        // Dictionary pages after that gather too (the batch is plain now).
        assert!(!kept.append(Some(&[0]), &mut out).unwrap());
    }

    #[test]
    fn extending_mixes_keys_and_values() {
        let (kept, _) = kept(Values::I64(vec![10, 20, 30]));
        let mut keys = Values::I64(Vec::new());
        kept.append(Some(&[2, 1, 0]), &mut keys).unwrap();
        // Keys onto nothing stay keys; keys onto keys of the dictionary too.
        let mut dst = Values::I64(Vec::new());
        extend(&mut dst, &keys, 1, 2).unwrap();
        extend(&mut dst, &keys, 0, 1).unwrap();
        match &dst {
            Values::Dict(d) => assert_eq!(d.keys, vec![1, 0, 2]),
            other => panic!("expected keys, got {other:?}"),
        }
        // Plain values onto keys, then keys onto plain values.
        extend(&mut dst, &Values::I64(vec![7, 8]), 1, 1).unwrap();
        extend(&mut dst, &keys, 0, 1).unwrap();
        assert_eq!(dst, Values::I64(vec![20, 10, 30, 8, 30]));
    }

    #[test]
    fn a_dictionary_the_key_type_cannot_index_is_not_kept() {
        let target = DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Int64));
        let kept = KeptDictionary::for_target(&target, Type::INT64).unwrap();
        assert!(
            kept.array_of("c", &Values::I64((0..200).collect()))
                .is_none()
        );
        assert!(
            kept.array_of("c", &Values::I64((0..128).collect()))
                .is_some()
        );
        assert!(KeptDictionary::for_target(&target, Type::BOOLEAN).is_none());
        assert!(KeptDictionary::for_target(&DataType::Int64, Type::INT64).is_none());
    }

    #[test]
    fn keys_build_a_dictionary_array_with_nulls() {
        let (kept, _) = kept(Values::I64(vec![10, 20, 30]));
        let mut out = Values::I64(Vec::new());
        kept.append(Some(&[2, 0]), &mut out).unwrap();
        let Values::Dict(keys) = out else {
            panic!("expected keys")
        };
        let nulls = NullBuffer::from(vec![true, false, true]);
        let array =
            dictionary_array(keys, &DataType::Int8, &DataType::Int64, Some(nulls), 3, "c").unwrap();
        let dict = array
            .as_any()
            .downcast_ref::<DictionaryArray<Int8Type>>()
            .unwrap();
        assert_eq!(dict.values().len(), 3);
        assert_eq!(
            dict.keys(),
            &PrimitiveArray::<Int8Type>::from(vec![Some(2), None, Some(0)])
        );
    }
}
