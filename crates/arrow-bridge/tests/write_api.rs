//! The writer's API: row group sizing, flush, in-progress size, INT96, options, errors.

use std::sync::Arc;

use arrow_array::*;
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use herringbone_arrow_bridge::ErrorKind;
use herringbone_arrow_bridge::write::{ArrowToParquetOptions, ArrowWriter, WriterProperties};
use herringbone_format::metadata::{SortingColumn, Type};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

fn ints(n: i32) -> RecordBatch {
    let a: ArrayRef = Arc::new(Int32Array::from_iter_values(0..n));
    let s: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..n).map(|i| format!("value {i}")),
    ));
    RecordBatch::try_from_iter([("a", a), ("s", s)]).unwrap()
}

#[test]
fn row_groups_by_rows_and_flush() {
    let batch = ints(1000);
    let props = WriterProperties::builder()
        .set_max_row_group_rows(300)
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    writer.write(&batch.slice(0, 100)).unwrap();
    assert_eq!(writer.in_progress_rows(), 100);
    assert!(writer.in_progress_size() > 0);
    writer.flush().unwrap();
    assert_eq!(writer.in_progress_rows(), 0);
    assert_eq!(writer.in_progress_size(), 0);
    writer.flush().unwrap(); // nothing open: no empty row group
    writer.write(&batch.slice(100, 900)).unwrap();
    let meta = writer.close().unwrap();
    let rows: Vec<i64> = meta.row_groups.iter().map(|g| g.num_rows).collect();
    assert_eq!(rows, vec![100, 300, 300, 300]);
    assert_eq!(meta.num_rows, 1000);
    assert!(out.ends_with(b"PAR1") && out.starts_with(b"PAR1"));
    let read: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(out))
        .unwrap()
        .with_batch_size(2000)
        .build()
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0], batch);
}

#[test]
fn row_groups_by_bytes() {
    let batch = ints(10_000);
    let props = WriterProperties::builder()
        .set_max_row_group_bytes(4096)
        .set_dictionary_enabled(false)
        .set_data_page_size_limit(1024)
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    for i in 0..100 {
        writer.write(&batch.slice(i * 100, 100)).unwrap();
        assert!(writer.in_progress_size() < 4096 + 8192);
    }
    let meta = writer.close().unwrap();
    assert!(
        meta.row_groups.len() > 5,
        "{} row groups",
        meta.row_groups.len()
    );
    assert_eq!(meta.num_rows, 10_000);
}

#[test]
fn int96_timestamps_on_request() {
    let ts: ArrayRef = Arc::new(TimestampNanosecondArray::from(vec![
        Some(0),
        None,
        Some(1_700_000_000_123_456_789),
        Some(-1),
        Some(-86_400_000_000_001),
    ]));
    let batch = RecordBatch::try_from_iter([("ts", ts)]).unwrap();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new_with_options(
        &mut out,
        batch.schema(),
        None,
        ArrowToParquetOptions {
            int96_timestamps: true,
        },
    )
    .unwrap();
    assert_eq!(
        writer
            .parquet_schema()
            .descriptor()
            .column(0)
            .unwrap()
            .physical_type(),
        Type::INT96
    );
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let read: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(out))
        .unwrap()
        .build()
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    assert_eq!(read[0].column(0).as_ref(), batch.column(0).as_ref());
}

#[test]
fn options_reach_the_footer() {
    let batch = ints(10);
    let props = WriterProperties::builder()
        .set_write_arrow_schema(false)
        .set_sorting_columns(Some(vec![SortingColumn {
            column_idx: 0,
            descending: false,
            nulls_first: true,
        }]))
        .set_created_by("custom")
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    let meta = writer.close().unwrap();
    assert!(meta.key_value_metadata.is_none());
    assert_eq!(meta.created_by.as_ref().unwrap().as_str(), "custom");
    assert_eq!(
        meta.row_groups[0].sorting_columns.as_ref().unwrap().len(),
        1
    );
    // Our own footer decoder reads it back identically.
    let decoded = herringbone_format::footer::read_metadata(&Bytes::from(out)).unwrap();
    assert_eq!(decoded, meta);
}

#[test]
fn errors() {
    // No mapping: a union has no Parquet counterpart.
    let schema = Arc::new(Schema::new(vec![Field::new(
        "u",
        DataType::Union(
            arrow_schema::UnionFields::from_fields(vec![Field::new("i", DataType::Int32, true)]),
            arrow_schema::UnionMode::Dense,
        ),
        true,
    )]));
    let err = ArrowWriter::try_new(Vec::new(), schema, None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    // Negative decimal scale.
    let schema = Arc::new(Schema::new(vec![Field::new(
        "d",
        DataType::Decimal128(5, -1),
        true,
    )]));
    assert!(ArrowWriter::try_new(Vec::new(), schema, None).is_err());
    // Batch of another schema.
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
    let mut writer = ArrowWriter::try_new(Vec::new(), schema, None).unwrap();
    let err = writer.write(&ints(3).project(&[0]).unwrap()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    // Bad Bloom filter settings.
    let props = WriterProperties::builder()
        .set_bloom_filter("a", 1.5, 10)
        .build();
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
    assert!(ArrowWriter::try_new(Vec::new(), schema, Some(props)).is_err());
}

/// Columns without nulls whose Arrow type differs from the stored one (Date32 and
/// Time32 on INT32, Date64 and Timestamp on INT64, Float16 on FLBA) take the writer's
/// whole-slice copy path; each must come back as written.
#[test]
fn columns_without_nulls_of_every_int_backed_type_round_trip() {
    let batch = RecordBatch::try_from_iter([
        (
            "date32",
            Arc::new(Date32Array::from(vec![0, -719_162, 19_000, 2_932_896])) as ArrayRef,
        ),
        (
            "date64",
            // Date64 is stored as whole days (DATE), so the values are whole days.
            Arc::new(Date64Array::from(vec![
                0,
                86_400_000,
                -86_400_000,
                19_675 * 86_400_000,
            ])),
        ),
        (
            "time32",
            Arc::new(Time32MillisecondArray::from(vec![
                0, 1, 86_399_999, 43_200_000,
            ])),
        ),
        (
            "ts",
            Arc::new(TimestampMicrosecondArray::from(vec![
                0,
                -1,
                i64::MAX,
                i64::MIN,
            ])),
        ),
        ("u8", Arc::new(UInt8Array::from(vec![0, 1, 200, 255]))),
        (
            "i16",
            Arc::new(Int16Array::from(vec![0, -1, i16::MIN, i16::MAX])),
        ),
    ])
    .unwrap();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let read: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(out))
        .unwrap()
        .build()
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    assert_eq!(read.len(), 1);
    for (got, want) in read[0].columns().iter().zip(batch.columns()) {
        assert_eq!(got.as_ref(), want.as_ref());
    }
}
