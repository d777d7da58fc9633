//! Page decompression per codec: Herringbone's `compression::Codec` side by side with
//! arrow-rs `parquet::compression`, on the same compressed bytes of a realistic 1 MiB
//! page (PLAIN INT64 with small steps, then length-prefixed strings).
//!
//! Run: `cargo bench -p herringbone-benches --bench compression -- --warm-up-time 1 --measurement-time 2`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use herringbone_codec::compression::Codec;
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::compression::{CodecOptionsBuilder, create_codec};
use std::hint::black_box;

const PAGE_BYTES: usize = 1 << 20;

/// Half PLAIN INT64 (timestamps a few ms apart), half PLAIN BYTE_ARRAY (names and ids),
/// so every codec finds some, but not unlimited, redundancy.
fn page_like_data() -> Vec<u8> {
    let mut data = Vec::with_capacity(PAGE_BYTES);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut timestamp = 1_700_000_000_000i64;
    while data.len() < PAGE_BYTES / 2 {
        timestamp += (next() % 50) as i64;
        data.extend_from_slice(&timestamp.to_le_bytes());
    }
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
    ];
    while data.len() < PAGE_BYTES {
        let value = format!(
            "{}-{}-{:x}",
            words[(next() % 7) as usize],
            next() % 1000,
            next() % 65536
        );
        data.extend_from_slice(&(value.len() as u32).to_le_bytes());
        data.extend_from_slice(value.as_bytes());
    }
    data.truncate(PAGE_BYTES);
    data
}

fn decompress(c: &mut Criterion) {
    let data = page_like_data();
    let codecs = [
        (Codec::Snappy, Compression::SNAPPY),
        (
            Codec::Gzip { level: 6 },
            Compression::GZIP(GzipLevel::default()),
        ),
        (
            Codec::Brotli { quality: 1 },
            Compression::BROTLI(BrotliLevel::default()),
        ),
        (Codec::Lz4, Compression::LZ4),
        (Codec::Lz4Raw, Compression::LZ4_RAW),
        (
            Codec::Zstd { level: 1 },
            Compression::ZSTD(ZstdLevel::default()),
        ),
    ];
    let options = CodecOptionsBuilder::default().build();
    let mut group = c.benchmark_group("decompress_1MiB_page");
    group.throughput(Throughput::Bytes(data.len() as u64));
    for (ours, theirs) in codecs {
        let mut compressed = Vec::new();
        ours.compress(&data, &mut compressed)
            .expect("compress bench data");
        println!(
            "{}: {} -> {} bytes (ratio {:.2})",
            ours.name(),
            data.len(),
            compressed.len(),
            data.len() as f64 / compressed.len() as f64
        );
        let mut out = Vec::with_capacity(data.len());
        ours.decompress(&compressed, data.len(), &mut out)
            .expect("decompress");
        assert!(out == data, "{} round trip", ours.name());
        group.bench_with_input(
            BenchmarkId::new("herringbone", ours.name()),
            &compressed,
            |b, compressed| {
                b.iter(|| {
                    out.clear();
                    ours.decompress(black_box(compressed), data.len(), &mut out)
                        .expect("decompress");
                    black_box(out.len())
                })
            },
        );
        let mut arrow_codec = create_codec(theirs, &options)
            .expect("arrow-rs codec")
            .expect("compressed codec");
        let mut arrow_out = Vec::with_capacity(data.len());
        arrow_codec
            .decompress(&compressed, &mut arrow_out, Some(data.len()))
            .expect("arrow-rs decompress");
        assert!(arrow_out == data, "arrow-rs {} round trip", ours.name());
        group.bench_with_input(
            BenchmarkId::new("arrow-rs", ours.name()),
            &compressed,
            |b, compressed| {
                b.iter(|| {
                    arrow_out.clear();
                    arrow_codec
                        .decompress(black_box(compressed), &mut arrow_out, Some(data.len()))
                        .expect("arrow-rs decompress");
                    black_box(arrow_out.len())
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, decompress);
criterion_main!(benches);
