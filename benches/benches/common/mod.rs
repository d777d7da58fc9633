//! What the reader and writer benchmarks share: the data: about 1M rows per case of
//! deterministic pseudo-random values (ints and floats plain and dictionary-friendly,
//! required / optional / half nulls; strings unique, repeated and for DELTA_LENGTH;
//! a TPC-H `lineitem`-shaped table; list, struct and map columns), each with the writer
//! settings it is meant to be written with; and criterion's estimates, read back for the
//! ratio tables the benches print.

// Each bench includes this module and uses part of it (the writer bench never reads
// `Dataset::strings`).
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use arrow_array::builder::{Int64Builder, MapBuilder, StringBuilder};
use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type};
use arrow_array::{
    ArrayRef, Date32Array, Decimal128Array, Float32Array, Float64Array, Int32Array, Int64Array,
    ListArray, PrimitiveArray, RecordBatch, StringArray, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Schema};

/// Rows per case (leaf values for the nested cases).
pub const ROWS: usize = 1 << 20;

/// A small deterministic generator (xorshift64*): the same data on every run without a
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

/// One table and how it is meant to be written.
pub struct Dataset {
    /// Case name (`int64_dict_half_nulls`, `string_plain`, ...).
    pub name: String,
    /// All rows, one batch.
    pub batch: RecordBatch,
    /// Dictionary encoding on (with the writers' default fallback).
    pub dictionary: bool,
    /// ZSTD at level 1 (arrow-rs's default level) rather than uncompressed.
    pub zstd: bool,
    /// A column written with DELTA_LENGTH_BYTE_ARRAY instead of PLAIN.
    pub delta_length_column: Option<&'static str>,
    /// A single string column: the reader bench reads it as Utf8 and as Utf8View.
    pub strings: bool,
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

fn batch(columns: Vec<(&str, ArrayRef, bool)>) -> RecordBatch {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(name, array, nullable)| Field::new(*name, array.data_type().clone(), *nullable))
            .collect::<Vec<_>>(),
    ));
    let arrays = columns.into_iter().map(|(_, a, _)| a).collect();
    RecordBatch::try_new(schema, arrays).expect("bench batch")
}

fn dataset(name: impl Into<String>, columns: Vec<(&str, ArrayRef, bool)>) -> Dataset {
    Dataset {
        name: name.into(),
        batch: batch(columns),
        dictionary: false,
        zstd: false,
        delta_length_column: None,
        strings: false,
    }
}

/// Every case, in the order the benches report them.
pub fn datasets() -> Vec<Dataset> {
    let mut out = Vec::new();
    primitive_cases(&mut out);
    string_cases(&mut out);
    lineitem_case(&mut out);
    nested_cases(&mut out);
    out
}

/// The TPC-H `lineitem`-shaped table alone (the filter bench's data).
pub fn lineitem() -> Dataset {
    let mut out = Vec::new();
    lineitem_case(&mut out);
    out.pop().expect("the lineitem case")
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

fn primitive_cases(out: &mut Vec<Dataset>) {
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
                out.push(Dataset {
                    dictionary,
                    ..dataset(
                        format!("{type_name}_{encoding}_{}", nulls.name()),
                        vec![("v", array, nulls.nullable())],
                    )
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

/// `string_plain` (unique values), `string_dict` (1,000 distinct values) and
/// `string_delta_length` (the unique values, DELTA_LENGTH_BYTE_ARRAY).
fn string_cases(out: &mut Vec<Dataset>) {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let unique: Vec<String> = (0..ROWS)
        .map(|i| format!("{}-{i}", random_text(&mut rng, 4, 20)))
        .collect();
    let pool: Vec<String> = (0..1000).map(|_| random_text(&mut rng, 8, 24)).collect();
    let repeated: Vec<&str> = (0..ROWS)
        .map(|_| pool[rng.below(1000) as usize].as_str())
        .collect();
    let unique: ArrayRef = Arc::new(StringArray::from_iter_values(&unique));
    out.push(Dataset {
        strings: true,
        ..dataset("string_plain", vec![("s", unique.clone(), false)])
    });
    out.push(Dataset {
        strings: true,
        dictionary: true,
        ..dataset(
            "string_dict",
            vec![(
                "s",
                Arc::new(StringArray::from_iter_values(&repeated)),
                false,
            )],
        )
    });
    out.push(Dataset {
        strings: true,
        delta_length_column: Some("s"),
        ..dataset("string_delta_length", vec![("s", unique, false)])
    });
}

/// 16 columns shaped like TPC-H `lineitem`, ZSTD, dictionary on (the writers keep it for
/// the low-cardinality columns and fall back elsewhere).
fn lineitem_case(out: &mut Vec<Dataset>) {
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
    out.push(Dataset {
        dictionary: true,
        zstd: true,
        ..dataset("lineitem_zstd", columns)
    });
}

/// list<int64>, a struct and a map<utf8, int64>, about 1M leaf values each, with some
/// nulls and empty lists.
fn nested_cases(out: &mut Vec<Dataset>) {
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
    out.push(dataset("list_int64", vec![("l", Arc::new(list), true)]));

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
    out.push(dataset(
        "struct_3_fields",
        vec![("s", Arc::new(strukt), true)],
    ));

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
    out.push(Dataset {
        dictionary: true,
        ..dataset("map_utf8_int64", vec![("m", Arc::new(map.finish()), true)])
    });
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
    // The bench runs as target/<profile>/deps/<bench>-<hash>.
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().nth(3).map(|t| t.join("criterion")))
        .unwrap_or_else(|| PathBuf::from("target/criterion"))
}

/// Criterion's mean estimate (ns) of `<group>/<side>/<case>` if it was measured in this
/// run (written at or after `since`).
pub fn mean_ns(group: &str, side: &str, case: &str, since: SystemTime) -> Option<f64> {
    let path = criterion_home()
        .join(group)
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
