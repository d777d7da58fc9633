//! Writer: Herringbone's `ArrowWriter` against arrow-rs's on the reader benchmark's data
//! (`common`), each case one `RecordBatch` of about 1M rows written into a `Vec<u8>`,
//! single-threaded, with equal properties on both sides: the case's codec (none, or ZSTD
//! level 1) and dictionary switch (1 MiB dictionary limit, then fallback to PLAIN), data
//! page v1 of 1 MiB / 20,000 rows, page-level statistics (in the page headers and the
//! column index, bounds truncated to 64 bytes), offset index, the Arrow schema in the
//! footer, one row group, no Bloom filter, no CRC.
//!
//! In the setup both files are read back with arrow-rs's reader and must hold the same
//! values (not timed). At the end the bench prints per case the time of each writer,
//! arrow-rs time / Herringbone time, each file's size and Herringbone size / arrow-rs
//! size, with the geometric means, from criterion's mean estimates of this run.
//!
//! Run: `cargo bench -p herringbone-benches --bench write`
//! (defaults: 10 samples, 0.3 s warm-up, 1 s measurement per benchmark; criterion's
//! `--warm-up-time` / `--measurement-time` / `--sample-size` override them, and a filter
//! such as `-- int64` runs a subset). With `HB_WRITE_BENCH_DUMP=DIR` set, the setup also
//! writes both files of every case to `DIR`.
//!
//! The last column compares sizes once more with both writers at a page limit of 20,480
//! rows (not timed). arrow-rs checks its row limit once per 1,024-row mini-batch, so at
//! 20,000 rows it writes 20,480-row pages while Herringbone cuts them at 20,000 exactly:
//! one more page per column. At a multiple of 1,024 both cut the same pages, and the
//! sizes compare the encoding alone.

mod common;

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use arrow_array::RecordBatch;
use bytes::Bytes;
use common::{Dataset, ROWS};
use criterion::{BenchmarkId, Criterion};
use herringbone::{Codec, DataPageVersion, StatisticsLevel};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterVersion};
use parquet::schema::types::ColumnPath;

const PAGE_BYTES: usize = 1024 * 1024;
const PAGE_ROWS: usize = 20_000;
/// A page row limit both writers honour at the same rows (a multiple of arrow-rs's
/// 1,024-row mini-batch), for the size comparison of equal page layouts.
const PAGE_ROWS_ALIGNED: usize = 20 * 1024;
const DICTIONARY_BYTES: usize = 1024 * 1024;
const TRUNCATE: usize = 64;

fn arrow_rs_props(data: &Dataset, page_rows: usize) -> parquet::file::properties::WriterProperties {
    let mut props = parquet::file::properties::WriterProperties::builder()
        .set_dictionary_enabled(data.dictionary)
        .set_dictionary_page_size_limit(DICTIONARY_BYTES)
        .set_compression(if data.zstd {
            Compression::ZSTD(ZstdLevel::try_new(1).expect("zstd level 1"))
        } else {
            Compression::UNCOMPRESSED
        })
        .set_writer_version(WriterVersion::PARQUET_1_0)
        .set_statistics_enabled(EnabledStatistics::Page)
        // Herringbone's page-level statistics include the page headers' statistics.
        .set_write_page_header_statistics(true)
        .set_statistics_truncate_length(Some(TRUNCATE))
        .set_column_index_truncate_length(Some(TRUNCATE))
        .set_data_page_size_limit(PAGE_BYTES)
        .set_data_page_row_count_limit(page_rows)
        .set_max_row_group_row_count(Some(ROWS));
    if let Some(column) = data.delta_length_column {
        props =
            props.set_column_encoding(ColumnPath::from(column), Encoding::DELTA_LENGTH_BYTE_ARRAY);
    }
    props.build()
}

fn herringbone_props(data: &Dataset, page_rows: usize) -> herringbone::WriterProperties {
    let mut props = herringbone::WriterProperties::builder()
        .set_dictionary_enabled(data.dictionary)
        .set_dictionary_page_size_limit(DICTIONARY_BYTES)
        .set_compression(if data.zstd {
            Codec::Zstd { level: 1 }
        } else {
            Codec::Uncompressed
        })
        .set_data_page_version(DataPageVersion::V1)
        .set_statistics(StatisticsLevel::Page)
        .set_statistics_truncate_length(Some(TRUNCATE))
        .set_data_page_size_limit(PAGE_BYTES)
        .set_data_page_row_limit(page_rows)
        .set_max_row_group_rows(ROWS);
    if let Some(column) = data.delta_length_column {
        props = props.set_column_encoding(column, herringbone::Encoding::DELTA_LENGTH_BYTE_ARRAY);
    }
    props.build()
}

fn write_arrow_rs(
    batch: &RecordBatch,
    props: &parquet::file::properties::WriterProperties,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), Some(props.clone()))
            .expect("arrow-rs writer");
    writer.write(batch).expect("arrow-rs write");
    writer.close().expect("arrow-rs close");
    out
}

fn write_herringbone(batch: &RecordBatch, props: &herringbone::WriterProperties) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer =
        herringbone::ArrowWriter::try_new(&mut out, batch.schema(), Some(props.clone()))
            .expect("Herringbone writer");
    writer.write(batch).expect("Herringbone write");
    writer.close().expect("Herringbone close");
    out
}

fn read_back(file: Vec<u8>) -> Result<Vec<RecordBatch>, String> {
    ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file))
        .and_then(|b| b.with_batch_size(8192).build())
        .map_err(|e| e.to_string())?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

/// File sizes of one case: (Herringbone, arrow-rs) at the bench's properties, and the same
/// at [`PAGE_ROWS_ALIGNED`].
struct Sizes {
    bench: (usize, usize),
    aligned: (usize, usize),
}

/// Writes the case with both writers once; the file sizes, or why it is not benchmarked.
fn check(data: &Dataset) -> Result<Sizes, String> {
    let ours = write_herringbone(&data.batch, &herringbone_props(data, PAGE_ROWS));
    let theirs = write_arrow_rs(&data.batch, &arrow_rs_props(data, PAGE_ROWS));
    let sizes = Sizes {
        bench: (ours.len(), theirs.len()),
        aligned: (
            write_herringbone(&data.batch, &herringbone_props(data, PAGE_ROWS_ALIGNED)).len(),
            write_arrow_rs(&data.batch, &arrow_rs_props(data, PAGE_ROWS_ALIGNED)).len(),
        ),
    };
    if let Some(dir) = std::env::var_os("HB_WRITE_BENCH_DUMP") {
        // Both files kept for inspection (`hb meta`), e.g. to explain a size difference.
        let dir = std::path::PathBuf::from(dir);
        std::fs::write(
            dir.join(format!("{}.herringbone.parquet", data.name)),
            &ours,
        )
        .map_err(|e| e.to_string())?;
        std::fs::write(dir.join(format!("{}.arrow-rs.parquet", data.name)), &theirs)
            .map_err(|e| e.to_string())?;
    }
    let ours = read_back(ours).map_err(|e| format!("arrow-rs cannot read our file: {e}"))?;
    let theirs = read_back(theirs).map_err(|e| format!("arrow-rs cannot read its file: {e}"))?;
    let rows: usize = ours.iter().map(RecordBatch::num_rows).sum();
    if rows != data.batch.num_rows() {
        return Err(format!(
            "our file holds {rows} rows, the batch {}",
            data.batch.num_rows()
        ));
    }
    if ours.len() != theirs.len() {
        return Err(format!(
            "files disagree: {} batches vs arrow-rs {}",
            ours.len(),
            theirs.len()
        ));
    }
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        if a.schema().fields() != b.schema().fields() || a.columns() != b.columns() {
            return Err(format!("files disagree on batch {i}"));
        }
    }
    Ok(sizes)
}

fn main() {
    let started = SystemTime::now();
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1000))
        .configure_from_args();

    let datasets = common::datasets();
    let mut measured = Vec::new();
    {
        let mut group = criterion.benchmark_group("write");
        for data in &datasets {
            let sizes = match check(data) {
                Ok(sizes) => sizes,
                Err(note) => {
                    println!("note: skipping {}: {note}", data.name);
                    continue;
                }
            };
            let ours = herringbone_props(data, PAGE_ROWS);
            let theirs = arrow_rs_props(data, PAGE_ROWS);
            group.bench_function(BenchmarkId::new("herringbone", &data.name), |b| {
                b.iter(|| black_box(write_herringbone(&data.batch, &ours)))
            });
            group.bench_function(BenchmarkId::new("arrow-rs", &data.name), |b| {
                b.iter(|| black_box(write_arrow_rs(&data.batch, &theirs)))
            });
            measured.push((data.name.clone(), sizes));
        }
        group.finish();
    }
    criterion.final_summary();

    println!("\nratio = arrow-rs time / Herringbone time (above 1: Herringbone faster)");
    println!("size = Herringbone file size / arrow-rs file size (below 1: Herringbone smaller)");
    println!(
        "size@20480 = the same with both writers at a 20,480-row page limit (equal pages), \
         and Herringbone bytes - arrow-rs bytes"
    );
    println!(
        "{:<26} {:>12} {:>12} {:>7} {:>11} {:>11} {:>8} {:>10} {:>8}",
        "case",
        "Herringbone",
        "arrow-rs",
        "ratio",
        "HB bytes",
        "arrow bytes",
        "size",
        "size@20480",
        "diff"
    );
    let mut log_speed = 0.0;
    let mut log_size = 0.0;
    let mut log_aligned = 0.0;
    let mut count = 0;
    for (name, sizes) in &measured {
        let (our_size, their_size) = sizes.bench;
        let (Some(ours), Some(theirs)) = (
            common::mean_ns("write", "herringbone", name, started),
            common::mean_ns("write", "arrow-rs", name, started),
        ) else {
            // Filtered out on the command line, or not written where expected.
            continue;
        };
        let ratio = theirs / ours;
        let size = our_size as f64 / their_size as f64;
        let aligned = sizes.aligned.0 as f64 / sizes.aligned.1 as f64;
        let aligned_diff = sizes.aligned.0 as i64 - sizes.aligned.1 as i64;
        log_speed += ratio.ln();
        log_size += size.ln();
        log_aligned += aligned.ln();
        count += 1;
        println!(
            "{name:<26} {:>9.2} ms {:>9.2} ms {ratio:>6.2}x {our_size:>11} {their_size:>11} {size:>8.5} {aligned:>10.5} {aligned_diff:>8}",
            ours / 1e6,
            theirs / 1e6
        );
    }
    if count > 0 {
        println!(
            "geometric mean over {count} cases: speed {:.2}x, size {:.4}, size@20480 {:.4}",
            (log_speed / f64::from(count)).exp(),
            (log_size / f64::from(count)).exp(),
            (log_aligned / f64::from(count)).exp()
        );
    }
}
