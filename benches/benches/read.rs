//! Reader: Herringbone's `ParquetRecordBatchReader` against arrow-rs's on the same
//! in-memory files (`Bytes`), single-threaded, batches of 8192 rows, about 1M rows per
//! case. The files are written by arrow-rs's `ArrowWriter` in the setup, where both
//! readers' batches are also compared once (not timed). A case Herringbone cannot read
//! yet (`Unsupported`: lists and maps before they land) is skipped with a note.
//!
//! At the end the bench prints arrow-rs time / Herringbone time per case and the
//! geometric mean, from criterion's mean estimates of this run.
//!
//! Run: `cargo bench -p herringbone-benches --bench read`
//! (defaults: 10 samples, 0.5 s warm-up, 1.5 s measurement per benchmark; criterion's
//! `--warm-up-time` / `--measurement-time` / `--sample-size` override them, and a filter
//! such as `-- int64` runs a subset).

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use arrow_array::builder::{Int64Builder, MapBuilder, StringBuilder};
use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type};
use arrow_array::{
    ArrayRef, Date32Array, Decimal128Array, Float32Array, Float64Array, Int32Array, Int64Array,
    ListArray, PrimitiveArray, RecordBatch, StringArray, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use criterion::{BenchmarkId, Criterion};
use herringbone::arrow::ErrorKind;
use herringbone::arrow::schema::StringRepresentation;
use herringbone::{ParquetRecordBatchReaderBuilder, SchemaOptions};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder as Arrow};
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

const ROWS: usize = 1 << 20;
const BATCH_SIZE: usize = 8192;

/// A small deterministic generator (xorshift64*): the same files on every run without a
/// `rand` dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// One benchmark case: a file and how each reader reads it.
struct Case {
    name: String,
    file: Bytes,
    /// Strings as `Utf8View` on both sides.
    utf8_view: bool,
}

#[derive(Clone, Copy)]
enum Nullability {
    /// Not nullable.
    Required,
    /// Nullable, no nulls.
    Optional,
    /// Nullable, about half the values null.
    HalfNulls,
}

impl Nullability {
    fn name(self) -> &'static str {
        match self {
            Nullability::Required => "required",
            Nullability::Optional => "optional",
            Nullability::HalfNulls => "half_nulls",
        }
    }

    fn nullable(self) -> bool {
        !matches!(self, Nullability::Required)
    }

    fn buffer(self, rng: &mut Rng, len: usize) -> Option<NullBuffer> {
        match self {
            Nullability::HalfNulls => Some(NullBuffer::from(
                (0..len).map(|_| rng.chance(50)).collect::<Vec<bool>>(),
            )),
            _ => None,
        }
    }
}

fn write(columns: Vec<(&str, ArrayRef, bool)>, props: WriterProperties) -> Bytes {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(name, array, nullable)| Field::new(*name, array.data_type().clone(), *nullable))
            .collect::<Vec<_>>(),
    ));
    let arrays = columns.into_iter().map(|(_, a, _)| a).collect();
    let batch = RecordBatch::try_new(schema.clone(), arrays).expect("bench batch");
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, schema, Some(props)).expect("writer");
    writer.write(&batch).expect("write");
    writer.close().expect("close");
    Bytes::from(out)
}

fn props(dictionary: bool) -> WriterProperties {
    WriterProperties::builder()
        .set_dictionary_enabled(dictionary)
        .set_compression(Compression::UNCOMPRESSED)
        .set_max_row_group_row_count(Some(ROWS))
        .build()
}

/// Random values, or (dictionary cases) values drawn from 1,000 distinct ones.
fn primitive<T: arrow_array::ArrowPrimitiveType>(
    rng: &mut Rng,
    dictionary: bool,
    nulls: Nullability,
    make: impl Fn(u64) -> T::Native,
) -> ArrayRef {
    let pool: Vec<T::Native> = (0..1000).map(|_| make(rng.next())).collect();
    let values: Vec<T::Native> = (0..ROWS)
        .map(|_| {
            if dictionary {
                pool[rng.below(1000) as usize]
            } else {
                make(rng.next())
            }
        })
        .collect();
    let nulls = nulls.buffer(rng, ROWS);
    Arc::new(PrimitiveArray::<T>::new(values.into(), nulls))
}

fn primitive_cases(cases: &mut Vec<Case>) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for type_name in ["int32", "int64", "float", "double"] {
        for dictionary in [false, true] {
            for nulls in [
                Nullability::Required,
                Nullability::Optional,
                Nullability::HalfNulls,
            ] {
                let array = match type_name {
                    "int32" => primitive::<Int32Type>(&mut rng, dictionary, nulls, |v| v as i32),
                    "int64" => primitive::<Int64Type>(&mut rng, dictionary, nulls, |v| v as i64),
                    "float" => primitive::<Float32Type>(&mut rng, dictionary, nulls, |v| {
                        (v % 1_000_000) as f32 / 7.0
                    }),
                    _ => primitive::<Float64Type>(&mut rng, dictionary, nulls, |v| {
                        (v % 1_000_000_000) as f64 / 7.0
                    }),
                };
                let encoding = if dictionary { "dict" } else { "plain" };
                cases.push(Case {
                    name: format!("{type_name}_{encoding}_{}", nulls.name()),
                    file: write(vec![("v", array, nulls.nullable())], props(dictionary)),
                    utf8_view: false,
                });
            }
        }
    }
}

fn random_text(rng: &mut Rng, min: u64, max: u64) -> String {
    const WORDS: &[&str] = &[
        "carefully",
        "final",
        "deposits",
        "sleep",
        "quickly",
        "express",
        "accounts",
        "ironic",
        "packages",
        "haggle",
        "furiously",
        "regular",
        "pending",
        "requests",
        "bold",
        "theodolites",
    ];
    let len = min + rng.below(max - min + 1);
    let mut s = String::new();
    while (s.len() as u64) < len {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
    }
    s.truncate(len as usize);
    s
}

fn string_cases(cases: &mut Vec<Case>) {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let unique: Vec<String> = (0..ROWS)
        .map(|i| format!("{}-{i}", random_text(&mut rng, 4, 20)))
        .collect();
    let pool: Vec<String> = (0..1000).map(|_| random_text(&mut rng, 8, 24)).collect();
    let repeated: Vec<&str> = (0..ROWS)
        .map(|_| pool[rng.below(1000) as usize].as_str())
        .collect();
    let plain = write(
        vec![("s", Arc::new(StringArray::from_iter_values(&unique)), false)],
        props(false),
    );
    let dictionary = write(
        vec![(
            "s",
            Arc::new(StringArray::from_iter_values(&repeated)),
            false,
        )],
        props(true),
    );
    let delta = write(
        vec![("s", Arc::new(StringArray::from_iter_values(&unique)), false)],
        WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_compression(Compression::UNCOMPRESSED)
            .set_max_row_group_row_count(Some(ROWS))
            .set_column_encoding(ColumnPath::from("s"), Encoding::DELTA_LENGTH_BYTE_ARRAY)
            .build(),
    );
    for (encoding, file) in [
        ("plain", plain),
        ("dict", dictionary),
        ("delta_length", delta),
    ] {
        for utf8_view in [false, true] {
            let representation = if utf8_view { "utf8view" } else { "utf8" };
            cases.push(Case {
                name: format!("string_{encoding}_{representation}"),
                file: file.clone(),
                utf8_view,
            });
        }
    }
}

/// 16 columns shaped like TPC-H `lineitem`, ZSTD, dictionary where arrow-rs's writer
/// keeps it (the low-cardinality columns).
fn lineitem_case(cases: &mut Vec<Case>) {
    let mut rng = Rng(0x94D0_49BB_1331_11EB);
    let n = ROWS;
    let orderkey: Vec<i64> = (0..n as i64).map(|i| i / 4 * 32 + 1).collect();
    let partkey: Vec<i64> = (0..n).map(|_| 1 + rng.below(200_000) as i64).collect();
    let suppkey: Vec<i64> = (0..n).map(|_| 1 + rng.below(10_000) as i64).collect();
    let linenumber: Vec<i32> = (0..n as i32).map(|i| i % 4 + 1).collect();
    let decimal = |rng: &mut Rng, max: u64| -> ArrayRef {
        let values: Vec<i128> = (0..n).map(|_| rng.below(max) as i128).collect();
        Arc::new(
            Decimal128Array::from(values)
                .with_precision_and_scale(15, 2)
                .expect("decimal(15,2)"),
        )
    };
    let quantity = decimal(&mut rng, 5_000);
    let price = decimal(&mut rng, 10_000_000);
    let discount = decimal(&mut rng, 11);
    let tax = decimal(&mut rng, 9);
    let flags = ["A", "N", "R"];
    let returnflag: Vec<&str> = (0..n).map(|_| flags[rng.below(3) as usize]).collect();
    let linestatus: Vec<&str> = (0..n).map(|_| ["O", "F"][rng.below(2) as usize]).collect();
    let date = |rng: &mut Rng| -> ArrayRef {
        Arc::new(Date32Array::from(
            (0..n)
                .map(|_| 8036 + rng.below(2526) as i32)
                .collect::<Vec<_>>(),
        ))
    };
    let shipdate = date(&mut rng);
    let commitdate = date(&mut rng);
    let receiptdate = date(&mut rng);
    let instructions = [
        "DELIVER IN PERSON",
        "COLLECT COD",
        "NONE",
        "TAKE BACK RETURN",
    ];
    let shipinstruct: Vec<&str> = (0..n)
        .map(|_| instructions[rng.below(4) as usize])
        .collect();
    let modes = ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"];
    let shipmode: Vec<&str> = (0..n).map(|_| modes[rng.below(7) as usize]).collect();
    let comment: Vec<String> = (0..n).map(|_| random_text(&mut rng, 10, 43)).collect();
    let columns: Vec<(&str, ArrayRef, bool)> = vec![
        ("l_orderkey", Arc::new(Int64Array::from(orderkey)), false),
        ("l_partkey", Arc::new(Int64Array::from(partkey)), false),
        ("l_suppkey", Arc::new(Int64Array::from(suppkey)), false),
        (
            "l_linenumber",
            Arc::new(Int32Array::from(linenumber)),
            false,
        ),
        ("l_quantity", quantity, false),
        ("l_extendedprice", price, false),
        ("l_discount", discount, false),
        ("l_tax", tax, false),
        (
            "l_returnflag",
            Arc::new(StringArray::from(returnflag)),
            false,
        ),
        (
            "l_linestatus",
            Arc::new(StringArray::from(linestatus)),
            false,
        ),
        ("l_shipdate", shipdate, false),
        ("l_commitdate", commitdate, false),
        ("l_receiptdate", receiptdate, false),
        (
            "l_shipinstruct",
            Arc::new(StringArray::from(shipinstruct)),
            false,
        ),
        ("l_shipmode", Arc::new(StringArray::from(shipmode)), false),
        (
            "l_comment",
            Arc::new(StringArray::from_iter_values(&comment)),
            false,
        ),
    ];
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_max_row_group_row_count(Some(ROWS))
        .build();
    cases.push(Case {
        name: "lineitem_zstd".to_string(),
        file: write(columns, props),
        utf8_view: false,
    });
}

/// list<int64>, a struct and a map<utf8, int64>, about 1M leaf values each, with some
/// nulls and empty lists.
fn nested_cases(cases: &mut Vec<Case>) {
    let mut rng = Rng(0xBF58_476D_1CE4_E5B9);
    let lists = ROWS / 4;
    let mut offsets = vec![0i32];
    let mut valid = Vec::with_capacity(lists);
    for _ in 0..lists {
        let is_valid = !rng.chance(5);
        let len = if is_valid { rng.below(9) as i32 } else { 0 };
        valid.push(is_valid);
        offsets.push(offsets.last().copied().unwrap_or(0) + len);
    }
    let total = *offsets.last().unwrap_or(&0) as usize;
    let values = Int64Array::from(
        (0..total)
            .map(|_| (!rng.chance(10)).then(|| rng.next() as i64 >> 20))
            .collect::<Vec<_>>(),
    );
    let list = ListArray::new(
        Arc::new(Field::new("item", DataType::Int64, true)),
        OffsetBuffer::new(offsets.into()),
        Arc::new(values),
        Some(NullBuffer::from(valid)),
    );
    cases.push(Case {
        name: "list_int64".to_string(),
        file: write(vec![("l", Arc::new(list), true)], props(false)),
        utf8_view: false,
    });

    let a: ArrayRef = Arc::new(Int64Array::from(
        (0..ROWS).map(|_| rng.next() as i64).collect::<Vec<_>>(),
    ));
    let b: ArrayRef = Arc::new(Float64Array::from(
        (0..ROWS)
            .map(|_| (!rng.chance(20)).then(|| rng.below(1 << 30) as f64 / 3.0))
            .collect::<Vec<_>>(),
    ));
    let c: ArrayRef = Arc::new(Float32Array::from(
        (0..ROWS)
            .map(|_| rng.below(1 << 20) as f32)
            .collect::<Vec<_>>(),
    ));
    let fields = vec![
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Float64, true),
        Field::new("c", DataType::Float32, false),
    ];
    let struct_nulls = NullBuffer::from((0..ROWS).map(|_| !rng.chance(10)).collect::<Vec<_>>());
    // A null struct hides its children's values; the writer stores them as nulls.
    let strukt = StructArray::new(fields.into(), vec![a, b, c], Some(struct_nulls));
    cases.push(Case {
        name: "struct_3_fields".to_string(),
        file: write(vec![("s", Arc::new(strukt), true)], props(false)),
        utf8_view: false,
    });

    let keys: Vec<String> = (0..64).map(|i| format!("key_{i:02}")).collect();
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
    for _ in 0..ROWS / 4 {
        if rng.chance(5) {
            map.append(false).expect("map null");
            continue;
        }
        for _ in 0..rng.below(9) {
            map.keys().append_value(&keys[rng.below(64) as usize]);
            map.values().append_value(rng.next() as i64 >> 16);
        }
        map.append(true).expect("map entry");
    }
    cases.push(Case {
        name: "map_utf8_int64".to_string(),
        file: write(vec![("m", Arc::new(map.finish()), true)], props(true)),
        utf8_view: false,
    });
}

/// The Arrow schema with every `Utf8` field (at any depth of structs) as `Utf8View`.
fn as_views(schema: &Schema) -> SchemaRef {
    fn field(f: &Field) -> Field {
        match f.data_type() {
            DataType::Utf8 => f.clone().with_data_type(DataType::Utf8View),
            DataType::Struct(children) => f.clone().with_data_type(DataType::Struct(
                children.iter().map(|c| field(c)).collect(),
            )),
            _ => f.clone(),
        }
    }
    Arc::new(Schema::new(
        schema.fields().iter().map(|f| field(f)).collect::<Vec<_>>(),
    ))
}

fn arrow_rs_reader(
    case: &Case,
) -> parquet::errors::Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader> {
    let mut options = ArrowReaderOptions::new();
    if case.utf8_view {
        let plain = Arrow::try_new(case.file.clone())?;
        options = options.with_schema(as_views(plain.schema()));
    }
    Arrow::try_new_with_options(case.file.clone(), options)?
        .with_batch_size(BATCH_SIZE)
        .build()
}

fn herringbone_reader(
    case: &Case,
) -> herringbone::arrow::Result<herringbone::ParquetRecordBatchReader> {
    let mut options = SchemaOptions::new();
    if case.utf8_view {
        options = options.with_strings(StringRepresentation::Utf8View);
    }
    ParquetRecordBatchReaderBuilder::try_new(case.file.clone())?
        .with_batch_size(BATCH_SIZE)
        .with_schema_options(options)
        .build()
}

/// Reads the case with both readers once; `Err` says why it is not benchmarked.
fn check(case: &Case) -> Result<(), String> {
    let reader = match herringbone_reader(case) {
        Ok(reader) => reader,
        Err(e) if e.kind() == ErrorKind::Unsupported => {
            return Err(format!("Herringbone: unsupported yet ({e})"));
        }
        Err(e) => return Err(format!("Herringbone failed to open the file: {e}")),
    };
    let ours = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("Herringbone failed to read: {e}"))?;
    let theirs = arrow_rs_reader(case)
        .map_err(|e| format!("arrow-rs failed: {e}"))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("arrow-rs failed: {e}"))?;
    // Columns and field types must agree; schema metadata may differ (arrow-rs keeps the
    // file's key-value metadata differently) and is not what is measured.
    if ours.len() != theirs.len() {
        return Err(format!(
            "readers disagree: {} batches vs arrow-rs {}",
            ours.len(),
            theirs.len()
        ));
    }
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        let types = |batch: &RecordBatch| -> Vec<DataType> {
            batch
                .schema()
                .fields()
                .iter()
                .map(|f| f.data_type().clone())
                .collect()
        };
        if types(a) != types(b) {
            return Err(format!(
                "readers disagree on types: {:?} vs arrow-rs {:?}",
                types(a),
                types(b)
            ));
        }
        if a.columns() != b.columns() {
            return Err(format!("readers disagree on the values of batch {i}"));
        }
    }
    Ok(())
}

/// Where criterion writes its estimates (its own rule: `CRITERION_HOME`, else the cargo
/// target directory's `criterion`).
fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    // The bench runs as target/<profile>/deps/read-<hash>.
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().nth(3).map(|t| t.join("criterion")))
        .unwrap_or_else(|| PathBuf::from("target/criterion"))
}

/// Criterion's mean estimate (ns) of `read/<side>/<case>` if it was measured in this run.
fn mean_ns(side: &str, case: &str, since: SystemTime) -> Option<f64> {
    let path = criterion_home()
        .join("read")
        .join(side)
        .join(case)
        .join("new")
        .join("estimates.json");
    let fresh = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t >= since);
    if !fresh {
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value["mean"]["point_estimate"].as_f64()
}

fn main() {
    let started = SystemTime::now();
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .configure_from_args();

    let mut cases = Vec::new();
    primitive_cases(&mut cases);
    string_cases(&mut cases);
    lineitem_case(&mut cases);
    nested_cases(&mut cases);

    let mut measured = Vec::new();
    {
        let mut group = criterion.benchmark_group("read");
        for case in &cases {
            if let Err(note) = check(case) {
                println!("note: skipping {}: {note}", case.name);
                continue;
            }
            group.bench_function(BenchmarkId::new("herringbone", &case.name), |b| {
                b.iter(|| {
                    let reader = herringbone_reader(case).expect("checked in setup");
                    for batch in reader {
                        black_box(batch.expect("checked in setup"));
                    }
                })
            });
            group.bench_function(BenchmarkId::new("arrow-rs", &case.name), |b| {
                b.iter(|| {
                    let reader = arrow_rs_reader(case).expect("checked in setup");
                    for batch in reader {
                        black_box(batch.expect("checked in setup"));
                    }
                })
            });
            measured.push(case.name.clone());
        }
        group.finish();
    }
    criterion.final_summary();

    println!("\nratio = arrow-rs time / Herringbone time (above 1: Herringbone faster)");
    println!(
        "{:<34} {:>14} {:>14} {:>7}",
        "case", "Herringbone", "arrow-rs", "ratio"
    );
    let mut log_sum = 0.0;
    let mut count = 0;
    for name in &measured {
        let (Some(ours), Some(theirs)) = (
            mean_ns("herringbone", name, started),
            mean_ns("arrow-rs", name, started),
        ) else {
            // Filtered out on the command line, or not written where expected.
            continue;
        };
        let ratio = theirs / ours;
        log_sum += ratio.ln();
        count += 1;
        println!(
            "{name:<34} {:>11.3} ms {:>11.3} ms {ratio:>6.2}x",
            ours / 1e6,
            theirs / 1e6
        );
    }
    if count > 0 {
        println!(
            "geometric mean over {count} cases: {:.2}x",
            (log_sum / f64::from(count)).exp()
        );
    }
}
