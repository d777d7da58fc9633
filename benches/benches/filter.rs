//! Filtered reads: Herringbone's `ScanBuilder` (statistics, Bloom filter and page index
//! pruning, then per batch the predicate's columns, and the other columns only for the
//! matching rows) against arrow-rs `parquet` doing the same with
//! its own tools (`StatisticsConverter` for row groups and pages, `RowFilter` with an
//! `ArrowPredicateFn`, `Sbbf` Bloom filters), and a DataFusion query set with
//! Herringbone's table provider against DataFusion's own Parquet source.
//!
//! Data: the 1M-row `lineitem`-shaped table of the shared bench data, written by
//! arrow-rs's `ArrowWriter` with its defaults except 122,880 rows per row group (DuckDB's
//! default, so that row groups can be pruned) and a Bloom filter on `l_partkey`; once
//! as generated (ordered by `l_orderkey`) and once sorted by `l_shipdate`. The files
//! are written to `target/filter-bench/` and read from disk by both sides. Each case's
//! results are compared once (row counts) before timing.
//!
//! The DataFusion queries run twice: over the local file (`datafusion` group), and
//! through an object store (`datafusion_store`: object_store's `LocalFileSystem` over
//! the same folder, wrapped to count requests and bytes, registered for both sides),
//! the path an engine reading from S3 takes. The bytes each side fetches per query are
//! counted once, outside the timing.
//!
//! At the end the bench prints arrow-rs (or DataFusion-Parquet) time / Herringbone time
//! per case, from criterion's mean estimates of this run, and the bytes fetched.
//!
//! Run: `cargo bench -p herringbone-benches --features datafusion --bench filter`

mod common;
mod filter_store;

use std::fs::File;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use arrow_array::{Array, ArrayRef, BooleanArray, Date32Array, Int64Array, RecordBatch, Scalar};
use criterion::Criterion;
use herringbone::predicate::Predicate;
use herringbone::read::Projection;
use herringbone::scan::ScanBuilder;
use parquet::arrow::ArrowWriter;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::statistics::StatisticsConverter;
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowFilter, RowSelection,
    RowSelector,
};
use parquet::file::metadata::PageIndexPolicy;
use parquet::file::properties::{ReaderProperties, WriterProperties};
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};

const GROUP_ROWS: usize = 122_880;
const BATCH_SIZE: usize = 8192;
/// 1998-09-01 as days since the epoch.
const SHIPDATE_FROM: i32 = 10_470;
/// 1995-03-15 as days since the epoch.
const DATE_NE: i32 = 9_204;
/// `l_partkey < 2000`: about 1% of the rows, spread over the whole unsorted file.
const RARE_PARTKEY: i64 = 2_000;
/// A part key inside the column's range that no row has: the setup takes the first key
/// from 100,001 up that the data lacks (the generator draws keys 1..=200,000).
static ABSENT: std::sync::OnceLock<i64> = std::sync::OnceLock::new();

fn absent_partkey() -> i64 {
    *ABSENT.get().expect("set by the setup")
}

fn dir() -> PathBuf {
    let dir = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().nth(3).map(|t| t.join("filter-bench")))
        .unwrap_or_else(|| PathBuf::from("target/filter-bench"));
    std::fs::create_dir_all(&dir).expect("bench folder");
    dir
}

/// The lineitem table as written by arrow-rs: `unsorted.parquet` and `sorted.parquet`
/// (by `l_shipdate`).
fn files() -> (PathBuf, PathBuf) {
    let data = common::lineitem();
    let batch = data.batch;
    let props = || {
        WriterProperties::builder()
            .set_max_row_group_row_count(Some(GROUP_ROWS))
            .set_column_bloom_filter_enabled("l_partkey".into(), true)
            .build()
    };
    let write = |path: &Path, batch: &RecordBatch| {
        let mut writer = ArrowWriter::try_new(
            File::create(path).expect("create"),
            batch.schema(),
            Some(props()),
        )
        .expect("writer");
        writer.write(batch).expect("write");
        writer.close().expect("close");
    };
    let dir = dir();
    let unsorted = dir.join("unsorted.parquet");
    write(&unsorted, &batch);
    let shipdate = batch.column_by_name("l_shipdate").expect("l_shipdate");
    let order = arrow_ord::sort::sort_to_indices(shipdate, None, None).expect("sort");
    let columns: Vec<ArrayRef> = batch
        .columns()
        .iter()
        .map(|c| arrow_select::take::take(c, &order, None).expect("take"))
        .collect();
    let sorted_batch = RecordBatch::try_new(batch.schema(), columns).expect("sorted");
    let sorted = dir.join("sorted.parquet");
    write(&sorted, &sorted_batch);
    let partkey = batch.column_by_name("l_partkey").expect("l_partkey");
    let partkey = partkey
        .as_any()
        .downcast_ref::<Int64Array>()
        .expect("l_partkey is Int64");
    let present: std::collections::HashSet<i64> = partkey.values().iter().copied().collect();
    let absent = (100_001..).find(|k| !present.contains(k)).expect("a key");
    ABSENT.set(absent).expect("set once");
    (unsorted, sorted)
}

/// One filtered read, as text for Herringbone and as arrow-rs code.
struct Case {
    name: &'static str,
    file: PathBuf,
    filter: &'static str,
    columns: &'static [&'static str],
}

fn herringbone(case: &Case) -> usize {
    herringbone_with(case, herringbone::read::MIN_ROWS_PER_RUN)
}

/// Herringbone with the late materialisation rule given: the columns the predicate does
/// not read are decoded for the matching rows only when a batch's mask has at most one
/// run per `min_rows_per_run` rows (0: always; `usize::MAX`: never, read and filter).
fn herringbone_with(case: &Case, min_rows_per_run: usize) -> usize {
    let scan = ScanBuilder::try_new(File::open(&case.file).expect("open")).expect("footer");
    let schema = scan.schema().expect("schema");
    let roots: Vec<usize> = case
        .columns
        .iter()
        .map(|c| schema.index_of(c).expect("column"))
        .collect();
    let scan = scan
        .with_projection(Projection::Roots(roots))
        .with_predicate(Predicate::parse(case.filter).expect("filter"))
        .with_batch_size(BATCH_SIZE)
        .with_min_rows_per_run(min_rows_per_run)
        .build()
        .expect("scan");
    scan.map(|b| black_box(b.expect("batch")).num_rows()).sum()
}

/// arrow-rs with its pruning tools, the way an engine built on it does it.
fn arrow_rs(case: &Case) -> usize {
    let file = File::open(&case.file).expect("open");
    let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Required);
    let builder =
        ParquetRecordBatchReaderBuilder::try_new_with_options(file, options).expect("footer");
    let metadata = builder.metadata().clone();
    let schema = builder.schema().clone();
    let parquet_schema = builder.parquet_schema().clone();
    let groups: Vec<usize> = (0..metadata.num_row_groups()).collect();
    let (row_groups, selection, predicate_column): (Vec<usize>, Option<RowSelection>, &str) =
        match case.name {
            // Every row group and page holds rows that differ from the one date.
            n if n.contains("dates_ne") => (groups, None, "l_shipdate"),
            n if n.contains("shipdate") => {
                let converter =
                    StatisticsConverter::try_new("l_shipdate", &schema, &parquet_schema)
                        .expect("converter");
                let max = converter
                    .row_group_maxes(metadata.row_groups().iter())
                    .expect("maxes");
                let from = Date32Array::new_scalar(SHIPDATE_FROM);
                let keep = arrow_ord::cmp::gt_eq(&max, &from).expect("cmp");
                let kept: Vec<usize> = groups
                    .iter()
                    .copied()
                    .filter(|&g| keep.is_null(g) || keep.value(g))
                    .collect();
                // Pages from the page index, as a RowSelection over the kept row groups.
                let column_index = metadata.column_index().expect("column index");
                let offset_index = metadata.offset_index().expect("offset index");
                let mut selectors = Vec::new();
                for &g in &kept {
                    let maxes = converter
                        .data_page_maxes(column_index, offset_index, [&g])
                        .expect("page maxes");
                    let rows = converter
                        .data_page_row_counts(offset_index, metadata.row_groups(), [&g])
                        .expect("page rows")
                        .expect("row counts");
                    let keep = arrow_ord::cmp::gt_eq(&maxes, &from).expect("cmp");
                    for i in 0..rows.len() {
                        let n = rows.value(i) as usize;
                        if keep.is_null(i) || keep.value(i) {
                            selectors.push(RowSelector::select(n));
                        } else {
                            selectors.push(RowSelector::skip(n));
                        }
                    }
                }
                (kept, Some(RowSelection::from(selectors)), "l_shipdate")
            }
            n if n.contains("bloom") => {
                let reader = SerializedFileReader::new_with_options(
                    File::open(&case.file).expect("open"),
                    ReadOptionsBuilder::new()
                        .with_reader_properties(
                            ReaderProperties::builder()
                                .set_read_bloom_filter(true)
                                .build(),
                        )
                        .build(),
                )
                .expect("reader");
                let column = schema.index_of("l_partkey").expect("l_partkey");
                let kept = groups
                    .iter()
                    .copied()
                    .filter(|&g| {
                        let group = reader.get_row_group(g).expect("row group");
                        match group.get_column_bloom_filter(column) {
                            Some(sbbf) => sbbf.check(&absent_partkey()),
                            None => true,
                        }
                    })
                    .collect();
                (kept, None, "l_partkey")
            }
            // Statistics and the page index cannot prune these (unsorted columns).
            n if n.contains("partkey_lt") => (groups, None, "l_partkey"),
            n if n.contains("shipmode") => (groups, None, "l_shipmode"),
            _ => (groups, None, "l_returnflag"),
        };
    let filter_columns: Vec<usize> = match predicate_column {
        "l_returnflag" => vec![8, 4],
        "l_shipdate" => vec![10],
        "l_shipmode" => vec![14],
        _ => vec![1],
    };
    let name = case.name;
    let predicate = ArrowPredicateFn::new(
        ProjectionMask::roots(&parquet_schema, filter_columns),
        move |batch: RecordBatch| -> Result<BooleanArray, arrow_schema::ArrowError> {
            if name.contains("dates_ne") {
                arrow_ord::cmp::neq(batch.column(0), &Date32Array::new_scalar(DATE_NE))
            } else if name.contains("shipdate") {
                arrow_ord::cmp::gt_eq(batch.column(0), &Date32Array::new_scalar(SHIPDATE_FROM))
            } else if name.contains("bloom") {
                arrow_ord::cmp::eq(batch.column(0), &Int64Array::new_scalar(absent_partkey()))
            } else if name.contains("partkey_lt") {
                arrow_ord::cmp::lt(batch.column(0), &Int64Array::new_scalar(RARE_PARTKEY))
            } else if name.contains("shipmode") {
                arrow_ord::cmp::eq(
                    batch.column(0),
                    &arrow_array::StringArray::new_scalar("AIR"),
                )
            } else {
                // l_returnflag = 'R' AND l_quantity < 5 (Decimal(15, 2): 500).
                let quantity = batch.column_by_name("l_quantity").expect("l_quantity");
                let flag = batch.column_by_name("l_returnflag").expect("l_returnflag");
                let small = arrow_ord::cmp::lt(
                    quantity,
                    &Scalar::new(
                        arrow_array::Decimal128Array::from(vec![500])
                            .with_precision_and_scale(15, 2)
                            .expect("decimal"),
                    ),
                )?;
                let r = arrow_ord::cmp::eq(flag, &arrow_array::StringArray::new_scalar("R"))?;
                arrow_arith::boolean::and(&r, &small)
            }
        },
    );
    let projection: Vec<usize> = case
        .columns
        .iter()
        .map(|c| schema.index_of(c).expect("column"))
        .collect();
    let mut builder = builder
        .with_row_groups(row_groups)
        .with_projection(ProjectionMask::roots(&parquet_schema, projection))
        .with_row_filter(RowFilter::new(vec![Box::new(predicate)]))
        .with_batch_size(BATCH_SIZE);
    if let Some(selection) = selection {
        builder = builder.with_row_selection(selection);
    }
    builder
        .build()
        .expect("reader")
        .map(|b| black_box(b.expect("batch")).num_rows())
        .sum()
}

/// DataFusion queries over the same file: Herringbone's provider and DataFusion's own
/// Parquet source, in a session of one partition each.
const QUERIES: &[(&str, &str)] = &[
    (
        "q_count_recent",
        "SELECT count(*) FROM lineitem WHERE l_shipdate >= DATE '1998-09-01'",
    ),
    (
        "q_sum_flag_quantity",
        "SELECT sum(l_extendedprice) FROM lineitem WHERE l_returnflag = 'R' AND l_quantity < 5",
    ),
    (
        "q_tpch1",
        "SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice * (1 - l_discount)), avg(l_discount), count(*) \
         FROM lineitem WHERE l_shipdate <= DATE '1998-09-02' GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus",
    ),
    (
        "q_tpch6",
        "SELECT sum(l_extendedprice * l_discount) FROM lineitem WHERE l_shipdate >= DATE '1994-01-01' \
         AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24",
    ),
    (
        "q_point_orderkey",
        "SELECT l_orderkey, l_partkey FROM lineitem WHERE l_orderkey = 4242401",
    ),
];

fn session(
    path: &Path,
    herringbone: bool,
    runtime: &tokio::runtime::Runtime,
) -> datafusion::prelude::SessionContext {
    use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(1));
    if herringbone {
        let table = herringbone_datafusion::HerringboneTable::try_new(vec![path.to_path_buf()])
            .expect("table");
        ctx.register_table("lineitem", Arc::new(table))
            .expect("register");
    } else {
        runtime
            .block_on(ctx.register_parquet(
                "lineitem",
                path.to_str().expect("path"),
                ParquetReadOptions::default(),
            ))
            .expect("register");
    }
    ctx
}

/// Sessions reading the file `name` of `store` (registered as `count://`): Herringbone's
/// provider and DataFusion's Parquet source.
fn store_sessions(
    store: &Arc<filter_store::CountingStore>,
    name: &str,
    runtime: &tokio::runtime::Runtime,
) -> (
    datafusion::prelude::SessionContext,
    datafusion::prelude::SessionContext,
) {
    use datafusion::execution::object_store::ObjectStoreUrl;
    use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
    let config = || SessionConfig::new().with_target_partitions(1);
    let dyn_store: Arc<dyn object_store::ObjectStore> = store.clone();
    let ours = SessionContext::new_with_config(config());
    let table = runtime
        .block_on(herringbone_datafusion::HerringboneTable::try_new_in_store(
            dyn_store.clone(),
            vec![object_store::path::Path::from(name)],
        ))
        .expect("table");
    ours.register_table("lineitem", Arc::new(table))
        .expect("register");
    let theirs = SessionContext::new_with_config(config());
    let url = ObjectStoreUrl::parse("count://").expect("url");
    theirs.register_object_store(url.as_ref(), dyn_store);
    runtime
        .block_on(theirs.register_parquet(
            "lineitem",
            &format!("count:///{name}"),
            ParquetReadOptions::default(),
        ))
        .expect("register");
    (ours, theirs)
}

/// Times every query of [`QUERIES`] on both sessions, in `group`.
fn bench_queries(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    ours: &datafusion::prelude::SessionContext,
    theirs: &datafusion::prelude::SessionContext,
    runtime: &tokio::runtime::Runtime,
) {
    for (name, sql) in QUERIES {
        group.bench_function(format!("herringbone/{name}"), |b| {
            b.iter(|| run_query(ours, sql, runtime))
        });
        group.bench_function(format!("parquet/{name}"), |b| {
            b.iter(|| run_query(theirs, sql, runtime))
        });
    }
}

fn run_query(
    ctx: &datafusion::prelude::SessionContext,
    sql: &str,
    runtime: &tokio::runtime::Runtime,
) -> Vec<RecordBatch> {
    runtime.block_on(async {
        ctx.sql(sql)
            .await
            .expect("plan")
            .collect()
            .await
            .expect("run")
    })
}

fn main() {
    let started = SystemTime::now();
    let (unsorted, sorted) = files();
    let cases = [
        Case {
            name: "sorted_shipdate_ge",
            file: sorted.clone(),
            filter: "l_shipdate >= '1998-09-01'",
            columns: &["l_orderkey", "l_extendedprice", "l_shipdate"],
        },
        // Runs: on the sorted file each ship date is a run of ~2,400 rows, decided once;
        // nothing is pruned (every row but one date's matches).
        Case {
            name: "sorted_dates_ne",
            file: sorted.clone(),
            filter: "l_shipdate <> '1995-03-15'",
            columns: &["l_orderkey"],
        },
        Case {
            name: "unsorted_shipdate_ge",
            file: unsorted.clone(),
            filter: "l_shipdate >= '1998-09-01'",
            columns: &["l_orderkey", "l_extendedprice", "l_shipdate"],
        },
        Case {
            name: "unsorted_flag_quantity",
            file: unsorted.clone(),
            filter: "l_returnflag = 'R' AND l_quantity < 5",
            columns: &["l_orderkey", "l_quantity", "l_returnflag", "l_comment"],
        },
        // Late materialisation: rare matches spread everywhere (no pruning possible),
        // wide columns projected beside the predicate's.
        Case {
            name: "unsorted_partkey_lt_1pct",
            file: unsorted.clone(),
            filter: "l_partkey < 2000",
            columns: &["l_orderkey", "l_extendedprice", "l_shipmode", "l_comment"],
        },
        // A dictionary-encoded string predicate column that is not returned: decoded as
        // keys and compared once per dictionary entry (1 row in 7 matches).
        Case {
            name: "unsorted_shipmode_eq",
            file: unsorted.clone(),
            filter: "l_shipmode = 'AIR'",
            columns: &["l_extendedprice", "l_quantity"],
        },
        Case {
            name: "bloom_point_lookup",
            file: unsorted.clone(),
            filter: Box::leak(format!("l_partkey = {}", absent_partkey()).into_boxed_str()),
            columns: &["l_orderkey", "l_partkey"],
        },
    ];
    for case in &cases {
        let (a, b) = (herringbone(case), arrow_rs(case));
        assert_eq!(a, b, "{}: Herringbone {a} rows, arrow-rs {b}", case.name);
    }
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .configure_from_args();
    {
        let mut group = c.benchmark_group("filter");
        for case in &cases {
            group.bench_function(format!("herringbone/{}", case.name), |b| {
                b.iter(|| herringbone(case))
            });
            group.bench_function(format!("arrow-rs/{}", case.name), |b| {
                b.iter(|| arrow_rs(case))
            });
        }
        group.finish();
    }
    // The late materialisation rule, measured: the default against always reading the
    // other columns for the matching rows only ("refine") and always reading them whole
    // then filtering ("dense"), on the unsorted cases (matches spread everywhere).
    let policy_cases: Vec<&Case> = cases
        .iter()
        .filter(|c| c.name.starts_with("unsorted_") && !c.name.contains("shipdate"))
        .collect();
    {
        let mut group = c.benchmark_group("late");
        for case in &policy_cases {
            for (side, rule) in [
                ("auto", herringbone::read::MIN_ROWS_PER_RUN),
                ("refine", 0),
                ("dense", usize::MAX),
            ] {
                group.bench_function(format!("{side}/{}", case.name), |b| {
                    b.iter(|| herringbone_with(case, rule))
                });
            }
        }
        group.finish();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    {
        let ours = session(&unsorted, true, &runtime);
        let theirs = session(&unsorted, false, &runtime);
        for (name, sql) in QUERIES {
            let a = run_query(&ours, sql, &runtime);
            let b = run_query(&theirs, sql, &runtime);
            let pretty = |x: &[RecordBatch]| {
                arrow_cast::pretty::pretty_format_batches(x)
                    .expect("format")
                    .to_string()
            };
            assert_eq!(pretty(&a), pretty(&b), "{name}: results differ");
        }
        let mut group = c.benchmark_group("datafusion");
        bench_queries(&mut group, &ours, &theirs, &runtime);
        group.finish();
    }
    // Through an object store: results equal, then the bytes each side fetches per
    // query (the sessions are new, so each side reads its footer once, before this).
    let store = Arc::new(filter_store::CountingStore::new(&dir()));
    let mut fetched = Vec::new();
    for file in ["sorted.parquet", "unsorted.parquet"] {
        let (ours, theirs) = store_sessions(&store, file, &runtime);
        for (name, sql) in QUERIES {
            let pretty = |x: &[RecordBatch]| {
                arrow_cast::pretty::pretty_format_batches(x)
                    .expect("format")
                    .to_string()
            };
            let before = store.counts();
            let a = run_query(&ours, sql, &runtime);
            let middle = store.counts();
            let b = run_query(&theirs, sql, &runtime);
            let after = store.counts();
            assert_eq!(pretty(&a), pretty(&b), "{name} (store): results differ");
            fetched.push((
                file,
                *name,
                (middle.0 - before.0, middle.1 - before.1),
                (after.0 - middle.0, after.1 - middle.1),
            ));
        }
        if file != "unsorted.parquet" {
            continue;
        }
        let mut group = c.benchmark_group("datafusion_store");
        bench_queries(&mut group, &ours, &theirs, &runtime);
        group.finish();
    }
    c.final_summary();
    println!("\nlate materialisation rule, time / the default rule's time:");
    for case in &policy_cases {
        let auto = common::mean_ns("late", "auto", case.name, started);
        for side in ["refine", "dense"] {
            if let (Some(auto), Some(other)) =
                (auto, common::mean_ns("late", side, case.name, started))
            {
                println!("  {side:<6} {:<28} {:.2}x", case.name, other / auto);
            }
        }
    }
    println!("\narrow-rs (or DataFusion's Parquet source) time / Herringbone time:");
    for (group, other, names) in [
        (
            "filter",
            "arrow-rs",
            cases.iter().map(|c| c.name).collect::<Vec<_>>(),
        ),
        (
            "datafusion",
            "parquet",
            QUERIES.iter().map(|q| q.0).collect(),
        ),
        (
            "datafusion_store",
            "parquet",
            QUERIES.iter().map(|q| q.0).collect(),
        ),
    ] {
        for name in names {
            let ours = common::mean_ns(group, "herringbone", name, started);
            let theirs = common::mean_ns(group, other, name, started);
            if let (Some(ours), Some(theirs)) = (ours, theirs) {
                println!("  {group}/{name:<28} {:.2}x", theirs / ours);
            }
        }
    }
    println!(
        "\nbytes fetched through the object store (requests), Herringbone | DataFusion's Parquet source:"
    );
    for (file, name, (our_requests, our_bytes), (their_requests, their_bytes)) in fetched {
        println!(
            "  {file:<17} {name:<20} {our_bytes:>11} ({our_requests:>3}) | {their_bytes:>11} ({their_requests:>3})  {:.2}x",
            their_bytes as f64 / our_bytes.max(1) as f64
        );
    }
}
