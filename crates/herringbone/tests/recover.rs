//! `herringbone::recover` on files whose end was cut off at several points: every row
//! group that lies wholly before the cut comes back with equal values.

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use bytes::Bytes;
use herringbone::metadata::FileMetaData;
use herringbone::recover::{RecoverOptions, Source, recover};
use herringbone::verify::{VerifyOptions, verify};
use herringbone::{ArrowWriter, Codec, ParquetRecordBatchReaderBuilder, WriterProperties};
use herringbone_format::footer::read_metadata;

fn rows_of(file: Bytes, groups: Option<Vec<usize>>) -> Vec<RecordBatch> {
    let mut builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    if let Some(groups) = groups {
        builder = builder.with_row_groups(groups);
    }
    builder.build().unwrap().collect::<Result<_, _>>().unwrap()
}

/// Row groups whose chunks (and so pages) all end before `cut`.
fn intact_before(metadata: &FileMetaData, cut: u64) -> usize {
    metadata
        .row_groups
        .iter()
        .take_while(|g| {
            g.columns.iter().all(|c| {
                let m = c.meta_data.as_ref().unwrap();
                let start = m
                    .dictionary_page_offset
                    .filter(|&d| d > 0)
                    .unwrap_or(m.data_page_offset);
                (start + m.total_compressed_size) as u64 <= cut
            })
        })
        .count()
}

/// Cuts `file` at several points and checks each recovery; returns the sources used.
fn check_cuts(name: &str, file: &[u8]) -> Vec<Source> {
    let bytes = Bytes::copy_from_slice(file);
    let metadata = read_metadata(&bytes).unwrap();
    let footer_len =
        u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap()) as usize;
    let footer_start = file.len() - 8 - footer_len;
    let last = metadata.row_groups.last().unwrap().columns[0]
        .meta_data
        .as_ref()
        .unwrap();
    let last_start = last
        .dictionary_page_offset
        .filter(|&d| d > 0)
        .unwrap_or(last.data_page_offset) as usize;
    let mut cuts = vec![
        file.len() - 4,                // the magic
        file.len() - 8,                // the footer length
        footer_start + footer_len / 2, // inside the footer
        footer_start,                  // the whole footer
    ];
    if metadata.row_groups.len() > 1 {
        cuts.push(last_start + 3); // inside the last row group
    }
    let options = RecoverOptions::default()
        .with_schema(metadata.schema.clone(), metadata.key_value_metadata.clone());
    let mut sources = Vec::new();
    for cut in cuts {
        let mut out = Vec::new();
        let report = recover(&Bytes::copy_from_slice(&file[..cut]), &mut out, &options)
            .unwrap_or_else(|e| panic!("{name} cut at {cut}: {e}"));
        sources.push(report.source);
        let expected = intact_before(&metadata, cut as u64);
        assert!(
            report.row_groups >= expected,
            "{name} cut at {cut}: {} row groups recovered, {expected} intact: {:?}",
            report.row_groups,
            report.dropped
        );
        let out = Bytes::from(out);
        let recovered = rows_of(out.clone(), Some((0..expected).collect()));
        let original = rows_of(bytes.clone(), Some((0..expected).collect()));
        let concat = |batches: &[RecordBatch]| {
            arrow_select::concat::concat_batches(&batches[0].schema(), batches).unwrap()
        };
        assert_eq!(
            concat(&recovered),
            concat(&original),
            "{name} cut at {cut}: values"
        );
        let checked = verify(out, &VerifyOptions::default());
        assert!(
            checked.is_clean(),
            "{name} cut at {cut}: {:?}",
            checked.problems
        );
    }
    sources
}

#[test]
fn a_written_file_cut_anywhere_keeps_its_intact_row_groups() {
    let n = 3000;
    let ids: ArrayRef = Arc::new(Int64Array::from((0..n).collect::<Vec<i64>>()));
    let names: ArrayRef = Arc::new(StringArray::from(
        (0..n)
            .map(|i| (i % 3 != 0).then(|| format!("name {}", i % 17)))
            .collect::<Vec<_>>(),
    ));
    let prices: ArrayRef = Arc::new(Float64Array::from(
        (0..n).map(|i| i as f64 / 4.0).collect::<Vec<_>>(),
    ));
    let batch =
        RecordBatch::try_from_iter([("id", ids), ("name", names), ("price", prices)]).unwrap();
    for codec in [Codec::Snappy, Codec::Zstd { level: 1 }, Codec::Uncompressed] {
        let props = WriterProperties::builder()
            .set_compression(codec)
            .set_max_row_group_rows(1000)
            .set_data_page_row_limit(400)
            .build();
        let mut file = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let sources = check_cuts(codec.name(), &file);
        assert!(sources.contains(&Source::PartialFooter), "{sources:?}");
        assert!(sources.contains(&Source::PageScan), "{sources:?}");
    }
}

#[test]
fn corpus_files_cut_anywhere_keep_their_intact_row_groups() {
    let dir = herringbone_testkit::corpus_data_dir();
    for name in [
        "alltypes_tiny_pages.parquet",
        "sort_columns.parquet",
        "floating_orders_nan_count.parquet",
        "nested_lists.snappy.parquet",
        "nullable.impala.parquet",
        "delta_encoding_optional_column.parquet",
        "geospatial/geography-points.parquet",
    ] {
        let file = std::fs::read(dir.join(name)).unwrap();
        check_cuts(name, &file);
    }
}

#[test]
fn without_a_footer_or_a_schema_recovery_says_what_it_needs() {
    let ids: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
    let batch = RecordBatch::try_from_iter([("id", ids)]).unwrap();
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    // Everything after the pages is gone, the footer's schema with it.
    let cut = &file[..40];
    let err = recover(
        &Bytes::copy_from_slice(cut),
        &mut Vec::new(),
        &RecoverOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("give one"), "{err}");
}

/// The schemas the `recover` fuzz target chooses from by its first byte.
const FUZZ_SCHEMAS: [&str; 3] = [
    "message m { required int32 a; optional binary b (STRING); }",
    "message m { optional group l (LIST) { repeated group list { optional int64 element; } } }",
    "message m { required double x; required boolean y; }",
];

/// Fuzzers' finds (`tests/data/recover/*.bin`, inputs of the `recover` fuzz target:
/// a control byte, then the file), replayed with what the target asks of any input:
/// recovery fails cleanly, or what it writes reads back whole (INT96 in seconds), row
/// for row what it reported, and verifies without a header, decompression, level or
/// decoding problem. They are: a page whose header counts fewer values than its PLAIN
/// section holds; list levels that contradict each other across pages; a list level
/// continuing a list its definition level leaves undefined (the reader tolerates it,
/// the verifier does not).
#[test]
fn what_recovery_keeps_reads_back() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/recover");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    assert_eq!(names.len(), 3);
    for path in names {
        let input = std::fs::read(&path).unwrap();
        let (&control, file) = input.split_first().unwrap();
        let mut options = RecoverOptions::default();
        if control & 4 == 0 {
            let schema = FUZZ_SCHEMAS[usize::from(control & 3) % FUZZ_SCHEMAS.len()];
            let schema = herringbone::schema::parse_message_type(schema).unwrap();
            options = options.with_schema(schema, None);
        }
        let mut out = Vec::new();
        let Ok(report) = recover(&Bytes::copy_from_slice(file), &mut out, &options) else {
            continue;
        };
        let out = Bytes::from(out);
        let reader = ParquetRecordBatchReaderBuilder::try_new(out.clone())
            .unwrap()
            .with_schema_options(
                herringbone::SchemaOptions::new().with_int96_unit(arrow_schema::TimeUnit::Second),
            )
            .build()
            .unwrap();
        let rows: usize = reader.map(|b| b.unwrap().num_rows()).sum();
        assert_eq!(rows as u64, report.rows, "{}: {report:?}", path.display());
        let checked = verify(out, &VerifyOptions::default());
        assert!(
            checked.problems.is_empty(),
            "{}: {:?}",
            path.display(),
            checked.problems
        );
    }
}
