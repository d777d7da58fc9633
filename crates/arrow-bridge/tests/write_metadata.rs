//! Statistics, page index, size statistics, Bloom filters and footer metadata written by
//! Herringbone, read by arrow-rs and checked against the data.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::*;
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use herringbone_arrow_bridge::write::{
    ArrowWriter, DataPageVersion, StatisticsLevel, WriterProperties,
};
use herringbone_format::metadata::KeyValue;
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::properties::ReaderProperties;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
use parquet::file::statistics::Statistics;

const ROWS: usize = 1000;
const GROUP: usize = 600;

fn string_value(i: usize) -> String {
    // Long values: min/max are truncated to 64 bytes.
    format!("{}{:05}", "x".repeat(80), (i * 7919) % 1000)
}

fn batch() -> RecordBatch {
    let ints: Int32Array = (0..ROWS)
        .map(|i| (i % 7 != 3).then_some(i as i32))
        .collect();
    let uints: UInt32Array = (0..ROWS)
        .map(|i| {
            Some(if i % 10 == 0 {
                u32::MAX - i as u32
            } else {
                i as u32 + 1
            })
        })
        .collect();
    let floats: Float64Array = (0..ROWS)
        .map(|i| Some([f64::NAN, 0.0, -0.0, 1.5, -2.0][i % 5]))
        .collect();
    let zeros: Float32Array = (0..ROWS)
        .map(|i| Some([0.0f32, f32::NAN, -0.0][i % 3]))
        .collect();
    let strings: StringArray = (0..ROWS)
        .map(|i| (i % 11 != 0).then(|| string_value(i)))
        .collect();
    let schema = Schema::new(vec![
        Field::new("i", DataType::Int32, true).with_metadata(HashMap::from([(
            "PARQUET:field_id".to_string(),
            "7".to_string(),
        )])),
        Field::new("u", DataType::UInt32, false),
        Field::new("f", DataType::Float64, false),
        Field::new("z", DataType::Float32, false),
        Field::new("s", DataType::Utf8, true),
    ]);
    RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(ints),
            Arc::new(uints),
            Arc::new(floats),
            Arc::new(zeros),
            Arc::new(strings),
        ],
    )
    .unwrap()
}

fn write(batch: &RecordBatch, version: DataPageVersion) -> Vec<u8> {
    let props = WriterProperties::builder()
        .set_data_page_version(version)
        .set_data_page_row_limit(100)
        .set_max_row_group_rows(GROUP)
        .set_statistics(StatisticsLevel::Page)
        .set_bloom_filter("s", 0.01, 1000)
        .set_bloom_filter("i", 0.01, 1000)
        .set_key_value_metadata(vec![KeyValue {
            key: "origin".into(),
            value: Some("test".into()),
        }])
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    // Several batches of odd sizes.
    let mut offset = 0;
    for len in [1, 250, 333, 416] {
        writer.write(&batch.slice(offset, len)).unwrap();
        offset += len;
    }
    assert_eq!(offset, ROWS);
    let meta = writer.close().unwrap();
    assert_eq!(meta.num_rows, ROWS as i64);
    out
}

fn open(file: Vec<u8>) -> SerializedFileReader<Bytes> {
    let options = ReadOptionsBuilder::new()
        .with_page_index()
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    SerializedFileReader::new_with_options(Bytes::from(file), options).unwrap()
}

#[test]
fn statistics_page_index_and_bloom_filters_agree_with_the_data() {
    let batch = batch();
    let ints = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int32Array>()
        .unwrap();
    let uints = batch
        .column(1)
        .as_any()
        .downcast_ref::<UInt32Array>()
        .unwrap();
    let strings = batch
        .column(4)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    for version in [DataPageVersion::V1, DataPageVersion::V2] {
        let reader = open(write(&batch, version));
        let meta = reader.metadata();
        let file_meta = meta.file_metadata();
        assert!(
            file_meta
                .created_by()
                .unwrap()
                .starts_with("herringbone version ")
        );
        let kv = file_meta.key_value_metadata().unwrap();
        assert!(
            kv.iter()
                .any(|kv| kv.key == "origin" && kv.value.as_deref() == Some("test"))
        );
        assert!(kv.iter().any(|kv| kv.key == "ARROW:schema"));
        assert_eq!(
            file_meta
                .schema_descr()
                .column(0)
                .self_type()
                .get_basic_info()
                .id(),
            7
        );
        assert_eq!(meta.num_row_groups(), 2);
        let column_index = meta.column_index().expect("column index");
        let offset_index = meta.offset_index().expect("offset index");
        for g in 0..2 {
            let rg = meta.row_group(g);
            let start = g * GROUP;
            let end = (start + GROUP).min(ROWS);
            assert_eq!(rg.num_rows() as usize, end - start);

            // i: signed, nulls.
            let present: Vec<i32> = (start..end)
                .filter(|&i| ints.is_valid(i))
                .map(|i| ints.value(i))
                .collect();
            let Some(Statistics::Int32(s)) = rg.column(0).statistics() else {
                panic!("i stats")
            };
            assert_eq!(s.min_opt(), present.iter().min());
            assert_eq!(s.max_opt(), present.iter().max());
            assert_eq!(
                s.null_count_opt(),
                Some((end - start - present.len()) as u64)
            );

            // u: unsigned order.
            let Some(Statistics::Int32(s)) = rg.column(1).statistics() else {
                panic!("u stats")
            };
            let values: Vec<u32> = (start..end).map(|i| uints.value(i)).collect();
            assert_eq!(*s.min_opt().unwrap() as u32, *values.iter().min().unwrap());
            assert_eq!(*s.max_opt().unwrap() as u32, *values.iter().max().unwrap());

            // f: NaN excluded.
            let Some(Statistics::Double(s)) = rg.column(2).statistics() else {
                panic!("f stats")
            };
            assert_eq!(s.min_opt(), Some(&-2.0));
            assert_eq!(s.max_opt(), Some(&1.5));
            // z: only zeros and NaN: min is -0.0, max is +0.0.
            let Some(Statistics::Float(s)) = rg.column(3).statistics() else {
                panic!("z stats")
            };
            assert!(s.min_opt().unwrap().is_sign_negative() && *s.min_opt().unwrap() == 0.0);
            assert!(s.max_opt().unwrap().is_sign_positive() && *s.max_opt().unwrap() == 0.0);

            // s: truncated bounds that still bound the data.
            let present: Vec<&[u8]> = (start..end)
                .filter(|&i| strings.is_valid(i))
                .map(|i| strings.value(i).as_bytes())
                .collect();
            let Some(Statistics::ByteArray(s)) = rg.column(4).statistics() else {
                panic!("s stats")
            };
            let (min, max) = (s.min_bytes_opt().unwrap(), s.max_bytes_opt().unwrap());
            assert!(min.len() <= 64 && max.len() <= 64);
            assert!(!s.max_is_exact());
            assert!(present.iter().all(|v| min <= *v && *v <= max));
            assert!(std::str::from_utf8(max).is_ok());
            // Size statistics: unencoded bytes of the strings.
            let total: usize = present.iter().map(|v| v.len()).sum();
            assert_eq!(
                rg.column(4).unencoded_byte_array_data_bytes(),
                Some(total as i64)
            );

            // Page index of i: per-page bounds from the rows each page covers.
            let locations = offset_index[g][0].page_locations();
            assert!(locations.len() >= (end - start) / 100);
            assert_eq!(locations[0].first_row_index, 0);
            let ColumnIndexMetaData::INT32(index) = &column_index[g][0] else {
                panic!("i index")
            };
            assert_eq!(index.num_pages() as usize, locations.len());
            for (p, loc) in locations.iter().enumerate() {
                let first = start + loc.first_row_index as usize;
                let last = locations
                    .get(p + 1)
                    .map_or(end, |next| start + next.first_row_index as usize);
                let page: Vec<i32> = (first..last)
                    .filter(|&i| ints.is_valid(i))
                    .map(|i| ints.value(i))
                    .collect();
                assert_eq!(index.min_value(p), page.iter().min());
                assert_eq!(index.max_value(p), page.iter().max());
                assert_eq!(
                    index.null_count(p),
                    Some((last - first - page.len()) as i64)
                );
            }
            assert_eq!(
                column_index[g][0].get_boundary_order(),
                Some(parquet::basic::BoundaryOrder::ASCENDING)
            );

            // Bloom filters: every present value is found; absent ones mostly are not.
            let rg_reader = reader.get_row_group(g).unwrap();
            let bloom_s = rg_reader.get_column_bloom_filter(4).expect("s filter");
            let bloom_i = rg_reader.get_column_bloom_filter(0).expect("i filter");
            assert!(present.iter().all(|v| bloom_s.check(*v)));
            assert!(
                (start..end)
                    .filter(|&i| ints.is_valid(i))
                    .all(|i| bloom_i.check(&ints.value(i)))
            );
            let false_hits = (5000..6000).filter(|v: &i32| bloom_i.check(v)).count();
            assert!(false_hits < 100, "{false_hits} false positives");
            assert!(rg_reader.get_column_bloom_filter(1).is_none());
        }
    }
}

/// Validity with long valid and null runs, alternating stretches and a sparse tail, so
/// that pages and pieces start and end inside runs.
fn flat_validity(n: usize) -> Vec<bool> {
    (0..n)
        .map(|i| match i {
            0..100 => true,
            100..137 => false,
            137..187 => i % 2 == 0,
            187..487 => false,
            487..700 => true,
            _ => i % 7 != 3,
        })
        .collect()
}

/// `read` (batches in file order) holds the rows of `expected`.
fn assert_batches_eq(read: &[RecordBatch], expected: &RecordBatch, page_rows: usize) {
    let mut offset = 0;
    for b in read {
        assert_eq!(
            b,
            &expected.slice(offset, b.num_rows()),
            "page rows {page_rows}"
        );
        offset += b.num_rows();
    }
    assert_eq!(offset, expected.num_rows());
}

/// Top-level optional columns write their definition levels straight from the validity
/// bitmap and copy values run by run: check the page index (null counts, definition
/// level histograms, null pages), the chunk's size statistics and the values read back,
/// for arrays sliced at offsets that are not byte-aligned, over several page sizes.
#[test]
fn flat_columns_levels_from_bitmaps_at_run_and_page_boundaries() {
    let n = 1200;
    let valid = flat_validity(n);
    let ints: Int32Array = (0..n).map(|i| valid[i].then_some(i as i32 - 50)).collect();
    let doubles: Float64Array = (0..n).map(|i| valid[i].then_some(i as f64 / 4.0)).collect();
    let strings: LargeStringArray = (0..n)
        .map(|i| valid[i].then(|| format!("v{}", i % 13)))
        .collect();
    let all_null = Int64Array::from(vec![None::<i64>; n]);
    let no_null = Int64Array::from((0..n as i64).collect::<Vec<_>>());
    let schema = Arc::new(Schema::new(vec![
        Field::new("i", DataType::Int32, true),
        Field::new("d", DataType::Float64, true),
        Field::new("s", DataType::LargeUtf8, true),
        Field::new("z", DataType::Int64, true),
        Field::new("o", DataType::Int64, true),
        Field::new("r", DataType::Int64, false),
    ]));
    let whole = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(ints),
            Arc::new(doubles),
            Arc::new(strings),
            Arc::new(all_null),
            Arc::new(no_null.clone()),
            Arc::new(no_null),
        ],
    )
    .unwrap();
    // Rows 3..1190 in two batches that start at bit offsets 3 and 508.
    let expected = whole.slice(3, 1187);
    let parts = [whole.slice(3, 505), whole.slice(508, 682)];
    for (page_rows, dictionary, version) in [
        (1, false, DataPageVersion::V1),
        (7, true, DataPageVersion::V1),
        (64, false, DataPageVersion::V2),
        (100, true, DataPageVersion::V2),
        (300, false, DataPageVersion::V1),
        (20_000, true, DataPageVersion::V1),
    ] {
        let props = WriterProperties::builder()
            .set_data_page_row_limit(page_rows)
            .set_dictionary_enabled(dictionary)
            .set_data_page_version(version)
            .set_statistics(StatisticsLevel::Page)
            .build();
        let mut file = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut file, schema.clone(), Some(props)).unwrap();
        for part in &parts {
            writer.write(part).unwrap();
        }
        writer.close().unwrap();

        let read: Vec<RecordBatch> =
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(Bytes::from(
                file.clone(),
            ))
            .unwrap()
            .build()
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
        assert_batches_eq(&read, &expected, page_rows);
        let ours: Vec<RecordBatch> =
            herringbone_arrow_bridge::ParquetRecordBatchReaderBuilder::try_new(Bytes::from(
                file.clone(),
            ))
            .unwrap()
            .build()
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
        assert_batches_eq(&ours, &expected, page_rows);

        let reader = open(file);
        let meta = reader.metadata();
        let column_index = meta.column_index().expect("column index");
        let offset_index = meta.offset_index().expect("offset index");
        for c in 0..schema.fields().len() {
            let column = expected.column(c);
            let chunk = meta.row_group(0).column(c);
            let nulls = column.null_count() as i64;
            let present = column.len() as i64 - nulls;
            if c == 5 {
                // Required: no definition levels at all.
                assert!(chunk.definition_level_histogram().is_none());
                continue;
            }
            assert_eq!(
                chunk.definition_level_histogram().unwrap().values(),
                [nulls, present],
                "column {c}, page rows {page_rows}"
            );
            let locations = offset_index[0][c].page_locations();
            let expected_pages = column.len().div_ceil(page_rows.min(column.len()));
            assert!(locations.len() >= expected_pages, "column {c}");
            for (p, loc) in locations.iter().enumerate() {
                let first = loc.first_row_index as usize;
                let last = locations
                    .get(p + 1)
                    .map_or(column.len(), |next| next.first_row_index as usize);
                let page_nulls = (first..last).filter(|&i| column.is_null(i)).count() as i64;
                let page_present = (last - first) as i64 - page_nulls;
                let index = &column_index[0][c];
                assert_eq!(index.null_count(p), Some(page_nulls), "column {c} page {p}");
                assert_eq!(
                    index.definition_level_histogram(p),
                    Some(&[page_nulls, page_present][..]),
                    "column {c} page {p}"
                );
                assert_eq!(index.is_null_page(p), page_present == 0);
            }
        }
    }
}
