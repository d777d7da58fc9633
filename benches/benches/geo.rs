//! Geospatial statistics on write: a `geoarrow.wkb` column of 200,000 geometries (a
//! mix of points, 8-vertex line strings and 5-vertex polygons, little endian, XY)
//! written by Herringbone as GEOMETRY with its statistics (bounding box and type list
//! per chunk, chunk-level statistics), as GEOGRAPHY (spherical boxes), and with
//! statistics off; plus the WKB scan alone over the same values. arrow-rs `parquet` 59
//! with its `geospatial` feature writes the same column as GEOMETRY with its statistics
//! (bounding box and type list, computed by the `parquet-geospatial` crate) and with
//! statistics off; it has no GEOGRAPHY bounding (its accumulator returns none for
//! GEOGRAPHY), so the spherical case has no arrow-rs counterpart. In the setup both
//! writers' chunk statistics are read back (by arrow-rs's metadata reader) and compared.
//!
//! At the end the bench prints the time of each case, the overhead of statistics
//! (GEOMETRY with / without) on each side and arrow-rs time / Herringbone time, from
//! criterion's mean estimates of this run.
//!
//! Run: `cargo bench -p herringbone-benches --features arrow-rs-geospatial --bench geo`
//! (the feature turns on arrow-rs's `geospatial` feature for this bench only).

mod common;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use arrow_array::{ArrayRef, BinaryArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use criterion::{BenchmarkId, Criterion};
use herringbone::StatisticsLevel;
use herringbone_codec::geo::{Edges, GeoStatisticsAccumulator};
use parquet::file::metadata::ParquetMetaDataReader;
use parquet::file::properties::EnabledStatistics;

const ROWS: usize = 200_000;

/// A small deterministic generator (no RNG dependency for one bench).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn values() -> Vec<Vec<u8>> {
    let mut rng = Lcg(20);
    let mut out = Vec::with_capacity(ROWS);
    for i in 0..ROWS {
        let (x, y) = (rng.next() * 340.0 - 170.0, rng.next() * 160.0 - 80.0);
        let mut v = vec![1u8];
        let push = |v: &mut Vec<u8>, x: f64, y: f64| {
            v.extend_from_slice(&x.to_le_bytes());
            v.extend_from_slice(&y.to_le_bytes());
        };
        match i % 3 {
            0 => {
                v.extend_from_slice(&1u32.to_le_bytes());
                push(&mut v, x, y);
            }
            1 => {
                v.extend_from_slice(&2u32.to_le_bytes());
                v.extend_from_slice(&8u32.to_le_bytes());
                for k in 0..8 {
                    push(&mut v, x + f64::from(k) * 0.1, y + rng.next());
                }
            }
            _ => {
                v.extend_from_slice(&3u32.to_le_bytes());
                v.extend_from_slice(&1u32.to_le_bytes());
                v.extend_from_slice(&5u32.to_le_bytes());
                for (dx, dy) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.0, 0.0)] {
                    push(&mut v, x + dx, y + dy);
                }
            }
        }
        out.push(v);
    }
    out
}

fn batch(values: &[Vec<u8>], edges: Option<&str>) -> RecordBatch {
    let array: ArrayRef = Arc::new(BinaryArray::from_iter_values(values.iter()));
    let metadata = match edges {
        Some(e) => format!(r#"{{"edges":"{e}"}}"#),
        None => "{}".to_string(),
    };
    let field = Field::new("geom", DataType::Binary, false).with_metadata(
        [
            (
                "ARROW:extension:name".to_string(),
                "geoarrow.wkb".to_string(),
            ),
            ("ARROW:extension:metadata".to_string(), metadata),
        ]
        .into(),
    );
    RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![array]).expect("batch")
}

fn write_herringbone(batch: &RecordBatch, statistics: StatisticsLevel) -> Vec<u8> {
    let props = herringbone::WriterProperties::builder()
        .set_statistics(statistics)
        .set_dictionary_enabled(false)
        .build();
    let mut out = Vec::new();
    let mut w =
        herringbone::ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).expect("writer");
    w.write(batch).expect("write");
    w.close().expect("close");
    out
}

fn write_arrow_rs(batch: &RecordBatch, statistics: EnabledStatistics) -> Vec<u8> {
    let props = parquet::file::properties::WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_statistics_enabled(statistics)
        .build();
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), Some(props))
        .expect("writer");
    w.write(batch).expect("write");
    w.close().expect("close");
    out
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    let values = values();
    let geometry = batch(&values, None);
    let geography = batch(&values, Some("spherical"));
    // Not timed: the statistics are there, and absent when off.
    let with = write_herringbone(&geometry, StatisticsLevel::Chunk);
    let without = write_herringbone(&geometry, StatisticsLevel::None);
    assert!(with.len() > without.len(), "statistics add footer bytes");
    let theirs = write_arrow_rs(&geometry, EnabledStatistics::Chunk);
    let (ours_box, theirs_box) = (chunk_geo_statistics(&with), chunk_geo_statistics(&theirs));
    assert!(
        ours_box.is_some(),
        "Herringbone wrote no geospatial statistics"
    );
    assert_eq!(
        ours_box, theirs_box,
        "the writers' geospatial statistics differ"
    );

    let started = SystemTime::now();
    let mut group = c.benchmark_group("geo_write");
    group.bench_function(BenchmarkId::new("herringbone", "scan_only"), |b| {
        b.iter(|| {
            let mut acc = GeoStatisticsAccumulator::new(Edges::Planar);
            values.iter().for_each(|v| acc.add(v));
            black_box(acc.finish())
        })
    });
    group.bench_function(BenchmarkId::new("herringbone", "geometry_stats"), |b| {
        b.iter(|| black_box(write_herringbone(&geometry, StatisticsLevel::Chunk)))
    });
    group.bench_function(BenchmarkId::new("herringbone", "geography_stats"), |b| {
        b.iter(|| black_box(write_herringbone(&geography, StatisticsLevel::Chunk)))
    });
    group.bench_function(BenchmarkId::new("herringbone", "no_stats"), |b| {
        b.iter(|| black_box(write_herringbone(&geometry, StatisticsLevel::None)))
    });
    group.bench_function(BenchmarkId::new("arrow_rs", "geometry_stats"), |b| {
        b.iter(|| black_box(write_arrow_rs(&geometry, EnabledStatistics::Chunk)))
    });
    group.bench_function(BenchmarkId::new("arrow_rs", "no_stats"), |b| {
        b.iter(|| black_box(write_arrow_rs(&geometry, EnabledStatistics::None)))
    });
    group.finish();
    c.final_summary();
    summary(started);
}

/// The first chunk's bounding box (x, y) and geometry type list, as arrow-rs's metadata
/// reader decodes them from the file's footer.
type ChunkGeoStatistics = ([f64; 4], Option<Vec<i32>>);

fn chunk_geo_statistics(file: &[u8]) -> Option<ChunkGeoStatistics> {
    let metadata = ParquetMetaDataReader::new()
        .parse_and_finish(&bytes::Bytes::copy_from_slice(file))
        .expect("footer");
    let stats = metadata.row_group(0).column(0).geo_statistics()?;
    let bbox = stats.bounding_box()?;
    Some((
        [
            bbox.get_xmin(),
            bbox.get_xmax(),
            bbox.get_ymin(),
            bbox.get_ymax(),
        ],
        stats.geospatial_types().cloned(),
    ))
}

/// Prints criterion's mean estimates of this run.
fn summary(since: SystemTime) {
    let mean = |case: &str| {
        let (side, name) = case.split_once('/').expect("side/case");
        common::mean_ns("geo_write", side, name, since)
    };
    println!("\ngeo write, {ROWS} geometries:");
    for case in [
        "herringbone/scan_only",
        "herringbone/geometry_stats",
        "herringbone/geography_stats",
        "herringbone/no_stats",
        "arrow_rs/geometry_stats",
        "arrow_rs/no_stats",
    ] {
        if let Some(ns) = mean(case) {
            println!("  {case:<30} {:>9.2} ms", ns / 1e6);
        }
    }
    if let (Some(with), Some(without)) = (
        mean("herringbone/geometry_stats"),
        mean("herringbone/no_stats"),
    ) {
        println!(
            "  statistics overhead (GEOMETRY), Herringbone: {:.2}x",
            with / without
        );
    }
    if let (Some(with), Some(without)) =
        (mean("arrow_rs/geometry_stats"), mean("arrow_rs/no_stats"))
    {
        println!(
            "  statistics overhead (GEOMETRY), arrow-rs:    {:.2}x",
            with / without
        );
    }
    for case in ["geometry_stats", "no_stats"] {
        if let (Some(ours), Some(theirs)) = (
            mean(&format!("herringbone/{case}")),
            mean(&format!("arrow_rs/{case}")),
        ) {
            println!("  arrow-rs / Herringbone, {case:<15} {:.2}x", theirs / ours);
        }
    }
}
