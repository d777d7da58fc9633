//! Parallel decode (`with_threads`): on 2 and 4 threads the reader returns the batches
//! of one thread, in the same order, for every corpus file (nested, dictionary,
//! nullable, checksummed, damaged) and the encrypted ones with their keys, for a file of
//! many row groups read through row selections, offsets and limits; an error in one
//! column ends the read where it ends on one thread, with the same message, after the
//! same batches; a batch over the memory limit fails the same way; a row group that
//! cannot be opened ends the read after the row groups before it; a read runs inside
//! another rayon pool.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder, StringDictionaryBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use arrow_select::filter::filter_record_batch;
use bytes::Bytes;
use herringbone_arrow_bridge::ErrorKind;
use herringbone_arrow_bridge::read::{
    MIN_ROWS_PER_RUN, ParquetRecordBatchReaderBuilder, ReadMetrics, RowFilter, RowSelection,
};
use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
use herringbone_codec::crypto::FileDecryptionProperties;
use herringbone_format::footer::{encode_footer, footer_range, read_metadata};

type Builder = ParquetRecordBatchReaderBuilder<Bytes>;

/// What a read returned: its batches, then its error if it failed (as text), and what
/// it did.
#[derive(Debug, PartialEq)]
struct Outcome {
    batches: Vec<RecordBatch>,
    error: Option<String>,
    metrics: ReadMetrics,
}

fn outcome(builder: Builder, threads: usize) -> Outcome {
    let mut reader = match builder.with_threads(threads).build() {
        Ok(reader) => reader,
        Err(e) => {
            return Outcome {
                batches: Vec::new(),
                error: Some(e.to_string()),
                metrics: ReadMetrics::default(),
            };
        }
    };
    let mut batches = Vec::new();
    let mut error = None;
    for batch in reader.by_ref() {
        match batch {
            Ok(batch) => batches.push(batch),
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    assert!(reader.next().is_none(), "nothing after the end or an error");
    Outcome {
        batches,
        error,
        metrics: reader.metrics(),
    }
}

/// Reads with 1, 2 and 4 threads and checks that they agree; the one-thread outcome.
fn same_on_threads(builder: impl Fn() -> Builder, what: &str) -> Outcome {
    let one = outcome(builder(), 1);
    for threads in [2, 4] {
        let many = outcome(builder(), threads);
        assert_eq!(
            many.error, one.error,
            "{what}: the error on {threads} threads"
        );
        assert_eq!(
            many.batches.len(),
            one.batches.len(),
            "{what}: batches on {threads} threads"
        );
        for (i, (a, b)) in many.batches.iter().zip(&one.batches).enumerate() {
            assert_eq!(a, b, "{what}: batch {i} on {threads} threads");
        }
        // Pages counted are those of the batches read; a failed read may have decoded
        // ahead of its error.
        if one.error.is_none() {
            assert_eq!(
                many.metrics, one.metrics,
                "{what}: metrics on {threads} threads"
            );
        }
    }
    one
}

#[test]
fn every_corpus_file_reads_the_same_on_several_threads() {
    let mut compared = 0;
    for relative in herringbone_testkit::corpus_files(&["data", "bad_data"]) {
        let name = relative.to_string_lossy().into_owned();
        // Two 1 GiB map keys: too large for a unit test. Encrypted files: below.
        if name.ends_with("large_string_map.brotli.parquet") || name.ends_with(".encrypted") {
            continue;
        }
        let bytes = Bytes::from(herringbone_testkit::read_corpus_file(&relative));
        if ParquetRecordBatchReaderBuilder::try_new(bytes.clone()).is_err() {
            continue;
        }
        for verify_crc in [false, true] {
            let builder = || {
                ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
                    .unwrap()
                    .with_batch_size(37)
                    .with_verify_crc(verify_crc)
            };
            same_on_threads(builder, &name);
        }
        compared += 1;
    }
    assert!(compared >= 80, "only {compared} corpus files compared");
}

#[test]
fn encrypted_corpus_files_read_the_same_on_several_threads() {
    let keys = FileDecryptionProperties::builder()
        .with_footer_key(b"0123456789012345".to_vec())
        .with_column_key("double_field", b"1234567890123450".to_vec())
        .with_column_key("float_field", b"1234567890123451".to_vec())
        .build()
        .unwrap();
    for name in [
        "encrypt_columns_and_footer.parquet.encrypted",
        "encrypt_columns_and_footer_ctr.parquet.encrypted",
        "encrypt_columns_plaintext_footer.parquet.encrypted",
    ] {
        let bytes = Bytes::from(herringbone_testkit::read_corpus_file(
            &Path::new("data").join(name),
        ));
        let builder = || {
            ParquetRecordBatchReaderBuilder::try_new_with_decryption(bytes.clone(), &keys)
                .unwrap()
                .with_batch_size(7)
                .with_verify_crc(true)
        };
        let one = same_on_threads(builder, name);
        assert_eq!(one.error, None, "{name}");
        let rows: usize = one.batches.iter().map(RecordBatch::num_rows).sum();
        assert_eq!(rows, 50, "{name}");
    }
}

const ROWS: usize = 5_000;
const GROUP_ROWS: usize = 700;

/// An id, a nullable string, a dictionary-encoded string and a list: 5,000 rows in
/// row groups of 700 rows and pages of 100, with checksums.
fn table() -> RecordBatch {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(
        (0..ROWS as i64).map(|i| i * 3),
    ));
    let names: ArrayRef =
        Arc::new(StringArray::from_iter((0..ROWS).map(|i| {
            (i % 7 != 0).then(|| format!("name-{}", i * 31 % 1000))
        })));
    let mut categories = StringDictionaryBuilder::<Int32Type>::new();
    for i in 0..ROWS {
        if i % 13 == 0 {
            categories.append_null();
        } else {
            categories.append_value(format!("category-{}", i % 5));
        }
    }
    let categories: ArrayRef = Arc::new(categories.finish());
    let mut lists = ListBuilder::new(Int32Builder::new());
    for i in 0..ROWS {
        for j in 0..i % 4 {
            lists.values().append_value((i * 10 + j) as i32);
        }
        lists.append(i % 11 != 0);
    }
    let lists: ArrayRef = Arc::new(lists.finish());
    RecordBatch::try_from_iter([
        ("id", ids),
        ("name", names),
        ("category", categories),
        ("values", lists),
    ])
    .unwrap()
}

fn file() -> Bytes {
    let properties = WriterProperties::builder()
        .set_max_row_group_rows(GROUP_ROWS)
        .set_data_page_row_limit(100)
        .set_write_crc(true)
        .build();
    let batch = table();
    let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    Bytes::from(writer.into_inner())
}

/// The rows of the table `ranges` select.
fn rows(ranges: &[Range<usize>]) -> RecordBatch {
    let keep =
        BooleanArray::from_iter((0..ROWS).map(|r| Some(ranges.iter().any(|s| s.contains(&r)))));
    filter_record_batch(&table(), &keep).unwrap()
}

fn concat(batches: &[RecordBatch]) -> RecordBatch {
    arrow_select::concat::concat_batches(&batches[0].schema(), batches).unwrap()
}

#[test]
fn selections_offsets_and_limits_across_row_groups_read_the_same() {
    let bytes = file();
    assert_eq!(
        read_metadata(&bytes).unwrap().row_groups.len(),
        ROWS.div_ceil(GROUP_ROWS)
    );
    let whole = same_on_threads(
        || {
            Builder::try_new(bytes.clone())
                .unwrap()
                .with_batch_size(256)
        },
        "whole file",
    );
    assert_eq!(concat(&whole.batches), table());
    // Selections crossing row groups, skipping some whole, and ending before the file.
    let selected = [10..30, 650..1_500, 2_100..2_800, 3_000..3_001, 4_990..5_000];
    for batch_size in [1, 64, 1_000, 10_000] {
        let builder = || {
            Builder::try_new(bytes.clone())
                .unwrap()
                .with_batch_size(batch_size)
                .with_row_selection(RowSelection::from_consecutive_ranges(
                    selected.iter().cloned(),
                    ROWS,
                ))
        };
        let one = same_on_threads(builder, &format!("selection, batches of {batch_size}"));
        assert!(one.batches.iter().all(|b| b.num_rows() <= batch_size));
        assert_eq!(concat(&one.batches), rows(&selected));
        assert!(one.metrics.row_groups_skipped >= 1, "{:?}", one.metrics);
        assert!(one.metrics.pages_skipped > 0, "{:?}", one.metrics);
    }
    let paged = same_on_threads(
        || {
            Builder::try_new(bytes.clone())
                .unwrap()
                .with_batch_size(300)
                .with_row_groups(vec![5, 1, 3])
                .with_offset(650)
                .with_limit(1_000)
        },
        "row groups 5, 1, 3 with offset and limit",
    );
    // Row groups 5, 1, 3 are rows 3500..4200, 700..1400, 2100..2800: skip 650, take 1000.
    let expected = concat(&[
        table().slice(4_150, 50),
        table().slice(700, 700),
        table().slice(2_100, 250),
    ]);
    assert_eq!(concat(&paged.batches), expected);
}

/// `bytes` with the last four bytes of leaf column `column`'s chunk in row group
/// `group` flipped: the end of the chunk's last data page, whose checksum then fails.
fn damaged(bytes: &Bytes, group: usize, column: usize) -> Bytes {
    let metadata = read_metadata(bytes).unwrap();
    let meta = metadata.row_groups[group].columns[column]
        .meta_data
        .as_ref()
        .unwrap();
    let start = meta
        .dictionary_page_offset
        .filter(|&d| d > 0)
        .unwrap_or(meta.data_page_offset)
        .min(meta.data_page_offset) as usize;
    let end = start + meta.total_compressed_size as usize;
    let mut out = bytes.to_vec();
    for byte in &mut out[end - 4..end] {
        *byte ^= 0x5a;
    }
    Bytes::from(out)
}

#[test]
fn an_error_in_one_column_ends_the_read_where_one_thread_ends_it() {
    let bytes = file();
    // `name` (leaf 1) of row group 3; then also `id` (leaf 0) of the same row group.
    let one_column = damaged(&bytes, 3, 1);
    let two_columns = damaged(&one_column, 3, 0);
    for (damage, column) in [(&one_column, "name"), (&two_columns, "id")] {
        for batch_size in [64, 700] {
            let builder = || {
                Builder::try_new(damage.clone())
                    .unwrap()
                    .with_batch_size(batch_size)
                    .with_verify_crc(true)
            };
            let what = format!("{column} damaged, batches of {batch_size}");
            let one = same_on_threads(builder, &what);
            let error = one.error.unwrap_or_else(|| panic!("{what}: no error"));
            assert!(error.contains("row group 3"), "{what}: {error}");
            assert!(
                error.contains(&format!("column {column}")),
                "{what}: {error}"
            );
            // Every batch before the damaged page's batch, and none after.
            let read: usize = one.batches.iter().map(RecordBatch::num_rows).sum();
            assert!(
                (3 * GROUP_ROWS..4 * GROUP_ROWS).contains(&read),
                "{what}: {read}"
            );
            assert_eq!(concat(&one.batches), table().slice(0, read), "{what}");
        }
    }
}

#[test]
fn a_batch_over_the_memory_limit_fails_on_threads_too() {
    let bytes = file();
    for threads in [1, 2, 4] {
        let error = Builder::try_new(bytes.clone())
            .unwrap()
            .with_batch_size(1_000)
            .with_batch_memory_limit(2_000)
            .with_threads(threads)
            .build()
            .unwrap()
            .find_map(Result::err)
            .unwrap_or_else(|| panic!("{threads} threads: no error"));
        let arrow_schema::ArrowError::ExternalError(inner) = &error else {
            panic!("{threads} threads: {error}");
        };
        let herringbone = inner
            .downcast_ref::<herringbone_arrow_bridge::Error>()
            .unwrap();
        assert_eq!(
            herringbone.kind(),
            ErrorKind::LimitExceeded,
            "{herringbone}"
        );
        assert!(
            herringbone.to_string().contains("batch memory limit"),
            "{herringbone}"
        );
    }
}

#[test]
fn a_row_filter_keeps_the_same_rows_on_several_threads() {
    let bytes = file();
    // `id` is i * 3: keep ids in three stretches, and every row whose id ends in 1 or 7
    // (sparse: the other fields read whole then filtered) — both late-materialisation
    // rules, across row groups, with a selection on top.
    let keep = |id: i64| {
        let row = (id / 3) as usize;
        (400..900).contains(&row)
            || (2_000..2_010).contains(&row)
            || (4_500..4_990).contains(&row)
            || id % 10 == 1
            || id % 10 == 7
    };
    for min_rows_per_run in [0, MIN_ROWS_PER_RUN, usize::MAX] {
        let builder = || {
            let filter = RowFilter::new(vec!["id".into()], move |batch: &RecordBatch| {
                let ids = batch.column(0).as_primitive::<Int64Type>();
                Ok(ids.iter().map(|id| id.map(keep)).collect())
            })
            .with_min_rows_per_run(min_rows_per_run);
            Builder::try_new(bytes.clone())
                .unwrap()
                .with_batch_size(300)
                .with_row_selection(RowSelection::from_consecutive_ranges(
                    [0..3_000, 3_500..5_000],
                    ROWS,
                ))
                .with_row_filter(filter)
        };
        let one = same_on_threads(
            builder,
            &format!("row filter, {min_rows_per_run} rows a run"),
        );
        let kept: Vec<Range<usize>> = (0..ROWS)
            .filter(|&r| !(3_000..3_500).contains(&r) && keep(r as i64 * 3))
            .map(|r| r..r + 1)
            .collect();
        assert_eq!(concat(&one.batches), rows(&kept));
    }
}

/// `bytes` with the chunk of leaf `column` in row group `group` placed past the end of
/// the file (its footer rewritten): the row group cannot be opened.
fn chunk_outside_the_file(bytes: &Bytes, group: usize, column: usize) -> Bytes {
    let mut metadata = read_metadata(bytes).unwrap();
    let footer = footer_range(bytes).unwrap();
    let meta = metadata.row_groups[group].columns[column]
        .meta_data
        .as_mut()
        .unwrap();
    meta.data_page_offset = bytes.len() as i64 + 1_000;
    meta.dictionary_page_offset = None;
    let mut out = bytes[..footer.start].to_vec();
    encode_footer(&metadata, &mut out);
    Bytes::from(out)
}

#[test]
fn a_row_group_that_cannot_be_opened_ends_the_read_after_the_row_groups_before_it() {
    // Threads open the next row group while the open ones decode: its error still comes
    // after every batch of the row groups before it, as on one thread.
    let bytes = chunk_outside_the_file(&file(), 4, 1);
    for batch_size in [64, 700, 5_000] {
        let what = format!("row group 4 unopenable, batches of {batch_size}");
        let one = same_on_threads(
            || {
                Builder::try_new(bytes.clone())
                    .unwrap()
                    .with_batch_size(batch_size)
            },
            &what,
        );
        let error = one.error.unwrap_or_else(|| panic!("{what}: no error"));
        assert!(error.contains("row group 4"), "{what}: {error}");
        assert!(
            error.contains("beyond the end of the file"),
            "{what}: {error}"
        );
        assert_eq!(
            concat(&one.batches),
            table().slice(0, 4 * GROUP_ROWS),
            "{what}"
        );
    }
}

#[test]
fn a_read_with_threads_runs_inside_another_rayon_pool() {
    // The calling thread decodes beside the reader's pool; called from a worker of
    // another pool (one thread, so a wait on it could never be served by a second), the
    // read still completes with the batches of one thread.
    let bytes = file();
    let read = |threads| {
        Builder::try_new(bytes.clone())
            .unwrap()
            .with_batch_size(256)
            .with_threads(threads)
            .build()
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap()
    };
    let outer = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    for threads in [2, 4] {
        let inside = outer.install(|| read(threads));
        assert_eq!(concat(&inside), table(), "{threads} threads");
        assert_eq!(inside, read(1), "{threads} threads");
    }
}
