//! Modular encryption: reading and writing the TPC-H `lineitem`-shaped table of the
//! reader benchmark (`common`, about 1M rows, ZSTD level 1, dictionary on) encrypted
//! against the same table unencrypted, Herringbone beside arrow-rs (`encryption`
//! feature). Every column is under the footer key (uniform encryption, AES-128,
//! encrypted footer).
//!
//! | case | file | readers | writers |
//! |---|---|---|---|
//! | `plain` | unencrypted | both | both |
//! | `gcm` | AES_GCM_V1 | both | both |
//! | `gcm-ctr` | AES_GCM_CTR_V1 | Herringbone (arrow-rs has no CTR) | Herringbone |
//!
//! Reads are of files on disk (written in the setup to `target/bench-encryption/`:
//! `plain` and `gcm` by arrow-rs with its defaults plus the settings above, `gcm-ctr`
//! by Herringbone), whole files, batches of 8192 rows, single-threaded. Writes are of
//! the one batch into a `Vec<u8>`. In the setup every file is read by each reader that
//! can and the values compared (not timed).
//!
//! At the end the bench prints per side the time of each case, the encryption overhead
//! (encrypted time / plain time) and arrow-rs time / Herringbone time, from criterion's
//! mean estimates of this run.
//!
//! Run: `cargo bench -p herringbone-benches --bench encryption`
//! (defaults: 10 samples, 0.5 s warm-up, 2 s measurement per benchmark; criterion's
//! flags override them).
//!
//! On a shared machine: `HB_BENCH_ROUNDS=15 cargo bench -p herringbone-benches --bench
//! encryption` skips criterion and runs paired rounds instead: each round runs every
//! read and write once (in an order that rotates from round to round), timed by the
//! process's CPU time; the table gives the median time per case, and the overhead and
//! the ratio as the median over rounds of the per-round quotients (so a slow round
//! slows both sides of a quotient alike).

mod common;

use std::collections::HashMap;
use std::fs::File;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use arrow_array::RecordBatch;
use criterion::{BenchmarkId, Criterion};
use herringbone::encryption::{Algorithm, FileDecryptionProperties, FileEncryptionProperties};
use herringbone::{Codec, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder as Arrow};
use parquet::basic::{Compression, ZstdLevel};
use parquet::encryption::decrypt::FileDecryptionProperties as ArrowDecryption;
use parquet::encryption::encrypt::FileEncryptionProperties as ArrowEncryption;

const KEY: &[u8] = b"0123456789012345";
const BATCH_SIZE: usize = 8192;
const CASES: [&str; 3] = ["plain", "gcm", "gcm-ctr"];

fn arrow_rs_props(encrypted: bool) -> parquet::file::properties::WriterProperties {
    let mut props = parquet::file::properties::WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).expect("level 1")))
        .set_max_row_group_row_count(Some(common::ROWS));
    if encrypted {
        props = props.with_file_encryption_properties(
            ArrowEncryption::builder(KEY.to_vec())
                .build()
                .expect("arrow-rs keys"),
        );
    }
    props.build()
}

fn herringbone_props(case: &str) -> herringbone::WriterProperties {
    let mut props = herringbone::WriterProperties::builder()
        .set_compression(Codec::Zstd { level: 1 })
        .set_max_row_group_rows(common::ROWS);
    let algorithm = match case {
        "gcm" => Some(Algorithm::AesGcmV1),
        "gcm-ctr" => Some(Algorithm::AesGcmCtrV1),
        _ => None,
    };
    if let Some(algorithm) = algorithm {
        props = props.set_encryption(
            FileEncryptionProperties::builder(KEY.to_vec())
                .with_algorithm(algorithm)
                .build()
                .expect("keys"),
        );
    }
    props.build()
}

fn write_arrow_rs(batch: &RecordBatch, encrypted: bool) -> Vec<u8> {
    let mut writer =
        ArrowWriter::try_new(Vec::new(), batch.schema(), Some(arrow_rs_props(encrypted))).unwrap();
    writer.write(batch).unwrap();
    writer.into_inner().unwrap()
}

fn write_herringbone(batch: &RecordBatch, case: &str) -> Vec<u8> {
    let mut writer = herringbone::ArrowWriter::try_new(
        Vec::new(),
        batch.schema(),
        Some(herringbone_props(case)),
    )
    .unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
    writer.into_inner()
}

fn read_herringbone(path: &Path, case: &str) -> usize {
    let file = File::open(path).unwrap();
    let builder = if case == "plain" {
        ParquetRecordBatchReaderBuilder::try_new(file)
    } else {
        let keys = FileDecryptionProperties::builder()
            .with_footer_key(KEY.to_vec())
            .build()
            .unwrap();
        ParquetRecordBatchReaderBuilder::try_new_with_decryption(file, &keys)
    };
    let reader = builder
        .unwrap()
        .with_batch_size(BATCH_SIZE)
        .build()
        .unwrap();
    reader.map(|b| black_box(b.unwrap()).num_rows()).sum()
}

fn read_arrow_rs(path: &Path, case: &str) -> usize {
    let file = File::open(path).unwrap();
    let mut options = ArrowReaderOptions::new();
    if case != "plain" {
        options = options.with_file_decryption_properties(
            ArrowDecryption::builder(KEY.to_vec()).build().unwrap(),
        );
    }
    let reader = Arrow::try_new_with_options(file, options)
        .unwrap()
        .with_batch_size(BATCH_SIZE)
        .build()
        .unwrap();
    reader.map(|b| black_box(b.unwrap()).num_rows()).sum()
}

fn collect_herringbone(path: &Path, case: &str) -> Vec<RecordBatch> {
    let keys = FileDecryptionProperties::builder()
        .with_footer_key(KEY.to_vec())
        .with_allow_plaintext_files(true)
        .build()
        .unwrap();
    let _ = case;
    ParquetRecordBatchReaderBuilder::try_new_with_decryption(File::open(path).unwrap(), &keys)
        .unwrap()
        .with_batch_size(BATCH_SIZE)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn files(batch: &RecordBatch) -> Vec<(&'static str, PathBuf)> {
    // Beside criterion's own output in the workspace's target directory.
    let dir = common::criterion_home().with_file_name("bench-encryption");
    std::fs::create_dir_all(&dir).unwrap();
    CASES
        .iter()
        .map(|&case| {
            let bytes = match case {
                "plain" => write_arrow_rs(batch, false),
                "gcm" => write_arrow_rs(batch, true),
                _ => write_herringbone(batch, case),
            };
            let path = dir.join(format!("lineitem_{case}.parquet"));
            std::fs::write(&path, bytes).unwrap();
            (case, path)
        })
        .collect()
}

fn main() {
    let started = SystemTime::now();
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let data = common::datasets()
        .into_iter()
        .find(|d| d.name == "lineitem_zstd")
        .expect("the lineitem case");
    let batch = Arc::new(data.batch);
    let files = files(&batch);

    // Setup checks: every reader that can read a file reads the same values, and what
    // Herringbone writes reads back.
    let reference = collect_herringbone(&files[0].1, "plain");
    for (case, path) in &files {
        assert_eq!(
            collect_herringbone(path, case),
            reference,
            "{case}: Herringbone"
        );
        if *case != "gcm-ctr" {
            assert_eq!(read_arrow_rs(path, case), common::ROWS, "{case}: arrow-rs");
        }
        let written = write_herringbone(&batch, case);
        let check = std::env::temp_dir().join(format!("hb-bench-encryption-{case}.parquet"));
        std::fs::write(&check, written).unwrap();
        assert_eq!(
            collect_herringbone(&check, case),
            reference,
            "{case}: Herringbone's file"
        );
        let _ = std::fs::remove_file(check);
    }

    if let Some(rounds) = std::env::var("HB_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse::<usize>().ok())
    {
        paired_rounds(rounds.max(1), &files, &batch);
        return;
    }

    {
        let mut group = criterion.benchmark_group("encryption-read");
        for (case, path) in &files {
            group.bench_function(BenchmarkId::new("herringbone", case), |b| {
                b.iter(|| read_herringbone(path, case))
            });
            if *case != "gcm-ctr" {
                group.bench_function(BenchmarkId::new("arrow-rs", case), |b| {
                    b.iter(|| read_arrow_rs(path, case))
                });
            }
        }
        group.finish();
    }
    {
        let mut group = criterion.benchmark_group("encryption-write");
        for case in CASES {
            group.bench_function(BenchmarkId::new("herringbone", case), |b| {
                b.iter(|| black_box(write_herringbone(&batch, case)).len())
            });
            if case != "gcm-ctr" {
                group.bench_function(BenchmarkId::new("arrow-rs", case), |b| {
                    b.iter(|| black_box(write_arrow_rs(&batch, case == "gcm")).len())
                });
            }
        }
        group.finish();
    }
    criterion.final_summary();

    for group in ["encryption-read", "encryption-write"] {
        println!(
            "\n{group}: overhead = encrypted time / plain time; ratio = arrow-rs / Herringbone"
        );
        println!(
            "{:<8} {:>14} {:>9} {:>14} {:>9} {:>7}",
            "case", "Herringbone", "overhead", "arrow-rs", "overhead", "ratio"
        );
        let ours_plain = common::mean_ns(group, "herringbone", "plain", started);
        let theirs_plain = common::mean_ns(group, "arrow-rs", "plain", started);
        for case in CASES {
            let ours = common::mean_ns(group, "herringbone", case, started);
            let theirs = common::mean_ns(group, "arrow-rs", case, started);
            let ms = |t: Option<f64>| t.map_or("-".to_string(), |t| format!("{:.2} ms", t / 1e6));
            let over = |t: Option<f64>, p: Option<f64>| match (t, p) {
                (Some(t), Some(p)) => format!("{:.3}x", t / p),
                _ => "-".to_string(),
            };
            let ratio = match (ours, theirs) {
                (Some(o), Some(t)) => format!("{:.2}x", t / o),
                _ => "-".to_string(),
            };
            println!(
                "{case:<8} {:>14} {:>9} {:>14} {:>9} {ratio:>7}",
                ms(ours),
                over(ours, ours_plain),
                ms(theirs),
                over(theirs, theirs_plain),
            );
        }
    }
}

/// CPU time of this process, in nanoseconds (everything measured is single-threaded).
fn cpu_ns() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec that clock_gettime fills.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
}

type Job<'a> = (
    &'static str,
    &'static str,
    &'static str,
    Box<dyn Fn() -> usize + 'a>,
);

/// `rounds` paired rounds of every read and write (see the module documentation).
fn paired_rounds(rounds: usize, files: &[(&'static str, PathBuf)], batch: &RecordBatch) {
    let mut jobs: Vec<Job<'_>> = Vec::new();
    for (case, path) in files {
        let case: &'static str = case;
        jobs.push((
            "encryption-read",
            "herringbone",
            case,
            Box::new(move || read_herringbone(path, case)),
        ));
        if case != "gcm-ctr" {
            jobs.push((
                "encryption-read",
                "arrow-rs",
                case,
                Box::new(move || read_arrow_rs(path, case)),
            ));
        }
    }
    for case in CASES {
        jobs.push((
            "encryption-write",
            "herringbone",
            case,
            Box::new(move || write_herringbone(batch, case).len()),
        ));
        if case != "gcm-ctr" {
            jobs.push((
                "encryption-write",
                "arrow-rs",
                case,
                Box::new(move || write_arrow_rs(batch, case == "gcm").len()),
            ));
        }
    }
    let mut times: HashMap<(&str, &str, &str), Vec<f64>> = HashMap::new();
    for round in 0..rounds {
        for i in 0..jobs.len() {
            let (group, side, case, job) = &jobs[(i + round) % jobs.len()];
            let start = cpu_ns();
            black_box(job());
            let elapsed = cpu_ns() - start;
            times.entry((group, side, case)).or_default().push(elapsed);
        }
    }
    let median = |mut v: Vec<f64>| -> Option<f64> {
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        Some(v[v.len() / 2])
    };
    let per_round = |a: Option<&Vec<f64>>, b: Option<&Vec<f64>>| -> Option<f64> {
        let (a, b) = (a?, b?);
        median(a.iter().zip(b).map(|(x, y)| x / y).collect())
    };
    println!("\n{rounds} paired rounds, CPU time (median per case)");
    for group in ["encryption-read", "encryption-write"] {
        println!(
            "\n{group}: overhead = encrypted / plain; ratio = arrow-rs / Herringbone (medians of per-round quotients)"
        );
        println!(
            "{:<8} {:>12} {:>9} {:>12} {:>9} {:>7}",
            "case", "Herringbone", "overhead", "arrow-rs", "overhead", "ratio"
        );
        for case in CASES {
            let ours = times.get(&(group, "herringbone", case));
            let theirs = times.get(&(group, "arrow-rs", case));
            let ours_plain = times.get(&(group, "herringbone", "plain"));
            let theirs_plain = times.get(&(group, "arrow-rs", "plain"));
            let ms = |t: Option<&Vec<f64>>| {
                t.and_then(|t| median(t.clone()))
                    .map_or("-".to_string(), |t| format!("{:.1} ms", t / 1e6))
            };
            let x = |q: Option<f64>| q.map_or("-".to_string(), |q| format!("{q:.3}x"));
            println!(
                "{case:<8} {:>12} {:>9} {:>12} {:>9} {:>7}",
                ms(ours),
                x(per_round(ours, ours_plain)),
                ms(theirs),
                x(per_round(theirs, theirs_plain)),
                x(per_round(theirs, ours)),
            );
        }
    }
}
