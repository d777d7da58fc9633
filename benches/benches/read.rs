//! Reader: Herringbone's `ParquetRecordBatchReader` against arrow-rs's on the same
//! in-memory files (`Bytes`), single-threaded, batches of 8192 rows, about 1M rows per
//! case. The files are written by arrow-rs's `ArrowWriter` in the setup, where both
//! readers' batches are also compared once (not timed). A case Herringbone cannot read
//! yet (`Unsupported`: lists and maps before they land) is skipped with a note.
//!
//! At the end the bench prints arrow-rs time / Herringbone time per case and the
//! geometric mean, from criterion's mean estimates of this run.
//!
//! The `read_skip` group reads 1% of the rows of a few of the files, selected in 100
//! runs spread evenly over the file, with the same `RowSelection` on both sides
//! (arrow-rs with its page index loaded, its fastest way to skip pages; Herringbone
//! steps over the pages wholly inside a skip by their headers). Run it alone with
//! `cargo bench -p herringbone-benches --bench read -- read_skip`.
//!
//! Run: `cargo bench -p herringbone-benches --bench read`
//! (defaults: 10 samples, 0.5 s warm-up, 1.5 s measurement per benchmark; criterion's
//! `--warm-up-time` / `--measurement-time` / `--sample-size` override them, and a filter
//! such as `-- int64` runs a subset).
//!
//! For instruction counts on a noisy machine, `HB_READ_BENCH_ONCE=<side>/<case>` (side
//! `herringbone` or `arrow-rs`; `skip-herringbone` / `skip-arrow-rs` for the `read_skip`
//! selection) reads that one case twice and exits, without criterion; under callgrind,
//! count only the reads:
//!
//! ```text
//! HB_READ_BENCH_ONCE=herringbone/string_delta_length_utf8 valgrind --tool=callgrind \
//!   --toggle-collect='*read_once_case*' target/release/deps/read-<hash>
//! ```

mod common;

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use criterion::{BenchmarkId, Criterion};
use herringbone::ErrorKind;
use herringbone::read::RowSelection;
use herringbone::schema::StringRepresentation;
use herringbone::{ParquetRecordBatchReaderBuilder, SchemaOptions};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder as Arrow, RowSelection as ArrowSelection,
    RowSelector as ArrowSelector,
};
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;
use std::sync::Arc;

use common::{Dataset, ROWS};

const BATCH_SIZE: usize = 8192;

/// One benchmark case: a file and how each reader reads it.
struct Case {
    name: String,
    file: Bytes,
    /// Strings as `Utf8View` on both sides.
    utf8_view: bool,
}

/// The dataset written by arrow-rs's `ArrowWriter` with its settings.
fn write(data: &Dataset) -> Bytes {
    let mut props = WriterProperties::builder()
        .set_dictionary_enabled(data.dictionary)
        .set_compression(if data.zstd {
            Compression::ZSTD(ZstdLevel::default())
        } else {
            Compression::UNCOMPRESSED
        })
        .set_max_row_group_row_count(Some(ROWS));
    if let Some(column) = data.delta_length_column {
        props =
            props.set_column_encoding(ColumnPath::from(column), Encoding::DELTA_LENGTH_BYTE_ARRAY);
    }
    let mut out = Vec::new();
    let mut writer =
        ArrowWriter::try_new(&mut out, data.batch.schema(), Some(props.build())).expect("writer");
    writer.write(&data.batch).expect("write");
    writer.close().expect("close");
    Bytes::from(out)
}

/// The filter given on the command line (`-- string_plain`), when it is a plain name
/// rather than a regular expression; `None` otherwise.
fn plain_filter() -> Option<String> {
    // Criterion's options that take a value (the value is not a filter).
    const WITH_VALUE: &[&str] = &[
        "--save-baseline",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--profile-time",
        "--warm-up-time",
        "--measurement-time",
        "--sample-size",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--nresamples",
        "--output-format",
        "--color",
        "--plotting-backend",
        "--format",
        "--logfile",
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            !a.starts_with('-') && (*i == 0 || !WITH_VALUE.contains(&args[i - 1].as_str()))
        })
        .map(|(_, a)| a)
        .next_back()?;
    let filter = filter.trim_end_matches('$');
    let regex = filter.contains(['^', '*', '+', '?', '(', '[', '|', '\\', '.', '{']);
    (!regex).then(|| filter.to_string())
}

/// Whether criterion's filter can select a benchmark of the case `name`.
fn wanted(filter: Option<&str>, name: &str) -> bool {
    filter.is_none_or(|f| {
        ["read", "read_skip"].iter().any(|group| {
            ["herringbone", "arrow-rs"]
                .iter()
                .any(|reader| format!("{group}/{reader}/{name}").contains(f))
        })
    })
}

/// The shared datasets as files; a string dataset is read both as Utf8 and as Utf8View.
/// With a plain `filter`, cases it cannot select are left out (neither written nor
/// checked), which keeps the setup of a one-case run short.
fn cases(filter: Option<&str>) -> Vec<Case> {
    let mut cases = Vec::new();
    for data in common::datasets() {
        let names: Vec<String> = if data.strings {
            vec![
                format!("{}_utf8", data.name),
                format!("{}_utf8view", data.name),
            ]
        } else {
            vec![data.name.clone()]
        };
        if data.name == "string_dict" && wanted(filter, DICTIONARY_CASE) {
            cases.push(as_dictionary(&data));
        }
        if !names.iter().any(|name| wanted(filter, name)) {
            continue;
        }
        let file = write(&data);
        if data.strings {
            for utf8_view in [false, true] {
                let representation = if utf8_view { "utf8view" } else { "utf8" };
                cases.push(Case {
                    name: format!("{}_{representation}", data.name),
                    file: file.clone(),
                    utf8_view,
                });
            }
        } else {
            cases.push(Case {
                name: data.name,
                file,
                utf8_view: false,
            });
        }
    }
    cases
}

/// The `string_dict` data with its column typed `Dictionary(Int32, Utf8)`: the file's
/// `ARROW:schema` says so, and both readers (with their default options, which honour
/// it) read the dictionary chunks as `DictionaryArray`s.
const DICTIONARY_CASE: &str = "string_dict_as_dictionary";

fn as_dictionary(data: &Dataset) -> Case {
    let dictionary = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let fields: Vec<Field> = data
        .batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_data_type(dictionary.clone()))
        .collect();
    let columns = data
        .batch
        .columns()
        .iter()
        .map(|c| {
            let keys: DictionaryArray<Int32Type> = c.as_string::<i32>().iter().collect();
            Arc::new(keys) as ArrayRef
        })
        .collect();
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("batch");
    Case {
        name: DICTIONARY_CASE.to_string(),
        file: write(&Dataset {
            name: DICTIONARY_CASE.to_string(),
            batch,
            dictionary: data.dictionary,
            zstd: data.zstd,
            delta_length_column: data.delta_length_column,
            strings: data.strings,
        }),
        utf8_view: false,
    }
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

fn herringbone_reader(case: &Case) -> herringbone::Result<herringbone::ParquetRecordBatchReader> {
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

/// The cases of the `read_skip` group: flat columns of each width family and the
/// multi-column lineitem file.
const SKIP_CASES: &[&str] = &[
    "int64_plain_optional",
    "int32_dict_required",
    "string_plain_utf8",
    "lineitem_zstd",
];

/// Runs of selected rows in the skip benchmark.
const SKIP_RUNS: usize = 100;

/// 1% of `rows` selected in [`SKIP_RUNS`] runs of equal length, one at the start of
/// each of as many equal stretches of the file.
fn skip_ranges(rows: usize) -> Vec<std::ops::Range<usize>> {
    let stride = rows / SKIP_RUNS;
    let run = (rows / 100 / SKIP_RUNS).max(1);
    (0..SKIP_RUNS)
        .map(|i| i * stride + stride / 2..i * stride + stride / 2 + run)
        .collect()
}

fn arrow_rs_skip_reader(
    case: &Case,
) -> parquet::errors::Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader> {
    let mut options = ArrowReaderOptions::new()
        .with_page_index_policy(parquet::file::metadata::PageIndexPolicy::Required);
    if case.utf8_view {
        let plain = Arrow::try_new(case.file.clone())?;
        options = options.with_schema(as_views(plain.schema()));
    }
    let builder = Arrow::try_new_with_options(case.file.clone(), options)?;
    let rows = usize::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0);
    let mut selectors = Vec::new();
    let mut at = 0;
    for range in skip_ranges(rows) {
        selectors.push(ArrowSelector::skip(range.start - at));
        selectors.push(ArrowSelector::select(range.end - range.start));
        at = range.end;
    }
    builder
        .with_batch_size(BATCH_SIZE)
        .with_row_selection(ArrowSelection::from(selectors))
        .build()
}

fn herringbone_skip_reader(
    case: &Case,
) -> herringbone::Result<herringbone::ParquetRecordBatchReader> {
    let mut options = SchemaOptions::new();
    if case.utf8_view {
        options = options.with_strings(StringRepresentation::Utf8View);
    }
    let builder = ParquetRecordBatchReaderBuilder::try_new(case.file.clone())?;
    let rows = usize::try_from(builder.metadata().num_rows).unwrap_or(0);
    builder
        .with_batch_size(BATCH_SIZE)
        .with_schema_options(options)
        .with_row_selection(RowSelection::from_consecutive_ranges(
            skip_ranges(rows),
            rows,
        ))
        .build()
}

/// Reads the skip case with both readers once: the same selected rows, or why not.
fn check_skip(case: &Case) -> Result<(), String> {
    let ours = herringbone_skip_reader(case)
        .map_err(|e| format!("Herringbone failed: {e}"))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("Herringbone failed: {e}"))?;
    let theirs = arrow_rs_skip_reader(case)
        .map_err(|e| format!("arrow-rs failed: {e}"))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("arrow-rs failed: {e}"))?;
    if same_rows(&ours, &theirs) {
        Ok(())
    } else {
        Err("readers disagree on the selected rows".to_string())
    }
}

/// Whether two sequences of batches hold the same rows, however they are cut.
fn same_rows(ours: &[RecordBatch], theirs: &[RecordBatch]) -> bool {
    let rows = |batches: &[RecordBatch]| batches.iter().map(RecordBatch::num_rows).sum::<usize>();
    if rows(ours) != rows(theirs) || rows(ours) == 0 {
        return false;
    }
    let (mut a, mut b, mut at_a, mut at_b) = (0, 0, 0, 0);
    while a < ours.len() && b < theirs.len() {
        let n = (ours[a].num_rows() - at_a).min(theirs[b].num_rows() - at_b);
        if ours[a].slice(at_a, n).columns() != theirs[b].slice(at_b, n).columns() {
            return false;
        }
        (at_a, at_b) = (at_a + n, at_b + n);
        if at_a == ours[a].num_rows() {
            (a, at_a) = (a + 1, 0);
        }
        if at_b == theirs[b].num_rows() {
            (b, at_b) = (b + 1, 0);
        }
    }
    true
}

/// `HB_READ_BENCH_ONCE=<side>/<case>`: that read twice, nothing else.
fn read_once(spec: &str) {
    let (side, name) = spec
        .split_once('/')
        .expect("HB_READ_BENCH_ONCE=<side>/<case>");
    let cases = cases(Some(name));
    let case = cases
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no case {name}"));
    for _ in 0..2 {
        read_once_case(side, case);
    }
}

#[inline(never)]
fn read_once_case(side: &str, case: &Case) {
    let rows = match side {
        "herringbone" => count(herringbone_reader(case).expect("herringbone reader")),
        "skip-herringbone" => count(herringbone_skip_reader(case).expect("herringbone reader")),
        "arrow-rs" => count(
            arrow_rs_reader(case)
                .expect("arrow-rs reader")
                .map(|b| b.map_err(|e| e.to_string())),
        ),
        "skip-arrow-rs" => count(
            arrow_rs_skip_reader(case)
                .expect("arrow-rs reader")
                .map(|b| b.map_err(|e| e.to_string())),
        ),
        other => panic!("side {other}: herringbone, arrow-rs, skip-herringbone or skip-arrow-rs"),
    };
    eprintln!("{side}/{}: {rows} rows", case.name);
}

fn count<E: std::fmt::Debug>(batches: impl Iterator<Item = Result<RecordBatch, E>>) -> usize {
    batches
        .map(|b| black_box(b.expect("read")).num_rows())
        .sum()
}

fn main() {
    let started = SystemTime::now();
    if let Ok(spec) = std::env::var("HB_READ_BENCH_ONCE") {
        read_once(&spec);
        return;
    }
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .configure_from_args();

    let cases = cases(plain_filter().as_deref());

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
    let mut skip_measured = Vec::new();
    {
        let mut group = criterion.benchmark_group("read_skip");
        for case in cases
            .iter()
            .filter(|c| SKIP_CASES.contains(&c.name.as_str()))
        {
            if let Err(note) = check_skip(case) {
                println!("note: skipping read_skip/{}: {note}", case.name);
                continue;
            }
            group.bench_function(BenchmarkId::new("herringbone", &case.name), |b| {
                b.iter(|| {
                    let reader = herringbone_skip_reader(case).expect("checked in setup");
                    for batch in reader {
                        black_box(batch.expect("checked in setup"));
                    }
                })
            });
            group.bench_function(BenchmarkId::new("arrow-rs", &case.name), |b| {
                b.iter(|| {
                    let reader = arrow_rs_skip_reader(case).expect("checked in setup");
                    for batch in reader {
                        black_box(batch.expect("checked in setup"));
                    }
                })
            });
            skip_measured.push(case.name.clone());
        }
        group.finish();
    }
    criterion.final_summary();

    print_ratios("read", &measured, started);
    print_ratios("read_skip", &skip_measured, started);
}

/// arrow-rs time / Herringbone time per case of `group` and their geometric mean.
fn print_ratios(group: &str, measured: &[String], started: SystemTime) {
    if measured.is_empty() {
        return;
    }
    println!("\n{group}: ratio = arrow-rs time / Herringbone time (above 1: Herringbone faster)");
    println!(
        "{:<34} {:>14} {:>14} {:>7}",
        "case", "Herringbone", "arrow-rs", "ratio"
    );
    let mut log_sum = 0.0;
    let mut count = 0;
    for name in measured {
        let (Some(ours), Some(theirs)) = (
            common::mean_ns(group, "herringbone", name, started),
            common::mean_ns(group, "arrow-rs", name, started),
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
