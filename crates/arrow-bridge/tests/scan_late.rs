//! Late materialisation in filtered scans: the predicate's fields are decoded first and
//! the other projected fields only for the rows it keeps. Every read equals a brute-force
//! filter of the whole file (projections with structs and lists, nulls, dictionaries,
//! offsets, limits, any pruning), and a selective predicate leaves the other columns'
//! pages undecoded (counted in `ScanMetrics`).

use crate::common;

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::*;
use arrow_schema::{DataType, Field, Fields};
use bytes::Bytes;
use herringbone_arrow_bridge::predicate::Predicate;
use herringbone_arrow_bridge::prune::read_offset_index;
use herringbone_arrow_bridge::read::{ParquetRecordBatchReaderBuilder, RowFilter};
use herringbone_arrow_bridge::scan::{PruningOptions, ScanBuilder};
use herringbone_arrow_bridge::schema::Projection;
use herringbone_arrow_bridge::write::WriterProperties;
use proptest::prelude::*;

const NO_PRUNING: PruningOptions = PruningOptions {
    statistics: false,
    bloom_filters: false,
    page_index: false,
};

/// Rows of the scan, concatenated.
fn collect<R: RecordBatchReader>(scan: &mut R) -> RecordBatch {
    let schema = scan.schema();
    let batches: Vec<RecordBatch> = scan.by_ref().collect::<Result<_, _>>().unwrap();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

/// The rows of the whole file where `predicate` is true, projected to `roots`, after
/// `offset` and up to `limit`.
fn brute_force(
    file: &Bytes,
    predicate: &Predicate,
    roots: &[usize],
    offset: usize,
    limit: Option<usize>,
) -> RecordBatch {
    let all = common::read_all(file);
    let kept = predicate.bind(&all.schema()).unwrap().filter(&all).unwrap();
    let kept = kept.project(roots).unwrap();
    let start = offset.min(kept.num_rows());
    let len = limit.map_or(kept.num_rows() - start, |l| l.min(kept.num_rows() - start));
    kept.slice(start, len)
}

/// `x` sorted 0..rows, `payload` a distinct string per row, pages of 100 rows.
fn sorted_file(rows: i64) -> Bytes {
    let x: ArrayRef = Arc::new(Int64Array::from_iter_values(0..rows));
    let payload: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|i| format!("payload of row {i:08}")),
    ));
    let batch = RecordBatch::try_from_iter([("x", x), ("payload", payload)]).unwrap();
    let props = WriterProperties::builder()
        .set_data_page_row_limit(100)
        .set_dictionary_enabled(false)
        .build();
    common::write(&[batch], props)
}

/// The first row of each data page of leaf `column` (row group 0), from its offset index.
fn page_first_rows(file: &Bytes, column: usize) -> Vec<i64> {
    let (metadata, _, _) = common::open(file);
    let index = read_offset_index(file, &metadata.row_groups[0].columns[column], None)
        .unwrap()
        .unwrap();
    index
        .page_locations
        .iter()
        .map(|p| p.first_row_index)
        .collect()
}

#[test]
fn a_selective_predicate_leaves_the_other_columns_pages_undecoded() {
    let rows = 20_000;
    let file = sorted_file(rows);
    let text = "(x >= 10000 AND x < 10150) OR x = 19999";
    let predicate = Predicate::parse(text).unwrap();
    // Nothing pruned before decoding: every saving is late materialisation's.
    let mut scan = ScanBuilder::try_new(file.clone())
        .unwrap()
        .with_predicate(predicate.clone())
        .with_pruning(NO_PRUNING)
        .with_batch_size(1024)
        .build()
        .unwrap();
    let got = collect(&mut scan);
    assert_eq!(got, brute_force(&file, &predicate, &[0, 1], 0, None));
    let x: Vec<i64> = got.column(0).as_primitive::<Int64Type>().values().to_vec();
    let mut expected: Vec<i64> = (10_000..10_150).collect();
    expected.push(19_999);
    assert_eq!(x, expected);
    assert_eq!(
        got.column(1).as_string::<i32>().value(150),
        "payload of row 00019999"
    );
    let metrics = scan.metrics();
    assert_eq!(metrics.rows_matched, 151);
    assert_eq!(metrics.rows_filtered_late, 20_000 - 151);
    // The payload pages wholly inside rows 0..10000 and 10150..19999 are stepped over
    // without decompression (skips of successive batches join, so pages across batch
    // boundaries are stepped over too).
    let firsts = page_first_rows(&file, 1);
    let inside = (0..firsts.len())
        .filter(|&i| {
            let start = firsts[i];
            let end = firsts.get(i + 1).copied().unwrap_or(rows);
            end <= 10_000 || (start >= 10_150 && end <= 19_999)
        })
        .count();
    assert!(inside > 150, "{} pages", firsts.len());
    assert_eq!(metrics.pages_skipped_late, inside);
}

#[test]
fn a_predicate_matching_nothing_decodes_no_page_of_the_other_columns() {
    let file = sorted_file(5_000);
    let predicate = Predicate::parse("x < 0").unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_batch_size(700)
        .with_row_filter(RowFilter::new(vec!["x".into()], move |batch| {
            predicate.bind(&batch.schema())?.evaluate(batch)
        }))
        .build()
        .unwrap();
    let mut reader = reader;
    let batches: Vec<RecordBatch> = reader.by_ref().collect::<Result<_, _>>().unwrap();
    assert!(batches.is_empty());
    let metrics = reader.metrics();
    // `x`'s pages are decoded; not one of `payload`'s (its skip, joined over the
    // batches, reaches the end of the row group and is never applied).
    assert_eq!(metrics.pages_decoded, page_first_rows(&file, 0).len());
    assert_eq!(metrics.rows_filtered_late, 5_000);
}

#[test]
fn a_dense_predicate_reads_everything_then_filters() {
    // Every other row matches: the mask has a run per two rows, so the other columns
    // are decoded whole and filtered; the result is the same.
    let file = sorted_file(3_000);
    let mut scan = ScanBuilder::try_new(file.clone())
        .unwrap()
        .with_predicate(Predicate::parse("x != 5").unwrap())
        .with_pruning(NO_PRUNING)
        .build()
        .unwrap();
    let got = collect(&mut scan);
    assert_eq!(got.num_rows(), 2_999);
    assert_eq!(
        got.column(1).as_string::<i32>().value(5),
        "payload of row 00000006"
    );
    // One run before and one after the dropped row: refined, one row not decoded.
    assert_eq!(scan.metrics().rows_filtered_late, 1);
    let mut reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .with_row_filter(RowFilter::new(vec!["x".into()], |batch| {
            let x = batch.column(0).as_primitive::<Int64Type>();
            Ok(x.iter().map(|v| v.map(|v| v % 2 == 0)).collect())
        }))
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.by_ref().collect::<Result<_, _>>().unwrap();
    let metrics = reader.metrics();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 1_500);
    assert_eq!(
        batches[0].column(1).as_string::<i32>().value(1),
        "payload of row 00000002"
    );
    // Dense: nothing skipped late.
    assert_eq!(metrics.rows_filtered_late, 0);
}

#[test]
fn a_row_filter_naming_a_field_outside_the_projection_is_an_error() {
    let file = sorted_file(10);
    let error = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .with_projection(Projection::Roots(vec![1]))
        .with_row_filter(RowFilter::new(vec!["x".into()], |batch| {
            Ok(BooleanArray::from(vec![true; batch.num_rows()]))
        }))
        .build()
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("row filter: the projection has no field x"),
        "{error}"
    );
}

/// A string column written dictionary-encoded (or not, or falling back to plain midway)
/// and read as `Utf8`: the predicate column is decoded as keys and evaluated per entry,
/// its values expanded only for the rows kept when it is returned.
#[test]
fn dictionary_encoded_predicate_columns_give_the_same_rows() {
    let rows = 4_000usize;
    let tag: ArrayRef = Arc::new(StringArray::from_iter((0..rows).map(|i| {
        (i % 13 != 0).then(|| ["alpha", "beta", "gamma", "delta"][i % 4].to_string())
    })));
    let unique: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|i| format!("u{i}")),
    ));
    let n: ArrayRef = Arc::new(Int64Array::from_iter_values(0..rows as i64));
    let batch = RecordBatch::try_from_iter([("tag", tag), ("unique", unique), ("n", n)]).unwrap();
    for (dictionary, page_limit) in [(true, None), (false, None), (true, Some(16))] {
        let mut props = WriterProperties::builder()
            .set_dictionary_enabled(dictionary)
            .set_data_page_row_limit(500)
            .set_max_row_group_rows(1_500);
        if let Some(limit) = page_limit {
            props = props.set_dictionary_page_size_limit(limit);
        }
        let file = common::write(std::slice::from_ref(&batch), props.build());
        for text in [
            "tag = 'beta'",
            "tag IN ('alpha', 'delta') AND n > 100",
            "tag LIKE 'g%' OR tag IS NULL",
            "unique = 'u77' OR unique = 'u3999'",
            "NOT (tag >= 'beta')",
        ] {
            let predicate = Predicate::parse(text).unwrap();
            for roots in [vec![0, 1, 2], vec![2], vec![1, 2], vec![0]] {
                let mut scan = ScanBuilder::try_new(file.clone())
                    .unwrap()
                    .with_predicate(predicate.clone())
                    .with_projection(Projection::Roots(roots.clone()))
                    .with_batch_size(333)
                    .build()
                    .unwrap();
                let got = collect(&mut scan);
                assert_eq!(
                    got,
                    brute_force(&file, &predicate, &roots, 0, None),
                    "{text}, roots {roots:?}, dictionary {dictionary}, limit {page_limit:?}"
                );
                assert_eq!(got.schema().field(0).data_type(), &{
                    let all = common::read_all(&file);
                    all.schema().field(roots[0]).data_type().clone()
                });
            }
        }
        // The filter is handed keys over the dictionary exactly when every data page
        // of the chunk is dictionary-encoded.
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = seen.clone();
        let mut reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .unwrap()
            .with_row_filter(RowFilter::new(vec!["tag".into()], move |batch| {
                record
                    .lock()
                    .unwrap()
                    .push(batch.column(0).data_type().clone());
                Ok(BooleanArray::from(vec![true; batch.num_rows()]))
            }))
            .build()
            .unwrap();
        let got = collect(&mut reader);
        assert_eq!(got, common::read_all(&file));
        let keyed = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        let seen = seen.lock().unwrap();
        assert!(!seen.is_empty());
        let all_keyed = seen.iter().all(|t| *t == keyed);
        let none_keyed = seen.iter().all(|t| *t == DataType::Utf8);
        match (dictionary, page_limit) {
            (true, None) => assert!(all_keyed, "{seen:?}"),
            (false, _) => assert!(none_keyed, "{seen:?}"),
            // A row group falling back to plain pages is read as values.
            (true, Some(_)) => assert!(!all_keyed, "{seen:?}"),
        }
    }
}

#[derive(Debug, Clone)]
struct Table {
    a: Vec<Option<i32>>,
    s: Vec<Option<&'static str>>,
    x: Vec<Option<i32>>,
    struct_valid: Vec<bool>,
    list_len: Vec<Option<usize>>,
}

const WORDS: &[&str] = &["", "a", "ab", "b", "ba", "zz"];

fn table() -> impl Strategy<Value = Table> {
    (1usize..400).prop_flat_map(|n| {
        (
            prop::collection::vec(prop::option::weighted(0.9, -30i32..30), n),
            prop::collection::vec(prop::option::weighted(0.85, prop::sample::select(WORDS)), n),
            prop::collection::vec(prop::option::weighted(0.8, 0i32..10), n),
            prop::collection::vec(prop::bool::weighted(0.85), n),
            prop::collection::vec(prop::option::weighted(0.85, 0usize..4), n),
            any::<bool>(),
        )
            .prop_map(|(mut a, s, x, struct_valid, list_len, sorted)| {
                if sorted {
                    a.sort();
                }
                Table {
                    a,
                    s,
                    x,
                    struct_valid,
                    list_len,
                }
            })
    })
}

/// `a: int32, s: utf8, st: struct<x: int32, y: utf8>, l: list<int32>, p: utf8`.
fn batch(t: &Table) -> RecordBatch {
    let n = t.a.len();
    let y: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..n).map(|i| format!("y{i}")),
    ));
    let x: ArrayRef = Arc::new(Int32Array::from(t.x.clone()));
    let st = StructArray::try_new(
        Fields::from(vec![
            Field::new("x", DataType::Int32, true),
            Field::new("y", DataType::Utf8, false),
        ]),
        vec![x, y],
        Some(t.struct_valid.iter().copied().collect()),
    )
    .unwrap();
    let mut lists = ListBuilder::new(Int32Builder::new());
    for (i, len) in t.list_len.iter().enumerate() {
        match len {
            Some(len) => {
                for j in 0..*len {
                    lists.values().append_value((i * 10 + j) as i32);
                }
                lists.append(true);
            }
            None => lists.append(false),
        }
    }
    let p: ArrayRef = Arc::new(StringArray::from_iter(
        (0..n).map(|i| (i % 5 != 1).then(|| format!("payload {i}"))),
    ));
    RecordBatch::try_from_iter([
        ("a", Arc::new(Int32Array::from(t.a.clone())) as ArrayRef),
        ("s", Arc::new(StringArray::from(t.s.clone()))),
        ("st", Arc::new(st)),
        ("l", Arc::new(lists.finish())),
        ("p", p),
    ])
    .unwrap()
}

fn atom() -> impl Strategy<Value = String> {
    let op = prop::sample::select(&["=", "!=", "<", "<=", ">", ">="][..]);
    prop_oneof![
        (op.clone(), -32i32..32).prop_map(|(op, v)| format!("a {op} {v}")),
        (op.clone(), prop::sample::select(WORDS)).prop_map(|(op, w)| format!("s {op} '{w}'")),
        (op, 0i32..10).prop_map(|(op, v)| format!("st.x {op} {v}")),
        any::<bool>().prop_map(|neg| format!("st.x IS {}NULL", if neg { "NOT " } else { "" })),
        prop::sample::select(WORDS).prop_map(|w| format!("s LIKE '{w}%'")),
    ]
}

fn predicate() -> impl Strategy<Value = String> {
    atom().prop_recursive(2, 6, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..3)
                .prop_map(|v| format!("({})", v.join(" AND "))),
            prop::collection::vec(inner.clone(), 2..3)
                .prop_map(|v| format!("({})", v.join(" OR "))),
            inner.prop_map(|p| format!("NOT ({p})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn filtered_scans_equal_brute_force(
        t in table(),
        text in predicate(),
        roots in prop::sample::subsequence(vec![0usize, 1, 2, 3, 4], 1..=5),
        group_rows in 10usize..200,
        page_rows in 1usize..60,
        dictionary in any::<bool>(),
        batch_size in 1usize..150,
        offset in prop::option::of(0usize..20),
        limit in prop::option::of(0usize..60),
        pruning in any::<bool>(),
    ) {
        let props = WriterProperties::builder()
            .set_max_row_group_rows(group_rows)
            .set_data_page_row_limit(page_rows)
            .set_dictionary_enabled(dictionary)
            .build();
        let file = common::write(&[batch(&t)], props);
        let predicate = Predicate::parse(&text).unwrap();
        let mut builder = ScanBuilder::try_new(file.clone())
            .unwrap()
            .with_predicate(predicate.clone())
            .with_projection(Projection::Roots(roots.clone()))
            .with_batch_size(batch_size);
        if !pruning {
            builder = builder.with_pruning(NO_PRUNING);
        }
        if let Some(offset) = offset {
            builder = builder.with_offset(offset);
        }
        if let Some(limit) = limit {
            builder = builder.with_limit(limit);
        }
        let got = collect(&mut builder.build().unwrap());
        let expected = brute_force(&file, &predicate, &roots, offset.unwrap_or(0), limit);
        prop_assert_eq!(got, expected, "{}", text);
    }
}

/// A sorted dictionary-encoded column the batches leave out reaches the filter as runs
/// of keys (one run per repeated index, a block of nulls one null run), numbers
/// included; a shuffled one as keys; scans with either equal brute force, the column
/// returned (then read as keys or values, not runs) or not.
#[test]
fn runs_of_keys_are_decided_per_run_and_give_the_same_rows() {
    let rows = 6_000usize;
    let modes = [
        "AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK", "ZEPPELIN",
    ];
    let block = |i: usize| i / 400;
    let mode: ArrayRef = Arc::new(StringArray::from_iter((0..rows).map(|i| {
        (block(i) != 3 && block(i) != 9).then(|| modes[block(i) % modes.len()].to_string())
    })));
    let day: ArrayRef = Arc::new(Int32Array::from_iter(
        (0..rows).map(|i| (i % 1_000 >= 10).then_some((i / 250) as i32)),
    ));
    let shuffled: ArrayRef = Arc::new(StringArray::from_iter((0..rows).map(|i| {
        let k = (i * 7919 + 13) % 31;
        (k != 0).then(|| format!("s{}", k % 6))
    })));
    let n: ArrayRef = Arc::new(Int64Array::from_iter_values(0..rows as i64));
    let batch = RecordBatch::try_from_iter([
        ("mode", mode),
        ("day", day),
        ("shuffled", shuffled),
        ("n", n),
    ])
    .unwrap();
    let props = WriterProperties::builder()
        .set_data_page_row_limit(700)
        .set_max_row_group_rows(2_500)
        .build();
    let file = common::write(std::slice::from_ref(&batch), props);
    for text in [
        "mode = 'MAIL'",
        "mode IN ('AIR', 'SHIP') AND n > 1000",
        "mode IS NULL OR day >= 20",
        "NOT (mode >= 'RAIL')",
        "mode LIKE 'R%'",
        "day < 4 OR day = 17",
        "day IS NOT NULL AND shuffled = 's2'",
        "shuffled IN ('s1', 's5') AND mode <> 'TRUCK'",
    ] {
        let predicate = Predicate::parse(text).unwrap();
        for roots in [vec![0, 1, 2, 3], vec![3], vec![0, 3], vec![1]] {
            for batch_size in [333, 2_048] {
                let mut scan = ScanBuilder::try_new(file.clone())
                    .unwrap()
                    .with_predicate(predicate.clone())
                    .with_projection(Projection::Roots(roots.clone()))
                    .with_pruning(NO_PRUNING)
                    .with_batch_size(batch_size)
                    .build()
                    .unwrap();
                assert_eq!(
                    collect(&mut scan),
                    brute_force(&file, &predicate, &roots, 0, None),
                    "{text}, roots {roots:?}, batch size {batch_size}"
                );
            }
        }
    }

    // What a filter taking runs is handed, per field: (type, physical length) per batch.
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let filter = RowFilter::new(
        vec!["mode".into(), "day".into(), "shuffled".into()],
        move |batch| {
            let kinds: Vec<(DataType, usize)> = batch
                .columns()
                .iter()
                .map(|c| {
                    let physical = c
                        .as_run_opt::<arrow_array::types::Int32Type>()
                        .map_or(c.len(), |r| r.values().len());
                    (c.data_type().clone(), physical)
                })
                .collect();
            record.lock().unwrap().push(kinds);
            Ok(BooleanArray::from(vec![true; batch.num_rows()]))
        },
    )
    .with_key_runs(true)
    .with_fields_dropped(vec!["mode".into(), "day".into(), "shuffled".into()]);
    let mut reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_batch_size(2_048)
        .with_row_filter(filter)
        .build()
        .unwrap();
    // The dropped fields are left out of the batches and of the reader's schema.
    assert_eq!(
        collect(&mut reader),
        common::read_all(&file).project(&[3]).unwrap()
    );
    let seen = seen.lock().unwrap();
    // Row groups of 2,500 rows: batches of 2,048 and 452, twice, then 1,000.
    assert_eq!(seen.len(), 5, "{seen:?}");
    for batch in seen.iter() {
        let (mode, mode_runs) = &batch[0];
        let (day, day_runs) = &batch[1];
        let (shuffled, _) = &batch[2];
        assert!(matches!(mode, DataType::RunEndEncoded(..)), "{mode}");
        assert!(matches!(day, DataType::RunEndEncoded(..)), "{day}");
        // At most 2,048 rows over 400-row blocks: a handful of runs, not one per row.
        assert!(*mode_runs <= 8, "{mode_runs} runs of mode");
        // 250-row days, a null run of 10 rows per 1,000.
        assert!(*day_runs <= 20, "{day_runs} runs of day");
        assert_eq!(
            shuffled,
            &DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
        );
    }
}
