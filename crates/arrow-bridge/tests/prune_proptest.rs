//! Pruning is conservative: over random files (row groups, pages, dictionaries,
//! truncated string bounds, Bloom filters, NaNs, nulls) and random predicates, a scan
//! with every pruning source returns exactly the rows a brute-force filter of the
//! whole file returns, and the pruners never drop a row group or page holding a match.

use crate::common;

use std::sync::Arc;

use arrow_array::*;
use arrow_schema::DataType;
use bytes::Bytes;
use herringbone_arrow_bridge::predicate::Predicate;
use herringbone_arrow_bridge::prune::Pruner;
use herringbone_arrow_bridge::scan::ScanBuilder;
use herringbone_arrow_bridge::write::WriterProperties;
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "", "a", "ab", "abc", "abd", "b", "ba", "bab", "zz", "é", "éa",
];

#[derive(Debug, Clone)]
struct Table {
    a: Vec<Option<i32>>,
    s: Vec<Option<&'static str>>,
    f: Vec<Option<f64>>,
    d: Vec<Option<i64>>,
    day: Vec<i32>,
}

fn table() -> impl Strategy<Value = Table> {
    (1usize..240).prop_flat_map(|n| {
        (
            prop::collection::vec(prop::option::weighted(0.9, -20i32..20), n),
            prop::collection::vec(prop::option::weighted(0.85, prop::sample::select(WORDS)), n),
            prop::collection::vec(
                prop::option::weighted(
                    0.9,
                    prop_oneof![
                        8 => (-50i32..50).prop_map(|v| f64::from(v) / 4.0),
                        1 => Just(f64::NAN),
                        1 => Just(-0.0),
                    ],
                ),
                n,
            ),
            prop::collection::vec(prop::option::weighted(0.9, -500i64..500), n),
            prop::collection::vec(0i32..30, n),
            any::<bool>(),
        )
            .prop_map(|(mut a, s, f, d, mut day, sorted)| {
                if sorted {
                    a.sort();
                    day.sort();
                }
                Table { a, s, f, d, day }
            })
    })
}

fn batch(t: &Table) -> RecordBatch {
    let d: ArrayRef = Arc::new(
        Decimal128Array::from(t.d.iter().map(|v| v.map(i128::from)).collect::<Vec<_>>())
            .with_precision_and_scale(9, 2)
            .unwrap(),
    );
    let dict: ArrayRef = Arc::new(
        t.s.iter()
            .map(|s| s.map(|s| if s.len() > 1 { "long" } else { "short" }))
            .collect::<DictionaryArray<arrow_array::types::Int16Type>>(),
    );
    RecordBatch::try_from_iter([
        ("a", Arc::new(Int32Array::from(t.a.clone())) as ArrayRef),
        ("s", Arc::new(StringArray::from(t.s.clone()))),
        ("f", Arc::new(Float64Array::from(t.f.clone()))),
        ("d", d),
        ("day", Arc::new(Date32Array::from(t.day.clone()))),
        ("k", dict),
    ])
    .unwrap()
}

#[derive(Debug, Clone)]
struct Props {
    group_rows: usize,
    page_rows: usize,
    dictionary: bool,
    truncate: Option<usize>,
    bloom: bool,
}

fn props() -> impl Strategy<Value = Props> {
    (
        1usize..80,
        1usize..40,
        any::<bool>(),
        prop::option::of(1usize..3),
        any::<bool>(),
    )
        .prop_map(
            |(group_rows, page_rows, dictionary, truncate, bloom)| Props {
                group_rows,
                page_rows,
                dictionary,
                truncate,
                bloom,
            },
        )
}

fn write(t: &Table, p: &Props) -> Bytes {
    let mut builder = WriterProperties::builder()
        .set_max_row_group_rows(p.group_rows)
        .set_data_page_row_limit(p.page_rows)
        .set_dictionary_enabled(p.dictionary)
        .set_statistics_truncate_length(p.truncate);
    if p.bloom {
        builder = builder.set_bloom_filter_all(0.05, 64);
    }
    common::write(&[batch(t)], builder.build())
}

fn literal(column: &'static str) -> BoxedStrategy<String> {
    match column {
        "a" => (-22i32..22).prop_map(|v| v.to_string()).boxed(),
        "s" => prop::sample::select(WORDS)
            .prop_map(|w| format!("'{w}'"))
            .boxed(),
        "f" => prop_oneof![
            (-52i32..52).prop_map(|v| format!("{}", f64::from(v) / 4.0)),
            Just("0.0".to_string()),
            Just("-0.0".to_string()),
        ]
        .boxed(),
        "d" => (-600i64..600)
            .prop_map(|v| {
                let sign = if v < 0 { "-" } else { "" };
                format!("{sign}{}.{:02}", (v / 100).abs(), (v % 100).abs())
            })
            .boxed(),
        "day" => (-1i32..32)
            .prop_map(|d| {
                let date = arrow_array::temporal_conversions::date32_to_datetime(d).unwrap();
                format!("'{}'", date.format("%Y-%m-%d"))
            })
            .boxed(),
        _ => prop::sample::select(&["'long'", "'short'", "'x'"][..])
            .prop_map(str::to_string)
            .boxed(),
    }
}

fn atom() -> impl Strategy<Value = String> {
    let column = prop::sample::select(&["a", "s", "f", "d", "day", "k"][..]);
    let op = prop::sample::select(&["=", "!=", "<", "<=", ">", ">="][..]);
    column.prop_flat_map(move |c| {
        let compare = (op.clone(), literal(c)).prop_map(move |(op, v)| format!("{c} {op} {v}"));
        let in_list =
            (prop::collection::vec(literal(c), 1..4), any::<bool>()).prop_map(move |(vs, neg)| {
                format!(
                    "{c} {}IN ({})",
                    if neg { "NOT " } else { "" },
                    vs.join(", ")
                )
            });
        let null = any::<bool>()
            .prop_map(move |neg| format!("{c} IS {}NULL", if neg { "NOT " } else { "" }));
        if c == "s" || c == "k" {
            let like = (prop::sample::select(WORDS), any::<bool>(), any::<bool>()).prop_map(
                move |(w, neg, wild)| {
                    format!(
                        "{c} {}LIKE '{w}{}'",
                        if neg { "NOT " } else { "" },
                        if wild { "%" } else { "_%" }
                    )
                },
            );
            prop_oneof![4 => compare, 2 => in_list, 1 => null, 3 => like].boxed()
        } else {
            prop_oneof![4 => compare, 2 => in_list, 1 => null].boxed()
        }
    })
}

fn predicate() -> impl Strategy<Value = String> {
    atom().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4)
                .prop_map(|v| format!("({})", v.join(" AND "))),
            prop::collection::vec(inner.clone(), 2..4)
                .prop_map(|v| format!("({})", v.join(" OR "))),
            inner.prop_map(|p| format!("NOT ({p})")),
        ]
    })
}

fn brute_force(file: &Bytes, predicate: &Predicate) -> RecordBatch {
    let all = common::read_all(file);
    predicate.bind(&all.schema()).unwrap().filter(&all).unwrap()
}

fn scan(file: &Bytes, predicate: &Predicate, batch_size: usize) -> RecordBatch {
    let scan = ScanBuilder::try_new(file.clone())
        .unwrap()
        .with_predicate(predicate.clone())
        .with_batch_size(batch_size)
        .build()
        .unwrap();
    let schema = arrow_array::RecordBatchReader::schema(&scan);
    let batches: Vec<RecordBatch> = scan.collect::<Result<_, _>>().unwrap();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn scans_equal_brute_force(t in table(), p in props(), text in predicate(), batch_size in 1usize..64) {
        let file = write(&t, &p);
        let predicate = Predicate::parse(&text).unwrap();
        // The text form round-trips (nested ANDs / ORs print flat).
        let text_form = predicate.to_string();
        prop_assert_eq!(Predicate::parse(&text_form).unwrap().to_string(), text_form);
        let expected = brute_force(&file, &predicate);
        let got = scan(&file, &predicate, batch_size);
        prop_assert_eq!(got, expected, "predicate {}", text);
    }

    #[test]
    fn pruned_row_groups_hold_no_match(t in table(), p in props(), text in predicate()) {
        let file = write(&t, &p);
        let predicate = Predicate::parse(&text).unwrap();
        let (metadata, descriptor, mapping) = common::open(&file);
        let bound = predicate.bind(mapping.schema()).unwrap();
        let pruner = Pruner::try_new(&bound, &metadata, &descriptor, &mapping).unwrap();
        let groups: Vec<usize> = (0..metadata.row_groups.len()).collect();
        let keep = pruner.row_groups_with_bloom_filters(&metadata, &file, &groups).unwrap();
        let all = common::read_all(&file);
        let mask = bound.evaluate(&all).unwrap();
        let mut start = 0usize;
        for (g, group) in metadata.row_groups.iter().enumerate() {
            let rows = group.num_rows as usize;
            let ranges = pruner.page_ranges(&metadata, &file, g).unwrap();
            for i in start..start + rows {
                if mask.is_valid(i) && mask.value(i) {
                    prop_assert!(keep[g], "row group {} pruned but row {} matches {}", g, i, text);
                    let r = (i - start) as u64;
                    prop_assert!(ranges.overlaps(&(r..r + 1)), "row {} of group {} pruned by pages: {}", r, g, text);
                }
            }
            start += rows;
        }
    }
}

#[test]
fn dictionary_value_types_are_compared() {
    // Statistics of a dictionary column are in the value type: the pruner uses them.
    let t = Table {
        a: vec![Some(1); 4],
        s: vec![Some("a"), Some("a"), Some("zz"), Some("zz")],
        f: vec![Some(1.0); 4],
        d: vec![Some(1); 4],
        day: vec![0; 4],
    };
    let p = Props {
        group_rows: 2,
        page_rows: 2,
        dictionary: true,
        truncate: None,
        bloom: false,
    };
    let file = write(&t, &p);
    let (metadata, descriptor, mapping) = common::open(&file);
    assert!(matches!(
        mapping.schema().field_with_name("k").unwrap().data_type(),
        DataType::Dictionary(_, _)
    ));
    let bound = Predicate::parse("k = 'long'")
        .unwrap()
        .bind(mapping.schema())
        .unwrap();
    let pruner = Pruner::try_new(&bound, &metadata, &descriptor, &mapping).unwrap();
    assert_eq!(
        pruner.row_groups(&metadata, &[0, 1]).unwrap(),
        [false, true]
    );
}
