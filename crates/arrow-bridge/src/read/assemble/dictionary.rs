//! Dictionary keys as `DictionaryArray`s: a batch's keys over its chunk's dictionary,
//! whose Arrow array is made once per chunk (by the first batch that needs it) and
//! shared by every batch, so no value is copied or hashed. A batch that fell back to
//! plain values is built as the value type and cast to the dictionary type.

use std::sync::Arc;

use arrow_array::types::{
    ArrowDictionaryKeyType, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{
    ArrayRef, DictionaryArray, Int32Array, PrimitiveArray, RunArray, new_null_array,
};
use arrow_buffer::{ArrowNativeType, NullBuffer, ScalarBuffer};
use arrow_schema::DataType;

use super::{IntoArray, primitive::spread};
use crate::error::{Error, Result};
use crate::read::values::{KeptDictionary, KeyRuns, Keyed};

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

    /// A `Dictionary` target: the keys over the chunk's dictionary. A
    /// `RunEndEncoded(Int32, Dictionary(Int32, V))` target: the runs over it when the
    /// batch kept its keys in runs, else the `Dictionary` (a batch whose runs were
    /// short) or the plain `V` values (a batch that went on as values).
    fn into_array(
        self,
        target: &DataType,
        nulls: Option<NullBuffer>,
        len: usize,
    ) -> Result<ArrayRef> {
        let dictionary_type = match target {
            DataType::RunEndEncoded(_, values) => values.data_type(),
            _ => target,
        };
        let DataType::Dictionary(key, value) = dictionary_type else {
            return Err(Error::unsupported(format!(
                "dictionary keys read as {target}"
            )));
        };
        let (keys, dictionary) = match self {
            Keyed::Plain(values) => {
                let plain = values.into_array(value, nulls, len)?;
                if dictionary_type != target {
                    // Runs were asked for: plain values serve as they are.
                    return Ok(plain);
                }
                return arrow_cast::cast(&plain, dictionary_type)
                    .map_err(|e| Error::from(e).context(format!("read as {dictionary_type}")));
            }
            Keyed::Keys {
                dictionary: None, ..
            }
            | Keyed::Runs {
                dictionary: None, ..
            } => {
                // No value in the batch: every slot is null.
                return Ok(new_null_array(dictionary_type, len));
            }
            Keyed::Runs {
                runs,
                dictionary: Some(dictionary),
            } => {
                if **key != DataType::Int32 {
                    return Err(Error::unsupported(format!("runs of {key} dictionary keys")));
                }
                let values = dictionary_values(&dictionary, value, key)?;
                return runs_array(runs, values, nulls, len);
            }
            Keyed::Keys {
                keys,
                dictionary: Some(dictionary),
            } => (keys, dictionary),
        };
        let values = dictionary_values(&dictionary, value, key)?;
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

/// The Arrow array of a chunk's dictionary as `value`s (made by the first batch that
/// needs it, shared by the rest), checked to fit `key` keys.
fn dictionary_values<B: IntoArray + Clone + Sync>(
    dictionary: &KeptDictionary<B>,
    value: &DataType,
    key: &DataType,
) -> Result<ArrayRef> {
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
    Ok(values)
}

/// `RunEndEncoded(Int32, Dictionary(Int32, _))` over `len` slots: the runs of the
/// values at the valid slots of `nulls`, a run of null slots one null run. A run of
/// values is cut where a null slot falls inside it.
fn runs_array(
    runs: KeyRuns,
    values: ArrayRef,
    nulls: Option<NullBuffer>,
    len: usize,
) -> Result<ArrayRef> {
    let valid = len - nulls.as_ref().map_or(0, |n| n.null_count());
    if runs.value_count() != valid || nulls.as_ref().is_some_and(|n| n.len() != len) {
        return Err(Error::corrupt(format!(
            "{} dictionary keys in runs for {len} slots",
            runs.value_count()
        )));
    }
    let slot = |n: usize| {
        i32::try_from(n).map_err(|_| Error::corrupt(format!("a batch of {len} slots in runs")))
    };
    let (keys, ends, key_nulls) = match &nulls {
        None => {
            let keys: Vec<i32> = runs.keys.iter().map(|&k| k as i32).collect();
            let ends = runs
                .ends
                .iter()
                .map(|&e| slot(e as usize))
                .collect::<Result<Vec<i32>>>()?;
            (keys, ends, None)
        }
        Some(nulls) => {
            let mut keys = Vec::with_capacity(runs.keys.len() * 2 + 1);
            let mut ends = Vec::with_capacity(runs.keys.len() * 2 + 1);
            let mut present = Vec::with_capacity(runs.keys.len() * 2 + 1);
            // `at`: slots done; `value`: values done; `run`: the run holding `value`.
            let (mut at, mut value, mut run) = (0usize, 0usize, 0usize);
            for (start, stop) in nulls.inner().set_slices() {
                if start > at {
                    keys.push(0);
                    ends.push(slot(start)?);
                    present.push(false);
                }
                let first = value;
                let last = first + (stop - start);
                while value < last {
                    let run_end = runs.ends[run] as usize;
                    let until = run_end.min(last);
                    keys.push(runs.keys[run] as i32);
                    ends.push(slot(start + (until - first))?);
                    present.push(true);
                    value = until;
                    if until == run_end {
                        run += 1;
                    }
                }
                at = stop;
            }
            if at < len {
                keys.push(0);
                ends.push(slot(len)?);
                present.push(false);
            }
            (keys, ends, Some(NullBuffer::from(present)))
        }
    };
    let keys = Int32Array::new(ScalarBuffer::from(keys), key_nulls);
    // Each key was checked against the chunk's dictionary when its page was decoded;
    // `try_new` checks again, once per run.
    let dictionary = DictionaryArray::<Int32Type>::try_new(keys, values)?;
    let ends = Int32Array::new(ScalarBuffer::from(ends), None);
    Ok(Arc::new(RunArray::<Int32Type>::try_new(
        &ends,
        &dictionary,
    )?))
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

    fn runs_of_int64_keys() -> DataType {
        let keys = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Int64));
        DataType::RunEndEncoded(
            Arc::new(arrow_schema::Field::new("run_ends", DataType::Int32, false)),
            Arc::new(arrow_schema::Field::new("values", keys, true)),
        )
    }

    #[test]
    fn runs_are_cut_by_null_slots_and_null_slots_are_null_runs() {
        let dictionary = Arc::new(KeptDictionary::new(Arc::new(vec![10i64, 20, 30])));
        let mut runs = KeyRuns::default();
        // Values: 2 2 2 2 0 1 1 (runs 2x4, 0x1, 1x2); the second push joins the first.
        for (key, count) in [(2, 3), (2, 1), (0, 1), (1, 2)] {
            runs.push(key, count).unwrap();
        }
        assert_eq!(runs.keys, [2, 0, 1]);
        assert_eq!(runs.expand(), [2, 2, 2, 2, 0, 1, 1]);
        // Slots: null, v, v, null, null, v, v, v, v, v, null.
        let valid = [
            false, true, true, false, false, true, true, true, true, true, false,
        ];
        let target = runs_of_int64_keys();
        let array = Keyed::Runs {
            runs,
            dictionary: Some(dictionary),
        }
        .into_array(&target, Some(NullBuffer::from(valid.to_vec())), valid.len())
        .unwrap();
        let runs = array
            .as_any()
            .downcast_ref::<RunArray<Int32Type>>()
            .unwrap();
        assert_eq!(runs.run_ends().values(), &[1, 3, 5, 7, 8, 10, 11]);
        let keys = runs
            .values()
            .as_any()
            .downcast_ref::<DictionaryArray<Int32Type>>()
            .unwrap();
        assert_eq!(
            keys.keys(),
            &Int32Array::from(vec![None, Some(2), None, Some(2), Some(0), Some(1), None])
        );
        let expanded = arrow_cast::cast(&array, &DataType::Int64).unwrap();
        assert_eq!(
            expanded
                .as_any()
                .downcast_ref::<PrimitiveArray<arrow_array::types::Int64Type>>()
                .unwrap(),
            &PrimitiveArray::from(vec![
                None,
                Some(30),
                Some(30),
                None,
                None,
                Some(30),
                Some(30),
                Some(10),
                Some(20),
                Some(20),
                None
            ])
        );
    }

    #[test]
    fn runs_over_a_batch_without_nulls_and_too_few_values_for_the_slots() {
        let dictionary = Arc::new(KeptDictionary::new(Arc::new(vec![1i64, 2])));
        let target = runs_of_int64_keys();
        let make = |count| {
            let mut runs = KeyRuns::default();
            runs.push(1, count).unwrap();
            Keyed::Runs {
                runs,
                dictionary: Some(dictionary.clone()),
            }
        };
        let array = make(5).into_array(&target, None, 5).unwrap();
        let runs = array
            .as_any()
            .downcast_ref::<RunArray<Int32Type>>()
            .unwrap();
        assert_eq!(runs.run_ends().values(), &[5]);
        let err = make(4).into_array(&target, None, 5).unwrap_err();
        assert!(
            err.to_string()
                .contains("4 dictionary keys in runs for 5 slots"),
            "{err}"
        );
    }
}
