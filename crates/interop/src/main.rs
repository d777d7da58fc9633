//! `interop-matrix OUT_DIR`: writes the fixed matrix of Herringbone files that
//! `scripts/interop_check.py` reads with pyarrow, DuckDB and polars.
//!
//! Two deterministic tables (`scalars`: every primitive type with nulls, NaN, extremes,
//! unicode and empty strings, dictionaries; `nested`: structs, lists empty / null /
//! nested, fixed-size lists, maps, lists of structs) are written under a set of writer
//! property sets (each codec, v1 and v2 pages, dictionary on and off, the DELTA_* and
//! BYTE_STREAM_SPLIT encodings, tiny pages and row groups, each statistics level, CRC,
//! Bloom filters after each row group and at the end). For every file `NAME.parquet` the
//! source batch is written as the Arrow IPC file `NAME.arrow` and `NAME.json` describes
//! what the check may expect: whether CRCs, column and offset indexes were written and,
//! per Bloom-filtered column, values present in and absent from the data. `matrix.json`
//! lists the files.
//!
//! It is a crate of its own (`herringbone-interop`, not published) rather than part of
//! `testkit` because `testkit` is a dev-dependency of `arrow-bridge`: depending on the
//! writer from there would build `arrow-bridge` twice for its own tests.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{
    FixedSizeListBuilder, Int16Builder, Int32Builder, Int64Builder, ListBuilder, MapBuilder,
    StringBuilder,
};
use arrow_array::types::{Int8Type, Int32Type};
use arrow_array::*;
use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};
use herringbone::metadata::SortingColumn;
use herringbone::write::{
    ArrowWriter, BloomFilterPosition, DataPageVersion, StatisticsLevel, WriterProperties,
    WriterPropertiesBuilder,
};
use herringbone::{Codec, Encoding};
use serde_json::{Value, json};

/// Rows per table: odd, so that pages and row groups end mid-pattern.
const ROWS: usize = 257;

fn main() {
    let Some(out) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: interop-matrix OUT_DIR");
        std::process::exit(2);
    };
    if let Err(e) = run(&out) {
        eprintln!("interop-matrix: {e}");
        std::process::exit(1);
    }
}

type BoxError = Box<dyn std::error::Error>;

fn run(out: &Path) -> Result<(), BoxError> {
    std::fs::create_dir_all(out)?;
    let tables = [("scalars", scalars()?), ("nested", nested()?)];
    let mut files = Vec::new();
    for (table, batch) in &tables {
        for set in property_sets() {
            let name = format!("{table}-{}", set.name);
            let props = (set.build)(table, batch.schema().as_ref());
            write_case(out, &name, batch, props, &set)?;
            files.push(json!({
                "name": name,
                "table": table,
                "properties": set.name,
            }));
        }
    }
    // Rows sorted by two columns, declared as sorting_columns (the writer checks them).
    let sorted_set = PropertySet {
        name: "sorted",
        crc: true,
        statistics: StatisticsLevel::Page,
        bloom: false,
        build: |_, _| {
            base()
                .set_max_row_group_rows(100)
                .set_sorting_columns(Some(vec![
                    SortingColumn {
                        column_idx: 0,
                        descending: false,
                        nulls_first: false,
                    },
                    SortingColumn {
                        column_idx: 1,
                        descending: true,
                        nulls_first: true,
                    },
                ]))
                .build()
        },
    };
    let batch = sorted()?;
    let props = (sorted_set.build)("sorted", batch.schema().as_ref());
    write_case(out, "sorted", &batch, props, &sorted_set)?;
    files.push(json!({ "name": "sorted", "table": "sorted", "properties": "sorted" }));
    let matrix = json!({ "rows": ROWS, "files": files });
    std::fs::write(
        out.join("matrix.json"),
        serde_json::to_string_pretty(&matrix)?,
    )?;
    println!(
        "interop-matrix: wrote {} files to {}",
        files.len(),
        out.display()
    );
    Ok(())
}

/// One writer configuration of the matrix.
struct PropertySet {
    name: &'static str,
    crc: bool,
    statistics: StatisticsLevel,
    bloom: bool,
    build: fn(&str, &Schema) -> WriterProperties,
}

fn base() -> WriterPropertiesBuilder {
    WriterProperties::builder().set_write_crc(true)
}

/// Bloom filters on a few top-level columns of each table (those the check probes).
const BLOOM_COLUMNS: &[&str] = &["i32", "i64", "utf8", "s_id"];

fn with_blooms(mut b: WriterPropertiesBuilder, schema: &Schema) -> WriterPropertiesBuilder {
    for field in schema.fields() {
        if BLOOM_COLUMNS.contains(&field.name().as_str()) {
            b = b.set_bloom_filter(field.name().clone(), 0.01, 512);
        }
    }
    b
}

fn property_sets() -> Vec<PropertySet> {
    vec![
        PropertySet {
            name: "plain-v1-uncompressed",
            crc: true,
            statistics: StatisticsLevel::Page,
            bloom: false,
            build: |_, _| base().set_dictionary_enabled(false).build(),
        },
        PropertySet {
            name: "dict-v1-snappy-bloom",
            crc: true,
            statistics: StatisticsLevel::Page,
            bloom: true,
            build: |_, s| {
                with_blooms(base().set_compression(Codec::Snappy), s)
                    .set_max_row_group_rows(100)
                    .build()
            },
        },
        PropertySet {
            name: "dict-v2-zstd-bloom-end",
            crc: true,
            statistics: StatisticsLevel::Page,
            bloom: true,
            build: |_, s| {
                with_blooms(base().set_compression(Codec::Zstd { level: 3 }), s)
                    .set_data_page_version(DataPageVersion::V2)
                    .set_bloom_filter_position(BloomFilterPosition::End)
                    .set_max_row_group_rows(100)
                    .build()
            },
        },
        PropertySet {
            name: "plain-v2-gzip",
            crc: true,
            statistics: StatisticsLevel::Page,
            bloom: false,
            build: |_, _| {
                base()
                    .set_compression(Codec::Gzip { level: 6 })
                    .set_dictionary_enabled(false)
                    .set_data_page_version(DataPageVersion::V2)
                    .build()
            },
        },
        PropertySet {
            name: "dict-v1-brotli-chunkstats",
            crc: true,
            statistics: StatisticsLevel::Chunk,
            bloom: false,
            build: |_, _| {
                base()
                    .set_compression(Codec::Brotli { quality: 4 })
                    .set_statistics(StatisticsLevel::Chunk)
                    .build()
            },
        },
        PropertySet {
            name: "plain-v2-lz4raw-nostats",
            crc: true,
            statistics: StatisticsLevel::None,
            bloom: false,
            build: |_, _| {
                base()
                    .set_compression(Codec::Lz4Raw)
                    .set_dictionary_enabled(false)
                    .set_data_page_version(DataPageVersion::V2)
                    .set_statistics(StatisticsLevel::None)
                    .build()
            },
        },
        PropertySet {
            name: "delta-v2-zstd",
            crc: true,
            statistics: StatisticsLevel::Page,
            bloom: false,
            build: |table, s| {
                encodings(
                    table,
                    s,
                    base()
                        .set_compression(Codec::Zstd { level: 1 })
                        .set_dictionary_enabled(false)
                        .set_data_page_version(DataPageVersion::V2),
                    false,
                )
                .build()
            },
        },
        PropertySet {
            name: "bss-v1-snappy",
            crc: true,
            statistics: StatisticsLevel::Page,
            bloom: false,
            build: |table, s| {
                encodings(
                    table,
                    s,
                    base()
                        .set_compression(Codec::Snappy)
                        .set_dictionary_enabled(false),
                    true,
                )
                .build()
            },
        },
        PropertySet {
            name: "tiny-pages-groups-bloom",
            crc: true,
            statistics: StatisticsLevel::Page,
            bloom: true,
            build: |_, s| {
                with_blooms(base(), s)
                    .set_data_page_row_limit(7)
                    .set_data_page_size_limit(64)
                    .set_dictionary_page_size_limit(128)
                    .set_max_row_group_rows(40)
                    .build()
            },
        },
        PropertySet {
            name: "dict-v1-nocrc",
            crc: false,
            statistics: StatisticsLevel::Page,
            bloom: false,
            build: |_, _| WriterProperties::builder().build(),
        },
    ]
}

/// Per-column encodings: DELTA_* (or BYTE_STREAM_SPLIT where it applies when `bss`) for
/// the top-level primitive columns of the scalars table and the leaves of the nested one.
fn encodings(
    table: &str,
    schema: &Schema,
    mut b: WriterPropertiesBuilder,
    bss: bool,
) -> WriterPropertiesBuilder {
    let leaves: Vec<(String, DataType)> = if table == "nested" {
        vec![
            ("s.a".into(), DataType::Int32),
            ("s.b".into(), DataType::Utf8),
            ("ints.list.item".into(), DataType::Int32),
            ("s_id".into(), DataType::Int64),
        ]
    } else {
        schema
            .fields()
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect()
    };
    for (i, (path, data_type)) in leaves.into_iter().enumerate() {
        let encoding = match data_type {
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
            | DataType::Date32
            | DataType::Timestamp(_, _)
            | DataType::Time32(_)
            | DataType::Time64(_) => {
                if bss {
                    Encoding::BYTE_STREAM_SPLIT
                } else {
                    Encoding::DELTA_BINARY_PACKED
                }
            }
            // BYTE_STREAM_SPLIT on FIXED_LEN_BYTE_ARRAY (Float16, decimals, fixed binary)
            // is left out: DuckDB and polars cannot decode it yet.
            DataType::Float32 | DataType::Float64 if bss => Encoding::BYTE_STREAM_SPLIT,
            DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView => {
                // Alternate the two byte-array delta encodings over the columns.
                if i % 2 == 0 {
                    Encoding::DELTA_LENGTH_BYTE_ARRAY
                } else {
                    Encoding::DELTA_BYTE_ARRAY
                }
            }
            _ => continue,
        };
        b = b.set_column_encoding(path, encoding);
    }
    b
}

fn write_case(
    out: &Path,
    name: &str,
    batch: &RecordBatch,
    props: WriterProperties,
    set: &PropertySet,
) -> Result<(), BoxError> {
    let sorting: Vec<Value> = props
        .sorting_columns()
        .unwrap_or_default()
        .iter()
        .map(|c| {
            json!({
                "column_idx": c.column_idx,
                "descending": c.descending,
                "nulls_first": c.nulls_first,
            })
        })
        .collect();
    let parquet = File::create(out.join(format!("{name}.parquet")))?;
    let mut writer = ArrowWriter::try_new(BufWriter::new(parquet), batch.schema(), Some(props))
        .map_err(|e| format!("{name}: {e}"))?;
    // Two writes, so that row groups and pages also split across batches.
    let half = batch.num_rows() / 2;
    writer.write(&batch.slice(0, half))?;
    writer.write(&batch.slice(half, batch.num_rows() - half))?;
    writer.close().map_err(|e| format!("{name}: {e}"))?;

    let ipc = File::create(out.join(format!("{name}.arrow")))?;
    let mut ipc = arrow_ipc::writer::FileWriter::try_new(BufWriter::new(ipc), &batch.schema())?;
    ipc.write(batch)?;
    ipc.finish()?;

    let mut blooms = serde_json::Map::new();
    if set.bloom {
        for column in BLOOM_COLUMNS {
            if let Some(probe) = bloom_probe(batch, column) {
                blooms.insert((*column).to_string(), probe);
            }
        }
    }
    let manifest = json!({
        "name": name,
        "parquet": format!("{name}.parquet"),
        "ipc": format!("{name}.arrow"),
        "crc": set.crc,
        // The writer always writes the offset index; the column index with page statistics.
        "offset_index": true,
        "column_index": set.statistics == StatisticsLevel::Page,
        "bloom_filters": blooms,
        // Declared on every row group (empty: none).
        "sorting_columns": sorting,
    });
    std::fs::write(
        out.join(format!("{name}.json")),
        serde_json::to_string_pretty(&manifest)?,
    )?;
    Ok(())
}

/// Values present in and absent from a Bloom-filtered column, as JSON with the DuckDB type
/// to probe them as.
fn bloom_probe(batch: &RecordBatch, column: &str) -> Option<Value> {
    let array = batch.column_by_name(column)?;
    let (sql_type, present, absent): (&str, Vec<Value>, Vec<Value>) = match array.data_type() {
        DataType::Int32 => {
            let a = array.as_any().downcast_ref::<Int32Array>()?;
            let present = a.iter().flatten().take(20).map(Value::from).collect();
            let absent = (0..20).map(|i| Value::from(1_000_003 + i * 7)).collect();
            ("INTEGER", present, absent)
        }
        DataType::Int64 => {
            let a = array.as_any().downcast_ref::<Int64Array>()?;
            let present = a.iter().flatten().take(20).map(Value::from).collect();
            let absent = (0..20)
                .map(|i| Value::from(-9_000_000_001i64 - i * 13))
                .collect();
            ("BIGINT", present, absent)
        }
        DataType::Utf8 => {
            let a = array.as_any().downcast_ref::<StringArray>()?;
            let present = a.iter().flatten().take(20).map(Value::from).collect();
            let absent = (0..20)
                .map(|i| Value::from(format!("absent-{i}")))
                .collect();
            ("VARCHAR", present, absent)
        }
        _ => return None,
    };
    Some(json!({ "type": sql_type, "present": present, "absent": absent }))
}

/// Null at every `k`-th row (offset by `phase`), so each column has nulls in other places.
fn valid(i: usize, k: usize, phase: usize) -> bool {
    !(i + phase).is_multiple_of(k)
}

fn opt<T>(i: usize, k: usize, phase: usize, v: T) -> Option<T> {
    valid(i, k, phase).then_some(v)
}

fn field(name: &str, data_type: DataType) -> Field {
    Field::new(name, data_type, true)
}

/// A mixing function so that values are not monotonic (and pages' min/max differ).
fn mix(i: usize) -> u64 {
    let mut x = (i as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn scalars() -> Result<RecordBatch, BoxError> {
    let n = ROWS;
    let idx = || 0..n;
    let m = mix;
    let words = [
        "",
        "a",
        "héllo",
        "日本語",
        "🦀 crab",
        "tab\there",
        "quote\"s",
        "x",
    ];
    let tz_utc: Arc<str> = Arc::from("UTC");
    let tz_ny: Arc<str> = Arc::from("America/New_York");
    let day = 86_400_000i64;
    let mut columns: Vec<(Field, ArrayRef)> = vec![
        (
            field("i8", DataType::Int8),
            Arc::new(Int8Array::from_iter(idx().map(|i| {
                opt(
                    i,
                    5,
                    0,
                    match i % 9 {
                        0 => i8::MIN,
                        1 => i8::MAX,
                        _ => m(i) as i8,
                    },
                )
            }))),
        ),
        (
            field("i16", DataType::Int16),
            Arc::new(Int16Array::from_iter(idx().map(|i| {
                opt(
                    i,
                    6,
                    1,
                    match i % 9 {
                        0 => i16::MIN,
                        1 => i16::MAX,
                        _ => m(i) as i16,
                    },
                )
            }))),
        ),
        (
            field("i32", DataType::Int32),
            Arc::new(Int32Array::from_iter(idx().map(|i| {
                opt(
                    i,
                    7,
                    2,
                    match i % 11 {
                        0 => i32::MIN,
                        1 => i32::MAX,
                        _ => (m(i) % 100_000) as i32 - 50_000,
                    },
                )
            }))),
        ),
        (
            field("i64", DataType::Int64),
            Arc::new(Int64Array::from_iter(idx().map(|i| {
                opt(
                    i,
                    8,
                    3,
                    match i % 13 {
                        0 => i64::MIN,
                        1 => i64::MAX,
                        _ => m(i) as i64 / 7,
                    },
                )
            }))),
        ),
        (
            field("u8", DataType::UInt8),
            Arc::new(UInt8Array::from_iter(
                idx().map(|i| opt(i, 5, 1, m(i) as u8)),
            )),
        ),
        (
            field("u16", DataType::UInt16),
            Arc::new(UInt16Array::from_iter(
                idx().map(|i| opt(i, 5, 2, m(i) as u16)),
            )),
        ),
        (
            field("u32", DataType::UInt32),
            Arc::new(UInt32Array::from_iter(idx().map(|i| {
                opt(i, 5, 3, if i % 10 == 1 { u32::MAX } else { m(i) as u32 })
            }))),
        ),
        (
            field("u64", DataType::UInt64),
            Arc::new(UInt64Array::from_iter(idx().map(|i| {
                opt(i, 5, 4, if i % 10 == 1 { u64::MAX } else { m(i) })
            }))),
        ),
        (
            field("f32", DataType::Float32),
            Arc::new(Float32Array::from_iter(idx().map(|i| {
                opt(
                    i,
                    6,
                    0,
                    match i % 17 {
                        0 => f32::NAN,
                        1 => f32::INFINITY,
                        2 => -0.0,
                        3 => f32::NEG_INFINITY,
                        _ => (m(i) % 10_000) as f32 / 8.0 - 600.0,
                    },
                )
            }))),
        ),
        (
            field("f64", DataType::Float64),
            Arc::new(Float64Array::from_iter(idx().map(|i| {
                opt(
                    i,
                    7,
                    0,
                    match i % 19 {
                        0 => f64::NAN,
                        1 => f64::MAX,
                        2 => -0.0,
                        3 => f64::MIN_POSITIVE,
                        _ => (m(i) % 1_000_000) as f64 / 3.0 - 1e5,
                    },
                )
            }))),
        ),
        (
            field("f16", DataType::Float16),
            Arc::new(Float16Array::from_iter(idx().map(|i| {
                opt(
                    i,
                    7,
                    1,
                    half::f16::from_f32((m(i) % 2000) as f32 / 4.0 - 200.0),
                )
            }))),
        ),
        (
            field("dec32", DataType::Decimal32(7, 2)),
            Arc::new(
                Decimal32Array::from_iter(
                    idx().map(|i| opt(i, 5, 0, (m(i) % 19_999_999) as i32 - 9_999_999)),
                )
                .with_precision_and_scale(7, 2)?,
            ),
        ),
        (
            field("dec64", DataType::Decimal64(15, 3)),
            Arc::new(
                Decimal64Array::from_iter(idx().map(|i| {
                    opt(
                        i,
                        5,
                        1,
                        (m(i) % 999_999_999_999_999) as i64 * if i % 2 == 0 { 1 } else { -1 },
                    )
                }))
                .with_precision_and_scale(15, 3)?,
            ),
        ),
        (
            field("dec128_int32", DataType::Decimal128(9, 4)),
            Arc::new(
                Decimal128Array::from_iter(
                    idx().map(|i| opt(i, 5, 2, (m(i) % 999_999_999) as i128 - 500_000_000)),
                )
                .with_precision_and_scale(9, 4)?,
            ),
        ),
        (
            field("dec128_int64", DataType::Decimal128(18, 6)),
            Arc::new(
                Decimal128Array::from_iter(idx().map(|i| {
                    opt(
                        i,
                        5,
                        3,
                        (m(i) % 999_999_999_999_999_999) as i128 - 400_000_000_000_000_000,
                    )
                }))
                .with_precision_and_scale(18, 6)?,
            ),
        ),
        (
            field("dec128", DataType::Decimal128(38, 10)),
            Arc::new(
                Decimal128Array::from_iter(idx().map(|i| {
                    opt(
                        i,
                        5,
                        4,
                        (i128::from(m(i)) * i128::from(m(i + 1) >> 2) % 10i128.pow(37))
                            * if i % 3 == 0 { -1 } else { 1 },
                    )
                }))
                .with_precision_and_scale(38, 10)?,
            ),
        ),
        (
            field("dec256", DataType::Decimal256(50, 5)),
            Arc::new(
                Decimal256Array::from_iter(idx().map(|i| {
                    let v = arrow_buffer::i256::from_i128(i128::from(m(i)) * 1_000_003)
                        .wrapping_mul(arrow_buffer::i256::from_i128(i128::from(m(i + 7))));
                    opt(i, 6, 0, if i % 2 == 0 { v } else { v.wrapping_neg() })
                }))
                .with_precision_and_scale(50, 5)?,
            ),
        ),
        (
            field("date32", DataType::Date32),
            Arc::new(Date32Array::from_iter(
                idx().map(|i| opt(i, 5, 0, (m(i) % 80_000) as i32 - 30_000)),
            )),
        ),
        (
            field("date64", DataType::Date64),
            Arc::new(Date64Array::from_iter(
                idx().map(|i| opt(i, 5, 1, ((m(i) % 80_000) as i64 - 30_000) * day)),
            )),
        ),
        (
            field("time32_s", DataType::Time32(TimeUnit::Second)),
            Arc::new(Time32SecondArray::from_iter(
                idx().map(|i| opt(i, 5, 2, (m(i) % 86_400) as i32)),
            )),
        ),
        (
            field("time32_ms", DataType::Time32(TimeUnit::Millisecond)),
            Arc::new(Time32MillisecondArray::from_iter(
                idx().map(|i| opt(i, 5, 3, (m(i) % 86_400_000) as i32)),
            )),
        ),
        (
            field("time64_us", DataType::Time64(TimeUnit::Microsecond)),
            Arc::new(Time64MicrosecondArray::from_iter(
                idx().map(|i| opt(i, 5, 4, (m(i) % 86_400_000_000) as i64)),
            )),
        ),
        (
            field("time64_ns", DataType::Time64(TimeUnit::Nanosecond)),
            Arc::new(Time64NanosecondArray::from_iter(
                idx().map(|i| opt(i, 6, 0, (m(i) % 86_400_000_000_000) as i64)),
            )),
        ),
    ];
    // Timestamps in every unit, without and with a time zone; within years 1900..2100 so
    // that every engine's range holds them.
    let span_s = 200 * 365 * 86_400i64;
    let secs = move |i: usize| (m(i) % span_s as u64) as i64 - span_s / 2;
    for (unit, per_s) in [
        (TimeUnit::Second, 1i64),
        (TimeUnit::Millisecond, 1_000),
        (TimeUnit::Microsecond, 1_000_000),
        (TimeUnit::Nanosecond, 1_000_000_000),
    ] {
        let suffix = match unit {
            TimeUnit::Second => "s",
            TimeUnit::Millisecond => "ms",
            TimeUnit::Microsecond => "us",
            TimeUnit::Nanosecond => "ns",
        };
        for tz in [None, Some(tz_utc.clone()), Some(tz_ny.clone())] {
            if tz.as_deref() == Some("America/New_York") && unit != TimeUnit::Microsecond {
                continue;
            }
            let name = match tz.as_deref() {
                None => format!("ts_{suffix}"),
                Some("UTC") => format!("ts_{suffix}_utc"),
                Some(_) => format!("ts_{suffix}_ny"),
            };
            let values: Vec<Option<i64>> = idx()
                .map(|i| opt(i, 5, 1, secs(i) * per_s + (m(i + 3) % per_s as u64) as i64))
                .collect();
            let array: ArrayRef = match unit {
                TimeUnit::Second => {
                    Arc::new(TimestampSecondArray::from(values).with_timezone_opt(tz.clone()))
                }
                TimeUnit::Millisecond => {
                    Arc::new(TimestampMillisecondArray::from(values).with_timezone_opt(tz.clone()))
                }
                TimeUnit::Microsecond => {
                    Arc::new(TimestampMicrosecondArray::from(values).with_timezone_opt(tz.clone()))
                }
                TimeUnit::Nanosecond => {
                    Arc::new(TimestampNanosecondArray::from(values).with_timezone_opt(tz.clone()))
                }
            };
            columns.push((field(&name, array.data_type().clone()), array));
        }
    }
    let word = |i: usize| words[(m(i) % words.len() as u64) as usize];
    let text = move |i: usize| format!("{}-{}", word(i), m(i) % 97);
    let blob = move |i: usize| {
        let len = (m(i) % 9) as usize;
        (0..len)
            .map(|k| (m(i + k) & 0xff) as u8)
            .collect::<Vec<u8>>()
    };
    let blobs: Vec<Option<Vec<u8>>> = idx().map(|i| opt(i, 6, 2, blob(i))).collect();
    let blob_refs: Vec<Option<&[u8]>> = blobs.iter().map(|b| b.as_deref()).collect();
    let uuid_field = field("uuid", DataType::FixedSizeBinary(16)).with_metadata(HashMap::from([(
        "ARROW:extension:name".to_string(),
        "arrow.uuid".to_string(),
    )]));
    let dict_values = StringArray::from(vec!["red", "green", "", "blue ☂"]);
    let dict_keys = Int32Array::from_iter(idx().map(|i| opt(i, 5, 3, (m(i) % 4) as i32)));
    let dict_ints = DictionaryArray::<Int8Type>::try_new(
        Int8Array::from_iter(idx().map(|i| opt(i, 6, 4, (m(i) % 3) as i8))),
        Arc::new(Int64Array::from(vec![-5i64, 0, 1 << 40])),
    )?;
    let more: Vec<(Field, ArrayRef)> = vec![
        (
            field("utf8", DataType::Utf8),
            Arc::new(StringArray::from_iter(idx().map(|i| opt(i, 5, 0, text(i))))) as ArrayRef,
        ),
        (
            field("large_utf8", DataType::LargeUtf8),
            Arc::new(LargeStringArray::from_iter(
                idx().map(|i| opt(i, 4, 1, word(i + 1))),
            )),
        ),
        (
            field("utf8_view", DataType::Utf8View),
            Arc::new(StringViewArray::from_iter(idx().map(|i| {
                opt(
                    i,
                    5,
                    2,
                    format!("{} and a longer tail past twelve bytes", word(i + 2)),
                )
            }))),
        ),
        (
            field("binary", DataType::Binary),
            Arc::new(BinaryArray::from(blob_refs.clone())),
        ),
        (
            field("large_binary", DataType::LargeBinary),
            Arc::new(LargeBinaryArray::from(blob_refs.clone())),
        ),
        (
            field("binary_view", DataType::BinaryView),
            Arc::new(BinaryViewArray::from(blob_refs)),
        ),
        (
            field("fsb5", DataType::FixedSizeBinary(5)),
            Arc::new(FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                idx().map(|i| opt(i, 5, 4, m(i).to_le_bytes()[..5].to_vec())),
                5,
            )?),
        ),
        (
            uuid_field,
            Arc::new(FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                idx().map(|i| {
                    let mut b = [0u8; 16];
                    b[..8].copy_from_slice(&m(i).to_be_bytes());
                    b[8..].copy_from_slice(&m(i + 1000).to_be_bytes());
                    opt(i, 6, 5, b.to_vec())
                }),
                16,
            )?),
        ),
        (
            field("bool", DataType::Boolean),
            Arc::new(BooleanArray::from_iter(
                idx().map(|i| opt(i, 3, 0, m(i).is_multiple_of(2))),
            )),
        ),
        (
            field("bool_required", DataType::Boolean).with_nullable(false),
            Arc::new(BooleanArray::from_iter(idx().map(|i| Some(i % 3 == 0)))),
        ),
        (
            field("i32_required", DataType::Int32).with_nullable(false),
            Arc::new(Int32Array::from_iter_values(
                idx().map(|i| i as i32 * 3 - 100),
            )),
        ),
        (
            field("all_null", DataType::Int64),
            Arc::new(Int64Array::from(vec![None; n])),
        ),
        (
            field(
                "dict_utf8",
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            ),
            Arc::new(DictionaryArray::<Int32Type>::try_new(
                dict_keys,
                Arc::new(dict_values),
            )?),
        ),
        (
            field(
                "dict_i64",
                DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Int64)),
            ),
            Arc::new(dict_ints),
        ),
    ];
    columns.extend(more);
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = columns.into_iter().unzip();
    Ok(RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)?)
}

/// `k` ascending with nulls last (ten rows per value), `s` descending with nulls first
/// within each `k`, and a payload: the order the `sorted` file declares.
fn sorted() -> Result<RecordBatch, BoxError> {
    let k: Int32Array = (0..ROWS)
        .map(|i| (i < 250).then_some((i / 10) as i32))
        .collect();
    let s: StringArray = (0..ROWS)
        .map(|i| (i % 10 != 0).then(|| format!("name-{:02}", 10 - i % 10)))
        .collect();
    let v = Float64Array::from_iter_values((0..ROWS).map(|i| mix(i) as f64 / 1e6));
    Ok(RecordBatch::try_from_iter_with_nullable(vec![
        ("k", Arc::new(k) as ArrayRef, true),
        ("s", Arc::new(s) as ArrayRef, true),
        ("v", Arc::new(v) as ArrayRef, false),
    ])?)
}

fn nested() -> Result<RecordBatch, BoxError> {
    let n = ROWS;
    let m = mix;
    // s: struct<a: int32, b: utf8, c: struct<d: float64>>, nulls at each level.
    let inner = StructArray::try_new(
        Fields::from(vec![Field::new("d", DataType::Float64, true)]),
        vec![Arc::new(Float64Array::from_iter((0..n).map(|i| {
            opt(
                i,
                4,
                0,
                if i % 23 == 0 {
                    f64::NAN
                } else {
                    i as f64 * 0.5
                },
            )
        })))],
        Some(nulls((0..n).map(|i| valid(i, 9, 1)))),
    )?;
    let s = StructArray::try_new(
        Fields::from(vec![
            Field::new("a", DataType::Int32, true),
            Field::new("b", DataType::Utf8, true),
            Field::new("c", inner.data_type().clone(), true),
        ]),
        vec![
            Arc::new(Int32Array::from_iter(
                (0..n).map(|i| opt(i, 5, 0, (m(i) % 1000) as i32)),
            )),
            Arc::new(StringArray::from_iter(
                (0..n).map(|i| opt(i, 6, 1, format!("ß{}", m(i) % 50))),
            )),
            Arc::new(inner),
        ],
        Some(nulls((0..n).map(|i| valid(i, 7, 3)))),
    )?;

    // ints: list<int32>: null lists, empty lists, null elements.
    let mut ints = ListBuilder::new(Int32Builder::new());
    // nested: list<list<int64>>.
    let mut nested_lists = ListBuilder::new(ListBuilder::new(Int64Builder::new()));
    // tags: large_list<utf8>.
    let mut fixed = FixedSizeListBuilder::new(Int16Builder::new(), 3);
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
    let mut tags: Vec<OptionalStrings> = Vec::with_capacity(n);
    for i in 0..n {
        match i % 6 {
            0 => ints.append_null(),
            1 => ints.append(true),
            _ => {
                for k in 0..(m(i) % 5) {
                    ints.values().append_option(opt(
                        k as usize + i,
                        4,
                        0,
                        (m(i + k as usize) % 500) as i32,
                    ));
                }
                ints.append(true);
            }
        }
        if i % 8 == 0 {
            nested_lists.append_null();
        } else {
            for k in 0..(i % 4) {
                if (i + k) % 5 == 0 {
                    nested_lists.values().append_null();
                } else {
                    for j in 0..((i + k) % 3) {
                        nested_lists
                            .values()
                            .values()
                            .append_value((i * 10 + j) as i64);
                    }
                    nested_lists.values().append(true);
                }
            }
            nested_lists.append(true);
        }
        tags.push(match i % 5 {
            0 => None,
            1 => Some(vec![]),
            _ => Some(
                (0..(i % 4))
                    .map(|k| opt(i + k, 3, 0, format!("tag{}", (i + k) % 11)))
                    .collect(),
            ),
        });
        if i % 7 == 0 {
            for _ in 0..3 {
                fixed.values().append_null();
            }
            fixed.append(false);
        } else {
            for k in 0..3 {
                fixed
                    .values()
                    .append_option(opt(i + k, 5, 0, (i * 3 + k) as i16));
            }
            fixed.append(true);
        }
        match i % 5 {
            0 => map.append(false)?,
            1 => map.append(true)?,
            _ => {
                for k in 0..(i % 3 + 1) {
                    map.keys().append_value(format!("k{k}"));
                    map.values()
                        .append_option(opt(i + k, 4, 1, (m(i) % 1000) as i64 - k as i64));
                }
                map.append(true)?;
            }
        }
    }
    let tags = large_string_list(tags);
    // list<struct<x: int32, y: utf8>>
    let points = {
        let mut offsets = vec![0i32];
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        let mut validity = Vec::new();
        for i in 0..n {
            let len = if i % 4 == 0 { 0 } else { (i % 3) as i32 };
            for k in 0..len {
                xs.push(opt(i + k as usize, 3, 0, i as i32 + k));
                ys.push(opt(i + k as usize, 4, 1, format!("p{k}")));
            }
            offsets.push(offsets.last().copied().unwrap_or(0) + len);
            validity.push(i % 9 != 4);
        }
        let entries = StructArray::try_new(
            Fields::from(vec![
                Field::new("x", DataType::Int32, true),
                Field::new("y", DataType::Utf8, true),
            ]),
            vec![
                Arc::new(Int32Array::from(xs)) as ArrayRef,
                Arc::new(StringArray::from(ys)),
            ],
            None,
        )?;
        ListArray::try_new(
            Arc::new(Field::new("item", entries.data_type().clone(), true)),
            arrow_buffer::OffsetBuffer::new(offsets.into()),
            Arc::new(entries),
            Some(nulls(validity)),
        )?
    };
    let s_id = Int64Array::from_iter_values((0..n).map(|i| i as i64 * 1_000_003));
    let ints = ints.finish();
    let nested_lists = nested_lists.finish();
    let fixed = fixed.finish();
    let map = map.finish();
    let columns: Vec<(&str, ArrayRef, bool)> = vec![
        ("s_id", Arc::new(s_id), false),
        ("s", Arc::new(s), true),
        ("ints", Arc::new(ints), true),
        ("nested", Arc::new(nested_lists), true),
        ("tags", Arc::new(tags), true),
        ("fixed", Arc::new(fixed), true),
        ("map", Arc::new(map), true),
        ("points", Arc::new(points), true),
    ];
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, a, nullable)| Field::new(*name, a.data_type().clone(), *nullable))
        .collect();
    let arrays = columns.into_iter().map(|(_, a, _)| a).collect();
    Ok(RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)?)
}

/// A validity buffer from per-row flags.
fn nulls(valid: impl IntoIterator<Item = bool>) -> arrow_buffer::NullBuffer {
    arrow_buffer::NullBuffer::from(valid.into_iter().collect::<Vec<bool>>())
}

/// One optional list of optional strings.
type OptionalStrings = Option<Vec<Option<String>>>;

/// A `LargeList<Utf8>` from nested options.
fn large_string_list(values: Vec<OptionalStrings>) -> LargeListArray {
    let mut builder = arrow_array::builder::LargeListBuilder::new(StringBuilder::new());
    for value in values {
        match value {
            None => builder.append_null(),
            Some(items) => {
                for item in items {
                    builder.values().append_option(item);
                }
                builder.append(true);
            }
        }
    }
    builder.finish()
}
