//! Dictionary keys as `DictionaryArray`s: a batch's keys over its chunk's dictionary,
//! whose Arrow array is made once per chunk (by the first batch that needs it) and
//! shared by every batch, so no value is copied or hashed. A batch that fell back to
//! plain values is built as the value type and cast to the dictionary type.

use std::sync::Arc;

use arrow_array::types::{
    ArrowDictionaryKeyType, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{ArrayRef, DictionaryArray, PrimitiveArray, new_null_array};
use arrow_buffer::{ArrowNativeType, NullBuffer, ScalarBuffer};
use arrow_schema::DataType;

use super::{IntoArray, primitive::spread};
use crate::error::{Error, Result};
use crate::read::values::Keyed;

/// How many dictionary entries keys of type `key` can index (0 for a type that is no
/// key type).
pub(crate) fn key_capacity(key: &DataType) -> usize {
    let max: u64 = match key {
        DataType::Int8 => i8::MAX as u64,
        DataType::Int16 => i16::MAX as u64,
        DataType::Int32 => i32::MAX as u64,
        DataType::Int64 => i64::MAX as u64,
        DataType::UInt8 => u64::from(u8::MAX),
        DataType::UInt16 => u64::from(u16::MAX),
        DataType::UInt32 => u64::from(u32::MAX),
        DataType::UInt64 => u64::MAX,
        _ => return 0,
    };
    usize::try_from(max).map_or(usize::MAX, |m| m.saturating_add(1))
}

impl<B: IntoArray + Clone + Sync> IntoArray for Keyed<B> {
    fn builds_dictionary(&self) -> bool {
        true
    }

    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        let DataType::Dictionary(key, value) = target else {
            return Err(Error::unsupported(format!(
                "dictionary keys read as {target}"
            )));
        };
        let (keys, dictionary) = match self {
            Keyed::Plain(values) => {
                let plain = values.into_array(value, nulls, len)?;
                return arrow_cast::cast(&plain, target)
                    .map_err(|e| Error::from(e).context(format!("read as {target}")));
            }
            Keyed::Keys {
                dictionary: None, ..
            } => {
                // No value in the batch: every slot is null.
                return Ok(new_null_array(target, len));
            }
            Keyed::Keys {
                keys,
                dictionary: Some(dictionary),
            } => (keys, dictionary),
        };
        let values = dictionary
            .array
            .get_or_init(|| {
                let values = B::clone(&dictionary.values);
                let count = values.value_count();
                values
                    .into_array(value, None, count)
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(|e| {
                Error::corrupt(format!(
                    "the chunk's dictionary cannot be read as {value}: {e}"
                ))
            })?;
        if values.len() > key_capacity(key) {
            return Err(Error::corrupt(format!(
                "a dictionary of {} values does not fit {key} keys",
                values.len()
            )));
        }
        match key.as_ref() {
            DataType::Int8 => build::<Int8Type>(keys, values, nulls, len),
            DataType::Int16 => build::<Int16Type>(keys, values, nulls, len),
            DataType::Int32 => build::<Int32Type>(keys, values, nulls, len),
            DataType::Int64 => build::<Int64Type>(keys, values, nulls, len),
            DataType::UInt8 => build::<UInt8Type>(keys, values, nulls, len),
            DataType::UInt16 => build::<UInt16Type>(keys, values, nulls, len),
            DataType::UInt32 => build::<UInt32Type>(keys, values, nulls, len),
            DataType::UInt64 => build::<UInt64Type>(keys, values, nulls, len),
            other => Err(Error::unsupported(format!("dictionary key type {other}"))),
        }
    }
}

fn build<K: ArrowDictionaryKeyType>(
    keys: Vec<u32>,
    values: ArrayRef,
    nulls: Option<NullBuffer>,
    len: usize,
) -> Result<ArrayRef> {
    if nulls.as_ref().map_or(len, |n| n.len()) != len
        || keys.len() != len - nulls.as_ref().map_or(0, |n| n.null_count())
    {
        return Err(Error::corrupt(format!(
            "{} dictionary keys for {len} slots",
            keys.len()
        )));
    }
    // Every key is below the dictionary's length, which fits `K` (checked by the
    // caller), so the conversion does not wrap.
    let dense: Vec<K::Native> = keys
        .into_iter()
        .map(|k| K::Native::usize_as(k as usize))
        .collect();
    let keys = spread(dense, nulls.as_ref(), len)?;
    let keys = PrimitiveArray::<K>::new(ScalarBuffer::from(keys), nulls);
    // SAFETY: every key of a valid slot is below `values.len()`: each index was checked
    // against the chunk's dictionary when its page was decoded (`append_checked`), and
    // `values` is that dictionary's array (same length: it was made from it with no
    // nulls); null slots hold 0 from `spread`, which `new_unchecked` allows for null
    // slots. That is what `try_new` checks, value by value.
    let array = unsafe { DictionaryArray::<K>::new_unchecked(keys, values) };
    Ok(Arc::new(array))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::values::KeptDictionary;
    use arrow_array::Array;

    #[test]
    fn key_types_index_their_range() {
        assert_eq!(key_capacity(&DataType::Int8), 128);
        assert_eq!(key_capacity(&DataType::UInt8), 256);
        assert_eq!(key_capacity(&DataType::Int16), 32_768);
        assert_eq!(key_capacity(&DataType::UInt64), usize::MAX);
        assert_eq!(key_capacity(&DataType::Utf8), 0);
    }

    fn int8_dictionary() -> DataType {
        DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Int64))
    }

    #[test]
    fn keys_build_a_dictionary_array_sharing_one_values_array() {
        let dictionary = Arc::new(KeptDictionary::new(Arc::new(vec![10i64, 20, 30])));
        let batch = |keys: Vec<u32>| Keyed::Keys {
            keys,
            dictionary: Some(dictionary.clone()),
        };
        let nulls = NullBuffer::from(vec![true, false, true]);
        let first = batch(vec![2, 0])
            .into_array(&int8_dictionary(), Some(nulls), 3)
            .unwrap();
        let first = first
            .as_any()
            .downcast_ref::<DictionaryArray<Int8Type>>()
            .unwrap();
        assert_eq!(
            first.keys(),
            &PrimitiveArray::<Int8Type>::from(vec![Some(2), None, Some(0)])
        );
        let second = batch(vec![1])
            .into_array(&int8_dictionary(), None, 1)
            .unwrap();
        let second = second
            .as_any()
            .downcast_ref::<DictionaryArray<Int8Type>>()
            .unwrap();
        assert!(
            Arc::ptr_eq(first.values(), second.values()),
            "one values array per chunk"
        );
    }

    #[test]
    fn plain_values_are_cast_and_an_empty_batch_is_all_null() {
        let plain: Keyed<Vec<i64>> = Keyed::Plain(vec![5, 5, 7]);
        let array = plain.into_array(&int8_dictionary(), None, 3).unwrap();
        let array = array
            .as_any()
            .downcast_ref::<DictionaryArray<Int8Type>>()
            .unwrap();
        assert_eq!(array.values().len(), 2, "hashed into a new dictionary");
        let empty: Keyed<Vec<i64>> = Keyed::Keys {
            keys: Vec::new(),
            dictionary: None,
        };
        let array = empty
            .into_array(&int8_dictionary(), Some(NullBuffer::new_null(4)), 4)
            .unwrap();
        assert_eq!(array.null_count(), 4);
    }
}
