//! Variant columns.
//!
//! - `variant_get/shredded_int64` vs `variant_get/decode_every_row`: `$.score` as
//!   `Int64` from 262,144 rows of `{"id", "name", "score", "tags"}` objects, once from
//!   the column shredded as `{id:int64,name:string,score:int64}` (the shredded
//!   `typed_value` is taken as it is) and once from the same values unshredded (every
//!   Variant decoded and looked up). The printed ratio is decode / shredded.
//! - `read_shredded/herringbone` vs `read_shredded/arrow_rs`: the whole shredded file
//!   (written by Herringbone, ZSTD, in the setup, held in memory) read into Arrow by each
//!   reader, batches of 8192 rows; arrow-rs 59 with its `variant_experimental` feature
//!   reads the `VARIANT` group as a struct marked `arrow.parquet.variant`, as Herringbone
//!   does. `read_unshredded/*` also reconstructs every row (Herringbone's
//!   `with_unshredded_variants`, arrow-rs's `unshred_variant`). Both readers' values are
//!   compared once in the setup (not timed).
//!
//! Run: `cargo bench -p herringbone-benches --bench variant`

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Schema};
use bytes::Bytes;
use criterion::Criterion;
use herringbone::variant::{
    ShreddedType, VariantShredding, json_to_variant, shred, variant_field, variant_get,
};
use herringbone::variant::{Variant, VariantMetadata, VariantPath, VariantValue};
use herringbone::{ArrowWriter, Codec, ParquetRecordBatchReaderBuilder, WriterProperties};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder as ArrowRsReader;

const ROWS: usize = 262_144;
const BATCH_SIZE: usize = 8192;

fn json_rows() -> StringArray {
    (0..ROWS)
        .map(|i| {
            Some(format!(
                r#"{{"id": {i}, "name": "user{}", "score": {}, "tags": ["t{}", "u{}"]}}"#,
                i % 1000,
                (i as i64 * 7919) % 1_000_003 - 500_000,
                i % 7,
                i % 13
            ))
        })
        .collect()
}

fn shape() -> ShreddedType {
    ShreddedType::parse("id:int64,name:string,score:int64").expect("shape")
}

fn write_file(plain: &ArrayRef) -> Bytes {
    let schema = Arc::new(Schema::new(vec![variant_field("v")]));
    let batch = RecordBatch::try_new(schema.clone(), vec![plain.clone()]).expect("batch");
    let props = WriterProperties::builder()
        .set_compression(Codec::Zstd { level: 3 })
        .set_variant_shredding("v", VariantShredding::Shape(shape()))
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, schema, Some(props)).expect("writer");
    writer.write(&batch).expect("write");
    writer.close().expect("close");
    Bytes::from(out)
}

fn read_herringbone(file: &Bytes, unshredded: bool) -> Vec<RecordBatch> {
    ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .expect("open")
        .with_batch_size(BATCH_SIZE)
        .with_unshredded_variants(unshredded)
        .build()
        .expect("reader")
        .collect::<Result<Vec<_>, _>>()
        .expect("read")
}

fn read_arrow_rs(file: &Bytes, unshredded: bool) -> Vec<RecordBatch> {
    let reader = ArrowRsReader::try_new(file.clone())
        .expect("open")
        .with_batch_size(BATCH_SIZE)
        .build()
        .expect("reader");
    reader
        .map(|batch| {
            let batch = batch.expect("read");
            if !unshredded {
                return batch;
            }
            let variants =
                parquet::variant::VariantArray::try_new(batch.column(0)).expect("variant array");
            let plain = parquet::variant::unshred_variant(&variants).expect("unshred");
            let column: ArrayRef = Arc::new(plain.into_inner());
            RecordBatch::try_from_iter([("v", column)]).expect("batch")
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let json = json_rows();
    let plain: ArrayRef = Arc::new(json_to_variant(&json).expect("variants"));
    let shredded: ArrayRef = Arc::new(shred(&plain, &shape()).expect("shred"));
    let path = VariantPath::parse("$.score").expect("path");
    let from_shredded = variant_get(&shredded, &path, Some(&DataType::Int64)).expect("get");
    let from_plain = variant_get(&plain, &path, Some(&DataType::Int64)).expect("get");
    assert_eq!(
        from_shredded.as_primitive::<Int64Type>(),
        from_plain.as_primitive::<Int64Type>()
    );

    let mut group = c.benchmark_group("variant_get");
    group.bench_function("shredded_int64", |b| {
        b.iter(|| black_box(variant_get(&shredded, &path, Some(&DataType::Int64)).expect("get")))
    });
    group.bench_function("decode_every_row", |b| {
        b.iter(|| black_box(variant_get(&plain, &path, Some(&DataType::Int64)).expect("get")))
    });
    group.finish();

    let file = write_file(&plain);
    // Both readers reconstruct the same values (compared once, decoded by Herringbone's
    // codec, not timed).
    let ours = rows_of(&read_herringbone(&file, true));
    let theirs = rows_of(&read_arrow_rs(&file, true));
    assert_eq!(ours.len(), ROWS);
    assert!(ours == theirs, "the readers disagree");

    let mut group = c.benchmark_group("read_shredded");
    group.bench_function("herringbone", |b| {
        b.iter(|| black_box(read_herringbone(&file, false)))
    });
    group.bench_function("arrow_rs", |b| {
        b.iter(|| black_box(read_arrow_rs(&file, false)))
    });
    group.finish();
    let mut group = c.benchmark_group("read_unshredded");
    group.bench_function("herringbone", |b| {
        b.iter(|| black_box(read_herringbone(&file, true)))
    });
    group.bench_function("arrow_rs", |b| {
        b.iter(|| black_box(read_arrow_rs(&file, true)))
    });
    group.finish();
}

/// Every row of unshredded Variant batches, decoded.
fn rows_of(batches: &[RecordBatch]) -> Vec<VariantValue> {
    let mut out = Vec::new();
    for batch in batches {
        let column = batch.column(0).as_struct();
        let metadata = column.column_by_name("metadata").expect("metadata");
        let value = column.column_by_name("value").expect("value");
        for i in 0..column.len() {
            let m = binary(metadata, i);
            let v = binary(value, i);
            let m = VariantMetadata::try_new(m).expect("metadata");
            let variant = Variant::try_new(m, v).expect("value");
            out.push(variant.to_owned_value().expect("decode"));
        }
    }
    out
}

/// Row `i` of a binary column of any layout.
fn binary(array: &ArrayRef, i: usize) -> &[u8] {
    match array.data_type() {
        DataType::Binary => array.as_binary::<i32>().value(i),
        DataType::LargeBinary => array.as_binary::<i64>().value(i),
        _ => array.as_binary_view().value(i),
    }
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}
