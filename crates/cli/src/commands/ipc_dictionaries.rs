//! One growing dictionary per dictionary column, for writing an Arrow IPC file.
//!
//! A Parquet file has one dictionary per column chunk, so the batches of a file with
//! several row groups carry a different dictionary each time a row group starts. The IPC
//! file format cannot replace a dictionary, only extend it (delta dictionary batches).
//! [`GrowingDictionaries`] rewrites each top-level dictionary column against one
//! dictionary kept for the whole output: values seen before keep their key, new values
//! are appended, and the writer (with `DictionaryHandling::Delta`) sends only the
//! appended values.

use std::collections::HashMap;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, make_array};
use arrow_cast::CastOptions;
use arrow_data::ArrayData;
use arrow_schema::{ArrowError, DataType};

/// The output's dictionary of one column: its values so far, and each value's key.
struct Dictionary {
    values: ArrayRef,
    /// Keys of the values by their bytes (`None`: a null value); empty until a batch
    /// brings other values.
    keys: HashMap<Option<Vec<u8>>, usize>,
    /// The last dictionary rebased and the key of each of its values here: the batches
    /// of one row group share their dictionary.
    last: Option<(ArrayData, Vec<i64>)>,
}

/// The dictionaries of a batch stream's top-level dictionary columns (see the module
/// documentation).
#[derive(Default)]
pub struct GrowingDictionaries {
    columns: HashMap<usize, Dictionary>,
}

impl GrowingDictionaries {
    /// `batch` with every top-level dictionary column keyed into the column's growing
    /// dictionary. A batch whose dictionaries are the ones already sent is returned as is.
    pub fn rebase(&mut self, batch: &RecordBatch) -> Result<RecordBatch, ArrowError> {
        let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
        let mut changed = false;
        for (index, column) in batch.columns().iter().enumerate() {
            let DataType::Dictionary(_, _) = column.data_type() else {
                continue;
            };
            let name = batch.schema_ref().field(index).name().clone();
            let Some(dictionary) = self.columns.get_mut(&index) else {
                let values = column.as_any_dictionary().values().clone();
                self.columns.insert(
                    index,
                    Dictionary {
                        values,
                        keys: HashMap::new(),
                        last: None,
                    },
                );
                continue;
            };
            if let Some(rebased) = dictionary.rebase(column, &name)? {
                columns[index] = rebased;
                changed = true;
            }
        }
        if !changed {
            return Ok(batch.clone());
        }
        RecordBatch::try_new(batch.schema(), columns)
    }
}

impl Dictionary {
    /// The column keyed into this dictionary, or `None` when its dictionary is this one.
    fn rebase(&mut self, column: &ArrayRef, name: &str) -> Result<Option<ArrayRef>, ArrowError> {
        let dictionary = column.as_any_dictionary();
        let values = dictionary.values();
        let source = values.to_data();
        if source.ptr_eq(&self.values.to_data()) || **values == *self.values {
            return Ok(None);
        }
        let remap = match self.last.take() {
            Some((last, remap)) if last.ptr_eq(&source) => remap,
            _ => self.remap(values)?,
        };
        let keys: Int64Array = dictionary
            .normalized_keys()
            .into_iter()
            .map(|key| remap.get(key).copied().unwrap_or(0))
            .collect::<Vec<i64>>()
            .into();
        self.last = Some((source, remap));
        let DataType::Dictionary(key_type, _) = column.data_type() else {
            return Err(ArrowError::InvalidArgumentError(format!(
                "column {name} is not a dictionary"
            )));
        };
        let keys = arrow_cast::cast_with_options(
            &keys,
            key_type,
            &CastOptions {
                safe: false,
                ..Default::default()
            },
        )
        .map_err(|_| {
            ArrowError::InvalidArgumentError(format!(
                "column {name}: the dictionaries of its row groups hold {} distinct values \
                 together, more than its {key_type} keys can address in one IPC file",
                self.values.len()
            ))
        })?;
        let data = ArrayData::builder(column.data_type().clone())
            .len(column.len())
            .add_buffer(keys.to_data().buffers()[0].clone())
            .nulls(dictionary.keys().nulls().cloned())
            .add_child_data(self.values.to_data())
            .build()?;
        Ok(Some(make_array(data)))
    }

    /// The key here of each of `values`, appending the values not seen before.
    fn remap(&mut self, values: &ArrayRef) -> Result<Vec<i64>, ArrowError> {
        if self.keys.is_empty() {
            for i in 0..self.values.len() {
                if let Some(bytes) = value_bytes(&self.values, i) {
                    self.keys.entry(bytes).or_insert(i);
                }
            }
        }
        // The key in this dictionary of each of the column's dictionary values.
        let mut remap = Vec::with_capacity(values.len());
        let mut appended = Vec::new();
        for i in 0..values.len() {
            let next = self.values.len() + appended.len();
            let key = match value_bytes(values, i) {
                Some(bytes) => *self.keys.entry(bytes).or_insert_with(|| {
                    appended.push(i);
                    next
                }),
                // A value type without a byte form is appended, never shared.
                None => {
                    appended.push(i);
                    next
                }
            };
            remap.push(key as i64);
        }
        if !appended.is_empty() {
            let appended = arrow_select::take::take(
                values.as_ref(),
                &arrow_array::UInt32Array::from_iter_values(appended.iter().map(|&i| i as u32)),
                None,
            )?;
            self.values = arrow_select::concat::concat(&[self.values.as_ref(), appended.as_ref()])?;
        }
        Ok(remap)
    }
}

/// Value `i` of a dictionary's values as bytes that identify it, for the value types a
/// Parquet dictionary holds (strings, binaries, fixed-width numbers); `None` for others.
/// A null value is `Some(None)`.
fn value_bytes(values: &ArrayRef, i: usize) -> Option<Option<Vec<u8>>> {
    if values.is_null(i) {
        return Some(None);
    }
    let bytes = match values.data_type() {
        DataType::Utf8 => values.as_string::<i32>().value(i).as_bytes().to_vec(),
        DataType::LargeUtf8 => values.as_string::<i64>().value(i).as_bytes().to_vec(),
        DataType::Utf8View => values.as_string_view().value(i).as_bytes().to_vec(),
        DataType::Binary => values.as_binary::<i32>().value(i).to_vec(),
        DataType::LargeBinary => values.as_binary::<i64>().value(i).to_vec(),
        DataType::BinaryView => values.as_binary_view().value(i).to_vec(),
        DataType::FixedSizeBinary(_) => values.as_fixed_size_binary().value(i).to_vec(),
        data_type if data_type.is_primitive() => {
            let width = data_type.primitive_width()?;
            let data = values.to_data();
            let start = (data.offset() + i) * width;
            data.buffers()[0].get(start..start + width)?.to_vec()
        }
        _ => return None,
    };
    Some(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{DictionaryArray, StringArray, types::Int8Type};
    use arrow_schema::{Field, Schema};
    use std::sync::Arc;

    fn batch(keys: Vec<Option<i8>>, values: &[&str]) -> RecordBatch {
        let column = DictionaryArray::<Int8Type>::new(
            keys.into(),
            Arc::new(StringArray::from(values.to_vec())),
        );
        let schema = Schema::new(vec![Field::new("c", column.data_type().clone(), true)]);
        RecordBatch::try_new(Arc::new(schema), vec![Arc::new(column)]).unwrap()
    }

    fn strings(batch: &RecordBatch) -> Vec<Option<String>> {
        let column = arrow_cast::cast(batch.column(0), &DataType::Utf8).unwrap();
        column
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(str::to_string))
            .collect()
    }

    #[test]
    fn later_dictionaries_extend_the_first_and_keep_values() {
        let mut dictionaries = GrowingDictionaries::default();
        let first = batch(vec![Some(0), Some(1), None], &["a", "b"]);
        assert_eq!(dictionaries.rebase(&first).unwrap(), first);
        // Another row group's dictionary: "b" is known, "c" is new.
        let second = batch(vec![Some(1), Some(0), None, Some(1)], &["c", "b"]);
        let rebased = dictionaries.rebase(&second).unwrap();
        assert_eq!(strings(&rebased), strings(&second));
        let column = rebased.column(0).as_dictionary::<Int8Type>();
        assert_eq!(
            column.keys().iter().collect::<Vec<_>>(),
            vec![Some(1), Some(2), None, Some(1)]
        );
        let values = column.values().as_string::<i32>();
        assert_eq!(
            values.iter().collect::<Vec<_>>(),
            vec![Some("a"), Some("b"), Some("c")]
        );
        // The same dictionary again is passed through.
        let third = batch(vec![Some(2)], &["a", "b", "c"]);
        assert_eq!(dictionaries.rebase(&third).unwrap(), third);
    }

    #[test]
    fn keys_that_cannot_address_the_grown_dictionary_are_an_error() {
        let mut dictionaries = GrowingDictionaries::default();
        let names: Vec<String> = (0..100).map(|i| format!("v{i}")).collect();
        let first: Vec<&str> = names.iter().map(String::as_str).collect();
        dictionaries.rebase(&batch(vec![Some(0)], &first)).unwrap();
        let others: Vec<String> = (100..200).map(|i| format!("v{i}")).collect();
        let second: Vec<&str> = others.iter().map(String::as_str).collect();
        let error = dictionaries
            .rebase(&batch(vec![Some(99)], &second))
            .unwrap_err()
            .to_string();
        assert!(error.contains("200 distinct values"), "{error}");
    }
}
