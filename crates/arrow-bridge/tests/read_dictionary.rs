//! Dictionary columns read as Arrow `DictionaryArray`s: a dictionary-encoded chunk keeps
//! its dictionary (the batches' values arrays are the chunk's dictionary, not the rows'
//! values hashed again), a chunk that falls back to PLAIN midway and batches over several
//! row groups, selections and projections read the values arrow-rs reads, nested
//! dictionary leaves too, and a corrupt dictionary is an error.

use std::collections::HashSet;
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringDictionaryBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray, StructArray,
    downcast_dictionary_array,
};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use herringbone_arrow_bridge::read::{ParquetRecordBatchReaderBuilder, RowSelection, RowSelector};
use herringbone_arrow_bridge::schema::Projection;
use herringbone_format::metadata::PageHeader;
use herringbone_format::thrift::ThriftStruct;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder as ArrowBuilder;
use parquet::basic::Encoding;
use parquet::file::properties::{WriterProperties, WriterPropertiesBuilder, WriterVersion};

fn dict(key: DataType, value: DataType) -> DataType {
    DataType::Dictionary(Box::new(key), Box::new(value))
}

fn write_arrow(batches: &[RecordBatch], properties: WriterProperties) -> Bytes {
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batches[0].schema(), Some(properties)).unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    writer.close().unwrap();
    Bytes::from(out)
}

/// Small pages so that batches cross page boundaries.
fn small_pages() -> WriterPropertiesBuilder {
    WriterProperties::builder()
        .set_data_page_row_count_limit(97)
        .set_write_batch_size(32)
}

/// What a Herringbone read is configured with.
#[derive(Default, Clone)]
struct Read {
    batch_size: Option<usize>,
    selection: Option<Vec<(bool, usize)>>,
    schema: Option<SchemaRef>,
}

impl Read {
    fn batch(batch_size: usize) -> Self {
        Read {
            batch_size: Some(batch_size),
            ..Read::default()
        }
    }
}

fn selection(runs: &[(bool, usize)]) -> RowSelection {
    RowSelection::from(
        runs.iter()
            .map(|&(skip, n)| {
                if skip {
                    RowSelector::skip(n)
                } else {
                    RowSelector::select(n)
                }
            })
            .collect::<Vec<_>>(),
    )
}

fn ours(file: &Bytes, read: &Read) -> Vec<RecordBatch> {
    try_ours(file, read).unwrap()
}

fn try_ours(
    file: &Bytes,
    read: &Read,
) -> Result<Vec<RecordBatch>, Box<dyn std::error::Error + Send + Sync>> {
    let mut builder = ParquetRecordBatchReaderBuilder::try_new(file.clone())?;
    if let Some(n) = read.batch_size {
        builder = builder.with_batch_size(n);
    }
    if let Some(runs) = &read.selection {
        builder = builder.with_row_selection(selection(runs));
    }
    if let Some(schema) = &read.schema {
        builder = builder.with_schema(schema.clone());
    }
    let reader = builder.build()?;
    Ok(reader.collect::<Result<Vec<_>, _>>()?)
}

fn theirs(file: &Bytes, read: &Read) -> Vec<RecordBatch> {
    let mut builder = ArrowBuilder::try_new(file.clone()).unwrap();
    if let Some(n) = read.batch_size {
        builder = builder.with_batch_size(n);
    }
    if let Some(runs) = &read.selection {
        let selectors: Vec<parquet::arrow::arrow_reader::RowSelector> = runs
            .iter()
            .map(|&(skip, n)| {
                if skip {
                    parquet::arrow::arrow_reader::RowSelector::skip(n)
                } else {
                    parquet::arrow::arrow_reader::RowSelector::select(n)
                }
            })
            .collect();
        builder = builder.with_row_selection(selectors.into());
    }
    builder
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

/// The rows of column `name` over all batches as text (dictionaries show their values,
/// so two arrays compare logically whatever their keys and batch boundaries).
fn rows(batches: &[RecordBatch], name: &str) -> Vec<String> {
    let options = FormatOptions::default().with_null("<null>");
    let mut out = Vec::new();
    for batch in batches {
        let column = batch.column_by_name(name).unwrap();
        let formatter = ArrayFormatter::try_new(column.as_ref(), &options).unwrap();
        out.extend((0..column.len()).map(|i| formatter.value(i).to_string()));
    }
    out
}

/// Every batch's column `name` is a dictionary array of type `expected`; returns the
/// length of each batch's dictionary values and whether all batches share one values
/// buffer.
fn dictionaries(batches: &[RecordBatch], name: &str, expected: &DataType) -> Vec<ArrayRef> {
    batches
        .iter()
        .map(|batch| {
            let column = batch.column_by_name(name).unwrap();
            assert_eq!(column.data_type(), expected, "column {name}");
            downcast_dictionary_array!(
                column => column.values().clone(),
                t => panic!("column {name}: {t} is not a dictionary"),
            )
        })
        .collect()
}

/// Whether two arrays hold the same buffers (one shared dictionary, not copies).
fn same_buffers(a: &ArrayRef, b: &ArrayRef) -> bool {
    let (a, b) = (a.to_data(), b.to_data());
    a.len() == b.len()
        && a.buffers().len() == b.buffers().len()
        && a.buffers()
            .iter()
            .zip(b.buffers())
            .all(|(x, y)| x.as_ptr() == y.as_ptr())
}

/// `n` rows of `distinct` different strings (every 7th row null), as `data_type`.
fn strings(n: usize, distinct: usize, data_type: &DataType) -> ArrayRef {
    let plain: StringArray = (0..n)
        .map(|i| (i % 7 != 3).then(|| format!("value-{:03}", (i * 31) % distinct)))
        .collect();
    arrow_cast::cast(&plain, data_type).unwrap()
}

fn distinct_values(array: &ArrayRef) -> usize {
    let options = FormatOptions::default();
    let formatter = ArrayFormatter::try_new(array.as_ref(), &options).unwrap();
    (0..array.len())
        .filter(|&i| array.is_valid(i))
        .map(|i| formatter.value(i).to_string())
        .collect::<HashSet<_>>()
        .len()
}

#[test]
fn arrow_rs_dictionary_columns_keep_one_dictionary_per_chunk() {
    let n = 3000;
    let distinct = 50;
    let int64: ArrayRef =
        Arc::new(Int64Array::from_iter((0..n).map(|i| {
            (i % 5 != 1).then_some((i as i64 * 7) % distinct as i64 - 20)
        })));
    let int32: ArrayRef =
        Arc::new(Int32Array::from_iter((0..n).map(|i| {
            (i % 4 != 2).then_some(19_000 + (i as i32 * 3) % distinct as i32)
        })));
    let columns: Vec<(&str, DataType, ArrayRef)> = vec![
        (
            "i32_utf8",
            dict(DataType::Int32, DataType::Utf8),
            strings(n, distinct, &DataType::Utf8),
        ),
        (
            "i8_utf8",
            dict(DataType::Int8, DataType::Utf8),
            strings(n, distinct, &DataType::Utf8),
        ),
        (
            "i16_large",
            dict(DataType::Int16, DataType::LargeUtf8),
            strings(n, distinct, &DataType::Utf8),
        ),
        (
            "i32_i64",
            dict(DataType::Int32, DataType::Int64),
            int64.clone(),
        ),
        (
            "u8_binary",
            dict(DataType::UInt8, DataType::Binary),
            strings(n, distinct, &DataType::Binary),
        ),
        (
            "u32_f64",
            dict(DataType::UInt32, DataType::Float64),
            int64.clone(),
        ),
        ("i64_date", dict(DataType::Int64, DataType::Date32), int32),
    ];
    let mut fields = Vec::new();
    let mut arrays = Vec::new();
    for (name, data_type, plain) in &columns {
        fields.push(Field::new(*name, data_type.clone(), true));
        arrays.push(arrow_cast::cast(plain, data_type).unwrap());
    }
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays.clone()).unwrap();
    let file = write_arrow(&[batch], small_pages().build());
    for batch_size in [1000, 333, 3000] {
        let read = Read::batch(batch_size);
        let (ours, theirs) = (ours(&file, &read), theirs(&file, &read));
        for ((name, data_type, _), input) in columns.iter().zip(&arrays) {
            assert_eq!(
                rows(&ours, name),
                rows(&theirs, name),
                "{name}, batch {batch_size}"
            );
            let values = dictionaries(&ours, name, data_type);
            // One dictionary of the chunk's distinct values, shared by every batch.
            for v in &values {
                assert_eq!(v.len(), distinct_values(input), "{name}");
                assert!(
                    same_buffers(v, &values[0]),
                    "{name}: batches share the dictionary"
                );
            }
        }
    }
}

#[test]
fn a_chunk_falling_back_to_plain_midway_reads_the_values_arrow_rs_reads() {
    let n = 4000;
    let data_type = dict(DataType::Int32, DataType::Utf8);
    // Many distinct values and a small dictionary page limit: the writer falls back to
    // PLAIN after a few pages.
    let column = strings(n, 1500, &data_type);
    let other: ArrayRef = Arc::new(Int64Array::from_iter_values(0..n as i64));
    let batch = RecordBatch::try_from_iter([("s", column), ("n", other)]).unwrap();
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        let file = write_arrow(
            std::slice::from_ref(&batch),
            small_pages()
                .set_writer_version(version)
                .set_dictionary_page_size_limit(2000)
                .build(),
        );
        falls_back(&file, n, &data_type);
    }
}

fn falls_back(file: &Bytes, n: usize, data_type: &DataType) {
    let metadata = ArrowBuilder::try_new(file.clone())
        .unwrap()
        .metadata()
        .clone();
    let encodings: Vec<Encoding> = metadata.row_group(0).column(0).encodings().collect();
    assert!(encodings.contains(&Encoding::PLAIN), "{encodings:?}");
    assert!(
        encodings.contains(&Encoding::RLE_DICTIONARY),
        "{encodings:?}"
    );
    for read in [
        Read::batch(7),
        Read::batch(100),
        Read::batch(1024),
        Read::batch(n),
        Read {
            batch_size: Some(250),
            selection: Some(vec![
                (false, 10),
                (true, 300),
                (false, 1500),
                (true, 90),
                (false, 2000),
            ]),
            schema: None,
        },
    ] {
        let (ours, theirs) = (ours(file, &read), theirs(file, &read));
        let values = dictionaries(&ours, "s", data_type);
        if read.batch_size == Some(7) {
            // The first batches lie in dictionary pages: keys over the chunk's
            // dictionary; the last ones in PLAIN pages: cast, batch by batch.
            assert!(same_buffers(&values[0], &values[1]));
            assert!(values[0].len() > 7);
            assert!(values.last().unwrap().len() <= 7);
        }
        assert_eq!(
            rows(&ours, "s"),
            rows(&theirs, "s"),
            "{:?}",
            read.batch_size
        );
        assert_eq!(rows(&ours, "n"), rows(&theirs, "n"));
    }
}

#[test]
fn row_groups_selections_and_projections() {
    let data_type = dict(DataType::Int16, DataType::LargeUtf8);
    // Each row group sees different values, so each chunk has its own dictionary.
    let batches: Vec<RecordBatch> = (0..3)
        .map(|g| {
            let plain: StringArray = (0..700)
                .map(|i| (i % 11 != 0).then(|| format!("group{g}-{}", (i * 13) % (40 + g * 10))))
                .collect();
            let column = arrow_cast::cast(&plain, &data_type).unwrap();
            let other: ArrayRef = Arc::new(Int64Array::from_iter_values(
                (0..700).map(|i| i + 700 * g as i64),
            ));
            RecordBatch::try_from_iter([("n", other), ("s", column)]).unwrap()
        })
        .collect();
    let file = write_arrow(
        &batches,
        small_pages().set_max_row_group_row_count(Some(700)).build(),
    );
    for read in [
        Read::batch(1000),
        Read::batch(512),
        Read {
            batch_size: Some(900),
            selection: Some(vec![
                (true, 650),
                (false, 100),
                (true, 10),
                (false, 700),
                (true, 100),
            ]),
            schema: None,
        },
    ] {
        let (ours, theirs) = (ours(&file, &read), theirs(&file, &read));
        let values = dictionaries(&ours, "s", &data_type);
        assert!(
            values.iter().all(|v| v.len() <= 60),
            "a chunk's dictionary at most"
        );
        assert_eq!(rows(&ours, "s"), rows(&theirs, "s"));
        assert_eq!(rows(&ours, "n"), rows(&theirs, "n"));
    }
    // Only the dictionary column.
    let projected: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_projection(Projection::Roots(vec![1]))
        .with_batch_size(300)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(projected[0].num_columns(), 1);
    dictionaries(&projected, "s", &data_type);
    assert_eq!(
        rows(&projected, "s"),
        rows(&theirs(&file, &Read::default()), "s")
    );
}

#[test]
fn nested_dictionary_leaves() {
    let mut list = ListBuilder::new(StringDictionaryBuilder::<Int32Type>::new());
    for i in 0..1500usize {
        match i % 9 {
            0 => list.append_null(),
            1 => list.append(true),
            _ => {
                for j in 0..i % 4 {
                    if (i + j) % 5 == 0 {
                        list.values().append_null();
                    } else {
                        list.values()
                            .append_value(format!("tag{}", (i * 3 + j) % 17));
                    }
                }
                list.append(true);
            }
        }
    }
    let list: ArrayRef = Arc::new(list.finish());
    let inner = strings(1500, 23, &dict(DataType::Int16, DataType::Utf8));
    let ints: ArrayRef = Arc::new(Int64Array::from_iter_values(0..1500));
    let structs: ArrayRef = Arc::new(StructArray::from(vec![
        (
            Arc::new(Field::new("d", inner.data_type().clone(), true)),
            inner,
        ),
        (Arc::new(Field::new("i", DataType::Int64, false)), ints),
    ]));
    let batch = RecordBatch::try_from_iter([("tags", list), ("st", structs)]).unwrap();
    let schema = batch.schema();
    let file = write_arrow(&[batch], small_pages().build());
    for batch_size in [100, 1500] {
        let read = Read::batch(batch_size);
        let (ours, theirs) = (ours(&file, &read), theirs(&file, &read));
        assert_eq!(ours[0].schema().fields(), schema.fields());
        for name in ["tags", "st"] {
            assert_eq!(rows(&ours, name), rows(&theirs, name), "{name}");
        }
        let tags = ours[0].column(0).as_list::<i32>().values().clone();
        let values = dictionaries(
            &[RecordBatch::try_from_iter([("t", tags)]).unwrap()],
            "t",
            &dict(DataType::Int32, DataType::Utf8),
        );
        assert_eq!(values[0].len(), 17);
    }
}

#[test]
fn herringbone_writer_round_trip() {
    use herringbone_arrow_bridge::write::{ArrowWriter as HbWriter, WriterProperties as HbProps};
    let n = 2500;
    let types = [
        dict(DataType::Int32, DataType::Utf8),
        dict(DataType::Int8, DataType::Utf8),
        dict(DataType::UInt16, DataType::LargeUtf8),
        dict(DataType::Int32, DataType::Binary),
    ];
    let mut fields = Vec::new();
    let mut arrays = Vec::new();
    for (i, t) in types.iter().enumerate() {
        fields.push(Field::new(format!("c{i}"), t.clone(), true));
        arrays.push(strings(n, 60, t));
    }
    let ints: ArrayRef = Arc::new(Int64Array::from_iter(
        (0..n).map(|i| (i % 3 != 0).then_some(i as i64 % 40)),
    ));
    fields.push(Field::new(
        "c4",
        dict(DataType::Int32, DataType::Int64),
        true,
    ));
    arrays.push(arrow_cast::cast(&ints, &dict(DataType::Int32, DataType::Int64)).unwrap());
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap();
    for (props, kept) in [
        (
            HbProps::builder().set_data_page_row_limit(100).build(),
            true,
        ),
        // A tiny dictionary page limit: the writer falls back to PLAIN.
        (
            HbProps::builder()
                .set_data_page_row_limit(100)
                .set_dictionary_page_size_limit(200)
                .build(),
            false,
        ),
    ] {
        let mut out = Vec::new();
        let mut writer = HbWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
        writer.write(&batch.slice(0, 1000)).unwrap();
        writer.write(&batch.slice(1000, n - 1000)).unwrap();
        writer.close().unwrap();
        let file = Bytes::from(out);
        for batch_size in [64, 1000, n] {
            let read = Read::batch(batch_size);
            let back = ours(&file, &read);
            assert_eq!(back[0].schema().fields(), batch.schema().fields());
            for (i, field) in batch.schema().fields().iter().enumerate() {
                let name = field.name();
                assert_eq!(
                    rows(&back, name),
                    rows(std::slice::from_ref(&batch), name),
                    "{name}"
                );
                let values = dictionaries(&back, name, field.data_type());
                if kept {
                    let distinct = distinct_values(batch.column(i));
                    assert!(values.iter().all(|v| v.len() == distinct), "{name}");
                }
            }
        }
    }
}

#[test]
fn a_supplied_dictionary_schema_over_plain_and_dictionary_strings() {
    let n = 1200;
    let column = strings(n, 40, &DataType::Utf8);
    let batch = RecordBatch::try_from_iter([("s", column)]).unwrap();
    // Value types arrow-rs's writer does not write as dictionaries (views) too.
    for (dictionary, data_type) in [
        (false, dict(DataType::Int32, DataType::Utf8)),
        (true, dict(DataType::Int32, DataType::Utf8)),
        (true, dict(DataType::UInt16, DataType::Utf8View)),
        (true, dict(DataType::Int64, DataType::LargeUtf8)),
        (false, dict(DataType::Int8, DataType::Utf8View)),
    ] {
        let schema = Arc::new(Schema::new(vec![Field::new("s", data_type.clone(), true)]));
        let file = write_arrow(
            std::slice::from_ref(&batch),
            small_pages().set_dictionary_enabled(dictionary).build(),
        );
        let read = Read {
            batch_size: Some(500),
            selection: None,
            schema: Some(schema.clone()),
        };
        let ours = ours(&file, &read);
        let values = dictionaries(&ours, "s", &data_type);
        assert_eq!(rows(&ours, "s"), rows(std::slice::from_ref(&batch), "s"));
        if dictionary {
            assert!(values.iter().all(|v| v.len() == 40));
        }
    }
}

#[test]
fn a_dictionary_the_key_type_cannot_index_is_read_by_batch_or_is_an_error() {
    // 300 distinct values in sorted runs: the chunk's dictionary has 300 entries, more
    // than Int8 keys index, but each batch of 100 rows holds at most 100 of them.
    let plain: StringArray = (0..3000).map(|i| Some(format!("v{:03}", i / 10))).collect();
    let batch = RecordBatch::try_from_iter([("s", Arc::new(plain) as ArrayRef)]).unwrap();
    let file = write_arrow(std::slice::from_ref(&batch), small_pages().build());
    let data_type = dict(DataType::Int8, DataType::Utf8);
    let schema = Arc::new(Schema::new(vec![Field::new("s", data_type.clone(), true)]));
    let read = Read {
        batch_size: Some(100),
        selection: None,
        schema: Some(schema.clone()),
    };
    let back = ours(&file, &read);
    dictionaries(&back, "s", &data_type);
    assert_eq!(rows(&back, "s"), rows(std::slice::from_ref(&batch), "s"));
    // A batch with more distinct values than Int8 keys index: an error naming the
    // column and the type, no panic.
    let read = Read {
        batch_size: Some(3000),
        ..read
    };
    let error = try_ours(&file, &read).unwrap_err().to_string();
    assert!(
        error.contains("column s") && error.contains("Int8"),
        "{error}"
    );
}

/// `file` with the first column chunk's dictionary page header claiming `num_values`.
fn with_dictionary_entries(file: &Bytes, num_values: i32) -> Bytes {
    let metadata = ArrowBuilder::try_new(file.clone())
        .unwrap()
        .metadata()
        .clone();
    let offset = metadata
        .row_group(0)
        .column(0)
        .dictionary_page_offset()
        .unwrap() as usize;
    let (mut header, len) = PageHeader::decode_slice(&file[offset..]).unwrap();
    header.dictionary_page_header.as_mut().unwrap().num_values = num_values;
    let encoded = header.encode();
    assert_eq!(encoded.len(), len, "the header keeps its size");
    let mut out = file.to_vec();
    out[offset..offset + len].copy_from_slice(&encoded);
    Bytes::from(out)
}

#[test]
fn an_index_beyond_the_dictionary_is_an_error() {
    // A Utf8 column (dictionary-encoded by the writer, no dictionary hint), read as
    // Utf8 and as a dictionary.
    let data_type = dict(DataType::Int32, DataType::Utf8);
    let column = strings(500, 10, &DataType::Utf8);
    let batch = RecordBatch::try_from_iter([("s", column)]).unwrap();
    let file = write_arrow(
        std::slice::from_ref(&batch),
        WriterProperties::builder().build(),
    );
    // Unchanged, the file reads; with 9 of its 10 entries, index 9 is out of range.
    assert_eq!(
        ours(&with_dictionary_entries(&file, 10), &Read::default())[0].num_rows(),
        500
    );
    let bad = with_dictionary_entries(&file, 9);
    for schema in [
        None,
        Some(Arc::new(Schema::new(vec![Field::new(
            "s",
            data_type.clone(),
            true,
        )]))),
    ] {
        let read = Read {
            schema,
            ..Read::default()
        };
        let error = try_ours(&bad, &read).unwrap_err().to_string();
        assert!(error.contains("column s"), "{error}");
    }
}
