//! The predicate type: binding (column resolution, SQL-style literal coercion) and
//! evaluation over RecordBatches with three-valued logic, dictionary columns evaluated
//! per entry, struct fields by dotted path.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::*;
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields, TimeUnit};
use herringbone_arrow_bridge::predicate::{Predicate, col};

fn batch() -> RecordBatch {
    let x: ArrayRef = Arc::new(Int32Array::from(vec![
        Some(1),
        Some(2),
        None,
        Some(4),
        Some(5),
    ]));
    let name: ArrayRef = Arc::new(StringArray::from(vec![
        Some("apple"),
        Some("banana"),
        Some("avocado"),
        None,
        Some("cherry"),
    ]));
    let price: ArrayRef = Arc::new(
        Decimal128Array::from(vec![1250, 999, 1000, 1251, 0])
            .with_precision_and_scale(10, 2)
            .unwrap(),
    );
    let day: ArrayRef = Arc::new(Date32Array::from(vec![10_470, 10_469, 10_471, 0, 20_000]));
    let ts: ArrayRef = Arc::new(
        TimestampMicrosecondArray::from(vec![
            1_700_006_400_000_000,
            1_700_006_399_999_999,
            0,
            1_700_006_400_000_001,
            2_000_000_000_000_000,
        ])
        .with_timezone("UTC"),
    );
    let keys = Int32Array::from(vec![Some(0), Some(1), Some(0), None, Some(2)]);
    let values: ArrayRef = Arc::new(StringArray::from(vec!["R", "A", "N"]));
    let flag: ArrayRef = Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values).unwrap());
    let inner_x: ArrayRef = Arc::new(Int32Array::from(vec![10, 20, 30, 40, 50]));
    let s: ArrayRef = Arc::new(
        StructArray::try_new(
            Fields::from(vec![Field::new("x", DataType::Int32, false)]),
            vec![inner_x],
            Some(NullBuffer::from(vec![true, true, true, false, true])),
        )
        .unwrap(),
    );
    let f: ArrayRef = Arc::new(Float64Array::from(vec![-0.0, 0.0, f64::NAN, 1.5, -1.0]));
    RecordBatch::try_from_iter([
        ("x", x),
        ("name", name),
        ("price", price),
        ("day", day),
        ("ts", ts),
        ("flag", flag),
        ("s", s),
        ("f", f),
    ])
    .unwrap()
}

/// The rows selected, as indices.
fn rows(text: &str) -> Vec<usize> {
    let b = batch();
    let p = Predicate::parse(text).unwrap().bind(&b.schema()).unwrap();
    let mask = p.evaluate(&b).unwrap();
    (0..mask.len())
        .filter(|&i| mask.is_valid(i) && mask.value(i))
        .collect()
}

#[test]
fn comparisons_with_sql_null_semantics() {
    assert_eq!(rows("x > 2"), [3, 4]);
    assert_eq!(rows("x != 2"), [0, 3, 4]);
    assert_eq!(rows("NOT x > 2"), [0, 1]);
    assert_eq!(rows("x IS NULL"), [2]);
    assert_eq!(rows("x IS NOT NULL AND x <= 2"), [0, 1]);
    // NULL literal: never true, also under NOT.
    assert_eq!(rows("x = NULL"), Vec::<usize>::new());
    assert_eq!(rows("NOT x = NULL"), Vec::<usize>::new());
    // OR with an unknown side is true where the other side is.
    assert_eq!(rows("x > 4 OR name = 'avocado'"), [2, 4]);
    assert_eq!(rows("x IN (1, 5, 7)"), [0, 4]);
    assert_eq!(rows("x NOT IN (1, 5)"), [1, 3]);
    // NOT IN with a NULL in the list is never true; IN still is where it matches.
    assert_eq!(rows("x NOT IN (1, NULL)"), Vec::<usize>::new());
    assert_eq!(rows("x IN (1, NULL)"), [0]);
    assert_eq!(rows("x BETWEEN 2 AND 4"), [1, 3]);
    assert_eq!(rows("x NOT BETWEEN 2 AND 4"), [0, 4]);
    assert_eq!(rows("TRUE"), [0, 1, 2, 3, 4]);
    assert_eq!(rows("FALSE OR x = 1"), [0]);
}

#[test]
fn literals_coerced_to_the_column_type() {
    // Integer column, fractional literal: x < 2.5 is x <= 2, x = 2.5 never, x != 2.5 non-null.
    assert_eq!(rows("x < 2.5"), [0, 1]);
    assert_eq!(rows("x >= 2.5"), [3, 4]);
    assert_eq!(rows("x = 2.5"), Vec::<usize>::new());
    assert_eq!(rows("NOT x = 2.5"), [0, 1, 3, 4]);
    assert_eq!(rows("x < 1e10"), [0, 1, 3, 4]);
    assert_eq!(rows("x > '3'"), [3, 4]);
    // Decimal column with numbers and strings of any scale.
    assert_eq!(rows("price = 12.50"), [0]);
    assert_eq!(rows("price > 12.5"), [3]);
    assert_eq!(rows("price >= 10"), [0, 2, 3]);
    assert_eq!(rows("price < 10.001"), [1, 2, 4]);
    assert_eq!(rows("price = '9.99'"), [1]);
    // Dates and timestamps from strings.
    assert_eq!(rows("day >= '1998-09-01'"), [0, 2, 4]);
    assert_eq!(rows("day = DATE '1998-09-01'"), [0]);
    assert_eq!(rows("ts >= '2023-11-15 00:00:00'"), [0, 3, 4]);
    assert_eq!(rows("ts < '2023-11-15T00:00:00Z'"), [1, 2]);
    // Finer than the unit: between two microseconds.
    assert_eq!(rows("ts > '2023-11-15 00:00:00.0000005'"), [3, 4]);
}

#[test]
fn strings_like_and_prefixes() {
    assert_eq!(rows("name LIKE 'a%'"), [0, 2]);
    assert_eq!(rows("name NOT LIKE 'a%'"), [1, 4]);
    assert_eq!(rows("name ILIKE 'A%O'"), [2]);
    assert_eq!(rows("name LIKE '_a%'"), [1]);
    assert_eq!(rows("name > 'b'"), [1, 4]);
    let b = batch();
    let p = col("name").starts_with("ch").bind(&b.schema()).unwrap();
    assert_eq!(p.filter(&b).unwrap().num_rows(), 1);
}

#[test]
fn dictionary_struct_and_float_columns() {
    assert_eq!(rows("flag = 'R'"), [0, 2]);
    assert_eq!(rows("flag != 'R'"), [1, 4]);
    assert_eq!(rows("flag IN ('A', 'N')"), [1, 4]);
    assert_eq!(rows("flag IS NULL"), [3]);
    assert_eq!(rows("flag LIKE 'N%'"), [4]);
    // A field under a null struct slot is null.
    assert_eq!(rows("s.x >= 30"), [2, 4]);
    assert_eq!(rows("s.x IS NULL"), [3]);
    // Arrow's order for floats (as DataFusion's): -0.0 < +0.0, NaN above every number.
    assert_eq!(rows("f = 0.0"), [1]);
    assert_eq!(rows("f > 1"), [2, 3]);
    assert_eq!(rows("f < 0"), [0, 4]);
}

#[test]
fn filter_keeps_matching_rows_and_all_columns() {
    let b = batch();
    let p = Predicate::parse("x >= 2 AND flag = 'N'")
        .unwrap()
        .bind(&b.schema())
        .unwrap();
    let out = p.filter(&b).unwrap();
    assert_eq!(out.num_rows(), 1);
    assert_eq!(out.num_columns(), b.num_columns());
    assert_eq!(out.column(0).as_primitive::<Int32Type>().value(0), 5);
    // A batch with only the predicate's columns is enough.
    let narrow = b.project(&[0, 5]).unwrap();
    assert_eq!(p.evaluate(&narrow).unwrap().true_count(), 1);
}

#[test]
fn binding_errors_name_the_column_and_the_problem() {
    let schema = batch().schema();
    let err = |text: &str| {
        Predicate::parse(text)
            .unwrap()
            .bind(&schema)
            .unwrap_err()
            .to_string()
    };
    let e = err("nope = 1");
    assert!(e.contains("no column `nope`"), "{e}");
    let e = err("day = 'not a date'");
    assert!(e.contains("is not a value of column day (Date32)"), "{e}");
    let e = err("x = 'abc'");
    assert!(
        e.contains("'abc' is not a number (column x is Int32)"),
        "{e}"
    );
    let e = err("x LIKE 'a%'");
    assert!(e.contains("LIKE needs a string column, x is Int32"), "{e}");
    let e = err("s = 1");
    assert!(
        e.contains("only columns of values can be filtered on"),
        "{e}"
    );
    let e = err("day = TRUE");
    assert!(e.contains("cannot be compared with column day"), "{e}");
    // Case-insensitive fallback when unambiguous.
    assert!(Predicate::parse("X = 1").unwrap().bind(&schema).is_ok());
    // A batch missing the column at evaluation time.
    let p = Predicate::parse("x = 1").unwrap().bind(&schema).unwrap();
    let other = batch().project(&[1]).unwrap();
    let e = p.evaluate(&other).unwrap_err().to_string();
    assert!(e.contains("the batch has no column x"), "{e}");
}

#[test]
fn timestamps_of_other_units_and_zones() {
    let ts: ArrayRef =
        Arc::new(TimestampSecondArray::from(vec![0, 60, 3600]).with_timezone("+01:00"));
    let b = RecordBatch::try_from_iter([("t", ts)]).unwrap();
    assert_eq!(
        b.schema().field(0).data_type(),
        &DataType::Timestamp(TimeUnit::Second, Some("+01:00".into()))
    );
    let p = Predicate::parse("t >= '1970-01-01T00:01:00Z'")
        .unwrap()
        .bind(&b.schema())
        .unwrap();
    assert_eq!(
        p.evaluate(&b).unwrap(),
        BooleanArray::from(vec![false, true, true])
    );
}

/// A column handed over as runs of dictionary keys (as a reader's row filter may be)
/// evaluates to what its expanded values do, sliced or not, nulls included.
#[test]
fn runs_of_dictionary_keys_evaluate_like_their_values() {
    let values: ArrayRef = Arc::new(StringArray::from(vec!["apple", "banana", "cherry"]));
    let keys = Int32Array::from(vec![Some(0), None, Some(2), Some(1), Some(0)]);
    let dictionary = DictionaryArray::<Int32Type>::try_new(keys, values).unwrap();
    let ends = Int32Array::from(vec![3, 4, 8, 9, 12]);
    let runs: ArrayRef = Arc::new(RunArray::<Int32Type>::try_new(&ends, &dictionary).unwrap());
    let plain = arrow_cast::cast(&runs, &DataType::Utf8).unwrap();
    let bound_schema = arrow_schema::Schema::new(vec![Field::new("s", DataType::Utf8, true)]);
    for (offset, len) in [(0, 12), (2, 7), (5, 1), (9, 3)] {
        let runs = runs.slice(offset, len);
        let plain = plain.slice(offset, len);
        let field = |a: &ArrayRef| Field::new("s", a.data_type().clone(), true);
        let as_runs = RecordBatch::try_new(
            Arc::new(arrow_schema::Schema::new(vec![field(&runs)])),
            vec![runs.clone()],
        )
        .unwrap();
        let as_plain = RecordBatch::try_new(
            Arc::new(arrow_schema::Schema::new(vec![field(&plain)])),
            vec![plain.clone()],
        )
        .unwrap();
        for text in [
            "s = 'cherry'",
            "s IN ('apple', 'banana')",
            "s IS NULL",
            "NOT (s < 'b')",
            "s LIKE '%an%' OR s IS NULL",
        ] {
            let p = Predicate::parse(text).unwrap().bind(&bound_schema).unwrap();
            assert_eq!(
                p.evaluate(&as_runs).unwrap(),
                p.evaluate(&as_plain).unwrap(),
                "{text} over rows {offset}..{}",
                offset + len
            );
        }
    }
}
