//! Writer types added late (Interval(MonthDayNano) as INTERVAL, `geoarrow.wkb` as
//! GEOMETRY / GEOGRAPHY) and the Bloom filter position (after each row group or at the
//! end of the file): footer types, statistics and values read back by Herringbone and
//! arrow-rs.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::types::IntervalMonthDayNano;
use arrow_array::*;
use arrow_schema::{DataType, Field, IntervalUnit, Schema};
use bytes::Bytes;
use herringbone_arrow_bridge::write::{
    ArrowWriter, BloomFilterPosition, StatisticsLevel, WriterProperties,
};
use herringbone_format::metadata::{
    ConvertedType, EdgeInterpolationAlgorithm, FileMetaData, LogicalType,
};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::file::properties::ReaderProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::serialized_reader::ReadOptionsBuilder;

fn write(batch: &RecordBatch, props: WriterProperties) -> (Vec<u8>, FileMetaData) {
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    writer.write(batch).unwrap();
    let meta = writer.close().unwrap();
    (out, meta)
}

fn read_herringbone(file: &[u8]) -> RecordBatch {
    let batches = read_herringbone_batches(file);
    assert_eq!(batches.len(), 1, "one row group expected");
    batches.into_iter().next().unwrap()
}

/// Herringbone's batches (one per row group at most).
fn read_herringbone_batches(file: &[u8]) -> Vec<RecordBatch> {
    herringbone_arrow_bridge::ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(file))
        .unwrap()
        .with_batch_size(1 << 20)
        .with_verify_crc(true)
        .build()
        .unwrap()
        .map(|b| b.unwrap())
        .collect()
}

fn read_arrow_rs(file: &[u8]) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::copy_from_slice(file))
        .unwrap()
        .with_batch_size(1 << 20)
        .build()
        .unwrap();
    let schema = reader.schema();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    arrow_select_concat(&schema, &batches)
}

/// The batches as one (they are small; one batch is expected, several are allowed).
fn arrow_select_concat(schema: &arrow_schema::SchemaRef, batches: &[RecordBatch]) -> RecordBatch {
    match batches {
        [] => RecordBatch::new_empty(schema.clone()),
        [one] => one.clone(),
        _ => panic!("expected one batch, got {}", batches.len()),
    }
}

fn interval(months: i32, days: i32, millis: i64) -> IntervalMonthDayNano {
    IntervalMonthDayNano::new(months, days, millis * 1_000_000)
}

fn interval_batch() -> RecordBatch {
    let values = IntervalMonthDayNanoArray::from(vec![
        Some(interval(1, 2, 3)),
        None,
        Some(interval(0, 0, 0)),
        Some(interval(14, 31, 86_399_999)),
        Some(interval(i32::MAX, i32::MAX, i64::from(u32::MAX))),
    ]);
    let schema = Schema::new(vec![Field::new(
        "iv",
        DataType::Interval(IntervalUnit::MonthDayNano),
        true,
    )]);
    RecordBatch::try_new(Arc::new(schema), vec![Arc::new(values)]).unwrap()
}

#[test]
fn interval_month_day_nano_is_written_as_interval_without_min_max() {
    let batch = interval_batch();
    let props = WriterProperties::builder()
        .set_statistics(StatisticsLevel::Page)
        .build();
    let (file, meta) = write(&batch, props);
    let leaf = &meta.schema[1];
    assert_eq!(leaf.type_length, Some(12));
    assert_eq!(leaf.converted_type, Some(ConvertedType::INTERVAL));
    let chunk = meta.row_groups[0].columns[0].meta_data.as_ref().unwrap();
    let stats = chunk
        .statistics
        .as_ref()
        .expect("null count is still written");
    assert_eq!(stats.null_count, Some(1));
    assert!(stats.min_value.is_none() && stats.max_value.is_none());
    assert!(stats.min.is_none() && stats.max.is_none());

    // Herringbone reads INTERVAL back as MonthDayNano: the same values.
    let read = read_herringbone(&file);
    assert_eq!(read.column(0).as_ref(), batch.column(0).as_ref());

    // arrow-rs sees the same 12 bytes (it maps INTERVAL to its own interval types; compare
    // the raw layout through Herringbone's FixedSizeBinary option instead of guessing).
    let raw = herringbone_arrow_bridge::ParquetRecordBatchReaderBuilder::try_new(
        Bytes::copy_from_slice(&file),
    )
    .unwrap()
    .with_schema_options(
        herringbone_arrow_bridge::schema::SchemaOptions::default().with_interval(
            herringbone_arrow_bridge::schema::IntervalRepresentation::FixedSizeBinary,
        ),
    )
    .build()
    .unwrap()
    .next()
    .unwrap()
    .unwrap();
    let raw = raw
        .column(0)
        .as_any()
        .downcast_ref::<FixedSizeBinaryArray>()
        .unwrap();
    let mut expected = Vec::new();
    expected.extend_from_slice(&14u32.to_le_bytes());
    expected.extend_from_slice(&31u32.to_le_bytes());
    expected.extend_from_slice(&86_399_999u32.to_le_bytes());
    assert_eq!(raw.value(3), expected.as_slice());
    assert!(raw.is_null(1));

    // arrow-rs cannot read MonthDayNano ("NYI") from the ARROW:schema hint: without the
    // hint it reads every row of the INTERVAL column and the nulls line up.
    let reader = ParquetRecordBatchReaderBuilder::try_new_with_options(
        Bytes::copy_from_slice(&file),
        ArrowReaderOptions::new().with_skip_arrow_metadata(true),
    )
    .unwrap()
    .build()
    .unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    let arrow_rs = arrow_select_concat(&batches[0].schema(), &batches);
    assert_eq!(arrow_rs.num_rows(), 5);
    assert_eq!(arrow_rs.column(0).null_count(), 1);
    assert!(arrow_rs.column(0).is_null(1));
}

#[test]
fn interval_month_day_nano_with_sub_millisecond_nanos_is_refused_naming_the_column() {
    for bad in [
        IntervalMonthDayNano::new(1, 1, 1_500_000),
        IntervalMonthDayNano::new(1, 1, (i64::from(u32::MAX) + 1) * 1_000_000),
        IntervalMonthDayNano::new(-1, 0, 0),
    ] {
        let values = IntervalMonthDayNanoArray::from(vec![Some(interval(1, 1, 1)), Some(bad)]);
        let schema = Schema::new(vec![Field::new(
            "span",
            DataType::Interval(IntervalUnit::MonthDayNano),
            true,
        )]);
        let batch = RecordBatch::try_new(Arc::new(schema), vec![Arc::new(values)]).unwrap();
        let mut out = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
        let err = writer.write(&batch).unwrap_err().to_string();
        assert!(err.contains("span"), "{err}");
        assert!(err.contains("INTERVAL"), "{err}");
    }
}

/// WKB points: little-endian, type 1, x, y.
fn wkb_point(x: f64, y: f64) -> Vec<u8> {
    let mut out = vec![1u8];
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&x.to_le_bytes());
    out.extend_from_slice(&y.to_le_bytes());
    out
}

fn geo_field(name: &str, data_type: DataType, metadata: Option<&str>) -> Field {
    let mut m = HashMap::from([(
        "ARROW:extension:name".to_string(),
        "geoarrow.wkb".to_string(),
    )]);
    if let Some(json) = metadata {
        m.insert("ARROW:extension:metadata".to_string(), json.to_string());
    }
    Field::new(name, data_type, true).with_metadata(m)
}

#[test]
fn geoarrow_wkb_is_written_as_geometry_or_geography_and_read_back_with_the_extension() {
    let points: Vec<Option<Vec<u8>>> = vec![
        Some(wkb_point(1.0, 2.0)),
        None,
        Some(wkb_point(-180.0, 90.0)),
    ];
    let refs: Vec<Option<&[u8]>> = points.iter().map(|p| p.as_deref()).collect();
    let schema = Schema::new(vec![
        geo_field("plain", DataType::Binary, None),
        geo_field(
            "srid",
            DataType::LargeBinary,
            Some(r#"{"crs":"4326","crs_type":"srid"}"#),
        ),
        geo_field(
            "sphere",
            DataType::BinaryView,
            Some(r#"{"crs":"OGC:CRS84","edges":"spherical"}"#),
        ),
        geo_field("karney", DataType::Binary, Some(r#"{"edges":"karney"}"#)),
        Field::new("bytes", DataType::Binary, true),
    ]);
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(BinaryArray::from(refs.clone())),
            Arc::new(LargeBinaryArray::from(refs.clone())),
            Arc::new(BinaryViewArray::from(refs.clone())),
            Arc::new(BinaryArray::from(refs.clone())),
            Arc::new(BinaryArray::from(refs.clone())),
        ],
    )
    .unwrap();
    let (file, meta) = write(&batch, WriterProperties::new());
    let logical: Vec<_> = meta.schema[1..]
        .iter()
        .map(|e| e.logical_type.clone())
        .collect();
    assert_eq!(
        logical,
        vec![
            Some(LogicalType::Geometry { crs: None }),
            Some(LogicalType::Geometry {
                crs: Some("srid:4326".into())
            }),
            Some(LogicalType::Geography {
                crs: None,
                algorithm: Some(EdgeInterpolationAlgorithm::SPHERICAL)
            }),
            Some(LogicalType::Geography {
                crs: None,
                algorithm: Some(EdgeInterpolationAlgorithm::KARNEY)
            }),
            None,
        ]
    );
    // No min/max on WKB (the spec defines no order); plain binary keeps them.
    for (c, column) in meta.row_groups[0].columns.iter().enumerate() {
        let stats = column
            .meta_data
            .as_ref()
            .unwrap()
            .statistics
            .as_ref()
            .unwrap();
        assert_eq!(stats.null_count, Some(1));
        assert_eq!(stats.max_value.is_some(), c == 4, "column {c}");
    }

    // Herringbone reads the values and the extension back.
    let read = read_herringbone(&file);
    let fields = read.schema().fields().clone();
    let ext = |c: usize| {
        (
            fields[c]
                .metadata()
                .get("ARROW:extension:name")
                .cloned()
                .unwrap_or_default(),
            fields[c]
                .metadata()
                .get("ARROW:extension:metadata")
                .cloned()
                .unwrap_or_default(),
        )
    };
    assert_eq!(
        ext(0),
        ("geoarrow.wkb".into(), r#"{"crs":"OGC:CRS84"}"#.into())
    );
    assert_eq!(ext(1).1, r#"{"crs":"4326","crs_type":"srid"}"#);
    assert_eq!(ext(2).1, r#"{"crs":"OGC:CRS84","edges":"spherical"}"#);
    assert_eq!(ext(3).1, r#"{"crs":"OGC:CRS84","edges":"karney"}"#);
    assert!(fields[4].metadata().is_empty());
    for c in 0..5 {
        let values = arrow_cast::cast(read.column(c), &DataType::Binary).unwrap();
        assert_eq!(
            values.as_ref(),
            &BinaryArray::from(refs.clone()) as &dyn Array
        );
    }

    // arrow-rs reads the same bytes.
    let arrow_rs = read_arrow_rs(&file);
    for c in 0..5 {
        let values = arrow_cast::cast(arrow_rs.column(c), &DataType::Binary).unwrap();
        assert_eq!(
            values.as_ref(),
            &BinaryArray::from(refs.clone()) as &dyn Array
        );
    }
}

#[test]
fn geoarrow_metadata_that_is_not_json_or_has_unknown_edges_is_an_error() {
    for bad in ["not json", "[1]", r#"{"edges":"wobbly"}"#] {
        let schema = Arc::new(Schema::new(vec![geo_field(
            "shape",
            DataType::Binary,
            Some(bad),
        )]));
        let err = ArrowWriter::try_new(Vec::new(), schema, None).unwrap_err();
        assert!(err.to_string().contains("shape"), "{err}");
    }
}

const ROWS: usize = 3000;
const GROUP: usize = 1000;

fn bloom_batch() -> RecordBatch {
    let ints = Int64Array::from_iter((0..ROWS).map(|i| (i % 7 != 3).then_some(i as i64 * 3)));
    let strings = StringArray::from_iter_values((0..ROWS).map(|i| format!("key-{i}")));
    let plain = Int32Array::from_iter_values((0..ROWS).map(|i| i as i32));
    let schema = Schema::new(vec![
        Field::new("i", DataType::Int64, true),
        Field::new("s", DataType::Utf8, false),
        Field::new("p", DataType::Int32, false),
    ]);
    RecordBatch::try_new(
        Arc::new(schema),
        vec![Arc::new(ints), Arc::new(strings), Arc::new(plain)],
    )
    .unwrap()
}

fn check_bloom_file(file: Vec<u8>, meta: &FileMetaData, at_end: bool) {
    // Where the filters are: after each group's chunks, or all after the last chunk.
    let last_chunk_end = meta
        .row_groups
        .iter()
        .flat_map(|g| &g.columns)
        .filter_map(|c| c.meta_data.as_ref())
        .map(|m| m.dictionary_page_offset.unwrap_or(m.data_page_offset) + m.total_compressed_size)
        .max()
        .unwrap();
    for (g, group) in meta.row_groups.iter().enumerate() {
        let group_end = group
            .columns
            .iter()
            .filter_map(|c| c.meta_data.as_ref())
            .map(|m| {
                m.dictionary_page_offset.unwrap_or(m.data_page_offset) + m.total_compressed_size
            })
            .max()
            .unwrap();
        for c in 0..2 {
            let m = group.columns[c].meta_data.as_ref().unwrap();
            let offset = m.bloom_filter_offset.expect("filter offset");
            assert!(m.bloom_filter_length.unwrap() > 0);
            if at_end {
                assert!(offset >= last_chunk_end, "group {g} column {c}");
            } else {
                assert!(offset >= group_end, "group {g} column {c}");
                if let Some(next) = meta.row_groups.get(g + 1) {
                    assert!(offset < next.file_offset.unwrap(), "group {g} column {c}");
                }
            }
        }
        assert!(
            group.columns[2]
                .meta_data
                .as_ref()
                .unwrap()
                .bloom_filter_offset
                .is_none()
        );
    }

    let options = ReadOptionsBuilder::new()
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    let reader =
        SerializedFileReader::new_with_options(Bytes::from(file.clone()), options).unwrap();
    assert_eq!(reader.num_row_groups(), ROWS / GROUP);
    for g in 0..reader.num_row_groups() {
        let rg = reader.get_row_group(g).unwrap();
        let bloom_i = rg.get_column_bloom_filter(0).expect("i filter");
        let bloom_s = rg.get_column_bloom_filter(1).expect("s filter");
        for i in g * GROUP..(g + 1) * GROUP {
            if i % 7 != 3 {
                assert!(bloom_i.check(&(i as i64 * 3)), "row {i}");
            }
            assert!(bloom_s.check(&format!("key-{i}").as_str()), "row {i}");
        }
        let false_hits = (0..1000)
            .filter(|k| bloom_s.check(&format!("absent-{k}").as_str()))
            .count();
        assert!(false_hits < 50, "{false_hits} false positives");
        assert!(rg.get_column_bloom_filter(2).is_none());
    }
    // The values are unchanged, for both readers.
    let expected = bloom_batch();
    assert_eq!(read_arrow_rs(&file), expected);
    let mut offset = 0;
    for batch in read_herringbone_batches(&file) {
        assert_eq!(batch, expected.slice(offset, batch.num_rows()));
        offset += batch.num_rows();
    }
    assert_eq!(offset, ROWS);
}

#[test]
fn bloom_filters_after_each_row_group_and_at_the_end_are_found() {
    for (position, at_end) in [
        (BloomFilterPosition::AfterRowGroup, false),
        (BloomFilterPosition::End, true),
    ] {
        let props = WriterProperties::builder()
            .set_max_row_group_rows(GROUP)
            .set_bloom_filter("i", 0.01, 1000)
            .set_bloom_filter("s", 0.01, 1000)
            .set_bloom_filter_position(position)
            .build();
        assert_eq!(props.bloom_filter_position(), position);
        let (file, meta) = write(&bloom_batch(), props);
        check_bloom_file(file, &meta, at_end);
    }
    assert_eq!(
        WriterProperties::new().bloom_filter_position(),
        BloomFilterPosition::AfterRowGroup
    );
}
