//! Footer decode: Herringbone's `herringbone_format::footer` against arrow-rs
//! `ParquetMetaDataReader::decode_metadata`, on a 20-column file and on wide files of
//! 1,000 and 10,000 columns x 20 row groups written by arrow-rs (with statistics), plus
//! Herringbone's selective decode (10 of 10,000 columns, statistics skipped).
//!
//! What each side builds, so the figures compare like with like:
//!
//! | case | builds |
//! | --- | --- |
//! | `herringbone/full` | the Thrift `FileMetaData` alone: row groups, column chunks, statistics as their raw min/max bytes |
//! | `herringbone/full_with_schema` | the same plus the `SchemaDescriptor` (schema tree, leaf columns with levels and paths): what a reader needs before it can read, the like-for-like figure against arrow-rs |
//! | `arrow-rs/full` | `ParquetMetaData`: the decoded Thrift, the `SchemaDescriptor`, per-chunk `ColumnChunkMetaData` with typed `Statistics` (min/max converted to the physical type) and page encoding stats |
//! | `*/skip_stats` | the same without statistics |
//! | `herringbone/10_columns*` | only 10 of the columns' chunks (no arrow-rs equivalent) |
//!
//! arrow-rs converts statistics to typed values as it decodes; Herringbone keeps them as
//! bytes and types them when asked, so `arrow-rs/full` still does a little more work than
//! `herringbone/full_with_schema` on files with statistics. No case uses AVX-512.
//!
//! Run: `cargo bench -p herringbone-benches --bench footer -- --warm-up-time 1 --measurement-time 2`

use std::hint::black_box;
use std::sync::Arc;

use bytes::Bytes;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use herringbone_format::footer::{FooterOptions, decode_file_metadata, footer_range};
use herringbone_format::schema::SchemaDescriptor;
use parquet::column::writer::ColumnWriter;
use parquet::file::metadata::{
    ParquetMetaDataOptions, ParquetMetaDataReader, ParquetStatisticsPolicy,
};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

/// Writes a file of `columns` columns (alternating INT64 and UTF8 BYTE_ARRAY, all
/// optional) in `row_groups` row groups of `rows` rows, with chunk statistics.
fn make_file(columns: usize, row_groups: usize, rows: usize) -> Bytes {
    let mut schema = String::from("message bench {\n");
    for c in 0..columns {
        if c % 2 == 0 {
            schema.push_str(&format!("  optional int64 c{c};\n"));
        } else {
            schema.push_str(&format!("  optional binary c{c} (STRING);\n"));
        }
    }
    schema.push('}');
    let schema = Arc::new(parse_message_type(&schema).expect("bench schema parses"));
    let props = Arc::new(
        WriterProperties::builder()
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .set_dictionary_enabled(false)
            .build(),
    );
    let mut out = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut out, schema, props).expect("writer");
    let defs = vec![1i16; rows];
    for rg in 0..row_groups {
        let mut rgw = writer.next_row_group().expect("row group");
        let mut c = 0usize;
        while let Some(mut col) = rgw.next_column().expect("column") {
            let base = (rg * rows + c) as i64;
            match col.untyped() {
                ColumnWriter::Int64ColumnWriter(w) => {
                    let values: Vec<i64> = (0..rows as i64).map(|i| base * 1000 + i).collect();
                    w.write_batch(&values, Some(&defs), None).expect("write");
                }
                ColumnWriter::ByteArrayColumnWriter(w) => {
                    let values: Vec<parquet::data_type::ByteArray> = (0..rows)
                        .map(|i| format!("value-{base}-{i}").into_bytes().into())
                        .collect();
                    w.write_batch(&values, Some(&defs), None).expect("write");
                }
                _ => unreachable!("bench schema has only INT64 and BYTE_ARRAY"),
            }
            col.close().expect("close column");
            c += 1;
        }
        rgw.close().expect("close row group");
    }
    writer.close().expect("close file");
    Bytes::from(out)
}

fn footer_of(file: &Bytes) -> Bytes {
    let range = footer_range(file).expect("valid footer");
    file.slice(range)
}

fn bench_footer(c: &mut Criterion) {
    let cases = [
        ("20cols_1rg", 20, 1, 1000),
        ("1000cols_20rg", 1000, 20, 2),
        ("10000cols_20rg", 10_000, 20, 2),
    ];
    for (name, cols, rgs, rows) in cases {
        let file = make_file(cols, rgs, rows);
        let footer = footer_of(&file);
        let mut group = c.benchmark_group(format!("footer/{name}"));
        group.throughput(criterion::Throughput::Bytes(footer.len() as u64));
        group.bench_function(BenchmarkId::new("herringbone", "full"), |b| {
            b.iter(|| {
                decode_file_metadata(black_box(footer.clone()), &FooterOptions::new()).unwrap()
            })
        });
        group.bench_function(BenchmarkId::new("herringbone", "full_with_schema"), |b| {
            b.iter(|| {
                let metadata =
                    decode_file_metadata(black_box(footer.clone()), &FooterOptions::new()).unwrap();
                let schema = SchemaDescriptor::new(&metadata.schema).unwrap();
                (metadata, schema)
            })
        });
        group.bench_function(BenchmarkId::new("arrow-rs", "full"), |b| {
            b.iter(|| ParquetMetaDataReader::decode_metadata(black_box(&footer)).unwrap())
        });
        if cols >= 1000 {
            let skip = FooterOptions::new().with_skip_statistics(true);
            group.bench_function(BenchmarkId::new("herringbone", "skip_stats"), |b| {
                b.iter(|| decode_file_metadata(black_box(footer.clone()), &skip).unwrap())
            });
            let arrow_skip = ParquetMetaDataOptions::new()
                .with_column_stats_policy(ParquetStatisticsPolicy::SkipAll)
                .with_encoding_stats_policy(ParquetStatisticsPolicy::SkipAll)
                .with_size_stats_policy(ParquetStatisticsPolicy::SkipAll);
            group.bench_function(BenchmarkId::new("arrow-rs", "skip_stats"), |b| {
                b.iter(|| {
                    ParquetMetaDataReader::decode_metadata_with_options(
                        black_box(&footer),
                        Some(&arrow_skip),
                    )
                    .unwrap()
                })
            });
            let step = cols / 10;
            let ten = FooterOptions::new().with_columns((0..10).map(|i| i * step));
            group.bench_function(BenchmarkId::new("herringbone", "10_columns"), |b| {
                b.iter(|| decode_file_metadata(black_box(footer.clone()), &ten).unwrap())
            });
            let ten_skip = ten.clone().with_skip_statistics(true);
            group.bench_function(
                BenchmarkId::new("herringbone", "10_columns_skip_stats"),
                |b| b.iter(|| decode_file_metadata(black_box(footer.clone()), &ten_skip).unwrap()),
            );
        }
        group.finish();
    }
}

criterion_group!(benches, bench_footer);
criterion_main!(benches);
