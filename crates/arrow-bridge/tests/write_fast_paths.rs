//! The writer's direct paths, checked against the data: byte arrays written straight
//! from the Arrow offsets into PLAIN and DELTA_LENGTH_BYTE_ARRAY pages (with bounds kept
//! on the way) or looked up in the dictionary from the Arrow buffers, and the bulk level
//! fills of nullable structs of leaves and of lists of nullable leaves. Files are read
//! back by arrow-rs and by Herringbone; per-page bounds are compared with the rows each
//! page covers.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::*;
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields, Schema};
use bytes::Bytes;
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder as HbReaderBuilder;
use herringbone_arrow_bridge::write::{
    ArrowWriter, DataPageVersion, StatisticsLevel, WriterProperties, WriterPropertiesBuilder,
};
use herringbone_format::metadata::Encoding;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::properties::ReaderProperties;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};

const ROWS: usize = 3000;
const PAGE_ROWS: usize = 700;

fn write(batch: &RecordBatch, props: WriterProperties) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    // Two batches, so that pages span batches.
    let half = batch.num_rows() / 3;
    writer.write(&batch.slice(0, half)).unwrap();
    writer
        .write(&batch.slice(half, batch.num_rows() - half))
        .unwrap();
    writer.close().unwrap();
    out
}

fn read_arrow_rs(file: &[u8]) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(file))
        .unwrap()
        .with_batch_size(1 << 20)
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    assert_eq!(batches.len(), 1);
    batches.into_iter().next().unwrap()
}

fn read_herringbone(file: &[u8]) -> RecordBatch {
    let reader = HbReaderBuilder::try_new(Bytes::copy_from_slice(file))
        .unwrap()
        .with_batch_size(1 << 20)
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    assert_eq!(batches.len(), 1);
    batches.into_iter().next().unwrap()
}

/// Values of varied lengths (0 to 40 bytes, sharing prefixes longer than 8 bytes so the
/// bounds need more than the prefix keys), with a null every 7th row and a run of nulls.
fn text(i: usize) -> Option<String> {
    if i % 7 == 3 || (1200..1300).contains(&i) {
        return None;
    }
    let k = (i * 7919) % 2003;
    Some(match k % 5 {
        0 => String::new(),
        1 => format!("{}", k % 10),
        2 => format!("prefix-shared-{k:05}"),
        3 => format!("prefix-shared-{k:05}-and-a-longer-tail-{}", k % 3),
        _ => format!("é{k}"),
    })
}

fn byte_batch() -> RecordBatch {
    let values: Vec<Option<String>> = (0..ROWS).map(text).collect();
    let utf8: ArrayRef = Arc::new(StringArray::from(values.clone()));
    let large: ArrayRef = Arc::new(LargeStringArray::from(values.clone()));
    let binary: ArrayRef = Arc::new(BinaryArray::from(
        values
            .iter()
            .map(|v| v.as_deref().map(str::as_bytes))
            .collect::<Vec<_>>(),
    ));
    let required: ArrayRef = Arc::new(StringArray::from(
        (0..ROWS)
            .map(|i| text(i).unwrap_or_default())
            .collect::<Vec<_>>(),
    ));
    RecordBatch::try_new(
        Arc::new(Schema::new(vec![
            Field::new("utf8", DataType::Utf8, true),
            Field::new("large", DataType::LargeUtf8, true),
            Field::new("binary", DataType::Binary, true),
            Field::new("required", DataType::Utf8, false),
        ])),
        vec![utf8, large, binary, required],
    )
    .unwrap()
}

/// Every column's per-page bounds and null counts equal those of the rows each page
/// covers (flat columns: one row per slot).
/// Properties of the byte-array tests: small pages with page statistics compared whole
/// (no truncation) and Bloom filters on every column.
fn checked_pages() -> WriterPropertiesBuilder {
    WriterProperties::builder()
        .set_data_page_row_limit(PAGE_ROWS)
        .set_statistics(StatisticsLevel::Page)
        .set_statistics_truncate_length(None)
        .set_bloom_filter_all(0.01, 3000)
}

/// Writes `batch`, reads it back equal with arrow-rs and Herringbone, and checks every
/// page's bounds; returns the file.
fn write_and_read_back(batch: &RecordBatch, props: WriterProperties, case: &str) -> Vec<u8> {
    let file = write(batch, props);
    assert_eq!(&read_arrow_rs(&file), batch, "{case}");
    assert_eq!(&read_herringbone(&file), batch, "{case}");
    check_page_bounds(&file, batch, true);
    file
}

fn check_page_bounds(file: &[u8], batch: &RecordBatch, pages_expected: bool) {
    let options = ReadOptionsBuilder::new().with_page_index().build();
    let reader =
        SerializedFileReader::new_with_options(Bytes::copy_from_slice(file), options).unwrap();
    let meta = reader.metadata();
    assert_eq!(meta.num_row_groups(), 1);
    let column_index = meta.column_index().expect("column index");
    let offset_index = meta.offset_index().expect("offset index");
    for (c, column) in batch.columns().iter().enumerate() {
        let column = arrow_cast::cast(column, &DataType::Binary).unwrap();
        let column = column.as_any().downcast_ref::<BinaryArray>().unwrap();
        let locations = offset_index[0][c].page_locations();
        if pages_expected {
            assert!(locations.len() >= ROWS / PAGE_ROWS, "column {c}");
        }
        let ColumnIndexMetaData::BYTE_ARRAY(index) = &column_index[0][c] else {
            panic!("column {c}: byte array index")
        };
        for (p, loc) in locations.iter().enumerate() {
            let first = loc.first_row_index as usize;
            let last = locations
                .get(p + 1)
                .map_or(ROWS, |next| next.first_row_index as usize);
            assert!(last - first <= PAGE_ROWS);
            let page: Vec<&[u8]> = (first..last)
                .filter(|&i| column.is_valid(i))
                .map(|i| column.value(i))
                .collect();
            assert_eq!(
                index.min_value(p),
                page.iter().min().copied(),
                "column {c} page {p} min"
            );
            assert_eq!(
                index.max_value(p),
                page.iter().max().copied(),
                "column {c} page {p} max"
            );
            assert_eq!(
                index.null_count(p),
                Some((last - first - page.len()) as i64)
            );
        }
        let total: usize = (0..ROWS)
            .filter(|&i| column.is_valid(i))
            .map(|i| column.value(i).len())
            .sum();
        assert_eq!(
            meta.row_group(0)
                .column(c)
                .unencoded_byte_array_data_bytes(),
            Some(total as i64),
            "column {c}"
        );
    }
}

#[test]
fn byte_arrays_straight_into_plain_and_delta_length_pages() {
    let batch = byte_batch();
    for encoding in [Encoding::PLAIN, Encoding::DELTA_LENGTH_BYTE_ARRAY] {
        for version in [DataPageVersion::V1, DataPageVersion::V2] {
            let props = checked_pages()
                .set_dictionary_enabled(false)
                .set_encoding(encoding)
                .set_data_page_version(version)
                .build();
            let file = write_and_read_back(&batch, props, &format!("{encoding:?} {version:?}"));

            let options = ReadOptionsBuilder::new()
                .with_reader_properties(
                    ReaderProperties::builder()
                        .set_read_bloom_filter(true)
                        .build(),
                )
                .build();
            let reader =
                SerializedFileReader::new_with_options(Bytes::copy_from_slice(&file), options)
                    .unwrap();
            let rg = reader.metadata().row_group(0);
            for c in 0..batch.num_columns() {
                let encodings = rg.column(c).encodings().collect::<Vec<_>>();
                assert!(
                    encodings.contains(&if encoding == Encoding::PLAIN {
                        parquet::basic::Encoding::PLAIN
                    } else {
                        parquet::basic::Encoding::DELTA_LENGTH_BYTE_ARRAY
                    }),
                    "{encodings:?}"
                );
            }
            // Bloom filters hold every present value.
            let rg_reader = reader.get_row_group(0).unwrap();
            for c in 0..batch.num_columns() {
                let bloom = rg_reader.get_column_bloom_filter(c).expect("filter");
                let column = arrow_cast::cast(batch.column(c), &DataType::Binary).unwrap();
                let column = column.as_any().downcast_ref::<BinaryArray>().unwrap();
                assert!(
                    (0..ROWS)
                        .filter(|&i| column.is_valid(i))
                        .all(|i| bloom.check(column.value(i)))
                );
            }
        }
    }
}

#[test]
fn byte_arrays_through_the_dictionary_and_its_fallback() {
    let batch = byte_batch();
    // A dictionary limit the values outgrow part way: pages before it use the
    // dictionary, pages after it PLAIN written straight from the offsets.
    for limit in [1 << 20, 4000] {
        let props = checked_pages()
            .set_dictionary_enabled(true)
            .set_dictionary_page_size_limit(limit)
            .build();
        let file = write_and_read_back(&batch, props, &format!("limit {limit}"));
        let reader = SerializedFileReader::new(Bytes::copy_from_slice(&file)).unwrap();
        let encodings: Vec<_> = reader
            .metadata()
            .row_group(0)
            .column(0)
            .encodings()
            .collect();
        assert!(encodings.contains(&parquet::basic::Encoding::RLE_DICTIONARY));
        if limit == 4000 {
            assert!(encodings.contains(&parquet::basic::Encoding::PLAIN));
        }
    }
}

/// A nullable struct of a required, a nullable and a required leaf (with nulls in the
/// nullable one, also under null struct slots), top level and as list elements.
#[test]
fn nullable_structs_of_leaves_and_lists_of_nullable_leaves() {
    let fields = Fields::from(vec![
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Utf8, true),
        Field::new("c", DataType::Float64, false),
    ]);
    let a: ArrayRef = Arc::new(Int64Array::from_iter_values(0..ROWS as i64));
    let b: ArrayRef = Arc::new(StringArray::from((0..ROWS).map(text).collect::<Vec<_>>()));
    let c: ArrayRef = Arc::new(Float64Array::from_iter_values(
        (0..ROWS).map(|i| i as f64 / 4.0),
    ));
    let struct_nulls = NullBuffer::from((0..ROWS).map(|i| i % 5 != 2).collect::<Vec<_>>());
    let strukt = StructArray::new(fields.clone(), vec![a, b, c], Some(struct_nulls));

    // list<struct> over the same struct: lists of 0..4 elements, some null lists.
    // A null list or a list of length 0 covers no elements.
    let mut offsets = vec![0i32];
    let mut valid = Vec::new();
    let mut at = 0usize;
    let mut slot = 0usize;
    while at < ROWS {
        let is_valid = slot % 11 != 4;
        if is_valid {
            at = (at + slot % 5).min(ROWS);
        }
        valid.push(is_valid);
        offsets.push(at as i32);
        slot += 1;
    }
    let lists = offsets.len() - 1;
    let list_of_struct = ListArray::new(
        Arc::new(Field::new("item", DataType::Struct(fields), true)),
        arrow_buffer::OffsetBuffer::new(offsets.clone().into()),
        Arc::new(strukt.slice(0, *offsets.last().unwrap() as usize)),
        Some(NullBuffer::from(valid.clone())),
    );

    // list<int64> with null elements, and list<utf8> with null elements.
    let mut ints = ListBuilder::new(Int64Builder::new());
    let mut strings = ListBuilder::new(StringBuilder::new());
    for row in 0..lists {
        if row % 9 == 5 {
            ints.append_null();
            strings.append_null();
            continue;
        }
        for j in 0..row % 6 {
            let k = row * 6 + j;
            ints.values()
                .append_option((k % 4 != 1).then_some(k as i64));
            strings.values().append_option(text(k % ROWS));
        }
        ints.append(true);
        strings.append(true);
    }
    let ints = ints.finish();
    let strings = strings.finish();

    let top = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new(
            "s",
            strukt.data_type().clone(),
            true,
        )])),
        vec![Arc::new(strukt)],
    )
    .unwrap();
    let nested = RecordBatch::try_new(
        Arc::new(Schema::new(vec![
            Field::new("ls", list_of_struct.data_type().clone(), true),
            Field::new("li", ints.data_type().clone(), true),
            Field::new("lu", strings.data_type().clone(), true),
        ])),
        vec![Arc::new(list_of_struct), Arc::new(ints), Arc::new(strings)],
    )
    .unwrap();
    for batch in [&top, &nested] {
        for dictionary in [false, true] {
            let props = WriterProperties::builder()
                .set_dictionary_enabled(dictionary)
                .set_data_page_row_limit(97)
                .set_statistics(StatisticsLevel::Page)
                .build();
            let file = write(batch, props);
            assert_eq!(&read_arrow_rs(&file), batch, "dictionary {dictionary}");
            assert_eq!(&read_herringbone(&file), batch, "dictionary {dictionary}");
        }
    }
}

/// A non-nullable leaf of a nullable struct may hold nulls under null struct slots
/// (they are hidden): written as the struct's nulls, read back equal.
#[test]
fn nulls_of_a_required_leaf_under_null_struct_slots() {
    let fields = Fields::from(vec![
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Utf8, true),
    ]);
    let a: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None, Some(3), None]));
    let b: ArrayRef = Arc::new(StringArray::from(vec![None, Some("x"), Some("y"), None]));
    let strukt = StructArray::try_new(
        fields.clone(),
        vec![a, b],
        Some(NullBuffer::from(vec![true, false, true, false])),
    )
    .unwrap();
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new(
            "s",
            DataType::Struct(fields),
            true,
        )])),
        vec![Arc::new(strukt)],
    )
    .unwrap();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let read = read_herringbone(&out);
    assert_eq!(read_arrow_rs(&out), read);
    let s = read
        .column(0)
        .as_any()
        .downcast_ref::<StructArray>()
        .unwrap();
    assert_eq!(
        s.nulls().map(|n| n.iter().collect::<Vec<_>>()),
        Some(vec![true, false, true, false])
    );
    let a = s.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
    assert_eq!((a.value(0), a.value(2)), (1, 3));
    let b = s.column(1).as_any().downcast_ref::<StringArray>().unwrap();
    assert!(b.is_null(0));
    assert_eq!(b.value(2), "y");
}

/// Struct-of-leaves levels read from the validity bitmaps 64 slots at a time: a struct
/// sliced at an offset that is not a multiple of 8 (bitmaps read unaligned, lengths
/// ending mid-word), with nulls in a nullable child both under valid and null struct
/// slots, read back equal.
#[test]
fn struct_levels_from_unaligned_bitmaps() {
    let n = 1000;
    let fields = Fields::from(vec![
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Int32, true),
        Field::new("c", DataType::Float32, true),
    ]);
    let a: ArrayRef = Arc::new(Int64Array::from_iter_values((0..n).map(|i| i as i64 * 7)));
    let b: ArrayRef = Arc::new(Int32Array::from(
        (0..n)
            .map(|i| (i % 3 != 0).then_some(i as i32))
            .collect::<Vec<_>>(),
    ));
    let c: ArrayRef = Arc::new(Float32Array::from_iter_values((0..n).map(|i| i as f32)));
    let struct_nulls = NullBuffer::from((0..n).map(|i| i % 7 != 1).collect::<Vec<_>>());
    let strukt = StructArray::new(fields.clone(), vec![a, b, c], Some(struct_nulls));
    let schema = Arc::new(Schema::new(vec![Field::new(
        "s",
        DataType::Struct(fields.clone()),
        true,
    )]));
    for (offset, len) in [(3, 200), (61, 64), (5, 1), (0, n), (130, 777)] {
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(strukt.slice(offset, len))])
            .unwrap();
        let props = WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_statistics(StatisticsLevel::Page)
            .build();
        let file = write(&batch, props);
        let theirs = read_arrow_rs(&file);
        let ours = read_herringbone(&file);
        assert_eq!(theirs, batch, "offset {offset} len {len}");
        assert_eq!(ours, batch, "offset {offset} len {len}");
        let s = ours.column(0).as_struct();
        let b = s.column(1).as_primitive::<arrow_array::types::Int32Type>();
        for i in 0..len {
            let slot = offset + i;
            assert_eq!(s.is_valid(i), slot % 7 != 1, "slot {slot}");
            if s.is_valid(i) {
                assert_eq!(
                    s.column(0)
                        .as_primitive::<arrow_array::types::Int64Type>()
                        .value(i),
                    slot as i64 * 7
                );
                assert_eq!(b.is_valid(i), slot % 3 != 0, "slot {slot}");
                if b.is_valid(i) {
                    assert_eq!(b.value(i), slot as i32);
                }
            }
        }
    }
}

/// Nested leaves while the dictionary is on keep only indices in the page (no copy of
/// the values) and take the page bounds from the dictionary entries those indices use:
/// a map<utf8, int64> with null maps, empty maps and null values, and a list<double>
/// with NaNs and both zeros, sliced, written with a dictionary limit they outgrow part
/// way (pages before it RLE_DICTIONARY, after it PLAIN) and with one they never reach.
/// Read back equal; every page's bounds equal those of the rows it covers.
#[test]
fn nested_leaves_through_the_dictionary_with_page_bounds() {
    use arrow_array::builder::{Float64Builder, MapBuilder};
    use parquet::file::page_index::column_index::ColumnIndexMetaData as Index;

    let rows = 4000;
    let keys: Vec<String> = (0..40).map(|i| format!("key_{i:02}")).collect();
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
    let mut doubles = ListBuilder::new(Float64Builder::new());
    let specials = [f64::NAN, -0.0, 0.0, f64::from_bits(0x7ff8_0000_0000_0007)];
    for row in 0..rows + 13 {
        if row % 17 == 3 {
            map.append(false).unwrap();
            doubles.append_null();
            continue;
        }
        for j in 0..row % 5 {
            let k = row * 5 + j;
            map.keys().append_value(&keys[(k * 7) % 40]);
            // Many distinct values (the dictionary limit is outgrown) and nulls.
            map.values()
                .append_option((k % 6 != 2).then_some((k as i64 * 7919) % 100_003 - 50_000));
            doubles.values().append_value(if k % 9 == 4 {
                specials[(k / 9) % 4]
            } else {
                ((k % 300) as f64 - 150.0) / 8.0
            });
        }
        map.append(true).unwrap();
        doubles.append(true);
    }
    let map = map.finish().slice(13, rows);
    let doubles = doubles.finish().slice(13, rows);
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(vec![
            Field::new("m", map.data_type().clone(), true),
            Field::new("d", doubles.data_type().clone(), true),
        ])),
        vec![Arc::new(map.clone()), Arc::new(doubles.clone())],
    )
    .unwrap();

    // Leaf values per row: (keys, values, doubles) of each row, for the page bounds.
    let row_keys = |r: usize| -> Vec<String> {
        if map.is_null(r) {
            return Vec::new();
        }
        let entries = map.value(r);
        entries
            .column(0)
            .as_string::<i32>()
            .iter()
            .map(|k| k.unwrap().to_string())
            .collect()
    };
    let row_values = |r: usize| -> Vec<i64> {
        if map.is_null(r) {
            return Vec::new();
        }
        let entries = map.value(r);
        entries
            .column(1)
            .as_primitive::<arrow_array::types::Int64Type>()
            .iter()
            .flatten()
            .collect()
    };
    let row_doubles = |r: usize| -> Vec<f64> {
        if doubles.is_null(r) {
            return Vec::new();
        }
        let list = doubles.value(r);
        list.as_primitive::<arrow_array::types::Float64Type>()
            .values()
            .to_vec()
    };

    for limit in [1 << 20, 3000] {
        let props = WriterProperties::builder()
            .set_dictionary_enabled(true)
            .set_dictionary_page_size_limit(limit)
            .set_data_page_row_limit(300)
            .set_statistics(StatisticsLevel::Page)
            .set_statistics_truncate_length(None)
            .build();
        let file = write(&batch, props);
        assert_eq!(read_arrow_rs(&file), batch, "limit {limit}");
        assert_eq!(read_herringbone(&file), batch, "limit {limit}");

        let options = ReadOptionsBuilder::new().with_page_index().build();
        let reader =
            SerializedFileReader::new_with_options(Bytes::copy_from_slice(&file), options).unwrap();
        let meta = reader.metadata();
        let values_encodings: Vec<_> = meta.row_group(0).column(1).encodings().collect();
        assert!(values_encodings.contains(&parquet::basic::Encoding::RLE_DICTIONARY));
        if limit == 3000 {
            assert!(values_encodings.contains(&parquet::basic::Encoding::PLAIN));
        }
        let column_index = meta.column_index().expect("column index");
        let offset_index = meta.offset_index().expect("offset index");
        for c in 0..3 {
            let locations = offset_index[0][c].page_locations();
            assert!(locations.len() >= rows / 300, "column {c}");
            for (p, loc) in locations.iter().enumerate() {
                let first = loc.first_row_index as usize;
                let last = locations
                    .get(p + 1)
                    .map_or(rows, |next| next.first_row_index as usize);
                match (&column_index[0][c], c) {
                    (Index::BYTE_ARRAY(index), 0) => {
                        let page: Vec<String> = (first..last).flat_map(row_keys).collect();
                        let min = page.iter().min().map(String::as_bytes);
                        let max = page.iter().max().map(String::as_bytes);
                        assert_eq!(index.min_value(p), min, "keys page {p}");
                        assert_eq!(index.max_value(p), max, "keys page {p}");
                    }
                    (Index::INT64(index), 1) => {
                        let page: Vec<i64> = (first..last).flat_map(row_values).collect();
                        assert_eq!(index.min_value(p), page.iter().min(), "values page {p}");
                        assert_eq!(index.max_value(p), page.iter().max(), "values page {p}");
                    }
                    (Index::DOUBLE(index), 2) => {
                        let page: Vec<f64> = (first..last)
                            .flat_map(row_doubles)
                            .filter(|v| !v.is_nan())
                            .collect();
                        let min = page.iter().copied().reduce(f64::min);
                        let max = page.iter().copied().reduce(f64::max);
                        // A zero bound is written as -0.0 (min) and +0.0 (max).
                        let min = min.map(|v| if v == 0.0 { -0.0 } else { v });
                        let max = max.map(|v| if v == 0.0 { 0.0 } else { v });
                        assert_eq!(
                            index.min_value(p).map(|v| v.to_bits()),
                            min.map(f64::to_bits),
                            "doubles page {p}"
                        );
                        assert_eq!(
                            index.max_value(p).map(|v| v.to_bits()),
                            max.map(f64::to_bits),
                            "doubles page {p}"
                        );
                    }
                    _ => panic!("column {c}: unexpected index type"),
                }
            }
        }
    }
}

/// Lists of nullable leaves are written run by run (consecutive valid, non-empty lists
/// as one block of elements, levels from the validity bitmap 64 at a time): lists of 0
/// to 150 elements (runs across bitmap words), null lists that still cover elements in
/// the values (which are skipped), null elements in every position, a list<struct> of
/// two leaves, offsets not starting at 0 and a slice at an odd offset; List and
/// LargeList. Read back equal by arrow-rs and Herringbone.
#[test]
fn lists_of_nullable_leaves_in_runs() {
    let n_lists = 900;
    let mut offsets = vec![5i32];
    let mut valid = Vec::new();
    for i in 0..n_lists {
        let len = match i % 13 {
            0 => 0,
            1 => 150,
            2 => 64,
            3 => 63,
            _ => (i * 7) % 9,
        };
        // A null list still covers `len` elements here: they must not be written.
        valid.push(i % 11 != 6);
        offsets.push(offsets.last().unwrap() + len as i32);
    }
    let total = *offsets.last().unwrap() as usize;
    let values = Int64Array::from(
        (0..total)
            .map(|k| (k % 5 != 3 && k % 67 != 0).then_some(k as i64 * 3 - 1000))
            .collect::<Vec<_>>(),
    );
    let names = StringArray::from((0..total).map(text).collect::<Vec<_>>());
    let list = ListArray::new(
        Arc::new(Field::new("item", DataType::Int64, true)),
        arrow_buffer::OffsetBuffer::new(offsets.clone().into()),
        Arc::new(values.clone()),
        Some(NullBuffer::from(valid.clone())),
    );
    let large = arrow_cast::cast(
        &list,
        &DataType::LargeList(Arc::new(Field::new("item", DataType::Int64, true))),
    )
    .unwrap();
    let fields = Fields::from(vec![
        Field::new("v", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
    ]);
    let strukt = StructArray::new(
        fields.clone(),
        vec![Arc::new(values), Arc::new(names)],
        None,
    );
    let list_of_struct = ListArray::new(
        Arc::new(Field::new("item", DataType::Struct(fields), false)),
        arrow_buffer::OffsetBuffer::new(offsets.into()),
        Arc::new(strukt),
        Some(NullBuffer::from(valid)),
    );
    let whole = RecordBatch::try_new(
        Arc::new(Schema::new(vec![
            Field::new("l", list.data_type().clone(), true),
            Field::new("ll", large.data_type().clone(), true),
            Field::new("ls", list_of_struct.data_type().clone(), true),
        ])),
        vec![Arc::new(list), large, Arc::new(list_of_struct)],
    )
    .unwrap();
    for batch in [whole.clone(), whole.slice(3, n_lists - 10)] {
        for dictionary in [false, true] {
            let props = WriterProperties::builder()
                .set_dictionary_enabled(dictionary)
                .set_data_page_row_limit(97)
                .set_statistics(StatisticsLevel::Page)
                .build();
            let file = write(&batch, props);
            assert_eq!(read_arrow_rs(&file), batch, "dictionary {dictionary}");
            assert_eq!(read_herringbone(&file), batch, "dictionary {dictionary}");
        }
    }
}

/// Nullable numbers are gathered a 64-slot validity word at a time (full words copied
/// whole, empty words skipped, mixed words a value per set bit): scattered nulls, runs
/// of valid and of null slots longer than a word, NaN and both zeros among the floats;
/// Int32/Int64/Float32/Float64, sliced at an odd offset, with and without the
/// dictionary. Read back equal by arrow-rs and Herringbone (floats compared by bits
/// through the batches' equality).
#[test]
fn nullable_numbers_gathered_by_validity_words() {
    let n = 5000;
    let valid = |i: usize| match (i / 200) % 4 {
        0 => true,                          // long valid runs (full words)
        1 => false,                         // long null runs (empty words)
        2 => !(i * 7919).is_multiple_of(3), // scattered
        _ => i.is_multiple_of(2),
    };
    let specials = [f64::NAN, -0.0, 0.0, 1.5];
    let i32s = Int32Array::from(
        (0..n)
            .map(|i| valid(i).then_some((i as i32 * 37) % 1001 - 500))
            .collect::<Vec<_>>(),
    );
    let i64s = Int64Array::from(
        (0..n)
            .map(|i| valid(i).then_some((i as i64) << 33))
            .collect::<Vec<_>>(),
    );
    let f32s = Float32Array::from(
        (0..n)
            .map(|i| valid(i).then_some(specials[i % 4] as f32 * (i % 7) as f32))
            .collect::<Vec<_>>(),
    );
    let f64s = Float64Array::from(
        (0..n)
            .map(|i| valid(i).then_some(specials[i % 4] + (i % 5) as f64))
            .collect::<Vec<_>>(),
    );
    let whole = RecordBatch::try_new(
        Arc::new(Schema::new(vec![
            Field::new("i32", DataType::Int32, true),
            Field::new("i64", DataType::Int64, true),
            Field::new("f32", DataType::Float32, true),
            Field::new("f64", DataType::Float64, true),
        ])),
        vec![
            Arc::new(i32s),
            Arc::new(i64s),
            Arc::new(f32s),
            Arc::new(f64s),
        ],
    )
    .unwrap();
    for batch in [whole.clone(), whole.slice(37, n - 100)] {
        for dictionary in [false, true] {
            let props = WriterProperties::builder()
                .set_dictionary_enabled(dictionary)
                .set_data_page_row_limit(PAGE_ROWS)
                .set_statistics(StatisticsLevel::Page)
                .build();
            let file = write(&batch, props);
            assert_eq!(read_arrow_rs(&file), batch, "dictionary {dictionary}");
            assert_eq!(read_herringbone(&file), batch, "dictionary {dictionary}");
        }
    }
}
