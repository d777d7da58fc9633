//! Round trip against arrow-rs: random batches of flat, struct, list (List, LargeList,
//! FixedSizeList) and map columns of many Arrow types (with nulls at every level and
//! empty lists), written by arrow-rs `ArrowWriter` with random properties (v1/v2
//! pages, dictionary on/off with a tiny dictionary limit so chunks fall back to plain,
//! per-column encodings, codecs, tiny pages and row groups), read back by Herringbone with
//! random projections, row selections, batch sizes, offsets and limits, must equal what
//! was written.

use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BinaryViewBuilder, BooleanBuilder, FixedSizeBinaryBuilder, LargeBinaryBuilder,
    LargeStringBuilder, StringBuilder, StringDictionaryBuilder, StringViewBuilder,
};
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, Decimal256Type, DurationMillisecondType,
    DurationNanosecondType, DurationSecondType, Float16Type, Float32Type, Float64Type, Int8Type,
    Int16Type, Int32Type, Int64Type, IntervalDayTimeType, IntervalYearMonthType,
    Time32MillisecondType, Time64MicrosecondType, Time64NanosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, UInt8Type, UInt16Type, UInt32Type,
    UInt64Type,
};
use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, LargeListArray, ListArray, MapArray, PrimitiveArray,
    RecordBatch, StructArray,
};
use arrow_buffer::{IntervalDayTime, NullBuffer, OffsetBuffer, ScalarBuffer, i256};
use arrow_schema::{DataType, Field, Fields, Schema};
use bytes::Bytes;
use herringbone_arrow_bridge::read::{ParquetRecordBatchReaderBuilder, RowSelection, RowSelector};
use herringbone_arrow_bridge::schema::Projection;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding};
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;
use proptest::prelude::*;

/// A small deterministic generator driven by the proptest seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// A value from a small range (so dictionaries pay off) or anywhere.
    fn int(&mut self, small: bool) -> i64 {
        if small {
            self.below(8) as i64 - 3
        } else {
            self.next() as i64
        }
    }
    fn bytes(&mut self, small: bool) -> Vec<u8> {
        let len = self.below(if small { 4 } else { 40 }) as usize;
        (0..len)
            .map(|_| b'a' + self.below(if small { 3 } else { 26 }) as u8)
            .collect()
    }
}

const LEAF_KINDS: usize = 26;

/// A random column of leaf kind `kind`, `rows` long, with nulls when `nullable`.
fn leaf(rng: &mut Rng, kind: usize, rows: usize, nullable: bool) -> ArrayRef {
    let small = rng.chance(50);
    let null_percent = if nullable { rng.below(60) } else { 0 };
    let mut present = Vec::with_capacity(rows);
    for _ in 0..rows {
        present.push(!rng.chance(null_percent));
    }
    macro_rules! prim {
        ($t:ty, $f:expr) => {{
            let values: Vec<Option<<$t as arrow_array::ArrowPrimitiveType>::Native>> = present
                .iter()
                .map(|&p| {
                    let v = rng.int(small);
                    #[allow(clippy::redundant_closure_call)]
                    p.then(|| ($f)(v))
                })
                .collect();
            Arc::new(PrimitiveArray::<$t>::from(values)) as ArrayRef
        }};
    }
    match kind {
        0 => {
            let mut b = BooleanBuilder::new();
            for &p in &present {
                let v = rng.chance(50);
                b.append_option(p.then_some(v));
            }
            Arc::new(b.finish())
        }
        1 => prim!(Int8Type, |v: i64| v as i8),
        2 => prim!(Int16Type, |v: i64| v as i16),
        3 => prim!(Int32Type, |v: i64| v as i32),
        4 => prim!(Int64Type, |v: i64| v),
        5 => prim!(UInt8Type, |v: i64| v as u8),
        6 => prim!(UInt16Type, |v: i64| v as u16),
        7 => prim!(UInt32Type, |v: i64| v as u32),
        8 => prim!(UInt64Type, |v: i64| v as u64),
        9 => prim!(Float32Type, |v: i64| (v % 100_000) as f32 / 8.0),
        10 => prim!(Float64Type, |v: i64| v as f64 / 3.0),
        11 => prim!(Date32Type, |v: i64| (v % 100_000) as i32),
        12 => prim!(Time32MillisecondType, |v: i64| v.rem_euclid(86_400_000)
            as i32),
        13 => prim!(Time64MicrosecondType, |v: i64| v.rem_euclid(86_400_000_000)),
        14 => prim!(TimestampMillisecondType, |v: i64| v / 4),
        15 => {
            let a = prim!(TimestampMicrosecondType, |v: i64| v / 4);
            let a = a
                .as_any()
                .downcast_ref::<PrimitiveArray<TimestampMicrosecondType>>()
                .unwrap()
                .clone()
                .with_timezone("UTC");
            Arc::new(a)
        }
        16 => prim!(TimestampNanosecondType, |v: i64| v),
        17 => {
            let a = prim!(Decimal128Type, |v: i64| i128::from(v % 10_000_000_000));
            let a = a
                .as_any()
                .downcast_ref::<PrimitiveArray<Decimal128Type>>()
                .unwrap()
                .clone()
                .with_precision_and_scale(10, 2)
                .unwrap();
            Arc::new(a)
        }
        18 => {
            let a = prim!(Decimal128Type, |v: i64| i128::from(v) * 1_000_003);
            let a = a
                .as_any()
                .downcast_ref::<PrimitiveArray<Decimal128Type>>()
                .unwrap()
                .clone()
                .with_precision_and_scale(30, 5)
                .unwrap();
            Arc::new(a)
        }
        19 => prim!(DurationMillisecondType, |v: i64| v),
        20 => prim!(Float16Type, |v: i64| half::f16::from_f32(
            (v % 1000) as f32 / 4.0
        )),
        21 => {
            let mut b = StringBuilder::new();
            for &p in &present {
                let v = String::from_utf8(rng.bytes(small)).unwrap() + "é";
                b.append_option(p.then_some(v));
            }
            Arc::new(b.finish())
        }
        22 => {
            let mut b = BinaryBuilder::new();
            for &p in &present {
                let v = rng.bytes(small);
                b.append_option(p.then_some(v));
            }
            Arc::new(b.finish())
        }
        23 => {
            let mut b = FixedSizeBinaryBuilder::new(5);
            for &p in &present {
                let mut v = rng.bytes(small);
                v.resize(5, b'z');
                if p {
                    b.append_value(&v).unwrap();
                } else {
                    b.append_null();
                }
            }
            Arc::new(b.finish())
        }
        24 => match rng.below(9) {
            0 => prim!(Date64Type, |v: i64| (v % 100_000) * 86_400_000),
            1 => prim!(Time64NanosecondType, |v: i64| v
                .rem_euclid(86_400_000_000_000)),
            2 => prim!(DurationSecondType, |v: i64| v),
            3 => prim!(DurationNanosecondType, |v: i64| v),
            4 => {
                let a = prim!(Decimal256Type, |v: i64| i256::from_i128(
                    i128::from(v) << 40
                ));
                let a = a
                    .as_any()
                    .downcast_ref::<PrimitiveArray<Decimal256Type>>()
                    .unwrap()
                    .clone()
                    .with_precision_and_scale(50, 3)
                    .unwrap();
                Arc::new(a)
            }
            5 => prim!(IntervalYearMonthType, |v: i64| (v % 1000) as i32),
            6 => prim!(IntervalDayTimeType, |v: i64| IntervalDayTime::new(
                (v % 1000) as i32,
                (v % 86_400_000) as i32
            )),
            7 => {
                let mut b = BinaryViewBuilder::new();
                for &p in &present {
                    let v = rng.bytes(small);
                    b.append_option(p.then_some(v));
                }
                Arc::new(b.finish())
            }
            _ => prim!(Int32Type, |v: i64| v as i32),
        },
        _ => match rng.below(4) {
            0 => {
                let mut b = LargeStringBuilder::new();
                for &p in &present {
                    let v = String::from_utf8(rng.bytes(small)).unwrap();
                    b.append_option(p.then_some(v));
                }
                Arc::new(b.finish())
            }
            1 => {
                let mut b = LargeBinaryBuilder::new();
                for &p in &present {
                    let v = rng.bytes(small);
                    b.append_option(p.then_some(v));
                }
                Arc::new(b.finish())
            }
            2 => {
                let mut b = StringViewBuilder::new();
                for &p in &present {
                    let v = String::from_utf8(rng.bytes(small)).unwrap();
                    b.append_option(p.then_some(v));
                }
                Arc::new(b.finish())
            }
            _ => {
                let mut b = StringDictionaryBuilder::<Int32Type>::new();
                for &p in &present {
                    let v = String::from_utf8(rng.bytes(true)).unwrap();
                    b.append_option(p.then_some(v));
                }
                Arc::new(b.finish())
            }
        },
    }
}

/// Random list lengths for `rows` lists (null lists are empty), as offsets and validity.
fn list_shape(rng: &mut Rng, rows: usize, nullable: bool) -> (Vec<usize>, Option<NullBuffer>) {
    let mut offsets = vec![0];
    let mut valid = Vec::with_capacity(rows);
    for _ in 0..rows {
        let is_valid = !(nullable && rng.chance(15));
        let len = if is_valid { rng.below(5) as usize } else { 0 };
        offsets.push(offsets.last().unwrap() + len);
        valid.push(is_valid);
    }
    (offsets, nullable.then(|| NullBuffer::from(valid)))
}

/// A random list (List, LargeList or FixedSizeList) or map column.
fn nested_column(rng: &mut Rng, rows: usize, depth: usize, nullable: bool) -> (Field, ArrayRef) {
    match rng.below(4) {
        0 => {
            // A map from non-null small strings to any column.
            let (offsets, nulls) = list_shape(rng, rows, nullable);
            let entries = *offsets.last().unwrap();
            let mut keys = StringBuilder::new();
            for i in 0..entries {
                keys.append_value(format!("k{}", i % 7));
            }
            let keys: ArrayRef = Arc::new(keys.finish());
            let (value_field, values) = column(rng, entries, depth + 1);
            let value_field = {
                let nullable = value_field.is_nullable() || values.null_count() > 0;
                value_field.with_name("values").with_nullable(nullable)
            };
            let entry_fields =
                Fields::from(vec![Field::new("keys", DataType::Utf8, false), value_field]);
            let entries_array =
                StructArray::try_new(entry_fields.clone(), vec![keys, values], None).unwrap();
            let entries_field =
                Arc::new(Field::new("entries", DataType::Struct(entry_fields), false));
            let offsets = OffsetBuffer::new(ScalarBuffer::from(
                offsets.iter().map(|&o| o as i32).collect::<Vec<_>>(),
            ));
            let map =
                MapArray::try_new(entries_field, offsets, entries_array, nulls, false).unwrap();
            (
                Field::new("m", map.data_type().clone(), nullable),
                Arc::new(map),
            )
        }
        1 => {
            // A fixed-size list: null lists still hold their slots.
            let size = 1 + rng.below(3) as i32;
            let (element_field, values) = column(rng, rows * size as usize, depth + 1);
            let element_field = Arc::new({
                let nullable = element_field.is_nullable() || values.null_count() > 0;
                element_field.with_name("item").with_nullable(nullable)
            });
            let nulls = nullable
                .then(|| NullBuffer::from((0..rows).map(|_| !rng.chance(15)).collect::<Vec<_>>()));
            let list = FixedSizeListArray::try_new(element_field, size, values, nulls).unwrap();
            (
                Field::new("l", list.data_type().clone(), nullable),
                Arc::new(list),
            )
        }
        large => {
            let (offsets, nulls) = list_shape(rng, rows, nullable);
            let (element_field, values) = column(rng, *offsets.last().unwrap(), depth + 1);
            let element_field = Arc::new({
                let nullable = element_field.is_nullable() || values.null_count() > 0;
                element_field.with_name("item").with_nullable(nullable)
            });
            let array: ArrayRef = if large == 2 {
                let offsets = OffsetBuffer::new(ScalarBuffer::from(
                    offsets.iter().map(|&o| o as i64).collect::<Vec<_>>(),
                ));
                Arc::new(LargeListArray::try_new(element_field, offsets, values, nulls).unwrap())
            } else {
                let offsets = OffsetBuffer::new(ScalarBuffer::from(
                    offsets.iter().map(|&o| o as i32).collect::<Vec<_>>(),
                ));
                Arc::new(ListArray::try_new(element_field, offsets, values, nulls).unwrap())
            };
            (Field::new("l", array.data_type().clone(), nullable), array)
        }
    }
}

/// A random column: a leaf, or a struct, list or map of columns (depth-limited).
fn column(rng: &mut Rng, rows: usize, depth: usize) -> (Field, ArrayRef) {
    let nullable = rng.chance(70);
    if depth < 3 && rng.chance(20) {
        return nested_column(rng, rows, depth, nullable);
    }
    if depth < 2 && rng.chance(20) {
        let children = 1 + rng.below(3) as usize;
        let mut fields = Vec::new();
        let mut arrays = Vec::new();
        for i in 0..children {
            let (f, a) = column(rng, rows, depth + 1);
            fields.push(f.with_name(format!("c{i}")));
            arrays.push(a);
        }
        let nulls = nullable.then(|| {
            let valid: Vec<bool> = (0..rows).map(|_| !rng.chance(20)).collect();
            NullBuffer::from(valid)
        });
        // Children of a non-nullable field must not be null where the struct is valid.
        let fields: Fields = fields
            .into_iter()
            .zip(&arrays)
            .map(|(f, a)| {
                let needs_nullable = a.null_count() > 0;
                Arc::new(f.clone().with_nullable(f.is_nullable() || needs_nullable))
            })
            .collect();
        let array = StructArray::try_new(fields.clone(), arrays, nulls).unwrap();
        let field = Field::new("s", DataType::Struct(fields), nullable);
        return (field, Arc::new(array));
    }
    let kind = rng.below(LEAF_KINDS as u64) as usize;
    let array = leaf(rng, kind, rows, nullable);
    (Field::new("x", array.data_type().clone(), nullable), array)
}

fn leaf_paths(prefix: &str, field: &Field, out: &mut Vec<(String, DataType)>) {
    let path = if prefix.is_empty() {
        field.name().to_string()
    } else {
        format!("{prefix}.{}", field.name())
    };
    match field.data_type() {
        DataType::Struct(children) => children.iter().for_each(|c| leaf_paths(&path, c, out)),
        DataType::List(element)
        | DataType::LargeList(element)
        | DataType::FixedSizeList(element, _) => leaf_paths(&format!("{path}.list"), element, out),
        DataType::Map(entries, _) => leaf_paths(&path, entries, out),
        other => out.push((path, other.clone())),
    }
}

/// Encodings arrow-rs can write for a leaf of this Arrow type.
fn encodings_for(data_type: &DataType) -> Vec<Encoding> {
    use DataType as D;
    match data_type {
        D::Boolean => vec![Encoding::PLAIN, Encoding::RLE],
        D::Int8
        | D::Int16
        | D::Int32
        | D::Int64
        | D::UInt8
        | D::UInt16
        | D::UInt32
        | D::UInt64
        | D::Date32
        | D::Time32(_)
        | D::Time64(_)
        | D::Timestamp(_, _)
        | D::Date64
        | D::Duration(_) => vec![
            Encoding::PLAIN,
            Encoding::DELTA_BINARY_PACKED,
            Encoding::BYTE_STREAM_SPLIT,
        ],
        D::Decimal128(p, _) if *p <= 18 => vec![
            Encoding::PLAIN,
            Encoding::DELTA_BINARY_PACKED,
            Encoding::BYTE_STREAM_SPLIT,
        ],
        D::Float32 | D::Float64 => vec![Encoding::PLAIN, Encoding::BYTE_STREAM_SPLIT],
        D::Decimal128(_, _) | D::FixedSizeBinary(_) | D::Float16 => vec![
            Encoding::PLAIN,
            Encoding::DELTA_BYTE_ARRAY,
            Encoding::BYTE_STREAM_SPLIT,
        ],
        D::Utf8 | D::LargeUtf8 | D::Utf8View | D::Binary | D::LargeBinary => vec![
            Encoding::PLAIN,
            Encoding::DELTA_LENGTH_BYTE_ARRAY,
            Encoding::DELTA_BYTE_ARRAY,
        ],
        _ => vec![Encoding::PLAIN],
    }
}

fn random_batch(rng: &mut Rng) -> RecordBatch {
    let rows = match rng.below(4) {
        0 => rng.below(3) as usize,
        _ => rng.below(400) as usize,
    };
    let columns = 1 + rng.below(5) as usize;
    let mut fields = Vec::new();
    let mut arrays = Vec::new();
    for i in 0..columns {
        let (field, array) = column(rng, rows, 0);
        fields.push(field.with_name(format!("f{i}")));
        arrays.push(array);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap()
}

fn random_properties(rng: &mut Rng, schema: &Schema) -> WriterProperties {
    let codecs = [
        Compression::UNCOMPRESSED,
        Compression::SNAPPY,
        Compression::GZIP(Default::default()),
        Compression::LZ4,
        Compression::LZ4_RAW,
        Compression::ZSTD(Default::default()),
        Compression::BROTLI(Default::default()),
    ];
    let mut builder = WriterProperties::builder()
        .set_writer_version(if rng.chance(50) {
            WriterVersion::PARQUET_1_0
        } else {
            WriterVersion::PARQUET_2_0
        })
        .set_compression(codecs[rng.below(codecs.len() as u64) as usize])
        .set_dictionary_enabled(rng.chance(50))
        .set_dictionary_page_size_limit(if rng.chance(50) { 64 } else { 1 << 20 })
        .set_write_batch_size(1 + rng.below(64) as usize)
        .set_data_page_row_count_limit(1 + rng.below(100) as usize)
        .set_max_row_group_row_count(Some(1 + rng.below(300) as usize));
    let mut leaves = Vec::new();
    for field in schema.fields() {
        leaf_paths("", field, &mut leaves);
    }
    for (path, data_type) in leaves {
        let choices = encodings_for(&data_type);
        let encoding = choices[rng.below(choices.len() as u64) as usize];
        let parts: Vec<String> = path.split('.').map(str::to_string).collect();
        builder = builder.set_column_encoding(ColumnPath::new(parts), encoding);
    }
    builder.build()
}

fn write(batch: &RecordBatch, properties: WriterProperties) -> Bytes {
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(properties)).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

/// Returns the number of values compared.
fn check_round_trip(seed: u64) -> usize {
    let mut rng = Rng(seed);
    let batch = random_batch(&mut rng);
    let properties = random_properties(&mut rng, &batch.schema());
    let file = write(&batch, properties);

    let roots: Vec<usize> = (0..batch.num_columns())
        .filter(|_| rng.chance(70))
        .collect();
    let project = rng.chance(50);
    let batch_size = 1 + rng.below(150) as usize;
    let offset = if rng.chance(30) {
        rng.below(batch.num_rows() as u64 + 2) as usize
    } else {
        0
    };
    let limit = rng
        .chance(30)
        .then(|| rng.below(batch.num_rows() as u64 + 2) as usize);
    // A random selection of select/skip runs (sometimes shorter than the file).
    let selection = rng.chance(40).then(|| {
        let mut runs = Vec::new();
        let mut covered = 0;
        while covered < batch.num_rows() && !rng.chance(5) {
            let n = 1 + rng.below(60) as usize;
            runs.push(if rng.chance(50) {
                RowSelector::skip(n)
            } else {
                RowSelector::select(n)
            });
            covered += n;
        }
        RowSelection::from(runs)
    });

    let mut builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .with_batch_size(batch_size)
        .with_offset(offset)
        .with_verify_crc(true);
    let expected_columns: Vec<usize> = if project {
        builder = builder.with_projection(Projection::Roots(roots.clone()));
        roots
    } else {
        (0..batch.num_columns()).collect()
    };
    if let Some(limit) = limit {
        builder = builder.with_limit(limit);
    }
    // The rows expected, in order: the selection's, then offset and limit.
    let mut rows: Vec<usize> = match &selection {
        Some(selection) => {
            let mut rows = Vec::new();
            let mut at = 0;
            for run in selection.selectors() {
                if !run.skip {
                    rows.extend((at..at + run.row_count).filter(|&r| r < batch.num_rows()));
                }
                at += run.row_count;
            }
            rows
        }
        None => (0..batch.num_rows()).collect(),
    };
    rows.drain(..offset.min(rows.len()));
    if let Some(limit) = limit {
        rows.truncate(limit);
    }
    if let Some(selection) = selection {
        builder = builder.with_row_selection(selection);
    }
    let reader = builder.build().unwrap();
    let expected = batch.project(&expected_columns).unwrap();

    let mut at = 0;
    for read in reader {
        let read = read.unwrap();
        assert!(read.num_rows() <= batch_size && read.num_rows() > 0);
        assert_eq!(read.num_columns(), expected.num_columns());
        for r in 0..read.num_rows() {
            let want_row = rows[at + r];
            for (i, (got, want)) in read.columns().iter().zip(expected.columns()).enumerate() {
                assert_eq!(
                    got.data_type(),
                    want.data_type(),
                    "column {i} type (seed {seed})"
                );
                assert_eq!(
                    got.slice(r, 1).to_data(),
                    want.slice(want_row, 1).to_data(),
                    "column {i} ({}) row {want_row} (seed {seed})",
                    want.data_type()
                );
            }
        }
        at += read.num_rows();
    }
    assert_eq!(at, rows.len(), "rows read (seed {seed})");
    rows.len() * expected.num_columns()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn arrow_rs_files_read_back_identically(seed in any::<u64>()) {
        let _ = check_round_trip(seed);
    }
}

#[test]
fn every_leaf_kind_round_trips_under_fixed_seeds() {
    let mut compared = 0;
    for seed in 0..40 {
        compared += check_round_trip(seed * 7919 + 1);
    }
    println!("{compared} values compared");
    assert!(compared > 5_000, "only {compared} values compared");
}
